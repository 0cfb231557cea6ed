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
* :func:`cost_function` turns a utility into the cost ``1 - u`` that
  minimising configurators (SMAC3, irace) expect.

Names and labels written into generated source are escaped (they cannot
close a docstring, a string or a comment), and anything a code printer would
copy by name (an undefined function, a bound variable) is refused.

The generated code follows the library's scorer: every ``Piecewise`` branch
is evaluated only where it applies, ``t <= 0`` and ``t = inf`` get the exact
limits of ``u`` (computed symbolically at export time), and a floating-point
breakdown at an extreme runtime gets the limit at the nearer end.
"""

from __future__ import annotations

import ast
import json
import keyword
import math
import os
from pathlib import Path
from typing import Any, Callable, Mapping

import numpy as np
import sympy
from sympy.codegen.rewriting import expm1_opt, optimize
from sympy.printing.c import C99CodePrinter
from sympy.printing.numpy import SciPyPrinter

from ._printing import interval_latex as _interval_latex
from ._printing import latex as _latex
from ._version import __version__
from .constraints import Constraint, ContinuousAt, Support, constraint_kinds
from .errors import DataError, ExportError, MaxEntError, argument_message
from .expressions import as_expression, from_tree, to_tree
from .symbols import q, t
from .distribution import CaptimeDistribution
from .utility import ExpectedUtility, QualityUtility, Utility, y as level
from .maxent import Derivation, derive
from .scorer import _complement_erf, _limit, _log1p, make_scorer
from .families import FAMILIES
from . import families
from .io import FAILURE_STATUSES

__all__ = [
    "to_latex",
    "derivation",
    "export_python",
    "export_c",
    "to_json",
    "from_json",
    "cost_function",
    "JSON_FORMAT",
    "JSON_VERSION",
]

oo = sympy.oo

#: the ``"format"`` header of documents written by :func:`to_json`
JSON_FORMAT = "maxent_util"
#: the ``"version"`` header: the layout read by :func:`from_json` (bumped on incompatible changes)
JSON_VERSION = 2


# ---------------------------------------------------------------------------
# LaTeX
# ---------------------------------------------------------------------------

def _constraint_latex(constraint: Constraint) -> str:
    return constraint.latex()


def _multipliers_latex(multipliers: Mapping[Any, Any]) -> str:
    parts = [f"{_latex(sympy.Symbol(k) if isinstance(k, str) else k)} = {_latex(_display_value(v))}"
             for k, v in multipliers.items()]
    return r",\quad ".join(parts)


def _display_value(value: Any) -> sympy.Expr:
    """A multiplier as the paper would write it: logs combined, floats to 15 digits."""
    value = as_expression(value, arg="multipliers", owner="to_latex", error=ExportError)
    if value.has(sympy.Float):
        return value.xreplace({f: sympy.Float(f, 15) for f in value.atoms(sympy.Float)})
    try:
        return sympy.logcombine(value, force=True)
    except Exception:  # cosmetic only
        return value


def to_latex(obj: Any) -> str:
    """LaTeX (math mode, no ``$``) for the objects a user of maxent_util sees.

    Parameters
    ----------
    obj : Constraint, CaptimeDistribution, Utility, dict of multipliers, or sympy expression
        A constraint prints as stated (``\\operatorname{E}[\\log(\\kappa/\\kappa_0)] = 1/\\alpha``),
        a distribution as its density ``f(\\kappa) = ...``, a utility as
        ``u(t) = ...``, a dict of Lagrange multipliers as
        ``\\lambda_0 = ..., \\lambda_1 = ...``.

    Returns
    -------
    str

    Raises
    ------
    ExportError
        For any other object.

    Examples
    --------
    >>> from maxent_util import Mean, exponential
    >>> to_latex(Mean(3))
    '\\\\operatorname{E}\\\\left[\\\\kappa\\\\right] = 3'
    >>> to_latex(exponential(2).utility())
    'u(t) = e^{- \\\\frac{t}{2}}'
    """

    if isinstance(obj, Constraint):
        return _constraint_latex(obj)
    if isinstance(obj, CaptimeDistribution):
        return rf"f(\kappa) = {_latex(obj.pdf)}"
    if isinstance(obj, Utility):
        return f"u(t) = {_latex(obj.expr)}"
    if isinstance(obj, Mapping) and obj and all(
            isinstance(k, (sympy.Symbol, str)) for k in obj):
        return _multipliers_latex(obj)
    if isinstance(obj, sympy.Basic):
        return _latex(obj)
    raise ExportError(argument_message(
        "obj", "to_latex", "a Constraint, CaptimeDistribution, Utility, dict of multipliers or "
        "sympy expression", _short(obj)))


def _short(value: Any) -> Any:
    text = repr(value)
    return value if len(text) <= 80 else text[:77] + "..."


def _as_distribution(args: tuple, owner: str) -> Any:

    if len(args) == 1 and isinstance(args[0], CaptimeDistribution):
        return args[0]
    if len(args) == 1 and isinstance(args[0], Utility) and getattr(args[0], "distribution", None) is not None:
        return args[0].distribution
    if not args or not all(isinstance(a, Constraint) for a in args):
        raise ExportError(argument_message(
            "constraints", owner, "Constraint objects or one CaptimeDistribution",
            _short(args[0] if len(args) == 1 else args)))
    return derive(*args)


def _indicator(region: tuple, support: tuple) -> str:
    lower, upper = region
    if lower == support[0] and upper == support[1]:
        return ""
    if lower == support[0]:
        return rf" \mathbf{{1}}\{{\kappa < {_latex(upper)}\}}"
    if upper == support[1]:
        return rf" \mathbf{{1}}\{{\kappa \ge {_latex(lower)}\}}"
    return rf" \mathbf{{1}}\{{{_latex(lower)} \le \kappa < {_latex(upper)}\}}"


def _weighted(feature: sympy.Expr) -> str:
    """``g(kappa) f(kappa)`` with brackets where g is a sum."""
    if feature == 1:
        return r"f(\kappa)"
    text = _latex(feature)
    if isinstance(feature, sympy.Add):
        text = rf"\left({text}\right)"
    return rf"{text} f(\kappa)"


def _integral(region: tuple, feature: sympy.Expr) -> str:
    return rf"\int_{{{_latex(region[0])}}}^{{{_latex(region[1])}}} {_weighted(feature)} \;d\kappa"


def _times(multiplier: sympy.Symbol, feature: sympy.Expr) -> str:
    if feature == 1:
        return _latex(multiplier)
    text = _latex(feature)
    if isinstance(feature, sympy.Add):
        text = rf"\left({text}\right)"
    return rf"{_latex(multiplier)} {text}"


def _align(lines: list[str]) -> str:
    return "\\begin{align*}\n    " + " \\\\\n    ".join(lines) + "\n\\end{align*}\n"


def derivation(*constraints: Any, document: bool = False, title: str | None = None) -> str:
    """The maximum-entropy derivation of a captime law, in LaTeX.

    The text follows the shape of the paper's Appendix C: the constraints as
    stated, the functional :math:`L[f, \\lambda]`, its partial derivatives,
    the stationary density, the conditions, the solved multipliers (or their
    numeric values, with a note that no closed form was found), the pdf, the
    CDF and the utility :math:`u(t) = 1 - F(t)`.

    Parameters
    ----------
    *constraints : Constraint, or one CaptimeDistribution (or a Utility derived from one)
        What to derive (constraints are passed to :func:`~maxent_util.derive`).
    document : bool, keyword-only
        ``True`` gives a standalone document (``article`` with ``amsmath``
        only) that ``pdflatex`` compiles; ``False`` a ``\\section``.
    title : str, keyword-only
        Section title; defaults to the preset's name or "Maximum-entropy captime law".

    Returns
    -------
    str

    Raises
    ------
    ExportError
        If the arguments are neither constraints nor a derived distribution.

    Examples
    --------
    >>> from maxent_util import Support, Mean
    >>> text = derivation(Support(0, "oo"), Mean("mu"))
    >>> r"\\lambda_{1} &= \\frac{1}{\\mu}" in text
    True
    """
    dist = _as_distribution(constraints, "derivation")
    record = dist.derivation
    support = tuple(record.support)
    lambda_0 = sympy.Symbol("lambda_0", real=True)
    heading = title or getattr(dist, "name", None) or "Maximum-entropy captime law"
    out: list[str] = [f"\\section{{{_escape_text(heading)}}}\n"]

    # -- the constraints as stated
    out.append("The captime $\\kappa$ satisfies\n")
    out.append(_align([_constraint_latex(c) for c in dist.constraints]
                      or [rf"\kappa \in {_interval_latex(*support)}"]))
    if not any(isinstance(c, Support) for c in dist.constraints):
        out.append(f"on the support $\\kappa \\in {_interval_latex(*support)}$.\n")

    # -- the functional
    a, b = support
    whole = rf"\int_{{{_latex(a)}}}^{{{_latex(b)}}}"
    free_probability = sympy.Symbol("p")
    lines = [rf"L[f(\kappa), \lambda] = - {whole} f(\kappa) \log f(\kappa) \;d\kappa "
             rf"&- {_latex(lambda_0)} \bigg( {whole} f(\kappa) \;d\kappa - 1 \bigg)"]
    derivative_terms = [r"- \log f(\kappa) - 1 - \lambda_{0}"]
    partials = [rf"\frac{{\partial L}}{{\partial \lambda_{{0}}}} &= - {whole} f(\kappa) \;d\kappa + 1"]
    conditions = [rf"{whole} f(\kappa) \;d\kappa &= 1"]
    continuity_notes = []
    for multiplier, feature, region, value, constraint in record.terms:
        is_continuity = isinstance(constraint, ContinuousAt)
        target = free_probability if is_continuity else value
        minus_value = "" if target == 0 else f" - {_latex(target)}"
        lines.append(rf"&- {_latex(multiplier)} \bigg( {_integral(region, feature)}{minus_value} \bigg)")
        derivative_terms.append(f"- {_times(multiplier, feature)}{_indicator(region, support)}")
        plus_value = "" if target == 0 else f" + {_latex(target)}"
        partials.append(rf"\frac{{\partial L}}{{\partial {_latex(multiplier)}}} &= "
                        rf"- {_integral(region, feature)}{plus_value}")
        if is_continuity:
            conditions.append(_latex(constraint.statement()).replace(" = ", " &= ", 1))
            continuity_notes.append(
                f"Here $p = \\operatorname{{P}}(\\kappa < {_latex(constraint.kappa0)})$ is left free: "
                f"the multiplier ${_latex(multiplier)}$ is fixed by continuity of the density at "
                f"$\\kappa = {_latex(constraint.kappa0)}$.\n")
        else:
            conditions.append(rf"{_integral(region, feature)} &= {_latex(value)}")
    out.append("\nThe functional is\n")
    out.append(_align(lines))
    out.extend(continuity_notes)
    out.append("The partial derivatives are\n")
    out.append(_align([r"\frac{\partial L}{\partial f(\kappa)} &= " + " ".join(derivative_terms)]
                      + partials))
    out.append("Setting them to zero gives the stationary density\n")
    out.append(_align([rf"f(\kappa) &= {_latex(record.stationary_density)}"]))
    out.append("with the conditions\n")
    out.append(_align(conditions))

    if record.partition is not None:
        out.append("With the normalising constant\n")
        out.append(_align([rf"Z(\lambda) &= {_latex(record.partition)}"]))
        out.append("we have $\\exp(-1 - \\lambda_0) = 1/Z(\\lambda)$")
        if record.equations:
            out.append(", and the conditions on the other multipliers read\n")
            out.append(_align([_latex(eq).replace(" = ", " &= ", 1) for eq in record.equations]))
        else:
            out.append(".\n")

    # -- the multipliers
    names = ", ".join(f"${_latex(m)}$" for m in dist.multipliers)
    values = [f"{_latex(m)} &= {_latex(_display_value(v))}" for m, v in dist.multipliers.items()]
    if dist.closed_form:
        out.append(f"\nSolving for {names} gives\n")
    else:
        out.append(f"\nNo closed form was found for {names} (method: {_escape_text(record.method)}); "
                   "solved numerically, they are\n")
    out.append(_align(values))

    # -- the law and its utility
    out.append("The density is\n")
    out.append(_align([rf"f(\kappa) &= {_latex(dist.pdf)}"]))
    out.append("its cumulative distribution function is\n")
    out.append(_align([rf"F(\kappa) &= {_latex(dist.cdf)}"]))
    out.append("and the utility of a runtime $t$ is\n")
    out.append(_align([rf"u(t) = 1 - F(t) &= {_latex(dist.utility().expr)}"]))

    text = "".join(out)
    if document:
        text = ("\\documentclass{article}\n\\usepackage{amsmath}\n\\allowdisplaybreaks\n"
                "\\begin{document}\n" + text + "\\end{document}\n")
    return text


def _escape_text(text: str) -> str:
    special = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
               "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\^{}"}
    return "".join(special.get(c, c) for c in str(text))


# ---------------------------------------------------------------------------
# Code generation: shared preparation
# ---------------------------------------------------------------------------

_PYTHON_RESERVED = frozenset({"t", "u", "numpy", "scipy", "builtins", "math", "utility", "inverse",
                              "PARAMETERS", "FORMULA", "FORMULA_LATEX", "INVERSE_FORMULA"})
_C_KEYWORDS = frozenset("""auto break case char const continue default do double else enum extern
    float for goto if inline int long register restrict return short signed sizeof static struct
    switch typedef union unsigned void volatile while _Bool _Complex _Imaginary NAN INFINITY
    isnan isinf n out i size_t exp expm1 log log1p log10 log2 sqrt cbrt pow hypot fabs erf erfc tgamma
    lgamma floor ceil fmin fmax fmod copysign sin cos tan asin acos atan atan2 sinh cosh tanh
    main""".split())


def _utility_of(utility: Any, owner: str) -> Any:
    """A Utility from a Utility, a distribution (its step utility) or an expression in t."""

    if isinstance(utility, CaptimeDistribution):
        utility = utility.utility()
    if isinstance(utility, sympy.Expr):
        utility = Utility(utility)
    if not isinstance(utility, Utility):
        raise ExportError(argument_message(
            "utility", owner, "a Utility, a CaptimeDistribution or a sympy expression in t",
            _short(utility)))
    if isinstance(utility, QualityUtility) or q in utility.expr.free_symbols:
        raise ExportError(argument_message(
            "utility", owner, "a utility of the runtime alone", _short(utility),
            "Utilities of solution quality are not exported; substitute a quality first."))
    if utility.expr.has(sympy.Integral):
        raise ExportError(argument_message(
            "utility", owner, "a closed form (no unevaluated integral)", _short(utility),
            "Export a utility whose expectation over the captime sympy could integrate."))
    _check_exportable(utility.expr, owner)
    return utility


_EXPORTABLE_NODES = (sympy.Number, sympy.NumberSymbol, sympy.logic.boolalg.BooleanAtom, sympy.Add,
                     sympy.Mul, sympy.Pow, sympy.Piecewise, sympy.core.relational.Relational,
                     sympy.And, sympy.Or, sympy.Not, sympy.functions.elementary.piecewise.ExprCondPair)


def _check_exportable(expr: sympy.Basic, owner: str) -> None:
    """Refuse what a code printer would copy into the source as raw text.

    Generated code may contain only numbers, operators, the runtime, the
    parameters (renamed to identifiers) and sympy's own functions: a sum's
    bound variable, an undefined ``Function("...")``, a function class made
    outside sympy or a matrix symbol would be printed by name, and a name can
    be any string.
    """
    for node in sympy.preorder_traversal(expr):
        if isinstance(node, sympy.Symbol):
            if isinstance(node, sympy.Dummy) or node not in expr.free_symbols:
                raise ExportError(argument_message(
                    "utility", owner, "an expression with no bound or dummy variables", str(node),
                    "Sums, products and lambdas are not exported; write the closed form."))
            continue
        if isinstance(node, _EXPORTABLE_NODES):
            continue
        if (isinstance(node, sympy.Function) and not isinstance(node, sympy.core.function.AppliedUndef)
                and type(node).__module__.startswith("sympy.")):
            continue  # one of sympy's functions: the printer knows it or refuses it
        kind = ("an undefined function" if isinstance(node, sympy.core.function.AppliedUndef)
                else f"a {_short(type(node).__name__)}")
        raise ExportError(argument_message(
            "utility", owner, "made of numbers, t, named parameters, arithmetic, comparisons and "
            "sympy's own functions", _short(str(node)), f"It holds {kind}, which is not exported."))


def _bind_defaults(utility: Any, defaults: Mapping[str, Any] | None, owner: str,
                   *, required: bool) -> tuple[sympy.Expr, list[tuple[sympy.Symbol, float | None]]]:
    """The utility's parameters, each with its default value (None: none given).

    With ``required``, a parameter without a default raises ExportError.
    """
    parameters = list(utility.parameters)
    by_name = {s.name: s for s in parameters}
    defaults = dict(defaults or {})
    for name, value in defaults.items():
        if name not in by_name:
            raise ExportError(argument_message(
                name, owner, f"one of the utility's parameters ({', '.join(by_name) or 'none'})",
                value))
        try:
            number = float(value)
        except (TypeError, ValueError):
            number = math.nan
        if not math.isfinite(number):
            raise ExportError(argument_message(name, owner, "a finite number (a default value)", value))
        defaults[name] = number
    missing = [name for name in by_name if name not in defaults]
    if required and missing:
        raise ExportError(argument_message(
            "defaults", owner, f"a value for every unresolved symbol ({', '.join(missing)})",
            dict(defaults),
            f"Pass defaults={{{', '.join(repr(m) + ': ...' for m in missing)}}} or substitute "
            "numbers with `utility.subs(...)` first."))
    return utility.expr, [(by_name[name], defaults.get(name)) for name in by_name]


def _portable_stable(expr: sympy.Expr) -> sympy.Expr:
    """The scorer's cancellation-free rewrites that numpy and C99 both provide.

    ``c - c*erf(z)`` -> ``c*erfc(z)``, ``log(1 + x)`` -> ``log1p(x)``,
    ``exp(x) - 1`` -> ``expm1(x)``; scipy's ``powm1`` has no C99 counterpart
    and is left out.
    """

    expr = _log1p(expr)
    if expr.has(sympy.exp):
        expr = optimize(expr, [expm1_opt])
    return _complement_erf(expr)


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


def _limits(expr: sympy.Expr) -> tuple[sympy.Expr | None, sympy.Expr | None]:
    """lim u(t) as t -> 0+ and as t -> oo (None when sympy cannot tell)."""

    def guarded(point: sympy.Expr) -> sympy.Expr | None:
        try:
            return _limit(expr, point)
        except (RecursionError, Exception):  # sympy's gruntz can recurse without end on power laws
            return None

    return guarded(sympy.S.Zero), guarded(oo)


def _safe_names(parameters: list[sympy.Symbol], reserved: frozenset[str], owner: str,
                language: str) -> dict[sympy.Symbol, str]:
    names: dict[sympy.Symbol, str] = {}
    for symbol in parameters:
        name = symbol.name
        if not name.isidentifier() or not name.isascii():
            raise ExportError(argument_message(
                "utility", owner, f"parameters named as {language} identifiers", name,
                "Rename the symbol (e.g. with `expr.subs(old, sympy.Symbol('new', positive=True))`)."))
        if keyword.iskeyword(name) or name in reserved or name.startswith("_"):
            name = name.strip("_") + "_"
        while name in names.values():
            name += "_"
        names[symbol] = name
    return names


# ---------------------------------------------------------------------------
# Python module
# ---------------------------------------------------------------------------

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
            _short(expr), f"({type(error).__name__}: {error})")) from None
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
                   inverse_expr: Any = _FROM_UTILITY) -> str:

    utility = _utility_of(utility, owner)
    expr, parameters = _bind_defaults(utility, defaults, owner, required=True)
    names = _safe_names([s for s, _ in parameters], _PYTHON_RESERVED, owner, "Python")
    runtime = sympy.Symbol("t")
    plain = {s: sympy.Symbol(names[s]) for s, _ in parameters}
    mapping = {t: runtime, **plain}
    stable = _portable_stable(expr).xreplace(mapping)
    at_zero, at_inf = (None if v is None else v.xreplace(mapping) for v in _limits(expr))
    printer = _ModulePrinter()
    args = ["t"] + [names[s] for s, _ in parameters]

    body = _python_functions("_PIECES", stable, args, printer, owner)
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
    parts = [
        f'"""{_doc_safe(label)}: a runtime utility exported by maxent_util {__version__}.\n\n'
        f"Needs {requirement} only.  The formula:\n\n    u(t) = {_doc_safe(formula)}\n\n"
        "`utility(t, ...)` is vectorised: arrays broadcast, t <= 0 gives the exact limit u(0+),\n"
        "t = inf the exact limit at infinity, NaN gives NaN; no warnings are raised.\n"
        '"""\n\n',
        "import numpy\n" + ("import scipy.special\n" if needs_scipy else ""),
        "\n__all__ = [\"utility\"" + (", \"inverse\"" if inverse_expr is not None else "")
        + ", \"PARAMETERS\", \"FORMULA\", \"FORMULA_LATEX\"]\n\n",
        f"FORMULA = {formula!r}\n",
        f"FORMULA_LATEX = {latex!r}\n",
        "PARAMETERS = {" + ", ".join(f"{names[s]!r}: {float(v)!r}" for s, v in parameters) + "}\n",
        _MODULE_RUNTIME,
        "\n\n" + "\n".join(body),
        f'\n\ndef utility({signature}):\n'
        f'    """u(t) = {_doc_safe(formula)}\n\n'
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
            f'    """The runtime at which the utility falls to u: t = {_doc_safe(inverse_formula)}\n\n'
            "    inverse(1) = 0; a level outside (0, 1], or one the utility jumps over, gives NaN.\n"
            '    """\n',
            f"    return _evaluate_inverse(u, {call})\n",
        ]
        parts[2] = parts[2].replace('"PARAMETERS"', '"INVERSE_FORMULA", "PARAMETERS"')
    return "".join(parts)


def _doc_safe(text: str) -> str:
    """Text for a triple-quoted docstring that cannot close it or break the file.

    Backslashes are doubled and every double quote is escaped, so no ``\"\"\"``
    can form; a line break, NUL or any other unprintable character becomes its
    escape sequence (``\\n``, ``\\x00``), so the text stays on its line.
    """
    out = []
    for char in str(text):
        if char == "\\":
            out.append("\\\\")
        elif char == '"':
            out.append('\\"')
        elif char.isprintable():
            out.append(char)
        else:
            out.append(char.encode("unicode_escape").decode("ascii"))
    return "".join(out)


def _c_comment(text: str) -> str:
    """Text for inside a C block comment: printable ASCII only, and no ``*/`` or ``/*``.

    Anything else is written as an escape (``\\n``, ``\\x00``, ``\\u00e9``), so the
    text can neither end the comment nor start a line of code.
    """
    escaped = []
    for char in str(text):
        if " " <= char <= "~":
            escaped.append(char)
        else:
            escaped.append(char.encode("unicode_escape").decode("ascii"))
    out = "".join(escaped)
    while "*/" in out or "/*" in out:
        out = out.replace("*/", "* /").replace("/*", "/ *")
    return out


def _writable(path: Any, owner: str, *, overwrite: bool = False, parents: bool = False) -> Path:
    """The file to write, checked before the work: not a directory, not an existing file unless asked."""
    try:
        text = os.fspath(path)
    except TypeError:
        raise ExportError(argument_message("path", owner, "a file path (str or os.PathLike)",
                                           _short(path))) from None
    if not isinstance(text, str) or "\x00" in text:
        raise ExportError(argument_message("path", owner, "a file path (str or os.PathLike)", _short(path)))
    target = Path(text)
    if text.endswith(os.sep) or (os.altsep and text.endswith(os.altsep)) or target.is_dir():
        raise ExportError(argument_message("path", owner, "a file path, not a directory", text))
    if target.exists() and not overwrite:
        raise ExportError(argument_message("path", owner, "a file that does not exist yet", text,
                                           "Pass overwrite=True to replace it."))
    if not target.parent.is_dir():
        if not parents or target.parent.exists():
            raise ExportError(argument_message(
                "path", owner, "in an existing directory", text,
                f"Create {str(target.parent)!r} first, or pass parents=True."))
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise ExportError(argument_message(
                "path", owner, "in a directory that can be created", text,
                f"({error.strerror or error})")) from None
    return target


def _write(target: Path, text: str, owner: str, *, overwrite: bool = False) -> None:
    try:
        # "x" also refuses a file that appeared since _writable looked
        with open(target, "w" if overwrite else "x", encoding="utf-8") as handle:
            handle.write(text)
    except FileExistsError:
        raise ExportError(argument_message("path", owner, "a file that does not exist yet", str(target),
                                           "Pass overwrite=True to replace it.")) from None
    except OSError as error:
        raise ExportError(argument_message(
            "path", owner, "a writable file", str(target), f"({error.strerror or error})")) from None


def _preset_label(label: Any) -> tuple[str, list[float]] | None:
    """``("pareto", [24.0, 1.0])`` from a preset's name such as ``"pareto(24, 1)"``, else None."""

    if not isinstance(label, str) or len(label) > 200:
        return None
    try:
        node = ast.parse(label.strip(), mode="eval").body  # parsed, never evaluated
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)) or node.keywords:
        return None
    family = node.func.id
    if family not in FAMILIES or len(node.args) != len(FAMILIES[family]):
        return None

    def number(item: ast.AST) -> float:
        # literals, signs and fractions only: a name is a symbol, not a number
        if isinstance(item, ast.Constant) and isinstance(item.value, (int, float)) \
                and not isinstance(item.value, bool):
            return float(item.value)
        if isinstance(item, ast.UnaryOp) and isinstance(item.op, ast.USub):
            return -number(item.operand)
        if isinstance(item, ast.BinOp) and isinstance(item.op, ast.Div):
            return number(item.left) / number(item.right)
        raise ValueError(item)

    try:
        return family, [number(argument) for argument in node.args]
    except (ValueError, ZeroDivisionError):
        return None


def _preset_form(utility: Any, owner: str) -> tuple[Any, dict[str, float], Any]:
    """The symbolic preset behind a utility built with numbers, its numbers, and a checked inverse."""

    distribution = getattr(utility, "distribution", None)
    label = getattr(distribution, "name", None) or utility.name
    parsed = _preset_label(label)
    if parsed is None:
        raise ExportError(argument_message(
            "utility", owner, "a preset's utility built with numbers, e.g. pareto(24, 1), when "
            "keep_parameters=True", label if label is not None else _short(utility),
            "Export the utility itself, or pass its symbolic form with `defaults`."))
    family, numbers = parsed
    names = FAMILIES[family]
    symbolic = Utility(getattr(families, family)(*names).utility().expr, name=label)
    defaults = dict(zip(names, numbers))
    # the symbolic law must reproduce the utility it stands for
    grid = np.geomspace(1e-6, 1e6, 200) * max(abs(numbers[0]), 1e-300)
    general = make_scorer(symbolic)(grid, **defaults)
    specific = make_scorer(utility)(grid)
    if not np.allclose(general, specific, rtol=1e-9, atol=1e-300, equal_nan=True):
        raise ExportError(argument_message(
            "utility", owner, f"the utility of `{label}`", _short(utility),
            "Its formula no longer matches the preset; export it with keep_parameters=False."))
    inverse = symbolic.inverse_expr
    if inverse is not None:
        # keep the symbolic inverse only if it is complete: it must invert u at the preset's numbers
        levels = np.linspace(0.01, 0.99, 99)
        try:
            times = utility.inverse(levels)
            function = sympy.lambdify(level, inverse.subs({s: v for s, v in zip(
                sorted(inverse.free_symbols - {level}, key=lambda s: s.name),
                [defaults[s.name] for s in sorted(inverse.free_symbols - {level}, key=lambda s: s.name)])}),
                modules=["scipy", "numpy"])
            with np.errstate(all="ignore"):
                found = np.broadcast_to(np.asarray(function(levels), dtype=float), levels.shape)
            if not np.allclose(found, times, rtol=1e-9):
                inverse = None
        except (MaxEntError, KeyError, TypeError, ValueError):
            inverse = None
    return symbolic, defaults, inverse


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
    utility : Utility, CaptimeDistribution (its step utility) or sympy expression in t
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
    target = _writable(path, owner, overwrite=overwrite, parents=parents)
    if keep_parameters:
        utility = _utility_of(utility, owner)
        symbolic, preset_defaults, inverse = _preset_form(utility, owner)
        source = _python_source(symbolic, {**preset_defaults, **dict(defaults or {})}, owner, inverse)
    else:
        source = _python_source(utility, defaults, owner)
    _write(target, source, owner, overwrite=overwrite)
    return target


# ---------------------------------------------------------------------------
# C99
# ---------------------------------------------------------------------------

def _c_code(expr: sympy.Expr, printer: C99CodePrinter, owner: str) -> str:
    try:
        code = printer.doprint(expr)
    except Exception as error:  # sympy's printers raise several types for unsupported nodes
        raise ExportError(argument_message(
            "utility", owner, "made of functions with a C99 <math.h> equivalent", _short(expr),
            f"({type(error).__name__}: {error})")) from None
    if printer._not_supported or "Not supported" in code:
        unsupported = ", ".join(sorted(str(f) for f in printer._not_supported)) or str(expr)
        raise ExportError(argument_message(
            "utility", owner, "made of functions with a C99 <math.h> equivalent", unsupported))
    return code


def export_c(utility: Any, *, defaults: Mapping[str, Any] | None = None, name: str = "utility") -> str:
    """C99 source of a utility: ``double utility(double t, ...)``.

    One extra ``double`` argument follows ``t`` per parameter left unbound
    (sorted by name); ``defaults`` binds parameters to numbers instead.  The
    function returns the exact limits ``u(0+)`` for ``t <= 0`` and
    ``lim u`` for ``t = +inf`` (``isinf``), NaN for NaN, and evaluates each
    ``Piecewise`` branch only where it applies (C's ``?:``).  A second
    function ``void utility_array(size_t n, const double *t, double *out, ...)``
    fills ``out`` for ``n`` runtimes.  Compile with ``cc -O2 ... -lm``.

    Parameters
    ----------
    utility : Utility, CaptimeDistribution (its step utility) or sympy expression in t
    defaults : dict of str to float, keyword-only
        Parameters to bind to numbers (they are no longer arguments).
    name : str, keyword-only
        Name of the C function (a C identifier).

    Returns
    -------
    str

    Raises
    ------
    ExportError
        For an unknown parameter name, a bad function name, or a function
        with no C99 equivalent.

    Examples
    --------
    >>> from maxent_util import exponential
    >>> source = export_c(exponential("mu").utility())
    >>> "double utility(double t, double mu)" in source
    True
    """
    owner = "export_c"
    if not (isinstance(name, str) and name.isidentifier() and name.isascii()
            and name not in _C_KEYWORDS):
        raise ExportError(argument_message("name", owner, "a C identifier", name))
    utility = _utility_of(utility, owner)
    expr, parameters = _bind_defaults(utility, defaults, owner, required=False)
    bound = {s: sympy.Float(v, 17) for s, v in parameters if v is not None}
    free = [s for s, v in parameters if v is None]
    names = _safe_names(free, _C_KEYWORDS | {name, f"{name}_array", f"{name}_formula", "t", "value"}, owner, "C")
    runtime = sympy.Symbol("t")
    mapping = {t: runtime, **{s: sympy.Symbol(names[s]) for s in free}}
    expr = expr.xreplace(bound)
    at_zero, at_inf = _limits(expr)
    # no M_SQRT2-style macros: they are POSIX, not C99
    printer = C99CodePrinter({"strict": False, "math_macros": {}})
    body = _c_code(_portable_stable(expr).xreplace(mapping), printer, owner)
    arguments = "".join(f", double {names[s]}" for s in free)
    forwarded = "".join(f", {names[s]}" for s in free)
    # without a symbolic limit, the formula at the last representable runtime
    if at_zero is None:
        zero_code = f"{name}_formula(4.9406564584124654e-324{forwarded})"
    else:
        zero_code = _c_code(at_zero.xreplace(mapping), printer, owner)
    if at_inf is None:
        inf_code = f"{name}_formula(1.7976931348623157e308{forwarded})"
    else:
        inf_code = _c_code(at_inf.xreplace(mapping), printer, owner)

    formula = _c_comment(str(expr))
    bound_note = "".join(f"\n *   {_c_comment(s.name)} = {float(v)!r}" for s, v in parameters if v is not None)
    label = "" if utility.name is None else f"{_c_comment(utility.name)}: "
    return (
        f"/* {label}u(t) = {formula}\n"
        f" * exported by maxent_util {__version__}; C99, link with -lm."
        + (f"\n * bound parameters:{bound_note}" if bound_note else "") + "\n */\n"
        "#include <math.h>\n#include <stddef.h>\n\n"
        f"static double {name}_formula(double t{arguments})\n{{\n"
        f"    return {body};\n"
        "}\n\n"
        f"double {name}(double t{arguments})\n{{\n"
        "    double value;\n"
        "    if (isnan(t)) return NAN;\n"
        f"    if (t <= 0.0) return {zero_code};\n"
        f"    if (isinf(t)) return {inf_code};\n"
        f"    value = {name}_formula(t{forwarded});\n"
        "    if (!isnan(value)) return value;\n"
        "    /* a floating-point breakdown (0*inf, inf/inf) at an extreme runtime */\n"
        f"    return t > 1.0 ? {inf_code} : {zero_code};\n"
        "}\n\n"
        f"void {name}_array(size_t n, const double *t, double *out{arguments})\n{{\n"
        "    size_t i;\n"
        f"    for (i = 0; i < n; ++i) out[i] = {name}(t[i]{forwarded});\n"
        "}\n"
    )


# ---------------------------------------------------------------------------
# JSON
# ---------------------------------------------------------------------------
#
# A document is data: a header ({"format": "maxent_util", "version": 2}), plain
# JSON fields, and expressions as operator trees (maxent_util.expressions.to_tree).
# Reading it looks every node up in closed tables and calls constructors
# directly; no string is ever evaluated.  docs/json-format.md describes it.

#: largest document read by :func:`from_json`, in characters
MAX_JSON_LENGTH = 10_000_000
#: most items in any list of a document (pieces, terms, constraints, ...)
_MAX_ITEMS = 1000
#: longest plain string field (a name, a method, a constraint option)
_MAX_TEXT = 1000


class _Document:
    """Typed access to a parsed document; every failure is an ExportError naming the field's path."""

    owner = "from_json"

    @staticmethod
    def fail(where: str, requirement: str, value: Any, remedy: str | None = None) -> ExportError:
        return ExportError(argument_message(where, "from_json", requirement, _short(value), remedy))

    def field(self, data: Any, key: str, where: str) -> Any:
        if not isinstance(data, dict):
            raise self.fail(where or "document", "an object", data)
        if key not in data:
            raise self.fail(_join(where, key), "present", "nothing",
                            "The document is incomplete; write it again with maxent_util.to_json.")
        return data[key]

    def expr(self, data: Any, key: str, where: str, *, kind: str = "expression",
             optional: bool = False) -> Any:
        value = self.field(data, key, where)
        if optional and value is None:
            return None
        return self.tree(value, _join(where, key), kind=kind)

    def tree(self, value: Any, where: str, *, kind: str = "expression") -> Any:
        built = from_tree(value, where=where, owner="from_json", error=ExportError)
        if kind == "expression" and not isinstance(built, sympy.Expr):
            raise self.fail(where, "an expression", str(built))
        if kind == "symbol" and not isinstance(built, sympy.Symbol):
            raise self.fail(where, "a symbol", str(built))
        if kind == "relation" and not isinstance(built, (sympy.Basic,)):
            raise self.fail(where, "a relation", str(built))
        return built

    def items(self, data: Any, key: str, where: str, *, length: int | None = None) -> list:
        value = self.field(data, key, where)
        path = _join(where, key)
        if not isinstance(value, list) or len(value) > _MAX_ITEMS:
            raise self.fail(path, f"a list of at most {_MAX_ITEMS} items", value)
        if length is not None and len(value) != length:
            raise self.fail(path, f"a list of {length} items", value)
        return value

    def exprs(self, data: Any, key: str, where: str, *, length: int | None = None,
              kind: str = "expression") -> list:
        path = _join(where, key)
        return [self.tree(v, f"{path}[{i}]", kind=kind)
                for i, v in enumerate(self.items(data, key, where, length=length))]

    def text(self, data: Any, key: str, where: str, *, optional: bool = False) -> str | None:
        value = self.field(data, key, where)
        if optional and value is None:
            return None
        if not isinstance(value, str) or len(value) > _MAX_TEXT or "\x00" in value:
            raise self.fail(_join(where, key), f"a string of at most {_MAX_TEXT} characters"
                            + (" or null" if optional else ""), value)
        return value

    def flag(self, data: Any, key: str, where: str) -> bool:
        value = self.field(data, key, where)
        if not isinstance(value, bool):
            raise self.fail(_join(where, key), "true or false", value)
        return value

    def number(self, data: Any, key: str, where: str) -> float:
        value = self.field(data, key, where)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not (
                isinstance(value, float) or abs(value) < 10 ** 15) or not math.isfinite(value) or value <= 0:
            raise self.fail(_join(where, key), "a positive finite number", value)
        return float(value)


def _join(where: str, key: str) -> str:
    return f"{where}.{key}" if where else key


def _tree(value: Any, where: str) -> Any:
    try:
        return to_tree(value)
    except TypeError as error:
        raise ExportError(argument_message(
            "obj", "to_json", "made of expressions the JSON format has operators for", where,
            f"Found {str(error).replace('no tree form for ', '')}, which has no operator; "
            "see docs/json-format.md.")) from None


def _trees(values: Any, where: str) -> list:
    return [_tree(as_expression(v, arg=where, owner="to_json", error=ExportError)
                  if not isinstance(v, sympy.Basic) else v, f"{where}[{i}]")
            for i, v in enumerate(values)]


def _encode_constraint(constraint: Constraint, where: str) -> dict:
    arguments = constraint.arguments
    options: dict[str, Any] = {}
    for name in constraint.option_names:
        value = arguments.get(name)
        if value is None or isinstance(value, str):
            options[name] = value
        elif isinstance(value, (tuple, list)):
            options[name] = _trees(value, f"{where}.options.{name}")
        else:
            raise ExportError(argument_message(
                name, "to_json", "None, a string or a tuple of expressions (a constraint option)",
                _short(value)))
    return {"kind": type(constraint).__name__,
            "arguments": {name: _tree(arguments[name], f"{where}.arguments.{name}")
                          for name in constraint.argument_names},
            "options": options,
            # for people reading the file; ignored when loading
            "readable": repr(constraint)}


def _decode_constraint(reader: _Document, data: Any, where: str) -> Constraint:
    kinds = constraint_kinds()
    kind = reader.field(data, "kind", where)
    if not isinstance(kind, str) or kind not in kinds:
        raise reader.fail(_join(where, "kind"), f"a known constraint kind ({', '.join(kinds)})", kind)
    cls = kinds[kind]
    arguments = reader.field(data, "arguments", where)
    options = reader.field(data, "options", where)
    if not isinstance(arguments, dict) or not set(arguments) <= set(cls.argument_names):
        raise reader.fail(_join(where, "arguments"), f"an object with keys among "
                          f"{', '.join(cls.argument_names) or 'none'}", arguments)
    if not isinstance(options, dict) or not set(options) <= set(cls.option_names):
        raise reader.fail(_join(where, "options"), f"an object with keys among "
                          f"{', '.join(cls.option_names) or 'none'}", options)
    values: dict[str, Any] = {name: reader.tree(value, f"{where}.arguments.{name}")
                              for name, value in arguments.items()}
    for name, value in options.items():
        path = f"{where}.options.{name}"
        if value is None:
            values[name] = None
        elif isinstance(value, str) and len(value) <= _MAX_TEXT:
            values[name] = value  # e.g. side="above"; the constraint's check() accepts or refuses it
        elif isinstance(value, list) and len(value) <= _MAX_ITEMS:
            values[name] = tuple(reader.tree(v, f"{path}[{i}]") for i, v in enumerate(value))
        else:
            raise reader.fail(path, "null, a string or a list of expressions", value)
    try:
        return cls(**values)
    except MaxEntError as error:
        raise reader.fail(where, f"a valid {kind} constraint", values, f"({error})") from None


def _distribution_payload(dist: Any) -> dict:
    record = dist.derivation
    terms = []
    for index, (multiplier, feature, region, value, constraint) in enumerate(record.terms):
        where = f"derivation.terms[{index}]"
        # a continuity condition has no target value: sympy's nan, written as null
        terms.append({"multiplier": _tree(multiplier, f"{where}.multiplier"),
                      "feature": _tree(feature, f"{where}.feature"),
                      "region": _trees(region, f"{where}.region"),
                      "value": None if value is sympy.nan else _tree(value, f"{where}.value"),
                      "constraint": _encode_constraint(constraint, f"{where}.constraint")})
    return {
        "name": getattr(dist, "name", None),
        "constraints": [_encode_constraint(c, f"constraints[{i}]") for i, c in enumerate(dist.constraints)],
        "support": _trees(dist.support, "support"),
        "breakpoints": _trees(dist.breakpoints, "breakpoints"),
        "pdf_pieces": _trees(dist._pdf_pieces, "pdf_pieces"),
        "cdf_pieces": _trees(dist._cdf_pieces, "cdf_pieces"),
        "sf_pieces": _trees(dist._sf_pieces, "sf_pieces"),
        "scales": [None if s is None else _tree(s, f"scales[{i}]") for i, s in enumerate(dist._scales)],
        "multipliers": [[_tree(k, "multipliers"), _tree(v, f"multipliers.{k}")]
                        for k, v in dist.multipliers.items()],
        "closed_form": bool(dist.closed_form),
        "timeout": float(dist._timeout),
        "derivation": {
            "support": _trees(record.support, "derivation.support"),
            "terms": terms,
            "breakpoints": _trees(record.breakpoints, "derivation.breakpoints"),
            "stationary_density": _tree(record.stationary_density, "derivation.stationary_density"),
            "partition": None if record.partition is None else _tree(record.partition, "derivation.partition"),
            "equations": [_tree(eq, f"derivation.equations[{i}]") for i, eq in enumerate(record.equations)],
            "method": record.method,
        },
        # for people reading the file; ignored when loading
        "readable": {"pdf": str(dist.pdf), "cdf": str(dist.cdf),
                     "multipliers": {str(k): str(v) for k, v in dist.multipliers.items()}},
    }


def _load_distribution(reader: _Document, data: Any, where: str) -> Any:

    record_where = _join(where, "derivation")
    record_data = reader.field(data, "derivation", where)
    terms = []
    for index, term in enumerate(reader.items(record_data, "terms", record_where)):
        path = f"{record_where}.terms[{index}]"
        value = reader.field(term, "value", path)
        terms.append((reader.expr(term, "multiplier", path, kind="symbol"),
                      reader.expr(term, "feature", path),
                      tuple(reader.exprs(term, "region", path, length=2)),
                      sympy.nan if value is None else reader.tree(value, _join(path, "value")),
                      _decode_constraint(reader, reader.field(term, "constraint", path),
                                         _join(path, "constraint"))))
    equations = [reader.tree(v, f"{record_where}.equations[{i}]", kind="relation")
                 for i, v in enumerate(reader.items(record_data, "equations", record_where))]
    method = reader.text(record_data, "method", record_where)
    record = Derivation(
        support=tuple(reader.exprs(record_data, "support", record_where, length=2)),
        terms=terms,
        breakpoints=reader.exprs(record_data, "breakpoints", record_where),
        stationary_density=reader.expr(record_data, "stationary_density", record_where),
        partition=reader.expr(record_data, "partition", record_where, optional=True),
        equations=equations, method=method)

    pdf = reader.exprs(data, "pdf_pieces", where)
    if not pdf:
        raise reader.fail(_join(where, "pdf_pieces"), "a list of at least one piece", pdf)
    count = len(pdf)
    cdf = reader.exprs(data, "cdf_pieces", where, length=count)
    sf = reader.exprs(data, "sf_pieces", where, length=count)
    breakpoints = reader.exprs(data, "breakpoints", where, length=count + 1)  # the ends of the pieces
    scales = [None if v is None else reader.tree(v, f"{_join(where, 'scales')}[{i}]")
              for i, v in enumerate(reader.items(data, "scales", where, length=count))]
    multipliers = {}
    for index, pair in enumerate(reader.items(data, "multipliers", where)):
        path = f"{_join(where, 'multipliers')}[{index}]"
        if not (isinstance(pair, list) and len(pair) == 2):
            raise reader.fail(path, "a [symbol, value] pair", pair)
        multipliers[reader.tree(pair[0], path, kind="symbol")] = reader.tree(pair[1], path)
    constraints = tuple(_decode_constraint(reader, c, f"{_join(where, 'constraints')}[{i}]")
                        for i, c in enumerate(reader.items(data, "constraints", where)))
    dist = CaptimeDistribution(
        constraints=constraints, support=tuple(reader.exprs(data, "support", where, length=2)),
        pdf_pieces=pdf, cdf_pieces=cdf, sf_pieces=sf, breakpoints=breakpoints,
        multipliers=multipliers, closed_form=reader.flag(data, "closed_form", where),
        derivation=record, timeout=reader.number(data, "timeout", where), scales=scales)
    name = reader.text(data, "name", where, optional=True)
    if name is not None:
        dist.name = name
    return dist


def _utility_payload(utility: Any) -> dict:

    payload: dict[str, Any] = {"class": type(utility).__name__, "name": utility.name,
                               "expr": _tree(utility.expr, "expr"), "readable": str(utility.expr)}
    if isinstance(utility, QualityUtility):
        payload["q0"], payload["q1"] = _tree(utility.q0, "q0"), _tree(utility.q1, "q1")
    elif isinstance(utility, ExpectedUtility):
        payload["per_captime"] = _tree(utility.per_captime, "per_captime")
        payload["captime_pdf"] = _tree(utility.captime_pdf, "captime_pdf")
        payload["captime_support"] = _trees(utility.captime_support, "captime_support")
        payload["method"] = utility.method
    distribution = getattr(utility, "distribution", None)
    payload["distribution"] = None if distribution is None else _distribution_payload(distribution)
    return payload


def _load_utility(reader: _Document, data: dict) -> Any:

    kind = reader.field(data, "class", "")
    expr = reader.expr(data, "expr", "")
    name = reader.text(data, "name", "", optional=True)
    try:
        if kind == "QualityUtility":
            utility = QualityUtility(expr, q0=reader.expr(data, "q0", ""), q1=reader.expr(data, "q1", ""),
                                     name=name)
        elif kind == "ExpectedUtility":
            utility = ExpectedUtility(
                expr, per_captime=reader.expr(data, "per_captime", ""),
                captime_pdf=reader.expr(data, "captime_pdf", ""),
                captime_support=tuple(reader.exprs(data, "captime_support", "", length=2)),
                method=reader.text(data, "method", ""), name=name)
        elif kind == "Utility":
            utility = Utility(expr, name=name)
        else:
            raise reader.fail("class", "'Utility', 'QualityUtility' or 'ExpectedUtility'", kind)
    except ExportError:
        raise
    except MaxEntError as error:
        raise reader.fail("expr", f"a valid {kind}", str(expr), f"({error})") from None
    distribution = reader.field(data, "distribution", "")
    if distribution is not None:
        utility.distribution = _load_distribution(reader, distribution, "distribution")
    return utility


def to_json(obj: Any, *, indent: int | None = 2) -> str:
    """A derived captime law or a utility as JSON text, to store and load without deriving again.

    The document is data, not code: a header ``{"format": "maxent_util",
    "version": 2}``, plain fields, and every expression as a tree of
    operators and leaves (:func:`maxent_util.expressions.to_tree`): exact,
    so rationals stay rational and floats keep their precision.  A
    distribution keeps its constraints, pieces, multipliers, derivation
    record and name; a utility keeps its expression, name and, when it came
    from :meth:`utility`, its distribution.  The same object gives the same
    bytes in every process.  The layout is described in ``docs/json-format.md``.

    Raises
    ------
    ExportError
        For an object that is neither a CaptimeDistribution nor a Utility, or
        one holding an expression the format has no operator for.

    Examples
    --------
    >>> from maxent_util import pareto
    >>> utility = from_json(to_json(pareto(24, 1).utility()))
    >>> utility(48.0), utility.distribution.multipliers
    (0.5, {lambda_0: -1 + log(24), lambda_1: 2})
    """

    header = {"format": JSON_FORMAT, "version": JSON_VERSION}
    if isinstance(obj, CaptimeDistribution):
        payload = {**header, "kind": "distribution", **_distribution_payload(obj)}
    elif isinstance(obj, Utility):
        payload = {**header, "kind": "utility", **_utility_payload(obj)}
    else:
        raise ExportError(argument_message("obj", "to_json", "a CaptimeDistribution or a Utility", _short(obj)))
    return json.dumps(payload, indent=indent, allow_nan=False)


def _refuse_constant(name: str) -> Any:
    raise ExportError(argument_message("text", "from_json", "JSON without NaN or Infinity", name))


def from_json(text: str | bytes) -> Any:
    """Load what :func:`to_json` wrote: a CaptimeDistribution or a Utility.

    The text is read as data: expressions are rebuilt node by node from the
    closed list of operators of :func:`maxent_util.expressions.from_tree`,
    nothing is evaluated as code, no file is touched and nothing is derived
    again.  Only version 2 documents are read (the earlier ``srepr`` layout,
    ``"format": "maxent_util/1"``, is refused: write the object again).

    Raises
    ------
    ExportError
        For text that is not a document written by :func:`to_json`: not JSON,
        an unknown format or version, a missing or mistyped field, an unknown
        operator or constraint kind, a number of more than
        :data:`~maxent_util.expressions.MAX_DIGITS` digits, or an expression
        nested deeper than :data:`~maxent_util.expressions.MAX_DEPTH`.  The
        message names the field, e.g. ``derivation.terms[0].feature``.
    """
    if not isinstance(text, (str, bytes, bytearray)):
        raise ExportError(argument_message("text", "from_json", "a JSON string", _short(text)))
    if len(text) > MAX_JSON_LENGTH:
        raise ExportError(argument_message("text", "from_json", f"at most {MAX_JSON_LENGTH} characters",
                                           f"{len(text)} characters"))
    try:
        data = json.loads(text, parse_constant=_refuse_constant)
    except ExportError:
        raise
    except (ValueError, RecursionError, MemoryError) as error:
        # ValueError covers bad JSON, bad UTF-8 and integers longer than Python converts
        detail = str(error) if not isinstance(error, RecursionError) else "nested too deeply"
        raise ExportError(argument_message("text", "from_json", "valid JSON", _short(text),
                                           f"({_short(detail)})")) from None
    if not isinstance(data, dict):
        raise ExportError(argument_message("text", "from_json", "a JSON object written by to_json",
                                           _short(data)))
    found = data.get("format")
    if found != JSON_FORMAT:
        remedy = ("Documents of the old srepr layout are not read (they could run code); "
                  "write the object again with maxent_util.to_json." if found == "maxent_util/1"
                  else "The text was not written by maxent_util.export.to_json.")
        raise ExportError(argument_message("format", "from_json", repr(JSON_FORMAT), _short(found), remedy))
    version = data.get("version")
    if isinstance(version, bool) or version != JSON_VERSION:
        raise ExportError(argument_message(
            "version", "from_json", f"{JSON_VERSION} (the version this maxent_util reads)", _short(version),
            "A newer maxent_util may read it."))
    reader = _Document()
    kind = data.get("kind")
    if kind == "distribution":
        return _load_distribution(reader, data, "")
    if kind == "utility":
        return _load_utility(reader, data)
    raise ExportError(argument_message("kind", "from_json", "'distribution' or 'utility'", _short(kind)))


# ---------------------------------------------------------------------------
# Configurators
# ---------------------------------------------------------------------------

#: names configurators use for a run's outcome -> the library's status
_STATUS_ALIASES = {"success": "solved", "ok": "solved", "sat": "solved", "unsat": "solved",
                   "crashed": "crash", "memoryout": "memout", "memory_out": "memout",
                   "memorylimit": "memout"}


def _status_codes(status: Any, shape: tuple) -> np.ndarray:
    """0 solved, 1 timeout, 2 failure (u = 0)."""

    def normalise(value: Any) -> str:
        if hasattr(value, "name") and not isinstance(value, str):  # an enum such as SMAC's StatusType
            value = value.name
        text = str(value).strip().lower()
        return _STATUS_ALIASES.get(text, text)

    def code(value: Any) -> int:
        name = normalise(value)
        if name == "solved":
            return 0
        if name == "timeout":
            return 1
        if name in FAILURE_STATUSES:
            return 2
        raise DataError(argument_message(
            "status", "cost", f"one of 'solved', 'timeout', {', '.join(map(repr, FAILURE_STATUSES))}",
            value, "SMAC-style names (SUCCESS, TIMEOUT, CRASHED, MEMORYOUT) are accepted too."))

    values = np.asarray(status)
    if values.dtype.kind in "US":
        # a few distinct strings among many runs: classify each once
        distinct, index = np.unique(values, return_inverse=True)
        codes = np.array([code(str(v)) for v in distinct], dtype=np.int8)[index].reshape(values.shape)
    else:
        values = np.asarray(status, dtype=object)
        codes = np.empty(values.shape, dtype=np.int8)
        for position, value in np.ndenumerate(values):
            codes[position] = code(value)
    return np.broadcast_to(codes, shape)


def cost_function(utility: Any, *, timeouts: str = "zero",
                  defaults: Mapping[str, Any] | None = None) -> Callable[..., Any]:
    """The cost ``1 - u`` that minimising configurators expect, from a utility.

    Parameters
    ----------
    utility : Utility, CaptimeDistribution (its step utility) or sympy expression in t
    timeouts : {"zero", "cutoff"}, keyword-only
        How a capped run (status ``"timeout"``) counts: ``"zero"`` (default,
        the paper's estimate: u = 0, cost 1) or ``"cutoff"`` (u(cutoff), the
        most it could be worth: an optimistic cost).
    defaults : dict of str to float, keyword-only
        Values of the utility's free parameters; each needs one.

    Returns
    -------
    cost(runtime, status="solved", cutoff=None)
        Vectorised over runtimes, statuses and cutoffs (broadcast). A
        solved run costs ``1 - u(runtime)``; a timeout as chosen above
        (``cutoff`` defaults to the runtime, the time the run was stopped);
        ``"memout"``, ``"crash"`` and ``"unverified"`` cost 1 (u = 0).
        Statuses may be SMAC3's names (``SUCCESS``, ``TIMEOUT``, ``CRASHED``,
        ``MEMORYOUT``, or its ``StatusType`` members). A scalar call returns a float.

    Raises
    ------
    ExportError
        For an unknown ``timeouts`` or a parameter without a value.
    DataError
        From ``cost`` for an unknown status.

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
    >>> cost([0.0, 24.0, 300.0, 5.0], ["solved", "solved", "timeout", "crash"], 300.0).round(4)
    array([0.    , 0.6321, 1.    , 1.    ])
    """

    owner = "cost_function"
    if timeouts not in ("zero", "cutoff"):
        raise ExportError(argument_message("timeouts", owner, "'zero' or 'cutoff'", timeouts))
    utility = _utility_of(utility, owner)
    expr, parameters = _bind_defaults(utility, defaults, owner, required=True)
    expr = expr.xreplace({s: sympy.Float(v, 17) for s, v in parameters})
    scorer = make_scorer(expr)

    def cost(runtime: Any, status: Any = "solved", cutoff: Any = None) -> Any:
        runtimes = np.asarray(runtime, dtype=float)
        cutoffs = runtimes if cutoff is None else np.asarray(cutoff, dtype=float)
        shape = np.broadcast_shapes(runtimes.shape, np.shape(status), cutoffs.shape)
        codes = _status_codes(status, shape)
        runtimes = np.broadcast_to(runtimes, shape)
        value = np.asarray(scorer(runtimes), dtype=float)
        if timeouts == "cutoff":
            capped = np.asarray(scorer(np.broadcast_to(cutoffs, shape)), dtype=float)
            value = np.where(codes == 1, capped, value)
        else:
            value = np.where(codes == 1, 0.0, value)
        value = np.where(codes == 2, 0.0, value)
        out = 1.0 - value
        return float(out) if out.ndim == 0 else out

    cost.__doc__ = f"1 - u(runtime) for u(t) = {expr}; timeouts count {timeouts!r}."
    return cost
