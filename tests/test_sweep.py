"""Sweeps and crossovers (maxent_util.sweeps): the scores equal rank()'s at every value, the
crossovers are the roots of the score difference (checked against closed forms, mpmath at 30
digits, and an exact piecewise-linear computation on the bundled 2021 parallel track), and bad
input raises a maxent_util error naming the argument."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pandas as pd
import pytest
from conftest import run_script
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from maxent_util import families
from maxent_util.datasets import satcomp2021
from maxent_util.errors import DataError, MaxEntError, UtilityError
from maxent_util.ranking import rank
from maxent_util.sweeps import crossovers, ranking_changes, sweep

SETTINGS = settings(max_examples=25, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


def runs(rows, cutoff=None):
    frame = pd.DataFrame(rows, columns=["algorithm", "instance", "runtime", "status"])
    if cutoff is not None:
        frame["cutoff"] = cutoff
    return frame


# ---------------------------------------------------------------------------
# closed forms


def test_exponential_crossover_is_one_over_log_golden_ratio():
    # A solves in 1 s and 4 s, B both in 2 s; under exponential(k) with x = exp(-1/k) the
    # difference of the sums is x + x^4 - 2x^2 = x (x - 1)(x^2 + x - 1): the root in (0, 1)
    # is x = (sqrt(5) - 1)/2, so k = -1/log((sqrt(5) - 1)/2) = 1/log(golden ratio).
    table = runs([("A", "i", 1.0, "solved"), ("A", "j", 4.0, "solved"),
                  ("B", "i", 2.0, "solved"), ("B", "j", 2.0, "solved")])
    found = crossovers(table, "A", "B", "exponential", "kappa0", (0.01, 1000))
    expected = 1 / math.log((1 + math.sqrt(5)) / 2)
    assert list(found["kind"]) == ["cross"]
    assert found["kappa0"].iat[0] == pytest.approx(expected, rel=1e-9)
    # small k: x dominates x^2, A ahead; large k: B ahead
    assert (found["below"].iat[0], found["above"].iat[0]) == ("A", "B")
    assert abs(found["difference"].iat[0]) < 1e-12


def test_pareto_crossover_in_alpha():
    # pareto(1, alpha): u(t) = t^-alpha for t >= 1. A solves one instance of two in 2 s, B both
    # in 3 s: 2^-alpha / 2 = 3^-alpha where (3/2)^alpha = 2, alpha = log 2 / log 1.5. At small
    # alpha B's 1 beats A's 1/2.
    table = runs([("A", "i", 2.0, "solved"), ("A", "j", 9.0, "capped"),
                  ("B", "i", 3.0, "solved"), ("B", "j", 3.0, "solved")])
    found = crossovers(table, "A", "B", families.pareto, "alpha", (0.01, 50), kappa0=1)
    assert list(found["kind"]) == ["cross"]
    assert found["alpha"].iat[0] == pytest.approx(math.log(2) / math.log(1.5), rel=1e-9)
    assert (found["below"].iat[0], found["above"].iat[0]) == ("B", "A")


def test_log_normal_crossover_against_mpmath_at_30_digits():
    # log_normal(k, 1): u(t) = erfc(log(t/k)/sqrt(2))/2. A solves in 1 s and 50 s, B both in
    # 5 s; the root of the difference found by mpmath (anderson on a hand bracket) at 30 digits.
    table = runs([("A", "i", 1.0, "solved"), ("A", "j", 50.0, "solved"),
                  ("B", "i", 5.0, "solved"), ("B", "j", 5.0, "solved")])
    mpmath.mp.dps = 30
    try:
        def u(time, k):
            return mpmath.erfc(mpmath.log(time / k) / mpmath.sqrt(2)) / 2

        def difference(k):
            return u(1, k) + u(50, k) - 2 * u(5, k)

        root = mpmath.findroot(difference, (mpmath.mpf(2), mpmath.mpf(20)), solver="anderson")
        expected = float(root)
        assert abs(difference(root)) < mpmath.mpf(10) ** -25
    finally:
        mpmath.mp.dps = 15
    found = crossovers(table, "A", "B", "log_normal", "kappa0", (0.5, 500), sigma=1)
    assert list(found["kind"]) == ["cross"]
    assert found["kappa0"].iat[0] == pytest.approx(expected, rel=1e-9)


def test_a_tie_interval_and_a_crossing_under_pareto():
    # alpha = 1. A solves in 1 s and 4 s, B in 2 s and 3 s. For 1 <= k < 2: A = (1 + k/4)/2,
    # B = (k/2 + k/3)/2, equal at k = 12/7 (A ahead below). For 3 <= k < 4 B = 1 > A; from
    # k = 4 on both solve everything within k: both score 1, a tie from 4 to the upper bound.
    table = runs([("A", "i", 1.0, "solved"), ("A", "j", 4.0, "solved"),
                  ("B", "i", 2.0, "solved"), ("B", "j", 3.0, "solved")])
    found = crossovers(table, "A", "B", "pareto", "kappa0", (0.1, 100), alpha=1)
    assert list(found["kind"]) == ["cross", "tie starts"]
    assert found["kappa0"].tolist() == pytest.approx([12 / 7, 4.0], rel=1e-9)
    assert found["below"].tolist() == ["A", "B"]
    assert found["above"].tolist() == ["B", None]
    assert found["score"].iat[1] == pytest.approx(1.0)
    assert not found.attrs["tied"]
    # searched from inside the tie, there is nothing to report:
    inside = crossovers(table, "A", "B", "pareto", "kappa0", (5, 100), alpha=1)
    assert inside.empty and inside.attrs["tied"]


def test_identical_algorithms_never_cross():
    table = runs([("A", "i", 1.0, "solved"), ("A", "j", 4.0, "capped"),
                  ("B", "j", 4.0, "capped"), ("B", "i", 1.0, "solved")])
    found = crossovers(table, "A", "B", "exponential", "kappa0", (0.1, 100), log=False)
    assert found.empty and found.attrs["tied"]
    assert list(found.columns) == ["kappa0", "kind", "below", "above", "score", "difference"]


def test_ranking_changes_of_three_algorithms():
    # pareto(k, 1), one instance each: A solves in 1 s, B in 10 s, C fails. A's score is
    # min(1, k) and B's min(1, k/10) <= A's, equal (both 1) from k = 10 on; C scores 0.
    table = runs([("A", "i", 1.0, "solved"), ("B", "i", 10.0, "solved"),
                  ("C", "i", 3.0, "crash")])
    changes = ranking_changes(table, "pareto", "kappa0", (0.5, 50), alpha=1)
    assert changes["start"].tolist() == pytest.approx([0.5, 10.0], rel=1e-9)
    assert changes["end"].tolist() == pytest.approx([10.0, 50.0], rel=1e-9)
    assert changes["order"].tolist() == [("A", "B", "C"), ("A", "B", "C")]
    assert changes["ranks"].tolist() == [(1, 2, 3), (1, 1, 3)]
    assert changes["leader"].tolist() == ["A", "A = B"]


# ---------------------------------------------------------------------------
# the bundled 2021 parallel track


def _pareto_leader_changes(table, low, high):
    """Where the leader changes under pareto(k, 1), computed exactly and independently.

    With alpha = 1 an algorithm's score is (#{solved t <= k} + k * sum_{solved t > k} 1/t) / n:
    linear in k between consecutive solved runtimes. On each such segment the leader is the
    upper envelope of lines, walked from the left: the next change is the first place where a
    line with a larger slope catches up.
    """
    n = table["instance"].nunique()
    solved = table[table["status"] == "solved"]
    names = sorted(table["algorithm"].unique())
    times = {a: np.sort(solved.loc[solved["algorithm"] == a, "runtime"].to_numpy(float))
             for a in names}

    def lines(k):  # intercepts and slopes valid just right of k
        intercept = np.array([np.sum(times[a] <= k) / n for a in names])
        slope = np.array([np.sum(1 / times[a][times[a] > k]) / n for a in names])
        return intercept, slope

    breaks = np.unique(np.concatenate([[low, high], *[t[(t > low) & (t < high)]
                                                     for t in times.values()]]))
    changes, leaders = [], []
    for left, right in zip(breaks[:-1], breaks[1:]):
        a, b = lines(left)
        k = left
        while True:
            values = a + b * (k + 1e-9 * (right - left))  # just right of k
            leader = int(np.argmax(values))
            if not leaders or leaders[-1] != names[leader]:
                if leaders:
                    changes.append(k)
                leaders.append(names[leader])
            faster = b > b[leader]
            if not faster.any():
                break
            meet = (a[leader] - a[faster]) / (b[faster] - b[leader])
            meet = meet[meet > k * (1 + 1e-12)]
            if not meet.size or meet.min() >= right:
                break
            k = float(meet.min())
    return changes, leaders


@pytest.fixture(scope="module")
def parallel():
    return satcomp2021("parallel")


@pytest.fixture(scope="module")
def parallel_changes(parallel):
    return ranking_changes(parallel, "pareto", "kappa0", (1, 5000), alpha=1)


def test_leader_on_the_parallel_track_as_kappa0_runs_to_5000(parallel, parallel_changes):
    leaders = parallel_changes["leader"].tolist()
    joined = [leaders[0]]
    starts = []
    for start, leader in zip(parallel_changes["start"], leaders):
        if leader != joined[-1]:
            joined.append(leader)
            starts.append(start)
    expected_changes, expected_leaders = _pareto_leader_changes(parallel, 1.0, 5000.0)
    # the answer, as the exact piecewise-linear computation above gives it
    assert expected_leaders == ["pakis", "mallobparallel", "pmcomsps", "mallobparallel",
                                "pmcomsps"]
    assert joined == expected_leaders
    assert starts == pytest.approx(expected_changes, rel=1e-9)
    assert expected_changes == pytest.approx([3.767541, 107.445549, 425.988602, 1333.140797],
                                             rel=1e-6)


def test_the_order_between_change_points_is_ranks(parallel, parallel_changes):
    # every interval: rank() under families.pareto(value, 1) at its geometric middle
    for row in parallel_changes.itertuples():
        value = math.sqrt(row.start * row.end)
        ranking = rank(parallel, {"u": families.pareto(value, 1).utility()})
        expected = sorted(zip(ranking["u rank"], ranking.index))
        assert [name for _, name in expected] == list(row.order)
        assert [int(r) for r, _ in expected] == list(row.ranks)


def test_sweep_of_the_parallel_track_equals_rank(parallel):
    values = [1.0, 3.0, 42.5, 800.0, 5000.0]
    frame = sweep(parallel, "pareto", "kappa0", values, alpha=1)
    assert frame.attrs == {"family": "pareto(kappa0, 1)", "parameter": "kappa0"}
    for value in values:
        ranking = rank(parallel, {"u": families.pareto(value, 1).utility()})
        part = frame[frame["kappa0"] == value].set_index("algorithm")
        assert part["score"].to_dict() == pytest.approx(ranking["u"].to_dict(), rel=1e-12)
        assert part["rank"].to_dict() == ranking["u rank"].to_dict()


# ---------------------------------------------------------------------------
# properties


@st.composite
def tables(draw, n_algorithms=(1, 4)):
    """A balanced table: every algorithm once on every instance; runtimes on a coarse grid so
    that equal values (exact ties) are common."""
    count = draw(st.integers(*n_algorithms))
    n_instances = draw(st.integers(1, 4))
    rows = []
    for a in range(count):
        for i in range(n_instances):
            status = draw(st.sampled_from(["solved", "solved", "capped", "crash"]))
            runtime = draw(st.sampled_from([0.0, 0.5, 1.0, 2.0, 7.0, 30.0, 100.0]))
            rows.append((f"alg{a}", f"inst{i}", runtime, status))
    return runs(rows, cutoff=100.0)


VALUES = [0.2, 1.0, 3.0, 25.0, 400.0]


@SETTINGS
@given(tables(), st.lists(st.sampled_from(VALUES), min_size=1, max_size=3),
       st.sampled_from(["pareto", "exponential", "uniform"]))
def test_sweep_equals_rank_at_each_value(table, values, family):
    fixed = {"alpha": 1.5} if family == "pareto" else {}
    frame = sweep(table, family, "kappa0", values, **fixed)
    assert len(frame) == len(values) * table["algorithm"].nunique()
    for value in values:
        law = getattr(families, family)(value, *fixed.values())
        ranking = rank(table, {"u": law.utility()})
        part = frame[frame["kappa0"] == value].drop_duplicates("algorithm").set_index("algorithm")
        assert part["score"].to_dict() == pytest.approx(ranking["u"].to_dict(), rel=1e-12,
                                                        abs=1e-15)
        assert part["rank"].to_dict() == ranking["u rank"].to_dict()


@SETTINGS
@given(tables(n_algorithms=(2, 2)), st.booleans())
def test_crossovers_are_sign_changes_of_the_difference(table, log):
    found = crossovers(table, "alg0", "alg1", "exponential", "kappa0", (0.1, 1000), log=log)
    roots = found["kappa0"].tolist()
    assert roots == sorted(roots)

    def difference(value):  # independently: rank() at this value
        scores = rank(table, {"u": families.exponential(value).utility()})["u"]
        return scores["alg0"] - scores["alg1"]

    edges = [0.1, *roots, 1000.0]
    for index, row in enumerate(found.itertuples()):
        # ~0: no more than the difference changes within the root's tolerance of it
        nearby = abs(difference(row.kappa0 * (1 + 1e-9)) - difference(row.kappa0 * (1 - 1e-9)))
        assert abs(row.difference) <= nearby + 1e-14
        assert abs(difference(row.kappa0)) <= nearby + 1e-14
        step = 1e-4 * min(row.kappa0 - edges[index], edges[index + 2] - row.kappa0)
        below, above = difference(row.kappa0 - step), difference(row.kappa0 + step)
        sides = {"alg0": 1, "alg1": -1, None: 0}
        assert np.sign(below) == sides[row.below] or abs(below) < 1e-12
        assert np.sign(above) == sides[row.above] or abs(above) < 1e-12
        if row.kind == "cross":
            assert below * above < 0


# ---------------------------------------------------------------------------
# bad input


TABLE = runs([("A", "i", 1.0, "solved"), ("B", "i", 2.0, "solved")])


@pytest.mark.parametrize("call, error, match", [
    (lambda: sweep(TABLE, "gamma", "kappa0", [1]), UtilityError, "`family` of `sweep`.*'gamma'"),
    (lambda: sweep(TABLE, print, "kappa0", [1]), UtilityError, "`family` of `sweep`"),
    (lambda: sweep(TABLE, "pareto", "beta", [1], alpha=1), UtilityError,
     "`parameter` of `sweep` must be a parameter of pareto \\(kappa0, alpha\\).*'beta'"),
    (lambda: sweep(TABLE, "pareto", "kappa0", [1]), UtilityError, "`alpha` of `sweep`"),
    (lambda: sweep(TABLE, "pareto", "kappa0", [1], alpha=1, sigma=2), UtilityError,
     "`sigma` of `sweep`.*fixed parameter"),
    (lambda: sweep(TABLE, "pareto", "kappa0", [1], alpha=-1), MaxEntError, "alpha"),
    (lambda: sweep(TABLE, "pareto", "kappa0", [1, -2], alpha=1), UtilityError,
     "`values` of `sweep` must be positive finite values of kappa0; got -2.0"),
    (lambda: sweep(TABLE, "pareto", "kappa0", [], alpha=1), UtilityError, "non-empty"),
    (lambda: sweep(TABLE, "pareto", "kappa0", ["x"], alpha=1), UtilityError, "numbers"),
    (lambda: sweep(TABLE, "piecewise", "delta", [0.5, 1.5], kappa0=24, kappa1=12), UtilityError,
     "`values` of `sweep` must be values of delta where piecewise\\(24, 12, delta\\) is defined"),
    (lambda: crossovers(TABLE, "A", "B", "exponential", "kappa0", (0, 10)), UtilityError,
     "`bounds` of `crossovers` must be two positive finite values, the first below the second"),
    (lambda: crossovers(TABLE, "A", "B", "exponential", "kappa0", (10, 1)), UtilityError,
     "`bounds` of `crossovers`.*got \\(10.0, 1.0\\)"),
    (lambda: crossovers(TABLE, "A", "B", "exponential", "kappa0", (1, 2, 3)), UtilityError,
     "`bounds` of `crossovers` must be two numbers"),
    (lambda: crossovers(TABLE, "A", "Z", "exponential", "kappa0", (1, 2)), DataError,
     "`b` of `crossovers` must be an algorithm of the table \\('A', 'B'\\); got 'Z'"),
    (lambda: crossovers(TABLE, "A", "A", "exponential", "kappa0", (1, 2)), DataError,
     "`b` of `crossovers` must be an algorithm other than a='A'"),
    (lambda: crossovers(TABLE, "A", "B", "exponential", "kappa0", (1, 2), points=2), UtilityError,
     "`points` of `crossovers` must be an integer of at least 3"),
    (lambda: ranking_changes(TABLE, "exponential", "kappa0", (1, math.inf)), UtilityError,
     "`bounds` of `ranking_changes`"),
    (lambda: ranking_changes(TABLE.iloc[:0], "exponential", "kappa0", (1, 2)), DataError,
     "table"),
])
def test_bad_input_names_the_argument(call, error, match):
    with pytest.raises(error, match=match):
        call()


# ---------------------------------------------------------------------------
# the command line


def _cli(capsys, *argv):
    from maxent_util.cli import main

    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def _write(tmp_path, table):
    path = tmp_path / "runs.csv"
    table.to_csv(path, index=False)
    return str(path)


TIE_TABLE = runs([("A", "i", 1.0, "solved"), ("A", "j", 4.0, "solved"),
                  ("B", "i", 2.0, "solved"), ("B", "j", 3.0, "solved")])


def test_cli_sweep_prints_the_intervals(tmp_path, capsys):
    # the table of test_a_tie_interval_and_a_crossing_under_pareto: A leads up to 12/7, then
    # B, and from 4 on both tie
    path = _write(tmp_path, TIE_TABLE)
    status, out, err = _cli(capsys, "sweep", path, "--family", "pareto", "--from", "0.1",
                            "--to", "100", "--log", "--fixed", "alpha=1")
    assert status == 0, err
    lines = out.splitlines()
    assert "pareto(kappa0, 1.0)" in lines[0]
    # a time is shown as one (to 4 digits, with a human unit from a minute); --csv and --json
    # keep every digit
    assert lines[1:] == ["  kappa0 in [0.1 s, 1.714 s]: 1. A, 2. B",
                         "  kappa0 in [1.714 s, 4 s]: 1. B, 2. A",
                         "  kappa0 in [4 s, 100 s (1.67 min)]: 1. A, 1. B"]


def test_cli_sweep_csv_and_json(tmp_path, capsys):
    import json

    path = _write(tmp_path, TIE_TABLE)
    common = ("sweep", path, "--family", "pareto", "--from", "0.1", "--to", "100",
              "--fixed", "alpha=1", "--top", "1")
    status, out, err = _cli(capsys, *common, "--csv")
    assert status == 0, err
    frame = pd.read_csv(__import__("io").StringIO(out))
    assert frame["leader"].tolist() == ["A", "B", "A = B"]
    assert frame["start"].tolist() == pytest.approx([0.1, 12 / 7, 4.0], rel=1e-9)
    status, out, err = _cli(capsys, *common, "--json")
    assert status == 0, err
    document = json.loads(out)
    assert document["family"] == "pareto(kappa0, 1.0)" and document["top"] == 1
    assert [interval["order"] for interval in document["intervals"]] == [["A"], ["B"], ["A"]]
    assert document["intervals"][-1]["end"] == 100.0


@pytest.mark.parametrize("argv, message", [
    (["--family", "gamma", "--from", "1", "--to", "2"], "`family` of `ranking_changes`"),
    (["--family", "pareto", "--from", "1", "--to", "2"], "--fixed alpha=VALUE"),
    (["--family", "pareto", "--from", "5", "--to", "2", "--fixed", "alpha=1"],
     "--from must be below --to"),
    (["--family", "pareto", "--from", "-1", "--to", "2"], "--from"),
    (["--family", "pareto", "--from", "1", "--to", "2", "--fixed", "alpha"], "NAME=VALUE"),
    (["--family", "pareto", "--from", "1", "--to", "2", "--fixed", "alpha=1", "--utility",
      "solved"], "do not go with sweep"),
    (["--family", "pareto", "--parameter", "sigma", "--from", "1", "--to", "2",
      "--fixed", "alpha=1"], "`parameter` of `ranking_changes`"),
])
def test_cli_sweep_bad_input_is_one_line(tmp_path, capsys, argv, message):
    path = _write(tmp_path, TIE_TABLE)
    status, out, err = _cli(capsys, "sweep", path, *argv)
    assert status == 2
    assert len(err.splitlines()) == 1 and message in err and "Traceback" not in err


def test_cli_plot_sweep_writes_the_figure(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    path = _write(tmp_path, TIE_TABLE)
    target = tmp_path / "sweep.svg"
    status, out, err = _cli(capsys, "plot", "--sweep", path, "--family", "pareto", "--from",
                            "0.1", "--to", "100", "--log", "--fixed", "alpha=1", "--points",
                            "50", "-o", str(target))
    assert status == 0, err
    assert target.is_file() and out.strip() == f"wrote {target}"
    status, _, err = _cli(capsys, "plot", path, "--family", "pareto", "-o",
                          str(tmp_path / "x.png"))
    assert status == 2 and "only go with --sweep" in err


def test_plot_sweep_marks_the_leader_changes():
    pytest.importorskip("matplotlib")
    from maxent_util.plots import plot_sweep

    frame = sweep(TIE_TABLE, "pareto", "kappa0", np.geomspace(0.1, 100, 30), alpha=1)
    changes = ranking_changes(TIE_TABLE, "pareto", "kappa0", (0.1, 100), alpha=1)
    ax = plot_sweep(frame, changes=changes).axes[0]
    assert len(ax.get_lines()) == 2 + 2  # A, B, and the two changes of leader (B, A = B)
    assert ax.get_xscale() == "log"
    with pytest.raises(DataError, match="`frame` of `plot_sweep`"):
        plot_sweep(pd.DataFrame({"x": [1]}))


def test_benchmark_prints_times_and_ratio(capsys, monkeypatch):
    out = run_script(monkeypatch, capsys, "bench_sweep.py", "--values", "4")
    assert "ratio (rank / sweep)" in out
    difference = float(out.rsplit("largest score difference:", 1)[1])
    assert difference < 1e-12
