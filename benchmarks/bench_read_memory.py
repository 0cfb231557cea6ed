"""Benchmark of the memory of ``read_runs`` + ``rank`` on a long CSV, with and without pyarrow.

Run ``python benchmarks/bench_read_memory.py`` (about two minutes on two cores at the
default 100 MB). It writes a long CSV of about ``--csv-mb`` megabytes (the runs of
``bench_scale.py``: algorithm-major, 1% crashes, runtimes capped at 5000 s, a cutoff
column), then, in fresh processes taking turns round by round, reads it with
``read_runs`` and ranks it under five rules (two presets' utilities, PAR-2, PAR-10,
solved), once with pyarrow importable and once with it blocked (``sys.modules["pyarrow"] =
None``: ``import pyarrow`` raises ImportError, as where the ``[arrow]`` extra is not
installed). Next to them, in the same rounds, the alternative of the issue: plain
``pandas.read_csv`` of the same file with categorical name and status columns. Each process
reports its time and its peak resident memory (``resource.getrusage``'s ``ru_maxrss``; the
interpreter and every library are included), printed as medians over ``--repeat`` rounds
and as a multiple of the file's size.

``--before DIR`` adds the same two probes run on another checkout of the library (for
instance ``git archive <commit> | tar -x -C DIR``), in the same rounds, so before and after
are measured side by side. This script imports nothing but the standard library, so the
probes it starts do not inherit a large parent's memory as a floor for ``ru_maxrss``.
Nothing is asserted about time or memory.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIVE = ("pareto(5, 3)", "exp(-t/100)", "PAR-2", "PAR-10", "solved")

WRITE = """
import sys
sys.path.insert(0, {root!r}); sys.path.insert(0, {benchmarks!r})
from bench_scale import runs_table
runs_table({n_algorithms}, {n_instances}, seed=1).to_csv({path!r}, index=False)
"""

PROBE = """
import json, resource, sys, time
if {blocked}:
    sys.modules["pyarrow"] = None  # import pyarrow raises ImportError
sys.path.insert(0, {root!r})
import pandas as pd
from maxent_util.io import read_runs
from maxent_util.ranking import parse_rule, rank
rules = {{name: parse_rule(name) for name in {names!r}}}
start = time.perf_counter()
if {alternative}:
    table = pd.read_csv({path!r}, dtype={{"algorithm": "category", "instance": "category",
                                          "status": "category", "runtime": "float64",
                                          "cutoff": "float64"}})
    read = time.perf_counter() - start
else:
    table = read_runs({path!r})
    read = time.perf_counter() - start
    rank(table, rules)
print(json.dumps({{"seconds": time.perf_counter() - start, "read": read,
                  "peak": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}}))
"""


def probe(root: Path, path: Path, blocked: bool, alternative: bool = False) -> dict:
    """Time and peak memory of one read (and rank) in a fresh process."""
    code = PROBE.format(root=str(root), names=FIVE, path=str(path), blocked=blocked,
                        alternative=alternative)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | tuple[str, ...] = ()) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--csv-mb", type=float, default=100.0,
                        help="size of the generated CSV in MB (default 100)")
    parser.add_argument("--instances", type=int, default=100_000,
                        help="instances (default 100,000; the algorithms make up the size: "
                             "1,000,000 gives 2 algorithms, nearly every name distinct)")
    parser.add_argument("--repeat", type=int, default=3, help="rounds (default 3)")
    parser.add_argument("--before", type=Path, default=None,
                        help="another checkout of the library, probed in the same rounds")
    arguments = parser.parse_args(list(argv))
    n_instances = arguments.instances
    n_algorithms = max(1, round(arguments.csv_mb * 1e6 / (51 * n_instances)))  # ~51 B a row
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "runs.csv"
        subprocess.run([sys.executable, "-c", WRITE.format(
            root=str(ROOT), benchmarks=str(ROOT / "benchmarks"), n_algorithms=n_algorithms,
            n_instances=n_instances, path=str(path))], check=True)
        size = path.stat().st_size
        contenders = {}
        for label, root in (("before", arguments.before), ("after", ROOT)):
            if root is None:
                continue
            contenders[f"{label}, pyarrow"] = (root, False, False)
            contenders[f"{label}, no pyarrow"] = (root, True, False)
        contenders["pandas.read_csv(dtype=category), no rank"] = (ROOT, True, True)
        results: dict[str, list[dict]] = {name: [] for name in contenders}
        loads = []
        for _ in range(arguments.repeat):
            for name, (root, blocked, alternative) in contenders.items():
                loads.append(os.getloadavg()[0])
                results[name].append(probe(root, path, blocked, alternative))
        print(f"read_runs + rank (5 rules) of a {size / 1e6:.0f} MB long CSV "
              f"({n_algorithms * n_instances:,} runs), fresh processes, medians of "
              f"{arguments.repeat} interleaved rounds; load average {min(loads):.1f} to "
              f"{max(loads):.1f}")
        for name, runs in results.items():
            seconds = statistics.median(run["seconds"] for run in runs)
            read = statistics.median(run["read"] for run in runs)
            peak = statistics.median(run["peak"] for run in runs)
            print(f"  {name:42s}: {seconds:6.1f} s (read {read:5.1f} s), peak "
                  f"{peak / 1e6:6.0f} MB = {peak / size:4.1f} x the file")


if __name__ == "__main__":
    main(sys.argv[1:])
