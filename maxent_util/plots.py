"""Figures: utility curves and bump charts of rankings.

The figures are built on :class:`matplotlib.figure.Figure` objects with an
Agg canvas, never through ``pyplot``, so drawing them changes no global
matplotlib state (a notebook's backend stays as it was) and works on a
machine without a display.  Each function draws on a given ``ax`` or on a
new figure, and returns the figure.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Sequence

from importlib.util import find_spec

import numpy as np

from .errors import MissingExtraError, UtilityError, argument_message
from .families import FIGURE_PARAMETERS, figure_spec
from .distribution import CaptimeDistribution
from .families import parse_utility
from .utility import Utility

__all__ = ["PAPER_UTILITIES", "plot_utilities", "plot_ranking"]

#: The paper's figure of utilities (Section 3): the seven families with kappa0 = 24.
PAPER_UTILITIES: tuple[str, ...] = tuple(figure_spec(name) for name in FIGURE_PARAMETERS)

# Seven curves share one panel: colour alone is not enough to tell them apart in print.
_LINE_STYLES = ("-", "--", "-.", ":")

# Runtimes scanned for the default horizontal range (seconds, far beyond any
# practical captime at both ends).
_SCAN = np.logspace(-6, 9, 1501)


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

    figure = Figure(figsize=size, layout="constrained")
    FigureCanvasAgg(figure)
    return figure, figure.add_subplot()


def _named_utilities(utilities: Any) -> list[tuple[str, Any]]:
    if isinstance(utilities, (str, Utility, CaptimeDistribution)):
        utilities = [utilities]
    if isinstance(utilities, Mapping):
        items = list(utilities.items())
    elif isinstance(utilities, Sequence) or hasattr(utilities, "__iter__"):
        items = [(None, value) for value in utilities]
    else:
        raise UtilityError(argument_message(
            "utilities", "plot_utilities", "a sequence or a mapping of utilities", utilities))
    if not items:
        raise UtilityError(argument_message("utilities", "plot_utilities", "non-empty", utilities))
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
        Right end of the runtime axis; by default twice the latest runtime at
        which a utility falls to 1/2.
    log_x : bool, keyword-only
        Logarithmic runtime axis (from ``t_max / 10**4``).
    points : int, keyword-only
        Runtimes evaluated per curve.
    title : str, optional, keyword-only
        Title of the panel.

    Returns
    -------
    matplotlib.figure.Figure
        The figure drawn on (that of ``ax`` when given), one line per utility.

    Raises
    ------
    UtilityError
        If a spec cannot be parsed, a utility has free parameters, or
        ``t_max`` is not a positive number.
    MissingExtraError
        If matplotlib is not installed (the ``plot`` extra).

    Examples
    --------
    >>> figure = plot_utilities(["uniform(24)", "exponential(24)"], t_max=48)
    >>> [line.get_label() for line in figure.axes[0].get_lines()]
    ['uniform(24)', 'exponential(24)']
    """
    named = _named_utilities(utilities)
    if t_max is None:
        t_max = _default_t_max(named)
    elif not (isinstance(t_max, (int, float, np.integer, np.floating)) and np.isfinite(t_max)
              and t_max > 0):
        raise UtilityError(argument_message("t_max", "plot_utilities", "a positive number", t_max))
    t_max = float(t_max)
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
        ax.set_xscale("log")
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


def plot_ranking(ranking_df: Any, ax: Any = None, *, title: str | None = None) -> Any:
    """Bump chart of the ranks of algorithms under each rule (the paper's Figure 3).

    One column per rule, in the table's order; one line per algorithm joining
    its ranks, with rank 1 at the top and the names written at both ends.

    Parameters
    ----------
    ranking_df : pandas.DataFrame
        The output of :func:`maxent_util.rank`: indexed by algorithm, with a
        ``"{rule} rank"`` column per rule.
    ax : matplotlib Axes, optional
        Draw here; by default on a new figure sized to the table.
    title : str, optional, keyword-only
        Title of the panel.

    Returns
    -------
    matplotlib.figure.Figure
        The figure drawn on (that of ``ax`` when given).

    Raises
    ------
    UtilityError
        If the table has no rank columns.
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
    columns = _rank_columns(ranking_df)
    rules = [c[: -len(" rank")] for c in columns]
    ranks = np.asarray(ranking_df[columns], dtype=float)
    algorithms = [str(name) for name in ranking_df.index]
    count = len(algorithms)
    figure, ax = _new_axes(ax, (max(6.0, 1.5 * len(rules) + 4.5), max(3.5, 0.38 * count + 1.5)))
    colours = _colours(count)
    positions = np.arange(len(rules))
    for row, (name, colour) in enumerate(zip(algorithms, colours)):
        ax.plot(positions, ranks[row], color=colour, linewidth=2.2, marker="o", markersize=7,
                solid_capstyle="round")
        # the ranks are written next to the names, so no y axis competes with the left labels
        ax.annotate(f"{name}  {ranks[row, 0]:g}", (positions[0], ranks[row, 0]), xytext=(-10, 0),
                    textcoords="offset points", ha="right", va="center", color=colour,
                    fontsize="small")
        ax.annotate(f"{ranks[row, -1]:g}  {name}", (positions[-1], ranks[row, -1]), xytext=(10, 0),
                    textcoords="offset points", ha="left", va="center", color=colour,
                    fontsize="small")
    ax.set_xticks(positions, rules, rotation=20 if len(rules) > 4 else 0,
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


def _colours(count: int) -> list[Any]:
    require_matplotlib()
    from matplotlib import colormaps

    palette = colormaps["tab10" if count <= 10 else "tab20"]
    if count <= 20:
        return [palette(i % palette.N) for i in range(count)]
    # More algorithms than a qualitative palette holds: spread them over a continuous map.
    return [colormaps["turbo"](x) for x in np.linspace(0.05, 0.95, count)]
