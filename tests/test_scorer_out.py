"""Tests of the scorer's evaluation path: a formula that ends in one function call (exp, erfc)
writes straight into the output block and gives the numbers the printed code gives, and the
ends of the support are repaired where runtimes are infinite, zero, negative or NaN, in any
mix within a block."""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

import maxent_util.maxent.fast as fast_module
import maxent_util.scorer as scorer_module
from maxent_util.scorer import _OuterUfunc, _select, _select_over, compile_scorer
from maxent_util.symbols import t

KAPPA0 = sympy.Symbol("kappa0", positive=True)

#: formulas (most ending in one ufunc of an expression in t), the same in Python's math
#: module (an independent route), and their limits at 0+ and at infinity
FORMULAS = {
    "exp(-t/24)": (sympy.exp(-t / 24), lambda x: math.exp(-x / 24), 1.0, 0.0),
    "exp(-t/kappa0)": (sympy.exp(-t / KAPPA0), lambda x: math.exp(-x / 24), 1.0, 0.0),
    "erfc(log(t/24))": (sympy.erfc(sympy.log(t / 24)),
                        lambda x: math.erfc(math.log(x) - math.log(24)), 2.0, 0.0),
    # inf * 0 at t = inf: the formula gives NaN there, the repair the limit 0
    "(1 + t/24) exp(-t/24)": ((1 + t / 24) * sympy.exp(-t / 24),
                              lambda x: (1 + x / 24) * math.exp(-x / 24), 1.0, 0.0),
    # a last piece selected against in one pass, out never filled with it
    "uniform(24)": (sympy.Piecewise((1 - t / 24, t < 24), (0, True)),
                    lambda x: 1 - x / 24 if x < 24 else 0.0, 1.0, 0.0),
    "pareto(24, 2)": (sympy.Piecewise((1, t < 24), (576 / t ** 2, True)),
                      lambda x: 1.0 if x < 24 else 576 / (x * x), 1.0, 0.0),
    "steps": (sympy.Piecewise((1, t < 5), (sympy.Rational(1, 2), True)),
              lambda x: 1.0 if x < 5 else 0.5, 1.0, 0.5),
    "erfc(log(t/24))/2": (sympy.erfc(sympy.log(t / 24)) / 2,
                          lambda x: math.erfc(math.log(x) - math.log(24)) / 2, 1.0, 0.0),
}

EDGES = [0.0, -0.0, -1.0, 1e-300, 5e-324, 1.0, 24.0, 1e300, math.inf, -math.inf, math.nan]


def keywords(name: str) -> dict:
    return {"kappa0": 24.0} if "kappa0" in name else {}


def test_a_last_function_call_writes_into_the_output():
    root = compile_scorer(sympy.exp(-t / 24))._root
    assert isinstance(root, _OuterUfunc) and root.ufunc is np.exp
    assert isinstance(compile_scorer(sympy.erfc(sympy.log(t / 24)))._root, _OuterUfunc)
    # a product or a Piecewise at the top is printed whole (or selects into the output)
    assert not isinstance(compile_scorer(sympy.exp(-t / 24) / 2)._root, _OuterUfunc)


@pytest.mark.parametrize("name", ["exp(-t/24)", "exp(-t/kappa0)"])
def test_the_same_numbers_as_the_whole_printed_formula(name):
    # the ufunc the printed code calls last, applied to the printed argument: the same code,
    # so the same bits on any machine
    expr = FORMULAS[name][0]
    scorer = compile_scorer(expr)
    whole = scorer_module._lambdify(scorer._args, scorer._stand_in_expr, scorer._runtime)
    x = np.geomspace(1e-3, 1e6, 4001)
    params = [np.float64(24.0)] if scorer.parameters else []
    with np.errstate(all="ignore"):
        expected = whole(x, *params)
    assert scorer(x, **keywords(name)).view(np.int64).tolist() == \
        np.asarray(expected, dtype=float).view(np.int64).tolist()


@given(st.sampled_from(sorted(FORMULAS)),
       st.lists(st.sampled_from(EDGES) | st.floats(min_value=-10, max_value=1e6),
                min_size=1, max_size=300),
       st.booleans())
@settings(max_examples=60, deadline=None)
def test_ends_repaired_in_any_mix(name, runtimes, every_7th_infinite):
    expr, by_hand, at_zero, at_infinity = FORMULAS[name]
    x = np.array(runtimes)
    if every_7th_infinite:  # capped runs written as inf, the common case
        x[::7] = math.inf
    saved = scorer_module.CHUNK_SIZE
    scorer_module.CHUNK_SIZE = 16  # many blocks: some with infinite runtimes only at the top
    try:
        values = compile_scorer(expr)(x, **keywords(name))
    finally:
        scorer_module.CHUNK_SIZE = saved
    inside = (x > 0) & np.isfinite(x)
    reference = np.array([by_hand(v) for v in x[inside].tolist()])
    # log(x) - log(24) rounds apart from log(x/24) near x = 24 (absolute 1e-16 in erfc's argument)
    np.testing.assert_allclose(values[inside], reference, rtol=1e-13, atol=1e-15)
    assert np.all(values[x <= 0] == at_zero)
    assert np.all(values[x == math.inf] == at_infinity)
    assert np.all(np.isnan(values[np.isnan(x)]))


@given(st.lists(st.sampled_from(EDGES) | st.floats(allow_nan=True, allow_infinity=True),
                min_size=1, max_size=200),
       st.lists(st.booleans(), min_size=1, max_size=200),
       st.sampled_from(EDGES) | st.floats(allow_nan=True, allow_infinity=True),
       st.booleans())
@settings(max_examples=60, deadline=None)
def test_select_over_copies_the_chosen_bits_exactly(values, choices, other, array):
    n = min(len(values), len(choices))
    chosen = np.array(values[:n])
    holds = np.array(choices[:n])
    if array:  # the other value an array (a last piece in t), not a number
        other = np.array(values[::-1][:n])
    out = np.empty(n)
    _select_over(holds, chosen, other, out, np.empty(n, np.int64))
    # reference: np.where, bit for bit (NaN payloads and signed zeros included), and the
    # route it replaces (fill, then select)
    expected = np.where(holds, chosen, np.asarray(other, dtype=np.float64))
    assert out.view(np.int64).tolist() == expected.view(np.int64).tolist()
    filled = np.empty(n)
    filled[...] = other
    _select(holds, chosen, filled, np.empty(n, np.int64))
    assert filled.view(np.int64).tolist() == expected.view(np.int64).tolist()


@pytest.fixture(scope="module")
def fast_route_law():
    from maxent_util.constraints import Mean, Support
    from maxent_util.maxent import derive

    return derive(Support(0, 3600), Mean(1200))


@given(st.lists(st.sampled_from(EDGES + [3600.0, 3599.999, 3600.001])
                | st.floats(min_value=-10, max_value=5000), min_size=1, max_size=60),
       st.integers(min_value=1, max_value=9))
@settings(max_examples=30, deadline=None)
def test_a_law_valued_by_itself_is_evaluated_in_blocks(fast_route_law, runtimes, block):
    import mpmath

    utility = fast_route_law.utility()
    scorer = compile_scorer(utility)
    assert scorer.route == "the law's survival function"
    x = np.array(runtimes)
    # many blocks, of a length that divides nothing: the scorer's (a law valued by quadrature)
    # and the law's own (its tails written out, evaluated in place block by block)
    saved = scorer_module._LAW_BLOCK, fast_module._TAIL_BLOCK
    scorer_module._LAW_BLOCK = fast_module._TAIL_BLOCK = block
    try:
        values = scorer(x.reshape(1, -1))
    finally:
        scorer_module._LAW_BLOCK, fast_module._TAIL_BLOCK = saved
    assert values.shape == (1, x.size)
    values = values.ravel()
    # the law's survival function on all runtimes at once (the route before blocks): every
    # runtime is valued on its own, so blocks change nothing
    whole = np.asarray(fast_route_law.numeric.sf(x), dtype=float)
    assert np.array_equal(np.isnan(values), np.isnan(x)) and np.array_equal(np.isnan(whole), np.isnan(x))
    np.testing.assert_array_max_ulp(values[~np.isnan(x)], whole[~np.isnan(x)], maxulp=1)
    # an independent route: the closed form a + b exp(c t) below 3600 (0 above), in mpmath
    closed = fast_route_law.utility().expr
    with mpmath.workdps(30):
        for value, runtime in zip(values.tolist(), x.tolist()):
            if not 0 < runtime < math.inf:
                continue
            expected = float(closed.subs(t, sympy.Float(runtime, 30)).evalf(30))
            assert abs(value - expected) <= 1e-12
