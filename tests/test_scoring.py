"""Tests of maxent_util.scorer, estimate and rank: scorers, capped-run scores, classic rules, rankings."""

from __future__ import annotations

import csv
import math
import warnings
from importlib.util import find_spec

import mpmath
import numpy as np
import pandas as pd
import pytest
import sympy
from conftest import ROOT, run_script, runs_table
from hypothesis import given, settings
from hypothesis import strategies as st

from maxent_util.errors import DataError, MaxEntError, NoClosedFormError, UtilityError
from maxent_util.scorer import compile_scorer
from maxent_util.estimate import Score, score
from maxent_util.ranking import PAR, Solved, cross_utility, rank
from maxent_util.symbols import t
from maxent_util.utility import Utility


kappa0, kappa1, alpha, beta, sigma, delta = sympy.symbols(
    "kappa0 kappa1 alpha beta sigma delta", positive=True)

# The paper's Section 3 utilities, written out here from the text.
EXPONENTIAL = sympy.exp(-t / kappa0)
PARETO = sympy.Piecewise((1, t < kappa0), ((kappa0 / t) ** alpha, True))
LOG_NORMAL = sympy.Rational(1, 2) - sympy.erf(sympy.log(t / kappa0) / (sympy.sqrt(2) * sigma)) / 2
GENERALIZED_LOG_LAPLACE = sympy.Piecewise(
    (1 - alpha / (alpha + beta) * (t / kappa0) ** beta, t < kappa0),
    (beta / (alpha + beta) * (kappa0 / t) ** alpha, True))
PIECEWISE_LINEAR = sympy.Piecewise(
    (1 - delta * t / kappa1, t < kappa1),
    ((1 - delta) * (kappa0 - t) / (kappa0 - kappa1), t < kappa0),
    (0, True))

# name -> (expression, list of parameter settings)
PAPER_UTILITIES = {
    "exponential": (EXPONENTIAL, [{"kappa0": 1.0}, {"kappa0": 60.0}, {"kappa0": 3e-4}]),
    "pareto": (PARETO, [{"kappa0": 1.0, "alpha": 1.0}, {"kappa0": 30.0, "alpha": 0.5},
                        {"kappa0": 0.01, "alpha": 2.7}]),
    "log-normal": (LOG_NORMAL, [{"kappa0": 1.0, "sigma": 1.0}, {"kappa0": 100.0, "sigma": 0.3},
                                {"kappa0": 0.5, "sigma": 4.0}]),
    "generalized log-Laplace": (GENERALIZED_LOG_LAPLACE, [
        {"kappa0": 1.0, "alpha": 1.0, "beta": 1.0}, {"kappa0": 50.0, "alpha": 0.7, "beta": 2.5},
        {"kappa0": 0.2, "alpha": 3.0, "beta": 0.4}]),
    "piecewise linear": (PIECEWISE_LINEAR, [
        {"kappa0": 10.0, "kappa1": 1.0, "delta": 0.1},
        {"kappa0": 5000.0, "kappa1": 4000.0, "delta": 0.01},
        {"kappa0": 2.0, "kappa1": 1e-3, "delta": 0.5}]),
}


# every test here runs with warnings turned into errors
pytestmark = pytest.mark.usefixtures("no_warnings")


def mpmath_reference(expr, runtimes, params, dps=350):
    """u at each runtime, evaluated by mpmath at high precision from the exact floats."""
    symbols = (t,) + tuple(sorted(expr.free_symbols - {t}, key=lambda s: s.name))
    function = sympy.lambdify(symbols, expr, "mpmath")
    with mpmath.workdps(dps):
        args = [mpmath.mpf(params[s.name]) for s in symbols[1:]]
        return [float(function(mpmath.mpf(float(x)), *args)) for x in runtimes]


def runtime_grid(params, count, rng):
    """Runtimes over 16 orders of magnitude around the utility's scales, plus breakpoints."""
    scales = [v for k, v in params.items() if k.startswith("kappa")]
    points = [scales[0] * 10.0 ** rng.uniform(-8, 8, count - 4 * len(scales))]
    for scale in scales:  # exactly at, and one ulp either side of, each breakpoint
        points.append([np.nextafter(scale, 0), scale, np.nextafter(scale, np.inf), scale * 1.5])
    return np.concatenate(points)


@pytest.mark.parametrize("name", list(PAPER_UTILITIES))
def test_scorer_agrees_with_mpmath(name):
    expr, settings_list = PAPER_UTILITIES[name]
    scorer = compile_scorer(expr)
    rng = np.random.default_rng(1)
    checked = 0
    for params in settings_list:
        runtimes = runtime_grid(params, 334, rng)
        got = scorer(runtimes, **params)
        expected = mpmath_reference(expr, runtimes, params)
        for x, g, e in zip(runtimes, got, expected):
            # relative 1e-12; values below 1e-300 (subnormal floats) compared absolutely
            assert math.isclose(g, e, rel_tol=1e-12, abs_tol=1e-300), (name, params, x, g, e)
        checked += runtimes.size
    assert checked >= 1000


@pytest.mark.parametrize("name", list(PAPER_UTILITIES))
def test_limits_at_the_ends(name):
    expr, settings_list = PAPER_UTILITIES[name]
    scorer = compile_scorer(expr)
    for params in settings_list:
        ends = np.array([0.0, 1e-300, 1e300, np.inf])
        got = scorer(ends, **params)
        # Every paper utility is normalised: u(0) = 1 and u -> 0 as t -> oo (Section 2).
        assert got[0] == 1.0 and got[3] == 0.0
        # at 1e-300 and 1e300, the high-precision value of the expression itself
        expected = mpmath_reference(expr, ends[1:3], params)
        assert math.isclose(got[1], expected[0], rel_tol=1e-12, abs_tol=1e-300)
        assert math.isclose(got[2], expected[1], rel_tol=1e-12, abs_tol=1e-300)
        # scalars give Python floats, the same values
        assert isinstance(scorer(0.0, **params), float)
        assert scorer(math.inf, **params) == 0.0


def test_limit_used_where_floats_break_down():
    # (1 + t/k) exp(-t/k) is the survival function of a Gamma(2) captime: at t = inf
    # numpy computes inf * 0 = NaN; the limit is 0 (by hand: exponential beats linear).
    gamma2 = compile_scorer((1 + t / kappa0) * sympy.exp(-t / kappa0))
    assert gamma2(np.inf, kappa0=2.0) == 0.0
    assert gamma2(1e308, kappa0=1e-5) == 0.0
    # t log(1 + 1/t) -> 1 as t -> oo (by hand, log(1 + x) ~ x), and -> 0 as t -> 0;
    # at t = 0 numpy gives 0 * inf = NaN.
    odd = compile_scorer(1 / (1 + t * sympy.log(1 + 1 / t)))
    assert odd(0.0) == 1.0
    assert odd(np.inf) == 0.5
    assert odd(1e300) == pytest.approx(0.5, rel=1e-15)  # log1p keeps 1/t from vanishing


# f, with its limits at -oo and +oo (textbook values)
_SATURATING = [(sympy.erf, -1, 1), (sympy.erfc, 2, 0), (sympy.atan, -sympy.pi / 2, sympy.pi / 2),
               (sympy.tanh, -1, 1), (lambda z: sympy.exp(-z), sympy.oo, 0)]


@settings(max_examples=60, deadline=None)
@given(which=st.integers(0, len(_SATURATING) - 1), slope=st.integers(-9, 9).filter(bool),
       shift=st.integers(-9, 9), weight=st.integers(1, 5), in_log=st.booleans())
def test_limits_by_continuity_match_the_limits_by_hand(which, slope, shift, weight, in_log):
    from maxent_util.scorer import limit_at_end, limit_by_continuity

    # u = w - w f(z) with z = a t + b or a log(t) + b.  By hand: at t -> oo, z -> sign(a) oo; at
    # t -> 0+, z -> b (linear) or -sign(a) oo (log), and f is continuous, so u's limit is
    # w - w f(lim z).  sympy 1.14's own limit is wrong for some of these (1 - erf(3t - 1) -> 2)
    f, at_minus, at_plus = _SATURATING[which]
    inner = slope * (sympy.log(t) if in_log else t) + shift
    expr = weight - weight * f(inner)
    towards = {sympy.oo: at_plus if slope > 0 else at_minus,
               0: (at_plus if slope < 0 else at_minus) if in_log else f(sympy.Integer(shift))}
    for point, f_limit in towards.items():
        expected = weight - weight * f_limit
        if expected in (sympy.oo, -sympy.oo):
            assert limit_by_continuity(expr, point) is None  # an infinite limit is left to sympy
            continue
        assert sympy.simplify(limit_by_continuity(expr, point) - expected) == 0, (expr, point)
        assert sympy.simplify(limit_at_end(expr, point) - expected) == 0, (expr, point)


def test_continuity_leaves_indeterminate_forms_to_sympy():
    from maxent_util.scorer import limit_at_end, limit_by_continuity

    # by hand: each is 0 * oo, oo - oo, 0**0 or 1**oo at the point, so continuity cannot say
    for expr, point, by_hand in [((1 + t) * sympy.exp(-t), sympy.oo, 0), (t * sympy.log(t), 0, 0),
                                 ((1 + t) ** (1 / t), 0, sympy.E), (t ** t, 0, 1),
                                 ((1 + 1 / t) ** t, sympy.oo, sympy.E),
                                 (t * (1 - sympy.exp(-1 / t)), sympy.oo, 1)]:
        assert limit_by_continuity(expr, point) is None, expr
        assert limit_at_end(expr, point) == by_hand, expr
    # parameters whose sign decides the limit: decided with the sign, left to sympy without it
    assert limit_by_continuity(sympy.exp(-t / kappa0), sympy.oo) == 0
    assert limit_by_continuity(sympy.exp(-t * sympy.Symbol("c", real=True)), sympy.oo) is None


def test_erf_tails_keep_relative_accuracy():
    # 1/2 - erf(z)/2 and 1/2 + erf(z)/2 round to 0 in floats once |z| > 6; written as
    # erfc they keep every digit. References by mpmath at high precision.
    runtimes = np.array([0.5, 2.0, 5.0, 9.0])
    for expr in (sympy.Rational(1, 2) - sympy.erf(t + 3) / 2,
                 sympy.Rational(1, 2) + sympy.erf(t - 12) / 2):
        got = compile_scorer(expr)(runtimes)
        expected = mpmath_reference(expr, runtimes, {})
        assert min(expected) < 1e-20
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=0)


def test_negative_and_nan_runtimes():
    # documented rule: t <= 0 gets u(0+), NaN stays NaN; numbers never raise
    scorer = compile_scorer(PARETO)
    got = scorer([-5.0, -np.inf, np.nan, 2.0], kappa0=1.0, alpha=1.0)
    assert got[0] == 1.0 and got[1] == 1.0 and math.isnan(got[2]) and got[3] == 0.5
    lognormal = compile_scorer(LOG_NORMAL)
    assert lognormal(-1.0, kappa0=1.0, sigma=1.0) == 1.0


def test_parameters_outside_their_domain_are_refused_by_name():
    # a NaN alpha scored 1.0 and a negative kappa0 gave values above 1: misuse, named
    scorer = compile_scorer(PARETO)
    with pytest.raises(UtilityError, match=r"^`alpha` of `scorer of .*` must be a number \(not NaN\); got nan\."):
        scorer([0.5, 2.0], kappa0=1.0, alpha=np.nan)
    with pytest.raises(UtilityError, match=r"^`kappa0` of `scorer of .*` must be positive; got -1\.0\."):
        scorer([0.5, 2.0], kappa0=-1.0, alpha=1.0)
    with np.errstate(all="raise"):  # the scorer silences floating-point errors itself
        values = scorer([0.0, 0.5, 2.0, np.inf], kappa0=1.0, alpha=1e-300)
    assert values.shape == (4,)


def test_piecewise_branches_do_not_leak():
    # at t = 0 the Pareto branch (kappa0/t)**alpha is inf and the log-Laplace one 0**-alpha;
    # neither is used there, so neither may surface
    scorer = compile_scorer(GENERALIZED_LOG_LAPLACE)
    values = scorer(np.array([0.0, 1e-320, 1.0]), kappa0=1.0, alpha=2.0, beta=3.0)
    assert np.all(np.isfinite(values))
    # an expensive branch (special function) nested in a Piecewise: values checked by mpmath
    nested = sympy.Piecewise(
        (sympy.Piecewise((1, t < 1), (sympy.erfc(t - 1), True)), t < 5), (0, True))
    runtimes = np.array([0.0, 0.5, 1.0, 2.0, 4.9, 5.0, 1e10])
    got = compile_scorer(nested)(runtimes)
    expected = mpmath_reference(nested, runtimes, {})
    np.testing.assert_allclose(got, expected, rtol=1e-14, atol=0)


def test_uncovered_piecewise_is_nan_as_in_sympy():
    scorer = compile_scorer(sympy.Piecewise((1, t < 2)))
    values = scorer([1.0, 3.0])
    assert values[0] == 1.0 and math.isnan(values[1])


def test_shapes_and_broadcasting():
    scorer = compile_scorer(PARETO)
    assert isinstance(scorer(2.0, kappa0=1.0, alpha=1.0), float)
    assert scorer([1.0, 2.0, 4.0], kappa0=1.0, alpha=1.0).tolist() == [1.0, 0.5, 0.25]
    grid = scorer(np.array([[2.0], [4.0]]), kappa0=np.array([1.0, 2.0]), alpha=1.0)
    assert grid.shape == (2, 2)
    assert grid.tolist() == [[0.5, 1.0], [0.25, 0.5]]
    # scalar t with an array parameter gives an array
    assert scorer(2.0, kappa0=[1.0, 4.0], alpha=1.0).tolist() == [0.5, 1.0]
    # positional parameters follow utility.parameters (sorted by name: alpha, kappa0)
    assert scorer.parameters == ("alpha", "kappa0")
    assert scorer(20.0, 1.0, 10.0) == 0.5
    assert scorer(20.0, 1.0, kappa0=10.0) == 0.5
    assert scorer(np.array([], dtype=float), kappa0=1.0, alpha=1.0).shape == (0,)


def test_long_arrays_cross_chunk_boundaries():
    from maxent_util.scorer import CHUNK_SIZE

    runtimes = np.linspace(0.0, 20.0, 3 * CHUNK_SIZE + 17)
    runtimes[CHUNK_SIZE] = np.inf
    runtimes[2 * CHUNK_SIZE + 3] = np.nan
    got = compile_scorer(EXPONENTIAL)(runtimes, kappa0=3.0)
    with np.errstate(invalid="ignore"):
        expected = np.exp(-runtimes / 3.0)  # exp(-inf) = 0 and NaN agree here
    # the scorer multiplies by 1/kappa0 rather than dividing: a rounding or two apart
    np.testing.assert_allclose(got, expected, rtol=1e-14, atol=0)


def test_keeps_symbol_names_and_accepts_utilities_and_plain_symbols():
    lam = sympy.Symbol("lambda", positive=True)  # a Python keyword as parameter name
    scorer = compile_scorer(sympy.exp(-lam * t))
    assert scorer.parameters == ("lambda",)
    assert scorer(1.0, **{"lambda": 2.0}) == math.exp(-2.0)
    # a user's own Symbol("t") (no assumptions) is the runtime
    plain = compile_scorer(sympy.exp(-sympy.Symbol("t")))
    assert plain(1.0) == math.exp(-1.0)
    utility = Utility(PARETO, name="pareto")
    # cached per expression (and kind: a utility's values are checked to lie in [0, 1])
    assert compile_scorer(utility) is compile_scorer(Utility(PARETO))
    assert compile_scorer(PARETO) is compile_scorer(PARETO)
    assert utility(4.0, kappa0=1.0, alpha=1.0) == 0.25


def test_scipy_special_functions():
    # uppergamma(2, t)/Gamma(2) = (1 + t) e^{-t} by hand; erfc and gamma go to scipy.special
    expr = sympy.uppergamma(2, t) / sympy.gamma(2)
    assert compile_scorer(expr)(3.0) == pytest.approx(4 * math.exp(-3.0), rel=1e-14)
    assert compile_scorer(sympy.erfc(t))(2.0) == pytest.approx(math.erfc(2.0), rel=1e-15)


@settings(max_examples=60, deadline=None)
@given(
    runtime=st.one_of(st.floats(0, 1e12), st.just(0.0), st.just(np.inf),
                      st.floats(-10, 0), st.just(np.nan)),
    k=st.floats(1e-3, 1e3),
    a=st.floats(0.05, 5.0),
    b=st.floats(0.05, 5.0),
)
def test_generalized_log_laplace_property(runtime, k, a, b):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        value = compile_scorer(GENERALIZED_LOG_LAPLACE)(runtime, kappa0=k, alpha=a, beta=b)
    if math.isnan(runtime):
        assert math.isnan(value)
        return
    assert 0.0 <= value <= 1.0
    # non-increasing: compare with a runtime 10% longer
    later = compile_scorer(GENERALIZED_LOG_LAPLACE)(max(runtime, 0) * 1.1, kappa0=k, alpha=a, beta=b)
    assert later <= value + 1e-15
    if 0 < runtime < math.inf:
        (expected,) = mpmath_reference(GENERALIZED_LOG_LAPLACE, [runtime],
                                       {"kappa0": k, "alpha": a, "beta": b}, dps=60)
        assert math.isclose(value, expected, rel_tol=1e-12, abs_tol=1e-300)


# ---------------------------------------------------------------------------
# misuse raises, with the library's one message template


KAPPA = sympy.Symbol("kappa", positive=True)

# compile_scorer caches per expression: the rows share one compiled scorer
SCORER_MISUSE = [
    pytest.param(lambda: compile_scorer(PARETO)(1.0, alpha=1.0, kappa0=1.0, gamma=2.0), UtilityError,
                 r"^`gamma` of `scorer of .*` must be one of its parameters \('alpha', 'kappa0'\); got 'gamma'\.$",
                 id="unknown-parameter"),
    pytest.param(lambda: compile_scorer(PARETO)(1.0, alpha=1.0), UtilityError,
                 r"^`kappa0` of `scorer of .*` must be given", id="missing-parameter"),
    pytest.param(lambda: compile_scorer(PARETO)(1.0, 1.0, 2.0, 3.0), UtilityError,
                 r"^`args` of .* must be at most 2 positional", id="too-many-positional"),
    pytest.param(lambda: compile_scorer(PARETO)(1.0, 1.0, alpha=1.0, kappa0=1.0), UtilityError,
                 r"^`alpha` of .* must be given once", id="parameter-twice"),
    pytest.param(lambda: compile_scorer(PARETO)("soon", alpha=1.0, kappa0=1.0), UtilityError,
                 r"^`t` of .* must be real numbers; got 'soon'\.$", id="text-runtime"),
    pytest.param(lambda: compile_scorer(PARETO)(np.ones(3), alpha=1.0, kappa0=np.ones(2)), UtilityError,
                 r"^`t` of .* must be broadcastable", id="shapes-do-not-broadcast"),
    pytest.param(lambda: compile_scorer(EXPONENTIAL, backend="tensorflow"), UtilityError,
                 r"^`backend` of `compile_scorer` must be one of 'numpy', 'jax', 'torch'; got 'tensorflow'\.$",
                 id="unknown-backend"),
    pytest.param(lambda: compile_scorer(object()), UtilityError,
                 r"^`utility` of `compile_scorer` must be a number, a sympy expression or a text; got <object",
                 id="not-an-expression"),
    pytest.param(lambda: compile_scorer(sympy.Function("mystery")(t)), UtilityError,
                 r"^`utility` of `compile_scorer` must be made of functions with a numpy or scipy equivalent",
                 id="undefined-function"),
    pytest.param(lambda: compile_scorer(sympy.Integral(sympy.exp(-KAPPA * (1 + t)), (KAPPA, 0, sympy.oo))),
                 NoClosedFormError,
                 r"^`utility` of `compile_scorer` must be a closed form \(no unevaluated Integral\)",
                 id="unevaluated-integral"),
]


@pytest.mark.parametrize("call, error, message", SCORER_MISUSE)
def test_scorer_misuse_is_refused(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_scorer_errors_are_library_errors():
    assert isinstance(UtilityError("x"), MaxEntError)


@pytest.mark.parametrize("backend", ["jax", "torch"])
def test_missing_backend_names_installed_choices(backend):
    if find_spec(backend) is not None:
        scorer = compile_scorer(EXPONENTIAL, backend=backend)
        assert float(scorer(0.0, kappa0=1.0)) == 1.0
        return
    with pytest.raises(UtilityError, match=rf"^`backend` of `compile_scorer` must be an installed "
                                           rf"backend \(installed: 'numpy'.*\); got '{backend}'\. "
                                           rf"Install {backend} to use it\.$"):
        compile_scorer(EXPONENTIAL, backend=backend)


# ---------------------------------------------------------------------------
# score()

TEN_DAYS = 10 * 24 * 3600.0
PARETO_1_1 = PARETO.subs({kappa0: 1, alpha: 1})  # u(t) = 1/t for t >= 1


def test_motivating_example():
    # Section 3, "Pareto timeout, constant utility": A solves 99 of 100 in 1 s and runs
    # the last for 10 days unsolved; B runs all 100 for 10 days unsolved. The paper:
    # E_A[1/t] >= 0.99 and E_B[1/t] <= 1/864000.
    a = score([1.0] * 99 + [TEN_DAYS], PARETO_1_1, solved=[True] * 99 + [False])
    b = score([TEN_DAYS] * 100, PARETO_1_1, solved=[False] * 100)
    assert a.lower >= 0.99 and a.estimate >= 0.99
    assert b.upper <= 1 / 864000 * (1 + 1e-15)  # mean of 100 equal floats: one rounding
    assert b.upper == pytest.approx(1 / 864000, rel=1e-15)
    assert b.lower == 0.0
    assert (a.n, a.n_capped, b.n_capped) == (100, 1, 100)
    # A's upper bound adds u(10 days)/100 for the capped run
    assert a.upper == pytest.approx(0.99 + 1 / 864000 / 100, rel=1e-15)
    assert a.ci_low > b.ci_high - 0.3  # both intervals are honest, A is far better


def test_bounds_and_hoeffding_interval():
    runtimes = [0.5, 2.0, 8.0, 100.0, 100.0] * 20
    s = score(runtimes, EXPONENTIAL.subs(kappa0, 10), cutoff=100.0)
    # hand computation: runs at 100 = cutoff are capped (no solved/status given)
    solved_part = math.exp(-0.05) + math.exp(-0.2) + math.exp(-0.8)
    assert (s.n, s.n_capped) == (100, 40)
    assert s.estimate == pytest.approx(solved_part / 5, rel=1e-14)
    assert s.lower == s.estimate
    assert s.upper == pytest.approx((solved_part + 2 * math.exp(-10.0)) / 5, rel=1e-14)
    h = math.sqrt(math.log(2 / 0.05) / (2 * 100))  # Hoeffding, level 0.95, n = 100
    assert s.ci_low == pytest.approx(s.lower - h, rel=1e-14)
    assert s.ci_high == pytest.approx(s.upper + h, rel=1e-14)
    assert s.ci_low <= s.lower <= s.estimate <= s.upper <= s.ci_high
    assert s.kaplan_meier is None  # one common cutoff
    wider = score(runtimes, EXPONENTIAL.subs(kappa0, 10), cutoff=100.0, level=0.99)
    assert wider.ci_high - wider.ci_low > s.ci_high - s.ci_low
    # few runs: the interval is clipped to the range [0, 1] of the utility
    few = score(runtimes[:5], EXPONENTIAL.subs(kappa0, 10), cutoff=100.0)
    assert (few.ci_low, few.ci_high) == (0.0, 1.0)


def test_no_censoring_gives_equal_bounds():
    s = score([1.0, 2.0, 3.0], EXPONENTIAL.subs(kappa0, 1))
    assert s.lower == s.upper == s.estimate
    assert s.estimate == pytest.approx((math.exp(-1) + math.exp(-2) + math.exp(-3)) / 3)
    assert s.n_capped == 0 and isinstance(s, Score)
    with pytest.raises(AttributeError):
        s.estimate = 0.0  # frozen


def test_failures_count_zero_unless_censored():
    u = EXPONENTIAL.subs(kappa0, 10)
    runtimes = [1.0, 30.0, 100.0]
    status = ["solved", "memout", "capped"]
    s = score(runtimes, u, status=status, cutoff=100.0)
    assert s.n_capped == 1
    assert s.estimate == pytest.approx(math.exp(-0.1) / 3)
    assert s.upper == pytest.approx((math.exp(-0.1) + math.exp(-10.0)) / 3)
    # as censored, the memout at 30 s adds u(30) to the upper bound
    c = score(runtimes, u, status=status, cutoff=100.0, failures_as_capped=True)
    assert c.n_capped == 2
    assert c.upper == pytest.approx((math.exp(-0.1) + math.exp(-3.0) + math.exp(-10.0)) / 3)
    assert c.lower == s.lower
    # "crash" and "unverified" are failures too
    for failure in ("crash", "unverified"):
        f = score([1.0, 5.0], u, status=["solved", failure])
        assert f.upper == f.lower == pytest.approx(math.exp(-0.1) / 2) and f.n_capped == 0


def test_kaplan_meier_when_cutoffs_differ():
    u = EXPONENTIAL.subs(kappa0, 2)
    # events at 1, 3, 4; one run censored at its cutoff 2
    s = score([1.0, 2.0, 3.0, 4.0], u, solved=[True, False, True, True],
              cutoff=[10.0, 2.0, 10.0, 10.0])
    # Kaplan-Meier by hand: S(1) = 3/4; the censoring at 2 leaves 2 at risk at 3, so
    # S(3) = 3/4 * 1/2 = 3/8, S(4) = 0. E[u] = u(1)/4 + u(3) 3/8 + u(4) 3/8.
    by_hand = math.exp(-0.5) / 4 + math.exp(-1.5) * 3 / 8 + math.exp(-2.0) * 3 / 8
    assert s.kaplan_meier == pytest.approx(by_hand, rel=1e-14)
    assert s.lower <= s.kaplan_meier <= s.upper
    # a failure stays at risk forever: with one more (memout) run the mass it keeps
    # beyond the last event counts u(oo) = 0. By hand: S = 4/5, 4/5*2/3, 4/5*2/3*1/2.
    f = score([1.0, 2.0, 3.0, 4.0, 4.5], u, status=["solved", "capped", "solved", "solved",
                                                       "memout"],
              cutoff=[10.0, 2.0, 10.0, 10.0, 10.0])
    s1, s3, s4 = 4 / 5, 4 / 5 * 2 / 3, 4 / 5 * 2 / 3 * 1 / 2
    by_hand = math.exp(-0.5) * (1 - s1) + math.exp(-1.5) * (s1 - s3) + math.exp(-2.0) * (s3 - s4)
    assert f.kaplan_meier == pytest.approx(by_hand, rel=1e-14)


def test_scorer_of_a_utility_subclass_is_its_own_call():
    class Halved(Utility):
        def __call__(self, runtimes, *args, **params):
            return 0.5 * np.asarray(super().__call__(runtimes, *args, **params))

    s = score([0.0, 1.0], Halved(sympy.exp(-t)))
    assert s.estimate == pytest.approx((0.5 + 0.5 * math.exp(-1.0)) / 2)


EXP1 = EXPONENTIAL.subs(kappa0, 1)

SCORE_INPUT = [
    pytest.param(lambda: score([1.0, np.nan], EXP1), DataError,
                 r"^`runtimes\[1\]` of `score` must be a finite nonnegative number of seconds; got nan\.$",
                 id="nan-runtime"),
    pytest.param(lambda: score([-1.0], EXP1), DataError,
                 r"^`runtimes\[0\]` of `score` must be .*; got -1\.0\.$", id="negative-runtime"),
    pytest.param(lambda: score([1.0, 2.0], EXP1, solved=[True, True, False]), DataError,
                 r"^`solved` of `score` must be of length 2 \(one entry per runtime\); got 3\.$",
                 id="solved-length"),
    pytest.param(lambda: score([1.0, 7.0], EXP1, solved=[True, True], cutoff=5.0), DataError,
                 r"^`cutoff` of `score` must be at least the runtime of solved run 1 \(7\.0\); got 5\.0\. "
                 r"Mark the run as unsolved or raise its cutoff\.$", id="solved-beyond-cutoff"),
    pytest.param(lambda: score([1.0], EXP1, cutoff=[0.0]), DataError,
                 r"^`cutoff\[0\]` of `score` must be a positive number", id="zero-cutoff"),
    pytest.param(lambda: score([1.0], EXP1, status=["ok"]), DataError,
                 r"^`status\[0\]` of `score` must be one of 'solved', 'capped', 'memout', 'crash', "
                 r"'unverified'; got 'ok'", id="unknown-status"),
    pytest.param(lambda: score([1.0], EXP1, status=["capped"], solved=[True]), DataError,
                 r"^`solved\[0\]` of `score` must be consistent with status\[0\] \('capped'\); got True\.$",
                 id="solved-and-capped"),
    pytest.param(lambda: score([1.0], EXP1, solved=[2]), DataError,
                 r"^`solved\[0\]` of `score` must be True or False; got 2", id="solved-not-boolean"),
    pytest.param(lambda: score([1.0], EXP1, level=1.5), DataError,
                 r"^`level` of `score` must be a number in \(0, 1\); got 1\.5\.$", id="level-above-1"),
    pytest.param(lambda: score([], EXP1), DataError,
                 r"^`runtimes` of `score` must be non-empty", id="no-runs"),
    pytest.param(lambda: score([[1.0]], EXP1), DataError,
                 r"^`runtimes` of `score` must be one-dimensional", id="two-dimensional"),
    pytest.param(lambda: score([1.0], EXPONENTIAL), UtilityError,
                 r"^`utility` of `score` must be free of unset parameters; got \('kappa0',\)\. Give them values",
                 id="unset-parameter"),
    pytest.param(lambda: score([0.0], 2 * sympy.exp(-t)), UtilityError,
                 r"^`utility` of `score` must be between 0 and 1 on every run .*; got 2\.0\.",
                 id="utility-above-1"),
]


@pytest.mark.parametrize("call, error, message", SCORE_INPUT)
def test_score_refuses_bad_input(call, error, message):
    with pytest.raises(error, match=message):
        call()


# ---------------------------------------------------------------------------
# classic rules


def test_par_and_solved_by_hand():
    runtimes, solved = [10.0, 100.0, 30.0], [True, False, True]
    # PAR-2 by hand: (10 + 2*100 + 30) / 3 = 80; PAR-10: (10 + 1000 + 30) / 3
    assert PAR(2).score(runtimes, solved, cutoff=100.0) == 80.0
    assert PAR(10).score(runtimes, solved, cutoff=100.0) == pytest.approx(1040.0 / 3)
    # without a cutoff an unsolved run's own runtime stands for it
    assert PAR(2).score(runtimes, solved) == 80.0
    assert PAR(2, cutoff=200.0).score(runtimes, solved) == pytest.approx((10 + 400 + 30) / 3)
    assert Solved().score(runtimes, solved) == 2
    assert (PAR(2).name, PAR(10).name, PAR(1.5).name, Solved().name) == (
        "PAR-2", "PAR-10", "PAR-1.5", "solved")
    assert PAR(2).higher_is_better is False and Solved().higher_is_better is True


RULE_MISUSE = [
    pytest.param(lambda: PAR(-1), UtilityError,
                 r"^`k` of `PAR` must be a positive finite number; got -1\.$", id="negative-k"),
    pytest.param(lambda: PAR(2, cutoff=0), UtilityError,
                 r"^`cutoff` of `PAR` must be a positive finite number", id="zero-cutoff"),
    # the owner is the method called (PAR.score, Solved.score), not the rule's name
    pytest.param(lambda: PAR(2).score([1.0], None), DataError,
                 r"^`solved` of `PAR\.score` must be an array of True/False", id="no-solved"),
    pytest.param(lambda: Solved().score([1.0, 2.0], [True]), DataError,
                 r"^`solved` of `Solved\.score` must be of length 2", id="solved-length"),
    pytest.param(lambda: Solved().score([1.0, 2.0], [True, False], cutoff=-1), DataError,
                 r"^`cutoff` of `Solved\.score` must be a positive number", id="negative-cutoff"),
    pytest.param(lambda: PAR(2).score([1.0, 20.0], [True, True], cutoff=10), DataError,
                 r"^`cutoff` of `PAR\.score` must be at least the runtime", id="cutoff-below-solved"),
]


@pytest.mark.parametrize("call, error, message", RULE_MISUSE)
def test_rules_refuse_bad_input(call, error, message):
    with pytest.raises(error, match=message):
        call()


# ---------------------------------------------------------------------------
# rank() and cross_utility()


def small_table():
    """Three solvers on three instances, cutoff 100 s."""
    return runs_table([
        ("a", "i1", 1.0, "solved"), ("a", "i2", 100.0, "capped"), ("a", "i3", 2.0, "solved"),
        ("b", "i1", 10.0, "solved"), ("b", "i2", 20.0, "solved"), ("b", "i3", 30.0, "solved"),
        ("c", "i1", 100.0, "capped"), ("c", "i2", 50.0, "memout"), ("c", "i3", 5.0, "solved"),
    ])


def test_rank_small_table_by_hand():
    exp10 = EXPONENTIAL.subs(kappa0, 10)
    ranking = rank(small_table(), {"exp": exp10, "PAR-2": PAR(2), "solved": Solved()})
    e = math.exp
    # by hand: mean of u over runs, unsolved runs 0
    expected_exp = {"a": (e(-0.1) + e(-0.2)) / 3, "b": (e(-1) + e(-2) + e(-3)) / 3,
                    "c": e(-0.5) / 3}
    # PAR-2: runtime or 2 * 100
    expected_par = {"a": (1 + 200 + 2) / 3, "b": 60 / 3, "c": (200 + 200 + 5) / 3}
    for algorithm in "abc":
        assert ranking.loc[algorithm, "exp"] == pytest.approx(expected_exp[algorithm], rel=1e-15)
        assert ranking.loc[algorithm, "PAR-2"] == pytest.approx(expected_par[algorithm])
    assert ranking["solved"].to_dict() == {"a": 2.0, "b": 3.0, "c": 1.0}
    # by hand: exp scores a 0.5745, c 0.2022, b 0.1843; PAR-2 b 20, a 67.7, c 135
    assert ranking["exp rank"].to_dict() == {"a": 1, "c": 2, "b": 3}
    assert ranking["PAR-2 rank"].to_dict() == {"b": 1, "a": 2, "c": 3}
    assert ranking["solved rank"].to_dict() == {"b": 1, "a": 2, "c": 3}
    assert list(ranking.columns) == ["exp", "exp rank", "PAR-2", "PAR-2 rank",
                                     "solved", "solved rank"]
    assert list(ranking.index) == ["a", "c", "b"]  # ordered by the first rule
    assert ranking.index.name == "algorithm"


def test_rank_bounds():
    exp10 = EXPONENTIAL.subs(kappa0, 10)
    ranking = rank(small_table(), {"exp": exp10, "PAR-2": PAR(2)}, bounds=True)
    # upper: a's and c's timeouts at the 100 s cutoff count u(100) = e^-10; memouts 0
    assert ranking.loc["a", "exp upper"] == pytest.approx(
        (math.exp(-0.1) + math.exp(-0.2) + math.exp(-10)) / 3, rel=1e-15)
    assert ranking.loc["c", "exp upper"] == pytest.approx(
        (math.exp(-10) + math.exp(-0.5)) / 3, rel=1e-15)
    assert (ranking["exp lower"] == ranking["exp"]).all()
    assert (ranking["exp lower"] <= ranking["exp upper"]).all()
    assert (ranking["PAR-2 lower"] == ranking["PAR-2"]).all()
    assert (ranking["PAR-2 upper"] == ranking["PAR-2"]).all()


def test_rank_ties_share_the_best_rank_whatever_the_row_order():
    rows = [("zeta", "i1", 1.0, "solved"), ("zeta", "i2", 3.0, "solved"),
            ("alpha", "i2", 3.0, "solved"), ("alpha", "i1", 1.0, "solved"),
            ("mid", "i1", 2.0, "solved"), ("mid", "i2", 2.5, "solved")]
    table = runs_table(rows, cutoff=None)
    rules = {"exp": sympy.exp(-t / 3), "PAR-2": PAR(2)}
    for order in (table.index, table.index[::-1]):
        ranking = rank(table.loc[order], rules)
        assert ranking.loc["alpha", "exp"] == ranking.loc["zeta", "exp"]  # bit-identical
        # alpha and zeta ran the same runtimes: by hand they tie for first, mid is third
        # (pandas' rank(method="min")), under exp (higher is better) and PAR-2 (means
        # alpha = zeta = 2, mid = 2.25) alike
        assert ranking["exp rank"].to_dict() == {"alpha": 1, "zeta": 1, "mid": 3}
        assert ranking["PAR-2 rank"].to_dict() == {"alpha": 1, "zeta": 1, "mid": 3}
        assert list(ranking.index) == ["alpha", "zeta", "mid"]  # tied rows by name


def test_rank_accepts_utilities_and_sequences():
    named = Utility(sympy.exp(-t / 10), name="exp10")
    ranking = rank(small_table(), [named, PAR(2)])
    assert list(ranking.columns) == ["exp10", "exp10 rank", "PAR-2", "PAR-2 rank"]


def table_with_a_negative_runtime():
    bad = small_table()
    bad.loc[4, "runtime"] = -3.0
    return bad


RANK_MISUSE = [
    pytest.param(lambda: rank(pd.DataFrame({"algorithm": ["a"]}), {"s": Solved()}), DataError,
                 r"^`columns` of `table` must be a list including 'algorithm'", id="missing-columns"),
    pytest.param(lambda: rank(table_with_a_negative_runtime(), {"s": Solved()}), DataError,
                 r"^`runtime` of `table, row 4` must be a finite non-negative number of seconds; got -3\.0\.$",
                 id="negative-runtime"),
    pytest.param(lambda: rank(small_table(), {"exp": EXPONENTIAL}), UtilityError,
                 r"^`utility` of `rank` must be free of unset parameters; got \('kappa0',\)\..*\(rule 'exp'\)$",
                 id="unset-parameter"),
    pytest.param(lambda: rank(small_table(), 3), UtilityError,
                 r"^`utilities` of `rank` must be a mapping", id="rules-not-a-mapping"),
    pytest.param(lambda: rank(small_table(), {}), UtilityError,
                 r"^`utilities` of `rank` must be non-empty", id="no-rules"),
    pytest.param(lambda: rank(small_table().iloc[:0], {"s": Solved()}), DataError,
                 r"^`table` of `rank` must be at least one run; got 'no rows'\.$", id="no-runs"),
    pytest.param(lambda: rank(small_table(), [PAR(2), PAR(2.0)]), UtilityError,
                 r"^`utilities` of `rank` must be named uniquely", id="rules-named-twice"),
]


@pytest.mark.parametrize("call, error, message", RANK_MISUSE)
def test_rank_refuses_bad_input(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_cross_utility_by_hand():
    exp10 = EXPONENTIAL.subs(kappa0, 10)
    cross = cross_utility(small_table(), {"exp": exp10, "PAR-2": PAR(2), "solved": Solved()})
    assert cross.attrs["picked"] == {"exp": "a", "PAR-2": "b", "solved": "b"}
    np.testing.assert_array_equal(np.diag(cross.to_numpy()), 1.0)
    e = math.exp
    exp_a, exp_b = (e(-0.1) + e(-0.2)) / 3, (e(-1) + e(-2) + e(-3)) / 3
    # row exp picks a: under PAR-2 it earns best/own = 20 / (203/3); under solved 2 of 3
    assert cross.loc["exp", "PAR-2"] == pytest.approx(60 / 203)
    assert cross.loc["exp", "solved"] == pytest.approx(2 / 3)
    # row PAR-2 picks b: under exp it earns exp_b / exp_a
    assert cross.loc["PAR-2", "exp"] == pytest.approx(exp_b / exp_a)
    assert cross.index.name == "picked by" and cross.columns.name == "scored by"


# ---------------------------------------------------------------------------
# bundled data and the benchmark script


def test_parallel_track_against_raw_csv():
    datasets = pytest.importorskip("maxent_util.datasets")
    path = ROOT / "maxent_util" / "datasets" / "data" / "r_parallel.csv"
    # independent plain computation from the raw file: a numeric cell below 5000 s is
    # solved, anything else (timeout, memout, values >= 5000) is not
    with open(path, newline="") as handle:
        reader = csv.reader(handle)
        header = next(reader)
        cells = list(reader)
    solvers = header[3:]
    runtime = np.full((len(cells), len(solvers)), np.nan)
    for i, row in enumerate(cells):
        for j, cell in enumerate(row[3:]):
            try:
                runtime[i, j] = float(cell)
            except ValueError:
                pass
    with np.errstate(invalid="ignore"):
        solved = runtime < 5000
    seconds = np.where(solved, runtime, 0.0)
    par2 = np.where(solved, seconds, 10000.0).mean(axis=0)
    exp1 = np.where(solved, np.exp(-seconds), 0.0).mean(axis=0)
    uniform = np.where(solved, np.maximum(0.0, 1 - seconds / 500), 0.0).mean(axis=0)

    table = datasets.satcomp2021("parallel")
    ranking = rank(table, {"PAR-2": PAR(2), "exp": sympy.exp(-t),
                           "uniform": sympy.Max(0, 1 - t / 500)})
    for j, solver in enumerate(solvers):
        assert ranking.loc[solver, "PAR-2"] == pytest.approx(par2[j], rel=1e-12)
        assert ranking.loc[solver, "exp"] == pytest.approx(exp1[j], rel=1e-12, abs=1e-300)
        assert ranking.loc[solver, "uniform"] == pytest.approx(uniform[j], rel=1e-12)
    names = np.array(solvers)
    for column, scores, higher in (("PAR-2", par2, False), ("uniform", uniform, True)):
        order = sorted(range(len(solvers)),
                       key=lambda j: ((-scores[j] if higher else scores[j]), names[j]))
        assert list(ranking.sort_values(f"{column} rank").index) == list(names[order])


def test_benchmark_quick_run_prints_ratios(capsys, monkeypatch):
    # one timing per case (--repeat 1): the output is the same, only less averaged
    out = run_script(monkeypatch, capsys, "bench_scoring.py", "--quick", "--repeat", "1")
    for utility in ("uniform", "exponential", "pareto", "log_laplace", "generalized_log_laplace",
                    "log_normal", "piecewise", "4 breakpoints"):
        assert utility in out
    for section in ("vs numpy", "speed-up", "draws/s", "KS test", "rank", "bench_scale.py"):
        assert section in out
    ratios = [float(word.rstrip("x")) for word in out.split() if word.endswith("x")
              and word.rstrip("x").replace(".", "", 1).isdigit()]
    # 8 scorers against numpy, 8 on two threads, 3 sampling rows, 3 ranking rows
    assert len(ratios) >= 22 and all(r > 0 for r in ratios)
    # the threaded scorer gives the single-threaded one's values to the bit
    multicore = out.split("2. Multi-core")[1].split("3. Sampling")[0]
    assert all(line.split()[-1] == "0.0e+00" for line in multicore.splitlines()[3:] if line.strip())


def test_symbolic_log_laplace_scorer_takes_exact_limits():
    # sympy's limit recursed without end on (kappa0/t)**alpha with symbolic alpha;
    # the scorer must still give u(0) = 1 and u(inf) = 0 (Section 3, log-Laplace).
    from maxent_util import log_laplace

    scorer = compile_scorer(log_laplace("kappa0", "alpha").utility())
    values = scorer(np.array([0.0, 24.0, np.inf]), alpha=2.0, kappa0=24.0)
    assert values.tolist() == [1.0, 0.5, 0.0]


# ---------------------------------------------------------------------------
# raw exceptions become maxent_util errors


BEYOND_FLOATS = [
    pytest.param(lambda: score([1.0, 10**400], sympy.exp(-t)), DataError,
                 r"^`runtimes\[1\]` of `score` must be a number within the float range \(at most about "
                 r"1\.8e308\); got 'an integer of about 401 digits'\.$", id="runtime"),
    pytest.param(lambda: score([10**400], sympy.exp(-t)), DataError,
                 r"^`runtimes\[0\]` of `score` must be a number within", id="first-runtime"),
    pytest.param(lambda: score([1.0], sympy.exp(-t), cutoff=10**400), DataError,
                 r"^`cutoff` of `score` must be a number within the float range", id="cutoff"),
    pytest.param(lambda: score([1.0], sympy.exp(-t), level=10**400), DataError,
                 r"^`level` of `score` must be a number in \(0, 1\)", id="level"),
    pytest.param(lambda: PAR(10**400), UtilityError,
                 r"^`k` of `PAR` must be a positive finite number", id="PAR-k"),
    pytest.param(lambda: PAR(2, cutoff=10**400), UtilityError,
                 r"^`cutoff` of `PAR` must be a positive finite", id="PAR-cutoff"),
]


@pytest.mark.parametrize("call, error, message", BEYOND_FLOATS)
def test_numbers_beyond_the_float_range_are_named(call, error, message):
    with pytest.raises(error, match=message):
        call()


NOT_UTILITIES_ON_THE_RUNS = [
    pytest.param(lambda: score([3.0, 1.0], t / 100), UtilityError,
                 r"^`utility` of `score` must be non-increasing in t on the runs; got 'u\(1\.0\) = 0\.01 < "
                 r"u\(3\.0\) = 0\.03'\.", id="increasing"),
    # the capped run counts too: u(cutoff) above u at a solved runtime
    pytest.param(lambda: score([10.0, 100.0], sympy.Piecewise((0.5, t < 50), (1, True)), solved=[True, False]),
                 UtilityError,
                 r"non-increasing in t on the runs; got 'u\(10\.0\) = 0\.5 < u\(100\.0\) = 1\.0'",
                 id="increasing-at-the-cutoff"),
    pytest.param(lambda: score([1.0, 2.0], (t - 5) ** sympy.Rational(1, 3)), UtilityError,
                 r"^`utility` of `score` must be a real number at every runtime of the runs", id="complex"),
]


@pytest.mark.parametrize("call, error, message", NOT_UTILITIES_ON_THE_RUNS)
def test_score_refuses_what_is_not_a_utility_on_the_runs(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_constant_utilities_are_non_increasing():
    assert score([1.0, 2.0], sympy.Rational(1, 2)).estimate == 0.5


def test_make_scorer_is_the_deprecated_name_of_compile_scorer():
    import maxent_util
    with pytest.warns(DeprecationWarning, match="compile_scorer"):
        old = maxent_util.make_scorer(sympy.exp(-t / 10))
    np.testing.assert_array_equal(old([0.0, 10.0]), compile_scorer(sympy.exp(-t / 10))([0.0, 10.0]))
    assert "make_scorer" not in maxent_util.__all__
