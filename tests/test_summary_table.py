"""Every cell of the paper's summary table (its figure "Implied scoring
functions for different scenarios") is reachable from the library.

Rows: known captime kappa0 / known distribution K / unknown (maximum-entropy) K.
Columns: constant (step) utility / general utility p(t, kappa).
Reference values are computed independently here: by hand from the paper's
Section 3 formulas, from sympy.stats' own CDF, or by mpmath quadrature of
E_{kappa ~ K}[p(t, kappa)].
"""

from __future__ import annotations

import mpmath
import numpy as np
import pytest
import sympy
import sympy.stats

from maxent_util import (KnownCaptime, Support, UtilityError, derive, exponential, expected_utility, kappa,
                         linear_compute, step, t)

TIMES = np.array([0.0, 0.5, 3.0, 9.9, 10.0, 12.5, 17.0, 19.99, 20.0, 35.0])

# p(t, kappa) for linear compute cost (Example "Known captime, linear utility
# for compute time"): cost a = 1 per second, value v = 10.
A, V = 1, 10


def linear_p(time: float, captime: float) -> float:
    return (V + A * (captime - time)) / (V + A * captime) if time < captime else 0.0


def test_known_captime_constant_is_fraction_solved():
    # "... solves the most instances": u = 1 before kappa0, 0 from kappa0 on.
    u = step(20)
    assert np.array_equal(u(TIMES), (TIMES < 20).astype(float))


def test_known_captime_general_is_the_papers_p():
    u = linear_compute(20, A, V)
    expected = [linear_p(x, 20) for x in TIMES]
    assert np.allclose(u(TIMES), expected, rtol=1e-14, atol=0)


def test_known_distribution_constant_is_one_minus_cdf():
    variable = sympy.stats.Uniform("K", 10, 20)
    u = KnownCaptime.from_sympy_stats(variable).utility()
    cdf = sympy.stats.cdf(variable)
    expected = [1 - float(cdf(sympy.Float(x))) for x in TIMES]
    assert np.allclose(u(TIMES), expected, rtol=0, atol=1e-14)


@pytest.mark.parametrize("method", ["auto", "numerical"])
def test_known_distribution_general_is_expectation_over_k(method):
    variable = sympy.stats.Uniform("K", 10, 20)
    p = (V + A * (kappa - t)) / (V + A * kappa)
    u = expected_utility(p, KnownCaptime.from_sympy_stats(variable), method=method)
    # E_K[p(t, kappa)] with K uniform on [10, 20], by mpmath quadrature
    expected = [float(mpmath.quad(lambda c: linear_p(x, c) / 10, [10, max(x, 10), 20])) for x in TIMES]
    assert np.allclose(u(TIMES), expected, rtol=1e-9, atol=1e-12)


def test_unknown_distribution_constant_is_maxent_survival():
    # "... most likely to solve an instance from the Maximum Entropy distribution":
    # with a known mean kappa0 that is exp(-t/kappa0) (Appendix C, exponential).
    u = exponential(24).utility()
    assert np.allclose(u(TIMES), np.exp(-TIMES / 24), rtol=1e-14, atol=0)


def test_unknown_distribution_general_is_expectation_over_maxent_k():
    p = (V + A * (kappa - t)) / (V + A * kappa)
    u = expected_utility(p, derive(Support(0, 20)))
    assert u.method == "closed form"
    # E[p(t, kappa)] with kappa uniform on [0, 20], by mpmath quadrature
    expected = [float(mpmath.quad(lambda c: linear_p(x, c) / 20, [max(x, 0), 20])) if x < 20 else 0.0
                for x in TIMES]
    assert np.allclose(u(TIMES), expected, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("support, message", [
    pytest.param((5, 2), r"^`support` of `KnownCaptime` must be a pair with upper > lower", id="reversed"),
    pytest.param((-1, 2), r"^`support` of `KnownCaptime` must be a pair with a finite lower", id="negative-lower"),
])
def test_known_captime_rejects_a_bad_support(support, message):
    with pytest.raises(UtilityError, match=message):
        KnownCaptime(kappa, support)
