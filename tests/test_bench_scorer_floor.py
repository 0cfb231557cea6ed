"""benchmarks/bench_scorer_floor.py: its table has a row for every family and derived law, with
the scorer's numbers against numpy by hand (the times it prints are not checked: a loaded
machine would miss any bound)."""

from __future__ import annotations

from conftest import run_script

from maxent_util.families import FAMILIES


def test_the_table_has_every_family_and_derived_law(capsys, monkeypatch):
    # "before" is the scorer module itself: the same code, so the same bits in every row
    out = run_script(monkeypatch, capsys, "bench_scorer_floor.py", "--n", "3000", "--n-law", "300",
                     "--repeat", "1", "--before", "maxent_util.scorer")
    rows = [line for line in out.splitlines() if line.startswith("| ") and "ms |" in line]
    labels = [row.split(" | ")[0][2:].rstrip(" *") for row in rows]
    assert labels[:len(FAMILIES)] == list(FAMILIES)
    assert labels[len(FAMILIES):] == [
        "Support(0,3600), Mean(1200): law",
        "Support(0,3600), Mean(1200): closed form", "Support(1,100), Mean(20): closed form",
        "utility, 4 breakpoints"]
    # the law's survival function written out against its quadrature panels, on the first 300
    law = next(line for line in out.splitlines() if line.startswith("(the law's survival function"))
    assert float(law.rsplit("largest difference ", 1)[1].rstrip(")")) <= 1e-12
    for row in rows:
        cells = [cell.strip() for cell in row.strip("|").split("|")]
        assert cells[9] == "yes"
        # utilities lie in [0, 1]: the scorer and numpy by hand differ by rounding only
        assert float(cells[10]) <= 1e-12


def test_only_keeps_the_rows_asked_for(capsys, monkeypatch):
    out = run_script(monkeypatch, capsys, "bench_scorer_floor.py", "--n", "2000", "--n-law", "200",
                     "--repeat", "1", "--only", ": law")
    rows = [line for line in out.splitlines() if line.startswith("| ") and "ms |" in line]
    assert [row.split(" | ")[0][2:].rstrip(" *") for row in rows] == ["Support(0,3600), Mean(1200): law"]
