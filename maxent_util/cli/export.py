"""``maxent-util export``: a utility as Python, C, a LaTeX derivation, a configurator's cost
module or an irace set-up."""

from __future__ import annotations

import argparse
import warnings
from pathlib import Path
from typing import Any

from .inputs import _read_rule, _is_classic
from .core import CommandLineError, _DeprecatedAlias, _positive_int, _seconds
from .files import _file_flags, _inside_current_folder, _target, _write_text

#: options that only one target reads, and that target
_ONLY_WITH = {"tool": ("--for", "--cost"), "run_command": ("--command", "--irace"),
              "run_limit": ("--run-limit", "--irace"), "instances": ("--instance", "--irace"),
              "exit_codes": ("--exit-code", "--irace"), "max_experiments": ("--max-experiments", "--irace"),
              "space": ("--space", "--irace"), "clock": ("--clock", "--irace")}


#: ``--capped``'s words and the library's (:data:`maxent_util.export._cost_core.CAPPED_RULES`,
#: which keeps the configurators' word "cutoff" for the run limit they pass a cost)
_CAPPED_RULES = {"zero": "zero", "run-limit": "cutoff"}


def _capped_rule(text: str) -> str:
    """``--capped``: how a capped run costs, as the library names it; ``cutoff``, the rule's
    name before 0.4, still works and warns."""
    if text == "cutoff":
        warnings.warn("--capped cutoff is deprecated and will be removed; use --capped run-limit "
                      "(the same rule)", FutureWarning, stacklevel=2)
        return "cutoff"
    if text not in _CAPPED_RULES:
        raise argparse.ArgumentTypeError(f"expected one of {', '.join(_CAPPED_RULES)}; "
                                         f"got {text!r}")
    return _CAPPED_RULES[text]


def _check_combinations(arguments: argparse.Namespace, flag: str) -> None:
    for dest, (option, target) in _ONLY_WITH.items():
        if getattr(arguments, dest) is not None and flag != target:
            raise CommandLineError(f"argument {option}: only with {target}")
    if arguments.capped is not None and flag not in ("--cost", "--irace"):
        raise CommandLineError("argument --capped: only with --cost or --irace")
    if flag == "--irace":
        for dest, option in (("run_command", "--command"), ("run_limit", "--run-limit")):
            if getattr(arguments, dest) is None:
                raise CommandLineError(f"argument --irace: needs {option}")


def _export_irace(export: Any, utility: Any, arguments: argparse.Namespace, out: Any) -> int:
    from ..processes import refuse_old_placeholder

    refuse_old_placeholder(arguments.run_command, "--command", "maxent-util export")
    folder = Path(arguments.irace)
    if folder.exists() and not folder.is_dir():
        raise CommandLineError(f"argument --irace: {arguments.irace!r} is not a directory")
    space = ()
    if arguments.space is not None:
        from ..space import ParameterSpace

        space = ParameterSpace.read(arguments.space)
    export.export_irace(folder, arguments.run_command, utility, arguments.run_limit, space=space,
                        instances=arguments.instances or (), capped=arguments.capped or "zero",
                        exit_codes=tuple(arguments.exit_codes or (0,)),
                        clock=arguments.clock or "wall",
                        budget=arguments.max_experiments or 1000, overwrite=arguments.force,
                        parents=arguments.parents or _inside_current_folder(folder.parent))
    parameters = (f"parameters.txt ({len(space)} options)" + (", forbidden.txt" if space.forbidden else "")
                  + (", configurations.txt (the defaults)" if any(p.default is not None for p in space) else "")
                  if space else "parameters.txt (empty: describe the parameters irace sets, or pass "
                                "--space FILE)")
    print(f"wrote {folder}: target-runner, cost.py, scenario.txt, {parameters}, instances.txt; run "
          f"irace there", file=out)
    return 0


def _command_export(arguments: argparse.Namespace, out: Any) -> int:
    try:
        from .. import export
    except ImportError as error:  # pragma: no cover - the module ships with the package
        raise CommandLineError(f"export is unavailable: {error}") from None
    flag, path = next((f, p) for f, p in (("--python", arguments.python), ("--c", arguments.c),
                                          ("--latex", arguments.latex_file), ("--cost", arguments.cost),
                                          ("--irace", arguments.irace)) if p is not None)
    _check_combinations(arguments, flag)
    utility = _read_rule(arguments.utility)
    if _is_classic(utility):
        raise CommandLineError(f"argument --utility: export needs a utility, not the classic rule "
                               f"{arguments.utility!r}")
    if flag == "--irace":
        return _export_irace(export, utility, arguments, out)
    target = _target(path, flag=flag, force=arguments.force, parents=arguments.parents)
    if flag == "--cost":
        export.export_cost(utility, target, tool=arguments.tool or "generic",
                           capped=arguments.capped or "zero", overwrite=arguments.force)
    elif flag == "--python":
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
    export = commands.add_parser(
        "export", help="write a utility as Python, C, a LaTeX derivation, a configurator's cost "
                       "or an irace set-up",
        description="Write a utility for another tool: a standalone Python or C scorer, its LaTeX "
                    "derivation, a cost module for SMAC3, irace or Optuna, or a whole irace "
                    "set-up that runs a command. Each file is checked against the library's own "
                    "numbers before it is written; an existing file is kept unless --force.")
    export.add_argument("--utility", required=True, metavar="SPEC",
                        help="the utility: a preset such as 'pareto(5, 1)', an expression in t "
                             "such as 'exp(-t/10)', or @FILE (a utility or law's JSON document)")
    targets = export.add_mutually_exclusive_group(required=True)
    targets.add_argument("--python", metavar="FILE", help="a standalone Python scorer")
    targets.add_argument("--c", metavar="FILE", help="a C function")
    targets.add_argument("--latex", dest="latex_file", metavar="FILE", help="the LaTeX derivation")
    targets.add_argument("--cost", metavar="FILE",
                         help="a standalone cost module for a configurator (numpy, no maxent_util): "
                              "utility(t), inverse(u), cost(runtime, status, cutoff) = 1 - u")
    targets.add_argument("--irace", metavar="DIR",
                         help="an irace set-up: a target runner (Python, no shell, the run stopped "
                              "at --run-limit), the cost module, scenario, parameters and "
                              "instances")
    export.add_argument("--for", dest="tool", choices=["generic", "smac", "irace", "optuna"],
                        help="with --cost: whose convention the module documents (default generic)")
    export.add_argument("--capped", type=_capped_rule, metavar="{zero,run-limit}",
                        help="with --cost or --irace: a run stopped at its run limit costs 1 "
                             "(zero, the default) or 1 - u(run limit) (run-limit)")
    # not dest "command": the top parser keeps the subcommand's name there
    export.add_argument("--command", dest="run_command", metavar="CMD",
                        help='with --irace: the run\'s command, with {config} and {instance}, e.g. '
                             '"minisat {config} {instance}"')
    # where the runner stops a run: a run limit (the data's cutoff and the user's captime are
    # other ideas); --cutoff, its name before 0.4, still works and warns
    export.add_argument("--run-limit", type=_seconds, metavar="SECONDS",
                        help="with --irace: each run is stopped after this long (its run limit)")
    export.add_argument("--cutoff", dest="run_limit", type=_seconds, action=_DeprecatedAlias,
                        new="--run-limit", help=argparse.SUPPRESS)
    export.add_argument("--instance", dest="instances", action="append", metavar="PATH",
                        help="with --irace: a training instance (repeat)")
    export.add_argument("--exit-code", dest="exit_codes", type=int, action="append", metavar="N",
                        help="with --irace: an exit status of a run that finished (repeat; default "
                             "0; SAT solvers 10 and 20)")
    export.add_argument("--space", metavar="FILE",
                        help="with --irace: the solver's parameter space (classic PCS, ConfigSpace's "
                             "PCS or JSON, irace's parameter file) for parameters.txt and irace's "
                             "forbidden.txt")
    export.add_argument("--clock", choices=("wall", "cpu"), default=None,
                        help="with --irace: what the runner measures and stops at --run-limit: "
                             "elapsed time (wall, the default) or the command's CPU time (cpu)")
    export.add_argument("--max-experiments", type=_positive_int, metavar="N",
                        help="with --irace: the scenario's budget of runs (default 1000)")
    _file_flags(export)
    export.set_defaults(handler=_command_export)
