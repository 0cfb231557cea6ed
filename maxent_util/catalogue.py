"""The constraint sets of the paper's catalogue (its Appendix C), by preset name.

The recipes alone, below :mod:`maxent_util.documents`, so that a JSON document naming a preset
can be checked against them; :mod:`maxent_util.families` derives the laws.
"""

from __future__ import annotations

from typing import Any, Callable

import sympy

from .constraints import (ContinuousAt, LogMoment, Mean, SquaredLogDeviation, Support, TailProbability,
                          check_parameter_names, provably, to_sympy)
from .errors import ConstraintError, argument_message

__all__ = ["FAMILIES", "CONSTRAINT_SETS", "family_constraints", "parameter_value"]

oo = sympy.oo


def parameter_value(value: Any, name: str, owner: str) -> sympy.Expr:
    expr = to_sympy(value, arg=name, owner=owner)
    check_parameter_names(expr, name, owner, value)
    return expr


def family_constraints(name: str, *args: Any) -> tuple:
    """The constraints behind a preset, e.g. ``family_constraints("pareto", 5, 3)``."""
    return CONSTRAINT_SETS[name](*args)


def _uniform(kappa0: Any) -> tuple:
    return (Support(0, parameter_value(kappa0, "kappa0", "uniform")),)


def _exponential(kappa0: Any) -> tuple:
    return (Support(0, oo), Mean(parameter_value(kappa0, "kappa0", "exponential")))


def _pareto(kappa0: Any, alpha: Any) -> tuple:
    kappa0, alpha = parameter_value(kappa0, "kappa0", "pareto"), parameter_value(alpha, "alpha", "pareto")
    _positive(alpha, "alpha", "pareto")
    return (Support(kappa0, oo), LogMoment(1 / alpha, kappa0))


def _log_laplace(kappa0: Any, alpha: Any) -> tuple:
    return _generalized_log_laplace(kappa0, alpha, alpha, owner="log_laplace")


def _generalized_log_laplace(kappa0: Any, alpha: Any, beta: Any, owner: str = "generalized_log_laplace") -> tuple:
    kappa0 = parameter_value(kappa0, "kappa0", owner)
    alpha, beta = parameter_value(alpha, "alpha", owner), parameter_value(beta, "beta", owner)
    _positive(alpha, "alpha", owner)
    _positive(beta, "beta", owner)
    return (Support(0, oo), LogMoment(1 / beta, kappa0, side="below"),
            LogMoment(1 / alpha, kappa0, side="above"), ContinuousAt(kappa0))


def _log_normal(kappa0: Any, sigma: Any) -> tuple:
    kappa0 = parameter_value(kappa0, "kappa0", "log_normal")
    return (Support(0, oo), LogMoment(0, kappa0), SquaredLogDeviation(parameter_value(sigma, "sigma", "log_normal"), kappa0))


def _piecewise(kappa0: Any, kappa1: Any, delta: Any) -> tuple:
    return (Support(0, parameter_value(kappa0, "kappa0", "piecewise")),
            TailProbability(parameter_value(kappa1, "kappa1", "piecewise"), parameter_value(delta, "delta", "piecewise")))


def _positive(value: sympy.Expr, name: str, owner: str) -> None:
    # 1/alpha with alpha <= 0 would fail later with a message about the reciprocal

    if provably(value > 0) is False:
        shown = float(value) if value.is_number else str(value)
        raise ConstraintError(argument_message(name, owner, "positive (a tail exponent)", shown))


CONSTRAINT_SETS: dict[str, Callable[..., tuple]] = {
    "uniform": _uniform,
    "exponential": _exponential,
    "pareto": _pareto,
    "log_laplace": _log_laplace,
    "generalized_log_laplace": _generalized_log_laplace,
    "log_normal": _log_normal,
    "piecewise": _piecewise,
}

#: preset name -> its parameter names, in order
FAMILIES: dict[str, tuple[str, ...]] = {
    "uniform": ("kappa0",),
    "exponential": ("kappa0",),
    "pareto": ("kappa0", "alpha"),
    "log_laplace": ("kappa0", "alpha"),
    "generalized_log_laplace": ("kappa0", "alpha", "beta"),
    "log_normal": ("kappa0", "sigma"),
    "piecewise": ("kappa0", "kappa1", "delta"),
}

