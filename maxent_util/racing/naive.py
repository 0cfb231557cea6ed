"""Naive: every configuration on the same instances at one run limit (:func:`naive`, and what each
accuracy costs, :func:`naive_curve`)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np
import pandas as pd

from ..errors import DataError, argument_message, short
from .._numbers import real
from .._renamed import renamed_attribute, renamed_keywords
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
        Seconds of runs spent (each run counts ``min(runtime, run_limit)``).
    run_limit : float
        Where every run was stopped, in seconds (``captime``, its old name, is still read,
        with a DeprecationWarning).
    epsilon, delta : float
        The guarantee: with probability at least ``1 - delta`` the
        configuration's expected utility is within ``epsilon`` of the best.
    means : pandas.Series
        Mean utility per configuration (capped runs count ``u(run_limit)``).
    worthless_from : float
        Where ``u`` is worth nothing (``inf`` if nowhere): the run limit is at most that.
    saved : float
        At most this many seconds of runs were saved by stopping runs there rather than at
        the run limit asked for.
    """

    configuration: Any
    m: int
    total_time: float
    run_limit: float
    epsilon: float
    delta: float
    means: pd.Series
    worthless_from: float = math.inf
    saved: float = 0.0

    captime = renamed_attribute("captime", "run_limit")


def _naive_size(n: int, epsilon: float, delta: float, u_limit: float) -> int:
    return math.ceil(2 * math.log(2 * n / delta) / (epsilon - u_limit) ** 2)


@renamed_keywords(captime="run_limit")
def naive(runner: Any, configs: Sequence[Any] | None, instances: Sequence[Any] | None,
          utility: Any, epsilon: float, delta: float, run_limit: float, *,
          seed: Any = None, worthless: float | None = 0.0) -> NaiveResult:
    """Run every configuration on the same instances at one run limit; keep the best mean.

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
        The accuracy wanted, above ``u(run_limit)``.
    delta : float
        The failure probability, in ``(0, 1)``.
    run_limit : float
        Where every run is stopped, in seconds (positive; ``captime=``, its old name,
        still works, with a DeprecationWarning).
    seed : None, int or numpy.random.Generator, keyword-only
        Fixes the random order of the instances.
    worthless : float or None, keyword-only
        Stop every run, at the latest, where ``u`` falls to this level for good
        (:func:`worthless_from`; default 0: where ``u`` is 0); None: at ``run_limit``.

    Returns
    -------
    NaiveResult
        The configuration with the highest mean utility over
        :math:`m = \\lceil 2\\ln(2n/\\delta) / (\\epsilon - u(\\kappa))^2 \\rceil`
        instances, ``m``, the time spent, and every configuration's mean.

    Raises
    ------
    DataError
        If ``u(run_limit) >= epsilon``, ``m`` is more than the instances,
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
    asked = positive(run_limit, "run_limit", owner)
    level = worthless_level(worthless, owner)
    zero = math.inf if level is None else worthless_from(utility, epsilon=level)
    run_limit = min(asked, zero)
    u_limit = float(utility_at(u, np.array([run_limit]), owner)[0])
    if not (math.isfinite(epsilon) and u_limit < epsilon):
        raise DataError(argument_message(
            "epsilon", owner, f"above u(run_limit) = {u_limit:.6g}, the utility at the run limit "
            "(the most a capped run can move a mean)", short(epsilon),
            "Give a longer run limit or a larger epsilon."))
    n = len(configs)
    m = _naive_size(n, epsilon, delta, u_limit)
    if m > len(instances):
        raise DataError(argument_message(
            "instances", owner, f"at least m = {m} (2 ln(2n/delta) / (epsilon - u(run_limit))^2 "
            f"with n = {n})", f"{len(instances)} instances",
            "Give a larger epsilon, a longer run limit or more instances."))
    order = instance_order(len(instances), seed, owner)[:m]
    chosen = [instances[j] for j in order]
    runtimes = run_batch(runner, [c for c in configs for _ in range(m)], chosen * n,
                          np.full(n * m, run_limit), owner).reshape(n, m)
    stopped = np.minimum(runtimes, run_limit)
    means = utility_at(u, stopped, owner).mean(axis=1)
    best = int(np.argmax(means))
    # a run stopped at the zero would have gone on to the run limit asked for at most (a runner
    # may overshoot a limit: a CPU-time limit is kept in whole seconds)
    cut = runtimes[(runtimes >= run_limit) & np.isfinite(runtimes)] if run_limit < asked else \
        np.zeros(0)
    return NaiveResult(configuration=configs[best], m=m, total_time=float(stopped.sum()),
                       run_limit=run_limit, epsilon=epsilon, delta=delta,
                       means=pd.Series(means, index=pd.Index(configs, name="configuration"),
                                       name="mean utility"),
                       worthless_from=zero, saved=float(np.maximum(asked - cut, 0.0).sum()))


@renamed_keywords(captime="run_limit")
def naive_curve(runner: Any, configs: Sequence[Any] | None, instances: Sequence[Any] | None,
                utility: Any, delta: float, run_limit: float, epsilons: Sequence[float], *,
                seed: Any = None, worthless: float | None = 0.0) -> pd.DataFrame:
    """:func:`naive` at several accuracies: what each guarantee costs.

    Parameters
    ----------
    runner, configs, instances, utility, delta, run_limit, seed, worthless
        As in :func:`naive`.
    epsilons : sequence of float
        The accuracies; those at or below ``u(run_limit)``, or needing more
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
    limit = min(positive(run_limit, "run_limit", owner),
                math.inf if level is None else worthless_from(utility, epsilon=level))
    u_limit = float(utility_at(u, np.array([limit]), owner)[0])
    delta = probability(delta, "delta", owner)
    rows = []
    for epsilon in epsilons:
        value = real(epsilon)
        if not (math.isfinite(value) and value > u_limit) or \
                _naive_size(len(configs), value, delta, u_limit) > len(instances):
            continue
        found = naive(runner, configs, instances, u, value, delta, limit, seed=seed,
                      worthless=None)
        rows.append({"epsilon": value, "m": found.m, "total_time": found.total_time,
                     "configuration": found.configuration, "survivors": len(configs)})
    return pd.DataFrame(rows, columns=["epsilon", "m", "total_time", "configuration",
                                       "survivors"])
