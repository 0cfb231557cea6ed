"""Where a race's runs come from: the :class:`Runner` protocol and :class:`TableRunner`,
which replays a recorded table (:class:`~maxent_util.processes.ProcessRunner` runs a real
command), and :func:`run_batch`, the one way a race asks a runner for runs."""

from __future__ import annotations

import math
from typing import Any, Callable, Protocol, Sequence, runtime_checkable

import numpy as np
import pandas as pd

from ..errors import DataError, argument_message, short
from .._renamed import renamed_attribute, renamed_keywords
from ..runs import long_table, real

__all__ = ["Runner", "TableRunner", "run_batch"]


@runtime_checkable
class Runner(Protocol):
    """What :func:`naive` and :func:`up` need from a source of runs.

    ``run(config, instance, run_limit)`` runs one configuration on one
    instance with a time limit and returns its runtime in seconds: below
    ``run_limit`` if it finished, ``run_limit`` or more if it was stopped there
    (a capped run), ``inf`` if it can never finish (a crash). A runner may
    also offer ``run_many(configs, instances, run_limits) -> numpy.ndarray``
    (the same, for many runs at once, possibly in parallel) and
    ``max_run_limit`` (the largest run limit it accepts; ``max_captime``, its name before
    0.4, is still read, with a DeprecationWarning). The third argument of ``run`` was
    called ``captime`` before 0.4; races pass it by position, so a runner with the old name
    still works.
    """

    def run(self, config: Any, instance: Any, run_limit: float) -> float:
        """The runtime of ``config`` on ``instance`` within ``run_limit`` seconds.

        Parameters
        ----------
        config, instance : object
            What to run and on what.
        run_limit : float
            The time limit in seconds.

        Returns
        -------
        float
            Below ``run_limit`` if the run finished, ``run_limit`` or more if it
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
    max_run_limit : float
        The table's cutoff (its smallest): the runs say nothing beyond it
        (``max_captime``, its old name, is still read, with a DeprecationWarning).
    runtimes : numpy.ndarray
        configs x instances: the runtime of a solved run, ``inf`` for a
        capped run or a failure (it never finished within the cutoff).

    Raises
    ------
    DataError
        If the table is not a valid long table with one run per cell.

    Notes
    -----
    ``run(config, instance, run_limit)`` returns the recorded runtime when it
    is below ``run_limit``, else ``run_limit`` (a capped run; failures too); a
    ``run_limit`` above :attr:`max_run_limit` is refused.

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
            self.max_run_limit = float(runs.cutoffs.min())
        elif (~runs.solved).any():
            self.max_run_limit = float(runs.runtimes[~runs.solved].min())
        else:
            self.max_run_limit = math.inf
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

    max_captime = renamed_attribute("max_captime", "max_run_limit")

    @renamed_keywords(captimes="run_limits")
    def run_many(self, configs: Sequence[Any], instances: Sequence[Any],
                 run_limits: Any, *, done: Callable[[int, float], None] | None = None
                 ) -> np.ndarray:
        """Replay many runs at once.

        Parameters
        ----------
        configs, instances : sequence
            The table's algorithms and instances, one pair per run.
        run_limits : float or array_like of float
            The time limit of each run (positive, at most :attr:`max_run_limit`).
        done : callable, optional, keyword-only
            Called as ``done(index, runtime)`` for each run, in order (as
            :meth:`~maxent_util.processes.ProcessRunner.run_many` calls it).

        Returns
        -------
        numpy.ndarray
            ``min(recorded runtime, run_limit)`` per run (capped runs and
            failures give ``run_limit``).

        Raises
        ------
        DataError
            For an unknown configuration or instance, or a run limit that is
            not positive or is above the table's cutoff.
        """
        rows = self._index(configs, self._config_index, "config")
        columns = self._index(instances, self._instance_index, "instance")
        limits = np.broadcast_to(np.asarray(run_limits, dtype=float), rows.shape)
        _check_run_limits(limits, self.max_run_limit, "TableRunner.run")
        runtimes = np.minimum(self.runtimes[rows, columns], limits)
        if done is not None:
            for index, runtime in enumerate(runtimes.tolist()):
                done(index, runtime)
        return runtimes

    @renamed_keywords(captime="run_limit")
    def run(self, config: Any, instance: Any, run_limit: float) -> float:
        """Replay one run: its recorded runtime, or ``run_limit`` if that is shorter.

        Parameters
        ----------
        config, instance : object
            An algorithm and an instance of the table.
        run_limit : float
            The time limit (positive, at most :attr:`max_run_limit`).

        Returns
        -------
        float
            ``min(recorded runtime, run_limit)``.

        Raises
        ------
        DataError
            As :meth:`run_many`.
        """
        return float(self.run_many([config], [instance], real(run_limit))[0])

    def __repr__(self) -> str:
        return (f"TableRunner({len(self.configs)} configurations, {len(self.instances)} "
                f"instances, cutoff {self.max_run_limit:g} s)")


def _known(lookup: dict[Any, int], value: Any) -> bool:
    try:
        return value in lookup
    except TypeError:
        return False


def _check_run_limits(limits: np.ndarray, largest: float, owner: str) -> None:
    bad = np.flatnonzero(~((limits > 0) & (limits <= largest)))
    if bad.size:
        value = float(limits[bad[0]])
        raise DataError(argument_message(
            "run_limit", owner, f"positive and at most the runs' cutoff ({largest:g} s)", value,
            "The recorded runs say nothing beyond their cutoff."))


def run_batch(runner: Any, configs: list[Any], instances: list[Any],
               run_limits: np.ndarray, owner: str) -> np.ndarray:
    """The runner's runtimes of a batch of runs, checked: numbers, at least 0."""
    if not configs:
        return np.zeros(0)
    many = getattr(runner, "run_many", None)
    if callable(many):
        values = np.asarray(many(configs, instances, run_limits), dtype=float)
    else:
        values = np.array([runner.run(c, i, float(k))
                           for c, i, k in zip(configs, instances, run_limits)], dtype=float)
    if values.shape != (len(configs),) or not (values >= 0).all():  # NaN fails too
        bad = values.ravel()[np.flatnonzero(~(values.ravel() >= 0))[:1]]
        raise DataError(argument_message(
            "runner", owner, "a runtime of at least 0 seconds per run",
            float(bad[0]) if bad.size else f"shape {values.shape}"))
    return values
