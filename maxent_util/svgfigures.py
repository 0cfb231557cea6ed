"""The report's figures written as SVG by the library itself: the bump chart, the cactus plot
and the survival plot, without matplotlib.

A report draws the same three figures on every page: lines, steps, markers, ticks, text
and legends. Writing them directly costs a few milliseconds, where importing matplotlib
and drawing them through its SVG backend cost about a second of the page's time. The
figures show what :func:`maxent_util.plots.plot_ranking`, :func:`~maxent_util.plots.plot_cactus`
and :func:`~maxent_util.plots.plot_survival` draw, from the same data
(:func:`~maxent_util.plots.bump_chart`, :func:`~maxent_util.plots.cactus_lines`,
:func:`~maxent_util.plots.survival_lines`), in the same colours and sizes; the ``plot``
command and the ``plot_*`` functions keep matplotlib for PNG, PDF and figures to edit.

Text stays text, escaped with :func:`html.escape`; the layout measures it with the advance
widths of DejaVu Sans (matplotlib's default font, written out below), rounded up, so
that names, tick labels and legends keep inside the figure and apart from each other.
Each line carries its algorithm's name as a ``<title>`` (shown when the pointer rests on
it). The element has no ids, so any number of figures can share a page.
"""

from __future__ import annotations

import html
import math
from typing import Any, Sequence

import numpy as np

from .plots import (_GREY, _UTILITY_STYLES, _power_label, _runs_figure_size, bump_chart,
                    cactus_lines, survival_lines)

__all__ = ["ranking_svg", "cactus_svg", "survival_svg", "text_width"]

# Advance widths of DejaVu Sans and DejaVu Sans Bold, in thousandths of an em, for the
# characters from " " to "~" (read from the fonts matplotlib ships, with FreeType, unhinted).
_REGULAR = tuple(map(int, """318 401 460 838 636 950 780 275 390 390 500 838 318 361 318 337
    636 636 636 636 636 636 636 636 636 636 337 337 838 838 838 531 1000 684 686 698 770 632 575
    775 752 295 295 656 557 863 748 787 603 787 695 635 611 732 684 989 685 611 685 390 337 390
    838 500 500 613 635 550 635 615 352 635 634 278 278 579 278 974 634 612 635 635 411 521 392
    634 592 818 592 592 525 636 337 636 838""".split()))
_BOLD = tuple(map(int, """348 456 521 838 696 1002 872 306 457 457 523 838 380 415 380 365 696
    696 696 696 696 696 696 696 696 696 400 400 838 838 838 580 1000 774 762 734 830 683 683 821
    837 372 372 775 637 995 837 850 733 850 770 720 682 812 774 1103 771 724 725 457 365 457 838
    500 500 675 716 593 716 678 435 716 712 343 343 665 343 1042 712 687 716 716 493 595 478 712
    652 924 645 652 582 712 365 712 838""".split()))
# the superscripts of a log axis's labels (10³) and the minus sign, in both weights
_EXTRA = {"\u2070": (401, 438), "\u00b9": (401, 438), "\u00b2": (401, 438), "\u00b3": (401, 438),
          "\u2074": (401, 438), "\u2075": (401, 438), "\u2076": (401, 438), "\u2077": (401, 438),
          "\u2078": (401, 438), "\u2079": (401, 438), "\u207b": (528, 528), "\u2212": (838, 838)}
# any other character is taken as wide as an em (a CJK ideograph): never narrower than drawn
_WIDE = 1000
# DejaVu Sans's ascent and descent, in ems (1901 and 483 of 2048)
_ASCENT, _DESCENT = 0.928, 0.236
# a browser's font may differ a little from DejaVu Sans: every text measured this much wider
_SLACK = 1.05

_FONT = "DejaVu Sans, Bitstream Vera Sans, Verdana, sans-serif"
# matplotlib's defaults, in points: font sizes, padding, ticks, lines
_SIZE, _SMALL, _X_SMALL = 10.0, 10.0 / 1.2, 10.0 / 1.44
_PAD = 3.0  # around the figure's contents (plots._PAD, in points)
_TICK, _TICK_PAD, _LABEL_PAD = 3.5, 3.5, 4.0
_INK = "#000000"
_GRID = 'stroke="#b0b0b0" stroke-opacity="0.3" stroke-width="0.8"'


def text_width(text: str, size: float, bold: bool = False) -> float:
    """How wide ``text`` is drawn at ``size`` points, in points, rounded up (DejaVu Sans).

    Parameters
    ----------
    text : str
        The text, on one line.
    size : float
        The font size in points.
    bold : bool
        Whether it is drawn bold.

    Returns
    -------
    float
        Its width in points: the fonts' advance widths, any character outside them taken as
        an em, the whole 5% wider for a browser's font.

    Examples
    --------
    >>> round(text_width("10", 10.0), 2)
    13.36
    """
    table = _BOLD if bold else _REGULAR
    total = 0
    for character in text:
        code = ord(character)
        if 32 <= code < 127:
            total += table[code - 32]
        elif character in _EXTRA:
            total += _EXTRA[character][bold]
        elif character != "\u200b":
            total += _WIDE
    return total * size / 1000 * _SLACK


def _height(size: float) -> float:
    return (_ASCENT + _DESCENT) * size


def _n(value: float) -> str:
    return f"{value:.2f}".rstrip("0").rstrip(".")


def _colour(colour: Any) -> str:
    """A matplotlib colour of the package's figures as SVG: a hex string, a grey level
    ("0.78") or an RGBA tuple."""
    if isinstance(colour, str) and colour.startswith("#"):
        return colour
    if isinstance(colour, str):
        level = round(float(colour) * 255)
        return f"#{level:02x}{level:02x}{level:02x}"
    return "#" + "".join(f"{round(float(c) * 255):02x}" for c in tuple(colour)[:3])


def _dashes(style: Any, width: float) -> str:
    """matplotlib's dash patterns of the package's utility lines, scaled by the line width
    as matplotlib scales them."""
    patterns = {"--": (3.7, 1.6), ":": (1.0, 1.65), "-.": (6.4, 1.6, 1.0, 1.6)}
    pattern = patterns.get(style) if isinstance(style, str) else style[1]
    if not pattern:
        return ""
    return f' stroke-dasharray="{",".join(_n(d * width) for d in pattern)}"'


class _Scale:
    """Data to points along one axis: ``low`` at ``start``, ``high`` at ``stop``."""

    def __init__(self, low: float, high: float, start: float, stop: float, log: bool = False):
        self.log = log
        self.low, self.high = (math.log10(low), math.log10(high)) if log else (low, high)
        self.start, self.stop = start, stop

    def __call__(self, values: Any) -> Any:
        values = np.log10(values) if self.log else np.asarray(values, dtype=float)
        return self.start + (values - self.low) / (self.high - self.low) * (self.stop - self.start)

    def ticks(self) -> tuple[list[float], list[str], list[float]]:
        """The major ticks, their labels, and the minor ticks (a log axis's)."""
        length = abs(self.stop - self.start)
        if self.log:
            first, last = math.ceil(self.low - 1e-9), math.floor(self.high + 1e-9)
            majors = [10.0 ** k for k in range(first, last + 1)]
            minors = [m * 10.0 ** k for k in range(first - 1, last + 1) for m in range(2, 10)
                      if self.low <= math.log10(m * 10.0 ** k) <= self.high]
            return majors, [_power_label(v) for v in majors], minors if last - first < 12 else []
        return (*_linear_ticks(self.low, self.high, length), [])


def _linear_ticks(low: float, high: float, length: float) -> tuple[list[float], list[str]]:
    """Round ticks every 1, 2, 2.5 or 5 times a power of ten, about one per 50 points (as
    matplotlib's default locator), and their labels with the step's decimals."""
    low, high = min(low, high), max(low, high)
    wanted = max(2, min(9, int(length // 50)))
    raw = (high - low) / wanted
    magnitude = 10.0 ** math.floor(math.log10(raw))
    step = next(s * magnitude for s in (1, 2, 2.5, 5, 10) if s * magnitude >= raw * (1 - 1e-9))
    decimals = next(d for d in range(0, 16) if abs(round(step, d) - step) <= 1e-9 * step)
    ticks = [k * step for k in range(math.ceil(low / step - 1e-9), math.floor(high / step + 1e-9)
                                     + 1)]
    # (no "-0.0": a tick at zero is written 0)
    labels = [f"{0.0 if abs(v) < step * 1e-9 else v:.{decimals}f}".replace("-", "\u2212")
              for v in ticks]
    return ticks, labels


class _Canvas:
    """The elements of one SVG figure, in drawing order, in points with y downwards."""

    def __init__(self, width: float, height: float) -> None:
        self.width, self.height = width, height
        self.parts: list[str] = []

    def line(self, x: Any, y: Any, colour: str, width: float, *, dash: str = "",
             opacity: str = "", name: str | None = None) -> None:
        points = " ".join(f"{_n(a)},{_n(b)}" for a, b in zip(np.asarray(x).tolist(),
                                                             np.asarray(y).tolist()))
        title = f"<title>{html.escape(name, quote=False)}</title>" if name is not None else ""
        # an algorithm that solved nothing has a line of no points: an empty path, drawn as
        # nothing (a bare "M" would be an error in the browser's console)
        self.parts.append(f'<path d="{"M" + points if points else ""}" fill="none" stroke="{colour}" '
                          f'stroke-width="{_n(width)}"{dash}{opacity}>{title}</path>')

    def markers(self, x: Any, y: Any, colour: str, diameter: float) -> None:
        r = diameter / 2
        path = "".join(f"M{_n(a - r)},{_n(b)}a{_n(r)},{_n(r)} 0 1,0 {_n(2 * r)},0"
                       f"a{_n(r)},{_n(r)} 0 1,0 {_n(-2 * r)},0"
                       for a, b in zip(np.asarray(x).tolist(), np.asarray(y).tolist()))
        self.parts.append(f'<path d="{path}" fill="{colour}" stroke="none"/>')

    def text(self, x: float, y: float, text: str, size: float, *, anchor: str = "start",
             va: str = "baseline", colour: str = _INK, bold: bool = False,
             rotate: float = 0.0) -> None:
        """``text`` at (x, y): ``anchor`` start, middle or end along it, ``va`` baseline,
        center, top or bottom across it (before the rotation, about (x, y), in degrees
        counter-clockwise)."""
        shift = {"baseline": 0.0, "center": (_ASCENT - _DESCENT) / 2 * size,
                 "top": _ASCENT * size, "bottom": -_DESCENT * size}[va]
        turn = f' transform="rotate({_n(-rotate)} {_n(x)} {_n(y)})"' if rotate else ""
        weight = ' font-weight="bold"' if bold else ""
        fill = f' fill="{colour}"' if colour != _INK else ""
        self.parts.append(f'<text x="{_n(x)}" y="{_n(y + shift)}" font-size="{_n(size)}"'
                          f' text-anchor="{anchor}"{weight}{fill}{turn}>'
                          f"{html.escape(text, quote=False)}</text>")

    def svg(self) -> str:
        return (f'<svg width="{_n(self.width)}pt" height="{_n(self.height)}pt" '
                f'viewBox="0 0 {_n(self.width)} {_n(self.height)}" version="1.1">'
                f'<g font-family="{_FONT}" stroke-linecap="butt" stroke-linejoin="round">'
                f'<rect width="{_n(self.width)}" height="{_n(self.height)}" fill="#ffffff"/>'
                + "".join(self.parts) + "</g></svg>")


# ---------------------------------------------------------------------------
# legends


class _Legend:
    """A legend as matplotlib draws one (its default paddings, in units of the font size):
    a title, then one row per entry, a line sample and its label."""

    def __init__(self, title: str, entries: Sequence[tuple[str, dict[str, Any]]],
                 size: float) -> None:
        self.title, self.entries, self.size = title, list(entries), size
        self.columns = max(1, math.ceil(len(self.entries) / 28))
        self.rows = math.ceil(len(self.entries) / self.columns)
        s = size
        self.column_width = 2.0 * s + 0.8 * s + max(
            [text_width(label, s) for label, _ in self.entries] or [0.0])
        self.width = 2 * 0.4 * s + max(self.columns * self.column_width
                                       + (self.columns - 1) * 2.0 * s, text_width(title, s))
        self.height = (2 * 0.4 * s + _height(s) + 0.5 * s + self.rows * _height(s)
                       + (self.rows - 1) * 0.5 * s)

    def draw(self, canvas: _Canvas, x0: float, y0: float) -> None:
        s = self.size
        canvas.parts.append('<g class="legend">')
        canvas.parts.append(f'<rect x="{_n(x0)}" y="{_n(y0)}" width="{_n(self.width)}" '
                            f'height="{_n(self.height)}" rx="{_n(0.2 * s)}" fill="#ffffff" '
                            'fill-opacity="0.8" stroke="#cccccc" stroke-width="1"/>')
        top = y0 + 0.4 * s
        canvas.text(x0 + self.width / 2, top, self.title, s, anchor="middle", va="top")
        top += _height(s) + 0.5 * s
        for index, (label, style) in enumerate(self.entries):
            column, row = divmod(index, self.rows)
            left = x0 + 0.4 * s + column * (self.column_width + 2.0 * s)
            middle = top + row * (_height(s) + 0.5 * s) + _height(s) / 2
            canvas.line([left, left + 2.0 * s], [middle, middle], style["colour"],
                        style["width"], dash=style.get("dash", ""))
            canvas.text(left + 2.8 * s, middle, label, s, va="center")
        canvas.parts.append("</g>")


def _entry(style: dict[str, Any]) -> dict[str, Any]:
    return {"colour": _colour(style["color"]), "width": style["linewidth"]}


def _solver_legend(lines: Any, count: int) -> _Legend | None:
    """The legend of :func:`maxent_util.plots._solver_legend`: the highlighted algorithms,
    best first, and one grey entry for the others."""
    entries = [(name, _entry(lines.styles[name])) for name in lines.highlighted]
    others = count - len(entries)
    if not entries:
        return None
    if others > 0:
        entries.append((f"{others} other{'s' if others > 1 else ''}",
                        {"colour": _colour(_GREY), "width": 0.8}))
    return _Legend("algorithm" if others <= 0 else "best algorithms", entries,
                   _SMALL if len(entries) <= 12 else _X_SMALL)


def _utility_style(index: int) -> dict[str, Any]:
    return {"colour": "#262626", "width": 1.4,
            "dash": _dashes(_UTILITY_STYLES[index % len(_UTILITY_STYLES)], 1.4)}


# ---------------------------------------------------------------------------
# the cactus and survival plots: one panel, its legends at the figure's right edge


def _runs_figure(lines: Any, *, x: tuple[float, float, bool], y: tuple[float, float, bool],
                 labels: tuple[str, str], steps: bool, marked: Any,
                 twin: tuple[str, list[tuple[str, np.ndarray, np.ndarray]]] | None) -> str:
    """The cactus or survival figure of ``lines`` (:class:`~maxent_util.plots.RunsLines`):
    the panel's limits ``x`` and ``y`` (low, high, log), its axis labels, the lines as steps
    or not, which lines get markers, and on a second vertical axis at the right (0 to 1)
    the utilities with its label."""
    width, height = (72 * side for side in _runs_figure_size(len(lines.highlighted)))
    legends = [legend for legend in (_solver_legend(lines, len(lines.runs)),) if legend]
    if twin is not None:
        legends.append(_Legend("utility", [(f"u(t) = {label}", _utility_style(index))
                                           for index, (label, _, _) in enumerate(twin[1])],
                               _SMALL))
    # the legends one above the other at the right edge: the figure grows if they need it
    height = max(height, sum(legend.height for legend in legends) + 3 * _PAD)
    right_edge = width - _PAD - max([legend.width for legend in legends] or [0.0]) - _PAD
    tick_height = _height(_SIZE)
    frame = [_PAD + 60.0, _PAD + tick_height, right_edge - 10.0, height - _PAD - 40.0]
    for _ in range(3):  # ticks depend on the panel's size, the margins on the ticks
        sx = _Scale(x[0], x[1], frame[0], frame[2], x[2])
        sy = _Scale(y[0], y[1], frame[3], frame[1], y[2])
        x_ticks, x_labels, _ = sx.ticks()
        y_ticks, y_labels, _ = sy.ticks()
        left = (_PAD + _height(_SIZE) + _LABEL_PAD + max(text_width(t, _SIZE) for t in y_labels)
                + _TICK_PAD + _TICK)
        right = right_edge
        if twin is not None:
            right -= (_TICK + _TICK_PAD + max(text_width(t, _SIZE) for t in _TWIN_LABELS)
                      + _LABEL_PAD + _height(_SIZE))
        # the outermost tick labels reach half their width beyond the panel
        left = max(left, _PAD + max(0.0, text_width(x_labels[0], _SIZE) / 2
                                    - (sx(x_ticks[0]) - frame[0])))
        right = min(right, right_edge - max(0.0, text_width(x_labels[-1], _SIZE) / 2
                                            - (frame[2] - sx(x_ticks[-1]))))
        bottom = height - (_PAD + _height(_SIZE) + _LABEL_PAD + tick_height + _TICK_PAD + _TICK)
        top = _PAD + tick_height / 2
        if [left, top, right, bottom] == frame:
            break
        frame = [left, top, right, bottom]
    canvas = _Canvas(width, height)
    x0, y0, x1, y1 = frame
    # the grid, beneath the lines
    grid = "".join(f"M{_n(v)},{_n(y0)}V{_n(y1)}" for v in sx(x_ticks).tolist())
    grid += "".join(f"M{_n(x0)},{_n(v)}H{_n(x1)}" for v in sy(y_ticks).tolist())
    canvas.parts.append(f'<path d="{grid}" fill="none" {_GRID}/>')
    # grey lines beneath the highlighted ones
    for emphasis in (False, True):
        for name, xs, ys in lines.lines:
            style = lines.styles[name]
            if (name in lines.highlighted) != emphasis:
                continue
            px, py = sx(np.asarray(xs, dtype=float)), sy(np.asarray(ys, dtype=float))
            if steps and px.size:
                px, py = np.repeat(px, 2)[1:], np.repeat(py, 2)[:-1]
            colour = _colour(style["color"])
            canvas.line(px, py, colour, style["linewidth"], name=name)
            if marked(name):
                canvas.markers(sx(np.asarray(xs, dtype=float)), sy(np.asarray(ys, dtype=float)),
                               colour, 2.0)
    if twin is not None:
        ty = _Scale(-0.02, 1.02, y1, y0)
        for index, (label, xs, ys) in enumerate(twin[1]):
            style = _utility_style(index)
            canvas.line(sx(xs), ty(ys), style["colour"], style["width"], dash=style["dash"],
                        name=f"u(t) = {label}")
    # the frame, the ticks and their labels, the axis labels
    canvas.parts.append(f'<path class="frame" d="M{_n(x0)},{_n(y0)}H{_n(x1)}V{_n(y1)}H{_n(x0)}Z" '
                        'fill="none" stroke="#000000" stroke-width="0.8"/>')
    _x_ticks(canvas, sx, y1, x_ticks, x_labels)
    _y_ticks(canvas, sy, x0, y_ticks, y_labels, -1)
    canvas.text(x0 - (_TICK + _TICK_PAD + max(text_width(t, _SIZE) for t in y_labels)
                      + _LABEL_PAD), (y0 + y1) / 2, labels[1], _SIZE, anchor="middle",
                va="bottom", rotate=90)
    canvas.text((x0 + x1) / 2, y1 + _TICK + _TICK_PAD + tick_height + _LABEL_PAD, labels[0],
                _SIZE, anchor="middle", va="top")
    if twin is not None:
        ty = _Scale(-0.02, 1.02, y1, y0)
        _y_ticks(canvas, ty, x1, _TWIN_TICKS, _TWIN_LABELS, 1)
        canvas.text(x1 + _TICK + _TICK_PAD + max(text_width(t, _SIZE) for t in _TWIN_LABELS)
                    + _LABEL_PAD, (y0 + y1) / 2, twin[0], _SIZE, anchor="middle", va="top",
                    rotate=90)
    # the algorithms' legend at the top right, the utilities' at the bottom right
    if legends:
        legends[0].draw(canvas, width - _PAD - legends[0].width, _PAD)
    if len(legends) > 1:
        legends[1].draw(canvas, width - _PAD - legends[1].width, height - _PAD - legends[1].height)
    return canvas.svg()


_TWIN_TICKS = [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]
_TWIN_LABELS = ["0.0", "0.2", "0.4", "0.6", "0.8", "1.0"]


def _x_ticks(canvas: _Canvas, scale: _Scale, y: float, ticks: list[float],
             labels: list[str]) -> None:
    at = scale(np.asarray(ticks, dtype=float)).tolist()
    marks = "".join(f"M{_n(v)},{_n(y)}v{_n(_TICK)}" for v in at)
    _, _, minors = scale.ticks()
    marks += "".join(f"M{_n(v)},{_n(y)}v2" for v in scale(np.asarray(minors)).tolist()) \
        if minors else ""
    canvas.parts.append(f'<path d="{marks}" stroke="#000000" stroke-width="0.8"/>')
    for v, label in zip(at, labels):
        canvas.text(v, y + _TICK + _TICK_PAD, label, _SIZE, anchor="middle", va="top")


def _y_ticks(canvas: _Canvas, scale: _Scale, x: float, ticks: list[float], labels: list[str],
             side: int) -> None:
    at = scale(np.asarray(ticks, dtype=float)).tolist()
    marks = "".join(f"M{_n(x)},{_n(v)}h{_n(side * _TICK)}" for v in at)
    canvas.parts.append(f'<path d="{marks}" stroke="#000000" stroke-width="0.8"/>')
    for v, label in zip(at, labels):
        canvas.text(x + side * (_TICK + _TICK_PAD), v, label, _SIZE,
                    anchor="end" if side < 0 else "start", va="center")


def cactus_svg(table: Any, *, highlight: Any = None) -> str:
    """The cactus plot of :func:`~maxent_util.plots.plot_cactus` (without utilities, a linear
    runtime axis) as an ``<svg>`` element for an HTML page.

    Parameters
    ----------
    table : pandas.DataFrame
        A long runtime table.
    highlight : int or sequence of str, optional, keyword-only
        The algorithms drawn in colour, as for :func:`~maxent_util.plots.plot_cactus`.

    Returns
    -------
    str
        The ``<svg ...>...</svg>`` element (no ids, no namespace: HTML supplies it).

    Raises
    ------
    DataError
        If ``table`` is not a valid long table.
    UtilityError
        If ``highlight`` names an algorithm the table lacks.

    Examples
    --------
    >>> import pandas as pd
    >>> runs = pd.DataFrame({"algorithm": ["a", "a", "b"], "instance": ["i", "j", "i"],
    ...                      "runtime": [3.0, 5.0, 2.0], "status": "solved"})
    >>> svg = cactus_svg(runs)
    >>> svg.startswith("<svg"), svg.count("<title>")
    (True, 2)
    """
    lines = cactus_lines(table, highlight=highlight, owner="cactus_svg")
    most = max([x.size for _, x, _ in lines.lines] + [1])
    # matplotlib's automatic limit: 5% of the data's range beyond the last count
    return _runs_figure(lines, x=(0.0, most + 0.05 * (most - 1) if most > 1 else 1.5, False),
                        y=(0.0, lines.end * 1.02 if lines.end > 0 else 1.0, False),
                        labels=("solved instances", "runtime t (s)"), steps=False,
                        marked=lines.marked, twin=None)


def survival_svg(table: Any, *, utility: Any = None, highlight: Any = None) -> str:
    """The survival plot of :func:`~maxent_util.plots.plot_survival` as an ``<svg>`` element
    for an HTML page: the curves on a log runtime axis, the utilities (if any) in black
    dashes against a second axis on the right.

    Parameters
    ----------
    table : pandas.DataFrame
        A long runtime table.
    utility : utility, spec, or a sequence or mapping of them, optional, keyword-only
        As for :func:`~maxent_util.plots.plot_survival`.
    highlight : int or sequence of str, optional, keyword-only
        The algorithms drawn in colour.

    Returns
    -------
    str
        The ``<svg ...>...</svg>`` element.

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
    >>> runs = pd.DataFrame({"algorithm": ["a", "a"], "instance": ["i", "j"],
    ...                      "runtime": [3.0, 10.0], "status": ["solved", "capped"],
    ...                      "cutoff": 10.0})
    >>> "u(t) = uniform(10)" in survival_svg(runs, utility="uniform(10)")
    True
    """
    lines = survival_lines(table, utility=utility, highlight=highlight, owner="survival_svg")
    right = lines.end if lines.end > lines.start else lines.start * 10
    twin = None
    if lines.utilities:
        runtimes = np.logspace(np.log10(lines.start), np.log10(right), 801)
        twin = ("utility u(t)", [(label, runtimes, np.asarray(u(runtimes), dtype=float))
                                 for label, u in lines.utilities])
    return _runs_figure(lines, x=(lines.start, right, True), y=(-0.02, 1.02, False),
                        labels=("runtime t (s)", "fraction of runs still running, S(t)"),
                        steps=True, marked=lambda name: False, twin=twin)


# ---------------------------------------------------------------------------
# the bump chart


def _rotated_extent(width: float, height: float, angle: float) -> tuple[float, float]:
    """How far a text ending at a point (its top right corner there) reaches left and down
    once turned ``angle`` degrees counter-clockwise about that point."""
    a = math.radians(angle)
    # corners (-width, 0), (-width, height), (0, height) turned; y downwards
    xs = [-width * math.cos(a), -width * math.cos(a) + height * math.sin(a), height * math.sin(a)]
    ys = [width * math.sin(a), width * math.sin(a) + height * math.cos(a), height * math.cos(a)]
    return -min(xs + [0.0]), max(ys + [0.0])


def ranking_svg(ranking_df: Any, *, highlight: Any = None) -> str:
    """The bump chart of :func:`~maxent_util.plots.plot_ranking` as an ``<svg>`` element for
    an HTML page: one column per rule, one line per algorithm through its ranks, rank 1 at
    the top, the names and ranks written at both ends.

    Parameters
    ----------
    ranking_df : pandas.DataFrame
        The output of :func:`maxent_util.rank`.
    highlight : int or sequence of str, optional, keyword-only
        The algorithms drawn in colour, as for :func:`~maxent_util.plots.plot_ranking`.

    Returns
    -------
    str
        The ``<svg ...>...</svg>`` element.

    Raises
    ------
    UtilityError
        If the table has no rank columns, or ``highlight`` names an algorithm it lacks.

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame({"a rank": [1, 2], "b rank": [2, 1]},
    ...                      index=pd.Index(["x", "y"], name="algorithm"))
    >>> svg = ranking_svg(table)
    >>> svg.count("<title>"), ">x  1</text>" in svg
    (2, True)
    """
    bump = bump_chart(ranking_df, highlight, owner="ranking_svg")
    count, columns = len(bump.algorithms), len(bump.rules)
    size = bump.size
    top_set = set(bump.highlighted)
    bold = {name: name in top_set and count > len(top_set) for name in bump.algorithms}
    left_texts = [f"{name}  {bump.ranks[row, 0]:g}" for row, name in enumerate(bump.algorithms)]
    right_texts = [f"{bump.ranks[row, -1]:g}  {name}" for row, name in enumerate(bump.algorithms)]
    left_width = max(text_width(t, size, bold[n]) for t, n in zip(left_texts, bump.algorithms))
    right_width = max(text_width(t, size, bold[n]) for t, n in zip(right_texts, bump.algorithms))
    rotated = columns > 4
    angle = 20.0 if rotated else 0.0
    label_boxes = [(text_width(rule, _SIZE), _height(_SIZE)) for rule in bump.rules]
    if rotated:
        reach = [_rotated_extent(w, h, angle) for w, h in label_boxes]
        below = max(down for _, down in reach)
    else:
        reach = [(w / 2, h) for w, h in label_boxes]
        below = _height(_SIZE)
    width, height = 72 * bump.figsize[0], 72 * bump.figsize[1]
    # names 8 points from the first and last columns; the panel keeps a quarter of the width
    need = _PAD * 2 + left_width + right_width + 16
    width = max(width, need / 0.75)
    first = _PAD + max(left_width + 8, reach[0][0])
    last = width - _PAD - right_width - 8
    if columns > 1:
        # the panel reaches 0.3 of a column beyond the first and last, and a later rule's
        # slanted name may reach further left than the first's: both kept inside the figure
        for _ in range(100):
            unit = (last - first) / (columns - 1)
            moved = (max(first, _PAD + 0.3 * unit,
                         max(_PAD + reach[k][0] - k * unit for k in range(columns))),
                     min(last, width - _PAD - 0.3 * unit))
            if abs(moved[0] - first) + abs(moved[1] - last) < 1e-3:
                break
            first, last = moved
        unit = (last - first) / (columns - 1)
        x0, x1 = first - 0.3 * unit, last + 0.3 * unit
    else:
        middle = (first + last) / 2
        x0, x1 = middle - 0.3 * 40, middle + 0.3 * 40
    y0 = _PAD + _height(size) / 2
    y1 = height - _PAD - _TICK - _TICK_PAD - below
    sx = _Scale(-0.3, columns - 0.7, x0, x1)
    sy = _Scale(count + 0.6, 0.4, y1, y0)
    canvas = _Canvas(width, height)
    positions = sx(np.arange(columns, dtype=float))
    canvas.parts.append('<path d="' + "".join(f"M{_n(v)},{_n(y0)}V{_n(y1)}"
                                              for v in positions.tolist())
                        + f'" fill="none" {_GRID}/>')
    marker = min(7.0, 72 * bump.pitch * 0.45)
    for emphasis in (False, True):
        for row, name in enumerate(bump.algorithms):
            if (name in top_set) != emphasis:
                continue
            style = bump.styles[name]
            colour = _colour(style["color"])
            py = sy(bump.ranks[row])
            canvas.line(positions, py, colour, style["linewidth"] * 1.2, name=name)
            canvas.markers(positions, py, colour, marker * (1.0 if emphasis else 0.7))
    for row, name in enumerate(bump.algorithms):
        colour = _colour(bump.styles[name]["color"] if name in top_set else "0.4")
        canvas.text(positions[0] - 8, float(sy(bump.slots[row, 0])), left_texts[row], size,
                    anchor="end", va="center", colour=colour, bold=bold[name])
        canvas.text(positions[-1] + 8, float(sy(bump.slots[row, -1])), right_texts[row], size,
                    anchor="start", va="center", colour=colour, bold=bold[name])
    # the bottom axis alone, its ticks at the rules, their names beneath (slanted when many)
    ticks = "".join(f"M{_n(v)},{_n(y1)}v{_n(_TICK)}" for v in positions.tolist())
    canvas.parts.append(f'<path class="frame" d="M{_n(x0)},{_n(y1)}H{_n(x1)}{ticks}" fill="none" '
                        'stroke="#000000" stroke-width="0.8"/>')
    for v, rule in zip(positions.tolist(), bump.rules):
        canvas.text(v, y1 + _TICK + _TICK_PAD, rule, _SIZE, anchor="end" if rotated else "middle",
                    va="top", rotate=angle)
    return canvas.svg()
