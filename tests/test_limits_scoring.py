"""Scorers that neither hang nor overflow, clean expected utilities, accurate inverses and backends."""

from __future__ import annotations

import math
import time

import mpmath
import numpy as np
import pytest
import sympy
from scipy.integrate import quad

from maxent_util import expected_utility, exponential, log_laplace, log_normal, compile_scorer, pareto, t
from maxent_util.scorer import fold_float_constants, _minus_one


def mpmath_value(expr, runtime, digits=50):
    """The same expression evaluated by mpmath at `digits` digits (independent of the scorer)."""
    with mpmath.workdps(digits):
        return float(sympy.lambdify(t, expr, "mpmath")(mpmath.mpf(runtime)))


@pytest.mark.parametrize("build, runtime", [
    (lambda: pareto(0.196, 0.209), 1.0),        # used to raise OverflowError (600-digit integer**(1/1000))
    (lambda: log_laplace(24, 0.001), 48.0),     # likewise
    (lambda: log_laplace(0.963, 0.249), 2.0),   # used to spend minutes in factor()
])
def test_scorers_of_odd_rational_parameters(build, runtime):
    utility = build().utility()
    start = time.monotonic()
    value = utility(runtime)
    assert time.monotonic() - start < 30  # generous: it took minutes or raised before
    assert value == pytest.approx(mpmath_value(utility.expr, runtime), rel=1e-13)


def test_constants_fold_without_growing():
    huge = sympy.Rational(49, 250) ** sympy.Rational(209, 1000)  # sympy makes a 600-digit integer of it
    folded = fold_float_constants(huge * t)
    coefficient = folded.as_coeff_Mul()[0]
    assert isinstance(coefficient, sympy.Float)
    # mpmath at 50 digits, from the rational directly
    with mpmath.workdps(50):
        reference = float((mpmath.mpf(49) / 250) ** (mpmath.mpf(209) / 1000))
    assert float(coefficient) == reference


def test_minus_one_rewrites_need_no_factor():
    from sympy.codegen.cfunctions import expm1
    from sympy.codegen.scipy_nodes import powm1

    c, x = sympy.symbols("c x", positive=True)
    assert _minus_one(c * sympy.exp(-t / x) - c) == c * expm1(-t / x)
    assert _minus_one(1 - sympy.exp(-t)) == -expm1(-t)
    assert _minus_one(c * t ** sympy.Rational(1, 3) - c) == c * powm1(t, sympy.Rational(1, 3))
    assert _minus_one(sympy.exp(-t) + 2) == sympy.exp(-t) + 2  # no "- 1" to absorb


def test_expm1_keeps_digits_at_tiny_runtimes():
    # 1 - exp(-t/x) at t = 1e-12: mpmath reference at 50 digits; the plain form keeps ~4 digits
    x = sympy.Symbol("x", positive=True)
    scorer = compile_scorer(1 - sympy.exp(-t / x))
    with mpmath.workdps(50):
        reference = float(1 - mpmath.exp(-mpmath.mpf("1e-12") / 3))
    assert scorer(1e-12, x=3.0) == pytest.approx(reference, rel=1e-14)


def test_expected_utility_has_no_polar_numbers():
    # sympy's integral of (1 - t/kappa) exp(-kappa/24)/24 over kappa > t comes back with exp_polar
    utility = expected_utility(1 - t / sympy.Symbol("kappa", positive=True), exponential(24), timeout=120)
    assert not utility.expr.has(sympy.exp_polar) and not utility.expr.has(sympy.I)
    for runtime in (0.5, 24.0, 100.0, 1000.0):
        # scipy.integrate.quad of the definition
        reference = quad(lambda k: (1 - runtime / k) * math.exp(-k / 24) / 24, runtime, math.inf,
                         epsabs=0, epsrel=1e-12)[0]
        assert utility(runtime) == pytest.approx(reference, rel=1e-9)


@pytest.mark.parametrize("level", [1e-17, 1e-10, 0.25, 0.5])
def test_log_normal_inverse_in_the_far_tail(level):
    utility = log_normal(1, 1).utility()  # u(t) = erfc(log(t)/sqrt(2))/2
    # mpmath root of log erfc(z) = log(2*level) at 50 digits, then t = exp(sqrt(2) z)
    with mpmath.workdps(50):
        target = mpmath.log(2 * mpmath.mpf(level))
        z = mpmath.findroot(lambda v: mpmath.log(mpmath.erfc(v)) - target, mpmath.sqrt(max(-target, 0.1)))
        reference = float(mpmath.exp(mpmath.sqrt(2) * z))
    assert utility.inverse(level) == pytest.approx(reference, rel=1e-12)
    assert "erfinv" not in str(utility.inverse_expr)


def test_jax_scorer_of_the_log_normal_takes_arrays():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp

    utility = log_normal(1, 1).utility()
    scorer = compile_scorer(utility, backend="jax")
    runtimes = [0.5, 1.0, 100.0]
    values = np.asarray(scorer(jnp.array(runtimes)))
    for value, runtime in zip(values, runtimes):
        assert value == pytest.approx(mpmath_value(utility.expr, runtime), rel=1e-12)
