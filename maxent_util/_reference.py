"""A second route to a utility's values: mpmath at 30 digits, for checking compiled scorers.

A compiled scorer evaluates its expression in doubles, and an expression that is exactly right
can still be wrong in doubles: ``log(t**1000/15**1000)`` overflows to ``inf`` and scored every
runtime as 0, and ``C*t**-a`` with ``C = 10**500`` is ``inf/inf``.  :class:`~maxent_util.scorer.Scorer`
therefore checks itself when it is made (and, with parameters, at the first values it is
called with) against :func:`reference_values` at :func:`check_points`; see
:func:`~maxent_util.scorer.compile_scorer` for what it does when they disagree.

The reference is the same expression, lambdified for mpmath and evaluated at
:data:`REFERENCE_DIGITS` digits (sympy's ``evalf`` with ``subs`` where printing for mpmath
fails), so the two routes share only the expression.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Sequence

import mpmath
import numpy as np
import sympy

__all__ = ["AGREEMENT", "REFERENCE_DIGITS", "agree", "check_points", "log_space",
           "mpmath_function", "reference_values"]

#: digits of the mpmath evaluation a compiled scorer is checked against
REFERENCE_DIGITS = 30

#: the largest difference allowed between a scorer and its reference: absolute for values up to
#: 1 (every utility of a captime law), relative beyond
AGREEMENT = 1e-9

#: runtimes of the grid every check includes (decades of seconds), besides the expression's own
_GRID = tuple(10.0 ** k for k in range(-3, 7))

#: relative offsets taken on both sides of every breakpoint
_BESIDE = (0.5, 1 - 1e-6, 1 + 1e-6, 2.0)

#: at most this many of the expression's own numbers serve as scales of extra points
_MAX_SCALES = 8


def _finite_positive(value: Any) -> float | None:
    try:
        number = float(value)
    except (TypeError, ValueError, OverflowError):
        return None
    return number if math.isfinite(number) and number > 0 else None


def check_points(expr: sympy.Expr, runtime: sympy.Symbol, values: dict) -> np.ndarray:
    """Runtimes at which a scorer of ``expr`` is checked: its breakpoints (the ends of its
    ``Piecewise`` conditions at the parameters' ``values``) and points just beside them, the
    numbers it holds (its scales: ``kappa0`` in ``log(t/kappa0)``) and beside them, and a grid
    of decades from 1e-3 to 1e6 (a point within 1e-7 of a breakpoint, relatively, is left out:
    a step there is decided by the last bit of a float)."""
    breakpoints: set[float] = set()
    for relation in expr.atoms(sympy.core.relational.Relational):
        for side, other in ((relation.lhs, relation.rhs), (relation.rhs, relation.lhs)):
            if side == runtime and runtime not in other.free_symbols:
                point = _finite_positive(other.xreplace(values))
                if point is not None:
                    breakpoints.add(point)
    scales = sorted({number for atom in expr.atoms(sympy.Float, sympy.Rational)
                     if (number := _finite_positive(abs(atom))) is not None
                     and 1e-300 < number < 1e300 and number != 1.0})
    if len(scales) > _MAX_SCALES:
        scales = [scales[round(i * (len(scales) - 1) / (_MAX_SCALES - 1))] for i in range(_MAX_SCALES)]
    points = set(_GRID)
    for point in breakpoints:
        # not at the breakpoint itself: a step there is decided by the last bit of its float
        points.update(point * factor for factor in _BESIDE)
    for scale in scales:
        points.update(scale * factor for factor in (0.5, 1.0, 2.0))
    return np.array(sorted(p for p in points if 0 < p < math.inf
                           and not any(abs(p - b) < 1e-7 * b for b in breakpoints)))


def mpmath_function(expr: sympy.Expr, symbols: Sequence[sympy.Symbol]) -> Callable[..., Any]:
    """``expr`` as a function of mpmath numbers (the reference route)."""
    return sympy.lambdify(list(symbols), expr, modules="mpmath")


def _as_real(value: Any) -> float:
    if isinstance(value, (bool, np.bool_)):
        return float(value)
    value = mpmath.mpmathify(value)
    if isinstance(value, mpmath.mpc):
        if value.imag != 0 and abs(value.imag) > AGREEMENT * max(1.0, abs(value.real)):
            return math.nan
        value = value.real
    return float(value)


def reference_values(expr: sympy.Expr, symbols: Sequence[sympy.Symbol], runtimes: np.ndarray,
                     values: Sequence[float], function: Callable[..., Any] | None = None
                     ) -> np.ndarray:
    """``expr`` at each runtime (the first of ``symbols``) and the parameters' ``values`` (the
    others), by mpmath at :data:`REFERENCE_DIGITS` digits; NaN where neither mpmath nor sympy's
    ``evalf`` gives a real number."""
    out = np.full(len(runtimes), math.nan)
    with mpmath.workdps(REFERENCE_DIGITS + 10):
        parameters = [mpmath.mpf(v) for v in values]
        for i, runtime in enumerate(runtimes):
            if function is not None:
                try:
                    out[i] = _as_real(function(mpmath.mpf(float(runtime)), *parameters))
                    continue
                except Exception:  # mpmath lacks a function or a branch misbehaves: try evalf
                    pass
            try:
                at = dict(zip(symbols, [sympy.Float(float(runtime), 20)]
                              + [sympy.Float(v, 20) for v in values]))
                value = expr.evalf(REFERENCE_DIGITS, subs=at)
                out[i] = float(value) if value.is_real else math.nan
            except Exception:  # no value by either route: unchecked at this point
                out[i] = math.nan
    return out


def agree(fast: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """Where a scorer's values match the reference: within :data:`AGREEMENT` (relative beyond
    1), or equal (infinities); a point without a reference (NaN: complex, or no route could
    compute it, see :func:`reference_values`) is not checked."""
    with np.errstate(invalid="ignore"):
        close = np.abs(fast - reference) <= AGREEMENT * np.maximum(1.0, np.abs(reference))
    return (fast == reference) | close | np.isnan(reference)


def log_space(expr: sympy.Expr, runtime: sympy.Symbol) -> sympy.Expr:
    """Products of powers written as one exponential of a sum of logs, and logs of products as
    sums of logs: ``C*t**a*exp(x)`` as ``exp(log(C) + a*log(t) + x)`` and ``log(t**1000/15**1000)``
    as ``1000*log(t) - 1000*log(15)``, the constants folded into floats at
    :data:`REFERENCE_DIGITS` digits.  Exact for positive bases (a runtime's value at 0 is the
    scorer's limit, never this formula's); no intermediate value overflows unless the result does.
    """
    def constant(value: sympy.Expr) -> sympy.Expr:
        return value.evalf(REFERENCE_DIGITS) if value.is_number else value

    def log_of(argument: sympy.Expr) -> sympy.Expr:
        # a sum of logs, the logs of numbers folded into floats
        return sympy.expand_log(sympy.log(argument), force=True).replace(
            lambda n: isinstance(n, sympy.log) and n.args[0].is_number, constant)

    def logs_of(node: sympy.Expr) -> sympy.Expr:
        argument = node.args[0]
        if not (argument.is_Mul or argument.is_Pow) or runtime not in argument.free_symbols:
            return node
        return log_of(argument)

    stand_in = sympy.Dummy("t", positive=True)

    def positive(base: sympy.Expr) -> bool:
        return base == runtime or base.xreplace({runtime: stand_in}).is_positive is True

    def product(node: sympy.Expr) -> sympy.Expr:
        if runtime not in node.free_symbols:
            return node
        exponent, rest = [], []
        for factor in sympy.Mul.make_args(node):
            if factor.is_number and factor.is_positive:
                exponent.append(constant(sympy.log(factor)))
            elif factor.is_Pow and positive(factor.base) \
                    and factor.exp.is_real and not (factor.exp.is_Integer and abs(factor.exp) <= 8):
                exponent.append(constant(factor.exp) * log_of(factor.base))
            elif isinstance(factor, sympy.exp):
                exponent.append(factor.args[0])
            else:
                rest.append(factor)
        if len(exponent) < 2:
            return node
        return sympy.Mul(*rest) * sympy.exp(sympy.Add(*exponent), evaluate=False)

    rewritten = expr.replace(lambda n: isinstance(n, sympy.log), logs_of)
    return rewritten.replace(lambda n: n.is_Mul or n.is_Pow, product)

