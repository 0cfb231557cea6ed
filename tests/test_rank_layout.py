"""long_table's layouts: algorithm-major runs in one instance order (no key per run), names
checked on their distinct values, statuses read in two passes; each must place every run in
its own cell and refuse what validate_table refuses, with the same message."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import runs_table
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from maxent_util.errors import DataError
from maxent_util.io import STATUSES, read_long, validate_table
from maxent_util.io.table import checked_table
from maxent_util.ranking import PAR, Solved, _exact_in_any_order, rank
from maxent_util.runs import long_table

SETTINGS = settings(max_examples=40, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])
RULES = {"PAR-2": PAR(2), "solved": Solved(), "exp": "exp(-t/10)"}


@st.composite
def grids(draw):
    """Every algorithm once on every instance, algorithm-major, in one instance order."""
    n_algorithms = draw(st.integers(1, 4))
    n_instances = draw(st.integers(1, 6))
    instances = draw(st.permutations([f"i{j}" for j in range(n_instances)]))
    algorithms = draw(st.permutations([f"a{k}" for k in range(n_algorithms)]))
    rows = [(a, i, draw(st.floats(0.0, 100.0)), draw(st.sampled_from(STATUSES)))
            for a in algorithms for i in instances]
    return runs_table(rows)


def layouts(table: pd.DataFrame, random) -> list[pd.DataFrame]:
    """The table as strings, with one algorithm's runs reordered, as categoricals in
    first-seen order (as read_long makes them), and out of order with an unused category."""
    reordered = table.copy()
    last = np.flatnonzero(table["algorithm"] == table["algorithm"].iloc[-1])
    shuffled = list(last)
    random.shuffle(shuffled)
    reordered.iloc[last] = table.iloc[shuffled].to_numpy()
    first_seen = table.astype({column: pd.CategoricalDtype(table[column].unique())
                               for column in ("algorithm", "instance", "status")})
    unordered = table.astype({
        column: pd.CategoricalDtype(["unused"] + sorted(set(table[column]), reverse=True))
        for column in ("algorithm", "instance", "status")})
    return [table, reordered, first_seen, unordered]


@SETTINGS
@given(grids(), st.randoms(use_true_random=False))
def test_every_run_lands_in_its_own_cell(table, random):
    ranking = rank(table, RULES)
    for layout in layouts(table, random):
        runs = long_table(layout, "test")
        n_instances = runs.instances.size
        algorithm = layout["algorithm"].astype(object).to_numpy()
        instance = layout["instance"].astype(object).to_numpy()
        assert list(runs.names[runs.cell_algorithm[runs.cells]]) == list(algorithm)
        assert list(runs.instances[runs.cells % n_instances]) == list(instance)
        assert list(runs.names) == sorted(set(algorithm))
        assert list(runs.instances) == list(pd.unique(instance))  # first-seen order
        assert runs.ordered == bool(np.array_equal(runs.cells, np.arange(len(layout))))
        solved = (layout["status"].astype(object) == "solved").to_numpy()
        assert np.array_equal(runs.solved, solved)
        assert np.array_equal(runs.capped, (layout["status"].astype(object) == "capped").to_numpy())
        pd.testing.assert_frame_equal(rank(layout, RULES).sort_index(), ranking.sort_index(),
                                      check_exact=True)


class _EqualToAll:
    """Not a str, yet equal to every value (a comparison of neighbours would take it for its
    neighbour)."""

    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    __hash__ = object.__hash__


@SETTINGS
@given(grids(), st.sampled_from(["algorithm", "instance"]), st.data(),
       st.sampled_from(["", 7, None, "object"]))
def test_a_bad_name_anywhere_is_refused_as_validate_table_refuses_it(table, column, data, bad):
    rows = data.draw(st.lists(st.integers(0, len(table) - 1), min_size=1, max_size=3))
    broken = table.astype({column: object})
    for row in rows:
        broken.iat[row, broken.columns.get_loc(column)] = _EqualToAll() if bad == "object" else bad
    broken.index = [f"r{k}" for k in range(len(broken))]
    with pytest.raises(DataError) as expected:
        validate_table(broken, name="table")
    assert f"row 'r{min(rows)}'" in str(expected.value)
    with pytest.raises(DataError) as got:
        rank(broken, RULES)
    assert str(got.value) == str(expected.value)


@SETTINGS
@given(st.lists(st.sampled_from(STATUSES + ("Solved", "timeout", "")), min_size=1,
                max_size=30))
def test_statuses_read_in_two_passes_agree_with_a_lookup_per_row(statuses):
    table = runs_table([("a", f"i{k}", 1.0, status) for k, status in enumerate(statuses)])
    known = [status in STATUSES for status in statuses]
    if not all(known):
        with pytest.raises(DataError, match=f"row {known.index(False)}"):
            checked_table(table)
        return
    checked = checked_table(table)
    assert list(checked.solved) == [status == "solved" for status in statuses]
    assert list(checked.capped) == [status == "capped" for status in statuses]


def test_integer_values_are_told_apart_from_fractions_block_by_block():
    # a fraction, or a total at 2**53, after the first block of 2**20 values settles it
    values = np.ones(3 << 20)
    assert _exact_in_any_order(values)
    values[(2 << 20) + 5] = 0.5
    assert not _exact_in_any_order(values)
    values[(2 << 20) + 5] = 2.0 ** 53
    assert not _exact_in_any_order(values)


def test_par_values_are_the_runtime_or_k_times_the_cutoff():
    runtimes = np.array([1.0, 7.5, 30.0, 0.0])
    solved = np.array([True, False, True, False])
    cutoffs = np.array([10.0, 10.0, 30.0, 3.0])
    assert list(PAR(2.5).per_run(runtimes, solved, cutoffs)) == [1.0, 25.0, 30.0, 7.5]
    assert list(PAR(2.5).per_run(runtimes, solved, None)) == [1.0, 18.75, 30.0, 0.0]


def test_read_long_categories_still_look_names_up(tmp_path):
    path = tmp_path / "runs.csv"
    path.write_text("algorithm,instance,runtime,status\n"
                    "x,b.cnf,1,solved\nx,a.cnf,2,solved\ny,b.cnf,3,capped\ny,a.cnf,4,solved\n")
    table = read_long(path)
    assert table["instance"].cat.categories.get_loc("a.cnf") == 1
    assert list(rank(table, {"solved": Solved()})["solved"]) == [2, 1]
