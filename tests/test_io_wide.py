"""Wide tables of runs in either orientation: one row per solver and one column per instance
(2020's ``par2scores.csv``, github.com/satcompetition/2020
``paper/stability/benchfeatures/par2scores.csv``: the NoLimits track's 300 instances, each cell
a run's PAR-2 seconds, 10000 for a run unsolved at the published 5000 s limit), or one column
per solver beside an ``instance`` column.

The fixtures follow the published header (``solver`` then the instance paths); the cells are
made up in the file's conventions.
"""

from __future__ import annotations

import csv
import io

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from maxent_util.cli import main
from maxent_util.errors import DataError
from maxent_util.io import guess_format, read_long, read_runs, read_satcomp, sniff_format
from maxent_util.ranking import PAR, rank

PAR2SCORES_2020 = ("solver,sat/01-integer-programming-20-30-40.cnf.bz2,"
                   "sat/01-integer-programming-5-10-100.cnf.bz2,sat/170055892.cnf.bz2,"
                   "unsat/6s133.cnf.bz2\n"
                   "Kissat-sc2020-sat,2210.74,10000,54.3518,812.5\n"
                   "CaDiCaL-sc2020-default,1732.65,10000,10000,4999.99\n"
                   "glucose-3.0,10000,10000,10000,3.25\n")


def write(tmp_path, text, name="par2scores.csv"):
    path = tmp_path / name
    path.write_text(text)
    return path


def wide_cells(text):
    rows = list(csv.reader(io.StringIO(text)))
    return rows[0][1:], {row[0]: [float(cell) for cell in row[1:]] for row in rows[1:]}


def test_the_2020_layout_reads_each_cell_as_a_run(tmp_path):
    path = write(tmp_path, PAR2SCORES_2020)
    assert guess_format(path) == "satcomp"
    runs = read_runs(path, cutoff=5000)
    instances, cells = wide_cells(PAR2SCORES_2020)
    assert runs["algorithm"].unique().tolist() == list(cells)
    for solver, row in cells.items():
        mine = runs[runs["algorithm"] == solver]
        assert mine["instance"].tolist() == instances
        # a cell below the limit is a solved run of that many seconds, 10000 a capped one
        assert mine["status"].tolist() == ["solved" if cell < 5000 else "capped" for cell in row]
        assert mine["runtime"].tolist() == [min(cell, 5000.0) for cell in row]
    assert (runs["cutoff"] == 5000).all()
    assert any("one row per solver" in note for note in runs.attrs["notes"])


def test_par2_of_the_2020_layout_is_each_rows_mean(tmp_path):
    # the file's cells are PAR-2 seconds already: each solver's PAR-2 is its row's mean,
    # the published score (computed here from the text by csv, not by the library's reader)
    runs = read_runs(write(tmp_path, PAR2SCORES_2020), cutoff=5000)
    scores = rank(runs, [PAR(2)])["PAR-2"]
    for solver, row in wide_cells(PAR2SCORES_2020)[1].items():
        assert scores[solver] == pytest.approx(sum(row) / len(row), rel=1e-12)


def test_the_2020_layout_without_a_cutoff_names_the_published_limit(tmp_path, capsys):
    path = write(tmp_path, PAR2SCORES_2020)
    message = (r"^`cutoff` of `read_satcomp` must be the time limit in seconds, since "
               r"'?.*par2scores\.csv'? \(one row per solver and one column per instance, as "
               r"2020's par2scores\.csv\) does not state it; got None\. Pass cutoff= \(--cutoff "
               r"on the command line\); 2020's par2scores\.csv \(the NoLimits track\) was run "
               r"with the competition's published limit, 5000 s, and writes an unsolved run "
               r"as 10000\.$")
    with pytest.raises(DataError, match=message):
        read_runs(path)
    assert main(["rank", str(path), "--par", "2"]) == 2
    assert "published limit, 5000 s" in capsys.readouterr().err


def test_a_cutoff_past_the_penalty_half_is_refused(tmp_path):
    # 6000 s would read the 10000 cells of unsolved runs as capped at 6000 and a 5500 s run
    # as solved, which the file cannot hold
    with pytest.raises(DataError, match=r"^`cutoff` of `read_satcomp` must be at most 5000 s, "
                                        r"half the largest value .* 10000 s \(6 cells\)"):
        read_runs(write(tmp_path, PAR2SCORES_2020), cutoff=6000)
    # a lower cutoff re-caps
    runs = read_runs(write(tmp_path, PAR2SCORES_2020), cutoff=1000)
    assert set(runs.loc[runs["runtime"] >= 1000, "status"]) == {"capped"}


def test_a_bad_cell_is_named_by_its_instance_column_and_solver_row(tmp_path):
    text = PAR2SCORES_2020.replace("54.3518", "n/a")
    with pytest.raises(DataError, match=r"^`sat/170055892\.cnf\.bz2` of `.*par2scores\.csv, "
                                        r"data row 1` must be a non-negative number of "
                                        r"seconds or one of .*; got 'n/a'"):
        read_runs(write(tmp_path, text), cutoff=5000)
    with pytest.raises(DataError, match=r"`solver` of `.*data row 2` must be a non-empty name"):
        read_runs(write(tmp_path, PAR2SCORES_2020.replace("CaDiCaL-sc2020-default", "")),
                  cutoff=5000)


def test_a_ranking_read_back_is_still_a_summary(tmp_path):
    # `rank --csv` writes algorithm,<rule>,<rule> rank: scores, not runs
    text = "algorithm,PAR-2,PAR-2 rank\nc,3.5,1\nk,60.5,2\n"
    assert sniff_format(text.encode()) == "long"
    with pytest.raises(DataError, match=r"It is a summary"):
        read_runs(write(tmp_path, text, "ranking.csv"))


def test_the_solver_rows_read_as_long_name_the_format(tmp_path):
    with pytest.raises(DataError, match=r"one row per solver and one column per instance .* "
                                        r"--format satcomp"):
        read_long(write(tmp_path, PAR2SCORES_2020))


def test_the_command_line_ranks_the_2020_layout(tmp_path, capsys):
    path = write(tmp_path, PAR2SCORES_2020)
    assert main(["rank", str(path), "--par", "2", "--cutoff", "5000", "--csv"]) == 0
    out = capsys.readouterr().out
    ranked = pd.read_csv(io.StringIO(out))
    assert ranked["algorithm"].tolist() == ["Kissat-sc2020-sat", "CaDiCaL-sc2020-default",
                                            "glucose-3.0"]


cell = st.one_of(st.floats(0, 4999.5, allow_nan=False).map(lambda x: f"{x:.4f}"),
                 st.sampled_from(["10000", "timeout", "MEMOUT"]))


@pytest.mark.parametrize("text", ["solver,i0.cnf,i1.cnf\ns0,2.0000,0.5000\ns1,2.0000,0.0000\n",
                                  "instance,s0,s1\ni0.cnf,2.0000,2.0000\ni1.cnf,0.5000,0.0000\n"])
def test_a_table_whose_largest_value_repeats_as_a_penalty_does_keeps_its_limit(text):
    # drawn by the property below in a clean clone: 2 s in two cells, nothing between 1.1 s and
    # 2 s, is written as the PAR-2 penalty of a 1 s limit; 5000 s would read those runs as solved
    with pytest.raises(DataError, match=r"^`cutoff` of `read_satcomp` must be at most 1 s, half the "
                                        r"largest value of <stream>, 2 s \(2 cells\)"):
        read_runs(io.BytesIO(text.encode()), cutoff=5000)
    runs = read_runs(io.BytesIO(text.encode()), cutoff=1)
    assert sorted(runs["status"]) == ["capped", "capped", "solved", "solved"]


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 4), st.integers(1, 5), st.data())
def test_both_orientations_read_the_same_runs(n_solvers, n_instances, data):
    solvers = [f"s{k}" for k in range(n_solvers)]
    instances = [f"i{k}.cnf" for k in range(n_instances)]
    cells = [[data.draw(cell) for _ in instances] for _ in solvers]
    by_solver = "solver," + ",".join(instances) + "\n" + "".join(
        f"{solver}," + ",".join(row) + "\n" for solver, row in zip(solvers, cells))
    by_instance = "instance," + ",".join(solvers) + "\n" + "".join(
        f"{instance}," + ",".join(row[j] for row in cells) + "\n"
        for j, instance in enumerate(instances))
    assert sniff_format(by_solver.encode()) == sniff_format(by_instance.encode()) == "satcomp"

    def read(text):
        try:
            return read_runs(io.BytesIO(text.encode()), cutoff=5000)
        except DataError as error:
            return error

    first, second = read(by_solver), read(by_instance)
    flat = [text for row in cells for text in row]
    numbers = [float(text) for text in flat if text[0].isdigit()]
    top = max(numbers, default=0.0)
    if len(numbers) == len(flat) and 0 < top < 10000 and top % 2 == 0 and numbers.count(top) >= 2 \
            and not any(1.1 * top / 2 < number < top for number in numbers):
        # by hand: the largest value, a whole even number of seconds in two cells or more with
        # none between (a little past) its half and itself, is written as a PAR-2 penalty is;
        # a cutoff of 5000 s past its half would read those runs as solved: refused, both ways
        assert isinstance(first, DataError) and isinstance(second, DataError)
        assert str(first) == str(second) and f"at most {top / 2:g} s" in str(first)
        return
    pd.testing.assert_frame_equal(first, second)
    assert len(first) == n_solvers * n_instances
    # each cell read by hand: a number below 5000 is solved, anything else unsolved
    for (solver, instance), run in first.set_index(["algorithm", "instance"]).iterrows():
        text = cells[solvers.index(solver)][instances.index(instance)]
        solved = text[0].isdigit() and float(text) < 5000
        assert (run["status"] == "solved") == solved
        assert run["runtime"] == (float(text) if solved else 5000.0)
    assert np.isfinite(first["runtime"]).all()
