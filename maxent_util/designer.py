"""The guided utility designer: plain answers about one's patience -> a utility.

The paper's summary table (its Figure "Implied scoring functions for
different scenarios") asks two questions: is the captime known exactly, known
as a distribution, or unknown; and is a solution worth the same whenever it
comes, or does waiting cost money (Section 3)?  For an unknown captime the
person states a few facts they can answer in words and units ("the longest I
would ever wait is 2 h", "half the time I would stop before 10 min"); each
fact becomes one of the library's constraints (:mod:`maxent_util.constraints`),
and the maximum-entropy law of those constraints (:func:`maxent_util.derive`)
gives the utility.

Answers are read one at a time (:func:`read_answer`), each against the ones
before it, so that an impossible or conflicting answer is explained in the
person's terms ("a typical wait of 2h cannot exceed the longest wait of 1h")
before anything is derived; :func:`design` reads a whole mapping of answers
and :func:`interview` asks the same questions through two callables (the
command line's prompts, a notebook's widgets), asking again after a
:class:`DesignError`.  The law is derived once, at the end; a fact set that is
one of the paper's presets is taken from the shipped closed forms instead.

The facts and the constraints they become (``lower``/``upper`` are the ends
of the support: the shortest and longest wait, or the order of magnitude's
range; ``c`` is the centre on a log scale)::

    longest L            Support(lower, L)
    shortest S           Support(S, upper)
    typical M            Mean(M)
    median m             TailProbability(m, 1/2)
    magnitude a..b       Support(a, b) and E[log kappa] = log sqrt(a b)
    magnitude about c    E[log kappa] = log c
    spread k             SquaredLogDeviation(log k, c)  (c: the magnitude's centre, else the median)
    tail 1 in n after T  TailProbability(T, 1 - 1/n)

The log-scale centre is written ``LogMoment(log(c/lower), lower)`` when the
support starts above 0 (the paper's Pareto form) and ``LogMoment(0, c)``
otherwise: the same fact, E[log kappa] = log c.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Callable, Mapping

import numpy as np
import sympy

from ._output import atomic_file
from .catalogue import family_constraints
from .constraints import LogMoment, Mean, SquaredLogDeviation, Support, TailProbability
from .documents import to_json
from .durations import DurationError, format_duration, parse_duration
from .errors import MaxEntError, MissingExtraError, argument_message, short
from .families import parse_family
from .maxent import derive
from .plots import plot_utilities
from .ranking import parse_rule
from .symbols import kappa, t
from .utility import expected_utility, linear_compute, step

__all__ = ["QUESTIONS", "Question", "Fact", "Design", "DesignError", "design", "read_answer",
           "check_complete", "interview", "CAPTIME_KINDS", "VALUE_KINDS", "FACT_KEYS"]

oo = sympy.oo
OWNER = "design"

#: how the captime is known: the rows of the paper's summary table
CAPTIME_KINDS = ("known", "distribution", "facts")
#: how a solution's value depends on time: the columns (constant, or money as in Section 3)
VALUE_KINDS = ("constant", "money")
#: the facts a person may state about an unknown captime, in the order they are asked
FACT_KEYS = ("longest", "shortest", "typical", "median", "magnitude", "spread", "tail")
#: seconds the symbolic integral of a money utility over an uncertain captime may take before
#: quadrature is used instead (a log-normal's has no closed form and would take the default 5 s)
MONEY_SYMBOLIC_SECONDS = 2.0
#: runtimes the worth of a run is told at, when the utility changes there: round durations
NICE_TIMES = (1, 5, 10, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 4 * 3600, 8 * 3600,
              12 * 3600, 86400, 2 * 86400, 7 * 86400, 30 * 86400)
#: longest spec string offered (a longer utility is handed over as the JSON document)
MAX_SPEC_LENGTH = 600


class DesignError(MaxEntError):
    """An answer that cannot be read, or that cannot hold with the answers before it.

    Attributes
    ----------
    keys : tuple of str
        The questions to ask again (the answer blamed first).
    explanation : str
        The problem in the person's terms, without the argument template.
    """

    def __init__(self, message: str, *, keys: tuple[str, ...], explanation: str) -> None:
        super().__init__(message)
        self.keys = keys
        self.explanation = explanation


def _refuse(key: str, requirement: str, value: Any, explanation: str,
            keys: tuple[str, ...] | None = None) -> DesignError:
    return DesignError(argument_message(key, OWNER, requirement, short(value), explanation),
                       keys=keys or (key,), explanation=explanation)


# ---------------------------------------------------------------------------
# the questions
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Question:
    """One question of the interview.

    Attributes
    ----------
    key : str
        The answer's name in :func:`design`'s mapping and in an answers file.
    prompt : str
        The question in plain words, with an example answer.
    choices : tuple of (str, str)
        For a multiple-choice question, (answer, words) pairs; empty otherwise.
    optional : bool
        Whether an empty answer skips it (the facts: say what you know).
    """

    key: str
    prompt: str
    choices: tuple[tuple[str, str], ...] = ()
    optional: bool = False

    def applies(self, answers: Mapping[str, Any]) -> bool:
        """Whether the question is asked, given the answers so far."""
        if self.key in ("captime", "value"):
            return True
        if self.key == "known":
            return answers.get("captime") == "known"
        if self.key == "law":
            return answers.get("captime") == "distribution"
        if self.key in FACT_KEYS:
            return answers.get("captime") == "facts"
        return answers.get("value") == "money"


QUESTIONS: tuple[Question, ...] = (
    Question("captime", "Do you know the captime, the time you will have for an answer?",
             (("known", "exactly (a fixed deadline, e.g. 2 h)"),
              ("distribution", "as a probability distribution"),
              ("facts", "not exactly, but I can say a few things about my patience"))),
    Question("known", "How long exactly? (e.g. 2h, 90 min)"),
    Question("law", "Which distribution? A law of the paper's catalogue with its parameters in "
                    "seconds (e.g. exponential(900), log_normal(3600, 1))"),
    Question("longest", "The longest you would ever wait (e.g. 2h)", optional=True),
    Question("shortest", "The shortest time you always give it (e.g. 1 min)", optional=True),
    Question("typical", "A typical wait: on average, how long would you wait? (e.g. 15 min)",
             optional=True),
    Question("median", "Half the time I would stop before ... (e.g. 10 min)", optional=True),
    Question("magnitude", "Only the order of magnitude: somewhere between ... and ... "
                          "(e.g. between 1 min and 1 h), or about ... (e.g. about 1h)", optional=True),
    Question("spread", "How sure are you? Typically within a factor of ... of the centre "
                       "(e.g. 3)", optional=True),
    Question("tail", "One time in N I would still be waiting after ... (e.g. 1 in 10 after 2h)",
             optional=True),
    Question("value", "Is a solution worth the same whenever it comes, or does waiting cost money?",
             (("constant", "the same whenever it comes"),
              ("money", "money: waiting costs, a solution earns"))),
    Question("cost_per_hour", "What does an hour of waiting cost? (any currency, e.g. 12.50)"),
    Question("solution_value", "What is a solution worth, in the same currency? (e.g. 200)"),
)
_BY_KEY = {question.key: question for question in QUESTIONS}


# ---------------------------------------------------------------------------
# reading one answer
# ---------------------------------------------------------------------------

def _seconds(value: Any, key: str) -> sympy.Rational:
    """A positive duration as exact seconds."""
    try:
        # a float from a JSON or TOML file is read as the decimal it prints as
        text = repr(value) if isinstance(value, float) and math.isfinite(value) else value
        seconds = parse_duration(text, arg=key, owner=OWNER)
    except DurationError as error:
        raise DesignError(str(error), keys=(key,),
                          explanation=f"{value!r} is not a duration: write a number with a unit, "
                                      "such as 90s, 15 min, 2h or 1.5 d.") from None
    if seconds <= 0:
        raise _refuse(key, "a duration longer than 0 s", value, "A wait of no time at all cannot "
                      "be the answer: give a positive duration such as 15 min.")
    return sympy.Rational(seconds.numerator, seconds.denominator)


_NUMBER = r"(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d{1,2})?"


def _number(value: Any, key: str, requirement: str, explanation: str) -> sympy.Rational:
    """A non-negative decimal number, exactly (never evaluated: one regular expression)."""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise _refuse(key, requirement, value, explanation)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise _refuse(key, requirement, value, explanation)
        value = repr(value)
    text = str(value).strip()
    if len(text) > 40 or not re.fullmatch(_NUMBER, text, re.ASCII):
        raise _refuse(key, requirement, value, explanation)
    number = Fraction(text)
    return sympy.Rational(number.numerator, number.denominator)


def _chance(value: Any, key: str) -> sympy.Rational:
    """A probability in (0, 1): ``"1 in 10"``, ``"10%"``, ``"0.1"`` or ``"1/10"``."""
    requirement = "a chance strictly between 0 and 1, such as '1 in 10', '10%' or 0.1"
    explanation = "Say how often, such as 1 in 10, 10% or 0.1."
    text = str(value).strip() if isinstance(value, str) else value
    chance = None
    if isinstance(text, str):
        pair = re.fullmatch(rf"({_NUMBER})\s*(?:in|/|out of)\s*({_NUMBER})", text, re.ASCII)
        percent = re.fullmatch(rf"({_NUMBER})\s*%", text, re.ASCII)
        if pair:
            top = _number(pair.group(1), key, requirement, explanation)
            bottom = _number(pair.group(2), key, requirement, explanation)
            chance = top / bottom if bottom else None
        elif percent:
            chance = _number(percent.group(1), key, requirement, explanation) / 100
    if chance is None:
        chance = _number(text, key, requirement, explanation)
    if not 0 < chance < 1:
        raise _refuse(key, requirement, value, "A chance of never or always is not a tail: "
                      "say how often, such as 1 in 10.")
    return chance


def _factor(value: Any, key: str) -> sympy.Rational:
    """A spread factor above 1: ``"3"``, ``"a factor of 3"``, ``"3x"``."""
    text = value.strip().lower() if isinstance(value, str) else value
    if isinstance(text, str):
        match = re.fullmatch(rf"(?:within\s+)?(?:an?\s+)?(?:factor\s+(?:of\s+)?)?[x*]?\s*({_NUMBER})"
                             r"\s*[x*]?(?:\s+either\s+way)?", text, re.ASCII)
        text = match.group(1) if match else text
    factor = _number(text, key, "a factor above 1, such as 3 (within a factor of 3 either way)",
                     "Say how far from the centre a typical wait is, as a factor above 1, such as 3.")
    if factor <= 1:
        raise _refuse(key, "a factor above 1, such as 3", value,
                      "A factor of 1 or less would mean no spread at all: say how far from the centre "
                      "a typical wait may be, such as 3 (a third to three times the centre).")
    return factor


def _magnitude(value: Any, key: str) -> tuple[sympy.Rational, ...]:
    """``"between 1 min and 1 h"`` (two ends) or ``"about 1 h"`` (one centre)."""
    if isinstance(value, (list, tuple)):
        parts = list(value)
    elif isinstance(value, str):
        text = re.sub(r"^\s*(?:somewhere\s+)?(?:between|from|about|around|roughly|some)\s+", "",
                      value.strip(), flags=re.IGNORECASE)
        parts = [part for part in re.split(r"\s+(?:and|to)\s+|\s*(?:\.\.|-|\u2013)\s*", text) if part]
    else:
        parts = [value]
    if not 1 <= len(parts) <= 2:
        raise _refuse(key, "'between A and B' or 'about C', with durations", value,
                      "Say 'between 1 min and 1 h', or 'about 1 h'.")
    ends = tuple(_seconds(part, key) for part in parts)
    if len(ends) == 2 and not ends[0] < ends[1]:
        raise _refuse(key, "a range from the shorter to the longer duration", value,
                      f"Somewhere between {say(ends[0])} and {say(ends[1])} needs the shorter end "
                      "first and two different ends.")
    return ends


def _tail(value: Any, key: str) -> tuple[sympy.Rational, sympy.Rational]:
    """(chance still waiting, after when): ``"1 in 10 after 2h"``, ``{"chance", "after"}``, a pair."""
    if isinstance(value, Mapping):
        unknown = set(value) - {"chance", "after"}
        if unknown or len(value) != 2:
            raise _refuse(key, "a table with `chance` and `after`", value,
                          "Give the chance (1 in 10) and the time (after 2h).")
        chance, after = value["chance"], value["after"]
    elif isinstance(value, (list, tuple)) and len(value) == 2:
        chance, after = value
    elif isinstance(value, str) and re.search(r"\s+after\s+", value, re.IGNORECASE):
        chance, after = re.split(r"\s+after\s+", value.strip(), maxsplit=1, flags=re.IGNORECASE)
    else:
        raise _refuse(key, "'1 in N after T', such as '1 in 10 after 2h'", value,
                      "Say how often you would still be waiting, and after how long: 1 in 10 after 2h.")
    return _chance(chance, key), _seconds(after, key)


def _choice(value: Any, key: str) -> str:
    choices = _BY_KEY[key].choices
    text = value.strip().lower() if isinstance(value, str) else value
    for number, (name, _) in enumerate(choices, start=1):
        if text in (name, str(number), number) and not isinstance(text, bool):
            return name
    names = ", ".join(repr(name) for name, _ in choices)
    raise _refuse(key, f"one of {names} (or its number)", value,
                  f"Answer with one of {names}, or its number 1 to {len(choices)}.")


def say(seconds: Any) -> str:
    """A duration as a person reads it: ``3600`` -> ``"1h"``, ``464.76`` -> ``"about 7min45s"``."""
    if isinstance(seconds, (int, Fraction)) and not isinstance(seconds, bool):
        value = sympy.Rational(seconds.numerator, seconds.denominator)
    elif isinstance(seconds, float) and math.isfinite(seconds):
        exact = Fraction(repr(seconds))   # the decimal the float prints as
        value = sympy.Rational(exact.numerator, exact.denominator)
    elif isinstance(seconds, sympy.Expr) and seconds.is_number:
        value = seconds
    else:
        raise TypeError(f"say() takes a number of seconds; got {short(seconds)!r}")
    if value == oo:
        return "forever"
    if value.is_Rational:
        fraction = Fraction(int(value.p), int(value.q))
        try:
            return format_duration(fraction)
        except DurationError:
            pass
    number = float(value)
    if number >= 60:
        return "about " + format_duration(Fraction(round(number)))
    return f"about {float(f'{number:.3g}'):g}s"


def _chance_words(chance: sympy.Rational) -> str:
    """``1/10`` -> ``"one time in 10"``; ``3/10`` -> ``"30% of the time"``."""
    if chance.p == 1:
        return f"one time in {chance.q}"
    return f"{float(chance * 100):g}% of the time"


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

    def __str__(self) -> str:
        shown = "; ".join(f"{c!r}: {c.latex()}" for c in self.constraints)
        return f"{self.says}" + (f"  ->  {shown}" if shown else "")


def _support(facts: Mapping[str, Fact]) -> tuple[sympy.Expr, sympy.Expr]:
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
    maxent_util.designer.DesignError: `typical` of `design` must be ... A typical wait of 2h cannot exceed the longest wait of 1h.
    """
    if key not in _BY_KEY:
        raise DesignError(argument_message("answers", OWNER, f"keyed by the questions "
                                           f"({', '.join(_BY_KEY)})", short(key)),
                          keys=(), explanation=f"There is no question {key!r}.")
    facts = dict(earlier or {})
    if key in ("captime", "value"):
        choice = _choice(value, key)
        words = dict(_BY_KEY[key].choices)[choice]
        return Fact(key, choice, f"{key}: {words}")
    if key == "known":
        seconds = _seconds(value, key)
        return Fact(key, seconds, f"the captime is exactly {say(seconds)}")
    if key == "law":
        if not isinstance(value, str):
            raise _refuse(key, "a preset call such as 'log_normal(3600, 1)'", value,
                          "Name a law of the catalogue with its parameters, such as exponential(900).")
        try:
            law = parse_family(value)
        except MaxEntError as error:
            raise DesignError(str(error), keys=(key,), explanation=f"{value!r} is not a law of the "
                              f"catalogue with valid parameters: {error}") from None
        return Fact(key, law, f"the captime follows {value.strip()}", tuple(law.constraints))
    if key in ("cost_per_hour", "solution_value"):
        amount = _number(value, key, "an amount of at least 0, such as 12.50",
                         "Give an amount as a plain number, such as 12.50 (no currency sign).")
        what = "an hour of waiting costs" if key == "cost_per_hour" else "a solution is worth"
        return Fact(key, amount, f"{what} {float(amount):g}")
    fact = _read_fact(key, value, facts)
    facts[key] = fact
    _check_facts(facts, blame=key)
    return fact


def _read_fact(key: str, value: Any, facts: Mapping[str, Fact]) -> Fact:
    """A fact about an unknown captime, with its constraints given the facts before it."""
    if key in ("longest", "shortest"):
        seconds = _seconds(value, key)
        if "magnitude" in facts and len(facts["magnitude"].value) == 2:
            raise _refuse(key, "left empty when the order of magnitude is a range", value,
                          "Your order of magnitude already says the shortest and longest waits; "
                          "give either the range or the shortest and longest waits.")
        lower, upper = _support({**facts, key: Fact(key, seconds, "")})
        if not lower < upper:
            raise _refuse(key, "a shortest wait below the longest", value,
                          f"The shortest wait you always allow ({say(lower)}) must be shorter than the "
                          f"longest you would ever wait ({say(upper)}).", keys=(key,))
        words = (f"you would never wait longer than {say(seconds)}" if key == "longest"
                 else f"you always give it at least {say(seconds)}")
        return Fact(key, seconds, words, (Support(lower, upper),))
    if key == "typical":
        seconds = _seconds(value, key)
        return Fact(key, seconds, f"a typical (average) wait is {say(seconds)}", (Mean(seconds),))
    if key == "median":
        seconds = _seconds(value, key)
        return Fact(key, seconds, f"half the time you would stop before {say(seconds)}",
                    (TailProbability(seconds, sympy.Rational(1, 2)),))
    if key == "magnitude":
        ends = _magnitude(value, key)
        if len(ends) == 2:
            if "shortest" in facts or "longest" in facts:
                raise _refuse(key, "one duration ('about 1 h') when the shortest or longest wait is "
                              "given", value, "A range 'between A and B' says the shortest and longest "
                              "waits again; say 'about C' instead, or leave out the shortest and "
                              "longest waits.")
            centre = sympy.sqrt(ends[0] * ends[1])
            words = (f"only the order of magnitude: somewhere between {say(ends[0])} and "
                     f"{say(ends[1])} (centred on {say(centre)} on a log scale)")
            # E[log(kappa/a)] = log(sqrt(a b)/a), written as log(b/a)/2
            return Fact(key, ends, words, (Support(*ends), LogMoment(sympy.log(ends[1] / ends[0]) / 2, ends[0])))
        lower, _ = _support(facts)
        return Fact(key, ends, f"only the order of magnitude: about {say(ends[0])} (on a log scale)",
                    (_log_centre(ends[0], lower),))
    if key == "spread":
        factor = _factor(value, key)
        centre = _centre(facts)
        if centre is None:
            raise _refuse(key, "given after a median or an order of magnitude", value,
                          "How sure you are is measured around a centre: say the median or the "
                          "order of magnitude first, or leave this empty.")
        return Fact(key, factor, f"a typical wait is within a factor of {float(factor):g} of "
                                 f"{say(centre)}", (SquaredLogDeviation(sympy.log(factor), centre),))
    if key == "tail":
        chance, after = _tail(value, key)
        return Fact(key, (chance, after), f"{_chance_words(chance)} you would still be waiting "
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
        return _refuse(blame, "possible with your other answers", facts[blame].says, explanation, keys)

    lower, upper = _support(facts)
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
    lower, upper = _support(facts)
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


# ---------------------------------------------------------------------------
# the result
# ---------------------------------------------------------------------------

#: the paper's summary table: (captime, value) -> "The best algorithm ..."
SCENARIOS = {
    ("known", "constant"): "solves the most instances (within the captime)",
    ("known", "money"): "gives the greatest expected proportion of benefit",
    ("distribution", "constant"): "is most likely to solve an instance from K",
    ("distribution", "money"): "gives the greatest expected proportion of benefit, in expectation over K",
    ("facts", "constant"): "is most likely to solve an instance from the maximum entropy distribution",
    ("facts", "money"): "gives the greatest expected proportion of benefit, in expectation over the "
                        "maximum entropy distribution",
}


@dataclass(frozen=True)
class Design:
    """A designed utility: the answers, the constraints they became, the law and its utility.

    Attributes
    ----------
    facts : tuple of Fact
        Every answer read, in the order asked.
    scenario : str
        The cell of the paper's summary table: "The best algorithm ...".
    constraints : tuple of Constraint
        The constraints on the captime (empty for a known captime).
    distribution : CaptimeDistribution or None
        The captime law (None for a known captime).
    utility : Utility
        The utility u(t), named :attr:`name`.
    spec : str or None
        A spec string that ``--utility`` and :func:`maxent_util.parse_rule` read back to this
        utility (a preset call, or the formula); None when no short one exists (use the JSON).
    notes : tuple of str
        Remarks on the answers (a solution worth nothing, waiting that costs nothing).
    """

    facts: tuple[Fact, ...]
    scenario: str
    constraints: tuple
    distribution: Any
    utility: Any
    spec: str | None
    notes: tuple[str, ...] = field(default=())

    @property
    def name(self) -> str:
        """The utility's name (the preset call, or the answers in short)."""
        return self.utility.name

    @property
    def answers(self) -> dict[str, Any]:
        """The answers as read: seconds, chances and amounts as exact numbers (JSON-ready)."""
        return {fact.key: _plain(fact.value) for fact in self.facts}

    def formula(self) -> str:
        """u(t) as text."""
        return str(self.utility.expr)

    def latex(self) -> str:
        """u(t) in LaTeX (math mode, without ``$``)."""
        return self.utility.latex()

    def worth(self, times: Any = None) -> list[tuple[float, float]]:
        """(runtime in seconds, u) at a few runtimes: ``times``, else round durations where u changes.

        Parameters
        ----------
        times : sequence of durations, optional
            Runtimes (numbers of seconds or duration texts such as ``"10 min"``).

        Returns
        -------
        list of (float, float)
        """
        if times is not None:
            chosen = [float(_seconds(x, "times")) if not isinstance(x, float) else x for x in times]
            return list(zip(chosen, (float(v) for v in np.atleast_1d(self.utility(np.array(chosen))))))
        grid = np.array(NICE_TIMES, dtype=float)
        values = np.atleast_1d(np.asarray(self.utility(grid), dtype=float))
        inside = [i for i, v in enumerate(values) if 0.02 <= v <= 0.98]
        if len(inside) > 4:
            inside = [inside[round(j)] for j in np.linspace(0, len(inside) - 1, 4)]
        chosen = [float(grid[i]) for i in inside]
        if len(chosen) < 2:
            for fact in self.facts:
                if fact.key in ("known", "longest", "typical", "median"):
                    chosen += [float(fact.value) / 2, float(fact.value) * 2]
            chosen = sorted(set(chosen))[:4] or [float(grid[len(grid) // 2])]
            return self.worth(chosen)
        return list(zip(chosen, (float(values[i]) for i in inside)))

    def sentences(self, times: Any = None) -> list[str]:
        """The worth of a few runtimes in words: "a run of 10min is worth 0.62 of an instant one"."""
        said = []
        for seconds, value in self.worth(times):
            if value >= 0.995:
                worth = "as much as an instant one"
            elif value <= 0.005:
                worth = "nothing"
            else:
                worth = f"{value:.2f} of an instant one"
            said.append(f"a run of {say(seconds)} is worth {worth}")
        return said

    def summary(self) -> str:
        """Everything shown at the end of an interview, as lines of text."""
        lines = [f"The best algorithm {self.scenario}."]
        if self.constraints:
            lines.append("Constraints: " + ", ".join(repr(c) for c in self.constraints))
        if self.distribution is not None:
            lines.append(f"Captime law {self.distribution.name}: "
                         f"f(kappa) = {_short_floats(self.distribution.pdf)}")
        lines.append(f"Utility: u(t) = {_short_floats(self.utility.expr)}")
        lines.append(f"LaTeX: u(t) = {sympy.latex(_short_floats(self.utility.expr))}")
        lines += [f"  {sentence[0].upper()}{sentence[1:]}." for sentence in self.sentences()]
        lines.append(f"Spec: {self.spec}" if self.spec else
                     "Spec: none short enough; use the JSON document (--utility @FILE)")
        lines += [f"Note: {note}" for note in self.notes]
        return "\n".join(lines)

    def record(self) -> dict[str, Any]:
        """The design as plain JSON data (the ``design`` field of :meth:`to_json`)."""
        return {"answers": self.answers, "scenario": f"The best algorithm {self.scenario}.",
                "facts": [{"key": f.key, "says": f.says, "constraints": [repr(c) for c in f.constraints],
                           "latex": [c.latex() for c in f.constraints]} for f in self.facts],
                "constraints": [repr(c) for c in self.constraints], "spec": self.spec,
                "formula": self.formula(), "latex": self.latex(),
                "worth": [{"seconds": s, "u": u} for s, u in self.worth()], "notes": list(self.notes)}

    def to_json(self, *, indent: int | None = 2) -> str:
        """The utility's JSON document (:func:`maxent_util.to_json`) with this design as its
        ``design`` field: :func:`maxent_util.from_json` and ``--utility @FILE`` read it as the utility."""
        document = json.loads(to_json(self.utility, indent=None))
        document["design"] = self.record()
        return json.dumps(document, indent=indent, allow_nan=False)

    def write_json(self, path: Any, *, overwrite: bool = False) -> None:
        """Write :meth:`to_json` to ``path`` (whole or not at all; an existing file only with
        ``overwrite``)."""
        text = self.to_json()
        with atomic_file(path, overwrite=overwrite) as handle:
            handle.write(text + "\n")

    def plot(self, path: Any, *, overwrite: bool = False) -> bool:
        """Draw u(t) into an image file (PNG, SVG, PDF: by its suffix).

        Returns
        -------
        bool
            True when written; False when matplotlib (the ``plot`` extra) is missing.
        """
        try:
            figure = plot_utilities({self.name: self.utility}, title="Designed utility")
        except MissingExtraError:
            return False
        suffix = str(path).rsplit(".", 1)[-1].lower() if "." in str(path) else "png"
        with atomic_file(path, overwrite=overwrite, binary=True) as handle:
            figure.savefig(handle, format=suffix)
        return True

    def _repr_latex_(self) -> str:
        return f"$u(t) = {self.latex()}$"


def _short_floats(expr: Any) -> Any:
    """``expr`` with its floats at 6 digits, for reading (exact numbers stay exact)."""
    if not isinstance(expr, sympy.Basic):
        return expr
    return expr.xreplace({number: sympy.Float(number, 6) for number in expr.atoms(sympy.Float)})


def _plain(value: Any) -> Any:
    """An answer's value as JSON data: exact numbers as integers or "p/q" texts."""
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    if isinstance(value, sympy.Rational):
        return int(value) if value.q == 1 else f"{value.p}/{value.q}"
    if isinstance(value, sympy.Basic):
        return str(value)
    if hasattr(value, "name") and hasattr(value, "pdf"):
        return value.name
    return value


#: (fact keys) -> the preset those facts are, as a function of the facts
_PRESETS: dict[frozenset, Callable[[Mapping[str, Fact]], tuple[str, tuple]]] = {
    frozenset({"longest"}): lambda f: ("uniform", (f["longest"].value,)),
    frozenset({"typical"}): lambda f: ("exponential", (f["typical"].value,)),
    frozenset({"longest", "median"}): lambda f: ("piecewise", (f["longest"].value, f["median"].value,
                                                              sympy.Rational(1, 2))),
    frozenset({"longest", "tail"}): lambda f: ("piecewise", (f["longest"].value, f["tail"].value[1],
                                                            1 - f["tail"].value[0])),
    frozenset({"shortest", "magnitude"}): lambda f: ("pareto", (f["shortest"].value, 1 / sympy.expand_log(
        sympy.log(f["magnitude"].value[0] / f["shortest"].value), force=True))),
    frozenset({"magnitude", "spread"}): lambda f: ("log_normal", (f["magnitude"].value[0],
                                                                  sympy.log(f["spread"].value))),
}


def _constraints(facts: Mapping[str, Fact]) -> tuple:
    """The constraints of the facts: one support, then each fact's own."""
    lower, upper = _support(facts)
    stated = [Support(lower, upper)]
    for key in FACT_KEYS:
        if key in facts:
            stated += [c for c in facts[key].constraints if not isinstance(c, Support)]
    return tuple(stated)


def _law(facts: Mapping[str, Fact]) -> tuple[Any, tuple, str | None]:
    """The maximum-entropy law of the facts, its constraints and its preset spec (or None)."""
    constraints = _constraints(facts)
    recipe = _PRESETS.get(frozenset(facts))
    if recipe is not None:
        name, arguments = recipe(facts)
        if set(family_constraints(name, *arguments)) == set(constraints):
            spec = f"{name}({', '.join(str(a) for a in arguments)})"
            return parse_family(spec), constraints, spec
    try:
        law = derive(*constraints)
    except MaxEntError as error:
        raise DesignError(argument_message("answers", OWNER, "facts that can all hold together",
                                           ", ".join(facts), str(error)), keys=tuple(facts),
                          explanation=f"No captime law follows from these answers together "
                                      f"({error}); change one of them.") from None
    return law, constraints, None


def _round_trip_spec(utility: Any) -> str | None:
    """The utility's formula as a spec, if the command line's reader gives it back."""
    text = str(utility.expr)
    if len(text) > MAX_SPEC_LENGTH:
        return None
    try:
        again = parse_rule(text)
        times = np.array([1.0, 30.0, 600.0, 3600.0, 86400.0])
        same = np.allclose(np.asarray(again(times), float), np.asarray(utility(times), float),
                           rtol=1e-9, atol=1e-12)
    except MaxEntError:
        return None
    return text if same else None


def design(answers: Mapping[str, Any]) -> Design:
    """The utility of a person's answers, as the interview would give it, without prompts.

    Parameters
    ----------
    answers : mapping
        The answers by question key (see :data:`QUESTIONS`): ``captime`` (``"known"``,
        ``"distribution"`` or ``"facts"``) and ``value`` (``"constant"`` or ``"money"``);
        then ``known`` (a duration), ``law`` (a preset call), or the facts ``longest``,
        ``shortest``, ``typical``, ``median`` (durations), ``magnitude`` (``"between 1 min
        and 1 h"`` or ``"about 1 h"``), ``spread`` (a factor above 1) and ``tail`` (``"1 in
        10 after 2h"``); for money, ``cost_per_hour`` and ``solution_value``.  Durations as
        :func:`maxent_util.durations.parse_duration` reads them (a bare number is seconds).

    Returns
    -------
    Design
        The facts, constraints, law and utility, with its spec and JSON.

    Raises
    ------
    DesignError
        For an unknown key, an answer that cannot be read, answers that cannot hold
        together or do not determine a law (the message says why in plain words), or an
        answer to a question that does not apply.

    Examples
    --------
    >>> result = design({"captime": "facts", "longest": "1h", "value": "constant"})
    >>> result.spec, result.sentences(["15 min"])
    ('uniform(3600)', ['a run of 15min is worth 0.75 of an instant one'])
    """
    if not isinstance(answers, Mapping):
        raise DesignError(argument_message("answers", OWNER, "a mapping from questions to answers",
                                           short(answers)), keys=(), explanation="Give the answers "
                          "as a table, such as {'captime': 'facts', 'longest': '1h', 'value': 'constant'}.")
    unknown = [key for key in answers if key not in _BY_KEY]
    if unknown:
        read_answer(str(unknown[0]), None)
    read: dict[str, Fact] = {}
    for question in QUESTIONS:
        choices = {key: fact.value for key, fact in read.items()}
        given = answers.get(question.key)
        if not question.applies(choices):
            if given is not None:
                raise _refuse(question.key, f"left out here (it goes with another answer to "
                              f"`{'value' if question.key in ('cost_per_hour', 'solution_value') else 'captime'}`)",
                              given, f"The question {question.key!r} is not asked with these answers.")
            continue
        if given is None or (question.optional and isinstance(given, str) and not given.strip()):
            if question.optional:
                continue
            raise _refuse(question.key, "answered", None, f"Answer: {question.prompt}")
        read[question.key] = read_answer(question.key, given, {k: v for k, v in read.items()
                                                               if k in FACT_KEYS})
    return finish(read)


def finish(read: Mapping[str, Fact]) -> Design:
    """The design of answers already read one by one (:func:`read_answer`); the interview's last step."""
    captime, value = read["captime"].value, read["value"].value
    facts = {key: fact for key, fact in read.items() if key in FACT_KEYS}
    notes: list[str] = []
    law, constraints, spec = None, (), None
    if captime == "facts":
        check_complete(facts)
        law, constraints, spec = _law(facts)
        if spec is None:
            law = law.with_name(_described(read, ("captime", "value", "cost_per_hour", "solution_value")))
    elif captime == "distribution":
        law = read["law"].value
        constraints, spec = tuple(law.constraints), law.name
    if value == "constant":
        utility = step(read["known"].value) if law is None else law.utility()
    else:
        cost, worth = read["cost_per_hour"].value, read["solution_value"].value
        if cost == 0 and worth == 0:
            raise _refuse("solution_value", "above 0 when waiting costs nothing", "0",
                          "With no cost and no value nothing is at stake: give what a solution is worth.")
        if cost == 0:
            notes.append("Waiting costs nothing: the value of a solution is constant.")
        if worth == 0:
            notes.append("A solution worth nothing ranks by capped average runtime, which the paper "
                         "(Section 3) shows asserts that solving the problem has no value.")
        per_second = cost / 3600
        if law is None:
            utility = linear_compute(read["known"].value, per_second, worth)
        else:
            per_captime = (worth + per_second * (kappa - t)) / (worth + per_second * kappa)
            utility = expected_utility(per_captime, law, timeout=MONEY_SYMBOLIC_SECONDS)
        spec = None
    utility = utility.with_name(spec or _described(read, ("captime", "value")))
    if spec is None:
        spec = _round_trip_spec(utility)
    return Design(tuple(read.values()), SCENARIOS[captime, value], constraints, law, utility, spec,
                  tuple(notes))


def _described(read: Mapping[str, Fact], left_out: tuple[str, ...]) -> str:
    """A name that says the answers: ``design(longest=1h, typical=15min)``."""
    return "design(" + ", ".join(f"{key}={_short_answer(fact)}" for key, fact in read.items()
                                 if key not in left_out) + ")"


def _short_answer(fact: Fact) -> str:
    value = fact.value
    if fact.key in ("known", "longest", "shortest", "typical", "median"):
        return say(value)
    if fact.key == "magnitude":
        return "..".join(say(v) for v in value)
    if fact.key == "tail":
        return f"{value[0]}@{say(value[1])}"
    if fact.key == "law":
        return value.name
    return str(value)


# ---------------------------------------------------------------------------
# the interview
# ---------------------------------------------------------------------------

def interview(ask: Callable[[Question], str], say_line: Callable[[str], None], *,
              tries: int = 20) -> Design:
    """Ask the questions through ``ask``, show each answer as its constraint through ``say_line``,
    and ask again after an answer that cannot be read or cannot hold with the others.

    Parameters
    ----------
    ask : callable
        Question -> the answer typed (an empty text skips an optional question).
    say_line : callable
        Shows one line to the person.
    tries : int, keyword-only
        How many times one question is asked before giving up.

    Returns
    -------
    Design
        As :func:`design` gives it for the same answers.

    Raises
    ------
    DesignError
        When a question was answered wrongly ``tries`` times.
    """
    read: dict[str, Fact] = {}

    def one(question: Question) -> None:
        for _ in range(tries):
            text = ask(question)
            if question.optional and not text.strip():
                return
            try:
                fact = read_answer(question.key, text, {k: v for k, v in read.items() if k in FACT_KEYS})
            except DesignError as error:
                say_line(f"  ! {error.explanation} Please answer again.")
                continue
            read[question.key] = fact
            say_line(f"  = {fact}")
            return
        raise DesignError(argument_message(question.key, OWNER, "answered in a way that can be read",
                                           f"{tries} tries"), keys=(question.key,),
                          explanation="Too many answers that could not be read.")

    def incomplete() -> DesignError | None:
        try:
            check_complete({k: v for k, v in read.items() if k in FACT_KEYS})
        except DesignError as error:
            return error
        return None

    def complete_facts() -> None:
        """Ask the facts that would settle the law, one at a time, until they do."""
        for _ in range(tries):
            error = incomplete()
            if error is None:
                return
            say_line(f"  ! {error.explanation}")
            for key in error.keys:
                one(_BY_KEY[key])
                if incomplete() is None:
                    return

    for question in QUESTIONS:
        if question.applies({k: f.value for k, f in read.items()}):
            one(question)
        if question.key == "tail" and read["captime"].value == "facts":
            complete_facts()
    for _ in range(tries):
        try:
            return finish(read)
        except DesignError as error:
            say_line(f"  ! {error.explanation} Please answer again.")
            for key in error.keys:
                read.pop(key, None)
            for key in error.keys:
                one(_BY_KEY[key])
    raise DesignError(argument_message("answers", OWNER, "answers that give a law", f"{tries} tries"),
                      keys=(), explanation="Too many answers that could not hold together.")
