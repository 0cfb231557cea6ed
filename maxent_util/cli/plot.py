"""``maxent-util plot``: utilities, a bump chart of rankings, cactus and survival plots."""

from __future__ import annotations

import argparse
from typing import Any, Sequence

from .core import CommandLineError, _PAPER_T_MAX, _progress, _seconds, _show_progress
from .files import _figure_target, _file_flags, _save
from .inputs import _add_ranking_inputs, _runtime_table, _read_rule, _is_classic
from .rank import _ranking
from .sweep import _add_sweep_flags, _plot_sweep
from .race import _add_race_flags, _plot_race


def _command_plot(arguments: argparse.Namespace, out: Any) -> int:
    from .. import plots

    if arguments.sweep:
        return _plot_sweep(arguments, out)
    if arguments.race:
        return _plot_race(arguments, out)
    race_only = ("delta", "first_run_limit", "run_limit", "seed")
    if any(getattr(arguments, name) is not None for name in race_only):
        raise CommandLineError("--delta, --first-run-limit, --run-limit and --seed only go with "
                               "--race")
    if arguments.family is not None or arguments.start is not None or arguments.stop is not None:
        raise CommandLineError("--family, --from and --to only go with --sweep")
    if arguments.cactus or arguments.survival:
        return _plot_runs(arguments, out)
    target = _figure_target(arguments.output or ("ranking.png" if arguments.ranking else "utilities.png"),
                            flag="--output", force=arguments.force, parents=arguments.parents)
    if arguments.ranking:
        frame, label = _ranking(arguments)
        figure = plots.plot_ranking(frame, title=f"Rankings of {label}")
        _save(figure, target, force=arguments.force)
        if getattr(arguments, "rules_note", None):
            print(arguments.rules_note, file=out)
    else:
        if arguments.file is not None or arguments.dataset is not None:
            raise CommandLineError("a runtime FILE or --dataset only goes with --ranking")
        if arguments.par or arguments.solved or arguments.rules or arguments.cutoff is not None:
            raise CommandLineError("--par, --solved, --rules and --cutoff only go with --ranking")
        utilities = _overlay_utilities(arguments.utility or list(plots.PAPER_UTILITIES), arguments.progress)
        t_max = arguments.t_max
        if t_max is None and not arguments.utility:
            t_max = _PAPER_T_MAX
        figure = plots.plot_utilities(utilities, t_max=t_max, log_x=arguments.log_x)
        _save(figure, target, force=arguments.force)
    print(f"wrote {target}", file=out)
    return 0


def _overlay_utilities(specs: Sequence[str], progress: bool | None) -> dict[str, Any]:
    """The utilities of --utility SPEC to draw (classic rules are no curve)."""

    show = _show_progress(progress, len(specs))
    utilities = {}
    for index, spec in enumerate(specs, start=1):
        _progress(show, f"[{index}/{len(specs)}] deriving {spec.strip()}")
        rule = _read_rule(spec)
        if _is_classic(rule):
            raise CommandLineError(f"argument --utility: cannot draw the classic rule {spec!r}")
        utilities[spec.strip()] = rule
    return utilities


def _plot_runs(arguments: argparse.Namespace, out: Any) -> int:
    """``plot --cactus`` and ``plot --survival``: the runs of a runtime file or data set."""
    from .. import plots

    kind = "cactus" if arguments.cactus else "survival"
    target = _figure_target(arguments.output or f"{kind}.png", flag="--output",
                            force=arguments.force, parents=arguments.parents)
    if arguments.par or arguments.solved or arguments.rules:
        raise CommandLineError(f"--par, --solved and --rules only go with --ranking; --{kind} "
                               "overlays the utilities given with --utility")
    if arguments.t_max is not None or arguments.log_x:
        raise CommandLineError(f"--t-max and --log-x only go with utility figures, not --{kind}")
    table, label = _runtime_table(arguments)
    utilities = _overlay_utilities(arguments.utility or [], arguments.progress)
    if kind == "cactus":
        figure = plots.plot_cactus(table, utility=utilities or None, title=f"Cactus plot of {label}")
    else:
        figure = plots.plot_survival(table, utility=utilities or None,
                                     title=f"Runs still running, {label}")
    _save(figure, target, force=arguments.force)
    print(f"wrote {target}", file=out)
    return 0


def add_parser(commands: Any) -> None:
    """Add ``plot`` to the subcommands ``commands``."""
    plot = commands.add_parser("plot", help="draw utilities, a bump chart of rankings, or the runs",
                               description="Draw utility curves (default: the paper's seven families "
                                           "with kappa0 = 24), or with --ranking a bump chart of the "
                                           "ranks of algorithms under each rule, or with --cactus or "
                                           "--survival the runs of a runtime FILE or --dataset.")
    kinds = plot.add_mutually_exclusive_group()
    kinds.add_argument("--ranking", action="store_true", help="draw ranks instead of utilities")
    kinds.add_argument("--cactus", action="store_true",
                       help="draw each algorithm's solved runs, sorted by runtime (the SAT "
                            "Competition's cactus plot); --utility SPEC overlays utilities")
    kinds.add_argument("--survival", action="store_true",
                       help="draw the fraction of each algorithm's runs still running against "
                            "time (log axis; Kaplan-Meier where cutoffs differ); --utility SPEC "
                            "overlays utilities")
    kinds.add_argument("--sweep", action="store_true",
                       help="draw each algorithm's score against --parameter of --family, "
                            "from --from to --to, with the leader's changes marked")
    kinds.add_argument("--race", action="store_true",
                       help="race the algorithms of FILE under one --utility with --delta: "
                            "UP's epsilon* and survivors against the time spent, and Naive's")
    _add_ranking_inputs(plot, default_note="Default: the paper's figure.")
    _add_race_flags(plot, plot=True)
    _add_sweep_flags(plot, required=False)
    plot.add_argument("-o", "--output", metavar="FILE.png",
                      help="where to write (default utilities.png, ranking.png, cactus.png or "
                           "survival.png; .svg and .pdf too)")
    plot.add_argument("--t-max", type=_seconds, default=None, metavar="SECONDS",
                      help="right end of the runtime axis")
    plot.add_argument("--log-x", action="store_true", help="logarithmic runtime axis")
    _file_flags(plot)
    plot.set_defaults(handler=_command_plot)
