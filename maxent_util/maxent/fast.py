"""The double-precision route: a law of numbers in milliseconds, its closed form built on demand.

A maximum-entropy law is the exponential family f = exp(-sum_i lambda_i g_i 1_i) / Z whose
multipliers minimise the convex dual D(lambda) = log Z(lambda) + sum_i lambda_i v_i (its gradient
is v - E[g], its Hessian Cov[g]).  This module reads the constraints of the common kinds straight
from their values (no sympy), minimises D by Newton's method with a backtracking line search, and
integrates with Gauss-Legendre panels that are bisected until two rules agree to 1e-15 of Z.

An inequality (E[g] <= v or >= v) gives its multiplier a sign (lambda >= 0 or <= 0): Newton runs
on the dual with the bounds that do not bind held at 0 (an active set) and every step projected
onto the signs.  The dual's domain (where Z is finite) is read exactly from the exponent's leading
terms at 0 and infinity, and no step leaves it.

Each piece between breakpoints is integrated in kappa when it is a short finite interval and in
z = log(kappa) when it reaches 0 or infinity or spans a wide range: power laws, log-normals and
exponential tails are all smooth in z, and a tail is cut where its density falls below
e**-120 of the peak (further out it cannot change a double), provided every feature's integrand
g f is negligible there too (else the law's expectations are not the quadrature's).  A half-line
whose exponent is a polynomial in kappa (Mean, Moment(kappa**2)) has no power of kappa at its
start to resolve: it is integrated in kappa up to a turn beyond the scale its values name and in
log(kappa) beyond, and densities in the two variables are compared per unit of log(kappa).

A continuity condition is taken where it fixes the probability below its point in closed form:
the generalized log-Laplace law (``Support(0, oo)``, a LogMoment below and one above kappa0 and
``ContinuousAt(kappa0)``, all equalities), whose conditions hold together only at
P(kappa < kappa0) = a/(a + b); the condition is then that probability, whose multiplier is the
continuity condition's.

Anything this route cannot settle (a symbolic value, another continuity condition, a constraint at a
point outside the support, a set whose Newton iteration does not converge to the constraints, a
density that cannot be normalised) returns None, and :func:`~maxent_util.derive` takes its full
route, which raises the errors that explain why.  A law handed out has been checked by a rule
built at its own multipliers: every equality to 1e-13 of its scale, every bound met, the
multipliers of the right signs, every expectation resolved.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import math
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import numpy as np
import sympy

from ..constraints import (ContinuousAt, LogMoment, Mean, Moment, SquaredLogDeviation, Support,
                           TailProbability)
from ..errors import ConstraintError, argument_message
from ..problem import keep
from ..symbols import kappa

__all__ = ["FastProblem", "NumericLaw", "TimeUp", "fast_problem"]

#: Gauss-Legendre nodes and weights on [-1, 1], and a coarser rule to judge a panel by
_NODES, _WEIGHTS = np.polynomial.legendre.leggauss(20)
#: a tail is cut where the density falls this far (in log) below its peak
_TAIL = 120.0
#: at kappa = 1e-300 or 1e300 the density must be this far (in log) below its peak
_END_DROP = 70.0
#: log(kappa) runs over [-_LOG_END, _LOG_END]: exp of it is still a double
_LOG_END = 690.0
#: panels are bisected until each agrees with its two halves to this fraction of Z
_PANEL_TOLERANCE = 1e-15
#: the most panels, and rounds of bisection, one law may take
_MAX_PANELS = 4000
_MAX_ROUNDS = 45
#: Newton stops when every moment condition holds to this fraction of its scale
_TOLERANCE = 1e-13
_MAX_ITERATIONS = 200
#: halvings of the steps taken under one rule, back towards where they started, when no rule can
#: be built where they ended
_BACKTRACKS = 6
#: the first panels of log(kappa) are this wide (bisection refines them where the mass is)
_LOG_PANEL = 2.0
#: below this Newton decrement (the dual's predicted decrease) the full step is taken unchecked
_QUADRATIC = 1e-8
#: the most rules one solution may build (each line-search trial builds one)
_MAX_RULES = 400
#: the most rules a second start may build (see FastProblem._inside_start)
_RETRY_RULES = 40
#: a segment spanning more than this factor is integrated in log(kappa)
_WIDE = 100.0
#: the narrowest log-normal spread taken, relative to |log(kappa0)| (when above 1)
_NARROWEST = 1e-12
#: a feature's integrand g f where a tail is cut must be this far (in log) below its peak: the
#: expectation is then not changed by the cut (a law with E[g] infinite fails this)
_RESOLVED = 36.0
#: a half-line whose exponent is a polynomial in kappa is integrated in kappa from its start to
#: this many times the scale its constraints name (rounded up to a power of 2), in log(kappa)
#: beyond (see _split)
_LINEAR_REACH = 8.0


# ---------------------------------------------------------------------------
# features: g(kappa) from the constraints' numbers


@dataclass(frozen=True)
class _Feature:
    """g(kappa) = a kappa + a2 kappa**2 + b (log kappa - c) + d (log kappa - c)**2 + e
    + extra(kappa), on [lower, upper)."""

    value: float
    lower: float
    upper: float
    a: float = 0.0
    b: float = 0.0
    c: float = 0.0
    d: float = 0.0
    e: float = 0.0
    a2: float = 0.0
    extra: Callable | None = None
    #: the sign the multiplier must have: +1 for E[g] <= value (lambda >= 0), -1 for E[g] >=
    #: value (lambda <= 0), 0 for an equality (any sign)
    sign: int = 0
    #: whether the constraint is conditional on kappa being in [lower, upper): E[g] = 0 there
    #: states E[g | kappa in it] = 0 (a sided LogMoment)
    conditional: bool = False

    def __call__(self, k: np.ndarray, logk: np.ndarray) -> np.ndarray:
        # the terms added in a fixed order, from the first present one (adding them to a zero
        # start gave the same numbers, one array operation dearer)
        out = None if self.e == 0 else np.full(np.shape(k), self.e)
        if self.a:
            out = self.a * k if out is None else out + self.a * k
        if self.a2:
            out = self.a2 * k * k if out is None else out + self.a2 * k * k
        if self.b or self.d:
            shifted = logk - self.c
            out = self.b * shifted if out is None else out + self.b * shifted
            out = out + self.d * shifted * shifted
        if self.extra is not None:
            out = self.extra(k) if out is None else out + self.extra(k)
        return np.zeros(np.shape(k)) if out is None else out


def _number(value: Any) -> float | None:
    """A finite float of a sympy number, or None (a symbol, infinity)."""
    if isinstance(value, sympy.Rational):  # integers too: the common case, no tree to search
        try:
            return value.p / value.q  # correctly rounded, as float(value) is, without mpmath
        except OverflowError:
            return None
    if isinstance(value, sympy.Basic):
        if not value.is_number or value.has(sympy.oo, -sympy.oo, sympy.zoo, sympy.nan):
            return None
        try:
            number = float(value)
        except (TypeError, ValueError):
            return None
    else:
        number = float(value)
    return number if math.isfinite(number) else None


@functools.lru_cache(maxsize=256)
def _compiled(expr: sympy.Expr) -> Callable | None:
    """g(kappa) of a Moment's own expression, compiled for numpy (None when it cannot be)."""
    if expr.free_symbols != {kappa}:
        return None
    try:
        function = sympy.lambdify(kappa, expr, modules="numpy")
        probe = np.asarray(function(np.array([0.5, 2.0])), dtype=float)
    except Exception:  # a function numpy does not know
        return None
    return function if probe.shape == (2,) and np.all(np.isfinite(probe)) else None


#: the Moment expressions read by their coefficients, made once (not at every constraint)
_KAPPA_SQUARED = kappa ** 2
_LOG_KAPPA = sympy.log(kappa)

#: the sign of the multiplier of each relation (see _Feature.sign)
_SIGNS = {"==": 0, "<=": 1, ">=": -1}


def _feature(constraint: Any, lower: float, upper: float) -> _Feature | None:
    """The feature of one constraint of numbers, or None when this route does not take it."""
    feature = _equality_feature(constraint, lower, upper)
    if feature is None or constraint.relation == "==":
        return feature
    return dataclasses.replace(feature, sign=_SIGNS[constraint.relation])


def _equality_feature(constraint: Any, lower: float, upper: float) -> _Feature | None:
    if type(constraint) is Mean:
        value = _number(constraint.value)
        if value is None or not lower < value < upper:
            return None
        return _Feature(value, lower, upper, a=1.0)
    if type(constraint) is LogMoment:
        value, k0 = _number(constraint.value), _number(constraint.kappa0)
        side = constraint.arguments["side"]
        if value is None or k0 is None or k0 <= 0:
            return None
        c = math.log(k0)
        low = -math.inf if lower == 0 else math.log(lower) - c
        high = math.log(upper) - c
        if side is None:
            return _Feature(value, lower, upper, b=1.0, c=c) if low < value < high else None
        if not lower < k0 < upper or value <= 0:
            return None
        if side == "above":
            return _Feature(0.0, k0, upper, b=1.0, c=c, e=-value, conditional=True) if value < high else None
        return _Feature(0.0, lower, k0, b=-1.0, c=c, e=-value, conditional=True) if value < -low else None
    if type(constraint) is SquaredLogDeviation:
        sigma, k0 = _number(constraint.sigma), _number(constraint.kappa0)
        if sigma is None or k0 is None or sigma <= 0 or k0 <= 0:
            return None
        c = math.log(k0)
        # the law's width in log(kappa) is sigma: below a few units in the last place of log(kappa0)
        # no double resolves it (and sigma**2 underflows below 1e-162)
        least = max(_NARROWEST * max(1.0, abs(c)), 1e-150)
        if sigma < least:
            raise ConstraintError(argument_message(
                "sigma", "SquaredLogDeviation", f"at least {least:.3g} (a spread double precision "
                f"resolves around log(kappa0) = {c:.6g})", constraint.sigma))
        return _Feature(sigma * sigma, lower, upper, d=1.0, c=c)
    if type(constraint) is TailProbability:
        k1, delta = _number(constraint.kappa1), _number(constraint.delta)
        if k1 is None or delta is None or not lower < k1 < upper or not 0 < delta < 1:
            return None
        return _Feature(delta, lower, k1, e=1.0)
    if type(constraint) is Moment:
        value = _number(constraint.value)
        where = constraint.arguments.get("where")
        if value is None:
            return None
        low, high = lower, upper
        if where is not None:
            low, high = (_number(w) if w not in (sympy.oo, -sympy.oo) else None for w in where)
            if low is None or high is None or not lower <= low < high <= upper:
                return None
        expr = constraint.expr
        if expr == kappa:
            return _Feature(value, low, high, a=1.0)
        if expr == _KAPPA_SQUARED:
            return _Feature(value, low, high, a2=1.0)
        if expr == _LOG_KAPPA:
            return _Feature(value, low, high, b=1.0)
        function = _compiled(expr)
        return None if function is None else _Feature(value, low, high, extra=function)
    return None


def continuity_share(constraints: Sequence[Any]) -> tuple[sympy.Expr, sympy.Expr, sympy.Expr] | None:
    """(kappa0, a, b) of the generalized log-Laplace law's constraints, ``Support(0, oo)`` (or
    none), ``LogMoment(a, kappa0, side="below")``, ``LogMoment(b, kappa0, side="above")`` and
    ``ContinuousAt(kappa0)`` in any order, all equalities; None for any other set.

    Below kappa0 the law is a power of kappa whose log-distance log(kappa0/kappa) is exponential
    with mean a, above a Pareto tail whose log(kappa/kappa0) has mean b (rates beta = 1/a and
    alpha = 1/b); the densities p beta/kappa0 and (1 - p) alpha/kappa0 meet at kappa0 only for
    p = P(kappa < kappa0) = alpha/(alpha + beta) = a/(a + b) (the paper's Appendix C)."""
    supports = [c for c in constraints if type(c) is Support]
    others = [c for c in constraints if type(c) is not Support]
    if len(supports) > 1 or (supports and (supports[0].lower, supports[0].upper) != (0, sympy.oo)):
        return None
    if len(others) != 3 or any(c.relation != "==" or c.free_symbols for c in others):
        return None
    sides = {c.arguments.get("side"): c for c in others if type(c) is LogMoment}
    points = [c for c in others if type(c) is ContinuousAt]
    if set(sides) != {"below", "above"} or len(points) != 1:
        return None
    k0 = points[0].kappa0
    if sides["below"].kappa0 != k0 or sides["above"].kappa0 != k0:
        return None
    return k0, sides["below"].value, sides["above"].value


def sided_multipliers(a: Any, b: Any, p: Any, log: Callable[[Any], Any] = math.log) -> tuple[Any, Any, Any]:
    """The multipliers (below, above, share) of E[log(k0/kappa) | kappa < k0] = a,
    E[log(kappa/k0) | kappa >= k0] = b and P(kappa < k0) = p on (0, oo), in numbers of any kind
    (``log`` of their kind): a power of kappa on each side, exponents 1/a - 1 below and
    -(1/b + 1) above, and the indicator's multiplier from the ratio of the two masses,
    k0 a exp(lambda_below a - lambda_share) to k0 b exp(lambda_above b).  At the continuity
    condition's p = a/(a + b) the log is 0 and the share's multiplier -(a + b)."""
    below, above = 1 / a - 1, 1 / b + 1
    return below, above, below * a - above * b - log(p * b / ((1 - p) * a))


def _continuity_feature(constraints: Sequence[Any], lower: float, upper: float) -> _Feature | None:
    """The feature of a continuity condition: the indicator of kappa < kappa0 at its probability,
    where :func:`continuity_share` fixes it; else None."""
    found = continuity_share(constraints)
    if found is None:
        return None
    k0, a, b = found
    k1, share = _number(k0), _number(a / (a + b))
    if k1 is None or share is None or not lower < k1 < upper or not 0 < share < 1:
        return None
    return _Feature(share, lower, k1, e=1.0)


def fast_problem(constraints: Sequence[Any]) -> "FastProblem | None":
    """The double-precision problem of some constraints, or None when this route does not take
    them (see the module's docstring)."""
    lower, upper = 0.0, math.inf
    features: list[_Feature] = []
    supports = [c for c in constraints if type(c) is Support]
    if len(supports) > 1:
        return None
    if supports:
        low = _number(supports[0].lower)
        high = math.inf if supports[0].upper == sympy.oo else _number(supports[0].upper)
        if low is None or high is None or not 0 <= low < high:
            return None
        lower, upper = low, high
    for constraint in constraints:
        if type(constraint) is Support:
            continue
        if type(constraint) is ContinuousAt:
            feature = _continuity_feature(constraints, lower, upper)
        else:
            feature = _feature(constraint, lower, upper)
        if feature is None:
            return None
        features.append(feature)
    if not features and upper == math.inf:
        return None
    return FastProblem(lower, upper, tuple(features), _scales(constraints, lower, upper),
                       _point(features, lower, upper))


def _measured(feature: _Feature, lower: float, upper: float) -> bool:
    """Whether a feature is a multiple of kappa over the whole support (see _point)."""
    return bool(feature.a and not (feature.a2 or feature.b or feature.d or feature.e) and feature.extra is None
                and feature.lower == lower and feature.upper == upper)


def _point(features: Sequence[_Feature], lower: float, upper: float) -> float:
    """The end of the support nearest the value of the first multiple of kappa over the whole
    support (0 when there is none).  Such a feature is measured from there, and so is the
    variable of the linear segments: lambda kappa with a mean 1e-5 above 5 (lambda near 1e5) is
    near 5e5, rounded by 6e-11, and nodes kappa near 5 are 1e-15 apart, neither resolving the mass
    to the panels' 1e-15; lambda (kappa - 5) at kappa - 5 are.  A constant on the whole support
    changes only Z (see NumericLaw.log_z)."""
    for f in features:
        if _measured(f, lower, upper):
            return upper if upper - f.value < f.value - lower else lower
    return 0.0


def _split(lower: float, upper: float, features: Sequence[_Feature]) -> float | None:
    """Where the last segment of a half-line, [low, oo), turns from kappa to log(kappa), or None
    (a bounded support; a feature in log(kappa) or compiled from an expression there; no scale;
    ``low`` within a factor _WIDE of the turn).

    log(kappa) serves the tail: an exponential or a normal's tail is cut far out after a few
    panels, wherever its scale lies.  Near ``low`` it serves only a power of kappa, and with an
    exponent a polynomial in kappa (Mean, Moment(kappa), Moment(kappa**2)) the density is smooth
    in kappa there: in log(kappa) it falls as kappa times a constant, and reaching 1e-52 of its
    peak (the tail's cut) takes some 60 panels below the mass, with nothing to resolve.  In kappa
    the start is an end like any other.  The turn lies at _LINEAR_REACH times the largest scale
    the features name (E[kappa] - low, sqrt(E[kappa**2]) - low), rounded up to a power of 2 so
    that neighbouring values (a sweep) keep the same segments; any turn gives the same law, this
    one only the fewest panels."""
    if upper != math.inf:
        return None
    low = max([lower] + [p for f in features for p in (f.lower, f.upper) if lower < p < upper])
    scale = 0.0
    for f in features:
        if not f.lower <= low or f.upper != upper:
            continue  # no part of the half-line's last segment
        if f.b or f.d or f.extra is not None:
            return None
        if f.a:
            scale = max(scale, f.value - low)
        if f.a2 and f.value > 0:
            scale = max(scale, math.sqrt(f.value) - low)
    if not 0 < scale < 1e300:
        return None
    turn = low + 2.0 ** math.ceil(math.log2(_LINEAR_REACH * scale))
    # a start near the mass (within a factor _WIDE of the turn) costs log(kappa) nothing
    return turn if low < turn < math.inf and turn > _WIDE * low else None


def _scales(constraints: Sequence[Any], lower: float, upper: float) -> tuple[float, ...]:
    """The captimes the constraints name (values, points, ends): a narrow peak lies near one."""
    points = [p for p in (lower, upper) if 0 < p < math.inf]
    for constraint in constraints:
        for name, value in constraint.arguments.items():
            if name in ("value", "kappa0", "kappa1", "sigma") and isinstance(value, sympy.Basic):
                number = _number(value)
                if number is not None and number > 0:
                    points.append(number)
    return tuple(sorted(set(points)))


# ---------------------------------------------------------------------------
# quadrature


@dataclass
class _Rule:
    """Gauss-Legendre panels over every segment at some multipliers."""

    segment: np.ndarray       # per panel: its segment
    left: np.ndarray          # per panel: its ends, in its segment's variable
    right: np.ndarray
    kappa: np.ndarray         # per node (panel-major, 20 per panel)
    weight: np.ndarray        # per node, the Jacobian included
    features: np.ndarray      # nodes x features, zero outside each feature's region
    log_jacobian: np.ndarray  # per node
    cut_segment: np.ndarray   # where tails were cut off: segment and point
    cut_z: np.ndarray
    cut_jacobian: np.ndarray  # there: the log of the Jacobian, and the features
    cut_features: np.ndarray
    abs_features: np.ndarray  # |features|, for E[|g|] at every step
    #: the log of the Jacobian to a density per unit of log(kappa) (FastProblem._level), at the
    #: nodes and where tails were cut: the footing on which densities in different segments are
    #: compared (log_jacobian and cut_jacobian themselves where every segment has one variable)
    level: np.ndarray
    cut_level: np.ndarray
    #: each panel's two halves (all left halves, then all right ones): (weights, log of the
    #: Jacobian, features, kappa) at their nodes, to judge the panels at other multipliers;
    #: None in a law's rule (made again if asked for)
    halves: tuple | None = None


def _panels_of(nodes: tuple, which: Any) -> tuple:
    """The nodes of some panels (a mask or slice over them) of panel-major node arrays."""
    count = len(nodes[0]) // len(_NODES)
    chosen = [a.reshape((count, len(_NODES)) + a.shape[1:])[which] for a in nodes]
    # the node count spelt out: with no features a (nodes, 0) array has no -1 to infer
    return tuple(a.reshape((a.shape[0] * len(_NODES),) + a.shape[2:]) for a in chosen)


def _nodes_of(nodes: tuple, first: int, stop: int) -> tuple:
    """The nodes of panels ``first`` to ``stop`` (views)."""
    return tuple(a[first * len(_NODES):stop * len(_NODES)] for a in nodes)


def _join(parts: list[tuple], order: np.ndarray) -> tuple:
    """Node arrays of panels joined, then the panels put in ``order``."""
    return _panels_of(tuple(np.concatenate(arrays) for arrays in zip(*parts)), order)


def _solve(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``np.linalg.solve(a, b)``; one equation by its division (what LAPACK does with it),
    without numpy's checks around the call."""
    if len(b) == 1:
        if a[0, 0] == 0:
            raise np.linalg.LinAlgError("Singular matrix")
        return b / a[0]
    return np.linalg.solve(a, b)


def _truncated_exponential(fraction: float) -> float | None:
    """t such that the mean of exp(-t u) on [0, 1] is ``fraction``: 1/t - 1/(e^t - 1) = fraction
    (t = 0 at 1/2; a mean near an end has |t| up to about 1/distance), by Newton's method on
    that decreasing function, from a start that brackets it; None if it does not settle."""
    if not 0 < fraction < 1:
        return None

    def mean_and_slope(t: float) -> tuple[float, float]:
        if abs(t) < 0.1:  # 1/t - 1/(e^t - 1) cancels near 0: its series to t**9 (below 1e-17 there)
            t2 = t * t
            mean = 0.5 - t / 12 + t * t2 / 720 - t * t2 * t2 / 30240 + t * t2 ** 3 / 1209600 \
                - t * t2 ** 4 / 47900160
            slope = -1 / 12 + t2 / 240 - t2 * t2 / 6048 + t2 ** 3 / 172800 - t2 ** 4 / 5322240
            return mean, slope
        if abs(t) > 700:  # e^t - 1 overflows; the mean is 1/t or 1 + 1/t to rounding
            return (1 / t if t > 0 else 1 + 1 / t), -1 / (t * t)
        e = math.expm1(t)
        return 1 / t - 1 / e, -1 / (t * t) + (e + 1) / (e * e)

    # the mean is about 1/t near 0 and 1 + 1/t near 1: a start on the right side of the root
    t = 1 / fraction if fraction < 0.25 else 1 / (fraction - 1) if fraction > 0.75 else 12 * (0.5 - fraction)
    for _ in range(60):
        mean, slope = mean_and_slope(t)
        step = (mean - fraction) / slope
        t -= step
        if not math.isfinite(t):
            return None
        if abs(step) <= 1e-9 * max(1.0, abs(t)):
            # converging quadratically: one more step leaves only the rounding of the mean (the
            # steps do not shrink below it: a test on their size could wait for ever)
            mean, slope = mean_and_slope(t)
            t -= (mean - fraction) / slope
            return t if math.isfinite(t) else None
    return None


def _truncated_normal(lower: float, mean: float, square: float) -> tuple[float, float] | None:
    """(mu, sigma) of the normal law that, truncated to [lower, oo), has E[kappa] = ``mean`` and
    E[kappa**2] = ``square``; None where there is none, or the truncation point lies more than 8
    of its sigmas above mu (a law near the exponential: Newton's method on the dual finds it
    from its usual start).  More than 8 sigmas below mu the cut is below what the moments'
    doubles resolve: the normal of that mean and variance.

    With alpha = (lower - mu) / sigma and rho = phi(alpha) / Q(alpha) (Q the normal's upper
    tail), E - lower = sigma (rho - alpha) and Var = sigma**2 (1 + alpha rho - rho**2): their
    ratio Var / (E - lower)**2 rises from 0 (alpha -> -oo, no truncation) to 1 (the exponential
    law, alpha -> oo) and fixes alpha, found here by bisection and the secant rule."""
    gap = mean - lower
    ratio = (square - mean * mean) / (gap * gap) if gap > 0 else math.nan
    if not 0 < ratio < 1:
        return None

    def parts(alpha: float) -> tuple[float, float]:  # (rho - alpha, Var / (E - lower)**2 - ratio)
        rho = math.exp(-alpha * alpha / 2) / math.sqrt(2 * math.pi) / (0.5 * math.erfc(alpha / math.sqrt(2)))
        return rho - alpha, (1 + alpha * rho - rho * rho) / (rho - alpha) ** 2 - ratio

    low, high = -8.0, 8.0
    f_low, f_high = parts(low)[1], parts(high)[1]
    if f_low >= 0 and f_high > 0:
        # the cut more than 8 sigmas below mu moves the mean and variance by less than
        # phi(8) / Q(-8) = 5e-15 of sigma: the law is the normal of that mean and variance
        # (Newton from the exponential's start does not reach a normal 50 sigmas above 0)
        sigma = math.sqrt(square - mean * mean)
        return (mean, sigma) if math.isfinite(sigma) and sigma > 0 else None
    if not f_low < 0 < f_high:
        return None
    kept = 0  # which end the last two steps kept: the Illinois rule halves its value
    for _ in range(100):
        alpha = high - f_high * (high - low) / (f_high - f_low)
        if not low < alpha < high:
            break  # the bracket is as narrow as doubles make it
        f = parts(alpha)[1]
        if f == 0 or high - low <= 1e-15 * max(1.0, abs(alpha)):
            break
        if (f < 0) == (f_low < 0):
            low, f_low = alpha, f
            if kept == 1:
                f_high /= 2
            kept = 1
        else:
            high, f_high = alpha, f
            if kept == -1:
                f_low /= 2
            kept = -1
    else:
        return None
    width = parts(alpha)[0]
    sigma = gap / width
    mu = lower - alpha * sigma
    return (mu, sigma) if math.isfinite(mu) and math.isfinite(sigma) and sigma > 0 else None


def _lost(z: np.ndarray, phi: np.ndarray, peak: float) -> bool:
    """Whether mass beyond an end of log(kappa)'s range (kappa = 1e-300 or 1e300) matters: the
    log-density at the end and its neighbour ``z``, ``phi``, falling outwards at rate r leave
    exp(phi_end - peak) / r of the mass beyond; a density not falling outwards is not integrable
    or decays too slowly to be worth a double."""
    outer, inner = (0, 1) if z[0] < z[1] else (1, 0)
    with np.errstate(invalid="ignore"):
        rate = (phi[inner] - phi[outer]) / abs(z[1] - z[0])
    if not rate > 0:
        return phi[outer] >= peak - _END_DROP
    return phi[outer] - peak - math.log(rate) > -_RESOLVED


def _quiet(method: Callable) -> Callable:
    """``method`` under ``np.errstate(all="ignore")``: the entry points of the solution (its
    steps meet overflow, underflow, 0 * inf and log(0) by design and handle their results) set
    it once, not every array operation of every step."""

    @functools.wraps(method)
    def quiet(*arguments: Any, **keywords: Any) -> Any:
        with np.errstate(all="ignore"):
            return method(*arguments, **keywords)

    return quiet


class TimeUp(Exception):
    """The deadline given to :meth:`FastProblem.solve` expired."""


class _GiveUp(Exception):
    """The solution took more quadrature rules than any well-posed set needs."""


@functools.lru_cache(maxsize=256)
def _layout(lower: float, upper: float, features: tuple[tuple, ...], turn: float | None = None) -> dict[str, Any]:
    """The attributes of a :class:`FastProblem` that follow from its support and its features'
    regions and kinds (per feature: lower, upper, a, a2, b, d, whether compiled, sign) and where
    a half-line turns from kappa to log(kappa) (see _split): its segments, which features act on
    each, which segments are integrated in log(kappa), and the leading terms of the exponent at
    the ends 0 and oo.  Read-only arrays, shared."""
    f_lower, f_upper, f_a, f_a2, f_b, f_d, f_compiled, f_sign = (
        [f[i] for f in features] for i in range(8))
    ends = {lower, upper} if turn is None else {lower, turn, upper}
    for low, high in zip(f_lower, f_upper):
        ends.update(p for p in (low, high) if lower < p < upper)
    ends = np.array(sorted(ends))
    lows, highs = ends[:-1], ends[1:]
    count = len(features)
    # where a segment meets a feature's region: [segment, feature]
    inside = np.array([[fl <= a and b <= fu for fl, fu in zip(f_lower, f_upper)]
                       for a, b in zip(lows, highs)], dtype=bool).reshape(len(lows), count)
    # log(kappa) where the density may be a power of kappa near 0, or runs to infinity
    logs = np.array([bool(b or d or c) for b, d, c in zip(f_b, f_d, f_compiled)], dtype=bool)
    powers = (inside & logs).any(axis=1) if count else np.zeros(len(lows), dtype=bool)
    logarithmic = (highs == math.inf) | (powers & ((lows == 0) | (highs > _WIDE * np.maximum(lows, 1e-300))))
    # each segment's range in its own variable
    with np.errstate(divide="ignore"):
        start = np.where(logarithmic, np.log(np.maximum(lows, 0)), lows)
        stop = np.where(logarithmic, np.log(highs), highs)
    start = np.where(logarithmic, np.maximum(start, -_LOG_END), start)
    stop = np.where(logarithmic, np.minimum(stop, _LOG_END), stop)
    signs = np.array(f_sign, dtype=int)
    # the leading terms of the exponent at the ends 0 and oo: [segment, feature] coefficients
    # of kappa, log(kappa) and log(kappa)**2, and whether a compiled feature reaches the end
    leading = {name: inside * np.array(values, dtype=float)
               for name, values in (("a", f_a), ("a2", f_a2), ("b", f_b), ("d", f_d))}
    compiled = np.array(f_compiled, dtype=bool)
    # the ladder's step in each segment in kappa (see FastProblem._level)
    floor = np.where(logarithmic, 0.0, (stop - start) / 64)
    open_ends = [(s, end) for s, (low, high) in enumerate(zip(lows, highs))
                 for end, reaches in ((0, low == 0 and logarithmic[s]), (1, high == math.inf))
                 if reaches]
    compiled_at = [inside[s] & compiled for s, _ in open_ends]
    layout = {
        "ends": ends, "inside": inside, "logarithmic": logarithmic, "start": start, "stop": stop,
        "signs": signs, "_leading": leading, "_open_ends": open_ends, "_compiled_at": compiled_at,
        # what the hot loops would otherwise ask again at every step: the leading coefficients
        # stacked per open end (one product with lam reads them all), which ends a compiled
        # feature reaches, whether any multiplier has a sign, and the segments' shapes
        "_leading_at_ends": np.array([[leading[name][s] for name in ("a", "a2", "b", "d")] for s, _ in open_ends],
                                     dtype=float).reshape(len(open_ends), 4, count),
        "_compiled_reach": any(bool(c.any()) for c in compiled_at),
        "_bounded": bool(signs.any()),
        "_everywhere": bool(inside.all()),
        "_mixed": bool(logarithmic.any() and not logarithmic.all()),
        "_all_log": bool(logarithmic.all()), "_no_log": not logarithmic.any(), "_floor": floor,
        "_reads_log": any(b or d for b, d in zip(f_b, f_d)),
    }
    for value in [*layout.values(), *leading.values(), *compiled_at]:
        if isinstance(value, np.ndarray):
            value.setflags(write=False)
    return layout


@functools.lru_cache(maxsize=256)
def _rungs(start: tuple[float, ...], stop: tuple[float, ...], logarithmic: tuple[bool, ...]) -> tuple[np.ndarray, ...]:
    """Each segment's rungs of the ladder before the named scales join them (see
    FastProblem._ladder_at): every half unit of log(kappa), or 64 steps of kappa, and both ends;
    sorted, each once, read-only, shared by every problem of these segments."""
    found = []
    for a, b, log in zip(start, stop, logarithmic):
        points = np.concatenate([[a, b], np.arange(math.ceil(a * 2) / 2, b, 0.5) if log else np.linspace(a, b, 65)[1:-1]])
        points.sort()
        points = points[np.concatenate([[True], points[1:] != points[:-1]])]  # np.unique's
        points.setflags(write=False)
        found.append(points)
    return tuple(found)


def _spliced(array: np.ndarray, extra: Any, places: list[int]) -> np.ndarray:
    """``array`` (along its first axis) with the rows of ``extra`` put before the rows at
    ``places`` (ascending; rows for one place in their order): a handful of points into a
    ladder of thousands, without sorting it again."""
    pieces, last = [], 0
    for j, i in enumerate(places):
        pieces += [array[last:i], extra[j:j + 1]]
        last = i
    return np.concatenate([*pieces, array[last:]])


#: the ladders' rungs evaluated, by what they depend on (FastProblem._rungs_at), the first
#: made dropped beyond this many; shared like the layouts (_layout), which derive.cache_clear()
#: keeps too: they hold no law, only the shape of one
_RUNGS_AT: dict[tuple, tuple] = {}
_RUNGS_KEPT = 64


class FastProblem:
    """The constraints' features on their support, and the segments their regions cut."""

    def __init__(self, lower: float, upper: float, features: tuple[_Feature, ...],
                 scales: tuple[float, ...], point: float = 0.0) -> None:
        self.lower, self.upper, self.features = lower, upper, features
        # the multiples of kappa over the whole support, at the nodes and in their values, are
        # measured from ``point`` (see _point), and so is the variable of the linear segments
        self.origins = np.array([f.a * point if _measured(f, lower, upper) else 0.0 for f in features])
        self._shifted = bool(self.origins.any())
        self.point = point if self._shifted else 0.0
        self.values = np.array([f.value for f in features], dtype=float) - self.origins
        self.log_scales = np.log(np.array(scales)) if scales else np.zeros(0)
        self._conditional = np.array([f.conditional for f in features], dtype=bool)
        # the segments and what each feature does on them depend on the support and the
        # features' kinds and regions, not on their values: shared by every set of that shape
        vars(self).update(_layout(lower, upper, tuple((f.lower, f.upper, f.a, f.a2, f.b, f.d, f.extra is not None,
                                                       f.sign) for f in features), _split(lower, upper, features)))
        if self._shifted:
            self.start = np.where(self.logarithmic, self.start, self.start - point)
            self.stop = np.where(self.logarithmic, self.stop, self.stop - point)
            self.start.setflags(write=False)
            self.stop.setflags(write=False)
            self._measured_linear = [i for i, f in enumerate(features) if self.origins[i]]
        self._ladder: tuple | None = None  # see _ladder_at
        self._first_panels: tuple | None = None  # see _first_round

    # -- evaluation ------------------------------------------------------------
    def _at(self, segment: np.ndarray, z: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(kappa, log of the Jacobian, features) at points z of the segments' variables."""
        z = np.asarray(z, dtype=float)
        # every point in log(kappa) (True), or none (False): the same numbers without the choice
        # per point (the nodes of a half-line turned to log(kappa) often lie on one side)
        every: bool | None = self._all_log or (False if self._no_log else None)
        if every is None:
            logarithmic = self.logarithmic[segment]
            every = True if logarithmic.all() else False if not logarithmic.any() else None
        if every:
            k, logk, jacobian = np.exp(z), z, z
        elif every is False:
            k, jacobian = (z + self.point if self._shifted else z), np.zeros(z.shape)
            logk = np.log(k) if self._reads_log else None
        else:
            k = np.where(logarithmic, np.exp(z), z + self.point if self._shifted else z)
            logk = np.where(logarithmic, z, np.log(k)) if self._reads_log else None
            jacobian = np.where(logarithmic, z, 0.0)
        g = np.empty(z.shape + (len(self.features),))
        for i, f in enumerate(self.features):
            g[..., i] = f(k, logk) if self._everywhere else np.where(self.inside[segment, i], f(k, logk), 0.0)
        if self._shifted:
            g -= self.origins
            if not every:
                # on a linear segment z is kappa - point itself: a (kappa - point) from it, exact
                for i in self._measured_linear:
                    g[..., i] = self.features[i].a * z if every is False else np.where(
                        logarithmic, g[..., i], self.features[i].a * z)
        return k, jacobian, g

    def _level(self, segment: np.ndarray, k: np.ndarray, jacobian: np.ndarray) -> np.ndarray:
        """The log of the Jacobian to a density per unit of log(kappa), at points of the segments
        (``jacobian`` itself where every segment has one variable).  Where segments in kappa and
        in log(kappa) meet (a half-line turned to log(kappa) at some point, see _split), the
        density in kappa is per unit of kappa, the other per unit of log(kappa): compared as
        they are, a law whose scale is 1e-300 has its density in kappa e**690 above the other,
        and its tail in log(kappa) would be cut entirely.  Per unit of log(kappa) (times kappa
        in the segments in kappa; no less than their ladder's step, near kappa = 0) every
        density is on the footing the half-line had in log(kappa) alone."""
        if not self._mixed:
            return jacobian
        return np.where(self.logarithmic[segment], jacobian, np.log(np.maximum(k, self._floor[segment])))

    @_quiet
    def exponent(self, lam: np.ndarray, segment: np.ndarray, z: np.ndarray) -> np.ndarray:
        """log of the unnormalised density times the Jacobian, at points z."""
        _, jacobian, g = self._at(segment, z)
        return self._phi(jacobian, g, lam)

    def _ladder_at(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray | None, list]:
        """(segment, z, log of the Jacobian, features, what _level adds to the Jacobian (None:
        nothing), and each segment's first and stop index among the points) at the ladder of
        points :meth:`rule` looks for the mass on: a ladder over each segment's range, and the
        named scales.  It depends on the problem alone, so it is made once."""
        if self._ladder is None:
            starts, stops, logarithmic = self.start.tolist(), self.stop.tolist(), self.logarithmic.tolist()
            z, seg, jacobian, g, footing, bounds = self._rungs_at(starts, stops, logarithmic)
            # the named scales in each variable, as Python floats: a handful, sorted
            log_scales = self.log_scales.tolist()
            linear_scales = (np.exp(self.log_scales) - self.point).tolist() if not self._all_log else []
            # the scales not among the rungs: their points, segments, and places among the rungs
            extra_z, extra_segment, places = [], [], []
            for s, (a, b) in enumerate(zip(starts, stops)):
                if logarithmic[s]:
                    scales = [x for x in log_scales if a < x < b]
                else:
                    scales = [x for x in linear_scales if a < x < b]
                    # a scale nearer an end than the ladder's step (a mean 1e-6 of the width from
                    # it) has its mass there, between two rungs: its distances to the ends,
                    # doubled, up to that step (not from an end itself, exp(log(end)) off by an ulp)
                    step = (b - a) / 64
                    least = 8 * float(np.spacing(max(abs(a + self.point), abs(b + self.point))))
                    source = [x for x in scales if min(x - a, b - x) > least]
                    if any(x - a < step or b - x < step for x in source):
                        source = np.array(source)
                        doubled = np.ldexp(1.0, np.arange(1, 40))
                        near = np.concatenate([a + np.outer(source[source - a < step] - a, doubled).ravel(),
                                               b - np.outer(b - source[b - source < step], doubled).ravel()])
                        scales = scales + near[(near > a) & (near < b) & (np.minimum(near - a, b - near) < step)].tolist()
                if scales:
                    begin, end = bounds[s]
                    rungs = z[begin:end]
                    scales = sorted(set(scales))
                    for x, i in zip(scales, rungs.searchsorted(scales).tolist()):
                        if i == len(rungs) or rungs[i] != x:
                            extra_z.append(x)
                            extra_segment.append(s)
                            places.append(begin + i)
            if extra_z:
                # evaluated alone and put in their places: the ladder sorted in each segment
                extra_seg = np.array(extra_segment)
                k, extra_jacobian, extra_g = self._at(extra_seg, np.array(extra_z))
                z, seg, jacobian, g = (_spliced(a, b, places) for a, b in ((z, extra_z), (seg, extra_seg),
                                                                        (jacobian, extra_jacobian), (g, extra_g)))
                if footing is not None:
                    footing = _spliced(footing, self._level(extra_seg, k, extra_jacobian) - extra_jacobian, places)
                bounds = [(begin + sum(t < s for t in extra_segment), end + sum(t <= s for t in extra_segment))
                          for s, (begin, end) in enumerate(bounds)]
            self._ladder = (seg, z, jacobian, g, footing, bounds)
        return self._ladder

    def _rungs_at(self, starts: list, stops: list, logarithmic: list) -> tuple:
        """(z, segment, log of the Jacobian, features, footing or None, each segment's first and
        stop index) at the ladder's rungs before the named scales join them (_rungs): they
        depend on the segments and the features' kinds and coefficients, not on the values, and
        are evaluated once for every problem that shares them (read-only)."""
        key = (tuple(starts), tuple(stops), tuple(logarithmic), self.point, tuple(self.origins.tolist()),
               tuple((f.lower, f.upper, f.a, f.a2, f.b, f.c, f.d, f.e, f.extra) for f in self.features))
        found = _RUNGS_AT.get(key)
        if found is None:
            rungs = _rungs(*key[:3])
            z = np.concatenate(rungs) if len(rungs) > 1 else rungs[0]
            seg = np.repeat(np.arange(len(rungs)), [len(points) for points in rungs])
            bounds = np.cumsum([0] + [len(points) for points in rungs]).tolist()
            k, jacobian, g = self._at(seg, z)
            footing = self._level(seg, k, jacobian) - jacobian if self._mixed else None
            for array in (z, seg, jacobian, g, footing):
                if array is not None:
                    array.setflags(write=False)
            found = (z, seg, jacobian, g, footing, list(zip(bounds[:-1], bounds[1:])))
            keep(_RUNGS_AT, key, found, _RUNGS_KEPT)
        return found

    @staticmethod
    def _phi(jacobian: np.ndarray, g: np.ndarray, lam: np.ndarray) -> np.ndarray:
        """:meth:`exponent` from the features at the points."""
        # 0 * inf (kappa**2 far out, with its multiplier 0) has no mass there, not a NaN: fmax
        # takes -inf over a NaN, and leaves every number as it is
        return np.fmax(jacobian - g @ lam, -np.inf)

    @_quiet
    def rule(self, lam: np.ndarray) -> "_Rule | None":
        """Panels that integrate exp(-lam . g) to 1e-15 of Z; None when the density is not
        integrable at ``lam`` (its mass reaches 0 or infinity) or is not resolved."""
        # 1. where the mass is
        _, z, ladder_jacobian, ladder_g, footing, bounds = self._ladder_at()
        phi = self._phi(ladder_jacobian, ladder_g, lam)  # no NaN: _phi made them -inf
        peak = phi.max()
        if not math.isfinite(peak):
            return None  # a density of +inf somewhere, or none at all
        # where the mass is, on one footing in every segment (see _level); peak is the shift
        level = phi if footing is None else phi + footing
        top = peak if footing is None else level.max()
        left, right, owner = [], [], []
        cuts: list[tuple[int, float]] = []
        for s, (begin, end) in enumerate(bounds):
            zs, ps = z[begin:end], level[begin:end]
            kept = (ps >= top - _TAIL).nonzero()[0]
            if len(kept) == 0:
                continue  # no mass worth a double here
            first, last = kept[0], kept[-1]
            # mass at an end of log(kappa)'s range (kappa = 1e-300 or 1e300) means the density
            # is not integrable there, or too slowly decaying to be worth a double
            if self.logarithmic[s] and (self.start[s] <= -_LOG_END and _lost(zs[:2], ps[:2], top)
                                        or self.stop[s] >= _LOG_END and _lost(zs[-2:], ps[-2:], top)):
                return None
            a, b = zs[max(first - 1, 0)], zs[min(last + 1, len(zs) - 1)]
            if a > self.start[s]:
                cuts.append((s, a))
            if b < self.stop[s]:
                cuts.append((s, b))
            width = _LOG_PANEL if self.logarithmic[s] else (self.stop[s] - self.start[s]) / 8
            count = max(2, int(math.ceil((b - a) / width)))
            edges = np.arange(count + 1) * ((b - a) / count) + a  # np.linspace(a, b, count + 1)'s
            edges[-1] = b
            left.append(edges[:-1])
            right.append(edges[1:])
            owner.append(np.full(count, s))
        if not left:
            return None
        left_a, right_a, owner_a = ((left[0], right[0], owner[0]) if len(left) == 1 else
                                    (np.concatenate(left), np.concatenate(right), np.concatenate(owner)))
        # 2. bisect every panel that disagrees with its two halves; a bisected panel's halves
        # are the next round's panels, their nodes and features already known
        done: list[tuple] = []
        total = None
        nodes, halves_nodes, together = self._first_round(owner_a, left_a, right_a)
        for round_ in range(_MAX_ROUNDS):
            middle = (left_a + right_a) / 2
            n = len(left_a)
            if round_ == 0:  # the panels and their halves in one evaluation
                parts = self._integrals(together, lam, peak)
                whole, parts = parts[:n], parts[n:]
            else:
                halves_nodes = self._panel_nodes(np.concatenate([owner_a, owner_a]), np.concatenate([left_a, middle]),
                                                 np.concatenate([middle, right_a]))
                whole = self._integrals(nodes, lam, peak)
                parts = self._integrals(halves_nodes, lam, peak)
            if not np.isfinite(whole).all() or not np.isfinite(parts).all():
                return None
            halves = parts[:n] + parts[n:]
            if total is None:
                total = float(halves.sum())
                if not 0 < total < math.inf:  # halves of finite parts can overflow only here
                    return None
            good = np.abs(whole - halves) <= _PANEL_TOLERANCE * total
            every = good.all()
            done.append((left_a, right_a, owner_a, nodes, halves_nodes) if every else
                        (left_a[good], right_a[good], owner_a[good], _panels_of(nodes, good),
                         _panels_of(halves_nodes, np.concatenate([good, good]))))
            if every:
                break
            bad = ~good
            left_a = np.concatenate([left_a[bad], middle[bad]])
            right_a = np.concatenate([middle[bad], right_a[bad]])
            owner_a = np.concatenate([owner_a[bad], owner_a[bad]])
            nodes = _panels_of(halves_nodes, np.concatenate([bad, bad]))
            if sum(len(d[0]) for d in done) + len(left_a) > _MAX_PANELS:
                return None
        else:
            return None
        cut_segment = np.array([c[0] for c in cuts], dtype=int)
        cut_z = np.array([c[1] for c in cuts], dtype=float)
        if len(done) == 1:
            # the first panels all good: made segment by segment, left to right, they are in
            # the rule's order, and their halves too (left halves, then right ones)
            panel_left, panel_right, panel_owner, whole_nodes, halves_nodes = done[0]
            return self._rule_of_nodes(panel_owner, panel_left, panel_right, cut_segment, cut_z, whole_nodes,
                                       halves_nodes)
        panel_left, panel_right, panel_owner = (np.concatenate([d[i] for d in done]) for i in range(3))
        order = np.lexsort((panel_left, panel_owner))
        whole_nodes = _join([d[3] for d in done], order)
        # each panel's halves: left halves of every panel, then right halves, in the rule's order
        halves_nodes = _join([_nodes_of(d[4], 0, len(d[0])) for d in done]
                             + [_nodes_of(d[4], len(d[0]), 2 * len(d[0])) for d in done],
                             np.concatenate([order, order + len(order)]))
        panel_left, panel_right, panel_owner = panel_left[order], panel_right[order], panel_owner[order]
        return self._rule_of_nodes(panel_owner, panel_left, panel_right, cut_segment, cut_z, whole_nodes,
                                   halves_nodes)

    def _first_round(self, owner: np.ndarray, left: np.ndarray, right: np.ndarray) -> tuple[tuple, tuple, tuple]:
        """The nodes of the first panels of a rule, of their halves, and of both together (one
        evaluation; the first two are views of it).  Rules built at nearby multipliers (the
        start, where the mass moved, the answer) often cut the tails at the same points of the
        ladder and so start from the same panels: their nodes are kept."""
        kept = self._first_panels
        if kept is not None and len(kept[0]) == len(owner) and all(
                (a == b).all() for a, b in zip(kept[:3], (owner, left, right))):
            return kept[3]
        middle = (left + right) / 2
        together = self._panel_nodes(np.concatenate([owner, owner, owner]), np.concatenate([left, left, middle]),
                                     np.concatenate([right, middle, right]))
        n = len(owner)
        found = (_nodes_of(together, 0, n), _nodes_of(together, n, 3 * n), together)
        self._first_panels = (owner, left, right, found)
        return found

    def rule_of_panels(self, segment: np.ndarray, left: np.ndarray, right: np.ndarray,
                       cut_segment: np.ndarray, cut_z: np.ndarray) -> _Rule:
        """The rule of given panels (sorted by segment, then position) for these features."""
        return self._rule_of_nodes(segment, left, right, cut_segment, cut_z,
                                   self._panel_nodes(segment, left, right), None)

    def _rule_of_nodes(self, segment, left, right, cut_segment, cut_z, nodes: tuple,
                       halves: tuple | None) -> _Rule:
        weights, jacobian, g, k = nodes
        cut_k, cut_jacobian, cut_g = (self._at(cut_segment, cut_z) if len(cut_z) else
                                      (cut_z, cut_z, np.zeros((0, len(self.features)))))
        level = self._level(segment.repeat(len(_NODES)), k, jacobian) if self._mixed else jacobian
        return _Rule(segment, left, right, k, weights * np.exp(jacobian), g, jacobian, cut_segment, cut_z,
                     cut_jacobian, cut_g, np.abs(g), level, self._level(cut_segment, cut_k, cut_jacobian), halves)

    def _nodes(self, owner: np.ndarray, left: np.ndarray, right: np.ndarray):
        half = (right - left) / 2
        middle = (right + left) / 2
        nodes = (middle[:, None] + half[:, None] * _NODES).ravel()
        weights = (half[:, None] * _WEIGHTS).ravel()
        return nodes, weights, owner.repeat(len(_NODES))

    def _panel_nodes(self, owner: np.ndarray, left: np.ndarray, right: np.ndarray) -> tuple:
        """(weights, log of the Jacobian, features, kappa) at the nodes of panels, panel-major."""
        nodes, weights, node_owner = self._nodes(owner, left, right)
        k, jacobian, g = self._at(node_owner, nodes)
        return weights, jacobian, g, k

    def _integrals(self, nodes: tuple, lam: np.ndarray, shift: float) -> np.ndarray:
        """Each panel's integral of exp(-lam . g) (times the Jacobian, over exp(shift))."""
        weights, jacobian, g, _ = nodes
        phi = self._phi(jacobian, g, lam)
        values = weights * np.exp(phi - shift)
        return values.reshape(-1, len(_NODES)).sum(axis=1)

    # -- the dual --------------------------------------------------------------
    @staticmethod
    def _log_partition(rule: _Rule, lam: np.ndarray) -> float | None:
        """log Z under exp(-lam . g) by ``rule`` (None when it is not finite)."""
        phi = -(rule.features @ lam)
        shift = phi.max()
        z = float(rule.weight @ np.exp(phi - shift))
        return math.log(z) + shift if z > 0 and math.isfinite(z) else None

    @staticmethod
    def _moments(rule: _Rule, lam: np.ndarray):
        """(log Z, E[g], Cov[g], E[|g|]) under exp(-lam . g) by ``rule``."""
        phi = -(rule.features @ lam)
        shift = phi.max()
        mass = rule.weight * np.exp(phi - shift)
        z = mass.sum()
        if not (z > 0 and math.isfinite(z)):
            return None
        p = mass / z
        mean = p @ rule.features
        centred = rule.features - mean
        cov = (centred * p[:, None]).T @ centred
        return math.log(z) + shift, mean, cov, p @ rule.abs_features

    def initial(self) -> np.ndarray | None:
        """Multipliers at which the density is integrable, near the answer's scale, with the
        signs the inequalities require; the answer itself where it has a closed form or one
        equation (the first rule is then built at the answer, and Newton only checks it)."""
        answer = self._closed_start()
        if answer is None:
            answer = self._sided_start()
        if answer is not None:
            return answer
        lam = np.zeros(len(self.features))
        if self.upper < math.inf:
            return lam
        tail = [i for i, f in enumerate(self.features) if f.upper == math.inf and f.sign >= 0]
        for i in tail:
            f = self.features[i]
            if f.a and f.extra is None and not (f.b or f.d):
                lam[i] = 1.0 / max(f.value - self.lower, 1e-300)
                return lam if math.isfinite(lam[i]) else None
        for i in tail:
            f = self.features[i]
            if f.a2 and not (f.a or f.b or f.d) and f.extra is None and f.value > 0:
                lam[i] = 0.5 / f.value  # the half-normal: E[kappa**2] = 1/(2 lambda)
                return lam if math.isfinite(lam[i]) else None
        for i in tail:
            f = self.features[i]
            if f.d and not f.a and f.extra is None:
                lam[i] = 0.5 / f.value
                return lam if math.isfinite(lam[i]) else None
        for i in tail:
            f = self.features[i]
            if f.b > 0 and not (f.a or f.d) and f.extra is None:
                if f.lower == self.lower and self.lower > 0:  # Pareto: E[log(kappa/k0)] = v
                    gap = f.value - (math.log(self.lower) - f.c) + f.e
                elif f.lower > 0:                              # a tail above kappa0
                    gap = -f.e
                else:
                    continue
                if gap > 0:
                    lam[i] = 1.0 + 1.0 / gap
                    return lam
        return None

    def _closed_start(self) -> np.ndarray | None:
        """The multipliers of two common laws, or None: on [a, b], a mean alone (the truncated
        exponential: one equation in one unknown, solved here); on (0, oo), E[log(kappa/k1)]
        and E[log(kappa/k2)**2] (a log-normal law: log(kappa) is normal, its mean and variance
        read off the constraints).  Equalities over the whole support only."""
        features = self.features
        if not all(f.sign == 0 and f.extra is None and f.e == 0 and f.lower == self.lower
                   and f.upper == self.upper for f in features):
            return None
        if len(features) == 1 and self.upper < math.inf and features[0].a == 1 and not (
                features[0].a2 or features[0].b or features[0].d):
            width = self.upper - self.lower
            t = _truncated_exponential(min(max((features[0].value - self.lower) / width, 0.0), 1.0))
            return None if t is None else np.array([t / width])
        if len(features) == 2 and self.lower == 0 and self.upper == math.inf:
            first, second = features
            if first.d and not second.d:
                first, second = second, first
            if first.b != 1 or first.d or first.a or first.a2 or second.d != 1 or second.b or second.a or second.a2:
                return self._truncated_normal_start()
            mean = first.value + first.c                      # E[log(kappa)]
            variance = second.value - (mean - second.c) ** 2   # Var[log(kappa)]
            if not variance > 0:
                return None  # no law: left to Newton and the full route to say why
            # the density in z = log(kappa), the Jacobian included, is
            # exp(-lambda_b (z - c1) - lambda_d (z - c2)**2 + z): a normal of this mean and variance
            lam_d = 0.5 / variance
            lam_b = 1.0 - (mean - second.c) / variance
            lam = np.array([lam_b, lam_d] if features[0] is first else [lam_d, lam_b])
            return lam if np.isfinite(lam).all() else None
        return self._truncated_normal_start() if len(features) == 2 and self.upper == math.inf else None

    def _sided_start(self) -> np.ndarray | None:
        """The multipliers of E[log(k0/kappa) | kappa < k0] = a, E[log(kappa/k0) | kappa >= k0] = b
        and P(kappa < k0) = p on (0, oo) (the generalized log-Laplace law, whose continuity
        condition is that probability; see :func:`sided_multipliers`), or None for any other
        set."""
        if len(self.features) != 3 or (self.lower, self.upper) != (0.0, math.inf):
            return None
        roles: dict[str, int] = {}
        for i, f in enumerate(self.features):
            if f.sign or f.extra is not None or f.a or f.a2 or f.d:
                return None
            if f.conditional and f.b < 0 and f.lower == 0:
                roles["below"] = i
            elif f.conditional and f.b > 0 and f.upper == math.inf:
                roles["above"] = i
            elif not f.b and f.e == 1 and f.lower == 0:
                roles["share"] = i
        if len(roles) != 3:
            return None
        below, above, share = (self.features[roles[role]] for role in ("below", "above", "share"))
        if not (below.upper == above.lower == share.upper and below.c == above.c):
            return None
        lam = np.zeros(3)
        lam[[roles["below"], roles["above"], roles["share"]]] = sided_multipliers(-below.e, -above.e, share.value)
        return lam if np.isfinite(lam).all() else None

    def _truncated_normal_start(self) -> np.ndarray | None:
        """The multipliers of E[kappa] and E[kappa**2] on [L, oo), or None (see _closed_start)."""
        features = self.features
        first, second = features
        if first.a2 and not second.a2:
            first, second = second, first
        if first.a != 1 or first.a2 or first.b or first.d or second.a2 != 1 or second.a or second.b or second.d:
            return None
        # E[kappa] and E[kappa**2] on [L, oo): a normal law truncated at L
        normal = _truncated_normal(self.lower, first.value, second.value)
        if normal is None:
            return None
        mu, sigma = normal
        lam_a2 = 0.5 / sigma ** 2   # exp(-(kappa - mu)**2 / (2 sigma**2)) = exp(-lam_a kappa - lam_a2 kappa**2)
        lam_a = -mu / sigma ** 2
        lam = np.array([lam_a, lam_a2] if features[0] is first else [lam_a2, lam_a])
        return lam if np.isfinite(lam).all() else None

    # -- the dual's domain and the inequalities' signs ------------------------------
    def project(self, lam: np.ndarray) -> np.ndarray:
        """The nearest multipliers with the signs the inequalities require."""
        if not self._bounded:
            return lam
        return np.where(self.signs > 0, np.maximum(lam, 0.0), np.where(self.signs < 0, np.minimum(lam, 0.0), lam))

    def integrable(self, lam: np.ndarray) -> bool | None:
        """Whether exp(-lam . g) integrates at the support's ends 0 and oo, read from the leading
        term of its exponent there (exact: exp(-1e-3 log(kappa)**2) with the wrong sign is not
        integrable, though it grows only beyond kappa = 1e-300); None where a feature compiled
        from an expression reaches an end with a non-zero multiplier (the rule's check judges)."""
        decided = True
        leading = (self._leading_at_ends @ lam).tolist()
        for (segment, end), compiled, (a, a2, b, d) in zip(self._open_ends, self._compiled_at, leading):
            if self._compiled_reach and np.any(lam[compiled] != 0):
                decided = None
                continue
            if end:  # kappa -> oo, in z = log(kappa) with the Jacobian: -a2 e^2z - a e^z - d z^2 + (1 - b) z
                fine = a2 > 0 if a2 else a > 0 if a else d > 0 if d else b > 1
            else:    # kappa -> 0: -d z^2 + (1 - b) z as z -> -oo
                fine = d > 0 if d else b < 1
            if not fine:
                return False
        return decided

    def _admissible(self, rule: _Rule, lam: np.ndarray) -> bool:
        """Whether ``lam`` is in the dual's domain: the density integrable, and where that is not
        decided exactly, no mass at the ends of log(kappa)'s range above the rule's peak."""
        decided = self.integrable(lam)
        if decided is not None:
            return decided
        if not self._open_ends:
            return True
        segments = np.array([s for s, _ in self._open_ends])
        z = np.where([end for _, end in self._open_ends], self.stop[segments], self.start[segments])
        peak = (rule.level - rule.features @ lam).max()
        return bool((self.exponent(lam, segments, z) < peak - _END_DROP).all())

    def _resolved(self, rule: _Rule, lam: np.ndarray) -> bool:
        """Whether every feature's integrand g f is negligible where the rule cut a tail: the
        expectations are then the law's (with E[kappa**2] infinite they are not)."""
        if not len(rule.cut_z):
            return True
        level, g = rule.cut_level, rule.cut_features
        at_cut = (level - g @ lam)[:, None] + np.log(np.abs(g))
        peak = ((rule.level - rule.features @ lam)[:, None] + np.log(rule.abs_features)).max(axis=0)
        at_cut = np.where(np.isnan(at_cut), np.inf, at_cut)
        return bool((at_cut <= peak - _RESOLVED).all())

    def _held(self, lam: np.ndarray, gradient: np.ndarray) -> np.ndarray:
        """The inequalities held at multiplier 0, the dual's descent pushing past it: they do not
        bind (E[g] is strictly inside the bound) and Newton leaves them out."""
        if not self._bounded:
            return np.zeros(len(lam), dtype=bool)
        return (((self.signs > 0) & (lam <= 0) & (gradient > 0))
                | ((self.signs < 0) & (lam >= 0) & (gradient < 0)))

    def _newton_step(self, lam: np.ndarray, mean: np.ndarray,
                     cov: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
        """The dual's gradient and Newton's step on the multipliers the active set leaves free
        (a held inequality's stays at 0); None where the free features' covariance is singular."""
        gradient = self.values - mean
        try:
            if not self._bounded:  # every multiplier free
                return gradient, _solve(cov, -gradient)
            free = ~self._held(lam, gradient)
            step = np.zeros_like(lam)
            step[free] = _solve(cov[np.ix_(free, free)], -gradient[free])
        except np.linalg.LinAlgError:
            return None
        return gradient, step

    def _side_masses(self, rule: _Rule, lam: np.ndarray) -> np.ndarray:
        """Each feature's P(kappa in its region) under ``rule`` at ``lam``; 0 where the rule does
        not resolve the region's own density to _RESOLVED below its peak (the region's peak is
        near where the rule cuts the law's tails, or the region is cut): a conditional feature,
        E[g | kappa in the region] = 0, is E[g] = 0 divided by that mass."""
        phi = -(rule.features @ lam)
        mass = rule.weight * np.exp(phi - phi.max())
        inside = self.inside[rule.segment.repeat(len(_NODES))]
        level = rule.level + phi  # the density per unit of log(kappa), on one footing
        peaks = np.where(inside, level[:, None], -np.inf).max(axis=0)
        resolved = peaks >= level.max() - (_TAIL - _RESOLVED)
        return np.where(resolved, (mass @ inside) / mass.sum(), 0.0)

    def _settled(self, rule: _Rule, lam: np.ndarray, moments: tuple, scale: np.ndarray) -> bool:
        """Whether the constraints hold at ``lam`` under ``rule``: each binding one to 1e-13 of its
        scale (or of E[|g|] when larger; a conditional one to its scale times its region's mass, see
        _side_masses), each one not binding strictly inside its bound."""
        mean, size = moments[1], moments[3]
        gradient = self.values - mean
        # E[g] is a sum of terms as large as E[|g|]: its rounding is relative to that (the
        # spread of g, infinite for a heavy tail, is no measure of it)
        tolerance = _TOLERANCE * np.maximum(scale, size)
        if self._conditional.any():
            # E[g | kappa in the region] = 0 is E[g] = 0 divided by the region's mass: held to
            # its scale times that mass, else a law that leaves the region (almost) empty meets it
            masses = self._side_masses(rule, lam)
            tolerance = np.where(self._conditional, np.where(
                masses > 0, _TOLERANCE * np.maximum(scale * masses, size), -1.0), tolerance)
        if not self._bounded:
            return bool((np.abs(gradient) <= tolerance).all())
        free = ~self._held(lam, gradient)
        return bool(np.all(np.abs(gradient[free]) <= tolerance[free]))

    # -- Newton's method on the dual -------------------------------------------------
    @_quiet
    def solve(self, deadline: Any = None, start: "NumericLaw | None" = None,
              guess: np.ndarray | None = None) -> "NumericLaw | None":
        """Newton's method on the dual; the law, or None when it does not settle.  ``deadline``
        (a :class:`~maxent_util._timing.Deadline`, or None) is checked before each rule is
        built: :class:`TimeUp` is raised when it has expired.  ``start``: a neighbour's law (in
        a sweep) of the same shape: Newton starts from its multipliers (or from ``guess``, an
        extrapolation from the neighbours), under its panels.  Whatever the start, the answer is
        polished under a rule built at it, so a sweep and a single call give the same law."""
        budget = [_MAX_RULES]

        def rule_at(multipliers: np.ndarray) -> _Rule | None:
            budget[0] -= 1
            if budget[0] < 0:
                raise _GiveUp
            if deadline is not None and deadline.expired():
                raise TimeUp
            return self.rule(multipliers)

        try:
            if start is not None and self._same_shape(start):
                rule = start.rule
                rule = self.rule_of_panels(rule.segment, rule.left, rule.right, rule.cut_segment, rule.cut_z)
                first = start.multipliers if guess is None or len(guess) != len(self.features) else guess
                law = self._newton(self.project(np.array(first, dtype=float)), rule_at, rule)
                if law is not None:
                    return law
            lam = self.initial()
            if lam is None:
                return None
            law = self._newton(self.project(lam), rule_at)
            inside = None if law is not None else self._inside_start(lam)
            if inside is None:
                return law
            budget[0] = min(budget[0], _RETRY_RULES)  # a second try, on a smaller budget
            return self._newton(self.project(inside), rule_at)
        except _GiveUp:
            return None
        finally:
            # the law keeps its problem: not the nodes that served the search
            self._ladder = self._first_panels = None

    def _inside_start(self, lam: np.ndarray) -> np.ndarray | None:
        """Another start where ``lam`` leaves at 0 the multiplier of a squared log feature whose
        region reaches kappa = 0: there the density is integrable only with that multiplier
        positive, so the start is on the edge of the dual's domain and Newton's first step may
        leave it at once.  The multiplier 1/(2 sigma**2) (the log-normal law's) instead; None
        when no such feature is at 0."""
        inside = lam.copy()
        for i, f in enumerate(self.features):
            if f.d > 0 and f.lower == 0 and lam[i] == 0 and f.value > 0:
                inside[i] = 0.5 / f.value
        return None if np.array_equal(inside, lam) or not np.isfinite(inside).all() else inside

    def _same_shape(self, other: "NumericLaw") -> bool:
        problem = other.problem
        return (len(problem.features) == len(self.features) and np.array_equal(problem.ends, self.ends)
                and problem.point == self.point
                and np.array_equal(problem.logarithmic, self.logarithmic)
                and np.array_equal(problem.inside, self.inside) and np.array_equal(problem.signs, self.signs))

    def _newton(self, lam: np.ndarray, rule_at: Callable, rule: _Rule | None = None) -> "NumericLaw | None":
        """Newton's method on the dual under a rule built at the multipliers it starts from,
        until it converges or the mass reaches where that rule's tails were cut; then a rule
        built where it stopped.  The answer is polished and checked under a rule built there."""
        scale = np.maximum(np.abs(self.values + self.origins), 1.0)
        before = None  # where the last rule was built, while Newton went on from there
        for _ in range(_MAX_ITERATIONS):
            fresh = rule is None
            rule = rule_at(lam) if rule is None else rule
            if rule is None and before is not None:
                # the steps under the last rule went where no rule resolves the density (its
                # mass creeping towards kappa = 0 or oo, which that rule did not reach): back
                # towards where they started, as a line search would have under a rule there
                lam, rule = self._back_towards(before, lam, rule_at)
            if rule is None:
                return None
            before = lam
            lam, steps, moments = self._newton_on(rule, lam, scale)
            if moments is None or steps < 0:
                return None  # failed, or stuck at the edge of the dual's domain
            # settled where the rule was built (no step taken with moments found: _newton_on
            # returned on _settled): nothing left to check against a newer rule
            if fresh and steps == 0:
                return self._answer(lam, rule_at, scale, rule, moments)
            if self._still_holds(rule, lam, moments, scale):
                return self._answer(lam, rule_at, scale)
            rule = None  # build one at the multipliers reached
        return None

    def _back_towards(self, start: np.ndarray, lam: np.ndarray, rule_at: Callable) -> tuple:
        """The first point of start + (lam - start) / 2**j (j = 1, 2, ...) at which a rule is
        built, and that rule; (lam, None) when none within _BACKTRACKS halvings is."""
        step = lam - start
        for _ in range(_BACKTRACKS):
            step = step / 2
            trial = self.project(start + step)
            rule = rule_at(trial)
            if rule is not None:
                return trial, rule
        return lam, None

    def _answer(self, lam: np.ndarray, rule_at: Callable, scale: np.ndarray,
                rule: _Rule | None = None, moments: tuple | None = None) -> "NumericLaw | None":
        """The law at the multipliers Newton settled on: two more Newton steps under a rule built
        at that very point (every start, a neighbour's or the cold one, ends on the same point
        to rounding), then every constraint checked by that rule (equalities to 1e-13 of their
        scale, inequalities inside their bounds, multipliers of the right signs, every
        expectation resolved, the density integrable).  ``rule``: one already built at ``lam``,
        and ``moments`` the moments at ``lam`` under it where they are known to meet the
        constraints (:meth:`_settled`)."""
        if rule is None:
            rule, moments = rule_at(lam), None
            if rule is None:
                return None
        settled = moments is not None  # whether the constraints are known to hold at lam
        if moments is None:
            moments = self._moments(rule, lam)
        for _ in range(2):
            if moments is None:
                return None
            newton = self._newton_step(lam, moments[1], moments[2])
            if newton is None:
                break
            trial = self.project(lam + newton[1])
            if not (np.isfinite(trial).all() and self._admissible(rule, trial)):
                break
            trial_moments = self._moments(rule, trial)
            if trial_moments is None or not self._settled(rule, trial, trial_moments, scale):
                break
            # the moments at the point reached, already known, and the constraints checked there
            lam, moments, settled = trial, trial_moments, True
        if (moments is None or not (settled or self._settled(rule, lam, moments, scale))
                or not self._resolved(rule, lam) or self.integrable(lam) is False
                or (self._bounded and np.any(self.project(lam) != lam))):
            return None
        # the panels' halves served the search; the law keeps only its own nodes
        kept = copy.copy(rule)
        kept.halves = None
        return NumericLaw(self, lam, moments[0], kept)

    def _tail_reached(self, rule: _Rule, lam: np.ndarray, drop: float) -> bool:
        """Whether the density where ``rule`` cut a tail off is within ``drop`` (in log) of its
        peak at ``lam``: the mass has moved to where the rule no longer reaches."""
        if not len(rule.cut_z):
            return False
        peak = (rule.level - rule.features @ lam).max()
        return bool(self._phi(rule.cut_level, rule.cut_features, lam).max() > peak - drop)

    def _still_holds(self, rule: _Rule, lam: np.ndarray, moments: tuple, scale: np.ndarray) -> bool:
        """Whether a rule built at other multipliers is as good at ``lam`` as one built there:
        the constraints hold under it, every panel still agrees with its two halves, and no
        cut-off tail has come within reach of the peak.  Cheaper than building a new rule."""
        if not self._settled(rule, lam, moments, scale):
            return False
        if self._tail_reached(rule, lam, _TAIL - 10):
            return False
        peak = float((rule.log_jacobian - rule.features @ lam).max())
        middle = (rule.left + rule.right) / 2
        # each panel by its own nodes (the rule's), and by a rule over each of its halves
        whole = (rule.weight * np.exp(-(rule.features @ lam) - peak)).reshape(len(rule.left), -1).sum(axis=1)
        n = len(rule.left)
        if rule.halves is None:
            rule.halves = self._panel_nodes(np.concatenate([rule.segment, rule.segment]),
                                            np.concatenate([rule.left, middle]), np.concatenate([middle, rule.right]))
        parts = self._integrals(rule.halves, lam, peak)
        halves = parts[:n] + parts[n:]
        total = float(halves.sum())
        return bool(total > 0 and (np.abs(whole - halves) <= _PANEL_TOLERANCE * total).all())

    def _newton_on(self, rule: _Rule, lam: np.ndarray, scale: np.ndarray):
        """Newton steps under one rule, the inequalities that do not bind held at 0 (an active
        set on the dual), each step projected onto the multipliers' signs and kept inside the
        dual's domain: (multipliers, steps taken, moments there); moments None when the
        iteration fails, steps -1 when it is stuck at the edge of the domain."""
        for steps in range(_MAX_ITERATIONS):
            moments = self._moments(rule, lam)
            if moments is None:
                return lam, steps, None
            log_z, mean, cov = moments[:3]
            if self._settled(rule, lam, moments, scale):
                return lam, steps, moments
            if steps and self._tail_reached(rule, lam, _TAIL / 2):
                return lam, steps, moments  # the mass moved to where this rule was cut
            newton = self._newton_step(lam, mean, cov)
            if newton is None:
                return lam, steps, None
            gradient, step = newton
            if not np.isfinite(step).all():
                return lam, steps, None
            dual = log_z + lam @ self.values
            if -(gradient @ step) < _QUADRATIC:
                # the Newton decrement is tiny: inside the region of quadratic convergence, where
                # the full step is right and the dual's change is below its rounding anyway
                trial = self.project(lam + step)
                if self._admissible(rule, trial):
                    lam = trial
                    continue
            t, outside = 1.0, True
            for _ in range(60):
                trial = self.project(lam + t * step)
                if self._admissible(rule, trial):
                    outside = False
                    trial_log_z = self._log_partition(rule, trial)
                    if trial_log_z is not None:
                        trial_dual = trial_log_z + trial @ self.values
                        if trial_dual <= dual + 1e-4 * (gradient @ (trial - lam)) + 1e-15 * abs(dual):
                            lam = trial
                            break
                t /= 2
            else:
                # every trial left the domain: the infimum of the dual lies on its edge
                # (the supremum of the entropy is not attained); else no decrease is left at this
                # rule's precision: stop here and let a new rule judge
                return lam, (-1 if outside else steps + 1), moments
        return lam, _MAX_ITERATIONS, None


    # -- Newton's method on the multiplier equations (the full route's search) -------------
    @_quiet
    def at(self, lam: np.ndarray):
        """(rule, moments) of the density at ``lam``: a rule built there and (log Z, E[g], Cov[g],
        E[|g|]) under it; None where ``lam`` is outside the dual's domain or the rule fails."""
        if not np.all(np.isfinite(lam)) or self.integrable(lam) is False:
            return None
        rule = self.rule(lam)
        if rule is None or not self._admissible(rule, lam):
            return None
        moments = self._moments(rule, lam)
        return None if moments is None else (rule, moments)

    @_quiet
    def equations_root(self, mu: np.ndarray, basis: np.ndarray, rows: np.ndarray, scale: np.ndarray, *,
                       tolerance: float = 1e-11, iterations: int = 80) -> tuple[np.ndarray, float, bool]:
        """Newton's method on E[g_rows] = values[rows] over multipliers lam = basis @ mu: a
        continuity condition (the density equal on both sides of a point) is a linear relation
        between the multipliers of the pieces meeting there, and ``basis`` spans the multipliers
        that meet every one.  Without a relation (``basis`` the identity, every row an equation)
        the merit is the convex dual, whose Newton step always descends; with one the equations
        are not a gradient and the merit is the residual norm (scaled by ``scale``).  Returns
        (mu, scaled residual norm, whether a step was refused at the edge of the dual's domain)."""
        dual = basis.shape[0] == basis.shape[1] and len(rows) == basis.shape[0]
        values = self.values[rows]
        conditional = self._conditional[rows]

        def merit(point: np.ndarray, rule: _Rule | None = None):
            # a trial of the line search is judged under the rule of the point it steps from
            # (one rule built per step, not per trial); the point reached gets a rule of its own
            lam = basis @ point
            if rule is None:
                found = self.at(lam)
                if found is None:
                    return None
                rule, moments = found
            else:
                if not np.all(np.isfinite(lam)) or self.integrable(lam) is False or not self._admissible(rule, lam):
                    return None
                moments = self._moments(rule, lam)
                if moments is None:
                    return None
            residual = (moments[1][rows] - values) / scale
            if conditional.any():
                # a conditional equation's residual given its side (see _side_masses)
                with np.errstate(divide="ignore", invalid="ignore"):
                    residual = np.where(conditional, residual / self._side_masses(rule, lam)[rows], residual)
                residual = np.where(np.isnan(residual), np.inf, residual)
            norm = float(np.linalg.norm(residual))
            return (moments[0] + lam @ self.values if dual else norm), norm, moments, rule

        mu = np.asarray(mu, dtype=float)
        current = merit(mu)
        if current is None:
            raise ZeroDivisionError("the density cannot be normalised at the start")
        value, norm, moments, rule = current
        blocked, short, fresh_rule = False, 0, True
        for _ in range(iterations):
            if norm < tolerance:
                if fresh_rule:
                    break
                # converged under a rule built elsewhere: judged again under one built here
                again = merit(mu)
                if again is None:
                    break
                value, norm, moments, rule = again
                fresh_rule = True
                continue
            jacobian = -(moments[2][rows] @ basis)
            residual = moments[1][rows] - values
            try:
                step = np.linalg.solve(jacobian, -residual)
            except np.linalg.LinAlgError:
                step = np.linalg.lstsq(jacobian, -residual, rcond=None)[0]
            if not np.all(np.isfinite(step)):
                break
            t = 1.0
            for _ in range(40):
                trial = merit(mu + t * step, rule)
                if trial is None:
                    blocked = True
                elif trial[0] < value or (trial[1] < norm and trial[0] <= value):
                    mu = mu + t * step
                    value, norm, moments = trial[:3]
                    fresh_rule = False
                    # the mass moved to where the rule's tails were cut: a rule built here
                    if self._tail_reached(rule, basis @ mu, _TAIL / 2):
                        again = merit(mu)
                        if again is None:
                            return mu, math.inf, True
                        value, norm, moments, rule = again
                        fresh_rule = True
                    break
                t /= 2
            else:
                break
            # steps cut a thousandfold, again and again: the root lies past the edge of the domain
            short = short + 1 if t < 1e-3 else 0
            if short >= 4:
                break
        if not fresh_rule:
            again = merit(mu)
            if again is None:
                return mu, math.inf, True
            norm = again[1]
        return mu, norm, blocked


# ---------------------------------------------------------------------------
# the law


def _exponential_integral(c1: np.ndarray, lo: np.ndarray, hi: np.ndarray, top: np.ndarray) -> np.ndarray:
    """The integral of exp(c1 (u - top)) over [lo, hi] (0 where hi <= lo), ``top`` the end of
    the segment where the density is largest: exp at the end of [lo, hi] where it is largest,
    times (1 - exp(-|c1| width)) / |c1| (the width where c1 is 0). No exponent is positive, and
    a far tail keeps its relative precision (the distance to ``top`` is a difference of nearby
    numbers, not of large exponents). Arrays of segments (the masses of a law's segments); a
    runtime's share of its segment is the same formula in place, :func:`_exponential_share`."""
    with np.errstate(invalid="ignore", over="ignore", under="ignore", divide="ignore"):
        width = np.subtract(hi, lo)
        c1 = np.asarray(c1, dtype=float)
        peak = np.exp(np.where(c1 == 0, 0.0, c1 * (np.where(c1 > 0, hi, lo) - top)))
        slope = np.abs(c1)
        value = peak * np.where(slope == 0, width, -np.expm1(-slope * width) / np.where(slope == 0, 1.0, slope))
    return np.where(width > 0, value, 0.0)


def _exponential_share(c1: float, width: np.ndarray, exponent: np.ndarray | None) -> np.ndarray:
    """:func:`_exponential_integral` of one segment in place, for runtimes: ``width`` (each
    runtime's part of the segment, hi - lo, at least 0) becomes exp(exponent) times
    (1 - exp(-|c1| width)) / |c1| (the width where c1 is 0), ``exponent`` c1 times the distance
    from the segment's top to the part's end where the density is largest (None where that end
    is the top itself: exp(0) = 1, so the product is skipped). The same operations on the same
    numbers as :func:`_exponential_integral` (a negation moved from the numerator to the
    divisor, and a product's factors swapped: both exact), so the same bits; ``exponent`` is
    overwritten too."""
    if c1 == 0:
        return width
    slope = abs(c1)
    np.multiply(width, -slope, out=width)
    np.expm1(width, out=width)
    np.divide(width, -slope, out=width)  # -expm1(...) / |c1|: the sign of a quotient is exact
    if exponent is not None:
        np.exp(exponent, out=exponent)
        np.multiply(exponent, width, out=width)
    return width


def _before_and_after(mass: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The mass of the parts before each part, and after it."""
    return (np.concatenate([[0.0], np.cumsum(mass)[:-1]]),
            np.concatenate([np.cumsum(mass[::-1])[::-1][1:], [0.0]]))


#: captimes a written-out tail is evaluated on at a time (its two temporaries stay in cache)
_TAIL_BLOCK = 1 << 15


class NumericLaw:
    """A maximum-entropy law in double precision: its multipliers, Z, and vectorised pdf, CDF
    and survival function read from the quadrature panels (each point integrated over the part
    of its panel on its side, so a far tail keeps its relative precision).

    Attributes
    ----------
    multipliers : numpy.ndarray
        lambda_1, lambda_2, ... in the order of the constraints (the density is
        exp(-1 - lambda_0 - sum_i lambda_i g_i 1_i)).
    lambda_0 : float
        log Z - 1.
    support : (float, float)
    """

    def __init__(self, problem: FastProblem, lam: np.ndarray, log_z: float, rule: _Rule) -> None:
        self.problem = problem
        self.multipliers = lam
        self.support = (problem.lower, problem.upper)
        self.rule = rule
        self._left, self._right, self._segment = rule.left, rule.right, rule.segment
        # the probability at every node, and the mass of every panel
        with np.errstate(under="ignore"):
            nodes = rule.weight * np.exp(-(rule.features @ lam) - log_z)
        # the exponent's terms can reach hundreds (log kappa near -690), so each exp() carries a
        # relative rounding of about |exponent| * 1e-16: the masses are scaled to sum to 1
        total = float(nodes.sum())
        self._nodes_probability = nodes / total
        # Z of the features from their origins (the density's, at the nodes and every point),
        # and Z of the constraints' own features: exp(-lam . origins) times it
        self._log_z = log_z + math.log(total)
        self.log_z = self._log_z - float(lam @ problem.origins) if problem._shifted else self._log_z
        self.lambda_0 = self.log_z - 1.0
        self._mass = self._nodes_probability.reshape(len(rule.left), len(_NODES)).sum(axis=1)
        self._written: np.ndarray | None = None  # see _written_segments

    # the masses before and after each panel, and their sum: read by a CDF or survival function
    # the tails are not written out for (see _partial), made when first asked for
    @functools.cached_property
    def _before_after(self) -> tuple[np.ndarray, np.ndarray]:
        return _before_and_after(self._mass)

    @property
    def _before(self) -> np.ndarray:
        return self._before_after[0]

    @property
    def _after(self) -> np.ndarray:
        return self._before_after[1]

    @functools.cached_property
    def _total(self) -> float:
        return float(self._mass.sum())

    def _written_segments(self) -> np.ndarray:
        """Which segments have their tails written out (see :meth:`_exponential_pieces`), read
        when a CDF or survival function is first asked for: a law used only for its numbers
        does not pay for them."""
        if self._written is None:
            self._exponential_pieces()
            self._written = self._in_kappa | self._in_log
        return self._written

    def _exponential_pieces(self) -> None:
        """Where the density is exp(c0 + c1 u) on a segment, in u = kappa (Mean, a tail
        probability) or u = log(kappa) (LogMoment: a power of kappa), its tails there are
        written out (:meth:`_exponential_tail`) instead of summed over the panel's nodes: the
        common laws' utilities then cost a few array operations per runtime, not twenty
        exponentials (the segment masses before and after still come from the panels)."""
        problem, lam = self.problem, self.multipliers
        features = problem.features

        def total(name: str) -> np.ndarray:  # per segment (inside is segments x features)
            return problem.inside @ (lam * np.array([getattr(f, name) for f in features], dtype=float))

        # the constant terms (e, and b c of b (log(kappa) - c)) only scale a segment: its share cancels them
        a, a2, b, d = (total(name) for name in ("a", "a2", "b", "d"))
        compiled = (problem.inside & np.array([f.extra is not None for f in features], dtype=bool)).any(axis=1)
        # which terms each segment holds (a multiplier of exactly 0 drops its term)
        plain = ~compiled & (a2 == 0) & (d == 0)
        self._in_kappa = plain & (b == 0)               # exp(-a kappa - e): exponential or uniform
        self._in_log = plain & (a == 0) & ~self._in_kappa  # kappa**(-b) e^(...): a power of kappa
        self._c1 = np.where(self._in_kappa, -a, 1.0 - b)
        every = np.arange(len(problem.start))
        low, high = self._u_ends(every)
        self._top = np.where(self._c1 > 0, high, low)
        self._written_mass = _exponential_integral(self._c1, low, high, self._top)
        self._segment_mass = np.bincount(self._segment, weights=self._mass, minlength=len(problem.start))
        self._segment_before, self._segment_after = _before_and_after(self._segment_mass)

    def _segment_tails(self, upper_tail: bool) -> list[tuple[bool, float, float, float, float, float, float]]:
        """For each segment, what a runtime's tail in it needs (read once a law and tail): whether
        u is log(kappa), the segment's ends and top in u, c1, the ratio of the segment's mass to
        its written integral, and the mass of the segments beyond it on that side."""
        key = "_upper_tails" if upper_tail else "_lower_tails"
        found = self.__dict__.get(key)
        if found is None:
            self._written_segments()
            every = np.arange(len(self.problem.start))
            low, high = self._u_ends(every)
            with np.errstate(divide="ignore", invalid="ignore"):
                ratio = self._segment_mass / self._written_mass
            beyond = self._segment_after if upper_tail else self._segment_before
            found = [(bool(self._in_log[s]), float(low[s]), float(high[s]), float(self._c1[s]),
                      float(self._top[s]), float(ratio[s]), float(beyond[s])) for s in every]
            self.__dict__[key] = found
        return found

    def _exponential_tail(self, segment: int, x: np.ndarray, upper_tail: bool, out: np.ndarray,
                          scratch: np.ndarray) -> None:
        """P(kappa > x) (or P(kappa <= x)) into ``out`` for captimes ``x`` in one segment where
        the density is exp(c0 + c1 u): the mass of the segments beyond, plus the share of the
        segment on x's side (the integral of exp(c1 u) over that part over its integral over the
        segment, so that both tails sum to the panels' masses; c0 cancels). ``scratch``: a
        buffer of x's size. Not clipped to [0, 1], and x outside the segment is not repaired:
        :meth:`_written_tail` does both."""
        in_log, low, high, c1, top, ratio, beyond = self._segment_tails(upper_tail)[segment]
        u = np.log(x, out=scratch) if in_log else x
        # the part of the segment on x's side: [u, high] above, [low, u] below
        width = np.subtract(high, u, out=out) if upper_tail else np.subtract(u, low, out=out)
        if in_log or (upper_tail and math.isfinite(high)):
            # log() may round a captime just inside the segment onto (or past) its end; and
            # above a finite end S is then 0 with no repair (a part of width 0, nothing beyond)
            np.maximum(width, 0.0, out=width)
        exponent = None
        if c1 < 0 if upper_tail else c1 > 0:
            # the part's end where the density is largest is u itself (the density falls away
            # from u on x's side), else the segment's top; u - 0.0 is u, bit for bit
            exponent = np.multiply(np.subtract(u, top, out=scratch) if top else u, c1, out=scratch)
        _exponential_share(c1, width, exponent)
        np.multiply(width, ratio, out=width)
        if beyond != 0.0:  # the share is never -0.0, so adding +0.0 would change no bit
            np.add(width, beyond, out=width)

    def _written_tails(self, x: np.ndarray, upper_tail: bool, out: np.ndarray) -> np.ndarray:
        """:meth:`_written_tail` of a flat array of captimes into ``out``, in blocks that keep
        the few temporaries in cache; returns ``out``."""
        # log(0), 0 * inf and the like at runtimes outside the support, repaired after the formula
        with np.errstate(divide="ignore", invalid="ignore", over="ignore", under="ignore"):
            for start in range(0, x.size, _TAIL_BLOCK):
                self._written_tail(x[start:start + _TAIL_BLOCK], upper_tail, out[start:start + _TAIL_BLOCK])
        return out

    def _written_tail(self, x: np.ndarray, upper_tail: bool, out: np.ndarray) -> None:
        """P(kappa > x) (or P(kappa <= x)) into ``out`` for a block of captimes, every segment
        written out: each segment's captimes by :meth:`_exponential_tail`, clipped to [0, 1], then
        1 and 0 at and beyond the ends of the support (NaN stays NaN)."""
        scratch = np.empty(x.shape)
        count = len(self.problem.start)
        if count == 1:
            self._exponential_tail(0, x, upper_tail, out, scratch)
        else:
            segment = np.searchsorted(self.problem.ends[1:-1], x, side="right")
            present = np.flatnonzero(np.bincount(segment, minlength=count))
            if len(present) == 1:
                self._exponential_tail(int(present[0]), x, upper_tail, out, scratch)
            else:
                part = np.empty(x.shape)
                for s in present:
                    where = np.flatnonzero(segment == s)
                    self._exponential_tail(int(s), x[where], upper_tail, part[:where.size], scratch[:where.size])
                    out[where] = part[:where.size]
        np.clip(out, 0.0, 1.0, out=out)
        low, high = self.support
        # S = 1 at and below the support's start and 0 at and past its end (F the other way
        # round); the smallest runtime says whether any lies at the start (NaN: look)
        if not x.min() > low:
            below = x <= low
            out[below] = 1.0 if upper_tail else 0.0
        if not upper_tail or not math.isfinite(high):  # else 0 already, see _exponential_tail
            above = x >= high
            if above.any():
                out[above] = 0.0 if upper_tail else 1.0

    def _u_ends(self, segment: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The ends of segments in their u (kappa, or log(kappa) where the density is a power)."""
        ends = self.problem.ends
        in_log = self._in_log[segment]
        with np.errstate(divide="ignore"):
            return (np.where(in_log, np.log(ends[segment]), ends[segment]),
                    np.where(in_log, np.log(ends[segment + 1]), ends[segment + 1]))

    def _log_density(self, segment: np.ndarray, z: np.ndarray) -> np.ndarray:
        return self.problem.exponent(self.multipliers, segment, z) - self._log_z

    def _variable(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Each captime's segment and its value in that segment's variable."""
        problem = self.problem
        segment = np.clip(np.searchsorted(problem.ends, x, side="right") - 1, 0, len(problem.start) - 1)
        with np.errstate(divide="ignore"):
            z = np.where(problem.logarithmic[segment], np.log(np.maximum(x, 0)), x - problem.point)
        return segment, z

    def pdf(self, x: Any) -> np.ndarray:
        """f(x), 0 outside the support."""
        x = np.asarray(x, dtype=float)
        segment, z = self._variable(x)
        problem = self.problem
        with np.errstate(over="ignore", invalid="ignore"):
            logk = np.where(problem.logarithmic[segment], z, 0.0)
            value = np.exp(self._log_density(segment, z) - logk)
        inside = (x >= self.support[0]) & (x <= self.support[1]) & np.isfinite(x)
        return np.where(np.isnan(x), np.nan, np.where(inside, value, 0.0))

    def _partial(self, x: np.ndarray, upper_tail: bool) -> np.ndarray:
        segment, z = self._variable(x)
        # the panel holding z (panels are sorted by segment, then position)
        index = np.zeros(len(x), dtype=int)
        for s in np.unique(segment):
            mask = segment == s
            panels = np.nonzero(self._segment == s)[0]
            if len(panels) == 0:
                # no mass in this segment: everything lies on one side of it
                first_after = np.searchsorted(self._segment, s, side="left")
                index[mask] = -1 - first_after
                continue
            found = np.searchsorted(self._right[panels], z[mask], side="left")
            index[mask] = panels[np.clip(found, 0, len(panels) - 1)]
        empty = index < 0
        panel = np.where(empty, 0, index)
        a, b = self._left[panel], self._right[panel]
        zc = np.clip(z, a, b)
        lo, hi = (zc, b) if upper_tail else (a, zc)
        half = (hi - lo) / 2
        nodes = (lo + hi)[:, None] / 2 + half[:, None] * _NODES
        weights = half[:, None] * _WEIGHTS
        phi = self._log_density(np.repeat(segment, len(_NODES)).reshape(nodes.shape), nodes)
        with np.errstate(under="ignore", over="ignore"):
            part = (weights * np.exp(phi)).sum(axis=1)
        if upper_tail:
            out = self._after[panel] + part
            # captimes left of the panel's start (in a segment with no mass before it)
            out = np.where(z < a, self._after[panel] + self._panel_mass(panel), out)
            out = np.where(empty, self._after_segment(-1 - index), out)
        else:
            out = self._before[panel] + part
            out = np.where(z > b, self._before[panel] + self._panel_mass(panel), out)
            out = np.where(empty, self._total - self._after_segment(-1 - index), out)
        return out

    def _panel_mass(self, panel: np.ndarray) -> np.ndarray:
        return self._total - self._before[panel] - self._after[panel]

    def _after_segment(self, first_after: np.ndarray) -> np.ndarray:
        """The mass from panel ``first_after`` on."""
        first_after = np.asarray(first_after)
        padded = np.concatenate([self._after + self._panel_mass(np.arange(len(self._left))), [0.0]])
        return padded[np.clip(first_after, 0, len(self._left))]

    def _tail(self, x: Any, upper_tail: bool) -> np.ndarray:
        x = np.asarray(x, dtype=float)
        flat = x.ravel()
        out = np.empty(flat.shape)
        if flat.size == 0:
            return out.reshape(x.shape)
        by_segment = self._written_segments()
        if by_segment.all():
            self._written_tails(flat, upper_tail, out)
            return out.reshape(x.shape)
        low, high = self.support
        below = flat <= low
        above = flat >= high
        nan = np.isnan(flat)
        inner = ~(below | above | nan)
        out[below] = 1.0 if upper_tail else 0.0
        out[above] = 0.0 if upper_tail else 1.0
        out[nan] = np.nan
        if inner.any():
            x_inner = flat[inner]
            segment = np.clip(np.searchsorted(self.problem.ends, x_inner, side="right") - 1,
                              0, len(self.problem.start) - 1)
            written = by_segment[segment]
            values = np.empty(x_inner.shape)
            if written.any():
                values[written] = self._written_tails(x_inner[written], upper_tail, np.empty(int(written.sum())))
            values[~written] = np.clip(self._partial(x_inner[~written], upper_tail), 0.0, 1.0)
            out[inner] = values
        return out.reshape(x.shape)

    def cdf(self, x: Any) -> np.ndarray:
        """F(x) = P(kappa <= x)."""
        return self._tail(x, upper_tail=False)

    def sf(self, x: Any) -> np.ndarray:
        """S(x) = P(kappa > x), integrated over the upper tail itself."""
        return self._tail(x, upper_tail=True)

    def expectation(self, g: Callable[[np.ndarray], np.ndarray]) -> float:
        """E[g(kappa)] by the law's quadrature."""
        return float(self._nodes_probability @ np.asarray(g(self.rule.kappa), dtype=float))

    def mean(self) -> float:
        """E[kappa]."""
        return self.expectation(lambda k: k)

    @property
    def active(self) -> tuple[int, ...]:
        """The positions (among the constraints after the support) of the inequalities that
        bind: their multipliers are not 0, and E[g] meets their bound.  The others hold with
        room to spare, multiplier 0."""
        return tuple(int(i) for i in np.nonzero((self.problem.signs != 0) & (self.multipliers != 0))[0])
