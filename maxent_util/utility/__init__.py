"""Utilities u(t): the functions that score a runtime.

The main theorem of the paper (Section 2) says that preferences over runtime
distributions that follow its axioms are those of an expected utility
``E[p(T, kappa)]``, where ``p(0, kappa) = 1``, ``p`` is non-increasing in
``t``, positive before the captime ``kappa`` and zero from it on.  This package holds

* :class:`Utility`, a sympy expression in :data:`~maxent_util.t` with its
  inverse (:meth:`Utility.inverse`) and a check of the theorem's shape
  (:meth:`Utility.check`);
* the paper's known-captime examples of Section 3 as constructors:
  :func:`step`, :func:`linear_compute`, :func:`capped_runtime`,
  :func:`money` and :func:`general`;
* :func:`expected_utility`, ``u_K(t) = E_{kappa ~ K}[p(t, kappa)]`` for a
  captime distribution ``K`` (the "numerical methods" cells of the paper's
  summary table);
* the appendix's extension to solution quality: :func:`quality_utility` and
  :func:`linear_quality`.

Symbolic work (solving for an inverse, integrating over ``K``) is tried
first, under a time limit, and falls back to numerics when sympy finds no
closed form in time; the object records which route was taken
(:attr:`Utility.inverse_method`, :attr:`ExpectedUtility.method`).

One room per idea, each importing only the rooms below it (the second
import-linter contract in ``pyproject.toml``)::

    known | quality   the known-captime utilities, KnownCaptime | time and solution quality
    expected          the expected utility over a captime distribution K
    core              Utility (expression, subs, call, inverse) and the argument readers
    checks            the main theorem's shape: property names, the report, the checks
    pieces            time-bounded sympy, Piecewise pieces, a grid of runtimes
"""

from __future__ import annotations

# The property names are importable from here, as before, without being in __all__.
from .checks import (AT_BEST, AT_ZERO, NON_DECREASING_Q, NON_INCREASING, POSITIVE,  # noqa: F401
                     POSITIVE_Q, ZERO_AT_CAPTIME, PropertyCheck, UtilityCheck)
from .core import Utility, y
from .expected import ExpectedUtility, expected_utility
from .known import KnownCaptime, capped_runtime, general, linear_compute, money, step
from .quality import QualityUtility, linear_quality, quality_utility

__all__ = [
    "Utility",
    "ExpectedUtility",
    "QualityUtility",
    "UtilityCheck",
    "PropertyCheck",
    "y",
    "step",
    "linear_compute",
    "capped_runtime",
    "money",
    "general",
    "expected_utility",
    "KnownCaptime",
    "quality_utility",
    "linear_quality",
]
