"""The maximum-entropy engine: stated constraints -> closed-form density.

Sign conventions follow the paper's Appendix C.  The entropy Lagrangian is

    L[f, lambda] = -int f log f - lambda_0 (int f - 1)
                   - sum_i lambda_i (int g_i(kappa) 1_i(kappa) f - v_i),

and its stationary point is the exponential-family density
f = exp(-1 - lambda_0 - sum_i lambda_i g_i 1_i).  Writing
Z(lambda) = int exp(-sum_i lambda_i g_i 1_i), normalisation gives
exp(-1 - lambda_0) = 1/Z and every moment condition becomes
-d log Z / d lambda_i = v_i.  A :class:`~maxent_util.constraints.ContinuousAt`
constraint adds a multiplier on 1{kappa < kappa0} whose equation is that the
exponent has the same value on both sides of kappa0.

The support and the regions of the features cut the captime axis into
pieces; on each piece the exponent is smooth.  Each piece is integrated
symbolically, after the substitution kappa = s exp(y) when every feature on
it is a function of log(kappa/s) (the paper's log-moment families), which
turns power laws and log-normals into exponentials and Gaussians in y that
sympy integrates reliably.

When is the symbolic route abandoned?  Integration and solving run under a
wall-clock limit (``timeout``, seconds).  If sympy cannot integrate a piece,
cannot solve the multiplier equations (they are often transcendental, e.g.
``Support(0, 10), Mean(3)``), or runs out of time, the multipliers are found
numerically: Newton's method on the moment conditions (the gradient of the
convex dual when there is no continuity condition) from a start where the
density is integrable, in double precision and then polished with mpmath to
``digits`` significant digits.  The density keeps its symbolic form with the
numeric multipliers, and ``closed_form`` is False.  Symbolic parameters with
no closed form raise :class:`~maxent_util.errors.NoClosedFormError`.
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass, field
from typing import Any, Sequence

import mpmath
import sympy

from ._timing import Deadline, alarm_usable, check_timeout, run_bounded, time_limit, timed_out
from ._timing import SymbolicTimeout as _SymbolicTimeout
from .constraints import Constraint, ContinuousAt, Feature, Support, _provably
from .errors import (ConstraintError, InfeasibleError, MaxEntError, NoClosedFormError,
                     NotNormalizableError, argument_message)
from .expressions import as_expression
from .symbols import kappa

__all__ = ["derive", "Derivation", "DEFAULT_TIMEOUT"]

oo = sympy.oo

#: seconds allowed for a whole derivation (symbolic attempt, numeric fallback, tidying)
DEFAULT_TIMEOUT = 30.0

#: share of the time limit the symbolic attempt may use when numbers leave a numeric fallback
_SYMBOLIC_SHARE = 0.5

#: seconds past the deadline allowed for handing the result over (worker process, last step)
_GRACE = 0.5

_y = sympy.Symbol("y", real=True)
_upper_y = sympy.Symbol("Y", real=True)
_x = sympy.Symbol("x", positive=True)
_positive_end = sympy.Symbol("X", positive=True)


# ---------------------------------------------------------------------------
# The problem: support, features, pieces
# ---------------------------------------------------------------------------

@dataclass
class _Term:
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
class _Piece:
    lower: sympy.Expr
    upper: sympy.Expr
    terms: list[_Term]
    exponent: sympy.Expr            # -sum lambda_i g_i over the active terms
    scale: sympy.Expr | None        # s of the substitution kappa = s exp(y)


@dataclass
class Derivation:
    """Every intermediate object of a derivation, kept for the LaTeX export.

    Attributes
    ----------
    support : (lower, upper) of the captime.
    terms : list of (multiplier symbol, feature expression, region (lower, upper), value, constraint).
    breakpoints : the sorted points that cut the support into pieces.
    stationary_density : exp(-1 - lambda_0 - sum lambda_i g_i 1_i), a Piecewise in kappa.
    partition : Z(lambda) = int exp(-sum lambda_i g_i 1_i) dkappa, or None if numeric only.
    equations : the multiplier equations as sympy relations (symbolic route), else [].
    """

    support: tuple[sympy.Expr, sympy.Expr]
    terms: list[tuple]
    breakpoints: list[sympy.Expr]
    stationary_density: sympy.Expr
    partition: sympy.Expr | None
    equations: list[sympy.Basic] = field(default_factory=list)
    method: str = "symbolic"


def _support_of(constraints: Sequence[Constraint]) -> tuple[sympy.Expr, sympy.Expr]:
    supports = [c for c in constraints if isinstance(c, Support)]
    if len(supports) > 1:
        raise ConstraintError(
            f"`derive` takes at most one Support; got {', '.join(map(repr, supports))}. "
            "Suggestion: state the intersection of the intervals as one Support.")
    if not supports:
        return sympy.Integer(0), oo
    return supports[0].lower, supports[0].upper


def _lt(a: sympy.Expr, b: sympy.Expr) -> bool | None:
    if a == b:
        return False
    if a == -oo or b == oo:
        return True
    if a == oo or b == -oo:
        return False
    return _provably(sympy.Lt(a, b))


def _sorted_points(points: list[sympy.Expr]) -> list[sympy.Expr]:
    """Sort breakpoints; symbols whose order sympy cannot decide keep the stated order."""
    ordered: list[sympy.Expr] = []
    for point in points:
        if any(_provably(sympy.Eq(point, other)) or point == other for other in ordered):
            continue
        position = len(ordered)
        for index, other in enumerate(ordered):
            if _lt(point, other) is True:
                position = index
                break
        ordered.insert(position, point)
    return ordered


def _inside(point: sympy.Expr, lower: sympy.Expr, upper: sympy.Expr) -> bool | None:
    """Whether lower < point < upper (None when undecidable)."""
    left, right = _lt(lower, point), _lt(point, upper)
    if left is False or right is False:
        return False
    if left and right:
        return True
    return None


def _terms(constraints: Sequence[Constraint], support: tuple) -> tuple[list[_Term], list[sympy.Expr]]:
    """The Lagrangian terms, duplicates merged, clashes and bad regions rejected."""
    lower, upper = support
    terms: list[_Term] = []
    interior: list[sympy.Expr] = []
    seen: dict[tuple, _Term] = {}
    for constraint in constraints:
        if isinstance(constraint, Support):
            continue
        feature = constraint.feature()
        if feature is None:
            continue
        for point in (feature.lower, feature.upper):
            if point not in (-oo, oo) and (_lt(point, lower) is True or _lt(upper, point) is True):
                raise ConstraintError(argument_message(
                    _point_name(constraint), type(constraint).__name__,
                    f"inside the support [{lower}, {upper}]", _display(point)))
        region_lower = lower if feature.lower == -oo else feature.lower
        region_upper = upper if feature.upper == oo else feature.upper
        if _lt(region_lower, region_upper) is False:
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
        term = _Term(sympy.Symbol(f"lambda_{len(terms) + 1}", real=True),
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


def _log_scale(expr: sympy.Expr) -> sympy.Expr | None:
    """s such that expr is a function of log(kappa/s) alone, or None."""
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


def _build_pieces(support: tuple, terms: list[_Term], interior: list[sympy.Expr]) -> tuple[list, list[_Piece]]:
    lower, upper = support
    points = [lower] + _sorted_points(interior) + [upper]
    index = {sympy.srepr(p): i for i, p in enumerate(points)}
    for term in terms:
        term.lower_index = index[sympy.srepr(term.feature.lower)]
        term.upper_index = index[sympy.srepr(term.feature.upper)]
    pieces = []
    for i in range(len(points) - 1):
        active = [term for term in terms if term.lower_index <= i and i + 1 <= term.upper_index]
        exponent = -sum((term.multiplier * term.feature.expr for term in active), sympy.Integer(0))
        features = sympy.Add(*[term.feature.expr for term in active]) if active else sympy.Integer(0)
        pieces.append(_Piece(points[i], points[i + 1], active, exponent, _log_scale(features)))
    return points, pieces


def _stationary_density(pieces: list[_Piece]) -> sympy.Expr:
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

def _clean(expr: sympy.Expr) -> sympy.Expr:
    """The generic branch of an integral done with conds='none' (which sometimes
    still returns a Piecewise)."""
    if isinstance(expr, sympy.Piecewise):
        expr = expr.args[0][0]
    return expr


def _integrate_piece(integrand: sympy.Expr, piece: _Piece, upper: sympy.Expr | None = None, *,
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
        result = _clean(sympy.integrate(transformed, (_y, y_lower, y_upper), conds="none"))
        end = upper if upper is not None else start
        if end is not None:
            result = result.subs(_upper_y, sympy.log(end / s))
        return result
    variable = _x if (upper is not None or start is not None) else kappa
    integrand_x = integrand.subs(kappa, variable)
    # a captime end is positive: saying so spares sympy the case of a negative lower limit
    lower_limit = _positive_end if start is not None else piece.lower
    upper_limit = _upper_y if upper is not None else piece.upper
    result = _clean(sympy.integrate(integrand_x, (variable, lower_limit, upper_limit), conds="none"))
    if upper is not None:
        result = result.subs(_upper_y, upper)
    if start is not None:
        result = result.subs(_positive_end, start)
    return result


def _bad(value: sympy.Expr) -> bool:
    return (value.has(sympy.Integral) or value.has(sympy.nan) or value.has(sympy.zoo)
            or value in (sympy.oo, -sympy.oo, sympy.Integer(0)) or value.has(sympy.oo))


def _partition_pieces(pieces: list[_Piece]) -> list[sympy.Expr]:
    parts = []
    for piece in pieces:
        part = sympy.simplify(_integrate_piece(sympy.exp(piece.exponent), piece))
        parts.append(part)
    return parts


def _equations(terms: list[_Term], partition: sympy.Expr, pieces: list[_Piece]) -> list[sympy.Expr]:
    """Expressions that vanish at the multipliers."""
    equations = []
    for term in terms:
        if term.is_continuity:
            equations.append(_continuity_gap(term, pieces))
        else:
            equations.append(sympy.diff(partition, term.multiplier) + term.feature.value * partition)
    return equations


def _continuity_gap(term: _Term, pieces: list[_Piece]) -> sympy.Expr:
    point = term.constraint.kappa0
    left = next(p for p in pieces if p.upper == point)
    right = next(p for p in pieces if p.lower == point)
    return sympy.expand_log(left.exponent.subs(kappa, point) - right.exponent.subs(kappa, point), force=True)


def _solve_symbolic(terms: list[_Term], equations: list[sympy.Expr]) -> dict | None:
    unknowns = [term.multiplier for term in terms]
    if not unknowns:
        return {}
    # Float parameters (a tail exponent 7.56...) can stall sympy's solver for seconds: solve
    # with symbols of the same sign in their place, then put the numbers back
    numbers: dict = {}
    stand_ins: dict = {}
    for number in set().union(*(eq.atoms(sympy.Float) for eq in equations)):
        if not number.is_zero:
            stand_ins[number] = sympy.Dummy("c", positive=True) if number > 0 else sympy.Dummy("c", negative=True)
    numbers = {dummy: number for number, dummy in stand_ins.items()}
    simplified = [sympy.simplify(eq.xreplace(stand_ins)) for eq in equations]
    if _special_in(simplified, set(unknowns)):
        return None
    try:
        solutions = sympy.solve(simplified, unknowns, dict=True)
    except (NotImplementedError, ValueError, TypeError):
        return None
    good = []
    for solution in solutions:
        solution = {key: value.xreplace(numbers) for key, value in solution.items()}
        if set(solution) != set(unknowns):
            continue
        if any(value.is_real is False or value.has(sympy.I) for value in solution.values()):
            continue
        good.append(solution)
    if len(good) != 1:
        return None
    return good[0]


#: functions whose inverse sympy does not know: a multiplier inside one is not solved for
_SPECIAL_FUNCTIONS = (sympy.erf, sympy.erfc, sympy.erfi, sympy.gamma, sympy.lowergamma, sympy.uppergamma,
                      sympy.polygamma, sympy.Ei, sympy.expint, sympy.besselk, sympy.besseli)


def _special_in(equations: list[sympy.Expr], unknowns: set) -> bool:
    """Whether a multiplier sits inside erf, gamma and the like: sympy.solve then grinds for
    seconds and gives up (the truncated normal's erfc(lambda_1/(2 sqrt(lambda_2))))."""
    return any(call.free_symbols & unknowns
               for equation in equations for call in equation.atoms(*_SPECIAL_FUNCTIONS))


# ---------------------------------------------------------------------------
# Numeric route
# ---------------------------------------------------------------------------

def _float_log(value: float) -> float:
    import math

    return math.log(value) if value > 0 else -math.inf


def _float_exp(value: float) -> float:
    import math

    try:
        return math.exp(value)
    except OverflowError:
        return math.inf


class _NumericProblem:
    """Multiplier equations evaluated by quadrature (mpmath)."""

    def __init__(self, pieces: list[_Piece], terms: list[_Term]):
        self.pieces = pieces
        self.terms = terms
        moment_terms = [t for t in terms if not t.is_continuity]
        continuity_terms = [t for t in terms if t.is_continuity]
        # continuity is linear in the multipliers: eliminate one multiplier per condition
        substitution: dict[sympy.Symbol, sympy.Expr] = {}
        for term in continuity_terms:
            gap = _continuity_gap(term, pieces).subs(substitution)
            solved = sympy.solve(gap, term.multiplier)
            if len(solved) != 1:
                raise InfeasibleError(f"the continuity condition `{term.constraint!r}` cannot be met.")
            substitution[term.multiplier] = solved[0]
            substitution = {k: v.subs(term.multiplier, solved[0]) for k, v in substitution.items()}
        self.substitution = substitution
        self.free = [t.multiplier for t in terms if t.multiplier not in substitution]
        self.moment_terms = moment_terms
        self.values = [mpmath.mpf(float(t.feature.value)) if t.feature.value.is_Float
                       else sympy.N(t.feature.value, 50) for t in moment_terms]
        self._compile()

    def _compile(self) -> None:
        args = (kappa, *self.free)
        self.compiled = {}
        for backend in ("mpmath", "math"):
            exponents, features, directions = [], [], []
            for piece in self.pieces:
                exponent = piece.exponent.subs(self.substitution)
                exponents.append(sympy.lambdify(args, exponent, backend))
                active = {id(t) for t in piece.terms}
                # per piece: each moment feature (0 where its region does not reach)
                features.append([sympy.lambdify((kappa,), t.feature.expr if id(t) in active else 0, backend)
                                 for t in self.moment_terms])
                # per piece: how the exponent moves with each free multiplier
                directions.append([sympy.lambdify((kappa,), -sympy.diff(exponent, m), backend)
                                   for m in self.free])
            self.compiled[backend] = (exponents, features, directions)

    # -- integrability ----------------------------------------------------
    def integrable(self, multipliers: Sequence) -> bool:
        exponents = self.compiled["mpmath"][0]
        with mpmath.workdps(20):
            for piece, exponent in zip(self.pieces, exponents):
                def log_density(k: Any) -> Any:
                    return exponent(k, *multipliers) + mpmath.log(k)
                try:
                    if piece.upper == oo:
                        a, b, c = (log_density(mpmath.mpf(10) ** e) for e in (20, 40, 80))
                        slope = (c - b) / (40 * mpmath.log(10))
                        if not (mpmath.isfinite(c) and slope < -1e-6 and c < b < a + 1):
                            return False
                    if piece.lower == 0:
                        a, b, c = (log_density(mpmath.mpf(10) ** -e) for e in (20, 40, 80))
                        slope = (b - c) / (40 * mpmath.log(10))
                        if not (mpmath.isfinite(c) and slope > 1e-6):
                            return False
                except (ValueError, ZeroDivisionError, OverflowError, TypeError):
                    return False
        return True

    def _window(self, piece: _Piece, log_density: Any, backend: str) -> list:
        """Integration points in the variable of ``_quad`` covering the density's bulk.

        Pieces that reach 0 or infinity are integrated in y = log(kappa), where
        power laws and exponentials both decay; the range is cut where the
        density has dropped below what the working precision can see.
        """
        finite = mpmath.mpf if backend == "mpmath" else float
        lower = finite(0) if piece.lower == 0 else finite(sympy.N(piece.lower, mpmath.mp.dps + 5))
        upper = None if piece.upper == oo else finite(sympy.N(piece.upper, mpmath.mp.dps + 5))
        if piece.lower != 0 and piece.upper != oo:
            return [lower, upper]
        log = mpmath.log if backend == "mpmath" else _float_log
        ylow = -800 if lower == 0 else float(log(lower))
        yhigh = 800 if upper is None else float(log(upper))
        grid = [ylow + (yhigh - ylow) * i / 800 for i in range(801)]
        values = []
        for y in grid:
            try:
                value = float(log_density(finite(y)))
            except (ValueError, ZeroDivisionError, OverflowError, TypeError):
                value = -float("inf")
            values.append(value if value == value else -float("inf"))
        peak = max(range(len(grid)), key=values.__getitem__)
        drop = 60.0 if backend == "math" else 2.4 * mpmath.mp.dps + 60.0
        left = next((grid[i] for i in range(peak, -1, -1) if values[i] < values[peak] - drop), None)
        right = next((grid[i] for i in range(peak, len(grid)) if values[i] < values[peak] - drop), None)
        infinity = mpmath.inf if backend == "mpmath" else float("inf")
        # an end that is not cut stays exact: a double-precision log(upper) would
        # limit the whole quadrature to double precision
        a = finite(left) if left is not None else (-infinity if lower == 0 else log(lower))
        b = finite(right) if right is not None else (infinity if upper is None else log(upper))
        middle = finite(grid[peak])
        return [a, middle, b] if a < middle < b else [a, b]

    def _quad(self, function: Any, piece: _Piece, backend: str, window: list) -> Any:
        log_space = piece.lower == 0 or piece.upper == oo
        if backend == "math":
            import math
            import warnings

            from scipy.integrate import IntegrationWarning, quad

            def safe(v: float, f: Any = function) -> float:
                try:
                    value = f(v)
                except (OverflowError, ZeroDivisionError, ValueError):
                    return math.inf
                # inf * 0 far in a tail whose density underflowed (integrability is checked apart)
                return 0.0 if value != value else value

            integrand = (lambda y: safe(math.exp(y)) * math.exp(y)) if log_space else safe
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", IntegrationWarning)
                return sum(quad(integrand, a, b, limit=200)[0] for a, b in zip(window, window[1:]))
        if log_space:
            return mpmath.quad(lambda y: function(mpmath.exp(y)) * mpmath.exp(y), window)
        return mpmath.quad(function, window)

    def moments(self, multipliers: Sequence, *, second: bool = True, backend: str = "mpmath") -> tuple:
        """Z, E[g_i], and d E[g_i] / d mu_j for the free multipliers mu."""
        exp = mpmath.exp if backend == "mpmath" else _float_exp
        zero = mpmath.mpf(0) if backend == "mpmath" else 0.0
        n, m = len(self.moment_terms), len(self.free)
        total = zero
        first = [zero] * n
        mixed = [[zero] * m for _ in range(n)]
        direction_mean = [zero] * m
        exponents, features_all, directions_all = self.compiled[backend]
        for piece, exponent, features, directions in zip(self.pieces, exponents, features_all, directions_all):
            def density(k: Any, exponent: Any = exponent) -> Any:
                return exp(exponent(k, *multipliers))

            exp_y = mpmath.exp if backend == "mpmath" else _float_exp
            window = self._window(piece, lambda y, e=exponent: e(exp_y(y), *multipliers) + y, backend)
            total += self._quad(density, piece, backend, window)
            for i, g in enumerate(features):
                first[i] += self._quad(lambda k, g=g: g(k) * density(k), piece, backend, window)
                if second:
                    for j, h in enumerate(directions):
                        mixed[i][j] += self._quad(lambda k, g=g, h=h: g(k) * h(k) * density(k), piece,
                                                  backend, window)
            if second:
                for j, h in enumerate(directions):
                    direction_mean[j] += self._quad(lambda k, h=h: h(k) * density(k), piece, backend, window)
        if not total > 0:
            raise ZeroDivisionError("the density integrates to zero")
        means = [value / total for value in first]
        jacobian = None
        if second:
            hmeans = [value / total for value in direction_mean]
            # d E[g_i] / d mu_j = -(E[g_i h_j] - E[g_i] E[h_j])
            jacobian = mpmath.matrix(n, m)
            for i in range(n):
                for j in range(m):
                    jacobian[i, j] = -(mixed[i][j] / total - means[i] * hmeans[j])
        return total, means, jacobian

    def residual(self, multipliers: Sequence, backend: str = "mpmath") -> list:
        _, means, _ = self.moments(multipliers, second=False, backend=backend)
        values = self.values if backend == "mpmath" else [float(v) for v in self.values]
        return [mean - value for mean, value in zip(means, values)]

    def start(self) -> list:
        grid = [0, 0.1, -0.1, 1, -1, 0.01, 10, -10, 0.5, 2]
        m = len(self.free)
        best, best_norm = None, None
        candidates = list(itertools.product(grid, repeat=m)) if m <= 3 else [tuple([0] * m)]
        for point in candidates:
            if not self.integrable([mpmath.mpf(v) for v in point]):
                continue
            try:
                norm = self._merit([float(v) for v in point], "math")[0]
            except (ValueError, ZeroDivisionError, OverflowError):
                continue
            if mpmath.isfinite(norm) and (best_norm is None or norm < best_norm):
                best, best_norm = point, norm
        if best is None:
            raise NotNormalizableError(
                "no choice of the Lagrange multipliers makes the maximum-entropy density "
                f"integrable over the support [{self.pieces[0].lower}, {self.pieces[-1].upper}] for the "
                f"constraints {', '.join(repr(t.constraint) for t in self.terms)}.")
        return best

    def _merit(self, point: list, backend: str) -> tuple[Any, Any]:
        """(merit, residual norm).  Without continuity conditions the merit is the
        convex dual log Z + sum lambda_i v_i, whose Newton step always descends;
        otherwise it is the residual norm."""
        total, means, _ = self.moments(point, second=False, backend=backend)
        values = self.values if backend == "mpmath" else [float(v) for v in self.values]
        norm = mpmath.norm([mean - value for mean, value in zip(means, values)])
        if self.substitution:
            return norm, norm
        log = mpmath.log if backend == "mpmath" else _float_log
        return log(total) + sum(p * v for p, v in zip(point, values)), norm

    def newton(self, point: list, *, tolerance: Any, iterations: int = 60,
               backend: str = "mpmath") -> tuple[list, Any]:
        convert = mpmath.mpf if backend == "mpmath" else float
        point = [convert(v) for v in point]
        merit, norm = self._merit(point, backend)
        values = self.values if backend == "mpmath" else [float(v) for v in self.values]
        for _ in range(iterations):
            if norm < tolerance:
                break
            _, means, jacobian = self.moments(point, backend=backend)
            residual = mpmath.matrix([mean - value for mean, value in zip(means, values)])
            try:
                step = mpmath.lu_solve(jacobian, -residual)
            except (ZeroDivisionError, TypeError):
                raise InfeasibleError(self._stalled_message(norm)) from None
            scale = mpmath.mpf(1)
            for _ in range(60):
                trial = [convert(p + scale * s) for p, s in zip(point, step)]
                if self.integrable(trial):
                    try:
                        trial_merit, trial_norm = self._merit(trial, backend)
                    except (ValueError, ZeroDivisionError, OverflowError):
                        trial_merit = trial_norm = mpmath.inf
                    if trial_merit < merit or (trial_norm < norm and trial_merit <= merit):
                        point, merit, norm = trial, trial_merit, trial_norm
                        break
                scale /= 2
            else:
                break
        return point, norm

    def _stalled_message(self, norm: Any) -> str:
        return (f"the constraints {', '.join(repr(t.constraint) for t in self.terms)} cannot all hold: "
                f"the multiplier equations have no solution (the best residual found is {float(norm):.3g}).")

    def solve(self, digits: int, partition: sympy.Expr | None = None) -> dict:
        """Multipliers to ``digits`` significant digits.

        A double-precision Newton run on quadratures finds the root; it is
        polished with mpmath, on the closed-form equations d log Z / d lambda
        when sympy could integrate Z, else on high-precision quadratures.
        """
        point = self.start()
        point, norm = self.newton(point, tolerance=1e-11, backend="math")
        if not norm < 1e-8:
            raise InfeasibleError(self._stalled_message(norm))
        values = None
        if partition is not None:
            values = self._polish_closed_form(point, partition, digits)
        if values is None:
            with mpmath.workdps(digits + 10):
                point, norm = self.newton(point, tolerance=mpmath.mpf(10) ** -(digits + 2), iterations=8)
                if not norm < mpmath.mpf(10) ** -(digits - 2):
                    raise InfeasibleError(self._stalled_message(norm))
                values = {m: sympy.Float(v, digits + 5) for m, v in zip(self.free, point)}
        for multiplier, expression in self.substitution.items():
            values[multiplier] = sympy.Float(sympy.N(expression.subs(values), digits + 5), digits + 5)
        return values

    def _polish_closed_form(self, point: list, partition: sympy.Expr, digits: int) -> dict | None:
        log_partition = sympy.log(partition.subs(self.substitution))
        equations = [sympy.diff(log_partition, m) + t.feature.value
                     for t, m in zip(self.moment_terms, self.moment_multipliers())]
        functions = [sympy.lambdify(self.free, eq, "mpmath") for eq in equations]
        try:
            with mpmath.workdps(digits + 15):
                root = mpmath.findroot(functions if len(functions) > 1 else functions[0],
                                       [mpmath.mpf(v) for v in point] if len(point) > 1 else mpmath.mpf(point[0]),
                                       tol=mpmath.mpf(10) ** -(2 * digits))
                root = list(root) if len(point) > 1 else [root]
                residual = max(abs(f(*root)) for f in functions)
                if not residual < mpmath.mpf(10) ** -(digits + 2):
                    return None
                if max(abs(r - p) for r, p in zip(root, point)) > 1e-5 * (1 + max(abs(p) for p in point)):
                    return None  # a different root than the quadrature found: do not trust it
                return {m: sympy.Float(v, digits + 5) for m, v in zip(self.free, root)}
        except (ValueError, ZeroDivisionError, TypeError, OverflowError):
            return None

    def piece_integrals(self, multipliers: dict, digits: int) -> list:
        """Z on each piece at the solved multipliers, by quadrature."""
        point = [multipliers[m] for m in self.free]
        exponents = self.compiled["mpmath"][0]
        integrals = []
        with mpmath.workdps(digits + 10):
            point = [mpmath.mpf(sympy.N(v, digits + 10)) for v in point]
            for piece, exponent in zip(self.pieces, exponents):
                window = self._window(piece, lambda y, e=exponent: e(mpmath.exp(y), *point) + y, "mpmath")
                value = self._quad(lambda k, e=exponent: mpmath.exp(e(k, *point)), piece, "mpmath", window)
                integrals.append(sympy.Float(value, digits + 5))
        return integrals

    def moment_multipliers(self) -> list:
        return [t.multiplier for t in self.moment_terms]


# ---------------------------------------------------------------------------
# Feasibility
# ---------------------------------------------------------------------------

def _check_ranges(terms: list[_Term], support: tuple) -> None:
    """A moment value must lie strictly inside the range its feature can reach."""
    import numpy as np

    for term in terms:
        if term.is_continuity:
            continue
        feature = term.feature
        if feature.value.free_symbols or feature.lower.free_symbols or feature.upper.free_symbols:
            continue
        if feature.expr.free_symbols - {kappa}:
            continue
        lower, upper = float(feature.lower), float(feature.upper)
        grid_lower = max(lower, 1e-300)
        grid_upper = upper if np.isfinite(upper) else max(grid_lower, 1.0) * 1e300
        grid = np.unique(np.concatenate([np.geomspace(grid_lower, grid_upper, 4001),
                                         np.linspace(lower, min(grid_upper, max(lower, 1.0) * 1e6), 4001)]))
        grid = grid[(grid >= lower) & (grid <= grid_upper)]
        function = sympy.lambdify(kappa, feature.expr, "numpy")
        with np.errstate(all="ignore"):
            values = np.broadcast_to(np.asarray(function(grid), dtype=float), grid.shape)
        values = values[np.isfinite(values)]
        if values.size == 0:
            continue
        low, high = values.min(), values.max()
        whole = feature.lower == support[0] and feature.upper == support[1]
        if not whole:
            low, high = min(low, 0.0), max(high, 0.0)
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
        value = float(feature.value)
        tolerance = 1e-12 * max(abs(value), 1.0)
        if value < low - tolerance or value > high + tolerance:
            raise InfeasibleError(
                f"`{term.constraint!r}` asks for an expectation of {value:g}, but over "
                f"[{feature.lower}, {feature.upper}) its feature {feature.expr} only takes values in "
                f"[{low:g}, {high:g}]; no distribution on the support [{support[0]}, {support[1]}] meets it.")
        if abs(value - low) <= tolerance or abs(value - high) <= tolerance:
            raise InfeasibleError(
                f"`{term.constraint!r}` puts the expectation at the edge ({value:g}) of what the feature "
                f"{feature.expr} can reach; only a point mass meets it, which has no density.")


# ---------------------------------------------------------------------------
# Entry point
# ---------------------------------------------------------------------------

def derive(*constraints: Constraint, timeout: float = DEFAULT_TIMEOUT, digits: int = 30):
    """Derive the maximum-entropy captime distribution of some constraints.

    Parameters
    ----------
    *constraints : :class:`~maxent_util.constraints.Constraint`
        At most one :class:`Support` (default ``[0, oo)``) and any moment or
        continuity constraints.
    timeout : float or None, keyword-only
        Seconds allowed for the whole derivation, or None for no limit
        (``inf`` means the same).  One deadline is shared by every step:
        the symbolic attempt (integration and solving) may use half of it
        when the constraints are all numbers (the numeric fallback and the
        simplification of the result get what is left), all of it when they
        have symbolic parameters (there is no numeric fallback then).  The
        call returns or raises :class:`~maxent_util.errors.TimeLimitError`
        within about ``timeout + 0.5`` s on any thread: on the main thread
        (POSIX) each step is interrupted by SIGALRM; on another thread, or
        where SIGALRM is missing, the derivation runs in a worker process
        (``fork`` on Linux, ``spawn`` elsewhere; the result comes back
        pickled) that is killed when the time is up.  Zero, negative, NaN
        and non-numbers are refused.
    digits : int, keyword-only
        Significant digits of numerically solved multipliers (at least 30).

    Returns
    -------
    CaptimeDistribution

    Raises
    ------
    ConstraintError, InfeasibleError, NotNormalizableError, NoClosedFormError, TimeLimitError

    Examples
    --------
    >>> from maxent_util import derive, Support, Mean, kappa
    >>> derive(Support(0, "oo"), Mean(2)).pdf
    exp(-kappa/2)/2
    """
    for constraint in constraints:
        if not isinstance(constraint, Constraint):
            raise ConstraintError(argument_message(
                "constraints", "derive", "Constraint objects (Support, Mean, LogMoment, ...)", constraint))
    if digits < 15:
        raise ConstraintError(argument_message("digits", "derive", "at least 15", digits))
    seconds = check_timeout(timeout, arg="timeout", owner="derive", error=ConstraintError)
    return _derive_cached(tuple(constraints), seconds, int(max(digits, 30)))


@functools.lru_cache(maxsize=256)
def _derive_cached(constraints: tuple, timeout: float | None, digits: int):
    deadline = Deadline(timeout)
    if timeout is None or alarm_usable():
        return _derive_within(constraints, deadline, digits)
    # off the main thread no alarm can interrupt sympy: a worker process that can be killed
    try:
        return run_bounded(_derive_within, constraints, deadline, digits, deadline=deadline.extended(_GRACE))
    except _SymbolicTimeout:
        raise timed_out(f"derive({', '.join(map(repr, constraints))})", timeout) from None


def _derive_within(constraints: tuple, deadline: Deadline, digits: int):
    """The derivation, every step bounded by ``deadline`` (alarms: call on a main thread)."""
    timeout = deadline.seconds
    try:
        with time_limit(deadline.extended(_GRACE)):
            return _derive_steps(constraints, deadline, digits)
    except _SymbolicTimeout:
        raise timed_out(f"derive({', '.join(map(repr, constraints))})", timeout) from None


def _derive_steps(constraints: tuple, deadline: Deadline, digits: int):
    from .distribution import CaptimeDistribution

    timeout = deadline.seconds
    support = _support_of(constraints)
    terms, interior = _terms(constraints, support)
    points, pieces = _build_pieces(support, terms, interior)
    _check_ranges(terms, support)
    stationary = _stationary_density(pieces)
    record_terms = [(t.multiplier, t.feature.expr, (t.feature.lower, t.feature.upper), t.feature.value,
                     t.constraint) for t in terms]
    if support[1] == oo and not terms:
        raise NotNormalizableError(
            f"the support [{support[0]}, oo) alone has no maximum-entropy density: a constant density "
            "cannot be normalised on an unbounded interval. Suggestion: add a Mean, a LogMoment or a "
            "bounded Support.")

    parts = partition = solution = None
    equations: list = []
    free = set().union(*(c.free_symbols for c in constraints)) if constraints else set()
    # integration and solving share one deadline; with numbers, half of it is kept for numerics
    symbolic = deadline if free or timeout is None else deadline.within(_SYMBOLIC_SHARE * timeout)
    try:
        with time_limit(symbolic):
            parts = _symbolic_partition(pieces, terms)
            if parts is not None:
                partition = sympy.Add(*parts)
                equations = _equations(terms, partition, pieces)
                solution = _solve_symbolic(terms, equations)
    except _SymbolicTimeout:
        pass
    except MaxEntError:
        raise
    except Exception:  # sympy raises many kinds when it cannot integrate or solve
        pass

    if solution is not None:
        multipliers, closed_form, method = solution, True, "symbolic"
    else:
        if free:
            within = "" if timeout is None else f" within {timeout:g} s"
            raise NoClosedFormError(
                "no closed form was found for the multipliers of "
                f"{', '.join(map(repr, constraints))}{within}, and the numeric route needs "
                f"numbers for {', '.join(sorted(s.name for s in free))}. Suggestion: substitute values "
                "for the parameters, or raise `timeout`.")
        try:
            with time_limit(deadline):
                problem = _NumericProblem(pieces, terms)
                multipliers = problem.solve(digits, partition=partition)
                if parts is None:
                    parts = problem.piece_integrals(multipliers, digits)
        except _SymbolicTimeout:
            raise timed_out(f"the numeric solution for the multipliers of "
                            f"{', '.join(map(repr, constraints))}", timeout) from None
        closed_form = False
        method = "numeric (closed-form integrals)" if partition is not None else "numeric (quadrature)"
    relations = [sympy.Eq(eq, 0) for eq in equations]

    record = Derivation(support, record_terms, points, stationary, partition, relations, method)
    # the last steps (simplifying, the cdf) get what is left: each gives up its cosmetic work in time
    return CaptimeDistribution._from_solution(constraints, support, pieces, terms, multipliers, parts,
                                              closed_form, record, timeout, deadline=deadline)



# ``maxent_util.derive`` is this function once the package re-exports it, so its cache is
# reachable from it: ``derive.cache_clear()`` (benchmarks, tests) and ``derive.cache_info()``
derive.cache_clear = _derive_cached.cache_clear  # type: ignore[attr-defined]
derive.cache_info = _derive_cached.cache_info  # type: ignore[attr-defined]

def _symbolic_partition(pieces: list[_Piece], terms: list[_Term]) -> list[sympy.Expr] | None:
    """Z on each piece in closed form, or None when sympy cannot integrate one."""
    parts = _partition_pieces(pieces)
    if any(_bad(part) for part in parts):
        bad = next(p for p, part in zip(pieces, parts) if _bad(part))
        if not bad.terms and (bad.upper == oo):
            raise NotNormalizableError(
                f"the density is constant on [{bad.lower}, oo), which cannot be normalised. Suggestion: "
                "add a constraint whose feature grows there (a Mean or a LogMoment).")
        if not any(part.has(sympy.Integral) for part in parts) and all(
                not part.free_symbols - {t.multiplier for t in terms} for part in parts):
            raise NotNormalizableError(
                "the maximum-entropy density of "
                f"{', '.join(repr(t.constraint) for t in terms)} diverges for every value of the "
                f"Lagrange multipliers on [{pieces[0].lower}, {pieces[-1].upper}]: no distribution of "
                "maximum entropy meets these constraints.")
        return None
    return parts
