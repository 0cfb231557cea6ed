"""Tests of the HTML report: its numbers are rank()'s, everything from data is escaped, it
loads nothing, and a real headless browser (Debian's chromium) shows it without an error."""

from __future__ import annotations

import base64
import datetime
import hashlib
import json
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

import maxent_util
from maxent_util import PAR, DataError, ExportError, Solved, UtilityError, pairwise, rank, t
from maxent_util import report as report_module
from maxent_util.cli import main
from maxent_util.report import SECTIONS, report_html, section, write_report

from synthetic_runs import competition

HOSTILE = "<script>alert(1)</script>"


def long_table(rows) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["algorithm", "instance", "runtime", "status", "cutoff"])


@pytest.fixture
def runs() -> pd.DataFrame:
    """Three solvers on four instances, one of them named to run a script if not escaped."""
    return long_table([
        ("kissat", "a.cnf", 12.5, "solved", 60.0),
        ("kissat", "b.cnf", 60.0, "capped", 60.0),
        ("kissat", "c.cnf", 3.0, "solved", 60.0),
        ("kissat", "<img src=x onerror=alert(2)>.cnf", 30.0, "solved", 60.0),
        (HOSTILE, "a.cnf", 2.0, "solved", 60.0),
        (HOSTILE, "b.cnf", 40.0, "solved", 60.0),
        (HOSTILE, "c.cnf", 60.0, "memout", 60.0),
        (HOSTILE, "<img src=x onerror=alert(2)>.cnf", 60.0, "capped", 60.0),
        ("cadical", "a.cnf", 6.0, "solved", 60.0),
        ("cadical", "b.cnf", 8.0, "solved", 60.0),
        ("cadical", "c.cnf", 60.0, "capped", 60.0),
        ("cadical", "<img src=x onerror=alert(2)>.cnf", 59.0, "solved", 60.0),
    ])


def fast_rules() -> dict:
    """Rules that need no derivation: an expression, PAR-2, solved."""
    return {"exp(-t/10)": sympy.exp(-t / 10), "PAR-2": PAR(2), "solved": Solved()}


class Page(HTMLParser):
    """What a page holds: its tags, its text, the ranking's cells and the svg elements.

    The ranking is spread over the compact table (``table.ranking``: every rule's rank and
    score) and one table per rule (``table.bounds``: its bounds and intervals): ``rows``
    holds the compact table's rows, in its order, each with the cells of every table for
    its algorithm; ``headers`` the compact table's headers, then each rule table's."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.attributes: list[tuple[str, str, str]] = []
        self.text: list[str] = []
        self.rows: list[dict] = []
        self.headers: list[str] = []
        self.svgs: list[dict[str, str]] = []
        self.sections: list[str] = []
        self._table = self._body = False
        self._cell: list | None = None
        self._by_name: dict[str, dict] = {}
        self._first = True  # reading the compact table, whose rows give the order

    def handle_starttag(self, tag, attrs):
        attrs = [(key, value or "") for key, value in attrs]
        found = dict(attrs)
        self.tags.append(tag)
        self.attributes += [(tag, key, value) for key, value in attrs]
        if tag == "svg":
            self.svgs.append(found)
        elif tag == "section":
            self.sections.append(found.get("id", ""))
        elif tag == "table" and found.get("class", "").split()[:1] in (["ranking"], ["bounds"]):
            self._table = True
            self._first = found["class"].startswith("ranking")
        elif self._table and tag == "tbody":
            self._body = True
        elif self._body and tag == "tr":
            self._row = {"name": None, "cells": {}}
        elif self._body and tag == "th":
            self._cell = ["name", ""]
        elif self._body and tag == "td":
            self._cell = [found["data-column"], found["data-value"], ""]
        elif self._table and tag == "th":
            self._cell = ["header", ""]

    def handle_endtag(self, tag):
        if tag == "table":
            self._table = self._body = False
        elif tag in ("th", "td") and self._cell is not None:
            if self._cell[0] == "name":
                name = self._row["name"] = self._cell[1]
                if name not in self._by_name:
                    self._by_name[name] = self._row
                    if self._first:
                        self.rows.append(self._row)
                self._row = self._by_name[name]
            elif self._cell[0] == "header":
                self.headers.append(self._cell[1])
            else:
                self._row["cells"][self._cell[0]] = (self._cell[1], self._cell[2])
            self._cell = None

    def handle_data(self, data):
        self.text.append(data)
        if self._cell is not None:
            self._cell[-1] += data


def parse(page: str) -> Page:
    parser = Page()
    parser.feed(page)
    parser.close()
    return parser


def shown(value: float, column: str, rule) -> str:
    """How the page writes a number: its own rule per kind, checked against the raw value."""
    if column.endswith(" rank"):
        return f"{value:.0f}"
    if isinstance(rule, PAR):
        return f"{value:.1f}"
    if isinstance(rule, Solved):
        return f"{value:g}"
    return f"{value:.4f}"


REPORT_BOOTSTRAP = {"ci": 0.95, "resamples": 2000, "seed": 0}


def assert_ranking_matches(page: Page, table: pd.DataFrame, rules: dict, **options) -> None:
    """The page's ranking table holds rank(table, rules, bounds=True): same rows in the same
    order, every column (a classic rule's bounds left out: they equal its score), exact values."""
    # report_html's defaults: 95% intervals from 2000 resamples with seed 0
    reference = rank(table, rules, bounds=True, **{**REPORT_BOOTSTRAP, **options})
    assert [row["name"] for row in page.rows] == list(reference.index)
    classic_bounds = {f"{name} {end}" for name, rule in rules.items()
                      if isinstance(rule, (PAR, Solved)) for end in ("lower", "upper")}
    expected_columns = [c for c in reference.columns if c not in classic_bounds]
    for row, (algorithm, values) in zip(page.rows, reference.iterrows()):
        assert sorted(row["cells"]) == sorted(expected_columns), algorithm
        for column in expected_columns:
            raw, text = row["cells"][column]
            rule = next(rule for name, rule in rules.items() if column.startswith(name))
            assert float(raw) == float(values[column]), (algorithm, column)
            assert text == shown(float(values[column]), column, rule), (algorithm, column)


# ---------------------------------------------------------------------------
# the page


@pytest.fixture(scope="module")
def small_page(tmp_path_factory) -> tuple[str, pd.DataFrame, dict, Path]:
    folder = tmp_path_factory.mktemp("data")
    source = folder / "<b>runs.csv"
    rows = long_table([
        ("kissat", "a.cnf", 12.5, "solved", 60.0), ("kissat", "b.cnf", 60.0, "capped", 60.0),
        (HOSTILE, "a.cnf", 2.0, "solved", 60.0), (HOSTILE, "b.cnf", 60.0, "memout", 60.0),
        ("cadical", "a.cnf", 6.0, "solved", 60.0), ("cadical", "b.cnf", 8.0, "solved", 60.0)])
    rows.to_csv(source, index=False)
    table = maxent_util.read_runs(source)
    rules = {"uniform(100)": "uniform(100)", "<i>fast</i>": sympy.exp(-t / 10), "PAR-2": PAR(2),
             "solved": Solved()}
    page = report_html(table, rules=rules, source=source, format="long",
                       notes=["re-capped <at> 60 s & more"], title=f"Report {HOSTILE}",
                       date=datetime.datetime(2024, 5, 1, 12, 0, tzinfo=datetime.timezone.utc))
    reference_rules = {**rules, "uniform(100)": maxent_util.parse_utility("uniform(100)")}
    return page, table, reference_rules, source


def test_page_is_self_contained(small_page):
    page, table, *_ = small_page
    assert page.startswith("<!DOCTYPE html>\n") and page.endswith("</html>\n")
    parsed = parse(page)
    # two scripts, the explorer's: its JSON data (never run) and its fixed code, allowed by
    # the policy through its sha256 (reference: hashlib on the script's text as written)
    scripts = re.findall(r"<script([^>]*)>(.*?)</script>", page, re.S)
    assert [attributes for attributes, _ in scripts] == [' type="application/json" id="explore-data"', ""]
    assert len(re.findall(r"<\s*script", page, re.I)) == 2  # none from the hostile names
    assert len(re.findall(r"<\s*/\s*script", page, re.I)) == 2
    digest = base64.b64encode(hashlib.sha256(scripts[1][1].encode()).digest()).decode()
    json.loads(scripts[0][1])
    assert not re.search(r"https?:", page)  # nothing to fetch, not even a namespace URL
    # nothing loaded: no src, no link, no url() but same-page references inside the figures
    assert not [a for a in parsed.attributes if a[1] in ("src", "srcset", "action", "poster")]
    assert "link" not in parsed.tags and "iframe" not in parsed.tags
    assert set(re.findall(r"url\(([^)]*)\)", page)) <= {f"#{i}" for _, k, i in parsed.attributes
                                                         if k == "id"}
    policy = [v for tag, k, v in parsed.attributes if k == "content" and "default-src" in v]
    assert policy == [f"default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-{digest}'"]
    # without the explorer, no script and none allowed
    bare = report_html(table, rules={"PAR-2": PAR(2)}, explore=None, date="d", ci=None)
    assert "<script" not in bare and "default-src 'none'; style-src 'unsafe-inline'\"" in bare
    ids = [value for _, key, value in parsed.attributes if key == "id"]
    assert len(ids) == len(set(ids))  # four figures on one page, no id twice


def test_page_sections_and_figures(small_page):
    page, *_ = small_page
    parsed = parse(page)
    assert parsed.sections == [s.id for s in SECTIONS if s.id != "sweep"] == [
        "data", "rankings", "explore", "bump-chart", "cactus", "survival", "uncertainty",
        "utilities"]
    assert [svg["aria-label"] for svg in parsed.svgs] == [
        "bump chart of the ranks under each rule",
        "cactus plot of solved instances against runtime",
        "fraction of runs still running against runtime"]
    for svg in parsed.svgs:
        assert float(svg["width"].removesuffix("pt")) > 0 and float(svg["height"].removesuffix("pt")) > 0
    text = "".join(parsed.text)
    # the survival figure overlays the utilities (not PAR-2 or solved)
    assert "u(t) = uniform(100)" in text and "u(t) = <i>fast</i>" in text
    assert "u(t) = PAR-2" not in text


def test_ranking_table_is_ranks_numbers(small_page):
    page, table, rules, _ = small_page
    parsed = parse(page)
    assert_ranking_matches(parsed, table, rules)
    assert parsed.headers[:7] == ["algorithm", "uniform(100)", "<i>fast</i>", "PAR-2", "solved",
                                  "rank", "score"]


def test_provenance(small_page):
    page, table, _, source = small_page
    text = "".join(parse(page).text)
    digest = hashlib.sha256(source.read_bytes()).hexdigest()  # reference: hashlib on the file
    size = source.stat().st_size  # reference: the file system
    for fact in ("file<b>runs.csv", f"sha256{digest}", f"size{size:,} bytes", "formatlong", "algorithms3",
                 "instances2", "runs6 (4 solved, 1 capped, 1 memout)", "cutoff60 s",
                 f"maxent_util{maxent_util.__version__}", "date2024-05-01T12:00:00+00:00",
                 "re-capped <at> 60 s & more", "Read as a long CSV"):
        assert fact in text, fact


def test_utilities_section_gives_formula_latex_and_constraints(small_page):
    page, *_ = small_page
    text = "".join(parse(page).text)
    # uniform(100): derived from its support; every formula as MathML with its LaTeX beside it
    assert "Support(0, 100)" in text and r"\kappa \in \left[0, 100\right]" in text
    # hand: u(t) = 1 - t/100 below 100, else 0; f = 1/100 there; lambda_0 = -1 + log(100)
    assert ("<mi>u</mi><mrow><mo>(</mo><mi>t</mi><mo>)</mo></mrow></mrow><mo>=</mo><mrow><mo>{</mo>"
            "<mtable") in page
    assert "<mn>1</mn><mo>-</mo><mrow><mfrac><mi>t</mi><mn>100</mn></mfrac></mrow>" in page
    assert "<mtext>otherwise</mtext>" in page and "<mo>&lt;</mo><mn>100</mn>" in page
    assert "<mi>f</mi><mrow><mo>(</mo><mi>κ</mi><mo>)</mo></mrow>" in page  # the density
    assert "<mi>F</mi><mrow><mo>(</mo><mi>κ</mi><mo>)</mo></mrow>" in page  # its CDF
    assert "<msub><mi>λ</mi><mi>0</mi></msub><mo>=</mo>" in page  # its multiplier
    assert r"\lambda_{0} = -1 + \log{\left(100 \right)}" in text
    assert r"u{\left(t \right)} = e^{- \frac{t}{10}}" in text
    assert "no constraints on the captime are recorded" in text  # the bare expression
    assert "u(60) = 0.4 at the cutoff" in text  # hand: 1 - 60/100
    assert "Penalised average runtime" in text and "number of solved instances" in text
    # every LaTeX source is one click away, beside its formula, and no <pre> pretty-print is left
    parsed = parse(page)
    # uniform(100): u, its support, f, F, lambda_0; exp(-t/10): u
    assert parsed.tags.count("math") == page.count("<summary>LaTeX</summary>") == 6
    assert '<pre class="formula">' not in page


def test_formulas_escape_what_they_print():
    # sympy's MathML printer writes text raw (a relation's "<" as is): the page's writer escapes
    hostile = sympy.Symbol("<script>alert(1)</script>", positive=True)
    formula = report_module._formula(sympy.Piecewise((1, t < hostile), (0, True)), "u", t)
    assert "<script>" not in formula and "&lt;script&gt;alert(1)&lt;/script&gt;" in formula
    assert "<mo>&gt;</mo>" in formula and "<mo>></mo>" not in formula  # sympy wrote hostile > t
    assert "<mo>&lt;</mo>" in report_module._formula(sympy.Lt(t, 5))
    parsed = parse(formula)
    assert "script" not in parsed.tags
    assert "".join(parsed.text).count("<script>alert(1)</script>") == 2  # MathML and LaTeX
    # entities of sympy's printer become their characters, not double-escaped text
    assert "&amp;#" not in report_module._formula(sympy.Symbol("kappa") * sympy.pi)


def test_everything_from_data_is_escaped(small_page):
    page, *_ = small_page
    assert HOSTILE not in page and "<b>runs" not in page and "<i>fast" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "&lt;b&gt;runs.csv" in page and "&lt;i&gt;fast&lt;/i&gt;" in page
    assert "re-capped &lt;at&gt; 60 s &amp; more" in page
    parsed = parse(page)
    assert set(parsed.tags) <= {
        "html", "head", "meta", "title", "style", "body", "header", "h1", "h2", "h3", "p", "nav",
        "ol", "ul", "li", "a", "main", "section", "dl", "dt", "dd", "div", "table", "thead",
        "tbody", "tr", "th", "td", "em", "figure", "figcaption", "svg", "g", "path", "defs",
        "clippath", "use", "text", "tspan", "rect", "pre", "code", "details", "summary", "b",
        # the explorer
        "script", "label", "input", "span", "output", "strong",
        # MathML
        "math", "mrow", "mi", "mn", "mo", "mfrac", "msup", "msub", "mtable", "mtr", "mtd",
        "mtext"}
    assert HOSTILE in [row["name"] for row in parsed.rows]


def test_no_machine_path_on_the_page(runs, tmp_path, monkeypatch):
    folder = tmp_path / "private-home"
    folder.mkdir()
    data = folder / "detailed_main.csv"
    runs.to_csv(data, index=False)
    monkeypatch.chdir(tmp_path)
    for label in (str(data), "private-home/detailed_main.csv", data):
        page = report_html(runs, rules={"PAR-2": PAR(2)}, source=data, label=label, ci=None,
                           sections=["data"], date="d")
        assert "private-home" not in page and str(tmp_path) not in page
        assert "<title>Runtime report: detailed_main.csv</title>" in page
    # an ASlib scenario folder: named by the folder, sized and hashed by its runs file
    scenario = folder / "SAT20-MAIN"
    scenario.mkdir()
    (scenario / "algorithm_runs.arff").write_bytes(b"@RELATION x\n")
    page = report_html(runs, rules={"PAR-2": PAR(2)}, source=scenario, label=str(scenario),
                       ci=None, sections=["data"], date="d")
    assert "private-home" not in page and "Runtime report: SAT20-MAIN" in page
    assert "algorithm_runs.arff" in page and "12 bytes" in page
    # a label that is no path stays as given
    page = report_html(runs, rules={"PAR-2": PAR(2)}, source=data, label="SAT 2024 / main",
                       ci=None, sections=["data"], date="d")
    assert "Runtime report: SAT 2024 / main" in page


def test_report_hypothesis_names_round_trip():
    @settings(max_examples=30, deadline=None)
    @given(st.lists(st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=1,
                            max_size=12).filter(lambda s: s.strip() == s and s),
                    min_size=1, max_size=4, unique=True),
           st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=1,
                   max_size=12).filter(lambda s: s != "algorithm"))
    def check(names, rule_name):
        table = long_table([(name, instance, 1.0 + k, "solved" if k % 2 else "capped", 10.0)
                            for k, name in enumerate(names) for instance in ("i", "j")])
        rules = {rule_name: PAR(2)} if rule_name != "solved" else {"solved": Solved()}
        page = report_html(table, rules=rules, sections=["data", "rankings", "uncertainty"],
                           date="d", title=rule_name, ci=None)
        parsed = parse(page)
        # every name comes back as text; no markup came with it
        assert sorted(row["name"] for row in parsed.rows) == sorted(names)
        assert set(parsed.tags) <= {"html", "head", "meta", "title", "style", "body", "header",
                                    "h1", "h2", "h3", "p", "nav", "ol", "li", "a", "main",
                                    "section", "dl", "dt", "dd", "div", "table", "thead",
                                    "tbody", "tr", "th", "td", "em", "ul", "details",
                                    "summary"}
        assert rule_name in parsed.headers
        assert_ranking_matches(parsed, table, rules, ci=None)

    check()


def test_sections_register_by_one_function(runs):
    @section("instances", "Instances")
    def _instances(data):
        names = sorted(data.table["instance"].unique())
        return "<ul>" + "".join(f"<li>{report_module._e(n)}</li>" for n in names) + "</ul>"

    @section("nothing", "Left out")
    def _nothing(data):
        return None

    try:
        page = report_html(runs, rules=fast_rules(), sections=["rankings", "instances", "nothing"])
        parsed = parse(page)
        assert parsed.sections == ["rankings", "instances"]
        assert '<a href="#instances">Instances</a>' in page and "Left out" not in page
        assert "&lt;img src=x onerror=alert(2)&gt;.cnf" in page
        with pytest.raises(UtilityError, match="`id` of `section` must be not yet taken"):
            section("instances", "again")
    finally:
        del SECTIONS[-2:]
    assert [s.id for s in SECTIONS][-1] == "utilities"
    with pytest.raises(UtilityError, match="`id` of `section` must be an anchor"):
        section('x" onclick="alert(1)', "bad")


def test_ci_columns_are_rank_s_bootstrap_intervals(runs):
    # reference: rank() itself with the same level, resamples and seed
    parsed = parse(report_html(runs, rules=fast_rules(), ci=0.9, resamples=500, seed=3,
                               sections=["rankings", "uncertainty"]))
    # the compact table (algorithm, 3 rules, rank and score each), then exp(-t/10)'s own table
    assert parsed.headers[10:18] == ["algorithm", "score", "lower", "upper", "CI low", "CI high",
                                     "rank", "algorithm"]
    reference = rank(runs, fast_rules(), bounds=True, ci=0.9, resamples=500, seed=3)
    first = parsed.rows[0]
    assert float(first["cells"]["PAR-2 ci high"][0]) == reference["PAR-2 ci high"].iloc[0]
    assert first["cells"]["exp(-t/10) ci low"][1] == f"{reference['exp(-t/10) ci low'].iloc[0]:.4f}"
    without = parse(report_html(runs, rules=fast_rules(), ci=None,
                                sections=["rankings", "uncertainty"]))
    assert "CI low" not in without.headers and "lower" in without.headers


def test_every_rule_has_its_paired_tests_and_matrix(runs):
    # reference: maxent_util.pairwise with the page's options, rule by rule
    page = report_html(runs, rules=fast_rules(), ci=0.9, resamples=400, seed=1,
                       sections=["uncertainty"])
    values = [float(v) for v in re.findall(r'data-column="wilcoxon p holm" data-value="([^"]+)"', page)]
    matrices = re.findall(r'<table class="matrix" data-rule="([^"]*)">(.*?)</table>', page)
    assert [name for name, _ in matrices] == list(fast_rules())
    expected = []
    for (name, rule), (_, matrix) in zip(fast_rules().items(), matrices):
        reference = pairwise(runs, {name: rule}, ci=0.9, resamples=400, seed=1)
        expected += reference["wilcoxon p holm"].tolist()
        # the matrix: + where the row is significantly better, - worse, . neither
        order = rank(runs, {name: rule})[f"{name} rank"].sort_values(kind="stable").index.tolist()
        cells = [re.findall(r'<td class="[a-z]+">([^<]*)</td>', row)
                 for row in re.findall(r"<tr><th scope=\"row\">.*?</tr>", matrix)]
        assert len(cells) == len(order) == 3
        for (a, b), significant in reference["significant"].items():
            i, j = order.index(a), order.index(b)
            assert (cells[i][j], cells[j][i]) == (("+", "-") if significant else (".", "."))
        assert [cells[i][i] for i in range(3)] == ["", "", ""]
    assert values == expected and len(values) == 3 * 3
    assert f"of 3 differences are real under PAR-2" in page
    without = report_html(runs, rules=fast_rules(), ci=None, sections=["uncertainty"])
    assert '<table class="matrix"' not in without and '<table class="pairwise"' not in without
    assert '<table class="bounds"' in without


def test_many_algorithms_list_neighbouring_pairs(monkeypatch):
    # above _ALL_PAIRS algorithms the list shows neighbours in the ranking; the matrix all
    monkeypatch.setattr(report_module, "_ALL_PAIRS", 3)
    table = competition(5, 6)
    page = report_html(table, rules={"PAR-2": PAR(2)}, resamples=50, sections=["uncertainty"])
    assert "the 4 pairs of neighbours in this ranking" in page
    assert len(re.findall(r'data-column="significant"', page)) == 4
    assert page.count('<td class="self">') == 5


def test_unknown_columns_are_shown_after_the_rules(runs, monkeypatch):
    def rank_with_more(table, rules, **options):
        frame = rank(table, rules, **options)
        frame["note"] = "x<y"
        return frame

    monkeypatch.setattr(report_module, "rank", rank_with_more)
    page = report_html(runs, rules={"PAR-2": PAR(2)}, sections=["rankings"])
    assert parse(page).headers[:3] == ["algorithm", "PAR-2", "note"] and 'data-value="x&lt;y">x&lt;y</td>' in page


@pytest.mark.parametrize("arguments, error, pattern", [
    (dict(table=[1]), DataError, "`table` of `report_html` must be a long runtime table"),
    (dict(rules={}), UtilityError, "`rules` of `report_html` must be non-empty"),
    (dict(rules=5), UtilityError, "`rules` of `report_html` must be a mapping"),
    (dict(rules=["weibull(2)"]), UtilityError, "`spec` of `parse_utility`"),
    (dict(sections=["rankings", "pairs"]), UtilityError, "`sections` of `report_html` must be"),
    (dict(source="/nonexistent/runs.csv"), DataError, "`source` of `report_html` must be an "
                                                      "existing file"),
    (dict(date=5), DataError, "`date` of `report_html` must be a datetime"),
    (dict(rules={"u": sympy.exp(-t / sympy.Symbol("k", positive=True))}), UtilityError,
     "free of unset parameters"),
    (dict(duplicates="drop"), DataError, "`duplicates` of `rank`"),
    (dict(explore="pareto"), UtilityError, "`explore` of `report_html` must be True, None, or "
                                           "a dict with family, parameter and bounds"),
    (dict(explore={"family": "pareto", "parameter": "kappa0", "bounds": (1, 10)}),
     UtilityError, "Pass alpha="),
])
def test_bad_arguments(runs, arguments, error, pattern):
    options = {"table": runs, "rules": fast_rules(), **arguments}
    with pytest.raises(error, match=re.escape(pattern)):
        report_html(options.pop("table"), **options)


def test_write_report_refuses_to_overwrite(runs, tmp_path):
    target = tmp_path / "report.html"
    assert write_report(runs, target, rules=fast_rules(), sections=["data"]) == target
    first = target.read_text()
    with pytest.raises(ExportError, match="must be a file that does not exist yet"):
        write_report(runs, target, rules=fast_rules(), sections=["data"])
    assert target.read_text() == first
    write_report(runs, target, rules=fast_rules(), sections=["rankings"], overwrite=True)
    assert "ranking" in target.read_text() and target.read_text() != first
    nested = tmp_path / "a" / "b" / "report.html"
    with pytest.raises(ExportError, match="must be in an existing directory"):
        write_report(runs, nested, rules=fast_rules(), sections=["data"])
    write_report(runs, nested, rules=fast_rules(), sections=["data"], parents=True)
    assert nested.is_file()


def test_lazy_names():
    assert maxent_util.report_html is report_html and maxent_util.write_report is write_report
    assert maxent_util.plot_cactus is maxent_util.plots.plot_cactus


# ---------------------------------------------------------------------------
# the command line


def run(capsys, *argv):
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_cli_report(capsys, tmp_path, runs):
    data = tmp_path / "runs.csv"
    runs.to_csv(data, index=False)
    target = tmp_path / "report.html"
    status, out, err = run(capsys, "report", str(data), "--utility", "exp(-t/10)", "--par", "2",
                           "--cutoff", "50", "-o", str(target), "--title", "Mine")
    assert (status, err) == (0, "") and out.strip() == f"wrote {target}"
    page = target.read_text()
    # the file by its name: the folder it lies in on this machine is nowhere on the page
    assert str(tmp_path) not in page and str(tmp_path.name) not in page
    parsed = parse(page)
    text = "".join(parsed.text)
    assert f"sha256{hashlib.sha256(data.read_bytes()).hexdigest()}" in text
    assert "fileruns.csv" in text and "formatlong" in text and "cutoff50 s" in text
    assert "re-capped at 50 s, the cutoff given" in text and "Mine" in parsed.text
    # the numbers are the library's on the re-capped table (runs past 50 s count as capped)
    capped = runs.copy()
    over = capped["runtime"] >= 50
    capped.loc[over & (capped["status"] == "solved"), "status"] = "capped"
    capped.loc[over, "runtime"] = 50.0
    capped["cutoff"] = 50.0
    assert_ranking_matches(parsed, capped, {"exp(-t/10)": sympy.exp(-t / 10), "PAR-2": PAR(2)})
    # refused without --force, the page untouched; replaced with it
    status, _, err = run(capsys, "report", str(data), "--par", "2", "-o", str(target))
    assert status == 2 and "already exists; pass --force" in err and target.read_text() == page
    status, _, _ = run(capsys, "report", str(data), "--par", "3", "-o", str(target), "--force")
    assert status == 0 and "PAR-3" in target.read_text()


@pytest.mark.parametrize("argv, pattern", [
    (["--par", "2"], "give a runtime FILE or --dataset"),
    (["--dataset", "satcomp2021-parallel", "--par", "2", "-o", "out/"], "is a directory"),
    (["--dataset", "nope"], "argument --dataset: invalid choice"),
    (["missing.csv", "--par", "2"], "missing.csv"),
])
def test_cli_report_bad_input_is_one_line(capsys, tmp_path, monkeypatch, argv, pattern):
    monkeypatch.chdir(tmp_path)
    status, _, err = run(capsys, "report", *argv)
    assert status == 2, err
    assert len(err.splitlines()) == 1 and err.startswith("maxent-util: error: "), err
    assert pattern in err, err
    assert list(tmp_path.iterdir()) == []


def test_cli_report_of_a_dataset_hashes_the_bundled_file(capsys, tmp_path):
    target = tmp_path / "r.html"
    status, _, err = run(capsys, "report", "--dataset", "satcomp2021-parallel", "--par", "2",
                         "--solved", "-o", str(target))
    assert (status, err) == (0, "")
    text = "".join(parse(target.read_text()).text)
    bundled = Path(maxent_util.datasets.__file__).parent / "data" / "r_parallel.csv"
    assert f"sha256{hashlib.sha256(bundled.read_bytes()).hexdigest()}" in text
    assert "datasatcomp2021-parallel" in text and "filer_parallel.csv" in text
    assert "runs3600 (2656 solved, 815 capped, 129 memout)" in text  # the module's own doctest


# ---------------------------------------------------------------------------
# in a real browser


def chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome", "chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


def browse(page: Path, tmp_path: Path, *, dump: bool = True) -> tuple[str, list[str], list[str]]:
    """Open a page from file:// in headless chromium; return the DOM it built, the console
    messages it logged, and the URLs the page asked the network for (from chromium's net log)."""
    binary = chromium()
    profile = tmp_path / f"profile-{page.stem}"
    net_log = tmp_path / f"net-{page.stem}.json"
    done = subprocess.run(
        [binary, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run",
         # no name is resolved, so nothing the browser itself asks for leaves the machine
         "--host-resolver-rules=MAP * ~NOTFOUND",
         f"--user-data-dir={profile}", "--enable-logging=stderr", "--v=0",
         f"--log-net-log={net_log}", "--dump-dom", page.resolve().as_uri()],
        capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr[-2000:]
    console = [line for line in done.stderr.splitlines() if re.search(r":CONSOLE[:(]", line)]
    log = json.loads(net_log.read_text())
    names = {value: key for key, value in log["constants"]["logEventTypes"].items()}
    # the page's own requests carry its file:// origin; the browser's background ones do not
    requested = [event["params"]["url"] for event in log["events"]
                 if names.get(event["type"]) == "URL_REQUEST_START_JOB"
                 and "file://" in str(event.get("params", {}).get("network_isolation_key", ""))]
    return done.stdout, console, requested


needs_chromium = pytest.mark.skipif(
    chromium() is None, reason="no chromium on this machine (Debian: apt-get install chromium; "
                               ".ci/run installs it)")


@needs_chromium
def test_the_browser_check_can_fail(tmp_path):
    bad = tmp_path / "bad.html"
    bad.write_text('<!DOCTYPE html><html><body><img src="http://example.invalid/x.png">'
                   '<script>console.error("broken")</script></body></html>')
    _, console, requested = browse(bad, tmp_path)
    assert any('"broken"' in line for line in console)
    assert requested == ["http://example.invalid/x.png"]


@needs_chromium
def test_report_in_a_real_browser(small_page, tmp_path):
    page, table, rules, _ = small_page
    path = tmp_path / "report.html"
    path.write_text(page, encoding="utf-8")
    dom, console, requested = browse(path, tmp_path)
    assert console == [] and requested == []
    parsed = parse(dom)
    # the DOM the browser built: the names as text, only the explorer's scripts, the numbers
    assert parsed.tags.count("script") == 2
    assert HOSTILE in [row["name"] for row in parsed.rows]
    assert_ranking_matches(parsed, table, rules)
    assert len(parsed.svgs) == 3

    # the drawn size of every figure: a copy of the page measures them with a script of its
    # own (the report's policy allows only its own by hash, so the copy relaxes it for this
    # probe alone)
    probe = ("<script>for (const svg of document.querySelectorAll('svg')) {"
             "const box = svg.getBoundingClientRect();"
             "svg.setAttribute('data-drawn', box.width + 'x' + box.height); }</script>")
    measured = tmp_path / "measured.html"
    measured.write_text(re.sub(r"script-src 'sha256-[^']*'", "script-src 'unsafe-inline'", page)
                        .replace("</body>", probe + "</body>"), encoding="utf-8")
    dom, console, requested = browse(measured, tmp_path)
    assert console == [] and requested == []
    sizes = [svg.get("data-drawn") for svg in parse(dom).svgs]
    assert len(sizes) == 3 and None not in sizes
    for size in sizes:
        width, height = map(float, size.split("x"))
        assert width > 100 and height > 100, sizes


def test_json_in_a_script_block_cannot_end_it():
    names = ["</script><script>alert(1)</script>", "<!--", "a & b", "\u2028", "plain"]
    text = report_module._json_for_script({"algorithms": names})
    assert "<" not in text and ">" not in text and "&" not in text
    assert json.loads(text) == {"algorithms": names}  # reference: the json module


def explorer_data(page: str) -> dict:
    found = re.search(r'<script type="application/json" id="explore-data">(.*?)</script>', page,
                      re.S)
    return json.loads(found.group(1))


def test_explorer_sweeps_the_first_preset_from_a_second_to_the_cutoff(runs):
    # reference: maxent_util.sweep over the same 121 log-spaced values
    rules = {"PAR-2": PAR(2), "p": "pareto(5, 3)"}
    data = explorer_data(report_html(runs, rules=rules, ci=None, sections=["explore"]))
    values = np.geomspace(1.0, 60.0, 121)  # the table's cutoff is 60 s
    assert data["family"] == "pareto(kappa0, 3)" and data["values"] == values.tolist()
    reference = maxent_util.sweep(runs, "pareto", "kappa0", values, alpha=3)
    for k, (value, rows) in enumerate(reference.groupby("kappa0", sort=False)):
        assert [data["algorithms"][a] for a in data["orders"][k]] == rows["algorithm"].tolist()
        assert data["ranks"][k] == rows["rank"].tolist()
        assert data["scores"][k] == rows["score"].tolist()
    # the initial ranking is on the page without the script: the middle position's
    page = report_html(runs, rules={"PAR-2": PAR(2)}, ci=None, sections=["explore"])
    assert explorer_data(page)["family"] == "exponential(kappa0)"  # no preset among the rules
    middle = explorer_data(page)["orders"][60]
    shown = re.findall(r'<li value="\d+" data-algorithm="([^"]*)"', page)
    assert shown == [report_module._e(explorer_data(page)["algorithms"][a]) for a in middle]
    # with a sweep, the explorer follows its family and range; None leaves it out
    options = {"family": "exponential", "parameter": "kappa0", "bounds": (0.5, 500.0)}
    page = report_html(runs, rules=rules, ci=None, sweep=options, sections=["explore"])
    assert explorer_data(page)["values"][-1] == 500.0
    assert 'id="explore"' not in report_html(runs, rules=rules, ci=None, explore=None)


def test_sweep_section_holds_ranking_changes(runs):
    # reference: maxent_util.ranking_changes with the same keywords
    options = {"family": "exponential", "parameter": "kappa0", "bounds": (0.5, 500.0)}
    page = report_html(runs, rules=fast_rules(), ci=None, sweep=options, sections=["sweep"])
    reference = maxent_util.ranking_changes(runs, **options)
    starts = [float(v) for v in re.findall(r'<tr><td class="number" data-value="([^"]+)"', page)]
    assert starts == reference["start"].tolist()
    assert page.count("<svg") == 1
    assert 'id="sweep"' not in report_html(runs, rules=fast_rules(), ci=None, sections=["sweep"])
