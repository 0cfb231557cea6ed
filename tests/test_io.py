"""Tests of the runtime-data readers and the bundled SAT Competition 2021 data.

Reference values come from three independent places: the counts stated in
maxent_util/datasets/data/SOURCE.md (copied from the data's provenance note),
a re-reading of the bundled CSV files with the standard-library csv module
inside these tests, and hand-written expectations for the small fixtures in
tests/data/ (each explained next to the assertion).
"""

from __future__ import annotations

import csv
import hashlib
import math
import re
from collections import Counter
from importlib import resources
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from maxent_util import datasets
from maxent_util.errors import DataError, MaxEntError
from maxent_util.io import (FORMATS, LONG_COLUMNS, STATUSES, read_aslib, read_long, read_runs,
                            read_satcomp, validate_table)

DATA = Path(__file__).parent / "data"
BUNDLED = resources.files(datasets) / "data"
SOLVER_COLUMNS_START = {"r_parallel.csv": 3, "r_main.csv": 3}
LIMIT = 5000.0


def bundled_path(name: str) -> Path:
    path = Path(str(BUNDLED / name))
    assert path.is_file()
    return path


def expected_runs_from_csv(name: str, limit: float) -> dict[tuple[str, str], tuple[float, str]]:
    """(solver, filename) -> (runtime, status), computed with the csv module only."""
    with open(bundled_path(name), newline="") as handle:
        rows = list(csv.reader(handle))
    header, body = rows[0], rows[1:]
    file_column = header.index("filename")
    expected = {}
    for row in body:
        for j in range(SOLVER_COLUMNS_START[name], len(header)):
            cell = row[j]
            try:
                seconds = float(cell)
            except ValueError:
                expected[header[j], row[file_column]] = (limit, "capped" if cell == "timeout" else cell)
                continue
            if seconds < limit:
                expected[header[j], row[file_column]] = (seconds, "solved")
            else:
                expected[header[j], row[file_column]] = (limit, "capped")
    return expected


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


# ---------------------------------------------------------------------------
# bundled SAT Competition 2021 data


@pytest.mark.parametrize("track, n_solvers, timeouts, failures", [
    # SOURCE.md: parallel has 9 solvers, 802 'timeout' cells plus 13 values above 5000 s,
    # and 129 'memout'; main has 46 solvers, 6157 'timeout', 285 'unverified', max 4998.9 s.
    ("parallel", 9, 802 + 13, {"memout": 129}),
    ("main", 46, 6157, {"unverified": 285}),
])
def test_satcomp2021_counts_match_source_notes(track, n_solvers, timeouts, failures):
    runs = datasets.satcomp2021(track)
    assert list(runs.columns) == list(LONG_COLUMNS)
    assert len(runs) == n_solvers * 400
    assert runs["algorithm"].nunique() == n_solvers
    assert runs["instance"].nunique() == 400
    counts = runs["status"].value_counts().to_dict()
    assert counts.pop("capped") == timeouts
    assert counts.pop("solved") == n_solvers * 400 - timeouts - sum(failures.values())
    assert counts == failures
    assert (runs["cutoff"] == LIMIT).all()
    assert not runs["runtime"].isna().any()
    validate_table(runs)


@pytest.mark.parametrize("track, name", [("parallel", "r_parallel.csv"), ("main", "r_main.csv")])
def test_satcomp2021_every_run_matches_csv_module(track, name):
    expected = expected_runs_from_csv(name, LIMIT)
    runs = datasets.satcomp2021(track)
    got = {(a, i): (r, s) for a, i, r, s in
           runs[["algorithm", "instance", "runtime", "status"]].itertuples(index=False)}
    assert got == expected


def test_parallel_values_above_limit_become_timeouts():
    # SOURCE.md lists the 13 values above 5000 s by solver; 0.0 for plingeling stays solved
    above = Counter({"pakis": 1, "pmcomsps": 1, "pmcomspscom": 2, "abcdparascavel": 1,
                     "pmcomspsstrsc": 1, "mergehordesatparallel": 4, "plingeling": 3})
    with open(bundled_path("r_parallel.csv"), newline="") as handle:
        reader = csv.DictReader(handle)
        cells = Counter()
        for row in reader:
            for solver, cell in row.items():
                if solver not in ("hash", "result", "filename") and cell not in (
                        "timeout", "memout") and float(cell) > LIMIT:
                    cells[solver] += 1
    assert cells == above
    runs = datasets.satcomp2021("parallel")
    assert runs["runtime"].max() == LIMIT
    assert runs["runtime"].min() == 0.0
    zero = runs[runs["runtime"] == 0.0]
    assert zero[["algorithm", "status"]].values.tolist() == [["plingeling", "solved"]]


def test_satcomp2021_row_order_is_solver_then_file_order():
    with open(bundled_path("r_parallel.csv"), newline="") as handle:
        rows = list(csv.reader(handle))
    solvers, filenames = rows[0][3:], [row[2] for row in rows[1:]]
    runs = datasets.satcomp2021()
    assert runs["algorithm"].tolist() == [s for s in solvers for _ in filenames]
    assert runs["instance"].tolist() == filenames * len(solvers)
    assert runs.index.tolist() == list(range(len(runs)))


def test_bundled_files_are_unchanged():
    # the SHA-256 sums recorded in SOURCE.md were taken from the published files
    source = (BUNDLED / "SOURCE.md").read_text(encoding="utf-8")
    for name in ("r_parallel.csv", "r_main.csv"):
        recorded = re.search(rf"`{re.escape(name)}` ([0-9a-f]{{64}})", source).group(1)
        assert hashlib.sha256(bundled_path(name).read_bytes()).hexdigest() == recorded
    original = Path("/work/shared/data/satcomp2021_results")
    if original.is_dir():
        for name in ("r_parallel.csv", "r_main.csv"):
            assert bundled_path(name).read_bytes() == (original / name).read_bytes()


def test_satcomp2021_returns_independent_copies():
    first = datasets.satcomp2021("parallel")
    first.loc[0, "runtime"] = -1.0
    first["status"] = "crash"
    second = datasets.satcomp2021("parallel")
    assert len(second) == 3600
    assert (second["status"] != "crash").all()
    assert second.loc[0, "runtime"] == 38.44  # first data cell of r_parallel.csv


def test_satcomp2021_rejects_unknown_track():
    with pytest.raises(DataError, match=r"^`track` of `satcomp2021` must be one of 'parallel', "
                                        r"'main'; got 'cloud'\.$"):
        datasets.satcomp2021("cloud")


def test_list_datasets_names_satcomp2021():
    listing = datasets.list_datasets()
    assert list(listing) == ["satcomp2021"]
    assert "parallel" in listing["satcomp2021"] and "main" in listing["satcomp2021"]


# ---------------------------------------------------------------------------
# read_satcomp on small files


def test_read_satcomp_small_fixture():
    runs = read_satcomp(DATA / "satcomp_small.csv", cutoff=LIMIT)
    # by hand from tests/data/satcomp_small.csv; no 'result' column, 'TIMEOUT' and ' 7.5 '
    # exercise case and whitespace, '1e2' is 100 s
    expected = pd.DataFrame({
        "algorithm": ["alpha"] * 4 + ["beta"] * 4 + ["gamma"] * 4,
        "instance": ["one.cnf", "two.cnf", "three.cnf", "four.cnf"] * 3,
        "runtime": [10.5, LIMIT, LIMIT, LIMIT, LIMIT, 100.0, 0.0, 7.5, 4999.99, 100.0, 120.25,
                    100.0],
        "status": ["solved", "memout", "unverified", "capped", "capped", "solved", "solved",
                   "solved", "solved", "solved", "solved", "solved"],
        "cutoff": [LIMIT] * 12,
    })
    pd.testing.assert_frame_equal(runs, expected)


def test_read_satcomp_limit_is_exclusive():
    # with a 100 s limit, 100, 100.0 and 1e2 are at the limit, hence unsolved
    runs = read_satcomp(DATA / "satcomp_small.csv", cutoff=100)
    solved = runs[runs["status"] == "solved"]
    assert sorted(solved["runtime"]) == [0.0, 7.5, 10.5]
    assert (runs.loc[runs["status"] != "solved", "runtime"] == 100.0).all()
    assert (runs["status"] == "capped").sum() == 2 + 5


def test_read_satcomp_other_limit_on_bundled_data():
    expected = expected_runs_from_csv("r_main.csv", 1000.0)
    runs = read_satcomp(bundled_path("r_main.csv"), cutoff=1000.0)
    got = {(a, i): (r, s) for a, i, r, s in
           runs[["algorithm", "instance", "runtime", "status"]].itertuples(index=False)}
    assert got == expected
    assert (runs["cutoff"] == 1000.0).all()


def test_read_satcomp_falls_back_to_hash(tmp_path):
    path = write(tmp_path, "hashes.csv", "hash,s1,s2\nabc,1,2\ndef,timeout,3\n")
    runs = read_satcomp(path, cutoff=5000)
    assert runs["instance"].tolist() == ["abc", "def", "abc", "def"]
    assert runs["status"].tolist() == ["solved", "capped", "solved", "solved"]


def test_read_satcomp_header_only_gives_empty_table(tmp_path):
    path = write(tmp_path, "empty_track.csv", "hash,result,filename,s1,s2\n")
    runs = read_satcomp(path, cutoff=5000)
    assert list(runs.columns) == list(LONG_COLUMNS) and len(runs) == 0
    assert runs["runtime"].dtype == float
    validate_table(runs)


@pytest.mark.parametrize("cell", ["-1.5", "nan", "NaN", "abc", "", "inf", "-0.5e1"])
def test_read_satcomp_rejects_bad_cells(tmp_path, cell):
    path = write(tmp_path, "bad.csv", f"hash,filename,s1,s2\nh1,a.cnf,1,2\nh2,b.cnf,3,{cell}\n")
    message = (rf"^`s2` of `{re.escape(str(path))}, data row 2` must be a non-negative number "
               rf"of seconds or one of 'timeout', 'memout', 'unverified'; got '{re.escape(cell)}'\.$")
    with pytest.raises(DataError, match=message):
        read_satcomp(path)


def test_read_satcomp_reports_first_bad_cell_in_reading_order(tmp_path):
    path = write(tmp_path, "bad.csv", "filename,s1,s2\na,1,oops\nb,-2,3\n")
    with pytest.raises(DataError, match=r"^`s2` of `.*bad\.csv, data row 1` .*got 'oops'\.$"):
        read_satcomp(path)


def test_read_satcomp_missing_instance_column(tmp_path):
    path = write(tmp_path, "noname.csv", "result,s1\nsat,1\n")
    with pytest.raises(DataError, match=r"^`header` of `.*noname\.csv` must be a row naming the "
                                        r"instance column of a SAT Competition layout: 'cnf' "
                                        r"\(2020\), 'filename' \(2021\) or 'hash' \(2021 to "
                                        r"2024\); got \['result', 's1'\]\.$"):
        read_satcomp(path)


def test_read_satcomp_needs_a_solver_column(tmp_path):
    path = write(tmp_path, "nosolver.csv", "hash,result,filename\nh,sat,a.cnf\n")
    with pytest.raises(DataError, match=r"must be a row naming at least one solver column .*"
                                        r"got \['hash', 'result', 'filename'\]\.$"):
        read_satcomp(path)


def test_read_satcomp_rejects_duplicate_solver(tmp_path):
    path = write(tmp_path, "dup.csv", "filename,s1,s1\na,1,2\n")
    with pytest.raises(DataError, match=r"must be a row of distinct column names; got "
                                        r"\['filename', 's1', 's1'\]\. The column 's1' appears"):
        read_satcomp(path)


def test_read_satcomp_rejects_empty_instance_name(tmp_path):
    path = write(tmp_path, "noinst.csv", "filename,s1\na,1\n,2\n")
    with pytest.raises(DataError, match=r"^`filename` of `.*, data row 2` must be a non-empty "
                                        r"name; got ''\.$"):
        read_satcomp(path)


def test_read_satcomp_ragged_row(tmp_path):
    path = write(tmp_path, "ragged.csv", "filename,s1\na,1\nb,2,3\n")
    with pytest.raises(DataError, match=r"^`path` of `read_satcomp` must be a well-formed CSV "
                                        r"file; got '.*ragged\.csv'\. The CSV parser reported: "
                                        r".*Expected 2 fields in line 3, saw 3"):
        read_satcomp(path)


def latin1_csv(folder: Path) -> Path:
    path = folder / "latin1.csv"
    path.write_bytes("filename,s1\n\xe9t\xe9,1\n".encode("latin-1"))
    return path


# each call gets the test's tmp_path as `folder`
READ_SATCOMP_UNREADABLE = [
    pytest.param(lambda folder: read_satcomp(folder / "nowhere.csv"), DataError,
                 r"^`path` of `read_satcomp` must be an existing, readable file; got '.*nowhere\.csv'\. "
                 r"The system reported", id="missing"),
    pytest.param(lambda folder: read_satcomp(write(folder, "empty.csv", "")), DataError,
                 r"must be a CSV file with a header row; got '.*empty\.csv'\. The file is empty\.$", id="empty"),
    pytest.param(lambda folder: read_satcomp(latin1_csv(folder)), DataError,
                 r"must be UTF-8 text; got '.*latin1\.csv'\.", id="not-utf-8"),
]


@pytest.mark.parametrize("call, error, message", READ_SATCOMP_UNREADABLE)
def test_read_satcomp_missing_and_empty_files(tmp_path, call, error, message):
    with pytest.raises(error, match=message):
        call(tmp_path)


@pytest.mark.parametrize("limit", [0, -5, math.nan, math.inf, "soon", True])
def test_read_satcomp_rejects_bad_cutoff(limit):
    with pytest.raises(DataError, match=rf"^`cutoff` of `read_satcomp` must be a positive "
                                        rf"finite number of seconds; got {re.escape(repr(limit))}\.$"):
        read_satcomp(DATA / "satcomp_small.csv", cutoff=limit)


# ---------------------------------------------------------------------------
# read_long


def test_read_long_fixture():
    runs = read_long(DATA / "long_small.csv")
    # by hand from tests/data/long_small.csv: 'NA' and 'null' stay instance names, 'SOLVED' is
    # lower-cased, the extra column 'seed' is kept as text
    expected = pd.DataFrame({
        "algorithm": ["kissat", "kissat", "cadical", "cadical", "cadical", "minisat"],
        "instance": ["a.cnf", "b.cnf", "a.cnf", "NA", "b.cnf", "null"],
        "runtime": [12.5, 60.0, 3.0, 59.5, 0.0, 60.0],
        "status": ["solved", "capped", "solved", "memout", "crash", "unverified"],
        "cutoff": [60.0] * 6,
        "seed": ["1", "1", "2", "2", "", "3"],
    })
    pd.testing.assert_frame_equal(runs, expected)
    validate_table(runs)


def test_read_long_defaults_status_and_omits_cutoff(tmp_path):
    path = write(tmp_path, "plain.csv", "instance,algorithm,runtime\ni1,a,1\ni2,a,2.5\n")
    runs = read_long(path)
    assert list(runs.columns) == ["algorithm", "instance", "runtime", "status"]
    assert runs["status"].tolist() == ["solved", "solved"]
    assert runs["runtime"].tolist() == [1.0, 2.5]


def test_read_long_strips_whitespace(tmp_path):
    path = write(tmp_path, "spaces.csv", "algorithm, instance, runtime, status\n a , i 1 , 2 , "
                                         "Timeout \n")
    runs = read_long(path)
    assert runs.iloc[0].tolist() == ["a", "i 1", 2.0, "capped"]


def test_read_long_missing_column(tmp_path):
    path = write(tmp_path, "cols.csv", "algorithm,instance,time\na,i,1\n")
    with pytest.raises(DataError, match=r"^`header` of `.*cols\.csv` must be a row naming the "
                                        r"columns 'algorithm', 'instance', 'runtime' \(optional: "
                                        r"'status', 'cutoff'\); got \['algorithm', 'instance', "
                                        r"'time'\]\.$"):
        read_long(path)


@pytest.mark.parametrize("value", ["nan", "", "-3", "fast", "inf"])
def test_read_long_bad_runtime(tmp_path, value):
    path = write(tmp_path, "rt.csv", f"algorithm,instance,runtime\na,i,1\na,j,{value}\n")
    with pytest.raises(DataError, match=rf"^`runtime` of `.*rt\.csv, data row 2` must be a finite "
                                        rf"non-negative number of seconds; got '{value}'\.$"):
        read_long(path)


def test_read_long_unknown_status(tmp_path):
    path = write(tmp_path, "st.csv", "algorithm,instance,runtime,status\na,i,1,ok\n")
    with pytest.raises(DataError, match=r"^`status` of `.*st\.csv, data row 1` must be one of "
                                        r"'solved', 'capped', 'memout', 'crash', 'unverified'; "
                                        r"got 'ok'\.$"):
        read_long(path)


@pytest.mark.parametrize("name, text, message", [
    pytest.param("cut.csv", "algorithm,instance,runtime,cutoff\na,i,1,10\na,j,1,0\n",
                 r"^`cutoff` of `.*cut\.csv, data row 2` must be a positive finite number of seconds; got '0'\.$",
                 id="zero-cutoff"),
    pytest.param("late.csv", "algorithm,instance,runtime,cutoff\na,i,11,10\n",
                 r"^`runtime` of `.*late\.csv, data row 1` must be at most the cutoff 10\.0 for a solved run; "
                 r"got '11'\. Mark the run as 'capped' or raise its cutoff\.$", id="solved-beyond-cutoff"),
])
def test_read_long_bad_cutoff_and_solved_beyond_cutoff(tmp_path, name, text, message):
    with pytest.raises(DataError, match=message):
        read_long(write(tmp_path, name, text))


def test_read_long_capped_run_may_stop_after_its_cutoff(tmp_path):
    # a capped run may stop after its cutoff (the time at which it stopped)
    path = write(tmp_path, "capped.csv", "algorithm,instance,runtime,status,cutoff\n"
                                         "a,i,11,timeout,10\n")
    assert read_long(path)["runtime"].tolist() == [11.0]


def test_read_long_empty_name(tmp_path):
    path = write(tmp_path, "names.csv", "algorithm,instance,runtime\n,i,1\n")
    with pytest.raises(DataError, match=r"^`algorithm` of `.*names\.csv, data row 1` must be a "
                                        r"non-empty name; got ''\.$"):
        read_long(path)


def test_read_long_missing_file(tmp_path):
    with pytest.raises(DataError, match=r"^`path` of `read_long` must be an existing, readable "
                                        r"file; got '.*absent\.csv'"):
        read_long(tmp_path / "absent.csv")


@pytest.mark.parametrize("track", ["parallel", "main"])
def test_long_round_trip_of_bundled_table(tmp_path, track):
    runs = datasets.satcomp2021(track)
    path = tmp_path / f"{track}.csv"
    runs.to_csv(path, index=False)
    # with pyarrow the names and statuses come back categorical: the values are what count
    pd.testing.assert_frame_equal(read_long(path), runs, check_dtype=False,
                                  check_categorical=False)
    pd.testing.assert_frame_equal(read_runs(path), runs, check_dtype=False,
                                  check_categorical=False)


# Names are stripped on reading, so the strategy draws them stripped. '\r' is left out
# because DataFrame.to_csv writes it unquoted (it only quotes '\n'), which no CSV reader can
# tell from a line break; test_read_long_keeps_quoted_line_breaks covers quoted ones.
names = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00\r"),
    min_size=1, max_size=12).map(str.strip).filter(bool)


@st.composite
def long_tables(draw):
    n_rows = draw(st.integers(0, 8))
    with_cutoff = draw(st.booleans())
    rows = []
    for _ in range(n_rows):
        status = draw(st.sampled_from(STATUSES))
        cutoff = draw(st.floats(min_value=1e-3, max_value=1e6, allow_nan=False))
        runtime = draw(st.floats(min_value=0.0, max_value=1e6, allow_nan=False,
                                 allow_infinity=False))
        if status == "solved" and with_cutoff:
            runtime = min(runtime, cutoff)
        rows.append((draw(names), draw(names), runtime, status, cutoff))
    table = pd.DataFrame(rows, columns=list(LONG_COLUMNS)).astype(
        {"algorithm": str, "instance": str, "runtime": float, "status": str, "cutoff": float})
    return table if with_cutoff else table.drop(columns="cutoff")


def test_read_long_keeps_quoted_line_breaks(tmp_path):
    path = write(tmp_path, "breaks.csv", 'algorithm,instance,runtime\n"a\rb","c\nd",1\n')
    runs = read_long(path)
    assert runs[["algorithm", "instance"]].values.tolist() == [["a\rb", "c\nd"]]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(table=long_tables())
def test_random_long_tables_survive_write_and_read(tmp_path, table):
    validate_table(table)
    path = tmp_path / "random.csv"
    table.to_csv(path, index=False)
    pd.testing.assert_frame_equal(read_long(path), table, check_dtype=False,
                                  check_categorical=False)


# ---------------------------------------------------------------------------
# read_aslib


def test_read_aslib_fixture_with_description():
    runs = read_aslib(DATA / "aslib_scenario" / "algorithm_runs.arff")
    # by hand from tests/data/aslib_scenario: cutoff 100 from description.txt; an 'ok' run at
    # 100.0 is not within the cutoff; unsuccessful runs stop at min(value, 100), or at 100 for '?';
    # not_applicable / crash / other are crashes; rows keep file order, repetitions included
    expected = pd.DataFrame({
        "algorithm": ["minisat", "glucose", "minisat", "glucose", "minisat", "glucose",
                      "minisat", "glucose", "glucose", "minisat"],
        "instance": ["inst/a.cnf", "inst/a.cnf", "inst/b, with comma.cnf",
                     "inst/b, with comma.cnf", 'inst/c "quoted".cnf', 'inst/c "quoted".cnf',
                     "inst/d.cnf", "inst/d.cnf", "inst/d.cnf", "inst/a.cnf"],
        "runtime": [1.5, 0.25, 100.0, 100.0, 100.0, 42.0, 100.0, 7.0, 100.0, 99.99],
        "status": ["solved", "solved", "capped", "capped", "capped", "memout", "crash",
                   "crash", "crash", "solved"],
        "cutoff": [100.0] * 10,
    })
    pd.testing.assert_frame_equal(runs, expected)
    validate_table(runs)


def test_read_aslib_cutoff_keyword_overrides_description():
    runs = read_aslib(DATA / "aslib_scenario" / "algorithm_runs.arff", cutoff=50)
    # 99.99 'ok' is now beyond the cutoff; memout at 42 s stays below it
    assert runs["runtime"].tolist() == [1.5, 0.25, 50.0, 50.0, 50.0, 42.0, 50.0, 7.0, 50.0, 50.0]
    assert runs["status"].tolist()[-1] == "capped"
    assert (runs["cutoff"] == 50.0).all()


def test_read_aslib_par10_without_cutoff():
    path = DATA / "aslib_par10" / "algorithm_runs.arff"
    # no description.txt and no attribute called 'runtime': the column is never guessed
    with pytest.raises(DataError, match=r"^`attributes` of `.*aslib_par10.algorithm_runs\.arff` "
                                        r"must be a list including one numeric 'runtime' "
                                        r"attribute .*; got \['instance_id', 'repetition', "
                                        r"'algorithm', 'PAR10', .*\]\. Name the runtime "
                                        r"attribute with performance="):
        read_aslib(path)
    runs = read_aslib(path, performance="PAR10")
    # PAR10 named explicitly; with no cutoff known the recorded values stand and there is
    # no cutoff column
    expected = pd.DataFrame({
        "algorithm": ["solverA", "solverB", "solverA", "solverB"],
        "instance": ["x1", "x1", "x2", "x2"],
        "runtime": [12.0, 3000.0, 0.5, 3000.0],
        "status": ["solved", "capped", "solved", "memout"],
    })
    pd.testing.assert_frame_equal(runs, expected)
    # with the cutoff, the PAR10 penalty (10 x 300 s) is undone
    capped = read_aslib(path, performance="PAR10", cutoff=300)
    assert capped["runtime"].tolist() == [12.0, 300.0, 0.5, 300.0]


def test_read_aslib_performance_keyword():
    path = DATA / "aslib_par10" / "algorithm_runs.arff"
    runs = read_aslib(path, performance="Number_of_satisfied_clauses", cutoff=1000)
    assert runs["runtime"].tolist() == [500.0, 480.0, 510.0, 1000.0]


ARFF_HEAD = ("@RELATION r\n@ATTRIBUTE instance_id STRING\n@ATTRIBUTE repetition NUMERIC\n"
             "@ATTRIBUTE algorithm STRING\n@ATTRIBUTE runtime NUMERIC\n"
             "@ATTRIBUTE runstatus {ok, timeout, memout, not_applicable, crash, other}\n@DATA\n")


@pytest.mark.parametrize("row, message", [
    ("i,1,a,1,solved", r"`runstatus` of `.*, line 8` must be one of 'ok', 'timeout', 'memout', "
                       r"'not_applicable', 'crash', 'other'; got 'solved'\.$"),
    ("i,1,a,-1,ok", r"`runtime` of `.*, line 8` must be a finite non-negative number of seconds "
                    r"or '\?'; got '-1'\.$"),
    ("i,1,a,quick,ok", r"`runtime` of `.*, line 8` must be .*; got 'quick'\.$"),
    ("i,1,a,?,ok", r"`runtime` of `.*, line 8` must be a number of seconds for an 'ok' run; "
                   r"got '\?'\.$"),
    ("i,1,a,1", r"`@DATA` of `.*, line 8` must be a row of 5 comma-separated values \(sparse rows "
                r"are not supported\); got 'i,1,a,1'\.$"),
    ("{0 i, 2 a}", r"`@DATA` of `.*, line 8` must be a row of 5"),
    ("'i,1,a,1,ok", r"`@DATA` of `.*, line 8` must be a row of 5"),
    ("?,1,a,1,ok", r"`instance_id` of `.*, line 8` must be a non-empty name; got '\?'\.$"),
])
def test_read_aslib_bad_rows(tmp_path, row, message):
    path = write(tmp_path, "runs.arff", ARFF_HEAD + row + "\n")
    with pytest.raises(DataError, match="^" + message):
        read_aslib(path, cutoff=10)


def scenario_with_cutoff(folder: Path, cutoff: str) -> Path:
    """An ASlib scenario folder whose description.txt states `cutoff`; its algorithm_runs.arff."""
    scenario = folder / "scenario"
    scenario.mkdir()
    (scenario / "algorithm_runs.arff").write_text(ARFF_HEAD + "i,1,a,1,ok\n")
    (scenario / "description.txt").write_text(f"algorithm_cutoff_time: {cutoff}\n")
    return scenario / "algorithm_runs.arff"


PAR10_RUNS = DATA / "aslib_par10" / "algorithm_runs.arff"

# each call gets the test's tmp_path as `folder`
READ_ASLIB_MISUSE = [
    pytest.param(lambda folder: read_aslib(PAR10_RUNS, performance="Number_of_satisfied_clauses"), DataError,
                 r"^`Number_of_satisfied_clauses` of `.*algorithm_runs\.arff, line 13` must be a number of "
                 r"seconds for a 'memout' run when no cutoff is known; got '\?'\. Pass cutoff= or put a "
                 r"description\.txt", id="performance-without-cutoff"),
    pytest.param(lambda folder: read_aslib(PAR10_RUNS, performance="algorithm"), DataError,
                 r"^`performance` of `read_aslib` must be a numeric attribute of .*, one of \['repetition', "
                 r"'PAR10', 'Number_of_satisfied_clauses'\]; got 'algorithm'\.$", id="performance-not-numeric"),
    pytest.param(lambda folder: read_aslib(write(folder, "noalg.arff", "@relation r\n@attribute instance_id string\n"
                                                 "@attribute runtime numeric\n@attribute runstatus {ok}\n"
                                                 "@data\ni,1,ok\n")), DataError,
                 r"^`attributes` of `.*noalg\.arff` must be a list including 'instance_id', 'algorithm', "
                 r"'runstatus' and a numeric performance attribute; got \['instance_id', 'runtime', "
                 r"'runstatus'\]\.$", id="no-algorithm-attribute"),
    pytest.param(lambda folder: read_aslib(write(folder, "nodata.arff", ARFF_HEAD.replace("@DATA\n", ""))), DataError,
                 r"^`path` of `read_aslib` must be an ARFF file with an '@DATA' section; got '.*nodata\.arff'\.$",
                 id="no-data-section"),
    pytest.param(lambda folder: read_aslib(write(folder, "type.arff",
                                                 ARFF_HEAD.replace("runtime NUMERIC", "runtime FLOAT"))), DataError,
                 r"^`@ATTRIBUTE` of `.*type\.arff, line 5` must be '@ATTRIBUTE <name> <NUMERIC\|REAL\|INTEGER"
                 r"\|STRING\|DATE\|\{values\}>'; got '@ATTRIBUTE runtime FLOAT'\.$", id="unknown-type"),
    pytest.param(lambda folder: read_aslib(write(folder, "junk.arff", "hello\n" + ARFF_HEAD)), DataError,
                 r"^`header` of `.*junk\.arff, line 1` must be '@RELATION', '@ATTRIBUTE', '@DATA' or a '%' "
                 r"comment; got 'hello'\.$", id="junk-line"),
    pytest.param(lambda folder: read_aslib(write(folder, "noperf.arff",
                                                 ARFF_HEAD.replace("runtime NUMERIC", "runtime STRING"))), DataError,
                 r"must be a list including one numeric 'runtime' attribute .*; got .* Name the runtime attribute "
                 r"with performance= \(--performance on the command line\)\.$", id="runtime-not-numeric"),
    pytest.param(lambda folder: read_aslib(folder / "gone.arff"), DataError,
                 r"^`path` of `read_aslib` must be an existing, readable file; got '.*gone\.arff'\. "
                 r"The system reported", id="missing-file"),
    pytest.param(lambda folder: read_aslib(PAR10_RUNS, cutoff=-1), DataError,
                 r"^`cutoff` of `read_aslib` must be a positive finite number of seconds; got -1\.$",
                 id="negative-cutoff"),
    pytest.param(lambda folder: read_aslib(scenario_with_cutoff(folder, "never")), DataError,
                 r"^`algorithm_cutoff_time` of `.*description\.txt` must be a positive finite number of seconds; "
                 r"got 'never'\.$", id="description-cutoff-not-a-number"),
]


@pytest.mark.parametrize("call, error, message", READ_ASLIB_MISUSE)
def test_read_aslib_refuses_bad_input(tmp_path, call, error, message):
    with pytest.raises(error, match=message):
        call(tmp_path)


def test_read_aslib_unknown_description_cutoff_means_no_cutoff(tmp_path):
    assert "cutoff" not in read_aslib(scenario_with_cutoff(tmp_path, "?")).columns


# ---------------------------------------------------------------------------
# read_runs


def test_read_runs_guesses_each_format(tmp_path):
    pd.testing.assert_frame_equal(read_runs(DATA / "satcomp_small.csv", cutoff=5000),
                                  read_satcomp(DATA / "satcomp_small.csv", cutoff=5000))
    pd.testing.assert_frame_equal(read_runs(DATA / "long_small.csv"),
                                  read_long(DATA / "long_small.csv"))
    arff = DATA / "aslib_scenario" / "algorithm_runs.arff"
    pd.testing.assert_frame_equal(read_runs(arff), read_aslib(arff))
    # an ASlib scenario folder stands for its algorithm_runs.arff
    pd.testing.assert_frame_equal(read_runs(DATA / "aslib_scenario"), read_aslib(arff))
    # options reach the reader
    assert (read_runs(DATA / "satcomp_small.csv", cutoff=100)["cutoff"] == 100).all()
    assert (read_runs(arff, cutoff=50)["cutoff"] == 50).all()


def test_read_runs_explicit_format(tmp_path):
    # a wide file without 'hash'/'filename' would be guessed as long; format= forces it
    path = write(tmp_path, "wide.txt", "hash,s1\nh,12\n")
    assert read_runs(path, format="satcomp", cutoff=60)["algorithm"].tolist() == ["s1"]
    with pytest.raises(DataError, match=r"^`path` of `read_long` must be a results table: a "
                                        r"long table's columns 'algorithm', .* instance column "
                                        r"'hash' .*: read it with --format satcomp"):
        read_runs(path, format="long")


# each call gets the test's tmp_path as `folder`
READ_RUNS_MISUSE = [
    pytest.param(lambda folder: read_runs(DATA / "long_small.csv", format="xlsx"), DataError,
                 r"^`format` of `read_runs` must be one of 'satcomp', 'long', 'aslib', 'benchexec' or None; "
                 r"got 'xlsx'\.$",
                 id="unknown-format"),
    pytest.param(lambda folder: read_runs(folder / "nothing.csv"), DataError,
                 r"^`path` of `read_runs` must be an existing file \(or an ASlib scenario folder, or a folder "
                 r"of BenchExec result files\); got '.*nothing\.csv'\.$", id="missing-file"),
    pytest.param(lambda folder: read_runs(folder), DataError,
                 r"^`path` of `read_runs` must be an existing file", id="folder-without-runs"),
    pytest.param(lambda folder: read_runs(DATA / "long_small.csv", cutoff=10), DataError,
                 r"^`options` of `read_runs` must be options of read_long \(none\); got 'cutoff'\.$",
                 id="option-of-another-reader"),
    pytest.param(lambda folder: read_runs(DATA / "satcomp_small.csv", time_limit=10), DataError,
                 r"options of read_satcomp \(cutoff\); got 'time_limit'", id="unknown-option"),
]


@pytest.mark.parametrize("call, error, message", READ_RUNS_MISUSE)
def test_read_runs_errors(tmp_path, call, error, message):
    with pytest.raises(error, match=message):
        call(tmp_path)


def test_read_runs_formats():
    assert FORMATS == ("satcomp", "long", "aslib", "benchexec")


def test_read_runs_error_is_a_library_error(tmp_path):
    # callers can catch every complaint about input as MaxEntError or ValueError
    with pytest.raises(MaxEntError):
        read_runs(tmp_path / "nothing.csv")
    with pytest.raises(ValueError):
        read_runs(tmp_path / "nothing.csv")


# ---------------------------------------------------------------------------
# validate_table


def small_table(**changes):
    table = pd.DataFrame({"algorithm": ["a", "b"], "instance": ["i", "j"],
                          "runtime": [1.0, 5.0], "status": ["solved", "capped"],
                          "cutoff": [5.0, 5.0]}, index=[10, 11])
    for column, values in changes.items():
        table[column] = values
    return table


def test_validate_table_accepts_valid_tables():
    validate_table(small_table())
    validate_table(small_table().drop(columns="cutoff"))
    validate_table(small_table(runtime=[0, 5]))  # integer runtimes are numbers too
    validate_table(small_table(extra=["x", "y"]))


@pytest.mark.parametrize("changes, message", [
    (dict(runtime=[1.0, np.nan]), r"`runtime` of `table, row 11` must be a finite non-negative "
                                  r"number of seconds; got nan\.$"),
    (dict(runtime=[-1.0, 1.0]), r"`runtime` of `table, row 10` must be a finite non-negative "
                                r"number of seconds; got -1\.0\.$"),
    (dict(runtime=["1.0", 1.0]), r"`runtime` of `table, row 10` must be a number of seconds; "
                                 r"got '1\.0'\.$"),
    (dict(runtime=[True, False]), r"`runtime` of `table, row 10` must be a number of seconds; "
                                  r"got True\.$"),
    (dict(status=["solved", "ok"]), r"`status` of `table, row 11` must be one of 'solved', "
                                    r"'capped', 'memout', 'crash', 'unverified'; got 'ok'\.$"),
    # pandas 3 stores None in a string column as nan
    (dict(status=["solved", None]), r"`status` of `table, row 11` .*; got (None|nan)\.$"),
    (dict(algorithm=["a", ""]), r"`algorithm` of `table, row 11` must be a non-empty string; "
                                r"got ''\.$"),
    (dict(instance=[np.nan, "j"]), r"`instance` of `table, row 10` must be a non-empty string; "
                                   r"got nan\.$"),
    (dict(instance=[1, 2]), r"`instance` of `table, row 10` must be a non-empty string; "
                            r"got 1\.$"),
    (dict(cutoff=[5.0, 0.0]), r"`cutoff` of `table, row 11` must be a positive finite number "
                              r"of seconds; got 0\.0\.$"),
    (dict(cutoff=[0.5, 5.0]), r"`runtime` of `table, row 10` must be at most the cutoff 0\.5 for "
                              r"a solved run; got 1\.0\. Mark the run as 'capped' or raise its "
                              r"cutoff\.$"),
])
def test_validate_table_rejects_bad_values(changes, message):
    with pytest.raises(DataError, match="^" + message):
        validate_table(small_table(**changes))


@pytest.mark.parametrize("call, error, message", [
    pytest.param(lambda: validate_table({"algorithm": ["a"]}), DataError,
                 r"^`table` of `validate_table` must be a pandas DataFrame; got 'dict'\.$", id="not-a-frame"),
    pytest.param(lambda: validate_table(small_table().drop(columns=["status", "cutoff"]), name="runs"), DataError,
                 r"^`columns` of `runs` must be a list including 'algorithm', 'instance', 'runtime', 'status' "
                 r"\(optional: 'cutoff'\); got \['algorithm', 'instance', 'runtime'\]\.$", id="missing-columns"),
])
def test_validate_table_structure_errors(call, error, message):
    with pytest.raises(error, match=message):
        call()


def arff_quote(name: str) -> str:
    return "'" + name.replace("\\", "\\\\").replace("'", "\\'") + "'"


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(table=long_tables(), quote_all=st.booleans())
def test_random_tables_survive_an_arff_round_trip(tmp_path, table, quote_all):
    # names without line breaks (an ARFF row is one line); runtimes of unsolved runs are
    # recorded as '?' so that the cutoff fills them in
    table = table[~table["algorithm"].str.contains("[\n\r]") & ~table["instance"].str.contains(
        "[\n\r]")].reset_index(drop=True)
    cutoff = 1e6 + 1
    status_names = {"solved": "ok", "capped": "timeout", "memout": "memout",
                    "crash": "crash", "unverified": None}
    table = table[table["status"] != "unverified"].reset_index(drop=True)
    lines = [ARFF_HEAD.rstrip("\n")]
    for algorithm, instance, runtime, status in table[
            ["algorithm", "instance", "runtime", "status"]].itertuples(index=False):
        recorded = repr(runtime) if status == "solved" else "?"
        # unquoted, '?' is the missing value and a leading '%' or '{' starts a comment or a
        # sparse row, so such names need quotes
        needs_quotes = quote_all or "?" in (algorithm, instance) or any(
            c in name for name in (algorithm, instance) for c in ",'\"%{")
        quote = arff_quote if needs_quotes else str
        lines.append(f"{quote(instance)},1,{quote(algorithm)},{recorded},{status_names[status]}")
    path = tmp_path / "runs.arff"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    runs = read_aslib(path, cutoff=cutoff)
    expected = table[["algorithm", "instance", "runtime", "status"]].copy()
    expected.loc[expected["status"] != "solved", "runtime"] = cutoff
    expected["cutoff"] = cutoff
    pd.testing.assert_frame_equal(runs, expected)


@pytest.mark.parametrize("track", ["parallel", "main"])
def test_bundled_file_is_the_data_set_as_published(track):
    # the file satcomp2021_file names, read afresh, is the bundled data set
    path = datasets.satcomp2021_file(track)
    pd.testing.assert_frame_equal(read_satcomp(path, cutoff=5000.0), datasets.satcomp2021(track))
    with pytest.raises(DataError, match=r"^`track` of `satcomp2021_file` must be one of 'parallel', "
                                        r"'main'; got 'Main'\.$"):
        datasets.satcomp2021_file("Main")
