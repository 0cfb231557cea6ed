"""Answers must be right or refused: degenerate multipliers, exact feasibility, hard numeric
problems, unattained maxima and parameters that would make sympy grind.

Every reference here is independent of the engine: densities written by hand (uniform,
log-uniform, log-normal via scipy.stats), mpmath quadrature of the derived density against
the constraints restated from the issue, and scipy root finding on hand-written moment
equations.
"""

from __future__ import annotations

import math

import mpmath
import pytest
import sympy
from scipy import optimize, stats

from maxent_util import families
from maxent_util.constraints import (ContinuousAt, LogMoment, Mean, Moment, SquaredLogDeviation, Support,
                                     TailProbability)
from maxent_util.maxent import derive
from maxent_util.errors import ConstraintError, InfeasibleError, MaximumNotAttainedError, NotNormalizableError
from maxent_util.symbols import kappa

oo = sympy.oo
FAST = dict(timeout=30)  # ample on a loaded machine; most cases take well under 2 s


def pdf_function(distribution):
    return sympy.lambdify(kappa, distribution.pdf, "mpmath")


def expectation(distribution, g, lower, upper, points=()):
    """E[g(kappa) 1{lower <= kappa < upper}] by mpmath quadrature of the derived pdf."""
    f = pdf_function(distribution)
    with mpmath.workdps(30):
        return mpmath.quad(lambda k: g(k) * f(k), [lower, *points, upper])


# ---------------------------------------------------------------------------
# 1. a multiplier of exactly 0: the uniform law on [0, 10]
# ---------------------------------------------------------------------------

# For each kind, the value the uniform law on [0, 10] gives it (hand integration of 1/10), so that
# its multiplier vanishes; each is given exactly and as a double.
ABOVE = (10 * sympy.log(sympy.Rational(10, 4)) - 6) / 6     # E[log(k/4) | k >= 4], k uniform on [4, 10]
ZERO_MULTIPLIER = {
    "Mean": (lambda v: Mean(v), sympy.Integer(5), lambda k: k, (0, 10)),
    "Moment": (lambda v: Moment(kappa ** 2, v), sympy.Rational(100, 3), lambda k: k ** 2, (0, 10)),
    "LogMoment": (lambda v: LogMoment(v, 1), sympy.log(10) - 1, mpmath.log, (0, 10)),
    # E[log(4/k) | k < 4] = 1 for k uniform on (0, 4)
    "LogMoment-below": (lambda v: LogMoment(v, 4, side="below"), sympy.Integer(1),
                        lambda k: mpmath.log(4 / k) - 1, (0, 4)),
    "LogMoment-above": (lambda v: LogMoment(v, 4, side="above"), ABOVE,
                        lambda k: mpmath.log(k / 4) - float(ABOVE), (4, 10)),
    # E[log(k/10)^2] = 2 for k uniform on [0, 10]
    "SquaredLogDeviation": (lambda v: SquaredLogDeviation(v, 10), sympy.sqrt(2),
                            lambda k: mpmath.log(k / 10) ** 2, (0, 10)),
    "TailProbability": (lambda v: TailProbability(4, v), sympy.Rational(2, 5), lambda k: 1, (0, 4)),
}


@pytest.mark.parametrize("as_float", [False, True], ids=["exact", "float"])
@pytest.mark.parametrize("kind", list(ZERO_MULTIPLIER))
def test_multiplier_of_exactly_zero_gives_the_uniform_law(kind, as_float):
    build, value, g, region = ZERO_MULTIPLIER[kind]
    stated = float(value) if as_float else value
    constraint = build(stated)
    law = derive(Support(0, 10), constraint, **FAST)
    lambda_0 = sympy.Symbol("lambda_0", real=True)
    # reference: the uniform density 1/10, so lambda_0 = log(10) - 1 and every other multiplier 0
    assert abs(float(law.multipliers[lambda_0]) - (math.log(10) - 1)) < 1e-12
    for multiplier, number in law.multipliers.items():
        if multiplier != lambda_0:
            assert abs(float(number)) < 1e-12, (multiplier, number)
    for k in (0.5, 3.0, 9.5):
        assert abs(float(law.pdf.subs(kappa, k)) - 0.1) < 1e-12
    assert abs(float(law.utility()(2.5)) - 0.75) < 1e-12
    # the constraint restated by hand, checked by quadrature of the derived pdf
    target = 0 if kind.startswith("LogMoment-") else float(stated) if kind != "SquaredLogDeviation" \
        else float(stated) ** 2
    if kind == "TailProbability":
        target = float(stated)
    assert abs(expectation(law, g, *region) - target) < 1e-10
    assert abs(expectation(law, lambda k: 1, 0, 10) - 1) < 1e-12


# ---------------------------------------------------------------------------
# 2. feasibility from the exact range of a feature
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("kappa0, sigma", [(24, 0.05), (24, 0.06), (7, 0.03), (1000, 0.01)])
def test_narrow_log_normal_is_feasible_and_right(kappa0, sigma):
    law = families.log_normal(kappa0, sigma)
    # reference: scipy's log-normal with shape sigma and scale kappa0
    reference = stats.lognorm(s=sigma, scale=kappa0)
    utility = law.utility()
    for t in (kappa0 * math.exp(-sigma), kappa0, kappa0 * math.exp(2 * sigma)):
        assert abs(float(utility(t)) - reference.sf(t)) < 1e-9


def test_edge_of_the_exact_range_is_still_refused():
    # E[log(k/24)^2] = 0 needs a point mass at 24 (0 is the exact minimum of the feature)
    with pytest.raises(InfeasibleError, match="only a point mass"):
        derive(Support(0, oo), Moment(sympy.log(kappa / 24) ** 2, 0), **FAST)


# ---------------------------------------------------------------------------
# 3. a multiplier of exactly 1 on kappa**-lambda: the log-uniform law
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("lower, upper, value", [
    (sympy.Rational(1, 10), 10, 0), (1, sympy.exp(2), 1), (sympy.Rational(1, 10000), 10000, 0)])
def test_log_uniform(lower, upper, value):
    law = derive(Support(lower, upper), LogMoment(value, 1), **FAST)
    a, b = float(lower), float(upper)
    # reference: the log-uniform density 1/(k log(b/a)), whose E[log k] is (log a + log b)/2 = value
    assert abs((math.log(a) + math.log(b)) / 2 - value) < 1e-15
    for k in (a * 1.5, math.sqrt(a * b), b / 1.5):
        assert abs(float(law.pdf.subs(kappa, k)) - 1 / (k * math.log(b / a))) < 1e-12 / k
    middle = math.sqrt(a * b)
    assert abs(float(law.utility()(middle)) - 0.5) < 1e-12
    assert abs(expectation(law, lambda k: 1, a, b, [middle]) - 1) < 1e-12
    assert abs(expectation(law, mpmath.log, a, b, [middle]) - value) < 1e-12
    partition = float(law.multipliers[sympy.Symbol("lambda_0", real=True)])
    assert math.isfinite(partition)


# ---------------------------------------------------------------------------
# 4. well-posed numeric problems are solved
# ---------------------------------------------------------------------------

def truncated_exponential_rate(a: float, b: float, mean: float, bracket: tuple) -> float:
    """Root of E[k] = mean for the density exp(-l k) on [a, b] (hand integration:
    E = a + 1/l - (b - a)/(exp(l (b - a)) - 1), written for either sign of l), by scipy's brentq."""
    width = b - a

    def mean_minus(rate: float) -> float:
        x = rate * width
        # (b - a)/(exp(x) - 1) written so it neither overflows nor cancels
        tail = width * math.exp(-x) / -math.expm1(-x) if x > 0 else width / math.expm1(x)
        return a + 1 / rate - tail - mean

    return optimize.brentq(mean_minus, *bracket, xtol=1e-15, rtol=1e-15)


@pytest.mark.parametrize("a, b, mean, bracket", [
    (1, 10 ** 6, 100, (1e-4, 1.0)),
    (0, 10, sympy.Rational(999, 100), (-1e3, -1.0)),
    (0, 10, sympy.Rational(1, 100), (1.0, 1e3)),
])
def test_truncated_exponential_hard_cases(a, b, mean, bracket):
    law = derive(Support(a, b), Mean(mean), **FAST)
    rate = truncated_exponential_rate(float(a), float(b), float(mean), bracket)
    assert abs(float(law.multipliers[sympy.Symbol("lambda_1", real=True)]) - rate) < 1e-10 * max(1, abs(rate))
    assert abs(expectation(law, lambda k: 1, a, b, [float(mean)]) - 1) < 1e-10
    assert abs(expectation(law, lambda k: k, a, b, [float(mean)]) - float(mean)) < 1e-10 * float(mean)


def test_generalized_log_laplace_with_a_mean():
    law = derive(Support(0, oo), LogMoment(0.39, 75, side="below"), LogMoment(0.46, 75, side="above"),
                 ContinuousAt(75), Mean(105), timeout=None)  # 5-10 s; more on a loaded machine
    lam = {m.name: float(v) for m, v in law.multipliers.items()}
    # the values quoted in the issue: exponent -lambda_1 log(75/k) below, -lambda_2 log(k/75) above
    assert abs(lam["lambda_1"] - 6.4576) < 1e-3
    assert abs(lam["lambda_2"] - -12.441) < 1e-3
    # independent check of every condition by quadrature of the derived pdf
    f = pdf_function(law)
    with mpmath.workdps(30):
        below = mpmath.quad(f, [0, 30, 75])
        above = mpmath.quad(f, [75, 150, 400, mpmath.inf])
        assert abs(below + above - 1) < 1e-12
        assert abs(mpmath.quad(lambda k: mpmath.log(75 / k) * f(k), [0, 30, 75]) / below - 0.39) < 1e-12
        assert abs(mpmath.quad(lambda k: mpmath.log(k / 75) * f(k), [75, 150, 400, mpmath.inf]) / above
                   - 0.46) < 1e-12
        assert abs(mpmath.quad(lambda k: k * f(k), [0, 30, 75, 150, 400, mpmath.inf]) - 105) < 1e-9
        assert abs(f(75 - mpmath.mpf(10) ** -20) - f(75)) < 1e-12
    assert isinstance(law.notes, list)


# ---------------------------------------------------------------------------
# 5. feasible constraints whose maximum entropy is not attained
# ---------------------------------------------------------------------------

def test_unattained_maximum_is_not_called_infeasible():
    mean, second = 1.18, 3.48
    # a log-normal meets both: exp(mu + s^2/2) = mean, exp(2 mu + 2 s^2) = second (hand algebra)
    s2 = math.log(second / mean ** 2)
    mu = math.log(mean) - s2 / 2
    assert s2 > 0
    assert abs(stats.lognorm(s=math.sqrt(s2), scale=math.exp(mu)).moment(2) - second) < 1e-9
    # but E[k^2] > 2 E[k]^2, beyond every exp(-a k - b k^2) with b >= 0
    assert second > 2 * mean ** 2
    with pytest.raises(MaximumNotAttainedError, match="can all hold") as caught:
        derive(Support(0, oo), Mean(mean), Moment(kappa ** 2, second), **FAST)
    assert isinstance(caught.value, NotNormalizableError)
    assert "cannot all hold" not in str(caught.value)


def test_truly_infeasible_moments_still_say_so():
    # E[k^2] < E[k]^2 is impossible (variance >= 0)
    with pytest.raises(InfeasibleError, match="cannot all hold"):
        derive(Support(0, oo), Mean(1), Moment(kappa ** 2, sympy.Rational(1, 2)), **FAST)


# ---------------------------------------------------------------------------
# 6. parameters that would make sympy or mpmath grind are refused up front
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("digits, message", [
    (10 ** 5, r"^`digits` of `derive` must be at most 1000; got 100000\."),
    (2.5, r"^`digits` of `derive` must be an integer \(significant digits\); got 2\.5\.$"),
    ("40", r"^`digits` of `derive` must be an integer \(significant digits\); got '40'\.$"),
    (True, r"^`digits` of `derive` must be an integer \(significant digits\); got True\.$"),
    (0, r"^`digits` of `derive` must be at least 15; got 0\.$"),
])
def test_bad_digits_are_refused(digits, message):
    with pytest.raises(ConstraintError, match=message):
        derive(Support(0, 10), Mean(3), digits=digits)


@pytest.mark.parametrize("build, name", [
    (lambda: families.generalized_log_laplace(24, 1e6, 1e6), r"`beta` of `generalized_log_laplace`"),
    (lambda: families.pareto(24, 1e6), r"`alpha` of `pareto`"),
])
def test_huge_tail_exponents_are_refused(build, name):
    # the preset names its own parameter (its exact law would hold 24**(10**6))
    with pytest.raises(ConstraintError, match=rf"^{name} must be a value at which the exact law holds numbers "
                                              r"of at most 100,000 digits; got 1000000\.0\."):
        build()
