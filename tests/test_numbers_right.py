"""Every number right: derived laws at the values people type, checked by a second route.

References are independent of the engine: scipy.stats (the log-normal), formulas written by
hand from the paper's Appendix C (the generalized log-Laplace survival function), mpmath
quadrature of a law's own density, and the equality form of an inequality (the KKT conditions
say an active bound gives the law of the equality).
"""

from __future__ import annotations

import math
import time

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
import sympy
from scipy import stats

from maxent_util import Utility, compile_scorer, score, t
from maxent_util import families
from maxent_util._sizes import grew, integer_bits, total_integer_bits
from maxent_util.constraints import LogMoment, SquaredLogDeviation, Support
from maxent_util.distribution.closed_form import _simplest
from maxent_util.errors import UtilityError
from maxent_util.maxent import derive
from maxent_util.symbols import kappa

oo = sympy.oo


def _lognormal_reference(log_mean_offset, squared_deviation, scale):
    # E[log(k/s)] = m and E[log(k/s)**2] = v fix log k ~ N(log s + m, v - m**2)
    sigma = math.sqrt(squared_deviation - log_mean_offset ** 2)
    return stats.lognorm(s=sigma, scale=scale * math.exp(log_mean_offset))


def test_log_normal_with_an_offset_scores_its_own_law():
    # the case: simplify wrote 1000*log(kappa/15) as log(kappa**1000/15**1000), a float
    # overflowed on it, and every runtime scored 0
    law = derive(Support(0, "oo"), SquaredLogDeviation(0.9, 15), LogMoment(-0.231, 15))
    reference = _lognormal_reference(-0.231, 0.81, 15)
    runtimes = np.array([5.0, 9.0, 15.5, 30.0])
    np.testing.assert_allclose(law.utility()(runtimes), reference.sf(runtimes), rtol=0, atol=1e-12)
    # the values, to the four digits it gives
    np.testing.assert_allclose(law.utility()(runtimes), [0.8407, 0.6262, 0.3808, 0.1440], atol=1e-4)
    assert score([5.0, 9.0, 20.0], law.utility()).estimate == pytest.approx(
        float(np.mean(reference.sf([5.0, 9.0, 20.0]))), abs=1e-12)


def test_no_piece_of_a_law_holds_integers_larger_than_its_constraints():
    law = derive(Support(0, "oo"), SquaredLogDeviation(0.9, 15), LogMoment(-0.231, 15))
    given = total_integer_bits(*(c.feature().value for c in law.constraints if c.feature() is not None))
    for piece in law._pdf_pieces + law._cdf_pieces + law._sf_pieces:
        assert integer_bits(piece) <= given + 64 + 32  # + the constants of the Gaussian (sqrt(pi), 2)
        str(piece)  # prints: no integer beyond Python's 4,300 digits of text


def test_generalized_log_laplace_at_typed_values():
    # the case raised the int-to-str ValueError (a 9,205-digit integer); the paper's value
    # 0.25735, and the survival function of Appendix C below kappa0:
    # 1 - alpha/(alpha + beta) (t/kappa0)**beta
    law = families.generalized_log_laplace(1500, 3.42, 0.0993)
    alpha, beta = mpmath.mpf("3.42"), mpmath.mpf("0.0993")
    for runtime in (1.0, 100.0, 1499.0):
        expected = 1 - alpha / (alpha + beta) * (mpmath.mpf(runtime) / 1500) ** beta
        assert law.utility()(runtime) == pytest.approx(float(expected), abs=1e-13)
    # above kappa0: beta/(alpha + beta) (kappa0/t)**alpha
    expected = beta / (alpha + beta) * (mpmath.mpf(1500) / 4000) ** alpha
    assert law.utility()(4000.0) == pytest.approx(float(expected), rel=1e-12)
    assert law.utility()(100.0) == pytest.approx(0.25735, abs=1e-5)
    # the law says where it holds 30-digit values instead of exact ones
    assert any("at 30 digits" in note for note in law.notes)
    assert not any("at 30 digits" in note for note in families.generalized_log_laplace(24, 2, 5).notes)


def test_simplify_keeps_the_form_it_was_given_when_integers_would_grow():
    expr = 1 - sympy.erfc(500 * sympy.sqrt(168142) * sympy.log(kappa / 15) / 252213
                          + 77 * sympy.sqrt(168142) / 168142) / 2
    simplest = _simplest(expr)
    assert not grew(simplest, expr)
    # the same function: mpmath at two captimes
    for point in (3, 40):
        assert abs(sympy.N(simplest.subs(kappa, point), 30) - sympy.N(expr.subs(kappa, point), 30)) < 1e-25


def test_grew_compares_with_a_product_of_the_inputs():
    x = sympy.Symbol("x", positive=True)
    assert grew(sympy.log(x ** 1000 / sympy.Integer(15) ** 1000), 1000 * sympy.log(x / 15))
    assert not grew(x / (252213 * 168142), x / 252213, sympy.Rational(1, 168142))
    assert integer_bits(x) == 0 and integer_bits(sympy.Rational(-1024, 3)) == 11


def test_an_active_bound_on_a_log_spread_gives_the_law_of_its_equality():
    # raised the int-to-str ValueError from the KKT step; the bound binds (lambda_1 = 0.994268 in
    # the issue), so the law is the equality's, derived without the KKT step
    bounded = derive(Support(1.11, 20.5), SquaredLogDeviation(0.709, 4.77, relation="<="), timeout=60)
    equality = derive(Support(1.11, 20.5), SquaredLogDeviation(0.709, 4.77), timeout=60)
    assert bounded.active == (SquaredLogDeviation(0.709, 4.77, relation="<="),)
    for symbol, value in equality.multipliers.items():
        assert float(bounded.multipliers[symbol]) == pytest.approx(float(value), rel=1e-12)
    assert float(bounded.multipliers[sympy.Symbol("lambda_1", real=True)]) == pytest.approx(0.994268, abs=1e-6)


def test_an_inactive_bound_on_a_log_spread_gives_the_uniform_law():
    # hit the 30 s limit in simplify; the uniform law on [2.63, 89.5] has
    # E[log(kappa/15.3)**2] = 1.10 (mpmath below) <= 1.27**2, so the bound is inactive
    law = derive(Support(2.63, 89.5), SquaredLogDeviation(1.27, 15.3, relation="<="), timeout=60)
    assert law.active == ()
    assert sympy.simplify(law.pdf.subs(kappa, 10) - sympy.Rational(100, 8687)) == 0
    with mpmath.workdps(20):
        spread = mpmath.quad(lambda k: mpmath.log(k / mpmath.mpf("15.3")) ** 2, [2.63, 89.5]) / (89.5 - 2.63)
    assert spread < mpmath.mpf("1.27") ** 2


def test_a_closed_form_with_floats_does_not_wait_out_its_time_limit():
    # took its whole limit (10 s at timeout=10, 30 s at 30) refining a tail integral; a generous
    # bound, far from both, that a loaded machine still meets
    derive.cache_clear()
    start = time.monotonic()
    law = derive(Support(0, "oo"), LogMoment(0.1495904388496411, 7.399043251537241),
                 SquaredLogDeviation(0.437234303531615, 7.399043251537241), timeout=120)
    assert time.monotonic() - start < 60
    # its utility is its own survival function (mpmath quadrature of its pdf)
    density = sympy.lambdify(kappa, law.pdf, "mpmath")
    with mpmath.workdps(30):
        for runtime in (1.0, 7.4, 20.0):
            tail = mpmath.quad(density, [runtime, 100, mpmath.inf])
            assert law.utility()(runtime) == pytest.approx(float(tail), abs=1e-10)


# -- the compiled scorer's self-check


def test_a_scorer_that_overflows_takes_the_log_space_route():
    # the unsimplified form of the issue: t**1000 overflows a double
    expr = sympy.Rational(1, 2) - sympy.erf(
        sympy.sqrt(168142) * (sympy.log(t ** 1000 / sympy.Integer(15) ** 1000) + 231) / 504426) / 2
    scorer = compile_scorer(expr)
    assert scorer.route == "log space"
    reference = _lognormal_reference(-0.231, 0.81, 15)
    runtimes = np.array([5.0, 9.0, 15.5, 30.0, 1e4])
    np.testing.assert_allclose(scorer(runtimes), reference.sf(runtimes), rtol=1e-9, atol=1e-12)


def test_a_power_law_with_a_huge_constant_is_right_in_its_tail():
    # (1e5/t)**100 is 10**500 * t**-100 to sympy: inf/inf in doubles
    expr = sympy.Piecewise((1, t < 100000), ((sympy.Integer(100000) / t) ** 100, True))
    scorer = compile_scorer(expr)
    assert scorer(2e5) == pytest.approx(0.5 ** 100, rel=1e-12)
    assert scorer(1e7) == pytest.approx(1e-200, rel=1e-12)


def test_a_scorer_with_parameters_is_checked_at_the_values_it_is_called_with():
    k0, a = sympy.symbols("k0 a", positive=True)
    scorer = compile_scorer(sympy.Piecewise((1, t < k0), ((k0 / t) ** a, True)))
    assert scorer(2e5, k0=1e5, a=100.0) == pytest.approx(0.5 ** 100, rel=1e-12)
    assert scorer.parameters == ("a", "k0") and (100.0, 1e5) in scorer._verified


def test_a_scorer_no_route_can_evaluate_raises_naming_the_point(monkeypatch):
    from maxent_util import scorer as scorer_module

    class Broken:
        def __call__(self, runtimes, *params):
            return np.full(np.shape(runtimes), 0.5)

    monkeypatch.setattr(scorer_module.Scorer, "_next_route", lambda self, route: Broken())
    monkeypatch.setattr(scorer_module, "_compile", lambda *args, **kwargs: Broken())
    with pytest.raises(UtilityError, match=r"gives 0\.5 at t = .*but mpmath at 30 digits gives .*by every "
                                           r"route"):
        scorer_module.Scorer(sympy.exp(-t / 3))


@pytest.mark.parametrize("value, message", [
    (math.nan, r"^`c` of `scorer of exp\(-t/c\)` must be a number \(not NaN\); got nan\."),
])
def test_a_nan_parameter_is_refused(value, message):
    # scored 1.0 before
    with pytest.raises(UtilityError, match=message):
        compile_scorer(Utility("exp(-t/c)"))([0.5, 1.0], c=value)


@pytest.mark.parametrize("value, requirement", [(0.0, "positive"), (-1.0, "positive"),
                                                (math.inf, "finite"), ([1.0, -2.0], "positive")])
def test_a_parameter_outside_its_symbols_domain_is_refused(value, requirement):
    c = sympy.Symbol("c", positive=True)
    with pytest.raises(UtilityError, match=rf"^`c` of `scorer of exp\(-t/c\)` must be {requirement}"):
        compile_scorer(sympy.exp(-t / c))(1.0, c=value)


def test_a_zero_parameter_without_a_domain_divides_as_numpy_does():
    # raised ZeroDivisionError from the generated code
    assert Utility("exp(-t/c)")(1.0, c=0) == 0.0


def test_a_runtime_beyond_a_double_is_refused():
    with pytest.raises(UtilityError, match=r"^`t` of `scorer of exp\(-t/10\)` must be real numbers within "
                                           r"the range of a double"):
        Utility("exp(-t/10)")([10 ** 400])


# -- every other route to a law's numbers agrees with mpmath at the scorer's check points


def _typed_laws():
    # values as people type them (the cases), and a preset at a large scale
    return {
        "log-normal with an offset": derive(Support(0, "oo"), SquaredLogDeviation(0.9, 15),
                                            LogMoment(-0.231, 15)),
        "generalized log-Laplace at typed values": families.generalized_log_laplace(1500, 3.42, 0.0993),
        "pareto at a large scale": families.pareto(1e5, 3.7),
    }


@pytest.fixture(scope="module")
def typed_laws():
    return _typed_laws()


#: S(t) by quadrature, per (law, runtime): the same law and points serve several tests
_QUADRATURE: dict = {}


def _survival_by_quadrature(law, runtimes):
    """S(t) = int_t^oo f by mpmath quadrature of the law's own pdf, split at its breakpoints."""
    density = None
    ends = [float(b) for b in law.breakpoints if b.is_finite]
    values = []
    with mpmath.workdps(30):
        for runtime in runtimes:
            key = (law, float(runtime))
            if key not in _QUADRATURE:
                density = density or sympy.lambdify(kappa, law.pdf, "mpmath")
                points = [runtime] + [b for b in ends if b > runtime] + [mpmath.inf]
                _QUADRATURE[key] = float(mpmath.quad(density, points))
            values.append(_QUADRATURE[key])
    return np.array(values)


def _points(law):
    from maxent_util._reference import check_points
    return check_points(law.utility().expr, t, {})


def test_to_scipy_agrees_with_quadrature(typed_laws):
    for name, law in typed_laws.items():
        runtimes = _points(law)
        np.testing.assert_allclose(law.to_scipy().sf(runtimes), _survival_by_quadrature(law, runtimes),
                                   rtol=1e-8, atol=1e-9, err_msg=name)


def test_expected_utility_of_the_step_agrees_with_quadrature(typed_laws):
    from maxent_util import expected_utility
    for name, law in typed_laws.items():
        runtimes = _points(law)[::3]
        values = np.asarray(expected_utility(1, law)(runtimes), dtype=float)
        np.testing.assert_allclose(values, _survival_by_quadrature(law, runtimes), rtol=1e-8, atol=1e-9,
                                   err_msg=name)


def test_the_exported_python_agrees_with_quadrature(typed_laws, tmp_path):
    import importlib.util
    from maxent_util.export import export_python
    for i, (name, law) in enumerate(typed_laws.items()):
        path = export_python(law.utility(), tmp_path / f"law_{i}.py")
        spec = importlib.util.spec_from_file_location(f"law_{i}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        runtimes = _points(law)
        np.testing.assert_allclose(module.utility(runtimes), _survival_by_quadrature(law, runtimes),
                                   rtol=1e-8, atol=1e-9, err_msg=name)


@pytest.mark.skipif(__import__("shutil").which("gcc") is None, reason="no C compiler")
def test_the_exported_c_agrees_with_quadrature(typed_laws, tmp_path):
    import ctypes
    import subprocess
    from maxent_util.export import export_c
    sources = [export_c(law.utility(), name=f"law_{i}") for i, law in enumerate(typed_laws.values())]
    (tmp_path / "laws.c").write_text("\n".join(sources))
    subprocess.run(["gcc", "-std=c99", "-shared", "-fPIC", "-O2", "-o", str(tmp_path / "laws.so"),
                    str(tmp_path / "laws.c"), "-lm"], check=True, capture_output=True, timeout=60)
    library = ctypes.CDLL(str(tmp_path / "laws.so"))
    for i, (name, law) in enumerate(typed_laws.items()):
        function = getattr(library, f"law_{i}")
        function.argtypes, function.restype = [ctypes.c_double], ctypes.c_double
        runtimes = _points(law)
        np.testing.assert_allclose([function(float(x)) for x in runtimes],
                                   _survival_by_quadrature(law, runtimes), rtol=1e-8, atol=1e-9, err_msg=name)


def test_an_error_message_shows_a_huge_integer_by_its_size():
    from maxent_util.errors import short
    # repr raised Python's int-to-str ValueError inside the message
    assert short(10 ** 5000) == "<an integer of about 5,001 digits>"
    assert short(sympy.Integer(10) ** 5000) == "<an integer of about 5,001 digits>"
    assert short([10 ** 5000]) == "<a list holding an integer too long to print>"


@pytest.mark.parametrize("runtimes, shown", [([True, False], r"np\.True_"), (["1", "2"], r"np\.str_\('1'\)"),
                                             ([1.0, "2"], r"np\.str_\('1\.0'\)")])
def test_score_refuses_booleans_and_text_as_runtimes(runtimes, shown):
    # numpy read True as 1.0 and "2" as 2.0, and the runs were scored
    from maxent_util.errors import DataError
    with pytest.raises(DataError, match=rf"^`runtimes\[0\]` of `score` must be a number \(not True/False or "
                                        rf"text\); got {shown}\."):
        score(runtimes, families.pareto(10, 1).utility())


def test_cross_utility_when_nothing_is_solved_is_a_tie_not_nan():
    import pandas as pd
    from maxent_util import PAR
    from maxent_util.ranking import cross_utility
    runs = pd.DataFrame({"algorithm": ["a", "a", "b", "b"], "instance": ["i", "j", "i", "j"],
                         "runtime": 100.0, "status": "capped", "cutoff": 100.0})
    # every run capped: both algorithms score 0 under a utility that is 0 at the cutoff, and
    # tie under PAR-2; whichever is picked keeps all there is
    step = sympy.Piecewise((1, t < 50), (0, True))
    cross = cross_utility(runs, {"step": step, "PAR-2": PAR(2)})
    assert not cross.isna().any().any()
    assert (cross.to_numpy() == 1.0).all()


def test_a_value_a_hair_above_an_edge_at_zero_is_feasible():
    from maxent_util.constraints import Mean, TailProbability
    # were called infeasible: the edge test had an absolute floor of 1e-12
    # the exponential law of mean 1e-300 (hand-derived): S(t) = exp(-t/1e-300)
    law = derive(Mean(1e-300))
    np.testing.assert_allclose(law.utility()([1e-300, 2e-300]), [math.exp(-1), math.exp(-2)], rtol=1e-12)
    # piecewise uniform with P(kappa < 5) = 1e-300 on [0, 10] (hand-derived): S(6) = (1 - 1e-300) 4/5
    law = derive(Support(0, 10), TailProbability(5, 1e-300))
    assert law.utility()(6.0) == pytest.approx(0.8, rel=1e-15)


def test_a_moment_of_a_special_function_derives():
    # raised a raw TypeError: the range check lambdified gamma as math.gamma, which refuses arrays
    from maxent_util.constraints import Moment
    law = derive(Support(0, 10), Moment(sympy.gamma(kappa), 2), timeout=60)
    density = sympy.lambdify(kappa, law.pdf, "mpmath")
    with mpmath.workdps(20):
        assert mpmath.quad(density, [0, 1, 2, 10]) == pytest.approx(1, abs=1e-12)
        assert mpmath.quad(lambda k: mpmath.gamma(k) * density(k), [0, 1, 2, 10]) == pytest.approx(2, abs=1e-10)


def test_the_check_benchmark_runs(monkeypatch, capsys):
    from conftest import run_script
    out = run_script(monkeypatch, capsys, "bench_check.py", "--quick", "--laws", "pareto")
    row = next(line for line in out.splitlines() if line.startswith("pareto"))
    assert row.split()[-1] == "compiled" and len(row.split()) == 6


def test_sizes_that_cannot_fit_are_refused_by_the_library_too():
    # 10**12 resamples and 10**8 sweep points ended in a MemoryError (the command line caps both)
    from maxent_util._limits import MAX_POINTS, MAX_RESAMPLES
    from maxent_util.bootstrap import bootstrap_means
    from maxent_util.errors import DataError
    with pytest.raises(DataError, match=rf"^`resamples` of `bootstrap_means` must be at most {MAX_RESAMPLES:,}; "
                                        r"got 1000000000000\."):
        bootstrap_means([[1.0, 2.0]], resamples=10 ** 12)
    from maxent_util.sweeps import _check_points
    with pytest.raises(UtilityError, match=rf"^`points` of `sweep` must be at most {MAX_POINTS:,}; got 100000000\."):
        _check_points(10 ** 8, "sweep")


@pytest.mark.parametrize("deviation, offset, scale", [
    # the property campaign's cases: derive raised the int-to-str ValueError (a 4,300-digit
    # integer in exp(...)/Z), and ran out of 10 s computing 363**5729749 for (363/100)**c
    ("0.309", "-0.1978", 31.84),
    ("0.3093", "0.037", "3.63"),
])
def test_log_normals_whose_exact_multipliers_are_long_fractions(deviation, offset, scale):
    law = derive(Support(0, "oo"), SquaredLogDeviation(deviation, scale), LogMoment(offset, scale), timeout=60)
    reference = _lognormal_reference(float(offset), float(deviation) ** 2, float(scale))
    runtimes = np.array([0.5, 1.0, 3.0, 10.0, 40.0, 100.0])
    np.testing.assert_allclose(law.utility()(runtimes), reference.sf(runtimes), rtol=1e-9, atol=1e-12)


def test_a_continuity_condition_with_an_unattainable_bound_is_refused_as_such():
    # raised linprog's ValueError (the continuity condition's NaN value reached the linear
    # program); the independent dual (tests/dual.py) finds no normalisable law either
    from maxent_util.constraints import ContinuousAt
    from maxent_util.errors import NotNormalizableError
    with pytest.raises(NotNormalizableError, match=r"has no maximum"):
        derive(Support(0, "oo"), LogMoment("1.6", "9090", side="below"),
               LogMoment(0.44, "9090", side="above", relation=">="), ContinuousAt("9090"), timeout=60)


def test_a_log_moment_past_the_start_grid_of_the_numeric_route():
    # refused as not normalisable: on [11700, oo) E[log kappa] = 11.6 needs kappa**-lambda with
    # lambda = 1 + 1/(11.6 - log 11700) = 1.448 (hand-derived: E[log kappa] = log a + 1/(lambda - 1)
    # for the density (lambda - 1) a**(lambda - 1) kappa**-lambda), beyond the starting points
    from maxent_util.constraints import Moment
    law = derive(Support("11700", "oo"), Moment("log(kappa)", 11.6), timeout=60)
    expected = 1 + 1 / (11.6 - math.log(11700))
    assert float(law.multipliers[sympy.Symbol("lambda_1", real=True)]) == pytest.approx(expected, rel=1e-12)


def test_a_density_with_two_humps_on_one_piece_is_integrated_whole():
    # called a maximum not attained (the second hump, at the support's end, was cut off the
    # quadrature); the independent convex dual of tests/dual.py finds the law, and its
    # normalising constant is the reference for lambda_0 = log Z - 1
    import dual
    from maxent_util.constraints import Moment
    law = derive(Support(1e-05, "0.00835"), Moment("kappa", 0.00018),
                 LogMoment(0.05, 0.00018, side="above"), timeout=60)
    reference = dual.solve(dual.Problem(1e-5, 0.00835, (dual.moment("kappa", 0.00018),
                                                        dual.log_moment(0.05, 0.00018, side="above"))))
    assert float(law.multipliers[sympy.Symbol("lambda_0", real=True)]) == pytest.approx(
        reference.log_z - 1, abs=1e-8)


@settings(max_examples=200, deadline=None)
@given(st.floats(allow_nan=False, allow_infinity=False, min_value=-1e300, max_value=1e300))
def test_a_float_argument_is_kept_exactly(value):
    # a float's decimal repr re-read at 17 digits (60 bits) and rounded again to 53 bits could
    # land one ulp away from the float itself
    from maxent_util.utility.core import expression
    kept = expression(value, "q1", "linear_quality")
    assert float(kept) == value and float(str(kept)) == value
