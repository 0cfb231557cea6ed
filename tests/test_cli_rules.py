"""Default rules chosen from the data's cutoff, --rules paper, and --sort-by (issue 25, section 2)."""

from __future__ import annotations

import json

import pytest
from conftest import assert_usage_error, run

from maxent_util import PAR, rank
from maxent_util.cli import TOUR_UTILITIES
from maxent_util.cli.inputs import CUTOFF_UTILITIES, cutoff_utilities
from maxent_util.families import parse_utility

RUNS = ("algorithm,instance,runtime,status,cutoff\n"
        "fast,i1,2,solved,600\nfast,i2,500,solved,600\nfast,i3,600,capped,600\n"
        "steady,i1,50,solved,600\nsteady,i2,60,solved,600\nsteady,i3,70,solved,600\n"
        "slow,i1,400,solved,600\nslow,i2,600,capped,600\nslow,i3,600,capped,600\n")


@pytest.fixture()
def runs(tmp_path):
    path = tmp_path / "runs.csv"
    path.write_text(RUNS)
    return path


def test_the_default_utilities_scale_with_the_cutoff():
    # by hand: C, C/10, C/100, C/1000 of each cutoff
    assert cutoff_utilities(600) == ["uniform(600)", "exponential(60)", "log_laplace(6, 1)",
                                     "pareto(0.6, 1)"]
    assert cutoff_utilities(1234.5) == ["uniform(1234.5)", "exponential(123.45)",
                                        "log_laplace(12.345, 1)", "pareto(1.2345, 1)"]
    assert [spec for spec, _ in CUTOFF_UTILITIES] == ["uniform(C)", "exponential(C/10)",
                                                     "log_laplace(C/100, 1)", "pareto(C/1000, 1)"]


def test_rank_without_rules_uses_the_cutoff_defaults_and_says_why(capsys, runs):
    status, out, err = run(capsys, "rank", str(runs), "--json")
    assert (status, err) == (0, "")
    expected_rules = {spec: parse_utility(spec) for spec in cutoff_utilities(600)}
    expected_rules["PAR-2"] = PAR(2)
    import pandas as pd

    expected = rank(pd.read_csv(runs), expected_rules)
    records = json.loads(out)
    assert [r["algorithm"] for r in records] == list(expected.index)
    assert {key for key in records[0] if key.endswith(" rank")} == \
        {f"{rule} rank" for rule in expected_rules}
    status, out, _ = run(capsys, "rank", str(runs))
    lines = out.splitlines()
    assert "rows in the order of the first rule, uniform(600) (--sort-by RULE" in lines[0]
    assert lines[1].startswith("rules: uniform(600), exponential(60), log_laplace(6, 1), "
                               "pareto(0.6, 1) and PAR-2, the defaults for the cutoff C = 600 s (10 min): ")
    assert "a tenth, a hundredth and a thousandth" in lines[1]


def test_rules_paper_keeps_the_papers_set(capsys, runs):
    status, out, _ = run(capsys, "rank", str(runs), "--rules", "paper", "--json")
    assert status == 0
    ranks = {key for key in json.loads(out)[0] if key.endswith(" rank")}
    assert ranks == {f"{rule} rank" for rule in [*TOUR_UTILITIES, "PAR-2"]}
    status, out, _ = run(capsys, "rank", str(runs), "--par", "3", "--json")
    assert {key for key in json.loads(out)[0] if key.endswith(" rank")} == {"PAR-3 rank"}
    status, out, _ = run(capsys, "rank", str(runs), "--rules", "cutoff", "--par", "3", "--json")
    assert "PAR-3 rank" in json.loads(out)[0] and "uniform(600) rank" in json.loads(out)[0]


def test_data_without_a_cutoff_needs_one_for_the_defaults(capsys, tmp_path):
    path = tmp_path / "runs.csv"
    path.write_text("algorithm,instance,runtime,solved\na,i1,3,True\nb,i1,4,True\n")
    assert_usage_error(*run(capsys, "rank", str(path)), "states no cutoff")
    status, _, _ = run(capsys, "rank", str(path), "--par", "2")
    assert status == 0


def test_sort_by_orders_the_rows_and_says_so(capsys, runs):
    status, out, _ = run(capsys, "rank", str(runs), "--utility", "exp(-t/10)", "--par", "2",
                         "--sort-by", "par-2", "--json")
    assert status == 0
    records = json.loads(out)
    assert [r["PAR-2 rank"] for r in records] == sorted(r["PAR-2 rank"] for r in records)
    # by hand: PAR-2 of steady is 60, of fast (2 + 500 + 1200)/3, of slow (400 + 2400)/3
    assert [r["algorithm"] for r in records] == ["steady", "fast", "slow"]
    status, out, _ = run(capsys, "rank", str(runs), "--utility", "exp(-t/10)", "--par", "2",
                         "--sort-by", "PAR-2")
    assert "rows in the order of PAR-2 (--sort-by)" in out.splitlines()[0]
    assert_usage_error(*run(capsys, "rank", str(runs), "--par", "2", "--sort-by", "PAR-3"),
                       "argument --sort-by: expected one of the rules 'PAR-2'; got 'PAR-3'")


def test_report_takes_sort_by_and_states_the_rules(capsys, runs, tmp_path, monkeypatch):
    import maxent_util.report as report

    seen = {}

    def write_report(table, target, *, rules, notes, **options):
        seen.update(rules=list(rules), notes=list(notes))

    monkeypatch.setattr(report, "write_report", write_report)
    status, _, err = run(capsys, "report", str(runs), "--sort-by", "PAR-2",
                         "-o", str(tmp_path / "r.html"))
    assert (status, err) == (0, "")
    assert seen["rules"][0] == "PAR-2" and seen["rules"][1] == "uniform(600)"
    assert any(note.startswith("Rules: uniform(600)") for note in seen["notes"])
    # the page gives no command-line advice in its prose (the command is under "How this page
    # was made")
    assert "Algorithms in the order of PAR-2." in seen["notes"]


def test_sweep_refuses_rules(capsys, runs):
    assert_usage_error(*run(capsys, "sweep", str(runs), "--family", "pareto", "--from", "1",
                            "--to", "10", "--rules", "paper"), "--rules do not go with sweep")


def test_a_wide_long_ranking_is_printed_whole(capsys, tmp_path):
    # 70 algorithms under 12 rules: pandas' display limits (60 rows, 20 columns) never cut it
    path = tmp_path / "wide.csv"
    rows = ["algorithm,instance,runtime,status,cutoff"]
    rows += [f"solver{a:02d},i{i},{1 + a + i},solved,600" for a in range(70) for i in range(2)]
    path.write_text("\n".join(rows) + "\n")
    pars = [arg for k in range(2, 14) for arg in ("--par", str(k))]
    status, out, err = run(capsys, "rank", str(path), *pars)
    assert (status, err) == (0, "")
    assert "..." not in out
    assert all(f"solver{a:02d}" in out for a in range(70)) and "PAR-13" in out
