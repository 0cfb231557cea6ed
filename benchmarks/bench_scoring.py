"""Benchmark of maxent_util scorers and rankings.

Run ``python benchmarks/bench_scoring.py`` (10**7 runtimes) or with
``--quick`` (10**5 runtimes, as the test suite does). Prints times and
ratios measured in the same run; asserts nothing about speed.

1. Scorer throughput: ``compile_scorer(u)`` against the same utility written by
   hand in numpy and against the survival function of the matching
   ``scipy.stats`` distribution (exponential: ``expon``; log-normal:
   ``lognorm``; generalized log-Laplace with alpha = beta: ``loglaplace``).
2. Ranking the SAT Competition 2021 main track (46 solvers x 400 instances)
   under seven utilities and PAR-2, against a pandas groupby over per-run
   values computed by hand (a synthetic table of the same shape stands in
   if the bundled data set is unavailable).
"""

from __future__ import annotations

import argparse
import time
from typing import Callable

import numpy as np
import pandas as pd
import sympy
from scipy import special, stats

from maxent_util.scorer import compile_scorer
from maxent_util.ranking import PAR, rank
from maxent_util.symbols import t


def best_times(functions: list[Callable[[], object]], repeat: int) -> list[float]:
    """Best wall time of each function; interleaved, so load on the machine hits all alike."""
    best = [float("inf")] * len(functions)
    for _ in range(repeat):
        for i, function in enumerate(functions):
            start = time.perf_counter()
            function()
            best[i] = min(best[i], time.perf_counter() - start)
    return best


def scorer_rows(n: int, repeat: int) -> list[tuple[str, float, float, float, float]]:
    kappa0, sigma, alpha, beta = sympy.symbols("kappa0 sigma alpha beta", positive=True)
    runtimes = np.random.default_rng(0).lognormal(3.0, 2.0, n)
    k, s, a = 10.0, 1.5, 2.0
    gll = sympy.Piecewise((1 - alpha / (alpha + beta) * (t / kappa0) ** beta, t < kappa0),
                          (beta / (alpha + beta) * (kappa0 / t) ** alpha, True))

    def hand_gll(x: np.ndarray) -> np.ndarray:
        r = x / k
        return np.where(r < 1, 1 - a / (a + a) * r ** a, a / (a + a) * r ** -a)

    cases = [
        ("exponential", sympy.exp(-t / kappa0), {"kappa0": k},
         lambda x: np.exp(-x / k), lambda x: stats.expon.sf(x, scale=k)),
        ("log-normal",
         sympy.Rational(1, 2) - sympy.erf(sympy.log(t / kappa0) / (sympy.sqrt(2) * sigma)) / 2,
         {"kappa0": k, "sigma": s},
         lambda x: 0.5 * special.erfc(np.log(x / k) / (np.sqrt(2) * s)),
         lambda x: stats.lognorm.sf(x, s, scale=k)),
        ("generalized log-Laplace", gll, {"kappa0": k, "alpha": a, "beta": a},
         hand_gll, lambda x: stats.loglaplace.sf(x, a, scale=k)),
    ]
    rows = []
    for name, expr, params, by_hand, with_scipy in cases:
        scorer = compile_scorer(expr)
        ours = scorer(runtimes, **params)  # also warms up: compiling is not timed
        agreement = np.max(np.abs(ours - by_hand(runtimes)))
        agreement = max(agreement, np.max(np.abs(ours - with_scipy(runtimes))))
        times = best_times([lambda: scorer(runtimes, **params), lambda: by_hand(runtimes),
                            lambda: with_scipy(runtimes)], repeat)
        rows.append((name, *times, float(agreement)))
    return rows


def main_track() -> tuple[pd.DataFrame, str]:
    try:
        from maxent_util.datasets import satcomp2021

        return satcomp2021("main"), "SAT Competition 2021 main track"
    except (ImportError, ValueError):
        rng = np.random.default_rng(1)
        solvers, instances = 46, 400
        runtime = rng.lognormal(5.0, 2.0, solvers * instances)
        solved = runtime < 5000
        table = pd.DataFrame({
            "algorithm": np.repeat([f"solver{i:02d}" for i in range(solvers)], instances),
            "instance": np.tile([f"instance{j:03d}" for j in range(instances)], solvers),
            "runtime": np.where(solved, runtime, 5000.0),
            "status": np.where(solved, "solved", "timeout"),
            "cutoff": 5000.0,
        })
        return table, "synthetic table of the main track's shape"


def ranking_rows(repeat: int) -> tuple[str, int, list[tuple[str, float]]]:
    table, label = main_track()
    k = 60.0
    rules = {
        "uniform": sympy.Max(0, 1 - t / 5000),
        "exponential": sympy.exp(-t / k),
        "Pareto": sympy.Piecewise((1, t < k), (k / t, True)),
        "log-Laplace": sympy.Piecewise((1 - t / k / 2, t < k), (k / t / 2, True)),
        "generalized log-Laplace": sympy.Piecewise((1 - sympy.Rational(2, 3) * t / k, t < k),
                                                   (sympy.Rational(1, 3) * (k / t) ** 2, True)),
        "log-normal": sympy.Rational(1, 2) - sympy.erf(sympy.log(t / k) / sympy.sqrt(2)) / 2,
        "piecewise": sympy.Piecewise((1 - 0.01 * t / 100, t < 100),
                                     (0.99 * (5000 - t) / 4900, t < 5000), (0, True)),
        "PAR-2": PAR(2),
    }

    def by_hand() -> pd.DataFrame:
        x = table["runtime"].to_numpy()
        solved = (table["status"] == "solved").to_numpy()
        with np.errstate(divide="ignore"):
            values = {
                "uniform": np.maximum(0, 1 - x / 5000),
                "exponential": np.exp(-x / k),
                "Pareto": np.where(x < k, 1.0, k / x),
                "log-Laplace": np.where(x < k, 1 - x / k / 2, k / x / 2),
                "generalized log-Laplace": np.where(x < k, 1 - 2 / 3 * x / k,
                                                    1 / 3 * (k / x) ** 2),
                "log-normal": 0.5 * special.erfc(np.log(x / k) / np.sqrt(2)),
                "piecewise": np.where(x < 100, 1 - 0.01 * x / 100,
                                      np.where(x < 5000, 0.99 * (5000 - x) / 4900, 0.0)),
            }
        frame = pd.DataFrame({name: np.where(solved, v, 0.0) for name, v in values.items()})
        frame["PAR-2"] = np.where(solved, x, 2 * table["cutoff"].to_numpy())
        frame["algorithm"] = table["algorithm"].to_numpy()
        return frame.groupby("algorithm").mean()

    (cold,) = best_times([lambda: rank(table, rules)], 1)  # first call compiles the scorers
    warm, hand = best_times([lambda: rank(table, rules), by_hand], repeat)
    ours = rank(table, rules)
    reference = by_hand()
    worst = max(float(np.max(np.abs(ours[name] - reference.loc[ours.index, name])
                              / np.abs(reference.loc[ours.index, name]).clip(1e-300)))
                for name in rules)
    rows = [("rank, first call (compiles scorers)", cold),
            ("rank, later calls", warm),
            ("pandas groupby of hand-written numpy", hand)]
    return f"{label}: {len(table)} runs, {len(rules)} rules (max rel. diff {worst:.1e})", \
        len(table), rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10**5 runtimes instead of 10**7")
    parser.add_argument("--repeat", type=int, default=None, help="timings per case (best of)")
    options = parser.parse_args()
    n = 10**5 if options.quick else 10**7
    repeat = options.repeat or (3 if options.quick else 5)

    print(f"Scorer throughput on {n:,} runtimes (best of {repeat}; ratios < 1 mean faster)")
    header = (f"{'utility':<26}{'scorer':>11}{'numpy':>11}{'scipy sf':>11}"
              f"{'vs numpy':>10}{'vs scipy':>10}{'max |diff|':>12}")
    print(header)
    print("-" * len(header))
    for name, ours, hand, scipy_time, diff in scorer_rows(n, repeat):
        print(f"{name:<26}{ours * 1e3:>9.2f}ms{hand * 1e3:>9.2f}ms{scipy_time * 1e3:>9.2f}ms"
              f"{ours / hand:>9.2f}x{ours / scipy_time:>9.2f}x{diff:>12.1e}")

    title, _, rows = ranking_rows(repeat)
    print()
    print(f"Ranking: {title}")
    reference = rows[-1][1]
    for label, seconds in rows:
        print(f"{label:<40}{seconds * 1e3:>9.2f}ms{seconds / reference:>9.2f}x")


if __name__ == "__main__":
    main()
