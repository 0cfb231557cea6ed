"""``maxent-util race`` (and ``plot --race``): UP and Naive replayed on a runs table."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from ..durations import readable_duration
from .core import (CommandLineError, _DeprecatedAlias, _nonnegative_int, _positive_float,
                   _positive_int, _probability_value, _seconds, _write_csv)
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
        if limit is not None and limit > runner.max_run_limit:
            raise CommandLineError(f"argument {flag}: {readable_duration(limit)} is above the "
                                   f"cutoff of {label}, {readable_duration(runner.max_run_limit)}")
    limit = arguments.run_limit if arguments.run_limit is not None else runner.max_run_limit
    return runner, label, utility, limit


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


def _say_if_weak(epsilon: float, out: Any) -> None:
    """A guarantee near 1 is true but vacuous: say so in words."""
    if epsilon >= _WEAK_GUARANTEE:
        print(f"  this says little: on a utility between 0 and 1, a gap of up to {epsilon:.2f} "
              "to the best is allowed, so the incumbent may be any of the configurations; more "
              "instances (or a longer --budget) narrow it", file=out)


def _command_race(arguments: argparse.Namespace, out: Any) -> int:
    from ..racing import naive, up

    if _races_commands(arguments):
        return _race_commands(arguments, out)
    if arguments.naive and arguments.epsilon is None:
        raise CommandLineError("--naive needs --epsilon (the accuracy Naive is sized for)")
    runner, label, utility, limit = _race_inputs(arguments, arguments.utility)
    spec = arguments.utility.strip()
    if arguments.naive:
        found = naive(runner, None, None, utility, arguments.epsilon, arguments.delta, limit,
                      seed=arguments.seed)
        record = {"procedure": "naive", "data": label, "utility": spec, "delta": found.delta,
                  "epsilon": found.epsilon, "run_limit": found.run_limit, "m": found.m,
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
                  f"{readable_duration(found.run_limit)}",
                  file=out)
            print(f"best: {found.configuration} (mean utility "
                  f"{float(found.means.max()):.4f}), within epsilon = {found.epsilon:g} of the "
                  f"best with probability at least {1 - found.delta:g}", file=out)
            print(f"total time of runs: {readable_duration(found.total_time)}", file=out)
        return 0
    show = arguments.progress if arguments.progress is not None else sys.stderr.isatty()
    trace = up(runner, None, None, utility, arguments.delta,
               first_run_limit=arguments.first_run_limit,
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
    _say_if_weak(float(last["epsilon"]), out)
    print(f"configurations left: {int(last['survivors'])} of {len(runner.configs)}; run limits "
          f"{readable_duration(float(last['run_limit_min']))} to "
          f"{readable_duration(float(last['run_limit_max']))}; total time of runs "
          f"{readable_duration(float(last['total_time']))}", file=out)
    return 0


#: the most configurations one race of real runs draws (each is a line of its log's header)
_MOST_CONFIGS = 100_000

#: the options of a race of real runs, and their destinations
_COMMAND_OPTIONS = {"--space": "space", "--instances": "instances", "--configs": "configs",
                    "--jobs": "jobs", "--dask": "dask", "--clock": "clock", "--runs": "runs",
                    "--exit-code": "exit_codes", "--worthless": "worthless"}


def _races_commands(arguments: argparse.Namespace) -> bool:
    """Whether ``race`` runs a command (``--command``) rather than replay a table; the options
    of one route refused on the other."""
    if getattr(arguments, "run_command", None) is None:
        for option, dest in _COMMAND_OPTIONS.items():
            if getattr(arguments, dest, None) is not None:
                raise CommandLineError(f"argument {option}: only with --command")
        return False
    if arguments.file is not None or arguments.dataset is not None:
        raise CommandLineError("argument --command: races real runs; FILE and --dataset replay "
                               "a table: give one or the other")
    for option, dest in (("--space", "space"), ("--instances", "instances"),
                         ("--run-limit", "run_limit")):
        if getattr(arguments, dest) is None:
            raise CommandLineError(f"argument --command: needs {option}")
    if arguments.jobs is not None and arguments.dask is not None:
        raise CommandLineError("argument --jobs: not with --dask (the cluster's workers run the "
                               "runs)")
    return True


def _race_commands(arguments: argparse.Namespace, out: Any) -> int:
    """``race --command TEMPLATE --space FILE --instances FILE``: UP or Naive on real runs,
    each recorded in --runs and replayed from it when the same race starts again."""
    import contextlib
    from concurrent.futures import ThreadPoolExecutor

    import numpy as np

    from .. import _dask
    from ..processes import ProcessRunner, refuse_old_placeholder
    from ..racing import naive, up
    from ..racing.record import RunLog, digest, read_instances
    from ..space import ParameterSpace

    owner = "maxent-util race"
    if arguments.naive and arguments.epsilon is None:
        raise CommandLineError("--naive needs --epsilon (the accuracy Naive is sized for)")
    refuse_old_placeholder(arguments.run_command, "--command", owner)
    spec = arguments.utility.strip()
    utility = _read_rule(spec)
    if _is_classic(utility):
        raise CommandLineError(f"argument --utility: a race needs a utility, not the classic "
                               f"rule {spec!r}")
    space = ParameterSpace.read(arguments.space)
    instances = read_instances(arguments.instances, owner=owner)
    # the default first, then draws of the space: the seed fixes them and the instances' order
    count = 8 if arguments.configs is None else arguments.configs
    if count > _MOST_CONFIGS:
        raise CommandLineError(f"argument --configs: at most {_MOST_CONFIGS:,} configurations "
                               f"in one race; got {count:,}")
    rng = np.random.default_rng(arguments.seed)
    drawn = [space.default()] + [space.sample(rng) for _ in range(count)]
    names = ["default"] + [f"c{k:0{len(str(count))}d}" for k in range(1, count + 1)]
    words = {name: space.words(config, owner=owner) for name, config in zip(names, drawn)}
    clock = arguments.clock or "wall"
    exit_codes = tuple(arguments.exit_codes or (0,))
    runs_path = arguments.runs or "runs.jsonl"
    with contextlib.ExitStack() as stack:
        executor = None
        if arguments.dask is not None:
            executor = stack.enter_context(_dask.client(arguments.dask, f"{owner} --dask"))
        elif (arguments.jobs or 1) > 1:
            executor = stack.enter_context(ThreadPoolExecutor(max_workers=arguments.jobs))
        runner = ProcessRunner(arguments.run_command, clock=clock, configurations=words,
                               exit_codes=exit_codes, executor=executor)
        header = {"command": list(runner.words), "clock": clock, "exit_codes": list(exit_codes),
                  "space": digest(space.text("json")), "instances": instances,
                  "utility": spec, "seed": arguments.seed, "configurations": words}
        log = stack.enter_context(RunLog(runner, runs_path, header))
        level = 0.0 if arguments.worthless is None else arguments.worthless
        if arguments.naive:
            found = naive(log, names, instances, utility, arguments.epsilon, arguments.delta,
                          arguments.run_limit, seed=arguments.seed, worthless=level)
        else:
            show = arguments.progress if arguments.progress is not None else sys.stderr.isatty()
            trace = up(log, names, instances, utility, arguments.delta,
                       first_run_limit=arguments.first_run_limit,
                       max_run_limit=arguments.run_limit, epsilon_min=arguments.epsilon or 0.0,
                       budget=arguments.budget, seed=arguments.seed,
                       progress=_race_progress(show), worthless=level)
            if show:
                print(file=sys.stderr)
    if arguments.naive:
        best, mean = found.configuration, float(found.means[found.configuration])
        record = {"procedure": "naive", "epsilon": found.epsilon, "m": found.m,
                  "total_time": found.total_time, "worthless_from": found.worthless_from,
                  "saved": found.saved}
    else:
        best = trace.attrs["incumbent"]
        mean = float(trace.attrs["configurations"].loc[best, "mean_utility"]) if best else None
        last = trace.iloc[-1] if len(trace) else None
        record = {"procedure": "up", "first_run_limit": arguments.first_run_limit, "stopped": trace.attrs["stopped"],
                  "m": int(last["m"]) if last is not None else 0,
                  "epsilon": float(trace.attrs["epsilon"]),
                  "total_time": float(last["total_time"]) if last is not None else 0.0,
                  "worthless_from": trace.attrs["worthless_from"], "saved": trace.attrs["saved"]}
    record.update({"command": " ".join(runner.words), "utility": spec, "delta": arguments.delta,
                   "run_limit": arguments.run_limit, "clock": clock, "seed": arguments.seed,
                   "configurations": len(names), "instances": len(instances),
                   "incumbent": best, "words": words.get(best), "mean_utility": mean,
                   "runs": runs_path, "ran": log.ran, "replayed": log.replayed})
    if arguments.json:
        json.dump({**record, "worthless_from": _json_number(record["worthless_from"])}, out,
                  indent=2)
        out.write("\n")
        return 0
    if arguments.csv:
        _write_csv(found.means.rename("mean_utility") if arguments.naive else trace, out,
                   index=arguments.naive)
        return 0
    again = (f"the same command goes on from there: the {log.ran + log.replayed} runs in "
             f"{runs_path} are replayed, not run again")
    if best is None:  # interrupted in the first round
        print(f"interrupted before the first round ended; {again}", file=out)
        return 0
    what = (f"{len(names)} configurations of {' '.join(runner.words)!r} on {len(instances)} "
            f"instances under {spec}")
    if arguments.naive:
        print(f"Naive on {what}: each ran on m = {found.m} instances with a run limit of "
              f"{readable_duration(found.run_limit)} ({clock} clock)", file=out)
        print(f"best: {best} (mean utility {mean:.4f}), within epsilon = {found.epsilon:g} of "
              f"the best with probability at least {1 - found.delta:g}", file=out)
    else:
        print(f"UP on {what}, delta = {arguments.delta:g} (first run limit "
              f"{readable_duration(arguments.first_run_limit)}, run limit "
              f"{readable_duration(arguments.run_limit)}, {clock} clock, seed {arguments.seed}): "
              f"stopped after "
              f"m = {record['m']} instances ({trace.attrs['stopped']})", file=out)
        print(f"incumbent: {best} (mean utility {mean:.4f}), within epsilon* = "
              f"{record['epsilon']:.4f} of the best with probability at least "
              f"{1 - arguments.delta:g}", file=out)
        _say_if_weak(record["epsilon"], out)
    print(f"  its words: {' '.join(words[best]) or '(none: the defaults)'}", file=out)
    print(f"total time of runs: {readable_duration(record['total_time'])}; {log.ran} runs made, "
          f"{log.replayed} replayed from {runs_path}", file=out)
    if record["worthless_from"] < arguments.run_limit:
        print(f"runs stopped at {record['worthless_from']:.4g} s, where {spec} is "
              f"{'0' if level == 0 else f'at most {level:g}'} for good: at most "
              f"{readable_duration(record['saved'])} of runs saved", file=out)
    if record.get("stopped") == "interrupted":
        print(f"interrupted: {again}", file=out)
    return 0


def _json_number(value: float) -> float | None:
    """A number for strict JSON: infinity as null."""
    return value if value < float("inf") else None


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
    runner, label, utility, limit = _race_inputs(arguments, arguments.utility[0])
    k0 = 1.0 if arguments.first_run_limit is None else arguments.first_run_limit
    seed = 0 if arguments.seed is None else arguments.seed
    trace = up(runner, None, None, utility, arguments.delta, first_run_limit=k0,
               seed=seed)
    curve = naive_curve(runner, None, None, utility, arguments.delta, limit,
                        np.round(np.arange(0.05, 1.0, 0.05), 2), seed=seed)
    figure = plots.plot_race(trace, curve, title=f"{label}: {arguments.utility[0].strip()}, "
                                                 f"delta = {arguments.delta:g} (Naive at "
                                                 f"run limit {readable_duration(limit)})")
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
    _add_command_flags(racing)
    formats = racing.add_mutually_exclusive_group()
    formats.add_argument("--csv", action="store_true",
                         help="print UP's trace (Naive: each algorithm's mean) as CSV")
    formats.add_argument("--json", action="store_true", help="print the result as JSON")
    racing.set_defaults(handler=_command_race)


def _unit_interval_value(text: str) -> float:
    """An argparse type: a level of utility in [0, 1)."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 <= value < 1:
        raise argparse.ArgumentTypeError(f"expected a level of utility in [0, 1) such as 0.01; "
                                         f"got {text!r}")
    return value


def _add_command_flags(parser: argparse.ArgumentParser) -> None:
    """The options of a race of real runs (``race --command``)."""
    # not dest "command": the top parser keeps the subcommand's name there
    parser.add_argument("--command", dest="run_command", default=None, metavar="TEMPLATE",
                        help="race real runs of this command instead of a table: {config} "
                             "takes a configuration's words, {instance} an instance, e.g. "
                             "'minisat -verb=0 {config} {instance}' (never through a shell); "
                             "needs --space, --instances and --run-limit")
    parser.add_argument("--space", default=None, metavar="FILE",
                        help="with --command: the solver's parameter space (classic PCS, "
                             "ConfigSpace's PCS or JSON, irace's parameter file)")
    parser.add_argument("--instances", default=None, metavar="FILE",
                        help="with --command: the instances, one path a line (relative to the "
                             "current folder)")
    parser.add_argument("--configs", type=_nonnegative_int, default=None, metavar="N",
                        help="with --command: race the space's default and N configurations "
                             "drawn from it with --seed (default 8)")
    parser.add_argument("--jobs", type=_positive_int, default=None, metavar="N",
                        help="with --command: N runs at a time on this machine (default 1)")
    parser.add_argument("--dask", default=None, metavar="ADDRESS",
                        help="with --command: run the runs on the Dask cluster whose scheduler "
                             "is at ADDRESS (tcp://host:8786)")
    parser.add_argument("--clock", choices=("wall", "cpu"), default=None,
                        help="with --command: what a run's time is and what --run-limit stops: "
                             "elapsed time (wall, the default) or the command's CPU time (cpu)")
    parser.add_argument("--exit-code", dest="exit_codes", type=int, action="append",
                        default=None, metavar="N",
                        help="with --command: an exit status of a run that finished (repeat; "
                             "default 0; SAT solvers 10 and 20)")
    parser.add_argument("--worthless", type=_unit_interval_value, default=None, metavar="U",
                        help="with --command: stop every run, at the latest, where the utility "
                             "falls to U for good (default 0: where it is 0, as uniform(60) is "
                             "from 60 s on); such a run scores what it scores at the run limit")
    parser.add_argument("--runs", default=None, metavar="FILE",
                        help="with --command: record every run as it ends in FILE (default "
                             "runs.jsonl), and replay the runs recorded there when the same race "
                             "starts again")
