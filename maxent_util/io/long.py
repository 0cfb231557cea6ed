"""The long runtime CSV: one row per run, in the columns of the long table."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..errors import DataError, argument_message
from .table import (LONG_COLUMNS, STATUSES, PathLike, _check_names, _first, _long_frame,
                    _missing_columns, _parse_numbers, _read_csv_cells, _where, plain)

__all__ = ["read_long"]


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
      algorithm instance  runtime  status  cutoff
    0    kissat    a.cnf     12.5  solved    60.0
    1    kissat    b.cnf     60.0  capped    60.0
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
        # files written before the vocabulary settled on "capped" say "timeout"
        status[status == "timeout"] = "capped"
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
                f"at most the cutoff {plain(cutoff[bad])!r} for a solved run", raw_runtime[bad],
                "Mark the run as 'capped' or raise its cutoff."))

    table = _long_frame(algorithm, instance, runtime, status, cutoff)
    for j, name in enumerate(header):
        if name not in LONG_COLUMNS:
            table[name] = pd.Series(body[:, j] if n_rows else [], dtype=str)
    return table
