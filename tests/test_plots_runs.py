"""Tests of the figures of runs: cactus and survival plots draw the numbers an independent
computation gives (sorted solved runtimes; Kaplan-Meier written out by hand), not pixels."""

from __future__ import annotations

import io
import re
import warnings
from html.parser import HTMLParser

import numpy as np
import pandas as pd
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from maxent_util import DataError, UtilityError, t
from maxent_util.cli import main
from maxent_util.datasets import satcomp2021
from maxent_util.plots import plot_cactus, plot_survival, plot_utilities, to_svg

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def long_table(rows) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["algorithm", "instance", "runtime", "status", "cutoff"])


@pytest.fixture
def mixed():
    """Three algorithms with solved, capped and failed runs, and cutoffs that differ."""
    return long_table([
        ("a", "i1", 1.0, "solved", 100.0),
        ("a", "i2", 5.0, "solved", 100.0),
        ("a", "i3", 5.0, "solved", 100.0),
        ("a", "i4", 10.0, "capped", 10.0),     # stopped early: at risk up to 10 only
        ("a", "i5", 20.0, "solved", 100.0),
        ("a", "i6", 3.0, "memout", 100.0),     # never solved: at risk throughout
        ("a", "i7", 30.0, "capped", 30.0),
        ("a", "i8", 50.0, "solved", 100.0),
        ("b", "i1", 2.0, "solved", 100.0),
        ("b", "i2", 100.0, "capped", 100.0),
        ("b", "i3", 0.5, "crash", 100.0),
        ("b", "i4", 10.0, "capped", 10.0),
        ("b", "i5", 7.0, "solved", 100.0),
        ("b", "i6", 100.0, "unverified", 100.0),
        ("b", "i7", 30.0, "capped", 30.0),
        ("b", "i8", 8.0, "solved", 100.0),
        ("c", "i1", 100.0, "capped", 100.0),   # solves nothing
    ])


def lines_by_label(ax) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    return {line.get_label(): (np.asarray(line.get_xdata(), float), np.asarray(line.get_ydata(), float))
            for line in ax.get_lines()}


# ---------------------------------------------------------------------------
# cactus


def test_cactus_lines_are_the_sorted_solved_runtimes(mixed):
    figure = plot_cactus(mixed)
    ax = figure.axes[0]
    # most solved first, ties by name
    assert [line.get_label() for line in ax.get_lines()] == ["a", "b", "c"]
    drawn = lines_by_label(ax)
    for name, runs in mixed.groupby("algorithm"):
        # reference: plain pandas, the solved rows' runtimes sorted
        expected = np.sort(runs.loc[runs["status"] == "solved", "runtime"].to_numpy())
        x, y = drawn[name]
        np.testing.assert_array_equal(y, expected)
        np.testing.assert_array_equal(x, np.arange(1, expected.size + 1))
    assert drawn["a"][1].tolist() == [1.0, 5.0, 5.0, 20.0, 50.0]  # by hand
    assert drawn["c"][0].size == 0
    assert ax.get_xlabel() == "solved instances" and ax.get_ylabel() == "runtime t (s)"
    assert ax.get_ylim() == (0.0, 102.0)  # up to the largest cutoff
    assert len(figure.axes) == 1
    legend = figure.legends[0]
    assert [text.get_text() for text in legend.get_texts()] == ["a", "b", "c"]


def test_cactus_of_the_parallel_track_matches_pandas():
    table = satcomp2021("parallel")
    figure = plot_cactus(table, title="parallel")
    drawn = lines_by_label(figure.axes[0])
    # reference: the solved counts and runtimes straight from the table with pandas
    solved = table[table["status"] == "solved"]
    counts = solved.groupby("algorithm").size().sort_values(ascending=False, kind="stable")
    assert [line.get_label() for line in figure.axes[0].get_lines()][0] == counts.index[0]
    assert set(drawn) == set(table["algorithm"].unique())
    for name, runs in solved.groupby("algorithm"):
        np.testing.assert_array_equal(drawn[name][1], np.sort(runs["runtime"].to_numpy()))
    assert figure.axes[0].get_title() == "parallel"


def test_cactus_with_a_utility_on_a_secondary_axis(mixed):
    figure = plot_cactus(mixed, utility=sympy.exp(-t / 10), log_y=True)
    ax, twin = figure.axes
    assert ax.get_yscale() == "log"
    (line,) = twin.get_lines()
    u, runtimes = line.get_data()
    np.testing.assert_allclose(u, np.exp(-np.asarray(runtimes) / 10), rtol=1e-13)  # hand: e^(-t/10)
    # from the shortest solved runtime (1 s) to the largest cutoff
    assert runtimes[0] == pytest.approx(1.0) and runtimes[-1] == pytest.approx(100.0)
    assert twin.get_xlabel() == "utility u(t)" and twin.get_xlim() == (0.0, 1.02)
    # the solver lines stay on the main axes, one per algorithm
    assert len(ax.get_lines()) == 3


def test_cactus_on_given_axes_and_names_drawn_literally():
    from matplotlib.figure import Figure

    table = long_table([("$\\frac$", "i", 1.0, "solved", 5.0), ("_hidden", "i", 2.0, "solved", 5.0)])
    host = Figure()
    ax = host.add_subplot()
    figure = plot_cactus(table, ax=ax)
    assert figure is host and not host.legends
    texts = [text.get_text() for text in ax.get_legend().get_texts()]
    # '$' escaped for matplotlib's math text; a leading '_' kept in the legend
    assert texts == ["\\$\\frac\\$", "\u200b_hidden"]
    host.savefig(io.BytesIO(), format="png")  # no math text to parse: it draws


@pytest.mark.parametrize("function", [plot_cactus, plot_survival])
def test_bad_tables_and_utilities(function, mixed):
    name = function.__name__
    with pytest.raises(DataError, match=f"`table` of `{name}` must be a long runtime table"):
        function([1, 2, 3])
    with pytest.raises(DataError, match=f"`table` of `{name}` must be at least one run"):
        function(mixed.iloc[:0])
    bad = mixed.copy()
    bad.loc[3, "runtime"] = -1.0
    with pytest.raises(DataError, match="`runtime` of `table of " + name + ", row 3`"):
        function(bad)
    with pytest.raises(UtilityError, match=f"`utility` of `{name}` must be free of unset parameters"):
        function(mixed, utility=sympy.exp(-t / sympy.Symbol("kappa0", positive=True)))
    with pytest.raises(UtilityError, match=f"`utility` of `{name}` must be non-empty"):
        function(mixed, utility=[])
    with pytest.raises(UtilityError, match="`spec` of `parse_utility`"):
        function(mixed, utility="weibull(3)")


@pytest.mark.parametrize("function", [plot_cactus, plot_survival])
def test_a_missing_matplotlib_names_the_plot_extra(function, mixed, monkeypatch):
    from maxent_util import plots
    from maxent_util.errors import MissingExtraError

    monkeypatch.setattr(plots, "find_spec", lambda name: None)
    with pytest.raises(MissingExtraError, match=r"pip install 'maxent_util\[plot\]'"):
        function(mixed)


# ---------------------------------------------------------------------------
# survival


def kaplan_meier_by_hand(runs: pd.DataFrame) -> tuple[list[float], list[float]]:
    """The product-limit estimate written out: at each distinct solved runtime t_j,
    S *= 1 - d_j / n_j, with n_j the runs still at risk (a capped run stays at risk up to and
    including the time it stopped, min(runtime, cutoff); a failure stays at risk for ever)."""
    solved = runs[runs["status"] == "solved"]["runtime"].tolist()
    capped = [min(r, c) for r, c, s in zip(runs["runtime"], runs["cutoff"], runs["status"])
              if s == "capped"]
    failures = sum(s in ("memout", "crash", "unverified") for s in runs["status"])
    survival, times, values = 1.0, [], []
    for time in sorted(set(solved)):
        at_risk = (sum(x >= time for x in solved) + sum(c >= time for c in capped) + failures)
        deaths = sum(x == time for x in solved)
        survival *= 1.0 - deaths / at_risk
        times.append(time)
        values.append(survival)
    return times, values


def test_survival_is_kaplan_meier_by_hand(mixed):
    figure = plot_survival(mixed)
    ax = figure.axes[0]
    assert ax.get_xscale() == "log"
    assert [line.get_label() for line in ax.get_lines()] == ["a", "b", "c"]  # name order
    drawn = lines_by_label(ax)
    for name, runs in mixed.groupby("algorithm"):
        times, values = kaplan_meier_by_hand(runs)
        x, y = drawn[name]
        line = next(line for line in ax.get_lines() if line.get_label() == name)
        assert line.get_drawstyle() == "steps-post"
        # left end: a power of ten below the smallest positive runtime of the table (0.5 s)
        assert x[0] == pytest.approx(0.1) and y[0] == 1.0
        np.testing.assert_allclose(x[1:-1], times, rtol=0, atol=0)
        np.testing.assert_allclose(y[1:-1], values, rtol=1e-12, atol=1e-15)
        # the curve ends at the algorithm's last runtime or cutoff, at its last value
        assert x[-1] == max(runs["runtime"].max(), runs["cutoff"].max())
        assert y[-1] == (values[-1] if values else 1.0)
    # by hand for a: n = 8 runs; at 1: 1 - 1/8; at 5: two of the 7 at risk;
    # at 20: the run capped at 10 has left, so 4 at risk (20, 30-capped, 50, memout);
    # at 50: 2 at risk (50, memout)
    s1 = 7 / 8
    s5 = s1 * (1 - 2 / 7)
    s20 = s5 * (1 - 1 / 4)
    s50 = s20 * (1 - 1 / 2)
    np.testing.assert_allclose(drawn["a"][1][1:-1], [s1, s5, s20, s50], rtol=1e-14)
    assert drawn["c"][1].tolist() == [1.0, 1.0]


def test_survival_with_one_cutoff_is_the_fraction_still_running():
    # reference: with every run capped at the same time, S(t) is the share not solved by t
    table = long_table([("a", f"i{k}", float(x), s, 60.0) for k, (x, s) in enumerate(
        [(3, "solved"), (3, "solved"), (9, "solved"), (60, "capped"), (41, "solved"),
         (60, "memout")])])
    x, y = lines_by_label(plot_survival(table).axes[0])["a"]
    assert x.tolist() == [1.0, 3.0, 9.0, 41.0, 60.0]
    np.testing.assert_allclose(y, [1.0, 4 / 6, 3 / 6, 2 / 6, 2 / 6], rtol=1e-14)


def test_survival_runs_solved_at_zero_start_below_one():
    table = long_table([("a", "i", 0.0, "solved", 10.0), ("a", "j", 2.0, "solved", 10.0),
                        ("a", "k", 10.0, "capped", 10.0), ("a", "l", 10.0, "capped", 10.0)])
    x, y = lines_by_label(plot_survival(table).axes[0])["a"]
    # hand: one of four solved at t = 0 (drawn at the left end, 0.1), one more at 2
    assert x.tolist() == [1.0, 2.0, 10.0] and y.tolist() == [0.75, 0.5, 0.5]


def test_survival_with_utilities_on_a_secondary_axis(mixed):
    figure = plot_survival(mixed, utility={"fast": sympy.exp(-t / 10), "bounded": "uniform(30)"},
                           title="runs")
    ax, twin = figure.axes
    lines = twin.get_lines()
    assert [line.get_label() for line in lines] == ["u(t) = fast", "u(t) = bounded"]
    x, y = lines[0].get_data()
    np.testing.assert_allclose(y, np.exp(-np.asarray(x) / 10), rtol=1e-13)  # hand: e^(-t/10)
    x, y = lines[1].get_data()
    np.testing.assert_allclose(y, np.clip(1 - np.asarray(x) / 30, 0, 1), atol=1e-12)  # hand
    assert x[0] == pytest.approx(0.1) and x[-1] == pytest.approx(100.0)
    assert twin.get_ylabel() == "utility u(t)" and ax.get_title() == "runs"
    assert len(ax.get_lines()) == 3


def test_survival_of_the_main_track_highlights_the_most_solved():
    table = satcomp2021("main")
    figure = plot_survival(table)
    lines = figure.axes[0].get_lines()
    assert len(lines) == 46
    # the ten with the most solved runs (pandas), in ten colours; the others grey, beneath
    solved = (table["status"] == "solved").groupby(table["algorithm"], observed=True).sum()
    best = sorted(solved.index, key=lambda name: (-solved[name], name))[:10]
    coloured = [line for line in lines if line.get_color() != "0.78"]
    assert {line.get_label() for line in coloured} == set(best)
    assert len({tuple(line.get_color()) for line in coloured}) == 10
    assert {line.get_zorder() for line in coloured} == {3}
    assert [text.get_text() for text in figure.legends[0].get_texts()] == [*best, "36 others"]
    # the last value of each curve: the share of runs unsolved (one cutoff, 5000 s), by pandas
    unsolved = (table["status"] != "solved").groupby(table["algorithm"]).mean()
    for line in lines:
        assert line.get_ydata()[-1] == pytest.approx(unsolved[line.get_label()], abs=1e-12)


runs_strategy = st.lists(
    st.tuples(st.sampled_from(["a", "b", "c"]), st.floats(0.0, 100.0),
              st.sampled_from(["solved", "solved", "capped", "memout", "crash"]),
              st.sampled_from([50.0, 100.0])),
    min_size=1, max_size=25)


def as_table(draws) -> pd.DataFrame:
    rows = []
    for k, (name, runtime, status, cutoff) in enumerate(draws):
        runtime = min(runtime, cutoff) if status == "solved" else cutoff
        rows.append((name, f"i{k}", runtime, status, cutoff))
    return long_table(rows)


@settings(max_examples=25, deadline=None)
@given(runs_strategy)
def test_survival_property_against_hand_kaplan_meier(draws):
    table = as_table(draws)
    drawn = lines_by_label(plot_survival(table).axes[0])
    assert set(drawn) == set(table["algorithm"])
    for name, runs in table.groupby("algorithm"):
        times, values = kaplan_meier_by_hand(runs)
        x, y = drawn[name]
        shown = [(a, b) for a, b in zip(times, values) if a > x[0]]
        np.testing.assert_allclose(x[1:-1], [a for a, _ in shown], rtol=0, atol=0)
        np.testing.assert_allclose(y[1:-1], [b for _, b in shown], rtol=1e-12, atol=1e-15)
        assert np.all(np.diff(y) <= 0) and 0 <= y.min() <= y.max() <= 1
        # failures are never solved: the curve never falls below their share
        failures = runs["status"].isin(["memout", "crash"]).mean()
        assert y[-1] >= failures - 1e-12


@settings(max_examples=25, deadline=None)
@given(runs_strategy, st.booleans())
def test_cactus_property_counts_and_sorts(draws, log_y):
    table = as_table(draws)
    figure = plot_cactus(table, log_y=log_y)
    drawn = lines_by_label(figure.axes[0])
    counts = []
    for name, runs in table.groupby("algorithm"):
        expected = np.sort(runs.loc[runs["status"] == "solved", "runtime"].to_numpy())
        np.testing.assert_array_equal(drawn[name][1], expected)
        counts.append((-expected.size, name))
    assert [line.get_label() for line in figure.axes[0].get_lines()] == [n for _, n in sorted(counts)]


@pytest.mark.parametrize("runtime, status", [(0.0, "solved"), (100.0, "capped")])
def test_a_log_cactus_with_no_runtime_above_0_solved_spans_four_decades_without_a_warning(runtime, status):
    # drawn by the property above: matplotlib warned "Data has no positive values, and therefore
    # cannot be log-scaled" and chose a range of its own
    runs = pd.DataFrame({"algorithm": ["a", "a", "b"], "instance": ["i", "j", "i"], "runtime": runtime,
                         "status": status, "cutoff": 100.0})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        figure = plot_cactus(runs, log_y=True)
    assert figure.axes[0].get_yscale() == "log"
    assert figure.axes[0].get_ylim() == pytest.approx((100.0 / 1e4, 100.0 * 1.02))


# ---------------------------------------------------------------------------
# SVG for pages


class Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.ids: list[str] = []
        self.references: list[str] = []
        self.texts: list[str] = []

    def handle_starttag(self, tag, attrs):
        for key, value in attrs:
            if key == "id":
                self.ids.append(value)
            elif key in ("xlink:href", "href"):
                self.references.append(value.lstrip("#"))
            elif value and "url(#" in value:
                self.references += re.findall(r"url\(#([^)]*)\)", value)

    def handle_data(self, data):
        self.texts.append(data)


def test_svg_for_a_page_has_scoped_ids_and_escaped_text(mixed):
    table = mixed.replace({"algorithm": {"a": "<b>&amp;", "b": "x\"y"}})
    first = to_svg(plot_cactus(table), id_prefix="one")
    second = to_svg(plot_utilities(["uniform(3)"], t_max=6), id_prefix="two")
    assert to_svg(plot_cactus(table), id_prefix="one") == first  # the same on every run
    for svg, prefix in ((first, "one"), (second, "two")):
        assert svg.startswith("<svg") and svg.endswith("</svg>")
        assert "xmlns" not in svg and "<?xml" not in svg and "<style" not in svg
        tags = Tags()
        tags.feed(svg)
        assert tags.ids and all(i.startswith(prefix + "-") for i in tags.ids)
        assert len(tags.ids) == len(set(tags.ids))
        assert tags.references and set(tags.references) <= set(tags.ids)  # every reference resolves
    tags = Tags()
    tags.feed(first)
    assert "<b>&amp;" in tags.texts and 'x"y' in tags.texts  # drawn as written
    assert "<b>" not in first and "&lt;b&gt;&amp;amp;" in first
    with pytest.raises(UtilityError, match="`id_prefix` of `to_svg` must be letters"):
        to_svg(plot_cactus(table), id_prefix='x" onload="alert(1)')


# ---------------------------------------------------------------------------
# the command line


def run(capsys, *argv):
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_cli_cactus_and_survival(capsys, tmp_path, mixed):
    data = tmp_path / "runs.csv"
    mixed.to_csv(data, index=False)
    cactus = tmp_path / "cactus.png"
    status, out, err = run(capsys, "plot", "--cactus", str(data), "-o", str(cactus))
    assert (status, err) == (0, "") and out.strip() == f"wrote {cactus}"
    assert cactus.read_bytes()[:8] == PNG_SIGNATURE
    survival = tmp_path / "survival.svg"
    status, out, err = run(capsys, "plot", "--survival", "--utility", "exp(-t/10)", "1/(1 + t)",
                           str(data), "--format", "long", "-o", str(survival))
    assert (status, err) == (0, "")
    text = survival.read_text()
    assert text.lstrip().startswith("<?xml") and "</svg>" in text
    assert "u(t) = exp(-t/10)" in text and "u(t) = 1/(1 + t)" in text
    pdf = tmp_path / "cactus.pdf"
    status, _, err = run(capsys, "plot", "--cactus", "--cutoff", "9", str(data), "-o", str(pdf))
    assert status == 0 and pdf.read_bytes()[:5] == b"%PDF-"
    # an existing output is refused unless --force
    before = cactus.read_bytes()
    status, _, err = run(capsys, "plot", "--cactus", str(data), "-o", str(cactus))
    assert status == 2 and "already exists; pass --force" in err and cactus.read_bytes() == before
    status, _, _ = run(capsys, "plot", "--survival", str(data), "-o", str(cactus), "--force")
    assert status == 0 and cactus.read_bytes() != before


def test_cli_cactus_of_a_dataset_by_default(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    status, out, _ = run(capsys, "plot", "--cactus")
    assert status == 0 and out.strip() == "wrote cactus.png"
    assert (tmp_path / "cactus.png").read_bytes()[:8] == PNG_SIGNATURE


@pytest.mark.parametrize("argv, pattern", [
    (["--cactus", "--par", "2"], "--par, --solved and --rules only go with --ranking"),
    (["--survival", "--t-max", "9"], "--t-max and --log-x only go with utility figures"),
    (["--survival", "--utility", "PAR-2"], "cannot draw the classic rule 'PAR-2'"),
    (["--cactus", "--ranking"], "not allowed with argument"),
    (["--cactus", "--survival"], "not allowed with argument"),
    (["--cactus", "--cutoff", "9000"], "`--cutoff` of `maxent-util satcomp2021-parallel`"),
    (["--survival", "--utility", "weibull(2)"], "`spec` of `parse_utility`"),
    (["--cactus", "-o", "out.docx"], "cannot write a figure as '.docx'"),
])
def test_cli_bad_input_is_one_line(capsys, tmp_path, monkeypatch, argv, pattern):
    monkeypatch.chdir(tmp_path)
    status, _, err = run(capsys, "plot", *argv)
    assert status == 2, err
    assert len(err.splitlines()) == 1 and err.startswith("maxent-util: error: "), err
    assert pattern in err, err
    assert list(tmp_path.iterdir()) == []


@settings(max_examples=10, deadline=None)
@given(st.text(st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp")), min_size=1,
               max_size=16).filter(lambda s: s.strip() == s and s != "b"))
def test_svg_property_any_name_is_drawn_as_written(name):
    table = long_table([(name, "i", 1.0, "solved", 5.0), ("b", "i", 2.0, "solved", 5.0)])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no glyph warning reaches the caller
        svg = to_svg(plot_cactus(table), id_prefix="p")
    tags = Tags()
    tags.feed(svg)
    # the legend shows the name (a leading '_' behind a zero-width space that keeps it shown)
    assert ("\u200b" + name if name.startswith("_") else name) in tags.texts
    assert all(i.startswith("p-") for i in tags.ids) and set(tags.references) <= set(tags.ids)
