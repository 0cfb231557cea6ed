"""``maxent-util report``: one self-contained HTML page about runtime data."""

from __future__ import annotations

import argparse
import os
import re
import shlex
from pathlib import Path
from typing import Any

from ..durations import readable_duration
from .core import CommandLineError, _utf8
from .files import _file_flags, _target
from .inputs import (DATASETS, _add_ranking_inputs, _bootstrap_flags, _bootstrap_options,
                     _rule_named, _sort_flag, _table_and_rules)
from .sweep import _add_sweep_flags, _sweep_keywords


def _data_source(arguments: argparse.Namespace) -> tuple[Any, str | None, list[str]]:
    """The file behind the runtime table, its format, and what was done to it (for the report)."""
    notes = []
    if arguments.dataset is not None:
        from .. import datasets

        track = DATASETS[arguments.dataset]
        # the bundled file itself, so that its sha256 is on the page
        resource = datasets.satcomp2021_file(track)
        source: Any = Path(str(resource)) if Path(str(resource)).is_file() else None
        fmt: str | None = "satcomp"
        notes.append(f"The bundled data set {arguments.dataset}: the SAT Competition 2021 "
                     f"{track} track, read with a cutoff of "
                     f"{readable_duration(datasets.SATCOMP2021_CUTOFF)} "
                     "(see maxent_util/datasets/data/SOURCE.md for the source and citation).")
    elif arguments.file == "-":
        # the bytes read, measured and hashed on the page as a file's are
        source, fmt = getattr(arguments, "stdin_bytes", None), arguments.format
        if fmt is None and source is not None:
            from ..io import sniff_format

            fmt = sniff_format(source.getvalue()[:1 << 16])
    else:
        from ..io import guess_format

        source = Path(arguments.file)
        fmt = arguments.format
        if fmt is None:
            fmt = "aslib" if source.is_dir() else guess_format(source)
    if arguments.cutoff is not None and fmt not in ("satcomp", "aslib", "benchexec"):
        # (those readers take the cutoff themselves, and their note says where it comes from)
        notes.append(f"Every run re-capped at {readable_duration(arguments.cutoff)}, the cutoff "
                     "given: runs at "
                     "or past it count as capped.")
    return source, fmt, notes


# a parenthesis that gives command-line advice, "(--rules paper: the paper's figure)"
_FLAG_ADVICE = re.compile(r"\s*\([^()]*--[a-z][^()]*\)")


def _prose(note: str) -> str:
    """A note for the page: the command line's advice left out (the page shows its command)."""
    return _FLAG_ADVICE.sub("", note)


def _command(arguments: argparse.Namespace) -> str | None:
    """The command as typed, every path in it (FILE, the output, ``@design.json``,
    ``--flag=PATH``) named without its folders: the page shows no path of this machine."""
    words = getattr(arguments, "words", None)
    if words is None:
        return None
    return shlex.join(["maxent-util", *map(_without_folders, words)])


def _without_folders(word: str) -> str:
    from ..io.limits import split_member

    flag, equals, value = word.partition("=") if word.startswith("--") else ("", "", word)
    at = "@" if value.startswith("@") else ""
    value = value[len(at):]
    if "/" in value or "\\" in value:
        split = split_member(value)
        if split is not None:
            value = f"{Path(split[0]).name}:{split[1]}"
        elif os.path.isabs(value) or Path(value).exists():
            value = Path(value).name
    return f"{flag}{equals}{at}{value}"


def _command_report(arguments: argparse.Namespace, out: Any) -> int:
    from ..report import write_report

    target = _target(arguments.output, flag="--output", force=arguments.force,
                     parents=arguments.parents)
    if arguments.title is not None and not _utf8(arguments.title):
        raise CommandLineError(f"argument --title: expected text in UTF-8, the page's encoding; "
                               f"got {arguments.title!r} (bytes of another encoding)")
    table, label, rules = _table_and_rules(arguments)
    source, fmt, notes = _data_source(arguments)
    if arguments.rules_note:
        notes.append(_prose(arguments.rules_note[0].upper() + arguments.rules_note[1:]) + ".")
    if arguments.sort_by is not None:
        # the page orders the algorithms by its first rule: --sort-by puts RULE first
        first = _rule_named(arguments.sort_by, list(rules))
        rules = {first: rules[first], **{name: rule for name, rule in rules.items()
                                         if name != first}}
        notes.append(f"Algorithms in the order of {first}.")
    sweep = None
    if arguments.family is not None:
        sweep = dict(_sweep_keywords(arguments, "report's sweep section"),
                     bounds=(arguments.start, arguments.stop))
    write_report(table, target, rules=rules, overwrite=arguments.force, source=source,
                 label=label, format=fmt, notes=notes, title=arguments.title,
                 duplicates=arguments.duplicates, missing=arguments.missing, sweep=sweep,
                 command=_command(arguments), designs=getattr(arguments, "designs", None),
                 **_bootstrap_options(arguments))
    print(f"wrote {target}", file=out)
    return 0


def add_parser(commands: Any) -> None:
    """Add ``report`` to the subcommands ``commands``."""
    report = commands.add_parser(
        "report", help="one self-contained HTML page: rankings, figures, utilities, provenance",
        description="Write one HTML page about runtime data: the rankings under each rule with "
                    "lower and upper scores and paired bootstrap intervals, every pair of "
                    "algorithms compared under the first rule (Wilcoxon and sign tests, "
                    "Holm-adjusted), the bump chart, the cactus and survival plots, each "
                    "utility's formula and constraints, and the data's provenance (file, sha256, "
                    "counts, cutoff, version, date). The page loads nothing from the network.")
    _add_ranking_inputs(report, default_note="Default: --rules cutoff.")
    _sort_flag(report)
    report.add_argument("-o", "--output", default="report.html", metavar="FILE.html",
                        help="where to write (default report.html)")
    report.add_argument("--title", default=None, help="the page's title")
    _bootstrap_flags(report, ci=0.95, resamples=2000, seed="0")
    _add_sweep_flags(report, required=False)
    _file_flags(report)
    report.set_defaults(handler=_command_report)
