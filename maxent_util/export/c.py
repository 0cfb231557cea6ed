"""C99 source of a utility: :func:`export_c`."""

from __future__ import annotations

from typing import Any, Mapping

import sympy
from sympy.printing.c import C99CodePrinter

from .._version import __version__
from ..errors import ExportError, argument_message, short
from ..symbols import t
from .common import bind_defaults, c_comment, limits, portable_stable, safe_names, utility_of


_C_KEYWORDS = frozenset("""auto break case char const continue default do double else enum extern
    float for goto if inline int long register restrict return short signed sizeof static struct
    switch typedef union unsigned void volatile while _Bool _Complex _Imaginary NAN INFINITY
    isnan isinf n out i size_t exp expm1 log log1p log10 log2 sqrt cbrt pow hypot fabs erf erfc tgamma
    lgamma floor ceil fmin fmax fmod copysign sin cos tan asin acos atan atan2 sinh cosh tanh
    main""".split())


def _c_code(expr: sympy.Expr, printer: C99CodePrinter, owner: str) -> str:
    try:
        code = printer.doprint(expr)
    except Exception as error:  # sympy's printers raise several types for unsupported nodes
        raise ExportError(argument_message(
            "utility", owner, "made of functions with a C99 <math.h> equivalent", short(expr),
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
    utility : Utility, CaptimeDistribution or sympy.Expr
        The utility; a distribution gives its step utility, an expression is in ``t``.
    defaults : dict of str to float, keyword-only
        Parameters to bind to numbers (they are no longer arguments).
    name : str, keyword-only
        Name of the C function (a C identifier).

    Returns
    -------
    str
        C99 source defining ``name`` and ``name_array`` (with the formula in a comment).

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
    utility = utility_of(utility, owner)
    expr, parameters = bind_defaults(utility, defaults, owner, required=False)
    bound = {s: sympy.Float(v, 17) for s, v in parameters if v is not None}
    free = [s for s, v in parameters if v is None]
    names = safe_names(free, _C_KEYWORDS | {name, f"{name}_array", f"{name}_formula", "t", "value"}, owner, "C")
    runtime = sympy.Symbol("t")
    mapping = {t: runtime, **{s: sympy.Symbol(names[s]) for s in free}}
    expr = expr.xreplace(bound)
    # no M_SQRT2-style macros: they are POSIX, not C99
    printer = C99CodePrinter({"strict": False, "math_macros": {}})
    # printed first: a formula C cannot evaluate is refused before its limits are sought
    body = _c_code(portable_stable(expr).xreplace(mapping), printer, owner)
    at_zero, at_inf = limits(expr)
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

    formula = c_comment(str(expr))
    bound_note = "".join(f"\n *   {c_comment(s.name)} = {float(v)!r}" for s, v in parameters if v is not None)
    label = "" if utility.name is None else f"{c_comment(utility.name)}: "
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
