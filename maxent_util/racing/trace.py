"""The rounds of utilitarian procrastination and the trace they leave: :class:`Race`, shared by
:func:`~maxent_util.racing.up` (one race on a runner) and
:func:`~maxent_util.racing.simulate_up` (many simulated races at once)."""

from __future__ import annotations

import math
from typing import Any, Callable, Sequence

import numpy as np
import pandas as pd

from .checks import utility_at

__all__ = ["COLUMNS", "Race", "STOPS", "UNION_CONSTANT"]

UNION_CONSTANT = (math.pi ** 2 / 6) ** 2
""":math:`(\\sum_{j \\ge 1} 1/j^2)^2 = (\\pi^2/6)^2 \\approx 2.705808`: the union bound of
:func:`up` over the sample size :math:`m` and the number of doublings of a run limit."""

# Stop reasons of up(), as its trace's attrs["stopped"] says them.
STOPS = ("one configuration", "epsilon", "instances", "budget", "interrupted")


class Race:
    """The rounds of UP, for ``R`` races at once (one for :func:`up`, many for
    :func:`simulate_up`): every array has the races first, then the ``n`` configurations.

    ``fetch(race, config, instance, run_limits)`` gives the runtimes of runs named by index
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
        self.run_limit = np.full((races, n), k0)
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
        # the new instance for every survivor, and the capped runs of those whose run limit
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
        limits = self.run_limit[who_r, who_i]
        times = self.fetch(who_r, who_i, who_j, limits)
        stopped_at = np.minimum(times, limits)
        self.total += np.bincount(who_r, weights=stopped_at, minlength=self.races)
        # one evaluation of u per round: the runs, then the survivors' run limits
        values = utility_at(self.u, np.concatenate([stopped_at, self.run_limit[active]]),
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

        at_limit = np.zeros((self.races, n))
        at_limit[active] = values[runs:]
        mean = self.sum_u / m
        slack = at_limit * (1 - self.sum_f / m)
        alpha = np.sqrt((self.log_constant + 2 * math.log(m) + 2 * np.log1p(self.doublings))
                        / (2 * m))
        self.ucb = np.where(active, np.minimum(self.ucb, mean + (1 - at_limit) * alpha),
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
        low = np.where(survivors, self.run_limit, np.inf).min(axis=1)
        high = np.where(survivors, self.run_limit, -np.inf).max(axis=1)
        running = np.flatnonzero(self.running)
        block = (running, np.full(running.size, m), best[running], epsilon[running],
                 best_lcb[running], top[running], count[running], low[running], high[running],
                 self.total[running])
        self._blocks.append(block)
        if report is not None:
            for row in zip(*(column.tolist() for column in block[1:])):
                report(row)
        # double where the capped runs, not the sample, limit the lower bound
        grow = active & self.alive & (2 * alpha <= slack) & (self.run_limit < self.largest)
        if grow.any():
            self.run_limit[grow] = np.minimum(2 * self.run_limit[grow], self.largest)
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
        run_limit_min, run_limit_max, total_time), rows in the order the rounds ran."""
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
        run limit, bounds, and whether and when it was dropped."""
        used = np.where(self.alive, self.used[:, None], self.dropped).astype(float)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean_utility, completed = self.sum_u / used, self.sum_f / used
        index = pd.MultiIndex.from_product([range(self.races), list(configs)],
                                           names=["repetition", "configuration"])
        return pd.DataFrame(
            {"mean_utility": mean_utility.ravel(), "completed": completed.ravel(),
             "run_limit": self.run_limit.ravel(), "lcb": self.lcb.ravel(), "ucb": self.ucb.ravel(),
             "alive": self.alive.ravel(), "dropped": np.where(self.alive, 0, self.dropped).ravel()},
            index=index)


#: the trace's columns; a run limit is where the race stops a run (before 0.4 these were
#: captime_min and captime_max, a word the package keeps for the user's patience)
COLUMNS = ("m", "incumbent", "epsilon", "lcb", "ucb", "survivors", "run_limit_min",
           "run_limit_max", "total_time")
