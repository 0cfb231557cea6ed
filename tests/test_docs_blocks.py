"""Every shell and Python block of README.md and docs/ runs as pasted.

Blocks fenced as ``bash``, ``sh``, ``console`` or ``python`` are extracted; a block that
only illustrates (a configurator that needs its own solver, a network install, an
8-minute benchmark, a published file that is not shipped) carries the marker
``<!-- illustration: why -->`` on the line before its fence, and is counted, not run. Every
other block runs, one subprocess per Markdown file (its blocks in order, as a reader
pastes them), in a temporary folder holding the sample files of examples/:

- a shell line ``maxent-util ...`` runs the console script's entry point
  (``maxent_util.cli:main``) with the line's arguments and must exit 0; a line that pipes
  into ``maxent-util`` runs in bash with ``maxent-util`` on the PATH; any other line
  makes the block an illustration to be marked;
- Python blocks of one file share a fresh namespace (later blocks use earlier names);
  ``>>>`` examples run as doctests, their shown output checked.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from conftest import ROOT

EXAMPLES = ROOT / "examples"
#: the runner's result line starts with this
MARK = "@@docs-blocks@@"
SLOWEST: list = []  # (seconds, block or line) of the slowest of each page, printed with -s
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
SHELL = ("bash", "sh", "console")
FENCE = re.compile(r"^(?P<marker><!-- illustration: (?P<why>.+?) -->\n(?:[ \t]*\n)*)?"
                   r"```(?P<lang>[\w-]*)[ \t]*\n(?P<body>.*?)^```[ \t]*$", re.S | re.M)


def blocks(page: Path) -> list[dict]:
    """The page's shell and Python blocks: language, code, line, and why it only
    illustrates (None if it runs)."""
    text = page.read_text(encoding="utf-8")
    found = []
    for match in FENCE.finditer(text):
        lang = match["lang"]
        if lang not in SHELL and lang != "python":
            continue
        line = text.count("\n", 0, match.start("lang")) + 1
        found.append({"lang": "shell" if lang in SHELL else "python", "code": match["body"],
                      "line": line, "why": match["why"]})
    return found


RUNNER = textwrap.dedent(r'''
    import doctest, json, os, shlex, subprocess, sys, time, traceback
    blocks, label = json.load(sys.stdin), sys.argv[1]
    os.environ["MPLBACKEND"] = "Agg"
    from maxent_util.cli import main
    namespace = {"__name__": "__docs__"}
    failures, timings = [], []
    for block in blocks:
        where = f"{label}:{block['line']}"
        started = time.perf_counter()
        if block["lang"] == "python":
            try:
                if block["code"].lstrip().startswith(">>>"):
                    test = doctest.DocTestParser().get_doctest(
                        block["code"], namespace, where, label, block["line"])
                    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS
                                                   | doctest.NORMALIZE_WHITESPACE)
                    report = []
                    runner.run(test, out=report.append, clear_globs=False)
                    if runner.failures:
                        failures.append(f"{where}: {''.join(report)}")
                else:
                    exec(compile(block["code"], where, "exec"), namespace)
            except BaseException:
                failures.append(f"{where}: {traceback.format_exc(limit=-3)}")
            timings.append((time.perf_counter() - started, f"{where}: python"))
            continue
        for line in block["code"].replace("\\\n", " ").splitlines():
            line = line.split(" #")[0].strip()
            if not line or line.startswith("#"):
                continue
            started = time.perf_counter()
            if line.startswith("maxent-util "):
                try:
                    status = main(shlex.split(line)[1:])
                except SystemExit as exc:
                    status = exc.code
                except BaseException:
                    status = traceback.format_exc(limit=-3)
            elif "| maxent-util " in line:
                status = subprocess.run(["bash", "-c", "set -o pipefail; " + line]).returncode
            else:
                status = "not a maxent-util command: mark the block as an illustration"
            timings.append((time.perf_counter() - started, f"{where}: {line}"))
            if status not in (0, None):
                failures.append(f"{where}: `{line}` -> {status}")
    timings.sort(reverse=True)
    # on a line of its own: a command may leave its last line unended (a prompt at end of input)
    print("\n@@docs-blocks@@" + json.dumps({"failures": failures, "slowest": timings[:5]}))
''')


def run_page(page: Path, page_blocks: list[dict], folder: Path) -> list[str]:
    """Run the page's blocks in ``folder`` (the samples copied in); the failures."""
    shutil.copytree(EXAMPLES, folder, dirs_exist_ok=True)
    shim = folder / ".bin"
    shim.mkdir()
    script = shim / "maxent-util"
    script.write_text(f"#!/bin/sh\nexec {sys.executable} -m maxent_util \"$@\"\n")
    script.chmod(0o755)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "MPLBACKEND": "Agg",
           "PATH": f"{shim}{os.pathsep}{os.environ.get('PATH', '')}"}
    label = page.relative_to(ROOT).as_posix()
    done = subprocess.run([sys.executable, "-c", RUNNER, label], input=json.dumps(page_blocks),
                          capture_output=True, text=True, cwd=folder, env=env, timeout=300)
    if done.returncode != 0:
        return [f"{label}: the runner failed: {done.stderr[-2000:]}"]
    found = json.loads([line for line in done.stdout.splitlines() if line.startswith(MARK)][-1][len(MARK):])
    SLOWEST.extend(found["slowest"])
    return found["failures"]


def test_every_block_runs_or_is_marked_as_an_illustration(tmp_path):
    runnable, illustrations = {}, []
    for page in PAGES:
        found = blocks(page)
        illustrations += [f"{page.name}:{block['line']} ({block['why']})" for block in found
                          if block["why"]]
        run = [block for block in found if not block["why"]]
        if run:
            runnable[page] = run
    # two pages at a time: the machine has two cores
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = pool.map(lambda item: run_page(item[0], item[1], tmp_path / str(id(item[0]))),
                           runnable.items())
        failures = [failure for result in results for failure in result]
    counted = sum(len(run) for run in runnable.values())
    print(f"{counted} blocks run, {len(illustrations)} illustrations: "
          + "; ".join(illustrations))
    for seconds, what in sorted(SLOWEST, reverse=True)[:25]:
        print(f"{seconds:6.1f} s  {what}")
    assert not failures, "\n".join(failures)
    assert counted >= 40 and len(illustrations) <= 15


def test_the_marker_is_found_and_counted(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("text\n\n<!-- illustration: needs a solver -->\n```bash\nrun-solver\n```\n\n"
                    "```python\nx = 1\n```\n\n```text\nnot code\n```\n")
    found = blocks(page)
    assert [(block["lang"], block["why"]) for block in found] == [
        ("shell", "needs a solver"), ("python", None)]


def test_a_failing_block_is_reported(tmp_path):
    page = ROOT / "README.md"  # any label; the blocks are the test's
    failures = run_page(page, [{"lang": "shell", "code": "maxent-util rank nowhere.csv\n",
                                "line": 1, "why": None},
                               {"lang": "shell", "code": "pip install x\n", "line": 2,
                                "why": None},
                               {"lang": "python", "code": ">>> 1 + 1\n3\n", "line": 3,
                                "why": None}], tmp_path / "run")
    assert len(failures) == 3
    assert "`maxent-util rank nowhere.csv` -> 2" in failures[0]
    assert "mark the block as an illustration" in failures[1]
    assert "Expected:\n    3\nGot:\n    2" in failures[2]
