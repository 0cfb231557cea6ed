"""Waiting times from a CSV file: one column of times, and optionally one of censoring flags.

A time is a number of seconds (``1201``, ``12.5``) or a duration with units, as everywhere else a
duration stands (``1201s``, ``20 min``, ``1h30min``: :mod:`maxent_util.durations` reads them).
A censoring cell left empty is refused naming its row unless the caller says what an empty cell
means (``empty_flag``): logs written by hand or by a spreadsheet often leave the flag blank where
it is false, but a blank can as well be a record nobody filled in, and reading a person still
waiting as one who gave up shortens the fitted law.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..durations import DurationError, duration_seconds
from ..errors import DataError, argument_message, short
from ..io.limits import ReadLimits
from ..io.table import _first, _label, _read_csv_cells, _where, lowered

__all__ = ["read_waiting_times", "CENSORED_WORDS"]

#: how a censoring flag may be written in a file (case-insensitive): True means still waiting
CENSORED_WORDS: dict[str, bool] = {"1": True, "true": True, "yes": True,
                                   "0": False, "false": False, "no": False}


def read_waiting_times(path: Any, column: str, censored_column: str | None = None, *,
                       empty_flag: str | None = None, limits: ReadLimits | None = None
                       ) -> tuple[np.ndarray, np.ndarray | None]:
    """Waiting times (and censoring flags) from a CSV file, for :func:`fit_captime`.

    Parameters
    ----------
    path : str, os.PathLike or file object
        A CSV file with a header row (gzip, bzip2 and xz are unpacked), read within the
        library's read limits.
    column : str
        The column of waiting times: numbers of seconds, or durations with units (``1201s``,
        ``20 min``, ``1h30min``).
    censored_column : str, optional
        The column that says which records are right-censored (the person was still waiting
        when the answer came): ``1``, ``true``, ``yes`` or ``0``, ``false``, ``no``, in any case.
        None: every record is a captime.
    empty_flag : str, optional, keyword-only
        How an empty censoring cell is read: one of the flags above (``"no"``: the person gave
        up, as in a log that marks only the records still waiting). None: an empty cell is
        refused, naming its row.
    limits : ReadLimits, optional
        Read limits for this call (see :func:`maxent_util.io.set_read_limits`).

    Returns
    -------
    (numpy.ndarray, numpy.ndarray or None)
        The times as floats, and the flags as booleans (None without ``censored_column``).

    Raises
    ------
    DataError
        If the file cannot be read as CSV within the limits, a column is not in its header,
        or a cell is not a finite nonnegative duration or not a censoring flag (the message
        names the file, the row and the cell); or ``column``, ``censored_column`` or
        ``empty_flag`` is not one of the values described.

    Examples
    --------
    >>> import io
    >>> log = io.StringIO("waited,still_waiting\\n12.5,no\\n20 min,yes\\n1h30min,\\n")
    >>> times, censored = read_waiting_times(log, "waited", "still_waiting", empty_flag="no")
    >>> times.tolist(), censored.tolist()
    ([12.5, 1200.0, 5400.0], [False, True, False])
    """
    for arg, name, optional in (("column", column, False), ("censored_column", censored_column, True)):
        if not (isinstance(name, str) or (optional and name is None)):
            raise DataError(argument_message(arg, "read_waiting_times",
                                             "a column name (str)" + (" or None" if optional else ""),
                                             short(name)))
    if not (empty_flag is None or (isinstance(empty_flag, str) and empty_flag.lower() in CENSORED_WORDS)):
        raise DataError(argument_message("empty_flag", "read_waiting_times",
                                         f"None or a censoring flag ({', '.join(CENSORED_WORDS)})",
                                         short(empty_flag)))
    header, body = _read_csv_cells(path, "read_waiting_times", limits)
    label = _label(path)
    for arg, name in (("column", column), ("censored_column", censored_column)):
        if name is not None and name not in header:
            raise DataError(argument_message(arg, "read_waiting_times",
                                             f"a column of {label} ({_names(header)})",
                                             short(name)))
    raw = body[:, header.index(column)] if body.shape[0] else np.array([], dtype=object)
    times = _exact_numbers(raw)
    bad = _first(~(np.isfinite(times) & (times >= 0)))
    if bad is not None:
        raise DataError(argument_message(column, _where(path, bad + 1),
                                         "a finite nonnegative number of seconds or a duration with "
                                         "units (such as 1201, 1201s, 20 min)", short(raw[bad])))
    if censored_column is None:
        return times, None
    cells = body[:, header.index(censored_column)] if body.shape[0] else np.array([], dtype=object)
    words = np.array([word.strip() for word in lowered(cells)], dtype=object)
    if empty_flag is not None:
        words[words == ""] = empty_flag.lower()
    known = np.array([word in CENSORED_WORDS for word in words], dtype=bool)
    bad = _first(~known)
    if bad is not None:
        hint = ("An empty cell is read only where empty_flag (--empty-flag on the command line) says "
                "what it means, such as 'no' for a log that marks only the people still waiting."
                if words[bad] == "" else None)
        raise DataError(argument_message(censored_column, _where(path, bad + 1),
                                         "a censoring flag: 1, true, yes (still waiting) or 0, false, no",
                                         short(cells[bad]), hint))
    return times, np.array([CENSORED_WORDS[word] for word in words], dtype=bool)


def _exact_numbers(cells: np.ndarray) -> np.ndarray:
    """Cells to the nearest doubles (NaN where a cell is not a duration): the data's sha256 in a
    fitted law's provenance must be that of the numbers written, and pandas' to_numeric lands
    an ulp off for about one decimal in seven. A bare number is read by float() (its exponent
    unbounded, as before); anything else by the duration reader, which reads units and refuses
    what float() would take but a person did not write as a number: full-width digits, a NUL."""
    numbers = np.empty(cells.shape[0])
    for index, cell in enumerate(cells):
        numbers[index] = math.nan
        if cell.isascii() and "_" not in cell:
            try:
                numbers[index] = float(cell)
                continue
            except ValueError:
                pass
        try:
            numbers[index] = duration_seconds(cell)
        except (DurationError, OverflowError):
            pass
    return numbers


def _names(header: list[str], most: int = 10) -> str:
    """The first columns of a header, for a message (a file may have a thousand)."""
    shown = ", ".join(repr(short(name)) for name in header[:most])
    return shown + (f", ... {len(header) - most} more" if len(header) > most else "")
