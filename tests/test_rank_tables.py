"""``rank --latex`` and ``rank --markdown``: a ranking as a table for a paper. The LaTeX
compiles with pdflatex (booktabs), the best score per rule is in bold, intervals read
``0.452 [0.431, 0.470]``, and no name from the data can break either table."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from maxent_util.cli import main
from maxent_util.cli.tables import latex_table, markdown_table

EXAMPLES = Path(__file__).parent.parent / "examples"


def rank_output(capsys, *flags):
    assert main(["rank", str(EXAMPLES / "results.csv"), "--par", "2", "--solved",
                 "--utility", "exponential(100)", *flags]) == 0
    return capsys.readouterr().out


def best_rows(capsys) -> dict[str, str]:
    """Per rule, the algorithm ranked 1, from rank --csv."""
    frame = pd.read_csv(pd.io.common.StringIO(rank_output(capsys, "--csv")), index_col=0)
    return {rule: frame.index[frame[f"{rule} rank"] == 1].tolist()
            for rule in ("exponential(100)", "PAR-2", "solved")}


def test_markdown_bolds_the_best_per_rule(capsys):
    best = best_rows(capsys)
    lines = rank_output(capsys, "--markdown").strip().splitlines()
    assert lines[0] == r"| algorithm | exponential\(100\) | PAR\-2 | solved |"
    assert lines[1] == "|:---|---:|---:|---:|"
    for column, rule in enumerate(("exponential(100)", "PAR-2", "solved"), start=1):
        bold = [line.split(" | ")[0].lstrip("| ") for line in lines[2:]
                if line.strip("|").split("|")[column].strip().startswith("**")]
        assert bold == best[rule]


def test_latex_intervals_and_bold(capsys):
    best = best_rows(capsys)
    text = rank_output(capsys, "--latex", "--ci", "0.95", "--resamples", "200")
    rows = [line for line in text.splitlines() if line.endswith(r"\\")][1:]
    for row in rows:
        cells = [cell.strip() for cell in row[:-2].split(" & ")]
        for cell in cells[1:]:
            # the dagger: not significantly different from the best (tests/test_paper_tables.py)
            assert re.fullmatch(r"(\\textbf\{)?\d+(\.\d+)?\}?(\\textsuperscript\{\\dag\})? "
                                r"\[\d+(\.\d+)?, \d+(\.\d+)?\]", cell)
    bold_par = [row.split(" & ")[0] for row in rows if r"\textbf" in row.split(" & ")[2]]
    assert bold_par == best["PAR-2"]


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="pdflatex is not installed")
def test_the_latex_compiles(tmp_path, capsys):
    table = rank_output(capsys, "--latex", "--ci", "0.95", "--resamples", "200")
    hostile = latex_table(pd.DataFrame(
        {"PAR-2": [1.0, 2.0], "PAR-2 rank": [1, 2]},
        index=pd.Index([r"a_b&c%$#{}~^\end{document}", "<x>"], name="algorithm")))
    (tmp_path / "t.tex").write_text(
        "\\documentclass{article}\n\\usepackage{booktabs}\n\\begin{document}\n"
        f"{table}\n\n{hostile}\n\\end{{document}}\n")
    done = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error",
                           "-no-shell-escape", "t.tex"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stdout[-2000:]
    assert (tmp_path / "t.pdf").stat().st_size > 0


names = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=12)


@settings(max_examples=60, deadline=None)
@given(st.lists(names, min_size=1, max_size=4, unique=True))
@example(["\x85", "a\u2028b", "c\u2029"])  # line breaks for str.splitlines, not control <" "
def test_no_name_breaks_a_table(algorithms):
    frame = pd.DataFrame({"PAR-2": [float(i) for i in range(len(algorithms))],
                          "PAR-2 rank": list(range(1, len(algorithms) + 1))},
                         index=pd.Index(algorithms, name="algorithm"))
    latex = latex_table(frame).splitlines()
    body = latex[4:-2]
    assert len(body) == len(algorithms)
    for line in body:
        # one column separator per rule, no line break or group left open by a name
        assert len(re.findall(r"(?<!\\)&", line)) == 1 and line.endswith(r" \\")
        unescaped = re.sub(r"\\[&%$#_{}]|\\text[a-z]+\{\}", "", line[:-3])
        assert unescaped.count("{") == unescaped.count("}")
        assert "%" not in unescaped and "$" not in unescaped and "#" not in unescaped
    markdown = markdown_table(frame).splitlines()[2:]
    assert len(markdown) == len(algorithms)
    for line in markdown:
        assert len(re.findall(r"(?<!\\)\|", line)) == 3
