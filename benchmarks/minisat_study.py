"""minisat configured by utility: the paper's Section 5 experiment, on real runs here.

Run ``python benchmarks/minisat_study.py --out DIR`` (``--quick``: a tiny version for the
tests). It

1. generates instances with a seeded generator (cnfgen: random 3-CNF at the threshold,
   4.26 clauses a variable, pigeonhole principles and Tseitin formulas on random 4-regular
   graphs), and draws random configurations of Debian's minisat 2.2.1 (the first is
   minisat's default);
2. runs every configuration on every instance through one
   :class:`maxent_util.export.CostTarget` (a ``ProcessRunner`` with ``clock="cpu"``: the
   runtime is the solver's CPU time, which a loaded machine disturbs less), capped at the
   cutoff, and writes the long runs table ``runs.csv`` with the exact command of each run
   and ``study.json`` with the seeds, the solver's version and the options;
3. from that table: the cross-utility table (pick the best configuration under each of
   uniform, exponential, Pareto and log-Laplace utilities, evaluate the pick under all;
   the fraction of the best available utility lost) as ``cross_utility.csv`` and the heat
   map ``cross_utility.png``; UP against Naive on the same runs (replayed, time of runs to
   each epsilon) as ``racing.csv``;
4. irace, SMAC3 and Optuna (those asked for, all three by default) each configure minisat under one utility
   (``--utility``, Pareto by default) for a budget of runs on the training half of the
   instances; their winners, minisat's default and the table's best on the training half
   are run on the held-out half, and the utility each reaches there goes to
   ``configurators.csv``.

It prints the tables as it goes (Markdown) and ``summary.md`` at the end. A configurator
asked for that could not run (not installed, or failed) leaves its row out: the study
writes the rest, names it on standard error and in ``summary.md`` ("Not done"), and exits
with status 1. irace gets at least the budget its iterations need (``--quick`` included).
Nothing is asserted about speed; the numbers are one machine's.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pandas as pd

from maxent_util import __version__, parse_utility
from maxent_util._output import atomic_file
from maxent_util.errors import ExportError
from maxent_util.export import CostTarget, Parameter, cost_function, export_irace, find_irace
from maxent_util.racing import TableRunner, naive_curve, up
from maxent_util.ranking import cross_utility

#: minisat's options configured, with their ranges (minisat --help) and switches
SPACE = [
    Parameter("var_decay", "real", (0.75, 0.99), "-var-decay="),
    Parameter("cla_decay", "real", (0.99, 0.9999), "-cla-decay="),
    Parameter("rnd_freq", "real", (0.0, 0.1), "-rnd-freq="),
    Parameter("rinc", "real", (1.1, 4.0), "-rinc="),
    Parameter("gc_frac", "real", (0.05, 0.5), "-gc-frac="),
    Parameter("rfirst", "integer", (10, 1000), "-rfirst=", log=True),
    Parameter("luby", "categorical", ("-luby", "-no-luby")),
    Parameter("phase_saving", "categorical", ("-phase-saving=0", "-phase-saving=1", "-phase-saving=2")),
    Parameter("ccmin_mode", "categorical", ("-ccmin-mode=0", "-ccmin-mode=1", "-ccmin-mode=2")),
]
#: minisat 2.2's defaults
DEFAULT = {"var_decay": 0.95, "cla_decay": 0.999, "rnd_freq": 0.0, "rinc": 2.0, "gc_frac": 0.2,
           "rfirst": 100, "luby": "-luby", "phase_saving": "-phase-saving=2",
           "ccmin_mode": "-ccmin-mode=2"}
#: minisat prints nothing we read, exits 10 (SAT) or 20 (UNSAT)
COMMAND = ["minisat", "-verb=0", "{config}", "{instance}"]
EXIT_CODES = (10, 20)
EPSILONS = [0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]


def utilities(cutoff: float) -> dict[str, str]:
    """The four utilities of the cross-utility table, their scales set by the cutoff."""
    return {"uniform": f"uniform({cutoff:g})",
            "exponential": f"exponential({cutoff / 5:g})",
            "pareto": f"pareto({cutoff / 100:g}, 1)",
            "log_laplace": f"log_laplace({cutoff / 10:g}, 2)"}


def solver_version() -> str:
    try:
        done = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "minisat"], capture_output=True,
                              text=True, timeout=30)
        return done.stdout.strip() or "unknown"
    except OSError:
        return "unknown"


def make_instances(folder: Path, count: int, seed: int, quick: bool) -> pd.DataFrame:
    """``count`` instances, each from a generator with its own seed: 70% random 3-CNF at the
    threshold, 15% pigeonhole, 15% Tseitin (quick: small random 3-CNF only)."""
    import cnfgen
    import networkx as nx

    rng = np.random.default_rng(seed)
    folder.mkdir(parents=True, exist_ok=True)
    rows = []
    for index in range(count):
        draw = rng.random()
        instance_seed = int(rng.integers(2**31))
        if quick:
            family, size = "random-3cnf", int(rng.integers(120, 150))
            formula = cnfgen.RandomKCNF(3, size, round(4.26 * size), seed=instance_seed)
        elif draw < 0.7:
            family, size = "random-3cnf", int(rng.integers(170, 236))
            formula = cnfgen.RandomKCNF(3, size, round(4.26 * size), seed=instance_seed)
        elif draw < 0.85:
            family, size = "pigeonhole", int(rng.integers(6, 9))
            formula = cnfgen.PigeonholePrinciple(size + 1, size)
        else:
            family, size = "tseitin", 2 * int(rng.integers(8, 11))
            graph = nx.random_regular_graph(4, size, seed=instance_seed)
            formula = cnfgen.TseitinFormula(graph, charges=[1] + [0] * (size - 1))
        path = folder / f"i{index:03d}-{family}-{size}.cnf"
        with atomic_file(path, overwrite=True) as handle:
            handle.write(formula.to_dimacs())
        rows.append({"instance": path.name, "family": family, "size": size, "seed": instance_seed})
    return pd.DataFrame(rows)


def random_configurations(count: int, seed: int) -> list[dict]:
    """minisat's default, then ``count - 1`` configurations drawn uniformly (log-uniformly for
    log-scale options) from ``SPACE``."""
    rng = np.random.default_rng(seed)
    configs = [dict(DEFAULT)]
    for _ in range(count - 1):
        config = {}
        for p in SPACE:
            if p.kind == "categorical":
                config[p.name] = p.values[int(rng.integers(len(p.values)))]
            elif p.log:
                config[p.name] = float(np.exp(rng.uniform(*np.log(p.values))))
            else:
                config[p.name] = float(rng.uniform(*p.values))
            if p.kind == "integer":
                config[p.name] = int(round(config[p.name]))
            elif p.kind == "real":
                config[p.name] = round(config[p.name], 4)
        configs.append(config)
    return configs


def run_all(target: CostTarget, names: list[str], configs: list[dict], instances: list[str],
            folder: Path, jobs: int) -> pd.DataFrame:
    """Every configuration on every instance: the long runs table."""
    requests = [(name, config, instance) for name, config in zip(names, configs) for instance in instances]

    def one(request):
        name, config, instance = request
        result = target.run(config, folder / instance)
        words = target.runner.arguments(target.words(config), folder / instance, target.cutoff)
        return {"algorithm": name, "instance": instance,
                "runtime": result.runtime if result.status == "solved" else target.cutoff,
                "status": "capped" if result.status == "capped" else result.status,
                "cutoff": target.cutoff, "measured": result.runtime, "command": " ".join(words)}

    started = time.perf_counter()
    with ThreadPoolExecutor(jobs) as pool:
        rows = []
        for done, row in enumerate(pool.map(one, requests), 1):
            rows.append(row)
            if done % max(1, len(requests) // 20) == 0:
                print(f"  {done}/{len(requests)} runs, {time.perf_counter() - started:.0f} s", flush=True)
    return pd.DataFrame(rows)


def write_csv(frame: pd.DataFrame, path: Path) -> None:
    with atomic_file(path, overwrite=True) as handle:
        frame.to_csv(handle, index=False)


def heat_map(lost: pd.DataFrame, path: Path, title: str) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, ax = plt.subplots(figsize=(5.2, 4.2))
    image = ax.imshow(lost.to_numpy(dtype=float), cmap="Reds", vmin=0.0,
                      vmax=max(0.05, float(np.nanmax(lost.to_numpy(dtype=float)))))
    ax.set_xticks(range(len(lost.columns)), lost.columns, rotation=30, ha="right")
    ax.set_yticks(range(len(lost.index)), lost.index)
    ax.set_xlabel("evaluated under")
    ax.set_ylabel("configuration chosen under")
    for i in range(lost.shape[0]):
        for j in range(lost.shape[1]):
            ax.text(j, i, f"{100 * lost.iat[i, j]:.1f}%", ha="center", va="center", fontsize=8)
    figure.colorbar(image, ax=ax, label="fraction of the best utility lost")
    ax.set_title(title, fontsize=9)
    figure.tight_layout()
    with atomic_file(path, overwrite=True, binary=True) as handle:
        figure.savefig(handle, format="png", dpi=120)
    plt.close(figure)


def time_to(trace: pd.DataFrame, epsilon: float) -> float:
    reached = trace.loc[trace["epsilon"] <= epsilon, "total_time"]
    return float(reached.iloc[0]) if len(reached) else math.nan


def racing(table: pd.DataFrame, utility: str, cutoff: float, seed: int) -> pd.DataFrame:
    """UP (first run limit cutoff / 100 and cutoff) against Naive at the cutoff, replaying the table:
    seconds of runs each spends before it guarantees each epsilon (delta = 0.05)."""
    runner = TableRunner(table[["algorithm", "instance", "runtime", "status", "cutoff"]])
    traces = {k0: up(runner, None, None, utility, 0.05, first_run_limit=k0, seed=seed)
              for k0 in (cutoff / 100, cutoff)}
    curve = naive_curve(runner, None, None, utility, 0.05, cutoff, EPSILONS, seed=seed)
    naive_time = curve.set_index("epsilon")["total_time"]
    rows = [{"epsilon": e, **{f"up_time_first_run_limit_{k0:g}": time_to(trace, e) for k0, trace in traces.items()},
             "naive_time": float(naive_time.get(e, math.nan))} for e in EPSILONS]
    out = pd.DataFrame(rows)
    out.attrs["ends"] = "; ".join(
        f"UP from a first run limit of {k0:g} s: stopped by {trace.attrs['stopped']} at m = {int(trace['m'].iloc[-1])}, "
        f"epsilon* {float(trace['epsilon'].iloc[-1]):.3f}, {int(trace['survivors'].iloc[-1])} left, "
        f"{float(trace['total_time'].iloc[-1]):.0f} s of runs, incumbent {trace.attrs['incumbent']}"
        for k0, trace in traces.items())
    return out


def _mean_utility(costs: list[float]) -> float:
    return 1.0 - float(np.mean(costs))


class PartFailed(Exception):
    """A part of the study that was asked for could not be done: named in the exit."""


#: irace's iterations here: its default (2 + log2 of 9 options) asks for at least 300 runs
IRACE_ITERATIONS = 2


def irace_minimum_budget(parameters: int, iterations: int, first_test: int) -> int:
    """The fewest runs irace accepts as maxExperiments (irace's computeMinimumBudget, elitist,
    with its defaults mu = 5, eachTest = 1, elitistNewInstances = 1, and minSurvival =
    floor(2 + log2(parameters)))."""
    survival = math.floor(2 + math.log2(parameters))
    mu = max(5, first_test)
    each, new = 1, 1
    if iterations > 5:
        per = mu + each + (iterations - 5) * new + 5 * max(each, new)
    else:
        per = mu + each + (iterations - 1) * max(each, new)
    return (survival + 1) * iterations * per


def run_irace(target_spec: str, cutoff: float, train: list[str], folder: Path, budget: int,
              seed: int) -> dict:
    try:
        irace = find_irace()
    except ExportError as error:
        raise PartFailed(f"not installed ({error})") from None
    # irace races a deterministic scenario on at most as many instances as it has, and
    # refuses a budget below what its iterations need: it gets at least that
    first_test = min(5, len(train))
    needed = irace_minimum_budget(len(SPACE), IRACE_ITERATIONS, first_test)
    if budget < needed:
        print(f"  irace needs at least {needed} runs with {len(SPACE)} options: its budget is "
              f"{needed}, not {budget}")
        budget = needed
    setup = export_irace(folder / "irace", COMMAND, target_spec, cutoff, space=SPACE,
                         instances=[str(folder / "instances" / i) for i in train],
                         exit_codes=EXIT_CODES, budget=budget, deterministic=True, parents=True,
                         overwrite=True)
    done = subprocess.run([irace, "--seed", str(seed), "--parallel", "1", "--iterations",
                           str(IRACE_ITERATIONS), "--first-test", str(first_test)], cwd=setup,
                          capture_output=True, text=True)
    if done.returncode != 0:
        said = (done.stdout[-300:] + done.stderr[-300:]).strip().replace("\n", " ")
        raise PartFailed(f"irace exited with status {done.returncode}: {said}")
    lines = done.stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("# Best configurations as commandlines"))
    words = lines[start + 1].split()[1:]
    config = {}
    for p in SPACE:
        for word in words:
            if p.kind == "categorical" and word in p.values:
                config[p.name] = word
            elif p.kind != "categorical" and word.startswith(p.switch):
                config[p.name] = float(word[len(p.switch):])
    runs = sum(1 for _ in (setup / "runs.jsonl").open())
    return {"config": config, "runs": runs}


def run_smac(target: CostTarget, train: list[str], folder: Path, trials: int, seed: int) -> dict:
    try:
        from ConfigSpace import Categorical, ConfigurationSpace, Float, Integer
        from smac import AlgorithmConfigurationFacade, Scenario
    except ImportError:
        raise PartFailed("not installed (pip install smac)") from None
    space = ConfigurationSpace(seed=seed)
    for p in SPACE:
        if p.kind == "categorical":
            space.add(Categorical(p.name, list(p.values), default=DEFAULT[p.name]))
        elif p.kind == "integer":
            space.add(Integer(p.name, tuple(int(v) for v in p.values), log=p.log, default=DEFAULT[p.name]))
        else:
            space.add(Float(p.name, tuple(p.values), log=p.log, default=DEFAULT[p.name]))
    paths = [str(folder / "instances" / i) for i in train]
    runs = []

    def train_run(config, instance: str, seed: int = 0) -> float:
        runs.append(1)
        return target(dict(config), instance)

    scenario = Scenario(space, instances=paths, instance_features={p: [k] for k, p in enumerate(paths)},
                        n_trials=trials, deterministic=True, crash_cost=1.0, seed=seed,
                        output_directory=folder / "smac")
    facade = AlgorithmConfigurationFacade(scenario, train_run, overwrite=True, logging_level=40)
    incumbent = facade.optimize()
    return {"config": dict(incumbent), "runs": len(runs)}


def run_optuna(target: CostTarget, train: list[str], folder: Path, trials: int, per_trial: int,
               seed: int) -> dict:
    try:
        import optuna
    except ImportError:
        raise PartFailed("not installed (pip install optuna)") from None
    rng = np.random.default_rng(seed)
    runs = []

    def objective(trial) -> float:
        config = {}
        for p in SPACE:
            if p.kind == "categorical":
                config[p.name] = trial.suggest_categorical(p.name, list(p.values))
            elif p.kind == "integer":
                config[p.name] = trial.suggest_int(p.name, *(int(v) for v in p.values), log=p.log)
            else:
                config[p.name] = trial.suggest_float(p.name, *p.values, log=p.log)
        chosen = rng.choice(len(train), size=min(per_trial, len(train)), replace=False)
        costs = [target(config, folder / "instances" / train[i]) for i in chosen]
        runs.extend(costs)
        return float(np.mean(costs))

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.create_study(direction="minimize", sampler=optuna.samplers.TPESampler(seed=seed))
    study.enqueue_trial(DEFAULT)
    study.optimize(objective, n_trials=trials)
    return {"config": dict(study.best_params), "runs": len(runs)}


def configurators(table: pd.DataFrame, names: list[str], configs: list[dict], target: CostTarget,
                  spec: str, instances: list[str], folder: Path, budget: int, seed: int,
                  which: list[str], jobs: int) -> pd.DataFrame:
    """Each configurator under ``target``'s utility, on the training half; every winner on the
    held-out half."""
    train, test = instances[::2], instances[1::2]
    cost = target.cost
    table_costs = table.assign(cost=cost(table["runtime"].to_numpy(), table["status"].to_numpy(),
                                         table["cutoff"].to_numpy()))
    on_train = table_costs[table_costs["instance"].isin(train)].groupby("algorithm")["cost"].mean()
    on_test = table_costs[table_costs["instance"].isin(test)].groupby("algorithm")["cost"].mean()
    best_train = str(on_train.idxmin())
    rows = [{"configurator": "minisat default", "runs": 0, "held_out_utility": 1 - on_test[names[0]],
             "configuration": json.dumps(configs[0])},
            {"configurator": f"best of {len(names)} random (table, training half)",
             "runs": int(len(names) * len(train)), "held_out_utility": 1 - on_test[best_train],
             "configuration": json.dumps(configs[names.index(best_train)])},
            {"configurator": f"best of {len(names)} random on the held-out half (oracle)", "runs": 0,
             "held_out_utility": 1 - on_test.min(),
             "configuration": json.dumps(configs[names.index(str(on_test.idxmin()))])}]
    per_trial = 5 if len(train) >= 5 else len(train)
    parts = {"irace": ("irace", lambda: run_irace(spec, target.cutoff, train, folder, budget, seed)),
             "smac": ("SMAC3", lambda: run_smac(target, train, folder, budget, seed)),
             "optuna": ("Optuna", lambda: run_optuna(target, train, folder, max(1, budget // per_trial),
                                                     per_trial, seed))}
    found, failed = {}, {}
    for key in which:
        name, part = parts[key]
        print(f"{name} ...", flush=True)
        try:
            found[name] = part()
        except PartFailed as error:
            print(f"  {name} failed: {error}", flush=True)
            failed[name] = str(error)
    for name, result in found.items():
        with ThreadPoolExecutor(jobs) as pool:
            costs = list(pool.map(lambda i: target(result["config"], folder / "instances" / i), test))
        rows.append({"configurator": name, "runs": result["runs"], "held_out_utility": _mean_utility(costs),
                     "configuration": json.dumps(result["config"])})
    out = pd.DataFrame(rows)
    out.attrs["failed"] = failed
    return out


def markdown(frame: pd.DataFrame, digits: int = 3) -> str:
    columns = [str(c) for c in frame.columns]
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    for _, row in frame.iterrows():
        cells = [f"{v:.{digits}f}" if isinstance(v, float) and not math.isnan(v) else
                 ("-" if isinstance(v, float) else str(v)) for v in row]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True, help="folder of the results (created)")
    parser.add_argument("--configs", type=int, default=50, help="random configurations (default 50)")
    parser.add_argument("--instances", type=int, default=60, help="instances (default 60)")
    # --cutoff, its old name, still works: the runs stop at this run limit, and the runs table
    # records it as each run's cutoff
    parser.add_argument("--run-limit", "--cutoff", type=float, default=2.0, dest="cutoff",
                        help="seconds of CPU a run (default 2)")
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--jobs", type=int, default=2, help="runs at a time (default 2)")
    parser.add_argument("--budget", type=int, default=100,
                        help="runs each configurator may spend (default 100)")
    parser.add_argument("--utility", choices=["uniform", "exponential", "pareto", "log_laplace"],
                        default="pareto", help="the utility the configurators optimise")
    parser.add_argument("--configurators", default="irace,smac,optuna",
                        help="comma-separated among irace, smac, optuna; '' for none")
    parser.add_argument("--quick", action="store_true",
                        help="3 configurations, 6 small instances, run limit 1 s, tiny budgets (irace: the "
                             "least its iterations accept)")
    parser.add_argument("--force", action="store_true", help="write into an existing folder")
    parser.add_argument("--from-runs", type=Path, metavar="FOLDER",
                        help="take the instances and the runs table from an earlier study's FOLDER "
                             "(same options) instead of running them again")
    args = parser.parse_args(argv)
    which = [w for w in args.configurators.split(",") if w]
    unknown = [w for w in which if w not in ("irace", "smac", "optuna")]
    if unknown:
        print(f"--configurators: unknown {', '.join(unknown)} (irace, smac, optuna)", file=sys.stderr)
        return 2
    if args.quick:
        args.configs, args.instances, args.cutoff, args.budget = 3, 6, 1.0, 6
    if shutil.which("minisat") is None:
        print("minisat is not installed (Debian: apt-get install minisat)", file=sys.stderr)
        return 2
    out = args.out
    if out.exists() and any(out.iterdir()) and not args.force:
        print(f"{out} exists and is not empty; pass --force to write into it", file=sys.stderr)
        return 2
    out.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()

    specs = utilities(args.cutoff)
    target = CostTarget(COMMAND, specs[args.utility], args.cutoff, space=SPACE, exit_codes=EXIT_CODES,
                        clock="cpu")
    # the same seed writes the same instances again (with --from-runs too)
    instances = make_instances(out / "instances", args.instances, args.seed, args.quick)
    configs = random_configurations(args.configs, args.seed + 1)
    names = [f"c{i:03d}" + ("-default" if i == 0 else "") for i in range(len(configs))]
    meta = {"command": COMMAND, "exit_codes": EXIT_CODES, "clock": "cpu", "cutoff": args.cutoff,
            "seed": args.seed, "solver": "minisat", "solver_version": solver_version(),
            "maxent_util": __version__, "python": sys.version.split()[0], "machine": platform.platform(),
            "cpus": os.cpu_count(), "configurations": dict(zip(names, configs)),
            "instances": instances.to_dict("records"), "utilities": specs,
            "argv": sys.argv[1:] if argv is None else argv}
    with atomic_file(out / "study.json", overwrite=True) as handle:
        json.dump(meta, handle, indent=1)

    print(f"{len(configs)} configurations x {len(instances)} instances, cutoff {args.cutoff:g} s CPU",
          flush=True)
    if args.from_runs is not None:
        table = pd.read_csv(args.from_runs / "runs.csv")
        recorded = json.loads((args.from_runs / "study.json").read_text())
        if recorded["configurations"] != meta["configurations"] or recorded["cutoff"] != args.cutoff \
                or set(table["instance"]) != set(instances["instance"]):
            print(f"{args.from_runs} holds another study's runs", file=sys.stderr)
            return 2
        print(f"runs from {args.from_runs / 'runs.csv'}", flush=True)
    else:
        table = run_all(target, names, configs, instances["instance"].tolist(), out / "instances", args.jobs)
    write_csv(table, out / "runs.csv")
    runs_seconds = float(np.minimum(table["measured"], args.cutoff).sum())
    print(f"runs: {runs_seconds:.0f} s of CPU in {time.perf_counter() - started:.0f} s; "
          f"{(table['status'] == 'solved').mean():.1%} solved", flush=True)

    cross = cross_utility(table[["algorithm", "instance", "runtime", "status", "cutoff"]],
                          {name: parse_utility(spec) for name, spec in specs.items()})
    lost = 1.0 - cross
    lost.index.name = "chosen under"
    write_csv(lost.reset_index(), out / "cross_utility.csv")
    heat_map(lost, out / "cross_utility.png",
             f"minisat, {len(configs)} configurations x {len(instances)} instances, cutoff {args.cutoff:g} s")
    print("\nfraction of the best utility lost (rows: chosen under; columns: evaluated under)\n")
    print(markdown(lost.reset_index()), flush=True)

    race = racing(table, specs[args.utility], args.cutoff, args.seed)
    write_csv(race, out / "racing.csv")
    print(f"\nUP against Naive under {specs[args.utility]} (seconds of runs to guarantee epsilon, "
          f"delta 0.05); {race.attrs['ends']}\n")
    print(markdown(race), flush=True)

    found = configurators(table, names, configs, target, specs[args.utility],
                          instances["instance"].tolist(), out,
                          args.budget, args.seed, which, args.jobs)
    write_csv(found, out / "configurators.csv")
    print(f"\nconfigurators under {specs[args.utility]}: mean utility on the held-out half\n")
    print(markdown(found.drop(columns="configuration")), flush=True)

    elapsed = time.perf_counter() - started
    summary = "\n\n".join([
        f"# minisat study ({len(configs)} configurations x {len(instances)} instances, cutoff "
        f"{args.cutoff:g} s CPU, seed {args.seed}; {elapsed / 60:.1f} min)",
        "## Fraction of the best utility lost", markdown(lost.reset_index()),
        f"## UP against Naive under {specs[args.utility]}", race.attrs["ends"], markdown(race),
        f"## Configurators under {specs[args.utility]}", markdown(found.drop(columns="configuration")),
        *(["## Not done", "\n".join(f"- {name}: {why}" for name, why in found.attrs["failed"].items())]
          if found.attrs["failed"] else [])])
    with atomic_file(out / "summary.md", overwrite=True) as handle:
        handle.write(summary + "\n")
    failed = found.attrs["failed"]
    if failed:  # the rest is written; the exit says what is missing
        for name, why in failed.items():
            print(f"minisat study: not done: {name}: {why}", file=sys.stderr)
        print(f"\nfinished in {elapsed / 60:.1f} min WITHOUT {', '.join(failed)}; results in {out}")
        return 1
    print(f"\ndone in {elapsed / 60:.1f} min; results in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
