"""What the fast route shares and reuses to save time: constraint keys spelt without sympy's
printer, a fraction's float without mpmath, one equation solved by its division, a problem's
layout shared by every set of its shape, and a rule's nodes taken from the bisection that chose
its panels.  Each must give what the slow way gives."""

from __future__ import annotations

from fractions import Fraction

import mpmath

import numpy as np
import pytest
import sympy
from hypothesis import given, settings, strategies as st

from conftest import ROOT, run_script
from maxent_util import LogMoment, Mean, Moment, SquaredLogDeviation, Support, kappa
from maxent_util.constraints import _srepr
from maxent_util.maxent import fast
from maxent_util.maxent.fast import _number, _solve, fast_problem

R = sympy.Rational

#: the issue's three named shapes, at a value v in (0, 1)
SHAPES = [
    lambda v: (Support(0, 10), Mean(1 + 8 * v)),
    lambda v: (Support(0, sympy.oo), Mean(5), Moment(kappa ** 2, 30 + 10 * v)),
    lambda v: (LogMoment(v / 2, 10), SquaredLogDeviation(1 + v, 10)),
]
values = st.fractions(min_value=Fraction(1, 20), max_value=Fraction(19, 20), max_denominator=1000).map(
    lambda f: R(f.numerator, f.denominator))


@settings(max_examples=200, deadline=None, derandomize=True, database=None)
@given(st.integers(-10 ** 40, 10 ** 40), st.integers(1, 10 ** 40))
def test_a_fraction_is_spelt_as_srepr_spells_it(p, q):
    value = R(p, q)
    assert _srepr(value) == sympy.srepr(value)
    # the float the fast route reads: correctly rounded, as sympy's own
    assert _number(value) == float(value)


def test_keys_of_values_met_before_and_of_other_values_are_srepr():
    for value in (sympy.oo, -sympy.oo, kappa, kappa ** 2, sympy.log(kappa), sympy.Float("3.7"),
                  sympy.Symbol("alpha", positive=True), sympy.S.Half, sympy.S.Zero, sympy.Integer(-3)):
        assert _srepr(value) == _srepr(value) == sympy.srepr(value)
    assert _srepr("above") == "above" and _srepr(None) is None
    # every constraint's key is the one sympy's printer spells
    for constraint in (Mean(R(1, 3)), Support(0, sympy.oo), Moment(kappa ** 2, 3), SquaredLogDeviation(1, 10),
                       LogMoment(R(1, 2), 10, side="above"), Mean(sympy.Float("0.1")), Mean(4, relation="<=")):
        spelt = (type(constraint).__name__,) + tuple(
            (k, sympy.srepr(v) if isinstance(v, sympy.Basic) else v) for k, v in constraint._arguments.items())
        spelt += (("relation", constraint.relation),) if constraint.relation != "==" else ()
        assert constraint._key() == spelt
    assert Mean(4, relation="<=") != Mean(4) and Mean(R(1, 3)) != Mean(R(1, 4))
    assert Moment(kappa ** 2, 3) == Moment(kappa ** 2, 3) and hash(Moment(kappa ** 2, 3)) == hash(Moment(kappa ** 2, 3))
    assert Moment(kappa ** 2, 3) != Moment(kappa ** 3, 3)


def test_a_number_too_large_for_a_double_is_not_read():
    assert _number(sympy.Integer(10) ** 400) is None
    assert _number(R(1, 10 ** 400)) == 0.0


def test_one_equation_is_solved_as_numpy_solves_it():
    a, b = np.array([[3.0]]), np.array([7.0])
    assert _solve(a, b) == pytest.approx(np.linalg.solve(a, b), rel=1e-15)
    with pytest.raises(np.linalg.LinAlgError):
        _solve(np.array([[0.0]]), b)
    two = np.array([[2.0, 1.0], [1.0, 3.0]])
    np.testing.assert_allclose(_solve(two, np.array([1.0, 2.0])), np.linalg.solve(two, [1.0, 2.0]), rtol=1e-15)


def test_sets_of_one_shape_share_a_read_only_layout():
    first, second = fast_problem((Support(0, 10), Mean(2))), fast_problem((Support(0, 10), Mean(3)))
    assert first.inside is second.inside and first.start is second.start
    assert not first.start.flags.writeable and not first.ends.flags.writeable
    # a mean nearer the top: the segment's variable runs from the top, kappa - 10
    near_top = fast_problem((Support(0, 10), Mean(7)))
    assert near_top.inside is first.inside and float(near_top.start[0]) == -10.0
    assert not near_top.start.flags.writeable and not near_top.stop.flags.writeable
    other = fast_problem((Support(0, 20), Mean(2)))  # another support: another layout
    assert other.stop is not first.stop and float(other.stop[0]) == 20.0
    bound = fast_problem((Support(0, 10), Mean(2, relation="<=")))  # a sign: another layout
    assert bound._bounded and not first._bounded


@settings(max_examples=12, deadline=None, derandomize=True, database=None)
@given(st.sampled_from(range(len(SHAPES))), values, values)
def test_a_law_does_not_depend_on_the_sets_solved_before(shape, v, w):
    constraints = SHAPES[shape](v)
    fast_problem(SHAPES[shape](w)).solve()  # the same shape at another value: its layout kept
    after = fast_problem(constraints).solve()
    fast._layout.cache_clear()
    fast._rungs.cache_clear()
    fast._RUNGS_AT.clear()
    fresh = fast_problem(constraints).solve()
    np.testing.assert_allclose(after.multipliers, fresh.multipliers, rtol=1e-15, atol=0)
    assert after.lambda_0 == pytest.approx(fresh.lambda_0, rel=1e-15)
    # the law keeps neither the halves of its panels nor the search's nodes
    assert after.rule.halves is None and after.problem._ladder is None and after.problem._first_panels is None


@settings(max_examples=12, deadline=None, derandomize=True, database=None)
@given(st.sampled_from(range(len(SHAPES))), values)
def test_a_rules_nodes_are_those_of_its_panels(shape, v):
    # the bisection hands its nodes (and its halves') to the rule, in the rule's order: they
    # must be the nodes the panels have when made from scratch
    problem = fast_problem(SHAPES[shape](v))
    lam = problem.solve().multipliers
    problem = fast_problem(SHAPES[shape](v))
    with np.errstate(all="ignore"):
        rule = problem.rule(lam)
        again = problem.rule(lam)  # its first panels' nodes kept from the first build
        scratch = problem.rule_of_panels(rule.segment, rule.left, rule.right, rule.cut_segment, rule.cut_z)
        middle = (rule.left + rule.right) / 2
        halves = problem._panel_nodes(np.concatenate([rule.segment, rule.segment]),
                                      np.concatenate([rule.left, middle]), np.concatenate([middle, rule.right]))
    assert np.all(np.diff(rule.left)[np.diff(rule.segment) == 0] > 0)  # sorted by segment, then position
    for name in ("left", "right", "segment", "cut_z"):
        np.testing.assert_array_equal(getattr(again, name), getattr(rule, name))
    for name in ("kappa", "weight", "features", "log_jacobian", "cut_features", "abs_features"):
        np.testing.assert_allclose(getattr(rule, name), getattr(scratch, name), rtol=1e-15, atol=0)
        np.testing.assert_allclose(getattr(again, name), getattr(rule, name), rtol=1e-15, atol=0)
    for found, expected in zip(rule.halves, halves):
        np.testing.assert_allclose(found, expected, rtol=1e-15, atol=0)


def test_bare_benchmark_against_another_checkout(capsys, monkeypatch):
    # this checkout against itself, one round: a smoke test of the worker (the times it prints
    # are not checked); both sides derive the same laws
    out = run_script(monkeypatch, capsys, "bench_derive.py", "--bare", "1", "--against", str(ROOT))
    rows = [line for line in out.splitlines() if line.startswith(("Support(", "LogMoment("))]
    assert len(rows) == 6 and "before/after" in out
    for row in rows[3:]:
        assert row.split()[-1] == "0.0e+00"


# ---------------------------------------------------------------------------
# the answer as Newton's start, where it has one equation or a closed form


@settings(max_examples=60, deadline=None, derandomize=True, database=None)
@given(st.floats(1e-9, 1 - 1e-9))
def test_the_truncated_exponentials_equation_is_solved(fraction):
    # reference: mpmath's root of 1/t - 1/(e^t - 1) = fraction at 40 digits
    t = fast._truncated_exponential(fraction)
    with mpmath.workdps(40):
        gap = lambda u: 1 / u - 1 / mpmath.expm1(u) - fraction  # noqa: E731
        start = t if abs(t) > 1e-6 else 1e-6
        reference = float(mpmath.findroot(gap, start)) if abs(fraction - 0.5) > 1e-12 else 0.0
    assert abs(t - reference) <= 1e-12 * max(1.0, abs(reference))


@settings(max_examples=25, deadline=None, derandomize=True, database=None)
@given(st.floats(0, 5), st.floats(0.1, 10), st.floats(0.01, 0.99))
def test_the_truncated_normal_meets_its_two_moments(lower, gap, ratio):
    # reference: the normal law truncated at ``lower``, its moments by mpmath quadrature
    mean = lower + gap
    square = mean * mean + ratio * gap * gap
    found = fast._truncated_normal(lower, mean, square)
    if found is None:  # the truncation point beyond 8 sigmas: left to the usual start
        return
    mu, sigma = (mpmath.mpf(x) for x in found)
    with mpmath.workdps(30):
        density = lambda k: mpmath.exp(-(k - mu) ** 2 / (2 * sigma ** 2))  # noqa: E731
        points = [lower, max(mpmath.mpf(lower), mu) + sigma, mpmath.inf]
        z = mpmath.quad(density, points)
        first = mpmath.quad(lambda k: k * density(k), points) / z
        second = mpmath.quad(lambda k: k * k * density(k), points) / z
    assert float(first) == pytest.approx(mean, rel=1e-9)
    assert float(second) == pytest.approx(square, rel=1e-9)


@settings(max_examples=12, deadline=None, derandomize=True, database=None)
@given(values, values, st.sampled_from([1, 10, 1000]), st.sampled_from([1, 3, 10]))
def test_named_sets_have_the_independent_multipliers(v, w, k1, k2):
    # LogMoment(m, k1), SquaredLogDeviation(s, k2) on (0, oo): log(kappa) is normal with mean
    # m + log k1 and variance s**2 - (m + log k1 - log k2)**2; the density in z = log(kappa),
    # exp(-l_b (z - log k1) - l_d (z - log k2)**2 + z), has l_d = 1/(2 var) and
    # l_b = 1 - (mean - log k2)/var (written here, in mpmath)
    m, s = v / 2, 1 + w + abs(mpmath.log(mpmath.mpf(k1) / k2))
    law = fast_problem((LogMoment(m, k1), SquaredLogDeviation(s, k2))).solve()
    mean = mpmath.mpf(m) + mpmath.log(k1)
    variance = mpmath.mpf(s) ** 2 - (mean - mpmath.log(k2)) ** 2
    expected = [1 - (mean - mpmath.log(k2)) / variance, 1 / (2 * variance)]
    np.testing.assert_allclose(law.multipliers, [float(x) for x in expected], rtol=1e-11, atol=1e-13)


@pytest.mark.parametrize("constraints, error, words", [
    ((Support(0, sympy.oo), Mean(5), Moment(kappa ** 2, 60)), "MaximumNotAttainedError", "supremum"),
    ((Support(0, sympy.oo), Mean(5), Moment(kappa ** 2, 20)), "InfeasibleError", "cannot all hold"),
    ((LogMoment(1, 10), SquaredLogDeviation(R(1, 2), 10)), "InfeasibleError", "cannot all hold"),
    ((Support(0, 10), Mean(10)), "InfeasibleError", "at the edge"),
], ids=["E[k^2] > 2 E[k]^2", "E[k^2] < E[k]^2", "log variance below 0", "mean at the end"])
def test_sets_with_no_law_are_refused_as_before(constraints, error, words):
    # the starts have no answer to offer here: Newton and the full route say why, as before
    # (these errors and words are what the library gave before the starts were added)
    import maxent_util as mu

    with pytest.raises(getattr(mu, error), match=words):
        mu.derive(*constraints, method="numeric")


def test_a_wide_log_normal_is_derived_not_refused():
    # log(kappa) normal with mean 0.554 + log(192) and variance 26.7**2 - (that - log(0.0197))**2
    # (about 618): the full route's root finder stopped at a residual of 5.6e-8 and called the
    # set infeasible; from its closed-form start the fast route settles and checks it
    import maxent_util as mu

    law = mu.derive(LogMoment(R(277, 500), 192), SquaredLogDeviation(R(267, 10), R(197, 10000)), method="numeric")
    mean = mpmath.mpf(277) / 500 + mpmath.log(192)
    variance = (mpmath.mpf(267) / 10) ** 2 - (mean - mpmath.log(mpmath.mpf(197) / 10000)) ** 2
    expected = [1 - (mean - mpmath.log(mpmath.mpf(197) / 10000)) / variance, 1 / (2 * variance)]
    np.testing.assert_allclose(law.numeric.multipliers, [float(x) for x in expected], rtol=1e-10)


@pytest.mark.parametrize("upper, mean", [(153, R(382347, 2500)), (82, R(287, 500000)), (6460, R(5491, 25000))])
def test_a_mean_near_an_end_has_its_truncated_exponential(upper, mean):
    # reference: mpmath's root of 1/l - b/(e^(l b) - 1) = v at 40 digits (the full route's
    # 30-digit numerics stopped at lambda = -16.3533 for the first, which misses the mean by 5e-5)
    import maxent_util as mu

    law = mu.derive(Support(0, upper), Mean(mean), method="numeric")
    found = float(law.numeric.multipliers[0])
    with mpmath.workdps(40):
        v = mpmath.mpf(mean.p) / mean.q
        root = mpmath.findroot(lambda l: 1 / l - upper / mpmath.expm1(l * upper) - v, found)
    assert found == pytest.approx(float(root), rel=1e-12)
    assert law.numeric.mean() == pytest.approx(float(mean), rel=1e-12)
