"""The numeric route: the multipliers by Newton's method in double precision, polished with mpmath to the digits asked for.

:class:`NumericProblem` holds the terms and their compiled functions, the continuity conditions
and the choice of root; its double-precision search (:mod:`.double`) and its mpmath polish
(:mod:`.precise`) are parts of their own."""


from __future__ import annotations

import math
from typing import Any, Callable, Sequence

import mpmath
import numpy as np
import sympy

from ...errors import InfeasibleError, MaximumNotAttainedError, NotNormalizableError
from ...expressions import numpy_modules
from ...problem import Piece, Term
from ...symbols import kappa
# scipy loads a submodule on first attribute access: `import maxent_util` and the
# command line start without paying for scipy.optimize until it is used
import scipy
from ..symbolic import continuity_gap
from .double import DoublePrecision, Unsolved
from .precise import HighPrecision, _integrability_tests, _weighted_sums

__all__ = ["NumericProblem", "Unsolved", "moments_reachable", "_weighted_sums"]

oo = sympy.oo


#: a piece spanning more than this factor is integrated in log(kappa), like a piece reaching 0 or oo
_WIDE = 20

def _open_ends(piece: Piece) -> list[bool]:
    """The ends of a piece where integrability is in question: True for infinity, False for 0."""
    return [end for end, reaches in ((True, piece.upper == oo), (False, piece.lower == 0)) if reaches]


class NumericProblem(DoublePrecision, HighPrecision):
    """Multiplier equations evaluated by quadrature.

    ``fixed`` maps the multiplier of a :class:`ContinuousAt` term to a value
    p: that term is then the moment P(kappa < kappa0) = p instead of a
    continuity condition (the inner problem of :meth:`_continuity_roots`).
    Other continuity conditions are linear in the multipliers and eliminate
    one multiplier each (``substitution``).

    Two quadratures: the fast solver's Gauss-Legendre panels in double precision (the search
    for the root, :mod:`.double`) and mpmath's tanh-sinh (the polish to ``digits``).  Both
    integrate pieces that reach 0 or infinity, or span a wide range, in y = log(kappa), where
    power laws and exponentials decay alike, and both cut each piece where the density has
    dropped below what the precision can see.
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
            gap = continuity_gap(term, pieces).subs(substitution)
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
        #: the grid of starting points with each point's log Z and moments (see starts)
        self._grid_moments: list | None = None
        #: the mpmath windows and node values of the last point (see moments): Newton's method
        #: judges a trial point by its moments and then takes the next step from it, at the same point
        self._last_nodes: tuple | None = None
        #: the moment values as floats and the feature sizes, for the values they were computed
        #: from (the scan of _continuity_roots changes one value)
        self._float_sizes: tuple | None = None
        #: the fast solver's problem of the terms, the map from the free multipliers to all and
        #: the terms that are moment conditions (see _fast_problem)
        self._fast: tuple | None = None
        #: per piece, the ends where integrability is in question (see _open_ends)
        self._open = [_open_ends(piece) for piece in self.pieces]
        for backend in ("mpmath", "numpy"):
            exponents, features, directions = [], [], []
            for piece in self.pieces:
                exponent = piece.exponent.subs(self.substitution)
                exponents.append(sympy.lambdify(args, exponent, _modules(backend, exponent)))
                active = {id(t) for t in piece.terms}
                # per piece: each moment feature (0 where its region does not reach)
                features.append([sympy.lambdify((kappa,), t.feature.expr if id(t) in active else 0,
                                                _modules(backend, t.feature.expr))
                                 for t in self.moment_terms])
                # per piece: how the exponent moves with each free multiplier
                directions.append([sympy.lambdify((kappa,), -sympy.diff(exponent, m),
                                                  _modules(backend, exponent))
                                   for m in self.free])
            self.compiled[backend] = (exponents, features, directions)

    # -- integrability ----------------------------------------------------
    def integrable(self, multipliers: Sequence) -> bool:
        """Whether the density at these multipliers can be normalised: it must fall faster than
        1/kappa towards infinity and grow slower than 1/kappa towards 0, judged from its log at
        kappa = 10**(+-20), 10**(+-40) and 10**(+-80)."""
        if not any(isinstance(v, mpmath.mpf) for v in multipliers):
            # the fast solver's exact reading of the exponent's leading terms, where it has one
            decided = self._fast_problem().integrable(self.full_multipliers(multipliers))
            if decided is not None:
                return decided
        exponents = self.compiled["mpmath"][0]
        multipliers = [mpmath.mpf(float(v)) if not isinstance(v, mpmath.mpf) else v for v in multipliers]
        with mpmath.workdps(20):
            span = 40 * mpmath.log(10)
            for open_ends, exponent in zip(self._open, exponents):
                for towards_infinity in open_ends:
                    try:
                        a, b, c = (exponent(k, *multipliers) + mpmath.log(k)
                                   for k in (mpmath.mpf(10) ** (e if towards_infinity else -e)
                                             for e in (20, 40, 80)))
                        if not (mpmath.isfinite(c) and all(
                                difference > 0 for difference, _ in
                                _integrability_tests(a, b, c, towards_infinity, span))):
                            return False
                    except (ValueError, ZeroDivisionError, OverflowError, TypeError):
                        return False
        return True

    # -- several stationary points: the continuity conditions ---------------
    def _continuity_roots(self) -> list[tuple[float, dict]]:
        """Every root found of the one continuity condition, as (entropy, multipliers).

        With the probability p = P(kappa < kappa0) fixed, the rest is a convex
        dual with one root; the continuity condition is then one equation in p,
        whose sign changes are bracketed on a grid of logit(p) and refined by
        Brent's method.  It can have several roots.
        """
        term = self.continuity_terms[0]
        inner = NumericProblem(self.pieces, self.terms, fixed={term.multiplier: 0.5})
        index = [t.multiplier for t in inner.moment_terms].index(term.multiplier)
        gap = sympy.lambdify(inner.free, continuity_gap(term, self.pieces), "math")
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
            except (Unsolved, NotNormalizableError, ZeroDivisionError, ValueError):
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
                except (Unsolved, NotNormalizableError, ZeroDivisionError, ValueError, RuntimeError):
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
        except Unsolved as unsolved:
            raise self.no_root(unsolved.norm) from None

    def no_root(self, norm: Any) -> Exception:
        """The error for multiplier equations without a root: some distribution meets every
        moment condition (a linear program over point masses finds one) and the supremum of the
        entropy is not attained, or none does and the set is infeasible."""
        if self.substitution or not moments_reachable(self):
            return InfeasibleError(self._stalled_message(norm))
        ends = [end for end, open_ in (("0", self.pieces[0].lower == 0), ("oo", self.pieces[-1].upper == oo))
                if open_]
        towards = " or ".join(f"kappa -> {end}" for end in ends) or "an end of the support"
        return MaximumNotAttainedError(
            f"the constraints {', '.join(repr(t.constraint) for t in self.terms)} can all hold "
            "(a distribution concentrated on a few points meets them), but no density of the "
            "maximum-entropy form exp(-sum_i lambda_i g_i) does: the entropy has a supremum that no "
            "distribution attains. The laws that approach it are the maximum-entropy law at the edge "
            "of the region where the density can be normalised (the multipliers' limit), with a "
            f"share of its mass that vanishes moved ever further towards {towards}, where a feature "
            f"grows without bound (best residual {float(norm):.3g}). Suggestion: bound the support, "
            "or state a constraint that controls the tail.")

    def solve(self, digits: int, partition: sympy.Expr | None = None,
              exact: Callable[[np.ndarray], dict | None] | None = None) -> tuple[dict, list[str]]:
        """Multipliers to ``digits`` significant digits, and notes on the choice of root.

        A double-precision Newton run finds the root (several starts; with a
        continuity condition, every root, keeping the one of largest entropy);
        it is polished with mpmath, on the closed-form equations
        d log Z / d lambda when sympy could integrate Z, else on
        high-precision quadratures.  ``exact``, given the double-precision root, may return
        the exact root instead (see :func:`~maxent_util.maxent.exact.exact_double_root`),
        which is then not polished.
        """
        point, notes = self.float_root()
        if exact is not None:
            found = exact(point)
            if found is not None:
                return found, notes
        values = None
        if partition is not None:
            values = self._polish_closed_form(list(point), partition, digits)
        if values is None:
            with mpmath.workdps(digits + 10):
                mp_point, norm = self.newton([mpmath.mpf(float(v)) for v in point],
                                             tolerance=mpmath.mpf(10) ** -(digits + 2), iterations=12)
                if not norm < mpmath.mpf(10) ** -(digits - 2):
                    # the double-precision root was not one (a density normalisable only on
                    # the truncated axis of double precision)
                    raise self.no_root(norm)
                values = {m: sympy.Float(v, digits + 5) for m, v in zip(self.free, mp_point)}
        for multiplier, expression in self.substitution.items():
            values[multiplier] = sympy.Float(sympy.N(expression.subs(values), digits + 5), digits + 5)
        return values, notes

    def moment_multipliers(self) -> list:
        return [t.multiplier for t in self.moment_terms]


def _modules(backend: str, expr: sympy.Expr) -> Any:
    return numpy_modules(expr) if backend == "numpy" else backend


def moments_reachable(problem: NumericProblem) -> bool:
    """Whether some distribution on the support meets every moment condition: a linear program
    over point masses on a wide grid of captimes (scipy's HiGHS), its answer checked unscaled."""
    columns = []
    features = [sympy.lambdify((kappa,), t.feature.expr, numpy_modules(t.feature.expr))
                for t in problem.moment_terms]
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
