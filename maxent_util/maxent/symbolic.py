"""The symbolic route: Z(lambda) piece by piece in closed form, and the multiplier equations solved by sympy."""


from __future__ import annotations

import functools


import sympy

from ..errors import NotNormalizableError
from ..problem import Piece, Term, integrate_piece, is_unusable, kept_by_srepr
from ..symbols import kappa

oo = sympy.oo


def _partition_pieces(pieces: list[Piece]) -> list[sympy.Expr]:
    parts = []
    for piece in pieces:
        part = integrate_piece(sympy.exp(piece.exponent), piece)
        if part.has(sympy.Integral):
            # simplify would try the integral sympy just gave up on again, for seconds: the
            # partition is not closed-form whatever the other pieces give
            return parts + [part]
        parts.append(_simplified(part))
    return parts


@kept_by_srepr(256)
def _simplified(part: sympy.Expr) -> sympy.Expr:
    """sympy.simplify(part), kept per process (the integrals themselves are kept by
    :func:`~maxent_util.problem.integrate_piece`): laws with the same features share their
    partition function whatever the values asked for."""
    return sympy.simplify(part)


def multiplier_equations(terms: list[Term], partition: sympy.Expr, pieces: list[Piece]) -> list[sympy.Expr]:
    """Expressions that vanish at the multipliers."""
    equations = []
    for term in terms:
        if term.is_continuity:
            equations.append(continuity_gap(term, pieces))
        else:
            equations.append(sympy.diff(partition, term.multiplier) + term.feature.value * partition)
    return equations


def continuity_gap(term: Term, pieces: list[Piece]) -> sympy.Expr:
    point = term.constraint.kappa0
    left = next(p for p in pieces if p.upper == point)
    right = next(p for p in pieces if p.lower == point)
    return sympy.expand_log(left.exponent.subs(kappa, point) - right.exponent.subs(kappa, point), force=True)


def solve_symbolic(terms: list[Term], equations: list[sympy.Expr]) -> dict | None:
    unknowns = [term.multiplier for term in terms]
    if not unknowns:
        return {}
    # Float parameters (a tail exponent 7.56...) can stall sympy's solver for seconds: solve
    # with symbols of the same sign in their place, then put the numbers back
    numbers: dict = {}
    stand_ins: dict = {}
    for number in set().union(*(eq.atoms(sympy.Float) for eq in equations)):
        if not number.is_zero:
            stand_ins[number] = sympy.Dummy("c", positive=True) if number > 0 else sympy.Dummy("c", negative=True)
    numbers = {dummy: number for number, dummy in stand_ins.items()}
    if _huge_powers(equations, set(unknowns)) or _special_in(equations, set(unknowns)):
        # (a multiplier inside erf before simplify stayed there after it, in every set the
        # tests derive: simplify took 0.1 to 1.3 s to find that out)
        return None
    simplified = [sympy.simplify(eq.xreplace(stand_ins)) for eq in equations]
    if _special_in(simplified, set(unknowns)) or _mixed_transcendental(simplified, set(unknowns)):
        return None
    try:
        solutions = sympy.solve(simplified, unknowns, dict=True)
    except (NotImplementedError, ValueError, TypeError):
        return None
    good = []
    for solution in solutions:
        solution = {key: value.xreplace(numbers) for key, value in solution.items()}
        if set(solution) != set(unknowns):
            continue
        if any(value.is_real is False or value.has(sympy.I) for value in solution.values()):
            continue
        good.append(solution)
    if len(good) != 1:
        return None
    return good[0]


#: the most a power of a multiplier may need: exp(-10**6 lambda) beside exp(-lambda) makes sympy
#: factor a polynomial of degree 10**6, and 10000**lambda expands to integers of thousands of
#: digits; either grinds for minutes before the numeric route, which takes a second, is tried
_MAX_DEGREE = 1000
_MAX_BASE = 1000


def _huge_powers(equations: list[sympy.Expr], unknowns: set) -> bool:
    """Whether the equations raise numbers to a multiplier in a way sympy cannot handle in time:
    exponentials of a multiplier whose rational coefficients are more than ``_MAX_DEGREE`` apart
    (as powers of one generator), or a rational base beyond ``_MAX_BASE`` to a power with one."""
    for unknown in unknowns:
        coefficients = set()
        for equation in equations:
            for power in equation.atoms(sympy.Pow):
                if power.base.is_Rational and power.exp.has(unknown) and \
                        max(abs(power.base.p), power.base.q) > _MAX_BASE:
                    return True
            for call in equation.atoms(sympy.exp):
                coefficient = sympy.expand(call.args[0]).coeff(unknown)
                if coefficient.is_Rational and coefficient != 0:
                    coefficients.add(abs(coefficient))
        if len(coefficients) > 1:
            step = functools.reduce(sympy.gcd, coefficients)
            if max(coefficients) / step > _MAX_DEGREE:
                return True
    return False


#: functions whose inverse sympy does not know: a multiplier inside one is not solved for
_SPECIAL_FUNCTIONS = (sympy.erf, sympy.erfc, sympy.erfi, sympy.gamma, sympy.lowergamma, sympy.uppergamma,
                      sympy.polygamma, sympy.Ei, sympy.expint, sympy.besselk, sympy.besseli)


def _special_in(equations: list[sympy.Expr], unknowns: set) -> bool:
    """Whether a multiplier sits inside erf, gamma and the like: sympy.solve then grinds for
    seconds and gives up (the truncated normal's erfc(lambda_1/(2 sqrt(lambda_2))))."""
    return any(call.free_symbols & unknowns
               for equation in equations for call in equation.atoms(*_SPECIAL_FUNCTIONS))



def _exponent_holds(expression: sympy.Expr, unknown: sympy.Symbol) -> bool:
    """Whether ``unknown`` sits in an exponent here: exp(f(lambda)) or b**f(lambda)."""
    if isinstance(expression, sympy.exp):
        return expression.args[0].has(unknown)
    return isinstance(expression, sympy.Pow) and expression.exp.has(unknown)


def _appears_outside_exponents(expression: sympy.Expr, unknown: sympy.Symbol) -> bool:
    """Whether ``unknown`` occurs somewhere not inside an exponent (as lambda, 1/lambda, log(lambda))."""
    if expression == unknown:
        return True
    if isinstance(expression, sympy.exp):
        return False
    if isinstance(expression, sympy.Pow):
        # the base may hold it outside an exponent ((lambda - 1)**2); the exponent never does
        return _appears_outside_exponents(expression.base, unknown)
    return any(_appears_outside_exponents(arg, unknown) for arg in expression.args)


def _mixed_transcendental(equations: list[sympy.Expr], unknowns: set) -> bool:
    """Whether an equation holds a multiplier both in an exponent and outside one, beyond factors
    that never vanish: lambda + exp(-10 lambda) = c and the like have no closed form but Lambert's
    W in special cases, and sympy.solve spends seconds finding that out before the numeric route
    (with exact recognition of its root) takes over."""
    for equation in equations:
        # log(10**((lambda - 1) c)) holds lambda outside an exponent: bring exponents out of logs
        numerator, _ = sympy.fraction(sympy.factor_terms(sympy.expand_log(equation, force=True)))
        # a factor exp(f) or b**f (b a number) cannot vanish: the roots are those of the rest
        factors = [factor for factor in sympy.Mul.make_args(numerator)
                   if not (isinstance(factor, sympy.exp) or
                           (isinstance(factor, sympy.Pow) and factor.base.is_number))]
        rest = sympy.Mul(*factors)
        for unknown in unknowns:
            if any(_exponent_holds(e, unknown) for e in sympy.preorder_traversal(rest)) and \
                    _appears_outside_exponents(rest, unknown):
                return True
    return False


def symbolic_partition(pieces: list[Piece], terms: list[Term]) -> list[sympy.Expr] | None:
    """Z on each piece in closed form, or None when sympy cannot integrate one."""
    parts = _partition_pieces(pieces)
    if any(is_unusable(part) for part in parts):
        bad = next(p for p, part in zip(pieces, parts) if is_unusable(part))
        if not bad.terms and (bad.upper == oo):
            raise NotNormalizableError(
                f"the density is constant on [{bad.lower}, oo), which cannot be normalised. Suggestion: "
                "add a constraint whose feature grows there (a Mean or a LogMoment).")
        if not any(part.has(sympy.Integral) for part in parts) and all(
                not part.free_symbols - {t.multiplier for t in terms} for part in parts):
            raise NotNormalizableError(
                "the maximum-entropy density of "
                f"{', '.join(repr(t.constraint) for t in terms)} diverges for every value of the "
                f"Lagrange multipliers on [{pieces[0].lower}, {pieces[-1].upper}]: no distribution of "
                "maximum entropy meets these constraints.")
        return None
    return parts
