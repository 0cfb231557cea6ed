"""The configurators' side of the library: a real command run and costed by utility.

The command is a tiny "solver" (a Python script that sleeps 0.01 + scale * |x - 0.3|
seconds, the scale read from its instance file), so some runs meet the cutoff and are
killed. :class:`~maxent_util.export.CostTarget` runs it and costs it; ``export_irace`` writes
the folder irace runs. Real irace, SMAC3 and Optuna configuring minisat through these are the
solver author's journeys (``tests/test_journeys.py``), which check the costs each tool
recorded against the library's ``cost_function``.
"""

from __future__ import annotations

import json
import math
import re
import runpy
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import checkout_env

from maxent_util.errors import DataError, ExportError
from maxent_util.export import (CostTarget, Parameter, cost_function, export_irace,
                                irace_parameters)

SPEC = "exponential(0.2)"
CUTOFF = 0.3
SPACE = [Parameter("x", "real", (0.0, 1.0), "--x=")]

SOLVER = """\
import sys, time
x = float(sys.argv[1].split("=", 1)[1])
with open(sys.argv[2]) as file:
    scale = float(file.read())
time.sleep(0.01 + scale * abs(x - 0.3))
"""


@pytest.fixture
def problem(tmp_path):
    solver = tmp_path / "solver.py"
    solver.write_text(SOLVER)
    instances = []
    for index, scale in enumerate((0.1, 0.2, 0.3, 0.4)):
        path = tmp_path / f"instance{index}.txt"
        path.write_text(repr(scale))
        instances.append(str(path))
    return [sys.executable, str(solver), "{config}", "{instance}"], instances


def test_a_run_past_the_cutoff_is_killed_and_costs_one(problem):
    command, instances = problem
    target = CostTarget(command, SPEC, 0.05)
    result = target.run(["--x=1.0"], instances[3])  # would sleep 0.29 s
    assert result.status == "capped" and result.cost == 1.0 and 0.05 <= result.runtime < 0.25
    optimistic = CostTarget(command, SPEC, 0.05, capped="cutoff").run(["--x=1.0"], instances[3])
    # 1 - u(cutoff) = 1 - exp(-0.05 / 0.2), by hand
    assert optimistic.cost == pytest.approx(1 - math.exp(-0.25), abs=1e-15)
    crashed = CostTarget([sys.executable, "-c", "raise SystemExit(3)", "{instance}"], SPEC, 1.0)
    assert crashed.run([], "i") == (math.inf, "crash", 1.0)


def test_irace_parameters_and_refusals(tmp_path):
    space = [Parameter("var_decay", "real", (0.5, 0.99), "-var-decay="),
             Parameter("rfirst", "integer", (10, 1000), "-rfirst=", log=True),
             Parameter("luby", "categorical", ("-luby", "-no-luby"))]
    assert irace_parameters(space) == ('var_decay "-var-decay=" r (0.5, 0.99)\n'
                                       'rfirst "-rfirst=" i,log (10, 1000)\n'
                                       'luby "" c ("-luby", "-no-luby")\n')
    target = CostTarget(["solver", "{config}", "{instance}"], SPEC, 1.0, space=space)
    assert target.words({"luby": "-no-luby", "var_decay": 0.9, "rfirst": 200.0}) == [
        "-var-decay=0.9", "-rfirst=200", "-no-luby"]
    with pytest.raises(ExportError, match=r'^`values` of `Parameter` must be text without quotes, '
                                          r'backslashes or control characters; got \[\'\', \'a"\'\]'):
        Parameter("p", "categorical", ('a"',))
    with pytest.raises(ExportError, match=r"^`name` of `Parameter` must be an ASCII identifier; got 'var-decay'"):
        Parameter("var-decay", "real", (0, 1))
    with pytest.raises(ExportError, match=r"^`values` of `Parameter` must be \(low, high\)"):
        Parameter("p", "real", (1, 1))
    with pytest.raises(ExportError, match=r"^`cutoff` of `CostTarget` must be a positive finite "
                                          r"number of seconds; got nan"):
        CostTarget(["solver", "{instance}"], SPEC, math.nan)
    with pytest.raises(DataError, match=r"^`command` of `ProcessRunner` must be a command whose program"):
        CostTarget(["sh", "-c", "solver {instance}"], SPEC, 1.0)
    export_irace(tmp_path, ["solver", "{config}", "{instance}"], SPEC, 1.0)
    before = (tmp_path / "target-runner").read_text()
    with pytest.raises(ExportError, match=r"^`path` of `export_irace` must be a file that does not exist yet"):
        export_irace(tmp_path, ["other", "{instance}"], SPEC, 1.0)
    assert (tmp_path / "target-runner").read_text() == before
    assert os.access(tmp_path / "target-runner", os.X_OK)


def test_the_target_runner_keeps_hostile_names_as_data(tmp_path):
    # a command word and a utility name that would close the docstring or the list
    word = 'x"""]; import os; os.system("false") #'
    folder = export_irace(tmp_path, [sys.executable, "-c", "pass", word, "{config}", "{instance}"],
                          SPEC, 1.0, space=[Parameter("a", "categorical", ("-a", "-b"))])
    done = subprocess.run([sys.executable, str(folder / "target-runner"), "1", "1", "0", "inst", "-a"],
                          capture_output=True, text=True, timeout=60, env=checkout_env())
    assert done.returncode == 0, done.stderr
    run = json.loads((folder / "runs.jsonl").read_text())
    assert run["parameters"] == ["-a"] and run["status"] == "solved"
    assert float(done.stdout) == run["cost"] == pytest.approx(
        cost_function(SPEC)(run["runtime"], "solved", 1.0), abs=1e-15)
    assert Path(folder / "target-runner").read_text().count(repr(word)) == 1


@pytest.mark.skipif(shutil.which("minisat") is None, reason="minisat is not installed")
def test_minisat_stopped_at_its_cpu_limit_is_capped(tmp_path):
    cnfgen = pytest.importorskip("cnfgen")
    # 10 pigeons in 9 holes: about 4 s of CPU for minisat; stopped at 1 s, it prints
    # INDETERMINATE and exits 0 with a little under 1 s of CPU reported
    instance = tmp_path / "php.cnf"
    instance.write_text(cnfgen.PigeonholePrinciple(10, 9).to_dimacs())
    target = CostTarget(["minisat", "-verb=0", "{config}", "{instance}"], "pareto(0.01, 1)", 1.0,
                        exit_codes=(10, 20), clock="cpu")
    result = target.run([], instance)
    assert result.status == "capped" and result.runtime >= 1.0 and result.cost == 1.0


def _target_runner(capsys, folder, *arguments):
    """Run the target runner's main() in this process (one real run: the hostile-names test)."""
    status = runpy.run_path(str(folder / "target-runner"))["main"](["1", "1", "0", *arguments])
    out, err = capsys.readouterr()
    return status, out, err


@pytest.mark.parametrize("instance, parameters, pattern", [
    ("a\0b", ["--x=0.5"], r"`instance` of `ProcessRunner.run` must be text without a NUL byte"),
    ("-rf", ["--x=0.5"], r"`instance` of `ProcessRunner.run` must be .*a leading '-'"),
    ("a\nb", ["--x=0.5"], r"`instance` of `ProcessRunner.run` must be .*a line break"),
    ("i", ["--x=2"], r"`value` of `Parameter 'x'` must be a number in \[0, 1\]; got 2.0"),
    ("i", ["--x=0.5; rm -rf ~"], r"`config` of `target-runner` must be words of the declared "
                                  r"parameter space \(x\); got '--x=0.5; rm -rf ~'"),
    ("i", ["--x=0.5", "--x=0.6"], r"`config` of `target-runner` must be one value of x"),
    ("i", ["-e", "--x=0.5"], r"`config` of `target-runner` must be words of the declared"),
])
def test_the_target_runner_refuses_names_outside_the_boundary(capsys, tmp_path, instance,
                                                              parameters, pattern):
    # what irace hands the runner is data: parameters from parameters.txt, a plain instance;
    # anything else is one line on standard error and status 2, and nothing runs
    ran = tmp_path / "ran"
    folder = export_irace(tmp_path, [sys.executable, "-S", "-c",
                                     "import sys; open(sys.argv[1], 'w')", str(ran), "{config}",
                                     "{instance}"], SPEC, 1.0, space=SPACE, log=False)
    status, out, err = _target_runner(capsys, folder, instance, *parameters)
    assert status == 2 and out == "", err
    assert re.match(r"target-runner: " + pattern, err), err
    assert len(err.splitlines()) == 1 and not ran.exists()
    status, out, err = _target_runner(capsys, folder, "i", "--x=0.5")
    assert status == 0 and ran.exists(), err


def test_the_target_runner_reads_the_space_of_its_parameters_file(capsys, tmp_path):
    folder = export_irace(tmp_path, [sys.executable, "-S", "-c", "pass", "{config}",
                                     "{instance}"], SPEC, 1.0, log=False)
    # parameters.txt left to fill in: no word is accepted
    status, _, err = _target_runner(capsys, folder, "i", "-luby")
    assert status == 2 and "none declared" in err
    (folder / "parameters.txt").write_text('luby "" c ("-luby", "-no-luby")  # restarts\n'
                                           'rinc "-rinc=" r,log (1.1, 4) | luby == "-luby"\n')
    # irace prints 4 significant digits: 4.001 is 4 rounded up; 4.01 is past the bound
    assert _target_runner(capsys, folder, "i", "-luby", "-rinc=4.001")[0] == 0
    assert _target_runner(capsys, folder, "i", "-rinc=4.01")[0] == 2
    (folder / "parameters.txt").write_text('rinc "-rinc=" r (1.1, "max")\n')
    status, _, err = _target_runner(capsys, folder, "i")
    assert status == 2 and re.search(r"`line 1` of `.*parameters.txt` must be a parameter "
                                     r"\(name \"switch\" r\|i\|c\|o", err), err


def test_a_configuration_comes_from_the_declared_space(problem):
    command, _ = problem
    target = CostTarget(command, SPEC, 1.0, space=SPACE)
    assert target.words({"x": 0.25}) == ["--x=0.25"] and target.words(["--x=1"]) == ["--x=1"]
    for config, pattern in [({"x": 1.5}, r"`value` of `Parameter 'x'` must be a number in \[0, 1\]"),
                            ({"x": "0.5; id"}, r"`value` of `Parameter 'x'`"),
                            ({"y": 0.5}, r"`config` of `CostTarget` must be options of the declared"),
                            (["--x=0.5", "--evil"], r"`config` of `CostTarget` must be words of")]:
        with pytest.raises(ExportError, match=pattern):
            target.words(config)
    with pytest.raises(ExportError, match=r"`config` of `CostTarget` must be words, or a mapping "
                                          r"with a space"):
        CostTarget(command, SPEC, 1.0).words({"x": 0.5})
    integer = Parameter("n", "integer", (1, 10), "-n=")
    assert integer.word(3.0) == "-n=3"
    with pytest.raises(ExportError, match=r"an integer in \[1, 10\]; got 2.5"):
        integer.word(2.5)


@pytest.mark.parametrize("clock", ["wall", "cpu"])
def test_the_target_runner_measures_the_clock_it_was_written_with(capsys, tmp_path, clock):
    # a command that sleeps 0.6 s: 0.6 s or more of elapsed time, a few hundredths of CPU time
    # (the interpreter's start); irace then sees the clock SMAC3's and Optuna's CostTarget see
    sleep = [sys.executable, "-S", "-c", "import sys, time; time.sleep(0.6)", "{config}",
             "{instance}"]
    folder = export_irace(tmp_path, sleep, SPEC, 5.0, space=SPACE, clock=clock)
    assert f"CLOCK = {clock!r}" in (folder / "target-runner").read_text()
    status, out, err = _target_runner(capsys, folder, "i", "--x=0.5")
    assert status == 0, err
    run = json.loads((folder / "runs.jsonl").read_text())
    assert run["status"] == "solved" and float(out) == run["cost"]
    if clock == "wall":
        assert run["runtime"] >= 0.6
    else:
        assert run["runtime"] < 0.3


def test_export_irace_refuses_an_unknown_clock(tmp_path):
    with pytest.raises(DataError, match=r"`clock` of `ProcessRunner` must be 'wall' or 'cpu'; "
                                        r"got 'user'"):
        export_irace(tmp_path, ["solver", "{config}", "{instance}"], SPEC, 1.0, clock="user")
    assert not any(tmp_path.iterdir())
