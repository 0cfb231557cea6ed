"""The report in a real browser, driven by Playwright: formulas drawn, tables that fit, the
explorer's slider. Debian's chromium is the browser (no browser is downloaded); the tests skip
without it or without the playwright package. One browser serves the whole module."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from maxent_util import PAR, Solved
from maxent_util.report import report_html

from synthetic_runs import competition

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--no-first-run",
        # no name is resolved, so nothing the browser itself asks for leaves the machine
        "--host-resolver-rules=MAP * ~NOTFOUND"]

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


@pytest.fixture(scope="module")
def page_of_14(tmp_path_factory) -> Path:
    """A report on 14 solvers under five rules, as a file."""
    table = competition(14)
    path = tmp_path_factory.mktemp("report") / "report14.html"
    path.write_text(report_html(table, rules=RULES, date="fixed", resamples=200), encoding="utf-8")
    return path


def open_page(browser, path: Path, width: int = 1400):
    """A new tab of ``width`` CSS pixels showing the file; console errors and requests kept."""
    tab = browser.new_page(viewport={"width": width, "height": 900})
    tab.console_messages = []
    tab.requested = []
    tab.on("console", lambda message: tab.console_messages.append(message.text))
    tab.on("request", lambda request: tab.requested.append(request.url))
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
    for name, anchor in headers:
        assert tab.evaluate(f"document.querySelector('{anchor}').textContent") == name
        assert tab.evaluate(f"document.querySelector('{anchor} + div table.bounds')"
                            ".dataset.rule") == name
    tab.close()
