"""``maxent-util export --cost`` and ``export --irace``: configurators' files from the command line."""

from __future__ import annotations

import runpy
import sys

import pytest
from conftest import assert_usage_error, run

from maxent_util.export import cost_function


def test_export_cost_writes_a_module_in_the_tool_s_convention(capsys, tmp_path):
    target = tmp_path / "cost.py"
    status, out, err = run(capsys, "export", "--utility", "pareto(10, 1)", "--cost", str(target),
                           "--for", "smac", "--capped", "run-limit")
    assert (status, err) == (0, "") and out == f"wrote {target}\n"
    module = runpy.run_path(str(target))
    assert module["TOOL"] == "smac" and module["CAPPED"] == "cutoff"
    # 1 - u(cutoff) = 1 - 10/40 for a run capped at 40 s; the library's number
    assert module["cost"](40.0, "TIMEOUT") == cost_function("pareto(10, 1)", capped="cutoff")(40.0, "capped") == 0.75
    assert module["__doc__"].startswith("pareto(10, 1): the cost of a run for smac")
    # an existing file stays unless --force
    assert_usage_error(*run(capsys, "export", "--utility", "exponential(3)", "--cost", str(target)),
                       "already exists; pass --force")
    assert runpy.run_path(str(target))["TOOL"] == "smac"
    assert run(capsys, "export", "--utility", "exponential(3)", "--cost", str(target), "--force")[0] == 0
    assert runpy.run_path(str(target))["TOOL"] == "generic"


def test_export_irace_writes_a_set_up(capsys, tmp_path):
    folder = tmp_path / "irace"
    status, out, err = run(capsys, "export", "--utility", "pareto(0.02, 1)", "--irace", str(folder),
                           "--command", "minisat -verb=0 {config} {instance}", "--run-limit", "1min",
                           "--instance", "a.cnf", "--instance", "b c.cnf", "--exit-code", "10",
                           "--exit-code", "20", "--max-experiments", "300", "--clock", "cpu",
                           "--parents")
    assert (status, err) == (0, "") and out.startswith(f"wrote {folder}: target-runner, cost.py")
    runner = (folder / "target-runner").read_text()
    assert "COMMAND = ['minisat', '-verb=0', '{config}', '{instance}']" in runner
    assert "CLOCK = 'cpu'" in runner
    assert "CUTOFF = 60.0" in runner and "EXIT_CODES = (10, 20)" in runner
    assert runner.startswith(f"#!{sys.executable}\n")
    assert (folder / "instances.txt").read_text() == "a.cnf\nb c.cnf\n"
    assert "maxExperiments = 300" in (folder / "scenario.txt").read_text()
    assert runpy.run_path(str(folder / "cost.py"))["TOOL"] == "irace"
    assert_usage_error(*run(capsys, "export", "--utility", "pareto(0.02, 1)", "--irace", str(folder),
                            "--command", "minisat {config} {instance}", "--run-limit", "5"),
                       "must be a file that does not exist yet")


@pytest.mark.parametrize("argv, pattern", [
    (["--cost", "c.py", "--command", "x {instance}"], "argument --command: only with --irace"),
    (["--python", "c.py", "--for", "smac"], "argument --for: only with --cost"),
    (["--irace", "d", "--for", "smac", "--command", "x", "--run-limit", "1"], "argument --for: only with --cost"),
    (["--latex", "c.tex", "--capped", "zero"], "argument --capped: only with --cost or --irace"),
    (["--cost", "c.py", "--clock", "cpu"], "argument --clock: only with --irace"),
    (["--irace", "d", "--command", "x {instance}", "--run-limit", "1", "--clock", "user"],
     "argument --clock: invalid choice: 'user'"),
    (["--irace", "d", "--run-limit", "5"], "argument --irace: needs --command"),
    (["--irace", "d", "--command", "x {instance}"], "argument --irace: needs --run-limit"),
    (["--irace", "d", "--command", "x {instance}", "--run-limit", "0"], "expected a positive finite duration"),
    (["--cost", "c.py", "--for", "hyperopt"], "invalid choice: 'hyperopt'"),
    (["--irace", "d", "--command", "sh -c 'solver {instance}'", "--run-limit", "5"],
     "`command` of `ProcessRunner` must be a command whose program, options, script and code hold no placeholder"),
    (["--irace", "d", "--command", "minisat {params} {instance}", "--run-limit", "5"],
     "`--command` of `maxent-util export` must be a command with {config} where the "
     "configuration goes; got 'minisat {params} {instance}'. Write {config} instead"),
])
def test_export_configurator_options_are_checked(capsys, tmp_path, monkeypatch, argv, pattern):
    monkeypatch.chdir(tmp_path)
    assert_usage_error(*run(capsys, "export", "--utility", "pareto(10, 1)", *argv), pattern)
    assert list(tmp_path.iterdir()) == []


def test_export_irace_names_its_limit_a_run_limit_and_the_old_flag_warns(capsys, tmp_path):
    common = ["export", "--utility", "pareto(1, 1)", "--command", "solver {config} {instance}",
              "--instance", "a.cnf"]
    status, out, err = run(capsys, *common, "--irace", str(tmp_path / "new"), "--run-limit", "5",
                           "--parents")
    assert (status, err) == (0, "")
    status, out, err = run(capsys, *common, "--irace", str(tmp_path / "old"), "--cutoff", "5",
                           "--parents")
    assert status == 0 and "--cutoff is deprecated" in err and "use --run-limit" in err
    assert (tmp_path / "new" / "scenario.txt").read_text() == (tmp_path / "old" / "scenario.txt").read_text()
