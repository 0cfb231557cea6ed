"""``maxent-util family``: the paper's presets."""

from __future__ import annotations

import argparse
from typing import Any

from .core import PROG
from .derive import _add_output_flags, _print_distribution


def _command_family(arguments: argparse.Namespace, out: Any) -> int:
    from .. import families
    from ..errors import UtilityError, argument_message

    if arguments.name is None:
        for name, parameters in families.FAMILIES.items():
            print(f"{name}({', '.join(parameters)})", file=out)
        return 0
    name = arguments.name.lower().replace("-", "_")
    if name not in families.FAMILIES:
        raise UtilityError(argument_message("NAME", f"{PROG} family",
                                            f"one of {', '.join(families.FAMILIES)}", arguments.name))
    expected = families.FAMILIES[name]
    if len(arguments.params) != len(expected):
        raise UtilityError(argument_message(
            "PARAMS", f"{PROG} family {name}", f"{len(expected)} value(s) ({' '.join(expected)})",
            " ".join(arguments.params)))
    distribution = getattr(families, name)(*arguments.params)
    _print_distribution(distribution, arguments, out)
    return 0


def add_parser(commands: Any) -> None:
    """Add ``family`` to the subcommands ``commands``."""
    family = commands.add_parser("family", help="one of the paper's seven presets",
                                 description="Derive one of the paper's presets; without NAME, list "
                                             "them with their parameters.")
    family.add_argument("name", nargs="?", metavar="NAME",
                        help="the preset's name, such as pareto or log_normal (without it: the "
                             "list)")
    family.add_argument("params", nargs="*", metavar="PARAMS",
                        help="the preset's parameters (numbers or names for symbolic ones)")
    _add_output_flags(family)
    family.set_defaults(handler=_command_family)
