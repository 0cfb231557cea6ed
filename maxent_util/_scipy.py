"""scipy.stats views of a derived captime distribution.

:func:`make_rv` gives a frozen ``rv_continuous`` of a law with numeric
parameters; :func:`make_family` gives one of scipy's new distributions
(``scipy.stats.make_distribution``, scipy >= 1.16) of a law with symbolic
parameters, at parameter values that broadcast.

Design notes
------------
*Sampling.* ``rvs`` inverts the CDF numerically, piece by piece, with
``scipy.stats.sampling.NumericalInversePolynomial`` (PINV): each piece of the
density between two breakpoints is smooth, so a polynomial interpolation of
its inverse CDF reaches a u-error of :data:`U_RESOLUTION` in a few
milliseconds of set-up; a uniform number picks its piece by the masses of the
pieces and is mapped through that piece's inverse. No symbolic work runs
before the first draw: sympy's inversion of the CDF (a second or more) is
left to ``ppf``, which keeps the closed form where sympy finds one, and the
mean and entropy are integrated when asked for. A piece PINV cannot
interpolate falls back to scipy's generic inversion of the CDF (slow, but
exact to its root-finder's tolerance).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import sympy
# scipy loads a submodule on first attribute access: `import maxent_util` and the
# command line start without paying for scipy.stats until it is used
import scipy

from ._timing import SymbolicTimeout as _SymbolicTimeout
from ._timing import time_limit
from .errors import NoClosedFormError, argument_message
from .expressions import numpy_modules
from .problem import float_stand_ins
from .scorer import compile_scorer, fold_float_constants
from .symbols import kappa, t

__all__ = ["U_RESOLUTION", "make_family", "make_rv"]

_level = sympy.Symbol("p", positive=True)

#: the largest error of a draw in probability, |F(x) - u|, that rvs allows
U_RESOLUTION = 1e-12


def _closed_form_ppf(distribution: Any, timeout: float, cdf: Any) -> list | None:
    """Per-piece inverse of the CDF, or None when sympy cannot invert a piece.

    Of several solutions, the one that lies in the piece's interval at the middle
    of the piece's range of probabilities is kept (``kappa**2/1152 = p`` has two).
    """
    inverses = []
    breakpoints = [float(b) for b in distribution.breakpoints]
    try:
        with time_limit(timeout):
            for index, piece in enumerate(distribution._cdf_pieces):
                if piece.has(sympy.Integral):
                    return None
                # sympy solves exp(-c*kappa) = ... at once with a symbol c but can grind for
                # seconds with a 35-digit Float c: solve with stand-ins, then put the numbers back
                stand_in, numbers = float_stand_ins(piece)
                solutions = [s.xreplace(numbers)
                             for s in sympy.solve(sympy.Eq(stand_in, _level), kappa)]
                if len(solutions) > 1:
                    lower, upper = breakpoints[index], breakpoints[index + 1]
                    middle = (float(cdf(lower)) + (float(cdf(upper)) if math.isfinite(upper)
                                                   else 1.0)) / 2
                    solutions = [s for s in solutions if _inside(s, middle, lower, upper)]
                if len(solutions) != 1:
                    return None
                inverses.append(solutions[0])
    except _SymbolicTimeout:
        return None
    except Exception:  # sympy could not invert: the generic numeric ppf serves
        return None
    return inverses


def _inside(solution: sympy.Expr, level: float, lower: float, upper: float) -> bool:
    value = complex(solution.subs(_level, level).evalf())
    return abs(value.imag) <= 1e-12 * max(1.0, abs(value.real)) and lower <= value.real <= upper


class _PieceDensity:
    """One smooth piece of a density, as PINV wants it: a float in, a float out.

    PINV's set-up asks for the density some ten thousand times, one point at a
    time: a formula of Python's ``math`` module costs a microsecond a call, a
    vectorised scorer tens. Where ``math`` fails (a log at 0, an overflow, a
    special function it lacks) the scorer, with its limits at the ends, answers.
    """

    def __init__(self, piece: sympy.Expr) -> None:
        self._scorer = compile_scorer(piece.subs(kappa, t))
        try:
            self._math = sympy.lambdify(kappa, fold_float_constants(piece), "math")
        except Exception:  # a function math lacks: the scorer serves
            self._math = None

    def pdf(self, x: float) -> float:
        try:
            value = float(self._math(x)) if self._math is not None else math.nan
        except (ValueError, ArithmeticError, TypeError, NameError):
            value = math.nan
        if not math.isfinite(value):
            value = float(self._scorer(x))
        return value if math.isfinite(value) and value > 0.0 else 0.0


def _median_in(cdf: Any, lower: float, upper: float, level: float) -> float:
    """The point of [lower, upper] where the CDF reaches ``level`` (bisection; a centre for PINV)."""
    if not math.isfinite(upper):
        upper = max(2.0 * lower, 1.0)
        while float(cdf(upper)) < level and upper < 1e300:
            upper *= 4.0
    low, high = lower, upper
    for _ in range(60):
        middle = math.sqrt(low * high) if low > 0 else (low + high) / 2
        if float(cdf(middle)) < level:
            low = middle
        else:
            high = middle
    return (low + high) / 2


class _Inversion:
    """Draws by numerical inversion of the CDF, one PINV generator per piece of the density."""

    def __init__(self, distribution: Any, cdf: Any) -> None:
        # not loaded by scipy.stats itself; at the top it would load scipy.stats for every law
        import scipy.stats.sampling

        breakpoints = [float(b) for b in distribution.breakpoints]
        ends = [0.0] + [float(cdf(b)) if math.isfinite(b) else 1.0 for b in breakpoints[1:]]
        self.pieces = []  # (start, mass, generator)
        for index, piece in enumerate(distribution._pdf_pieces):
            start, end = ends[index], ends[index + 1]
            mass = end - start
            if not mass > 0:
                continue
            lower, upper = breakpoints[index], breakpoints[index + 1]
            center = _median_in(cdf, lower, upper, start + mass / 2)
            density = _PieceDensity(piece)
            generator = scipy.stats.sampling.NumericalInversePolynomial(
                density, center=center, domain=(lower, upper), u_resolution=U_RESOLUTION)
            self.pieces.append((start, mass, generator))
        total = sum(mass for _, mass, _ in self.pieces)
        self.starts = np.array([start for start, _, _ in self.pieces]) / total
        self.masses = np.array([mass for _, mass, _ in self.pieces]) / total

    def ppf(self, u: np.ndarray) -> np.ndarray:
        u = np.asarray(u, dtype=float)
        if len(self.pieces) == 1:
            return np.asarray(self.pieces[0][2].ppf(u), dtype=float)
        which = np.clip(np.searchsorted(self.starts, u, side="right") - 1, 0, len(self.pieces) - 1)
        out = np.empty(u.shape)
        for index, (_, _, generator) in enumerate(self.pieces):
            mask = which == index
            if mask.any():
                within = (u[mask] - self.starts[index]) / self.masses[index]
                out[mask] = generator.ppf(np.clip(within, 0.0, 1.0))
        return out


def make_rv(distribution: Any) -> Any:
    """A frozen ``scipy.stats.rv_continuous`` with the closed forms of ``distribution``."""
    lower, upper = (float(v) for v in distribution.support)
    pdf = compile_scorer(distribution.pdf.subs(kappa, t))
    # the closed form compiled, or quadrature when sympy left the CDF an integral
    cdf = distribution._cdf_function()
    sf = distribution.utility()
    lazy: dict[str, Any] = {}

    def closed_form_ppf() -> Any:
        if "ppf" not in lazy:
            inverses = _closed_form_ppf(distribution, distribution._timeout, cdf)
            masses = [float(cdf(float(b))) if b != sympy.oo else 1.0
                      for b in distribution.breakpoints[1:]]
            lazy["ppf"] = None if inverses is None else (
                [sympy.lambdify(_level, inverse, numpy_modules(inverse)) for inverse in inverses], masses)
        return lazy["ppf"]

    def inversion() -> Any:
        if "inversion" not in lazy:
            try:
                lazy["inversion"] = _Inversion(distribution, cdf)
            except (RuntimeError, ValueError, ArithmeticError):  # PINV failed on a piece: generic rvs
                lazy["inversion"] = None
        return lazy["inversion"]

    class _MaxEnt(scipy.stats.rv_continuous):
        def _pdf(self, x: np.ndarray) -> np.ndarray:
            return pdf(x)

        def _cdf(self, x: np.ndarray) -> np.ndarray:
            return cdf(x)

        def _sf(self, x: np.ndarray) -> np.ndarray:
            return sf(x)

        def _stats(self) -> tuple:
            mean = distribution.mean()
            value = float(mean) if mean.is_number and not mean.has(sympy.Integral) else None
            return value, None, None, None

        def _entropy(self) -> float:
            return float(distribution.entropy())

        def _ppf(self, p: np.ndarray) -> np.ndarray:
            closed = closed_form_ppf()
            if closed is None:
                return super()._ppf(p)
            pieces, masses = closed
            p = np.asarray(p, dtype=float)
            out = np.empty_like(p)
            start = 0.0
            # each probability goes to the piece whose CDF range holds it
            for index, (inverse, end) in enumerate(zip(pieces, masses)):
                mask = (p >= start) & ((p <= end) if index == len(masses) - 1 else (p < end))
                if mask.any():
                    with np.errstate(all="ignore"):
                        out[mask] = np.real(np.asarray(inverse(p[mask]), dtype=complex))
                start = end
            return out

        def _rvs(self, size: Any = None, random_state: Any = None) -> np.ndarray:
            sampler = inversion()
            if sampler is None:
                return super()._rvs(size=size, random_state=random_state)
            return sampler.ppf(random_state.uniform(size=size))

    name = getattr(distribution, "name", None) or "maxent_captime"
    return _MaxEnt(a=lower, b=upper, name=name)()


def _endpoint(value: sympy.Expr, names: tuple[str, ...]) -> Any:
    """A support endpoint as make_distribution takes it: a float, a parameter's name, or a
    function of the parameters (keyword-only)."""
    if value.is_number:
        return float(value)
    if value.is_Symbol:
        return value.name
    function = sympy.lambdify([sympy.Symbol(n, positive=True) for n in names], value, numpy_modules(value))
    return lambda **values: function(*(values[n] for n in names))


def make_family(distribution: Any, values: dict[str, Any]) -> Any:
    """One of scipy's new distributions of a law with symbolic parameters, at ``values``.

    The parameters' values broadcast against each other (and against the
    arguments of ``pdf``, ``cdf``, ``sample`` ...) as in any
    ``scipy.stats.ContinuousDistribution``; no :meth:`subs` is needed.
    """
    owner = "to_scipy"
    names = tuple(s.name for s in distribution.parameters)
    for name in values:
        if name not in names:
            raise NoClosedFormError(argument_message(name, owner, f"one of the law's parameters {names}",
                                                     name))
    missing = [name for name in names if name not in values]
    if missing:
        raise NoClosedFormError(argument_message(
            missing[0], owner, "given (numbers or arrays that broadcast)", None,
            f"Pass every parameter: to_scipy({', '.join(f'{n}=...' for n in names)})."))
    if not hasattr(scipy.stats, "make_distribution"):
        raise NoClosedFormError(argument_message(
            "parameters", owner, "scipy >= 1.16 (scipy.stats.make_distribution)",
            scipy.__version__, "Upgrade scipy, or substitute the values with .subs(...)."))
    pdf = compile_scorer(distribution.pdf.subs(kappa, t))
    cdf = compile_scorer(distribution.cdf.subs(kappa, t))
    sf = compile_scorer(distribution.sf.subs(kappa, t))
    lower, upper = distribution.support

    class _Law:
        __make_distribution_version__ = "1.16.0"
        parameters = {name: {"endpoints": (0, np.inf), "inclusive": (False, False)}
                      for name in names}
        support = {"endpoints": (_endpoint(lower, names), _endpoint(upper, names)),
                   "inclusive": (True, True)}

        def pdf(self, x: Any, **values: Any) -> Any:
            return pdf(x, **values)

        def cdf(self, x: Any, **values: Any) -> Any:
            return cdf(x, **values)

        def ccdf(self, x: Any, **values: Any) -> Any:
            return sf(x, **values)

    family = scipy.stats.make_distribution(_Law())
    family.__name__ = family.__qualname__ = "".join(
        part.capitalize() for part in (getattr(distribution, "name", None) or "MaxEntCaptime")
        .split("(")[0].split("_")) or "MaxEntCaptime"
    try:
        return family(**{name: np.asarray(values[name], dtype=float) if np.ndim(values[name])
                         else float(values[name]) for name in names})
    except (TypeError, ValueError) as error:
        raise NoClosedFormError(argument_message(
            "parameters", owner, "real numbers or arrays that broadcast", values,
            f"({error})")) from None
