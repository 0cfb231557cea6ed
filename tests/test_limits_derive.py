"""derive(..., timeout=T) returns or raises within T (plus a margin) on any thread."""

from __future__ import annotations

import math
import multiprocessing
import pickle
import re
import sys
import threading
import time

import mpmath
import numpy as np
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from maxent_util import ConstraintError, LogMoment, Mean, Support, TimeLimitError, UtilityError, derive, kappa
from maxent_util import expected_utility, exponential
from maxent_util._timing import Deadline, SymbolicTimeout, check_timeout, rings, run_bounded, time_limit
from maxent_util.distribution.closed_form import _polar_power, _tail_integral, _unusable
from maxent_util.families import family_constraints
from maxent_util.maxent import _forget_laws, _solutions
from maxent_util.maxent.numeric import NumericProblem, _weighted_sums
from maxent_util.maxent.symbolic import _mixed_transcendental
from maxent_util.problem import (Piece, _exponential_integral, _log_power_form, _sympy_integral, build_pieces,
                                 integrate_piece, keep, make_terms, support_of)

# Bounds on elapsed time are generous (T + 5 s) so that a loaded machine cannot fail them; before the
# shared deadline these calls took 15-50 s on the main thread and 220 s on a worker thread.
MARGIN = 5.0
HARD = family_constraints("log_normal", 1.37, 0.731)  # odd floats: sympy's integrals are slow

oo = sympy.oo


def timed(call):
    start = time.monotonic()
    try:
        outcome = call()
    except TimeLimitError as error:
        outcome = error
    return outcome, time.monotonic() - start


def on_a_thread(call):
    box = []
    worker = threading.Thread(target=lambda: box.append(timed(call)))
    worker.start()
    worker.join(120)
    assert not worker.is_alive(), "the call did not come back within 120 s"
    return box[0]


@pytest.mark.parametrize("bad", [0, 0.0, -1, -0.5, float("nan"), True, False, "2", [2]])
def test_bad_timeouts_are_refused(bad):
    message = (r"`timeout` of `derive` must be None \(no limit\) or a positive number of seconds; "
               r"got " + re.escape(repr(bad)) + r"\.")
    with pytest.raises(ConstraintError, match=message):
        derive(Support(0, sympy.oo), Mean(2), timeout=bad)


def test_none_and_inf_mean_no_limit():
    assert check_timeout(None) is None and check_timeout(math.inf) is None
    assert check_timeout(2) == 2.0
    # exponential with mean 2: f = exp(-kappa/2)/2 (by hand)
    for timeout in (None, math.inf):
        assert derive(Support(0, sympy.oo), Mean(2), timeout=timeout).pdf == sympy.exp(-kappa / 2) / 2


def test_expected_utility_refuses_a_bad_timeout():
    with pytest.raises(UtilityError, match=r"`timeout` of `expected_utility` must be None \(no limit\)"):
        expected_utility(1, exponential(2), timeout=-1)


def test_main_thread_keeps_one_deadline():
    derive.cache_clear()
    outcome, elapsed = timed(lambda: derive(*HARD, timeout=2, digits=30))
    assert elapsed < 2 + MARGIN
    assert isinstance(outcome, TimeLimitError) or outcome.pdf is not None
    if isinstance(outcome, TimeLimitError):
        assert "within the time limit of 2 s" in str(outcome)


def test_worker_thread_is_bounded_too():
    derive.cache_clear()
    outcome, elapsed = on_a_thread(lambda: derive(*HARD, timeout=2, digits=30))
    assert elapsed < 2 + MARGIN
    assert isinstance(outcome, TimeLimitError) or outcome.pdf is not None
    assert multiprocessing.active_children() == []  # the worker process was reaped


def test_worker_thread_brings_back_a_usable_distribution():
    derive.cache_clear()
    outcome, _ = on_a_thread(lambda: derive(Support(0, sympy.oo), Mean(2), timeout=20))
    # pickled back from the worker process; exponential with mean 2 (by hand)
    assert outcome.pdf == sympy.exp(-kappa / 2) / 2
    assert float(outcome.utility()(2.0)) == pytest.approx(math.exp(-1), rel=1e-12)


def test_worker_thread_passes_errors_back():
    derive.cache_clear()
    from maxent_util import NotNormalizableError

    outcome = []
    def call():
        try:
            derive(Support(0, sympy.oo), timeout=20)
        except NotNormalizableError as error:
            outcome.append(error)
    worker = threading.Thread(target=call)
    worker.start()
    worker.join(120)
    assert outcome and "cannot be normalised" in str(outcome[0])


def test_a_deadline_is_shared_and_pickles():
    deadline = Deadline(30)
    first = deadline.remaining()
    time.sleep(0.01)
    assert 0 < deadline.remaining() < first <= 30
    assert not deadline.expired()
    again = pickle.loads(pickle.dumps(deadline))
    assert again.end == deadline.end and again.seconds == 30
    assert Deadline(None).remaining() == math.inf and not Deadline(None).expired()
    assert deadline.within(0.0).expired()
    assert deadline.within(100).end == deadline.end


def test_a_passed_deadline_never_means_no_limit():
    for passed in (0, 0.0, Deadline(0)):
        with pytest.raises(SymbolicTimeout):
            with time_limit(passed):
                pytest.fail("the block ran although its time was already up")


def busy() -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        pass


def fails() -> None:
    raise ConstraintError("from the worker")


def test_run_bounded_stops_work_off_the_main_thread():
    def call():
        return run_bounded(busy, deadline=Deadline(0.5))
    box = []
    def target():
        start = time.monotonic()
        try:
            call()
            box.append(("returned", time.monotonic() - start))
        except SymbolicTimeout:
            box.append(("stopped", time.monotonic() - start))
    worker = threading.Thread(target=target)
    worker.start()
    worker.join(120)
    assert box[0][0] == "stopped" and box[0][1] < 0.5 + MARGIN
    assert multiprocessing.active_children() == []


def test_run_bounded_raises_the_workers_error():
    box = []
    def target():
        try:
            run_bounded(fails, deadline=Deadline(20))
        except ConstraintError as error:
            box.append(error)
    worker = threading.Thread(target=target)
    worker.start()
    worker.join(120)
    assert box and str(box[0]) == "from the worker"


# ---------------------------------------------------------------------------
# equations with a multiplier both in and out of an exponent skip sympy.solve
# ---------------------------------------------------------------------------

_lam = sympy.Symbol("lambda_1", real=True)


@pytest.mark.parametrize("equation, mixed", [
    # a truncated exponential's mean condition: Lambert territory, sympy.solve grinds and fails
    (5 + 1 / _lam + 4 * sympy.exp(-5 * _lam) / _lam - 1 / _lam ** 2, True),
    (sympy.log(10 ** ((_lam - 1) * 3)) + 10 ** _lam, True),
    # an exponential factor never vanishes: the rest is linear, sympy solves it at once
    ((_lam - 1) * sympy.exp(3 * _lam) / (_lam + 2) ** 2, False),
    (10 ** (1 - _lam) * ((sympy.log(10) + 2) * (_lam - 1) + 1) / (_lam - 1) ** 2, False),
    # the multiplier only in exponents, or only outside them
    (sympy.Rational(18, 5) - 42 * sympy.exp(-_lam) / 5, False),
    ((24 * _lam - 1) / _lam ** 2, False),
])
def test_mixed_transcendental_equations_are_told_apart(equation, mixed):
    assert _mixed_transcendental([equation], {_lam}) is mixed


def test_a_truncated_exponential_comes_out_numeric_and_right():
    law = derive(Support(0, 10), Mean(3), timeout=30)
    assert law.derivation.method.startswith("numeric")
    # reference: E[k] by mpmath quadrature of the derived density, and the density's form
    # exp(-lambda_0 - lambda_1 k) checked at two points against its own multipliers
    pdf = sympy.lambdify(kappa, law.pdf, "mpmath")
    assert abs(mpmath.quad(lambda k: k * pdf(k), [0, 10]) - 3) < 1e-12
    assert abs(mpmath.quad(pdf, [0, 10]) - 1) < 1e-12


# ---------------------------------------------------------------------------
# the closed-form integral of c * exp(a v + b) that spares sympy's Meijer G route
# ---------------------------------------------------------------------------

_v = sympy.Symbol("v", real=True)


@settings(max_examples=25, deadline=None)
@given(st.integers(-40, 40).filter(bool), st.integers(-20, 20), st.integers(1, 9),
       st.sampled_from([(-oo, 0), (0, oo), (-1, 2), (0, 3)]))
def test_exponential_integral_matches_quadrature(a10, b, c, ends):
    a, lower, upper = sympy.Rational(a10, 10), *ends
    value = _exponential_integral(c * sympy.exp(a * _v + b), _v, lower, upper)
    converges = not ((upper == oo and a > 0) or (lower == -oo and a < 0))
    if not converges:
        assert value is None  # divergent: left to sympy, which says so
        return
    # reference: mpmath's quadrature of the integrand itself, at 30 digits (at 15 its
    # half-line quadrature of 10*exp(2.9 x - 16) was off by 2.5e-9, relatively)
    with mpmath.workdps(30):
        reference = mpmath.quad(lambda x: c * mpmath.exp(mpmath.mpf(a.p) / a.q * x + b),
                                [mpmath.mpf(-mpmath.inf) if lower == -oo else lower,
                                 mpmath.inf if upper == oo else upper])
    assert abs(float(value) - reference) <= 1e-9 * abs(reference)


def test_exponential_integral_keeps_symbols_and_refuses_other_forms():
    lam = sympy.Symbol("lambda_1", real=True)
    # the generic branch, as sympy's integrate(..., conds="none") gives it
    assert _exponential_integral(sympy.exp(-lam * _v), _v, 0, oo) == 1 / lam
    assert _exponential_integral(_v * sympy.exp(-lam * _v), _v, 0, oo) is None
    assert _exponential_integral(sympy.Integer(3), _v, 0, 1) is None


@settings(max_examples=10, deadline=None)
@given(st.integers(-30, -1), st.integers(-20, 20), st.integers(-5, 5))
def test_gaussian_integral_over_the_line_matches_quadrature(a10, b, d):
    a = sympy.Rational(a10, 10)
    value = _exponential_integral(3 * sympy.exp(a * _v ** 2 + b * _v + d), _v, -oo, oo)
    # reference: mpmath's quadrature of the integrand over the whole line, split at its peak
    # -b/(2a) and a few widths either side (quad alone misses a peak far from 0)
    peak, width = -b / (2 * float(a)), 1 / math.sqrt(-float(a))
    reference = mpmath.quad(lambda x: 3 * mpmath.exp(float(a) * x ** 2 + b * x + d),
                            [-mpmath.inf, peak - 5 * width, peak, peak + 5 * width, mpmath.inf])
    assert abs(mpmath.mpf(str(sympy.N(value, 20))) / reference - 1) <= 1e-9  # exp(b**2/4|a|) may pass 1e308


@settings(max_examples=10, deadline=None)
@given(st.integers(-30, -1), st.integers(-20, 20), st.integers(-5, 5), st.integers(-20, 20), st.booleans())
def test_gaussian_integral_over_a_half_line_matches_quadrature(a10, b, d, end10, upward):
    a, end = sympy.Rational(a10, 10), sympy.Rational(end10, 10)
    lower, upper = (end, oo) if upward else (-oo, end)
    value = _exponential_integral(3 * sympy.exp(a * _v ** 2 + b * _v + d), _v, lower, upper)
    assert value.has(sympy.erfc) or value.is_number
    # reference: mpmath's quadrature from the finite end, split at the peak -b/(2a) and a few
    # widths either side where they lie inside
    peak, width = -b / (2 * float(a)), 1 / math.sqrt(-float(a))
    inside = [p for p in (peak - 5 * width, peak, peak + 5 * width) if (p > end if upward else p < end)]
    points = sorted({float(end), *inside})
    points = [*points, mpmath.inf] if upward else [-mpmath.inf, *points]
    with mpmath.workdps(30):
        reference = mpmath.quad(lambda x: 3 * mpmath.exp(float(a) * x ** 2 + b * x + d), points)
        assert abs(mpmath.mpf(str(sympy.N(value, 25))) / reference - 1) <= 1e-9


def test_gaussian_integral_with_symbols_is_sympys_generic_branch():
    # reference: sympy's own integrate(..., conds="none") of the same integrals
    lam, mu = sympy.Symbol("lambda_1", real=True), sympy.Symbol("lambda_2", real=True)
    for integrand, lower, upper in ((sympy.exp(-lam * _v ** 2), 0, oo),
                                    (10 * sympy.exp(-lam * _v ** 2 + _v), -oo, 0),
                                    (sympy.exp(-lam * _v ** 2 - mu * _v), 0, oo)):
        ours = _exponential_integral(integrand, _v, lower, upper)
        theirs = sympy.integrate(integrand, (_v, lower, upper), conds="none")
        values = {lam: sympy.Rational(7, 10), mu: sympy.Rational(-3, 2)}
        assert abs(sympy.N((ours - theirs).subs(values), 30)) < 1e-25, (integrand, ours, theirs)


def test_gaussian_integral_is_left_to_sympy_on_a_finite_part_or_when_divergent():
    assert _exponential_integral(sympy.exp(-_v ** 2), _v, 0, 1) is None  # a finite part: sympy's erf
    assert _exponential_integral(sympy.exp(_v ** 2), _v, -oo, oo) is None  # divergent
    assert _exponential_integral(sympy.exp(_v ** 2), _v, 0, oo) is None
    assert _exponential_integral(sympy.exp(_v ** 2), _v, -oo, 0) is None
    # a negative a made of a positive stand-in (a tail of a law at numbers)
    c = sympy.Symbol("c", positive=True)
    assert _exponential_integral(sympy.exp(-c * _v ** 2), _v, 1, oo) == \
        sympy.sqrt(sympy.pi) / sympy.sqrt(c) / 2 * sympy.erfc(sympy.sqrt(c))


# ---------------------------------------------------------------------------
# integrals sympy leaves unevaluated, and integrals done before, skip sympy.integrate
# ---------------------------------------------------------------------------

_l1, _l2, _l3 = sympy.symbols("lambda_1 lambda_2 lambda_3", real=True)


def _refuse_integrate(*args, **kwargs):
    raise AssertionError("sympy.integrate was called")


@pytest.mark.parametrize("integrand, limits", [
    # a generalized log-Laplace law with a Mean, above its point (a gamma-like partition)
    (sympy.exp(-_l1 * kappa - _l2 * sympy.log(kappa / 75)), (75, oo)),
    # two multipliers on log(kappa), a constant factor, the whole half-line
    (sympy.exp(-_l1 * kappa - _l3 - (_l2 - _l3) * sympy.log(kappa)), (0, oo)),
])
def test_log_power_forms_are_what_sympy_leaves_unevaluated(integrand, limits, monkeypatch):
    # reference: sympy itself, which tries every route and returns the integral unevaluated
    assert sympy.integrate(integrand, (kappa, *limits), conds="none").has(sympy.Integral)
    assert _log_power_form(integrand, kappa)
    monkeypatch.setattr(sympy, "integrate", _refuse_integrate)
    piece = Piece(sympy.Integer(limits[0]), limits[1], [], sympy.Integer(0), None)
    assert integrate_piece(integrand, piece).has(sympy.Integral)
    assert integrate_piece(integrand, piece, upper=kappa).has(sympy.Integral)


def test_other_forms_are_left_to_sympy():
    n = sympy.Symbol("n", integer=True)
    assert not _log_power_form(kappa ** -_l2 * sympy.exp(-_l1 * kappa), kappa)  # a power: sympy integrates it
    assert not _log_power_form(sympy.exp(-2 * kappa - sympy.Rational(3, 10) * sympy.log(kappa)), kappa)
    assert not _log_power_form(sympy.exp(-_l2 * sympy.log(kappa)), kappa)  # no polynomial beside the log
    assert not _log_power_form(sympy.exp(-_l1 / kappa - _l2 * sympy.log(kappa)), kappa)
    assert not _log_power_form(sympy.exp(-_l1 * kappa - _l2 * sympy.log(kappa) ** 2), kappa)
    assert not _log_power_form(sympy.exp(-_l1 * kappa - n * sympy.log(kappa)), kappa)
    assert not _log_power_form(kappa * sympy.exp(-_l1 * kappa - _l2 * sympy.log(kappa)), kappa)
    # a power of kappa is integrated by sympy: the same closed form through integrate_piece
    power = kappa ** -_l2 * sympy.exp(-_l1 * kappa)
    reference = sympy.integrate(power, (kappa, 0, oo), conds="none")
    assert not reference.has(sympy.Integral)
    assert integrate_piece(power, Piece(sympy.Integer(0), oo, [], sympy.Integer(0), None)) == reference


def test_integrals_are_kept_and_floats_of_other_precisions_are_not_mixed_up(monkeypatch):
    piece = Piece(sympy.Integer(0), oo, [], sympy.Integer(0), None)
    coarse = sympy.Float("0.5", 15) * kappa * sympy.exp(-kappa)
    fine = sympy.Float("0.5", 40) * kappa * sympy.exp(-kappa)
    # reference: int_0^oo k exp(-k) dk = 1 (by hand), at each Float's own precision
    first = integrate_piece(coarse, piece)
    second = integrate_piece(fine, piece)
    assert first == sympy.Float("0.5", 15) and first._prec == sympy.Float("0.5", 15)._prec
    assert second._prec == sympy.Float("0.5", 40)._prec
    monkeypatch.setattr(sympy, "integrate", _refuse_integrate)
    assert sympy.srepr(integrate_piece(coarse, piece)) == sympy.srepr(first)
    assert sympy.srepr(integrate_piece(fine, piece)) == sympy.srepr(second)


# ---------------------------------------------------------------------------
# the polish's quadrature: raw mpmath sums and the reuse of a point's values
# ---------------------------------------------------------------------------

def _plain_sums(sums, nodes, integrands, log_space):
    """The loop _weighted_sums replaces, with mpmath numbers (the reference)."""
    sums = list(sums)
    for x, w in nodes:
        if log_space:
            k = mpmath.exp(x)
            values = integrands(k)
            w = w * k
        else:
            values = integrands(x)
        for i in range(len(sums)):
            sums[i] += w * values[i]
    return sums


@settings(max_examples=30, deadline=None)
@given(st.lists(st.floats(-50, 50), min_size=1, max_size=12), st.integers(15, 60), st.booleans(),
       st.sampled_from(["real", "zeros", "complex"]))
def test_weighted_sums_are_mpmaths_own_bit_for_bit(xs, dps, log_space, kind):
    with mpmath.workdps(dps):
        nodes = [(mpmath.mpf(x) / 7, mpmath.mpf(1) / (3 + abs(x))) for x in xs]

        def integrands(k):
            if kind == "zeros" and k > 1:
                return [0, 0, 0]
            values = [mpmath.exp(-k), k * mpmath.exp(-k), mpmath.log(k)]
            if kind == "complex" and k > 1:
                values[2] = mpmath.mpc(values[2], 1)
            return values

        start = [mpmath.mpf(1) / 3, mpmath.mpf(0), mpmath.mpf(-2)]
        ours = _weighted_sums(start, nodes, integrands, log_space)
        reference = _plain_sums(start, nodes, integrands, log_space)
        assert [repr(a) for a in ours] == [repr(b) for b in reference]


def test_a_points_moments_are_the_same_when_reused():
    constraints = (Support(0, oo), Mean(4), LogMoment(1, 1))  # the gamma law's
    support = support_of(constraints)
    terms, interior = make_terms(constraints, support)
    _, pieces = build_pieces(support, terms, interior)
    point = [0.4, -0.5]  # exp(-0.4 k) k**0.5: near the root, and integrable
    warm, cold = NumericProblem(pieces, terms), NumericProblem(pieces, terms)
    # double precision: the rules of a point judged by its merit serve the step from it
    warm.float_moments(point, second=False)
    again, fresh = warm.float_moments(point), cold.float_moments(point)
    assert again[0] == fresh[0] and np.array_equal(again[1], fresh[1]) and np.array_equal(again[2], fresh[2])
    with mpmath.workdps(20):
        mp_point = [mpmath.mpf(v) for v in point]
        warm.moments(mp_point, second=False)
        total, means, jacobian = warm.moments(mp_point)
        fresh_total, fresh_means, fresh_jacobian = cold.moments(mp_point)
        assert repr(total) == repr(fresh_total) and list(map(repr, means)) == list(map(repr, fresh_means))
        assert repr(jacobian) == repr(fresh_jacobian)
        # reference: Z = Gamma(1.5)/lambda_1**1.5 (the gamma integral, by hand), to 18 digits
        reference = mpmath.gamma(mpmath.mpf(3) / 2) / mp_point[0] ** (mpmath.mpf(3) / 2)
        assert abs(total / reference - 1) < mpmath.mpf(10) ** -18


@pytest.mark.parametrize("signs, ends", [((True, False), (75, oo)), ((False, True), (0, 10))])
def test_gamma_like_tails_of_stand_ins_are_what_sympy_leaves_unusable(signs, ends):
    # reference: sympy itself, through integrate_piece, writes (-q)**(-p - 1) with exp_polar(I*pi)
    c = sympy.Dummy("c", positive=True)
    p, q = (sympy.Dummy("c", positive=sign) if sign else sympy.Dummy("c", negative=True) for sign in signs)
    integrand = c * kappa ** p * sympy.exp(q * kappa)
    piece = Piece(sympy.Integer(ends[0]), ends[1] if ends[1] == oo else sympy.Integer(ends[1]), [],
                  sympy.Integer(0), None)
    assert _unusable(integrate_piece(integrand, piece, start=kappa))
    assert _polar_power(integrand, {c, p, q})
    # not stand-ins, an integer power, or a Gaussian: left to sympy
    assert not _polar_power(integrand, {c})
    assert not _polar_power(c * kappa ** 3 * sympy.exp(q * kappa), {c, q})
    assert not _polar_power(c * sympy.exp(q * kappa ** 2 + p * kappa), {c, p, q})


def test_the_tail_of_a_gamma_like_piece_is_the_floats_own():
    # the density of the gamma law's kind on [0, 75): k**1.5 exp(-0.4 k), scaled
    density = sympy.Float("0.25", 35) * kappa ** sympy.Float("1.5", 35) * sympy.exp(-sympy.Float("0.4", 35) * kappa)
    piece = Piece(sympy.Integer(0), sympy.Integer(75), [], sympy.Integer(0), None)
    tail = _tail_integral(piece, density, False, {}, sympy.Integer(1), None)
    assert tail == integrate_piece(density, piece, start=kappa)  # the Floats' own integral
    # reference: mpmath quadrature of the density from 3 to 75
    with mpmath.workdps(30):
        reference = mpmath.quad(lambda k: mpmath.mpf("0.25") * k ** 1.5 * mpmath.exp(-mpmath.mpf("0.4") * k), [3, 75])
        assert abs(mpmath.mpf(str(sympy.N(tail.subs(kappa, 3), 30))) / reference - 1) < 1e-25


def _refuse_solve(self, digits, partition=None, exact=None):
    raise AssertionError("the numeric solve ran again")


def test_a_numeric_solution_is_reused_for_the_same_constraints_and_digits(monkeypatch):
    constraints = (Support(0, 10), Mean(sympy.Rational(17, 5)))
    derive.cache_clear()
    first = derive(*constraints, method="numeric", digits=30)
    # reference: the truncated exponential's mean condition 1/l - 10/(exp(10 l) - 1) = 3.4 (by hand)
    rate = first.multipliers[sympy.Symbol("lambda_1", real=True)]
    with mpmath.workdps(40):
        rate = mpmath.mpf(sympy.N(rate, 40))
        assert abs(1 / rate - 10 / (mpmath.exp(10 * rate) - 1) - mpmath.mpf(17) / 5) < mpmath.mpf(10) ** -30
    monkeypatch.setattr(NumericProblem, "solve", _refuse_solve)
    _forget_laws()  # the laws forgotten, the engine's results kept
    again = derive(*constraints, method="numeric", digits=30)
    assert again is not first and sympy.srepr(again.pdf) == sympy.srepr(first.pdf)
    assert dict(again.multipliers) == dict(first.multipliers) and again.notes == first.notes
    # other digits, or other constraints, are solved afresh
    with pytest.raises(AssertionError, match="ran again"):
        derive(*constraints, method="numeric", digits=35)
    with pytest.raises(AssertionError, match="ran again"):
        derive(Support(0, 10), Mean(sympy.Rational(18, 5)), method="numeric", digits=30)
    # derive.cache_clear() forgets the engine's results too: the next derivation is cold
    assert _solutions
    derive.cache_clear()
    assert not _solutions and not _sympy_integral.store
    with pytest.raises(AssertionError, match="ran again"):
        derive(*constraints, method="numeric", digits=30)


def _count_derivations(monkeypatch) -> list:
    """Patch the engine so that each derivation that really runs is recorded."""
    engine = sys.modules["maxent_util.maxent"]  # the package's `derive` attribute is the function
    runs: list = []
    within = engine._derive_within

    def counted(constraints, *args):
        runs.append(constraints)
        return within(constraints, *args)
    monkeypatch.setattr(engine, "_derive_within", counted)
    return runs


def test_a_law_no_time_limit_cut_short_serves_every_timeout(monkeypatch):
    constraints = (Support(0, 10), Mean(sympy.Rational(19, 5)))
    _forget_laws()
    runs = _count_derivations(monkeypatch)
    before = rings()
    first = derive(*constraints, timeout=60, digits=30)
    assert rings() == before and len(runs) == 1
    # every step ran to its end: the law is the one any other timeout gives, with that timeout
    for timeout in (None, 30, 0.001):
        again = derive(*constraints, timeout=timeout, digits=30)
        assert again == first and sympy.srepr(again.pdf) == sympy.srepr(first.pdf)
        assert again._timeout == (math.inf if timeout is None else timeout)
    assert len(runs) == 1 and first._timeout == 60
    assert derive(*constraints, timeout=60, digits=30) is first
    # the other arguments still tell laws apart
    derive(*constraints, timeout=60, digits=35)
    derive(*constraints, timeout=60, method="numeric", digits=30)
    assert len(runs) == 3
    _forget_laws()
    derive(*constraints, timeout=30, digits=30)
    assert len(runs) == 4


def test_a_law_cut_short_by_a_time_limit_is_kept_for_its_own_timeout_only(monkeypatch):
    from maxent_util.distribution import closed_form as distribution

    constraints = (Support(0, 10), Mean(sympy.Rational(21, 5)))
    _forget_laws()
    runs = _count_derivations(monkeypatch)

    def ring(expr):  # the cosmetic simplification runs out of time: the law keeps the raw form
        raise SymbolicTimeout()
    monkeypatch.setattr(distribution, "_paper_form", ring)
    before = rings()
    first = derive(*constraints, timeout=60, digits=30)
    assert rings() > before
    assert derive(*constraints, timeout=60, digits=30) is first and len(runs) == 1
    # with more time the law could come out otherwise: another timeout derives it again
    derive(*constraints, timeout=None, digits=30)
    assert len(runs) == 2
    _forget_laws()


def test_kept_results_drop_the_oldest_beyond_the_limit():
    store: dict = {}
    for number in range(5):
        keep(store, number, number * number, 3)
    # reference: the last three insertions, in order
    assert store == {2: 4, 3: 9, 4: 16} and list(store) == [2, 3, 4]
