"""Running a real command as one capped run: :class:`ProcessRunner`.

A race (:mod:`maxent_util.racing`) asks a runner for runs; this one starts a
command with the configuration and the instance filled into its words, stops
it at the captime, and returns the time it took. Everything here is about
processes: the words of a command, its time limit, and ending what it started.
"""

from __future__ import annotations

import math
import os
import shlex
import signal
import subprocess
import threading
import time
from typing import Any, Mapping, Sequence

import numpy as np

try:  # POSIX: the CPU-time limit of ProcessRunner(clock="cpu")
    import resource
except ImportError:  # pragma: no cover - Windows
    resource = None

from .errors import DataError, argument_message, short
from .runs import real

__all__ = ["ProcessRunner"]


_CLOCKS = ("wall", "cpu")
_FAILURES = ("never", "raise")


class ProcessRunner:
    """Run a real command under a time limit, killed at the captime.

    Parameters
    ----------
    command : str or sequence of str
        The command, with the placeholders ``{config}``, ``{instance}`` and
        ``{captime}`` in its words, e.g. ``"minisat {config} {instance}"``. A
        string is split once with :func:`shlex.split`; the placeholders are
        then replaced word by word, so a configuration or instance is always
        one argument however it is spelt (no shell ever reads it). A word
        that is exactly ``{config}`` and a configuration that is a list or
        tuple of strings make several arguments (``["-luby", "-rinc=2"]``).
    clock : {"wall", "cpu"}, keyword-only
        ``"wall"``: the runtime is the elapsed time (``time.perf_counter``),
        and the process group is killed at the captime. ``"cpu"``: the
        runtime is the child's user + system CPU time (from ``os.wait4``);
        the kernel stops it at the captime rounded up to a whole second of
        CPU (``RLIMIT_CPU``; a run past the captime still counts as capped),
        and it is killed after ``wall_factor`` times the captime of elapsed
        time in case it sleeps (the kernel limit is Linux's; elsewhere only
        that one applies).
    configurations : mapping of str to sequence of str, optional, keyword-only
        The words of each configuration by name, e.g. ``{"luby": ["-luby"],
        "geometric": ["-no-luby", "-rinc=1.5"]}``: a configuration named here
        fills ``{config}`` with its words, so races and traces speak of names.
    exit_codes : sequence of int, keyword-only
        The exit statuses of a run that finished (default ``(0,)``; SAT
        solvers report 10 and 20).
    failures : {"never", "raise"}, keyword-only
        A command that exits with another status, or is killed by a signal
        before its captime: ``"never"`` counts it as a run that never
        finishes (runtime ``inf``, utility 0); ``"raise"`` raises
        :class:`~maxent_util.errors.DataError` naming the command and status.
    executor : concurrent.futures.Executor or dask.distributed.Client, optional, keyword-only
        Where :meth:`run_many` runs its commands (anything with
        ``submit(fn, *args)`` returning futures with ``result()``); by
        default one after another.
    wall_factor : float, keyword-only
        With ``clock="cpu"``: elapsed-time limit as a multiple of the
        captime (default 10).
    cwd : str or path, optional, keyword-only
        Working folder of the command.

    Raises
    ------
    DataError
        If the command is empty or cannot be split, or an option is invalid.

    Notes
    -----
    POSIX only (Linux, macOS): the command runs in a session of its own,
    so the whole process group it starts is killed at the captime, and an
    interrupted race (Ctrl-C) kills the run under way before it stops.

    Examples
    --------
    >>> import sys
    >>> runner = ProcessRunner([sys.executable, "-c", "pass", "{instance}"])
    >>> runner.arguments("c", "x; rm -rf /", 10)[-1]
    'x; rm -rf /'
    >>> 0 <= runner.run("c", "i", 60.0) < 60.0
    True
    """

    max_captime = math.inf

    def __init__(self, command: str | Sequence[str], *, clock: str = "wall",
                 configurations: Any = None, exit_codes: Sequence[int] = (0,),
                 failures: str = "never", executor: Any = None, wall_factor: float = 10.0,
                 cwd: Any = None) -> None:
        owner = "ProcessRunner"
        if isinstance(command, str):
            try:
                words = shlex.split(command)
            except ValueError as error:
                raise DataError(argument_message("command", owner, "a command line shlex can "
                                                 f"split ({error})", short(command))) from None
        elif isinstance(command, Sequence) and all(isinstance(w, str) for w in command):
            words = list(command)
        else:
            raise DataError(argument_message("command", owner, "a string or a list of strings",
                                             short(command)))
        if not words:
            raise DataError(argument_message("command", owner, "a command to run", command))
        if clock not in _CLOCKS:
            raise DataError(argument_message("clock", owner, "'wall' or 'cpu'", short(clock)))
        if failures not in _FAILURES:
            raise DataError(argument_message("failures", owner, "'never' or 'raise'",
                                             short(failures)))
        factor = real(wall_factor)
        if not (math.isfinite(factor) and factor >= 1):
            raise DataError(argument_message("wall_factor", owner, "a finite number of at "
                                             "least 1", short(wall_factor)))
        if executor is not None and not callable(getattr(executor, "submit", None)):
            raise DataError(argument_message(
                "executor", owner, "a concurrent.futures executor or a Dask client (with "
                "submit)", type(executor).__name__))
        named: dict[str, tuple[str, ...]] = {}
        if configurations is not None:
            if not isinstance(configurations, Mapping) or not all(
                    isinstance(name, str) and isinstance(value, Sequence)
                    and not isinstance(value, str) and all(isinstance(w, str) for w in value)
                    for name, value in configurations.items()):
                raise DataError(argument_message(
                    "configurations", owner, "a mapping from names to lists of words",
                    short(configurations)))
            named = {name: tuple(value) for name, value in configurations.items()}
        codes = tuple(exit_codes) if isinstance(exit_codes, Sequence) else ()
        if not codes or not all(isinstance(c, int) and not isinstance(c, bool) for c in codes):
            raise DataError(argument_message("exit_codes", owner, "a non-empty list of integers",
                                             short(exit_codes)))
        self.words = tuple(words)
        self.configurations = named
        self.exit_codes = codes
        self.clock = clock
        self.failures = failures
        self.executor = executor
        self.wall_factor = factor
        self.cwd = cwd

    def __getstate__(self) -> dict[str, Any]:
        # sent to a process pool or a Dask worker: the executor stays behind
        return {**self.__dict__, "executor": None}

    def arguments(self, config: Any, instance: Any, captime: float) -> list[str]:
        """The argument list of one run: the command with its placeholders replaced.

        Parameters
        ----------
        config : str or sequence of str
            The configuration: a name of ``configurations`` (its words), or
            the words themselves (several words only for a word that is
            exactly ``{config}``).
        instance : object
            The instance, as one argument (``str(instance)``).
        captime : float
            The time limit, for ``{captime}`` (``repr`` of the float).

        Returns
        -------
        list of str
            The words to execute; nothing is read by a shell.
        """
        if isinstance(config, str) and config in self.configurations:
            config = self.configurations[config]
        spliced = isinstance(config, (list, tuple))
        config_text = " ".join(map(str, config)) if spliced else str(config)
        values = {"{config}": config_text, "{instance}": str(instance),
                  "{captime}": repr(float(captime))}
        out: list[str] = []
        for word in self.words:
            if spliced and word == "{config}":
                out.extend(map(str, config))
                continue
            for key, value in values.items():
                word = word.replace(key, value)
            out.append(word)
        return out

    def run(self, config: Any, instance: Any, captime: float) -> float:
        """Run the command once, stopped at ``captime`` seconds.

        Parameters
        ----------
        config, instance : object
            Filled into the command's placeholders (see :meth:`arguments`).
        captime : float
            The time limit in seconds (positive, finite).

        Returns
        -------
        float
            The measured runtime: below ``captime`` when the command
            finished in time, at least ``captime`` when it was stopped, and
            ``inf`` for a failure with ``failures="never"``.

        Raises
        ------
        DataError
            For a captime that is not positive and finite, a command that
            cannot be started, or a failure with ``failures="raise"``.
        """
        limit = real(captime)
        if not (math.isfinite(limit) and limit > 0):
            raise DataError(argument_message("captime", "ProcessRunner.run",
                                             "a positive finite number of seconds",
                                             short(captime)))
        argv = self.arguments(config, instance, limit)
        wall_limit = limit if self.clock == "wall" else self.wall_factor * limit
        started = time.perf_counter()
        try:
            process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                       stderr=subprocess.DEVNULL, start_new_session=True,
                                       cwd=self.cwd)
        except OSError as error:
            raise DataError(argument_message("command", "ProcessRunner", "a command that can be "
                                             "started", short(argv[0]),
                                             f"({error.strerror or error})")) from None
        killed = threading.Event()

        def kill() -> None:
            killed.set()
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass

        if self.clock == "cpu":
            try:
                seconds = max(1, math.ceil(limit))
                _set_cpu_limit(process.pid, seconds)
            except (OSError, ValueError, AttributeError):
                pass  # the elapsed-time limit still stops it
        timer = threading.Timer(wall_limit, kill)
        timer.daemon = True
        timer.start()
        try:
            _, status, usage = os.wait4(process.pid, 0)
        except BaseException:  # Ctrl-C: the command is in its own session and did not get it
            kill()
            os.waitpid(process.pid, 0)
            process.returncode = -signal.SIGKILL
            raise
        finally:
            timer.cancel()
        elapsed = time.perf_counter() - started
        process.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
        if killed.is_set():
            try:  # what the command started itself goes too
                os.killpg(process.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        runtime = elapsed if self.clock == "wall" else usage.ru_utime + usage.ru_stime
        if killed.is_set():
            return max(runtime, limit)
        if process.returncode not in self.exit_codes:
            if self.clock == "cpu" and process.returncode in (-signal.SIGXCPU, -signal.SIGKILL):
                return max(runtime, limit)  # stopped by the CPU-time limit
            if self.failures == "raise":
                raise DataError(argument_message(
                    "command", "ProcessRunner.run",
                    f"a command that exits with status {' or '.join(map(str, self.exit_codes))}",
                    short(" ".join(argv)), f"(it exited with status {process.returncode})"))
            return math.inf
        return runtime

    def run_many(self, configs: Sequence[Any], instances: Sequence[Any],
                 captimes: Any) -> np.ndarray:
        """Run many commands, on the executor when there is one.

        Parameters
        ----------
        configs, instances : sequence
            One configuration and one instance per run.
        captimes : float or array_like of float
            The time limit of each run.

        Returns
        -------
        numpy.ndarray
            The runtimes, in the order of the requests (as :meth:`run`).

        Raises
        ------
        DataError
            As :meth:`run`.
        """
        limits = np.broadcast_to(np.asarray(captimes, dtype=float), (len(configs),))
        requests = list(zip(configs, instances, limits.tolist()))
        if self.executor is None:
            return np.array([self.run(*request) for request in requests], dtype=float)
        futures = [self.executor.submit(self.run, *request) for request in requests]
        try:
            return np.array([future.result() for future in futures], dtype=float)
        except BaseException:  # interrupted or failed: what has not started need not start
            for future in futures:
                future.cancel()
            raise

    def __repr__(self) -> str:
        return f"ProcessRunner({shlex.join(self.words)!r}, clock={self.clock!r})"


def _set_cpu_limit(pid: int, seconds: int) -> None:
    """Limit a started child's CPU time (Linux' prlimit; elsewhere only the elapsed-time limit)."""
    if resource is None or not hasattr(resource, "prlimit"):
        raise OSError("no prlimit here")
    resource.prlimit(pid, resource.RLIMIT_CPU, (seconds, seconds + 1))
