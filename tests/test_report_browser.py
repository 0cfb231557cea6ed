"""The report in a real browser, driven by Playwright: formulas drawn, tables that fit, the
explorer's slider. Debian's chromium is the browser (no browser is downloaded); the tests skip
without it or without the playwright package. One browser serves the whole module."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from maxent_util import PAR, Solved, sweep
from maxent_util.report import report_html

from conftest import CHROMIUM
from conftest import CHROMIUM_ARGS as ARGS
from synthetic_runs import competition

pytestmark = pytest.mark.skipif(
    not Path(CHROMIUM).is_file() or shutil.which(CHROMIUM) is None,
    reason="no chromium at /usr/bin/chromium (Debian: apt-get install chromium)")

# the command line's default rules (five utilities and PAR-2), and the solved count
RULES = {**{spec: spec for spec in ("uniform(20)", "uniform(500)", "pareto(5, 3)", "pareto(5, 1)",
                                   "exponential(1)")}, "PAR-2": PAR(2), "solved": Solved()}


@pytest.fixture(scope="module")
def browser():
    sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright package "
                                   "(the test extra) is not installed")
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield launched
        launched.close()


# a solver named to end the explorer's JSON block and run a script, if anything let it
HOSTILE = "</script><script>alert(1)</script><!--"


@pytest.fixture(scope="module")
def table_of_14() -> pd.DataFrame:
    table = competition(14)
    table["algorithm"] = table["algorithm"].replace(table["algorithm"].iloc[-1], HOSTILE)
    return table


@pytest.fixture(scope="module")
def page_of_14(tmp_path_factory, table_of_14) -> Path:
    """A report on 14 solvers under the command line's rules, as a file."""
    path = tmp_path_factory.mktemp("report") / "report14.html"
    path.write_text(report_html(table_of_14, rules=RULES, date="fixed", resamples=200),
                    encoding="utf-8")
    return path


def open_page(browser, path: Path, width: int = 1400):
    """A new tab of ``width`` CSS pixels showing the file; console errors and requests kept."""
    tab = browser.new_page(viewport={"width": width, "height": 900})
    tab.console_messages = []
    tab.requested = []
    tab.dialogs = []
    tab.on("console", lambda message: tab.console_messages.append(message.text))
    tab.on("request", lambda request: tab.requested.append(request.url))
    tab.on("dialog", lambda dialog: (tab.dialogs.append(dialog.message), dialog.dismiss()))
    tab.goto(path.resolve().as_uri())
    return tab


def test_every_formula_is_drawn(browser, page_of_14):
    tab = open_page(browser, page_of_14)
    sizes = tab.evaluate("""Array.from(document.querySelectorAll('math'), math => {
        const box = math.getBoundingClientRect(), inner = math.firstElementChild.getBoundingClientRect();
        return [box.width, box.height, inner.width, inner.height]; })""")
    # uniform(500), pareto(5, 3), exponential(1): u, f, F, the constraints, the multipliers
    assert len(sizes) >= 15
    for size in sizes:
        assert min(size) > 0, sizes
    # drawn as mathematics: a fraction is taller than a line of text
    heights = [size[3] for size in sizes]
    line = tab.evaluate("parseFloat(getComputedStyle(document.body).fontSize)")
    assert max(heights) > 1.5 * line
    assert tab.console_messages == [] and tab.requested == [page_of_14.resolve().as_uri()]
    tab.close()


def test_rankings_fit_at_1400_pixels(browser, page_of_14):
    tab = open_page(browser, page_of_14, width=1400)
    # the page does not scroll sideways, nor does the compact table inside its frame
    page = tab.evaluate("[document.documentElement.scrollWidth, document.documentElement.clientWidth]")
    assert page[0] <= page[1], page
    frame = tab.evaluate("""(() => { const f = document.querySelector('table.ranking').parentElement;
        return [f.scrollWidth, f.clientWidth]; })()""")
    assert frame[0] <= frame[1], frame
    # every rule's rank and score are in it, and its name links to the rule's own table
    headers = tab.evaluate("Array.from(document.querySelectorAll('table.ranking thead a'), "
                           "a => [a.textContent, a.getAttribute('href')])")
    assert [name for name, _ in headers] == list(RULES)
    fold = "document.querySelector('{}').closest('details')"
    for index, (name, anchor) in enumerate(headers):
        assert tab.evaluate(fold.format(anchor) + ".querySelector('summary').textContent") == name
        assert tab.evaluate(f"document.querySelector('{anchor} table.bounds').dataset.rule") == name
        # each rule folded but the first
        assert tab.evaluate(fold.format(anchor) + ".open") == (index == 0)
    # following a rule's link opens its fold, with no script: the browser does it
    last = headers[-1][1]
    tab.click(f"table.ranking thead a[href='{last}']")
    assert tab.evaluate(fold.format(last) + ".open")
    assert tab.evaluate(f"document.querySelector('{last} table.bounds')"
                        ".getBoundingClientRect().height") > 100
    tab.close()


def explorer_state(tab) -> dict:
    """What the explorer shows: the value, the leader, and the ranking as read from the DOM."""
    return tab.evaluate("""(() => ({
        value: Number(document.getElementById('explore-value').dataset.value),
        shown: document.getElementById('explore-value').textContent,
        leader: document.getElementById('explore-leader').textContent,
        ranking: Array.from(document.querySelectorAll('#explore-ranking li'), li => [
            li.dataset.algorithm, Number(li.dataset.rank), li.value,
            Number(li.querySelector('.score').dataset.value)]),
    }))()""")


def test_explorer_slider_shows_the_ranking_of_sweep(browser, page_of_14, table_of_14):
    tab = open_page(browser, page_of_14)
    slider = tab.locator("#explore-scale")
    # the default explorer: the first rule's family, uniform(kappa0), from 1 s to the cutoff
    assert slider.get_attribute("min") == "0" and slider.get_attribute("max") == "120"
    values = np.geomspace(1.0, 1000.0, 121)
    seen_leaders = set()
    for position in (0, 17, 40, 95, 120):  # the lead changes at 29 and back at 54
        slider.fill(str(position))
        state = explorer_state(tab)
        assert state["value"] == values[position]
        # reference: maxent_util.sweep at that value alone
        reference = sweep(table_of_14, "uniform", "kappa0", [state["value"]])
        expected = [[row.algorithm, int(row.rank), int(row.rank), float(row.score)]
                    for row in reference.itertuples()]
        assert [row[:3] for row in state["ranking"]] == [row[:3] for row in expected]
        # the scores: summed over 121 values at once on the page, over one here (ulps apart)
        assert [row[3] for row in state["ranking"]] == pytest.approx(
            [row[3] for row in expected], rel=1e-12, abs=1e-15)
        leaders = [name for name, rank, *_ in expected if rank == 1]
        assert state["leader"] == ", ".join(leaders)
        seen_leaders.add(state["leader"])
    assert len(seen_leaders) > 1  # the slider does move the lead on this table
    # the hostile name is a name: shown as text, no script of its own, no alert, and the
    # page's one script ran under its hash (a blocked script logs a policy error)
    assert HOSTILE in [row[0] for row in state["ranking"]]
    assert tab.evaluate("document.scripts.length") == 2
    assert tab.dialogs == [] and tab.console_messages == []
    assert tab.requested == [page_of_14.resolve().as_uri()]
    tab.close()


# Published solver names run long; some have no space or hyphen to break at.
LONG_NAMES = ("SeqFROST-NoExtend-sc2021-SLS_Improved_version", "Kissat_MAB_ESA-sc2023-hybrid-walk",
              "CaDiCaL vivinst sc2023 with extended resolution", "x" * 44, HOSTILE)


@pytest.fixture(scope="module")
def page_of_48(tmp_path_factory) -> Path:
    """The data, rankings and explorer of a report on 48 solvers with long names."""
    table = competition(48, instances=10)
    names = sorted(table["algorithm"].unique())
    table["algorithm"] = table["algorithm"].map(
        {name: f"{LONG_NAMES[i % len(LONG_NAMES)]}-{i:02d}" for i, name in enumerate(names)})
    path = tmp_path_factory.mktemp("report") / "report48.html"
    path.write_text(report_html(table, rules={"uniform(500)": "uniform(500)", "PAR-2": PAR(2)},
                                date="fixed", resamples=50,
                                sections=["data", "rankings", "explore"]), encoding="utf-8")
    return path


# Per item of the explorer's list: its box, the boxes of its text's lines, and the width its
# rank ("48. ") takes in its font, measured on a scratch element.
_LIST_BOXES = """(() => {
  const edges = r => [r.left, r.top, r.right, r.bottom];
  return Array.from(document.querySelectorAll('#explore-ranking li'), li => {
    const range = document.createRange();
    range.selectNodeContents(li);
    const scratch = document.createElement('span');
    scratch.style.cssText = 'position: absolute; visibility: hidden; white-space: pre; text-indent: 0';
    scratch.textContent = li.value + '. ';
    li.append(scratch);
    const marker = scratch.getBoundingClientRect().width;
    scratch.remove();
    return {box: edges(li.getBoundingClientRect()), marker,
            lines: Array.from(range.getClientRects(), edges).filter(r => r[2] > r[0])};
  });
})()"""


def _overlap(a, b) -> bool:
    return min(a[2], b[2]) - max(a[0], b[0]) > 0.5 and min(a[3], b[3]) - max(a[1], b[1]) > 0.5


@pytest.mark.parametrize("width", [1400, 1000])
def test_the_explorer_s_columns_do_not_overlap_at_48_solvers(browser, page_of_48, width):
    tab = open_page(browser, page_of_48, width=width)
    items = tab.evaluate(_LIST_BOXES)
    assert len(items) == 48
    columns = sorted({round(item["box"][0]) for item in items})
    assert len(columns) >= 3  # a list in columns, so each has a next one to run into
    for item in items:
        box = item["box"]
        # every line of the name and score inside the item's own box, right of its rank
        for line in item["lines"]:
            assert box[0] - 0.5 <= line[0] and line[2] <= box[2] + 0.5, (item, line)
        assert item["lines"][0][0] - box[0] >= item["marker"] - 1, item
    for i, one in enumerate(items):
        for other in items[i + 1:]:
            assert not _overlap(one["box"], other["box"]), (one, other)
    # the list inside the page: nothing scrolls sideways, nothing spills out of its box
    spilled = tab.evaluate("""Array.from(document.body.querySelectorAll('*'), el => [el,
        getComputedStyle(el)]).filter(([el, s]) => s.overflowX === 'visible' && el.clientWidth
        && !el.closest('svg, math') && el.scrollWidth > el.clientWidth + 1)
        .map(([el]) => el.outerHTML.slice(0, 80))""")
    assert spilled == []
    page = tab.evaluate("[document.documentElement.scrollWidth, document.documentElement.clientWidth]")
    assert page[0] <= page[1], page
    assert tab.console_messages == [] and tab.dialogs == []
    assert tab.requested == [page_of_48.resolve().as_uri()]
    tab.close()


# Per figure: its box, its panel's frame, its legends' boxes, and every text's box, whether it
# is in a legend and where it is anchored, as the browser draws them in its own fonts.
_FIGURE_BOXES = """Array.from(document.querySelectorAll('figure svg'), svg => {
  const edges = r => [r.left, r.top, r.right, r.bottom];
  return {svg: edges(svg.getBoundingClientRect()),
          frame: edges(svg.querySelector('.frame').getBoundingClientRect()),
          legends: Array.from(svg.querySelectorAll('g.legend > rect'),
                              r => edges(r.getBoundingClientRect())),
          texts: Array.from(svg.querySelectorAll('text'), t => ({
              box: edges(t.getBoundingClientRect()), legend: !!t.closest('g.legend'),
              anchor: t.getAttribute('text-anchor'), size: Number(t.getAttribute('font-size'))}))};
})"""


def _inside(inner, outer) -> bool:
    return (outer[0] - 0.5 <= inner[0] and outer[1] - 0.5 <= inner[1]
            and inner[2] <= outer[2] + 0.5 and inner[3] <= outer[3] + 0.5)


@pytest.mark.parametrize("count", [14, 48])
def test_figures_keep_their_texts_inside_and_apart_in_the_browser(browser, tmp_path, count):
    # the figures written without matplotlib, drawn in the browser's own fonts: long names,
    # one of them hostile
    table = competition(count, instances=10)
    names = sorted(table["algorithm"].unique())
    table["algorithm"] = table["algorithm"].map(
        {name: f"{LONG_NAMES[i % len(LONG_NAMES)]}-{i:02d}" for i, name in enumerate(names)})
    path = tmp_path / "figures.html"
    path.write_text(report_html(table, rules={"uniform(500)": "uniform(500)", "PAR-2": PAR(2),
                                              "pareto(5, 1)": "pareto(5, 1)"},
                                date="fixed", ci=None,
                                sections=["bump-chart", "cactus", "survival"]), encoding="utf-8")
    tab = open_page(browser, path)
    figures = tab.evaluate(_FIGURE_BOXES)
    assert len(figures) == 3
    for figure in figures:
        assert _inside(figure["frame"], figure["svg"])
        for text in figure["texts"]:
            assert _inside(text["box"], figure["svg"]), text
            if text["legend"]:
                assert any(_inside(text["box"], legend) for legend in figure["legends"]), text
            else:
                assert not any(_overlap(text["box"], legend) for legend in figure["legends"])
        for legend in figure["legends"]:
            assert not _overlap(legend, figure["frame"])
    # the bump chart's names, at either end, one under the other
    names = [text for text in figures[0]["texts"] if text["size"] < 10]
    for anchor in ("start", "end"):
        boxes = sorted((text["box"] for text in names if text["anchor"] == anchor),
                       key=lambda box: box[1])
        assert len(boxes) == count
        assert all(upper[3] <= lower[1] + 0.5 for upper, lower in zip(boxes, boxes[1:]))
    assert tab.console_messages == [] and tab.dialogs == []
    tab.close()
