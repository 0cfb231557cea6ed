"""The cost ``1 - u`` that minimising configurators expect: :func:`cost_function` in the
library, :func:`export_cost` as a standalone module, :func:`cost_c` in C.

The arithmetic lives once, in :mod:`._cost_core` (numpy only): the library calls it with a
compiled scorer and every written module carries its source, called with the exported
utility.  A written module is imported in a fresh interpreter without maxent_util and checked against
the library's second route (mpmath, see :mod:`maxent_util._reference`) before it reaches the
disk.
"""

from __future__ import annotations

import inspect
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Callable, Mapping

import numpy as np
import sympy

from .._printing import latex
from .._reference import check_points
from .._version import __version__
from ..errors import DataError, ExportError, argument_message, short
from ..families import parse_utility
from ..io import FAILURE_STATUSES
from ..scorer import compile_scorer
from ..symbols import t
from . import _cost_core
from .c import _usable_c_name, export_c
from .common import bind_defaults, c_comment, doc_safe, utility_of, writable, write
from .python import _python_source, refuse_disagreement


#: names configurators use for a run's outcome -> the library's status
_STATUS_ALIASES = {"success": "solved", "ok": "solved", "sat": "solved", "unsat": "solved",
                   "crashed": "crash", "memoryout": "memout", "memory_out": "memout",
                   "memorylimit": "memout", "timeout": "capped"}

#: the configurators a cost module is written for, and how each one is told to use it
TOOLS = {
    "generic": (
        "Any minimiser: give it cost(runtime, status, cutoff) per run and minimise the mean over\n"
        "instances, which maximises the expected utility."),
    "smac": (
        "SMAC3 minimises what the target function returns. Build the scenario with\n"
        "crash_cost=1.0 (a trial SMAC3 stops or that raises then costs what a failure costs\n"
        "here) and return float(cost(runtime, status, cutoff)) from the target; SMAC3's\n"
        "StatusType members (SUCCESS, TIMEOUT, CRASHED, MEMORYOUT) are accepted as statuses.\n"
        "  scenario = Scenario(configspace, instances=..., instance_features=...,\n"
        "                      crash_cost=1.0, n_trials=..., deterministic=True)\n"
        "  incumbent = AlgorithmConfigurationFacade(scenario, target).optimize()"),
    "irace": (
        "irace minimises the number its target runner prints last. Print\n"
        "cost(runtime, status, cutoff) as the runner's only line of output; keep the\n"
        "scenario's times in seconds, the unit of the utility's scales.\n"
        "`maxent-util export --irace DIR` writes such a runner and a scenario."),
    "optuna": (
        "Optuna: create_study(direction=\"minimize\") and return the mean of\n"
        "cost(runtime, status, cutoff) over the training instances from the objective."),
}


def _refuse(arg: str, requirement: str, value: Any) -> DataError:
    return DataError(argument_message(arg, "cost", requirement, short(value)))


def _as_utility(utility: Any, owner: str) -> Any:
    """A spec string through the safe reader (never eval), anything else as the exports take it."""
    if isinstance(utility, str):
        utility = parse_utility(utility)
    return utility_of(utility, owner)


def _check_capped(capped: Any, owner: str) -> None:
    if not isinstance(capped, str) or capped not in _cost_core.CAPPED_RULES:
        raise ExportError(argument_message("capped", owner, "'zero' or 'cutoff'", short(capped)))


def cost_function(utility: Any, *, capped: str = "zero",
                  defaults: Mapping[str, Any] | None = None) -> Callable[..., Any]:
    """The cost ``1 - u`` that minimising configurators expect, from a utility.

    Parameters
    ----------
    utility : str, Utility, CaptimeDistribution or sympy.Expr
        The utility: a preset spec such as ``"pareto(10, 1)"`` (read by
        :func:`~maxent_util.parse_utility`, never evaluated), a utility, a
        distribution (its step utility) or an expression in ``t``.
    capped : {"zero", "cutoff"}, keyword-only
        How a capped run (status ``"capped"``, or SMAC's ``TIMEOUT``) counts: ``"zero"`` (default,
        the paper's estimate: u = 0, cost 1) or ``"cutoff"`` (u(cutoff), the
        most it could be worth: an optimistic cost).
    defaults : dict of str to float, keyword-only
        Values of the utility's free parameters; each needs one.

    Returns
    -------
    callable
        ``cost(runtime, status="solved", cutoff=None)``, vectorised over runtimes, statuses and cutoffs (broadcast). A
        solved run costs ``1 - u(runtime)``; a capped run as chosen above
        (``cutoff`` defaults to the runtime, the time the run was stopped);
        ``"memout"``, ``"crash"`` and ``"unverified"`` cost 1 (u = 0).
        Statuses may be SMAC3's names (``SUCCESS``, ``TIMEOUT``, ``CRASHED``,
        ``MEMORYOUT``, or its ``StatusType`` members). A scalar call returns a float.

    Raises
    ------
    ExportError
        For an unknown ``capped`` or a parameter without a value.
    UtilityError
        For a spec that is not a preset call.
    DataError
        From ``cost`` for an unknown status, or a runtime or cutoff that is
        not a number.

    Notes
    -----
    SMAC3 minimises the cost its target function returns. For algorithm
    configuration with a 300 s cutoff::

        cost = cost_function(parse_utility("pareto(24, 1)"))

        def target(config, instance, seed=0):
            runtime, status = run_my_solver(config, instance, seed, cutoff=300)
            return float(cost(runtime, status, 300.0))

        # scenario = Scenario(configspace, instances=..., n_trials=...)
        # smac = AlgorithmConfigurationFacade(scenario, target)
        # incumbent = smac.optimize()

    irace minimises the number the target runner prints last. A target runner
    written in Python (irace calls it with the configuration id, instance id,
    seed, instance and the parameters)::

        #!/usr/bin/env python3
        import sys
        from maxent_util import parse_utility
        from maxent_util.export import cost_function

        cost = cost_function(parse_utility("log_normal(24, 0.5)"))
        runtime, status = run_my_solver(sys.argv[4], sys.argv[5:], cutoff=300)
        print(float(cost(runtime, status, 300.0)))

    Keep irace's ``maxTime``/``boundMax`` in seconds so the utility's
    ``kappa0`` means the same unit.

    Examples
    --------
    >>> from maxent_util import exponential
    >>> cost = cost_function(exponential(24))
    >>> cost([0.0, 24.0, 300.0, 5.0], ["solved", "solved", "capped", "crash"], 300.0).round(4)
    array([0.    , 0.6321, 1.    , 1.    ])
    """

    owner = "cost_function"
    _check_capped(capped, owner)
    utility = _as_utility(utility, owner)
    expr, parameters = bind_defaults(utility, defaults, owner, required=True)
    expr = expr.xreplace({s: sympy.Float(v, 17) for s, v in parameters})
    scorer = compile_scorer(expr)
    failures = tuple(FAILURE_STATUSES)

    def cost(runtime: Any, status: Any = "solved", cutoff: Any = None) -> Any:
        return _cost_core.run_cost(scorer, runtime, status, cutoff, capped, _STATUS_ALIASES,
                                   failures, _refuse)

    cost.__doc__ = f"1 - u(runtime) for u(t) = {expr}; capped runs count {capped!r}."
    return cost


def _provenance(utility: Any, expr: sympy.Expr, parameters: list, spec: str | None) -> list[str]:
    """Lines saying where a utility came from: its spec, constraints, formula, LaTeX, version."""
    distribution = getattr(utility, "distribution", None)
    constraints = getattr(distribution, "constraints", None)
    lines = [f"spec: {spec if spec is not None else utility.name or '(an expression)'}"]
    if constraints:
        lines.append("constraints: " + ", ".join(str(c) for c in constraints))
    if parameters:
        lines.append("parameters: " + ", ".join(f"{s.name} = {float(v)!r}" for s, v in parameters))
    lines += [f"u(t) = {expr}", f"LaTeX: {latex(expr)}", f"maxent_util version: {__version__}"]
    return lines


def _core_source() -> str:
    """The source of :mod:`._cost_core` after its docstring and import (numpy is imported
    once at the top of every written module)."""
    _, body = inspect.getsource(_cost_core).split("\nimport numpy\n", 1)
    return body.strip("\n") + "\n"


_MODULE_COST = '''

_STATUS_ALIASES = {aliases!r}
_FAILURES = {failures!r}


def _refuse(arg, requirement, value):
    text = repr(value)
    if len(text) > 80:
        text = text[:77] + "..."
    return ValueError(f"`{{arg}}` of `cost` must be {{requirement}}; got {{text}}.")


def cost(runtime, status="solved", cutoff=None):
    """The cost of runs for {tool}: 1 - u(runtime) for a solved run, {capped_text}
    for a capped one (status "capped", "timeout" or SMAC's TIMEOUT; cutoff None means
    the runtime, the time it was stopped), 1 for a failure ({failure_text}).
    Vectorised: runtimes, statuses and cutoffs broadcast; a scalar call gives a float.
    An unknown status, or a runtime or cutoff that is not a number, raises ValueError.
    """
    return run_cost(utility, runtime, status, cutoff, CAPPED, _STATUS_ALIASES, _FAILURES, _refuse)
'''


_MODULE_INVERSE = '''

def inverse(u):
    """The runtime at which the utility falls to u, by bisection (it has no closed-form
    inverse): inverse(1) = 0; a level outside (0, 1], or one the utility jumps over, gives NaN.
    """
    return inverse_by_bisection(utility, u)
'''


#: run in a fresh interpreter (``-I``, maxent_util made unimportable): imports a written module
#: and prints its utility at the check points and u(inverse(u)) at a few levels, as JSON
_CHECKER = """
import importlib.util, json, sys
sys.modules["maxent_util"] = None
spec = importlib.util.spec_from_file_location("exported_cost", sys.argv[1])
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
levels = [0.9, 0.5, 0.1, 1e-3]
print(json.dumps({"utility": module.utility(json.loads(sys.argv[2])).tolist(),
                  "back": module.utility(module.inverse(levels)).tolist(), "levels": levels}))
"""


def _check_against_reference(source: str, expr: sympy.Expr, owner: str) -> None:
    """Refuse a written module whose utility disagrees with mpmath (the scorer's own check),
    or that cannot be imported without maxent_util: it is imported, as a user would, in a
    fresh interpreter where maxent_util is absent."""
    points = check_points(expr, t, {})
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "exported_cost.py"
        path.write_text(source, encoding="utf-8")
        try:
            done = subprocess.run([sys.executable, "-I", "-c", _CHECKER, str(path),
                                   json.dumps(points.tolist())], capture_output=True, text=True,
                                  timeout=120)
        except (OSError, subprocess.TimeoutExpired) as error:
            done = subprocess.CompletedProcess([], 1, "", str(error))
    if done.returncode != 0:
        raise ExportError(argument_message(
            "utility", owner, "a utility whose module imports without maxent_util", short(expr),
            f"(importing it failed: {done.stderr.strip().splitlines()[-1:] or done.returncode})"))
    found = json.loads(done.stdout)
    back, levels = np.asarray(found["back"], dtype=float), np.asarray(found["levels"])
    # u(inverse(u)) = u where the utility is continuous and strictly falling
    if not np.all(np.isnan(back) | (np.abs(back - levels) <= 1e-9)):
        raise ExportError(argument_message(
            "utility", owner, "a utility whose exported inverse inverts it", short(expr),
            f"(u(inverse(u)) at u = {levels.tolist()} gave {back.tolist()})"))
    refuse_disagreement(np.asarray(found["utility"], dtype=float), points, expr, owner, "exported")


def export_cost(utility: Any, path: Any, *, tool: str = "generic", capped: str = "zero",
                defaults: Mapping[str, Any] | None = None, overwrite: bool = False,
                parents: bool = False) -> Path:
    """Write a standalone cost module for a configurator: numpy only, no maxent_util.

    (``scipy.special`` too where the formula has a special function: the
    log-normal's ``erf``, as :func:`export_python` writes it.)

    The module defines ``utility(t)``, ``inverse(u)`` (where the utility has a
    closed-form inverse, which every preset has) and ``cost(runtime,
    status="solved", cutoff=None)``, the same cost as :func:`cost_function`
    (the very code: see :mod:`maxent_util.export._cost_core`), plus ``TOOL``,
    ``CAPPED``, ``FORMULA`` and ``FORMULA_LATEX``. Its docstring records the
    provenance (spec, constraints, formula, LaTeX, version) and how to use it
    with ``tool``. Before it is written, it is imported in a fresh interpreter
    where maxent_util cannot be imported (``python -I``) and its utility
    checked against mpmath at the scorer's check points (breakpoints, scales,
    decades).

    Every tool minimises: the cost is ``1 - u`` in ``[0, 1]``.

    ============  ==============================================================
    tool          convention
    ============  ==============================================================
    ``generic``   minimise the mean cost over instances
    ``smac``      the target function returns the cost; ``Scenario(crash_cost=1.0)``
    ``irace``     the target runner prints the cost as its only line
    ``optuna``    ``create_study(direction="minimize")``; the objective returns the mean
    ============  ==============================================================

    Parameters
    ----------
    utility : str, Utility, CaptimeDistribution or sympy.Expr
        As :func:`cost_function` takes it (a spec such as ``"pareto(10, 1)"``).
    path : str or os.PathLike
        The ``.py`` file to write; written whole or not at all.
    tool : {"generic", "smac", "irace", "optuna"}, keyword-only
        Whose convention the docstring explains.
    capped : {"zero", "cutoff"}, keyword-only
        How a capped run counts: cost 1 (default) or ``1 - u(cutoff)``.
    defaults : dict of str to float, keyword-only
        Values of the utility's free parameters; each needs one.
    overwrite, parents : bool, keyword-only
        Replace an existing file; create missing folders (both off by default).

    Returns
    -------
    pathlib.Path
        The file written.

    Raises
    ------
    ExportError
        For an unknown ``tool`` or ``capped``, a parameter without a value, a
        formula numpy cannot evaluate, a module that disagrees with mpmath,
        or a path that cannot be written (as :func:`export_python`).
    UtilityError
        For a spec that is not a preset call.

    Examples
    --------
    >>> import tempfile, pathlib, runpy
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> module = runpy.run_path(str(export_cost("pareto(10, 1)", folder / "cost.py", tool="smac")))
    >>> module["cost"]([5.0, 40.0, 300.0], ["SUCCESS", "SUCCESS", "TIMEOUT"], 300.0)
    array([0.  , 0.75, 1.  ])
    """
    owner = "export_cost"
    if not isinstance(tool, str) or tool not in TOOLS:
        raise ExportError(argument_message("tool", owner, f"one of {', '.join(map(repr, TOOLS))}",
                                           short(tool)))
    _check_capped(capped, owner)
    spec = utility.strip() if isinstance(utility, str) else None
    target = writable(path, owner, overwrite=overwrite, parents=parents)
    utility = _as_utility(utility, owner)
    expr, parameters = bind_defaults(utility, defaults, owner, required=True)
    bound = expr.xreplace({s: sympy.Float(v, 17) for s, v in parameters})
    capped_text = "1" if capped == "zero" else "1 - u(cutoff)"
    failures = tuple(FAILURE_STATUSES)
    lines = [f"{doc_safe(spec or utility.name or 'utility')}: the cost of a run for {tool}, "
             f"exported by maxent_util {__version__}.", "",
             "Needs numpy and no maxent_util. cost(runtime, status=\"solved\", cutoff=None)",
             f"is 1 - u(runtime) for a solved run, {capped_text} for a capped one and 1 for a failure;",
             "lower is better.",
             "", "Provenance", "----------"]
    lines += [doc_safe(line) for line in _provenance(utility, expr, parameters, spec)]
    lines += ["", f"Use with {tool}", "-" * (9 + len(tool))]
    lines += [doc_safe(line) for line in TOOLS[tool].split("\n")]
    docstring = "\n".join(lines) + "\n"
    source = _python_source(bound, None, owner, docstring=docstring,
                            exports=("cost", "status_of", "TOOL", "CAPPED"))
    if "\ndef inverse(" not in source:
        source = source.replace('"utility", ', '"utility", "inverse", ', 1)
    # a special function (the log-normal's erf) comes from scipy.special, as in export_python
    if "import scipy.special" in source:
        lines[2] = lines[2].replace("numpy", "numpy and scipy.special", 1)
        source = source.replace(docstring, "\n".join(lines) + "\n", 1)  # the first: its own
    source += ("\n\n# The cost of runs: maxent_util's own code (maxent_util/export/_cost_core.py), "
               "copied verbatim.\n\n" + _core_source()
               + f"\n\nTOOL = {tool!r}\nCAPPED = {capped!r}\n"
               + ("" if "\ndef inverse(" in source else _MODULE_INVERSE)
               + _MODULE_COST.format(aliases=_STATUS_ALIASES, failures=failures, tool=tool,
                                     capped_text=capped_text, failure_text=", ".join(failures)))
    _check_against_reference(source, bound, owner)
    write(target, source, owner, overwrite=overwrite)
    return target


def cost_c(utility: Any, *, capped: str = "zero", defaults: Mapping[str, Any] | None = None,
           name: str = "cost") -> str:
    """C99 source of the cost of a run: ``double cost(double runtime, int status, double cutoff)``.

    The utility is :func:`export_c`'s, named ``<name>_utility``; ``status`` is
    ``<NAME>_SOLVED`` (0), ``<NAME>_CAPPED`` (1) or ``<NAME>_FAILED`` (2), and
    a ``cutoff`` of ``NAN`` means the runtime. The cost is ``1 - u(runtime)``
    for a solved run, 1 (``capped="zero"``) or ``1 - u(cutoff)``
    (``capped="cutoff"``) for a capped one, 1 for a failure, and NaN for an
    unknown status: the numbers of :func:`cost_function`.

    Parameters
    ----------
    utility : str, Utility, CaptimeDistribution or sympy.Expr
        As :func:`cost_function` takes it.
    capped : {"zero", "cutoff"}, keyword-only
        How a capped run counts.
    defaults : dict of str to float, keyword-only
        Values of the utility's free parameters; each needs one.
    name : str, keyword-only
        Name of the C function (a C identifier; the status constants are its upper case).

    Returns
    -------
    str
        C99 source; compile with ``cc -O2 ... -lm``.

    Raises
    ------
    ExportError
        As :func:`export_c`, and for an unknown ``capped`` or a parameter without a value.

    Examples
    --------
    >>> "double cost(double runtime, int status, double cutoff)" in cost_c("exponential(24)")
    True
    """
    owner = "cost_c"
    _check_capped(capped, owner)
    upper = name.upper() if isinstance(name, str) else name
    if not (_usable_c_name(name) and _usable_c_name(f"{name}_utility")
            and all(_usable_c_name(f"{upper}_{s}") for s in ("SOLVED", "CAPPED", "FAILED"))):
        raise ExportError(argument_message(
            "name", owner, "a C identifier", short(name),
            "It must not be a C keyword, begin with an underscore (reserved) or be a name "
            "<math.h> or <stddef.h> declare."))
    spec = utility.strip() if isinstance(utility, str) else None
    utility = _as_utility(utility, owner)
    _, parameters = bind_defaults(utility, defaults, owner, required=True)
    source = export_c(utility, defaults={s.name: v for s, v in parameters}, name=f"{name}_utility")
    at_capped = "1.0" if capped == "zero" else f"1.0 - {name}_utility(cutoff)"
    label = c_comment(spec or utility.name or "utility")
    return (
        f"/* {label}: the cost of a run, exported by maxent_util {__version__}.\n"
        f" * cost = 1 - u(runtime) solved, {'1' if capped == 'zero' else '1 - u(cutoff)'} capped, "
        "1 failed; lower is better. */\n"
        + source +
        f"\nenum {{ {upper}_SOLVED = 0, {upper}_CAPPED = 1, {upper}_FAILED = 2 }};\n\n"
        f"double {name}(double runtime, int status, double cutoff)\n{{\n"
        "    if (isnan(cutoff)) cutoff = runtime;  /* stopped at its runtime */\n"
        f"    if (status == {upper}_SOLVED) return 1.0 - {name}_utility(runtime);\n"
        f"    if (status == {upper}_CAPPED) return {at_capped};\n"
        f"    if (status == {upper}_FAILED) return 1.0;\n"
        "    return NAN;  /* an unknown status */\n"
        "}\n"
    )
