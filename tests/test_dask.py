"""rank() on a Dask DataFrame or a Parquet dataset, and ``maxent-util rank DATA.parquet --dask``.

The reference for every Dask result is the pandas route on the same rows (rank() on the
computed frame), plus one table scored by hand; one LocalCluster (two single-threaded
workers in this process) serves the whole module.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pandas as pd
import pytest
from conftest import assert_usage_error, run
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from maxent_util import DataError, MissingExtraError, UtilityError, rank
from maxent_util.ranking import PAR, Solved, parse_rule

# loaded by the cluster fixture, not at collection: a test process that runs none of these
# tests (one of pytest-xdist's workers) does not pay the second Dask takes to import
dd: Any = None
distributed: Any = None


@pytest.fixture(scope="module", autouse=True)
def cluster():
    global dd, distributed
    dd = pytest.importorskip("dask.dataframe")
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=":0") as local, \
            distributed.Client(local) as client:
        yield client


def table(n_algorithms=3, n_instances=8, seed=0):
    rng = np.random.default_rng(seed)
    n = n_algorithms * n_instances
    runtime = np.round(rng.uniform(0, 120, n), 2)
    status = np.where(runtime < 100, "solved", "capped").astype(object)
    status[rng.random(n) < 0.1] = "crash"
    return pd.DataFrame({
        "algorithm": np.repeat([f"s{i}" for i in range(n_algorithms)], n_instances),
        "instance": np.tile([f"i{j}" for j in range(n_instances)], n_algorithms),
        "runtime": np.minimum(runtime, 100.0), "status": status, "cutoff": 100.0})


RULES = {"exp": parse_rule("exp(-t/10)"), "pareto": parse_rule("pareto(5, 3)"),
         "PAR-2": PAR(2), "solved": Solved()}


def test_rank_of_a_dask_frame_equals_pandas():
    runs = table()
    expected = rank(runs, RULES, bounds=True)
    got = rank(dd.from_pandas(runs, npartitions=3), RULES, bounds=True)
    pd.testing.assert_frame_equal(got, expected, rtol=1e-12, atol=0)


def test_rank_of_a_dask_frame_by_hand():
    runs = pd.DataFrame({"algorithm": ["a", "a", "b", "b"], "instance": ["i", "j", "i", "j"],
                         "runtime": [1.0, 100.0, 10.0, 20.0],
                         "status": ["solved", "capped", "solved", "solved"], "cutoff": 100.0})
    got = rank(dd.from_pandas(runs, npartitions=2), {"exp": parse_rule("exp(-t/10)"),
                                                     "PAR-2": PAR(2)})
    # by hand: a = (e^-0.1 + 0) / 2, b = (e^-1 + e^-2) / 2; PAR-2 a = (1 + 200) / 2, b = 15
    assert got.loc["a", "exp"] == pytest.approx(np.exp(-0.1) / 2, rel=1e-12)
    assert got.loc["b", "exp"] == pytest.approx((np.exp(-1) + np.exp(-2)) / 2, rel=1e-12)
    assert got["PAR-2"].to_dict() == {"a": 100.5, "b": 15.0}
    assert list(got.index) == ["a", "b"]


@pytest.mark.parametrize("folder", [False, True])
def test_rank_of_a_parquet_path_equals_pandas(tmp_path, folder):
    runs = table(4, 10, seed=1)
    if folder:
        path = tmp_path / "runs"
        dd.from_pandas(runs, npartitions=3).to_parquet(path)
    else:
        path = tmp_path / "runs.parquet"
        runs.to_parquet(path)
    expected = rank(runs, RULES)
    pd.testing.assert_frame_equal(rank(path, RULES), expected, rtol=1e-12, atol=0)
    pd.testing.assert_frame_equal(rank(str(path), RULES), expected, rtol=1e-12, atol=0)


# runtimes on a grid of 1/4 s and utilities with dyadic values: every sum is exact in any
# order, so the partitioned route must reproduce the pandas one bit for bit, ranks included
DYADIC = {"linear": parse_rule("1 - t/128"), "PAR-2": PAR(2), "solved": Solved()}


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(1, 4), st.integers(1, 6), st.integers(1, 5), st.data())
def test_random_tables_and_partitions_give_the_pandas_ranking(n_algorithms, n_instances,
                                                              partitions, data):
    n = n_algorithms * n_instances
    quarters = data.draw(st.lists(st.integers(0, 512), min_size=n, max_size=n))
    statuses = data.draw(st.lists(st.sampled_from(["solved", "capped", "crash"]),
                                  min_size=n, max_size=n))
    runs = pd.DataFrame({
        "algorithm": np.repeat([f"a{i}" for i in range(n_algorithms)], n_instances),
        "instance": np.tile([f"x{j}" for j in range(n_instances)], n_algorithms),
        "runtime": np.array(quarters) / 4.0, "status": statuses, "cutoff": 128.0})
    runs = runs.sample(frac=1.0, random_state=data.draw(st.integers(0, 100)))
    expected = rank(runs, DYADIC, bounds=True)
    got = rank(dd.from_pandas(runs, npartitions=min(partitions, n), sort=False), DYADIC,
               bounds=True)
    pd.testing.assert_frame_equal(got, expected, rtol=1e-12, atol=0)


def test_repeated_and_missing_runs_are_refused_as_by_pandas():
    runs = table()
    repeated = pd.concat([runs, runs.iloc[[3]]], ignore_index=True)
    with pytest.raises(DataError, match=r"2 runs of \('s0', 'i3'\) at rows 3, 24"):
        rank(dd.from_pandas(repeated, npartitions=3), RULES)
    with pytest.raises(DataError, match=r"no run of 's1' on 'i0'"):
        rank(dd.from_pandas(runs.drop(index=8), npartitions=3), RULES)


def test_policies_that_need_the_runs_in_memory_are_refused_only_when_needed():
    runs = table()
    repeated = dd.from_pandas(pd.concat([runs, runs.iloc[[3]]], ignore_index=True),
                              npartitions=2)
    with pytest.raises(DataError, match="`duplicates` of `rank` must be 'raise' for a Dask "
                                        "DataFrame or Parquet dataset that has repeated runs"):
        rank(repeated, RULES, duplicates="mean")
    with pytest.raises(DataError, match="`missing` of `rank` must be 'raise'"):
        rank(dd.from_pandas(runs.drop(index=8), npartitions=2), RULES, missing="unsolved")
    # a full grid without repetitions: nothing for the policy to do, so it is accepted
    got = rank(dd.from_pandas(runs, npartitions=2), RULES, duplicates="mean", missing="unsolved")
    pd.testing.assert_frame_equal(got, rank(runs, RULES), rtol=1e-12, atol=0)


def test_a_bad_row_is_named_by_its_partition_and_label():
    runs = table()
    runs.loc[20, "runtime"] = -1.0
    with pytest.raises(DataError, match=r"`runtime` of `table, partition 2, row 20` must be a "
                                        r"finite non-negative number of seconds; got -1.0"):
        rank(dd.from_pandas(runs, npartitions=3), RULES)


def test_bad_rules_and_options_are_refused():
    frame = dd.from_pandas(table(), npartitions=2)
    with pytest.raises(UtilityError, match="between 0 and 1"):
        rank(frame, {"big": parse_rule("2 - t/1000")})
    with pytest.raises(DataError, match="`ci` of `rank` must be None for a Dask DataFrame"):
        rank(frame, RULES, ci=0.95)
    with pytest.raises(DataError, match="columns"):
        rank(frame.drop(columns=["status"]), RULES)


def test_a_missing_parquet_path_is_refused(tmp_path):
    with pytest.raises(DataError, match="an existing Parquet file or folder"):
        rank(tmp_path / "absent.parquet", RULES)


def test_without_dask_the_extra_is_named(monkeypatch, tmp_path):
    import maxent_util._dask as module

    monkeypatch.setattr(module, "find_spec", lambda name: None)
    with pytest.raises(MissingExtraError, match=r"pip install 'maxent_util\[dask\]'"):
        rank(tmp_path / "runs.parquet", RULES)


def test_the_command_line_ranks_a_parquet_dataset_on_a_local_cluster(capsys, tmp_path):
    runs = table(3, 6, seed=2)
    path = tmp_path / "runs.parquet"
    runs.to_parquet(path)
    status, out, err = run(capsys, "rank", str(path), "--dask", "--par", "2", "--solved",
                           "--json")
    assert status == 0, err
    got = {record["algorithm"]: record for record in json.loads(out)}
    expected = rank(runs, {"PAR-2": PAR(2), "solved": Solved()})
    for algorithm, row in expected.iterrows():
        assert got[algorithm]["PAR-2"] == pytest.approx(row["PAR-2"], rel=1e-12)
        assert got[algorithm]["solved"] == row["solved"]
    status, out, err = run(capsys, "rank", str(tmp_path / "runs.csv"), "--dask", "--par", "2")
    assert_usage_error(status, out, err, "--dask ranks a Parquet dataset")
    status, out, err = run(capsys, "rank", str(path), "--dask", "--par", "2", "--ci", "0.9")
    assert_usage_error(status, out, err, "--ci does not go with --dask")


def test_sweep_of_a_dask_frame_equals_pandas():
    from maxent_util import sweep

    runs = table(4, 9, seed=4)
    values = [0.5, 3.0, 20.0, 90.0]
    expected = sweep(runs, "pareto", "kappa0", values, alpha=1)
    got = sweep(dd.from_pandas(runs, npartitions=3), "pareto", "kappa0", values, alpha=1)
    pd.testing.assert_frame_equal(got, expected, rtol=1e-12, atol=0)
    assert got.attrs == expected.attrs
    with pytest.raises(DataError, match=r"no run of 's1' on 'i0'"):
        sweep(dd.from_pandas(runs.drop(index=9), npartitions=2), "pareto", "kappa0", values,
              alpha=1)


@pytest.mark.parametrize("columns", [("status", "cutoff"), ("status",), ("solved",)])
def test_score_of_a_dask_frame_equals_the_arrays_route(columns):
    from maxent_util import score

    rng = np.random.default_rng(5)
    n = 60
    cutoff = rng.choice([50.0, 80.0, 100.0], n)  # cutoffs differ: the Kaplan-Meier estimate too
    runtime = np.round(rng.uniform(0, 100, n), 1)
    status = np.where(runtime < cutoff, "solved", "capped").astype(object)
    status[rng.random(n) < 0.1] = "memout"
    runtime = np.minimum(runtime, cutoff)
    runs = pd.DataFrame({"runtime": runtime, "status": status, "cutoff": cutoff,
                         "solved": status == "solved"})
    u = parse_rule("exp(-t/30)")
    given = {name: runs[name].to_numpy() for name in columns}
    expected = score(runtime, u, **given)
    got = score(dd.from_pandas(runs[["runtime", *columns]], npartitions=4), u)
    for field in ("estimate", "lower", "upper", "ci_low", "ci_high", "kaplan_meier"):
        reference, value = getattr(expected, field), getattr(got, field)
        assert (value is None) == (reference is None), field
        if reference is not None:
            assert value == pytest.approx(reference, rel=1e-12, abs=1e-15), field
    assert (got.n, got.n_capped) == (expected.n, expected.n_capped)


def test_score_of_a_dask_frame_refuses_what_it_cannot_do():
    from maxent_util import score

    frame = dd.from_pandas(pd.DataFrame({"runtime": [1.0, -2.0, 3.0]}), npartitions=2)
    with pytest.raises(DataError, match=r"runtimes\[1\]` of `score, partition 0`"):
        score(frame, parse_rule("exp(-t)"))
    with pytest.raises(DataError, match="`solved` of `score` must be None"):
        score(frame, parse_rule("exp(-t)"), solved=[True, True, True])
