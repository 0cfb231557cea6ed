"""Property tests of rank() and score(): utility scores lie in [0, 1] and do not
depend on the order of the rows; a table with a bad value or a bad design
raises a maxent_util error, never a raw exception."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pandas as pd
import pytest
import sympy
from conftest import runs_table
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from maxent_util.errors import MaxEntError
from maxent_util.io import STATUSES
from maxent_util.estimate import score
from maxent_util.ranking import PAR, Solved, per_instance, rank
from maxent_util.symbols import t

CUTOFF = 100.0
UTILITIES = {
    "exp": sympy.exp(-t / 10),
    "pareto": sympy.Piecewise((1, t < 5), (5 / t, True)),
    "uniform": sympy.Max(0, 1 - t / 500),
}
RULES = {**UTILITIES, "PAR-2": PAR(2), "solved": Solved()}

SETTINGS = settings(max_examples=40, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


@st.composite
def tables(draw):
    """A valid balanced table: every algorithm once on every instance, cutoff 100 s."""
    n_algorithms = draw(st.integers(1, 4))
    n_instances = draw(st.integers(1, 5))
    rows = []
    for a in range(n_algorithms):
        for i in range(n_instances):
            status = draw(st.sampled_from(STATUSES))
            runtime = draw(st.floats(0.0, 2 * CUTOFF, allow_nan=False))
            if status == "solved":
                runtime = min(runtime, CUTOFF)
            rows.append((f"alg{a}", f"inst{i}", runtime, status))
    return runs_table(rows, cutoff=CUTOFF)


@SETTINGS
@given(tables(), st.randoms(use_true_random=False))
def test_scores_in_unit_interval_and_row_order_free(table, random):
    ranking = rank(table, RULES, bounds=True)
    for name in UTILITIES:
        for column in (name, f"{name} lower", f"{name} upper"):
            assert ((ranking[column] >= 0) & (ranking[column] <= 1)).all(), column
        assert (ranking[f"{name} lower"] <= ranking[f"{name} upper"]).all()
    n_instances = table["instance"].nunique()
    assert ((ranking["solved"] >= 0) & (ranking["solved"] <= n_instances)).all()
    # ranks are pandas' "min" ranks of the scores
    for name, higher in [(n, True) for n in UTILITIES] + [("PAR-2", False), ("solved", True)]:
        expected = ranking[name].rank(method="min", ascending=not higher).astype(int)
        assert (ranking[f"{name} rank"] == expected).all()
    order = list(table.index)
    random.shuffle(order)
    shuffled = table.loc[order].reset_index(drop=True)
    pd.testing.assert_frame_equal(rank(shuffled, RULES, bounds=True).sort_index(),
                                  ranking.sort_index(), check_exact=True)


@st.composite
def broken_tables(draw):
    """A valid table with one defect in its values or its design."""
    table = draw(tables()).astype({"runtime": object, "cutoff": object})
    row = draw(st.integers(0, len(table) - 1))
    defect = draw(st.sampled_from(["nan runtime", "negative runtime", "inf runtime",
                                   "huge runtime", "string runtime", "unknown status",
                                   "missing status", "nan cutoff", "zero cutoff",
                                   "duplicate", "unbalanced", "empty name"]))
    column = {"nan runtime": ("runtime", math.nan), "negative runtime": ("runtime", -1.0),
              "inf runtime": ("runtime", math.inf), "huge runtime": ("runtime", 10**400),
              "string runtime": ("runtime", "fast"),
              "unknown status": ("status", draw(st.text(max_size=8))),
              "missing status": ("status", None), "nan cutoff": ("cutoff", math.nan),
              "zero cutoff": ("cutoff", 0.0), "empty name": ("instance", "")}.get(defect)
    if column is not None:
        name, value = column
        assume(not (name == "status" and value in STATUSES))
        table.at[table.index[row], name] = value
    elif defect == "duplicate":
        table = pd.concat([table, table.iloc[[row]]], ignore_index=True)
    else:  # unbalanced: some algorithm lacks an instance another one has
        assume(table["instance"].nunique() > 1 or table["algorithm"].nunique() > 1)
        assume(table["algorithm"].nunique() > 1 or len(table) > 1)
        if table["algorithm"].nunique() == 1:
            # one algorithm: instances cannot be unbalanced; drop to a duplicate instead
            table = pd.concat([table, table.iloc[[row]]], ignore_index=True)
        else:
            # dropping an algorithm's only run removes the algorithm, leaving a valid table
            runs_of_algorithm = (table["algorithm"] == table["algorithm"].iloc[row]).sum()
            assume(runs_of_algorithm > 1)
            table = table.drop(index=table.index[row])
    return table


@SETTINGS
@given(broken_tables())
def test_bad_tables_raise_library_errors(table):
    with pytest.raises(MaxEntError):
        rank(table, RULES)


@SETTINGS
@given(st.lists(st.one_of(st.floats(), st.integers(-10**400, 10**400)), min_size=1,
                max_size=8),
       st.sampled_from(list(UTILITIES.values())))
def test_score_is_a_unit_interval_or_a_library_error(runtimes, utility):
    try:
        result = score(runtimes, utility, cutoff=CUTOFF)
    except MaxEntError:
        return
    floats = np.asarray(runtimes, dtype=float)
    assert np.isfinite(floats).all() and (floats >= 0).all()
    for value in (result.estimate, result.lower, result.upper, result.ci_low, result.ci_high):
        assert 0.0 <= value <= 1.0
    # permuting the runs leaves every field unchanged (up to the order of a float sum)
    reversed_result = dataclasses.asdict(score(runtimes[::-1], utility, cutoff=CUTOFF))
    for field, value in dataclasses.asdict(result).items():
        expected = None if value is None else pytest.approx(value, rel=1e-12, abs=1e-15)
        assert reversed_result[field] == expected, field


@SETTINGS
@given(tables(), st.randoms(use_true_random=False))
def test_column_types_and_layouts_rank_alike(table, random):
    """String columns whose instances repeat in one order per algorithm (compared block by
    block), the same runs with one algorithm's instances reordered (hashed row by row), and
    categorical columns with unused categories out of name order all give one ranking."""
    ranking = rank(table, RULES, bounds=True)
    reordered = table.copy()
    last = np.flatnonzero(table["algorithm"] == table["algorithm"].iloc[-1])
    shuffled = list(last)
    random.shuffle(shuffled)
    reordered.iloc[last] = table.iloc[shuffled].to_numpy()
    pd.testing.assert_frame_equal(rank(reordered, RULES, bounds=True).sort_index(),
                                  ranking.sort_index(), check_exact=True)
    # the values land on their own instances (scores alone would not tell)
    pd.testing.assert_frame_equal(per_instance(reordered, PAR(2)).sort_index(),
                                  per_instance(table, PAR(2)).sort_index(), check_exact=True)
    categorical = table.astype({
        column: pd.CategoricalDtype(["unused"] + sorted(set(table[column]), reverse=True))
        for column in ("algorithm", "instance", "status")})
    pd.testing.assert_frame_equal(rank(categorical, RULES, bounds=True), ranking,
                                  check_exact=True)
