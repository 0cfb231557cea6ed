"""cap_runs: a runs table re-capped at a lower cutoff."""

from __future__ import annotations

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from maxent_util import DataError, cap_runs
from maxent_util.ranking import PAR, parse_rule, rank

STATUS = ["solved", "capped", "memout", "crash", "unverified"]


@st.composite
def tables(draw):
    n = draw(st.integers(1, 12))
    cutoff = 1000.0
    runtimes = draw(st.lists(st.floats(0, cutoff, allow_nan=False), min_size=n, max_size=n))
    status = draw(st.lists(st.sampled_from(STATUS), min_size=n, max_size=n))
    # a capped run stops at its cutoff; other runs keep their time
    runtimes = [cutoff if s == "capped" else r for r, s in zip(runtimes, status)]
    return pd.DataFrame({"algorithm": [f"a{i % 2}" for i in range(n)], "instance": [f"i{i}" for i in range(n)],
                         "runtime": runtimes, "status": status, "cutoff": cutoff})


@settings(max_examples=60, deadline=None)
@given(tables(), st.floats(1.0, 1000.0))
def test_capping_follows_the_rule_run_by_run(table, cutoff):
    capped = cap_runs(table, cutoff)
    # reference: the rule applied to each row in plain Python
    for (_, before), (_, after) in zip(table.iterrows(), capped.iterrows()):
        over = before["runtime"] >= cutoff
        assert after["runtime"] == (cutoff if over else before["runtime"])
        expected = "capped" if over and before["status"] == "solved" else before["status"]
        assert after["status"] == expected
        assert after["cutoff"] == min(before["cutoff"], cutoff)
    assert table["cutoff"].eq(1000.0).all()  # the caller's table is not changed


@settings(max_examples=40, deadline=None)
@given(tables(), st.floats(1.0, 1000.0), st.floats(1.0, 1000.0))
def test_capping_twice_is_capping_at_the_lower_cutoff(table, first, second):
    low, high = sorted((first, second))
    pd.testing.assert_frame_equal(cap_runs(cap_runs(table, high), low), cap_runs(table, low))


def test_par_after_capping_matches_a_hand_computation():
    table = pd.DataFrame({"algorithm": ["a", "a", "b", "b"], "instance": ["i", "j", "i", "j"],
                          "runtime": [10.0, 700.0, 1000.0, 300.0],
                          "status": ["solved", "solved", "capped", "solved"], "cutoff": 1000.0})
    ranking = rank(cap_runs(table, 500.0), {"PAR-2": PAR(2)})
    # by hand at a 500 s cutoff: a = (10 + 2*500)/2, b = (2*500 + 300)/2
    assert ranking.loc["a", "PAR-2"] == pytest.approx(505.0)
    assert ranking.loc["b", "PAR-2"] == pytest.approx(650.0)


def test_a_cutoff_cannot_extend_runs():
    table = pd.DataFrame({"algorithm": ["a"], "instance": ["i"], "runtime": [60.0],
                          "status": ["capped"]})
    with pytest.raises(DataError, match=r"^`cutoff` of `cap_runs` must be at most the runtime of its "
                                        r"capped run in row 0 of the runs \(60\.0 s: the run was "
                                        r"stopped there\); got 100\.0\."):
        cap_runs(table, 100.0)


@pytest.mark.parametrize("spec", [None, 3, b"PAR-2"])
def test_parse_rule_refuses_what_is_not_text(spec):
    from maxent_util import UtilityError
    with pytest.raises(UtilityError, match=r"^`spec` of `parse_rule` must be a string"):
        parse_rule(spec)
