"""The issue-27 baseline mode of benchmarks/bench_derive.py: random equality sets timed against
the independent dual of tests/dual.py, and the issue's named cases."""

from __future__ import annotations

from conftest import run_script


def test_random_sets_mode_prints_routes_ratios_and_agreement(capsys, monkeypatch):
    # two sets and one value per named case, with a short limit: a smoke test of the mode (it
    # clears derive's cache, which costs later tests only a re-derivation); the times it prints
    # are not checked (a loaded machine would miss any bound)
    out = run_script(monkeypatch, capsys, "bench_derive.py", "--sets", "2", "--values", "1",
                     "--seed", "0", "--timeout", "10", "--no-full")
    assert out.startswith("2 random equality sets (seed 0) with a law by the dual")
    routes = [line.split("  ")[0] for line in out.splitlines()
              if line.startswith(("derive (", "dual.solve"))]
    # the equality sets, the sets with inequalities, then the two named cases
    assert out.count("random inequality sets (seed 0) with a law by the dual") == 1
    assert routes == ["derive (default route)", 'derive (method="numeric")', "dual.solve (tests/dual.py)",
                      "derive (default route)", 'derive (method="numeric")', "dual.solve (tests/dual.py)",
                      "derive (default route)", 'derive (method="numeric")', "dual.solve (tests/dual.py)",
                      "derive (default route)", 'derive (method="numeric")']
    rows = [line.split() for line in out.splitlines() if line.startswith(("derive (", "dual.solve"))]
    for dual_row in (rows[2], rows[5]):
        assert dual_row[-1] == "1.00" and dual_row[-3] == "-"  # the dual is the reference; no time limit
    # seed 0's first sets (a mean on the half-line, a squared log deviation; with inequalities,
    # two bounds on log moments and one on a mean): derive agrees with the dual on every law,
    # and nothing waits out its limit
    assert out.count("every law agrees with the dual, no call spent its time limit") == 2
    for row in rows[:9]:
        assert row[-2] == "0"  # disagreements
