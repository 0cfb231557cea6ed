"""C99 source of a utility: :func:`export_c`."""

from __future__ import annotations

from typing import Any, Mapping

import sympy
from sympy.printing.c import C99CodePrinter

from .._version import __version__
from ..errors import ExportError, argument_message, short
from ..symbols import t
from .common import bind_defaults, c_comment, limits, portable_stable, safe_names, utility_of


# C's keywords, C89 to C23 (bool, true, nullptr, ... are keywords since C23)
_KEYWORDS = """auto break case char const continue default do double else enum extern float for goto
    if inline int long register restrict return short signed sizeof static struct switch typedef
    union unsigned void volatile while alignas alignof bool constexpr false nullptr static_assert
    thread_local true typeof typeof_unqual""".split()
# the functions of <math.h> (C99, each also with the suffixes f and l) ...
_MATH_FUNCTIONS = """acos asin atan atan2 cos sin tan acosh asinh atanh cosh sinh tanh exp exp2 expm1
    frexp ilogb ldexp log log10 log1p log2 logb modf scalbn scalbln cbrt fabs hypot pow sqrt erf
    erfc lgamma tgamma ceil floor nearbyint rint lrint llrint round lround llround trunc fmod
    remainder remquo copysign nan nextafter nexttoward fdim fmax fmin fma""".split()
# ... its macros and types, POSIX's and glibc's additions (M_PI, j0, ...), and what <stddef.h>
# declares: a parameter with one of these names does not compile (NULL, HUGE_VAL) or hides it
_HEADER_NAMES = """fpclassify isfinite isinf isnan isnormal signbit isgreater isgreaterequal
    isless islessequal islessgreater isunordered HUGE_VAL HUGE_VALF HUGE_VALL INFINITY NAN
    FP_INFINITE FP_NAN FP_NORMAL FP_SUBNORMAL FP_ZERO FP_FAST_FMA FP_FAST_FMAF FP_FAST_FMAL
    FP_ILOGB0 FP_ILOGBNAN MATH_ERRNO MATH_ERREXCEPT math_errhandling float_t double_t
    M_E M_LOG2E M_LOG10E M_LN2 M_LN10 M_PI M_PI_2 M_PI_4 M_1_PI M_2_PI M_2_SQRTPI M_SQRT2
    M_SQRT1_2 MAXFLOAT j0 j1 jn y0 y1 yn signgam gamma drem finite significand exp10 pow10
    sincos NULL offsetof size_t ptrdiff_t wchar_t max_align_t nullptr_t unreachable
    errno EDOM ERANGE EILSEQ EOF main""".split()
# names the exported code uses itself
_OWN_NAMES = ["n", "out", "i"]
_C_KEYWORDS = frozenset(_KEYWORDS + _MATH_FUNCTIONS + [f + suffix for f in _MATH_FUNCTIONS
                                                       for suffix in "fl"]
                        + _HEADER_NAMES + _OWN_NAMES)


def _usable_c_name(name: Any) -> bool:
    """Whether ``name`` can name the exported function: an ASCII identifier, no keyword, no name
    of the included headers, and not reserved (C reserves every file-scope name that begins
    with an underscore, ``__attribute__`` and ``_Bool`` among them)."""
    return (isinstance(name, str) and name.isidentifier() and name.isascii()
            and not name.startswith("_")
            and not {name, f"{name}_formula", f"{name}_array"} & _C_KEYWORDS)


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
    if not _usable_c_name(name):
        raise ExportError(argument_message(
            "name", owner, "a C identifier", short(name),
            "It must not be a C keyword, begin with an underscore (reserved) or be a name "
            "<math.h> or <stddef.h> declare."))
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
