"""The numeric route: the multipliers by Newton's method in double precision, polished with mpmath to the digits asked for."""


from __future__ import annotations

import itertools
import math
from typing import Any, Sequence

import mpmath
import numpy as np
from mpmath.libmp import mpf_add, mpf_mul, mpf_mul_int
import sympy

from ..errors import InfeasibleError, MaximumNotAttainedError, NotNormalizableError
from ..expressions import numpy_modules
from ..problem import Piece, Term
from ..symbols import kappa
# scipy loads a submodule on first attribute access: `import maxent_util` and the
# command line start without paying for scipy.optimize until it is used
import scipy
from .symbolic import continuity_gap

oo = sympy.oo


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
#: a piece spanning more than this factor is integrated in log(kappa), like a piece reaching 0 or oo
_WIDE = 20


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


def _float_log(value: float) -> float:
    return math.log(value) if value > 0 else -math.inf


def _open_ends(piece: Piece) -> list[bool]:
    """The ends of a piece where integrability is in question: True for infinity, False for 0."""
    return [end for end, reaches in ((True, piece.upper == oo), (False, piece.lower == 0)) if reaches]


def _integrability_tests(a: Any, b: Any, c: Any, towards_infinity: bool, span: Any) -> list[tuple]:
    """(difference, size of the values it comes from) pairs, each difference positive where the
    density is integrable at that end, from its log a, b, c at kappa = 10**20, 10**40, 10**80 (or
    their inverses towards 0) and span = log(10**40): towards infinity it must fall faster than
    1/kappa and keep falling, towards 0 grow slower than 1/kappa."""
    if towards_infinity:
        # slope (c - b)/span < -1e-6, and c < b < a + 1
        return [(-1e-6 * span - (c - b), abs(b) + abs(c)), (b - c, abs(b) + abs(c)),
                (a + 1 - b, abs(a) + abs(b) + 1)]
    # slope (b - c)/span > 1e-6
    return [((b - c) - 1e-6 * span, abs(b) + abs(c))]


def _weighted_sums(sums: list, nodes: Any, integrands: Any, log_space: bool) -> list:
    """``sums[i] + sum of w * integrands(k)[i]`` over the nodes (x, w) of one degree of the
    tanh-sinh rule (k = exp(x) and w times k in log space), at the working precision.

    The products and sums are mpmath's own operations on the raw values (libmp's mpf_mul and
    mpf_add, which mpf's ``*`` and ``+`` call), bit for bit the same numbers without building an
    mpf object for each; a value that is neither real nor an integer (a complex one) is summed as
    mpf objects."""
    prec, rounding = mpmath.mp._prec_rounding
    raw = [s._mpf_ for s in sums]
    nodes = iter(nodes)
    for x, w in nodes:
        values, w = _node_values(x, w, integrands, log_space)
        weight = w._mpf_
        terms = []
        for value in values:
            if hasattr(value, "_mpf_"):
                terms.append(mpf_mul(weight, value._mpf_, prec, rounding))
            elif type(value) is int:
                terms.append(mpf_mul_int(weight, value, prec, rounding))
            else:
                return _weighted_sums_generic([mpmath.mp.make_mpf(v) for v in raw], w, values, nodes,
                                              integrands, log_space)
        raw = [mpf_add(s, term, prec, rounding) for s, term in zip(raw, terms)]
    return [mpmath.mp.make_mpf(v) for v in raw]


def _node_values(x: Any, w: Any, integrands: Any, log_space: bool) -> tuple[list, Any]:
    """The integrands at the node x and its weight: at k = exp(x), weight w times k, in log space."""
    if log_space:
        k = mpmath.exp(x)
        return integrands(k), w * k
    return integrands(x), w


def _weighted_sums_generic(sums: list, w: Any, values: list, nodes: Any, integrands: Any,
                           log_space: bool) -> list:
    """:func:`_weighted_sums` from a node of weight ``w`` on (whose ``values`` are in hand), with
    mpmath numbers of any kind."""
    while True:
        sums = [s + w * v for s, v in zip(sums, values)]
        try:
            x, w = next(nodes)
        except StopIteration:
            return sums
        values, w = _node_values(x, w, integrands, log_space)


class Unsolved(Exception):
    """The double-precision solve found no root from any start (carries the best residual)."""

    def __init__(self, norm: float, boundary: bool):
        super().__init__(norm)
        self.norm = norm
        self.boundary = boundary


class NumericProblem:
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
        #: the double-precision rules of the last point asked for (see float_moments) and the
        #: mpmath windows and node values of the last point (see moments): Newton's methods judge a
        #: trial point by its moments and then take the next step from it, at the same point
        self._last_rules: tuple | None = None
        self._last_nodes: tuple | None = None
        #: the moment values as floats and the feature sizes, for the values they were computed
        #: from (the scan of _continuity_roots changes one value)
        self._float_sizes: tuple | None = None
        #: per piece, the ends where integrability is in question (see _open_ends), and the grid
        #: of the double-precision rule (see _float_rule), which depends on the piece alone
        self._open = [_open_ends(piece) for piece in self.pieces]
        self._float_grids: dict[int, np.ndarray] = {}
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
            decided = self._float_integrable([float(v) for v in multipliers])
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
                    # the double-precision root was not one (a density normalisable only on
                    # the truncated axis of double precision)
                    raise self.no_root(norm)
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
                    sums = _weighted_sums(sums, rule.get_nodes(a, b, degree, prec), integrands, log_space)
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
        # the windows and the density and moment features at each node are those of the last
        # call when it was at the same point and precision (Newton's merit, then its step)
        key = (mpmath.mp.prec, tuple(multipliers))
        if self._last_nodes is None or self._last_nodes[0] != key:
            self._last_nodes = (key, {}, {})
        _, windows, known = self._last_nodes
        for index, (exponent, features, directions) in enumerate(zip(exponents, features_all, directions_all)):
            def integrands(k: Any, exponent: Any = exponent, features: Any = features,
                           directions: Any = directions, index: int = index) -> list:
                found = known.get((index, k))
                if found is None:
                    density = mpmath.exp(exponent(k, *multipliers))
                    found = known[index, k] = (density, [feature(k) * density for feature in features]
                                               if density else [])
                density, g = found
                if not density:
                    return [0] * size
                values = [density] + g
                if second:
                    h = [direction(k) for direction in directions]
                    values += [gi * hj for gi in g for hj in h] + [hj * density for hj in h]
                return values

            if index not in windows:
                windows[index] = self._piece_window(index, multipliers)
            window = windows[index]
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
                raise self.no_root(norm) from None
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
