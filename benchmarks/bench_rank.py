"""Benchmark of ``rank`` against pandas' groupby written by hand, string and categorical columns.

Run ``python benchmarks/bench_rank.py`` (about a minute on two cores at the default 10^6
runs). It builds a synthetic long table (algorithm-major, 1% crashes, runtimes capped at
5000 s) twice: with categorical ``algorithm``/``instance``/``status`` columns (as
:func:`maxent_util.io.read_long` returns them) and with the same columns as Python strings
(``object`` dtype, as a table built in Python holds them). On each it times ``rank`` under
five rules (two presets' utilities, PAR-2, PAR-10, solved) against the baseline of
``bench_scale.py`` (each rule's formula in numpy by hand, then
``groupby("algorithm").mean()``, no validation), interleaved over ``--repeat`` rounds, and
prints the medians and their ratio rank / baseline. Nothing is asserted about speed: the
machine's load moves single timings a lot, the ratio of interleaved medians much less.
The memory of reading and ranking a long CSV (with and without pyarrow) is measured by
``bench_read_memory.py``.

``--before DIR`` also times ``rank`` of another checkout of the library (for instance
``git archive <commit> | tar -x -C DIR``) in the same rounds: its package is copied under
another name (its imports are relative), so both run in this process on the same tables,
and its rankings are checked to equal this checkout's exactly.
"""

from __future__ import annotations

import argparse
import importlib
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the checkout this file is in, not an installed copy
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_scale import FIVE, baseline, largest_difference, rules, runs_table  # noqa: E402

import pandas as pd  # noqa: E402

from maxent_util.ranking import rank  # noqa: E402


def interleaved(contenders: dict, repeat: int) -> dict[str, float]:
    """Median seconds of each contender, the contenders taking turns round by round."""
    times: dict[str, list[float]] = {name: [] for name in contenders}
    for _ in range(repeat):
        for name, call in contenders.items():
            start = time.perf_counter()
            call()
            times[name].append(time.perf_counter() - start)
    return {name: statistics.median(values) for name, values in times.items()}


def checkout(folder: Path, into: Path):
    """The ``maxent_util.ranking`` module of the checkout in ``folder``, imported as
    ``maxent_util_before``."""
    shutil.copytree(folder / "maxent_util", into / "maxent_util_before")
    sys.path.insert(0, str(into))
    return importlib.import_module("maxent_util_before.ranking")


def main(argv: list[str] | tuple[str, ...] = ()) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1_000_000,
                        help="runs in the table (default 10^6; the issue's 10^7 needs an "
                             "idle machine)")
    parser.add_argument("--repeat", type=int, default=7, help="rounds (default 7)")
    parser.add_argument("--before", type=Path, default=None,
                        help="another checkout of the library, timed in the same rounds")
    arguments = parser.parse_args(list(argv))
    with tempfile.TemporaryDirectory() as folder:
        run(arguments, None if arguments.before is None
            else checkout(arguments.before, Path(folder)))


def run(arguments: argparse.Namespace, before) -> None:
    """The tables, the timings and the table of medians (``before``: another checkout's
    ranking module, or None)."""
    n_instances = min(100_000, arguments.runs)
    n_algorithms = max(1, arguments.runs // n_instances)
    categorical = runs_table(n_algorithms, n_instances)
    strings = categorical.astype({"algorithm": object, "instance": object, "status": object})
    five = rules(FIVE)
    rank(categorical.iloc[:2000], five)  # compile the rules once, outside the timing
    print(f"rank() of {len(categorical):,} runs ({n_algorithms} algorithms x {n_instances:,} "
          f"instances) under 5 rules ({', '.join(FIVE)}); medians of {arguments.repeat} "
          f"interleaved rounds; load average {os.getloadavg()[0]:.1f}")
    five_before = None
    if before is not None:
        five_before = {name: before.parse_rule(name) for name in FIVE}
        before.rank(categorical.iloc[:2000], five_before)
    for kind, table in (("categorical", categorical), ("strings", strings)):
        ranked = rank(table, five)
        worst = largest_difference(ranked, baseline(table, FIVE), FIVE)
        contenders = {"rank": lambda: rank(table, five),
                      "baseline": lambda: baseline(table, FIVE)}
        if before is not None:
            pd.testing.assert_frame_equal(before.rank(table, five_before), ranked,
                                          check_exact=True)
            contenders["before"] = lambda: before.rank(table, five_before)
        medians = interleaved(contenders, arguments.repeat)
        earlier = ("" if before is None else f"before {medians['before']:6.3f} s (ratio "
                   f"{medians['before'] / medians['baseline']:.2f}), ")
        print(f"  {kind:11s}: {earlier}rank {medians['rank']:6.3f} s, pandas groupby by hand "
              f"{medians['baseline']:6.3f} s, ratio {medians['rank'] / medians['baseline']:.2f}; "
              f"largest relative score difference {worst:.1e}; load average "
              f"{os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main(sys.argv[1:])
