"""The fast route on a support whose exponent is a polynomial in kappa (Mean, Moment(kappa**2)):
on a half-line [L, oo) it integrates in kappa from L to a turn (a power of two above the scale
the values name) and in log(kappa) beyond, where the tail is; on [a, b] in kappa throughout.

References (none shares code with maxent_util.maxent.fast):

- the normal law N(mu, sigma**2) cut to [L, oo) or [a, b] is the maximum-entropy law of its
  E[kappa] and E[kappa**2]: its density is exp(-lambda_1 kappa - lambda_2 kappa**2) / Z with
  lambda_1 = -mu / sigma**2 and lambda_2 = 1 / (2 sigma**2).  Its moments and survival function
  come from scipy.stats.truncnorm (which works in log space in the tails);
- the constraints are checked again by mpmath's quadrature at 30 digits, of the density at the
  law's own multipliers;
- the exponential law of mean m on [0, oo): lambda = 1/m and S(t) = exp(-t/m), by hand.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import sympy
from hypothesis import example, given, settings, strategies as st
from scipy import stats

from maxent_util import Mean, Moment, Support, derive, kappa

FAST = dict(method="numeric")


def truncated_normal(mu: float, sigma: float, lower: float, upper: float):
    """scipy's normal law N(mu, sigma**2) cut to [lower, upper] (upper may be inf)."""
    return stats.truncnorm((lower - mu) / sigma, (upper - mu) / sigma, loc=mu, scale=sigma)


def moments_by_mpmath(multipliers, lower: float, upper: float, mode: float) -> tuple:
    """E[kappa] and E[kappa**2] of exp(-l1 kappa - l2 kappa**2) on [lower, upper], by mpmath's
    quadrature at 30 digits, split at the density's mode."""
    with mpmath.workdps(30):
        l1, l2 = (mpmath.mpf(float(v)) for v in multipliers)
        top = mpmath.inf if upper == math.inf else mpmath.mpf(upper)
        points = [mpmath.mpf(lower)] + ([mpmath.mpf(mode)] if lower < mode < upper else []) + [top]
        shift = -(l1 * mode + l2 * mode * mode)

        def density(k):
            return mpmath.exp(-(l1 * k + l2 * k * k) - shift)

        z = mpmath.quad(density, points)
        return (mpmath.quad(lambda k: k * density(k), points) / z,
                mpmath.quad(lambda k: k * k * density(k), points) / z)


def check_law(law, reference, mu: float, sigma: float, lower: float, upper: float, mean: float,
              square: float) -> None:
    lam = np.asarray(law.numeric.multipliers, dtype=float)
    # the multipliers of the normal law in units of sigma (lambda_1 sigma = -mu / sigma, 0 when
    # mu is; lambda_2 sigma**2 = 1/2): the moments' last places, amplified where the cut is deep
    # (nearly exponential, lambda_2 a small correction), keep them to 1e-9 or so
    found = lam * np.array([sigma, sigma ** 2])
    expected = np.array([-mu / sigma, 0.5])
    assert np.all(np.abs(found - expected) <= 1e-7 * np.maximum(np.abs(expected), 1.0)), (found, expected)
    # the constraints, by an independent quadrature of the law's own density
    mode = min(max(mu, lower), upper)
    first, second = moments_by_mpmath(lam, lower, upper, mode)
    assert abs(first / mean - 1) <= 1e-12 and abs(second / square - 1) <= 1e-12, (first, second)
    # the survival function against scipy's, where the law holds mass (its tail is cut where its
    # density falls below e**-120 of its peak: far beyond, S reads 0)
    points = np.array([lower + q * (mean - lower) for q in (0.01, 0.5, 1, 2, 3, 4, 6, 8, 12)])
    points = points[points < upper]
    survival, expected_survival = law.numeric.sf(points), reference.sf(points)
    body = expected_survival >= 1e-10
    tail = (expected_survival >= 1e-30) & ~body
    np.testing.assert_allclose(survival[body], expected_survival[body], rtol=1e-8)
    np.testing.assert_allclose(survival[tail], expected_survival[tail], rtol=1e-5)


@settings(max_examples=30, deadline=None, derandomize=True, database=None)
@given(spread=st.floats(-4.0, 4.0), alpha=st.one_of(st.floats(-6.0, 6.0), st.floats(-200.0, -6.0)),
       start=st.one_of(st.just(None), st.floats(-3.0, 2.0)))
@example(spread=0.0, alpha=-200.0, start=None)
@example(spread=3.0, alpha=-50.0, start=0.0)
def test_a_mean_and_a_second_moment_on_a_half_line_give_the_truncated_normal(spread, alpha, start):
    # sigma from 1e-4 to 1e4; the cut at alpha sigmas from mu (-6: nearly the whole normal, 6:
    # nearly exponential; down to -200: a narrow normal far above the start, mostly refused as
    # infeasible or unattained from about -50 on); the support from 0, or from a start 1e-3
    # to 100 sigmas above 0
    sigma = 10.0 ** spread
    lower = 0.0 if start is None else sigma * 10.0 ** start
    mu = lower - alpha * sigma
    reference = truncated_normal(mu, sigma, lower, math.inf)
    mean = float(reference.mean())
    square = float(reference.var()) + mean * mean
    law = derive(Support(lower, sympy.oo), Mean(mean), Moment(kappa ** 2, square), **FAST)
    check_law(law, reference, mu, sigma, lower, math.inf, mean, square)
    problem = law.numeric.problem
    turned = problem.ends[1] if len(problem.ends) == 3 else None
    if start is None:
        # from 0: in kappa up to a power of two at least 8 times the larger scale the values
        # name, in log(kappa) beyond; a handful of panels (in log(kappa) alone, down to
        # kappa = e**-118 or so below the mass, 60 to 70)
        assert problem.logarithmic.tolist() == [False, True]
        assert turned >= 8 * max(mean, math.sqrt(square))
        assert turned == 2.0 ** round(math.log2(turned))
        if alpha >= -6:
            assert len(law.numeric.rule.left) <= 16
    elif turned is None:
        # a start within a factor 100 of the turn: log(kappa) from the start costs nothing
        assert problem.logarithmic.tolist() == [True]
        assert 2.0 ** math.ceil(math.log2(8 * max(mean - lower, math.sqrt(square) - lower))) <= 99 * lower


@settings(max_examples=25, deadline=None, derandomize=True, database=None)
@given(spread=st.floats(-3.0, 3.0), alpha=st.floats(-6.0, 6.0), width=st.floats(0.5, 12.0),
       start=st.one_of(st.just(None), st.floats(-3.0, 2.0)))
def test_a_mean_and_a_second_moment_on_a_bounded_support_give_the_truncated_normal(spread, alpha, width, start):
    # [a, b] = [a, a + width sigmas], its start alpha sigmas above mu
    sigma = 10.0 ** spread
    lower = 0.0 if start is None else sigma * 10.0 ** start
    upper = lower + width * sigma
    mu = lower - alpha * sigma
    reference = truncated_normal(mu, sigma, lower, upper)
    mean = float(reference.mean())
    square = float(reference.var()) + mean * mean
    law = derive(Support(lower, upper), Mean(mean), Moment(kappa ** 2, square), **FAST)
    check_law(law, reference, mu, sigma, lower, upper, mean, square)
    assert law.numeric.problem.logarithmic.tolist() == [False]


@settings(max_examples=30, deadline=None, derandomize=True, database=None)
@given(exponent=st.floats(-280.0, 280.0))
@example(exponent=-280.0)
@example(exponent=280.0)
def test_the_exponential_law_at_every_scale(exponent):
    # the turn to log(kappa) lies at a power of two near 8 to 16 means; the tail is read on both
    # sides of it, and the law's scale reaches from 1e-280 to 1e280 (measured per unit of
    # log(kappa), a segment in kappa of width 1e-279 does not hide the tail beyond it)
    m = 10.0 ** exponent
    law = derive(Support(0, sympy.oo), Mean(m), **FAST)
    assert abs(law.numeric.multipliers[0] * m - 1) <= 1e-14
    turn = law.numeric.problem.ends[1] / m
    t = np.array([0.01, 0.5, 1.0, 3.0, turn * (1 - 1e-9), turn * (1 + 1e-9), 40.0])
    np.testing.assert_allclose(law.numeric.sf(t * m), np.exp(-t), rtol=1e-11)
    np.testing.assert_allclose(law.numeric.cdf(t * m), -np.expm1(-t), rtol=1e-11)


def test_a_log_feature_keeps_the_half_line_in_log_kappa():
    # a power of kappa near 0 (E[log(kappa)] named) needs log(kappa) there: no turn
    law = derive(Support(0, sympy.oo), Mean(5), Moment(sympy.log(kappa), 1), **FAST)
    assert law.numeric.problem.logarithmic.tolist() == [True]


@settings(max_examples=60, deadline=None, derandomize=True, database=None)
@given(points=st.lists(st.floats(-1e3, 1e3), min_size=1, max_size=40),
       extra=st.lists(st.floats(-1e3, 1e3), max_size=6))
def test_scales_join_the_ladder_in_their_places(points, extra):
    # a few named scales put among the ladder's rungs (sorted, each once): numpy's insert
    from maxent_util.maxent.fast import _spliced

    rungs = np.unique(np.array(points))
    extra = sorted(set(extra))
    places = np.searchsorted(rungs, extra).tolist()
    np.testing.assert_array_equal(_spliced(rungs, np.array(extra, dtype=float), places),
                                  np.insert(rungs, places, extra))
    rows = np.stack([rungs, -rungs], axis=1)
    np.testing.assert_array_equal(_spliced(rows, np.stack([extra, extra], axis=1).reshape(-1, 2), places),
                                  np.insert(rows, places, np.stack([extra, extra], axis=1).reshape(-1, 2), axis=0))
