"""A derived law's closed form: its pdf, CDF and survival function built from the solved
multipliers piece by piece, and the integrals and simplifications that takes.

:func:`closed_form_parts` is what :class:`~maxent_util.distribution.CaptimeDistribution` is
built from; :func:`mean_of` integrates a built law's mean.  Everything here is sympy; the law's
numbers are in :mod:`.numbers`, its derivation record in :mod:`.record`.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import mpmath
import sympy

from .._sizes import EXACT_BITS, grew, integer_bits, power_digits
from .._timing import SymbolicTimeout as _SymbolicTimeout
from .._timing import as_deadline, time_limit, timed_out
from ..errors import MaxEntError
from ..problem import Piece, float_stand_ins, generic_branch, integrate_piece, kept_by_srepr
from ..scorer import fold_float_constants
from ..symbols import kappa

oo = sympy.oo

#: the variable of a CDF left as an integral, int_lower^kappa f(kappa') dkappa': a named symbol
#: (bound, so never a parameter), which the JSON format writes as it writes any symbol
INTEGRATION_VARIABLE = sympy.Symbol("kappa_prime", positive=True)


def _simplify(expr: sympy.Expr, timeout: Any) -> sympy.Expr:
    if expr.has(sympy.Integral) or integer_bits(expr) > _PRINTABLE_BITS:
        # simplify would try to integrate, as a cosmetic step under whatever time is left:
        # whether an integral came out would then depend on the machine's load
        return expr
    try:
        with time_limit(timeout):
            return _simplest(expr)
    except _SymbolicTimeout:
        return expr


#: the most digits exp(c*log(kappa/s)) may build exactly before the multipliers go in as floats
_MAX_POWER_DIGITS = 2_000

#: integers above this many bits cannot be written as text by Python's default limit (4,300
#: digits), which sympy's printing, sorting and srepr all need
_PRINTABLE_BITS = 14_000


@kept_by_srepr(512)
def _simplest(expr: sympy.Expr) -> sympy.Expr:
    """The simplified form of ``expr`` in the paper's spelling, kept per process: related laws
    (one law by both methods, with a value exact or as a double, a law derived again after a
    time limit rang) simplify the same parts again: two calls in five across the test suite."""
    given = expr
    if expr.atoms(sympy.Float):
        # a law with decimal multipliers has no paper form to find; simplify's search over
        # its floats took 0.1 to 1.5 s a part and changes no number
        return _paper_form_of(expr)
    try:
        if expr.has(sympy.erfc):
            # erf + erfc = 1 only cancels once both are written as erf
            expr = expr.replace(sympy.erfc, lambda z: 1 - sympy.erf(z))
        simplest = _paper_form(sympy.simplify(sympy.powsimp(expr, force=False)))
    except Exception:  # cosmetic: keep the unsimplified form (a time limit's BaseException passes)
        return given
    # simplify may write 1000*log(kappa/15) as log(kappa**1000/15**1000): right, but a float
    # overflows on it (every runtime scored 0); such a form is not simpler
    return given if grew(simplest, given) else simplest


def _paper_form_of(expr: sympy.Expr) -> sympy.Expr:
    """:func:`_paper_form` of ``expr`` with its powers combined and its products multiplied out
    where that is shorter (t**a*(c/t**a + d) is c + d*t**a: left as it was, its limits took
    sympy seconds and a gamma law's scorer lost its value at 0), or ``expr`` where that fails
    or grows its numbers."""
    try:
        combined = sympy.powsimp(expr, force=False)
        expanded = sympy.powsimp(sympy.expand_mul(combined), force=False)
        if sympy.count_ops(expanded) < sympy.count_ops(combined):
            combined = expanded
        simplest = _paper_form(combined)
    except Exception:  # cosmetic, as in _simplest
        return expr
    return expr if grew(simplest, expr) else simplest


def _paper_form(expr: sympy.Expr) -> sympy.Expr:
    """Undo two habits of ``simplify`` that hide the paper's forms.

    ``log(x**c)`` becomes ``c*log(x)`` (exact for x > 0 and real c), and an
    ``erfc`` becomes ``1 - erf``, so the log-normal survival function reads
    1/2 - erf(log(kappa/kappa0)/(sqrt(2) sigma))/2 as in the paper.
    """
    def split_log(argument: sympy.Expr) -> sympy.Expr:
        if argument.is_Pow and argument.base.is_positive and argument.exp.is_real:
            return argument.exp * sympy.log(argument.base)
        return sympy.log(argument)

    def is_log_difference(node: sympy.Basic) -> bool:
        return node.is_Add and len(node.args) > 1 and all(
            isinstance(term, sympy.log) or (isinstance(-term, sympy.log)) for term in node.args)

    def combine_logs(node: sympy.Expr) -> sympy.Expr:
        # log(a) - log(b) -> log(a/b), but c*log(x) stays (logcombine would make it log(x**c))
        arguments = [term.args[0] if isinstance(term, sympy.log) else 1 / (-term).args[0]
                     for term in node.args]
        if not all(argument.is_positive for argument in arguments):
            return node
        return sympy.log(sympy.Mul(*arguments))

    expr = expr.replace(sympy.log, split_log)
    expr = expr.replace(is_log_difference, combine_logs)
    if expr.has(sympy.erfc):
        expr = sympy.expand_mul(expr.replace(sympy.erfc, lambda z: 1 - sympy.erf(z)))
    # kappa*(kappa/s)**(-a - 1)/s reads better as (s/kappa)**a (bases are positive)
    regrouped = sympy.powsimp(sympy.expand_power_base(expr), force=False)
    if sympy.count_ops(regrouped) < sympy.count_ops(expr):
        expr = regrouped
    return expr


def density_parts(constraints: tuple, pieces: list, terms: list, solution: dict, parts: list,
                  closed_form: bool, limit: Any) -> dict[str, Any]:
    """The first steps of :func:`closed_form_parts`: the multipliers (lambda_0 first), the pdf's
    pieces and their masses, without the CDF (which a candidate of the active-set search, see
    :mod:`maxent_util.maxent.kkt`, does not need unless it is the answer)."""
    # the numbers every step may combine; a step that builds far larger ones (exact powers
    # multiplied under a common root: exp(-l log(kappa/s)**2)/Z with s = 796/25 held a
    # 4,300-digit integer) keeps its constants as 25-digit floats instead
    given = (*constraints, *solution.values(), *(piece.exponent for piece in pieces))

    def tame(expr: sympy.Expr) -> sympy.Expr:
        if grew(expr, *given, floor=EXACT_BITS):
            folded.append(expr)
            return fold_float_constants(expr)
        return expr

    folded: list = []
    parts = [_simplify(tame(part.subs(solution)), limit) for part in parts]
    partition = _simplify(tame(sympy.Add(*parts)), limit)
    if partition.is_positive is False or partition.is_finite is False:
        raise MaxEntError(f"the normalising constant came out as {partition}; the constraints "
                          f"{', '.join(map(repr, constraints))} have no maximum-entropy density.")
    lambda_0 = _simplify(sympy.log(partition) - 1, limit)
    if not closed_form and lambda_0.is_number:
        lambda_0 = _one_float(lambda_0, solution.values())
    multipliers = {sympy.Symbol("lambda_0", real=True): lambda_0}
    for term in terms:
        multipliers[term.multiplier] = solution[term.multiplier]

    exponents = [piece.exponent.subs(solution) for piece in pieces]
    if any(power_digits(exponent) > _MAX_POWER_DIGITS for exponent in exponents):
        # exp(c*log(kappa/s)) is s**c to sympy, which multiplies s out c.p times: with
        # c = 5729749/9429749, 14.7 million digits. The multipliers at 30 digits instead
        folded.append(exponents)
        exponents = [piece.exponent.subs(_at_digits(solution, _FOLDED_DIGITS)) for piece in pieces]
    pdf_pieces = [_simplify(tame(sympy.exp(exponent) / partition), limit) for exponent in exponents]
    masses = [_simplify(tame(part / partition), limit) for part in parts]
    return {"multipliers": multipliers, "partition": partition, "pdf_pieces": pdf_pieces, "masses": masses,
            "folded": folded, "tame": tame}


def closed_form_parts(constraints: tuple, pieces: list, terms: list, solution: dict, parts: list,
                      closed_form: bool, derivation: Any, limit: Any,
                      density: dict[str, Any] | None = None) -> dict[str, Any]:
    """The pieces of the pdf, CDF and survival function, the multipliers (lambda_0 first) and the
    derivation record (noting any constants kept as floats) of the law that the multipliers
    ``solution`` give, every step bounded by ``limit`` (derive's deadline); ``density``, the
    :func:`density_parts` of the same arguments when they are already built."""
    if density is None:
        density = density_parts(constraints, pieces, terms, solution, parts, closed_form, limit)
    multipliers, partition = density["multipliers"], density["partition"]
    pdf_pieces, masses, tame = density["pdf_pieces"], density["masses"], density["tame"]
    folded = density["folded"]  # tame() below notes what it folds here

    cdf_pieces, sf_pieces = [], []
    below = sympy.Integer(0)
    for index, (piece, density) in enumerate(zip(pieces, pdf_pieces)):
        above = sympy.Add(*masses[index + 1:]) if index + 1 < len(masses) else sympy.Integer(0)
        partial = None
        try:
            with time_limit(limit):
                if closed_form:
                    partial = integrate_piece(density, piece, upper=kappa)
                else:
                    # sympy integrates far better with symbolic multipliers than with floats
                    partial = integrate_piece(sympy.exp(piece.exponent), piece, upper=kappa)
                    partial = partial.subs(solution) / partition
                    if partial.has(sympy.nan, sympy.zoo) or not _sensible_partial(partial, piece):
                        # the generic antiderivative is 0/0 at a multiplier of exactly 0 (or 1
                        # on kappa**-lambda), or loses every digit at a tiny one: integrate the
                        # density at the root instead
                        partial = integrate_piece(density, piece, upper=kappa)
                        if not _sensible_partial(partial, piece):
                            partial = None
            if partial is not None and (partial.has(sympy.Integral) or partial.has(sympy.nan, sympy.zoo)):
                partial = None
            if partial is None and not closed_form:
                # the generic antiderivative can stay unevaluated (the gamma law's, with a
                # symbolic exponent): integrate the density at the root, its Floats as symbols
                partial = _root_partial(density, piece)
        except _SymbolicTimeout:
            if not _numeric_law(density):
                # the CDF is not cosmetic: a law with parameters whose utility is an
                # unevaluated integral cannot be scored, so running out of time is an error
                raise timed_out(f"the CDF of the law of {', '.join(map(repr, constraints))}",
                                timeout) from None
            partial = None  # a numeric law: quadrature serves (see CaptimeDistribution)
        except Exception:  # sympy could not integrate: keep the integral unevaluated
            partial = None
        if partial is None:
            dummy = INTEGRATION_VARIABLE
            partial = sympy.Integral(density.subs(kappa, dummy), (dummy, piece.lower, kappa))
        tail = None
        if density.has(sympy.Float):
            # with Floats, mass - partial does not cancel: 1 - (1 - (k/t)**a) leaves a rounding
            # residue (even a negative utility) far in the tail, so integrate the tail itself
            tail = _tail_integral(piece, density, closed_form, solution, partition, limit)
        cdf = _simplify(tame(below + partial), limit)
        sf = _simplify(tame(above + (masses[index] - partial if tail is None else tail)), limit)
        cdf_pieces.append(cdf)
        sf_pieces.append(sf)
        below = below + masses[index]
    if folded:
        derivation = dataclasses.replace(derivation, notes=tuple(derivation.notes) + (
            f"{len(folded)} step(s) kept their constants as 25-digit floats: their exact form "
            "held integers far larger than the constraints' numbers",))
    return {"pdf_pieces": pdf_pieces, "cdf_pieces": cdf_pieces, "sf_pieces": sf_pieces,
            "breakpoints": derivation.breakpoints, "multipliers": multipliers, "derivation": derivation,
            "scales": [piece.scale for piece in pieces]}


def mean_of(law: Any) -> sympy.Expr:
    """E[kappa] of a built law, integrated piece by piece (see :meth:`CaptimeDistribution.mean`)."""
    total = sympy.Integer(0)
    pieces = zip(law.breakpoints, law.breakpoints[1:], law._pdf_pieces, law._scales)
    def integral(integrand: sympy.Expr, lower: Any, upper: Any, scale: Any) -> sympy.Expr | None:
        try:
            with time_limit(law._timeout):
                value = integrate_piece(integrand, Piece(lower, upper, [], sympy.Integer(0), scale))
                if _unusable(value):
                    value = generic_branch(sympy.integrate(integrand, (kappa, lower, upper), conds="none"))
        except _SymbolicTimeout:
            return None
        except Exception:  # sympy could not integrate
            return None
        return None if _unusable(value) else value

    for lower, upper, density, scale in pieces:
        piece = None
        stand_in, numbers = float_stand_ins(kappa * density)
        if numbers:
            # numeric multipliers: sympy is far faster with symbols, but its generic answer
            # can come back complex (exp_polar) for some signs; then integrate the Floats
            piece = integral(stand_in, lower, upper, scale)
            piece = None if piece is None or _unusable(piece.xreplace(numbers)) else piece.xreplace(numbers)
        if piece is None:
            piece = integral(kappa * density, lower, upper, scale)
        if piece is None:
            piece = sympy.Integral(kappa * density, (kappa, lower, upper))
        total += piece
    total = _simplify(total, law._timeout)
    if not law.closed_form and total.is_number and total.is_real and not total.has(sympy.Integral):
        total = _one_float(total, law.multipliers.values())
    return total


#: digits of the values put in where exact substitution builds numbers larger than its inputs
_FOLDED_DIGITS = 30


def _at_digits(mapping: dict, digits: int) -> dict:
    """The numeric values of ``mapping`` as Floats of ``digits`` digits (others unchanged)."""
    return {key: _float_of(value, digits) if value.is_number else value for key, value in mapping.items()}


def _float_of(value: sympy.Expr, digits: int) -> sympy.Float:
    """A number as one Float of ``digits`` digits, evaluated with five to spare."""
    return sympy.Float(sympy.N(value, digits + 5), digits)


def _one_float(value: sympy.Expr, multipliers: Any) -> sympy.Expr:
    """A number such as 0.3 + log(pi)/2 as one Float, at the precision of the multipliers."""
    precisions = [m._prec for m in multipliers if isinstance(m, sympy.Float)]
    if not precisions:
        return value
    return _float_of(value, mpmath.libmp.prec_to_dps(min(precisions)))


#: share of the time left, and most seconds, that a cosmetic refinement of a tail integral may take
_REFINEMENT_SHARE = 0.2
_REFINEMENT_SECONDS = 2.0


def _tail_integral(piece: Any, density: sympy.Expr, closed_form: bool, solution: dict,
                   partition: sympy.Expr, timeout: Any) -> sympy.Expr | None:
    """int of the density from kappa to the piece's upper end, or None when sympy cannot."""

    stand_in, numbers = float_stand_ins(density)
    deadline = as_deadline(timeout)
    # the Floats as signed symbols first (sympy keeps exact forms), then as they are; the first
    # is a refinement and gets a share of the time left (a log-normal's tail with symbols went to
    # heurisch and took all of it, where the Floats as they are take 0.05 s)
    for integrand, back in ((stand_in, numbers), (density, {})):
        if back and piece.scale is None and _polar_power(integrand, set(back)):
            continue
        limit = deadline.share(_REFINEMENT_SHARE, _REFINEMENT_SECONDS) if back else deadline
        try:
            with time_limit(limit):
                tail = integrate_piece(integrand, piece, start=kappa)
        except _SymbolicTimeout:
            continue
        except Exception:  # sympy could not integrate: try the next form
            continue
        if not _unusable(tail) and not _unusable(tail.xreplace(back)) and _sensible_partial(tail.xreplace(back), piece):
            return tail.xreplace(back)
    return None


def _polar_power(integrand: sympy.Expr, stand_ins: set) -> bool:
    """Whether the integrand is c * kappa**p * exp(q*kappa) with p and q stand-ins for Floats
    (see :func:`~maxent_util.problem.float_stand_ins`): a gamma-like tail, whose integral sympy
    writes with (-q)**(-p - 1) as exp_polar(I*pi) and exp(I*pi*p), whatever the signs, after up to
    a second of work.  Such a tail is unusable (see :func:`_unusable`); the Floats as they are
    give the real one."""
    _, rest = integrand.as_independent(kappa, as_Add=False)
    factors = sympy.Mul.make_args(rest)
    powers = [f for f in factors if f.is_Pow and f.base == kappa]
    exponentials = [f for f in factors if isinstance(f, sympy.exp)]
    if len(factors) != 2 or len(powers) != 1 or len(exponentials) != 1:
        return False
    rate = sympy.cancel(exponentials[0].args[0] / kappa)
    return powers[0].exp in stand_ins and rate in stand_ins


def _numeric_law(density: sympy.Expr) -> bool:
    """Whether a piece's density is numbers and kappa only (so quadrature can evaluate it)."""
    return not (density.free_symbols - {kappa})


def _root_partial(density: sympy.Expr, piece: Any) -> sympy.Expr | None:
    """int of the density at the root from the piece's lower end to kappa, or None when sympy
    cannot: with its Floats as they are (the generic antiderivative, in the multipliers'
    symbols, was tried first), then as signed symbols."""
    stand_in, numbers = float_stand_ins(density)
    for integrand, back in ((density, {}), (stand_in, numbers)):
        try:
            partial = integrate_piece(integrand, piece, upper=kappa).xreplace(back)
        except _SymbolicTimeout:
            raise
        except Exception:  # sympy could not integrate: try the next form
            continue
        if not _unusable(partial) and _sensible_partial(partial, piece):
            return partial
    return None


def _sensible_partial(partial: sympy.Expr, piece: Any) -> bool:
    """Whether a piece's CDF increment is a real number in [0, 1] inside the piece (a numeric
    multiplier put into a generic closed form can give erf(1e8*I) times 1e-4889721167171362)."""
    if partial.has(sympy.Integral):
        return True
    upper = piece.upper if piece.upper != oo else (2 * piece.lower if piece.lower != 0 else sympy.Integer(1))
    inside = (piece.lower + upper) / 2
    try:
        value = sympy.N(partial.subs(kappa, inside), 20)
    except Exception:  # cannot be evaluated: not usable
        return False
    return bool(value.is_real and value.is_finite and -1e-12 <= value <= 1 + 1e-12)


def _unusable(value: sympy.Expr) -> bool:
    return bool(value.has(sympy.Integral) or value.has(sympy.nan) or value.has(sympy.exp_polar)
                or value.has(sympy.I) or value.has(sympy.zoo))
