"""``maxent-util design``: the guided utility designer, as an interview or from an answers file."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from .._output import file_group
from .core import PROG, CommandLineError
from .files import _file_flags, _target
from .inputs import _small_file

#: largest answers file read, in bytes (a page of answers is a few hundred)
MAX_ANSWERS_BYTES = 1 << 20


def _answers(path: str) -> dict[str, Any]:
    """The answers of a TOML or JSON file (by its suffix), as a table."""
    import tomllib

    suffix = Path(path).suffix.lower()
    if suffix not in (".toml", ".json"):
        raise CommandLineError(f"argument --answers: {path!r} must be a .toml or .json file")
    data = _small_file(path, flag="--answers", what="an answers file", most=MAX_ANSWERS_BYTES)
    try:
        text = data.decode("utf-8")
        answers = tomllib.loads(text) if suffix == ".toml" else json.loads(text, parse_constant=_no_constant)
    except (UnicodeDecodeError, ValueError, RecursionError) as error:
        kind = "TOML" if suffix == ".toml" else "JSON"
        raise CommandLineError(f"argument --answers: {path!r} is not valid UTF-8 {kind}: "
                               f"{str(error)[:200]}") from None
    if not isinstance(answers, dict):
        raise CommandLineError(f"argument --answers: {path!r} must hold a table of answers "
                               "(question = answer)")
    return answers


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number an answer can be")


class _Prompts:
    """The interview on a terminal: each question on ``out``, each answer a line of ``stdin``."""

    def __init__(self, out: Any, stdin: Any) -> None:
        self.out, self.stdin = out, stdin

    def ask(self, question: Any) -> str:
        print(file=self.out)
        print(question.prompt, file=self.out)
        for number, (name, words) in enumerate(question.choices, start=1):
            print(f"  {number}) {name}: {words}", file=self.out)
        self.out.write("  (Enter to skip) > " if question.optional else "  > ")
        self.out.flush()
        line = self.stdin.readline()
        if not line:
            raise CommandLineError("the interview ended before every question was answered (end of "
                                   "input); script it with --answers FILE")
        return line.rstrip("\r\n")

    def say(self, line: str) -> None:
        print(line, file=self.out)
        self.out.flush()


def _command_design(arguments: argparse.Namespace, out: Any) -> int:
    json_target = _target(arguments.json, flag="--json", force=arguments.force, parents=arguments.parents)
    plot_target = None if arguments.no_plot else _target(arguments.plot, flag="--plot", force=arguments.force,
                                                         parents=arguments.parents)
    if arguments.answers is not None:
        answers = _answers(arguments.answers)
        from ..designer import design

        result = design(answers)
        for fact in result.facts:
            print(f"  = {fact}", file=out)
    else:
        from ..designer import interview

        prompts = _Prompts(out, sys.stdin)
        prompts.say("Answer in plain words; durations take units (90s, 15 min, 2h, 1.5 d); an empty "
                    "answer skips a question marked so.")
        result = interview(prompts.ask, prompts.say)
    print(file=out)
    print(result.summary(), file=out)
    with file_group():  # the JSON and the figure, or neither (Ctrl-C between them)
        result.write_json(json_target, overwrite=arguments.force)
        drawn = plot_target is not None and result.plot(plot_target, overwrite=arguments.force)
    print(f"wrote {json_target}", file=out)
    if drawn:
        print(f"wrote {plot_target}", file=out)
    elif plot_target is not None:
        print(f"{PROG}: note: no plot: matplotlib is not installed (pip install 'maxent_util[plot]')",
              file=sys.stderr)
    print(f"Use it: {PROG} rank FILE --utility @{json_target}"
          + (f"   (or --utility '{result.spec}')" if result.spec and len(result.spec) <= 80 else ""),
          file=out)
    return 0


def add_parser(commands: Any) -> None:
    """Add ``design`` to the subcommands ``commands``."""
    design = commands.add_parser(
        "design", help="a utility from plain answers about your patience (an interview)",
        description="Ask what you know about the time you will have for an answer (exactly, as a "
                    "distribution, or a few facts: the longest, typical or median wait, an order of "
                    "magnitude, how sure, a tail) and whether waiting costs money; show each answer "
                    "as the constraint it becomes, explain answers that cannot hold together and ask "
                    "again, then derive the law and its utility. The JSON document is read by "
                    "rank, report, export and race as --utility @FILE.")
    design.add_argument("--answers", metavar="FILE",
                        help="the answers from a TOML or JSON file (question = answer), without "
                             "prompts")
    design.add_argument("--json", default="design.json", metavar="FILE",
                        help="where the design goes, as the utility's JSON document (default "
                             "design.json)")
    design.add_argument("--plot", default="design.png", metavar="FILE",
                        help="a figure of u(t) (default design.png; needs matplotlib)")
    design.add_argument("--no-plot", action="store_true", help="draw no figure")
    _file_flags(design)
    design.set_defaults(handler=_command_design)
