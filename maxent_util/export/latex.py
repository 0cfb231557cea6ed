"""LaTeX: :func:`to_latex` for the objects a user sees, :func:`derivation` for a whole derivation."""

from __future__ import annotations

from typing import Any, Mapping

import sympy

from .._printing import interval_latex as _interval_latex
from .._printing import latex as _latex
from ..constraints import Constraint, ContinuousAt, Support
from ..errors import ExportError, argument_message, short
from ..expressions import as_expression
from ..distribution import CaptimeDistribution
from ..utility import Utility
from ..maxent import derive
from .common import escape_text


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
        The LaTeX, math mode without ``$``.

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
        "sympy expression", short(obj)))


def _as_distribution(args: tuple, owner: str) -> Any:

    if len(args) == 1 and isinstance(args[0], CaptimeDistribution):
        return args[0]
    if len(args) == 1 and isinstance(args[0], Utility) and getattr(args[0], "distribution", None) is not None:
        return args[0].distribution
    if not args or not all(isinstance(a, Constraint) for a in args):
        raise ExportError(argument_message(
            "constraints", owner, "Constraint objects or one CaptimeDistribution",
            short(args[0] if len(args) == 1 else args)))
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


_SIGNS = {"<=": r"\ge 0", ">=": r"\le 0"}
_RELATION_LATEX = {"==": "=", "<=": r"\le", ">=": r"\ge"}


def _kkt_latex(cases: tuple, support: tuple) -> str:
    """The Karush-Kuhn-Tucker conditions at the answer: stationarity, primal feasibility, dual
    feasibility (the sign of each inequality's multiplier) and complementary slackness."""
    out = [r"\paragraph{Karush-Kuhn-Tucker conditions.} A bound $\operatorname{E}[g] \le v$ enters "
           r"$L$ with a multiplier $\lambda \ge 0$, a bound $\operatorname{E}[g] \ge v$ with "
           r"$\lambda \le 0$; a bound that does not bind has $\lambda = 0$. The law above meets" + "\n"]
    for condition, rows in cases:
        if condition != sympy.true:
            out.append(rf"\noindent where ${_latex(condition)}$:" + "\n")
        exponent = " ".join(f"- {_times(m, c.feature().expr)}{_indicator(_region(c, support), support)}"
                            for c, m, _, _, _ in rows)
        lines = [rf"\text{{stationarity:}}\quad f(\kappa) &= \exp\big(-1 - \lambda_{{0}} {exponent}\big)"]
        for constraint, multiplier, value, reached, binding in rows:
            if isinstance(constraint, ContinuousAt):
                continue  # a condition on the density, not a moment: no feasibility to show
            statement = _latex(constraint.as_equality().statement()).split(" = ")[0]
            target = constraint.feature().value
            lines.append(rf"\text{{primal:}}\quad {statement} &= {_latex(_display_value(reached))} "
                         rf"{_RELATION_LATEX[constraint.relation]} {_latex(target)}")
        for constraint, multiplier, value, reached, binding in rows:
            if constraint.relation == "==":
                continue
            lines.append(rf"\text{{dual:}}\quad {_latex(multiplier)} &= {_latex(_display_value(value))} "
                         rf"{_SIGNS[constraint.relation]}")
        for constraint, multiplier, value, reached, binding in rows:
            if constraint.relation == "==":
                continue
            why = (r"\quad\text{(active)}" if binding else r"\quad\text{(inactive: } "
                   + _latex(multiplier) + r" = 0\text{)}")
            lines.append(rf"\text{{slackness:}}\quad {_latex(multiplier)} \big(\operatorname{{E}}[g] - "
                         rf"{_latex(constraint.feature().value)}\big) &= 0{why}")
        out.append(_align(lines))
    return "".join(out)


def _region(constraint: Constraint, support: tuple) -> tuple:
    feature = constraint.feature()
    lower = support[0] if feature.lower == -sympy.oo else feature.lower
    upper = support[1] if feature.upper == sympy.oo else feature.upper
    return lower, upper


def derivation(*constraints: Any, document: bool = False, title: str | None = None) -> str:
    """The maximum-entropy derivation of a captime law, in LaTeX.

    The text follows the shape of the paper's Appendix C: the constraints as
    stated, the functional :math:`L[f, \\lambda]`, its partial derivatives,
    the stationary density, the conditions, the solved multipliers (or their
    numeric values, with a note that no closed form was found), the pdf, the
    CDF and the utility :math:`u(t) = 1 - F(t)`.  With inequality constraints
    the derivation shown is that of the active set, followed by the
    Karush-Kuhn-Tucker conditions at the answer (stationarity, primal and
    dual feasibility with the sign of each multiplier, complementary
    slackness), per case when the active set depends on the parameters.

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
        A ``\\section`` of LaTeX, or a whole document with ``document=True``.

    Raises
    ------
    ExportError
        If the arguments are neither constraints nor a derived distribution.
    ConstraintError, InfeasibleError, NotNormalizableError, NoClosedFormError, TimeLimitError
        As :func:`~maxent_util.derive` raises them for the constraints.

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
    out: list[str] = [f"\\section{{{escape_text(heading)}}}\n"]

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
        out.append(f"\nNo closed form was found for {names} (method: {escape_text(record.method)}); "
                   "solved numerically, they are\n")
    out.append(_align(values))

    if getattr(record, "kkt", ()):
        out.append(_kkt_latex(record.kkt, support))

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
