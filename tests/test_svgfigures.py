"""The report's figures written as SVG without matplotlib (maxent_util.svgfigures): the lines
and legends of plot_ranking, plot_cactus and plot_survival, and the layout those promise
(tests/test_plots_scale.py) from 2 to 200 algorithms: every text, legend and panel inside the
figure, the legends clear of the panel and its labels, the bump chart's names apart. Texts are
measured by matplotlib (its unhinted DejaVu Sans), not by the module's own widths."""

from __future__ import annotations

import math
import xml.etree.ElementTree as ElementTree

import numpy as np
import pandas as pd
import pytest
import sympy
from hypothesis import given, settings, strategies as st
from matplotlib.font_manager import FontProperties
from matplotlib.textpath import TextToPath

from maxent_util import PAR, rank, t
from maxent_util.plots import HIGHLIGHT, _colours, cactus_lines, survival_lines
from maxent_util.svgfigures import cactus_svg, ranking_svg, survival_svg, text_width

from synthetic_runs import competition

GREY = "#c7c7c7"  # matplotlib's "0.78"
_MEASURE = TextToPath()


def measured(text: str, size: float, bold: bool) -> tuple[float, float, float]:
    """Width, height and descent of a text in points, by matplotlib (the reference)."""
    prop = FontProperties(family="DejaVu Sans", weight="bold" if bold else "normal", size=size)
    return _MEASURE.get_text_width_height_descent(text, prop, ismath=False)


class Box:
    def __init__(self, x0: float, y0: float, x1: float, y1: float) -> None:
        self.x0, self.y0, self.x1, self.y1 = x0, y0, x1, y1

    def overlaps(self, other: "Box") -> bool:
        return (self.x0 < other.x1 and other.x0 < self.x1 and self.y0 < other.y1
                and other.y0 < self.y1)

    def inside(self, width: float, height: float) -> bool:
        return self.x0 >= -0.5 and self.y0 >= -0.5 and self.x1 <= width + 0.5 \
            and self.y1 <= height + 0.5


def union(boxes) -> Box:
    return Box(min(b.x0 for b in boxes), min(b.y0 for b in boxes), max(b.x1 for b in boxes),
               max(b.y1 for b in boxes))


def text_box(element) -> Box:
    """Where a <text> element is drawn, with matplotlib's measure of its text."""
    size = float(element.get("font-size"))
    width, height, descent = measured(element.text or "", size,
                                      element.get("font-weight") == "bold")
    x, y = float(element.get("x")), float(element.get("y"))
    start = {"start": x, "middle": x - width / 2, "end": x - width}[element.get("text-anchor")]
    corners = [(start, y - (height - descent)), (start + width, y - (height - descent)),
               (start, y + descent), (start + width, y + descent)]
    transform = element.get("transform")
    if transform:
        angle, cx, cy = map(float, transform[len("rotate("):-1].split())
        a = math.radians(angle)
        corners = [(cx + (px - cx) * math.cos(a) - (py - cy) * math.sin(a),
                    cy + (px - cx) * math.sin(a) + (py - cy) * math.cos(a)) for px, py in corners]
    return Box(min(c[0] for c in corners), min(c[1] for c in corners),
               max(c[0] for c in corners), max(c[1] for c in corners))


def path_box(d: str) -> Box:
    numbers = [float(v) for v in d.replace("M", " ").replace("H", " ").replace("V", " ")
               .replace("Z", " ").replace("v", " ").replace(",", " ").split()]
    # the frame: M x0,y0 H x1 V y1 H x0 Z; the bump chart's axis: M x0,y1 H x1 then ticks
    return Box(numbers[0], numbers[1] if "V" in d else numbers[1] - 1, numbers[2],
               numbers[3] if "V" in d else numbers[1])


class Figure:
    """An SVG figure of the module, parsed."""

    def __init__(self, svg: str) -> None:
        self.root = ElementTree.fromstring(svg)
        self.width, self.height = (float(v) for v in self.root.get("viewBox").split()[2:])
        assert self.root.get("width") == f"{self.root.get('viewBox').split()[2]}pt"
        group = self.root[0]
        self.legends = [g for g in group if g.get("class") == "legend"]
        self.texts = [e for e in group if e.tag == "text"]
        self.lines = [e for e in group.iter("path") if e.find("title") is not None]
        self.frame = path_box(next(e for e in group if e.get("class") == "frame").get("d"))

    def legend_boxes(self) -> list[Box]:
        boxes = []
        for legend in self.legends:
            rect = legend.find("rect")
            x, y = float(rect.get("x")), float(rect.get("y"))
            box = Box(x, y, x + float(rect.get("width")), y + float(rect.get("height")))
            for text in legend.iter("text"):  # every entry inside its legend
                inner = text_box(text)
                assert box.x0 <= inner.x0 and inner.x1 <= box.x1 + 0.5, (text.text, box.x1)
                assert box.y0 <= inner.y0 and inner.y1 <= box.y1 + 0.5
            boxes.append(box)
        return boxes

    def laid_out_apart(self) -> None:
        """Every text, legend and the panel inside the figure, no legend over the panel or its
        labels, and no two texts of the panel over each other."""
        texts = [text_box(e) for e in self.texts]
        legends = self.legend_boxes()
        for box in texts + legends + [self.frame]:
            assert box.inside(self.width, self.height), (vars(box), self.width, self.height)
        panel = union([self.frame] + texts)
        for legend in legends:
            assert not legend.overlaps(panel)
        for a, b in zip(legends, legends[1:]):
            assert not a.overlaps(b)

    def colours(self) -> list[str]:
        return [line.get("stroke") for line in self.lines]


@pytest.fixture(scope="module", params=[2, 14, 67, 200])
def case(request):
    return request.param, competition(request.param, instances=6, seed=request.param)


def test_runs_figures_highlight_the_best_and_keep_everything_apart(case):
    count, table = case
    utility = {"exp(-t/100)": sympy.exp(-t / 100)}
    for svg, lines in ((cactus_svg(table), cactus_lines(table)),
                       (survival_svg(table, utility=utility), survival_lines(table))):
        figure = Figure(svg)
        algorithms = [line for line in figure.lines if not line.find("title").text.startswith("u(t)")]
        # one line per algorithm, named, the best in colour and the others grey beneath them
        assert sorted(line.find("title").text for line in algorithms) == sorted(
            name for name, _ in lines.runs)
        colours = [line.get("stroke") for line in algorithms]
        assert sum(c != GREY for c in colours) == min(count, HIGHLIGHT)
        assert colours == sorted(colours, key=lambda c: c != GREY)
        figure.laid_out_apart()
        # the legend of at most 11 entries (and the utilities') outside the panel, which keeps
        # most of the width
        assert len(figure.legends) == (2 if "u(t)" in svg else 1)
        assert len(list(figure.legends[0].iter("text"))) == 1 + min(count, HIGHLIGHT) + (
            count > HIGHLIGHT)
        assert figure.frame.x1 - figure.frame.x0 > 0.55 * figure.width


def test_bump_chart_names_apart_and_inside(case):
    count, table = case
    ranking = rank(table, {"PAR-2": PAR(2), "exp(-t/100)": sympy.exp(-t / 100)})
    figure = Figure(ranking_svg(ranking))
    assert len(figure.lines) == count
    assert sum(c != GREY for c in figure.colours()) == min(count, HIGHLIGHT)
    names = [e for e in figure.texts if float(e.get("font-size")) < 10]
    for anchor in ("end", "start"):
        boxes = sorted((text_box(e) for e in names if e.get("text-anchor") == anchor),
                       key=lambda box: box.y0)
        assert len(boxes) == count
        assert all(lower.y1 <= upper.y0 + 0.5 for lower, upper in zip(boxes, boxes[1:]))
    assert min(float(e.get("font-size")) for e in names) >= 7
    assert figure.height >= 72 * min(count * 0.14, 3.5)
    figure.laid_out_apart()


def test_bump_chart_keeps_long_names_and_many_rules_inside():
    # names of 60 characters at both ends, and seven rules whose slanted names reach left
    rules = {f"a rule with a long name {k}": np.roll(np.arange(1, 6), k) for k in range(7)}
    frame = pd.DataFrame({f"{name} rank": ranks for name, ranks in rules.items()},
                         index=pd.Index([f"solver-{k}-" + "w" * 50 for k in range(5)],
                                        name="algorithm"))
    figure = Figure(ranking_svg(frame))
    figure.laid_out_apart()
    assert figure.frame.x1 - figure.frame.x0 > 0.2 * figure.width
    # one rule: its column in the middle, the names on both sides
    Figure(ranking_svg(frame.iloc[:, :1])).laid_out_apart()


def test_bump_chart_lines_pass_through_the_ranks():
    # ties at rank 2 (as rank() gives them): the lines through the ranks, the names on rows of
    # their own
    frame = pd.DataFrame({"a rank": [1, 2, 2, 2, 2, 6], "b rank": [2, 2, 1, 2, 2, 6]},
                         index=pd.Index(list("uvwxyz"), name="algorithm"))
    figure = Figure(ranking_svg(frame))
    heights = {line.find("title").text: [float(p.split(",")[1]) for p in
                                         line.get("d")[1:].split()] for line in figure.lines}
    # rank r is drawn at a height linear in r (the same rank, the same height)
    assert heights["v"][0] == heights["v"][1] == heights["w"][0] == heights["u"][1]
    assert heights["u"][0] < heights["v"][0] < heights["z"][0]
    rows = [text_box(e) for e in figure.texts if e.get("text-anchor") == "end"]
    assert len({round(box.y0) for box in rows}) == 6


def test_widths_are_matplotlibs_rounded_up():
    # reference: matplotlib's measure of DejaVu Sans (kerning makes it a little narrower)
    for text in ("solver-027-ddddd  1", "uniform(5000)", "WAVE Tt 10\u00b3", "0.2", "\u22121"):
        for bold in (False, True):
            width = measured(text, 8.5, bold)[0]
            assert width <= text_width(text, 8.5, bold) <= 1.12 * width, text


def test_palette_is_matplotlibs():
    from matplotlib import colormaps
    from matplotlib.colors import to_hex

    for count, name in ((10, "tab10"), (20, "tab20"), (3, "tab10"), (14, "tab20")):
        assert _colours(count) == [to_hex(colormaps[name](i)) for i in range(count)]


@settings(max_examples=30, deadline=None)
@given(st.lists(st.text(st.characters(categories=("L", "N", "P", "S", "Zs")), min_size=1,
                        max_size=30), min_size=1, max_size=25, unique=True),
       st.integers(1, 6), st.randoms(use_true_random=False))
def test_any_names_are_text_of_a_well_formed_figure(names, rules, random):
    # names from data (markup, entities, quotes, any script) stay text of a figure that parses
    ranks = {f"<r&{k}>": [float(random.randint(1, len(names))) for _ in names]
             for k in range(rules)}
    frame = pd.DataFrame({f"{rule} rank": values for rule, values in ranks.items()},
                         index=pd.Index(names, name="algorithm"))
    root = ElementTree.fromstring(ranking_svg(frame))
    assert sorted(title.text for title in root.iter("title")) == sorted(names)
    texts = [e.text for e in root.iter("text")]
    assert all(f"{name}  {ranks['<r&0>'][row]:g}" in texts for row, name in enumerate(names))
    assert sorted(rule for rule in ranks) == sorted(set(texts) & set(ranks))
    width, height = (float(v) for v in root.get("viewBox").split()[2:])
    assert width > 0 and height > 0


def test_a_report_needs_no_matplotlib():
    # in a process where importing matplotlib fails, the default page has its three figures
    import subprocess
    import sys
    from pathlib import Path

    code = ("import sys; sys.modules['matplotlib'] = None\n"
            "from synthetic_runs import competition\n"
            "from maxent_util import PAR\n"
            "from maxent_util.report import report_html\n"
            "page = report_html(competition(5, instances=8, seed=2), rules={'PAR-2': PAR(2), "
            "'u': 'exponential(500)'}, resamples=50, date='fixed')\n"
            "print(page.count('<svg'), 'matplotlib' in sys.modules and sys.modules['matplotlib'] "
            "is not None)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=Path(__file__).parent, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["3", "False"]


def points(d: str) -> list[tuple[float, float]]:
    return [tuple(map(float, p.split(","))) for p in d[1:].split()] if d else []


@settings(max_examples=25, deadline=None)
@given(st.lists(st.text(st.characters(categories=("L", "N", "P", "S", "Zs")), min_size=1,
                        max_size=20), min_size=1, max_size=12, unique=True),
       st.integers(1, 8), st.randoms(use_true_random=False), st.booleans())
def test_runs_figures_of_any_table_stay_in_their_panel(names, instances, random, utility):
    # any names, runtimes from 0 to the cutoff over six decades, any statuses (nothing solved
    # included): a well-formed figure, a line per algorithm, every point inside the panel
    rows = [(name, f"i{k}", random.choice([0.0, 10 ** random.uniform(-3, 3)]),
             random.choice(["solved", "solved", "capped", "memout"]))
            for name in names for k in range(instances)]
    table = pd.DataFrame(rows, columns=["algorithm", "instance", "runtime", "status"])
    table["cutoff"] = 1000.0
    table.loc[table["status"] == "capped", "runtime"] = 1000.0
    for svg in (cactus_svg(table),
                survival_svg(table, utility="exponential(100)" if utility else None)):
        figure = Figure(svg)
        algorithms = [line for line in figure.lines
                      if not line.find("title").text.startswith("u(t)")]
        assert sorted(line.find("title").text for line in algorithms) == sorted(names)
        frame = figure.frame
        for line in figure.lines:
            for x, y in points(line.get("d")):
                assert frame.x0 - 0.01 <= x <= frame.x1 + 0.01
                assert frame.y0 - 0.01 <= y <= frame.y1 + 0.01
