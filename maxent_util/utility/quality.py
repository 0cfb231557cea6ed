"""Utilities of runtime and solution quality (the paper's appendix).

Appendix "Extending Our Theory to Solution Quality": a utility ``p(t, q)``
of a runtime and a quality ``q`` in ``[q0, q1]``.  :func:`quality_utility`
builds and validates one against the appendix's theorem
(:meth:`QualityUtility.check`, which reuses the checks of a utility of ``t``
in :mod:`.checks` at fixed qualities); :func:`linear_quality` is an example.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import sympy

from ..errors import UtilityError, argument_message
from ..scorer import compile_scorer
from ..symbols import kappa, q, t
from .checks import (AT_BEST, NON_DECREASING_Q, NON_INCREASING, POSITIVE_Q, ZERO_AT_CAPTIME,
                     PropertyCheck, UtilityCheck, check_non_increasing, check_positive,
                     check_zero_at_captime, time_profile)
from .core import Utility, as_function, as_parameter, captime_parameter, expression, require
from .pieces import SOLVE_SECONDS, is_zero, time_grid, try_symbolic


# ---------------------------------------------------------------------------
# Solution quality (appendix "Extending Our Theory to Solution Quality")
# ---------------------------------------------------------------------------

class QualityUtility(Utility):
    """A utility ``p(t, q)`` of a runtime and a solution quality ``q`` in ``[q0, q1]``.

    Built by :func:`quality_utility`; called as ``u(runtimes, qualities)``.
    """

    def __init__(self, expr: Any, *, q0: Any, q1: Any, name: str | None = None) -> None:
        super().__init__(expr, name=name)
        self.q0 = expression(q0, "q0", type(self).__name__)
        self.q1 = expression(q1, "q1", type(self).__name__)

    @property
    def parameters(self) -> tuple[sympy.Symbol, ...]:
        free = (self.expr.free_symbols | self.q0.free_symbols | self.q1.free_symbols) - {t, q}
        return tuple(sorted(free, key=lambda s: s.name))

    def _substituted(self, mapping: dict[sympy.Symbol, sympy.Expr]) -> "QualityUtility":
        return super()._substituted(mapping)._evolve(q0=self.q0.subs(mapping), q1=self.q1.subs(mapping))

    def __call__(self, runtimes: Any, qualities: Any = None, **params: Any) -> float | np.ndarray:
        """The utility of runs, p(t, q), vectorised.

        Parameters
        ----------
        runtimes : float or array_like of float
            The runtimes ``t``.
        qualities : float or array_like of float
            The solution qualities ``q``, each in ``[q0, q1]``; required.
        **params : float
            Values of the parameters by name.

        Returns
        -------
        float or numpy.ndarray
            A float for scalar arguments, else an array of the broadcast shape.

        Raises
        ------
        UtilityError
            If ``qualities`` is missing, not numbers or outside ``[q0, q1]``, parameters
            are left without numbers, or the arguments are refused as by
            :meth:`Utility.__call__`.
        """
        owner = "QualityUtility"
        if params:
            return self.subs(**params)(runtimes, qualities)
        self._require_numeric(owner)
        if qualities is None:
            raise UtilityError(argument_message(
                "qualities", owner, "given: u is called as u(t, q)", None))
        try:
            levels = np.asarray(qualities, dtype=float)
        except (TypeError, ValueError) as error:
            raise UtilityError(argument_message("qualities", owner, "numbers", qualities)) from error
        low, high = float(self.q0), float(self.q1)
        outside = ~((levels >= low) & (levels <= high))
        if outside.any():
            raise UtilityError(argument_message(
                "qualities", owner, f"in [q0, q1] = [{low:g}, {high:g}]", float(levels[outside].flat[0])))
        return super().__call__(runtimes, levels)

    def inverse(self, y: Any, **values: Any) -> Any:
        """Refused: a utility of runtime and quality has no inverse in ``t`` alone.

        Parameters
        ----------
        y : float or array_like of float
            Levels of the utility (not used).
        **values : float
            Numbers for the parameters (not used).

        Returns
        -------
        Any
            Nothing: the call always raises.

        Raises
        ------
        UtilityError
            Always; fix ``q`` first (``Utility(u.expr.subs(q, value))``).
        """
        raise UtilityError(argument_message(
            "utility", "Utility.inverse", "a utility of t alone", self.name or str(self.expr),
            remedy="Fix q first: Utility(u.expr.subs(q, value))."))

    def check(self, *, raise_on_failure: bool = False, **values: Any) -> UtilityCheck:
        """Check the five properties of the appendix's solution-quality theorem.

        ``p(0, q1) = 1``; non-increasing in ``t``; non-decreasing in ``q``;
        positive before the captime for ``q > q0``; zero from the captime on
        (or tending to 0).  ``p(0, q1)`` symbolically, the rest on a grid of
        runtimes and qualities (undecided with symbolic parameters).

        Parameters
        ----------
        raise_on_failure : bool, default False
            Raise instead of returning a failing report.
        **values : float
            Numbers for the utility's parameters.

        Returns
        -------
        UtilityCheck
            One :class:`PropertyCheck` per property; truthy when every property holds.

        Raises
        ------
        UtilityError
            With ``raise_on_failure=True``, naming the first property that fails; or for
            a name in ``values`` that is not a parameter.
        """
        if values:
            return self.subs(**values).check(raise_on_failure=raise_on_failure)
        return self._check(raise_on_failure, "expr", "QualityUtility.check")

    def _check(self, raise_on_failure: bool, arg: str, owner: str) -> UtilityCheck:
        """:meth:`check` without parameters, its error naming ``arg`` of ``owner`` (the public
        caller: ``expr`` of ``QualityUtility.check`` as :meth:`Utility.check` names it, or
        ``p`` of ``quality_utility``)."""
        report = UtilityCheck(repr(self), tuple(self._check_quality_properties()))
        if raise_on_failure and report.failures:
            failing = report[report.failures[0]]
            requirement = f"such that '{failing.name}' holds (solution-quality theorem, appendix)"
            raise UtilityError(argument_message(
                arg, owner, requirement, str(self.expr), remedy=failing.detail or None))
        return report

    def _check_quality_properties(self) -> list[PropertyCheck]:
        best = self.expr.subs({t: 0, q: self.q1})
        verdict = is_zero(try_symbolic(lambda: sympy.simplify(best - 1), SOLVE_SECONDS))
        results = [PropertyCheck(AT_BEST, verdict, f"p(0, q1) = {best}")]
        if self.parameters:
            undecided = "undecided for symbolic parameters"
            return results + [PropertyCheck(name, None, undecided) for name in
                              (NON_INCREASING, NON_DECREASING_Q, POSITIVE_Q, ZERO_AT_CAPTIME)]
        # The t-properties, at a few fixed qualities, with the checks of a utility of t.
        by_time: dict[str, list[tuple[sympy.Expr, PropertyCheck]]] = {
            NON_INCREASING: [], POSITIVE_Q: [], ZERO_AT_CAPTIME: []}
        for fraction in (0, sympy.Rational(1, 4), sympy.Rational(1, 2), sympy.Rational(3, 4), 1):
            level = self.q0 + fraction * (self.q1 - self.q0)
            at_level = Utility(self.expr.subs(q, level))
            profile = time_profile(at_level)
            by_time[NON_INCREASING].append((level, check_non_increasing(at_level.expr, *profile)))
            if fraction > 0:
                by_time[POSITIVE_Q].append((level, check_positive(at_level.expr, *profile)))
            by_time[ZERO_AT_CAPTIME].append((level, check_zero_at_captime(at_level.expr, *profile)))
        for name in (NON_INCREASING, NON_DECREASING_Q, POSITIVE_Q, ZERO_AT_CAPTIME):
            if name == NON_DECREASING_Q:
                results.append(self._check_non_decreasing_in_quality())
                continue
            verdicts = [item.holds for _, item in by_time[name]]
            failing = [(level, item) for level, item in by_time[name] if item.holds is not True]
            holds = False if False in verdicts else (None if None in verdicts else True)
            detail = (f"at q = {failing[0][0]}: {failing[0][1].detail}" if failing
                      else "at five qualities")
            results.append(PropertyCheck(name, holds, detail))
        return results

    def _check_non_decreasing_in_quality(self) -> PropertyCheck:
        times = time_grid(self._breakpoints())
        qualities = np.linspace(float(self.q0), float(self.q1), 41)
        grid_t, grid_q = np.meshgrid(times, qualities, indexing="ij")
        with np.errstate(all="ignore"):
            values = np.asarray(compile_scorer(self.expr)(grid_t, grid_q), dtype=float)  # any shape: reported
        falls = np.argwhere(~(np.diff(values, axis=1) >= -1e-9))
        if falls.size:
            i, j = falls[0]
            return PropertyCheck(NON_DECREASING_Q, False,
                                 f"p falls from {values[i, j]:.6g} at q = {qualities[j]:.6g} "
                                 f"to {values[i, j + 1]:.6g} at q = {qualities[j + 1]:.6g} "
                                 f"(t = {times[i]:.6g})")
        return PropertyCheck(NON_DECREASING_Q, True, f"on {values.size} (t, q) pairs")

    def _repr_latex_(self) -> str:
        return f"$u(t, q) = {self.latex()}$"

    def __repr__(self) -> str:
        label = f"{self.name}: " if self.name else ""
        return f"QualityUtility({label}{self.expr}; q in [{self.q0}, {self.q1}])"


def quality_utility(p: Any, q0: Any, q1: Any, *, kappa0: Any = None,
                    name: str | None = None) -> QualityUtility:
    """A utility of runtime and solution quality, validated against the appendix's theorem.

    Appendix "Extending Our Theory to Solution Quality": algorithms return
    pairs ``(t, q)`` with ``q`` in ``[q0, q1]`` (``q0`` the default action's
    quality, ``q1 > q0`` the best); ``p(t, q, kappa)`` must satisfy
    ``p(0, q1) = 1``, be non-increasing in ``t``, non-decreasing in ``q``,
    positive for ``t < kappa`` and ``q > q0``, and 0 at the captime.

    Parameters
    ----------
    p : sympy.Expr, number or str
        The utility, in ``t`` and ``q`` (and ``kappa``, then with ``kappa0`` for it).
    q0, q1 : number, sympy.Expr or str
        The quality interval: the default action's quality and the best one (``q1 > q0``).
    kappa0 : number, sympy.Expr or str, optional, keyword-only
        The known captime (positive), substituted for ``kappa`` in ``p``.
    name : str, optional, keyword-only
        A display name (default ``"quality"``).

    Returns
    -------
    QualityUtility
        The validated utility, called as ``u(runtimes, qualities)``.

    Raises
    ------
    UtilityError
        For ``q1 <= q0``, ``p`` in other variables, a ``p`` in ``kappa`` without
        ``kappa0``, or (with numeric parameters) a ``p`` that breaks one of the
        properties, named.
    """
    owner = "quality_utility"
    low = as_parameter(q0, "q0", owner, real=True)
    high = as_parameter(q1, "q1", owner, real=True)
    require(high - low, "q1", owner, f"greater than q0 = {q0}", q1, lambda e: e.is_positive)
    expr = as_function(p, "p", owner, variables=(t, q, kappa),
                        description="an expression in `t` and `q` (and `kappa`)")
    if kappa in expr.free_symbols:
        if kappa0 is None:
            raise UtilityError(argument_message(
                "kappa0", owner, "given when p depends on `kappa`", kappa0))
        expr = expr.subs(kappa, captime_parameter(kappa0, owner))
    utility = QualityUtility(expr, q0=low, q1=high, name=name or "quality")
    utility._check(True, "p", owner)
    return utility


def linear_quality(kappa0: Any, q0: Any, q1: Any) -> QualityUtility:
    """An example utility of runtime and quality: linear in both.

    One choice satisfying the appendix's theorem ("Extending Our Theory to
    Solution Quality"), not one the paper derives: the fraction of the
    quality gain achieved, discounted linearly in time up to the captime.

    .. math:: p(t, q) = \\frac{q - q_0}{q_1 - q_0} \\left(1 - \\frac{t}{\\kappa_0}\\right)
              \\text{ if } t < \\kappa_0, \\; 0 \\text{ otherwise.}

    Parameters
    ----------
    kappa0 : number, sympy.Expr or str
        The known captime; positive.
    q0, q1 : number, sympy.Expr or str
        The quality interval (``q1 > q0``).

    Returns
    -------
    QualityUtility
        The utility, named ``"linear quality"``.

    Raises
    ------
    UtilityError
        For a captime that is not positive or ``q1 <= q0``.

    Examples
    --------
    >>> linear_quality(10, 0, 1).expr
    Piecewise((q*(1 - t/10), t < 10), (0, True))
    """
    owner = "linear_quality"
    captime = captime_parameter(kappa0, owner)
    low = as_parameter(q0, "q0", owner, real=True)
    high = as_parameter(q1, "q1", owner, real=True)
    require(high - low, "q1", owner, f"greater than q0 = {q0}", q1, lambda e: e.is_positive)
    expr = sympy.Piecewise(((q - low) / (high - low) * (1 - t / captime), t < captime), (0, True))
    return quality_utility(expr, low, high, name="linear quality")
