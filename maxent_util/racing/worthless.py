"""Where a run stops being worth anything: :func:`worthless_from`.

A utility that is 0 from some runtime on (a bounded captime law: ``uniform(k0)``, a
piecewise utility; or, with a stated ``epsilon``, one that falls to ``epsilon``) scores a run
that goes on past that runtime the same as one stopped there: 0 (or at most ``epsilon``). A
race and a configurator's target stop every run there at the latest, and spend nothing on
what is worth nothing.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..errors import DataError, UtilityError, argument_message, short
from ..rules import parse_rule
from .._numbers import real
from .checks import scorer_of, utility_at

__all__ = ["worthless_from"]

#: the search narrows (low, high] to a 64th of its width per evaluation of u, on 63 runtimes
_STEPS = 64


def worthless_from(utility: Any, *, epsilon: float = 0.0) -> float:
    """The runtime from which ``u`` is at most ``epsilon``: the latest a run is worth running to.

    Parameters
    ----------
    utility : Utility, sympy.Expr or str
        A utility with values in ``[0, 1]``, non-increasing (a spec such as ``"uniform(60)"``
        is read safely).
    epsilon : float, keyword-only
        The level at or below which a run counts as worth nothing, in ``[0, 1)``; 0 (the
        default) means where ``u`` is exactly 0.

    Returns
    -------
    float
        The smallest runtime ``z`` with ``u(z) <= epsilon`` (``u`` stays there after it), or
        ``inf`` when ``u`` never falls that low.

    Raises
    ------
    DataError
        For an ``epsilon`` outside ``[0, 1)``.
    UtilityError
        For a utility with free parameters or values outside ``[0, 1]``, or one at or below
        ``epsilon`` at ``t = 0``.

    Notes
    -----
    With ``epsilon = 0`` only an exact zero counts: the end of the captime law's support
    (``uniform(60)``: 60, the law's own number) or a breakpoint of a piecewise utility where
    it is 0. With ``epsilon > 0``, also the first power of 2 where ``u <= epsilon``. A search
    over the doubles (63 runtimes an evaluation of ``u``) then finds the
    first runtime where ``u <= epsilon``: the answer is a runtime the utility itself puts at or
    below ``epsilon``, whichever route proposed it.

    Examples
    --------
    >>> worthless_from("uniform(60)"), worthless_from("pareto(1, 1)")
    (60.0, inf)
    >>> worthless_from("Piecewise((1, t < 1), (0.5, t < 3), (0, True))")
    3.0
    >>> round(worthless_from("exp(-t)", epsilon=0.01), 6)  # ln 100
    4.60517
    """
    owner = "worthless_from"
    level = real(epsilon)
    if not 0 <= level < 1:
        raise DataError(argument_message("epsilon", owner, "a number in [0, 1)", short(epsilon)))
    if isinstance(utility, str):
        utility = parse_rule(utility)
    u = scorer_of(utility, owner)

    def worthless_at(times: np.ndarray) -> np.ndarray:
        return utility_at(u, times, owner) <= level

    def worthless(time: float) -> bool:
        return bool(worthless_at(np.array([time]))[0])

    candidates = []
    support = getattr(getattr(utility, "distribution", None), "support", None)
    if support is not None:
        candidates.append(float(support[1]))
    points = getattr(utility, "_breakpoints", None)
    if callable(points):
        candidates.extend(float(point) for point in points())
    candidates = sorted(c for c in candidates if 0 < c < math.inf)
    # a law's end as a double may fall a hair short of the exact end: its next doubles too
    high = None
    for candidate in candidates:
        after = candidate + np.abs(candidate) * np.finfo(float).eps * np.arange(9)
        found = worthless_at(after)
        if found.any():
            high = float(after[np.argmax(found)])
            break
    if high is None and level > 0:
        powers = 2.0 ** np.arange(-40, 1024)
        found = worthless_at(powers)
        high = float(powers[np.argmax(found)]) if found.any() else None
    if high is None:
        return math.inf
    low = 0.0
    if worthless(low):
        raise UtilityError(argument_message(
            "utility", owner, f"above {level:g} at t = 0 (a run that ends at once is worth "
            "something)", getattr(utility, "name", None) or short(utility)))
    while True:  # u is non-increasing: the first worthless runtime lies in (low, high]
        grid = np.unique(low + (high - low) * np.arange(1, _STEPS) / _STEPS)
        grid = grid[(grid > low) & (grid < high)]
        if not grid.size:
            return high
        found = worthless_at(grid)
        first = int(np.argmax(found)) if found.any() else grid.size
        low = float(grid[first - 1]) if first else low
        high = float(grid[first]) if first < grid.size else high
