"""How many runs, and at which run limit, estimate a score to a given accuracy.

The paper's estimation theorem (Section 4, proved in Appendix A): to estimate
:math:`E[u(T)]` within :math:`\\epsilon` with probability :math:`1-\\delta`,
take

.. math::

    m = \\frac{\\ln(2/\\delta)}{2}\\left(\\frac{2-\\epsilon}{\\epsilon}\\right)^2

runs capped at :math:`\\kappa = u^{-1}(\\epsilon/2)`. The total time is then
below :math:`m\\,u^{-1}(\\epsilon/2)`, and in the worst case above
:math:`m\\,u^{-1}(2\\epsilon)`, whatever the algorithm's runtime distribution,
even one with infinite mean: utilities, unlike runtimes, are bounded.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from .errors import DataError, UtilityError, argument_message
from .utility import Utility
from .utility.core import fixed_scorer

__all__ = ["Plan", "plan", "simulate_plan"]

# Samples drawn per block by simulate_plan: bounds memory, keeps numpy vectorised.
_BLOCK_SAMPLES = 1 << 22

# A plan asks for fewer than 2**63 runs (an int64 count, and far beyond any experiment).
_LOG_MAX_RUNS = 63 * math.log(2.0)


@dataclass(frozen=True)
class Plan:
    """A sampling plan from the estimation theorem.

    Attributes
    ----------
    epsilon, delta : float
        Accuracy and failure probability: the capped estimate is within
        ``epsilon`` of :math:`E[u(T)]` with probability at least ``1 - delta``.
    runs : int
        Number of capped runs, :math:`m`.
    run_limit : float
        Stop each run at :math:`u^{-1}(\\epsilon/2)` seconds (``captime``, its name before
        0.4, still reads it, with a DeprecationWarning: the captime is the user's patience,
        a law; where a plan stops a run is a run limit).
    min_total_time : float
        :math:`m\\,u^{-1}(2\\epsilon)`: some algorithm needs at least this
        much time in total (the second lemma of the proof).
    max_total_time : float
        :math:`m\\,u^{-1}(\\epsilon/2)`: no algorithm needs more (the first lemma of the proof).
    """

    epsilon: float
    delta: float
    runs: int
    run_limit: float
    min_total_time: float
    max_total_time: float

    @property
    def captime(self) -> float:
        """The run limit, by its name before 0.4 (deprecated: read ``run_limit``)."""
        warnings.warn("Plan.captime is Plan.run_limit: the captime is the user's patience, "
                      "where a plan stops a run is its run limit", DeprecationWarning, stacklevel=2)
        return self.run_limit


def _number_in(value: Any, arg: str, requirement: str, inside: Callable[[float], bool]) -> float:
    real = isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool)
    try:
        number = float(value) if real else math.nan
    except OverflowError:  # an int beyond the float range
        number = math.nan
    if not inside(number):  # NaN fails every comparison
        raise UtilityError(argument_message(
            arg, "plan", requirement,
            value if math.isfinite(number) or not real or isinstance(value, float)
            else f"an integer of about {int(abs(int(value)).bit_length() * math.log10(2)) + 1} "
                 "digits"))
    return number


def _run_count(eps: float, dlt: float) -> int:
    """m of the theorem, or UtilityError if it is too large to be a number of runs."""
    ratio = 2.0 / dlt
    # 2/delta overflows for a subnormal delta: then ln(2/delta) as a difference of logs
    log_two_over_delta = (math.log(ratio) if math.isfinite(ratio)
                          else math.log(2.0) - math.log(dlt))
    log_runs = math.log(log_two_over_delta / 2.0) + 2.0 * (math.log(2.0 - eps) - math.log(eps))
    if log_runs >= _LOG_MAX_RUNS:
        # ln(2/delta)/2 < 373 for any float delta, so a count this large is epsilon's doing
        raise UtilityError(argument_message(
            "epsilon", "plan", "large enough that the number of runs m = ln(2/delta)/2 "
            f"((2-epsilon)/epsilon)^2 is below 2**63 (here about 10**{log_runs / math.log(10):.0f})",
            eps, "No experiment runs that many times."))
    return math.ceil(log_two_over_delta / 2.0 * ((2.0 - eps) / eps) ** 2)


def _as_utility(utility: Any) -> Utility:
    return utility if isinstance(utility, Utility) else Utility(utility)


def plan(epsilon: float, delta: float, utility: Any) -> Plan:
    """Number of runs and run limit that estimate a score within ``epsilon``.

    Parameters
    ----------
    epsilon : float
        Additive accuracy, in ``(0, 1/2]`` (the worst-case bound needs
        :math:`u^{-1}(2\\epsilon)`, so :math:`2\\epsilon \\le 1`).
    delta : float
        Allowed failure probability, in ``(0, 1)``.
    utility : Utility or sympy.Expr
        A utility with values in ``[0, 1]``, non-increasing, with no free
        parameters; :meth:`Utility.inverse` gives :math:`u^{-1}`.

    Returns
    -------
    Plan
        The number of runs ``m``, the run limit :math:`u^{-1}(\\epsilon/2)` and the bounds
        on the total time.

    Raises
    ------
    UtilityError
        If ``epsilon`` or ``delta`` is out of range or so small that the
        number of runs reaches :math:`2^{63}`, the utility has free parameters, or
        it never takes the level :math:`\\epsilon/2` or :math:`2\\epsilon`.

    References
    ----------
    The paper's estimation theorem (Section 4) and its proof in Appendix A.

    Examples
    --------
    >>> import sympy
    >>> from maxent_util import t
    >>> p = plan(0.1, 0.05, sympy.exp(-t / 10))
    >>> p.runs
    666
    >>> round(p.run_limit, 4)  # -10 ln(0.05)
    29.9573
    """
    eps = _number_in(epsilon, "epsilon", "a number in (0, 1/2]", lambda x: 0.0 < x <= 0.5)
    dlt = _number_in(delta, "delta", "a number in (0, 1)", lambda x: 0.0 < x < 1.0)
    fixed_scorer(utility, "plan")  # rejects non-utilities and unset parameters
    u = _as_utility(utility)
    runs = _run_count(eps, dlt)
    run_limit = float(u.inverse(eps / 2.0))
    shortest = float(u.inverse(2.0 * eps))
    return Plan(epsilon=eps, delta=dlt, runs=runs, run_limit=run_limit,
                min_total_time=runs * shortest, max_total_time=runs * run_limit)


def _draw(sampler: Any, shape: tuple[int, int], rng: np.random.Generator) -> np.ndarray:
    if hasattr(sampler, "rvs"):
        samples = sampler.rvs(size=shape, random_state=rng)
    elif hasattr(sampler, "sample") and not callable(sampler):
        # scipy's new distributions (scipy.stats.make_distribution, Normal, ...): sample(shape, rng=)
        samples = sampler.sample(shape, rng=rng)
    else:
        samples = sampler(shape, rng)
    samples = np.asarray(samples, dtype=float)
    if samples.shape != shape:
        raise DataError(argument_message(
            "sampler", "simulate_plan", f"returning an array of the requested shape {shape}",
            f"shape {samples.shape}"))
    if np.isnan(samples).any():
        raise DataError(argument_message(
            "sampler", "simulate_plan", "returning runtimes, not NaN", float("nan")))
    return samples


def simulate_plan(plan: Plan, sampler: Callable[..., Any] | Any, utility: Any,
                  trials: int = 1000, rng: Any = None, *, truth: float | None = None) -> float:
    """Fraction of simulated experiments whose capped estimate is within epsilon.

    Each trial draws ``plan.runs`` runtimes, caps them at ``plan.run_limit``
    and averages :math:`u(\\min(t, \\kappa))`, the estimator of the theorem;
    it succeeds if that lies within ``plan.epsilon`` of the true
    :math:`E[u(T)]`. By the theorem the fraction is at least
    ``1 - plan.delta`` (up to simulation noise) for any runtime law.

    Parameters
    ----------
    plan : Plan
        The plan to try, from :func:`plan`.
    sampler : callable or scipy.stats distribution
        ``sampler(shape, rng)`` returning runtimes of that shape, an object
        with ``rvs(size=..., random_state=...)`` (a frozen ``rv_continuous``,
        as :meth:`CaptimeDistribution.to_scipy` gives), or one of scipy's new
        distributions with ``sample(shape, rng=...)`` (``scipy.stats.Normal``,
        ``scipy.stats.make_distribution``; its parameters must be scalars, so
        that the draws have the requested shape).
    utility : Utility or sympy.Expr
        The utility the plan was made for.
    trials : int
        Number of simulated experiments (vectorised in blocks).
    rng : numpy.random.Generator, int or None
        Random source.
    truth : float, optional, keyword-only
        The true expected utility. Without it, it is estimated from
        ``max(10**6, 20 * plan.runs)`` uncapped draws (standard error at most
        0.0005).

    Returns
    -------
    float
        The fraction of trials within ``epsilon``.

    Raises
    ------
    UtilityError
        If ``plan`` is not a :class:`Plan`, ``trials`` is not a positive integer,
        ``truth`` is not a finite number, or the utility has free parameters.
    DataError
        If the sampler returns an array of another shape, or NaN.

    Examples
    --------
    Runtimes with infinite mean (Pareto, shape 1/2): the expected utility is
    still estimated from capped runs.

    >>> import numpy as np, sympy
    >>> from maxent_util import t
    >>> u = sympy.Piecewise((1, t < 1), (1 / t, True))
    >>> p = plan(0.1, 0.1, u)
    >>> pareto = lambda shape, rng: 1 + rng.pareto(0.5, shape)
    >>> simulate_plan(p, pareto, u, trials=200, rng=0, truth=1 / 3) >= 0.9
    True
    """
    owner = "simulate_plan"
    if not isinstance(plan, Plan):
        raise UtilityError(argument_message("plan", owner, "a Plan from plan()", plan))
    if not (isinstance(trials, (int, np.integer)) and not isinstance(trials, bool) and trials > 0):
        raise UtilityError(argument_message("trials", owner, "a positive integer", trials))
    if truth is not None and not (isinstance(truth, (int, float, np.number))
                                  and math.isfinite(truth)):
        raise UtilityError(argument_message("truth", owner, "a finite number", truth))
    generator = np.random.default_rng(rng)
    u = fixed_scorer(utility, owner)

    if truth is None:
        draws = max(10**6, 20 * plan.runs)
        values = [np.mean(u(_draw(sampler, (1, min(draws, _BLOCK_SAMPLES)), generator)))
                  for _ in range(-(-draws // _BLOCK_SAMPLES))]
        truth = float(np.mean(values))

    block = max(1, _BLOCK_SAMPLES // plan.runs)
    hits = 0
    for start in range(0, trials, block):
        count = min(block, trials - start)
        samples = _draw(sampler, (count, plan.runs), generator)
        estimates = np.asarray(u(np.minimum(samples, plan.run_limit)), dtype=float).mean(axis=1)
        hits += int(np.count_nonzero(np.abs(estimates - truth) < plan.epsilon))
    return hits / trials
