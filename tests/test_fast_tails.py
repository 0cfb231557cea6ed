"""A fast-route law's CDF and survival function where its density is exp(c0 + c1 u) on a segment.

There (u = kappa for a Mean or a tail probability, u = log(kappa) for a LogMoment) the tails are
written out instead of summed over the quadrature panel's nodes. References: the panels' own
Gauss-Legendre route (``_partial``, the route these values took before), and for the families
with a known law, the law itself in mpmath at 30 digits (scipy.stats' formulas: the truncated
exponential, the exponential shifted to [a, oo), the Pareto law of a LogMoment on [a, oo)).
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import maxent_util as mu
from maxent_util import LogMoment, Mean, SquaredLogDeviation, Support, TailProbability


def written(law) -> bool:
    return bool(law.numeric._written_segments().all())


def points_of(law) -> np.ndarray:
    low, high = law.numeric.support
    top = high if math.isfinite(high) else 1e3 * max(float(law.numeric.mean()), 1.0)
    inner = np.unique(np.concatenate([np.linspace(low, top, 60)[1:-1],
                                      np.geomspace(max(low, 1e-3 * top), top, 60)[1:-1]]))
    return inner[(inner > low) & (inner < high)]


def close_to_panels(law, x: np.ndarray) -> None:
    """The written tails against the panels' quadrature, both tails (to 1e-11: the panels' own
    error near a segment's end, where the written form is the more precise)."""
    numeric = law.numeric
    for upper, mine in ((True, numeric.sf(x)), (False, numeric.cdf(x))):
        panels = np.clip(numeric._partial(x, upper), 0.0, 1.0)
        np.testing.assert_allclose(mine, panels, rtol=1e-9, atol=1e-11)
    np.testing.assert_allclose(numeric.sf(x) + numeric.cdf(x), 1.0, rtol=0, atol=1e-13)


@settings(max_examples=25, deadline=None)
@given(upper=st.floats(1.0, 1e5), share=st.floats(0.05, 0.95))
def test_a_bounded_mean_s_tails_are_the_truncated_exponential(upper, share):
    law = mu.derive(Support(0, upper), Mean(share * upper))
    assert written(law)
    x = points_of(law)
    close_to_panels(law, x)
    # the truncated exponential with rate -lambda_1 on [0, upper]
    with mpmath.workdps(30):
        rate = -mpmath.mpf(float(law.numeric.multipliers[0]))
        for point, value in zip(x[::7], law.numeric.sf(x[::7])):
            if abs(rate) < mpmath.mpf(10) ** -12:
                expected = 1 - mpmath.mpf(point) / upper
            else:
                expected = mpmath.expm1(rate * (upper - point)) / mpmath.expm1(rate * upper) \
                    * mpmath.exp(rate * point) if rate < 0 else \
                    (mpmath.exp(rate * upper) - mpmath.exp(rate * point)) / mpmath.expm1(rate * upper)
            assert value == pytest.approx(float(expected), rel=1e-11, abs=1e-15)


@settings(max_examples=20, deadline=None)
@given(lower=st.floats(0.01, 100.0), excess=st.floats(0.01, 1e4))
def test_a_mean_on_a_half_line_gives_the_shifted_exponential_far_into_its_tail(lower, excess):
    law = mu.derive(Support(lower, "oo"), Mean(lower + excess))
    assert written(law)
    x = lower + excess * np.array([1e-6, 0.5, 1.0, 5.0, 50.0, 300.0])
    rate = float(law.numeric.multipliers[0])
    with mpmath.workdps(30):
        # the written tail of the law's own multiplier, which Newton leaves within about 1e-12 of 1/excess
        own = [mpmath.exp(-(mpmath.mpf(p) - lower) * mpmath.mpf(rate)) for p in x]
        exact = [mpmath.exp(-(mpmath.mpf(p) - lower) / mpmath.mpf(excess)) for p in x]
    np.testing.assert_allclose(law.numeric.sf(x), [float(v) for v in own], rtol=1e-12, atol=0)
    # the CDF keeps its relative precision next to the support's end too
    np.testing.assert_allclose(law.numeric.cdf(x[:3]), [float(1 - v) for v in own[:3]], rtol=1e-9, atol=0)
    # against the exact law, the multiplier's error grows with the depth of the tail
    depth = np.array([max(1.0, float(-mpmath.log(v))) for v in exact])
    assert np.all(np.abs(law.numeric.sf(x) / np.array([float(v) for v in exact]) - 1) <= 1e-11 * depth)
    close_to_panels(law, x[:4])


@settings(max_examples=20, deadline=None)
@given(lower=st.floats(0.1, 100.0), excess=st.floats(0.05, 5.0))
def test_a_log_moment_on_a_half_line_gives_the_pareto_law(lower, excess):
    # E[log(kappa/lower)] = 1/alpha for the Pareto law of scale `lower`
    law = mu.derive(Support(lower, "oo"), LogMoment(excess, lower))
    assert written(law)
    alpha = 1.0 / excess
    x = lower * np.array([1.0 + 1e-9, 1.5, 3.0, 10.0, 1e3])
    with mpmath.workdps(30):
        expected = [float((mpmath.mpf(lower) / mpmath.mpf(p)) ** alpha) for p in x]
    np.testing.assert_allclose(law.numeric.sf(x), expected, rtol=1e-9, atol=1e-300)


@pytest.mark.parametrize("constraints", [
    (Support(0, 3600), TailProbability(600, 0.5), TailProbability(3000, 0.9)),
    (Support(0, 3600), Mean(900), TailProbability(600, 0.5)),
    (Support(0, 100), LogMoment(2, 10)),
    (Support(2, "oo"), LogMoment(0.5, 3)),
])
def test_written_tails_are_the_panels_tails(constraints):
    law = mu.derive(*constraints)
    assert written(law)
    close_to_panels(law, points_of(law))


def test_a_log_normal_stays_on_the_panels():
    """exp of a square in log(kappa) is not written here: its tails are the panels'."""
    law = mu.derive(LogMoment(0.5, 10), SquaredLogDeviation(0.75, 10))
    assert not written(law)
    x = points_of(law)
    np.testing.assert_array_equal(law.numeric.sf(x), np.clip(law.numeric._partial(x, True), 0.0, 1.0))
