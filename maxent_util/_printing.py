"""Printers shared by every layer: LaTeX as the paper writes it.

The lowest printing layer: it knows sympy and nothing of the package above
it, so constraints, distributions, utilities and the exporters all print
through it.
"""

from __future__ import annotations

from typing import Any

import sympy
from sympy.printing.latex import LatexPrinter

__all__ = ["latex", "interval_latex"]


class _StatementPrinter(LatexPrinter):
    """Prints the constraints' placeholder functions as the paper writes them.

    Constraints state themselves with undefined functions ``E``, ``P`` and
    ``1`` (expectation, probability, indicator); printed as plain function
    calls they read ``E{\\left(g, c\\right)}``.  Here they become
    ``\\operatorname{E}[g \\mid c]``, ``\\operatorname{P}(c)`` and
    ``\\mathbf{1}\\{c\\}`` (amsmath only, no amssymb).
    """

    def _print_Function(self, expr: Any, exp: Any = None) -> str:
        name = type(expr).__name__
        if isinstance(expr, sympy.core.function.AppliedUndef) and name in ("E", "P", "1"):
            args = [self._print(a) for a in expr.args]
            if name == "E":
                text = (rf"\operatorname{{E}}\left[{args[0]}\right]" if len(args) == 1
                        else rf"\operatorname{{E}}\left[{args[0]} \;\middle|\; {args[1]}\right]")
            elif name == "P":
                text = rf"\operatorname{{P}}\left({', '.join(args)}\right)"
            else:
                text = rf"\mathbf{{1}}\left\{{{', '.join(args)}\right\}}"
            return text if exp is None else rf"{text}^{{{exp}}}"
        return super()._print_Function(expr, exp)


def latex(expr: Any) -> str:
    """LaTeX of a sympy object, with expectations, probabilities and indicators as in the paper.

    >>> latex(sympy.Symbol("kappa") ** 2)
    '\\\\kappa^{2}'
    """
    return _StatementPrinter().doprint(expr)


def interval_latex(lower: Any, upper: Any) -> str:
    """``[lower, upper]``, open at an infinite end."""
    right = r"\right)" if upper == sympy.oo else r"\right]"
    return rf"\left[{latex(lower)}, {latex(upper)}{right}"
