"""The likelihood of waiting times with right-censoring, its maximum, profile intervals and
cross-validation (for :func:`~maxent_util.fitting.fit_captime`).

A record where a person gave up adds log f at its time to the log-likelihood; a record where the
person was still waiting when the answer came adds log S.  The maximum is found by BFGS in the
family's unconstrained parametrisation (the simplex where BFGS stalls); without censoring the
moment equations give it exactly and the optimiser only confirms it.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from typing import Any

import numpy as np
from scipy import optimize, special

from .closed_forms import INF, LOG_LAPLACE, Family, LogLaplace, family_for

__all__ = ["Data", "Fit", "NoMaximum", "log_likelihood", "maximise", "profile_interval",
           "location_interval", "model_support", "fit_one", "cross_validated"]

#: the most candidate values of the log-Laplace's kappa0 tried before the search is refined (each
#: costs one optimisation with censored records, a closed form without)
_LOCATION_CANDIDATES = {False: 64, True: 16}


def _chi2_quantile(level: float) -> float:
    """The ``level`` quantile of chi-squared with one degree of freedom: scipy.stats.chi2.ppf(level, 1),
    computed as scipy computes it (2 gammaincinv(1/2, level)) without importing scipy.stats (0.5 to 1 s)."""
    return float(2.0 * special.gammaincinv(0.5, level))


# ---------------------------------------------------------------------------
# the likelihood and its maximum


@dataclasses.dataclass(frozen=True)
class Data:
    """The records, and the statistics every evaluation of a likelihood reads (computed once:
    an optimiser evaluates the likelihood thousands of times, and at given parameters it
    depends on the captimes only through a few sums)."""

    events: np.ndarray    # times at which a person stopped waiting (the captime)
    censored: np.ndarray  # times at which a person was still waiting (the captime exceeds them)

    @functools.cached_property
    def sums(self) -> dict[str, float]:
        """Sums over the captimes: of t, of log t and of (log t)**2 (-inf where a captime is 0).

        The fit's unit of time lies near the median, so log t is near 0 and a square expanded
        from these sums (the log-normal law's) loses no digits to cancellation."""
        with np.errstate(divide="ignore", invalid="ignore"):
            logs = np.log(self.events)
            return {"t": float(np.sum(self.events)), "log": float(np.sum(logs)),
                    "log2": float(np.sum(logs * logs))}

    @functools.cached_property
    def event_range(self) -> tuple[float, float]:
        """The smallest and the largest captime."""
        return float(np.min(self.events)), float(np.max(self.events))

    @functools.cached_property
    def sorted_logs(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """log t of the captimes and of the censored times, each sorted, with their running sums
        (a leading 0): a sum over the records on one side of a point is two lookups."""
        with np.errstate(divide="ignore"):
            events, censored = np.sort(np.log(self.events)), np.sort(np.log(self.censored))
        return (events, np.concatenate([[0.0], np.cumsum(events)]),
                censored, np.concatenate([[0.0], np.cumsum(censored)]))


@dataclasses.dataclass(frozen=True)
class Fit:
    """One kind set's maximum: its family (the nested family's when the supremum lies on the
    boundary), the parameters there, the log-likelihood, the kind set's number of parameters (a
    support end or a kappa0 fitted from the data included) and why the family is not the kind
    set's own ('' when it is)."""

    family: Family
    parameters: dict[str, float]
    loglik: float
    n_parameters: int
    note: str = ""


def log_likelihood(family: Family, data: Data, p: dict[str, float]) -> float:
    """Every captime's log f and every censored time's log S, summed; -inf where not finite.

    From the family's sufficient statistics where it has them and every captime lies inside its
    support (the records a fit is made to), else record by record (held-out records of a fold,
    which may lie outside a fold's support)."""
    with np.errstate(all="ignore"):
        if family.holds(data):
            total = family.loglik(data, p)
        else:
            total = float(np.sum(family.logpdf(data.events, p)))
            if data.censored.size:
                total += float(np.sum(family.logsf(data.censored, p)))
    return total if math.isfinite(total) else -INF


def objective(family: Family, data: Data) -> Any:
    def negative(u: np.ndarray) -> float:
        try:
            with np.errstate(all="ignore"):
                value = -log_likelihood(family, data, family.values(u))
        except (OverflowError, ValueError, ZeroDivisionError):
            return 1e300
        return value if math.isfinite(value) else 1e300
    return negative


def _with_gradient(family: Family, data: Data, negative: Any) -> Any:
    """The objective and its gradient in one call, for BFGS, where the family has the gradient
    in closed form; None where it has not (BFGS then takes finite differences)."""
    if not (family.analytic_gradient and family.holds(data)):
        return None

    def both(u: np.ndarray) -> tuple[float, np.ndarray]:
        value = negative(u)
        if value >= 1e300:
            return value, np.zeros_like(u)
        try:
            with np.errstate(all="ignore"):
                slope = -family.gradient(data, u)
        except (OverflowError, ValueError, ZeroDivisionError):
            slope = np.full_like(u, math.nan)
        # a slope beyond a double: the line search steps back, as from a value beyond one
        return (value, slope) if np.all(np.isfinite(slope)) else (1e300, np.zeros_like(u))
    return both


def maximise(family: Family, data: Data, start: dict[str, float]) -> tuple[dict[str, float], float]:
    """The maximum-likelihood parameters and the log-likelihood there; raises NoMaximum."""
    negative = objective(family, data)
    both = _with_gradient(family, data, negative)
    u0 = family.internal(start)
    with np.errstate(all="ignore"):  # steps into overflow are refused by the objective's 1e300
        if both is None:
            best = optimize.minimize(negative, u0, method="BFGS", options={"gtol": 1e-7, "maxiter": 500})
        else:
            best = optimize.minimize(both, u0, jac=True, method="BFGS",
                                     options={"gtol": 1e-7, "maxiter": 500})
        # "precision loss" at a flat gradient is a maximum found to the last digits the numeric
        # slopes carry; elsewhere (a log-SF that underflows) the simplex needs no slopes
        stalled = not best.success and not (best.status == 2 and np.all(np.isfinite(best.jac))
                                             and float(np.max(np.abs(best.jac))) < 1e-4)
        if stalled:
            polished = optimize.minimize(negative, best.x, method="Nelder-Mead",
                                         options={"xatol": 1e-10, "fatol": 1e-12, "maxiter": 4000})
            if polished.fun < best.fun:
                best = polished
    if best.fun >= 1e300 or not np.all(np.isfinite(best.x)) or np.max(np.abs(best.x)) > 600 \
            or _higher_further_out(negative, best.x, best.fun):
        raise NoMaximum("the likelihood keeps growing toward the edge of the parameters' domain "
                        "(every captime at one end of the support, or too few of them)")
    p = family.values(best.x)
    return p, -float(best.fun)


def _higher_further_out(negative: Any, u: np.ndarray, value: float) -> bool:
    """Whether the likelihood is higher further out along a coordinate: the optimiser stopped on a
    slope that runs to the domain's edge, not at a maximum."""
    margin = 1e-9 * max(1.0, abs(value))
    for index in range(u.size):
        for step in (-25.0, -5.0, -1.0, 1.0, 5.0, 25.0):
            probe = u.copy()
            probe[index] += step
            if negative(probe) < value - margin:
                return True
    return False


class NoMaximum(Exception):
    """The likelihood has no finite maximum (the parameters run off to a boundary)."""


# ---------------------------------------------------------------------------
# profile-likelihood intervals


def profile_interval(family: Family, data: Data, u_hat: np.ndarray, loglik: float, index: int,
                     level: float) -> tuple[float, float]:
    """Where twice the drop of the profile log-likelihood reaches the chi-square(1) quantile, on
    the internal coordinate ``index``; mapped back to the parameter (monotone)."""
    threshold = _chi2_quantile(level) / 2
    negative = objective(family, data)
    others = [i for i in range(u_hat.size) if i != index]
    located = isinstance(family, LogLaplace)
    warm = [float(u_hat[others[0]])] if others else []

    def drop(value: float) -> float:
        u = u_hat.copy()
        u[index] = value
        if located:  # kappa0 is maximised too (held at its estimate the intervals are too short)
            other = others[0]

            def inner_located(rest: np.ndarray) -> float:
                u[other] = rest[0]
                moved = _log_laplace_at(rest[1])
                return 1e300 if moved is None else objective(moved, data)(u)
            value_at = optimize.minimize(inner_located, [u_hat[other], family.m], method="Nelder-Mead",
                                         options={"xatol": 1e-7, "fatol": 1e-9}).fun
        elif others:  # every other family has at most two parameters: the other one by Brent
            other = others[0]

            def inner(rest: float) -> float:
                u[other] = rest
                return negative(u)
            # from the inner maximum at the last value probed (the profile's path is smooth, and
            # the root finder probes values near one another)
            start = warm[0]
            best = optimize.minimize_scalar(inner, bracket=(start - 0.01, start + 0.01),
                                            method="brent", tol=1e-8)
            value_at = best.fun
            if math.isfinite(best.x) and best.fun < 1e300:
                warm[0] = float(best.x)
        else:
            value_at = negative(u)
        return (value_at + loglik) - threshold  # >= 0 once outside the interval

    memo: dict[float, float] = {}

    def drop_once(value: float) -> float:
        # the root finder sees the values the search saw (the inner maximum starts warm, so a
        # second evaluation may differ in the last digits, and a bracket must keep its signs)
        if value not in memo:
            memo[value] = drop(value)
        return memo[value]

    # the first step from the curvature along the coordinate (the others held): the profile is at
    # most as curved, so 1.5 times the step that would reach the threshold of that parabola
    h = 1e-4 * max(1.0, abs(u_hat[index]))
    shifted = [u_hat.copy(), u_hat.copy()]
    shifted[0][index] -= h
    shifted[1][index] += h
    curvature = (negative(shifted[0]) + negative(shifted[1]) + 2 * loglik) / (h * h)
    first = 1.5 * math.sqrt(2 * threshold / curvature) if curvature > 0 and math.isfinite(curvature) \
        else 0.1 * max(1.0, abs(u_hat[index]))
    first = max(first, 1e-9 * max(1.0, abs(u_hat[index])))  # a step the coordinate can resolve
    ends = []
    for direction in (-1.0, 1.0):
        step = first
        inside = u_hat[index]
        end = None
        warm[:] = [float(u_hat[other]) for other in others[:1]]
        for _ in range(60):
            outside = u_hat[index] + direction * step
            if drop_once(outside) >= 0:
                try:
                    end = optimize.brentq(drop_once, min(inside, outside), max(inside, outside),
                                          xtol=1e-8 * max(1.0, abs(outside)))
                except ValueError:  # the profile is above the threshold at the estimate itself
                    raise NoMaximum("the likelihood's profile is not continuous at the optimiser's "
                                    "answer: it is no maximum") from None
                break
            inside, step = outside, step * 2
            if abs(outside) > 700:
                break
        ends.append(end)
    name = family.parameter_names[index]
    low_end, high_end = family.domain(name)
    probe = u_hat.copy()
    probe[index] += 1.0
    increasing = family.values(probe)[name] > family.values(u_hat)[name]

    def parameter(u_value: float | None, direction: float) -> float:
        if u_value is None:  # the likelihood stays within the threshold up to the domain's end
            return high_end if (direction > 0) == increasing else low_end
        u = u_hat.copy()
        u[index] = u_value
        return family.values(u)[name]

    low, high = parameter(ends[0], -1.0), parameter(ends[1], 1.0)
    return (min(low, high), max(low, high))


# ---------------------------------------------------------------------------
# one kind set's fit, and its cross-validation


def model_support(kinds: tuple[str, ...], support: tuple[float, float] | None, data: Data
                   ) -> tuple[tuple[float, float], bool, str]:
    """(support, whether its lower end was fitted from the data, why the kind set cannot be fitted
    there or '')."""
    if support is None:
        if kinds == ("log",):
            return (float(np.min(data.events)), INF), True, ""
        return (0.0, INF), False, ""
    lower, upper = support
    if kinds == ("mean", "log") and (lower, upper) != (0.0, INF):
        return support, False, "the gamma family is fitted on [0, inf) only"
    if kinds == LOG_LAPLACE and (lower, upper) != (0.0, INF):
        return support, False, "the log-Laplace family is fitted on (0, inf) only"
    if kinds == ("log",) and lower == 0 and upper == INF:
        return support, False, "E[log kappa] alone has no law on [0, inf): give a positive lower end"
    return support, False, ""


def fit_one(kinds: tuple[str, ...], support: tuple[float, float] | None, data: Data) -> Fit:
    """The kind set's maximum-likelihood fit; raises NoMaximum or DataError.

    A family never fits below a family it nests: the log-Laplace law's supremum may lie on its
    boundary (beta or alpha to infinity: the Pareto law from the smallest captime, or the power
    law up to the largest), which is then the fit; the gamma law also starts from the
    exponential's maximum (its shape 1)."""
    (lower, upper), fitted_lower, why = model_support(kinds, support, data)
    if why:
        raise NoMaximum(why)
    family = family_for(kinds, lower, upper)
    if kinds != ("mean",) and lower == 0 and np.any(data.events == 0):
        raise NoMaximum("a captime of 0 has no log")
    distinct = np.unique(np.concatenate([data.events, data.censored])).size
    if kinds == LOG_LAPLACE:
        fitted_lower = True  # kappa0, found by a search
    n_parameters = len(family.parameter_names) + int(fitted_lower)
    if distinct < n_parameters:
        raise NoMaximum(f"{distinct} distinct time(s) cannot fix {n_parameters} parameter(s)")
    if n_parameters > 1 and np.unique(data.events).size == 1 and not np.any(data.censored > data.events[0]):
        # a law ever more concentrated at that captime: log f there grows without bound, and no
        # censored record beyond it pays for the vanishing tail
        raise NoMaximum("every captime is the same time and no censored record lies beyond it: the "
                        "likelihood grows without bound toward a point mass there")
    if kinds == LOG_LAPLACE:
        return _fit_log_laplace(data, n_parameters)
    with np.errstate(all="ignore"):
        try:
            exact = family.exact_parameters(data.events, data.censored)
        except ZeroDivisionError:  # every record at the support's lower end
            exact = None
    if exact is not None and not all(math.isfinite(v) and v != 0 for v in exact.values()):
        exact = None
    start = exact if exact is not None else family.start(np.concatenate([data.events, data.censored]))
    p, loglik = maximise(family, data, start)
    if exact is not None:
        # the likelihood equations give the maximum exactly: keep it unless the optimiser beat it
        at_exact = log_likelihood(family, data, exact)
        if at_exact >= loglik - 1e-9 * max(1.0, abs(loglik)):
            p, loglik = exact, at_exact
    for nested in family.nested_starts(data):
        if log_likelihood(family, data, nested) > loglik:
            p, loglik = maximise(family, data, nested)
    return Fit(family, p, loglik, n_parameters)


def _log_laplace_at(m: float) -> LogLaplace | None:
    """The log-Laplace family with kappa0 = exp(m); None where exp(m) is 0 or beyond a double."""
    kappa0 = math.exp(m) if m < 709.0 else INF
    return LogLaplace(0.0, INF, kappa0) if 0.0 < kappa0 < INF else None


def _at_location(m: float, data: Data, start: dict[str, float] | None = None
                 ) -> tuple[Family, dict[str, float], float] | None:
    """The log-Laplace fit with kappa0 = exp(m), or None where it has no maximum; ``start``: the
    fit at a nearby kappa0 (the optimiser then has little to walk)."""
    family = _log_laplace_at(m)
    if family is None:
        return None
    if not data.censored.size:  # the likelihood equations solve in closed form
        p = family.moment_parameters(data.events)
        return None if p is None else (family, p, log_likelihood(family, data, p))
    try:
        p, loglik = maximise(family, data,
                             start or family.start(np.concatenate([data.events, data.censored])))
    except NoMaximum:
        return None
    return family, p, loglik


def _fit_log_laplace(data: Data, n_parameters: int) -> Fit:
    """The log-Laplace law's maximum: kappa0 on a grid of the captimes' order statistics, then
    refined by Brent's method between the best one's neighbours (the profile likelihood of kappa0
    is continuous but has a kink at every captime: without censoring its maximum is one of them,
    so the captimes nearest the refined point are tried too); then the boundary, where the
    supremum may lie (see :func:`_log_laplace_boundary`)."""
    logs = np.log(np.unique(data.events))
    inner = logs[1:-1] if logs.size > 2 else logs
    most = _LOCATION_CANDIDATES[bool(data.censored.size)]
    if inner.size > most:
        inner = inner[np.unique(np.linspace(0, inner.size - 1, most).round().astype(int))]
    fits: list = []
    for m in inner:  # in increasing order: each fit starts from its neighbour's
        previous = next((fit[1] for fit in reversed(fits) if fit is not None), None)
        fits.append(_at_location(float(m), data, previous))
    scores = np.array([-INF if fit is None else fit[2] for fit in fits])
    chosen = None
    if np.isfinite(scores).any():
        best = int(np.argmax(scores))
        low, high = inner[max(best - 1, 0)], inner[min(best + 1, inner.size - 1)]
        chosen = fits[best]
        if high > low:
            def negative(m: float) -> float:
                fit = _at_location(m, data, chosen[1])
                return 1e300 if fit is None else -fit[2]
            with np.errstate(all="ignore"):
                refined = optimize.minimize_scalar(negative, bounds=(low, high), method="bounded",
                                                   options={"xatol": 1e-9 * max(1.0, abs(low))}).x
            near = logs[(logs >= low) & (logs <= high)]
            near = near[np.argsort(np.abs(near - refined))[:2]]
            for m in (refined, *near):
                fit = _at_location(float(m), data, chosen[1])
                if fit is not None and fit[2] > chosen[2]:
                    chosen = fit
    edge = _log_laplace_boundary(data, n_parameters)
    if edge is not None and (chosen is None or edge.loglik >= chosen[2]):
        return edge
    if chosen is None:
        raise NoMaximum("no kappa0 has captimes on both sides with a maximum of the likelihood")
    return Fit(*chosen, n_parameters)


def _log_laplace_boundary(data: Data, n_parameters: int) -> Fit | None:
    """The best of the log-Laplace law's limits on its boundary, or None where neither has a
    maximum: beta -> inf empties the side below kappa0, leaving the Pareto law (its best kappa0
    the smallest captime); alpha -> inf empties the side above, leaving the power law on
    (0, kappa0] (kappa0 the largest captime). The likelihood inside approaches these limits, so
    an interior fit below one of them stopped on its way to the boundary."""
    events = data.events
    limits = ((None, "beta", "the Pareto law from the smallest captime"),
              ((0.0, float(np.max(events))), "alpha", "the power law up to the largest captime"))
    best = None
    for support, parameter, law in limits:
        try:
            with np.errstate(all="ignore"):
                fit = fit_one(("log",), support, data)
        except NoMaximum:
            continue
        if not math.isfinite(fit.loglik) or (best is not None and fit.loglik <= best.loglik):
            continue
        note = (f"on the boundary: the likelihood grows as {parameter} -> inf; its supremum, {law}, "
                "is the fit")
        best = Fit(fit.family, fit.parameters, fit.loglik, n_parameters, note)
    return best


def location_interval(data: Data, family: Family, p: dict[str, float], loglik: float, level: float
                      ) -> tuple[float, float]:
    """The profile-likelihood interval of the log-Laplace's kappa0 (alpha and beta maximised at
    each kappa0), found on log kappa0 as :func:`profile_interval` finds the others."""
    threshold = _chi2_quantile(level) / 2
    m_hat = family.m
    logs = np.log(data.events)
    step = 0.05 * max(float(np.ptp(logs)), 1e-3)

    def drop(m: float) -> float:
        fit = _at_location(m, data, p)
        return INF if fit is None else (loglik - fit[2]) - threshold

    ends = []
    for direction in (-1.0, 1.0):
        inside, distance, end = m_hat, step, None
        for _ in range(40):
            outside = m_hat + direction * distance
            if drop(outside) >= 0:
                end = optimize.brentq(lambda m: min(drop(m), 1e300), min(inside, outside),
                                      max(inside, outside), xtol=1e-9 * max(1.0, abs(outside)))
                break
            inside, distance = outside, distance * 2
        ends.append(end)
    low = 0.0 if ends[0] is None else math.exp(ends[0])
    high = INF if ends[1] is None else math.exp(ends[1])
    return low, high


def cross_validated(kinds: tuple[str, ...], support: Any, data: Data, assignment: np.ndarray) -> float:
    """The held-out log-likelihood summed over folds; NaN when a fold's training data has no fit.

    ``assignment`` gives each record's fold, the events first, then the censored records; every
    kind set is scored on the same folds, so their sums compare."""
    records = np.concatenate([data.events, data.censored])
    is_censored = np.concatenate([np.zeros(data.events.size, bool), np.ones(data.censored.size, bool)])
    total = 0.0
    for fold in range(int(assignment.max()) + 1):
        train, test = assignment != fold, assignment == fold
        training = Data(records[train & ~is_censored], records[train & is_censored])
        if not training.events.size:
            return math.nan
        try:
            fit = fit_one(kinds, support, training)
        except NoMaximum:
            return math.nan
        held_out = Data(records[test & ~is_censored], records[test & is_censored])
        with np.errstate(all="ignore"):
            total += log_likelihood(fit.family, held_out, fit.parameters)
    return total
