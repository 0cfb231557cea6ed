"""The long table's schema, its validation, and the CSV-cell helpers the readers share.

The columns and statuses are described in :mod:`maxent_util.io`. The helpers
(reading a CSV as stripped cells, parsing numbers, checking names, building
the long frame) are used by :mod:`~maxent_util.io.satcomp`,
:mod:`~maxent_util.io.long` and :mod:`~maxent_util.io.aslib`.
"""

from __future__ import annotations

import csv
import io
import math
import os
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..errors import DataError, argument_message, short
from .limits import ReadLimits, _Source, open_bounded, over, read_limits, remedy, text_only

__all__ = [
    "STATUSES",
    "FAILURE_STATUSES",
    "LONG_COLUMNS",
    "validate_table",
]

STATUSES: tuple[str, ...] = ("solved", "capped", "memout", "crash", "unverified")
"""Allowed values of the ``status`` column."""

FAILURE_STATUSES: tuple[str, ...] = ("memout", "crash", "unverified")
"""Statuses of runs that failed outright (utility 0), as opposed to capped runs."""

LONG_COLUMNS: tuple[str, ...] = ("algorithm", "instance", "runtime", "status", "cutoff")
"""Columns of the long table, in order; ``cutoff`` is optional."""

PathLike = str | os.PathLike


def short_text(text: str, size: int = 200) -> str:
    """Text from a file as a message quotes it: at most ``size`` characters."""
    return text if len(text) <= size else text[:size - 3] + "..."


def plain(value: Any) -> Any:
    """numpy scalars as Python ones, so messages show 0.5 rather than np.float64(0.5)."""
    return value.item() if isinstance(value, np.generic) else value


def _beyond_float(value: Any) -> bool:
    try:
        float(value)
    except OverflowError:
        return True
    return False


class NamedBytes(io.BytesIO):
    """Bytes read from a stream (standard input), with the name messages give them."""

    def __init__(self, data: bytes, name: str) -> None:
        super().__init__(data)
        self.name = name


def _is_stream(source: Any) -> bool:
    """Whether ``source`` is an open file object (what ``-`` on the command line becomes)."""
    return callable(getattr(source, "read", None)) and not isinstance(source, (str, os.PathLike))


def _label(source: Any) -> str:
    """How messages name a file or stream: its path, or the stream's name (``<stdin>``)."""
    if _is_stream(source):
        name = getattr(source, "name", None)
        return name if isinstance(name, str) and name else "<stream>"
    return os.fspath(source)


def _where(path: PathLike, row: int, unit: str = "data row") -> str:
    return f"{_label(path)}, {unit} {row}"


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


def _check_source(source: Any, owner: str) -> str:
    """A path (as for :func:`_check_path`) or an open binary or text stream; its label."""
    if _is_stream(source):
        return _label(source)
    return _check_path(source, owner)


def _read_csv_cells(path: PathLike, owner: str, limits: ReadLimits | None = None
                    ) -> tuple[list[str], np.ndarray]:
    """Header and body of a CSV file (or open stream) as stripped strings (missing cells are '').

    Reading with ``header=None`` keeps duplicate column names visible (pandas
    would rename them to ``x.1``), and ``na_filter=False`` keeps instance names
    such as ``NA`` or ``null`` as text. The content is read through
    :func:`~maxent_util.io.limits.open_bounded` (gzip, bzip2, xz and a zip of one CSV
    unpacked), its
    header's columns counted before any row is parsed, and every cell's length checked.
    """
    label = _check_source(path, owner)
    chosen = read_limits(limits)
    handle = open_bounded(path, label, owner, chosen, zip_suffixes=(".csv",))
    try:
        first_line = handle.readline()
        columns = len(next(csv.reader([first_line.decode("utf-8", errors="replace")]), []))
        if columns > chosen.max_columns:
            raise over(label, owner, "max_columns", chosen.max_columns,
                       f"a CSV of at most {chosen.max_columns} columns; its header has {columns}")
        pending = [first_line]

        def again(size: int) -> bytes:
            return pending.pop() if pending else handle.read(size)

        whole = io.BufferedReader(_Source(again, text_only(label, owner), label, owner))
        raw = pd.read_csv(whole, header=None, dtype=str, na_filter=False, encoding="utf-8")
    except pd.errors.EmptyDataError:
        raise DataError(argument_message(
            "path", owner, "a CSV file with a header row", label,
            "The file is empty.")) from None
    except (pd.errors.ParserError, csv.Error) as exc:  # csv: a line break inside the header
        raise DataError(argument_message(
            "path", owner, "a well-formed CSV file", label,
            f"The CSV parser reported: {short_text(str(exc).strip())}")) from None
    except UnicodeDecodeError as exc:
        raise DataError(argument_message(
            "path", owner, "UTF-8 text", label,
            f"Byte {exc.start} cannot be decoded.")) from None
    except OSError as exc:
        raise DataError(argument_message(
            "path", owner, "an existing, readable file", label,
            f"The system reported: {exc.strerror or exc}.")) from None
    finally:
        handle.close()
    if raw.shape[1] > chosen.max_columns:  # a header broken over lines by a quote
        raise over(label, owner, "max_columns", chosen.max_columns,
                   f"a CSV of at most {chosen.max_columns} columns; it has {raw.shape[1]}")
    # column by column: np.char on the whole array would make every cell as wide as the widest
    stripped = {j: raw[j].str.strip() for j in raw.columns}
    for j, column in stripped.items():
        lengths = column.str.len().to_numpy()
        if lengths.size and lengths.max() > chosen.max_cell_chars:
            row = int(np.argmax(lengths > chosen.max_cell_chars))
            name = str(stripped[j].iloc[0]) if row else f"column {j + 1}"
            where = _where(path, row) if row else f"{label}, header"
            raise DataError(argument_message(
                short_text(name), where, f"at most {chosen.max_cell_chars} characters (the read "
                f"limit max_cell_chars={chosen.max_cell_chars})",
                short(column.iloc[row]), f"{remedy('max_cell_chars')}"))
    cells = pd.DataFrame(stripped).to_numpy(dtype=object)
    header = [str(name) for name in cells[0]]
    body = cells[1:]
    seen: set[str] = set()
    for name in header:
        if name in seen:
            raise DataError(argument_message(
                "header", label, "a row of distinct column names", short(header),
                f"The column {short(name)!r} appears more than once."))
        seen.add(name)
    return header, body


def lowered(cells: np.ndarray) -> np.ndarray:
    """Cells (an object array of str) in lower case, as an object array of the same shape
    (np.char would make every cell as wide as the widest)."""
    if cells.size == 0:
        return cells.astype(object)
    flat = pd.Series(cells.ravel(), dtype=object).str.lower()
    return np.array(flat.to_numpy(dtype=object), dtype=object).reshape(cells.shape)


def _missing_columns(path: PathLike, header: list[str], required: str) -> DataError:
    return DataError(argument_message(
        "header", _label(path), f"a row naming {required}", short(header)))


RESULTS_TABLE = ("a results table: a long table's columns 'algorithm', 'instance', 'runtime' "
                 "(optional: 'status', 'cutoff'), or a SAT Competition table's instance column "
                 "('cnf', 'filename' or 'hash') and one column of times per solver")
"""The columns a results table has, as the refusal of a file that is not one names them."""

# the first column of a table of one row per solver: runs (2020's par2scores.csv) or a
# summary (scores, as `maxent-util rank --csv` writes)
SOLVER_ROW_NAMES: tuple[str, ...] = ("solver", "solvers", "algorithm", "algorithms")


def solver_rows(header: list[str]) -> bool:
    """Whether a header is that of a table of one row per solver and one column per instance
    (2020's par2scores.csv: ``solver,<instance>,...``): its first column names the solvers, no
    other column is the long table's, and none is a ranking's (``maxent-util rank --csv``
    writes ``algorithm,<rule>,<rule> rank,...``: scores, not runs)."""
    names = [name.strip().lower() for name in header]
    return (len(names) > 1 and names[0] in SOLVER_ROW_NAMES
            and not set(names[1:]) & {"algorithm", "instance", "runtime", "status", "cutoff"}
            and not any(name.endswith(" rank") or name == "rank" for name in names[1:]))


def _is_number(cell: Any) -> bool:
    try:
        float(cell)
    except (TypeError, ValueError):
        return False
    return True


def not_runs(path: PathLike, header: list[str], body: np.ndarray, owner: str
             ) -> DataError | None:
    """The error for a table that holds no runs, by what it holds instead; None when it looks
    like a results table after all (its reader then names what is wrong with it).

    - a summary, one row per solver (a first column ``solver``, as in the SAT Competition
      2020's ``par2scores.csv``, or ``algorithm``, as ``maxent-util rank --csv`` writes) and
      numbers in the other columns: scores, not runs;
    - columns of numbers only (2023's ``results_special_detailed.csv``, whose solver columns
      have no instance column beside them): read as a SAT Competition table;
    - none of the long table's columns (``meta.csv``, ``bench_meta.csv``, a list of
      instances): not a results table.
    """
    label = _label(path)
    columns = f"its columns: {short(header)}"
    rows = body[:50]
    numbers = np.vectorize(_is_number, otypes=[bool])(rows) if rows.size else rows.astype(bool)
    if solver_rows(header):
        return DataError(argument_message(
            "path", owner, "a long table of runs", label,
            f"It has one row per solver and one column per instance ({columns}), as 2020's "
            "par2scores.csv: read it with --format satcomp (format='satcomp' in Python) and "
            "the cutoff."))
    if header and header[0].strip().lower() in SOLVER_ROW_NAMES and len(header) > 1 \
            and "instance" not in header and rows.size and numbers[:, 1:].all():
        return DataError(argument_message(
            "path", owner, "a table of runs", label,
            f"It is a summary ({columns}): one row per solver, named in its {header[0]!r} "
            "column, and a score in each other column, which holds no runs (a score does not "
            "say whether a run was solved, capped or failed). Read the runs the scores were "
            "made from, such as the track's detailed results CSV."))
    if rows.size and numbers.all() and not set(header) & {"algorithm", "instance", "runtime"}:
        return DataError(argument_message(
            "path", owner, RESULTS_TABLE, label,
            f"Its columns hold only numbers ({columns}), as a SAT Competition table without "
            "an instance column (2023's results_special_detailed.csv): read it with --format "
            "satcomp (format='satcomp' in Python)."))
    if set(header) & {"algorithm", "instance", "runtime"}:
        return None
    instance = next((name for name in ("cnf", "filename", "hash") if name in header), None)
    if instance is not None:
        return DataError(argument_message(
            "path", owner, RESULTS_TABLE, label,
            f"It names no long table's column but a SAT Competition table's instance column "
            f"{instance!r} ({columns}): read it with --format satcomp (format='satcomp' in "
            "Python)."))
    hint = ""
    if len(header) == 1 and any(mark in header[0] for mark in (" ", "\t", ";", "|")):
        hint = " Its header is one column: its fields are not separated by commas."
    return DataError(argument_message(
        "path", owner, RESULTS_TABLE, label,
        f"It is not a results table: none of these columns is there ({columns}).{hint}"))


def _parse_numbers(cells: np.ndarray) -> np.ndarray:
    """Cells to float, NaN where a cell is not a number.

    pandas decides which cells are numbers; their values are Python's, correctly rounded (as
    pyarrow's are): pandas' own parser is not, and read ``"0" * 20 + "1.5"`` as 0.0."""
    if cells.size == 0:
        return np.zeros(cells.shape)
    flat = cells.ravel()
    values = pd.to_numeric(pd.Series(flat, dtype=object), errors="coerce").to_numpy(dtype=float)
    numbers = ~np.isnan(values)
    if numbers.any():
        texts = np.asarray(flat[numbers], dtype=object)
        try:
            values[numbers] = texts.astype(float)
        except (ValueError, TypeError):  # a form pandas reads and Python does not: each on its own
            values[numbers] = [_python_float(text, value) for text, value in zip(texts, values[numbers])]
    return values.reshape(cells.shape)


def _python_float(text: Any, fallback: float) -> float:
    try:
        return float(text)
    except (ValueError, TypeError):
        return fallback


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



# Element types that pass as numbers of seconds in an object column (bools do not).
_NUMBER_KINDS = frozenset({"integer", "floating", "mixed-integer-float"})


def is_one_of(series: pd.Series, allowed: tuple[str, ...]) -> np.ndarray:
    """Per row, whether the value is one of ``allowed``; a categorical column is checked
    through its categories (one comparison per category, not per row)."""
    if isinstance(series.dtype, pd.CategoricalDtype):
        return _through_categories(series, series.cat.categories.isin(allowed))
    return series.isin(allowed).to_numpy(dtype=bool)


def _through_categories(series: pd.Series, hits: np.ndarray) -> np.ndarray:
    """Per row of a categorical column, ``hits`` of its category (False where missing): no
    gather over the rows when every category hits and no value is missing, the common case
    of a validated column, nor when one category hits (a comparison of the codes, a
    fraction of a gather of 10^7 codes)."""
    codes = series.cat.codes.to_numpy()
    if hits.all() and (codes.size == 0 or codes.min() >= 0):
        return np.ones(codes.size, dtype=bool)
    found = np.flatnonzero(hits)
    if found.size == 0:
        return np.zeros(codes.size, dtype=bool)
    if found.size == 1:  # a missing value's code, -1, is no category's
        return codes == found[0]
    return np.append(hits, False)[codes]  # code -1: missing


# The statuses of a run that is not solved.
_UNSOLVED = tuple(status for status in STATUSES if status != "solved")


def _statuses(series: pd.Series) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per row, whether the status is "solved", whether "capped", and whether it is one of
    :data:`STATUSES`. A column that is not categorical is looked up row by row once, for
    "solved"; the other statuses only on the rows that are not solved (most runs are)."""
    solved = is_one_of(series, ("solved",))
    if isinstance(series.dtype, pd.CategoricalDtype):  # through the categories: no lookup
        capped = is_one_of(series, ("capped",))
        return solved, capped, solved | capped | is_one_of(series, FAILURE_STATUSES)
    rest = np.flatnonzero(~solved)
    others = series.iloc[rest]
    capped = np.zeros(solved.size, dtype=bool)
    capped[rest] = is_one_of(others, ("capped",))
    known = solved.copy()
    known[rest] = is_one_of(others, _UNSOLVED)
    return solved, capped, known


def _all_str(series: pd.Series) -> bool:
    """Whether pandas infers every value of an object column to be a str (skipna=False: a
    missing value makes it "mixed")."""
    return series.dtype == object and pd.api.types.infer_dtype(series, skipna=False) == "string"


def _names_ok(series: pd.Series) -> np.ndarray:
    """Per row, whether the value is a non-empty str, without a Python loop over the rows
    where the column's type tells (categorical, string dtype, or an object column that pandas
    infers to hold only str); an object column of mixed types is checked value by value."""
    if isinstance(series.dtype, pd.CategoricalDtype):
        categories = series.cat.categories
        return _through_categories(series, _names_ok(pd.Series(categories,
                                                               dtype=categories.dtype)))
    if _all_str(series):
        # only "" can fail, and a str is true unless empty: numpy asks each for its truth (its
        # length), cheaper than a hash lookup per row
        return series.to_numpy(dtype=object).astype(bool)
    if isinstance(series.dtype, pd.StringDtype):
        return (series.notna() & (series != "")).to_numpy(dtype=bool)
    values = series.to_numpy(dtype=object)
    return np.fromiter((isinstance(v, str) and v != "" for v in values), bool, len(values))


def _first_bad_name(series: pd.Series, column: str, factorise: Any,
                    factorised: dict[str, Any]) -> int | None:
    """The position of the first row whose value is not a non-empty str, or None. A column
    of str that ``factorise`` splits into its distinct values is checked on those alone
    (every row equals one of them), and what ``factorise`` returned is kept in
    ``factorised``."""
    if factorise is not None and _all_str(series):
        names = factorise(column, series)
        if names is not None:
            factorised[column] = names
            # str, so only "" is false (iterating a pandas Index value by value is slower)
            empty = _first(~np.asarray(names.distinct, dtype=object).astype(bool))
            return None if empty is None else _first(names.codes() == empty)
    return _first(~_names_ok(series))


def _numbers_ok(series: pd.Series) -> np.ndarray:
    """Per row, whether a value of a non-numeric column is an int or float (not a bool);
    vectorised where pandas infers the column to hold only numbers."""
    if series.dtype == object and pd.api.types.infer_dtype(series, skipna=False) in _NUMBER_KINDS:
        return np.ones(len(series), dtype=bool)
    values = series.to_numpy(dtype=object)
    return np.fromiter((isinstance(v, (int, float, np.integer, np.floating))
                        and not isinstance(v, (bool, np.bool_)) for v in values),
                       bool, len(values))


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
    checked_table(table, name=name)


@dataclass(frozen=True)
class CheckedTable:
    """What validating a long table found on the way, for a caller that goes on to use it:
    the runtimes and cutoffs as float arrays, which runs are solved and which capped, and the
    names its ``factorise`` split."""

    runtime: np.ndarray
    cutoff: np.ndarray | None
    solved: np.ndarray
    capped: np.ndarray
    factorised: dict[str, Any]


def checked_table(table: Any, *, name: str = "table", factorise: Any = None) -> CheckedTable:
    """:func:`validate_table`, keeping what it computed.

    ``factorise(column, series)``, when given, is asked for the distinct values of the
    ``algorithm`` and ``instance`` columns that hold only str: an object with ``distinct``
    (every row's value equals one of them) and ``codes()`` (per row, the index of its value
    there), or None. Those columns are then checked for empty names on their distinct
    values, not row by row (a caller that factorises the names anyway saves a pass over
    10^7 strings), and the objects are kept in ``factorised``.
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
        label = plain(table.index[position])
        value = plain(table[column].iloc[position])
        if isinstance(value, int) and _beyond_float(value):  # its repr may run to pages
            value = f"an integer of about {int(value.bit_length() * math.log10(2)) + 1} digits"
        raise DataError(argument_message(
            column, f"{name}, row {label!r}", requirement, value, remedy))

    factorised: dict[str, Any] = {}
    for column in ("algorithm", "instance"):
        bad = _first_bad_name(table[column], column, factorise, factorised)
        if bad is not None:
            fail(column, bad, "a non-empty string")

    def numbers(column: str) -> np.ndarray:
        series = table[column]
        if pd.api.types.is_bool_dtype(series) or not pd.api.types.is_numeric_dtype(series):
            bad = _first(~_numbers_ok(series))
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

    solved, capped, known = _statuses(table["status"])
    bad = _first(~known)
    if bad is not None:
        fail("status", bad, f"one of {', '.join(map(repr, STATUSES))}")

    cutoff = None
    if "cutoff" in table.columns:
        cutoff = numbers("cutoff")
        bad = _first(~(np.isfinite(cutoff) & (cutoff > 0)))
        if bad is not None:
            fail("cutoff", bad, "a positive finite number of seconds")
        bad = _first(solved & (runtime > cutoff))
        if bad is not None:
            fail("runtime", bad, f"at most the cutoff {plain(cutoff[bad])!r} for a solved run",
                 "Mark the run as 'capped' or raise its cutoff.")
    return CheckedTable(runtime=runtime, cutoff=cutoff, solved=solved, capped=capped,
                        factorised=factorised)
