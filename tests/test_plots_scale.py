"""Figures from 2 to 200 algorithms: every line drawn, the best few in colour and named in a
legend outside the axes, the axes keeping most of the figure, the bump chart's names apart,
and not one warning from matplotlib on the way (the SAT20-MAIN scenario, 67 solvers, used to
print "constrained_layout not applied")."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import sympy
from matplotlib.transforms import Bbox

from maxent_util import PAR, rank, sweep, t
from maxent_util.plots import (HIGHLIGHT, plot_cactus, plot_ranking, plot_survival, plot_sweep,
                               to_svg)

from synthetic_runs import competition

GREY = "0.78"


def drawn(figure, count: int) -> None:
    """Lay out the figure, turning warnings into errors: at 14 algorithms as the report writes
    it (SVG); otherwise the layout alone (where constrained layout warns), without the cost
    of drawing."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        if count == 14:
            to_svg(figure, id_prefix="f")
        else:
            figure.draw_without_rendering()


def boxes_apart(boxes) -> bool:
    boxes = sorted(boxes, key=lambda box: box.y0)
    return all(lower.y1 <= upper.y0 + 0.5 for lower, upper in zip(boxes, boxes[1:]))


def overlap(a, b) -> bool:
    return a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1


@pytest.fixture(scope="module", params=[2, 14, 67, 200])
def case(request):
    table = competition(request.param, instances=6, seed=request.param)
    return request.param, table


def test_runs_figures_highlight_the_best_and_keep_the_legend_outside(case):
    count, table = case
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        figures = [plot_cactus(table, utility={"exp(-t/100)": sympy.exp(-t / 100)}),
                   plot_survival(table, utility={"exp(-t/100)": sympy.exp(-t / 100)})]
    for figure in figures:
        drawn(figure, count)
        ax = figure.axes[0]
        lines = ax.get_lines()
        assert len(lines) == count
        coloured = [line for line in lines if line.get_color() != GREY]
        assert len(coloured) == min(count, HIGHLIGHT)
        # the legends (algorithms, utility) lie outside the axes and hold at most 12 entries
        renderer = figure.canvas.get_renderer()
        frame = ax.get_window_extent(renderer)
        assert len(figure.legends) == 2
        for legend in figure.legends:
            assert not overlap(legend.get_window_extent(renderer), frame)
            assert len(legend.get_texts()) <= HIGHLIGHT + 1
        # the axes keep most of the figure's width (they shrank to 30 px beside 67 names)
        assert frame.width > 0.55 * figure.bbox.width


def test_bump_chart_names_do_not_overlap(case):
    count, table = case
    ranking = rank(table, {"PAR-2": PAR(2), "exp(-t/100)": sympy.exp(-t / 100)})
    figure = plot_ranking(ranking)
    drawn(figure, count)
    ax = figure.axes[0]
    assert len(ax.get_lines()) == count
    assert sum(line.get_color() != GREY for line in ax.get_lines()) == min(count, HIGHLIGHT)
    renderer = figure.canvas.get_renderer()
    left = [text.get_window_extent(renderer) for text in ax.texts if text.get_ha() == "right"]
    right = [text.get_window_extent(renderer) for text in ax.texts if text.get_ha() == "left"]
    assert len(left) == len(right) == count
    assert boxes_apart(left) and boxes_apart(right)
    assert min(text.get_fontsize() for text in ax.texts) >= 7  # points: still legible
    # the figure grows with the algorithms (its height), not the names shrinking into each other
    assert figure.get_figheight() >= min(count * 0.14, 3.5)


def test_sweep_figure_highlights_the_best(case):
    count, table = case
    frame = sweep(table, "exponential", "kappa0", np.geomspace(1.0, 1000.0, 9))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        figure = plot_sweep(frame)
    drawn(figure, count)
    lines = figure.axes[0].get_lines()
    assert len(lines) == count
    assert sum(line.get_color() != GREY for line in lines) == min(count, HIGHLIGHT)
    # the leader at any value is among the coloured lines
    leaders = set(frame.loc[frame["rank"] == 1, "algorithm"].astype(str))
    assert leaders <= {line.get_label() for line in lines if line.get_color() != GREY}


def test_bump_chart_names_of_tied_algorithms_take_rows_of_their_own():
    import pandas as pd

    # four algorithms tied at rank 2 under both rules (as rank() gives ties: 1, 2, 2, 2, 2, 6)
    frame = pd.DataFrame({"a rank": [1, 2, 2, 2, 2, 6], "b rank": [2, 2, 1, 2, 2, 6]},
                         index=pd.Index(list("uvwxyz"), name="algorithm"))
    figure = plot_ranking(frame)
    drawn(figure, 6)
    ax = figure.axes[0]
    renderer = figure.canvas.get_renderer()
    for align in ("left", "right"):
        boxes = [text.get_window_extent(renderer) for text in ax.texts if text.get_ha() == align]
        assert len(boxes) == 6 and boxes_apart(boxes)
    # the lines still pass through the ranks themselves
    assert ax.get_lines()[1].get_ydata().tolist() == [2, 2]


def inside(box, figure) -> bool:
    return (box.x0 >= -0.5 and box.y0 >= -0.5 and box.x1 <= figure.bbox.width + 0.5
            and box.y1 <= figure.bbox.height + 0.5)


def laid_out_apart(figure) -> None:
    """Every text, legend and panel of the figure inside it, and the legends clear of the
    panels with all their decorations (tick labels, axis labels, titles): what the figures'
    layout promises, measured by matplotlib itself."""
    renderer = figure.canvas.get_renderer()
    panels = [ax.get_tightbbox(renderer) for ax in figure.axes]
    legends = [legend.get_window_extent(renderer) for legend in figure.legends]
    # (a panel's tight box holds its drawn tick labels, axis labels and titles)
    texts = [text.get_window_extent(renderer) for ax in figure.axes for text in ax.texts
             if text.get_visible() and text.get_text()]
    for box in panels + legends + texts:
        assert inside(box, figure), (box, figure.bbox)
    for legend in legends:
        assert not any(overlap(legend, panel) for panel in panels)
    # the decorations fit tightly: no more than a few points of the figure left unused
    used = Bbox.union(panels)
    assert used.x0 < 12 and used.y0 < 12 and figure.bbox.height - used.y1 < 12, \
        (used, figure.bbox.bounds, [ax.get_title() for ax in figure.axes])


def test_figures_keep_everything_inside_and_apart(case):
    count, table = case
    ranking = rank(table, {"PAR-2": PAR(2), "exp(-t/100)": sympy.exp(-t / 100)})
    figures = [plot_ranking(ranking, title="ranks"),
               plot_cactus(table, utility={"exp(-t/100)": sympy.exp(-t / 100)}, log_y=True),
               plot_survival(table, utility={"exp(-t/100)": sympy.exp(-t / 100)},
                             title="still running")]
    for figure in figures:
        drawn(figure, count)
        laid_out_apart(figure)


def test_bump_chart_keeps_long_names_and_many_rules_inside():
    import pandas as pd

    # names of 60 characters at both ends, and seven rules whose names are slanted
    rules = {f"a rule with a long name {k}": np.roll(np.arange(1, 6), k) for k in range(7)}
    frame = pd.DataFrame({f"{name} rank": ranks for name, ranks in rules.items()},
                         index=pd.Index([f"solver-{k}-" + "w" * 50 for k in range(5)],
                                        name="algorithm"))
    figure = plot_ranking(frame)
    drawn(figure, 5)
    laid_out_apart(figure)
    # the panel keeps a third of the width between names that take most of it
    assert figure.axes[0].bbox.width > 0.2 * figure.bbox.width


def test_figures_changed_after_are_laid_out_again():
    table = competition(14, instances=6, seed=3)
    figure = plot_cactus(table)
    drawn(figure, 14)
    # a title added after the first draw, then a second panel: both find room (the second
    # by constrained layout, which lays out figures of several panels)
    figure.axes[0].set_title("a title added later\non two lines")
    drawn(figure, 14)
    laid_out_apart(figure)
    figure.axes[0].figure.suptitle("and a suptitle")
    drawn(figure, 14)
    laid_out_apart(figure)
