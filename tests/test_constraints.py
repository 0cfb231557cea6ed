"""Constraint kinds: every registered kind end to end, parameters drawn by hypothesis, bad input.

Reference formulas: the paper's Section 3 utilities (/work/shared/paper/main.tex) for the
Pareto and piecewise properties; mpmath quadrature for the every-kind fixture.
"""

from __future__ import annotations

import functools
import math
import time

import mpmath
import numpy as np
import pytest
import sympy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from maxent_util import families
from maxent_util.constraints import (ContinuousAt, LogMoment, Mean, Moment, SquaredLogDeviation, Support,
                                     TailProbability, constraint_kinds)
from maxent_util.maxent import derive
from maxent_util.errors import ConstraintError, InfeasibleError, NoClosedFormError, NotNormalizableError
from maxent_util.symbols import kappa, t

oo = sympy.oo
half = sympy.Rational(1, 2)

# ---------------------------------------------------------------------------
# One representative constraint set per registered kind
# ---------------------------------------------------------------------------

REPRESENTATIVES = {
    "Support": (Support(0, 5),),
    "Moment": (Support(0, oo), Moment(kappa ** 2, 8)),
    "Mean": (Support(0, oo), Mean(3)),
    "LogMoment": (Support(2, oo), LogMoment(half, 2)),
    "SquaredLogDeviation": (Support(0, oo), LogMoment(0, 24), SquaredLogDeviation(half, 24)),
    "TailProbability": (Support(0, 24), TailProbability(12, sympy.Rational(3, 10))),
    "ContinuousAt": (Support(0, oo), LogMoment(sympy.Rational(1, 5), 24, side="below"),
                     LogMoment(half, 24, side="above"), ContinuousAt(24)),
}


#: further sets that exercise options of a kind (a Moment over a region)
EXTRA_CASES = {
    "Moment-where": (Support(0, 10), Moment(kappa, 1, where=(0, 5))),
}


def library_kinds() -> dict:
    # kinds that a test elsewhere defines for itself register too; the library's own must all be covered
    return {name: kind for name, kind in constraint_kinds().items() if kind.__module__.startswith("maxent_util")}


def test_every_registered_kind_has_a_representative():
    missing = sorted(set(library_kinds()) - set(REPRESENTATIVES))
    assert not missing, f"add a representative constraint set for {missing} to REPRESENTATIVES"
    for name, constraints in REPRESENTATIVES.items():
        assert any(type(c).__name__ == name for c in constraints)


@pytest.fixture(scope="module", params=sorted(REPRESENTATIVES) + sorted(EXTRA_CASES))
def kind_case(request):
    constraints = {**REPRESENTATIVES, **EXTRA_CASES}[request.param]
    return request.param, constraints, derive(*constraints)


def test_kind_density_integrates_to_one_and_meets_its_constraints(kind_case):
    name, constraints, distribution = kind_case
    pdf = sympy.lambdify(kappa, distribution.pdf, "mpmath")
    lower, upper = (mpmath.mpf(float(v)) if v != oo else mpmath.inf for v in distribution.support)
    cuts = sorted({float(b) for b in distribution.breakpoints if b.is_finite} | {1.0, 10.0})
    cuts = [mpmath.mpf(c) for c in cuts if lower < c < upper]
    with mpmath.workdps(30):
        def integral(function, a, b):
            return mpmath.quad(function, [a] + [c for c in cuts if a < c < b] + [b])

        assert abs(integral(pdf, lower, upper) - 1) < 1e-10
        for constraint in constraints:
            if isinstance(constraint, ContinuousAt):
                point = mpmath.mpf(float(constraint.kappa0))
                assert abs(pdf(point - mpmath.mpf(10) ** -20) - pdf(point)) < 1e-15
                continue
            feature = constraint.feature()
            if feature is None:
                continue
            g = sympy.lambdify(kappa, feature.expr, "mpmath")
            a = lower if feature.lower == -oo else max(lower, mpmath.mpf(float(feature.lower)))
            b = upper if feature.upper == oo else min(upper, mpmath.mpf(float(feature.upper)))
            value = integral(lambda k: g(k) * pdf(k), a, b)
            assert abs(value - float(feature.value)) < 1e-10, (name, constraint, value)


def test_kind_utility_has_the_theorem_shape(kind_case):
    name, _, distribution = kind_case
    utility = distribution.utility()
    lower, upper = distribution.support
    end = float(upper) if upper != oo else 1e4
    times = np.concatenate([[0.0], np.linspace(1e-3, end, 400), [end * 2]])
    values = np.asarray(utility(times), dtype=float)
    # u(0) = 1 and u(upper) = 0 up to rounding: a numeric route gives 0.9999999999999999
    assert values[0] == pytest.approx(1.0, abs=1e-12)
    assert np.all(np.diff(values) <= 1e-15), name
    if upper != oo:
        assert float(utility(np.array([float(upper)]))[0]) == pytest.approx(0.0, abs=1e-12)
    else:
        last_piece = utility.expr.args[-1][0] if isinstance(utility.expr, sympy.Piecewise) else utility.expr
        assert sympy.limit(last_piece, t, oo) == 0


# ---------------------------------------------------------------------------
# Hypothesis: valid / boundary / out-of-range / NaN in fixed proportions
# ---------------------------------------------------------------------------

def category_draw(valid, boundary, out_of_range):
    """6 in 10 valid, 2 in 10 at the boundary, 1 in 10 out of range, 1 in 10 NaN (scipy's proportions)."""
    return st.integers(0, 9).flatmap(
        lambda i: valid.map(lambda v: ("valid", v)) if i < 6 else
        boundary.map(lambda v: ("boundary", v)) if i < 8 else
        out_of_range.map(lambda v: ("out", v)) if i < 9 else
        st.just(("nan", math.nan)))


positive_floats = st.floats(0.05, 20, allow_nan=False)
alphas = category_draw(positive_floats, st.just(0.0), st.floats(-20, -0.01))
scales = st.floats(0.5, 100)


@functools.lru_cache(maxsize=1)
def _symbolic_pareto():
    return families.pareto("kappa0", "alpha")


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(kappa0=scales, alpha=alphas)
def test_pareto_property(kappa0, alpha):
    category, value = alpha
    if category != "valid":
        message = (r"`alpha` of `pareto` must be a number, not NaN" if category == "nan"
                   else r"`alpha` of `pareto` must be positive \(a tail exponent\)")
        with pytest.raises(ConstraintError, match=message):
            families.pareto(kappa0, value)
        return
    # derived once with symbols, then substituted (a full derivation per example took 53 s)
    law = _symbolic_pareto().subs(kappa0=kappa0, alpha=value)
    times = np.array([0.0, kappa0 / 2, kappa0 * 0.999, kappa0, kappa0 * 1.5, kappa0 * 10, kappa0 * 1e3])
    # Section 3: u = 1 before kappa0, (kappa0/t)^alpha after
    with np.errstate(over="ignore"):
        expected = np.where(times < kappa0, 1.0, (kappa0 / np.maximum(times, 1e-300)) ** value)
    np.testing.assert_allclose(np.asarray(law.utility()(times), dtype=float), expected, rtol=1e-9, atol=1e-300)


deltas = category_draw(st.floats(0.01, 0.99), st.sampled_from([0.0, 1.0]),
                       st.one_of(st.floats(-5, -0.01), st.floats(1.01, 5)))
fractions = category_draw(st.floats(0.05, 0.95), st.sampled_from([0.0, 1.0]), st.floats(1.05, 3))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(kappa0=st.floats(1, 100), delta=deltas, fraction=fractions)
def test_piecewise_property(kappa0, delta, fraction):
    delta_category, delta_value = delta
    fraction_category, fraction_value = fraction
    kappa1 = fraction_value * kappa0
    if fraction_category == "nan":
        with pytest.raises(ConstraintError, match=r"`kappa1` of `piecewise` must be a number, not NaN"):
            families.piecewise(kappa0, kappa1, delta_value)
        return
    # the order of the checks: numbers are read first, then TailProbability checks kappa1, then delta
    if delta_category == "nan":
        with pytest.raises(ConstraintError, match=r"`delta` of `piecewise` must be a number, not NaN"):
            families.piecewise(kappa0, kappa1, delta_value)
        return
    if fraction_category == "boundary" and fraction_value == 0.0:
        with pytest.raises(ConstraintError, match=r"`kappa1` of `TailProbability` must be positive"):
            families.piecewise(kappa0, kappa1, delta_value)
        return
    if delta_category != "valid":
        with pytest.raises(ConstraintError, match=r"`delta` of `TailProbability` must be a probability in \(0, 1\)"):
            families.piecewise(kappa0, kappa1, delta_value)
        return
    if fraction_category == "out":
        with pytest.raises(ConstraintError, match=r"`kappa1` of `TailProbability` must be inside the support"):
            families.piecewise(kappa0, kappa1, delta_value)
        return
    if fraction_category == "boundary":  # kappa1 = kappa0: P(kappa < kappa0) = 1, not delta
        with pytest.raises(InfeasibleError, match=r"`TailProbability\(.*\)` asks for an expectation of"):
            families.piecewise(kappa0, kappa1, delta_value)
        return
    law = families.piecewise(kappa0, kappa1, delta_value)
    times = np.array([0.0, kappa1 / 2, kappa1 * 0.999, kappa1, (kappa1 + kappa0) / 2, kappa0 * 0.999, kappa0,
                      kappa0 * 2])
    # Section 3: 1 - delta t/kappa1 before kappa1, (1 - delta)(kappa0 - t)/(kappa0 - kappa1) before kappa0, then 0
    expected = np.where(times < kappa1, 1 - delta_value * times / kappa1,
                        np.where(times < kappa0, (1 - delta_value) * (kappa0 - times) / (kappa0 - kappa1), 0.0))
    np.testing.assert_allclose(np.asarray(law.utility()(times), dtype=float), expected, rtol=1e-9, atol=1e-12)


# ---------------------------------------------------------------------------
# Bad input: one error, one message
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("build, error, message", [
    pytest.param(lambda: families.pareto(24, 0), ConstraintError,
                 r"^`alpha` of `pareto` must be positive \(a tail exponent\); got 0.0.$", id="alpha=0"),
    pytest.param(lambda: families.pareto(24, -1), ConstraintError,
                 r"^`alpha` of `pareto` must be positive \(a tail exponent\); got -1.0.$", id="alpha<0"),
    pytest.param(lambda: families.generalized_log_laplace(24, 2, -5), ConstraintError,
                 r"^`beta` of `generalized_log_laplace` must be positive \(a tail exponent\); got -5.0.$",
                 id="beta<0"),
    pytest.param(lambda: LogMoment(-1, 24, side="above"), ConstraintError,
                 r"^`value` of `LogMoment` must be positive \(a conditional log-distance on the above side\); "
                 r"got -1.$", id="side-value<0"),
    pytest.param(lambda: SquaredLogDeviation(0, 24), ConstraintError,
                 r"^`sigma` of `SquaredLogDeviation` must be positive \(a spread\); got 0.$", id="sigma=0"),
    pytest.param(lambda: families.log_normal(24, -0.5), ConstraintError,
                 r"^`sigma` of `SquaredLogDeviation` must be positive \(a spread\); got -0.5.$", id="sigma<0"),
    pytest.param(lambda: TailProbability(12, 0), ConstraintError,
                 r"^`delta` of `TailProbability` must be a probability in \(0, 1\); got 0.$", id="delta=0"),
    pytest.param(lambda: TailProbability(12, 1.5), ConstraintError,
                 r"^`delta` of `TailProbability` must be a probability in \(0, 1\); got 1.5.$", id="delta>1"),
    pytest.param(lambda: Support(5, 5), ConstraintError,
                 r"^`upper` of `Support` must be greater than `lower` = 5; got 5.$", id="lower=upper"),
    pytest.param(lambda: Support(5, 2), ConstraintError,
                 r"^`upper` of `Support` must be greater than `lower` = 5; got 2.$", id="lower>upper"),
    pytest.param(lambda: Support(-1, 2), ConstraintError,
                 r"^`lower` of `Support` must be non-negative \(a captime is a duration\); got -1.$", id="lower<0"),
    pytest.param(lambda: derive(Support(0, 24), TailProbability(30, 0.3)), ConstraintError,
                 r"^`kappa1` of `TailProbability` must be inside the support \[0, 24\]; got 30.0.$",
                 id="kappa1-outside"),
    pytest.param(lambda: derive(Support(5, 10), ContinuousAt(12)), ConstraintError,
                 r"^`kappa0` of `ContinuousAt` must be inside the support \[5, 10\]; got 12.0.$",
                 id="continuity-outside"),
    pytest.param(lambda: Mean(float("nan")), ConstraintError,
                 r"^`value` of `Mean` must be a number, not NaN; got nan.$", id="nan"),
    pytest.param(lambda: derive(Support(0, 10), Mean(12)), InfeasibleError,
                 r"^`Mean\(12\)` asks for an expectation of 12, but over \[0, 10\) its feature kappa only takes "
                 r"values in \[0, 10\]; no distribution on the support \[0, 10\] meets it.$", id="mean-outside"),
    pytest.param(lambda: derive(Support(0, 10), Mean(10)), InfeasibleError,
                 r"^`Mean\(10\)` puts the expectation at the edge \(10\) of what the feature kappa can reach",
                 id="mean-at-edge"),
    pytest.param(lambda: derive(Support(0, oo), Mean(2), Mean(3)), InfeasibleError,
                 r"^`Mean\(2\)` and `Mean\(3\)` fix the same expectation to different values \(2 and 3\); "
                 r"no distribution meets both.$", id="two-means"),
    pytest.param(lambda: derive(Support(0, oo)), NotNormalizableError,
                 r"^the support \[0, oo\) alone has no maximum-entropy density: a constant density cannot be "
                 r"normalised", id="support-alone"),
    pytest.param(lambda: derive(Support(0, oo), LogMoment(1, 1)), NotNormalizableError,
                 r"^the maximum-entropy density of LogMoment\(1, 1\) diverges for every value of the Lagrange "
                 r"multipliers", id="log-moment-on-0-oo"),
    pytest.param(lambda: derive(Support(0, 10), Mean(sympy.Symbol("m", positive=True)), timeout=3),
                 NoClosedFormError,
                 r"^no closed form was found for the multipliers of Support\(0, 10\), Mean\(m\) within 3 s, and the "
                 r"numeric route needs numbers for m", id="symbolic-no-closed-form"),
    pytest.param(lambda: derive(Support(0, 10), Mean(3), digits=5), ConstraintError,
                 r"^`digits` of `derive` must be at least 15; got 5.$", id="digits"),
    pytest.param(lambda: derive("Mean(3)"), ConstraintError,
                 r"^`constraints` of `derive` must be Constraint objects", id="not-a-constraint"),
    pytest.param(lambda: Mean(mean=3), ConstraintError,
                 r"^`Mean` has no argument `mean`; its arguments are value.$", id="unknown-keyword"),
    pytest.param(lambda: Support(0, 1, 2), ConstraintError,
                 r"^`Support` takes at most 2 arguments \(lower, upper\); got 3.$", id="too-many-arguments"),
])
def test_bad_input_message(build, error, message):
    with pytest.raises(error, match=message):
        build()


def test_symbolic_without_closed_form_gives_up_within_the_time_limit():
    m = sympy.Symbol("m", positive=True)
    start = time.perf_counter()
    with pytest.raises(NoClosedFormError, match=r"within 0.5 s"):
        derive(Support(0, 7), Mean(m), timeout=0.5)
    assert time.perf_counter() - start < 10  # generous: the limit applies per symbolic step


def test_symbols_pass_checks_unless_provably_invalid():
    # sympy's convention: a bare symbol passes, a provably negative expression does not
    a = sympy.Symbol("a")
    assert TailProbability(12, a).delta == a
    with pytest.raises(ConstraintError, match=r"^`sigma` of `SquaredLogDeviation` must be positive"):
        SquaredLogDeviation(-sympy.Symbol("s", positive=True), 1)


def test_arguments_by_name_and_string():
    assert Support(0, "oo") == Support(0, oo) == Support(0, math.inf)
    assert Mean("mu").value == sympy.Symbol("mu", positive=True)
    assert TailProbability(kappa1=12, delta=0.3) == TailProbability(12, sympy.Rational(3, 10))
