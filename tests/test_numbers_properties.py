"""Every number right: derived utilities evaluate to their own law (issue 23, section 2).

For constraint sets drawn the way people type them (tests/strategies.py), and for every preset
family on a grid of scales and shapes:

- the compiled utility ``K.utility()``, called on a numpy array of points across the support,
  equals 1 - F by independent mpmath quadrature of the law's own pdf (evaluated from its sympy
  tree by ``dual.mp_function``, not by the library's compiler) to 1e-9 absolute;
- the pdf integrates to 1 and meets each constraint (quadrature);
- where the independent convex-dual solver (tests/dual.py) finds a law, ``derive`` returns one
  (no refusal, no time-out) and it is that law; where the dual finds none, ``derive`` refuses
  with a maxent_util error;
- ``score(runtimes, K.utility()).estimate`` is the mean of 1 - F at those runtimes.

The run is bounded: ``derive(..., timeout=TIMEOUT)``, few examples, derandomized.  Set
``MAXENT_UTIL_LONG_PROPERTIES=1`` (or a number of examples) for a longer local run; run this
file as a script (``python tests/test_numbers_properties.py 300``) for a campaign that keeps
going after failures and prints every failing call.
"""

from __future__ import annotations

import math
import os
import sys
import time
from dataclasses import dataclass, field

import mpmath
import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, note, reject, settings

import dual
import strategies

import maxent_util as mu
from maxent_util.errors import MaxEntError

#: seconds allowed to each derivation drawn (half of it bounds derive's symbolic attempt).
#: The drawn sets take at most 3.3 s of CPU each on a quiet machine; the limit is far above that
#: so that a machine busy with other work takes the same routes: at 10 s, the symbolic attempts
#: of the slower sets ran out of wall-clock time under load and fell back to the numeric route
#: on top, and the property took 41.6 s of CPU in the suite against 10.8 s alone
TIMEOUT = 30.0
#: CPU seconds the independent dual may take on a drawn set before the set counts as undecided
#: (and another is drawn): it takes 0.01 to 2 s (a narrow log-normal took 12 to 19 s until the
#: dual stopped at its quadrature's rounding, tests/dual.py NOISE_FLOOR; it now takes 0.1 s)
REFERENCE_SECONDS = 4.0
#: seconds allowed to the issue's cases, each about 2 s of CPU: a limit that only a hang
#: reaches, not a machine busy with other work (as test_numbers_right gives the same laws)
CASE_TIMEOUT = 60.0
#: absolute agreement of the utility with 1 - F by quadrature
TOLERANCE = 1e-9
#: agreement of the law with the dual's maximum-entropy law (the dual is solved to ~1e-11)
LAW_TOLERANCE = 1e-7


def _long_examples() -> int:
    value = os.environ.get("MAXENT_UTIL_LONG_PROPERTIES", "")
    if not value:
        return 0
    return int(value) if value.isdigit() and int(value) > 1 else 300


LONG = _long_examples()

#: each example derives a law (about a second, up to TIMEOUT; the 8 drawn take about 11 s of CPU
#: alone); no shrinking (each step would derive again), the first failing example is reported as
#: drawn
SETTINGS = settings(max_examples=LONG or 8, deadline=None, derandomize=True, database=None,
                    phases=[Phase.explicit, Phase.generate],
                    suppress_health_check=list(HealthCheck))


# ---------------------------------------------------------------------------
# the reference: quadrature of the law's own pdf


@dataclass
class Reference:
    """Survival function at the points, total mass and moments, by mpmath quadrature."""

    points: list[float]
    sf: list[float]
    mass: float
    moments: list[float] = field(default_factory=list)


#: the quadrature stops at kappa = exp(-Y_END) and exp(Y_END): what lies beyond is below
#: exp(-75) for every tail exponent drawn (>= 0.05), and mpmath would spend minutes on
#: exp(-exp(y)) at the huge y that tanh-sinh tries on an infinite interval
Y_END = 1500


def _edges(lower: float, upper: float, extra: list[float]) -> list:
    """The cuts of [lower, upper] in y = log(kappa) (-inf for kappa = 0, inf for kappa = inf)."""
    inner = sorted({float(x) for x in extra if lower < x < upper and math.isfinite(x)})
    inner = [mpmath.log(x) for x in inner if -Y_END < math.log(x) < Y_END]
    return ([-Y_END if lower == 0 else mpmath.log(lower)] + inner
            + [Y_END if upper == math.inf else mpmath.log(upper)])


def quadrature(pdf_expr, lower: float, upper: float, points: list[float], cuts: list[float],
               features: tuple = ()) -> Reference:
    """1 - F at ``points``, the mass, and E[g] of ``features`` by mpmath quadrature of ``pdf_expr``
    (a sympy expression in kappa), the support cut at ``points`` and ``cuts``.

    Integrated in y = log(kappa) (density f(e^y) e^y), so that power tails become exponential
    ones that tanh-sinh handles at any scale."""
    density = dual.mp_function(pdf_expr, mu.kappa)
    with mpmath.workdps(15):  # at 15 digits, as the look-up below (another test may leave mp.dps set)
        edges = _edges(lower, upper, list(points) + list(cuts))

    def f(y):
        x = mpmath.exp(y)
        return mpmath.re(density(x)) * x

    with mpmath.workdps(20):
        pieces = [mpmath.quad(f, [a, b]) for a, b in zip(edges, edges[1:])]
        mass = float(mpmath.fsum(pieces))
        sf = []
        for x in points:
            if x <= lower:
                sf.append(1.0)
            elif x >= upper:
                sf.append(0.0)
            elif not -Y_END < math.log(x) < Y_END:
                sf.append(1.0 if x < 1 else 0.0)
            else:
                # the points are among the edges: sum the pieces from x's edge up
                with mpmath.workdps(15):
                    start = edges.index(mpmath.log(x))
                sf.append(float(mpmath.fsum(pieces[start:])))
    moments = []
    with mpmath.workdps(15):
        for feature in features:
            lo, hi = max(lower, feature.lower), min(upper, feature.upper)
            region = _edges(lo, hi, [float(mpmath.exp(e)) for e in edges[1:-1]])

            def g(y, ft=feature):
                x = mpmath.exp(y)
                value = ft.c0 + ft.q1 * y + ft.q2 * y * y + (ft.m * x if ft.m else 0)
                return value * mpmath.re(density(x)) * x
            moments.append(float(mpmath.fsum(mpmath.quad(g, [a, b]) for a, b in zip(region, region[1:]))))
    return Reference(list(points), sf, mass, moments)


def sample_points(law: dual.Law | None, lower: float, upper: float, breakpoints: list[float]) -> list[float]:
    """Points across the support: its ends, the breakpoints, quantiles of the law, both tails."""
    points = {lower}
    if math.isfinite(upper):
        points |= {upper, upper * 1.5}
    for b in breakpoints:
        if lower < b < upper:
            points |= {b, b * (1 - 1e-9), b * (1 + 1e-9)}
    if law is not None:
        for p in (1e-6, 1e-3, 0.05, 0.25, 0.5, 0.75, 0.95, 0.999, 1 - 1e-6):
            points.add(float(f"{law.quantile(p):.6g}"))
    elif math.isfinite(upper):
        points |= set(np.linspace(lower, upper, 9).tolist())
    else:
        base = max(lower, 1e-3)
        points |= {base * 10.0 ** k for k in range(-3, 9)}
    return sorted(p for p in points if p >= 0)


def cuts_of(law: dual.Law | None, lower: float, upper: float) -> list[float]:
    """Where to cut the quadrature so that tanh-sinh sees each stretch of mass: the dual law's
    quantiles, or a geometric ladder over the support."""
    if law is not None:
        return [law.quantile(p) for p in (1e-12, 1e-9, 1e-6, 1e-4, 0.01, 0.1, 0.3, 0.5, 0.7, 0.9, 0.99,
                                          1 - 1e-4, 1 - 1e-6, 1 - 1e-9, 1 - 1e-12)]
    base = max(lower, 1e-6)
    top = upper if math.isfinite(upper) else base * 1e30
    return list(np.geomspace(base, top, 80))


# ---------------------------------------------------------------------------
# one constraint set, examined


@dataclass
class Outcome:
    """What happened to one set: ``kind`` is "law", "refused", "no law" (dual and library
    agree there is none) or "undecided" (the dual could not tell); ``problems`` the failures."""

    call: str
    kind: str = ""
    problems: list[str] = field(default_factory=list)
    seconds: float = 0.0


def check_law(law_k, reference_law: dual.Law | None, problem: dual.Problem, call: str) -> list[str]:
    """The properties of one derived law; the failures, as text."""
    problems: list[str] = []
    lower, upper = problem.lower, problem.upper
    breakpoints = sorted({float(b) for b in law_k.breakpoints if b.is_finite} | set(problem.breakpoints()))
    points = sample_points(reference_law, lower, upper, breakpoints)
    ref = quadrature(law_k.pdf, lower, upper, points, breakpoints + cuts_of(reference_law, lower, upper),
                     problem.features)
    if abs(ref.mass - 1) > 1e-9:
        problems.append(f"{call}: the pdf integrates to {ref.mass!r}, not 1")
    for feature, value in zip(problem.features, ref.moments):
        gap = value - feature.target
        bad = {"==": abs(gap), "<=": gap, ">=": -gap}[feature.relation] > 1e-7 * max(1.0, abs(feature.target))
        if bad:
            problems.append(f"{call}: {feature.label} {feature.relation} {feature.target!r} fails: "
                            f"E = {value!r} (quadrature of the pdf, scaled feature)")
    utility = law_k.utility()
    try:
        got = np.asarray(utility(np.array(points, dtype=float)), dtype=float)
    except Exception as error:  # noqa: BLE001 - any exception is a finding
        return problems + [f"{call}: K.utility()(array) raised {type(error).__name__}: {str(error)[:200]}"]
    expected = np.array(ref.sf)
    wrong = [(x, e, g) for x, e, g in zip(points, expected, got) if not abs(e - g) <= TOLERANCE]
    if wrong:
        shown = ", ".join(f"u({x:.6g}) = {g!r} (expected {e:.10g})" for x, e, g in wrong[:4])
        problems.append(f"{call}: utility differs from 1 - F by quadrature at {len(wrong)} of "
                        f"{len(points)} points: {shown}")
    if reference_law is not None:
        off = [(x, e, reference_law.sf(x)) for x, e in zip(points, expected)
               if abs(e - reference_law.sf(x)) > LAW_TOLERANCE]
        if off:
            shown = ", ".join(f"S({x:.6g}) = {e:.10g} (dual {d:.10g})" for x, e, d in off[:3])
            problems.append(f"{call}: not the maximum-entropy law of the dual: {shown}")
    runtimes = [x for x in points if x > 0][:: max(1, len(points) // 5)]
    if runtimes:
        try:
            estimate = mu.score(runtimes, utility).estimate
        except Exception as error:  # noqa: BLE001
            problems.append(f"{call}: score(...) raised {type(error).__name__}: {str(error)[:200]}")
        else:
            mean = float(np.mean([e for x, e in zip(points, expected) if x in runtimes]))
            if not abs(estimate - mean) <= TOLERANCE:
                problems.append(f"{call}: score({runtimes}).estimate = {estimate!r}, expected {mean:.10g}")
    return problems


def examine(spec: strategies.Spec, timeout: float = TIMEOUT) -> Outcome:
    """Derive the law of ``spec`` (within ``timeout`` seconds) and check it against the dual
    and quadrature."""
    outcome = Outcome(spec.call())
    started = time.process_time()
    problem = spec.problem()
    try:
        reference_law = dual.solve(problem, seconds=REFERENCE_SECONDS if timeout == TIMEOUT else None)
    except dual.NoLaw as why:
        if str(why).startswith("undecided"):
            outcome.kind = "undecided"
            return outcome
        reference_law, no_law = None, str(why)
    try:
        law_k = mu.derive(*spec.constraints(), timeout=timeout)
    except MaxEntError as error:
        outcome.kind = "refused" if reference_law is not None else "no law"
        if reference_law is not None:
            outcome.problems.append(
                f"{outcome.call}: refused with {type(error).__name__} ({str(error)[:160]}) though the dual "
                f"finds a law (multipliers {reference_law.multipliers})")
        return _timed(outcome, started)
    except Exception as error:  # noqa: BLE001 - any other exception is a finding
        outcome.kind = "raw error"
        verdict = "finds a law" if reference_law is not None else f"finds none: {no_law}"
        outcome.problems.append(f"{outcome.call}: raised {type(error).__name__} (not a maxent_util error): "
                                f"{str(error)[:200]} (the dual {verdict})")
        return _timed(outcome, started)
    outcome.kind = "law"
    if reference_law is None:
        outcome.problems.append(f"{outcome.call}: derived a law where the dual finds none ({no_law})")
    try:
        outcome.problems += check_law(law_k, reference_law, problem, outcome.call)
    except Exception as error:  # noqa: BLE001
        outcome.problems.append(f"{outcome.call}: checking the law raised {type(error).__name__}: "
                                f"{str(error)[:200]}")
    return _timed(outcome, started)


def _timed(outcome: Outcome, started: float) -> Outcome:
    outcome.seconds = time.process_time() - started
    return outcome


# ---------------------------------------------------------------------------
# the cases, by hand


def test_log_normal_with_offset_scores_its_law():
    """Issue 23, section 1: the log-normal with a log-mean offset scored every runtime 0.
    References: scipy.stats.lognorm(s = sqrt(0.81 - 0.231**2), scale = 15 exp(-0.231)).sf."""
    from scipy import stats

    law = mu.derive(mu.Support(0, "oo"), mu.SquaredLogDeviation(0.9, 15), mu.LogMoment(-0.231, 15),
                    timeout=CASE_TIMEOUT)
    runtimes = np.array([5.0, 9.0, 15.5, 30.0])
    expected = stats.lognorm(math.sqrt(0.81 - 0.231 ** 2), scale=15 * math.exp(-0.231)).sf(runtimes)
    np.testing.assert_allclose(expected, [0.8407, 0.6262, 0.3808, 0.1440], atol=1e-4)
    np.testing.assert_allclose(law.utility()(runtimes), expected, rtol=0, atol=TOLERANCE)
    assert mu.score([5.0, 9.0, 20.0], law.utility()).estimate == pytest.approx(
        float(np.mean(stats.lognorm(math.sqrt(0.81 - 0.231 ** 2), scale=15 * math.exp(-0.231)).sf(
            [5.0, 9.0, 20.0]))), abs=TOLERANCE)


def test_log_normal_with_offset_against_dual_and_quadrature():
    spec = strategies.Spec(strategies.Value("0", True), None, (
        strategies.Item("SquaredLogDeviation", (strategies.Value("0.9", False), strategies.Value("15", False))),
        strategies.Item("LogMoment", (strategies.Value("-0.231", False), strategies.Value("15", False)))))
    outcome = examine(spec, CASE_TIMEOUT)
    assert outcome.kind == "law" and not outcome.problems, "\n".join(outcome.problems)


@pytest.mark.parametrize("support, sigma, kappa0", [
    (("1.11", "20.5"), "0.709", "4.77"),   # the bound is active (lambda_1 = 0.994268)
    (("2.63", "89.5"), "1.27", "15.3"),    # the bound is inactive: the uniform law
])
def test_log_spread_bound_on_a_bounded_support(support, sigma, kappa0):
    """Issue 23, section 1: inequality bounds on a log spread raised a 4300-digit ValueError
    or used the whole time limit."""
    spec = strategies.Spec(strategies.Value(support[0], True), strategies.Value(support[1], True), (
        strategies.Item("SquaredLogDeviation", (strategies.Value(sigma, True), strategies.Value(kappa0, True)),
                        "<="),))
    outcome = examine(spec, CASE_TIMEOUT)
    assert outcome.kind == "law" and not outcome.problems, "\n".join(outcome.problems)


def test_a_law_whose_closed_form_holds_erf_of_an_imaginary_argument():
    """Drawn by the property below (in another module, so with another seed): reading the law's
    pdf raised a raw TypeError, mpmath's quadrature of a density written with erf(i y) giving
    an mpc with a zero imaginary part. The law is checked against the dual and quadrature."""
    V = strategies.Value
    spec = strategies.Spec(V("8.52e-06", False), V("0.028", True), (
        strategies.Item("SquaredLogDeviation", (V("0.5146", False), V("0.0005683", True)), ">="),
        strategies.Item("Moment", ("log(kappa)**2", V("28.0", False)),
                        where=(V("0.000833", True), V("0.01592", False))),
        strategies.Item("Mean", (V("0.008852", False),), "<=")))
    outcome = examine(spec, CASE_TIMEOUT)
    assert outcome.kind == "law" and not outcome.problems, "\n".join(outcome.problems)


# ---------------------------------------------------------------------------
# the property over drawn sets


@SETTINGS
@given(strategies.constraint_sets())
def test_derived_utility_is_its_own_law(spec):
    outcome = examine(spec)
    note(f"{outcome.kind}: {outcome.call}")
    if outcome.kind == "undecided":
        reject()
    assert not outcome.problems, "\n".join(outcome.problems)


# ---------------------------------------------------------------------------
# preset families on a grid of scales and shapes


def _family_reference(name: str, args: tuple, x: float) -> float:
    """1 - F of the preset at x, from the known law at 30 digits.

    uniform(k0): scipy.stats.uniform(0, k0); exponential(k0): scipy.stats.expon(scale=k0);
    pareto(k0, a): scipy.stats.pareto(a, scale=k0); log_laplace(k0, a):
    scipy.stats.loglaplace(a, scale=k0); log_normal(k0, s): scipy.stats.lognorm(s, scale=k0);
    generalized_log_laplace(k0, a, b) (no scipy law; the paper's Appendix C): mass
    p = a/(a + b) below k0, S = 1 - p (x/k0)**b below and (1 - p)(k0/x)**a above;
    piecewise(k0, k1, d): uniform with mass d on [0, k1] and 1 - d on [k1, k0].  Written out
    in mpmath (the same formulas scipy uses) so that tails keep their digits.
    """
    with mpmath.workdps(30):
        x = mpmath.mpf(x)
        a = [mpmath.mpf(dual.typed(v)) for v in args]
        if x <= 0:
            return 1.0
        if name == "uniform":
            value = max(mpmath.mpf(0), 1 - x / a[0])
        elif name == "exponential":
            value = mpmath.exp(-x / a[0])
        elif name == "pareto":
            value = 1 if x < a[0] else (a[0] / x) ** a[1]
        elif name in ("log_laplace", "generalized_log_laplace"):
            k0, alpha = a[0], a[1]
            beta = a[2] if name == "generalized_log_laplace" else a[1]
            p = alpha / (alpha + beta)
            value = 1 - p * (x / k0) ** beta if x < k0 else (1 - p) * (k0 / x) ** alpha
        elif name == "log_normal":
            value = mpmath.erfc(mpmath.log(x / a[0]) / (a[1] * mpmath.sqrt(2))) / 2
        elif name == "piecewise":
            k0, k1, d = a
            value = 1 - d * x / k1 if x < k1 else max(mpmath.mpf(0), (1 - d) * (k0 - x) / (k0 - k1))
        else:
            raise AssertionError(name)
        return float(value)


def _family_points(name: str, args: tuple) -> list[float]:
    k0 = dual.typed(args[0])
    points = [k0 * f for f in (1e-6, 1e-3, 0.1, 0.5, 0.999, 1.0, 1.001, 2.0, 10.0, 1e3, 1e6)]
    if name == "piecewise":
        k1 = dual.typed(args[1])
        points += [k1 * 0.5, k1, k1 * 1.0001]
    return sorted(points)


SCALES = ("0.001", "0.0371", "1", "24", "1500", "100000")
SHAPES = ("0.05", "0.3", "1", "3.42", "20")
SHAPES_CI = ("0.05", "1", "20")


def family_grid(long: bool) -> list[tuple[str, tuple]]:
    """(family, arguments) over scales 1e-3..1e5 and shapes 0.05..20 (the CI grid a subset)."""
    shapes = SHAPES if long else SHAPES_CI
    scales = SCALES if long else ("0.001", "1", "24", "100000")
    grid: list[tuple[str, tuple]] = []
    for k0 in scales:
        grid += [("uniform", (k0,)), ("exponential", (k0,))]
        for s in shapes:
            grid += [("pareto", (k0, s)), ("log_laplace", (k0, s)), ("log_normal", (k0, s))]
            for b in shapes:
                if long or s != b:
                    grid.append(("generalized_log_laplace", (k0, s, b)))
        for k1, d in (("0.001", "0.01"), ("0.5", "0.3"), ("0.999", "0.99")):
            grid.append(("piecewise", (k0, strategies.decimal_text(dual.typed(k0) * float(k1), 4), d)))
    grid.append(("generalized_log_laplace", ("1500", "3.42", "0.0993")))  # the paper's 0.25735 at t = 100
    return grid


def check_family(name: str, args: tuple, quadrature_check: bool = True) -> list[str]:
    call = f"{name}({', '.join(args)})"
    try:
        law = getattr(mu, name)(*(float(a) for a in args))
    except MaxEntError as error:
        return [f"{call}: refused with {type(error).__name__}: {str(error)[:160]}"]
    except Exception as error:  # noqa: BLE001
        return [f"{call}: raised {type(error).__name__}: {str(error)[:200]}"]
    points = _family_points(name, args)
    expected = [_family_reference(name, args, x) for x in points]
    problems = []
    try:
        got = np.asarray(law.utility()(np.array(points)), dtype=float)
    except Exception as error:  # noqa: BLE001
        return [f"{call}.utility()(array) raised {type(error).__name__}: {str(error)[:200]}"]
    wrong = [(x, e, g) for x, e, g in zip(points, expected, got) if not abs(e - g) <= TOLERANCE]
    if wrong:
        shown = ", ".join(f"u({x:.6g}) = {g!r} (expected {e:.10g})" for x, e, g in wrong[:4])
        problems.append(f"{call}: utility differs from the known law at {len(wrong)} of {len(points)} "
                        f"points: {shown}")
    if quadrature_check:
        k0 = dual.typed(args[0])
        upper = k0 if name in ("uniform", "piecewise") else math.inf
        lower = k0 if name == "pareto" else 0.0
        inner = [p for p in points if lower < p < upper]
        try:
            ref = quadrature(law.pdf, lower, upper, inner, list(np.geomspace(k0 * 1e-30, k0 * 1e30, 61)))
        except Exception as error:  # noqa: BLE001
            return problems + [f"{call}: quadrature of its pdf raised {type(error).__name__}: {str(error)[:200]}"]
        if abs(ref.mass - 1) > 1e-9:
            problems.append(f"{call}: the pdf integrates to {ref.mass!r}, not 1")
        off = [(x, s, _family_reference(name, args, x)) for x, s in zip(inner, ref.sf)
               if abs(s - _family_reference(name, args, x)) > TOLERANCE]
        if off:
            shown = ", ".join(f"S({x:.6g}) = {s:.10g} by quadrature (known {e:.10g})" for x, s, e in off[:3])
            problems.append(f"{call}: its pdf is not the known law: {shown}")
    return problems


@pytest.mark.parametrize("name, args", family_grid(bool(LONG)), ids=lambda v: str(v))
def test_family_utility_is_its_law(name, args):
    problems = check_family(name, args, quadrature_check=bool(LONG) or args[0] in ("1", "24"))
    assert not problems, "\n".join(problems)


# ---------------------------------------------------------------------------
# a campaign: python tests/test_numbers_properties.py [examples]


def campaign(examples: int, seed: int = 0) -> None:  # pragma: no cover - run by hand
    from hypothesis import seed as hypothesis_seed

    outcomes: list[Outcome] = []

    @settings(max_examples=examples, deadline=None, database=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @hypothesis_seed(seed)
    @given(strategies.constraint_sets())
    def run(spec):
        outcome = examine(spec)
        outcomes.append(outcome)
        status = "FAIL" if outcome.problems else "ok"
        print(f"[{len(outcomes)}] {status} {outcome.kind} {outcome.seconds:.1f}s {outcome.call}", flush=True)
        for p in outcome.problems:
            print("    " + p, flush=True)

    started = time.process_time()
    run()
    counts: dict[str, int] = {}
    for o in outcomes:
        key = f"{o.kind}, {'failed' if o.problems else 'agreed'}"
        counts[key] = counts.get(key, 0) + 1
    print(f"\n{len(outcomes)} sets in {time.process_time() - started:.0f} s CPU:", counts)


if __name__ == "__main__":  # pragma: no cover
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    campaign(int(sys.argv[1]) if len(sys.argv) > 1 else 200, int(sys.argv[2]) if len(sys.argv) > 2 else 0)
