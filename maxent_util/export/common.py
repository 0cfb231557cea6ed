"""What several exports share: checks of the utility, safe names, escaping, limits, files.

Every name written into generated source passes through here: parameters become
identifiers (:func:`safe_names`), labels and formulas are escaped for a docstring,
a C comment or LaTeX text, and anything a code printer would copy by name is
refused (:func:`check_exportable`).
"""

from __future__ import annotations

import keyword
import math
from typing import Any, Mapping

import numpy as np
import sympy
from sympy.codegen.rewriting import expm1_opt, optimize

# the checks and the write of a file, shared with the report, live with atomic_file
from .._output import writable, write  # noqa: F401  (the export modules import them from here)
from ..errors import ExportError, MaxEntError, argument_message, short
from ..expressions import numpy_modules
from ..symbols import q
from ..distribution import CaptimeDistribution
from ..utility import QualityUtility, Utility, y as level
from ..scorer import compile_scorer, complement_erf, limit_at_end, rewrite_log1p
from ..families import FAMILIES, symbolic_preset


oo = sympy.oo


def escape_text(text: str) -> str:
    special = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
               "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\^{}"}
    return "".join(special.get(c, c) for c in str(text))


def utility_of(utility: Any, owner: str) -> Any:
    """A Utility from a Utility, a distribution (its step utility) or an expression in t."""

    if isinstance(utility, CaptimeDistribution):
        utility = utility.utility()
    if isinstance(utility, sympy.Expr):
        utility = Utility(utility)
    if not isinstance(utility, Utility):
        raise ExportError(argument_message(
            "utility", owner, "a Utility, a CaptimeDistribution or a sympy expression in t",
            short(utility)))
    if isinstance(utility, QualityUtility) or q in utility.expr.free_symbols:
        raise ExportError(argument_message(
            "utility", owner, "a utility of the runtime alone", short(utility),
            "Utilities of solution quality are not exported; substitute a quality first."))
    if utility.expr.has(sympy.Integral):
        raise ExportError(argument_message(
            "utility", owner, "a closed form (no unevaluated integral)", short(utility),
            "Export a utility whose expectation over the captime sympy could integrate."))
    check_exportable(utility.expr, owner)
    return utility


_EXPORTABLE_NODES = (sympy.Number, sympy.NumberSymbol, sympy.logic.boolalg.BooleanAtom, sympy.Add,
                     sympy.Mul, sympy.Pow, sympy.Piecewise, sympy.core.relational.Relational,
                     sympy.And, sympy.Or, sympy.Not, sympy.functions.elementary.piecewise.ExprCondPair,
                     # a money design's utility clips the captime to the density's pieces
                     sympy.Min, sympy.Max)


def check_exportable(expr: sympy.Basic, owner: str) -> None:
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
                else f"a {short(type(node).__name__)}")
        raise ExportError(argument_message(
            "utility", owner, "made of numbers, t, named parameters, arithmetic, comparisons and "
            "sympy's own functions", short(str(node)), f"It holds {kind}, which is not exported."))


def bind_defaults(utility: Any, defaults: Mapping[str, Any] | None, owner: str,
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
        except (TypeError, ValueError, OverflowError):  # 10**500 is past the largest double
            number = math.nan
        if not math.isfinite(number):
            raise ExportError(argument_message(name, owner, "a finite number a double can hold "
                                               "(a default value)", short(value)))
        defaults[name] = number
    missing = [name for name in by_name if name not in defaults]
    if required and missing:
        raise ExportError(argument_message(
            "defaults", owner, f"a value for every unresolved symbol ({', '.join(missing)})",
            dict(defaults),
            f"Pass defaults={{{', '.join(repr(m) + ': ...' for m in missing)}}} or substitute "
            "numbers with `utility.subs(...)` first."))
    return utility.expr, [(by_name[name], defaults.get(name)) for name in by_name]


def portable_stable(expr: sympy.Expr) -> sympy.Expr:
    """The scorer's cancellation-free rewrites that numpy and C99 both provide.

    ``c - c*erf(z)`` -> ``c*erfc(z)``, ``log(1 + x)`` -> ``log1p(x)``,
    ``exp(x) - 1`` -> ``expm1(x)``; scipy's ``powm1`` has no C99 counterpart
    and is left out.
    """

    expr = rewrite_log1p(expr)
    if expr.has(sympy.exp):
        # expm1_opt factors in exp(t/q) to a power p: exp(-10**300*t) (exponential(1e-300))
        # would be a polynomial of degree 10**300. Large coefficients are hidden for it.
        hidden = {number: sympy.Dummy() for power in expr.atoms(sympy.exp)
                  for number in power.args[0].atoms(sympy.Rational)
                  if max(abs(number.p), number.q) > _MOST_FACTORED}
        expr = optimize(expr.xreplace(hidden), [expm1_opt])
        expr = expr.xreplace({dummy: number for number, dummy in hidden.items()})
    return complement_erf(expr)


#: the largest numerator or denominator of a coefficient in exp() that expm1's rewrite may
#: factor over (the degree of the polynomial it builds)
_MOST_FACTORED = 2**16


def limits(expr: sympy.Expr) -> tuple[sympy.Expr | None, sympy.Expr | None]:
    """lim u(t) as t -> 0+ and as t -> oo (None when sympy cannot tell)."""

    def guarded(point: sympy.Expr) -> sympy.Expr | None:
        try:
            return limit_at_end(expr, point)
        except (RecursionError, Exception):  # sympy's gruntz can recurse without end on power laws
            return None

    return guarded(sympy.S.Zero), guarded(oo)


def safe_names(parameters: list[sympy.Symbol], reserved: frozenset[str], owner: str,
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


def doc_safe(text: str) -> str:
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


def c_comment(text: str) -> str:
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


def preset_form(utility: Any, owner: str) -> tuple[Any, dict[str, float], Any]:
    """The symbolic preset behind a utility built with numbers, its numbers, and a checked inverse."""

    distribution = getattr(utility, "distribution", None)
    label = getattr(distribution, "name", None) or utility.name
    preset = getattr(distribution, "preset", None)
    if preset is None or preset[0] not in FAMILIES or any(v.free_symbols for v in preset[1]):
        raise ExportError(argument_message(
            "utility", owner, "a preset's utility built with numbers, e.g. pareto(24, 1), when "
            "keep_parameters=True", label if label is not None else short(utility),
            "Export the utility itself, or pass its symbolic form with `defaults`."))
    family, values = preset
    names = FAMILIES[family]
    numbers = [float(v) for v in values]
    symbolic = Utility(symbolic_preset(family).utility().expr, name=label)
    defaults = dict(zip(names, numbers))
    # the symbolic law must reproduce the utility it stands for
    grid = np.geomspace(1e-6, 1e6, 200) * max(abs(numbers[0]), 1e-300)
    general = compile_scorer(symbolic)(grid, **defaults)
    specific = compile_scorer(utility)(grid)
    if not np.allclose(general, specific, rtol=1e-9, atol=1e-300, equal_nan=True):
        raise ExportError(argument_message(
            "utility", owner, f"the utility of `{label}`", short(utility),
            "Its formula no longer matches the preset; export it with keep_parameters=False."))
    inverse = symbolic.inverse_expr
    if inverse is not None:
        # keep the symbolic inverse only if it is complete: it must invert u at the preset's numbers
        levels = np.linspace(0.01, 0.99, 99)
        try:
            times = utility.inverse(levels)
            at_defaults = inverse.subs({s: v for s, v in zip(
                sorted(inverse.free_symbols - {level}, key=lambda s: s.name),
                [defaults[s.name] for s in sorted(inverse.free_symbols - {level}, key=lambda s: s.name)])})
            function = sympy.lambdify(level, at_defaults, modules=numpy_modules(at_defaults))
            with np.errstate(all="ignore"):
                found = np.broadcast_to(np.asarray(function(levels), dtype=float), levels.shape)
            if not np.allclose(found, times, rtol=1e-9):
                inverse = None
        except (MaxEntError, KeyError, TypeError, ValueError):
            inverse = None
    return symbolic, defaults, inverse
