"""Utilitarian procrastination on simulated races, many at once: :func:`simulate_up`."""

from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np
import pandas as pd

from ..errors import DataError, argument_message, short
from .._numbers import real
from .._renamed import renamed_keywords
from .checks import positive, probability, scorer_of
from .trace import COLUMNS, Race

__all__ = ["simulate_up"]


@renamed_keywords(k0="first_run_limit", max_captime="max_run_limit")
def simulate_up(runtimes: Any, utility: Any, delta: float, *, configs: Sequence[Any] | None = None,
                first_run_limit: float = 1.0, epsilon_min: float = 0.0,
                max_run_limit: float = math.inf,
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
    first_run_limit, epsilon_min, max_run_limit, budget : float, keyword-only
        As in :func:`up` (``budget`` per repetition; ``k0=`` and ``max_captime=``, the old
        names of the run limits, still work, with a DeprecationWarning).

    Returns
    -------
    pandas.DataFrame
        The traces of all repetitions, one row per repetition and round: a
        column ``repetition`` and then the columns of :func:`up`'s trace.
        ``attrs`` holds ``stopped`` (a Series per repetition), ``delta``,
        ``first_run_limit`` (and ``k0``, its old name) and ``configurations`` (:func:`up`'s,
        indexed by repetition
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
    >>> traces = simulate_up(runtimes, "exp(-t)", 0.1, configs=["quick", "slow"],
    ...                      first_run_limit=0.5)
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
    u = scorer_of(utility, owner)
    delta = probability(delta, "delta", owner)
    k0 = positive(first_run_limit, "first_run_limit", owner)
    largest = positive(max_run_limit, "max_run_limit", owner, infinite=True)
    epsilon_min = real(epsilon_min)
    if not (epsilon_min >= 0) or k0 > largest:
        arg, value = ("epsilon_min", epsilon_min) if not epsilon_min >= 0 else \
            ("first_run_limit", k0)
        raise DataError(argument_message(arg, owner, "at least 0" if arg == "epsilon_min"
                                         else f"at most max_run_limit ({largest:g})", value))
    if budget is not None:
        budget = positive(budget, "budget", owner, infinite=True)

    def fetch(rep: np.ndarray, config: np.ndarray, instance: np.ndarray,
              limits: np.ndarray) -> np.ndarray:
        return np.minimum(values[rep, config, instance], limits)

    race = Race(fetch, races, n, size, u, delta, k0, largest, epsilon_min, budget, owner)
    race.run()
    frame = pd.DataFrame(dict(zip(["repetition", *COLUMNS], race.columns())))
    frame["incumbent"] = np.asarray(names, dtype=object)[frame["incumbent"].to_numpy(int)]
    frame = frame.sort_values(["repetition", "m"], kind="stable", ignore_index=True)
    frame.attrs.update(stopped=pd.Series(race.stopped, name="stopped",
                                         index=pd.RangeIndex(races, name="repetition")),
                       delta=delta, first_run_limit=k0, k0=k0,
                       configurations=race.configurations(names))
    return frame
