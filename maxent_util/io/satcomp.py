"""The SAT Competition's wide results CSV: one row per instance, one column per solver."""

from __future__ import annotations

import os

import numpy as np
import pandas as pd

from ..errors import DataError, argument_message
from .table import (PathLike, _check_names, _check_time_option, _first, _long_frame,
                    _missing_columns, _parse_numbers, _read_csv_cells, _where)

__all__ = ["read_satcomp"]

_SATCOMP_META_COLUMNS = ("hash", "result", "filename")
_SATCOMP_STATUS_CELLS = ("timeout", "memout", "unverified")


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
    within the limit: it becomes ``"capped"`` with runtime ``cutoff``.
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
      algorithm instance  runtime  status  cutoff
    0    kissat    x.cnf     12.5  solved  5000.0
    1    kissat    y.cnf   5000.0  capped  5000.0
    2   cadical    x.cnf   5000.0  memout  5000.0
    3   cadical    y.cnf   5000.0  capped  5000.0
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
    status = np.where(solved, "solved", np.where(numeric | (lowered == "timeout"), "capped", lowered)).astype(object)

    # transpose so that rows run solver by solver
    n_solvers = len(solvers)
    return _long_frame(
        algorithm=np.repeat(np.array(solvers, dtype=object), n_rows),
        instance=np.tile(instances, n_solvers),
        runtime=runtime.T.ravel(),
        status=status.T.ravel(),
        cutoff=np.full(n_rows * n_solvers, limit),
    )
