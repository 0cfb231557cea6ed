"""Waiting times from a CSV file: one column of times, and optionally one of censoring flags."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..errors import DataError, argument_message, short
from ..io.limits import ReadLimits
from ..io.table import _first, _label, _read_csv_cells, _where, lowered

__all__ = ["read_waiting_times", "CENSORED_WORDS"]

#: how a censoring flag may be written in a file (case-insensitive): True means still waiting
CENSORED_WORDS: dict[str, bool] = {"1": True, "true": True, "yes": True,
                                   "0": False, "false": False, "no": False}


def read_waiting_times(path: Any, column: str, censored_column: str | None = None, *,
                       limits: ReadLimits | None = None) -> tuple[np.ndarray, np.ndarray | None]:
    """Waiting times (and censoring flags) from a CSV file, for :func:`fit_captime`.

    Parameters
    ----------
    path : str, os.PathLike or file object
        A CSV file with a header row (gzip, bzip2 and xz are unpacked), read within the
        library's read limits.
    column : str
        The column of waiting times, in seconds.
    censored_column : str, optional
        The column that says which records are right-censored (the person was still waiting
        when the answer came): ``1``, ``true``, ``yes`` or ``0``, ``false``, ``no``, in any case.
        None: every record is a captime.
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
        or a cell is not a finite nonnegative number of seconds or not a censoring flag (the
        message names the file, the row and the cell).
    """
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
                                         "a finite nonnegative number of seconds", short(raw[bad])))
    if censored_column is None:
        return times, None
    cells = body[:, header.index(censored_column)] if body.shape[0] else np.array([], dtype=object)
    words = lowered(cells)
    known = np.array([word in CENSORED_WORDS for word in words], dtype=bool)
    bad = _first(~known)
    if bad is not None:
        raise DataError(argument_message(censored_column, _where(path, bad + 1),
                                         "a censoring flag: 1, true, yes (still waiting) or 0, false, no",
                                         short(cells[bad])))
    return times, np.array([CENSORED_WORDS[word] for word in words], dtype=bool)


def _exact_numbers(cells: np.ndarray) -> np.ndarray:
    """Cells to the nearest doubles (NaN where a cell is not a number): the data's sha256 in a
    fitted law's provenance must be that of the numbers written, and pandas' to_numeric lands
    an ulp off for about one decimal in seven."""
    numbers = np.empty(cells.shape[0])
    for index, cell in enumerate(cells):
        try:
            numbers[index] = float(cell) if "_" not in cell else math.nan
        except ValueError:
            numbers[index] = math.nan
    return numbers


def _names(header: list[str], most: int = 10) -> str:
    """The first columns of a header, for a message (a file may have a thousand)."""
    shown = ", ".join(repr(short(name)) for name in header[:most])
    return shown + (f", ... {len(header) - most} more" if len(header) > most else "")
