"""Errors raised by maxent_util.

Every error is a :class:`MaxEntError`, itself a :class:`ValueError`, so a
caller can catch all of the library's complaints about its input at once.
Messages follow one template (after scipy's distribution infrastructure)::

    `{arg}` of `{owner}` must be {requirement}; got {value!r}.

optionally followed by a remedy sentence.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "MaxEntError",
    "ConstraintError",
    "InfeasibleError",
    "NotNormalizableError",
    "MaximumNotAttainedError",
    "NoClosedFormError",
    "UtilityError",
    "DataError",
    "ExportError",
    "MissingExtraError",
    "TimeLimitError",
    "argument_message",
]


class MaxEntError(ValueError):
    """Base class of every error raised by maxent_util."""


class ConstraintError(MaxEntError):
    """A constraint was given an argument outside its domain."""


class InfeasibleError(MaxEntError):
    """No distribution satisfies all the stated constraints at once."""


class NotNormalizableError(MaxEntError):
    """The maximum-entropy density of the constraints cannot be normalised."""


class MaximumNotAttainedError(NotNormalizableError):
    """The constraints can all hold, but no density attains the supremum of the entropy."""


class NoClosedFormError(MaxEntError):
    """A symbolic answer was required but only a numeric one exists."""


class UtilityError(MaxEntError):
    """A utility was built or called with invalid arguments."""


class DataError(MaxEntError):
    """Runtime data could not be read or has invalid values."""


class MissingExtraError(MaxEntError):
    """An optional dependency is not installed; the message names the extra that installs it."""


class ExportError(MaxEntError):
    """A utility or distribution could not be exported."""


class TimeLimitError(MaxEntError):
    """A computation did not finish within its time limit (``timeout``)."""


def argument_message(arg: str, owner: str, requirement: str, value: Any,
                     remedy: str | None = None) -> str:
    """The library's one error-message template.

    >>> argument_message("alpha", "pareto", "positive", -1)
    '`alpha` of `pareto` must be positive; got -1.'
    """
    message = f"`{arg}` of `{owner}` must be {requirement}; got {value!r}."
    if remedy:
        message += f" {remedy}"
    return message


def short(value: Any) -> Any:
    """A value as an error message shows it: its repr cut to 80 characters (a
    hostile file can hold megabytes in one cell)."""
    try:
        text = repr(value)
    except ValueError:  # an integer past Python's limit on converting integers to text
        number = getattr(value, "p", value)  # a sympy Integer holds its int in .p
        if isinstance(number, int):
            return f"<an integer of about {int(abs(number).bit_length() * 0.30103) + 1:,} digits>"
        return f"<a {type(value).__name__} holding an integer too long to print>"
    return value if len(text) <= 80 else text[:77] + "..."
