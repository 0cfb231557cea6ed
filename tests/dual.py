"""An independent maximum-entropy solver for the tests: the convex dual, in numpy and scipy.

It shares no code with maxent_util, so that the property tests compare the engine's laws with
a second route.  Every feature the library's constraint kinds fix is, on the pieces between
breakpoints, a polynomial of degree at most 2 in ``L = log(kappa)`` plus a multiple of
``kappa``::

    g(kappa) = q2 L**2 + q1 L + m kappa + c0,   on the region [lower, upper)

(``Mean``: kappa; ``LogMoment``: log(kappa/kappa0), or its conditional forms on one side of
kappa0; ``SquaredLogDeviation``: log(kappa/kappa0)**2; ``TailProbability``: 1{kappa < kappa1};
``Moment`` with an expression among those).  The maximum-entropy law is
``p(kappa) = exp(lam . g(kappa)) / Z(lam)`` where ``lam`` minimises the convex dual

    D(lam) = log Z(lam) - lam . c,   Z(lam) = int_support exp(lam . g(kappa)) dkappa,

with ``lam_i`` free for an equality, ``lam_i <= 0`` for ``E[g_i] <= c_i`` and ``lam_i >= 0``
for ``E[g_i] >= c_i`` (the KKT conditions in the dual).  Z is integrated in
``y = log(kappa)``, where the exponent ``A y**2 + (B + 1) y + C e**y`` (the 1 is the Jacobian)
is smooth on each piece; Gauss-Legendre panels, sized from the exponent's slope and curvature,
cover every piece where the integrand is within exp(-90) of its peak.  Integrability is
decided from the signs of A, B and C at the infinite ends.  A continuity condition at kappa0
(``ContinuousAt``) adds a multiplier ``mu`` on 1{kappa < kappa0}, fixed by asking the exponent
to have the same limits on both sides of kappa0; it is found by a one-dimensional root search
around the convex inner problem.

"No law" is reported when no multipliers make the density integrable (e.g. the half-line with a
log moment only), or when the dual has no minimiser that meets the moment conditions (it runs
off to infinity, or stops on the edge of the domain of Z with a gradient that is not zero: the
constraint set is infeasible, or the supremum of the entropy is not attained).  An answer the
solver cannot settle either way is "undecided".

The module also holds :func:`mp_function`, a small evaluator of sympy expressions in mpmath
(built from the expression tree, with integers passed to mpmath as integers, never as text),
used to integrate the library's own densities independently of its compiler.
"""

from __future__ import annotations

import itertools
import math
import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Callable

import numpy as np
from scipy import optimize

__all__ = ["Feature", "Problem", "Law", "NoLaw", "solve", "typed", "mp_function"]

inf = math.inf

#: the integrand is neglected where it is below exp(-DROP) times its peak
DROP = 90.0
#: Gauss-Legendre nodes per panel
_NODES, _WEIGHTS = np.polynomial.legendre.leggauss(24)


def typed(value: str | float | int) -> float:
    """A value as a user typed it ("0.231", "15", "1e5", 2.5) as the nearest float."""
    return float(Fraction(str(value))) if isinstance(value, str) else float(value)


@dataclass(frozen=True)
class Feature:
    """g(kappa) = q2 L**2 + q1 L + m kappa + m2 kappa**2 + c0 (L = log kappa) on [lower, upper),
    whose expectation is ``relation`` (``"=="``, ``"<="`` or ``">="``) ``target``."""

    q2: float = 0.0
    q1: float = 0.0
    m: float = 0.0
    c0: float = 0.0
    m2: float = 0.0
    lower: float = 0.0
    upper: float = inf
    target: float = 0.0
    relation: str = "=="
    label: str = ""

    def active(self, lo: float, hi: float) -> bool:
        """Whether the piece (lo, hi) lies in the feature's region."""
        return self.lower <= lo and hi <= self.upper

    def at(self, y: np.ndarray) -> np.ndarray:
        """The feature at kappa = exp(y) (on its region)."""
        out = np.full(np.shape(y), self.c0, dtype=float)
        if self.q2:
            out = out + self.q2 * y * y
        if self.q1:
            out = out + self.q1 * y
        if self.m:
            out = out + self.m * np.exp(y)
        if self.m2:
            out = out + self.m2 * np.exp(2 * y)
        return out


def mean(value: float, relation: str = "==") -> Feature:
    """E[kappa] = value, scaled as E[kappa/value] = 1 so that the multiplier is of order 1."""
    return Feature(m=1.0 / value, target=1.0, relation=relation, label=f"Mean({value})")


def log_moment(value: float, kappa0: float = 1.0, relation: str = "==", side: str | None = None) -> Feature:
    """E[log(kappa/kappa0)] = value; with ``side``, the conditional forms
    E[log(kappa/kappa0) - value; kappa >= kappa0] = 0 (above) and
    E[log(kappa0/kappa) - value; kappa < kappa0] = 0 (below), divided by ``value`` (> 0)."""
    l0 = math.log(kappa0)
    label = f"LogMoment({value}, {kappa0}{'' if side is None else ', ' + side})"
    if side is None:
        return Feature(q1=1.0, c0=-l0, target=value, relation=relation, label=label)
    if side == "above":
        return Feature(q1=1.0 / value, c0=-l0 / value - 1.0, lower=kappa0, target=0.0, relation=relation,
                       label=label)
    return Feature(q1=-1.0 / value, c0=l0 / value - 1.0, upper=kappa0, target=0.0, relation=relation,
                   label=label)


def squared_log_deviation(sigma: float, kappa0: float = 1.0, relation: str = "==") -> Feature:
    """E[log(kappa/kappa0)**2] = sigma**2, scaled by sigma**2."""
    l0, s2 = math.log(kappa0), sigma * sigma
    return Feature(q2=1.0 / s2, q1=-2.0 * l0 / s2, c0=l0 * l0 / s2, target=1.0, relation=relation,
                   label=f"SquaredLogDeviation({sigma}, {kappa0})")


def tail_probability(kappa1: float, delta: float, relation: str = "==") -> Feature:
    """P(kappa < kappa1) = delta."""
    return Feature(c0=1.0, upper=kappa1, target=delta, relation=relation,
                   label=f"TailProbability({kappa1}, {delta})")


def moment(kind: str, value: float, where: tuple[float, float] | None = None, relation: str = "==") -> Feature:
    """E[g(kappa) 1{kappa in where}] = value for g = kappa, kappa**2, log(kappa) or log(kappa)**2."""
    coefficients = {"kappa": {"m": 1.0}, "kappa**2": {"m2": 1.0}, "log(kappa)": {"q1": 1.0},
                    "log(kappa)**2": {"q2": 1.0}}[kind]
    lower, upper = where if where is not None else (0.0, inf)
    scale = abs(value) if value != 0 else 1.0
    return Feature(**{k: v / scale for k, v in coefficients.items()}, lower=lower, upper=upper,
                   target=value / scale, relation=relation, label=f"Moment({kind}, {value}, {where})")


@dataclass(frozen=True)
class Problem:
    """A support [lower, upper] (upper may be inf), features, and the points kappa0 where the
    density must be continuous (at most one)."""

    lower: float
    upper: float
    features: tuple[Feature, ...]
    continuous_at: tuple[float, ...] = ()

    def breakpoints(self) -> list[float]:
        points = {self.lower, self.upper}
        for f in self.features:
            points |= {f.lower, f.upper}
        points |= set(self.continuous_at)
        return sorted(p for p in points if self.lower <= p <= self.upper)

    def pieces(self) -> list[tuple[float, float]]:
        points = self.breakpoints()
        return [(a, b) for a, b in zip(points, points[1:]) if b > a]


class NoLaw(Exception):
    """The dual finds no law: ``reason`` says why."""


@dataclass
class Law:
    """The maximum-entropy law found by the dual."""

    problem: Problem
    multipliers: np.ndarray
    mu: float
    log_z: float
    moments: np.ndarray
    notes: list[str] = field(default_factory=list)
    _table: tuple | None = None

    def _exponent(self, y: np.ndarray, lo: float, hi: float) -> np.ndarray:
        return _exponent(self.problem, self.multipliers, self.mu, y, lo, hi)

    def pdf(self, x: float | np.ndarray) -> np.ndarray:
        """The density at kappa = x."""
        x = np.atleast_1d(np.asarray(x, dtype=float))
        out = np.zeros_like(x)
        for lo, hi in self.problem.pieces():
            inside = (x >= lo) & (x < hi) & (x > 0)
            if inside.any():
                y = np.log(x[inside])
                out[inside] = np.exp(self._exponent(y, lo, hi) - y - self.log_z)
        return out

    def mass(self, a: float, b: float) -> float:
        """P(a <= kappa < b)."""
        total = 0.0
        for lo, hi in self.problem.pieces():
            lo2, hi2 = max(lo, a), min(hi, b)
            if hi2 <= lo2:
                continue
            y, w = _nodes(lambda v: self._exponent(v, lo, hi), _y(lo2), _y(hi2))
            total += float(np.sum(w * np.exp(self._exponent(y, lo, hi) - self.log_z)))
        return total

    def sf(self, x: float) -> float:
        """P(kappa > x)."""
        if x <= self.problem.lower:
            return 1.0
        return self.mass(x, inf) if x < self.problem.upper else 0.0

    def quantile(self, p: float) -> float:
        """The x with P(kappa < x) = p, approximately (from the quadrature nodes; for choosing points)."""
        if self._table is None:
            ys, cumulative = [], []
            total = 0.0
            for lo, hi in self.problem.pieces():
                y, w = _nodes(lambda v: self._exponent(v, lo, hi), _y(lo), _y(hi))
                order = np.argsort(y)
                mass = w[order] * np.exp(self._exponent(y[order], lo, hi) - self.log_z)
                ys.append(y[order])
                cumulative.append(total + np.cumsum(mass) - mass / 2)
                total += float(mass.sum())
            self._table = (np.concatenate(ys), np.concatenate(cumulative))
        y, cumulative = self._table
        return float(np.exp(np.interp(p, cumulative, y)))


def _y(x: float) -> float:
    if x == 0:
        return -inf
    return math.log(x) if math.isfinite(x) else inf


def _coefficients(problem: Problem, lam: np.ndarray, lo: float, hi: float) -> tuple[float, float, float, float]:
    """A, B, C, D of the exponent A y**2 + B y + C e**y + D e**(2 y) (+ constants) on the piece
    (lo, hi)."""
    a = b = c = d = 0.0
    for value, f in zip(lam, problem.features):
        if f.active(lo, hi):
            a += value * f.q2
            b += value * f.q1
            c += value * f.m
            d += value * f.m2
    return a, b, c, d


def integrable(problem: Problem, lam: np.ndarray) -> bool:
    """Whether exp(lam . g) is integrable over the support (decided from the signs at the ends)."""
    pieces = problem.pieces()
    first, last = pieces[0], pieces[-1]
    if last[1] == inf:
        a, b, c, d = _coefficients(problem, lam, *last)
        if not (d < 0 or (d == 0 and (c < 0 or (c == 0 and (a < 0 or (a == 0 and b + 1 < 0)))))):
            return False
    if first[0] == 0:
        a, b, c, _ = _coefficients(problem, lam, *first)
        if not (a < 0 or (a == 0 and b + 1 > 0)):
            return False
    return True


def _exponent(problem: Problem, lam: np.ndarray, mu: float, y: np.ndarray, lo: float, hi: float) -> np.ndarray:
    """log of (density times kappa) on the piece (lo, hi), unnormalised, at kappa = exp(y)."""
    out = y.astype(float).copy()
    for value, f in zip(lam, problem.features):
        if value != 0 and f.active(lo, hi):
            out = out + value * f.at(y)
    if mu and problem.continuous_at and hi <= problem.continuous_at[0]:
        out = out + mu
    return out


def _nodes(expo: Callable[[np.ndarray], np.ndarray], ylo: float, yhi: float) -> tuple[np.ndarray, np.ndarray]:
    """Gauss-Legendre nodes and weights in y covering [ylo, yhi] where expo is within DROP of its peak."""
    a = ylo if math.isfinite(ylo) else min(yhi - 1.0, -60.0)
    b = yhi if math.isfinite(yhi) else max(ylo + 1.0, 60.0)
    grid = np.linspace(a, b, 2001)
    values = expo(grid)
    k = int(np.argmax(values))
    peak_y, peak = grid[k], values[k]
    if 0 < k < len(grid) - 1:
        found = optimize.minimize_scalar(lambda v: -float(expo(np.array([v]))[0]),
                                         bounds=(grid[k - 1], grid[k + 1]), method="bounded",
                                         options={"xatol": 1e-12})
        if -found.fun > peak:
            peak_y, peak = float(found.x), float(-found.fun)

    def slope(v: float) -> tuple[float, float]:
        h = 1e-4 * max(1.0, abs(v))
        e = expo(np.array([v - h, v, v + h]))
        return (e[2] - e[0]) / (2 * h), (e[2] - 2 * e[1] + e[0]) / (h * h)

    # the ends: out to where the integrand has fallen by DROP (infinite ends: it does, integrable)
    ends = []
    for direction, limit in ((-1, ylo), (1, yhi)):
        if math.isfinite(limit):
            ends.append(limit)
            continue
        distance = max(1.0, abs((b if direction > 0 else a) - peak_y))
        for _ in range(200):
            v = peak_y + direction * distance
            value = float(expo(np.array([v]))[0])
            d1, _ = slope(v)
            if value < peak - DROP and d1 * direction < 0:
                break
            distance *= 1.5
        ends.append(peak_y + direction * distance)
    lower_end, upper_end = ends
    _, curvature = slope(peak_y)
    first = 0.3 / math.sqrt(-curvature) if curvature < 0 else 0.3
    first = min(max(first, 1e-6), 0.5)
    edges = [peak_y]
    for direction, end in ((1, upper_end), (-1, lower_end)):
        v, width = peak_y, first
        side = []
        while (end - v) * direction > 1e-15:
            d1, d2 = slope(v)
            width = min(1.3 * width, 6.0 / max(abs(d1), 1e-12), 1.0 / math.sqrt(max(abs(d2), 1e-12)), 4.0)
            width = max(width, 1e-8)
            v = v + direction * width
            if (end - v) * direction < 0.2 * width:
                v = end
            side.append(v)
            if float(expo(np.array([v]))[0]) < peak - DROP and not math.isfinite(ylo if direction < 0 else yhi):
                break
            if len(side) > 20000:
                raise NoLaw("the quadrature needs too many panels")
        edges = edges + side if direction > 0 else side[::-1] + edges
    edges = np.array(edges)
    left, right = edges[:-1], edges[1:]
    half, middle = (right - left) / 2, (right + left) / 2
    y = (middle[:, None] + half[:, None] * _NODES[None, :]).ravel()
    w = (half[:, None] * _WEIGHTS[None, :]).ravel()
    return y, w


#: CPU time (time.process_time) past which solve() gives up as undecided; None: no limit
_deadline: list[float | None] = [None]


def _integrals(problem: Problem, lam: np.ndarray, mu: float) -> tuple[float, np.ndarray, np.ndarray, float]:
    """log Z, E[g], Cov(g) and P(kappa < kappa0) (continuity point) at lam."""
    if _deadline[0] is not None and time.process_time() > _deadline[0]:
        raise NoLaw("undecided: the dual ran out of its time")
    n = len(problem.features)
    chunks = []
    for lo, hi in problem.pieces():
        expo = (lambda v, lo=lo, hi=hi: _exponent(problem, lam, mu, v, lo, hi))
        y, w = _nodes(expo, _y(lo), _y(hi))
        e = expo(y)
        g = np.zeros((n, len(y)))
        for i, f in enumerate(problem.features):
            if f.active(lo, hi):
                g[i] = f.at(y)
        below = bool(problem.continuous_at) and hi <= problem.continuous_at[0]
        chunks.append((e, w, g, below))
    shift = max(float(np.max(e)) for e, _, _, _ in chunks)
    z = 0.0
    first = np.zeros(n)
    second = np.zeros((n, n))
    below_mass = 0.0
    for e, w, g, below in chunks:
        p = w * np.exp(e - shift)
        z += p.sum()
        first += g @ p
        second += (g * p) @ g.T
        if below:
            below_mass += p.sum()
    moments = first / z
    covariance = second / z - np.outer(moments, moments)
    return shift + math.log(z), moments, covariance, below_mass / z


def _start(problem: Problem) -> np.ndarray | None:
    """Multipliers that make the density integrable and respect the signs, smallest first."""
    n = len(problem.features)
    choices = []
    for f in problem.features:
        values = [0.0, -0.5, 0.5, -1.0, 1.0, -2.0, 2.0, -4.0, 4.0]
        if abs(f.q1) > 1e-12:
            # a power kappa**(lam q1) decays at infinity (or is integrable at 0) once |lam q1| > 1
            values += [-2.0 / abs(f.q1), 2.0 / abs(f.q1)]
        if f.relation == "<=":
            values = [v for v in values if v <= 0]
        elif f.relation == ">=":
            values = [v for v in values if v >= 0]
        choices.append(values)
    candidates = sorted(itertools.product(*choices), key=lambda c: (sum(abs(v) for v in c), c))
    for candidate in candidates[:5000]:
        lam = np.array(candidate, dtype=float)
        if integrable(problem, lam):
            return lam
    return None if n else np.zeros(0)


def _project(problem: Problem, lam: np.ndarray) -> np.ndarray:
    lam = lam.copy()
    for i, f in enumerate(problem.features):
        if f.relation == "<=":
            lam[i] = min(lam[i], 0.0)
        elif f.relation == ">=":
            lam[i] = max(lam[i], 0.0)
    return lam


#: a KKT residual below this is accepted once a step no longer lowers the dual by more than its
#: rounding (solve's default tolerance)
NOISE_FLOOR = 1e-9


def _inner(problem: Problem, mu: float, tolerance: float = 1e-11, iterations: int = 300) -> Law:
    """Minimise the dual over the multipliers (mu fixed) by projected, damped Newton.

    It stops at ``tolerance``, or below :data:`NOISE_FLOOR` once steps only move within the
    quadrature's rounding: on a narrow log-normal (features of size 400 in y, cancelling) the
    residual stays near 1e-10 and the line search otherwise took 6,500 evaluations of Z
    (19 s) after Newton had converged in 16."""
    lam = _start(problem)
    if lam is None:
        raise NoLaw("no multipliers make the density integrable (the set is not normalisable)")
    targets = np.array([f.target for f in problem.features])
    signs = [f.relation for f in problem.features]

    def value(x: np.ndarray):
        if not integrable(problem, x):
            return inf, None
        try:
            with np.errstate(over="ignore", invalid="ignore"):
                log_z, m, cov, below = _integrals(problem, x, mu)
        except NoLaw:
            return inf, None
        if not (math.isfinite(log_z) and np.all(np.isfinite(cov))):
            return inf, None
        return log_z - float(x @ targets), (log_z, m, cov, below)

    f0, state = value(lam)
    if state is None:
        raise NoLaw("no integrable start")
    converged = False
    for _ in range(iterations):
        log_z, m, cov, below = state
        grad = m - targets
        # variables held at their bound: the gradient pushes them outside it
        free = []
        for i, rel in enumerate(signs):
            if rel == "<=" and lam[i] >= 0 and -grad[i] > 0:
                continue
            if rel == ">=" and lam[i] <= 0 and -grad[i] < 0:
                continue
            free.append(i)
        step = np.zeros_like(lam)
        if free:
            # least squares: two constraints on one feature (a repeated constraint) make the
            # covariance singular; the minimum-norm step moves along what the data fix
            # (where the objective is linear, along the null space of the covariance, it
            # decreases against the gradient until a sign bound stops it)
            h = cov[np.ix_(free, free)]
            inverse = np.linalg.pinv(h, rcond=1e-10, hermitian=True)
            null = np.eye(len(free)) - inverse @ h
            step[free] = inverse @ -grad[free] + null @ -grad[free]
        residual = np.abs(grad[free]).max() if free else 0.0
        if residual < tolerance:
            converged = True
            break
        accepted = False
        for direction in (step, -grad):  # Newton, else steepest descent
            t = 1.0
            for _ in range(60):
                trial = _project(problem, lam + t * direction)
                f1, s1 = value(trial)
                if s1 is not None and f1 <= f0 + 1e-4 * float(grad @ (trial - lam)) + 1e-15 * abs(f0):
                    accepted = True
                    break
                t /= 2
            if accepted:
                break
        if not accepted:
            break
        stalled = f0 - f1 <= 1e-13 * max(1.0, abs(f0))
        lam, f0, state = trial, f1, s1
        if stalled and residual < NOISE_FLOOR:
            converged = True
            break
        if np.abs(lam).max() > 1e4 or f0 < -1e3:
            raise NoLaw("the dual is unbounded below (the constraints cannot all hold)")
    log_z, m, cov, below = state
    law = Law(problem, lam, mu, log_z, m)
    law.notes.append(f"below={below!r}")
    law._converged = converged
    law._grad = m - targets
    return law


def _kkt_residual(law: Law) -> float:
    """How far the law is from meeting its constraints (0 when every one holds)."""
    worst = 0.0
    for value, f, moment_ in zip(law.multipliers, law.problem.features, law.moments):
        gap = moment_ - f.target
        if f.relation == "==":
            worst = max(worst, abs(gap))
        elif f.relation == "<=":
            worst = max(worst, gap, abs(gap) if value < 0 else 0.0)
        else:
            worst = max(worst, -gap, abs(gap) if value > 0 else 0.0)
    return worst


def _on_edge(law: Law) -> bool:
    """Whether the multipliers lie on the edge of the domain of Z: a small move against the
    gradient leaves it (the dual's infimum is approached there and not attained inside)."""
    grad = law._grad
    norm = float(np.linalg.norm(grad))
    if norm == 0:
        return False
    for size in (1e-6, 1e-4, 1e-2):
        if not integrable(law.problem, _project(law.problem, law.multipliers - size * grad / norm)):
            return True
    return False


def _continuity_gap(problem: Problem, lam: np.ndarray, mu: float) -> float:
    """Exponent just above kappa0 minus exponent just below it (mu included)."""
    k0 = problem.continuous_at[0]
    y0 = np.array([math.log(k0)])
    pieces = problem.pieces()
    below = [p for p in pieces if p[1] == k0]
    above = [p for p in pieces if p[0] == k0]
    if not below or not above:
        return 0.0
    return float(_exponent(problem, lam, 0.0, y0, *above[0])[0]
                 - _exponent(problem, lam, mu, y0, *below[0])[0])


def solve(problem: Problem, tolerance: float = 1e-9, seconds: float | None = None) -> Law:
    """The maximum-entropy law of ``problem``; ``seconds``: CPU time allowed (None: no limit).

    Raises
    ------
    NoLaw
        If no law exists (see the module's docstring); its message says why, and starts with
        "undecided" when the solver could not settle the question (or ran out of its time).
    """
    saved = _deadline[0]
    _deadline[0] = None if seconds is None else time.process_time() + seconds
    try:
        return _solve(problem, tolerance)
    finally:
        _deadline[0] = saved


def _solve(problem: Problem, tolerance: float) -> Law:
    if problem.upper <= problem.lower:
        raise NoLaw("empty support")
    for f in problem.features:
        if f.upper <= problem.lower or f.lower >= problem.upper:
            raise NoLaw(f"the region of {f.label} misses the support")
    if problem.continuous_at:
        if len(problem.continuous_at) > 1:
            raise NoLaw("undecided: more than one continuity point")
        k0 = problem.continuous_at[0]
        if not problem.lower < k0 < problem.upper:
            raise NoLaw("undecided: continuity point outside the support")

        def gap(mu: float) -> float:
            return _continuity_gap(problem, _inner(problem, mu).multipliers, mu)

        # the gap is mu-independent in the multipliers for features that separate at kappa0, and
        # decreasing in mu in general: bracket and bisect
        a, b = -1.0, 1.0
        ga, gb = gap(a), gap(b)
        for _ in range(60):
            if ga * gb <= 0:
                break
            a, b = a * 2, b * 2
            ga, gb = gap(a), gap(b)
        else:
            raise NoLaw("undecided: no continuity multiplier found")
        mu = optimize.brentq(gap, a, b, xtol=1e-14, rtol=1e-14)
        law = _inner(problem, mu)
    else:
        law = _inner(problem, 0.0)
    residual = _kkt_residual(law)
    if residual > 1e-4:
        if not law._converged and _on_edge(law):
            raise NoLaw(f"the dual stops on the edge of the domain of Z with KKT residual {residual:.3g} "
                        f"(multipliers {law.multipliers}): the maximum is not attained, or the set is "
                        "infeasible")
        raise NoLaw(f"undecided: stopped with KKT residual {residual:.3g}")
    if residual > tolerance:
        raise NoLaw(f"undecided: KKT residual {residual:.3g}")
    return law


# ---------------------------------------------------------------------------
# sympy expressions evaluated in mpmath, from the tree (no printing, no lambdify)


def mp_function(expr, symbol) -> Callable:
    """A function x -> expr(symbol = x) in mpmath at the current precision.

    Built from the expression tree: numbers become mpmath numbers from their integer parts
    (an integer of 10,000 digits is no problem: it never becomes text), and the functions
    the engine writes (exp, log, erf, erfc, gamma, the incomplete gammas, Piecewise, Min/Max,
    Abs, Heaviside) are mpmath's.
    """
    import mpmath
    import sympy

    def compile_(e) -> Callable:
        if e == symbol:
            return lambda x: x
        if e.is_number and not e.is_Atom:
            # a constant part is evaluated once, at 40 digits
            with mpmath.workdps(40):
                value = compile_inner(e)(None)
            return lambda x: value
        return compile_inner(e)

    def compile_inner(e) -> Callable:
        if e.is_Integer:
            value = int(e)
            return lambda x: mpmath.mpf(value)
        if e.is_Rational:
            p, q = int(e.p), int(e.q)
            return lambda x: mpmath.mpf(p) / q
        if e.is_Float:
            value = e._mpf_
            return lambda x: mpmath.mpf(value)
        if e is sympy.pi:
            return lambda x: +mpmath.pi
        if e is sympy.I:  # erf(i y) and the like: a real density written on the complex plane
            return lambda x: mpmath.mpc(0, 1)
        if e is sympy.E:
            return lambda x: +mpmath.e
        if e is sympy.EulerGamma:
            return lambda x: +mpmath.euler
        if e in (sympy.oo,):
            return lambda x: mpmath.inf
        if e in (sympy.true,):
            return lambda x: True
        if e in (sympy.false,):
            return lambda x: False
        if isinstance(e, sympy.Add):
            parts = [compile_(a) for a in e.args]
            return lambda x: mpmath.fsum(p(x) for p in parts)
        if isinstance(e, sympy.Mul):
            parts = [compile_(a) for a in e.args]

            def product(x):
                out = mpmath.mpf(1)
                for p in parts:
                    out *= p(x)
                return out
            return product
        if isinstance(e, sympy.Pow):
            base, exponent = compile_(e.base), e.exp
            if exponent.is_Integer:
                n = int(exponent)
                return lambda x: base(x) ** n
            if exponent == sympy.Rational(1, 2):
                return lambda x: mpmath.sqrt(base(x))
            power = compile_(exponent)

            def pow_(x):
                b = base(x)
                if b > 0:
                    return mpmath.exp(power(x) * mpmath.log(b))
                return mpmath.power(b, power(x))
            return pow_
        if isinstance(e, sympy.Piecewise):
            branches = [(compile_(v), compile_(c)) for v, c in e.args]

            def piecewise(x):
                for v, c in branches:
                    if c(x):
                        return v(x)
                return mpmath.nan
            return piecewise
        if isinstance(e, sympy.core.relational.Relational):
            left, right = compile_(e.lhs), compile_(e.rhs)
            op = {"<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b,
                  ">=": lambda a, b: a >= b, "==": lambda a, b: a == b, "!=": lambda a, b: a != b}[e.rel_op]
            return lambda x: op(left(x), right(x))
        if isinstance(e, sympy.And):
            parts = [compile_(a) for a in e.args]
            return lambda x: all(p(x) for p in parts)
        if isinstance(e, sympy.Or):
            parts = [compile_(a) for a in e.args]
            return lambda x: any(p(x) for p in parts)
        if isinstance(e, sympy.Not):
            part = compile_(e.args[0])
            return lambda x: not part(x)
        functions = {sympy.exp: mpmath.exp, sympy.log: mpmath.log, sympy.erf: mpmath.erf,
                     sympy.erfc: mpmath.erfc, sympy.gamma: mpmath.gamma, sympy.Abs: abs,
                     sympy.loggamma: mpmath.loggamma,
                     sympy.sin: mpmath.sin, sympy.cos: mpmath.cos, sympy.sign: mpmath.sign,
                     sympy.expint: mpmath.expint, sympy.Ei: mpmath.ei}
        for kind, function in functions.items():
            if isinstance(e, kind):
                parts = [compile_(a) for a in e.args]
                return lambda x, function=function: function(*(p(x) for p in parts))
        if isinstance(e, sympy.uppergamma):
            a, z = (compile_(v) for v in e.args)
            return lambda x: mpmath.gammainc(a(x), z(x), mpmath.inf)
        if isinstance(e, sympy.lowergamma):
            a, z = (compile_(v) for v in e.args)
            return lambda x: mpmath.gammainc(a(x), 0, z(x))
        if isinstance(e, (sympy.Min, sympy.Max)):
            parts = [compile_(a) for a in e.args]
            pick = min if isinstance(e, sympy.Min) else max
            return lambda x: pick(p(x) for p in parts)
        if isinstance(e, sympy.Heaviside):
            part = compile_(e.args[0])
            return lambda x: mpmath.mpf(1) if part(x) > 0 else (mpmath.mpf(0) if part(x) < 0 else mpmath.mpf(0.5))
        raise NotImplementedError(f"mp_function: {type(e).__name__} in {e}")

    return compile_(sympy.sympify(expr))
