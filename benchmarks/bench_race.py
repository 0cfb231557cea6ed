"""Benchmark of racing: the time of runs UP and Naive spend to reach each guarantee.

Run ``python benchmarks/bench_race.py`` (``--quick``: the first setting,
seed 0 only). Two settings, each replayed with
:class:`maxent_util.racing.TableRunner` (so "time" is the sum of the replayed
runs' ``min(runtime, run limit)``, not this script's time):

1. the SAT Competition 2021 main track (46 solvers, 400 instances, cutoff
   5000 s) under ``pareto(60, 1)`` with delta = 0.05, for seeds 0, 1, 2:
   for each epsilon, Naive's time at run limits 600 s and 5000 s (the
   baseline, measured in the same run) and UP's time to first report
   epsilon* <= epsilon (first run limit 1 s), and their ratios; "-" where a procedure
   cannot reach epsilon with 400 instances;
2. simulated configurations with known laws and many instances (40
   configurations, 20000 instances; see ``simulated()``), where most
   configurations are clearly worse than the best, as in the paper's
   experiments.

It also checks UP's guarantee on the main track (the incumbent's mean
utility over all 400 instances is within epsilon* of the best's, in every
round). Prints; asserts nothing about speed.
"""

from __future__ import annotations

import argparse
import math

import numpy as np
import pandas as pd

from maxent_util import parse_utility
from maxent_util.datasets import satcomp2021
from maxent_util.racing import TableRunner, naive_curve, up
from maxent_util.ranking import rank

EPSILONS = [0.25, 0.3, 0.4, 0.5, 0.6, 0.65, 0.7, 0.8, 0.9]


def _time_to(trace: pd.DataFrame, epsilon: float) -> float:
    reached = trace.loc[trace["epsilon"] <= epsilon, "total_time"]
    return float(reached.iloc[0]) if len(reached) else math.nan


def _cell(value: float) -> str:
    return f"{'-':>10}" if math.isnan(value) else f"{value:10.4g}"


def _ratio(naive_time: float, up_time: float) -> str:
    if math.isnan(naive_time) or math.isnan(up_time):
        return f"{'-':>5}"
    return f"{naive_time / up_time:5.2f}"


def compare(runner: TableRunner, utility: object, delta: float, run_limits: list[float],
            seed: int, k0: float, label: str, epsilons: list[float] = EPSILONS) -> pd.DataFrame:
    trace = up(runner, None, None, utility, delta, first_run_limit=k0, seed=seed)
    curves = {c: naive_curve(runner, None, None, utility, delta, c, epsilons, seed=seed)
              .set_index("epsilon")["total_time"] for c in run_limits}
    print(f"\n{label}, seed {seed}: UP stopped at m = {int(trace['m'].iloc[-1])} "
          f"({trace.attrs['stopped']}), epsilon* {trace['epsilon'].iloc[-1]:.3f}, "
          f"{int(trace['survivors'].iloc[-1])} of {len(runner.configs)} left")
    header = "  epsilon     UP time   " + "   ".join(f"Naive({c:g})  ratio" for c in run_limits)
    print(header)
    for epsilon in epsilons:
        up_time = _time_to(trace, epsilon)
        cells = []
        for c in run_limits:
            naive_time = float(curves[c].get(epsilon, math.nan))
            cells.append(f"{_cell(naive_time)}  {_ratio(naive_time, up_time)}")
        print(f"  {epsilon:5.2f}  {_cell(up_time)}   " + "   ".join(cells))
    return trace


def simulated(rng: np.random.Generator) -> pd.DataFrame:
    """40 configurations on 20000 instances: runtimes log-normal with medians from 1 s to
    1000 s (sigma 1.5), a third of them Pareto with shape 0.7 (infinite mean)."""
    n, size = 40, 20_000
    medians = np.geomspace(1.0, 1000.0, n)
    runtimes = rng.lognormal(np.log(medians)[:, None], 1.5, size=(n, size))
    heavy = np.arange(n) % 3 == 2
    runtimes[heavy] = medians[heavy, None] * (rng.pareto(0.7, size=(heavy.sum(), size)) + 0.5)
    cutoff = 10_000.0
    rows = {"algorithm": np.repeat([f"c{i:02d}" for i in range(n)], size),
            "instance": np.tile([f"i{j}" for j in range(size)], n),
            "runtime": np.minimum(runtimes, cutoff).ravel()}
    frame = pd.DataFrame(rows)
    frame["status"] = np.where(runtimes.ravel() < cutoff, "solved", "capped")
    frame["cutoff"] = cutoff
    return frame


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="seed 0 of the main track only (no simulated races)")
    arguments = parser.parse_args()
    table = satcomp2021("main")
    runner = TableRunner(table)
    utility = parse_utility("pareto(60, 1)")
    truth = rank(table, {"u": utility})["u"]
    for seed in (0,) if arguments.quick else (0, 1, 2):
        trace = compare(runner, utility, 0.05, [600.0, 5000.0], seed, 1.0,
                        "2021 main track under pareto(60, 1), delta 0.05")
        gap = truth.max() - truth[trace["incumbent"]].to_numpy()
        print(f"  guarantee held in every round: {bool((gap <= trace['epsilon']).all())} "
              f"(largest gap {gap.max():.3f}; the best is {truth.idxmax()})")
    if arguments.quick:
        return
    frame = simulated(np.random.default_rng(0))
    compare(TableRunner(frame), "pareto(60, 1)", 0.05, [600.0, 10_000.0], 0, 1.0,
            "simulated, 40 configurations x 20000 instances, pareto(60, 1), delta 0.05",
            [0.1, 0.15, 0.2, *EPSILONS])


if __name__ == "__main__":
    main()
