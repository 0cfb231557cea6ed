"""The public symbols of maxent_util.

``kappa`` is the captime, ``t`` a runtime and ``q`` a solution quality.  They
carry assumptions (positive / real) so that sympy can simplify the integrals
and the logarithms that appear in the derivations.
"""

from __future__ import annotations

import sympy

__all__ = ["kappa", "t", "q"]

kappa = sympy.Symbol("kappa", positive=True)
t = sympy.Symbol("t", nonnegative=True)
q = sympy.Symbol("q", real=True)
