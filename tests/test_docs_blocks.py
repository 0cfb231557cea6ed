"""Every shell and Python block of README.md and docs/ runs as pasted, alone and in order.

Blocks fenced as ``bash``, ``sh``, ``console``, ``python`` or ``py`` are extracted; a block
that only illustrates (a configurator that needs its own solver, a network install, an
8-minute benchmark, a published file that is not shipped) carries the marker
``<!-- illustration: why -->`` on the line before its fence, and is counted, not run.

Every other block runs alone: its imports, data and files are in it, so it runs pasted into
a fresh interpreter in a folder of the sample files of examples/. A block that needs the
one above it says so on its first line, ``# continues the block above`` (``>>> # continues
the block above`` in a doctest block; a reason may follow the words); it runs only after
the blocks above it. Each page is checked both ways, in one subprocess per page:

- **as the page's chain**: its blocks in order, as a reader pastes the whole page, in one
  process and one folder of the samples (so a file written twice without ``--force``
  fails). A block not marked as a continuation starts a new namespace, which the blocks
  that continue it share: it sees none of the names of the blocks above, as alone.
- **alone**: the chain's run of a block is its alone run when the block read no file that a
  block above wrote or changed. What it read is recorded while it runs (Python's audit
  events for opening and listing files and starting programs) and every word of its text
  that names such a file counts too. A block that read one is run again alone: in a new
  namespace and a new folder of the samples, in a child process forked from the chain's
  process. The page's first block runs in a new interpreter, folder and namespace.

What the chain keeps from the blocks above is the modules they imported and the library's
caches (derivations, datasets, compiled scorers) they filled, which changes timings, not
results.

In both,

- a shell line ``maxent-util ...`` runs the console script's entry point
  (``maxent_util.cli:main``) with the line's arguments and must exit 0; a line that pipes
  into ``maxent-util`` runs in bash with ``maxent-util`` on the PATH; any other line
  makes the block an illustration to be marked;
- ``>>>`` examples run as doctests, their shown output checked.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from conftest import ROOT

EXAMPLES = ROOT / "examples"
#: the runner's result line starts with this
MARK = "@@docs-blocks@@"
#: a block's first line starts with this when it needs the block above it
CONTINUES = "# continues the block above"
SLOWEST: dict = {}  # page -> its slowest blocks or lines, (seconds, where), printed with -s
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
SHELL = ("bash", "sh", "console")
PYTHON = ("python", "py")
FENCE = re.compile(r"^(?P<marker><!-- illustration: (?P<why>.+?) -->\n(?:[ \t]*\n)*)?"
                   r"```(?P<lang>[\w-]*)[ \t]*\n(?P<body>.*?)^```[ \t]*$", re.S | re.M)


def continues(code: str) -> bool:
    """Whether a block says on its first line that it continues the block above."""
    first = next((line.strip() for line in code.splitlines() if line.strip()), "")
    return first.removeprefix(">>>").strip().startswith(CONTINUES)


def blocks(page: Path) -> list[dict]:
    """The page's shell and Python blocks: language, code, line, why it only illustrates
    (None if it runs), and whether it continues the block above."""
    text = page.read_text(encoding="utf-8")
    found = []
    for match in FENCE.finditer(text):
        lang = match["lang"]
        if lang not in SHELL and lang not in PYTHON:
            continue
        line = text.count("\n", 0, match.start("lang")) + 1
        found.append({"lang": "shell" if lang in SHELL else "python", "code": match["body"],
                      "line": line, "why": match["why"], "continues": continues(match["body"])})
    return found


RUNNER = textwrap.dedent(r'''
    import doctest, json, os, re, shlex, shutil, signal, subprocess, sys, tempfile, time, traceback
    blocks, label, samples = json.load(sys.stdin), sys.argv[1], sys.argv[2]
    os.environ["MPLBACKEND"] = "Agg"
    from maxent_util.cli import main
    #: seconds an alone run may take before its process is ended (and reported)
    ALONE_LIMIT = 240


    def run(block, namespace, where, failures, timings):
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
            return
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


    def alone(block, where):
        """Run ``block`` in a forked child: a new namespace, a new folder of the samples."""
        folder = tempfile.mkdtemp(prefix="alone-", dir=os.path.dirname(os.getcwd()))
        shutil.copytree(samples, folder, dirs_exist_ok=True)
        sys.stdout.flush(), sys.stderr.flush()
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(read)
            found, times = [], []
            try:
                signal.alarm(ALONE_LIMIT)  # a hang ends the child, and is reported below
                os.chdir(folder)
                run(block, {"__name__": "__docs__"}, where, found, times)
            except BaseException:
                found.append(f"{where}: {traceback.format_exc(limit=-3)}")
            sys.stdout.flush(), sys.stderr.flush()
            with os.fdopen(write, "w") as pipe:
                json.dump({"failures": found, "timings": times}, pipe)
            os._exit(0)
        os.close(write)
        with os.fdopen(read) as pipe:
            sent = pipe.read()
        _, status = os.waitpid(pid, 0)
        if status != 0 or not sent:
            return [f"{where}: the alone run ended with status {status} (a hang ends it after "
                    f"{ALONE_LIMIT} s)"], []
        result = json.loads(sent)
        return result["failures"], [tuple(timing) for timing in result["timings"]]


    def files():
        """The chain folder's files: relative path -> (size, modification time)."""
        found = {}
        for top, _, names in os.walk("."):
            for name in names:
                path = os.path.normpath(os.path.join(top, name))
                stat = os.stat(path)
                found[path] = (stat.st_size, stat.st_mtime_ns)
        return found


    def inside(word):
        """``word`` as a path relative to the chain folder, or None if it is not in it."""
        word = os.fspath(word) if isinstance(word, (str, os.PathLike)) else None
        if not word or "\0" in word:
            return None
        path = os.path.relpath(os.path.normpath(os.path.join(os.getcwd(), word)), folder)
        return None if path.startswith("..") else path


    reads = None  # while a block runs in the chain: the paths it opened, listed or gave a program


    def audit(event, args):
        if reads is None:
            return
        if event == "open" or event in ("os.listdir", "os.scandir"):
            reads.add(args[0] if args else ".")
        elif event == "subprocess.Popen":
            reads.update(args[1] if isinstance(args[1], (list, tuple)) else [args[1]])


    sys.addaudithook(audit)
    folder = os.getcwd()
    original = files()  # the samples as copied, before any block
    group = {"__name__": "__docs__"}
    failures, timings, alone_runs = [], [], 0
    for index, block in enumerate(blocks):
        where = f"{label}:{block['line']}"
        if index == 0 and block["continues"]:
            failures.append(f"{where}: the page's first block has no block above to continue")
        if not block["continues"]:
            group = {"__name__": "__docs__"}
        before = files()
        made = {path for path, state in before.items() if original.get(path) != state}
        reads = set()
        failed = len(failures)
        run(block, group, where, failures, timings)
        read, reads = reads, None
        if not block["continues"] and any("NameError" in f for f in failures[failed:]):
            failures.append(f"{where}: a block not marked '# continues the block above' sees "
                            "none of the names of the blocks above: import or define them in it")
        if index == 0 or block["continues"]:
            continue
        # the block's words count too: a program it started may read a file without an event
        words = [part for word in re.findall(r"[^\s'\"()\[\]{},]+", block["code"])
                 for part in word.lstrip("@").split("=")]
        touched = {inside(word) for word in [*read, *words]} - {None}
        above = sorted(path for path in touched for mine in made
                       if mine == path or mine.startswith(path.rstrip(os.sep) + os.sep))
        if above:
            found, times = alone(block, f"{where} (alone; it read {above[0]}, made above)")
            failures += found
            timings += times
            alone_runs += 1
    timings.sort(reverse=True)
    # on a line of its own: a command may leave its last line unended (a prompt at end of input)
    print("\n@@docs-blocks@@" + json.dumps({"failures": failures, "slowest": timings[:5],
                                            "alone": alone_runs}))
''')


#: A process of this test worker that has imported what the pages' commands load (the library,
#: pandas, sympy, scipy, matplotlib) and forks each page's runner from there. The runner is a
#: new process with its own folder, environment, namespace and standard streams, as one started
#: by hand; what it does not pay again is those imports, 1.5 s of CPU a page (21 pages).
ZYGOTE = textwrap.dedent(r"""
    import json, os, signal, sys, traceback
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot, numpy, pandas, scipy.optimize, sympy
    import maxent_util, maxent_util.cli
    runner = None  # RUNNER, compiled from the first request
    for line in iter(sys.stdin.readline, ""):
        request = json.loads(line)
        if runner is None:
            runner = compile(request["runner"], "<docs-runner>", "exec")
        sys.stdout.flush(), sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            status = 0
            try:
                signal.alarm(request["limit"])  # a hang ends the runner, and is reported
                os.chdir(request["folder"])
                os.environ.clear()
                os.environ.update(request["env"])
                for fd, path, flags in ((0, request["input"], os.O_RDONLY),
                                        (1, request["output"], os.O_WRONLY | os.O_CREAT),
                                        (2, request["errors"], os.O_WRONLY | os.O_CREAT)):
                    os.dup2(os.open(path, flags, 0o600), fd)
                sys.stdin = open(0, encoding="utf-8", closefd=False)
                sys.argv = ["-c", *request["argv"]]
                exec(runner, {"__name__": "__main__"})
            except SystemExit as stop:
                status = stop.code if isinstance(stop.code, int) else 1
            except BaseException:
                traceback.print_exc()
                status = 1
            sys.stdout.flush(), sys.stderr.flush()
            os._exit(status)
        _, status = os.waitpid(pid, 0)
        print(json.dumps({"status": os.waitstatus_to_exitcode(status)}), flush=True)
""")
_zygote: list[subprocess.Popen] = []


def _forked_runner(argv: list[str], page_blocks: list[dict], folder: Path, env: dict) -> tuple[int, str, str]:
    """Run RUNNER with ``argv`` in ``folder`` and ``env``, the blocks on its standard input, in a
    child of this worker's zygote: its exit status, standard output and standard error."""
    if not _zygote or _zygote[0].poll() is not None:
        _zygote[:] = [subprocess.Popen([sys.executable, "-c", ZYGOTE], stdin=subprocess.PIPE,
                                       stdout=subprocess.PIPE, text=True,
                                       env={**os.environ, "PYTHONPATH": str(ROOT), "MPLBACKEND": "Agg"})]
    zygote = _zygote[0]
    streams = {name: folder.with_name(f"{folder.name}.{name}") for name in ("input", "output", "errors")}
    streams["input"].write_text(json.dumps(page_blocks), encoding="utf-8")
    zygote.stdin.write(json.dumps({"runner": RUNNER, "argv": argv, "folder": str(folder), "env": env,
                                   "limit": 600, **{k: str(v) for k, v in streams.items()}}) + "\n")
    zygote.stdin.flush()
    answer = zygote.stdout.readline()
    if not answer:
        return 1, "", f"the runners' zygote ended (exit status {zygote.wait()})"
    return (json.loads(answer)["status"], streams["output"].read_text(encoding="utf-8", errors="replace"),
            streams["errors"].read_text(encoding="utf-8", errors="replace"))


@pytest.fixture(scope="module", autouse=True)
def _end_the_zygote():
    yield
    for zygote in _zygote:
        zygote.stdin.close()
        zygote.wait(timeout=60)
    _zygote.clear()


def run_page(page: Path, page_blocks: list[dict], folder: Path) -> tuple[list[str], int]:
    """Run the page's blocks in ``folder`` (the samples copied in), in order and alone; the
    failures and the number of blocks run again alone in a forked child."""
    shutil.copytree(EXAMPLES, folder, dirs_exist_ok=True)
    shim = folder / ".bin"
    shim.mkdir()
    script = shim / "maxent-util"
    script.write_text(f"#!/bin/sh\nexec {sys.executable} -m maxent_util \"$@\"\n")
    script.chmod(0o755)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "MPLBACKEND": "Agg",
           "PATH": f"{shim}{os.pathsep}{os.environ.get('PATH', '')}"}
    label = page.relative_to(ROOT).as_posix()
    status, out, err = _forked_runner([label, str(EXAMPLES)], page_blocks, folder, env)
    if status != 0:
        return [f"{label}: the runner failed (exit status {status}): {err[-2000:]}"], 0
    found = json.loads([line for line in out.splitlines() if line.startswith(MARK)][-1][len(MARK):])
    SLOWEST[page] = found["slowest"]
    return found["failures"], found["alone"]


#: each page's blocks that run (the others illustrate), read at collection: one test per page,
#: so that the pages spread over the suite's workers
RUNNABLE = {page: run for page in PAGES if (run := [block for block in blocks(page) if not block["why"]])}


@pytest.mark.parametrize("page", list(RUNNABLE), ids=lambda page: page.relative_to(ROOT).as_posix())
def test_every_block_of_the_page_runs_alone_and_in_order(page, tmp_path):
    failures, alone = run_page(page, RUNNABLE[page], tmp_path)
    run = RUNNABLE[page]
    print(f"{len(run)} blocks run in order, {sum(block['continues'] for block in run)} of them "
          f"continuations; the others alone: {alone} run again in a forked child (they read a "
          "file a block above made)")
    for seconds, what in SLOWEST[page]:
        print(f"{seconds:6.1f} s  {what}")
    assert not failures, "\n".join(failures)


def test_every_block_runs_or_is_marked_as_an_illustration():
    illustrations = [f"{page.name}:{block['line']} ({block['why']})" for page in PAGES
                     for block in blocks(page) if block["why"]]
    counted = sum(len(run) for run in RUNNABLE.values())
    print(f"{counted} blocks run; {len(illustrations)} illustrations: " + "; ".join(illustrations))
    # each illustration is listed above with its reason; the cap keeps code from hiding there
    # (the pages name 22 today: published files not shipped, benchmarks of minutes, real
    # configurator runs of hundreds of solver calls, deployments on a cluster of machines)
    assert counted >= 40 and len(illustrations) <= 22


def test_the_markers_are_found_and_counted(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("text\n\n<!-- illustration: needs a solver -->\n```bash\nrun-solver\n```\n\n"
                    "```python\nx = 1\n```\n\n```text\nnot code\n```\n\n"
                    "```py\n\n# continues the block above: x\nprint(x)\n```\n\n"
                    "```python\n>>> # continues the block above\n>>> x\n1\n```\n")
    found = blocks(page)
    assert [(block["lang"], block["why"], block["continues"]) for block in found] == [
        ("shell", "needs a solver", False), ("python", None, False), ("python", None, True),
        ("python", None, True)]


def test_a_failing_block_is_reported(tmp_path):
    page = ROOT / "README.md"  # any label; the blocks are the test's
    failures, alone = run_page(page, [{"lang": "shell", "code": "maxent-util rank nowhere.csv\n",
                                       "line": 1, "why": None, "continues": False},
                                      {"lang": "shell", "code": "pip install x\n", "line": 2,
                                       "why": None, "continues": False},
                                      {"lang": "python", "code": ">>> 1 + 1\n3\n", "line": 3,
                                       "why": None, "continues": False}], tmp_path / "run")
    assert len(failures) == 3 and alone == 0
    assert "`maxent-util rank nowhere.csv` -> 2" in failures[0]
    assert "mark the block as an illustration" in failures[1]
    assert "Expected:\n    3\nGot:\n    2" in failures[2]


def _python(line: int, code: str) -> dict:
    return {"lang": "python", "line": line, "why": None, "continues": continues(code), "code": code}


def test_a_block_that_needs_the_names_above_fails_unless_marked(tmp_path):
    page = ROOT / "README.md"
    above = _python(1, "values = [1, 2]\n")
    failures, alone = run_page(page, [above, _python(2, "total = sum(values)\n")], tmp_path / "unmarked")
    assert len(failures) == 2 and alone == 0, failures
    assert "README.md:2" in failures[0] and "NameError: name 'values'" in failures[0]
    assert "sees none of the names of the blocks above" in failures[1]
    marked = _python(2, f"{CONTINUES}: values\ntotal = sum(values)\nassert total == 3\n")
    assert run_page(page, [above, marked], tmp_path / "marked") == ([], 0)
    # nothing above the first block: a marker there is an error
    failures, _ = run_page(page, [marked], tmp_path / "first")
    assert "has no block above to continue" in failures[0]


def test_a_block_that_reads_a_file_made_above_runs_again_alone_and_fails(tmp_path):
    page = ROOT / "README.md"
    make = _python(1, "open('mine.csv', 'w').write('algorithm,instance,runtime,status,cutoff\\n'\n"
                      "                            'a,i,1.0,solved,10\\n')\n")
    # read by Python, by the command line in this process, and by a program it starts
    readers = [_python(2, "import pandas as pd\nname = 'mine' + '.csv'\npd.read_csv(name)\n"),
               {"lang": "shell", "line": 3, "why": None, "continues": False,
                "code": "maxent-util rank mine.csv --par 2\n"},
               {"lang": "shell", "line": 4, "why": None, "continues": False,
                "code": "cat mine.csv | maxent-util rank - --par 2\n"}]
    failures, alone = run_page(page, [make, *readers], tmp_path / "files")
    assert alone == 3 and len(failures) == 3, failures
    assert "README.md:2 (alone; it read mine.csv, made above)" in failures[0]
    assert "FileNotFoundError" in failures[0]
    assert "README.md:3 (alone" in failures[1] and "-> 2" in failures[1]
    assert "README.md:4 (alone" in failures[2] and "-> " in failures[2]
    # a block that reads only the samples is not run again: its chain run was its alone run
    samples_only = _python(2, "import pandas as pd\npd.read_csv('results.csv')\n")
    assert run_page(page, [make, samples_only], tmp_path / "samples") == ([], 0)


#: fences whose blocks are data or output, never run
NOT_CODE = ("", "text", "json", "toml", "csv", "yaml", "c", "latex", "html")


def test_no_code_escapes_through_another_fence_name():
    # a block fenced as `pycon`, `python3` or `shell` would be neither run nor counted
    fences = {(page.name, match["lang"]) for page in PAGES
              for match in FENCE.finditer(page.read_text(encoding="utf-8"))}
    assert {fence for fence in fences if fence[1] not in (*SHELL, *PYTHON, *NOT_CODE)} == set()


def test_the_docs_state_the_continuation_marker():
    assert CONTINUES in (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
