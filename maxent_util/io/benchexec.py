"""BenchExec result XML: one ``<result>`` run set per file, one ``<run>`` per task.

The layout is BenchExec's ``doc/result.dtd`` and ``doc/run-results.md``: a
root ``<result>`` whose attributes name the run set (``tool``, ``version``,
``benchmarkname``, ``name``, ``options``, ``timelimit``, optional
``displayName`` and ``block``), and per run ``<run name=... properties=...>``
holding ``<column title=... value=.../>`` elements such as ``status``,
``category`` (hidden), ``cputime`` and ``walltime`` (``"12.3s"``) and
``terminationreason``. SV-COMP publishes its results in this form, plain or
``bz2``-compressed.

Files from outside are hostile: they are parsed with :mod:`defusedxml`,
which accepts the ``<!DOCTYPE result PUBLIC ...>`` line BenchExec writes (the
DTD is never fetched) but refuses entity declarations (the "billion laughs")
and external entities, and they are read run by run, so memory stays flat
however many runs a file holds.
"""

from __future__ import annotations

import math
import os
import re
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Callable, Iterator

import numpy as np
import pandas as pd
from defusedxml import DefusedXmlException
from defusedxml.ElementTree import iterparse

from ..errors import DataError, argument_message, short
from .limits import ReadLimits, open_bounded, over, read_limits
from .table import (PathLike, _check_path, _check_time_option, _is_stream, _label, _long_frame,
                    short_text)

__all__ = ["read_benchexec", "BENCHEXEC_SUFFIXES"]

BENCHEXEC_SUFFIXES: tuple[str, ...] = (".xml", ".xml.bz2", ".xml.gz")
"""Names of result files that :func:`read_benchexec` reads from a folder."""

_TIMES = ("cputime", "walltime")
_NUMBER = r"(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?"
_SECONDS = re.compile(rf"^\s*({_NUMBER})\s*s?\s*$")
_CAPPED_REASONS = {"cputime", "cputime-soft", "walltime"}
# the words of BenchExec's error statuses (benchexec/model.py, benchexec/result.py)
_CRASH_WORDS = ("ERROR", "EXCEPTION", "KILLED", "SEGMENTATION FAULT", "ABORTED", "FAILED",
                "ASSERTION", "FILES-COUNT LIMIT", "FILES-SIZE LIMIT")
# BenchExec before 2.0 wrote <sourcefile> where it now writes <run>; its table generator reads both
_RUN_TAGS = ("run", "sourcefile")
_CATEGORIES = ("correct", "correct-unconfirmed", "wrong", "unknown", "error", "missing")


@dataclass
class _RunSet:
    """One result file: the run set's identity and its runs."""

    source: str
    attributes: dict[str, str]
    limit: float
    instances: list[str] = field(default_factory=list)
    runtimes: list[float] = field(default_factory=list)
    statuses: list[str] = field(default_factory=list)

    def label(self) -> str:
        """The algorithm's name: ``displayName``, else the tool and the run set's name."""
        attributes = self.attributes
        if attributes.get("displayName", "").strip():
            return attributes["displayName"].strip()
        tool = (attributes.get("tool") or attributes.get("benchmarkname") or "").strip()
        name = (attributes.get("name") or "").strip()
        block = (attributes.get("block") or "").strip()
        # a run set split into blocks (SV-COMP's categories) is named "<run set>.<block>"
        if block and name == block:
            name = ""
        elif block and name.endswith("." + block):
            name = name[: -len(block) - 1]
        return " ".join(part for part in (tool, name) if part) or "benchexec"

    def key(self) -> tuple[str, ...]:
        """What must agree for two files to hold runs of the same run set (blocks of it)."""
        return tuple(self.attributes.get(name, "") for name in
                     ("tool", "version", "benchmarkname", "options")) + (self.label(),)


def _open(source: Any, label: str, limits: ReadLimits) -> IO[bytes]:
    """The file's bytes, unpacked when they start like bz2, gzip or xz, within ``limits``; the
    stretch between two ``<`` (a tag with its attributes, or a text) is bounded by
    ``max_cell_chars``, as expat takes time quadratic in the length of one tag."""
    return open_bounded(source, label, "read_benchexec", limits,
                        watch=_tag_watch(label, limits.max_cell_chars), zip_suffixes=(".xml",))


def _tag_watch(label: str, limit: int) -> Callable[[bytes], None]:
    since = [0]  # bytes since the last '<'

    def watch(chunk: bytes) -> None:
        starts = np.flatnonzero(np.frombuffer(chunk, dtype=np.uint8) == ord("<"))
        if starts.size == 0:
            longest = since[0] + len(chunk)
            since[0] = longest
        else:
            inner = int(np.diff(starts).max()) if starts.size > 1 else 0
            longest = max(since[0] + int(starts[0]), inner)
            since[0] = len(chunk) - int(starts[-1])
        if longest > limit:
            raise over(label, "read_benchexec", "max_cell_chars", limit,
                       f"XML whose tags (with their attributes) and texts are at most {limit} "
                       "bytes each")
    return watch


def _seconds(text: str | None) -> float | None:
    """``"12.3s"`` (or ``"12.3"``, ``"10 s"``) as a float; None if empty, NaN if malformed."""
    if text is None or not text.strip():
        return None
    match = _SECONDS.match(text)
    return float(match.group(1)) if match else math.nan


def _status(status: str, category: str, reason: str) -> tuple[str, str | None]:
    """The long table's status of a run, and why it counts as unsolved (for the notes)."""
    upper = status.strip().upper()
    if upper.startswith(("TIMEOUT", "OUT OF TIME")) or reason in _CAPPED_REASONS:
        return "capped", None
    if (upper.startswith("OUT OF") and "MEMORY" in upper) or reason == "memory":
        return "memout", None
    if category == "wrong":
        return "unverified", "wrong"
    if category == "correct-unconfirmed":
        return "unverified", "unconfirmed"
    if category in ("error", "unknown"):
        return "crash", None
    if category == "correct":
        return "solved", None
    # 'missing' (no expected answer to check) or no category: judged by the status alone
    if not upper:
        return "crash", "empty"
    if upper == "UNKNOWN" or upper.startswith(_CRASH_WORDS):
        return "crash", None
    return "solved", "unchecked"


def _runs(handle: IO[bytes], label: str) -> Iterator[tuple[str, Any]]:
    """("result", attributes) once, then ("run", element) per run; parse errors as DataError."""
    owner = "read_benchexec"
    root = None
    try:
        for event, element in iterparse(handle, events=("start", "end")):
            if event == "start" and root is None:
                root = element
                if element.tag != "result":
                    raise DataError(argument_message(
                        "path", owner, "a BenchExec result file (root element <result>)", label,
                        f"The root element is <{short_text(element.tag)}>."))
                yield "result", dict(element.attrib)
            elif event == "end" and element.tag in _RUN_TAGS and root is not None:
                yield "run", element
                root.clear()  # runs already read are dropped: memory stays flat
    except DataError:
        raise
    except DefusedXmlException as exc:
        raise DataError(argument_message(
            "path", owner, "XML without entity declarations or external references", label,
            f"The parser refused: {type(exc).__name__}.")) from None
    except ElementTree.ParseError as exc:
        raise DataError(argument_message(
            "path", owner, "well-formed XML", label, f"The XML parser reported: {exc}.")) from None
    except (OSError, EOFError, ValueError) as exc:  # a broken bz2/gzip stream
        raise DataError(argument_message(
            "path", owner, "a readable XML file (plain, .bz2 or .gz)", label,
            f"Reading it failed: {exc}.")) from None
    if root is None:
        raise DataError(argument_message(
            "path", owner, "a BenchExec result file (root element <result>)", label,
            "The file holds no XML element."))


def _read_run_set(source: Any, cutoff: float | None, time: str, reasons: dict[str, int],
                  given: Any, limits: ReadLimits) -> _RunSet:
    owner = "read_benchexec"
    label = _label(source)
    handle = _open(source, label, limits)
    run_set: _RunSet | None = None
    try:
        for kind, item in _runs(handle, label):
            if kind == "result":
                stated = _seconds(item.get("timelimit"))
                if stated is not None and not (math.isfinite(stated) and stated > 0):
                    raise DataError(argument_message(
                        "timelimit", label, "a positive number of seconds such as '900s'",
                        short(item.get("timelimit"))))
                if cutoff is None and stated is None:
                    raise DataError(argument_message(
                        "cutoff", owner, "a number of seconds, as the file states no time limit "
                        "(no attribute timelimit on <result>)", None, f"The file is {label}."))
                if cutoff is not None and stated is not None and cutoff > stated:
                    raise DataError(argument_message(
                        "cutoff", owner, f"at most {stated:g} s, the time limit {label} states",
                        given, "A cutoff can re-cap runs at a lower time, never extend them."))
                run_set = _RunSet(label, item, cutoff if cutoff is not None else stated)
                continue
            assert run_set is not None
            number = len(run_set.instances) + 1
            where = f"{label}, run {number}"
            name = (item.get("name") or "").strip()
            if not name:
                raise DataError(argument_message(
                    "name", where, "a non-empty task name", short(item.get("name"))))
            properties = (item.get("properties") or "").strip()
            columns = {column.get("title", ""): column.get("value")
                       for column in item.findall("column")}
            status = (columns.get("status") or "").strip()
            category = (columns.get("category") or "").strip().lower()
            if category and category not in _CATEGORIES:
                raise DataError(argument_message(
                    "category", where, f"one of {', '.join(map(repr, _CATEGORIES))}",
                    short(columns.get("category"))))
            reason = (columns.get("terminationreason") or "").strip().lower()
            meaning, why = _status(status, category, reason)
            if why is not None:
                reasons[why] = reasons.get(why, 0) + 1
            seconds = _seconds(columns.get(time))
            if seconds is not None and not (math.isfinite(seconds) and seconds >= 0):
                raise DataError(argument_message(
                    short_text(time), where, "a non-negative number of seconds such as '12.3s'",
                    short(columns.get(time))))
            limit = run_set.limit
            if meaning == "solved":
                if seconds is None:
                    raise DataError(argument_message(
                        time, where, f"the run's {time} (its status is {short(status)!r})",
                        None))
                if seconds >= limit:
                    meaning = "capped"
            runtime = limit if meaning == "capped" or seconds is None else min(seconds, limit)
            run_set.instances.append(f"{name} ({properties})" if properties else name)
            run_set.runtimes.append(runtime)
            run_set.statuses.append(meaning)
    finally:
        handle.close()
    assert run_set is not None
    return run_set


def _sources(path: Any, owner: str) -> list[Any]:
    if _is_stream(path):
        return [path]
    if isinstance(path, (list, tuple)):
        if not path:
            raise DataError(argument_message("path", owner, "at least one result file", path))
        return [item if _is_stream(item) else Path(_check_path(item, owner)) for item in path]
    location = Path(_check_path(path, owner))
    if location.is_dir():
        files = sorted(item for item in location.iterdir()
                       if item.is_file() and item.name.lower().endswith(BENCHEXEC_SUFFIXES))
        if not files:
            raise DataError(argument_message(
                "path", owner, "a folder holding result files "
                f"({', '.join(BENCHEXEC_SUFFIXES)})", os.fspath(path)))
        return files
    return [location]


def _names(run_sets: list[_RunSet]) -> list[str]:
    """One algorithm name per run set; files of one run set (its blocks) share theirs.

    Different run sets that would share a name get, in turn, their
    benchmark's name, version or options appended, whichever tells them apart.
    """
    names = [run_set.label() for run_set in run_sets]
    for base in set(names):
        group = [i for i, name in enumerate(names) if name == base]
        keys = {run_sets[i].key() for i in group}
        if len(keys) < 2:
            continue
        for attribute in ("benchmarkname", "version", "options"):
            values = {run_sets[i].attributes.get(attribute, "") for i in group}
            if len(values) == len(keys):
                for i in group:
                    names[i] = f"{base} [{run_sets[i].attributes.get(attribute, '')}]"
                break
        else:
            raise DataError(argument_message(
                "path", "read_benchexec", "result files of distinct run sets with distinct "
                "names (attributes displayName, tool, name, benchmarkname, version, options)",
                [run_sets[i].source for i in group]))
    return names


def read_benchexec(path: PathLike | list[PathLike], *, cutoff: float | None = None,
                   time: str = "cputime", limits: ReadLimits | None = None) -> pd.DataFrame:
    """Read BenchExec result files (as SV-COMP publishes them) into the long table.

    Parameters
    ----------
    path : str, os.PathLike, list of them, or file object
        A result file (``.xml``, or compressed ``.xml.bz2``/``.xml.gz``,
        recognised by its first bytes), a folder whose files ending so are
        all read (in name order), a list of files, or an open binary stream.
        Each file is one run set: one algorithm. Files of one run set split
        into blocks (``block`` attribute) are read as one algorithm.
    cutoff : float, optional, keyword-only
        The time limit in seconds; by default each file's ``timelimit``
        attribute (``"900s"``). Below the stated limit it re-caps the runs;
        above it is refused.
    time : {"cputime", "walltime"}, keyword-only
        Which measured time is the runtime.
    limits : ReadLimits, optional, keyword-only
        Bounds on the bytes (as stored and unpacked) and on the length of
        one tag or text (:class:`~maxent_util.io.ReadLimits`); by default the
        process's (:func:`~maxent_util.io.set_read_limits`).

    Returns
    -------
    pandas.DataFrame
        The long table, runs in file order. ``algorithm`` is the file's
        ``displayName``, else its ``tool`` followed by the run set's ``name``
        (without the block); run sets that would share a name get their
        ``benchmarkname``, ``version`` or ``options`` added in brackets.
        ``instance`` is the run's ``name``, followed by its ``properties`` in
        parentheses when it has any. ``attrs["notes"]`` lists the runs whose
        answer was wrong or unconfirmed, had nothing to be checked against,
        or is missing.

    Raises
    ------
    DataError
        If a file is missing, not well-formed XML, declares entities or
        external references, is not a ``<result>``, states no time limit and
        no ``cutoff`` is given, a run lacks a name or (when solved) its time,
        a time or category is malformed, or an option is bad.

    Notes
    -----
    A run's status comes from its ``status``, ``category`` and
    ``terminationreason`` columns: ``TIMEOUT`` (also ``TIMEOUT (true)``),
    ``OUT OF TIME`` or a time-limit termination is ``"capped"``; ``OUT OF
    MEMORY`` (also ``OUT OF JAVA MEMORY``) or a memory-limit termination is
    ``"memout"``; category ``wrong`` (a wrong answer) and
    ``correct-unconfirmed`` (SV-COMP: a witness not confirmed) are
    ``"unverified"``; categories ``error`` and ``unknown`` (``ERROR (1)``,
    ``SEGMENTATION FAULT``, an ``unknown`` answer, ...) are ``"crash"``;
    ``correct`` is solved. With category ``missing`` (no expected answer,
    as in most benchmarking outside competitions) or none, an answer such as
    ``true``, ``sat`` or ``done`` is solved, ``unknown`` or an error word a
    crash, and an empty status a crash. A solved run whose time is at or
    past the cutoff is ``"capped"``. Capped runs get runtime ``cutoff``,
    failures their measured time up to the cutoff.

    Examples
    --------
    >>> import io
    >>> published = io.BytesIO(b'''<?xml version="1.0"?>
    ... <result benchmarkname="demo" tool="CPAchecker" version="2.3" name="SV-COMP24"
    ...         timelimit="900s" date="" starttime="" toolmodule="" generator="">
    ...   <run name="a.yml" properties="unreach-call">
    ...     <column title="status" value="true"/>
    ...     <column title="cputime" value="12.5s"/>
    ...     <column hidden="true" title="category" value="correct"/>
    ...   </run>
    ...   <run name="b.yml" properties="unreach-call">
    ...     <column title="status" value="TIMEOUT"/>
    ...     <column title="cputime" value="901.2s"/>
    ...     <column hidden="true" title="category" value="error"/>
    ...   </run>
    ... </result>''')
    >>> read_benchexec(published)
                  algorithm              instance  runtime  status  cutoff
    0  CPAchecker SV-COMP24  a.yml (unreach-call)     12.5  solved   900.0
    1  CPAchecker SV-COMP24  b.yml (unreach-call)    900.0  capped   900.0
    """
    owner = "read_benchexec"
    limit = None if cutoff is None else _check_time_option(cutoff, "cutoff", owner)
    if time not in _TIMES:
        raise DataError(argument_message("time", owner, "'cputime' or 'walltime'", time))
    reasons: dict[str, int] = {}
    chosen = read_limits(limits)
    run_sets = [_read_run_set(source, limit, time, reasons, cutoff, chosen)
                for source in _sources(path, owner)]
    names = _names(run_sets)
    table = _long_frame(
        algorithm=np.array([name for name, run_set in zip(names, run_sets)
                            for _ in run_set.instances], dtype=object),
        instance=np.array([i for run_set in run_sets for i in run_set.instances], dtype=object),
        runtime=np.array([r for run_set in run_sets for r in run_set.runtimes], dtype=float),
        status=np.array([s for run_set in run_sets for s in run_set.statuses], dtype=object),
        cutoff=np.array([run_set.limit for run_set in run_sets for _ in run_set.instances],
                        dtype=float),
    )
    table.attrs["notes"] = _notes(reasons)
    return table


def _notes(reasons: dict[str, int]) -> list[str]:
    def runs(count: int, singular: str, plural: str) -> str:
        return f"{count} run {singular}" if count == 1 else f"{count} runs {plural}"

    notes = []
    if reasons.get("wrong"):
        notes.append(runs(reasons["wrong"], "with a wrong answer (category 'wrong') counts",
                          "with a wrong answer (category 'wrong') count")
                     + " as unsolved: status 'unverified', utility 0")
    if reasons.get("unconfirmed"):
        notes.append(runs(reasons["unconfirmed"], "with an unconfirmed answer (category "
                          "'correct-unconfirmed') counts", "with an unconfirmed answer (category "
                          "'correct-unconfirmed') count")
                     + " as unsolved: status 'unverified', utility 0")
    if reasons.get("unchecked"):
        notes.append(runs(reasons["unchecked"], "had no expected answer to check against "
                          "(category 'missing' or none); its answer counts",
                          "had no expected answer to check against (category 'missing' or none); "
                          "their answers count") + " as solved")
    if reasons.get("empty"):
        notes.append(runs(reasons["empty"], "has an empty status (no result recorded); it counts",
                          "have an empty status (no result recorded); they count") + " as 'crash'")
    return notes
