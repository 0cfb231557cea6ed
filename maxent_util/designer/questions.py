"""The questions of the designer and the readers of one answer each (durations, chances,
factors, ranges), with :class:`DesignError`, which says what is wrong in plain words."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Mapping

import sympy

from ..durations import NUMBER_WORDS, DurationError, format_duration, parse_duration, read_duration
from ..errors import MaxEntError, argument_message, short

oo = sympy.oo
OWNER = "design"

#: how the captime is known: the rows of the paper's summary table
CAPTIME_KINDS = ("known", "distribution", "facts")
#: how a solution's value depends on time: the columns (constant, or money as in Section 3)
VALUE_KINDS = ("constant", "money")
#: the facts a person may state about an unknown captime, in the order they are asked
FACT_KEYS = ("longest", "shortest", "typical", "median", "magnitude", "spread", "tail")
#: seconds the symbolic integral of a money utility over an uncertain captime may take. Which
#: route a design takes is decided by the law's form (see result._closed_form_expected), not by
#: how fast the machine is: this limit is far above what the forms tried need on a quiet
#: machine (under 1 s), so a loaded one gives the same design
MONEY_SYMBOLIC_SECONDS = 60.0
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


def refuse(key: str, requirement: str, value: Any, explanation: str,
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
    Question("law", "Which distribution? A law of the paper's catalogue with its parameters "
                    "(e.g. exponential(15min), log_normal(1h, 1))"),
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
              ("money", "waiting costs money, and a solution earns some"))),
    Question("cost_per_hour", "What does an hour of waiting cost? (any currency, e.g. 12.50)"),
    Question("solution_value", "What is a solution worth, in the same currency? (e.g. 200)"),
)
BY_KEY = {question.key: question for question in QUESTIONS}


# ---------------------------------------------------------------------------
# reading one answer
# ---------------------------------------------------------------------------

def said_approximately(value: Any) -> bool:
    """Whether a duration answer says it is approximate (``about an hour``, ``~1h``)."""
    if not isinstance(value, str):
        return False
    try:
        return read_duration(value).approximate
    except DurationError:
        return False


def read_seconds(value: Any, key: str) -> sympy.Rational:
    """A positive duration as exact seconds."""
    try:
        # a float from a JSON or TOML file is read as the decimal it prints as
        text = repr(value) if isinstance(value, float) and math.isfinite(value) else value
        seconds = parse_duration(text, arg=key, owner=OWNER)
    except DurationError as error:
        if "at least 0 seconds" in str(error):
            raise DesignError(str(error), keys=(key,), explanation=f"{value!r} is negative: a "
                              "wait cannot be shorter than no time at all.") from None
        raise DesignError(str(error), keys=(key,),
                          explanation=f"{value!r} is not a duration: write it with a unit, such "
                                      "as 90s, 15 min, 2h, an hour and a half or 1:30:00.") from None
    if seconds <= 0:
        raise refuse(key, "a duration longer than 0 s", value, "A wait of no time at all cannot "
                      "be the answer: give a positive duration such as 15 min.")
    return sympy.Rational(seconds.numerator, seconds.denominator)


_NUMBER = r"(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d{1,2})?"


def read_number(value: Any, key: str, requirement: str, explanation: str) -> sympy.Rational:
    """A non-negative decimal number, exactly (never evaluated: one regular expression)."""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise refuse(key, requirement, value, explanation)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise refuse(key, requirement, value, explanation)
        value = repr(value)
    text = str(value).strip()
    if len(text) > 40 or not re.fullmatch(_NUMBER, text, re.ASCII):
        raise refuse(key, requirement, value, explanation)
    number = Fraction(text)
    return sympy.Rational(number.numerator, number.denominator)


#: proportions in words that name a number
_HALF = re.compile(r"(?:about\s+)?half(?:\s+of)?(?:\s+the\s+time)?")
#: proportions in words that name none: asked again, with numbers suggested
_VAGUE = ("most of the time", "usually", "often", "sometimes", "rarely", "seldom", "never",
          "always", "almost never", "almost always", "mostly", "occasionally")
_COUNT_WORDS = {**NUMBER_WORDS, "hundred": 100, "a hundred": 100, "thousand": 1000,
                "a thousand": 1000}


def _counts_in_digits(text: str) -> str:
    """``one in ten`` as ``1 in 10``: counts in words where a chance is read."""
    words = "|".join(sorted(map(re.escape, _COUNT_WORDS), key=len, reverse=True))
    return re.sub(rf"\b({words})\b", lambda m: str(_COUNT_WORDS[m.group(1)]), text)


def read_chance(value: Any, key: str) -> sympy.Rational:
    """A probability in (0, 1): ``"1 in 10"``, ``"one time in ten"``, ``"10%"``, ``"0.1"``,
    ``"1/10"`` or ``"half the time"``; "most of the time" and the like are asked again."""
    requirement = "a chance strictly between 0 and 1, such as '1 in 10', '10%' or 0.1"
    explanation = "Say how often, such as 1 in 10, 10% or 0.1."
    text = " ".join(str(value).strip().lower().split()) if isinstance(value, str) else value
    chance = None
    if isinstance(text, str):
        if text in _VAGUE:
            raise refuse(key, requirement, value,
                         f"'{text}' does not say how often: give a number, such as 9 in 10 or "
                         "90% (for 'most of the time') or 1 in 10 (for 'rarely').")
        if _HALF.fullmatch(text):
            return sympy.Rational(1, 2)
        text = _counts_in_digits(text)
        pair = re.fullmatch(rf"({_NUMBER})\s*(?:times?\s+)?(?:in|/|out of)\s*({_NUMBER})", text,
                            re.ASCII)
        percent = re.fullmatch(rf"({_NUMBER})\s*%", text, re.ASCII)
        if pair:
            top = read_number(pair.group(1), key, requirement, explanation)
            bottom = read_number(pair.group(2), key, requirement, explanation)
            chance = top / bottom if bottom else None
        elif percent:
            chance = read_number(percent.group(1), key, requirement, explanation) / 100
    if chance is None:
        chance = read_number(text, key, requirement, explanation)
    if not 0 < chance < 1:
        raise refuse(key, requirement, value, "A chance of never or always is not a tail: "
                      "say how often, such as 1 in 10.")
    return chance


def read_factor(value: Any, key: str) -> sympy.Rational:
    """A spread factor above 1: ``"3"``, ``"a factor of 3"``, ``"3x"``."""
    text = value.strip().lower() if isinstance(value, str) else value
    if isinstance(text, str):
        match = re.fullmatch(rf"(?:within\s+)?(?:an?\s+)?(?:factor\s+(?:of\s+)?)?[x*]?\s*({_NUMBER})"
                             r"\s*[x*]?(?:\s+either\s+way)?", text, re.ASCII)
        text = match.group(1) if match else text
    factor = read_number(text, key, "a factor above 1, such as 3 (within a factor of 3 either way)",
                     "Say how far from the centre a typical wait is, as a factor above 1, such as 3.")
    if factor <= 1:
        raise refuse(key, "a factor above 1, such as 3", value,
                      "A factor of 1 or less would mean no spread at all: say how far from the centre "
                      "a typical wait may be, such as 3 (a third to three times the centre).")
    return factor


def read_magnitude(value: Any, key: str) -> tuple[sympy.Rational, ...]:
    """``"between 1 min and 1 h"`` (two ends) or ``"about 1 h"`` (one centre)."""
    if isinstance(value, (list, tuple)):
        parts = list(value)
    elif isinstance(value, str):
        text = re.sub(r"^\s*(?:somewhere\s+)?(?:between|from|about|around|roughly|some)\s+", "",
                      value.strip(), flags=re.IGNORECASE)
        # a dash joins two ends only between them: a leading minus is a sign (refused as a
        # negative duration), and 1e-3 is a number
        parts = [part for part in re.split(r"\s+(?:and|to)\s+|(?<=[\w.])(?<![0-9][eE])\s*(?:\.\.|-|\u2013)"
                                           r"\s*(?=[\d.])", text) if part]
    else:
        parts = [value]
    if not 1 <= len(parts) <= 2:
        raise refuse(key, "'between A and B' or 'about C', with durations", value,
                      "Say 'between 1 min and 1 h', or 'about 1 h'.")
    ends = tuple(read_seconds(part, key) for part in parts)
    if len(ends) == 2 and not ends[0] < ends[1]:
        raise refuse(key, "a range from the shorter to the longer duration", value,
                      f"Somewhere between {say(ends[0])} and {say(ends[1])} needs the shorter end "
                      "first and two different ends.")
    return ends


def read_tail(value: Any, key: str) -> tuple[sympy.Rational, sympy.Rational]:
    """(chance still waiting, after when): ``"1 in 10 after 2h"``, ``{"chance", "after"}``, a pair."""
    if isinstance(value, Mapping):
        unknown = set(value) - {"chance", "after"}
        if unknown or len(value) != 2:
            raise refuse(key, "a table with `chance` and `after`", value,
                          "Give the chance (1 in 10) and the time (after 2h).")
        chance, after = value["chance"], value["after"]
    elif isinstance(value, (list, tuple)) and len(value) == 2:
        chance, after = value
    elif isinstance(value, str) and re.search(r"\s+after\s+", value, re.IGNORECASE):
        chance, after = re.split(r"\s+after\s+", value.strip(), maxsplit=1, flags=re.IGNORECASE)
        # "one time in ten I would still be waiting after 2 hours": the chance is the first words
        chance = re.sub(r"\s*(?:,\s*)?(?:i would|i'd|i am|i'm|you would|you'd)?\s*(?:still\s+)?"
                        r"(?:be\s+)?waiting\s*$", "", chance, flags=re.IGNORECASE)
    else:
        raise refuse(key, "'1 in N after T', such as '1 in 10 after 2h'", value,
                      "Say how often you would still be waiting, and after how long: 1 in 10 after 2h.")
    return read_chance(chance, key), read_seconds(after, key)


#: words that say nothing about which choice is meant
_FILLER = frozenset("a an the i it my me you your of to in on and or but as is are be can could "
                    "would will some few say tell e g eg h".split())
#: short answers people give to a yes-or-no question, by question: the choice they mean
_YES_NO = {"captime": {"yes": "known", "no": "facts", "not really": "facts"},
           "value": {"yes": "constant", "no": "money"}}


def _words(text: str) -> list[str]:
    return [word for word in re.findall(r"[a-z0-9]+", text.lower()) if word not in _FILLER]


def read_choice(value: Any, key: str) -> str:
    """A choice by its number, its key, its own wording or an unambiguous part of it.

    The wording is matched word by word: each choice scores the share of its own words the
    answer uses (so "exactly" is the deadline, and "not exactly, I can tell you a few things"
    the facts, whose words "not", "exactly", "few", "things" it uses); a tie is refused.
    """
    choices = BY_KEY[key].choices
    text = " ".join(value.strip().lower().split()) if isinstance(value, str) else value
    for number, (name, _) in enumerate(choices, start=1):
        if text in (name, str(number), number) and not isinstance(text, bool):
            return name
    names = ", ".join(repr(name) for name, _ in choices)
    if isinstance(text, str) and text:
        said = text.rstrip(".!")
        if said in _YES_NO.get(key, {}):
            return _YES_NO[key][said]
        answer = set(_words(text))
        scores = []
        for name, words in choices:
            own = set(_words(f"{name} {words}"))
            scores.append((len(answer & own) / len(own) if own else 0.0, name))
        scores.sort(reverse=True)
        if scores[0][0] > 0 and (len(scores) == 1 or scores[0][0] > scores[1][0]):
            return scores[0][1]
        if scores[0][0] > 0:
            tied = " or ".join(repr(name) for score, name in scores if score == scores[0][0])
            raise refuse(key, f"one of {names} (or its number)", value,
                          f"That could mean {tied}: answer with one of {names}, or its number 1 "
                          f"to {len(choices)}.")
    raise refuse(key, f"one of {names} (or its number)", value,
                  f"Answer with one of {names}, or its number 1 to {len(choices)}.")


#: the words around a median that the question itself says ("half the time I would stop before")
_MEDIAN_WORDS = re.compile(r"^\s*(?:(?:about\s+)?half(?:\s+of)?\s+the\s+time,?\s*)?(?:i(?:'d|\s+would)"
                           r"\s+(?:stop|give\s+up)\s*)?(?:under|before|within|by|in|at)?\s+", re.IGNORECASE)


def median_text(value: Any) -> Any:
    """A median answer without the question's own words: "half the time under 10 minutes" is
    "10 minutes"."""
    if not isinstance(value, str):
        return value
    stripped = _MEDIAN_WORDS.sub("", " " + value.strip())
    return stripped if stripped.strip() else value


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
    number = float(value)
    if number > 1000 * 86400:   # past 1000 days, whole units say nothing: the order of magnitude
        return f"about {number / 86400:.3g} days"
    if 0 < number < 1e-3:
        return f"about {number:.3g}s"
    if value.is_Rational:
        fraction = Fraction(int(value.p), int(value.q))
        try:
            return format_duration(fraction)
        except DurationError:
            pass
    if number >= 60:
        return "about " + format_duration(Fraction(round(number)))
    return f"about {float(f'{number:.3g}'):g}s"


def chance_words(chance: sympy.Rational) -> str:
    """``1/10`` -> ``"one time in 10"``; ``3/10`` -> ``"30% of the time"``."""
    if chance.p == 1:
        return f"one time in {chance.q}"
    return f"{float(chance * 100):g}% of the time"


