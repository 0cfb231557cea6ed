"""Scoring runtimes with a utility: capped runs, bounds, rankings.

An algorithm's score is its expected utility :math:`E[u(T)]` (the paper's
main theorem, Section 2); from data it is the mean of :math:`u` over the runs.
Utilities are compiled by :mod:`maxent_util.scorer`.

*Capped runs.* A run that hit its cutoff is right-censored: its utility is
somewhere between 0 and :math:`u(\\text{cutoff})`. :func:`score` reports the
paper's point estimate (capped runs count 0) together with both bounds and a
Hoeffding confidence interval that covers them, and a Kaplan-Meier plug-in
estimate when cutoffs differ between runs.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar, Iterable, Mapping, Sequence

import numpy as np
import pandas as pd
from scipy import stats
import sympy

from .errors import DataError, UtilityError, argument_message
from .io import FAILURE_STATUSES, STATUSES, validate_table
from .io.table import plain as _plain
from .scorer import _parameters, _utility_expr, make_scorer
from .symbols import q
from .utility import Utility

__all__ = [
    "Score",
    "score",
    "PAR",
    "Solved",
    "rank",
    "cross_utility",
    "DUPLICATE_POLICIES",
    "MISSING_POLICIES",
]

# ---------------------------------------------------------------------------
# runs: validation shared by score() and the classic rules


def _too_large(value: Any) -> str:
    """A short description of a number too large for a float (its repr may run to pages)."""
    if isinstance(value, int):
        return f"an integer of about {int(value.bit_length() * math.log10(2)) + 1} digits"
    return f"a number of type {type(value).__name__} beyond the float range"


def _runs_array(values: Any, arg: str, owner: str, n: int | None = None,
                dtype: Any = np.float64, *, scalar: bool = False) -> np.ndarray:
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


def _real(value: Any) -> float:
    """A real number (not a bool) as a float; NaN for anything else, or beyond the float range."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.number)):
        return math.nan
    try:
        return float(value)
    except (OverflowError, TypeError, ValueError):  # a 400-digit int; a complex number
        return math.nan


def _first_bad(mask: np.ndarray) -> int | None:
    hits = np.flatnonzero(mask)
    return int(hits[0]) if hits.size else None


@dataclass(frozen=True)
class _Runs:
    """Validated runs: runtimes, what happened, and when each censored run stopped."""

    runtimes: np.ndarray
    solved: np.ndarray          # bool
    censored: np.ndarray        # bool: right-censored (capped) runs
    censor_times: np.ndarray    # for censored runs: the time known to be exceeded
    cutoffs: np.ndarray | None  # per run, as given


def _validate_runs(runtimes: Any, *, solved: Any, cutoff: Any, status: Any,
                   failures_as_capped: bool, owner: str) -> _Runs:
    times = _runs_array(runtimes, "runtimes", owner)
    n = times.shape[0]
    if n == 0:
        raise DataError(argument_message("runtimes", owner, "non-empty", "no runs"))
    bad = _first_bad(~(np.isfinite(times) & (times >= 0)))
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

        bad = _first_bad(~(cutoffs > 0))  # NaN fails too
        if bad is not None:
            raise DataError(argument_message(
                cutoff_name(bad), owner, "a positive number of seconds", float(cutoffs[bad])))

    statuses = None
    if status is not None:
        statuses = _runs_array(status, "status", owner, n, dtype=object)
        known = np.isin(statuses, STATUSES)
        bad = _first_bad(~known)
        if bad is not None:
            raise DataError(argument_message(
                f"status[{bad}]", owner, f"one of {', '.join(map(repr, STATUSES))}",
                statuses[bad]))
    solved_given = None
    if solved is not None:
        raw = _runs_array(solved, "solved", owner, n, dtype=object)
        bad = _first_bad(~np.isin(raw, [True, False]))
        if bad is not None:
            raise DataError(argument_message(
                f"solved[{bad}]", owner, "True or False", raw[bad]))
        solved_given = raw.astype(bool)

    if statuses is not None:
        is_solved = statuses == "solved"
        if solved_given is not None:
            bad = _first_bad(is_solved != solved_given)
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
        bad = _first_bad(is_solved & (times > cutoffs))
        if bad is not None:
            raise DataError(argument_message(
                cutoff_name(bad), owner, f"at least the runtime of solved run {bad} "
                f"({float(times[bad])!r})", float(cutoffs[bad]),
                "Mark the run as unsolved or raise its cutoff."))

    censored = ~is_solved & (~failed | failures_as_capped)
    # a censored run is known to take longer than the time it stopped
    stopped = times if cutoffs is None else np.minimum(times, cutoffs)
    return _Runs(times, is_solved, censored, np.where(censored, stopped, np.nan), cutoffs)


# ---------------------------------------------------------------------------
# score()


@dataclass(frozen=True)
class Score:
    """Estimated expected utility of an algorithm from (possibly capped) runs.

    Attributes
    ----------
    estimate : float
        Mean utility over the runs; capped runs and failures count 0 (the
        paper's convention).
    lower, upper : float
        Bounds on the mean utility of the uncapped runs: capped runs count
        0 (``lower``, equal to ``estimate``) or :math:`u(\\text{cutoff})`
        (``upper``).
    ci_low, ci_high : float
        Hoeffding confidence interval at ``level`` for :math:`E[u(T)]`,
        ``[lower - h, upper + h]`` clipped to ``[0, 1]``.
    n : int
        Number of runs.
    n_capped : int
        Number of right-censored runs.
    kaplan_meier : float or None
        Kaplan-Meier plug-in estimate, when cutoffs differ between runs (or
        censored runs stopped at different times); None otherwise.
    level : float
        Confidence level of ``ci_low, ci_high``.
    """

    estimate: float
    lower: float
    upper: float
    ci_low: float
    ci_high: float
    n: int
    n_capped: int
    kaplan_meier: float | None = None
    level: float = 0.95


def _hoeffding_half_width(n: int, level: float) -> float:
    return math.sqrt(math.log(2.0 / (1.0 - level)) / (2.0 * n))


def _fixed_scorer(utility: Any, owner: str) -> Callable[[np.ndarray], np.ndarray]:
    """The scorer of a utility with every parameter given a value."""
    expr = _utility_expr(utility, owner)
    parameters = _parameters(expr, owner)
    if parameters or q in expr.free_symbols:
        free = tuple(s.name for s in parameters) + (("q",) if q in expr.free_symbols else ())
        raise UtilityError(argument_message(
            "utility", owner, "free of unset parameters", free,
            "Give them values first, e.g. utility.subs(kappa0=60)."))
    if isinstance(utility, Utility):
        # its own call: a subclass may evaluate differently (e.g. by quadrature)
        return utility
    return make_scorer(expr)


def score(runtimes: Any, utility: Any, *, solved: Any = None, cutoff: Any = None,
          status: Any = None, failures_as_capped: bool = False,
          level: float = 0.95) -> Score:
    """Estimate an algorithm's expected utility from its runs, with bounds.

    Parameters
    ----------
    runtimes : array_like of float
        One entry per run: the runtime of a solved run, else the time at
        which the run stopped.
    utility : Utility or sympy.Expr
        A utility with values in ``[0, 1]`` and no free parameters.
    solved : array_like of bool, optional, keyword-only
        Which runs solved their instance. Unsolved runs are capped
        (right-censored).
    cutoff : float or array_like of float, optional, keyword-only
        The time limit, common or per run. A capped run is censored at its
        runtime or its cutoff, whichever is smaller.
    status : array_like of str, optional, keyword-only
        One of ``"solved"``, ``"timeout"`` (capped), ``"memout"``,
        ``"crash"``, ``"unverified"`` (failures, utility 0) per run.
    failures_as_capped : bool, keyword-only
        Treat failures as capped runs instead of as utility 0.
    level : float, keyword-only
        Confidence level of the interval, in ``(0, 1)``.

    Returns
    -------
    Score

    Raises
    ------
    DataError
        For NaN, infinite or negative runtimes, mismatched lengths, unknown
        statuses, ``solved`` contradicting ``status``, non-positive cutoffs,
        a cutoff below a solved runtime, or ``level`` outside ``(0, 1)``.
    UtilityError
        If the utility has free parameters, leaves ``[0, 1]`` or increases
        with the runtime on the runs.

    Notes
    -----
    Without ``solved`` and ``status``, runs with ``runtime >= cutoff`` are
    capped, and without a cutoff too every run counts as solved.

    With per-run utilities :math:`L_i \\le u(T_i) \\le U_i` (0 and
    :math:`u(c_i)` for a run capped at :math:`c_i`), one-sided Hoeffding
    bounds on :math:`\\bar L` and :math:`\\bar U` with half-width
    :math:`h = \\sqrt{\\ln(2/(1-\\text{level}))/(2n)}` give
    :math:`P(\\bar L - h \\le E[u(T)] \\le \\bar U + h) \\ge \\text{level}`.

    When cutoffs differ between runs (or censored runs stopped at different
    times) the Kaplan-Meier estimate :math:`\\hat S` of the runtime survival
    function gives the plug-in
    :math:`E[u] = u(0) + \\int_0^\\infty u'(t)\\,\\hat S(t)\\,dt`, computed
    exactly as a sum over the steps of :math:`\\hat S`; mass beyond the last
    solved run counts :math:`u(\\infty)` and failures never leave the risk
    set.

    Examples
    --------
    The paper's motivating example (Section 3, Pareto captime with
    :math:`\\kappa_0 = \\alpha = 1`, so :math:`u(t) = 1/t` for :math:`t \\ge 1`):

    >>> import sympy
    >>> from maxent_util import t
    >>> u = sympy.Piecewise((1, t < 1), (1 / t, True))
    >>> ten_days = 10 * 24 * 3600.0
    >>> a = score([1.0] * 99 + [ten_days], u, solved=[True] * 99 + [False])
    >>> a.estimate, a.n_capped
    (0.99, 1)
    >>> b = score([ten_days] * 100, u, solved=[False] * 100)
    >>> round(b.upper * ten_days, 12)  # u(10 days) = 1/864000
    1.0
    """
    owner = "score"
    if not 0.0 < _real(level) < 1.0:
        raise DataError(argument_message("level", owner, "a number in (0, 1)", level))
    runs = _validate_runs(runtimes, solved=solved, cutoff=cutoff, status=status,
                          failures_as_capped=failures_as_capped, owner=owner)
    u = _fixed_scorer(utility, owner)
    n = runs.runtimes.shape[0]

    lower_values = np.zeros(n)
    lower_values[runs.solved] = _evaluate_rule(u, runs.runtimes[runs.solved], owner)
    upper_values = lower_values.copy()
    upper_values[runs.censored] = _evaluate_rule(u, runs.censor_times[runs.censored], owner)
    _check_unit_range(lower_values, upper_values, runs, owner)
    _check_non_increasing(u, runs, owner)

    lower = float(np.mean(lower_values))
    upper = float(np.mean(upper_values))
    h = _hoeffding_half_width(n, float(level))
    km = None
    censor_times = runs.censor_times[runs.censored]
    cutoffs_differ = runs.cutoffs is not None and np.unique(runs.cutoffs).size > 1
    if cutoffs_differ or np.unique(censor_times).size > 1:
        km = _kaplan_meier_mean(runs, u)
    return Score(estimate=lower, lower=lower, upper=upper,
                 ci_low=max(0.0, lower - h), ci_high=min(1.0, upper + h),
                 n=n, n_capped=int(runs.censored.sum()), kaplan_meier=km, level=float(level))


def _evaluate_rule(u: Callable[[Any], Any], times: np.ndarray, owner: str,
                   context: str = "") -> np.ndarray:
    """``u(times)`` as floats; a utility that cannot be evaluated there raises UtilityError."""
    if not times.size:
        return np.zeros(0)
    try:
        with warnings.catch_warnings():
            # a complex branch is refused below or as NaN, not warned about
            warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
            values = np.asarray(u(times), dtype=float)
    except (TypeError, ValueError, ArithmeticError) as error:
        raise UtilityError(argument_message(
            "utility", owner, "a real number at every runtime of the runs",
            f"runtimes from {float(times[0])!r} to {float(times[-1])!r}",
            f"({context}evaluating it raised {type(error).__name__}: {error})")) from None
    if values.shape != times.shape:
        raise UtilityError(argument_message(
            "utility", owner, "one value per runtime", f"shape {values.shape}",
            f"({context.rstrip(': ')})" if context else None))
    return values


def _check_unit_range(lower_values: np.ndarray, upper_values: np.ndarray, runs: _Runs,
                      owner: str) -> None:
    tolerance = 1e-12
    outside = ~((lower_values >= -tolerance) & (upper_values <= 1.0 + tolerance))
    bad = _first_bad(outside)
    if bad is not None:
        value = upper_values[bad] if upper_values[bad] > 1.0 else lower_values[bad]
        raise UtilityError(argument_message(
            "utility", owner, "between 0 and 1 on every run (Hoeffding bounds need it)",
            float(value), f"(run {bad}, runtime {float(runs.runtimes[bad])!r}) "
            "Rescale the utility to [0, 1]."))


def _check_non_increasing(u: Callable[[Any], Any], runs: _Runs, owner: str) -> None:
    """A utility must not reward a longer run more; checked at the runs' own times."""
    times = np.unique(np.concatenate([runs.runtimes[runs.solved],
                                      runs.censor_times[runs.censored]]))
    if times.size < 2:
        return
    values = np.asarray(u(times), dtype=float)
    bad = _first_bad(np.diff(values) > 1e-12)
    if bad is not None:
        raise UtilityError(argument_message(
            "utility", owner, "non-increasing in t on the runs",
            f"u({float(times[bad])!r}) = {float(values[bad])!r} < "
            f"u({float(times[bad + 1])!r}) = {float(values[bad + 1])!r}",
            "A utility rewards shorter runs at least as much as longer ones."))


def _kaplan_meier_mean(runs: _Runs, u: Callable[[Any], Any]) -> float:
    """Plug-in E[u(T)] from the Kaplan-Meier estimate of the runtime distribution."""
    events = runs.runtimes[runs.solved]
    if events.size == 0:
        return float(u(math.inf))
    right = runs.censor_times[runs.censored]
    # Failures (u = 0) are never solved: censoring them beyond every observed
    # time keeps them at risk throughout without creating a step.
    n_failed = int((~runs.solved & ~runs.censored).sum())
    if n_failed:
        beyond = 2.0 * float(max(runs.runtimes.max(), right.max(initial=0.0))) + 1.0
        right = np.concatenate([right, np.full(n_failed, beyond)])
    survival = stats.ecdf(stats.CensoredData(uncensored=events, right=right)).sf
    times = survival.quantiles
    s = survival.probabilities
    drops = np.concatenate([[1.0], s[:-1]]) - s
    jumps = drops > 0
    return float(np.dot(u(times[jumps]), drops[jumps]) + s[-1] * u(math.inf))


# ---------------------------------------------------------------------------
# classic rules


def _rule_runs(runtimes: Any, solved: Any, cutoff: Any, owner: str) -> _Runs:
    if solved is None:
        raise DataError(argument_message(
            "solved", owner, "an array of True/False, one per runtime", None))
    return _validate_runs(runtimes, solved=solved, cutoff=cutoff, status=None,
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
        if not (math.isfinite(_real(self.k)) and self.k > 0):
            raise UtilityError(argument_message("k", "PAR", "a positive finite number", self.k))
        if self.cutoff is not None and not (
                math.isfinite(_real(self.cutoff)) and self.cutoff > 0):
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

DUPLICATE_POLICIES: tuple[str, ...] = ("raise", "mean", "first")
"""Values of ``duplicates=`` in :func:`rank` and :func:`cross_utility`."""

MISSING_POLICIES: tuple[str, ...] = ("raise", "unsolved")
"""Values of ``missing=`` in :func:`rank` and :func:`cross_utility`."""

# How many duplicated pairs or missing runs an error message lists before "...".
_SHOWN = 5


@dataclass(frozen=True)
class _Table:
    """A validated long table, laid out for aggregation.

    Runs are grouped into *cells*, one per (algorithm, instance) pair; cells
    are numbered in algorithm order, so an algorithm's cells are contiguous.
    """

    names: np.ndarray           # algorithms, sorted
    cells: np.ndarray           # cell index per run
    cell_algorithm: np.ndarray  # algorithm index per cell
    runs_per_cell: np.ndarray
    cells_per_algorithm: np.ndarray
    runtimes: np.ndarray
    solved: np.ndarray
    timeout: np.ndarray
    cutoffs: np.ndarray | None
    labels: np.ndarray          # the caller's row label per run (None for an added run)


def _policy(value: Any, arg: str, owner: str, allowed: tuple[str, ...]) -> str:
    if not (isinstance(value, str) and value in allowed):
        raise DataError(argument_message(arg, owner, f"one of {', '.join(map(repr, allowed))}",
                                         value))
    return value


def _shown(items: Sequence[Any]) -> str:
    text = ", ".join(repr(item) for item in items[:_SHOWN])
    return text + (", ..." if len(items) > _SHOWN else "")


def _refuse_duplicates(frame: pd.DataFrame, labels: np.ndarray, owner: str) -> None:
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
        f"{len(same)} runs of {pair!r} at rows {_shown(rows)}"
        + (f" ({n_pairs} repeated pairs in all)" if n_pairs > 1 else ""),
        "Pass duplicates='mean' to average an algorithm's repeated runs on an instance, "
        "or duplicates='first' to keep the first of them (on the command line, "
        "--duplicates mean or --duplicates first)."))


def _missing_runs(frame: pd.DataFrame, owner: str, policy: str) -> pd.DataFrame:
    """The runs absent from the (algorithm x instance) grid, as timeouts at the cutoff."""
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
            f"no run of {algorithm!r} on {_shown(lacking)}"
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
                         "runtime": limit, "status": "timeout", "cutoff": limit})


def _cell_keys(frame: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, int]:
    """Per run an integer naming its (algorithm, instance) pair; algorithms sorted."""
    codes, names = pd.factorize(frame["algorithm"], sort=True)
    instance_codes, instances = pd.factorize(frame["instance"])
    return codes.astype(np.int64) * len(instances) + instance_codes, names, len(instances)


def _long_table(table: Any, owner: str, duplicates: str = "raise",
                missing: str = "raise") -> _Table:
    duplicates = _policy(duplicates, "duplicates", owner, DUPLICATE_POLICIES)
    missing = _policy(missing, "missing", owner, MISSING_POLICIES)
    validate_table(table, name="table")
    if len(table) == 0:
        raise DataError(argument_message("table", owner, "at least one run", "no rows"))
    columns = [c for c in ("algorithm", "instance", "runtime", "status", "cutoff")
               if c in table.columns]
    frame = table[columns].reset_index(drop=True)
    labels = table.index.to_numpy(dtype=object)
    keys, names, n_instances = _cell_keys(frame)
    cell_keys, first_run, cells, runs_per_cell = np.unique(
        keys, return_index=True, return_inverse=True, return_counts=True)
    if runs_per_cell.max() > 1 and duplicates != "mean":
        if duplicates == "raise":
            _refuse_duplicates(frame, labels, owner)
        keep = first_run[cells.ravel()] == np.arange(len(frame))
        frame, labels = frame[keep].reset_index(drop=True), labels[keep]
        keys, cell_keys, cells = keys[keep], cell_keys, np.searchsorted(cell_keys, keys[keep])
        runs_per_cell = np.ones(cell_keys.size, dtype=np.int64)
    if cell_keys.size < len(names) * n_instances:
        added = _missing_runs(frame, owner, missing)
        frame = pd.concat([frame, added], ignore_index=True)
        labels = np.concatenate([labels, np.full(len(added), None, dtype=object)])
        keys, names, n_instances = _cell_keys(frame)
        cell_keys, cells, runs_per_cell = np.unique(keys, return_inverse=True,
                                                    return_counts=True)
    cell_algorithm = cell_keys // n_instances
    status = frame["status"].to_numpy(dtype=object)
    cutoffs = frame["cutoff"].to_numpy(dtype=float) if "cutoff" in frame.columns else None
    return _Table(names=np.asarray(names, dtype=object), cells=np.ravel(cells),
                  cell_algorithm=cell_algorithm, runs_per_cell=runs_per_cell,
                  cells_per_algorithm=np.bincount(cell_algorithm, minlength=len(names)),
                  runtimes=frame["runtime"].to_numpy(dtype=float),
                  solved=status == "solved", timeout=status == "timeout", cutoffs=cutoffs,
                  labels=labels)


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
                rule = _fixed_scorer(rule, owner)
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


def _aggregate(runs: _Table, values: np.ndarray, aggregate: str) -> np.ndarray:
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


def _row_of(runs: _Table, mask: np.ndarray) -> str:
    index = int(np.flatnonzero(mask)[0])
    label = runs.labels[index]
    return "an added missing run" if label is None else f"row {_plain(label)!r}"


def _utility_values(runs: _Table, name: str, u: Callable[[Any], Any], owner: str
                    ) -> tuple[np.ndarray, np.ndarray]:
    """Per run: u at a solved runtime (else 0), and u where a timeout stopped (else as before).

    ``u`` is evaluated once on the distinct times, which also checks that it is
    a utility there: a number in [0, 1], non-increasing in t.
    """
    stopped = runs.runtimes if runs.cutoffs is None else np.minimum(runs.runtimes, runs.cutoffs)
    times = np.unique(np.concatenate([runs.runtimes[runs.solved], stopped[runs.timeout]]))
    at = _evaluate_rule(u, times, owner, f"rule {name!r}: ")

    def where(value: float) -> str:
        return _row_of(runs, (runs.solved & (runs.runtimes == value))
                       | (runs.timeout & (stopped == value)))

    tolerance = 1e-12
    bad = _first_bad(~((at >= -tolerance) & (at <= 1.0 + tolerance)))  # NaN fails too
    if bad is not None:
        raise UtilityError(argument_message(
            "utility", owner, "a number between 0 and 1 on every run", float(at[bad]),
            f"(rule {name!r}: u({float(times[bad])!r}) at {where(times[bad])}) "
            "Rescale the utility to [0, 1]."))
    bad = _first_bad(np.diff(at) > tolerance)
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
    upper[runs.timeout] = at[np.searchsorted(times, stopped[runs.timeout])]
    return lower, upper


def _score_matrix(runs: _Table, rules: list[tuple[str, Any]], bounds: bool, owner: str
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
        bad = _first_bad(~np.isfinite(scores))
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
        Also report, for utilities, the score with timeouts counting
        :math:`u(\\text{cutoff})` (``"{name} upper"``) next to the score with
        timeouts counting 0 (``"{name} lower"``). Classic rules have no
        uncertainty: their lower and upper equal the score.
    duplicates : {"raise", "mean", "first"}, keyword-only
        What to do with several runs of one algorithm on one instance
        (repetitions): refuse them (default), average each rule's value over
        them (the instance then counts once), or keep the first in table
        order.
    missing : {"raise", "unsolved"}, keyword-only
        What to do when algorithms were not all run on the same instances:
        refuse (default), or count each missing run as a run capped at its
        instance's cutoff (status ``"timeout"``, runtime the cutoff; needs a
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
    ...                      "status": ["solved", "timeout", "solved", "solved"],
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
    runs = _long_table(table, owner, duplicates, missing)
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
        instance's cutoff (status ``"timeout"``, runtime the cutoff; needs a
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
    ...                      "status": ["solved", "timeout", "solved", "solved"],
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
    runs = _long_table(table, owner, duplicates, missing)
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
