"""Comparing algorithms (maxent_util.comparison), per-instance values, and the compare
command: p-values against scipy on utilities computed here with plain pandas, Holm's
adjustment against a hand computation, the virtual and single best by hand."""

from __future__ import annotations

import dataclasses
import json
import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
import sympy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy import stats

from maxent_util import pareto
from maxent_util.cli import main
from maxent_util.comparison import (_sign_test, _wilcoxon, compare, compare_with_best, gap_closed,
                                    holm_adjusted, pairwise, single_best, virtual_best)
from maxent_util.datasets import satcomp2021
from maxent_util.errors import DataError, UtilityError
from maxent_util.ranking import PAR, Solved, per_instance, rank
from maxent_util.symbols import t

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
# pareto(60, 1) written out (the preset's utility, without deriving it again)
PARETO_60 = {"pareto(60, 1)": sympy.Piecewise((1, t < 60), (60 / t, True))}


@pytest.fixture(scope="module")
def parallel():
    return satcomp2021("parallel")


def pareto_by_hand(table: pd.DataFrame) -> pd.DataFrame:
    """Per-instance pareto(60, 1) utilities with plain pandas: (60/t)**1 past 60 s, 1 before,
    0 for a run not solved (capped or failed); instances x algorithms."""
    runtime = table["runtime"].to_numpy()
    with np.errstate(divide="ignore"):
        utility = np.where(runtime > 60, (60 / runtime) ** 1, 1.0)
    utility = np.where(table["status"].to_numpy() == "solved", utility, 0.0)
    return table.assign(u=utility).pivot(index="instance", columns="algorithm", values="u")


def sign_test_by_hand(differences: np.ndarray) -> float:
    nonzero = differences[differences != 0]
    return stats.binomtest(int((nonzero > 0).sum()), nonzero.size).pvalue


# ---------------------------------------------------------------------------
# compare on the bundled parallel track


def test_compare_top_two_of_the_parallel_track_matches_scipy(parallel):
    grid = pareto_by_hand(parallel)
    first, second = grid.mean().sort_values(ascending=False).index[:2]
    differences = (grid[first] - grid[second]).to_numpy()

    result = compare(parallel, first, second, pareto(60, 1).utility(), seed=4)

    # the p-values scipy gives on the utilities computed above
    assert result.wilcoxon_p == pytest.approx(stats.wilcoxon(differences).pvalue, rel=1e-12)
    assert result.sign_p == pytest.approx(sign_test_by_hand(differences), rel=1e-12)
    assert result.mean_a == pytest.approx(grid[first].mean(), rel=1e-12)
    assert result.mean_b == pytest.approx(grid[second].mean(), rel=1e-12)
    assert result.difference == pytest.approx(differences.mean(), rel=1e-9)
    assert (result.a_better, result.b_better, result.equal) == (
        int((differences > 0).sum()), int((differences < 0).sum()), int((differences == 0).sum()))
    # the interval: scipy's paired percentile bootstrap of the mean difference, to Monte Carlo
    # accuracy (0.2 standard errors is about five times the spread of two such estimates)
    reference = stats.bootstrap((grid[first].to_numpy(), grid[second].to_numpy()),
                                lambda x, y, axis: (x - y).mean(axis=axis), paired=True,
                                vectorized=True, method="percentile", n_resamples=10_000,
                                rng=5).confidence_interval
    se = differences.std(ddof=1) / math.sqrt(differences.size)
    assert abs(result.ci_low - reference.low) < 0.2 * se
    assert abs(result.ci_high - reference.high) < 0.2 * se
    assert result.a == first and result.leader == first and result.instances == 400
    assert not result.significant and "cannot tell them apart at 95%" in result.sentence


def test_compare_ahead_and_disagreeing_sentences(parallel):
    ahead = compare(parallel, "mallobparallel", "plingeling", PARETO_60, seed=0)
    assert ahead.significant and ahead.ci_low > 0
    assert ahead.sentence.startswith("mallobparallel is ahead of plingeling by 0.126 in mean "
                                     "pareto(60, 1) (95% interval of mallobparallel - "
                                     "plingeling: [")
    assert "; mallobparallel is ahead at 95% (Wilcoxon p = 9.3e-24, sign test p = 2.6e-22)." \
        in ahead.sentence
    # the mean difference's interval leaves out 0, the Wilcoxon test does not reject
    mixed = compare(parallel, "mallobparallel", "pmcomspsstrsc", PARETO_60, seed=0)
    assert mixed.ci_low > 0 and not mixed.significant
    assert mixed.sentence.endswith("though the interval of the mean difference leaves out 0.")


def test_mean_and_signed_ranks_can_disagree():
    # a is 1 s faster on 35 instances, 99 s slower on 5: the mean (PAR-2, lower is better)
    # favours b, the signed ranks a
    n = 40
    a = np.where(np.arange(n) < 35, 1.0, 100.0)
    b = np.where(np.arange(n) < 35, 2.0, 1.0)
    table = pd.DataFrame({"algorithm": ["a"] * n + ["b"] * n,
                          "instance": [f"i{i}" for i in range(n)] * 2,
                          "runtime": np.concatenate([a, b]), "status": "solved",
                          "cutoff": 100.0})
    result = compare(table, "a", "b", PAR(2), seed=0)
    assert result.difference == pytest.approx((35 * -1 + 5 * 99) / 40)
    assert result.leader == "b" and result.wilcoxon_favours == "a" and result.significant
    assert result.wilcoxon_p == pytest.approx(stats.wilcoxon(a - b).pvalue, rel=1e-12)
    assert result.sentence.startswith("b is ahead of a by 11.5 in mean PAR-2, lower is better")
    assert "but the signed ranks of the per-instance differences favour a" in result.sentence
    assert result.sentence.endswith("the mean and the test disagree at 95%.")
    assert (result.a_better, result.b_better) == (35, 5)


def test_equal_algorithms_are_not_told_apart():
    table = pd.DataFrame({"algorithm": list("aabb"), "instance": list("ijij"),
                          "runtime": [1.0, 2.0, 1.0, 2.0], "status": "solved", "cutoff": 9.0})
    result = compare(table, "b", "a", Solved(), ci=0.9, resamples=50, seed=0)
    assert result.wilcoxon_p == 1.0 and result.sign_p == 1.0 and result.equal == 2
    assert result.leader is None and not result.significant
    assert result.sentence == ("b and a have the same mean solved (1) on 2 instances (90% "
                               "interval of b - a: [0, 0]); the data cannot tell them apart at "
                               "90% (Wilcoxon p = 1, sign test p = 1).")


def test_result_object(parallel):
    result = compare(parallel, "pakis", "pmcomsps", PAR(2), resamples=200, seed=1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.a = "other"  # type: ignore[misc]
    record = result.to_dict()
    assert json.loads(json.dumps(record)) == record
    assert record["sentence"] == result.sentence and record["significant"] == result.significant
    assert {"a", "b", "rule", "difference", "ci_low", "ci_high", "wilcoxon_p",
            "sign_p"} <= set(record)
    text = repr(result)
    assert text.startswith("Comparison('pakis' - 'pmcomsps' under 'PAR-2': difference ")
    assert "Wilcoxon p = " in text and "400 instances" in text
    # the same seed, the same result
    assert compare(parallel, "pakis", "pmcomsps", PAR(2), resamples=200, seed=1) == result


def test_compare_bad_input(parallel):
    rule = PARETO_60
    with pytest.raises(DataError, match=r"`b` of `compare` must be one of the table's "
                                        r"algorithms \(abcdparascavel, mallobparallel, .*\); "
                                        "got 'kissat'"):
        compare(parallel, "pakis", "kissat", rule)
    with pytest.raises(DataError, match="`b` of `compare` must be an algorithm other than `a`"):
        compare(parallel, "pakis", "pakis", rule)
    with pytest.raises(DataError, match="`ci` of `compare`"):
        compare(parallel, "pakis", "plingeling", rule, ci=0)
    with pytest.raises(DataError, match="`seed` of `compare`"):
        compare(parallel, "pakis", "plingeling", rule, seed=-2)
    with pytest.raises(UtilityError, match="`utility` of `compare` must be free of unset"):
        compare(parallel, "pakis", "plingeling", sympy.exp(-t / sympy.Symbol("kappa0")))
    with pytest.raises(UtilityError, match="one rule"):
        compare(parallel, "pakis", "plingeling", {"x": PAR(2), "y": PAR(3)})


@st.composite
def two_algorithms(draw):
    n = draw(st.integers(1, 12))
    runtimes = draw(st.lists(st.sampled_from([0.5, 1.0, 3.0, 10.0, 50.0, 100.0]),
                             min_size=2 * n, max_size=2 * n))
    return pd.DataFrame({"algorithm": ["a"] * n + ["b"] * n,
                         "instance": [f"i{i}" for i in range(n)] * 2,
                         "runtime": runtimes,
                         "status": ["solved" if r < 100 else "capped" for r in runtimes],
                         "cutoff": 100.0})


@SETTINGS
@given(two_algorithms(), st.sampled_from(["PAR", "solved", "exp"]))
def test_compare_is_antisymmetric(table, which):
    rule = {"PAR": PAR(2), "solved": Solved(), "exp": sympy.exp(-t / 10)}[which]
    ab = compare(table, "a", "b", rule, resamples=100, seed=3)
    ba = compare(table, "b", "a", rule, resamples=100, seed=3)
    assert ba.difference == pytest.approx(-ab.difference, abs=1e-12)
    assert (ba.ci_low, ba.ci_high) == pytest.approx((-ab.ci_high, -ab.ci_low), abs=1e-9)
    assert ba.wilcoxon_p == pytest.approx(ab.wilcoxon_p) and ba.sign_p == ab.sign_p
    assert (ba.a_better, ba.b_better, ba.equal) == (ab.b_better, ab.a_better, ab.equal)
    assert ba.leader == ab.leader and ba.significant == ab.significant
    assert 0 <= ab.wilcoxon_p <= 1 and 0 <= ab.sign_p <= 1
    assert ab.ci_low <= ab.difference + 1e-12 or ab.instances < 3  # a tiny sample can skew


# ---------------------------------------------------------------------------
# every pair


def test_holm_by_hand():
    # sorted 0.005, 0.01, 0.03, 0.04 times 4, 3, 2, 1: 0.02, 0.03, 0.06, 0.04 -> running max
    # 0.02, 0.03, 0.06, 0.06, back in the order given
    assert np.allclose(holm_adjusted([0.01, 0.04, 0.03, 0.005]), [0.03, 0.06, 0.06, 0.02])
    assert holm_adjusted([0.5, 0.6]).tolist() == [1.0, 1.0]  # capped at 1
    assert holm_adjusted([0.2]).tolist() == [0.2]
    assert holm_adjusted([]).tolist() == []
    with pytest.raises(DataError, match=r"`p_values\[1\]` of `holm_adjusted` must be a number "
                                        "between 0 and 1; got 1.5"):
        holm_adjusted([0.1, 1.5])


@SETTINGS
@given(st.lists(st.floats(0, 1), min_size=1, max_size=30))
def test_holm_property(p):
    adjusted = holm_adjusted(p)
    assert np.all(adjusted >= np.asarray(p)) and np.all(adjusted <= 1)
    order = np.argsort(p, kind="stable")
    assert np.all(np.diff(adjusted[order]) >= 0)  # the step-down keeps the order
    # Bonferroni bounds Holm from above
    assert np.all(adjusted <= np.minimum(1, len(p) * np.asarray(p)) + 1e-15)


def test_wilcoxon_on_few_instances_equals_scipy():
    # up to 13 instances with ties or zeros scipy runs a permutation test; without, its exact
    # distribution; from 14 to 50 with ties, the normal approximation
    rng = np.random.default_rng(12)
    cases = [rng.choice([-2.0, -1.0, 0.0, 1.0, 2.0, 3.5], size=n) for n in (3, 6, 9, 10)]
    cases += [rng.normal(size=9), np.array([1.0, 2.0, -3.0, 4.0, 5.0]),
              rng.choice([-1.0, 0.0, 2.0], size=30), rng.normal(size=40)]
    for differences in cases:
        assert _wilcoxon(differences[:, None])[0] == pytest.approx(
            stats.wilcoxon(differences).pvalue, rel=1e-12), differences
    assert _wilcoxon(np.zeros((4, 1))).tolist() == [1.0]


def test_sign_test_equals_binomtest():
    for n in (*range(1, 13), 31, 60, 301, 399):
        k = np.arange(n + 1)
        reference = [stats.binomtest(int(i), n).pvalue for i in k]
        # the exact tail, rounded once, against scipy's Boost incomplete beta (within 4e-14 of
        # the exact value up to 400 trials)
        assert _sign_test(k, np.full(n + 1, n)) == pytest.approx(reference, rel=1e-13, abs=0), n
    # and against the exact rational, from fractions alone
    n, k = 301, 123
    exact = 2 * Fraction(sum(math.comb(n, j) for j in range(k + 1)), 2**n)
    assert _sign_test(np.array([k]), np.array([n]))[0] == float(exact)
    # beyond the exact sums, scipy's incomplete beta: the same tail
    n, k = 5001, 2400
    exact = 2 * Fraction(sum(math.comb(n, j) for j in range(k + 1)), 2**n)
    assert _sign_test(np.array([k]), np.array([n]))[0] == pytest.approx(float(exact), rel=1e-12)
    assert _sign_test(np.array([0]), np.array([0])).tolist() == [1.0]


def test_pairwise_on_the_parallel_track_matches_scipy(parallel):
    grid = pareto_by_hand(parallel)
    frame = pairwise(parallel, {"pareto": PARETO_60["pareto(60, 1)"]}, resamples=500, seed=0)
    assert len(frame) == 36 and frame.index.names == ["a", "b"]
    order = list(rank(parallel, PARETO_60).index)
    for (a, b), row in frame.iterrows():
        assert order.index(a) < order.index(b)  # a is ranked above b
        differences = (grid[a] - grid[b]).to_numpy()
        assert row["wilcoxon p"] == pytest.approx(stats.wilcoxon(differences).pvalue, rel=1e-12)
        assert row["sign p"] == pytest.approx(sign_test_by_hand(differences), rel=1e-12)
        assert row["difference"] == pytest.approx(differences.mean(), rel=1e-9)
    assert np.allclose(frame["wilcoxon p holm"], holm_adjusted(frame["wilcoxon p"]))
    assert np.allclose(frame["sign p holm"], holm_adjusted(frame["sign p"]))
    assert (frame["significant"] == (frame["wilcoxon p holm"] < 0.05)).all()
    assert frame.attrs == {"rule": "pareto", "level": 0.95, "resamples": 500,
                           "higher_is_better": True}


def test_pairwise_with_few_instances_tests_each_pair_alone():
    # 8 instances with ties and zeros: scipy picks the exact, permutation or normal route per
    # pair, so each pair is checked against its own call
    rng = np.random.default_rng(3)
    runtimes = rng.choice([1.0, 2.0, 5.0, 9.0], size=(4, 8))
    table = pd.DataFrame({"algorithm": np.repeat(list("abcd"), 8),
                          "instance": np.tile([f"i{i}" for i in range(8)], 4),
                          "runtime": runtimes.ravel(), "status": "solved", "cutoff": 10.0})
    values = per_instance(table, PAR(2))
    frame = pairwise(table, PAR(2), resamples=200, seed=0)
    for (a, b), row in frame.iterrows():
        differences = (values[a] - values[b]).to_numpy()
        expected = stats.wilcoxon(differences).pvalue if differences.any() else 1.0
        assert row["wilcoxon p"] == pytest.approx(expected, rel=1e-12)
        assert row["sign p"] == pytest.approx(
            sign_test_by_hand(differences) if differences.any() else 1.0, rel=1e-12)
        assert row["difference"] <= 0  # PAR: a ranked above b has the lower mean


def test_pairwise_agrees_with_compare(parallel):
    frame = pairwise(parallel, PAR(2), resamples=300, seed=9)
    single = compare(parallel, "pmcomsps", "pakis", PAR(2), resamples=300, seed=9)
    row = frame.loc[("pmcomsps", "pakis")]
    # the same resamples: the intervals agree up to rounding
    assert row["ci low"] == pytest.approx(single.ci_low, rel=1e-9)
    assert row["ci high"] == pytest.approx(single.ci_high, rel=1e-9)
    assert row["wilcoxon p"] == single.wilcoxon_p and row["sign p"] == single.sign_p


def test_pairwise_needs_two_algorithms():
    table = pd.DataFrame({"algorithm": ["a"], "instance": ["i"], "runtime": [1.0],
                          "status": ["solved"]})
    with pytest.raises(DataError, match="`table` of `pairwise` must be runs of at least two"):
        pairwise(table, PAR(2))


# ---------------------------------------------------------------------------
# virtual and single best


def test_virtual_and_single_best_on_the_parallel_track(parallel):
    grid = pareto_by_hand(parallel)
    rule = PARETO_60
    assert virtual_best(parallel, rule) == pytest.approx(grid.max(axis=1).mean(), rel=1e-12)
    assert single_best(parallel, rule) == grid.mean().idxmax()
    gap = gap_closed(parallel, rule)
    sbs, vbs = grid.mean().max(), grid.max(axis=1).mean()
    expected = (grid.mean() - sbs) / (vbs - sbs)
    assert np.allclose(gap.to_numpy(), expected.loc[gap.index].to_numpy(), rtol=1e-9)
    assert gap.iloc[0] == 0.0 and gap.index[0] == grid.mean().idxmax()
    # a portfolio of two; the others are scored against it
    among = ["pakis", "plingeling"]
    sub_vbs, sub_sbs = grid[among].max(axis=1).mean(), grid[among].mean().max()
    gap = gap_closed(parallel, rule, among=among)
    assert gap.attrs["single best"] == "pakis"
    assert gap["mallobparallel"] == pytest.approx(
        (grid["mallobparallel"].mean() - sub_sbs) / (sub_vbs - sub_sbs), rel=1e-9)


def test_virtual_best_under_par_and_solved():
    # i: a 1 s, b 10 s; j: a capped at 100, b 20 s
    table = pd.DataFrame({"algorithm": list("aabb"), "instance": list("ijij"),
                          "runtime": [1.0, 100.0, 10.0, 20.0],
                          "status": ["solved", "capped", "solved", "solved"], "cutoff": 100.0})
    assert virtual_best(table, PAR(2)) == (1.0 + 20.0) / 2  # the lowest per instance
    assert single_best(table, PAR(2)) == "b"  # a: (1 + 200) / 2
    assert virtual_best(table, Solved()) == 2.0  # instances some algorithm solves
    assert single_best(table, Solved()) == "b"
    assert gap_closed(table, PAR(2))["a"] == pytest.approx((100.5 - 15) / (10.5 - 15))


def test_no_gap_to_close_is_refused():
    table = pd.DataFrame({"algorithm": list("aabb"), "instance": list("ijij"),
                          "runtime": [1.0, 2.0, 3.0, 4.0], "status": "solved", "cutoff": 9.0})
    with pytest.raises(DataError, match="there is no gap to close"):
        gap_closed(table, PAR(2))
    with pytest.raises(DataError, match="`among` of `gap_closed`"):
        gap_closed(table, PAR(2), among=["b"])
    with pytest.raises(DataError, match="`among` of `virtual_best` must be one of the table's "
                                        "algorithms"):
        virtual_best(table, PAR(2), among=["a", "z"])
    with pytest.raises(DataError, match="`among` of `single_best` must be a non-empty list"):
        single_best(table, PAR(2), among=[])
    with pytest.raises(DataError, match="`among` of `single_best` must be a list"):
        single_best(table, PAR(2), among="a")


@SETTINGS
@given(two_algorithms())
def test_gap_closed_property(table):
    # add the oracle's runs: it closes the whole gap, the single best none of it
    grid = table.pivot(index="instance", columns="algorithm", values="runtime")
    oracle = table[table["algorithm"] == "a"].assign(
        algorithm="oracle", runtime=grid.min(axis=1).loc[table["instance"][:len(grid)]].to_numpy())
    oracle["status"] = np.where(oracle["runtime"] < 100, "solved", "capped")
    try:
        gap = gap_closed(pd.concat([table, oracle]), PAR(2), among=["a", "b"])
    except DataError as error:
        assert "no gap to close" in str(error)
        return
    assert gap["oracle"] == pytest.approx(1.0)
    assert gap[gap.attrs["single best"]] == 0.0


@st.composite
def small_tables(draw):
    """Two to four algorithms on one to eight instances, runs solved or capped at 100 s."""
    k = draw(st.integers(2, 4))
    n = draw(st.integers(1, 8))
    runtimes = draw(st.lists(st.sampled_from([0.5, 2.0, 7.0, 30.0, 99.0, 100.0]),
                             min_size=k * n, max_size=k * n))
    return pd.DataFrame({"algorithm": np.repeat([f"s{i}" for i in range(k)], n),
                         "instance": np.tile([f"i{j}" for j in range(n)], k),
                         "runtime": runtimes,
                         "status": ["solved" if r < 100 else "capped" for r in runtimes],
                         "cutoff": 100.0})


@SETTINGS
@given(small_tables(), st.sampled_from(["PAR", "solved", "exp"]))
def test_pairwise_property(table, which):
    rule = {"PAR": PAR(2), "solved": Solved(), "exp": sympy.exp(-t / 10)}[which]
    frame = pairwise(table, rule, resamples=50, seed=0)
    k = table["algorithm"].nunique()
    assert len(frame) == k * (k - 1) // 2
    assert (frame["wilcoxon p holm"] >= frame["wilcoxon p"]).all()
    assert (frame["sign p holm"] >= frame["sign p"]).all()
    assert frame[["wilcoxon p", "sign p", "wilcoxon p holm", "sign p holm"]].le(1).all().all()
    # a is ranked above b: its mean is at least as good
    better = frame["difference"] >= -1e-12 if which != "PAR" else frame["difference"] <= 1e-12
    assert better.all()
    assert (frame["ci low"] <= frame["ci high"]).all()


@SETTINGS
@given(small_tables(), st.sampled_from(["PAR", "solved", "exp"]))
def test_compare_with_best_is_pairwise_against_the_first(table, which):
    rule = {"PAR": PAR(2), "solved": Solved(), "exp": sympy.exp(-t / 10)}[which]
    found = compare_with_best(table, rule, ci=0.9)
    pairs = pairwise(table, rule, resamples=20, seed=0)
    best = pairs.index[0][0]
    assert found.attrs["best"] == best and best not in found.index
    assert sorted(found.index) == sorted(set(table["algorithm"]) - {best})
    for name, row in found.iterrows():
        pair = pairs.loc[(best, name)]
        # the same tests as pairwise's, on the same pair; the difference seen from the other side
        assert row["wilcoxon p"] == pair["wilcoxon p"] and row["sign p"] == pair["sign p"]
        assert row["difference"] == pytest.approx(-pair["difference"], abs=1e-12)
    # Holm over the k - 1 comparisons with the best alone
    assert found["wilcoxon p holm"].tolist() == holm_adjusted(found["wilcoxon p"]).tolist()
    assert found["significant"].tolist() == (found["wilcoxon p holm"] < 0.1).tolist()


def test_compare_with_best_refuses():
    one = pd.DataFrame({"algorithm": ["a"], "instance": ["i"], "runtime": [1.0],
                        "status": ["solved"]})
    with pytest.raises(DataError, match="`table` of `compare_with_best` must be runs of at least"):
        compare_with_best(one, PAR(2))
    two = pd.concat([one, one.assign(algorithm="b")])
    with pytest.raises(DataError, match="`ci` of `compare_with_best`"):
        compare_with_best(two, PAR(2), ci=1.5)


@SETTINGS
@given(small_tables(), st.sampled_from(["PAR", "solved", "exp"]))
def test_virtual_best_bounds_every_algorithm(table, which):
    rule = {"PAR": PAR(2), "solved": Solved(), "exp": sympy.exp(-t / 10)}[which]
    scores = rank(table, {"r": rule})["r"]
    best = virtual_best(table, rule)
    chosen = single_best(table, rule)
    if which == "PAR":
        assert best <= scores.min() + 1e-9 and scores[chosen] == scores.min()
    else:
        assert best >= scores.max() - 1e-9 and scores[chosen] == scores.max()


# ---------------------------------------------------------------------------
# per_instance


def test_per_instance_is_what_rank_averages(parallel):
    rule = PARETO_60
    values = per_instance(parallel, rule)
    assert values.shape == (400, 9) and values.index.name == "instance"
    reference = pareto_by_hand(parallel).loc[values.index, values.columns]
    assert np.allclose(values.to_numpy(), reference.to_numpy(), rtol=1e-12, atol=0)
    ranked = rank(parallel, {**rule, "PAR-2": PAR(2), "solved": Solved()})
    assert np.allclose(values.mean().loc[ranked.index], ranked["pareto(60, 1)"], rtol=1e-12)
    assert np.allclose(per_instance(parallel, PAR(2)).mean().loc[ranked.index],
                       ranked["PAR-2"], rtol=1e-12)
    assert (per_instance(parallel, Solved()).sum().loc[ranked.index]
            == ranked["solved"]).all()


@SETTINGS
@given(small_tables(), st.sampled_from(["PAR", "solved", "exp"]))
def test_per_instance_property(table, which):
    rule = {"PAR": PAR(2), "solved": Solved(), "exp": sympy.exp(-t / 10)}[which]
    values = per_instance(table, rule)
    ranked = rank(table, {"r": rule}, ci=0.9, resamples=50, seed=0)
    totals = values.sum() if which == "solved" else values.mean()
    assert np.allclose(totals.loc[ranked.index], ranked["r"], rtol=1e-12, atol=1e-12)
    # the interval of a score lies between the worst and the best instance
    scale = len(values) if which == "solved" else 1
    assert (ranked["r ci low"] >= values.min().loc[ranked.index] * scale - 1e-9).all()
    assert (ranked["r ci high"] <= values.max().loc[ranked.index] * scale + 1e-9).all()
    # the rows' order does not matter
    shuffled = per_instance(table.sample(frac=1, random_state=0), rule)
    pd.testing.assert_frame_equal(shuffled.loc[values.index, values.columns], values)


def test_per_instance_policies():
    # a ran x twice (10 s, 30 s); b lacks y
    table = pd.DataFrame({"algorithm": ["a", "a", "a", "b"], "instance": ["x", "y", "x", "x"],
                          "runtime": [10.0, 100.0, 30.0, 20.0],
                          "status": ["solved", "capped", "solved", "solved"], "cutoff": 100.0})
    with pytest.raises(DataError, match="duplicates='mean'"):
        per_instance(table, PAR(2))
    values = per_instance(table, PAR(2), duplicates="mean", missing="unsolved")
    # by hand: a on x = mean(10, 30), on y 2 * 100; b on x 20, on y (missing) 2 * 100
    assert values.to_dict() == {"a": {"x": 20.0, "y": 200.0}, "b": {"x": 20.0, "y": 200.0}}
    first = per_instance(table, {"my rule": Solved()}, duplicates="first", missing="unsolved")
    assert first.to_dict() == {"a": {"x": 1.0, "y": 0.0}, "b": {"x": 1.0, "y": 0.0}}


# ---------------------------------------------------------------------------
# the command line


def run(capsys, *argv):
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def assert_one_line_error(status, err, pattern):
    assert status == 2
    assert len(err.splitlines()) == 1 and err.startswith("maxent-util: error: "), err
    assert pattern in err, err


@pytest.fixture
def long_csv(tmp_path):
    """Three solvers on eight instances, a long CSV as the published header has it."""
    rows = ["algorithm,instance,runtime,status,cutoff"]
    times = {"fast": [1, 2, 3, 4, 5, 6, 7, 8], "slow": [2, 3, 4, 5, 6, 7, 8, 9],
             "lazy": [50, 60, 70, 80, 90, 100, 100, 100]}
    for solver, values in times.items():
        for i, value in enumerate(values):
            status = "capped" if value >= 100 else "solved"
            rows.append(f"{solver},i{i},{value},{status},100")
    path = tmp_path / "runs.csv"
    path.write_text("\n".join(rows) + "\n")
    return path


def test_compare_command(capsys, long_csv):
    status, out, _ = run(capsys, "compare", str(long_csv), "fast", "slow", "--par", "2",
                         "--seed", "1", "--resamples", "500")
    assert status == 0
    assert "fast against slow on " in out
    assert "fast is ahead of slow by 1 in mean PAR-2, lower is better" in out
    assert "Wilcoxon signed-rank test: p = 0.007812" in out  # exact: 2 / 2**8
    assert "sign test: p = 0.007812" in out and "fast better on 8, slow better on 0" in out
    status, out, _ = run(capsys, "compare", str(long_csv), "fast", "lazy", "--utility",
                         "exp(-t/100)", "--json", "--seed", "1", "--resamples", "200",
                         "--cutoff", "80", "--format", "long")
    assert status == 0
    (record,) = json.loads(out)
    # by hand with the runs re-capped at 80 s: lazy solves in 50, 60 and 70 s, fast in 1..8 s
    assert record["mean_b"] == pytest.approx(sum(math.exp(-s / 100) for s in (50, 60, 70)) / 8)
    assert record["mean_a"] == pytest.approx(sum(math.exp(-s / 100) for s in range(1, 9)) / 8)
    assert record["a"] == "fast" and record["rule"] == "exp(-t/100)"


def test_compare_all_command(capsys, long_csv):
    status, out, _ = run(capsys, "compare", str(long_csv), "--all", "--solved", "--seed", "2",
                         "--resamples", "300")
    assert status == 0
    assert "all pairs of " in out and "(3 pairs, a ranked above b)" in out
    assert "wilcoxon p holm" in out and "significant" in out
    status, out, _ = run(capsys, "compare", str(long_csv), "--all", "--par", "2", "--csv",
                         "--resamples", "100", "--seed", "0")
    assert status == 0
    frame = pd.read_csv(pd.io.common.StringIO(out))
    assert len(frame) == 3 and {"rule", "a", "b", "sign p holm"} <= set(frame.columns)
    status, out, _ = run(capsys, "compare", "--dataset", "satcomp2021-parallel", "--all",
                         "--par", "2", "--json", "--resamples", "100", "--seed", "0")
    assert status == 0 and len(json.loads(out)) == 36


def test_compare_command_bad_input(capsys, long_csv):
    status, _, err = run(capsys, "compare", str(long_csv), "fast", "quick", "--par", "2")
    assert_one_line_error(status, err, "`b` of `compare` must be one of the table's algorithms "
                                       "(fast, lazy, slow); got 'quick'.")
    status, _, err = run(capsys, "compare", "--dataset", "satcomp2021-parallel", "pakis",
                         "kissat", "--par", "2")
    assert_one_line_error(status, err, "got 'kissat'")
    assert "mallobparallel" in err
    status, _, err = run(capsys, "compare", str(long_csv), "fast", "--par", "2")
    assert_one_line_error(status, err, "compare needs two algorithms A B")
    status, _, err = run(capsys, "compare", str(long_csv), "fast", "slow", "--all", "--par", "2")
    assert_one_line_error(status, err, "compare --all takes no algorithm names")
    status, _, err = run(capsys, "compare", str(long_csv), "fast", "slow")
    assert_one_line_error(status, err, "compare needs a rule")
    status, _, err = run(capsys, "compare", str(long_csv), "fast", "slow", "--par", "2",
                         "--ci", "95")
    assert_one_line_error(status, err, "argument --ci: expected a confidence level")
    status, _, err = run(capsys, "compare", str(long_csv), "fast", "slow", "--par", "2",
                         "--resamples", "0")
    assert_one_line_error(status, err, "argument --resamples: expected an integer of at least 1")


def test_rank_ci_command(capsys, long_csv):
    status, out, _ = run(capsys, "rank", str(long_csv), "--par", "2", "--ci", "0.9",
                         "--resamples", "400", "--seed", "3", "--json")
    assert status == 0
    records = {r["algorithm"]: r for r in json.loads(out)}
    assert records["fast"]["PAR-2 ci low"] <= records["fast"]["PAR-2"] \
        <= records["fast"]["PAR-2 ci high"]
    status, out, _ = run(capsys, "rank", str(long_csv), "--solved", "--ci", "0.9", "--seed", "3")
    assert status == 0 and "90% paired bootstrap interval" in out and " ci [" in out
    status, _, err = run(capsys, "rank", str(long_csv), "--par", "2", "--seed", "3")
    assert_one_line_error(status, err, "--resamples and --seed go with --ci")
    status, _, err = run(capsys, "rank", str(long_csv), "--par", "2", "--ci", "0.9",
                         "--seed", "-1")
    assert_one_line_error(status, err, "argument --seed")


def test_wilcoxon_on_many_instances_equals_scipy():
    # from 51 instances on the normal route is computed here (ranks, ties and all) without
    # scipy.stats: equal to scipy's own, column by column, with ties, zeros and all-zero columns
    rng = np.random.default_rng(5)
    tied = rng.choice([-3.0, -1.0, 0.0, 0.0, 1.0, 2.0, 2.5], size=(120, 5))
    tied[:, 2] = 0.0
    tied[:3, 2] = [1.0, 1.0, -2.0]
    tied[:, 4] = 0.0
    for differences in (tied, rng.normal(size=(300, 3)), rng.integers(-2, 3, size=(51, 4))):
        differences = differences.astype(float)
        p = _wilcoxon(differences)
        for j in range(differences.shape[1]):
            column = differences[:, j]
            expected = stats.wilcoxon(column).pvalue if column.any() else 1.0
            assert p[j] == pytest.approx(expected, rel=1e-12), (j, column)
