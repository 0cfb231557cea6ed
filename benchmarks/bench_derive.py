"""Benchmark of ``derive`` on the paper's seven captime families, and on random constraint sets.

Run ``python benchmarks/bench_derive.py`` (symbolic parameters and the
paper's figure parameters, best of three cold runs) or with ``--quick`` (the
figure parameters, one cold run); ``--families NAME ...`` keeps some of the
seven (the test suite runs ``--quick --families uniform pareto``).  Prints, per
family, the time of a cold derivation (derive's cache and sympy's cache
cleared), of a warm one (the same constraints again) and their ratio
warm/cold; asserts nothing about speed.  The aims: under 2 s cold on a
2-core machine, under 1 ms warm.

``--sweep [N]`` (default 1000) times ``derive_many`` over ``Support(0, 10), Mean(v)`` for N
values against ``derive`` one by one and the dual, and the first ``derive`` in a fresh
process (imports included), in wall-clock and CPU seconds.

``--first-read [N]`` (default 7 rounds) times the first read of the closed form of a law from the
fast route (``law.pdf``, which builds the pdf, CDF, survival function, exact or 30-digit
multipliers and the derivation record) for the paper's families that take the fast route and the
common two-constraint laws, a fresh value each round, derive's cache cleared: written out from
the multipliers (:mod:`maxent_util.maxent.direct`, "after") against the full derivation it took
before ("before": the same law with that writer switched off), interleaved, medians; then the
same in a fresh process per case (imports done, the law derived, its first read timed).

``--bare [N]`` (default 21 rounds) times ``derive(method="numeric")`` on the three named sets of
issue 36 against a bare numpy dual (one fixed Gauss-Legendre rule, Newton, no checks), a fresh
value each round, interleaved, in wall-clock and CPU time; with ``--against DIR`` also the
library checked out in DIR (the "before"), in a worker process given the same values,
interleaved with this checkout's calls, and a table of both side by side.

``--sets [N]`` (default 48 sets, ``--seed 0``) measures instead what issue 27
("Derive at interactive speed") asks to improve: seeded random *equality* sets
of numbers, then as many sets with inequalities (each constraint ``==``, ``<=`` or ``>=`` at
random, at least one a bound; issue 31), each table with the dual timed in the same run (bounded and half-line supports; Mean, Moment(log(kappa)), LogMoment
plain and one-sided, SquaredLogDeviation, TailProbability; 1 to 3 constraints;
values with 2 to 4 significant digits), kept when the independent convex dual
of ``tests/dual.py`` finds their law (within 10 s).  Each set is timed once in this warm
process, derive's cache cleared before each call (sympy's own cache is kept, as
in a long-running session): ``derive`` by the default route, ``derive`` with
``method="numeric"``, and ``dual.solve``.  Then the issue's two named cases,
with a fresh value each call (``--values`` of them): ``Support(0, 10),
Mean(v)`` and ``Support(0, oo), Mean(m), Moment(kappa**2, s)``.  Prints per
route the median, 90th percentile and worst time, how many calls spent their
whole time limit (``--timeout``, default 30 s: a TimeLimitError or 95 % of it),
the ratios of the medians to the dual's, and how many laws disagree with the
dual (lambda_0 = log Z - 1 within 1e-7, every multiplier within 1e-6, both
relative to the value when it is above 1).  Asserts nothing about speed.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from decimal import Decimal
from pathlib import Path
from typing import Any

import numpy as np
import sympy
from sympy.core.cache import clear_cache

from maxent_util.maxent import derive
from maxent_util.families import FAMILIES, FIGURE_PARAMETERS, family_constraints
from maxent_util.constraints import (ContinuousAt, LogMoment, Mean, Moment, SquaredLogDeviation, Support,
                                    TailProbability)
from maxent_util.errors import MaxEntError, TimeLimitError
from maxent_util._timing import SymbolicTimeout, time_limit
from maxent_util.symbols import kappa

ROOT = Path(__file__).resolve().parents[1]

#: the parameters of the paper's Figure "utilgrid" (Section 3)
FIGURE = FIGURE_PARAMETERS


def symbolic_parameters(name: str) -> tuple:
    return tuple(sympy.Symbol(parameter, positive=True) for parameter in FAMILIES[name])


def measure(constraints: tuple, repeat: int) -> tuple[float, float]:
    """(best cold time, best warm time) of ``derive(*constraints)``, in seconds."""
    cold = warm = float("inf")
    for _ in range(repeat):
        derive.cache_clear()
        clear_cache()  # sympy's own cache would make a second "cold" run warm
        start = time.perf_counter()
        derive(*constraints)
        cold = min(cold, time.perf_counter() - start)
        for _ in range(5):
            start = time.perf_counter()
            derive(*constraints)
            warm = min(warm, time.perf_counter() - start)
    return cold, warm


# ---------------------------------------------------------------------------
# random equality sets against the independent convex dual (issue 27)

#: derive's normalising multiplier
LAMBDA_0 = sympy.Symbol("lambda_0", real=True)
#: seconds the dual may take to settle a drawn set; a set it cannot settle in time is not kept
#: (a few draws keep it busy for minutes: an undecided set is no reference)
DUAL_LIMIT = 10.0
#: laws agree when lambda_0 and every multiplier match the dual's to these (relative above 1)
LAMBDA_0_TOLERANCE = 1e-7
MULTIPLIER_TOLERANCE = 1e-6


def _dual():
    """tests/dual.py, the independent convex-dual solver: it lives with the tests because it
    shares no code with the library (that is what makes it a second opinion), so the
    benchmark puts tests/ on the path to import it."""
    tests = str(ROOT / "tests")
    if tests not in sys.path:
        sys.path.insert(0, tests)
    import dual

    return dual


def number(value: float, rng: np.random.Generator) -> str:
    """``value`` with 2 to 4 significant digits, as a person would type it ("0.0231", "15.4")."""
    digits = int(rng.integers(2, 5))
    return format(Decimal(f"{value:.{digits - 1}e}"), "f")


def random_set(rng: np.random.Generator, dual, inequalities: bool = False) -> tuple[tuple, object, list]:
    """One random set: (derive's constraints, the dual's Problem, per constraint the factor that
    turns the dual's multiplier into derive's, lambda_i = -factor * dual's).  Equalities, or with
    ``inequalities`` each constraint "==", "<=" or ">=" at random, at least one of them a bound."""
    bounded = rng.random() < 0.5
    lower = "0" if rng.random() < 0.6 else number(10 ** rng.uniform(-1, 1), rng)
    low = float(lower)
    if bounded:
        upper = number(low + 10 ** rng.uniform(0, 3), rng)
        high = float(upper)
        typical = low + (high - low) * rng.uniform(0.2, 0.6)
    else:
        upper, high = "oo", math.inf
        typical = low + 10 ** rng.uniform(0, 2)

    def inside() -> float:  # a point inside the support, around the typical value
        if bounded:
            return low + (high - low) * rng.uniform(0.1, 0.8)
        return low + (typical - low) * rng.uniform(0.3, 2.0)

    constraints, features, factors = [], [], []
    kinds = rng.choice(["mean", "log_moment", "one_sided", "moment_log", "squared_log", "tail"],
                       size=int(rng.integers(1, 4)), replace=False)
    relations = ["=="] * len(kinds)
    if inequalities:
        relations = [str(r) for r in rng.choice(["==", "<=", ">="], size=len(kinds))]
        if all(r == "==" for r in relations):
            relations[int(rng.integers(len(kinds)))] = str(rng.choice(["<=", ">="]))
    for kind, relation in zip(kinds, relations):
        stated = {} if relation == "==" else {"relation": relation}
        if kind == "mean":
            v = number(low + (typical - low) * rng.uniform(0.6, 1.5), rng)
            constraints.append(Mean(sympy.Rational(v), **stated))
            features.append(dual.mean(float(v), relation))
            factors.append(1 / float(v))
        elif kind == "log_moment":
            k0 = number(typical * 10 ** rng.uniform(-0.5, 0.5), rng)
            v = number(rng.uniform(-1, 1), rng)
            constraints.append(LogMoment(sympy.Rational(v), sympy.Rational(k0), **stated))
            features.append(dual.log_moment(float(v), float(k0), relation))
            factors.append(1.0)
        elif kind == "one_sided":
            side = str(rng.choice(["above", "below"]))
            k0, v = number(inside(), rng), number(rng.uniform(0.1, 1.5), rng)
            constraints.append(LogMoment(sympy.Rational(v), sympy.Rational(k0), side=side, **stated))
            features.append(dual.log_moment(float(v), float(k0), relation, side=side))
            factors.append(1 / float(v))
        elif kind == "moment_log":
            v = number(math.log(typical) + rng.uniform(-0.5, 0.5), rng)
            constraints.append(Moment(sympy.log(kappa), sympy.Rational(v), **stated))
            features.append(dual.moment("log(kappa)", float(v), relation=relation))
            factors.append(1 / abs(float(v)) if float(v) else 1.0)
        elif kind == "squared_log":
            sigma, k0 = number(rng.uniform(0.2, 1.5), rng), number(typical * 10 ** rng.uniform(-0.3, 0.3), rng)
            constraints.append(SquaredLogDeviation(sympy.Rational(sigma), sympy.Rational(k0), **stated))
            features.append(dual.squared_log_deviation(float(sigma), float(k0), relation))
            factors.append(1 / float(sigma) ** 2)
        else:
            k1, delta = number(inside(), rng), number(rng.uniform(0.05, 0.7), rng)
            constraints.append(TailProbability(sympy.Rational(k1), sympy.Rational(delta), **stated))
            features.append(dual.tail_probability(float(k1), float(delta), relation))
            factors.append(1.0)
    support = Support(sympy.Rational(lower), sympy.oo if upper == "oo" else sympy.Rational(upper))
    return (support, *constraints), dual.Problem(low, high, tuple(features)), factors


def dual_sets(count: int, seed: int, dual, inequalities: bool = False) -> list[tuple]:
    """``count`` random sets whose law the dual finds within ``DUAL_LIMIT`` seconds (with its
    law), in the order drawn."""
    rng = np.random.default_rng(seed)
    kept = []
    for _ in range(200 * count):
        if len(kept) == count:
            break
        constraints, problem, factors = random_set(rng, dual, inequalities)
        try:
            with np.errstate(all="ignore"), time_limit(DUAL_LIMIT):
                law = dual.solve(problem)
        except (Exception, SymbolicTimeout):  # noqa: BLE001 - NoLaw, or not settled in time: not kept
            continue
        kept.append((constraints, problem, factors, law))
    return kept


#: the routes timed: name -> derive's keywords.  ``digits=30`` is the full route every law took
#: before the fast route (the symbolic attempt, then 30-digit numerics, the closed form built at
#: once): the "before" of issue 27, measured in the same run
ROUTES = {"auto": ("derive (default route)", {}),
          "numeric": ('derive (method="numeric")', {"method": "numeric"}),
          "full": ("derive(digits=30) (full route)", {"digits": 30}),
          "full numeric": ('  ... method="numeric"', {"digits": 30, "method": "numeric"})}


def timed_derive(constraints: tuple, method: str, timeout: float) -> tuple[float, object]:
    """(seconds, the law or the error) of one derive call by the route ``method`` (a key of
    ROUTES), derive's cache cleared first."""
    derive.cache_clear()
    start = time.perf_counter()
    try:
        result = derive(*constraints, timeout=timeout, **ROUTES[method][1])
    except MaxEntError as error:
        result = error
    return time.perf_counter() - start, result


def timed_dual(problem, dual) -> tuple[float, object]:
    start = time.perf_counter()
    try:
        with np.errstate(all="ignore"):
            result = dual.solve(problem)
    except Exception as error:  # noqa: BLE001 - reported as a disagreement, not raised
        result = error
    return time.perf_counter() - start, result


def _close(value: float, reference: float, tolerance: float) -> bool:
    return abs(value - reference) <= tolerance * max(1.0, abs(reference))


def disagreement(law: object, reference: object, constraints: tuple, factors: list) -> str | None:
    """Why derive's law and the dual's differ, or None when they agree: lambda_0 = log Z - 1,
    and each multiplier lambda_i = -factor_i * the dual's (``constraints`` after the support,
    ``factors`` and the dual's features in the same order)."""
    if isinstance(law, Exception):
        return f"derive: {type(law).__name__}: {str(law)[:120]}"
    if isinstance(reference, Exception):
        return f"dual: {type(reference).__name__}: {str(reference)[:120]}"
    numeric = getattr(law, "numeric", None)
    if numeric is not None and not law.built:
        # the fast route's law: its double-precision multipliers, in the constraints' order
        # (reading law.multipliers would build the closed form, which is timed separately)
        if not _close(numeric.lambda_0, reference.log_z - 1, LAMBDA_0_TOLERANCE):
            return f"lambda_0 = {numeric.lambda_0!r}, dual's log Z - 1 = {reference.log_z - 1!r}"
        for constraint, factor, dual_value, found in zip(constraints[1:], factors, reference.multipliers,
                                                         numeric.multipliers):
            expected = -factor * float(dual_value)
            if not _close(float(found), expected, MULTIPLIER_TOLERANCE):
                return f"multiplier of {constraint!r} = {found!r}, dual's {expected!r}"
        return None
    lambda_0 = float(law.multipliers[LAMBDA_0])
    if not _close(lambda_0, reference.log_z - 1, LAMBDA_0_TOLERANCE):
        return f"lambda_0 = {lambda_0!r}, dual's log Z - 1 = {reference.log_z - 1!r}"
    multipliers = {term[-1]: float(law.multipliers[term[0]]) for term in law.derivation.terms}
    for constraint, factor, dual_value in zip(constraints[1:], factors, reference.multipliers):
        expected = -factor * float(dual_value)
        # a bound that does not bind is left out of the derivation: its multiplier is 0
        found = multipliers.get(constraint, 0.0 if constraint.relation != "==" else None)
        if found is None or not _close(found, expected, MULTIPLIER_TOLERANCE):
            return f"multiplier of {constraint!r} = {found!r}, dual's {expected!r}"
    return None


class Route:
    """The times, time-outs and disagreements of one route over many calls."""

    def __init__(self, name: str, timeout: float | None) -> None:
        self.name, self.timeout = name, timeout
        self.times: list[float] = []
        self.limits = 0
        self.disagreements = 0

    def add(self, seconds: float, result: object, why: str | None = None) -> None:
        self.times.append(seconds)
        if self.timeout is not None and (isinstance(result, TimeLimitError) or seconds >= 0.95 * self.timeout):
            self.limits += 1
        if why is not None:
            self.disagreements += 1

    @property
    def median(self) -> float:
        return float(np.median(self.times)) if self.times else math.nan

    def row(self, reference: "Route | None") -> str:
        times = np.array(self.times)
        ratio = f"{self.median / reference.median:.2f}" if reference is not None and self.times else "-"
        limits = "-" if self.timeout is None else str(self.limits)
        return (f"{self.name:<28} {len(times):>5} {np.median(times) * 1e3:>12.1f} "
                f"{np.percentile(times, 90) * 1e3:>10.1f} {times.max():>10.3f} {limits:>11} "
                f"{self.disagreements:>9} {ratio:>12}")


HEADER = (f"{'route':<28} {'calls':>5} {'median (ms)':>12} {'p90 (ms)':>10} {'worst (s)':>10} "
          f"{'time limit':>11} {'disagree':>9} {'/ dual med.':>12}")


def _sets_table(dual, count: int, seed: int, timeout: float, chosen: list, inequalities: bool) -> None:
    """Time ``count`` random sets by each route in ``chosen`` and by the dual; print the table."""
    kind = "inequality" if inequalities else "equality"
    start = time.perf_counter()
    sets = dual_sets(count, seed, dual, inequalities)
    sizes = [sum(len(s[0]) - 1 == n for s in sets) for n in (1, 2, 3)]
    print(f"{len(sets)} random {kind} sets (seed {seed}) with a law by the dual "
          f"({sizes[0]}, {sizes[1]} and {sizes[2]} with 1, 2 and 3 constraints), drawn in "
          f"{time.perf_counter() - start:.1f} s; timeout={timeout:g} s")
    routes = {name: Route(ROUTES[name][0], timeout) for name in chosen}
    routes["dual"] = Route("dual.solve (tests/dual.py)", None)
    notes = []
    for index, (constraints, problem, factors, _) in enumerate(sets):
        seconds, reference = timed_dual(problem, dual)
        routes["dual"].add(seconds, reference)
        for method in chosen:
            seconds, law = timed_derive(constraints, method, timeout)
            why = disagreement(law, reference, constraints, factors)
            routes[method].add(seconds, law, why)
            shown = ", ".join(map(repr, constraints))
            if why is not None:
                notes.append(f"  set {index} {method}: disagrees ({why}): {shown}")
            elif routes[method].timeout and (isinstance(law, TimeLimitError) or seconds >= 0.95 * timeout):
                notes.append(f"  set {index} {method}: spent its time limit ({seconds:.1f} s): {shown}")
        print(f"set {index}: " + ", ".join(f"{name} {routes[name].times[-1]:.3f} s" for name in routes),
              file=sys.stderr, flush=True)  # progress
    print(HEADER)
    for route in routes.values():
        print(route.row(routes["dual"]))
    slowest = max(range(len(sets)), key=lambda i: routes["auto"].times[i], default=None)
    if slowest is not None:
        print(f"slowest set by the default route ({routes['auto'].times[slowest]:.3f} s): "
              + ", ".join(map(repr, sets[slowest][0])))
    print("\n".join(notes) if notes else "every law agrees with the dual, no call spent its time limit")


def random_sets_benchmark(count: int, seed: int, values: int, timeout: float, full: bool = True) -> None:
    """The issue-27 baseline: random equality sets, random sets with inequalities, and the two
    named cases (see the docstring)."""
    dual = _dual()
    # warm-up: imports, compiled helpers and the first call's costs stay out of the timings
    derive(Support(0, 10), Mean(sympy.Rational(37, 10)), method="numeric", timeout=timeout)
    derive(Support(0, 10), Mean(sympy.Rational(37, 10)), timeout=timeout)
    dual.solve(dual.Problem(0.0, 10.0, (dual.mean(3.7),)))

    chosen = [name for name in ROUTES if full or not name.startswith("full")]
    _sets_table(dual, count, seed, timeout, chosen, inequalities=False)
    print()
    _sets_table(dual, count, seed, timeout, chosen, inequalities=True)

    # the named cases, a fresh value each call
    rng = np.random.default_rng(seed + 1)
    print(f"\nSupport(0, 10), Mean(v), {values} values of v")
    mean = {name: Route(ROUTES[name][0], timeout) for name in chosen}
    mean["dual"] = Route("dual.solve (tests/dual.py)", None)
    for _ in range(values):
        v = number(rng.uniform(0.5, 9.5), rng)
        seconds, reference = timed_dual(dual.Problem(0.0, 10.0, (dual.mean(float(v)),)), dual)
        mean["dual"].add(seconds, reference)
        for method in chosen:
            constraints = (Support(0, 10), Mean(sympy.Rational(v)))
            seconds, law = timed_derive(constraints, method, timeout)
            mean[method].add(seconds, law, disagreement(law, reference, constraints, [1 / float(v)]))
    print(HEADER)
    for route in mean.values():
        print(route.row(mean["dual"]))

    print(f"\nSupport(0, oo), Mean(m), Moment(kappa**2, s), {values} values of (m, s); "
          "no dual (tests/dual.py has no kappa**2 feature)")
    second = {name: Route(ROUTES[name][0], timeout) for name in chosen}
    for _ in range(values):
        m = float(number(rng.uniform(1, 50), rng))
        s = number(m * m * rng.uniform(1.1, 1.9), rng)  # below 2 m**2: a truncated normal with its mode above 0
        for method in chosen:
            seconds, law = timed_derive((Support(0, sympy.oo), Mean(sympy.Rational(str(m))),
                                         Moment(kappa ** 2, sympy.Rational(s))), method, timeout)
            second[method].add(seconds, law, f"{law}" if isinstance(law, Exception) else None)
    print(HEADER)
    for route in second.values():
        print(route.row(None))


def sweep_benchmark(count: int, seed: int) -> None:
    """``count`` values of v in Support(0, 10), Mean(v): derive_many, derive one by one, and the
    dual one by one, each timed in wall-clock and CPU seconds (the CPU time is what a loaded
    machine changes least)."""
    from maxent_util import derive_many

    dual = _dual()
    rng = np.random.default_rng(seed)
    values = np.sort(rng.uniform(0.5, 9.5, count))
    sets = [(Support(0, 10), Mean(float(v))) for v in values]
    derive_many(sets[:3])  # warm-up
    rows = []

    def timed(label: str, work) -> None:
        derive.cache_clear()
        wall, cpu = time.perf_counter(), time.process_time()
        work()
        rows.append((label, time.perf_counter() - wall, time.process_time() - cpu))

    timed("derive_many(sets)", lambda: derive_many(sets))
    timed("[derive(*s) for s in sets]", lambda: [derive(*s) for s in sets])
    timed("dual.solve, one by one", lambda: [dual.solve(dual.Problem(0.0, 10.0, (dual.mean(float(v)),)))
                                             for v in values])
    print(f"Support(0, 10), Mean(v) for {count} values of v (the constraints made beforehand)")
    print(f"{'route':<30} {'wall (s)':>9} {'CPU (s)':>9} {'per law (ms, CPU)':>18} {'/ dual (CPU)':>13}")
    for label, wall, cpu in rows:
        print(f"{label:<30} {wall:>9.3f} {cpu:>9.3f} {cpu / count * 1e3:>18.3f} {cpu / rows[-1][2]:>13.2f}")


def fresh_benchmark(repeat: int) -> None:
    """The first derive in a fresh process, imports included (wall-clock and CPU seconds)."""
    import subprocess

    code = ("import time; w, c = time.perf_counter(), time.process_time()\n"
            "from maxent_util import derive, Support, Mean\n"
            "law = derive(Support(0, 10), Mean(3.7)); law.utility()(2.0)\n"
            "print(time.perf_counter() - w, time.process_time() - c)")
    times = []
    for _ in range(repeat):
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                             cwd=ROOT).stdout.split()
        times.append((float(out[0]), float(out[1])))
    walls, cpus = zip(*times)
    print(f"first derive in a fresh process (imports included), {repeat} runs: wall median "
          f"{np.median(walls):.3f} s, CPU median {np.median(cpus):.3f} s")


#: the laws whose first read ``--first-read`` times: name -> the constraints at a value v in (0, 1)
#: (a fresh v each round, so that no cache of sympy's serves a later round)
FIRST_READ_CASES = {
    "uniform": lambda v: (Support(0, 20 + v),),
    "exponential": lambda v: (Support(0, sympy.oo), Mean(20 + v)),
    "pareto": lambda v: (Support(20 + v, sympy.oo), LogMoment(sympy.Rational(1, 2), 20 + v)),
    "log_normal": lambda v: (Support(0, sympy.oo), LogMoment(0, 20 + v),
                             SquaredLogDeviation(sympy.Rational(1, 2), 20 + v)),
    "piecewise": lambda v: (Support(0, 24), TailProbability(12, sympy.Rational(3, 10) + v / 10)),
    "Support(0, 10), Mean(v)": lambda v: (Support(0, 10), Mean(3 + v)),
    "Support(1, 100), LogMoment(v, 10)": lambda v: (Support(1, 100), LogMoment(1 + v, 10)),
    "LogMoment, SquaredLogDeviation": lambda v: (LogMoment(v / 2, 10), SquaredLogDeviation(1 + v, 10)),
    "Support(0, oo), Mean, Moment(kappa**2)": lambda v: (Support(0, sympy.oo), Mean(5),
                                                        Moment(kappa ** 2, 40 + v)),
    "Support(0, oo), Mean, LogMoment (gamma)": lambda v: (Support(0, sympy.oo), Mean(4),
                                                         LogMoment(sympy.Rational(1, 2) + v / 2, 1)),
    "bounds: [0, 10], E <= m, P(< 1) <= 1/20": lambda v: (
        Support(0, 10), Mean(sympy.Rational(3, 2) + v / 10, relation="<="),
        TailProbability(1, sympy.Rational(1, 20), relation="<=")),
    "bounds: [0, 100], E = 20, P(< 10) >= d": lambda v: (
        Support(0, 100), Mean(20), TailProbability(10, sympy.Rational(1, 2) + v / 10, relation=">=")),
    "generalized log-Laplace (ContinuousAt)": lambda v: (
        Support(0, sympy.oo), LogMoment(sympy.Rational(1, 5) + v / 10, 24, side="below"),
        LogMoment(sympy.Rational(1, 2), 24, side="above"), ContinuousAt(24)),
}


def _value(rng: np.random.Generator) -> sympy.Rational:
    return sympy.Rational(int(rng.integers(1, 999)), 1000)


def _first_read(constraints: tuple, direct: bool) -> tuple[float, str]:
    """(seconds, forms["pdf"]) of the first read of ``derive(*constraints).pdf``, derive's cache
    cleared first; ``direct=False`` builds the closed form by the full derivation, as before."""
    import maxent_util.maxent as engine

    derive.cache_clear()
    law = derive(*constraints)
    writer = engine.direct_law
    if not direct:
        engine.direct_law = lambda *arguments: None
    try:
        start = time.perf_counter()
        law.pdf
        seconds = time.perf_counter() - start
    finally:
        engine.direct_law = writer
    return seconds, law.forms["pdf"]


_FRESH = """
import sys, time
sys.path.insert(0, {root!r}); sys.path.insert(0, {bench!r})
import sympy
import maxent_util.maxent as engine
from bench_derive import FIRST_READ_CASES
from maxent_util import derive
law = derive(*FIRST_READ_CASES[{name!r}](sympy.Rational({value!r})))
if not {direct!r}:
    engine.direct_law = lambda *arguments: None
start = time.perf_counter(); law.pdf; print(time.perf_counter() - start)
"""


def first_read_benchmark(rounds: int, seed: int, only: str | None = None) -> None:
    """The first read of a fast-route law's closed form, before and after, interleaved; ``only``:
    the cases whose name holds it."""
    import os
    import subprocess

    rng = np.random.default_rng(seed)
    cases = {name: case for name, case in FIRST_READ_CASES.items() if only is None or only in name}
    for constraints in (case(sympy.Rational(1, 2)) for case in cases.values()):
        _first_read(constraints, True)  # warm-up: imports and sympy's lazy modules
    print(f"first read of law.pdf after a fast derive, derive's cache cleared, a fresh value each "
          f"round; medians of {rounds} interleaved rounds (load average {os.getloadavg()[0]:.1f})")
    print(f"{'law':<42} {'before (ms)':>11} {'after (ms)':>10} {'before/after':>12}  pdf")
    for name, case in cases.items():
        before, after, forms = [], [], ""
        for round_ in range(rounds):
            pair = [(True, case(_value(rng))), (False, case(_value(rng)))]
            for direct, constraints in (pair if round_ % 2 else pair[::-1]):
                seconds, forms_now = _first_read(constraints, direct)
                (after if direct else before).append(seconds)
                forms = forms_now if direct else forms
        b, a = np.median(before) * 1e3, np.median(after) * 1e3
        print(f"{name:<42} {b:>11.1f} {a:>10.1f} {b / a:>12.1f}  {forms}")
    print(f"\nthe same in a fresh process per case (imports done, the law derived; sympy's own lazy "
          f"imports on the first arithmetic are in the time), medians of 3 (load average "
          f"{os.getloadavg()[0]:.1f})")
    print(f"{'law':<42} {'before (ms)':>11} {'after (ms)':>10} {'before/after':>12}")
    bench = str(Path(__file__).resolve().parent)
    for name in cases:
        times: dict[bool, list] = {True: [], False: []}
        for round_ in range(3):
            for direct in ((True, False) if round_ % 2 else (False, True)):
                code = _FRESH.format(root=str(ROOT), bench=bench, name=name, value=str(_value(rng)),
                                     direct=direct)
                done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
                # a build that ran out of derive's time limit (TimeLimitError) counts as infinite
                times[direct].append(float(done.stdout.split()[-1]) if done.returncode == 0 else math.inf)
        b, a = np.median(times[False]) * 1e3, np.median(times[True]) * 1e3
        print(f"{name:<42} {b:>11.1f} {a:>10.1f} {b / a:>12.1f}")


#: Gauss-Legendre nodes of the bare dual
_BARE_NODES, _BARE_WEIGHTS = np.polynomial.legendre.leggauss(96)


def bare_dual(low: float, high: float, features: list, values: np.ndarray, start: Any,
              jacobian: Any = None) -> np.ndarray:
    """The multipliers of exp(-lambda . g) on [low, high] (in the variable the features are
    written in, times ``jacobian`` of the nodes if given), as one would write it by hand: one
    fixed 96-node Gauss-Legendre rule, Newton's method on log Z + lambda . v with step halving,
    no checks.  ``features``: functions of the nodes."""
    half = (high - low) / 2
    nodes = low + half * (_BARE_NODES + 1)
    weights = half * _BARE_WEIGHTS * (1.0 if jacobian is None else jacobian(nodes))
    g = np.stack([f(nodes) for f in features], axis=1)
    lam = np.array(start, dtype=float)

    def dual(lam: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
        exponent = -(g @ lam)
        peak = exponent.max()
        p = weights * np.exp(exponent - peak)
        z = p.sum()
        p /= z
        mean = p @ g
        centred = g - mean
        return math.log(z) + peak + lam @ values, values - mean, (centred * p[:, None]).T @ centred

    value, gradient, hessian = dual(lam)
    for _ in range(100):
        step = np.linalg.solve(hessian, gradient)
        for _ in range(60):
            trial = dual(lam - step)
            if trial[0] <= value:
                break
            step = step / 2
        lam = lam - step
        value, gradient, hessian = trial
        if np.all(np.abs(gradient) <= 1e-13 * np.maximum(1.0, np.abs(values))):
            break
    return lam


#: the named sets of ``--bare``: (label, constraints at a value v in (0, 1), the bare dual's
#: problem at v: low, high, features, values, start)
BARE_CASES = [
    ("Support(0, 10), Mean(v)",
     lambda v: (Support(0, 10), Mean(sympy.Rational(v) * 8 + 1)),
     lambda v: (0.0, 10.0, [lambda k: k], np.array([float(sympy.Rational(v) * 8 + 1)]), [0.0])),
    ("Support(0, oo), Mean(5), Moment(kappa**2, s)",
     lambda v: (Support(0, sympy.oo), Mean(5), Moment(kappa ** 2, 30 + 10 * sympy.Rational(v))),
     # the density is exp(-a k - b k**2): negligible beyond 12 standard deviations of the mean
     lambda v: (0.0, 5 + 12 * math.sqrt(30 + 10 * float(v)), [lambda k: k, lambda k: k * k],
                np.array([5.0, 30 + 10 * float(v)]), [0.2, 0.0])),
    ("LogMoment(v, 10), SquaredLogDeviation(s, 10)",
     lambda v: (LogMoment(sympy.Rational(v) / 2, 10), SquaredLogDeviation(1 + sympy.Rational(v), 10)),
     # in y = log(kappa/10) the law is a normal (dkappa = 10 exp(y) dy) whose mass lies within
     # 12 of its spreads
     lambda v: (-12 * (1 + float(v)), 12 * (1 + float(v)), [lambda y: y, lambda y: y * y],
                np.array([float(v) / 2, (1 + float(v)) ** 2]), [0.0, 0.5])),
]


#: a worker that times derive(method="numeric") from another checkout (``--bare --against``):
#: reads "case numerator" lines, answers "wall cpu multipliers..."
_AGAINST_WORKER = """
import sys, time
sys.path.insert(0, {bench!r})
import sympy
from bench_derive import BARE_CASES
from maxent_util.maxent import derive
for line in sys.stdin:
    case, numerator = map(int, line.split())
    constraints = BARE_CASES[case][1](sympy.Rational(numerator, 1000))
    derive.cache_clear()
    t0, c0 = time.perf_counter(), time.process_time()
    law = derive(*constraints, method="numeric")
    t1, c1 = time.perf_counter(), time.process_time()
    print(t1 - t0, c1 - c0, *map(repr, map(float, law.numeric.multipliers)), flush=True)
"""


def bare_benchmark(rounds: int, seed: int, against: str | None = None) -> None:
    """derive(method="numeric") on the named sets, derive's cache cleared, against the bare dual,
    interleaved, a fresh value each round; with ``against`` (another checkout of the library),
    its derive too, in a worker process given the same values, interleaved with this one's."""
    import os
    import subprocess

    worker = None
    if against is not None:
        environment = dict(os.environ, PYTHONPATH=str(Path(against).resolve()))
        worker = subprocess.Popen([sys.executable, "-c", _AGAINST_WORKER.format(bench=str(Path(__file__).parent))],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=environment,
                                  cwd=against)

    def before(case: int, numerator: int) -> tuple[float, float, np.ndarray]:
        worker.stdin.write(f"{case} {numerator}\n")
        worker.stdin.flush()
        wall, cpu, *multipliers = worker.stdout.readline().split()
        return float(wall), float(cpu), np.array([float(m) for m in multipliers])

    rng = np.random.default_rng(seed)
    for case, (_, constraints_at, _) in enumerate(BARE_CASES):  # warm-up, both sides
        derive.cache_clear()
        derive(*constraints_at(sympy.Rational(1, 2)), method="numeric")
        if worker is not None:
            before(case, 500)
    print(f"derive(method=\"numeric\"), cache cleared, against a bare numpy dual (one 96-node "
          f"Gauss-Legendre rule, Newton, no checks){'' if against is None else ' and against ' + against}; "
          f"medians of {rounds} interleaved rounds (load average {os.getloadavg()[0]:.1f})")
    print(f"{'':<46} {'wall clock':^30} {'CPU (the process alone)':^30}")
    print(f"{'set':<46} {'derive (ms)':>11} {'bare (ms)':>10} {'ratio':>7} {'derive (ms)':>11} {'bare (ms)':>10} "
          f"{'ratio':>7} {'max rel diff':>13}")
    rows = []
    for case, (label, constraints_at, bare_at) in enumerate(BARE_CASES):
        ours, bare, theirs, worst, worst_theirs = [], [], [], 0.0, 0.0
        for round_ in range(rounds):
            numerator = int(rng.integers(100, 900))
            v = sympy.Rational(numerator, 1000)
            constraints = constraints_at(v)
            low, high, features, values, start = bare_at(v)
            jacobian = np.exp if label.startswith("LogMoment") else None
            if worker is not None and round_ % 2:
                theirs.append(before(case, numerator))
            derive.cache_clear()
            t0, c0 = time.perf_counter(), time.process_time()
            law = derive(*constraints, method="numeric")
            t1, c1 = time.perf_counter(), time.process_time()
            lam = bare_dual(low, high, features, values, start, jacobian)
            t2, c2 = time.perf_counter(), time.process_time()
            if worker is not None and not round_ % 2:
                theirs.append(before(case, numerator))
            ours.append((t1 - t0, c1 - c0))
            bare.append((t2 - t1, c2 - c1))
            found = np.asarray(law.numeric.multipliers, dtype=float)
            worst = max(worst, float(np.max(np.abs(found - lam) / np.maximum(1, np.abs(found)))))
            if worker is not None:
                worst_theirs = max(worst_theirs, float(np.max(np.abs(found - theirs[-1][2])
                                                              / np.maximum(1, np.abs(found)))))
        a, b = np.median(ours, axis=0) * 1e3, np.median(bare, axis=0) * 1e3
        print(f"{label:<46} {a[0]:>11.2f} {b[0]:>10.2f} {a[0] / b[0]:>7.1f} {a[1]:>11.2f} {b[1]:>10.2f} "
              f"{a[1] / b[1]:>7.1f} {worst:>13.1e}")
        if worker is not None:
            t = np.median([r[:2] for r in theirs], axis=0) * 1e3
            rows.append((label, t, a, b, worst_theirs))
    if worker is not None:
        worker.stdin.close()
        worker.wait()
        print(f"\nbefore ({against}) and after (this checkout), the same values, interleaved; CPU ms "
              f"(load average {os.getloadavg()[0]:.1f})")
        print(f"{'set':<46} {'before':>8} {'after':>8} {'bare':>8} {'before/bare':>12} {'after/bare':>11} "
              f"{'before/after':>13} {'max rel diff':>13}")
        for label, t, a, b, diff in rows:
            print(f"{label:<46} {t[1]:>8.2f} {a[1]:>8.2f} {b[1]:>8.2f} {t[1] / b[1]:>12.1f} {a[1] / b[1]:>11.1f} "
                  f"{t[1] / a[1]:>13.2f} {diff:>13.1e}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="figure parameters only, one cold run per family")
    parser.add_argument("--families", nargs="+", choices=list(FAMILIES), default=list(FAMILIES),
                        metavar="NAME", help="only these families, in the paper's order "
                        f"(default all: {', '.join(FAMILIES)})")
    parser.add_argument("--sets", type=int, nargs="?", const=48, default=None, metavar="N",
                        help="instead of the families: N random equality sets (default 48) against "
                        "the independent dual, and the two cases named in issue 27")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random sets (default 0)")
    parser.add_argument("--values", type=int, default=20, metavar="N",
                        help="fresh values per named case with --sets (default 20)")
    parser.add_argument("--timeout", type=float, default=30.0,
                        help="derive's time limit with --sets, seconds (default 30)")
    parser.add_argument("--no-full", action="store_true",
                        help="with --sets: leave out the full route (digits=30), the slow 'before'")
    parser.add_argument("--sweep", type=int, nargs="?", const=1000, default=None, metavar="N",
                        help="instead: derive_many over N values of Mean(v) (default 1000) against "
                        "derive one by one and the dual, and the first derive in a fresh process")
    parser.add_argument("--first-read", type=int, nargs="?", const=7, default=None, metavar="N",
                        help="instead: the first read of a fast-route law's closed form, before and "
                        "after, N interleaved rounds (default 7), then in fresh processes")
    parser.add_argument("--only", default=None, metavar="TEXT",
                        help="with --first-read: only the laws whose name holds TEXT")
    parser.add_argument("--bare", type=int, nargs="?", const=21, default=None, metavar="N",
                        help="instead: derive(method='numeric') on the three named sets against a bare "
                        "numpy dual, N interleaved rounds (default 21)")
    parser.add_argument("--against", default=None, metavar="DIR",
                        help="with --bare: also time derive from the library checked out in DIR (the "
                        "'before'), in a worker process, interleaved")
    options = parser.parse_args(argv)
    if options.bare is not None:
        bare_benchmark(options.bare, options.seed, options.against)
        return
    if options.first_read is not None:
        first_read_benchmark(options.first_read, options.seed, options.only)
        return
    if options.sweep is not None:
        sweep_benchmark(options.sweep, options.seed)
        fresh_benchmark(3)
        return
    if options.sets is not None:
        random_sets_benchmark(options.sets, options.seed, options.values, options.timeout,
                              full=not options.no_full)
        return
    chosen = [name for name in FAMILIES if name in options.families]
    repeat = 1 if options.quick else 3
    settings = [("figure", FIGURE)]
    if not options.quick:
        settings.insert(0, ("symbolic", {name: symbolic_parameters(name) for name in chosen}))

    print(f"{'family':<25} {'parameters':<10} {'cold (s)':>10} {'warm (ms)':>10} {'warm/cold':>11}")
    for label, parameters in settings:
        for name in chosen:
            constraints = family_constraints(name, *parameters[name])
            cold, warm = measure(constraints, repeat)
            print(f"{name:<25} {label:<10} {cold:>10.6f} {warm * 1e3:>10.4f} {warm / cold:>11.2e}")


if __name__ == "__main__":
    main()
