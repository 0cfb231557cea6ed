"""The full route's double-precision search for the multipliers: the fast solver's quadrature
and Newton's method (:mod:`maxent_util.maxent.fast`) on the pieces' features, with the
continuity conditions as linear relations between the multipliers, from a grid of starts (a part
of :class:`~maxent_util.maxent.numeric.NumericProblem`)."""

from __future__ import annotations

import dataclasses
import itertools
import math
from typing import Any, Sequence

import numpy as np
import sympy

from ...constraints import LogMoment, Support
from ...errors import MaxEntError, NotNormalizableError
from ...expressions import numpy_modules
from ...symbols import kappa
from ..fast import FastProblem, _Feature, fast_problem

#: the forms of a feature the fast solver reads exactly (its integrability at 0 and oo is then
#: decided from its coefficients): c0 + a kappa + a2 kappa**2 + b log(kappa) + d log(kappa)**2
_FORMS = {(0, 0): "e", (1, 0): "a", (2, 0): "a2", (0, 1): "b", (0, 2): "d"}


def _fast_feature(expr: sympy.Expr, value: float, lower: float, upper: float) -> _Feature:
    """A term's feature on its region as the fast solver's: by its coefficients when it is of
    one of the forms in _FORMS, else compiled for numpy."""
    log = sympy.Dummy("log_kappa")
    try:
        form = sympy.expand(sympy.expand_log(expr, force=True).subs(sympy.log(kappa), log))
        poly = sympy.Poly(form, kappa, log)
        coefficients = {_FORMS[monomial]: float(c) for monomial, c in poly.terms()}
        return _Feature(value, lower, upper, **coefficients)
    except (KeyError, TypeError, ValueError, sympy.PolynomialError):
        function = sympy.lambdify(kappa, expr, numpy_modules(expr))

        def extra(k: np.ndarray) -> np.ndarray:
            with np.errstate(all="ignore"):
                return np.broadcast_to(np.asarray(function(k), dtype=float), np.shape(k))
        return _Feature(value, lower, upper, extra=extra)


def _one_sided(constraint: Any) -> bool:
    """Whether ``constraint`` is a log moment on one side of its point."""
    return type(constraint) is LogMoment and constraint.arguments["side"] is not None


class Unsolved(Exception):
    """The double-precision solve found no root from any start (carries the best residual)."""

    def __init__(self, norm: float, boundary: bool):
        super().__init__(norm)
        self.norm = norm
        self.boundary = boundary


class DoublePrecision:
    """Double precision: the multipliers' root in floats (see :class:`NumericProblem`)."""

    def _fast_problem(self) -> FastProblem:
        """The fast solver's problem of every term (the continuity terms' indicators included),
        its values the current ones, and the linear map from the free multipliers to all."""
        if self._fast is None:
            ends = sorted({piece.lower for piece in self.pieces} | {piece.upper for piece in self.pieces},
                          key=lambda end: math.inf if end == sympy.oo else float(end))
            ends = [math.inf if end == sympy.oo else float(end) for end in ends]
            # a log moment on one side of its point is conditional on that side (see _Feature)
            features = tuple(dataclasses.replace(_fast_feature(t.feature.expr, 0.0, ends[t.lower_index],
                                                               ends[t.upper_index]),
                                                 conditional=_one_sided(t.constraint)) for t in self.terms)
            scales = sorted({e for e in ends if 0 < e < math.inf} | {abs(float(v)) for v in self.values
                                                                         if 0 < abs(float(v)) < math.inf})
            problem = FastProblem(self.ends[0][0], self.ends[-1][1], features, tuple(scales))
            multipliers = [t.multiplier for t in self.terms]
            basis = np.zeros((len(multipliers), len(self.free)))
            for j, free in enumerate(self.free):
                basis[multipliers.index(free), j] = 1.0
                for multiplier, expression in self.substitution.items():
                    basis[multipliers.index(multiplier), j] = float(sympy.diff(expression, free))
            rows = np.array([multipliers.index(t.multiplier) for t in self.moment_terms], dtype=int)
            self._fast = (problem, basis, rows)
        problem, basis, rows = self._fast
        problem.values = np.zeros(len(self.terms))
        problem.values[rows] = self._float_values()
        return problem

    def full_multipliers(self, point: Sequence) -> np.ndarray:
        """Every term's multiplier (in the order of the terms) from the free ones."""
        self._fast_problem()
        return self._fast[1] @ np.array([float(v) for v in point])

    def float_moments(self, point: Sequence, *, second: bool = True) -> tuple:
        """log Z, E[g_i] and d E[g_i] / d mu_j for the free multipliers mu, in double precision."""
        problem = self._fast_problem()
        _, basis, rows = self._fast
        found = problem.at(basis @ np.array([float(v) for v in point]))
        if found is None:
            raise ZeroDivisionError("the density does not integrate to a positive number")
        log_z, means, covariance, _ = found[1]
        return log_z, means[rows], (-(covariance[rows] @ basis) if second else None)

    def _value_arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """The moment values as floats and the natural size of each feature, computed once for
        the current values (the double-precision solver asks for them at every step)."""
        key = tuple(self.values)
        if self._float_sizes is None or self._float_sizes[0] != key:
            floats = np.array([float(v) for v in self.values])
            scales = np.array([max(abs(float(v)), 1.0) if t.feature.expr.has(sympy.log) or float(v) == 0
                               else abs(float(v)) for t, v in zip(self.moment_terms, self.values)])
            self._float_sizes = (key, floats, scales)
        return self._float_sizes[1].copy(), self._float_sizes[2].copy()

    def _float_values(self) -> np.ndarray:
        return self._value_arrays()[0]

    def _scales(self) -> np.ndarray:
        """A natural size of each moment feature: residuals and starting multipliers are measured in it."""
        return self._value_arrays()[1]

    def float_newton(self, point: Sequence, *, tolerance: float = 1e-11, iterations: int = 80) -> tuple:
        """Newton's method in double precision from ``point``: (point, scaled residual norm,
        whether a step was refused because the density stopped being integrable)."""
        problem = self._fast_problem()
        _, basis, rows = self._fast
        return problem.equations_root(np.array([float(v) for v in point]), basis, rows, self._scales(),
                                      tolerance=tolerance, iterations=iterations)

    def starts(self, count: int = 3) -> list:
        """Integrable starting points of lowest merit, multipliers in units of 1/(feature size)."""
        m = len(self.free)
        # the last two reach where a feature's scale understates its multiplier: on [11700, oo)
        # E[log kappa] = 11.6 needs kappa**-1.45, past 10/11.6 in units of the value
        base = [0, 0.1, -0.1, 1, -1, 0.01, 10, -10, 0.5, 2, 100, -100]
        per_axis = max(2, min(len(base), int(round(500 ** (1 / m))))) if m else 1
        sizes = np.ones(m)
        scales = self._scales()
        for j, multiplier in enumerate(self.free):
            for term, size in zip(self.moment_terms, scales):
                if term.multiplier == multiplier:
                    sizes[j] = size
        if self._grid_moments is None:
            # integrability, log Z and the moments at a point do not depend on the moment values:
            # the scan over P(kappa < kappa0) (the only caller that changes them) reuses them
            self._grid_moments = []
            for point in (np.array(p, dtype=float) / sizes for p in itertools.product(base[:per_axis], repeat=m)):
                if not self.integrable(point):
                    continue
                try:
                    log_z, means, _ = self.float_moments(point, second=False)
                except (ValueError, ZeroDivisionError, OverflowError, FloatingPointError):
                    continue
                self._grid_moments.append((point, log_z, means))
        values = self._float_values()
        scored = []
        for point, log_z, means in self._grid_moments:
            # the merit of _float_merit, from the stored moments
            norm = float(np.linalg.norm((means - values) / scales))
            merit = norm if self.substitution else float(log_z + point @ values)
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
                last = self._dual_start()
                if last is not None:
                    try:
                        point, norm, _ = self.float_newton(last)
                    except (ValueError, ZeroDivisionError, OverflowError, FloatingPointError):
                        norm = math.inf
                    if norm < 1e-9:
                        return point
                raise Unsolved(best_norm, boundary)
            candidates, tried_grid = self.starts(), True

    def _dual_start(self) -> np.ndarray | None:
        """The last start: the fast route's law of the same constraints (Newton on the dual),
        where the equations' own starts found no root; a root whose side of a one-sided log
        moment holds 1e-26 of the mass lies far from all of them.  None where the fast route has
        no law, or its multipliers are not this problem's one to one (a continuity condition, an
        inequality), and for sets without a one-sided log moment (the grid's starts serve them)."""
        if (self.substitution or not any(_one_sided(t.constraint) for t in self.terms)
                or any(t.is_continuity or t.constraint.relation != "==" for t in self.terms)):
            return None
        constraints = (Support(self.pieces[0].lower, self.pieces[-1].upper), *(t.constraint for t in self.terms))
        try:
            problem = fast_problem(constraints)
            law = None if problem is None else problem.solve()
        except MaxEntError:
            return None
        if law is None or len(law.multipliers) != len(self.free):
            return None
        return np.array(law.multipliers, dtype=float)

    def entropy(self, point: Sequence) -> float:
        """log Z + sum_i lambda_i v_i at a root (the entropy of the density it gives)."""
        log_z, _, _ = self.float_moments(point, second=False)
        full = dict(zip(self.free, (float(v) for v in point)))
        for multiplier, expression in self.substitution.items():
            full[multiplier] = float(expression.subs(full))
        return float(log_z + sum(full[t.multiplier] * float(v) for t, v in zip(self.moment_terms, self.values)))
