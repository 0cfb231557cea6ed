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
import maxent_util.maxent.fast as fast_module
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


# -- the written tails evaluated in place, block by block, straight into the output

#: written laws of every kind of segment: c1 < 0, c1 > 0, c1 = 0 (tail probabilities alone),
#: several segments, u = log(kappa) from 0 (log 0 = -inf) and on a half line, and a law whose
#: second segment stays on the panels
IN_PLACE_LAWS = {
    "mean below the middle": (Support(0, 3600), Mean(1200)),
    "mean above the middle": (Support(0, 3600), Mean(2400)),
    "two tail probabilities": (Support(0, 3600), TailProbability(600, 0.5), TailProbability(3000, 0.9)),
    "a mean and a tail probability": (Support(0, 3600), Mean(900), TailProbability(600, 0.5)),
    "a power from 0": (Support(0, 100), LogMoment(2, 10)),
    "a power on a half line": (Support(2, "oo"), LogMoment(0.5, 3)),
    "two powers": (Support(1, "oo"), LogMoment(1, 10, side="below"), LogMoment(0.5, 10, side="above")),
    "a shifted exponential": (Support(5, "oo"), Mean(50)),
    "partly on the panels": (Support(0, 100), Mean(30), LogMoment(1, 10, side="above")),
}


@pytest.fixture(scope="module")
def in_place_laws():
    return {name: mu.derive(*constraints).numeric for name, constraints in IN_PLACE_LAWS.items()}


def _reference_tail(numeric, x: float, upper_tail: bool) -> float | None:
    """An independent route to a written tail at an inner captime: the law's own segment masses
    and c1, the integral of exp(c1 u) over the captime's part of its segment and over the whole
    segment in closed form, exp(c1 a) expm1(c1 (b - a)) / c1, in mpmath at 30 digits (no shift
    to the segment's top); None where the segment is on the panels."""
    ends = numeric.problem.ends
    s = min(max(int(np.searchsorted(ends, x, side="right")) - 1, 0), len(numeric.problem.start) - 1)
    if not numeric._written_segments()[s]:
        return None
    with mpmath.workdps(30):
        def u(value):
            value = mpmath.mpf(float(value))
            return mpmath.log(value) if numeric._in_log[s] else value

        def integral(a, b):
            c1 = mpmath.mpf(float(numeric._c1[s]))
            if c1 == 0:
                return b - a
            if not mpmath.isfinite(a):  # u = log(kappa) from kappa = 0 (there c1 > 0)
                return mpmath.exp(c1 * b) / c1
            return mpmath.exp(c1 * a) * (mpmath.expm1(c1 * (b - a)) if mpmath.isfinite(b) else -1) / c1

        low, high, point = u(ends[s]), u(ends[s + 1]), u(x)
        part = integral(point, high) if upper_tail else integral(low, point)
        beyond = (numeric._segment_after if upper_tail else numeric._segment_before)[s]
        return float(mpmath.mpf(float(beyond)) + mpmath.mpf(float(numeric._segment_mass[s])) * part / integral(low, high))


def _runtimes_of(numeric):
    low, high = numeric.support
    top = high if math.isfinite(high) else 50 * max(float(numeric.mean()), 1.0)
    ends = [float(end) for end in numeric.problem.ends if math.isfinite(end)]
    beside = [np.nextafter(end, side) for end in ends for side in (-np.inf, np.inf)]
    return (st.floats(min_value=low - 1, max_value=top) | st.sampled_from(ends + beside)
            | st.sampled_from([0.0, -0.0, -1.0, math.inf, -math.inf, math.nan, 1e300]))


@settings(max_examples=60, deadline=None)
@given(data=st.data(), name=st.sampled_from(sorted(IN_PLACE_LAWS)), block=st.integers(1, 9))
def test_written_tails_in_blocks_are_the_mpmath_tails(in_place_laws, data, name, block):
    numeric = in_place_laws[name]
    x = np.array(data.draw(st.lists(_runtimes_of(numeric), min_size=1, max_size=40)))
    low, high = numeric.support
    whole = {upper: numeric._tail(x, upper) for upper in (True, False)}
    saved = fast_module._TAIL_BLOCK
    fast_module._TAIL_BLOCK = block  # many blocks, of a length that divides nothing
    try:
        blocks = {upper: numeric._tail(x.reshape(1, -1), upper).ravel() for upper in (True, False)}
    finally:
        fast_module._TAIL_BLOCK = saved
    nan = np.isnan(x)
    for upper in (True, False):
        values = blocks[upper]
        assert np.array_equal(np.isnan(values), nan) and np.array_equal(np.isnan(whole[upper]), nan)
        # every runtime is valued on its own: blocks change nothing
        np.testing.assert_array_max_ulp(values[~nan], whole[upper][~nan], maxulp=1)
        assert np.all((values[~nan] >= 0) & (values[~nan] <= 1))
        assert np.all(values[x <= low] == (1.0 if upper else 0.0))
        assert np.all(values[x >= high] == (0.0 if upper else 1.0))
        for runtime, value in zip(x.tolist(), values.tolist()):
            if low < runtime < high:
                expected = _reference_tail(numeric, runtime, upper)
                if expected is not None:
                    # where u = log(kappa), log() rounds u by up to |u| 1.1e-16: a tail within
                    # a few ulp of log(end) of a segment's end is as far off as that, absolutely
                    segment = np.searchsorted(numeric.problem.ends, runtime, side="right") - 1
                    rounding = 1e-14 if numeric._in_log[min(segment, len(numeric._in_log) - 1)] else 1e-300
                    assert value == pytest.approx(expected, rel=1e-12, abs=rounding), (runtime, upper)
    # S is non-increasing and F non-decreasing (to rounding), and S + F = 1
    order = np.argsort(x[~nan], kind="stable")
    assert np.all(np.diff(blocks[True][~nan][order]) <= 1e-15)
    assert np.all(np.diff(blocks[False][~nan][order]) >= -1e-15)
    np.testing.assert_allclose(blocks[True][~nan] + blocks[False][~nan], 1.0, rtol=0, atol=1e-13)


@settings(max_examples=60, deadline=None)
@given(c1=st.sampled_from([0.0]) | st.floats(-50, 50).filter(lambda v: abs(v) > 1e-12),
       lo=st.floats(-20, 20), width=st.floats(0, 40), beyond=st.sampled_from([0.0, 0.5, 3.0]))
def test_a_share_in_place_is_the_segment_integral(c1, lo, width, beyond):
    """_exponential_share (in place, for runtimes) against _exponential_integral (arrays of
    segments, the masses): the same operations, so the same numbers; and against mpmath."""
    from maxent_util.maxent.fast import _exponential_integral, _exponential_share

    hi = lo + width
    # the segment's top (where its density is largest) at the part's larger end or beyond it
    larger = hi if c1 > 0 else lo
    top = larger + beyond if c1 > 0 else larger - beyond
    expected = _exponential_integral(np.array([c1]), np.array([lo]), np.array([hi]), np.array([top]))
    exponent = None if beyond == 0 or c1 == 0 else np.array([c1 * (larger - top)])
    mine = _exponential_share(c1, np.array([hi - lo]), exponent)
    np.testing.assert_array_max_ulp(mine, expected, maxulp=1)
    with mpmath.workdps(30):
        c, a, b, m = (mpmath.mpf(v) for v in (c1, lo, hi, top))
        # from the part's lower end whatever the slope (the kernel starts from the larger end)
        exact = b - a if c1 == 0 else mpmath.exp(c * (a - m)) * mpmath.expm1(c * (b - a)) / c
    assert float(mine[0]) == pytest.approx(float(exact), rel=1e-13, abs=1e-300)


def test_a_written_survival_function_is_checked_against_mpmath_before_it_scores(monkeypatch):
    """A law's written tails are compared with mpmath (its own masses, each segment's share in
    closed form) before a scorer values anything with them: a wrong share is refused."""
    from maxent_util.errors import MaxEntError
    from maxent_util.scorer import compile_scorer

    good = mu.derive(Support(0, 3600), Mean(1000)).utility()
    assert compile_scorer(good).route == "the law's survival function"
    share = fast_module._exponential_share

    def off_by_a_millionth(c1, width, offset):
        value = share(c1, width, offset)
        value *= 1 + 1e-6  # in place, as the share is
        return value

    monkeypatch.setattr(fast_module, "_exponential_share", off_by_a_millionth)
    wrong = mu.derive(Support(0, 3600), Mean(1100)).utility()  # a fresh law: not yet checked
    with pytest.raises(MaxEntError, match="mpmath at 30 digits"):
        compile_scorer(wrong)


@settings(max_examples=30, deadline=None)
@given(width=st.sampled_from([1.0, 3600.0, 1e5]), share=st.floats(0.01, 0.99),
       fractions=st.lists(st.floats(1e-12, 1 - 1e-12) | st.floats(1 - 1e-3, 1 - 1e-12), min_size=1, max_size=12),
       upper=st.booleans())
def test_a_written_tail_is_within_its_roundings_of_mpmath_in_ulp(width, share, fractions, upper):
    """Both tails of a truncated exponential in ulp of mpmath at 30 digits (the law's own constants
    at the double runtime): at most 2 |c1 (u - top)| ulp from the exponent's two roundings (u - top,
    then times c1, each relative to the exponent), and 10 for the others (the width, its product by
    -|c1|, expm1, exp, the quotient, two products; measured: 3), down to S near the cap, where the
    hand formula a + b exp(c t), a difference of nearby numbers, was measured 6.6e11 ulp off."""
    numeric = mu.derive(Support(0, width), Mean(share * width)).numeric
    x = np.unique(np.array(fractions) * width)
    values = numeric._tail(x, upper)
    in_log, low, high, c1, top, ratio, beyond = numeric._segment_tails(upper)[0]
    assert not in_log
    with mpmath.workdps(30):
        c, m, r = mpmath.mpf(c1), mpmath.mpf(top), mpmath.mpf(ratio)
        for point, value in zip(x.tolist(), values.tolist()):
            p = mpmath.mpf(point)
            a, b = (p, mpmath.mpf(high)) if upper else (mpmath.mpf(low), p)
            exact = r * (b - a if c1 == 0 else mpmath.exp(c * (a - m)) * mpmath.expm1(c * (b - a)) / c)
            if exact < 1e-280:  # an intermediate may be subnormal: less than double precision
                continue
            allowed = (2 * abs(c1 * (point - top)) + 10) * float(np.spacing(float(exact)))
            assert abs(value - float(exact)) <= allowed, (point, upper, value, float(exact))
