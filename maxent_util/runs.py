"""The runs of one algorithm, and the long table of many, validated and laid out as arrays.

:func:`validate_runs` checks one algorithm's runtimes, ``solved`` flags,
statuses and cutoffs and says which runs are right-censored (capped);
:func:`long_table` checks a long runtime table (``algorithm``, ``instance``,
``runtime``, ``status``, optional ``cutoff``), applies the policies for
repeated runs (:data:`DUPLICATE_POLICIES`) and missing runs
(:data:`MISSING_POLICIES`), and groups the runs into (algorithm, instance)
cells for aggregation. Estimates (:mod:`maxent_util.estimate`) and rankings
(:mod:`maxent_util.ranking`) start from these.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np
import pandas as pd

from ._numbers import real  # noqa: F401  (read here by plots, bootstrap, estimate, racing)
from .errors import DataError, argument_message, short
from .io import FAILURE_STATUSES, LONG_COLUMNS, STATUSES
from .io.table import checked_table, is_one_of
from .io.table import plain as _plain

__all__ = [
    "cap_runs",
    "DUPLICATE_POLICIES",
    "MISSING_POLICIES",
]

# ---------------------------------------------------------------------------
# the runs of one algorithm


def _too_large(value: Any) -> str:
    """A short description of a number too large for a float (its repr may run to pages)."""
    if isinstance(value, int):
        return f"an integer of about {int(value.bit_length() * math.log10(2)) + 1} digits"
    return f"a number of type {type(value).__name__} beyond the float range"


def _runs_array(values: Any, arg: str, owner: str, n: int | None = None,
                dtype: Any = np.float64, *, scalar: bool = False) -> np.ndarray:
    if dtype is np.float64:
        _refuse_non_numbers(values, arg, owner)
    try:
        array = np.asarray(values, dtype=dtype)
    except OverflowError:
        # an int (or Decimal, Fraction) beyond 1.8e308: name the first such entry
        items = list(np.ravel(np.asarray(values, dtype=object)))
        for i, item in enumerate(items):
            try:
                float(item)
            except OverflowError:
                break
        else:  # pragma: no cover - numpy overflowed on something float() accepts
            i, item = 0, values
        name = f"{arg}[{i}]" if np.ndim(np.asarray(values, dtype=object)) else arg
        raise DataError(argument_message(
            name, owner, "a number within the float range (at most about 1.8e308)",
            _too_large(item))) from None
    except (TypeError, ValueError):
        raise DataError(argument_message(
            arg, owner, "a one-dimensional array of numbers", values)) from None
    if array.ndim != (0 if scalar else 1):
        raise DataError(argument_message(
            arg, owner, "a number" if scalar else "one-dimensional",
            f"an array of shape {array.shape}"))
    if n is not None and array.shape[0] != n:
        raise DataError(argument_message(
            arg, owner, f"of length {n} (one entry per runtime)", array.shape[0]))
    return array


def _refuse_non_numbers(values: Any, arg: str, owner: str) -> None:
    """numpy reads True as 1.0 and "1e3" as 1000.0: neither is a number of seconds given."""
    try:
        raw = np.asarray(values)
    except (TypeError, ValueError):
        return  # ragged: the float conversion names it
    if raw.dtype.kind in "bUSV":
        bad = raw.ravel()[0] if raw.size else values
    elif raw.dtype == object:
        bad = next((v for v in raw.ravel() if isinstance(v, (bool, np.bool_, str, bytes))), None)
        if bad is None:
            return
    else:
        return
    flat = list(raw.ravel()) if raw.ndim else [raw.item()]
    index = next((i for i, v in enumerate(flat) if v is bad or v == bad), 0)
    name = f"{arg}[{index}]" if raw.ndim else arg
    raise DataError(argument_message(name, owner, "a number (not True/False or text)", short(bad)))


def first_bad(mask: np.ndarray) -> int | None:
    hits = np.flatnonzero(mask)
    return int(hits[0]) if hits.size else None


@dataclass(frozen=True)
class Runs:
    """Validated runs of one algorithm: runtimes, what happened, and when each capped run stopped."""

    runtimes: np.ndarray
    solved: np.ndarray          # bool
    capped: np.ndarray          # bool: capped runs (right-censored, in survival terms)
    stop_times: np.ndarray      # for capped runs: the time known to be exceeded
    cutoffs: np.ndarray | None  # per run, as given


def validate_runs(runtimes: Any, *, solved: Any, cutoff: Any, status: Any,
                  failures_as_capped: bool, owner: str) -> Runs:
    """Check one algorithm's runs (``owner`` names the caller in errors) and find the capped ones."""
    times = _runs_array(runtimes, "runtimes", owner)
    n = times.shape[0]
    if n == 0:
        raise DataError(argument_message("runtimes", owner, "non-empty", "no runs"))
    bad = first_bad(~(np.isfinite(times) & (times >= 0)))
    if bad is not None:
        raise DataError(argument_message(
            f"runtimes[{bad}]", owner, "a finite nonnegative number of seconds",
            float(times[bad])))

    cutoffs = None
    if cutoff is not None:
        common = np.ndim(cutoff) == 0
        cutoffs = (np.full(n, _runs_array(cutoff, "cutoff", owner, scalar=True)) if common
                   else _runs_array(cutoff, "cutoff", owner, n))

        def cutoff_name(i: int) -> str:
            return "cutoff" if common else f"cutoff[{i}]"

        bad = first_bad(~(cutoffs > 0))  # NaN fails too
        if bad is not None:
            raise DataError(argument_message(
                cutoff_name(bad), owner, "a positive number of seconds", float(cutoffs[bad])))

    statuses = None
    if status is not None:
        statuses = _runs_array(status, "status", owner, n, dtype=object)
        known = np.isin(statuses, STATUSES)
        bad = first_bad(~known)
        if bad is not None:
            raise DataError(argument_message(
                f"status[{bad}]", owner, f"one of {', '.join(map(repr, STATUSES))}",
                statuses[bad]))
    solved_given = None
    if solved is not None:
        raw = _runs_array(solved, "solved", owner, n, dtype=object)
        bad = first_bad(~np.isin(raw, [True, False]))
        if bad is not None:
            raise DataError(argument_message(
                f"solved[{bad}]", owner, "True or False", raw[bad]))
        solved_given = raw.astype(bool)

    if statuses is not None:
        is_solved = statuses == "solved"
        if solved_given is not None:
            bad = first_bad(is_solved != solved_given)
            if bad is not None:
                raise DataError(argument_message(
                    f"solved[{bad}]", owner, f"consistent with status[{bad}] "
                    f"({statuses[bad]!r})", bool(solved_given[bad])))
        failed = np.isin(statuses, FAILURE_STATUSES)
    elif solved_given is not None:
        is_solved = solved_given
        failed = np.zeros(n, bool)
    elif cutoffs is not None:
        is_solved = times < cutoffs
        failed = np.zeros(n, bool)
    else:
        is_solved = np.ones(n, bool)
        failed = np.zeros(n, bool)

    if cutoffs is not None:
        bad = first_bad(is_solved & (times > cutoffs))
        if bad is not None:
            raise DataError(argument_message(
                cutoff_name(bad), owner, f"at least the runtime of solved run {bad} "
                f"({float(times[bad])!r})", float(cutoffs[bad]),
                "Mark the run as unsolved or raise its cutoff."))

    capped = ~is_solved & (~failed | failures_as_capped)
    # a capped run is known to take longer than the time it stopped
    stopped = times if cutoffs is None else np.minimum(times, cutoffs)
    return Runs(times, is_solved, capped, np.where(capped, stopped, np.nan), cutoffs)


# ---------------------------------------------------------------------------
# the long table of many algorithms

DUPLICATE_POLICIES: tuple[str, ...] = ("raise", "mean", "first")
"""Values of ``duplicates=`` in :func:`maxent_util.ranking.rank` and
:func:`maxent_util.ranking.cross_utility`."""

MISSING_POLICIES: tuple[str, ...] = ("raise", "unsolved")
"""Values of ``missing=`` in :func:`maxent_util.ranking.rank` and
:func:`maxent_util.ranking.cross_utility`."""

# How many duplicated pairs or missing runs an error message lists before "...".
_SHOWN = 5


@dataclass(frozen=True)
class Table:
    """A validated long table, laid out for aggregation.

    Runs are grouped into *cells*, one per (algorithm, instance) pair; cells
    are numbered in algorithm order, then in ``instances`` order, so an
    algorithm's cells are contiguous. Every algorithm has a cell on every
    instance (missing runs are refused or added), so the cells form an
    algorithms x instances grid.
    """

    names: np.ndarray           # algorithms, sorted
    instances: np.ndarray       # instances, in first-seen order
    cells: np.ndarray           # cell index per run
    cell_algorithm: np.ndarray  # algorithm index per cell
    runs_per_cell: np.ndarray
    cells_per_algorithm: np.ndarray
    runtimes: np.ndarray
    solved: np.ndarray
    capped: np.ndarray
    cutoffs: np.ndarray | None
    labels: pd.Index            # the caller's row label per run (None for an added run)
    ordered: bool = False       # runs in cell order, one per cell (cells is 0, 1, 2, ...)


def policy(value: Any, arg: str, owner: str, allowed: tuple[str, ...]) -> str:
    if not (isinstance(value, str) and value in allowed):
        raise DataError(argument_message(arg, owner, f"one of {', '.join(map(repr, allowed))}",
                                         value))
    return value


def shown_items(items: Sequence[Any]) -> str:
    """The first few items, as a message shows them (``'a', 'b', ...``)."""
    text = ", ".join(repr(item) for item in items[:_SHOWN])
    return text + (", ..." if len(items) > _SHOWN else "")


def refuse_duplicates(frame: pd.DataFrame, labels: pd.Index, owner: str) -> None:
    repeated = frame.duplicated(["algorithm", "instance"], keep=False).to_numpy()
    if not repeated.any():
        return
    first = int(np.flatnonzero(repeated)[0])
    pair = (frame["algorithm"].iat[first], frame["instance"].iat[first])
    same = np.flatnonzero(repeated & (frame["algorithm"].to_numpy() == pair[0])
                          & (frame["instance"].to_numpy() == pair[1]))
    n_pairs = int(frame[repeated].drop_duplicates(["algorithm", "instance"]).shape[0])
    rows = [_plain(labels[i]) for i in same]
    raise DataError(argument_message(
        "table", owner, "one run per (algorithm, instance) pair",
        f"{len(same)} runs of {pair!r} at rows {shown_items(rows)}"
        + (f" ({n_pairs} repeated pairs in all)" if n_pairs > 1 else ""),
        "Pass duplicates='mean' to average an algorithm's repeated runs on an instance, "
        "or duplicates='first' to keep the first of them (on the command line, "
        "--duplicates mean or --duplicates first)."))


def _missing_runs(frame: pd.DataFrame, owner: str, policy: str) -> pd.DataFrame:
    """The runs absent from the (algorithm x instance) grid, as capped runs at the cutoff."""
    algorithms = np.sort(frame["algorithm"].unique())
    instances = frame["instance"].unique()  # first-seen order, for the message
    present = pd.MultiIndex.from_frame(frame[["algorithm", "instance"]])
    grid = pd.MultiIndex.from_product([algorithms, instances], names=["algorithm", "instance"])
    absent = grid[~grid.isin(present)]
    if policy == "raise":
        algorithm = absent[0][0]
        lacking = [instance for a, instance in absent if a == algorithm]
        raise DataError(argument_message(
            "table", owner, "a run of every algorithm on every instance (the same instances "
            "for all algorithms)",
            f"no run of {algorithm!r} on {shown_items(lacking)}"
            + (f" ({len(absent)} missing runs in all)" if len(absent) > len(lacking) else ""),
            "Pass missing='unsolved' (on the command line, --missing unsolved) to count a "
            "missing run as a run capped at the cutoff."))
    if "cutoff" not in frame.columns:
        raise DataError(argument_message(
            "missing", owner, "'raise' for a table without a 'cutoff' column (a missing run "
            "counts as capped at its instance's cutoff)", policy))
    cutoffs = frame.groupby("instance", sort=False)["cutoff"].agg(["min", "max"])
    needed = cutoffs.loc[absent.get_level_values("instance").unique()]
    differ = needed.index[needed["min"] != needed["max"]]
    if len(differ):
        instance = differ[0]
        raise DataError(argument_message(
            "cutoff", f"{owner}, instance {instance!r}", "one value for all runs on an instance "
            "that some algorithm lacks (the cutoff a missing run is capped at)",
            sorted(map(float, frame.loc[frame["instance"] == instance, "cutoff"].unique()))))
    limit = needed.loc[absent.get_level_values("instance"), "min"].to_numpy(dtype=float)
    return pd.DataFrame({"algorithm": absent.get_level_values("algorithm"),
                         "instance": absent.get_level_values("instance"),
                         "runtime": limit, "status": "capped", "cutoff": limit})


def _long_columns(table: pd.DataFrame) -> pd.DataFrame:
    """The long table's columns of ``table`` on a fresh index, not a copy (a copy of 10^7 rows
    of strings costs seconds): what the policies for repeated and missing runs work on."""
    columns = [c for c in LONG_COLUMNS if c in table.columns]
    return pd.DataFrame({column: _values(table[column]) for column in columns},
                        index=pd.RangeIndex(len(table)), copy=False)


def _values(series: pd.Series) -> Any:
    """The column's own values, not a copy: its numpy array, or its extension array."""
    if isinstance(series.dtype, pd.api.extensions.ExtensionDtype):
        return series.array
    return series.to_numpy(copy=False)


class _Names:
    """A names column split into its distinct values: ``distinct`` (sorted for algorithms,
    in first-seen order for instances) and, per row, the index of its value there
    (``codes()``, made when asked). ``regular`` says the rows follow the common layout, so
    that no code is needed to find a run's cell: for algorithms, one run of equal length per
    name, in ``distinct`` order; for instances, every block of ``len(distinct)`` rows lists
    ``distinct`` in order."""

    def __init__(self, distinct: Any, codes: Any, regular: bool = False) -> None:
        self.distinct = distinct
        self._codes = codes
        self.regular = regular

    def codes(self) -> np.ndarray:
        if callable(self._codes):
            self._codes = self._codes()
        return self._codes


def _runs_of(values: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """The starts and lengths of the runs of equal neighbours in ``values``, when there are at
    most a quarter as many runs as values (each algorithm's rows together), else None."""
    if values.size < 2:
        return None
    starts = np.flatnonzero(np.concatenate(([True], values[1:] != values[:-1])))
    if starts.size * 4 > values.size:
        return None
    return starts, np.diff(np.append(starts, values.size))


def _algorithm_names(series: pd.Series) -> _Names:
    """The algorithm column sorted by name. Where each algorithm's rows come together, the
    first row of each run is factorised (found by comparing neighbours, not hashing every
    row); a categorical column is read through its codes, sorted by category name, not
    category order (unused categories dropped). The column is validated: no missing value."""
    categorical = isinstance(series.dtype, pd.CategoricalDtype)
    raw = series.cat.codes.to_numpy() if categorical else series.to_numpy()
    runs = _runs_of(raw) if categorical or raw.dtype == object else None
    if categorical:
        categories = series.cat.categories
        heads = raw if runs is None else raw[runs[0]]
        used = np.flatnonzero(np.bincount(heads, minlength=len(categories)))
        order = np.argsort(np.asarray(categories[used], dtype=object), kind="stable")
        rank = np.empty(len(categories), dtype=np.int64)
        rank[used[order]] = np.arange(used.size)
        distinct = categories[used[order]]
        if runs is None:
            return _Names(distinct, lambda: rank[raw])
        head_codes = rank[heads]
    elif runs is None:
        codes, distinct = pd.factorize(series, sort=True)
        return _Names(distinct, codes.astype(np.int64, copy=False))
    else:
        head_codes, distinct = pd.factorize(pd.Index(raw[runs[0]], dtype=object), sort=True)
        head_codes = head_codes.astype(np.int64, copy=False)
    lengths = runs[1]
    regular = bool(head_codes.size == len(distinct) and np.all(lengths == lengths[0])
                   and np.all(head_codes == np.arange(head_codes.size)))
    return _Names(distinct, lambda: np.repeat(head_codes, lengths), regular)


def _instance_names(series: pd.Series, repeats: int) -> _Names:
    """The instance column in first-seen order (``pandas.factorize``). A column that repeats
    its first ``1/repeats`` rows ``repeats`` times (every algorithm's runs listing the
    instances in one order) is factorised on those rows alone and compared with the rest,
    block against block (strings), or code against code (categorical): hashing 10^6 Python
    strings into a table of 10^5 costs ten times the comparisons."""
    n = len(series)
    categorical = isinstance(series.dtype, pd.CategoricalDtype)
    if (categorical or series.dtype == object) and repeats > 1 and n % repeats == 0:
        values = series.cat.codes.to_numpy() if categorical else series.to_numpy()
        block = n // repeats
        head = values[:block]
        if categorical and head.size == series.cat.categories.size and bool(
                np.all(head == np.arange(head.size))):
            distinct = head  # the categories in first-seen order, as read_long makes them
        else:
            distinct = pd.factorize(head)[1]
        if distinct.size == block and bool((values.reshape(repeats, block)[1:] == head).all()):
            # every row's instance is its position in its block
            names = (series.cat.categories if distinct is head else
                     series.cat.categories[distinct] if categorical
                     else pd.Index(distinct, dtype=object))
            return _Names(names, lambda: np.tile(np.arange(block, dtype=np.int64), repeats),
                          True)
    codes, distinct = pd.factorize(series)
    # one algorithm: regular when no instance repeats (then codes is 0, 1, 2, ...)
    return _Names(distinct, codes, repeats == 1 and len(distinct) == n)


def _cell_keys(algorithms: _Names, instances: _Names) -> np.ndarray:
    """Per run an integer naming its (algorithm, instance) pair."""
    return algorithms.codes() * len(instances.distinct) + instances.codes()


# A full grid is recognised by counting runs per cell (np.bincount) when the grid has at most
# this many cells per run (and a few over): memory in proportion to the runs, no sort.
_GRID_PER_RUN = 2


def _full_grid(keys: np.ndarray, n_cells: int) -> bool:
    """Whether every cell of the grid holds exactly one run (counted without sorting)."""
    if keys.size != n_cells or n_cells > _GRID_PER_RUN * keys.size + 1024:
        return False
    counts = np.bincount(keys, minlength=n_cells)
    return bool(counts.min() == 1 and counts.max() == 1)


def long_table(table: Any, owner: str, duplicates: str = "raise",
               missing: str = "raise") -> Table:
    duplicates = policy(duplicates, "duplicates", owner, DUPLICATE_POLICIES)
    missing = policy(missing, "missing", owner, MISSING_POLICIES)
    found: dict[str, _Names] = {}

    def factorise(column: str, series: pd.Series) -> _Names:
        if column == "algorithm":
            found[column] = _algorithm_names(series)
        else:  # as many blocks of instances as algorithms (a column checked already)
            if "algorithm" not in found:
                found["algorithm"] = _algorithm_names(table["algorithm"])
            found[column] = _instance_names(series, len(found["algorithm"].distinct))
        return found[column]

    # the names are split into their distinct values while they are checked: checking those
    # alone spares a pass over every row of a column of strings
    checked = checked_table(table, name="table", factorise=factorise)
    if len(table) == 0:
        raise DataError(argument_message("table", owner, "at least one run", "no rows"))
    labels = table.index  # converted to Python objects only for a message
    for column in ("algorithm", "instance"):
        if column not in found:
            factorise(column, table[column])
    algorithms, instances = found["algorithm"], found["instance"]
    names = algorithms.distinct
    n_instances = len(instances.distinct)
    runtimes, cutoffs = checked.runtime, checked.cutoff
    solved, capped = checked.solved, checked.capped
    cell_keys = None
    if algorithms.regular and instances.regular:
        # algorithm-major runs listing the instances in one order: run i is in cell i, one
        # run per cell, every cell (the common case: no key per run, no count)
        cells = np.arange(len(table))
        runs_per_cell = np.broadcast_to(np.int64(1), cells.shape)  # a view: no memory per run
        ordered = True
    else:
        keys = _cell_keys(algorithms, instances)
        if _full_grid(keys, len(names) * n_instances):
            cells = keys  # one run per cell, every cell: the cell of a run is its key
            runs_per_cell = np.broadcast_to(np.int64(1), keys.shape)
        else:
            frame = _long_columns(table)
            cell_keys, first_run, cells, runs_per_cell = np.unique(
                keys, return_index=True, return_inverse=True, return_counts=True)
            if runs_per_cell.max() > 1 and duplicates != "mean":
                if duplicates == "raise":
                    refuse_duplicates(frame, labels, owner)
                keep = first_run[cells.ravel()] == np.arange(len(frame))
                frame, labels = frame[keep].reset_index(drop=True), labels[keep]
                keys, cells = keys[keep], np.searchsorted(cell_keys, keys[keep])
                runs_per_cell = np.ones(cell_keys.size, dtype=np.int64)
                runtimes, solved, capped = runtimes[keep], solved[keep], capped[keep]
                cutoffs = None if cutoffs is None else cutoffs[keep]
            if cell_keys.size < len(names) * n_instances:
                added = _missing_runs(frame, owner, missing)
                frame = pd.concat([frame, added], ignore_index=True)
                labels = labels.astype(object).append(pd.Index([None] * len(added),
                                                               dtype=object))
                algorithms = _algorithm_names(frame["algorithm"])
                instances = _instance_names(frame["instance"], len(algorithms.distinct))
                names = algorithms.distinct
                n_instances = len(instances.distinct)
                keys = _cell_keys(algorithms, instances)
                cell_keys, cells, runs_per_cell = np.unique(keys, return_inverse=True,
                                                            return_counts=True)
                runtimes = frame["runtime"].to_numpy(dtype=float)
                cutoffs = frame["cutoff"].to_numpy(dtype=float)  # a missing run needs one
                solved = is_one_of(frame["status"], ("solved",))
                capped = is_one_of(frame["status"], ("capped",))
        cells = np.ravel(cells)
        ordered = None
    cell_algorithm = (np.repeat(np.arange(len(names), dtype=np.int32), n_instances)
                      if cell_keys is None else cell_keys // n_instances)
    if ordered is None:
        ordered = bool(cells.size == cell_algorithm.size
                       and (cells.size < 2 or bool(np.all(np.diff(cells) == 1)))
                       and cells[0] == 0)
    return Table(names=np.asarray(names, dtype=object),
                 instances=np.asarray(instances.distinct, dtype=object), cells=cells,
                 cell_algorithm=cell_algorithm, runs_per_cell=runs_per_cell,
                 cells_per_algorithm=np.bincount(cell_algorithm, minlength=len(names)),
                 runtimes=runtimes, solved=solved, capped=capped, cutoffs=cutoffs,
                 labels=labels, ordered=ordered)


def cap_runs(table: pd.DataFrame, cutoff: float, *, arg: str = "cutoff",
             owner: str = "cap_runs") -> pd.DataFrame:
    """The runs as if every one had been stopped at ``cutoff`` seconds.

    Parameters
    ----------
    table : pandas.DataFrame
        A long runtime table (``runtime``, ``status``, optional ``cutoff``).
    cutoff : float
        The new time limit in seconds; at most every run's own cutoff.
    arg, owner : str, keyword-only
        How error messages name the cutoff and the caller (the command line
        names its ``--cutoff`` flag).

    Returns
    -------
    pandas.DataFrame
        A copy: solved runs that took ``cutoff`` or longer become ``"capped"``
        (the SAT Competition's rule for a value at the time limit), their
        runtime and every longer runtime become ``cutoff``, failures stay
        failures, and the ``cutoff`` column is at most ``cutoff``.

    Raises
    ------
    DataError
        If ``cutoff`` is not a positive finite number, or a run was stopped
        before ``cutoff`` (its own cutoff, or a capped run's runtime where
        there is no cutoff column): a cutoff can re-cap runs at a lower time,
        never extend them.

    Examples
    --------
    >>> runs = pd.DataFrame({"algorithm": ["a", "a"], "instance": ["i", "j"],
    ...                      "runtime": [12.0, 700.0], "status": ["solved", "solved"],
    ...                      "cutoff": 1000.0})
    >>> cap_runs(runs, 600.0)[["runtime", "status", "cutoff"]]
       runtime  status  cutoff
    0     12.0  solved   600.0
    1    600.0  capped   600.0
    """
    number = real(cutoff)
    if not (math.isfinite(number) and number > 0):
        raise DataError(argument_message(arg, owner, "a positive finite number of seconds",
                                         short(cutoff)))
    cutoff = number
    if "cutoff" in table.columns:
        stated = table["cutoff"].to_numpy(dtype=float)
        earlier = stated < cutoff
        what = "its cutoff"
    else:
        stated = table["runtime"].to_numpy(dtype=float)
        earlier = (table["status"] == "capped").to_numpy() & (stated < cutoff)
        what = "the runtime of its capped run"
    if earlier.any():
        row = int(earlier.argmax())
        raise DataError(argument_message(
            arg, owner, f"at most {what} in row {table.index[row]!r} of the "
            f"runs ({float(stated[row])!r} s: the run was stopped there)", cutoff,
            "A cutoff can re-cap runs at a lower time, never extend them."))
    table = table.copy()
    if isinstance(table["status"].dtype, pd.CategoricalDtype):  # "capped" may be new to it
        table["status"] = table["status"].cat.add_categories(
            [s for s in ("capped",) if s not in table["status"].cat.categories])
    over = table["runtime"].to_numpy(dtype=float) >= cutoff
    solved = (table["status"] == "solved").to_numpy()
    table.loc[over & solved, "status"] = "capped"
    table.loc[over, "runtime"] = cutoff
    if "cutoff" in table.columns:
        table["cutoff"] = table["cutoff"].astype(float).clip(upper=cutoff)
    else:
        table["cutoff"] = cutoff
    return table
