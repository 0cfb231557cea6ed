"""A race of real commands on a Dask cluster whose workers are processes.

The commands sleep for their configuration's seconds, far enough apart (0, 0.2, and 3 stopped
at the limit) that every decision of the race is the same whatever the machine's load: the
cluster's race must then take the serial race's decisions, round by round. The runtimes
themselves are measured, so they are compared only through those decisions.
"""

from __future__ import annotations

import os
import sys

import pytest

from maxent_util.processes import ProcessRunner
from maxent_util.racing import up

SLEEP = "import sys, time; time.sleep(float(sys.argv[1]))"
CONFIGS = ["0", "0.2", "3"]
INSTANCES = ["i", "j", "k"]
#: the columns of UP's trace that follow from its decisions alone (total_time is measured)
DECISIONS = ["m", "incumbent", "epsilon", "survivors", "captime_min", "captime_max"]


def _race(executor=None):
    runner = ProcessRunner([sys.executable, "-S", "-c", SLEEP, "{config}"], executor=executor)
    return up(runner, CONFIGS, INSTANCES, "exp(-t)", 0.5, k0=1.0, seed=0)


def test_a_race_on_worker_processes_takes_the_serial_race_s_decisions():
    distributed = pytest.importorskip("distributed")
    serial = _race()
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=":0", silence_logs=50) as cluster, \
            distributed.Client(cluster) as client:
        pids = set(client.run(os.getpid).values())
        clustered = _race(client)
    assert len(pids) == 2 and os.getpid() not in pids  # two worker processes
    assert clustered[DECISIONS].equals(serial[DECISIONS])
    assert clustered.attrs["incumbent"] == serial.attrs["incumbent"] == "0"
    completed = ["completed", "alive", "dropped", "captime"]
    assert clustered.attrs["configurations"][completed].equals(serial.attrs["configurations"][completed])
