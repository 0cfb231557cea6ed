"""One answer read against the ones before it: the constraints it becomes, and the conflicts
between answers, said in the person's terms."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Mapping

import sympy

from ..constraints import LogMoment, Mean, SquaredLogDeviation, Support, TailProbability
from ..durations import readable_duration
from ..errors import MaxEntError, argument_message, short
from ..families import parse_family
from .questions import (BY_KEY, FACT_KEYS, OWNER, DesignError, chance_words, read_choice, read_factor,
                        median_text, read_magnitude, read_number, read_seconds, read_tail, refuse,
                        said_approximately, say)

oo = sympy.oo

@dataclass(frozen=True)
class Fact:
    """One answer as read: its value, what it says, and the constraints it becomes.

    Attributes
    ----------
    key : str
        The question answered.
    value : Any
        The answer read: exact seconds, a chance, a factor, a choice or a law.
    says : str
        The answer in words, as it is shown back.
    constraints : tuple of Constraint
        The constraints it becomes, given the answers before it (empty for an answer
        that is not about the captime's law).
    """

    key: str
    value: Any
    says: str
    constraints: tuple = ()
    approximate: bool = False

    def __str__(self) -> str:
        shown = "; ".join(constraint_text(c) for c in self.constraints)
        says = self.says + (" (roughly, as you said)" if self.approximate else "")
        return says + (f"  ->  {shown}" if shown else "")


def support_ends(facts: Mapping[str, Fact]) -> tuple[sympy.Expr, sympy.Expr]:
    magnitude = facts.get("magnitude")
    if magnitude is not None and len(magnitude.value) == 2:
        return magnitude.value
    lower = facts["shortest"].value if "shortest" in facts else sympy.Integer(0)
    upper = facts["longest"].value if "longest" in facts else oo
    return lower, upper


def _centre(facts: Mapping[str, Fact]) -> sympy.Expr | None:
    """The centre of the waits on a log scale: the magnitude's, else the median."""
    magnitude = facts.get("magnitude")
    if magnitude is not None:
        ends = magnitude.value
        return sympy.sqrt(ends[0] * ends[1]) if len(ends) == 2 else ends[0]
    median = facts.get("median")
    return None if median is None else median.value


def _log_centre(centre: sympy.Expr, lower: sympy.Expr) -> LogMoment:
    """E[log kappa] = log centre, in the paper's Pareto form E[log(kappa/lower)] = log(centre/lower)
    when the support starts above 0."""
    if lower > 0:
        return LogMoment(sympy.log(centre / lower), lower)
    return LogMoment(0, centre)


def read_answer(key: str, value: Any, earlier: Mapping[str, Any] | None = None) -> Fact:
    """Read one answer against the answers before it.

    Parameters
    ----------
    key : str
        The question (a :data:`QUESTIONS` key).
    value : str, number, list or mapping
        The answer as typed (``"2h"``, ``"1 in 10 after 2h"``, ``"between 1 min and 1 h"``)
        or as an answers file holds it.
    earlier : mapping of str to Fact, optional
        The facts read before it, by key.

    Returns
    -------
    Fact
        The answer read, in words, with the constraints it becomes.

    Raises
    ------
    DesignError
        If the answer cannot be read, or cannot hold with the earlier ones; its
        ``explanation`` says why in plain words and its ``keys`` name the question to ask again.

    Examples
    --------
    >>> read_answer("longest", "1h").constraints
    (Support(0, 3600),)
    >>> longest = read_answer("longest", "1h")
    >>> read_answer("typical", "2h", {"longest": longest})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    maxent_util.designer.questions.DesignError: `typical` of `design` must be ... A typical wait of 2h cannot exceed the longest wait of 1h.
    """
    if key not in BY_KEY:
        raise DesignError(argument_message("answers", OWNER, f"keyed by the questions "
                                           f"({', '.join(BY_KEY)})", short(key)),
                          keys=(), explanation=f"There is no question {key!r}.")
    facts = dict(earlier or {})
    if key in ("captime", "value"):
        choice = read_choice(value, key)
        words = dict(BY_KEY[key].choices)[choice]
        return Fact(key, choice, f"{key}: {words}")
    if key == "known":
        seconds = read_seconds(value, key)
        return Fact(key, seconds, f"the captime is exactly {say(seconds)}",
                    approximate=said_approximately(value))
    if key == "law":
        if not isinstance(value, str):
            raise refuse(key, "a preset call such as 'log_normal(3600, 1)'", value,
                          "Name a law of the catalogue with its parameters, such as exponential(900).")
        try:
            law = parse_family(value)
        except MaxEntError as error:
            raise DesignError(str(error), keys=(key,), explanation=f"{value!r} is not a law of the "
                              f"catalogue with valid parameters: {error}") from None
        return Fact(key, law, f"the captime follows {value.strip()}", tuple(law.constraints))
    if key in ("cost_per_hour", "solution_value"):
        amount = read_number(value, key, "an amount of at least 0, such as 12.50",
                         "Give an amount as a plain number, such as 12.50 (no currency sign).")
        what = "an hour of waiting costs" if key == "cost_per_hour" else "a solution is worth"
        return Fact(key, amount, f"{what} {float(amount):g}")
    fact = _read_fact(key, value, facts)
    if said_approximately(median_text(value) if key == "median" else value):
        fact = replace(fact, approximate=True)
    facts[key] = fact
    _check_facts(facts, blame=key)
    return fact


def _one_line(expr: Any) -> str:
    """Unicode mathematics on one line: sympy's pretty printer where it fits on one line."""
    if isinstance(expr, sympy.Eq):  # each side on one line of its own (a fraction takes three)
        return f"{_one_line(expr.lhs)} = {_one_line(expr.rhs)}"
    shown = sympy.pretty(expr, use_unicode=True, wrap_line=False)
    if "\n" in shown:
        shown = str(expr).replace("kappa", "κ").replace("**", "^")
    return shown


def _duration(seconds: Any) -> str:
    """A duration of a constraint with its units: ``3600`` -> ``3600 s (1 h)``; 0 and ∞ bare."""
    if seconds == 0:
        return "0"
    if seconds == oo:
        return "∞"
    return readable_duration(float(seconds))


def constraint_text(constraint: Any) -> str:
    """A constraint on one line in Unicode mathematics, its durations with their units beside the
    seconds (κ is in seconds).

    >>> constraint_text(Support(0, 3600)), constraint_text(Mean(5400))
    ('κ ∈ [0, 3600 s (1 h)]', 'E(κ) = 5400 s (1.5 h)')
    >>> constraint_text(TailProbability(600, sympy.Rational(1, 2)))
    'P(κ < 600 s (10 min)) = 1/2'
    >>> constraint_text(LogMoment(sympy.log(10), 60))
    'E(log(κ/60)) = log(10)  (κ in seconds; 60 s = 1 min)'
    """
    kind = type(constraint)
    if kind is Support:
        close = ")" if constraint.upper == oo else "]"
        return f"κ ∈ [{_duration(constraint.lower)}, {_duration(constraint.upper)}{close}"
    if kind is Mean:
        return f"E(κ) = {_duration(constraint.value)}"
    if kind is TailProbability:
        return f"P(κ < {_duration(constraint.kappa1)}) = {_one_line(constraint.delta)}"
    shown = _one_line(constraint.statement())
    anchor = getattr(constraint, "kappa0", None)
    if anchor is None or not (0 < anchor < oo):
        return shown
    # the anchor sits inside a logarithm: its units go beside the formula, not into it
    return f"{shown}  (κ in seconds; {_duration(anchor).replace(' (', ' = ').rstrip(')')})"


def _read_fact(key: str, value: Any, facts: Mapping[str, Fact]) -> Fact:
    """A fact about an unknown captime, with its constraints given the facts before it."""
    if key in ("longest", "shortest"):
        seconds = read_seconds(value, key)
        if "magnitude" in facts and len(facts["magnitude"].value) == 2:
            raise refuse(key, "left empty when the order of magnitude is a range", value,
                          "Your order of magnitude already says the shortest and longest waits; "
                          "give either the range or the shortest and longest waits.")
        lower, upper = support_ends({**facts, key: Fact(key, seconds, "")})
        if not lower < upper:
            raise refuse(key, "a shortest wait below the longest", value,
                          f"The shortest wait you always allow ({say(lower)}) must be shorter than the "
                          f"longest you would ever wait ({say(upper)}).", keys=(key,))
        words = (f"you would never wait longer than {say(seconds)}" if key == "longest"
                 else f"you always give it at least {say(seconds)}")
        return Fact(key, seconds, words, (Support(lower, upper),))
    if key == "typical":
        seconds = read_seconds(value, key)
        return Fact(key, seconds, f"a typical (average) wait is {say(seconds)}", (Mean(seconds),))
    if key == "median":
        seconds = read_seconds(median_text(value), key)
        return Fact(key, seconds, f"half the time you would stop before {say(seconds)}",
                    (TailProbability(seconds, sympy.Rational(1, 2)),))
    if key == "magnitude":
        ends = read_magnitude(value, key)
        if len(ends) == 2:
            if "shortest" in facts or "longest" in facts:
                raise refuse(key, "one duration ('about 1 h') when the shortest or longest wait is "
                              "given", value, "A range 'between A and B' says the shortest and longest "
                              "waits again; say 'about C' instead, or leave out the shortest and "
                              "longest waits.")
            centre = sympy.sqrt(ends[0] * ends[1])
            words = (f"only the order of magnitude: somewhere between {say(ends[0])} and "
                     f"{say(ends[1])} (centred on {say(centre)} on a log scale)")
            # E[log(kappa/a)] = log(sqrt(a b)/a), written as log(b/a)/2
            return Fact(key, ends, words, (Support(*ends), LogMoment(sympy.log(ends[1] / ends[0]) / 2, ends[0])))
        lower, _ = support_ends(facts)
        return Fact(key, ends, f"only the order of magnitude: about {say(ends[0])} (on a log scale)",
                    (_log_centre(ends[0], lower),))
    if key == "spread":
        factor = read_factor(value, key)
        centre = _centre(facts)
        if centre is None:
            raise refuse(key, "given after a median or an order of magnitude", value,
                          "How sure you are is measured around a centre: say the median or the "
                          "order of magnitude first, or leave this empty.")
        return Fact(key, factor, f"a typical wait is within a factor of {float(factor):g} of "
                                 f"{say(centre)}", (SquaredLogDeviation(sympy.log(factor), centre),))
    if key == "tail":
        chance, after = read_tail(value, key)
        return Fact(key, (chance, after), f"{chance_words(chance)} you would still be waiting "
                                          f"after {say(after)}", (TailProbability(after, 1 - chance),))
    raise AssertionError(key)  # pragma: no cover - every fact key is handled above


# ---------------------------------------------------------------------------
# conflicts, in the person's terms
# ---------------------------------------------------------------------------

def _points(facts: Mapping[str, Fact]) -> list[tuple[sympy.Expr, sympy.Expr, str, str]]:
    """The CDF points the facts fix: (time, P(kappa < time), key, words)."""
    points = []
    if "median" in facts:
        points.append((facts["median"].value, sympy.Rational(1, 2), "median", facts["median"].says))
    if "tail" in facts:
        chance, after = facts["tail"].value
        points.append((after, 1 - chance, "tail", facts["tail"].says))
    return points


def _check_facts(facts: Mapping[str, Fact], *, blame: str) -> None:
    """Refuse facts that cannot hold together, blaming ``blame`` (the latest answer) first and
    naming the other answers involved after it in the error's ``keys``."""

    def conflict(explanation: str, *involved: str) -> DesignError:
        keys = tuple(dict.fromkeys(key for key in (blame, *involved) if key in facts))
        return refuse(blame, "possible with your other answers", facts[blame].says, explanation, keys)

    lower, upper = support_ends(facts)
    ends = [key for key in ("shortest", "longest", "magnitude") if key in facts]
    reasons = []
    if lower > 0:
        reasons.append(f"you always give it at least {say(lower)}")
    if upper != oo:
        reasons.append(f"you would never wait longer than {say(upper)}")
    points = sorted(_points(facts), key=lambda p: (p[0], p[1]))
    for time, below, key, words in points:
        if not time < upper:
            raise conflict(f"You said {words}, but you would never wait longer than {say(upper)}: "
                           f"by then you would always have stopped.", key, *ends)
        if not time > lower:
            raise conflict(f"You said {words}, but you always give it at least {say(lower)}: "
                           f"before {say(time)} you would never have stopped.", key, *ends)
    for (t1, q1, k1, w1), (t2, q2, k2, w2) in zip(points, points[1:]):
        if t1 == t2 or not q1 < q2:
            raise conflict(f"You said {w1}, and {w2}: the later time must find fewer of the waits still "
                           "going." if t1 != t2 else
                           f"You said {w1}, and {w2}: two chances at the same time; leave one out.", k1, k2)
    stated = [*ends, *(key for _, _, key, _ in points)]
    reasons += [words for _, _, _, words in points]
    grid = [(lower, sympy.Integer(0))] + [(time, below) for time, below, _, _ in points] + [(upper, sympy.Integer(1))]
    pieces = [(a, b, qb - qa) for (a, qa), (b, qb) in zip(grid, grid[1:])]
    because = f"With your other answers ({'; '.join(reasons)})" if reasons else "Whatever else holds"

    if "typical" in facts:
        mean = facts["typical"].value
        low = sum(w * a for a, _, w in pieces)
        high = sum(w * b for _, b, w in pieces)
        if not (low < mean < high):
            if not points and not mean < upper :
                explanation = (f"A typical wait of {say(mean)} cannot exceed the longest wait of "
                               f"{say(upper)}." if mean > upper else
                               f"A typical wait of {say(mean)} cannot equal the longest wait: "
                               "every wait would be the longest.")
            elif not points and not mean > lower:
                explanation = (f"A typical wait of {say(mean)} cannot be shorter than the shortest "
                               f"wait of {say(lower)}." if mean < lower else
                               f"A typical wait of {say(mean)} cannot equal the shortest wait: "
                               "every wait would be the shortest.")
            else:
                span = (f"between {say(low)} and {say(high)}" if high != oo else f"above {say(low)}")
                explanation = (f"{because}, a typical (average) wait lies {span}; "
                               f"{say(mean)} cannot be.")
            raise conflict(explanation, "typical", *stated)
    centre = _centre(facts) if "magnitude" in facts else None
    if centre is not None:
        low = sum(w * (sympy.log(a) if a > 0 else -oo) for a, _, w in pieces)
        high = sum(w * (sympy.log(b) if b != oo else oo) for _, b, w in pieces)
        if not (low < sympy.log(centre) < high):
            span = " and ".join(say(sympy.exp(x)) if x not in (oo, -oo) else ("no time" if x == -oo else
                                                                              "forever") for x in (low, high))
            raise conflict(f"{because}, the centre of your waits on a log scale lies between {span}; "
                           f"an order of magnitude around {say(centre)} cannot be.", "magnitude", *stated)
        if "typical" in facts and not sympy.log(centre) < sympy.log(facts["typical"].value):
            raise conflict(f"An order of magnitude around {say(centre)} (the centre on a log scale) "
                           f"cannot go with a typical (average) wait of {say(facts['typical'].value)}: "
                           "the average is always above the centre on a log scale.", "magnitude", "typical")
    if "spread" in facts:
        centre = _centre(facts)
        sigma2 = sympy.log(facts["spread"].value) ** 2

        def square(x: sympy.Expr) -> sympy.Expr:
            return oo if x in (0, oo) else sympy.log(x / centre) ** 2

        low = sum(w * (0 if a <= centre <= b else sympy.Min(square(a), square(b))) for a, b, w in pieces)
        high = sum(w * sympy.Max(square(a), square(b)) for a, b, w in pieces)
        if not (low < sigma2 < high):
            limit = (f"at most a factor of {float(sympy.exp(sympy.sqrt(high))):.3g}" if not sigma2 < high
                     else f"at least a factor of {float(sympy.exp(sympy.sqrt(low))):.3g}")
            raise conflict(f"{because}, a typical wait is {limit} away from {say(centre)}; "
                           f"a factor of {float(facts['spread'].value):g} cannot be.", "spread", *stated)
        even = _even_spread(pieces, centre) if lower == 0 and upper != oo and not (
            {"typical", "magnitude"} & set(facts)) else None
        if even is not None and not sigma2 <= even:
            raise conflict(f"{because}, the waits are spread the most when they are spread evenly "
                           f"between the times you gave: then a typical wait is a factor of "
                           f"{float(sympy.exp(sympy.sqrt(even))):.3g} from {say(centre)}. A factor of "
                           f"{float(facts['spread'].value):g} would need more waits of next to no time "
                           "than a law of maximum entropy gives.", "spread", *stated)


def _even_spread(pieces: list, centre: sympy.Expr) -> sympy.Expr:
    """E[log(kappa/c)**2] under the law that is uniform on each piece: the most a maximum-entropy
    law of these pieces can reach when the support starts at 0 (there the spread's multiplier must
    be positive, else exp(-lambda log(kappa/c)**2) is not integrable at 0)."""

    def primitive(x: sympy.Expr) -> sympy.Expr:   # of log(x/c)**2: x (L**2 - 2 L + 2), 0 at x = 0
        if x == 0:
            return sympy.Integer(0)
        ell = sympy.log(x / centre)
        return x * (ell ** 2 - 2 * ell + 2)

    return sum(w / (b - a) * (primitive(b) - primitive(a)) for a, b, w in pieces)


def check_complete(facts: Mapping[str, Fact]) -> None:
    """Refuse facts that leave the captime's law undetermined (no maximum-entropy law).

    Parameters
    ----------
    facts : mapping of str to Fact
        Every fact stated about an unknown captime.

    Raises
    ------
    DesignError
        With ``keys`` the questions whose answers would settle it.
    """
    unanswered = tuple(key for key in FACT_KEYS if key not in facts)
    if not facts:
        explanation = ("Say at least one thing about your patience: the longest you would wait, "
                       "a typical wait, ...")
        raise DesignError(argument_message("answers", OWNER, "at least one fact about the captime",
                                           "none", explanation), keys=FACT_KEYS, explanation=explanation)
    lower, upper = support_ends(facts)
    magnitude = facts.get("magnitude")
    if upper == oo and "typical" not in facts and "spread" not in facts and not (
            magnitude is not None and lower > 0):
        if magnitude is not None:
            explanation = ("An order of magnitude alone leaves both the very short and the very long "
                           "waits free: say also the shortest time you always give it, how sure you "
                           "are, a typical wait or the longest wait.")
        else:
            explanation = ("Nothing you said limits how long the long waits can be: say also the "
                           "longest you would wait, a typical wait, or how sure you are "
                           "(with an order of magnitude).")
        keys = tuple(key for key in ("longest", "typical", "magnitude", "spread", "shortest")
                     if key in unanswered)
        raise DesignError(argument_message("answers", OWNER, "facts that bound the long waits",
                                           ", ".join(facts), explanation), keys=keys, explanation=explanation)


