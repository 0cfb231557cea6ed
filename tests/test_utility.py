"""Tests of maxent_util.utility: the paper's Section 3 utilities, inverses, checks.

Reference formulas come from the paper (/work/shared/paper/main.tex, Section 3
examples and the appendix on solution quality) or from hand computations
written out next to each test; numeric references from mpmath quadrature.
"""

from __future__ import annotations

import signal

import mpmath
import numpy as np
import pytest
import sympy
from conftest import same
from hypothesis import example, given, settings
from hypothesis import strategies as st

from maxent_util.errors import NoClosedFormError, UtilityError
from maxent_util.symbols import kappa, q, t
from maxent_util.utility import (AT_ZERO, NON_DECREASING_Q, NON_INCREASING, POSITIVE, ZERO_AT_CAPTIME,
                                 ExpectedUtility, QualityUtility, Utility, capped_runtime,
                                 expected_utility, general, linear_compute, linear_quality, money,
                                 quality_utility, step, y)

k0 = sympy.Symbol("kappa_0", positive=True)
a = sympy.Symbol("a", nonnegative=True)
v = sympy.Symbol("v", nonnegative=True)


class UniformCaptime:
    """A captime distribution uniform on [0, kappa0], written out by hand (test double)."""

    def __init__(self, upper: sympy.Expr) -> None:
        self.pdf = sympy.Piecewise((1 / upper, kappa < upper), (0, True))
        self.support = (sympy.Integer(0), upper)


class ExponentialCaptime:
    """Captime with mean ``mean``: density exp(-kappa/mean)/mean on (0, oo) (test double)."""

    def __init__(self, mean: sympy.Expr) -> None:
        self.pdf = sympy.exp(-kappa / mean) / mean
        self.support = (sympy.Integer(0), sympy.oo)


# ---------------------------------------------------------------------------
# The paper's formulas, symbolically
# ---------------------------------------------------------------------------

def test_step_is_one_before_the_captime():
    # Example "Known captime, step-function utility": u = 1 for t < kappa0, 0 otherwise.
    assert same(step(k0).expr, sympy.Piecewise((1, t < k0), (0, True)))


def test_linear_compute_reproduces_the_paper():
    # Example "Known captime, linear utility for compute time".
    paper = sympy.Piecewise(((v + a * (k0 - t)) / (v + a * k0), t < k0), (0, True))
    assert same(linear_compute(k0, a, v).expr, paper)


def test_capped_runtime_is_linear_compute_with_no_value():
    # The paper: capped average runtime is linear compute with v = 0; u = -t or -kappa0
    # normalised by c1 = kappa0, c0 = -kappa0 gives 1 - t/kappa0 (hand computation).
    rate = sympy.Symbol("a", positive=True)
    assert same(capped_runtime(k0).expr, linear_compute(k0, rate, 0).expr)
    assert same(capped_runtime(k0).expr, sympy.Piecewise((1 - t / k0, t < k0), (0, True)))


def test_money_reproduces_the_paper_for_any_cost_and_revenue():
    # Example "Known captime, linear utility for money", with C and R left as functions.
    C, R = sympy.Function("C"), sympy.Function("R")
    paper = sympy.Piecewise(((R(t) + C(k0) - C(t)) / (R(0) + C(k0) - C(0)), t < k0), (0, True))
    assert same(money(k0, C(t), R(t)).expr, paper)


def test_money_with_linear_cost_and_fixed_revenue_is_linear_compute():
    # The paper's money example generalises the compute example: C(t) = a t, R(t) = v.
    assert same(money(k0, a * t, v).expr, linear_compute(k0, a, v).expr)


def test_money_accepts_strings_in_t():
    c0, c1, r0, r1 = sympy.symbols("c0 c1 r0 r1")
    utility = money(10, "c0 + c1*t**2", "r0 - r1*t")
    cost, revenue = c0 + c1 * t ** 2, r0 - r1 * t
    # The paper's formula with kappa0 = 10, written out by hand.
    paper = (revenue + cost.subs(t, 10) - cost) / (revenue.subs(t, 0) + cost.subs(t, 10) - cost.subs(t, 0))
    assert same(utility.expr, sympy.Piecewise((paper, t < 10), (0, True)))
    assert [s.name for s in utility.parameters] == ["c1", "r0", "r1"]  # c0 cancels


def test_general_reproduces_the_paper():
    # Example "Known timeout, general utility": (V(t,k0) + W(k0)) / (V(0,k0) + W(k0)).
    V, W = sympy.Function("V"), sympy.Function("W")
    paper = sympy.Piecewise(((V(t, k0) + W(k0)) / (V(0, k0) + W(k0)), t < k0), (0, True))
    assert same(general(k0, V(t, kappa), W(kappa)).expr, paper)
    # With V = v - a t and W = a kappa it is the compute example (the paper's c1, c0).
    assert same(general(k0, v - a * t, a * kappa).expr, linear_compute(k0, a, v).expr)


def test_parameters_from_symbol_names_carry_assumptions():
    utility = linear_compute("kappa_0", "a", "v")
    assert [s.name for s in utility.parameters] == ["a", "kappa_0", "v"]
    by_name = {s.name: s for s in utility.parameters}
    assert by_name["kappa_0"].is_positive and by_name["a"].is_nonnegative


def test_subs_fills_in_parameters():
    utility = linear_compute("kappa_0", "a", "v").subs(kappa_0=10, a=1, v=5)
    # Hand computation: (5 + 10 - t) / 15.
    assert same(utility.expr, sympy.Piecewise((1 - t / 15, t < 10), (0, True)))
    assert utility.parameters == ()


def test_float_captimes_stay_exact():
    # 1.4026063929777592 does not survive sympy's 15-digit printing; u must still be 0 at kappa0
    # and 1 just before it (the paper's step function).
    captime = 1.4026063929777592
    utility = step(captime)
    assert utility(captime) == 0.0 and utility(np.nextafter(captime, 0)) == 1.0
    assert capped_runtime("kappa_0").subs(kappa_0=captime)(captime) == 0.0


def test_latex_is_kept():
    assert capped_runtime(10).latex() == sympy.latex(capped_runtime(10).expr)
    assert capped_runtime(10)._repr_latex_().startswith("$u(t) = ")


# ---------------------------------------------------------------------------
# Bad input: pinned messages
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("captime", [0, -1, "-2", sympy.oo, sympy.Symbol("k", negative=True)])
def test_non_positive_captime_is_refused(captime):
    with pytest.raises(UtilityError, match=r"^`kappa0` of `step` must be a positive, finite captime; got "):
        step(captime)


BUILDER_MISUSE = [
    pytest.param(lambda: step("t"), UtilityError,
                 r"^`kappa0` of `step` must be a parameter, free of the variables", id="captime-is-t"),
    pytest.param(lambda: linear_compute([1], 1, 1), UtilityError,
                 r"^`kappa0` of `linear_compute` must be a number, a sympy expression or a text; got \[1\]\.$",
                 id="captime-is-a-list"),
    pytest.param(lambda: step(float("nan")), UtilityError,
                 r"^`kappa0` of `step` must be a number, not NaN; got nan\.$", id="captime-is-nan"),
    pytest.param(lambda: linear_compute(10, 1, -1), UtilityError,
                 r"^`value` of `linear_compute` must be nonnegative; got -1\.$", id="negative-value"),
    pytest.param(lambda: linear_compute(10, -0.5, 1), UtilityError,
                 r"^`cost_per_second` of `linear_compute` must be nonnegative", id="negative-cost"),
    pytest.param(lambda: linear_compute(10, 0, 0), UtilityError,
                 r"^`value` of `linear_compute` must be such that the utility at stake \(the denominator of p\) "
                 r"is positive; got 0\.", id="nothing-at-stake"),
    # C(t) = 5t - t^2/2, C(10) = 0, R = 10: p(5) = (10 - 12.5)/10 < 0 (hand computation).
    pytest.param(lambda: money(10, "5*t - t**2/2", 10), UtilityError,
                 r"^`cost` of `money` must be such that p\(t\) is a finite number >= 0 on \[0, kappa0\); "
                 r"got '5\*t - t\*\*2/2'\. p\([0-9.]+\) = -", id="money-p-negative"),
    # R(0) + C(10) - C(0) = -20 + 10 = -10 (hand computation).
    pytest.param(lambda: money(10, "t", -20), UtilityError,
                 r"^`revenue` of `money` must be such that the utility at stake \(the denominator of p\) is "
                 r"positive; got -20\. The denominator is -10\.$", id="money-nothing-at-stake"),
    pytest.param(lambda: general(10, "5 - t", "t"), UtilityError,
                 r"^`W` of `general` must be an expression in `kappa` alone", id="loss-depends-on-t"),
    pytest.param(lambda: money(10, "t ++* 2", 1), UtilityError,
                 r"^`cost` of `money` must be an arithmetic expression; got 't \+\+\* 2'\.$", id="unparsable"),
    pytest.param(lambda: linear_compute("kappa_0", "a", "v").subs(b=1), UtilityError,
                 r"^`b` of `Utility.subs` must be one of the utility's parameters; got 1\. "
                 r"Known parameters: a, kappa_0, v\.$", id="subs-unknown-parameter"),
    pytest.param(lambda: step(5).subs(kappa_0=1), UtilityError,
                 r"Known parameters: none\.$", id="subs-without-parameters"),
]


@pytest.mark.parametrize("call, error, message", BUILDER_MISUSE)
def test_builders_refuse_bad_input(call, error, message):
    with pytest.raises(error, match=message):
        call()


@pytest.mark.parametrize("cost, revenue, culprit, value", [
    ("a*x", "r", "cost", "a*x"),               # cost in x, not t
    ("t", "100 - kappa", "revenue", "100 - kappa"),  # revenue in the captime variable
    ("t", "100 - 2*x", "revenue", "100 - 2*x"),
    ("c*q", "10", "cost", "c*q"),
])
def test_money_refuses_expressions_in_the_wrong_symbol(cost, revenue, culprit, value):
    with pytest.raises(UtilityError, match=rf"^`{culprit}` of `money` must be an expression in `t` "
                                           rf"\(or a constant\); got '{value.replace('*', '[*]')}'\.$"):
        money(10, cost, revenue)


# ---------------------------------------------------------------------------
# Inverse
# ---------------------------------------------------------------------------

def test_inverse_expression_of_linear_compute():
    # Hand computation: 1 - t/15 = y  <=>  t = 15 (1 - y), for y above the jump at 5/15.
    utility = linear_compute(10, 1, 5)
    assert utility.inverse_method == "closed form"
    expected = sympy.Piecewise((15 * (1 - y), y > sympy.Rational(1, 3)), (sympy.nan, True))
    assert utility.inverse_expr == expected


def test_inverse_expression_keeps_symbolic_parameters():
    # Hand computation: (v + a(k0 - t)) / (v + a k0) = y  <=>  t = k0 + v/a - y (v + a k0)/a.
    expr = linear_compute(k0, a, v).inverse_expr
    closed = expr.args[0].expr
    assert same(closed, k0 + v / a - y * (v + a * k0) / a)


def test_an_inverse_is_solved_once_per_expression_unless_time_ran_out(monkeypatch):
    from maxent_util._timing import SymbolicTimeout
    from maxent_util.utility import core

    solves: list = []
    solve = sympy.solve

    def counted(*args, **kwargs):
        solves.append(args)
        return solve(*args, **kwargs)
    monkeypatch.setattr(sympy, "solve", counted)
    expr = 1 - t / 17
    core._inverse_of.store.clear()
    first = Utility(expr).inverse_expr
    # another utility of the same expression takes the kept inverse
    assert Utility(expr).inverse_expr is first and len(solves) == 1
    # hand computation: 1 - t/17 = y  <=>  t = 17 (1 - y)
    assert same(first, 17 * (1 - y))

    def ring(*args, **kwargs):  # sympy's limit runs out of time: no closed form this time
        raise SymbolicTimeout()
    monkeypatch.setattr(sympy, "limit", ring)
    core._inverse_of.store.clear()
    assert Utility(expr).inverse_expr is None
    monkeypatch.undo()
    # that answer came from running out of time: it was not kept
    assert same(Utility(expr).inverse_expr, 17 * (1 - y))


@pytest.mark.parametrize("level", [0, -0.5, 1.5, float("nan"), float("inf")])
def test_inverse_refuses_levels_outside_the_unit_interval(level):
    with pytest.raises(UtilityError, match=r"^`y` of `Utility.inverse` must be in \(0, 1\]; got "):
        capped_runtime(10).inverse(level)


def test_inverse_of_one_is_zero():
    assert capped_runtime(10).inverse(1) == 0.0
    assert step(5).inverse(1.0) == 0.0
    np.testing.assert_array_equal(step(5).inverse([1, 1]), [0.0, 0.0])


def test_inverse_needs_numbers_for_parameters():
    with pytest.raises(UtilityError, match=r"^`values` of `Utility.inverse` must be numbers for the "
                                           r"parameters kappa_0"):
        capped_runtime("kappa_0").inverse(0.5)


# ---------------------------------------------------------------------------
# Expected utility over a captime distribution
# ---------------------------------------------------------------------------

def linear_compute_per_captime() -> sympy.Expr:
    # p(t, kappa) of Example "Known captime, linear utility for compute time", t < kappa.
    return (v + a * (kappa - t)) / (v + a * kappa)


def uniform_linear_compute_by_hand() -> sympy.Expr:
    # (1/k0) int_t^k0 (v + a(kappa - t))/(v + a kappa) dkappa
    #   = (1/k0) [ (k0 - t) - a t int_t^k0 dkappa/(v + a kappa) ]
    #   = (1/k0) [ (k0 - t) - t (log(v + a k0) - log(v + a t)) ]        (hand computation)
    return ((k0 - t) - t * (sympy.log(v + a * k0) - sympy.log(v + a * t))) / k0


def test_expected_linear_compute_over_uniform_captime_in_closed_form():
    utility = expected_utility(linear_compute_per_captime(), UniformCaptime(k0))
    assert isinstance(utility, ExpectedUtility) and utility.method == "closed form"
    before, after = utility.expr.args
    assert after == (0, True)
    assert before.cond in (t < k0, k0 > t)
    assert same(before.expr, uniform_linear_compute_by_hand())


def test_expected_step_is_the_survival_function():
    # Example "Unknown captime, step-function utility": u = 1 - F_K(t); exponential K: exp(-t/k0).
    utility = expected_utility(1, ExponentialCaptime(k0))
    assert utility.method == "closed form"
    assert same(utility.expr, sympy.exp(-t / k0))


def test_expected_utility_accepts_p_with_its_captime_condition():
    with_condition = sympy.Piecewise((linear_compute_per_captime(), t < kappa), (0, True))
    utility = expected_utility(with_condition, UniformCaptime(k0))
    assert same(utility.expr.args[0].expr, uniform_linear_compute_by_hand())


def test_expected_utility_over_derived_uniform_distribution():
    derive = pytest.importorskip("maxent_util.maxent").derive
    from maxent_util.constraints import Support

    utility = expected_utility(linear_compute_per_captime(), derive(Support(0, k0)))
    assert utility.method == "closed form"
    assert same(utility.expr.args[0].expr, uniform_linear_compute_by_hand())


def test_expected_utility_without_closed_form_falls_back_to_quadrature():
    # sympy needs about 5 s to give up on this integral (exponential K, linear compute p):
    # the time limit stops it after 1 s and leaves no alarm behind.
    utility = expected_utility(linear_compute_per_captime(), ExponentialCaptime(k0), timeout=1.0)
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    assert utility.method == "numerical quadrature"
    assert utility.expr.has(sympy.Integral)
    with pytest.raises(NoClosedFormError, match=r"^`p` of `expected_utility` must be integrable in closed "
                                                r"form against K within 0.5 s"):
        expected_utility(linear_compute_per_captime(), ExponentialCaptime(k0), method="closed form",
                         timeout=0.5)


EXPECTED_UTILITY_MISUSE = [
    pytest.param(lambda: expected_utility(1 - t / kappa + sympy.Rational(1, 2), UniformCaptime(k0)), UtilityError,
                 r"^`p` of `expected_utility` must be 1 at t = 0 for every captime \(main theorem, Section 2\); "
                 r"got 3/2 - t/kappa\. p\(0, kappa\) = 3/2\.$", id="p-not-1-at-0"),
    pytest.param(lambda: expected_utility("q*t", UniformCaptime(k0)), UtilityError,
                 r"^`p` of `expected_utility` must be an expression in `t` and `kappa`; got 'q\*t'\.$",
                 id="p-in-q"),
    pytest.param(lambda: expected_utility(1, "uniform"), UtilityError,
                 r"^`K` of `expected_utility` must be a captime distribution with `pdf` and `support`",
                 id="K-is-text"),
    pytest.param(lambda: expected_utility(1, UniformCaptime(k0), method="guess"), UtilityError,
                 r"^`method` of `expected_utility` must be one of ", id="unknown-method"),
]


@pytest.mark.parametrize("call, error, message", EXPECTED_UTILITY_MISUSE)
def test_expected_utility_refuses_bad_input(call, error, message):
    with pytest.raises(error, match=message):
        call()


# ---------------------------------------------------------------------------
# Solution quality
# ---------------------------------------------------------------------------

def test_linear_quality_formula():
    # The documented example choice: ((q - q0)/(q1 - q0)) (1 - t/kappa0) for t < kappa0.
    q0, q1 = sympy.symbols("q0 q1", real=True)
    utility = linear_quality(10, 2, 5)
    assert isinstance(utility, QualityUtility)
    expected = sympy.Piecewise(((q - 2) / 3 * (1 - t / 10), t < 10), (0, True))
    assert same(utility.expr, expected)
    symbolic = linear_quality("kappa_0", q0, q1)
    assert same(symbolic.expr.args[0].expr, (q - q0) / (q1 - q0) * (1 - t / symbolic.parameters[0]))


QUALITY_MISUSE = [
    pytest.param(lambda: linear_quality(10, 5, 5), UtilityError,
                 r"^`q1` of `linear_quality` must be greater than q0 = 5; got 5\.$", id="empty-interval"),
    pytest.param(lambda: quality_utility(q * (1 - t), 1, 0), UtilityError,
                 r"^`q1` of `quality_utility` must be greater than q0 = 1; got 0\.$", id="reversed-interval"),
    pytest.param(lambda: quality_utility(sympy.Piecewise((q * (1 - t / kappa), t < kappa), (0, True)), 0, 1),
                 UtilityError,
                 r"^`kappa0` of `quality_utility` must be given when p depends on `kappa`; got None\.$",
                 id="kappa-without-captime"),
    pytest.param(lambda: linear_quality(10, 0, 1).inverse(0.5), UtilityError,
                 r"^`utility` of `Utility.inverse` must be a utility of t alone", id="inverse"),
    pytest.param(lambda: linear_quality(10, 2, 5)([1.0, 2.0], [3.0, 6.0]), UtilityError,
                 r"^`qualities` of `QualityUtility` must be in \[q0, q1\] = \[2, 5\]; got 6\.0\.$",
                 id="quality-above-interval"),
    pytest.param(lambda: linear_quality(10, 2, 5)(1.0, float("nan")), UtilityError,
                 r"^`qualities` of `QualityUtility` must be in \[q0, q1\] = \[2, 5\]; got nan\.$", id="nan-quality"),
]


@pytest.mark.parametrize("call, error, message", QUALITY_MISUSE)
def test_quality_utilities_refuse_bad_input(call, error, message):
    with pytest.raises(error, match=message):
        call()


# ---------------------------------------------------------------------------
# Inverse round trips (need the scorer)
# ---------------------------------------------------------------------------

ROUND_TRIP_TIMES = np.linspace(0.0, 9.9, 67)


@pytest.mark.parametrize("utility", [
    linear_compute(10, 2, 3),
    capped_runtime(10),
    money(10, "t**2/10", 30),           # quadratic cost: sympy picks the root in [0, 10)
    general(10, "8 - t - t**2/20", "2*kappa"),
    Utility(sympy.exp(-t / 3)),
    Utility(sympy.Rational(1, 2) - sympy.erf(sympy.log(t / 3) / sympy.sqrt(2)) / 2),  # log-normal
], ids=["linear compute", "capped runtime", "money", "general", "exponential", "log-normal"])
def test_inverse_undoes_the_utility_in_closed_form(utility):
    assert utility.inverse_method == "closed form"
    levels = utility(ROUND_TRIP_TIMES)
    np.testing.assert_allclose(utility.inverse(levels), ROUND_TRIP_TIMES, rtol=1e-9, atol=1e-9)


def test_inverse_is_numerical_without_a_closed_form():
    # Survival function of a Gamma(3) captime: sympy cannot solve (1 + t + t^2/2) e^-t = y.
    utility = Utility((1 + t + t ** 2 / 2) * sympy.exp(-t))
    assert utility.inverse_expr is None and utility.inverse_method == "numerical"
    times = np.linspace(0.05, 30, 41)
    np.testing.assert_allclose(utility.inverse(utility(times)), times, rtol=1e-9)
    # Reference: scipy.stats.gamma(3).isf is the same inverse.
    from scipy import stats
    np.testing.assert_allclose(utility.inverse(0.25), stats.gamma(3).isf(0.25), rtol=1e-9)


def test_inverse_of_an_expected_utility_without_closed_form_inverse():
    utility = expected_utility(linear_compute_per_captime(), UniformCaptime(k0)).subs(kappa_0=10, a=1, v=5)
    assert utility.inverse_method == "numerical"
    levels = utility(ROUND_TRIP_TIMES[1:])
    np.testing.assert_allclose(utility.inverse(levels), ROUND_TRIP_TIMES[1:], rtol=1e-8)


def test_inverse_of_a_pareto_utility_skips_its_plateau():
    # u = 1 for t < 2, (2/t)^1.5 after (Section 3.2, Pareto): u^{-1}(y) = 2 y^(-2/3) for y < 1.
    utility = Utility(sympy.Piecewise((1, t < 2), ((2 / t) ** sympy.Rational(3, 2), True)))
    levels = np.array([0.9, 0.5, 1e-3, 1e-9])
    np.testing.assert_allclose(utility.inverse(levels), 2 * levels ** (-2 / 3), rtol=1e-12)
    assert utility.inverse(1) == 0.0


def test_inverse_accepts_parameter_values_and_keeps_shape():
    utility = capped_runtime("kappa_0")
    levels = np.array([[0.5, 0.25], [1.0, 0.1]])
    # 1 - t/k0 = y  <=>  t = k0 (1 - y), hand computation.
    np.testing.assert_allclose(utility.inverse(levels, kappa_0=8), 8 * (1 - levels))
    assert isinstance(utility.inverse(0.5, kappa_0=8), float)


@pytest.mark.parametrize("utility, level, where", [
    (linear_compute(10, 1, 5), 0.2, r"u jumps past it near t = 10\."),   # p jumps from 1/3 to 0 at 10
    (step(10), 0.5, r"u jumps past it near t = 10\."),
    (Utility((1 + sympy.exp(-t)) / 2), 0.2, r"u stays above it for every finite t\."),
])
def test_inverse_refuses_levels_the_utility_never_takes(utility, level, where):
    with pytest.raises(UtilityError, match=rf"^`y` of `Utility.inverse` must be a value the utility takes; "
                                           rf"got {level}\. {where}$"):
        utility.inverse(level)


# ---------------------------------------------------------------------------
# check()
# ---------------------------------------------------------------------------

GOOD_UTILITIES = {
    "step": step(5),
    "linear compute": linear_compute(10, 1, 5),
    "capped runtime": capped_runtime(3),
    "money": money(10, "t**2/10", 30),
    "general": general(10, "8 - t - t**2/20", "2*kappa"),
    "exponential": Utility(sympy.exp(-t / 3)),
    "pareto": Utility(sympy.Piecewise((1, t < 2), ((2 / t) ** sympy.Rational(3, 2), True))),
}


@pytest.mark.parametrize("name", sorted(GOOD_UTILITIES))
def test_check_passes_for_the_papers_utilities(name):
    report = GOOD_UTILITIES[name].check()
    assert report and report.failures == ()
    assert [item.name for item in report.properties] == [AT_ZERO, NON_INCREASING, POSITIVE, ZERO_AT_CAPTIME]
    GOOD_UTILITIES[name].check(raise_on_failure=True)


def test_check_with_symbolic_parameters_decides_what_it_can():
    report = capped_runtime("kappa_0").check()
    assert report[AT_ZERO].holds is True and report[ZERO_AT_CAPTIME].holds is True
    assert capped_runtime("kappa_0").check(kappa_0=4)


def test_check_names_an_increasing_utility():
    rising = Utility(sympy.Piecewise((1 + t / 10, t < 5), (0, True)))
    report = rising.check()
    assert not report and report.failures == (NON_INCREASING,)
    with pytest.raises(UtilityError, match=r"^`expr` of `Utility.check` must be such that 'non-increasing "
                                           r"in t' holds \(main theorem, Section 2\); got 'Piecewise.*'\. "
                                           r"u rises from "):
        rising.check(raise_on_failure=True)


def test_check_names_a_utility_not_one_at_zero():
    halved = Utility(sympy.Piecewise((sympy.Rational(1, 2) * (1 - t / 5), t < 5), (0, True)))
    assert halved.check().failures == (AT_ZERO,)
    with pytest.raises(UtilityError, match=r"must be such that 'u\(0\) = 1' holds .* u\(0\) = 1/2$"):
        halved.check(raise_on_failure=True)


def test_check_names_a_utility_that_never_reaches_zero():
    # 1/2 + e^-t/2 tends to 1/2: no captime.
    assert Utility((1 + sympy.exp(-t)) / 2).check().failures == (ZERO_AT_CAPTIME,)
    # 1 - t/5 without its captime goes negative.
    assert Utility(1 - t / 5).check().failures == (POSITIVE, ZERO_AT_CAPTIME)


def test_a_utility_from_a_string_uses_the_library_t():
    # "exp(-t/2)" parses with sympy's own t; the inverse must still be solved in ours: -2 log y.
    utility = Utility("exp(-t/2)")
    assert utility.parameters == () and same(utility.inverse_expr, -2 * sympy.log(y))
    assert utility.check()


def test_check_refuses_a_utility_of_quality():
    with pytest.raises(UtilityError, match=r"^`expr` of `Utility.check` must be a utility of t alone; "
                                           r"got 'q\*exp\(-t\)'\. Build utilities of t and q with "):
        Utility(q * sympy.exp(-t)).check()


def test_check_trusts_positive_tails_that_underflow():
    # exp(-t) underflows to 0.0 in floats for t > 745 but is positive: not a failure.
    assert Utility(sympy.exp(-t)).check()[POSITIVE].holds is True


@pytest.mark.parametrize("expr", [
    1 - sympy.erf(t),                                    # a half-normal captime's survival
    (1 - sympy.erf(3 * t - 1)) / (1 + sympy.erf(1)),     # a normal one truncated at 0
    (1 + sympy.erf(5 - t)) / (1 + sympy.erf(5)),         # the same, written c + c*erf(-z)
], ids=["half-normal", "truncated-normal", "plus-erf"])
def test_check_trusts_erf_tails_below_the_smallest_double(expr):
    # Each tends to 0 but is positive everywhere (erfc > 0): 1 - erf(z) rounds to 0 in doubles
    # once z > 27, and at any fixed number of digits soon after; written erfc(z), it does not.
    report = Utility(expr).check()
    assert report.failures == (), report
    assert report[POSITIVE].holds is True


# ---------------------------------------------------------------------------
# Expected utility, numerically
# ---------------------------------------------------------------------------

def test_quadrature_agrees_with_the_closed_form():
    p, K = linear_compute_per_captime(), UniformCaptime(k0)
    closed = expected_utility(p, K).subs(kappa_0=10, a=1, v=5)
    numeric = expected_utility(p, K, method="numerical").subs(kappa_0=10, a=1, v=5)
    assert numeric.method == "numerical quadrature"
    times = np.concatenate([np.linspace(0, 12, 97), [1e-9, 9.999999]])
    np.testing.assert_allclose(numeric(times), closed(times), atol=1e-12)
    # The limiting utilities: 1 at t <= 0, 0 for t = inf, NaN for NaN.
    np.testing.assert_array_equal(numeric(np.array([-1.0, np.inf])), [1.0, 0.0])
    assert np.isnan(numeric(np.nan))


def test_quadrature_agrees_with_mpmath_for_an_exponential_captime():
    utility = expected_utility(linear_compute_per_captime(), ExponentialCaptime(k0), method="numerical")
    times = np.array([0.0, 1.0, 100.0, 1e3, 1e4, 5e4])
    values = utility(times, kappa_0=1e4, a=1, v=5)

    def reference(runtime: float) -> float:
        # mpmath quadrature of the defining integral, int_t^oo p(t, kappa) e^(-kappa/k0)/k0 dkappa.
        density = lambda c: (5 + (c - runtime)) / (5 + c) * mpmath.exp(-c / 1e4) / 1e4
        return float(mpmath.quad(density, [runtime, runtime + 1e4, mpmath.inf]))

    np.testing.assert_allclose(values, [reference(x) for x in times], rtol=1e-9, atol=1e-14)
    assert utility.check(kappa_0=1e4, a=1, v=5)


def test_quadrature_over_a_pareto_captime_uses_its_support():
    # Pareto K on [2, oo) with alpha = 3/2: for t < 2 the integral starts at 2, not at t.
    pareto = type("Pareto", (), {
        "pdf": sympy.Piecewise((0, kappa < 2), (sympy.Rational(3, 2) * 2 ** sympy.Rational(3, 2)
                                                * kappa ** sympy.Rational(-5, 2), True)),
        "support": (2, sympy.oo)})()
    p = (5 + (kappa - t)) / (5 + kappa)
    utility = expected_utility(p, pareto, method="numerical")
    times = np.array([0.0, 1.0, 2.0, 3.0, 100.0])

    def reference(runtime: float) -> float:
        # mpmath quadrature over kappa from max(t, 2) (hand-written density).
        density = lambda c: (5 + c - runtime) / (5 + c) * 1.5 * 2 ** 1.5 * c ** -2.5
        start = max(runtime, 2.0)
        return float(mpmath.quad(density, [start, 10 * start, mpmath.inf]))

    np.testing.assert_allclose(utility(times), [reference(x) for x in times], rtol=1e-9)


# ---------------------------------------------------------------------------
# Solution quality, numerically
# ---------------------------------------------------------------------------

def test_linear_quality_has_the_appendix_properties():
    utility = linear_quality(10, 2, 5)
    report = utility.check()
    assert report, str(report)
    assert [item.name for item in report.properties][2] == NON_DECREASING_Q
    # Hand computation: ((q - 2)/3) (1 - t/10).
    np.testing.assert_allclose(utility([0, 1, 5, 12], [5, 2, 3.5, 5]), [1.0, 0.0, 0.25, 0.0])


def test_quality_messages_name_the_argument_and_the_method():
    utility = linear_quality(10, 2, 5)
    # every message about the second argument calls it by its name, `qualities`
    with pytest.raises(UtilityError, match=r"^`qualities` of `QualityUtility` must be given"):
        utility(1.0)
    with pytest.raises(UtilityError, match=r"^`qualities` of `QualityUtility` must be numbers; got 'x'\.$"):
        utility(1.0, "x")
    # check(raise_on_failure=True) names itself, as Utility.check does
    broken = QualityUtility(sympy.Piecewise(((q - 2) / 3 * (1 + t / 10), t < 10), (0, True)), q0=2, q1=5)
    with pytest.raises(UtilityError, match=r"^`expr` of `QualityUtility\.check` must be such that "
                                           r"'non-increasing in t' holds"):
        broken.check(raise_on_failure=True)


@pytest.mark.parametrize("p, failing", [
    (sympy.Piecewise(((q - 2) / 3 * (1 + t / 10), t < 10), (0, True)), "non-increasing in t"),
    (sympy.Piecewise(((5 - q) / 3 * (1 - t / 10), t < 10), (0, True)), r"p\(0, q1\) = 1"),
    # tends to (q - 2)/30 > 0, never 0: no captime
    (sympy.Piecewise(((q - 2) / 3 * (1 - t / 20), t < 10), ((q - 2) / 30, True)), "zero at the captime"),
    (sympy.Piecewise((((q - 3.5) ** 2 / 2.25) * (1 - t / 10), t < 10), (0, True)), "non-decreasing in q"),
])
def test_quality_utility_names_the_broken_property(p, failing):
    with pytest.raises(UtilityError, match=rf"^`p` of `quality_utility` must be such that '{failing}' holds "
                                           r"\(solution-quality theorem, appendix\)"):
        quality_utility(p, 2, 5)


def test_quality_utility_with_a_captime_symbol():
    utility = quality_utility(sympy.Piecewise((q * (1 - t / kappa), t < kappa), (0, True)), 0, 1, kappa0=4)
    assert same(utility.expr, sympy.Piecewise((q * (1 - t / 4), t < 4), (0, True)))
    # with symbolic bounds the call takes their values
    symbolic = linear_quality("kappa_0", "q_low", "q_high")
    np.testing.assert_allclose(symbolic(1.0, 0.5, kappa_0=10, q_low=0, q_high=1), 0.45)  # 0.5 * 0.9


# ---------------------------------------------------------------------------
# Property tests over valid parameters
# ---------------------------------------------------------------------------

positive = st.floats(min_value=1e-3, max_value=1e4, allow_nan=False, allow_infinity=False)
nonnegative = st.one_of(st.just(0.0), positive)
GRID = np.concatenate([[0.0], np.logspace(-4, 0, 60)])  # fractions of the captime


def assert_utility_shape(values: np.ndarray) -> None:
    assert values[0] == pytest.approx(1.0, abs=1e-12)
    assert np.all(np.diff(values) <= 1e-12)
    assert np.all((values >= -1e-12) & (values <= 1 + 1e-12))


@settings(max_examples=25, deadline=None)
@given(captime=positive, rate=nonnegative, value=nonnegative)
def test_linear_compute_is_a_utility(captime, rate, value):
    if rate * captime + value < 1e-6:
        with pytest.raises(UtilityError, match="utility at stake"):
            linear_compute(captime, rate, value)
        return
    utility = linear_compute(captime, rate, value)
    assert_utility_shape(utility(captime * GRID))
    assert utility(captime) == 0.0


@settings(max_examples=25, deadline=None)
@given(captime=positive, linear=nonnegative, quadratic=nonnegative, revenue=positive, decay=nonnegative)
def test_money_is_a_utility(captime, linear, quadratic, revenue, decay):
    # Nondecreasing cost and nonincreasing, nonnegative revenue on [0, captime).
    decay = min(decay, revenue / captime)
    utility = money(captime, linear * t + quadratic * t ** 2, revenue - decay * t)
    assert_utility_shape(utility(captime * GRID))
    assert utility(captime * 1.5) == 0.0


@settings(max_examples=25, deadline=None)
@given(captime=positive, kind=st.sampled_from(["step", "capped runtime"]))
def test_step_and_capped_runtime_are_utilities(captime, kind):
    utility = step(captime) if kind == "step" else capped_runtime(captime)
    assert_utility_shape(utility(captime * GRID[:-1]))
    assert utility(captime) == 0.0


@settings(max_examples=15, deadline=None)
@given(captime=positive, low=st.floats(-100, 100), width=st.floats(1e-2, 100),
       fraction=st.floats(0, 1))
# q1 - q0 = 0.01 next to 84 amplifies rounding: p(0, q1) came out 1 - 1.8e-12 and was refused
@example(captime=1.0, low=84.0, width=0.010000000000000002, fraction=0.0)
@example(captime=1.0, low=19.0, width=0.01171875, fraction=1.0)
# q1 = 32.69453845607514 was kept one ulp below itself (its repr re-read at 60 bits), so q1 itself
# was refused as outside [q0, q1]
@example(captime=1.0, low=-0.02, width=32.71453845607515, fraction=0.0)
def test_linear_quality_is_a_utility(captime, low, width, fraction):
    utility = linear_quality(captime, low, low + width)
    quality = low + fraction * width
    values = utility(captime * GRID, np.full(GRID.shape, quality))
    # (q - q0) rounds to -1e-16 at q = q0 for some floats, and a narrow [q0, q1] far from 0
    # amplifies rounding (1.8e-12 for [84, 84.01]): tolerances of 1e-9.
    assert np.all(np.diff(values) <= 1e-9) and np.all((values >= -1e-9) & (values <= 1 + 1e-9))
    assert utility(0.0, low + width) == pytest.approx(1.0)
    assert utility(captime, quality) == 0.0
