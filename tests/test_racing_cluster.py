"""A race of real commands on a Dask cluster whose workers are processes, one of them killed.

The commands sleep for their configuration's seconds, far enough apart (0, 0.2, and 3 stopped
at the limit of 1 s) that every decision of the race is the same whatever the machine's load:
the cluster's race must then take the serial race's decisions, round by round, and so must a
race during which a worker process is killed (Dask runs the lost runs again on a worker that
lives; the nanny starts a new one). The runtimes themselves are measured, so they are compared
only through those decisions.
"""

from __future__ import annotations

import os
import signal
import sys
import threading

import pytest

from maxent_util.processes import ProcessRunner
from maxent_util.racing import up

SLEEP = "import sys, time; time.sleep(float(sys.argv[1]))"
CONFIGS = ["0", "0.2", "3"]
INSTANCES = ["i", "j", "k"]
#: the columns of UP's trace that follow from its decisions alone (total_time is measured)
DECISIONS = ["m", "incumbent", "epsilon", "survivors", "run_limit_min", "run_limit_max"]
PER_CONFIGURATION = ["completed", "alive", "dropped", "run_limit"]


def _race(executor=None):
    runner = ProcessRunner([sys.executable, "-S", "-c", SLEEP, "{config}"], executor=executor)
    return up(runner, CONFIGS, INSTANCES, "exp(-t)", 0.5, first_run_limit=1.0, seed=0)


@pytest.fixture(scope="module")
def client():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=":0", silence_logs=50) as cluster, \
            distributed.Client(cluster) as client:
        yield client


@pytest.fixture(scope="module")
def serial():
    return _race()


def _same_decisions(race, serial):
    assert race[DECISIONS].equals(serial[DECISIONS])
    assert race.attrs["incumbent"] == serial.attrs["incumbent"] == "0"
    assert race.attrs["configurations"][PER_CONFIGURATION].equals(
        serial.attrs["configurations"][PER_CONFIGURATION])


def test_a_race_on_worker_processes_takes_the_serial_race_s_decisions(client, serial):
    pids = set(client.run(os.getpid).values())
    assert len(pids) == 2 and os.getpid() not in pids  # two processes apart from this one
    _same_decisions(_race(client), serial)


def test_a_worker_killed_in_the_middle_of_a_race_loses_no_run(client, serial):
    before = client.run(os.getpid)
    victim = next(iter(before.values()))
    killed = threading.Event()

    def kill_when_busy():
        # once the worker holds a run, not before: its run is the one lost and run again
        while not killed.is_set():
            if any(client.processing().values()):
                os.kill(victim, signal.SIGKILL)
                killed.set()
                return
            threading.Event().wait(0.05)

    thread = threading.Thread(target=kill_when_busy, daemon=True)
    thread.start()
    try:
        race = _race(client)
    finally:
        killed.set()
        thread.join(10)
    client.wait_for_workers(2, timeout=60)
    assert victim not in client.run(os.getpid).values()  # it died, and the nanny replaced it
    _same_decisions(race, serial)
