"""The SAT Competition's published results CSVs of 2020 to 2024, read as published.

Each fixture below is built here with the header of a real file, column for
column (docs/formats.md names each file and where it was published):

- 2020: ``downloads/parallel.csv`` of github.com/satcompetition/2020;
- 2021: ``results/r_main.csv`` of github.com/satcompetition/2021 (bundled);
- 2022: ``main-seq.csv`` in ``downloads/sc2022-detailed-results.zip`` of
  github.com/satcompetition/2022;
- 2023: ``results_main_detailed.csv`` (``vresult``),
  ``results_parallel_detailed.csv`` (``aresult``) and
  ``results_special_detailed.csv`` (no instance column) in
  ``downloads/sc2023-detailed-results.zip`` of github.com/satcompetition/2023;
- 2024: ``detailed_main.csv`` (``vresult``), ``detailed_parallel.csv`` and
  ``detailed_cloud.csv`` (``result``) in ``downloads/detailed_results.zip``
  of github.com/satcompetition/2024.

The solver names are a few of each file's; the cells are made up in the
file's conventions. The reference PAR-2 is computed by plain pandas from the
CSV text: for 2022 to 2024 it is the column mean, the organisers' own score
(unsolved runs are written as the PAR-2 penalty, twice the limit; on the real
2024 files this reproduces the published scores, e.g. kissat-sc2024 2788.13
on the main track); for 2020 and 2021 words and values at or past the cutoff
are replaced by twice the cutoff before the mean.
"""

from __future__ import annotations

import gzip
import io
import lzma
import re
import sys

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from maxent_util.cli import main
from maxent_util.errors import DataError
from maxent_util.io import guess_format, read_runs, read_satcomp, sniff_format, validate_table
from maxent_util.ranking import PAR, Solved, rank, tidy_ranking

# ---------------------------------------------------------------------------
# fixtures in the published layouts

FIXTURES = {
    # year/track: (CSV text, the solver columns as the test reads them off the header, cutoff)
    "2020-parallel": (
        "cnf,solution,painlessmaplevone,pmcompspsthirty,plingeling,abcdparascavel\n"
        "ps_300_312_20.cnf.bz2,SATISFIABLE,861.499,160.844,13.272,TIMEOUT\n"
        "170105432.cnf.bz2,SATISFIABLE,79.134,3349.099,FAILED,INCORRECT\n"
        "crafted_n11_d6_c4_num19.cnf.bz2,UNSATISFIABLE,TIMEOUT,UNKNOWN,4985.999,18.185\n"
        "x.cnf.bz2,UNKNOWN,TIMEOUT,TIMEOUT,TIMEOUT,TIMEOUT\n",
        ["painlessmaplevone", "pmcompspsthirty", "plingeling", "abcdparascavel"], 5000.0),
    "2021-main": (
        "hash,result,filename,cadical_hack_gb,CaDiCaL_PriPro,kissat_bonus\n"
        "000a41cdca43be89ed62ea3abf2d0b64,sat,snw_13_9_pre.cnf.xz,22.4347,9.00577,timeout\n"
        "0016f9e3d4a5c2ab9b1c0f6e4a8e9d11,unsat,a.cnf.xz,unverified,4999.99,memout\n"
        "00c0ffee000000000000000000000000,unknown,b.cnf.xz,timeout,5000.0,1.5\n",
        ["cadical_hack_gb", "CaDiCaL_PriPro", "kissat_bonus"], 5000.0),
    "2022-main-seq": (
        "hash,benchmark,verified-result,claimed-result,CaDiCaL-watchsat-lto,IsaSAT,"
        "Kissat_MAB-HyWalk,kissat_inc\n"
        "002a0330958a14deb23dcc84b5489e8a,traffic_f_unknown.cnf.xz,unsat,unsat,195.751,282.908,"
        "218.281,219.191\n"
        "004b0f451f7d96f6a572e9e76360f51a,spg_420_280.cnf.xz,unsat,unsat,145.164,15.1759,10000.0,"
        "4999.9\n"
        "064fe286277f695f42b556ef991036ff,sin_depth_miter_2.cnf.xz,unknown,unsat,10000.0,10000.0,"
        "10000.0,10000.0\n",
        ["CaDiCaL-watchsat-lto", "IsaSAT", "Kissat_MAB-HyWalk", "kissat_inc"], 5000.0),
    "2023-main": (
        "hash,AMSAT_,SBVA-sbva_cadical,kissat-3.1.0,vresult\n"
        "004b0f451f7d96f6a572e9e76360f51a,250.378,194.557,78.93,unsat\n"
        "008e7716c69009090ff6bd0048dc55f8,1662.94,10000.0,216.209,unsat\n"
        "00b46ace235e3915a439c77a231a5657,10000.0,10000.0,4773.34,unknown\n",
        ["AMSAT_", "SBVA-sbva_cadical", "kissat-3.1.0"], 5000.0),
    "2023-parallel": (
        "hash,gimsatul,mallob23-parallel-1,satcomp-prs,aresult\n"
        "004b0f451f7d96f6a572e9e76360f51a,28.708,21.384,27.366,unsat\n"
        "008e7716c69009090ff6bd0048dc55f8,51.862,10000.0,73.448,unsat\n"
        "0a1b2c3d4e5f60718293a4b5c6d7e8f9,10000.0,10000.0,4999.0,sat\n",
        ["gimsatul", "mallob23-parallel-1", "satcomp-prs"], 5000.0),
    "2023-special": (
        "AMSAT_,BreakID-kissat-low.sh,CaDiCaL_vivinst\n"
        "250.378,233.16,109.098\n"
        "1662.94,231.672,10000.0\n"
        "10000.0,4321.5,10000.0\n",
        ["AMSAT_", "BreakID-kissat-low.sh", "CaDiCaL_vivinst"], 5000.0),
    "2024-main": (
        "hash,AMSAT,CaDiCaL,IsaSAT,kissat-sc2024,vresult\n"
        "00d1fe07ab948b348bb3fb423b1ef40d,10000.0,10000.0,10000.0,10000.0,unknown\n"
        "02066c116dbacc40ec5cca2067db26c0,34.6687,10.1343,3094.05,14.409,unsat\n"
        "0aa1b2c3d4e5f60718293a4b5c6d7e8f,4999.5,10000.0,12.0,0.005776,sat\n",
        ["AMSAT", "CaDiCaL", "IsaSAT", "kissat-sc2024"], 5000.0),
    "2024-parallel": (
        "hash,biere-gimsatul,qian-prs-thread32,schreiber-mallobsat,result\n"
        "00d1fe07ab948b348bb3fb423b1ef40d,1858.814,609.814,947.918,unsat\n"
        "02066c116dbacc40ec5cca2067db26c0,1.104,10000.0,3.172,unsat\n"
        "0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b,10000.0,10000.0,10000.0,unknown\n",
        ["biere-gimsatul", "qian-prs-thread32", "schreiber-mallobsat"], 5000.0),
    "2024-cloud": (
        "hash,qian-prs-distributed,saoudi-painless,schreiber-mallobsat,result\n"
        "00d1fe07ab948b348bb3fb423b1ef40d,146.952,448.14,58.565,unsat\n"
        "02066c116dbacc40ec5cca2067db26c0,4.934,2000.0,3.751,unsat\n"
        "0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c,2000.0,2000.0,999.25,sat\n",
        ["qian-prs-distributed", "saoudi-painless", "schreiber-mallobsat"], 1000.0),
}
PENALTY_LAYOUTS = [name for name in FIXTURES if name[:4] in ("2022", "2023", "2024")]


def given_cutoff(name: str) -> dict[str, float]:
    """``cutoff=`` for a layout that states no time limit (2020, 2021): it must be given."""
    return {} if name in PENALTY_LAYOUTS else {"cutoff": FIXTURES[name][2]}


def write(tmp_path, name, text):
    path = tmp_path / f"{name}.csv"
    path.write_text(text)
    return path


def plain_par2(text: str, solvers: list[str], cutoff: float) -> pd.Series:
    """PAR-2 per solver by plain pandas: seconds below the cutoff count, anything else 2 x cutoff."""
    frame = pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False)
    seconds = frame[solvers].apply(pd.to_numeric, errors="coerce")
    return seconds.where(seconds < cutoff, 2 * cutoff).mean()


# ---------------------------------------------------------------------------
# every layout: PAR-2 as the organisers compute it, solvers as the header lists them


@pytest.mark.parametrize("name", FIXTURES)
def test_rank_par2_equals_plain_pandas_par2(tmp_path, name):
    text, solvers, cutoff = FIXTURES[name]
    runs = read_satcomp(write(tmp_path, name, text), **given_cutoff(name))
    validate_table(runs)
    ranked = rank(runs, {"PAR-2": PAR(2)})
    reference = plain_par2(text, solvers, cutoff)
    assert ranked["PAR-2"].to_dict() == pytest.approx(reference.to_dict(), rel=1e-12)
    assert (runs["cutoff"] == cutoff).all()


@pytest.mark.parametrize("name", PENALTY_LAYOUTS)
def test_penalty_layouts_par2_is_the_column_mean(tmp_path, name):
    # 2022 to 2024 write each run's PAR-2 contribution: the score is the plain column mean
    text, solvers, _ = FIXTURES[name]
    ranked = rank(read_satcomp(write(tmp_path, name, text)), {"PAR-2": PAR(2)})
    means = pd.read_csv(io.StringIO(text))[solvers].mean()
    assert ranked["PAR-2"].to_dict() == pytest.approx(means.to_dict(), rel=1e-12)


@pytest.mark.parametrize("name", FIXTURES)
def test_metadata_columns_are_never_solvers(tmp_path, name):
    text, solvers, _ = FIXTURES[name]
    runs = read_satcomp(write(tmp_path, name, text), **given_cutoff(name))
    assert runs["algorithm"].unique().tolist() == solvers
    n_rows = text.count("\n") - 1
    assert len(runs) == n_rows * len(solvers)


@pytest.mark.parametrize("name, column", [
    ("2020-parallel", "cnf"), ("2021-main", "filename"), ("2022-main-seq", "hash"),
    ("2023-main", "hash"), ("2023-parallel", "hash"), ("2024-main", "hash"),
    ("2024-parallel", "hash"), ("2024-cloud", "hash")])
def test_instance_column_of_each_layout(tmp_path, name, column):
    text, solvers, _ = FIXTURES[name]
    runs = read_satcomp(write(tmp_path, name, text), **given_cutoff(name))
    names = pd.read_csv(io.StringIO(text), dtype=str)[column].tolist()
    assert runs["instance"].tolist() == names * len(solvers)


def test_2023_special_track_names_instances_by_row(tmp_path):
    text, solvers, _ = FIXTURES["2023-special"]
    runs = read_satcomp(write(tmp_path, "special", text))
    assert runs["instance"].tolist() == ["row 1", "row 2", "row 3"] * len(solvers)


def test_2022_instances_are_hashes_as_benchmark_names_repeat(tmp_path):
    # the anniversary track repeats benchmark names across distinct hashes (63 in anni-seq.csv)
    text = ("hash,benchmark,verified-result,claimed-result,IsaSAT,kissat_inc\n"
            "aa,x.cnf.xz,sat,sat,1.5,10000.0\n"
            "bb,x.cnf.xz,unsat,unsat,10000.0,2.5\n")
    runs = read_satcomp(write(tmp_path, "anni", text))
    assert runs["instance"].tolist() == ["aa", "bb", "aa", "bb"]
    # distinct instances, so rank sees no repeated run
    assert rank(runs, {"solved": Solved()})["solved"].to_dict() == {"IsaSAT": 1.0, "kissat_inc": 1.0}


# ---------------------------------------------------------------------------
# cell words, wrong answers and the notes


def test_2020_words(tmp_path):
    text, _, _ = FIXTURES["2020-parallel"]
    runs = read_satcomp(write(tmp_path, "2020", text), cutoff=5000).set_index(["algorithm", "instance"])
    # by hand from the fixture: TIMEOUT capped, FAILED and UNKNOWN crash, INCORRECT unverified
    assert runs.loc[("abcdparascavel", "ps_300_312_20.cnf.bz2"), "status"] == "capped"
    assert runs.loc[("plingeling", "170105432.cnf.bz2"), "status"] == "crash"
    assert runs.loc[("abcdparascavel", "170105432.cnf.bz2"), "status"] == "unverified"
    assert runs.loc[("pmcompspsthirty", "crafted_n11_d6_c4_num19.cnf.bz2"), "status"] == "crash"
    # 4985.999 < 5000: solved, as published
    assert runs.loc[("plingeling", "crafted_n11_d6_c4_num19.cnf.bz2"), "status"] == "solved"
    unsolved = runs[runs["status"] != "solved"]
    assert (unsolved["runtime"] == 5000.0).all()


def test_wrong_answers_are_counted_in_the_notes(tmp_path):
    runs = read_satcomp(write(tmp_path, "2020", FIXTURES["2020-parallel"][0]), cutoff=5000)
    assert runs.attrs["notes"] == [
        "1 run with a wrong or unverified answer ('INCORRECT' cells) counts as unsolved: "
        "status 'unverified', utility 0"]
    assert (runs["status"] == "unverified").sum() == 1
    runs = read_satcomp(write(tmp_path, "2021", FIXTURES["2021-main"][0]), cutoff=5000)
    assert runs.attrs["notes"] == [
        "1 run with a wrong or unverified answer ('unverified' cells) counts as unsolved: "
        "status 'unverified', utility 0"]


def test_words_are_read_in_any_case(tmp_path):
    text = "cnf,solution,a\nx,SATISFIABLE,Timeout\ny,UNKNOWN,incorrect\n"
    runs = read_satcomp(write(tmp_path, "case", text), cutoff=5000)
    assert runs["status"].tolist() == ["capped", "unverified"]


def test_2020_rejects_a_2021_word(tmp_path):
    path = write(tmp_path, "bad", "cnf,solution,a\nx,SATISFIABLE,memout\n")
    with pytest.raises(DataError, match=r"^`a` of `.*bad\.csv, data row 1` must be a non-negative "
                                        r"number of seconds or one of 'TIMEOUT', 'FAILED', "
                                        r"'INCORRECT', 'UNKNOWN'; got 'memout'\.$"):
        read_satcomp(path, cutoff=5000)


# ---------------------------------------------------------------------------
# the cutoff: stated by the penalty, or given


def test_cloud_track_states_its_1000_s_limit(tmp_path):
    path = write(tmp_path, "cloud", FIXTURES["2024-cloud"][0])
    runs = read_satcomp(path)
    assert (runs["cutoff"] == 1000.0).all()
    # 999.25 is below 1000: solved; the 2000.0 cells are the penalty: capped at 1000
    solved = runs[runs["status"] == "solved"]
    assert 999.25 in solved["runtime"].tolist()
    assert (runs.loc[runs["status"] == "capped", "runtime"] == 1000.0).all()
    assert runs.attrs["notes"] == [
        "cutoff 1000 s (16.7 min), stated by the file: its largest value, 2000 s (33.3 min) in 3 "
        "cells, is the PAR-2 penalty (twice the time limit) of its unsolved runs"]


def test_a_lower_cutoff_recaps_and_a_higher_one_is_refused(tmp_path):
    path = write(tmp_path, "cloud", FIXTURES["2024-cloud"][0])
    lowered = read_satcomp(path, cutoff=500)
    # 58.565, 146.952, 448.14, 4.934, 3.751 stay solved; 999.25 is past 500
    assert sorted(lowered.loc[lowered["status"] == "solved", "runtime"]) == [
        3.751, 4.934, 58.565, 146.952, 448.14]
    assert lowered.attrs["notes"] == []
    assert read_satcomp(path, cutoff=1000).equals(read_satcomp(path))
    with pytest.raises(DataError, match=r"^`cutoff` of `read_satcomp` must be at most 1000 s, the "
                                        r"time limit the file states \(its unsolved runs carry the "
                                        r"PAR-2 penalty 2000 s\); got 5000\. A cutoff can re-cap"):
        read_satcomp(path, cutoff=5000)


@pytest.mark.parametrize("name, year, limits", [
    ("2020-parallel", "2020", "main 5000 s, parallel 5000 s, cloud 1000 s"),
    ("2021-main", "2021", "main 5000 s, parallel 5000 s, cloud 1000 s")])
def test_layouts_without_a_stated_limit_need_the_cutoff(tmp_path, name, year, limits):
    # 2020's cloud track (1000 s) was ranked at a guessed 5000 s: PAR-2 4.5 times off
    path = write(tmp_path, name, FIXTURES[name][0])
    with pytest.raises(DataError, match=rf"^`cutoff` of `read_satcomp` must be the time limit in "
                                        rf"seconds, since .*{name}\.csv \(the {year} layout\) "
                                        rf"does not state it; got None\. Pass cutoff= \(--cutoff "
                                        rf"on the command line\); the published limits of the "
                                        rf"{year} tracks: {limits}"):
        read_satcomp(path)
    runs = read_satcomp(path, cutoff=1000)
    assert (runs["cutoff"] == 1000.0).all()
    assert runs.attrs["notes"] == [] or "cutoff" not in runs.attrs["notes"][0]


def test_2020_cutoff_recaps_below_its_limit(tmp_path):
    runs = read_satcomp(write(tmp_path, "2020", FIXTURES["2020-parallel"][0]), cutoff=1000)
    # 861.499, 160.844, 13.272, 79.134, 18.185 are below 1000
    assert (runs["status"] == "solved").sum() == 5


@pytest.mark.parametrize("name", ["2020-parallel", "2021-main"])
def test_a_cutoff_above_the_layouts_limit_is_refused(tmp_path, name):
    # a `timeout` cell is a run stopped at 5000 s at most: 6000 would make it a 6000 s run
    path = write(tmp_path, name, FIXTURES[name][0])
    with pytest.raises(DataError, match=r"^`cutoff` of `read_satcomp` must be at most 5000 s, the "
                                        r"longest time limit of any 20\d\d track \(its 'timeout' "
                                        r"cells are runs stopped there\).*; got 6000\. A cutoff "
                                        r"can re-cap runs at a lower time, never extend them\.$"):
        read_satcomp(path, cutoff=6000)
    assert (read_satcomp(path, cutoff=5000)["cutoff"] == 5000.0).all()


@pytest.mark.parametrize("text, why", [
    ("hash,a,b\nx,3,20\ny,4,5\n", "the largest value is in one cell only"),
    ("hash,a,b\nx,3,20\ny,20,15\n", "a value lies between its half and itself"),
    ("hash,a,b\nx,3,21\ny,21,5\n", "the largest value is odd"),
    ("hash,a,b\nx,3,20.5\ny,20.5,5\n", "the largest value is not whole"),
    ("hash,a,b\nx,timeout,20\ny,20,5\n", "the file writes words for unsolved runs"),
])
def test_no_penalty_no_stated_cutoff(tmp_path, text, why):
    path = write(tmp_path, "plain", text)
    with pytest.raises(DataError, match=r"does not state it; got None\. Pass cutoff= .*the "
                                        r"published limits of the 2023/2024 tracks: 5000 s for "
                                        r"the main tracks, 1000 s for the cloud tracks\.$"):
        read_satcomp(path)
    runs = read_satcomp(path, cutoff=5000)
    assert (runs["cutoff"] == 5000.0).all(), why
    assert runs.attrs["notes"] == []


def test_a_value_just_past_the_limit_keeps_the_penalty(tmp_path):
    # 2022's anni-par-unsat.csv holds 5000.21 next to its 10000.0 penalties
    text = "hash,benchmark,verified-result,claimed-result,a,b\nx,p,sat,sat,5000.21,10000.0\n" \
           "y,q,sat,sat,10000.0,12.0\nz,r,sat,sat,5000.0,4999.99\n"
    runs = read_satcomp(write(tmp_path, "over", text))
    assert (runs["cutoff"] == 5000.0).all()
    # a number is solved when below the cutoff: 5000.21 and 5000.0 are capped, 4999.99 solved
    assert runs["status"].tolist() == ["capped", "capped", "capped", "capped", "solved", "solved"]
    # so the organisers' column mean (which takes 5000.21 as it is) differs from PAR-2 here
    assert rank(runs, {"PAR-2": PAR(2)})["PAR-2"]["a"] == pytest.approx(10000.0)
    assert runs.attrs["notes"][0].startswith("cutoff 5000 s (1.39 h), stated by the file")


# ---------------------------------------------------------------------------
# property: any table in the 2024 layout ranks to the organisers' PAR-2


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(cutoff=st.sampled_from([1000.0, 5000.0]),
       cells=st.lists(st.lists(st.one_of(st.none(), st.floats(0.0, 0.9999)), min_size=2, max_size=4),
                      min_size=1, max_size=6))
def test_property_2024_layout(cutoff, cells):
    # None is an unsolved run (the penalty), a float f a run solved in f * cutoff seconds
    width = min(len(row) for row in cells)
    rows = [row[:width] for row in cells]
    rows.append([None] * width)  # a row nobody solved: the penalty appears at least twice
    solvers = [f"s{j}" for j in range(width)]
    lines = ["hash," + ",".join(solvers) + ",vresult"]
    for i, row in enumerate(rows):
        values = [repr(2 * cutoff) if v is None else repr(v * cutoff) for v in row]
        lines.append(f"h{i}," + ",".join(values) + ",unknown")
    text = "\n".join(lines) + "\n"
    runs = read_satcomp(io.BytesIO(text.encode()))
    assert (runs["cutoff"] == cutoff).all()
    ranked = rank(runs, {"PAR-2": PAR(2), "solved": Solved()})
    means = pd.read_csv(io.StringIO(text))[solvers].mean()
    assert ranked["PAR-2"].to_dict() == pytest.approx(means.to_dict(), rel=1e-9, abs=1e-9)
    solved = {s: float(sum(row[j] is not None for row in rows)) for j, s in enumerate(solvers)}
    assert ranked["solved"].to_dict() == solved


# ---------------------------------------------------------------------------
# streams and the format told from the content


@pytest.mark.parametrize("name", FIXTURES)
def test_streams_read_like_files(tmp_path, name):
    text = FIXTURES[name][0]
    path = write(tmp_path, name, text)
    from_file = read_runs(path, format="satcomp", **given_cutoff(name))
    for stream in (io.BytesIO(text.encode()), io.StringIO(text),
                   io.BytesIO(gzip.compress(text.encode())),
                   io.BytesIO(lzma.compress(text.encode()))):
        got = read_runs(stream, format="satcomp", **given_cutoff(name))
        pd.testing.assert_frame_equal(got, from_file)
        assert got.attrs["notes"] == from_file.attrs["notes"]


@pytest.mark.parametrize("name", [name for name in FIXTURES if name != "2023-special"])
def test_the_format_is_told_from_the_content(tmp_path, name):
    text = FIXTURES[name][0]
    assert sniff_format(text.encode()) == "satcomp"
    assert sniff_format(gzip.compress(text.encode())) == "satcomp"
    assert sniff_format(lzma.compress(text.encode())) == "satcomp"
    path = tmp_path / "no_suffix"
    path.write_text(text)
    assert guess_format(path) == "satcomp"
    packed = tmp_path / "published.csv.xz"
    packed.write_bytes(lzma.compress(text.encode()))
    assert guess_format(packed) == "satcomp"
    cutoff = given_cutoff(name)
    pd.testing.assert_frame_equal(read_runs(packed, **cutoff), read_satcomp(path, **cutoff))
    pd.testing.assert_frame_equal(read_runs(io.BytesIO(text.encode()), **cutoff),
                                  read_satcomp(path, **cutoff))


def test_sniffing_other_formats():
    assert sniff_format(b"algorithm,instance,runtime\na,x,1\n") == "long"
    assert sniff_format(b"% comment\n@RELATION runs\n") == "aslib"
    assert sniff_format(b'\xef\xbb\xbf<?xml version="1.0"?><result/>') == "benchexec"
    assert sniff_format(b"") == "long"


def test_a_stream_of_an_aslib_scenario_is_refused():
    with pytest.raises(DataError, match=r"^`format` of `read_runs` must be a format read from a "
                                        r"stream \('satcomp', 'long', 'benchexec'\); an ASlib"):
        read_runs(io.BytesIO(b"@RELATION algorithm_runs\n"))


# ---------------------------------------------------------------------------
# the command line: - for standard input, the notes, --tidy


def run_cli(capsys, monkeypatch, argv, stdin: bytes | None = None):
    if stdin is not None:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin)))
    status = main(argv)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_rank_reads_standard_input(tmp_path, capsys, monkeypatch):
    text = FIXTURES["2024-cloud"][0]
    path = write(tmp_path, "cloud", text)
    status, from_stdin, err = run_cli(capsys, monkeypatch,
                                      ["rank", "-", "--format", "satcomp", "--par", "2", "--csv"],
                                      stdin=text.encode())
    assert status == 0, err
    assert err == ("maxent-util: note: <stdin>: cutoff 1000 s (16.7 min), stated by the file: "
                   "its largest value, 2000 s (33.3 min) in 3 cells, is the PAR-2 penalty (twice the time limit) of its "
                   "unsolved runs\n")
    status, from_file, _ = run_cli(capsys, monkeypatch, ["rank", str(path), "--par", "2", "--csv"])
    assert status == 0 and from_stdin == from_file
    # without --format the content tells it
    status, sniffed, _ = run_cli(capsys, monkeypatch, ["rank", "-", "--par", "2", "--csv"],
                                 stdin=gzip.compress(text.encode()))
    assert status == 0 and sniffed == from_file
    expected = plain_par2(text, FIXTURES["2024-cloud"][1], 1000.0)
    got = pd.read_csv(io.StringIO(from_file), index_col=0)["PAR-2"]
    assert got.to_dict() == pytest.approx(expected.to_dict())


def test_rank_refuses_an_aslib_scenario_on_standard_input(capsys, monkeypatch):
    status, out, err = run_cli(capsys, monkeypatch, ["rank", "-", "--par", "2"],
                               stdin=b"@RELATION algorithm_runs\n")
    assert status == 2 and out == ""
    assert err.startswith("maxent-util: error: standard input (FILE -) is read as aslib data")
    assert len(err.splitlines()) == 1


def test_rank_prints_wrong_answer_notes(tmp_path, capsys, monkeypatch):
    path = write(tmp_path, "2020", FIXTURES["2020-parallel"][0])
    status, out, err = run_cli(capsys, monkeypatch, ["rank", str(path), "--par", "2",
                                                     "--cutoff", "5000"])
    assert status == 0 and out.startswith("ranking of ")
    assert err == (f"maxent-util: note: {path}: 1 run with a wrong or unverified answer "
                   "('INCORRECT' cells) counts as unsolved: status 'unverified', utility 0\n")


def test_rank_tidy(tmp_path, capsys, monkeypatch):
    text, solvers, cutoff = FIXTURES["2024-main"]
    path = write(tmp_path, "main", text)
    status, out, _ = run_cli(capsys, monkeypatch,
                             ["rank", str(path), "--par", "2", "--solved", "--tidy"])
    assert status == 0
    tidy = pd.read_csv(io.StringIO(out))
    assert list(tidy.columns) == ["algorithm", "rule", "score", "rank"]
    assert len(tidy) == 2 * len(solvers)
    # the PAR-2 rows against plain pandas; the ranks by sorting those scores
    par2 = tidy[tidy["rule"] == "PAR-2"].set_index("algorithm")
    reference = plain_par2(text, solvers, cutoff)
    assert par2["score"].to_dict() == pytest.approx(reference.to_dict())
    assert par2["rank"].to_dict() == reference.rank(method="min").astype(int).to_dict()
    status, out, _ = run_cli(capsys, monkeypatch, ["rank", str(path), "--utility",
                                                   "exponential(100)", "--bounds", "--tidy"])
    assert status == 0
    tidy = pd.read_csv(io.StringIO(out))
    assert list(tidy.columns) == ["algorithm", "rule", "score", "rank", "lower", "upper"]
    assert (tidy["lower"] <= tidy["score"] + 1e-12).all() and (tidy["score"] <= tidy["upper"]).all()


def test_tidy_ranking_is_the_wide_ranking_melted():
    runs = pd.DataFrame({"algorithm": ["a", "a", "b", "b"], "instance": ["i", "j", "i", "j"],
                         "runtime": [1.0, 100.0, 10.0, 20.0],
                         "status": ["solved", "capped", "solved", "solved"], "cutoff": 100.0})
    wide = rank(runs, {"PAR-2": PAR(2), "solved": Solved()}, bounds=True)
    tidy = tidy_ranking(wide)
    # the reference: pandas' own reshaping of the wide table
    for rule in ("PAR-2", "solved"):
        part = tidy[tidy["rule"] == rule].set_index("algorithm")
        for column, suffix in (("score", ""), ("rank", " rank"), ("lower", " lower"),
                               ("upper", " upper")):
            assert part[column].to_dict() == wide[rule + suffix].to_dict()
    assert tidy["rule"].tolist() == ["PAR-2", "PAR-2", "solved", "solved"]
    assert tidy.index.tolist() == [0, 1, 2, 3]


@pytest.mark.parametrize("bad", [None, pd.DataFrame({"x": [1]}),
                                 pd.DataFrame({"a rank": [1]}),
                                 pd.DataFrame({"a": [1.0], "a rank": [1], "a lower": [0.5]})])
def test_tidy_ranking_refuses_other_tables(bad):
    with pytest.raises(DataError, match=r"^`ranking` of `tidy_ranking` must be a DataFrame "
                                        r"returned by rank"):
        tidy_ranking(bad)


def test_the_bundled_2021_data_reads_as_before():
    from maxent_util import datasets

    runs = datasets.satcomp2021("main")
    # SOURCE.md: 285 unverified cells in r_main.csv
    assert (runs["status"] == "unverified").sum() == 285
    assert runs.attrs["notes"] == [
        "285 runs with a wrong or unverified answer ('unverified' cells) count as unsolved: "
        "status 'unverified', utility 0"]
    assert re.search(r"\b285 runs\b", runs.attrs["notes"][0])
    assert np.isfinite(runs["runtime"]).all()


@settings(max_examples=30, deadline=None)
@given(times=st.lists(st.lists(st.one_of(st.none(), st.floats(0.5, 99.0)), min_size=3, max_size=3),
                      min_size=1, max_size=5),
       bounds=st.booleans())
def test_property_tidy_ranking_pivots_back_to_rank(times, bounds):
    # algorithms a0.. on instances i0, i1, i2; None is a run capped at 100 s
    rows = [(f"a{k}", f"i{j}", 100.0 if v is None else v, "capped" if v is None else "solved")
            for k, row in enumerate(times) for j, v in enumerate(row)]
    runs = pd.DataFrame(rows, columns=["algorithm", "instance", "runtime", "status"])
    runs["cutoff"] = 100.0
    wide = rank(runs, {"PAR-2": PAR(2), "solved": Solved()}, bounds=bounds)
    tidy = tidy_ranking(wide)
    assert len(tidy) == 2 * len(wide)
    # pandas' pivot of the tidy table gives the wide one back, column for column
    for column, suffix in [("score", ""), ("rank", " rank")] + (
            [("lower", " lower"), ("upper", " upper")] if bounds else []):
        back = tidy.pivot(index="algorithm", columns="rule", values=column)
        for rule in ("PAR-2", "solved"):
            assert back[rule].to_dict() == wide[rule + suffix].to_dict()
    assert ("lower" in tidy.columns) == bounds


@settings(max_examples=50, deadline=None)
@given(names=st.lists(st.text("abcdefghijklmnopqrstuvwxyz_-0123456789", min_size=1, max_size=8),
                      min_size=1, max_size=5, unique=True),
       marker=st.sampled_from(["hash", "filename", "cnf", "verified-result", "claimed-result"]),
       where=st.integers(0, 5))
def test_property_a_satcomp_marker_anywhere_in_the_header_makes_satcomp(names, marker, where):
    header = [name for name in names if name not in ("hash", "filename", "cnf")]
    plain_text = ",".join(header) + "\n"
    assert sniff_format(plain_text.encode()) == ("satcomp" if set(header) & {
        "verified-result", "claimed-result"} else "long")
    header.insert(min(where, len(header)), marker)
    assert sniff_format((",".join(header) + "\n1,2\n").encode()) == "satcomp"
