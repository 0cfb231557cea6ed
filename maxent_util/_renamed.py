"""Names the library gave up, still read: a renamed keyword argument or attribute warns once per
use with a DeprecationWarning naming its new name (:func:`renamed_keywords`,
:func:`renamed_attribute`).

The run limit (where a race or a runner stops a run) was once called a captime, a word the
library keeps for the user's patience (a law); the old names of run limits stay readable."""

from __future__ import annotations

import functools
import inspect
import warnings
from typing import Any, Callable, TypeVar

from .errors import DataError, argument_message

__all__ = ["renamed_keywords", "renamed_attribute"]

F = TypeVar("F", bound=Callable[..., Any])


def renamed_keywords(**old_to_new: str) -> Callable[[F], F]:
    """Let a function take its arguments' old names as keywords too, with a warning.

    >>> @renamed_keywords(captime="run_limit")
    ... def stop(run_limit):
    ...     return run_limit
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     stop(captime=2.0), str(caught[0].message)
    (2.0, 'stop(captime=...) is deprecated: write run_limit=... (the same value)')
    """
    def wrap(function: F) -> F:
        signature = inspect.signature(function)
        owner = function.__qualname__

        @functools.wraps(function)
        def call(*args: Any, **kwargs: Any) -> Any:
            for old, new in old_to_new.items():
                if old not in kwargs:
                    continue
                if new in kwargs or new in signature.bind_partial(*args).arguments:
                    raise DataError(argument_message(
                        old, owner, f"left out: it is the old name of {new}, given too",
                        kwargs[old]))
                warnings.warn(f"{owner}({old}=...) is deprecated: write {new}=... (the same "
                              "value)", DeprecationWarning, stacklevel=2)
                kwargs[new] = kwargs.pop(old)
            return function(*args, **kwargs)
        return call  # type: ignore[return-value]
    return wrap


def renamed_attribute(old: str, new: str) -> property:
    """A read-only property ``old`` that reads ``new``, with a warning.

    >>> class Runner:
    ...     max_run_limit = 10.0
    ...     max_captime = renamed_attribute("max_captime", "max_run_limit")
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     Runner().max_captime, str(caught[0].message)
    (10.0, 'Runner.max_captime is deprecated: read Runner.max_run_limit (the same value)')
    """
    def read(self: Any) -> Any:
        kind = type(self).__name__
        warnings.warn(f"{kind}.{old} is deprecated: read {kind}.{new} (the same value)",
                      DeprecationWarning, stacklevel=2)
        return getattr(self, new)
    return property(read, doc=f"The old name of ``{new}`` (deprecated: read ``{new}``).")
