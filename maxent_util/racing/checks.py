"""The checks every race makes of its arguments, written once: the utility (read safely from
a spec), its values, probabilities, positive numbers, the candidates and the seed."""

from __future__ import annotations

import math
import warnings
from typing import Any, Callable

import numpy as np

from ..errors import DataError, UtilityError, argument_message, short
from ..estimate import evaluate_rule
from ..rules import PAR, Solved, parse_rule
from ..utility.core import fixed_scorer
from .._numbers import real


def scorer_of(utility: Any, owner: str) -> Callable[[Any], Any]:
    """A numeric scorer of what the library accepts as a utility (a spec is read safely)."""
    if isinstance(utility, str):
        utility = parse_rule(utility)
    if isinstance(utility, (PAR, Solved)):
        raise UtilityError(argument_message(
            "utility", owner, "a utility (a preset such as 'pareto(60, 1)', an expression in t, "
            "a Utility)", utility.name, "Racing needs a utility with values in [0, 1]."))
    return fixed_scorer(utility, owner)


def utility_at(u: Callable[[Any], Any], times: np.ndarray, owner: str) -> np.ndarray:
    values = evaluate_rule(u, np.asarray(times, dtype=float), owner)
    bad = np.flatnonzero(~((values >= -1e-12) & (values <= 1 + 1e-12)))
    if bad.size:
        raise UtilityError(argument_message(
            "utility", owner, "a number between 0 and 1 at every runtime",
            float(values[bad[0]]), f"(at t = {float(np.ravel(times)[bad[0]])!r})"))
    return np.clip(values, 0.0, 1.0)


def probability(value: Any, arg: str, owner: str) -> float:
    number = real(value)
    if not 0 < number < 1:
        raise DataError(argument_message(arg, owner, "a number in (0, 1)", short(value)))
    return number


def positive(value: Any, arg: str, owner: str, *, infinite: bool = False) -> float:
    number = real(value)
    if not (number > 0 and (infinite or math.isfinite(number))):
        what = "a positive number" if infinite else "a positive finite number"
        raise DataError(argument_message(arg, owner, what, short(value)))
    return number


def largest_run_limit(runner: Any) -> Any:
    """The largest run limit a runner takes: its ``max_run_limit``, else ``max_captime`` (the
    old name, which runners written before 0.4 have; read with a DeprecationWarning), else
    no limit."""
    if hasattr(runner, "max_run_limit"):
        return runner.max_run_limit
    if hasattr(runner, "max_captime"):
        warnings.warn(f"{type(runner).__name__}.max_captime is deprecated: name a runner's "
                      "largest run limit max_run_limit (the same value)", DeprecationWarning,
                      stacklevel=3)
        return runner.max_captime
    return math.inf


def candidates(runner: Any, configs: Any, instances: Any, owner: str
                ) -> tuple[list[Any], list[Any]]:
    if not callable(getattr(runner, "run", None)):
        raise DataError(argument_message("runner", owner, "a runner (with run(config, instance, "
                                         "run_limit))", type(runner).__name__))
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


def instance_order(count: int, seed: Any, owner: str) -> np.ndarray:
    try:
        rng = np.random.default_rng(seed)
    except (TypeError, ValueError):
        raise DataError(argument_message("seed", owner, "None, an integer of at least 0 or a "
                                         "numpy Generator", short(seed))) from None
    return rng.permutation(count)


def worthless_level(value: Any, owner: str) -> float | None:
    """The level at or below which a run is worth nothing (None: no such level)."""
    if value is None:
        return None
    level = real(value)
    if not 0 <= level < 1:
        raise DataError(argument_message("worthless", owner, "None or a number in [0, 1)",
                                         short(value)))
    return level
