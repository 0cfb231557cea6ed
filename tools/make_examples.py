"""Write the sample files the documentation names into examples/, from the bundled data.

Every sample is cut from the SAT Competition 2021 results bundled in
maxent_util/datasets/data (see SOURCE.md there), so the numbers are real runs; only the
layout changes:

- ``results.csv``: a long CSV (algorithm, instance, runtime, status, cutoff): the parallel
  track's 9 solvers on its first 60 instances (2021's words: ``timeout`` is ``capped``,
  ``memout`` is ``memout``, ``unverified`` is ``unverified``; a time at or past 5000 s is
  ``capped`` at 5000 s);
- ``results.csv.gz`` and ``results.zip``: the same file, gzipped and zipped;
- ``detailed_main.csv``: 8 solvers of the main track on its first 100 instances, in the
  layout of the 2024 competition's ``detailed_main.csv`` (``hash,<solvers>,vresult``; an
  unsolved run written as its PAR-2 penalty, 10000);
- ``aslib-scenario/``: the parallel track's first 60 instances as an ASlib scenario
  (``description.txt`` and ``algorithm_runs.arff``; an unsolved run records the cutoff).

Run ``python tools/make_examples.py`` from the repository's root; it rewrites examples/.
"""

from __future__ import annotations

import csv
import gzip
import io
import os
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "maxent_util" / "datasets" / "data"
OUT = ROOT / "examples"
CUTOFF = 5000.0
MAIN_SOLVERS = ["kissat_gb", "Kissat_MAB", "Kissat_sc2021_default", "CaDiCaL_sc2021",
                "cadical_hack_gb", "lstech_maple", "ParaFROST", "SLIME_hess_rnd"]
WORDS = {"timeout": "capped", "memout": "memout", "unverified": "unverified"}


def published(name: str) -> tuple[list[str], list[dict[str, str]]]:
    with open(DATA / name, newline="") as handle:
        reader = csv.DictReader(handle)
        return list(reader.fieldnames or []), list(reader)


def run(cell: str) -> tuple[float, str]:
    """A 2021 cell as (runtime, status) at the 5000 s cutoff."""
    word = cell.strip().lower()
    if word in WORDS:
        return CUTOFF, WORDS[word]
    seconds = float(word)
    return (seconds, "solved") if seconds < CUTOFF else (CUTOFF, "capped")


def number(value: float) -> str:
    return f"{value:g}" if value == int(value) else repr(value)


def write(path: Path, data: bytes) -> None:
    """Whole or not at all: a temporary file in the folder, then os.replace."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.partial")
    partial.write_bytes(data)
    os.replace(partial, path)


def long_csv(header: list[str], rows: list[dict[str, str]]) -> str:
    solvers = header[3:]
    lines = ["algorithm,instance,runtime,status,cutoff"]
    for solver in solvers:
        for row in rows:
            runtime, status = run(row[solver])
            lines.append(f"{solver},{row['filename']},{number(runtime)},{status},"
                         f"{number(CUTOFF)}")
    return "\n".join(lines) + "\n"


def detailed_main(rows: list[dict[str, str]]) -> str:
    lines = [",".join(["hash", *MAIN_SOLVERS, "vresult"])]
    for row in rows:
        cells = []
        for solver in MAIN_SOLVERS:
            runtime, status = run(row[solver])
            cells.append(number(runtime) if status == "solved" else number(2 * CUTOFF))
        lines.append(",".join([row["hash"], *cells, row["result"]]))
    return "\n".join(lines) + "\n"


def aslib(header: list[str], rows: list[dict[str, str]]) -> tuple[str, str]:
    description = (
        "scenario_id: SAT21-PARALLEL-SAMPLE\n"
        "performance_measures:\n  - runtime\nmaximize:\n  - false\n"
        "performance_type:\n  - runtime\n"
        f"algorithm_cutoff_time: {number(CUTOFF)}\nalgorithm_cutoff_memory: '?'\n"
        "features_cutoff_time: '?'\nfeatures_cutoff_memory: '?'\n"
        "number_of_feature_steps: 0\nfeature_steps: {}\n"
        "default_steps: []\n")
    status_words = {"solved": "ok", "capped": "timeout", "memout": "memout",
                    "unverified": "other"}
    lines = ["% The SAT Competition 2021 parallel track (first 60 instances) as an ASlib scenario,",
             "% written by tools/make_examples.py from maxent_util/datasets/data/r_parallel.csv.",
             "@RELATION ALGORITHM_RUNS_SAT21-PARALLEL-SAMPLE", "",
             "@ATTRIBUTE instance_id STRING", "@ATTRIBUTE repetition NUMERIC",
             "@ATTRIBUTE algorithm STRING", "@ATTRIBUTE runtime NUMERIC",
             "@ATTRIBUTE runstatus {ok, timeout, memout, not_applicable, crash, other}", "",
             "@DATA"]
    for row in rows:
        for solver in header[3:]:
            runtime, status = run(row[solver])
            lines.append(f"{row['filename']},1,{solver},{number(runtime)},"
                         f"{status_words[status]}")
    return description, "\n".join(lines) + "\n"


def main() -> None:
    parallel_header, parallel = published("r_parallel.csv")
    _, main_rows = published("r_main.csv")
    text = long_csv(parallel_header, parallel[:60])
    write(OUT / "results.csv", text.encode())
    write(OUT / "results.csv.gz", gzip.compress(text.encode(), mtime=0))
    packed = io.BytesIO()
    with zipfile.ZipFile(packed, "w", zipfile.ZIP_DEFLATED) as archive:
        info = zipfile.ZipInfo("results.csv", date_time=(2021, 7, 1, 0, 0, 0))
        info.compress_type = zipfile.ZIP_DEFLATED
        archive.writestr(info, text)
    write(OUT / "results.zip", packed.getvalue())
    write(OUT / "detailed_main.csv", detailed_main(main_rows[:100]).encode())
    description, runs = aslib(parallel_header, parallel[:60])
    write(OUT / "aslib-scenario" / "description.txt", description.encode())
    write(OUT / "aslib-scenario" / "algorithm_runs.arff", runs.encode())
    write(OUT / "waits.csv", waits().encode())
    write(OUT / "answers.toml", ANSWERS.encode())
    write(OUT / "patience.toml", PATIENCE.encode())


#: the designer's answers file of docs/cli.md
ANSWERS = """captime = "facts"
longest = "1h"
median = "10 min"
tail = "1 in 10 after 50 min"
value = "money"
cost_per_hour = 12.5
solution_value = 200
"""


#: the designer's answers of docs/recipes/design.md: a solution worth the same whenever it comes
PATIENCE = """captime = "facts"
longest = "1h"
median = "10 min"
value = "constant"
"""


def waits() -> str:
    """A simulated log of waiting (not published data): 200 people whose captimes are
    log-normal with median 300 s and sigma 1, served by a solver that answers after an
    exponential time with mean 600 s; ``still_waiting`` is 1 where the answer came first."""
    import numpy as np

    rng = np.random.default_rng(2026)
    captimes = 300 * np.exp(rng.normal(0.0, 1.0, 200))
    answers = rng.exponential(600.0, 200)
    lines = ["waited,still_waiting"]
    lines += [f"{min(c, a):.1f},{int(a < c)}" for c, a in zip(captimes, answers)]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
