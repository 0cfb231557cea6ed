"""The command line at the edges of its streams, its sizes, its warnings and Ctrl-C.

Each case was measured failing before (issue 23, section 4): `tour --out d | head -1`
exited 0 with d/ empty (tested through the entry point in test_cli.py); with stderr closed (`2>&-`) an error went to stdout, or an
AttributeError ended the command; `report --title $'\\xff'` was an "unexpected
UnicodeEncodeError"; `sweep --points 100000000` and `rank --resamples 1000000000000` an
"unexpected MemoryError"; warnings printed their source line beside the error; an
interrupt swallowed on the way let the command finish and exit 0.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import warnings

import pandas as pd
import pytest
from conftest import ERROR_PREFIX, ROOT, assert_usage_error, checkout_env, run

import maxent_util.rules
from maxent_util import Solved
from maxent_util.cli import MAX_POINTS, MAX_RESAMPLES
from maxent_util.errors import ExportError
from maxent_util.report import report_html, write_report

LONG = str(ROOT / "tests" / "data" / "long_small.csv")


def _env():
    env = checkout_env(MPLBACKEND="Agg")
    env.pop("MAXENT_UTIL_TRACEBACK", None)
    return env


# ---------------------------------------------------------------------------
# a closed stderr


def _closed_stderr(argv, cwd):
    # `maxent-util ARGV 2>&-`: the process starts with file descriptor 2 closed (by the shell,
    # as a user's; a preexec_fn would run this worker's fork handlers)
    return subprocess.run(["sh", "-c", 'exec "$@" 2>&-', "sh", sys.executable, "-m", "maxent_util", *argv],
                          stdout=subprocess.PIPE, text=True, timeout=300, env=_env(), cwd=cwd)


def test_with_stderr_closed_a_command_runs_and_an_error_stays_off_stdout(tmp_path):
    done = _closed_stderr(["race", LONG, "--utility", "exponential(10)", "--delta", "0.5",
                           "--missing", "unsolved", "--csv"], tmp_path)
    assert done.returncode == 0 and done.stdout.startswith("m,"), done.stdout
    done = _closed_stderr(["rank", LONG, "--par", "2"], tmp_path)  # a missing run: an error
    assert (done.returncode, done.stdout) == (2, "")


# ---------------------------------------------------------------------------
# text that is not UTF-8


def test_a_title_that_is_not_utf8_is_refused_before_the_work(capsys, tmp_path):
    # what `--title $'\xff'` gives Python: the byte as a lone surrogate
    status, out, err = run(capsys, "report", LONG, "--par", "2", "--missing", "unsolved",
                           "--title", "\udcff", "-o", str(tmp_path / "r.html"))
    assert_usage_error(status, out, err, "argument --title: expected text in UTF-8, the page's "
                                         "encoding; got '\\udcff' (bytes of another encoding)")
    assert os.listdir(tmp_path) == []


def _runs():
    return pd.DataFrame({"algorithm": ["a", "b"], "instance": ["i", "i"],
                         "runtime": [1.0, 5.0], "status": ["solved", "capped"]})


def test_the_report_refuses_such_a_title_and_shows_such_file_names_as_escapes(tmp_path):
    with pytest.raises(ExportError, match=r"^`title` of `report_html` must be text that UTF-8 can "
                                          r"encode; got '\\udcff'\. It holds bytes of another"):
        report_html(_runs(), rules=[Solved()], title="\udcff", sections=["data"])
    source = tmp_path / os.fsdecode(b"runs\xff.csv")
    source.write_text("a file of runs\n")
    target = tmp_path / "r.html"
    write_report(_runs(), target, rules=[Solved()], source=source, notes=["note \udcfe"],
                 sections=["data"])
    page = target.read_text(encoding="utf-8")
    assert "Runtime report: runs\\xff.csv" in page and "note \\xfe" in page


# ---------------------------------------------------------------------------
# sizes that cannot fit


@pytest.mark.parametrize("argv, flag, most, value", [
    (["sweep", LONG, "--family", "pareto", "--fixed", "alpha=1", "--from", "1", "--to", "9"],
     "--points", MAX_POINTS, "100000000"),
    (["plot", "--sweep", LONG, "--family", "pareto", "--fixed", "alpha=1", "--from", "1",
      "--to", "9"], "--points", MAX_POINTS, str(MAX_POINTS + 1)),
    (["rank", LONG, "--par", "2", "--ci", "0.9"], "--resamples", MAX_RESAMPLES, "1000000000000"),
    (["compare", LONG, "kissat", "cadical", "--par", "2"], "--resamples", MAX_RESAMPLES,
     "1000000000000"),
    (["report", LONG, "--par", "2"], "--resamples", MAX_RESAMPLES, str(MAX_RESAMPLES + 1)),
])
def test_sizes_that_cannot_fit_are_refused_naming_the_option_and_the_maximum(capsys, argv, flag,
                                                                            most, value):
    status, out, err = run(capsys, *argv, flag, value)
    assert_usage_error(status, out, err, f"argument {flag}: expected an integer of at most {most} "
                                         f"(more does not fit in memory); got '{value}'")


def test_the_largest_sizes_are_accepted(capsys):
    from maxent_util.cli import build_parser

    parser = build_parser(constraint_flags=False)
    arguments = parser.parse_args(["sweep", LONG, "--family", "pareto", "--from", "1", "--to", "9",
                                   "--points", str(MAX_POINTS)])
    assert arguments.points == MAX_POINTS
    arguments = parser.parse_args(["rank", LONG, "--ci", "0.9", "--resamples", str(MAX_RESAMPLES)])
    assert arguments.resamples == MAX_RESAMPLES


# ---------------------------------------------------------------------------
# warnings


def _warn(monkeypatch):
    original = maxent_util.rules.parse_rule

    def parse_rule(spec):
        warnings.warn("a note for the user\n  on two lines", UserWarning)
        return original(spec)

    monkeypatch.setattr(maxent_util.rules, "parse_rule", parse_rule)


def test_any_other_warning_is_one_line_without_its_source(capsys, monkeypatch, tmp_path):
    _warn(monkeypatch)
    status, out, err = run(capsys, "export", "--utility", "exponential(24)", "--c",
                           str(tmp_path / "u.c"))
    assert status == 0
    assert err == "maxent-util: warning: a note for the user on two lines\n"


def test_warnings_from_a_child_process_are_one_line(tmp_path):
    # the real thing: Python's own display prints the warning's source line under it; numpy's
    # RuntimeWarning (overflow in exp) is not shown at all
    script = ("import sys, warnings, numpy, maxent_util.rules as r\n"
              "from maxent_util.cli import main\n"
              "def parse_rule(spec):\n"
              "    numpy.exp(numpy.array([1000.0]))\n"
              "    warnings.warn('careful', UserWarning)\n"
              "    raise ValueError('boom')\n"
              "r.parse_rule = parse_rule\n"
              "sys.exit(main(['export', '--utility', 'x', '--c', 'u.c']))\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120, env=_env(), cwd=tmp_path)
    assert done.returncode == 1
    lines = done.stderr.splitlines()
    assert lines[0] == "maxent-util: warning: careful"
    assert len(lines) == 2 and lines[1].startswith(ERROR_PREFIX + "unexpected ValueError: boom")


# ---------------------------------------------------------------------------
# Ctrl-C


@pytest.mark.skipif(not hasattr(signal, "raise_signal"), reason="no signal.raise_signal")
def test_an_interrupt_swallowed_on_the_way_still_exits_130_and_writes_no_file(capsys, monkeypatch,
                                                                              tmp_path,
                                                                              default_sigint):
    original = maxent_util.rules.parse_rule

    def parse_rule(spec):
        try:
            signal.raise_signal(signal.SIGINT)  # Ctrl-C ...
        except KeyboardInterrupt:
            pass  # ... lands where it is swallowed (a __del__, a gc callback, a bare except)
        return original(spec)

    monkeypatch.setattr(maxent_util.rules, "parse_rule", parse_rule)
    target = tmp_path / "u.c"
    status, out, err = run(capsys, "export", "--utility", "exponential(24)", "--c", str(target))
    assert (status, err) == (130, "maxent-util: interrupted\n")
    assert os.listdir(tmp_path) == []
    # the next command is not affected
    monkeypatch.setattr(maxent_util.rules, "parse_rule", original)
    assert run(capsys, "export", "--utility", "exponential(24)", "--c", str(target))[0] == 0
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
