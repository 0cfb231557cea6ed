"""The full route's double-precision search for the multipliers: a Gauss-Legendre rule placed
around each piece's peak, Newton's method from a grid of starts, and the integrability tests
that keep its steps where the density can be normalised (a part of
:class:`~maxent_util.maxent.numeric.NumericProblem`)."""

from __future__ import annotations

import itertools
import math
from typing import Any, Sequence

import numpy as np
import sympy

from ...errors import NotNormalizableError
from .precise import _integrability_tests

#: Gauss-Legendre nodes and weights of one panel of the double-precision quadrature
_GAUSS = np.polynomial.legendre.leggauss(20)
#: panels on each side of a density's peak, their widths doubling away from it (the first is
#: 2**-(_PANELS - 1) of the side): a narrow peak and a long power-law tail are both resolved
_PANELS = 26
#: the log-captime axis in double precision ends here (exp(+-700) is still a float)
_LOG_END = 700.0
#: the peak of a piece's log-density is found on its grid, then on _ZOOMS finer grids of
#: _ZOOM_POINTS points between the neighbours of the best point so far (to 2/32 of a step each)
_ZOOMS, _ZOOM_POINTS = 5, 33


def _unit_panels() -> tuple[np.ndarray, np.ndarray]:
    """Gauss-Legendre nodes and weights on [0, 1] in panels doubling away from 0 (the quadrature
    of one side of a peak is these, scaled by the side's signed length)."""
    x, w = _GAUSS
    edges = np.concatenate([[0.0], 2.0 ** np.arange(-_PANELS + 1, 1)])
    middle, half = (edges[1:] + edges[:-1]) / 2, (edges[1:] - edges[:-1]) / 2
    return (middle[:, None] + half[:, None] * x).ravel(), (half[:, None] * w).ravel()


_UNIT_NODES, _UNIT_WEIGHTS = _unit_panels()
#: where integrability is judged: kappa = 10**20, 10**40, 10**80 (and their inverses towards 0)
_PROBES = np.array([1e20, 1e40, 1e80])
_PROBE_SPAN = 40 * math.log(10)
_INVERSE_PROBES = 1 / _PROBES
_LOG_PROBES, _LOG_INVERSE_PROBES = np.log(_PROBES), np.log(_INVERSE_PROBES)


_ZOOM_STEPS = np.arange(_ZOOM_POINTS, dtype=float)


def _zoom_grid(start: float, stop: float) -> np.ndarray:
    """np.linspace(start, stop, _ZOOM_POINTS), the same numbers by numpy's own steps (an arange
    times (stop - start)/(points - 1), plus start, the last point set to stop) without its
    overhead, which the zoom of :meth:`NumericProblem._float_rule` pays thousands of times."""
    step = (stop - start) / (_ZOOM_POINTS - 1)
    if step == 0 or not math.isfinite(step):
        return np.linspace(start, stop, _ZOOM_POINTS)
    grid = _ZOOM_STEPS * step
    grid += start
    grid[-1] = stop
    return grid


def _shaped(values: Any, shape: tuple) -> np.ndarray:
    """A lambdified function's values as a float array of ``shape`` (a constant comes back as one
    number, broadcast)."""
    array = np.asarray(values, dtype=float)
    return array if array.shape == shape else np.broadcast_to(array, shape)


class Unsolved(Exception):
    """The double-precision solve found no root from any start (carries the best residual)."""

    def __init__(self, norm: float, boundary: bool):
        super().__init__(norm)
        self.norm = norm
        self.boundary = boundary


class DoublePrecision:
    """Double precision: the multipliers' root in floats (see :class:`NumericProblem`)."""

    def _float_integrable(self, point: list[float]) -> bool | None:
        """:meth:`integrable` in double precision, or None where floats cannot tell (a value
        overflows, or a test is too close to call): the solver asks this thousands of times."""
        exponents = self.compiled["numpy"][0]
        for open_ends, exponent in zip(self._open, exponents):
            for towards_infinity in open_ends:
                k, log_k = (_PROBES, _LOG_PROBES) if towards_infinity else (_INVERSE_PROBES, _LOG_INVERSE_PROBES)
                with np.errstate(all="ignore"):
                    try:
                        a, b, c = _shaped(exponent(k, *point), (3,)) + log_k
                    except (ValueError, ZeroDivisionError, OverflowError, TypeError):
                        return None
                if not np.all(np.isfinite([a, b, c])):
                    return None
                tests = _integrability_tests(a, b, c, towards_infinity, _PROBE_SPAN)
                # one decided by less than the rounding of its values is left to mpmath
                if any(abs(difference) < 1e-9 * (size + 1) for difference, size in tests):
                    return None
                if not all(difference > 0 for difference, _ in tests):
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
                value = _shaped(exponent(k, *point), u.shape)
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
        if index not in self._float_grids:
            self._float_grids[index] = np.linspace(lo, hi, 1601)
        grid = self._float_grids[index]
        values = log_density(grid)
        i = int(np.argmax(values))
        peak_u, peak_value = float(grid[i]), float(values[i])
        if not np.isfinite(peak_value):
            raise ZeroDivisionError("the density vanishes or overflows on a piece")
        # the grid may straddle a narrow peak (a log-normal with sigma = 0.01): zoom in on its top
        # by finer grids between the neighbours of the best point (vectorised: this runs for every
        # piece at every step of the solver, where a scalar minimiser cost as much as the rest)
        left, right = float(grid[max(i - 1, 0)]), float(grid[min(i + 1, grid.size - 1)])
        for _ in range(_ZOOMS):
            fine = _zoom_grid(left, right)
            fine_values = log_density(fine)
            j = int(np.argmax(fine_values))
            if np.isfinite(fine_values[j]) and fine_values[j] > peak_value:
                peak_u, peak_value = float(fine[j]), float(fine_values[j])
            left, right = float(fine[max(j - 1, 0)]), float(fine[min(j + 1, fine.size - 1)])
        drop = 60.0
        before = np.nonzero(values[:i] < peak_value - drop)[0]
        after = np.nonzero(values[i + 1:] < peak_value - drop)[0]
        start = float(grid[before[-1]]) if before.size else lo
        end = float(grid[i + 1 + after[0]]) if after.size else hi
        humps = [(peak_u, start, end)]
        # a second hump of the density within exp(-drop) of the peak (exp(19262 kappa) times
        # (kappa/kappa0)**-43 rises again at the piece's end) gets a rule of its own: cut off, it
        # left the moments wrong and Newton stalled
        outside = values >= peak_value - drop
        outside[(grid >= start) & (grid <= end)] = False
        others = np.flatnonzero(outside)
        for run in np.split(others, np.flatnonzero(np.diff(others) > 1) + 1):
            if run.size:
                top = int(run[np.argmax(values[run])])
                humps.append((float(grid[top]), float(grid[max(run[0] - 1, 0)]),
                              float(grid[min(run[-1] + 1, grid.size - 1)])))
        nodes, weights = [], []
        for top, left, right in humps:
            for side in (left - top, right - top):
                if side != 0:
                    nodes.append(top + side * _UNIT_NODES)
                    weights.append(abs(side) * _UNIT_WEIGHTS)
        return np.concatenate(nodes), np.concatenate(weights), peak_value

    def float_moments(self, point: Sequence, *, second: bool = True) -> tuple:
        """log Z, E[g_i] and d E[g_i] / d mu_j for the free multipliers mu, in double precision."""
        point = [float(v) for v in point]
        key = tuple(v.hex() for v in point)  # exact: 0.0 and -0.0 are not the same key
        if self._last_rules is not None and self._last_rules[0] == key:
            rules = self._last_rules[1]
        else:
            rules = [self._float_rule(i, point) for i in range(len(self.pieces))]
            self._last_rules = (key, rules)
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
                        table[row] = _shaped(function(k), k.shape)
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
                raise Unsolved(best_norm, boundary)
            candidates, tried_grid = self.starts(), True

    def entropy(self, point: Sequence) -> float:
        """log Z + sum_i lambda_i v_i at a root (the entropy of the density it gives)."""
        log_z, _, _ = self.float_moments(point, second=False)
        full = dict(zip(self.free, (float(v) for v in point)))
        for multiplier, expression in self.substitution.items():
            full[multiplier] = float(expression.subs(full))
        return float(log_z + sum(full[t.multiplier] * float(v) for t, v in zip(self.moment_terms, self.values)))
