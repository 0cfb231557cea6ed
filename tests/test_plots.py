"""Tests of the figures: what is drawn equals the library's numbers, and the files are real PNGs."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest
import sympy
from conftest import PNG_SIGNATURE

from maxent_util import PAR, UtilityError, rank, t
from maxent_util.datasets import satcomp2021
from maxent_util.families import parse_utility
from maxent_util.plots import PAPER_UTILITIES, plot_ranking, plot_utilities

def png_bytes(figure) -> bytes:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=80)
    return buffer.getvalue()


@pytest.fixture(scope="module")
def paper_figure():
    return plot_utilities(t_max=96)


def test_paper_figure_has_the_seven_utilities(paper_figure):
    lines = paper_figure.axes[0].get_lines()
    assert [line.get_label() for line in lines] == list(PAPER_UTILITIES)
    # what is drawn is the library's utility at the drawn runtimes
    for line, spec in zip(lines[:3], PAPER_UTILITIES):
        x, y = line.get_data()
        np.testing.assert_allclose(y, parse_utility(spec)(x), rtol=0, atol=0)
    # hand values (paper, Appendix C with kappa0 = 24): uniform 1 - t/24, Pareto(24, 1) 24/t after 24
    uniform_x, uniform_y = lines[0].get_data()
    assert np.interp(12.0, uniform_x, uniform_y) == pytest.approx(0.5, abs=1e-9)
    pareto_x, pareto_y = lines[2].get_data()
    assert np.interp(48.0, pareto_x, pareto_y) == pytest.approx(0.5, abs=1e-3)
    assert paper_figure.axes[0].get_xlim() == (0.0, 96.0)


def test_paper_figure_is_a_png(paper_figure):
    data = png_bytes(paper_figure)
    assert data[:8] == PNG_SIGNATURE
    width, height = (int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big"))
    # IHDR size: the figure's 8 x 5 inches at 80 dpi
    assert (width, height) == (640, 400)
    assert len(data) > 20_000


def test_no_pyplot_state_is_touched():
    import matplotlib.pyplot as plt  # only to watch its registry of figures
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    before = plt.get_fignums()
    figure = plot_utilities(["uniform(3)"], t_max=6)
    assert plt.get_fignums() == before
    assert isinstance(figure.canvas, FigureCanvasAgg)


def test_default_range_is_twice_the_latest_median():
    # uniform(24) falls to 1/2 at t = 12 (hand), exponential(24) at 24 ln 2 = 16.6 (hand)
    figure = plot_utilities(["uniform(24)", "exponential(24)"])
    right = figure.axes[0].get_xlim()[1]
    assert right == pytest.approx(2 * 24 * np.log(2), rel=0.03)


def test_mapping_expressions_and_given_axes():
    from matplotlib.figure import Figure

    host = Figure()
    ax = host.add_subplot()
    figure = plot_utilities({"fast": sympy.exp(-t / 10), "bounded": "uniform(30)"}, ax=ax, t_max=60,
                            log_x=True, title="two")
    assert figure is host
    lines = ax.get_lines()
    assert [line.get_label() for line in lines] == ["fast", "bounded"]
    x, y = lines[0].get_data()
    np.testing.assert_allclose(y, np.exp(-x / 10), rtol=1e-14)  # hand: exp(-t/10)
    assert ax.get_xscale() == "log" and ax.get_title() == "two"
    assert x[-1] == pytest.approx(60) and x[0] == pytest.approx(60e-4)


@pytest.mark.parametrize("arguments, pattern", [
    (dict(utilities=["uniform(24)"], t_max=-1), "`t_max` of `plot_utilities` must be a positive number"),
    (dict(utilities=["uniform(24)"], t_max=float("nan")), "`t_max` of `plot_utilities`"),
    (dict(utilities=[]), "`utilities` of `plot_utilities` must be non-empty"),
    (dict(utilities=["weibull(3)"]), "`spec` of `parse_utility`"),
    (dict(utilities=5), "`utilities` of `plot_utilities` must be a sequence"),
])
def test_bad_utilities(arguments, pattern):
    with pytest.raises(UtilityError, match="^" + pattern.replace("(", r"\(").replace(")", r"\)")):
        plot_utilities(**arguments)


@pytest.fixture(scope="module")
def parallel_ranking():
    rules = {spec: parse_utility(spec) for spec in ("uniform(20)", "pareto(5, 1)")}
    rules["PAR-2"] = PAR(2)
    return rank(satcomp2021("parallel"), rules)


def test_bump_chart_draws_every_rank(parallel_ranking):
    figure = plot_ranking(parallel_ranking, title="parallel")
    ax = figure.axes[0]
    lines = ax.get_lines()
    assert len(lines) == len(parallel_ranking) == 9
    columns = ["uniform(20) rank", "pareto(5, 1) rank", "PAR-2 rank"]
    for line, (_, row) in zip(lines, parallel_ranking.iterrows()):
        np.testing.assert_array_equal(line.get_ydata(), row[columns].to_numpy(dtype=float))
    assert [label.get_text() for label in ax.get_xticklabels()] == ["uniform(20)", "pareto(5, 1)",
                                                                     "PAR-2"]
    bottom, top = ax.get_ylim()
    assert top < 1 < 9 < bottom  # rank 1 at the top
    # names at both ends, with their ranks
    texts = {text.get_text() for text in ax.texts}
    first = parallel_ranking.index[0]
    assert f"{first}  1" in texts
    par_first = parallel_ranking["PAR-2 rank"].idxmin()
    assert f"1  {par_first}" in texts
    data = png_bytes(figure)
    assert data[:8] == PNG_SIGNATURE and len(data) > 20_000


def test_bump_chart_of_many_algorithms_highlights_the_top_ten():
    frame = rank(satcomp2021("main"), {"PAR-2": PAR(2), "PAR-10": PAR(10)})
    figure = plot_ranking(frame)
    lines = figure.axes[0].get_lines()
    assert len(lines) == 46
    # the ten best under the first rule (PAR-2) in ten colours, drawn on top; the rest grey
    best = frame["PAR-2 rank"].sort_values(kind="stable").index[:10]
    coloured = {name for name, line in zip(frame.index, lines) if line.get_color() != "0.78"}
    assert coloured == set(best)
    assert len({tuple(line.get_color()) for line in lines if line.get_color() != "0.78"}) == 10
    named = plot_ranking(frame, highlight=["Kissat_MAB", "CaDiCaL_sc2021"]).axes[0].get_lines()
    assert sum(line.get_color() != "0.78" for line in named) == 2
    with pytest.raises(UtilityError, match="`highlight` of `plot_ranking` must be names of "
                                           "algorithms of the table; got \\['nope'\\]"):
        plot_ranking(frame, highlight=["nope"])
    with pytest.raises(UtilityError, match="`highlight` of `plot_ranking` must be a number"):
        plot_ranking(frame, highlight=-1)


@pytest.mark.parametrize("ranking, message", [
    pytest.param(pd.DataFrame({"score": [1.0, 2.0]}, index=["a", "b"]),
                 "^`ranking_df` of `plot_ranking` must be a table from `rank`", id="no-rank-columns"),
    pytest.param([1, 2], "^`ranking_df` of `plot_ranking`", id="not-a-table"),
])
def test_bump_chart_needs_rank_columns(ranking, message):
    with pytest.raises(UtilityError, match=message):
        plot_ranking(ranking)


def test_a_missing_matplotlib_names_the_plot_extra(monkeypatch):
    from maxent_util import plots
    from maxent_util.errors import MissingExtraError

    monkeypatch.setattr(plots, "find_spec", lambda name: None)
    with pytest.raises(MissingExtraError, match=r"pip install 'maxent_util\[plot\]'"):
        plots.plot_utilities(["pareto(5, 3)"])
