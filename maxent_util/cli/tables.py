"""Tables for a paper, LaTeX (booktabs) or Markdown: ``rank``, ``compare`` and ``sweep``.

The one place where a table is formatted. The best under each rule is in
bold; an interval follows its value, ``0.452 [0.431, 0.470]``; a dagger
marks a value whose difference from the best is not significant (the
command computes which, and the table's note says by which test at which
level). Every name from the data is escaped for the target (LaTeX's ten
special characters, Markdown's punctuation), so a solver named ``a_b&c`` or
``x|y`` cannot break the table.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from .core import _percent

# the characters LaTeX gives a meaning, as text (textcomp-free, for plain pdflatex)
_LATEX = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
          "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}",
          "^": r"\textasciicircum{}", "<": r"\textless{}", ">": r"\textgreater{}",
          # a cell opening with [ after \\ or \midrule would be read as their optional argument
          "[": "{[}", "]": "{]}"}
# & too: a name such as "&lt;" would otherwise be read as an entity
_MARKDOWN = set("\\`*_{}[]()<>#+-.!|~&")


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


@dataclass(frozen=True)
class _Target:
    """How one output format writes text, bold, the mark and the note."""

    text: Callable[[str], str]
    bold: Callable[[str], str]
    mark: str


_TO_LATEX = _Target(latex_text, lambda text: rf"\textbf{{{text}}}", r"\textsuperscript{\dag}")
# emphasis cannot open on a space (CommonMark's flanking rule): ** a** would show its stars
_TO_MARKDOWN = _Target(markdown_text,
                       lambda text: f"**{text.strip()}**" if text.strip() else text, "\u2020")


def _target(latex: bool) -> _Target:
    return _TO_LATEX if latex else _TO_MARKDOWN


def _value(target: _Target, value: float, places: int, *, bold: bool = False,
           mark: bool = False, interval: tuple[float, float] | None = None) -> str:
    """One number: bold, marked, and followed by its interval when asked."""
    if not np.isfinite(value):
        return "n/a"
    text = f"{value:.{places}f}"
    text = (target.bold(text) if bold else text) + (target.mark if mark else "")
    if interval is not None:
        text += f" [{interval[0]:.{places}f}, {interval[1]:.{places}f}]"
    return text


def _render(target: _Target, header: Sequence[str], rows: Sequence[Sequence[str]],
            note: str | None) -> str:
    """The table: ``header`` (plain text) over ``rows`` (cells already in the target's form),
    the first column left-aligned and the others right-aligned, and the note under it."""
    if target is _TO_LATEX:
        lines = [rf"\begin{{tabular}}{{l{'r' * (len(header) - 1)}}}", r"\toprule",
                 " & ".join(map(latex_text, header)) + r" \\", r"\midrule",
                 *(" & ".join(cells) + r" \\" for cells in rows),
                 r"\bottomrule", r"\end{tabular}"]
        if note:
            # under the tabular, not in it: a long note would widen the last column
            lines.append(rf"\par\smallskip{{\footnotesize {target.mark}\,{latex_text(note)}\par}}")
        return "\n".join(lines)
    lines = ["| " + " | ".join(map(markdown_text, header)) + " |",
             "|:---|" + "---:|" * (len(header) - 1),
             *("| " + " | ".join(cells) + " |" for cells in rows)]
    if note:
        # the note is the library's own words (no name from the data), kept readable as text
        lines += ["", f"{target.mark} {note}"]
    return "\n".join(lines)


def _rank_rows(frame: Any, target: _Target, marks: Mapping[str, Any]
               ) -> tuple[list[str], list[list[str]]]:
    """The rules, and per algorithm the cell of each rule: the score, its interval with --ci,
    in bold where the rank is 1, marked where ``marks[rule]`` holds the algorithm."""
    rules = [c[: -len(" rank")] for c in frame.columns if c.endswith(" rank")]
    rows: list[list[str]] = [[target.text(name)] for name in frame.index]
    for rule in rules:
        places = _decimals(rule)
        low, high = frame.get(f"{rule} ci low"), frame.get(f"{rule} ci high")
        marked = marks.get(rule, ())
        for i, (name, score, rank) in enumerate(zip(frame.index, frame[rule].to_numpy(float),
                                                    frame[f"{rule} rank"])):
            interval = None if low is None or high is None else (float(low.iloc[i]),
                                                                  float(high.iloc[i]))
            rows[i].append(_value(target, score, places, bold=rank == 1,
                                  mark=name in marked, interval=interval))
    return rules, rows


def ranking_table(frame: Any, *, latex: bool, marks: Mapping[str, Any] | None = None,
                  note: str | None = None) -> str:
    """A ranking (``rank``'s frame) as a table: one row per algorithm, one column per rule.

    ``marks`` maps a rule to the algorithms whose difference from the best
    under it is not significant (marked with a dagger); ``note`` says what
    the mark means, under the table.
    """
    target = _target(latex)
    rules, rows = _rank_rows(frame, target, marks or {})
    return _render(target, ["algorithm", *rules], rows, note if marks else None)


def latex_table(frame: Any, *, marks: Mapping[str, Any] | None = None,
                note: str | None = None) -> str:
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
    return ranking_table(frame, latex=True, marks=marks, note=note)


def markdown_table(frame: Any, *, marks: Mapping[str, Any] | None = None,
                   note: str | None = None) -> str:
    """A ranking (``rank``'s frame) as a Markdown (GitHub) table, the best per rule in bold.

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"PAR-2": [3.5, 60.5], "PAR-2 rank": [1, 2]},
    ...                      index=pd.Index(["c|1", "k"], name="algorithm"))
    >>> print(markdown_table(frame, marks={"PAR-2": {"k"}}, note="not far from the best"))
    | algorithm | PAR\\-2 |
    |:---|---:|
    | c\\|1 | **3.5** |
    | k | 60.5\u2020 |
    <BLANKLINE>
    \u2020 not far from the best
    """
    return ranking_table(frame, latex=False, marks=marks, note=note)


def comparison_table(results: Sequence[Any], *, latex: bool) -> str:
    """``compare A B``'s results (one :class:`~maxent_util.comparison.Comparison` per rule) as
    a table: one row per rule with both means (the better in bold, the other marked when the
    Wilcoxon test cannot tell them apart), the difference with its interval, both p-values."""
    target = _target(latex)
    first = results[0]
    rows = []
    for result in results:
        places = 1 if result.rule.startswith("PAR") else 3
        leader = result.leader
        unclear = not result.significant
        means = [_value(target, mean, places, bold=leader in (None, name),
                        mark=unclear and leader not in (None, name))
                 for name, mean in ((result.a, result.mean_a), (result.b, result.mean_b))]
        rows.append([target.text(result.rule), *means,
                     _value(target, result.difference, places,
                            interval=(result.ci_low, result.ci_high)),
                     f"{result.wilcoxon_p:.3g}", f"{result.sign_p:.3g}"])
    level = _percent(first.level)
    header = ["rule", f"mean {first.a}", f"mean {first.b}",
              f"{first.a} - {first.b} [{level} interval]", "Wilcoxon p", "sign p"]
    note = None
    if any(not result.significant and result.leader is not None for result in results):
        note = (f"not significantly different from the better of the two: two-sided Wilcoxon "
                f"signed-rank test paired by instance, p of at least {1 - first.level:.10g}; "
                "intervals: paired bootstrap percentile intervals of the mean difference")
    return _render(target, header, rows, note)


def sweep_table(records: Sequence[Mapping[str, Any]], parameter: str, *, latex: bool,
                marks: Sequence[Any] = (), note: str | None = None) -> str:
    """``sweep``'s intervals as a table: one row per interval of ``parameter``, its top
    algorithms in order (the leader in bold, a rank shown where ties make it differ from the
    place), and in ``marks[row]`` the ones to mark."""
    target = _target(latex)
    top = max((len(record["order"]) for record in records), default=0)
    rows = []
    for index, record in enumerate(records):
        marked = marks[index] if index < len(marks) else ()
        cells = [target.text(f"[{record['start']:.4g}, {record['end']:.4g}]")]
        for place, (name, rank) in enumerate(zip(record["order"], record["ranks"]), start=1):
            text = target.text(name) + ("" if rank == place else f" ({rank})")
            cells.append((target.bold(text) if rank == 1 else text)
                         + (target.mark if name in marked else ""))
        rows.append(cells + [""] * (top + 1 - len(cells)))
    return _render(target, [parameter, *map(str, range(1, top + 1))], rows,
                   note if any(marks) else None)
