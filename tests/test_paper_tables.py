"""``compare`` and ``sweep`` (and ``rank --ci``) as tables for a paper: the dagger that marks a
difference from the best that is not significant sits exactly where scipy's Wilcoxon test,
run here on the per-instance values and Holm-adjusted by a loop written for the test, says so;
the Markdown parses (markdown-it) into the right rows; the LaTeX compiles; no name breaks
either table."""

from __future__ import annotations

import html
import io
import json
import math
import re
import shutil
import subprocess
from pathlib import Path

import pandas as pd
import pytest
import scipy.stats
from hypothesis import example, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from maxent_util import PAR, Solved, families, parse_rule, per_instance
from maxent_util.cli import main
from maxent_util.cli.tables import comparison_table, ranking_table, sweep_table
from maxent_util.comparison import compare

RESULTS = Path(__file__).parent.parent / "examples" / "results.csv"
RULES = {"exponential(100)": parse_rule("exponential(100)"), "PAR-2": PAR(2),
         "solved": Solved()}
FLAGS = ["--par", "2", "--solved", "--utility", "exponential(100)"]
MD = MarkdownIt("commonmark").enable("table")
DAGGER = "\u2020"


@pytest.fixture(scope="module")
def runs():
    return pd.read_csv(RESULTS)


def run(capsys, *arguments) -> str:
    assert main(list(arguments)) == 0
    return capsys.readouterr().out


def markdown_rows(text: str) -> list[list[str]]:
    """The table's cells as HTML, row by row (header first), as markdown-it renders them."""
    rows, row = [], None
    for token in MD.parse(text):
        if token.type == "tr_open":
            row = []
        elif token.type == "tr_close":
            rows.append(row)
            row = None
        elif token.type == "inline" and row is not None:
            row.append(MD.renderer.renderInline(token.children, MD.options, {}))
    return rows


def plain(cell: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", cell))


def holm(p: list[float]) -> list[float]:
    """Holm's step-down adjustment, written out for the test."""
    order = sorted(range(len(p)), key=lambda i: p[i])
    adjusted, running = [0.0] * len(p), 0.0
    for step, i in enumerate(order):
        running = max(running, min(1.0, (len(p) - step) * p[i]))
        adjusted[i] = running
    return adjusted


def wilcoxon(values: pd.DataFrame, a: str, b: str) -> float:
    differences = (values[a] - values[b]).to_numpy()
    if not differences.any():
        return 1.0
    return float(scipy.stats.wilcoxon(differences).pvalue)


def unclear_against_best(values: pd.DataFrame, best: str, level: float = 0.95) -> set[str]:
    """The algorithms whose Holm-adjusted Wilcoxon p against ``best`` is at least 1 - level."""
    others = [name for name in values.columns if name != best]
    adjusted = holm([wilcoxon(values, name, best) for name in others])
    return {name for name, p in zip(others, adjusted) if p >= 1 - level}


def best_of(values: pd.DataFrame, higher_is_better: bool) -> str:
    means = values.mean()
    top = means.max() if higher_is_better else means.min()
    return sorted(str(name) for name in means.index[means == top])[0]


def test_rank_marks_what_the_wilcoxon_test_cannot_tell_from_the_best(capsys, runs):
    text = run(capsys, "rank", str(RESULTS), *FLAGS, "--ci", "0.95", "--resamples", "200",
               "--markdown")
    rows = markdown_rows(text)
    assert [plain(cell) for cell in rows[0]] == ["algorithm", *RULES]
    table = {plain(row[0]): row[1:] for row in rows[1:]}
    assert len(table) == runs["algorithm"].nunique()
    marked_somewhere = 0
    for column, (name, rule) in enumerate(RULES.items()):
        values = per_instance(runs, rule)
        best = best_of(values, higher_is_better=not isinstance(rule, PAR))
        expected = unclear_against_best(values, best)
        found = {algorithm for algorithm, cells in table.items() if DAGGER in cells[column]}
        assert found == expected, name
        assert table[best][column].startswith("<strong>")
        marked_somewhere += len(found)
    assert marked_somewhere and marked_somewhere < len(RULES) * (len(table) - 1)
    assert text.rstrip().splitlines()[-1].startswith(f"{DAGGER} not significantly different")


def test_compare_two_marks_the_worse_mean_where_the_test_is_unclear(capsys, runs):
    seen = set()
    for a, b in (("pmcomsps", "pmcomspscom"), ("pmcomsps", "pakis")):
        rows = markdown_rows(run(capsys, "compare", str(RESULTS), a, b, *FLAGS,
                                 "--resamples", "200", "--seed", "1", "--markdown"))
        assert [plain(cell) for cell in rows[0]][:3] == ["rule", f"mean {a}", f"mean {b}"]
        assert [plain(row[0]) for row in rows[1:]] == list(RULES)
        for row, (name, rule) in zip(rows[1:], RULES.items()):
            values = per_instance(runs, rule)
            unclear = wilcoxon(values, a, b) >= 0.05
            higher = not isinstance(rule, PAR)
            a_ahead = (values[a].mean() > values[b].mean()) == higher
            ahead, behind = (row[1], row[2]) if a_ahead else (row[2], row[1])
            assert ahead.startswith("<strong>") and DAGGER not in ahead
            assert (DAGGER in behind) == unclear, (a, b, name)
            seen.add(unclear)
            # the difference and its interval are compare's own, to the shown decimals
            result = compare(runs, a, b, {name: rule}, resamples=200, seed=1)
            places = 1 if name.startswith("PAR") else 3
            assert plain(row[3]) == (f"{result.difference:.{places}f} [{result.ci_low:.{places}f},"
                                     f" {result.ci_high:.{places}f}]")
    assert seen == {True, False}


def test_compare_all_marks_by_holm_over_every_pair(capsys, runs):
    text = run(capsys, "compare", str(RESULTS), "--all", "--par", "2", "--resamples", "200",
               "--markdown")
    rows = markdown_rows(text)
    values = per_instance(runs, PAR(2))
    names = list(values.columns)
    pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1:]]
    adjusted = dict(zip(pairs, holm([wilcoxon(values, a, b) for a, b in pairs])))
    best = best_of(values, higher_is_better=False)
    expected = {name for name in names if name != best
                and adjusted.get((best, name), adjusted.get((name, best))) >= 0.05}
    found = {plain(row[0]) for row in rows[1:] if DAGGER in row[1]}
    assert found == expected and expected
    # rows in rank order, each score with its interval
    means = values.mean().sort_values(kind="stable")
    assert [plain(row[0]) for row in rows[1:]] == list(means.index)
    for row in rows[1:]:
        assert re.fullmatch(r"\d+\.\d†? \[\d+\.\d, \d+\.\d\]", plain(row[1]))
    assert f"over all {len(pairs)} pairs" in text


def test_sweep_marks_at_each_interval_s_middle(capsys, runs):
    arguments = ["sweep", str(RESULTS), "--family", "pareto", "--fixed", "alpha=1", "--from",
                 "15", "--to", "40", "--log", "--points", "24", "--top", "9"]
    records = json.loads(run(capsys, *arguments, "--json"))["intervals"]
    rows = markdown_rows(run(capsys, *arguments, "--markdown"))
    assert len(rows) == len(records) + 1 >= 3
    assert [plain(cell) for cell in rows[0]] == ["kappa0", *map(str, range(1, 10))]
    marked = 0
    for row, record in zip(rows[1:], records):
        assert plain(row[0]) == f"[{record['start']:.4g}, {record['end']:.4g}]"
        assert [plain(cell).rstrip(DAGGER) for cell in row[1:]] == record["order"]
        middle = math.sqrt(record["start"] * record["end"])
        values = per_instance(runs, families.pareto(kappa0=middle, alpha=1).utility())
        expected = unclear_against_best(values, best_of(values, higher_is_better=True))
        assert {plain(cell).rstrip(DAGGER) for cell in row[1:] if DAGGER in cell} == expected
        assert row[1].startswith("<strong>")
        marked += len(expected)
    assert marked


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="pdflatex is not installed")
def test_the_tables_compile(tmp_path, capsys):
    tables = [
        run(capsys, "rank", str(RESULTS), *FLAGS, "--ci", "0.95", "--resamples", "100",
            "--latex"),
        run(capsys, "compare", str(RESULTS), "pmcomsps", "pmcomspscom", *FLAGS,
            "--resamples", "100", "--latex"),
        run(capsys, "compare", str(RESULTS), "--all", "--solved", "--resamples", "100",
            "--latex"),
        run(capsys, "sweep", str(RESULTS), "--family", "pareto", "--fixed", "alpha=1",
            "--from", "15", "--to", "40", "--log", "--points", "24", "--latex"),
        hostile_tables([r"[a_b&c%$#{}~^\end{document}", "]`x|y`", "<z>"], latex=True)]
    assert all(r"\textsuperscript{\dag}" in table for table in tables[:4])
    (tmp_path / "t.tex").write_text(
        "\\documentclass{article}\n\\usepackage{booktabs}\n\\begin{document}\n"
        + "\n\n".join(tables) + "\n\\end{document}\n")
    done = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error",
                           "-no-shell-escape", "t.tex"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stdout[-2000:]
    assert (tmp_path / "t.pdf").stat().st_size > 0


class _Result:
    """The fields of a Comparison that comparison_table reads."""

    def __init__(self, a: str, b: str, rule: str) -> None:
        self.a, self.b, self.rule = a, b, rule
        self.mean_a, self.mean_b, self.difference = 0.5, 0.25, 0.25
        self.ci_low, self.ci_high, self.level = 0.1, 0.4, 0.95
        self.wilcoxon_p, self.sign_p, self.significant, self.leader = 0.2, 0.3, False, a


def hostile_tables(names: list[str], *, latex: bool) -> str:
    """Every table kind with ``names`` as algorithms (and as the rule, for compare)."""
    frame = pd.DataFrame({"PAR-2": [float(i) for i in range(len(names))],
                          "PAR-2 rank": list(range(1, len(names) + 1))},
                         index=pd.Index(names, name="algorithm"))
    records = [{"start": 1.0, "end": 2.0, "order": names, "ranks": list(range(1, len(names) + 1))}]
    pair = [_Result(names[0], names[-1], names[0])] if len(names) > 1 else []
    return "\n\n".join(
        [ranking_table(frame, latex=latex, marks={"PAR-2": set(names[1:])}, note="note"),
         sweep_table(records, "kappa0", latex=latex, marks=[set(names[1:])], note="note"),
         *(comparison_table(pair, latex=latex) for _ in pair)])


names = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=12)
hostile = st.text(st.sampled_from(list("\\&%$#_{}~^[]|`*<>!-.a \t\n")), min_size=1,
                  max_size=10)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(names, hostile), min_size=2, max_size=4, unique=True))
@example(["[x]", "a|b", "`c`", "&lt;"])
def test_no_name_breaks_the_tables(algorithms):
    latex = hostile_tables(algorithms, latex=True)
    for line in latex.splitlines():
        if not line.endswith(r" \\") or line.startswith(("rule", "algorithm", "kappa0")):
            continue
        body = line[:-3]
        # no line break, group or column opened by a name
        assert not re.search(r"(?<!\\)\\\\", body)
        unescaped = re.sub(r"\\[&%$#_{}]|\\text[a-z]+\{\}|\{[\[\]]\}", "", body)
        assert unescaped.count("{") == unescaped.count("}")
        assert not re.search(r"(?<!\\)[%$#]", body)
    markdown = hostile_tables(algorithms, latex=False).split("\n\n")
    shown = []
    for text in markdown:
        if text.startswith("|"):
            rows = markdown_rows(text)
            assert len({len(row) for row in rows}) == 1 and len(rows) > 1
            shown.append([" ".join(plain(cell).replace(DAGGER, "").split())
                          for row in rows for cell in row])
    # every name reads back as itself, as a renderer shows it
    a, b = (readable(name) for name in (algorithms[0], algorithms[-1]))
    for name in filter(None, map(readable, algorithms)):
        assert name in shown[0] and name in shown[1]
    assert [f"mean {a}".strip(), f"mean {b}".strip()] == shown[2][1:3]


def readable(name: str) -> str:
    """``name`` as a Markdown renderer shows it: control characters and line breaks as spaces,
    runs of space as one."""
    return " ".join("".join(" " if ch.isspace() or ord(ch) < 32 or 0x7f <= ord(ch) < 0xa0
                            or ch in "\u2028\u2029" else ch for ch in name).split())
