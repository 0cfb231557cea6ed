"""Naive: every configuration on the same instances at one captime (:func:`naive`, and what each
accuracy costs, :func:`naive_curve`)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np
import pandas as pd

from ..errors import DataError, argument_message, short
from .._numbers import real
from .checks import (candidates, instance_order, positive, probability, scorer_of, utility_at,
                     worthless_level)
from .worthless import worthless_from
from .runners import TableRunner, run_batch

__all__ = ["NaiveResult", "naive", "naive_curve"]


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
    worthless_from : float
        Where ``u`` is worth nothing (``inf`` if nowhere): the captime is at most that.
    saved : float
        At most this many seconds of runs were saved by stopping runs there rather than at
        the captime asked for.
    """

    configuration: Any
    m: int
    total_time: float
    captime: float
    epsilon: float
    delta: float
    means: pd.Series
    worthless_from: float = math.inf
    saved: float = 0.0


def _naive_size(n: int, epsilon: float, delta: float, u_captime: float) -> int:
    return math.ceil(2 * math.log(2 * n / delta) / (epsilon - u_captime) ** 2)


def naive(runner: Any, configs: Sequence[Any] | None, instances: Sequence[Any] | None,
          utility: Any, epsilon: float, delta: float, captime: float, *,
          seed: Any = None, worthless: float | None = 0.0) -> NaiveResult:
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
    worthless : float or None, keyword-only
        Stop every run, at the latest, where ``u`` falls to this level for good
        (:func:`worthless_from`; default 0: where ``u`` is 0); None: at ``captime``.

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
    configs, instances = candidates(runner, configs, instances, owner)
    u = scorer_of(utility, owner)
    epsilon = real(epsilon)
    delta = probability(delta, "delta", owner)
    asked = positive(captime, "captime", owner)
    level = worthless_level(worthless, owner)
    zero = math.inf if level is None else worthless_from(utility, epsilon=level)
    captime = min(asked, zero)
    u_captime = float(utility_at(u, np.array([captime]), owner)[0])
    if not (math.isfinite(epsilon) and u_captime < epsilon):
        raise DataError(argument_message(
            "epsilon", owner, f"above u(captime) = {u_captime:.6g}, the utility at the run limit "
            "(the most a capped run can move a mean)", short(epsilon),
            "Give a longer run limit or a larger epsilon."))
    n = len(configs)
    m = _naive_size(n, epsilon, delta, u_captime)
    if m > len(instances):
        raise DataError(argument_message(
            "instances", owner, f"at least m = {m} (2 ln(2n/delta) / (epsilon - u(captime))^2 "
            f"with n = {n})", f"{len(instances)} instances",
            "Give a larger epsilon, a longer run limit or more instances."))
    order = instance_order(len(instances), seed, owner)[:m]
    chosen = [instances[j] for j in order]
    runtimes = run_batch(runner, [c for c in configs for _ in range(m)], chosen * n,
                          np.full(n * m, captime), owner).reshape(n, m)
    stopped = np.minimum(runtimes, captime)
    means = utility_at(u, stopped, owner).mean(axis=1)
    best = int(np.argmax(means))
    # a run stopped at the zero would have gone on to the captime asked for at most (a runner
    # may overshoot a limit: a CPU-time limit is kept in whole seconds)
    cut = runtimes[(runtimes >= captime) & np.isfinite(runtimes)] if captime < asked else \
        np.zeros(0)
    return NaiveResult(configuration=configs[best], m=m, total_time=float(stopped.sum()),
                       captime=captime, epsilon=epsilon, delta=delta,
                       means=pd.Series(means, index=pd.Index(configs, name="configuration"),
                                       name="mean utility"),
                       worthless_from=zero, saved=float(np.maximum(asked - cut, 0.0).sum()))


def naive_curve(runner: Any, configs: Sequence[Any] | None, instances: Sequence[Any] | None,
                utility: Any, delta: float, captime: float, epsilons: Sequence[float], *,
                seed: Any = None, worthless: float | None = 0.0) -> pd.DataFrame:
    """:func:`naive` at several accuracies: what each guarantee costs.

    Parameters
    ----------
    runner, configs, instances, utility, delta, captime, seed, worthless
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
    u = scorer_of(utility, owner)
    configs, instances = candidates(runner, configs, instances, owner)
    level = worthless_level(worthless, owner)
    # stopped where u is worth nothing once, here, for every accuracy
    limit = min(positive(captime, "captime", owner),
                math.inf if level is None else worthless_from(utility, epsilon=level))
    u_captime = float(utility_at(u, np.array([limit]), owner)[0])
    delta = probability(delta, "delta", owner)
    rows = []
    for epsilon in epsilons:
        value = real(epsilon)
        if not (math.isfinite(value) and value > u_captime) or \
                _naive_size(len(configs), value, delta, u_captime) > len(instances):
            continue
        found = naive(runner, configs, instances, u, value, delta, limit, seed=seed,
                      worthless=None)
        rows.append({"epsilon": value, "m": found.m, "total_time": found.total_time,
                     "configuration": found.configuration, "survivors": len(configs)})
    return pd.DataFrame(rows, columns=["epsilon", "m", "total_time", "configuration",
                                       "survivors"])
