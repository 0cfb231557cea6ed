"""Parameter spaces: the four formats read and written, ConfigSpace, Optuna, irace and minisat.

Round trips go through every pair of formats for spaces drawn by hypothesis (types, ranges,
log scales, defaults, conditions, forbidden combinations); the real ConfigSpace reads what
``write`` wrote and ``read`` reads what ConfigSpace wrote; a tiny Optuna study shows the
conditions and forbidden combinations honoured; irace's own reader (R) reads the parameter
and forbidden files; minisat runs a configuration of ``examples/minisat.pcs``.
"""

from __future__ import annotations

import dataclasses
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import ERROR_PREFIX, checkout_env
from hypothesis import given, settings, strategies as st

from maxent_util import ParameterSpace
from maxent_util.cli import main
from maxent_util.errors import DataError, ExportError, MissingExtraError
from maxent_util.export import CostTarget, export_irace, find_irace
from maxent_util.space import FORMATS, Condition, Parameter

ROOT = Path(__file__).resolve().parents[1]
MINISAT = ROOT / "examples" / "minisat.pcs"
SETTINGS = settings(max_examples=40, deadline=None, derandomize=True, database=None)


def _switch(name: str, kind: str, values: tuple) -> str:
    # the documented switch of an option read from PCS or JSON (a file with no switches)
    if kind == "categorical" and all(v.startswith("-") for v in values):
        return ""
    return "-" + name.replace("_", "-") + "="


_CHOICE = st.text("abcxyz019_-.+:", min_size=1, max_size=5)


@st.composite
def spaces(draw: st.DrawFn) -> ParameterSpace:
    count = draw(st.integers(1, 6))
    parameters = []
    for k in range(count):
        name = f"{draw(st.sampled_from(['a', 'var', 'x_y']))}{k}"
        kind = draw(st.sampled_from(["real", "integer", "categorical"]))
        log = kind != "categorical" and draw(st.booleans())
        if kind == "categorical":
            values = tuple(draw(st.lists(_CHOICE, min_size=1, max_size=4, unique=True)))
            default = draw(st.none() | st.sampled_from(values))
        elif kind == "integer":
            low = draw(st.integers(1 if log else -1000, 1000))
            high = low + draw(st.integers(1, 10 ** 6))
            values, default = (low, high), draw(st.none() | st.integers(low, high))
        else:
            low = draw(st.floats(1e-6 if log else -1e6, 1e6, allow_nan=False))
            high = low + draw(st.floats(1e-3, 1e6))
            values = (low, high)
            default = draw(st.none() | st.floats(low, high))
        parameters.append(Parameter(name, kind, values, _switch(name, kind, values), log, default))
    conditions = []
    for k, child in enumerate(parameters):
        parents = [p for p in parameters[:k] if p.kind == "categorical"]
        for parent in draw(st.lists(st.sampled_from(parents), max_size=2, unique=True)) if parents else []:
            chosen = draw(st.lists(st.sampled_from(parent.values), min_size=1, unique=True))
            conditions.append(Condition(child.name, parent.name, tuple(chosen)))
    forbidden = []
    for _ in range(draw(st.integers(0, 2))):
        members = draw(st.lists(st.sampled_from(parameters), min_size=1, max_size=2, unique=True))
        forbidden.append({p.name: draw(st.sampled_from(p.values)) if p.kind == "categorical"
                          else draw(st.integers(*p.values) if p.kind == "integer" else st.floats(*p.values))
                          for p in members})
    order = draw(st.permutations(parameters))  # a parent after its child, sometimes
    return ParameterSpace(order, conditions, forbidden)


def _through(space: ParameterSpace, kind: str) -> ParameterSpace:
    """Write in ``kind`` and read back, the format told from the text."""
    forbidden = space.to_irace_forbidden() if kind == "irace" else None
    return ParameterSpace.parse(space.text(kind), forbidden=forbidden)


def _settled(space: ParameterSpace, *, defaults: bool) -> ParameterSpace:
    """Every default written out; without ``defaults``, the one a file without defaults gives."""
    return space.replace(parameters=[dataclasses.replace(
        p, default=(p if defaults else dataclasses.replace(p, default=None)).start) for p in space])


@SETTINGS
@given(spaces(), st.sampled_from(FORMATS), st.sampled_from(FORMATS))
def test_a_space_survives_every_pair_of_formats(space, first, second):
    back = _through(_through(space, first), second)
    # irace's parameter file alone holds no defaults: its reader takes ConfigSpace's rule
    assert _settled(back, defaults=True) == _settled(space, defaults="irace" not in (first, second))
    assert back.forbidden == space.forbidden and back.conditions == space.conditions


@SETTINGS
@given(spaces(), st.integers(0, 2 ** 32 - 1))
def test_a_sample_holds_only_active_options_of_their_domains_and_nothing_forbidden(space, seed):
    try:
        config = space.sample(seed, tries=50)
    except ExportError:  # a space that forbids nearly everything: the refusal is the answer
        return
    assert list(config) == space.active(config)
    assert all(space[name].value(value) == value for name, value in config.items())
    assert not space.is_forbidden(config)
    assert space.words(config) == [space[name].word(value) for name, value in config.items()]
    default = space.default()
    assert list(default) == space.active(default)


SMALL = ParameterSpace(
    [Parameter("mode", "categorical", ("fast", "slow", "off"), "--mode=", default="slow"),
     Parameter("depth", "integer", (1, 64), "--depth=", log=True),
     Parameter("rate", "real", (0.001, 1.0), "--rate=", log=True, default=0.1),
     Parameter("level", "real", (-2.0, 2.0), "--level=")],
    [Condition("depth", "mode", ("fast", "slow")), Condition("rate", "mode", ("fast",))],
    [{"mode": "slow", "depth": 2}, {"mode": "off", "level": 0.0}])


def test_switches_ride_in_json_and_irace_and_follow_the_rule_in_pcs():
    for kind in ("json", "irace"):
        assert _settled(_through(SMALL, kind), defaults=True) == _settled(
            SMALL, defaults=kind != "irace")
    pcs = _through(SMALL, "pcs")
    assert [p.switch for p in pcs] == ["-mode=", "-depth=", "-rate=", "-level="]
    assert ParameterSpace.parse(SMALL.text("pcs"), switches={"mode": "--mode="})["mode"].switch == "--mode="


def _configspace_key(space):
    # ConfigurationSpace.__eq__ also compares its internal caches, which the order of adding
    # conditions changes; what a user sees is the options, the conditions and the forbidden
    # (the switches ride in each option's meta only in JSON)
    options = {name: repr(option).replace(f"meta={option.meta!r}", "meta=None")
               for name, option in space.items()}
    # (and `in` one value reads back as `==` in some of ConfigSpace's readers: the same condition)
    conditions = sorted(re.sub(r" == ('[^']*')", r" in {\1}", str(c)) for c in space.conditions)
    return options, conditions, sorted(map(str, space.forbidden_clauses))


def _unordered(space):
    settled = _settled(space, defaults=True)
    return (set(settled), set(settled.conditions),
            {frozenset(combination) for combination in settled.forbidden})


# ConfigSpace's PCS modules, and pyparsing under them, warn that they are no longer kept up
@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_the_real_configspace_reads_what_write_wrote_and_the_other_way():
    pytest.importorskip("ConfigSpace")
    from ConfigSpace.read_and_write import json as cs_json, pcs, pcs_new
    for space in (SMALL, ParameterSpace.read(MINISAT)):
        ours = space.to_configspace()
        key = _configspace_key(ours)
        assert _configspace_key(pcs_new.read(space.text("pcs-new").splitlines())) == key
        assert _configspace_key(cs_json.read(space.text("json"))) == key
        # ConfigSpace's classic reader takes one condition per option, and forbidden values as
        # text (so only choices); here the minisat example
        if len({c.child for c in space.conditions}) == len(space.conditions) and all(
                space[name].kind == "categorical" for combination in space.forbidden for name, _ in combination):
            assert _configspace_key(pcs.read(space.text("pcs").splitlines())) == key
        plain = space.replace(parameters=[dataclasses.replace(p, switch=_switch(p.name, p.kind, p.values))
                                          for p in space])
        # ConfigSpace sorts the options (the order of the words is lost with it)
        assert _unordered(ParameterSpace.parse(cs_json.write(ours))) == _unordered(space)
        assert _unordered(ParameterSpace.parse(pcs_new.write(ours))) == _unordered(plain)
        assert dict(ours.get_default_configuration()) == space.default()
        for config in ours.sample_configuration(30):
            values = dict(config)
            assert sorted(space.active(values)) == sorted(values) and not space.is_forbidden(values)


def test_optuna_suggests_only_active_options_and_prunes_forbidden_combinations():
    optuna = pytest.importorskip("optuna")
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    seen = {}

    def objective(trial):
        config = SMALL.suggest(trial)
        seen[trial.number] = config
        return config.get("rate", 1.0) + abs(config["level"])

    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=3))
    study.optimize(objective, n_trials=40)
    states = [trial.state for trial in study.trials]
    assert optuna.trial.TrialState.PRUNED in states and optuna.trial.TrialState.COMPLETE in states
    for trial in study.trials:
        assert trial.params == {name: value for name, value in trial.params.items()
                                if name in SMALL.active(trial.params)}
        assert set(trial.params) == set(SMALL.active(trial.params))
        pruned = trial.state == optuna.trial.TrialState.PRUNED
        assert SMALL.is_forbidden(trial.params) == pruned
    assert {"rate"} & set(study.best_params) == ({"rate"} if study.best_params["mode"] == "fast" else set())


def test_configspace_and_optuna_missing_name_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "ConfigSpace", None)
    monkeypatch.setitem(sys.modules, "optuna", None)
    with pytest.raises(MissingExtraError, match=r"needs ConfigSpace.*maxent_util\[configure\]"):
        SMALL.to_configspace()
    with pytest.raises(MissingExtraError, match=r"needs Optuna.*maxent_util\[configure\]"):
        SMALL.suggest(object())


def test_irace_s_own_reader_reads_the_parameter_and_forbidden_files(tmp_path):
    try:
        find_irace()
    except ExportError:
        pytest.skip("irace is not installed")
    path = SMALL.write(tmp_path / "parameters.txt", "irace")
    assert (tmp_path / "forbidden.txt").read_text() == ('(mode == "slow") & (depth == 2)\n'
                                                       '(mode == "off") & (level == 0.0)\n')
    # rate is inactive under mode "slow"; depth is log-uniform's middle of [1, 64]
    (tmp_path / "configurations.txt").write_text(SMALL.to_irace_configurations())
    assert SMALL.to_irace_configurations() == 'mode depth rate level\n"slow" 8 NA 0.0\n'
    script = ('suppressMessages(library(irace)); p <- readParameters("parameters.txt"); '
              'cat(p$names, "\\n"); cat(p$types, "\\n"); cat(p$transform == "log", "\\n"); '
              'for (n in p$names) cat(n, paste(deparse(p$conditions[[n]]), collapse = ""), "\\n"); '
              'f <- irace:::readForbiddenFile("forbidden.txt"); cat(length(f), "\\n"); '
              'c <- irace:::readConfigurationsFile("configurations.txt", p); '
              'cat(as.character(c$mode), c$depth, c$rate, c$level, "\\n")')
    done = subprocess.run(["Rscript", "-e", script], cwd=tmp_path, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].split() == ["mode", "depth", "rate", "level"]
    assert lines[1].split() == ["c", "i", "r", "r"]
    assert lines[2].split() == ["FALSE", "TRUE", "TRUE", "FALSE"]
    assert [line.strip() for line in lines[3:7]] == [
        "mode TRUE", 'depth expression(mode %in% c("fast", "slow"))', 'rate expression(mode %in% c("fast"))',
        "level TRUE"]
    assert lines[7].strip() == "2"
    assert lines[-1].split() == ["slow", "8", "NA", "0"]  # irace checked it against the file
    assert _settled(ParameterSpace.read(path), defaults=True) == _settled(SMALL, defaults=False)


def test_find_irace_says_how_to_install_it_where_neither_path_nor_r_has_it(monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(ExportError, match=r"apt-get install r-cran-irace.*install\.packages\(\"irace\"\)"):
        find_irace()


def _cnf(path: Path, variables: int = 30, clauses: int = 100, seed: int = 0) -> Path:
    # a small random 3-CNF (under the 4.26 threshold: satisfiable, solved at once)
    rng = np.random.default_rng(seed)
    lines = [f"p cnf {variables} {clauses}"]
    for _ in range(clauses):
        chosen = rng.choice(variables, 3, replace=False) + 1
        lines.append(" ".join(str(int(v) * int(rng.choice([-1, 1]))) for v in chosen) + " 0")
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.skipif(shutil.which("minisat") is None, reason="minisat is not installed")
def test_minisat_runs_the_default_and_a_drawn_configuration_of_the_example(tmp_path):
    space = ParameterSpace.read(MINISAT)
    assert len(space) == 18 and {c.parent for c in space.conditions} == {"pre", "elim"}
    # minisat's own defaults (minisat --help)
    assert space.words(space.default())[:4] == ["-var-decay=0.95", "-cla-decay=0.999", "-rnd-freq=0.0",
                                                "-no-rnd-init"]
    target = CostTarget(["minisat", "-verb=0", "{config}", "{instance}"], "pareto(0.01, 1)", 20.0,
                        space=space, exit_codes=(10, 20), clock="cpu")
    instance = _cnf(tmp_path / "random.cnf")
    # minisat refuses an option it does not know (exit 1: a crash), so "solved" says it took them
    for config in (space.default(), space.sample(7), {**space.sample(8), "pre": "-no-pre"}):
        assert target.run(config, instance).status == "solved", config
    without = {**space.default(), "pre": "-no-pre"}
    assert not any(word.startswith(("-elim", "-sub-lim", "-grow")) for word in target.words(without))


def test_write_refuses_to_overwrite_unless_asked(tmp_path):
    path = SMALL.write(tmp_path / "space.pcs")
    with pytest.raises(ExportError, match=r"^`path` of `ParameterSpace.write` must be a file that does "
                                          r"not exist yet"):
        SMALL.write(path, "json")
    assert ParameterSpace.read(path) == _settled(SMALL, defaults=True).replace(
        parameters=[dataclasses.replace(p, default=p.start, switch="-" + p.name + "=") for p in SMALL])
    SMALL.write(path, "json", overwrite=True)
    assert json.loads(path.read_text())["hyperparameters"][0]["meta"] == {"switch": "--mode="}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["space.pcs"]  # no temporary left


@pytest.mark.parametrize("text, message", [
    ("x [1, 0] [0]\n", r"^f, line 1: `values` of `Parameter` must be \(low, high\)"),
    ("x [0, 1] [0.5]\ny | x in {a}\n", r"^`line 2` of `f` must be a condition .*; got 'y \| x in \{a\}'"),
    ("m {a, b} [a]\nx [0, 1] [0]\nx | m in {a} || m in {b}\n", r"^`line 3` of `f` must be a condition"),
    ("m {a, b} [c]\n", r"^f, line 1: `default` of `Parameter` must be a value of m's domain"),
    ("m {a, b} [a]\n{m=c}\n", r"^f: `forbidden` of `ParameterSpace` must be combinations"),
    ("m {a, b} [a]\n{n=a}\n", r"^`line 2` of `f` must be a forbidden combination"),
    ("m {a, b} [a]\nm [0, 1] [0]\n", r"^`line 2` of `f` must be a parameter not named before"),
    ("x [0, 1] [__import__('os')]\n", r"^`line 1` of `f` must be a parameter"),
    ("m {a, b} [a]\nn {a, b} [a]\nm | n in {a}\nn | m in {a}\n",
     r"`conditions` of `ParameterSpace` must be conditions without a circle; got \['m', 'n'\]"),
    ('x "-x=" r (0, 1) | system("rm")\n', r"^`line 1` of `f` must be a condition of conjunctions"),
    ('x "-x=" r,log (0, 1)\n', r"^f, line 1: `values` of `Parameter`.*low > 0 on a log scale"),
    ('x "a\\"" r (0, 1)\n', r"^`line 1` of `f` must be a parameter \(name \"switch\""),
    ('{"hyperparameters": [{"name": "x", "type": "normal_float"}]}',
     r"^`hyperparameters\[0\]` of `f` must be a uniform_float.*; got 'normal_float'"),
    ('{"hyperparameters": [{"name": "x", "type": "uniform_float", "lower": 0, "upper": 1, '
     '"default_value": NaN}]}', r"^`hyperparameters\[0\]` of `f` must be a uniform number"),
    ("nothing to see here\n", r"^`text` of `f` must be a space in classic PCS"),
])
def test_hostile_or_broken_files_are_refused_naming_the_line(text, message):
    with pytest.raises(DataError, match=message):
        ParameterSpace.parse(text, name="f")


def test_a_long_chain_of_conditions_or_many_combinations_cost_their_length():
    # each option active only under the one before: a hostile file's worst case is linear
    count = 5_000
    lines = [f"p{k} {{a, b}} [a]" for k in range(count)]
    lines += ["Conditionals:"] + [f"p{k} | p{k - 1} in {{a}}" for k in range(count - 1, 0, -1)]
    lines += ["Forbidden:"] + [f"{{p{k}=b, p{k + 1}=b}}" for k in range(count - 1)]
    space = ParameterSpace.parse("\n".join(lines))
    assert len(space.conditions) == count - 1 and len(space.forbidden) == count - 1
    assert len(space.default()) == count and space.words({"p0": "b", "p1": "a"}) == ["-p0=b"]


def test_json_errors_name_the_place_in_the_document():
    text = json.dumps({"hyperparameters": [{"name": "m", "type": "categorical", "choices": ["a"],
                                             "default_value": "z"}]})
    with pytest.raises(DataError, match=r"^f, hyperparameters\[0\]: `default` of `Parameter`"):
        ParameterSpace.parse(text, name="f")


def test_reading_is_bounded_and_needs_utf8(tmp_path):
    big = tmp_path / "big.pcs"
    big.write_text("x [0, 1] [0.5]\n" + "#" * 100)
    with pytest.raises(DataError, match=r"must be a file of at most 50 bytes"):
        ParameterSpace.read(big, max_bytes=50)
    latin = tmp_path / "latin.pcs"
    latin.write_bytes(b"x [0, 1] [0.5] # caf\xe9\n")
    with pytest.raises(DataError, match=r"must be UTF-8 text"):
        ParameterSpace.read(latin)


def test_a_forbidden_line_cannot_ask_for_billions_of_combinations():
    choices = ", ".join(f'"v{k}"' for k in range(400))
    parameters = "".join(f'{name} "" c ({choices})\n' for name in "abcd")
    line = " & ".join(f"{name} %in% c({choices})" for name in "abcd") + "\n"  # 400 ** 4
    with pytest.raises(DataError, match=r"^`line 1` of `forbidden` must be at most 100,000 forbidden"):
        ParameterSpace.parse(parameters, forbidden=(line, "forbidden"))


def test_choices_a_pcs_file_cannot_hold_are_refused_not_mangled():
    space = ParameterSpace([Parameter("m", "categorical", ("one word", "two"))])
    with pytest.raises(ExportError, match=r"must be choices of letters.*got \['one word'\]"):
        space.text("pcs")
    assert _through(space, "irace")["m"].values == ("one word", "two")


def test_cost_target_and_export_irace_take_a_space(tmp_path):
    target = CostTarget(["solver", "{config}", "{instance}"], "pareto(1, 1)", 1.0, space=SMALL)
    assert target.words({"mode": "off", "depth": 3, "rate": 0.5, "level": 1.5}) == ["--mode=off", "--level=1.5"]
    folder = export_irace(tmp_path, ["solver", "{config}", "{instance}"], "pareto(1, 1)", 1.0, space=SMALL)
    assert (folder / "parameters.txt").read_text() == SMALL.to_irace()
    assert (folder / "forbidden.txt").read_text() == SMALL.to_irace_forbidden()
    assert (folder / "configurations.txt").read_text() == SMALL.to_irace_configurations()
    scenario = (folder / "scenario.txt").read_text()
    assert 'forbiddenFile = "./forbidden.txt"' in scenario
    assert 'configurationsFile = "./configurations.txt"' in scenario
    # without stated defaults irace draws its first candidates itself
    plain = export_irace(tmp_path / "plain", ["solver", "{config}", "{instance}"], "pareto(1, 1)", 1.0,
                         space=[Parameter("x", "real", (0, 1))], parents=True)
    assert not (plain / "configurations.txt").exists()
    forbidden_default = SMALL.replace(forbidden=[{"mode": "slow"}])
    with pytest.raises(ExportError, match=r"^`default` of `ParameterSpace` must be a configuration "
                                          r"that is not forbidden"):
        export_irace(tmp_path / "bad", ["solver", "{config}", "{instance}"], "pareto(1, 1)", 1.0,
                     space=forbidden_default, parents=True)
    assert not (tmp_path / "bad").exists()  # refused before anything was written


def test_the_command_line_converts_a_space_and_fills_irace_s_files(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["space", str(MINISAT), "--to", "irace"]) == 0
    assert capsys.readouterr().out == ParameterSpace.read(MINISAT).to_irace()
    SMALL.write("small.json", "json")
    assert main(["space", "small.json", "--to", "irace", "-o", "p.txt"]) == 0
    assert "wrote p.txt, forbidden.txt: 4 options, 2 conditions, 2 forbidden" in capsys.readouterr().out
    assert _settled(ParameterSpace.read("p.txt"), defaults=True) == _settled(SMALL, defaults=False)
    assert main(["space", "small.json", "--to", "irace", "-o", "p.txt"]) == 2
    assert "already exists; pass --force" in capsys.readouterr().err
    assert main(["space", "small.json", "--to", "irace"]) == 2
    assert "pass -o FILE" in capsys.readouterr().err
    assert main(["space", "p.txt", "--to", "configspace"]) == 0
    assert json.loads(capsys.readouterr().out)["forbiddens"][0]["type"] == "AND"
    assert main(["export", "--utility", "pareto(1, 1)", "--irace", "run", "--command",
                 "solver {config} {instance}", "--cutoff", "1", "--space", "small.json"]) == 0
    assert "parameters.txt (4 options), forbidden.txt" in capsys.readouterr().out
    assert (tmp_path / "run" / "forbidden.txt").read_text() == SMALL.to_irace_forbidden()
    assert main(["export", "--utility", "pareto(1, 1)", "--python", "x.py", "--space", "small.json"]) == 2
    assert capsys.readouterr().err.startswith(ERROR_PREFIX + "argument --space: only with --irace")


def test_space_files_hold_no_code(tmp_path):
    # text that R or Python would run is data here: the reader refuses it before any use
    folder = tmp_path / "x"
    folder.mkdir()
    (folder / "parameters.txt").write_text('x "-x=" r (0, 1)\n')
    (folder / "forbidden.txt").write_text('system("touch pwned")\n')
    with pytest.raises(DataError, match=r"forbidden.txt` must be a forbidden combination"):
        ParameterSpace.read(folder / "parameters.txt")
    assert not (folder / "pwned").exists()


_PIECES = st.sampled_from(['x', 'm', '"-x="', '"a b"', 'r', 'i', 'c', 'o', ',log', 'real', 'integer',
                           'categorical', 'ordinal', '[', ']', '{', '}', '(', ')', ',', '|', '&&', '||',
                           '&', '==', '!=', '=', 'in', '%in%', '0', '1', '-1', '1e999', '0.5', 'a', 'b',
                           'il', 'log', 'Conditionals:', 'Forbidden:', '#', '\n', ' ', '\\', '\x00', 'é'])


@settings(max_examples=200, deadline=None, derandomize=True, database=None)
@given(st.lists(_PIECES, max_size=40).map(" ".join) | st.text(max_size=200),
       st.sampled_from([None, *FORMATS]))
def test_any_text_is_read_or_refused_with_a_data_error(text, kind):
    try:
        space = ParameterSpace.parse(text, format=kind, forbidden=text if kind == "irace" else None)
    except DataError:
        return
    assert len(space) >= 0 and all(isinstance(p, Parameter) for p in space)


def test_irace_s_own_sampler_draws_only_active_options_and_nothing_forbidden(tmp_path):
    try:
        find_irace()
    except ExportError:
        pytest.skip("irace is not installed")
    space = ParameterSpace(
        [Parameter("x", "real", (0.0, 1.0), "--x="),
         Parameter("shape", "categorical", ("round", "flat", "odd"), "--shape="),
         Parameter("y", "integer", (1, 9), "--y=")],
        [Condition("y", "shape", ("flat",))], [{"shape": "odd"}])
    space.write(tmp_path / "parameters.txt", "irace")
    # irace's uniform sampler, the one its first iteration draws from, with the forbidden file
    script = ('suppressMessages(library(irace)); set.seed(1); p <- readParameters("parameters.txt"); '
              'f <- irace:::readForbiddenFile("forbidden.txt"); '
              'c <- irace:::sampleUniform(p, 60, 4, forbidden = f); '
              'write.csv(c[, p$names], stdout(), row.names = FALSE)')
    done = subprocess.run(["Rscript", "-e", script], cwd=tmp_path, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    rows = [line.split(",") for line in done.stdout.splitlines()[1:]]
    assert len(rows) == 60
    shapes = set()
    for x, shape, y in rows:
        shape = shape.strip('"')
        shapes.add(shape)
        config = {"x": float(x), "shape": shape, **({} if y == "NA" else {"y": int(y)})}
        assert ("y" in config) == (shape == "flat") and not space.is_forbidden(config), config
    assert shapes == {"round", "flat"}  # the forbidden choice never drawn, the others were
