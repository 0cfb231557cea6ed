"""``maxent-util sweep`` (and ``plot --sweep``): how a ranking changes with a utility's
parameter.
"""

from __future__ import annotations

import argparse
import json
import re
from typing import Any

from .._limits import MAX_POINTS
from ..durations import readable_duration
from .core import (CommandLineError, _count, _level, _number, _positive_int, _seconds,
                   _write_csv)
from .files import _figure_target, _save
from .inputs import _add_ranking_inputs, _fix_greedy_file, _runtime_table


def _fixed_parameter(text: str) -> tuple[str, float]:
    """``NAME=VALUE`` of ``--fixed``: a parameter name and a number."""
    match = re.fullmatch(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(\S+)\s*", text)
    if match is None:
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE such as alpha=1; got {text!r}")
    return match.group(1), _number(match.group(2))


def _sweep_inputs(arguments: argparse.Namespace, flag: str) -> tuple[Any, str, dict[str, Any]]:
    """The table, its label and the keywords of ranking_changes and sweep (sweep, plot --sweep)."""
    if arguments.utility or arguments.par or arguments.solved or arguments.rules:
        raise CommandLineError(f"--utility, --par, --solved and --rules do not go with {flag}: "
                               "the rule is --family with its --parameter swept")
    table, label = _runtime_table(arguments)
    options = dict(_sweep_keywords(arguments, flag), duplicates=arguments.duplicates,
                   missing=arguments.missing)
    return table, label, options


def _sweep_keywords(arguments: argparse.Namespace, flag: str) -> dict[str, Any]:
    """The preset, parameter, grid and fixed parameters of a sweep, checked (sweep, plot --sweep,
    report's sweep section)."""
    if arguments.family is None:
        raise CommandLineError(f"{flag} needs --family (a preset such as pareto) and --from, "
                               "--to")
    if arguments.start is None or arguments.stop is None:
        raise CommandLineError(f"{flag} needs --from and --to (the range of --parameter)")
    if not arguments.start < arguments.stop:
        raise CommandLineError(f"--from must be below --to; got --from {arguments.start:g} "
                               f"--to {arguments.stop:g}")
    fixed: dict[str, Any] = {}
    for name, value in arguments.fixed or []:
        if name in fixed:
            raise CommandLineError(f"argument --fixed: {name} is given twice")
        fixed[name] = value
    return dict(family=arguments.family, parameter=arguments.parameter,
                points=arguments.points, log=arguments.log, **fixed)


def _interval_records(changes: Any, top: int) -> list[dict[str, Any]]:
    """The intervals of ranking_changes as records of the top algorithms; neighbouring
    intervals whose top ``top`` (names and ranks) agree are joined."""
    records: list[dict[str, Any]] = []
    for row in changes.itertuples():
        order, ranks = list(row.order[:top]), list(row.ranks[:top])
        if records and records[-1]["order"] == order and records[-1]["ranks"] == ranks:
            records[-1]["end"] = float(row.end)
            continue
        records.append({"start": float(row.start), "end": float(row.end), "leader": row.leader,
                        "order": order, "ranks": ranks})
    return records


def _command_sweep(arguments: argparse.Namespace, out: Any) -> int:
    from ..sweeps import ranking_changes

    _fix_greedy_file(arguments)
    table, label, options = _sweep_inputs(arguments, "sweep")
    bounds = (arguments.start, arguments.stop)
    changes = ranking_changes(table, bounds=bounds, **options)
    parameter = arguments.parameter
    if arguments.csv:
        import pandas as pd

        records = _interval_records(changes, arguments.top)
        frame = pd.DataFrame({"start": [r["start"] for r in records],
                              "end": [r["end"] for r in records],
                              "leader": [r["leader"] for r in records],
                              "order": [";".join(r["order"]) for r in records],
                              "ranks": [";".join(map(str, r["ranks"])) for r in records]})
        _write_csv(frame, out, index=False)
    elif arguments.latex or arguments.markdown:
        from .tables import sweep_table

        records = _interval_records(changes, arguments.top)
        marks = _leader_ties(table, records, arguments, options)
        note = (f"not significantly different from the leader at the interval's middle value "
                f"of {parameter} ({'geometric' if arguments.log else 'arithmetic'} mean of its "
                "ends): two-sided Wilcoxon signed-rank test paired by instance, p of at least "
                f"{1 - arguments.ci:.10g} after Holm's adjustment over the comparisons with the "
                "leader; bold: ranked first on the interval")
        print(sweep_table(records, parameter, latex=arguments.latex, marks=marks, note=note),
              file=out)
    elif arguments.json:
        json.dump({"data": label, "family": changes.attrs["family"], "parameter": parameter,
                   "top": arguments.top,
                   "intervals": _interval_records(changes, arguments.top)}, out, indent=2)
        out.write("\n")
    else:
        grid = f"{'log' if arguments.log else 'linear'} grid of {arguments.points} points"
        # a preset's times are its kappas (kappa0, kappa1); alpha, beta, sigma are shapes
        shown = readable_duration if parameter.startswith("kappa") else "{:.6g}".format
        print(f"ranking of {label} under {changes.attrs['family']} as {parameter} runs from "
              f"{shown(arguments.start)} to {shown(arguments.stop)} ({grid}; change points "
              f"refined to 1e-10 relative); the top {arguments.top} on each interval where "
              "they differ:",
              file=out)
        for record in _interval_records(changes, arguments.top):
            podium = ", ".join(f"{rank}. {name}" for name, rank in
                               zip(record["order"], record["ranks"]))
            print(f"  {parameter} in [{shown(record['start'])}, {shown(record['end'])}]: {podium}",
                  file=out)
    return 0


def _leader_ties(table: Any, records: list[dict[str, Any]], arguments: argparse.Namespace,
                 options: dict[str, Any]) -> list[set[str]]:
    """Per interval, the algorithms shown that the paired test cannot tell from the leader at
    the interval's middle value (the preset derived there, compared as compare_with_best)."""
    import math

    from .. import families
    from ..comparison import compare_with_best

    preset = getattr(families, options["family"].strip().lower())
    fixed = {name: value for name, value in arguments.fixed or []}
    marks = []
    for record in records:
        start, end = record["start"], record["end"]
        middle = math.sqrt(start * end) if arguments.log else (start + end) / 2
        law = preset(**fixed, **{arguments.parameter: middle})
        found = compare_with_best(table, {"u": law.utility()}, ci=arguments.ci,
                                  duplicates=options["duplicates"], missing=options["missing"])
        shown = set(record["order"])
        marks.append({name for name in found.index[~found["significant"].to_numpy()]
                      if name in shown})
    return marks


def _plot_sweep(arguments: argparse.Namespace, out: Any) -> int:
    """``plot --sweep``: every algorithm's score against the parameter, leader changes marked."""
    import numpy as np

    from .. import plots
    from ..sweeps import ranking_changes, sweep

    target = _figure_target(arguments.output or "sweep.png", flag="--output",
                            force=arguments.force, parents=arguments.parents)
    if arguments.t_max is not None:
        raise CommandLineError("--t-max only goes with utility figures, not --sweep")
    _fix_greedy_file(arguments)
    if arguments.file is None and arguments.dataset is None:
        arguments.dataset = "satcomp2021-parallel"
    table, label, options = _sweep_inputs(arguments, "--sweep")
    spacing = np.geomspace if arguments.log else np.linspace
    values = spacing(arguments.start, arguments.stop, arguments.points)
    values[0], values[-1] = arguments.start, arguments.stop
    points_options = {key: options.pop(key) for key in ("points", "log")}
    frame = sweep(table, values=values, **options)
    changes = ranking_changes(table, bounds=(arguments.start, arguments.stop), **options,
                              **points_options)
    figure = plots.plot_sweep(frame, changes=changes, log_x=arguments.log or arguments.log_x,
                              title=f"{label}: {frame.attrs['family']}")
    _save(figure, target, force=arguments.force)
    print(f"wrote {target}", file=out)
    return 0


def _add_sweep_flags(parser: argparse.ArgumentParser, *, required: bool) -> None:
    note = "" if required else " (with --sweep, or in a report its sweep section)"
    parser.add_argument("--family", required=required, default=None, metavar="NAME",
                        help="the preset whose parameter is swept, e.g. pareto" + note)
    parser.add_argument("--parameter", default="kappa0", metavar="NAME",
                        help="the swept parameter (default kappa0)")
    parser.add_argument("--from", dest="start", type=_seconds, required=required,
                        metavar="VALUE", help="the smallest value of the parameter" + note)
    parser.add_argument("--to", dest="stop", type=_seconds, required=required,
                        metavar="VALUE", help="the largest value of the parameter" + note)
    parser.add_argument("--fixed", action="append", type=_fixed_parameter, metavar="NAME=VALUE",
                        help="the value of another parameter of the preset, e.g. alpha=1; "
                             "repeatable")
    parser.add_argument("--log", action="store_true",
                        help="scan log-spaced values (default: evenly spaced)")
    parser.add_argument("--points", type=lambda text: _count(text, least=3, most=MAX_POINTS),
                        default=512, metavar="N",
                        help=f"values scanned for changes (default 512, at most {MAX_POINTS})")


def add_parser(commands: Any) -> None:
    """Add ``sweep`` to the subcommands ``commands``."""
    sweeping = commands.add_parser(
        "sweep", help="for which values of a utility's parameter is A ahead of B?",
        description="Rank algorithms under a preset at every value of one of its parameters "
                    "between --from and --to: the values where the order changes (refined to "
                    "1e-10 relative) and the ranking on each interval between them.")
    _add_ranking_inputs(sweeping, default_note="Not used here: give --family.")
    _add_sweep_flags(sweeping, required=True)
    sweeping.add_argument("--top", type=_positive_int, default=3, metavar="N",
                          help="algorithms shown per interval (default 3); intervals where these agree are "
                               "joined, so a large N shows every change of the order")
    formats = sweeping.add_mutually_exclusive_group()
    formats.add_argument("--csv", action="store_true",
                         help="print the intervals as CSV (start, end, leader, order, ranks)")
    formats.add_argument("--json", action="store_true", help="print the intervals as JSON")
    formats.add_argument("--latex", action="store_true",
                         help="print the intervals as a LaTeX table for a paper (booktabs): the "
                              "leader in bold, a dagger on those the Wilcoxon test cannot tell "
                              "from it at the interval's middle value (level: --ci)")
    formats.add_argument("--markdown", action="store_true",
                         help="print the table of --latex in Markdown")
    sweeping.add_argument("--ci", type=_level, default=0.95, metavar="LEVEL",
                          help="level of the tests behind --latex and --markdown's dagger "
                               "(default 0.95)")
    sweeping.set_defaults(handler=_command_sweep)
