"""Utilitarian configuration: pick the best configuration by utility, with capped runs.

Given ``n`` configurations of an algorithm (or ``n`` algorithms), a
utility ``u`` and instances drawn at random, find one whose expected
utility :math:`U_i = E[u(T_i)]` is within :math:`\\epsilon` of the best,
with probability at least :math:`1 - \\delta`, without running everything
to completion. Graham, Leyton-Brown and Roughgarden, *Utilitarian Algorithm
Configuration* (NeurIPS 2023), give two procedures; both are here:

- :func:`naive` runs every configuration on the same
  :math:`m = \\lceil 2\\ln(2n/\\delta) / (\\epsilon - u(\\kappa))^2\\rceil`
  instances at one captime :math:`\\kappa` and keeps the best mean;
- :func:`up` (*utilitarian procrastination*) is anytime: it adds one
  instance at a time, keeps a confidence interval per configuration, drops
  configurations that are provably worse, and doubles a configuration's
  captime only when its capped runs, not its sample size, limit what it
  knows.

Runs come from a *runner*: any object with ``run(config, instance,
captime) -> runtime`` (see :class:`Runner`). A run that did not finish
within ``captime`` returns ``captime`` or more and counts as capped; a run
that can never finish (a crash) returns ``inf``. :class:`TableRunner`
replays a recorded runs table; :class:`ProcessRunner` runs a real command
under a time limit, optionally in parallel on a ``concurrent.futures``
executor or a Dask client.

*Conventions shared by both procedures* (those of the paper and of its
authors' code): a run capped at :math:`k` scores :math:`u(k)`, so a
configuration's empirical mean utility at captime :math:`k` estimates
:math:`E[u(\\min(T, k))]`, which is at least :math:`E[u(T)]` and at most
:math:`u(k)\\,P(T \\ge k)` above it. The time a procedure spends is the sum
over the runs it asked for of :math:`\\min(T, k)`; a run that finished is
never repeated (its runtime is known and below any larger captime), a
capped run is repeated from scratch at a larger captime. Instances are used
in a random order fixed by ``seed``; every configuration sees the same
instances in the same order (paired comparisons).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Protocol, Sequence, runtime_checkable

import numpy as np
import pandas as pd

from .errors import DataError, UtilityError, argument_message, short
from .estimate import evaluate_rule, fixed_scorer
from .processes import ProcessRunner
from .ranking import PAR, Solved, parse_rule
from .runs import long_table, real

__all__ = [
    "Runner",
    "TableRunner",
    "ProcessRunner",
    "NaiveResult",
    "naive",
    "naive_curve",
    "up",
    "simulate_up",
    "UNION_CONSTANT",
]

UNION_CONSTANT = (math.pi ** 2 / 6) ** 2
""":math:`(\\sum_{j \\ge 1} 1/j^2)^2 = (\\pi^2/6)^2 \\approx 2.705808`: the union bound of
:func:`up` over the sample size :math:`m` and the number of doublings of a captime."""

# Stop reasons of up(), as its trace's attrs["stopped"] says them.
_STOPS = ("one configuration", "epsilon", "instances", "budget", "interrupted")


# ---------------------------------------------------------------------------
# runners


@runtime_checkable
class Runner(Protocol):
    """What :func:`naive` and :func:`up` need from a source of runs.

    ``run(config, instance, captime)`` runs one configuration on one
    instance with a time limit and returns its runtime in seconds: below
    ``captime`` if it finished, ``captime`` or more if it was stopped there
    (a capped run), ``inf`` if it can never finish (a crash). A runner may
    also offer ``run_many(configs, instances, captimes) -> numpy.ndarray``
    (the same, for many runs at once, possibly in parallel) and
    ``max_captime`` (the largest captime it accepts).
    """

    def run(self, config: Any, instance: Any, captime: float) -> float:
        """The runtime of ``config`` on ``instance`` within ``captime`` seconds.

        Parameters
        ----------
        config, instance : object
            What to run and on what.
        captime : float
            The time limit in seconds.

        Returns
        -------
        float
            Below ``captime`` if the run finished, ``captime`` or more if it
            was stopped there, ``inf`` if it can never finish.
        """
        ...  # pragma: no cover - a protocol


class TableRunner:
    """Replay a recorded runs table as a runner.

    Parameters
    ----------
    table : pandas.DataFrame
        A long runtime table (``algorithm``, ``instance``, ``runtime``,
        ``status``, optional ``cutoff``) with one run of every algorithm on
        every instance, as :func:`maxent_util.ranking.rank` reads it. Its
        algorithms are the configurations.
    duplicates, missing : str, keyword-only
        As in :func:`maxent_util.ranking.rank` (``"mean"`` is refused:
        an average of runtimes is not a run).

    Attributes
    ----------
    configs, instances : list
        The table's algorithms (sorted) and instances (in first-seen order).
    max_captime : float
        The table's cutoff (its smallest): the runs say nothing beyond it.
    runtimes : numpy.ndarray
        configs x instances: the runtime of a solved run, ``inf`` for a
        capped run or a failure (it never finished within the cutoff).

    Raises
    ------
    DataError
        If the table is not a valid long table with one run per cell.

    Notes
    -----
    ``run(config, instance, captime)`` returns the recorded runtime when it
    is below ``captime``, else ``captime`` (a capped run; failures too); a
    ``captime`` above :attr:`max_captime` is refused.

    Examples
    --------
    >>> runs = pd.DataFrame({"algorithm": ["a", "a", "b", "b"], "instance": ["i", "j"] * 2,
    ...                      "runtime": [3.0, 10.0, 1.0, 8.0],
    ...                      "status": ["solved", "capped", "solved", "solved"], "cutoff": 10.0})
    >>> runner = TableRunner(runs)
    >>> runner.run("a", "i", 5.0), runner.run("a", "j", 5.0), runner.run("b", "j", 5.0)
    (3.0, 5.0, 5.0)
    >>> runner.run("b", "j", 10.0)
    8.0
    """

    def __init__(self, table: pd.DataFrame, *, duplicates: str = "raise",
                 missing: str = "raise") -> None:
        owner = "TableRunner"
        if duplicates == "mean":
            raise DataError(argument_message(
                "duplicates", owner, "'raise' or 'first' (an average of runtimes is not a run)",
                duplicates))
        runs = long_table(table, owner, duplicates, missing)
        grid = np.full(runs.names.size * runs.instances.size, np.inf)
        grid[runs.cells[runs.solved]] = runs.runtimes[runs.solved]
        self.runtimes = grid.reshape(runs.names.size, runs.instances.size)
        self.configs = list(runs.names)
        self.instances = list(runs.instances)
        if runs.cutoffs is not None:
            self.max_captime = float(runs.cutoffs.min())
        elif (~runs.solved).any():
            self.max_captime = float(runs.runtimes[~runs.solved].min())
        else:
            self.max_captime = math.inf
        self._config_index = {name: i for i, name in enumerate(self.configs)}
        self._instance_index = {name: j for j, name in enumerate(self.instances)}

    def _index(self, values: Sequence[Any], lookup: dict[Any, int], arg: str) -> np.ndarray:
        try:
            return np.fromiter((lookup[value] for value in values), dtype=np.intp,
                               count=len(values))
        except (KeyError, TypeError):
            bad = next(value for value in values if not _known(lookup, value))
            what = "configurations (algorithms)" if arg == "config" else "instances"
            raise DataError(argument_message(
                arg, "TableRunner.run", f"one of the table's {what}", short(bad))) from None

    def run_many(self, configs: Sequence[Any], instances: Sequence[Any],
                 captimes: Any) -> np.ndarray:
        """Replay many runs at once.

        Parameters
        ----------
        configs, instances : sequence
            The table's algorithms and instances, one pair per run.
        captimes : float or array_like of float
            The time limit of each run (positive, at most :attr:`max_captime`).

        Returns
        -------
        numpy.ndarray
            ``min(recorded runtime, captime)`` per run (capped runs and
            failures give ``captime``).

        Raises
        ------
        DataError
            For an unknown configuration or instance, or a captime that is
            not positive or is above the table's cutoff.
        """
        rows = self._index(configs, self._config_index, "config")
        columns = self._index(instances, self._instance_index, "instance")
        limits = np.broadcast_to(np.asarray(captimes, dtype=float), rows.shape)
        _check_captimes(limits, self.max_captime, "TableRunner.run")
        return np.minimum(self.runtimes[rows, columns], limits)

    def run(self, config: Any, instance: Any, captime: float) -> float:
        """Replay one run: its recorded runtime, or ``captime`` if that is shorter.

        Parameters
        ----------
        config, instance : object
            An algorithm and an instance of the table.
        captime : float
            The time limit (positive, at most :attr:`max_captime`).

        Returns
        -------
        float
            ``min(recorded runtime, captime)``.

        Raises
        ------
        DataError
            As :meth:`run_many`.
        """
        return float(self.run_many([config], [instance], real(captime))[0])

    def __repr__(self) -> str:
        return (f"TableRunner({len(self.configs)} configurations, {len(self.instances)} "
                f"instances, cutoff {self.max_captime:g} s)")


def _known(lookup: dict[Any, int], value: Any) -> bool:
    try:
        return value in lookup
    except TypeError:
        return False


def _check_captimes(limits: np.ndarray, largest: float, owner: str) -> None:
    bad = np.flatnonzero(~((limits > 0) & (limits <= largest)))
    if bad.size:
        value = float(limits[bad[0]])
        raise DataError(argument_message(
            "captime", owner, f"positive and at most the runs' cutoff ({largest:g} s)", value,
            "The recorded runs say nothing beyond their cutoff."))


def _run_batch(runner: Any, configs: list[Any], instances: list[Any],
               captimes: np.ndarray, owner: str) -> np.ndarray:
    """The runner's runtimes of a batch of runs, checked: numbers, at least 0."""
    if not configs:
        return np.zeros(0)
    many = getattr(runner, "run_many", None)
    if callable(many):
        values = np.asarray(many(configs, instances, captimes), dtype=float)
    else:
        values = np.array([runner.run(c, i, float(k))
                           for c, i, k in zip(configs, instances, captimes)], dtype=float)
    if values.shape != (len(configs),) or not (values >= 0).all():  # NaN fails too
        bad = values.ravel()[np.flatnonzero(~(values.ravel() >= 0))[:1]]
        raise DataError(argument_message(
            "runner", owner, "a runtime of at least 0 seconds per run",
            float(bad[0]) if bad.size else f"shape {values.shape}"))
    return values


# ---------------------------------------------------------------------------
# shared checks


def _utility(utility: Any, owner: str) -> Callable[[Any], Any]:
    """A numeric scorer of what the library accepts as a utility (a spec is read safely)."""
    if isinstance(utility, str):
        utility = parse_rule(utility)
    if isinstance(utility, (PAR, Solved)):
        raise UtilityError(argument_message(
            "utility", owner, "a utility (a preset such as 'pareto(60, 1)', an expression in t, "
            "a Utility)", utility.name, "Racing needs a utility with values in [0, 1]."))
    return fixed_scorer(utility, owner)


def _utility_at(u: Callable[[Any], Any], times: np.ndarray, owner: str) -> np.ndarray:
    values = evaluate_rule(u, np.asarray(times, dtype=float), owner)
    bad = np.flatnonzero(~((values >= -1e-12) & (values <= 1 + 1e-12)))
    if bad.size:
        raise UtilityError(argument_message(
            "utility", owner, "a number between 0 and 1 at every runtime",
            float(values[bad[0]]), f"(at t = {float(np.ravel(times)[bad[0]])!r})"))
    return np.clip(values, 0.0, 1.0)


def _probability(value: Any, arg: str, owner: str) -> float:
    number = real(value)
    if not 0 < number < 1:
        raise DataError(argument_message(arg, owner, "a number in (0, 1)", short(value)))
    return number


def _positive(value: Any, arg: str, owner: str, *, infinite: bool = False) -> float:
    number = real(value)
    if not (number > 0 and (infinite or math.isfinite(number))):
        what = "a positive number" if infinite else "a positive finite number"
        raise DataError(argument_message(arg, owner, what, short(value)))
    return number


def _candidates(runner: Any, configs: Any, instances: Any, owner: str
                ) -> tuple[list[Any], list[Any]]:
    if not callable(getattr(runner, "run", None)):
        raise DataError(argument_message("runner", owner, "a runner (with run(config, instance, "
                                         "captime))", type(runner).__name__))
    configs = getattr(runner, "configs", None) if configs is None else configs
    instances = getattr(runner, "instances", None) if instances is None else instances
    chosen = []
    for arg, values in (("configs", configs), ("instances", instances)):
        if values is None or isinstance(values, (str, bytes)):
            raise DataError(argument_message(arg, owner, "a sequence (or None with a "
                                             "TableRunner)", short(values)))
        values = list(values)
        if not values:
            raise DataError(argument_message(arg, owner, "non-empty", values))
        chosen.append(values)
    return chosen[0], chosen[1]


def _order(count: int, seed: Any, owner: str) -> np.ndarray:
    try:
        rng = np.random.default_rng(seed)
    except (TypeError, ValueError):
        raise DataError(argument_message("seed", owner, "None, an integer of at least 0 or a "
                                         "numpy Generator", short(seed))) from None
    return rng.permutation(count)


# ---------------------------------------------------------------------------
# naive


@dataclass(frozen=True)
class NaiveResult:
    """What :func:`naive` found.

    Attributes
    ----------
    configuration : object
        The configuration with the highest mean utility on the ``m`` instances.
    m : int
        Instances each configuration ran on.
    total_time : float
        Seconds of runs spent (each run counts ``min(runtime, captime)``).
    captime : float
        The captime of every run.
    epsilon, delta : float
        The guarantee: with probability at least ``1 - delta`` the
        configuration's expected utility is within ``epsilon`` of the best.
    means : pandas.Series
        Mean utility per configuration (capped runs count ``u(captime)``).
    """

    configuration: Any
    m: int
    total_time: float
    captime: float
    epsilon: float
    delta: float
    means: pd.Series


def _naive_size(n: int, epsilon: float, delta: float, u_captime: float) -> int:
    return math.ceil(2 * math.log(2 * n / delta) / (epsilon - u_captime) ** 2)


def naive(runner: Any, configs: Sequence[Any] | None, instances: Sequence[Any] | None,
          utility: Any, epsilon: float, delta: float, captime: float, *,
          seed: Any = None) -> NaiveResult:
    """Run every configuration on the same instances at one captime; keep the best mean.

    Parameters
    ----------
    runner : Runner
        Where runs come from (:class:`TableRunner`, :class:`ProcessRunner`, ...).
    configs, instances : sequence or None
        The configurations to choose from and the instances to draw from
        (None: the runner's own, e.g. a :class:`TableRunner`'s).
    utility : Utility, sympy.Expr or str
        A utility with values in ``[0, 1]``: a ``Utility``, an expression in
        ``t``, or a spec as :func:`maxent_util.ranking.parse_rule` reads it
        (``"pareto(60, 1)"``).
    epsilon : float
        The accuracy wanted, above ``u(captime)``.
    delta : float
        The failure probability, in ``(0, 1)``.
    captime : float
        The captime of every run (positive).
    seed : None, int or numpy.random.Generator, keyword-only
        Fixes the random order of the instances.

    Returns
    -------
    NaiveResult
        The configuration with the highest mean utility over
        :math:`m = \\lceil 2\\ln(2n/\\delta) / (\\epsilon - u(\\kappa))^2 \\rceil`
        instances, ``m``, the time spent, and every configuration's mean.

    Raises
    ------
    DataError
        If ``u(captime) >= epsilon``, ``m`` is more than the instances,
        ``delta`` is not in ``(0, 1)``, or the runner refuses a run.
    UtilityError
        If the utility has free parameters or leaves ``[0, 1]``.

    Notes
    -----
    With :math:`\\hat U_i` the mean of :math:`u(\\min(T, \\kappa))` over the
    :math:`m` runs, Hoeffding's inequality and a union bound over the
    :math:`n` configurations give :math:`|\\hat U_i - E[u(\\min(T_i,
    \\kappa))]| \\le (\\epsilon - u(\\kappa))/2` for all :math:`i` with
    probability at least :math:`1 - \\delta`; capping moves a mean by at most
    :math:`u(\\kappa)`, so the configuration returned is
    :math:`\\epsilon`-optimal (the Naive procedure of Graham, Leyton-Brown
    and Roughgarden 2023; the same :math:`m` as their published code).
    Instances are drawn without replacement; Hoeffding's bound holds for
    that too (Hoeffding 1963, on sampling from a finite population).

    Examples
    --------
    >>> table = pd.DataFrame({"algorithm": ["fast"] * 40 + ["slow"] * 40,
    ...                       "instance": [f"i{j}" for j in range(40)] * 2,
    ...                       "runtime": [1.0] * 40 + [30.0] * 40, "status": "solved",
    ...                       "cutoff": 100.0})
    >>> found = naive(TableRunner(table), None, None, "exp(-t/10)", 0.9, 0.1, 60.0, seed=0)
    >>> found.configuration, found.m, found.total_time
    ('fast', 10, 310.0)
    """
    owner = "naive"
    configs, instances = _candidates(runner, configs, instances, owner)
    u = _utility(utility, owner)
    epsilon = real(epsilon)
    delta = _probability(delta, "delta", owner)
    captime = _positive(captime, "captime", owner)
    u_captime = float(_utility_at(u, np.array([captime]), owner)[0])
    if not (math.isfinite(epsilon) and u_captime < epsilon):
        raise DataError(argument_message(
            "epsilon", owner, f"above u(captime) = {u_captime:.6g} (the most a capped run can "
            "move a mean)", short(epsilon), "Give a larger captime or a larger epsilon."))
    n = len(configs)
    m = _naive_size(n, epsilon, delta, u_captime)
    if m > len(instances):
        raise DataError(argument_message(
            "instances", owner, f"at least m = {m} (2 ln(2n/delta) / (epsilon - u(captime))^2 "
            f"with n = {n})", f"{len(instances)} instances",
            "Give a larger epsilon, a larger captime or more instances."))
    order = _order(len(instances), seed, owner)[:m]
    chosen = [instances[j] for j in order]
    runtimes = _run_batch(runner, [c for c in configs for _ in range(m)], chosen * n,
                          np.full(n * m, captime), owner).reshape(n, m)
    stopped = np.minimum(runtimes, captime)
    means = _utility_at(u, stopped, owner).mean(axis=1)
    best = int(np.argmax(means))
    return NaiveResult(configuration=configs[best], m=m, total_time=float(stopped.sum()),
                       captime=captime, epsilon=epsilon, delta=delta,
                       means=pd.Series(means, index=pd.Index(configs, name="configuration"),
                                       name="mean utility"))


def naive_curve(runner: Any, configs: Sequence[Any] | None, instances: Sequence[Any] | None,
                utility: Any, delta: float, captime: float, epsilons: Sequence[float], *,
                seed: Any = None) -> pd.DataFrame:
    """:func:`naive` at several accuracies: what each guarantee costs.

    Parameters
    ----------
    runner, configs, instances, utility, delta, captime, seed
        As in :func:`naive`.
    epsilons : sequence of float
        The accuracies; those at or below ``u(captime)``, or needing more
        instances than there are, are left out.

    Returns
    -------
    pandas.DataFrame
        One row per accuracy reached: ``epsilon``, ``m``, ``total_time``,
        ``configuration``, ``survivors`` (Naive drops nothing: all ``n``).

    Raises
    ------
    DataError, UtilityError
        As :func:`naive`, for anything but an unreachable accuracy.

    Examples
    --------
    >>> table = pd.DataFrame({"algorithm": ["a"] * 50 + ["b"] * 50,
    ...                       "instance": [f"i{j}" for j in range(50)] * 2,
    ...                       "runtime": 1.0, "status": "solved", "cutoff": 10.0})
    >>> naive_curve(TableRunner(table), None, None, "exp(-t)", 0.1, 10.0, [0.5, 0.9])["m"].tolist()
    [30, 10]
    """
    owner = "naive_curve"
    u = _utility(utility, owner)
    configs, instances = _candidates(runner, configs, instances, owner)
    limit = _positive(captime, "captime", owner)
    u_captime = float(_utility_at(u, np.array([limit]), owner)[0])
    delta = _probability(delta, "delta", owner)
    rows = []
    for epsilon in epsilons:
        value = real(epsilon)
        if not (math.isfinite(value) and value > u_captime) or \
                _naive_size(len(configs), value, delta, u_captime) > len(instances):
            continue
        found = naive(runner, configs, instances, u, value, delta, limit, seed=seed)
        rows.append({"epsilon": value, "m": found.m, "total_time": found.total_time,
                     "configuration": found.configuration, "survivors": len(configs)})
    return pd.DataFrame(rows, columns=["epsilon", "m", "total_time", "configuration",
                                       "survivors"])


# ---------------------------------------------------------------------------
# utilitarian procrastination


def up(runner: Any, configs: Sequence[Any] | None, instances: Sequence[Any] | None,
       utility: Any, delta: float, *, k0: float = 1.0, epsilon_min: float = 0.0,
       max_captime: float | None = None, budget: float | None = None, seed: Any = None,
       progress: Callable[[dict[str, Any]], None] | None = None) -> pd.DataFrame:
    """Utilitarian procrastination: an anytime race with a guarantee.

    Parameters
    ----------
    runner : Runner
        Where runs come from (:class:`TableRunner`, :class:`ProcessRunner`, ...).
    configs, instances : sequence or None
        The configurations and the instances to draw from (None: the
        runner's own, e.g. a :class:`TableRunner`'s).
    utility : Utility, sympy.Expr or str
        As in :func:`naive`.
    delta : float
        The failure probability, in ``(0, 1)``.
    k0 : float, keyword-only
        The first captime of every configuration, in seconds (default 1).
    epsilon_min : float, keyword-only
        Stop once :math:`\\epsilon^*` is at most this (default 0: run until
        another reason to stop).
    max_captime : float, optional, keyword-only
        The largest captime (default: the runner's ``max_captime``, e.g. a
        table's cutoff, else none): a doubling stops there.
    budget : float, optional, keyword-only
        Stop once this many seconds of runs are spent (checked after each
        round).
    seed : None, int or numpy.random.Generator, keyword-only
        Fixes the random order of the instances.
    progress : callable, optional, keyword-only
        Called after every round with that round's row of the trace (a dict).

    Returns
    -------
    pandas.DataFrame
        The trace, one row per round ``m`` (instances used so far):
        ``incumbent`` (the surviving configuration with the largest lower
        bound), ``epsilon`` (:math:`\\epsilon^*`: the largest upper bound
        minus the incumbent's lower bound), ``lcb`` and ``ucb`` (those two
        bounds), ``survivors``, ``captime_min`` and ``captime_max`` (over the
        survivors), ``total_time`` (seconds of runs so far). ``attrs`` holds
        ``incumbent``, ``epsilon``, ``stopped`` (one of ``"one
        configuration"``, ``"epsilon"``, ``"instances"``, ``"budget"``,
        ``"interrupted"``), ``delta``, ``k0`` and ``configurations``: a frame
        per configuration of its final ``mean_utility``, ``completed`` (the
        fraction of finished runs), ``captime``, ``lcb``, ``ucb``, whether it
        is ``alive`` and the round it was ``dropped`` at.

    Raises
    ------
    DataError
        If ``delta`` is not in ``(0, 1)``, ``k0`` is not positive, ``k0`` is
        above ``max_captime``, or the runner refuses a run.
    UtilityError
        If the utility has free parameters or leaves ``[0, 1]``.

    Notes
    -----
    In round :math:`m` every surviving configuration :math:`i` has run on
    the first :math:`m` instances at its captime :math:`k_i = 2^{j_i} k_0`.
    With :math:`\\hat U_i` the mean of :math:`u(\\min(T, k_i))` over them
    (a capped run scores :math:`u(k_i)`) and :math:`\\hat F_i` the fraction
    that finished,

    .. math::

        \\alpha_i = \\sqrt{\\frac{\\ln\\!\\big(4 C n m^2 (j_i + 1)^2 / \\delta\\big)}{2m}},
        \\qquad C = (\\pi^2/6)^2 \\approx 2.705808,

        UCB_i \\leftarrow \\min\\big(UCB_i,\\ \\hat U_i + (1 - u(k_i))\\,\\alpha_i\\big),
        \\qquad
        LCB_i \\leftarrow \\max\\big(LCB_i,\\ \\hat U_i - \\alpha_i - u(k_i)(1 - \\hat F_i)\\big),

    starting from :math:`UCB_i = 1`, :math:`LCB_i = 0`. The upper bound is
    Hoeffding's on :math:`u(\\min(T, k_i)) \\in [u(k_i), 1]`, which is at
    least :math:`u(T)`; the lower one is Hoeffding's on
    :math:`u(T)\\,[T < k_i] \\in [0, 1]`, which is at most :math:`u(T)`. The
    sum of the failure probabilities over configurations, both sides,
    every :math:`m \\ge 1` and every :math:`j \\ge 0` is at most
    :math:`\\delta/2`, so with probability at least :math:`1 - \\delta`
    every bound ever computed holds at once. Configurations whose upper
    bound is below the incumbent's lower bound are dropped; then the
    incumbent's expected utility is within :math:`\\epsilon^*` of the
    best, in every round (anytime). A captime doubles after a round where
    :math:`2\\alpha_i \\le u(k_i)(1 - \\hat F_i)`: the capped runs, not the
    sample, limit the lower bound; the configuration's capped runs among its
    :math:`m` instances are then run again at the new captime. Here
    :math:`j_i` counts the doublings, which is :math:`\\log_2(k_i/k_0)`
    except where the last doubling is cut at ``max_captime``.

    This is the procedure UP of Graham, Leyton-Brown and Roughgarden,
    *Utilitarian Algorithm Configuration*, NeurIPS 2023 (the paper's
    correctness theorem for UP says that its incumbent is
    :math:`\\epsilon^*`-optimal with probability at least :math:`1 -
    \\delta`, at every time; the statement of the theorem itself could not
    be read here). The bounds, the doubling condition and :math:`C` are
    those of the authors' published code (``github.com/drgrhm/utilitarian-ac``,
    ``up.py``), rederived above, with one difference in the radius: theirs
    has :math:`(\\log_2 k_i + 1)^2` where ours has :math:`(j_i + 1)^2`. As
    :math:`\\log_2 k_i = j_i + \\log_2 k_0`, the two agree when
    :math:`k_0 = 1` and only then. For :math:`k_0 > 1` their intervals are
    wider than the union bound needs; for :math:`k_0 < 1` some are narrower
    than it allows (:math:`\\sum_{j \\ge 0} 1/(j + 1 + \\log_2 k_0)^2` exceeds
    :math:`\\pi^2/6`), and at :math:`k_0 = 2^{-c}`, :math:`c = 1, 2, \\ldots`,
    one of their radii takes the logarithm of 0. Counting doublings is what
    the union bound sums over, so ours holds at every :math:`k_0`.
    :math:`C` is taken exactly; the code's 2.705808 is the same constant
    rounded (down by :math:`10^{-7}`).

    Examples
    --------
    >>> table = pd.DataFrame({"algorithm": ["fast"] * 200 + ["slow"] * 200,
    ...                       "instance": [f"i{j}" for j in range(200)] * 2,
    ...                       "runtime": [1.0] * 200 + [80.0] * 200, "status": "solved",
    ...                       "cutoff": 100.0})
    >>> trace = up(TableRunner(table), None, None, "exp(-t/10)", 0.05, k0=1, seed=0)
    >>> trace.attrs["incumbent"], trace.attrs["stopped"], int(trace["m"].iloc[-1])
    ('fast', 'one configuration', 100)
    >>> round(trace.attrs["epsilon"], 3), trace.attrs["configurations"]["dropped"].tolist()
    (0.332, [0, 100])
    """
    owner = "up"
    configs, instances = _candidates(runner, configs, instances, owner)
    u = _utility(utility, owner)
    delta = _probability(delta, "delta", owner)
    k0 = _positive(k0, "k0", owner)
    epsilon_min = real(epsilon_min)
    if not (epsilon_min >= 0):
        raise DataError(argument_message("epsilon_min", owner, "at least 0", short(epsilon_min)))
    largest = getattr(runner, "max_captime", math.inf) if max_captime is None else max_captime
    largest = _positive(largest, "max_captime", owner, infinite=True)
    if k0 > largest:
        raise DataError(argument_message("k0", owner, f"at most max_captime ({largest:g} s)",
                                         k0))
    if budget is not None:
        budget = _positive(budget, "budget", owner, infinite=True)
    if progress is not None and not callable(progress):
        raise DataError(argument_message("progress", owner, "a function of one row (a dict)",
                                         short(progress)))
    n, size = len(configs), len(instances)
    order = _order(size, seed, owner)
    drawn = [instances[j] for j in order]

    def fetch(rep: np.ndarray, config: np.ndarray, instance: np.ndarray,
              limits: np.ndarray) -> np.ndarray:
        return _run_batch(runner, [configs[i] for i in config], [drawn[j] for j in instance],
                          limits, owner)

    def report(row: tuple[Any, ...]) -> None:
        if progress is not None:
            progress(dict(zip(_COLUMNS, (row[0], configs[row[1]], *row[2:]))))

    race = _Race(fetch, 1, n, size, u, delta, k0, largest, epsilon_min, budget, owner)
    race.run(report)
    rows = [(m, configs[best], *rest) for _, m, best, *rest in race.rows]
    trace = pd.DataFrame(rows, columns=list(_COLUMNS))
    last = dict(zip(_COLUMNS, rows[-1])) if rows else {"incumbent": None, "epsilon": 1.0}
    trace.attrs.update(incumbent=last["incumbent"], epsilon=last["epsilon"],
                       stopped=race.stopped[0], delta=delta, k0=k0,
                       configurations=race.configurations(configs).loc[0])
    return trace


def simulate_up(runtimes: Any, utility: Any, delta: float, *, configs: Sequence[Any] | None = None,
                k0: float = 1.0, epsilon_min: float = 0.0, max_captime: float = math.inf,
                budget: float | None = None) -> pd.DataFrame:
    """:func:`up` on many simulated races at once: how often does its guarantee fail?

    Parameters
    ----------
    runtimes : array_like of float, shape (repetitions, n, instances)
        The true runtimes of each repetition's ``n`` configurations on its
        instances (``inf``: never finishes), e.g. drawn from known laws;
        the instances are used in the order given, so draw them at random.
    utility : Utility, sympy.Expr or str
        As in :func:`up`.
    delta : float
        The failure probability, in ``(0, 1)``.
    configs : sequence, optional, keyword-only
        Names of the ``n`` configurations (default ``0, ..., n - 1``).
    k0, epsilon_min, max_captime, budget : float, keyword-only
        As in :func:`up` (``budget`` per repetition).

    Returns
    -------
    pandas.DataFrame
        The traces of all repetitions, one row per repetition and round: a
        column ``repetition`` and then the columns of :func:`up`'s trace.
        ``attrs`` holds ``stopped`` (a Series per repetition), ``delta``,
        ``k0`` and ``configurations`` (:func:`up`'s, indexed by repetition
        and configuration).

    Raises
    ------
    DataError
        If ``runtimes`` is not a 3-d array of runtimes of at least 0 (NaN
        refused), or an option is invalid as in :func:`up`.
    UtilityError
        As :func:`up`.

    Notes
    -----
    Each repetition runs exactly the rounds :func:`up` would run with a
    runner that replays its runtimes in the given order (the same code
    does both); the repetitions only share the evaluations of ``u``, which
    makes hundreds of them take about as long as a few.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> runtimes = np.stack([rng.exponential([[0.1], [10.0]], size=(2, 50)) for _ in range(3)])
    >>> traces = simulate_up(runtimes, "exp(-t)", 0.1, configs=["quick", "slow"], k0=0.5)
    >>> traces.groupby("repetition")["incumbent"].last().tolist()
    ['quick', 'quick', 'quick']
    """
    owner = "simulate_up"
    try:
        values = np.asarray(runtimes, dtype=float)
    except (TypeError, ValueError):
        values = np.zeros(0)
    if values.ndim != 3 or 0 in values.shape or not (values >= 0).all():
        raise DataError(argument_message(
            "runtimes", owner, "a 3-d array (repetitions, configurations, instances) of "
            "runtimes of at least 0 (inf: never finishes)",
            f"shape {values.shape}" if values.ndim != 3 or 0 in values.shape
            else "a value below 0 or NaN"))
    races, n, size = values.shape
    names = list(range(n)) if configs is None else list(configs)
    if len(names) != n:
        raise DataError(argument_message("configs", owner, f"{n} names (one per configuration)",
                                         short(configs)))
    u = _utility(utility, owner)
    delta = _probability(delta, "delta", owner)
    k0 = _positive(k0, "k0", owner)
    largest = _positive(max_captime, "max_captime", owner, infinite=True)
    epsilon_min = real(epsilon_min)
    if not (epsilon_min >= 0) or k0 > largest:
        arg, value = ("epsilon_min", epsilon_min) if not epsilon_min >= 0 else ("k0", k0)
        raise DataError(argument_message(arg, owner, "at least 0" if arg == "epsilon_min"
                                         else f"at most max_captime ({largest:g})", value))
    if budget is not None:
        budget = _positive(budget, "budget", owner, infinite=True)

    def fetch(rep: np.ndarray, config: np.ndarray, instance: np.ndarray,
              limits: np.ndarray) -> np.ndarray:
        return np.minimum(values[rep, config, instance], limits)

    race = _Race(fetch, races, n, size, u, delta, k0, largest, epsilon_min, budget, owner)
    race.run()
    frame = pd.DataFrame(dict(zip(["repetition", *_COLUMNS], race.columns())))
    frame["incumbent"] = np.asarray(names, dtype=object)[frame["incumbent"].to_numpy(int)]
    frame = frame.sort_values(["repetition", "m"], kind="stable", ignore_index=True)
    frame.attrs.update(stopped=pd.Series(race.stopped, name="stopped",
                                         index=pd.RangeIndex(races, name="repetition")),
                       delta=delta, k0=k0, configurations=race.configurations(names))
    return frame


class _Race:
    """The rounds of UP, for ``R`` races at once (one for :func:`up`, many for
    :func:`simulate_up`): every array has the races first, then the ``n`` configurations.

    ``fetch(race, config, instance, captimes)`` gives the runtimes of runs named by index
    arrays (instances by their position in the order of use).
    """

    def __init__(self, fetch: Callable[..., np.ndarray], races: int, n: int, size: int,
                 u: Callable[[Any], Any], delta: float, k0: float, largest: float,
                 epsilon_min: float, budget: float | None, owner: str) -> None:
        self.fetch, self.u, self.owner = fetch, u, owner
        self.races, self.n, self.size = races, n, size
        self.largest, self.epsilon_min, self.budget = largest, epsilon_min, budget
        self.observed = np.zeros((races, n, size))   # u(min(T, k)) of each run so far
        self.finished = np.zeros((races, n, size), dtype=bool)
        self.sum_u, self.sum_f = np.zeros((races, n)), np.zeros((races, n))
        self.captime = np.full((races, n), k0)
        self.doublings = np.zeros((races, n))
        self.rerun = np.zeros((races, n), dtype=bool)
        self.alive = np.ones((races, n), dtype=bool)
        self.dropped = np.zeros((races, n), dtype=np.int64)
        self.used = np.zeros(races, dtype=np.int64)
        self.ucb, self.lcb = np.ones((races, n)), np.zeros((races, n))
        self.total = np.zeros(races)
        self.running = np.ones(races, dtype=bool)
        self.stopped = np.full(races, "instances", dtype=object)
        # per round, one array per column (race, m, best, epsilon, lcb, ucb, ...) over the
        # races still running: 500 races of 400 rounds are 200,000 rows
        self._blocks: list[tuple[np.ndarray, ...]] = []
        self.log_constant = math.log(4 * UNION_CONSTANT * n / delta)

    def run(self, report: Callable[[tuple[Any, ...]], None] | None = None) -> None:
        try:
            for m in range(1, self.size + 1):
                self._round(m, report)
                if not self.running.any():
                    break
        except KeyboardInterrupt:
            self.stopped[self.running] = "interrupted"
            self.running[:] = False

    def _round(self, m: int, report: Callable[[tuple[Any, ...]], None] | None) -> None:
        n, races = self.n, np.arange(self.races)
        active = self.alive & self.running[:, None]
        # the new instance for every survivor, and the capped runs of those whose captime
        # has just doubled
        who_r, who_i = np.nonzero(active)
        who_j = np.full(who_r.size, m - 1)
        if self.rerun.any():
            again_r, again_i, again_j = np.nonzero(~self.finished[:, :, :m - 1]
                                                   & self.rerun[:, :, None])
            who_r, who_i, who_j = (np.concatenate([who_r, again_r]),
                                   np.concatenate([who_i, again_i]),
                                   np.concatenate([who_j, again_j]))
            self.rerun[:] = False
        limits = self.captime[who_r, who_i]
        times = self.fetch(who_r, who_i, who_j, limits)
        stopped_at = np.minimum(times, limits)
        self.total += np.bincount(who_r, weights=stopped_at, minlength=self.races)
        # one evaluation of u per round: the runs, then the survivors' captimes
        values = _utility_at(self.u, np.concatenate([stopped_at, self.captime[active]]),
                             self.owner)
        runs = who_r.size
        done = times < limits
        cell = who_r * n + who_i
        np.add.at(self.sum_u.reshape(-1), cell, values[:runs] - self.observed[who_r, who_i, who_j])
        np.add.at(self.sum_f.reshape(-1), cell,
                  done.astype(float) - self.finished[who_r, who_i, who_j])
        self.observed[who_r, who_i, who_j] = values[:runs]
        self.finished[who_r, who_i, who_j] = done
        self.used[self.running] = m

        at_captime = np.zeros((self.races, n))
        at_captime[active] = values[runs:]
        mean = self.sum_u / m
        slack = at_captime * (1 - self.sum_f / m)
        alpha = np.sqrt((self.log_constant + 2 * math.log(m) + 2 * np.log1p(self.doublings))
                        / (2 * m))
        self.ucb = np.where(active, np.minimum(self.ucb, mean + (1 - at_captime) * alpha),
                            self.ucb)
        self.lcb = np.where(active, np.maximum(self.lcb, mean - alpha - slack), self.lcb)
        best = np.argmax(np.where(active, self.lcb, -np.inf), axis=1)
        best_lcb = self.lcb[races, best]
        # the incumbent stays even if its own bounds cross (only on a failure event)
        losing = active & (self.ucb < best_lcb[:, None]) & (np.arange(n) != best[:, None])
        self.alive &= ~losing
        self.dropped[losing] = m
        survivors = self.alive & self.running[:, None]
        top = np.where(survivors, self.ucb, -np.inf).max(axis=1)
        epsilon = top - best_lcb
        count = survivors.sum(axis=1)
        low = np.where(survivors, self.captime, np.inf).min(axis=1)
        high = np.where(survivors, self.captime, -np.inf).max(axis=1)
        running = np.flatnonzero(self.running)
        block = (running, np.full(running.size, m), best[running], epsilon[running],
                 best_lcb[running], top[running], count[running], low[running], high[running],
                 self.total[running])
        self._blocks.append(block)
        if report is not None:
            for row in zip(*(column.tolist() for column in block[1:])):
                report(row)
        # double where the capped runs, not the sample, limit the lower bound
        grow = active & self.alive & (2 * alpha <= slack) & (self.captime < self.largest)
        if grow.any():
            self.captime[grow] = np.minimum(2 * self.captime[grow], self.largest)
            self.doublings[grow] += 1
            self.rerun[grow] = True
        for reason, ends in (("one configuration", count == 1),
                             ("epsilon", epsilon <= self.epsilon_min),
                             ("budget", self.total >= (math.inf if self.budget is None
                                                       else self.budget))):
            ends &= self.running
            self.stopped[ends] = reason
            self.running &= ~ends

    def columns(self) -> list[np.ndarray]:
        """The trace, one array per column (race, m, best, epsilon, lcb, ucb, survivors,
        captime_min, captime_max, total_time), rows in the order the rounds ran."""
        if not self._blocks:
            return [np.zeros(0, dtype=np.int64)] * 3 + [np.zeros(0)] * 3 + \
                [np.zeros(0, dtype=np.int64)] + [np.zeros(0)] * 3
        return [np.concatenate(column) for column in zip(*self._blocks)]

    @property
    def rows(self) -> list[tuple[Any, ...]]:
        """The trace as tuples of Python numbers, one per race and round."""
        return list(zip(*(column.tolist() for column in self.columns())))

    def configurations(self, configs: Sequence[Any]) -> pd.DataFrame:
        """Per race and configuration: the final means (over the instances it ran on),
        captime, bounds, and whether and when it was dropped."""
        used = np.where(self.alive, self.used[:, None], self.dropped).astype(float)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean_utility, completed = self.sum_u / used, self.sum_f / used
        index = pd.MultiIndex.from_product([range(self.races), list(configs)],
                                           names=["repetition", "configuration"])
        return pd.DataFrame(
            {"mean_utility": mean_utility.ravel(), "completed": completed.ravel(),
             "captime": self.captime.ravel(), "lcb": self.lcb.ravel(), "ucb": self.ucb.ravel(),
             "alive": self.alive.ravel(), "dropped": np.where(self.alive, 0, self.dropped).ravel()},
            index=index)


_COLUMNS = ("m", "incumbent", "epsilon", "lcb", "ucb", "survivors", "captime_min",
            "captime_max", "total_time")
