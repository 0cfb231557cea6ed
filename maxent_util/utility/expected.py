"""The expected utility over a captime distribution K.

``u_K(t) = E_{kappa ~ K}[p(t, kappa)]`` (the "numerical methods" cells of
the paper's summary table): :func:`expected_utility` integrates in closed
form when sympy can within its time limit, and an :class:`ExpectedUtility`
otherwise integrates numerically at each call, recording the route taken in
:attr:`ExpectedUtility.method`.
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np
import sympy
# scipy loads a submodule on first attribute access: `import maxent_util` and the
# command line start without paying for scipy.integrate until it is used
import scipy

from .._timing import check_timeout as _check_timeout
from ..errors import NoClosedFormError, UtilityError, argument_message
from ..expressions import numpy_modules
from ..symbols import kappa, t
from .core import Utility, as_function, expression, support_pair
from .pieces import SOLVE_SECONDS, SYMBOLIC_SECONDS, is_zero, try_symbolic


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

    def __call__(self, runtimes: Any, *args: Any, **params: Any) -> float | np.ndarray:
        """The expected utility of runtimes, u_K(t).

        A closed form is evaluated as :meth:`Utility.__call__` does; otherwise the integral
        over the captime is done by adaptive quadrature at each call (negative runtimes
        get u_K(0), runtimes at or past the support's upper end 0, NaN gives NaN).

        Parameters
        ----------
        runtimes : float or array_like of float
            The runtimes ``t``.
        *args : float or array_like of float
            Positional parameter values: taken by a closed form only (a quadrature
            utility refuses them).
        **params : float or array_like of float
            Values of the parameters by name.

        Returns
        -------
        float or numpy.ndarray
            A float for a scalar runtime, else an array of the runtimes' shape.

        Raises
        ------
        UtilityError
            For positional parameters under quadrature, parameters left without numbers,
            or the misuses :meth:`Utility.__call__` refuses.
        """
        if self.method == "closed form":
            return super().__call__(runtimes, *args, **params)
        if args:
            raise UtilityError(argument_message(
                "args", "ExpectedUtility", "empty (u depends on t alone)", args))
        if params:
            return self.subs(**params)(runtimes)
        self._require_numeric("ExpectedUtility")
        return self._quadrature(runtimes)

    def _values(self, runtimes: np.ndarray) -> np.ndarray:
        if self.method == "closed form":
            return super()._values(runtimes)
        return np.asarray(self._quadrature(runtimes), dtype=float)

    def _quadrature(self, runtimes: Any) -> Any:
        if self._quadrature_functions is None:
            lower, upper = (float(bound) for bound in self.captime_support)
            per_captime = sympy.lambdify((t, kappa), self.per_captime, modules=numpy_modules(self.per_captime))
            pdf = sympy.lambdify(kappa, self.captime_pdf, modules=numpy_modules(self.captime_pdf))
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
            values, error, info = scipy.integrate.quad_vec(
                integrand, 0.0, end, epsabs=1e-12, epsrel=1e-10, norm="max", limit=2000,
                full_output=True)
            if not info.success or not np.all(np.isfinite(values)):
                # one rule for every runtime did not converge (the density's breakpoints fall at
                # another x for each runtime): each runtime alone, with its breakpoints given
                values = np.array([self._one_runtime(time, lower, upper, per_captime, pdf)
                                   for time in unique])
            result[inside] = np.clip(values, 0.0, 1.0)[index]
        return float(result) if result.ndim == 0 else result

    def _one_runtime(self, time: float, lower: float, upper: float, per_captime: Any,
                     pdf: Any) -> float:
        """u_K(time) by adaptive quadrature over kappa from max(time, lower), split at the
        density's breakpoints; an error naming the runtime when it does not reach 1e-9."""
        start = max(time, lower)
        points = sorted(point for point in self._density_breakpoints() if start < point < upper)

        def integrand(captime: float) -> float:
            with np.errstate(all="ignore"):
                value = float(per_captime(time, captime) * pdf(captime))
            return value if math.isfinite(value) else 0.0

        edges = [start, *points, upper]
        total, error = 0.0, 0.0
        for left, right in zip(edges[:-1], edges[1:]):
            part, part_error = scipy.integrate.quad(integrand, left, right, epsabs=1e-13,
                                                    epsrel=1e-11, limit=500)
            total, error = total + part, error + part_error
        if not error <= 1e-9:
            raise UtilityError(argument_message(
                "runtimes", "ExpectedUtility", "runtimes whose expected utility quadrature "
                "resolves to 1e-9", time, f"The estimated error is {error:.2g}."))
        return total

    def _density_breakpoints(self) -> list[float]:
        """Where the captime's density changes form: its pieces' ends, in seconds."""
        points = set()
        for piece in sympy.preorder_traversal(self.captime_pdf):
            if isinstance(piece, sympy.Piecewise):
                for _, condition in piece.args:
                    for relation in condition.atoms(sympy.Rel):
                        for side in (relation.lhs, relation.rhs):
                            if side.is_number and side.is_finite:
                                points.add(float(side))
        return sorted(points)

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
                     timeout: float = SYMBOLIC_SECONDS) -> ExpectedUtility:
    """The utility of a captime distribution ``K``: ``u_K(t) = E_{kappa ~ K}[p(t, kappa)]``.

    The main theorem (Section 2) with an uncertain captime; the paper's
    summary table calls for "numerical methods" here, and sympy does the
    integral when it can.
    Since ``p(t, kappa) = 0`` for ``t >= kappa``,

    .. math:: u_K(t) = \\int_{\\max(t, \\ell)}^{h} p(t, \\kappa) f_K(\\kappa) \\, d\\kappa

    on the support ``[l, h]`` of ``K``.

    Parameters
    ----------
    p : sympy.Expr, number or str
        The utility under a known captime ``kappa``, in ``t`` and ``kappa``, for
        ``t < kappa`` (a Piecewise ``(p, t < kappa), (0, True)`` is accepted too).
        ``p = 1`` gives ``1 - F_K(t)`` (Example "Unknown captime, step-function utility").
    K : CaptimeDistribution or KnownCaptime
        A captime law with ``.pdf`` (sympy in ``kappa``, zero off its support) and
        ``.support`` ``(lower, upper)``, such as the result of :func:`maxent_util.derive`.
    method : {"auto", "closed form", "numerical"}, keyword-only
        ``"auto"`` (the default) takes a closed form if sympy finds one within
        ``timeout`` seconds, else numerical quadrature.
    timeout : float or None, keyword-only
        Seconds allowed for the symbolic integral (positive), or None for no limit.  The
        limit holds on any thread (see :func:`try_symbolic`).  A closed form that sympy
        leaves with polar numbers (``exp_polar``) is cleaned, or abandoned for
        quadrature when it cannot be.

    Returns
    -------
    ExpectedUtility
        ``u_K``, named after ``K``; its ``method`` says which route was taken.

    Raises
    ------
    UtilityError
        For ``p`` in other variables or with ``p(0, kappa) != 1``, a ``K`` without
        ``pdf`` and ``support``, an unknown ``method`` or an invalid ``timeout``.
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
    per_captime = _strip_captime_condition(as_function(
        p, "p", owner, variables=(t, kappa), description="an expression in `t` and `kappa`"))
    at_zero = try_symbolic(lambda: sympy.simplify(per_captime.subs(t, 0) - 1), SOLVE_SECONDS)
    if is_zero(at_zero) is False:
        raise UtilityError(argument_message(
            "p", owner, "1 at t = 0 for every captime (main theorem, Section 2)", p,
            remedy=f"p(0, kappa) = {per_captime.subs(t, 0)}."))
    pdf = expression(K.pdf, "K.pdf", owner)
    lower, upper = support_pair(K.support, "K.support", owner)
    if not isinstance(pdf, sympy.Piecewise) and (lower != 0 or upper != sympy.oo):
        pdf = sympy.Piecewise((pdf, (kappa >= lower) & (kappa <= upper)), (0, True))

    definition = sympy.Integral(per_captime * pdf, (kappa, sympy.Max(t, lower), upper))
    if upper != sympy.oo:
        definition = sympy.Piecewise((definition, t < upper), (0, True))
    closed = None
    if method in ("auto", "closed form"):
        closed = try_symbolic(lambda: _closed_form_expectation(per_captime, pdf, upper), timeout)
        if closed is None and method == "closed form":
            raise NoClosedFormError(argument_message(
                "p", owner, "integrable in closed form against K" + ("" if timeout is None else f" within {timeout:g} s"), p,
                remedy='Use method="numerical" (or "auto").'))
    name = getattr(K, "name", None)
    return ExpectedUtility(closed if closed is not None else definition,
                           per_captime=per_captime, captime_pdf=pdf, captime_support=(lower, upper),
                           method="closed form" if closed is not None else "numerical quadrature",
                           name=f"expected utility over {name}" if name else "expected utility")
