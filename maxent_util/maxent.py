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
import math
from dataclasses import dataclass, field
from typing import Any, Sequence

import mpmath
import numpy as np
import sympy

from ._timing import Deadline, alarm_usable, check_timeout, run_bounded, time_limit, timed_out
from ._timing import SymbolicTimeout as _SymbolicTimeout
from .constraints import Constraint
from .errors import (ConstraintError, InfeasibleError, MaxEntError, MaximumNotAttainedError,
                     NoClosedFormError, NotNormalizableError, argument_message)
from .problem import (Piece, Term, build_pieces, check_ranges, integrate_piece, is_unusable, make_terms,
                      stationary_density, support_of)
from .symbols import kappa
# scipy loads a submodule on first attribute access: `import maxent_util` and the
# command line start without paying for scipy.optimize until it is used
import scipy
from .distribution import CaptimeDistribution

__all__ = ["derive", "Derivation", "DEFAULT_TIMEOUT"]

oo = sympy.oo

#: seconds allowed for a whole derivation (symbolic attempt, numeric fallback, tidying)
DEFAULT_TIMEOUT = 30.0

#: share of the time limit the symbolic attempt may use when numbers leave a numeric fallback
_SYMBOLIC_SHARE = 0.5

#: seconds past the deadline allowed for handing the result over (worker process, last step)
_GRACE = 0.5

#: the most significant digits ``derive`` solves multipliers to: digits=2000 takes seconds,
#: digits=10**5 does not finish in minutes
MAX_DIGITS = 1000

@dataclass(frozen=True)
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
    method : how the multipliers were found.
    notes : remarks on the answer, e.g. that the stationary conditions had several solutions and
        the one of largest entropy was kept.
    """

    support: tuple[sympy.Expr, sympy.Expr]
    terms: list[tuple]
    breakpoints: list[sympy.Expr]
    stationary_density: sympy.Expr
    partition: sympy.Expr | None
    equations: list[sympy.Basic] = field(default_factory=list)
    method: str = "symbolic"
    #: remarks on how the answer was chosen (e.g. which of several stationary points)
    notes: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        # a derivation is shared through derive's cache: its sequences are tuples, not lists
        for name in ("terms", "breakpoints", "equations", "notes"):
            object.__setattr__(self, name, tuple(getattr(self, name)))
        object.__setattr__(self, "support", tuple(self.support))


def _partition_pieces(pieces: list[Piece]) -> list[sympy.Expr]:
    parts = []
    for piece in pieces:
        part = sympy.simplify(integrate_piece(sympy.exp(piece.exponent), piece))
        parts.append(part)
    return parts


def _equations(terms: list[Term], partition: sympy.Expr, pieces: list[Piece]) -> list[sympy.Expr]:
    """Expressions that vanish at the multipliers."""
    equations = []
    for term in terms:
        if term.is_continuity:
            equations.append(_continuity_gap(term, pieces))
        else:
            equations.append(sympy.diff(partition, term.multiplier) + term.feature.value * partition)
    return equations


def _continuity_gap(term: Term, pieces: list[Piece]) -> sympy.Expr:
    point = term.constraint.kappa0
    left = next(p for p in pieces if p.upper == point)
    right = next(p for p in pieces if p.lower == point)
    return sympy.expand_log(left.exponent.subs(kappa, point) - right.exponent.subs(kappa, point), force=True)


def _solve_symbolic(terms: list[Term], equations: list[sympy.Expr]) -> dict | None:
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

#: Gauss-Legendre nodes and weights of one panel of the double-precision quadrature
_GAUSS = np.polynomial.legendre.leggauss(20)
#: panels on each side of a density's peak, their widths doubling away from it (the first is
#: 2**-(_PANELS - 1) of the side): a narrow peak and a long power-law tail are both resolved
_PANELS = 26
#: the log-captime axis in double precision ends here (exp(+-700) is still a float)
_LOG_END = 700.0
#: a piece spanning more than this factor is integrated in log(kappa), like a piece reaching 0 or oo
_WIDE = 20


def _float_log(value: float) -> float:
    return math.log(value) if value > 0 else -math.inf


class _Unsolved(Exception):
    """The double-precision solve found no root from any start (carries the best residual)."""

    def __init__(self, norm: float, boundary: bool):
        super().__init__(norm)
        self.norm = norm
        self.boundary = boundary


class _NumericProblem:
    """Multiplier equations evaluated by quadrature.

    ``fixed`` maps the multiplier of a :class:`ContinuousAt` term to a value
    p: that term is then the moment P(kappa < kappa0) = p instead of a
    continuity condition (the inner problem of :meth:`_continuity_roots`).
    Other continuity conditions are linear in the multipliers and eliminate
    one multiplier each (``substitution``).

    Two quadratures: a vectorised Gauss-Legendre rule in double precision
    (the search for the root) and mpmath's tanh-sinh (the polish to
    ``digits``).  Both integrate pieces that reach 0 or infinity, or span
    more than a factor ``_WIDE``, in y = log(kappa), where power laws and
    exponentials decay alike, and both cut each piece where the density has
    dropped below what the precision can see.  The double-precision density
    is scaled by exp(-its largest log-value), so exp(-lambda kappa) with
    lambda = -100 on [0, 10] does not overflow.
    """

    def __init__(self, pieces: list[Piece], terms: list[Term], fixed: dict | None = None):
        self.pieces = pieces
        self.terms = terms
        fixed = dict(fixed or {})
        moment_terms = [t for t in terms if not t.is_continuity or t.multiplier in fixed]
        continuity_terms = [t for t in terms if t.is_continuity and t.multiplier not in fixed]
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
        self.continuity_terms = continuity_terms
        self.free = [t.multiplier for t in terms if t.multiplier not in substitution]
        self.moment_terms = moment_terms
        self.values = [mpmath.mpf(fixed[t.multiplier]) if t.multiplier in fixed
                       else mpmath.mpf(float(t.feature.value)) if t.feature.value.is_Float
                       else sympy.N(t.feature.value, 50) for t in moment_terms]
        self.ends = [(float(piece.lower), math.inf if piece.upper == oo else float(piece.upper))
                     for piece in pieces]
        self.log_space = [piece.lower == 0 or piece.upper == oo or bool(piece.upper > _WIDE * piece.lower)
                          for piece in pieces]
        self._compile()

    def _compile(self) -> None:
        args = (kappa, *self.free)
        self.compiled = {}
        for backend in ("mpmath", "numpy"):
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
        multipliers = [mpmath.mpf(float(v)) if not isinstance(v, mpmath.mpf) else v for v in multipliers]
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

    # -- double precision ---------------------------------------------------
    def _float_log_density(self, index: int, point: Sequence) -> Any:
        exponent = self.compiled["numpy"][0][index]
        log = self.log_space[index]

        def log_density(u: Any) -> Any:
            u = np.asarray(u, dtype=float)
            k = np.exp(u) if log else u
            with np.errstate(all="ignore"):
                value = np.broadcast_to(np.asarray(exponent(k, *point), dtype=float), u.shape)
                if log:
                    value = value + u
            return np.where(np.isnan(value), -np.inf, value)
        return log_density

    def _float_rule(self, index: int, point: Sequence) -> tuple:
        """Nodes (in the quadrature variable), weights and the largest log-density of one piece."""
        a, b = self.ends[index]
        if self.log_space[index]:
            lo = -_LOG_END if a == 0 else math.log(a)
            hi = _LOG_END if b == math.inf else math.log(b)
        else:
            lo, hi = a, b
        log_density = self._float_log_density(index, point)
        grid = np.linspace(lo, hi, 1601)
        values = log_density(grid)
        i = int(np.argmax(values))
        peak_u, peak_value = float(grid[i]), float(values[i])
        if not np.isfinite(peak_value):
            raise ZeroDivisionError("the density vanishes or overflows on a piece")
        left, right = float(grid[max(i - 1, 0)]), float(grid[min(i + 1, grid.size - 1)])
        # the grid may straddle a narrow peak (a log-normal with sigma = 0.01): find its top
        found = scipy.optimize.minimize_scalar(lambda u: -float(log_density(np.array([u]))[0]), bounds=(left, right),
                                method="bounded", options={"xatol": 1e-12 * max(1.0, abs(right - left))})
        if np.isfinite(found.fun) and -found.fun > peak_value:
            peak_u, peak_value = float(found.x), float(-found.fun)
        drop = 60.0
        before = np.nonzero(values[:i] < peak_value - drop)[0]
        after = np.nonzero(values[i + 1:] < peak_value - drop)[0]
        start = float(grid[before[-1]]) if before.size else lo
        end = float(grid[i + 1 + after[0]]) if after.size else hi
        x, w = _GAUSS
        edges = np.concatenate([[0.0], 2.0 ** np.arange(-_PANELS + 1, 1)])
        nodes, weights = [], []
        for side in (start - peak_u, end - peak_u):
            if side == 0:
                continue
            panel = peak_u + side * edges
            for p, q in zip(panel, panel[1:]):
                half = (q - p) / 2
                nodes.append((p + q) / 2 + half * x)
                weights.append(abs(half) * w)
        return np.concatenate(nodes), np.concatenate(weights), peak_value

    def float_moments(self, point: Sequence, *, second: bool = True) -> tuple:
        """log Z, E[g_i] and d E[g_i] / d mu_j for the free multipliers mu, in double precision."""
        point = [float(v) for v in point]
        rules = [self._float_rule(i, point) for i in range(len(self.pieces))]
        shift = max(rule[2] for rule in rules)
        n, m = len(self.moment_terms), len(self.free)
        total = 0.0
        first, mixed, direction_mean = np.zeros(n), np.zeros((n, m)), np.zeros(m)
        _, features_all, directions_all = self.compiled["numpy"]
        for index, (nodes, weights, _) in enumerate(rules):
            k = np.exp(nodes) if self.log_space[index] else nodes
            with np.errstate(all="ignore"):
                density = np.exp(self._float_log_density(index, point)(nodes) - shift) * weights

                def stack(functions: list, rows: int) -> np.ndarray:
                    table = np.zeros((rows, k.size))
                    for row, function in enumerate(functions):
                        table[row] = np.broadcast_to(np.asarray(function(k), dtype=float), k.shape)
                    return np.where(density > 0, table, 0.0)

                g = stack(features_all[index], n)
                total += density.sum()
                first += g @ density
                if second:
                    h = stack(directions_all[index], m)
                    mixed += (g * density) @ h.T
                    direction_mean += h @ density
        if not (total > 0 and np.isfinite(total)) or not np.all(np.isfinite(first)):
            raise ZeroDivisionError("the density does not integrate to a positive number")
        means = first / total
        jacobian = -(mixed / total - np.outer(means, direction_mean / total)) if second else None
        return shift + math.log(total), means, jacobian

    def _float_values(self) -> np.ndarray:
        return np.array([float(v) for v in self.values])

    def _scales(self) -> np.ndarray:
        """A natural size of each moment feature: residuals and starting multipliers are measured in it."""
        return np.array([max(abs(float(v)), 1.0) if t.feature.expr.has(sympy.log) or float(v) == 0
                         else abs(float(v)) for t, v in zip(self.moment_terms, self.values)])

    def _float_merit(self, point: np.ndarray) -> tuple[float, float]:
        """(merit, scaled residual norm).  Without continuity conditions the merit is the
        convex dual log Z + sum lambda_i v_i, whose Newton step always descends;
        otherwise it is the residual norm."""
        log_z, means, _ = self.float_moments(point, second=False)
        values = self._float_values()
        norm = float(np.linalg.norm((means - values) / self._scales()))
        if self.substitution:
            return norm, norm
        return float(log_z + point @ values), norm

    def float_newton(self, point: Sequence, *, tolerance: float = 1e-11, iterations: int = 80) -> tuple:
        """Newton's method in double precision from ``point``: (point, scaled residual norm,
        whether a step was refused because the density stopped being integrable)."""
        point = np.array([float(v) for v in point])
        values = self._float_values()
        merit, norm = self._float_merit(point)
        blocked, short = False, 0
        for _ in range(iterations):
            if norm < tolerance:
                break
            _, means, jacobian = self.float_moments(point)
            residual = means - values
            try:
                step = np.linalg.solve(jacobian, -residual)
            except np.linalg.LinAlgError:
                step = np.linalg.lstsq(jacobian, -residual, rcond=None)[0]
            if not np.all(np.isfinite(step)):
                break
            scale = 1.0
            for _ in range(40):
                trial = point + scale * step
                if self.integrable(trial):
                    try:
                        trial_merit, trial_norm = self._float_merit(trial)
                    except (ValueError, ZeroDivisionError, OverflowError, FloatingPointError):
                        trial_merit = trial_norm = math.inf
                    if trial_merit < merit or (trial_norm < norm and trial_merit <= merit):
                        point, merit, norm = trial, trial_merit, trial_norm
                        break
                else:
                    blocked = True
                scale /= 2
            else:
                break
            # steps cut a thousandfold, again and again: the root lies past the edge of integrability
            short = short + 1 if scale < 1e-3 else 0
            if short >= 4:
                break
        return point, norm, blocked

    def starts(self, count: int = 3) -> list:
        """Integrable starting points of lowest merit, multipliers in units of 1/(feature size)."""
        m = len(self.free)
        base = [0, 0.1, -0.1, 1, -1, 0.01, 10, -10, 0.5, 2]
        per_axis = max(2, min(len(base), int(round(500 ** (1 / m))))) if m else 1
        sizes = np.ones(m)
        scales = self._scales()
        for j, multiplier in enumerate(self.free):
            for term, size in zip(self.moment_terms, scales):
                if term.multiplier == multiplier:
                    sizes[j] = size
        if getattr(self, "_integrable_grid", None) is None:
            # integrability does not depend on the moment values: the scan over P(kappa < kappa0)
            # reuses it
            self._integrable_grid = [point for point in (np.array(p, dtype=float) / sizes for p in
                                                         itertools.product(base[:per_axis], repeat=m))
                                     if self.integrable(point)]
        scored = []
        for point in self._integrable_grid:
            try:
                merit = self._float_merit(point)[0]
            except (ValueError, ZeroDivisionError, OverflowError, FloatingPointError):
                continue
            if math.isfinite(merit):
                scored.append((merit, point))
        if not scored:
            raise NotNormalizableError(
                "no choice of the Lagrange multipliers makes the maximum-entropy density "
                f"integrable over the support [{self.pieces[0].lower}, {self.pieces[-1].upper}] for the "
                f"constraints {', '.join(repr(t.constraint) for t in self.terms)}.")
        scored.sort(key=lambda item: item[0])
        return [point for _, point in scored[:count]]

    def float_solve(self, start: Sequence | None = None) -> np.ndarray:
        """A root in double precision, from ``start`` or from the best starting points."""
        best_norm, boundary = math.inf, False
        candidates = [np.array(start, dtype=float)] if start is not None and self.integrable(start) else []
        tried_grid = False
        while True:
            for point in candidates:
                try:
                    point, norm, blocked = self.float_newton(point)
                except (ValueError, ZeroDivisionError, OverflowError, FloatingPointError):
                    continue
                if norm < 1e-9:
                    return point
                best_norm, boundary = min(best_norm, norm), boundary or blocked
            if tried_grid:
                raise _Unsolved(best_norm, boundary)
            candidates, tried_grid = self.starts(), True

    def entropy(self, point: Sequence) -> float:
        """log Z + sum_i lambda_i v_i at a root (the entropy of the density it gives)."""
        log_z, _, _ = self.float_moments(point, second=False)
        full = dict(zip(self.free, (float(v) for v in point)))
        for multiplier, expression in self.substitution.items():
            full[multiplier] = float(expression.subs(full))
        return float(log_z + sum(full[t.multiplier] * float(v) for t, v in zip(self.moment_terms, self.values)))

    # -- several stationary points: the continuity conditions ---------------
    def _continuity_roots(self) -> list[tuple[float, dict]]:
        """Every root found of the one continuity condition, as (entropy, multipliers).

        With the probability p = P(kappa < kappa0) fixed, the rest is a convex
        dual with one root; the continuity condition is then one equation in p,
        whose sign changes are bracketed on a grid of logit(p) and refined by
        Brent's method.  It can have several roots.
        """
        term = self.continuity_terms[0]
        inner = _NumericProblem(self.pieces, self.terms, fixed={term.multiplier: 0.5})
        index = [t.multiplier for t in inner.moment_terms].index(term.multiplier)
        gap = sympy.lambdify(inner.free, _continuity_gap(term, self.pieces), "math")
        state: dict = {"point": None}

        def solve_at(logit: float) -> np.ndarray:
            inner.values[index] = mpmath.mpf(1 / (1 + math.exp(-logit)))
            point = inner.float_solve(state["point"])
            state["point"] = point
            return point

        records = []
        for logit in np.linspace(-6, 6, 25):
            try:
                point = solve_at(logit)
            except (_Unsolved, NotNormalizableError, ZeroDivisionError, ValueError):
                records.append(None)
                continue
            records.append((logit, point, gap(*point)))
        roots = []
        for before, after in zip(records, records[1:]):
            if before is None or after is None:
                continue
            if before[2] == 0:
                roots.append(before[1])
            elif before[2] * after[2] < 0:
                state["point"] = before[1]
                try:
                    logit = scipy.optimize.brentq(lambda x: gap(*solve_at(x)), before[0], after[0], xtol=1e-13)
                    roots.append(solve_at(logit))
                except (_Unsolved, NotNormalizableError, ZeroDivisionError, ValueError, RuntimeError):
                    continue
        # the moment conditions may hold for p only on a stretch too short for the grid to bracket
        # a root: Newton on the whole system (continuity included) from every point of the scan
        positions = [inner.free.index(m) for m in self.free]
        for record in records:
            if record is None:
                continue
            try:
                point, norm, _ = self.float_newton(record[1][positions])
            except (ValueError, ZeroDivisionError, OverflowError, FloatingPointError):
                continue
            if norm < 1e-9:
                full = dict(zip(self.free, point))
                for multiplier, expression in self.substitution.items():
                    full[multiplier] = float(expression.subs(full))
                roots.append(np.array([full[m] for m in inner.free]))
        found: list[tuple[float, dict]] = []
        for point in roots:
            if any(np.allclose(point, [other[m] for m in inner.free], rtol=1e-7, atol=1e-9) for _, other in found):
                continue
            # the entropy needs the probability below kappa0 at this root
            inner.values[index] = mpmath.mpf(0.5)
            _, means, _ = inner.float_moments(point, second=False)
            inner.values[index] = mpmath.mpf(float(means[index]))
            found.append((inner.entropy(point), dict(zip(inner.free, point))))
        return found

    # -- the solve ------------------------------------------------------------
    def _stalled_message(self, norm: Any) -> str:
        return (f"the constraints {', '.join(repr(t.constraint) for t in self.terms)} cannot all hold: "
                f"the multiplier equations have no solution (the best residual found is {float(norm):.3g}).")

    def float_root(self) -> tuple[np.ndarray, list[str]]:
        """The double-precision root to polish, and notes on how it was chosen."""
        notes: list[str] = []
        if len(self.continuity_terms) == 1 and self.moment_terms:
            found = self._continuity_roots()
            if not found:
                raise InfeasibleError(
                    f"no density of the maximum-entropy form meets "
                    f"{', '.join(repr(t.constraint) for t in self.terms)}: for no value of the probability "
                    f"below {self.continuity_terms[0].constraint.kappa0} do the moment conditions and the "
                    "continuity condition hold together.")
            found.sort(key=lambda item: -item[0])
            if len(found) > 1:
                notes.append(
                    f"the stationary conditions have {len(found)} solutions, with entropies "
                    f"{', '.join(f'{h:.6g}' for h, _ in found)}; the one of largest entropy is returned.")
            return np.array([found[0][1][m] for m in self.free]), notes
        try:
            return self.float_solve(), notes
        except _Unsolved as unsolved:
            if not self.substitution and _moments_reachable(self):
                raise MaximumNotAttainedError(
                    f"the constraints {', '.join(repr(t.constraint) for t in self.terms)} can all hold "
                    "(a distribution concentrated on a few points meets them), but no density of the "
                    "maximum-entropy form exp(-sum_i lambda_i g_i) does: the entropy has a supremum that no "
                    "distribution attains, the multipliers running off to the edge of the region where the "
                    f"density can be normalised (best residual {unsolved.norm:.3g}). Suggestion: bound the "
                    "support, or state a constraint that controls the tail.") from None
            raise InfeasibleError(self._stalled_message(unsolved.norm)) from None

    def solve(self, digits: int, partition: sympy.Expr | None = None) -> tuple[dict, list[str]]:
        """Multipliers to ``digits`` significant digits, and notes on the choice of root.

        A double-precision Newton run finds the root (several starts; with a
        continuity condition, every root, keeping the one of largest entropy);
        it is polished with mpmath, on the closed-form equations
        d log Z / d lambda when sympy could integrate Z, else on
        high-precision quadratures.
        """
        point, notes = self.float_root()
        values = None
        if partition is not None:
            values = self._polish_closed_form(list(point), partition, digits)
        if values is None:
            with mpmath.workdps(digits + 10):
                mp_point, norm = self.newton([mpmath.mpf(float(v)) for v in point],
                                             tolerance=mpmath.mpf(10) ** -(digits + 2), iterations=12)
                if not norm < mpmath.mpf(10) ** -(digits - 2):
                    raise InfeasibleError(self._stalled_message(norm))
                values = {m: sympy.Float(v, digits + 5) for m, v in zip(self.free, mp_point)}
        for multiplier, expression in self.substitution.items():
            values[multiplier] = sympy.Float(sympy.N(expression.subs(values), digits + 5), digits + 5)
        return values, notes

    # -- high precision ---------------------------------------------------------
    def _window(self, index: int, log_density: Any) -> list:
        """Integration points in the variable of ``_quad`` covering the density's bulk: the range is
        cut where the density has dropped below what the working precision can see."""
        piece = self.pieces[index]
        lower = mpmath.mpf(0) if piece.lower == 0 else mpmath.mpf(sympy.N(piece.lower, mpmath.mp.dps + 5))
        upper = None if piece.upper == oo else mpmath.mpf(sympy.N(piece.upper, mpmath.mp.dps + 5))
        log_space = self.log_space[index]
        if log_space:
            lo = -800.0 if lower == 0 else float(mpmath.log(lower))
            hi = 800.0 if upper is None else float(mpmath.log(upper))
        else:
            lo, hi = float(lower), float(upper)

        def value_at(u: float) -> float:
            try:
                value = float(log_density(mpmath.mpf(u)))
            except (ValueError, ZeroDivisionError, OverflowError, TypeError):
                return -math.inf
            return value if value == value else -math.inf

        grid = [lo + (hi - lo) * i / 800 for i in range(801)]
        values = [value_at(u) for u in grid]
        peak = max(range(len(grid)), key=values.__getitem__)
        drop = 2.4 * mpmath.mp.dps + 60.0
        left = next((grid[i] for i in range(peak, -1, -1) if values[i] < values[peak] - drop), None)
        right = next((grid[i] for i in range(peak, len(grid)) if values[i] < values[peak] - drop), None)
        # an end that is not cut stays exact: a double-precision log(upper) would
        # limit the whole quadrature to double precision
        if log_space:
            a = mpmath.mpf(left) if left is not None else (-mpmath.inf if lower == 0 else mpmath.log(lower))
            b = mpmath.mpf(right) if right is not None else (mpmath.inf if upper is None else mpmath.log(upper))
        else:
            a = mpmath.mpf(left) if left is not None else lower
            b = mpmath.mpf(right) if right is not None else upper
        points = [a, b]
        # the top of the peak between grid points, and its width: tanh-sinh needs to be told
        # where a narrow peak sits
        l_u, r_u = grid[max(peak - 1, 0)], grid[min(peak + 1, len(grid) - 1)]
        found = scipy.optimize.minimize_scalar(lambda u: -value_at(u), bounds=(l_u, r_u), method="bounded",
                                options={"xatol": 1e-12 * max(1.0, abs(r_u - l_u))})
        top = float(found.x) if math.isfinite(found.fun) else grid[peak]
        step = 1e-4 * max(abs(r_u - l_u), 1e-300)
        curvature = -(value_at(top + step) - 2 * value_at(top) + value_at(top - step)) / step ** 2
        extra = [top]
        if math.isfinite(curvature) and curvature > 0:
            width = 1 / math.sqrt(curvature)
            extra += [top + f * width for f in (-30, -10, -3, 3, 10, 30)]
        for u in extra:
            if a < u < b:
                points.append(mpmath.mpf(u))
        return sorted(set(points))

    def _piece_window(self, index: int, multipliers: Sequence) -> list:
        exponent = self.compiled["mpmath"][0][index]
        if self.log_space[index]:
            return self._window(index, lambda y: exponent(mpmath.exp(y), *multipliers) + y)
        return self._window(index, lambda k: exponent(k, *multipliers))

    def _vector_quad(self, index: int, window: list, integrands: Any, size: int) -> list:
        """Tanh-sinh quadrature of ``size`` integrands at once over one piece: ``integrands(k)``
        returns their values at a captime k, so the density is evaluated once per node for Z and
        every moment (mpmath's own ``quad`` would evaluate it once per integral).  The rule and its
        error estimate are mpmath's; each interval stops refining when every integral has settled
        to the working precision, relative to itself or to the first one (Z)."""
        rule = mpmath.mp._tanh_sinh
        prec = mpmath.mp.prec
        epsilon = mpmath.mp.eps / 8
        max_degree = rule.guess_degree(prec) + 1
        log_space = self.log_space[index]
        totals = [mpmath.mpf(0)] * size
        with mpmath.extraprec(20):
            for a, b in zip(window, window[1:]):
                if a == b:
                    continue
                results: list[list] = []
                for degree in range(1, max_degree + 1):
                    h = mpmath.mpf(2) ** (-degree)
                    sums = [r / (h * 2) for r in results[-1]] if results else [mpmath.mpf(0)] * size
                    for x, w in rule.get_nodes(a, b, degree, prec):
                        if log_space:
                            k = mpmath.exp(x)
                            values = integrands(k)
                            w = w * k
                        else:
                            values = integrands(x)
                        for i in range(size):
                            sums[i] += w * values[i]
                    results.append([h * v for v in sums])
                    if degree > 1 and all(
                            rule.estimate_error([r[i] for r in results], prec, epsilon)
                            <= epsilon * (abs(results[-1][i]) + abs(results[-1][0]))
                            for i in range(size)):
                        break
                totals = [t + r for t, r in zip(totals, results[-1])]
        return totals

    def moments(self, multipliers: Sequence, *, second: bool = True) -> tuple:
        """Z, E[g_i], and d E[g_i] / d mu_j for the free multipliers mu (mpmath)."""
        n, m = len(self.moment_terms), len(self.free)
        size = 1 + n + ((n * m + m) if second else 0)
        sums = [mpmath.mpf(0)] * size
        exponents, features_all, directions_all = self.compiled["mpmath"]
        for index, (exponent, features, directions) in enumerate(zip(exponents, features_all, directions_all)):
            def integrands(k: Any, exponent: Any = exponent, features: Any = features,
                           directions: Any = directions) -> list:
                density = mpmath.exp(exponent(k, *multipliers))
                if not density:
                    return [0] * size
                g = [feature(k) * density for feature in features]
                values = [density] + g
                if second:
                    h = [direction(k) for direction in directions]
                    values += [gi * hj for gi in g for hj in h] + [hj * density for hj in h]
                return values

            window = self._piece_window(index, multipliers)
            sums = [s + v for s, v in zip(sums, self._vector_quad(index, window, integrands, size))]
        total = sums[0]
        if not total > 0:
            raise ZeroDivisionError("the density integrates to zero")
        means = [value / total for value in sums[1:1 + n]]
        jacobian = None
        if second:
            mixed = sums[1 + n:1 + n + n * m]
            hmeans = [value / total for value in sums[1 + n + n * m:]]
            # d E[g_i] / d mu_j = -(E[g_i h_j] - E[g_i] E[h_j])
            jacobian = mpmath.matrix(n, m)
            for i in range(n):
                for j in range(m):
                    jacobian[i, j] = -(mixed[i * m + j] / total - means[i] * hmeans[j])
        return total, means, jacobian

    def residual(self, multipliers: Sequence) -> list:
        _, means, _ = self.moments(multipliers, second=False)
        return [mean - value for mean, value in zip(means, self.values)]

    def _merit(self, point: list) -> tuple[Any, Any]:
        total, means, _ = self.moments(point, second=False)
        norm = mpmath.norm([mean - value for mean, value in zip(means, self.values)])
        if self.substitution:
            return norm, norm
        return mpmath.log(total) + sum(p * v for p, v in zip(point, self.values)), norm

    def newton(self, point: list, *, tolerance: Any, iterations: int = 60) -> tuple[list, Any]:
        """Newton's method in mpmath at the working precision (the polish)."""
        point = [mpmath.mpf(v) for v in point]
        merit, norm = self._merit(point)
        for _ in range(iterations):
            if norm < tolerance:
                break
            _, means, jacobian = self.moments(point)
            residual = mpmath.matrix([mean - value for mean, value in zip(means, self.values)])
            try:
                step = mpmath.lu_solve(jacobian, -residual)
            except (ZeroDivisionError, TypeError):
                raise InfeasibleError(self._stalled_message(norm)) from None
            scale = mpmath.mpf(1)
            for _ in range(60):
                trial = [p + scale * s for p, s in zip(point, step)]
                if self.integrable(trial):
                    try:
                        trial_merit, trial_norm = self._merit(trial)
                    except (ValueError, ZeroDivisionError, OverflowError):
                        trial_merit = trial_norm = mpmath.inf
                    if trial_merit < merit or (trial_norm < norm and trial_merit <= merit):
                        point, merit, norm = trial, trial_merit, trial_norm
                        break
                scale /= 2
            else:
                break
        return point, norm

    def _polish_closed_form(self, point: list, partition: sympy.Expr, digits: int) -> dict | None:
        log_partition = sympy.log(partition.subs(self.substitution))
        equations = [sympy.diff(log_partition, m) + t.feature.value
                     for t, m in zip(self.moment_terms, self.moment_multipliers())]
        functions = [sympy.lambdify(self.free, eq, "mpmath") for eq in equations]
        try:
            with mpmath.workdps(digits + 15):
                root = mpmath.findroot(functions if len(functions) > 1 else functions[0],
                                       [mpmath.mpf(float(v)) for v in point] if len(point) > 1
                                       else mpmath.mpf(float(point[0])),
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
            for index, exponent in enumerate(exponents):
                window = self._piece_window(index, point)
                value = self._vector_quad(index, window, lambda k, e=exponent: [mpmath.exp(e(k, *point))], 1)[0]
                integrals.append(sympy.Float(value, digits + 5))
        return integrals

    def moment_multipliers(self) -> list:
        return [t.multiplier for t in self.moment_terms]


def _moments_reachable(problem: _NumericProblem) -> bool:
    """Whether some distribution on the support meets every moment condition: a linear program
    over point masses on a wide grid of captimes (scipy's HiGHS), its answer checked unscaled."""
    columns = []
    features = [sympy.lambdify((kappa,), t.feature.expr, "numpy") for t in problem.moment_terms]
    for piece, (a, b) in zip(problem.pieces, problem.ends):
        reference = math.sqrt(a * b) if a > 0 and b < math.inf else (b if b < math.inf else max(a, 1.0))
        lo = a if a > 0 else reference * 1e-6
        hi = b if b < math.inf else reference * 1e6
        points = np.geomspace(lo, hi, 1200)
        points = points[(points >= a) & (points < b)] if b < math.inf else points
        active = {id(t) for t in piece.terms}
        table = np.zeros((len(features), points.size))
        with np.errstate(all="ignore"):
            for row, (term, feature) in enumerate(zip(problem.moment_terms, features)):
                if id(term) in active:
                    table[row] = np.broadcast_to(np.asarray(feature(points), dtype=float), points.shape)
        columns.append(table)
    table = np.concatenate(columns, axis=1)
    table = table[:, np.all(np.isfinite(table), axis=0)]
    values = np.array([float(v) for v in problem.values])
    size = np.maximum(np.abs(values), 1.0)
    a_eq = np.vstack([table / size[:, None], np.ones(table.shape[1])])
    b_eq = np.concatenate([values / size, [1.0]])
    result = scipy.optimize.linprog(np.zeros(table.shape[1]), A_eq=a_eq, b_eq=b_eq, bounds=(0, None), method="highs")
    if result.status != 0:
        return False
    weights = np.clip(result.x, 0, None)
    return bool(np.all(np.abs(table @ weights - values) <= 1e-6 * size) and abs(weights.sum() - 1) < 1e-6)


# ---------------------------------------------------------------------------
# Multipliers at degenerate values: exactly 0, or exactly 1 on kappa**-lambda
# ---------------------------------------------------------------------------

def _positive_number(value: sympy.Expr) -> bool:
    """Whether value evaluates to a finite positive real number."""
    try:
        number = sympy.N(value, 30)
    except Exception:  # sympy cannot evaluate it
        return False
    return bool(number.is_real and number.is_finite and number > 0 and not number.has(sympy.I))


def _degenerate(value: sympy.Expr) -> bool:
    return bool(value.has(sympy.nan) or value.has(sympy.zoo) or value.has(sympy.oo) or value.has(-sympy.oo))


def _integral_at(integrand: sympy.Expr, piece: Piece, timeout: Deadline | float | None) -> sympy.Expr | None:
    try:
        with time_limit(timeout):
            value = integrate_piece(integrand, piece)
    except _SymbolicTimeout:
        return None
    except Exception:  # sympy could not integrate
        return None
    # unlike a piece of Z, a moment integral may well be 0 (E[log kappa] on [1/10, 10])
    return None if (value.has(sympy.Integral) or _degenerate(value)) else value


def _parts_at_root(pieces: list[Piece], parts: list[sympy.Expr], solution: dict,
                   timeout: Deadline | float | None) -> list[sympy.Expr] | None:
    """Z on each piece at a root.  The generic antiderivative of exp(-lambda g) divides by
    lambda (or by 1 - lambda for kappa**-lambda), so at lambda = 0 or 1 it is 0/0: those pieces
    are integrated again with the root put in first, where the integral of kappa**-1 is a log.
    None when that fails or the root does not satisfy the equations there."""
    at_root = [part.subs(solution) for part in parts]
    if not any(_degenerate(part) for part in at_root):
        return at_root
    verified = _verify_exact(pieces, _terms_of(pieces), solution, timeout)
    return verified


def _terms_of(pieces: list[Piece]) -> list[Term]:
    terms: list[Term] = []
    for piece in pieces:
        for term in piece.terms:
            if all(term is not other for other in terms):
                terms.append(term)
    return terms


def _verify_exact(pieces: list[Piece], terms: list[Term], solution: dict,
                  timeout: Deadline | float | None) -> list[sympy.Expr] | None:
    """Z on each piece at exact multipliers, if every multiplier equation holds exactly there."""
    parts, moments = [], {id(t): sympy.Integer(0) for t in terms}
    for piece in pieces:
        density = sympy.exp(piece.exponent.subs(solution))
        part = _integral_at(density, piece, timeout)
        if part is None or part == 0:
            return None
        parts.append(part)
        for term in piece.terms:
            if term.is_continuity:
                continue
            moment = _integral_at(term.feature.expr * density, piece, timeout)
            if moment is None:
                return None
            moments[id(term)] += moment
    total = sympy.Add(*parts)
    try:
        with time_limit(timeout):
            for term in terms:
                if term.is_continuity:
                    gap = _continuity_gap(term, pieces).subs(solution)
                else:
                    gap = moments[id(term)] - term.feature.value * total
                if sympy.simplify(gap) != 0:
                    return None
    except _SymbolicTimeout:
        return None
    return parts


def _recognise_exact(problem: "_NumericProblem", pieces: list[Piece], terms: list[Term],
                     multipliers: dict, digits: int, timeout: Deadline | float | None
                     ) -> tuple[dict, list | None] | None:
    """Numeric multipliers that are small fractions (0, 1, -1/2, ...) to all ``digits``, made exact.

    Returns None when none is; else the multipliers with those made exact, and the exact Z on
    each piece when every multiplier is exact and the equations hold exactly (else None, and
    the fractions are kept only if the quadrature residual stays below 10**-digits)."""
    candidate = dict(multipliers)
    changed = False
    # a value stated as a double is known to 2**-53 only: a multiplier that far from a fraction
    # (lambda = -2e-17 for SquaredLogDeviation(1.4142135623730951) on [0, 10], whose exact
    # sqrt(2) gives 0) is that fraction to the precision of the question
    floats = [v._prec for v in (t.feature.value for t in problem.moment_terms) if isinstance(v, sympy.Float)]
    tolerance = mpmath.mpf(10) ** -(digits - 3)
    if floats:
        tolerance = max(tolerance, mpmath.mpf(2) ** -(min(floats) - 4))
    sizes = dict(zip(problem.free, [1.0] * len(problem.free)))
    for term, size in zip(problem.moment_terms, problem._scales()):
        if term.multiplier in sizes:
            sizes[term.multiplier] = float(size)
    with mpmath.workdps(digits + 10):
        for multiplier in problem.free:
            value = mpmath.mpf(sympy.N(multipliers[multiplier], digits + 10))
            for denominator in range(1, 13):
                numerator = int(mpmath.nint(value * denominator))
                if abs(numerator) > 1000 * denominator:
                    break
                exact = sympy.Rational(numerator, denominator)
                distance = abs(value - mpmath.mpf(numerator) / denominator) * sizes[multiplier]
                if distance <= tolerance * 100 * max(1, abs(exact) * sizes[multiplier]):
                    candidate[multiplier] = exact
                    changed = True
                    break
    if not changed:
        return None
    for multiplier, expression in problem.substitution.items():
        candidate[multiplier] = expression.subs(candidate)
    if all(isinstance(value, sympy.Rational) for value in candidate.values()):
        parts = _verify_exact(pieces, terms, candidate, timeout)
        if parts is not None:
            return candidate, parts
    # not all exact: keep only the values where the generic integrals are 0/0 (0, and 1 on
    # kappa**-lambda); lambda = 100.000... for Support(0, 10), Mean(0.01) is not 100
    for multiplier in problem.free:
        if candidate[multiplier] not in (0, 1) or not isinstance(candidate[multiplier], sympy.Rational):
            candidate[multiplier] = multipliers[multiplier]
    if all(candidate[m] == multipliers[m] and type(candidate[m]) is type(multipliers[m]) for m in problem.free):
        return None
    for multiplier, expression in problem.substitution.items():
        candidate[multiplier] = expression.subs(candidate)
    with mpmath.workdps(digits + 10):
        try:
            residual = problem.residual([mpmath.mpf(sympy.N(candidate[m], digits + 10)) for m in problem.free])
        except (ValueError, ZeroDivisionError, OverflowError):
            return None
        scales = problem._scales()
        if max(abs(r) / s for r, s in zip(residual, scales)) > tolerance:
            return None
    return candidate, None



# ---------------------------------------------------------------------------
# Entry point
# ---------------------------------------------------------------------------

#: how the multipliers may be found: both routes, only the closed form, only numerics
METHODS = ("auto", "symbolic", "numeric")


def derive(*constraints: Constraint, timeout: float = DEFAULT_TIMEOUT, digits: int = 30,
           method: str = "auto") -> CaptimeDistribution:
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
        Significant digits of numerically solved multipliers: from 15 to ``MAX_DIGITS``;
        below 30 the multipliers are still solved to 30 digits.
    method : {"auto", "symbolic", "numeric"}, keyword-only
        ``"auto"`` tries the closed form first and falls back to numerics;
        ``"symbolic"`` raises :class:`~maxent_util.errors.NoClosedFormError`
        rather than fall back; ``"numeric"`` skips the symbolic attempt (the
        multipliers still come out exact when they are small fractions such
        as 0 or 1, checked exactly).

    Returns
    -------
    CaptimeDistribution
        The law: its pdf, CDF and survival function in closed form, the multipliers
        (exact or numeric, see ``closed_form``) and the derivation's steps.  Equal
        arguments give the same (cached, immutable) object.

    Raises
    ------
    ConstraintError
        For an argument that is not a constraint, two supports, constraints that do not
        fit the support, or an invalid ``timeout``, ``digits`` or ``method``.
    InfeasibleError
        If no distribution satisfies all the constraints at once.
    NotNormalizableError
        If the maximum-entropy density cannot be normalised (for instance an unbounded
        support with no moment), or the supremum of the entropy is not attained
        (:class:`~maxent_util.errors.MaximumNotAttainedError`).
    NoClosedFormError
        With ``method="symbolic"`` when sympy finds no closed form in time.
    TimeLimitError
        If the derivation does not finish within ``timeout``.

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
    if isinstance(digits, bool) or not isinstance(digits, (int, np.integer)):
        raise ConstraintError(argument_message("digits", "derive", "an integer (significant digits)", digits))
    if digits < 15:
        raise ConstraintError(argument_message("digits", "derive", "at least 15", digits))
    if digits > MAX_DIGITS:
        raise ConstraintError(argument_message(
            "digits", "derive", f"at most {MAX_DIGITS}", digits,
            "The cost of mpmath's quadratures grows steeply with the precision; beyond this "
            "they do not finish in reasonable time."))
    seconds = check_timeout(timeout, arg="timeout", owner="derive", error=ConstraintError)
    if method not in METHODS:
        raise ConstraintError(argument_message("method", "derive", "one of 'auto', 'symbolic', 'numeric'",
                                               method))
    return _derive_cached(tuple(constraints), seconds, int(max(digits, 30)), method)


@functools.lru_cache(maxsize=256)
def _derive_cached(constraints: tuple, timeout: float | None, digits: int, method: str = "auto"):
    deadline = Deadline(timeout)
    if timeout is None or alarm_usable():
        return _derive_within(constraints, deadline, digits, method)
    # off the main thread no alarm can interrupt sympy: a worker process that can be killed
    try:
        return run_bounded(_derive_within, constraints, deadline, digits, method,
                           deadline=deadline.extended(_GRACE))
    except _SymbolicTimeout:
        raise timed_out(f"derive({', '.join(map(repr, constraints))})", timeout) from None


def _derive_within(constraints: tuple, deadline: Deadline, digits: int, method: str = "auto"):
    """The derivation, every step bounded by ``deadline`` (alarms: call on a main thread)."""
    timeout = deadline.seconds
    try:
        with time_limit(deadline.extended(_GRACE)):
            return _derive_steps(constraints, deadline, digits, method)
    except _SymbolicTimeout:
        raise timed_out(f"derive({', '.join(map(repr, constraints))})", timeout) from None


def _derive_steps(constraints: tuple, deadline: Deadline, digits: int, method: str = "auto"):
    timeout = deadline.seconds
    support = support_of(constraints)
    terms, interior = make_terms(constraints, support)
    points, pieces = build_pieces(support, terms, interior)
    check_ranges(terms, support)
    stationary = stationary_density(pieces)
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
    symbolic = (deadline if free or timeout is None or method == "symbolic"
                else deadline.within(_SYMBOLIC_SHARE * timeout))
    if method != "numeric":  # method="numeric" skips the symbolic attempt
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

    notes: list[str] = []
    if solution is not None and parts is not None:
        # a root where the generic integral is 0/0 (lambda = 0, or 1 on kappa**-lambda): check it
        # with the integrals done at the root itself, else let the numeric route decide
        at_root = _parts_at_root(pieces, parts, solution, deadline)
        if at_root is None:
            solution = None
        else:
            parts = at_root
    if solution is None and method == "symbolic":
        raise NoClosedFormError(
            f"no closed form was found for the multipliers of {', '.join(map(repr, constraints))}"
            + ("" if timeout is None else f" within {timeout:g} s")
            + ". Suggestion: use method='auto' for the numeric route, or raise `timeout`.")
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
                multipliers, notes = problem.solve(digits, partition=partition)
        except _SymbolicTimeout:
            raise timed_out(f"the numeric solution for the multipliers of "
                            f"{', '.join(map(repr, constraints))}", timeout) from None
        closed_form = False
        method = "numeric (closed-form integrals)" if partition is not None else "numeric (quadrature)"
        recognised = _recognise_exact(problem, pieces, terms, multipliers, digits, deadline)
        if recognised is not None:
            multipliers, exact_parts = recognised
            if exact_parts is not None:
                parts, closed_form = exact_parts, True
                method = "symbolic (multipliers recognised from the numeric root, verified exactly)"
        if parts is not None and not closed_form and not all(
                _positive_number(part.subs(multipliers)) for part in parts):
            # the generic closed form can lose everything at a tiny multiplier (exp(1/(4 lambda))
            # with lambda = -2e-17): quadrature instead
            parts = None
        if parts is None:
            parts = problem.piece_integrals(multipliers, digits)
    relations = [sympy.Eq(eq, 0) for eq in equations]

    record = Derivation(support, record_terms, points, stationary, partition, relations, method, notes)
    # the last steps (simplifying, the cdf) get what is left: each gives up its cosmetic work in time
    return CaptimeDistribution._from_solution(constraints, support, pieces, terms, multipliers, parts,
                                              closed_form, record, timeout, deadline=deadline)


# ``maxent_util.derive`` is this function once the package re-exports it, so its cache is
# reachable from it: ``derive.cache_clear()`` (benchmarks, tests) and ``derive.cache_info()``
derive.cache_clear = _derive_cached.cache_clear  # type: ignore[attr-defined]
derive.cache_info = _derive_cached.cache_info  # type: ignore[attr-defined]


def _symbolic_partition(pieces: list[Piece], terms: list[Term]) -> list[sympy.Expr] | None:
    """Z on each piece in closed form, or None when sympy cannot integrate one."""
    parts = _partition_pieces(pieces)
    if any(is_unusable(part) for part in parts):
        bad = next(p for p, part in zip(pieces, parts) if is_unusable(part))
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
