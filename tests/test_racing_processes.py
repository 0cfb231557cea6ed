"""ProcessRunner (maxent_util.processes): real commands under real time limits.

Every test runs tiny real child processes (``python -c`` scripts or ``sh``) with captimes of at
most a second. Whether a process the command left behind survived is read from the pid file it
wrote and from /proc (a zombie counts as ended: it runs nothing, and the container's init may
reap it late); every process a test starts is killed at its end, fix or no fix.
"""

from __future__ import annotations

import json
import math
import os
import signal
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import maxent_util
from maxent_util import racing
from maxent_util.errors import DataError
from maxent_util.processes import ProcessRunner
from maxent_util.racing import up

PYTHON = sys.executable
SLEEP = "import sys, time; time.sleep(float(sys.argv[1]))"
LINUX = sys.platform.startswith("linux") and Path("/proc/self/stat").exists()


def test_the_runner_is_importable_where_it_was():
    assert racing.ProcessRunner is ProcessRunner is maxent_util.ProcessRunner
    assert "ProcessRunner" in racing.__all__


PYTHON = sys.executable
SLEEP = "import sys, time; time.sleep(float(sys.argv[1]))"


def test_process_runner_times_a_run_that_finishes():
    runner = ProcessRunner([PYTHON, "-c", SLEEP, "{instance}"])
    runtime = runner.run("any", "0.05", 60.0)
    assert 0.05 <= runtime < 60.0
    cpu = ProcessRunner([PYTHON, "-S", "-c", SLEEP, "{instance}"], clock="cpu")
    # sleeping costs no CPU: 0.4 s of sleep finishes within a CPU captime of 0.3 s
    assert 0 <= cpu.run("any", "0.4", 0.3) < 0.3


def test_process_runner_kills_the_whole_process_group_at_the_captime(tmp_path):
    pid_file = tmp_path / "grandchild.pid"
    script = ("import subprocess, sys, time, pathlib\n"
              "path = pathlib.Path(sys.argv[2])\n"
              "subprocess.Popen([sys.executable, '-c', 'import os, sys, time, pathlib; "
              "pathlib.Path(sys.argv[1]).write_text(str(os.getpid())); time.sleep(60)', "
              "sys.argv[2] + '.tmp'])\n"
              "while not pathlib.Path(sys.argv[2] + '.tmp').exists(): time.sleep(0.01)\n"
              "pathlib.Path(sys.argv[2] + '.tmp').rename(path)\n"
              "time.sleep(float(sys.argv[1]))\n")
    runner = ProcessRunner([PYTHON, "-c", script, "{instance}", str(pid_file)])
    runtime = runner.run("c", "60", 0.8)
    assert runtime >= 0.8  # capped: the captime or more
    assert pid_file.exists(), "the grandchild had not started; nothing was checked"
    pid = int(pid_file.read_text())
    for _ in range(200):  # killed with its group; init reaps it
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.01)
    else:
        pytest.fail("the command's own child outlived the captime")


def test_an_interrupted_run_kills_its_command(tmp_path):
    pid_file = tmp_path / "command.pid"
    script = ("import os, sys, time, pathlib; pathlib.Path(sys.argv[1] + '.tmp').write_text("
              "str(os.getpid())); os.rename(sys.argv[1] + '.tmp', sys.argv[1]); time.sleep(60)")
    runner = ProcessRunner([PYTHON, "-c", script, str(pid_file)])

    def interrupt(*_):
        raise KeyboardInterrupt  # what Ctrl-C does; the command, in its own session, sees none

    previous = signal.signal(signal.SIGALRM, interrupt)
    signal.setitimer(signal.ITIMER_REAL, 1.0)
    try:
        with pytest.raises(KeyboardInterrupt):
            runner.run("c", "i", 60.0)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    if not pid_file.exists():
        pytest.skip("the command had not started within a second; nothing to check")
    with pytest.raises(ProcessLookupError):  # killed and reaped
        os.kill(int(pid_file.read_text()), 0)


def test_process_runner_cpu_limit_stops_a_busy_loop():
    runner = ProcessRunner([PYTHON, "-S", "-c", "while True: pass"], clock="cpu")
    assert runner.run("c", "i", 0.2) >= 0.2  # capped (the kernel stops it at 1 s of CPU)


def test_process_runner_passes_hostile_words_as_single_arguments(tmp_path):
    out = tmp_path / "argv.json"
    echo = "import sys, json, pathlib; pathlib.Path(sys.argv[1]).write_text(json.dumps(sys.argv[2:]))"
    hostile = "a b; rm -rf / $(touch pwned) `id` 'q' \"r\" {config}"
    runner = ProcessRunner(f"{PYTHON} -c '{echo}' {out} {{config}} x{{instance}} {{captime}}")
    runner.run(["-luby", "--rinc=2 ; ls"], hostile, 30.0)
    assert json.loads(out.read_text()) == ["-luby", "--rinc=2 ; ls", "x" + hostile, "30.0"]
    assert not (tmp_path / "pwned").exists() and not os.path.exists("pwned")
    assert runner.arguments("one word", "i", 1)[-3] == "one word"
    named = ProcessRunner("solver {config} {instance}", configurations={"luby": ["-luby", "-x=1"]})
    assert named.arguments("luby", "f.cnf", 1) == ["solver", "-luby", "-x=1", "f.cnf"]
    assert named.arguments("other", "f.cnf", 1) == ["solver", "other", "f.cnf"]


def test_process_runner_failures_and_bad_commands():
    failing = [PYTHON, "-c", "import sys; sys.exit(3)"]
    assert ProcessRunner(failing).run("c", "i", 30.0) == math.inf  # never finishes
    assert ProcessRunner(failing, exit_codes=[3, 10]).run("c", "i", 30.0) < 30.0  # finished
    with pytest.raises(DataError, match="`exit_codes` of `ProcessRunner`"):
        ProcessRunner("true", exit_codes=[])
    with pytest.raises(DataError, match="`configurations` of `ProcessRunner`"):
        ProcessRunner("true", configurations={"a": "-luby"})
    with pytest.raises(DataError, match=r"exits with status 0; got .*\(it exited with status 3\)"):
        ProcessRunner(failing, failures="raise").run("c", "i", 30.0)
    with pytest.raises(DataError, match="`command` of `ProcessRunner` must be a command line shlex"):
        ProcessRunner("python -c 'unclosed")
    with pytest.raises(DataError, match="`command` of `ProcessRunner` must be a command to run"):
        ProcessRunner("   ")
    with pytest.raises(DataError, match="`clock` of `ProcessRunner` must be 'wall' or 'cpu'"):
        ProcessRunner("true", clock="sundial")
    with pytest.raises(DataError, match="must be a command that can be started"):
        ProcessRunner(["/nonexistent/solver-xyz"]).run("c", "i", 1.0)
    with pytest.raises(DataError, match="`captime` of `ProcessRunner.run`"):
        ProcessRunner("true").run("c", "i", -1.0)


def test_process_runner_races_in_parallel_on_an_executor():
    with ThreadPoolExecutor(max_workers=4) as pool:
        runner = ProcessRunner([PYTHON, "-S", "-c", SLEEP, "{config}"], executor=pool)
        got = runner.run_many(["0.01", "0.01", "2", "2"], ["i", "j", "i", "j"], [30, 30, 0.3, 0.3])
        assert (got[:2] < 30).all() and (got[2:] >= 0.3).all()
        # a small race of real commands: the configuration is the sleep, the instance unused
        trace = up(runner, ["0.01", "3"], ["i", "j", "k"], "exp(-t)", 0.5, k0=0.2, seed=0)
    assert trace.attrs["configurations"].loc["3", "completed"] == 0
    assert trace["incumbent"].iloc[-1] == "0.01"


