"""Tests of the fast paths of issue 13: the scorer's printing of integer powers, its
branch-free selection of Piecewise values, its multi-threaded blocks, and sampling by
numerical inversion (to_scipy, its parametrised form, simulate_plan with scipy's new
distributions)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import maxent_util.scorer as scorer_module
from maxent_util import families
from maxent_util.errors import DataError, NoClosedFormError, UtilityError
from maxent_util.sampling import plan, simulate_plan
from maxent_util.scorer import _select, compile_scorer
from maxent_util.symbols import t

KAPPA0 = sympy.Symbol("kappa0", positive=True)

#: utilities with cheap branches (selected everywhere) and costly ones (evaluated on masks)
PIECEWISE = {
    "pareto-like": sympy.Piecewise((1, t < 24), ((24 / t) ** 3, True)),
    "log_laplace(24, 2)": sympy.Piecewise((1 - t ** 2 / 1152, t < 24), (288 / t ** 2, True)),
    "four breakpoints": sympy.Piecewise(
        (1, t < 1), (1 - sympy.log(t) / 10, t < 10),
        (sympy.Rational(77, 100) * sympy.exp(-(t - 10) / 50), t < 100),
        (sympy.erfc(t / 500) / 10, t < 1000), (0, True)),
    "parameter in a condition": sympy.Piecewise((1 - t / (2 * KAPPA0), t < KAPPA0),
                                                (KAPPA0 / (2 * t), True)),
}

EDGES = [0.0, -0.0, -1.0, 1e-300, 5e-324, 1.0, 24.0, 1e300, math.inf, -math.inf, math.nan]


def by_hand(name: str, x: float) -> float:
    """Reference: the utility at one runtime, in Python's math module (an independent route)."""
    if math.isnan(x):
        return math.nan
    if name == "pareto-like":
        return 1.0 if x < 24 else (24 / x) ** 3
    if name == "log_laplace(24, 2)":
        return 1 - x * x / 1152 if x < 24 else 288 / (x * x)
    if name == "four breakpoints":
        if x < 1:
            return 1.0
        if x < 10:
            return 1 - math.log(x) / 10
        if x < 100:
            return 0.77 * math.exp(-(x - 10) / 50)
        return math.erfc(x / 500) / 10 if x < 1000 else 0.0
    return 1 - x / 48 if x < 24 else 24 / (2 * x)


def keywords(name: str) -> dict:
    return {"kappa0": 24.0} if name == "parameter in a condition" else {}


@pytest.fixture
def small_blocks(monkeypatch):
    # blocks of 64 runtimes: a few hundred runtimes exercise many blocks and both threads
    monkeypatch.setattr(scorer_module, "CHUNK_SIZE", 64)


def test_integer_powers_are_products_and_keep_their_digits():
    x = np.geomspace(1e-3, 1e3, 1001)
    for exponent in (3, 4, 5, 8, -3, -5):
        values = compile_scorer(t ** exponent)(x)
        # reference: Python's float power, correctly rounded to within an ulp
        reference = np.array([v ** exponent for v in x.tolist()])
        np.testing.assert_allclose(values, reference, rtol=4 * exponent ** 2 * 2.0 ** -53, atol=0)


def test_no_powm1_for_an_integer_power():
    # 1 - t**2/1152 printed through scipy's powm1 cost four times t*t; the product is exact here
    source = repr(compile_scorer(1 - t ** 2 / 1152)._root.__code__.co_names)
    assert "powm1" not in source


@given(st.lists(st.sampled_from(EDGES) | st.floats(allow_nan=True, allow_infinity=True),
                min_size=1, max_size=200),
       st.lists(st.booleans(), min_size=1, max_size=200))
@settings(max_examples=60, deadline=None)
def test_select_copies_the_chosen_bits_exactly(values, choices):
    n = min(len(values), len(choices))
    chosen = np.array(values[:n])
    other = np.array(values[::-1][:n])
    holds = np.array(choices[:n])
    out = other.copy()
    _select(holds, chosen, out, np.empty(n, np.int64))
    # reference: np.where, compared bit for bit (NaN payloads and signed zeros included)
    assert out.view(np.int64).tolist() == np.where(holds, chosen, other).view(np.int64).tolist()
    scalar = other.copy()
    _select(holds, -0.0, scalar, np.empty(n, np.int64))
    assert scalar.view(np.int64).tolist() == np.where(holds, -0.0, other).view(np.int64).tolist()


@pytest.mark.parametrize("name", list(PIECEWISE))
def test_piecewise_scorers_agree_with_math_on_edges(name, small_blocks):
    x = np.array([e for e in EDGES if e > 0 and math.isfinite(e)]
                 + list(np.geomspace(1e-3, 1e4, 300)))
    values = compile_scorer(PIECEWISE[name])(x, **keywords(name))
    reference = np.array([by_hand(name, v) for v in x.tolist()])
    np.testing.assert_allclose(values, reference, rtol=1e-13, atol=1e-300)


@given(st.sampled_from(list(PIECEWISE)),
       st.lists(st.sampled_from(EDGES) | st.floats(min_value=-10, max_value=1e6),
                min_size=1, max_size=700))
@settings(max_examples=40, deadline=None)
def test_threads_give_the_same_bits_as_one_thread(name, runtimes):
    # CHUNK_SIZE patched by hand (hypothesis does not take function-scoped fixtures)
    saved = scorer_module.CHUNK_SIZE
    scorer_module.CHUNK_SIZE = 16
    try:
        x = np.array(runtimes)
        one = compile_scorer(PIECEWISE[name])(x, **keywords(name))
        two = compile_scorer(PIECEWISE[name], threads=2)(x, **keywords(name))
        every = compile_scorer(PIECEWISE[name], threads=None)(x, **keywords(name))
    finally:
        scorer_module.CHUNK_SIZE = saved
    assert one.view(np.int64).tolist() == two.view(np.int64).tolist() == every.view(np.int64).tolist()
    # runtimes in (0, inf) agree with the math reference; the ends get the limits
    inside = (x > 0) & np.isfinite(x)
    reference = np.array([by_hand(name, v) for v in x[inside].tolist()])
    np.testing.assert_allclose(one[inside], reference, rtol=1e-13, atol=1e-300)
    assert np.all(one[x <= 0] == 1.0) and np.all(np.isnan(one[np.isnan(x)]))
    assert np.all(one[x == math.inf] == 0.0)


def test_threads_split_large_inputs_across_the_pool(small_blocks):
    x = np.geomspace(1e-2, 1e4, 64 * 40)
    scorer = compile_scorer(PIECEWISE["four breakpoints"], threads=3)
    assert scorer.threads == 3 and compile_scorer(PIECEWISE["four breakpoints"]).threads == 1
    reference = np.array([by_hand("four breakpoints", v) for v in x.tolist()])
    np.testing.assert_allclose(scorer(x), reference, rtol=1e-13)


@pytest.mark.parametrize("threads", [0, -2, 1.5, "2", True])
def test_threads_must_be_a_positive_integer(threads):
    with pytest.raises(UtilityError, match="threads"):
        compile_scorer(sympy.exp(-t), threads=threads)


# ---------------------------------------------------------------------------
# sampling


@pytest.mark.parametrize("name", list(families.FAMILIES))
def test_rvs_passes_a_kolmogorov_smirnov_test_against_the_laws_cdf(name):
    law = getattr(families, name)(*families.FIGURE_PARAMETERS[name])
    rv = law.to_scipy()
    draws = rv.rvs(2000, random_state=np.random.default_rng(12345))
    lower, upper = (float(v) for v in law.support)
    assert np.all((draws >= lower) & (draws <= upper))
    # the law's own CDF (its closed form compiled), fixed seed: deterministic
    assert stats.kstest(draws, rv.cdf).pvalue > 0.01


def test_log_laplace_draws_match_scipy_loglaplace():
    # reference: scipy.stats.loglaplace(c=2, scale=24) is the log-Laplace law with alpha = 2
    rv = families.log_laplace(24, 2).to_scipy()
    draws = rv.rvs(3000, random_state=np.random.default_rng(7))
    assert stats.kstest(draws, stats.loglaplace(2, scale=24).cdf).pvalue > 0.01
    # same uniforms, same draws; ppf keeps the closed form (sympy picks the positive root)
    again = rv.rvs(3000, random_state=np.random.default_rng(7))
    assert np.array_equal(draws, again)
    levels = np.array([1e-6, 0.1, 0.5, 0.9, 1 - 1e-6])
    np.testing.assert_allclose(rv.ppf(levels), stats.loglaplace(2, scale=24).ppf(levels),
                               rtol=1e-12)


def test_inversion_error_is_below_the_u_resolution():
    # F(draw) against the uniform it came from: |F(x) - u| <= 1e-12 (PINV's u-error bound),
    # with F the law's closed form and u from the same generator
    rv = families.generalized_log_laplace(24, 2, 5).to_scipy()
    u = np.random.default_rng(3).uniform(size=500)
    x = rv.rvs(500, random_state=np.random.default_rng(3))
    assert np.max(np.abs(rv.cdf(x) - u)) < 1e-11


@given(st.integers(min_value=0, max_value=2**32 - 1),
       st.sampled_from(["pareto", "piecewise", "uniform", "exponential"]))
@settings(max_examples=25, deadline=None)
def test_draws_lie_in_the_support(seed, name):
    law = getattr(families, name)(*families.FIGURE_PARAMETERS[name])
    draws = law.to_scipy().rvs(50, random_state=np.random.default_rng(seed))
    lower, upper = (float(v) for v in law.support)
    assert draws.shape == (50,) and np.all((draws >= lower) & (draws <= upper))


def test_parameters_broadcast_without_subs():
    if not hasattr(stats, "make_distribution"):
        pytest.skip("scipy.stats.make_distribution needs scipy >= 1.16")
    law = families.log_laplace("kappa0", "alpha")
    family = law.to_scipy(kappa0=np.array([10.0, 24.0, 50.0]), alpha=2.0)
    x = np.array([[5.0], [24.0], [100.0]])
    # reference: scipy.stats.loglaplace with c = alpha, scale = kappa0, broadcast by scipy
    reference = stats.loglaplace(2.0, scale=np.array([10.0, 24.0, 50.0]))
    np.testing.assert_allclose(family.cdf(x), reference.cdf(x), rtol=1e-13)
    np.testing.assert_allclose(family.pdf(x), reference.pdf(x), rtol=1e-13)
    draws = family.sample(400, rng=np.random.default_rng(0))
    assert draws.shape == (400, 3) and np.all(draws > 0)
    assert stats.kstest(draws[:, 1], stats.loglaplace(2.0, scale=24.0).cdf).pvalue > 0.01
    # a parameter in the support: Pareto on [kappa0, oo)
    pareto = families.pareto("kappa0", 1).to_scipy(kappa0=[1.0, 24.0])
    assert np.all(pareto.sample(50, rng=np.random.default_rng(1)) >= np.array([1.0, 24.0]))


def test_to_scipy_parameters_are_checked():
    law = families.log_laplace("kappa0", 2)
    with pytest.raises(NoClosedFormError, match="kappa0"):
        law.to_scipy()
    with pytest.raises(NoClosedFormError, match="sigma"):
        law.to_scipy(kappa0=1.0, sigma=2.0)
    with pytest.raises(NoClosedFormError, match="kappa0"):
        families.log_laplace(24, 2).to_scipy(kappa0=1.0)


def test_simulate_plan_takes_scipys_new_distributions():
    if not hasattr(stats, "make_distribution"):
        pytest.skip("scipy.stats.make_distribution needs scipy >= 1.16")
    utility = sympy.exp(-t / 10)
    p = plan(0.2, 0.2, utility)
    runtimes = stats.Uniform(a=0.0, b=30.0)
    # reference: the same draws through a plain sampler(shape, rng), the same generator stream
    as_function = simulate_plan(p, lambda shape, rng: runtimes.sample(shape, rng=rng), utility,
                                trials=40, rng=5, truth=10 / 30 * (1 - math.exp(-3)))
    as_object = simulate_plan(p, runtimes, utility, trials=40, rng=5,
                              truth=10 / 30 * (1 - math.exp(-3)))
    assert as_object == as_function and 0.0 <= as_object <= 1.0
    with pytest.raises(DataError, match="shape"):
        simulate_plan(p, stats.Uniform(a=np.zeros(2), b=30.0), utility, trials=5, rng=0, truth=0.3)

