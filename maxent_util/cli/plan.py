"""``maxent-util plan``: the estimation theorem's sampling plan."""

from __future__ import annotations

import argparse
import json
from typing import Any

from .inputs import _read_rule, _is_classic
from .core import CommandLineError, _formula, _number


def _command_plan(arguments: argparse.Namespace, out: Any) -> int:
    from ..sampling import plan

    utility = _read_rule(arguments.utility)
    if _is_classic(utility):
        raise CommandLineError(f"argument --utility: a sampling plan needs a utility, not the "
                               f"classic rule {arguments.utility!r}")
    result = plan(arguments.epsilon, arguments.delta, utility)
    if arguments.json:
        json.dump({"utility": arguments.utility.strip(), "epsilon": result.epsilon,
                   "delta": result.delta, "runs": result.runs, "captime": result.captime,
                   "min_total_time": result.min_total_time,
                   "max_total_time": result.max_total_time}, out, indent=2)
        out.write("\n")
        return 0
    print(f"utility: {arguments.utility.strip()}   u(t) = {_formula(utility.expr)}", file=out)
    print(f"estimate within epsilon = {result.epsilon:g} with probability >= 1 - delta = "
          f"{1 - result.delta:g}:", file=out)
    print(f"  runs needed:       {result.runs}", file=out)
    print(f"  limit on each run: {result.captime:.6g} s   (u^-1(epsilon/2))", file=out)
    print(f"  total time:        between {result.min_total_time:.6g} s (m u^-1(2 epsilon)) and "
          f"{result.max_total_time:.6g} s (m u^-1(epsilon/2))", file=out)
    return 0


def add_parser(commands: Any) -> None:
    """Add ``plan`` to the subcommands ``commands``."""
    planning = commands.add_parser("plan", help="runs and run limit to estimate a score within epsilon",
                                   description="The estimation theorem's sampling plan (Section 4).")
    planning.add_argument("--epsilon", type=_number, required=True, metavar="E")
    planning.add_argument("--delta", type=_number, required=True, metavar="D")
    planning.add_argument("--utility", required=True, metavar="SPEC")
    planning.add_argument("--json", action="store_true", help="print the plan as JSON")
    planning.set_defaults(handler=_command_plan)
