"""Utilitarian configuration: pick the best configuration by utility, with capped runs.

Given ``n`` configurations of an algorithm (or ``n`` algorithms), a
utility ``u`` and instances drawn at random, find one whose expected
utility :math:`U_i = E[u(T_i)]` is within :math:`\\epsilon` of the best,
with probability at least :math:`1 - \\delta`, without running everything
to completion. Graham, Leyton-Brown and Roughgarden, *Utilitarian Algorithm
Configuration* (NeurIPS 2023), give two procedures; both are here:

- :func:`naive` runs every configuration on the same
  :math:`m = \\lceil 2\\ln(2n/\\delta) / (\\epsilon - u(\\kappa))^2\\rceil`
  instances at one run limit :math:`\\kappa` and keeps the best mean;
- :func:`up` (*utilitarian procrastination*) is anytime: it adds one
  instance at a time, keeps a confidence interval per configuration, drops
  configurations that are provably worse, and doubles a configuration's
  run limit only when its capped runs, not its sample size, limit what it
  knows.

Runs come from a *runner*: any object with ``run(config, instance,
run_limit) -> runtime`` (see :class:`Runner`). A run that did not finish
within ``run_limit`` returns ``run_limit`` or more and counts as capped; a run
that can never finish (a crash) returns ``inf``. :class:`TableRunner`
replays a recorded runs table; :class:`ProcessRunner` runs a real command
under a time limit, optionally in parallel on a ``concurrent.futures``
executor or a Dask client.

*Conventions shared by both procedures* (those of the paper and of its
authors' code): a run capped at :math:`k` scores :math:`u(k)`, so a
configuration's empirical mean utility at run limit :math:`k` estimates
:math:`E[u(\\min(T, k))]`, which is at least :math:`E[u(T)]` and at most
:math:`u(k)\\,P(T \\ge k)` above it. The time a procedure spends is the sum
over the runs it asked for of :math:`\\min(T, k)`; a run that finished is
never repeated (its runtime is known and below any larger run limit), a
capped run is repeated from scratch at a larger run limit. Instances are used
in a random order fixed by ``seed``; every configuration sees the same
instances in the same order (paired comparisons).

The package has one module per idea, as :mod:`maxent_util.maxent` does: ``runners`` (the
runner protocol, :class:`TableRunner`, the batch of runs), ``checks`` (the arguments every race
checks), ``trace`` (the rounds of UP and their trace), ``naive``, ``up``, ``simulation``
(:func:`simulate_up`) and ``record`` (:class:`RunLog`: a race's runs recorded as they end and
replayed when it starts again) and ``worthless`` (:func:`worthless_from`: where a run stops
being worth anything, the latest a race or a configurator's target lets it go on).
"""

from __future__ import annotations

from ..processes import ProcessRunner
from .naive import NaiveResult, naive, naive_curve
from .record import RunLog, read_instances
from .runners import Runner, TableRunner
from .simulation import simulate_up
from .trace import UNION_CONSTANT
from .up import up
from .worthless import worthless_from

__all__ = [
    "Runner",
    "TableRunner",
    "ProcessRunner",
    "NaiveResult",
    "naive",
    "naive_curve",
    "RunLog",
    "read_instances",
    "up",
    "simulate_up",
    "UNION_CONSTANT",
    "worthless_from",
]
