"""rank() and cross_utility() check the design of the runs table: one run per
(algorithm, instance), the same instances for every algorithm, rules that are
utilities; ties share the best rank."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
import sympy
from conftest import runs_table

from maxent_util.errors import DataError, UtilityError
from maxent_util.ranking import PAR, Solved, cross_utility, rank
from maxent_util.symbols import t

EXP10 = sympy.exp(-t / 10)


def grid():
    """Two solvers on two instances, cutoff 100 s."""
    return runs_table([("a", "i", 1.0, "solved"), ("a", "j", 100.0, "capped"),
                  ("b", "i", 10.0, "solved"), ("b", "j", 20.0, "solved")])


def reference(frame, per_run, aggregate="mean"):
    """Independent score: per_run value of each row, mean per (algorithm, instance),
    then mean (or sum) over instances, in plain pandas."""
    values = frame.assign(value=[per_run(r) for r in frame.itertuples()])
    cells = values.groupby(["algorithm", "instance"])["value"].mean()
    return getattr(cells.groupby(level="algorithm"), aggregate)()


def exp_value(row):
    return math.exp(-row.runtime / 10) if row.status == "solved" else 0.0


def par2_value(row):
    return row.runtime if row.status == "solved" else 2 * row.cutoff


# ---------------------------------------------------------------------------
# duplicated runs


def with_repeats():
    frame = grid()
    extra = runs_table([("a", "i", 5.0, "solved"), ("b", "j", 100.0, "capped")])
    return pd.concat([frame, extra], ignore_index=True).rename(index=lambda i: f"r{i}")


def test_duplicates_mean_averages_each_cell_first():
    frame = with_repeats()
    ranking = rank(frame, {"exp": EXP10, "PAR-2": PAR(2), "solved": Solved()},
                   duplicates="mean")
    # reference: plain pandas, mean over the repeated runs of a cell, then over instances
    exp = reference(frame, exp_value)
    par2 = reference(frame, par2_value)
    solved = reference(frame, lambda r: float(r.status == "solved"), "sum")
    for algorithm in "ab":
        assert ranking.loc[algorithm, "exp"] == pytest.approx(exp[algorithm], rel=1e-14)
        assert ranking.loc[algorithm, "PAR-2"] == pytest.approx(par2[algorithm], rel=1e-14)
        assert ranking.loc[algorithm, "solved"] == pytest.approx(solved[algorithm])
    # by hand: b solved i and half of j
    assert ranking.loc["b", "solved"] == 1.5


def test_duplicates_first_keeps_the_first_run_in_table_order():
    frame = with_repeats()
    ranking = rank(frame, {"exp": EXP10, "PAR-2": PAR(2)}, duplicates="first")
    plain = rank(grid(), {"exp": EXP10, "PAR-2": PAR(2)})  # the rows before the repeats
    pd.testing.assert_frame_equal(ranking, plain)
    # the other order keeps the other runs
    reordered = frame.iloc[::-1]
    kept = reordered[~reordered.duplicated(["algorithm", "instance"])]
    expected = reference(kept, exp_value)
    ranking = rank(reordered, {"exp": EXP10}, duplicates="first")
    assert ranking["exp"].to_dict() == pytest.approx(expected.to_dict(), rel=1e-14)


# ---------------------------------------------------------------------------
# unbalanced tables


def unbalanced():
    return runs_table([("a", "i", 1.0, "solved"), ("a", "j", 3.0, "solved"),
                  ("a", "k", 100.0, "capped"), ("b", "i", 10.0, "solved")])


def test_missing_unsolved_counts_a_capped_run_at_the_cutoff():
    frame = unbalanced()
    ranking = rank(frame, {"exp": EXP10, "PAR-2": PAR(2)}, missing="unsolved", bounds=True)
    # reference: the table completed by hand with timeouts at the 100 s cutoff
    completed = pd.concat([frame, runs_table([("b", "j", 100.0, "capped"),
                                         ("b", "k", 100.0, "capped")])], ignore_index=True)
    exp = reference(completed, exp_value)
    par2 = reference(completed, par2_value)
    for algorithm in "ab":
        assert ranking.loc[algorithm, "exp"] == pytest.approx(exp[algorithm], rel=1e-14)
        assert ranking.loc[algorithm, "PAR-2"] == pytest.approx(par2[algorithm], rel=1e-14)
    # upper bound: the added timeouts count u(100) = e^-10, as a's own timeout does
    assert ranking.loc["b", "exp upper"] == pytest.approx(
        (math.exp(-1) + 2 * math.exp(-10)) / 3, rel=1e-14)


def unbalanced_with_two_cutoffs():
    """unbalanced() plus an algorithm c whose run on j had a 50 s cutoff."""
    return pd.concat([unbalanced(), runs_table([("c", "j", 50.0, "capped")], cutoff=50.0),
                      runs_table([("c", "i", 1.0, "solved"), ("c", "k", 1.0, "solved")])],
                     ignore_index=True)


DESIGN_MISUSE = [
    pytest.param(lambda: rank(with_repeats(), {"exp": EXP10}), DataError,
                 r"^`table` of `rank` must be one run per \(algorithm, instance\) pair; got \"2 runs of "
                 r"\('a', 'i'\) at rows 'r0', 'r4' \(2 repeated pairs in all\)\"\. Pass duplicates='mean' .* "
                 r"duplicates='first'", id="duplicates"),
    pytest.param(lambda: cross_utility(with_repeats(), {"exp": EXP10, "PAR-2": PAR(2)}), DataError,
                 r"^`table` of `cross_utility` must be one run per", id="duplicates-cross-utility"),
    pytest.param(lambda: rank(unbalanced(), {"PAR-2": PAR(2)}), DataError,
                 r"^`table` of `rank` must be a run of every algorithm on every instance .*; got \"no run of 'b' "
                 r"on 'j', 'k'\"\. Pass missing='unsolved'", id="missing-runs"),
    pytest.param(lambda: cross_utility(unbalanced(), {"PAR-2": PAR(2), "exp": EXP10}), DataError,
                 r"^`table` of `cross_utility` must be a run of every", id="missing-runs-cross-utility"),
    pytest.param(lambda: rank(unbalanced().drop(columns="cutoff"), {"PAR-2": PAR(2)}, missing="unsolved"),
                 DataError, r"^`missing` of `rank` must be 'raise' for a table without a 'cutoff' column",
                 id="missing-unsolved-without-cutoffs"),
    pytest.param(lambda: rank(unbalanced_with_two_cutoffs(), {"PAR-2": PAR(2)}, missing="unsolved"), DataError,
                 r"^`cutoff` of `rank, instance 'j'` must be one value .*; got \[50\.0, 100\.0\]\.$",
                 id="missing-unsolved-with-two-cutoffs"),
]


@pytest.mark.parametrize("call, error, message", DESIGN_MISUSE)
def test_tables_of_another_design_are_refused_naming_the_runs(call, error, message):
    with pytest.raises(error, match=message):
        call()


@pytest.mark.parametrize("keyword, value, message", [
    pytest.param("duplicates", "drop",
                 r"^`duplicates` of `rank` must be one of 'raise', 'mean', 'first'; got 'drop'\.$", id="duplicates"),
    pytest.param("missing", None, r"^`missing` of `rank` must be one of 'raise', 'unsolved'; got None\.$",
                 id="missing"),
])
def test_unknown_policies(keyword, value, message):
    with pytest.raises(DataError, match=message):
        rank(grid(), {"PAR-2": PAR(2)}, **{keyword: value})


# ---------------------------------------------------------------------------
# rules that are not utilities


@pytest.mark.parametrize("rule, message", [
    # NaN in the expression itself: refused before any run is scored
    pytest.param(sympy.Piecewise((sympy.nan, t < 5), (0, True)),
                 r"^`utility` of `rank` must be a defined real value; got Piecewise\(\(nan, t < 5\), \(0, True\)\)\. "
                 r"\(rule 'bad'\)$", id="nan"),
    # 2 e^(-1/100) at a's 1 s run
    pytest.param(2 * sympy.exp(-t / 100), r"must be a number between 0 and 1 on every run; got 1\.98",
                 id="above-1"),
    # (t - 5)^(1/3) is complex below 5 s: the scorer cannot make a real number of it
    pytest.param((t - 5) ** sympy.Rational(1, 3),
                 r"^`utility` of `rank` must be a real number at every runtime of the runs; got 'NaN at runtime "
                 r"1\.0'\. \(rule 'bad'\)", id="complex"),
    pytest.param(t / 100,
                 r"^`utility` of `rank` must be non-increasing in t on the runs; got 'u\(1\.0\) = 0\.01 < "
                 r"u\(10\.0\) = 0\.1'\. \(rule 'bad', at row 0 and row 2\)", id="increasing"),
])
@pytest.mark.parametrize("entry", ["rank", "cross_utility"])
def test_rules_that_are_not_utilities_are_refused(rule, message, entry):
    with pytest.raises(UtilityError, match=message.replace("`rank`", f"`{entry}`")):
        {"rank": rank, "cross_utility": cross_utility}[entry](grid(), {"PAR-2": PAR(2), "bad": rule})


def test_an_increase_at_the_cutoff_is_seen_by_the_bounds_check():
    # u rises from 0.5 to 1 past 50 s: only a's timeout (stopped at 100 s) lies there
    rule = sympy.Piecewise((0.5, t < 50), (1, True))
    with pytest.raises(UtilityError, match=r"non-increasing in t on the runs; got "
                                           r"'u\(20\.0\) = 0\.5 < u\(100\.0\) = 1\.0'"):
        rank(grid(), {"step": rule})


@pytest.mark.parametrize("names, bounds, message", [
    (["exp", "exp rank"], False, r"rule 'exp rank' makes the column 'exp rank', as does rule "
                                 r"'exp'"),
    (["exp", "exp lower"], True, r"rule 'exp lower' makes the column 'exp lower', as does "
                                 r"rule 'exp'"),
    (["algorithm"], False, r"rule 'algorithm' makes the column 'algorithm', as does the "
                           r"index"),
])
def test_colliding_columns_are_refused(names, bounds, message):
    rules = {name: EXP10 for name in names}
    with pytest.raises(UtilityError, match=r"^`utilities` of `rank` must be named so that no two "
                                           r"columns of the result share a name \(" + message):
        rank(grid(), rules, bounds=bounds)


def test_a_bounds_like_name_is_fine_without_bounds():
    rules = {"exp": EXP10, "exp lower": EXP10}
    assert list(rank(grid(), rules).columns) == ["exp", "exp rank", "exp lower", "exp lower rank"]


# ---------------------------------------------------------------------------
# ties


def test_ties_get_the_min_rank_as_pandas():
    # four solvers; b and c solve the same instances in the same times, d solves nothing
    frame = runs_table([(s, i, 100.0 if s == "d" or (s == "a" and i == "y") else 7.0,
                    "capped" if s == "d" or (s == "a" and i == "y") else "solved")
                   for s in "abcd" for i in "xyz"])
    ranking = rank(frame, {"solved": Solved(), "exp": EXP10, "PAR-2": PAR(2)})
    for rule, higher in (("solved", True), ("exp", True), ("PAR-2", False)):
        # reference: pandas' own "min" ranking of the scores
        expected = ranking[rule].rank(method="min", ascending=not higher).astype(int)
        assert ranking[f"{rule} rank"].to_dict() == expected.to_dict()
    # by hand: b and c solve 3, a 2, d 0
    assert ranking["solved rank"].to_dict() == {"b": 1, "c": 1, "a": 3, "d": 4}


def test_cross_utility_averages_over_a_tie_for_first():
    frame = runs_table([("a", "i", 1.0, "solved"), ("a", "j", 100.0, "capped"),
                   ("b", "i", 50.0, "solved"), ("b", "j", 60.0, "solved"),
                   ("c", "i", 90.0, "solved"), ("c", "j", 2.0, "solved")])
    cross = cross_utility(frame, {"solved": Solved(), "PAR-2": PAR(2)})
    # b and c both solve 2: a tie for first under 'solved'
    assert cross.attrs["picked"] == {"solved": ("b", "c"), "PAR-2": "c"}
    # by hand: PAR-2 means a 100.5, b 55, c 46; picking b or c at random keeps on average
    # (46/55 + 46/46) / 2 of the best PAR-2
    assert cross.loc["solved", "PAR-2"] == pytest.approx((46 / 55 + 1) / 2)
    assert cross.loc["PAR-2", "solved"] == 1.0
    np.testing.assert_array_equal(np.diag(cross.to_numpy()), 1.0)
