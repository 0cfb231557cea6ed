"""A standalone Python module that evaluates a utility with numpy: :func:`export_python`."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

import sympy
from sympy.printing.numpy import SciPyPrinter

import importlib.util
import tempfile

import numpy as np

from .._reference import agree, check_points, reference_values
from .._version import __version__
from ..errors import ExportError, MaxEntError, argument_message, short
from ..symbols import t
from ..utility import y as level
from .common import (bind_defaults, doc_safe, limits, portable_stable, preset_form, safe_names,
                     utility_of, writable, write)


_PYTHON_RESERVED = frozenset({"t", "u", "numpy", "scipy", "builtins", "math", "utility", "inverse",
                              "PARAMETERS", "FORMULA", "FORMULA_LATEX", "INVERSE_FORMULA"})


def _pieces(expr: sympy.Expr) -> list[tuple[Any, sympy.Expr]]:
    """(condition or None, branch) pairs of a folded Piecewise, earlier pieces first."""
    expr = sympy.piecewise_fold(expr)
    if not isinstance(expr, sympy.Piecewise):
        return [(None, expr)]
    pieces = []
    for branch, condition in expr.args:
        if condition == sympy.false:
            continue
        if condition == sympy.true:
            pieces.append((None, branch))
            break
        pieces.append((condition, branch))
    return pieces


class _ModulePrinter(SciPyPrinter):
    """Fully qualified numpy/scipy code; adds scipy's erfinv/erfcinv, which log-normal inverses need."""

    def __init__(self) -> None:
        super().__init__({"fully_qualified_modules": True, "inline": True,
                          "allow_unknown_functions": False, "user_functions": {}})

    def _print_erfinv(self, expr: Any) -> str:
        return f"{self._module_format('scipy.special.erfinv')}({self._print(expr.args[0])})"

    def _print_erfcinv(self, expr: Any) -> str:
        return f"{self._module_format('scipy.special.erfcinv')}({self._print(expr.args[0])})"


def _python_code(expr: sympy.Expr, printer: _ModulePrinter, owner: str) -> str:
    try:
        code = printer.doprint(expr)
    except Exception as error:  # sympy's printers raise several types for unsupported nodes
        raise ExportError(argument_message(
            "utility", owner, "made of functions with a numpy or scipy.special equivalent",
            short(expr), f"({type(error).__name__}: {error})")) from None
    if printer._not_supported or "Not supported" in code:
        unsupported = ", ".join(sorted(str(f) for f in printer._not_supported)) or str(expr)
        raise ExportError(argument_message(
            "utility", owner, "made of functions with a numpy or scipy.special equivalent",
            unsupported))
    return code


_MODULE_RUNTIME = '''

def _select(pieces, t, params):
    # Each branch only where its condition first holds (earlier pieces win), so
    # a branch invalid elsewhere never produces a warning or a NaN in the result.
    out = numpy.full(t.shape, numpy.nan)
    todo = numpy.ones(t.shape, dtype=bool)
    for condition, branch in pieces:
        if condition is None:
            take = todo
        else:
            take = todo & numpy.broadcast_to(condition(t, *params), t.shape)
        if take.any():
            out[take] = branch(t[take], *[p[take] for p in params])
        todo = todo & ~take
    return out


def _broadcast(first, params):
    arrays = [numpy.asarray(first, dtype=float)] + [numpy.asarray(p, dtype=float) for p in params]
    shape = numpy.broadcast_shapes(*[a.shape for a in arrays])
    flat = [numpy.broadcast_to(a, shape).ravel() for a in arrays]
    return shape, flat[0], flat[1:]


def _finish(shape, out):
    out = out.reshape(shape)
    return float(out) if out.ndim == 0 else out


def _evaluate(t, params):
    shape, t, params = _broadcast(t, params)
    out = numpy.full(t.shape, numpy.nan)
    with numpy.errstate(all="ignore"):
        inside = (t > 0.0) & (t < numpy.inf)
        sub = [p[inside] for p in params]
        out[inside] = _select(_PIECES, t[inside], sub)
        at_zero = t <= 0.0
        if at_zero.any():
            out[at_zero] = _select(_AT_ZERO, t[at_zero], [p[at_zero] for p in params])
        at_inf = t == numpy.inf
        if at_inf.any():
            out[at_inf] = _select(_AT_INF, t[at_inf], [p[at_inf] for p in params])
        # floating-point breakdowns (0*inf, inf/inf) at extreme finite runtimes
        broken = numpy.isnan(out) & inside
        if broken.any():
            large = broken & (t > 1.0)
            out[large] = _select(_AT_INF, t[large], [p[large] for p in params])
            small = broken & ~large
            out[small] = _select(_AT_ZERO, t[small], [p[small] for p in params])
    return _finish(shape, out)
'''


_INVERSE_RUNTIME = '''

def _evaluate_inverse(u, params):
    shape, u, params = _broadcast(u, params)
    out = numpy.full(u.shape, numpy.nan)
    with numpy.errstate(all="ignore"):
        inside = (u > 0.0) & (u < 1.0)
        out[inside] = _select(_INVERSE_PIECES, u[inside], [p[inside] for p in params])
        out[u == 1.0] = 0.0
    return _finish(shape, out)
'''


def _python_functions(prefix: str, expr: sympy.Expr, args: list[str], printer: _ModulePrinter,
                      owner: str) -> list[str]:
    """Source of one ``_PREFIX`` list of (condition, branch) functions."""
    signature = ", ".join(args)
    lines = []
    entries = []
    for index, (condition, branch) in enumerate(_pieces(expr)):
        name = f"{prefix.lower()}_branch_{index}"
        body = _python_code(branch, printer, owner)
        lines.append(f"def {name}({signature}):\n    return {body}\n")
        if condition is None:
            entries.append(f"(None, {name})")
        else:
            test = f"{prefix.lower()}_condition_{index}"
            lines.append(f"def {test}({signature}):\n    return {_python_code(condition, printer, owner)}\n")
            entries.append(f"({test}, {name})")
    lines.append(f"{prefix} = [{', '.join(entries)}]\n")
    return lines


_FROM_UTILITY = object()


def _python_source(utility: Any, defaults: Mapping[str, Any] | None, owner: str,
                   inverse_expr: Any = _FROM_UTILITY, *, docstring: str | None = None,
                   exports: tuple[str, ...] = ()) -> str:
    """The module's source; ``docstring`` (escaped by the caller) replaces its own and
    ``exports`` join its ``__all__`` (for a module that appends functions of its own)."""

    utility = utility_of(utility, owner)
    expr, parameters = bind_defaults(utility, defaults, owner, required=True)
    names = safe_names([s for s, _ in parameters], _PYTHON_RESERVED, owner, "Python")
    runtime = sympy.Symbol("t")
    plain = {s: sympy.Symbol(names[s]) for s, _ in parameters}
    mapping = {t: runtime, **plain}
    stable = portable_stable(expr).xreplace(mapping)
    printer = _ModulePrinter()
    args = ["t"] + [names[s] for s, _ in parameters]

    # printed first: a formula numpy cannot evaluate is refused before its limits are sought
    body = _python_functions("_PIECES", stable, args, printer, owner)
    at_zero, at_inf = (None if v is None else v.xreplace(mapping) for v in limits(expr))
    for prefix, limit, edge in (("_AT_ZERO", at_zero, "5e-324"), ("_AT_INF", at_inf, "1.7976931348623157e308")):
        if limit is None:
            body.append(f"def {prefix.lower()}_branch_0({', '.join(args)}):\n"
                        f"    return _select(_PIECES, numpy.full(t.shape, {edge}), [{', '.join(args[1:])}])\n")
            body.append(f"{prefix} = [(None, {prefix.lower()}_branch_0)]\n")
        else:
            body.extend(_python_functions(prefix, limit, args, printer, owner))

    if inverse_expr is _FROM_UTILITY:
        try:
            inverse_expr = utility.inverse_expr
        except MaxEntError:
            inverse_expr = None
    inverse_body: list[str] = []
    if inverse_expr is not None:
        u_symbol = sympy.Symbol("u")
        inverse_args = ["u"] + args[1:]
        try:
            inverse_body = _python_functions("_INVERSE_PIECES", inverse_expr.xreplace({level: u_symbol, **plain}),
                                             inverse_args, printer, owner)
        except ExportError:
            inverse_expr, inverse_body = None, []

    code_text = "".join(body) + "".join(inverse_body)
    needs_scipy = "scipy." in code_text
    formula = str(expr)
    latex = sympy.latex(expr)
    keyword_args = ", ".join(f"{names[s]}={float(v)!r}" for s, v in parameters)
    signature = "t" + (f", {keyword_args}" if keyword_args else "")
    call = "[" + ", ".join(names[s] for s, _ in parameters) + "]"
    parameter_doc = "\n".join(f"    {names[s]} : float or array, default {float(v)!r}"
                              + (f" (the symbol `{s.name}`)" if names[s] != s.name else "")
                              for s, v in parameters)
    label = utility.name or "utility"
    requirement = "numpy and scipy.special" if needs_scipy else "numpy"
    if docstring is None:
        docstring = (f"{doc_safe(label)}: a runtime utility exported by maxent_util {__version__}.\n\n"
                     f"Needs {requirement} only.  The formula:\n\n    u(t) = {doc_safe(formula)}\n\n"
                     "`utility(t, ...)` is vectorised: arrays broadcast, t <= 0 gives the exact limit "
                     "u(0+),\nt = inf the exact limit at infinity, NaN gives NaN; no warnings are raised.\n")
    parts = [
        f'"""{docstring}"""\n\n',
        # numpy's printer writes Min and Max as functools.reduce(numpy.minimum, [...])
        ("import functools\n" if "functools." in code_text else "")
        + "import numpy\n" + ("import scipy.special\n" if needs_scipy else ""),
        "\n__all__ = [" + "".join(f"{name!r}, " for name in exports) + "\"utility\""
        + (", \"inverse\"" if inverse_expr is not None else "")
        + ", \"PARAMETERS\", \"FORMULA\", \"FORMULA_LATEX\"]\n\n",
        f"FORMULA = {formula!r}\n",
        f"FORMULA_LATEX = {latex!r}\n",
        "PARAMETERS = {" + ", ".join(f"{names[s]!r}: {float(v)!r}" for s, v in parameters) + "}\n",
        _MODULE_RUNTIME,
        "\n\n" + "\n".join(body),
        f'\n\ndef utility({signature}):\n'
        f'    """u(t) = {doc_safe(formula)}\n\n'
        f"    Parameters\n    ----------\n    t : float or array of runtimes\n"
        + (f"{parameter_doc}\n" if parameter_doc else "") + "\n"
        f'    Returns\n    -------\n    float or ndarray of the broadcast shape\n    """\n'
        f"    return _evaluate(t, {call})\n",
    ]
    if inverse_expr is not None:
        inverse_formula = str(inverse_expr.xreplace({level: sympy.Symbol("u")}))
        parts += [
            f"\n\nINVERSE_FORMULA = {inverse_formula!r}\n",
            _INVERSE_RUNTIME,
            "\n\n" + "\n".join(inverse_body),
            f"\n\ndef inverse(u, {keyword_args}):\n" if keyword_args else "\n\ndef inverse(u):\n",
            f'    """The runtime at which the utility falls to u: t = {doc_safe(inverse_formula)}\n\n'
            "    inverse(1) = 0; a level outside (0, 1], or one the utility jumps over, gives NaN.\n"
            '    """\n',
            f"    return _evaluate_inverse(u, {call})\n",
        ]
        parts[2] = parts[2].replace('"PARAMETERS"', '"INVERSE_FORMULA", "PARAMETERS"')
    return "".join(parts)


def export_python(utility: Any, path: Any, *, defaults: Mapping[str, Any] | None = None,
                  keep_parameters: bool = False, overwrite: bool = False, parents: bool = False) -> Path:
    """Write a standalone Python module that evaluates a utility.

    The module needs only numpy (and ``scipy.special`` when the formula has
    a special function such as ``erfc``).  It defines

    * ``utility(t, <parameters>)``: vectorised, with the parameters as keyword
      arguments (sorted by name) whose defaults come from ``defaults``;
    * ``inverse(u, <parameters>)`` when sympy found ``u^{-1}`` in closed form;
    * ``FORMULA``, ``FORMULA_LATEX`` and ``PARAMETERS`` (name -> default).

    Every ``Piecewise`` branch is evaluated only where it applies (no
    warnings), ``t <= 0`` and ``t = inf`` give the exact limits of ``u``.

    Parameters
    ----------
    utility : Utility, CaptimeDistribution or sympy.Expr
        The utility; a distribution gives its step utility, an expression is in ``t``.
    path : str or os.PathLike
        The ``.py`` file to write; its directory must exist (see ``parents``)
        and the file must not (see ``overwrite``).
    defaults : dict of str to float, keyword-only
        Default values of the utility's free parameters, by name. Every free
        parameter needs one.
    keep_parameters : bool, keyword-only
        For the utility of a preset built with numbers (``pareto(24, 1)``),
        export the preset's symbolic formula with those numbers as defaults,
        so the module's caller can change them (``utility(t, alpha=2.0)``).
        ``inverse`` is kept only where sympy inverts the symbolic formula
        completely.
    overwrite : bool, keyword-only
        Replace ``path`` if it exists (by default an existing file is an error).
    parents : bool, keyword-only
        Create the missing directories of ``path`` (by default an error).

    Returns
    -------
    pathlib.Path
        The file written.

    Raises
    ------
    ExportError
        For a parameter without a default, an unknown parameter name, a
        function with no numpy/scipy equivalent, or a path that cannot be written
        (a directory, an existing file without ``overwrite``, a missing directory
        without ``parents``).

    Examples
    --------
    >>> import tempfile, pathlib, runpy
    >>> from maxent_util import pareto
    >>> folder = tempfile.mkdtemp()
    >>> path = export_python(pareto(24, 1).utility(), pathlib.Path(folder) / "pareto_utility.py")
    >>> module = runpy.run_path(str(path))
    >>> module["utility"]([0.0, 12.0, 48.0, float("inf")])
    array([1. , 1. , 0.5, 0. ])
    """
    owner = "export_python"
    target = writable(path, owner, overwrite=overwrite, parents=parents)
    if keep_parameters:
        utility = utility_of(utility, owner)
        symbolic, preset_defaults, inverse = preset_form(utility, owner)
        defaults = {**preset_defaults, **dict(defaults or {})}
        source = _python_source(symbolic, defaults, owner, inverse)
        expr, parameters = bind_defaults(symbolic, defaults, owner, required=True)
    else:
        source = _python_source(utility, defaults, owner)
        expr, parameters = bind_defaults(utility_of(utility, owner), defaults, owner, required=True)
    # the module's utility at its default parameters, against mpmath at the same numbers
    checked_module(source, expr.xreplace({symbol: sympy.Float(float(value), 30)
                                          for symbol, value in parameters}), owner)
    write(target, source, owner, overwrite=overwrite)
    return target


def checked_module(source: str, expr: sympy.Expr, owner: str) -> Any:
    """The written module, imported from a temporary file, after its ``utility`` (at its
    default parameters) agreed with an mpmath evaluation of ``expr`` at the scorer's check
    points; an error naming the first runtime where it does not, or why it does not import."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "exported_utility.py"
        path.write_text(source, encoding="utf-8")
        spec = importlib.util.spec_from_file_location("exported_utility", path)
        module = importlib.util.module_from_spec(spec)
        try:
            spec.loader.exec_module(module)
        except Exception as error:  # noqa: BLE001 - any failure of the module is the export's
            raise ExportError(argument_message(
                "utility", owner, "a utility whose written module imports", short(expr),
                f"(importing it failed: {type(error).__name__}: {error})")) from None
    points = check_points(expr, t, {})
    with np.errstate(all="ignore"):
        found = np.asarray(module.utility(points), dtype=float)
    refuse_disagreement(found, points, expr, owner, "written")
    return module


def refuse_disagreement(found: np.ndarray, points: np.ndarray, expr: sympy.Expr, owner: str,
                        module: str) -> None:
    """Refuse a module whose utility ``found`` at ``points`` disagrees with an mpmath
    evaluation of ``expr``, naming the first runtime where it does (``module`` says which:
    "written" here, "exported" for a cost module checked in a fresh interpreter)."""
    reference = reference_values(expr, [t], points, [])
    wrong = ~agree(found, reference)
    if wrong.any():
        at = float(points[wrong][0])
        raise ExportError(argument_message(
            "utility", owner, f"a utility its {module} module evaluates right", short(expr),
            f"(at t = {at!r} the module gives {float(found[wrong][0])!r}, mpmath "
            f"{float(reference[wrong][0])!r})"))
