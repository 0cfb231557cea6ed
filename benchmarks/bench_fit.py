"""Benchmark of ``fit_captime`` (maxent_util.fitting) on censored waiting times.

Run ``python benchmarks/bench_fit.py`` (100,000 records, 3 rounds) or ``--quick`` (5,000
records, 1 round). Prints times and ratios measured in the same run; asserts nothing
about speed.

The data: log-normal captimes (median 300 s, sigma 1) censored by exponential answer times
(mean 600 s), about a third of the records censored. Each round fits the five default kind
sets one at a time (each with its profile-likelihood intervals, as ``fit_captime`` always
computes them) and times lifelines' ExponentialFitter, LogNormalFitter and WeibullFitter on
the same records (point estimates and their standard errors, what lifelines computes).

``--compare-with DIR`` also times another copy of the library (a checkout's folder holding
``maxent_util``, such as ``git worktree add /tmp/before HEAD~3``), interleaved with this
one round by round, each in its own interpreter, and prints the ratio and the largest
difference of the log-likelihoods (a faster fit must find the same maxima).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import time

import numpy as np

KIND_SETS = [("mean",), ("log",), ("log", "log2"), ("mean", "log"), ("log_below", "log_above")]


def records(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    captimes, answers = rng.lognormal(math.log(300.0), 1.0, n), rng.exponential(600.0, n)
    return np.minimum(captimes, answers), captimes > answers


def fit_times(n: int) -> dict:
    """Seconds and log-likelihood of each kind set's fit (run in a child interpreter)."""
    from maxent_util.fitting import fit_captime

    times, censored = records(n)
    result = {}
    for kinds in KIND_SETS:
        start = time.perf_counter()
        fit = fit_captime(times, censored, kinds=kinds)
        result["+".join(kinds)] = (time.perf_counter() - start, fit.models[kinds].loglik)
    return result


def lifelines_time(n: int) -> float | None:
    try:
        import lifelines
    except ImportError:
        return None
    times, censored = records(n)
    start = time.perf_counter()
    for fitter in (lifelines.ExponentialFitter, lifelines.LogNormalFitter, lifelines.WeibullFitter):
        fitter().fit(times, event_observed=~censored)
    return time.perf_counter() - start


def in_child(n: int, folder: str) -> dict:
    env = {**os.environ, "PYTHONPATH": folder + os.pathsep + os.environ.get("PYTHONPATH", "")}
    done = subprocess.run([sys.executable, __file__, "--child", "--n", str(n)], env=env,
                          capture_output=True, text=True, check=True)
    return json.loads(done.stdout.splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100_000, help="records (default 100,000)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds, interleaved (default 3)")
    parser.add_argument("--quick", action="store_true", help="5,000 records, one round")
    parser.add_argument("--compare-with", metavar="DIR", help="another copy of the library to time")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.quick:
        arguments.n, arguments.rounds = 5_000, 1
    if arguments.child:
        print(json.dumps(fit_times(arguments.n)))
        return
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    versions = {"this": here, **({"other": arguments.compare_with} if arguments.compare_with else {})}
    runs: dict[str, list[dict]] = {name: [] for name in versions}
    reference: list[float] = []
    for _ in range(arguments.rounds):
        for name, folder in versions.items():
            runs[name].append(in_child(arguments.n, folder))
        seconds = lifelines_time(arguments.n)
        if seconds is not None:
            reference.append(seconds)
    times, censored = records(arguments.n)
    print(f"fit_captime on {arguments.n:,} records ({int(censored.sum()):,} censored), median of "
          f"{arguments.rounds} round(s), load {os.getloadavg()[0]:.1f}")
    header = f"{'kinds':<22}{'this (s)':>10}"
    if "other" in runs:
        header += f"{'other (s)':>11}{'other/this':>12}{'loglik gap':>12}"
    print(header)
    totals = {name: 0.0 for name in runs}
    for kinds in ["+".join(k) for k in KIND_SETS]:
        median = {name: statistics.median(r[kinds][0] for r in runs[name]) for name in runs}
        for name in runs:
            totals[name] += median[name]
        line = f"{kinds:<22}{median['this']:>10.2f}"
        if "other" in runs:
            gap = abs(runs["this"][0][kinds][1] - runs["other"][0][kinds][1])
            line += f"{median['other']:>11.2f}{median['other'] / median['this']:>12.2f}{gap:>12.2e}"
        print(line)
    line = f"{'all five':<22}{totals['this']:>10.2f}"
    if "other" in runs:
        line += f"{totals['other']:>11.2f}{totals['other'] / totals['this']:>12.2f}"
    print(line)
    if reference:
        lifelines_median = statistics.median(reference)
        print(f"lifelines, Exponential + LogNormal + Weibull fitters: {lifelines_median:.2f} s; "
              f"fit_captime's five kind sets / lifelines' three fitters = "
              f"{totals['this'] / lifelines_median:.1f}")
    else:
        print("lifelines is not installed: no reference")


if __name__ == "__main__":
    main()
