"""Laws the fast route's first Newton run did not reach: steps that went where no rule resolves
the density are taken back towards their start, and a start on the edge of the dual's domain
(a squared log feature's multiplier 0 on a support reaching kappa = 0) is tried again inside it.

References: the multipliers by hand (a power law's and a truncated exponential's, the latter's
rate by scipy's brentq), scipy.stats.truncnorm fitted to the constraints by scipy's root finder,
and Simpson's rule over log(kappa) on the law's own double-precision density.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy
from scipy import integrate, optimize, stats

from maxent_util import LogMoment, SquaredLogDeviation, Support, derive

R = sympy.Rational


def test_two_sided_log_moments_on_a_bounded_support():
    # Newton's first full step from 0 made the density below k0 nearly kappa**-1, whose mass
    # creeps to kappa = 1e-300, and the route gave up; the full route found the law in 2 s
    a, b, k0, upper = 3.11, 0.71, 31.29, 2813.8
    constraints = (Support(0, R(28138, 10)), LogMoment(R(311, 100), R(3129, 100), side="below"),
                   LogMoment(R(71, 100), R(3129, 100), side="above"))
    law = derive(*constraints)
    assert law.numeric is not None
    below, above = law.numeric.multipliers
    # by hand: below k0 alone, the density exp(-l (log(k0/kappa) - a)) is a power of kappa whose
    # log-distance log(k0/kappa) is exponential with mean a: l = 1/a - 1.  Above, y = log(kappa/k0)
    # on [0, L] has density exp(-(l - 1) y): a truncated exponential of rate r = l - 1 and mean b
    width = math.log(upper / k0)
    rate = optimize.brentq(lambda r: 1 / r - width / math.expm1(r * width) - b, 1e-9, 100, xtol=1e-15)
    assert below == pytest.approx(1 / a - 1, rel=1e-12)
    assert above == pytest.approx(rate + 1, rel=1e-10)
    # the conditional means by Simpson's rule on the law's own density, each side on its own grid
    y_below = np.linspace(math.log(k0) - 200, math.log(k0), 400_001)
    y_above = np.linspace(math.log(k0), math.log(upper), 200_001)
    k_below = np.minimum(np.exp(y_below), np.nextafter(k0, 0))
    k_above = np.clip(np.exp(y_above), k0, upper)
    d_below, d_above = law.numeric.pdf(k_below) * k_below, law.numeric.pdf(k_above) * k_above
    mass_below, mass_above = integrate.simpson(d_below, x=y_below), integrate.simpson(d_above, x=y_above)
    assert mass_below + mass_above == pytest.approx(1, abs=1e-9)
    assert integrate.simpson(d_below * (math.log(k0) - y_below), x=y_below) / mass_below == pytest.approx(a, rel=1e-8)
    assert integrate.simpson(d_above * (y_above - math.log(k0)), x=y_above) / mass_above == pytest.approx(b, rel=1e-8)


def test_a_log_moment_and_a_squared_deviation_on_a_support_from_0():
    # from multipliers 0 (the uniform law, on the edge of the domain: the squared deviation's
    # multiplier must be positive for the density to be integrable at 0) Newton's first step
    # left the domain and the route gave up
    v, k, sigma, c, upper = -0.01, 1.88, 1.28, 3.17, 98.6
    constraints = (Support(0, R(986, 10)), LogMoment(R(-1, 100), R(188, 100)), SquaredLogDeviation(R(128, 100), R(317, 100)))
    law = derive(*constraints)
    assert law.numeric is not None
    # by hand: y = log(kappa) has density exp(-l1 (y - log k) - l2 (y - log c)**2 + y) on
    # (-oo, log upper], a normal truncated above; scipy's truncnorm whose moments meet the
    # constraints (found by scipy's root finder from the untruncated normal's) is the law
    top = math.log(upper)

    def law_of(mu_log_s):
        mu, s = mu_log_s[0], math.exp(mu_log_s[1])
        return stats.truncnorm(-np.inf, (top - mu) / s, loc=mu, scale=s)

    def residuals(mu_log_s):
        mean, variance = law_of(mu_log_s).stats("mv")
        return [mean - math.log(k) - v, variance + (mean - math.log(c)) ** 2 - sigma ** 2]

    mu0 = math.log(k) + v
    found = optimize.root(residuals, [mu0, 0.5 * math.log(sigma ** 2 - (mu0 - math.log(c)) ** 2)], tol=1e-14)
    assert np.abs(residuals(found.x)).max() < 1e-12  # (it may stop at rounding and say so)
    reference = law_of(found.x)
    for x in (0.01, 0.5, 1.88, 3.17, 20.0, 98.0):
        assert law.numeric.pdf(x) == pytest.approx(reference.pdf(math.log(x)) / x, rel=1e-9)
        assert law.numeric.sf(x) == pytest.approx(reference.sf(math.log(x)), rel=1e-9, abs=1e-15)
