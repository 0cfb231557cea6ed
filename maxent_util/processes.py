"""Running a real command as one capped run: :class:`ProcessRunner`.

A race (:mod:`maxent_util.racing`) asks a runner for runs; this one starts a
command with the configuration and the instance filled into its words, stops
it at the run limit, ends whatever it started, and returns the time it took.
Three things are decided here: which words of a command may be filled from
a name (:func:`_reads_code`), how long a run may last, and which processes a
run started (:class:`_Started`).
"""

from __future__ import annotations

import math
import os
import queue
import re
import secrets
import shlex
import signal
import subprocess
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

import numpy as np

try:  # POSIX: the CPU-time limit of ProcessRunner(clock="cpu")
    import resource
except ImportError:  # pragma: no cover - Windows
    resource = None

from .errors import DataError, ExportError, argument_message, short
from ._numbers import real
from ._renamed import renamed_attribute, renamed_keywords

__all__ = ["ProcessRunner", "plain_name", "refuse_old_placeholder"]


_CLOCKS = ("wall", "cpu")
_FAILURES = ("never", "raise")
#: with clock="cpu", a failure with this fraction of the kernel's CPU-time limit or more was
#: stopped by it: the usage a process reports falls short of the time the kernel counted
#: (minisat stopped at 2 s reported 1.98 s on a quiet machine, less on a loaded one)
_NEAR_CPU_LIMIT = 0.9
_PLACEHOLDER = re.compile(r"\{(config|instance|run_limit)\}")
#: the placeholders filled with data (names from files and tables); {run_limit} is the
#: library's own number and may be part of a word (-cpu-lim={run_limit})
_DATA = re.compile(r"\{(config|instance)\}")
#: the environment variable each run's processes inherit, with a token of that run
RUN_MARK = "MAXENT_UTIL_RUN"
# waitid(WNOWAIT) waits for the command's end without reaping it: while it is a zombie its
# pid, and so its process group's id, cannot be given to another process
_PEEK = hasattr(os, "waitid") and hasattr(os, "WNOWAIT")


class ProcessRunner:
    """Run a real command under a time limit, killed at the run limit.

    Parameters
    ----------
    command : str or sequence of str
        The command, with the placeholders ``{config}``, ``{instance}`` and
        ``{run_limit}`` (the run's time limit in seconds) in its words, e.g. ``"minisat
        {config} {instance}"`` (``{params}`` and ``{captime}``, old names, are refused with
        the name to write). A
        string is split once with :func:`shlex.split`; the placeholders are
        then replaced word by word, in one pass (a value filled in is never
        read for placeholders again), so a configuration or instance is
        always one argument however it is spelt. A word that is exactly
        ``{config}`` and a configuration that is a list or tuple of strings
        make several arguments (``["-luby", "-rinc=2"]``).
    clock : {"wall", "cpu"}, keyword-only
        ``"wall"``: the runtime is the elapsed time (``time.perf_counter``),
        and the process group is killed at the run limit. ``"cpu"``: the
        runtime is the child's user + system CPU time (from ``os.wait4``);
        it is stopped at the run limit (read from ``/proc`` every 20 ms, on
        Linux, when the run limit is not a whole number of seconds), and the
        kernel stops it at the run limit rounded up to a whole second of
        CPU (``RLIMIT_CPU``; a run past the run limit still counts as capped, also
        one that catches the kernel's ``SIGXCPU`` and exits with a status of its
        own, as minisat does, once its reported CPU time is at least the run limit
        or 90% of that limit),
        and it is killed after ``wall_factor`` times the run limit of elapsed
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
        before its run limit: ``"never"`` counts it as a run that never
        finishes (runtime ``inf``, utility 0); ``"raise"`` raises
        :class:`~maxent_util.errors.DataError` naming the command and status.
    executor : concurrent.futures.Executor or dask.distributed.Client, optional, keyword-only
        Where :meth:`run_many` runs its commands (anything with
        ``submit(fn, *args)`` returning futures with ``result()``); by
        default one after another.
    wall_factor : float, keyword-only
        With ``clock="cpu"``: elapsed-time limit as a multiple of the
        run limit (default 10).
    cwd : str or path, optional, keyword-only
        Working folder of the command.
    shell_ok : bool, keyword-only
        Accept a command that hands a placeholder to a reader of code (see
        Notes); default False, which refuses it.

    Attributes
    ----------
    max_run_limit : float
        The largest run limit :meth:`run` accepts: the longest wait of a
        ``threading`` timer (``threading.TIMEOUT_MAX``, 292 years on Linux),
        over ``wall_factor`` with ``clock="cpu"`` (``max_captime``, its old name, is
        still read, with a DeprecationWarning).

    Raises
    ------
    DataError
        If the command is empty, cannot be split, holds a NUL byte, or
        (without ``shell_ok=True``) hands a placeholder to a reader of code or
        joins a name to other text, or an option is invalid.

    Notes
    -----
    *Names never run as code.* The template is the caller's code; instances
    and configurations are data from files and tables, and a template
    where a name would be read as code or run as a program is refused
    (docs/safety.md states the rules and the table of programs): a
    placeholder as the program; ``{config}`` or ``{instance}`` joined to
    other text in one word (``--input={instance}``, ``alias.x=!{instance}``;
    ``{run_limit}`` may be); a placeholder given to an option that takes
    code for any program (``-c``, ``-e``, ``-S``, ``--eval``, ``-ex``,
    ``-exec``, ``--split-string``, ...); a placeholder in the options,
    script or code of a shell (``sh``, ``bash``, ... by any path, also
    behind a wrapper) or of an interpreter (``python -c``/``-m``,
    ``perl -e``, ``node -e``, ``awk``, ``sed``, ``make -f``, ``gdb -ex``,
    ``git -c``/``-C``, ...); the program a wrapper runs (``env``,
    ``timeout``, ``xargs``, ``sudo``, ``nice``, ``find -exec``, git's
    subcommand); anything after ``ssh``, ``su``, ``sudo -s``, ``cmd``,
    ``powershell``, ``watch`` or ``parallel`` (they hand their words to a
    shell). A placeholder given as data stays allowed:
    ``sh -c 'solver "$1"' sh {instance}``, ``python solver.py {instance}``,
    ``python -c CODE {instance}``. An instance must be a plain name (no NUL,
    line break or leading ``-``), and with ``configurations`` a
    configuration one of its names. ``shell_ok=True`` accepts the template
    when every name is trusted.

    *Everything a run starts ends with it.* The command runs in a session
    of its own with a token of the run in its environment
    (``MAXENT_UTIL_RUN``), which its children inherit. When it exits, in
    time or not, and at the run limit, and when a race is interrupted
    (Ctrl-C), the runner stops its process group, then (on Linux, through
    ``/proc``) every process that carries the token or descends from the
    command or from a process found so far, until no new one turns up,
    and kills them all: a child that called ``setsid()``, a double-fork
    daemon and a background process left by a command that finished all
    go. What remains: a process that both clears or replaces its
    environment (``env -i``, a daemon that resets it) and left the process
    group, once its parent has exited (no token, no parent to follow); a
    process of another user (``sudo``, set-user-ID programs), which cannot
    be signalled; work handed to a service outside the run (``systemd-run``,
    ``at``, ``ssh``). Elsewhere than Linux (macOS) only the process group
    is killed: a process that left it survives.

    Examples
    --------
    >>> import sys
    >>> runner = ProcessRunner([sys.executable, "-c", "pass", "{instance}"])
    >>> runner.arguments("c", "x; rm -rf /", 10)[-1]
    'x; rm -rf /'
    >>> 0 <= runner.run("c", "i", 60.0) < 60.0
    True
    """

    def __init__(self, command: str | Sequence[str], *, clock: str = "wall",
                 configurations: Any = None, exit_codes: Sequence[int] = (0,),
                 failures: str = "never", executor: Any = None, wall_factor: float = 10.0,
                 cwd: Any = None, shell_ok: bool = False) -> None:
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
        if any("\0" in word for word in words):
            raise DataError(argument_message("command", owner, "words without a NUL byte",
                                             short(command)))
        if not isinstance(shell_ok, bool):
            raise DataError(argument_message("shell_ok", owner, "True or False", short(shell_ok)))
        refuse_old_placeholder(words, "command", owner)
        reason = None if shell_ok else _reads_code(words)
        if reason is not None:
            raise DataError(argument_message(
                "command", owner, "a command whose program, options, script and code hold no "
                "placeholder", short(command),
                f"Here {reason}, so an instance or configuration name would run as code. Pass "
                "names as data (sh -c 'solver \"$1\"' sh {instance}), or give shell_ok=True if "
                "every name is trusted."))
        spliced = None if shell_ok else _spliced(words)
        if spliced is not None:
            raise DataError(argument_message(
                "command", owner, "a command where {config} and {instance} are whole words",
                short(command),
                f"Here {spliced!r} joins a name to other text, which the program may read as "
                "code or as an option (git -c alias.x=!{instance}). Give the name as a word of "
                "its own (--input {instance}), or shell_ok=True if every name is trusted."))
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
                    and not isinstance(value, str)
                    and all(isinstance(w, str) and "\0" not in w for w in value)
                    for name, value in configurations.items()):
                raise DataError(argument_message(
                    "configurations", owner, "a mapping from names to lists of words (without "
                    "NUL bytes)", short(configurations)))
            named = {name: tuple(value) for name, value in configurations.items()}
        codes = tuple(exit_codes) if isinstance(exit_codes, Sequence) else ()
        if not codes or not all(isinstance(c, int) and not isinstance(c, bool) for c in codes):
            raise DataError(argument_message("exit_codes", owner, "a non-empty list of integers",
                                             short(exit_codes)))
        if cwd is not None:
            try:
                folder = os.fspath(cwd)
            except TypeError:
                folder = None
            if folder is None or "\0" in (folder if isinstance(folder, str) else folder.decode(
                    "latin-1")):
                raise DataError(argument_message("cwd", owner, "a folder's path without a NUL "
                                                 "byte", short(cwd)))
        self.words = tuple(words)
        self.configurations = named
        self.exit_codes = codes
        self.clock = clock
        self.failures = failures
        self.executor = executor
        self.wall_factor = factor
        self.cwd = cwd
        self.shell_ok = shell_ok
        # a threading.Timer cannot wait longer (beyond it, its thread dies and the run is
        # never stopped)
        self.max_run_limit = threading.TIMEOUT_MAX / (1.0 if clock == "wall" else factor)

        # the runs under way, ended at once when run_many is interrupted (a thread of the
        # executor waiting on one would otherwise let it run to its run limit)
        self._active: set[_Started] = set()
        self._active_lock = threading.Lock()

    max_captime = renamed_attribute("max_captime", "max_run_limit")

    def __getstate__(self) -> dict[str, Any]:
        # sent to a process pool or a Dask worker: the executor and the runs under way here
        # stay behind
        state = {**self.__dict__, "executor": None}
        del state["_active"], state["_active_lock"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._active = set()
        self._active_lock = threading.Lock()

    def _end_active(self) -> None:
        """End every run under way (an interrupted :meth:`run_many`)."""
        with self._active_lock:
            runs = list(self._active)
        for run in runs:
            run.end()

    @renamed_keywords(captime="run_limit")
    def arguments(self, config: Any, instance: Any, run_limit: float) -> list[str]:
        """The argument list of one run: the command with its placeholders replaced.

        Parameters
        ----------
        config : str or sequence of str
            The configuration: a name of ``configurations`` (its words), or
            the words themselves (several words only for a word that is
            exactly ``{config}``).
        instance : object
            The instance, as one argument (``str(instance)``).
        run_limit : float
            The time limit, for ``{run_limit}`` (``repr`` of the float).

        Returns
        -------
        list of str
            The words to execute. Each placeholder is replaced once: a
            value that contains ``{instance}`` or ``{run_limit}`` is passed as
            it is.

        Raises
        ------
        DataError
            If the configuration or the instance holds a NUL byte (no
            process can take it as an argument).
        """
        return self._argv(config, instance, run_limit, "ProcessRunner.arguments")

    def _argv(self, config: Any, instance: Any, run_limit: float, owner: str) -> list[str]:
        if self.configurations:
            if not (isinstance(config, str) and config in self.configurations):
                raise DataError(argument_message(
                    "config", owner, "one of the configurations declared", short(config),
                    f"(declared: {short(sorted(self.configurations))})"))
            config = self.configurations[config]
        spliced = isinstance(config, (list, tuple))
        config_words = [str(word) for word in config] if spliced else [str(config)]
        values = {"config": " ".join(config_words), "instance": str(instance),
                  "run_limit": repr(float(run_limit))}
        if "\0" in values["config"]:
            raise DataError(argument_message("config", owner, "text without a NUL byte",
                                             short(config)))
        if not plain_name(values["instance"]):
            raise DataError(argument_message(
                "instance", owner, "text without a NUL byte, a line break or a leading '-' (an "
                "existing path or a plain name)", short(values["instance"]),
                "A name that starts with '-' would be read as an option: give its path "
                "(./-name)."))
        out: list[str] = []
        for word in self.words:
            if spliced and word == "{config}":
                out.extend(config_words)
            else:  # one pass: what is filled in is not searched again
                out.append(_PLACEHOLDER.sub(lambda found: values[found.group(1)], word))
        return out

    @renamed_keywords(captime="run_limit")
    def run(self, config: Any, instance: Any, run_limit: float) -> float:
        """Run the command once, stopped at ``run_limit`` seconds.

        Parameters
        ----------
        config, instance : object
            Filled into the command's placeholders (see :meth:`arguments`).
        run_limit : float
            The time limit in seconds: positive and at most
            :attr:`max_run_limit`.

        Returns
        -------
        float
            The measured runtime: below ``run_limit`` when the command
            finished in time, at least ``run_limit`` when it was stopped, and
            ``inf`` for a failure with ``failures="never"``.

        Raises
        ------
        DataError
            For a run limit that is not positive or above :attr:`max_run_limit`,
            a configuration or instance with a NUL byte, a command that
            cannot be started, a ``cwd`` that is not a folder, or a failure
            with ``failures="raise"``.
        """
        owner = "ProcessRunner.run"
        limit = real(run_limit)
        if not (0 < limit <= self.max_run_limit):  # NaN fails too
            raise DataError(argument_message(
                "run_limit", owner, "a positive number of seconds, at most "
                f"{self.max_run_limit:g} "
                "(the longest wait of a timer" + (")" if self.clock == "wall" else
                                                 ", over wall_factor)"), short(run_limit)))
        argv = self._argv(config, instance, limit, owner)
        wall_limit = limit if self.clock == "wall" else self.wall_factor * limit
        token = secrets.token_hex(12)
        started = time.perf_counter()
        try:
            process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                       stderr=subprocess.DEVNULL, start_new_session=True,
                                       cwd=self.cwd, env={**os.environ, RUN_MARK: token})
        except OSError as error:
            if self.cwd is not None and not os.path.isdir(self.cwd):
                raise DataError(argument_message("cwd", owner, "an existing folder",
                                                 short(self.cwd))) from None
            raise DataError(argument_message("command", "ProcessRunner", "a command that can be "
                                             "started", short(argv[0]),
                                             f"({error.strerror or error})")) from None
        run = _Started(process.pid, token)
        with self._active_lock:
            self._active.add(run)
        try:
            return self._wait(process, run, started, argv, limit, wall_limit, owner)
        finally:
            with self._active_lock:
                self._active.discard(run)

    def _wait(self, process: subprocess.Popen, run: "_Started", started: float, argv: list[str],
              limit: float, wall_limit: float, owner: str) -> float:
        """Wait for a started run, stop it at its limit, and return its runtime."""
        killed = threading.Event()

        def kill() -> None:
            killed.set()
            run.end()

        seconds = max(1, math.ceil(limit))  # the kernel's CPU-time limit, whole seconds
        ended = threading.Event()
        if self.clock == "cpu":
            try:
                _set_cpu_limit(process.pid, seconds)
            except (OSError, ValueError, AttributeError):
                pass  # the elapsed-time limit still stops it
            if limit < seconds and _PEEK and _cpu_seconds(process.pid) is not None:
                # the kernel counts whole seconds: a limit between them is watched here
                threading.Thread(target=_watch_cpu, args=(process.pid, limit, ended, kill),
                                 daemon=True).start()
        timer = threading.Timer(wall_limit, kill)
        timer.daemon = True
        timer.start()
        try:
            try:
                if _PEEK:  # ended but not reaped: its pid, the group's id, stays its own
                    os.waitid(os.P_PID, process.pid, os.WEXITED | os.WNOWAIT)
                else:  # pragma: no cover - no waitid(WNOWAIT) here
                    _, status, usage = os.wait4(process.pid, 0)
            finally:
                ended.set()
            elapsed = time.perf_counter() - started
            timer.cancel()
            timer.join()  # a kill under way at the run limit is finished
            run.end()  # what the command left behind goes too, also after a normal exit
            if _PEEK:
                _, status, usage = os.wait4(process.pid, 0)
        except BaseException:  # Ctrl-C: the command is in its own session and did not get it
            timer.cancel()
            kill()
            try:
                os.waitpid(process.pid, 0)
            except ChildProcessError:  # reaped already
                pass
            process.returncode = -signal.SIGKILL
            raise
        process.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
        runtime = elapsed if self.clock == "wall" else usage.ru_utime + usage.ru_stime
        if killed.is_set():
            return max(runtime, limit)
        if process.returncode not in self.exit_codes:
            if self.clock == "cpu" and (process.returncode in (-signal.SIGXCPU, -signal.SIGKILL)
                                        or runtime >= min(limit, _NEAR_CPU_LIMIT * seconds)):
                # stopped by the CPU-time limit, or ended by its own handler of SIGXCPU when
                # its CPU time reached the run limit or nearly the kernel's limit (minisat
                # stops, prints INDETERMINATE and exits 0, reporting 1.98 s at a 2 s limit)
                return max(runtime, limit)
            if self.failures == "raise":
                raise DataError(argument_message(
                    "command", owner,
                    f"a command that exits with status {' or '.join(map(str, self.exit_codes))}",
                    short(" ".join(argv)), f"(it exited with status {process.returncode})"))
            return math.inf
        return runtime

    @renamed_keywords(captimes="run_limits")
    def run_many(self, configs: Sequence[Any], instances: Sequence[Any],
                 run_limits: Any, *, done: Callable[[int, float], None] | None = None
                 ) -> np.ndarray:
        """Run many commands, on the executor when there is one.

        Parameters
        ----------
        configs, instances : sequence
            One configuration and one instance per run.
        run_limits : float or array_like of float
            The time limit of each run.
        done : callable, optional, keyword-only
            Called as ``done(index, runtime)`` in the calling thread as each run ends, in the
            order they end (a record of the runs keeps every finished one, whatever happens
            to the others).

        Returns
        -------
        numpy.ndarray
            The runtimes, in the order of the requests (as :meth:`run`).

        Raises
        ------
        DataError
            As :meth:`run`.
        """
        limits = np.broadcast_to(np.asarray(run_limits, dtype=float), (len(configs),))
        requests = list(zip(configs, instances, limits.tolist()))
        runtimes = np.empty(len(requests))
        if self.executor is None:
            for index, request in enumerate(requests):
                runtimes[index] = self.run(*request)
                if done is not None:
                    done(index, float(runtimes[index]))
            return runtimes
        futures = [self.executor.submit(self.run, *request) for request in requests]
        ended: queue.SimpleQueue = queue.SimpleQueue()
        try:
            # concurrent.futures' and Dask's futures both call back when they end
            for index, future in enumerate(futures):
                future.add_done_callback(lambda future, index=index: ended.put((index, future)))
            for _ in futures:
                index, future = ended.get()
                runtimes[index] = future.result()
                if done is not None:
                    done(index, float(runtimes[index]))
            return runtimes
        except BaseException:  # interrupted or failed: what has not started need not start,
            for future in futures:  # and what runs ends now, not at its run limit
                future.cancel()
            self._end_active()
            raise

    def __repr__(self) -> str:
        return f"ProcessRunner({shlex.join(self.words)!r}, clock={self.clock!r})"


#: placeholders once spelt otherwise, and their one name now
_OLD_PLACEHOLDERS = {"{params}": "{config}", "{captime}": "{run_limit}"}


def refuse_old_placeholder(command: Any, arg: str, owner: str) -> None:
    """Refuse a command template with a placeholder by its old name: ``{params}`` or
    ``{captime}``.

    ``{config}`` is the one name of the configuration's place, in :class:`ProcessRunner`,
    ``CostTarget``, ``export_irace`` and on the command line; ``{params}`` (once irace's name
    in ``export_irace``) would otherwise reach the command as text. ``{run_limit}`` is where a
    run stops, once ``{captime}``, a word the library keeps for the user's patience.

    >>> try:
    ...     refuse_old_placeholder(["solver", "{params}"], "command", "CostTarget")
    ... except DataError as error:
    ...     print(str(error).split("; got ")[1])
    ['solver', '{params}']. Write {config} instead of {params} (one name on every route).
    >>> try:
    ...     refuse_old_placeholder("solver -t={captime} {instance}", "command", "ProcessRunner")
    ... except DataError as error:
    ...     print(str(error).split("'. ")[1])
    Write {run_limit} instead of {captime} (one name on every route).
    """
    words = [command] if isinstance(command, str) else command
    if not isinstance(words, Sequence):
        return
    for old, new in _OLD_PLACEHOLDERS.items():
        if any(isinstance(word, str) and old in word for word in words):
            where = "the configuration goes" if new == "{config}" else "the run's time limit goes"
            raise DataError(argument_message(
                arg, owner, f"a command with {new} where {where}", short(command),
                f"Write {new} instead of {old} (one name on every route)."))


def plain_name(text: str) -> bool:
    """Whether ``text`` may be given to a command as an instance: not empty, no NUL byte, no
    line break (of any kind :meth:`str.splitlines` knows) and no leading ``-``.

    >>> plain_name("cnf/x 1.cnf"), plain_name("-rf"), plain_name("a\\nb")
    (True, False, False)
    """
    return (bool(text) and "\0" not in text and not text.startswith("-")
            and len(f"x{text}x".splitlines()) == 1)


#: seconds between two readings of a run's CPU time when its limit falls between whole seconds
_CPU_POLL = 0.02


def _cpu_seconds(pid: int) -> float | None:
    """The user + system CPU time of process ``pid`` so far, from /proc (None elsewhere)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as file:
            fields = file.read().rsplit(b")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return None


def _watch_cpu(pid: int, limit: float, ended: threading.Event, kill: Callable[[], None]) -> None:
    """Kill a run once its command has used ``limit`` seconds of CPU (until ``ended``)."""
    while not ended.wait(_CPU_POLL):
        used = _cpu_seconds(pid)
        if used is None:
            return
        if used >= limit:
            kill()
            return


def _set_cpu_limit(pid: int, seconds: int) -> None:
    """Limit a started child's CPU time (Linux' prlimit; elsewhere only the elapsed-time limit)."""
    if resource is None or not hasattr(resource, "prlimit"):
        raise OSError("no prlimit here")
    resource.prlimit(pid, resource.RLIMIT_CPU, (seconds, seconds + 1))




# ---------------------------------------------------------------------------
# which words of a command are read as code


@dataclass(frozen=True)
class _Reader:
    """How a program finds code (or another program) among its words.

    ``code``: short options that make code of their value (or, for a shell, of the first
    operand); ``takes``: other short options with a value; ``long_code``/``long_takes`` the
    same for long options; ``flag``: a shell (``-c`` takes no value, the first operand is the
    code); ``stops``: options end at the code (Python: later words are ``sys.argv``);
    ``whole_line``: every word is read as part of one command line; ``script``: without a
    code option, the first operand is a script (``False``: an ordinary operand);
    ``runs``: a wrapper, whose program comes after its options and this many operands
    (``assigns``: and after ``NAME=VALUE`` words); ``line_options``: options after which
    the wrapper hands the rest to a shell (``sudo -s``); ``code_words``: option words,
    spelt whole, whose value is code or a program (``gdb -ex``, ``find -exec``).
    """

    code: str = ""
    takes: str = ""
    long_code: tuple[str, ...] = ()
    long_takes: tuple[str, ...] = ()
    flag: bool = False
    stops: bool = False
    whole_line: bool = False
    script: bool = True
    runs: int | None = None
    assigns: bool = False
    line_options: tuple[str, ...] = ()
    code_words: tuple[str, ...] = ()


#: option words whose value is code or a program for whichever program takes them (a shell's
#: -c, env -S and --split-string, -e/-E/--eval/--expr/--execute of interpreters, debuggers
#: and editors, --command, --run, gdb's -ex, find's -exec): a placeholder given as their
#: value is refused whatever the program, also one this table does not know.
_CODE_OPTIONS = frozenset((
    "-c", "-e", "-E", "-S", "-ex", "-iex", "-exec", "-execdir", "-ok", "-okdir",
    "--eval", "--eval-command", "--init-eval-command", "--exec", "--execute", "--expr",
    "--expression", "--command", "--init-command", "--run", "--split-string", "--rcfile",
    "--init-file", "--load", "--require", "--source", "--script", "--print", "--shell",
    "--session-command", "--config-env", "--exec-path"))

_SHELL = _Reader(code="c", takes="oO", long_takes=("--rcfile", "--init-file"), flag=True)
#: a program that runs another one: its options with a value, and the operands before it
_WRAPPER = _Reader(runs=0)
_READERS = {
    # shells: -c makes the first operand code; without it the first operand is a script
    **dict.fromkeys(("sh", "bash", "rbash", "dash", "ash", "zsh", "ksh", "mksh", "pdksh", "oksh",
                     "yash", "posh", "hush", "csh", "tcsh", "elvish", "xonsh"),
                    _SHELL),
    "fish": _Reader(code="cC", long_code=("--command", "--init-command")),
    # programs that join their words into one command line for a shell, here or elsewhere
    **dict.fromkeys(("cmd", "powershell", "pwsh", "ssh", "su", "runuser", "sg", "watch",
                     "parallel", "tmux", "screen", "at", "batch"), _Reader(whole_line=True)),
    # interpreters with code on their command line, and a first operand that is a script
    **dict.fromkeys(("python", "pypy", "py"), _Reader(code="cm", takes="WX", stops=True)),
    "perl": _Reader(code="eEmM"),
    "ruby": _Reader(code="erI", takes="CEr"),
    **dict.fromkeys(("node", "nodejs", "bun", "deno"),
                    _Reader(code="epr", long_code=("--eval", "--print", "--require",
                                                   "--import", "--loader"))),
    "php": _Reader(code="rBREf", takes="cdz"),
    **dict.fromkeys(("lua", "luajit"), _Reader(code="el")),
    **dict.fromkeys(("rscript", "r"), _Reader(code="ef", long_code=("--expr", "--file"))),
    "julia": _Reader(code="eEL", takes="JCp", long_code=("--eval", "--print", "--load")),
    "osascript": _Reader(code="e"),
    **dict.fromkeys(("tclsh", "wish", "expect"), _Reader(code="cf")),
    "octave": _Reader(long_code=("--eval",)),
    "matlab": _Reader(code_words=("-r", "-batch")),
    "java": _Reader(code_words=("-jar", "-cp", "-classpath", "--class-path", "-javaagent",
                                "--module-path", "-p", "-m", "--module")),
    # awk's and sed's first operand is their program, unless -e or -f gives it (sed's e
    # command runs a shell; awk's system() does)
    **dict.fromkeys(("awk", "gawk", "mawk", "nawk"),
                    _Reader(code="fe", takes="Fv", long_code=("--file", "--source"))),
    **dict.fromkeys(("sed", "gsed"), _Reader(code="ef", takes="l",
                                             long_code=("--expression", "--file"),
                                             long_takes=("--line-length",))),
    # a makefile is code; its targets and variables are not
    **dict.fromkeys(("make", "gmake"), _Reader(code="fE", takes="CIjlo", script=False,
                                               long_code=("--file", "--makefile", "--eval"))),
    # gdb runs the program it is given (first operand, or after --args) and commands
    **dict.fromkeys(("gdb", "lldb"), _Reader(
        code="x", long_code=("--command", "--init-command", "--eval-command",
                             "--init-eval-command", "--args", "--batch"),
        code_words=("-ex", "-iex", "-x", "-ix", "-command", "-eval-command", "-o",
                    "-one-line", "-s", "-source", "--one-line", "--source"))),
    # git runs `git-NAME` for a subcommand NAME; -c sets configuration that runs code
    # (alias.x=!cmd, core.pager, core.sshCommand); a repository's folder holds one too
    "git": _Reader(code="cC", long_code=("--config-env", "--exec-path", "--git-dir",
                                         "--work-tree"), long_takes=("--namespace",)),
    "find": _Reader(script=False, code_words=("-exec", "-execdir", "-ok", "-okdir")),
    "vim": _Reader(code="cSu", long_code=("--cmd",)),
    **dict.fromkeys(("vi", "nvim", "ex", "view"), _Reader(code="cSu", long_code=("--cmd",))),
    "emacs": _Reader(code="lL", long_code=("--eval", "--load", "--execute", "--funcall",
                                           "--script", "--directory"), script=False),
    # wrappers: what they run is a program (then read as a command in its own right)
    **dict.fromkeys(("env",), _Reader(runs=0, assigns=True, code="S", takes="uCP",
                                      long_code=("--split-string",),
                                      long_takes=("--unset", "--chdir"))),
    **dict.fromkeys(("sudo",), _Reader(runs=0, assigns=True, takes="ugpCDhrtUTR",
                                       long_takes=("--user", "--group", "--prompt",
                                                   "--close-from", "--chdir", "--host",
                                                   "--role", "--type", "--other-user",
                                                   "--command-timeout"),
                                       line_options=("-s", "-i", "--shell", "--login"))),
    "doas": _Reader(runs=0, takes="uC", line_options=("-s",)),
    "xargs": _Reader(runs=0, takes="adEILnPs", long_takes=(
        "--arg-file", "--delimiter", "--eof", "--replace", "--max-lines", "--max-args",
        "--max-procs", "--max-chars", "--process-slot-var")),
    "timeout": _Reader(runs=1, takes="sk", long_takes=("--signal", "--kill-after")),
    "nice": _Reader(runs=0, takes="n", long_takes=("--adjustment",)),
    "ionice": _Reader(runs=0, takes="cnpPtu", long_takes=("--class", "--classdata")),
    "stdbuf": _Reader(runs=0, takes="ioe", long_takes=("--input", "--output", "--error")),
    "taskset": _Reader(runs=1),
    "chrt": _Reader(runs=1, takes="T", long_takes=("--sched-runtime",)),
    "chroot": _Reader(runs=1),
    "flock": _Reader(runs=1, code="c", takes="wEn", long_code=("--command",)),
    "time": _Reader(runs=0, takes="fo", long_takes=("--format", "--output")),
    "strace": _Reader(runs=0, takes="oeEpsuIbaPSXO"),
    "ltrace": _Reader(runs=0, takes="oeEpsuanAlLx"),
    "numactl": _Reader(runs=0, takes="CNmpiP"),
    "unshare": _Reader(runs=0, takes="S", long_takes=("--setuid", "--setgid")),
    "nsenter": _Reader(runs=0, takes="tSG", long_takes=("--target",)),
    "script": _Reader(runs=1, code="c", long_code=("--command",), takes="IOT",
                      long_takes=("--log-in", "--log-out", "--log-timing")),
    **dict.fromkeys(("nohup", "setsid", "busybox", "exec", "command", "builtin", "unbuffer",
                     "valgrind", "prlimit", "firejail", "systemd-run", "catchsegv", "npx",
                     "pnpx", "bunx", "uvx", "pipx", "xvfb-run", "caffeinate", "cgexec",
                     "runcon", "setpriv", "chpst", "faketime", "proot", "bwrap", "torsocks",
                     "proxychains", "eatmydata", "ccache", "rr"), _WRAPPER),
}

#: the table's entries that are looked for in every word, not only where a program is named:
#: a shell or an interpreter behind a wrapper the table does not know is still found
_ANYWHERE = frozenset((
    "sh", "bash", "rbash", "dash", "ash", "zsh", "ksh", "mksh", "pdksh", "oksh", "yash", "posh",
    "hush", "csh", "tcsh", "elvish", "xonsh", "fish", "cmd", "powershell", "pwsh", "ssh",
    "python", "pypy", "perl", "ruby", "node", "nodejs", "php", "lua", "luajit", "rscript",
    "julia", "osascript", "awk", "gawk", "mawk", "nawk"))


def _program_name(word: str) -> str:
    """A program's name as the table knows it: no folder, no ``.exe``, no version
    (``/usr/bin/python3.12`` -> ``python``, ``ksh93`` -> ``ksh``)."""
    name = re.split(r"[\\/]", word)[-1].lower()
    name = name.removesuffix(".exe")
    if name not in _READERS:
        name = re.sub(r"[\d.]+$", "", name)
    return name


def _reads_code(words: Sequence[str]) -> str | None:
    """Why a template lets a placeholder's value be read as code or as a program, or None."""
    if _PLACEHOLDER.search(words[0]):
        return f"the program itself ({words[0]!r}) is a placeholder"
    programs = {0}  # where a program is named: the first word, and what a wrapper runs
    skip: set[int] = set()
    valued: set[str] = set()  # option words of the programs met so far whose value is code
    for at, word in enumerate(words):
        if any(character.isspace() for character in word):  # env -S 'sh -c ...'
            try:
                inner = shlex.split(word)
            except ValueError:
                inner = []
            if inner and (reason := _reads_code(inner)):
                return reason
        if (word in _CODE_OPTIONS or word in valued) and at + 1 < len(words):
            if _PLACEHOLDER.search(words[at + 1]):
                return (f"the option {word!r} takes code or a program as its value: "
                        f"{words[at + 1]!r}")
            programs.add(at + 1)  # find -exec PROGRAM, gdb --args PROGRAM
        name = _program_name(word)
        reader = _READERS.get(name)
        if reader is None or at in skip or (at not in programs and name not in _ANYWHERE):
            continue
        valued.update(reader.code_words)
        if reader.runs is not None:
            program, line = _wrapped(words, at, reader)
            if line and (placed := _placed(words[at + 1:])):
                return f"{name!r} hands the rest of its words to a shell: {placed!r}"
            if program < len(words):
                if _PLACEHOLDER.search(words[program]):
                    return f"{name!r} runs this word as a program: {words[program]!r}"
                programs.add(program)
            continue
        region, after = _code_region(words, at, reader)
        skip.update(after)
        if (placed := _placed(words[at:region])) is not None:
            what = ("reads every word as a command line" if reader.whole_line
                    else "reads this word as a program, option, script or code")
            return f"{name!r} {what}: {placed!r}"
    return None


def _placed(words: Sequence[str]) -> str | None:
    """The first of ``words`` that holds a placeholder."""
    return next((w for w in words if _PLACEHOLDER.search(w)), None)


def _spliced(words: Sequence[str]) -> str | None:
    """A word where a name would be joined to other text, or None."""
    return next((w for w in words if _DATA.search(w) and not _DATA.fullmatch(w)), None)


def _wrapped(words: Sequence[str], at: int, reader: _Reader) -> tuple[int, bool]:
    """Where the program that the wrapper at ``at`` runs is named, and whether an option
    of the wrapper hands what follows to a shell (``sudo -s``)."""
    index, line = at + 1, False
    while index < len(words):
        word = words[index]
        if word == "--":
            index += 1
            break
        if word == "-":  # env's old spelling of -i
            index += 1
            continue
        if not word.startswith("-"):
            break
        if word.startswith("--"):
            name = word.split("=", 1)[0]
            line = line or name in reader.line_options
            if "=" not in word and name in reader.long_takes + reader.long_code:
                index += 1
            index += 1
            continue
        letters = word[1:]
        for position, letter in enumerate(letters):
            line = line or f"-{letter}" in reader.line_options
            if letter in reader.takes + reader.code:
                if position == len(letters) - 1:
                    index += 1  # the value is the next word
                break
        index += 1
    if reader.assigns:  # env NAME=VALUE ... program
        while index < len(words) and "=" in words[index][1:]:
            index += 1
    return index + reader.runs, line


def _code_region(words: Sequence[str], at: int, reader: _Reader) -> tuple[int, set[int]]:
    """The end (exclusive) of the words that the program at ``at`` reads as itself, its
    options, its script or its code, and the words after it that are plain names
    (a shell's ``$0``)."""
    if reader.whole_line:
        return len(words), set()
    index, coded, dashes = at + 1, False, False
    while index < len(words):
        word = words[index]
        if word == "--":
            dashes = True
            index += 1
            break
        if word in ("-", "+") or word[:1] not in ("-", "+") or (word[0] == "+" and not
                                                                reader.flag):
            break
        if word.startswith("--"):
            name = word.split("=", 1)[0]
            if name in reader.long_code:
                coded = True
            if "=" not in word and name in reader.long_code + reader.long_takes:
                index += 1  # its value
            index += 1
            if coded and reader.stops:
                break
            continue
        letters = word[1:]
        for position, letter in enumerate(letters):
            rest = letters[position + 1:]
            if letter in reader.code:
                coded = True
                if reader.flag:
                    continue  # a shell: the code is the first operand
                if not rest:
                    index += 1  # the value is the next word
                break
            if letter in reader.takes:
                if not rest:
                    index += 1
                break
        index += 1
        if coded and reader.stops:
            break
    if reader.flag and coded:  # the first operand is the code; the next one is only $0
        return index + 1, {index + 1}
    if coded:
        # options go on after the code (perl, ruby, node): a value that starts with "-" in
        # the first word after them would be one more option, maybe one more line of code
        # (an instance never starts with "-": only a configuration's words can)
        if not reader.stops and not dashes and index < len(words) and \
                "{config}" in words[index]:
            return index + 1, set()
        return index, set()
    # the first operand is the script (or awk's, sed's program; git's subcommand)
    return (index + 1 if reader.script else index), set()


# ---------------------------------------------------------------------------
# the processes a run started


def _stat(pid: int) -> tuple[int, int, str] | None:
    """(parent pid, start time in clock ticks since boot, state) of a process, from /proc."""
    try:  # os.open and os.read: half the time of open(), and a scan reads every process
        handle = os.open(f"/proc/{pid}/stat", os.O_RDONLY)
    except OSError:
        return None
    try:
        fields = os.read(handle, 4096).rsplit(b")", 1)[1].split()
        return int(fields[1]), int(fields[19]), fields[0].decode()
    except (OSError, IndexError, ValueError):
        return None
    finally:
        os.close(handle)


class _Started:
    """The processes one run started, ended together.

    The command leads a session and process group of its own, and its environment holds
    ``RUN_MARK=token``. :meth:`end` stops the group (stopped processes cannot fork), then
    stops, scan after scan of /proc (Linux), every process that holds the token or descends
    from the command or from a process found so far, and started no earlier than the command
    (a pid that was taken again is someone else's), until a scan finds nothing new; then it
    kills them all and the group. Each process is signalled through a pidfd opened after its
    start time was checked again, so a pid reused meanwhile is never hit.
    """

    def __init__(self, leader: int, token: str) -> None:
        self.leader = leader
        self.mark = f"{RUN_MARK}={token}".encode()
        found = _stat(leader)
        self.since = None if found is None else found[1]  # None: no /proc here
        self.lock = threading.RLock()  # Ctrl-C inside end() ends again

    def end(self) -> None:
        with self.lock:  # the timer's thread and the waiting one may both get here
            _signal_group(self.leader, signal.SIGSTOP)
            # the command itself too, should it have left its group (unreaped, its pid is its own)
            found = {} if self.since is None else {self.leader: self.since}
            if self.since is not None:
                for _ in range(100):
                    new = self._scan(found)
                    if not new:
                        break
                    for pid, start in new.items():
                        _signal(pid, start, signal.SIGSTOP)
                    found.update(new)
            _signal_group(self.leader, signal.SIGKILL)
            for pid, start in found.items():
                _signal(pid, start, signal.SIGKILL)

    def _scan(self, found: dict[int, int]) -> dict[int, int]:
        """The run's processes not in ``found``: pid -> start time."""
        table = {}
        try:
            names = os.listdir("/proc")
        except OSError:
            return {}
        for name in names:
            if name.isdigit() and (entry := _stat(int(name))) is not None:
                table[int(name)] = entry
        children: dict[int, list[int]] = {}
        for pid, (parent, _, _) in table.items():
            children.setdefault(parent, []).append(pid)
        me = os.getpid()
        ours = {pid: start for pid, (_, start, state) in table.items()
                if pid not in found and pid != me and start >= self.since
                and state not in ("Z", "X") and self._marked(pid)}
        stack = [self.leader, *found, *ours]
        while stack:
            for child in children.get(stack.pop(), ()):
                start = table[child][1]
                if child in found or child in ours or child == me or start < self.since:
                    continue
                ours[child] = start
                stack.append(child)
        return ours

    def _marked(self, pid: int) -> bool:
        try:
            with open(f"/proc/{pid}/environ", "rb") as file:
                return self.mark + b"\0" in file.read() + b"\0"
        except OSError:  # gone, or another user's
            return False


def _signal_group(leader: int, number: int) -> None:
    try:
        os.killpg(leader, number)
    except OSError:  # an empty group, or no longer ours
        pass


def _signal(pid: int, start: int, number: int) -> None:
    """Send a signal to the process ``pid`` started at ``start``, and to no other."""
    handle = None
    try:
        if hasattr(os, "pidfd_open"):
            handle = os.pidfd_open(pid)
        entry = _stat(pid)
        if entry is None or entry[1] != start:
            return
        if handle is not None:
            signal.pidfd_send_signal(handle, number)
        else:
            os.kill(pid, number)
    except OSError:  # gone meanwhile, or not ours to signal
        pass
    finally:
        if handle is not None:
            os.close(handle)
