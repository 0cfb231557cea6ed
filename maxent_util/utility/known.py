"""Utilities for a known captime, and a captime law known in full.

The paper's examples of Section 3.1 as constructors (:func:`step`,
:func:`linear_compute`, :func:`capped_runtime`, :func:`money`,
:func:`general`), each ``p(t)`` before the captime ``kappa0`` and 0 after;
and :class:`KnownCaptime`, the middle row of the paper's summary table,
whose utility is the expected utility of :mod:`.expected`.
"""

from __future__ import annotations

from typing import Any

import mpmath
import numpy as np
import sympy

from .._immutable import Immutable
from .._timing import Deadline, SymbolicTimeout, run_bounded
from ..constraints import provably
from ..errors import MaxEntError, UtilityError, argument_message, short
from ..expressions import numpy_modules
from ..symbols import kappa, t
from .core import Utility, as_function, as_parameter, captime_parameter, require, support_pair
from .expected import ExpectedUtility, expected_utility
from .pieces import as_float


# ---------------------------------------------------------------------------
# Known captime: the examples of Section 3.1
# ---------------------------------------------------------------------------

def _known_captime(kappa0: sympy.Expr, numerator: sympy.Expr, denominator: sympy.Expr, *,
                   owner: str, name: str, blamed: tuple[str, Any],
                   blamed_stake: tuple[str, Any]) -> Utility:
    """``numerator / denominator`` before ``kappa0``, 0 after; validated where numeric.

    ``blamed`` names the argument reported when ``p`` goes negative before
    the captime, ``blamed_stake`` the one reported for a denominator (the
    utility at stake) that is not positive.
    """
    if denominator.is_positive is False or (denominator.is_number and not denominator.is_finite):
        raise UtilityError(argument_message(
            blamed_stake[0], owner, "such that the utility at stake (the denominator of p) is positive",
            blamed_stake[1], remedy=f"The denominator is {denominator}."))
    utility = Utility(sympy.Piecewise((numerator / denominator, t < kappa0), (0, True)), name=name)
    end = as_float(kappa0)
    if end is not None and not (numerator.free_symbols | denominator.free_symbols) - {t}:
        grid = end * np.concatenate([np.linspace(0, 1, 1001, endpoint=False),
                                     1 - np.logspace(-12, -3, 10)])
        ratio = sympy.lambdify(t, numerator / denominator, modules=numpy_modules(numerator / denominator))
        with np.errstate(all="ignore"):
            p = np.broadcast_to(np.asarray(ratio(grid), dtype=float), grid.shape)
        failing = np.flatnonzero(~(p >= -1e-12))
        if failing.size:
            i = int(failing[0])
            raise UtilityError(argument_message(
                blamed[0], owner, "such that p(t) is a finite number >= 0 on [0, kappa0)", blamed[1],
                remedy=f"p({grid[i]:.6g}) = {p[i]:.6g}."))
    return utility


def step(kappa0: Any) -> Utility:
    """The step-function utility for a known captime: 1 before ``kappa0``, 0 after.

    Section 3, Example "Known captime, step-function utility": the score is
    ``F_A(kappa0)``, the fraction of runs solved within the captime.

    .. math:: p(t) = 1 \\text{ if } t < \\kappa_0, \\; 0 \\text{ otherwise.}

    Parameters
    ----------
    kappa0 : number, sympy.Expr or str
        The known captime; positive (a name becomes a positive symbol).

    Returns
    -------
    Utility
        The step utility, named ``"step"``.

    Raises
    ------
    UtilityError
        For a captime that is not positive and finite.

    Examples
    --------
    >>> step(60).expr
    Piecewise((1, t < 60), (0, True))
    """
    owner = "step"
    captime = captime_parameter(kappa0, owner)
    return Utility(sympy.Piecewise((1, t < captime), (0, True)), name="step")


def linear_compute(kappa0: Any, cost_per_second: Any, value: Any) -> Utility:
    """Linear utility for compute time under a known captime.

    Section 3, Example "Known captime, linear utility for compute time": we
    pay ``a = cost_per_second`` per second and earn ``v = value`` on solving.

    .. math:: p(t) = \\frac{v + a (\\kappa_0 - t)}{v + a \\kappa_0}
              \\text{ if } t < \\kappa_0, \\; 0 \\text{ otherwise.}

    Parameters
    ----------
    kappa0 : number, sympy.Expr or str
        The known captime; positive (a name becomes a positive symbol).
    cost_per_second : number, sympy.Expr or str
        ``a >= 0``, dollars per second of compute.
    value : number, sympy.Expr or str
        ``v >= 0``, dollars earned by solving; ``a kappa0 + v`` must be positive.

    Returns
    -------
    Utility
        The linear utility, named ``"linear compute"``.

    Raises
    ------
    UtilityError
        For a captime that is not positive, a negative rate or value, or nothing at
        stake (``a kappa0 + v = 0``).

    Examples
    --------
    >>> linear_compute(10, 1, 5).expr
    Piecewise((1 - t/15, t < 10), (0, True))
    """
    owner = "linear_compute"
    captime = captime_parameter(kappa0, owner)
    rate = as_parameter(cost_per_second, "cost_per_second", owner, nonnegative=True)
    worth = as_parameter(value, "value", owner, nonnegative=True)
    require(rate, "cost_per_second", owner, "nonnegative", cost_per_second, lambda e: e.is_nonnegative)
    require(worth, "value", owner, "nonnegative", value, lambda e: e.is_nonnegative)
    return _known_captime(captime, worth + rate * (captime - t), worth + rate * captime,
                          owner=owner, name="linear compute",
                          blamed=("value", value), blamed_stake=("value", value))


def capped_runtime(kappa0: Any) -> Utility:
    """The utility behind capped average runtime: ``1 - t / kappa0`` before ``kappa0``.

    Section 3, after Example "Known captime, linear utility for compute
    time": the capped average runtime (``u = -t``, or ``-kappa0`` for a
    capped run) normalises to the linear-compute utility with value ``v = 0``,
    whatever the cost per second ``a > 0``, since ``a`` cancels:

    .. math:: \\frac{0 + a(\\kappa_0 - t)}{0 + a \\kappa_0} = 1 - \\frac{t}{\\kappa_0}.

    Ranking by capped average runtime thus asserts that solving the problem
    is worth nothing.  (The same line is the uniform-captime utility of
    Section 3.2.)

    Parameters
    ----------
    kappa0 : number, sympy.Expr or str
        The known captime; positive (a name becomes a positive symbol).

    Returns
    -------
    Utility
        ``1 - t/kappa0`` before ``kappa0``, 0 after, named ``"capped runtime"``.

    Raises
    ------
    UtilityError
        For a captime that is not positive and finite.

    Examples
    --------
    >>> capped_runtime(10).expr == linear_compute(10, 1, 0).expr
    True
    """
    return linear_compute(kappa0, 1, 0).with_name("capped runtime")


def money(kappa0: Any, cost: Any, revenue: Any) -> Utility:
    """Linear utility for money under a known captime.

    Section 3, Example "Known captime, linear utility for money": ``C(t)``
    dollars are paid for ``t`` seconds of compute and ``R(t)`` earned for an
    answer found within ``t`` seconds.

    .. math:: p(t) = \\frac{R(t) + C(\\kappa_0) - C(t)}{R(0) + C(\\kappa_0) - C(0)}
              \\text{ if } t < \\kappa_0, \\; 0 \\text{ otherwise.}

    Parameters
    ----------
    kappa0 : number, sympy.Expr or str
        The known captime; positive (a name becomes a positive symbol).
    cost, revenue : sympy.Expr, number or str
        C(t) and R(t), expressions in ``t``; a number or a single symbol is a constant
        amount.

    Returns
    -------
    Utility
        The utility, named ``"money"``.

    Raises
    ------
    UtilityError
        For an expression in another variable, a non-positive amount at
        stake, or (with numeric parameters) a cost that makes ``p`` negative
        before the captime.

    Examples
    --------
    >>> money(10, "t", 20).expr
    Piecewise((1 - t/30, t < 10), (0, True))
    """
    owner = "money"
    captime = captime_parameter(kappa0, owner)
    requirement = "an expression in `t` (or a constant)"
    paid = as_function(cost, "cost", owner, variables=(t,), description=requirement)
    earned = as_function(revenue, "revenue", owner, variables=(t,), description=requirement)
    numerator = earned + paid.subs(t, captime) - paid
    denominator = earned.subs(t, 0) + paid.subs(t, captime) - paid.subs(t, 0)
    return _known_captime(captime, numerator, denominator, owner=owner, name="money",
                          blamed=("cost", cost), blamed_stake=("revenue", revenue))


def general(kappa0: Any, V: Any, W: Any) -> Utility:
    """General utility under a known captime (timeout).

    Section 3, Example "Known timeout, general utility": ``V(t, kappa)`` is
    the benefit of spending ``t`` of the ``kappa`` available seconds to solve
    the problem (``V(0, kappa)`` the benefit of solving it at once) and
    ``W(kappa)`` the loss of wasting ``kappa`` seconds for nothing.

    .. math:: p(t) = \\frac{V(t, \\kappa_0) + W(\\kappa_0)}{V(0, \\kappa_0) + W(\\kappa_0)}
              \\text{ if } t < \\kappa_0, \\; 0 \\text{ otherwise.}

    Parameters
    ----------
    kappa0 : number, sympy.Expr or str
        The known captime; positive (a name becomes a positive symbol).
    V : sympy.Expr, number or str
        V(t, kappa), in ``t`` and :data:`~maxent_util.kappa` (either may be absent).
    W : sympy.Expr, number or str
        W(kappa), in :data:`~maxent_util.kappa` (or a constant).

    Returns
    -------
    Utility
        The utility, named ``"general"``.

    Raises
    ------
    UtilityError
        For an expression in other variables, a captime that is not positive, nothing
        at stake (``V(0, kappa0) + W(kappa0) <= 0``), or (with numeric values) a ``p``
        that goes negative before the captime.

    Examples
    --------
    >>> from maxent_util import kappa, t
    >>> general(10, 5 - t, kappa).expr   # linear compute with a = 1, v = 5
    Piecewise((1 - t/15, t < 10), (0, True))
    """
    owner = "general"
    captime = captime_parameter(kappa0, owner)
    benefit = as_function(V, "V", owner, variables=(t, kappa),
                           description="an expression in `t` and `kappa` (or a constant)")
    loss = as_function(W, "W", owner, variables=(kappa,),
                        description="an expression in `kappa` alone (or a constant)")
    numerator = benefit.subs(kappa, captime) + loss.subs(kappa, captime)
    denominator = benefit.subs({t: 0, kappa: captime}) + loss.subs(kappa, captime)
    return _known_captime(captime, numerator, denominator, owner=owner, name="general",
                          blamed=("V", V), blamed_stake=("W", W))


# ---------------------------------------------------------------------------
# A captime law known in full
# ---------------------------------------------------------------------------

#: how far the mass of a known density may be from 1: exactly (sympy's integral, to 15 digits) and
#: by mpmath's quadrature, whose error on a smooth density is far below it
MASS_TOLERANCE = 1e-9
#: seconds allowed for checking a known density (its integral, its sign on a grid)
DENSITY_CHECK_SECONDS = 10.0


def _check_density(pdf: sympy.Expr, lower: sympy.Expr, upper: sympy.Expr) -> None:
    """Refuse a density with numbers only that is negative somewhere on its support or whose mass
    is not 1 (``exp(-kappa)/2`` on [0, oo) has mass 1/2: every score would be off by half).

    The sign is checked on a grid of the support; the mass is sympy's integral where sympy finds
    it within the time limit, else mpmath's quadrature; both must be 1 within
    :data:`MASS_TOLERANCE`.  The whole check runs within :data:`DENSITY_CHECK_SECONDS`.  A density
    with symbolic parameters is not checked (its mass may be 1 for the values it will get).
    """
    if pdf.free_symbols - {kappa} or lower.free_symbols or upper.free_symbols:
        return
    try:
        problem = run_bounded(_density_problem, pdf, lower, upper, deadline=Deadline(DENSITY_CHECK_SECONDS))
    except SymbolicTimeout:
        problem = (f"a density whose mass can be checked within {DENSITY_CHECK_SECONDS:g} s", None)
    except MaxEntError:
        raise
    except Exception as error:  # sympy or mpmath failing on the density: it cannot be checked
        problem = ("a density that can be evaluated on its support", f"({type(error).__name__})")
    if problem is not None:
        requirement, remedy = problem
        raise UtilityError(argument_message("pdf", "KnownCaptime", requirement, short(str(pdf)), remedy))


def _density_problem(pdf: sympy.Expr, lower: sympy.Expr, upper: sympy.Expr) -> tuple[str, str | None] | None:
    """What is wrong with a density (requirement, remedy), or None."""
    low, high = float(lower), float(upper)
    finite_high = high if np.isfinite(high) else max(low, 1.0) * 1e6
    grid = np.unique(np.concatenate([np.linspace(low, finite_high, 2001),
                                     np.geomspace(max(low, 1e-12), max(finite_high, 1e-12), 2001)]))
    grid = grid[(grid >= low) & (grid <= finite_high)]
    density = sympy.lambdify(kappa, pdf, modules=numpy_modules(pdf))
    with np.errstate(all="ignore"):
        values = np.broadcast_to(np.asarray(density(grid), dtype=float), grid.shape)
    negative = np.flatnonzero(values < 0)
    if negative.size:
        i = int(negative[0])
        return ("a density, non-negative on the support",
                f"pdf({grid[i]:.6g}) = {values[i]:.6g}.")
    mass = None
    try:
        exact = sympy.integrate(pdf, (kappa, lower, upper))
        if isinstance(exact, sympy.Expr) and exact.is_number and not exact.has(sympy.Integral):
            mass = complex(exact.evalf(30))
    except (ValueError, TypeError, NotImplementedError, ArithmeticError):
        mass = None
    if mass is None or mass.imag:
        function = sympy.lambdify(kappa, pdf, modules="mpmath")
        with mpmath.workdps(30):
            ends = [mpmath.mpf(low)] + ([mpmath.mpf(finite_high)] if np.isfinite(high) else
                                        [mpmath.mpf(max(low, 1.0)), mpmath.inf])
            mass = complex(mpmath.quad(function, ends))
    if not (abs(mass.imag) <= MASS_TOLERANCE and abs(mass.real - 1) <= MASS_TOLERANCE):
        return ("a density whose integral over the support is 1",
                f"Its integral is {mass.real:.10g}; divide it by that.")
    return None


class KnownCaptime(Immutable):
    """A captime distribution known in full: the middle row of the paper's
    summary table ("known distribution: kappa ~ K").

    Its :meth:`utility` is ``1 - F_K(t)`` (the best algorithm "is most likely
    to solve an instance from K"), and ``expected_utility(p, K)`` takes it for
    a general per-captime utility ``p``.

    Parameters
    ----------
    pdf : sympy.Expr or str
        The density, in :data:`maxent_util.kappa`.
    support : tuple
        ``(lower, upper)`` with ``0 <= lower < upper``; ``upper`` may be ``oo``.
    name : str, optional
        A display name.

    Examples
    --------
    >>> import sympy.stats
    >>> K = KnownCaptime.from_sympy_stats(sympy.stats.Uniform("K", 10, 20))
    >>> float(K.utility()(15.0))
    0.5
    """

    def __init__(self, pdf: Any, support: tuple[Any, Any], *, name: str | None = None) -> None:
        owner = "KnownCaptime"
        self.pdf = as_function(pdf, "pdf", owner, variables=(kappa,),
                                description="an expression in `kappa`")
        lower, upper = support_pair(support, "support", owner)

        if lower.is_number and not lower.is_finite or provably(lower >= 0) is False:
            raise UtilityError(argument_message(
                "support", owner, "a pair with a finite lower >= 0 (a captime is a duration)", support))
        if provably(upper > lower) is False:
            raise UtilityError(argument_message("support", owner, "a pair with upper > lower", support))
        self.support = (lower, upper)
        self.name = name
        _check_density(self.pdf, lower, upper)

    @classmethod
    def from_sympy_stats(cls, variable: Any, *, name: str | None = None) -> "KnownCaptime":
        """From a continuous ``sympy.stats`` random variable, e.g. ``Uniform("K", 10, 20)``.

        Parameters
        ----------
        variable : sympy.stats random variable
            A continuous random variable whose domain is an interval.
        name : str, optional, keyword-only
            A display name (default: the variable's name).

        Returns
        -------
        KnownCaptime
            Its density in ``kappa`` on its interval.

        Raises
        ------
        UtilityError
            If ``variable`` is not a continuous sympy.stats random variable on an interval,
            or its interval is not a captime support.
        """
        import sympy.stats  # (40 ms) only for a variable from it: not with every utility

        try:
            density = sympy.stats.density(variable)(kappa)
            domain = variable.pspace.domain.set
        except (AttributeError, TypeError, ValueError) as error:
            raise UtilityError(argument_message(
                "variable", "KnownCaptime.from_sympy_stats", "a continuous sympy.stats random variable",
                variable)) from error
        if not isinstance(domain, sympy.Interval):
            raise UtilityError(argument_message(
                "variable", "KnownCaptime.from_sympy_stats", "a random variable on an interval", variable))
        return cls(density, (domain.start, domain.end), name=name or str(variable))

    def utility(self) -> "ExpectedUtility":
        """The step-function utility ``u(t) = 1 - F_K(t)``.

        Section 3, "Unknown captime, step-function utility": :func:`expected_utility`
        with ``p = 1``.

        Returns
        -------
        ExpectedUtility
            In closed form when sympy integrates the density in time, else by quadrature.
        """
        return expected_utility(sympy.Integer(1), self)

    def __repr__(self) -> str:
        return f"KnownCaptime({self.pdf} on [{self.support[0]}, {self.support[1]}])"
