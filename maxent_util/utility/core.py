"""A utility u(t) and the readers of its arguments.

:class:`Utility` is a sympy expression in :data:`~maxent_util.t` (and
:data:`~maxent_util.q`) with its inverse (:meth:`Utility.inverse`), its
substitution (:meth:`Utility.subs`) and its call, through the scorer
(:func:`maxent_util.scorer.compile_scorer`).  Its check of the main theorem's
shape (:meth:`Utility.check`) is done in :mod:`.checks`.

The argument readers (:func:`expression`, :func:`as_parameter`,
:func:`as_function`, ...) are shared by the constructors in
:mod:`.known`, :mod:`.expected` and :mod:`.quality`.
"""

from __future__ import annotations

import threading
from typing import Any, Callable

import numpy as np
import sympy
# scipy loads a submodule on first attribute access: `import maxent_util` and the
# command line start without paying for scipy.optimize until it is used
import scipy

from .._immutable import Immutable
from ..errors import UtilityError, argument_message
from ..expressions import as_expression, numpy_modules
from ..problem import kept_by_srepr, number_stand_ins
from ..scorer import compile_scorer, parameters_of, utility_expression
from ..symbols import kappa, q, t
from .checks import UtilityCheck, check_utility
from .pieces import SOLVE_SECONDS, breakpoints, end_limit, pieces_of, try_symbolic

#: The utility level in :attr:`Utility.inverse_expr` (``t = u^{-1}(y)``).
y = sympy.Symbol("y", positive=True)

_VARIABLES = {"t": t, "kappa": kappa, "q": q}


# ---------------------------------------------------------------------------
# Helpers: reading arguments; an inverse that keeps its digits
# ---------------------------------------------------------------------------

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


def expression(value: Any, arg: str, owner: str, *, allow_infinity: bool = True) -> sympy.Expr:
    """A number, a sympy expression or a text (read safely) as a real expression.

    Names in a text become plain symbols even when they name a function
    ("gamma*t" is a cost rate gamma; "gamma(t)" is the gamma function).
    """
    if isinstance(value, (float, np.floating)) and np.isfinite(value):
        # sympy prints a Float with 15 digits, so generated code would compare
        # runtimes against a rounded captime; 17 digits round-trip every float.
        expr = sympy.Float(float(value), 15)
        if float(str(expr)) != float(value):
            # from the double itself, not its decimal repr: the repr parsed at 17 digits (60 bits)
            # rounded again to 53 could land one ulp off (q1 = 32.69453845607514 became ...136)
            expr = sympy.Float(float(value), 17)
        return expr
    if isinstance(value, str) and not value.strip():
        raise UtilityError(argument_message(arg, owner, "a non-empty expression", value))
    expr = as_expression(value, arg=arg, owner=owner, allow_infinity=allow_infinity, error=UtilityError)
    # A user's own Symbol("t") (without our assumptions) means our t.
    renames = {s: _VARIABLES[s.name] for s in expr.free_symbols
               if s.name in _VARIABLES and s != _VARIABLES[s.name]}
    return expr.xreplace(renames) if renames else expr


def support_pair(support: Any, arg: str, owner: str) -> tuple[sympy.Expr, sympy.Expr]:
    if not (isinstance(support, (tuple, list)) and len(support) == 2):
        raise UtilityError(argument_message(arg, owner, "a pair (lower, upper)", support))
    return (expression(support[0], arg, owner, allow_infinity=True),
            expression(support[1], arg, owner, allow_infinity=True))


def as_parameter(value: Any, arg: str, owner: str, **assumptions: bool) -> sympy.Expr:
    """A numeric argument: a number, a sympy expression or a symbol name string."""
    if isinstance(value, str) and value.strip().isidentifier() and value.strip() not in _VARIABLES:
        return sympy.Symbol(value.strip(), **assumptions)
    expr = expression(value, arg, owner)
    if expr.free_symbols & {t, q}:
        raise UtilityError(argument_message(
            arg, owner, "a parameter, free of the variables `t` and `q`", value))
    return expr


def require(expr: sympy.Expr, arg: str, owner: str, requirement: str, value: Any,
             holds: Callable[[sympy.Expr], bool | None]) -> None:
    # Symbolic arguments pass unless the requirement is provably false.
    if holds(expr) is False or (expr.is_number and not expr.is_finite):
        raise UtilityError(argument_message(arg, owner, requirement, value))


def as_function(value: Any, arg: str, owner: str, *, variables: tuple[sympy.Symbol, ...],
                 description: str) -> sympy.Expr:
    """An expression in ``variables`` (and parameters) for a cost, value, ...

    An expression with free symbols but none of ``variables`` is taken to be
    written in the wrong variable (``R(x)`` for ``R(t)``) unless it is a
    single symbol, which reads as a constant amount.
    """
    expr = expression(value, arg, owner)
    wrong = sorted((expr.free_symbols & {t, kappa, q}) - set(variables), key=str)
    parameters = expr.free_symbols - set(variables)
    if wrong or (parameters and not expr.free_symbols & set(variables) and not expr.is_Symbol):
        raise UtilityError(argument_message(arg, owner, description, value))
    return expr


def captime_parameter(kappa0: Any, owner: str) -> sympy.Expr:
    captime = as_parameter(kappa0, "kappa0", owner, positive=True)
    require(captime, "kappa0", owner, "a positive, finite captime", kappa0, lambda e: e.is_positive)
    return captime


# ---------------------------------------------------------------------------
# Utility
# ---------------------------------------------------------------------------

def _log_of_a_sum_beside_t(piece: sympy.Expr) -> bool:
    """Whether ``t`` enters ``piece`` both through ``log(a + b t)`` (a sum, not a power of ``t``)
    and outside it, as in ``t log(t + c)``: an expected cost over a captime law, as a design
    writes; ``(s - c) log(s) = y`` has no closed-form root (LambertW solves ``s log(s) = y``)."""
    logs = [f for f in piece.atoms(sympy.log) if f.args[0].has(t) and f.args[0].is_Add]
    if not logs:
        return False
    stand_ins = {f: sympy.Dummy() for f in logs}
    return piece.xreplace(stand_ins).has(t)


@kept_by_srepr(128)
def _inverse_of(expr: sympy.Expr) -> sympy.Expr | None:
    """``u^{-1}(y)`` of a utility expression solved piece by piece, or None without a closed
    form; kept per process (several utilities share one expression: a preset's, a copy's)."""
    pieces = pieces_of(expr)
    if pieces is None:
        return None
    branches = []
    for start, end, piece in pieces:
        if piece == 0:
            continue  # y > 0 never falls here
        if not piece.has(t):
            branches.append((start, sympy.Eq(y, piece)))
            continue
        if _log_of_a_sum_beside_t(piece):
            return None  # no closed form, and sympy's solve took 0.6 s to find none
        # sympy solves c*(t/k)**(-a) = y at once with symbols a, c, k, but grinds out its whole
        # time limit with 30-digit Floats (a typed or numeric law): solve with stand-ins
        stand_in, numbers = number_stand_ins(piece)
        solutions = try_symbolic(lambda: sympy.solve(sympy.Eq(stand_in, y), t), SOLVE_SECONDS)
        if solutions and numbers:
            solutions = [s.xreplace(numbers) for s in solutions]
        if not solutions:
            return None
        # y = 1 / (1 + z) with z > 0 spans (0, 1), so sympy can see a root's sign.
        inside = sympy.Dummy("z", positive=True)
        solutions = [s for s in solutions if not s.has(sympy.I) and not try_symbolic(
            lambda: s.subs(y, 1 / (1 + inside)).is_negative, SOLVE_SECONDS)]
        if len(solutions) != 1:
            return None
        solutions = [_complementary_inverse(solutions[0])]
        direction = "-" if end != sympy.oo else "+"
        below = end_limit(piece, end, direction, SOLVE_SECONDS)
        if below is None or below.has(sympy.Limit):
            return None
        branches.append((solutions[0], y > below))
    branches.append((sympy.nan, True))
    return sympy.Piecewise(*branches)


_NOT_SOLVED = object()

#: one survival function is written out at a time (two threads reading the expression of a
#: law's utility build it once)
_WRITING = threading.RLock()


class Utility(Immutable):
    """A utility of a runtime ``t`` (and optionally of a quality ``q``).

    Parameters
    ----------
    expr : sympy.Expr, number or str
        The utility, in :data:`maxent_util.t` (and :data:`maxent_util.q`); text is read by
        the safe expression reader.
    name : str, optional
        A display name.

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
        expr = expression(expr, "expr", type(self).__name__, allow_infinity=True)
        # A parsed "exp(-t)" or a user's Symbol("t") means the library's t (and q).
        renames = {s: {"t": t, "q": q}[s.name] for s in expr.free_symbols
                   if s.name in ("t", "q") and s not in (t, q)}
        clash = sorted(s.name for s in expr.free_symbols if s.name in ("kappa", "y"))
        if clash:
            # kappa is the captime, y the level of the inverse: a parameter so named would
            # be taken for them
            raise UtilityError(argument_message(
                "expr", type(self).__name__, "an expression in t (and q) whose parameters are not "
                "named kappa or y", str(expr), f"Name the parameter otherwise than {clash[0]!r}."))
        self.expr = expr.xreplace(renames) if renames else expr
        self.name = name
        self._scorer = None
        self._inverse_expr: Any = _NOT_SOLVED
        self._inverse_function: Callable | None = None

    @classmethod
    def _survival_of(cls, law: Any, *, name: str | None = None) -> "Utility":
        """u(t) = S(t) of a derived law (see :meth:`CaptimeDistribution.utility`).

        The law is the source of truth: :attr:`expr` is its survival function written in ``t``,
        built on first read (once, under a lock: a law of the fast route builds its closed form
        then), and a law without parameters gives the values itself (its double-precision law,
        or quadrature where sympy left an integral), so the utility is valued at once and the
        same whether or not the closed form was built.
        """
        utility = cls.__new__(cls)
        object.__setattr__(utility, "name", name)
        object.__setattr__(utility, "distribution", law)
        object.__setattr__(utility, "_law", law)
        utility._scorer = None
        utility._inverse_expr = _NOT_SOLVED
        utility._inverse_function = None
        return utility

    def __getattr__(self, name: str) -> Any:
        # only called for an attribute not set: the expression of a law's utility, written out
        # when first read
        if name == "expr" and "_law" in self.__dict__:
            with _WRITING:
                if "expr" not in self.__dict__:
                    object.__setattr__(self, "expr", self.__dict__["_law"]._survival_expr())
            return self.__dict__["expr"]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "expr" and "_law" in self.__dict__:  # set once, by __getattr__, from the law
            raise AttributeError(f"`{type(self).__name__}` objects are immutable: `expr` cannot be changed "
                                 "(make a changed copy instead, e.g. with `with_name` or `subs`).")
        super().__setattr__(name, value)

    def _value_key(self) -> tuple:
        law = self.__dict__.get("_law")
        if law is None:
            return super()._value_key()
        # equal when made from equal laws under one name, whether or not the expression is written
        return ("Utility", ("name", self.name), ("survival of", law._value_key()))

    def _values_of_law(self) -> Callable[[Any], Any] | None:
        """The law's own survival function of float runtimes, or None (valued by the scorer)."""
        law = self.__dict__.get("_law")
        return None if law is None else law._survival_values()

    def __getstate__(self) -> dict[str, Any]:
        # the compiled scorer and inverse are caches, rebuilt on first use: a pickled utility
        # (a Dask task sent to a worker) carries its expression, not generated code
        state = dict(self.__dict__)
        state["_scorer"] = None
        state["_inverse_function"] = None
        return state

    @property
    def variables(self) -> tuple[sympy.Symbol, ...]:
        if "_law" in self.__dict__:
            return (t,)
        return (t, q) if q in self.expr.free_symbols else (t,)

    @property
    def parameters(self) -> tuple[sympy.Symbol, ...]:
        """Free symbols other than ``t`` and ``q``, sorted by name."""
        if "_law" in self.__dict__:
            return self.__dict__["_law"].parameters  # no need to write the expression out
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
        return {by_name[name]: expression(value, name, owner) for name, value in values.items()}

    _not_compared = frozenset({"distribution"})

    def with_name(self, name: str | None) -> "Utility":
        """The same utility under another display name (utilities are immutable).

        Parameters
        ----------
        name : str or None
            The display name; None for none.

        Returns
        -------
        Utility
            A copy carrying ``name``; this one is unchanged.
        """
        return self._evolve(name=name)

    def _substituted(self, mapping: dict[sympy.Symbol, sympy.Expr]) -> "Utility":
        law = self.__dict__.get("_law")
        if law is not None:
            # the survival function of the substituted law (checked there to still be a law)
            return Utility._survival_of(law.subs(**{s.name: v for s, v in mapping.items()}), name=self.name)
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

        Parameters
        ----------
        **values : Any
            Parameter name -> a number, a sympy expression or a safe expression text.

        Returns
        -------
        Utility
            A utility of the same class; a law it came from (``distribution``) is
            substituted too.

        Raises
        ------
        UtilityError
            For a name that is not one of :attr:`parameters`, or a value that cannot be
            read.
        ConstraintError, InfeasibleError
            For the utility of a derived law (:meth:`CaptimeDistribution.utility`), values
            for which the law's constraints no longer give a density.
        """
        return self._substituted(self._mapping(values, "Utility.subs"))

    # -- evaluation ------------------------------------------------------------
    def __call__(self, runtimes: Any, *args: Any, **params: Any) -> float | np.ndarray:
        """The utility of runtimes, u(t), vectorised.

        The expression is compiled once into a :class:`~maxent_util.scorer.Scorer` (see
        :func:`~maxent_util.compile_scorer`): ``t <= 0`` gives u(0+), ``t = inf`` the limit
        at infinity and a NaN runtime NaN.

        Parameters
        ----------
        runtimes : float or array_like of float
            The runtimes ``t``.
        *args : float or array_like of float
            Values of the parameters in the order of :attr:`parameters` (``q`` last).
        **params : float or array_like of float
            Values of the parameters by name.

        Returns
        -------
        float or numpy.ndarray
            A float for scalar arguments, else an array of the broadcast shape.

        Raises
        ------
        UtilityError
            For a missing, unknown or repeated parameter, values that are not real numbers
            or do not broadcast, or a function with no numpy or scipy equivalent.
        NoClosedFormError
            If the expression holds an unevaluated integral.
        """
        if self._scorer is None:
            # a derived law's utility gets the law's own survival function (see compile_scorer)
            self._scorer = compile_scorer(self)
        return self._scorer(runtimes, *args, **params)

    def _values(self, runtimes: np.ndarray) -> np.ndarray:
        """u at float runtimes, whatever its shape (a call refuses values outside [0, 1]; the
        checks that report such a utility's faults read them here)."""
        survival = self._values_of_law()
        if survival is not None:
            return np.asarray(survival(runtimes), dtype=float)
        return np.asarray(compile_scorer(self.expr)(runtimes), dtype=float)

    def _breakpoints(self) -> list[float]:
        law = self.__dict__.get("_law")
        if law is not None and "expr" not in self.__dict__:
            return law._survival_points()
        return breakpoints(self.expr)

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
        return _inverse_of(self.expr)

    def inverse(self, y: Any, **values: Any) -> Any:
        """The runtime ``t`` at which the utility falls to ``y``: ``u(t) = y``.

        Uses :attr:`inverse_expr` when sympy solved ``u(t) = y`` in closed
        form, otherwise brentq on the scorer (bracketed by doubling).  For a
        utility that is flat at ``y`` the earliest such time is meant;
        ``inverse(1) = 0``.  This is the ``u^{-1}`` of the estimation theorem of
        the paper's Section 4.

        Parameters
        ----------
        y : float or array_like of float
            Levels in (0, 1] that the utility takes.
        **values : float
            Numbers for the utility's parameters.

        Returns
        -------
        float or numpy.ndarray
            The runtimes, of the shape of ``y``.

        Raises
        ------
        UtilityError
            For a level outside (0, 1] or one the utility jumps over, or parameters
            left without numbers.
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
            self._inverse_function = sympy.lambdify(y, self.inverse_expr, modules=numpy_modules(self.inverse_expr))
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
                found[i] = b if gap(b) == 0 else scipy.optimize.brentq(
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

    # -- the shape the main theorem gives (the checks are in .checks) -------------
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
        raise_on_failure : bool, default False
            Raise instead of returning a failing report.
        **values : float
            Numbers for the utility's parameters.

        Returns
        -------
        UtilityCheck
            One :class:`PropertyCheck` per property (holds True, False or None when
            undecided); truthy when every property holds.

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
        return check_utility(self, raise_on_failure=raise_on_failure)

    # -- display -----------------------------------------------------------------
    def latex(self) -> str:
        """The utility in LaTeX.

        Returns
        -------
        str
            sympy's LaTeX of :attr:`expr` (math mode, no ``$``).
        """
        return sympy.latex(self.expr)

    def _repr_latex_(self) -> str:
        return f"$u(t) = {self.latex()}$"

    def __repr__(self) -> str:
        label = f"{self.name}: " if self.name else ""
        return f"Utility({label}{self.expr})"


def fixed_scorer(utility: Any, owner: str) -> Callable[[np.ndarray], np.ndarray]:
    """The scorer of a utility with every parameter given a value."""
    if isinstance(utility, Utility):
        # asked of the utility, not of its expression: a derived law's utility is valued
        # before (and without) its closed form being built
        parameters, quality = utility.parameters, q in utility.variables
    else:
        expr = utility_expression(utility, owner)
        parameters, quality = parameters_of(expr, owner), q in expr.free_symbols
    if parameters or quality:
        free = tuple(s.name for s in parameters) + (("q",) if quality else ())
        raise UtilityError(argument_message(
            "utility", owner, "free of unset parameters", free,
            "Give them values first, e.g. utility.subs(kappa0=60)."))
    if isinstance(utility, Utility):
        # its own call: a subclass may evaluate differently (e.g. by quadrature)
        return utility
    return compile_scorer(expr)
