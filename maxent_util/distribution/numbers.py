"""A derived law's numbers: its survival function in double precision (from the fast route's
law) or by quadrature of its density (where sympy left the CDF as an integral), and the check
that a built closed form evaluates to those numbers (what :attr:`CaptimeDistribution.forms`
reports)."""

from __future__ import annotations

import math
from typing import Any

import mpmath
import numpy as np
import sympy

from ..errors import MaxEntError
from ..scorer import compile_scorer
from ..symbols import kappa, t

oo = sympy.oo


class _QuadratureLaw:
    """F and S of a law without parameters by mpmath quadrature of its closed-form density.

    Each piece's density is lambdified for mpmath; F(x) integrates from the piece's lower end
    to x and S(x) from x to its upper end (so neither loses digits to ``1 - F`` in a tail), the
    masses of the other pieces added; 20 digits, rounded to double precision.
    """

    DIGITS = 20

    def __init__(self, breakpoints: tuple, pdf_pieces: list) -> None:
        self.ends = [mpmath.inf if end == oo else mpmath.mpf(str(sympy.Float(end, 30)))
                     for end in breakpoints]
        self.densities = [sympy.lambdify(kappa, density, modules="mpmath") for density in pdf_pieces]
        self._masses: list | None = None

    def _integral(self, index: int, lower: Any, upper: Any) -> Any:
        if upper <= lower:
            return mpmath.mpf(0)
        density = self.densities[index]
        return mpmath.quad(lambda x: mpmath.re(density(x)), [lower, upper])

    def masses(self) -> list:
        if self._masses is None:
            with mpmath.workdps(self.DIGITS):
                self._masses = [self._integral(i, a, b)
                                for i, (a, b) in enumerate(zip(self.ends, self.ends[1:]))]
        return self._masses

    def _at(self, x: float, upper_tail: bool) -> float:
        if math.isnan(x):
            return math.nan
        masses = self.masses()
        with mpmath.workdps(self.DIGITS):
            point = mpmath.mpf(x)
            if point <= self.ends[0]:
                return 1.0 if upper_tail else 0.0
            if point >= self.ends[-1]:
                return 0.0 if upper_tail else 1.0
            index = max(i for i, end in enumerate(self.ends[:-1]) if point > end)
            if upper_tail:
                value = self._integral(index, point, self.ends[index + 1]) + mpmath.fsum(masses[index + 1:])
            else:
                value = mpmath.fsum(masses[:index]) + self._integral(index, self.ends[index], point)
            return float(min(max(value, 0), 1))

    def _vectorised(self, values: Any, upper_tail: bool) -> Any:
        array = np.asarray(values, dtype=float)
        unique, inverse = np.unique(array.ravel(), return_inverse=True)
        found = np.array([self._at(float(x), upper_tail) for x in unique], dtype=float)
        out = found[inverse].reshape(array.shape)
        return float(out) if out.ndim == 0 else out

    def cdf(self, values: Any) -> Any:
        """F at each value (floats or an array of floats)."""
        return self._vectorised(values, upper_tail=False)

    def sf(self, values: Any) -> Any:
        """S = 1 - F at each value, integrated over the upper tail itself."""
        return self._vectorised(values, upper_tail=True)


#: how far a closed form may be from the double-precision law at a check point (densities
#: relative to their value, probabilities absolute) and still be called that law's closed form
_AGREEMENT = 1e-8


def _check_points(numeric: Any) -> np.ndarray:
    """Runtimes spread over a double-precision law's support: across a finite one, and over
    decades of its mean on an infinite one."""
    low, high = (float(end) for end in numeric.support)
    if math.isfinite(high):
        return low + (high - low) * np.array([1e-3, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 0.999])
    scale = float(numeric.mean()) - low
    scale = scale if math.isfinite(scale) and scale > 0 else 1.0
    return low + scale * np.array([1e-3, 0.01, 0.1, 0.5, 1.0, 2.0, 5.0, 20.0])


def _disagreements(law: Any) -> dict[str, str]:
    """The parts of a built law (``"pdf"``, ``"cdf"``) that do not evaluate to its double-precision
    law at the check points, with the reason; kept on the law (the answer does not change)."""
    found = law.__dict__.get("_disagreements")
    if found is not None:
        return found
    numeric = law.numeric
    points = _check_points(numeric)
    found = {}
    for part, pieces, reference, relative in (("pdf", law._pdf_pieces, numeric.pdf, True),
                                              ("cdf", law._sf_pieces, numeric.sf, False)):
        if any(piece.has(sympy.Integral) for piece in pieces):
            if part == "pdf":
                found[part] = "the density holds an unevaluated integral"
            continue  # the CDF is then "numeric quadrature", as it says
        expr = law._piecewise(pieces, t, 0 if part == "pdf" else 1, 0)
        try:
            closed = np.asarray(compile_scorer(expr)(points), dtype=float)
        except MaxEntError as error:
            found[part] = f"its closed form cannot be evaluated ({error})"
            continue
        expected = np.asarray(reference(points), dtype=float)
        gap = np.abs(closed - expected)
        allowed = _AGREEMENT * (np.abs(expected) if relative else 1.0) + 1e-300
        bad = ~(gap <= allowed)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            found[part] = (f"its closed form gives {closed[i]!r} at {points[i]!r} where the law "
                           f"gives {expected[i]!r}")
    object.__setattr__(law, "_disagreements", found)
    return found


def _double_precision_sf(numeric: Any) -> Any:
    """S(t) of float runtimes from a double-precision law: a float for a scalar."""
    def survival(runtimes: Any) -> Any:
        out = numeric.sf(np.asarray(runtimes, dtype=float))
        return float(out) if np.ndim(out) == 0 else out
    # runtimes a call may take at once: where every segment's tails are written out, any number
    # (the law streams over them in blocks of its own, straight into its output); else the
    # quadrature's twenty nodes a runtime bound it (None: the scorer's default)
    survival.block = math.inf if numeric._written_segments().all() else None
    return survival
