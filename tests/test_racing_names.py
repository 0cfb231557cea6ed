"""The run limit's names in the library (one name per idea): where a race or a runner stops a run
is its run limit, and the old names (``k0``, ``captime``, ``max_captime``, ``{captime}``) still
work with a DeprecationWarning that names the new one, or are refused with a hint.

References: the old and the new name of an argument go to the same code, so each result is
compared with the same call by the new name (no hard-coded result)."""

from __future__ import annotations

import math
import sys
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from maxent_util.errors import DataError
from maxent_util.processes import ProcessRunner
from maxent_util.racing import RunLog, TableRunner, naive, naive_curve, simulate_up, up

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def table(cutoff=100.0):
    """Three algorithms on 60 instances: a fast, a middle and a slow one (some capped)."""
    rng = np.random.default_rng(5)
    rows = []
    for name, scale in (("fast", 1.0), ("mid", 5.0), ("slow", 40.0)):
        for j, t in enumerate(rng.exponential(scale, 60)):
            rows.append((name, f"i{j}", min(t, cutoff), "solved" if t < cutoff else "capped"))
    frame = pd.DataFrame(rows, columns=["algorithm", "instance", "runtime", "status"])
    frame["cutoff"] = cutoff
    return frame


RUNNER = TableRunner(table())


def quiet(call):
    """The value of call() and the DeprecationWarnings it gave."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        value = call()
    return value, [w for w in caught if issubclass(w.category, DeprecationWarning)]


def same(a, b):
    if isinstance(a, pd.DataFrame):
        pd.testing.assert_frame_equal(a, b)
    elif hasattr(a, "means"):  # a NaiveResult: its fields, the means as a Series
        pd.testing.assert_series_equal(a.means, b.means)
        assert {**vars(a), "means": None} == {**vars(b), "means": None}
    elif isinstance(a, np.ndarray):
        np.testing.assert_array_equal(a, b)
    else:
        assert a == b


# (entry point, its arguments, the old keyword, the new one, a value)
RENAMED = [
    (up, (RUNNER, None, None, "exp(-t/10)", 0.1), {"seed": 0}, "k0", "first_run_limit", 0.5),
    (up, (RUNNER, None, None, "exp(-t/10)", 0.1), {"seed": 0}, "max_captime", "max_run_limit",
     8.0),
    (simulate_up, (np.full((2, 2, 40), [[[0.2]], [[3.0]]]), "exp(-t)", 0.1), {}, "k0",
     "first_run_limit", 0.25),
    (simulate_up, (np.full((2, 2, 40), [[[0.2]], [[3.0]]]), "exp(-t)", 0.1), {}, "max_captime",
     "max_run_limit", 2.0),
    (naive, (RUNNER, None, None, "exp(-t/10)", 0.9, 0.1), {"seed": 1}, "captime", "run_limit",
     60.0),
    (naive_curve, (RUNNER, None, None, "exp(-t/10)", 0.1), {"epsilons": [0.8, 0.9], "seed": 2},
     "captime", "run_limit", 60.0),
    (RUNNER.run, ("mid", "i3"), {}, "captime", "run_limit", 2.0),
    (RUNNER.run_many, (["fast", "slow"], ["i1", "i2"]), {}, "captimes", "run_limits", 3.0),
    (ProcessRunner("solver {config} {instance} -t={run_limit}").arguments, ("c", "i"), {},
     "captime", "run_limit", 4.0),
]


@pytest.mark.parametrize("function, args, kwargs, old, new, value", RENAMED,
                         ids=[f"{row[0].__qualname__}-{row[3]}" for row in RENAMED])
def test_an_old_keyword_still_works_and_warns_once_naming_the_new_one(function, args, kwargs,
                                                                      old, new, value):
    expected, warned = quiet(lambda: function(*args, **kwargs, **{new: value}))
    assert warned == []
    got, warned = quiet(lambda: function(*args, **kwargs, **{old: value}))
    same(got, expected)
    assert len(warned) == 1 and f"{old}=" in str(warned[0].message) \
        and f"write {new}=" in str(warned[0].message)
    assert warned[0].filename == __file__  # the warning points at the caller
    with pytest.raises(DataError, match=f"`{old}` of `{function.__qualname__}` must be left "
                                        f"out: it is the old name of {new}, given too"):
        function(*args, **kwargs, **{old: value, new: value})


@SETTINGS
@given(first=st.floats(0.05, 50.0), largest=st.one_of(st.none(), st.floats(50.0, 100.0)))
def test_up_reads_its_old_keywords_as_the_new_ones(first, largest):
    new = {"first_run_limit": first, "max_run_limit": largest}
    old = {"k0": first, "max_captime": largest}
    expected, _ = quiet(lambda: up(RUNNER, None, None, "pareto(1, 1)", 0.2, seed=3, **new))
    got, warned = quiet(lambda: up(RUNNER, None, None, "pareto(1, 1)", 0.2, seed=3, **old))
    pd.testing.assert_frame_equal(got, expected)
    assert len(warned) == 2
    assert got.attrs["first_run_limit"] == got.attrs["k0"] == expected.attrs["first_run_limit"]
    # every run limit of the trace lies between the first and the largest
    assert (got["run_limit_min"] >= min(first, largest or math.inf) - 1e-12).all()
    assert (got["run_limit_max"] <= (largest or 100.0) + 1e-12).all()


def test_a_positional_run_limit_gives_no_warning():
    found, warned = quiet(lambda: naive(RUNNER, None, None, "exp(-t/10)", 0.9, 0.1, 60.0, seed=1))
    assert warned == [] and found.run_limit == 60.0


def test_old_attributes_read_the_new_ones_with_a_warning(tmp_path):
    found, _ = quiet(lambda: naive(RUNNER, None, None, "exp(-t/10)", 0.9, 0.1, 60.0, seed=1))
    process = ProcessRunner("solver {config} {instance}")
    with RunLog(RUNNER, tmp_path / "runs.jsonl", {"configurations": {}}) as log:
        cases = [(found, "captime", "run_limit"), (RUNNER, "max_captime", "max_run_limit"),
                 (process, "max_captime", "max_run_limit"), (log, "max_captime", "max_run_limit")]
        for thing, old, new in cases:
            value, warned = quiet(lambda: getattr(thing, old))
            assert value == getattr(thing, new)
            kind = type(thing).__name__
            assert len(warned) == 1 and str(warned[0].message) == (
                f"{kind}.{old} is deprecated: read {kind}.{new} (the same value)")
    assert RUNNER.max_run_limit == 100.0


class OldRunner:
    """A runner written to the protocol before 0.4: run(config, instance, captime) and
    max_captime."""

    max_captime = 4.0

    def __init__(self):
        self.asked = []

    def run(self, config, instance, captime):
        self.asked.append(captime)
        return min({"a": 0.5, "b": 3.0}[config] * (1 + int(instance) % 3), captime)


def test_a_runner_written_with_the_old_names_keeps_working():
    runner = OldRunner()
    trace, warned = quiet(lambda: up(runner, ["a", "b"], [str(j) for j in range(30)], "exp(-t)",
                                     0.2, first_run_limit=1.0, seed=0))
    # its max_captime is still its largest run limit, with a warning naming the new name
    assert max(runner.asked) <= 4.0 and trace["run_limit_max"].max() <= 4.0
    assert any("max_run_limit" in str(w.message) for w in warned)
    new = OldRunner()
    new.max_run_limit = 2.0  # the new name wins, silently
    _, warned = quiet(lambda: up(new, ["a", "b"], ["0", "1", "2"], "exp(-t)", 0.2, seed=0))
    assert max(new.asked) <= 2.0 and warned == []


@pytest.mark.parametrize("command", ["solver -t={captime} {instance}",
                                     ["solver", "{captime}", "{config}", "{instance}"]])
def test_the_old_placeholder_is_refused_with_the_name_to_write(command):
    with pytest.raises(DataError, match=r"`command` of `ProcessRunner` must be a command with "
                                        r"\{run_limit\} where the run's time limit goes; got .*"
                                        r"Write \{run_limit\} instead of \{captime\}"):
        ProcessRunner(command)


def test_the_run_limit_placeholder_is_filled():
    runner = ProcessRunner([sys.executable, "-c", "pass", "{config}", "--limit={run_limit}",
                            "{instance}"])
    assert runner.arguments("c", "i", 2.5)[-3:] == ["c", "--limit=2.5", "i"]
