"""The derived captime law: :class:`CaptimeDistribution`, one class whatever route solved it.

Its closed form is built by :mod:`.closed_form` (at once, or on first read for a law of the
fast route), its numbers come from :mod:`.numbers`, and its derivation record is read by
:mod:`.record`.
"""

from __future__ import annotations

import math
import re
import threading
from typing import Any

import sympy

from .._immutable import FrozenDict, Immutable
from .._scipy import make_family, make_rv
from .._sizes import EXACT_BITS, grew
from ..constraints import to_sympy
from ..errors import ConstraintError, NoClosedFormError, argument_message
from ..problem import piecewise_over
from ..scorer import compile_scorer
from ..symbols import kappa, t
from ..utility import Utility
from .closed_form import _FOLDED_DIGITS, _at_digits, closed_form_parts, mean_of
from .numbers import _disagreements, _double_precision_sf, _QuadratureLaw
from .record import _check_substitution, active_cases, entropy_of, substituted_record

__all__ = ["CaptimeDistribution"]

oo = sympy.oo


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
                       derivation, timeout, deadline=None, density=None) -> "CaptimeDistribution":
        # every step shares one deadline (derive's); `timeout` is kept for later methods
        built = closed_form_parts(constraints, pieces, terms, solution, parts, closed_form, derivation,
                                  deadline if deadline is not None else timeout, density=density)
        return cls(constraints=constraints, support=support, closed_form=closed_form,
                   timeout=math.inf if timeout is None else timeout, **built)

    @property
    def active_cases(self) -> tuple:
        return active_cases(self.derivation)

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
        return mean_of(self)


    def entropy(self) -> sympy.Expr:
        """The differential entropy, from the multipliers (no integration).

        At the maximum the entropy is 1 + lambda_0 + sum_i lambda_i E[g_i 1_i], with the
        constrained expectations read off the constraints.

        Returns
        -------
        sympy.Expr
            The entropy in nats, simplified (within the law's time limit).
        """
        return entropy_of(self)


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

        record = substituted_record(self.derivation, mapping, sub, folded=bool(folded))
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
