"""Results files that state no time limit are not ranked at a guessed one (issue 23, section 3).

The 2020 and 2021 SAT Competition layouts write words for unsolved runs and no time limit; the
limits of their tracks are on the track pages of github.com/satcompetition/2020 and /2021
(main 5000 s, parallel 5000 s, cloud 1000 s). The 2022 to 2024 layouts state theirs through the
PAR-2 penalty, twice the limit.
"""

from __future__ import annotations

import io

import pandas as pd
import pytest

from conftest import assert_usage_error, run
from maxent_util.errors import DataError
from maxent_util.io import read_runs, read_satcomp

# the 2020 cloud track's header (downloads/cloud.csv of satcompetition/2020), cells made up
CLOUD_2020 = ("cnf,solution,mallobecs,paracooba\n"
              "a.cnf.bz2,SATISFIABLE,39.397,FAILED\n"
              "b.cnf.bz2,SATISFIABLE,3.561,TIMEOUT\n"
              "c.cnf.bz2,UNSATISFIABLE,TIMEOUT,994.144\n")
# the 2021 layout (results/r_main.csv of satcompetition/2021), cells made up
MAIN_2021 = ("hash,result,filename,kissat,cadical\n"
             "aa,sat,a.cnf.xz,12.5,timeout\n"
             "bb,unsat,b.cnf.xz,timeout,4999.5\n")
# the 2024 cloud layout: the 2000 s penalty states a 1000 s limit
CLOUD_2024 = ("hash,mallob,painless,result\n"
              "aa,146.9,2000.0,unsat\n"
              "bb,2000.0,999.25,sat\n")


@pytest.fixture
def files(tmp_path):
    paths = {}
    for name, text in (("cloud2020", CLOUD_2020), ("main2021", MAIN_2021),
                       ("cloud2024", CLOUD_2024)):
        paths[name] = tmp_path / f"{name}.csv"
        paths[name].write_text(text)
    return paths


def test_read_satcomp_asks_for_the_cutoff_of_a_2020_file(files):
    # before: ranked at 5000 s without a word, PAR-2 about 4.5 times off on the cloud track
    with pytest.raises(DataError, match=r"^`cutoff` of `read_satcomp` must be the time limit in "
                                        r"seconds, since .*cloud2020\.csv \(the 2020 layout\) "
                                        r"does not state it; got None\. Pass cutoff= \(--cutoff on "
                                        r"the command line\); the published limits of the 2020 "
                                        r"tracks: main 5000 s, parallel 5000 s, cloud 1000 s\.$"):
        read_satcomp(files["cloud2020"])
    with pytest.raises(DataError, match=r"^`cutoff` of `read_satcomp` must be the time limit"):
        read_runs(files["cloud2020"])
    runs = read_satcomp(files["cloud2020"], cutoff=1000)
    assert (runs["cutoff"] == 1000.0).all()
    assert runs.attrs["notes"] == []


@pytest.mark.parametrize("command", [
    ["rank", "{file}", "--par", "2"],
    ["compare", "{file}", "mallobecs", "paracooba", "--par", "2", "--resamples", "50"],
    ["race", "{file}", "--utility", "exp(-t/100)", "--delta", "0.1"],
    ["report", "{file}", "--par", "2", "-o", "{out}"],
])
def test_commands_ask_for_cutoff_on_a_2020_file(files, tmp_path, capsys, command):
    argv = [word.format(file=files["cloud2020"], out=tmp_path / "r.html") for word in command]
    assert_usage_error(*run(capsys, *argv), "--cutoff")
    _, _, err = run(capsys, *argv)
    assert "cloud 1000 s" in err
    assert not (tmp_path / "r.html").exists()


def test_rank_with_the_cutoff_ranks_a_2020_file(files, capsys):
    status, out, err = run(capsys, "rank", str(files["cloud2020"]), "--par", "2", "--solved",
                           "--cutoff", "1000", "--csv")
    assert status == 0, err
    table = pd.read_csv(io.StringIO(out), index_col="algorithm")
    # by hand: mallobecs solved 39.397 and 3.561, one run capped (2 x 1000); paracooba solved
    # 994.144, one crash and one run capped
    assert table.loc["mallobecs", "PAR-2"] == pytest.approx((39.397 + 3.561 + 2000) / 3)
    assert table.loc["paracooba", "PAR-2"] == pytest.approx((994.144 + 4000) / 3)
    assert table["solved"].tolist() == [2, 1]


def test_a_2021_cutoff_above_its_limit_is_refused(files, capsys):
    # before: every `timeout` cell became a run stopped at 6000 s
    with pytest.raises(DataError, match=r"^`cutoff` of `read_satcomp` must be at most 5000 s, the "
                                        r"longest time limit of any 2021 track \(its 'timeout' "
                                        r"cells are runs stopped there\), since .*main2021\.csv "
                                        r"has the 2021 layout; got 6000\. A cutoff can re-cap runs "
                                        r"at a lower time, never extend them\.$"):
        read_satcomp(files["main2021"], cutoff=6000)
    status, out, err = run(capsys, "rank", str(files["main2021"]), "--par", "2",
                           "--cutoff", "6000")
    assert_usage_error(status, out, err, "at most 5000 s")
    assert "got 6000" in err
    runs = read_satcomp(files["main2021"], cutoff=5000)
    assert runs.loc[runs["status"] == "capped", "runtime"].tolist() == [5000.0, 5000.0]


def test_an_inferred_cutoff_is_said_to_be_inferred(files, capsys):
    status, out, err = run(capsys, "rank", str(files["cloud2024"]), "--par", "2")
    assert status == 0
    assert err == (f"maxent-util: note: {files['cloud2024']}: cutoff 1000 s (16.7 min), stated "
                   "by the file: its largest value, 2000 s (33.3 min) in 2 cells, is the PAR-2 penalty (twice the time "
                   "limit) of its unsolved runs\n")
