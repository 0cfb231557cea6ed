"""One self-contained HTML page about a runtime table: rankings, figures, utilities, provenance.

:func:`report_html` builds the page and :func:`write_report` writes it. The
page needs nothing from elsewhere: figures are inline SVG, formulas MathML,
styles are inline, and a Content-Security-Policy forbids the browser to load
anything, so it can be mailed, archived and opened offline as it is. Its one
script (the explorer's slider, a fixed text whose data sit in a JSON block)
is allowed by its sha256 in that policy; no other script can run.

Everything that comes from data (algorithm, instance and rule names, file
names, notes, formulas) is escaped with :func:`html.escape`, or in the JSON
block as ``\u003c`` escapes; the bump chart, cactus and survival figures are
written by :mod:`maxent_util.svgfigures` (no matplotlib on a page's path), the
optional sweep figure by matplotlib's SVG writer, both escaping the text they
draw.

The page is a list of *sections*, each made by one function that receives
the :class:`ReportData` (the table, the rules, the ranking, the provenance)
and returns an HTML fragment, or None to leave the section out. A function
decorated with :func:`section` joins :data:`SECTIONS` in the order of
definition; nothing else needs to change for a new section to appear on the
page and in its table of contents.
"""

from __future__ import annotations

import base64
import contextvars
import datetime
import hashlib
import html
import json
import os
import re
import threading
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import numpy as np
import pandas as pd
import sympy
from sympy.core.function import AppliedUndef
from sympy.printing.mathml import MathMLPresentationPrinter

from . import plots
from ._output import writable, write
from ._version import __version__
from .distribution import CaptimeDistribution
from .durations import readable_duration
from .errors import DataError, ExportError, UtilityError, argument_message, short
from .families import FAMILIES
from .io import FAILURE_STATUSES, validate_table
from .io.limits import compression_of, split_member
from .io.table import NamedBytes
from .comparison import pairwise
from .ranking import rank
from .rules import PAR, Solved, parse_rule
from . import svgfigures, sweeps
from .utility import Utility

__all__ = ["FORMAT_NOTES", "ReportData", "SECTIONS", "Section", "report_html", "section",
           "write_report"]

#: What each reader did to the published file, shown with the data's provenance.
FORMAT_NOTES: dict[str, str] = {
    "satcomp": "Read as a SAT Competition results table (one column per solver): 'timeout' "
               "cells and times at or above the cutoff are capped runs with runtime the "
               "cutoff; 'memout' and 'unverified' cells are failures, also with runtime the "
               "cutoff.",
    "long": "Read as a long CSV (one row per run: algorithm, instance, runtime, status, "
            "cutoff); a 'timeout' status counts as 'capped', a missing status as 'solved'.",
    "aslib": "Read as an ASlib algorithm_runs.arff: runstatus 'ok' is solved ('ok' at or above "
             "the cutoff is capped), 'timeout' is capped, 'memout' a failure, 'crash', "
             "'other' and 'not_applicable' are crashes; repetitions are runs of their own.",
}

# Suffixes of rank()'s columns for one rule, in the order the page shows them, with headers.
_RULE_COLUMNS: tuple[tuple[str, str], ...] = (
    ("", "score"), (" lower", "lower"), (" upper", "upper"), (" ci low", "CI low"),
    (" ci high", "CI high"), (" rank", "rank"))

# Numeric multipliers and fitted parameters carry 15 to 30 digits; a formula shows 4
# significant ones, and its LaTeX, one click away, keeps them all.
_DIGITS = 4

_CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2rem auto;
       max-width: 72rem; padding: 0 1rem; color: #1a1a1a; line-height: 1.45; }
h1 { font-size: 1.6rem; margin-bottom: 0.2rem; }
h2 { font-size: 1.3rem; border-bottom: 1px solid #ccc; padding-bottom: 0.2rem; margin-top: 2.2rem; }
h3 { font-size: 1.1rem; margin-bottom: 0.3rem; }
nav ol { columns: 2; }
table { border-collapse: collapse; font-size: 0.85rem; margin: 0.8rem 0; }
th, td { border: 1px solid #d0d0d0; padding: 0.15rem 0.45rem; }
thead th { background: #f0f0f0; position: sticky; top: 0; }
tbody tr:nth-child(even) { background: #fafafa; }
td.number { text-align: right; font-variant-numeric: tabular-nums; }
th[scope=row] { text-align: left; font-weight: normal; }
.scroll { overflow-x: auto; }
table.compact th[scope=row] { max-width: 16rem; overflow-wrap: anywhere; }
table.compact thead th { font-size: 0.8rem; }
table.compact td.rank { border-left: 2px solid #aaa; color: #555; }
details.rule > summary h3 { display: inline; }
details.rule { margin: 0.6rem 0; }
.rule-detail { display: flex; flex-wrap: wrap; gap: 0 2rem; align-items: flex-start; }
.rule-detail > * { max-width: 100%; }
table.matrix { font-size: 0.7rem; }
table.matrix td, table.matrix thead th { width: 0.85rem; min-width: 0.85rem; padding: 0;
                                        text-align: center; line-height: 1.1; }
table.matrix thead th { font-size: 0.55rem; font-weight: normal; letter-spacing: -0.03rem; }
table.matrix th[scope=row] { white-space: nowrap; padding-right: 0.4rem; }
table.matrix td.better { background: #cfe8cf; }
table.matrix td.worse { background: #f3d0cc; }
table.matrix td.same { color: #999; }
table.matrix td.self { background: #e4e4e4; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 0.2rem 1rem; }
dl.facts dt { font-weight: 600; }
dl.facts dd { margin: 0; overflow-wrap: anywhere; }
div.formula { margin: 0.4rem 0 0.8rem; overflow-x: auto; }
div.formula math { font-size: 1.15rem; display: block math; text-align: left; }
div.formula details { font-size: 0.8rem; }
div.formula pre { background: #f7f7f7; padding: 0.4rem; overflow-x: auto; white-space: pre-wrap; }
code, pre { font-family: "DejaVu Sans Mono", Menlo, Consolas, monospace; }
figure { margin: 1rem 0; }
figure svg { max-width: 100%; height: auto; }
figure svg * { stroke-linejoin: round; stroke-linecap: butt; }
figcaption { font-size: 0.9rem; color: #444; max-width: 60rem; }
.note { color: #444; font-size: 0.9rem; }
.explorer input[type=range] { width: min(40rem, 90%); vertical-align: middle; }
.explorer ol { columns: 4 16rem; column-gap: 1.5rem; font-size: 0.85rem; background: #fafafa;
               border: 1px solid #ddd; padding: 0.4rem 0.6rem; list-style-position: inside; }
/* the rank inside each item (an outside marker sits in the column to the left), the name's
   later lines hung under it, and a long name broken anywhere rather than run into the next
   column */
.explorer li { break-inside: avoid; padding-left: 2.4em; text-indent: -2.4em;
               overflow-wrap: anywhere; }
.explorer li .score { color: #555; font-variant-numeric: tabular-nums; white-space: nowrap; }
"""

# The page loads nothing: no script, no font, no image, no connection.
# (The explorer adds its own script by hash: _EXPLORER_POLICY.)
_POLICY = "default-src 'none'; style-src 'unsafe-inline'"


def _e(value: Any) -> str:
    """Text from anywhere, made safe for HTML text and quoted attribute values."""
    return html.escape(str(value), quote=True)


# ---------------------------------------------------------------------------
# the data every section reads


@dataclass(frozen=True)
class ReportData:
    """What the sections of a report are made from.

    Attributes
    ----------
    table : pandas.DataFrame
        The long runtime table.
    rules : tuple of (str, object)
        The rules, by display name, as given to :func:`maxent_util.rank`.
    ranking : pandas.DataFrame
        ``rank(table, rules, bounds=True, ...)``: per rule the score, its
        lower and upper bounds, its rank (and whatever other columns that
        call returns, such as confidence intervals).
    label : str
        How the data are named on the page.
    provenance : tuple of (str, str)
        Facts about the data and the run, as plain text (escaped when shown).
    notes : tuple of str
        What the reader and the caller did to the data.
    options : dict
        The caller's ``ci``, ``resamples``, ``seed``, ``duplicates`` and
        ``missing``, for sections that compare algorithms again.
    sweep : dict or None
        The keywords of :func:`~maxent_util.sweeps.ranking_changes` (``family``,
        ``parameter``, ``bounds`` and the fixed parameters) when the caller asked
        for a sweep section.
    explore : dict, True or None
        The explorer's family, parameter, bounds and fixed parameters; True for
        the default (see :func:`report_html`), None for no explorer.
    command : str or None
        The command that made the page (shown folded), if known.
    designs : dict
        Per rule name, the answers and constraints a designed utility was made from.
    """

    table: pd.DataFrame
    rules: tuple[tuple[str, Any], ...]
    ranking: pd.DataFrame
    label: str
    provenance: tuple[tuple[str, str], ...]
    notes: tuple[str, ...]
    options: Mapping[str, Any] = field(default_factory=dict)
    sweep: Mapping[str, Any] | None = None
    explore: Mapping[str, Any] | bool | None = None
    command: str | None = None
    designs: Mapping[str, tuple[tuple[str, str], ...]] = field(default_factory=dict)

    @property
    def utilities(self) -> list[tuple[str, Utility]]:
        """The rules that are utilities (not PAR or Solved), as :class:`Utility` objects."""
        return [(name, rule if isinstance(rule, Utility) else Utility(rule, name=name))
                for name, rule in self.rules if not isinstance(rule, (PAR, Solved))]


@dataclass(frozen=True)
class Section:
    """One part of the page: an anchor, a heading, and the function that writes its body."""

    id: str
    title: str
    render: Callable[[ReportData], str | None]


#: The page's sections, in order; :func:`section` adds to it.
SECTIONS: list[Section] = []


def section(id: str, title: str) -> Callable[[Callable[[ReportData], str | None]],
                                             Callable[[ReportData], str | None]]:
    """Register a function as a section of the report, after the ones already registered.

    The function receives the :class:`ReportData` and returns the section's
    body as HTML (everything taken from data escaped with :func:`html.escape`),
    or None to leave the section out of this page.

    Parameters
    ----------
    id : str
        The section's anchor (letters, digits and ``-``), unique.
    title : str
        Its heading, also shown in the table of contents.

    Returns
    -------
    callable
        A decorator that registers the function and returns it unchanged.

    Raises
    ------
    UtilityError
        If ``id`` is not an anchor or is taken.

    Examples
    --------
    >>> @section("runs-per-status", "Runs per status")
    ... def _statuses(data):
    ...     counts = data.table["status"].value_counts()
    ...     return "<ul>" + "".join(f"<li>{_e(s)}: {n}</li>" for s, n in counts.items()) + "</ul>"
    >>> SECTIONS[-1].title
    'Runs per status'
    >>> _ = SECTIONS.pop()  # (the example leaves the report as it was)
    """
    if not (isinstance(id, str) and re.fullmatch(r"[A-Za-z][A-Za-z0-9-]*", id)):
        raise UtilityError(argument_message("id", "section", "an anchor of letters, digits and "
                                            "'-', starting with a letter", id))
    if any(existing.id == id for existing in SECTIONS):
        raise UtilityError(argument_message("id", "section", "not yet taken by another section",
                                            id))

    def register(render: Callable[[ReportData], str | None]) -> Callable[[ReportData], str | None]:
        SECTIONS.append(Section(id, str(title), render))
        return render

    return register


# ---------------------------------------------------------------------------
# pieces of HTML


def _figure(figure: Any, prefix: str, label: str, caption: str) -> str:
    """A matplotlib figure with its caption (its ids start with ``prefix``)."""
    return _drawn(plots.to_svg(figure, id_prefix=prefix), label, caption)


def _drawn(svg: str, label: str, caption: str) -> str:
    """An ``<svg>`` element, labelled for screen readers, with its caption."""
    svg = svg.replace("<svg", f'<svg role="img" aria-label="{_e(label)}"', 1)
    return f"<figure>{svg}<figcaption>{caption}</figcaption></figure>"


def _short(expr: Any) -> Any:
    floats = expr.atoms(sympy.Float) if isinstance(expr, sympy.Basic) else set()
    return expr.xreplace({f: sympy.Float(f, _DIGITS) for f in floats}) if floats else expr


def _inline_fractions(node: Any, exponent: bool = False) -> None:
    """Fractions in an exponent written inline, ``e^{-t/500}`` rather than a fraction two
    script levels down, which browsers draw too small to read."""
    children = list(node.childNodes)
    for index, child in enumerate(children):
        if child.nodeType != child.ELEMENT_NODE:
            continue
        # the exponent of msup is its second child, of msubsup its third
        script = node.tagName in ("msup", "msubsup") and index == len(children) - 1
        inner = exponent or script
        _inline_fractions(child, inner)
        if inner and child.tagName == "mfrac":
            parts = [part for part in child.childNodes if part.nodeType == part.ELEMENT_NODE]
            row = node.ownerDocument.createElement("mrow")
            for at, part in enumerate(parts):
                if at:
                    slash = node.ownerDocument.createElement("mo")
                    slash.appendChild(node.ownerDocument.createTextNode("/"))
                    row.appendChild(slash)
                row.appendChild(_grouped(part))
            node.replaceChild(row, child)


def _grouped(part: Any) -> Any:
    """A fraction's numerator or denominator, in parentheses when it is more than one atom."""
    simple = part.tagName in ("mi", "mn") or (
        part.tagName == "mrow" and len([c for c in part.childNodes
                                        if c.nodeType == c.ELEMENT_NODE]) <= 1)
    if simple:
        return part
    document = part.ownerDocument
    row = document.createElement("mrow")
    for text, inner in (("(", None), (None, part), (")", None)):
        if inner is not None:
            row.appendChild(inner)
        else:
            bracket = document.createElement("mo")
            bracket.appendChild(document.createTextNode(text))
            row.appendChild(bracket)
    return row


class _MathMLPrinter(MathMLPresentationPrinter):
    """sympy's presentation MathML printer, with the two forms it lacks: a case-by-case
    definition as a brace, and our undefined functions (E and P of the constraints, u, f, F)
    by their own names (sympy's lower-cases them)."""

    def _element(self, tag: str, *children: Any, text: str | None = None,
                 **attributes: str) -> Any:
        element = self.dom.createElement(tag)
        for key, value in attributes.items():
            element.setAttribute(key, value)
        if text is not None:
            element.appendChild(self.dom.createTextNode(text))
        for child in children:
            element.appendChild(child)
        return element

    def _print_Function(self, e: Any) -> Any:
        if not isinstance(e, AppliedUndef):
            return super()._print_Function(e)
        # the operators E and P upright, functions such as u and f in italics
        name = e.func.__name__
        head = (self._element("mi", text=name, mathvariant="normal") if name in ("E", "P")
                else self._element("mi", text=name))
        return self._element("mrow", head, self._paren_comma_separated(*e.args))

    def _print_Piecewise(self, e: Any) -> Any:
        rows = []
        for value, condition in e.args:
            when = (self._element("mtext", text="otherwise") if condition is sympy.true
                    else self._element("mrow", self._element("mtext", text="if\u2003"),
                                       self._print(condition)))
            rows.append(self._element("mtr", self._element("mtd", self._print(value)),
                                      self._element("mtd", when)))
        return self._element("mrow", self._element("mo", text="{"),
                             self._element("mtable", *rows, columnalign="left",
                                           displaystyle="true"))


def _markup(node: Any) -> str:
    """A node of the printer's DOM as MathML, every text escaped.

    sympy's printer keeps raw markup in its text nodes (entities such as ``&#954;``, but
    also a bare ``<`` for a relation): each text is read as HTML (the entities become
    characters) and escaped again, so no text, not even a symbol named ``<script>``, can
    become a tag.
    """
    if node.nodeType == node.TEXT_NODE:
        return html.escape(html.unescape(node.data), quote=False)
    attributes = "".join(f' {_e(key)}="{_e(html.unescape(value))}"'
                         for key, value in node.attributes.items())
    inner = "".join(_markup(child) for child in node.childNodes)
    return f"<{node.tagName}{attributes}>{inner}</{node.tagName}>"


def _latex(expr: Any) -> str:
    """sympy's LaTeX of ``expr``, printed from its symbols without their assumptions: the same
    text, but for a factor such as e^(-kappa/500) with kappa known positive sympy's printer
    asks whether the exponent, known negative, is a constant, which simplifies it and loads
    sympy.physics.units (0.2 s)."""
    plain = {symbol: sympy.Symbol(symbol.name) for symbol in expr.free_symbols
             if type(symbol) is sympy.Symbol}
    with sympy.evaluate(False):  # the same tree, not evaluated again (an Eq would be decided)
        expr = expr.xreplace(plain)
    return sympy.latex(expr)


def _formula(expr: Any, name: str | None = None, variable: Any = None) -> str:
    """A formula as MathML, drawn by the browser with no script, with its LaTeX source one
    click away; as ``name(variable) = expr`` when a name is given. Floats are shown to
    :data:`_DIGITS` digits, the LaTeX keeps them all."""
    shown, source = _short(expr), expr
    if name is not None:
        head = sympy.Function(name)(variable)
        shown = sympy.Eq(head, shown, evaluate=False)
        source = sympy.Eq(head, source, evaluate=False)
    element = _MathMLPrinter({"ln_notation": False})._print(shown)
    holder = element.ownerDocument.createElement("math")
    holder.appendChild(element)
    _inline_fractions(holder)
    element = holder.firstChild
    # where numbers were shortened, the LaTeX is where their full values are
    summary = "LaTeX, full values" if shown != source else "LaTeX"
    return (f'<div class="formula"><math displaystyle="true">{_markup(element)}</math>'
            f"<details><summary>{summary}</summary><pre><code>{_e(_latex(source))}</code>"
            "</pre></details></div>")


def _number(value: Any, rule: Any, suffix: str) -> str:
    value = float(value)
    if not np.isfinite(value):
        return "n/a"
    if suffix == " rank":
        return f"{value:.0f}"
    if isinstance(rule, PAR):
        return f"{value:.1f}"
    if isinstance(rule, Solved):
        return f"{value:g}"
    return f"{value:.4f}"


def _facts(items: Sequence[tuple[str, str]]) -> str:
    rows = "".join(f"<dt>{_e(key)}</dt><dd>{_e(value)}</dd>" for key, value in items)
    return f'<dl class="facts">{rows}</dl>'


# ---------------------------------------------------------------------------
# the sections, in page order


@section("data", "Data")
def _data_section(data: ReportData) -> str:
    notes = "".join(f"<li>{_e(note)}</li>" for note in data.notes)
    made = ""
    if data.command:
        made = (f'<details class="made"><summary>How this page was made</summary><p>With '
                f'maxent_util {_e(__version__)}, by the command</p><pre><code>'
                f'{_e(data.command)}</code></pre></details>')
    return (_facts(data.provenance) + (f"<h3>Notes</h3><ul>{notes}</ul>" if notes else "")
            + made)


def _ranking_columns(data: ReportData) -> tuple[list[tuple[str, Any, list[tuple[str, str]]]],
                                                 list[str]]:
    """Per rule, the ranking's columns that belong to it (known suffixes, in page order);
    then the columns no rule claims."""
    frame = data.ranking
    claimed: set[str] = set()
    groups = []
    for name, rule in data.rules:
        columns = [(name + suffix, header) for suffix, header in _RULE_COLUMNS
                   if name + suffix in frame.columns]
        claimed.update(column for column, _ in columns)
        if isinstance(rule, (PAR, Solved)):  # a classic rule's bounds are its score
            columns = [(c, h) for c, h in columns if c not in (name + " lower", name + " upper")]
        groups.append((name, rule, columns))
    return groups, [str(c) for c in frame.columns if c not in claimed]


def _cell(value: Any, rule: Any, name: str, column: str) -> str:
    """A number of the ranking as a cell: shown rounded, the exact value in ``data-value``."""
    kind = "number rank" if column == name + " rank" else "number"
    return (f'<td class="{kind}" data-column="{_e(column)}" '
            f'data-value="{_e(repr(float(value)))}">'
            f"{_e(_number(value, rule, column[len(name):]))}</td>")


def _rule_anchor(index: int) -> str:
    return f"rule-{index + 1}"


@section("rankings", "Rankings")
def _rankings_section(data: ReportData) -> str:
    groups, others = _ranking_columns(data)
    frame = data.ranking
    top = ['<th rowspan="2" scope="col">algorithm</th>']
    bottom = []
    for index, (name, _, _) in enumerate(groups):
        top.append(f'<th colspan="2" scope="colgroup"><a href="#{_rule_anchor(index)}">'
                   f"{_e(name)}</a></th>")
        bottom += ['<th scope="col">rank</th>', '<th scope="col">score</th>']
    top += [f'<th rowspan="2" scope="col">{_e(column)}</th>' for column in others]
    rows = []
    for algorithm, row in frame.iterrows():
        cells = [f'<th scope="row">{_e(algorithm)}</th>']
        for name, rule, _ in groups:
            cells += [_cell(row[name + " rank"], rule, name, name + " rank"),
                      _cell(row[name], rule, name, name)]
        for column in others:
            value = row[column]
            shown = repr(float(value)) if isinstance(value, (int, float, np.number)) else value
            cells.append(f'<td data-column="{_e(column)}" data-value="{_e(shown)}">{_e(value)}</td>')
        rows.append(f"<tr>{''.join(cells)}</tr>")
    first = data.rules[0][0]
    intro = (
        "<p>Each algorithm's <em>score</em> under a utility is its mean utility u(t) over its "
        "instances, a capped run or a failure counting 0; PAR-k is the mean penalised runtime "
        "(a run's time, or k times the cutoff if unsolved; lower is better) and 'solved' "
        "counts solved instances. Rank 1 is best; equal scores share a rank. Rows are ordered "
        f"by the rank under {_e(first)}. Each rule's bounds, intervals and paired tests are "
        'under <a href="#uncertainty">its own heading</a> (follow the rule\'s name).</p>')
    return (f'{intro}<div class="scroll"><table class="ranking compact"><thead><tr>'
            f'{"".join(top)}</tr><tr>{"".join(bottom)}</tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table></div>')


# Slider positions of the explorer: values of the scale, log-spaced over its range.
_EXPLORE_POINTS = 121

# The page's one script: it moves the explorer's ranking with its slider. Its text is fixed
# (the data it reads sit in a JSON block beside it), so the Content-Security-Policy allows it
# by its hash and nothing else; it writes names with textContent, never as markup.
_EXPLORER_SCRIPT = """(() => {
  const data = JSON.parse(document.getElementById("explore-data").textContent);
  const slider = document.getElementById("explore-scale");
  const value = document.getElementById("explore-value");
  const leader = document.getElementById("explore-leader");
  const list = document.getElementById("explore-ranking");
  function show() {
    const k = Number(slider.value), order = data.orders[k], ranks = data.ranks[k];
    value.textContent = data.shown[k];
    value.dataset.value = String(data.values[k]);
    leader.textContent = order.filter((_, i) => ranks[i] === 1)
      .map(a => data.algorithms[a]).join(", ");
    list.replaceChildren(...order.map((a, i) => {
      const item = document.createElement("li"), score = document.createElement("span");
      item.value = ranks[i];
      item.dataset.algorithm = data.algorithms[a];
      item.dataset.rank = String(ranks[i]);
      score.className = "score";
      score.textContent = data.scores[k][i].toFixed(4);
      score.dataset.value = String(data.scores[k][i]);
      item.append(data.algorithms[a] + " ", score);
      return item;
    }));
  }
  slider.addEventListener("input", show);
})();"""

#: The policy of a page with the explorer: its script, by hash, and still nothing loaded.
_EXPLORER_POLICY = (_POLICY + "; script-src 'sha256-"
                    + base64.b64encode(hashlib.sha256(_EXPLORER_SCRIPT.encode()).digest()).decode()
                    + "'")


def _json_for_script(value: Any) -> str:
    """JSON to sit inside a ``<script type="application/json">`` element: ``<``, ``>`` and
    ``&`` as \\u escapes, so that no ``</script>`` or ``<!--`` in a name ends the block."""
    text = json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _explore_keywords(data: ReportData) -> dict[str, Any] | None:
    """The family, parameter and range the explorer sweeps: the caller's, or by default the
    first rule that is a preset with a scale kappa0 (its other parameters kept; else the
    exponential), from a second to the cutoff."""
    if data.explore is None:
        return None
    if data.explore is not True:
        return dict(data.explore)
    keywords: dict[str, Any] = {"family": "exponential", "parameter": "kappa0"}
    for _, rule in data.utilities:
        preset = getattr(getattr(rule, "distribution", None), "preset", None)
        if not preset:
            continue
        name, values = preset
        parameters = FAMILIES.get(name, ())
        # piecewise's kappa0 must stay below its kappa1: not a scale to sweep alone
        if parameters[:1] == ("kappa0",) and name != "piecewise":
            keywords = {"family": name, "parameter": "kappa0",
                        **{p: v for p, v in zip(parameters[1:], values[1:])}}
            break
    column = "cutoff" if "cutoff" in data.table.columns else "runtime"
    high = float(data.table[column].to_numpy(dtype=float).max())
    if not (np.isfinite(high) and high > 0):
        return None
    keywords["bounds"] = (1.0, high) if high > 10.0 else (high / 1000.0, high)
    return keywords


@section("explore", "Explore the scale")
def _explore_section(data: ReportData) -> str | None:
    keywords = _explore_keywords(data)
    if keywords is None:
        return None
    low, high = keywords.pop("bounds")
    log = keywords.pop("log", True)
    keywords.pop("points", None)
    options = {"duplicates": data.options["duplicates"], "missing": data.options["missing"]}
    values = np.geomspace(low, high, _EXPLORE_POINTS) if log else \
        np.linspace(low, high, _EXPLORE_POINTS)
    frame = sweeps.sweep(data.table, values=values, **keywords, **options)
    parameter = keywords["parameter"]
    algorithms = sorted(frame["algorithm"].astype(str).unique())
    index = {name: k for k, name in enumerate(algorithms)}
    # sweep gives, value by value in the order given, the algorithms by rank (then name): the
    # rows of each value, in the order of its first row (as groupby(sort=False) gives them)
    group = pd.factorize(frame[parameter])[0]
    rows = np.argsort(group, kind="stable")
    cuts = np.flatnonzero(np.diff(group[rows])) + 1
    every_name = frame["algorithm"].astype(str).to_numpy()[rows].tolist()
    every_rank = frame["rank"].to_numpy().astype(int)[rows].tolist()
    every_score = frame["score"].to_numpy(dtype=float)[rows].tolist()
    orders, ranks, scores, leaders = [], [], [], []
    for start, end in zip([0, *cuts.tolist()], [*cuts.tolist(), len(rows)]):
        names = every_name[start:end]
        orders.append([index[name] for name in names])
        ranks.append(every_rank[start:end])
        scores.append(every_score[start:end])
        leaders.append(tuple(n for n, r in zip(names, ranks[-1]) if r == 1))
    shown = [f"{value:.4g}" for value in values]
    payload = {"family": frame.attrs.get("family", keywords["family"]), "parameter": parameter,
               "values": [float(v) for v in values], "shown": shown, "algorithms": algorithms,
               "orders": orders, "ranks": ranks, "scores": scores}
    start = len(values) // 2
    items = "".join(
        f'<li value="{rank}" data-algorithm="{_e(algorithms[a])}" data-rank="{rank}">'
        f'{_e(algorithms[a])} <span class="score" data-value="{_e(repr(score))}">{score:.4f}'
        "</span></li>"
        for a, rank, score in zip(orders[start], ranks[start], scores[start]))
    changes = [(values[k + 1], leaders[k], leaders[k + 1]) for k in range(len(values) - 1)
               if leaders[k] != leaders[k + 1]]
    moves = ("The leader is the same over the whole range." if not changes else
             f"The leader at {readable_duration(values[0])} is {_e(', '.join(leaders[0]))}; then "
             + "; ".join(f"at {readable_duration(value)} {_e(', '.join(new))}"
                         for value, _, new in changes[:12])
             + ("; ..." if len(changes) > 12 else "") + " (ties share the lead).")
    family = _e(payload["family"])
    intro = (f"<p>The ranking under {family} as its scale {_e(parameter)} runs from "
             f"{readable_duration(low)} to {readable_duration(high)} "
             f"({'log' if log else 'linear'} steps, {len(values)} positions): "
             "move the slider to see who leads at each value. The rankings were computed "
             "when the page was written (<code>maxent_util.sweep</code>); the page's one "
             "script only shows them. " + moves + "</p>")
    return (
        f'{intro}<div class="explorer"><label for="explore-scale">{_e(parameter)}</label> '
        f'<input type="range" id="explore-scale" min="0" max="{len(values) - 1}" step="1" '
        f'value="{start}"> <span>{_e(parameter)} = <output id="explore-value" '
        f'data-value="{_e(repr(float(values[start])))}">{shown[start]}</output> s; leader: '
        f'<strong id="explore-leader">{_e(", ".join(leaders[start]))}</strong></span>'
        f'<ol id="explore-ranking">{items}</ol></div>'
        f'<script type="application/json" id="explore-data">{_json_for_script(payload)}</script>'
        f"<script>{_EXPLORER_SCRIPT}</script>")


@section("sweep", "Which scale decides the ranking")
def _sweep_section(data: ReportData) -> str | None:
    if data.sweep is None:
        return None
    keywords = {**data.sweep, "duplicates": data.options["duplicates"],
                "missing": data.options["missing"]}
    changes = sweeps.ranking_changes(data.table, **keywords)
    low, high = keywords.pop("bounds")
    log = keywords.pop("log", True)
    keywords.pop("points", None)
    values = np.geomspace(low, high, 200) if log else np.linspace(low, high, 200)
    figure = plots.plot_sweep(sweeps.sweep(data.table, values=values, **keywords), changes=changes,
                              log_x=log)
    parameter = _e(keywords["parameter"])
    rows = "".join(
        f'<tr><td class="number" data-value="{_e(repr(float(row.start)))}">{float(row.start):.6g}</td>'
        f'<td class="number" data-value="{_e(repr(float(row.end)))}">{float(row.end):.6g}</td>'
        f"<td>{_e(row.leader)}</td><td>{_e(', '.join(map(str, row.order[:5])))}</td></tr>"
        for row in changes.itertuples())
    intro = (f"<p>The ranking under {_e(changes.attrs.get('family', keywords['family']))} as "
             f"{parameter} runs from {low:g} to {high:g}: the values where the order changes "
             "(refined to 1e-10 relative) and the first five on each interval.</p>")
    table = (f'<div class="scroll"><table class="sweep"><thead><tr><th scope="col">{parameter} from'
             f'</th><th scope="col">to</th><th scope="col">leader</th><th scope="col">order</th></tr>'
             f"</thead><tbody>{rows}</tbody></table></div>")
    return intro + table + _figure(figure, "sweep", f"scores against {keywords['parameter']}",
                                   f"Every algorithm's score as {parameter} varies")


def _highlighted(data: ReportData) -> tuple[list[str], str]:
    """The algorithms every figure draws in colour (the best under the first rule, in the same
    colours in each figure), and a sentence saying so when the others are grey."""
    names = [str(name) for name in data.ranking.index[:plots.HIGHLIGHT]]
    others = len(data.ranking) - len(names)
    if others <= 0:
        return names, ""
    return names, (f" The {len(names)} best under {_e(data.rules[0][0])} are in colour (the "
                   f"same in every figure), the other {others} in grey.")


@section("bump-chart", "Ranks under each rule")
def _bump_section(data: ReportData) -> str:
    names, note = _highlighted(data)
    return _drawn(svgfigures.ranking_svg(data.ranking, highlight=names),
                  "bump chart of the ranks under each rule",
                  "Each line joins an algorithm's ranks under the rules, left to right in the "
                  "order of the table above; rank 1 at the top. Crossing lines are algorithms "
                  "that the rules order differently." + note)


@section("cactus", "Cactus plot")
def _cactus_section(data: ReportData) -> str:
    names, note = _highlighted(data)
    return _drawn(svgfigures.cactus_svg(data.table, highlight=names),
                  "cactus plot of solved instances against runtime",
                  "The SAT Competition's figure: an algorithm's k-th shortest solved runtime "
                  "against k. Further right solves more; lower solves faster. Capped runs "
                  "and failures are left out." + note)


@section("survival", "Runs still running")
def _survival_section(data: ReportData) -> str:
    utilities = data.utilities
    names, note = _highlighted(data)
    figure = svgfigures.survival_svg(data.table, utility=dict(utilities) if utilities else None,
                                     highlight=names)
    overlay = (" The dashed black curves (right axis) are the utilities: an algorithm "
               "scores well under a utility when its curve falls early, while u(t) is still "
               "high." if utilities else "")
    return _drawn(figure, "fraction of runs still running against runtime",
                  "The fraction of each algorithm's runs not yet solved at time t (log axis). "
                  "Capped runs count until their cutoff (a Kaplan-Meier estimate where "
                  "cutoffs differ); failures count as never solved." + overlay + note)


# Above this many algorithms a rule's list of pairs shows neighbours in its ranking only
# (the matrix still shows every pair): 20 algorithms make 190 pairs per rule.
_ALL_PAIRS = 20


def _bounds_table(data: ReportData, name: str, rule: Any, columns: list[tuple[str, str]]
                  ) -> str:
    frame = data.ranking.sort_values([name + " rank"], kind="stable")
    head = "".join(f'<th scope="col">{_e(header)}</th>' for _, header in columns)
    rows = "".join(
        f'<tr><th scope="row">{_e(algorithm)}</th>'
        + "".join(_cell(row[column], rule, name, column) for column, _ in columns) + "</tr>"
        for algorithm, row in frame.iterrows())
    return (f'<div class="scroll"><table class="bounds" data-rule="{_e(name)}"><thead><tr>'
            f'<th scope="col">algorithm</th>{head}</tr></thead><tbody>{rows}</tbody></table></div>')


def _matrix(frame: pd.DataFrame, order: list[str], name: str) -> str:
    """Which differences are real: one row and one column per algorithm in rank order; a
    cell says whether the row's algorithm is significantly better (+), worse (-), or
    neither (.) than the column's."""
    place = {algorithm: index for index, algorithm in enumerate(order)}
    count = len(order)
    marks = [["" for _ in order] for _ in order]
    for (a, b), significant in frame["significant"].items():
        i, j = place[str(a)], place[str(b)]
        marks[i][j], marks[j][i] = ("+", "-") if significant else (".", ".")
    kinds = {"+": "better", "-": "worse", ".": "same", "": "self"}
    head = "".join(f'<th scope="col">{k + 1}</th>' for k in range(count))
    rows = "".join(
        f'<tr><th scope="row">{i + 1}. {_e(algorithm)}</th>'
        + "".join(f'<td class="{kinds[mark]}">{mark}</td>'
                  for mark in marks[i]) + "</tr>"
        for i, algorithm in enumerate(order))
    return (f'<div class="scroll"><table class="matrix" data-rule="{_e(name)}"><thead><tr>'
            f"<th></th>{head}</tr></thead><tbody>{rows}</tbody></table></div>")


def _pairs_table(frame: pd.DataFrame, order: list[str]) -> tuple[str, str]:
    """The paired comparisons as a table (every pair, or neighbours in the ranking when
    there are many algorithms), and a sentence saying which."""
    if len(order) > _ALL_PAIRS:
        neighbours = set(zip(order, order[1:]))
        frame = frame[[(str(a), str(b)) in neighbours for a, b in frame.index]]
        which = (f"the {len(frame)} pairs of neighbours in this ranking (with {len(order)} "
                 "algorithms the list of every pair is long: the matrix above shows them all, "
                 "<code>maxent_util.pairwise</code> lists them)")
    else:
        which = f"all {len(frame)} pairs"
    headers = ["a", "b", *frame.columns]
    rows = []
    for (a, b), row in frame.iterrows():
        cells = [f"<td>{_e(a)}</td>", f"<td>{_e(b)}</td>"]
        for column, value in row.items():
            if column == "significant":
                cells.append(f'<td data-column="{_e(column)}" data-value="{bool(value)}">'
                             f"{'yes' if value else 'no'}</td>")
            else:
                cells.append(f'<td class="number" data-column="{_e(column)}" '
                             f'data-value="{_e(repr(float(value)))}">{float(value):.4g}</td>')
        rows.append(f"<tr>{''.join(cells)}</tr>")
    head = "".join(f'<th scope="col">{_e(h)}</th>' for h in headers)
    return (f'<div class="scroll"><table class="pairwise"><thead><tr>{head}</tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table></div>', which)


class _PairedTests:
    """The paired tests of every rule of a page (:func:`pairwise`), made from the start of the
    page in two threads of their own, one rule at a time each, while the other sections are
    written: most of their time is numpy's sorts and products, which let the threads and the
    page go on side by side on the cores there are (the same tables, from the same seed: each
    rule's tests are made as on their own)."""

    # two threads: the machines reports are written on have at least two cores, and a third
    # thread would only share them
    WORKERS = 2

    def __init__(self, data: ReportData) -> None:
        self.data = data
        self._frames: dict[str, pd.DataFrame] = {}
        self._errors: dict[str, BaseException] = {}
        self._done = {name: threading.Event() for name, _ in data.rules}
        self._queue = list(data.rules)
        self._lock = threading.Lock()
        # daemons: a page given up (an error elsewhere, Ctrl-C) does not wait for them
        for _ in range(min(self.WORKERS, len(self._queue))):
            threading.Thread(target=self._run, name="maxent_util paired tests",
                             daemon=True).start()

    def _run(self) -> None:
        while True:
            with self._lock:
                if not self._queue:
                    return
                name, rule = self._queue.pop(0)
            try:
                self._frames[name] = pairwise(self.data.table, {name: rule}, **self.data.options)
            except BaseException as error:  # raised again where the page asks for the tests
                self._errors[name] = error
            finally:
                self._done[name].set()

    def frame(self, name: str) -> pd.DataFrame:
        self._done[name].wait()
        if name in self._errors:
            raise self._errors[name]
        return self._frames[name]


# the paired tests being made for the page being written (report_html sets it)
_PAIRED: contextvars.ContextVar[_PairedTests | None] = contextvars.ContextVar(
    "maxent_util paired tests", default=None)


def _paired_frame(data: ReportData, name: str, rule: Any) -> pd.DataFrame:
    """The paired tests of the rule ``name``: those made beside the page for ``data``, else
    made here (a section rendered on its own)."""
    paired = _PAIRED.get()
    if paired is not None and paired.data is data:
        return paired.frame(name)
    return pairwise(data.table, {name: rule}, **data.options)


def _paired(data: ReportData) -> bool:
    """Whether the page compares the algorithms pair by pair (intervals asked, two or more)."""
    return "ci" in data.options and data.table["algorithm"].nunique() > 1


@section("uncertainty", "Bounds, intervals and which differences are real")
def _uncertainty_section(data: ReportData) -> str:
    groups, _ = _ranking_columns(data)
    paired = _paired(data)
    if paired:
        level = data.options["ci"]
        intro = (
            "<p>Under each rule: every algorithm's score with its bounds (for a utility, "
            "<em>lower</em> counts a capped run or a failure 0 and <em>upper</em> counts a capped "
            "run as u(cutoff), what it would be worth had it finished just after the cutoff; "
            f"a classic rule has no bounds) and its {level:.0%} paired bootstrap interval "
            f"({_e(data.options['resamples'])} resamples of the instances). Then every pair "
            "of algorithms compared instance by instance: the matrix marks <b>+</b> where the "
            "row's algorithm is better than the column's and the difference is real (the "
            "Holm-adjusted Wilcoxon signed-rank p-value is below "
            f"{1 - level:.3g}), <b>-</b> where it is worse, and . where the data cannot tell "
            "them apart; columns are numbered as the rows. The list below it gives each pair's "
            f"means, the mean difference a - b with its {level:.0%} interval, the Wilcoxon and "
            "sign-test p-values and both adjusted by Holm's method. Open a rule to see "
            "it.</p>")
    else:
        intro = ("<p>Under each rule: every algorithm's score with its bounds (for a utility, "
                 "<em>lower</em> counts a capped run or a failure 0 and <em>upper</em> counts a "
                 "capped run as u(cutoff)). No paired tests: the page was made without "
                 "intervals (ci=None) or of one algorithm.</p>")
    parts = [intro]
    for index, (name, rule, columns) in enumerate(groups):
        # one fold per rule, the first open; the ranking's headers link to the fold's content,
        # and a browser opens a closed fold to show the element a link points to
        parts.append(f'<details class="rule"{" open" if index == 0 else ""}><summary><h3>'
                     f'{_e(name)}</h3></summary><div class="rule-detail" '
                     f'id="{_rule_anchor(index)}" data-rule="{_e(name)}">')
        parts.append(_bounds_table(data, name, rule, columns))
        if not paired:
            parts.append("</div></details>")
            continue
        frame = _paired_frame(data, name, rule)
        order = [str(a) for a in data.ranking.sort_values([name + " rank"], kind="stable").index]
        real = int(frame["significant"].sum())
        # the table and the matrix side by side where the window is wide enough
        parts[-1] = (f'{parts[-1]}<div><p class="note">{real} of '
                     f"{len(frame)} differences are real under {_e(name)}:</p>"
                     f"{_matrix(frame, order, name)}</div></div>")
        table, which = _pairs_table(frame, order)
        parts.append(f"<details><summary>The paired tests: {which}</summary>{table}</details>"
                     "</details>")
    return "".join(parts)


def _designs(designs: Any, owner: str) -> dict[str, tuple[tuple[str, str], ...]]:
    if designs is None:
        return {}
    try:
        return {str(name): tuple((_shown(says), _shown(constraint))
                                 for says, constraint in facts)
                for name, facts in dict(designs).items()}
    except (TypeError, ValueError):
        raise UtilityError(argument_message(
            "designs", owner, "a mapping from rule names to (answer, constraint) pairs",
            short(designs))) from None


def _origin(utility: Utility, design: Sequence[tuple[str, str]] = ()) -> str:
    distribution = getattr(utility, "distribution", None)
    if design:
        items = "".join(f"<li>{_e(says)}: <code>{_e(constraint)}</code></li>"
                        for says, constraint in design)
        return (f"<p>Designed from answers about the captime (the time one has), each the "
                f"constraint on it that it became ({len(design)} constraint"
                f"{'s' if len(design) != 1 else ''}):</p><ul>{items}</ul>")
    if not isinstance(distribution, CaptimeDistribution):
        return ("<p>Given as a formula in the runtime t; no constraints on the captime are "
                "recorded with it.</p>")
    items = "".join(f"<li>{_constraint(c)}</li>" for c in distribution.constraints)
    how = ("the Lagrange multipliers in closed form" if distribution.closed_form
           else "the Lagrange multipliers solved numerically")
    law = f" ({_e(distribution.name)})" if getattr(distribution, "name", None) else ""
    kappa = sympy.Symbol("kappa")
    multipliers = "".join(_formula(sympy.Eq(symbol, value, evaluate=False))
                          for symbol, value in distribution.multipliers.items())
    return (f"<p>The survival function u(t) = 1 - F(t) of the maximum-entropy captime law"
            f"{law} under the constraints below, with {how}:</p><ul>{items}</ul>"
            f"<p>Its density and distribution function:</p>"
            f"{_formula(distribution.pdf, 'f', kappa)}{_formula(distribution.cdf, 'F', kappa)}"
            f"<p>Its Lagrange multipliers:</p>{multipliers}")


def _constraint(constraint: Any) -> str:
    statement = constraint.statement()
    shown = ("" if isinstance(statement, sympy.logic.boolalg.BooleanAtom)
             else _formula(statement))
    return f"<code>{_e(repr(constraint))}</code>{shown}"


def _at_cutoff(data: ReportData, utility: Utility) -> str:
    if "cutoff" not in data.table.columns:
        return ""
    cutoffs = np.unique(data.table["cutoff"].to_numpy(dtype=float))
    if cutoffs.size != 1:
        return ""
    value = float(np.asarray(utility(cutoffs), dtype=float)[0])
    return (f"<p>u({cutoffs[0]:g}) = {value:.4g} at the cutoff: a capped run counts between "
            f"0 and this.</p>")


@section("utilities", "Rules and utilities")
def _utilities_section(data: ReportData) -> str:
    parts = []
    for name, rule in data.rules:
        parts.append(f"<h3>{_e(name)}</h3>{rule_summary(name, rule)}")
        if isinstance(rule, (PAR, Solved)):
            continue
        utility = rule if isinstance(rule, Utility) else Utility(rule, name=name)
        parts.append(_at_cutoff(data, utility))
        parts.append(_origin(utility, data.designs.get(name, ())))
    return "".join(parts)


def rule_summary(name: str, rule: Any) -> str:
    """What a rule counts, as HTML: a sentence for PAR-k and the solved count, the formula
    u(t) (MathML, its LaTeX one click away) for a utility. The report's section on the
    rules starts each rule with it, and a site's index lists the rules with it.

    Examples
    --------
    >>> from maxent_util import PAR
    >>> rule_summary("PAR-2", PAR(2)).startswith("<p>Penalised average runtime")
    True
    >>> from maxent_util.families import parse_utility
    >>> "<math" in rule_summary("pareto", parse_utility("pareto(5, 1)"))
    True
    """
    if isinstance(rule, PAR):
        return (f"<p>Penalised average runtime: a solved run counts its runtime, any other run "
                f"{float(rule.k):g} times its cutoff; the mean over instances, lower is better. "
                "A classic rule, not an expected utility.</p>")
    if isinstance(rule, Solved):
        return ("<p>The number of solved instances; higher is better. The expected utility of "
                "the step function 1 before the cutoff, 0 after, times the number of "
                "instances.</p>")
    utility = rule if isinstance(rule, Utility) else Utility(rule, name=name)
    return _formula(utility.expr, "u", sympy.Symbol("t"))


# ---------------------------------------------------------------------------
# building the page


def _rules(rules: Any, owner: str) -> tuple[tuple[str, Any], ...]:
    if isinstance(rules, Mapping):
        items = list(rules.items())
    elif isinstance(rules, (str, Utility, PAR, Solved, CaptimeDistribution, sympy.Basic)):
        items = [(None, rules)]
    elif isinstance(rules, Sequence):
        items = [(None, rule) for rule in rules]
    else:
        raise UtilityError(argument_message(
            "rules", owner, "a mapping from names to rules, or a sequence of rules", rules))
    if not items:
        raise UtilityError(argument_message("rules", owner, "non-empty", rules))
    named = []
    for name, rule in items:
        if isinstance(rule, str):
            rule = parse_rule(rule)
        elif isinstance(rule, CaptimeDistribution):
            rule = rule.utility()
        if name is None:
            name = getattr(rule, "name", None) or str(getattr(rule, "expr", rule))
        named.append((str(name), rule))
    return tuple(named)


def _shown(text: Any) -> str:
    """Text for the page, which is UTF-8: bytes that were not UTF-8 (Python keeps them as lone
    surrogates in file names and command-line arguments) are shown as escapes such as \\xff."""
    text = str(text)
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        pass
    try:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:  # a surrogate that no byte stands for
        return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _title(title: Any, owner: str) -> str | None:
    if title is None:
        return None
    if _shown(title) != str(title):
        raise ExportError(argument_message(
            "title", owner, "text that UTF-8 can encode", short(str(title)),
            "It holds bytes of another encoding (e.g. typed in a terminal that is not UTF-8)."))
    return str(title)


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


@dataclass(frozen=True)
class _Input:
    """What the page says of the data's input: the file's name (or how the input is named),
    the member read from an archive, its size and sha256."""

    name: str
    member: str | None
    size: int
    sha256: str


def _source_file(source: Any, owner: str) -> Path | None:
    if source is None or isinstance(source, NamedBytes):
        return None
    if not isinstance(source, (str, os.PathLike)):
        raise DataError(argument_message("source", owner, "a file path (str or os.PathLike), "
                                         "or the bytes read (NamedBytes)", source))
    split = split_member(os.fspath(source)) if isinstance(os.fspath(source), str) else None
    if split is not None:  # ARCHIVE:MEMBER: the archive is the file hashed
        return Path(split[0])
    path = Path(source)
    if path.is_dir() and (path / "algorithm_runs.arff").is_file():
        path = path / "algorithm_runs.arff"  # an ASlib scenario folder, as read_runs reads it
    if not path.is_file():
        raise DataError(argument_message("source", owner, "an existing file (the data's input)",
                                         os.fspath(source)))
    return path


def _label(label: Any, source: Any, path: Path | None) -> str:
    """How the data are named: the label given, but never a path of this machine. A label
    that names the source file or folder (as the command line's FILE does, absolute or not)
    is shortened to its last part."""
    split = split_member(os.fspath(source)) if isinstance(source, (str, os.PathLike)) \
        and isinstance(os.fspath(source), str) else None
    if split is not None and path is not None and (label is None or str(label) == os.fspath(
            source)):
        return f"{path.name}:{split[1]}"  # ARCHIVE:MEMBER without the archive's folder
    if label is None:
        if isinstance(source, NamedBytes):
            return source.name
        return path.name if path is not None else "runtime table"
    label = str(label)
    if path is not None:
        given = Path(label)
        try:
            same = given.resolve() in (Path(source).resolve(), path.resolve())
        except (OSError, ValueError):  # a label that is no path at all (NUL, too long)
            same = False
        if same:
            return given.resolve().name
    return label


def _when(date: Any, owner: str) -> str:
    if date is None:
        date = datetime.datetime.now(datetime.timezone.utc)
    if isinstance(date, datetime.datetime):
        return date.isoformat(timespec="seconds")
    if isinstance(date, str):
        return date
    raise DataError(argument_message("date", owner, "a datetime, a string or None", date))


def _cutoff_fact(table: pd.DataFrame) -> str:
    if "cutoff" not in table.columns:
        return "none recorded (no cutoff column)"
    cutoffs = np.unique(table["cutoff"].to_numpy(dtype=float))
    if cutoffs.size == 1:
        return readable_duration(cutoffs[0])
    return (f"from {readable_duration(cutoffs[0])} to {readable_duration(cutoffs[-1])}, "
            f"{cutoffs.size} values")


def _input(source: Any, path: Path | None) -> _Input | None:
    """The input's name, member, size and sha256: of the file, or of the bytes read (standard
    input, measured and hashed as a file is)."""
    if isinstance(source, NamedBytes):
        data = source.getvalue()
        name = "standard input" if source.name == "<stdin>" else _shown(source.name)
        return _Input(name, None, len(data), hashlib.sha256(data).hexdigest())
    if path is None:
        return None
    split = split_member(os.fspath(source))
    member = _shown(split[1]) if split is not None else _zip_member_name(path)
    return _Input(_shown(path.name), member, path.stat().st_size, _sha256(path))


def _zip_member_name(path: Path) -> str | None:
    """The name of the one member a zip archive was read through, else None."""
    try:
        with open(path, "rb") as handle:
            if compression_of(handle.read(6)) != "zip":
                return None
        with zipfile.ZipFile(path) as archive:
            members = [info.filename for info in archive.infolist()
                       if not info.is_dir() and not info.filename.startswith("__MACOSX/")]
    except (OSError, zipfile.BadZipFile, ValueError, EOFError):
        return None
    return _shown(members[0]) if len(members) == 1 else None


def _provenance(table: pd.DataFrame, label: str, given: _Input | None, format: str | None,
                date: str) -> tuple[tuple[str, str], ...]:
    statuses = table["status"].value_counts()
    counts = ", ".join(f"{int(statuses[s])} {s}" for s in ("solved", "capped", *FAILURE_STATUSES)
                       if s in statuses.index)
    facts = []
    if given is None:
        facts.append(("data", label))
    else:
        # one row for the file, and the label beside it only when it says more than the name
        named = {given.name, f"{given.name}:{given.member}" if given.member else given.name}
        stream = given.name == "standard input"
        if label not in named and not (stream and label == "<stdin>"):
            facts.append(("data", label))
        facts.append(("input" if stream else "file", given.name))
        if given.member is not None:
            facts.append(("member", given.member))
        facts += [("size", f"{given.size:,} bytes"), ("sha256", given.sha256)]
    facts += [
        ("format", format if format is not None else "a table given in Python"),
        ("algorithms", str(table["algorithm"].nunique())),
        ("instances", str(table["instance"].nunique())),
        ("runs", f"{len(table)} ({counts})"),
        ("cutoff", _cutoff_fact(table)),
        ("maxent_util", __version__),
        ("date", date),
    ]
    return tuple(facts)


def _notes(table: pd.DataFrame, format: str | None, notes: Any, owner: str) -> tuple[str, ...]:
    if isinstance(notes, str):
        notes = [notes]
    try:
        given = [str(note) for note in notes]
    except TypeError:
        raise DataError(argument_message("notes", owner, "a sequence of strings", notes)) from None
    attached = table.attrs.get("notes", ())
    attached = [attached] if isinstance(attached, str) else list(attached)
    found = [FORMAT_NOTES[format]] if format in FORMAT_NOTES else []
    source = table.attrs.get("cutoff_source")
    if isinstance(source, str) and source:  # where a given cutoff comes from, in words
        attached.append(source)
    return tuple(dict.fromkeys(_shown(note) for note in found + attached + given))


def _ranking(table: pd.DataFrame, rules: tuple[tuple[str, Any], ...], options: Mapping[str, Any]
             ) -> pd.DataFrame:
    return rank(table, dict(rules), bounds=True, **options)


def _explore_option(explore: Any, sweep: Any, owner: str) -> Mapping[str, Any] | bool | None:
    if explore is None or explore is False:
        return None
    if explore is True:
        return dict(sweep) if sweep is not None else True
    if isinstance(explore, Mapping) and {"family", "parameter", "bounds"} <= set(explore):
        return dict(explore)
    raise UtilityError(argument_message(
        "explore", owner, "True, None, or a dict with family, parameter and bounds (as for "
        "sweep)", short(explore)))


def _chosen_sections(sections: Any, owner: str) -> list[Section]:
    if sections is None:
        return list(SECTIONS)
    known = {s.id: s for s in SECTIONS}
    wanted = [sections] if isinstance(sections, str) else list(sections)
    for name in wanted:
        if name not in known:
            raise UtilityError(argument_message(
                "sections", owner, f"section ids among {', '.join(map(repr, known))}", name))
    return [s for s in SECTIONS if s.id in wanted]


def report_html(table: pd.DataFrame, *, rules: Mapping[str, Any] | Sequence[Any],
                source: str | os.PathLike | None = None, label: str | None = None,
                format: str | None = None, notes: Sequence[str] = (), title: str | None = None,
                date: datetime.datetime | str | None = None, ci: float | None = 0.95,
                resamples: int = 2000, seed: Any = 0, sweep: Mapping[str, Any] | None = None,
                explore: Mapping[str, Any] | bool | None = True, duplicates: str = "raise", missing: str = "raise",
                sections: Sequence[str] | None = None, command: str | None = None,
                designs: Mapping[str, Sequence[tuple[str, str]]] | None = None) -> str:
    """A self-contained HTML report on a runtime table.

    The page holds, in :data:`SECTIONS` order: the data's provenance (file,
    format, counts, cutoff, reader notes, sha256, version, date); the
    rankings under each rule with lower and upper scores
    (:func:`~maxent_util.rank` with ``bounds=True``); the bump chart of the
    ranks, the cactus plot and the survival plot with the utilities overlaid
    (the figures of :func:`~maxent_util.plots.plot_ranking`,
    :func:`~maxent_util.plots.plot_cactus` and
    :func:`~maxent_util.plots.plot_survival`, written as SVG by
    :mod:`maxent_util.svgfigures`); and each
    rule's formula, its LaTeX source and the constraints it was derived
    from.

    Parameters
    ----------
    table : pandas.DataFrame
        The long runtime table, as for :func:`~maxent_util.rank`.
    rules : mapping of str to rule, or sequence of rules, keyword-only
        Utilities (:class:`~maxent_util.Utility`, a captime distribution, a
        sympy expression in ``t``, or a preset spec such as
        ``"pareto(5, 3)"``), :class:`~maxent_util.PAR` or
        :class:`~maxent_util.Solved`; a mapping gives the display names. Rows
        are ordered by the first rule.
    source : str or os.PathLike, optional, keyword-only
        The file the table was read from: its name, size and sha256 go on
        the page, never the folder it is in.
    label : str, optional, keyword-only
        How to name the data (default: the file's name, else "runtime
        table"); a label that is the source's path, as the command line
        gives it, is shortened to the file's (or folder's) name.
    format : str, optional, keyword-only
        The format it was read in (``"satcomp"``, ``"long"``, ``"aslib"``
        add the reader's note from :data:`FORMAT_NOTES`).
    notes : sequence of str, keyword-only
        More notes on the data (e.g. how it was re-capped); notes in
        ``table.attrs["notes"]`` are shown too.
    title : str, optional, keyword-only
        The page's title (default: the competition and track the reader found
        in the file's name, ``table.attrs["track"]``, such as "SAT
        Competition 2021, parallel track"; else "Runtime report: " and the
        label).
    designs : mapping of str to sequence of (str, str), optional, keyword-only
        Per rule name, what a designed utility was made from: each answer
        with the constraint it became (``maxent-util design`` records them
        in its document); listed in the rule's section.
    command : str, optional, keyword-only
        The command that made the page, shown folded under "How this page
        was made" in the Data section (the command line passes its own,
        paths shortened to their names).
    date : datetime or str, optional, keyword-only
        The date shown (default: now, in UTC); fix it for a reproducible page.
    ci : float or None, keyword-only
        Confidence level of the paired bootstrap intervals on the scores
        (:func:`~maxent_util.rank`) and of the pairwise comparisons
        (:func:`~maxent_util.pairwise`); None leaves both out.
    resamples : int, keyword-only
        Bootstrap resamples of the instances.
    seed : int, numpy Generator or None, keyword-only
        Seed of the resamples (default 0: the same page every time; None
        draws fresh ones).
    sweep : dict, optional, keyword-only
        Add a section on how the ranking changes along a preset's parameter:
        the keywords of :func:`~maxent_util.sweeps.ranking_changes`, e.g.
        ``{"family": "pareto", "parameter": "kappa0", "bounds": (1, 5000),
        "alpha": 1}``.
    explore : dict, bool or None, keyword-only
        The explorer: a slider over a preset's parameter that shows the
        ranking and the leader at each of its positions, computed here with
        :func:`~maxent_util.sweeps.sweep` and embedded as JSON, moved by the
        page's one script (allowed by the Content-Security-Policy through
        its hash). True (default): the scale ``kappa0`` of the first rule
        that is a preset (its other parameters kept; else the exponential)
        from 1 s to the largest cutoff, in log steps, or the family, parameter
        and range of ``sweep`` when given; a dict as for ``sweep``; None or
        False leaves it out (and the page holds no script).
    duplicates, missing : str, keyword-only
        Policies for repeated and missing runs, as in :func:`~maxent_util.rank`.
    sections : sequence of str, optional, keyword-only
        Only these section ids (see :data:`SECTIONS`), in page order;
        default all.

    Returns
    -------
    str
        The page, ``<!DOCTYPE html>`` to ``</html>``.

    Raises
    ------
    DataError
        If the table is not a valid long table, ``source`` is not a file, or
        as :func:`~maxent_util.rank`.
    UtilityError
        If a rule is not one, as :func:`~maxent_util.rank`; for an unknown
        section id.
    MissingExtraError
        If matplotlib (the ``plot`` extra) is missing and the sweep section is
        asked for (the other figures are written without it).
    ExportError
        If ``title`` holds bytes UTF-8 cannot encode (a lone surrogate such as
        ``"\\udcff"``); such bytes in a file name, a label or a note are shown as
        escapes (``\\xff``).

    Examples
    --------
    >>> import pandas as pd
    >>> from maxent_util import PAR
    >>> runs = pd.DataFrame({"algorithm": ["a", "a", "<b>", "<b>"],
    ...                      "instance": ["i", "j", "i", "j"],
    ...                      "runtime": [1.0, 100.0, 10.0, 20.0],
    ...                      "status": ["solved", "capped", "solved", "solved"],
    ...                      "cutoff": 100.0})
    >>> page = report_html(runs, rules={"PAR-2": PAR(2)}, sections=["rankings"], date="today")
    >>> page.startswith("<!DOCTYPE html>"), "&lt;b&gt;" in page, "<b>" in page
    (True, True, False)
    """
    owner = "report_html"
    if not isinstance(table, pd.DataFrame):
        raise DataError(argument_message("table", owner, "a long runtime table (a pandas "
                                         "DataFrame)", type(table).__name__))
    validate_table(table, name="table")
    chosen = _chosen_sections(sections, owner)
    named = _rules(rules, owner)
    path = _source_file(source, owner)
    heading = _title(title, owner)
    label = _shown(_label(label, source, path))
    given = _input(source, path)
    when = _when(date, owner)
    options: dict[str, Any] = {"duplicates": duplicates, "missing": missing}
    if ci is not None:
        options.update(ci=ci, resamples=resamples, seed=seed)
    data = ReportData(
        table=table, rules=named, ranking=_ranking(table, named, options),
        label=str(label), provenance=_provenance(table, str(label), given, format, when),
        command=None if command is None else _shown(command),
        designs=_designs(designs, owner),
        notes=_notes(table, format, notes, owner), options=options,
        sweep=None if sweep is None else dict(sweep),
        explore=_explore_option(explore, sweep, owner))
    track = table.attrs.get("track")
    if heading is None:
        heading = _shown(track) if isinstance(track, str) and track else f"Runtime report: {label}"
    bodies = []
    paired = _PAIRED.set(_PairedTests(data) if any(part.id == "uncertainty" for part in chosen)
                         and _paired(data) else None)
    try:
        for part in chosen:
            body = part.render(data)
            if body is not None:
                bodies.append((part, body))
    finally:
        _PAIRED.reset(paired)
    contents = "".join(f'<li><a href="#{part.id}">{_e(part.title)}</a></li>' for part, _ in bodies)
    sections_html = "".join(f'<section id="{part.id}"><h2>{_e(part.title)}</h2>{body}</section>'
                            for part, body in bodies)
    algorithms = table["algorithm"].nunique()
    # the explorer's script, by its hash, on a page that holds it; otherwise no script at all
    policy = _EXPLORER_POLICY if any(part.id == "explore" for part, _ in bodies) else _POLICY
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{policy}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<meta name="generator" content="maxent_util {_e(__version__)}">'
        f"<title>{_e(heading)}</title><style>{_CSS}</style></head>\n<body>"
        f"<header><h1>{_e(heading)}</h1><p class=\"note\">{algorithms} algorithms, "
        f"{table['instance'].nunique()} instances, {len(table)} runs; ranked under "
        f"{len(named)} rules by maxent_util {_e(__version__)} on {_e(when)}.</p>"
        f"<nav><ol>{contents}</ol></nav></header>\n<main>{sections_html}</main>\n"
        "</body></html>\n")


def write_report(table: pd.DataFrame, path: str | os.PathLike, *,
                 rules: Mapping[str, Any] | Sequence[Any], overwrite: bool = False,
                 parents: bool = False, **options: Any) -> Path:
    """Write :func:`report_html` to a file.

    Parameters
    ----------
    table : pandas.DataFrame
        The long runtime table.
    path : str or os.PathLike
        Where to write the page (e.g. ``report.html``).
    rules : mapping or sequence, keyword-only
        As in :func:`report_html`.
    overwrite : bool, keyword-only
        Replace an existing file; by default an existing file is refused
        (checked before any work, and again when writing).
    parents : bool, keyword-only
        Create missing folders of ``path``.
    **options
        The other keyword options of :func:`report_html`.

    Returns
    -------
    pathlib.Path
        The file written.

    Raises
    ------
    ExportError
        If ``path`` is a directory, exists (without ``overwrite``), lies in a
        missing folder (without ``parents``) or cannot be written.
    DataError, UtilityError, MissingExtraError
        As :func:`report_html`.

    Examples
    --------
    >>> import pandas as pd, pathlib, tempfile
    >>> from maxent_util import Solved
    >>> runs = pd.DataFrame({"algorithm": ["a", "b"], "instance": ["i", "i"],
    ...                      "runtime": [1.0, 5.0], "status": ["solved", "capped"]})
    >>> target = pathlib.Path(tempfile.mkdtemp()) / "report.html"
    >>> write_report(runs, target, rules=[Solved()], sections=["data", "rankings"]) == target
    True
    >>> write_report(runs, target, rules=[Solved()])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    maxent_util.errors.ExportError: `path` of `write_report` must be a file that does not exist yet; got '...report.html'. Pass overwrite=True to replace it.
    """
    owner = "write_report"
    target = writable(path, owner, overwrite=overwrite, parents=parents)
    text = report_html(table, rules=rules, **options)
    write(target, text, owner, overwrite=overwrite)
    return target
