"""Numeric multipliers recognised as exact values (0, or 1 on kappa**-lambda) and checked symbolically."""


from __future__ import annotations


import math
from typing import Any

import mpmath
import sympy

from .._timing import Deadline, time_limit
from .._timing import SymbolicTimeout as _SymbolicTimeout
from ..problem import Piece, Term, integrate_piece
from .numeric import NumericProblem
from .symbolic import continuity_gap

oo = sympy.oo


def positive_number(value: sympy.Expr) -> bool:
    """Whether value evaluates to a finite positive real number."""
    try:
        number = sympy.N(value, 30)
    except Exception:  # sympy cannot evaluate it
        return False
    return bool(number.is_real and number.is_finite and number > 0 and not number.has(sympy.I))


def _degenerate(value: sympy.Expr) -> bool:
    return bool(value.has(sympy.nan) or value.has(sympy.zoo) or value.has(sympy.oo) or value.has(-sympy.oo))


def _integral_at(integrand: sympy.Expr, piece: Piece, timeout: Deadline | float | None) -> sympy.Expr | None:
    try:
        with time_limit(timeout):
            value = integrate_piece(integrand, piece)
    except _SymbolicTimeout:
        return None
    except Exception:  # sympy could not integrate
        return None
    # unlike a piece of Z, a moment integral may well be 0 (E[log kappa] on [1/10, 10])
    return None if (value.has(sympy.Integral) or _degenerate(value)) else value


def parts_at_root(pieces: list[Piece], parts: list[sympy.Expr], solution: dict,
                   timeout: Deadline | float | None) -> list[sympy.Expr] | None:
    """Z on each piece at a root.  The generic antiderivative of exp(-lambda g) divides by
    lambda (or by 1 - lambda for kappa**-lambda), so at lambda = 0 or 1 it is 0/0: those pieces
    are integrated again with the root put in first, where the integral of kappa**-1 is a log.
    None when that fails or the root does not satisfy the equations there."""
    at_root = [part.subs(solution) for part in parts]
    if not any(_degenerate(part) for part in at_root):
        return at_root
    verified = _verify_exact(pieces, _terms_of(pieces), solution, timeout)
    return verified


def _terms_of(pieces: list[Piece]) -> list[Term]:
    terms: list[Term] = []
    for piece in pieces:
        for term in piece.terms:
            if all(term is not other for other in terms):
                terms.append(term)
    return terms


def _verify_exact(pieces: list[Piece], terms: list[Term], solution: dict,
                  timeout: Deadline | float | None) -> list[sympy.Expr] | None:
    """Z on each piece at exact multipliers, if every multiplier equation holds exactly there."""
    parts, moments = [], {id(t): sympy.Integer(0) for t in terms}
    for piece in pieces:
        density = sympy.exp(piece.exponent.subs(solution))
        part = _integral_at(density, piece, timeout)
        if part is None or part == 0:
            return None
        parts.append(part)
        for term in piece.terms:
            if term.is_continuity:
                continue
            moment = _integral_at(term.feature.expr * density, piece, timeout)
            if moment is None:
                return None
            moments[id(term)] += moment
    total = sympy.Add(*parts)
    try:
        with time_limit(timeout):
            for term in terms:
                if term.is_continuity:
                    gap = continuity_gap(term, pieces).subs(solution)
                else:
                    gap = moments[id(term)] - term.feature.value * total
                if sympy.simplify(gap) != 0:
                    return None
    except _SymbolicTimeout:
        return None
    return parts


def _small_fraction(value: mpmath.mpf, size: float, tolerance: mpmath.mpf) -> sympy.Rational | None:
    """The fraction of denominator 1 to 12 (smallest first, numerator at most 1000 times it) that
    ``value``, a multiplier of typical size ``size``, is to ``tolerance`` (times 100, relative
    above 1), or None."""
    for denominator in range(1, 13):
        numerator = int(mpmath.nint(value * denominator))
        if abs(numerator) > 1000 * denominator:
            return None
        exact = sympy.Rational(numerator, denominator)
        distance = abs(value - mpmath.mpf(numerator) / denominator) * size
        if distance <= tolerance * 100 * max(1, abs(exact) * size):
            return exact
    return None


def _sizes(problem: "NumericProblem") -> dict:
    """The typical size of each free multiplier (1 for one that no moment fixes)."""
    sizes = dict(zip(problem.free, [1.0] * len(problem.free)))
    for term, size in zip(problem.moment_terms, problem._scales()):
        if term.multiplier in sizes:
            sizes[term.multiplier] = float(size)
    return sizes


#: how near a fraction (relative, see _small_fraction) a double-precision root must be for
#: exact_double_root to try it: far above the double root's rounding, far below the distance
#: between two fractions it could mean (1/132)
_DOUBLE_TOLERANCE = mpmath.mpf(10) ** -11


def exact_double_root(problem: "NumericProblem", pieces: list[Piece], terms: list[Term], point: Any,
                      timeout: Deadline | float | None) -> dict | None:
    """The root as exact fractions, taken from the double-precision ``point`` when each free
    multiplier is a small fraction to 1e-9 and every multiplier equation holds exactly there, else
    None: the polish to the digits asked for is then not needed.

    Where it applies (the uniform law's multiplier 0 on [0, b] with Mean(b/2)), the polish could
    only have found that same root: the equations hold exactly at it, and without a continuity
    condition the root is unique (the dual is strictly convex), so the polished value is that
    fraction to all its digits, which :func:`recognise_exact` then makes exact (the other fractions
    it tries, of smaller denominators, lie at least 1/132 away).  A continuity condition can
    have several roots, of which the polish keeps the one of largest entropy: not tried here."""
    if problem.substitution or problem.continuity_terms:
        return None
    sizes = _sizes(problem)
    candidate = {}
    with mpmath.workdps(30):
        for multiplier, value in zip(problem.free, point):
            if not math.isfinite(float(value)):
                return None
            exact = _small_fraction(mpmath.mpf(float(value)), sizes[multiplier], _DOUBLE_TOLERANCE)
            if exact is None:
                return None
            candidate[multiplier] = exact
    try:
        verified = _verify_exact(pieces, terms, candidate, timeout)
    except Exception:  # sympy could not check it: the polish decides, as without this shortcut
        return None
    return None if verified is None else candidate


def recognise_exact(problem: "NumericProblem", pieces: list[Piece], terms: list[Term],
                     multipliers: dict, digits: int, timeout: Deadline | float | None
                     ) -> tuple[dict, list | None] | None:
    """Numeric multipliers that are small fractions (0, 1, -1/2, ...) to all ``digits``, made exact.

    Returns None when none is; else the multipliers with those made exact, and the exact Z on
    each piece when every multiplier is exact and the equations hold exactly (else None, and
    the fractions are kept only if the quadrature residual stays below 10**-digits)."""
    candidate = dict(multipliers)
    changed = False
    # a value stated as a double is known to 2**-53 only: a multiplier that far from a fraction
    # (lambda = -2e-17 for SquaredLogDeviation(1.4142135623730951) on [0, 10], whose exact
    # sqrt(2) gives 0) is that fraction to the precision of the question
    floats = [v._prec for v in (t.feature.value for t in problem.moment_terms) if isinstance(v, sympy.Float)]
    tolerance = mpmath.mpf(10) ** -(digits - 3)
    if floats:
        tolerance = max(tolerance, mpmath.mpf(2) ** -(min(floats) - 4))
    sizes = _sizes(problem)
    with mpmath.workdps(digits + 10):
        for multiplier in problem.free:
            value = mpmath.mpf(sympy.N(multipliers[multiplier], digits + 10))
            exact = _small_fraction(value, sizes[multiplier], tolerance)
            if exact is not None:
                candidate[multiplier] = exact
                changed = True
    if not changed:
        return None
    for multiplier, expression in problem.substitution.items():
        candidate[multiplier] = expression.subs(candidate)
    if all(isinstance(value, sympy.Rational) for value in candidate.values()):
        parts = _verify_exact(pieces, terms, candidate, timeout)
        if parts is not None:
            return candidate, parts
    # not all exact: keep only the values where the generic integrals are 0/0 (0, and 1 on
    # kappa**-lambda); lambda = 100.000... for Support(0, 10), Mean(0.01) is not 100
    for multiplier in problem.free:
        if candidate[multiplier] not in (0, 1) or not isinstance(candidate[multiplier], sympy.Rational):
            candidate[multiplier] = multipliers[multiplier]
    if all(candidate[m] == multipliers[m] and type(candidate[m]) is type(multipliers[m]) for m in problem.free):
        return None
    for multiplier, expression in problem.substitution.items():
        candidate[multiplier] = expression.subs(candidate)
    with mpmath.workdps(digits + 10):
        try:
            residual = problem.residual([mpmath.mpf(sympy.N(candidate[m], digits + 10)) for m in problem.free])
        except (ValueError, ZeroDivisionError, OverflowError):
            return None
        scales = problem._scales()
        if max(abs(r) / s for r, s in zip(residual, scales)) > tolerance:
            return None
    return candidate, None
