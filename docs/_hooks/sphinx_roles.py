"""mkdocs hook: render the Sphinx markup that numpydoc docstrings carry.

The library's docstrings follow numpydoc, which leans on Sphinx roles
(``:math:`x```, ``:func:`name```) and ``.. math::`` blocks.  mkdocstrings
passes them through as Markdown, where they show up as literal text.  After
each page is rendered, turn them into MathJax spans (read by
pymdownx.arithmatex's MathJax set-up) and plain code names.
"""

from __future__ import annotations

import re

INLINE_MATH = re.compile(r":math:<code>(.*?)</code>", re.S)
DISPLAY_MATH = re.compile(
    r"<p>\.\. math::</p>\s*<div class=\"highlight\"><pre>(?:<span></span>)?<code>(.*?)</code></pre></div>",
    re.S)
ONE_LINE_MATH = re.compile(r"<p>\.\. math:: (.*?)</p>", re.S)
ROLES = r":(?:py:)?(?:func|class|meth|attr|data|mod|exc|obj):"
CROSS_REFERENCE = re.compile(ROLES + r"<code>(~?)([^<]*)</code>")
# inside a type annotation the role's backticks stay literal
LITERAL_REFERENCE = re.compile(ROLES + r"`(~?)([^`<]*)`")
TAG = re.compile(r"<[^>]+>")


def _shown(tilde: str, target: str) -> str:
    # Sphinx shows only the last component of a "~a.b.c" target
    return target.rsplit(".", 1)[-1] if tilde else target


def _reference(match: re.Match) -> str:
    return f"<code>{_shown(*match.groups())}</code>"


def _display(body: str) -> str:
    return '<div class="arithmatex">\\[' + TAG.sub("", body).strip() + "\\]</div>"


def on_page_content(html: str, page, config, files) -> str:
    html = DISPLAY_MATH.sub(lambda m: _display(m.group(1)), html)
    html = ONE_LINE_MATH.sub(lambda m: _display(m.group(1)), html)
    html = INLINE_MATH.sub(lambda m: '<span class="arithmatex">\\(' + m.group(1) + "\\)</span>", html)
    html = CROSS_REFERENCE.sub(_reference, html)
    return LITERAL_REFERENCE.sub(lambda m: _shown(*m.groups()), html)
