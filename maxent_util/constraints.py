"""Constraints on the captime ``kappa``.

Every constraint kind except :class:`Support` and :class:`ContinuousAt` is a
:class:`Moment`: it fixes the expectation of one feature ``g(kappa)`` over
one region of the captime axis.  A conditional statement such as
E[g | kappa in R] = v is the linear moment E[(g - v) 1{kappa in R}] = 0,
which is how the order-of-magnitude tail conditions enter the Lagrangian.

Adding a kind is one small class: subclass :class:`Moment`, name its
arguments in ``argument_names``, and implement ``feature()`` (and optionally
``check()``).  Subclasses register themselves, so the command line, the LaTeX
export and the tests that run over every kind pick a new kind up unchanged.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar, Mapping

import sympy

from .errors import ConstraintError, argument_message
from . import expressions
from ._printing import interval_latex, latex
from .expressions import as_expression
from .symbols import RESERVED_NAMES, kappa

__all__ = [
    "Constraint",
    "Feature",
    "Support",
    "Moment",
    "Mean",
    "LogMoment",
    "SquaredLogDeviation",
    "TailProbability",
    "ContinuousAt",
    "constraint_kinds",
    "to_sympy",
    "RELATIONS",
]

oo = sympy.oo


def to_sympy(value: Any, *, arg: str = "value", owner: str = "Constraint") -> sympy.Expr:
    """Turn a number, a text or a sympy object into a sympy expression.

    Text is read by the one safe reader (:func:`maxent_util.expressions.read_expression`),
    never evaluated.  A name such as ``"kappa0"`` becomes a *positive* symbol:
    every natural parameter of a captime law (a time, a rate, a spread, a
    probability) is positive, and saying so lets sympy settle the
    convergence of the integrals.  Pass a sympy ``Symbol`` to choose other
    assumptions.  Short decimals become exact rationals (``0.3`` becomes
    ``3/10``), so symbolic results stay exact; a float with more than
    ``EXACT_DIGITS`` significant digits stays a Float (see ``_float_to_sympy``).

    >>> to_sympy(0.3), to_sympy(1.670534513553897), to_sympy("1/alpha")
    (3/10, 1.67053451355390, 1/alpha)
    """
    if isinstance(value, float) and math.isfinite(value):
        return _float_to_sympy(value)
    return as_expression(value, arg=arg, owner=owner, exact="short", new_symbol=_positive_symbol,
                         error=ConstraintError, check_size=True)


def check_parameter_names(value: sympy.Expr, arg: str, owner: str, shown: Any) -> None:
    """Refuse a parameter named as one of the library's variables: ``Mean("t")`` would
    give a law whose utility divides t by itself."""
    clash = sorted(s.name for s in value.free_symbols if s.name in RESERVED_NAMES)
    if clash:
        raise ConstraintError(argument_message(
            arg, owner, f"free of the names the library keeps for its variables "
            f"({', '.join(RESERVED_NAMES)})", shown, f"Name the parameter otherwise than "
            f"{clash[0]!r}, e.g. {clash[0]}0."))


def _positive_symbol(name: str) -> sympy.Symbol:
    return sympy.Symbol(name, positive=True)


#: floats with at most this many significant digits become exact rationals (0.3 -> 3/10)
EXACT_DIGITS = expressions.EXACT_DIGITS


def _float_to_sympy(value: float) -> sympy.Expr:
    """A short decimal (``0.3``, ``12.5``) as an exact Rational, any other float as a Float.

    A float such as ``1.670534513553897`` (a tail exponent estimated from data) read as the
    rational 1670534513553897/10**15 makes sympy raise integers to powers with huge
    denominators, which can take minutes; as a Float it is evaluated at once.
    """
    mantissa = repr(abs(value)).lower().split("e")[0].replace(".", "").lstrip("0").rstrip("0")
    if len(mantissa) <= EXACT_DIGITS and abs(value) < 1e15:
        return sympy.Rational(repr(value))
    return sympy.Float(value)


def provably(relation: Any) -> bool | None:
    """True/False when sympy can decide ``relation``; None when it cannot."""
    decided = relation
    if decided in (sympy.true, True):
        return True
    if decided in (sympy.false, False):
        return False
    return None


@dataclass(frozen=True)
class Feature:
    """One term of the Lagrangian: E[expr(kappa) 1{lower <= kappa < upper}] = value."""

    expr: sympy.Expr
    value: sympy.Expr
    lower: sympy.Expr = -oo
    upper: sympy.Expr = oo


_registry: dict[str, type["Constraint"]] = {}

#: the relations a moment constraint states between E[g] and its value: equal, at most, at least
RELATIONS = ("==", "<=", ">=")


def constraint_kinds() -> dict[str, type["Constraint"]]:
    """Every registered constraint kind, by class name.

    Returns
    -------
    dict of str to type
        Class name -> constraint class, in definition order; a new subclass of
        :class:`Constraint` registers itself.
    """
    return dict(_registry)


#: srepr of sympy values met before, by identity (each kept with its value, so that the id is
#: not reused while it is here): sympy hands out one object for ``oo``, ``kappa`` and, from its
#: cache, ``kappa**2`` made again, and a value never changes
_SREPR_KEPT: dict[int, tuple[sympy.Basic, str]] = {}
_SREPR_KEEP = 512


def _srepr(value: Any) -> Any:
    """``sympy.srepr`` of a sympy value (the same text, without the printer for the plain
    numbers every derive call hashes, nor for a value met before); other values as they are."""
    if isinstance(value, sympy.Integer):
        return f"Integer({value.p})"
    if isinstance(value, sympy.Rational):
        return f"Rational({value.p}, {value.q})"
    if not isinstance(value, sympy.Basic):
        return value
    kept = _SREPR_KEPT.get(id(value))
    if kept is not None and kept[0] is value:
        return kept[1]
    text = sympy.srepr(value)
    if len(_SREPR_KEPT) >= _SREPR_KEEP:
        _SREPR_KEPT.clear()
    _SREPR_KEPT[id(value)] = (value, text)
    return text


class Constraint:
    """Base class of the constraints on the captime distribution.

    Subclasses list their arguments in ``argument_names``; the constructor
    turns each into a sympy expression and calls :meth:`check`.  A check
    raises only when a condition is provably false, so symbols pass.
    """

    argument_names: ClassVar[tuple[str, ...]] = ()
    #: arguments that may be infinite (every other one must be finite)
    may_be_infinite: ClassVar[tuple[str, ...]] = ()
    #: keyword arguments that are not sympy values (e.g. ``side``)
    option_names: ClassVar[tuple[str, ...]] = ()
    #: whether the kind takes ``relation="<="`` or ``">="`` (the moment kinds do)
    takes_relation: ClassVar[bool] = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        _registry[cls.__name__] = cls

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        relation = "=="
        if self.takes_relation and "relation" in kwargs:
            relation = kwargs.pop("relation")
            if not isinstance(relation, str) or relation not in RELATIONS:
                raise ConstraintError(argument_message(
                    "relation", type(self).__name__, "one of '==', '<=', '>=' (E[g] equal to, at most "
                    "or at least the value)", relation))
        self._relation = relation
        names = self.argument_names + self.option_names
        if len(args) > len(names):
            raise ConstraintError(
                f"`{type(self).__name__}` takes at most {len(names)} arguments "
                f"({', '.join(names)}); got {len(args)}.")
        values = dict(zip(names, args))
        for key, value in kwargs.items():
            if key not in names:
                raise ConstraintError(
                    f"`{type(self).__name__}` has no argument `{key}`; its arguments are {', '.join(names)}.")
            if key in values:
                raise ConstraintError(f"`{key}` of `{type(self).__name__}` was given twice.")
            values[key] = value
        self._arguments: dict[str, Any] = {}
        for name in self.argument_names:
            if name not in values:
                self._arguments[name] = self._default(name)
            else:
                value = to_sympy(values[name], arg=name, owner=type(self).__name__)
                if name != "expr":
                    check_parameter_names(value, name, type(self).__name__, values[name])
                if name not in self.may_be_infinite and value.has(oo, -oo):
                    raise ConstraintError(argument_message(name, type(self).__name__, "finite",
                                                           values[name]))
                self._arguments[name] = value
        for name in self.option_names:
            self._arguments[name] = values.get(name, self._default(name))
        self.check()

    # -- declaration -----------------------------------------------------
    def _default(self, name: str) -> Any:
        raise ConstraintError(f"`{type(self).__name__}` needs the argument `{name}`.")

    def check(self) -> None:
        """Refuse arguments that are provably invalid; the constructor calls it.

        Symbolic arguments pass unless a requirement is provably false.  The base class
        checks nothing; each kind checks its own arguments.

        Raises
        ------
        ConstraintError
            If an argument provably breaks the kind's requirements.
        """

    def feature(self) -> Feature | None:
        """The feature whose expectation this constraint fixes.

        Returns
        -------
        Feature or None
            The Lagrangian term E[expr(kappa) 1{lower <= kappa < upper}] = value that the
            constraint adds; None for a constraint that adds no term (:class:`Support`).
        """
        return None

    # -- helpers for checks ----------------------------------------------
    def _require(self, name: str, relation: Any, requirement: str, remedy: str | None = None) -> None:
        if provably(relation) is False:
            raise ConstraintError(argument_message(name, type(self).__name__, requirement,
                                                   self._display(name), remedy))

    def _display(self, name: str) -> Any:
        value = self._arguments[name]
        if isinstance(value, sympy.Basic) and value.is_number and value.is_finite:
            return float(value) if not value.is_Integer else int(value)
        return value if not isinstance(value, sympy.Basic) else str(value)

    # -- value semantics -------------------------------------------------
    @property
    def arguments(self) -> dict[str, Any]:
        return dict(self._arguments)

    @property
    def relation(self) -> str:
        """``"=="`` (E[g] equals the value, the default), ``"<="`` (at most) or ``">="`` (at least)."""
        return self.__dict__.get("_relation", "==")

    def as_equality(self) -> "Constraint":
        """The same constraint with ``relation="=="`` (itself when it already is one).

        Returns
        -------
        Constraint
            A constraint of the same kind and arguments stating E[g] = value.
        """
        if self.relation == "==":
            return self
        return type(self)(**self._arguments)

    def __getattr__(self, name: str) -> Any:
        arguments = self.__dict__.get("_arguments")
        if arguments is not None and name in arguments:
            return arguments[name]
        raise AttributeError(name)

    @property
    def free_symbols(self) -> set[sympy.Symbol]:
        symbols: set[sympy.Symbol] = set()
        for value in self._arguments.values():
            if isinstance(value, sympy.Basic):
                symbols |= value.free_symbols
        return symbols - {kappa}

    def subs(self, mapping: dict) -> "Constraint":
        """A copy with symbols replaced; the arguments are checked again.

        Parameters
        ----------
        mapping : dict
            The constraint's symbols (or their names) -> numbers, sympy expressions or
            expression texts; texts are read by the safe reader, never evaluated.

        Returns
        -------
        Constraint
            A new constraint of the same kind.

        Raises
        ------
        ConstraintError
            If ``mapping`` is not a mapping, a key is neither a sympy symbol nor the name
            of one of the constraint's symbols, a value cannot be read, an argument becomes
            undefined or infinite (``1/alpha`` at ``alpha = 0``), or the new arguments fail
            the kind's check.
        """
        owner = f"{type(self).__name__}.subs"
        if not isinstance(mapping, Mapping):
            raise ConstraintError(argument_message("mapping", owner, "a dict from symbols to values", mapping))
        own = {symbol.name: symbol for value in self._arguments.values() if isinstance(value, sympy.Basic)
               for symbol in value.free_symbols}
        safe = {}
        for key, value in mapping.items():
            symbol = own.get(key) if isinstance(key, str) else key
            if not isinstance(symbol, sympy.Symbol):
                raise ConstraintError(argument_message(
                    "mapping", owner, f"keys that are sympy symbols or the names of the constraint's "
                    f"symbols ({', '.join(sorted(own)) or 'none'})", key))
            # values go through the safe reader: sympy's subs would sympify (evaluate) a text
            safe[symbol] = to_sympy(value, arg=symbol.name, owner=owner)
        mapping = safe
        new = {k: (v.subs(mapping) if isinstance(v, sympy.Basic) else v)
               for k, v in self._arguments.items()}
        for name, value in new.items():
            # 1/alpha at alpha = 0 comes out as zoo, which no check below would refuse
            if isinstance(value, sympy.Basic) and (value.has(sympy.zoo) or value.has(sympy.nan)):
                raise ConstraintError(argument_message(
                    name, type(self).__name__, "finite after the substitution",
                    str(self._arguments[name]), f"Substituting {mapping} makes it {value}."))
        if self.relation != "==":
            new["relation"] = self.relation
        return type(self)(**new)

    def _key(self) -> tuple:
        # a constraint does not change once made: its key (srepr of every value) is made once,
        # since every derive call hashes it to find its law
        cached = self.__dict__.get("_cached_key")
        if cached is not None:
            return cached
        key = (type(self).__name__,) + tuple((k, _srepr(v)) for k, v in self._arguments.items())
        # an equality keeps the key it always had; an inequality differs from it
        key = key if self.relation == "==" else key + (("relation", self.relation),)
        self.__dict__["_cached_key"] = key
        return key

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Constraint) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        parts = [str(v) if isinstance(v, sympy.Basic) else repr(v)
                 for k, v in self._arguments.items() if k in self.argument_names]
        parts += [f"{k}={v!r}" for k, v in self._arguments.items()
                  if k in self.option_names and v is not None]
        if self.relation != "==":
            parts.append(f"relation={self.relation!r}")
        return f"{type(self).__name__}({', '.join(parts)})"

    def _relate(self, left: sympy.Expr, right: sympy.Expr) -> sympy.Basic:
        """``left == right``, ``left <= right`` or ``left >= right`` as the constraint's relation says."""
        return {"==": sympy.Eq, "<=": sympy.Le, ">=": sympy.Ge}[self.relation](left, right)

    def statement(self) -> sympy.Basic:
        """The constraint as a sympy relation, for printing.

        Returns
        -------
        sympy.Basic
            ``Eq(E(feature), value)`` by default; a kind may state itself otherwise
            (``Contains`` for :class:`Support`, a limit for :class:`ContinuousAt`).

        Raises
        ------
        NotImplementedError
            For a kind with neither a feature nor a statement of its own.
        """
        feature = self.feature()
        if feature is None:
            raise NotImplementedError
        return self._relate(_expectation(feature), feature.value)

    def latex(self) -> str:
        """The constraint in LaTeX, as the paper states it.

        Returns
        -------
        str
            Math-mode LaTeX without ``$``; the kind's name as text when it has no statement.
        """
        try:
            return latex(self.statement())
        except NotImplementedError:
            return rf"\text{{{type(self).__name__}}}"

    def _repr_latex_(self) -> str:
        return f"${self.latex()}$"


def _expectation(feature: Feature) -> sympy.Expr:
    expectation = sympy.Function("E")
    if feature.lower == -oo and feature.upper == oo:
        return expectation(feature.expr)
    region = sympy.Interval(max(feature.lower, 0) if feature.lower.is_number else feature.lower,
                            feature.upper, right_open=True)
    return expectation(feature.expr * sympy.Function("1")(sympy.Contains(kappa, region)))


class Support(Constraint):
    """The captime lies in ``[lower, upper]``; ``upper`` may be infinite.

    Alone, a bounded support gives the uniform law of the paper's
    Appendix C ("Bounded (uniform)").
    """

    argument_names = ("lower", "upper")
    may_be_infinite = ("upper",)

    def check(self) -> None:
        self._require("lower", self.lower >= 0, "non-negative (a captime is a duration)")
        self._require("lower", self.lower < oo, "finite")
        self._require("upper", self.upper > self.lower, f"greater than `lower` = {self.lower}")

    def statement(self) -> sympy.Basic:
        return sympy.Contains(kappa, sympy.Interval(self.lower, self.upper))

    def latex(self) -> str:
        # Contains(kappa, [0, oo)) evaluates to True for a positive kappa: print it by hand
        return rf"\kappa \in {interval_latex(self.lower, self.upper)}"


class Moment(Constraint):
    """The general moment constraint E[g(kappa) 1{kappa in where}] = value.

    ``where`` is ``None`` (the whole support) or a pair ``(lower, upper)``,
    read as the half-open interval ``[lower, upper)``.  Every other moment
    kind is a thin specialisation of this one.

    Every moment kind takes ``relation="<="`` (E[g] at most the value) or
    ``relation=">="`` (at least) instead of the default ``"=="``: a bound
    the law must respect, active (met with equality) only when it binds.
    """

    argument_names = ("expr", "value")
    option_names = ("where",)
    takes_relation = True

    def _default(self, name: str) -> Any:
        if name == "where":
            return None
        return super()._default(name)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        where = self._arguments.get("where")
        if where is not None:
            if isinstance(where, sympy.Interval):
                where = (where.start, where.end)
            if not (isinstance(where, (tuple, list)) and len(where) == 2):
                raise ConstraintError(argument_message(
                    "where", type(self).__name__, "a pair (lower, upper) or a sympy Interval", where))
            lower, upper = (to_sympy(w, arg="where", owner=type(self).__name__) for w in where)
            for end in (lower, upper):
                check_parameter_names(end, "where", type(self).__name__, where)
            if provably(upper > lower) is False:
                raise ConstraintError(argument_message(
                    "where", type(self).__name__, "an interval with upper > lower", where))
            self._arguments["where"] = (lower, upper)

    def check(self) -> None:
        if type(self) is Moment:
            expr = self._arguments["expr"]
            stray = expr.free_symbols - {kappa}
            if kappa not in expr.free_symbols:
                symbols = {s.name for s in expr.free_symbols}
                if "kappa" not in symbols:
                    raise ConstraintError(argument_message(
                        "expr", "Moment", "an expression in `maxent_util.kappa`", str(expr)))
                # a user's own Symbol("kappa") without assumptions: use ours
                self._arguments["expr"] = expr.subs({s: kappa for s in stray if s.name == "kappa"})

    def feature(self) -> Feature:
        where = self._arguments.get("where")
        if where is None:
            return Feature(self.expr, self.value)
        return Feature(self.expr, self.value, where[0], where[1])

    def _key(self) -> tuple:
        return super()._key()


class Mean(Moment):
    """E[kappa] = value: with ``Support(0, oo)`` the exponential law (Appendix C,
    "Fixed Expectation (exponential)")."""

    argument_names = ("value",)
    option_names = ()

    def check(self) -> None:
        self._require("value", self.value > 0, "positive (the mean of a captime)")
        self._require("value", self.value < oo, "finite")

    def feature(self) -> Feature:
        return Feature(kappa, self.value)


class LogMoment(Moment):
    """The order of magnitude of the captime, E[log(kappa/kappa0)] = value.

    ``side="above"`` states E[log(kappa/kappa0) | kappa >= kappa0] = value and
    ``side="below"`` states E[log(kappa0/kappa) | kappa < kappa0] = value: the
    tail conditions of the paper's Section 3.  With ``Support(kappa0, oo)``
    the plain form gives the Pareto law; both sides with :class:`ContinuousAt`
    give the (generalized) log-Laplace (Appendix C).
    """

    argument_names = ("value", "kappa0")
    option_names = ("side",)

    def _default(self, name: str) -> Any:
        if name == "side":
            return None
        if name == "kappa0":
            return sympy.Integer(1)
        return super()._default(name)

    def check(self) -> None:
        side = self._arguments["side"]
        if side not in (None, "above", "below"):
            raise ConstraintError(argument_message("side", "LogMoment", "None, 'above' or 'below'", side))
        self._require("kappa0", self.kappa0 > 0, "positive (a captime scale)")
        self._require("kappa0", self.kappa0 < oo, "finite")
        if side is not None:
            self._require("value", self.value > 0,
                          f"positive (a conditional log-distance on the {side} side)")

    def feature(self) -> Feature:
        side = self._arguments["side"]
        if side is None:
            return Feature(sympy.log(kappa / self.kappa0), self.value)
        if side == "above":
            return Feature(sympy.log(kappa / self.kappa0) - self.value, sympy.Integer(0), self.kappa0, oo)
        return Feature(sympy.log(self.kappa0 / kappa) - self.value, sympy.Integer(0), -oo, self.kappa0)

    def statement(self) -> sympy.Basic:
        side = self._arguments["side"]
        expectation = sympy.Function("E")
        if side is None:
            return self._relate(expectation(sympy.log(kappa / self.kappa0)), self.value)
        if side == "above":
            return self._relate(expectation(sympy.log(kappa / self.kappa0), sympy.Ge(kappa, self.kappa0)),
                                self.value)
        return self._relate(expectation(sympy.log(self.kappa0 / kappa), sympy.Lt(kappa, self.kappa0)),
                            self.value)


class SquaredLogDeviation(Moment):
    """E[(log(kappa/kappa0))**2] = sigma**2: with E[log(kappa/kappa0)] = 0 the
    log-normal law (Appendix C, "Fixed squared-deviation (log-normal)")."""

    argument_names = ("sigma", "kappa0")
    option_names = ()

    def check(self) -> None:
        self._require("sigma", self.sigma > 0, "positive (a spread)")
        self._require("kappa0", self.kappa0 > 0, "positive (a captime scale)")

    def feature(self) -> Feature:
        return Feature(sympy.log(kappa / self.kappa0) ** 2, self.sigma ** 2)


class TailProbability(Moment):
    """P(kappa < kappa1) = delta, the left tail: the chance delta that the captime
    is below kappa1 (the designer's right tail, "still waiting after kappa1" one
    time in ten, is delta = 0.9).

    With a bounded support the law is the piecewise-uniform one of Appendix C
    ("Bounded support and left tail").
    """

    argument_names = ("kappa1", "delta")
    option_names = ()

    def check(self) -> None:
        self._require("kappa1", self.kappa1 > 0, "positive (a captime)")
        self._require("kappa1", self.kappa1 < oo, "finite")
        self._require("delta", self.delta > 0, "a probability in (0, 1)")
        self._require("delta", self.delta < 1, "a probability in (0, 1)")

    def feature(self) -> Feature:
        return Feature(sympy.Integer(1), self.delta, -oo, self.kappa1)

    def statement(self) -> sympy.Basic:
        return self._relate(sympy.Function("P")(sympy.Lt(kappa, self.kappa1)), self.delta)


class ContinuousAt(Constraint):
    """The density is continuous at ``kappa0``.

    Not a moment: it frees the probability P(kappa < kappa0) (a multiplier on
    the indicator 1{kappa < kappa0}) and fixes it by asking the two sides of
    the density to meet at ``kappa0``: the smoothness condition that gives
    p = alpha/(alpha + beta) for the generalized log-Laplace (Section 3).
    """

    argument_names = ("kappa0",)

    def check(self) -> None:
        self._require("kappa0", self.kappa0 > 0, "positive (a captime)")
        self._require("kappa0", self.kappa0 < oo, "finite")

    def feature(self) -> Feature:
        # the free multiplier multiplies this indicator; its equation is continuity
        return Feature(sympy.Integer(1), sympy.nan, -oo, self.kappa0)

    def statement(self) -> sympy.Basic:
        f = sympy.Function("f")
        return sympy.Eq(sympy.Limit(f(kappa), kappa, self.kappa0, "-"), f(self.kappa0))
