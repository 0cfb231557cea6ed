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

from .._reference import agree
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


#: digits of the mpmath evaluation a law's written-out survival function is checked against
_REFERENCE_DIGITS = 30


def _written_share(numeric: Any, segment: int, x: float) -> Any:
    """S at a captime ``x`` inside ``segment`` of a law whose tails there are written out, in
    mpmath at :data:`_REFERENCE_DIGITS` digits: the law's own masses and c1, and the integral of
    exp(c1 u) over [u, end] over its integral over the segment in closed form,
    exp(c1 a) expm1(c1 (b - a)) / c1 from the part's lower end a (the double-precision route
    starts from the end where the density is largest, and divides in another order)."""
    ends = numeric.problem.ends
    c1 = mpmath.mpf(float(numeric._c1[segment]))

    def u(value: Any) -> Any:
        value = mpmath.mpf(float(value))
        return mpmath.log(value) if numeric._in_log[segment] else value

    def integral(a: Any, b: Any) -> Any:
        if c1 == 0:
            return b - a
        if not mpmath.isfinite(a):  # u = log(kappa) from kappa = 0, where the density's c1 > 0
            return mpmath.exp(c1 * b) / c1
        return mpmath.exp(c1 * a) * (mpmath.expm1(c1 * (b - a)) if mpmath.isfinite(b) else -1) / c1

    low, high = u(ends[segment]), u(ends[segment + 1])
    share = integral(u(x), high) / integral(low, high)
    return mpmath.mpf(float(numeric._segment_after[segment])) + mpmath.mpf(float(numeric._segment_mass[segment])) * share


def _check_written(numeric: Any, survival: Any) -> None:
    """Before a law's written-out survival function values anything: at its check points and
    beside the ends of its segments, against :func:`_written_share` in mpmath (the scorer's
    agreement, 1e-9), in [0, 1] and non-increasing; once a law. Raises MaxEntError."""
    if numeric.__dict__.get("_survival_checked"):
        return
    low, high = (float(end) for end in numeric.support)
    ends = [float(end) for end in numeric.problem.ends if math.isfinite(end) and end > 0]
    points = np.unique(np.concatenate([_check_points(numeric), [end * f for end in ends for f in (1 - 1e-6, 1 + 1e-6)]]))
    points = points[(points > low) & (points < high)]
    values = np.asarray(survival(points), dtype=float)
    segments = np.clip(np.searchsorted(numeric.problem.ends, points, side="right") - 1,
                       0, len(numeric.problem.start) - 1)
    with mpmath.workdps(_REFERENCE_DIGITS):
        reference = np.array([float(_written_share(numeric, int(s), float(x))) for s, x in zip(segments, points)])
    good = agree(values, reference) & (values >= 0) & (values <= 1)
    good[1:] &= np.diff(values) <= 1e-15  # S does not rise (beyond rounding)
    if not good.all():
        i = int(np.flatnonzero(~good)[0])
        raise MaxEntError(f"the law's survival function gives {values[i]!r} at t = {points[i]!r}, but mpmath at "
                          f"{_REFERENCE_DIGITS} digits gives {reference[i]!r} (or the values are not in [0, 1] "
                          "and falling). Suggestion: report it with this message.")
    numeric.__dict__["_survival_checked"] = True


def _double_precision_sf(numeric: Any) -> Any:
    """S(t) of float runtimes from a double-precision law: a float for a scalar. Where its tails
    are written out, checked against mpmath once before it is handed out (:func:`_check_written`)."""
    def survival(runtimes: Any) -> Any:
        out = numeric.sf(np.asarray(runtimes, dtype=float))
        return float(out) if np.ndim(out) == 0 else out
    written = numeric._written_segments().all()
    if written:
        _check_written(numeric, survival)
    # runtimes a call may take at once: where every segment's tails are written out, any number
    # (the law streams over them in blocks of its own, straight into its output); else the
    # quadrature's twenty nodes a runtime bound it (None: the scorer's default)
    survival.block = math.inf if written else None
    return survival
