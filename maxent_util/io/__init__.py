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

The readers live one format to a module: :mod:`~maxent_util.io.satcomp`
(the SAT Competition's published CSVs of 2020 to 2024),
:mod:`~maxent_util.io.long`, :mod:`~maxent_util.io.aslib` and
:mod:`~maxent_util.io.benchexec` (BenchExec result XML, as SV-COMP publishes
it); the schema, :func:`validate_table` and the helpers they share are in
:mod:`~maxent_util.io.table`, and :func:`read_runs` and the format guessing in
:mod:`~maxent_util.io.read`. This package re-exports the public names, loading
the readers (and pandas) when one is first asked for: a command that only
opens a small file through :mod:`~maxent_util.io.limits` starts without them.

Readers that see something the reader of the results should know (a cutoff
the file states, runs with a wrong or unverified answer) say so in the
table's ``attrs["notes"]``, a list of sentences; ``maxent-util rank`` prints
them on standard error.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the names, for the reader and the API pages; at run time __getattr__ loads them
    from .aslib import read_aslib
    from .benchexec import read_benchexec
    from .limits import ReadLimits, read_limits, set_read_limits
    from .long import read_long
    from .read import FORMATS, STREAM_FORMATS, guess_format, read_runs, sniff_format
    from .satcomp import read_satcomp
    from .table import FAILURE_STATUSES, LONG_COLUMNS, STATUSES, validate_table

__all__ = [
    "STATUSES",
    "FAILURE_STATUSES",
    "LONG_COLUMNS",
    "FORMATS",
    "STREAM_FORMATS",
    "read_satcomp",
    "read_long",
    "read_aslib",
    "read_benchexec",
    "read_runs",
    "guess_format",
    "sniff_format",
    "validate_table",
    "ReadLimits",
    "read_limits",
    "set_read_limits",
]


def __getattr__(name: str) -> Any:
    # the readers (and pandas) are loaded on first use: a command that only opens a small file
    # through maxent_util.io.limits (an answers file, a utility's JSON document) starts without them
    if name.startswith("__") or name == "read":  # (the submodule itself, while it is imported)
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    read = importlib.import_module(".read", __name__)
    try:
        return getattr(read, name)
    except AttributeError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None


def __dir__() -> list[str]:
    return sorted(__all__)
