"""Utilities u(t): the functions that score a runtime.

The main theorem of the paper (Section 2) says that preferences over runtime
distributions that follow its axioms are those of an expected utility
``E[p(T, kappa)]``, where ``p(0, kappa) = 1``, ``p`` is non-increasing in
``t``, positive before the captime ``kappa`` and zero from it on.  This module holds

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
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
import sympy
from scipy import integrate as scipy_integrate
from scipy import optimize

from ._timing import Deadline as _Deadline
from ._timing import SymbolicTimeout as _SymbolicTimeout
from ._timing import check_timeout as _check_timeout
from ._timing import run_bounded as _run_bounded
from .errors import MaxEntError, NoClosedFormError, UtilityError, argument_message
from ._immutable import Immutable
from .expressions import as_expression
from .scorer import make_scorer
from .symbols import kappa, q, t
from .constraints import _provably
import sympy.stats

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

#: The utility level in :attr:`Utility.inverse_expr` (``t = u^{-1}(y)``).
y = sympy.Symbol("y", positive=True)

# Names of the properties reported by ``check`` (the main theorem of Section
# 2, and its solution-quality version in the appendix); callers match on them.
AT_ZERO = "u(0) = 1"
NON_INCREASING = "non-increasing in t"
POSITIVE = "positive before the captime"
ZERO_AT_CAPTIME = "zero at the captime"
AT_BEST = "p(0, q1) = 1"
NON_DECREASING_Q = "non-decreasing in q"
POSITIVE_Q = "positive before the captime for q > q0"

_SYMBOLIC_SECONDS = 5.0
_SOLVE_SECONDS = 2.0
_VARIABLES = {"t": t, "kappa": kappa, "q": q}


# ---------------------------------------------------------------------------
# Helpers: time-bounded sympy, argument parsing, reading Piecewise pieces
# ---------------------------------------------------------------------------

def _try_symbolic(compute: Callable[[], Any], seconds: float | None) -> Any:
    """``compute()``, or None if sympy fails or runs out of time.

    Bounded on any thread: by SIGALRM on the main thread, otherwise in a
    worker process killed at the limit (see :func:`maxent_util._timing.run_bounded`).
    """
    try:
        return _run_bounded(compute, deadline=_Deadline(seconds))
    except _SymbolicTimeout:
        return None
    except MaxEntError:
        raise
    except Exception:  # sympy signals "cannot do this" with many exception types
        return None


def _complementary_inverse(expr: sympy.Expr) -> sympy.Expr:
    """``erfinv(1 - x)`` as ``erfcinv(x)`` (and ``erfinv(x - 1)`` as ``-erfcinv(x)``).

    For a small level ``x = 2y`` the sum ``1 - 2y`` rounds to 1 in double
    precision and ``erfinv`` returns inf; ``erfcinv(2y)`` keeps every digit
    (the log-normal utility's inverse far in its tail).
    """
    def rewrite(argument: sympy.Expr) -> sympy.Expr:
        for sign in (1, -1):
            rest = sympy.expand(1 - sign * argument)
            if rest.as_coeff_Add()[0] == 0:
                return sign * sympy.erfcinv(rest)
        return sympy.erfinv(argument)

    return expr.replace(sympy.erfinv, rewrite) if expr.has(sympy.erfinv) else expr


def _expression(value: Any, arg: str, owner: str, *, allow_infinity: bool = True) -> sympy.Expr:
    """A number, a sympy expression or a text (read safely) as a real expression.

    Names in a text become plain symbols even when they name a function
    ("gamma*t" is a cost rate gamma; "gamma(t)" is the gamma function).
    """
    if isinstance(value, (float, np.floating)) and np.isfinite(value):
        # sympy prints a Float with 15 digits, so generated code would compare
        # runtimes against a rounded captime; 17 digits round-trip every float.
        expr = sympy.Float(float(value), 15)
        if float(str(expr)) != float(value):
            expr = sympy.Float(repr(float(value)), 17)
        return expr
    if isinstance(value, str) and not value.strip():
        raise UtilityError(argument_message(arg, owner, "a non-empty expression", value))
    expr = as_expression(value, arg=arg, owner=owner, allow_infinity=allow_infinity, error=UtilityError)
    # A user's own Symbol("t") (without our assumptions) means our t.
    renames = {s: _VARIABLES[s.name] for s in expr.free_symbols
               if s.name in _VARIABLES and s != _VARIABLES[s.name]}
    return expr.xreplace(renames) if renames else expr


def _support_pair(support: Any, arg: str, owner: str) -> tuple[sympy.Expr, sympy.Expr]:
    if not (isinstance(support, (tuple, list)) and len(support) == 2):
        raise UtilityError(argument_message(arg, owner, "a pair (lower, upper)", support))
    return (_expression(support[0], arg, owner, allow_infinity=True),
            _expression(support[1], arg, owner, allow_infinity=True))


def _as_parameter(value: Any, arg: str, owner: str, **assumptions: bool) -> sympy.Expr:
    """A numeric argument: a number, a sympy expression or a symbol name string."""
    if isinstance(value, str) and value.strip().isidentifier() and value.strip() not in _VARIABLES:
        return sympy.Symbol(value.strip(), **assumptions)
    expr = _expression(value, arg, owner)
    if expr.free_symbols & {t, q}:
        raise UtilityError(argument_message(
            arg, owner, "a parameter, free of the variables `t` and `q`", value))
    return expr


def _require(expr: sympy.Expr, arg: str, owner: str, requirement: str, value: Any,
             holds: Callable[[sympy.Expr], bool | None]) -> None:
    # Symbolic arguments pass unless the requirement is provably false.
    if holds(expr) is False or (expr.is_number and not expr.is_finite):
        raise UtilityError(argument_message(arg, owner, requirement, value))


def _as_function(value: Any, arg: str, owner: str, *, variables: tuple[sympy.Symbol, ...],
                 description: str) -> sympy.Expr:
    """An expression in ``variables`` (and parameters) for a cost, value, ...

    An expression with free symbols but none of ``variables`` is taken to be
    written in the wrong variable (``R(x)`` for ``R(t)``) unless it is a
    single symbol, which reads as a constant amount.
    """
    expr = _expression(value, arg, owner)
    wrong = sorted((expr.free_symbols & {t, kappa, q}) - set(variables), key=str)
    parameters = expr.free_symbols - set(variables)
    if wrong or (parameters and not expr.free_symbols & set(variables) and not expr.is_Symbol):
        raise UtilityError(argument_message(arg, owner, description, value))
    return expr


def _upper_bound(condition: Any) -> sympy.Expr | None:
    """``b`` for a condition ``t < b`` / ``t <= b`` (possibly ``And``-ed with a lower bound)."""
    if condition is sympy.true:
        return sympy.oo
    parts = condition.args if isinstance(condition, sympy.And) else (condition,)
    bounds = [part.gts for part in parts
              if isinstance(part, (sympy.StrictLessThan, sympy.LessThan, sympy.StrictGreaterThan,
                                   sympy.GreaterThan)) and part.lts == t and not part.gts.has(t)]
    others = [part for part in parts
              if not (isinstance(part, sympy.core.relational.Relational) and t in (part.lts, part.gts)
                      and part.lts != part.gts)]
    if len(bounds) != 1 or others:
        return None
    return bounds[0]


def _pieces(expr: sympy.Expr) -> list[tuple[sympy.Expr, sympy.Expr, sympy.Expr]] | None:
    """``[(start, end, expression), ...]`` for a utility ordered by increasing ``t``.

    None when the Piecewise is not of the form ``(e1, t < b1), (e2, t < b2),
    ..., (en, True)``.
    """
    if expr.has(sympy.Max, sympy.Min):
        # sympy writes integrals over a support as Max(kappa0, t); pieces are easier to solve.
        expr = sympy.piecewise_fold(expr.rewrite(sympy.Piecewise))
    if not isinstance(expr, sympy.Piecewise):
        return [(sympy.Integer(0), sympy.oo, expr)]
    pieces, start = [], sympy.Integer(0)
    for piece, condition in expr.args:
        end = _upper_bound(condition)
        if end is None:
            return None
        pieces.append((start, end, piece))
        start = end
        if end == sympy.oo:
            break
    return pieces if start == sympy.oo else None


def _captime(pieces: list[tuple[sympy.Expr, sympy.Expr, sympy.Expr]]) -> sympy.Expr:
    """Start of the first piece that is identically zero (infinity if none)."""
    for start, _, piece in pieces:
        if piece == 0:
            return start
    return sympy.oo


def _is_zero(expr: sympy.Expr | None) -> bool | None:
    """Whether ``expr`` is 0; for a number, to within float rounding."""
    if expr is None:
        return None
    if expr.is_number and expr.is_finite:
        value = complex(expr)
        return abs(value) <= 1e-12
    return expr.is_zero


def _as_float(value: Any) -> float | None:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number


def _time_grid(scales: list[float]) -> np.ndarray:
    """A dense log-spaced grid of runtimes, refined on both sides of each breakpoint."""
    positive = [s for s in scales if np.isfinite(s) and s > 0]
    scale = max(positive) if positive else 1.0
    parts = [np.zeros(1), scale * np.logspace(-9, 9, 1801)]
    for point in positive:
        offsets = np.logspace(-12, -1, 23)
        parts += [np.array([point]), point * (1 - offsets), point * (1 + offsets)]
    return np.unique(np.concatenate(parts))


# ---------------------------------------------------------------------------
# The report of ``check``
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class PropertyCheck:
    """One property of the main theorem: ``holds`` is True, False or None (undecided)."""

    name: str
    holds: bool | None
    detail: str = ""


@dataclass(frozen=True)
class UtilityCheck:
    """What :meth:`Utility.check` found; truthy when every property holds."""

    utility: str
    properties: tuple[PropertyCheck, ...]

    def __bool__(self) -> bool:
        return all(item.holds is True for item in self.properties)

    @property
    def failures(self) -> tuple[str, ...]:
        """Names of the properties that provably fail."""
        return tuple(item.name for item in self.properties if item.holds is False)

    def __getitem__(self, name: str) -> PropertyCheck:
        for item in self.properties:
            if item.name == name:
                return item
        raise KeyError(name)

    def __str__(self) -> str:
        marks = {True: "pass", False: "FAIL", None: "undecided"}
        lines = [f"check of {self.utility}:"]
        for item in self.properties:
            detail = f" ({item.detail})" if item.detail else ""
            lines.append(f"  [{marks[item.holds]}] {item.name}{detail}")
        return "\n".join(lines)


# ---------------------------------------------------------------------------
# Utility
# ---------------------------------------------------------------------------

_NOT_SOLVED = object()


class Utility(Immutable):
    """A utility of a runtime ``t`` (and optionally of a quality ``q``).

    Parameters
    ----------
    expr : sympy expression in :data:`maxent_util.t` (and :data:`maxent_util.q`).
    name : optional display name.

    Examples
    --------
    >>> from maxent_util import t
    >>> u = Utility(sympy.exp(-t / 2), name="exponential")
    >>> u.inverse_expr
    -2*log(y)
    >>> u.inverse_method
    'closed form'
    """

    def __init__(self, expr: Any, *, name: str | None = None) -> None:
        expr = _expression(expr, "expr", type(self).__name__, allow_infinity=True)
        # A parsed "exp(-t)" or a user's Symbol("t") means the library's t (and q).
        renames = {s: {"t": t, "q": q}[s.name] for s in expr.free_symbols
                   if s.name in ("t", "q") and s not in (t, q)}
        self.expr = expr.xreplace(renames) if renames else expr
        self.name = name
        self._scorer = None
        self._inverse_expr: Any = _NOT_SOLVED
        self._inverse_function: Callable | None = None

    @property
    def variables(self) -> tuple[sympy.Symbol, ...]:
        return (t, q) if q in self.expr.free_symbols else (t,)

    @property
    def parameters(self) -> tuple[sympy.Symbol, ...]:
        """Free symbols other than ``t`` and ``q``, sorted by name."""
        free = self.expr.free_symbols - {t, q}
        return tuple(sorted(free, key=lambda s: s.name))

    # -- substitution --------------------------------------------------------
    def _mapping(self, values: dict[str, Any], owner: str) -> dict[sympy.Symbol, sympy.Expr]:
        by_name = {s.name: s for s in self.parameters}
        for name in values:
            if name not in by_name:
                known = ", ".join(by_name) or "none"
                raise UtilityError(argument_message(
                    name, owner, "one of the utility's parameters", values[name],
                    remedy=f"Known parameters: {known}."))
        return {by_name[name]: _expression(value, name, owner) for name, value in values.items()}

    _not_compared = frozenset({"distribution"})

    def with_name(self, name: str | None) -> "Utility":
        """The same utility under another display name (utilities are immutable)."""
        return self._evolve(name=name)

    def _substituted(self, mapping: dict[sympy.Symbol, sympy.Expr]) -> "Utility":
        new = self._evolve(expr=self.expr.subs(mapping))
        new._scorer = None
        new._inverse_function = None
        if self._inverse_expr is _NOT_SOLVED or self._inverse_expr is None:
            new._inverse_expr = _NOT_SOLVED
        else:
            new._inverse_expr = self._inverse_expr.subs(mapping)
        distribution = getattr(self, "distribution", None)
        if distribution is not None and hasattr(distribution, "subs"):
            own = {s.name: v for s, v in mapping.items()
                   if s.name in {p.name for p in getattr(distribution, "parameters", ())}}
            new = new._evolve(distribution=distribution.subs(**own) if own else distribution)
        return new

    def subs(self, **values: Any) -> "Utility":
        """The utility with numbers (or expressions) for some of its parameters.

        Raises
        ------
        UtilityError
            For a name that is not one of :attr:`parameters`.
        """
        return self._substituted(self._mapping(values, "Utility.subs"))

    # -- evaluation ------------------------------------------------------------
    def __call__(self, runtimes: Any, *args: Any, **params: Any):
        if self._scorer is None:
            self._scorer = make_scorer(self)
        return self._scorer(runtimes, *args, **params)

    def _values(self, runtimes: np.ndarray) -> np.ndarray:
        return np.asarray(self(runtimes), dtype=float)

    def _breakpoints(self) -> list[float]:
        pieces = _pieces(self.expr) or []
        points = [_as_float(end) for _, end, _ in pieces]
        return [p for p in points if p is not None]

    def _require_numeric(self, owner: str) -> None:
        if self.parameters:
            names = ", ".join(s.name for s in self.parameters)
            raise UtilityError(argument_message(
                "values", owner, f"numbers for the parameters {names}", {},
                remedy=f"Pass them as keywords, e.g. {owner}(..., {self.parameters[0].name}=1.0)."))

    # -- inverse -----------------------------------------------------------------
    @property
    def inverse_expr(self) -> sympy.Expr | None:
        """``u^{-1}(y)`` as a sympy expression in :data:`y`, or None without a closed form.

        Solved once per piece of a Piecewise and cached.
        """
        if self._inverse_expr is _NOT_SOLVED:
            self._inverse_expr = self._solve_inverse()
        return self._inverse_expr

    @property
    def inverse_method(self) -> str:
        """``"closed form"`` or ``"numerical"``: the route :meth:`inverse` takes."""
        return "closed form" if self.inverse_expr is not None else "numerical"

    def _solve_inverse(self) -> sympy.Expr | None:
        if self.expr.has(sympy.Integral) or q in self.expr.free_symbols:
            return None
        pieces = _pieces(self.expr)
        if pieces is None:
            return None
        branches = []
        for start, end, piece in pieces:
            if piece == 0:
                continue  # y > 0 never falls here
            if not piece.has(t):
                branches.append((start, sympy.Eq(y, piece)))
                continue
            solutions = _try_symbolic(lambda: sympy.solve(sympy.Eq(piece, y), t), _SOLVE_SECONDS)
            if not solutions:
                return None
            # y = 1 / (1 + z) with z > 0 spans (0, 1), so sympy can see a root's sign.
            inside = sympy.Dummy("z", positive=True)
            solutions = [s for s in solutions if not s.has(sympy.I) and not _try_symbolic(
                lambda: s.subs(y, 1 / (1 + inside)).is_negative, _SOLVE_SECONDS)]
            if len(solutions) != 1:
                return None
            solutions = [_complementary_inverse(solutions[0])]
            direction = "-" if end != sympy.oo else "+"
            below = _try_symbolic(lambda: sympy.limit(piece, t, end, direction), _SOLVE_SECONDS)
            if below is None or below.has(sympy.Limit):
                return None
            branches.append((solutions[0], y > below))
        branches.append((sympy.nan, True))
        return sympy.Piecewise(*branches)

    def inverse(self, y: Any, **values: Any) -> Any:
        """The runtime ``t`` at which the utility falls to ``y``: ``u(t) = y``.

        Uses :attr:`inverse_expr` when sympy solved ``u(t) = y`` in closed
        form, otherwise brentq on the scorer (bracketed by doubling).  For a
        utility that is flat at ``y`` the earliest such time is meant;
        ``inverse(1) = 0``.  This is the ``u^{-1}`` of the estimation theorem of
        the paper's Section 4.

        Parameters
        ----------
        y : float or array of floats in (0, 1], values the utility takes.
        **values : numbers for the utility's parameters.

        Returns
        -------
        float or ndarray of the shape of ``y``.

        Raises
        ------
        UtilityError
            For a level outside (0, 1] or one the utility jumps over.
        """
        if values:
            return self.subs(**values).inverse(y)
        owner = "Utility.inverse"
        self._require_numeric(owner)
        try:
            levels = np.asarray(y, dtype=float)
        except (TypeError, ValueError) as error:
            raise UtilityError(argument_message("y", owner, "a number or array of numbers in (0, 1]",
                                                y)) from error
        bad = ~((levels > 0) & (levels <= 1))
        if bad.any():
            raise UtilityError(argument_message("y", owner, "in (0, 1]", float(levels[bad].flat[0])))
        flat = levels.ravel()
        times = np.zeros_like(flat)
        below_one = flat < 1
        if below_one.any():
            wanted = flat[below_one]
            found = (self._inverse_closed_form(wanted) if self.inverse_expr is not None
                     else self._inverse_numerical(wanted))
            self._verify_inverse(wanted, found)
            times[below_one] = found
        times = times.reshape(levels.shape)
        return float(times) if times.ndim == 0 else times

    def _inverse_closed_form(self, levels: np.ndarray) -> np.ndarray:
        if self._inverse_function is None:
            self._inverse_function = sympy.lambdify(y, self.inverse_expr, modules=["scipy", "numpy"])
        with np.errstate(all="ignore"):
            return np.broadcast_to(np.asarray(self._inverse_function(levels), dtype=float),
                                   levels.shape).copy()

    def _inverse_numerical(self, levels: np.ndarray) -> np.ndarray:
        unique, index = np.unique(levels, return_inverse=True)
        scale = max([b for b in self._breakpoints() if 0 < b < np.inf] or [1.0])
        low, high = np.zeros_like(unique), np.full_like(unique, scale)
        with np.errstate(all="ignore"):
            while True:
                above = self._values(high) > unique
                if not above.any() or np.isinf(high[above]).all():
                    break
                low[above], high[above] = high[above], high[above] * 2
        found = np.full_like(unique, np.nan)
        for i, (level, a, b) in enumerate(zip(unique, low, high)):
            if not np.isfinite(b):
                continue  # the utility stays above this level: reported by the caller
            gap = lambda s, level=level: float(self._values(np.array([s]))[0]) - level
            try:
                found[i] = b if gap(b) == 0 else optimize.brentq(
                    gap, a, b, xtol=1e-14 * max(b, 1.0), rtol=4 * np.finfo(float).eps)
            except ValueError:  # NaN utilities: no sign change to follow
                continue
        return found[index]

    def _verify_inverse(self, levels: np.ndarray, times: np.ndarray) -> None:
        with np.errstate(all="ignore"):
            reached = self._values(np.where(np.isfinite(times), times, 0.0))
        wrong = ~np.isfinite(times) | ~(np.abs(reached - levels) <= 1e-4 * levels + 1e-13)
        if wrong.any():
            i = int(np.flatnonzero(wrong)[0])
            # A closed form gives NaN off its range; bisection finds where u passes the level.
            near = float(self._inverse_numerical(levels[i:i + 1])[0])
            where = (f"u jumps past it near t = {near:.6g}" if np.isfinite(near)
                     else "u stays above it for every finite t")
            raise UtilityError(argument_message(
                "y", "Utility.inverse", "a value the utility takes", float(levels[i]),
                remedy=f"{where}."))

    # -- the shape the main theorem gives -------------------------------------------
    def check(self, *, raise_on_failure: bool = False, **values: Any) -> UtilityCheck:
        """Check the shape the paper's main theorem (Section 2) gives every utility.

        ``u(0) = 1``; non-increasing in ``t``; positive before the captime
        (the start of the first piece that is identically 0, or infinity);
        zero from the captime on, or tending to 0 as ``t -> oo``.  ``u(0)``
        and the limit are checked symbolically; monotonicity and positivity
        on a dense log-spaced grid of runtimes (symbolically, piece by piece,
        when parameters are left free; undecided properties report None).

        Parameters
        ----------
        raise_on_failure : raise instead of returning a failing report.
        **values : numbers for the utility's parameters.

        Raises
        ------
        UtilityError
            With ``raise_on_failure=True``, naming the first property that fails.

        Examples
        --------
        >>> from maxent_util import t
        >>> bool(Utility(sympy.exp(-t)).check())
        True
        """
        if values:
            return self.subs(**values).check(raise_on_failure=raise_on_failure)
        report = UtilityCheck(repr(self), tuple(self._check_properties()))
        if raise_on_failure and report.failures:
            failing = report[report.failures[0]]
            raise UtilityError(argument_message(
                "expr", "Utility.check", f"such that '{failing.name}' holds (main theorem, Section 2)",
                str(self.expr), remedy=failing.detail or None))
        return report

    def _check_properties(self) -> list[PropertyCheck]:
        if q in self.expr.free_symbols:
            raise UtilityError(argument_message(
                "expr", "Utility.check", "a utility of t alone", str(self.expr),
                remedy="Build utilities of t and q with quality_utility(p, q0, q1)."))
        pieces = _pieces(self.expr)
        numeric = not self.parameters
        grid = values = None
        if numeric:
            grid = _time_grid(self._breakpoints())
            with np.errstate(all="ignore"):
                values = self._values(grid)
        return [self._check_at_zero(values),
                self._check_non_increasing(pieces, grid, values),
                self._check_positive(pieces, grid, values),
                self._check_zero_at_captime(pieces, grid, values)]

    def _check_at_zero(self, values: np.ndarray | None) -> PropertyCheck:
        at_zero = None
        if not self.expr.has(sympy.Integral):
            at_zero = _try_symbolic(lambda: self.expr.subs(t, 0), _SOLVE_SECONDS)
            if at_zero is not None and at_zero.has(sympy.nan, sympy.zoo, sympy.Piecewise):
                at_zero = _try_symbolic(lambda: sympy.limit(self.expr, t, 0, "+"), _SOLVE_SECONDS)
        if at_zero is not None and not at_zero.has(sympy.Limit):
            difference = _is_zero(_try_symbolic(lambda: sympy.simplify(at_zero - 1), _SOLVE_SECONDS))
            if difference is not None:
                return PropertyCheck(AT_ZERO, difference, f"u(0) = {at_zero}")
        if values is not None:
            holds = bool(abs(values[0] - 1) <= 1e-9)
            return PropertyCheck(AT_ZERO, holds, f"u(0) = {values[0]:.12g} numerically")
        return PropertyCheck(AT_ZERO, None, "undecided for symbolic parameters")

    def _check_non_increasing(self, pieces, grid, values) -> PropertyCheck:
        if values is not None:
            rises = np.flatnonzero(np.diff(values) > 1e-9)
            if rises.size:
                i = int(rises[0])
                return PropertyCheck(NON_INCREASING, False,
                                     f"u rises from {values[i]:.12g} at t = {grid[i]:.6g} "
                                     f"to {values[i + 1]:.12g} at t = {grid[i + 1]:.6g}")
            if np.isnan(values).any():
                return PropertyCheck(NON_INCREASING, False,
                                     f"u is not a number at t = {grid[np.isnan(values)][0]:.6g}")
            return PropertyCheck(NON_INCREASING, True, f"on {grid.size} runtimes")
        if pieces is None or self.expr.has(sympy.Integral):
            return PropertyCheck(NON_INCREASING, None, "undecided for symbolic parameters")
        verdicts = []
        for (start, end, piece), following in zip(pieces, pieces[1:] + [None]):
            slope = _try_symbolic(lambda: sympy.simplify(sympy.diff(piece, t)), _SOLVE_SECONDS)
            verdicts.append(None if slope is None else slope.is_nonpositive)
            if following is not None:
                drop = _try_symbolic(
                    lambda: sympy.simplify((piece - following[2]).subs(t, end)), _SOLVE_SECONDS)
                verdicts.append(None if drop is None else drop.is_nonnegative)
        if False in verdicts:
            return PropertyCheck(NON_INCREASING, False,
                                 "a piece rises (or jumps up) for these parameters")
        if all(verdicts):
            return PropertyCheck(NON_INCREASING, True, "piece by piece, symbolically")
        return PropertyCheck(NON_INCREASING, None, "undecided for symbolic parameters")

    def _check_positive(self, pieces, grid, values) -> PropertyCheck:
        captime = _captime(pieces) if pieces is not None else sympy.oo
        if values is not None:
            end = _as_float(captime)
            if end is None:
                return PropertyCheck(POSITIVE, None, f"captime {captime} is not a number")
            before = grid < end
            failing = np.flatnonzero(before & ~(values > 0))
            # Floats underflow to 0 far in a tail, sympy's evalf does not.  For a
            # non-increasing u, u > 0 at the last of these points covers the others.
            for i in sorted({int(failing[0]), int(failing[-1])}) if failing.size else ():
                exact = _try_symbolic(lambda: self.expr.subs(t, sympy.Float(grid[i], 30)).evalf(30),
                                      _SOLVE_SECONDS)
                if exact is None or not exact.is_positive:
                    return PropertyCheck(POSITIVE, False, f"u({grid[i]:.6g}) = {values[i]:.6g} "
                                                          f"before the captime {end:.6g}")
            return PropertyCheck(POSITIVE, True, f"captime {end:.6g}")
        if pieces is None or self.expr.has(sympy.Integral):
            return PropertyCheck(POSITIVE, None, "undecided for symbolic parameters")
        fraction = sympy.Dummy("w", positive=True)
        verdicts = []
        for start, end, piece in pieces:
            if piece == 0:
                break
            # t = end - (end - start) w with 0 < w <= 1, or start + w on an infinite piece.
            inside = start + fraction if end == sympy.oo else end - (end - start) * fraction
            verdicts.append(_try_symbolic(lambda: sympy.simplify(piece.subs(t, inside)).is_positive,
                                          _SOLVE_SECONDS))
        if False in verdicts:
            return PropertyCheck(POSITIVE, False, "a piece is not positive for these parameters")
        if verdicts and all(verdicts):
            return PropertyCheck(POSITIVE, True, f"captime {captime}")
        return PropertyCheck(POSITIVE, None, "undecided for symbolic parameters")

    def _check_zero_at_captime(self, pieces, grid, values) -> PropertyCheck:
        if pieces is not None:
            captime = _captime(pieces)
            if captime != sympy.oo:
                first_zero = [piece for _, _, piece in pieces].index(0)
                later = [piece for _, _, piece in pieces[first_zero + 1:] if piece != 0]
                if later:
                    return PropertyCheck(ZERO_AT_CAPTIME, False,
                                         f"u is 0 from t = {captime} but rises again to {later[0]}")
                return PropertyCheck(ZERO_AT_CAPTIME, True, f"u = 0 from t = {captime} on")
        limit = None
        if not self.expr.has(sympy.Integral):
            tail = pieces[-1][2] if pieces is not None else self.expr  # the piece reaching oo
            limit = _try_symbolic(lambda: sympy.limit(tail, t, sympy.oo), _SYMBOLIC_SECONDS)
        if limit is not None and not limit.has(sympy.Limit) and _is_zero(limit) is not None:
            return PropertyCheck(ZERO_AT_CAPTIME, _is_zero(limit), f"limit of u as t -> oo is {limit}")
        if values is not None:
            last = float(values[-1])
            at_end = f"u({grid[-1]:.3g}) = {last:.3g}"
            if abs(last) <= 1e-6:
                return PropertyCheck(ZERO_AT_CAPTIME, True, f"numerically, {at_end}")
            return PropertyCheck(ZERO_AT_CAPTIME, None, f"no captime found; {at_end}")
        return PropertyCheck(ZERO_AT_CAPTIME, None, "undecided for symbolic parameters")

    # -- display -----------------------------------------------------------------
    def latex(self) -> str:
        return sympy.latex(self.expr)

    def _repr_latex_(self) -> str:
        return f"$u(t) = {self.latex()}$"

    def __repr__(self) -> str:
        label = f"{self.name}: " if self.name else ""
        return f"Utility({label}{self.expr})"


# ---------------------------------------------------------------------------
# Known captime: the examples of Section 3.1
# ---------------------------------------------------------------------------

def _captime_parameter(kappa0: Any, owner: str) -> sympy.Expr:
    captime = _as_parameter(kappa0, "kappa0", owner, positive=True)
    _require(captime, "kappa0", owner, "a positive, finite captime", kappa0, lambda e: e.is_positive)
    return captime


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
    end = _as_float(kappa0)
    if end is not None and not (numerator.free_symbols | denominator.free_symbols) - {t}:
        grid = end * np.concatenate([np.linspace(0, 1, 1001, endpoint=False),
                                     1 - np.logspace(-12, -3, 10)])
        ratio = sympy.lambdify(t, numerator / denominator, modules=["scipy", "numpy"])
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
    kappa0 : the known captime (positive): a number, a sympy expression or a
        symbol name.

    Examples
    --------
    >>> step(60).expr
    Piecewise((1, t < 60), (0, True))
    """
    owner = "step"
    captime = _captime_parameter(kappa0, owner)
    return Utility(sympy.Piecewise((1, t < captime), (0, True)), name="step")


def linear_compute(kappa0: Any, cost_per_second: Any, value: Any) -> Utility:
    """Linear utility for compute time under a known captime.

    Section 3, Example "Known captime, linear utility for compute time": we
    pay ``a = cost_per_second`` per second and earn ``v = value`` on solving.

    .. math:: p(t) = \\frac{v + a (\\kappa_0 - t)}{v + a \\kappa_0}
              \\text{ if } t < \\kappa_0, \\; 0 \\text{ otherwise.}

    Parameters
    ----------
    kappa0 : the known captime (positive).
    cost_per_second : ``a >= 0``, dollars per second of compute.
    value : ``v >= 0``, dollars earned by solving; ``a kappa0 + v`` must be
        positive.  Each may be a number, a sympy expression or a symbol name.

    Examples
    --------
    >>> linear_compute(10, 1, 5).expr
    Piecewise((1 - t/15, t < 10), (0, True))
    """
    owner = "linear_compute"
    captime = _captime_parameter(kappa0, owner)
    rate = _as_parameter(cost_per_second, "cost_per_second", owner, nonnegative=True)
    worth = _as_parameter(value, "value", owner, nonnegative=True)
    _require(rate, "cost_per_second", owner, "nonnegative", cost_per_second, lambda e: e.is_nonnegative)
    _require(worth, "value", owner, "nonnegative", value, lambda e: e.is_nonnegative)
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
    kappa0 : the known captime.
    cost, revenue : sympy expressions (or strings) in ``t``; a number or a
        single symbol is a constant amount.

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
    captime = _captime_parameter(kappa0, owner)
    requirement = "an expression in `t` (or a constant)"
    paid = _as_function(cost, "cost", owner, variables=(t,), description=requirement)
    earned = _as_function(revenue, "revenue", owner, variables=(t,), description=requirement)
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
    kappa0 : the known captime.
    V : expression in ``t`` and :data:`~maxent_util.kappa` (either may be absent).
    W : expression in :data:`~maxent_util.kappa` (or a constant).

    Examples
    --------
    >>> from maxent_util import kappa, t
    >>> general(10, 5 - t, kappa).expr   # linear compute with a = 1, v = 5
    Piecewise((1 - t/15, t < 10), (0, True))
    """
    owner = "general"
    captime = _captime_parameter(kappa0, owner)
    benefit = _as_function(V, "V", owner, variables=(t, kappa),
                           description="an expression in `t` and `kappa` (or a constant)")
    loss = _as_function(W, "W", owner, variables=(kappa,),
                        description="an expression in `kappa` alone (or a constant)")
    numerator = benefit.subs(kappa, captime) + loss.subs(kappa, captime)
    denominator = benefit.subs({t: 0, kappa: captime}) + loss.subs(kappa, captime)
    return _known_captime(captime, numerator, denominator, owner=owner, name="general",
                          blamed=("V", V), blamed_stake=("W", W))


# ---------------------------------------------------------------------------
# Expected utility over a captime distribution K
# ---------------------------------------------------------------------------

class ExpectedUtility(Utility):
    """``u_K(t) = E_{kappa ~ K}[p(t, kappa)]``, from :func:`expected_utility`.

    Attributes
    ----------
    method : ``"closed form"`` (``expr`` is the integral done by sympy) or
        ``"numerical quadrature"`` (``expr`` is the unevaluated integral and
        calls integrate numerically).
    per_captime : ``p(t, kappa)``, the utility under a known captime ``kappa``.
    captime_pdf, captime_support : the density of ``K`` and its support.
    """

    def __init__(self, expr: Any, *, per_captime: sympy.Expr, captime_pdf: sympy.Expr,
                 captime_support: tuple[sympy.Expr, sympy.Expr], method: str,
                 name: str | None = None) -> None:
        super().__init__(expr, name=name)
        self.per_captime = per_captime
        self.captime_pdf = captime_pdf
        self.captime_support = captime_support
        self.method = method
        self._quadrature_functions: tuple | None = None

    def _substituted(self, mapping: dict[sympy.Symbol, sympy.Expr]) -> "ExpectedUtility":
        new = super()._substituted(mapping)._evolve(
            per_captime=self.per_captime.subs(mapping), captime_pdf=self.captime_pdf.subs(mapping),
            captime_support=tuple(bound.subs(mapping) for bound in self.captime_support))
        new._quadrature_functions = None
        return new

    def __call__(self, runtimes: Any, *args: Any, **params: Any):
        if self.method == "closed form":
            return super().__call__(runtimes, *args, **params)
        if args:
            raise UtilityError(argument_message(
                "args", "ExpectedUtility", "empty (u depends on t alone)", args))
        if params:
            return self.subs(**params)(runtimes)
        self._require_numeric("ExpectedUtility")
        return self._quadrature(runtimes)

    def _quadrature(self, runtimes: Any) -> Any:
        if self._quadrature_functions is None:
            lower, upper = (float(bound) for bound in self.captime_support)
            per_captime = sympy.lambdify((t, kappa), self.per_captime, modules=["scipy", "numpy"])
            pdf = sympy.lambdify(kappa, self.captime_pdf, modules=["scipy", "numpy"])
            self._quadrature_functions = (lower, upper, per_captime, pdf)
        lower, upper, per_captime, pdf = self._quadrature_functions
        times = np.asarray(runtimes, dtype=float)
        result = np.zeros(times.shape)
        result[np.isnan(times)] = np.nan
        # Negative runtimes get the utility at 0, runtimes past the support 0.
        inside = np.isfinite(times) & (times < upper)
        if inside.any():
            unique, index = np.unique(np.maximum(times[inside], 0.0), return_inverse=True)
            start = np.maximum(unique, lower)

            def integrand(x: float) -> np.ndarray:
                if np.isfinite(upper):
                    captimes = start + (upper - start) * x
                    weight = upper - start
                else:
                    captimes = start + x
                    weight = 1.0
                with np.errstate(all="ignore"):
                    values = per_captime(unique, captimes) * pdf(captimes) * weight
                return np.where(np.isfinite(values), values, 0.0)

            end = 1.0 if np.isfinite(upper) else np.inf
            values, _ = scipy_integrate.quad_vec(integrand, 0.0, end, epsabs=1e-12, epsrel=1e-10,
                                                 norm="max", limit=2000)
            result[inside] = np.clip(values, 0.0, 1.0)[index]
        return float(result) if result.ndim == 0 else result

    def __repr__(self) -> str:
        label = f"{self.name}: " if self.name else ""
        return f"ExpectedUtility({label}{self.expr}; {self.method})"


def _strip_captime_condition(p: sympy.Expr) -> sympy.Expr:
    # "p(t, kappa) for t < kappa, 0 otherwise" is implied by integrating over kappa > t.
    if isinstance(p, sympy.Piecewise) and len(p.args) == 2 and p.args[1] == (0, True):
        condition = p.args[0].cond
        if condition in (t < kappa, kappa > t):
            return p.args[0].expr
    return p


def _without_polar(expr: sympy.Expr) -> sympy.Expr | None:
    """``expr`` with sympy's polar numbers resolved, or None if they cannot be.

    sympy's Meijer-G integration leaves ``log(x*exp_polar(I*pi))`` and
    ``Ei(x*exp_polar(I*pi))``, which no printer can evaluate.  For ``x > 0``
    these are ``log(x) + I*pi`` and ``Ei(-x) + I*pi`` (the continuation from
    the upper half plane, as sympy's polar numbers mean); the imaginary parts
    cancel in a real integral.  What is left complex or polar is refused.
    """
    half_turn = sympy.exp_polar(sympy.I * sympy.pi)

    def through_half_turn(func: Any) -> Callable[[sympy.Expr], sympy.Expr]:
        def rewrite(argument: sympy.Expr) -> sympy.Expr:
            factors = sympy.Mul.make_args(argument)
            if half_turn not in factors:
                return func(argument)
            rest = sympy.Mul(*[f for f in factors if f != half_turn])
            if rest.is_positive is not True:
                return func(argument)
            return func(-rest) + sympy.I * sympy.pi if func is sympy.Ei else sympy.log(rest) + sympy.I * sympy.pi
        return rewrite

    if expr.has(sympy.exp_polar):
        expr = expr.replace(sympy.log, through_half_turn(sympy.log)).replace(sympy.Ei, through_half_turn(sympy.Ei))
        # expanding cancels the I*pi pair and the log terms sympy's form keeps apart, which
        # would otherwise cancel catastrophically in floating point at large t
        expr = sympy.expand(sympy.unpolarify(expr))
    else:
        expr = sympy.unpolarify(expr)
    if expr.has(sympy.exp_polar, sympy.I, sympy.polar_lift):
        return None
    return expr


def _closed_form_expectation(p: sympy.Expr, pdf: sympy.Expr, upper: sympy.Expr) -> sympy.Expr | None:
    # A positive stand-in for t keeps sympy from splitting off the t = 0 case.
    runtime = sympy.Dummy("tau", positive=True)
    result = sympy.integrate(p.subs(t, runtime) * pdf, (kappa, runtime, upper), conds="none")
    if result.has(sympy.Integral):
        return None
    result = _without_polar(result)
    if result is None:
        return None  # a branch sympy left complex: quadrature instead
    result = result.subs(runtime, t)
    if upper != sympy.oo:
        result = sympy.Piecewise((result, t < upper), (0, True))
    at_zero = result.subs(t, 0)
    if at_zero.has(sympy.nan, sympy.zoo) or at_zero.is_finite is False:
        # The integral of p(0, kappa) = 1 against the density.
        result = sympy.Piecewise((1, sympy.Eq(t, 0)), (result, True))
    return result


def expected_utility(p: Any, K: Any, *, method: str = "auto",
                     timeout: float = _SYMBOLIC_SECONDS) -> ExpectedUtility:
    """The utility of a captime distribution ``K``: ``u_K(t) = E_{kappa ~ K}[p(t, kappa)]``.

    The main theorem (Section 2) with an uncertain captime; the paper's
    summary table calls for "numerical methods" here, and sympy does the
    integral when it can.
    Since ``p(t, kappa) = 0`` for ``t >= kappa``,

    .. math:: u_K(t) = \\int_{\\max(t, \\ell)}^{h} p(t, \\kappa) f_K(\\kappa) \\, d\\kappa

    on the support ``[l, h]`` of ``K``.

    Parameters
    ----------
    p : sympy expression (or string) in ``t`` and ``kappa``, the utility
        under a known captime ``kappa`` for ``t < kappa`` (a Piecewise
        ``(p, t < kappa), (0, True)`` is accepted too).  ``p = 1`` gives
        ``1 - F_K(t)`` (Example "Unknown captime, step-function utility").
    K : a captime distribution with ``.pdf`` (sympy in ``kappa``, zero off
        its support) and ``.support`` ``(lower, upper)``, such as the
        result of :func:`maxent_util.derive`.
    method : ``"auto"`` (closed form if sympy finds one within ``timeout``
        seconds, else numerical quadrature), ``"closed form"`` or
        ``"numerical"``.
    timeout : seconds allowed for the symbolic integral, or None for no limit
        (positive; zero, negative, NaN and non-numbers are refused).  The
        limit holds on any thread (see :func:`_try_symbolic`).  A closed form
        that sympy leaves with polar numbers (``exp_polar``) is cleaned, or
        abandoned for quadrature when it cannot be.

    Raises
    ------
    UtilityError
        For ``p`` in other variables or with ``p(0, kappa) != 1``, or a ``K``
        without ``pdf`` and ``support``.
    NoClosedFormError
        With ``method="closed form"`` when sympy finds no closed form in time.
    """
    owner = "expected_utility"
    timeout = _check_timeout(timeout, arg="timeout", owner=owner, error=UtilityError)
    methods = ("auto", "closed form", "numerical", "numerical quadrature")
    if method not in methods:
        raise UtilityError(argument_message("method", owner, f"one of {methods}", method))
    if not (hasattr(K, "pdf") and hasattr(K, "support")):
        raise UtilityError(argument_message(
            "K", owner, "a captime distribution with `pdf` and `support`", K,
            remedy="Build one with maxent_util.derive(...)."))
    per_captime = _strip_captime_condition(_as_function(
        p, "p", owner, variables=(t, kappa), description="an expression in `t` and `kappa`"))
    at_zero = _try_symbolic(lambda: sympy.simplify(per_captime.subs(t, 0) - 1), _SOLVE_SECONDS)
    if _is_zero(at_zero) is False:
        raise UtilityError(argument_message(
            "p", owner, "1 at t = 0 for every captime (main theorem, Section 2)", p,
            remedy=f"p(0, kappa) = {per_captime.subs(t, 0)}."))
    pdf = _expression(K.pdf, "K.pdf", owner)
    lower, upper = _support_pair(K.support, "K.support", owner)
    if not isinstance(pdf, sympy.Piecewise) and (lower != 0 or upper != sympy.oo):
        pdf = sympy.Piecewise((pdf, (kappa >= lower) & (kappa <= upper)), (0, True))

    definition = sympy.Integral(per_captime * pdf, (kappa, sympy.Max(t, lower), upper))
    if upper != sympy.oo:
        definition = sympy.Piecewise((definition, t < upper), (0, True))
    closed = None
    if method in ("auto", "closed form"):
        closed = _try_symbolic(lambda: _closed_form_expectation(per_captime, pdf, upper), timeout)
        if closed is None and method == "closed form":
            raise NoClosedFormError(argument_message(
                "p", owner, "integrable in closed form against K" + ("" if timeout is None else f" within {timeout:g} s"), p,
                remedy='Use method="numerical" (or "auto").'))
    name = getattr(K, "name", None)
    return ExpectedUtility(closed if closed is not None else definition,
                           per_captime=per_captime, captime_pdf=pdf, captime_support=(lower, upper),
                           method="closed form" if closed is not None else "numerical quadrature",
                           name=f"expected utility over {name}" if name else "expected utility")


# ---------------------------------------------------------------------------
# Solution quality (appendix "Extending Our Theory to Solution Quality")
# ---------------------------------------------------------------------------

class QualityUtility(Utility):
    """A utility ``p(t, q)`` of a runtime and a solution quality ``q`` in ``[q0, q1]``.

    Built by :func:`quality_utility`; called as ``u(runtimes, qualities)``.
    """

    def __init__(self, expr: Any, *, q0: Any, q1: Any, name: str | None = None) -> None:
        super().__init__(expr, name=name)
        self.q0 = _expression(q0, "q0", type(self).__name__)
        self.q1 = _expression(q1, "q1", type(self).__name__)

    @property
    def parameters(self) -> tuple[sympy.Symbol, ...]:
        free = (self.expr.free_symbols | self.q0.free_symbols | self.q1.free_symbols) - {t, q}
        return tuple(sorted(free, key=lambda s: s.name))

    def _substituted(self, mapping: dict[sympy.Symbol, sympy.Expr]) -> "QualityUtility":
        return super()._substituted(mapping)._evolve(q0=self.q0.subs(mapping), q1=self.q1.subs(mapping))

    def __call__(self, runtimes: Any, qualities: Any = None, **params: Any):
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
            raise UtilityError(argument_message("q", owner, "numbers", qualities)) from error
        low, high = float(self.q0), float(self.q1)
        outside = ~((levels >= low) & (levels <= high))
        if outside.any():
            raise UtilityError(argument_message(
                "q", owner, f"in [q0, q1] = [{low:g}, {high:g}]", float(levels[outside].flat[0])))
        return super().__call__(runtimes, levels)

    def inverse(self, y: Any, **values: Any) -> Any:
        raise UtilityError(argument_message(
            "utility", "Utility.inverse", "a utility of t alone", self.name or str(self.expr),
            remedy="Fix q first: Utility(u.expr.subs(q, value))."))

    def check(self, *, raise_on_failure: bool = False, **values: Any) -> UtilityCheck:
        """Check the five properties of the appendix's solution-quality theorem.

        ``p(0, q1) = 1``; non-increasing in ``t``; non-decreasing in ``q``;
        positive before the captime for ``q > q0``; zero from the captime on
        (or tending to 0).  ``p(0, q1)`` symbolically, the rest on a grid of
        runtimes and qualities (undecided with symbolic parameters).
        """
        if values:
            return self.subs(**values).check(raise_on_failure=raise_on_failure)
        report = UtilityCheck(repr(self), tuple(self._check_quality_properties()))
        if raise_on_failure and report.failures:
            failing = report[report.failures[0]]
            requirement = f"such that '{failing.name}' holds (solution-quality theorem, appendix)"
            raise UtilityError(argument_message(
                "p", "quality_utility", requirement, str(self.expr), remedy=failing.detail or None))
        return report

    def _check_quality_properties(self) -> list[PropertyCheck]:
        best = self.expr.subs({t: 0, q: self.q1})
        verdict = _is_zero(_try_symbolic(lambda: sympy.simplify(best - 1), _SOLVE_SECONDS))
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
            pieces = _pieces(at_level.expr)
            grid = _time_grid(at_level._breakpoints())
            with np.errstate(all="ignore"):
                values = at_level._values(grid)
            profile = (pieces, grid, values)
            by_time[NON_INCREASING].append((level, at_level._check_non_increasing(*profile)))
            if fraction > 0:
                by_time[POSITIVE_Q].append((level, at_level._check_positive(*profile)))
            by_time[ZERO_AT_CAPTIME].append((level, at_level._check_zero_at_captime(*profile)))
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
        times = _time_grid(self._breakpoints())
        qualities = np.linspace(float(self.q0), float(self.q1), 41)
        grid_t, grid_q = np.meshgrid(times, qualities, indexing="ij")
        with np.errstate(all="ignore"):
            values = np.asarray(self(grid_t, grid_q), dtype=float)
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
    p : sympy expression (or string) in ``t`` and ``q`` (and ``kappa``, then
        with ``kappa0`` for it).
    q0, q1 : the quality interval.
    kappa0 : the known captime, substituted for ``kappa`` in ``p``.

    Raises
    ------
    UtilityError
        For ``q1 <= q0``, ``p`` in other variables, or (with numeric
        parameters) a ``p`` that breaks one of the properties, named.
    """
    owner = "quality_utility"
    low = _as_parameter(q0, "q0", owner, real=True)
    high = _as_parameter(q1, "q1", owner, real=True)
    _require(high - low, "q1", owner, f"greater than q0 = {q0}", q1, lambda e: e.is_positive)
    expr = _as_function(p, "p", owner, variables=(t, q, kappa),
                        description="an expression in `t` and `q` (and `kappa`)")
    if kappa in expr.free_symbols:
        if kappa0 is None:
            raise UtilityError(argument_message(
                "kappa0", owner, "given when p depends on `kappa`", kappa0))
        expr = expr.subs(kappa, _captime_parameter(kappa0, owner))
    utility = QualityUtility(expr, q0=low, q1=high, name=name or "quality")
    utility.check(raise_on_failure=True)
    return utility


def linear_quality(kappa0: Any, q0: Any, q1: Any) -> QualityUtility:
    """An example utility of runtime and quality: linear in both.

    One choice satisfying the appendix's theorem ("Extending Our Theory to
    Solution Quality"), not one the paper derives: the fraction of the
    quality gain achieved, discounted linearly in time up to the captime.

    .. math:: p(t, q) = \\frac{q - q_0}{q_1 - q_0} \\left(1 - \\frac{t}{\\kappa_0}\\right)
              \\text{ if } t < \\kappa_0, \\; 0 \\text{ otherwise.}

    Examples
    --------
    >>> linear_quality(10, 0, 1).expr
    Piecewise((q*(1 - t/10), t < 10), (0, True))
    """
    owner = "linear_quality"
    captime = _captime_parameter(kappa0, owner)
    low = _as_parameter(q0, "q0", owner, real=True)
    high = _as_parameter(q1, "q1", owner, real=True)
    _require(high - low, "q1", owner, f"greater than q0 = {q0}", q1, lambda e: e.is_positive)
    expr = sympy.Piecewise(((q - low) / (high - low) * (1 - t / captime), t < captime), (0, True))
    return quality_utility(expr, low, high, name="linear quality")


# ---------------------------------------------------------------------------
# A captime law known in full
# ---------------------------------------------------------------------------

class KnownCaptime(Immutable):
    """A captime distribution known in full: the middle row of the paper's
    summary table ("known distribution: kappa ~ K").

    Its :meth:`utility` is ``1 - F_K(t)`` (the best algorithm "is most likely
    to solve an instance from K"), and ``expected_utility(p, K)`` takes it for
    a general per-captime utility ``p``.

    Parameters
    ----------
    pdf : sympy expression (or string) in :data:`maxent_util.kappa`.
    support : ``(lower, upper)``; ``upper`` may be ``oo``.
    name : optional display name.

    Examples
    --------
    >>> import sympy.stats
    >>> K = KnownCaptime.from_sympy_stats(sympy.stats.Uniform("K", 10, 20))
    >>> float(K.utility()(15.0))
    0.5
    """

    def __init__(self, pdf: Any, support: tuple[Any, Any], *, name: str | None = None) -> None:
        owner = "KnownCaptime"
        self.pdf = _as_function(pdf, "pdf", owner, variables=(kappa,),
                                description="an expression in `kappa`")
        lower, upper = _support_pair(support, "support", owner)

        if lower.is_number and not lower.is_finite or _provably(lower >= 0) is False:
            raise UtilityError(argument_message(
                "support", owner, "a pair with a finite lower >= 0 (a captime is a duration)", support))
        if _provably(upper > lower) is False:
            raise UtilityError(argument_message("support", owner, "a pair with upper > lower", support))
        self.support = (lower, upper)
        self.name = name

    @classmethod
    def from_sympy_stats(cls, variable: Any, *, name: str | None = None) -> "KnownCaptime":
        """From a continuous ``sympy.stats`` random variable, e.g. ``Uniform("K", 10, 20)``."""
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
        """``u(t) = 1 - F_K(t)`` (Section 3, "Unknown captime, step-function utility")."""
        return expected_utility(sympy.Integer(1), self)

    def __repr__(self) -> str:
        return f"KnownCaptime({self.pdf} on [{self.support[0]}, {self.support[1]}])"
