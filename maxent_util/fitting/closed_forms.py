"""The families of :func:`~maxent_util.fitting.fit_captime` in closed form.

One class per kind set: its log-density and log-survival function on a support (normaliser and
tail in log space, with scipy.special), an unconstrained parametrisation for the optimiser, and
the constraints (or the catalogue's preset) whose maximum-entropy law it is.  ``mean`` is the
exponential law (truncated on a bounded support), ``log`` the Pareto or power law, ``log`` +
``log2`` the log-normal (truncated on a bounded support), ``mean`` + ``log`` the gamma law, and
``log_below`` + ``log_above`` (the conditional log-moments on either side of ``kappa0``, with a
density continuous there) the generalized log-Laplace law.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import sympy
import scipy  # scipy.stats (0.5 to 1 s to import) is loaded by scipy when first used: a bounded log-normal's moments
from scipy import special

from ..constraints import ContinuousAt, LogMoment, Mean, SquaredLogDeviation, Support
from ..distribution import CaptimeDistribution
from ..families import exponential, generalized_log_laplace, log_normal, pareto

__all__ = ["Family", "Exponential", "Power", "LogNormal", "Gamma", "LogLaplace", "family_for", "INF",
           "LOG_LAPLACE", "in_seconds"]

#: the kind set of the generalized log-Laplace law (its kappa0 is fitted by a search, not a slope)
LOG_LAPLACE = ("log_below", "log_above")

INF = math.inf


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
    if lower == -INF:
        return upper - 1.0 / a
    if upper == INF:
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


def in_seconds(name: str, value: float, k: int) -> float:
    """A parameter fitted with time measured in units of 2**k seconds, in seconds.

    Every family here is a scale family: the fit is made in units near the data's median, so
    that neither 1e-300 s nor 1e300 s leaves the range of a double on the way, and a power of
    two changes no digit of the times."""
    if name == "rate":
        return math.ldexp(value, -k)
    if name == "kappa0":
        return math.ldexp(value, k)
    if name == "mu":
        return value + k * math.log(2.0)
    return value  # exponents (alpha, beta, shape) and sigma have no unit


# ---------------------------------------------------------------------------
# the families: closed forms in an unconstrained parametrisation


class Family:
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
            return np.where(inside, self._logpdf(np.where(inside, x, self._inner), p), -INF)

    def logsf(self, x: np.ndarray, p: dict[str, float]) -> np.ndarray:
        """log S(x) = log P(kappa > x): 0 below the support, -inf from its upper end."""
        x = np.asarray(x, dtype=float)
        below, beyond = x <= self.lower, x >= self.upper
        with np.errstate(all="ignore"):
            inner = self._logsf(np.where(below | beyond, self._inner, x), p)
        return np.where(below, 0.0, np.where(beyond, -INF, inner))

    @property
    def _inner(self) -> float:
        """A point inside the support, evaluated in place of the points outside it."""
        return self.lower + 1.0 if self.upper == INF else (self.lower + self.upper) / 2

    def _logpdf(self, x: np.ndarray, p: dict[str, float]) -> np.ndarray:
        raise NotImplementedError

    def _logsf(self, x: np.ndarray, p: dict[str, float]) -> np.ndarray:
        raise NotImplementedError

    def start(self, times: np.ndarray) -> dict[str, float]:
        """A starting point of the right scale, from every record's time (censored ones read as
        captimes); a fallback where they are degenerate (the optimiser then walks)."""
        raise NotImplementedError

    def moment_parameters(self, events: np.ndarray) -> dict[str, float] | None:
        """The maximum-likelihood parameters of uncensored data from its moments (None: none)."""
        return None

    def exact_parameters(self, events: np.ndarray, censored: np.ndarray) -> dict[str, float] | None:
        """The maximum-likelihood parameters in closed form, censored records included (None:
        none); without censoring, those of :meth:`moment_parameters`."""
        return None if censored.size else self.moment_parameters(events)

    def nested_starts(self, data: Any) -> tuple[dict[str, float], ...]:
        """The maxima of the families this one nests, as its own parameters: the fit is never
        below them (the optimiser starts again from one that is higher than its answer)."""
        return ()

    # the log-likelihood from sufficient statistics (``data``: the likelihood module's Data,
    # whose ``sums``, ``event_range`` and ``sorted_logs`` are computed once per data set)

    #: whether :meth:`gradient` gives the log-likelihood's gradient in closed form
    analytic_gradient = False

    def holds(self, data: Any) -> bool:
        """Whether every captime lies inside the support (:meth:`loglik` assumes it)."""
        if not data.events.size:
            return True
        smallest, largest = data.event_range
        return self.lower <= smallest and largest <= self.upper

    def loglik(self, data: Any, p: dict[str, float]) -> float:
        """The log-likelihood of ``data`` (every captime inside the support), the captimes' part
        from their sums; the censored times' log S record by record."""
        total = self._events_loglik(data, p)
        if data.censored.size:
            total += float(np.sum(self.logsf(data.censored, p)))
        return total

    def _events_loglik(self, data: Any, p: dict[str, float]) -> float:
        return float(np.sum(self.logpdf(data.events, p)))

    def gradient(self, data: Any, u: np.ndarray) -> np.ndarray:
        """The gradient of :meth:`loglik` in the optimiser's coordinates ``u``."""
        raise NotImplementedError

    def law_constraints(self, p: dict[str, float]) -> tuple:
        raise NotImplementedError

    def preset(self, p: dict[str, float]) -> CaptimeDistribution | None:
        return None

    def located(self) -> dict[str, float]:
        """Parameters fixed by a search before the optimiser runs (the log-Laplace's kappa0)."""
        return {}

    @property
    def has_preset(self) -> bool:
        """Whether :meth:`preset` gives the law (then it is not derived again)."""
        return False

    def support_constraint(self) -> Support:
        return Support(self.lower, _sympy_end(self.upper))

    def in_seconds(self, k: int) -> "Family":
        """The same family with time measured in seconds, its own in units of 2**k seconds."""
        return type(self)(math.ldexp(self.lower, k), math.ldexp(self.upper, k))


def _reciprocal(value: float) -> float:
    """1/value where that is a usable starting scale, else 1."""
    return 1.0 / value if 1e-300 < value < 1e300 else 1.0


def _sympy_end(value: float) -> Any:
    return sympy.oo if value == INF else value


class Exponential(Family):
    """kind ``mean``: f proportional to exp(-rate kappa) on [lower, upper]."""

    name = "exponential"
    parameter_names = ("rate",)

    def values(self, u: np.ndarray) -> dict[str, float]:
        return {"rate": math.exp(u[0]) if self.upper == INF else float(u[0]) / self._scale}

    def internal(self, values: dict[str, float]) -> np.ndarray:
        rate = values["rate"]
        return np.array([math.log(rate) if self.upper == INF else rate * self._scale])

    @property
    def _scale(self) -> float:
        # a bounded rate is searched in units of 1/width: the optimiser's steps are then of order 1
        return 1.0 / (self.upper - self.lower)

    def domain(self, name: str) -> tuple[float, float]:
        return (0.0, INF) if self.upper == INF else (-INF, INF)

    def _log_norm(self, rate: float) -> float:
        return float(_log_integral_exp(-rate, self.lower, self.upper))

    def _logpdf(self, x: np.ndarray, p: dict[str, float]) -> np.ndarray:
        return -p["rate"] * x - self._log_norm(p["rate"])

    def _logsf(self, x: np.ndarray, p: dict[str, float]) -> np.ndarray:
        x = np.maximum(x, self.lower)
        return _log_integral_exp(-p["rate"], x, self.upper) - self._log_norm(p["rate"])

    def _events_loglik(self, data: Any, p: dict[str, float]) -> float:
        n = data.events.size
        return -p["rate"] * data.sums["t"] - n * self._log_norm(p["rate"]) if n else 0.0

    def start(self, times: np.ndarray) -> dict[str, float]:
        if self.upper < INF:
            return {"rate": 0.0}  # the uniform law
        return {"rate": _reciprocal(float(np.mean(times)) - self.lower)}

    def exact_parameters(self, events: np.ndarray, censored: np.ndarray) -> dict[str, float] | None:
        # on [lower, oo): the number of captimes over the time every record spent above lower
        if self.upper < INF:
            return None
        exposure = float(np.sum(events - self.lower)) + float(np.sum(np.maximum(censored, self.lower) - self.lower))
        return {"rate": events.size / exposure}

    def mean(self, p: dict[str, float]) -> float:
        return _mean_of_exp(-p["rate"], self.lower, self.upper)

    def law_constraints(self, p: dict[str, float]) -> tuple:
        return (self.support_constraint(), Mean(self.mean(p)))

    @property
    def has_preset(self) -> bool:
        return self.lower == 0 and self.upper == INF

    def preset(self, p: dict[str, float]) -> CaptimeDistribution | None:
        return exponential(1.0 / p["rate"]) if self.has_preset else None


class Power(Family):
    """kind ``log``: f proportional to kappa**(-alpha - 1) on [lower, upper] (Pareto when upper is
    infinite)."""

    name = "Pareto"
    parameter_names = ("alpha",)

    def __init__(self, lower: float, upper: float) -> None:
        super().__init__(lower, upper)
        self.log_lower = math.log(lower) if lower > 0 else -INF
        self.log_upper = math.log(upper) if upper < INF else INF
        if upper < INF:
            self.name = "power law"

    def values(self, u: np.ndarray) -> dict[str, float]:
        if self.upper == INF:
            return {"alpha": math.exp(u[0])}
        if self.lower == 0:
            return {"alpha": -math.exp(u[0])}
        return {"alpha": float(u[0])}

    def internal(self, values: dict[str, float]) -> np.ndarray:
        alpha = values["alpha"]
        if self.upper == INF:
            return np.array([math.log(alpha)])
        if self.lower == 0:
            return np.array([math.log(-alpha)])
        return np.array([alpha])

    def domain(self, name: str) -> tuple[float, float]:
        if self.upper == INF:
            return (0.0, INF)
        return (-INF, 0.0) if self.lower == 0 else (-INF, INF)

    def _log_norm(self, alpha: float) -> float:
        return float(_log_integral_exp(-alpha, self.log_lower, self.log_upper))

    def _logpdf(self, x: np.ndarray, p: dict[str, float]) -> np.ndarray:
        with np.errstate(divide="ignore"):
            return -(p["alpha"] + 1) * np.log(x) - self._log_norm(p["alpha"])

    def _logsf(self, x: np.ndarray, p: dict[str, float]) -> np.ndarray:
        with np.errstate(divide="ignore"):
            y = np.log(np.maximum(x, self.lower))
        return _log_integral_exp(-p["alpha"], y, self.log_upper) - self._log_norm(p["alpha"])

    def _events_loglik(self, data: Any, p: dict[str, float]) -> float:
        n = data.events.size
        return -(p["alpha"] + 1) * data.sums["log"] - n * self._log_norm(p["alpha"]) if n else 0.0

    def start(self, times: np.ndarray) -> dict[str, float]:
        if self.upper < INF:
            return {"alpha": -1.0 if self.lower == 0 else 0.0}
        return {"alpha": _reciprocal(float(np.mean(np.log(times[times > 0]))) - self.log_lower)}

    def exact_parameters(self, events: np.ndarray, censored: np.ndarray) -> dict[str, float] | None:
        # on [lower, oo): the number of captimes over the sum of every record's log(t / lower)
        # (a censored time below lower adds log 1)
        if self.upper < INF:
            return None
        exposure = (float(np.sum(np.log(events))) - events.size * self.log_lower
                    + float(np.sum(np.log(np.maximum(censored, self.lower)))) - censored.size * self.log_lower)
        return {"alpha": events.size / exposure}

    def mean_log(self, p: dict[str, float]) -> float:
        return _mean_of_exp(-p["alpha"], self.log_lower, self.log_upper)

    def law_constraints(self, p: dict[str, float]) -> tuple:
        kappa0 = self.lower if self.lower > 0 else self.upper
        return (self.support_constraint(), LogMoment(self.mean_log(p) - math.log(kappa0), kappa0))

    @property
    def has_preset(self) -> bool:
        return self.upper == INF

    def preset(self, p: dict[str, float]) -> CaptimeDistribution | None:
        return pareto(self.lower, p["alpha"]) if self.has_preset else None


class LogNormal(Family):
    """kinds ``log`` and ``log2``: log kappa normal (mu, sigma), truncated to [lower, upper]."""

    name = "log-normal"
    parameter_names = ("mu", "sigma")

    def __init__(self, lower: float, upper: float) -> None:
        super().__init__(lower, upper)
        self.log_lower = math.log(lower) if lower > 0 else -INF
        self.log_upper = math.log(upper) if upper < INF else INF
        if lower > 0 or upper < INF:
            self.name = "truncated log-normal"

    def values(self, u: np.ndarray) -> dict[str, float]:
        return {"mu": float(u[0]), "sigma": math.exp(u[1])}

    def internal(self, values: dict[str, float]) -> np.ndarray:
        return np.array([values["mu"], math.log(values["sigma"])])

    def domain(self, name: str) -> tuple[float, float]:
        return (0.0, INF) if name == "sigma" else (-INF, INF)

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

    @property
    def analytic_gradient(self) -> bool:  # type: ignore[override]
        return self.lower == 0 and self.upper == INF

    def _events_loglik(self, data: Any, p: dict[str, float]) -> float:
        n = data.events.size
        if not n:
            return 0.0
        mu, sigma, sums = p["mu"], p["sigma"], data.sums
        squares = sums["log2"] - 2 * mu * sums["log"] + n * mu * mu  # sum of (log t - mu)**2
        return (-sums["log"] - n * (math.log(sigma) + 0.5 * math.log(2 * math.pi))
                - 0.5 * squares / (sigma * sigma) - n * self._log_mass(p))

    def loglik(self, data: Any, p: dict[str, float]) -> float:
        if not self.analytic_gradient:  # truncated: the censored times' log S by the general route
            return super().loglik(data, p)
        total = self._events_loglik(data, p)
        if data.censored.size:
            total += float(np.sum(special.log_ndtr((p["mu"] - data.sorted_logs[2]) / p["sigma"])))
        return total

    def gradient(self, data: Any, u: np.ndarray) -> np.ndarray:
        # untruncated: d/dmu and sigma d/dsigma; a censored time adds the hazard h = phi(z)/S(z)
        mu, sigma = float(u[0]), math.exp(u[1])
        n, sums = data.events.size, data.sums
        squares = sums["log2"] - 2 * mu * sums["log"] + n * mu * mu
        d_mu = (sums["log"] - n * mu) / (sigma * sigma)
        d_log_sigma = -n + squares / (sigma * sigma)
        if data.censored.size:
            z = (data.sorted_logs[2] - mu) / sigma
            hazard = np.exp(-0.5 * z * z - 0.5 * math.log(2 * math.pi) - special.log_ndtr(-z))
            d_mu += float(np.sum(hazard)) / sigma
            d_log_sigma += float(np.sum(hazard * z))
        return np.array([d_mu, d_log_sigma])

    def start(self, times: np.ndarray) -> dict[str, float]:
        y = np.log(times[times > 0])
        spread = float(np.std(y))
        return {"mu": float(np.mean(y)), "sigma": spread if 1e-3 < spread < 1e3 else 1.0}

    def moment_parameters(self, events: np.ndarray) -> dict[str, float] | None:
        if self.lower > 0 or self.upper < INF:
            return None
        y = np.log(events)
        return {"mu": float(np.mean(y)), "sigma": float(np.std(y))}

    def log_moments(self, p: dict[str, float]) -> tuple[float, float]:
        """E[log kappa] and the standard deviation of log kappa."""
        mu, sigma = p["mu"], p["sigma"]
        truncated = scipy.stats.truncnorm((self.log_lower - mu) / sigma, (self.log_upper - mu) / sigma,
                                    loc=mu, scale=sigma)
        mean, variance = truncated.stats(moments="mv")
        return float(mean), math.sqrt(float(variance))

    def law_constraints(self, p: dict[str, float]) -> tuple:
        mean, spread = self.log_moments(p)
        kappa0 = math.exp(mean)
        return (self.support_constraint(), LogMoment(0, kappa0), SquaredLogDeviation(spread, kappa0))

    @property
    def has_preset(self) -> bool:
        return self.lower == 0 and self.upper == INF

    def preset(self, p: dict[str, float]) -> CaptimeDistribution | None:
        return log_normal(math.exp(p["mu"]), p["sigma"]) if self.has_preset else None


class Gamma(Family):
    """kinds ``mean`` and ``log``: f proportional to kappa**(shape - 1) exp(-rate kappa) on [0, oo)."""

    name = "gamma"
    parameter_names = ("shape", "rate")

    def values(self, u: np.ndarray) -> dict[str, float]:
        return {"shape": math.exp(u[0]), "rate": math.exp(u[1])}

    def internal(self, values: dict[str, float]) -> np.ndarray:
        return np.array([math.log(values["shape"]), math.log(values["rate"])])

    def domain(self, name: str) -> tuple[float, float]:
        return (0.0, INF)

    def _logpdf(self, x: np.ndarray, p: dict[str, float]) -> np.ndarray:
        k, r = p["shape"], p["rate"]
        with np.errstate(divide="ignore", invalid="ignore"):
            return k * math.log(r) - special.gammaln(k) + (k - 1) * np.log(x) - r * x

    def _logsf(self, x: np.ndarray, p: dict[str, float]) -> np.ndarray:
        with np.errstate(divide="ignore"):
            return np.log(special.gammaincc(p["shape"], p["rate"] * np.asarray(x, dtype=float)))

    def _events_loglik(self, data: Any, p: dict[str, float]) -> float:
        n = data.events.size
        if not n:
            return 0.0
        k, r, sums = p["shape"], p["rate"], data.sums
        return n * (k * math.log(r) - float(special.gammaln(k))) + (k - 1) * sums["log"] - r * sums["t"]

    def start(self, times: np.ndarray) -> dict[str, float]:
        with np.errstate(all="ignore"):
            mean, variance = float(np.mean(times)), float(np.var(times))
            shape = mean * mean / variance
        shape = shape if 1e-3 < shape < 1e3 else 1.0
        return {"shape": shape, "rate": shape * _reciprocal(mean)}

    def nested_starts(self, data: Any) -> tuple[dict[str, float], ...]:
        # shape 1 is the exponential law, whose maximum with censoring is d / (sum of all times)
        with np.errstate(all="ignore"):
            rate = data.events.size / (float(np.sum(data.events)) + float(np.sum(data.censored)))
        return ({"shape": 1.0, "rate": rate},) if 0 < rate < INF else ()

    def law_constraints(self, p: dict[str, float]) -> tuple:
        mean = p["shape"] / p["rate"]
        # the log-moment about the mean: a value of order one whatever the unit of time
        mean_log = float(special.digamma(p["shape"])) - math.log(p["rate"])
        return (Mean(mean), LogMoment(mean_log - math.log(mean), mean))


class LogLaplace(Family):
    """kinds ``log_below`` and ``log_above``: in y = log kappa an asymmetric Laplace law about
    m = log kappa0, density (alpha beta / (alpha + beta)) exp(beta (y - m)) below m and
    exp(-alpha (y - m)) above, on (0, oo): the paper's generalized log-Laplace law."""

    name = "log-Laplace"
    parameter_names = ("alpha", "beta")

    def __init__(self, lower: float, upper: float, kappa0: float = 1.0) -> None:
        super().__init__(lower, upper)
        self.kappa0 = kappa0
        self.m = math.log(kappa0)

    def values(self, u: np.ndarray) -> dict[str, float]:
        return {"alpha": math.exp(u[0]), "beta": math.exp(u[1])}

    def internal(self, values: dict[str, float]) -> np.ndarray:
        return np.array([math.log(values["alpha"]), math.log(values["beta"])])

    def domain(self, name: str) -> tuple[float, float]:
        return (0.0, INF)

    def _logpdf(self, x: np.ndarray, p: dict[str, float]) -> np.ndarray:
        alpha, beta = p["alpha"], p["beta"]
        y = np.log(x)
        d = y - self.m
        return math.log(alpha * beta / (alpha + beta)) + np.where(d < 0, beta * d, -alpha * d) - y

    def _logsf(self, x: np.ndarray, p: dict[str, float]) -> np.ndarray:
        alpha, beta = p["alpha"], p["beta"]
        d = np.log(x) - self.m
        # above kappa0 the tail beta/(alpha+beta) exp(-alpha d); below, 1 minus the lower mass
        above = math.log(beta / (alpha + beta)) - alpha * np.maximum(d, 0.0)
        below = np.log1p(-(alpha / (alpha + beta)) * np.exp(beta * np.minimum(d, 0.0)))
        return np.where(d >= 0, above, below)

    analytic_gradient = True

    def _split(self, data: Any) -> tuple:
        """The records on either side of kappa0: the captimes' counts and sums of log distances
        below (negative) and above, the censored times' count and sum above, and the log
        distances of the censored times below (the only ones read one by one). Kept for the
        last data set: the optimiser evaluates one kappa0 many times."""
        cached = getattr(self, "_cached_split", None)
        if cached is not None and cached[0] is data:
            return cached[1]
        events, event_sums, censored, censored_sums = data.sorted_logs
        m = self.m
        i = int(np.searchsorted(events, m, side="left"))  # events[:i] lie below kappa0
        j = int(np.searchsorted(censored, m, side="left"))
        below = event_sums[i] - i * m
        above = (event_sums[-1] - event_sums[i]) - (events.size - i) * m
        censored_above = (censored_sums[-1] - censored_sums[j]) - (censored.size - j) * m
        split = (events.size, below, above, censored.size - j, censored_above, censored[:j] - m)
        self._cached_split = (data, split)
        return split

    def loglik(self, data: Any, p: dict[str, float]) -> float:
        alpha, beta = p["alpha"], p["beta"]
        n, below, above, n_above, censored_above, d = self._split(data)
        total = (n * math.log(alpha * beta / (alpha + beta)) + beta * below - alpha * above
                 - data.sums["log"])
        if n_above:
            total += n_above * math.log(beta / (alpha + beta)) - alpha * censored_above
        if d.size:
            total += float(np.sum(np.log1p(-(alpha / (alpha + beta)) * np.exp(beta * d))))
        return total

    def gradient(self, data: Any, u: np.ndarray) -> np.ndarray:
        alpha, beta = math.exp(u[0]), math.exp(u[1])
        total = alpha + beta
        n, below, above, n_above, censored_above, d = self._split(data)
        d_alpha = n * (1 / alpha - 1 / total) - above - n_above / total - censored_above
        d_beta = n * (1 / beta - 1 / total) + below + n_above * (1 / beta - 1 / total)
        if d.size:
            # log(1 - q e) with q = alpha / (alpha + beta) and e = exp(beta d) < 1
            e = np.exp(beta * d)
            ratio = e / (1 - (alpha / total) * e)
            d_alpha -= beta / total ** 2 * float(np.sum(ratio))
            d_beta += alpha / total ** 2 * float(np.sum(ratio)) - alpha / total * float(np.sum(d * ratio))
        return np.array([alpha * d_alpha, beta * d_beta])

    def start(self, times: np.ndarray) -> dict[str, float]:
        return self.moment_parameters(times[times > 0]) or {"alpha": 1.0, "beta": 1.0}

    def moment_parameters(self, events: np.ndarray) -> dict[str, float] | None:
        """The maximum at this kappa0 without censoring: with A and B the mean log-distances
        above and below it, alpha = 1/(A + sqrt(AB)), beta = 1/(B + sqrt(AB)) (the likelihood
        equations n beta / (alpha (alpha + beta)) = n A and n alpha / (beta (alpha + beta)) = n B)."""
        d = np.log(events) - self.m
        above, below = float(np.mean(np.maximum(d, 0.0))), float(np.mean(np.maximum(-d, 0.0)))
        if not (above > 0 and below > 0):
            return None
        geometric = math.sqrt(above * below)
        return {"alpha": 1.0 / (above + geometric), "beta": 1.0 / (below + geometric)}

    def located(self) -> dict[str, float]:
        return {"kappa0": self.kappa0}

    def in_seconds(self, k: int) -> Family:
        return LogLaplace(self.lower, self.upper, math.ldexp(self.kappa0, k))

    def law_constraints(self, p: dict[str, float]) -> tuple:
        return (Support(0, sympy.oo), LogMoment(1 / p["beta"], self.kappa0, side="below"),
                LogMoment(1 / p["alpha"], self.kappa0, side="above"), ContinuousAt(self.kappa0))

    @property
    def has_preset(self) -> bool:
        return True

    def preset(self, p: dict[str, float]) -> CaptimeDistribution | None:
        return generalized_log_laplace(self.kappa0, p["alpha"], p["beta"])


def family_for(kinds: tuple[str, ...], lower: float, upper: float, kappa0: float | None = None
               ) -> Family:
    if kinds == LOG_LAPLACE:
        return LogLaplace(lower, upper, 1.0 if kappa0 is None else kappa0)
    if kinds == ("mean",):
        return Exponential(lower, upper)
    if kinds == ("log",):
        return Power(lower, upper)
    if kinds == ("log", "log2"):
        return LogNormal(lower, upper)
    return Gamma(lower, upper)
