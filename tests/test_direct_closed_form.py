"""The closed form of a fast-route law written out from its multipliers (maxent_util/maxent/direct.py).

References: the full derivation (``digits=30``: sympy's integrals and the 30-digit numeric solver,
which share no code with the writer), and mpmath quadrature of the written density itself.
"""

from __future__ import annotations

import math
import threading
from unittest import mock

import mpmath
import numpy as np
import pytest
import sympy
from hypothesis import given, settings, strategies as st
from scipy import stats

import maxent_util.maxent as engine
from maxent_util import (ContinuousAt, LogMoment, Mean, Moment, SquaredLogDeviation, Support, TailProbability, derive,
                         kappa)

R = sympy.Rational
oo = sympy.oo

#: laws of each form the writer takes: exact multipliers (exponential, Pareto about another point,
#: log-normal, piecewise uniform) and numeric ones (a bounded mean, a bounded log moment, a
#: truncated normal); the gamma law's full derivation takes 5 to 25 s, so it is checked by
#: quadrature below only
CASES = [
    (Support(0, oo), Mean(R(37, 10))),
    (Support(2, oo), LogMoment(R(1, 2), 3)),
    (LogMoment(R(1, 2), 10), SquaredLogDeviation(R(3, 4), 10)),
    (Support(0, 100), TailProbability(50, R(1, 10))),
    # the designer's longest wait, median and tail (two tail probabilities, piecewise uniform)
    (Support(0, 3600), TailProbability(600, R(1, 2)), TailProbability(3000, R(9, 10))),
    (Support(1, 50), TailProbability(30, R(3, 4)), TailProbability(4, R(1, 5)), TailProbability(10, R(1, 2))),
    (Support(0, 10), Mean(R(33, 10))),
    (Support(1, 100), LogMoment(2, 10)),
    (Support(0, oo), Mean(5), Moment(kappa ** 2, 40)),
    # the generalized log-Laplace law (the paper's Appendix C): a continuity condition
    (Support(0, oo), LogMoment(R(1, 5), 24, side="below"), LogMoment(R(1, 2), 24, side="above"), ContinuousAt(24)),
]


def _at(expr: sympy.Expr, x: float) -> mpmath.mpf:
    return mpmath.mpf(sympy.N(expr.subs(kappa, sympy.Float(x, 40)), 40))


def _full_route_forbidden():
    """Reading the closed form may not fall back on the full derivation."""
    def refuse(*arguments):
        raise AssertionError(f"the full route was taken for {arguments[0]}")
    return mock.patch.object(engine, "_derive_cached", refuse)


@pytest.mark.parametrize("constraints", CASES, ids=lambda c: ", ".join(map(repr, c)))
def test_written_law_is_the_full_derivations_law(constraints):
    derive.cache_clear()
    full = derive(*constraints, digits=30)
    law = derive(*constraints)
    assert not law.built
    with _full_route_forbidden():
        law.pdf
    assert law.closed_form == full.closed_form
    # where sympy's integral of the CDF gave up (the full route then says "numeric quadrature"),
    # the written one is in closed form
    quadrature = full.cdf_method == "numeric quadrature"
    assert law.cdf_method == "closed form"
    assert law.forms == full.forms | {"numbers": "double precision"} | (
        {"cdf": law.forms["pdf"]} if quadrature else {})
    assert law.breakpoints == full.breakpoints and law._scales == full._scales
    for symbol, value in full.multipliers.items():
        written = law.multipliers[symbol]
        assert written.has(sympy.Float) == value.has(sympy.Float)  # exact where the full route is
        assert abs(sympy.N(written - value, 40)) <= 1e-27 * max(1, abs(sympy.N(value, 40)))
    low, high = (float(end) for end in law.support)
    top = high if high != float("inf") else 20 * float(law.numeric.mean())
    for x in (low + (top - low) * f for f in (1e-3, 0.1, 0.5, 0.9, 0.999)):
        for part in ("pdf",) if quadrature else ("pdf", "cdf", "sf"):
            mine, reference = _at(getattr(law, part), x), _at(getattr(full, part), x)
            assert abs(mine - reference) <= 1e-20 * max(1, abs(reference)), (part, x)
        if quadrature:
            assert float(_at(law.sf, x)) == pytest.approx(float(law.numeric.sf(x)), rel=1e-10, abs=1e-15)
    # the record states the same problem
    assert [term[1:] for term in law.derivation.terms] == [term[1:] for term in full.derivation.terms]
    assert law.derivation.method == full.derivation.method
    assert len(law.derivation.equations) == len(full.derivation.equations)


def test_log_features_about_two_points_give_the_log_normal_law_exactly():
    # By hand: E[log(kappa/3)] = 1/2 makes y = log(kappa/10) have mean mu = 1/2 + log(3/10), and
    # E[y**2] = 9/16 its variance 9/16 - mu**2; the density exp(-l1 log(kappa/3) - l2 y**2) is
    # normal in y with the Jacobian 1/kappa, so l1 = 1 - mu/var and l2 = 1/(2 var), and kappa is
    # log-normal (scipy's lognorm is the reference for the numbers).  The full route solves the
    # same equations only numerically, in 13 to 30 s: not run here.
    constraints = (LogMoment(R(1, 2), 3), SquaredLogDeviation(R(3, 4), 10))
    derive.cache_clear()
    law = derive(*constraints)
    with _full_route_forbidden():
        law.pdf
    mu = R(1, 2) + sympy.log(R(3, 10))
    variance = R(9, 16) - mu ** 2
    l1, l2 = (sympy.Symbol(f"lambda_{i}", real=True) for i in (1, 2))
    assert law.closed_form and law.forms["multipliers"] == "exact"
    assert sympy.simplify(law.multipliers[l1] - (1 - mu / variance)) == 0
    assert sympy.simplify(law.multipliers[l2] - 1 / (2 * variance)) == 0
    reference = stats.lognorm(s=math.sqrt(float(variance)), scale=10 * math.exp(float(mu)))
    for x in (0.5, 2.0, 5.0, 20.0):
        assert float(_at(law.pdf, x)) == pytest.approx(reference.pdf(x), rel=1e-12)
        assert float(_at(law.cdf, x)) == pytest.approx(reference.cdf(x), rel=1e-12)


@st.composite
def written_sets(draw):
    # not 1/2: Support(1, 100), LogMoment(0, 10) is the log-uniform law, whose multiplier 1 the
    # writer leaves to the full route by design, to be recognised exactly (direct.py's
    # _near_small_fraction; tests/test_derive_trust.py checks that law); the uniform law of a
    # mean at the middle is written, and tested below
    value = R(draw(st.integers(5, 95).filter(lambda n: n != 50)), 100)
    kind = draw(st.sampled_from(["bounded mean", "bounded log moment", "log-normal", "truncated normal", "gamma",
                                 "power on (0, b]", "half-normal", "squared log deviation",
                                 "log-normal about two points"]))
    if kind == "bounded mean":
        return (Support(0, 10), Mean(10 * value))
    if kind == "bounded log moment":  # E[log(kappa/10)] within (log(1/10), log(10))
        return (Support(1, 100), LogMoment(4 * value - 2, 10))
    if kind == "log-normal":
        return (LogMoment(value - R(1, 2), 10), SquaredLogDeviation(1 + value, 10))
    if kind == "log-normal about two points":  # E[log(kappa/10)]**2 < 2.7 < E[log(kappa/10)**2]
        return (LogMoment(value - R(1, 2), 3), SquaredLogDeviation(2 + value, 10))
    if kind == "power on (0, b]":  # E[log(kappa/3)] below log(10/3) - 1 on (0, 10]
        return (Support(0, 10), LogMoment(value - 1, 3))
    if kind == "half-normal":
        return (Support(0, oo), Moment(kappa ** 2, 10 * value))
    if kind == "squared log deviation":
        return (SquaredLogDeviation(value + R(1, 2), 10),)
    if kind == "gamma":  # E[log kappa] below log E[kappa] = log 4 (Jensen)
        return (Support(0, oo), Mean(4), LogMoment(R(138, 100) - value * 2, 1))
    return (Support(0, oo), Mean(5), Moment(kappa ** 2, 26 + 20 * value))  # 25 < E[k**2] < 50


@settings(max_examples=20, deadline=None)
@given(written_sets())
def test_written_density_meets_its_constraints_by_quadrature(constraints):
    law = derive(*constraints)
    with _full_route_forbidden():
        law.pdf
    low, high = law.support
    lower = mpmath.mpf(float(low))
    upper = mpmath.inf if high == oo else mpmath.mpf(float(high))
    assert len(law._pdf_pieces) == 1  # one piece: its expression is the density on the support
    with mpmath.workdps(30):
        f = sympy.lambdify(kappa, law._pdf_pieces[0], "mpmath")

        def integral(g, a, b):
            """int_a^b g(k) f(k) dk; from 0 to 1 in u = log(k), where a power of k is smooth."""
            inner = [p for p in (1, 10, 30) if a < p < b]
            total = mpmath.quad(lambda k: g(k) * f(k), [max(a, 1), *inner, b]) if b > 1 else 0
            if a < 1:
                start = -mpmath.inf if a == 0 else mpmath.log(a)
                total += mpmath.quad(lambda y: g(mpmath.exp(y)) * f(mpmath.exp(y)) * mpmath.exp(y),
                                     [start, *(y for y in (-7, -3) if y > start), mpmath.log(min(b, 1))])
            return total

        assert abs(integral(lambda k: 1, lower, upper) - 1) <= 1e-20
        for term in law.derivation.terms:
            g = sympy.lambdify(kappa, term[1], "mpmath")
            expectation = integral(g, lower, upper)
            assert abs(expectation - mpmath.mpf(sympy.N(term[3], 40))) <= 1e-18 * max(1, abs(expectation))
        survival = sympy.lambdify(kappa, law._sf_pieces[0], "mpmath")
        x = lower + 1 if upper == mpmath.inf else (lower + upper) / 2
        assert abs(survival(x) - integral(lambda k: 1, x, upper)) <= 1e-15


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 10 ** 6), st.integers(1, 10 ** 6), st.integers(1, 1000))
def test_a_mean_at_the_middle_of_a_bounded_support_is_written_as_the_uniform_law(start, width, denominator):
    low, high = R(start, denominator), R(start + width, denominator)
    law = derive(Support(low, high), Mean((low + high) / 2))
    with _full_route_forbidden():
        law.pdf
    # reference: the uniform law on [low, high], by hand: density 1/(b - a), S = (b - k)/(b - a)
    assert law.multipliers == {sympy.Symbol("lambda_0", real=True): sympy.log(high - low) - 1,
                               sympy.Symbol("lambda_1", real=True): 0}
    for part, expected in ((law.pdf, 1 / (high - low)), (law.cdf, (kappa - low) / (high - low)),
                           (law.sf, (high - kappa) / (high - low))):
        # the piece that holds the middle of the support
        inner = next(e for e, c in part.args if c.subs(kappa, (low + high) / 2) is sympy.true)
        assert sympy.simplify(inner - expected) == 0, (part, expected)
    assert law.forms["multipliers"] == "exact" and law.forms["cdf"] == "exact"


def test_the_uniform_law_is_the_full_derivations_law():
    # the full route recognises the multiplier 0 from its numeric root and verifies it exactly
    for constraints in ((Support(0, 7200), Mean(3600)), (Support(2, 9), Mean(R(11, 2)))):
        derive.cache_clear()
        full = derive(*constraints, digits=30)
        law = derive(*constraints)
        with _full_route_forbidden():
            assert law.closed_form == full.closed_form
        assert law.multipliers == full.multipliers
        assert (law.pdf, law.cdf, law.sf) == (full.pdf, full.cdf, full.sf)


# alpha = 1/b up to 20 and kappa0 of a few digits: the writer's exact powers kappa0**(alpha + 1)
# stay small (at alpha = 100 and kappa0 = 3020964/709 sympy overflows a float on them, and the
# full route, which folds such constants to floats, writes the law instead)
@settings(max_examples=15, deadline=None)
@given(st.integers(1, 400), st.integers(5, 300), st.fractions(R(1, 100), 10 ** 4, max_denominator=100),
       st.permutations(range(4)))
def test_the_generalized_log_laplace_law_is_written_from_its_constraints(a100, b100, k0, order):
    a, b, k0 = R(a100, 100), R(b100, 100), R(k0.numerator, k0.denominator)
    constraints = [Support(0, oo), LogMoment(a, k0, side="below"), LogMoment(b, k0, side="above"),
                   ContinuousAt(k0)]
    law = derive(*[constraints[i] for i in order])
    with _full_route_forbidden():
        law.pdf
    assert law.forms["multipliers"] == "exact" and law.breakpoints == (0, k0, oo)
    # reference: the paper's Appendix C, by hand: beta = 1/a, alpha = 1/b, p = alpha/(alpha + beta);
    # S = 1 - p (x/k0)**beta below k0 and (1 - p) (k0/x)**alpha above, f = -S'
    beta, alpha = 1 / a, 1 / b
    p = alpha / (alpha + beta)
    with mpmath.workdps(30):
        for x in (k0 / 1000, k0 / 2, k0 * R(999, 1000), k0, 2 * k0, 1000 * k0):
            below = x < k0
            expected_sf = 1 - p * (x / k0) ** beta if below else (1 - p) * (k0 / x) ** alpha
            expected_pdf = p * beta / k0 * (x / k0) ** (beta - 1) if below else (1 - p) * alpha / k0 * (k0 / x) ** (alpha + 1)
            for part, expected in ((law.sf, expected_sf), (law.pdf, expected_pdf)):
                # at x to 50 digits: a double's rounding, times a power up to 100, would be seen
                value = mpmath.mpf(sympy.N(part.subs(kappa, sympy.Float(x, 50)), 40))
                reference = mpmath.mpf(sympy.N(expected, 40))
                assert abs(value - reference) <= 1e-20 * max(1, abs(reference)), (part, x)
        # the density is continuous at k0: its two pieces meet there
        left, right = (mpmath.mpf(sympy.N(piece.subs(kappa, sympy.Float(k0, 50)), 40)) for piece in law._pdf_pieces)
        assert abs(left - right) <= 1e-25 * abs(right)
    # the record states the continuity condition, which the multipliers meet exactly
    continuity = law.derivation.equations[[type(t[4]) for t in law.derivation.terms].index(ContinuousAt)]
    assert sympy.simplify(continuity.lhs.subs(law.multipliers)) == 0
    # the double-precision law the scorer uses is the same law: its utilities (in [0, 1]) to 1e-13
    # (not relatively: beyond 3 k0 a tail of power 21 falls to 1e-10, where the multipliers'
    # 1e-13 times the power and log(3) leaves a few 1e-12 of the value)
    x = np.array([float(k0) / 3, float(k0) * 3])
    np.testing.assert_allclose(law.numeric.sf(x), [float(_at(law.sf, v)) for v in x], rtol=0, atol=1e-13)


#: sets with bounds the writer takes: the active set the fast route found, written out and
#: checked by the KKT conditions (the full route searches the active sets with sympy's integrals)
BOUNDED = [
    (Support(0, 10), Mean(R(3, 2), relation="<="), TailProbability(1, R(1, 20), relation="<=")),
    (Support(0, oo), Mean(5, relation="<="), LogMoment(1, 1)),     # binds: the gamma law
    (Support(0, 10), Mean(3, relation="<=")),                      # binds: a truncated exponential
    (Support(0, 10), Mean(7, relation="<=")),                      # room to spare: the uniform law
    (Support(1, 100), LogMoment(2, 10, relation=">=")),
    (Support(0, oo), Mean(4), Moment(kappa ** 2, 20, relation="<=")),
    (Support(0, 100), Mean(20), TailProbability(10, R(1, 2), relation=">=")),
]


@pytest.mark.parametrize("constraints", BOUNDED, ids=lambda c: ", ".join(map(repr, c)))
def test_a_law_with_bounds_is_written_for_its_active_set(constraints):
    derive.cache_clear()
    full = derive(*constraints, digits=30)
    law = derive(*constraints)
    with _full_route_forbidden():
        law.pdf
    assert law.active == full.active and law.closed_form == full.closed_form
    assert law.forms == full.forms | {"numbers": "double precision"}
    assert law.multipliers.keys() == full.multipliers.keys()
    for symbol, value in full.multipliers.items():
        assert abs(sympy.N(law.multipliers[symbol] - value, 40)) <= 1e-27 * max(1, abs(sympy.N(value, 40)))
    top = float(law.support[1]) if law.support[1] != oo else 40.0
    for x in (top * f for f in (1e-3, 0.05, 0.3, 0.7, 0.999)):
        for part in ("pdf", "cdf", "sf"):
            mine, reference = _at(getattr(law, part), x), _at(getattr(full, part), x)
            assert abs(mine - reference) <= 1e-20 * max(1, abs(reference)), (part, x)
    # the KKT record: each constraint, its multiplier's name, whether it binds, and E[g] there
    assert len(law.derivation.kkt) == len(full.derivation.kkt) == 1
    (condition, rows), (full_condition, full_rows) = law.derivation.kkt[0], full.derivation.kkt[0]
    assert condition == full_condition == sympy.true
    assert [(r[0], r[1], r[4]) for r in rows] == [(r[0], r[1], r[4]) for r in full_rows]
    for mine, theirs in zip(rows, full_rows):
        for k in (2, 3):
            assert abs(sympy.N(mine[k] - theirs[k], 40)) <= 1e-25 * max(1, abs(sympy.N(theirs[k], 40)))
    assert [t[1:] for t in law.derivation.terms] == [t[1:] for t in full.derivation.terms]


def test_a_bare_support_by_the_numeric_method_is_the_uniform_law():
    # reading its pdf raised a raw IndexError (mpmath's empty matrix, no multiplier to polish)
    derive.cache_clear()
    law = derive(Support(0, 10), method="numeric")
    full = derive(Support(0, 10), method="numeric", digits=30)
    with _full_route_forbidden():
        assert law.pdf == full.pdf
    assert float(law.multipliers[sympy.Symbol("lambda_0", real=True)]) == pytest.approx(math.log(10) - 1, rel=1e-15)


def test_a_law_with_bounds_read_off_the_main_thread_is_the_same_law():
    # there no alarm can bound the KKT check's sympy integrals: the full route builds the law, in
    # a process that can be stopped, as before
    from concurrent.futures import ThreadPoolExecutor

    constraints = (Support(0, 10), Mean(3, relation="<="))
    derive.cache_clear()
    written = derive(*constraints)
    with _full_route_forbidden():
        written.pdf
    derive.cache_clear()
    checked_here = []  # threads of this process that ran the KKT check (the full route's child is another)
    check = engine.kkt_rows

    def kkt_rows(*arguments):
        checked_here.append(threading.current_thread() is threading.main_thread())
        return check(*arguments)
    with mock.patch.object(engine, "kkt_rows", kkt_rows), ThreadPoolExecutor(1) as pool:
        law = pool.submit(derive, *constraints, timeout=120).result()
        pool.submit(getattr, law, "pdf").result()
    assert False not in checked_here
    assert law.forms == written.forms and law.active == written.active
    for x in (0.5, 3.0, 9.5):
        assert abs(_at(law.sf, x) - _at(written.sf, x)) <= 1e-20


@pytest.mark.parametrize("value, small", [(0.5, True), (2 / 7, True), (-5 / 12, True), (1 / 3 + 1e-12, True),
                                          (1000.0, True), (0.1234567, False), (3.0000001, False),
                                          (1000.3, False), (math.inf, False), (math.nan, False)])
def test_the_writer_leaves_to_the_full_route_the_fractions_it_recognises(value, small):
    # the writer's test is the full route's own (exact._small_fraction at a typical size of 1),
    # by hand: a fraction of denominator 1 to 12 within 1e-9 relative, at most 1000
    from maxent_util.maxent import direct

    assert direct._near_small_fraction(value) is small
