"""A page fit to publish as it comes: no command-line advice in its prose (the command is in
a folded "How this page was made"), the cutoff's provenance in words, the title of the
competition's track where the file's name says it, one row for the file, the ASlib notes
consistent, and the files published beside the results refused as "not a results table".

The published files used are the bundled 2021 ones (maxent_util/datasets/data/SOURCE.md);
the others are fixtures with the published headers (docs/formats.md).
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

from maxent_util import PAR
from maxent_util.cli import main
from maxent_util.errors import DataError
from maxent_util.io import read_aslib, read_runs
from maxent_util.io.satcomp import track_title
from maxent_util.report import report_html

BUNDLED = Path(__file__).parent.parent / "maxent_util" / "datasets" / "data"
SCENARIO = Path(__file__).parent / "data" / "aslib_scenario"


def facts(page: str) -> dict[str, str]:
    return {html.unescape(k): html.unescape(v)
            for k, v in re.findall(r"<dt>(.*?)</dt><dd>(.*?)</dd>", page)}


def prose(page: str) -> str:
    """The page's visible text, without scripts, styles and the folded command."""
    page = re.sub(r'<script.*?</script>|<style.*?</style>|<details class="made">.*?</details>',
                  " ", page, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", " ", page))


@pytest.fixture(scope="module")
def parallel_page(tmp_path_factory):
    folder = tmp_path_factory.mktemp("page")
    target = folder / "parallel.html"
    argv = ["report", str(BUNDLED / "r_parallel.csv"), "--cutoff", "5000", "--sort-by",
            "PAR-2", "-o", str(target), "--resamples", "20"]
    assert main(argv) == 0
    return target.read_text(encoding="utf-8")


def test_the_prose_gives_no_command_line_advice(parallel_page):
    text = prose(parallel_page)
    assert not re.search(r"--[a-z]", text), re.search(r".{40}--[a-z].{40}", text).group(0)
    assert "maxent-util" not in text
    # the rules' note keeps its words, without the flag
    assert "PAR-2 is the competitions' own rule." in text


def test_the_folded_section_holds_the_exact_command_without_folders(parallel_page):
    made = re.search(r'<details class="made"><summary>How this page was made</summary>'
                     r'.*?<pre><code>(.*?)</code></pre></details>', parallel_page, re.S)
    assert made is not None
    assert html.unescape(made.group(1)) == ("maxent-util report r_parallel.csv --cutoff 5000 "
                                            "--sort-by PAR-2 -o parallel.html --resamples 20")
    assert str(BUNDLED) not in parallel_page


def test_the_cutoff_is_said_to_be_the_published_limit(parallel_page):
    text = prose(parallel_page)
    assert "cutoff 5000 s (1.39 h), given: the competition's published limit" in text
    assert "re-capped" not in text  # the reader took the limit: nothing was re-capped


def test_the_title_is_the_track_and_the_file_has_one_row(parallel_page):
    assert "<title>SAT Competition 2021, parallel track</title>" in parallel_page
    shown = facts(parallel_page)
    assert shown["file"] == "r_parallel.csv" and "data" not in shown


@pytest.mark.parametrize("year, name, title", [
    ("2020", "parallel.csv", "SAT Competition 2020, parallel track"),
    ("2020", "results.csv", "SAT Competition 2020, main track"),
    ("solver rows", "par2scores.csv", "SAT Competition 2020, NoLimits track"),
    ("2021", "r_main.csv", "SAT Competition 2021, main track"),
    ("2022", "main-seq.csv", "SAT Competition 2022, main track"),
    ("2022", "anni-par-unsat.csv", "SAT Competition 2022, anniversary track"),
    ("2023/2024", "results_cloud_detailed.csv", "SAT Competition 2023, cloud track"),
    ("2023/2024", "sc2023-detailed-results.zip:results_main_detailed.csv",
     "SAT Competition 2023, main track"),
    ("2023/2024", "detailed_nolimits.csv.gz", "SAT Competition 2024, no-limits track"),
    ("2023/2024", "my_runs.csv", None),
    ("2021", "parallel.csv", None),  # a 2020 name in the 2021 layout says nothing
])
def test_track_titles_of_the_published_names(year, name, title):
    assert track_title(year, name) == title


def test_a_title_given_wins_and_a_table_without_track_keeps_the_old_one():
    runs = read_runs(BUNDLED / "r_main.csv", cutoff=5000)
    assert runs.attrs["track"] == "SAT Competition 2021, main track"
    small = runs[runs["instance"].isin(runs["instance"].unique()[:3])]
    page = report_html(small, rules=[PAR(2)], title="Main", ci=None, sections=["data"],
                       date="d")
    assert "<title>Main</title>" in page
    small.attrs.pop("track")
    page = report_html(small, rules=[PAR(2)], ci=None, sections=["data"], date="d")
    assert "<title>Runtime report: runtime table</title>" in page


def test_a_cutoff_of_no_published_limit_is_said_to_be_given():
    runs = read_runs(BUNDLED / "r_main.csv", cutoff=1200)
    assert runs.attrs["cutoff_source"] == "cutoff 1200 s (20 min), given (the file states none)"
    assert read_runs(BUNDLED / "r_main.csv", cutoff=5000).attrs["cutoff_source"] == (
        "cutoff 5000 s (1.39 h), given: the competition's published limit of the 2021 main "
        "and parallel tracks")


def test_an_aslib_description_without_measures_is_not_said_to_be_missing(tmp_path):
    folder = tmp_path / "SAT20-MAIN"
    folder.mkdir()
    (folder / "algorithm_runs.arff").write_bytes((SCENARIO / "algorithm_runs.arff").read_bytes())
    (folder / "description.txt").write_text("scenario_id: SAT20-MAIN\n"
                                            "algorithm_cutoff_time: 100\n")
    note = read_aslib(folder / "algorithm_runs.arff").attrs["notes"][0]
    assert "no description.txt" not in note
    assert "description.txt lists no performance_measures" in note
    assert "cutoff 100 s (1.67 min), from algorithm_cutoff_time of description.txt" in note


def test_bench_meta_with_an_unknown_family_is_not_a_results_table(tmp_path):
    # 'unknown' is also a 2020 word for a run: one such cell must not make it a results table
    path = tmp_path / "bench_meta.csv"
    path.write_text("hash,author,family,filename\n"
                    "004b0f451f7d96f6a572e9e76360f51a,chowdhury,unknown,spg_420_280.cnf.xz\n"
                    "008e7716c69009090ff6bd0048dc55f8,ibm,hardware-verification,"
                    "SAT_dat.k10.cnf.xz\n")
    with pytest.raises(DataError, match=r"It is not a results table: besides 'hash', "
                                        r"'filename', its columns \(\['author', 'family'\]\) "
                                        r"hold no time"):
        read_runs(path)


# ---------------------------------------------------------------------------
# legible mathematics


def exponent_of(markup: str) -> str:
    """The exponent of the first msup: its second child."""
    from xml.dom import minidom

    document = minidom.parseString(markup)
    power = document.getElementsByTagName("msup")[0]
    return [node for node in power.childNodes if node.nodeType == node.ELEMENT_NODE][1].toxml()


def math_of(block: str) -> str:
    return re.search(r"<math[^>]*>.*?</math>", block, re.S).group(0)


def test_a_fraction_in_an_exponent_is_written_inline():
    import sympy

    from maxent_util.report import _formula

    t = sympy.Symbol("t", positive=True)
    block = _formula(sympy.exp(-t / 500), "u", sympy.Symbol("t"))
    exponent = exponent_of(math_of(block))
    assert "mfrac" not in exponent
    assert exponent == ("<mrow><mo>-</mo><mrow><mi>t</mi><mo>/</mo><mn>500</mn></mrow></mrow>")
    assert r"e^{- \frac{t}{500}}" in block  # the LaTeX source is sympy's, unchanged
    # a compound numerator and denominator keep their parentheses
    block = _formula(sympy.exp((t + 1) / (2 * t + 3)), "u", sympy.Symbol("t"))
    text = re.sub(r"<[^>]+>", "", exponent_of(math_of(block)))
    assert text.replace("\u2062", "") == "(t+1)/(2t+3)"
    # a fraction outside an exponent stays a fraction
    assert "<mfrac>" in _formula(t / 500 + 1, "u", sympy.Symbol("t"))


def test_numbers_are_shown_to_4_digits_with_the_full_values_one_click_away():
    import sympy

    from maxent_util.report import _formula

    t = sympy.Symbol("t", positive=True)
    value = sympy.Float("0.123456789012345", 15)
    block = _formula(sympy.exp(-value * t), "u", sympy.Symbol("t"))
    assert "<mn>0.1235</mn>" in math_of(block)
    assert "<summary>LaTeX, full values</summary>" in block
    assert "0.123456789012345" in block.split("<details>")[1]


def test_a_designed_utility_lists_its_constraints(tmp_path, monkeypatch):
    examples = Path(__file__).parent.parent / "examples"
    monkeypatch.chdir(tmp_path)
    assert main(["design", "--answers", str(examples / "answers.toml"), "--json",
                 "design.json"]) == 0
    assert main(["report", str(examples / "results.csv"), "--utility", "@design.json",
                 "--par", "2", "-o", "page.html", "--resamples", "20"]) == 0
    page = (tmp_path / "page.html").read_text(encoding="utf-8")
    text = prose(page)
    assert "no constraints on the captime are recorded" not in text
    # the answers of examples/answers.toml, each with the constraint the designer made of it
    assert re.search(r"never wait longer than 1h: +Support\(0, 3600\)", text)
    assert re.search(r"half the time you would stop before 10min: +"
                     r"TailProbability\(600, 1/2\)", text)
    assert "(3 constraints)" in text


def test_the_command_names_no_folder(tmp_path, monkeypatch):
    from maxent_util.cli.report import _without_folders

    (tmp_path / "design.json").write_text("{}")
    assert _without_folders(f"@{tmp_path / 'design.json'}") == "@design.json"
    assert _without_folders(f"--output={tmp_path / 'new' / 'page.html'}") == "--output=page.html"
    assert _without_folders(str(BUNDLED / "r_main.csv")) == "r_main.csv"
    # expressions and numbers are kept as typed
    for word in ("exp(-t/10)", "pareto(60, 1)", "5000", "--cutoff", "t/2"):
        assert _without_folders(word) == word
