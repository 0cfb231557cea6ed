"""Utilitarian procrastination on a runner: :func:`up`."""

from __future__ import annotations

import math
from typing import Any, Callable, Sequence

import numpy as np
import pandas as pd

from ..errors import DataError, argument_message, short
from .._numbers import real
from .._renamed import renamed_keywords
from .checks import (candidates, instance_order, largest_run_limit, positive, probability,
                     scorer_of, worthless_level)
from .worthless import worthless_from
from .runners import TableRunner, run_batch
from .trace import COLUMNS, Race

__all__ = ["up"]


@renamed_keywords(k0="first_run_limit", max_captime="max_run_limit")
def up(runner: Any, configs: Sequence[Any] | None, instances: Sequence[Any] | None,
       utility: Any, delta: float, *, first_run_limit: float = 1.0, epsilon_min: float = 0.0,
       max_run_limit: float | None = None, budget: float | None = None, seed: Any = None,
       progress: Callable[[dict[str, Any]], None] | None = None,
       worthless: float | None = 0.0) -> pd.DataFrame:
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
    first_run_limit : float, keyword-only
        The first run limit of every configuration, :math:`k_0`, in seconds (default 1;
        ``k0=``, its old name, still works, with a DeprecationWarning).
    epsilon_min : float, keyword-only
        Stop once :math:`\\epsilon^*` is at most this (default 0: run until
        another reason to stop).
    max_run_limit : float, optional, keyword-only
        The largest run limit (default: the runner's ``max_run_limit``, e.g. a
        table's cutoff, else none): a doubling stops there (``max_captime=``, its old
        name, still works, with a DeprecationWarning).
    budget : float, optional, keyword-only
        Stop once this many seconds of runs are spent (checked after each
        round).
    seed : None, int or numpy.random.Generator, keyword-only
        Fixes the random order of the instances.
    progress : callable, optional, keyword-only
        Called after every round with that round's row of the trace (a dict).
    worthless : float or None, keyword-only
        Stop every run, at the latest, where ``u`` falls to this level for good
        (:func:`worthless_from`; default 0: where ``u`` is 0, e.g. from 60 s on for
        ``uniform(60)``); None: only ``max_run_limit`` stops runs. A run that goes on past
        that runtime scores what it scores when stopped there (0, or at most this level), so
        with 0 every decision is the same, and less time is spent.

    Returns
    -------
    pandas.DataFrame
        The trace, one row per round ``m`` (instances used so far):
        ``incumbent`` (the surviving configuration with the largest lower
        bound), ``epsilon`` (:math:`\\epsilon^*`: the largest upper bound
        minus the incumbent's lower bound), ``lcb`` and ``ucb`` (those two
        bounds), ``survivors``, ``run_limit_min`` and ``run_limit_max`` (the
        survivors' run limits), ``total_time`` (seconds of runs so far). ``attrs`` holds
        ``incumbent``, ``epsilon``, ``stopped`` (one of ``"one
        configuration"``, ``"epsilon"``, ``"instances"``, ``"budget"``,
        ``"interrupted"``), ``delta``, ``first_run_limit`` (and ``k0``, its old name),
        ``worthless_from`` (the runtime where runs were stopped as worth nothing, ``inf``
        if none), ``saved`` (at most
        this many seconds of runs were saved by stopping there) and ``configurations``: a frame
        per configuration of its final ``mean_utility``, ``completed`` (the
        fraction of finished runs), ``run_limit``, ``lcb``, ``ucb``, whether it
        is ``alive`` and the round it was ``dropped`` at.

    Raises
    ------
    DataError
        If ``delta`` is not in ``(0, 1)``, ``first_run_limit`` is not positive or is
        above ``max_run_limit``, or the runner refuses a run.
    UtilityError
        If the utility has free parameters or leaves ``[0, 1]``.

    Notes
    -----
    In round :math:`m` every surviving configuration :math:`i` has run on
    the first :math:`m` instances at its run limit :math:`k_i = 2^{j_i} k_0`.
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
    best, in every round (anytime). A run limit doubles after a round where
    :math:`2\\alpha_i \\le u(k_i)(1 - \\hat F_i)`: the capped runs, not the
    sample, limit the lower bound; the configuration's capped runs among its
    :math:`m` instances are then run again at the new run limit. Here
    :math:`j_i` counts the doublings, which is :math:`\\log_2(k_i/k_0)`
    except where the last doubling is cut at ``max_run_limit``.

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
    >>> trace = up(TableRunner(table), None, None, "exp(-t/10)", 0.05, first_run_limit=1,
    ...            seed=0)
    >>> trace.attrs["incumbent"], trace.attrs["stopped"], int(trace["m"].iloc[-1])
    ('fast', 'one configuration', 100)
    >>> round(trace.attrs["epsilon"], 3), trace.attrs["configurations"]["dropped"].tolist()
    (0.332, [0, 100])
    """
    owner = "up"
    configs, instances = candidates(runner, configs, instances, owner)
    u = scorer_of(utility, owner)
    delta = probability(delta, "delta", owner)
    k0 = positive(first_run_limit, "first_run_limit", owner)
    epsilon_min = real(epsilon_min)
    if not (epsilon_min >= 0):
        raise DataError(argument_message("epsilon_min", owner, "at least 0", short(epsilon_min)))
    largest = largest_run_limit(runner) if max_run_limit is None else max_run_limit
    largest = positive(largest, "max_run_limit", owner, infinite=True)
    if k0 > largest:
        raise DataError(argument_message("first_run_limit", owner,
                                         f"at most max_run_limit ({largest:g} s)", k0))
    worthless = worthless_level(worthless, owner)
    zero = math.inf if worthless is None else worthless_from(utility, epsilon=worthless)
    # without the stop, a run limit doubles until u(limit) is worthless: the first k0 2^j
    # past the zero, or max_run_limit; every run stopped at the zero would have gone on to it
    without = min(largest, k0 * 2.0 ** max(0, math.ceil(math.log2(zero / k0)))) \
        if zero < largest else largest
    largest, k0 = min(largest, zero), min(k0, zero)
    if budget is not None:
        budget = positive(budget, "budget", owner, infinite=True)
    if progress is not None and not callable(progress):
        raise DataError(argument_message("progress", owner, "a function of one row (a dict)",
                                         short(progress)))
    n, size = len(configs), len(instances)
    order = instance_order(size, seed, owner)
    drawn = [instances[j] for j in order]

    def fetch(rep: np.ndarray, config: np.ndarray, instance: np.ndarray,
              limits: np.ndarray) -> np.ndarray:
        return run_batch(runner, [configs[i] for i in config], [drawn[j] for j in instance],
                          limits, owner)

    def report(row: tuple[Any, ...]) -> None:
        if progress is not None:
            progress(dict(zip(COLUMNS, (row[0], configs[row[1]], *row[2:]))))

    saved = [0.0]

    def fetch_counted(rep: np.ndarray, config: np.ndarray, instance: np.ndarray,
                      limits: np.ndarray) -> np.ndarray:
        times = fetch(rep, config, instance, limits)
        # a run stopped at the zero would have gone on to `without` at most (a runner may
        # overshoot a limit: minisat's CPU time is stopped in whole seconds)
        cut = (limits == zero) & (times >= limits) & np.isfinite(times)
        saved[0] += float(np.maximum(without - times[cut], 0.0).sum())
        return times

    race = Race(fetch_counted, 1, n, size, u, delta, k0, largest, epsilon_min, budget, owner)
    race.run(report)
    rows = [(m, configs[best], *rest) for _, m, best, *rest in race.rows]
    trace = pd.DataFrame(rows, columns=list(COLUMNS))
    last = dict(zip(COLUMNS, rows[-1])) if rows else {"incumbent": None, "epsilon": 1.0}
    trace.attrs.update(incumbent=last["incumbent"], epsilon=last["epsilon"],
                       stopped=race.stopped[0], delta=delta, first_run_limit=k0, k0=k0,
                       worthless_from=zero,
                       saved=saved[0],
                       configurations=race.configurations(configs).loc[0])
    return trace
