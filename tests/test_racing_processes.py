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
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import maxent_util
from maxent_util import racing
from maxent_util.errors import DataError
from maxent_util.processes import ProcessRunner, plain_name
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
    # killed with its group (init reaps it when it will: a zombie has ended)
    assert _ended_soon(pid) if LINUX else _gone_soon(pid), \
        "the command's own child outlived the captime"


def _gone_soon(pid):
    for _ in range(500):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.01)
    return False


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


def test_a_solver_that_catches_the_cpu_limit_and_exits_with_a_failure_is_capped():
    # minisat catches SIGXCPU, prints INTERRUPTED and exits 1: a capped run, not a crash
    handler = "import signal, sys\nsignal.signal(signal.SIGXCPU, lambda *a: sys.exit(1))\nwhile True: pass"
    runner = ProcessRunner([PYTHON, "-S", "-c", handler], clock="cpu")
    assert 0.2 <= runner.run("c", "i", 0.2) < float("inf")
    # a failure before the captime is still a failure
    assert ProcessRunner([PYTHON, "-S", "-c", "raise SystemExit(1)"], clock="cpu").run("c", "i", 5.0) == float("inf")


def test_process_runner_passes_hostile_words_as_single_arguments(tmp_path):
    out = tmp_path / "argv.json"
    echo = "import sys, json, pathlib; pathlib.Path(sys.argv[1]).write_text(json.dumps(sys.argv[2:]))"
    hostile = "a b; rm -rf / $(touch pwned) `id` 'q' \"r\" {config}"
    runner = ProcessRunner(f"{PYTHON} -c '{echo}' {out} {{config}} {{instance}} -t={{run_limit}}")
    runner.run(["-luby", "--rinc=2 ; ls"], hostile, 30.0)
    assert json.loads(out.read_text()) == ["-luby", "--rinc=2 ; ls", hostile, "-t=30.0"]
    assert not (tmp_path / "pwned").exists() and not os.path.exists("pwned")
    assert runner.arguments("one word", "i", 1)[-3] == "one word"
    named = ProcessRunner("solver {config} {instance}", configurations={"luby": ["-luby", "-x=1"]})
    assert named.arguments("luby", "f.cnf", 1) == ["solver", "-luby", "-x=1", "f.cnf"]
    # a declared set of configurations is the whole space: another name is refused
    with pytest.raises(DataError, match=r"`config` of `ProcessRunner.arguments` must be one of "
                       r"the configurations declared; got 'other'"):
        named.arguments("other", "f.cnf", 1)


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
    with pytest.raises(DataError, match="`run_limit` of `ProcessRunner.run`"):
        ProcessRunner("true").run("c", "i", -1.0)


def test_process_runner_races_in_parallel_on_an_executor():
    with ThreadPoolExecutor(max_workers=4) as pool:
        runner = ProcessRunner([PYTHON, "-S", "-c", SLEEP, "{config}"], executor=pool)
        got = runner.run_many(["0.01", "0.01", "2", "2"], ["i", "j", "i", "j"], [30, 30, 0.3, 0.3])
        assert (got[:2] < 30).all() and (got[2:] >= 0.3).all()
        # a small race of real commands: the configuration is the sleep, the instance unused
        trace = up(runner, ["0.01", "3"], ["i", "j", "k"], "exp(-t)", 0.5, first_run_limit=0.2, seed=0)
    assert trace.attrs["configurations"].loc["3", "completed"] == 0
    assert trace["incumbent"].iloc[-1] == "0.01"




# ---------------------------------------------------------------------------
# placeholders: filled once, never in what was filled


def test_each_placeholder_is_filled_once_and_values_are_never_read_again(tmp_path):
    runner = ProcessRunner(["solver", "{config}", "-i={instance}", "{run_limit}", "{{instance}}"],
                           shell_ok=True)  # names joined to text: the caller's own choice
    # an instance named {run_limit} stays {run_limit}; a configuration naming {instance} too
    assert runner.arguments("{instance}", "{run_limit}", 5) == [
        "solver", "{instance}", "-i={run_limit}", "5.0", "{{run_limit}}"]
    assert runner.arguments(["-a={instance}", "{run_limit}"], "x", 5)[1:3] == [
        "-a={instance}", "{run_limit}"]
    out = tmp_path / "argv.json"
    echo = ("import sys, json, pathlib; "
            "pathlib.Path(sys.argv[1]).write_text(json.dumps(sys.argv[2:]))")
    ProcessRunner([PYTHON, "-c", echo, str(out), "{instance}", "{config}"]).run(
        "{run_limit}", "{config}{instance}", 30.0)
    assert json.loads(out.read_text()) == ["{config}{instance}", "{run_limit}"]


names = st.text(st.characters(blacklist_characters="\0", blacklist_categories=("Cs",)),
                max_size=30) | st.sampled_from(["{run_limit}", "{instance}", "{config}",
                                                "{{config}}", "{instance}{run_limit}"])


@settings(max_examples=150, deadline=None)
@given(names, names, st.floats(1e-3, 1e6))
def test_filled_words_are_the_template_with_each_placeholder_replaced_once(config, instance,
                                                                            captime):
    runner = ProcessRunner(["solver", "--cap={run_limit}", "{config}", "x{instance}y{config}",
                            "{instance}"], shell_ok=True)
    assume(plain_name(instance))  # else refused (test_an_instance_must_be_a_plain_name)
    expected = ["solver", f"--cap={captime!r}", config, f"x{instance}y{config}", instance]
    assert runner.arguments(config, instance, captime) == expected

# ---------------------------------------------------------------------------
# templates that hand a placeholder to a shell (or another reader of code)

REFUSED = [
    ["sh", "-c", "solver {instance}"],
    "sh -c 'solver {instance}'",
    ["bash", "-c", "solver --cap={run_limit} {instance}"],
    ["/bin/sh", "-ec", "solver {instance}"],
    ["/usr/bin/dash", "-c", "solver {config}"],
    ["zsh", "-o", "pipefail", "-c", "solver {instance}"],
    ["ksh93", "-c", "{instance}"],
    ["fish", "--command", "solver {instance}"],
    ["env", "sh", "-c", "solver {instance}"],
    ["/usr/bin/env", "-i", "PATH=/bin", "bash", "-lc", "solver {instance}"],
    ["env", "-S", "sh -c 'solver {instance}'"],
    ["timeout", "5", "bash", "-c", "solver {instance}"],
    ["busybox", "sh", "-c", "solver {instance}"],
    ["sh", "{instance}"],                     # the instance is the script
    ["bash", "--rcfile", "{config}", "run.sh"],  # an option's value is a file of code
    ["cmd", "/c", "solver {instance}"],
    ["cmd.exe", "/C", "solver.exe", "{instance}"],  # cmd reads every word as its own line
    ["powershell", "-Command", "solver {instance}"],
    ["pwsh", "-c", "solver", "{instance}"],
    ["ssh", "host", "solver", "{instance}"],   # the remote shell reads the words
    [PYTHON, "-c", "print('{instance}')"],
    ["python3.12", "-Sc", "import os; os.system('{instance}')"],
    ["python", "-c{instance}"],
    ["python", "-m", "{config}"],
    ["python", "{instance}"],
    ["perl", "-e", "system('{instance}')"],
    ["perl", "-lne", "print '{instance}'"],
    ["perl", "-e", "print @ARGV", "{config}"],  # a configuration "-esystem(...)" is more code
    ["ruby", "-e", "puts '{instance}'"],
    ["node", "--eval", "run('{instance}')"],
    ["awk", "BEGIN {{ system(\"{instance}\") }}"],
    ["{config}", "{instance}"],               # the program itself is a placeholder
]

ACCEPTED = [
    "minisat {config} {instance}",
    [PYTHON, "-c", SLEEP, "{instance}"],      # after the code: sys.argv, data
    [PYTHON, "-S", "solver.py", "{config}", "{instance}"],
    ["sh", "-c", 'exec solver "$1" "$2"', "sh", "{config}", "{instance}"],  # positional: data
    ["sh", "run.sh", "{instance}"],
    ["perl", "-e", "print @ARGV", "--", "{instance}"],
    ["perl", "-e", "print @ARGV", "{instance}"],  # an instance never starts with "-"
    ["env", "OMP_NUM_THREADS=1", "solver", "{instance}"],
    ["timeout", "{run_limit}", "solver", "{instance}"],
]


@pytest.mark.parametrize("command", REFUSED, ids=str)
def test_a_template_that_hands_a_placeholder_to_a_shell_is_refused(command):
    with pytest.raises(DataError, match=r"`command` of `ProcessRunner` must be a command whose "
                       r"program, options, script and code hold no placeholder; got .*"
                       r"shell_ok=True"):
        ProcessRunner(command)
    assert ProcessRunner(command, shell_ok=True).words  # the caller's own choice, said aloud


@settings(max_examples=80, deadline=None)
@given(st.sampled_from(["sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "csh", "tcsh",
                        "busybox sh", "env sh", "env -i bash", "timeout 9 sh"]),
       st.sampled_from(["", "/bin/", "/usr/local/bin/", "C:\\tools\\"]),
       st.sampled_from(["", ".exe", "5.2"]),
       st.sampled_from(["-c", "-ec", "-xc", "-lc", "-o pipefail -c", "-c --"]),
       st.sampled_from(["{instance}", "{config}", "{run_limit}", "run {instance} now"]))
def test_a_shell_is_recognised_by_any_path_wrapper_and_option_spelling(shell, folder, suffix,
                                                                      options, code):
    *wrapper, program = shell.split()
    command = [*wrapper, folder + program + suffix, *options.split(), code, "name", "x"]
    with pytest.raises(DataError, match="shell_ok=True"):
        ProcessRunner(command)

@pytest.mark.parametrize("command", ACCEPTED, ids=str)
def test_a_placeholder_given_as_data_is_accepted(command):
    assert ProcessRunner(command).words


def test_a_shell_template_would_run_an_instance_name_as_code(tmp_path):
    pwned = tmp_path / "pwned"
    command = ["sh", "-c", "true {instance}"]
    with pytest.raises(DataError, match="shell_ok=True"):
        ProcessRunner(command)
    # what shell_ok=True accepts: the name runs (hence the refusal without it)
    ProcessRunner(command, shell_ok=True).run("c", f"x; touch {pwned}", 30.0)
    assert pwned.exists()
    with pytest.raises(DataError, match="`shell_ok` of `ProcessRunner` must be True or False"):
        ProcessRunner("solver {instance}", shell_ok="yes")


# ---------------------------------------------------------------------------
# time limits a timer can keep, and words a process can take


def test_a_captime_beyond_what_a_timer_can_wait_is_refused():
    limit = threading.TIMEOUT_MAX
    runner = ProcessRunner([PYTHON, "-S", "-c", "pass"])
    assert runner.max_run_limit == limit
    for captime in (1e300, 2 * limit, math.inf, math.nan, 0.0, -1.0, True, "5"):
        with pytest.raises(DataError, match=r"`run_limit` of `ProcessRunner.run` must be a "
                           r"positive number of seconds, at most 9\.2\d*e\+09"):
            runner.run("c", "i", captime)
    cpu = ProcessRunner([PYTHON, "-S", "-c", "pass"], clock="cpu", wall_factor=10)
    assert cpu.max_run_limit == limit / 10  # the elapsed-time limit is ten times the captime
    with pytest.raises(DataError, match=r"at most 9\.2\d*e\+08"):
        cpu.run("c", "i", limit / 5)
    with pytest.raises(DataError, match="`run_limit` of `ProcessRunner.run`"):
        runner.run_many(["c"], ["i"], [1e300])
    assert 0 <= runner.run("c", "i", limit) < limit  # the largest one works


def test_a_nul_byte_is_refused_naming_the_argument(tmp_path):
    runner = ProcessRunner([PYTHON, "-S", "-c", "pass", "{config}", "{instance}"])
    with pytest.raises(DataError, match=r"`instance` of `ProcessRunner.run` must be text "
                       r"without a NUL byte, a line break or a leading '-' \(an existing path "
                       r"or a plain name\); got 'a\\x00b'"):
        runner.run("c", "a\0b", 1.0)
    with pytest.raises(DataError, match=r"`config` of `ProcessRunner.run` must be"):
        runner.run(["-x", "y\0"], "i", 1.0)
    with pytest.raises(DataError, match=r"`instance` of `ProcessRunner.arguments` must be"):
        runner.arguments("c", "a\0b", 1.0)
    with pytest.raises(DataError, match=r"`command` of `ProcessRunner` must be words without "
                       r"a NUL byte"):
        ProcessRunner(["solver\0", "{instance}"])
    with pytest.raises(DataError, match=r"`cwd` of `ProcessRunner` must be a folder's path "
                       r"without a NUL byte; got '/tmp\\x00x'"):
        ProcessRunner("solver {instance}", cwd="/tmp\0x")
    with pytest.raises(DataError, match=r"`cwd` of `ProcessRunner` must be a folder's path"):
        ProcessRunner("solver {instance}", cwd=5)
    with pytest.raises(DataError, match=r"`cwd` of `ProcessRunner.run` must be an existing "
                       r"folder"):
        ProcessRunner([PYTHON, "-c", "pass"], cwd=tmp_path / "missing").run("c", "i", 1.0)
    assert ProcessRunner([PYTHON, "-S", "-c", "pass"], cwd=tmp_path).run("c", "i", 30.0) < 30.0


# ---------------------------------------------------------------------------
# what a command leaves behind: ended with it, at the captime and at a normal exit

SLEEPER = "maxent-util-test-sleeper"  # in every left-behind process' argv, for the clean-up
GRANDCHILD = ("import os, sys, time, pathlib; "
              "pathlib.Path(sys.argv[1] + '.tmp').write_text(str(os.getpid())); "
              "os.rename(sys.argv[1] + '.tmp', sys.argv[1]); time.sleep(30)")
# the command: starts a process that outlives it in one of several ways, waits until that
# process wrote its pid, then exits at once ("exit") or sleeps past the captime ("sleep")
COMMAND = f"""
import os, subprocess, sys, time, pathlib
how, then, pid_file = sys.argv[1:4]
grandchild = [sys.executable, '-S', '-c', {GRANDCHILD!r}, pid_file, {SLEEPER!r}]
if how == 'background':      # same process group, left running
    subprocess.Popen(grandchild)
elif how == 'setsid':        # a session (and process group) of its own
    subprocess.Popen(grandchild, start_new_session=True)
elif how == 'setsid-bare':   # its own session, and an empty environment
    subprocess.Popen(grandchild, start_new_session=True, env={{}})
elif how == 'daemon':        # the classic double fork: orphaned, in its own session
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            os.execv(sys.executable, grandchild)
        os._exit(0)
    os.wait()
while not pathlib.Path(pid_file).exists():
    time.sleep(0.005)
if then == 'sleep':
    time.sleep(30)
"""


def _alive(pid):
    """Whether a process runs (a zombie has ended: it only waits to be reaped)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return False
    return stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")


def _sleeper(pid):
    try:
        return SLEEPER in Path(f"/proc/{pid}/cmdline").read_text()
    except OSError:
        return False


@pytest.fixture
def left_behind(tmp_path):
    """The pid file a left-behind process writes; whatever survives is killed afterwards."""
    pid_file = tmp_path / "left.pid"
    yield pid_file
    if pid_file.exists():
        pid = int(pid_file.read_text())
        if _alive(pid) and _sleeper(pid):
            os.kill(pid, signal.SIGKILL)


def _ended_soon(pid):
    for _ in range(500):  # SIGKILL has been sent: it ends within moments, not seconds
        if not _alive(pid):
            return True
        time.sleep(0.01)
    return False


@pytest.mark.skipif(not LINUX, reason="the survivors are read from /proc")
@pytest.mark.parametrize("how, then", [
    ("background", "exit"),     # a grandchild left running by a command that finished in time
    ("setsid", "exit"),
    ("setsid", "sleep"),        # setsid() escapes the process group killed at the captime
    ("daemon", "exit"),         # a double-fork daemon
    ("daemon", "sleep"),
    ("setsid-bare", "sleep"),   # no environment to recognise it by: found as a descendant
])
def test_nothing_the_command_started_outlives_the_run(left_behind, how, then):
    runner = ProcessRunner([PYTHON, "-S", "-c", COMMAND, how, then, str(left_behind)])
    captime = 1.0
    runtime = runner.run("c", "i", captime)
    assert left_behind.exists(), "the process to leave behind had not started; nothing checked"
    if then == "sleep":
        assert runtime >= captime
    assert _ended_soon(int(left_behind.read_text())), f"a process left by {how!r} survived"


@pytest.mark.skipif(not LINUX, reason="the survivors are read from /proc")
def test_what_remains_uncovered_an_orphan_that_clears_its_environment_and_its_group(
        left_behind):
    # documented (docs/recipes/racing.md): a process in its own session, with an empty
    # environment, whose parent has exited before the run ends, is not found
    runner = ProcessRunner([PYTHON, "-S", "-c", COMMAND, "setsid-bare", "exit", str(left_behind)])
    if runner.run("c", "i", 1.0) >= 1.0:
        pytest.skip("the command did not exit within its captime here (a loaded machine)")
    assert left_behind.exists()
    assert _alive(int(left_behind.read_text()))


# ---------------------------------------------------------------------------
# the boundary between template and data, as docs/safety.md states it


def _boundary_rows():
    """The rows of docs/safety.md's boundary table: (programs, template, refused, why)."""
    text = (Path(__file__).parent.parent / "docs" / "safety.md").read_text(encoding="utf-8")
    table = text.split("<!-- boundary-table -->", 1)[1].strip().split("\n\n", 1)[0]
    rows = []
    for line in table.splitlines()[2:]:
        programs, template, refused, why = (cell.strip() for cell in line.strip("|").split(" | "))
        assert refused in ("yes", "no"), line
        rows.append((programs, template.strip("`"), refused == "yes", why))
    return rows


BOUNDARY = _boundary_rows()


def test_the_boundary_table_names_only_programs_the_runner_knows():
    from maxent_util.processes import _READERS
    assert len(BOUNDARY) >= 50
    for programs, *_ in BOUNDARY:
        for program in programs.split(", "):
            assert program == "any" or program.lower() in _READERS, program


@pytest.mark.parametrize("programs, template, refused, why", BOUNDARY,
                         ids=[row[1] for row in BOUNDARY])
def test_the_boundary_table_of_docs_safety_holds(programs, template, refused, why):
    if refused:
        with pytest.raises(DataError, match=r"`command` of `ProcessRunner` must be .*"
                           r"shell_ok=True if every name is trusted"):
            ProcessRunner(template)
        assert ProcessRunner(template, shell_ok=True).words  # the caller's choice, said aloud
    else:
        assert ProcessRunner(template).words


@pytest.mark.parametrize("template", ["solver {params} {instance}", ["solver", "{params}"],
                                      "solver --p={params} {instance}"])
def test_config_is_the_one_placeholder_and_params_is_refused_everywhere(tmp_path, template):
    # one name on every route: {params} would otherwise reach the command as text
    from maxent_util.export import CostTarget, export_irace

    pattern = (r"`command` of `{}` must be a command with \{{config\}} where the configuration "
               r"goes; got .*\{{params\}}.*Write \{{config\}} instead of \{{params\}}")
    with pytest.raises(DataError, match=pattern.format("ProcessRunner")):
        ProcessRunner(template, shell_ok=True)
    with pytest.raises(DataError, match=pattern.format("CostTarget")):
        CostTarget(template, "pareto(1, 1)", 1.0)
    with pytest.raises(DataError, match=pattern.format("export_irace")):
        export_irace(tmp_path, template, "pareto(1, 1)", 1.0)
    assert not any(tmp_path.iterdir())
    runner = ProcessRunner("solver {config} {instance}")
    assert runner.arguments(["-a", "-b=2"], "f.cnf", 1) == ["solver", "-a", "-b=2", "f.cnf"]


@pytest.mark.parametrize("instance", ["-rf", "--help", "a\nb", "a\rb", "a\u2028b", "a\x85b",
                                      "a\0b", ""])
def test_an_instance_must_be_a_plain_name(instance):
    runner = ProcessRunner([PYTHON, "-S", "-c", "pass", "{instance}"])
    with pytest.raises(DataError, match=r"`instance` of `ProcessRunner.arguments` must be text "
                       r"without a NUL byte, a line break or a leading '-'"):
        runner.arguments("c", instance, 1.0)
    assert runner.arguments("c", "./" + instance.lstrip("-") if instance.startswith("-")
                            else "x", 1.0)


@pytest.mark.skipif(not LINUX, reason="the survivors are read from /proc")
def test_an_interrupted_race_ends_every_process_it_started(tmp_path):
    # a race of `sleep` runs on a thread pool, interrupted by SIGINT (Ctrl-C) while its runs
    # are under way: no sleep outlives the race (without ending the runs under way, each one
    # would be waited for until its captime)
    seconds = f"{30 + os.getpid() % 1000 / 1000:.3f}"  # a duration no other sleep has
    script = f"""
import sys
from concurrent.futures import ThreadPoolExecutor
from maxent_util.processes import ProcessRunner
from maxent_util.racing import up
with ThreadPoolExecutor(2) as pool:
    runner = ProcessRunner(["sleep", "{{config}}"], configurations={{"a": ["{seconds}"],
                           "b": ["{seconds}"]}}, executor=pool)
    print("racing", flush=True)
    up(runner, ["a", "b"], ["i", "j"], "exp(-t)", 0.5, first_run_limit=40, seed=0)
"""
    child = subprocess.Popen([PYTHON, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "racing"

        def sleeps():
            found = []
            for name in os.listdir("/proc"):
                try:
                    argv = Path(f"/proc/{name}/cmdline").read_bytes().split(b"\0")
                except OSError:
                    continue
                if argv[:2] == [b"sleep", seconds.encode()] and _alive(int(name)):
                    found.append(int(name))
            return found

        for _ in range(1000):
            if len(sleeps()) == 2:
                break
            time.sleep(0.01)
        assert len(sleeps()) == 2, "the race's runs had not started"
        running = sleeps()
        child.send_signal(signal.SIGINT)  # the race stops ("interrupted") and returns its trace
        # ended within moments, not at their captime 30 s later
        assert all(_ended_soon(pid) for pid in running)
        assert child.wait(timeout=60) == 0
    finally:
        child.kill()
        child.wait()
        for pid in sleeps() if "sleeps" in locals() else ():
            os.kill(pid, signal.SIGKILL)


WRAPPERS = [["env"], ["env", "-i", "A=1"], ["timeout", "5"], ["timeout", "-k", "1", "5"],
            ["nice", "-n", "5"], ["nohup"], ["setsid"], ["sudo", "-u", "solver"], ["xargs"],
            ["stdbuf", "-o", "0"], ["taskset", "0x1"], ["ionice", "-c", "3"], ["doas"],
            ["strace", "-o", "log"], ["time"], ["npx"], ["/usr/bin/env"], ["busybox"]]


@settings(max_examples=120, deadline=None)
@given(st.lists(st.sampled_from(WRAPPERS), min_size=1, max_size=4),
       st.sampled_from(["{instance}", "{config}", "{run_limit}"]))
def test_wrappers_compose_and_never_run_a_name(chain, placeholder):
    prefix = [word for wrapper in chain for word in wrapper]
    with pytest.raises(DataError, match="runs this word as a program"):
        ProcessRunner([*prefix, placeholder, "x"])
    # the same chain running a program of the template's own takes names as data
    assert ProcessRunner([*prefix, "solver", "{config}", "{instance}"]).words


@pytest.mark.skipif(not os.path.exists(f"/proc/{os.getpid()}/stat"), reason="no /proc here")
def test_a_cpu_limit_between_whole_seconds_stops_the_run_there():
    # the kernel's RLIMIT_CPU counts whole seconds (1 s here); the runner watches the 0.3 s
    spin = ProcessRunner([PYTHON, "-S", "-c", "while True: pass", "{instance}"], clock="cpu")
    runtime = spin.run("c", "i", 0.3)
    assert 0.3 <= runtime < 0.9  # CPU seconds, not elapsed ones
