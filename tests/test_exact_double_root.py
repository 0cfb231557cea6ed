"""The full route's shortcut past the 30-digit polish: a double-precision root that is exactly a
small fraction, the equations holding exactly there (maxent_util.maxent.exact.exact_double_root).

The laws it gives are compared with the same derivation with the shortcut switched off (the
polish and recognise_exact, as before it existed), and with references written here: the uniform
density 1/(b - a) and the log-uniform 1/(k log(b/a)) by hand, and the root of the truncated
exponential's mean equation by mpmath's findroot at 50 digits.
"""

from __future__ import annotations

from unittest import mock

import mpmath
import numpy as np
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from maxent_util.constraints import ContinuousAt, LogMoment, Mean, Support
from maxent_util.maxent import derive
from maxent_util.maxent import exact as exact_module
from maxent_util.maxent.exact import exact_double_root
from maxent_util.maxent.numeric import NumericProblem
from maxent_util.problem import build_pieces, make_terms, support_of
from maxent_util.symbols import kappa

from conftest import ROOT, run_script

R = sympy.Rational
LAMBDA_0 = sympy.Symbol("lambda_0", real=True)


def _without_shortcut():
    return mock.patch("maxent_util.maxent.exact_double_root", lambda *arguments: None)


def _both(constraints: tuple) -> tuple:
    """The law with the shortcut and without it, each derived cold."""
    derive.cache_clear()
    law = derive(*constraints, digits=30, timeout=60)
    law.pdf
    derive.cache_clear()
    with _without_shortcut():
        before = derive(*constraints, digits=30, timeout=60)
        before.pdf
    derive.cache_clear()
    return law, before


def _same_law(law, before) -> None:
    for part in ("pdf", "cdf", "sf"):
        assert sympy.srepr(getattr(law, part)) == sympy.srepr(getattr(before, part)), part
    assert law.multipliers == before.multipliers
    assert all(type(law.multipliers[m]) is type(before.multipliers[m]) for m in law.multipliers)
    assert law.derivation.method == before.derivation.method
    assert law.derivation.notes == before.derivation.notes


@settings(max_examples=4, deadline=None)
@given(st.integers(0, 50), st.integers(1, 5000), st.integers(1, 4), st.booleans())
def test_uniform_and_log_uniform_laws_are_those_of_the_polish(low, width, denominator, logarithmic):
    # the log-uniform law needs a > 0; its E[log kappa] is (log a + log b) / 2
    a = R(low, denominator) + (1 if logarithmic else 0)
    b = a + width
    if logarithmic:
        constraints = (Support(a, b), LogMoment((sympy.log(a) + sympy.log(b)) / 2, 1))
    else:
        constraints = (Support(a, b), Mean((a + b) / 2))
    law, before = _both(constraints)
    _same_law(law, before)
    # references by hand: the uniform density 1/(b - a) (multiplier 0), the log-uniform
    # 1/(k log(b/a)) (multiplier 1 on log(kappa))
    others = [value for symbol, value in law.multipliers.items() if symbol != LAMBDA_0]
    assert others == [1 if logarithmic else 0]
    middle = (a + b) / 2
    expected = 1 / (middle * sympy.log(b / a)) if logarithmic else 1 / (b - a)
    assert sympy.simplify(law.pdf.subs(kappa, middle) - expected) == 0
    assert "verified exactly" in law.derivation.method


def test_a_root_near_a_fraction_but_not_one_is_polished():
    # Mean(5 + 1e-12) on [0, 10]: the double root is within 1e-12 of 0, where the equations do
    # not hold; the polish must run and keep a (tiny) 30-digit multiplier
    value = 5 + R(1, 10 ** 12)
    law, before = _both((Support(0, 10), Mean(value)))
    _same_law(law, before)
    found = law.multipliers[sympy.Symbol("lambda_1", real=True)]
    assert isinstance(found, sympy.Float) and found != 0
    # reference: the root of E[kappa] = 1/l - 10/(exp(10 l) - 1) = value (density exp(-l kappa))
    # by mpmath's findroot at 50 digits, from a start found by its first-order expansion
    with mpmath.workdps(50):
        target = mpmath.mpf(value.p) / value.q
        root = mpmath.findroot(lambda l: 1 / l - 10 / mpmath.expm1(10 * l) - target, mpmath.mpf(-1.2e-13))
        assert abs(mpmath.mpf(sympy.N(found, 40)) - root) <= mpmath.mpf(10) ** -25 * abs(root)


def _problem(constraints: tuple) -> tuple:
    support = support_of(constraints)
    terms, interior = make_terms(constraints, support)
    _, pieces = build_pieces(support, terms, interior)
    return NumericProblem(pieces, terms), pieces, terms


@settings(max_examples=10, deadline=None)
@given(st.floats(-1e-13, 1e-13), st.floats(1e-8, 1e-3))
def test_the_double_root_is_taken_only_near_an_exact_root(noise, offset):
    problem, pieces, terms = _problem((Support(0, 7200), Mean(3600)))
    (multiplier,) = problem.free
    # the double root of the uniform law, to its rounding: exactly 0
    assert exact_double_root(problem, pieces, terms, np.array([noise]), None) == {multiplier: 0}
    # farther than the double root's rounding from 0: left to the polish
    assert exact_double_root(problem, pieces, terms, np.array([offset / 7200]), None) is None
    # near 1/2, which is no root: the equations are checked exactly, and fail
    assert exact_double_root(problem, pieces, terms, np.array([0.5 + noise]), None) is None


def test_not_tried_with_a_continuity_condition():
    # with a continuity condition the polish chooses among several roots: never shortcut
    constraints = (Support(0, sympy.oo), LogMoment(R(1, 2), 24, side="below"),
                   LogMoment(R(1, 2), 24, side="above"), ContinuousAt(24))
    problem, pieces, terms = _problem(constraints)
    with mock.patch.object(exact_module, "_verify_exact", side_effect=AssertionError("tried")):
        assert exact_double_root(problem, pieces, terms, np.zeros(len(problem.free)), None) is None


def test_a_check_that_fails_inside_sympy_leaves_the_root_to_the_polish():
    problem, pieces, terms = _problem((Support(0, 7200), Mean(3600)))
    with mock.patch.object(exact_module, "_verify_exact", side_effect=TypeError("inside sympy")):
        assert exact_double_root(problem, pieces, terms, np.zeros(1), None) is None


def test_the_full_route_benchmark_against_another_checkout(capsys, monkeypatch):
    # this checkout against itself on two sets (one through the shortcut): a smoke test of the
    # worker and of the comparison of forms (the times it prints are not checked)
    with pytest.raises(SystemExit) as leaving:
        run_script(monkeypatch, capsys, "bench_full_route.py", "--against", str(ROOT), "--sets", "24", "32")
    out = capsys.readouterr().out
    assert leaving.value.code == 0
    rows = [line for line in out.splitlines() if line.split()[:1] in (["24"], ["32"])]
    assert len(rows) == 2 and all(" yes " in row for row in rows), out
    assert "same forms: yes (2 sets" in out
