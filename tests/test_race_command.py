"""``maxent-util race --command``: a race of real runs, recorded in runs.jsonl and resumed.

Two commands are raced. minisat on three tiny random 3-CNF formulas (a real solver, a few
hundredths of a second a run) shows the route end to end. A sleeper whose configuration is its
sleep (0, 0.1 s, or 2 s stopped at the run limit) under a step utility (1 below 0.3 s, 0 from
there) makes every decision of the race independent of the machine's load: a resumed race must
then take the uninterrupted race's decisions round by round and run only the runs the log lost
(the race is killed with SIGKILL in another process, as a crash would stop it).
"""

from __future__ import annotations

import io
import json
import os
import shutil
import signal
import subprocess
import sys
import time

import pandas as pd
import pytest
from conftest import assert_usage_error, checkout_env, run
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from maxent_util.errors import DataError
from maxent_util.racing import RunLog, TableRunner, read_instances
from maxent_util.space import ParameterSpace

SLEEPER = [sys.executable, "-S", "-c", "import sys, time; time.sleep(float(sys.argv[1]))",
           "{config}", "{instance}"]
STEP = "Piecewise((1, t < 0.3), (0, True))"
#: the columns of UP's trace that follow from its decisions alone (total_time is measured)
DECISIONS = ["m", "incumbent", "epsilon", "lcb", "ucb", "survivors", "run_limit_min",
             "run_limit_max"]


@pytest.fixture
def sleeper(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sleep.txt").write_text('sleep "" c ("0", "0.1", "2")\n')
    for name in "abcd":
        (tmp_path / f"{name}.txt").write_text(name)
    (tmp_path / "instances.txt").write_text("a.txt\nb.txt\n\nc.txt\n")
    import shlex

    return ["race", "--command", shlex.join(SLEEPER), "--space", "sleep.txt",
            "--instances", "instances.txt", "--configs", "3", "--utility", STEP,
            "--delta", "0.5", "--first-run-limit", "0.4", "--run-limit", "0.4", "--seed", "1"]


def _runs(path):
    lines = path.read_text().splitlines()
    return json.loads(lines[0]), [json.loads(line) for line in lines[1:]]


def _trace(out):
    return pd.read_csv(io.StringIO(out))


def test_a_resumed_race_takes_the_same_decisions_and_runs_only_what_was_lost(capsys, tmp_path,
                                                                            sleeper):
    status, out, err = run(capsys, *sleeper, "--csv")
    assert status == 0, err
    whole = _trace(out)
    header, runs = _runs(tmp_path / "runs.jsonl")
    assert list(header["configurations"]) == ["default", "c1", "c2", "c3"]
    assert all(words in (["0"], ["0.1"], ["2"]) for words in header["configurations"].values())
    assert len(runs) == len({(r["config"], r["instance"], r["run_limit"]) for r in runs}) >= 8
    # the race asked for each recorded run once: the trace's time is theirs, stopped at limits
    assert whole["total_time"].iloc[-1] == pytest.approx(
        sum(min(r["runtime"], r["run_limit"]) for r in runs), rel=1e-12)

    # the same race again on the whole log: nothing runs, every number is the same
    status, out, err = run(capsys, *sleeper, "--json")
    assert status == 0, err
    again = json.loads(out)
    assert (again["ran"], again["replayed"]) == (0, len(runs))
    assert again["incumbent"] == whole["incumbent"].iloc[-1]
    # the CSV prints 16 significant digits
    assert again["total_time"] == pytest.approx(whole["total_time"].iloc[-1], rel=1e-15, abs=0)
    assert again["worthless_from"] == 0.3  # the step utility's zero, below the run limit

    # the same race in another process, killed (SIGKILL, as a crash) once 3 runs are recorded
    killed = tmp_path / "killed.jsonl"
    child = subprocess.Popen([sys.executable, "-m", "maxent_util", *sleeper, "--runs", str(killed)],
                             cwd=tmp_path, env=checkout_env(), stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
    try:
        waited = 0  # a bound on the wait, not a timing assertion
        while child.poll() is None and waited < 3000 and not (
                killed.exists() and killed.read_text().count("\n") >= 4):
            time.sleep(0.02)
            waited += 1
        child.kill()
    finally:
        child.wait()
    assert child.returncode == -signal.SIGKILL  # stopped in the middle of the race
    header_killed, before = _runs(killed)
    assert header_killed == header and 3 <= len(before) < len(runs)
    # started again: the recorded runs are replayed, only the others run, the same decisions
    status, out, err = run(capsys, *sleeper, "--runs", str(killed), "--csv")
    assert status == 0, err
    assert _trace(out)[DECISIONS].equals(whole[DECISIONS])
    _, after = _runs(killed)
    assert after[:len(before)] == before
    assert sorted((r["config"], r["instance"], r["run_limit"]) for r in after) == \
        sorted((r["config"], r["instance"], r["run_limit"]) for r in runs)


def test_a_log_of_another_race_is_refused_and_left_alone(capsys, tmp_path, sleeper):
    (tmp_path / "other.jsonl").write_text("notes of mine")
    assert_usage_error(*run(capsys, *sleeper, "--runs", "other.jsonl"),
                       "`runs` of `RunLog` must be a runs file of a race")
    assert (tmp_path / "other.jsonl").read_text() == "notes of mine"
    assert run(capsys, *sleeper, "--configs", "0")[0] == 0  # one configuration: no run at all
    log = (tmp_path / "runs.jsonl").read_text()
    seed = sleeper.index("--seed") + 1
    assert_usage_error(*run(capsys, *sleeper[:seed], "2", *sleeper[seed + 1:], "--configs", "0"),
                       "It was written for another seed: 1 there, 2 here")
    assert_usage_error(*run(capsys, *sleeper, "--configs", "0", "--clock", "cpu"),
                       "It was written for another clock: 'wall' there, 'cpu' here")
    assert (tmp_path / "runs.jsonl").read_text() == log


@pytest.mark.parametrize("lines, pattern", [
    ("a.txt\nb\0.txt\n", "`instances` of `maxent-util race` must be one path a line, without a "
                         "NUL byte"),
    ("a.txt\n-rf\n", "got '-rf'. (instances.txt, line 2) A path that starts with '-' would be "
                     "read as an option: write ./-name."),
    ("a.txt\nmissing.cnf\n", "must be paths of existing files; got 'missing.cnf'. "
                             "(instances.txt, line 2)"),
    ("\n\n", "must be a list of at least one instance; got 'instances.txt'."),
    (b"a.txt\n\xff\n", "must be a UTF-8 text file"),
])
def test_hostile_instance_lists_are_refused_before_anything_runs(capsys, tmp_path, sleeper,
                                                                  lines, pattern):
    path = tmp_path / "instances.txt"
    path.write_bytes(lines if isinstance(lines, bytes) else lines.encode())
    assert_usage_error(*run(capsys, *sleeper), pattern)
    assert not (tmp_path / "runs.jsonl").exists()


@pytest.mark.parametrize("argv, pattern", [
    (["--command", "solver {params} {instance}"], "`--command` of `maxent-util race` must be a "
                                                  "command with {config}"),
    (["--dataset", "satcomp2021-main"], "argument --command: races real runs"),
    (["--jobs", "2", "--dask", "tcp://127.0.0.1:1"], "argument --jobs: not with --dask"),
    (["--clock", "user"], "argument --clock: invalid choice: 'user'"),
    (["--runs", "r.jsonl", "--naive"], "--naive needs --epsilon"),
    (["--configs", "1000001"], "argument --configs: at most 100,000 configurations in one race"),
    (["--runs", "a\0b"], "`runs` of `RunLog` must be a file that can be written"),
])
def test_command_race_options_are_checked(capsys, sleeper, argv, pattern):
    assert_usage_error(*run(capsys, *sleeper, *argv), pattern)


def test_command_options_need_a_command(capsys):
    assert_usage_error(*run(capsys, "race", "--dataset", "satcomp2021-main", "--utility",
                            "pareto(60, 1)", "--delta", "0.1", "--runs", "r.jsonl"),
                       "argument --runs: only with --command")


@pytest.mark.skipif(shutil.which("minisat") is None, reason="minisat is not installed")
def test_minisat_raced_from_the_command_line(capsys, tmp_path, monkeypatch):
    cnfgen = pytest.importorskip("cnfgen")
    monkeypatch.chdir(tmp_path)
    names = []
    for seed in range(3):  # 60 variables at the threshold: a few milliseconds each
        (tmp_path / f"r{seed}.cnf").write_text(cnfgen.RandomKCNF(3, 60, 255, seed=seed).to_dimacs())
        names.append(f"r{seed}.cnf")
    (tmp_path / "instances.txt").write_text("\n".join(names) + "\n")
    shutil.copy(__import__("conftest").ROOT / "examples" / "minisat.pcs", tmp_path)
    status, out, err = run(capsys, "race", "--command", "minisat -verb=0 {config} {instance}",
                           "--space", "minisat.pcs", "--instances", "instances.txt", "--configs",
                           "2", "--utility", "pareto(0.02, 1)", "--delta", "0.1", "--first-run-limit", "0.5",
                           "--run-limit", "1", "--exit-code", "10", "--exit-code", "20",
                           "--clock", "cpu", "--jobs", "2")
    assert status == 0, err
    header, runs = _runs(tmp_path / "runs.jsonl")
    space = ParameterSpace.read(tmp_path / "minisat.pcs")
    assert header["configurations"]["default"] == space.words(space.default())
    assert header["clock"] == "cpu" and header["instances"] == names
    assert len(runs) == 9 and all(r["runtime"] is not None for r in runs)  # every one answered
    incumbent = out.split("incumbent: ")[1].split(" ")[0]
    words = " ".join(header["configurations"][incumbent]) or "(none: the defaults)"
    assert f"  its words: {words}\n" in out
    assert "9 runs made, 0 replayed from runs.jsonl" in out


def test_read_instances_keeps_the_file_s_order(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name in ("b", "a b", "./-x"):
        (tmp_path / name).write_text("")
    (tmp_path / "list").write_text("b\r\na b\n\n./-x")
    assert read_instances(tmp_path / "list") == ["b", "a b", "./-x"]
    with pytest.raises(DataError, match="`instances` of `read_instances` must be a readable"):
        read_instances(tmp_path / "absent")


def test_a_run_log_refuses_lines_that_are_not_runs_of_its_race(tmp_path):
    table = pd.DataFrame({"algorithm": ["a", "b"], "instance": ["i", "i"], "runtime": [1.0, 2.0],
                          "status": "solved", "cutoff": 9.0})
    header = {"configurations": {"a": [], "b": []}, "instances": ["i"]}
    path = tmp_path / "runs.jsonl"
    with RunLog(TableRunner(table), path, header) as log:
        assert log.run_many(["a", "b"], ["i", "i"], 5.0).tolist() == [1.0, 2.0]
    good = path.read_text()
    for line, pattern in [('{"config": "z", "instance": "i", "run_limit": 5.0, "runtime": 1.0}',
                           "must be runs of the header's configurations"),
                          ('{"config": "a", "instance": "i", "run_limit": 5.0, "runtime": -1}',
                           "runtime of at least 0 seconds"),
                          ('{"config": "a", "instance": "i", "run_limit": NaN, "runtime": 1}',
                           "positive run_limit"),
                          ("[[[[", "line 4 is not JSON")]:
        path.write_text(good + line + "\n")
        with pytest.raises(DataError, match=pattern):
            RunLog(TableRunner(table), path, header)
    # a last line cut short by a crash is dropped; the runs before it are replayed
    path.write_text(good + '{"config": "a", "instance": "i", "capt')
    with RunLog(TableRunner(table), path, header) as log:
        assert log.run_many(["a", "b"], ["i", "i"], 5.0).tolist() == [1.0, 2.0]
        assert (log.replayed, log.ran) == (2, 0)
    assert path.read_text() == good
    # a failure is recorded as null and replayed as a run that never finishes
    path.write_text(good + '{"config": "a", "instance": "i", "run_limit": 7.0, "runtime": null}\n')
    with RunLog(TableRunner(table), path, header) as log:
        assert log.run("a", "i", 7.0) == float("inf") and log.ran == 0


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(tail=st.binary(max_size=200))
def test_whatever_follows_a_log_s_header_is_read_as_runs_or_refused(tmp_path, tail):
    # a hostile or damaged log: a DataError naming the file, or runs of this race; never
    # another exception, and the header's race is never replaced
    table = pd.DataFrame({"algorithm": ["a"], "instance": ["i"], "runtime": [1.0],
                          "status": "solved", "cutoff": 9.0})
    header = {"configurations": {"a": []}, "instances": ["i"]}
    path = tmp_path / "runs.jsonl"
    path.unlink(missing_ok=True)
    RunLog(TableRunner(table), path, header).close()
    first = path.read_bytes()
    path.write_bytes(first + tail)
    try:
        with RunLog(TableRunner(table), path, header) as log:
            assert log.run("a", "i", 5.0) == 1.0
    except DataError as error:
        assert "runs.jsonl" in str(error)
    assert path.read_bytes().startswith(first)


def test_an_instances_list_that_is_a_fifo_is_refused_without_waiting(tmp_path):
    from maxent_util.racing import read_instances

    fifo = tmp_path / "instances.txt"
    os.mkfifo(fifo)
    with pytest.raises(DataError, match=r"must be a regular file listing instances; got '.*"
                                        r"instances\.txt'\. \(a folder, FIFO, device or socket\)$"):
        read_instances(fifo)
