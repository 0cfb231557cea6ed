"""mkdocs hook: fill docs/cli.md with the live ``--help`` of ``maxent-util``.

A line ``<!-- maxent-util-help: COMMAND -->`` (or ``: main`` for the top
level) becomes the help text of that subcommand, as argparse prints it, so
the page cannot drift from the parser.  Without the command-line module the
markers become a short note instead.
"""

from __future__ import annotations

import argparse
import os
import re

MARKER = re.compile(r"^<!-- maxent-util-help: ([\w-]+) -->$", re.M)
WIDTH = "90"  # argparse wraps to $COLUMNS; fix it so the page is the same everywhere


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _help_texts() -> dict[str, str] | None:
    try:
        from maxent_util.cli import build_parser
    except ImportError:
        return None
    previous = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = WIDTH
    try:
        parser = build_parser()
        texts = {"main": parser.format_help()}
        texts.update({name: sub.format_help() for name, sub in _subcommands(parser).items()})
    finally:
        if previous is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = previous
    return texts


def on_page_markdown(markdown: str, page, config, files) -> str:
    if page.file.src_uri != "cli.md":
        return markdown
    texts = _help_texts()

    def replace(match: re.Match) -> str:
        name = match.group(1)
        if texts is None:
            return "*(`maxent-util --help` is not available in this installation.)*"
        if name not in texts:
            raise KeyError(f"docs/cli.md asks for the help of an unknown subcommand {name!r}")
        return "```text\n" + texts[name].rstrip() + "\n```"

    return MARKER.sub(replace, markdown)
