"""The command line's rank/plan inputs: --duplicates, --missing, --performance,
a --cutoff that may not extend runs, and tiny epsilons reported as bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import assert_usage_error, run

STATUSES = "{ok, timeout, memout, not_applicable, crash, other}"


@pytest.fixture
def long_csv(tmp_path):
    """b lacks instance y; a ran x twice."""
    path = tmp_path / "runs.csv"
    path.write_text("algorithm,instance,runtime,status,cutoff\n"
                    "a,x,10,solved,100\n"
                    "a,y,100,timeout,100\n"
                    "a,x,30,solved,100\n"
                    "b,x,20,solved,100\n")
    return path


def records(out):
    return {r["algorithm"]: r for r in json.loads(out)}


def test_rank_policies_on_the_command_line(capsys, long_csv):
    status, out, err = run(capsys, "rank", str(long_csv), "--par", "2")
    assert_usage_error(status, out, err, "--duplicates mean or --duplicates first")
    status, out, err = run(capsys, "rank", str(long_csv), "--par", "2", "--duplicates", "first")
    assert_usage_error(status, out, err, "no run of 'b' on 'y'")
    status, out, _ = run(capsys, "rank", str(long_csv), "--par", "2", "--solved", "--json",
                         "--duplicates", "mean", "--missing", "unsolved")
    assert status == 0
    got = records(out)
    # by hand: a = mean(mean(10, 30), 2*100) = 110; b = mean(20, 2*100 for the missing y) = 110
    assert got["a"]["PAR-2"] == pytest.approx(110.0)
    assert got["b"]["PAR-2"] == pytest.approx(110.0)
    assert got["a"]["PAR-2 rank"] == got["b"]["PAR-2 rank"] == 1  # a tie shares the rank
    assert got["a"]["solved"] == got["b"]["solved"] == 1.0
    status, out, err = run(capsys, "rank", str(long_csv), "--par", "2", "--duplicates", "drop")
    assert_usage_error(status, out, err, "argument --duplicates: invalid choice")


def test_cutoff_above_the_data_is_refused(capsys, long_csv):
    status, out, err = run(capsys, "rank", str(long_csv), "--par", "2", "--duplicates", "first",
                         "--missing", "unsolved", "--cutoff", "150")
    assert_usage_error(status, out, err, "`--cutoff` of `maxent-util ")
    assert "must be at most its cutoff in row 0 of the runs (100.0 s" in err
    status, out, err = run(capsys, "rank", "--dataset", "satcomp2021-parallel", "--par", "2",
                         "--cutoff", "5000.5")
    assert_usage_error(status, out, err, "must be at most its cutoff in row 0 of the runs (5000.0 s")
    # lowering is fine: by hand, the 30 s run of a is past a 25 s cutoff, so a solves half
    # of x (mean of its two runs there) and none of y: 0.5 instances
    status, out, _ = run(capsys, "rank", str(long_csv), "--solved", "--json", "--duplicates",
                         "mean", "--missing", "unsolved", "--cutoff", "25")
    assert status == 0
    assert records(out)["a"]["solved"] == 0.5


def test_cutoff_above_a_timeout_without_cutoff_column(capsys, tmp_path):
    path = tmp_path / "runs.csv"
    path.write_text("algorithm,instance,runtime,status\na,x,60,timeout\nb,x,3,crash\n")
    status, out, err = run(capsys, "rank", str(path), "--par", "2", "--cutoff", "100")
    assert_usage_error(status, out, err, "must be at most the runtime of its capped run in row 0")
    # a crash at 3 s is no obstacle: by hand PAR-2 of a = 2 * 60, b = 2 * 60
    status, out, _ = run(capsys, "rank", str(path), "--par", "2", "--cutoff", "60", "--json")
    assert status == 0
    assert records(out)["a"]["PAR-2"] == records(out)["b"]["PAR-2"] == 120.0


def objective_scenario(folder: Path) -> Path:
    folder.mkdir()
    (folder / "description.txt").write_text(
        "scenario_id: OBJ\nperformance_measures:\n    - objective\n    - time\n"
        "maximize:\n    - false\n    - false\nperformance_type:\n    - solution_quality\n"
        "    - runtime\nalgorithm_cutoff_time: 100\n")
    (folder / "algorithm_runs.arff").write_text(
        "@RELATION runs\n@ATTRIBUTE instance_id STRING\n@ATTRIBUTE repetition NUMERIC\n"
        "@ATTRIBUTE algorithm STRING\n@ATTRIBUTE objective NUMERIC\n@ATTRIBUTE time NUMERIC\n"
        f"@ATTRIBUTE runstatus {STATUSES}\n@DATA\n"
        "p1,1,a,5,1.5,ok\np1,1,b,3,20,ok\np2,1,a,7,?,timeout\np2,1,b,9,8,ok\n")
    return folder


def test_performance_flag(capsys, tmp_path):
    folder = objective_scenario(tmp_path / "scenario")
    status, out, _ = run(capsys, "rank", str(folder), "--par", "2", "--json")
    assert status == 0
    # by hand from 'time' (the runtime measure): a = (1.5 + 200) / 2, b = (20 + 8) / 2
    assert records(out)["a"]["PAR-2"] == pytest.approx(100.75)
    assert records(out)["b"]["PAR-2"] == pytest.approx(14.0)
    status, out, _ = run(capsys, "rank", str(folder), "--solved", "--json",
                         "--performance", "objective", "--cutoff", "6")
    assert status == 0
    # by hand from 'objective' capped at 6: a solves p1 (5), b solves p1 (3)
    assert records(out)["a"]["solved"] == records(out)["b"]["solved"] == 1
    status, out, err = run(capsys, "rank", str(folder), "--par", "2", "--performance", "speed")
    assert_usage_error(status, out, err, "`performance` of `read_aslib` must be a numeric attribute")
    status, out, err = run(capsys, "rank", "--dataset", "satcomp2021-parallel",
                         "--performance", "time")
    assert_usage_error(status, out, err, "--performance goes with an ASlib FILE")


def test_plan_with_a_tiny_epsilon_is_bad_input(capsys):
    status, out, err = run(capsys, "plan", "--epsilon", "1e-300", "--delta", "0.05",
                         "--utility", "exp(-t/10)")
    assert_usage_error(status, out, err, "`epsilon` of `plan` must be large enough")
