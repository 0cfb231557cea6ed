"""The paper's catalogue of captime laws (its Appendix C), as constraint sets.

Each preset states constraints and hands them to :func:`~maxent_util.derive`;
no formula is typed in here.  Arguments may be numbers, sympy expressions or
names (a name becomes a positive symbol), so ``pareto("kappa0", "alpha")``
gives the symbolic Pareto law.
"""

from __future__ import annotations

import ast
import difflib
import json
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable

import sympy

from .catalogue import CONSTRAINT_SETS, FAMILIES, family_constraints, parameter_value
from .constraints import to_sympy
from ._timing import Deadline, SymbolicTimeout, check_timeout, run_bounded, timed_out
from .maxent import DEFAULT_TIMEOUT, derive
from .distribution import CaptimeDistribution
from .utility import Utility
from .documents import from_json, to_json
from .durations import DurationError, seconds_in_text
from .errors import ConstraintError, MaxEntError, UtilityError, argument_message
from .expressions import MAX_LENGTH, expansion_digits, syntax_tree

__all__ = ["FIGURE_PARAMETERS", "figure_spec", "uniform", "exponential", "pareto", "log_laplace", "generalized_log_laplace", "log_normal",
           "piecewise", "FAMILIES", "parse_utility", "parse_family", "family_constraints"]

oo = sympy.oo


def _label(name: str, *values: Any) -> str:
    return f"{name}({', '.join(str(v) for v in values)})"


#: preset name -> the parameters of the paper's figure of utilities (Section 3):
#: kappa0 = 24 throughout
FIGURE_PARAMETERS: dict[str, tuple[sympy.Expr, ...]] = {
    "uniform": (sympy.Integer(24),),
    "exponential": (sympy.Integer(24),),
    "pareto": (sympy.Integer(24), sympy.Integer(1)),
    "log_laplace": (sympy.Integer(24), sympy.Integer(2)),
    "generalized_log_laplace": (sympy.Integer(24), sympy.Integer(2), sympy.Integer(5)),
    "log_normal": (sympy.Integer(24), sympy.Rational(1, 2)),
    "piecewise": (sympy.Integer(24), sympy.Integer(12), sympy.Rational(3, 10)),
}


def figure_spec(name: str) -> str:
    """The spec string of a preset at the figure parameters, e.g. ``"pareto(24, 1)"``."""
    return _label(name, *(float(v) if not v.is_Integer else int(v) for v in FIGURE_PARAMETERS[name]))


#: the presets' symbolic laws, derived once and shipped in the safe JSON format
#: (regenerate with ``python tools/write_presets.py``; a test checks they are current)
PRESETS_FILE = Path(__file__).with_name("presets.json")


@lru_cache(maxsize=None)
def _shipped_documents() -> dict[str, Any]:
    return json.loads(PRESETS_FILE.read_text(encoding="utf-8"))


@lru_cache(maxsize=None)
def symbolic_preset(name: str) -> CaptimeDistribution:
    """The preset ``name`` with its parameters as positive symbols, e.g. ``pareto(kappa0, alpha)``,
    loaded from the shipped closed forms (no derivation)."""
    return from_json(json.dumps(_shipped_documents()[name]))._share()  # cached: sealed for every caller


def preset_documents() -> str:
    """The JSON of every preset derived with symbolic parameters: the content of :data:`PRESETS_FILE`."""
    documents = {}
    for name, parameters in FAMILIES.items():
        values = tuple(parameter_value(p, p, name) for p in parameters)
        law = derive(*CONSTRAINT_SETS[name](*parameters)).with_name(_label(name, *parameters))
        documents[name] = json.loads(to_json(law.with_preset(name, values)))
    return json.dumps(documents, indent=1, sort_keys=True) + "\n"


def _substitutable(name: str, values: tuple) -> bool:
    """Whether the shipped law can stand for ``name(*values)``: every value a number, or a
    positive symbol that is no other parameter's name (substitution is one name at a time)."""
    for parameter, value in zip(FAMILIES[name], values):
        if value.free_symbols and not (
                value.is_Symbol and value.is_positive
                and (value.name == parameter or value.name not in FAMILIES[name])):
            return False
    return True


@lru_cache(maxsize=256)
def _from_shipped(name: str, values: tuple, constraints: tuple) -> CaptimeDistribution | None:
    """The shipped symbolic law at these values, or None where it does not apply.

    Substituting into the general closed form gives the law that deriving with the
    values gives (``subs`` refuses values for which the general form is no density);
    anything it refuses is left to :func:`derive`, which then explains why.
    """
    try:
        law = symbolic_preset(name).subs(**dict(zip(FAMILIES[name], values)))
    except MaxEntError:
        return None
    return law if law.constraints == constraints else None


#: the most decimal digits of any exact number a preset's law may hold at its parameters: beyond
#: it the exact substitution builds integers of millions of digits (log_laplace(24, 1e-300) puts
#: (24/t)**(10**300) in the law and took 10 GB); generalized_log_laplace(1500, 3.42, 0.0993) holds
#: 9,205 digits, well within it
MAX_EXPANDED_DIGITS = 100_000


def _check_expansion(name: str, values: tuple) -> None:
    """Refuse parameters whose exact substitution into the preset's closed form would build numbers
    of more than :data:`MAX_EXPANDED_DIGITS` digits, naming the parameter of the largest power.

    The bound is read off the shipped symbolic law (:func:`expansion_digits`), before anything is
    substituted; deriving at these values would build the same numbers.
    """
    law = symbolic_preset(name)
    symbols = {s.name: s for s in law.parameters}
    mapping = {symbols[p]: v for p, v in zip(FAMILIES[name], values) if p in symbols and not v.free_symbols}
    if not mapping:
        return
    for expr in (*law._pdf_pieces, *law._cdf_pieces, *law._sf_pieces, *law.multipliers.values()):
        if expansion_digits(expr, mapping) <= MAX_EXPANDED_DIGITS:
            continue
        # the innermost power too large names the parameter: its exponent's, else its base's
        powers = [p for p in sympy.postorder_traversal(expr) if isinstance(p, sympy.Pow)
                  and expansion_digits(p, mapping) > MAX_EXPANDED_DIGITS]
        power = powers[0] if powers else expr
        culprits = [s for s in (power.exp.free_symbols if isinstance(power, sympy.Pow) else set()) if s in mapping] \
            or [s for s in power.free_symbols if s in mapping]
        parameter = sorted(culprits, key=lambda s: FAMILIES[name].index(s.name))[0].name
        value = values[FAMILIES[name].index(parameter)]
        raise ConstraintError(argument_message(
            parameter, name, f"a value at which the exact law holds numbers of at most "
            f"{MAX_EXPANDED_DIGITS:,} digits", _shown_number(value),
            f"Its term {power} would build numbers of about {expansion_digits(power, mapping):.3g} digits."))


def _shown_number(value: sympy.Expr) -> Any:
    """A parameter as a message shows it: a float for a number (1e-300, not 301 digits)."""
    return float(value) if value.is_number and value.is_finite else str(value)


def _preset(name: str) -> Callable[..., CaptimeDistribution]:
    def build(*args: Any, timeout: float | None = DEFAULT_TIMEOUT) -> CaptimeDistribution:
        seconds = check_timeout(timeout, arg="timeout", owner=name, error=ConstraintError)
        deadline = Deadline(seconds)
        constraints = CONSTRAINT_SETS[name](*args)  # checks the arguments
        values = tuple(parameter_value(value, parameter, name) for value, parameter in zip(args, FAMILIES[name]))
        law = None
        if _substitutable(name, values):
            _check_expansion(name, values)
            try:
                # the same deadline as derive's: substituting can still take long
                law = run_bounded(_from_shipped, name, values, constraints, deadline=deadline)
            except SymbolicTimeout:
                raise timed_out(_label(name, *args), seconds) from None
        if law is None:
            remaining = None if seconds is None else max(deadline.remaining(), 1e-3)
            law = derive(*constraints, timeout=remaining)
        # one law may serve several presets (log_laplace(24, 2) is
        # generalized_log_laplace(24, 2, 2)): each gets a named copy
        return law.with_name(_label(name, *args)).with_preset(name, values)
    build.__name__ = name
    return build


def uniform(kappa0: Any) -> CaptimeDistribution:
    """Bounded captime in [0, kappa0]: the uniform law.

    Its utility is u(t) = 1 - t/kappa0 (Appendix C, "Bounded").

    Parameters
    ----------
    kappa0 : number, sympy.Expr or str
        The largest captime; positive.

    Returns
    -------
    CaptimeDistribution
        The maximum-entropy law, named after the call (e.g. ``"uniform(24)"``) and recording the
        preset; at numeric arguments it comes from the shipped symbolic closed form.

    Raises
    ------
    ConstraintError
        If an argument cannot be read or is provably out of its domain.

    Examples
    --------
    >>> uniform(24).utility()(12.0)
    0.5
    """
    return _preset("uniform")(kappa0)


def exponential(kappa0: Any) -> CaptimeDistribution:
    """Captime with mean kappa0: the exponential law.

    Its utility is u(t) = exp(-t/kappa0) (Appendix C, "Fixed Expectation").

    Parameters
    ----------
    kappa0 : number, sympy.Expr or str
        The mean captime; positive.

    Returns
    -------
    CaptimeDistribution
        The maximum-entropy law, named after the call (e.g. ``"exponential(24)"``) and recording the
        preset; at numeric arguments it comes from the shipped symbolic closed form.

    Raises
    ------
    ConstraintError
        If an argument cannot be read or is provably out of its domain.
    """
    return _preset("exponential")(kappa0)


def pareto(kappa0: Any, alpha: Any) -> CaptimeDistribution:
    """A captime of fixed order of magnitude above kappa0: the Pareto law.

    E[log(kappa/kappa0)] = 1/alpha on the support [kappa0, oo); the utility is 1 up to
    kappa0 and (kappa0/t)^alpha after it (Appendix C, "Fixed order of magnitude").

    Parameters
    ----------
    kappa0 : number, sympy.Expr or str
        The smallest captime; positive.
    alpha : number, sympy.Expr or str
        The tail exponent; positive.

    Returns
    -------
    CaptimeDistribution
        The maximum-entropy law, named after the call (e.g. ``"pareto(24, 1)"``) and recording the
        preset; at numeric arguments it comes from the shipped symbolic closed form.

    Raises
    ------
    ConstraintError
        If an argument cannot be read or is provably out of its domain.
    """
    return _preset("pareto")(kappa0, alpha)


def log_laplace(kappa0: Any, alpha: Any) -> CaptimeDistribution:
    """Equal order-of-magnitude tails on both sides of kappa0: the log-Laplace law.

    E[log(kappa0/kappa) | kappa < kappa0] = E[log(kappa/kappa0) | kappa >= kappa0] = 1/alpha
    with a density continuous at kappa0 (Section 3 and Appendix C); it is
    :func:`generalized_log_laplace` with ``beta = alpha``.

    Parameters
    ----------
    kappa0 : number, sympy.Expr or str
        The median captime; positive.
    alpha : number, sympy.Expr or str
        The exponent of both tails; positive.

    Returns
    -------
    CaptimeDistribution
        The maximum-entropy law, named after the call (e.g. ``"log_laplace(24, 2)"``) and recording the
        preset; at numeric arguments it comes from the shipped symbolic closed form.

    Raises
    ------
    ConstraintError
        If an argument cannot be read or is provably out of its domain.
    """
    return _preset("log_laplace")(kappa0, alpha)


def generalized_log_laplace(kappa0: Any, alpha: Any, beta: Any) -> CaptimeDistribution:
    """Tails of different orders of magnitude around kappa0: the generalized log-Laplace law.

    E[log(kappa0/kappa) | kappa < kappa0] = 1/beta and E[log(kappa/kappa0) | kappa >= kappa0]
    = 1/alpha, with a density continuous at kappa0, which puts mass alpha/(alpha + beta)
    below kappa0 (Section 3 and Appendix C).

    Parameters
    ----------
    kappa0 : number, sympy.Expr or str
        Where the two tails meet; positive.
    alpha : number, sympy.Expr or str
        The exponent of the upper tail; positive.
    beta : number, sympy.Expr or str
        The exponent of the lower tail; positive.

    Returns
    -------
    CaptimeDistribution
        The maximum-entropy law, named after the call (e.g. ``"generalized_log_laplace(24, 2, 5)"``) and recording the
        preset; at numeric arguments it comes from the shipped symbolic closed form.

    Raises
    ------
    ConstraintError
        If an argument cannot be read or is provably out of its domain.
    """
    return _preset("generalized_log_laplace")(kappa0, alpha, beta)


def log_normal(kappa0: Any, sigma: Any) -> CaptimeDistribution:
    """A captime of known log-spread around kappa0: the log-normal law.

    E[log(kappa/kappa0)] = 0 and E[log(kappa/kappa0)^2] = sigma^2 (Appendix C,
    "Fixed squared-deviation").

    Parameters
    ----------
    kappa0 : number, sympy.Expr or str
        The median captime; positive.
    sigma : number, sympy.Expr or str
        The standard deviation of log(kappa); positive.

    Returns
    -------
    CaptimeDistribution
        The maximum-entropy law, named after the call (e.g. ``"log_normal(24, 0.5)"``) and recording the
        preset; at numeric arguments it comes from the shipped symbolic closed form.

    Raises
    ------
    ConstraintError
        If an argument cannot be read or is provably out of its domain.
    """
    return _preset("log_normal")(kappa0, sigma)


def piecewise(kappa0: Any, kappa1: Any, delta: Any) -> CaptimeDistribution:
    """Captime in [0, kappa0] with P(kappa < kappa1) = delta: the piecewise-uniform law.

    Its utility is piecewise linear, with a kink at kappa1 (Appendix C, "Bounded support
    and left tail").

    Parameters
    ----------
    kappa0 : number, sympy.Expr or str
        The largest captime; positive.
    kappa1 : number, sympy.Expr or str
        Where the left tail ends; inside (0, kappa0).
    delta : number, sympy.Expr or str
        The probability of a captime below kappa1; in (0, 1).

    Returns
    -------
    CaptimeDistribution
        The maximum-entropy law, named after the call (e.g. ``"piecewise(24, 12, 0.3)"``) and recording the
        preset; at numeric arguments it comes from the shipped symbolic closed form.

    Raises
    ------
    ConstraintError
        If an argument cannot be read or is provably out of its domain.
    """
    return _preset("piecewise")(kappa0, kappa1, delta)


_PRESETS = {name: globals()[name] for name in FAMILIES}


def parse_family(spec: str) -> CaptimeDistribution:
    """Parse a preset spec such as ``"pareto(5, 3)"`` into its derived distribution.

    The text is parsed as one call (never evaluated); the preset's name is matched without
    regard to case (with aliases ``exp``, ``lognormal``, ``loglaplace``, ``gll`` and
    ``piece``) and each argument goes through the safe expression reader.

    Parameters
    ----------
    spec : str
        A call of a preset of :data:`FAMILIES` with positional arguments, e.g.
        ``"log_normal(24, 0.5)"``.

    Returns
    -------
    CaptimeDistribution
        The preset's law at those arguments.

    Raises
    ------
    UtilityError
        If ``spec`` is not a string, not a call of a known preset with the right number of
        arguments, or an argument cannot be read.
    ConstraintError
        If an argument is out of its domain (``"pareto(5, -3)"``).
    """
    return _parse_family(spec, "parse_family")


def _parse_family(spec: Any, owner: str) -> CaptimeDistribution:
    """:func:`parse_family`, its errors naming ``owner`` (the public function called)."""
    if not isinstance(spec, str):
        raise UtilityError(argument_message("spec", owner, "a string such as 'pareto(5, 3)'", spec))
    text = spec.strip()
    node = None
    if len(text) <= MAX_LENGTH:
        try:
            text = seconds_in_text(text, arg="spec", owner=owner)  # pareto(5min, 1) is pareto(300, 1)
        except DurationError as error:
            raise UtilityError(str(error)) from None
        try:
            node = syntax_tree(text).body
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            pass
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)) or node.keywords:
        raise UtilityError(argument_message(
            "spec", owner, "a preset call such as 'pareto(5, 3)' or 'log_normal(24, 0.5)'", spec))
    name = node.func.id.lower().replace("-", "_")
    aliases = {"exp": "exponential", "lognormal": "log_normal", "loglaplace": "log_laplace",
               "gll": "generalized_log_laplace", "piece": "piecewise"}
    name = aliases.get(name, name)
    if name not in FAMILIES:
        raise UtilityError(argument_message(
            "spec", owner, f"a call of one of {', '.join(FAMILIES)}", spec,
            _nearest(name, [*FAMILIES, *aliases])))
    expected = FAMILIES[name]
    if len(node.args) != len(expected):
        raise UtilityError(argument_message(
            "spec", owner,
            f"`{name}` with {len(expected)} argument(s) ({', '.join(expected)})", spec))
    args = []
    for argument, parameter in zip(node.args, expected):
        segment = ast.get_source_segment(text, argument)
        try:
            value = to_sympy(segment, arg=parameter, owner=name)
        except ConstraintError as exc:
            raise UtilityError(str(exc)) from None
        args.append(value)
    return _PRESETS[name](*args)


def _nearest(name: str, names: list[str]) -> str | None:
    """'Did you mean ...?' for a misspelt preset (difflib's closest, if any is close)."""
    close = difflib.get_close_matches(name, names, n=1, cutoff=0.75)
    return f"Did you mean {close[0]!r}?" if close else None


def parse_utility(spec: str) -> Utility:
    """The step utility of a preset spec: ``parse_utility("pareto(5, 3)")``.

    Parameters
    ----------
    spec : str
        A preset call, as :func:`parse_family` reads it.

    Returns
    -------
    Utility
        u(t) = 1 - F(t) of the preset's law, named ``spec`` (stripped).

    Raises
    ------
    UtilityError
        If ``spec`` cannot be read as a preset call.
    ConstraintError
        If an argument is out of its domain.

    Examples
    --------
    >>> float(parse_utility("pareto(5, 3)")(10.0))
    0.125
    """
    distribution = _parse_family(spec, "parse_utility")
    return distribution.utility().with_name(spec.strip())
