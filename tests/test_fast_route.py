"""derive's fast route: laws of numbers in double precision at once, the closed form on demand.

References: the independent convex dual of tests/dual.py (shares no code with the library),
mpmath quadrature of the density written out by hand here, and the closed form the full route
builds (``digits=30``) for the same constraints.
"""

from __future__ import annotations

import math
import pickle

import mpmath
import numpy as np
import pytest
import sympy
from hypothesis import HealthCheck, Phase, assume, given, settings, strategies as st

import dual
import strategies
import maxent_util as mu
from maxent_util import LogMoment, Mean, Moment, SquaredLogDeviation, Support, TailProbability, derive, kappa
from maxent_util.errors import InfeasibleError, MaxEntError
from maxent_util.maxent.fast import fast_problem
from maxent_util._timing import SymbolicTimeout, time_limit

#: seconds the dual may take on a drawn set
DUAL_SECONDS = 3.0

R = sympy.Rational

#: sets the fast route takes, with the dual's description of the same problem
CASES = [
    ((Support(0, 10), Mean(R(33, 10))), dual.Problem(0.0, 10.0, (dual.mean(3.3),))),
    ((Support(0, "oo"), Mean(2)), dual.Problem(0.0, math.inf, (dual.mean(2.0),))),
    ((Support(1, "oo"), LogMoment(R(1, 2))), dual.Problem(1.0, math.inf, (dual.log_moment(0.5),))),
    ((Support(R(7, 5), R(4089, 100)), LogMoment(R(253, 1000), 10), SquaredLogDeviation(R(771, 1000), R(66, 5))),
     dual.Problem(1.4, 40.89, (dual.log_moment(0.253, 10.0), dual.squared_log_deviation(0.771, 13.2)))),
    ((Support(0, 100), TailProbability(5, R(3, 10)), Mean(30)),
     dual.Problem(0.0, 100.0, (dual.tail_probability(5.0, 0.3), dual.mean(30.0)))),
    ((Support(R(1, 2), "oo"), LogMoment(R(7, 10), 2, side="above"), Mean(4)),
     dual.Problem(0.5, math.inf, (dual.log_moment(0.7, 2.0, side="above"), dual.mean(4.0)))),
    ((Support(0, "oo"), LogMoment(R(-2399, 2500), R(201, 10)), Mean(R(399, 10))),
     dual.Problem(0.0, math.inf, (dual.log_moment(-0.9596, 20.1), dual.mean(39.9)))),
]


def _points(law) -> np.ndarray:
    low, high = (float(e) for e in law.numeric.support)
    top = high if math.isfinite(high) else low + 50 * max(law.numeric.mean() - low, 1e-3)
    return np.unique(np.concatenate([np.linspace(low, top, 9)[1:-1], [low + (top - low) * 1e-3]]))


def _split_points(law, low: float, high: float) -> list:
    """Where mpmath's quadrature is split: the constraints' breakpoints, and (as hints of where
    a narrow peak lies, not as values) at most 40 of the library's panel ends.  The integrand
    is evaluated by mpmath alone."""
    numeric = law.numeric
    problem = numeric.problem
    with np.errstate(over="ignore"):  # exp of a linear piece's ends is computed, then not taken
        ends = np.where(problem.logarithmic[numeric._segment], np.exp(numeric._left), numeric._left)
    ends = ends[(ends > low) & (ends < high)]
    ends = ends[:: max(1, len(ends) // 40)]
    points = sorted({low, *(float(e) for e in problem.ends if low < e < high), *map(float, ends)})
    points.append(mpmath.inf if math.isinf(high) else high)
    return points


def _feature_at(f, k):
    """g(k) of one of the fast route's features, in mpmath, from its coefficients."""
    value = f.a * k + f.a2 * k * k + f.e
    if f.b or f.d:
        s = mpmath.log(k) - f.c
        value += f.b * s + f.d * s * s
    if f.extra is not None:
        value += mpmath.mpf(float(f.extra(np.array([float(k)]))[0]))
    return value


def _mpmath_density(law):
    """k -> exp(-1 - lambda_0 - sum lambda_i g_i(k) 1_i(k)), written out from the constraints'
    features (not from the library's quadrature)."""
    numeric = law.numeric
    lam = [mpmath.mpf(float(v)) for v in numeric.multipliers]
    lambda_0 = mpmath.mpf(numeric.lambda_0)
    features = numeric.problem.features

    def density(k):
        return mpmath.exp(-1 - lambda_0 - sum(l * _feature_at(f, k) for l, f in zip(lam, features)
                                              if f.lower <= k < f.upper))
    return density


def _mpmath_sf(law, x: float) -> float:
    """S(x) by mpmath quadrature of the density."""
    with mpmath.workdps(25):
        return float(mpmath.quad(_mpmath_density(law), _split_points(law, x, law.numeric.support[1])))


def _mpmath_expectation(law, feature) -> float:
    """E[g] of one feature under the law, by mpmath quadrature over the feature's region."""
    numeric = law.numeric
    density = _mpmath_density(law)
    low, high = max(feature.lower, numeric.support[0]), min(feature.upper, numeric.support[1])
    with mpmath.workdps(25):
        return float(mpmath.quad(lambda k: _feature_at(feature, k) * density(k), _split_points(law, low, high)))


@pytest.mark.parametrize("constraints, problem", CASES, ids=lambda c: str(c)[:60])
def test_fast_law_is_the_duals_law(constraints, problem):
    derive.cache_clear()  # a law another test read in this process is built already
    law = derive(*constraints)
    assert law.numeric is not None and not law.built
    reference = dual.solve(problem)
    # log Z - 1 is lambda_0 whatever the features' scaling
    assert law.numeric.lambda_0 == pytest.approx(reference.log_z - 1, rel=1e-9, abs=1e-9)
    points = _points(law)
    got = law.numeric.sf(points)
    expected = np.array([reference.sf(float(x)) for x in points])
    np.testing.assert_allclose(got, expected, rtol=1e-7, atol=1e-10)
    # F + S = 1 to the rounding of exponents as large as log(1e-300) (|exponent| * 1e-16)
    np.testing.assert_allclose(law.numeric.cdf(points) + got, 1.0, rtol=0, atol=1e-13)


@pytest.mark.parametrize("constraints, problem", CASES[:4], ids=lambda c: str(c)[:60])
def test_fast_law_survival_matches_mpmath_quadrature(constraints, problem):
    law = derive(*constraints)
    for x in _points(law)[::3]:
        assert law.numeric.sf(x) == pytest.approx(_mpmath_sf(law, float(x)), rel=1e-10, abs=1e-15)


def test_closed_form_is_built_on_first_read_and_agrees():
    derive.cache_clear()  # a law another test read in this process is built already
    law = derive(Support(0, 10), Mean(R(33, 10)))
    assert law.forms == {"numbers": "double precision", "multipliers": "built on first read",
                         "pdf": "built on first read", "cdf": "built on first read"}
    u = law.utility()
    fast_values = u([0.5, 3.0, 9.0])
    assert not law.built  # the utility was valued without the closed form
    pdf = law.pdf  # builds it
    assert law.built and pdf.has(kappa)
    assert law.forms["multipliers"] == "numeric (30 digits)"
    lam = law.multipliers[sympy.Symbol("lambda_1", real=True)]
    assert float(lam) == pytest.approx(float(law.numeric.multipliers[0]), rel=1e-12)
    assert float(law.multipliers[sympy.Symbol("lambda_0", real=True)]) == pytest.approx(law.numeric.lambda_0,
                                                                                       rel=1e-12)
    # the closed form, compiled, gives the values the double-precision law gave
    closed = sympy.lambdify(mu.t, u.expr.args[0][0])
    np.testing.assert_allclose(fast_values, [closed(x) for x in (0.5, 3.0, 9.0)], rtol=1e-12)


def test_exact_closed_forms_are_still_exact_when_read():
    law = derive(Support(0, "oo"), Mean(2))
    assert sympy.simplify(law.pdf - sympy.exp(-kappa / 2) / 2) == 0
    assert law.closed_form and law.forms["multipliers"] == "exact"


def test_a_fast_law_pickles_with_its_numbers_and_builds_its_closed_form_on_demand():
    derive.cache_clear()  # a law another test read in this process is built already
    law = derive(Support(1, "oo"), LogMoment(R(1, 2)))
    copy = pickle.loads(pickle.dumps(law))
    assert not copy.built and copy == law
    np.testing.assert_array_equal(copy.numeric.sf([2.0, 4.0]), law.numeric.sf([2.0, 4.0]))
    assert float(copy.sf.subs(kappa, 4)) == pytest.approx(law.numeric.sf(4.0), rel=1e-12)
    assert copy.built


def test_sets_the_fast_route_does_not_take_go_the_full_way():
    # symbolic value, a side bound no law meets (the full route explains why)
    assert derive(Support(0, "oo"), Mean("m")).numeric is None
    with pytest.raises(InfeasibleError):
        derive(Support(0, R(657, 25)), LogMoment(R(699, 500), R(39, 5), side="above"))
    with pytest.raises(MaxEntError):
        derive(Support(0, 10), Mean(12))


def test_a_fast_law_serves_every_timeout_and_builds_under_its_own():
    constraints = (Support(0, 10), Mean(R(23, 10)))
    first = derive(*constraints, timeout=60)
    again = derive(*constraints, timeout=45)
    assert again == first and again._timeout == 45 and first._timeout == 60
    assert again.numeric is first.numeric  # solved once
    assert derive(*constraints, timeout=60) is first


def test_a_fast_law_keeps_a_microsecond_limit():
    with pytest.raises(mu.TimeLimitError, match="time limit"):
        derive(Support(0, "oo"), Mean(R(2417, 100)), timeout=1e-6)


def test_digits_above_15_take_the_full_route_at_once():
    law = derive(Support(0, 10), Mean(R(33, 10)), digits=30)
    assert law.built and law.numeric is None


def test_kappa_squared_moment():
    # E[kappa] = 3, E[kappa**2] = 12 on [0, oo): a truncated normal; moments by mpmath quadrature
    law = derive(Support(0, "oo"), Mean(3), Moment(kappa ** 2, 12))
    l1, l2 = (mpmath.mpf(float(v)) for v in law.numeric.multipliers)
    z = mpmath.quad(lambda k: mpmath.exp(-l1 * k - l2 * k * k), [0, mpmath.inf])
    m1 = mpmath.quad(lambda k: k * mpmath.exp(-l1 * k - l2 * k * k), [0, mpmath.inf]) / z
    m2 = mpmath.quad(lambda k: k * k * mpmath.exp(-l1 * k - l2 * k * k), [0, mpmath.inf]) / z
    assert float(m1) == pytest.approx(3, rel=1e-11)
    assert float(m2) == pytest.approx(12, rel=1e-11)
    assert law.numeric.lambda_0 == pytest.approx(float(mpmath.log(z)) - 1, rel=1e-11)


class _Drawn:
    """A drawn set's law by the fast route alone, shaped like derive's (``numeric``)."""

    def __init__(self, numeric) -> None:
        self.numeric = numeric


@settings(max_examples=10, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(strategies.constraint_sets())
def test_fast_route_agrees_with_the_dual_on_drawn_sets(spec):
    # the fast route by itself: a set it does not take goes the full route, which
    # tests/test_numbers_properties.py checks against the same dual
    problem = fast_problem(spec.constraints())
    numeric = None if problem is None else problem.solve()
    if numeric is None:
        return
    law = _Drawn(numeric)
    # the law meets every constraint: mpmath quadrature of its density, written out here
    for feature in numeric.problem.features:
        found = _mpmath_expectation(law, feature)
        if feature.sign == 0:
            assert found == pytest.approx(feature.value, rel=1e-8, abs=1e-9), spec.call()
        else:  # E[g] <= v (sign +1) or >= v (sign -1), to the same slack
            assert feature.sign * (found - feature.value) <= 1e-8 * max(1.0, abs(feature.value)) + 1e-9, spec.call()
    try:
        # the dual's own solver takes minutes on some sets: it is a reference only where it
        # settles within seconds, and the quadrature check above holds for every set
        with np.errstate(all="ignore"), time_limit(DUAL_SECONDS):
            reference = dual.solve(spec.problem())
    except (dual.NoLaw, SymbolicTimeout):
        return  # the dual refuses some sets that have a law (narrow log-normals): the check above stands
    points = _points(law)
    expected = np.array([reference.sf(float(x)) for x in points])
    np.testing.assert_allclose(numeric.sf(points), expected, rtol=1e-6, atol=1e-9, err_msg=spec.call())


@settings(max_examples=25, deadline=None, derandomize=True, database=None)
@given(st.floats(0.05, 0.95), st.floats(0.5, 1e4))
def test_truncated_exponential_by_its_one_equation(fraction, upper):
    # Support(0, b), Mean(v): f = l exp(-l k) / (1 - exp(-l b)); E = 1/l - b/(exp(l b) - 1) = v,
    # solved here by mpmath's root finder (lambda = 0 at v = b/2)
    v = fraction * upper
    law = derive(Support(0, upper), Mean(v))
    assume(law.numeric is not None)

    def gap(l):
        return 1 / l - upper / mpmath.expm1(l * upper) - v

    found = float(law.numeric.multipliers[0])
    if v == upper / 2:
        assert abs(found) <= 1e-12 / upper  # the uniform law: lambda = 0 by symmetry
        return
    with mpmath.workdps(60):  # 1/l - b/(exp(l b) - 1) cancels near l = 0: digits to spare
        root = mpmath.findroot(gap, found if abs(found) > 1e-6 / upper else 1e-6 / upper)
    assert found == pytest.approx(float(root), rel=1e-9, abs=1e-12 / upper)


def test_derive_many_gives_derives_laws_with_warm_starts():
    values = [R(v, 10) for v in range(11, 90, 7)]
    sets = [(Support(0, 10), Mean(v)) for v in values]
    derive.cache_clear()
    many = mu.derive_many(sets)
    derive.cache_clear()
    one_by_one = [derive(*s) for s in sets]
    assert len(many) == len(sets)
    for a, b, v in zip(many, one_by_one, values):
        assert a == b and a.numeric is not None
        assert float(a.numeric.multipliers[0]) == pytest.approx(float(b.numeric.multipliers[0]), rel=1e-10, abs=1e-13)
        assert a.numeric.mean() == pytest.approx(float(v), rel=1e-12)


def test_derive_many_mixes_routes_and_refuses_like_derive():
    laws = mu.derive_many([(Support(0, 10), Mean(3)), (Support(0, "oo"), Mean("m")), [Mean(2)]])
    assert laws[0].numeric is not None and laws[1].numeric is None and laws[2].numeric is not None
    with pytest.raises(mu.ConstraintError, match="constraint_sets"):
        mu.derive_many(Mean(2))
    with pytest.raises(mu.ConstraintError, match="digits"):
        mu.derive_many([(Mean(2),)], digits=3)
    with pytest.raises(MaxEntError):
        mu.derive_many([(Support(0, 10), Mean(3)), (Support(0, 10), Mean(12))])


def test_score_and_rank_value_a_fast_law_without_building_its_closed_form():
    derive.cache_clear()  # a law another test read in this process is built already
    import pandas as pd

    law = derive(Support(0, 100), Mean(R(173, 10)))
    runtimes = [1.0, 5.0, 50.0, 200.0]
    estimate = mu.score(runtimes, law.utility()).estimate
    table = pd.DataFrame({"algorithm": ["a"] * 2 + ["b"] * 2, "instance": ["i", "j"] * 2,
                          "runtime": [1.0, 50.0, 5.0, 200.0], "status": ["solved"] * 4,
                          "cutoff": [300.0] * 4})
    ranked = mu.rank(table, {"law": law.utility()})
    assert not law.built
    # the same numbers from the closed form, compiled (reference: the full route's own utility)
    closed = derive(Support(0, 100), Mean(R(173, 10)), digits=30).utility()
    assert estimate == pytest.approx(float(np.mean(closed(np.array(runtimes)))), rel=1e-12)
    assert ranked.loc["a", "law"] == pytest.approx(float(np.mean(closed(np.array([1.0, 50.0])))), rel=1e-12)


# ---------------------------------------------------------------------------
# one dual solver: the cases that had two answers, and drawn sets against the dual


def _typed(draw, low: float, high: float) -> str:
    """A number between low and high (uniform in log) as a person types it, 2 to 4 digits."""
    x = math.exp(draw(st.floats(math.log(low), math.log(high))))
    return strategies.decimal_text(x, draw(st.integers(2, 4)))


@st.composite
def _tail_sets(draw):
    """Sets with Moment(kappa**2) beside one-sided LogMoments and a Mean, any of them a bound,
    at a scale from 1e-2 to 1e5: (constraints, the dual's problem)."""
    scale = float(_typed(draw, 1e-2, 1e5))
    upper = None if draw(st.booleans()) else _typed(draw, 1.5 * scale, 20 * scale)
    relations = st.sampled_from(("==", "==", "<=", ">="))
    constraints, features = [], []
    kinds = draw(st.lists(st.sampled_from(("square", "above", "below", "mean")), min_size=1, max_size=3,
                          unique=True))
    if "square" not in kinds and draw(st.booleans()):
        kinds.append("square")
    for kind in kinds:
        relation = draw(relations)
        stated = {} if relation == "==" else {"relation": relation}
        if kind == "square":
            v = _typed(draw, 0.3 * scale * scale, 3 * scale * scale)
            constraints.append(Moment(kappa ** 2, v, **stated))
            features.append(dual.moment("kappa**2", dual.typed(v), relation=relation))
        elif kind == "mean":
            v = _typed(draw, 0.3 * scale, 1.5 * scale)
            constraints.append(Mean(v, **stated))
            features.append(dual.mean(dual.typed(v), relation))
        else:
            k0 = _typed(draw, 0.2 * scale, 1.2 * scale)
            # above kappa0 on a bounded support, E[log(kappa/kappa0)] is below log(upper/kappa0)
            # (a value past it is met only with no mass above kappa0: not drawn here)
            room = 1.5 if upper is None or kind == "below" else 0.8 * math.log(dual.typed(upper) / dual.typed(k0))
            v = _typed(draw, 0.03 * room, room)
            constraints.append(LogMoment(v, k0, side=kind, **stated))
            features.append(dual.log_moment(dual.typed(v), dual.typed(k0), relation, side=kind))
    high = math.inf if upper is None else dual.typed(upper)
    return ((Support(0, "oo" if upper is None else upper), *constraints),
            dual.Problem(0.0, high, tuple(features)))


@settings(max_examples=20, deadline=None, derandomize=True, database=None,
          phases=(Phase.explicit, Phase.generate),  # a failure is reported as drawn: shrinking takes minutes
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(_tail_sets())
def test_drawn_tail_sets_give_the_duals_law(drawn):
    constraints, problem = drawn
    try:
        with np.errstate(all="ignore"), time_limit(DUAL_SECONDS):
            reference = dual.solve(problem)
    except (dual.NoLaw, SymbolicTimeout):
        assume(False)
    law = derive(*constraints)  # a law exists (the dual found it): no refusal
    shown = ", ".join(map(repr, constraints))
    assert law.numeric is not None, shown
    points = _points(law)
    expected = np.array([reference.sf(float(x)) for x in points])
    np.testing.assert_allclose(law.numeric.sf(points), expected, rtol=1e-6, atol=1e-9, err_msg=shown)
    assert law.numeric.lambda_0 == pytest.approx(reference.log_z - 1, rel=1e-7, abs=1e-7), shown
    # the law meets every constraint: its bounds by mpmath quadrature of its density
    for feature, constraint in zip(law.numeric.problem.features, constraints[1:]):
        found = _mpmath_expectation(law, feature)
        slack = 1e-8 * max(1.0, abs(feature.value)) + 1e-9
        if constraint.relation == "==":
            assert found == pytest.approx(feature.value, rel=1e-8, abs=1e-9), shown
        else:
            assert feature.sign * (found - feature.value) <= slack, shown


def test_a_one_sided_log_moment_beside_kappa_squared_keeps_both_multipliers():
    # it came out [0, 3]: a law with E[kappa**2] infinite whose sf disagreed with its utility
    law = derive(Support(0, "oo"), Moment(kappa ** 2, 2), LogMoment(R(1, 2), 1, side="above"))
    reference = dual.solve(dual.Problem(0.0, math.inf, (dual.moment("kappa**2", 2.0),
                                                         dual.log_moment(0.5, 1.0, side="above"))))
    l2, l_above = (float(v) for v in law.numeric.multipliers)
    assert l2 > 0.1  # the Gaussian tail that keeps E[kappa**2] finite
    # derive's multipliers from the dual's (scaled features, the opposite sign)
    assert l2 == pytest.approx(-float(reference.multipliers[0]) / 2.0, rel=1e-7)
    assert l_above == pytest.approx(-float(reference.multipliers[1]) / 0.5, rel=1e-7)
    points = np.array([0.3, 1.0, 2.0, 4.0])
    np.testing.assert_allclose(law.numeric.sf(points), [reference.sf(x) for x in points], rtol=1e-7)
    feature = law.numeric.problem.features[0]
    assert _mpmath_expectation(law, feature) == pytest.approx(2.0, rel=1e-10)


def test_a_gamma_law_by_derive_and_by_derive_many_is_one_law():
    # Mean(307), LogMoment(1.2, 5): a gamma law k**(a-1) exp(-b k), a/b = 307 and
    # digamma(a) - log(b) = 1.2 + log(5), solved here by mpmath's root finder
    with mpmath.workdps(30):
        a = mpmath.findroot(lambda a: mpmath.digamma(a) - mpmath.log(a / 307) - 1.2 - mpmath.log(5), 0.25)
    derive.cache_clear()
    law = derive(Support(0, "oo"), Mean(307), LogMoment(R(6, 5), 5))
    assert float(law.numeric.multipliers[0]) == pytest.approx(float(a / 307), rel=1e-12)
    assert float(law.numeric.multipliers[1]) == pytest.approx(float(1 - a), rel=1e-12)
    derive.cache_clear()
    sweep = mu.derive_many([(Support(0, "oo"), Mean(v), LogMoment(R(6, 5), 5)) for v in (290, 295, 300, 303, 307)])
    np.testing.assert_allclose(sweep[-1].numeric.multipliers, law.numeric.multipliers, rtol=1e-13, atol=0)
    assert sweep[-1].numeric.lambda_0 == pytest.approx(law.numeric.lambda_0, rel=1e-13)


def test_a_supremum_not_attained_is_not_called_infeasible():
    # uniform(0, 1.258) meets E[log(kappa/0.94)**2] = 1.226**2; the entropy's supremum on
    # [0, 3.13] (the uniform law's) is approached by moving a vanishing mass towards 0
    with pytest.raises(mu.MaximumNotAttainedError, match="towards kappa -> 0"):
        derive(Support(0, R(313, 100)), SquaredLogDeviation(R(613, 500), R(47, 50)))


@pytest.mark.parametrize("constraints", [
    (Support(0, "oo"), SquaredLogDeviation(1e-300, 1), LogMoment(0, 1)),
    (Support(0, "oo"), SquaredLogDeviation(R(1, 10 ** 300), 10 ** 300)),
], ids=["sigma 1e-300", "log-normal(1e300, 1e-300)"])
def test_a_spread_no_double_resolves_is_refused_by_name(constraints):
    with pytest.raises(mu.ConstraintError, match="sigma"):
        derive(*constraints)
    with pytest.raises(mu.MaxEntError):
        mu.parse_utility("log_normal(1e300, 1e-300)")
