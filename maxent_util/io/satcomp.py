"""The SAT Competition's wide results CSVs of 2020 to 2024: one row per instance, one column per solver.

Each year published its own layout; :func:`read_satcomp` tells them apart by
the header and reads each as published (docs/formats.md records where each
layout was found and what its cells mean):

- 2020: ``cnf,solution,<solvers>``; a solver's cell holds seconds or
  ``TIMEOUT``, ``FAILED``, ``INCORRECT``, ``UNKNOWN``;
- 2021: ``hash,result,filename,<solvers>``; seconds or ``timeout``,
  ``memout``, ``unverified``;
- 2022: ``hash,benchmark,verified-result,claimed-result,<solvers>``; PAR-2
  seconds;
- 2023 and 2024: ``hash,<solvers>`` then ``vresult``, ``aresult`` or
  ``result`` (or none); PAR-2 seconds. 2023's special track has only the
  solver columns;
- the transpose, one row per solver: ``solver,<instances>`` (2020's
  ``par2scores.csv`` of the NoLimits track: PAR-2 seconds, 10000 for an
  unsolved run); and any table of one column per solver beside an
  ``instance`` column. Neither states its time limit.

"PAR-2 seconds": a solved run's time, an unsolved run's penalty of twice the
time limit (the column's mean is the solver's published score).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..errors import DataError, argument_message, short
from ..durations import readable_duration
from .limits import ReadLimits
from .table import lowered as lower_cells
from .table import RESULTS_TABLE, short_text
from .table import solver_rows
from .table import (PathLike, _check_names, _check_time_option, _label, _long_frame,
                    _missing_columns, _parse_numbers, _read_csv_cells, _where)

__all__ = ["read_satcomp", "SATCOMP_META_COLUMNS"]

SATCOMP_META_COLUMNS: tuple[str, ...] = (
    "hash", "result", "filename", "cnf", "solution", "benchmark", "verified-result",
    "claimed-result", "vresult", "aresult")
"""Columns of the published layouts that describe the instance; never read as solvers."""

# The published time limits of each year's tracks, named when a file states none (the track
# pages of satcompetition/2020 and /2021 on GitHub; for 2022 to 2024 the PAR-2 penalties of the
# published files, docs/formats.md)
_PUBLISHED_LIMITS = {
    "2020": "main 5000 s, parallel 5000 s, cloud 1000 s",
    "2021": "main 5000 s, parallel 5000 s, cloud 1000 s (announced; its published file holds "
            "runs to 5000 s)",
    "2022": "5000 s for the main tracks, 1000 s for the cloud track",
    "2023/2024": "5000 s for the main tracks, 1000 s for the cloud tracks",
    "solver rows": "2020's par2scores.csv (the NoLimits track) was run with the competition's "
                   "published limit, 5000 s, and writes an unsolved run as 10000",
    "instance rows": "give the time limit the runs were given",
}
# what a message calls a layout that is not one year's
_LAYOUT_NAMES = {"solver rows": "one row per solver and one column per instance, as 2020's "
                                "par2scores.csv",
                 "instance rows": "one column per solver beside an instance column"}
# The layouts that write words for unsolved runs: how long every run of every track published
# in them was allowed (2021's cloud runs too, which were first scored at 5000 s). Their
# `timeout` cells are runs stopped there, so a cutoff above it cannot be honoured.
_LONGEST_LIMIT = {"2020": 5000.0, "2021": 5000.0}

# the 2021 words, also accepted in the later layouts (which write only numbers)
_WORDS_2021 = {"timeout": "capped", "memout": "memout", "unverified": "unverified"}
# sum.sh of the 2020 repository counts all four as unsolved
_WORDS_2020 = {"timeout": "capped", "failed": "crash", "incorrect": "unverified",
               "unknown": "crash"}
# a word of any year's layout: a run's cell, though maybe of another year
_ANY_YEARS_WORDS = sorted(set(_WORDS_2020) | set(_WORDS_2021))
# the words of a table in no year's layout: any year's, each with its meaning
_ANY_WORDS = {**_WORDS_2020, **_WORDS_2021}
# a penalty cell may sit a little past the limit (a run stopped late, 5000.21 in 2022's
# anni-par-unsat.csv); a value beyond this share of the penalty's half rules the penalty out
_OVERSHOOT = 1.1


# the first column of a wide table of one row per instance, when no year's marker is there
INSTANCE_ROW_NAMES = ("instance", "instances", "benchmark", "benchmarks")


# the published limits in seconds, and the tracks run with each (the same sources)
_PUBLISHED_SECONDS = {
    "2020": {5000.0: "main and parallel tracks", 1000.0: "cloud track"},
    "2021": {5000.0: "main and parallel tracks", 1000.0: "cloud track"},
    "2022": {5000.0: "main tracks", 1000.0: "cloud track"},
    "2023/2024": {5000.0: "main tracks", 1000.0: "cloud tracks"},
}
# a published file's name, per layout: its year and track, for a title ("SAT Competition
# 2021, parallel track"); the names are those of the files of docs/formats.md
_TRACK_FILES = (
    ("2020", re.compile(r"(parallel|cloud)"), "2020"),
    ("2020", re.compile(r"(results)"), "2020"),
    ("solver rows", re.compile(r"(par2scores)"), "2020"),
    ("2021", re.compile(r"r_([a-z]+)"), "2021"),
    ("2022", re.compile(r"(main-seq|main-par|main-clo|nolimits|anni)(?:-.*)?"), "2022"),
    ("2023/2024", re.compile(r"results_([a-z]+)_detailed"), "2023"),
    ("2023/2024", re.compile(r"detailed_([a-z]+)"), "2024"),
)
_TRACK_WORDS = {"results": "main", "par2scores": "NoLimits", "main-seq": "main",
                "main-par": "parallel", "main-clo": "cloud", "nolimits": "no-limits",
                "nolimit": "no-limits", "anni": "anniversary", "crypto": "cryptography"}


def track_title(layout_year: str, name: str) -> str | None:
    """The competition, year and track a published file's name and layout say, as a title
    ("SAT Competition 2021, parallel track"); None for a name of no published file."""
    stem = name.replace("\\", "/").rsplit("/", 1)[-1].split(":")[-1].lower()
    stem = re.sub(r"\.(csv)(\.(gz|bz2|xz|zip))?$", "", stem)
    for year, pattern, shown in _TRACK_FILES:
        match = pattern.fullmatch(stem)
        if year == layout_year and match:
            track = _TRACK_WORDS.get(match.group(1), match.group(1))
            return f"SAT Competition {shown}, {track} track"
    return None


@dataclass(frozen=True)
class _Layout:
    year: str
    instance: str
    words: dict[str, str]
    penalty: bool  # unsolved runs written as twice the time limit
    by_solver: bool = False  # one row per solver, one column per instance

    @property
    def name(self) -> str:
        return _LAYOUT_NAMES.get(self.year, f"the {self.year} layout")


def _layout(path: PathLike, header: list[str]) -> _Layout:
    names = set(header)
    if solver_rows(header):
        return _Layout("solver rows", header[0], _ANY_WORDS, False, by_solver=True)
    if "cnf" in names:
        return _Layout("2020", "cnf", _WORDS_2020, False)
    if "filename" in names:
        return _Layout("2021", "filename", _WORDS_2021, False)
    if "hash" in names and names & {"benchmark", "verified-result", "claimed-result"}:
        return _Layout("2022", "hash", _WORDS_2021, True)
    if "hash" in names:
        return _Layout("2023/2024", "hash", _WORDS_2021, True)
    if header and header[0].strip().lower() in INSTANCE_ROW_NAMES \
            and not names & {"algorithm", "runtime"}:
        return _Layout("instance rows", header[0], _ANY_WORDS, False)
    if not names & set(SATCOMP_META_COLUMNS):  # 2023's special track: solver columns only
        return _Layout("2023/2024", "", _WORDS_2021, True)
    raise _missing_columns(path, header, "the instance column of a SAT Competition layout: "
                           "'cnf' (2020), 'filename' (2021) or 'hash' (2021 to 2024)")


def _given_note(path: PathLike, layout: _Layout, limit: float) -> str:
    """Where a cutoff that was given comes from, in words: a track's published limit, or the
    user's alone."""
    tracks = _PUBLISHED_SECONDS.get(layout.year, {})
    if limit in tracks:
        return (f"cutoff {readable_duration(limit)}, given: the competition's published limit "
                f"of the {layout.year.replace('/', ' and ')} {tracks[limit]}")
    if layout.year == "solver rows" and limit == 5000 and "par2scores" in _label(path):
        return (f"cutoff {readable_duration(5000)}, given: the competition's published limit "
                "of 2020's NoLimits track")
    return f"cutoff {readable_duration(limit)}, given (the file states none)"


def _published(layout: _Layout) -> str:
    if layout.year in _LAYOUT_NAMES:
        return _PUBLISHED_LIMITS[layout.year]
    return f"the published limits of the {layout.year} tracks: {_PUBLISHED_LIMITS[layout.year]}"


def _solver_rows(path: PathLike, header: list[str], body: np.ndarray
                 ) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Solvers, instances and cells (one row per instance) of a table of one row per solver."""
    label = header[0]
    instances = np.array(header[1:], dtype=object)
    if (instances == "").any():
        raise DataError(argument_message(
            "header", _label(path), "a row naming the instances, one column each",
            short(header)))
    solvers = list(body[:, 0]) if body.shape[0] else []
    _check_names(path, label, np.array(solvers, dtype=object), np.arange(1, len(solvers) + 1))
    cells = body[:, 1:].T if body.shape[0] else np.empty((len(instances), 0), dtype=object)
    return solvers, instances, cells


def _instance_rows(path: PathLike, header: list[str], body: np.ndarray, layout: _Layout,
                   notes: list[str]) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Solvers, instances and cells (one row per instance) of a table of one column per solver."""
    instance_column = {layout.instance} if layout.instance else set()
    solver_index = [j for j, name in enumerate(header)
                    if name not in SATCOMP_META_COLUMNS and name not in instance_column]
    if not solver_index:
        raise _missing_columns(path, header, "at least one solver column besides "
                               + ", ".join(f"'{name}'" for name in header
                                           if name in SATCOMP_META_COLUMNS
                                           or name in instance_column))
    solvers = [header[j] for j in solver_index]
    if "" in solvers:
        raise DataError(argument_message(
            "header", _label(path), "a row of non-empty column names", short(header)))
    n_rows = body.shape[0]
    data_rows = np.arange(1, n_rows + 1)
    if layout.instance:
        instances = body[:, header.index(layout.instance)] if n_rows else np.array([], dtype=object)
        _check_names(path, layout.instance, instances, data_rows)
    else:
        instances = np.array([f"row {row}" for row in data_rows], dtype=object)
        notes.append("no instance column (the layout of 2023's special-track file, "
                     "results_special_detailed.csv): instances are named 'row 1', 'row 2', "
                     "... by data row")
    cells = body[:, solver_index] if n_rows else np.empty((0, len(solvers)), dtype=object)
    return solvers, instances, cells


def _stated_penalty(seconds: np.ndarray, numeric: np.ndarray) -> tuple[float, int] | None:
    """The PAR-2 penalty a file of the 2022-2024 layouts writes for its unsolved runs.

    It is the largest value, when that is a whole even number of seconds found
    in at least two cells, and no value lies between (a little past) its half
    and itself: then half of it is the time limit. Otherwise None.
    """
    if not numeric.all() or seconds.size < 2:
        return None
    values = seconds.ravel()
    top = float(values.max())
    if not (math.isfinite(top) and top > 0 and top == math.floor(top) and top % 2 == 0):
        return None
    count = int((values == top).sum())
    if count < 2 or ((values > _OVERSHOOT * top / 2) & (values < top)).any():
        return None
    return top, count


def read_satcomp(path: PathLike, *, cutoff: float | None = None,
                 limits: ReadLimits | None = None) -> pd.DataFrame:
    """Read a SAT Competition results CSV (one column per solver) of any year from 2020.

    The layout is told from the header (the table above; docs/formats.md
    says where each was published): ``cnf`` makes the 2020 layout,
    ``filename`` the 2021 one, ``hash`` with ``benchmark`` or
    ``verified-result`` the 2022 one, ``hash`` alone (or no column but the
    solvers') the 2023/2024 one. The
    columns of :data:`SATCOMP_META_COLUMNS` are never solvers; every other
    column is.

    Parameters
    ----------
    path : str, os.PathLike or file object
        The CSV file (compressed files such as ``.csv.gz`` are read too), or
        an open binary or text stream of it.
    cutoff : float, optional, keyword-only
        The time limit in seconds. By default it is the one the file states:
        files of the 2022 to 2024 layouts write an unsolved run as its PAR-2
        penalty, twice the limit (10000 for the 5000 s tracks, 2000 for the
        1000 s cloud tracks), and the note says the cutoff was inferred so.
        A file that states none (the 2020 and 2021 layouts, and a later one
        without two penalty cells) is refused without ``cutoff``: the error
        names the published limits of that year's tracks (5000 s for the main
        tracks, 1000 s for the cloud tracks). A cutoff below the stated one
        re-caps the runs; one above it is refused, as is one above 5000 s
        for the 2020 and 2021 layouts, whose ``timeout`` cells are runs
        stopped at (at most) that limit.
    limits : ReadLimits, optional, keyword-only
        Bounds on the bytes, columns and cell lengths read
        (:class:`~maxent_util.io.ReadLimits`); by default the process's
        (:func:`~maxent_util.io.set_read_limits`).

    Returns
    -------
    pandas.DataFrame
        The long table, rows ordered by solver (header order), then by
        instance (file order). ``instance`` is the ``cnf`` column (2020),
        ``filename`` (2021) or ``hash`` (2022 to 2024, and 2021 files without
        ``filename``; in 2022 benchmark names repeat across distinct hashes);
        a file of solver columns only (2023's special track) names its
        instances ``row 1``, ``row 2``, ... by data row.
        ``attrs["notes"]`` is a list of remarks for the reader of the
        results: the cutoff the file stated, and how many runs gave a wrong
        or unverified answer.

    Raises
    ------
    DataError
        If the file is missing or malformed, has no instance column or no
        solver column, a cell is empty, negative, NaN, infinite or an unknown
        word, or ``cutoff`` is not a positive number, above the file's own,
        or missing where the file states no time limit.

    Notes
    -----
    A numeric cell is a solved run when it is below the cutoff; at or above
    it the run is ``"capped"`` with runtime ``cutoff`` (r_parallel.csv of
    2021 holds values up to 19358.83 s past its 5000 s limit). Words, in any
    case: ``timeout`` is ``"capped"``; ``memout`` is ``"memout"``;
    ``unverified`` (2021) and ``INCORRECT`` (2020: a wrong answer) are
    ``"unverified"``, a failure, and counted in the notes; ``FAILED`` and
    ``UNKNOWN`` (2020: the solver stopped without an answer) are
    ``"crash"``. Every unsolved run gets runtime ``cutoff``, so that no
    runtime is NaN.

    Examples
    --------
    >>> import io
    >>> published_2024 = io.BytesIO(
    ...     b"hash,kissat,cadical,vresult\\n"
    ...     b"ab12,12.5,10000.0,sat\\n"
    ...     b"cd34,10000.0,4100.25,unsat\\n")
    >>> runs = read_satcomp(published_2024)
    >>> runs
      algorithm instance  runtime  status  cutoff
    0    kissat     ab12    12.50  solved  5000.0
    1    kissat     cd34  5000.00  capped  5000.0
    2   cadical     ab12  5000.00  capped  5000.0
    3   cadical     cd34  4100.25  solved  5000.0
    >>> runs.attrs["notes"]  # doctest: +NORMALIZE_WHITESPACE
    ['cutoff 5000 s (1.39 h), stated by the file: its largest value, 10000 s (2.78 h) in 2
    cells, is the PAR-2 penalty (twice the time limit) of its unsolved runs']
    """
    owner = "read_satcomp"
    limit = None if cutoff is None else _check_time_option(cutoff, "cutoff", owner)
    header, body = _read_csv_cells(path, owner, limits)
    layout = _layout(path, header)

    notes: list[str] = []
    if layout.by_solver:
        solvers, instances, cells = _solver_rows(path, header, body)
    else:
        solvers, instances, cells = _instance_rows(path, header, body, layout, notes)

    seconds = _parse_numbers(cells)
    numeric = ~np.isnan(seconds)
    lowered = lower_cells(cells)
    is_word = ~numeric & np.isin(lowered, list(layout.words))
    runs_like = numeric | np.isin(lowered, _ANY_YEARS_WORDS)
    if cells.size and runs_like.sum() * 2 < cells.size:
        # most cells neither a time nor a word for a run: a table about the instances (2023's
        # bench_meta.csv: hash,author,family,filename, where a family may be 'unknown')
        meta = [name for name in header if name in SATCOMP_META_COLUMNS]
        raise DataError(argument_message(
            "path", owner, RESULTS_TABLE, _label(path),
            f"It is not a results table: besides {', '.join(map(repr, meta)) or 'nothing'}, "
            f"its columns ({short([short_text(name) for name in solvers])}) hold no time "
            f"(data row 1: {short([short_text(str(cell)) for cell in cells[0]])})."))
    bad = (~numeric & ~is_word) | (numeric & ~(np.isfinite(seconds) & (seconds >= 0)))
    if bad.any():
        # the first bad cell in reading order, so the message points at the top of the file
        i, j = np.argwhere(bad)[0]
        words = ", ".join(repr(word if layout.year != "2020" else word.upper())
                          for word in layout.words)
        # a cell is named by its column and data row as the file has them
        column, row = (instances[i], j) if layout.by_solver else (solvers[j], i)
        raise DataError(argument_message(
            short_text(str(column)), _where(path, int(row) + 1),
            f"a non-negative number of seconds or one of {words}", short(cells[i, j])))

    penalty = _stated_penalty(seconds, numeric) if layout.penalty else None
    written = _stated_penalty(seconds, numeric) if not layout.penalty else None
    if written is not None and limit is not None and limit > written[0] / 2:
        # a table in no year's layout states no limit, but when its largest value repeats as
        # a penalty does, a cutoff past its half would read the unsolved runs as solved
        raise DataError(argument_message(
            "cutoff", owner, f"at most {written[0] / 2:g} s, half the largest value of "
            f"{_label(path)}, {written[0]:g} s ({written[1]} cells), which is the PAR-2 "
            "penalty of its unsolved runs", cutoff,
            "A cutoff can re-cap runs at a lower time, never extend them."))
    if penalty is not None:
        stated = penalty[0] / 2
        if limit is not None and limit > stated:
            raise DataError(argument_message(
                "cutoff", owner, f"at most {stated:g} s, the time limit the file states (its "
                f"unsolved runs carry the PAR-2 penalty {penalty[0]:g} s)", cutoff,
                "A cutoff can re-cap runs at a lower time, never extend them."))
        if limit is None:
            limit = stated
            notes.append(f"cutoff {readable_duration(stated)}, stated by the file: its largest "
                         f"value, {readable_duration(penalty[0])} in {penalty[1]} cells, is the "
                         f"PAR-2 penalty (twice the time limit) of its unsolved runs")
    longest = _LONGEST_LIMIT.get(layout.year)
    if limit is not None and penalty is None and longest is not None and limit > longest:
        raise DataError(argument_message(
            "cutoff", owner, f"at most {longest:g} s, the longest time limit of any "
            f"{layout.year} track (its 'timeout' cells are runs stopped there), since "
            f"{_label(path)} has {layout.name}", cutoff,
            "A cutoff can re-cap runs at a lower time, never extend them."))
    if limit is None:
        raise DataError(argument_message(
            "cutoff", owner, f"the time limit in seconds, since {_label(path)} "
            f"({layout.name}) does not state it", None,
            f"Pass cutoff= (--cutoff on the command line); {_published(layout)}."))

    solved = numeric & (seconds < limit)
    runtime = np.where(solved, seconds, limit)
    word_status = np.full(cells.shape, "capped", dtype=object)
    for word, meaning in layout.words.items():
        word_status[lowered == word] = meaning
    status = np.where(solved, "solved", np.where(numeric, "capped", word_status)).astype(object)

    unverified = int((status == "unverified").sum())
    if unverified:
        cell_words = "'INCORRECT'" if layout.year == "2020" else "'unverified'"
        notes.append(f"{unverified} run{'s' if unverified != 1 else ''} with a wrong or "
                     f"unverified answer ({cell_words} cells) count{'s' if unverified == 1 else ''}"
                     f" as unsolved: status 'unverified', utility 0")

    if layout.by_solver:
        notes.append(f"{layout.name}: each cell is a run, and a cell at or above the "
                     f"cutoff, {readable_duration(limit)}, an unsolved run")
    # transpose so that rows run solver by solver
    n_solvers, n_instances = len(solvers), len(instances)
    table = _long_frame(
        algorithm=np.repeat(np.array(solvers, dtype=object), n_instances),
        instance=np.tile(instances, n_solvers),
        runtime=runtime.T.ravel(),
        status=status.T.ravel(),
        cutoff=np.full(n_instances * n_solvers, limit),
    )
    table.attrs["notes"] = notes
    if cutoff is not None and penalty is None:
        # for a page that says where its cutoff comes from (rank's notes stay as they were)
        table.attrs["cutoff_source"] = _given_note(path, layout, limit)
    title = track_title(layout.year, _label(path))
    if title is not None:
        table.attrs["track"] = title
    return table
