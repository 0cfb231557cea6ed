"""Benchmark of ``maxent-util report`` at competition scale: 48 solvers x 300 instances.

Run ``python benchmarks/bench_report_scale.py`` (add ``--against DIR``, a checkout of
another version of maxent_util, to time it in the same run, interleaved). Prints wall
times and ratios measured in one run; asserts nothing about speed.

The table is synthetic (``tests/synthetic_runs.py``: log-normal runtimes around each
solver's speed, a 5000 s cutoff, a few memouts), written as a long CSV. Then:

1. The command, ``maxent-util report runs.csv`` with its defaults (the rules chosen
   from the cutoff and PAR-2, 95% intervals from 2000 resamples, paired tests, the
   explorer), in a fresh process: its wall time, split into the imports (everything
   before the command starts its work) and the work. Medians of ``--repeat`` rounds,
   the versions interleaved round by round so that load hits them alike.
2. In this process, every section of the page timed alone, as a ratio to
   ``rank(bounds=True)`` on the same table (the work every page does first).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# Run in a fresh interpreter: the imports the command pays for, then its work, timed apart;
# main() is called as the installed `maxent-util` calls it (its arguments from sys.argv), and
# the wall time includes the interpreter's exit.
_PROBE = """
import json, sys, time
start = time.perf_counter()
from maxent_util.cli import main
import maxent_util.report
imported = time.perf_counter()
status = main()
done = time.perf_counter()
print(json.dumps({"imports": imported - start, "work": done - imported, "status": status}))
"""


def _table(path: Path, solvers: int, instances: int) -> None:
    tests = str(ROOT / "tests")
    if tests not in sys.path:
        sys.path.insert(0, tests)
    from synthetic_runs import competition

    competition(solvers, instances, cutoff=5000.0, seed=1).to_csv(path, index=False)


def _command(checkout: Path, data: Path, target: Path, cache: Path) -> dict[str, float]:
    # every version's bytecode written once (to a cache of this run's own, as an installed
    # package has it), and read in every round: without, a checkout whose files changed since
    # they were last compiled pays for compiling them in each round
    env = {key: value for key, value in os.environ.items()
           if key != "PYTHONDONTWRITEBYTECODE"}
    env.update(PYTHONPATH=str(checkout), PYTHONPYCACHEPREFIX=str(cache))
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", _PROBE, "report", str(data), "-o", str(target),
                           "--force"], capture_output=True, text=True, env=env, cwd=checkout)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{checkout}: {done.stderr[-2000:]}")
    times = json.loads(done.stdout.strip().splitlines()[-1])
    return {"wall": wall, "imports": times["imports"], "work": times["work"],
            "size": target.stat().st_size}


def command_benchmark(data: Path, versions: dict[str, Path], repeat: int) -> None:
    rounds: dict[str, list[dict[str, float]]] = {name: [] for name in versions}
    with tempfile.TemporaryDirectory() as folder:
        cache = Path(folder) / "bytecode"
        for name, checkout in versions.items():  # untimed: writes the bytecode
            _command(checkout, data, Path(folder) / f"{name}.html", cache)
        for _ in range(repeat):
            for name, checkout in versions.items():
                rounds[name].append(_command(checkout, data, Path(folder) / f"{name}.html",
                                             cache))
    print(f"1. maxent-util report, fresh process, median of {repeat} (interleaved):")
    print(f"   {'version':<10} {'wall s':>7} {'imports':>8} {'work':>7} {'page MB':>8}"
          f" {'x first':>8}")
    first = None
    for name, times in rounds.items():
        median = {key: statistics.median(t[key] for t in times) for key in times[0]}
        first = first or median["wall"]
        print(f"   {name:<10} {median['wall']:7.2f} {median['imports']:8.2f} "
              f"{median['work']:7.2f} {median['size'] / 1e6:8.2f} {median['wall'] / first:8.2f}")


def section_benchmark(data: Path, repeat: int) -> None:
    import pandas as pd
    from bench_report import best, print_sections  # this folder: the script's own

    from maxent_util import report
    from maxent_util.cli.inputs import cutoff_utilities
    from maxent_util.families import parse_utility
    from maxent_util.ranking import PAR, rank

    table = pd.read_csv(data)
    rules: dict = {spec: parse_utility(spec)
                   for spec in cutoff_utilities(float(table["cutoff"].max()))}
    rules["PAR-2"] = PAR(2)
    options = {"ci": 0.95, "resamples": 2000, "seed": 0, "duplicates": "raise",
               "missing": "raise"}

    best(lambda: report.report_html(table, rules=rules, date="fixed"), repeat)  # warm: caches, imports
    baseline = best(lambda: rank(table, rules, bounds=True, **options), repeat)
    ranking = rank(table, rules, bounds=True, **options)
    page = report.ReportData(table=table, rules=tuple(rules.items()), ranking=ranking,
                             label="runs.csv", provenance=(), notes=(), options=options,
                             explore=True)
    print(f"\n2. In process, best of {repeat}, {table['algorithm'].nunique()} solvers x "
          f"{table['instance'].nunique()} instances, {len(rules)} rules:")
    print_sections(page, lambda: report.report_html(table, rules=rules, date="fixed"), baseline,
                   "rank(bounds=True, ci=0.95)", repeat)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--solvers", type=int, default=48)
    parser.add_argument("--instances", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--against", type=Path, default=None, metavar="DIR",
                        help="a checkout of another version, timed in the same run")
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        data = Path(folder) / "runs.csv"
        _table(data, arguments.solvers, arguments.instances)
        print(f"load average before: {os.getloadavg()[0]:.2f}")
        versions = {"this": ROOT}
        if arguments.against is not None:
            versions = {"against": arguments.against.resolve(), **versions}
        command_benchmark(data, versions, arguments.repeat)
        section_benchmark(data, max(1, arguments.repeat // 2))
        print(f"load average after: {os.getloadavg()[0]:.2f}")
