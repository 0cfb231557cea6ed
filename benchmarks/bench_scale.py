"""Benchmark of large tables: a 100 MB CSV's memory, Dask against pandas, ranking 10^7 runs.

Run ``python benchmarks/bench_scale.py`` (a few minutes on two cores). It prints

1. the peak resident memory of ``read_runs`` + ``rank`` of a generated long CSV of about
   100 MB, in a fresh process, as a multiple of the file's size;
2. a Parquet dataset ranked by Dask (``rank(path)`` on a local cluster of 1 and of 2 worker
   processes) and by pandas (``pandas.read_parquet`` + ``rank``), with the largest score
   difference and the workers' peak memory next to the partition's size;
3. ``rank()`` of 10^7 runs (100 algorithms x 100,000 instances, categorical columns as
   :func:`maxent_util.io.read_long` returns them) under five rules (two presets' utilities,
   PAR-2, PAR-10, solved), against a baseline measured in the same run: plain pandas, a
   hand-written numpy formula of each rule and ``groupby("algorithm").mean()``, with no
   validation and no ties made exact; the ratio is rank / baseline.

They run in this order: Linux gives a new process its parent's peak memory as a floor for
its own, so the fresh processes start while this one is still small.

``--runs``, ``--csv-mb`` and ``--parquet-runs`` change the sizes (``--parquet-runs
100000000`` is the issue's 10^8 runs under 3 rules: tens of minutes to write and rank on
two cores, so the default is 10^7). Nothing is asserted about speed; ``main()`` is what
``bench_scoring.py`` calls.
"""

from __future__ import annotations

import argparse
import inspect
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the checkout this file is in, not an installed copy

from maxent_util.io import read_runs  # noqa: E402
from maxent_util.ranking import PAR, Solved, parse_rule, rank  # noqa: E402

CUTOFF = 5000.0
FIVE = ("pareto(5, 3)", "exp(-t/100)", "PAR-2", "PAR-10", "solved")
THREE = ("pareto(5, 3)", "PAR-2", "solved")


def runs_table(n_algorithms: int, n_instances: int, seed: int = 0,
               first_algorithm: int = 0) -> pd.DataFrame:
    """Algorithm-major runs with categorical names and statuses (as read_long returns them)."""
    rng = np.random.default_rng(seed)
    n = n_algorithms * n_instances
    runtime = np.minimum(np.round(rng.lognormal(3.0, 2.0, n), 3), CUTOFF)
    status = np.where(runtime < CUTOFF, 0, 1).astype(np.int8)  # solved, capped
    status[rng.random(n) < 0.01] = 2                          # crash
    algorithms = [f"solver{i:04d}" for i in range(first_algorithm,
                                                  first_algorithm + n_algorithms)]
    instances = [f"instance{j:07d}.cnf" for j in range(n_instances)]
    return pd.DataFrame({
        "algorithm": pd.Categorical.from_codes(
            np.repeat(np.arange(n_algorithms, dtype=np.int32), n_instances), algorithms),
        "instance": pd.Categorical.from_codes(
            np.tile(np.arange(n_instances, dtype=np.int32), n_algorithms), instances),
        "runtime": runtime,
        "status": pd.Categorical.from_codes(status, ["solved", "capped", "crash"]),
        "cutoff": CUTOFF})


def baseline(table: pd.DataFrame, names: tuple[str, ...]) -> pd.DataFrame:
    """Hand-written numpy per rule, then pandas' groupby mean (sum for solved)."""
    t = table["runtime"].to_numpy()
    solved = (table["status"] == "solved").to_numpy()
    cutoff = table["cutoff"].to_numpy()
    formulas = {
        "pareto(5, 3)": lambda: np.where(solved, np.where(t < 5, 1.0, (5 / np.maximum(t, 5)) ** 3),
                                         0.0),
        "exp(-t/100)": lambda: np.where(solved, np.exp(-t / 100), 0.0),
        "PAR-2": lambda: np.where(solved, t, 2 * cutoff),
        "PAR-10": lambda: np.where(solved, t, 10 * cutoff),
        "solved": lambda: solved.astype(float),
    }
    values = pd.DataFrame({name: formulas[name]() for name in names})
    values["algorithm"] = table["algorithm"].to_numpy()
    grouped = values.groupby("algorithm", observed=True)
    result = grouped.mean()
    if "solved" in names:
        result["solved"] = grouped["solved"].sum()
    return result


def rules(names: tuple[str, ...]) -> dict[str, object]:
    return {name: parse_rule(name) for name in names}


def largest_difference(got: pd.DataFrame, expected: pd.DataFrame, names: tuple[str, ...]) -> float:
    worst = 0.0
    for name in names:
        a = got[name].sort_index().to_numpy(dtype=float)
        b = expected[name].sort_index().to_numpy(dtype=float)
        worst = max(worst, float(np.max(np.abs(a - b) / np.maximum(np.abs(b), 1e-300))))
    return worst


def timed(function, *args, **kwargs):
    start = time.perf_counter()
    result = function(*args, **kwargs)
    return result, time.perf_counter() - start


def part_one(runs: int) -> None:
    n_instances = 100_000
    n_algorithms = max(1, runs // n_instances)
    table = runs_table(n_algorithms, n_instances)
    five = rules(FIVE)
    rank(table.iloc[:2000], five)  # compile the rules once, outside the timing
    ranked, first = timed(rank, table, five)
    _, second = timed(rank, table, five)
    expected, base = timed(baseline, table, FIVE)
    print(f"3. rank() of {len(table):,} runs ({n_algorithms} algorithms x {n_instances:,} "
          f"instances) under 5 rules ({', '.join(FIVE)})")
    print(f"   rank (validation, grid check, rules, exact ties): {first:7.2f} s first call, "
          f"{second:.2f} s second")
    print(f"   baseline (numpy formulas + pandas groupby mean):  {base:7.2f} s")
    print(f"   ratio rank / baseline: {min(first, second) / base:.2f}; largest relative score "
          f"difference {largest_difference(ranked, expected, FIVE):.1e}")


def peak_bytes() -> int:
    """The peak resident memory of the calling process in bytes (also run in the probe and on
    Dask workers): VmHWM belongs to the process's own memory map, which exec replaces, while
    ru_maxrss carries a forking parent's peak over as a floor (a probe started after the
    10^7-run arrays would report their size)."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


PROBE = "import resource\n" + inspect.getsource(peak_bytes) + """
import sys, time
sys.path.insert(0, {root!r})
from maxent_util.io import read_runs
from maxent_util.ranking import parse_rule, rank
rules = {{name: parse_rule(name) for name in {names!r}}}
start = time.perf_counter()
rank(read_runs({path!r}), rules)
print(time.perf_counter() - start, peak_bytes())
"""


def part_two(megabytes: float, folder: Path) -> None:
    n_instances = 100_000
    per_algorithm = 51 * n_instances  # about 51 bytes a row
    n_algorithms = max(1, round(megabytes * 1e6 / per_algorithm))
    path = folder / "runs.csv"
    runs_table(n_algorithms, n_instances, seed=1).to_csv(path, index=False)
    size = path.stat().st_size
    done = subprocess.run([sys.executable, "-c", PROBE.format(root=str(ROOT), names=FIVE,
                                                              path=str(path))],
                          capture_output=True, text=True, check=True)
    seconds, peak = map(float, done.stdout.split())
    print(f"1. read_runs + rank of a {size / 1e6:.0f} MB long CSV ({n_algorithms * n_instances:,} "
          f"runs, 5 rules) in a fresh process: {seconds:.1f} s, peak resident memory "
          f"{peak / 1e6:.0f} MB = {peak / size:.1f} x the file (interpreter and libraries "
          "included)")
    path.unlink()


def write_parquet(folder: Path, runs: int, per_partition: int) -> int:
    """The dataset, one file per partition of ``per_partition`` runs (whole algorithms)."""
    n_instances = 100_000
    per_file = max(1, per_partition // n_instances)
    n_algorithms = max(1, runs // n_instances)
    folder.mkdir()
    for index, first in enumerate(range(0, n_algorithms, per_file)):
        count = min(per_file, n_algorithms - first)
        part = runs_table(count, n_instances, seed=first, first_algorithm=first)
        # categories as text in the files: each partition reads its own dictionary
        part.astype({"algorithm": str, "instance": str, "status": str}).to_parquet(
            folder / f"part-{index:05d}.parquet", index=False)
    return n_algorithms * n_instances


def part_three(runs: int, folder: Path, per_partition: int) -> None:
    import distributed

    path = folder / "runs"
    total, seconds = timed(write_parquet, path, runs, per_partition)
    names = THREE
    chosen = rules(names)
    print(f"2. a Parquet dataset of {total:,} runs in partitions of {per_partition:,} runs "
          f"(written in {seconds:.0f} s), ranked under {len(names)} rules ({', '.join(names)})")
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(ROOT)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])}
    os.environ.update(environment)  # the worker processes import this checkout too
    results = {}
    for workers in (1, 2):
        with distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                      dashboard_address=":0") as cluster, \
                distributed.Client(cluster) as client:
            client.run(lambda: __import__("maxent_util.ranking"))
            got, seconds = timed(rank, path, chosen)
            peaks = client.run(peak_bytes)
        results[workers] = (got, seconds, max(peaks.values()))
    if total <= 20_000_000:
        table, read = timed(pd.read_parquet, path)
        expected, ranked = timed(rank, table, chosen)
        print(f"   pandas: read_parquet {read:6.2f} s + rank {ranked:6.2f} s = "
              f"{read + ranked:6.2f} s in one process")
        del table
    else:
        expected = None
        print("   pandas: not run (the whole table in one process would not fit comfortably)")
    for workers, (got, seconds, peak) in results.items():
        difference = ("" if expected is None else
                      f"; largest relative difference to pandas "
                      f"{largest_difference(got, expected, names):.1e}")
        print(f"   dask, {workers} worker process{'es' if workers > 1 else ''}: {seconds:6.2f} s"
              f"{difference}; worker peak memory {peak / 1e6:.0f} MB "
              f"(a partition holds {per_partition * 30 / 1e6:.0f} MB of runs)")


def main(argv: list[str] | tuple[str, ...] = ()) -> None:
    """Run the benchmark with the command-line words ``argv`` (none: the default sizes, as
    another benchmark calling it gets)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10_000_000,
                        help="runs ranked in memory under 5 rules (default 10^7)")
    parser.add_argument("--csv-mb", type=float, default=100.0,
                        help="size of the generated long CSV in MB (default 100)")
    parser.add_argument("--parquet-runs", type=int, default=10_000_000,
                        help="runs of the Parquet dataset ranked with Dask (default 10^7; the "
                             "issue's full size is 100000000)")
    parser.add_argument("--partition", type=int, default=1_000_000,
                        help="runs per Parquet partition (default 10^6)")
    parser.add_argument("--quick", action="store_true",
                        help="tiny sizes (2*10^5 runs, a 2 MB CSV, 2*10^5 Parquet runs in partitions "
                             "of 5*10^4), as the test suite runs it: the numbers mean little")
    arguments = parser.parse_args(list(argv))
    if arguments.quick:
        arguments.runs, arguments.csv_mb = 200_000, 2.0
        arguments.parquet_runs, arguments.partition = 200_000, 50_000
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        # the CSV's fresh process first: Linux hands a child its parent's peak memory as a
        # floor for its own, so the parent must still be small
        part_two(arguments.csv_mb, folder)
        part_three(arguments.parquet_runs, folder, arguments.partition)
        part_one(arguments.runs)


if __name__ == "__main__":
    main(sys.argv[1:])
