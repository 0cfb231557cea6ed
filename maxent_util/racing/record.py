"""A race's runs on disk: :class:`RunLog` records every run as it ends and replays the recorded
ones when the race starts again, and :func:`read_instances` reads a list of instance files.

A race of real runs is long and a machine may stop under it. The log is one JSON object a line:
a header naming the race (command, clock, space, instances, utility, seed, configurations),
then one line per finished run, written whole, flushed and synced before the race goes on, so
a crash loses at most the runs in flight. The race decides only from runtimes, and a recorded
runtime is replayed exactly (JSON keeps a float's every digit), so a race started again on the
same log asks for the same runs, gets the recorded ones back without running them, and takes
the decisions of an uninterrupted race.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

from ..errors import DataError, argument_message, short
from ..io.limits import is_regular
from ..processes import ProcessRunner, plain_name
from .._renamed import renamed_attribute, renamed_keywords
from .checks import largest_run_limit
from .runners import TableRunner

__all__ = ["RunLog", "read_instances", "digest"]

#: what a log's header says it is, and the version of its layout
KIND = "maxent_util race runs"
FORMAT = 1
#: the longest line a log may hold (a run's line is about 150 bytes; the header names every
#: configuration's words)
MAX_LINE = 1 << 24
#: the largest list of instances read (bytes)
MAX_INSTANCES_FILE = 1 << 26


def digest(text: str) -> str:
    """A short fingerprint of ``text`` (sha256, hex) for a log's header.

    >>> len(digest("a.cnf\\nb.cnf")), digest("a") == digest("a"), digest("a") == digest("b")
    (64, True, False)
    """
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def read_instances(path: Any, *, owner: str = "read_instances") -> list[str]:
    """The instances a file lists, one path a line (blank lines skipped), each an existing file.

    Parameters
    ----------
    path : str or os.PathLike
        The list; a relative path in it is read from the current folder, as the command that
        runs it will.
    owner : str, keyword-only
        Who asks, as an error names it.

    Returns
    -------
    list of str
        The paths, in the file's order.

    Raises
    ------
    DataError
        For a list that cannot be read, is not UTF-8, is larger than 64 MiB or lists nothing;
        a line with a NUL byte or another line break, or one that starts with ``-`` (a program
        would read it as an option: write ``./-name``); a path that is not an existing file.
        The message names the file, the line and its text.
    """
    name = os.fspath(path) if isinstance(path, (str, os.PathLike)) else None
    if name is None or "\0" in str(name):
        raise DataError(argument_message("instances", owner, "the path of a file listing "
                                         "instances", short(path)))
    if os.path.exists(name) and not is_regular(name):  # a FIFO would hang the open
        raise DataError(argument_message("instances", owner, "a regular file listing instances",
                                         str(name), "(a folder, FIFO, device or socket)"))
    try:
        with open(name, "rb") as file:
            data = file.read(MAX_INSTANCES_FILE + 1)
    except OSError as error:
        raise DataError(argument_message("instances", owner, "a readable file listing instances",
                                         str(name), f"({error.strerror or error})")) from None
    if len(data) > MAX_INSTANCES_FILE:
        raise DataError(argument_message("instances", owner, "a list of at most 64 MiB",
                                         str(name)))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise DataError(argument_message("instances", owner, "a UTF-8 text file", str(name),
                                         f"(byte {error.start} is not UTF-8)")) from None
    found = []
    for number, line in enumerate(text.split("\n"), start=1):
        line = line.removesuffix("\r")
        if not line.strip():
            continue
        where = f"{name}, line {number}"
        if not plain_name(line):
            raise DataError(argument_message(
                "instances", owner, "one path a line, without a NUL byte, a line break or a "
                "leading '-'", short(line), f"({where}) A path that starts with '-' would be "
                "read as an option: write ./-name."))
        if not os.path.isfile(line):
            raise DataError(argument_message("instances", owner, "paths of existing files",
                                             short(line), f"({where})"))
        found.append(line)
    if not found:
        raise DataError(argument_message("instances", owner, "a list of at least one instance",
                                         str(name)))
    return found


class RunLog:
    """A runner that records every run it makes and replays the runs recorded before.

    Parameters
    ----------
    runner : ProcessRunner or TableRunner or Runner
        Where new runs come from. A :class:`~maxent_util.processes.ProcessRunner` reports
        each run as it ends, also when runs go in parallel; another runner's runs are made
        one at a time.
    path : str or os.PathLike
        The log. A new file gets ``header``; an existing one must have been written for the
        same race (the same header) and its runs are replayed.
    header : mapping
        What makes two races the same (JSON values): the command, its clock, the space, the
        instances, the utility, the seed, ``configurations`` (names to words) and
        ``instances``... A recorded run must name a configuration and an instance of it.

    Attributes
    ----------
    replayed, ran : int
        Runs taken from the log, and runs made (and recorded) since it was opened.
    max_run_limit : float
        The runner's (a race reads it; ``max_captime``, its old name, is still read, with a
        DeprecationWarning).

    Raises
    ------
    DataError
        For a log written for another race (the message names what differs), or a line that
        is not a run of this race (the message names the file and the line).

    Notes
    -----
    Each line is written with one ``write``, flushed and ``fsync``-ed before the race goes on.
    A last line cut short (the machine stopped while writing it) is dropped when the log is
    opened again; a run recorded but never asked for again is left alone. A run is found by
    its configuration, instance and run limit (a capped run asked again at a larger run limit
    is a new run).

    Examples
    --------
    >>> import pandas as pd, tempfile
    >>> table = pd.DataFrame({"algorithm": ["a", "a", "b", "b"], "instance": ["i", "j"] * 2,
    ...                       "runtime": [1.0, 2.0, 3.0, 4.0], "status": "solved", "cutoff": 9.0})
    >>> path = Path(tempfile.mkdtemp()) / "runs.jsonl"
    >>> header = {"configurations": {"a": [], "b": []}, "instances": ["i", "j"]}
    >>> with RunLog(TableRunner(table), path, header) as log:
    ...     log.run_many(["a", "b"], ["i", "j"], 5.0).tolist(), log.ran
    ([1.0, 4.0], 2)
    >>> with RunLog(TableRunner(table), path, header) as log:
    ...     log.run_many(["a", "b", "a"], ["i", "j", "j"], 5.0).tolist(), log.replayed, log.ran
    ([1.0, 4.0, 2.0], 2, 1)
    """

    def __init__(self, runner: Any, path: Any, header: Mapping[str, Any]) -> None:
        owner = "RunLog"
        if not callable(getattr(runner, "run", None)):
            raise DataError(argument_message("runner", owner, "a runner (with run(config, "
                                             "instance, run_limit))", type(runner).__name__))
        try:
            self.header = json.loads(json.dumps({"kind": KIND, "format": FORMAT, **header},
                                                allow_nan=False))
        except (TypeError, ValueError):
            raise DataError(argument_message("header", owner, "a mapping of JSON values",
                                             short(header))) from None
        self.runner = runner
        self.path = Path(os.fspath(path))
        self.replayed = self.ran = 0
        self._configs = set(self.header.get("configurations", ()))
        listed = self.header.get("instances")
        self._instances = set(listed) if isinstance(listed, list) else None
        self._recorded: dict[tuple[str, str, float], list[float]] = {}
        self._file = self._open(owner)

    @property
    def max_run_limit(self) -> float:
        return largest_run_limit(self.runner)

    max_captime = renamed_attribute("max_captime", "max_run_limit")

    def _open(self, owner: str) -> Any:
        """Read the runs recorded so far (or start the log), and open it to append."""
        where = str(self.path)
        try:
            file = open(self.path, "a+b")
        except (OSError, ValueError) as error:  # ValueError: a NUL byte in the path
            reason = getattr(error, "strerror", None) or error
            raise DataError(argument_message("runs", owner, "a file that can be written",
                                             where, f"({reason})")) from None
        try:
            file.seek(0)
            lines, kept = [], 0
            while True:
                line = file.readline(MAX_LINE + 1)
                if not line:
                    break
                if not line.endswith(b"\n"):
                    if len(line) > MAX_LINE:
                        raise DataError(argument_message(
                            "runs", owner, f"lines of at most {MAX_LINE} bytes", where,
                            f"(line {len(lines) + 1})"))
                    break  # cut short by a crash while it was written: dropped
                lines.append(line)
                kept += len(line)
            size = file.seek(0, os.SEEK_END)
            if lines:
                self._read(lines, where, owner)
            elif size:  # no whole line: only this race's header cut short is ours to replace
                file.seek(0)
                if not self._line(self.header).startswith(file.read()):
                    raise DataError(argument_message(
                        "runs", owner, "a runs file of a race (its first line names it)", where,
                        "Give another file; this one was not written by a race."))
            if kept < size:
                file.truncate(kept)
            if not lines:
                self._write(self.header, file)
        except BaseException:
            file.close()
            raise
        file.seek(0, os.SEEK_END)
        return file

    def _read(self, lines: list[bytes], where: str, owner: str) -> None:
        def entry(number: int) -> Any:
            try:
                return json.loads(lines[number - 1])
            except (ValueError, RecursionError):
                raise DataError(argument_message("runs", owner, "one JSON object a line", where,
                                                 f"(line {number} is not JSON)")) from None

        found = entry(1)
        if not isinstance(found, dict) or found.get("kind") != KIND:
            raise DataError(argument_message(
                "runs", owner, "a runs file of a race (its first line names it)", where,
                "Give another file; this one was not written by a race."))
        for key in sorted(set(found) | set(self.header)):
            if found.get(key) != self.header.get(key):
                raise DataError(argument_message(
                    "runs", owner, "the runs of this race (the same command, clock, space, "
                    "instances, utility, seed and configurations)", where,
                    f"It was written for another {key}: {short(found.get(key))!r} there, "
                    f"{short(self.header.get(key))!r} here. Give another --runs file, or remove "
                    "this one to start again."))
        for number in range(2, len(lines) + 1):
            run = entry(number)
            key, runtime = self._check(run, f"{where}, line {number}", owner)
            self._recorded.setdefault(key, []).append(runtime)

    def _check(self, run: Any, where: str, owner: str) -> tuple[tuple[str, str, float], float]:
        def bad(what: str) -> DataError:
            return DataError(argument_message("runs", owner, what, short(run), f"({where})"))

        if not isinstance(run, dict):
            raise bad("runs as JSON objects")
        config, instance, limit = run.get("config"), run.get("instance"), run.get("run_limit")
        runtime = run.get("runtime", "missing")
        if not (isinstance(config, str) and config in self._configs):
            raise bad("runs of the header's configurations")
        if not (isinstance(instance, str) and (self._instances is None
                                               or instance in self._instances)):
            raise bad("runs on the header's instances")
        if not (type(limit) in (int, float) and 0 < limit < math.inf):
            raise bad("runs with a positive run_limit")
        if runtime is None:  # a run that can never finish
            runtime = math.inf
        if not (type(runtime) in (int, float) and runtime >= 0):
            raise bad("runs with a runtime of at least 0 seconds, or null")
        return (config, instance, float(limit)), float(runtime)

    @staticmethod
    def _line(entry: Mapping[str, Any]) -> bytes:
        return (json.dumps(entry, allow_nan=False) + "\n").encode("utf-8")

    def _write(self, entry: Mapping[str, Any], file: Any) -> None:
        # one write of one whole line, on disk before the race goes on
        file.write(self._line(entry))
        file.flush()
        os.fsync(file.fileno())

    def _record(self, config: Any, instance: Any, limit: float, runtime: float) -> None:
        entry = {"config": config, "instance": instance, "run_limit": limit,
                 "runtime": runtime if math.isfinite(runtime) else None}
        self._write(entry, self._file)
        self.ran += 1

    @renamed_keywords(captimes="run_limits")
    def run_many(self, configs: Sequence[Any], instances: Sequence[Any],
                 run_limits: Any) -> np.ndarray:
        """The runtimes of many runs: recorded ones replayed, the others run and recorded.

        Parameters
        ----------
        configs, instances : sequence
            One configuration and one instance per run.
        run_limits : float or array_like of float
            The time limit of each run.

        Returns
        -------
        numpy.ndarray
            The runtimes, in the order of the requests.

        Raises
        ------
        DataError
            From the runner.
        """
        limits = np.broadcast_to(np.asarray(run_limits, dtype=float), (len(configs),)).tolist()
        runtimes = np.empty(len(configs))
        missing = []
        for index, key in enumerate(zip(map(str, configs), map(str, instances), limits)):
            recorded = self._recorded.get(key)
            if recorded:
                runtimes[index] = recorded.pop(0)
                self.replayed += 1
            else:
                missing.append(index)
        if not missing:
            return runtimes
        todo = ([configs[i] for i in missing], [instances[i] for i in missing],
                [limits[i] for i in missing])

        def done(at: int, runtime: float) -> None:
            index = missing[at]
            runtimes[index] = runtime
            self._record(str(configs[index]), str(instances[index]), limits[index], runtime)

        if isinstance(self.runner, (ProcessRunner, TableRunner)):
            self.runner.run_many(*todo, done=done)
        else:
            for at, request in enumerate(zip(*todo)):
                done(at, float(self.runner.run(*request)))
        return runtimes

    @renamed_keywords(captime="run_limit")
    def run(self, config: Any, instance: Any, run_limit: float) -> float:
        """One run, replayed or run and recorded (see :meth:`run_many`).

        Parameters
        ----------
        config, instance : object
            What to run and on what.
        run_limit : float
            The time limit in seconds.

        Returns
        -------
        float
            Its runtime.
        """
        return float(self.run_many([config], [instance], run_limit)[0])

    def close(self) -> None:
        """Close the log (every run is on disk already)."""
        self._file.close()

    def __enter__(self) -> "RunLog":
        return self

    def __exit__(self, *_: Any) -> None:
        self.close()
