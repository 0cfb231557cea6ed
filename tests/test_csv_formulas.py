"""No CSV the command line writes holds a cell a spreadsheet would run.

Algorithm and instance names come from other people's files. Before, `rank --csv/--tidy`,
`compare --csv`, `race --csv` and `sweep --csv` wrote a name such as
``=cmd|' /C calc'!A0`` as is, and a spreadsheet opening the file ran it. Now every text
cell (and label) that starts with = + - @, a tab or a carriage return gets a leading
single quote (OWASP's rule for CSV injection); numbers, negative ones included, stay numbers.
"""

from __future__ import annotations

import csv
import io

import numpy as np
import pandas as pd
import pytest
from conftest import run
from hypothesis import given, settings, strategies as st

from maxent_util._output import FORMULA_STARTS, spreadsheet_cell, spreadsheet_safe

HOSTILE = ["=cmd|' /C calc'!A0", "+SUM(1+1)", "-2+3", "@SUM(A1:A9)", "=HYPERLINK(\"http://x\")"]
NAMES = [*HOSTILE, "kissat"]


@pytest.fixture
def hostile_csv(tmp_path):
    """Six algorithms named like formulas (and one not), on 20 instances, two of them named
    like formulas too; the runtimes differ so every algorithm has its own rank."""
    rows = []
    instances = ["=1+1", "@x", *[f"i{k}" for k in range(18)]]
    for a, name in enumerate(NAMES):
        for i, instance in enumerate(instances):
            runtime = 1.0 + a + 0.1 * i
            rows.append({"algorithm": name, "instance": instance, "runtime": runtime,
                         "status": "solved", "cutoff": 100.0})
    path = tmp_path / "runs.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


def _cells(text: str) -> list[str]:
    return [cell for row in csv.reader(io.StringIO(text)) for cell in row]


def _assert_no_formula(text: str) -> None:
    cells = _cells(text)
    assert cells
    for cell in cells:
        if cell.startswith(FORMULA_STARTS):
            float(cell)  # only a number may start with + or -: it is written as a number


@pytest.mark.parametrize("argv", [
    ["rank", "--par", "2", "--csv"],
    ["rank", "--par", "2", "--solved", "--tidy"],
    ["compare", "--all", "--par", "2", "--csv", "--resamples", "50", "--seed", "1"],
    ["compare", "=cmd|' /C calc'!A0", "kissat", "--par", "2", "--csv", "--resamples", "50",
     "--seed", "1"],
    ["sweep", "--family", "pareto", "--from", "1", "--to", "100", "--fixed", "alpha=1",
     "--points", "5", "--csv"],
    ["race", "--utility", "exponential(10)", "--delta", "0.05", "--no-progress", "--csv"],
    ["race", "--utility", "exponential(10)", "--delta", "0.05", "--naive", "--epsilon", "0.9",
     "--csv"],
])
def test_every_csv_of_the_command_line_quotes_formula_cells(capsys, hostile_csv, argv):
    command, *options = argv
    status, out, err = run(capsys, command, str(hostile_csv), *options)
    assert status == 0, err
    _assert_no_formula(out)
    # the names are still there, behind the quote
    assert any(cell.startswith("'" + name) for cell in _cells(out) for name in HOSTILE), out


def test_rank_csv_keeps_numbers_and_quotes_names(capsys, hostile_csv):
    status, out, err = run(capsys, "rank", str(hostile_csv), "--par", "2", "--csv")
    assert status == 0, err
    frame = pd.read_csv(io.StringIO(out), index_col=0)
    assert sorted(frame.index) == sorted("'" + name if name in HOSTILE else name for name in NAMES)
    # by hand: every run solved, so PAR-2 is the mean runtime, 1 + a + 0.95 for the a-th name (instances 0..19)
    expected = {("'" + name if name in HOSTILE else name): 1 + a + 0.95 for a, name in enumerate(NAMES)}
    assert frame["PAR-2"].to_dict() == pytest.approx(expected)
    assert frame["PAR-2"].dtype == float


def test_negative_numbers_stay_numbers_and_only_text_is_quoted():
    frame = pd.DataFrame({"name": ["-1.5", "=A1", "ok", "\tx", "\rx"], "score": [-1.5, 2.0, -3.0, 0.0, 1.0],
                          "rank": [-1, 2, 3, 4, 5]},
                         index=pd.Index(["+a", "b", "@c", "d", "e"], name="=algorithm"))
    safe = spreadsheet_safe(frame)
    assert safe["name"].tolist() == ["'-1.5", "'=A1", "ok", "'\tx", "'\rx"]
    assert safe["score"].tolist() == [-1.5, 2.0, -3.0, 0.0, 1.0]
    assert safe["rank"].tolist() == [-1, 2, 3, 4, 5]
    assert safe.index.tolist() == ["'+a", "b", "'@c", "d", "e"] and safe.index.name == "'=algorithm"
    assert frame["name"].tolist()[1] == "=A1"  # a copy: the caller's table is unchanged
    series = pd.Series([1.0, -2.0], index=["=x", "y"], name="@mean")
    safe = spreadsheet_safe(series)
    assert safe.tolist() == [1.0, -2.0] and safe.index.tolist() == ["'=x", "y"]
    assert safe.name == "'@mean"
    pairs = pd.DataFrame({"v": [1.0]}, index=pd.MultiIndex.from_tuples([("-r", "=a")], names=["rule", "a"]))
    assert spreadsheet_safe(pairs).index.tolist() == [("'-r", "'=a")]


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=12), st.floats(allow_nan=False))
def test_a_cell_is_quoted_exactly_when_a_spreadsheet_would_run_it(text, number):
    safe = spreadsheet_cell(text)
    assert safe == ("'" + text if text[:1] in set(FORMULA_STARTS) else text)
    assert spreadsheet_cell(number) == number
    assert spreadsheet_cell(np.float64(number)) == number
