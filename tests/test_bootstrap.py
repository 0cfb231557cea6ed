"""The paired bootstrap over instances (maxent_util.bootstrap) and what rank() builds on it:
intervals against scipy.stats.bootstrap, rank probabilities against cases done by hand and a
plain per-resample loop, rank(ci=...) and rank_stability."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
import sympy
from conftest import run_script
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from scipy import stats

from maxent_util import bootstrap
from maxent_util.bootstrap import (bootstrap_intervals, bootstrap_means, interval_from,
                                   rank_probabilities)
from maxent_util.datasets import satcomp2021
from maxent_util.errors import DataError, UtilityError
from maxent_util.ranking import PAR, Solved, per_instance, rank, rank_stability, tidy_ranking
from maxent_util.symbols import t

SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
PARETO_60 = sympy.Piecewise((1, t < 60), (60 / t, True))


def skewed(n: int, k: int, seed: int) -> np.ndarray:
    """Utility-like values: many zeros, the rest skewed in (0, 1]."""
    rng = np.random.default_rng(seed)
    values = np.minimum(1.0, rng.lognormal(-1.5, 1.0, (n, k)))
    return np.where(rng.random((n, k)) < 0.3, 0.0, values)


def scipy_paired(values: np.ndarray, method: str, seed: int, resamples: int = 10_000):
    """scipy.stats.bootstrap of every column's mean, the columns resampled as pairs."""
    def means(*columns, axis):
        return np.stack([column.mean(axis=axis) for column in columns])

    result = stats.bootstrap(tuple(values.T), means, paired=True, vectorized=True,
                             method=method, n_resamples=resamples, rng=seed, batch=1000)
    return result.confidence_interval.low, result.confidence_interval.high


# ---------------------------------------------------------------------------
# intervals


@pytest.mark.parametrize("method", ["percentile", "BCa"])
def test_intervals_agree_with_scipy_paired_bootstrap(method):
    values = skewed(80, 4, seed=3)
    low, high = bootstrap_intervals(values, resamples=10_000, seed=1, method=method)
    # the reference: scipy.stats.bootstrap, paired, same method, its own resamples
    ref_low, ref_high = scipy_paired(values, method, seed=2)
    # two Monte Carlo estimates of a 2.5% quantile from 10,000 resamples each differ by about
    # 0.04 standard errors of the mean; BCa's moved quantiles are noisier
    se = values.std(axis=0, ddof=1) / math.sqrt(values.shape[0])
    tolerance = (0.2 if method == "percentile" else 0.3) * se
    assert np.all(np.abs(low - ref_low) < tolerance)
    assert np.all(np.abs(high - ref_high) < tolerance)


def test_intervals_on_the_parallel_track_agree_with_scipy():
    # per-instance pareto(60, 1) utilities of three solvers, computed here with plain pandas
    table = satcomp2021("parallel")
    runtime = table["runtime"].to_numpy()
    utility = np.where(table["status"] == "solved",
                       np.where(runtime < 60, 1.0, 60 / np.maximum(runtime, 60)), 0.0)
    grid = table.assign(u=utility).pivot(index="instance", columns="algorithm", values="u")
    values = grid[["mallobparallel", "pakis", "abcdparascavel"]].to_numpy()
    low, high = bootstrap_intervals(values, seed=7)
    ref_low, ref_high = scipy_paired(values, "percentile", seed=8)
    se = values.std(axis=0, ddof=1) / math.sqrt(values.shape[0])
    assert np.all(np.abs(low - ref_low) < 0.2 * se)
    assert np.all(np.abs(high - ref_high) < 0.2 * se)
    assert np.all(low < values.mean(axis=0)) and np.all(values.mean(axis=0) < high)


def test_resampled_means_are_the_means_of_resampled_rows():
    # the resamples are rng.integers(0, n, (resamples, n)) drawn in order: the plain route
    # indexes the rows with them and averages
    values = skewed(37, 3, seed=4)
    ours = bootstrap_means(values, resamples=500, seed=11)
    indices = np.random.default_rng(11).integers(0, 37, size=(500, 37))
    assert np.allclose(ours, values[indices].mean(axis=1), rtol=0, atol=1e-14)


def test_chunks_do_not_change_the_resamples(monkeypatch):
    # identical, not close: the sums are exact integers of slices (bootstrap's module notes),
    # so neither the chunk's shape nor the CPU's SIMD width changes the order that matters
    values = skewed(37, 3, seed=5)
    whole = bootstrap_means(values, resamples=1001, seed=3)
    shares = rank_probabilities(values, resamples=1001, seed=3)
    monkeypatch.setattr(bootstrap, "_CHUNK_INDICES", 37 * 7 + 5)  # 7 resamples a chunk
    assert np.array_equal(whole, bootstrap_means(values, resamples=1001, seed=3))
    assert np.array_equal(shares, rank_probabilities(values, resamples=1001, seed=3))


def exact_means(values: np.ndarray, counts: np.ndarray) -> list[list[Fraction]]:
    """The resampled means in rational arithmetic: sum over instances of count * value / n."""
    n = values.shape[0]
    return [[sum((Fraction(int(c)) * Fraction(float(x)) for c, x in zip(row, column)),
                 Fraction(0)) / n for column in values.T] for row in counts]


# wide magnitudes and both signs: a plain BLAS product of these adds in an order that shows
finite = st.floats(-1e12, 1e12, allow_nan=False).filter(lambda x: x == 0 or abs(x) > 1e-12)


@SETTINGS
@given(hnp.arrays(np.float64, st.tuples(st.integers(1, 40), st.integers(1, 3)), elements=finite),
       st.integers(0, 2**32))
def test_resampled_sums_do_not_depend_on_the_order_of_the_instances(values, seed):
    n = values.shape[0]
    counts = next(bootstrap.resample_counts(n, 20, np.random.default_rng(seed)))
    order = np.random.default_rng(seed + 1).permutation(n)
    ours = bootstrap._ExactSums(values).means(counts)
    # the same instances listed in another order: every sum is added in another order
    assert np.array_equal(ours, bootstrap._ExactSums(values[order]).means(counts[:, order]))
    # a chunk of one resample at a time (BLAS's one-row kernel) gives the same bits
    assert np.array_equal(ours, np.vstack([bootstrap._ExactSums(values).means(row[None])
                                           for row in counts]))


@SETTINGS
@given(hnp.arrays(np.float64, st.tuples(st.integers(1, 40), st.integers(1, 3)),
                  elements=st.floats(0, 1e6, allow_nan=False)), st.integers(0, 2**32))
def test_resampled_means_of_nonnegative_values_are_rounded_exact_means(values, seed):
    # the reference: the same resamples' means in rational arithmetic. Values from 1e-6 up
    # fit the slices whole (53 + 40 bits); the slices' sums are exact, and adding up to three
    # of them and dividing by n rounds at most three times
    values = np.where(values < 1e-6, 0.0, values)
    counts = next(bootstrap.resample_counts(values.shape[0], 10, np.random.default_rng(seed)))
    ours = bootstrap._ExactSums(values).means(counts)
    for row, exact_row in zip(ours, exact_means(values, counts)):
        for mean, exact in zip(row, exact_row):
            assert abs(Fraction(float(mean)) - exact) <= 3 * Fraction(2) ** -53 * exact


def test_percentile_interval_is_numpys_quantile_of_the_resampled_means():
    values = skewed(50, 2, seed=6)
    means = bootstrap_means(values, resamples=999, seed=0)
    low, high = interval_from(means, values, ci=0.9)
    assert np.allclose(low, np.quantile(means, 0.05, axis=0), rtol=0, atol=1e-15)
    assert np.allclose(high, np.quantile(means, 0.95, axis=0), rtol=0, atol=1e-15)


def test_a_constant_column_and_a_single_instance():
    low, high = bootstrap_intervals(np.array([[0.5, 1.0], [0.5, 0.0]]), seed=0, method="BCa")
    assert low[0] == high[0] == 0.5
    low, high = bootstrap_intervals(np.array([[0.25, 3.0]]), seed=0, method="BCa")
    assert low.tolist() == [0.25, 3.0] and high.tolist() == [0.25, 3.0]


def test_labelled_input_gives_labelled_output():
    frame = pd.DataFrame({"x": [0.0, 1.0, 0.5], "y": [1.0, 1.0, 0.0]})
    intervals = bootstrap_intervals(frame, resamples=100, seed=0)
    assert list(intervals.index) == ["x", "y"] and list(intervals.columns) == ["low", "high"]
    assert list(bootstrap_means(frame, resamples=5, seed=0).columns) == ["x", "y"]
    shares = rank_probabilities(frame, resamples=100, seed=0)
    assert list(shares.index) == ["x", "y"] and list(shares.columns) == [1, 2]


@SETTINGS
@given(hnp.arrays(np.float64, st.tuples(st.integers(1, 12), st.integers(1, 4)),
                  elements=st.floats(-1e3, 1e3, allow_nan=False)),
       st.sampled_from(["percentile", "BCa"]), st.integers(0, 2**32))
def test_interval_property(values, method, seed):
    low, high = bootstrap_intervals(values, resamples=200, seed=seed, method=method)
    assert np.all(low <= high)
    # a mean of resampled values lies within the column's range
    assert np.all(values.min(axis=0) - 1e-9 <= low) and np.all(high <= values.max(axis=0) + 1e-9)
    again = bootstrap_intervals(values, resamples=200, seed=seed, method=method)
    assert np.array_equal(low, again[0]) and np.array_equal(high, again[1])


# ---------------------------------------------------------------------------
# rank probabilities


def test_rank_probabilities_by_hand_without_ties():
    # instances i, j, k; a resample draws i c times, c ~ Binomial(3, 1/3).
    # a = 1 on i only: mean c/3; b = 1 on j and k: mean (3 - c)/3; c is 0.5 everywhere.
    # c >= 2 (probability 3 * (1/3)**2 * (2/3) + (1/3)**3 = 7/27): a > 0.5 > b, ranks 1, 3;
    # c <= 1 (20/27): b > 0.5 > a. The constant algorithm is always second.
    values = np.array([[1.0, 0.0, 0.5], [0.0, 1.0, 0.5], [0.0, 1.0, 0.5]])
    shares = rank_probabilities(values, resamples=40_000, seed=1)
    expected = np.array([[7 / 27, 0, 20 / 27], [20 / 27, 0, 7 / 27], [0, 1, 0]])
    assert np.allclose(shares, expected, rtol=0, atol=0.01)  # Monte Carlo SE 0.0022
    assert shares[2, 1] == 1.0


def test_rank_probabilities_by_hand_with_ties():
    # a and d are the same algorithm: they tie in every resample and share the better rank.
    # c >= 2 (7/27): a = d first, b third; c <= 1 (20/27): b first, a = d second.
    values = np.array([[1.0, 0.0, 1.0], [0.0, 1.0, 0.0], [0.0, 1.0, 0.0]])
    shares = rank_probabilities(values, resamples=40_000, seed=2)
    expected = np.array([[7 / 27, 20 / 27, 0], [20 / 27, 0, 7 / 27], [7 / 27, 20 / 27, 0]])
    assert np.allclose(shares, expected, rtol=0, atol=0.01)
    assert np.array_equal(shares[0], shares[2])
    # lower is better: c >= 2 puts b first and a = d second; c <= 1 a = d first, b third
    lower = rank_probabilities(values, higher_is_better=False, resamples=40_000, seed=2)
    assert np.allclose(lower, [[20 / 27, 7 / 27, 0], [7 / 27, 0, 20 / 27],
                               [20 / 27, 7 / 27, 0]], rtol=0, atol=0.01)


def test_rank_probabilities_match_a_plain_loop_with_pandas_ranks():
    # quarters sum exactly in any order, so ties are exact for both routes
    rng = np.random.default_rng(8)
    values = rng.integers(0, 5, size=(9, 5)) / 4
    values[:, 4] = values[:, 1]
    resamples = 3000
    indices = np.random.default_rng(21).integers(0, 9, size=(resamples, 9))
    counts = np.zeros((5, 5))
    for row in indices:
        ranks = pd.Series(values[row].mean(axis=0)).rank(method="min", ascending=False)
        counts[np.arange(5), ranks.to_numpy(dtype=int) - 1] += 1
    ours = rank_probabilities(values, resamples=resamples, seed=21)
    assert np.array_equal(ours, counts / resamples)


@SETTINGS
@given(hnp.arrays(np.float64, st.tuples(st.integers(1, 10), st.integers(1, 5)),
                  elements=st.floats(0, 1, allow_nan=False)), st.booleans())
def test_rank_probability_property(values, higher):
    shares = rank_probabilities(values, higher_is_better=higher, resamples=150, seed=0)
    assert shares.shape == (values.shape[1],) * 2
    assert np.allclose(shares.sum(axis=1), 1.0)
    assert np.all((shares >= 0) & (shares <= 1))
    # a column beaten on every instance is never first
    worse = (values.min(axis=1) - 0.5) if higher else (values.max(axis=1) + 0.5)
    shares = rank_probabilities(np.column_stack([values, worse]), higher_is_better=higher,
                                resamples=150, seed=0)
    assert shares[-1, 0] == 0.0 and shares[-1, -1] == 1.0


# ---------------------------------------------------------------------------
# bad input


@pytest.mark.parametrize("call, pattern", [
    (lambda: bootstrap_intervals([[1.0]], ci=1.0), "`ci` of `bootstrap_intervals` must be a "
                                                   "confidence level strictly between 0 and 1"),
    (lambda: bootstrap_intervals([[1.0]], ci=float("nan")), "got nan"),
    (lambda: bootstrap_intervals([[1.0]], ci="0.95"), "got '0.95'"),
    (lambda: bootstrap_intervals([[1.0]], ci=True), "got True"),
    (lambda: bootstrap_intervals([[1.0]], resamples=0), "`resamples` .* positive integer"),
    (lambda: bootstrap_intervals([[1.0]], resamples=2.5), "got 2.5"),
    (lambda: bootstrap_intervals([[1.0]], seed=-1), "`seed` .* nonnegative integer"),
    (lambda: bootstrap_intervals([[1.0]], seed="x"), "got 'x'"),
    (lambda: bootstrap_intervals([[1.0]], method="bca"), "`method` .* 'percentile', 'BCa'"),
    (lambda: bootstrap_intervals([[1.0, float("nan")]]), r"`values\[0, 1\]` .* finite"),
    (lambda: bootstrap_intervals(np.zeros((0, 3))), "at least one of each"),
    (lambda: bootstrap_intervals(np.zeros((2, 2, 2))), "shape \\(2, 2, 2\\)"),
    (lambda: bootstrap_means([["a"]]), "array of numbers"),
    (lambda: rank_probabilities([[1.0]], higher_is_better="yes"), "True or False"),
    (lambda: interval_from(np.zeros((5, 2)), np.zeros((3, 1))), "one column per column"),
])
def test_bad_arguments_are_named(call, pattern):
    with pytest.raises(DataError, match=pattern):
        call()


# ---------------------------------------------------------------------------
# rank(ci=...) and rank_stability


@pytest.fixture(scope="module")
def parallel():
    return satcomp2021("parallel")


def test_rank_ci_columns_are_the_bootstrap_of_per_instance_values(parallel):
    rules = {"pareto": PARETO_60, "PAR-2": PAR(2), "solved": Solved()}
    plain = rank(parallel, rules)
    ranked = rank(parallel, rules, ci=0.9, resamples=2000, seed=5)
    assert list(ranked.columns[:len(plain.columns)]) == list(plain.columns)
    pd.testing.assert_frame_equal(ranked[plain.columns], plain)
    for name, rule in rules.items():
        # every rule sees the same resamples: one rule alone with the same seed agrees
        alone = bootstrap_intervals(per_instance(parallel, rule), ci=0.9, resamples=2000,
                                    seed=5).loc[ranked.index]
        scale = 400 if name == "solved" else 1
        assert np.allclose(ranked[f"{name} ci low"], alone["low"] * scale, rtol=1e-12)
        assert np.allclose(ranked[f"{name} ci high"], alone["high"] * scale, rtol=1e-12)
        assert (ranked[f"{name} ci low"] <= ranked[name]).all()
        assert (ranked[name] <= ranked[f"{name} ci high"]).all()


def test_rank_ci_arguments_and_column_names(parallel):
    with pytest.raises(DataError, match="`ci` of `rank`"):
        rank(parallel, {"PAR-2": PAR(2)}, ci=95)
    with pytest.raises(DataError, match="`resamples` of `rank`"):
        rank(parallel, {"PAR-2": PAR(2)}, resamples=-3)
    with pytest.raises(UtilityError, match="'a ci low'"):
        rank(parallel, {"a": PAR(2), "a ci low": PAR(3)}, ci=0.95)
    # without ci the same names are fine
    assert list(rank(parallel, {"a": PAR(2), "a ci low": PAR(3)}).columns)[0] == "a"


def test_rank_stability_by_hand_and_its_order():
    # a solves i and j, b only i, c nothing: b ties a on a resample that draws i twice (1/4)
    table = pd.DataFrame({"algorithm": list("aabbcc"), "instance": list("ijijij"),
                          "runtime": [1.0, 2.0, 1.0, 9.0, 9.0, 9.0],
                          "status": ["solved", "solved", "solved", "capped", "capped",
                                     "capped"], "cutoff": 9.0})
    shares = rank_stability(table, Solved(), resamples=40_000, seed=3)
    assert list(shares.index) == ["a", "b", "c"] and list(shares.columns) == [1, 2, 3]
    assert shares.loc["a"].tolist() == [1.0, 0.0, 0.0]
    # b: both draws i (1/4) -> tie with a, rank 1; one each (1/2) -> 2; both j (1/4) -> ties c, 2
    assert shares.loc["b", 1] == pytest.approx(0.25, abs=0.01)
    assert shares.loc["b", 2] == pytest.approx(0.75, abs=0.01)
    assert shares.loc["c", 2] == pytest.approx(0.25, abs=0.01)  # ties b when b draws j twice
    assert shares.loc["c", 3] == pytest.approx(0.75, abs=0.01)
    assert np.allclose(shares.sum(axis=1), 1.0)


def test_rank_stability_on_the_main_track_is_a_distribution():
    shares = rank_stability(satcomp2021("main"), PAR(2), resamples=500, seed=0)
    assert shares.shape == (46, 46)
    assert np.allclose(shares.sum(axis=1), 1.0)
    assert list(shares.index) == list(rank(satcomp2021("main"), {"PAR-2": PAR(2)}).index)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_rank_stability_property(data):
    n_algorithms = data.draw(st.integers(1, 4))
    n_instances = data.draw(st.integers(1, 6))
    runtimes = data.draw(hnp.arrays(np.float64, n_algorithms * n_instances,
                                    elements=st.floats(0.0, 10.0, allow_nan=False)))
    table = pd.DataFrame({
        "algorithm": np.repeat([f"a{i}" for i in range(n_algorithms)], n_instances),
        "instance": np.tile([f"i{j}" for j in range(n_instances)], n_algorithms),
        "runtime": runtimes, "status": np.where(runtimes < 10, "solved", "capped"),
        "cutoff": 10.0})
    for rule in (PAR(2), Solved(), PARETO_60):
        shares = rank_stability(table, rule, resamples=100, seed=1)
        assert shares.shape == (n_algorithms, n_algorithms)
        assert np.allclose(shares.sum(axis=1), 1.0)


# ---------------------------------------------------------------------------
# the benchmark script


def test_benchmark_quick_run_prints_time_and_ratio(capsys, monkeypatch):
    out = run_script(monkeypatch, capsys, "bench_bootstrap.py", "--quick")
    assert "naive" in out and "faster" in out
    assert "agree" in out


def test_tidy_ranking_keeps_the_intervals():
    # reference: the wide ranking's own ci columns, rule by rule
    runs = pd.DataFrame({"algorithm": ["a", "a", "a", "b", "b", "b"],
                         "instance": ["i", "j", "k"] * 2,
                         "runtime": [1.0, 100.0, 3.0, 10.0, 20.0, 4.0],
                         "status": ["solved", "capped", "solved", "solved", "solved", "solved"],
                         "cutoff": 100.0})
    wide = rank(runs, {"PAR-2": PAR(2), "solved": Solved()}, ci=0.9, resamples=300, seed=5)
    tidy = tidy_ranking(wide)
    assert list(tidy.columns) == ["algorithm", "rule", "score", "rank", "ci low", "ci high"]
    for _, row in tidy.iterrows():
        assert row["ci low"] == wide.loc[row["algorithm"], f"{row['rule']} ci low"]
        assert row["ci high"] == wide.loc[row["algorithm"], f"{row['rule']} ci high"]
    with pytest.raises(DataError, match=r"^`ranking` of `tidy_ranking` must be a DataFrame returned by rank"):
        tidy_ranking(wide.drop(columns=["PAR-2 ci high"]))
