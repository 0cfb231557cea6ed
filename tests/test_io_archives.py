"""One member of an archive read where a path is read, as ``ARCHIVE:MEMBER``: the 2023
``sc2023-detailed-results.zip`` of github.com/satcompetition/2023 (``downloads/``) holds six
CSV files, of which a page or a ranking reads one; tar archives (plain, gzip, bzip2, xz) the
same way; within the read limits of a single file (maxent_util/io/limits.py).

The members' headers follow the published ones; the cells are made up in their conventions.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import re
import sys
import tarfile
import zipfile
from pathlib import Path

import pandas as pd
import pytest

from maxent_util import Solved
from maxent_util.cli import main
from maxent_util.errors import DataError
from maxent_util.io import ReadLimits, guess_format, read_runs, read_satcomp
from maxent_util.report import report_html

MAIN_2023 = ("hash,AMSAT_,SBVA-sbva_cadical,kissat-3.1.0,vresult\n"
             "00f6ee8d1d2b4e3fe9b9c5ea5c6ff2c4,10000,36.67,10000,unsat\n"
             "0205e0724a8a912dde9ad7dfba2aee0b,211.33,10000,97.5,sat\n"
             "02627689047d06fbb642eb1e5b2a5a9b,10000,1022.4,3.125,sat\n")
CLOUD_2023 = ("hash,mallob-ki,paracooba,aresult\n"
              "00f6ee8d1d2b4e3fe9b9c5ea5c6ff2c4,2000,36.67,unsat\n"
              "0205e0724a8a912dde9ad7dfba2aee0b,211.33,2000,sat\n")
BENCH_META = "hash,author,family,filename\n00f6,chowdhury,cellular-automata,spg.cnf.xz\n"
MEMBERS = {"bench_meta.csv": BENCH_META, "results_cloud_detailed.csv": CLOUD_2023,
           "results_main_detailed.csv": MAIN_2023, "results_nolimit_detailed.csv": MAIN_2023,
           "results_parallel_detailed.csv": CLOUD_2023}


def sc2023(tmp_path: Path) -> Path:
    path = tmp_path / "sc2023-detailed-results.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, text in MEMBERS.items():
            archive.writestr(name, text)
    return path


def plain(tmp_path: Path, name: str) -> Path:
    path = tmp_path / "plain" / name
    path.parent.mkdir(exist_ok=True)
    path.write_text(MEMBERS[name])
    return path


@pytest.mark.parametrize("name", ["results_main_detailed.csv", "results_cloud_detailed.csv"])
def test_a_member_of_the_2023_zip_reads_as_the_file(tmp_path, name):
    member = f"{sc2023(tmp_path)}:{name}"
    expected = read_satcomp(plain(tmp_path, name))
    assert guess_format(Path(member)) == "satcomp"
    for table in (read_runs(member), read_satcomp(member)):
        pd.testing.assert_frame_equal(table, expected)
        assert table.attrs["notes"] == expected.attrs["notes"]


def test_the_zip_of_several_tracks_is_refused_with_the_syntax(tmp_path, capsys):
    path = sc2023(tmp_path)
    with pytest.raises(DataError, match=r"It holds 5 members: 'bench_meta\.csv', .*; name the "
                                        r"one to read as FILE\.zip:MEMBER, such as "
                                        r"'.*\.zip:results_cloud_detailed\.csv'\.$"):
        read_runs(path)
    assert main(["rank", str(path)]) == 2
    assert "FILE.zip:MEMBER" in capsys.readouterr().err


def test_a_member_not_there_is_refused_naming_those_that_are(tmp_path):
    path = sc2023(tmp_path)
    with pytest.raises(DataError, match=r"must be ARCHIVE:MEMBER naming a file the archive "
                                        r"holds; got '.*\.zip:results_main\.csv'\. It holds no "
                                        r"member 'results_main\.csv'; it holds 5 members: "
                                        r"'bench_meta\.csv', "):
        read_runs(f"{path}:results_main.csv")


def test_bench_meta_in_the_zip_is_not_a_results_table(tmp_path):
    with pytest.raises(DataError, match=r"It is not a results table"):
        read_runs(f"{sc2023(tmp_path)}:bench_meta.csv")


@pytest.mark.parametrize("suffix, mode", [(".tar", "w"), (".tar.gz", "w:gz"), (".tgz", "w:gz"),
                                          (".tar.bz2", "w:bz2"), (".tar.xz", "w:xz")])
def test_a_member_of_a_tar_reads_as_the_file(tmp_path, suffix, mode):
    path = tmp_path / f"sc2023{suffix}"
    with tarfile.open(path, mode) as archive:
        for name, text in MEMBERS.items():
            info = tarfile.TarInfo(f"sc2023/{name}")
            info.size = len(text.encode())
            archive.addfile(info, io.BytesIO(text.encode()))
    expected = read_satcomp(plain(tmp_path, "results_main_detailed.csv"))
    table = read_runs(f"{path}:sc2023/results_main_detailed.csv")
    pd.testing.assert_frame_equal(table, expected)
    with pytest.raises(DataError, match=r"It holds no member 'results_main_detailed\.csv'; it "
                                        r"holds 5 members: 'sc2023/bench_meta\.csv'"):
        read_runs(f"{path}:results_main_detailed.csv")


def test_a_file_whose_name_holds_the_colon_is_read_as_itself(tmp_path):
    sc2023(tmp_path)
    odd = tmp_path / "sc2023-detailed-results.zip:results_main_detailed.csv"
    odd.write_text(MAIN_2023.replace("36.67", "40.5"))
    table = read_runs(odd)
    assert 40.5 in table["runtime"].tolist()


def test_a_zip_members_stated_size_is_bounded(tmp_path):
    text = "algorithm,instance,runtime\n" + "a,i,1\n" * 200_000
    path = tmp_path / "two.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("runs.csv", text)
        archive.writestr("other.csv", "x\n")
    with pytest.raises(DataError, match=r"unpacks to at most 100000 bytes \(its member "
                                        r"'runs\.csv' states"):
        read_runs(f"{path}:runs.csv", limits=ReadLimits(max_decompressed_bytes=100_000))


def test_a_tar_gz_bomb_is_refused_by_its_ratio(tmp_path):
    text = ("algorithm,instance,runtime\n" + "a,i,1\n" * 400_000).encode()
    path = tmp_path / "bomb.tar.gz"
    with tarfile.open(path, "w:gz") as archive:
        info = tarfile.TarInfo("runs.csv")
        info.size = len(text)
        archive.addfile(info, io.BytesIO(text))
    assert path.stat().st_size * 100 < len(text)
    with pytest.raises(DataError, match=r"gzip content that unpacks to at most 100 times its "
                                        r"size .*\(the read limit max_ratio=100\)"):
        read_runs(f"{path}:runs.csv")


def test_the_command_line_ranks_a_member(tmp_path, capsys):
    member = f"{sc2023(tmp_path)}:results_main_detailed.csv"
    assert main(["rank", member, "--par", "2", "--csv"]) == 0
    from_member = capsys.readouterr().out
    assert main(["rank", str(plain(tmp_path, "results_main_detailed.csv")), "--par", "2",
                 "--csv"]) == 0
    assert from_member == capsys.readouterr().out


def facts(page: str) -> dict[str, str]:
    return dict(re.findall(r"<dt>(.*?)</dt><dd>(.*?)</dd>", page))


def test_the_page_names_the_member_and_hashes_the_archive(tmp_path):
    path = sc2023(tmp_path)
    member = f"{path}:results_main_detailed.csv"
    page = report_html(read_runs(member), rules=[Solved()], source=member, label=member,
                       sections=["data"], date="d")
    shown = facts(page)
    assert shown["file"] == "sc2023-detailed-results.zip"
    assert shown["member"] == "results_main_detailed.csv"
    assert shown["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
    assert shown["size"] == f"{path.stat().st_size:,} bytes"
    assert "data" not in shown and str(tmp_path) not in page


def test_a_one_member_zips_page_names_its_member(tmp_path):
    path = tmp_path / "main.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("results_main_detailed.csv", MAIN_2023)
    page = report_html(read_runs(path), rules=[Solved()], source=path, label=str(path),
                       sections=["data"], date="d")
    assert facts(page)["member"] == "results_main_detailed.csv"


def test_standard_input_is_measured_and_hashed_as_a_file(tmp_path, monkeypatch, capsys):
    data = MAIN_2023.encode()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    target = tmp_path / "page.html"
    assert main(["report", "-", "-o", str(target), "--par", "2", "--resamples", "10"]) == 0
    shown = facts(target.read_text())
    assert shown["input"] == "standard input"
    assert shown["sha256"] == hashlib.sha256(data).hexdigest()
    assert shown["size"] == f"{len(data):,} bytes"
    assert shown["format"] == "satcomp"
