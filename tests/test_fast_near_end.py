"""A mean near an end of a bounded support: the truncated exponential, its mass within a
millionth of the width of that end (lambda about 1/(mean - lower) or -1/(upper - mean)).

Reference: the truncated exponential's mean in units of the width, 1/t - 1/(e^t - 1) with
t = lambda (upper - lower), solved here by mpmath's findroot at 50 digits from the mean's own
double (no code shared with maxent_util.maxent.fast._truncated_exponential).
"""

from __future__ import annotations

import math

import mpmath
import sympy
from hypothesis import given, settings, strategies as st

from maxent_util import Mean, Support, derive


def truncated_exponential_lambda(lower: float, upper: float, mean: float) -> mpmath.mpf:
    """lambda of exp(-lambda kappa) on [lower, upper] with this mean, at 50 digits."""
    with mpmath.workdps(50):
        width = mpmath.mpf(upper) - mpmath.mpf(lower)
        fraction = (mpmath.mpf(mean) - mpmath.mpf(lower)) / width
        t = mpmath.findroot(lambda t: 1 / t - 1 / mpmath.expm1(t) - fraction,
                            1 / fraction if fraction < 0.5 else -1 / (1 - fraction))
        return t / width


@settings(max_examples=24, deadline=None, derandomize=True, database=None)
@given(lower=st.sampled_from([0.0, 1.0, 5.0, 100.0]), width=st.sampled_from([1.0, 10.0, 995.0]),
       exponent=st.floats(-9.0, -3.0), at_top=st.booleans())
def test_a_mean_near_an_end_gives_the_truncated_exponential(lower, width, exponent, at_top):
    upper = lower + width
    distance = width * 10.0 ** exponent
    mean = upper - distance if at_top else lower + distance
    law = derive(Support(lower, upper), Mean(mean))
    expected = truncated_exponential_lambda(lower, upper, mean)
    # the double-precision law: its multiplier to a few units in the last place, its mean to the
    # last place of the mean (E[kappa] sums rounded captimes)
    assert abs(law.numeric.multipliers[0] / expected - 1) <= 1e-14
    assert abs(law.numeric.mean() - mean) <= 8 * math.ulp(mean)
    # the closed form, polished to 30 digits from the same double, or a fraction the full route
    # recognises to the precision of the question (a double, known to 2**-53 of the mean: -1000
    # for 1 - 0.001 on [0, 1], whose double gives -999.99999999999911)
    lambda_1 = law.multipliers[sympy.Symbol("lambda_1", real=True)]
    tolerance = max(1e-25, 2.0 ** -49 * mean / distance)
    assert abs(mpmath.mpf(sympy.Float(lambda_1, 40)) / expected - 1) <= tolerance


def test_the_reported_cases():
    # Mean(1e-6) and Mean(9.99999) on [0, 10], Mean(5.00001) on [5, 1000]: the law exists
    for lower, upper, mean in ((0, 10, 1e-6), (0, 10, 9.99999), (5, 1000, 5.00001)):
        law = derive(Support(lower, upper), Mean(mean))
        expected = truncated_exponential_lambda(lower, upper, mean)
        assert abs(law.numeric.multipliers[0] / expected - 1) <= 1e-14
