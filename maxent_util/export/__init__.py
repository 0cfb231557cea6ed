"""LaTeX derivations and numeric scorers for other tools.

Two of the library's uses end here: writing the derivation of a captime law
down (as the paper's Appendix C does, for any set of constraints), and
handing a utility to a tool that knows nothing of sympy.

* :func:`to_latex` prints constraints, distributions, utilities and
  multipliers; :func:`derivation` writes the whole maximum-entropy
  derivation as a LaTeX section (or a standalone document).
* :func:`export_python` writes a module that needs only numpy (and
  ``scipy.special`` when the formula has a special function);
  :func:`export_c` returns C99 source to compile into anything.
* :func:`to_json` / :func:`from_json` store a derived law or a utility as
  JSON data and load it back without deriving again: expressions are trees
  of operators from a closed list, rebuilt node by node, never evaluated
  (no pickle, no ``eval``); see ``docs/json-format.md``.
* :func:`cost_function` turns a utility (or a spec such as ``"pareto(10, 1)"``)
  into the cost ``1 - u`` that minimising configurators (SMAC3, irace, Optuna)
  expect; :func:`export_cost` writes it as a standalone numpy module and
  :func:`cost_c` as C.
* :class:`CostTarget` runs a command under a cutoff and costs the run: the
  target of SMAC3 and Optuna, and of the irace set-up :func:`export_irace` writes.

Names and labels written into generated source are escaped (they cannot
close a docstring, a string or a comment), and anything a code printer would
copy by name (an undefined function, a bound variable) is refused.

The generated code follows the library's scorer: every ``Piecewise`` branch
is evaluated only where it applies, ``t <= 0`` and ``t = inf`` get the exact
limits of ``u`` (computed symbolically at export time), and a floating-point
breakdown at an extreme runtime gets the limit at the nearer end.

The package has one module per output, over the helpers they share:
``latex``, ``python`` and ``c`` above ``common``, ``cost`` above them and ``configure`` on top (the cost's arithmetic in
``_cost_core``, numpy only, which every cost module carries); the JSON format
lives lower, in :mod:`maxent_util.documents`, so that the presets can ship
their closed forms in it.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# Each name is imported from its module when first used, as the package root does: an export
# to Python no longer loads the C printer, the configurators' runner and the racing code
# behind them (0.5 s of a 1.6 s command).
_LOCATIONS = {
    "export_c": ".c",
    **dict.fromkeys(["CostTarget", "Parameter", "RunCost", "export_irace", "find_irace",
                     "irace_parameters"], ".configure"),
    **dict.fromkeys(["cost_c", "cost_function", "export_cost"], ".cost"),
    **dict.fromkeys(["JSON_FORMAT", "JSON_VERSION", "from_json", "to_json", "MAX_JSON_LENGTH"],
                    "..documents"),
    **dict.fromkeys(["derivation", "to_latex"], ".latex"),
    "export_python": ".python",
}


def __getattr__(name: str) -> Any:
    if name not in _LOCATIONS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(_LOCATIONS[name], __name__), name)
    globals()[name] = value  # the next look-up is an ordinary attribute
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


if TYPE_CHECKING:  # what the names are, for type checkers and editors
    from ..documents import JSON_FORMAT, JSON_VERSION, MAX_JSON_LENGTH, from_json, to_json
    from .c import export_c
    from .configure import CostTarget, Parameter, RunCost, export_irace, find_irace, irace_parameters
    from .cost import cost_c, cost_function, export_cost
    from .latex import derivation, to_latex
    from .python import export_python

__all__ = [
    "to_latex",
    "derivation",
    "export_python",
    "export_c",
    "to_json",
    "from_json",
    "cost_function",
    "export_cost",
    "cost_c",
    "CostTarget",
    "Parameter",
    "RunCost",
    "export_irace",
    "find_irace",
    "irace_parameters",
    "JSON_FORMAT",
    "JSON_VERSION",
]
