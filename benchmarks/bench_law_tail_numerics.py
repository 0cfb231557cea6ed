"""The fast-route law's written tails with one ``exp`` instead of ``exp`` and ``expm1``: how far
from today's numbers, how accurate, how fast.

Run ``python benchmarks/bench_law_tail_numerics.py`` (a few minutes; ``--mp`` and ``--n``
set its size). Where a segment's density is exp(c0 + c1 u) the law's tails are written out
(``maxent_util.maxent.fast``): the share of the segment on a runtime's side is
exp(c1 (u - top)) times -expm1(-|c1| width) / |c1|, times the segment's ratio of masses. Without
numpy's AVX-512 loops ``expm1`` is the C library's (about twice an ``exp``), so the candidates
below drop it where the runtime's part of its segment is wide (its density falls by at least a
factor exp(T) across it), keeping the library's formula, bit for bit, where it is narrow:

- ``exp - 1``: expm1(y) replaced by exp(y) - 1 where y <= -ln 2 (no cancellation: exp(y) <= 1/2),
  every other operation as the library's (two ``exp`` where the density falls away from u);
- ``E - K, times ratio / slope``: where the density falls away from u towards the far end F of the
  segment, exp(c1 (u - top)) - K with the constant K = exp(c1 (F - top)), times the constant
  ratio / |c1| (one ``exp``; T = max(ln 2, log1p(drop)), drop = |c1 (F - top)|); where it rises
  towards the top, exp(y) - 1 as above, times the constant -ratio / |c1|;
- ``E - K, / slope, times ratio``: the same with the library's division by |c1| and product by the
  ratio kept apart, and a wider narrow part (T = max(ln 4, log(drop + 3)): the rounding of
  exp(c1 (u - top)) is amplified by 1 / (1 - K / E) <= 1 + 1 / (drop + 2));
- ``E - K where it falls, / slope, times ratio``: the same where the density falls away from u,
  the library's formula where it rises towards the top (there exp(y) - 1 is no more accurate than
  expm1(y)); the scorer benchmark's S is on the falling side.

For each law (truncated exponentials of many means on three widths, shifted exponentials,
powers of kappa from LogMoment, several segments) and each tail it prints the ulp distance of
each candidate to the library's numbers on ``--n`` runtimes a law, and the error against mpmath
at 30 digits (the law's own constants and the double u: the arithmetic after the logarithm) on
``--mp`` of them, in ulp of the result (results below 1e-280 left out: there an intermediate may be
subnormal, with less than double precision in every route); then the time a runtime of each on
one block of 2^15 of the scorer benchmark's runtimes in cache (``Support(0, 3600), Mean(1200)``,
whole-array numpy, best of ``--repeat``).
Set ``NPY_DISABLE_CPU_FEATURES`` to the dispatched features this CPU has (as ``.ci/run`` builds
the list) to measure without the widest SIMD. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from pathlib import Path
from typing import Callable

import mpmath
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the checkout this file is in, not an installed copy

import maxent_util as mu  # noqa: E402
from maxent_util import LogMoment, Mean, Support, TailProbability  # noqa: E402

#: (in_log, low, high, c1, top, ratio, beyond): a segment's constants for one tail
Tail = tuple


#: the law of the scorer benchmark (bench_scorer_floor.py)
BENCHMARK_LAW = "[0, 3600], mean 0.333333 of it"


def laws() -> list[tuple[str, tuple]]:
    found = [(f"[0, {width:g}], mean {share:g} of it", (Support(0, width), Mean(share * width)))
             for width in (1.0, 3600.0, 1e5)
             for share in (0.001, 0.01, 0.05, 0.2, 1 / 3, 0.45, 0.55, 0.7, 0.95, 0.99, 0.999)]
    found += [(f"[{a}, oo), mean {m:g}", (Support(a, "oo"), Mean(m))) for a, m in ((0, 1200), (5, 50), (1, 1e4))]
    found += [("[1, 100], mean 20", (Support(1, 100), Mean(20))),
              ("[1, 100], mean 80", (Support(1, 100), Mean(80))),
              ("a power from 0", (Support(0, 100), LogMoment(2, 10))),
              ("a power on a half line", (Support(2, "oo"), LogMoment(0.5, 3))),
              ("a power on [1, 1e4]", (Support(1, 1e4), LogMoment(8, 1))),
              ("two powers", (Support(1, "oo"), LogMoment(1, 10, side="below"), LogMoment(0.5, 10, side="above"))),
              ("a mean and a tail probability", (Support(0, 3600), Mean(900), TailProbability(600, 0.5)))]
    return found


def _width(tail: Tail, u: np.ndarray, upper: bool) -> np.ndarray:
    in_log, low, high, c1, top, ratio, beyond = tail
    width = high - u if upper else u - low
    return np.maximum(width, 0.0) if in_log or (upper and math.isfinite(high)) else width


def _falls(tail: Tail, upper: bool) -> bool:
    return tail[3] < 0 if upper else tail[3] > 0


def _exponent(tail: Tail, u: np.ndarray) -> np.ndarray:
    top, c1 = tail[4], tail[3]
    return (u - top if top else u) * c1


def library(tail: Tail, u: np.ndarray, upper: bool) -> np.ndarray:
    """The library's share times the ratio (``_exponential_tail`` before the mass beyond), whole arrays."""
    c1, ratio = tail[3], tail[5]
    if c1 == 0:
        return _width(tail, u, upper) * ratio
    q = np.expm1(_width(tail, u, upper) * -abs(c1)) / -abs(c1)
    return (np.exp(_exponent(tail, u)) * q if _falls(tail, upper) else q) * ratio


def exp_minus_one(tail: Tail, u: np.ndarray, upper: bool) -> np.ndarray:
    c1, ratio = tail[3], tail[5]
    if c1 == 0:
        return library(tail, u, upper)
    y = _width(tail, u, upper) * -abs(c1)
    m = np.exp(y) - 1.0
    narrow = ~(y <= -math.log(2.0))
    m[narrow] = np.expm1(y[narrow])
    q = m / -abs(c1)
    return (np.exp(_exponent(tail, u)) * q if _falls(tail, upper) else q) * ratio


def _one_exp(tail: Tail, u: np.ndarray, upper: bool, reach: Callable[[float], float], apart: bool,
             rising: bool = True) -> np.ndarray:
    in_log, low, high, c1, top, ratio, beyond = tail
    if c1 == 0 or not (rising or _falls(tail, upper)):
        return library(tail, u, upper)
    slope = abs(c1)
    if not _falls(tail, upper):
        y = _width(tail, u, upper) * -slope
        m = np.exp(y) - 1.0
        value = (m / -slope) * ratio if apart else m * (ratio / -slope)
        narrow = ~(y <= -math.log(4.0 if apart else 2.0))
    else:
        far = high if upper else low
        if not math.isfinite(far):
            return library(tail, u, upper)  # E / |c1| already: no expm1 to drop
        drop = -c1 * (far - top)
        d = np.exp(_exponent(tail, u)) - math.exp(-drop)
        value = (d / slope) * ratio if apart else d * (ratio / slope)
        bound = reach(drop) / slope
        narrow = ~(u < far - bound) if upper else ~(u > far + bound)
    value[narrow] = library(tail, u[narrow], upper)
    return value


CANDIDATES: dict[str, Callable[[Tail, np.ndarray, bool], np.ndarray]] = {
    "exp - 1": exp_minus_one,
    "E - K, times ratio / slope": lambda tail, u, upper: _one_exp(
        tail, u, upper, lambda drop: max(math.log(2.0), math.log1p(drop)), apart=False),
    "E - K, / slope, times ratio": lambda tail, u, upper: _one_exp(
        tail, u, upper, lambda drop: max(math.log(4.0), math.log(drop + 3.0)), apart=True),
    "E - K where it falls, / slope, times ratio": lambda tail, u, upper: _one_exp(
        tail, u, upper, lambda drop: max(math.log(4.0), math.log(drop + 3.0)), apart=True, rising=False),
}


def runtimes(numeric, n: int, rng: np.random.Generator) -> np.ndarray:
    low, high = numeric.support
    top = high if math.isfinite(high) else 60 * max(float(numeric.mean()), 1.0)
    near = max(low, 1e-9 * top)
    x = np.concatenate([rng.uniform(low, top, n // 2),
                        np.exp(rng.uniform(math.log(near), math.log(top), n // 4)),
                        top - (top - low) * np.exp(rng.uniform(-30, 0, n - n // 2 - n // 4))])
    return x[(x > low) & (x < high)]


def exact(tail: Tail, u: float, upper: bool) -> mpmath.mpf:
    """beyond + ratio times the integral of exp(c1 (v - top)) over u's part, at the double u."""
    in_log, low, high, c1, top, ratio, beyond = (mpmath.mpf(v) for v in tail)
    u = mpmath.mpf(u)
    a, b = (u, high) if upper else (low, u)
    if c1 == 0:
        part = b - a
    elif not mpmath.isfinite(a):
        part = mpmath.exp(c1 * (b - top)) / c1
    else:
        part = mpmath.exp(c1 * (a - top)) * (mpmath.expm1(c1 * (b - a)) if mpmath.isfinite(b) else -1) / c1
    return beyond + ratio * part


def _ulp_distance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    distance = np.abs(a.view(np.int64) - b.view(np.int64))  # both >= 0
    return distance[(a >= _SMALLEST) & (b >= _SMALLEST)]


#: results below this are left out of the statistics: there exp(c1 (u - top)) may be subnormal,
#: with less than double precision in every route, and their ulp are not comparable
_SMALLEST = 1e-280


def accuracy(n: int, mp: int) -> None:
    rng = np.random.default_rng(1)
    names = list(CANDIDATES)
    distances: dict[str, list[np.ndarray]] = {name: [] for name in names}
    errors: dict[str, list[np.ndarray]] = {name: [] for name in ["library"] + names}
    benchmark_law: dict[str, np.ndarray] = {}  # S of the scorer benchmark's law
    for label, constraints in laws():
        numeric = mu.derive(*constraints).numeric
        written = numeric._written_segments()
        x = runtimes(numeric, n, rng)
        segment = np.clip(np.searchsorted(numeric.problem.ends, x, side="right") - 1, 0, len(written) - 1)
        for upper in (True, False):
            values: dict[str, list[np.ndarray]] = {name: [] for name in ["library"] + names}
            us, tails = [], []
            for s in np.flatnonzero(written):
                inside = x[segment == s]
                tail = numeric._segment_tails(upper)[s]
                u = np.log(inside) if tail[0] else inside
                keep = (u > tail[1]) & (u < tail[2])
                u = u[keep]
                library_values = numeric._tail(inside[keep], upper)
                values["library"].append(library_values)
                for name, candidate in CANDIDATES.items():
                    with np.errstate(all="ignore"):
                        mine = candidate(tail, u, upper)
                    values[name].append(np.clip(mine + tail[6] if tail[6] else mine, 0.0, 1.0))
                us.append(u)
                tails += [tail] * u.size
            if not us:
                continue
            merged = {name: np.concatenate(v) for name, v in values.items()}
            u = np.concatenate(us)
            for name in names:
                distances[name].append(_ulp_distance(merged[name], merged["library"]))
            pick = rng.choice(u.size, min(mp, u.size), replace=False)
            with mpmath.workdps(30):
                reference = [exact(tails[i], float(u[i]), upper) for i in pick]
            spacing = np.array([float(np.spacing(float(r))) for r in reference])
            good = np.array([float(r) >= _SMALLEST for r in reference])
            for name in errors:
                with mpmath.workdps(30):
                    gap = np.array([float(abs(mpmath.mpf(float(merged[name][i])) - r))
                                    for i, r in zip(pick, reference)])
                errors[name].append((gap / np.where(good, spacing, 1.0))[good])
                if label == BENCHMARK_LAW and upper:
                    benchmark_law[name] = errors[name][-1]
    print(f"{sum(d.size for d in distances[names[0]]):,} runtimes x tails, {len(errors['library'])} laws x tails; "
          f"NPY_DISABLE_CPU_FEATURES={os.environ.get('NPY_DISABLE_CPU_FEATURES', '')!r}\n")
    print("| route | max ulp from the library | share > 1 ulp | against mpmath: mean ulp | 99th percentile "
          "| max | laws x tails with a lower / higher mean error than the library |")
    print("|---|---:|---:|---:|---:|---:|---|")
    for name in ["library"] + names:
        e = np.concatenate(errors[name])
        if name == "library":
            head = "| library (exp and expm1) | 0 | 0 "
            versus = "—"
        else:
            d = np.concatenate(distances[name])
            head = f"| {name} | {d.max()} | {np.mean(d > 1):.1e} "
            lower = sum(np.mean(a) < np.mean(b) for a, b in zip(errors[name], errors["library"]))
            higher = sum(np.mean(a) > np.mean(b) for a, b in zip(errors[name], errors["library"]))
            versus = f"{lower} / {higher}"
        print(head + f"| {e.mean():.3f} | {np.quantile(e, 0.99):.2f} | {e.max():.2f} | {versus} |", flush=True)
    print(f"\nS of {BENCHMARK_LAW} against mpmath (mean / 99th percentile / max ulp): "
          + "; ".join(f"{name} {e.mean():.3f} / {np.quantile(e, 0.99):.2f} / {e.max():.2f}"
                      for name, e in benchmark_law.items()))


def speed(repeat: int) -> None:
    numeric = mu.derive(Support(0, 3600), Mean(1200)).numeric
    x = np.random.default_rng(0).lognormal(3.0, 2.0, 1 << 16)
    x = x[(x > 0) & (x < 3600)][:1 << 15]
    tail = numeric._segment_tails(True)[0]
    routes = {"library": library, **CANDIDATES}
    best = {name: math.inf for name in routes}
    for _ in range(repeat):
        for name, route in routes.items():
            start = time.perf_counter()
            for _ in range(20):
                route(tail, x, True)
            best[name] = min(best[name], (time.perf_counter() - start) / 20 / x.size)
    print(f"\nOne block of {x.size:,} runtimes in cache, S of Support(0, 3600), Mean(1200), whole-array "
          f"numpy, best of {repeat} interleaved rounds (load average {os.getloadavg()[0]:.1f}): "
          + ", ".join(f"{name} {1e9 * t:.1f} ns" for name, t in best.items()) + " a runtime")


def main(argv: list[str] | tuple[str, ...] = ()) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=20_000, help="runtimes a law (default 20,000)")
    parser.add_argument("--mp", type=int, default=1_500,
                        help="of them, compared with mpmath a law and tail (default 1,500)")
    parser.add_argument("--repeat", type=int, default=15, help="rounds of the timing (default 15)")
    arguments = parser.parse_args(list(argv))
    accuracy(arguments.n, arguments.mp)
    speed(arguments.repeat)


if __name__ == "__main__":
    main(sys.argv[1:])
