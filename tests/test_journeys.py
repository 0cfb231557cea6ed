"""Journeys: the chains of commands people run, end to end, through the installed command line.

Each test is one person's session in a fresh folder, running ``maxent-util`` (the script
installed beside this interpreter) as a subprocess, the way the documentation tells them to:

- the organiser ranks a published results file, writes the HTML report and reads it in Chromium;
- the solver author configures minisat by utility with irace (set up by ``export --irace``),
  SMAC3, Optuna and the built-in race, and has each choice scored by the library;
- the researcher designs a utility from answers and uses the design in every command that
  takes a utility, and fits a law to a log of waits and ranks with it;
- the exporter derives a law and exports its utility as Python, C and a cost module.

Exit statuses, outputs and files are checked at each step, and the numbers against the
library's Python API or a computation written here from the definitions. A step that breaks
does not hide the next ones: every broken step of a session is reported together. The tools a
journey needs (minisat, irace, SMAC3, Optuna, Chromium) skip only their own journey, and only
when absent.
"""

from __future__ import annotations

import contextlib
import ctypes
import html
import importlib.util
import json
import math
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import CHROMIUM, CHROMIUM_ARGS, ROOT, checkout_env, irace_program
from scipy import integrate, optimize, stats

from maxent_util.export import CostTarget, Parameter, cost_function, irace_parameters

EXAMPLES = ROOT / "examples"
#: the installed command, as ``pip install`` put it beside the interpreter
COMMAND = Path(sys.executable).with_name("maxent-util")


class Session:
    """One person at a terminal: a folder, the installed command, and what broke on the way."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.broken: list[str] = []
        assert COMMAND.is_file(), f"{COMMAND} is not installed (pip install -e .)"

    def __call__(self, *argv: str) -> subprocess.CompletedProcess:
        """``maxent-util ARGV`` in the folder, which must succeed (exit status 0)."""
        done = subprocess.run([str(COMMAND), *argv], cwd=self.folder, env=checkout_env(MPLBACKEND="Agg"),
                              capture_output=True, text=True, timeout=600)
        # raised rather than asserted: the message is the command and its error, nothing more
        if done.returncode != 0 or "Traceback" in done.stderr:
            raise AssertionError(f"maxent-util {' '.join(argv)} exited {done.returncode}:\n"
                                 f"{done.stderr[-3000:]}")
        return done

    @contextlib.contextmanager
    def step(self, name: str):
        """A step whose failure is recorded, so that the steps after it still run."""
        try:
            yield
        except Exception as error:  # an assertion, or an exported module that will not load
            self.broken.append(f"[{name}] {type(error).__name__}: {error}")

    def end(self) -> None:
        if self.broken:
            raise AssertionError("broken steps:\n" + "\n".join(self.broken))


def same(ours, reference, rel: float) -> None:
    """Equal to ``rel`` relative, with no absolute slack: a zero must be a zero."""
    np.testing.assert_allclose(np.asarray(ours, dtype=float), np.asarray(reference, dtype=float),
                               rtol=rel, atol=0)


def ranking_of_page(page: str) -> dict[str, dict[str, float]]:
    """The report's compact ranking as written in its HTML: algorithm -> column -> value."""
    table = re.search(r'<table class="ranking[^"]*">(.*?)</table>', page, re.S).group(1)
    rows = {}
    for row in re.findall(r"<tr><th scope=\"row\">(.*?)</tr>", table, re.S):
        name, cells = row.split("</th>", 1)
        rows[html.unescape(name)] = {html.unescape(column): float(value) for column, value in
                                     re.findall(r'data-column="([^"]*)" data-value="([^"]*)"', cells)}
    return rows


def load_module(path: Path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def ranks(scores: pd.Series, higher_is_better: bool = True) -> pd.Series:
    """Competition ranks (ties share the best place), as the library's rankings give them."""
    return scores.rank(method="min", ascending=not higher_is_better).astype(int)


# ---------------------------------------------------------------------------
# the organiser

ORGANISER_RULES = ["--utility", "pareto(5, 1)", "--par", "2", "--solved"]


def test_organiser_ranks_a_published_file_and_reads_the_report_in_a_browser(tmp_path):
    """``rank``, then ``report`` on a results file in the 2024 competition's layout, then the
    page in Chromium: the ranking shown is rank's, and both are the file's own numbers."""
    session = Session(tmp_path)
    shutil.copy(EXAMPLES / "detailed_main.csv", tmp_path)
    done = session("rank", "detailed_main.csv", *ORGANISER_RULES, "--json")
    assert "cutoff 5000 s (1.39 h), stated by the file" in done.stderr
    ranking = pd.DataFrame(json.loads(done.stdout)).set_index("algorithm")

    with session.step("rank: the file's numbers"):
        # from the file by hand: each cell is a run's PAR-2 seconds (10000 where unsolved at
        # the 5000 s limit), so PAR-2 is the column's mean and a run is solved below 5000 s
        published = pd.read_csv(EXAMPLES / "detailed_main.csv")
        cells = published.drop(columns=["hash", "vresult"])
        solved = cells < 5000
        expected = pd.DataFrame({
            "pareto(5, 1)": cells.where(solved).rtruediv(5).clip(upper=1).fillna(0).mean(),
            "PAR-2": cells.mean(), "solved": solved.sum().astype(float)})
        assert sorted(ranking.index) == sorted(expected.index)
        for rule in expected:
            same(ranking[rule], expected.loc[ranking.index, rule], 1e-12)
            assert (ranking[f"{rule} rank"] == ranks(expected[rule], rule != "PAR-2")
                    .loc[ranking.index]).all(), rule
        # rows in the order of the first rule
        assert list(ranking.index) == list(expected["pareto(5, 1)"].sort_values(ascending=False).index)

    page = tmp_path / "main.html"
    done = session("report", "detailed_main.csv", *ORGANISER_RULES, "--resamples", "200",
                   "--title", "Main track, first 100 instances", "-o", "main.html")
    assert page.is_file() and done.stdout.strip() == "wrote main.html"
    with session.step("report: the page's ranking is rank's"):
        written = ranking_of_page(page.read_text(encoding="utf-8"))
        assert list(written) == list(ranking.index)
        for algorithm, columns in written.items():
            assert columns == pytest.approx(ranking.loc[algorithm].to_dict(), rel=1e-12, abs=0)
    session.end()

    # the page as the organiser's readers see it
    if not Path(CHROMIUM).is_file():
        pytest.skip(f"no chromium at {CHROMIUM} (Debian: apt-get install chromium)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright package "
                                   "(the test extra) is not installed")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            tab = browser.new_page(viewport={"width": 1400, "height": 900})
            messages, requested = [], []
            tab.on("console", lambda message: messages.append(message.text))
            tab.on("request", lambda request: requested.append(request.url))
            tab.goto(page.resolve().as_uri())
            title = tab.title()
            rules = tab.evaluate("Array.from(document.querySelectorAll('table.ranking thead a'), "
                                 "a => a.textContent)")
            # what a reader sees in each row: the name, then each rule's rank and score as shown
            shown = tab.evaluate("""Array.from(document.querySelectorAll('table.ranking tbody tr'),
                tr => [tr.querySelector('th').textContent,
                       Array.from(tr.querySelectorAll('td'), td => td.textContent)])""")
        finally:
            browser.close()
    assert title == "Main track, first 100 instances"
    assert rules == ["pareto(5, 1)", "PAR-2", "solved"]
    assert [name for name, _ in shown] == list(ranking.index)
    for name, texts in shown:
        assert len(texts) == 2 * len(rules), texts
        for (rank_text, score_text), rule in zip(zip(texts[::2], texts[1::2]), rules):
            assert int(rank_text) == ranking.loc[name, f"{rule} rank"], (name, rule)
            # the score shown is the score, rounded to the digits shown
            decimals = len(score_text.partition(".")[2])
            assert abs(float(score_text) - ranking.loc[name, rule]) <= 0.5 * 10.0 ** -decimals * (1 + 1e-9)
    # nothing logged (a script the page's policy blocked would be), nothing fetched
    assert messages == [] and requested == [page.resolve().as_uri()]


# ---------------------------------------------------------------------------
# the solver author: minisat configured by utility

#: three of minisat's options
SPACE = [Parameter("luby", "categorical", ("-luby", "-no-luby")),
         Parameter("rnd_freq", "real", (0.0, 0.1), "-rnd-freq="),
         Parameter("var_decay", "real", (0.75, 0.99), "-var-decay=")]
#: the utility's scale is below the runs' few milliseconds, so configurations differ in it
SPEC = "pareto(0.005, 1)"
CUTOFF = 1.0
SOLVER = "minisat -verb=0 {config} {instance}"


def random_3cnf(path: Path, variables: int, rng: np.random.Generator) -> None:
    """A random 3-CNF formula at the threshold (4.26 clauses a variable), in DIMACS."""
    clauses = round(4.26 * variables)
    lines = [f"p cnf {variables} {clauses}"]
    for _ in range(clauses):
        literals = (rng.choice(variables, 3, replace=False) + 1) * rng.choice([-1, 1], 3)
        lines.append(" ".join(map(str, literals)) + " 0")
    path.write_text("\n".join(lines) + "\n")


@pytest.fixture(scope="module")
def instances(tmp_path_factory) -> tuple[list[str], list[str]]:
    """Four training and two held-out instances, solved by minisat in some 10 to 30 ms."""
    if shutil.which("minisat") is None:
        pytest.skip("minisat is not installed (Debian: apt-get install minisat)")
    folder = tmp_path_factory.mktemp("cnf")
    rng = np.random.default_rng(2024)
    paths = []
    for index in range(6):
        path = folder / f"random-{index}.cnf"
        random_3cnf(path, 90, rng)
        paths.append(str(path))
    return paths[:4], paths[4:]


def pareto_by_hand(runtimes, statuses) -> np.ndarray:
    """u(t) = min(1, 0.005/t) of pareto(0.005, 1) for a solved run, 0 for any other."""
    runtimes = np.asarray(runtimes, dtype=float)
    return np.where(np.asarray(statuses) == "solved", np.minimum(1.0, 0.005 / runtimes), 0.0)


def in_space(words: list[str]) -> bool:
    """Whether the command-line words are one configuration of SPACE, each value in range."""
    luby, rnd_freq, var_decay = words
    return (luby in ("-luby", "-no-luby")
            and 0.0 <= float(rnd_freq.removeprefix("-rnd-freq=")) <= 0.1
            and 0.75 <= float(var_decay.removeprefix("-var-decay=")) <= 0.99)


def scored_by_the_library(configuration, held_out: list[str]) -> float:
    """The configuration run on the held-out instances and scored: the library's score of the
    runs, checked against the utility by hand and against the costs the runner reported."""
    from maxent_util import parse_utility, score

    target = CostTarget(SOLVER, SPEC, CUTOFF, space=SPACE, exit_codes=(10, 20))
    runs = [target.run(configuration, instance) for instance in held_out]
    runtimes = [run.runtime for run in runs]
    statuses = [run.status for run in runs]
    library = score(np.array(runtimes), parse_utility(SPEC), status=statuses, cutoff=CUTOFF).estimate
    same(library, pareto_by_hand(runtimes, statuses).mean(), 1e-12)
    assert 1.0 - np.mean([run.cost for run in runs]) == pytest.approx(library, abs=1e-15)
    return library


def check_costs(runtimes, statuses, costs) -> None:
    """Costs a configurator was given: the library's 1 - u, and 1 - u by hand."""
    same(costs, cost_function(SPEC)(np.array(runtimes), np.array(statuses), CUTOFF), 1e-15)
    same(costs, 1.0 - pareto_by_hand(runtimes, statuses), 1e-12)


def test_solver_author_configures_minisat_with_irace(tmp_path, instances):
    irace = irace_program()
    if irace is None:
        pytest.skip("irace is not installed (Debian: apt-get install r-cran-irace)")
    train, held_out = instances
    session = Session(tmp_path)
    done = session("export", "--utility", SPEC, "--irace", "irace-minisat",
                   "--command", SOLVER, "--run-limit", str(CUTOFF),
                   "--exit-code", "10", "--exit-code", "20",
                   *[word for path in train for word in ("--instance", path)],
                   # the least irace takes for three parameters in one iteration
                   "--max-experiments", "24")
    folder = tmp_path / "irace-minisat"
    assert done.stdout.startswith("wrote irace-minisat: target-runner")
    assert (folder / "instances.txt").read_text().splitlines() == train
    # the command line leaves the options to describe: written in irace's syntax, by the library
    assert (folder / "parameters.txt").read_text() == ""
    (folder / "parameters.txt").write_text(irace_parameters(SPACE))
    done = subprocess.run([irace, "--seed", "1", "--first-test", "2", "--iterations", "1",
                           "--parallel", "2"], cwd=folder, capture_output=True, text=True,
                          timeout=600, env=checkout_env())
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    # irace's answer: its best configurations as command lines, the best first
    block = done.stdout.split("# Best configurations as commandlines", 1)[1].splitlines()[1]
    best_id, *best = block.split()
    runs = [json.loads(line) for line in (folder / "runs.jsonl").read_text().splitlines()]
    assert len(runs) >= 8 and all(in_space(run["parameters"]) for run in runs)
    # the costs irace itself recorded (rows: its instance-seed pairs, told apart by their seeds;
    # columns: configurations), at 17 digits: irace was given the runner's costs, unrounded
    dump = subprocess.run(["Rscript", "-e", 'load("irace.Rdata"); m <- iraceResults$experiments; '
                           's <- iraceResults$state$.irace$instancesList$seed; '
                           'for (i in seq_len(nrow(m))) for (j in seq_len(ncol(m))) if (!is.na(m[i, j])) '
                           'cat(s[as.integer(rownames(m)[i])], colnames(m)[j], sprintf("%.17g", m[i, j]), "\\n")'],
                          cwd=folder, capture_output=True, text=True, timeout=60)
    assert dump.returncode == 0, dump.stderr
    recorded = {(i, c): float(v) for i, c, v in (line.split() for line in dump.stdout.splitlines())}
    assert len(recorded) == len(runs)
    assert all(recorded[(run["seed"], run["configuration"])] == run["cost"] for run in runs)
    # the runner's status is the runtime's: capped at the cutoff, else solved (minisat's 10 or 20)
    assert all(run["status"] == ("capped" if run["runtime"] >= CUTOFF else "solved") for run in runs)
    # the best is a configuration the runner ran, with the words irace printed
    assert best in [run["parameters"] for run in runs if run["configuration"] == best_id]
    check_costs([r["runtime"] for r in runs], [r["status"] for r in runs], [r["cost"] for r in runs])
    assert 0.0 <= scored_by_the_library(best, held_out) <= 1.0


def test_solver_author_configures_minisat_with_smac3(tmp_path, instances):
    smac = pytest.importorskip("smac")
    from ConfigSpace import Categorical, ConfigurationSpace, Float

    train, held_out = instances
    target = CostTarget(SOLVER, SPEC, CUTOFF, space=SPACE, exit_codes=(10, 20))
    runs = []

    def train_run(config, instance: str, seed: int = 0) -> float:
        result = target.run(dict(config), instance)
        runs.append(result)
        return result.cost

    space = ConfigurationSpace(seed=0)
    space.add([Categorical(p.name, list(p.values)) if p.kind == "categorical" else Float(p.name, p.values)
               for p in SPACE])
    scenario = smac.Scenario(space, instances=train,
                             instance_features={path: [k] for k, path in enumerate(train)},
                             n_trials=8, deterministic=True, crash_cost=1.0, seed=1,
                             output_directory=tmp_path / "smac")
    facade = smac.AlgorithmConfigurationFacade(scenario, train_run, overwrite=True, logging_level=40)
    incumbent = dict(facade.optimize())
    assert len(runs) == 8
    assert sorted(value.cost for value in facade.runhistory.values()) == sorted(r.cost for r in runs)
    check_costs([r.runtime for r in runs], [r.status for r in runs], [r.cost for r in runs])
    assert in_space(target.words(incumbent))
    assert 0.0 <= scored_by_the_library(incumbent, held_out) <= 1.0


def test_solver_author_configures_minisat_with_optuna(instances):
    optuna = pytest.importorskip("optuna")
    train, held_out = instances
    target = CostTarget(SOLVER, SPEC, CUTOFF, space=SPACE, exit_codes=(10, 20))
    runs = {}

    def objective(trial) -> float:
        config = {p.name: trial.suggest_categorical(p.name, list(p.values)) if p.kind == "categorical"
                  else trial.suggest_float(p.name, *p.values) for p in SPACE}
        runs[trial.number] = [target.run(config, instance) for instance in train[:2]]
        return float(np.mean([r.cost for r in runs[trial.number]]))

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.create_study(direction="minimize", sampler=optuna.samplers.TPESampler(seed=1))
    study.optimize(objective, n_trials=6)
    for trial in study.trials:
        done = runs[trial.number]
        check_costs([r.runtime for r in done], [r.status for r in done], [r.cost for r in done])
        assert trial.value == pytest.approx(np.mean([r.cost for r in done]), abs=1e-15)
    assert in_space(target.words(study.best_params))
    assert 0.0 <= scored_by_the_library(study.best_params, held_out) <= 1.0


def test_solver_author_races_minisat_configurations(instances):
    from maxent_util import ProcessRunner, up

    train, held_out = instances
    configurations = {"default": ["-luby", "-rnd-freq=0", "-var-decay=0.95"],
                      "no-luby": ["-no-luby", "-rnd-freq=0", "-var-decay=0.95"],
                      "random": ["-luby", "-rnd-freq=0.1", "-var-decay=0.95"],
                      "fast-decay": ["-luby", "-rnd-freq=0", "-var-decay=0.75"]}
    assert all(in_space(words) for words in configurations.values())
    # the runner every route shares, named configurations so the race speaks of names
    runner = ProcessRunner(SOLVER, configurations=configurations, exit_codes=(10, 20))
    trace = up(runner, list(configurations), train, SPEC, 0.2, first_run_limit=0.05, max_run_limit=CUTOFF, seed=1)
    assert trace.attrs["stopped"] in ("one configuration", "instances")
    assert trace["m"].tolist() == list(range(1, len(trace) + 1)) and len(trace) <= len(train)
    final = trace.attrs["configurations"]
    incumbent = trace.attrs["incumbent"]
    assert final.loc[incumbent, "alive"]
    # the incumbent has the largest lower bound of the survivors, and epsilon* is the largest
    # upper bound above it
    alive = final[final["alive"]]
    assert final.loc[incumbent, "lcb"] == alive["lcb"].max()
    assert trace.attrs["epsilon"] == pytest.approx(alive["ucb"].max() - final.loc[incumbent, "lcb"],
                                                   abs=1e-15)
    assert 0.0 <= scored_by_the_library(configurations[incumbent], held_out) <= 1.0


# ---------------------------------------------------------------------------
# the researcher: a designed utility, used everywhere

#: examples/answers.toml: the longest wait 1 h, a median of 10 min, 1 in 10 past 50 min; an
#: hour costs 12.5 and a solution is worth 200
CAPTIME_PIECES = [(0.0, 600.0, 0.5), (600.0, 3000.0, 0.4), (3000.0, 3600.0, 0.1)]
COST_PER_SECOND, VALUE = 12.5 / 3600, 200.0


def designed_utility(t: float) -> float:
    """u(t) of the answers, by hand.

    The maximum-entropy captime under a support and probabilities of intervals is uniform
    inside each interval. Money under a known captime k (the paper's Section 3):
    p(t, k) = (V + c k - c t) / (V + c k) for t < k, else 0, so
    u(t) = sum over pieces [a, b) of mass/(b - a) * integral over [max(a, t), b) of
    (1 - c t / (V + c k)) dk = (b - l) - t ln((V + c b) / (V + c l)), l = max(a, t), the log
    taken as log1p of a small number, so the reference keeps its digits where u is small.
    """
    total = 0.0
    for a, b, mass in CAPTIME_PIECES:
        low = max(a, t)
        if low < b:
            c = COST_PER_SECOND
            total += mass / (b - a) * ((b - low) - t * math.log1p(c * (b - low) / (VALUE + c * low)))
    return total


def test_designed_utility_by_hand_is_a_utility():
    # the reference above, against quadrature of its own definition
    for t in (0.0, 10.0, 599.0, 601.0, 2000.0, 3300.0):
        integral = sum(integrate.quad(lambda k: (VALUE + COST_PER_SECOND * (k - t)) /
                                      (VALUE + COST_PER_SECOND * k) * mass / (b - a),
                                      max(a, t), b)[0] for a, b, mass in CAPTIME_PIECES if max(a, t) < b)
        assert designed_utility(t) == pytest.approx(integral, rel=1e-12)
    assert designed_utility(0.0) == pytest.approx(1.0, rel=1e-15) and designed_utility(3600.0) == 0.0


def runs_scores(utility) -> pd.Series:
    """The mean utility of each algorithm's runs in examples/results.csv (0 if unsolved)."""
    runs = pd.read_csv(EXAMPLES / "results.csv")
    values = [utility(t) if status == "solved" else 0.0 for t, status in zip(runs["runtime"], runs["status"])]
    return pd.Series(values, index=runs.index).groupby(runs["algorithm"]).mean()


def test_researcher_designs_a_utility_and_uses_it_in_every_command(tmp_path):
    session = Session(tmp_path)
    for name in ("answers.toml", "results.csv"):
        shutil.copy(EXAMPLES / name, tmp_path)
    done = session("design", "--answers", "answers.toml", "--json", "design.json", "--no-plot")
    assert "Use it: maxent-util rank FILE --utility @design.json" in done.stdout
    use = ["--utility", "@design.json"]
    expected = runs_scores(designed_utility)

    with session.step("rank"):
        done = session("rank", "results.csv", *use, "--json")
        ranking = pd.DataFrame(json.loads(done.stdout)).set_index("algorithm")
        rule = ranking.columns[0]
        assert rule.startswith("design(longest=1h, median=10min, tail=1/10@50min")
        same(ranking[rule], expected.loc[ranking.index], 1e-10)
        assert (ranking[f"{rule} rank"] == ranks(expected).loc[ranking.index]).all()

    with session.step("report"):
        session("report", "results.csv", *use, "--resamples", "200", "-o", "design.html")
        written = ranking_of_page((tmp_path / "design.html").read_text(encoding="utf-8"))
        assert list(written) == list(expected.sort_values(ascending=False).index)
        shown = pd.Series({name: columns[rule] for name, columns in written.items()})
        same(shown, expected.loc[shown.index], 1e-10)

    runtimes = [0.0, 1.0, 30.0, 599.0, 600.0, 1800.0, 2999.0, 3500.0, 3600.0, 1e5]
    by_hand = [designed_utility(t) for t in runtimes]
    with session.step("export --python"):
        from maxent_util import from_json

        session("export", *use, "--python", "design_scorer.py")
        exported = load_module(tmp_path / "design_scorer.py").utility(np.array(runtimes))
        library = from_json((tmp_path / "design.json").read_text(encoding="utf-8"))
        same(exported, library(np.array(runtimes)), 1e-12)
        # the closed form loses some digits to cancellation where u is small (4e-13 at 3500 s)
        same(exported, by_hand, 1e-10)

    with session.step("race"):
        from maxent_util import TableRunner, from_json, read_runs, up

        done = session("race", "results.csv", *use, "--delta", "0.1", "--seed", "3", "--json")
        race = json.loads(done.stdout)
        # the same race from Python, on the same table and the same design
        trace = up(TableRunner(read_runs(tmp_path / "results.csv")), None, None,
                   from_json((tmp_path / "design.json").read_text(encoding="utf-8")), 0.1, first_run_limit=1.0, seed=3)
        assert (race["incumbent"], race["m"], race["stopped"]) == (
            trace.attrs["incumbent"], len(trace), trace.attrs["stopped"])
        assert race["epsilon"] == pytest.approx(trace.attrs["epsilon"], rel=1e-12)
        # what the guarantee says holds on these runs: the incumbent is within epsilon* of the best
        assert expected[race["incumbent"]] >= expected.max() - race["epsilon"]

    with session.step("plan"):
        done = session("plan", "--epsilon", "0.05", "--delta", "0.05", *use, "--json")
        plan = json.loads(done.stdout)
        # the estimation theorem (Section 4): m = ln(2/delta)/2 ((2 - epsilon)/epsilon)^2 runs,
        # each stopped at u^-1(epsilon/2); at least u^-1(2 epsilon) each
        assert plan["runs"] == math.ceil(math.log(2 / 0.05) / 2 * (1.95 / 0.05) ** 2)
        inverse = {level: optimize.brentq(lambda t: designed_utility(t) - level, 0.0, 3600.0, xtol=1e-12)
                   for level in (0.025, 0.1)}
        assert plan["run_limit"] == pytest.approx(inverse[0.025], rel=1e-9)
        assert plan["min_total_time"] == pytest.approx(plan["runs"] * inverse[0.1], rel=1e-9)
    session.end()


def test_researcher_designs_from_a_typical_wait_and_ranks_with_it(tmp_path):
    """The designer's other common answer: the longest and the typical (mean) wait, a law
    solved numerically (a truncated exponential); its "Use it:" line must work."""
    session = Session(tmp_path)
    shutil.copy(EXAMPLES / "results.csv", tmp_path)
    (tmp_path / "answers.toml").write_text('captime = "facts"\nlongest = "1h"\ntypical = "20 min"\n'
                                           'value = "constant"\n')
    done = session("design", "--answers", "answers.toml", "--json", "design.json", "--no-plot")
    assert "Use it: maxent-util rank FILE --utility @design.json" in done.stdout
    _, survival = truncated_exponential(3600.0, 1200.0)
    done = session("rank", "results.csv", "--utility", "@design.json", "--json")
    ranking = pd.DataFrame(json.loads(done.stdout)).set_index("algorithm")
    same(ranking.iloc[:, 0], runs_scores(survival).loc[ranking.index], 1e-10)


# ---------------------------------------------------------------------------
# the researcher: a law fitted to a log of waits


def test_researcher_fits_a_law_and_ranks_with_it(tmp_path):
    session = Session(tmp_path)
    for name in ("waits.csv", "results.csv"):
        shutil.copy(EXAMPLES / name, tmp_path)
    done = session("fit", "waits.csv", "--column", "waited", "--censored-column", "still_waiting",
                   "-o", "law.json")
    assert "chosen by AIC: log+log2 (log-normal)" in done.stdout
    document = json.loads((tmp_path / "law.json").read_text(encoding="utf-8"))
    assert document["preset"]["family"] == "log_normal"
    median, sigma = (float(argument["float"]) for argument in document["preset"]["arguments"])

    with session.step("fit: the maximum likelihood"):
        # the log-normal fit by hand: density at the answered waits, survival at the censored
        # ones (still waiting when the answer came), maximised by scipy
        waits = pd.read_csv(EXAMPLES / "waits.csv")
        logs = np.log(waits["waited"].to_numpy())
        censored = waits["still_waiting"].to_numpy() == 1
        assert f"{len(waits)} waiting times" in done.stdout and f"{censored.sum()} right-censored" in done.stdout

        def minus_loglik(theta):
            mu, log_sigma = theta
            s = math.exp(log_sigma)
            return -(stats.norm.logpdf(logs[~censored], mu, s).sum() - logs[~censored].sum()
                     + stats.norm.logsf(logs[censored], mu, s).sum())

        best = optimize.minimize(minus_loglik, [logs.mean(), math.log(logs.std())], method="Nelder-Mead",
                                 options={"xatol": 1e-10, "fatol": 1e-12, "maxiter": 4000})
        assert math.log(median) == pytest.approx(best.x[0], rel=1e-6)
        assert sigma == pytest.approx(math.exp(best.x[1]), rel=1e-6)
        printed = re.search(r"^log\+log2\s+log-normal\s+2\s+(\S+)", done.stdout, re.M).group(1)
        assert float(printed) == pytest.approx(-best.fun, abs=5e-4)  # printed to 3 decimals

    with session.step("rank with @law.json"):
        done = session("rank", "results.csv", "--utility", "@law.json", "--json")
        ranking = pd.DataFrame(json.loads(done.stdout)).set_index("algorithm")
        # the law's utility is its survival function: scipy's log-normal at the written parameters
        expected = runs_scores(stats.lognorm(s=sigma, scale=median).sf)
        same(ranking.iloc[:, 0], expected.loc[ranking.index], 1e-10)
    session.end()


# ---------------------------------------------------------------------------
# the exporter: derive, then Python, C and cost modules


def truncated_exponential(upper: float, mean: float):
    """The maximum-entropy law on [0, upper] with this mean, by hand: density proportional to
    exp(-rate k), the rate solving 1/rate - upper/(exp(rate upper) - 1) = mean. Returns the rate
    and the survival function."""
    # the mean falls from upper/2 (rate 0) to about 1/rate: the root lies between
    rate = optimize.brentq(lambda r: 1 / r - upper / math.expm1(r * upper) - mean, 1e-6 / upper, 50 / upper,
                           xtol=1e-300, rtol=4 * np.finfo(float).eps)

    def survival(t: float) -> float:
        t = min(max(t, 0.0), upper)
        return (math.exp(-rate * t) - math.exp(-rate * upper)) / -math.expm1(-rate * upper)

    return rate, survival


def test_exporter_derives_a_law_and_exports_it_as_python_c_and_a_cost(tmp_path):
    from maxent_util import Mean, Support, derive

    compiler = shutil.which("gcc") or shutil.which("cc")
    if compiler is None:
        pytest.skip("no C compiler (Debian: apt-get install gcc)")
    session = Session(tmp_path)
    done = session("derive", "--support", "0", "1h", "--mean", "20min", "--json")
    derived = json.loads(done.stdout)
    assert derived["constraints"] == ["Support(0, 3600)", "Mean(1200)"]
    rate, survival = truncated_exponential(3600.0, 1200.0)
    runtimes = np.array([0.0, 0.5, 30.0, 600.0, 1200.0, 2400.0, 3000.0, 3600.0, 7200.0, np.inf])
    library = derive(Support(0, 3600), Mean(1200)).utility()
    expected = library(runtimes)
    with session.step("derive: the law"):
        assert float(derived["multipliers"]["lambda_1"]) == pytest.approx(rate, rel=1e-12)
        same(expected, [survival(t) for t in runtimes], 1e-11)
    # the person pastes the utility derive printed
    text = derived["utility"]

    with session.step("export --python"):
        session("export", "--utility", text, "--python", "scorer.py")
        same(load_module(tmp_path / "scorer.py").utility(runtimes), expected, 1e-12)

    with session.step("export --c"):
        session("export", "--utility", text, "--c", "utility.c")
        built = subprocess.run([compiler, "-std=c99", "-O2", "-shared", "-fPIC", "-o", "libutility.so",
                                "utility.c", "-lm"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
        assert built.returncode == 0, built.stderr
        compiled = ctypes.CDLL(str(tmp_path / "libutility.so"))
        compiled.utility.restype, compiled.utility.argtypes = ctypes.c_double, [ctypes.c_double]
        same([compiled.utility(float(t)) for t in runtimes], expected, 1e-12)
        out = np.zeros_like(runtimes)
        pointer = ctypes.POINTER(ctypes.c_double)
        compiled.utility_array(ctypes.c_size_t(runtimes.size), runtimes.ctypes.data_as(pointer),
                               out.ctypes.data_as(pointer))
        same(out, expected, 1e-12)

    with session.step("export --cost"):
        session("export", "--utility", text, "--cost", "cost.py", "--for", "irace")
        module = load_module(tmp_path / "cost.py")
        same(module.utility(runtimes), expected, 1e-12)
        same(module.cost(runtimes), 1.0 - expected, 1e-12)
        # a run stopped at the cutoff costs 1, whatever its time
        assert module.cost(600.0, "capped", 600.0) == 1.0
    session.end()
