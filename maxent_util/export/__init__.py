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

from .c import export_c
from .configure import CostTarget, Parameter, RunCost, export_irace, find_irace, irace_parameters
from .cost import cost_c, cost_function, export_cost
from ..documents import JSON_FORMAT, JSON_VERSION, from_json, to_json
from ..documents import MAX_JSON_LENGTH  # noqa: F401  (importable from here as before; not in __all__)
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
