"""Helpers shared by the test modules.

Test modules import these by name (``from conftest import same``): pytest puts this folder
on ``sys.path`` because it holds the rootmost conftest.py.
"""

from __future__ import annotations

import gc
import os
import sys
import warnings
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from hypothesis import Phase, settings

if TYPE_CHECKING:
    import pandas as pd
    import sympy

# pandas, sympy and the library are imported by the helpers that use them: pytest-xdist's
# controller loads this file too, before it starts the workers, and runs no test

# hypothesis' explain phase traces every line of a failing example; through sympy that turns
# one failure into an hour-long run, so failures are reported as shrunk, without it
settings.register_profile("maxent_util", phases=[phase for phase in Phase if phase is not Phase.explain])
settings.load_profile("maxent_util")


def _without_local_constants() -> None:
    """Hypothesis draws one value in twenty from the constants written in the local modules
    loaded so far (the library's, the tests', a module a test exported and imported). Which
    those are depends on the tests run before in the process, so a derandomized test drew
    other examples in the suite than alone: test_derived_utility_is_its_own_law took 12 s of
    CPU alone and 27 to 48 s in the suite, on other constraint sets. Without them a
    derandomized test draws the same examples wherever it runs; hypothesis' own constants
    (0, 1, -1, the largest and smallest floats, ...) are still drawn. Hypothesis has no
    setting for this: where its internals differ, nothing is changed."""
    try:
        from hypothesis.internal.conjecture import providers
    except ImportError:
        return
    if callable(getattr(providers, "_get_local_constants", None)) and hasattr(providers, "Constants"):
        none = providers.Constants()
        providers._get_local_constants = lambda: none


_without_local_constants()

# sympy makes and drops millions of small objects. At the default thresholds (700, 10, 10)
# the collector took 12% of the CPU of three test files (5.7-6.7 s of 50-56 s, hypothesis
# seeded, each collection timed by a gc callback), most of it in full collections that scan
# every long-lived module and cache again; with these thresholds and what collection loaded
# frozen, 6% (3.5 s)
gc.set_threshold(50_000, 20, 100)


def pytest_configure(config: pytest.Config) -> None:
    # Where PYTHONDONTWRITEBYTECODE is set (as in CI), no process writes the library's bytecode,
    # so each command a test starts compiled the library's modules again (0.2 to 0.3 s of CPU a
    # command). The controller writes it once, as Python does by itself without that setting;
    # a module edited later is compiled afresh (the timestamps no longer match).
    if sys.dont_write_bytecode and not hasattr(config, "workerinput"):
        import compileall

        compileall.compile_dir(ROOT / "maxent_util", quiet=2)
    numprocesses = getattr(config.option, "numprocesses", None)
    if not hasattr(config, "workerinput") and (numprocesses in ("auto", "logical")
                                               or (isinstance(numprocesses, int) and numprocesses > 1)):
        _rewrite_the_test_modules_once(config, ROOT / "tests")


def _rewrite_the_test_modules_once(config: pytest.Config, folder: Path) -> None:
    """pytest's bytecode of the test modules, their asserts rewritten, written once by the
    controller where it is missing or stale. Each xdist worker rewrote all of them as it
    started (5.6 s of CPU a worker, three at once on two cores), and at every run where
    bytecode is not written (PYTHONDONTWRITEBYTECODE); the workers read what is written here
    (pytest reads its cache even where it writes none). Through pytest's own rewriting
    functions: where those differ, nothing is done, and each worker rewrites as before."""
    try:
        from _pytest.assertion import rewrite

        state = config.stash[rewrite.assertstate_key]
        for path in sorted(folder.glob("test_*.py")):
            cache = rewrite.get_cache_dir(path)
            pyc = cache / (path.name[:-3] + rewrite.PYC_TAIL)
            if rewrite._read_pyc(path, pyc) is not None:
                continue
            cache.mkdir(parents=True, exist_ok=True)
            source_hash, code = rewrite._rewrite_test(path, config)
            rewrite._write_pyc(state, code, source_hash, pyc)
    except (ImportError, AttributeError, KeyError, TypeError, ValueError, OSError, SyntaxError):
        return


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """``-n auto``: one worker more than the cores this process may use. About a tenth of the
    suite waits rather than computes (races that sleep, a Dask cluster starting, a browser or
    irace answering); a worker more fills that time. On two cores, in alternated runs of the
    whole suite: 4:22 and 4:29 with three workers, 4:42 and 4:59 with two.
    PYTEST_XDIST_AUTO_NUM_WORKERS, when set, is the number (xdist reads it: None passes on)."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return cores + 1


def pytest_collection_finish(session: pytest.Session) -> None:
    # what collection loaded (modules, test functions, parameters) lives to the end: frozen,
    # the collector no longer scans it
    gc.collect()
    gc.freeze()


#: the checkout's root folder
ROOT = Path(__file__).resolve().parents[1]


def checkout_env(**extra: str) -> dict[str, str]:
    """The environment for a child process that imports this checkout's package, not an
    installed copy: this process's, the checkout first on ``PYTHONPATH``, and ``extra``."""
    path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    return {**os.environ, "PYTHONPATH": path, **extra}


#: what every command-line error line starts with
ERROR_PREFIX = "maxent-util: error: "
#: the first eight bytes of every PNG file
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


#: Debian's browser, which the report's browser tests drive through Playwright (none is downloaded)
CHROMIUM = "/usr/bin/chromium"
#: its flags there: headless, and no name resolved, so nothing the browser itself asks for leaves
#: the machine
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run", "--host-resolver-rules=MAP * ~NOTFOUND"]


def irace_program() -> str | None:
    """irace's command as the library finds it (:func:`maxent_util.export.find_irace`: PATH,
    else R's library); None when neither has it, so that its tests skip."""
    from maxent_util.errors import ExportError
    from maxent_util.export import find_irace

    try:
        return find_irace()
    except ExportError:
        return None


# ---------------------------------------------------------------------------
# comparing expressions


def same(ours: object, reference: object) -> bool:
    """Whether two closed forms are equal, whatever their spelling.

    Both sides go through ``sympy.S`` (numbers, texts of the tests' own and sympy objects).
    Tried in turn: the difference simplifies to 0; it does after erfc is written as erf and
    logs are expanded (log(x**c) against c*log(x)); the exponentials agree (multipliers of
    the form log(x) - 1, where sympy will not split log((a - b)/(c - d))).
    """
    import sympy

    ours, reference = sympy.S(ours), sympy.S(reference)
    difference = ours - reference
    if sympy.simplify(difference) == 0:
        return True
    if sympy.simplify(sympy.expand_log(difference.rewrite(sympy.erf), force=True)) == 0:
        return True
    return sympy.simplify(sympy.exp(ours) - sympy.exp(reference)) == 0


def identical(ours: sympy.Basic, reference: sympy.Basic) -> bool:
    """Whether two sympy objects are the same tree (equal ``srepr``), not merely equal in value:
    what a round trip through a file must give back."""
    import sympy

    return sympy.srepr(ours) == sympy.srepr(reference)


# ---------------------------------------------------------------------------
# runs tables


def runs_table(rows: list[tuple], cutoff: float | None = 100.0) -> pd.DataFrame:
    """A long runs table from (algorithm, instance, runtime, status) rows, with one common
    ``cutoff`` column unless ``cutoff`` is None."""
    import pandas as pd

    frame = pd.DataFrame(rows, columns=["algorithm", "instance", "runtime", "status"])
    if cutoff is not None:
        frame["cutoff"] = cutoff
    return frame


# ---------------------------------------------------------------------------
# benchmark scripts, in process


def run_script(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture, name: str, *argv: str) -> str:
    """Standard output of ``python benchmarks/NAME ARGV``, run in this process as that command
    would run it (its ``__main__`` block, its argument parser).

    For scripts that clear no cache and change no setting: the libraries they import are loaded
    here already, and this checkout's package is the one imported."""
    import runpy

    script = ROOT / "benchmarks" / name
    monkeypatch.setattr(sys, "argv", [str(script), *argv])
    runpy.run_path(str(script), run_name="__main__")
    return capsys.readouterr().out


# ---------------------------------------------------------------------------
# the command line, in process


def run(capsys: pytest.CaptureFixture, *argv: str) -> tuple[int, str, str]:
    """``maxent-util ARGV`` through ``main``: (exit status, stdout, stderr)."""
    from maxent_util.cli import main

    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def assert_usage_error(status: int, out: str, err: str, pattern: str | None = None) -> None:
    """Status 2 and exactly one line on stderr, with the common prefix (and no traceback),
    containing ``pattern`` when given."""
    assert status == 2
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(ERROR_PREFIX)
    assert "Traceback" not in err + out
    if pattern is not None:
        assert pattern in lines[0], lines[0]


# ---------------------------------------------------------------------------
# fixtures


@pytest.fixture()
def race_csv(tmp_path: Path) -> Path:
    """A long runs table: two algorithms far apart (a 1 to 3 s, b 50 to 89 s) on 40 instances,
    cutoff 100 s."""
    rows = ["algorithm,instance,runtime,status,cutoff"]
    for i in range(40):
        rows += [f"a,i{i},{1 + i % 3},solved,100", f"b,i{i},{50 + i},solved,100"]
    path = tmp_path / "race.csv"
    path.write_text("\n".join(rows) + "\n")
    return path


@pytest.fixture()
def no_warnings():
    """The test runs with warnings turned into errors (modules opt in with
    ``pytestmark = pytest.mark.usefixtures("no_warnings")``)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        yield


def as_from_a_terminal() -> None:
    """Ctrl-C as a shell leaves it to a program it starts: SIGINT unblocked and handled by
    default. A test process may hold it otherwise (a library may block or ignore it for a
    while), and a child inherits an ignored or blocked signal across exec."""
    import signal

    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.fixture()
def default_sigint():
    """This process handles Ctrl-C as Python does by default for the test, as it would when
    started from a terminal; the previous handling is put back after."""
    import signal

    handler = signal.getsignal(signal.SIGINT)
    mask = signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, handler if handler is not None else signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
