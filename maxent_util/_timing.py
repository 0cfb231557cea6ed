"""Wall-clock limits for symbolic work, so that sympy never hangs a caller.

Three pieces:

* :class:`Deadline` -- one point in time shared by every step of a
  computation; each step asks for what is left (:meth:`Deadline.remaining`)
  instead of getting the whole budget again.
* :func:`time_limit` -- raise :class:`SymbolicTimeout` inside a block when
  its time is up.  It uses SIGALRM, so it only stops the block on the main
  thread of a platform that has ``setitimer``; elsewhere it does nothing.
* :func:`run_bounded` -- call a function and really stop it at a deadline
  on any thread: in-process under :func:`time_limit` where the alarm works,
  otherwise in a worker process that is killed when the time is up.

How the worker process works: on Linux it is started with the ``fork``
method of :mod:`multiprocessing` (no start-up cost: the child is a copy of
the caller with sympy already imported, and the calling thread becomes the
child's main thread, so the child can arm alarms for its own steps).  On
other platforms it is started with ``spawn`` (the child imports the package
first, which takes part of the budget, and the function and its arguments
must pickle).  The result travels back through a pipe as a pickled object
(sympy expressions pickle directly); an exception raised in the child is
re-raised in the caller.  At the deadline the child is killed (SIGKILL on
POSIX, TerminateProcess on Windows), which stops even a long C call.
"""

from __future__ import annotations

import math
import numbers
import pickle
import signal
import sys
import threading
import time
from contextlib import contextmanager
from typing import Any, Callable, Iterator

from .errors import MaxEntError, TimeLimitError, argument_message, short

__all__ = ["SymbolicTimeout", "Deadline", "time_limit", "run_bounded", "alarm_usable",
           "check_timeout", "rings"]

#: delay before the alarm rings again if its exception was swallowed
_RING_AGAIN = 0.05


#: how many times a time limit has rung in this process (see rings)
_rings = 0


class SymbolicTimeout(BaseException):
    """Raised inside a :func:`time_limit` block when its time is up.

    A BaseException, so that sympy's internal ``except Exception`` blocks
    cannot swallow the alarm and keep computing.  Each one is counted
    (:func:`rings`).
    """

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        global _rings
        _rings += 1


def rings() -> int:
    """How many time limits have rung in this process so far (every :class:`SymbolicTimeout`).

    A computation during which this did not change ran each of its steps to the end, so its
    result is the one it has under any time limit.  Rings of other threads count too, which
    can only make a computation look interrupted when it was not, never the other way.
    """
    return _rings


def check_timeout(value: Any, *, arg: str = "timeout", owner: str = "derive",
                  error: type[MaxEntError] = MaxEntError) -> float | None:
    """A validated time limit in seconds: None (or ``inf``) for no limit.

    Zero, negative numbers, NaN, booleans and non-numbers are refused with
    ``error`` (they used to mean "no limit" by accident).  A limit beyond
    :data:`NO_LIMIT_BEYOND` seconds (about 31 years; the platform's timers
    overflow long before ``1e300``) means no limit, as ``inf`` does.

    >>> check_timeout(2), check_timeout(None), check_timeout(float("inf")), check_timeout(1e300)
    (2.0, None, None, None)
    """
    requirement = "None (no limit) or a positive number of seconds"
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise error(argument_message(arg, owner, requirement, short(value)))
    try:
        seconds = float(value)
    except OverflowError:  # an int beyond the float range
        seconds = math.inf if value > 0 else -math.inf
    if math.isnan(seconds) or seconds <= 0:
        raise error(argument_message(arg, owner, requirement, short(value)))
    return None if seconds > NO_LIMIT_BEYOND else seconds


#: a time limit longer than this (seconds, about 31 years) is no limit (see :func:`check_timeout`)
NO_LIMIT_BEYOND = 1e9


class Deadline:
    """A point in time by which a computation must be done.

    ``Deadline(seconds)`` ends ``seconds`` from now (``None`` or ``inf``:
    never).  Every step of a computation receives the same object and asks
    :meth:`remaining`, so the steps share one budget.  The end is kept on
    :func:`time.monotonic`'s clock, which is system-wide on Linux, macOS and
    Windows, so a deadline passed to a worker process keeps its meaning.
    """

    __slots__ = ("end", "seconds")

    def __init__(self, seconds: float | None = None) -> None:
        if seconds == math.inf:
            seconds = None
        #: the limit it was made with (None: no limit), for messages
        self.seconds = seconds
        self.end = math.inf if seconds is None else time.monotonic() + seconds

    @classmethod
    def at(cls, end: float, seconds: float | None = None) -> "Deadline":
        deadline = cls()
        deadline.end, deadline.seconds = end, seconds
        return deadline

    def __reduce__(self) -> tuple:
        return (Deadline.at, (self.end, self.seconds))

    def __repr__(self) -> str:
        return "Deadline(None)" if self.unbounded else f"Deadline({self.remaining():.3g} s left)"

    @property
    def unbounded(self) -> bool:
        return self.end == math.inf

    def remaining(self) -> float:
        """Seconds left (0 once passed, ``inf`` if unbounded)."""
        return max(self.end - time.monotonic(), 0.0) if not self.unbounded else math.inf

    def expired(self) -> bool:
        return not self.unbounded and time.monotonic() >= self.end

    def within(self, seconds: float | None) -> "Deadline":
        """The sooner of this deadline and ``seconds`` from now."""
        if seconds is None:
            return self
        return Deadline.at(min(self.end, time.monotonic() + seconds), self.seconds)

    def share(self, fraction: float, most: float = math.inf) -> "Deadline":
        """The sooner of this deadline and ``fraction`` of its time left (at most ``most``
        seconds): the budget of an optional step, which leaves the rest to what must be done."""
        return self.within(min(self.remaining() * fraction, most))

    def extended(self, seconds: float) -> "Deadline":
        """This deadline moved ``seconds`` later (a grace period for tidying up)."""
        return self if self.unbounded else Deadline.at(self.end + seconds, self.seconds)


def as_deadline(limit: Deadline | float | None) -> Deadline:
    """``limit`` as a :class:`Deadline`: itself, or one ending that many seconds from now."""
    if isinstance(limit, Deadline):
        return limit
    if limit is None:
        return Deadline(None)
    if math.isnan(limit):
        raise ValueError(f"a time limit cannot be NaN; got {limit!r}")
    return Deadline(max(limit, 0.0))


def alarm_usable() -> bool:
    """Whether :func:`time_limit` can interrupt work here (main thread, setitimer)."""
    return hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()


@contextmanager
def time_limit(limit: Deadline | float | None) -> Iterator[None]:
    """Raise :class:`SymbolicTimeout` inside the block when ``limit`` passes.

    ``limit`` is a :class:`Deadline` or seconds from now (``None`` or
    ``inf``: no limit).  A limit already passed (0 seconds, or a deadline
    with nothing left) raises at once: it never means "no limit".

    SIGALRM is the only way to interrupt sympy's pure-Python loops in
    process; off the main thread (or without ``setitimer``) the block runs
    unbounded -- use :func:`run_bounded` there.  The alarm is armed inside
    the ``try``, so the handler and the timer are always restored, even when
    a microsecond limit rings before the block starts; an enclosing limit
    gets back what is left of its time.
    """
    deadline = as_deadline(limit)
    if deadline.unbounded:
        yield
        return
    if deadline.expired():
        raise SymbolicTimeout()
    if not alarm_usable():
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
        signal.setitimer(signal.ITIMER_REAL, max(deadline.remaining(), 1e-6))
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


# ---------------------------------------------------------------------------
# running a function in a worker process that can be killed


def _context() -> Any:
    import multiprocessing

    if sys.platform.startswith("linux") and "fork" in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context("spawn")


def _worker(connection: Any, function: Callable[..., Any], args: tuple) -> None:
    try:
        outcome = (True, function(*args))
    except BaseException as error:  # noqa: BLE001 - every outcome goes back to the caller
        outcome = (False, error)
    try:
        connection.send(outcome)
    except Exception as error:  # the result or the exception did not pickle
        connection.send((False, MaxEntError(
            f"the result of {getattr(function, '__name__', function)} could not be sent back "
            f"from the worker process ({type(error).__name__}: {error}).")))
    finally:
        connection.close()


def _run_in_worker(function: Callable[..., Any], args: tuple, deadline: Deadline) -> Any:
    context = _context()
    receiver, sender = context.Pipe(duplex=False)
    process = context.Process(target=_worker, args=(sender, function, args), daemon=True,
                              name="maxent_util-bounded")
    try:
        process.start()
    finally:
        sender.close()
    try:
        wait = None if deadline.unbounded else deadline.remaining()
        if not receiver.poll(wait):
            raise SymbolicTimeout()
        try:
            ok, value = receiver.recv()
        except EOFError:
            raise MaxEntError(
                f"the worker process running {getattr(function, '__name__', function)} ended without "
                f"an answer (exit code {process.exitcode}).") from None
    finally:
        if process.is_alive():
            process.kill()
        process.join()
        receiver.close()
        if hasattr(process, "close"):
            process.close()
    if ok:
        return value
    raise value


def _run_in_abandoned_thread(function: Callable[..., Any], args: tuple, deadline: Deadline) -> Any:
    outcome: list = []

    def target() -> None:
        try:
            outcome.append((True, function(*args)))
        except BaseException as error:  # noqa: BLE001
            outcome.append((False, error))

    thread = threading.Thread(target=target, daemon=True, name="maxent_util-bounded")
    thread.start()
    thread.join(None if deadline.unbounded else deadline.remaining())
    if not outcome:
        raise SymbolicTimeout()
    ok, value = outcome[0]
    if ok:
        return value
    raise value


def run_bounded(function: Callable[..., Any], *args: Any, deadline: Deadline) -> Any:
    """``function(*args)``, stopped when ``deadline`` passes, on any thread.

    Raises :class:`SymbolicTimeout` when time runs out; exceptions of
    ``function`` propagate.  Where the alarm works (main thread, POSIX) the
    call runs in process under :func:`time_limit`; otherwise it runs in a
    worker process that is killed at the deadline (see the module
    docstring).  Only under ``spawn`` with a function that does not pickle
    (a lambda) does it fall back to a daemon thread that is abandoned, not
    stopped, at the deadline.
    """
    if deadline.unbounded:
        return function(*args)
    if deadline.expired():
        raise SymbolicTimeout()
    if alarm_usable():
        with time_limit(deadline):
            return function(*args)
    if _context().get_start_method() != "fork":
        try:
            pickle.dumps((function, args))
        except Exception:  # lambdas and closures cannot cross a spawn boundary
            return _run_in_abandoned_thread(function, args, deadline)
    return _run_in_worker(function, args, deadline)


def timed_out(what: str, seconds: float | None, remedy: str = "Suggestion: raise `timeout` "
              "(or pass timeout=None for no limit).") -> TimeLimitError:
    """The error for a computation that did not finish within its time limit."""
    return TimeLimitError(f"{what} did not finish within the time limit of {seconds:g} s. {remedy}")
