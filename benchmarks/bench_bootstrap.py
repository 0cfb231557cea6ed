"""Benchmark of the paired bootstrap over instances (maxent_util.bootstrap).

Run ``python benchmarks/bench_bootstrap.py`` (400 instances x 50 algorithms x 10,000
resamples) or with ``--quick`` (1,000 resamples, as the test suite does). Prints times and
ratios measured in the same run; asserts nothing about speed.

1. Intervals: ``bootstrap_intervals`` (resample counts, one matrix product per chunk,
   percentile interval) against a plain loop that indexes the rows of each resample, takes
   the column means and ends with ``numpy.quantile``.
2. Rank stability: ``rank_probabilities`` against a plain loop ranking each resample's
   means with ``scipy.stats.rankdata(method="min")``.

Both loops use the same resamples (``rng.integers(0, n, (resamples, n))`` from the same
seed), so the results must agree; the script says by how much.
"""

from __future__ import annotations

import argparse
import os
import time
from typing import Callable

import numpy as np
from scipy import stats

from maxent_util.bootstrap import bootstrap_intervals, rank_probabilities


def best_time(function: Callable[[], object], repeat: int) -> tuple[float, object]:
    best, result = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        result = function()
        best = min(best, time.perf_counter() - start)
    return best, result


def utilities(n: int, k: int, seed: int = 0) -> np.ndarray:
    """Per-instance values shaped like utilities: about a third unsolved (0), the rest in (0, 1]."""
    rng = np.random.default_rng(seed)
    hardness = rng.lognormal(0.0, 1.0, (n, 1))  # paired: an instance is hard for everyone
    values = np.minimum(1.0, 1.0 / (hardness * rng.lognormal(0.0, 0.5, (n, k))))
    return np.where(rng.random((n, k)) < 0.3, 0.0, values)


def naive_intervals(values: np.ndarray, resamples: int, seed: int, ci: float = 0.95):
    n = values.shape[0]
    indices = np.random.default_rng(seed).integers(0, n, size=(resamples, n))
    means = np.empty((resamples, values.shape[1]))
    for r in range(resamples):
        means[r] = values[indices[r]].mean(axis=0)
    alpha = (1 - ci) / 2
    return np.quantile(means, alpha, axis=0), np.quantile(means, 1 - alpha, axis=0)


def naive_ranks(values: np.ndarray, resamples: int, seed: int) -> np.ndarray:
    n, k = values.shape
    indices = np.random.default_rng(seed).integers(0, n, size=(resamples, n))
    counts = np.zeros((k, k))
    for r in range(resamples):
        ranks = stats.rankdata(-values[indices[r]].mean(axis=0), method="min").astype(int)
        counts[np.arange(k), ranks - 1] += 1
    return counts / resamples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="1,000 resamples instead of 10,000")
    parser.add_argument("--repeat", type=int, default=None, help="timings per case (best of)")
    options = parser.parse_args()
    n, k = 400, 50
    resamples = 1_000 if options.quick else 10_000
    repeat = options.repeat or (1 if options.quick else 3)
    values = utilities(n, k)
    print(f"Paired bootstrap: {n} instances x {k} algorithms x {resamples:,} resamples "
          f"(best of {repeat}; {os.cpu_count()} cores)")

    rows = []
    ours, (low, high) = best_time(lambda: bootstrap_intervals(values, resamples=resamples,
                                                              seed=1), repeat)
    plain, (ref_low, ref_high) = best_time(lambda: naive_intervals(values, resamples, 1), 1)
    diff = max(np.abs(low - ref_low).max(), np.abs(high - ref_high).max())
    rows.append(("intervals (percentile)", ours, plain, f"max |diff| {diff:.1e}"))

    ours, shares = best_time(lambda: rank_probabilities(values, resamples=resamples, seed=2),
                             repeat)
    plain, reference = best_time(lambda: naive_ranks(values, resamples, 2), 1)
    diff = np.abs(shares - reference).max()
    rows.append(("rank probabilities", ours, plain, f"max |diff| {diff:.1e}"))

    print(f"{'':<24}{'vectorised':>12}{'naive loop':>12}{'ratio':>9}")
    for name, ours, plain, note in rows:
        print(f"{name:<24}{ours:>11.3f}s{plain:>11.3f}s{plain / ours:>8.1f}x faster   {note}")
    worst = max(float(row[3].split()[-1]) for row in rows)
    print(f"vectorised and naive results agree to {worst:.1e} (same resamples)")


if __name__ == "__main__":
    main()
