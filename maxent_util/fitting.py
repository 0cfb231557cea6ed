"""The captime law learned from records of real waiting (:func:`fit_captime`).

A log of how long people waited holds two kinds of record: the time a person gave up (the
captime itself) and the time an answer came while the person was still waiting (a
right-censored captime: it is known only to exceed that time).  The maximum-entropy law of
moment constraints E[g_i(kappa)] = v_i is the exponential family
f(kappa) = exp(-sum_i lambda_i g_i(kappa)) / Z(lambda) on the support, so stating which
expectations the data should fix (the *kinds*: ``"mean"`` for kappa, ``"log"`` for
log kappa, ``"log2"`` for (log kappa)**2) names a family, and the values come from the data
by maximum likelihood.  Without censoring the likelihood equations are the moment equations
(the fitted law has the sample's moments); with censoring a censored record adds log SF at its
time to the log-likelihood.

Each kind set has its family written in closed form (its normaliser and survival function with
scipy.special, in log space): ``mean`` is the exponential law (truncated on a bounded support),
``log`` the Pareto or power law, ``log`` + ``log2`` the log-normal (truncated on a bounded
support), ``mean`` + ``log`` the gamma law.  The fit minimises the negative log-likelihood with
scipy.optimize in an unconstrained parametrisation; the law handed out is then derived by
:func:`~maxent_util.derive` (or its preset) from the constraints whose values are the fitted
moments, and checked against the family's closed form at the data's quantiles.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import math
from typing import Any, Sequence

import numpy as np
import pandas as pd
import sympy
from scipy import optimize, special, stats

from .bootstrap import check_level, generator
from .constraints import LogMoment, Mean, SquaredLogDeviation, Support
from .distribution import CaptimeDistribution
from .errors import DataError, MaxEntError, argument_message, short
from .families import exponential, log_normal, pareto
from .maxent import derive
from .runs import _runs_array, first_bad

__all__ = ["fit_captime", "CaptimeFit", "ModelFit", "KINDS", "KIND_SETS", "CRITERIA"]

OWNER = "fit_captime"

#: the kinds of sufficient statistic, each with the constraint kind whose expectation it fixes
KINDS: dict[str, str] = {"mean": "Mean", "log": "LogMoment", "log2": "SquaredLogDeviation"}

#: the kind sets fitted (in this order) when ``kinds`` is not given, with their families
KIND_SETS: dict[tuple[str, ...], str] = {
    ("mean",): "exponential",
    ("log",): "Pareto (power law)",
    ("log", "log2"): "log-normal",
    ("mean", "log"): "gamma",
}

#: how :func:`fit_captime` chooses between kind sets
CRITERIA = ("aic", "bic", "cv")

#: a fitted law's log-density may differ from its family's closed form by at most this much
#: (the derived law is checked at the data's quantiles when it is made)
_LAW_AGREEMENT = 1e-6

_INF = math.inf


# ---------------------------------------------------------------------------
# log-space integrals shared by the families


def _log1mexp(x: np.ndarray) -> np.ndarray:
    """log(1 - exp(x)) for x <= 0, without cancellation at either end (Maechler's rule)."""
    x = np.asarray(x, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(x > -math.log(2), np.log(-np.expm1(x)), np.log1p(-np.exp(x)))


def _log_integral_exp(a: float, lower: Any, upper: Any) -> np.ndarray:
    """log of the integral of exp(a y) over [lower, upper] (either end may be infinite where the
    integral converges; ``lower`` may be an array), in log space."""
    lower = np.asarray(lower, dtype=float)
    width = upper - lower
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if a == 0.0:
            return np.log(width)
        if a > 0.0:
            return a * upper + _log1mexp(-a * width) - math.log(a)
        return a * lower + _log1mexp(a * width) - math.log(-a)


def _mean_of_exp(a: float, lower: float, upper: float) -> float:
    """E[y] for the density proportional to exp(a y) on [lower, upper]."""
    if lower == -_INF:
        return upper - 1.0 / a
    if upper == _INF:
        return lower - 1.0 / a
    width = upper - lower
    if abs(a * width) < 1e-6:  # the series: 1/x - 1/expm1(x) cancels near 0
        return lower + width / 2 + a * width * width / 12
    return lower - 1.0 / a - width / math.expm1(-a * width)


def _log_normal_mass(low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """log(Phi(high) - Phi(low)), in the tail where both are close to 1 by symmetry."""
    low, high = np.broadcast_arrays(np.asarray(low, dtype=float), np.asarray(high, dtype=float))
    flip = low > 0
    a, b = np.where(flip, -high, low), np.where(flip, -low, high)
    log_b = special.log_ndtr(b)
    return log_b + _log1mexp(special.log_ndtr(a) - log_b)


# ---------------------------------------------------------------------------
# the families: closed forms in an unconstrained parametrisation


class _Family:
    """One kind set on one support: log-pdf and log-SF in closed form.

    ``values(u)`` maps the optimiser's unconstrained vector to the named parameters,
    ``internal(values)`` back; ``law_constraints`` gives the constraints whose values are the
    fitted moments, and ``preset`` the catalogue's preset when one is the same law.
    """

    name = ""
    parameter_names: tuple[str, ...] = ()

    def __init__(self, lower: float, upper: float) -> None:
        self.lower, self.upper = lower, upper

    def values(self, u: np.ndarray) -> dict[str, float]:
        raise NotImplementedError

    def internal(self, values: dict[str, float]) -> np.ndarray:
        raise NotImplementedError

    def domain(self, name: str) -> tuple[float, float]:
        """The range of values the parameter ``name`` can take on this support."""
        raise NotImplementedError

    def logpdf(self, x: np.ndarray, p: dict[str, float]) -> np.ndarray:
        """log f(x): -inf outside the support (a fold's Pareto law may start above a held-out time)."""
        x = np.asarray(x, dtype=float)
        inside = (x >= self.lower) & (x <= self.upper)
        with np.errstate(all="ignore"):
            return np.where(inside, self._logpdf(np.where(inside, x, self._inner), p), -_INF)

    def logsf(self, x: np.ndarray, p: dict[str, float]) -> np.ndarray:
        """log S(x) = log P(kappa > x): 0 below the support, -inf from its upper end."""
        x = np.asarray(x, dtype=float)
        below, beyond = x <= self.lower, x >= self.upper
        with np.errstate(all="ignore"):
            inner = self._logsf(np.where(below | beyond, self._inner, x), p)
        return np.where(below, 0.0, np.where(beyond, -_INF, inner))

    @property
    def _inner(self) -> float:
        """A point inside the support, evaluated in place of the points outside it."""
        return self.lower + 1.0 if self.upper == _INF else (self.lower + self.upper) / 2

    def _logpdf(self, x: np.ndarray, p: dict[str, float]) -> np.ndarray:
        raise NotImplementedError

    def _logsf(self, x: np.ndarray, p: dict[str, float]) -> np.ndarray:
        raise NotImplementedError

    def start(self, events: np.ndarray) -> dict[str, float]:
        raise NotImplementedError

    def moment_parameters(self, events: np.ndarray) -> dict[str, float] | None:
        """The maximum-likelihood parameters of uncensored data from its moments (None: none)."""
        return None

    def law_constraints(self, p: dict[str, float]) -> tuple:
        raise NotImplementedError

    def preset(self, p: dict[str, float]) -> CaptimeDistribution | None:
        return None

    @property
    def has_preset(self) -> bool:
        """Whether :meth:`preset` gives the law (then it is not derived again)."""
        return False

    def support_constraint(self) -> Support:
        return Support(self.lower, _sympy_end(self.upper))


def _sympy_end(value: float) -> Any:
    return sympy.oo if value == _INF else value


class _Exponential(_Family):
    """kind ``mean``: f proportional to exp(-rate kappa) on [lower, upper]."""

    name = "exponential"
    parameter_names = ("rate",)

    def values(self, u: np.ndarray) -> dict[str, float]:
        return {"rate": math.exp(u[0]) if self.upper == _INF else float(u[0]) / self._scale}

    def internal(self, values: dict[str, float]) -> np.ndarray:
        rate = values["rate"]
        return np.array([math.log(rate) if self.upper == _INF else rate * self._scale])

    @property
    def _scale(self) -> float:
        # a bounded rate is searched in units of 1/width: the optimiser's steps are then of order 1
        return 1.0 / (self.upper - self.lower)

    def domain(self, name: str) -> tuple[float, float]:
        return (0.0, _INF) if self.upper == _INF else (-_INF, _INF)

    def _log_norm(self, rate: float) -> float:
        return float(_log_integral_exp(-rate, self.lower, self.upper))

    def _logpdf(self, x: np.ndarray, p: dict[str, float]) -> np.ndarray:
        return -p["rate"] * x - self._log_norm(p["rate"])

    def _logsf(self, x: np.ndarray, p: dict[str, float]) -> np.ndarray:
        x = np.maximum(x, self.lower)
        return _log_integral_exp(-p["rate"], x, self.upper) - self._log_norm(p["rate"])

    def start(self, events: np.ndarray) -> dict[str, float]:
        excess = max(float(np.mean(events)) - self.lower, 1e-300)
        if self.upper == _INF:
            return {"rate": 1.0 / excess}
        return {"rate": 0.0}

    def moment_parameters(self, events: np.ndarray) -> dict[str, float] | None:
        return {"rate": 1.0 / (float(np.mean(events)) - self.lower)} if self.upper == _INF else None

    def mean(self, p: dict[str, float]) -> float:
        return _mean_of_exp(-p["rate"], self.lower, self.upper)

    def law_constraints(self, p: dict[str, float]) -> tuple:
        return (self.support_constraint(), Mean(self.mean(p)))

    @property
    def has_preset(self) -> bool:
        return self.lower == 0 and self.upper == _INF

    def preset(self, p: dict[str, float]) -> CaptimeDistribution | None:
        return exponential(1.0 / p["rate"]) if self.has_preset else None


class _Power(_Family):
    """kind ``log``: f proportional to kappa**(-alpha - 1) on [lower, upper] (Pareto when upper is
    infinite)."""

    name = "Pareto"
    parameter_names = ("alpha",)

    def __init__(self, lower: float, upper: float) -> None:
        super().__init__(lower, upper)
        self.log_lower = math.log(lower) if lower > 0 else -_INF
        self.log_upper = math.log(upper) if upper < _INF else _INF
        if upper < _INF:
            self.name = "power law"

    def values(self, u: np.ndarray) -> dict[str, float]:
        if self.upper == _INF:
            return {"alpha": math.exp(u[0])}
        if self.lower == 0:
            return {"alpha": -math.exp(u[0])}
        return {"alpha": float(u[0])}

    def internal(self, values: dict[str, float]) -> np.ndarray:
        alpha = values["alpha"]
        if self.upper == _INF:
            return np.array([math.log(alpha)])
        if self.lower == 0:
            return np.array([math.log(-alpha)])
        return np.array([alpha])

    def domain(self, name: str) -> tuple[float, float]:
        if self.upper == _INF:
            return (0.0, _INF)
        return (-_INF, 0.0) if self.lower == 0 else (-_INF, _INF)

    def _log_norm(self, alpha: float) -> float:
        return float(_log_integral_exp(-alpha, self.log_lower, self.log_upper))

    def _logpdf(self, x: np.ndarray, p: dict[str, float]) -> np.ndarray:
        with np.errstate(divide="ignore"):
            return -(p["alpha"] + 1) * np.log(x) - self._log_norm(p["alpha"])

    def _logsf(self, x: np.ndarray, p: dict[str, float]) -> np.ndarray:
        with np.errstate(divide="ignore"):
            y = np.log(np.maximum(x, self.lower))
        return _log_integral_exp(-p["alpha"], y, self.log_upper) - self._log_norm(p["alpha"])

    def start(self, events: np.ndarray) -> dict[str, float]:
        if self.upper == _INF:
            return {"alpha": 1.0 / max(float(np.mean(np.log(events))) - self.log_lower, 1e-300)}
        return {"alpha": -1.0 if self.lower == 0 else 0.0}

    def moment_parameters(self, events: np.ndarray) -> dict[str, float] | None:
        if self.upper < _INF:
            return None
        return {"alpha": 1.0 / (float(np.mean(np.log(events))) - self.log_lower)}

    def mean_log(self, p: dict[str, float]) -> float:
        return _mean_of_exp(-p["alpha"], self.log_lower, self.log_upper)

    def law_constraints(self, p: dict[str, float]) -> tuple:
        kappa0 = self.lower if self.lower > 0 else self.upper
        return (self.support_constraint(), LogMoment(self.mean_log(p) - math.log(kappa0), kappa0))

    @property
    def has_preset(self) -> bool:
        return self.upper == _INF

    def preset(self, p: dict[str, float]) -> CaptimeDistribution | None:
        return pareto(self.lower, p["alpha"]) if self.has_preset else None


class _LogNormal(_Family):
    """kinds ``log`` and ``log2``: log kappa normal (mu, sigma), truncated to [lower, upper]."""

    name = "log-normal"
    parameter_names = ("mu", "sigma")

    def __init__(self, lower: float, upper: float) -> None:
        super().__init__(lower, upper)
        self.log_lower = math.log(lower) if lower > 0 else -_INF
        self.log_upper = math.log(upper) if upper < _INF else _INF
        if lower > 0 or upper < _INF:
            self.name = "truncated log-normal"

    def values(self, u: np.ndarray) -> dict[str, float]:
        return {"mu": float(u[0]), "sigma": math.exp(u[1])}

    def internal(self, values: dict[str, float]) -> np.ndarray:
        return np.array([values["mu"], math.log(values["sigma"])])

    def domain(self, name: str) -> tuple[float, float]:
        return (0.0, _INF) if name == "sigma" else (-_INF, _INF)

    def _log_mass(self, p: dict[str, float]) -> float:
        mu, sigma = p["mu"], p["sigma"]
        return float(_log_normal_mass((self.log_lower - mu) / sigma, (self.log_upper - mu) / sigma))

    def _logpdf(self, x: np.ndarray, p: dict[str, float]) -> np.ndarray:
        y = np.log(x)
        z = (y - p["mu"]) / p["sigma"]
        return -y - math.log(p["sigma"]) - 0.5 * math.log(2 * math.pi) - 0.5 * z * z - self._log_mass(p)

    def _logsf(self, x: np.ndarray, p: dict[str, float]) -> np.ndarray:
        with np.errstate(divide="ignore"):
            y = np.log(np.maximum(x, self.lower))
        z = (y - p["mu"]) / p["sigma"]
        return _log_normal_mass(z, (self.log_upper - p["mu"]) / p["sigma"]) - self._log_mass(p)

    def start(self, events: np.ndarray) -> dict[str, float]:
        y = np.log(events)
        return {"mu": float(np.mean(y)), "sigma": max(float(np.std(y)), 1e-3)}

    def moment_parameters(self, events: np.ndarray) -> dict[str, float] | None:
        if self.lower > 0 or self.upper < _INF:
            return None
        y = np.log(events)
        return {"mu": float(np.mean(y)), "sigma": float(np.std(y))}

    def log_moments(self, p: dict[str, float]) -> tuple[float, float]:
        """E[log kappa] and the standard deviation of log kappa."""
        mu, sigma = p["mu"], p["sigma"]
        truncated = stats.truncnorm((self.log_lower - mu) / sigma, (self.log_upper - mu) / sigma,
                                    loc=mu, scale=sigma)
        mean, variance = truncated.stats(moments="mv")
        return float(mean), math.sqrt(float(variance))

    def law_constraints(self, p: dict[str, float]) -> tuple:
        mean, spread = self.log_moments(p)
        kappa0 = math.exp(mean)
        return (self.support_constraint(), LogMoment(0, kappa0), SquaredLogDeviation(spread, kappa0))

    @property
    def has_preset(self) -> bool:
        return self.lower == 0 and self.upper == _INF

    def preset(self, p: dict[str, float]) -> CaptimeDistribution | None:
        return log_normal(math.exp(p["mu"]), p["sigma"]) if self.has_preset else None


class _Gamma(_Family):
    """kinds ``mean`` and ``log``: f proportional to kappa**(shape - 1) exp(-rate kappa) on [0, oo)."""

    name = "gamma"
    parameter_names = ("shape", "rate")

    def values(self, u: np.ndarray) -> dict[str, float]:
        return {"shape": math.exp(u[0]), "rate": math.exp(u[1])}

    def internal(self, values: dict[str, float]) -> np.ndarray:
        return np.array([math.log(values["shape"]), math.log(values["rate"])])

    def domain(self, name: str) -> tuple[float, float]:
        return (0.0, _INF)

    def _logpdf(self, x: np.ndarray, p: dict[str, float]) -> np.ndarray:
        k, r = p["shape"], p["rate"]
        with np.errstate(divide="ignore", invalid="ignore"):
            return k * math.log(r) - special.gammaln(k) + (k - 1) * np.log(x) - r * x

    def _logsf(self, x: np.ndarray, p: dict[str, float]) -> np.ndarray:
        with np.errstate(divide="ignore"):
            return np.log(special.gammaincc(p["shape"], p["rate"] * np.asarray(x, dtype=float)))

    def start(self, events: np.ndarray) -> dict[str, float]:
        mean, variance = float(np.mean(events)), float(np.var(events))
        shape = mean * mean / variance if variance > 0 else 1.0
        return {"shape": shape, "rate": shape / mean}

    def law_constraints(self, p: dict[str, float]) -> tuple:
        mean = p["shape"] / p["rate"]
        # the log-moment about the mean: a value of order one whatever the unit of time
        mean_log = float(special.digamma(p["shape"])) - math.log(p["rate"])
        return (Mean(mean), LogMoment(mean_log - math.log(mean), mean))


def _family(kinds: tuple[str, ...], lower: float, upper: float) -> _Family:
    if kinds == ("mean",):
        return _Exponential(lower, upper)
    if kinds == ("log",):
        return _Power(lower, upper)
    if kinds == ("log", "log2"):
        return _LogNormal(lower, upper)
    return _Gamma(lower, upper)


# ---------------------------------------------------------------------------
# the likelihood and its maximum


@dataclasses.dataclass(frozen=True)
class _Data:
    events: np.ndarray    # times at which a person stopped waiting (the captime)
    censored: np.ndarray  # times at which a person was still waiting (the captime exceeds them)


def _log_likelihood(family: _Family, data: _Data, p: dict[str, float]) -> float:
    total = float(np.sum(family.logpdf(data.events, p)))
    if data.censored.size:
        total += float(np.sum(family.logsf(data.censored, p)))
    return total if math.isfinite(total) else -_INF


def _objective(family: _Family, data: _Data) -> Any:
    def negative(u: np.ndarray) -> float:
        try:
            with np.errstate(all="ignore"):
                value = -_log_likelihood(family, data, family.values(u))
        except (OverflowError, ValueError, ZeroDivisionError):
            return 1e300
        return value if math.isfinite(value) else 1e300
    return negative


def _maximise(family: _Family, data: _Data, start: dict[str, float]) -> tuple[dict[str, float], float]:
    """The maximum-likelihood parameters and the log-likelihood there; raises _NoMaximum."""
    negative = _objective(family, data)
    u0 = family.internal(start)
    best = optimize.minimize(negative, u0, method="BFGS", options={"gtol": 1e-9, "maxiter": 500})
    if not best.success:  # BFGS stalls where a log-SF underflows: the simplex does not need slopes
        polished = optimize.minimize(negative, best.x, method="Nelder-Mead",
                                     options={"xatol": 1e-10, "fatol": 1e-12, "maxiter": 4000})
        if polished.fun < best.fun:
            best = polished
    if best.fun >= 1e300 or not np.all(np.isfinite(best.x)) or np.max(np.abs(best.x)) > 600:
        raise _NoMaximum(family.name)
    p = family.values(best.x)
    return p, -float(best.fun)


class _NoMaximum(Exception):
    """The likelihood has no finite maximum (the parameters run off to a boundary)."""


# ---------------------------------------------------------------------------
# profile-likelihood intervals


def _profile_interval(family: _Family, data: _Data, u_hat: np.ndarray, loglik: float, index: int,
                      level: float) -> tuple[float, float]:
    """Where twice the drop of the profile log-likelihood reaches the chi-square(1) quantile, on
    the internal coordinate ``index``; mapped back to the parameter (monotone)."""
    threshold = float(stats.chi2.ppf(level, 1)) / 2
    negative = _objective(family, data)
    others = [i for i in range(u_hat.size) if i != index]

    def drop(value: float) -> float:
        u = u_hat.copy()
        u[index] = value
        if others:  # every family has at most two parameters: the other one by Brent's method
            other = others[0]

            def inner(rest: float) -> float:
                u[other] = rest
                return negative(u)
            start = u_hat[other]
            value_at = optimize.minimize_scalar(inner, bracket=(start - 0.1, start + 0.1),
                                                method="brent", tol=1e-10).fun
        else:
            value_at = negative(u)
        return (value_at + loglik) - threshold  # >= 0 once outside the interval

    # the first step from the curvature along the coordinate (the others held): the profile is at
    # most as curved, so 1.5 times the step that would reach the threshold of that parabola
    h = 1e-4 * max(1.0, abs(u_hat[index]))
    shifted = [u_hat.copy(), u_hat.copy()]
    shifted[0][index] -= h
    shifted[1][index] += h
    curvature = (negative(shifted[0]) + negative(shifted[1]) + 2 * loglik) / (h * h)
    first = 1.5 * math.sqrt(2 * threshold / curvature) if curvature > 0 and math.isfinite(curvature) \
        else 0.1 * max(1.0, abs(u_hat[index]))
    ends = []
    for direction in (-1.0, 1.0):
        step = first
        inside = u_hat[index]
        end = None
        for _ in range(60):
            outside = u_hat[index] + direction * step
            if drop(outside) >= 0:
                end = optimize.brentq(drop, min(inside, outside), max(inside, outside),
                                      xtol=1e-8 * max(1.0, abs(outside)))
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
# the public records


@dataclasses.dataclass(frozen=True)
class ModelFit:
    """The maximum-likelihood fit of one kind set.

    Attributes
    ----------
    kinds : the kinds of sufficient statistic, e.g. ``("log", "log2")``.
    family : the family they give on the support, e.g. ``"log-normal"``.
    support : (lower, upper) of the law.
    parameters : parameter name -> maximum-likelihood estimate.
    intervals : parameter name -> (lower, upper) profile-likelihood interval at ``level``.
    loglik : the log-likelihood at the estimate (censored records contribute log SF).
    n_parameters : the number of fitted parameters, a support end fitted from the data included.
    aic, bic : Akaike's and Schwarz's criteria, -2 loglik + 2k and -2 loglik + k log n.
    cv_loglik : the cross-validated log-likelihood (the sum over folds of the held-out records'
        log-likelihood under the fit to the other folds), or None when not asked for.
    note : why the fit is missing or incomplete; empty when it is not.
    """

    kinds: tuple[str, ...]
    family: str
    support: tuple[float, float]
    parameters: dict[str, float]
    intervals: dict[str, tuple[float, float]]
    loglik: float
    n_parameters: int
    aic: float
    bic: float
    cv_loglik: float | None = None
    note: str = ""


@dataclasses.dataclass(frozen=True)
class CaptimeFit:
    """What :func:`fit_captime` found: every kind set's fit, the chosen one and its law.

    Attributes
    ----------
    models : kinds -> :class:`ModelFit`, in the order fitted.
    chosen : the kinds of the model the criterion prefers.
    criterion : ``"aic"``, ``"bic"`` or ``"cv"``.
    level : the confidence level of the intervals.
    provenance : ``sha256`` of the data (little-endian float64 times, then one byte per record,
        1 for censored), ``n``, ``censored`` (their count), ``criterion``, ``kinds``, ``intervals``.
    """

    models: dict[tuple[str, ...], ModelFit]
    chosen: tuple[str, ...]
    criterion: str
    level: float
    provenance: dict[str, Any]
    _families: dict = dataclasses.field(default_factory=dict, repr=False, compare=False)
    _moments: dict = dataclasses.field(default_factory=dict, repr=False, compare=False)
    _data: Any = dataclasses.field(default=None, repr=False, compare=False)

    @property
    def law(self) -> CaptimeDistribution:
        """The chosen model's captime law (see :meth:`law_of`)."""
        return self.law_of(self.chosen)

    def law_of(self, kinds: Sequence[str]) -> CaptimeDistribution:
        """The maximum-entropy law of one fitted kind set, as an ordinary distribution.

        Parameters
        ----------
        kinds : sequence of str
            One of the fitted kind sets, e.g. ``("log", "log2")``.

        Returns
        -------
        CaptimeDistribution
            The law derived from the constraints whose values are the fitted moments (the
            sample's moments without censoring); its ``notes`` hold the provenance.

        Raises
        ------
        DataError
            If ``kinds`` is not one of the fitted kind sets.
        MaxEntError
            If the derived law disagrees with the family's closed form at the fitted parameters.
        """
        key = tuple(kinds) if not isinstance(kinds, str) else (kinds,)
        if key not in self.models or self.models[key].note:
            fitted = ", ".join("+".join(k) for k, m in self.models.items() if not m.note)
            raise DataError(argument_message("kinds", "CaptimeFit.law_of",
                                             f"one of the fitted kind sets ({fitted})", kinds))
        return _built_law(self, key)

    @property
    def table(self) -> pd.DataFrame:
        """The models side by side: one row per kind set, best first by the criterion."""
        rows = []
        for kinds, model in self.models.items():
            row = {"kinds": "+".join(kinds), "family": model.family, "parameters": model.n_parameters,
                   "loglik": model.loglik, "aic": model.aic, "bic": model.bic}
            if self.criterion == "cv":
                row["cv_loglik"] = model.cv_loglik
            row["chosen"] = kinds == self.chosen
            row["note"] = model.note
            rows.append(row)
        frame = pd.DataFrame(rows).set_index("kinds")
        column = "cv_loglik" if self.criterion == "cv" else self.criterion
        best = frame[column].max() if self.criterion == "cv" else frame[column].min()
        frame.insert(frame.columns.get_loc("chosen"), "delta", (frame[column] - best).abs())
        ascending = self.criterion != "cv"
        return frame.sort_values(column, ascending=ascending, na_position="last")

    @property
    def estimates(self) -> pd.DataFrame:
        """Every model's parameters with their profile-likelihood intervals, one row each."""
        rows = [{"kinds": "+".join(kinds), "parameter": name, "estimate": value,
                 "lower": model.intervals[name][0], "upper": model.intervals[name][1]}
                for kinds, model in self.models.items() for name, value in model.parameters.items()]
        return pd.DataFrame(rows, columns=["kinds", "parameter", "estimate", "lower", "upper"])


@functools.lru_cache(maxsize=64)
def _cached_law(kinds: tuple, support: tuple, moments: tuple, values: tuple, note: str,
                name: str) -> CaptimeDistribution:
    family = _family(kinds, *support)
    p = dict(values)
    law = family.preset(p) if moments == () else None
    if law is None:
        law = derive(*moments)
    record = law.derivation
    law = law._evolve(derivation=dataclasses.replace(record, notes=tuple(record.notes) + (note,)))
    return law.with_name(name)._share()


def _built_law(fit: CaptimeFit, kinds: tuple[str, ...]) -> CaptimeDistribution:
    model = fit.models[kinds]
    family = fit._families[kinds]
    moments = fit._moments.get(kinds)
    provenance = fit.provenance
    note = (f"fitted by maximum likelihood (kinds {'+'.join(kinds)}, {model.family}) to "
            f"{provenance['n']} waiting times, {provenance['censored']} of them right-censored; "
            f"data sha256 {provenance['sha256']}; chosen by {fit.criterion.upper()} among "
            f"{', '.join('+'.join(k) for k in fit.models)}"
            if kinds == fit.chosen else
            f"fitted by maximum likelihood (kinds {'+'.join(kinds)}, {model.family}) to "
            f"{provenance['n']} waiting times, {provenance['censored']} of them right-censored; "
            f"data sha256 {provenance['sha256']}; not the model {fit.criterion.upper()} chose")
    name = f"fit({'+'.join(kinds)}, n={provenance['n']}, censored={provenance['censored']})"
    law = _cached_law(kinds, model.support, moments if moments is not None else (),
                      tuple(sorted(model.parameters.items())), note, name)
    _check_law(law, family, model.parameters, fit._data)
    return law


def _check_law(law: CaptimeDistribution, family: _Family, p: dict[str, float], data: _Data) -> None:
    """The derived law must be the fitted family member: log-densities agree at the data's
    quantiles (a second route, as a compiled scorer checks itself)."""
    points = np.quantile(np.concatenate([data.events, data.censored]), [0.1, 0.5, 0.9])
    points = points[(points > family.lower) & (points < family.upper)]
    if not points.size:
        return
    with np.errstate(divide="ignore"):
        derived = np.log(law.to_scipy().pdf(points))
    expected = family.logpdf(points, p)
    gap = float(np.max(np.abs(derived - expected)))
    if not gap <= _LAW_AGREEMENT * max(1.0, float(np.max(np.abs(expected)))):
        raise MaxEntError(
            f"the law derived from the fitted moments ({', '.join(map(repr, law.constraints))}) "
            f"differs from the fitted {family.name} law by {gap:.3g} in log-density at "
            f"{', '.join(f'{x:.6g}' for x in points)}; it is not handed out.")


# ---------------------------------------------------------------------------
# arguments


def _check_times(times: Any, censored: Any) -> tuple[np.ndarray, np.ndarray]:
    if isinstance(times, (list, tuple)):
        # numpy reads [1.0, True] as two floats: a flag among the times is a mistake
        bad = next((i for i, v in enumerate(times) if isinstance(v, (bool, np.bool_, str, bytes))), None)
        if bad is not None:
            raise DataError(argument_message(f"times[{bad}]", OWNER, "a number (not True/False or text)",
                                             short(times[bad])))
    values = _runs_array(times, "times", OWNER)
    n = values.shape[0]
    if n == 0:
        raise DataError(argument_message("times", OWNER, "non-empty", "no records"))
    bad = first_bad(~(np.isfinite(values) & (values >= 0)))
    if bad is not None:
        raise DataError(argument_message(f"times[{bad}]", OWNER, "a finite nonnegative number of "
                                         "seconds", float(values[bad])))
    if censored is None:
        flags = np.zeros(n, bool)
    else:
        if isinstance(censored, (str, bytes)) or np.ndim(censored) != 1:
            raise DataError(argument_message("censored", OWNER, "None or one True/False per time",
                                             short(censored)))
        raw = np.asarray(censored, dtype=object)
        if raw.shape[0] != n:
            raise DataError(argument_message("censored", OWNER, f"of length {n} (one flag per time)",
                                             raw.shape[0]))
        bad = first_bad(~np.array([isinstance(v, (bool, np.bool_)) or (
            isinstance(v, (int, np.integer)) and v in (0, 1)) for v in raw], bool))
        if bad is not None:
            raise DataError(argument_message(f"censored[{bad}]", OWNER, "True or False (or 1 or 0)",
                                             short(raw[bad])))
        flags = raw.astype(bool)
    if flags.all():
        raise DataError(argument_message(
            "censored", OWNER, "False for at least one record (a time someone stopped waiting)",
            f"all {n} censored", "Every record only says that the wait went on; no law can be "
            "fitted without a single captime."))
    return values, flags


def _check_kind_sets(kinds: Any) -> list[tuple[str, ...]]:
    if kinds is None:
        return list(KIND_SETS)
    if isinstance(kinds, str):
        sets = [(kinds,)]
    elif isinstance(kinds, (list, tuple)) and kinds and all(isinstance(k, str) for k in kinds):
        sets = [tuple(kinds)]
    elif isinstance(kinds, (list, tuple)) and kinds and all(
            isinstance(k, (list, tuple)) and k and all(isinstance(s, str) for s in k) for k in kinds):
        sets = [tuple(k) for k in kinds]
    else:
        raise DataError(argument_message(
            "kinds", OWNER, "a kind set such as ('log', 'log2'), a list of kind sets, or None",
            short(kinds)))
    known = {frozenset(s): s for s in KIND_SETS}
    chosen = []
    for kind_set in sets:
        unknown = [k for k in kind_set if k not in KINDS]
        if unknown:
            raise DataError(argument_message("kinds", OWNER, f"made of the kinds {', '.join(KINDS)}",
                                             unknown[0]))
        canonical = known.get(frozenset(kind_set))
        if canonical is None or len(set(kind_set)) != len(kind_set):
            raise DataError(argument_message(
                "kinds", OWNER, "one of the kind sets with a family: "
                + ", ".join(f"{'+'.join(s)} ({f})" for s, f in KIND_SETS.items()), kind_set))
        if canonical in chosen:
            raise DataError(argument_message("kinds", OWNER, "kind sets each named once", kind_set))
        chosen.append(canonical)
    return chosen


def _check_support(support: Any) -> tuple[float, float] | None:
    if support is None:
        return None
    try:
        lower, upper = (float(end) for end in support)
        valid = not isinstance(support, (str, bytes)) and all(
            not isinstance(end, (bool, np.bool_, str, bytes)) for end in support)
    except (TypeError, ValueError, OverflowError):
        valid = False
    if not valid or not (0 <= lower < upper) or not math.isfinite(lower):
        raise DataError(argument_message("support", OWNER, "None or a pair (lower, upper) with "
                                         "0 <= lower < upper (upper may be inf)", short(support)))
    return lower, upper


def _model_support(kinds: tuple[str, ...], support: tuple[float, float] | None, data: _Data
                   ) -> tuple[tuple[float, float], bool, str]:
    """(support, whether its lower end was fitted from the data, why the kind set cannot be fitted
    there or '')."""
    if support is None:
        if kinds == ("log",):
            return (float(np.min(data.events)), _INF), True, ""
        return (0.0, _INF), False, ""
    lower, upper = support
    if kinds == ("mean", "log") and (lower, upper) != (0.0, _INF):
        return support, False, "the gamma family is fitted on [0, inf) only"
    if kinds == ("log",) and lower == 0 and upper == _INF:
        return support, False, "E[log kappa] alone has no law on [0, inf): give a positive lower end"
    return support, False, ""


def _sha256(times: np.ndarray, flags: np.ndarray) -> str:
    digest = hashlib.sha256()
    digest.update(np.ascontiguousarray(times, dtype="<f8").tobytes())
    digest.update(flags.astype(np.uint8).tobytes())
    return digest.hexdigest()


# ---------------------------------------------------------------------------
# the entry point


def _fit_one(kinds: tuple[str, ...], support: tuple[float, float] | None, data: _Data
             ) -> tuple[_Family, dict[str, float], float, bool]:
    """The family, its maximum-likelihood parameters, the log-likelihood and whether the support's
    lower end was fitted; raises _NoMaximum or DataError."""
    (lower, upper), fitted_lower, why = _model_support(kinds, support, data)
    if why:
        raise _NoMaximum(why)
    family = _family(kinds, lower, upper)
    if kinds != ("mean",) and lower == 0 and np.any(data.events == 0):
        raise _NoMaximum("a captime of 0 has no log")
    distinct = np.unique(data.events).size
    if distinct < len(family.parameter_names) + fitted_lower:
        raise _NoMaximum(f"{distinct} distinct captime(s) cannot fix "
                         f"{len(family.parameter_names) + fitted_lower} parameter(s)")
    exact = None
    if not data.censored.size:
        with np.errstate(all="ignore"):
            try:
                exact = family.moment_parameters(data.events)
            except ZeroDivisionError:  # every captime at the support's lower end
                exact = None
        if exact is not None and not all(math.isfinite(v) and v != 0 for v in exact.values()):
            exact = None
    p, loglik = _maximise(family, data, exact if exact is not None else family.start(data.events))
    if exact is not None:
        # the moment equations give the maximum exactly: keep it unless the optimiser beat it
        at_exact = _log_likelihood(family, data, exact)
        if at_exact >= loglik - 1e-9 * max(1.0, abs(loglik)):
            p, loglik = exact, at_exact
    return family, p, loglik, fitted_lower


def fit_captime(times: Any, censored: Any = None, *, kinds: Any = None,
                support: Any = None, criterion: str = "aic", level: float = 0.95,
                folds: int = 5, seed: Any = 0) -> CaptimeFit:
    r"""The maximum-entropy captime law learned from records of real waiting.

    Each kind set names the expectations the law should fix (``"mean"``: E[kappa],
    ``"log"``: E[log kappa], ``"log2"``: E[(log kappa)^2]); its maximum-entropy law is the
    exponential family

    .. math:: f(\kappa) = \exp\Big(-\sum_i \lambda_i g_i(\kappa)\Big) / Z(\lambda)

    on the support, fitted by maximum likelihood. A censored record (a person still waiting
    when the answer came) adds :math:`\log S(c)` at its time :math:`c` to the log-likelihood.

    Parameters
    ----------
    times : array_like of float
        Waiting times in seconds: when a person gave up, or, for a censored record, how long
        they had waited when the answer came.
    censored : array_like of bool, optional
        True where the record is right-censored (the captime exceeds its time); None: none is.
    kinds : tuple of str, list of tuples, or None, keyword-only
        One kind set (``("log", "log2")``) or several to choose from; None fits every set of
        :data:`KIND_SETS`: ``mean`` (exponential), ``log`` (Pareto), ``log+log2`` (log-normal),
        ``mean+log`` (gamma).
    support : (float, float), optional, keyword-only
        The support [lower, upper] of the law (upper may be ``inf``). None: [0, inf), except for
        ``log`` alone, whose lower end is fitted as the smallest captime (the Pareto law's
        maximum-likelihood scale, counted as a parameter).
    criterion : {"aic", "bic", "cv"}, keyword-only
        How the model is chosen: the smallest AIC or BIC, or the largest cross-validated
        log-likelihood over ``folds`` folds. AIC and BIC are reported in every case.
    level : float, keyword-only
        Confidence level of the profile-likelihood intervals of the parameters.
    folds : int, keyword-only
        Number of folds for ``criterion="cv"`` (records assigned at random by ``seed``).
    seed : int, numpy.random.Generator or None, keyword-only
        The seed of the folds' assignment.

    Returns
    -------
    CaptimeFit
        ``models`` (each kind set's :class:`ModelFit`), ``table`` (side by side), ``estimates``
        (parameters with intervals), ``chosen``, and ``law``: the chosen law, an ordinary
        :class:`~maxent_util.CaptimeDistribution` whose ``notes`` give the provenance.

    Raises
    ------
    DataError
        If ``times`` is empty or holds a negative, infinite or NaN value; ``censored`` is not one
        flag per time or flags every record; ``kinds``, ``support``, ``criterion``, ``level``,
        ``folds`` or ``seed`` is not one of the values described; a time lies outside
        ``support``; or no kind set has a maximum-likelihood fit on the data.

    Notes
    -----
    Without censoring, maximum likelihood in an exponential family matches the sufficient
    statistics' sample means: the fitted law is the maximum-entropy law of the constraints
    whose values are the data's moments. The intervals are profile-likelihood intervals:
    where twice the drop of the profile log-likelihood reaches the chi-square(1) quantile.

    Examples
    --------
    >>> import numpy as np
    >>> times = np.random.default_rng(1).exponential(60.0, size=200)
    >>> fit = fit_captime(times, kinds=("mean",))
    >>> round(1 / fit.models[("mean",)].parameters["rate"], 6) == round(float(times.mean()), 6)
    True
    """
    values, flags = _check_times(times, censored)
    kind_sets = _check_kind_sets(kinds)
    bounds = _check_support(support)
    if not (isinstance(criterion, str) and criterion in CRITERIA):
        raise DataError(argument_message("criterion", OWNER, f"one of {', '.join(map(repr, CRITERIA))}",
                                         short(criterion)))
    level = check_level(level, OWNER, "level")
    rng = generator(seed, OWNER)
    data = _Data(values[~flags], values[flags])
    n = values.shape[0]
    if criterion == "cv" and (isinstance(folds, (bool, np.bool_)) or not isinstance(folds, (int, np.integer))
                              or not 2 <= folds <= n):
        raise DataError(argument_message("folds", OWNER, f"an integer from 2 to the number of "
                                         f"records ({n})", short(folds)))
    if bounds is not None:
        lower, upper = bounds
        bad = first_bad((data.events < lower) | (data.events > upper))
        if bad is not None:
            index = int(np.flatnonzero(~flags)[bad])
            raise DataError(argument_message(f"times[{index}]", OWNER, f"within the support "
                                             f"[{lower:g}, {upper:g}]", float(values[index])))
        bad = first_bad(data.censored >= upper)
        if bad is not None:
            index = int(np.flatnonzero(flags)[bad])
            raise DataError(argument_message(
                f"times[{index}]", OWNER, f"below the support's upper end {upper:g} (a censored "
                "record says the captime exceeds it)", float(values[index])))

    models: dict[tuple[str, ...], ModelFit] = {}
    families: dict[tuple[str, ...], _Family] = {}
    moments: dict[tuple[str, ...], tuple] = {}
    for kind_set in kind_sets:
        try:
            family, p, loglik, fitted_lower = _fit_one(kind_set, bounds, data)
        except _NoMaximum as reason:
            family_name = KIND_SETS[kind_set]
            models[kind_set] = ModelFit(kind_set, family_name, bounds or (0.0, _INF), {}, {}, -_INF, 0,
                                        _INF, _INF, None, f"no fit: {reason}")
            continue
        k = len(p) + int(fitted_lower)
        u_hat = family.internal(p)
        intervals = {name: _profile_interval(family, data, u_hat, loglik, index, level)
                     for index, name in enumerate(family.parameter_names)}
        cv = _cross_validated(kind_set, bounds, data, folds, rng) if criterion == "cv" else None
        note = "" if cv is None or not math.isnan(cv) else \
            "no cross-validated log-likelihood: the training records of a fold have no fit"
        models[kind_set] = ModelFit(kind_set, family.name, (family.lower, family.upper), p, intervals,
                                    loglik, k, -2 * loglik + 2 * k, -2 * loglik + k * math.log(n),
                                    cv, note)
        families[kind_set] = family
        moments[kind_set] = _moment_constraints(family, p, data)
    usable = {k: m for k, m in models.items() if not m.note}
    if not usable:
        raise DataError(argument_message(
            "times", OWNER, "data with a maximum-likelihood fit for at least one kind set",
            f"{n} records", "; ".join(f"{'+'.join(k)}: {m.note}" for k, m in models.items())))
    if criterion == "cv":
        chosen = max(usable, key=lambda k: usable[k].cv_loglik)  # -inf: a held-out time impossible
    else:
        chosen = min(usable, key=lambda k: getattr(usable[k], criterion))
    provenance = {"sha256": _sha256(values, flags), "n": int(n), "censored": int(flags.sum()),
                  "criterion": criterion, "kinds": chosen,
                  "intervals": f"profile likelihood, {level:g}"}
    return CaptimeFit(models, chosen, criterion, level, provenance, families, moments, data)


def _moment_constraints(family: _Family, p: dict[str, float], data: _Data) -> tuple:
    """The constraints of the law handed out: () where the catalogue's preset is the law,
    else the support and the moments at the fitted parameters."""
    if family.has_preset:
        return ()
    return family.law_constraints(p)


def _cross_validated(kinds: tuple[str, ...], support: Any, data: _Data, folds: int,
                     rng: np.random.Generator) -> float:
    """The held-out log-likelihood summed over folds; NaN when a fold's training data has no fit."""
    records = np.concatenate([data.events, data.censored])
    is_censored = np.concatenate([np.zeros(data.events.size, bool), np.ones(data.censored.size, bool)])
    assignment = rng.permutation(records.size) % folds
    total = 0.0
    for fold in range(folds):
        train, test = assignment != fold, assignment == fold
        training = _Data(records[train & ~is_censored], records[train & is_censored])
        if not training.events.size:
            return math.nan
        try:
            family, p, _, _ = _fit_one(kinds, support, training)
        except _NoMaximum:
            return math.nan
        held_out = _Data(records[test & ~is_censored], records[test & is_censored])
        with np.errstate(all="ignore"):
            total += _log_likelihood(family, held_out, p)
    return total
