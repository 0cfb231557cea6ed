"""The minisat study (benchmarks/minisat_study.py) in its --quick mode, on real minisat runs.

3 configurations on 6 small random 3-CNF instances, Optuna as the configurator (irace and
SMAC3 have journeys of their own in test_journeys.py); skipped without minisat or cnfgen.
"""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import subprocess

import pandas as pd
import pytest
from conftest import PNG_SIGNATURE, ROOT, irace_program

from maxent_util.export import cost_function, export_irace


def _study():
    """The script as a module, run in this process (the library is loaded already)."""
    spec = importlib.util.spec_from_file_location("minisat_study", ROOT / "benchmarks" / "minisat_study.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.skipif(shutil.which("minisat") is None, reason="minisat is not installed")
def test_the_quick_study_writes_every_table_from_real_runs(tmp_path, capsys, monkeypatch):
    pytest.importorskip("cnfgen")
    pytest.importorskip("optuna")
    pytest.importorskip("matplotlib")
    study_script = _study()
    out = tmp_path / "study"
    assert study_script.main(["--quick", "--configurators", "optuna", "--jobs", "1", "--out", str(out)]) == 0
    runs = pd.read_csv(out / "runs.csv")
    assert len(runs) == 3 * 6 and set(runs["status"]) <= {"solved", "capped"}
    assert runs["command"].str.startswith("minisat -verb=0 ").all()
    assert runs.loc[runs["algorithm"] == "c000-default", "command"].iloc[0].split()[2:5] == [
        "-var-decay=0.95", "-cla-decay=0.999", "-rnd-freq=0.0"]
    study = json.loads((out / "study.json").read_text())
    assert study["seed"] == 2024 and study["clock"] == "cpu" and len(study["instances"]) == 6
    assert all("seed" in instance for instance in study["instances"])
    assert study["solver_version"]
    lost = pd.read_csv(out / "cross_utility.csv", index_col=0)
    assert list(lost.columns) == ["uniform", "exponential", "pareto", "log_laplace"]
    assert ((lost >= 0) & (lost <= 1)).all().all() and (lost.to_numpy().diagonal() == 0).all()
    assert (out / "cross_utility.png").read_bytes().startswith(PNG_SIGNATURE)
    assert list(pd.read_csv(out / "racing.csv").columns) == [
        "epsilon", "up_time_first_run_limit_0.01", "up_time_first_run_limit_1", "naive_time"]
    found = pd.read_csv(out / "configurators.csv")
    assert found["configurator"].tolist()[0] == "minisat default" and "Optuna" in found["configurator"].tolist()
    assert found["held_out_utility"].between(0, 1).all()
    # the default's held-out utility is the library's, from the table's runs
    utility = study["utilities"]["pareto"]
    instances = [i["instance"] for i in study["instances"]]
    held_out = runs[runs["instance"].isin(instances[1::2]) & (runs["algorithm"] == "c000-default")]
    expected = 1 - cost_function(utility)(held_out["runtime"].to_numpy(), held_out["status"].to_numpy(),
                                          held_out["cutoff"].to_numpy()).mean()
    assert found["held_out_utility"].iloc[0] == pytest.approx(expected, abs=1e-12)
    assert (out / "summary.md").read_text().startswith("# minisat study (3 configurations x 6 instances")
    # the analysis again from the recorded runs, without running them
    again = tmp_path / "again"
    assert study_script.main(["--quick", "--configurators", "", "--from-runs", str(out), "--out", str(again)]) == 0
    pd.testing.assert_frame_equal(pd.read_csv(again / "runs.csv"), runs)
    pd.testing.assert_frame_equal(pd.read_csv(again / "cross_utility.csv", index_col=0), lost)
    # a configurator asked for that fails: the rest is written, the exit names it
    def failing(*_):
        raise study_script.PartFailed("irace exited with status 1: Insufficient budget")

    monkeypatch.setattr(study_script, "run_irace", failing)
    capsys.readouterr()
    partial = tmp_path / "partial"
    assert study_script.main(["--quick", "--configurators", "irace", "--from-runs", str(out),
                              "--out", str(partial)]) == 1
    err = capsys.readouterr().err
    assert "not done: irace: irace exited with status 1: Insufficient budget" in err
    assert "## Not done\n\n- irace: irace exited" in (partial / "summary.md").read_text()
    assert "irace" not in pd.read_csv(partial / "configurators.csv")["configurator"].tolist()
    assert study_script.main(["--quick", "--configurators", "irace,gurobi", "--out",
                              str(tmp_path / "x")]) == 2
    assert "--configurators: unknown gurobi" in capsys.readouterr().err
    # nothing is overwritten without being asked
    capsys.readouterr()
    assert study_script.main(["--quick", "--out", str(out)]) == 2
    assert "pass --force" in capsys.readouterr().err


@pytest.mark.parametrize("iterations, first_test", [(2, 3), (7, 5)])
def test_irace_gets_the_budget_it_needs(tmp_path, iterations, first_test):
    # the study's minimum budget against irace's own refusal of a budget of one run
    irace = irace_program()
    if irace is None:
        pytest.skip("irace is not installed (Debian: r-cran-irace)")
    study_script = _study()
    setup = export_irace(tmp_path, ["minisat", "{config}", "{instance}"], "pareto(1, 1)", 1.0,
                         space=study_script.SPACE, instances=[f"i{k}.cnf" for k in range(6)],
                         budget=1, deterministic=True)
    for k in range(6):
        (tmp_path / f"i{k}.cnf").write_text("p cnf 1 1\n1 0\n")
    done = subprocess.run([irace, "--iterations", str(iterations), "--first-test", str(first_test)],
                          cwd=setup, capture_output=True, text=True, timeout=120)
    said = re.search(r"'maxExperiments' of at least '(\d+)'", done.stdout + done.stderr)
    assert said, done.stdout[-1000:] + done.stderr[-1000:]
    assert int(said.group(1)) == study_script.irace_minimum_budget(len(study_script.SPACE),
                                                                   iterations, first_test)
