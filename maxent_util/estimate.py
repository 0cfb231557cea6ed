"""Estimating an algorithm's expected utility from its runs, with bounds.

An algorithm's score is its expected utility :math:`E[u(T)]` (the paper's
main theorem, Section 2); from data it is the mean of :math:`u` over the runs.
Utilities are compiled by :mod:`maxent_util.scorer`; runs are validated by
:mod:`maxent_util.runs`.

*Capped runs.* A run that hit its cutoff is right-censored: its utility is
somewhere between 0 and :math:`u(\\text{cutoff})`. :func:`score` reports the
paper's point estimate (capped runs count 0) together with both bounds and a
Hoeffding confidence interval that covers them, and a Kaplan-Meier plug-in
estimate when cutoffs differ between runs.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
import pandas as pd
# scipy loads a submodule on first attribute access: `import maxent_util` and the
# command line start without paying for scipy.stats until it is used
import scipy

from . import _dask
from .errors import DataError, UtilityError, argument_message
from .runs import Runs, first_bad, real, validate_runs
from .utility.core import fixed_scorer

__all__ = [
    "Score",
    "score",
]

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

    def __str__(self) -> str:
        """The score with every number labelled (``repr`` keeps the fields' full values).

        >>> print(Score(0.5, 0.5, 0.6, 0.1, 0.9, n=3, n_capped=1))
        estimate 0.5 (capped runs count 0), bounds [0.5, 0.6], 95% interval [0.1, 0.9]; 3 runs, 1 capped
        """
        text = (f"estimate {self.estimate:.6g} (capped runs count 0), bounds "
                f"[{self.lower:.6g}, {self.upper:.6g}], {100 * self.level:.10g}% interval "
                f"[{self.ci_low:.6g}, {self.ci_high:.6g}]; {self.n} runs, {self.n_capped} capped")
        if self.kaplan_meier is not None:
            text += f"; Kaplan-Meier {self.kaplan_meier:.6g}"
        return text


def _hoeffding_half_width(n: int, level: float) -> float:
    return math.sqrt(math.log(2.0 / (1.0 - level)) / (2.0 * n))


def score(runtimes: Any, utility: Any, *, solved: Any = None, cutoff: Any = None,
          status: Any = None, failures_as_capped: bool = False,
          level: float = 0.95) -> Score:
    """Estimate an algorithm's expected utility from its runs, with bounds.

    Parameters
    ----------
    runtimes : array_like of float, dask.dataframe.DataFrame or path
        One entry per run: the runtime of a solved run, else the time at
        which the run stopped. Or a Dask DataFrame, or the path of a Parquet
        dataset, with a ``runtime`` column and optional ``status``,
        ``solved`` and ``cutoff`` columns (in place of the keywords, which
        must then be None, but for a common ``cutoff``): scored partition
        by partition (the ``dask`` extra), sums and counts reduced across
        partitions; the utility's monotonicity is checked on each
        partition's runtimes.
    utility : Utility or sympy.Expr
        A utility with values in ``[0, 1]`` and no free parameters.
    solved : array_like of bool, optional, keyword-only
        Which runs solved their instance. Unsolved runs are capped
        (right-censored).
    cutoff : float or array_like of float, optional, keyword-only
        The time limit, common or per run. A capped run is censored at its
        runtime or its cutoff, whichever is smaller.
    status : array_like of str, optional, keyword-only
        One of ``"solved"``, ``"capped"`` (stopped at its cutoff), ``"memout"``,
        ``"crash"``, ``"unverified"`` (failures, utility 0) per run.
    failures_as_capped : bool, keyword-only
        Treat failures as capped runs instead of as utility 0.
    level : float, keyword-only
        Confidence level of the interval, in ``(0, 1)``.

    Returns
    -------
    Score
        The estimate (capped runs and failures count 0), the bounds ``lower``/``upper``
        on the mean over the runs, the Hoeffding interval ``ci_low``/``ci_high`` at
        ``level``, the counts, and a Kaplan-Meier estimate when the runs were stopped at
        different times.

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
    if not 0.0 < real(level) < 1.0:
        raise DataError(argument_message("level", owner, "a number in (0, 1)", level))
    if _dask.partitioned(runtimes):
        return _score_partitioned(runtimes, utility, solved, cutoff, status, failures_as_capped,
                                  float(level), owner)
    runs = validate_runs(runtimes, solved=solved, cutoff=cutoff, status=status,
                         failures_as_capped=failures_as_capped, owner=owner)
    u = fixed_scorer(utility, owner)
    n = runs.runtimes.shape[0]

    lower_values = np.zeros(n)
    lower_values[runs.solved] = evaluate_rule(u, runs.runtimes[runs.solved], owner)
    upper_values = lower_values.copy()
    upper_values[runs.capped] = evaluate_rule(u, runs.stop_times[runs.capped], owner)
    _check_unit_range(lower_values, upper_values, runs, owner)
    _check_non_increasing(u, runs, owner)

    lower = float(np.mean(lower_values))
    upper = float(np.mean(upper_values))
    h = _hoeffding_half_width(n, float(level))
    km = None
    stop_times = runs.stop_times[runs.capped]
    cutoffs_differ = runs.cutoffs is not None and np.unique(runs.cutoffs).size > 1
    if cutoffs_differ or np.unique(stop_times).size > 1:
        km = _kaplan_meier_mean(runs, u)
    return Score(estimate=lower, lower=lower, upper=upper,
                 ci_low=max(0.0, lower - h), ci_high=min(1.0, upper + h),
                 n=n, n_capped=int(runs.capped.sum()), kaplan_meier=km, level=float(level))


def evaluate_rule(u: Callable[[Any], Any], times: np.ndarray, owner: str,
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
    bad = first_bad(np.isnan(values) & ~np.isnan(times))
    if bad is not None:
        # a NaN is no score: (t - 5)**(1/3) is complex below 5
        raise UtilityError(argument_message(
            "utility", owner, "a real number at every runtime of the runs",
            f"NaN at runtime {float(times[bad])!r}",
            f"({context.rstrip(': ')})" if context else None))
    return values


def _check_unit_range(lower_values: np.ndarray, upper_values: np.ndarray, runs: Runs,
                      owner: str) -> None:
    tolerance = 1e-12
    outside = ~((lower_values >= -tolerance) & (upper_values <= 1.0 + tolerance))
    bad = first_bad(outside)
    if bad is not None:
        value = upper_values[bad] if upper_values[bad] > 1.0 else lower_values[bad]
        raise UtilityError(argument_message(
            "utility", owner, "between 0 and 1 on every run (Hoeffding bounds need it)",
            float(value), f"(run {bad}, runtime {float(runs.runtimes[bad])!r}) "
            "Rescale the utility to [0, 1]."))


def _check_non_increasing(u: Callable[[Any], Any], runs: Runs, owner: str) -> None:
    """A utility must not reward a longer run more; checked at the runs' own times."""
    times = np.unique(np.concatenate([runs.runtimes[runs.solved],
                                      runs.stop_times[runs.capped]]))
    if times.size < 2:
        return
    values = np.asarray(u(times), dtype=float)
    bad = first_bad(np.diff(values) > 1e-12)
    if bad is not None:
        raise UtilityError(argument_message(
            "utility", owner, "non-increasing in t on the runs",
            f"u({float(times[bad])!r}) = {float(values[bad])!r} < "
            f"u({float(times[bad + 1])!r}) = {float(values[bad + 1])!r}",
            "A utility rewards shorter runs at least as much as longer ones."))


def _kaplan_meier_mean(runs: Runs, u: Callable[[Any], Any]) -> float:
    """Plug-in E[u(T)] from the Kaplan-Meier estimate of the runtime distribution."""
    events = runs.runtimes[runs.solved]
    if events.size == 0:
        return float(u(math.inf))
    right = runs.stop_times[runs.capped]
    # Failures (u = 0) are never solved: censoring them beyond every observed
    # time keeps them at risk throughout without creating a step.
    n_failed = int((~runs.solved & ~runs.capped).sum())
    if n_failed:
        beyond = 2.0 * float(max(runs.runtimes.max(), right.max(initial=0.0))) + 1.0
        right = np.concatenate([right, np.full(n_failed, beyond)])
    survival = scipy.stats.ecdf(scipy.stats.CensoredData(uncensored=events, right=right)).sf
    times = survival.quantiles
    s = survival.probabilities
    drops = np.concatenate([[1.0], s[:-1]]) - s
    jumps = drops > 0
    return float(np.dot(u(times[jumps]), drops[jumps]) + s[-1] * u(math.inf))


# ---------------------------------------------------------------------------
# score() of a Dask DataFrame or a Parquet dataset

_SUMS = ("runs", "capped", "failed", "lower", "upper", "cutoff min", "cutoff max", "stop min",
         "stop max", "longest")


def _partition_runs(part: pd.DataFrame, number: int, common_cutoff: Any,
                    failures_as_capped: bool) -> Runs:
    columns = set(map(str, part.columns))
    cutoff = part["cutoff"].to_numpy(dtype=float) if "cutoff" in columns else common_cutoff
    return validate_runs(
        part["runtime"].to_numpy(), owner=f"score, partition {number}",
        solved=part["solved"].to_numpy(dtype=object) if "solved" in columns else None,
        status=part["status"].to_numpy(dtype=object) if "status" in columns else None,
        cutoff=cutoff, failures_as_capped=failures_as_capped)


def _partition_score(part: pd.DataFrame, number: int, utility: Any, common_cutoff: Any,
                     failures_as_capped: bool) -> pd.DataFrame:
    """One partition's runs validated and valued as :func:`score` does, as sums."""
    if not len(part):
        return pd.DataFrame({name: pd.Series(dtype=float) for name in _SUMS})
    owner = f"score, partition {number}"
    runs = _partition_runs(part, number, common_cutoff, failures_as_capped)
    lower = np.zeros(runs.runtimes.shape[0])
    lower[runs.solved] = evaluate_rule(utility, runs.runtimes[runs.solved], owner)
    upper = lower.copy()
    upper[runs.capped] = evaluate_rule(utility, runs.stop_times[runs.capped], owner)
    _check_unit_range(lower, upper, runs, owner)
    _check_non_increasing(utility, runs, owner)
    cutoffs = runs.cutoffs if runs.cutoffs is not None else np.full(1, np.nan)
    stops = runs.stop_times[runs.capped]
    row = {"runs": runs.runtimes.size, "capped": int(runs.capped.sum()),
           "failed": int((~runs.solved & ~runs.capped).sum()), "lower": lower.sum(),
           "upper": upper.sum(), "cutoff min": np.min(cutoffs), "cutoff max": np.max(cutoffs),
           "stop min": stops.min(initial=np.inf), "stop max": stops.max(initial=-np.inf),
           "longest": max(runs.runtimes.max(), stops.max(initial=0.0))}
    return pd.DataFrame({name: [float(value)] for name, value in row.items()})


def _partition_steps(part: pd.DataFrame, number: int, common_cutoff: Any,
                     failures_as_capped: bool) -> pd.DataFrame:
    """One partition's distinct times with their solved (event) and capped (censored) counts."""
    if not len(part):
        return pd.DataFrame({"time": pd.Series(dtype=float), "events": pd.Series(dtype=float),
                             "censored": pd.Series(dtype=float)})
    runs = _partition_runs(part, number, common_cutoff, failures_as_capped)
    events = pd.Series(runs.runtimes[runs.solved]).value_counts()
    censored = pd.Series(runs.stop_times[runs.capped]).value_counts()
    both = pd.concat([events.rename("events"), censored.rename("censored")], axis=1)
    both = both.fillna(0.0).astype(float)
    return both.rename_axis("time").reset_index()


def _kaplan_meier_from_counts(times: np.ndarray, events: np.ndarray, censored: np.ndarray,
                              failed: float, u: Callable[[Any], Any]) -> float:
    """:func:`_kaplan_meier_mean` from each distinct time's counts: failures stay at risk."""
    if not events.sum():
        return float(u(math.inf))
    at_risk = np.cumsum((events + censored)[::-1])[::-1] + failed
    step = events > 0
    survival = np.cumprod(1.0 - events[step] / at_risk[step])
    drops = np.concatenate([[1.0], survival[:-1]]) - survival
    jumps = drops > 0
    return float(np.dot(u(times[step][jumps]), drops[jumps]) + survival[-1] * u(math.inf))


def _score_partitioned(table: Any, utility: Any, solved: Any, cutoff: Any, status: Any,
                       failures_as_capped: bool, level: float, owner: str) -> Score:
    """:func:`score` of a Dask DataFrame or Parquet dataset of one algorithm's runs."""
    for name, given in (("solved", solved), ("status", status)):
        if given is not None:
            raise DataError(argument_message(
                name, owner, f"None for a Dask DataFrame or Parquet dataset (give a {name!r} "
                "column)", type(given).__name__))
    if cutoff is not None and np.ndim(cutoff) != 0:
        raise DataError(argument_message(
            "cutoff", owner, "one number for a Dask DataFrame or Parquet dataset (give a "
            "'cutoff' column for one per run)", type(cutoff).__name__))
    u = fixed_scorer(utility, owner)
    frame = _dask.frame_of(table, owner)
    present = _dask.columns_of(frame)
    if "runtime" not in present:
        raise DataError(argument_message(
            "columns", owner, "a list including 'runtime' (optional: 'status', 'solved', "
            "'cutoff')", present))
    frame = frame[[c for c in ("runtime", "status", "solved", "cutoff") if c in present]]
    options = {"common_cutoff": cutoff, "failures_as_capped": failures_as_capped}
    meta = pd.DataFrame({name: pd.Series(dtype=float) for name in _SUMS})
    (parts,) = _dask.compute(owner, _dask.map_partitions(frame, _partition_score, meta,
                                                         utility=u, **options))
    n = int(parts["runs"].sum()) if len(parts) else 0
    if n == 0:
        raise DataError(argument_message("runtimes", owner, "non-empty", "no runs"))
    lower, upper = float(parts["lower"].sum()) / n, float(parts["upper"].sum()) / n
    h = _hoeffding_half_width(n, level)
    cutoffs_differ = parts["cutoff min"].min() < parts["cutoff max"].max()
    stops_differ = parts["stop min"].min() < parts["stop max"].max()
    km = None
    if cutoffs_differ or stops_differ:
        steps_meta = pd.DataFrame({"time": pd.Series(dtype=float),
                                   "events": pd.Series(dtype=float),
                                   "censored": pd.Series(dtype=float)})
        (steps,) = _dask.compute(owner, _dask.map_partitions(frame, _partition_steps,
                                                             steps_meta, **options))
        steps = steps.groupby("time").sum().sort_index()
        km = _kaplan_meier_from_counts(steps.index.to_numpy(dtype=float),
                                       steps["events"].to_numpy(), steps["censored"].to_numpy(),
                                       float(parts["failed"].sum()), u)
    return Score(estimate=lower, lower=lower, upper=upper, ci_low=max(0.0, lower - h),
                 ci_high=min(1.0, upper + h), n=n, n_capped=int(parts["capped"].sum()),
                 kaplan_meier=km, level=level)
