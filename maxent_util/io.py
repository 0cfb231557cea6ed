"""Reading runtime tables.

Every reader returns the library's *long table*: a :class:`pandas.DataFrame`
with one row per run and the columns

``algorithm`` (str)
    the solver or configuration that was run;
``instance`` (str)
    the problem it was run on;
``runtime`` (float, seconds)
    for a solved run the time it took; for any other run the time at which it
    stopped, normally its cutoff (never NaN);
``status`` (str)
    one of :data:`STATUSES`: ``"solved"``, ``"timeout"`` (a capped,
    right-censored run), or a failure ``"memout"``, ``"crash"``,
    ``"unverified"`` (utility 0);
``cutoff`` (float, seconds, optional)
    the time limit the run was given.

Parsing uses pandas, but every value is checked here, so bad input raises
:class:`~maxent_util.errors.DataError` naming the file, the row (or line), the
column and the offending value rather than a pandas traceback. Rows of CSV
files are counted as *data rows*: 1-based, the header not counted, blank lines
skipped. ARFF files are parsed line by line, so their errors give the *line*.
"""

from __future__ import annotations

import inspect
import math
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pandas as pd

from .errors import DataError, argument_message

__all__ = [
    "STATUSES",
    "FAILURE_STATUSES",
    "LONG_COLUMNS",
    "FORMATS",
    "read_satcomp",
    "read_long",
    "read_aslib",
    "read_runs",
    "validate_table",
]

STATUSES: tuple[str, ...] = ("solved", "timeout", "memout", "crash", "unverified")
"""Allowed values of the ``status`` column."""

FAILURE_STATUSES: tuple[str, ...] = ("memout", "crash", "unverified")
"""Statuses of runs that failed outright (utility 0), as opposed to timeouts."""

LONG_COLUMNS: tuple[str, ...] = ("algorithm", "instance", "runtime", "status", "cutoff")
"""Columns of the long table, in order; ``cutoff`` is optional."""

FORMATS: tuple[str, ...] = ("satcomp", "long", "aslib")
"""Formats understood by :func:`read_runs`."""

PathLike = str | os.PathLike

_SATCOMP_META_COLUMNS = ("hash", "result", "filename")
_SATCOMP_STATUS_CELLS = ("timeout", "memout", "unverified")
_ASLIB_STATUS = {
    "ok": "solved",
    "timeout": "timeout",
    "memout": "memout",
    "not_applicable": "crash",
    "crash": "crash",
    "other": "crash",
}


# ---------------------------------------------------------------------------
# shared helpers


def _plain(value: Any) -> Any:
    """numpy scalars as Python ones, so messages show 0.5 rather than np.float64(0.5)."""
    return value.item() if isinstance(value, np.generic) else value


def _beyond_float(value: Any) -> bool:
    try:
        float(value)
    except OverflowError:
        return True
    return False


def _where(path: PathLike, row: int, unit: str = "data row") -> str:
    return f"{os.fspath(path)}, {unit} {row}"


def _check_path(path: Any, owner: str) -> str:
    """A path argument as text; anything but a str or os.PathLike raises DataError."""
    if not isinstance(path, (str, os.PathLike)):
        raise DataError(argument_message(
            "path", owner, "a file path (str or os.PathLike)", path))
    try:
        text = os.fspath(path)
    except TypeError:  # an os.PathLike whose __fspath__ returns neither str nor bytes
        text = None
    if not isinstance(text, str):
        raise DataError(argument_message(
            "path", owner, "a file path (str or os.PathLike giving a str)", path))
    return text


def _check_time_option(value: Any, arg: str, owner: str) -> float:
    """A cutoff or time limit given as an option: a positive finite number."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        number = math.nan
    if isinstance(value, bool) or not (math.isfinite(number) and number > 0):
        raise DataError(argument_message(arg, owner, "a positive finite number of seconds", value))
    return number


def _read_csv_cells(path: PathLike, owner: str) -> tuple[list[str], np.ndarray]:
    """Header and body of a CSV file as stripped strings (missing cells are '').

    Reading with ``header=None`` keeps duplicate column names visible (pandas
    would rename them to ``x.1``), and ``na_filter=False`` keeps instance names
    such as ``NA`` or ``null`` as text.
    """
    _check_path(path, owner)
    try:
        raw = pd.read_csv(path, header=None, dtype=str, na_filter=False, encoding="utf-8")
    except (FileNotFoundError, IsADirectoryError, PermissionError) as exc:
        raise DataError(argument_message(
            "path", owner, "an existing, readable file", os.fspath(path),
            f"The system reported: {exc.strerror or exc}.")) from None
    except pd.errors.EmptyDataError:
        raise DataError(argument_message(
            "path", owner, "a CSV file with a header row", os.fspath(path),
            "The file is empty.")) from None
    except pd.errors.ParserError as exc:
        raise DataError(argument_message(
            "path", owner, "a well-formed CSV file", os.fspath(path),
            f"The CSV parser reported: {str(exc).strip()}")) from None
    except UnicodeDecodeError as exc:
        raise DataError(argument_message(
            "path", owner, "UTF-8 text", os.fspath(path),
            f"Byte {exc.start} cannot be decoded.")) from None
    except OSError as exc:
        raise DataError(argument_message(
            "path", owner, "an existing, readable file", os.fspath(path),
            f"The system reported: {exc}.")) from None
    cells = raw.to_numpy(dtype=object)
    header = [str(name).strip() for name in cells[0]]
    body = cells[1:]
    if body.size:
        body = np.char.strip(body.astype(str)).astype(object)
    seen: set[str] = set()
    for name in header:
        if name in seen:
            raise DataError(argument_message(
                "header", os.fspath(path), "a row of distinct column names", header,
                f"The column {name!r} appears more than once."))
        seen.add(name)
    return header, body


def _missing_columns(path: PathLike, header: list[str], required: str) -> DataError:
    return DataError(argument_message(
        "header", os.fspath(path), f"a row naming {required}", header))


def _parse_numbers(cells: np.ndarray) -> np.ndarray:
    """Cells to float, NaN where a cell is not a number (exact decimal parsing)."""
    if cells.size == 0:
        return np.zeros(cells.shape)
    flat = pd.to_numeric(pd.Series(cells.ravel(), dtype=object), errors="coerce")
    return flat.to_numpy(dtype=float).reshape(cells.shape)


def _first(mask: np.ndarray) -> int | None:
    hits = np.flatnonzero(mask)
    return int(hits[0]) if hits.size else None


def _check_names(path: PathLike, column: str, names: np.ndarray, rows: np.ndarray) -> None:
    bad = _first(names == "")
    if bad is not None:
        raise DataError(argument_message(
            column, _where(path, int(rows[bad])), "a non-empty name", names[bad]))


def _long_frame(algorithm: np.ndarray, instance: np.ndarray, runtime: np.ndarray,
                status: np.ndarray, cutoff: np.ndarray | None) -> pd.DataFrame:
    columns: dict[str, Any] = {
        "algorithm": pd.Series(algorithm, dtype=str),
        "instance": pd.Series(instance, dtype=str),
        "runtime": pd.Series(runtime, dtype=float),
        "status": pd.Series(status, dtype=str),
    }
    if cutoff is not None:
        columns["cutoff"] = pd.Series(cutoff, dtype=float)
    return pd.DataFrame(columns)


# ---------------------------------------------------------------------------
# SAT Competition wide CSV


def read_satcomp(path: PathLike, *, cutoff: float = 5000.0) -> pd.DataFrame:
    """Read a SAT Competition results CSV (one column per solver).

    The format is that of ``results/*.csv`` in the SAT Competition 2021
    repository: a header ``hash,result,filename,<solver_1>,...`` (``result``
    and one of ``hash``/``filename`` may be absent), one row per instance,
    and in each solver's column either wall-clock seconds or one of the
    strings ``timeout``, ``memout``, ``unverified``.

    Parameters
    ----------
    path : str or os.PathLike
        The CSV file (compressed files such as ``.csv.gz`` are read too).
    cutoff : float, keyword-only
        The track's time limit in seconds (5000 for the 2021 main and
        parallel tracks). It fills the ``cutoff`` column and stands as the
        runtime of every unsolved run.

    Returns
    -------
    pandas.DataFrame
        The long table, rows ordered by solver (header order), then by
        instance (file order). ``instance`` is the ``filename`` column, or
        ``hash`` if there is no ``filename`` column.

    Raises
    ------
    DataError
        If the file is missing or malformed, lacks both ``filename`` and
        ``hash``, has no solver column, or a cell is empty, negative, NaN,
        infinite or an unknown string.

    Notes
    -----
    A numeric cell at or above ``cutoff`` is a run that did not finish
    within the limit: it becomes ``"timeout"`` with runtime ``cutoff``.
    (r_parallel.csv of 2021 holds 13 such values, up to 19358.83 s.)
    ``memout`` and ``unverified`` cells keep their status, also with runtime
    ``cutoff``, so that no runtime is ever NaN.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "track.csv").write_text(
    ...     "hash,result,filename,kissat,cadical\\n"
    ...     "ab12,sat,x.cnf,12.5,memout\\n"
    ...     "cd34,unsat,y.cnf,timeout,5012.3\\n")
    >>> read_satcomp(folder / "track.csv", cutoff=5000)
      algorithm instance  runtime   status  cutoff
    0    kissat    x.cnf     12.5   solved  5000.0
    1    kissat    y.cnf   5000.0  timeout  5000.0
    2   cadical    x.cnf   5000.0   memout  5000.0
    3   cadical    y.cnf   5000.0  timeout  5000.0
    """
    owner = "read_satcomp"
    limit = _check_time_option(cutoff, "cutoff", owner)
    header, body = _read_csv_cells(path, owner)

    if "filename" in header:
        instance_column = "filename"
    elif "hash" in header:
        instance_column = "hash"
    else:
        raise _missing_columns(path, header, "the column 'filename' (or 'hash')")
    solver_index = [j for j, name in enumerate(header) if name not in _SATCOMP_META_COLUMNS]
    if not solver_index:
        raise _missing_columns(path, header, "at least one solver column besides "
                               "'hash', 'result', 'filename'")
    solvers = [header[j] for j in solver_index]
    empty = _first(np.array(solvers) == "")
    if empty is not None:
        raise DataError(argument_message(
            "header", os.fspath(path), "a row of non-empty column names", header))

    n_rows = body.shape[0]
    data_rows = np.arange(1, n_rows + 1)
    instances = body[:, header.index(instance_column)] if n_rows else np.array([], dtype=object)
    _check_names(path, instance_column, instances, data_rows)

    cells = body[:, solver_index] if n_rows else np.empty((0, len(solvers)), dtype=object)
    seconds = _parse_numbers(cells)
    numeric = ~np.isnan(seconds)
    lowered = np.char.lower(cells.astype(str)) if cells.size else cells.astype(str)
    is_status = ~numeric & np.isin(lowered, _SATCOMP_STATUS_CELLS)
    bad = (~numeric & ~is_status) | (numeric & ~(np.isfinite(seconds) & (seconds >= 0)))
    if bad.any():
        # the first bad cell in reading order, so the message points at the top of the file
        i, j = np.argwhere(bad)[0]
        raise DataError(argument_message(
            solvers[j], _where(path, int(i) + 1),
            "a non-negative number of seconds or one of 'timeout', 'memout', 'unverified'",
            cells[i, j]))

    solved = numeric & (seconds < limit)
    runtime = np.where(solved, seconds, limit)
    status = np.where(solved, "solved", np.where(numeric, "timeout", lowered)).astype(object)

    # transpose so that rows run solver by solver
    n_solvers = len(solvers)
    return _long_frame(
        algorithm=np.repeat(np.array(solvers, dtype=object), n_rows),
        instance=np.tile(instances, n_solvers),
        runtime=runtime.T.ravel(),
        status=status.T.ravel(),
        cutoff=np.full(n_rows * n_solvers, limit),
    )


# ---------------------------------------------------------------------------
# long CSV


def read_long(path: PathLike) -> pd.DataFrame:
    """Read a long runtime CSV: one row per run.

    Parameters
    ----------
    path : str or os.PathLike
        A CSV file with the columns ``algorithm``, ``instance``, ``runtime``
        and optionally ``status`` (default ``"solved"``; one of
        :data:`STATUSES`, case-insensitive) and ``cutoff``. Other columns are
        kept, as text, after the standard ones.

    Returns
    -------
    pandas.DataFrame
        The long table in file order. Surrounding whitespace is removed from
        every field.

    Raises
    ------
    DataError
        If the file is missing or malformed, a required column is missing, a
        name is empty, a runtime is not a finite non-negative number, a
        status is unknown, a cutoff is not a positive finite number, or a
        solved run took longer than its cutoff.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "runs.csv").write_text(
    ...     "algorithm,instance,runtime,status,cutoff\\n"
    ...     "kissat,a.cnf,12.5,solved,60\\n"
    ...     "kissat,b.cnf,60,timeout,60\\n")
    >>> read_long(folder / "runs.csv")
      algorithm instance  runtime   status  cutoff
    0    kissat    a.cnf     12.5   solved    60.0
    1    kissat    b.cnf     60.0  timeout    60.0
    """
    header, body = _read_csv_cells(path, "read_long")
    required = ("algorithm", "instance", "runtime")
    if any(name not in header for name in required):
        raise _missing_columns(path, header, "the columns 'algorithm', 'instance', 'runtime' "
                               "(optional: 'status', 'cutoff')")
    n_rows = body.shape[0]
    rows = np.arange(1, n_rows + 1)

    def column(name: str) -> np.ndarray:
        return body[:, header.index(name)] if n_rows else np.array([], dtype=object)

    algorithm, instance = column("algorithm"), column("instance")
    _check_names(path, "algorithm", algorithm, rows)
    _check_names(path, "instance", instance, rows)

    raw_runtime = column("runtime")
    runtime = _parse_numbers(raw_runtime)
    bad = _first(~(np.isfinite(runtime) & (runtime >= 0)))
    if bad is not None:
        raise DataError(argument_message(
            "runtime", _where(path, int(rows[bad])), "a finite non-negative number of seconds",
            raw_runtime[bad]))

    if "status" in header:
        raw_status = column("status")
        status = np.char.lower(raw_status.astype(str)).astype(object) if n_rows else raw_status
        bad = _first(~pd.Series(status, dtype=object).isin(STATUSES).to_numpy())
        if bad is not None:
            raise DataError(argument_message(
                "status", _where(path, int(rows[bad])), f"one of {', '.join(map(repr, STATUSES))}",
                raw_status[bad]))
    else:
        status = np.full(n_rows, "solved", dtype=object)

    cutoff = None
    if "cutoff" in header:
        raw_cutoff = column("cutoff")
        cutoff = _parse_numbers(raw_cutoff)
        bad = _first(~(np.isfinite(cutoff) & (cutoff > 0)))
        if bad is not None:
            raise DataError(argument_message(
                "cutoff", _where(path, int(rows[bad])), "a positive finite number of seconds",
                raw_cutoff[bad]))
        bad = _first((status == "solved") & (runtime > cutoff))
        if bad is not None:
            raise DataError(argument_message(
                "runtime", _where(path, int(rows[bad])),
                f"at most the cutoff {_plain(cutoff[bad])!r} for a solved run", raw_runtime[bad],
                "Mark the run as 'timeout' or raise its cutoff."))

    table = _long_frame(algorithm, instance, runtime, status, cutoff)
    for j, name in enumerate(header):
        if name not in LONG_COLUMNS:
            table[name] = pd.Series(body[:, j] if n_rows else [], dtype=str)
    return table


# ---------------------------------------------------------------------------
# ASlib algorithm_runs.arff

_ARFF_ATTRIBUTE = re.compile(
    r"""@attribute\s+('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|[^\s{]+)\s*(.*?)\s*$""",
    re.IGNORECASE)
# an unquoted value may not start with a quote, so an unclosed quote is an error
_ARFF_TOKEN = re.compile(
    r"""\s*('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|(?:[^,'"\s][^,]*?)?)\s*(,|$)""")
_ARFF_NUMERIC = ("numeric", "real", "integer")


def _unquote(token: str) -> str | None:
    """A value without its quotes; None for the unquoted missing value ``?``."""
    if len(token) >= 2 and token[0] == token[-1] and token[0] in "'\"":
        return re.sub(r"\\(.)", r"\1", token[1:-1])
    return None if token == "?" else token


def _split_arff_row(line: str) -> list[str | None] | None:
    """Comma-separated values with optional ' or " quotes; None if malformed."""
    if "'" not in line and '"' not in line:
        return [None if token == "?" else token
                for token in (part.strip() for part in line.split(","))]
    tokens: list[str | None] = []
    position = 0
    while True:
        match = _ARFF_TOKEN.match(line, position)
        if match is None:
            return None
        tokens.append(_unquote(match.group(1)))
        if match.group(2) == "":
            return tokens if match.end() == len(line) else None
        position = match.end()


def _description_fields(text: str) -> dict[str, list[str]]:
    """Top-level fields of an ASlib description.txt, each as a list of strings.

    The file is YAML; only the subset ASlib uses for its top-level fields is
    read here: ``key: value``, ``key: [a, b]`` and ``key:`` followed by
    indented ``- item`` lines. Nested mappings (``feature_steps``) are skipped.
    """
    fields: dict[str, list[str]] = {}
    current: list[str] | None = None
    for raw_line in text.split("\n"):
        line = raw_line.rstrip()
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if not line[0].isspace():
            key, _, value = line.partition(":")
            value = value.strip()
            if value.startswith("[") and value.endswith("]"):
                items = [_yaml_scalar(v) for v in value[1:-1].split(",") if v.strip()]
            else:
                items = [_yaml_scalar(value)] if value else []
            current = fields[key.strip()] = items
        elif current is not None and line.strip().startswith("- "):
            current.append(_yaml_scalar(line.strip()[2:]))
        elif current is not None and line.strip() == "-":
            current.append("")
        else:
            current = None  # a nested mapping: not a list of this key
    return fields


def _yaml_scalar(text: str) -> str:
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    return text


@dataclass(frozen=True)
class _Description:
    """What read_aslib needs from a scenario's description.txt."""

    path: str
    cutoff: float | None
    measures: list[str] | None
    maximize: list[str] | None
    types: list[str] | None


def _read_description(arff_path: Path) -> _Description | None:
    """The description.txt next to an algorithm_runs.arff, if there is one."""
    description = arff_path.with_name("description.txt")
    if not description.is_file():
        return None
    source = os.fspath(description)
    try:
        text = description.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        raise DataError(argument_message(
            "path", "read_aslib", "a readable UTF-8 description.txt next to the runs", source,
            f"The system reported: {reason}.")) from None
    fields = _description_fields(text)
    cutoff = None
    stated = fields.get("algorithm_cutoff_time") or []
    if len(stated) == 1 and stated[0] not in ("?", "", "null", "None", "~"):
        cutoff = _check_time_option(stated[0], "algorithm_cutoff_time", source)
    elif len(stated) > 1:
        raise DataError(argument_message(
            "algorithm_cutoff_time", source, "one number of seconds", stated))
    return _Description(path=source, cutoff=cutoff,
                        measures=fields.get("performance_measures"),
                        maximize=fields.get("maximize"), types=fields.get("performance_type"))


def _performance_attribute(description: _Description | None, attributes: list[tuple[str, str, int]],
                           source: str) -> int:
    """Index of the runtime attribute: the one description.txt types as runtime.

    Without a description.txt (a bare ARFF file), an attribute named
    ``runtime``; never a guess by position.
    """
    names = [name for name, _, _ in attributes]
    numeric = [name for name, kind, _ in attributes if kind == "numeric"]
    remedy = "Name the runtime attribute with performance= (--performance on the command line)."
    if description is None or not description.measures:
        matches = [j for j, (name, kind, _) in enumerate(attributes)
                   if name.lower() == "runtime" and kind == "numeric"]
        if len(matches) != 1:
            raise DataError(argument_message(
                "attributes", source, "a list including one numeric 'runtime' attribute "
                "(or a description.txt next to the file whose performance_measures name the "
                "runtime)", names, remedy))
        return matches[0]
    measures, types = description.measures, description.types
    if types is None or len(types) != len(measures):
        raise DataError(argument_message(
            "performance_type", description.path, "a list with one type per performance "
            f"measure {measures}", types, remedy))
    runtimes = [j for j, kind in enumerate(types) if kind.lower() == "runtime"]
    if not runtimes:
        raise DataError(argument_message(
            "performance_type", description.path, "a list including 'runtime' (maxent_util "
            "scores runtimes)", types,
            f"To score another measure as if it were seconds, name it with performance= "
            f"(one of {numeric})."))
    if len(runtimes) > 1:
        raise DataError(argument_message(
            "performance_type", description.path, "a list with one 'runtime' measure",
            types, remedy))
    measure = measures[runtimes[0]]
    maximize = description.maximize or []
    if len(maximize) == len(measures) and maximize[runtimes[0]].lower() == "true":
        raise DataError(argument_message(
            "maximize", description.path, f"false for the runtime measure {measure!r}",
            maximize, remedy))
    if measure not in names or attributes[names.index(measure)][1] != "numeric":
        raise DataError(argument_message(
            "performance_measures", description.path,
            f"a list naming a numeric attribute of {source}, one of {numeric}", measures,
            remedy))
    return names.index(measure)


def read_aslib(path: PathLike, *, performance: str | None = None,
               cutoff: float | None = None) -> pd.DataFrame:
    """Read an ASlib ``algorithm_runs.arff`` file.

    Parameters
    ----------
    path : str or os.PathLike
        The ARFF file, with the attributes ``instance_id``, ``algorithm``,
        ``runstatus``, a performance attribute and optionally
        ``repetition``.
    performance : str, optional, keyword-only
        Name of the numeric attribute to read as runtimes in seconds. By
        default the measure that the scenario's ``description.txt`` (next to
        the file) lists in ``performance_measures`` with
        ``performance_type: runtime``; a scenario with no runtime measure
        (``solution_quality``, as CSP-Minizinc-Obj-2016) is refused unless
        this names a column (whose values are then read as seconds, and not
        capped at ``algorithm_cutoff_time``, which limits time). A bare ARFF
        file without ``description.txt`` needs an attribute called
        ``runtime`` or this option. The column is never guessed by
        position.
    cutoff : float, optional, keyword-only
        The algorithm cutoff time in seconds. By default it is read from
        ``algorithm_cutoff_time`` in ``description.txt``; without either, the
        table has no ``cutoff`` column. It may lower the stated cutoff (runs
        are re-capped) but not raise it: runs stopped at the stated limit say
        nothing about later times.

    Returns
    -------
    pandas.DataFrame
        The long table in file order, one row per line of ``@DATA`` (each
        repetition is a run of its own).

    Raises
    ------
    DataError
        If the file is missing, the ARFF is malformed, an attribute is
        missing, or a value is invalid (data errors give the line number);
        if the runtime column cannot be told from ``description.txt`` or
        the scenario's performance type is not runtime (without
        ``performance=``); or if ``cutoff`` exceeds the stated cutoff.

    Notes
    -----
    ``runstatus`` maps ``ok`` to ``"solved"``, ``timeout`` and ``memout`` to
    themselves, and ``crash``, ``other``, ``not_applicable`` to ``"crash"``.
    With a cutoff, an ``ok`` run at or above it becomes a ``"timeout"`` (the
    same rule as :func:`read_satcomp`), and an unsuccessful run stops at
    ``min(recorded value, cutoff)``, or at the cutoff when its value is
    missing (``?``); this also undoes PAR10 penalties. Without a cutoff an
    unsuccessful run needs a recorded value.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "algorithm_runs.arff").write_text(
    ...     "@RELATION runs\\n"
    ...     "@ATTRIBUTE instance_id STRING\\n"
    ...     "@ATTRIBUTE repetition NUMERIC\\n"
    ...     "@ATTRIBUTE algorithm STRING\\n"
    ...     "@ATTRIBUTE runtime NUMERIC\\n"
    ...     "@ATTRIBUTE runstatus {ok, timeout, memout, not_applicable, crash, other}\\n"
    ...     "@DATA\\n"
    ...     "a.cnf,1,minisat,3.5,ok\\n"
    ...     "'b c.cnf',1,minisat,?,timeout\\n")
    >>> read_aslib(folder / "algorithm_runs.arff", cutoff=60)
      algorithm instance  runtime   status  cutoff
    0   minisat    a.cnf      3.5   solved    60.0
    1   minisat  b c.cnf     60.0  timeout    60.0
    """
    owner = "read_aslib"
    source = _check_path(path, owner)
    if cutoff is not None:
        limit: float | None = _check_time_option(cutoff, "cutoff", owner)
    else:
        limit = None
    if performance is not None and not isinstance(performance, str):
        raise DataError(argument_message(
            "performance", owner, "the name of a numeric attribute (a string)", performance))
    try:
        # utf-8-sig: a byte-order mark is dropped, as pandas drops it from a CSV
        text = Path(path).read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        raise DataError(argument_message(
            "path", owner, "an existing, readable UTF-8 file", source,
            f"The system reported: {reason}.")) from None
    description = _read_description(Path(path))

    attributes: list[tuple[str, str, int]] = []  # name, kind, line
    data: list[tuple[int, str]] = []
    in_data = False
    # split on '\n' only: str.splitlines would also break inside names holding '\x85' or '\u2028'
    for number, raw_line in enumerate(text.split("\n"), start=1):
        line = raw_line.strip()
        if not line or line.startswith("%"):
            continue
        if in_data:
            data.append((number, line))
            continue
        keyword = line.split(None, 1)[0].lower()
        if keyword == "@relation":
            continue
        if keyword == "@data":
            in_data = True
            continue
        if keyword == "@attribute":
            match = _ARFF_ATTRIBUTE.match(line)
            kind = match.group(2).lower() if match else ""
            if match is None or not (kind.startswith("{") or kind in _ARFF_NUMERIC
                                     or kind == "string" or kind.startswith("date")):
                raise DataError(argument_message(
                    "@ATTRIBUTE", _where(path, number, "line"),
                    "'@ATTRIBUTE <name> <NUMERIC|REAL|INTEGER|STRING|DATE|{values}>'", raw_line))
            kind = "numeric" if kind in _ARFF_NUMERIC else "text"
            attributes.append((_unquote(match.group(1)) or "?", kind, number))
            continue
        raise DataError(argument_message(
            "header", _where(path, number, "line"),
            "'@RELATION', '@ATTRIBUTE', '@DATA' or a '%' comment", raw_line))
    if not in_data:
        raise DataError(argument_message(
            "path", owner, "an ARFF file with an '@DATA' section", source))

    names = [name for name, _, _ in attributes]
    lowered_names = [name.lower() for name in names]
    required = ("instance_id", "algorithm", "runstatus")
    if any(name not in lowered_names for name in required):
        raise DataError(argument_message(
            "attributes", source, "a list including 'instance_id', 'algorithm', 'runstatus' "
            "and a numeric performance attribute", names))
    instance_j = lowered_names.index("instance_id")
    algorithm_j = lowered_names.index("algorithm")
    status_j = lowered_names.index("runstatus")
    if performance is not None:
        if performance not in names or attributes[names.index(performance)][1] != "numeric":
            numeric = [name for name, kind, _ in attributes if kind == "numeric"]
            raise DataError(argument_message(
                "performance", owner, f"a numeric attribute of {source}, one of {numeric}",
                performance))
        performance_j = names.index(performance)
    else:
        performance_j = _performance_attribute(description, attributes, source)
    performance_name = names[performance_j]

    stated = description.cutoff if description is not None else None
    if stated is not None and description.measures and description.types \
            and performance_name in description.measures \
            and len(description.types) == len(description.measures) \
            and description.types[description.measures.index(performance_name)].lower() \
            != "runtime":
        stated = None  # a time limit, not a bound on a solution-quality measure named by hand
    if limit is None:
        limit = stated
    elif stated is not None and limit > stated:
        # runs stopped at the stated limit say nothing about the time between it and `cutoff`
        raise DataError(argument_message(
            "cutoff", owner, f"at most the scenario's algorithm_cutoff_time {stated!r} "
            f"({description.path}), since its runs were stopped there", cutoff,
            "A cutoff can be lowered to re-cap the runs, never raised."))

    n_attributes = len(attributes)
    n_runs = len(data)
    algorithm = np.empty(n_runs, dtype=object)
    instance = np.empty(n_runs, dtype=object)
    runtime = np.empty(n_runs)
    status = np.empty(n_runs, dtype=object)
    for k, (number, line) in enumerate(data):
        where = _where(path, number, "line")
        tokens = None if line.startswith("{") else _split_arff_row(line)
        if tokens is None or len(tokens) != n_attributes:
            raise DataError(argument_message(
                "@DATA", where, f"a row of {n_attributes} comma-separated values "
                "(sparse rows are not supported)", line))
        for j, column in ((instance_j, "instance_id"), (algorithm_j, "algorithm")):
            if not tokens[j]:
                raise DataError(argument_message(
                    column, where, "a non-empty name", "?" if tokens[j] is None else tokens[j]))
        value = (tokens[status_j] or "?").lower()
        if value not in _ASLIB_STATUS:
            raise DataError(argument_message(
                "runstatus", where, f"one of {', '.join(map(repr, _ASLIB_STATUS))}",
                "?" if tokens[status_j] is None else tokens[status_j]))
        run_status = _ASLIB_STATUS[value]
        recorded = tokens[performance_j]
        if recorded is None:
            recorded, seconds = "?", math.nan
        else:
            try:
                seconds = float(recorded)
            except ValueError:
                seconds = -1.0  # reported below with the original text
            if not (math.isfinite(seconds) and seconds >= 0):
                raise DataError(argument_message(
                    performance_name, where, "a finite non-negative number of seconds or '?'",
                    recorded))
        if run_status == "solved":
            if math.isnan(seconds):
                raise DataError(argument_message(
                    performance_name, where, "a number of seconds for an 'ok' run", recorded))
            if limit is not None and seconds >= limit:
                run_status, seconds = "timeout", limit
        elif limit is not None:
            seconds = limit if math.isnan(seconds) else min(seconds, limit)
        elif math.isnan(seconds):
            raise DataError(argument_message(
                performance_name, where, f"a number of seconds for a '{value}' run "
                "when no cutoff is known", recorded,
                "Pass cutoff= or put a description.txt with algorithm_cutoff_time "
                "next to the file."))
        algorithm[k] = tokens[algorithm_j]
        instance[k] = tokens[instance_j]
        runtime[k] = seconds
        status[k] = run_status
    return _long_frame(algorithm, instance, runtime, status,
                       None if limit is None else np.full(n_runs, limit))


# ---------------------------------------------------------------------------
# dispatch and validation

_READERS: dict[str, Callable[..., pd.DataFrame]] = {
    "satcomp": read_satcomp,
    "long": read_long,
    "aslib": read_aslib,
}


def _guess_format(path: Path) -> str:
    if path.suffix.lower() == ".arff":
        return "aslib"
    try:
        raw = pd.read_csv(path, header=None, dtype=str, na_filter=False, nrows=1,
                          encoding="utf-8")
    except (pd.errors.EmptyDataError, pd.errors.ParserError, UnicodeDecodeError, OSError):
        return "long"  # the long reader then reports the problem in full
    header = {str(name).strip() for name in raw.iloc[0]}
    return "satcomp" if {"hash", "filename"} & header else "long"


def read_runs(path: PathLike, *, format: str | None = None, **options: Any) -> pd.DataFrame:
    """Read runtime data in any supported format into the long table.

    Parameters
    ----------
    path : str or os.PathLike
        A file, or an ASlib scenario folder holding ``algorithm_runs.arff``.
    format : {"satcomp", "long", "aslib"}, optional, keyword-only
        Without it the format is guessed: ``.arff`` files (and scenario
        folders) are ASlib, CSV files whose header names ``hash`` or
        ``filename`` are SAT Competition tables, anything else is a long CSV.
    **options
        Keyword options of the chosen reader (``cutoff=`` for
        :func:`read_satcomp`, ``performance=``/``cutoff=`` for
        :func:`read_aslib`).

    Returns
    -------
    pandas.DataFrame
        The long table.

    Raises
    ------
    DataError
        If the path does not exist, the format is unknown, an option does not
        belong to the reader, or the reader rejects the file.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "wide.csv").write_text("hash,filename,kissat\\nab12,x.cnf,timeout\\n")
    >>> read_runs(folder / "wide.csv", cutoff=100)
      algorithm instance  runtime   status  cutoff
    0    kissat    x.cnf    100.0  timeout   100.0
    """
    if not (format is None or isinstance(format, str) and format in _READERS):
        raise DataError(argument_message(
            "format", "read_runs", f"one of {', '.join(map(repr, FORMATS))} or None", format))
    _check_path(path, "read_runs")
    location = Path(path)
    if location.is_dir() and (location / "algorithm_runs.arff").is_file():
        location = location / "algorithm_runs.arff"
    if not location.is_file():
        raise DataError(argument_message(
            "path", "read_runs", "an existing file (or an ASlib scenario folder)",
            os.fspath(path)))
    chosen = format if format is not None else _guess_format(location)
    reader = _READERS[chosen]
    accepted = [name for name, parameter in inspect.signature(reader).parameters.items()
                if parameter.kind is inspect.Parameter.KEYWORD_ONLY]
    for name in options:
        if name not in accepted:
            raise DataError(argument_message(
                "options", "read_runs", f"options of {reader.__name__} "
                f"({', '.join(accepted) if accepted else 'none'})", name))
    return reader(location, **options)


def validate_table(table: Any, *, name: str = "table") -> None:
    """Check that ``table`` is a valid long table; raise if not.

    Parameters
    ----------
    table : pandas.DataFrame
        Must have the columns ``algorithm``, ``instance`` (non-empty
        strings), ``runtime`` (finite non-negative numbers), ``status`` (one
        of :data:`STATUSES`) and may have ``cutoff`` (positive finite
        numbers, at least the runtime of every solved run). Other columns
        are allowed.
    name : str, keyword-only
        How to refer to the table in error messages.

    Raises
    ------
    DataError
        Naming the column, the row label and the first bad value.

    Examples
    --------
    >>> import pandas as pd
    >>> runs = pd.DataFrame({"algorithm": ["a"], "instance": ["i"],
    ...                      "runtime": [-1.0], "status": ["solved"]})
    >>> validate_table(runs)
    Traceback (most recent call last):
    ...
    maxent_util.errors.DataError: `runtime` of `table, row 0` must be a finite non-negative number of seconds; got -1.0.
    """
    if not isinstance(table, pd.DataFrame):
        raise DataError(argument_message(
            "table", "validate_table", "a pandas DataFrame", type(table).__name__))
    required = ("algorithm", "instance", "runtime", "status")
    if any(column not in table.columns for column in required):
        raise DataError(argument_message(
            "columns", name, "a list including 'algorithm', 'instance', 'runtime', 'status' "
            "(optional: 'cutoff')", list(table.columns)))
    for column in LONG_COLUMNS:
        if list(table.columns).count(column) > 1:
            raise DataError(argument_message(
                "columns", name, f"a list naming {column!r} once", list(table.columns)))

    def fail(column: str, position: int, requirement: str, remedy: str | None = None):
        label = _plain(table.index[position])
        value = _plain(table[column].iloc[position])
        if isinstance(value, int) and _beyond_float(value):  # its repr may run to pages
            value = f"an integer of about {int(value.bit_length() * math.log10(2)) + 1} digits"
        raise DataError(argument_message(
            column, f"{name}, row {label!r}", requirement, value, remedy))

    for column in ("algorithm", "instance"):
        values = table[column].to_numpy(dtype=object)
        ok = np.fromiter((isinstance(v, str) and v != "" for v in values), bool, len(values))
        bad = _first(~ok)
        if bad is not None:
            fail(column, bad, "a non-empty string")

    def numbers(column: str) -> np.ndarray:
        series = table[column]
        if pd.api.types.is_bool_dtype(series) or not pd.api.types.is_numeric_dtype(series):
            values = series.to_numpy(dtype=object)
            ok = np.fromiter((isinstance(v, (int, float, np.integer, np.floating))
                              and not isinstance(v, (bool, np.bool_)) for v in values),
                             bool, len(values))
            bad = _first(~ok)
            if bad is not None:
                fail(column, bad, "a number of seconds")
        try:
            return series.to_numpy(dtype=float)
        except OverflowError:  # a Python int beyond the float range, in an object column
            big = np.fromiter((_beyond_float(v) for v in series.to_numpy(dtype=object)),
                              bool, len(series))
            fail(column, int(np.flatnonzero(big)[0]), "a number within the float range "
                 "(at most about 1.8e308)")
            raise  # pragma: no cover - fail() raised

    runtime = numbers("runtime")
    bad = _first(~(np.isfinite(runtime) & (runtime >= 0)))
    if bad is not None:
        fail("runtime", bad, "a finite non-negative number of seconds")

    status = table["status"].to_numpy(dtype=object)
    bad = _first(~table["status"].isin(STATUSES).to_numpy())
    if bad is not None:
        fail("status", bad, f"one of {', '.join(map(repr, STATUSES))}")

    if "cutoff" in table.columns:
        cutoff = numbers("cutoff")
        bad = _first(~(np.isfinite(cutoff) & (cutoff > 0)))
        if bad is not None:
            fail("cutoff", bad, "a positive finite number of seconds")
        bad = _first((status == "solved") & (runtime > cutoff))
        if bad is not None:
            fail("runtime", bad, f"at most the cutoff {_plain(cutoff[bad])!r} for a solved run",
                 "Mark the run as 'timeout' or raise its cutoff.")
