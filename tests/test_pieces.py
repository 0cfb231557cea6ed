"""Reading a utility's pieces when it holds clamps such as ``Min(3600, Max(600, t))``.

A designed utility (cost per hour, solution value) is written with such clamps.  Its pieces are
read without sympy's rewrite to Piecewise, which took 0.4 s a call and gave conditions
(``(t <= 600) & (t < 3600)``) that the reader refused, so the utility lost its breakpoints.
The reference for every value is the expression itself, evaluated by sympy at the point.
"""

from __future__ import annotations

import math

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from maxent_util.symbols import t
from maxent_util.utility.pieces import breakpoints, pieces_of

numbers = st.integers(min_value=-5, max_value=60).map(lambda n: sympy.Rational(n, 4))


@st.composite
def clamps(draw, depth: int = 3) -> sympy.Expr:
    """t, a number, or a Min or Max of up to three clamps."""
    if depth == 0 or draw(st.booleans()):
        return t if draw(st.booleans()) else draw(numbers)
    pick = draw(st.sampled_from([sympy.Min, sympy.Max]))
    return pick(*draw(st.lists(clamps(depth - 1), min_size=2, max_size=3)))


def value_at(pieces, point: sympy.Expr) -> sympy.Expr:
    for start, end, piece in pieces:
        if start <= point < end:
            return piece.subs(t, point)
    raise AssertionError(f"no piece holds t = {point}")


@settings(max_examples=150, deadline=None)
@given(clamps(), st.lists(numbers, min_size=1, max_size=4))
def test_pieces_of_a_clamp_give_its_values(clamp, extra):
    expr = 1 + clamp / 20 - t / 1000
    pieces = pieces_of(expr)
    assert pieces is not None
    assert pieces[0][0] == 0 and pieces[-1][1] == sympy.oo
    for (_, end, _), (start, _, _) in zip(pieces, pieces[1:]):
        assert end == start
    for _, _, piece in pieces:
        assert not piece.has(sympy.Min, sympy.Max)
    ends = [end for _, end, _ in pieces[:-1]]
    points = {sympy.Integer(0), *ends, *(e + sympy.Rational(1, 7) for e in ends), *(abs(x) for x in extra)}
    for point in points:
        assert value_at(pieces, point) == expr.subs(t, point).doit(), point


def test_a_design_s_clamp_gives_its_breakpoints():
    """The shape of a designed utility (the designer's cost per hour and value): two breakpoints
    where sympy's rewrite gave none."""
    clamp = sympy.Min(3600, sympy.Max(600, t))
    expr = sympy.Piecewise((sympy.Rational(3, 5) - t / 1200 + clamp / 1500
                            - t * sympy.log(clamp + 57600) / 1500, t < 3600), (0, True))
    assert breakpoints(expr) == [600.0, 3600.0, math.inf]
    pieces = pieces_of(expr)
    assert [(start, end) for start, end, _ in pieces] == [(0, 600), (600, 3600), (3600, sympy.oo)]
    assert pieces[0][2] == expr.args[0][0].subs(clamp, 600)
    assert pieces[1][2] == expr.args[0][0].subs(clamp, t)


def test_a_min_of_other_expressions_is_left_to_sympy():
    """Min(t**2, 4) is not a clamp of t: the general rewrite still reads it."""
    pieces = pieces_of(sympy.Min(t**2, 4))
    assert pieces is None or all(value_at(pieces, sympy.Integer(x)) == min(x * x, 4) for x in range(5))


def test_a_piece_with_t_beside_the_log_of_a_sum_is_not_given_to_sympy_s_solve():
    """A design's piece ``t log(t + c)`` has no closed-form inverse; the others still go to sympy."""
    from maxent_util.utility.core import _log_of_a_sum_beside_t

    assert _log_of_a_sum_beside_t(t * sympy.log(t + 57600) / 1200 - t / 1200 + 1)
    assert not _log_of_a_sum_beside_t(1 - sympy.log(t + 1) / 10)      # t = exp(10 (1 - y)) - 1
    assert not _log_of_a_sum_beside_t(1 - t * sympy.log(t) / 100)     # LambertW
    assert not _log_of_a_sum_beside_t(sympy.exp(-t / 5))


def test_a_design_s_inverse_is_its_root():
    """The inverse of a designed utility comes from the numerical route; the reference is
    scipy's brentq on the utility's own values."""
    from scipy import optimize

    from maxent_util import Utility

    clamp = sympy.Min(3600, sympy.Max(600, t))
    expr = sympy.Piecewise((sympy.Rational(3, 5) - t / 1200 + clamp / 1500 + t * sympy.log(t + 57600) / 1200
                            - t * sympy.log(clamp + 57600) / 1500 - t * sympy.log(61200) / 6000, t < 3600),
                           (0, True))
    utility = Utility(expr)
    assert utility.inverse_expr is None
    for level in (0.9, 0.5, 0.025):
        root = optimize.brentq(lambda x: float(expr.subs(t, x)) - level, 0.0, 3600.0, xtol=1e-12)
        assert utility.inverse(level) == pytest.approx(root, rel=1e-9)
