"""Classic rules and rankings: PAR, Solved, rank, cross_utility.

A *rule* scores an algorithm from its runs: a utility (its mean over the
runs, :mod:`maxent_util.estimate`), or a classic rule, :class:`PAR` or
:class:`Solved`, which gives each run a value (``per_run``), says whether
``higher_is_better`` and has a ``name``. :func:`rank` scores and ranks the
algorithms of a long runtime table (:mod:`maxent_util.runs`) under several
rules; :func:`cross_utility` reports what picking the best algorithm under
one rule earns under the others (the paper's Figure 2).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar, Iterable, Mapping, Sequence

import numpy as np
import pandas as pd
import sympy

from .errors import DataError, UtilityError, argument_message
from .estimate import evaluate_rule, fixed_scorer
from .io.table import plain as _plain
from .runs import Runs, Table, first_bad, long_table, real, validate_runs

__all__ = [
    "PAR",
    "Solved",
    "rank",
    "tidy_ranking",
    "cross_utility",
]

# ---------------------------------------------------------------------------
# classic rules


def _rule_runs(runtimes: Any, solved: Any, cutoff: Any, owner: str) -> Runs:
    if solved is None:
        raise DataError(argument_message(
            "solved", owner, "an array of True/False, one per runtime", None))
    return validate_runs(runtimes, solved=solved, cutoff=cutoff, status=None,
                         failures_as_capped=False, owner=owner)


@dataclass(frozen=True)
class PAR:
    """Penalised average runtime: the runtime, or ``k`` times the cutoff if unsolved.

    Lower is better. PAR-2 ranked the SAT Competition 2021; PAR-10 is common
    in algorithm configuration.

    Parameters
    ----------
    k : float
        The penalty factor (positive).
    cutoff : float, optional, keyword-only
        The cutoff used by :func:`rank` when the table has no ``cutoff``
        column (else an unsolved run's own runtime stands for its cutoff).

    Examples
    --------
    >>> PAR(2).score([10.0, 100.0], [True, False], cutoff=100.0)
    105.0
    >>> PAR(2).name, PAR(2.5).name
    ('PAR-2', 'PAR-2.5')
    """

    k: float = 2.0
    cutoff: float | None = field(default=None, kw_only=True)
    higher_is_better: ClassVar[bool] = False

    def __post_init__(self) -> None:
        if not (math.isfinite(real(self.k)) and self.k > 0):
            raise UtilityError(argument_message("k", "PAR", "a positive finite number", self.k))
        if self.cutoff is not None and not (
                math.isfinite(real(self.cutoff)) and self.cutoff > 0):
            raise UtilityError(argument_message(
                "cutoff", "PAR", "a positive finite number of seconds", self.cutoff))

    @property
    def name(self) -> str:
        return f"PAR-{float(self.k):g}"

    def per_run(self, runtimes: np.ndarray, solved: np.ndarray,
                cutoffs: np.ndarray | None) -> np.ndarray:
        """Penalised runtime of each run (arrays already validated)."""
        limit = runtimes if cutoffs is None else cutoffs
        return np.where(solved, runtimes, self.k * limit)

    def score(self, runtimes: Any, solved: Any, cutoff: Any = None) -> float:
        """Mean penalised runtime of the runs."""
        runs = _rule_runs(runtimes, solved, cutoff if cutoff is not None else self.cutoff,
                          self.name)
        return float(np.mean(self.per_run(runs.runtimes, runs.solved, runs.cutoffs)))


@dataclass(frozen=True)
class Solved:
    """Number of solved runs; higher is better.

    Examples
    --------
    >>> Solved().score([10.0, 100.0, 3.0], [True, False, True])
    2
    """

    higher_is_better: ClassVar[bool] = True
    name: ClassVar[str] = "solved"

    def per_run(self, runtimes: np.ndarray, solved: np.ndarray,
                cutoffs: np.ndarray | None) -> np.ndarray:
        return solved.astype(float)

    def score(self, runtimes: Any, solved: Any, cutoff: Any = None) -> int:
        """Count of solved runs."""
        runs = _rule_runs(runtimes, solved, cutoff, self.name)
        return int(runs.solved.sum())



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


def _result_columns(rules: list[tuple[str, Any]], bounds: bool, owner: str) -> None:
    """Refuse rule names whose columns would collide (``"a"`` next to ``"a rank"``)."""
    suffixes = ("", " rank") + ((" lower", " upper") if bounds else ())
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


def _aggregate(runs: Table, values: np.ndarray, aggregate: str) -> np.ndarray:
    """Per algorithm: mean of the runs in each cell, then mean (or sum) over its cells.

    Summing in sorted order makes equal multisets of runs give bit-identical
    scores, so exact ties do not depend on row order.
    """
    if runs.cells.size == runs.runs_per_cell.size:  # one run per cell: nothing to average
        cell_values = np.empty(runs.cells.size)
        cell_values[runs.cells] = values
    else:
        grouped = np.lexsort((values, runs.cells))
        starts = np.concatenate([[0], np.cumsum(runs.runs_per_cell)[:-1]])
        cell_values = np.add.reduceat(values[grouped], starts) / runs.runs_per_cell
    grouped = np.lexsort((cell_values, runs.cell_algorithm))
    starts = np.concatenate([[0], np.cumsum(runs.cells_per_algorithm)[:-1]])
    sums = np.add.reduceat(cell_values[grouped], starts)
    return sums if aggregate == "sum" else sums / runs.cells_per_algorithm


def _row_of(runs: Table, mask: np.ndarray) -> str:
    index = int(np.flatnonzero(mask)[0])
    label = runs.labels[index]
    return "an added missing run" if label is None else f"row {_plain(label)!r}"


def _utility_values(runs: Table, name: str, u: Callable[[Any], Any], owner: str
                    ) -> tuple[np.ndarray, np.ndarray]:
    """Per run: u at a solved runtime (else 0), and u where a capped run stopped (else as before).

    ``u`` is evaluated once on the distinct times, which also checks that it is
    a utility there: a number in [0, 1], non-increasing in t.
    """
    stopped = runs.runtimes if runs.cutoffs is None else np.minimum(runs.runtimes, runs.cutoffs)
    times = np.unique(np.concatenate([runs.runtimes[runs.solved], stopped[runs.capped]]))
    at = evaluate_rule(u, times, owner, f"rule {name!r}: ")

    def where(value: float) -> str:
        return _row_of(runs, (runs.solved & (runs.runtimes == value))
                       | (runs.capped & (stopped == value)))

    tolerance = 1e-12
    bad = first_bad(~((at >= -tolerance) & (at <= 1.0 + tolerance)))  # NaN fails too
    if bad is not None:
        raise UtilityError(argument_message(
            "utility", owner, "a number between 0 and 1 on every run", float(at[bad]),
            f"(rule {name!r}: u({float(times[bad])!r}) at {where(times[bad])}) "
            "Rescale the utility to [0, 1]."))
    bad = first_bad(np.diff(at) > tolerance)
    if bad is not None:
        raise UtilityError(argument_message(
            "utility", owner, "non-increasing in t on the runs",
            f"u({float(times[bad])!r}) = {float(at[bad])!r} < u({float(times[bad + 1])!r}) "
            f"= {float(at[bad + 1])!r}",
            f"(rule {name!r}, at {where(times[bad])} and {where(times[bad + 1])}) "
            "A utility rewards shorter runs at least as much as longer ones."))
    lower = np.zeros(runs.runtimes.shape)
    lower[runs.solved] = at[np.searchsorted(times, runs.runtimes[runs.solved])]
    upper = lower.copy()
    upper[runs.capped] = at[np.searchsorted(times, stopped[runs.capped])]
    return lower, upper


def _score_matrix(runs: Table, rules: list[tuple[str, Any]], bounds: bool, owner: str
                  ) -> dict[str, tuple[np.ndarray, np.ndarray | None, np.ndarray | None, bool]]:
    results = {}
    for name, rule in rules:
        if isinstance(rule, (PAR, Solved)):
            cutoffs = runs.cutoffs
            if cutoffs is None and isinstance(rule, PAR) and rule.cutoff is not None:
                cutoffs = np.full(runs.runtimes.shape, float(rule.cutoff))
            values = rule.per_run(runs.runtimes, runs.solved, cutoffs)
            aggregate = "sum" if isinstance(rule, Solved) else "mean"
            scores = _aggregate(runs, values, aggregate)
            lower = upper = scores if bounds else None
            higher = rule.higher_is_better
        else:
            values, upper_values = _utility_values(runs, name, rule, owner)
            scores = _aggregate(runs, values, "mean")
            lower = scores if bounds else None
            upper = _aggregate(runs, upper_values, "mean") if bounds else None
            higher = True
        bad = first_bad(~np.isfinite(scores))
        if bad is not None:
            raise UtilityError(argument_message(
                "utilities", owner, "rules giving every algorithm a finite score",
                float(scores[bad]), f"(rule {name!r}, algorithm {runs.names[bad]!r})"))
        results[name] = (scores, lower, upper, higher)
    return results


def _ranks(scores: np.ndarray, higher_is_better: bool) -> np.ndarray:
    """1 + the number of strictly better scores (ties share the best rank, pandas' "min")."""
    key = -scores if higher_is_better else scores
    return np.searchsorted(np.sort(key), key, side="left") + 1


def rank(table: pd.DataFrame, utilities: Mapping[str, Any] | Sequence[Any], *,
         bounds: bool = False, duplicates: str = "raise", missing: str = "raise"
         ) -> pd.DataFrame:
    """Score and rank algorithms under several utilities or classic rules.

    Parameters
    ----------
    table : pandas.DataFrame
        The long runtime table (``algorithm``, ``instance``, ``runtime``,
        ``status``, optional ``cutoff``): by default exactly one run of every
        algorithm on every instance.
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

    Returns
    -------
    pandas.DataFrame
        Indexed by algorithm, ordered by the first rule's rank (then by
        name); per rule the columns ``"{name}"`` (mean utility over the
        algorithm's instances, with unsolved runs counting 0; mean penalised
        runtime for PAR; number of solved instances for Solved) and
        ``"{name} rank"`` (1 = best; algorithms with equal scores share the
        best of their ranks, as ``pandas.Series.rank(method="min")``), and
        with ``bounds`` ``"{name} lower"`` and ``"{name} upper"``.

    Raises
    ------
    DataError
        If the table is not a valid long table, repeats an (algorithm,
        instance) pair or lacks one (naming the rows or the runs) and no
        policy says what to do, or a policy is unknown.
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
    """
    owner = "rank"
    runs = long_table(table, owner, duplicates, missing)
    rules = _rules(utilities, owner)
    _result_columns(rules, bounds, owner)
    results = _score_matrix(runs, rules, bounds, owner)
    columns: dict[str, Any] = {}
    for name, (scores, lower, upper, higher) in results.items():
        columns[name] = scores
        columns[f"{name} rank"] = _ranks(scores, higher)
        if bounds:
            columns[f"{name} lower"] = lower
            columns[f"{name} upper"] = upper
    frame = pd.DataFrame(columns, index=pd.Index(runs.names, name="algorithm"))
    return frame.sort_values(f"{rules[0][0]} rank", kind="stable")


def tidy_ranking(ranking: pd.DataFrame) -> pd.DataFrame:
    """A ranking from :func:`rank` as a tidy (long) table: one row per algorithm and rule.

    Parameters
    ----------
    ranking : pandas.DataFrame
        What :func:`rank` returned: indexed by algorithm, with per rule the
        columns ``"{name}"`` and ``"{name} rank"`` (and ``"{name} lower"``,
        ``"{name} upper"`` with ``bounds``).

    Returns
    -------
    pandas.DataFrame
        The columns ``algorithm``, ``rule``, ``score``, ``rank`` (and
        ``lower``, ``upper`` when the ranking has bounds), rule by rule in the
        ranking's order, and within a rule the algorithms in the ranking's
        row order; a fresh ``RangeIndex``.

    Raises
    ------
    DataError
        If ``ranking`` is not a DataFrame with a score column next to each
        ``" rank"`` column (and both bounds, or neither, for every rule).

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
    if (not rules or any(rule not in columns for rule in rules)
            or not (bounded or lower == upper == [])):
        raise DataError(argument_message(
            "ranking", owner, "a DataFrame returned by rank (per rule a score column, its "
            "' rank' column, and both bounds or neither)", columns))
    parts = []
    for rule in rules:
        part = {"algorithm": [str(name) for name in ranking.index], "rule": rule,
                "score": ranking[rule].to_numpy(dtype=float),
                "rank": ranking[f"{rule} rank"].to_numpy(dtype=int)}
        if bounded:
            part["lower"] = ranking[f"{rule} lower"].to_numpy(dtype=float)
            part["upper"] = ranking[f"{rule} upper"].to_numpy(dtype=float)
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
        picking one of them at random earns on average). A column whose best
        score is 0 is NaN.

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
            scores, _, _, higher = results[row]
            best = np.flatnonzero(_ranks(scores, higher) == 1)
            chosen = [str(name) for name in runs.names[best]]
            picked[row] = chosen[0] if len(chosen) == 1 else tuple(chosen)
            for j, column in enumerate(names):
                column_scores, _, _, column_higher = results[column]
                values = column_scores[best]
                if column_higher:
                    top = column_scores.max()
                    ratios = values / top if top != 0 else np.full(best.size, np.nan)
                else:
                    top = column_scores.min()
                    ratios = np.where(values != 0, top / values, np.nan)
                matrix[i, j] = float(np.mean(ratios))
    frame = pd.DataFrame(matrix, index=pd.Index(names, name="picked by"),
                         columns=pd.Index(names, name="scored by"))
    frame.attrs["picked"] = picked
    return frame
