"""Durations as people write them: ``"90s"``, ``"90m"``, ``"2 hrs"``, ``"1h 30m"``,
``"1:30:00"``, ``"an hour and a half"``, ``"about 2 hours"``.

The one reader of durations in the package: the command line's time options
(``--mean 1h``, ``--support 0 2h``, ``--cutoff 90min``), the numbers inside rule
specs (``pareto(5min, 1)``), the designer's answers and the waiting times of a file
all come through :func:`read_duration` (or :func:`parse_duration`, its number).

The grammar (``docs/cli.md`` has it as a table):

- a bare number is seconds: ``90``, ``1.5``, ``2e3``;
- a number and a unit: ``ms``/``msec``/``millisecond(s)``, ``s``/``sec(s)``/``second(s)``,
  ``m``/``min(s)``/``minute(s)``, ``h``/``hr(s)``/``hour(s)``, ``d``/``day(s)``,
  ``w``/``wk(s)``/``week(s)``; several parts go from the largest unit down, joined by
  nothing, spaces, commas or ``and`` (``1h30min``, ``1h 30m``, ``1 hour and 30 minutes``);
- a clock: ``h:mm:ss`` (``1:30:00``) or ``m:ss`` (``0:45``, a stopwatch's 45 seconds);
- words: ``a``/``an``/``one`` to ``twelve`` and the round tens (``an hour``, ``two
  hours``), ``half an hour``, ``a quarter of an hour``, ``three quarters of an hour``,
  ``an hour and a half``, ``two and a half days``;
- an approximation: ``about``, ``around``, ``roughly``, ``approximately``, ``circa``,
  ``~`` before, ``or so`` / ``-ish`` after: read as the value, and marked approximate
  (:attr:`Duration.approximate`).

Negative, NaN and infinite values, digits other than 0-9 (full-width ``１２``) and
control characters (``5\\x00``) are refused by name. The numbers are read by
:class:`fractions.Fraction`, never evaluated, and the value is exact: a ``Fraction``
of seconds, rather than sympy's ``Rational``, because the command line reads durations
before (or without) importing sympy; a ``Fraction`` becomes a sympy number exactly with
``sympy.Rational(f.numerator, f.denominator)``, and a float with
:func:`duration_seconds`.
"""

from __future__ import annotations

import re
import unicodedata
from fractions import Fraction
from numbers import Rational
from typing import NamedTuple

from .errors import MaxEntError, argument_message, short

__all__ = ["DurationError", "Duration", "UNITS", "read_duration", "parse_duration",
           "duration_seconds", "format_duration", "readable_duration", "looks_like_duration",
           "seconds_in_text"]


class DurationError(MaxEntError):
    """A text is not a duration (a number of seconds, or numbers with time units)."""


class Duration(NamedTuple):
    """A duration as read: its exact seconds, and whether the text said it was approximate."""

    seconds: Fraction
    approximate: bool


#: Seconds in each unit, by every spelling the reader takes.
UNITS: dict[str, Fraction] = {
    **dict.fromkeys(("ms", "msec", "msecs", "millisecond", "milliseconds"), Fraction(1, 1000)),
    **dict.fromkeys(("s", "sec", "secs", "second", "seconds"), Fraction(1)),
    **dict.fromkeys(("m", "min", "mins", "minute", "minutes"), Fraction(60)),
    **dict.fromkeys(("h", "hr", "hrs", "hour", "hours"), Fraction(3600)),
    **dict.fromkeys(("d", "day", "days"), Fraction(86400)),
    **dict.fromkeys(("w", "wk", "wks", "week", "weeks"), Fraction(604800)),
}

#: Numbers written as words, where a count of units stands.
NUMBER_WORDS: dict[str, int] = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
    "fifteen": 15, "twenty": 20, "thirty": 30, "forty": 40, "forty-five": 45, "fifty": 50,
    "sixty": 60, "ninety": 90,
}

# The longest text read; a longer one is refused before any matching.
_MOST_CHARACTERS = 100
# The largest decimal exponent read (1e30 s is already 10**22 years); a larger one would
# make Fraction build a huge integer.
_MOST_EXPONENT = 30
# The most digits of a number given as an int or a Fraction, in its numerator and in its
# denominator (the library's bound on exact numbers, expressions.MAX_DIGITS): compared as
# integers, since str() of a 5,000-digit integer raises Python's conversion limit.
_TOO_LARGE = 10 ** 400

_NUMBER = r"(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?"
_UNIT = "|".join(sorted(map(re.escape, UNITS), key=len, reverse=True))
_PART = re.compile(rf"\s*({_NUMBER})\s*({_UNIT})(?![A-Za-z])", re.ASCII)
_BARE = re.compile(rf"\s*({_NUMBER})\s*", re.ASCII)
_EXPONENT = re.compile(r"[eE]([+-]?\d+)$", re.ASCII)
_CLOCK = re.compile(r"(\d{1,9}):([0-5]\d)(?::([0-5]\d(?:\.\d{1,9})?))?", re.ASCII)
_APPROXIMATE_BEFORE = re.compile(r"^(?:about|around|roughly|approximately|approx\.?|circa|ca\.|~|≈)\s*")
_APPROXIMATE_AFTER = re.compile(r"\s*(?:or so|or thereabouts|-?ish)$")
_WORD = "|".join(sorted(map(re.escape, NUMBER_WORDS), key=len, reverse=True))
_UNIT_WORD = rf"(?:{_UNIT})(?![A-Za-z])"
# "half an hour", "a quarter of an hour", "three quarters of a day"
_FRACTION_OF = re.compile(
    rf"\b(?:(half)|(?:(?:a|one)\s+)?(quarter)|(three)\s+quarters)\s+(?:of\s+)?(?:an?\s+)({_UNIT_WORD})")
# "two hours", "an hour" (a count in words before a unit, or before "and a half")
_COUNT_WORD = re.compile(rf"\b({_WORD})\s+(?=(?:and\s+a\s+half\s+)?{_UNIT_WORD})")
# "1 hour and a half" and "2 and a half hours"
_AND_A_HALF_AFTER = re.compile(rf"({_NUMBER})\s*({_UNIT_WORD})\s+and\s+a\s+half\b", re.ASCII)
_AND_A_HALF_BEFORE = re.compile(rf"({_NUMBER})\s+and\s+a\s+half\s+({_UNIT_WORD})", re.ASCII)
_JOINER = re.compile(r"\s*(?:,|\band\b)\s*(?=[\d.])")
# a duration with a unit inside an expression: not part of a name or of another number
_IN_TEXT = re.compile(rf"(?<![\w.]){_NUMBER}\s*(?:{_UNIT})(?:\s*{_NUMBER}\s*(?:{_UNIT}))*(?!\w)",
                      re.ASCII)

_EXPECTED = ("a duration: a number of seconds or numbers with units ms, s, min, h, d or w "
             "(such as 90, 90s, 90m, 2 hrs, 1h 30m, 1:30:00, an hour and a half)")


def _refuse(text: object, arg: str, owner: str, requirement: str = _EXPECTED) -> DurationError:
    error = DurationError(argument_message(arg, owner, requirement, short(text)))
    error.requirement = requirement  # for a reader that names its own argument (expressions)
    return error


def _number(digits: str, text: object, arg: str, owner: str) -> Fraction:
    exponent = _EXPONENT.search(digits)
    if exponent and abs(int(exponent.group(1))) > _MOST_EXPONENT:
        raise _refuse(text, arg, owner,
                      f"a duration with a decimal exponent of at most {_MOST_EXPONENT}")
    return Fraction(digits)


def _words_as_numbers(text: str) -> str:
    """Counts written in words turned into decimals: "an hour and a half" is "1.5 hour"."""
    def fraction_of(match: re.Match) -> str:
        half, quarter, three, unit = match.groups()
        count = "0.5" if half else "0.75" if three else "0.25"
        return f"{count} {unit}"

    text = _FRACTION_OF.sub(fraction_of, text)
    text = _COUNT_WORD.sub(lambda m: f"{NUMBER_WORDS[m.group(1)]} ", text)
    text = _AND_A_HALF_AFTER.sub(
        lambda m: f"{_decimal(Fraction(m.group(1)) + Fraction(1, 2))} {m.group(2)}", text)
    text = _AND_A_HALF_BEFORE.sub(
        lambda m: f"{_decimal(Fraction(m.group(1)) + Fraction(1, 2))} {m.group(2)}", text)
    return _JOINER.sub(" ", text)


def _characters_checked(text: str, arg: str, owner: str) -> None:
    """Control characters and digits other than 0-9 refused: read silently they would turn
    ``5\\x00`` into 5 or a full-width ``１２`` into 12."""
    for character in text:
        if unicodedata.category(character) in ("Cc", "Cf", "Cs", "Co", "Cn") and character not in "\t":
            raise _refuse(text, arg, owner, "a duration without control characters")
        if character.isdigit() and not character.isascii():
            raise _refuse(text, arg, owner, "a duration written with the digits 0-9")


def read_duration(text: str | int | Fraction, *, arg: str = "duration",
                  owner: str = "read_duration") -> Duration:
    """Read a duration: its exact number of seconds, and whether it was said to be approximate.

    Parameters
    ----------
    text : str, int or fractions.Fraction
        A duration in the grammar of this module (``"90"``, ``"90m"``, ``"1h 30m"``,
        ``"1:30:00"``, ``"an hour and a half"``, ``"about 2 hours"``); an int or a
        Fraction is taken as seconds. Floats are refused (their binary value is rarely
        what was meant): pass ``str(x)``.
    arg, owner : str
        The argument and its owner, as the error message names them.

    Returns
    -------
    Duration
        ``seconds`` (a :class:`fractions.Fraction`, exact) and ``approximate``.

    Raises
    ------
    DurationError
        When ``text`` is not a duration: another unit, a negative, infinite or NaN value,
        two parts in the wrong order, a unit twice, digits other than 0-9, control
        characters, an exponent past 30, an int or a Fraction of more than 400 digits.

    Examples
    --------
    >>> read_duration("about an hour and a half")
    Duration(seconds=Fraction(5400, 1), approximate=True)
    >>> read_duration("1:30:00").seconds, read_duration("0:45").seconds
    (Fraction(5400, 1), Fraction(45, 1))
    """
    if isinstance(text, bool):
        raise _refuse(text, arg, owner)
    if isinstance(text, (int, Fraction)) or (isinstance(text, Rational) and not isinstance(text, float)):
        value = Fraction(text)
        if value < 0:
            raise _refuse(text, arg, owner, "a duration of at least 0 seconds")
        if value.numerator >= _TOO_LARGE or value.denominator >= _TOO_LARGE:
            raise _refuse(text, arg, owner, "a duration whose numerator and denominator have "
                          "at most 400 digits")
        return Duration(value, False)
    if not isinstance(text, str) or len(text) > _MOST_CHARACTERS:
        raise _refuse(text, arg, owner)
    _characters_checked(text, arg, owner)
    words = " ".join(text.lower().split())
    approximate = False
    for pattern in (_APPROXIMATE_BEFORE, _APPROXIMATE_AFTER):
        words, found = pattern.subn("", words)
        approximate = approximate or bool(found)
    if words.startswith(("-", "minus ")):
        raise _refuse(text, arg, owner, "a duration of at least 0 seconds")
    if words.lstrip("+").startswith(("inf", "nan", "forever")):
        raise _refuse(text, arg, owner, "a duration that is finite (not NaN or infinite)")
    bare = _BARE.fullmatch(words)
    if bare:
        return Duration(_number(bare.group(1), text, arg, owner), approximate)
    clock = _CLOCK.fullmatch(words)
    if clock:
        first, second, third = clock.groups()
        if third is None:  # m:ss, as a stopwatch shows it
            return Duration(Fraction(int(first) * 60 + int(second)), approximate)
        return Duration(int(first) * 3600 + int(second) * 60 + Fraction(third), approximate)
    return Duration(_parts(_words_as_numbers(words), text, arg, owner), approximate)


def _parts(words: str, text: str, arg: str, owner: str) -> Fraction:
    """The seconds of numbers with units, from the largest unit down."""
    total = Fraction(0)
    position, previous = 0, None
    while position < len(words):
        part = _PART.match(words, position)
        if part is None:
            if words[position:].strip():
                raise _refuse(text, arg, owner)
            break
        seconds = UNITS[part.group(2)]
        if previous is not None and seconds >= previous:
            raise _refuse(text, arg, owner,
                          "a duration whose parts go from the largest unit down, each unit "
                          "once (such as 1h30min)")
        total += _number(part.group(1), text, arg, owner) * seconds
        position, previous = part.end(), seconds
    if previous is None:
        raise _refuse(text, arg, owner)
    return total


def parse_duration(text: str | int | Fraction, *, arg: str = "duration",
                   owner: str = "parse_duration") -> Fraction:
    """Read a duration; the exact number of seconds it names (:func:`read_duration`'s seconds).

    Parameters
    ----------
    text : str, int or fractions.Fraction
        ``"90"`` (seconds), ``"90s"``, ``"90 s"``, ``"90m"``, ``"2h"``, ``"1.5 d"``,
        ``"1h30min"``, ``"1:30:00"``, ``"half an hour"`` (the module's grammar); an int or
        a Fraction is taken as seconds. Floats are refused (their binary value is rarely
        what was meant): pass ``str(x)``.
    arg, owner : str
        The argument and its owner, as the error message names them.

    Returns
    -------
    fractions.Fraction
        The number of seconds, exactly (``"1.5 d"`` is ``Fraction(129600)``).

    Raises
    ------
    DurationError
        When ``text`` is not a duration (see :func:`read_duration`).

    Examples
    --------
    >>> parse_duration("1h30min")
    Fraction(5400, 1)
    >>> parse_duration("0.25 s")
    Fraction(1, 4)
    >>> parse_duration("fortnight")
    Traceback (most recent call last):
    ...
    maxent_util.durations.DurationError: `duration` of `parse_duration` must be a duration: a number of seconds or numbers with units ms, s, min, h, d or w (such as 90, 90s, 90m, 2 hrs, 1h 30m, 1:30:00, an hour and a half); got 'fortnight'.
    """
    return read_duration(text, arg=arg, owner=owner).seconds


def duration_seconds(text: str | int | Fraction, *, arg: str = "duration",
                     owner: str = "duration_seconds") -> float:
    """:func:`parse_duration` as a float number of seconds (the nearest double).

    >>> duration_seconds("15 min")
    900.0
    """
    value = parse_duration(text, arg=arg, owner=owner)
    try:
        return float(value)
    except OverflowError:
        raise _refuse(text, arg, owner, "a duration a double can hold (at most about "
                      "1.8e308 seconds)") from None


def looks_like_duration(text: str) -> bool:
    """Whether ``text`` is a duration with at least one unit (``"5min"``, not ``"5"``).

    >>> looks_like_duration("5min"), looks_like_duration("5"), looks_like_duration("x")
    (True, False, False)
    """
    if not isinstance(text, str) or _BARE.fullmatch(text):
        return False
    try:
        parse_duration(text)
    except DurationError:
        return False
    return True


_LARGEST_FIRST = (("d", 86400), ("h", 3600), ("min", 60))


def format_duration(seconds: int | Fraction) -> str:
    """A duration as text that :func:`parse_duration` reads back to the same value.

    Whole days, hours and minutes are named; the rest is seconds, written as a decimal
    when it has a finite one and refused otherwise.

    >>> format_duration(5400), format_duration(Fraction(3, 2)), format_duration(0)
    ('1h30min', '1.5s', '0s')
    """
    value = parse_duration(seconds, arg="seconds", owner="format_duration")
    denominator = value.denominator
    for prime in (2, 5):
        while denominator % prime == 0:
            denominator //= prime
    if denominator != 1:
        raise _refuse(seconds, "seconds", "format_duration",
                      "a number of seconds with a finite decimal expansion")
    parts = []
    whole, rest = divmod(value, 1)
    whole = int(whole)
    for unit, size in _LARGEST_FIRST:
        count, whole = divmod(whole, size)
        if count:
            parts.append(f"{count}{unit}")
    rest += whole
    if rest or not parts:
        parts.append(f"{_decimal(rest)}s")
    return "".join(parts)


def _decimal(value: Fraction) -> str:
    """A Fraction whose denominator is 2**a 5**b as a decimal, exactly."""
    whole, rest = divmod(value, 1)
    if not rest:
        return str(int(whole))
    places = 0
    while (rest * 10 ** places).denominator != 1:
        places += 1
    digits = str(int(rest * 10 ** places)).rjust(places, "0").rstrip("0")
    return f"{int(whole)}.{digits}"


def seconds_in_text(text: str, *, arg: str = "text", owner: str = "seconds_in_text") -> str:
    """``text`` with every duration that has a unit written as its number of seconds.

    How the safe expression reader (:mod:`maxent_util.expressions`) and the preset
    reader take ``pareto(5min, 1)`` or ``exp(-t/(1h))``: a number followed by a unit is
    never valid arithmetic, so only text that would otherwise be refused changes. A
    bare number stays as written (seconds); a whole number of seconds is written as an
    integer, any other as its exact decimal.

    A duration stands only where a whole number would: not as an exponent (``t**2h``)
    and not before a parenthesis (``3 min(t, 2)``, where ``min`` is the function).
    Rewritten there, a typo would silently become another utility, so it is refused.

    >>> seconds_in_text("pareto(5min, 1)"), seconds_in_text("uniform(1.5 h)")
    ('pareto(300, 1)', 'uniform(5400)')
    >>> seconds_in_text("exp(-t/90s) + min(t, 2)")
    'exp(-t/90) + min(t, 2)'
    >>> seconds_in_text("t**2h")
    Traceback (most recent call last):
    ...
    maxent_util.durations.DurationError: `text` of `seconds_in_text` must be an expression whose durations stand where a whole number would (2h is an exponent here; write the exponent without a unit); got 't**2h'.
    """
    def seconds(match: re.Match) -> str:
        before = text[:match.start()].rstrip()
        after = text[match.end():].lstrip()
        word = match.group(0).strip()
        if before.endswith(("**", "^")):
            raise _refuse(text, arg, owner,
                          "an expression whose durations stand where a whole number would "
                          f"({word} is an exponent here; write the exponent without a unit)")
        if after.startswith(("(", "**", "^")):
            raise _refuse(text, arg, owner,
                          "an expression whose durations stand where a whole number would "
                          f"({word} is followed by {after[:2].rstrip()!r}; write * for a "
                          "product, such as 3*min(t, 2))")
        value = parse_duration(word, arg=arg, owner=owner)
        return str(value.numerator) if value.denominator == 1 else _decimal(value)

    return _IN_TEXT.sub(seconds, text)


def readable_duration(seconds: float) -> str:
    """A number of seconds as a person reads it: the seconds, and beside them the largest
    unit that keeps the number at least 1, to 3 significant digits.

    A whole number of seconds below a million is written whole (a cutoff of 10000 s, not
    1e+04 s); any other to 4 significant digits.

    >>> readable_duration(1683600.0), readable_duration(200.0), readable_duration(12.5)
    ('1.684e+06 s (2.78 weeks)', '200 s (3.33 min)', '12.5 s')
    >>> readable_duration(10000), readable_duration(1234.56)
    ('10000 s (2.78 h)', '1235 s (20.6 min)')
    """
    value = float(seconds)
    whole = value.is_integer() and abs(value) < 1e6
    text = f"{int(value)} s" if whole else f"{value:.4g} s"
    if not (value == value) or value in (float("inf"), float("-inf")):
        return text
    for name, size in (("years", 31557600), ("weeks", 604800), ("days", 86400), ("h", 3600),
                       ("min", 60)):
        if abs(value) >= size * (2 if name in ("years", "weeks", "days") else 1):
            return f"{text} ({value / size:.3g} {name})"
    return text
