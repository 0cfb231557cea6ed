"""The maximum-entropy problem: the support, the features and the pieces they cut.

A constraint set is turned into Lagrangian terms (one multiplier per
feature, with the region where it applies), the support and the regions cut
the captime axis into pieces on which the exponent is smooth, and each piece
is integrated symbolically (after ``kappa = s exp(y)`` when its features are
functions of ``log(kappa/s)``).  Whether the constraints can hold at all is
decided here too, from each feature's exact range over its region.

This is the layer below the distribution and the engine: the engine
(:mod:`maxent_util.maxent`) solves for the multipliers, the distribution
integrates its pieces for the CDF, and both use these helpers.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import numpy as np
import sympy
from sympy.calculus.util import continuous_domain

from ._timing import rings, time_limit
from ._timing import SymbolicTimeout as _SymbolicTimeout
from .constraints import Constraint, ContinuousAt, Feature, LogMoment, Support, provably
from .errors import ConstraintError, InfeasibleError, argument_message
from .expressions import as_expression, numpy_modules
from .symbols import kappa

oo = sympy.oo

# integration variables and limits: Dummies, so that no parameter a user names x or y
# (exponential("x")) is mistaken for them
_y = sympy.Dummy("y", real=True)
_upper_y = sympy.Dummy("Y", real=True)
_x = sympy.Dummy("x", positive=True)
_positive_end = sympy.Dummy("X", positive=True)


# ---------------------------------------------------------------------------
# Results kept per process
# ---------------------------------------------------------------------------

#: every store of results kept per process (see kept_store)
_STORES: list[dict] = []


def kept_store() -> dict:
    """A new store of results kept per process, emptied by :func:`clear_kept`."""
    store: dict = {}
    _STORES.append(store)
    return store


def clear_kept() -> None:
    """Empty every store of kept results (integrals, log scales, ...): the next derivation
    does all its work again (``derive.cache_clear()`` calls this)."""
    for store in _STORES:
        store.clear()


def keep(store: dict, key: Any, value: Any, limit: int) -> None:
    """Put ``value`` in ``store`` under ``key``, dropping the oldest entries beyond ``limit``
    (dicts keep their order of insertion)."""
    while len(store) >= limit:
        try:
            del store[next(iter(store))]
        except (KeyError, RuntimeError, StopIteration):  # another thread got there first
            break
    store[key] = value


def kept_by_srepr(limit: int) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Keep a function's results per process, at most ``limit`` of them, keyed by the srepr of
    its (sympy) arguments, so that Floats of different precisions, or Dummies, are never taken
    for one another.  A call that raises (an interrupted sympy call) is not kept, nor one during
    which a time limit rang (:func:`~maxent_util._timing.rings`): a step that ran out of time
    and fell back could come out otherwise with more time.  The store is the wrapper's
    ``store`` and is emptied by :func:`clear_kept`."""
    def decorate(function: Callable[..., Any]) -> Callable[..., Any]:
        store = kept_store()

        @functools.wraps(function)
        def kept(*args: Any) -> Any:
            key = tuple(sympy.srepr(arg) for arg in args)
            if key in store:
                return store[key]
            before = rings()
            result = function(*args)
            if rings() == before:
                keep(store, key, result, limit)
            return result

        kept.store = store  # type: ignore[attr-defined]
        return kept
    return decorate


# ---------------------------------------------------------------------------
# The problem: support, features, pieces
# ---------------------------------------------------------------------------

@dataclass
class Term:
    """One multiplier of the Lagrangian and what it multiplies."""

    multiplier: sympy.Symbol
    feature: Feature
    constraint: Constraint
    lower_index: int = 0     # the region as indices into the breakpoints
    upper_index: int = 0

    @property
    def is_continuity(self) -> bool:
        return isinstance(self.constraint, ContinuousAt)


@dataclass
class Piece:
    lower: sympy.Expr
    upper: sympy.Expr
    terms: list[Term]
    exponent: sympy.Expr            # -sum lambda_i g_i over the active terms
    scale: sympy.Expr | None        # s of the substitution kappa = s exp(y)


def support_of(constraints: Sequence[Constraint]) -> tuple[sympy.Expr, sympy.Expr]:
    supports = [c for c in constraints if isinstance(c, Support)]
    if len(supports) > 1:
        raise ConstraintError(
            f"`derive` takes at most one Support; got {', '.join(map(repr, supports))}. "
            "Suggestion: state the intersection of the intervals as one Support.")
    if not supports:
        return sympy.Integer(0), oo
    return supports[0].lower, supports[0].upper


def provably_less(a: sympy.Expr, b: sympy.Expr) -> bool | None:
    if a == b:
        return False
    if a == -oo or b == oo:
        return True
    if a == oo or b == -oo:
        return False
    return provably(sympy.Lt(a, b))


def sorted_points(points: list[sympy.Expr]) -> list[sympy.Expr]:
    """Sort breakpoints; symbols whose order sympy cannot decide keep the stated order."""
    ordered: list[sympy.Expr] = []
    for point in points:
        if any(provably(sympy.Eq(point, other)) or point == other for other in ordered):
            continue
        position = len(ordered)
        for index, other in enumerate(ordered):
            if provably_less(point, other) is True:
                position = index
                break
        ordered.insert(position, point)
    return ordered


def _inside(point: sympy.Expr, lower: sympy.Expr, upper: sympy.Expr) -> bool | None:
    """Whether lower < point < upper (None when undecidable)."""
    left, right = provably_less(lower, point), provably_less(point, upper)
    if left is False or right is False:
        return False
    if left and right:
        return True
    return None


def make_terms(constraints: Sequence[Constraint], support: tuple) -> tuple[list[Term], list[sympy.Expr]]:
    """The Lagrangian terms, duplicates merged, clashes and bad regions rejected."""
    lower, upper = support
    terms: list[Term] = []
    interior: list[sympy.Expr] = []
    seen: dict[tuple, Term] = {}
    for constraint in constraints:
        if isinstance(constraint, Support):
            continue
        feature = constraint.feature()
        if feature is None:
            continue
        for point in (feature.lower, feature.upper):
            if point not in (-oo, oo) and (provably_less(point, lower) is True or provably_less(upper, point) is True):
                raise ConstraintError(argument_message(
                    _point_name(constraint), type(constraint).__name__,
                    f"inside the support [{lower}, {upper}]", _display(point)))
        region_lower = lower if feature.lower == -oo else feature.lower
        region_upper = upper if feature.upper == oo else feature.upper
        if provably_less(region_lower, region_upper) is False:
            raise ConstraintError(
                f"`{constraint!r}` applies to [{feature.lower}, {feature.upper}), which does not meet the "
                f"support [{lower}, {upper}]; its point must lie inside the support.")
        for point in (region_lower, region_upper):
            if point in (lower, upper):
                continue
            if _inside(point, lower, upper) is False:
                raise ConstraintError(argument_message(
                    _point_name(constraint), type(constraint).__name__,
                    f"inside the support ({lower}, {upper})", _display(point)))
            interior.append(point)
        if isinstance(constraint, ContinuousAt) and constraint.kappa0 not in interior:
            raise ConstraintError(argument_message(
                "kappa0", "ContinuousAt", f"inside the support ({lower}, {upper})", _display(constraint.kappa0)))
        key = (sympy.srepr(sympy.expand_log(feature.expr, force=True)), sympy.srepr(region_lower),
               sympy.srepr(region_upper), isinstance(constraint, ContinuousAt))
        if key in seen:
            previous = seen[key]
            if sympy.simplify(previous.feature.value - feature.value) == 0:
                continue  # the same statement twice adds nothing
            raise InfeasibleError(
                f"`{previous.constraint!r}` and `{constraint!r}` fix the same expectation to different "
                f"values ({previous.feature.value} and {feature.value}); no distribution meets both.")
        term = Term(sympy.Symbol(f"lambda_{len(terms) + 1}", real=True),
                     Feature(feature.expr, feature.value, region_lower, region_upper), constraint)
        seen[key] = term
        terms.append(term)
    return terms, interior


def _point_name(constraint: Constraint) -> str:
    for name in ("kappa1", "kappa0"):
        if name in constraint.arguments:
            return name
    return "where"


def _display(value: sympy.Expr) -> Any:
    if value.is_number and value.is_finite:
        return float(value)
    return str(value)


@kept_by_srepr(256)
def _log_scale(expr: sympy.Expr) -> sympy.Expr | None:
    """s such that expr is a function of log(kappa/s) alone, or None (kept per process: laws
    with the same features, at whatever values, share it)."""
    candidates = []
    for atom in expr.atoms(sympy.log):
        argument = atom.args[0]
        if kappa not in argument.free_symbols:
            continue
        for scale in (sympy.simplify(kappa / argument), sympy.simplify(argument * kappa)):
            if kappa not in scale.free_symbols:
                candidates.append(scale)
                break
    for scale in candidates:
        substituted = sympy.expand_log(expr.subs(kappa, scale * sympy.exp(_y)), force=True)
        if not substituted.has(sympy.exp) and kappa not in substituted.free_symbols:
            return scale
    return None


def build_pieces(support: tuple, terms: list[Term], interior: list[sympy.Expr]) -> tuple[list, list[Piece]]:
    lower, upper = support
    points = [lower] + sorted_points(interior) + [upper]
    index = {sympy.srepr(p): i for i, p in enumerate(points)}
    for term in terms:
        term.lower_index = index[sympy.srepr(term.feature.lower)]
        term.upper_index = index[sympy.srepr(term.feature.upper)]
    pieces = []
    for i in range(len(points) - 1):
        active = [term for term in terms if term.lower_index <= i and i + 1 <= term.upper_index]
        exponent = -sum((term.multiplier * term.feature.expr for term in active), sympy.Integer(0))
        features = sympy.Add(*[term.feature.expr for term in active]) if active else sympy.Integer(0)
        pieces.append(Piece(points[i], points[i + 1], active, exponent, _log_scale(features)))
    return points, pieces


def stationary_density(pieces: list[Piece]) -> sympy.Expr:
    lambda_0 = sympy.Symbol("lambda_0", real=True)
    points = [pieces[0].lower] + [piece.upper for piece in pieces]
    return piecewise_over([sympy.exp(-1 - lambda_0 + piece.exponent) for piece in pieces], points, kappa)


def piecewise_over(expressions: list[sympy.Expr], points: list[sympy.Expr], variable: sympy.Symbol,
                   below: Any = 0, above: Any = 0) -> sympy.Expr:
    """One expression (in kappa) per piece between ``points``, as a Piecewise in ``variable``:
    ``below`` before the first point, ``above`` after a finite last one."""
    branches = []
    if points[0] != 0:
        branches.append((as_expression(below), variable < points[0]))
    for expression, upper in zip(expressions, points[1:]):
        if variable != kappa:
            expression = expression.subs(kappa, variable)
        branches.append((expression, True if upper == oo else variable < upper))
    if points[-1] != oo:
        branches.append((as_expression(above), True))
    if len(branches) == 1:
        return branches[0][0]
    return sympy.Piecewise(*branches)


# ---------------------------------------------------------------------------
# Symbolic route
# ---------------------------------------------------------------------------

def generic_branch(expr: sympy.Expr) -> sympy.Expr:
    """The generic branch of an integral done with conds='none' (which sometimes
    still returns a Piecewise)."""
    if isinstance(expr, sympy.Piecewise):
        expr = expr.args[0][0]
    return expr


def _exponential_integral(integrand: sympy.Expr, variable: sympy.Symbol, lower: sympy.Expr,
                          upper: sympy.Expr) -> sympy.Expr | None:
    """int of c * exp(a v + b) over [lower, upper] for v = ``variable`` in closed form, or None
    where the integrand is not of that form or the integral provably diverges.

    Every density of the engine is an exponential of its features, and on a piece whose features
    are linear in v (kappa, or log(kappa) in log space) this is the whole integral; sympy reaches
    the same generic branch (a != 0, the ends at infinity contributing 0) only after trying the
    Meijer G route, for seconds."""
    constant, rest = integrand.as_independent(variable, as_Add=False)
    if not isinstance(rest, sympy.exp):
        return None
    polynomial = sympy.expand(rest.args[0]).as_poly(variable)
    if polynomial is None or polynomial.degree() not in (1, 2):
        return None
    if polynomial.degree() == 2:
        return _gaussian_integral(constant, polynomial, variable, lower, upper)
    a = polynomial.coeff_monomial(variable)
    if a.is_zero is not False and not a.free_symbols or (upper == oo and a.is_nonnegative) or \
            (lower == -oo and a.is_nonpositive):
        return None  # constant, or divergent: sympy says so in its own words

    def antiderivative(end: sympy.Expr) -> sympy.Expr:
        # written as sympy's own antiderivative is, so that the simplified laws read the same
        return sympy.Integer(0) if end in (oo, -oo) else constant * rest.subs(variable, end) / a
    return antiderivative(upper) - antiderivative(lower)


def _gaussian_integral(constant: sympy.Expr, polynomial: sympy.Poly, variable: sympy.Symbol,
                       lower: sympy.Expr, upper: sympy.Expr) -> sympy.Expr | None:
    """int of c * exp(a v**2 + b v + d) in closed form, or None, where sympy is left to it.

    Over the whole line it is sqrt(pi/-a) exp(d - b**2/(4a)), and over a half-line half of that
    times erfc(sqrt(-a) lower - b/(2 sqrt(-a))) on [lower, oo) or erfc(b/(2 sqrt(-a)) -
    sqrt(-a) upper) on (-oo, upper]: the generic branch a < 0, as sympy's conds="none" has it
    (the log-normal's partition function; a truncated normal's, or a squared log deviation on a
    bounded support).  sympy's Meijer G route takes a second or more for each half-line and
    leaves float noise such as exp(-1e-37 kappa**2) beside its erf.  Finite parts of the line,
    and integrals that provably diverge, go to sympy."""
    a = polynomial.coeff_monomial(variable ** 2)
    b, d = polynomial.coeff_monomial(variable), polynomial.coeff_monomial(1)
    if a.is_nonnegative:
        return None
    root = sympy.sqrt(-a)
    whole = constant * sympy.sqrt(sympy.pi) / root * sympy.exp(d - b ** 2 / (4 * a))
    if lower == -oo and upper == oo:
        return whole
    if upper == oo and lower != -oo:
        return whole / 2 * sympy.erfc(root * lower - b / (2 * root))
    if lower == -oo and upper != oo:
        return whole / 2 * sympy.erfc(b / (2 * root) - root * upper)
    return None


def _log_power_form(integrand: sympy.Expr, variable: sympy.Symbol) -> bool:
    """Whether the integrand is c * exp(p(v) + s log(v)) with p a polynomial in v = ``variable``
    of degree at least 1 and s symbolic (not known to be rational), which sympy leaves unevaluated
    after trying every route, for seconds (0.5-8 s).

    This is the density of features kappa, kappa**2, ... beside a log(kappa/s) with symbolic
    multipliers (the gamma law's partition function and CDF, or a generalized log-Laplace law with a
    Mean): exp(s log(v)) stays an exponential, as no power of v with a symbolic exponent is
    formed, and neither the Risch algorithm nor the Meijer G route takes it.  Written as the power
    v**s, sympy integrates it; the engine keeps the exponent as stated."""
    constant, rest = integrand.as_independent(variable, as_Add=False)
    if not isinstance(rest, sympy.exp):
        return False
    exponent = sympy.expand(sympy.expand_log(rest.args[0], force=True))
    log_coefficient, degree = sympy.Integer(0), 0
    for term in sympy.Add.make_args(exponent):
        coefficient, dependent = term.as_independent(variable, as_Add=False)
        if dependent == 1:
            continue
        if dependent == sympy.log(variable):
            log_coefficient += coefficient
            continue
        power = sympy.Poly(dependent, variable) if dependent.is_polynomial(variable) else None
        if power is None or not power.is_monomial or power.degree() < 1:
            return False
        degree = max(degree, power.degree())
    return degree >= 1 and bool(log_coefficient.free_symbols) and log_coefficient.is_rational is None


def _integrate(integrand: sympy.Expr, variable: sympy.Symbol, lower: sympy.Expr, upper: sympy.Expr) -> sympy.Expr:
    """sympy.integrate(integrand, (variable, lower, upper), conds="none"), its generic branch, or
    the Integral left as it is where sympy is known to leave it so (:func:`_log_power_form`)."""
    if _log_power_form(integrand, variable):
        return sympy.Integral(integrand, (variable, lower, upper))
    return _sympy_integral(integrand, variable, lower, upper)


@kept_by_srepr(512)
def _sympy_integral(integrand: sympy.Expr, variable: sympy.Symbol, lower: sympy.Expr,
                    upper: sympy.Expr) -> sympy.Expr:
    """The generic branch of sympy's integral, kept per process: derivations of related laws (the
    same constraints by another method, with a value stated exactly or as a double, the CDF after
    the partition function) integrate the same expressions again."""
    return generic_branch(sympy.integrate(integrand, (variable, lower, upper), conds="none"))


def integrate_piece(integrand: sympy.Expr, piece: Piece, upper: sympy.Expr | None = None, *,
                     start: sympy.Expr | None = None) -> sympy.Expr:
    """int of integrand(kappa) over the piece, or from its lower end to ``upper``, or from
    ``start`` to its upper end (a variable end is bound to a placeholder while integrating)."""
    if piece.scale is not None:
        s = piece.scale
        transformed = sympy.expand_log(integrand.subs(kappa, s * sympy.exp(_y)), force=True) * s * sympy.exp(_y)
        transformed = sympy.powsimp(sympy.expand_power_exp(transformed), combine="exp")
        y_lower = -oo if piece.lower == 0 else sympy.simplify(sympy.log(piece.lower / s))
        y_upper = oo if piece.upper == oo else sympy.simplify(sympy.log(piece.upper / s))
        if upper is not None:
            y_upper = _upper_y
        if start is not None:
            y_lower = _upper_y
        result = _exponential_integral(transformed, _y, y_lower, y_upper)
        if result is None:
            result = _integrate(transformed, _y, y_lower, y_upper)
        end = upper if upper is not None else start
        if end is not None:
            result = result.subs(_upper_y, sympy.log(end / s))
        return result
    variable = _x if (upper is not None or start is not None) else kappa
    integrand_x = integrand.subs(kappa, variable)
    # a captime end is positive: saying so spares sympy the case of a negative lower limit
    lower_limit = _positive_end if start is not None else piece.lower
    upper_limit = _upper_y if upper is not None else piece.upper
    result = _exponential_integral(integrand_x, variable, lower_limit, upper_limit)
    if result is None:
        result = _integrate(integrand_x, variable, lower_limit, upper_limit)
    if upper is not None:
        result = result.subs(_upper_y, upper)
    if start is not None:
        result = result.subs(_positive_end, start)
    return result


def is_unusable(value: sympy.Expr) -> bool:
    return (value.has(sympy.Integral) or value.has(sympy.nan) or value.has(sympy.zoo)
            or value in (sympy.oo, -sympy.oo, sympy.Integer(0)) or value.has(sympy.oo))


# ---------------------------------------------------------------------------
# Feasibility
# ---------------------------------------------------------------------------

#: seconds allowed to find the exact range of one feature before the grid estimate serves
_RANGE_TIMEOUT = 3.0


def _exact_range(expr: sympy.Expr, lower: sympy.Expr, upper: sympy.Expr) -> tuple[float, float] | None:
    """(inf, sup) of expr(kappa) over (lower, upper), from its limits at the ends and its values
    at the stationary points; None when sympy cannot tell (then a grid estimates it).

    A grid is not enough: log(kappa/24)**2 is 0 at kappa = 24, which no geometric grid hits,
    and E[log(kappa/24)**2] = 0.05**2 is then wrongly refused."""
    try:
        with time_limit(_RANGE_TIMEOUT):
            candidates = []
            for end, side in ((lower, "+"), (upper, "-")):
                value = expr.subs(kappa, end) if end.is_finite and end != 0 else sympy.nan
                if value.has(sympy.nan, sympy.zoo) or not value.is_finite:
                    value = sympy.limit(expr, kappa, end, side) if end.is_finite else sympy.limit(expr, kappa, end)
                candidates.append(value)
            derivative = sympy.diff(expr, kappa)
            if derivative != 0:
                interval = sympy.Interval.open(lower, upper)
                if continuous_domain(expr, kappa, interval) != interval:
                    return None
                stationary = sympy.solveset(derivative, kappa, interval)
                if not isinstance(stationary, sympy.FiniteSet):
                    return None
                candidates += [expr.subs(kappa, point) for point in stationary]
            numbers = []
            for value in candidates:
                if value == oo or value == -oo:
                    numbers.append(math.inf if value == oo else -math.inf)
                    continue
                number = sympy.N(value, 30)
                if not (number.is_real and number.is_finite):
                    return None
                numbers.append(float(number))
    except _SymbolicTimeout:
        return None
    except Exception:  # sympy could not take a limit or solve: the grid serves
        return None
    return min(numbers), max(numbers)


def check_ranges(terms: list[Term], support: tuple) -> None:
    """A moment value must lie strictly inside the range its feature can reach."""
    for term in terms:
        if term.is_continuity:
            continue
        feature = term.feature
        if feature.value.free_symbols or feature.lower.free_symbols or feature.upper.free_symbols:
            continue
        if feature.expr.free_symbols - {kappa}:
            continue
        # values the feature takes on a grid lie inside its exact range: a value comfortably
        # inside them passes every check below without sympy's limits (tenths of a second each)
        function, values = _grid_values(feature)
        if values.size and _clearly_inside(term, feature, support, float(values.min()), float(values.max())):
            continue
        exact = _exact_range(feature.expr, feature.lower, feature.upper)
        low, high = exact if exact is not None else _grid_range(feature, function, values)
        _check_value_in_range(term, feature, support, low, high)
        if isinstance(term.constraint, LogMoment):
            _check_log_distance(term, feature, support, low, high)


def _clearly_inside(term: Term, feature: Feature, support: tuple, low: float, high: float) -> bool:
    """Whether the range checks of :func:`check_ranges` pass with [low, high] shrunk by more than
    rounding: then they pass with any range containing it."""
    value = float(feature.value)
    # relative to each edge, so a value just above an edge at 0 (Mean(1e-300)) is inside
    low, high = low + 1e-9 * abs(low), high - 1e-9 * abs(high)
    if low >= high:
        return False
    try:
        _check_value_in_range(term, feature, support, low, high)
        if isinstance(term.constraint, LogMoment):
            _check_log_distance(term, feature, support, low, high)
    except (ConstraintError, InfeasibleError):
        return False
    return True


def _grid_values(feature: Feature) -> tuple[Any, np.ndarray]:
    """The feature as a numpy function, and its finite values on a grid over its region (values
    it takes, so within its exact range up to rounding)."""
    lower, upper = float(feature.lower), float(feature.upper)
    grid_lower = max(lower, 1e-300)
    # (at most 1e308, below the largest double that geomspace's powers round past: a region
    # from 1e305 would otherwise end at inf)
    grid_upper = upper if np.isfinite(upper) else min(max(grid_lower, 1.0) * 1e300, 1e308)
    grid = np.unique(np.concatenate([np.geomspace(grid_lower, grid_upper, 4001),
                                     np.linspace(lower, min(grid_upper, max(lower, 1.0) * 1e6), 4001)]))
    grid = grid[(grid >= lower) & (grid <= grid_upper)]
    # scipy where needed: math.gamma refused an array (Moment(gamma(kappa), 2))
    function = sympy.lambdify(kappa, feature.expr, numpy_modules(feature.expr))
    with np.errstate(all="ignore"):
        values = np.broadcast_to(np.asarray(function(grid), dtype=float), grid.shape)
    return function, values[np.isfinite(values)]


def _grid_range(feature: Feature, function: Any, values: np.ndarray) -> tuple[float, float]:
    """(min, max) of the feature from its values on the grid of :func:`_grid_values`, widened to
    infinity where it runs off: the fallback of :func:`_exact_range`."""
    lower, upper = float(feature.lower), float(feature.upper)
    if values.size == 0:
        return -np.inf, np.inf
    low, high = values.min(), values.max()
    # a feature that runs off to +-infinity on the grid is unbounded that way; one that still
    # moves by a lot between 1e150 and 1e300 (or 1e-150 and 1e-300) is too: log(kappa) ends at 690
    # on the grid but is unbounded
    ends = []
    if not np.isfinite(upper):
        ends.append((1e150, 1e300))
    if lower == 0:
        ends.append((1e-150, 1e-300))
    with np.errstate(all="ignore"):
        for near, far in ends:
            near_value, far_value = (float(np.asarray(function(np.array([x])), dtype=float).ravel()[0])
                                     for x in (near, far))
            if np.isfinite(near_value) and np.isfinite(far_value) and abs(far_value - near_value) > 1:
                if far_value > near_value:
                    high = np.inf
                else:
                    low = -np.inf
    if high > 1e100:
        high = np.inf
    if low < -1e100:
        low = -np.inf
    return float(low), float(high)


#: the least distance, in log(kappa), of a LogMoment value from the edge of what it can reach:
#: the density then has a power law of exponent up to 1/_LEAST_LOG_DISTANCE, and sympy works
#: with integers such as 24**1000001 (generalized_log_laplace(24, 1e6, 1e6) takes 47 s,
#: pareto(24, 1e6) 19 s, pareto(24, 1000) a fraction of a second)
_LEAST_LOG_DISTANCE = sympy.Rational(1, 1000)


def _check_log_distance(term: Term, feature: Feature, support: tuple, low: float, high: float) -> None:
    if not (feature.lower == support[0] and feature.upper == support[1]):
        low, high = min(low, 0.0), max(high, 0.0)
    value = float(feature.value)
    distance = min(value - low, high - value)
    if distance < float(_LEAST_LOG_DISTANCE):
        constraint = term.constraint
        raise ConstraintError(argument_message(
            "value", type(constraint).__name__,
            f"at least {float(_LEAST_LOG_DISTANCE):g} away from the edge of what log(kappa/kappa0) can reach "
            f"on its region (a power law of exponent at most {int(1 / _LEAST_LOG_DISTANCE)})",
            constraint._display("value"),
            "The density would be a spike of relative width below 1/1000, whose closed form sympy "
            "cannot handle in reasonable time. Suggestion: a tail exponent of at most 1000."))


def _check_value_in_range(term: Term, feature: Feature, support: tuple, low: float, high: float) -> None:
    whole = feature.lower == support[0] and feature.upper == support[1]
    if not whole:
        # outside its region the feature counts as 0
        low, high = min(low, 0.0), max(high, 0.0)
    value = float(feature.value)

    def near(edge: float) -> bool:
        # relative: Mean(1e-300) is feasible, however close to the edge 0 it is
        return math.isfinite(edge) and abs(value - edge) <= 1e-12 * max(abs(value), abs(edge))

    if (value < low and not near(low)) or (value > high and not near(high)):
        raise InfeasibleError(
            f"`{term.constraint!r}` asks for an expectation of {value:g}, but over "
            f"[{feature.lower}, {feature.upper}) its feature {feature.expr} only takes values in "
            f"[{low:g}, {high:g}]; no distribution on the support [{support[0]}, {support[1]}] meets it.")
    if near(low) or near(high):
        raise InfeasibleError(
            f"`{term.constraint!r}` puts the expectation at the edge ({value:g}) of what the feature "
            f"{feature.expr} can reach; only a point mass meets it, which has no density.")


def float_stand_ins(expr: sympy.Expr) -> tuple[sympy.Expr, dict]:
    """``expr`` with each Float replaced by a symbol of the same sign, and the way back.

    sympy integrates and solves exp(-c*kappa) at once with a symbol c but can
    grind for seconds with a 35-digit Float c (numeric multipliers).
    """
    stand_ins = {}
    for number in expr.atoms(sympy.Float):
        if number.is_zero:
            continue
        stand_ins[number] = sympy.Dummy("c", positive=True) if number > 0 else sympy.Dummy("c", negative=True)
    return expr.xreplace(stand_ins), {dummy: number for number, dummy in stand_ins.items()}


def number_stand_ins(expr: sympy.Expr) -> tuple[sympy.Expr, dict]:
    """``expr`` with each numeric part other than an integer (a Float, a fraction, a radical
    such as 12768985843505859375**(1/50)) replaced by a symbol of its sign, and the way back.
    sympy solves c*t**(-a) = y at once with symbols, but checks roots with exact radicals by
    factoring their integers, which overflows or runs out its time."""
    numbers: dict = {}

    def visit(node: sympy.Expr) -> sympy.Expr:
        if node.is_number and not node.is_Integer and node.is_real:
            if node not in numbers:
                positive = node.is_positive
                if positive is None:
                    return node
                numbers[node] = sympy.Dummy("c", positive=True) if positive else sympy.Dummy("c", negative=True)
            return numbers[node]
        if not node.args:
            return node
        return node.func(*(visit(arg) for arg in node.args))

    return visit(expr), {dummy: number for number, dummy in numbers.items()}
