"""Reading one number the way the whole package does: :func:`real`.

Apart from :mod:`maxent_util.runs` so that a module that needs only this (the process
runner, which an irace target runner imports for every run) does not load pandas.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

__all__ = ["real"]


def real(value: Any) -> float:
    """A real number (not a bool) as a float; NaN for anything else, or beyond the float range."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.number)):
        return math.nan
    try:
        return float(value)
    except (OverflowError, TypeError, ValueError):  # a 400-digit int; a complex number
        return math.nan
