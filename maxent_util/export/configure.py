"""Configuring a real solver by utility: one runner and one cost for every configurator.

:class:`CostTarget` runs a command once under a cutoff (a
:class:`~maxent_util.processes.ProcessRunner`, which ends everything the run started) and
costs it ``1 - u`` (:func:`~maxent_util.export.cost_function`): SMAC3's target function,
Optuna's objective and, through :func:`export_irace`, irace's target runner all call it, so
every route, the built-in race included, measures and scores runs the same way.
:class:`Parameter` describes one option of the solver once, for irace's parameter file and
the command line of every run.
"""

from __future__ import annotations

import math
import os
import re
import stat
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, NamedTuple, Sequence

from .._numbers import real
from .._version import __version__
from ..errors import ExportError, argument_message, short
from ..processes import ProcessRunner
from . import _cost_core
from .common import doc_safe, writable, write
from .cost import cost_function, export_cost

__all__ = ["CostTarget", "Parameter", "RunCost", "export_irace", "irace_parameters",
           "read_irace_parameters", "space_words"]

_KINDS = {"real": "r", "integer": "i", "categorical": "c"}


def _irace_text(text: Any) -> bool:
    """Text irace reads between double quotes: no quote, backslash or control character."""
    return isinstance(text, str) and not any(c in '"\\' or c < " " or c == "\x7f" for c in text)


@dataclass(frozen=True)
class Parameter:
    """One option of a solver, as every configurator is told about it.

    Parameters
    ----------
    name : str
        An identifier (letters, digits, ``_``): irace's and ConfigSpace's name of it.
    kind : {"real", "integer", "categorical"}
        Its domain's kind.
    values : tuple
        ``(low, high)`` for a number, the choices (strings) for a categorical option.
    switch : str
        The text before the value in the run's word, e.g. ``"-var-decay="`` gives
        ``-var-decay=0.9``; ``""`` for choices that are whole words (``"-luby"``, ``"-no-luby"``).
    log : bool
        Sample a number on a log scale.

    Raises
    ------
    ExportError
        For a name that is not an identifier, an unknown kind, bounds that are not two
        finite increasing numbers, or text irace could not read between quotes.

    Examples
    --------
    >>> Parameter("var_decay", "real", (0.5, 0.99), "-var-decay=").word(0.9)
    '-var-decay=0.9'
    """

    name: str
    kind: str
    values: tuple
    switch: str = ""
    log: bool = False

    def __post_init__(self) -> None:
        owner = "Parameter"
        if not (isinstance(self.name, str) and self.name.isidentifier() and self.name.isascii()):
            raise ExportError(argument_message("name", owner, "an ASCII identifier", short(self.name)))
        if self.kind not in _KINDS:
            raise ExportError(argument_message("kind", owner, "'real', 'integer' or 'categorical'",
                                               short(self.kind)))
        texts = [self.switch] + (list(self.values) if self.kind == "categorical" else [])
        if not all(_irace_text(text) for text in texts):
            raise ExportError(argument_message(
                "switch" if self.kind != "categorical" else "values", owner,
                "text without quotes, backslashes or control characters", short(texts)))
        if self.kind == "categorical":
            if not self.values or len(set(self.values)) != len(self.values):
                raise ExportError(argument_message("values", owner, "distinct choices",
                                                   short(self.values)))
        else:
            bounds = [real(v) for v in self.values] if isinstance(self.values, tuple) else []
            if len(bounds) != 2 or not all(math.isfinite(b) for b in bounds) \
                    or not bounds[0] < bounds[1] or (self.log and bounds[0] <= 0):
                raise ExportError(argument_message(
                    "values", owner, "(low, high), finite, low < high (and low > 0 on a log scale)",
                    short(self.values)))

    def word(self, value: Any) -> str:
        """The run's argument for ``value``: the switch followed by the value.

        Parameters
        ----------
        value : object
            The option's value, in its domain (an integer option's is cut to an ``int``).

        Returns
        -------
        str
            One word of the command line.

        Raises
        ------
        ExportError
            For a value outside the option's domain (a configuration is data: it must come
            from the declared space).
        """
        return f"{self.switch}{self.check(value)}"

    def check(self, value: Any, slack: float = 0.0) -> Any:
        """``value`` if it is in the option's domain (an integer's as an ``int``), else an error.

        ``slack``: how far past a bound a number may be, as a fraction of the bound's size
        (irace prints numbers with 4 significant digits).
        """
        owner = f"Parameter {self.name!r}"
        if self.kind == "categorical":
            if isinstance(value, str) and value in self.values:
                return value
            raise ExportError(argument_message("value", owner, f"one of {list(self.values)}",
                                               short(value)))
        try:
            number = real(value)
        except (TypeError, ValueError, ArithmeticError):
            number = math.nan
        low, high = (real(v) for v in self.values)
        margin = slack * max(abs(low), abs(high))
        if isinstance(value, bool) or not (low - margin <= number <= high + margin) or (
                self.kind == "integer" and number != int(number)):
            kind = "an integer" if self.kind == "integer" else "a number"
            raise ExportError(argument_message("value", owner, f"{kind} in [{low:g}, {high:g}]",
                                               short(value)))
        return int(number) if self.kind == "integer" else value

    def read(self, word: str) -> Any:
        """The value of this option in a command-line word (as irace writes it), or None
        if the word is not this option's."""
        if self.switch and not word.startswith(self.switch):
            return None
        text = word[len(self.switch):]
        if self.kind == "categorical":
            return text if text in self.values else None
        try:
            return int(text) if self.kind == "integer" else float(text)
        except ValueError:
            return None


def irace_parameters(space: Sequence[Parameter]) -> str:
    """irace's parameter file for ``space``: one line per option (``name "switch" r (lo, hi)``).

    Parameters
    ----------
    space : sequence of Parameter
        The options.

    Returns
    -------
    str
        The file's text.

    Examples
    --------
    >>> print(irace_parameters([Parameter("luby", "categorical", ("-luby", "-no-luby"))]), end="")
    luby "" c ("-luby", "-no-luby")
    """
    lines = []
    for parameter in space:
        kind = _KINDS[parameter.kind] + (",log" if parameter.log else "")
        if parameter.kind == "categorical":
            domain = ", ".join(f'"{v}"' for v in parameter.values)
        else:
            low, high = parameter.values
            domain = (f"{int(low)}, {int(high)}" if parameter.kind == "integer"
                      else f"{float(low)!r}, {float(high)!r}")
        lines.append(f'{parameter.name} "{parameter.switch}" {kind} ({domain})')
    return "\n".join(lines) + "\n"


#: irace writes a number with 4 significant digits: a value at a bound may pass it by half a
#: unit of the fourth digit
_IRACE_SLACK = 5e-4


def space_words(space: Sequence[Parameter], words: Sequence[str], owner: str,
                slack: float = 0.0) -> dict[str, Any]:
    """The values that ``words`` give the options of ``space``, each checked against its
    domain; an error naming the word for a word of no option, or an option given twice.

    Parameters
    ----------
    space : sequence of Parameter
        The declared options.
    words : sequence of str
        A configuration's words (``-var-decay=0.9``, ``-luby``).
    owner : str
        Who asks (for the error message).
    slack : float
        See :meth:`Parameter.check`.

    Returns
    -------
    dict
        The value of each option given.

    Raises
    ------
    ExportError
        For a word that is no option of the space, a value outside its domain, or an
        option given twice.

    Examples
    --------
    >>> space = [Parameter("luby", "categorical", ("-luby", "-no-luby")),
    ...          Parameter("rinc", "real", (1.1, 4.0), "-rinc=")]
    >>> space_words(space, ["-no-luby", "-rinc=2.5"], "example")
    {'luby': '-no-luby', 'rinc': 2.5}
    """
    values: dict[str, Any] = {}
    for word in words:
        # the longest switch that reads the word: -rinc= before -r
        found = [(len(p.switch), p, value) for p in space
                 if isinstance(word, str) and (value := p.read(word)) is not None]
        if not found:
            raise ExportError(argument_message(
                "config", owner, "words of the declared parameter space "
                f"({', '.join(p.name for p in space) or 'none declared'})", short(word)))
        _, parameter, value = max(found, key=lambda item: item[0])
        if parameter.name in values:
            raise ExportError(argument_message("config", owner, f"one value of {parameter.name}",
                                               short(list(words))))
        values[parameter.name] = parameter.check(value, slack)
    return values


_IRACE_LINE = re.compile(r'\s*([A-Za-z_]\w*)\s+"([^"]*)"\s+([rico])(,\s*log)?\s*'
                         r'\(([^()]*)\)\s*(\|.*)?')


def read_irace_parameters(text: str, source: str = "parameters.txt") -> list[Parameter]:
    """The options of an irace parameter file (what :func:`irace_parameters` writes, and
    hand-written lines of the same form: ``name "switch" r|i|c|o[,log] (domain) [| condition]``).

    Parameters
    ----------
    text : str
        The file's text.
    source : str
        Its name, for the error message.

    Returns
    -------
    list of Parameter
        The options (an ordinal ``o`` one as a categorical; a condition is not kept: a
        value is checked against its domain whether or not irace would set it).

    Raises
    ------
    ExportError
        Naming the line, for a line of another form (bounds that are not numbers, a
        section of irace's newer format).

    Examples
    --------
    >>> read_irace_parameters('rinc "-rinc=" r (1.1, 4)\\n# a comment\\n')[0].values
    (1.1, 4.0)
    """
    space = []
    for number, line in enumerate(text.splitlines(), 1):
        code = line.split("#", 1)[0]
        if not code.strip():
            continue
        found = _IRACE_LINE.fullmatch(code.rstrip())
        try:
            if found is None:
                raise ExportError("not a parameter line")
            name, switch, kind, log, domain, _ = found.groups()
            items = [item.strip().strip('"') for item in domain.split(",")]
            if kind in "co":
                space.append(Parameter(name, "categorical", tuple(items), switch))
            else:
                space.append(Parameter(name, "real" if kind == "r" else "integer",
                                       tuple(float(item) for item in items), switch,
                                       log=bool(log)))
        except (ExportError, ValueError):
            raise ExportError(argument_message(
                f"line {number}", source, 'an irace parameter: name "switch" r|i|c|o '
                "(values), with numbers as bounds", short(line))) from None
    return space


def irace_run(argv: Sequence[str], command: Sequence[str], cutoff: float,
              exit_codes: Sequence[int], here: str) -> tuple[list[str], str, float]:
    """What the irace target runner does once its arguments are read: check the parameters
    against ``parameters.txt`` beside it and the instance, then run the command.

    Returns the parameters, the instance and the runtime; raises a
    :class:`~maxent_util.errors.MaxEntError` naming what is wrong.
    """
    _, _, _, instance, *parameters = argv
    path = os.path.join(here, "parameters.txt")
    try:
        with open(path, encoding="utf-8") as file:
            text = file.read()
    except (OSError, UnicodeDecodeError) as error:
        raise ExportError(argument_message("parameters.txt", "target-runner", "a readable "
                                           "irace parameter file", path, f"({error})")) from None
    space_words(read_irace_parameters(text, path), parameters, "target-runner", _IRACE_SLACK)
    runtime = ProcessRunner(command, exit_codes=exit_codes).run(parameters, instance, cutoff)
    return parameters, instance, runtime


class RunCost(NamedTuple):
    """One costed run: what the runner measured, how it ended, and its cost ``1 - u``."""

    runtime: float
    status: str
    cost: float


class CostTarget:
    """A command run once under a cutoff and costed by a utility: the target of any configurator.

    Parameters
    ----------
    command : str or sequence of str
        As :class:`~maxent_util.processes.ProcessRunner` takes it, with ``{config}`` where
        the configuration's words go and ``{instance}`` (e.g. ``"minisat {config} {instance}"``).
    utility : str, Utility, CaptimeDistribution or sympy.Expr
        As :func:`~maxent_util.export.cost_function` takes it (a spec such as ``"pareto(1, 1)"``).
    cutoff : float
        Seconds after which a run is stopped (and counted as capped).
    space : sequence of Parameter, optional, keyword-only
        Turns a configuration given as a mapping into words.
    capped : {"zero", "cutoff"}, keyword-only
        How a capped run counts (see :func:`~maxent_util.export.cost_function`).
    exit_codes, clock, cwd, shell_ok : keyword-only
        Passed to the runner (a SAT solver exits 10 or 20: ``exit_codes=(10, 20)``).

    Raises
    ------
    ExportError
        For a cutoff that is not a positive finite number.
    DataError
        From the runner, for a bad command.

    Notes
    -----
    SMAC3 (``AlgorithmConfigurationFacade``)::

        target = CostTarget("minisat {config} {instance}", "pareto(1, 1)", 10, space=space,
                            exit_codes=(10, 20))
        def run(config, instance, seed=0):
            return target(dict(config), instance)
        scenario = Scenario(configspace, instances=instances, instance_features=features,
                            n_trials=200, deterministic=True, crash_cost=1.0)
        incumbent = AlgorithmConfigurationFacade(scenario, run).optimize()

    Optuna::

        def objective(trial):
            config = {p.name: trial.suggest_float(p.name, *p.values, log=p.log) for p in space}
            return sum(target(config, i) for i in instances) / len(instances)
        optuna.create_study(direction="minimize").optimize(objective, n_trials=50)

    irace: :func:`export_irace` writes a target runner that calls this class.

    Examples
    --------
    >>> import sys
    >>> target = CostTarget([sys.executable, "-c", "pass", "{config}", "{instance}"],
    ...                     "exponential(60)", 30.0)
    >>> result = target.run(["-x"], "instance")
    >>> result.status, 0.0 <= result.cost < 0.1
    ('solved', True)
    """

    def __init__(self, command: Any, utility: Any, cutoff: Any, *,
                 space: Sequence[Parameter] | None = None, capped: str = "zero",
                 exit_codes: Sequence[int] = (0,), clock: str = "wall", cwd: Any = None,
                 shell_ok: bool = False) -> None:
        limit = real(cutoff)
        if not (math.isfinite(limit) and limit > 0):
            raise ExportError(argument_message("cutoff", "CostTarget", "a positive finite number "
                                               "of seconds", short(cutoff)))
        self.runner = ProcessRunner(command, exit_codes=exit_codes, clock=clock, cwd=cwd,
                                    shell_ok=shell_ok)
        self.cost = cost_function(utility, capped=capped)
        self.cutoff = limit
        self.space = tuple(space or ())

    def words(self, config: Any) -> list[str]:
        """A configuration's words on the command line.

        Parameters
        ----------
        config : mapping or sequence of str
            A mapping of option names to values, turned into words through ``space`` (its
            options in order, those absent skipped), or the words themselves.

        Returns
        -------
        list of str
            The words that replace ``{config}``.
        """
        if isinstance(config, Mapping):
            if self.space:
                unknown = sorted(set(config) - {p.name for p in self.space}, key=str)
                if unknown:
                    raise ExportError(argument_message(
                        "config", "CostTarget", "options of the declared space "
                        f"({', '.join(p.name for p in self.space)})", short(unknown)))
            elif config:
                raise ExportError(argument_message(
                    "config", "CostTarget", "words, or a mapping with a space to read it by",
                    short(config), "Pass space=[Parameter(...), ...]."))
            return [p.word(config[p.name]) for p in self.space if p.name in config]
        words = [str(word) for word in config]
        if self.space:
            space_words(self.space, words, "CostTarget")
        return words

    def run(self, config: Any, instance: Any) -> RunCost:
        """Run ``config`` on ``instance`` once, stopped at the cutoff.

        Parameters
        ----------
        config : mapping or sequence of str
            The configuration (see :meth:`words`).
        instance : object
            The instance, one argument of the command.

        Returns
        -------
        RunCost
            The measured runtime (``inf`` for a failure), the status (``"solved"``,
            ``"capped"``, ``"crash"``) and the cost ``1 - u``.
        """
        runtime = self.runner.run(self.words(config), instance, self.cutoff)
        status = _cost_core.status_of(runtime, self.cutoff)
        return RunCost(runtime, status, self.cost(runtime, status, self.cutoff))

    def __call__(self, config: Any, instance: Any) -> float:
        """The cost ``1 - u`` of one run, what a configurator minimises.

        Parameters
        ----------
        config, instance : object
            As :meth:`run` takes them.

        Returns
        -------
        float
            The run's cost, in ``[0, 1]``.
        """
        return self.run(config, instance).cost


_RUNNER = '''#!{python}
"""irace target runner written by maxent_util {version}.

irace calls: target-runner <configuration id> <instance id> <seed> <instance> <parameters...>
It checks the parameters against parameters.txt and the instance (a plain name), runs the
command below with the parameters in place of {{config}} and the instance in place of
{{instance}} (never through a shell; a refused name is one line on standard error and exit
status 2), stops it at the cutoff and ends everything it
started (maxent_util's ProcessRunner, the runner of every route), and prints the run's cost
1 - u (cost.py beside this file: the library's cost, numpy only) as its only line. With
log = True each run is also appended to runs.jsonl beside it, one JSON object a line.

{provenance}
"""

import json
import os
import sys
import importlib.util

from maxent_util.errors import MaxEntError
from maxent_util.export.configure import irace_run

COMMAND = {command!r}
CUTOFF = {cutoff!r}
EXIT_CODES = {exit_codes!r}
LOG = {log!r}
HERE = os.path.dirname(os.path.abspath(__file__))


def _cost_module():
    spec = importlib.util.spec_from_file_location("maxent_util_irace_cost", os.path.join(HERE, "cost.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main(argv):
    if len(argv) < 4:
        print("usage: target-runner <configuration id> <instance id> <seed> <instance> "
              "<parameters...>", file=sys.stderr)
        return 1
    configuration, instance_id, seed, *_ = argv
    cost = _cost_module()
    try:  # the parameters come from parameters.txt, the instance is a plain name
        parameters, instance, runtime = irace_run(argv, COMMAND, CUTOFF, EXIT_CODES, HERE)
    except MaxEntError as error:
        print(f"target-runner: {{error}}", file=sys.stderr)
        return 2
    status = cost.status_of(runtime, CUTOFF)
    value = cost.cost(runtime, status, CUTOFF)
    if LOG:
        line = json.dumps({{"configuration": configuration, "instance_id": instance_id,
                           "seed": seed, "instance": instance, "parameters": parameters,
                           "runtime": runtime, "status": status, "cutoff": CUTOFF,
                           "cost": value}})
        # one write of one line in append mode: parallel runs do not interleave their lines
        with open(os.path.join(HERE, "runs.jsonl"), "a", encoding="utf-8") as file:
            file.write(line + "\\n")
    print(repr(float(value)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
'''

_SCENARIO = '''## irace scenario written by maxent_util {version} (a skeleton: set the budget and instances)
targetRunner = "./target-runner"
parameterFile = "./parameters.txt"
trainInstancesDir = ""
trainInstancesFile = "./instances.txt"
## a budget of runs; each run lasts at most the cutoff, {cutoff!r} s
maxExperiments = {budget}
## runs are measured in seconds of the utility's scales; keep one run at a time per core
parallel = 1
deterministic = {deterministic}
'''


def export_irace(folder: Any, command: Any, utility: Any, cutoff: Any, *,
                 space: Sequence[Parameter] = (), instances: Sequence[Any] = (),
                 capped: str = "zero", exit_codes: Sequence[int] = (0,), budget: int = 1000,
                 deterministic: bool = False, log: bool = True, overwrite: bool = False,
                 parents: bool = False) -> Path:
    """Write an irace set-up: target runner, cost module, scenario, parameters, instances.

    The folder gets ``target-runner`` (a Python script run by this interpreter: it calls
    :class:`~maxent_util.processes.ProcessRunner`, no shell, and prints the cost),
    ``cost.py`` (:func:`~maxent_util.export.export_cost` for irace), ``scenario.txt``,
    ``parameters.txt`` (from ``space``, or empty to fill in) and ``instances.txt`` (one path
    a line). Run ``irace`` in the folder.

    Parameters
    ----------
    folder : str or os.PathLike
        Where to write; it must exist (see ``parents``).
    command : str or sequence of str
        The run's command, with ``{config}`` (or ``{params}``) and ``{instance}``:
        ``"minisat {params} {instance}"``.
    utility : str, Utility, CaptimeDistribution or sympy.Expr
        As :func:`~maxent_util.export.cost_function` takes it.
    cutoff : float
        Seconds after which a run is stopped.
    space : sequence of Parameter, keyword-only
        The options irace configures.
    instances : sequence, keyword-only
        The training instances (paths).
    capped : {"zero", "cutoff"}, keyword-only
        How a capped run counts.
    exit_codes : sequence of int, keyword-only
        The statuses of a run that finished (SAT solvers: ``(10, 20)``).
    budget : int, keyword-only
        ``maxExperiments`` of the scenario.
    deterministic : bool, keyword-only
        The scenario's ``deterministic``.
    log : bool, keyword-only
        The runner appends each run to ``runs.jsonl`` (runtime, status, cost).
    overwrite, parents : bool, keyword-only
        Replace existing files; create a missing folder.

    Returns
    -------
    pathlib.Path
        The folder.

    Raises
    ------
    ExportError
        For a bad cutoff or budget, an existing file without ``overwrite``, or a utility
        that cannot be exported.
    DataError
        For a command the runner refuses (a placeholder a shell would read as code).
    """
    owner = "export_irace"
    if isinstance(command, str):
        command = command.replace("{params}", "{config}")
    else:
        command = [str(word).replace("{params}", "{config}") for word in command]
    target = CostTarget(command, utility, cutoff, space=space, capped=capped, exit_codes=exit_codes)
    if isinstance(budget, bool) or not isinstance(budget, int) or budget < 1:
        raise ExportError(argument_message("budget", owner, "a positive integer", short(budget)))
    names = ["target-runner", "cost.py", "scenario.txt", "parameters.txt", "instances.txt"]
    root = Path(os.fspath(folder))
    if not root.is_dir():
        if not parents:
            raise ExportError(argument_message("folder", owner, "an existing folder", str(root),
                                               "Pass parents=True to create it."))
        root.mkdir(parents=True, exist_ok=True)
    paths = [writable(root / name, owner, overwrite=overwrite) for name in names]
    instance_lines = [str(i) for i in instances]
    if any("\n" in line or "\r" in line or "\0" in line for line in instance_lines):
        raise ExportError(argument_message("instances", owner, "paths without line breaks",
                                           short(instance_lines)))
    export_cost(utility, paths[1], tool="irace", capped=capped, overwrite=overwrite)
    provenance = "\n".join(doc_safe(line) for line in (
        f"command: {' '.join(target.runner.words)}", f"cutoff: {target.cutoff!r} s",
        f"utility: {utility if isinstance(utility, str) else getattr(utility, 'name', None)}",
        f"capped runs: {capped}"))
    write(paths[0], _RUNNER.format(python=sys.executable, version=__version__, provenance=provenance,
                                   command=list(target.runner.words), cutoff=target.cutoff,
                                   exit_codes=tuple(target.runner.exit_codes), log=bool(log)),
          owner, overwrite=overwrite)
    paths[0].chmod(paths[0].stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    write(paths[2], _SCENARIO.format(version=__version__, cutoff=target.cutoff, budget=budget,
                                     deterministic=int(bool(deterministic))), owner, overwrite=overwrite)
    write(paths[3], irace_parameters(space) if space else "", owner, overwrite=overwrite)
    write(paths[4], "".join(line + "\n" for line in instance_lines), owner, overwrite=overwrite)
    return root
