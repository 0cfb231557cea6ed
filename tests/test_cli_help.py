"""Every command and every option of the command line explains itself in its help."""

from __future__ import annotations

import argparse

import pytest

from maxent_util.cli.app import build_parser
from maxent_util.cli.core import _DeprecatedAlias


def _walk(parser: argparse.ArgumentParser, path: tuple[str, ...]):
    """(path, action) for every option and positional of ``parser`` and its subcommands, and
    (path, subparsers-action, name) for every command."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {choice.dest: choice.help for choice in action._choices_actions}
            for name, sub in action.choices.items():
                yield ("command", path + (name,), helps.get(name), sub.description)
                yield from _walk(sub, path + (name,))
        # an old name kept as a warned alias is hidden from the help on purpose
        elif not isinstance(action, (argparse._HelpAction, argparse._VersionAction, _DeprecatedAlias)):
            yield ("option", path, action.option_strings or [action.dest], action.help)


_ITEMS = list(_walk(build_parser(), ()))


def test_the_walk_finds_every_command_and_many_options():
    commands = {item[1][-1] for item in _ITEMS if item[0] == "command"}
    assert {"derive", "rank", "plan", "export", "family", "race", "design", "fit"} <= commands
    assert sum(item[0] == "option" for item in _ITEMS) > 100


@pytest.mark.parametrize("item", [item for item in _ITEMS if item[0] == "command"],
                         ids=lambda item: " ".join(item[1]))
def test_every_command_has_a_help_line_and_a_description(item):
    _, path, help_line, description = item
    assert help_line and help_line.strip(), f"{' '.join(path)} has no help line"
    assert description and len(description) > 40, f"{' '.join(path)} has no description"


@pytest.mark.parametrize("item", [item for item in _ITEMS if item[0] == "option"],
                         ids=lambda item: " ".join(item[1] + (item[2][0],)))
def test_every_option_has_a_help_text_that_needs_no_paper(item):
    _, path, names, help_text = item
    where = f"{' '.join(path)} {names[0]}"
    assert help_text and help_text != argparse.SUPPRESS and len(help_text) >= 10, \
        f"{where} has no help text"
    # a reader who has not read the paper cannot follow a pointer into it
    assert "Section" not in help_text and "Theorem" not in help_text, where
