"""Helpers shared by the test modules."""

from __future__ import annotations

import sympy
from hypothesis import Phase, settings

# hypothesis' explain phase traces every line of a failing example; through sympy that turns
# one failure into an hour-long run, so failures are reported as shrunk, without it
settings.register_profile("maxent_util", phases=[phase for phase in Phase if phase is not Phase.explain])
settings.load_profile("maxent_util")


def same_expression(ours: sympy.Expr, reference: sympy.Expr) -> bool:
    """Whether two closed forms are equal, whatever their spelling.

    Tried in turn: the difference simplifies to 0; it does after erfc is written as erf and
    logs are expanded (log(x**c) against c*log(x)); the exponentials agree (multipliers of
    the form log(x) - 1, where sympy will not split log((a - b)/(c - d))).
    """
    difference = ours - reference
    if sympy.simplify(difference) == 0:
        return True
    if sympy.simplify(sympy.expand_log(difference.rewrite(sympy.erf), force=True)) == 0:
        return True
    return sympy.simplify(sympy.exp(ours) - sympy.exp(reference)) == 0
