"""The cost ``1 - u`` that minimising configurators expect: :func:`cost_function`."""

from __future__ import annotations

from typing import Any, Callable, Mapping

import numpy as np
import sympy

from ..errors import DataError, ExportError, argument_message
from ..scorer import compile_scorer
from ..io import FAILURE_STATUSES
from .common import bind_defaults, utility_of


#: names configurators use for a run's outcome -> the library's status
_STATUS_ALIASES = {"success": "solved", "ok": "solved", "sat": "solved", "unsat": "solved",
                   "crashed": "crash", "memoryout": "memout", "memory_out": "memout",
                   "memorylimit": "memout", "timeout": "capped"}


def _status_codes(status: Any, shape: tuple) -> np.ndarray:
    """0 solved, 1 capped, 2 failure (u = 0)."""

    def normalise(value: Any) -> str:
        if hasattr(value, "name") and not isinstance(value, str):  # an enum such as SMAC's StatusType
            value = value.name
        text = str(value).strip().lower()
        return _STATUS_ALIASES.get(text, text)

    def code(value: Any) -> int:
        name = normalise(value)
        if name == "solved":
            return 0
        if name == "capped":
            return 1
        if name in FAILURE_STATUSES:
            return 2
        raise DataError(argument_message(
            "status", "cost", f"one of 'solved', 'capped', {', '.join(map(repr, FAILURE_STATUSES))}",
            value, "SMAC-style names (SUCCESS, TIMEOUT, CRASHED, MEMORYOUT) are accepted too."))

    values = np.asarray(status)
    if values.dtype.kind in "US":
        # a few distinct strings among many runs: classify each once
        distinct, index = np.unique(values, return_inverse=True)
        codes = np.array([code(str(v)) for v in distinct], dtype=np.int8)[index].reshape(values.shape)
    else:
        values = np.asarray(status, dtype=object)
        codes = np.empty(values.shape, dtype=np.int8)
        for position, value in np.ndenumerate(values):
            codes[position] = code(value)
    return np.broadcast_to(codes, shape)


def cost_function(utility: Any, *, capped: str = "zero",
                  defaults: Mapping[str, Any] | None = None) -> Callable[..., Any]:
    """The cost ``1 - u`` that minimising configurators expect, from a utility.

    Parameters
    ----------
    utility : Utility, CaptimeDistribution or sympy.Expr
        The utility; a distribution gives its step utility, an expression is in ``t``.
    capped : {"zero", "cutoff"}, keyword-only
        How a capped run (status ``"capped"``, or SMAC's ``TIMEOUT``) counts: ``"zero"`` (default,
        the paper's estimate: u = 0, cost 1) or ``"cutoff"`` (u(cutoff), the
        most it could be worth: an optimistic cost).
    defaults : dict of str to float, keyword-only
        Values of the utility's free parameters; each needs one.

    Returns
    -------
    callable
        ``cost(runtime, status="solved", cutoff=None)``, vectorised over runtimes, statuses and cutoffs (broadcast). A
        solved run costs ``1 - u(runtime)``; a capped run as chosen above
        (``cutoff`` defaults to the runtime, the time the run was stopped);
        ``"memout"``, ``"crash"`` and ``"unverified"`` cost 1 (u = 0).
        Statuses may be SMAC3's names (``SUCCESS``, ``TIMEOUT``, ``CRASHED``,
        ``MEMORYOUT``, or its ``StatusType`` members). A scalar call returns a float.

    Raises
    ------
    ExportError
        For an unknown ``capped`` or a parameter without a value.
    DataError
        From ``cost`` for an unknown status.

    Notes
    -----
    SMAC3 minimises the cost its target function returns. For algorithm
    configuration with a 300 s cutoff::

        cost = cost_function(parse_utility("pareto(24, 1)"))

        def target(config, instance, seed=0):
            runtime, status = run_my_solver(config, instance, seed, cutoff=300)
            return float(cost(runtime, status, 300.0))

        # scenario = Scenario(configspace, instances=..., n_trials=...)
        # smac = AlgorithmConfigurationFacade(scenario, target)
        # incumbent = smac.optimize()

    irace minimises the number the target runner prints last. A target runner
    written in Python (irace calls it with the configuration id, instance id,
    seed, instance and the parameters)::

        #!/usr/bin/env python3
        import sys
        from maxent_util import parse_utility
        from maxent_util.export import cost_function

        cost = cost_function(parse_utility("log_normal(24, 0.5)"))
        runtime, status = run_my_solver(sys.argv[4], sys.argv[5:], cutoff=300)
        print(float(cost(runtime, status, 300.0)))

    Keep irace's ``maxTime``/``boundMax`` in seconds so the utility's
    ``kappa0`` means the same unit.

    Examples
    --------
    >>> from maxent_util import exponential
    >>> cost = cost_function(exponential(24))
    >>> cost([0.0, 24.0, 300.0, 5.0], ["solved", "solved", "capped", "crash"], 300.0).round(4)
    array([0.    , 0.6321, 1.    , 1.    ])
    """

    owner = "cost_function"
    if capped not in ("zero", "cutoff"):
        raise ExportError(argument_message("capped", owner, "'zero' or 'cutoff'", capped))
    utility = utility_of(utility, owner)
    expr, parameters = bind_defaults(utility, defaults, owner, required=True)
    expr = expr.xreplace({s: sympy.Float(v, 17) for s, v in parameters})
    scorer = compile_scorer(expr)

    def cost(runtime: Any, status: Any = "solved", cutoff: Any = None) -> Any:
        runtimes = np.asarray(runtime, dtype=float)
        cutoffs = runtimes if cutoff is None else np.asarray(cutoff, dtype=float)
        shape = np.broadcast_shapes(runtimes.shape, np.shape(status), cutoffs.shape)
        codes = _status_codes(status, shape)
        runtimes = np.broadcast_to(runtimes, shape)
        value = np.asarray(scorer(runtimes), dtype=float)
        if capped == "cutoff":
            at_cutoff = np.asarray(scorer(np.broadcast_to(cutoffs, shape)), dtype=float)
            value = np.where(codes == 1, at_cutoff, value)
        else:
            value = np.where(codes == 1, 0.0, value)
        value = np.where(codes == 2, 0.0, value)
        out = 1.0 - value
        return float(out) if out.ndim == 0 else out

    cost.__doc__ = f"1 - u(runtime) for u(t) = {expr}; capped runs count {capped!r}."
    return cost
