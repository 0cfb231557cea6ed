"""Constraint sets drawn by hypothesis: valid, boundary, out of range, NaN, symbolic and text.

Every law derived from a valid set is checked by an independent route: mpmath quadrature of
its density (normalisation, each constraint's moment, non-negativity) and of its CDF, never
by the engine's own integrals.  Sets that cannot hold must raise maxent_util errors.
"""

from __future__ import annotations

import math

import mpmath
import pytest
import sympy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from maxent_util import derive
from maxent_util.constraints import (LogMoment, Mean, Moment, SquaredLogDeviation, Support,
                                     TailProbability)
from maxent_util.errors import ConstraintError, MaxEntError
from maxent_util.symbols import kappa

oo = sympy.oo
PROPERTY = settings(max_examples=10, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])

# short decimals (exact rationals in the engine) and long floats (Floats in the engine)
_short = st.integers(1, 999).map(lambda n: n / 100)
_long = st.floats(0.05, 9.5).filter(lambda x: len(repr(x)) > 12)
_value = st.one_of(_short, _long)


def _number(x) -> mpmath.mpf:
    return mpmath.mpf(str(sympy.N(x, 30)))


def _quad(function, lower, upper, breakpoints=()):
    points = [lower, *sorted(p for p in breakpoints if lower < p < upper), upper]
    return mpmath.quad(function, points)


def _check_law(constraints, law) -> None:
    """Independent checks of ``law``: mpmath quadrature of the density's sympy expression, at 30
    digits (the precision is restored after: other tests read mpmath's default)."""
    with mpmath.workdps(30):
        _check_law_at_precision(constraints, law)


def _check_law_at_precision(constraints, law) -> None:
    lower, upper = (_number(b) if b != oo else mpmath.inf for b in law.support)
    breakpoints = [_number(b) for b in getattr(law, "breakpoints", ()) if b.is_number and b != oo]
    density = sympy.lambdify(kappa, law.pdf, "mpmath")

    def pdf(x):
        return mpmath.mpf(density(x))

    total = _quad(pdf, lower, upper, breakpoints)
    assert abs(total - 1) < 1e-8, total
    for x in [lower + (min(upper, lower + 50) - lower) * f for f in (0.1, 0.37, 0.81)]:
        assert pdf(x) >= 0
    for constraint in constraints:
        feature = constraint.feature()
        if feature is None:
            continue
        g = sympy.lambdify(kappa, feature.expr, "mpmath")
        lo = max(lower, _number(feature.lower)) if feature.lower != -oo else lower
        hi = min(upper, _number(feature.upper)) if feature.upper != oo else upper
        moment = _quad(lambda x: g(x) * pdf(x), lo, hi, breakpoints)
        target = _number(feature.value)
        assert abs(moment - target) < 1e-7 * max(1, abs(target)), (constraint, moment, target)
    # the CDF against the integral of the density, at an interior point
    x = lower + (min(upper, lower + 20) - lower) / 3
    cdf = sympy.lambdify(kappa, law.cdf, "mpmath")
    assert abs(mpmath.mpf(cdf(x)) - _quad(pdf, lower, x, breakpoints)) < 1e-8


@st.composite
def valid_sets(draw):
    kind = draw(st.sampled_from(["uniform", "bounded mean", "exponential", "tail", "pareto",
                                 "log-normal", "bounded log"]))
    if kind == "uniform":
        return (Support(0, draw(_value)),)
    if kind == "bounded mean":
        # short decimals: with a long float the symbolic attempt takes half the time limit first
        upper = draw(_short) + 1
        fraction = draw(st.floats(0.05, 0.95))
        return Support(0, upper), Mean(round(upper * fraction, 3))
    if kind == "exponential":
        return Support(0, oo), Mean(draw(_value))
    if kind == "tail":
        upper = draw(_value) + 2
        return Support(0, upper), TailProbability(1, draw(st.sampled_from([0.1, 0.25, 0.5, 0.8])))
    if kind == "pareto":
        scale = draw(_value)
        return Support(scale, oo), LogMoment(draw(st.sampled_from([0.25, 0.5, 1, 2])), scale)
    if kind == "log-normal":
        scale = draw(_short) + 1
        sigma = draw(st.sampled_from([0.05, 0.3, 0.5, 1.2]))
        return Support(0, oo), LogMoment(0, scale), SquaredLogDeviation(sigma, scale)
    lower = draw(st.sampled_from([0.1, 0.5, 1]))
    return Support(lower, 10), LogMoment(draw(st.sampled_from([0.2, 0.7, 1.5])), 1)


@PROPERTY
@given(valid_sets())
def test_every_valid_set_gives_a_law_that_meets_its_constraints(constraints):
    _check_law(constraints, derive(*constraints))


def _text(value) -> str:
    return repr(float(value)) if isinstance(value, sympy.Float) else str(value)


@PROPERTY
@given(valid_sets())
def test_text_arguments_give_the_same_law(constraints):
    # every argument written as text, as a configuration file would have it
    def as_text(constraint):
        arguments = {k: (_text(v) if k in type(constraint).argument_names else v)
                     for k, v in constraint.arguments.items()}
        return type(constraint)(**arguments)

    written = tuple(as_text(c) for c in constraints)
    assert written == constraints


@pytest.mark.parametrize("constraints", [
    (Support(0, 10), Mean(10)), (Support(0, 10), Mean(12)), (Support(2, 10), Mean(1)),
    (Support(0, 10), TailProbability(12, 0.5)),
    (Support(0, 10), Moment(kappa ** 2, 101)),
])
def test_sets_that_cannot_hold_are_refused(constraints):
    with pytest.raises(MaxEntError):
        derive(*constraints)


@pytest.mark.parametrize("make", [
    lambda: Mean(float("nan")), lambda: Support(0, float("nan")), lambda: TailProbability(2, "nan"),
    lambda: Mean(-1), lambda: TailProbability(2, 1.5), lambda: Support(5, 1), lambda: Support(-1, 3),
    lambda: LogMoment(1, 0), lambda: SquaredLogDeviation(-0.5, 24),
])
def test_out_of_range_and_nan_arguments_are_refused(make):
    with pytest.raises(ConstraintError, match=r"^`\w+` of `\w+` must be "):
        make()


def test_symbolic_sets_agree_with_their_numeric_instances():
    b, m = sympy.symbols("b m", positive=True)
    law = derive(Support(0, "b"), TailProbability(1, "m"))
    numeric = derive(Support(0, 4), TailProbability(1, sympy.Rational(3, 10)))
    substituted = law.pdf.subs({sympy.Symbol("b", positive=True): 4,
                                sympy.Symbol("m", positive=True): sympy.Rational(3, 10)})
    for x in (0.5, 2, 3.5):
        assert sympy.N(substituted.subs(kappa, x) - numeric.pdf.subs(kappa, x), 20) == 0
    assert not math.isnan(float(numeric.pdf.subs(kappa, 2)))
