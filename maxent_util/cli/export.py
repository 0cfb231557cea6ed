"""``maxent-util export``: a utility as Python, C or a LaTeX derivation."""

from __future__ import annotations

import argparse
from typing import Any

from .core import CommandLineError
from .files import _file_flags, _target, _write_text


def _command_export(arguments: argparse.Namespace, out: Any) -> int:
    from ..ranking import parse_rule
    try:
        from .. import export
    except ImportError as error:  # pragma: no cover - the module ships with the package
        raise CommandLineError(f"export is unavailable: {error}") from None
    flag, path = next((f, p) for f, p in (("--python", arguments.python), ("--c", arguments.c),
                                          ("--latex", arguments.latex_file)) if p is not None)
    target = _target(path, flag=flag, force=arguments.force, parents=arguments.parents)
    utility = parse_rule(arguments.utility)
    if not hasattr(utility, "expr"):
        raise CommandLineError(f"argument --utility: export needs a utility, not the classic rule "
                               f"{arguments.utility!r}")
    if flag == "--python":
        export.export_python(utility, target, overwrite=arguments.force)
    elif flag == "--c":
        _write_text(target, export.export_c(utility), force=arguments.force, flag=flag)
    else:
        distribution = getattr(utility, "distribution", None)
        # a file is meant to be compiled: a standalone document
        text = export.derivation(distribution if distribution is not None else utility,
                                 document=True)
        _write_text(target, text if text.endswith("\n") else text + "\n", force=arguments.force, flag=flag)
    print(f"wrote {target}", file=out)
    return 0


def add_parser(commands: Any) -> None:
    """Add ``export`` to the subcommands ``commands``."""
    export = commands.add_parser("export", help="write a utility as Python, C or a LaTeX derivation")
    export.add_argument("--utility", required=True, metavar="SPEC")
    targets = export.add_mutually_exclusive_group(required=True)
    targets.add_argument("--python", metavar="FILE", help="a standalone Python scorer")
    targets.add_argument("--c", metavar="FILE", help="a C function")
    targets.add_argument("--latex", dest="latex_file", metavar="FILE", help="the LaTeX derivation")
    _file_flags(export)
    export.set_defaults(handler=_command_export)
