"""Wall-clock limits for symbolic work, so that sympy never hangs a caller."""

from __future__ import annotations

import signal
import threading
import time
from contextlib import contextmanager
from typing import Any, Iterator

__all__ = ["SymbolicTimeout", "time_limit"]

#: delay before the alarm rings again if its exception was swallowed
_RING_AGAIN = 0.05


class SymbolicTimeout(BaseException):
    """Raised inside a :func:`time_limit` block when its time is up.

    A BaseException, so that sympy's internal ``except Exception`` blocks
    cannot swallow the alarm and keep computing.
    """


@contextmanager
def time_limit(seconds: float | None) -> Iterator[None]:
    """Raise :class:`SymbolicTimeout` inside the block after ``seconds``.

    SIGALRM is the only way to interrupt sympy's pure-Python loops; off the
    main thread (or without ``setitimer``) the block runs unbounded.  The
    alarm is armed inside the ``try``, so the handler and the timer are
    always restored, even when a microsecond limit rings before the block
    starts; an enclosing limit gets back what is left of its time.
    """
    usable = (seconds is not None and seconds > 0 and hasattr(signal, "setitimer")
              and threading.current_thread() is threading.main_thread())
    if not usable:
        yield
        return
    active = [True]

    def _raise(signum: int, frame: Any) -> None:
        if active[0]:
            # an alarm that lands in a gc callback or a __del__ is swallowed
            # there: ring again shortly, until the block has really been left
            signal.setitimer(signal.ITIMER_REAL, _RING_AGAIN)
            raise SymbolicTimeout()

    previous_handler = signal.getsignal(signal.SIGALRM)
    previous_timer = signal.getitimer(signal.ITIMER_REAL)
    entered = time.monotonic()
    try:
        signal.signal(signal.SIGALRM, _raise)
        signal.setitimer(signal.ITIMER_REAL, seconds)
        yield
    finally:
        while True:
            # an alarm may ring on the first statements here: retry until disarmed
            try:
                active[0] = False
                signal.setitimer(signal.ITIMER_REAL, 0)
                break
            except SymbolicTimeout:
                continue
        signal.signal(signal.SIGALRM, previous_handler if previous_handler is not None else signal.SIG_DFL)
        if previous_timer[0] > 0:
            left = previous_timer[0] - (time.monotonic() - entered)
            signal.setitimer(signal.ITIMER_REAL, max(left, 1e-6), previous_timer[1])
