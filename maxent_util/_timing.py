"""Wall-clock limits for symbolic work, so that sympy never hangs a caller."""

from __future__ import annotations

import signal
import threading
from contextlib import contextmanager
from typing import Any, Iterator

__all__ = ["SymbolicTimeout", "time_limit"]

#: delay before the alarm rings again if its exception was swallowed
_REPEAT_SECONDS = 0.05


class SymbolicTimeout(BaseException):
    """Raised inside a :func:`time_limit` block when its time is up.

    A BaseException, so that sympy's internal ``except Exception`` blocks
    cannot swallow the alarm and keep computing.
    """


@contextmanager
def time_limit(seconds: float | None) -> Iterator[None]:
    """Raise :class:`SymbolicTimeout` inside the block after ``seconds``.

    SIGALRM is the only way to interrupt sympy's pure-Python loops; off the
    main thread (or without ``setitimer``) the block runs unbounded.  An
    enclosing limit is restored, with its remaining time, on exit.
    """
    usable = (seconds is not None and seconds > 0 and hasattr(signal, "setitimer")
              and threading.current_thread() is threading.main_thread())
    if not usable:
        yield
        return

    active = [True]

    def _raise(signum: int, frame: Any) -> None:
        if not active[0]:
            return
        # an alarm that lands in a gc callback or a __del__ is swallowed there:
        # ring again shortly, until the block has really been left
        signal.setitimer(signal.ITIMER_REAL, _REPEAT_SECONDS)
        raise SymbolicTimeout()

    previous_handler = signal.signal(signal.SIGALRM, _raise)
    previous_timer = signal.getitimer(signal.ITIMER_REAL)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        try:
            yield
        finally:
            active[0] = False
    finally:
        # repeated: an alarm may interrupt the inner finally before its first statement
        active[0] = False
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous_handler)
        if previous_timer[0] > 0:
            signal.setitimer(signal.ITIMER_REAL, *previous_timer)
