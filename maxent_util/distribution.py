"""The derived captime distribution and its closed forms."""

from __future__ import annotations

import dataclasses
import math
import threading
from typing import Any

import mpmath
import numpy as np
import sympy

from ._immutable import FrozenDict, Immutable
from ._scipy import make_family, make_rv
from ._sizes import EXACT_BITS, grew, integer_bits, power_digits
from ._timing import SymbolicTimeout as _SymbolicTimeout
from ._timing import as_deadline, time_limit, timed_out
from .errors import ConstraintError, MaxEntError, NoClosedFormError, UtilityError, argument_message
from .problem import (Piece, check_ranges, float_stand_ins, generic_branch, integrate_piece, kept_by_srepr,
                      make_terms, piecewise_over, provably_less, support_of)
from .scorer import as_float, compile_scorer, fold_float_constants
from .symbols import kappa, t
from .utility import Utility
from .constraints import ContinuousAt
from .constraints import to_sympy
import re

__all__ = ["CaptimeDistribution"]

oo = sympy.oo


def _simplify(expr: sympy.Expr, timeout: Any) -> sympy.Expr:
    if expr.has(sympy.Integral) or integer_bits(expr) > _PRINTABLE_BITS:
        # simplify would try to integrate, as a cosmetic step under whatever time is left:
        # whether an integral came out would then depend on the machine's load
        return expr
    try:
        with time_limit(timeout):
            return _simplest(expr)
    except _SymbolicTimeout:
        return expr


#: the most digits exp(c*log(kappa/s)) may build exactly before the multipliers go in as floats
_MAX_POWER_DIGITS = 2_000

#: integers above this many bits cannot be written as text by Python's default limit (4,300
#: digits), which sympy's printing, sorting and srepr all need
_PRINTABLE_BITS = 14_000


@kept_by_srepr(512)
def _simplest(expr: sympy.Expr) -> sympy.Expr:
    """The simplified form of ``expr`` in the paper's spelling, kept per process: related laws
    (one law by both methods, with a value exact or as a double, a law derived again after a
    time limit rang) simplify the same parts again: two calls in five across the test suite."""
    given = expr
    try:
        if expr.has(sympy.erfc):
            # erf + erfc = 1 only cancels once both are written as erf
            expr = expr.replace(sympy.erfc, lambda z: 1 - sympy.erf(z))
        simplest = _paper_form(sympy.simplify(sympy.powsimp(expr, force=False)))
    except Exception:  # cosmetic: keep the unsimplified form (a time limit's BaseException passes)
        return given
    # simplify may write 1000*log(kappa/15) as log(kappa**1000/15**1000): right, but a float
    # overflows on it (every runtime scored 0); such a form is not simpler
    return given if grew(simplest, given) else simplest


def _paper_form(expr: sympy.Expr) -> sympy.Expr:
    """Undo two habits of ``simplify`` that hide the paper's forms.

    ``log(x**c)`` becomes ``c*log(x)`` (exact for x > 0 and real c), and an
    ``erfc`` becomes ``1 - erf``, so the log-normal survival function reads
    1/2 - erf(log(kappa/kappa0)/(sqrt(2) sigma))/2 as in the paper.
    """
    def split_log(argument: sympy.Expr) -> sympy.Expr:
        if argument.is_Pow and argument.base.is_positive and argument.exp.is_real:
            return argument.exp * sympy.log(argument.base)
        return sympy.log(argument)

    def is_log_difference(node: sympy.Basic) -> bool:
        return node.is_Add and len(node.args) > 1 and all(
            isinstance(term, sympy.log) or (isinstance(-term, sympy.log)) for term in node.args)

    def combine_logs(node: sympy.Expr) -> sympy.Expr:
        # log(a) - log(b) -> log(a/b), but c*log(x) stays (logcombine would make it log(x**c))
        arguments = [term.args[0] if isinstance(term, sympy.log) else 1 / (-term).args[0]
                     for term in node.args]
        if not all(argument.is_positive for argument in arguments):
            return node
        return sympy.log(sympy.Mul(*arguments))

    expr = expr.replace(sympy.log, split_log)
    expr = expr.replace(is_log_difference, combine_logs)
    if expr.has(sympy.erfc):
        expr = sympy.expand_mul(expr.replace(sympy.erfc, lambda z: 1 - sympy.erf(z)))
    # kappa*(kappa/s)**(-a - 1)/s reads better as (s/kappa)**a (bases are positive)
    regrouped = sympy.powsimp(sympy.expand_power_base(expr), force=False)
    if sympy.count_ops(regrouped) < sympy.count_ops(expr):
        expr = regrouped
    return expr


class CaptimeDistribution(Immutable):
    """A maximum-entropy captime distribution, as returned by :func:`derive`.

    Attributes
    ----------
    pdf, cdf, sf : sympy expressions in :data:`maxent_util.kappa` (Piecewise where needed).
    multipliers : dict of the Lagrange multipliers ``lambda_0, lambda_1, ...`` -> value.
    closed_form : True when every multiplier was solved exactly.
    constraints : the constraints it was derived from.
    support : (lower, upper).
    derivation : the intermediate steps (see :class:`maxent_util.maxent.Derivation`).
    preset : ``(family, arguments)`` when a preset of :mod:`maxent_util.families` built the law,
        e.g. ``("pareto", (24, 1))``; None otherwise. Provenance is kept here, never read back
        from the display name.
    notes : remarks on the answer (e.g. that the stationary conditions had several solutions and
        the one of largest entropy was kept); empty for most laws.
    active : the inequality constraints (``relation="<="`` or ``">="``) that hold with equality
        at the law, in the order stated; inequalities not listed hold strictly and have a zero
        multiplier.  Equality constraints always hold with equality and are not listed, so the
        law of equalities alone has ``active == ()``.  None when which bounds bind depends on
        symbolic parameters (see ``active_cases``).
    active_cases : ``((condition, active), ...)``: the active inequalities under each condition
        on the parameters; one case with condition True when they do not depend on them, and
        empty when every constraint is an equality.
    cdf_method : ``"closed form"``, or ``"numeric quadrature"`` when sympy could not integrate
        the density of a law without parameters (in time, or at all): :attr:`cdf` and
        :attr:`sf` then hold an unevaluated ``Integral`` of the closed-form density, and
        :meth:`utility` and :meth:`to_scipy` evaluate it by mpmath quadrature to double
        precision (slower than a closed form: milliseconds per distinct runtime).
    """

    def __init__(self, *, constraints: tuple, support: tuple, pdf_pieces: list, cdf_pieces: list,
                 sf_pieces: list, breakpoints: list, multipliers: dict, closed_form: bool,
                 derivation: Any, timeout: float, scales: list | None = None) -> None:
        self.constraints = tuple(constraints)
        self.support = tuple(support)
        self.breakpoints = tuple(breakpoints)
        self._pdf_pieces = list(pdf_pieces)
        self._cdf_pieces = list(cdf_pieces)
        self._sf_pieces = list(sf_pieces)
        self.multipliers = FrozenDict(multipliers)
        self.closed_form = bool(closed_form)
        self.derivation = derivation
        self._timeout = timeout
        # per piece, the s of the substitution kappa = s exp(y) (None: integrate in kappa)
        self._scales = list(scales) if scales is not None else [None] * len(self._pdf_pieces)
        self._frozen = None
        self._numeric = None  # the quadrature of a numeric CDF, built on first use
        self.preset = None

    #: equal constraint sets give the same law: compare by what it was derived from
    _not_compared = frozenset({"breakpoints", "multipliers", "closed_form", "derivation", "preset"})

    def with_name(self, name: str | None) -> "CaptimeDistribution":
        """The same law under another display name (distributions are immutable).

        Parameters
        ----------
        name : str or None
            The display name (given to its utility and its scipy view); None for none.

        Returns
        -------
        CaptimeDistribution
            A copy carrying ``name``; this one is unchanged.
        """
        named = self._evolve(name=name)
        named._frozen = None  # its scipy view carries the name
        return named

    def _with_timeout(self, timeout: float | None) -> "CaptimeDistribution":
        """The same law with ``timeout`` (seconds, None: no limit) for its later symbolic steps
        (quantiles, entropy, masses).  :func:`~maxent_util.derive` hands a law that no time limit
        cut short to a call with another ``timeout`` this way: every step of its derivation ran
        to the end, so it is the law that call would derive."""
        seconds = math.inf if timeout is None else timeout
        if seconds == self._timeout:
            return self
        return self._evolve(_timeout=seconds, _frozen=None)  # its scipy view used the old limit

    def with_preset(self, family: str, arguments: tuple) -> "CaptimeDistribution":
        """The same law, recorded as built by the preset ``family(*arguments)``.

        Parameters
        ----------
        family : str
            The preset's name in :mod:`maxent_util.families` (e.g. ``"pareto"``).
        arguments : tuple
            The arguments the preset was called with.

        Returns
        -------
        CaptimeDistribution
            A copy whose ``preset`` is ``(family, tuple(arguments))``; this one is unchanged.
        """
        return self._evolve(preset=(family, tuple(arguments)))

    # -- a law whose closed form is built on demand -----------------------
    #: what the full derivation sets, built when first read on a law from the fast route
    _ON_DEMAND = frozenset({"_pdf_pieces", "_cdf_pieces", "_sf_pieces", "breakpoints", "multipliers",
                            "closed_form", "derivation", "_scales"})

    @classmethod
    def _on_demand(cls, constraints: tuple, support: tuple, numeric: Any, build: Any,
                   timeout: float | None) -> "CaptimeDistribution":
        """A law known in double precision (``numeric``, see :mod:`maxent_util.maxent.fast`)
        whose closed form, exact multipliers and derivation ``build(timeout)`` makes when one of
        them is first read (``build`` returns the fully derived law of the same constraints,
        under this law's time limit)."""
        law = cls.__new__(cls)
        object.__setattr__(law, "constraints", tuple(constraints))
        object.__setattr__(law, "support", tuple(support))
        object.__setattr__(law, "_timeout", math.inf if timeout is None else timeout)
        object.__setattr__(law, "_frozen", None)
        object.__setattr__(law, "_numeric", None)
        object.__setattr__(law, "preset", None)
        object.__setattr__(law, "_fast", numeric)
        object.__setattr__(law, "_build", build)
        return law

    def __getattr__(self, name: str) -> Any:
        # only called for an attribute not set: the parts a fast-route law builds on demand
        if name in CaptimeDistribution._ON_DEMAND and "_build" in self.__dict__:
            self._materialise()
            return self.__dict__[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def _materialise(self) -> None:
        with _BUILDING:
            if "_pdf_pieces" in self.__dict__:
                return
            timeout = self.__dict__["_timeout"]
            full = self.__dict__["_build"](None if timeout == math.inf else timeout)
            for name in CaptimeDistribution._ON_DEMAND:
                object.__setattr__(self, name, full.__dict__[name])

    @property
    def built(self) -> bool:
        """Whether the closed form (sympy pdf, CDF, survival function, exact or 30-digit
        multipliers, derivation) has been built; see :attr:`forms`."""
        return "_pdf_pieces" in self.__dict__

    @property
    def numeric(self) -> Any:
        """The law in double precision, or None: ``multipliers`` (lambda_1, ... as floats),
        ``lambda_0``, and vectorised ``pdf``, ``cdf``, ``sf`` and ``mean()``, ready at once
        (no closed form needed).  Laws of numbers that :func:`~maxent_util.derive` solved by
        its fast route have it; a law with symbolic parameters or inequalities has not."""
        return self.__dict__.get("_fast")

    @property
    def forms(self) -> dict[str, str]:
        """Which parts of the law are exact, which numeric, and which not built yet.

        A part is called a closed form only if it evaluates to the law's double-precision
        numbers (where it has them) at check points spread over the support; otherwise it is
        reported as numeric, with the reason, and the law's utility keeps the numbers.

        Returns
        -------
        dict of str to str
            ``"numbers"``: the double-precision law (``"double precision"`` or ``"none"``);
            ``"multipliers"``, ``"pdf"``, ``"cdf"``: ``"exact"``, ``"closed form with numeric
            multipliers"``, ``"numeric quadrature"``, ``"built on first read"``, or
            ``"numeric (double precision): <why>"`` when the closed form was built but does not
            evaluate to the numbers.
        """
        numbers = "double precision" if self.numeric is not None else "none"
        if not self.built:
            later = "built on first read"
            return {"numbers": numbers, "multipliers": later, "pdf": later, "cdf": later}
        exact = self.closed_form
        closed = "exact" if exact else "closed form with numeric multipliers"
        forms = {"numbers": numbers,
                 "multipliers": "exact" if exact else "numeric (30 digits)",
                 "pdf": closed,
                 "cdf": closed if self.cdf_method == "closed form" else "numeric quadrature"}
        if self.numeric is not None:
            for part, why in _disagreements(self).items():
                forms[part] = f"numeric (double precision): {why}"
        return forms

    def __copy__(self) -> "CaptimeDistribution":
        # a shallow copy keeps a fast-route law as it is (pickling would build its closed form)
        new = type(self).__new__(type(self))
        new.__dict__.update(self.__dict__)
        return new

    def __getstate__(self) -> dict[str, Any]:
        # a law travels as it is: its double-precision law (arrays), and the recipe of its closed
        # form where that is not built yet, so the copy gives the same numbers without building
        state = dict(self.__dict__)
        state["_frozen"] = None
        return state

    # -- construction ----------------------------------------------------
    @classmethod
    def _from_solution(cls, constraints, support, pieces, terms, solution, parts, closed_form,
                       derivation, timeout, deadline=None) -> "CaptimeDistribution":

        # every step below shares one deadline (derive's); `timeout` is kept for later methods
        limit = deadline if deadline is not None else timeout
        timeout = math.inf if timeout is None else timeout
        # the numbers every step may combine; a step that builds far larger ones (exact powers
        # multiplied under a common root: exp(-l log(kappa/s)**2)/Z with s = 796/25 held a
        # 4,300-digit integer) keeps its constants as 25-digit floats instead
        given = (*constraints, *solution.values(), *(piece.exponent for piece in pieces))

        def tame(expr: sympy.Expr) -> sympy.Expr:
            if grew(expr, *given, floor=EXACT_BITS):
                folded.append(expr)
                return fold_float_constants(expr)
            return expr

        folded: list = []
        parts = [_simplify(tame(part.subs(solution)), limit) for part in parts]
        partition = _simplify(tame(sympy.Add(*parts)), limit)
        if partition.is_positive is False or partition.is_finite is False:
            raise MaxEntError(f"the normalising constant came out as {partition}; the constraints "
                              f"{', '.join(map(repr, constraints))} have no maximum-entropy density.")
        lambda_0 = _simplify(sympy.log(partition) - 1, limit)
        if not closed_form and lambda_0.is_number:
            lambda_0 = _one_float(lambda_0, solution.values())
        multipliers = {sympy.Symbol("lambda_0", real=True): lambda_0}
        for term in terms:
            multipliers[term.multiplier] = solution[term.multiplier]

        exponents = [piece.exponent.subs(solution) for piece in pieces]
        if any(power_digits(exponent) > _MAX_POWER_DIGITS for exponent in exponents):
            # exp(c*log(kappa/s)) is s**c to sympy, which multiplies s out c.p times: with
            # c = 5729749/9429749, 14.7 million digits. The multipliers at 30 digits instead
            folded.append(exponents)
            exponents = [piece.exponent.subs(_at_digits(solution, _FOLDED_DIGITS)) for piece in pieces]
        pdf_pieces = [_simplify(tame(sympy.exp(exponent) / partition), limit) for exponent in exponents]
        masses = [_simplify(tame(part / partition), limit) for part in parts]

        cdf_pieces, sf_pieces = [], []
        below = sympy.Integer(0)
        for index, (piece, density) in enumerate(zip(pieces, pdf_pieces)):
            above = sympy.Add(*masses[index + 1:]) if index + 1 < len(masses) else sympy.Integer(0)
            partial = None
            try:
                with time_limit(limit):
                    if closed_form:
                        partial = integrate_piece(density, piece, upper=kappa)
                    else:
                        # sympy integrates far better with symbolic multipliers than with floats
                        partial = integrate_piece(sympy.exp(piece.exponent), piece, upper=kappa)
                        partial = partial.subs(solution) / partition
                        if partial.has(sympy.nan, sympy.zoo) or not _sensible_partial(partial, piece):
                            # the generic antiderivative is 0/0 at a multiplier of exactly 0 (or 1
                            # on kappa**-lambda), or loses every digit at a tiny one: integrate the
                            # density at the root instead
                            partial = integrate_piece(density, piece, upper=kappa)
                            if not _sensible_partial(partial, piece):
                                partial = None
                if partial is not None and (partial.has(sympy.Integral) or partial.has(sympy.nan, sympy.zoo)):
                    partial = None
                if partial is None and not closed_form:
                    # the generic antiderivative can stay unevaluated (the gamma law's, with a
                    # symbolic exponent): integrate the density at the root, its Floats as symbols
                    partial = _root_partial(density, piece)
            except _SymbolicTimeout:
                if not _numeric_law(density):
                    # the CDF is not cosmetic: a law with parameters whose utility is an
                    # unevaluated integral cannot be scored, so running out of time is an error
                    raise timed_out(f"the CDF of the law of {', '.join(map(repr, constraints))}",
                                    timeout) from None
                partial = None  # a numeric law: quadrature serves (see CaptimeDistribution)
            except Exception:  # sympy could not integrate: keep the integral unevaluated
                partial = None
            if partial is None:
                dummy = sympy.Dummy("s", positive=True)
                partial = sympy.Integral(density.subs(kappa, dummy), (dummy, piece.lower, kappa))
            tail = None
            if density.has(sympy.Float):
                # with Floats, mass - partial does not cancel: 1 - (1 - (k/t)**a) leaves a rounding
                # residue (even a negative utility) far in the tail, so integrate the tail itself
                tail = _tail_integral(piece, density, closed_form, solution, partition, limit)
            cdf = _simplify(tame(below + partial), limit)
            sf = _simplify(tame(above + (masses[index] - partial if tail is None else tail)), limit)
            cdf_pieces.append(cdf)
            sf_pieces.append(sf)
            below = below + masses[index]
        if folded:
            derivation = dataclasses.replace(derivation, notes=tuple(derivation.notes) + (
                f"{len(folded)} step(s) kept their constants as 25-digit floats: their exact form "
                "held integers far larger than the constraints' numbers",))
        return cls(constraints=constraints, support=support, pdf_pieces=pdf_pieces, cdf_pieces=cdf_pieces,
                   sf_pieces=sf_pieces, breakpoints=derivation.breakpoints, multipliers=multipliers,
                   closed_form=closed_form, derivation=derivation, timeout=timeout,
                   scales=[piece.scale for piece in pieces])

    @property
    def active_cases(self) -> tuple:
        cases = getattr(self.derivation, "kkt", ()) or ()
        return tuple((condition, tuple(row[0] for row in rows if row[4] and row[0].relation != "=="))
                     for condition, rows in cases)

    @property
    def active(self) -> tuple | None:
        cases = self.active_cases
        if not cases:
            return ()
        if len(cases) == 1 and cases[0][0] == sympy.true:
            return cases[0][1]
        return None

    @property
    def notes(self) -> list[str]:
        return list(getattr(self.derivation, "notes", []) or [])

    # -- closed forms ------------------------------------------------------
    def _piecewise(self, expressions: list, variable: sympy.Symbol, below: Any, above: Any) -> sympy.Expr:

        return piecewise_over(expressions, self.breakpoints, variable, below, above)

    @property
    def pdf(self) -> sympy.Expr:
        return self._piecewise(self._pdf_pieces, kappa, 0, 0)

    @property
    def cdf(self) -> sympy.Expr:
        return self._piecewise(self._cdf_pieces, kappa, 0, 1)

    @property
    def sf(self) -> sympy.Expr:
        return self._piecewise(self._sf_pieces, kappa, 1, 0)

    @property
    def cdf_method(self) -> str:
        """``"closed form"``, or ``"numeric quadrature"`` when the CDF holds an unevaluated
        integral of a law without parameters (evaluated by quadrature; see the class)."""
        unevaluated = any(piece.has(sympy.Integral) for piece in self._cdf_pieces + self._sf_pieces)
        return "numeric quadrature" if unevaluated and not self.parameters else "closed form"

    def _quadrature(self) -> "_QuadratureLaw":
        if self._numeric is None:
            self._numeric = _QuadratureLaw(self.breakpoints, self._pdf_pieces)
        return self._numeric

    def _cdf_function(self) -> Any:
        """A vectorised F(x) of floats: the closed form compiled, or quadrature."""
        if self.cdf_method == "numeric quadrature":
            return self._quadrature().cdf
        return compile_scorer(self.cdf.subs(kappa, t))

    @property
    def parameters(self) -> tuple[sympy.Symbol, ...]:
        free: set = set()
        for constraint in self.constraints:
            free |= constraint.free_symbols
        return tuple(sorted(free, key=lambda s: s.name))

    def utility(self) -> Utility:
        """The step-function utility u(t) = 1 - F_K(t).

        Section 3 of the paper, "Unknown captime, step-function utility": a run of
        runtime ``t`` is worth the probability that the captime exceeds ``t``.

        Returns
        -------
        Utility
            The survival function written in ``t``, under this law's name; its
            ``distribution`` attribute is this law.  One class whatever route solved the
            law: a law without parameters values it itself (its double-precision law where
            it has one, else its closed form, or quadrature of the density where sympy left
            an integral), and its expression is written out when first read.
        """
        return Utility._survival_of(self, name=getattr(self, "name", None))

    # -- what a utility of this law asks of it (see Utility._survival_of) ------
    def _survival_expr(self) -> sympy.Expr:
        return self._piecewise(self._sf_pieces, t, 1, 0)

    def _survival_values(self) -> Any:
        """S of float runtimes where the law gives it itself, or None (its closed form is then
        compiled by the utility's scorer): the double-precision law, or quadrature of the density
        for a law without parameters whose CDF sympy left as an integral."""
        if self.parameters:
            return None
        if self.numeric is not None:
            return _double_precision_sf(self.numeric)
        if self.cdf_method == "numeric quadrature":
            return self._quadrature().sf
        return None

    def _survival_points(self) -> list[float]:
        """Scales of the law in runtimes (the finite ends of its support, its mean), for a search."""
        points = [float(end) for end in self.support if end.is_finite and end > 0]
        if self.numeric is not None:
            mean = float(self.numeric.mean())
            if math.isfinite(mean) and mean > 0:
                points.append(mean)
        return points or [float(end) for end in self.breakpoints if end.is_finite and end > 0]

    def mean(self) -> sympy.Expr:
        """E[kappa], by integrating kappa f(kappa) piece by piece.

        Pieces cut by log features are integrated in y = log(kappa/s), as in
        the derivation: sympy cannot integrate a log-normal density times
        kappa over kappa, but it integrates a Gaussian times exp(y).

        Returns
        -------
        sympy.Expr
            The mean: exact for a closed-form law, one Float for numeric multipliers, and an
            unevaluated ``Integral`` for a piece sympy cannot integrate in time (``oo`` when
            the mean is infinite, as for a Pareto law with ``alpha <= 1``).
        """

        total = sympy.Integer(0)
        pieces = zip(self.breakpoints, self.breakpoints[1:], self._pdf_pieces, self._scales)
        def integral(integrand: sympy.Expr, lower: Any, upper: Any, scale: Any) -> sympy.Expr | None:
            try:
                with time_limit(self._timeout):
                    value = integrate_piece(integrand, Piece(lower, upper, [], sympy.Integer(0), scale))
                    if _unusable(value):
                        value = generic_branch(sympy.integrate(integrand, (kappa, lower, upper), conds="none"))
            except _SymbolicTimeout:
                return None
            except Exception:  # sympy could not integrate
                return None
            return None if _unusable(value) else value

        for lower, upper, density, scale in pieces:
            piece = None
            stand_in, numbers = float_stand_ins(kappa * density)
            if numbers:
                # numeric multipliers: sympy is far faster with symbols, but its generic answer
                # can come back complex (exp_polar) for some signs; then integrate the Floats
                piece = integral(stand_in, lower, upper, scale)
                piece = None if piece is None or _unusable(piece.xreplace(numbers)) else piece.xreplace(numbers)
            if piece is None:
                piece = integral(kappa * density, lower, upper, scale)
            if piece is None:
                piece = sympy.Integral(kappa * density, (kappa, lower, upper))
            total += piece
        total = _simplify(total, self._timeout)
        if not self.closed_form and total.is_number and total.is_real and not total.has(sympy.Integral):
            total = _one_float(total, self.multipliers.values())
        return total

    def entropy(self) -> sympy.Expr:
        """The differential entropy, from the multipliers (no integration).

        At the maximum the entropy is 1 + lambda_0 + sum_i lambda_i E[g_i 1_i], with the
        constrained expectations read off the constraints.

        Returns
        -------
        sympy.Expr
            The entropy in nats, simplified (within the law's time limit).
        """
        record = self.derivation
        lambda_0 = sympy.Symbol("lambda_0", real=True)
        entropy = self.multipliers[lambda_0] + 1
        masses = self._masses()
        for multiplier, _, region, value, constraint in record.terms:
            if isinstance(constraint, ContinuousAt):
                value = sum(m for m, upper in zip(masses, self.breakpoints[1:])
                            if upper == constraint.kappa0 or _before(upper, constraint.kappa0))
            entropy += self.multipliers[multiplier] * value
        return _simplify(entropy, self._timeout)

    def _masses(self) -> list:
        masses = []
        for index, cdf in enumerate(self._cdf_pieces):
            upper = self.breakpoints[index + 1]
            end = 1 if upper == oo else cdf.subs(kappa, upper)
            start = sympy.Add(*masses)
            masses.append(_simplify(end - start, self._timeout))
        return masses

    # -- transformations ---------------------------------------------------
    def subs(self, **values: Any) -> "CaptimeDistribution":
        """A new distribution with parameters (by name) replaced by values.

        The closed forms are substituted, not derived again; the values are then checked:
        the constraints must still hold and every piece of the density must stay positive.

        Parameters
        ----------
        **values : Any
            Parameter name -> value (a number, a safe expression text or a sympy expression),
            e.g. ``alpha=2``.

        Returns
        -------
        CaptimeDistribution
            The substituted law; a display name shows the values.

        Raises
        ------
        ConstraintError
            If a name is not a parameter of the law, a value cannot be read, or the values
            leave the constraints' domain (the density is no longer a density).
        InfeasibleError
            If the substituted constraints ask for an expectation the feature cannot
            reach (a Pareto law at ``alpha < 0``).
        """
        by_name = {s.name: s for s in self.parameters}
        unknown = [name for name in values if name not in by_name]
        if unknown:
            raise ConstraintError(argument_message(
                unknown[0], "CaptimeDistribution.subs",
                f"one of the parameters ({', '.join(sorted(by_name)) or 'none'})", values[unknown[0]]))

        mapping = {by_name[name]: to_sympy(value, arg=name, owner="CaptimeDistribution.subs")
                   for name, value in values.items()}
        constraints = tuple(c.subs(mapping) for c in self.constraints)

        # Exact values are put in by xreplace: it gives what subs gives (the same srepr on every
        # piece of every preset) ten to forty times faster. With a Float the order in which subs
        # puts values in decides the last digits, so Floats keep subs.
        exact = not any(value.has(sympy.Float) for value in mapping.values())

        def sub(expr: Any) -> Any:
            if not isinstance(expr, sympy.Basic):
                return expr
            result = expr.xreplace(mapping) if exact else expr.subs(mapping)
            if exact and grew(result, expr, *mapping.values(), floor=EXACT_BITS):
                # exact powers multiplied under a common root (1500**(993/10000) beside
                # 1500**(171/50)): a 9,205-digit integer. The values at 30 digits instead
                result = expr.subs(_at_digits(mapping, _FOLDED_DIGITS))
                folded.append(expr)
            return result

        folded: list = []
        pdf_pieces = [sub(e) for e in self._pdf_pieces]
        cdf_pieces = [sub(e) for e in self._cdf_pieces]
        sf_pieces = [sub(e) for e in self._sf_pieces]
        multipliers = {k: sub(v) for k, v in self.multipliers.items()}

        record = dataclasses.replace(
            self.derivation,
            breakpoints=[sub(p) for p in self.derivation.breakpoints],
            support=tuple(sub(p) for p in self.derivation.support),
            terms=[(m, sub(g), (sub(region[0]), sub(region[1])), sub(v), c.subs(mapping))
                   for m, g, region, v, c in self.derivation.terms],
            stationary_density=sub(self.derivation.stationary_density),
            partition=sub(self.derivation.partition),
            # kept as equations: sympy would spend a fraction of a second per relation deciding
            # whether each substituted one now holds, and fold it to True if it did
            equations=[sympy.Eq(sub(e.lhs), sub(e.rhs), evaluate=False) if isinstance(e, sympy.Equality)
                       else sub(e) for e in self.derivation.equations],
            kkt=_substituted_cases(getattr(self.derivation, "kkt", ()), mapping, sub))
        if folded:
            record = dataclasses.replace(record, notes=tuple(record.notes) + (
                f"the values were put in at {_FOLDED_DIGITS} digits where their exact form would "
                "hold integers far larger than the values themselves (exact powers multiplied "
                "under a common root)",))
        new = type(self)(constraints=constraints, support=tuple(sub(p) for p in self.support),
                         pdf_pieces=pdf_pieces, cdf_pieces=cdf_pieces, sf_pieces=sf_pieces,
                         breakpoints=record.breakpoints,
                         multipliers=multipliers,
                         closed_form=self.closed_form, derivation=record, timeout=self._timeout,
                         scales=[sub(scale) for scale in self._scales])
        if getattr(self, "name", None):
            # "pareto(kappa0, alpha)" becomes "pareto(kappa0, 2)": the label shows the values

            new.name = re.sub(r"[A-Za-z_][A-Za-z_0-9]*",
                              lambda match: str(mapping.get(by_name.get(match.group()), match.group())),
                              self.name)
        _check_substitution(new, values)
        return new

    def to_scipy(self, **parameters: Any) -> Any:
        """This law as a scipy.stats distribution.

        Parameters
        ----------
        **parameters : float or array_like of float
            For a law with symbolic parameters, a value for each (by name); arrays
            broadcast against each other, no :meth:`subs` needed. A law with
            numeric parameters takes none.

        Returns
        -------
        scipy.stats distribution
            Without parameters, a frozen ``rv_continuous`` (pdf, cdf, sf, ppf, rvs,
            ...), built once and cached: ``rvs`` inverts the CDF numerically piece by
            piece (``scipy.stats.sampling.NumericalInversePolynomial``, u-error at most
            1e-12; no symbolic work before the first draw), ``ppf`` uses the closed-form
            inverse where sympy finds one. With parameters, one of scipy's new
            distributions (``scipy.stats.make_distribution``, scipy >= 1.16): ``pdf``,
            ``cdf``, ``ccdf``, ``sample`` ... over the broadcast shape of the values.

        Raises
        ------
        NoClosedFormError
            If the law has symbolic parameters and not all of them are given, a name
            given is not one of them, the values are not real numbers that broadcast,
            or scipy is older than 1.16; or if parameters are given to a law without.

        Examples
        --------
        >>> import numpy as np
        >>> from maxent_util import log_laplace
        >>> rv = log_laplace(24, 2).to_scipy()
        >>> draws = rv.rvs(1000, random_state=np.random.default_rng(0))
        >>> bool(np.all(draws > 0))
        True
        >>> family = log_laplace("kappa0", 2).to_scipy(kappa0=[10.0, 24.0])
        >>> family.sample(5, rng=np.random.default_rng(0)).shape
        (5, 2)
        >>> np.round(family.cdf(24.0), 3)  # F(kappa0) = 1/2 at kappa0 = 24
        array([0.913, 0.5  ])
        """
        if self.parameters or parameters:
            if not self.parameters:
                raise NoClosedFormError(argument_message(
                    next(iter(parameters)), "to_scipy", "no parameter (the law has none)",
                    next(iter(parameters.values()))))
            return make_family(self, parameters)
        if self._frozen is not None:
            return self._frozen
        self._frozen = make_rv(self)
        return self._frozen

    # -- display -----------------------------------------------------------
    def latex(self) -> str:
        """The density in LaTeX.

        Returns
        -------
        str
            sympy's LaTeX of :attr:`pdf` (math mode, no ``$``).
        """
        return sympy.latex(self.pdf)

    def _repr_latex_(self) -> str:
        return f"$f(\\kappa) = {self.latex()}$"

    def __repr__(self) -> str:
        if not self.built:
            return (f"CaptimeDistribution({', '.join(map(repr, self.constraints))}; "
                    "double precision, closed form on demand)")
        kind = "closed form" if self.closed_form else "numeric multipliers"
        return f"CaptimeDistribution({', '.join(map(repr, self.constraints))}; {kind})"


#: one closed form is built at a time (two threads reading a fast-route law build it once)
_BUILDING = threading.RLock()

#: digits of the values put in where exact substitution builds numbers larger than its inputs
_FOLDED_DIGITS = 30


def _at_digits(mapping: dict, digits: int) -> dict:
    """The numeric values of ``mapping`` as Floats of ``digits`` digits (others unchanged)."""
    return {key: _float_of(value, digits) if value.is_number else value for key, value in mapping.items()}


def _float_of(value: sympy.Expr, digits: int) -> sympy.Float:
    """A number as one Float of ``digits`` digits, evaluated with five to spare."""
    return sympy.Float(sympy.N(value, digits + 5), digits)


def _one_float(value: sympy.Expr, multipliers: Any) -> sympy.Expr:
    """A number such as 0.3 + log(pi)/2 as one Float, at the precision of the multipliers."""
    precisions = [m._prec for m in multipliers if isinstance(m, sympy.Float)]
    if not precisions:
        return value
    return _float_of(value, mpmath.libmp.prec_to_dps(min(precisions)))


#: share of the time left, and most seconds, that a cosmetic refinement of a tail integral may take
_REFINEMENT_SHARE = 0.2
_REFINEMENT_SECONDS = 2.0


def _tail_integral(piece: Any, density: sympy.Expr, closed_form: bool, solution: dict,
                   partition: sympy.Expr, timeout: Any) -> sympy.Expr | None:
    """int of the density from kappa to the piece's upper end, or None when sympy cannot."""

    stand_in, numbers = float_stand_ins(density)
    deadline = as_deadline(timeout)
    # the Floats as signed symbols first (sympy keeps exact forms), then as they are; the first
    # is a refinement and gets a share of the time left (a log-normal's tail with symbols went to
    # heurisch and took all of it, where the Floats as they are take 0.05 s)
    for integrand, back in ((stand_in, numbers), (density, {})):
        if back and piece.scale is None and _polar_power(integrand, set(back)):
            continue
        limit = deadline.share(_REFINEMENT_SHARE, _REFINEMENT_SECONDS) if back else deadline
        try:
            with time_limit(limit):
                tail = integrate_piece(integrand, piece, start=kappa)
        except _SymbolicTimeout:
            continue
        except Exception:  # sympy could not integrate: try the next form
            continue
        if not _unusable(tail) and not _unusable(tail.xreplace(back)) and _sensible_partial(tail.xreplace(back), piece):
            return tail.xreplace(back)
    return None


def _polar_power(integrand: sympy.Expr, stand_ins: set) -> bool:
    """Whether the integrand is c * kappa**p * exp(q*kappa) with p and q stand-ins for Floats
    (see :func:`~maxent_util.problem.float_stand_ins`): a gamma-like tail, whose integral sympy
    writes with (-q)**(-p - 1) as exp_polar(I*pi) and exp(I*pi*p), whatever the signs, after up to
    a second of work.  Such a tail is unusable (see :func:`_unusable`); the Floats as they are
    give the real one."""
    _, rest = integrand.as_independent(kappa, as_Add=False)
    factors = sympy.Mul.make_args(rest)
    powers = [f for f in factors if f.is_Pow and f.base == kappa]
    exponentials = [f for f in factors if isinstance(f, sympy.exp)]
    if len(factors) != 2 or len(powers) != 1 or len(exponentials) != 1:
        return False
    rate = sympy.cancel(exponentials[0].args[0] / kappa)
    return powers[0].exp in stand_ins and rate in stand_ins


def _substituted_cases(cases: tuple, mapping: dict, sub: Any) -> tuple:
    """The KKT cases with the values put in: cases whose condition became False are dropped, and
    the first whose condition became True is the last kept (a Piecewise takes the first that holds)."""
    kept = []
    for condition, rows in cases:
        condition = sub(condition)
        if condition == sympy.false:
            continue
        rows = tuple((constraint.subs(mapping), multiplier, sub(value), sub(reached), binding)
                     for constraint, multiplier, value, reached, binding in rows)
        kept.append((condition, rows))
        if condition == sympy.true:
            break
    if len(kept) == 1:
        kept[0] = (sympy.true, kept[0][1])
    return tuple(kept)
def _numeric_law(density: sympy.Expr) -> bool:
    """Whether a piece's density is numbers and kappa only (so quadrature can evaluate it)."""
    return not (density.free_symbols - {kappa})


def _root_partial(density: sympy.Expr, piece: Any) -> sympy.Expr | None:
    """int of the density at the root from the piece's lower end to kappa, or None when sympy
    cannot: with its Floats as they are (the generic antiderivative, in the multipliers'
    symbols, was tried first), then as signed symbols."""
    stand_in, numbers = float_stand_ins(density)
    for integrand, back in ((density, {}), (stand_in, numbers)):
        try:
            partial = integrate_piece(integrand, piece, upper=kappa).xreplace(back)
        except _SymbolicTimeout:
            raise
        except Exception:  # sympy could not integrate: try the next form
            continue
        if not _unusable(partial) and _sensible_partial(partial, piece):
            return partial
    return None


class _QuadratureLaw:
    """F and S of a law without parameters by mpmath quadrature of its closed-form density.

    Each piece's density is lambdified for mpmath; F(x) integrates from the piece's lower end
    to x and S(x) from x to its upper end (so neither loses digits to ``1 - F`` in a tail), the
    masses of the other pieces added; 20 digits, rounded to double precision.
    """

    DIGITS = 20

    def __init__(self, breakpoints: tuple, pdf_pieces: list) -> None:
        self.ends = [mpmath.inf if end == oo else mpmath.mpf(str(sympy.Float(end, 30)))
                     for end in breakpoints]
        self.densities = [sympy.lambdify(kappa, density, modules="mpmath") for density in pdf_pieces]
        self._masses: list | None = None

    def _integral(self, index: int, lower: Any, upper: Any) -> Any:
        if upper <= lower:
            return mpmath.mpf(0)
        density = self.densities[index]
        return mpmath.quad(lambda x: mpmath.re(density(x)), [lower, upper])

    def masses(self) -> list:
        if self._masses is None:
            with mpmath.workdps(self.DIGITS):
                self._masses = [self._integral(i, a, b)
                                for i, (a, b) in enumerate(zip(self.ends, self.ends[1:]))]
        return self._masses

    def _at(self, x: float, upper_tail: bool) -> float:
        if math.isnan(x):
            return math.nan
        masses = self.masses()
        with mpmath.workdps(self.DIGITS):
            point = mpmath.mpf(x)
            if point <= self.ends[0]:
                return 1.0 if upper_tail else 0.0
            if point >= self.ends[-1]:
                return 0.0 if upper_tail else 1.0
            index = max(i for i, end in enumerate(self.ends[:-1]) if point > end)
            if upper_tail:
                value = self._integral(index, point, self.ends[index + 1]) + mpmath.fsum(masses[index + 1:])
            else:
                value = mpmath.fsum(masses[:index]) + self._integral(index, self.ends[index], point)
            return float(min(max(value, 0), 1))

    def _vectorised(self, values: Any, upper_tail: bool) -> Any:
        array = np.asarray(values, dtype=float)
        unique, inverse = np.unique(array.ravel(), return_inverse=True)
        found = np.array([self._at(float(x), upper_tail) for x in unique], dtype=float)
        out = found[inverse].reshape(array.shape)
        return float(out) if out.ndim == 0 else out

    def cdf(self, values: Any) -> Any:
        """F at each value (floats or an array of floats)."""
        return self._vectorised(values, upper_tail=False)

    def sf(self, values: Any) -> Any:
        """S = 1 - F at each value, integrated over the upper tail itself."""
        return self._vectorised(values, upper_tail=True)


#: how far a closed form may be from the double-precision law at a check point (densities
#: relative to their value, probabilities absolute) and still be called that law's closed form
_AGREEMENT = 1e-8


def _check_points(numeric: Any) -> np.ndarray:
    """Runtimes spread over a double-precision law's support: across a finite one, and over
    decades of its mean on an infinite one."""
    low, high = (float(end) for end in numeric.support)
    if math.isfinite(high):
        return low + (high - low) * np.array([1e-3, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 0.999])
    scale = float(numeric.mean()) - low
    scale = scale if math.isfinite(scale) and scale > 0 else 1.0
    return low + scale * np.array([1e-3, 0.01, 0.1, 0.5, 1.0, 2.0, 5.0, 20.0])


def _disagreements(law: "CaptimeDistribution") -> dict[str, str]:
    """The parts of a built law (``"pdf"``, ``"cdf"``) that do not evaluate to its double-precision
    law at the check points, with the reason; kept on the law (the answer does not change)."""
    found = law.__dict__.get("_disagreements")
    if found is not None:
        return found
    numeric = law.numeric
    points = _check_points(numeric)
    found = {}
    for part, pieces, reference, relative in (("pdf", law._pdf_pieces, numeric.pdf, True),
                                              ("cdf", law._sf_pieces, numeric.sf, False)):
        if any(piece.has(sympy.Integral) for piece in pieces):
            if part == "pdf":
                found[part] = "the density holds an unevaluated integral"
            continue  # the CDF is then "numeric quadrature", as it says
        expr = law._piecewise(pieces, t, 0 if part == "pdf" else 1, 0)
        try:
            closed = np.asarray(compile_scorer(expr)(points), dtype=float)
        except MaxEntError as error:
            found[part] = f"its closed form cannot be evaluated ({error})"
            continue
        expected = np.asarray(reference(points), dtype=float)
        gap = np.abs(closed - expected)
        allowed = _AGREEMENT * (np.abs(expected) if relative else 1.0) + 1e-300
        bad = ~(gap <= allowed)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            found[part] = (f"its closed form gives {closed[i]!r} at {points[i]!r} where the law "
                           f"gives {expected[i]!r}")
    object.__setattr__(law, "_disagreements", found)
    return found


def _double_precision_sf(numeric: Any) -> Any:
    """S(t) of float runtimes from a double-precision law: a float for a scalar."""
    def survival(runtimes: Any) -> Any:
        out = numeric.sf(np.asarray(runtimes, dtype=float))
        return float(out) if np.ndim(out) == 0 else out
    return survival


def _check_substitution(distribution: CaptimeDistribution, values: dict) -> None:
    """Refuse values for which the substituted closed form is no longer a density.

    The closed form was derived for the parameters' whole domain; values
    outside it (a Pareto exponent alpha = -1) pass the constraints' own
    checks but give a negative or non-finite density.  The constraint set
    is checked as :func:`derive` checks it, then each piece of the density
    at an interior point.
    """

    support = support_of(distribution.constraints)
    # the bounds that do not bind need not be reachable as equalities
    active = distribution.active or ()
    binding = [c.as_equality() for c in distribution.constraints if c.relation == "==" or c in active]
    terms, _ = make_terms(binding, support)
    check_ranges(terms, support)
    shown = ", ".join(f"{name}={value!r}" for name, value in values.items())
    arg = next(iter(values)) if len(values) == 1 else ", ".join(values)
    for lower, upper, density in zip(distribution.breakpoints, distribution.breakpoints[1:],
                                     distribution._pdf_pieces):
        if density.has(sympy.nan) or density.has(sympy.zoo):
            bad = True
        elif density.free_symbols - {kappa}:
            bad = density.is_negative is True or density.is_zero is True
        else:
            if upper == oo:
                inside = 2 * lower if lower != 0 else sympy.Integer(1)
            else:
                inside = (lower + upper) / 2
            value = sympy.N(density.subs(kappa, inside))
            bad = not (value.is_real and value.is_finite and value > 0)
        if bad:
            raise ConstraintError(argument_message(
                arg, "CaptimeDistribution.subs",
                f"a value for which the constraints {', '.join(map(repr, distribution.constraints))} "
                f"give a probability density (on [{lower}, {upper}) it came out as {density})", shown))


def _sensible_partial(partial: sympy.Expr, piece: Any) -> bool:
    """Whether a piece's CDF increment is a real number in [0, 1] inside the piece (a numeric
    multiplier put into a generic closed form can give erf(1e8*I) times 1e-4889721167171362)."""
    if partial.has(sympy.Integral):
        return True
    upper = piece.upper if piece.upper != oo else (2 * piece.lower if piece.lower != 0 else sympy.Integer(1))
    inside = (piece.lower + upper) / 2
    try:
        value = sympy.N(partial.subs(kappa, inside), 20)
    except Exception:  # cannot be evaluated: not usable
        return False
    return bool(value.is_real and value.is_finite and -1e-12 <= value <= 1 + 1e-12)


def _unusable(value: sympy.Expr) -> bool:
    return bool(value.has(sympy.Integral) or value.has(sympy.nan) or value.has(sympy.exp_polar)
                or value.has(sympy.I) or value.has(sympy.zoo))


def _before(a: sympy.Expr, b: sympy.Expr) -> bool:

    return bool(provably_less(a, b))
