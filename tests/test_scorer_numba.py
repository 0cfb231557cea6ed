"""The numba route of compiled scorers (the ``[fast]`` extra): a loop over the runtimes of the
numpy route's own printed operations, for large calls of plain-arithmetic utilities.

Its values are compared with the numpy route's bit for bit. That comparison is safe on any
CPU: the loop holds only ``+ - * /``, comparisons and squares (each one correctly rounded IEEE
operation, whatever numpy's SIMD width), and everything else stays on numpy. numba compiles a
loop in about 0.2 s (the first with numba's import, about 1 s), so the tests share the loops of
one shape (cached by source) and the size from which a call takes the loop is lowered here."""

from __future__ import annotations

import math
import sys

import numpy as np
import pytest
import sympy
from hypothesis import given, settings, strategies as st

import maxent_util as mu
import maxent_util.scorer as scorer_module
from maxent_util.families import FAMILIES, FIGURE_PARAMETERS
from maxent_util.scorer import Scorer, compile_scorer
from maxent_util.symbols import t

numba = pytest.importorskip("numba")  # the test extra installs it: CI runs both routes

#: calls of at least this many runtimes take the numba loop in these tests
SMALL = 16

#: the families whose utility is plain arithmetic (the others call exp, log or erfc)
ARITHMETIC = {"uniform", "pareto", "log_laplace", "generalized_log_laplace", "piecewise"}


@pytest.fixture(scope="module")
def small_calls():
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(scorer_module, "NUMBA_MIN_RUNTIMES", SMALL)
        yield


def numpy_route(scorer, x, **parameters):
    """The scorer's values by its numpy route (the numba loop only serves larger calls)."""
    saved = scorer_module.NUMBA_MIN_RUNTIMES
    scorer_module.NUMBA_MIN_RUNTIMES = 1 << 62
    try:
        return scorer(x, **parameters)
    finally:
        scorer_module.NUMBA_MIN_RUNTIMES = saved


def bits(values):
    return np.asarray(values, dtype=float).view(np.int64)


def fresh(utility):
    """A scorer of its own (compile_scorer caches scorers by expression)."""
    return Scorer(utility.expr, bounded=True)


#: runtimes that stress the ends and the pieces: 0, -0, the tiniest doubles, inf, NaN, the
#: figure's breakpoints (12 and 24) and their neighbours
SPECIAL = [0.0, -0.0, 5e-324, 2.2250738585072014e-308, math.inf, -math.inf, math.nan, -1.0,
           1e308, 12.0, 24.0, math.nextafter(24.0, 0.0), math.nextafter(24.0, math.inf),
           math.nextafter(12.0, 0.0), math.nextafter(12.0, math.inf)]
runtimes = st.lists(st.one_of(st.sampled_from(SPECIAL), st.floats(allow_nan=True)),
                    min_size=SMALL, max_size=4 * SMALL)


@pytest.mark.parametrize("name", FAMILIES)
@settings(max_examples=30, deadline=None)
@given(x=runtimes)
def test_both_routes_give_the_same_bits_on_every_family(small_calls, name, x):
    scorer = compile_scorer(getattr(mu, name)(*FIGURE_PARAMETERS[name]).utility())
    x = np.array(x)
    assert np.array_equal(bits(scorer(x)), bits(numpy_route(scorer, x)))
    # the plain-arithmetic families take the loop; exp, log and erfc stay on numpy
    assert scorer.route == ("numba" if name in ARITHMETIC else "compiled")


kappa = sympy.Symbol("kappa", positive=True)
#: a utility with a parameter and three pieces, the last a power of the runtime
THREE_PIECES = sympy.Piecewise((1 - t / (4 * kappa), t < kappa), (sympy.Rational(3, 4), t <= 2 * kappa),
                               (3 * kappa**2 / t**2, True))


@settings(max_examples=60, deadline=None)
@given(x=runtimes, value=st.floats(1e-3, 1e3))
def test_a_piecewise_utility_with_a_parameter_gives_the_same_bits(small_calls, x, value):
    scorer = compile_scorer(THREE_PIECES)
    x = np.array(x + [value, 2 * value, math.nextafter(value, 0.0), math.nextafter(2 * value, math.inf)])
    assert np.array_equal(bits(scorer(x, kappa=value)), bits(numpy_route(scorer, x, kappa=value)))
    assert scorer.route == "numba"


def test_large_calls_take_the_loop_and_small_ones_numpy(small_calls):
    scorer = fresh(mu.uniform(24).utility())
    scorer(np.linspace(0.0, 30.0, SMALL - 1))
    assert scorer.route == "compiled"
    x = np.linspace(0.0, 30.0, 1000)
    assert np.array_equal(bits(scorer(x)), bits(numpy_route(scorer, x)))
    assert scorer.route == "numba"
    # on several threads too (the loop releases the GIL): the same blocks, the same bits
    x = np.random.default_rng(3).lognormal(3.0, 2.0, 9 * scorer_module.CHUNK_SIZE)
    x[::97] = math.inf
    assert np.array_equal(bits(scorer.with_threads(2)(x)), bits(numpy_route(scorer, x)))


def test_an_expression_with_exp_stays_on_numpy(small_calls):
    scorer = Scorer(sympy.exp(-t / 24) + t / 1000)
    scorer(np.linspace(0.0, 30.0, 100))
    assert scorer.route == "compiled"
    assert "not arithmetic" in scorer._numba.refused


def _numpy_route_serves(refused: str) -> None:
    """A piecewise law's scorer, refused the numba loop for ``refused``, scores on the numpy
    route with that route's bits."""
    scorer = fresh(mu.piecewise(24, 12, sympy.Rational(3, 10)).utility())
    x = np.linspace(0.0, 30.0, 100)
    values = scorer(x)
    assert scorer.route == "compiled"
    assert scorer._numba.refused == refused
    assert np.array_equal(bits(values), bits(numpy_route(scorer, x)))


def test_without_numba_the_numpy_route_serves(small_calls, monkeypatch):
    monkeypatch.setitem(sys.modules, "numba", None)  # import numba raises ImportError
    _numpy_route_serves("numba not installed")


def test_a_loop_numba_cannot_compile_leaves_the_numpy_route(small_calls, monkeypatch):
    numba = pytest.importorskip("numba")

    def refuse(*arguments, **options):
        raise numba.core.errors.TypingError("cannot type this loop")

    monkeypatch.setattr(numba, "njit", refuse)
    monkeypatch.setattr(scorer_module, "_KERNELS", {})  # no loop compiled earlier to reuse
    _numpy_route_serves("numba could not compile the loop (TypingError)")


def test_a_loop_that_differs_from_numpy_is_refused_before_use(small_calls, monkeypatch):
    scorer = fresh(mu.uniform(24).utility())
    build = scorer_module._NumbaRoute.build

    def off_by_one_ulp(self, root, args):
        build(self, root, args)
        right = self.kernel

        def kernel(t, out, *constants):
            checks = right(t, out, *constants)
            out[t == 1.0] = np.nextafter(out[t == 1.0], 0.0)  # one runtime of the check
            return checks
        self.kernel = kernel

    monkeypatch.setattr(scorer_module._NumbaRoute, "build", off_by_one_ulp)
    x = np.linspace(0.0, 30.0, 100)
    values = scorer(x)
    assert scorer.route.startswith("compiled (numba loop refused: differed from the numpy route at t = 1.0")
    assert np.array_equal(bits(values), bits(numpy_route(scorer, x)))
