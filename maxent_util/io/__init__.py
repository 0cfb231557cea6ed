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
    one of :data:`STATUSES`: ``"solved"``, ``"capped"`` (a capped,
    right-censored run), or a failure ``"memout"``, ``"crash"``,
    ``"unverified"`` (utility 0);
``cutoff`` (float, seconds, optional)
    the time limit the run was given.

Parsing uses pandas, but every value is checked here, so bad input raises
:class:`~maxent_util.errors.DataError` naming the file, the row (or line), the
column and the offending value rather than a pandas traceback. Rows of CSV
files are counted as *data rows*: 1-based, the header not counted, blank lines
skipped. ARFF files are parsed line by line, so their errors give the *line*.

The readers live one format to a module: :mod:`~maxent_util.io.satcomp`,
:mod:`~maxent_util.io.long` and :mod:`~maxent_util.io.aslib`; the schema,
:func:`validate_table` and the helpers they share are in
:mod:`~maxent_util.io.table`. This package holds :func:`read_runs` and the
format guessing, and re-exports the public names.
"""

from __future__ import annotations

import inspect
import os
from pathlib import Path
from typing import Any, Callable

import pandas as pd

from ..errors import DataError, argument_message
from .aslib import read_aslib
from .long import read_long
from .satcomp import read_satcomp
from .table import FAILURE_STATUSES, LONG_COLUMNS, STATUSES, PathLike, _check_path, validate_table

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

FORMATS: tuple[str, ...] = ("satcomp", "long", "aslib")
"""Formats understood by :func:`read_runs`."""

_READERS: dict[str, Callable[..., pd.DataFrame]] = {
    "satcomp": read_satcomp,
    "long": read_long,
    "aslib": read_aslib,
}


def guess_format(path: Path) -> str:
    """The format of a file, by the rule :func:`read_runs` documents (for an existing file)."""
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
      algorithm instance  runtime  status  cutoff
    0    kissat    x.cnf    100.0  capped   100.0
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
    chosen = format if format is not None else guess_format(location)
    reader = _READERS[chosen]
    accepted = [name for name, parameter in inspect.signature(reader).parameters.items()
                if parameter.kind is inspect.Parameter.KEYWORD_ONLY]
    for name in options:
        if name not in accepted:
            raise DataError(argument_message(
                "options", "read_runs", f"options of {reader.__name__} "
                f"({', '.join(accepted) if accepted else 'none'})", name))
    return reader(location, **options)

