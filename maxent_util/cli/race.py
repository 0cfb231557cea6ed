"""``maxent-util race`` (and ``plot --race``): UP and Naive replayed on a runs table."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from ..durations import readable_duration
from .core import (CommandLineError, _DeprecatedAlias, _nonnegative_int, _positive_float,
                   _probability_value, _seconds, _write_csv)
from .files import _figure_target, _save
from .inputs import (DATASETS, _fix_greedy_file, _is_classic, _read_limit_flag, _read_rule,
                     _runtime_table)


def _race_inputs(arguments: argparse.Namespace, spec: str) -> tuple[Any, str, Any, Any]:
    """The runner of the runs table, its label, the utility of SPEC and Naive's run limit."""
    from ..racing import TableRunner

    table, label = _runtime_table(arguments)
    utility = _read_rule(spec)
    if _is_classic(utility):
        raise CommandLineError(f"argument --utility: a race needs a utility, not the classic "
                               f"rule {spec!r}")
    runner = TableRunner(table, duplicates=arguments.duplicates, missing=arguments.missing)
    for flag, limit in (("--run-limit", arguments.run_limit),
                        ("--first-run-limit", arguments.first_run_limit)):
        if limit is not None and limit > runner.max_captime:
            raise CommandLineError(f"argument {flag}: {readable_duration(limit)} is above the "
                                   f"cutoff of {label}, {readable_duration(runner.max_captime)}")
    captime = arguments.run_limit if arguments.run_limit is not None else runner.max_captime
    return runner, label, utility, captime


def _race_progress(show: bool) -> Any:
    """A function printing one carriage-return line per round on stderr (None if not shown)."""
    if not show:
        return None

    def line(row: dict[str, Any]) -> None:
        print(f"\rm = {row['m']}, survivors {row['survivors']}, epsilon* {row['epsilon']:.4f}, "
              f"time {readable_duration(row['total_time'])} ", end="", file=sys.stderr, flush=True)

    return line


#: an epsilon* at least this large (on a utility's scale of 0 to 1) tells configurations apart
#: hardly at all: the race says so in words rather than name a winner it cannot vouch for
_WEAK_GUARANTEE = 0.5


def _command_race(arguments: argparse.Namespace, out: Any) -> int:
    from ..racing import naive, up

    if arguments.naive and arguments.epsilon is None:
        raise CommandLineError("--naive needs --epsilon (the accuracy Naive is sized for)")
    runner, label, utility, captime = _race_inputs(arguments, arguments.utility)
    spec = arguments.utility.strip()
    if arguments.naive:
        found = naive(runner, None, None, utility, arguments.epsilon, arguments.delta, captime,
                      seed=arguments.seed)
        record = {"procedure": "naive", "data": label, "utility": spec, "delta": found.delta,
                  "epsilon": found.epsilon, "run_limit": found.captime, "m": found.m,
                  "configurations": len(runner.configs), "incumbent": str(found.configuration),
                  "total_time": found.total_time}
        if arguments.json:
            json.dump(record, out, indent=2)
            out.write("\n")
        elif arguments.csv:
            _write_csv(found.means.rename("mean_utility"), out)
        else:
            print(f"Naive on {label} under {spec}: each of {len(runner.configs)} configurations "
                  f"ran on m = {found.m} instances with a run limit of "
                  f"{readable_duration(found.captime)}",
                  file=out)
            print(f"best: {found.configuration} (mean utility "
                  f"{float(found.means.max()):.4f}), within epsilon = {found.epsilon:g} of the "
                  f"best with probability at least {1 - found.delta:g}", file=out)
            print(f"total time of runs: {readable_duration(found.total_time)}", file=out)
        return 0
    show = arguments.progress if arguments.progress is not None else sys.stderr.isatty()
    trace = up(runner, None, None, utility, arguments.delta, k0=arguments.first_run_limit,
               epsilon_min=arguments.epsilon or 0.0, budget=arguments.budget,
               seed=arguments.seed, progress=_race_progress(show))
    if show:
        print(file=sys.stderr)
    if arguments.csv:
        _write_csv(trace, out, index=False)
        return 0
    last = trace.iloc[-1]
    if arguments.json:
        json.dump({"procedure": "up", "data": label, "utility": spec, "delta": arguments.delta,
                   "first_run_limit": arguments.first_run_limit, "seed": arguments.seed,
                   "stopped": trace.attrs["stopped"],
                   "m": int(last["m"]), "incumbent": str(last["incumbent"]),
                   "epsilon": float(last["epsilon"]), "survivors": int(last["survivors"]),
                   "total_time": float(last["total_time"]),
                   "trace": json.loads(trace.to_json(orient="records"))}, out, indent=2)
        out.write("\n")
        return 0
    print(f"UP on {label} under {spec}, delta = {arguments.delta:g} (first run limit "
          f"{readable_duration(arguments.first_run_limit)}, "
          f"seed {arguments.seed}): stopped after m = {int(last['m'])} instances "
          f"({trace.attrs['stopped']})", file=out)
    print(f"incumbent: {last['incumbent']}, within epsilon* = {last['epsilon']:.4f} of the best "
          f"with probability at least {1 - arguments.delta:g}", file=out)
    if float(last["epsilon"]) >= _WEAK_GUARANTEE:
        print(f"  this says little: on a utility between 0 and 1, a gap of up to "
              f"{float(last['epsilon']):.2f} to the best is allowed, so the incumbent may be any "
              f"of the configurations; more instances (or a longer --budget) narrow it", file=out)
    print(f"configurations left: {int(last['survivors'])} of {len(runner.configs)}; run limits "
          f"{readable_duration(float(last['run_limit_min']))} to "
          f"{readable_duration(float(last['run_limit_max']))}; total time of runs "
          f"{readable_duration(float(last['total_time']))}", file=out)
    return 0


def _plot_race(arguments: argparse.Namespace, out: Any) -> int:
    """``plot --race``: epsilon* and survivors against the time spent, UP and Naive."""
    import numpy as np

    from .. import plots
    from ..racing import naive_curve, up

    target = _figure_target(arguments.output or "race.png", flag="--output",
                            force=arguments.force, parents=arguments.parents)
    _fix_greedy_file(arguments)
    if arguments.delta is None or not arguments.utility or len(arguments.utility) != 1:
        raise CommandLineError("--race needs one --utility SPEC and --delta D")
    if arguments.par or arguments.solved or arguments.rules or arguments.t_max is not None:
        raise CommandLineError("--par, --solved, --rules and --t-max do not go with --race")
    if arguments.file is None and arguments.dataset is None:
        arguments.dataset = "satcomp2021-parallel"
    runner, label, utility, captime = _race_inputs(arguments, arguments.utility[0])
    k0 = 1.0 if arguments.first_run_limit is None else arguments.first_run_limit
    seed = 0 if arguments.seed is None else arguments.seed
    trace = up(runner, None, None, utility, arguments.delta, k0=k0, seed=seed)
    curve = naive_curve(runner, None, None, utility, arguments.delta, captime,
                        np.round(np.arange(0.05, 1.0, 0.05), 2), seed=seed)
    figure = plots.plot_race(trace, curve, title=f"{label}: {arguments.utility[0].strip()}, "
                                                 f"delta = {arguments.delta:g} (Naive at "
                                                 f"run limit {readable_duration(captime)})")
    _save(figure, target, force=arguments.force)
    print(f"wrote {target}", file=out)
    return 0


def _add_race_flags(parser: argparse.ArgumentParser, *, plot: bool) -> None:
    note = " (with --race)" if plot else ""
    parser.add_argument("--delta", type=_probability_value, required=not plot, default=None,
                        metavar="D", help="the probability that the guarantee fails" + note)
    parser.add_argument("--first-run-limit", type=_seconds, default=None if plot else 1.0,
                        metavar="SECONDS", help="UP's first run limit, doubled as the race needs "
                                                "(default 1 s)" + note)
    parser.add_argument("--k0", type=_seconds, dest="first_run_limit", action=_DeprecatedAlias,
                        new="--first-run-limit", help=argparse.SUPPRESS)
    # the race's limit on one run: neither the user's captime (a random K) nor the data's cutoff
    parser.add_argument("--run-limit", type=_seconds, default=None, metavar="SECONDS",
                        help="Naive's run limit, where it stops each run (default the data's "
                             "cutoff)" + note)
    parser.add_argument("--captime", type=_seconds, dest="run_limit", action=_DeprecatedAlias,
                        new="--run-limit", help=argparse.SUPPRESS)
    parser.add_argument("--seed", type=_nonnegative_int, default=None if plot else 0, metavar="S",
                        help="seed of the random order of the instances (default 0)" + note)


def add_parser(commands: Any) -> None:
    """Add ``race`` to the subcommands ``commands``."""
    racing = commands.add_parser(
        "race", help="find the best algorithm by utility without running everything (UP, Naive)",
        description="Replay a runs table as a race (Graham, Leyton-Brown and Roughgarden, "
                    "Utilitarian Algorithm Configuration, NeurIPS 2023): utilitarian "
                    "procrastination (UP) adds instances one at a time in a random order, drops "
                    "algorithms that are provably worse and doubles run limits only when capped "
                    "runs limit what it knows; it reports the incumbent and epsilon*, within "
                    "which it is of the best with probability at least 1 - D. With --naive, "
                    "every algorithm runs on the same m instances at one run limit instead.")
    racing.add_argument("file", nargs="?", metavar="FILE",
                        help="runtime data, as for rank; - reads standard input")
    racing.add_argument("--dataset", choices=sorted(DATASETS), default=None,
                        help="use bundled data instead of FILE")
    racing.add_argument("--format", choices=("satcomp", "long", "aslib", "benchexec"),
                        default=None, help="format of FILE (by default told from its content)")
    racing.add_argument("--utility", required=True, metavar="SPEC",
                        help="the utility, e.g. 'pareto(60, 1)' or 'exp(-t/600)'")
    _add_race_flags(racing, plot=False)
    racing.add_argument("--epsilon", type=_positive_float, default=None, metavar="E",
                        help="UP: stop once epsilon* is at most E; Naive: the accuracy it is "
                             "sized for (required with --naive)")
    racing.add_argument("--naive", action="store_true",
                        help="run the Naive procedure instead of UP")
    racing.add_argument("--budget", type=_seconds, default=None, metavar="SECONDS",
                        help="UP: stop once this much time of runs is spent")
    racing.add_argument("--cutoff", type=_seconds, metavar="SECONDS",
                        help="treat every run as stopped at this time, the data's cutoff "
                             "(runs at or past it are unsolved)")
    _read_limit_flag(racing)
    racing.add_argument("--duplicates", choices=("raise", "first"), default="raise",
                        help="several runs of one algorithm on one instance: refuse (default) "
                             "or keep the first")
    racing.add_argument("--missing", choices=("raise", "unsolved"), default="raise",
                        help="algorithms run on different instances: refuse (default), or count "
                             "a missing run as capped at the cutoff")
    racing.add_argument("--progress", action="store_true", default=None,
                        help="show m, survivors, epsilon* and time on one line of stderr "
                             "(default: when stderr is a terminal)")
    racing.add_argument("--no-progress", action="store_false", dest="progress",
                        help="never show the progress line, even on a terminal")
    formats = racing.add_mutually_exclusive_group()
    formats.add_argument("--csv", action="store_true",
                         help="print UP's trace (Naive: each algorithm's mean) as CSV")
    formats.add_argument("--json", action="store_true", help="print the result as JSON")
    racing.set_defaults(handler=_command_race)
