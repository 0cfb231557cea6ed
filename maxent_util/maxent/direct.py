"""The closed form of a fast-route law written out from its multipliers, without sympy's integrals.

On every piece of the common laws the density is the exponential of a polynomial of degree at
most two in one variable, x = kappa or x = log(kappa/s) (Mean, Moment(kappa**2), LogMoment on
the whole support or on one side of its point, SquaredLogDeviation, a TailProbability's
indicator; log features about several points are polynomials in one log(kappa/s)), and

    int exp(p0 + p1 x + p2 x**2) dx

is exp(p0) times a length, an exponential over p1, or an erf (p2 < 0): written here once, for sympy
(the law's pdf, CDF and survival function) and for mpmath (its multipliers to 30 digits by Newton's
method on the dual, from the double-precision answer).  Where the multipliers have a closed form
(the exponential, Pareto, half-normal and log-normal laws (the latter with its log moment
and squared deviation about one point or two), a power of kappa on (0, b], the
uniform law of a mean at the middle of a bounded support, a tail probability's
piecewise-uniform law, and the generalized log-Laplace law of log moments below and above
kappa0 with ``ContinuousAt(kappa0)``, whose continuity multiplier is exact too) they are
written out exactly and checked against the double-precision answer; the others are solved to
30 digits.  The gamma law (``Support(0, oo), Mean, LogMoment``: a power of kappa beside exp(-b kappa),
which is neither form) is written out on its own: its CDF and survival function are the regularised
incomplete gamma functions, and its dual's gradient and Hessian are gamma and digamma functions.
Reading the closed form then costs milliseconds where sympy's integrals and
simplification took hundreds (see docs/performance.md).

A set with bounds is written by :func:`~maxent_util.maxent._written_with_bounds` for its active
set, through :func:`direct_law` (which takes equalities only).

Anything else returns None and the law is built by the full route, as before: inequalities,
other continuity conditions, features of another form, a log feature beside a feature in kappa, a
Gaussian piece that opens upwards, a multiplier within rounding of a small fraction (the full
route recognises it and verifies it exactly), or numbers the exact forms would make huge.  A part
written here that does not evaluate to the law's double-precision numbers at the check points of
:attr:`~maxent_util.CaptimeDistribution.forms` is not used either.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

import mpmath
import sympy

from .._sizes import EXACT_BITS, grew, power_digits
from ..constraints import ContinuousAt, LogMoment, Mean, Moment, SquaredLogDeviation, Support, TailProbability
from ..distribution import CaptimeDistribution
from ..distribution.closed_form import _FOLDED_DIGITS, _at_digits
from ..distribution.numbers import _AGREEMENT, _check_points
from ..problem import piecewise_over, support_of
from ..symbols import kappa
from .exact import _DOUBLE_TOLERANCE, _small_fraction
from .fast import continuity_share, sided_multipliers

__all__ = ["direct_law"]

oo = sympy.oo

#: the two worlds the integrals are written for: sympy expressions and mpmath numbers
_SYMPY = SimpleNamespace(exp=sympy.exp, erf=sympy.erf, erfc=sympy.erfc, sqrt=sympy.sqrt, log=sympy.log,
                         pi=sympy.pi, inf=oo)
_MPMATH = SimpleNamespace(exp=mpmath.exp, erf=mpmath.erf, erfc=mpmath.erfc, sqrt=mpmath.sqrt, log=mpmath.log,
                          pi=mpmath.pi, inf=mpmath.inf)

#: digits of the numeric multipliers (the full route's 30, as Floats of its precision)
_DIGITS = 30
_PRECISION = 120  # bits: the Floats the full route writes at 30 digits
#: working digits of Newton's method in mpmath
_WORKING = 50
#: the most digits an exact power of the law may build (the full route folds such laws to floats)
_MAX_POWER_DIGITS = 2_000


@dataclass(frozen=True)
class _Term:
    """One constraint's feature on the pieces: g = q0 + q1 x + q2 x**2 on [lower, upper)."""

    multiplier: sympy.Symbol
    constraint: Any
    expr: sympy.Expr        # g(kappa), as the derivation record writes it
    value: sympy.Expr       # E[g]
    lower: sympy.Expr
    upper: sympy.Expr
    q: tuple                # (q0, q1, q2) in x
    logarithmic: bool
    center: sympy.Expr | None

    @property
    def continuity(self) -> bool:
        """Whether this is a continuity condition's indicator (its multiplier is no dual's)."""
        return type(self.constraint) is ContinuousAt


def _terms(constraints: tuple, support: tuple) -> list[_Term] | None:
    """The features of the constraints after the support, or None when one is not of a form
    written here (or two are the same feature, which the full route merges)."""
    terms: list[_Term] = []
    seen: set = set()
    # a continuity condition: the generalized log-Laplace law's only, whose multipliers are
    # written exactly (see _exact_multipliers)
    laplace = continuity_share(constraints) is not None
    for constraint in constraints:
        if type(constraint) is Support:
            continue
        if constraint.relation != "==":
            return None
        symbol = sympy.Symbol(f"lambda_{len(terms) + 1}", real=True)
        lower, upper = support
        kind = type(constraint)
        if kind is Mean or (kind is Moment and constraint.expr == kappa and constraint.arguments.get("where") is None):
            term = _Term(symbol, constraint, kappa, constraint.value, lower, upper, (0, 1, 0), False, None)
        elif kind is Moment and constraint.expr == kappa ** 2 and constraint.arguments.get("where") is None:
            term = _Term(symbol, constraint, kappa ** 2, constraint.value, lower, upper, (0, 0, 1), False, None)
        elif kind is LogMoment and constraint.arguments["side"] is None:
            c = constraint.kappa0
            term = _Term(symbol, constraint, sympy.log(kappa / c), constraint.value, lower, upper, (0, 1, 0), True, c)
        elif kind is LogMoment:
            # log(kappa0/kappa) - a below kappa0, log(kappa/kappa0) - b above: -x - a and x - b
            c, above = constraint.kappa0, constraint.arguments["side"] == "above"
            term = _Term(symbol, constraint, constraint.feature().expr, sympy.Integer(0), c if above else lower,
                         upper if above else c, (-constraint.value, 1 if above else -1, 0), True, c)
        elif kind is ContinuousAt and laplace:
            # the indicator of kappa < kappa0, its multiplier fixed by continuity (value nan, as the
            # full route's record writes it)
            term = _Term(symbol, constraint, sympy.Integer(1), sympy.nan, lower, constraint.kappa0, (1, 0, 0),
                         False, None)
        elif kind is SquaredLogDeviation:
            c = constraint.kappa0
            term = _Term(symbol, constraint, sympy.log(kappa / c) ** 2, constraint.sigma ** 2, lower, upper,
                         (0, 0, 1), True, c)
        elif kind is TailProbability:
            term = _Term(symbol, constraint, sympy.Integer(1), constraint.delta, lower, constraint.kappa1,
                         (1, 0, 0), False, None)
        else:
            return None
        key = (kind.__name__, term.expr, term.upper)
        if key in seen:
            return None
        seen.add(key)
        terms.append(term)
    return terms


@dataclass
class _Piece:
    """A piece of the support between breakpoints, the terms active on it, and its variable."""

    lower: sympy.Expr
    upper: sympy.Expr
    terms: list
    scale: sympy.Expr | None   # s of x = log(kappa/s), None for x = kappa

    def x(self, point: sympy.Expr) -> sympy.Expr:
        """A captime in the piece's variable (infinite ends stay infinite)."""
        if self.scale is None:
            return point
        if point == 0:
            return -oo
        return oo if point == oo else sympy.log(point / self.scale)

    def q(self, ns: Any, term: _Term) -> tuple:
        """The term's (q0, q1, q2) in the piece's variable x = log(kappa/s): a log feature about
        another point c is a polynomial in y = log(kappa/c) = x + log(s/c)."""
        if not term.logarithmic or term.center == self.scale:
            return term.q
        shift = ns.log(self.scale / term.center) if ns is _SYMPY else ns.log(_mp(self.scale) / _mp(term.center))
        q0, q1, q2 = term.q
        return q0 + q1 * shift + q2 * shift ** 2, q1 + 2 * q2 * shift, q2

    def coefficients(self, ns: Any, values: list) -> tuple:
        """(p0, p1, p2) of the integrand exp(p0 + p1 x + p2 x**2) dx at the multipliers ``values``
        (one per term of the piece), the Jacobian kappa = s exp(x) included."""
        p = [0, 0, 0]
        for term, value in zip(self.terms, values):
            q = self.q(ns, term)
            for k in range(3):
                if q[k]:
                    p[k] = p[k] - value * q[k]
        if self.scale is not None:
            p[0] = p[0] + (ns.log(self.scale) if ns is _SYMPY else ns.log(_mp(self.scale)))
            p[1] = p[1] + 1
        return tuple(p)

    def shape(self) -> tuple[bool, bool]:
        """Whether x and x**2 appear in the integrand (decided by the features, not their values)."""
        linear = self.scale is not None or any(t.q[1] for t in self.terms)
        return linear, any(t.q[2] for t in self.terms)


def _pieces(support: tuple, terms: list[_Term]) -> list[_Piece] | None:
    """The pieces the tail probabilities and sided log moments cut, or None when they overlap
    or a log feature shares a piece with a feature in kappa.  A piece's variable is
    log(kappa/s) about the first log feature's point s on it."""
    lower, upper = support
    points = sorted({lower, upper, *(t.upper for t in terms)}, key=lambda p: (p == oo, p if p != oo else 0))
    if len(points) > 3 and any(type(t.constraint) is not TailProbability for t in terms):
        return None  # several tail probabilities are written here only alone (a piecewise-uniform law)
    pieces = []
    for a, b in zip(points, points[1:]):
        active = [t for t in terms if bool(t.lower <= a) and (t.upper == oo or bool(b <= t.upper))]
        centers = [t.center for t in active if t.logarithmic]
        if centers and any(not t.logarithmic and t.q[0] == 0 for t in active):
            return None
        pieces.append(_Piece(a, b, active, centers[0] if centers else None))
    return pieces


def _mp(value: Any) -> Any:
    """A sympy number as an mpmath number at the working precision (a Rational exactly)."""
    return mpmath.mpf(value.p) / value.q if isinstance(value, sympy.Rational) else mpmath.mpmathify(
        sympy.N(value, _WORKING + 10))


def _is_inf(ns: Any, value: Any) -> int:
    """1 at +oo, -1 at -oo, 0 elsewhere (an expression in kappa included)."""
    if value == ns.inf:
        return 1
    return -1 if value == -ns.inf else 0


def _integral(ns: Any, p: tuple, shape: tuple, low: Any, high: Any) -> Any:
    """int_low^high exp(p0 + p1 x + p2 x**2) dx, its generic branch for the shape (linear,
    quadratic); an infinite end contributes 0 (the fast route found the law integrable)."""
    p0, p1, p2 = p
    linear, quadratic = shape
    if quadratic:
        root = ns.sqrt(-p2)
        shift = p1 / (2 * root)
        constant = ns.exp(p0 + shift ** 2) * ns.sqrt(ns.pi) / (2 * root)
        if _is_inf(ns, high) == 1:
            return constant * (2 if _is_inf(ns, low) == -1 else ns.erfc(root * low - shift))
        if _is_inf(ns, low) == -1:
            return constant * ns.erfc(shift - root * high)
        return constant * (ns.erf(root * high - shift) - ns.erf(root * low - shift))
    if linear and p1 == 0:
        linear = False  # the multiplier of kappa is exactly 0 (a uniform law): a length, below
    if linear:
        def end(x: Any) -> Any:
            return 0 if _is_inf(ns, x) else ns.exp(p0) * ns.exp(p1 * x)
        return (end(high) - end(low)) / p1
    return ns.exp(p0) * (high - low)


def _moments(ns: Any, p: tuple, shape: tuple, low: Any, high: Any) -> list:
    """[M0, M1, M2] with M_k = int_low^high x**k exp(p0 + p1 x + p2 x**2) dx, as far as the shape
    needs them (M1 for a linear or quadratic exponent, M2 for a quadratic one; None otherwise), by
    integrating d/dx exp(p(x)) = p'(x) exp(p(x)) by parts: the features' expectations, for the
    multipliers' equations and Newton's gradient."""
    p0, p1, p2 = p
    linear, quadratic = shape
    first = _integral(ns, p, shape, low, high)
    if not (linear or quadratic):
        return [first, None, None]

    def boundary(power: int) -> Any:
        def at(x: Any) -> Any:
            if _is_inf(ns, x):
                return 0
            value = ns.exp(p0) * ns.exp(p1 * x) * (ns.exp(p2 * x ** 2) if quadratic else 1)
            return value * x ** power
        return at(high) - at(low)
    if not quadratic:
        return [first, (boundary(1) - first) / p1, None]
    second = (boundary(0) - p1 * first) / (2 * p2)
    return [first, second, (boundary(1) - first - p1 * second) / (2 * p2)]


def _partition_derivatives(ns: Any, pieces: list, terms: list, lam: list, ends: list) -> tuple:
    """Z and dZ/dlambda_i at the multipliers ``lam`` (in the terms' order; symbols for the
    record's equations, mpmath numbers for Newton), ``ends``: each piece's ends in its variable."""
    total = 0
    derivatives = [0] * len(terms)
    for piece, (low, high) in zip(pieces, ends):
        rows = [terms.index(t) for t in piece.terms]
        p = piece.coefficients(ns, [lam[i] for i in rows])
        found = _moments(ns, p, piece.shape(), low, high)
        total = total + found[0]
        for term, row in zip(piece.terms, rows):
            derivatives[row] = derivatives[row] - sum(q * found[k] for k, q in enumerate(piece.q(ns, term)) if q)
    return total, derivatives


def _exact_multipliers(pieces: list[_Piece], terms: list[_Term], support: tuple) -> list | None:
    """The multipliers in closed form where the shape has one (where the full route's sympy solves
    the equations): the exponential law on [a, oo), the Pareto law on [a, oo), a power of kappa
    on (0, b], the half-normal law, the log-normal law on (0, oo) (with or without its log
    moment), the uniform law (a mean at the middle of a bounded support: multiplier 0), a
    piecewise-uniform law."""
    lower, upper = support
    kinds = sorted(type(t.constraint).__name__ for t in terms)
    if not terms:
        return []
    if len(pieces) == 1 and upper == oo and len(terms) == 1 and not terms[0].logarithmic and terms[0].q == (0, 1, 0):
        return [1 / (terms[0].value - lower)]
    if len(pieces) == 1 and upper != oo and len(terms) == 1 and not terms[0].logarithmic \
            and terms[0].q == (0, 1, 0) and terms[0].value == (lower + upper) / 2:
        # a mean at the middle of a bounded support: the uniform law, whose multiplier is 0
        return [sympy.Integer(0)]
    if len(pieces) == 1 and upper == oo and lower != 0 and len(terms) == 1 and terms[0].logarithmic \
            and terms[0].q == (0, 1, 0):
        term = terms[0]
        return [1 + 1 / (term.value - sympy.log(lower / term.center))]
    if len(pieces) == 1 and lower == 0 and upper != oo and len(terms) == 1 and terms[0].logarithmic \
            and terms[0].q == (0, 1, 0):
        # a power of kappa on (0, b]: E[log(kappa/c)] = log(b/c) - 1/(1 - lambda)
        term = terms[0]
        return [1 - 1 / (sympy.log(upper / term.center) - term.value)]
    if len(pieces) == 1 and (lower, upper) == (0, oo) and len(terms) == 1 and terms[0].q == (0, 0, 1) \
            and not terms[0].logarithmic:
        # the half-normal law: E[kappa**2] = 1/(2 lambda)
        return [1 / (2 * terms[0].value)]
    if len(pieces) == 1 and (lower, upper) == (0, oo) and kinds == ["SquaredLogDeviation"]:
        # normal in y = log(kappa/c) with mean and variance u = 1/(2 lambda): u + u**2 = sigma**2
        return [1 / (sympy.sqrt(1 + 4 * terms[0].value) - 1)]
    if len(pieces) == 1 and (lower, upper) == (0, oo) and kinds == ["LogMoment", "SquaredLogDeviation"]:
        # y = log(kappa/c) about the squared deviation's point c is normal, its mean the log
        # moment's value moved from that moment's point c1 to c (log(c1/c) is 0 at one point)
        first, second = (terms[0], terms[1]) if terms[0].q[1] else (terms[1], terms[0])
        mean = first.value + sympy.log(first.center / second.center)
        variance = second.value - mean ** 2
        values = {first.multiplier: 1 - mean / variance, second.multiplier: 1 / (2 * variance)}
        return [values[t.multiplier] for t in terms]
    if kinds == ["ContinuousAt", "LogMoment", "LogMoment"]:
        # the generalized log-Laplace law: kappa**(beta - 1) below kappa0 and kappa**-(alpha + 1)
        # above (beta = 1/a, alpha = 1/b), P(kappa < kappa0) = a/(a + b) where they meet
        side = {t.constraint.arguments.get("side"): t for t in terms if type(t.constraint) is LogMoment}
        a, b = side["below"].constraint.value, side["above"].constraint.value
        below, above, share = sided_multipliers(a, b, a / (a + b), sympy.log)
        values = {side["below"].multiplier: below, side["above"].multiplier: above}
        return [values.get(t.multiplier, share) for t in terms]
    if set(kinds) == {"TailProbability"} and upper != oo:
        # piecewise uniform: piece j = [b_(j-1), b_j) holds mass delta_j - delta_(j-1) at density d_j,
        # and the indicators of the tail probabilities at b_j and above are on there, so
        # lambda_j = log(d_(j+1) / d_j) (one tail probability: log((1 - delta)(k1 - a) / (delta (b - k1))))
        by_end = sorted(terms, key=lambda term: term.upper)
        ends = [lower, *(term.upper for term in by_end), upper]
        masses = [term.value for term in by_end]
        masses = [b - a for a, b in zip([0, *masses], [*masses, 1])]
        if any(not (bool(m > 0) and bool(b > a)) for m, a, b in zip(masses, ends, ends[1:])):
            return None
        density = [m / (b - a) for m, a, b in zip(masses, ends, ends[1:])]
        values = {term.multiplier: sympy.log(density[j + 1] / density[j]) for j, term in enumerate(by_end)}
        return [values[t.multiplier] for t in terms]
    return None


def _zero_tolerance(term: _Term, support: tuple) -> float:
    """How far from 0 a double multiplier may be when its exact value is 0: 1e-9, or for a mean's
    multiplier (units 1/kappa) on a bounded support 1e-7 of one over its width: a double root's
    rounding grows as the width shrinks beside the captimes' size (Support(9832.1, 9832.2) at its
    middle gave 2e-9)."""
    lower, upper = support
    if term.q == (0, 1, 0) and not term.logarithmic and upper != oo:
        return max(1e-9, 1e-7 / float(upper - lower))
    return 1e-9


def _near_small_fraction(value: float) -> bool:
    """Whether a double multiplier is a fraction of denominator at most 12 to rounding, as the
    full route's :func:`~.exact.exact_double_root` asks (at a typical size of 1): the full route
    recognises such a value and verifies it exactly (and the generic forms here divide by 0 at
    0, or at 1 on a power of kappa)."""
    # beyond 1000 the full route recognises none, and lambda = 1e5 + 4e-6 of a mean 1e-5 above
    # an end is no fraction it could verify (nor is an infinite or NaN one any fraction)
    if not abs(value) <= 1000:
        return False
    with mpmath.workdps(30):
        return _small_fraction(mpmath.mpf(value), 1.0, _DOUBLE_TOLERANCE) is not None


def _mp_end(value: sympy.Expr) -> Any:
    if value == oo:
        return mpmath.inf
    if value == -oo:
        return -mpmath.inf
    return _mp(value)


def _polished(pieces: list[_Piece], terms: list[_Term], start: Any) -> list | None:
    """The multipliers to 30 digits: Newton's method on the dual log Z + sum lambda_i v_i from
    the double-precision answer at 50 digits (its gradient v - E[g] in closed form, its Hessian
    by differences of the gradient, built once: from a start good to 1e-16 each step gains
    sixteen digits)."""
    n = len(terms)
    if not n:
        return []  # the uniform law of a bare bounded support: no multiplier to solve for
    with mpmath.workdps(_WORKING):
        values = [_mp(t.value) for t in terms]
        ends = [tuple(_mp_end(piece.x(end)) for end in (piece.lower, piece.upper)) for piece in pieces]

        def gradient(point: list) -> Any:
            total, derivatives = _partition_derivatives(_MPMATH, pieces, terms, point, ends)
            return mpmath.matrix([v + d / total for v, d in zip(values, derivatives)])

        lam = [mpmath.mpf(float(v)) for v in start]
        step = mpmath.mpf(10) ** -20
        hessian = mpmath.matrix(n, n)
        for j in range(n):
            up, down = list(lam), list(lam)
            up[j] += step * max(1, abs(lam[j]))
            down[j] -= step * max(1, abs(lam[j]))
            column = (gradient(up) - gradient(down)) / (up[j] - down[j])
            for i in range(n):
                hessian[i, j] = column[i]
        scale = [max(1, abs(v)) for v in values]
        for _ in range(4):
            residual = gradient(lam)
            if all(abs(r) <= mpmath.mpf(10) ** -(_DIGITS + 6) * s for r, s in zip(residual, scale)):
                return lam
            move = mpmath.lu_solve(hessian, residual)
            lam = [a - b for a, b in zip(lam, move)]
        return None


def direct_law(constraints: tuple, numeric: Any, method: str, record: type) -> CaptimeDistribution | None:
    """The built law of a fast-route law's ``constraints`` (its double-precision law
    ``numeric``, found for derive's ``method``), or None when it is not of a form written here
    (see the module's docstring); ``record`` is the class of the derivation record
    (:class:`~maxent_util.maxent.Derivation`)."""
    support = support_of(constraints)
    doubles = [float(v) for v in numeric.multipliers]
    gamma = _gamma_terms(constraints, support)
    if gamma is not None:
        if any(_near_small_fraction(d) for d in doubles):
            return None
        try:
            built = _gamma_written(constraints, support, gamma, doubles, method, record)
        except (ZeroDivisionError, ValueError, TypeError, ArithmeticError):
            return None
        return CaptimeDistribution(**built, timeout=math.inf) if built and _agrees(built, numeric) else None
    terms = _terms(constraints, support)
    pieces = None if terms is None else _pieces(support, terms)
    if pieces is None:
        return None
    if len(doubles) != len(terms):
        return None
    exact = _exact_multipliers(pieces, terms, support) if method == "auto" else None
    if exact is not None:
        try:
            if any(not math.isclose(float(e), d, rel_tol=1e-7, abs_tol=_zero_tolerance(t, support))
                   for e, d, t in zip(exact, doubles, terms)):
                return None
        except (TypeError, ValueError):
            return None
        values = list(exact)
    else:
        if any(_near_small_fraction(d) for d in doubles) or any(t.continuity for t in terms):
            return None  # (a continuity condition's multiplier is not a dual's: written exactly only)
        try:
            found = _polished(pieces, terms, doubles)
        except (ZeroDivisionError, ValueError, TypeError, ArithmeticError):
            return None  # mpmath's numbers left the reals (an erf of a Gaussian opening upwards)
        if found is None or any(not isinstance(v, mpmath.mpf) for v in found):
            return None
        values = [sympy.Float(v, precision=_PRECISION) for v in found]
    solution = {t.multiplier: v for t, v in zip(terms, values)}
    try:
        built = _written(constraints, support, pieces, terms, solution, exact is not None, method, record)
    except (ZeroDivisionError, ValueError, TypeError, ArithmeticError):
        return None
    if built is None:
        return None
    if not _agrees(built, numeric):
        return None
    return CaptimeDistribution(**built, timeout=math.inf)


def _agrees(built: dict, numeric: Any) -> bool:
    """Whether the written pdf and survival function give the double-precision law's numbers at
    the check points of ``forms`` (evaluated by mpmath at 20 digits, within the same
    tolerances): a part written here that does not is left to the full route.  ``forms`` still
    makes its own check, on the compiled parts, when it is read."""
    points = _check_points(numeric)
    ends = built["breakpoints"]
    expected_pdf, expected_sf = numeric.pdf(points), numeric.sf(points)
    parts = sympy.lambdify(kappa, [*built["pdf_pieces"], *built["sf_pieces"]], modules="mpmath")
    count = len(built["pdf_pieces"])
    with mpmath.workdps(20):
        for point, pdf, sf in zip(points, expected_pdf, expected_sf):
            index = sum(1 for end in ends[1:-1] if point >= end)
            try:
                values = parts(mpmath.mpf(float(point)))
                density, survival = (float(mpmath.re(values[i])) for i in (index, count + index))
            except (TypeError, ValueError, ZeroDivisionError, ArithmeticError):
                return False
            if not (abs(density - pdf) <= _AGREEMENT * abs(pdf) + 1e-300 and abs(survival - sf) <= _AGREEMENT):
                return False
    return True


def _exponent(piece: _Piece, solution: dict) -> sympy.Expr:
    """-sum_i lambda_i g_i on the piece at the multipliers.  A quadratic in kappa is written
    -kappa*(a kappa + b) - c, as simplify writes it: sympy integrates kappa times its exponential
    (the mean) with the numbers as signed symbols in a second, where the expanded exponent
    exp(-a kappa**2 + b kappa) took it more than 30 s."""
    terms = [(solution[t.multiplier], t) for t in piece.terms]
    if piece.scale is None and any(t.q[2] for _, t in terms):
        constant = sympy.Add(*[value for value, t in terms if t.q[0]])
        slope = sympy.Add(*[value * t.q[1] for value, t in terms] + [value * t.q[2] * kappa for value, t in terms])
        return -kappa * slope - constant
    return -sympy.Add(*[value * t.expr for value, t in terms])


def _written(constraints: tuple, support: tuple, pieces: list[_Piece], terms: list[_Term], solution: dict,
             closed_form: bool, method: str, record: type) -> dict | None:
    """The law's parts (CaptimeDistribution's arguments) at the multipliers ``solution``."""

    given = (*constraints, *solution.values())
    shapes = [piece.shape() for piece in pieces]
    parts, exponents = [], []
    for piece, shape in zip(pieces, shapes):
        values = [solution[t.multiplier] for t in piece.terms]
        p = piece.coefficients(_SYMPY, values)
        if shape[1] and not (p[2].is_number and p[2] < 0):
            return None  # a Gaussian opening upwards (erfi): left to the full route
        exponents.append(_exponent(piece, solution))
        parts.append(_integral(_SYMPY, p, shape, piece.x(piece.lower), piece.x(piece.upper)))
    partition = sympy.Add(*parts)
    if not closed_form:
        partition = sympy.Float(partition.evalf(_DIGITS + 6), precision=_PRECISION)
    if not (partition.is_number and partition.is_positive):
        return None
    # the generalized log-Laplace law's Z is k0 (a + b) exp(1 + b): its log is split as the full
    # route's simplification writes it, and its parts, sums of exp(1 + b) over itself, expanded
    laplace = any(t.continuity for t in terms)
    if laplace:
        coefficient, power = partition.as_independent(sympy.exp, as_Add=False)
        lambda_0 = sympy.log(coefficient) + sympy.log(power) - 1
    else:
        lambda_0 = sympy.log(partition) - 1
    if not closed_form:
        lambda_0 = sympy.Float(lambda_0.evalf(_DIGITS + 6), precision=_PRECISION)
    masses = [part / partition for part in parts]
    # exp(c*log(kappa/s)) is s**c to sympy, which multiplies s out c.p times: as the full route
    # does, the densities then take the multipliers at 30 digits (the multipliers stay exact)
    folded = any(power_digits(exponent) > _MAX_POWER_DIGITS for exponent in exponents)
    shown = _at_digits(solution, _FOLDED_DIGITS) if folded else solution
    if folded:
        exponents = [_exponent(piece, shown) for piece in pieces]
    pdf_pieces, cdf_pieces, sf_pieces = [], [], []
    below = sympy.Integer(0)
    for index, (piece, shape, exponent) in enumerate(zip(pieces, shapes, exponents)):
        values = [shown[t.multiplier] for t in piece.terms]
        p = piece.coefficients(_SYMPY, values)
        x = piece.x(kappa)
        above = sympy.Add(*masses[index + 1:])
        pdf_pieces.append(sympy.exp(exponent) / partition)
        cdf_pieces.append(below + _integral(_SYMPY, p, shape, piece.x(piece.lower), x) / partition)
        sf_pieces.append(above + _integral(_SYMPY, p, shape, x, piece.x(piece.upper)) / partition)
        below = below + masses[index]
    if laplace:
        cdf_pieces, sf_pieces = [sympy.expand(p) for p in cdf_pieces], [sympy.expand(p) for p in sf_pieces]
    if any(grew(expr, *given, floor=EXACT_BITS) for expr in (*pdf_pieces, *cdf_pieces, *sf_pieces)):
        return None  # the full route keeps such constants as floats, with a note
    points = [pieces[0].lower] + [piece.upper for piece in pieces]
    lambda_symbol = sympy.Symbol("lambda_0", real=True)
    multipliers = {lambda_symbol: lambda_0, **solution}
    # the record: Z and its equations in the multipliers' symbols, as the full route writes them
    ends = [(piece.x(piece.lower), piece.x(piece.upper)) for piece in pieces]
    generic, derivatives = _partition_derivatives(_SYMPY, pieces, terms, [t.multiplier for t in terms], ends)
    equations = [] if method == "numeric" else [
        _continuity(pieces, t) if t.continuity else sympy.Eq(derivative + t.value * generic, 0, evaluate=False)
        for t, derivative in zip(terms, derivatives)]
    stationary = piecewise_over(
        [sympy.exp(-1 - lambda_symbol - sympy.Add(*[t.multiplier * t.expr for t in piece.terms])) for piece in pieces],
        points, kappa)
    derivation = record(support, [(t.multiplier, t.expr, (t.lower, t.upper), t.value, t.constraint) for t in terms],
                        points, stationary, generic, equations,
                        "symbolic" if closed_form else "numeric (closed-form integrals)",
                        [f"{len(pieces)} step(s) kept their constants as 25-digit floats: their exact form "
                         "held integers far larger than the constraints' numbers"] if folded else [])
    return {"constraints": constraints, "support": support, "pdf_pieces": pdf_pieces, "cdf_pieces": cdf_pieces,
            "sf_pieces": sf_pieces, "breakpoints": points, "multipliers": multipliers,
            "closed_form": closed_form, "derivation": derivation, "scales": [piece.scale for piece in pieces]}


def _continuity(pieces: list[_Piece], term: _Term) -> sympy.Eq:
    """The continuity condition's equation: the exponents of the pieces on either side of its
    point, in the multipliers' symbols, equal there."""
    point = term.upper
    below = next(piece for piece in pieces if piece.upper == point)
    above = next(piece for piece in pieces if piece.lower == point)

    def exponent(piece: _Piece) -> sympy.Expr:
        return -sympy.Add(*[t.multiplier * t.expr for t in piece.terms]).subs(kappa, point)
    return sympy.Eq(exponent(below) - exponent(above), 0)


def _gamma_terms(constraints: tuple, support: tuple) -> tuple | None:
    """(the Mean's term, the LogMoment's term) of the gamma law's constraints, ``Support(0, oo),
    Mean(m), LogMoment(v, c)`` (in either order), or None for any other set."""
    if support != (0, oo):
        return None
    moments = [c for c in constraints if type(c) is not Support]
    if len(moments) != 2 or any(c.relation != "==" for c in moments):
        return None
    kinds = [type(c) for c in moments]
    if sorted(k.__name__ for k in kinds) != ["LogMoment", "Mean"] or \
            moments[kinds.index(LogMoment)].arguments["side"] is not None:
        return None
    symbols = [sympy.Symbol(f"lambda_{i + 1}", real=True) for i in range(2)]
    mean, log = kinds.index(Mean), kinds.index(LogMoment)
    c = moments[log].kappa0
    return (_Term(symbols[mean], moments[mean], kappa, moments[mean].value, 0, oo, (0, 1, 0), False, None),
            _Term(symbols[log], moments[log], sympy.log(kappa / c), moments[log].value, 0, oo, (0, 1, 0), True, c))


def _gamma_written(constraints: tuple, support: tuple, gamma: tuple, doubles: list, method: str,
                   record: type) -> dict | None:
    """The gamma law's parts: f = c**l2 kappa**(s - 1) exp(-b kappa) / Z with b = l1 (the Mean's
    multiplier), s = 1 - l2 (the LogMoment's) and Z = c**l2 Gamma(s) / b**s; its CDF and survival
    function are the regularised incomplete gamma functions.  The multipliers to 30 digits by
    Newton's method on the dual, whose gradient m - s/b, v - (psi(s) - log(b c)) and Hessian (the
    covariance s/b**2, 1/b, psi'(s)) are in closed form."""
    mean_term, log_term = gamma
    order = sorted(gamma, key=lambda term: term.multiplier.name)
    start = dict(zip((t.multiplier for t in order), doubles))
    with mpmath.workdps(_WORKING):
        m, v, c = _mp(mean_term.value), _mp(log_term.value), _mp(log_term.center)
        b, l2 = mpmath.mpf(start[mean_term.multiplier]), mpmath.mpf(start[log_term.multiplier])
        for _ in range(6):
            s = 1 - l2
            if not (b > 0 and s > 0):
                return None
            gradient = mpmath.matrix([m - s / b, v - (mpmath.digamma(s) - mpmath.log(b * c))])
            if max(abs(gradient[0]) / max(1, abs(m)), abs(gradient[1]) / max(1, abs(v))) <= \
                    mpmath.mpf(10) ** -(_DIGITS + 6):
                break
            covariance = mpmath.matrix([[s / b ** 2, 1 / b], [1 / b, mpmath.psi(1, s)]])
            step = mpmath.lu_solve(covariance, gradient)
            b, l2 = b - step[0], l2 - step[1]
        else:
            return None
        s = 1 - l2
        partition = mpmath.power(c, l2) * mpmath.gamma(s) / mpmath.power(b, s)
        density = mpmath.power(c, l2) / partition
        share = 1 / mpmath.gamma(s)
        lambda_0 = mpmath.log(partition) - 1  # here: outside, mpmath rounds to double precision

    def number(value: Any) -> sympy.Float:
        return sympy.Float(value, precision=_PRECISION)
    b_, l2_, s_ = number(b), number(l2), number(s)
    solution = {mean_term.multiplier: b_, log_term.multiplier: l2_}
    solution = {t.multiplier: solution[t.multiplier] for t in order}
    lambda_0 = number(lambda_0)
    pdf = number(density) * kappa ** (s_ - 1) * sympy.exp(-b_ * kappa)
    cdf = number(share) * sympy.lowergamma(s_, b_ * kappa)
    sf = number(share) * sympy.uppergamma(s_, b_ * kappa)
    l1_symbol, l2_symbol = mean_term.multiplier, log_term.multiplier
    generic = log_term.center ** l2_symbol * sympy.gamma(1 - l2_symbol) * l1_symbol ** (l2_symbol - 1)
    equations = [] if method == "numeric" else [
        sympy.Eq(generic * (mean_term.value - (1 - l2_symbol) / l1_symbol), 0, evaluate=False),
        sympy.Eq(generic * (log_term.value - sympy.polygamma(0, 1 - l2_symbol) + sympy.log(l1_symbol)
                            + sympy.log(log_term.center)), 0, evaluate=False)]
    lambda_symbol = sympy.Symbol("lambda_0", real=True)
    points = [sympy.Integer(0), oo]
    stationary = sympy.exp(-1 - lambda_symbol - l1_symbol * kappa - l2_symbol * log_term.expr)
    derivation = record(support, [(t.multiplier, t.expr, (t.lower, t.upper), t.value, t.constraint) for t in order],
                        points, stationary, generic, equations, "numeric (closed-form integrals)", [])
    return {"constraints": constraints, "support": support, "pdf_pieces": [pdf], "cdf_pieces": [cdf],
            "sf_pieces": [sf], "breakpoints": points, "multipliers": {lambda_symbol: lambda_0, **solution},
            "closed_form": False, "derivation": derivation, "scales": [None]}
