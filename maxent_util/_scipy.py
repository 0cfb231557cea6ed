"""scipy.stats view of a derived captime distribution (numeric parameters)."""

from __future__ import annotations

from typing import Any

import numpy as np
import sympy
# scipy loads a submodule on first attribute access: `import maxent_util` and the
# command line start without paying for scipy.stats until it is used
import scipy

from ._timing import SymbolicTimeout as _SymbolicTimeout
from ._timing import time_limit
from .problem import float_stand_ins
from .scorer import compile_scorer
from .symbols import kappa, t

__all__ = ["make_rv"]

_level = sympy.Symbol("p", positive=True)


def _closed_form_ppf(distribution: Any, timeout: float) -> list | None:
    """Per-piece inverse of the CDF, or None when sympy cannot invert a piece."""
    inverses = []
    try:
        with time_limit(timeout):
            for cdf in distribution._cdf_pieces:
                if cdf.has(sympy.Integral):
                    return None
                # sympy solves exp(-c*kappa) = ... at once with a symbol c but can grind for
                # seconds with a 35-digit Float c: solve with stand-ins, then put the numbers back
                stand_in, numbers = float_stand_ins(cdf)
                solutions = sympy.solve(sympy.Eq(stand_in, _level), kappa)
                if len(solutions) != 1:
                    return None
                inverses.append(solutions[0].xreplace(numbers))
    except _SymbolicTimeout:
        return None
    except Exception:  # sympy could not invert: the generic numeric ppf serves
        return None
    return inverses


def make_rv(distribution: Any) -> Any:
    """A frozen ``scipy.stats.rv_continuous`` with the closed forms of ``distribution``."""
    lower, upper = (float(v) for v in distribution.support)
    pdf = compile_scorer(distribution.pdf.subs(kappa, t))
    # the closed form compiled, or quadrature when sympy left the CDF an integral
    cdf = distribution._cdf_function()
    sf = distribution.utility()
    mean = distribution.mean()
    entropy = distribution.entropy()
    inverses = _closed_form_ppf(distribution, distribution._timeout)
    masses = [float(cdf(float(b))) if b != sympy.oo else 1.0 for b in distribution.breakpoints[1:]]
    ppf_pieces = None
    if inverses is not None:
        ppf_pieces = [sympy.lambdify(_level, inverse, "scipy") for inverse in inverses]

    class _MaxEnt(scipy.stats.rv_continuous):
        def _pdf(self, x: np.ndarray) -> np.ndarray:
            return pdf(x)

        def _cdf(self, x: np.ndarray) -> np.ndarray:
            return cdf(x)

        def _sf(self, x: np.ndarray) -> np.ndarray:
            return sf(x)

        def _stats(self) -> tuple:
            value = float(mean) if mean.is_number and not mean.has(sympy.Integral) else None
            return value, None, None, None

        def _entropy(self) -> float:
            return float(entropy)

        if ppf_pieces is not None:
            def _ppf(self, p: np.ndarray) -> np.ndarray:
                p = np.asarray(p, dtype=float)
                out = np.empty_like(p)
                start = 0.0
                # each probability goes to the piece whose CDF range holds it
                for index, (inverse, end) in enumerate(zip(ppf_pieces, masses)):
                    mask = (p >= start) & ((p <= end) if index == len(masses) - 1 else (p < end))
                    if mask.any():
                        with np.errstate(all="ignore"):
                            out[mask] = np.real(np.asarray(inverse(p[mask]), dtype=complex))
                    start = end
                return out

    name = getattr(distribution, "name", None) or "maxent_captime"
    return _MaxEnt(a=lower, b=upper, name=name)()
