"""benchmarks/bench_law_tail_numerics.py: the one-``exp`` candidates for the law's written tails
against the library's numbers and mpmath (its times are not checked: a loaded machine would miss
any bound)."""

from __future__ import annotations

import math
import sys

import numpy as np
from conftest import ROOT, run_script

import maxent_util as mu
from maxent_util import Mean, Support


def test_the_table_has_the_library_and_every_candidate(capsys, monkeypatch):
    out = run_script(monkeypatch, capsys, "bench_law_tail_numerics.py", "--n", "300", "--mp", "5",
                     "--repeat", "1")
    rows = {line.split(" | ")[0][2:]: line for line in out.splitlines() if line.startswith("| ") and "---" not in line}
    candidates = ("exp - 1", "E - K, times ratio / slope", "E - K, / slope, times ratio",
                  "E - K where it falls, / slope, times ratio")
    assert set(rows) == {"route", "library (exp and expm1)", *candidates}
    for name in candidates:
        cells = [cell.strip() for cell in rows[name].strip("|").split("|")]
        # a candidate keeps the library's formula where the part is narrow and rounds otherwise:
        # a few ulp at most on these laws (measured: 4)
        assert 0 <= int(cells[1]) <= 16
    assert "S of [0, 3600], mean 0.333333 of it against mpmath" in out


def test_the_whole_array_library_route_is_the_library(monkeypatch):
    """The benchmark's copy of the library's formula (whole arrays) gives the library's numbers
    (its in-place blocks): the candidates are measured against the right thing."""
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    import bench_law_tail_numerics as bench

    for constraints in ((Support(0, 3600), Mean(1200)), (Support(0, 3600), Mean(2400)), (Support(5, "oo"), Mean(50))):
        numeric = mu.derive(*constraints).numeric
        written = numeric._written_segments()
        low, high = numeric.support
        x = np.linspace(low, high if math.isfinite(high) else 1e3, 2001)[1:-1]
        # segment by segment (a half-line is cut in two: kappa, then log(kappa) beyond its turn)
        segment = np.searchsorted(numeric.problem.ends, x, side="right") - 1
        assert written.all() and set(segment) == set(range(len(written)))
        for upper in (True, False):
            for s, tail in enumerate(numeric._segment_tails(upper)):
                inside = x[segment == s]
                u = np.log(inside) if tail[0] else inside
                mine = np.clip(bench.library(tail, u, upper) + tail[6], 0.0, 1.0)
                np.testing.assert_array_max_ulp(mine, numeric._tail(inside, upper), maxulp=1)
    sys.modules.pop("bench_law_tail_numerics", None)
