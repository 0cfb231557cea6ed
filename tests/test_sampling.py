"""Tests of maxent_util.sampling: the estimation theorem's plan, checked by hand and by simulation."""

from __future__ import annotations

import dataclasses
import functools
import math

import mpmath
import numpy as np
import pytest
import sympy
from scipy import stats

from maxent_util.errors import DataError, UtilityError
from maxent_util.sampling import Plan, plan, simulate_plan
from maxent_util.symbols import t
from maxent_util.utility import Utility

EXPONENTIAL_10 = sympy.exp(-t / 10)                                  # u^{-1}(y) = -10 ln y
PARETO_2_HALF = sympy.Piecewise((1, t < 2), ((2 / t) ** sympy.Rational(1, 2), True))  # 2 y^-2


# every test here runs with warnings turned into errors
pytestmark = pytest.mark.usefixtures("no_warnings")


def test_plan_matches_hand_computation():
    p = plan(0.1, 0.05, EXPONENTIAL_10)
    # By hand: m = ln(2/0.05)/2 * ((2 - 0.1)/0.1)^2 = 1.844440 * 361 = 665.843 -> 666 runs;
    # u^{-1}(y) = -10 ln y for the exponential utility, so the captime is -10 ln 0.05
    # = 29.957 s, and the total time lies between 666 * (-10 ln 0.2) and 666 * 29.957.
    assert p.runs == 666
    assert p.run_limit == pytest.approx(29.957322735539908, rel=1e-9)
    assert p.min_total_time == pytest.approx(666 * 16.094379124341003, rel=1e-9)
    assert p.max_total_time == pytest.approx(666 * 29.957322735539908, rel=1e-9)
    assert (p.epsilon, p.delta) == (0.1, 0.05)
    assert p.min_total_time < p.max_total_time


def test_plan_with_a_piecewise_utility():
    # Pareto utility, kappa0 = 2, alpha = 1/2: u^{-1}(y) = 2 y^{-2} (by hand, y < 1).
    p = plan(0.05, 0.01, Utility(PARETO_2_HALF))
    # the theorem's m by hand: ln(200)/2 * 39^2 = 2.649159 * 1521 = 4029.37 -> 4030
    runs = math.ceil(math.log(2 / 0.01) / 2 * ((2 - 0.05) / 0.05) ** 2)
    assert p.runs == runs == 4030
    assert p.run_limit == pytest.approx(2 * 0.025 ** -2, rel=1e-9)      # 3200 s
    assert p.min_total_time == pytest.approx(runs * 2 * 0.1 ** -2, rel=1e-9)
    assert isinstance(p, Plan)
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.runs = 1


def test_largest_epsilon_needs_no_time_in_the_worst_case():
    # epsilon = 1/2: u^{-1}(2 epsilon) = u^{-1}(1) = 0, the earliest time with u = 1
    p = plan(0.5, 0.1, EXPONENTIAL_10)
    assert p.min_total_time == 0.0
    assert p.runs == math.ceil(math.log(20) / 2 * 9)


@pytest.mark.parametrize("epsilon", [0.0, -0.1, 0.51, 1.0, float("nan"), "0.1", True])
def test_epsilon_out_of_range(epsilon):
    with pytest.raises(UtilityError, match=r"^`epsilon` of `plan` must be a number in "
                                           r"\(0, 1/2\]; got .*\.$"):
        plan(epsilon, 0.05, EXPONENTIAL_10)


@pytest.mark.parametrize("delta", [0.0, 1.0, -0.5, 2.0, float("nan")])
def test_delta_out_of_range(delta):
    with pytest.raises(UtilityError, match=r"^`delta` of `plan` must be a number in \(0, 1\); "
                                           r"got .*\.$"):
        plan(0.1, delta, EXPONENTIAL_10)


PLAN_MISUSE = [
    pytest.param(lambda: plan(0.1, 0.05, sympy.exp(-t / sympy.Symbol("kappa0", positive=True))), UtilityError,
                 r"^`utility` of `plan` must be free of unset parameters; got \('kappa0',\)", id="unset-parameter"),
    # a step utility jumps from 1 to 0 and never takes the value epsilon/2
    pytest.param(lambda: plan(0.1, 0.05, sympy.Piecewise((1, t < 5), (0, True))), UtilityError,
                 r"a value the utility takes", id="step-utility"),
    # m = ln(2/delta)/2 ((2 - eps)/eps)^2 ~ 1.5 * 4e600: no experiment runs that often
    pytest.param(lambda: plan(1e-300, 0.05, EXPONENTIAL_10), UtilityError,
                 r"^`epsilon` of `plan` must be large enough that the number of runs .* is below 2\*\*63 "
                 r"\(here about 10\*\*601\); got 1e-300\.", id="tiny-epsilon"),
    pytest.param(lambda: plan(10**400, 0.05, EXPONENTIAL_10), UtilityError,
                 r"^`epsilon` of `plan` must be a number in \(0, 1/2\]; got 'an integer of about 401 digits'",
                 id="huge-integer-epsilon"),
]


@pytest.mark.parametrize("call, error, message", PLAN_MISUSE)
def test_plan_refuses_bad_input(call, error, message):
    with pytest.raises(error, match=message):
        call()


def pareto_half(shape, rng):
    """Pareto runtimes with scale 1 and shape 1/2: infinite mean."""
    return 1.0 + rng.pareto(0.5, shape)


def true_expected_utility(u_of_x):
    # E[u(T)] for T ~ Pareto(scale 1, shape 1/2): density 0.5 x^{-3/2} on [1, oo), by mpmath
    with mpmath.workdps(30):
        return float(mpmath.quad(lambda x: u_of_x(x) * 0.5 * x ** mpmath.mpf(-1.5),
                                 [1, 10, 100, 1000, mpmath.inf]))


def test_infinite_mean_runtimes_are_estimated_within_epsilon():
    truth = true_expected_utility(lambda x: mpmath.exp(-x / 10))
    p = plan(0.1, 0.1, EXPONENTIAL_10)
    fraction = simulate_plan(p, pareto_half, EXPONENTIAL_10, trials=400, rng=7, truth=truth)
    # the theorem: at least 1 - delta of the trials land within epsilon
    assert fraction >= 1 - p.delta


def test_scipy_distribution_and_estimated_truth():
    # E[u] under the Pareto utility (kappa0 = 2, alpha = 1/2) by mpmath quadrature
    truth = true_expected_utility(lambda x: 1 if x < 2 else mpmath.sqrt(2 / x))
    p = plan(0.1, 0.1, PARETO_2_HALF)
    law = stats.pareto(0.5)  # scipy's Pareto: the same law as pareto_half
    assert simulate_plan(p, law, PARETO_2_HALF, trials=200, rng=1, truth=truth) >= 0.9
    # without `truth` it is estimated from a large uncapped sample
    assert simulate_plan(p, law, PARETO_2_HALF, trials=200, rng=1) >= 0.9


def test_a_too_short_captime_fails_as_the_second_lemma_says():
    # The proof's second lemma (Appendix A): a point mass at t_eps with u(t_eps) < epsilon defeats any captime below
    # u^{-1}(2 epsilon). With epsilon = 0.1: u^{-1}(0.2) = 16.09 s; t_eps = 30 s has
    # u = exp(-3) = 0.0498 < 0.1; capping at 10 s gives estimates u(10) = 0.368.
    p = plan(0.1, 0.1, EXPONENTIAL_10)
    point_mass = lambda shape, rng: np.full(shape, 30.0)
    truth = math.exp(-3.0)
    too_short = dataclasses.replace(p, run_limit=10.0)
    assert simulate_plan(too_short, point_mass, EXPONENTIAL_10, trials=5, rng=0,
                         truth=truth) == 0.0
    assert simulate_plan(p, point_mass, EXPONENTIAL_10, trials=5, rng=0, truth=truth) == 1.0


@functools.cache
def small_plan() -> Plan:
    return plan(0.2, 0.1, EXPONENTIAL_10)


SIMULATE_PLAN_MISUSE = [
    pytest.param(lambda: simulate_plan({"runs": 3}, pareto_half, EXPONENTIAL_10), UtilityError,
                 r"^`plan` of `simulate_plan` must be a Plan", id="not-a-plan"),
    pytest.param(lambda: simulate_plan(small_plan(), pareto_half, EXPONENTIAL_10, trials=0), UtilityError,
                 r"^`trials` of `simulate_plan` must be a positive integer; got 0\.$", id="no-trials"),
    pytest.param(lambda: simulate_plan(small_plan(), pareto_half, EXPONENTIAL_10, truth=float("nan")), UtilityError,
                 r"^`truth` of `simulate_plan` must be a finite number", id="nan-truth"),
    pytest.param(lambda: simulate_plan(small_plan(), lambda shape, rng: np.ones(3), EXPONENTIAL_10, trials=2,
                                       truth=0.5), DataError,
                 r"^`sampler` of `simulate_plan` must be returning an array of the requested shape",
                 id="sampler-shape"),
]


@pytest.mark.parametrize("call, error, message", SIMULATE_PLAN_MISUSE)
def test_simulate_plan_refuses_bad_input(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_plan_at_the_edges_of_the_numbers():
    u = sympy.exp(-t / 10)
    # a subnormal delta is fine: by hand, ln(2/5e-324)/2 * 19^2 = 134496.5...
    expected = math.ceil((math.log(2.0) - math.log(5e-324)) / 2 * 19.0 ** 2)
    assert plan(0.1, 5e-324, u).runs == expected == 134497
    # the largest count below 2**63 still plans (by hand: 7.4e18 runs at eps = 1e-9)
    assert plan(1e-9, 0.05, u).runs == math.ceil(math.log(40.0) / 2 * ((2 - 1e-9) / 1e-9) ** 2)
