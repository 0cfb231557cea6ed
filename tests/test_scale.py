"""Large tables in little memory: read_long's pyarrow route, the vectorised validation of
categorical and string columns, and rank on categorical tables.

References: read_long's cell-by-cell route (pyarrow switched off) for the reader, and rank on
the same rows as plain object columns for the ranking.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import maxent_util.io.long as long_module
from maxent_util import DataError, rank, validate_table
from maxent_util.io import read_long
from maxent_util.ranking import PAR, Solved, parse_rule

pytest.importorskip("pyarrow")

HEADER = "algorithm,instance,runtime,status,cutoff,note\n"


def exact(path):
    """read_long by the cell-by-cell route (pyarrow off)."""
    saved = long_module._read_long_blocks
    long_module._read_long_blocks = lambda source, limits: None
    try:
        return read_long(path)
    finally:
        long_module._read_long_blocks = saved


def test_the_arrow_route_reads_what_the_exact_route_reads(tmp_path, monkeypatch):
    monkeypatch.setattr(long_module, "_BLOCK_SIZE", 64)  # many blocks: codes joined across them
    path = tmp_path / "runs.csv"
    path.write_text(HEADER + "".join(
        f"s{i % 3},inst {i % 7}.cnf,{i * 1.5},{['solved', 'TIMEOUT', 'memout'][i % 3]},100,"
        f"n{i}\n" for i in range(40)))
    fast = read_long(path)
    assert isinstance(fast["instance"].dtype, pd.CategoricalDtype)
    assert fast["status"].value_counts().to_dict() == {"solved": 14, "capped": 13, "memout": 13}
    pd.testing.assert_frame_equal(fast, exact(path), check_dtype=False, check_categorical=False)


@pytest.mark.parametrize("body, message", [
    ("a, x ,1,solved,10,n\n", None),                        # padded names: stripped by both
    ("a,x,abc,solved,10,n\n", "`runtime` of"),              # not a number
    ("a,,1,solved,10,n\n", "`instance` of"),                # empty name
    ("a,x,20,solved,10,n\n", "at most the cutoff 10.0"),    # solved after its cutoff
    ("a,x,1,bogus,10,n\n", "`status` of"),
    ("a,x,1,solved,10\n", None),                            # short row: pandas pads it
])
def test_anything_out_of_the_ordinary_falls_back_to_the_exact_route(tmp_path, body, message):
    path = tmp_path / "odd.csv"
    path.write_text(HEADER + "b,y,2,solved,10,m\n" + body)
    if message is None:
        pd.testing.assert_frame_equal(read_long(path), exact(path), check_dtype=False,
                                      check_categorical=False)
    else:
        with pytest.raises(DataError, match=message) as fast:
            read_long(path)
        with pytest.raises(DataError) as slow:
            exact(path)
        assert str(fast.value) == str(slow.value)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["a", "b", "c"]), st.sampled_from(["x", "y", "z"]),
                          st.floats(0, 50, allow_nan=False),
                          st.sampled_from(["solved", "capped", "crash"])),
                min_size=1, max_size=30))
def test_random_long_csvs_read_the_same_by_both_routes(tmp_path_factory, rows):
    path = tmp_path_factory.mktemp("csv") / "runs.csv"
    pd.DataFrame(rows, columns=["algorithm", "instance", "runtime", "status"]).assign(
        cutoff=50.0).to_csv(path, index=False)
    pd.testing.assert_frame_equal(read_long(path), exact(path), check_dtype=False,
                                  check_categorical=False)


def test_validation_of_categorical_and_string_columns_names_the_row():
    runs = pd.DataFrame({"algorithm": ["a", "b", ""], "instance": ["x", "x", "x"],
                         "runtime": [1.0, 2.0, 3.0], "status": ["solved"] * 3})
    for dtype in (object, "category", "string", str):
        with pytest.raises(DataError, match=r"`algorithm` of `table, row 2` must be a "
                                            r"non-empty string; got ''"):
            validate_table(runs.astype({"algorithm": dtype}))
    mixed = runs.assign(algorithm=["a", 7, "c"])
    with pytest.raises(DataError, match=r"`algorithm` of `table, row 1` .* got 7"):
        validate_table(mixed)
    status = runs.assign(algorithm="a", status=pd.Categorical(["solved", "lost", "solved"]))
    with pytest.raises(DataError, match=r"`status` of `table, row 1` .* got 'lost'"):
        validate_table(status)
    numbers = runs.assign(algorithm="a", runtime=pd.Series([1, 2.5, True], dtype=object))
    with pytest.raises(DataError, match=r"`runtime` of `table, row 2` must be a number"):
        validate_table(numbers)
    validate_table(runs.assign(algorithm="a", runtime=pd.Series([1, 2.5, 3], dtype=object)))


def test_rank_of_a_categorical_table_orders_algorithms_by_name():
    rng = np.random.default_rng(3)
    runs = pd.DataFrame({"algorithm": np.repeat(["zeta", "alpha", "mid"], 5),
                         "instance": np.tile([f"i{j}" for j in range(5)], 3),
                         "runtime": rng.uniform(0, 10, 15).round(3),
                         "status": rng.choice(["solved", "capped"], 15), "cutoff": 10.0})
    rules = {"exp": parse_rule("exp(-t)"), "PAR-2": PAR(2), "solved": Solved()}
    plain = rank(runs, rules, bounds=True)
    categorical = runs.astype({"algorithm": "category", "instance": "category",
                               "status": "category"})
    # categories in first-seen order (zeta first): the ranking still sorts names
    categorical["algorithm"] = categorical["algorithm"].cat.reorder_categories(
        ["zeta", "alpha", "mid"])
    pd.testing.assert_frame_equal(rank(categorical, rules, bounds=True), plain)
    # rows in another order: the same scores to the bit (sums in sorted order)
    shuffled = categorical.sample(frac=1.0, random_state=1)
    pd.testing.assert_frame_equal(rank(shuffled, rules, bounds=True), plain, check_exact=True)
