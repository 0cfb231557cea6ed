"""Utilities u(t): the functions that score a runtime.

(skeleton; the constructors of the paper's Section 3 are added here)
"""

from __future__ import annotations

from typing import Any

import sympy

from .symbols import q, t

__all__ = ["Utility"]


class Utility:
    """A utility of a runtime ``t`` (and optionally of a quality ``q``).

    Parameters
    ----------
    expr : sympy expression in :data:`maxent_util.t` (and :data:`maxent_util.q`).
    name : optional display name.
    """

    def __init__(self, expr: Any, *, name: str | None = None) -> None:
        self.expr = sympy.sympify(expr)
        self.name = name
        self._scorer = None

    @property
    def variables(self) -> tuple[sympy.Symbol, ...]:
        return (t, q) if q in self.expr.free_symbols else (t,)

    @property
    def parameters(self) -> tuple[sympy.Symbol, ...]:
        """Free symbols other than ``t`` and ``q``, sorted by name."""
        free = self.expr.free_symbols - {t, q}
        return tuple(sorted(free, key=lambda s: s.name))

    def subs(self, **values: Any) -> "Utility":
        by_name = {s.name: s for s in self.expr.free_symbols}
        mapping = {by_name[k]: sympy.sympify(v) for k, v in values.items() if k in by_name}
        return type(self)(self.expr.subs(mapping), name=self.name)

    def __call__(self, runtimes: Any, *args: Any, **params: Any):
        if self._scorer is None:
            from .scoring import make_scorer

            self._scorer = make_scorer(self)
        return self._scorer(runtimes, *args, **params)

    def latex(self) -> str:
        return sympy.latex(self.expr)

    def _repr_latex_(self) -> str:
        return f"$u(t) = {self.latex()}$"

    def __repr__(self) -> str:
        label = f"{self.name}: " if self.name else ""
        return f"Utility({label}{self.expr})"
