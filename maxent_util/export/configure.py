"""Configuring a real solver by utility: one runner and one cost for every configurator.

:class:`CostTarget` runs a command once under a cutoff (a
:class:`~maxent_util.processes.ProcessRunner`, which ends everything the run started) and
costs it ``1 - u`` (:func:`~maxent_util.export.cost_function`): SMAC3's target function,
Optuna's objective and, through :func:`export_irace`, irace's target runner all call it, so
every route, the built-in race included, measures and scores runs the same way.
:class:`~maxent_util.ParameterSpace` (of :class:`Parameter`) describes the solver's options
once, for irace's parameter file and the command line of every run.
"""

from __future__ import annotations

import math
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any, NamedTuple, Sequence

from .._numbers import real
from .._output import file_group
from .._version import __version__
from ..errors import ExportError, argument_message, short
from ..processes import ProcessRunner, refuse_old_placeholder
from ..space import Parameter, ParameterSpace, space_words
from . import _cost_core
from .common import doc_safe, writable, write
from ..racing.checks import worthless_level
from ..racing.worthless import worthless_from
from .cost import _as_utility, cost_function, export_cost

__all__ = ["CostTarget", "Parameter", "RunCost", "export_irace", "find_irace", "irace_parameters",
           "space_words"]

def irace_parameters(space: ParameterSpace | Sequence[Parameter]) -> str:
    """irace's parameter file for ``space``: one line per option (``name "switch" r (lo, hi)``).

    Parameters
    ----------
    space : ParameterSpace or sequence of Parameter
        The options (see :meth:`~maxent_util.ParameterSpace.to_irace`).

    Returns
    -------
    str
        The file's text.

    Examples
    --------
    >>> print(irace_parameters([Parameter("luby", "categorical", ("-luby", "-no-luby"))]), end="")
    luby "" c ("-luby", "-no-luby")
    """
    return ParameterSpace.of(space).to_irace()


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
    space : ParameterSpace or sequence of Parameter, optional, keyword-only
        Turns a configuration given as a mapping into words (the options whose conditions
        hold, each with its switch).
    capped : {"zero", "cutoff"}, keyword-only
        How a capped run counts (see :func:`~maxent_util.export.cost_function`).
    exit_codes, clock, cwd, shell_ok : keyword-only
        Passed to the runner (a SAT solver exits 10 or 20: ``exit_codes=(10, 20)``).
    worthless : float or None, keyword-only
        Stop a run before the cutoff where the utility falls to this level for good
        (:func:`~maxent_util.racing.worthless_from`; default 0: where ``u`` is 0, as
        ``uniform(60)`` is from 60 s on); such a run is ``"capped"`` and costs what it would
        have cost at the cutoff. None: only the cutoff stops runs.

    Attributes
    ----------
    limit : float
        Where runs are stopped: the cutoff, or where the utility is worth nothing if earlier.
    saved : float
        Seconds of runs saved so far by stopping at :attr:`limit`, at most: for each run
        stopped there, the cutoff minus its measured time (with ``clock="cpu"`` the kernel
        stops a run at whole seconds of CPU, so little is saved below a second).

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
        scenario = Scenario(space.to_configspace(), instances=instances, instance_features=features,
                            n_trials=200, deterministic=True, crash_cost=1.0)
        incumbent = AlgorithmConfigurationFacade(scenario, run).optimize()

    Optuna::

        def objective(trial):
            config = space.suggest(trial)  # prunes a forbidden combination
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
                 space: ParameterSpace | Sequence[Parameter] | None = None, capped: str = "zero",
                 exit_codes: Sequence[int] = (0,), clock: str = "wall", cwd: Any = None,
                 shell_ok: bool = False, worthless: float | None = 0.0) -> None:
        refuse_old_placeholder(command, "command", "CostTarget")
        limit = real(cutoff)
        if not (math.isfinite(limit) and limit > 0):
            raise ExportError(argument_message("cutoff", "CostTarget", "a positive finite number "
                                               "of seconds", short(cutoff)))
        self.runner = ProcessRunner(command, exit_codes=exit_codes, clock=clock, cwd=cwd,
                                    shell_ok=shell_ok)
        self.cost = cost_function(utility, capped=capped)
        self.cutoff = limit
        self.space = ParameterSpace.of(space)
        level = worthless_level(worthless, "CostTarget")
        self.limit = limit if level is None else min(
            limit, worthless_from(_as_utility(utility, "CostTarget"), epsilon=level))
        self.saved = 0.0

    def words(self, config: Any) -> list[str]:
        """A configuration's words on the command line.

        Parameters
        ----------
        config : mapping or sequence of str
            A mapping of option names to values, turned into words through ``space`` (its
            options in order, those absent or whose conditions fail skipped), or the words
            themselves.

        Returns
        -------
        list of str
            The words that replace ``{config}``.

        Raises
        ------
        ExportError
            For an option or a value outside the declared space, or a mapping without a
            space.
        """
        return self.space.words(config, owner="CostTarget")

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
            ``"capped"`` at :attr:`limit`, ``"crash"``) and the cost ``1 - u``.
        """
        runtime = self.runner.run(self.words(config), instance, self.limit)
        status = _cost_core.status_of(runtime, self.limit)
        if status == "capped" and self.limit < self.cutoff:
            # the most the run could have gone on (with clock="cpu" the kernel stops it at a
            # whole second, which may be past the limit)
            self.saved += max(self.cutoff - runtime, 0.0)
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
status 2), stops it at its run limit (CUTOFF, the configurators' word; at STOP, where the
utility is worth nothing, if that is earlier: such a run costs what it would have cost at the
run limit) and ends everything it started (maxent_util's ProcessRunner, the runner of every
route; the runtime is the CLOCK below: "wall" elapsed time, "cpu" the command's CPU time), and
prints the run's cost
1 - u (cost.py beside this file: the library's cost, numpy only) as its only line. With
log = True each run is also appended to runs.jsonl beside it, one JSON object a line.

{provenance}
"""

import json
import os
import sys
import importlib.util

from maxent_util.errors import MaxEntError, argument_message
from maxent_util.processes import ProcessRunner
from maxent_util.space import IRACE_SLACK, ParameterSpace, space_words

COMMAND = {command!r}
CUTOFF = {cutoff!r}
STOP = {stop!r}
EXIT_CODES = {exit_codes!r}
CLOCK = {clock!r}
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
    instance, parameters = argv[3], argv[4:]
    try:  # the parameters come from parameters.txt, the instance is a plain name
        path = os.path.join(HERE, "parameters.txt")
        try:
            with open(path, encoding="utf-8") as file:
                space = ParameterSpace.parse(file.read(), format="irace", name=path)
        except (OSError, UnicodeDecodeError) as error:
            raise MaxEntError(argument_message("parameters.txt", "target-runner", "a readable "
                                               "irace parameter file", path, f"({{error}})"))
        space_words(space, parameters, "target-runner", IRACE_SLACK)
        runner = ProcessRunner(COMMAND, exit_codes=EXIT_CODES, clock=CLOCK)
        runtime = runner.run(parameters, instance, STOP)
    except MaxEntError as error:
        print(f"target-runner: {{error}}", file=sys.stderr)
        return 2
    status = cost.status_of(runtime, STOP)
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
## a budget of runs; each run lasts at most its run limit, {cutoff!r} s
maxExperiments = {budget}
## runs are measured in seconds of the utility's scales; keep one run at a time per core
parallel = 1
deterministic = {deterministic}
'''


def export_irace(folder: Any, command: Any, utility: Any, cutoff: Any, *,
                 space: ParameterSpace | Sequence[Parameter] = (), instances: Sequence[Any] = (),
                 capped: str = "zero", exit_codes: Sequence[int] = (0,), clock: str = "wall",
                 worthless: float | None = 0.0, budget: int = 1000, deterministic: bool = False,
                 log: bool = True, overwrite: bool = False, parents: bool = False) -> Path:
    """Write an irace set-up: target runner, cost module, scenario, parameters, instances.

    The folder gets ``target-runner`` (a Python script run by this interpreter: it calls
    :class:`~maxent_util.processes.ProcessRunner`, no shell, and prints the cost),
    ``cost.py`` (:func:`~maxent_util.export.export_cost` for irace), ``scenario.txt``,
    ``parameters.txt`` (from ``space``, or empty to fill in), ``forbidden.txt`` (for a space
    with forbidden combinations), ``configurations.txt`` (the default configuration, irace's
    first candidate, for a space that states defaults) and ``instances.txt`` (one path a line). Run ``irace`` in
    the folder (:func:`find_irace` finds it).

    Parameters
    ----------
    folder : str or os.PathLike
        Where to write; it must exist (see ``parents``).
    command : str or sequence of str
        The run's command, with ``{config}`` and ``{instance}``:
        ``"minisat {config} {instance}"`` (``{params}`` is refused: one name on every route).
    utility : str, Utility, CaptimeDistribution or sympy.Expr
        As :func:`~maxent_util.export.cost_function` takes it.
    cutoff : float
        Seconds after which a run is stopped.
    space : ParameterSpace or sequence of Parameter, keyword-only
        The options irace configures (:meth:`~maxent_util.ParameterSpace.read` reads a PCS,
        ConfigSpace or irace file), their conditions and forbidden combinations.
    instances : sequence, keyword-only
        The training instances (paths).
    capped : {"zero", "cutoff"}, keyword-only
        How a capped run counts.
    exit_codes : sequence of int, keyword-only
        The statuses of a run that finished (SAT solvers: ``(10, 20)``).
    clock : {"wall", "cpu"}, keyword-only
        What the runner measures and stops at the cutoff (see
        :class:`~maxent_util.processes.ProcessRunner`): elapsed time (default) or the
        command's CPU time, which a busy machine disturbs less (SMAC3's and Optuna's
        ``CostTarget(clock="cpu")`` measure the same).
    worthless : float or None, keyword-only
        As :class:`CostTarget` takes it: the runner stops a run where the utility falls to
        this level for good, if that is before the cutoff (default 0: where it is 0).
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
        For a bad cutoff or budget, an existing file without ``overwrite``, a utility that
        cannot be exported, or a space whose default configuration is forbidden.
    DataError
        For a command the runner refuses (a placeholder a shell would read as code).
    """
    owner = "export_irace"
    refuse_old_placeholder(command, "command", owner)
    target = CostTarget(command, utility, cutoff, space=space, capped=capped, exit_codes=exit_codes,
                        clock=clock, worthless=worthless)
    if isinstance(budget, bool) or not isinstance(budget, int) or budget < 1:
        raise ExportError(argument_message("budget", owner, "a positive integer", short(budget)))
    space = ParameterSpace.of(space)
    names = ["target-runner", "cost.py", "scenario.txt", "parameters.txt", "instances.txt"]
    if space.forbidden:
        names.append("forbidden.txt")
    # irace starts from the solver's defaults when the space states them
    starts = space.to_irace_configurations() if any(p.default is not None for p in space) else None
    if starts is not None:
        names.append("configurations.txt")
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
    with file_group():  # the whole set-up or none of it (Ctrl-C between two files)
        _write_irace(paths, names, utility, target, capped, log, budget, deterministic, space,
                     starts, instance_lines, overwrite, owner)
    return root


def _write_irace(paths: list[Path], names: list[str], utility: Any, target: CostTarget,
                 capped: str, log: bool, budget: int, deterministic: bool, space: ParameterSpace,
                 starts: str | None, instance_lines: list[str], overwrite: bool,
                 owner: str) -> None:
    export_cost(utility, paths[1], tool="irace", capped=capped, overwrite=overwrite)
    provenance = "\n".join(doc_safe(line) for line in (
        f"command: {' '.join(target.runner.words)}", f"run limit: {target.cutoff!r} s",
        f"utility: {utility if isinstance(utility, str) else getattr(utility, 'name', None)}",
        f"capped runs: {capped}", f"clock: {target.runner.clock}"))
    write(paths[0], _RUNNER.format(python=sys.executable, version=__version__, provenance=provenance,
                                   command=list(target.runner.words), cutoff=target.cutoff,
                                   stop=target.limit, exit_codes=tuple(target.runner.exit_codes),
                                   clock=target.runner.clock, log=bool(log)),
          owner, overwrite=overwrite)
    paths[0].chmod(paths[0].stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    scenario = _SCENARIO.format(version=__version__, cutoff=target.cutoff, budget=budget,
                                deterministic=int(bool(deterministic)))
    if space.forbidden:
        write(paths[names.index("forbidden.txt")], space.to_irace_forbidden(), owner, overwrite=overwrite)
        scenario += 'forbiddenFile = "./forbidden.txt"\n'
    if starts is not None:
        write(paths[names.index("configurations.txt")], starts, owner, overwrite=overwrite)
        scenario += 'configurationsFile = "./configurations.txt"\n'
    write(paths[2], scenario, owner, overwrite=overwrite)
    write(paths[3], space.to_irace() if len(space) else "", owner, overwrite=overwrite)
    write(paths[4], "".join(line + "\n" for line in instance_lines), owner, overwrite=overwrite)


#: how to install irace, said whenever it cannot be found
IRACE_INSTALL = ("install it with Debian's package (apt-get install r-cran-irace) or from R "
                 "(install.packages(\"irace\")), or put its bin/irace on PATH")


def find_irace(*, timeout: float = 60.0) -> str:
    """The path of irace's command: on PATH, else in R's library (through ``Rscript``).

    Debian's r-cran-irace and R's ``install.packages("irace")`` put the command in the
    package's ``bin`` folder, not on PATH; R says where
    (``system.file("bin/irace", package = "irace")``).

    Parameters
    ----------
    timeout : float, keyword-only
        Seconds to wait for ``Rscript``.

    Returns
    -------
    str
        The command's path.

    Raises
    ------
    ExportError
        Where neither PATH nor R's library has it; the message says how to install it.
    """
    found = shutil.which("irace")
    if found:
        return found
    rscript = shutil.which("Rscript")
    if rscript:
        try:
            done = subprocess.run([rscript, "-e", 'cat(system.file("bin/irace", package = "irace"))'],
                                  capture_output=True, text=True, timeout=timeout,
                                  stdin=subprocess.DEVNULL)
        except (OSError, subprocess.SubprocessError):
            done = None
        path = done.stdout.strip() if done is not None and done.returncode == 0 else ""
        if path and os.access(path, os.X_OK):
            return path
    where = "R has no irace package" if rscript else "R (Rscript) is not on PATH either"
    raise ExportError(f"irace is not on PATH and {where}; {IRACE_INSTALL}.")
