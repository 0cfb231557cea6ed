"""Hypothesis strategies for constraint sets drawn the way people type them.

A drawn set is a :class:`Spec`: plain data (kinds, typed values, relations) from which the
tests build both the library's constraints and the independent dual solver's problem
(tests/dual.py), so that neither is derived from the other.  Values have 2 to 4 significant
decimal digits and reach the library either as text ("0.231", "15") or as the float of that
text; scales run from 1e-3 to 1e5; supports are bounded, half-infinite or span decades; log
moments have offsets (``LogMoment(v)`` with ``v != 0``); every moment kind comes with each
relation (``==``, ``<=``, ``>=``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from hypothesis import strategies as st

import dual

#: the moment kinds drawn (every registered kind but Support and ContinuousAt, which are drawn
#: as the support and in the log-Laplace template)
MOMENT_KINDS = ("Mean", "LogMoment", "LogMomentSide", "SquaredLogDeviation", "TailProbability", "Moment")
RELATIONS = ("==", "<=", ">=")
#: the features a drawn Moment(expr, ...) may fix
MOMENT_EXPRESSIONS = ("kappa", "log(kappa)", "log(kappa)**2")


def decimal_text(x: float, digits: int) -> str:
    """``x`` rounded to ``digits`` significant digits, written as a person would type it."""
    if x == 0:
        return "0"
    text = np.format_float_positional(x, precision=digits, unique=False, fractional=False, trim="-")
    return text.rstrip(".") if "." in text else text


@dataclass(frozen=True)
class Value:
    """A typed value: its text, and whether the library is given the text or its float."""

    text: str
    as_text: bool

    @property
    def number(self) -> float:
        return dual.typed(self.text)

    def given(self):
        return self.text if self.as_text else float(self.text)

    def __repr__(self) -> str:
        return repr(self.given())


@dataclass(frozen=True)
class Item:
    """One constraint: its kind, its arguments (Values, or text for Moment's expression),
    relation and options."""

    kind: str
    args: tuple
    relation: str = "=="
    side: str | None = None
    where: tuple | None = None

    def constraint(self):
        """The library's constraint."""
        import maxent_util as mu

        args = [a.given() if isinstance(a, Value) else a for a in self.args]
        keywords = {} if self.relation == "==" else {"relation": self.relation}
        if self.kind == "Mean":
            return mu.Mean(*args, **keywords)
        if self.kind == "LogMoment":
            return mu.LogMoment(*args, side=self.side, **keywords) if self.side else mu.LogMoment(*args, **keywords)
        if self.kind == "SquaredLogDeviation":
            return mu.SquaredLogDeviation(*args, **keywords)
        if self.kind == "TailProbability":
            return mu.TailProbability(*args, **keywords)
        if self.kind == "Moment":
            where = None if self.where is None else tuple(w.given() for w in self.where)
            return mu.Moment(*args, where=where, **keywords)
        if self.kind == "ContinuousAt":
            return mu.ContinuousAt(*args)
        raise AssertionError(self.kind)

    def feature(self) -> dual.Feature | None:
        """The dual solver's feature (None for ContinuousAt)."""
        n = [a.number if isinstance(a, Value) else a for a in self.args]
        if self.kind == "Mean":
            return dual.mean(n[0], self.relation)
        if self.kind == "LogMoment":
            return dual.log_moment(n[0], n[1] if len(n) > 1 else 1.0, self.relation, self.side)
        if self.kind == "SquaredLogDeviation":
            return dual.squared_log_deviation(n[0], n[1] if len(n) > 1 else 1.0, self.relation)
        if self.kind == "TailProbability":
            return dual.tail_probability(n[0], n[1], self.relation)
        if self.kind == "Moment":
            where = None if self.where is None else tuple(w.number for w in self.where)
            return dual.moment(n[0], n[1], where, self.relation)
        return None

    def call(self) -> str:
        """The constraint as Python source, for reports."""
        parts = [repr(a) for a in self.args]
        if self.side:
            parts.append(f"side={self.side!r}")
        if self.where is not None:
            parts.append(f"where=({self.where[0]!r}, {self.where[1]!r})")
        if self.relation != "==":
            parts.append(f"relation={self.relation!r}")
        return f"{self.kind}({', '.join(parts)})"


@dataclass(frozen=True)
class Spec:
    """A support and constraint items."""

    lower: Value
    upper: Value | None  # None: infinite
    items: tuple[Item, ...]

    def constraints(self) -> tuple:
        import maxent_util as mu

        upper = "oo" if self.upper is None else self.upper.given()
        return (mu.Support(self.lower.given(), upper),) + tuple(i.constraint() for i in self.items)

    def problem(self) -> dual.Problem:
        upper = math.inf if self.upper is None else self.upper.number
        features = tuple(f for f in (i.feature() for i in self.items) if f is not None)
        continuous = tuple(i.args[0].number for i in self.items if i.kind == "ContinuousAt")
        return dual.Problem(self.lower.number, upper, features, continuous)

    def call(self) -> str:
        """The derive(...) call, as Python source."""
        upper = '"oo"' if self.upper is None else repr(self.upper)
        return f"derive(Support({self.lower!r}, {upper}), {', '.join(i.call() for i in self.items)})"


@st.composite
def typed_values(draw, low: float, high: float, *, log: bool = False, digits=None) -> Value:
    """A value in [low, high] (uniform, or uniform in log), rounded to 2-4 significant digits,
    given as text or as a float.  The rounding may step just outside the interval."""
    u = draw(st.floats(0.0, 1.0))
    x = math.exp(math.log(low) + u * (math.log(high) - math.log(low))) if log else low + u * (high - low)
    digits = digits or draw(st.integers(2, 4))
    text = decimal_text(x, digits)
    if dual.typed(text) == 0 and low > 0:
        text = decimal_text(low, digits)
    return Value(text, draw(st.booleans()))


def _log(x: float) -> float:
    return math.log(x)


@st.composite
def supports(draw):
    """(lower, upper or None, scale): bounded, half-infinite, or spanning decades; the scale
    (a typical captime) from 1e-3 to 1e5."""
    scale = dual.typed(draw(typed_values(1e-3, 1e5, log=True)).text)
    kind = draw(st.sampled_from(("bounded", "half", "decades")))
    lower = Value("0", draw(st.booleans())) if draw(st.booleans()) else draw(
        typed_values(0.01 * scale, scale, log=True))
    a = lower.number
    if kind == "half":
        return lower, None, scale
    if kind == "bounded":
        upper = draw(typed_values(max(a, scale) * 1.5, max(a, scale) * 50, log=True))
    else:
        lower = lower if a == 0 else draw(typed_values(1e-3 * scale, 1e-1 * scale, log=True))
        upper = draw(typed_values(10 * scale, 1e3 * scale, log=True))
    if upper.number <= lower.number:
        upper = Value(decimal_text(2 * lower.number + scale, 3), upper.as_text)
    return lower, upper, scale


@st.composite
def inside(draw, a: float, b: float | None, scale: float) -> Value:
    """A typed captime inside the support (bounded: between its ends; else near the scale)."""
    if b is None:
        return draw(typed_values(max(a, 0.1 * scale) * 1.05, max(a, scale) * 10, log=True))
    low = a + 0.02 * (b - a)
    return draw(typed_values(low if low > 0 else 1e-3 * b, a + 0.98 * (b - a), log=a == 0 or b / max(a, 1e-300) > 20))


@st.composite
def items(draw, a: float, b: float | None, scale: float) -> Item:
    kind = draw(st.sampled_from(MOMENT_KINDS))
    relation = draw(st.sampled_from(RELATIONS))
    if kind == "Mean":
        return Item("Mean", (draw(inside(a, b, scale)),), relation)
    if kind in ("LogMoment", "SquaredLogDeviation"):
        k0 = draw(inside(a, b, scale))
        if kind == "LogMoment":
            # an offset: log(x/kappa0) for a captime x of the support, typed (may be negative)
            x = draw(inside(a, b, scale)).number
            offset = math.log(x / k0.number)
            value = Value(decimal_text(offset, draw(st.integers(2, 4))) if abs(offset) > 1e-3 else "0",
                          draw(st.booleans()))
            return Item("LogMoment", (value, k0), relation)
        hi = 3.0 if b is None else max(0.06, min(3.0, math.log(b / max(a, 1e-3 * b))))
        return Item(kind, (draw(typed_values(0.05, hi, log=True)), k0), relation)
    if kind == "LogMomentSide":
        k0 = draw(inside(a, b, scale))
        side = draw(st.sampled_from(("above", "below")))
        return Item("LogMoment", (draw(typed_values(0.05, 3.0, log=True)), k0), relation, side=side)
    if kind == "TailProbability":
        return Item("TailProbability", (draw(inside(a, b, scale)), draw(typed_values(0.01, 0.99))), relation)
    expr = draw(st.sampled_from(MOMENT_EXPRESSIONS))
    where = None
    if draw(st.booleans()):
        ends = sorted({draw(inside(a, b, scale)).text, draw(inside(a, b, scale)).text}, key=dual.typed)
        if len(ends) == 2:
            where = (Value(ends[0], True), Value(ends[1], False))
    x = draw(inside(a, b, scale)).number
    share = 1.0 if where is None else draw(st.floats(0.05, 0.9))
    target = {"kappa": x, "log(kappa)": math.log(x), "log(kappa)**2": math.log(x) ** 2 + 0.5}[expr] * share
    return Item("Moment", (expr, Value(decimal_text(target, draw(st.integers(2, 4))), draw(st.booleans()))),
                relation, where=where)


@st.composite
def log_laplace_sets(draw) -> Spec:
    """The generalized log-Laplace template: both conditional log moments around kappa0 and
    continuity there, sometimes with a relation on one side."""
    k0 = draw(typed_values(1e-3, 1e5, log=True))
    below = draw(typed_values(0.05, 20.0, log=True))
    above = draw(typed_values(0.05, 20.0, log=True))
    relations = draw(st.sampled_from((("==", "=="), ("==", "=="), ("<=", "=="), ("==", ">="))))
    return Spec(Value("0", True), None, (
        Item("LogMoment", (below, k0), relations[0], side="below"),
        Item("LogMoment", (above, k0), relations[1], side="above"),
        Item("ContinuousAt", (k0,))))


@st.composite
def log_normal_sets(draw) -> Spec:
    """The issue's log-normal with an offset: SquaredLogDeviation(sigma, k0), LogMoment(v, k0)."""
    k0 = draw(typed_values(1e-3, 1e5, log=True))
    sigma = draw(typed_values(0.05, 3.0, log=True))
    v = draw(typed_values(-0.95, 0.95))
    v = Value(decimal_text(v.number * sigma.number, draw(st.integers(2, 4))) or "0", v.as_text)
    relation = draw(st.sampled_from(RELATIONS + ("==", "==")))
    return Spec(Value("0", draw(st.booleans())), None,
                (Item("SquaredLogDeviation", (sigma, k0), relation), Item("LogMoment", (v, k0))))


@st.composite
def general_sets(draw) -> Spec:
    lower, upper, scale = draw(supports())
    n = draw(st.integers(1, 3))
    b = None if upper is None else upper.number
    drawn = tuple(draw(items(lower.number, b, scale)) for _ in range(n))
    return Spec(lower, upper, drawn)


def constraint_sets():
    """Every kind of set: the general draw, the log-normal with offset, the log-Laplace template."""
    return st.one_of(general_sets(), general_sets(), log_normal_sets(), log_laplace_sets())
