"""The public symbols of maxent_util.

``kappa`` is the captime, ``t`` a runtime and ``q`` a solution quality.  They
carry assumptions (positive / real) so that sympy can simplify the integrals
and the logarithms that appear in the derivations.
"""

from __future__ import annotations

import sympy

__all__ = ["kappa", "t", "q", "RESERVED_NAMES"]

kappa = sympy.Symbol("kappa", positive=True)
t = sympy.Symbol("t", nonnegative=True)
q = sympy.Symbol("q", real=True)

#: names of the library's variables (and of the level ``y`` of an inverse utility):
#: a parameter with one of these names would be taken for the variable
RESERVED_NAMES: tuple[str, ...] = ("kappa", "t", "q", "y")
