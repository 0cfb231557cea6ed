"""One law, one utility, whatever route solved it: the same class and the same numbers in every
consumer; values checked once at the door.

References: the default route's double-precision law (itself checked against the independent
dual of tests/dual.py and mpmath in test_fast_route.py) for the other routes; the full route's
exact multiplier (-19/119, solved by hand: E[log(kappa/49600); kappa < 49600] = -1.19 holds for
the density proportional to (49600/kappa)**(19/119) below 49600 and constant above).
"""

from __future__ import annotations

import importlib.util
import json
import pickle
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pandas as pd
import pytest
import sympy
from hypothesis import HealthCheck, given, settings, strategies as st

import maxent_util as mu
from maxent_util import (LogMoment, Mean, Support, Utility, compile_scorer, derive, derive_many, from_json,
                         parse_utility, to_json)
from maxent_util.distribution import CaptimeDistribution
from maxent_util.distribution import closed_form
from maxent_util.errors import ExportError, UtilityError
from maxent_util.export import export_python
import maxent_util.maxent as engine
from maxent_util.maxent import _forget_laws

oo = sympy.oo
R = sympy.Rational

#: how far two routes' utilities may be apart (values in [0, 1])
SAME = 1e-12

QUICK = settings(max_examples=4, deadline=None, derandomize=True,
                 suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


@st.composite
def typed(draw) -> sympy.Rational:
    """A value as a person types it: 2 to 3 significant digits at a scale from 1e-2 to 1e5."""
    digits = draw(st.integers(10, 999))
    return R(digits, 10 ** draw(st.integers(-2, 3)))


@st.composite
def constraint_sets(draw) -> tuple:
    """A bounded mean, an exponential, or a gamma law (a mean beside a log moment)."""
    kind = draw(st.sampled_from(["bounded", "exponential", "gamma"]))
    mean = draw(typed())
    if kind == "bounded":
        share = R(draw(st.integers(5, 95)), 100)
        return (Support(0, mean / share), Mean(mean))
    if kind == "exponential":
        return (Support(0, oo), Mean(mean))
    # E[log kappa] < log E[kappa] (Jensen): below by 0.05 to 1
    gap = R(draw(st.integers(5, 100)), 100)
    value = sympy.nsimplify(round(float(sympy.log(mean) - gap), 3))
    return (Support(0, oo), Mean(mean), LogMoment(value, 1))


def points(law: CaptimeDistribution) -> np.ndarray:
    """Runtimes over the law's support: decades of its mean, and beyond a finite end."""
    mean = float(law.numeric.mean()) if law.numeric is not None else float(law.mean())
    return np.concatenate([[0.0], mean * np.array([1e-3, 0.05, 0.3, 0.9, 1.0, 1.7, 3.0, 8.0]), [np.inf]])


def routes(constraints: tuple) -> dict[str, CaptimeDistribution]:
    laws = {"default": derive(*constraints),
            "numeric": derive(*constraints, method="numeric"),
            "derive_many": derive_many([constraints])[0],
            "full": derive(*constraints, digits=30)}
    laws["from_json"] = from_json(to_json(laws["default"]))
    return laws


@QUICK
@given(constraint_sets())
def test_every_route_gives_one_class_and_the_same_numbers(constraints):
    laws = routes(constraints)
    reference = laws["default"].utility()
    x = points(laws["default"])
    expected = reference(x)
    for route, law in laws.items():
        utility = law.utility()
        assert type(law) is CaptimeDistribution and type(utility) is Utility, route
        np.testing.assert_allclose(utility(x), expected, rtol=0, atol=SAME, err_msg=route)


@pytest.mark.parametrize("spec, constraints", [("exponential(12)", (Support(0, oo), Mean(12))),
                                               ("uniform(30)", (Support(0, 30),))])
def test_presets_give_the_class_and_numbers_of_their_law(spec, constraints):
    preset = parse_utility(spec)
    law = derive(*constraints)
    x = points(law)
    assert type(preset) is Utility
    np.testing.assert_allclose(preset(x), law.utility()(x), rtol=0, atol=SAME)


def _export_values(utility: Utility, x: np.ndarray, folder) -> np.ndarray:
    path = export_python(utility, folder / "exported.py", overwrite=True)
    spec = importlib.util.spec_from_file_location("exported", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return np.asarray(module.utility(x), dtype=float)


@QUICK
@given(constraint_sets(), st.sampled_from(["default", "numeric", "full"]))
def test_every_consumer_takes_every_route_and_gives_the_same_numbers(tmp_path, constraints, route):
    law = routes(constraints)[route]
    utility = law.utility()
    x = points(law)
    expected = utility(x)
    consumers = {
        "json": lambda: from_json(to_json(utility)),
        "pickle": lambda: pickle.loads(pickle.dumps(utility)),
    }
    for name, make in consumers.items():
        copy = make()
        assert type(copy) is Utility and copy == utility, name
        np.testing.assert_allclose(copy(x), expected, rtol=0, atol=SAME, err_msg=name)
    np.testing.assert_allclose(compile_scorer(utility)(x), expected, rtol=0, atol=SAME)
    np.testing.assert_allclose(_export_values(utility, x, tmp_path), expected, rtol=0, atol=SAME)
    runs = x[1:-1]
    found = mu.score(runs, utility, solved=np.ones(runs.size, dtype=bool))
    assert found.estimate == pytest.approx(float(np.mean(utility(runs))), rel=0, abs=SAME)
    table = pd.DataFrame({"algorithm": np.repeat(["a", "b"], runs.size),
                          "instance": np.tile([f"i{i}" for i in range(runs.size)], 2),
                          "runtime": np.concatenate([runs, runs[::-1] * 1.1]), "status": "solved"})
    ranked = mu.rank(table, {"u": utility})
    for algorithm, times in (("a", runs), ("b", runs[::-1] * 1.1)):
        assert ranked.loc[algorithm, "u"] == pytest.approx(float(np.mean(utility(times))), rel=0, abs=SAME)


@QUICK
@given(constraint_sets())
def test_a_laws_numbers_are_its_utility_built_or_not(constraints):
    law = derive(*constraints)
    x = points(law)
    before = law.utility()(x)
    np.testing.assert_array_equal(before, law.numeric.sf(x))
    law.pdf  # the closed form is built
    np.testing.assert_array_equal(law.utility()(x), before)
    if not law.forms["cdf"].startswith("numeric"):
        # called a closed form: it evaluates to the numbers
        np.testing.assert_allclose(compile_scorer(law._survival_expr())(x), before, rtol=0, atol=1e-8)


def test_threads_reading_a_fresh_law_build_its_closed_form_once():
    _forget_laws()
    law = derive(Support(0, 10), Mean(R(33, 10)))
    utility = law.utility()
    assert not law.built
    with ThreadPoolExecutor(4) as pool:
        found = list(pool.map(lambda i: utility.expr if i % 2 else law.sf, range(8)))
    survival = law.sf.subs(sympy.Symbol("kappa", positive=True), mu.t)
    assert all(expr is found[1] for expr in found[1::2]) and found[1] == survival
    assert all(expr == law.sf for expr in found[::2])


# ---------------------------------------------------------------------------
# the cases of the issue, pinned
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("constraints", [(Support(0, 3600), Mean(1200)), (Support(0, oo), Mean(10))])
def test_the_utility_of_a_fast_law_goes_through_json(constraints):
    utility = derive(*constraints).utility()
    text = to_json(utility)
    assert json.loads(text)["distribution"]["numbers"]["multipliers"]  # stored by its numbers
    copy = from_json(text)
    x = np.array([0.0, 1.0, 10.0, 1000.0, np.inf])
    assert type(copy) is Utility and copy == utility
    np.testing.assert_allclose(copy(x), utility(x), rtol=0, atol=SAME)


def test_a_law_of_numbers_whose_stored_numbers_are_not_its_law_is_refused():
    data = json.loads(to_json(derive(Support(0, 3600), Mean(1200))))
    data["numbers"]["multipliers"][0] *= 1.001
    with pytest.raises(ExportError, match="numbers"):
        from_json(json.dumps(data))


@pytest.fixture
def cdf_left_as_integral(monkeypatch):
    """sympy cannot integrate the CDF (as on a loaded machine, or for the law of issue 31's
    K = derive(Support(0.0759, 8.8), SquaredLogDeviation(1.2, 0.8033), LogMoment(0.765, 1.15,
    side="above")), whose build takes half a minute): the closed form holds an Integral."""
    whole_pieces = closed_form.integrate_piece

    def failing(integrand, piece, upper=None, *, start=None):
        if upper is not None or start is not None:
            raise ValueError("forced: sympy could not integrate")
        return whole_pieces(integrand, piece, upper, start=start)

    _forget_laws()
    monkeypatch.setattr(closed_form, "integrate_piece", failing)
    # a fast-route law's closed form is written without sympy's integrals where it can be: the
    # law is then built by the full derivation, whose integral fails
    monkeypatch.setattr(engine, "direct_law", lambda *arguments: None)
    yield
    _forget_laws()


def test_a_utility_keeps_working_after_its_law_builds_an_integral(cdf_left_as_integral):
    law = derive(Support(0, oo), Mean(4), LogMoment(1, 1))
    x = np.array([0.5, 1.0, 4.0, 20.0])
    before = law.utility()(x)
    assert law.cdf.has(sympy.Integral)  # built now
    assert law.forms["cdf"] == "numeric quadrature"
    np.testing.assert_array_equal(law.utility()(x), before)
    np.testing.assert_array_equal(compile_scorer(law.utility())(x), before)


def test_a_law_whose_cdf_is_an_integral_goes_through_json(cdf_left_as_integral):
    law = derive(Support(0, oo), Mean(4), LogMoment(1, 1), digits=30)  # the full route: no numbers
    assert law.numeric is None and law.cdf.has(sympy.Integral)
    copy = from_json(to_json(law.utility()))
    x = np.array([0.5, 1.0, 4.0, 20.0])
    assert type(copy) is Utility and copy.distribution.cdf.has(sympy.Integral)
    np.testing.assert_allclose(copy(x), law.utility()(x), rtol=0, atol=SAME)


def test_forms_calls_numeric_a_closed_form_that_is_not_the_law():
    law = derive(Support(0, 10), Mean(R(33, 10)))
    law.pdf
    assert law.forms["cdf"] == "closed form with numeric multipliers"
    wrong = law._evolve()  # the same numbers beside a survival function off by 1e-3
    object.__setattr__(wrong, "_sf_pieces", [piece + R(1, 1000) for piece in law._sf_pieces])
    wrong.__dict__.pop("_disagreements", None)  # checked again
    assert wrong.forms["cdf"].startswith("numeric (double precision): its closed form gives")
    assert wrong.forms["pdf"] == "closed form with numeric multipliers"


def test_a_law_of_the_numeric_method_never_refuses_its_parts():
    law = derive(Support(0, 300000), LogMoment(R(119, 100), 49600, side="below"), method="numeric")
    assert law.pdf.has(sympy.Symbol("kappa", positive=True))
    # reference: the symbolic route's exact multiplier (the numeric route reaches it to its 30
    # digits, or falls back on the symbolic route, which gives it exactly)
    assert abs(law.multipliers[sympy.Symbol("lambda_1", real=True)] - R(-19, 119)) < R(1, 10**25)
    x = np.array([1.0, 49600.0, 2e5])
    np.testing.assert_allclose(compile_scorer(law._survival_expr())(x), law.numeric.sf(x), rtol=0, atol=1e-9)


def test_a_parameter_outside_the_utilitys_domain_is_refused_by_name():
    scorer = compile_scorer(Utility("exp(-t/c)"))
    assert scorer([0.5, 1.0], c=2.0) == pytest.approx(np.exp(-np.array([0.25, 0.5])))
    with pytest.raises(UtilityError, match="`c`.*stays in \\[0, 1\\].*-1.0"):
        scorer([0.5, 1.0], c=-1)
    with pytest.raises(UtilityError, match="`c`"):
        scorer([0.5, 1.0], c=np.array([2.0, -1.0]))
    # an expression that is not a utility (a density) keeps its values
    assert compile_scorer(sympy.Float(2) * sympy.exp(-mu.t))(0.0) == pytest.approx(2.0)


def _utility_document(expr: str) -> dict:
    data = json.loads(to_json(Utility("exp(-t)")))
    data["expr"] = json.loads(to_json(Utility(expr)))["expr"]
    return data


@pytest.mark.parametrize("expr, message", [("2*exp(-t)", "values in \\[0, 1\\]"),
                                           ("1 - exp(-t)", "does not increase"),
                                           ("oo*t", "finite values"),
                                           ("exp(t)", "values in \\[0, 1\\]")])
def test_from_json_refuses_a_utility_that_is_not_one(expr, message):
    with pytest.raises(ExportError, match=message):
        from_json(json.dumps(_utility_document(expr)))


def test_from_json_refuses_a_repeated_key():
    text = to_json(Utility("exp(-t)"), indent=None)
    assert from_json(text) == Utility("exp(-t)")
    repeated = text.replace('"name": null', '"name": null, "name": "other"')
    with pytest.raises(ExportError, match="distinct keys.*'name'"):
        from_json(repeated)
