"""Benchmark of sweeps: one sweep of 200 values against rank() called 200 times.

Run ``python benchmarks/bench_sweep.py`` (200 values of kappa0 on the SAT
Competition 2021 main track, 46 solvers x 400 instances, under
``pareto(kappa0, 1)``), or with ``--values N`` for another count. The
baseline is what a user would write without :func:`maxent_util.sweeps.sweep`:
for each value, ``rank(table, {"u": pareto(value, 1).utility()})`` (the
preset at a number is a substitution into the shipped closed form, the
utility is compiled for each new value). Both are timed in the same run, on
the same values; prints the times and their ratio, asserts nothing about
speed, and checks that both give the same scores.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from maxent_util import families
from maxent_util.datasets import satcomp2021
from maxent_util.ranking import rank
from maxent_util.sweeps import sweep


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--values", type=int, default=200, help="values of kappa0 (default 200)")
    arguments = parser.parse_args()
    table = satcomp2021("main")
    values = np.geomspace(1.0, 5000.0, arguments.values)
    # warm both paths once (imports, the symbolic preset, the data set)
    sweep(table, "pareto", "kappa0", values[:2], alpha=1)
    rank(table, {"u": families.pareto(2.5, 1).utility()})

    start = time.perf_counter()
    frame = sweep(table, "pareto", "kappa0", values, alpha=1)
    swept = time.perf_counter() - start

    start = time.perf_counter()
    rankings = [rank(table, {"u": families.pareto(float(value), 1).utility()})
                for value in values]
    ranked = time.perf_counter() - start

    worst = 0.0
    for value, ranking in zip(values, rankings):
        part = frame[frame["kappa0"] == value].set_index("algorithm")["score"]
        worst = max(worst, float(np.max(np.abs(part[ranking.index] - ranking["u"]))))
    print(f"main track, {table['algorithm'].nunique()} solvers x {table['instance'].nunique()} "
          f"instances, pareto(kappa0, 1) at {values.size} values of kappa0 in [1, 5000]")
    print(f"  sweep:                {swept:8.3f} s")
    print(f"  rank() {values.size} times:     {ranked:8.3f} s")
    print(f"  ratio (rank / sweep): {ranked / swept:8.1f}")
    print(f"  largest score difference: {worst:.2e}")


if __name__ == "__main__":
    main()
