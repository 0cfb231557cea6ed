"""Rankings: rank, cross_utility, per_instance, rank_stability (and the classic rules PAR and
Solved and parse_rule, defined in :mod:`maxent_util.rules`, under their old address).

A *rule* scores an algorithm from its runs: a utility (its mean over the
runs, :mod:`maxent_util.estimate`), or a classic rule, :class:`PAR` or
:class:`Solved`, which gives each run a value (``per_run``), says whether
``higher_is_better`` and has a ``name``. :func:`rank` scores and ranks the
algorithms of a long runtime table (:mod:`maxent_util.runs`) under several
rules; :func:`cross_utility` reports what picking the best algorithm under
one rule earns under the others (the paper's Figure 2).

How sure a ranking is: :func:`per_instance` gives one rule's value of every
algorithm on every instance (the values :func:`rank` averages), ``rank(...,
ci=0.95)`` adds paired bootstrap intervals of the scores, and
:func:`rank_stability` the probability of each rank
(:mod:`maxent_util.bootstrap`); :mod:`maxent_util.comparison` compares two
algorithms, or all pairs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping, Sequence

import numpy as np
import pandas as pd
import sympy

from . import _dask
from .bootstrap import (check_level, check_resamples, generator, interval_from, rank_counts,
                        resampled_means)
from .errors import DataError, UtilityError, argument_message
from .estimate import evaluate_rule
from .io import LONG_COLUMNS, validate_table
from .io.table import is_one_of
from .io.table import plain as _plain
from .rules import PAR, Solved, parse_rule  # noqa: F401  (parse_rule: its old address)
from .runs import (DUPLICATE_POLICIES, MISSING_POLICIES, Table, first_bad, long_table, policy,
                   refuse_duplicates, shown_items)
from .utility.core import fixed_scorer

__all__ = [
    "rank",
    "tidy_ranking",
    "cross_utility",
    "per_instance",
    "rank_stability",
]

# ---------------------------------------------------------------------------
# rankings


def _rules(utilities: Any, owner: str) -> list[tuple[str, Any]]:
    if isinstance(utilities, Mapping):
        items = list(utilities.items())
    elif isinstance(utilities, Iterable) and not isinstance(utilities, (str, sympy.Basic)):
        items = [(getattr(rule, "name", None) or str(getattr(rule, "expr", rule)), rule)
                 for rule in utilities]
    else:
        raise UtilityError(argument_message(
            "utilities", owner, "a mapping from names to utilities or rules", utilities))
    if not items:
        raise UtilityError(argument_message("utilities", owner, "non-empty", utilities))
    rules = []
    for name, rule in items:
        if not isinstance(rule, (PAR, Solved)):
            try:
                rule = fixed_scorer(rule, owner)
            except UtilityError as error:
                raise UtilityError(f"{error} (rule {name!r})") from None
        rules.append((str(name), rule))
    names = [name for name, _ in rules]
    for name in names:
        if names.count(name) > 1:
            raise UtilityError(argument_message(
                "utilities", owner, "named uniquely", name))
    return rules


def _one_rule(rule: Any, owner: str) -> tuple[str, Any]:
    """A single rule (a one-entry mapping names it), validated as by :func:`rank`."""
    if isinstance(rule, Mapping):
        if len(rule) != 1:
            raise UtilityError(argument_message(
                "rule", owner, "one rule (or a mapping from one name to it)",
                f"a mapping of {len(rule)} rules"))
        return _rules(rule, owner)[0]
    return _rules([rule], owner)[0]


def _result_columns(rules: list[tuple[str, Any]], bounds: bool, owner: str,
                    ci: bool = False) -> None:
    """Refuse rule names whose columns would collide (``"a"`` next to ``"a rank"``)."""
    suffixes = (("", " rank") + ((" lower", " upper") if bounds else ())
                + ((" ci low", " ci high") if ci else ()))
    taken = {"algorithm": "the index"}
    for name, _ in rules:
        for suffix in suffixes:
            column = name + suffix
            if column in taken:
                raise UtilityError(argument_message(
                    "utilities", owner, "named so that no two columns of the result share a "
                    f"name (rule {name!r} makes the column {column!r}, as does "
                    f"{taken[column]})", name, "Rename one of the rules."))
            taken[column] = f"rule {name!r}"


def _cell_values(runs: Table, values: np.ndarray) -> np.ndarray:
    """Per (algorithm, instance) cell: the mean of its runs' values (cells in the table's order,
    an algorithms x instances grid when reshaped)."""
    if runs.ordered:  # one run per cell, in cell order: the values are the cells' already
        return values
    if runs.cells.size == runs.runs_per_cell.size:  # one run per cell: nothing to average
        cell_values = np.empty(runs.cells.size)
        cell_values[runs.cells] = values
        return cell_values
    grouped = np.lexsort((values, runs.cells))
    starts = np.concatenate([[0], np.cumsum(runs.runs_per_cell)[:-1]])
    return np.add.reduceat(values[grouped], starts) / runs.runs_per_cell


def sorted_sums(cell_values: np.ndarray, n_algorithms: int, in_place: bool = False
                ) -> np.ndarray:
    """Per algorithm, the sum of its cells' values (an algorithms x instances grid, algorithm
    by algorithm) added in sorted order, so that equal multisets of values give bit-identical
    sums whatever their order (the sums :func:`~maxent_util.sweeps.sweep` makes too). With
    ``in_place``, each algorithm's row of ``cell_values`` is sorted where it is (no copy of
    the grid)."""
    grid = cell_values.reshape(n_algorithms, -1)
    if _exact_in_any_order(cell_values):  # counts of solved runs, say: no sort needed
        return grid.sum(axis=1)
    if in_place:
        grid.sort(axis=1)
        return grid.sum(axis=1)
    return np.sort(grid, axis=1).sum(axis=1)


def _exact_in_any_order(values: np.ndarray) -> bool:
    """Whether every partial sum of ``values`` is an exactly represented integer (integer
    values whose absolute total stays below 2**53), so that the order of adding cannot matter."""
    if not values.size:
        return True
    head = values[:1024]  # a fraction among the first values settles it without a full pass
    if not np.all(head == np.trunc(head)):
        return False
    # block by block: no temporary the size of the values. A sum of integers is exact while it
    # stays below 2**53 and rounds to at least 2**53 beyond, in any order: the same answer
    total = 0.0
    for start in range(0, values.size, _BLOCK):
        block = values[start:start + _BLOCK]
        if not np.all(block == np.trunc(block)):
            return False
        total += float(np.abs(block).sum())
    return total < 2.0 ** 53


# Values checked at a time by _exact_in_any_order (8 MB of float64).
_BLOCK = 1 << 20


def _aggregate(runs: Table, values: np.ndarray, aggregate: str,
               cell_values: np.ndarray | None = None, in_place: bool = False) -> np.ndarray:
    """Per algorithm: mean of the runs in each cell, then mean (or sum) over its cells.

    Summing in sorted order makes equal multisets of runs give bit-identical
    scores, so exact ties do not depend on row order. With ``in_place`` the cells' values
    may be reordered (the caller needs them no more).
    """
    if cell_values is None:
        cell_values = _cell_values(runs, values)
    sums = sorted_sums(cell_values, runs.names.size, in_place)
    return sums if aggregate == "sum" else sums / runs.cells_per_algorithm


def _row_of(runs: Table, mask: np.ndarray) -> str:
    index = int(np.flatnonzero(mask)[0])
    label = runs.labels[index]
    return "an added missing run" if label is None else f"row {_plain(label)!r}"


class _Times:
    """The times a table's utilities are checked at, found once for all its rules: the runtimes
    of solved runs and the times capped runs stopped, distinct and sorted."""

    def __init__(self, runs: Table) -> None:
        self.runs = runs
        self.solved = runs.runtimes[runs.solved]
        capped = runs.runtimes[runs.capped]
        # only capped runs have a stopping time: no array over every run
        self.stopped = capped if runs.cutoffs is None else np.minimum(
            capped, runs.cutoffs[runs.capped])
        self._distinct: np.ndarray | None = None

    @property
    def distinct(self) -> np.ndarray:
        if self._distinct is None:
            # np.unique, sorting its own array in place (np.unique sorts a copy of it)
            times = np.concatenate([self.solved, self.stopped])
            times.sort()
            keep = np.empty(times.size, dtype=bool)
            keep[:1] = True
            np.not_equal(times[1:], times[:-1], out=keep[1:])
            self._distinct = times[keep]
        return self._distinct

    def row_of(self, value: float) -> str:
        """The first run whose time is ``value`` (solved there, or capped and stopped there),
        as a message names it."""
        runs = self.runs
        at = runs.solved & (runs.runtimes == value)
        at[np.flatnonzero(runs.capped)[self.stopped == value]] = True
        return _row_of(runs, at)


def _utility_values(runs: Table, name: str, u: Callable[[Any], Any], owner: str,
                    times: _Times | None = None, upper: bool = True
                    ) -> tuple[np.ndarray, np.ndarray | None]:
    """Per run: u at a solved runtime (else 0), and (with ``upper``) u where a capped run
    stopped (else as before).

    ``u`` is evaluated on the distinct times, which checks that it is a utility
    there: a number in [0, 1], non-increasing in t; then on the runs themselves.
    """
    times = _Times(runs) if times is None else times
    distinct = times.distinct
    at = evaluate_rule(u, distinct, owner, f"rule {name!r}: ")
    where = times.row_of

    tolerance = 1e-12
    bad = first_bad(~((at >= -tolerance) & (at <= 1.0 + tolerance)))  # NaN fails too
    if bad is not None:
        raise UtilityError(argument_message(
            "utility", owner, "a number between 0 and 1 on every run", float(at[bad]),
            f"(rule {name!r}: u({float(distinct[bad])!r}) at {where(distinct[bad])}) "
            "Rescale the utility to [0, 1]."))
    bad = first_bad(np.diff(at) > tolerance)
    if bad is not None:
        raise UtilityError(argument_message(
            "utility", owner, "non-increasing in t on the runs",
            f"u({float(distinct[bad])!r}) = {float(at[bad])!r} < "
            f"u({float(distinct[bad + 1])!r}) = {float(at[bad + 1])!r}",
            f"(rule {name!r}, at {where(distinct[bad])} and {where(distinct[bad + 1])}) "
            "A utility rewards shorter runs at least as much as longer ones."))
    del at
    # then on the runs themselves: cheaper than looking each run's time up among the distinct
    # ones (a random search per run), and the same time gives the same value
    context = f"rule {name!r}: "
    lower = np.zeros(runs.runtimes.shape)
    lower[runs.solved] = evaluate_rule(u, times.solved, owner, context)
    if not upper:
        return lower, None
    upper_values = lower.copy()
    upper_values[runs.capped] = evaluate_rule(u, times.stopped, owner, context)
    return lower, upper_values


def _run_values(runs: Table, name: str, rule: Any, owner: str, times: _Times | None = None,
                upper: bool = True) -> tuple[np.ndarray, np.ndarray | None, str, bool]:
    """Per run: the rule's value and (with ``upper``) its value with capped runs at u(cutoff)
    (the same for classic rules); how scores aggregate the instances ("sum" for Solved, else
    "mean"); and whether higher is better."""
    if isinstance(rule, (PAR, Solved)):
        cutoffs = runs.cutoffs
        if cutoffs is None and isinstance(rule, PAR) and rule.cutoff is not None:
            cutoffs = np.full(runs.runtimes.shape, float(rule.cutoff))
        values = rule.per_run(runs.runtimes, runs.solved, cutoffs)
        return values, values, "sum" if isinstance(rule, Solved) else "mean", \
            rule.higher_is_better
    values, upper_values = _utility_values(runs, name, rule, owner, times, upper)
    return values, upper_values, "mean", True


def _score_matrix(runs: Table, rules: list[tuple[str, Any]], bounds: bool, owner: str,
                  cells: bool = False
                  ) -> dict[str, tuple[np.ndarray, np.ndarray | None, np.ndarray | None, bool,
                                       np.ndarray | None]]:
    """Per rule: scores, lower and upper (with ``bounds``), whether higher is better, and
    (with ``cells``) the instances x algorithms matrix of per-instance values."""
    results = {}
    times: _Times | None = _Times(runs)
    utilities = [index for index, (_, rule) in enumerate(rules)
                 if not isinstance(rule, (PAR, Solved))]
    for index, (name, rule) in enumerate(rules):
        values, upper_values, aggregate, higher = _run_values(runs, name, rule, owner, times,
                                                              upper=bounds)
        if not utilities or index >= utilities[-1]:
            times = None  # no utility left to check: its arrays are freed
        cell_values = _cell_values(runs, values)
        matrix = _instance_matrix(runs, cell_values) if cells else None
        classic = upper_values is values
        # the rule's own arrays, not the table's: sorted where they are (no copy) unless the
        # matrix is kept
        scores = _aggregate(runs, values, aggregate, cell_values, in_place=not cells)
        del values, cell_values
        lower = scores if bounds else None
        upper = None
        if bounds:
            upper = scores if classic else _aggregate(runs, upper_values, "mean",
                                                      in_place=True)
        bad = first_bad(~np.isfinite(scores))
        if bad is not None:
            raise UtilityError(argument_message(
                "utilities", owner, "rules giving every algorithm a finite score",
                float(scores[bad]), f"(rule {name!r}, algorithm {runs.names[bad]!r})"))
        results[name] = (scores, lower, upper, higher, matrix)
    return results


def _instance_matrix(runs: Table, cell_values: np.ndarray) -> np.ndarray:
    """The cells as an instances x algorithms matrix (the grid is full: long_table sees to it)."""
    return cell_values.reshape(runs.names.size, runs.instances.size).T


@dataclass(frozen=True)
class InstanceValues:
    """One rule's value of every algorithm on every instance of a validated long table.

    ``values[i, j]`` is the value on ``instances[i]`` of ``algorithms[j]``:
    the mean over its runs there of the rule's per-run value (a utility with
    capped runs counting 0, a penalised runtime, 1 or 0 for solved). An
    algorithm's score under the rule is the mean of its column, or its sum
    when ``total`` (Solved counts instances).
    """

    name: str
    values: np.ndarray
    algorithms: np.ndarray
    instances: np.ndarray
    higher_is_better: bool
    total: bool

    def scores(self, values: np.ndarray | None = None) -> np.ndarray:
        """Scores from column means of ``values`` (default: the observed ones)."""
        means = (self.values if values is None else values).mean(axis=0)
        return means * self.instances.size if self.total else means

    def frame(self) -> pd.DataFrame:
        return pd.DataFrame(self.values, index=pd.Index(self.instances, name="instance"),
                            columns=pd.Index(self.algorithms, name="algorithm"))


def instance_values(table: pd.DataFrame, rule: Any, owner: str, duplicates: str = "raise",
                    missing: str = "raise") -> InstanceValues:
    """The one route from a table and a rule to per-instance values (see :func:`per_instance`)."""
    runs = long_table(table, owner, duplicates, missing)
    name, checked = _one_rule(rule, owner)
    _, _, _, higher, matrix = _score_matrix(runs, [(name, checked)], False, owner,
                                            cells=True)[name]
    return InstanceValues(name=name, values=matrix, algorithms=runs.names,  # type: ignore[arg-type]
                          instances=runs.instances, higher_is_better=higher,
                          total=isinstance(checked, Solved))


def min_ranks(scores: np.ndarray, higher_is_better: bool) -> np.ndarray:
    """1 + the number of strictly better scores (ties share the best rank, pandas' "min")."""
    key = -scores if higher_is_better else scores
    return np.searchsorted(np.sort(key), key, side="left") + 1


def rank(table: pd.DataFrame, utilities: Mapping[str, Any] | Sequence[Any], *,
         bounds: bool = False, duplicates: str = "raise", missing: str = "raise",
         ci: float | None = None, resamples: int = 10_000, seed: Any = None
         ) -> pd.DataFrame:
    """Score and rank algorithms under several utilities or classic rules.

    Parameters
    ----------
    table : pandas.DataFrame, dask.dataframe.DataFrame or path
        The long runtime table (``algorithm``, ``instance``, ``runtime``,
        ``status``, optional ``cutoff``): by default exactly one run of every
        algorithm on every instance. A Dask DataFrame, or the path of a
        Parquet file or folder of Parquet files (read lazily), is scored
        partition by partition on the current Dask scheduler (the ``dask``
        extra): each partition is validated and scored by the same code,
        and only per-algorithm sums and counts leave it; the scores equal
        the pandas route's to rounding (about 1e-15 relative; the sums are
        not in sorted order, so exact ties can split by the last bit). A
        grid with repeated or missing runs is refused naming them, and so
        is a ``duplicates`` or ``missing`` policy that would have to act on
        them, and ``ci`` (both need the runs in memory).
    utilities : mapping of str to Utility, sympy.Expr, PAR or Solved
        Display name to rule (a sequence uses each rule's own name). Utilities
        must have no free parameters, and on the table's runtimes take values
        in ``[0, 1]`` and not increase with the runtime.
    bounds : bool, keyword-only
        Also report, for utilities, the score with capped runs counting
        :math:`u(\\text{cutoff})` (``"{name} upper"``) next to the score with
        capped runs counting 0 (``"{name} lower"``). Classic rules have no
        uncertainty: their lower and upper equal the score.
    duplicates : {"raise", "mean", "first"}, keyword-only
        What to do with several runs of one algorithm on one instance
        (repetitions): refuse them (default), average each rule's value over
        them (the instance then counts once), or keep the first in table
        order.
    missing : {"raise", "unsolved"}, keyword-only
        What to do when algorithms were not all run on the same instances:
        refuse (default), or count each missing run as a run capped at its
        instance's cutoff (status ``"capped"``, runtime the cutoff; needs a
        ``cutoff`` column, one value per such instance).
    ci : float or None, keyword-only
        A confidence level such as 0.95: also report a paired bootstrap
        percentile interval of every score (``"{name} ci low"``,
        ``"{name} ci high"``), resampling instances with replacement
        (:mod:`maxent_util.bootstrap`). Every rule sees the same resamples.
        For Solved the interval is that of the number of solved instances
        (the mean's interval times the number of instances). None (default)
        computes no interval and costs nothing.
    resamples : int, keyword-only
        Number of bootstrap resamples (used with ``ci``).
    seed : None, int or numpy.random.Generator, keyword-only
        Fixes the resamples (used with ``ci``); None draws fresh entropy.

    Returns
    -------
    pandas.DataFrame
        Indexed by algorithm, ordered by the first rule's rank (then by
        name); per rule the columns ``"{name}"`` (mean utility over the
        algorithm's instances, with unsolved runs counting 0; mean penalised
        runtime for PAR; number of solved instances for Solved) and
        ``"{name} rank"`` (1 = best; algorithms with equal scores share the
        best of their ranks, as ``pandas.Series.rank(method="min")``), with
        ``bounds`` ``"{name} lower"`` and ``"{name} upper"``, and with
        ``ci`` ``"{name} ci low"`` and ``"{name} ci high"``.

    Raises
    ------
    DataError
        If the table is not a valid long table, repeats an (algorithm,
        instance) pair or lacks one (naming the rows or the runs) and no
        policy says what to do, a policy is unknown, or ``ci``,
        ``resamples`` or ``seed`` is invalid.
    MissingExtraError
        If ``table`` is a Parquet path and dask is not installed.
    UtilityError
        If a rule is not a utility, PAR or Solved, has free parameters, is
        NaN, outside ``[0, 1]`` or increasing on the table's runtimes, or its
        columns would collide with another rule's (``"a"`` and ``"a rank"``).

    Examples
    --------
    >>> import pandas as pd, sympy
    >>> from maxent_util import t
    >>> runs = pd.DataFrame({"algorithm": ["a", "a", "b", "b"],
    ...                      "instance": ["i", "j", "i", "j"],
    ...                      "runtime": [1.0, 100.0, 10.0, 20.0],
    ...                      "status": ["solved", "capped", "solved", "solved"],
    ...                      "cutoff": 100.0})
    >>> rank(runs, {"exp": sympy.exp(-t / 10), "PAR-2": PAR(2)}).round(3)
    ... # doctest: +NORMALIZE_WHITESPACE
               exp  exp rank  PAR-2  PAR-2 rank
    algorithm
    a          0.452         1  100.5           2
    b          0.252         2   15.0           1

    Equal scores share a rank (on instance ``i`` alone both solve one run):

    >>> rank(runs.iloc[[0, 2]], {"solved": Solved()})["solved rank"].to_dict()
    {'a': 1, 'b': 1}

    With ``ci``, each score gets a bootstrap interval over the instances
    (two instances make a wide one):

    >>> rank(runs, {"PAR-2": PAR(2)}, ci=0.9, resamples=1000, seed=0)
    ... # doctest: +NORMALIZE_WHITESPACE
               PAR-2  PAR-2 rank  PAR-2 ci low  PAR-2 ci high
    algorithm
    b           15.0           1          10.0           20.0
    a          100.5           2           1.0          200.0
    """
    owner = "rank"
    level = None if ci is None else check_level(ci, owner)
    resamples = check_resamples(resamples, owner)
    rng = None if level is None else generator(seed, owner)
    if _dask.partitioned(table):
        return _rank_partitioned(table, utilities, bounds, duplicates, missing, level, owner)
    runs = long_table(table, owner, duplicates, missing)
    rules = _rules(utilities, owner)
    _result_columns(rules, bounds, owner, ci=level is not None)
    results = _score_matrix(runs, rules, bounds, owner, cells=level is not None)
    columns = _ranking_columns(results, bounds)
    if level is not None:
        _score_intervals(columns, runs, rules, results, level, resamples, rng)
    return _ranking_frame(columns, runs.names, rules)


def _ranking_columns(results: dict[str, Any], bounds: bool) -> dict[str, Any]:
    """Per rule its score column, its rank column and (with ``bounds``) both bounds."""
    columns: dict[str, Any] = {}
    for name, (scores, lower, upper, higher, _) in results.items():
        columns[name] = scores
        columns[f"{name} rank"] = min_ranks(scores, higher)
        if bounds:
            columns[f"{name} lower"] = lower
            columns[f"{name} upper"] = upper
    return columns


def _ranking_frame(columns: dict[str, Any], names: np.ndarray,
                   rules: list[tuple[str, Any]]) -> pd.DataFrame:
    frame = pd.DataFrame(columns, index=pd.Index(names, name="algorithm"))
    return frame.sort_values(f"{rules[0][0]} rank", kind="stable")


# ---------------------------------------------------------------------------
# rankings of partitioned tables (Dask DataFrames, Parquet datasets)

# Instance names are hashed with two random keys drawn per ranking: an algorithm whose runs
# number the instances and whose hashes add up to the instances' sums has one run on each
# instance (a wrong answer needs two 64-bit sums to collide at once).
_HASH_KEYS = 2


def _partition_runs(part: pd.DataFrame) -> Table:
    """One partition's runs, laid out for the per-run rules (its cells are not needed: the
    grid is checked across partitions)."""
    none = np.zeros(0, dtype=np.int64)
    return Table(names=np.zeros(0, dtype=object), instances=np.zeros(0, dtype=object),
                 cells=none, cell_algorithm=none, runs_per_cell=none, cells_per_algorithm=none,
                 runtimes=part["runtime"].to_numpy(dtype=float),
                 solved=_in_status(part, "solved"), capped=_in_status(part, "capped"),
                 cutoffs=(part["cutoff"].to_numpy(dtype=float) if "cutoff" in part.columns
                          else None),
                 labels=part.index)


def _in_status(part: pd.DataFrame, status: str) -> np.ndarray:
    return is_one_of(part["status"], (status,))


# The scorers of the last few partitioned computations, by token, in each process that scores
# partitions: a worker compiles a ranking's utilities once, not once per partition (each task
# arrives with its own unpickled copy, without compiled code).
_SCORERS_SEEN: dict[str, Any] = {}
_SCORERS_KEPT = 8


def _shared(token: str, scorer: Any) -> Any:
    if token not in _SCORERS_SEEN:
        while len(_SCORERS_SEEN) >= _SCORERS_KEPT:
            _SCORERS_SEEN.pop(next(iter(_SCORERS_SEEN)))
        _SCORERS_SEEN[token] = scorer
    return _SCORERS_SEEN[token]


class RuleSums:
    """Per algorithm of a partition, the sum of every rule's per-run values (and of the upper
    values, with ``bounds``), by the pandas route's :func:`_run_values`."""

    def __init__(self, rules: list[tuple[str, Any]], bounds: bool, owner: str) -> None:
        self.rules, self.bounds, self.owner = rules, bounds, owner

    def columns(self) -> list[str]:
        names = []
        for index in range(len(self.rules)):
            names += [f"sum {index}"] + ([f"upper {index}"] if self.bounds else [])
        return names

    def __call__(self, runs: Table, codes: np.ndarray, k: int) -> dict[str, np.ndarray]:
        times = _Times(runs)
        columns = {}
        for index, (name, rule) in enumerate(self.rules):
            values, upper, _, _ = _run_values(runs, name, rule, self.owner, times,
                                              upper=self.bounds)
            columns[f"sum {index}"] = np.bincount(codes, weights=values, minlength=k)
            if self.bounds:
                columns[f"upper {index}"] = np.bincount(codes, weights=upper, minlength=k)
        return columns


def _partition_meta(columns: list[str]) -> pd.DataFrame:
    frame: dict[str, Any] = {"runs": pd.Series(dtype=np.int64)}
    for key in range(_HASH_KEYS):
        frame[f"hash {key}"] = pd.Series(dtype=np.uint64)
    for column in columns:
        frame[column] = pd.Series(dtype=float)
    return pd.DataFrame(frame, index=pd.Index([], dtype=object, name="algorithm"))


def _partition_sums(part: pd.DataFrame, number: int, scorer: Any, columns: list[str],
                    keys: list[str]) -> pd.DataFrame:
    """One partition, validated and scored as the pandas route does: per algorithm its runs,
    the sums of its instances' hashes, and the scorer's sums of the runs' values."""
    validate_table(part, name=f"table, partition {number}")
    if not len(part):
        return _partition_meta(columns)
    scorer = _shared("".join(keys), scorer)
    codes, names = pd.factorize(part["algorithm"])
    k = len(names)
    frame: dict[str, Any] = {"runs": np.bincount(codes, minlength=k).astype(np.int64)}
    for index, hashes in enumerate(_dask.instance_hashes(part["instance"], keys)):
        frame[f"hash {index}"] = _dask.add_per_group(codes, hashes, k)
    frame.update(scorer(_partition_runs(part), codes, k))
    return pd.DataFrame(frame, index=pd.Index(np.asarray(names, dtype=object),
                                              name="algorithm"))


def _refuse_policy(arg: str, value: str, problem: str, owner: str) -> None:
    raise DataError(argument_message(
        arg, owner, f"'raise' for a Dask DataFrame or Parquet dataset that has {problem} "
        "(the policy needs all of an (algorithm, instance) pair's runs, or the whole grid, "
        "in memory at once, which a partitioned table does not give)", value,
        "Compute the table into pandas first (frame.compute()) and rank that, or fix the "
        "runs."))


def _check_partitioned_grid(frame: Any, names: np.ndarray, runs: np.ndarray,
                            hashes: np.ndarray, instances: np.ndarray, expected: np.ndarray,
                            duplicates: str, missing: str, owner: str) -> None:
    """Refuse repeated or missing runs as the pandas route does (naming the first algorithm
    that has them, by name), or the policy that would need the runs in memory."""
    wrong = (runs != instances.size) | np.any(hashes != expected[None, :], axis=1)
    if not wrong.any():
        return
    first = int(np.flatnonzero(wrong)[0])
    algorithm = names[first]
    rows = _dask.rows_of(frame, "algorithm", algorithm, ["algorithm", "instance"])
    rows = rows.assign(algorithm=rows["algorithm"].astype(object),
                       instance=rows["instance"].astype(object))
    others = int(wrong.sum()) - 1
    more = f" ({others} more algorithms have repeated or missing runs)" if others else ""
    if rows.duplicated(["algorithm", "instance"]).any():
        if duplicates != "raise":
            _refuse_policy("duplicates", duplicates, f"repeated runs (of {algorithm!r}){more}",
                           owner)
        refuse_duplicates(rows.reset_index(drop=True), rows.index, owner)
    lacking = [instance for instance in instances
               if instance not in set(rows["instance"])]
    if missing != "raise":
        _refuse_policy("missing", missing, f"missing runs (of {algorithm!r}){more}", owner)
    raise DataError(argument_message(
        "table", owner, "a run of every algorithm on every instance (the same instances "
        "for all algorithms)", f"no run of {algorithm!r} on {shown_items(lacking)}{more}",
        "Pass missing='unsolved' (on the command line, --missing unsolved) to count a "
        "missing run as a run capped at the cutoff, after computing the table into pandas."))


def partitioned_sums(table: Any, scorer: Any, duplicates: str, missing: str, owner: str
                     ) -> tuple[np.ndarray, int, pd.DataFrame]:
    """Per algorithm (sorted by name): the ``scorer``'s sums over its runs (columns
    ``scorer.columns()``), from a map over the partitions of a Dask DataFrame or Parquet
    dataset and a reduction per algorithm; and the number of instances. The table is
    validated and its grid checked as the pandas route does."""
    duplicates = policy(duplicates, "duplicates", owner, DUPLICATE_POLICIES)
    missing = policy(missing, "missing", owner, MISSING_POLICIES)
    frame = _dask.frame_of(table, owner)
    present = _dask.columns_of(frame)
    required = ("algorithm", "instance", "runtime", "status")
    if any(column not in present for column in required):
        raise DataError(argument_message(
            "columns", "table", "a list including 'algorithm', 'instance', 'runtime', 'status' "
            "(optional: 'cutoff')", present))
    frame = frame[[c for c in LONG_COLUMNS if c in present]]
    rng = np.random.default_rng()
    keys = [bytes(rng.integers(97, 123, 16, dtype=np.uint8)).decode() for _ in range(_HASH_KEYS)]
    columns = scorer.columns()
    sums = _dask.map_partitions(frame, _partition_sums, _partition_meta(columns),
                                scorer=scorer, columns=columns, keys=keys)
    parts, instances = _dask.compute(owner, sums, _dask.distinct(frame, "instance"))
    if not len(parts) or int(parts["runs"].sum()) == 0:
        raise DataError(argument_message("table", owner, "at least one run", "no rows"))
    codes, names = pd.factorize(np.asarray(parts.index, dtype=object), sort=True)
    k = len(names)
    instances = np.asarray(instances, dtype=object)
    runs = _dask.add_per_group(codes, parts["runs"].to_numpy(dtype=np.int64), k)
    hashes = np.column_stack([
        _dask.add_per_group(codes, parts[f"hash {index}"].to_numpy(dtype=np.uint64), k)
        for index in range(_HASH_KEYS)])
    expected = np.array([hashes.sum(dtype=np.uint64) for hashes in
                         _dask.instance_hashes(pd.Series(instances, dtype=object), keys)],
                        dtype=np.uint64)
    _check_partitioned_grid(frame, np.asarray(names, dtype=object), runs, hashes, instances,
                            expected, duplicates, missing, owner)
    totals = pd.DataFrame({column: np.bincount(codes, weights=parts[column].to_numpy(),
                                               minlength=k)
                           for column in columns})
    return np.asarray(names, dtype=object), instances.size, totals


def _rank_partitioned(table: Any, utilities: Any, bounds: bool, duplicates: str, missing: str,
                      level: float | None, owner: str) -> pd.DataFrame:
    """:func:`rank` of a Dask DataFrame or a Parquet dataset."""
    if level is not None:
        raise DataError(argument_message(
            "ci", owner, "None for a Dask DataFrame or Parquet dataset (the paired bootstrap "
            "resamples the instances x algorithms matrix, which a partitioned table does not "
            "hold)", level, "Compute the table into pandas first (frame.compute())."))
    rules = _rules(utilities, owner)
    _result_columns(rules, bounds, owner)
    names, n_instances, totals = partitioned_sums(table, RuleSums(rules, bounds, owner),
                                                  duplicates, missing, owner)
    results = {}
    for index, (name, rule) in enumerate(rules):
        total = isinstance(rule, Solved)
        higher = rule.higher_is_better if isinstance(rule, (PAR, Solved)) else True
        sums = totals[f"sum {index}"].to_numpy()
        scores = sums if total else sums / n_instances
        bad = first_bad(~np.isfinite(scores))
        if bad is not None:
            raise UtilityError(argument_message(
                "utilities", owner, "rules giving every algorithm a finite score",
                float(scores[bad]), f"(rule {name!r}, algorithm {names[bad]!r})"))
        upper = None
        if bounds:
            upper = totals[f"upper {index}"].to_numpy()
            upper = upper if total else upper / n_instances
        results[name] = (scores, scores if bounds else None, upper, higher, None)
    return _ranking_frame(_ranking_columns(results, bounds), names, rules)


def _score_intervals(columns: dict[str, Any], runs: Table, rules: list[tuple[str, Any]],
                     results: dict[str, Any], level: float, resamples: int,
                     rng: np.random.Generator) -> None:
    """Add every rule's ci columns: all rules' per-instance values resampled together."""
    k = runs.names.size
    stacked = np.hstack([results[name][4] for name, _ in rules])
    low, high = interval_from(resampled_means(stacked, resamples, rng), stacked, ci=level)
    for index, (name, rule) in enumerate(rules):
        scale = runs.instances.size if isinstance(rule, Solved) else 1
        columns[f"{name} ci low"] = low[index * k:(index + 1) * k] * scale
        columns[f"{name} ci high"] = high[index * k:(index + 1) * k] * scale


def tidy_ranking(ranking: pd.DataFrame) -> pd.DataFrame:
    """A ranking from :func:`rank` as a tidy (long) table: one row per algorithm and rule.

    Parameters
    ----------
    ranking : pandas.DataFrame
        What :func:`rank` returned: indexed by algorithm, with per rule the
        columns ``"{name}"`` and ``"{name} rank"`` (and ``"{name} lower"``,
        ``"{name} upper"`` with ``bounds``, ``"{name} ci low"``,
        ``"{name} ci high"`` with ``ci``).

    Returns
    -------
    pandas.DataFrame
        The columns ``algorithm``, ``rule``, ``score``, ``rank`` (and
        ``lower``, ``upper`` when the ranking has bounds, ``ci low``,
        ``ci high`` when it has intervals), rule by rule in the
        ranking's order, and within a rule the algorithms in the ranking's
        row order; a fresh ``RangeIndex``.

    Raises
    ------
    DataError
        If ``ranking`` is not a DataFrame with a score column next to each
        ``" rank"`` column (and both bounds, or neither, for every rule; the
        same for the interval).

    Examples
    --------
    >>> import pandas as pd
    >>> runs = pd.DataFrame({"algorithm": ["a", "a", "b", "b"],
    ...                      "instance": ["i", "j", "i", "j"],
    ...                      "runtime": [1.0, 100.0, 10.0, 20.0],
    ...                      "status": ["solved", "capped", "solved", "solved"],
    ...                      "cutoff": 100.0})
    >>> tidy_ranking(rank(runs, {"PAR-2": PAR(2), "solved": Solved()}))
      algorithm    rule  score  rank
    0         b   PAR-2   15.0     1
    1         a   PAR-2  100.5     2
    2         b  solved    2.0     1
    3         a  solved    1.0     2
    """
    owner = "tidy_ranking"
    if not isinstance(ranking, pd.DataFrame):
        raise DataError(argument_message(
            "ranking", owner, "a DataFrame returned by rank", type(ranking).__name__))
    columns = [str(column) for column in ranking.columns]
    rules = [column[: -len(" rank")] for column in columns if column.endswith(" rank")]
    lower = [rule for rule in rules if f"{rule} lower" in columns]
    upper = [rule for rule in rules if f"{rule} upper" in columns]
    bounded = lower == upper == rules
    low = [rule for rule in rules if f"{rule} ci low" in columns]
    high = [rule for rule in rules if f"{rule} ci high" in columns]
    intervals = low == high == rules
    if (not rules or any(rule not in columns for rule in rules)
            or not (bounded or lower == upper == []) or not (intervals or low == high == [])):
        raise DataError(argument_message(
            "ranking", owner, "a DataFrame returned by rank (per rule a score column, its "
            "' rank' column, both bounds or neither, and both ends of the interval or neither)",
            columns))
    parts = []
    for rule in rules:
        part = {"algorithm": [str(name) for name in ranking.index], "rule": rule,
                "score": ranking[rule].to_numpy(dtype=float),
                "rank": ranking[f"{rule} rank"].to_numpy(dtype=int)}
        if bounded:
            part["lower"] = ranking[f"{rule} lower"].to_numpy(dtype=float)
            part["upper"] = ranking[f"{rule} upper"].to_numpy(dtype=float)
        if intervals:
            part["ci low"] = ranking[f"{rule} ci low"].to_numpy(dtype=float)
            part["ci high"] = ranking[f"{rule} ci high"].to_numpy(dtype=float)
        parts.append(pd.DataFrame(part))
    return pd.concat(parts, ignore_index=True)


def cross_utility(table: pd.DataFrame, utilities: Mapping[str, Any] | Sequence[Any], *,
                  duplicates: str = "raise", missing: str = "raise") -> pd.DataFrame:
    """What picking the best algorithm under one rule earns under the others.

    Row ``r``, column ``c``: the score under rule ``c`` of the algorithm
    ranked first by rule ``r``, divided by the best score any algorithm
    reaches under ``c`` (for lower-is-better rules such as PAR, the best
    score divided by it). The diagonal is 1; 0.8 means picking by ``r``
    keeps 80% of what is available under ``c``. This is the paper's
    Figure 2 (Section 5).

    Parameters
    ----------
    table : pandas.DataFrame
        The long runtime table, as in :func:`rank`.
    utilities : mapping of str to Utility, sympy.Expr, PAR or Solved
        As in :func:`rank`.
    duplicates : {"raise", "mean", "first"}, keyword-only
        What to do with several runs of one algorithm on one instance
        (repetitions): refuse them (default), average each rule's value over
        them (the instance then counts once), or keep the first in table
        order.
    missing : {"raise", "unsolved"}, keyword-only
        What to do when algorithms were not all run on the same instances:
        refuse (default), or count each missing run as a run capped at its
        instance's cutoff (status ``"capped"``, runtime the cutoff; needs a
        ``cutoff`` column, one value per such instance).

    Returns
    -------
    pandas.DataFrame
        Rows: the rule used to pick (index ``"picked by"``); columns: the
        rule used to score (``"scored by"``). ``frame.attrs["picked"]`` maps
        each rule to the algorithm it picks, or to a tuple of names when
        several tie for first; the row then holds the mean over them (what
        picking one of them at random earns on average). An algorithm that
        reaches a column's best score keeps 1 of it, also when that best is 0
        (nothing solved within a utility's reach: every algorithm ties).

    Raises
    ------
    DataError, UtilityError
        As :func:`rank`.

    Examples
    --------
    >>> import pandas as pd, sympy
    >>> from maxent_util import t
    >>> runs = pd.DataFrame({"algorithm": ["a", "a", "b", "b"],
    ...                      "instance": ["i", "j", "i", "j"],
    ...                      "runtime": [1.0, 100.0, 10.0, 20.0],
    ...                      "status": ["solved", "capped", "solved", "solved"],
    ...                      "cutoff": 100.0})
    >>> cross = cross_utility(runs, {"exp": sympy.exp(-t / 10), "PAR-2": PAR(2)})
    >>> cross.attrs["picked"]
    {'exp': 'a', 'PAR-2': 'b'}
    >>> cross.round(3)  # doctest: +NORMALIZE_WHITESPACE
    scored by    exp  PAR-2
    picked by
    exp        1.000  0.149
    PAR-2      0.556  1.000
    """
    owner = "cross_utility"
    runs = long_table(table, owner, duplicates, missing)
    rules = _rules(utilities, owner)
    results = _score_matrix(runs, rules, False, owner)
    names = [name for name, _ in rules]
    picked: dict[str, Any] = {}
    matrix = np.empty((len(names), len(names)))
    with np.errstate(divide="ignore", invalid="ignore"):
        for i, row in enumerate(names):
            scores, _, _, higher, _ = results[row]
            best = np.flatnonzero(min_ranks(scores, higher) == 1)
            chosen = [str(name) for name in runs.names[best]]
            picked[row] = chosen[0] if len(chosen) == 1 else tuple(chosen)
            for j, column in enumerate(names):
                column_scores, _, _, column_higher, _ = results[column]
                values = column_scores[best]
                top = column_scores.max() if column_higher else column_scores.min()
                # an algorithm that reaches the best score keeps all of it, also when the best
                # is 0 (nothing solved under a utility): 0 of 0 available is a tie, not NaN
                with np.errstate(divide="ignore", invalid="ignore"):
                    ratios = np.where(values == top, 1.0, values / top if column_higher else top / values)
                matrix[i, j] = float(np.mean(ratios))
    frame = pd.DataFrame(matrix, index=pd.Index(names, name="picked by"),
                         columns=pd.Index(names, name="scored by"))
    frame.attrs["picked"] = picked
    return frame


# ---------------------------------------------------------------------------
# per-instance values and how stable a ranking is


def per_instance(table: pd.DataFrame, rule: Any, *, duplicates: str = "raise",
                 missing: str = "raise") -> pd.DataFrame:
    """One rule's value of every algorithm on every instance: the values :func:`rank` averages.

    Per-instance values are paired across algorithms (the same instances),
    which is what the paired bootstrap (:mod:`maxent_util.bootstrap`) and
    the paired tests of :mod:`maxent_util.comparison` start from.

    Parameters
    ----------
    table : pandas.DataFrame
        The long runtime table, as in :func:`rank`.
    rule : Utility, sympy.Expr, PAR or Solved, or a one-entry mapping
        The rule (a mapping ``{name: rule}`` names it), as in :func:`rank`.
    duplicates : {"raise", "mean", "first"}, keyword-only
        As in :func:`rank`: with ``"mean"``, an instance's value is the
        mean of the rule's values over its runs.
    missing : {"raise", "unsolved"}, keyword-only
        As in :func:`rank`: with ``"unsolved"``, a missing run counts as a
        run capped at its instance's cutoff.

    Returns
    -------
    pandas.DataFrame
        Instances (index ``"instance"``, in first-seen order) x algorithms
        (columns ``"algorithm"``, sorted). A utility's value is
        :math:`u(t)` for a solved run and 0 for a capped or failed one (as
        in :func:`rank`); PAR's the runtime, or ``k`` times the cutoff if
        unsolved; Solved's 1 or 0. Column means are :func:`rank`'s scores
        (for Solved, column sums).

    Raises
    ------
    DataError, UtilityError
        As :func:`rank`.

    Examples
    --------
    >>> import pandas as pd
    >>> runs = pd.DataFrame({"algorithm": ["a", "a", "b", "b"],
    ...                      "instance": ["i", "j", "i", "j"],
    ...                      "runtime": [1.0, 100.0, 10.0, 20.0],
    ...                      "status": ["solved", "capped", "solved", "solved"],
    ...                      "cutoff": 100.0})
    >>> per_instance(runs, PAR(2))  # doctest: +NORMALIZE_WHITESPACE
    algorithm      a     b
    instance
    i            1.0  10.0
    j          200.0  20.0
    """
    return instance_values(table, rule, "per_instance", duplicates, missing).frame()


def rank_stability(table: pd.DataFrame, rule: Any, *, resamples: int = 10_000,
                   seed: Any = None, duplicates: str = "raise", missing: str = "raise"
                   ) -> pd.DataFrame:
    """The probability that each algorithm takes each rank, resampling the instances.

    Each of ``resamples`` paired resamples draws the instances with
    replacement and ranks the algorithms by their score on it (1 = best;
    equal scores share the best of their ranks, as :func:`rank` does); an
    entry is the share of resamples giving that algorithm that rank
    (:func:`maxent_util.bootstrap.rank_probabilities`).

    Parameters
    ----------
    table : pandas.DataFrame
        The long runtime table, as in :func:`rank`.
    rule : Utility, sympy.Expr, PAR or Solved, or a one-entry mapping
        The rule, as in :func:`per_instance`.
    resamples : int, keyword-only
        Number of bootstrap resamples.
    seed : None, int or numpy.random.Generator, keyword-only
        Fixes the resamples; None draws fresh entropy.
    duplicates, missing : str, keyword-only
        As in :func:`rank`.

    Returns
    -------
    pandas.DataFrame
        Algorithms (index, in the order of :func:`rank`) x ranks (columns
        ``1, 2, ...``, named ``"rank"``); each row sums to 1. Ties can
        leave a rank untaken.

    Raises
    ------
    DataError, UtilityError
        As :func:`rank`; also if ``resamples`` or ``seed`` is invalid.

    Examples
    --------
    >>> import pandas as pd
    >>> runs = pd.DataFrame({"algorithm": ["a", "a", "b", "b"],
    ...                      "instance": ["i", "j", "i", "j"],
    ...                      "runtime": [1.0, 100.0, 10.0, 20.0],
    ...                      "status": ["solved", "capped", "solved", "solved"],
    ...                      "cutoff": 100.0})
    >>> rank_stability(runs, Solved(), resamples=20_000, seed=0).round(2)
    ... # doctest: +NORMALIZE_WHITESPACE
    rank          1     2
    algorithm
    b          1.00  0.00
    a          0.25  0.75
    """
    owner = "rank_stability"
    resamples = check_resamples(resamples, owner)
    rng = generator(seed, owner)
    values = instance_values(table, rule, owner, duplicates, missing)
    counts = rank_counts(values.values, values.higher_is_better, resamples, rng)
    order = np.lexsort((values.algorithms.astype(str),
                        min_ranks(values.scores(), values.higher_is_better)))
    shares = counts[order] / resamples
    return pd.DataFrame(shares, index=pd.Index(values.algorithms[order], name="algorithm"),
                        columns=pd.RangeIndex(1, shares.shape[1] + 1, name="rank"))
