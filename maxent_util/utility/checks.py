"""The shape the paper's main theorem gives every utility, and the report of a check.

The main theorem (Section 2): ``u(0) = 1``; ``u`` is non-increasing in
``t``, positive before the captime and zero from it on.  This room holds the
names of those properties (callers match on them), the report
(:class:`UtilityCheck` of :class:`PropertyCheck` items) and the checks
themselves, as functions of a utility that :meth:`Utility.check
<maxent_util.utility.Utility.check>` calls.  It reads utilities through
their expression and their call only, so it imports nothing from
:mod:`.core`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import sympy

from ..errors import UtilityError, argument_message
from ..scorer import complement_erf
from ..symbols import q, t
from .pieces import (SOLVE_SECONDS, SYMBOLIC_SECONDS, as_float, breakpoints, captime_of, end_limit,
                     is_zero, pieces_of, time_grid, try_symbolic)

# ---------------------------------------------------------------------------
# The names of the properties, and the report of ``check``
# ---------------------------------------------------------------------------

# Names of the properties reported by ``check`` (the main theorem of Section
# 2, and its solution-quality version in the appendix); callers match on them.
AT_ZERO = "u(0) = 1"
NON_INCREASING = "non-increasing in t"
POSITIVE = "positive before the captime"
ZERO_AT_CAPTIME = "zero at the captime"
AT_BEST = "p(0, q1) = 1"
NON_DECREASING_Q = "non-decreasing in q"
POSITIVE_Q = "positive before the captime for q > q0"


@dataclass(frozen=True)
class PropertyCheck:
    """One property of the main theorem: ``holds`` is True, False or None (undecided)."""

    name: str
    holds: bool | None
    detail: str = ""


@dataclass(frozen=True)
class UtilityCheck:
    """What :meth:`Utility.check` found; truthy when every property holds."""

    utility: str
    properties: tuple[PropertyCheck, ...]

    def __bool__(self) -> bool:
        return all(item.holds is True for item in self.properties)

    @property
    def failures(self) -> tuple[str, ...]:
        """Names of the properties that provably fail."""
        return tuple(item.name for item in self.properties if item.holds is False)

    def __getitem__(self, name: str) -> PropertyCheck:
        for item in self.properties:
            if item.name == name:
                return item
        raise KeyError(name)

    def __str__(self) -> str:
        marks = {True: "pass", False: "FAIL", None: "undecided"}
        lines = [f"check of {self.utility}:"]
        for item in self.properties:
            detail = f" ({item.detail})" if item.detail else ""
            lines.append(f"  [{marks[item.holds]}] {item.name}{detail}")
        return "\n".join(lines)


# ---------------------------------------------------------------------------
# The checks of a utility of t
# ---------------------------------------------------------------------------

def check_utility(utility: Any, *, raise_on_failure: bool = False) -> UtilityCheck:
    """The report of :meth:`Utility.check <maxent_util.utility.Utility.check>` for ``utility``."""
    report = UtilityCheck(repr(utility), tuple(check_properties(utility)))
    if raise_on_failure and report.failures:
        failing = report[report.failures[0]]
        raise UtilityError(argument_message(
            "expr", "Utility.check", f"such that '{failing.name}' holds (main theorem, Section 2)",
            str(utility.expr), remedy=failing.detail or None))
    return report


def time_profile(utility: Any) -> tuple[Any, np.ndarray, np.ndarray]:
    """``(pieces, grid, values)``: the pieces of a numeric utility and its values on a dense grid."""
    grid = time_grid(breakpoints(utility.expr))
    with np.errstate(all="ignore"):
        values = utility._values(grid)  # any shape: reporting a utility's faults is the point
    return pieces_of(utility.expr), grid, values


def check_properties(utility: Any) -> list[PropertyCheck]:
    """The four properties of the main theorem, in order, for a utility of ``t``."""
    expr = utility.expr
    if q in expr.free_symbols:
        raise UtilityError(argument_message(
            "expr", "Utility.check", "a utility of t alone", str(expr),
            remedy="Build utilities of t and q with quality_utility(p, q0, q1)."))
    if utility.parameters:
        pieces, grid, values = pieces_of(expr), None, None
    else:
        pieces, grid, values = time_profile(utility)
    return [check_at_zero(expr, values),
            check_non_increasing(expr, pieces, grid, values),
            check_positive(expr, pieces, grid, values),
            check_zero_at_captime(expr, pieces, grid, values)]


def check_at_zero(expr: sympy.Expr, values: np.ndarray | None) -> PropertyCheck:
    at_zero = None
    if not expr.has(sympy.Integral):
        at_zero = try_symbolic(lambda: expr.subs(t, 0), SOLVE_SECONDS)
        if at_zero is not None and at_zero.has(sympy.nan, sympy.zoo, sympy.Piecewise):
            at_zero = end_limit(expr, 0, "+", SOLVE_SECONDS)
    if at_zero is not None and not at_zero.has(sympy.Limit):
        difference = is_zero(try_symbolic(lambda: sympy.simplify(at_zero - 1), SOLVE_SECONDS))
        if difference is not None:
            return PropertyCheck(AT_ZERO, difference, f"u(0) = {at_zero}")
    if values is not None:
        holds = bool(abs(values[0] - 1) <= 1e-9)
        return PropertyCheck(AT_ZERO, holds, f"u(0) = {values[0]:.12g} numerically")
    return PropertyCheck(AT_ZERO, None, "undecided for symbolic parameters")

def check_non_increasing(expr: sympy.Expr, pieces, grid, values) -> PropertyCheck:
    if values is not None:
        rises = np.flatnonzero(np.diff(values) > 1e-9)
        if rises.size:
            i = int(rises[0])
            return PropertyCheck(NON_INCREASING, False,
                                 f"u rises from {values[i]:.12g} at t = {grid[i]:.6g} "
                                 f"to {values[i + 1]:.12g} at t = {grid[i + 1]:.6g}")
        if np.isnan(values).any():
            return PropertyCheck(NON_INCREASING, False,
                                 f"u is not a number at t = {grid[np.isnan(values)][0]:.6g}")
        return PropertyCheck(NON_INCREASING, True, f"on {grid.size} runtimes")
    if pieces is None or expr.has(sympy.Integral):
        return PropertyCheck(NON_INCREASING, None, "undecided for symbolic parameters")
    verdicts = []
    for (start, end, piece), following in zip(pieces, pieces[1:] + [None]):
        slope = try_symbolic(lambda: sympy.simplify(sympy.diff(piece, t)), SOLVE_SECONDS)
        verdicts.append(None if slope is None else slope.is_nonpositive)
        if following is not None:
            drop = try_symbolic(
                lambda: sympy.simplify((piece - following[2]).subs(t, end)), SOLVE_SECONDS)
            verdicts.append(None if drop is None else drop.is_nonnegative)
    if False in verdicts:
        return PropertyCheck(NON_INCREASING, False,
                             "a piece rises (or jumps up) for these parameters")
    if all(verdicts):
        return PropertyCheck(NON_INCREASING, True, "piece by piece, symbolically")
    return PropertyCheck(NON_INCREASING, None, "undecided for symbolic parameters")

def check_positive(expr: sympy.Expr, pieces, grid, values) -> PropertyCheck:
    captime = captime_of(pieces) if pieces is not None else sympy.oo
    if values is not None:
        end = as_float(captime)
        if end is None:
            return PropertyCheck(POSITIVE, None, f"captime {captime} is not a number")
        before = grid < end
        failing = np.flatnonzero(before & ~(values > 0))
        # Floats underflow to 0 far in a tail, sympy's evalf does not (once c - c*erf(z) is
        # written c*erfc(z): at 30 digits 1 - erf(27) is 0 too, erfc(27) is 5e-319).  For a
        # non-increasing u, u > 0 at the last of these points covers the others.
        if failing.size:
            accurate = complement_erf(expr)
            for i in sorted({int(failing[0]), int(failing[-1])}):
                exact = try_symbolic(lambda: accurate.subs(t, sympy.Float(grid[i], 30)).evalf(30),
                                      SOLVE_SECONDS)
                if exact is None or not exact.is_positive:
                    return PropertyCheck(POSITIVE, False, f"u({grid[i]:.6g}) = {values[i]:.6g} "
                                                          f"before the captime {end:.6g}")
        return PropertyCheck(POSITIVE, True, f"captime {end:.6g}")
    if pieces is None or expr.has(sympy.Integral):
        return PropertyCheck(POSITIVE, None, "undecided for symbolic parameters")
    fraction = sympy.Dummy("w", positive=True)
    verdicts = []
    for start, end, piece in pieces:
        if piece == 0:
            break
        # t = end - (end - start) w with 0 < w <= 1, or start + w on an infinite piece.
        inside = start + fraction if end == sympy.oo else end - (end - start) * fraction
        verdicts.append(try_symbolic(lambda: sympy.simplify(piece.subs(t, inside)).is_positive,
                                      SOLVE_SECONDS))
    if False in verdicts:
        return PropertyCheck(POSITIVE, False, "a piece is not positive for these parameters")
    if verdicts and all(verdicts):
        return PropertyCheck(POSITIVE, True, f"captime {captime}")
    return PropertyCheck(POSITIVE, None, "undecided for symbolic parameters")

def check_zero_at_captime(expr: sympy.Expr, pieces, grid, values) -> PropertyCheck:
    if pieces is not None:
        captime = captime_of(pieces)
        if captime != sympy.oo:
            first_zero = [piece for _, _, piece in pieces].index(0)
            later = [piece for _, _, piece in pieces[first_zero + 1:] if piece != 0]
            if later:
                return PropertyCheck(ZERO_AT_CAPTIME, False,
                                     f"u is 0 from t = {captime} but rises again to {later[0]}")
            return PropertyCheck(ZERO_AT_CAPTIME, True, f"u = 0 from t = {captime} on")
    limit = None
    if not expr.has(sympy.Integral):
        tail = pieces[-1][2] if pieces is not None else expr  # the piece reaching oo
        limit = end_limit(tail, sympy.oo, "+", SYMBOLIC_SECONDS)  # "+": sympy's default direction
    if limit is not None and not limit.has(sympy.Limit) and is_zero(limit) is not None:
        return PropertyCheck(ZERO_AT_CAPTIME, is_zero(limit), f"limit of u as t -> oo is {limit}")
    if values is not None:
        last = float(values[-1])
        at_end = f"u({grid[-1]:.3g}) = {last:.3g}"
        if abs(last) <= 1e-6:
            return PropertyCheck(ZERO_AT_CAPTIME, True, f"numerically, {at_end}")
        return PropertyCheck(ZERO_AT_CAPTIME, None, f"no captime found; {at_end}")
    return PropertyCheck(ZERO_AT_CAPTIME, None, "undecided for symbolic parameters")
