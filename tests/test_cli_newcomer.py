"""What a newcomer runs first (issue 25, section 4): the tour twice, the race's run limit named
apart from captime and cutoff, a score printed with labels."""

from __future__ import annotations

import json

import pytest
from conftest import assert_usage_error, run

from maxent_util import exponential, score


def test_the_tour_runs_twice_and_never_replaces_a_figure_unasked(capsys, tmp_path,
                                                                  monkeypatch):
    # the README's first command on a fresh clone, run twice: the second tour writes beside
    # the first (maxent_util_tour-2), which stays as it was
    monkeypatch.chdir(tmp_path)
    status, first, err = run(capsys, "tour")
    assert (status, err) == (0, "") and "maxent_util_tour/ranking.png" in first
    mine = tmp_path / "maxent_util_tour" / "ranking.png"
    mine.write_bytes(b"mine")
    status, second, err = run(capsys, "tour")
    assert (status, err) == (0, ""), err
    assert "maxent_util_tour-2/ranking.png" in second and mine.read_bytes() == b"mine"
    assert sorted(p.name for p in (tmp_path / "maxent_util_tour-2").iterdir()) == [
        "ranking.png", "utilities.png"]
    # with --out, an existing figure is refused before any work, unless --force
    assert_usage_error(*run(capsys, "tour", "--out", "maxent_util_tour"),
                       "utilities.png' already exists; pass --force")
    assert mine.read_bytes() == b"mine"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_the_race_names_its_limit_per_run_and_the_old_flag_warns(capsys, race_csv):
    argv = ["race", str(race_csv), "--utility", "exponential(10)", "--delta", "0.05", "--naive",
            "--epsilon", "0.5", "--json"]
    status, new, err = run(capsys, *argv, "--run-limit", "1min")
    assert (status, err) == (0, "") and json.loads(new)["run_limit"] == 60.0
    status, old, err = run(capsys, *argv, "--captime", "60")
    assert status == 0 and old == new
    assert err == ("maxent-util: warning: --captime is deprecated and will be removed; use "
                   "--run-limit (the same value)\n")
    status, text, _ = run(capsys, *argv[:-1], "--run-limit", "60")
    assert "with a run limit of 60 s" in text and "captime" not in text
    status, helptext, _ = run(capsys, "race", "--help")
    assert "--run-limit SECONDS" in helptext and "--captime" not in helptext


def test_a_score_prints_with_labels():
    s = score([1.0, 100.0], exponential(10).utility(), solved=[True, False], cutoff=100.0)
    # the values: exp(-1/10) / 2 by hand, upper adds exp(-10) / 2
    assert str(s) == ("estimate 0.452419 (capped runs count 0), bounds [0.452419, 0.452441], "
                      "95% interval [0, 1]; 2 runs, 1 capped")
    assert repr(s).startswith("Score(estimate=")


def test_the_race_record_names_the_run_limit(capsys, race_csv):
    status, out, _ = run(capsys, "race", str(race_csv), "--utility", "exponential(10)", "--delta",
                         "0.05", "--naive", "--epsilon", "0.5", "--json", "--run-limit", "1min")
    record = json.loads(out)
    # "captime" (the run limit's name before 0.4) is gone: a captime is the user's patience
    assert status == 0 and record["run_limit"] == 60.0 and "captime" not in record


@pytest.fixture()
def small_race_csv(tmp_path):
    # three instances: far too few for any race to tell a from b
    rows = ["algorithm,instance,runtime,status,cutoff"]
    for i in range(3):
        rows += [f"a,i{i},{1 + i},solved,100", f"b,i{i},{60 + i},solved,100"]
    path = tmp_path / "small.csv"
    path.write_text("\n".join(rows) + "\n")
    return path


def test_a_vacuous_guarantee_says_so_in_words(capsys, small_race_csv, tmp_path):
    status, out, _ = run(capsys, "race", str(small_race_csv), "--utility", "exponential(10)",
                         "--delta", "0.05")
    epsilon = float(out.split("epsilon* = ")[1].split()[0])
    assert status == 0 and epsilon >= 0.5
    assert "this says little" in out and "more instances" in out
    rows = ["algorithm,instance,runtime,status,cutoff"]
    for i in range(2000):
        rows += [f"a,i{i},{1 + i % 3},solved,100", f"b,i{i},{50 + i % 7},solved,100"]
    many = tmp_path / "many.csv"
    many.write_text("\n".join(rows) + "\n")
    status, out, _ = run(capsys, "race", str(many), "--utility", "exponential(10)",
                         "--delta", "0.05")
    assert status == 0 and float(out.split("epsilon* = ")[1].split()[0]) < 0.5
    assert "this says little" not in out


@pytest.mark.parametrize("spec, suggestion", [
    ("PAR2", "Did you mean 'PAR-2'?"), ("par 10", "Did you mean 'PAR-10'?"),
    ("paretto(5, 1)", "Did you mean 'pareto'?"), ("exponentail(10)", "Did you mean 'exponential'?"),
])
def test_a_wrong_spec_suggests_the_nearest_right_one(capsys, race_csv, spec, suggestion):
    status, out, err = run(capsys, "rank", str(race_csv), "--utility", spec)
    assert status == 2 and out == "" and err.rstrip().endswith(suggestion)
