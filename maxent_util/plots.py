"""Figures: utility curves, bump charts of rankings, cactus and survival plots of runs.

The figures are built on :class:`matplotlib.figure.Figure` objects with an
Agg canvas, never through ``pyplot``, so drawing them changes no global
matplotlib state (a notebook's backend stays as it was) and works on a
machine without a display.  Each function draws on a given ``ax`` or on a
new figure, and returns the figure.

Names from data (solvers, rules) are drawn as they are written: a ``$`` is
not read as the start of matplotlib's math text, and a leading ``_`` does not
hide a solver from the legend.
"""

from __future__ import annotations

import functools
import io
import math
import re
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Sequence

from importlib.util import find_spec

import numpy as np
import pandas as pd
import sympy

from .distribution import CaptimeDistribution
from .errors import DataError, MissingExtraError, UtilityError, argument_message, short
from .families import FIGURE_PARAMETERS, figure_spec, parse_utility
from .io import validate_table
from .runs import Runs, real, validate_runs
from .utility import Utility

__all__ = ["HIGHLIGHT", "PAPER_UTILITIES", "plot_utilities", "plot_ranking", "plot_cactus", "plot_survival",
           "survival_curve", "plot_sweep", "plot_race", "to_svg", "BumpChart", "bump_chart",
           "RunsLines", "cactus_lines", "survival_lines"]

#: The paper's figure of utilities (Section 3): the seven families with kappa0 = 24.
PAPER_UTILITIES: tuple[str, ...] = tuple(figure_spec(name) for name in FIGURE_PARAMETERS)

# Seven curves share one panel: colour alone is not enough to tell them apart in print.
_LINE_STYLES = ("-", "--", "-.", ":")

# Utilities drawn over runs: black, told apart from the solid solver lines by their dashes.
_UTILITY_STYLES = ("--", ":", "-.", (0, (6, 2, 1, 2, 1, 2)))

#: How many algorithms a figure of runs or ranks draws in colour, best first, when it has
#: more: the others are thin grey lines behind them (a figure's ``highlight=`` changes it).
HIGHLIGHT = 10

# the colour of the algorithms that are not highlighted
_GREY = "0.78"

# Runtimes scanned for the default horizontal range (seconds, far beyond any
# practical captime at both ends).
_SCAN = np.logspace(-6, 9, 1501)

# The most runtimes plot_utilities evaluates per curve (a float array of 8 MB).
_MAX_POINTS = 1_000_000


# superscript digits for the labels of a log axis
_SUPERSCRIPT = str.maketrans("-0123456789", "\u207b\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079")


def _power_label(value: float, _position: Any = None) -> str:
    """A major tick of a log axis as plain text, 10 to a superscript power ("10³", "1", "10").

    matplotlib's default writes it as mathtext, whose parser costs a second or so the first
    time a process draws one; the text is the same to a reader."""
    if not (value > 0 and math.isfinite(value)):
        return ""
    power = round(math.log10(value))
    if not math.isclose(value, 10.0**power, rel_tol=1e-9):
        return f"{value:g}"
    return {0: "1", 1: "10"}.get(power, "10" + str(power).translate(_SUPERSCRIPT))


def _log_scale(ax: Any, which: str) -> None:
    """Make the ``which`` ("x" or "y") axis of ``ax`` logarithmic, its decades labelled as
    plain text (:func:`_power_label`)."""
    from matplotlib.ticker import FuncFormatter

    getattr(ax, f"set_{which}scale")("log")
    getattr(ax, f"{which}axis").set_major_formatter(FuncFormatter(_power_label))


def require_matplotlib() -> None:
    """Raise :class:`MissingExtraError` naming the ``plot`` extra when matplotlib is missing."""
    if find_spec("matplotlib") is None:
        raise MissingExtraError(
            "plotting needs matplotlib, which is not installed; install the plot extra: "
            "pip install 'maxent_util[plot]'")


def _new_axes(ax: Any, size: tuple[float, float]) -> tuple[Any, Any]:
    if ax is not None:
        return ax.figure, ax
    require_matplotlib()
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=size, layout=_panel_layout()())
    FigureCanvasAgg(figure)
    return figure, figure.add_subplot()


def _data_point(text: Any) -> np.ndarray | None:
    """Where on the screen the data point a text is written at lies (None for a text placed
    otherwise): the text keeps its offset from it when the panel moves."""
    from matplotlib.text import Annotation

    if isinstance(text, Annotation):
        tied = text.xycoords == "data" and text.anncoords in ("offset points", "offset pixels")
        position = text.xy
    else:
        tied = text.get_transform() == text.axes.transData
        position = text.get_unitless_position()
    return text.axes.transData.transform(position) if tied else None


# the space constrained layout leaves around a panel's decorations (its default pads), inches
_PAD = 3 / 72


@functools.cache
def _panel_layout() -> type:
    """The layout engine of the package's one-panel figures (a class: matplotlib is imported
    when a figure is first made).

    Constrained layout measures every artist of the panel, every line and marker of 200
    algorithms included, twice per draw, where only the decorations around the frame (tick
    labels, axis labels, title, the names written at a bump chart's ends) and the legends
    beside it take room: most of the time of a figure written as SVG. This engine measures
    those alone: once, and again only for what moved (texts placed at data points) or
    changed (the ticks of an axis whose length changed). Any other figure (more panels, a
    suptitle, a colorbar added after) is laid out by constrained layout, as before.
    """
    from matplotlib.layout_engine import ConstrainedLayoutEngine
    from matplotlib.transforms import Bbox

    class PanelLayout(ConstrainedLayoutEngine):
        _placed = False

        def execute(self, fig: Any) -> Any:
            panels = fig.axes
            main = panels[0] if panels else None
            if (main is None or fig.subfigs or any(
                    text is not None and text.get_text() for text in
                    (fig._suptitle, fig._supxlabel, fig._supylabel))
                    or set(panels) != set(main._twinned_axes.get_siblings(main))
                    or any(legend._outside_loc not in (None, "right")
                           for legend in fig.legends)):
                return super().execute(fig)
            renderer = fig._get_renderer()
            width, height = fig.bbox.width, fig.bbox.height
            pad = _PAD * fig.dpi
            # the figure's legends sit at its right edge (loc "outside right ..."): the panel
            # and its decorations keep to their left
            shown = [legend for legend in fig.legends
                     if legend.get_visible() and legend._outside_loc == "right"]
            right_edge = min([width] + [legend.get_window_extent(renderer).x0
                                        for legend in shown]) - pad
            ticks: list[Any] = []
            # texts written at a data point (a bump chart's names) are measured once: when the
            # panel moves they move with their point, the same size
            texts = [(text, box, _data_point(text)) for panel in panels for text in panel.texts
                     for box in [text.get_tightbbox(renderer)]  # null if not drawn
                     if text.get_visible() and 0 < box.width < np.inf]
            if not self._placed:
                # a first guess of the usual margins, so that the axes' ticks (which depend on
                # their length) are measured once in most figures
                self._placed = True
                guess = (pad + 0.6 * fig.dpi, pad + 0.5 * fig.dpi)
                main.set_position([guess[0] / width, guess[1] / height,
                                   max(0.1, (right_edge - 0.1 * fig.dpi - guess[0]) / width),
                                   max(0.1, (height - pad - 0.15 * fig.dpi - guess[1]) / height)])
            for _ in range(8):
                frame = main.get_window_extent(renderer)
                now = [tuple(np.asarray(axis.get_majorticklocs()).tolist())
                       for panel in panels for axis in (panel.xaxis, panel.yaxis)]
                if now != ticks:  # first, or the axes' ticks changed with their length
                    ticks = now
                    # the axes, their labels and the titles, as margins around the frame
                    around = Bbox.union([frame] + [
                        panel.get_tightbbox(renderer, bbox_extra_artists=[],
                                            for_layout_only=True)
                        for panel in panels if panel.get_visible()])
                    margins = (frame.x0 - around.x0, frame.y0 - around.y0,
                               around.x1 - frame.x1, around.y1 - frame.y1)
                boxes = [text.get_window_extent(renderer) if point is None
                         else box.translated(*(_data_point(text) - point))
                         for text, box, point in texts]
                boxes += [panel.get_legend().get_window_extent(renderer) for panel in panels
                          if panel.get_legend() is not None and panel.get_legend().get_visible()]
                box = Bbox.union([frame] + boxes)
                left = pad + max(margins[0], frame.x0 - box.x0)
                bottom = pad + max(margins[1], frame.y0 - box.y0)
                right = right_edge - max(margins[2], box.x1 - frame.x1)
                top = height - pad - max(margins[3], box.y1 - frame.y1)
                if right - left < 0.1 * width or top - bottom < 0.1 * height:
                    return super().execute(fig)  # it warns that the panel has no room
                moved = max(abs(left - frame.x0), abs(right - frame.x1),
                            abs(bottom - frame.y0), abs(top - frame.y1))
                if moved < 0.5:
                    break
                main.set_position([left / width, bottom / height, (right - left) / width,
                                   (top - bottom) / height])

    return PanelLayout


def _named_utilities(utilities: Any, arg: str = "utilities", owner: str = "plot_utilities"
                     ) -> list[tuple[str, Any]]:
    if isinstance(utilities, (str, Utility, CaptimeDistribution, sympy.Basic)):
        utilities = [utilities]
    if isinstance(utilities, Mapping):
        items = list(utilities.items())
    elif isinstance(utilities, Sequence) or hasattr(utilities, "__iter__"):
        items = [(None, value) for value in utilities]
    else:
        raise UtilityError(argument_message(
            arg, owner, "a sequence or a mapping of utilities", utilities))
    if not items:
        raise UtilityError(argument_message(arg, owner, "non-empty", utilities))
    named = []
    for name, value in items:
        if isinstance(value, str):
            value = parse_utility(value)
        elif isinstance(value, CaptimeDistribution):
            value = value.utility()
        elif not isinstance(value, Utility):
            value = Utility(value)
        label = name if name is not None else (value.name or str(value.expr))
        named.append((str(label), value))
    return named


def _median_captime(utility: Any) -> float | None:
    """The runtime at which the utility first drops to 1/2 (None if it never does)."""
    values = np.asarray(utility(_SCAN), dtype=float)
    below = np.flatnonzero(values <= 0.5)
    return float(_SCAN[below[0]]) if below.size else None


def _default_t_max(utilities: list[tuple[str, Any]]) -> float:
    # Twice the latest median captime shows every curve's fall and the start of its tail.
    medians = [m for m in (_median_captime(u) for _, u in utilities) if m is not None]
    return 2.0 * max(medians) if medians else 1.0


#: the runtime axes a figure can draw: matplotlib overflows adding its margins to an axis
#: near 1e308 s (a RuntimeWarning, and no figure of the range asked), and widens one shorter
#: than about 1e-287 s to (-0.05, 0.05)
_T_MAX_RANGE = (1e-280, 1e300)


def plot_utilities(utilities: Any = PAPER_UTILITIES, ax: Any = None, *, t_max: float | None = None,
                   log_x: bool = False, points: int = 1001, title: str | None = None) -> Any:
    """Draw utility curves u(t) on one panel.

    Parameters
    ----------
    utilities : sequence or mapping, default :data:`PAPER_UTILITIES`
        Utilities, captime distributions, sympy expressions in ``t`` or
        preset specs such as ``"pareto(24, 1)"``; a mapping gives the legend
        labels (else each utility's name, or its formula).
    ax : matplotlib Axes, optional
        Draw here; by default on a new figure.
    t_max : float, optional, keyword-only
        Right end of the runtime axis, from 1e-280 to 1e300 seconds; by default
        twice the latest runtime at which a utility falls to 1/2.
    log_x : bool, keyword-only
        Logarithmic runtime axis (from ``t_max / 10**4``).
    points : int, keyword-only
        Runtimes evaluated per curve, from 2 to 1,000,000.
    title : str, optional, keyword-only
        Title of the panel.

    Returns
    -------
    matplotlib.figure.Figure
        The figure drawn on (that of ``ax`` when given), one line per utility.

    Raises
    ------
    UtilityError
        If a spec cannot be parsed, a utility has free parameters,
        ``t_max`` is not a number from 1e-280 to 1e300, ``points`` not a whole number
        from 2 to 1,000,000 or ``log_x`` not a bool.
    MissingExtraError
        If matplotlib is not installed (the ``plot`` extra).

    Examples
    --------
    >>> figure = plot_utilities(["uniform(24)", "exponential(24)"], t_max=48)
    >>> [line.get_label() for line in figure.axes[0].get_lines()]
    ['uniform(24)', 'exponential(24)']
    """
    owner = "plot_utilities"
    if not (isinstance(points, (int, np.integer)) and not isinstance(points, (bool, np.bool_))
            and 2 <= points <= _MAX_POINTS):
        raise UtilityError(argument_message(
            "points", owner, f"a whole number from 2 to {_MAX_POINTS:,}", short(points)))
    if not isinstance(log_x, (bool, np.bool_)):
        raise UtilityError(argument_message("log_x", owner, "True or False", short(log_x)))
    if t_max is not None and not (math.isfinite(real(t_max)) and _T_MAX_RANGE[0] <= real(t_max) <= _T_MAX_RANGE[1]):
        raise UtilityError(argument_message("t_max", owner, "a positive number from 1e-280 to 1e300",
                                            short(t_max)))
    named = _named_utilities(utilities)
    t_max = _default_t_max(named) if t_max is None else float(t_max)
    if log_x:
        runtimes = np.logspace(np.log10(t_max) - 4, np.log10(t_max), points)
    else:
        runtimes = np.linspace(0.0, t_max, points)
    figure, ax = _new_axes(ax, (8.0, 5.0))
    for index, (label, utility) in enumerate(named):
        values = np.asarray(utility(runtimes), dtype=float)
        ax.plot(runtimes, values, label=label, linewidth=1.8,
                linestyle=_LINE_STYLES[index // 10 % len(_LINE_STYLES)] if len(named) > 10
                else _LINE_STYLES[index % len(_LINE_STYLES)])
    if log_x:
        _log_scale(ax, "x")
    else:
        ax.set_xlim(0.0, t_max)
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel("runtime t (s)")
    ax.set_ylabel("utility u(t)")
    ax.grid(True, alpha=0.3)
    ax.legend(loc="upper right", fontsize="small")
    if title:
        ax.set_title(title)
    return figure


def _rank_columns(ranking: Any) -> list[str]:
    columns = [c for c in getattr(ranking, "columns", []) if str(c).endswith(" rank")]
    if not columns:
        raise UtilityError(argument_message(
            "ranking_df", "plot_ranking", "a table from `rank` with '<rule> rank' columns",
            list(getattr(ranking, "columns", [])) if hasattr(ranking, "columns") else ranking))
    return columns


@dataclass(frozen=True)
class BumpChart:
    """What a bump chart shows, whoever draws it (:func:`plot_ranking`, the report's SVG).

    ``ranks`` has a row per algorithm (in the table's order) and a column per rule;
    ``slots`` the row each name is written on at the first and last rule (tied algorithms
    share a rank but not a row); ``pitch`` the inches a rank takes, ``size`` the names' font
    size in points, ``figsize`` the figure's width and height in inches."""

    rules: list[str]
    ranks: np.ndarray
    algorithms: list[str]
    highlighted: list[str]
    styles: dict[str, dict[str, Any]]
    slots: np.ndarray
    pitch: float
    size: float
    figsize: tuple[float, float]


def bump_chart(ranking_df: Any, highlight: Any = None, owner: str = "plot_ranking") -> BumpChart:
    """The contents of :func:`plot_ranking`'s figure, checked.

    Parameters
    ----------
    ranking_df : pandas.DataFrame
        The output of :func:`maxent_util.rank`, as for :func:`plot_ranking`.
    highlight : int or sequence of str, optional
        The algorithms drawn in colour, as for :func:`plot_ranking`.
    owner : str
        The function named in errors.

    Returns
    -------
    BumpChart
        The rules, ranks, colours, rows of the names and sizes.

    Raises
    ------
    UtilityError
        If the table has no rank columns, or ``highlight`` names an algorithm it lacks.

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame({"a rank": [1, 1], "b rank": [2, 1]},
    ...                      index=pd.Index(["x", "y"], name="algorithm"))
    >>> chart = bump_chart(table)
    >>> chart.rules, chart.slots[:, 0].tolist(), chart.styles["x"]["color"]
    (['a', 'b'], [1.0, 2.0], '#1f77b4')
    """
    columns = _rank_columns(ranking_df)
    rules = [c[: -len(" rank")] for c in columns]
    ranks = np.asarray(ranking_df[columns], dtype=float)
    algorithms = [str(name) for name in ranking_df.index]
    count = len(algorithms)
    best_first = [algorithms[row] for row in np.argsort(ranks[:, 0], kind="stable")]
    highlighted = _highlighted(best_first, highlight, owner)
    # the rows get closer as algorithms are added, and the names smaller with them
    pitch = 0.3 if count <= 20 else 0.2 if count <= 70 else 0.14  # inches a rank
    # each name on a line of its own: tied algorithms share a rank (1, 2, 2, 4) but their names
    # take the rows the tie leaves free (2 and 3), in the table's order
    slots = np.empty_like(ranks)
    for end in (0, -1):
        slots[np.argsort(ranks[:, end], kind="stable"), end] = np.arange(1, count + 1)
    return BumpChart(rules, ranks, algorithms, highlighted, _emphasis(algorithms, highlighted),
                     slots, pitch, min(8.5, 72 * pitch * 0.78),
                     (max(6.0, 1.5 * len(rules) + 4.5), max(3.5, pitch * count + 1.5)))


def plot_ranking(ranking_df: Any, ax: Any = None, *, highlight: Any = None,
                 title: str | None = None) -> Any:
    """Bump chart of the ranks of algorithms under each rule (the paper's Figure 3).

    One column per rule, in the table's order; one line per algorithm joining
    its ranks, with rank 1 at the top and the names written at both ends.

    Parameters
    ----------
    ranking_df : pandas.DataFrame
        The output of :func:`maxent_util.rank`: indexed by algorithm, with a
        ``"{rule} rank"`` column per rule.
    ax : matplotlib Axes, optional
        Draw here; by default on a new figure sized to the table (the rows
        closer and the names smaller as algorithms are added, legible up to
        a few hundred).
    highlight : int or sequence of str, optional, keyword-only
        The algorithms drawn in colour: the first :data:`HIGHLIGHT` (10) under
        the first rule by default, this many for a number, or these names;
        the others are grey, their names in dark grey.
    title : str, optional, keyword-only
        Title of the panel.

    Returns
    -------
    matplotlib.figure.Figure
        The figure drawn on (that of ``ax`` when given).

    Raises
    ------
    UtilityError
        If the table has no rank columns, or ``highlight`` names an
        algorithm the table lacks.
    MissingExtraError
        If matplotlib is not installed (the ``plot`` extra).

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame({"a rank": [1, 2], "b rank": [2, 1]},
    ...                      index=pd.Index(["x", "y"], name="algorithm"))
    >>> figure = plot_ranking(table)
    >>> [label.get_text() for label in figure.axes[0].get_xticklabels()]
    ['a', 'b']
    """
    bump = bump_chart(ranking_df, highlight)
    rules, ranks, algorithms, count = bump.rules, bump.ranks, bump.algorithms, len(bump.algorithms)
    highlighted, styles, pitch, size, slots = (bump.highlighted, bump.styles, bump.pitch,
                                               bump.size, bump.slots)
    figure, ax = _new_axes(ax, bump.figsize)
    positions = np.arange(len(rules))
    for row, name in enumerate(algorithms):
        style = styles[name]
        top = name in highlighted
        ax.plot(positions, ranks[row], **{**style, "linewidth": style["linewidth"] * 1.2},
                marker="o", markersize=min(7.0, 72 * pitch * 0.45) * (1.0 if top else 0.7),
                solid_capstyle="round")
        # the ranks are written next to the names, so no y axis competes with the left labels;
        # the names of grey lines in a darker grey, to stay readable
        colour = style["color"] if top else "0.4"
        # every name's point lies inside the panel: matplotlib need not check it each time it
        # measures or draws a name (annotation_clip)
        for end, text, offset, align in ((0, f"{_text(name)}  {ranks[row, 0]:g}", -8, "right"),
                                         (-1, f"{ranks[row, -1]:g}  {_text(name)}", 8, "left")):
            ax.annotate(text, (positions[end], slots[row, end]), xytext=(offset, 0),
                        textcoords="offset points", ha=align, va="center", color=colour,
                        fontsize=size, fontweight="bold" if top and count > len(highlighted)
                        else "normal", annotation_clip=False)
    ax.set_xticks(positions, [_text(rule) for rule in rules], rotation=20 if len(rules) > 4 else 0,
                  ha="right" if len(rules) > 4 else "center")
    ax.set_yticks([])
    ax.set_ylim(count + 0.6, 0.4)  # rank 1 at the top
    ax.set_xlim(-0.3, len(rules) - 0.7)
    for side in ("top", "right", "left"):
        ax.spines[side].set_visible(False)
    ax.grid(True, axis="x", alpha=0.3)
    if title:
        ax.set_title(title)
    return figure


# matplotlib's qualitative palettes tab10 and tab20, written out so that a figure drawn without
# matplotlib (the report's SVG) has the same colours
_TAB10 = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
          "#7f7f7f", "#bcbd22", "#17becf")
_TAB20 = ("#1f77b4", "#aec7e8", "#ff7f0e", "#ffbb78", "#2ca02c", "#98df8a", "#d62728",
          "#ff9896", "#9467bd", "#c5b0d5", "#8c564b", "#c49c94", "#e377c2", "#f7b6d2",
          "#7f7f7f", "#c7c7c7", "#bcbd22", "#dbdb8d", "#17becf", "#9edae5")


def _colours(count: int) -> list[Any]:
    """Distinct colours for ``count`` lines: hex strings from a palette up to 20, else RGBA
    tuples along matplotlib's turbo map."""
    if count <= 20:
        palette = _TAB10 if count <= 10 else _TAB20
        return list(palette[:count])
    # More highlighted algorithms than a qualitative palette holds: a continuous map.
    require_matplotlib()
    from matplotlib import colormaps

    return [colormaps["turbo"](x) for x in np.linspace(0.05, 0.95, count)]


def _highlighted(best_first: Sequence[str], highlight: Any, owner: str) -> list[str]:
    """The algorithms a figure draws in colour, best first: the first :data:`HIGHLIGHT` of
    ``best_first`` by default, the first ``highlight`` for a number, or the names given."""
    if highlight is None:
        return list(best_first[:HIGHLIGHT])
    if isinstance(highlight, (int, np.integer)) and not isinstance(highlight, (bool, np.bool_)):
        if highlight < 0:
            raise UtilityError(argument_message(
                "highlight", owner, "a number of algorithms (0 or more) or their names",
                short(highlight)))
        return list(best_first[:int(highlight)])
    names = [highlight] if isinstance(highlight, str) else highlight
    try:
        names = list(dict.fromkeys(str(name) for name in names))
    except TypeError:
        raise UtilityError(argument_message(
            "highlight", owner, "a number of algorithms or a sequence of their names",
            short(highlight))) from None
    known = set(best_first)
    unknown = [name for name in names if name not in known]
    if unknown:
        raise UtilityError(argument_message(
            "highlight", owner, "names of algorithms of the table", short(unknown)))
    return names


def _emphasis(names: Sequence[str], highlighted: Sequence[str]) -> dict[str, dict[str, Any]]:
    """Line keywords per algorithm: the highlighted in distinct colours, drawn on top; the
    rest thin and grey beneath them, so that 200 lines read as a background."""
    colours = dict(zip(highlighted, _colours(len(highlighted))))
    return {name: (dict(color=colours[name], linewidth=1.8, zorder=3) if name in colours
                   else dict(color=_GREY, linewidth=0.8, zorder=2))
            for name in names}


def _solver_legend(figure: Any, ax: Any, created: bool, highlighted: Sequence[str],
                   count: int) -> None:
    """A legend of the highlighted algorithms, best first, and one grey entry for the others:
    outside the axes, to the right, on a new figure; inside on given axes."""
    from matplotlib.lines import Line2D

    lines = {line.get_label(): line for line in ax.get_lines()}
    handles = [lines[_text(name)] for name in highlighted if _text(name) in lines]
    labels = [_text(name) for name in highlighted if _text(name) in lines]
    others = count - len(handles)
    if others > 0 and handles:
        handles.append(Line2D([], [], color=_GREY, linewidth=0.8))
        labels.append(f"{others} other{'s' if others > 1 else ''}")
    if not handles:
        return
    size = "small" if len(handles) <= 12 else "x-small"
    title = "algorithm" if others <= 0 else "best algorithms"
    if created:  # outside the axes, to the right; the figure's layout makes room for it
        figure.legend(handles, labels, loc="outside right upper", fontsize=size,
                      ncols=max(1, math.ceil(len(handles) / 28)), title=title,
                      title_fontsize=size)
    else:
        ax.legend(handles, labels, loc="best", fontsize=size,
                  ncols=max(1, math.ceil(len(handles) / 28)))


# ---------------------------------------------------------------------------
# runs: cactus and survival plots


def _text(name: Any) -> str:
    """A name from data as matplotlib should draw it: literally.

    A ``$`` would start math text (and a stray ``\\frac`` in it would fail to
    parse); a leading ``_`` keeps a label out of the legend.
    """
    text = str(name).replace("$", r"\$")
    return "\u200b" + text if text.startswith("_") else text


def _algorithm_runs(table: Any, owner: str) -> list[tuple[str, Runs]]:
    """The runs of each algorithm of a long table, validated as :func:`maxent_util.score` does."""
    if not isinstance(table, pd.DataFrame):
        raise DataError(argument_message("table", owner, "a long runtime table (a pandas "
                                         "DataFrame)", type(table).__name__))
    validate_table(table, name=f"table of {owner}")
    if len(table) == 0:
        raise DataError(argument_message("table", owner, "at least one run", "no rows"))
    has_cutoff = "cutoff" in table.columns
    runs = []
    for name, rows in table.groupby("algorithm", sort=True, observed=True):
        runs.append((str(name), validate_runs(
            rows["runtime"].to_numpy(dtype=float), solved=None,
            cutoff=rows["cutoff"].to_numpy(dtype=float) if has_cutoff else None,
            status=rows["status"].to_numpy(dtype=object), failures_as_capped=False,
            owner=f"{owner}, algorithm {name!r}")))
    return runs


def _last_time(runs: Runs) -> float:
    """The latest time the runs say anything about: a runtime or a cutoff."""
    last = float(runs.runtimes.max())
    if runs.cutoffs is not None:
        last = max(last, float(runs.cutoffs.max()))
    return last


def _most_solved(item: tuple[str, Runs]) -> tuple[int, str]:
    """Sort key of an algorithm's runs: most solved first, then by name."""
    name, runs = item
    return -int(runs.solved.sum()), name


def _runs_figure_size(highlighted: int) -> tuple[float, float]:
    """Width and height (inches) of a cactus or survival figure: room for the axes and a
    legend of the highlighted algorithms beside them (the others share one entry)."""
    return 10.0, max(5.0, 0.24 * (highlighted + 2) + 1.6)


def _overlay(utility: Any, owner: str) -> list[tuple[str, Any]]:
    named = _named_utilities(utility, "utility", owner)
    for label, value in named:
        if value.parameters:
            raise UtilityError(argument_message(
                "utility", owner, "free of unset parameters",
                tuple(s.name for s in value.parameters),
                f"(utility {label!r}) Give them values first, e.g. utility.subs(kappa0=60)."))
    return named


def _draw_utilities(ax: Any, named: list[tuple[str, Any]], runtimes: np.ndarray, *,
                    time_on_x: bool, outside: Any = None) -> None:
    """The utilities in black dashes on ``ax``; their legend inside it, or below the
    algorithms' legend outside the axes of the figure ``outside`` (where it hides no data)."""
    for index, (label, utility) in enumerate(named):
        values = np.asarray(utility(runtimes), dtype=float)
        x, y = (runtimes, values) if time_on_x else (values, runtimes)
        ax.plot(x, y, color="0.15", linewidth=1.4, label=f"u(t) = {_text(label)}",
                linestyle=_UTILITY_STYLES[index % len(_UTILITY_STYLES)])
    if outside is not None:
        handles, labels = ax.get_legend_handles_labels()
        outside.legend(handles, labels, loc="outside right lower", fontsize="small",
                       title="utility", title_fontsize="small")
    else:
        ax.legend(loc="lower right" if time_on_x else "upper left", fontsize="small",
                  title="utility", title_fontsize="small")


@dataclass(frozen=True)
class RunsLines:
    """The lines of a cactus or survival figure, whoever draws them (:func:`plot_cactus` and
    :func:`plot_survival`, the report's SVG).

    ``lines`` holds ``(algorithm, x, y)`` in drawing order (a survival curve's points are
    where it steps, drawn as steps after each); ``runs`` each algorithm's validated runs by
    name; ``utilities`` the ``(label, utility)`` overlaid; ``start`` and ``end`` the range of
    runtimes shown."""

    lines: list[tuple[str, np.ndarray, np.ndarray]]
    runs: list[tuple[str, Runs]]
    highlighted: list[str]
    styles: dict[str, dict[str, Any]]
    utilities: list[tuple[str, Any]]
    start: float
    end: float

    def marked(self, name: str) -> bool:
        """Whether a cactus line gets a marker at each point: a highlighted one of few.

        Parameters
        ----------
        name : str
            An algorithm of :attr:`lines`.

        Returns
        -------
        bool
            True for a highlighted algorithm's line of at most 60 points.

        Examples
        --------
        >>> import pandas as pd
        >>> runs = pd.DataFrame({"algorithm": ["a"], "instance": ["i"], "runtime": [3.0],
        ...                      "status": ["solved"]})
        >>> cactus_lines(runs).marked("a")
        True
        """
        x = next(x for line, x, _ in self.lines if line == name)
        return x.size <= 60 and name in self.highlighted


def _runs_lines(table: Any, utility: Any, highlight: Any, owner: str
                ) -> tuple[list[tuple[str, Runs]], list[tuple[str, Any]], list[str],
                           dict[str, dict[str, Any]]]:
    runs = _algorithm_runs(table, owner)
    named = _overlay(utility, owner) if utility is not None else []
    highlighted = _highlighted([name for name, _ in sorted(runs, key=_most_solved)], highlight,
                               owner)
    return runs, named, highlighted, _emphasis([name for name, _ in runs], highlighted)


def cactus_lines(table: Any, *, utility: Any = None, highlight: Any = None,
                 owner: str = "plot_cactus") -> RunsLines:
    """The lines of :func:`plot_cactus`: per algorithm, most solved first, the counts 1..k
    against the sorted solved runtimes; the range 0 to the latest runtime or cutoff.

    Parameters
    ----------
    table : pandas.DataFrame
        A long runtime table.
    utility, highlight
        As for :func:`plot_cactus`.
    owner : str, keyword-only
        The function named in errors.

    Returns
    -------
    RunsLines
        The lines, the runs, the colours and the range.

    Raises
    ------
    DataError
        If ``table`` is not a valid long table.
    UtilityError
        If a utility cannot be read or has free parameters, or ``highlight`` names an
        algorithm the table lacks.

    Examples
    --------
    >>> import pandas as pd
    >>> runs = pd.DataFrame({"algorithm": ["a", "a", "b"], "instance": ["i", "j", "i"],
    ...                      "runtime": [30.0, 5.0, 100.0],
    ...                      "status": ["solved", "solved", "capped"], "cutoff": 100.0})
    >>> [(name, x.tolist(), y.tolist()) for name, x, y in cactus_lines(runs).lines]
    [('a', [1, 2], [5.0, 30.0]), ('b', [], [])]
    """
    runs, named, highlighted, styles = _runs_lines(table, utility, highlight, owner)
    lines = []
    for name, one in sorted(runs, key=_most_solved):
        times = np.sort(one.runtimes[one.solved])
        lines.append((name, np.arange(1, times.size + 1), times))
    return RunsLines(lines, runs, highlighted, styles, named, 0.0,
                     max(_last_time(one) for _, one in runs))


def survival_lines(table: Any, *, utility: Any = None, highlight: Any = None,
                   owner: str = "plot_survival") -> RunsLines:
    """The curves of :func:`plot_survival`: per algorithm, in the table's order, where its
    survival steps from the left end (a power of ten below every runtime) to its last runtime
    or cutoff, and its value after each step.

    Parameters
    ----------
    table : pandas.DataFrame
        A long runtime table.
    utility, highlight
        As for :func:`plot_survival`.
    owner : str, keyword-only
        The function named in errors.

    Returns
    -------
    RunsLines
        The curves, the runs, the colours and the range of runtimes.

    Raises
    ------
    DataError
        If ``table`` is not a valid long table.
    UtilityError
        If a utility cannot be read or has free parameters, or ``highlight`` names an
        algorithm the table lacks.

    Examples
    --------
    >>> import pandas as pd
    >>> runs = pd.DataFrame({"algorithm": ["a"] * 4, "instance": list("ijkl"),
    ...                      "runtime": [2.0, 8.0, 50.0, 20.0],
    ...                      "status": ["solved", "solved", "capped", "memout"],
    ...                      "cutoff": [100.0, 100.0, 50.0, 100.0]})
    >>> [(x.tolist(), y.tolist()) for _, x, y in survival_lines(runs).lines]
    [([1.0, 2.0, 8.0, 100.0], [1.0, 0.75, 0.5, 0.5])]
    """
    runs, named, highlighted, styles = _runs_lines(table, utility, highlight, owner)
    left = _left_end(runs)
    right = left
    lines = []
    for name, one in runs:
        times, survival = survival_curve(one)
        shown = times > left  # runs solved at t = 0 are in the value at the left end
        start = float(survival[~shown][-1]) if (~shown).any() else 1.0
        end = _last_time(one)
        right = max(right, end)
        x = np.concatenate([[left], times[shown], [end]])
        y = np.concatenate([[start], survival[shown], [survival[-1] if survival.size else 1.0]])
        lines.append((name, x, y))
    return RunsLines(lines, runs, highlighted, styles, named, left, right)


def plot_cactus(table: pd.DataFrame, ax: Any = None, *, utility: Any = None,
                log_y: bool = False, highlight: Any = None, title: str | None = None) -> Any:
    """Cactus plot: each algorithm's solved runs, sorted by runtime.

    The standard figure of the SAT Competition's results pages: the
    horizontal axis counts solved instances, the vertical one gives the
    runtime; an algorithm's line passes through ``(k, t_k)`` where ``t_k`` is
    its ``k``-th shortest solved runtime, so a line further right solves
    more, and a lower one solves faster. Capped runs and failures
    (``"memout"``, ``"crash"``, ``"unverified"``) are left out: an algorithm's
    line ends at its number of solved runs.

    Parameters
    ----------
    table : pandas.DataFrame
        A long runtime table (``algorithm``, ``instance``, ``runtime``,
        ``status``, optional ``cutoff``). With one run per instance, as in a
        competition, solved runs are solved instances; repeated runs count
        one point each.
    ax : matplotlib Axes, optional
        Draw here; by default on a new figure, with the legend outside the
        axes.
    utility : utility, spec, or a sequence or mapping of them, optional, keyword-only
        Utilities drawn against the same runtime axis on a secondary
        horizontal axis at the top (u(t) from 0 to 1): reading across at a
        runtime gives what a run of that length is worth. Specs such as
        ``"pareto(5, 3)"`` are read with :func:`~maxent_util.parse_utility`.
    log_y : bool, keyword-only
        Logarithmic runtime axis.
    highlight : int or sequence of str, optional, keyword-only
        The algorithms drawn in colour and named in the legend: the first
        :data:`HIGHLIGHT` (10) by default, this many for a number, or these
        names (best first, e.g. the top of a ranking); the others are thin
        grey lines behind them, counted in the legend as "n others".
        Without a number or names the order is most solved first (ties by
        name), as in :func:`plot_survival`, so both figures colour an
        algorithm alike.
    title : str, optional, keyword-only
        Title of the panel.

    Returns
    -------
    matplotlib.figure.Figure
        One line per algorithm on ``figure.axes[0]``, labelled with its
        name, most solved first (ties by name); the utilities, if any, on
        ``figure.axes[1]``.

    Raises
    ------
    DataError
        If ``table`` is not a valid long table.
    UtilityError
        If a utility cannot be read or has free parameters, ``log_y`` is
        not a bool, or ``highlight`` names an algorithm the table lacks.

    Examples
    --------
    >>> import pandas as pd
    >>> runs = pd.DataFrame({"algorithm": ["a", "a", "a", "b", "b", "b"],
    ...                      "instance": ["i", "j", "k"] * 2,
    ...                      "runtime": [30.0, 5.0, 100.0, 7.0, 100.0, 2.0],
    ...                      "status": ["solved", "solved", "capped", "solved", "memout",
    ...                                 "solved"], "cutoff": 100.0})
    >>> figure = plot_cactus(runs)
    >>> [(line.get_label(), line.get_xdata().tolist(), line.get_ydata().tolist())
    ...  for line in figure.axes[0].get_lines()]
    [('a', [1, 2], [5.0, 30.0]), ('b', [1, 2], [2.0, 7.0])]
    """
    owner = "plot_cactus"
    if not isinstance(log_y, (bool, np.bool_)):
        raise UtilityError(argument_message("log_y", owner, "True or False", short(log_y)))
    cactus = cactus_lines(table, utility=utility, highlight=highlight, owner=owner)
    runs, named, highlighted = cactus.runs, cactus.utilities, cactus.highlighted
    styles = cactus.styles
    created = ax is None
    count = len(runs)
    figure, ax = _new_axes(ax, _runs_figure_size(len(highlighted)))
    for name, x, times in cactus.lines:
        ax.plot(x, times, **styles[name], marker="." if cactus.marked(name) else None,
                markersize=4, label=_text(name))
    top = cactus.end
    if log_y:
        solved = np.concatenate([one.runtimes[one.solved] for _, one in runs])
        positive = solved[solved > 0]
        bottom = float(positive.min()) if positive.size else top / 1e4
        if not positive.size:
            # no solved runtime above 0 to scale by: four decades below the cutoff (matplotlib
            # would warn that it cannot log-scale the data, and pick a range of its own)
            ax.set_ylim(bottom, top * 1.02)
        _log_scale(ax, "y")
        runtimes = np.logspace(np.log10(bottom), np.log10(top), 501)
    else:
        ax.set_ylim(0.0, top * 1.02)
        runtimes = np.linspace(0.0, top, 501)
    ax.set_xlim(left=0)
    ax.set_xlabel("solved instances")
    ax.set_ylabel("runtime t (s)")
    ax.grid(True, alpha=0.3)
    if named:
        twin = ax.twiny()
        _draw_utilities(twin, named, runtimes, time_on_x=False,
                        outside=figure if created else None)
        twin.set_xlim(0.0, 1.02)
        twin.set_xlabel("utility u(t)")
    _solver_legend(figure, ax, created, highlighted, count)
    if title:
        ax.set_title(title)
    return figure


def survival_curve(runs: Runs) -> tuple[np.ndarray, np.ndarray]:
    """Where the runs' Kaplan-Meier survival function steps, and its value after each step.

    Solved runs are events; capped runs are right-censored where they
    stopped (their runtime or cutoff, whichever is smaller); failures never
    solve, so they stay at risk at every time (censored beyond the last
    one). With one common cutoff this is the fraction of runs not solved by
    ``t``; with cutoffs that differ it is the Kaplan-Meier estimate (as
    :func:`scipy.stats.ecdf` gives it).

    Parameters
    ----------
    runs : Runs
        One algorithm's validated runs (:func:`maxent_util.runs.validate_runs`).

    Returns
    -------
    times, survival : numpy.ndarray
        The distinct solved runtimes, increasing, and the estimate of
        :math:`P(T > t)` at each of them (empty arrays when nothing was
        solved: the survival is 1 throughout).

    Examples
    --------
    >>> from maxent_util.runs import validate_runs
    >>> runs = validate_runs([1.0, 4.0, 4.0, 10.0], solved=None, cutoff=10.0,
    ...                      status=["solved", "solved", "crash", "capped"],
    ...                      failures_as_capped=False, owner="example")
    >>> times, survival = survival_curve(runs)
    >>> times.tolist(), survival.tolist()
    ([1.0, 4.0], [0.75, 0.5])
    """
    events = runs.runtimes[runs.solved]
    if events.size == 0:
        return np.empty(0), np.empty(0)
    right = runs.stop_times[runs.capped]
    failed = int((~runs.solved & ~runs.capped).sum())
    if failed:
        # at risk throughout and never an event: censored after every observed time
        beyond = 2.0 * max(float(runs.runtimes.max()), float(right.max(initial=0.0))) + 1.0
        right = np.concatenate([right, np.full(failed, beyond)])
    times = np.unique(events)
    if right.size == 0:
        survival = 1.0 - np.searchsorted(np.sort(events), times, side="right") / events.size
        return times, survival
    # Kaplan-Meier, as scipy.stats.ecdf computes it (without loading scipy.stats): at each
    # solved time, the runs still at risk are those that stopped then or later (a run
    # censored at that very time included), and the survival falls by the share solved
    ordered = np.sort(events)
    solved = np.diff(np.searchsorted(ordered, times, side="right"), prepend=0)
    at_risk = (events.size - np.searchsorted(ordered, times, side="left")
               + right.size - np.searchsorted(np.sort(right), times, side="left"))
    return times, np.cumprod(1.0 - solved / at_risk)


def _left_end(runs: list[tuple[str, Runs]]) -> float:
    """A round runtime (a power of ten) below every positive time of the table."""
    times = np.concatenate([one.runtimes for _, one in runs])
    positive = times[times > 0]
    smallest = float(positive.min()) if positive.size else 1.0
    # a subnormal runtime would round the power of ten to 0, which no log axis shows
    return max(float(10.0 ** (math.ceil(math.log10(smallest)) - 1)), float(np.finfo(float).tiny))


def plot_survival(table: pd.DataFrame, ax: Any = None, *, utility: Any = None,
                  highlight: Any = None, title: str | None = None) -> Any:
    """Survival plot: the fraction of each algorithm's runs still running at time t.

    One step curve per algorithm of :math:`S(t) = P(T > t)`, the
    probability that a run takes longer than ``t`` (the complement of the
    runtime distribution), on a logarithmic runtime axis. Solved runs end
    at their runtime. Capped runs are right-censored at their cutoff: when
    runs had different cutoffs the curve is the Kaplan-Meier estimate
    (:func:`survival_curve`), which uses a capped run while it was known to
    be running and no longer. **Failures** (``"memout"``, ``"crash"``,
    ``"unverified"``) **count as never solved**: they keep running for ever
    as far as the curve is concerned, as in :func:`maxent_util.score`,
    where they are worth 0. Each curve ends at the latest runtime or cutoff
    of its algorithm: beyond it the data say nothing.

    With a utility overlaid, an algorithm's expected utility is
    :math:`E[u(T)] = \\int u \\,d(1 - S)`: the more a curve falls
    where ``u`` is still high, the better the algorithm scores.

    Parameters
    ----------
    table : pandas.DataFrame
        A long runtime table (``algorithm``, ``instance``, ``runtime``,
        ``status``, optional ``cutoff``); every run counts, repetitions too.
    ax : matplotlib Axes, optional
        Draw here; by default on a new figure, with the legend outside the
        axes.
    utility : utility, spec, or a sequence or mapping of them, optional, keyword-only
        Utilities drawn over the same runtimes on a secondary vertical axis
        at the right (u(t) from 0 to 1).
    highlight : int or sequence of str, optional, keyword-only
        The algorithms drawn in colour, as in :func:`plot_cactus` (by
        default the 10 with the most solved runs); the others are grey.
    title : str, optional, keyword-only
        Title of the panel.

    Returns
    -------
    matplotlib.figure.Figure
        One step line per algorithm on ``figure.axes[0]`` (``steps-post``),
        in name order, labelled with the name: its data start at a power of
        ten below every positive runtime of the table, with the survival
        there (1 unless runs solved at ``t = 0``), then each distinct
        solved runtime with the survival just after it, and end at the
        algorithm's last runtime or cutoff. The utilities, if any, are on
        ``figure.axes[1]``.

    Raises
    ------
    DataError
        If ``table`` is not a valid long table.
    UtilityError
        If a utility cannot be read or has free parameters, or ``highlight``
        names an algorithm the table lacks.

    Examples
    --------
    >>> import pandas as pd
    >>> runs = pd.DataFrame({"algorithm": ["a"] * 4, "instance": list("ijkl"),
    ...                      "runtime": [2.0, 8.0, 50.0, 20.0],
    ...                      "status": ["solved", "solved", "capped", "memout"],
    ...                      "cutoff": [100.0, 100.0, 50.0, 100.0]})
    >>> line = plot_survival(runs).axes[0].get_lines()[0]
    >>> line.get_xdata().tolist(), line.get_ydata().tolist()
    ([1.0, 2.0, 8.0, 100.0], [1.0, 0.75, 0.5, 0.5])
    """
    owner = "plot_survival"
    curves = survival_lines(table, utility=utility, highlight=highlight, owner=owner)
    runs, named, highlighted = curves.runs, curves.utilities, curves.highlighted
    styles = curves.styles
    created = ax is None
    count = len(runs)
    figure, ax = _new_axes(ax, _runs_figure_size(len(highlighted)))
    left, right = curves.start, curves.end
    for name, x, y in curves.lines:
        ax.plot(x, y, drawstyle="steps-post", **styles[name], label=_text(name))
    _log_scale(ax, "x")
    ax.set_xlim(left, right)
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel("runtime t (s)")
    ax.set_ylabel("fraction of runs still running, S(t)")
    ax.grid(True, alpha=0.3)
    if named:
        twin = ax.twinx()
        _draw_utilities(twin, named, np.logspace(np.log10(left), np.log10(right), 801),
                        time_on_x=True, outside=figure if created else None)
        twin.set_ylim(-0.02, 1.02)
        twin.set_ylabel("utility u(t)")
    _solver_legend(figure, ax, created, highlighted, count)
    if title:
        ax.set_title(title)
    return figure


# ---------------------------------------------------------------------------
# figures inside other documents


def plot_sweep(frame: pd.DataFrame, ax: Any = None, *, changes: pd.DataFrame | None = None,
               log_x: bool | None = None, highlight: Any = None,
               title: str | None = None) -> Any:
    """Every algorithm's score against a utility's parameter, the leader's changes marked.

    Parameters
    ----------
    frame : pandas.DataFrame
        The output of :func:`maxent_util.sweeps.sweep` (columns ``algorithm``,
        the parameter, ``score``, ``rank``; ``attrs["parameter"]`` names it).
    ax : matplotlib Axes, optional
        Draw here; by default on a new figure.
    changes : pandas.DataFrame, optional, keyword-only
        The output of :func:`maxent_util.sweeps.ranking_changes` over the same
        range: a dotted vertical line marks each value where the leader
        changes, labelled with the new leader.
    log_x : bool, optional, keyword-only
        Logarithmic parameter axis; by default when the values span more
        than two decades.
    highlight : int or sequence of str, optional, keyword-only
        The algorithms drawn in colour: by default the 10 with the best rank
        reached anywhere on the range (then the best mean rank), this many
        for a number, or these names; the others are grey.
    title : str, optional, keyword-only
        Title of the panel (default: the swept family, e.g. ``pareto(kappa0, 1)``).

    Returns
    -------
    matplotlib.figure.Figure
        The figure drawn on (that of ``ax`` when given).

    Raises
    ------
    DataError
        If ``frame`` is not a sweep's output, or ``changes`` not a ranking's changes.
    MissingExtraError
        If matplotlib is not installed (the ``plot`` extra).

    Examples
    --------
    >>> import pandas as pd
    >>> from maxent_util import sweep
    >>> runs = pd.DataFrame({"algorithm": ["a", "b"], "instance": ["i", "i"],
    ...                      "runtime": [1.0, 10.0], "status": ["solved", "solved"]})
    >>> figure = plot_sweep(sweep(runs, "exponential", "kappa0", [1, 10, 100]))
    >>> figure.axes[0].get_xlabel()
    'kappa0'
    """
    owner = "plot_sweep"
    parameter = getattr(frame, "attrs", {}).get("parameter")
    if not (isinstance(frame, pd.DataFrame) and parameter in frame.columns
            and {"algorithm", "score"} <= set(frame.columns)):
        raise DataError(argument_message(
            "frame", owner, "the output of maxent_util.sweeps.sweep (algorithm, the parameter, "
            "score, rank)", type(frame).__name__ if not isinstance(frame, pd.DataFrame)
            else list(frame.columns)))
    if changes is not None and not (isinstance(changes, pd.DataFrame)
                                    and {"start", "leader"} <= set(changes.columns)):
        raise DataError(argument_message(
            "changes", owner, "the output of maxent_util.sweeps.ranking_changes (start, end, "
            "leader, order, ranks)", type(changes).__name__))
    names = sorted(frame["algorithm"].astype(str).unique())
    values = frame[parameter].to_numpy(dtype=float)
    if log_x is None:
        log_x = bool(values.size and values.min() > 0 and values.max() / values.min() > 100)
    created = ax is None
    # best first: by the best rank reached anywhere on the range, then the mean rank
    ranks = (frame.assign(algorithm=frame["algorithm"].astype(str))
             .groupby("algorithm")["rank"].agg(["min", "mean"]).sort_values(["min", "mean"],
                                                                             kind="stable"))
    highlighted = _highlighted([str(name) for name in ranks.index], highlight, owner)
    styles = _emphasis(names, highlighted)
    figure, ax = _new_axes(ax, (10.0, max(4.8, 0.24 * (len(highlighted) + 2) + 1.6)))
    for name in names:
        rows = frame[frame["algorithm"].astype(str) == name].sort_values(parameter)
        ax.plot(rows[parameter].to_numpy(dtype=float), rows["score"].to_numpy(dtype=float),
                **styles[name], label=_text(name))
    if changes is not None:
        previous = None
        for row in changes.itertuples():
            if previous is not None and row.leader != previous:
                ax.axvline(row.start, color="black", linestyle=":", linewidth=1.0)
                ax.annotate(_text(row.leader), (row.start, 1.0), xycoords=("data", "axes fraction"),
                            xytext=(3, -3), textcoords="offset points", rotation=90,
                            ha="left", va="top", fontsize="x-small")
            previous = row.leader
    if log_x:
        _log_scale(ax, "x")
    ax.set_xlabel(_text(parameter))
    ax.set_ylabel("score (mean utility)")
    ax.grid(True, alpha=0.3)
    ax.set_title(_text(title if title is not None else frame.attrs.get("family", "")))
    _solver_legend(figure, ax, created, highlighted, len(names))
    return figure


def plot_race(trace: pd.DataFrame, naive: pd.DataFrame | None = None, axes: Any = None, *,
              title: str | None = None) -> Any:
    """A race's guarantee and its survivors against the time spent, UP and Naive side by side.

    Parameters
    ----------
    trace : pandas.DataFrame
        The trace of :func:`maxent_util.racing.up` (columns ``epsilon``,
        ``survivors``, ``total_time``).
    naive : pandas.DataFrame, optional
        :func:`maxent_util.racing.naive_curve`'s frame (``epsilon``,
        ``total_time``, ``survivors``): what Naive spends for each guarantee,
        drawn as points joined by a dashed line.
    axes : pair of matplotlib Axes, optional
        Draw :math:`\\epsilon^*` on the first and the survivors on the second;
        by default on a new figure of two panels.
    title : str, optional, keyword-only
        Title of the figure (a new one) or of the first panel.

    Returns
    -------
    matplotlib.figure.Figure
        The figure drawn on.

    Raises
    ------
    DataError
        If ``trace`` or ``naive`` lacks its columns, or ``axes`` is not two axes.
    MissingExtraError
        If matplotlib is not installed (the ``plot`` extra).

    Examples
    --------
    >>> trace = pd.DataFrame({"m": [1, 2], "epsilon": [1.0, 0.6], "survivors": [3, 2],
    ...                       "total_time": [10.0, 25.0]})
    >>> figure = plot_race(trace)
    >>> [ax.get_ylabel() for ax in figure.axes]
    ['guarantee epsilon*', 'configurations left']
    """
    owner = "plot_race"
    needed = {"epsilon", "survivors", "total_time"}
    for arg, frame in (("trace", trace), ("naive", naive)):
        if frame is not None and not (isinstance(frame, pd.DataFrame)
                                      and needed <= set(frame.columns)):
            raise DataError(argument_message(
                arg, owner, "a frame with the columns epsilon, survivors and total_time (up's "
                "trace, naive_curve's frame)", type(frame).__name__
                if not isinstance(frame, pd.DataFrame) else list(frame.columns)))
    if axes is None:
        require_matplotlib()
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure

        figure = Figure(figsize=(10.0, 4.2), layout="constrained")
        FigureCanvasAgg(figure)
        left, right = figure.subplots(1, 2)
        if title:
            figure.suptitle(_text(title))
    else:
        try:
            left, right = axes
        except (TypeError, ValueError):
            raise DataError(argument_message("axes", owner, "two matplotlib Axes",
                                             type(axes).__name__)) from None
        figure = left.figure
        if title:
            left.set_title(_text(title))
    times = trace["total_time"].to_numpy(dtype=float)
    left.step(times, trace["epsilon"].to_numpy(dtype=float), where="post", color="C0",
              linewidth=1.8, label="UP")
    right.step(times, trace["survivors"].to_numpy(dtype=float), where="post", color="C0",
               linewidth=1.8, label="UP")
    if naive is not None and len(naive):
        rows = naive.sort_values("total_time")
        spent = rows["total_time"].to_numpy(dtype=float)
        left.plot(spent, rows["epsilon"].to_numpy(dtype=float), "o--", color="C3",
                  linewidth=1.2, label="Naive")
        right.plot(spent, rows["survivors"].to_numpy(dtype=float), "o--", color="C3",
                   linewidth=1.2, label="Naive")
    positive = times[times > 0]
    for ax in (left, right):
        if positive.size and positive.max() / positive.min() > 100:
            _log_scale(ax, "x")
        ax.set_xlabel("total time of runs (s)")
        ax.grid(True, alpha=0.3)
        ax.legend(loc="best", fontsize="small")
    left.set_ylabel("guarantee epsilon*")
    left.set_ylim(0.0, 1.05)
    right.set_ylabel("configurations left")
    right.set_ylim(bottom=0)
    return figure


def to_svg(figure: Any, *, id_prefix: str = "figure") -> str:
    """A figure as an ``<svg>`` element to place inside an HTML page.

    Unlike a standalone SVG file it has no XML prolog, no namespace
    declarations (HTML supplies them) and no global ``<style>``; text stays
    text (``svg.fonttype`` ``"none"``), escaped by matplotlib's SVG writer;
    every ``id`` and the references to it start with ``id_prefix``, so
    several figures can share a page without their clip paths and markers
    clashing; and the ids are the same on every run.

    Parameters
    ----------
    figure : matplotlib.figure.Figure
        The figure (drawn as its layout engine placed it, such as the
        package's figures' own; without one, with
        ``bbox_inches="tight"``).
    id_prefix : str, keyword-only
        Letters, digits and ``-``, starting with a letter; one per figure on
        a page.

    Returns
    -------
    str
        The ``<svg ...>...</svg>`` element.

    Raises
    ------
    UtilityError
        If ``id_prefix`` is not made of letters, digits and ``-``.

    Examples
    --------
    >>> svg = to_svg(plot_utilities(["uniform(24)"], t_max=48), id_prefix="u")
    >>> svg.startswith("<svg"), "xmlns" in svg, 'id="u-figure_1"' in svg
    (True, False, True)
    """
    if not (isinstance(id_prefix, str) and re.fullmatch(r"[A-Za-z][A-Za-z0-9-]*", id_prefix)):
        raise UtilityError(argument_message("id_prefix", "to_svg", "letters, digits and '-', "
                                            "starting with a letter", id_prefix))
    require_matplotlib()
    import matplotlib

    buffer = io.StringIO()
    # text stays text (smaller, selectable); a fixed salt gives the same ids on every run
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": id_prefix}), \
            warnings.catch_warnings():
        # matplotlib only measures the text here; the browser draws it, with its own fonts
        warnings.filterwarnings("ignore", message="Glyph .* missing from", category=UserWarning)
        metadata = {"Date": None, "Creator": None, "Format": None, "Type": None}
        if figure.get_layout_engine() is None:
            figure.savefig(buffer, format="svg", bbox_inches="tight", metadata=metadata)
        else:
            # a figure laid out by its engine (the package's own) fits its page as it is, and
            # its one draw lays it out: savefig would draw it once more before (for the
            # layout, without output), a third to a half of its cost. The same SVG.
            from matplotlib.backends.backend_svg import FigureCanvasSVG

            canvas = figure.canvas
            try:
                FigureCanvasSVG(figure).print_svg(buffer, metadata=metadata)
            finally:
                figure.set_canvas(canvas)
    text = buffer.getvalue()
    text = text[text.index("<svg"):]
    text = re.sub(r'\s+xmlns(?::xlink)?="[^"]*"', "", text, count=2)
    # the standalone file's global stroke style would reach the whole page: leave it to the page
    text = re.sub(r"<defs>\s*<style[^>]*>[^<]*</style>\s*</defs>", "", text, count=1)

    def scoped(match: re.Match) -> str:
        # tags only: text drawn from data has its "<" escaped, so it never looks like a tag
        tag = match.group(0)
        tag = re.sub(r'\bid="([^"]*)"', lambda m: f'id="{id_prefix}-{m.group(1)}"', tag)
        tag = re.sub(r'href="#([^"]*)"', lambda m: f'href="#{id_prefix}-{m.group(1)}"', tag)
        return re.sub(r"url\(#([^)]*)\)", lambda m: f"url(#{id_prefix}-{m.group(1)})", tag)

    return re.sub(r"<[^>]*>", scoped, text).strip()
