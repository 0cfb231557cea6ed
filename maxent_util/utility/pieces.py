"""Reading a utility's expression: time-bounded sympy, Piecewise pieces, a grid of runtimes.

The lowest room of :mod:`maxent_util.utility`: the helpers that the
utilities (:mod:`.core`) and the theorem's checks (:mod:`.checks`) both read
an expression with.  Nothing here knows a :class:`~maxent_util.utility.Utility`.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import sympy

from .._timing import Deadline as _Deadline
from .._timing import SymbolicTimeout as _SymbolicTimeout
from .._timing import run_bounded as _run_bounded
from ..errors import MaxEntError
from ..scorer import limit_by_continuity
from ..symbols import t

#: Seconds for a symbolic integral or limit, and for one solve or simplification.  A solve
#: that finds a closed form takes about 1 s on an idle machine (the log-normal inverse);
#: the limit leaves room for a loaded one, so the route taken does not depend on the load.
SYMBOLIC_SECONDS = 5.0
SOLVE_SECONDS = 10.0


def try_symbolic(compute: Callable[[], Any], seconds: float | None) -> Any:
    """``compute()``, or None if sympy fails or runs out of time.

    Bounded on any thread: by SIGALRM on the main thread, otherwise in a
    worker process killed at the limit (see :func:`maxent_util._timing.run_bounded`).
    """
    try:
        return _run_bounded(compute, deadline=_Deadline(seconds))
    except _SymbolicTimeout:
        return None
    except MaxEntError:
        raise
    except Exception:  # sympy signals "cannot do this" with many exception types
        return None


def end_limit(expr: sympy.Expr, point: sympy.Expr, direction: str, seconds: float | None) -> Any:
    """``lim expr`` as ``t -> point`` from ``direction``: by continuity where that decides
    (sympy 1.14's limit of 1 - erf(a t - b) at oo is 2), else sympy's limit under
    :func:`try_symbolic` (None if it fails or runs out of time)."""
    value = limit_by_continuity(expr, point)
    if value is not None:
        return value
    return try_symbolic(lambda: sympy.limit(expr, t, point, direction), seconds)


def _upper_bound(condition: Any) -> sympy.Expr | None:
    """``b`` for a condition ``t < b`` / ``t <= b`` (possibly ``And``-ed with a lower bound)."""
    if condition is sympy.true:
        return sympy.oo
    parts = condition.args if isinstance(condition, sympy.And) else (condition,)
    bounds = [part.gts for part in parts
              if isinstance(part, (sympy.StrictLessThan, sympy.LessThan, sympy.StrictGreaterThan,
                                   sympy.GreaterThan)) and part.lts == t and not part.gts.has(t)]
    others = [part for part in parts
              if not (isinstance(part, sympy.core.relational.Relational) and t in (part.lhs, part.rhs)
                      and part.lhs != part.rhs)]
    if len(bounds) != 1 or others:
        return None
    return bounds[0]


def pieces_of(expr: sympy.Expr) -> list[tuple[sympy.Expr, sympy.Expr, sympy.Expr]] | None:
    """``[(start, end, expression), ...]`` for a utility ordered by increasing ``t``.

    None when the Piecewise is not of the form ``(e1, t < b1), (e2, t < b2),
    ..., (en, True)``.
    """
    if expr.has(sympy.Max, sympy.Min):
        # sympy writes integrals over a support as Max(kappa0, t); pieces are easier to solve.
        clamped = _clamp_pieces(expr)
        if clamped is not None:
            return clamped
        expr = sympy.piecewise_fold(expr.rewrite(sympy.Piecewise))
    return _piecewise_pieces(expr)


def _piecewise_pieces(expr: sympy.Expr) -> list[tuple[sympy.Expr, sympy.Expr, sympy.Expr]] | None:
    """:func:`pieces_of` for an expression read as it stands (a Min or Max left inside)."""
    if not isinstance(expr, sympy.Piecewise):
        return [(sympy.Integer(0), sympy.oo, expr)]
    pieces, start = [], sympy.Integer(0)
    for piece, condition in expr.args:
        end = _upper_bound(condition)
        if end is None:
            return None
        pieces.append((start, end, piece))
        start = end
        if end == sympy.oo:
            break
    return pieces if start == sympy.oo else None


def _ramp(expr: sympy.Expr) -> list[tuple[sympy.Expr, sympy.Expr]] | None:
    """``[(end, value), ...]`` (ends increasing, the last oo; each value ``t`` or a real number)
    of ``expr`` built from ``t``, real numbers, Min and Max; None for anything else."""
    if expr == t:
        return [(sympy.oo, t)]
    if not isinstance(expr, (sympy.Min, sympy.Max)):
        # (a Min or Max of numbers is read below, so that its value is one number)
        return [(sympy.oo, expr)] if expr.is_number and expr.is_comparable else None
    ramps = [_ramp(arg) for arg in expr.args]
    if any(ramp is None for ramp in ramps):
        return None
    ends = sorted({end for ramp in ramps for end, _ in ramp}, key=float)
    pick = max if isinstance(expr, sympy.Max) else min
    result, start = [], -sympy.oo
    for end in ends:
        values = [_value_after(ramp, start) for ramp in ramps]
        numbers = [v for v in values if v != t]
        if len(numbers) == len(values):
            result.append((end, pick(numbers, key=float)))
        elif not numbers:
            result.append((end, t))
        else:
            # max(t, c) is c below c and t above (min the other way round), within (start, end)
            c = pick(numbers, key=float)
            below, above = (c, t) if pick is max else (t, c)
            if float(start) < float(c) < float(end):
                result += [(c, below), (end, above)]
            else:
                result.append((end, below if float(c) >= float(end) else above))
        start = end
    return result


def _value_after(ramp: list[tuple[sympy.Expr, sympy.Expr]], point: sympy.Expr) -> sympy.Expr:
    """The value of a :func:`_ramp` just after ``point``: that of its first piece ending beyond it."""
    return next(value for stop, value in ramp if float(stop) > float(point))


def _clamp_pieces(expr: sympy.Expr) -> list[tuple[sympy.Expr, sympy.Expr, sympy.Expr]] | None:
    """The pieces of an expression whose Min and Max hold only ``t`` and numbers (a clamp such
    as ``Min(3600, Max(600, t))``), in the simple ``t < b`` form; None for other Min and Max.

    sympy's own rewrite to Piecewise solves each condition as a set (0.4 s a call) and gives
    conditions such as ``(t <= 600) & (t < 3600)`` that :func:`pieces_of` cannot read.
    """
    if isinstance(expr, sympy.Piecewise) and any(c.has(sympy.Min, sympy.Max) for _, c in expr.args):
        return None
    outer = _piecewise_pieces(expr)
    if outer is None:
        return None
    pieces = []
    for start, end, piece in outer:
        clamps = piece.atoms(sympy.Min, sympy.Max)
        # the outermost: a Min or Max that no other holds as an argument
        nodes = [node for node in clamps if not any(node in other.args for other in clamps)]
        ramps = {node: _ramp(node) for node in nodes}
        if any(ramp is None for ramp in ramps.values()):
            return None
        cuts = sorted({stop for ramp in ramps.values() for stop, _ in ramp
                       if float(start) < float(stop) < float(end)}, key=float) + [end]
        low = start
        for high in cuts:
            values = {node: _value_after(ramp, low) for node, ramp in ramps.items()}  # on (low, high)
            value = piece.xreplace(values)
            if pieces and pieces[-1][2] == value:
                pieces[-1] = (pieces[-1][0], high, value)
            else:
                pieces.append((low, high, value))
            low = high
    return pieces


def captime_of(pieces: list[tuple[sympy.Expr, sympy.Expr, sympy.Expr]]) -> sympy.Expr:
    """Start of the first piece that is identically zero (infinity if none)."""
    for start, _, piece in pieces:
        if piece == 0:
            return start
    return sympy.oo


def is_zero(expr: sympy.Expr | None) -> bool | None:
    """Whether ``expr`` is 0; for a number, to within float rounding.

    The tolerance allows for cancellation: linear_quality(1, 84, 84.01) divides by
    q1 - q0 = 0.01, which carries 84 times the rounding of q1, so p(0, q1) - 1 = 1.8e-12.
    """
    if expr is None:
        return None
    if expr.is_number and expr.is_finite:
        value = complex(expr)
        return abs(value) <= 1e-9
    return expr.is_zero


def as_float(value: Any) -> float | None:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number


def time_grid(scales: list[float]) -> np.ndarray:
    """A dense log-spaced grid of runtimes, refined on both sides of each breakpoint."""
    positive = [s for s in scales if np.isfinite(s) and s > 0]
    scale = max(positive) if positive else 1.0
    parts = [np.zeros(1), scale * np.logspace(-9, 9, 1801)]
    for point in positive:
        offsets = np.logspace(-12, -1, 23)
        parts += [np.array([point]), point * (1 - offsets), point * (1 + offsets)]
    return np.unique(np.concatenate(parts))


def breakpoints(expr: sympy.Expr) -> list[float]:
    """The ends of the pieces of ``expr`` that are numbers (none if it is not piecewise in ``t``)."""
    points = [as_float(end) for _, end, _ in pieces_of(expr) or []]
    return [p for p in points if p is not None]
