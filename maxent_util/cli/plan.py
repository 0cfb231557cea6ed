"""``maxent-util plan``: how many runs, and at what run limit, estimate a mean utility."""

from __future__ import annotations

import argparse
import json
from typing import Any

from ..durations import readable_duration
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
                   "delta": result.delta, "runs": result.runs, "run_limit": result.run_limit,
                   "min_total_time": result.min_total_time,
                   "max_total_time": result.max_total_time}, out, indent=2)
        out.write("\n")
        return 0
    print(f"utility: {arguments.utility.strip()}   u(t) = {_formula(utility.expr)}", file=out)
    print(f"estimate within epsilon = {result.epsilon:g} with probability >= 1 - delta = "
          f"{1 - result.delta:g}:", file=out)
    print(f"  runs needed:       {result.runs}", file=out)
    print(f"  run limit:         {readable_duration(result.run_limit)}   (where u falls to "
          f"epsilon/2)", file=out)
    print(f"  total time:        between {readable_duration(result.min_total_time)} (every run "
          f"done where u falls to 2 epsilon) and {readable_duration(result.max_total_time)} "
          f"(every run stopped at the run limit)", file=out)
    return 0


def add_parser(commands: Any) -> None:
    """Add ``plan`` to the subcommands ``commands``."""
    planning = commands.add_parser(
        "plan", help="runs and run limit to estimate a score within epsilon",
        description="How many runs, each stopped at what run limit, estimate an algorithm's mean "
                    "utility to within E of its true value with probability at least 1 - D. "
                    "Runs are stopped where the utility has fallen to E/2, so a plan never "
                    "waits for the long runs the utility does not value.")
    planning.add_argument("--epsilon", type=_number, required=True, metavar="E",
                          help="the largest error allowed in the mean utility, between 0 and 1 "
                               "(such as 0.05)")
    planning.add_argument("--delta", type=_number, required=True, metavar="D",
                          help="the chance allowed that the error is larger, between 0 and 1 "
                               "(such as 0.05)")
    planning.add_argument("--utility", required=True, metavar="SPEC",
                          help="the utility: a preset such as 'pareto(5, 1)', an expression in t, "
                               "or @FILE (a utility or law's JSON document)")
    planning.add_argument("--json", action="store_true", help="print the plan as JSON")
    planning.set_defaults(handler=_command_plan)
