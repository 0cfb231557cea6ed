"""Files as people have them: a zipped results CSV, 2023's special-track file, files that
are not results tables (benchmark metadata, a table of scores), and which measure an ASlib
scenario is read by.

The fixtures follow the published headers, column for column:

- ``downloads/sc2023-detailed-results.zip`` of github.com/satcompetition/2023 holds
  ``bench_meta.csv`` (``hash,author,family,filename``), ``results_cloud_detailed.csv``,
  ``results_main_detailed.csv``, ``results_nolimit_detailed.csv``,
  ``results_parallel_detailed.csv`` and ``results_special_detailed.csv`` (solver columns
  only);
- ``downloads/meta.csv`` of github.com/satcompetition/2024 is separated by spaces:
  ``hash filename family author``;
- ``paper/stability/benchfeatures/par2scores.csv`` of github.com/satcompetition/2020 (the
  NoLimits track's runs) has a header ``solver,<instance>,...`` and one row per solver, each
  cell a run's PAR-2 seconds (10000 for a run unsolved at the 5000 s limit);
- ASlib scenarios: ``description.txt`` and ``algorithm_runs.arff`` as in tests/data.

The names are a few of each file's; the cells are made up in the file's conventions.
"""

from __future__ import annotations

import gzip
import io
import sys
import zipfile
from pathlib import Path

import pandas as pd
import pytest

from maxent_util.cli import main
from maxent_util.errors import DataError
from maxent_util.io import (ReadLimits, guess_format, read_aslib, read_long, read_runs,
                            read_satcomp, sniff_format)

DATA = Path(__file__).parent / "data"

MAIN_2023 = ("hash,AMSAT_,SBVA-sbva_cadical,kissat-3.1.0,vresult\n"
             "004b0f451f7d96f6a572e9e76360f51a,250.378,194.557,78.93,unsat\n"
             "008e7716c69009090ff6bd0048dc55f8,1662.94,10000.0,216.209,unsat\n"
             "00b46ace235e3915a439c77a231a5657,10000.0,10000.0,4773.34,unknown\n")
SPECIAL_2023 = ("AMSAT_,BreakID-kissat-low.sh,CaDiCaL_vivinst\n"
                "250.378,233.16,109.098\n"
                "1662.94,231.672,10000.0\n"
                "10000.0,4321.5,10000.0\n")
BENCH_META_2023 = ("hash,author,family,filename\n"
                   "004b0f451f7d96f6a572e9e76360f51a,chowdhury,cellular-automata,"
                   "spg_420_280.cnf.xz\n"
                   "008e7716c69009090ff6bd0048dc55f8,ibm,hardware-verification,"
                   "SAT_dat.k10.cnf.xz\n")
META_2024 = ("hash filename family author\n"
             "00d1fe07ab948b348bb3fb423b1ef40d lec_mult_KvW_12x11.sanitized.cnf.xz "
             "hardware-miter kochemazov\n"
             "02066c116dbacc40ec5cca2067db26c0 mrpp_4x4#12_12.cnf.xz planning surynek\n")
PAR2SCORES_2020 = ("solver,sat/01-integer-programming-20-30-40.cnf.bz2,"
                   "sat/01-integer-programming-5-10-100.cnf.bz2,sat/170055892.cnf.bz2\n"
                   "cadical-alluip-default,2210.74,10000,54.3518\n"
                   "CaDiCaL-sc2020-default,1732.65,10000,10000\n")
LONG = ("algorithm,instance,runtime,status,cutoff\n"
        "kissat,a.cnf,12.5,solved,60\n"
        "kissat,b.cnf,60,capped,60\n"
        "cadical,a.cnf,3.25,solved,60\n"
        "cadical,b.cnf,41,solved,60\n")
SC2023_MEMBERS = ["bench_meta.csv", "results_cloud_detailed.csv", "results_main_detailed.csv",
                  "results_nolimit_detailed.csv", "results_parallel_detailed.csv",
                  "results_special_detailed.csv"]


def zipped(path: Path, members: dict[str, str | bytes],
           method: int = zipfile.ZIP_DEFLATED) -> Path:
    with zipfile.ZipFile(path, "w", method) as archive:
        for name, text in members.items():
            archive.writestr(name, text)
    return path


def run_cli(capsys, argv):
    status = main(argv)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


# ---------------------------------------------------------------------------
# a zip of one CSV is read as the CSV, as a .gz is


@pytest.mark.parametrize("method", [zipfile.ZIP_DEFLATED, zipfile.ZIP_STORED,
                                    zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA],
                         ids=["deflated", "stored", "bzip2", "lzma"])
def test_a_zip_of_one_satcomp_csv_reads_as_the_csv(tmp_path, method):
    plain = tmp_path / "results_main_detailed.csv"
    plain.write_text(MAIN_2023)
    packed = zipped(tmp_path / "main.zip", {"results_main_detailed.csv": MAIN_2023}, method)
    gz = tmp_path / "main.csv.gz"
    gz.write_bytes(gzip.compress(MAIN_2023.encode()))
    expected = read_satcomp(plain)
    for source in (packed, gz):
        pd.testing.assert_frame_equal(read_satcomp(source), expected)
        pd.testing.assert_frame_equal(read_runs(source), expected)
        assert read_runs(source).attrs["notes"] == expected.attrs["notes"]
    # the format is sniffed from the first bytes of the member, unpacked
    assert guess_format(packed) == "satcomp"
    assert sniff_format(packed.read_bytes()[:1 << 16]) == "satcomp"
    # and from a stream (standard input), read whole within the limits
    pd.testing.assert_frame_equal(read_runs(io.BytesIO(packed.read_bytes()), format="satcomp"),
                                  expected)


def test_a_zip_of_one_long_csv_and_the_command_line(tmp_path, capsys):
    plain = tmp_path / "results.csv"
    plain.write_text(LONG)
    packed = zipped(tmp_path / "results.zip", {"results.csv": LONG})
    # the plain file may be read by pyarrow into categoricals: compare the values
    as_text = {"algorithm": str, "instance": str, "status": str}
    pd.testing.assert_frame_equal(read_long(packed).astype(as_text),
                                  read_long(plain).astype(as_text))
    assert guess_format(packed) == "long"
    status, from_zip, _ = run_cli(capsys, ["rank", str(packed), "--par", "2", "--csv"])
    assert status == 0
    _, from_csv, _ = run_cli(capsys, ["rank", str(plain), "--par", "2", "--csv"])
    assert from_zip == from_csv


def test_a_zip_with_folders_and_macos_forks_reads_its_one_csv(tmp_path):
    # macOS's "Compress" adds __MACOSX/._<name>; a folder entry is not a member either
    packed = io.BytesIO()
    with zipfile.ZipFile(packed, "w") as archive:
        archive.writestr("sc2023/", b"")
        archive.writestr("sc2023/results_main_detailed.csv", MAIN_2023)
        archive.writestr("__MACOSX/sc2023/._results_main_detailed.csv", b"\x00\x05\x16\x07")
    path = tmp_path / "main.zip"
    path.write_bytes(packed.getvalue())
    assert read_satcomp(path)["algorithm"].unique().tolist() == ["AMSAT_", "SBVA-sbva_cadical",
                                                                 "kissat-3.1.0"]


def test_the_published_2023_archive_of_six_csvs_is_refused_naming_them(tmp_path, capsys):
    path = zipped(tmp_path / "sc2023-detailed-results.zip",
                  {name: MAIN_2023 for name in SC2023_MEMBERS})
    message = (r"^`path` of `read_satcomp` must be a zip archive holding one CSV file; got "
               r"'.*sc2023-detailed-results\.zip'\. It holds 6 members: 'bench_meta\.csv', "
               r"'results_cloud_detailed\.csv', .*'results_special_detailed\.csv'; name the one "
               r"to read as FILE\.zip:MEMBER, such as '.*sc2023-detailed-results\.zip:"
               r"results_cloud_detailed\.csv'\.$")
    with pytest.raises(DataError, match=message):
        read_runs(path)
    status, _, err = run_cli(capsys, ["rank", str(path), "--par", "2"])
    assert status == 2 and err.count("\n") == 1 and "It holds 6 members" in err


@pytest.mark.parametrize("members, shown", [
    ({"results.xlsx": b"PK\x03\x04"}, r"It holds 1 member: 'results\.xlsx'"),
    ({}, r"It holds 0 members;"),
    ({f"track{k}.csv": LONG for k in range(12)},
     r"It holds 12 members: 'track0\.csv', .*'track7\.csv' and 4 more;"),
])
def test_zips_without_exactly_one_csv_are_refused(tmp_path, members, shown):
    path = zipped(tmp_path / "r.zip", members)
    with pytest.raises(DataError, match=r"^`path` of `read_long` must be a zip archive holding "
                                        r"one CSV file; got '.*r\.zip'\. " + shown):
        read_long(path)


def test_a_zip_of_many_entries_is_refused_before_its_directory_is_read(tmp_path):
    path = zipped(tmp_path / "many.zip", {f"x{k}.csv": "" for k in range(200)})
    with pytest.raises(DataError, match=r"must be a zip archive holding one CSV file; got "
                                        r"'.*many\.zip'\. Its directory lists 200 entries"):
        read_runs(path, format="long")


def test_a_zip_bomb_is_refused_by_its_stated_size_before_unpacking(tmp_path):
    text = "algorithm,instance,runtime\n" + "a,i,1\n" * 200_000  # 1.2 MB, packs ~ 500 times
    path = zipped(tmp_path / "bomb.zip", {"runs.csv": text})
    limits = ReadLimits(max_decompressed_bytes=100_000)
    with pytest.raises(DataError, match=r"^`path` of `read_long` must be content that unpacks "
                                        r"to at most 100000 bytes \(its member 'runs\.csv' "
                                        rf"states {len(text)}\) \(the read limit "
                                        r"max_decompressed_bytes=100000\); got '.*bomb\.zip'\."):
        read_long(path, limits=limits)


def test_a_zip_bomb_is_refused_by_its_ratio_while_unpacking(tmp_path):
    # 2.4 MB of repeated rows deflate to a few kB: past 1 MiB unpacked the ratio is over 100
    text = "algorithm,instance,runtime\n" + "a,i,1\n" * 400_000
    path = zipped(tmp_path / "bomb.zip", {"runs.csv": text})
    assert path.stat().st_size * 100 < len(text)
    with pytest.raises(DataError, match=r"zip content that unpacks to at most 100 times its "
                                        r"size .*\(the read limit max_ratio=100\)"):
        read_runs(path)


def test_a_member_larger_than_its_stated_size_is_refused(tmp_path):
    # a header that understates its member: zipfile stops at the stated size, and the CRC fails
    path = zipped(tmp_path / "lying.zip", {"runs.csv": LONG}, zipfile.ZIP_STORED)
    data = bytearray(path.read_bytes())
    stated = len(LONG).to_bytes(4, "little")
    fewer = (len(LONG) - 10).to_bytes(4, "little")
    data = bytearray(bytes(data).replace(stated, fewer))  # local header and directory
    path.write_bytes(bytes(data))
    with pytest.raises(DataError, match=r"^`path` of `read_long` must be (readable zip "
                                        r"content|a well-formed CSV file|a results table)"):
        read_long(path)


def test_a_cut_zip_is_refused(tmp_path):
    path = zipped(tmp_path / "cut.zip", {"runs.csv": LONG})
    path.write_bytes(path.read_bytes()[:40])
    with pytest.raises(DataError, match=r"must be a readable zip archive holding one CSV file; "
                                        r"got '.*cut\.zip'\. It has no end-of-directory record"):
        read_long(path)


def test_an_aslib_file_in_a_zip_is_refused(tmp_path):
    folder = tmp_path / "scenario"
    folder.mkdir()
    text = (DATA / "aslib_scenario" / "algorithm_runs.arff").read_bytes()
    zipped(folder / "algorithm_runs.arff", {"algorithm_runs.arff": text})
    with pytest.raises(DataError, match=r"must be plain, gzip, bzip2 or xz content; got "
                                        r"'.*algorithm_runs\.arff'\. It is a zip archive"):
        read_aslib(folder / "algorithm_runs.arff")


# ---------------------------------------------------------------------------
# 2023's special track: solver columns only


def test_the_special_track_file_is_recognised(tmp_path):
    path = tmp_path / "results_special_detailed.csv"
    path.write_text(SPECIAL_2023)
    assert guess_format(path) == "satcomp"
    runs = read_runs(path)
    assert runs["instance"].tolist()[:3] == ["row 1", "row 2", "row 3"]
    assert runs.attrs["notes"][0].startswith("no instance column (the layout of 2023's "
                                             "special-track file")
    # a word of 2020 or 2021 in a cell still reads as a run
    assert sniff_format(b"a,b\n12.5,TIMEOUT\n") == "satcomp"
    # a long table, or a table of names, is not
    assert sniff_format(b"a,b\n12.5,fast\n") == "long"
    assert sniff_format(b"algorithm,runtime\n1,2\n") == "long"


def test_the_special_track_file_read_as_long_names_format_satcomp(tmp_path):
    path = tmp_path / "results_special_detailed.csv"
    path.write_text(SPECIAL_2023)
    with pytest.raises(DataError, match=r"^`path` of `read_long` must be a results table: a "
                                        r"long table's columns 'algorithm', 'instance', "
                                        r"'runtime' .*; got '.*results_special_detailed\.csv'\. "
                                        r"Its columns hold only numbers .*: read it with "
                                        r"--format satcomp \(format='satcomp' in Python\)\.$"):
        read_runs(path, format="long")


# ---------------------------------------------------------------------------
# files that are not results tables


def test_bench_meta_is_not_a_results_table(tmp_path, capsys):
    path = tmp_path / "bench_meta.csv"
    path.write_text(BENCH_META_2023)
    message = (r"^`path` of `read_satcomp` must be a results table: a long table's columns "
               r"'algorithm', 'instance', 'runtime' \(optional: 'status', 'cutoff'\), or a SAT "
               r"Competition table's instance column \('cnf', 'filename' or 'hash'\) and one "
               r"column of times per solver; got '.*bench_meta\.csv'\. It is not a results "
               r"table: besides 'hash', 'filename', its columns \(\['author', 'family'\]\) hold "
               r"no time \(data row 1: \['chowdhury', 'cellular-automata'\]\)\.$")
    with pytest.raises(DataError, match=message):
        read_runs(path)
    status, _, err = run_cli(capsys, ["rank", str(path)])
    assert status == 2 and "It is not a results table" in err and "got 'chowdhury'" not in err


def test_a_2020_word_in_a_2021_layout_is_still_a_bad_cell(tmp_path):
    # a cell of runs in another year's vocabulary is a bad cell, not a metadata table
    path = tmp_path / "bad.csv"
    path.write_text("cnf,solution,a\nx,SATISFIABLE,memout\n")
    with pytest.raises(DataError, match=r"^`a` of `.*bad\.csv, data row 1`"):
        read_satcomp(path, cutoff=5000)


def test_meta_separated_by_spaces_is_not_a_results_table(tmp_path):
    path = tmp_path / "meta.csv"
    path.write_text(META_2024)
    with pytest.raises(DataError, match=r"^`path` of `read_long` must be a results table: .*; "
                                        r"got '.*meta\.csv'\. It is not a results table: none "
                                        r"of these columns is there \(its columns: \['hash "
                                        r"filename family author'\]\)\. Its header is one "
                                        r"column: its fields are not separated by commas\.$"):
        read_runs(path)


def test_par2scores_is_a_table_of_runs_read_with_its_published_limit(tmp_path, capsys):
    # one row per solver, one run per cell (tests/test_io_wide.py reads it in full)
    path = tmp_path / "par2scores.csv"
    path.write_text(PAR2SCORES_2020)
    with pytest.raises(DataError, match=r"^`cutoff` of `read_satcomp` must be the time limit "
                                        r".*published limit, 5000 s"):
        read_runs(path)
    status, out, _ = run_cli(capsys, ["rank", str(path), "--par", "2", "--cutoff", "5000"])
    assert status == 0 and "cadical-alluip-default" in out


def test_rank_csv_output_read_back_is_a_summary(tmp_path, capsys):
    runs = tmp_path / "results.csv"
    runs.write_text(LONG)
    _, ranking, _ = run_cli(capsys, ["rank", str(runs), "--par", "2", "--solved", "--csv"])
    path = tmp_path / "ranking.csv"
    path.write_text(ranking)
    with pytest.raises(DataError, match=r"It is a summary .* named in its 'algorithm' column"):
        read_runs(path)


def test_a_long_table_missing_a_column_keeps_its_own_message(tmp_path):
    path = tmp_path / "cols.csv"
    path.write_text("algorithm,instance,time\na,i,1\n")
    with pytest.raises(DataError, match=r"^`header` of `.*cols\.csv` must be a row naming the "
                                        r"columns 'algorithm', 'instance', 'runtime'"):
        read_long(path)


# ---------------------------------------------------------------------------
# ASlib: which measure was read


def test_aslib_names_its_measure_and_cutoff():
    runs = read_runs(DATA / "aslib_scenario")
    assert runs.attrs["notes"] == [
        "measure: 'runtime' (the runtime measure of description.txt), read as seconds; "
        "cutoff 100 s (1.67 min), from algorithm_cutoff_time of description.txt"]


def test_aslib_names_the_par_penalty_its_runs_record():
    # tests/data/aslib_par10 records unsuccessful runs as 3000 = 10 x 300 s
    runs = read_aslib(DATA / "aslib_par10" / "algorithm_runs.arff", performance="PAR10",
                      cutoff=300)
    assert runs.attrs["notes"] == [
        "measure: 'PAR10' (named by performance=), read as seconds; cutoff 300 s (5 min), given; "
        "its unsuccessful runs record the PAR10 penalty, 10 times 300 s (5 min), read as runs "
        "capped at the cutoff"]
    bare = read_aslib(DATA / "aslib_par10" / "algorithm_runs.arff", performance="PAR10")
    assert bare.attrs["notes"] == ["measure: 'PAR10' (named by performance=), read as "
                                   "seconds; no cutoff known"]


def test_aslib_par_measure_by_name(tmp_path):
    # a measure named PAR10 whose unsuccessful runs record different values
    folder = tmp_path / "s"
    folder.mkdir()
    (folder / "description.txt").write_text(
        "scenario_id: T\nperformance_measures:\n  - PAR10\nmaximize:\n  - false\n"
        "performance_type:\n  - runtime\nalgorithm_cutoff_time: 50\n")
    (folder / "algorithm_runs.arff").write_text(
        "@RELATION r\n@ATTRIBUTE instance_id STRING\n@ATTRIBUTE repetition NUMERIC\n"
        "@ATTRIBUTE algorithm STRING\n@ATTRIBUTE PAR10 NUMERIC\n"
        "@ATTRIBUTE runstatus {ok, timeout, memout, not_applicable, crash, other}\n@DATA\n"
        "a,1,x,3.5,ok\nb,1,x,500,timeout\nb,1,y,20,crash\n")
    note = read_runs(folder).attrs["notes"][0]
    assert note == ("measure: 'PAR10' (the runtime measure of description.txt), read as "
                    "seconds; cutoff 50 s, from algorithm_cutoff_time of description.txt; a PAR10 "
                    "measure: its unsuccessful runs are read as runs capped at the cutoff, "
                    "whatever penalty they record")


def test_rank_prints_the_aslib_measure(capsys):
    status, _, err = run_cli(capsys, ["rank", str(DATA / "aslib_scenario"), "--par", "2",
                                      "--duplicates", "mean"])
    assert status == 0
    assert "note: " in err and "measure: 'runtime'" in err
