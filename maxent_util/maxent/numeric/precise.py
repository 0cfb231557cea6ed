"""The full route's high-precision polish: mpmath's tanh-sinh rule over windows around each
piece's bulk, several integrals per node, and Newton's method at the working precision carried on
from the double-precision root (a part of :class:`~maxent_util.maxent.numeric.NumericProblem`)."""

from __future__ import annotations

import math
from typing import Any, Sequence

import mpmath
from mpmath.libmp import mpf_add, mpf_mul, mpf_mul_int
# scipy loads a submodule on first attribute access: `import maxent_util` and the
# command line start without paying for scipy.optimize until it is used
import scipy
import sympy

oo = sympy.oo


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



class HighPrecision:
    """mpmath: the polish of the root to the digits asked for (see :class:`NumericProblem`)."""

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
        before, at, after = value_at(top - step), value_at(top), value_at(top + step)
        curvature = -(after - 2 * at + before) / step ** 2
        extra = [top]
        if math.isfinite(curvature) and curvature > 0:
            width = 1 / math.sqrt(curvature)
            extra += [top + f * width for f in (-30, -10, -3, 3, 10, 30)]
        # a steep slope at the top (exp(10 kappa) on [3, 10]: 70 units of log density, the peak
        # at an end) is told too, where the density has fallen by e, e**3, ...: over the whole
        # piece at once tanh-sinh stopped at its last level 1e-4 short, and the polish went off
        slope = (after - before) / (2 * step)
        if math.isfinite(slope) and abs(slope) * (hi - lo) > 10:
            extra += [top + math.copysign(f, -slope) / abs(slope) for f in (1, 3, 10, 30, 100)]
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
            # next to the root the merit moves by the square of the residual, below the
            # quadrature's rounding: a step that shrinks the residual may not raise the merit by
            # more than that rounding (a strict test rejected the last step and halved it 60 times)
            slack = mpmath.mpf(10) ** (5 - mpmath.mp.dps) * (1 + abs(merit))
            for _ in range(60):
                trial = [p + scale * s for p, s in zip(point, step)]
                if self.integrable(trial):
                    try:
                        trial_merit, trial_norm = self._merit(trial)
                    except (ValueError, ZeroDivisionError, OverflowError):
                        trial_merit = trial_norm = mpmath.inf
                    if trial_merit < merit or (trial_norm < norm and trial_merit <= merit + slack):
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
