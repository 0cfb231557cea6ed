"""Runs stopped where the utility is worth nothing: :func:`worthless_from`, and the races and
the configurators' target that stop there by default.

References: ``uniform(k)`` is ``u(t) = 1 - t/k`` before ``k`` and 0 from ``k`` on (the
uniform captime law's survival, the paper's appendix), so it is worthless from ``k``; the
piecewise utility below is 0 from its last breakpoint, 3; ``exp(-t)`` falls to ``epsilon`` at
``-ln(epsilon)``; ``pareto(1, 1)`` is ``1/t`` beyond 1, never 0.
"""

from __future__ import annotations

import math
import sys

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from maxent_util.errors import DataError
from maxent_util.export import CostTarget, export_irace
from maxent_util.racing import TableRunner, naive, up, worthless_from
from maxent_util.ranking import parse_rule


def test_worthless_from_the_known_zeros():
    assert worthless_from("uniform(60)") == 60.0
    assert worthless_from("Piecewise((1, t < 1), (0.5, t < 3), (0, True))") == 3.0
    assert worthless_from("Piecewise((1, t < 1), (0.5, t < 3), (0, True))", epsilon=0.7) == 1.0
    assert worthless_from("pareto(1, 1)") == math.inf
    assert worthless_from("exp(-t)") == math.inf  # tiny, but never 0
    assert worthless_from("exp(-t)", epsilon=0.01) == pytest.approx(math.log(100), rel=1e-12)
    for bad in (-0.1, 1.0, float("nan")):
        with pytest.raises(DataError, match=r"`epsilon` of `worthless_from` must be a number "
                                            r"in \[0, 1\)"):
            worthless_from("uniform(60)", epsilon=bad)


@settings(max_examples=15, deadline=None)
@given(scale=st.floats(0.01, 1e4), epsilon=st.floats(0.0, 0.99))
def test_worthless_from_is_the_first_runtime_at_or_below_the_level(scale, epsilon):
    u = parse_rule(f"uniform({scale!r})")
    found = worthless_from(u, epsilon=epsilon)
    # 1 - t/scale <= epsilon from scale (1 - epsilon) on: the double found is there, its
    # predecessor is not
    assert found == pytest.approx(scale * (1 - epsilon), rel=1e-9)
    assert float(u(found)) <= epsilon < float(u(np.nextafter(found, 0)))


@pytest.fixture
def table():
    # two algorithms on 40 instances; b's runs go on past the utility's zero at 2 s
    rng = np.random.default_rng(5)
    runtimes = np.concatenate([rng.uniform(0.1, 1.5, 40), rng.uniform(0.5, 9.0, 40)])
    return pd.DataFrame({"algorithm": ["a"] * 40 + ["b"] * 40,
                         "instance": [f"i{j}" for j in range(40)] * 2,
                         "runtime": runtimes, "status": "solved", "cutoff": 10.0})


def test_up_stops_runs_where_the_utility_is_zero_with_the_same_decisions(table):
    runner = TableRunner(table)
    # started at 5 s, past the zero at 2 s: every run of b past 2 s is stopped there
    stopped = up(runner, None, None, "uniform(2)", 0.2, first_run_limit=5.0, seed=0)
    whole = up(runner, None, None, "uniform(2)", 0.2, first_run_limit=5.0, seed=0, worthless=None)
    same = ["m", "incumbent", "epsilon", "lcb", "ucb", "survivors"]
    assert stopped[same].equals(whole[same])
    assert stopped.attrs["worthless_from"] == 2.0 and stopped["run_limit_max"].max() == 2.0
    spent, spent_whole = stopped["total_time"].iloc[-1], whole["total_time"].iloc[-1]
    assert spent < spent_whole
    # what the stop saved is at most what it says (the runs past 2 s would have gone to 5 s)
    assert 0 < spent_whole - spent <= stopped.attrs["saved"] + 1e-9
    assert whole.attrs["saved"] == 0.0


def test_naive_stops_runs_where_the_utility_is_zero_with_the_same_means(table):
    runner = TableRunner(table)
    stopped = naive(runner, None, None, "uniform(2)", 0.9, 0.2, 10.0, seed=0)
    whole = naive(runner, None, None, "uniform(2)", 0.9, 0.2, 10.0, seed=0, worthless=None)
    assert stopped.means.equals(whole.means) and stopped.m == whole.m
    assert stopped.run_limit == 2.0 and whole.run_limit == 10.0
    # every run of b past 2 s is stopped there; without the stop it runs to its end (< 10 s)
    assert 0 < whole.total_time - stopped.total_time <= stopped.saved
    with pytest.raises(DataError, match=r"`worthless` of `naive` must be None or a number in "
                                        r"\[0, 1\); got 2"):
        naive(runner, None, None, "uniform(2)", 0.9, 0.2, 10.0, worthless=2)


def test_a_cost_target_stops_a_run_where_it_is_worth_nothing(tmp_path):
    sleep = [sys.executable, "-S", "-c", "import time; time.sleep(5)", "{config}", "{instance}"]
    target = CostTarget(sleep, "uniform(0.3)", 2.0)
    assert (target.limit, target.cutoff) == (0.3, 2.0)
    result = target.run([], "i")
    # worth 0 from 0.3 s on: stopped there, and costed as a run capped at the cutoff
    assert result.status == "capped" and result.runtime >= 0.3 and result.cost == 1.0
    assert 0 < target.saved == pytest.approx(2.0 - result.runtime)
    assert CostTarget(sleep, "uniform(0.3)", 2.0, worthless=None).limit == 2.0
    assert CostTarget(sleep, "pareto(0.3, 1)", 2.0).limit == 2.0
    folder = export_irace(tmp_path, ["solver", "{config}", "{instance}"], "uniform(0.3)", 2.0)
    runner = (folder / "target-runner").read_text()
    assert "CUTOFF = 2.0" in runner and "STOP = 0.3" in runner
