"""Benchmark of the HTML report on the SAT Competition 2021 main track (46 solvers).

Run ``python benchmarks/bench_report.py`` (the main track) or with ``--quick``
(the parallel track, 9 solvers). Prints wall times and ratios measured in the
same run; asserts nothing about speed.

1. The whole command, ``maxent-util report --dataset satcomp2021-main``, in a
   fresh process: imports, the five default utilities derived cold, the
   ranking, the figures and the page (the target: under 20 s).
2. In this process, with the utilities derived: ``rank(..., bounds=True)``
   alone (the baseline), each section of the page (with the page's defaults:
   intervals and paired tests at 95% from 2000 resamples, the explorer), and
   ``report_html`` whole, each as a ratio to the baseline.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from maxent_util import report
from maxent_util.cli import TOUR_UTILITIES, main
from maxent_util.datasets import satcomp2021
from maxent_util.families import parse_utility
from maxent_util.ranking import PAR, rank

ROOT = Path(__file__).resolve().parents[1]


def best(function, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)


def print_sections(page: report.ReportData, whole_page, baseline: float, baseline_label: str,
                   repeat: int) -> None:
    """Every section of the page timed alone, then the whole page, as ratios to ``baseline``
    (the rank every page makes first); best of ``repeat``."""
    print(f"   {'part':<28} {'seconds':>8} {'x rank()':>9}")
    print(f"   {baseline_label:<28} {baseline:8.3f} {1.0:9.1f}")
    for part in report.SECTIONS:
        seconds = best(lambda: part.render(page), repeat)
        print(f"   {'section ' + part.id:<28} {seconds:8.3f} {seconds / baseline:9.1f}")
    whole = best(whole_page, repeat)
    print(f"   {'report_html, whole page':<28} {whole:8.3f} {whole / baseline:9.1f}")


def main_benchmark(quick: bool) -> None:
    track = "parallel" if quick else "main"
    dataset = f"satcomp2021-{track}"
    with tempfile.TemporaryDirectory() as folder:
        target = Path(folder) / "report.html"
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        start = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "maxent_util", "report", "--dataset", dataset,
                               "--rules", "paper", "-o", str(target)], capture_output=True, text=True, env=env)
        command = time.perf_counter() - start
        if done.returncode != 0:
            raise SystemExit(done.stderr)
        size = target.stat().st_size
    print(f"1. maxent-util report --dataset {dataset} (fresh process, {len(TOUR_UTILITIES)} "
          f"utilities derived cold and PAR-2): {command:.1f} s, page {size / 1e6:.2f} MB")

    table = satcomp2021(track)
    start = time.perf_counter()
    rules = {spec: parse_utility(spec) for spec in TOUR_UTILITIES}
    rules["PAR-2"] = PAR(2)
    derive = time.perf_counter() - start
    repeat = 3
    baseline = best(lambda: rank(table, rules, bounds=True), repeat)
    # the page's defaults: 95% intervals from 2000 resamples, the explorer on
    options = {"ci": 0.95, "resamples": 2000, "seed": 0, "duplicates": "raise",
               "missing": "raise"}
    data = report.ReportData(table=table, rules=tuple(rules.items()),
                             ranking=rank(table, rules, bounds=True, **options), label=dataset,
                             provenance=(), notes=(), options=options, explore=True)
    print(f"\n2. {table['algorithm'].nunique()} solvers, {len(table)} runs; deriving the "
          f"utilities in this process took {derive:.1f} s. Best of {repeat}:")
    print_sections(data, lambda: report.report_html(table, rules=rules, label=dataset, date="fixed"),
                   baseline, "rank(bounds=True) baseline", repeat)
    with tempfile.TemporaryDirectory() as folder:
        start = time.perf_counter()
        status = main(["report", "--dataset", dataset, "-o", str(Path(folder) / "r.html")])
        in_process = time.perf_counter() - start
    print(f"   {'the command, in process':<28} {in_process:8.3f} {in_process / baseline:9.1f}"
          f"   (status {status}; utilities cached by now)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="the parallel track (9 solvers)")
    main_benchmark(parser.parse_args().quick)
