"""A ranking as a table for a paper: LaTeX (booktabs) or Markdown.

Each rule is a column; the best score under each rule (rank 1) is in bold;
with ``--ci`` a score is followed by its interval, ``0.452 [0.431, 0.470]``.
Every name from the data is escaped for the target (LaTeX's ten special
characters, Markdown's punctuation), so a solver named ``a_b&c`` or ``x|y``
cannot break the table.
"""

from __future__ import annotations

import unicodedata
from typing import Any, Callable

import numpy as np

# the characters LaTeX gives a meaning, as text (textcomp-free, for plain pdflatex)
_LATEX = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
          "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}",
          "^": r"\textasciicircum{}", "<": r"\textless{}", ">": r"\textgreater{}"}
_MARKDOWN = set("\\`*_{}[]()<>#+-.!|~")


def _breaks_a_line(char: str) -> bool:
    """Control characters and Unicode's line and paragraph separators: U+0085, U+2028 and
    U+2029 end a line for str.splitlines and for many editors, as a newline does."""
    return unicodedata.category(char) in ("Cc", "Zl", "Zp")


def latex_text(text: str) -> str:
    """``text`` as LaTeX text: special characters escaped, control characters dropped."""
    return "".join(_LATEX.get(char, char) for char in str(text) if not _breaks_a_line(char))


def markdown_text(text: str) -> str:
    """``text`` as one Markdown table cell: punctuation backslash-escaped, lines joined."""
    return "".join("\\" + char if char in _MARKDOWN else (" " if _breaks_a_line(char) else char)
                   for char in str(text))


def _decimals(rule: str) -> int:
    return 1 if rule.startswith("PAR") else (0 if rule == "solved" else 3)


def _cells(frame: Any, bold: Callable[[str], str]) -> tuple[list[str], list[list[str]]]:
    """The rules, and per algorithm the cell of each rule: the score, its interval with --ci,
    in bold where the rank is 1."""
    rules = [c[: -len(" rank")] for c in frame.columns if c.endswith(" rank")]
    rows = [[] for _ in range(len(frame))]
    for rule in rules:
        places = _decimals(rule)
        scores = frame[rule].to_numpy(dtype=float)
        ranks = frame[f"{rule} rank"].to_numpy()
        low = frame.get(f"{rule} ci low")
        high = frame.get(f"{rule} ci high")
        for i, score in enumerate(scores):
            text = "n/a" if not np.isfinite(score) else f"{score:.{places}f}"
            if ranks[i] == 1 and np.isfinite(score):
                text = bold(text)
            if low is not None and high is not None:
                text += f" [{float(low.iloc[i]):.{places}f}, {float(high.iloc[i]):.{places}f}]"
            rows[i].append(text)
    return rules, rows


def latex_table(frame: Any) -> str:
    """A ranking (``rank``'s frame) as a booktabs tabular, the best per rule in bold.

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"PAR-2": [3.5, 60.5], "PAR-2 rank": [1, 2]},
    ...                      index=pd.Index(["c_1", "k"], name="algorithm"))
    >>> print(latex_table(frame))
    \\begin{tabular}{lr}
    \\toprule
    algorithm & PAR-2 \\\\
    \\midrule
    c\\_1 & \\textbf{3.5} \\\\
    k & 60.5 \\\\
    \\bottomrule
    \\end{tabular}
    """
    rules, rows = _cells(frame, lambda text: rf"\textbf{{{text}}}")
    lines = [rf"\begin{{tabular}}{{l{'r' * len(rules)}}}", r"\toprule",
             " & ".join(["algorithm", *map(latex_text, rules)]) + r" \\", r"\midrule"]
    for name, cells in zip(frame.index, rows):
        lines.append(" & ".join([latex_text(name), *cells]) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}"]
    return "\n".join(lines)


def markdown_table(frame: Any) -> str:
    """A ranking (``rank``'s frame) as a Markdown (GitHub) table, the best per rule in bold.

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"PAR-2": [3.5, 60.5], "PAR-2 rank": [1, 2]},
    ...                      index=pd.Index(["c|1", "k"], name="algorithm"))
    >>> print(markdown_table(frame))
    | algorithm | PAR\\-2 |
    |:---|---:|
    | c\\|1 | **3.5** |
    | k | 60.5 |
    """
    rules, rows = _cells(frame, lambda text: f"**{text}**")
    lines = ["| " + " | ".join(["algorithm", *map(markdown_text, rules)]) + " |",
             "|:---|" + "---:|" * len(rules)]
    for name, cells in zip(frame.index, rows):
        lines.append("| " + " | ".join([markdown_text(name), *cells]) + " |")
    return "\n".join(lines)
