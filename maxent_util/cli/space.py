"""``maxent-util space``: a parameter space from one configurator's format to another's."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from .core import CommandLineError
from .files import _file_flags, _target, _write_text

#: the command line's names of the formats, and the library's
_FORMATS = {"pcs": "pcs", "pcs-new": "pcs-new", "configspace": "json", "json": "json", "irace": "irace"}


def _command_space(arguments: argparse.Namespace, out: Any) -> int:
    from ..space import ParameterSpace

    space = ParameterSpace.read(arguments.file, forbidden=arguments.forbidden)
    kind = _FORMATS[arguments.to]
    if arguments.output is None:
        if kind == "irace" and space.forbidden:
            raise CommandLineError("argument --to: irace keeps forbidden combinations in a file of "
                                   "their own; pass -o FILE (forbidden.txt is written beside it)")
        out.write(space.text(kind))
        return 0
    target = _target(arguments.output, flag="--output", force=arguments.force, parents=arguments.parents)
    written = [target]
    if kind == "irace" and space.forbidden:
        written.append(_target(target.with_name("forbidden.txt"), flag="--output", force=arguments.force,
                               parents=arguments.parents))
    _write_text(target, space.text(kind), force=arguments.force, flag="--output")
    if len(written) > 1:
        _write_text(written[1], space.to_irace_forbidden(), force=arguments.force, flag="--output")
    print(f"wrote {', '.join(str(path) for path in written)}: {len(space)} options, "
          f"{len(space.conditions)} conditions, {len(space.forbidden)} forbidden combinations",
          file=out)
    return 0


def add_parser(commands: Any) -> None:
    """Add ``space`` to the subcommands ``commands``."""
    space = commands.add_parser(
        "space", help="convert a parameter space between PCS, ConfigSpace and irace",
        description="Read a solver's parameter space (classic PCS, ConfigSpace's PCS or JSON, "
                    "irace's parameter file; the format told from the content) and write it in "
                    "another format, types, ranges, log scales, defaults (irace's file has "
                    "none), conditions and forbidden combinations kept.")
    space.add_argument("file", metavar="FILE", type=Path, help="the space file to read")
    space.add_argument("--to", required=True, choices=list(_FORMATS),
                       help="the format to write: pcs (AClib's classic PCS), pcs-new "
                            "(ConfigSpace's PCS), configspace or json (ConfigSpace's JSON), irace "
                            "(parameters.txt, and forbidden.txt beside it)")
    space.add_argument("-o", "--output", metavar="OUT",
                       help="the file to write (default: print it)")
    space.add_argument("--forbidden", metavar="FILE", type=Path,
                       help="irace's forbidden file for an irace FILE (default: forbidden.txt "
                            "beside it, if there is one)")
    _file_flags(space)
    space.set_defaults(handler=_command_space)
