"""Durations as people write them: ``"90s"``, ``"15 min"``, ``"2h"``, ``"1.5 d"``, ``"1h30min"``.

The one reader of durations in the package: the command line's time options
(``--mean 1h``, ``--support 0 2h``, ``--cutoff 90min``) and the numbers inside
rule specs (``pareto(5min, 1)``) all come through :func:`parse_duration`.

A bare number is seconds. Units are ``s``/``sec``/``second(s)``,
``min``/``minute(s)``, ``h``/``hr``/``hour(s)`` and ``d``/``day(s)``; several
parts may follow one another from the largest unit down (``1h30min``,
``1 d 6 h``). The text is matched by one regular expression and the numbers are
read by :class:`fractions.Fraction`, never evaluated.

The value is exact: a :class:`fractions.Fraction` of seconds. ``Fraction`` rather
than sympy's ``Rational`` because the command line reads durations before (or
without) importing sympy (``--help`` imports neither sympy nor pandas); a
``Fraction`` becomes a sympy number exactly with ``sympy.Rational(f.numerator,
f.denominator)``, and a float with :func:`duration_seconds`.
"""

from __future__ import annotations

import re
from fractions import Fraction
from numbers import Rational

from .errors import MaxEntError, argument_message, short

__all__ = ["DurationError", "UNITS", "parse_duration", "duration_seconds", "format_duration",
           "looks_like_duration", "seconds_in_text"]


class DurationError(MaxEntError):
    """A text is not a duration (a number of seconds, or numbers with time units)."""


#: Seconds in each unit, by every spelling the reader takes.
UNITS: dict[str, int] = {
    **dict.fromkeys(("s", "sec", "secs", "second", "seconds"), 1),
    **dict.fromkeys(("min", "mins", "minute", "minutes"), 60),
    **dict.fromkeys(("h", "hr", "hrs", "hour", "hours"), 3600),
    **dict.fromkeys(("d", "day", "days"), 86400),
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
# a duration with a unit inside an expression: not part of a name or of another number
_IN_TEXT = re.compile(rf"(?<![\w.]){_NUMBER}\s*(?:{_UNIT})(?:\s*{_NUMBER}\s*(?:{_UNIT}))*(?!\w)",
                      re.ASCII)

_EXPECTED = ("a duration: a number of seconds or numbers with units s, min, h or d "
             "(such as 90, 90s, 15 min, 2h, 1.5d, 1h30min)")


def _refuse(text: object, arg: str, owner: str, requirement: str = _EXPECTED) -> DurationError:
    return DurationError(argument_message(arg, owner, requirement, short(text)))


def _number(digits: str, text: object, arg: str, owner: str) -> Fraction:
    exponent = _EXPONENT.search(digits)
    if exponent and abs(int(exponent.group(1))) > _MOST_EXPONENT:
        raise _refuse(text, arg, owner,
                      f"a duration with a decimal exponent of at most {_MOST_EXPONENT}")
    return Fraction(digits)


def parse_duration(text: str | int | Fraction, *, arg: str = "duration",
                   owner: str = "parse_duration") -> Fraction:
    """Read a duration; the exact number of seconds it names.

    Parameters
    ----------
    text : str, int or fractions.Fraction
        ``"90"`` (seconds), ``"90s"``, ``"90 s"``, ``"15 min"``, ``"2h"``, ``"1.5 d"``,
        ``"1h30min"``; an int or a Fraction is taken as seconds. Floats are refused
        (their binary value is rarely what was meant): pass ``str(x)``.
    arg, owner : str
        The argument and its owner, as the error message names them.

    Returns
    -------
    fractions.Fraction
        The number of seconds, exactly (``"1.5 d"`` is ``Fraction(129600)``).

    Raises
    ------
    DurationError
        When ``text`` is not a duration: another unit, a negative number, two parts
        in the wrong order, a unit twice, words, an exponent past 30, an int or a
        Fraction of more than 400 digits.

    Examples
    --------
    >>> parse_duration("1h30min")
    Fraction(5400, 1)
    >>> parse_duration("0.25 s")
    Fraction(1, 4)
    >>> parse_duration("fortnight")
    Traceback (most recent call last):
    ...
    maxent_util.durations.DurationError: `duration` of `parse_duration` must be a duration: a number of seconds or numbers with units s, min, h or d (such as 90, 90s, 15 min, 2h, 1.5d, 1h30min); got 'fortnight'.
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
        return value
    if not isinstance(text, str) or len(text) > _MOST_CHARACTERS:
        raise _refuse(text, arg, owner)
    bare = _BARE.fullmatch(text)
    if bare:
        return _number(bare.group(1), text, arg, owner)
    total = Fraction(0)
    position, previous = 0, None
    while position < len(text):
        part = _PART.match(text, position)
        if part is None:
            if text[position:].strip():
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

    >>> seconds_in_text("pareto(5min, 1)"), seconds_in_text("uniform(1.5 h)")
    ('pareto(300, 1)', 'uniform(5400)')
    >>> seconds_in_text("exp(-t/90s) + min(t, 2)")
    'exp(-t/90) + min(t, 2)'
    """
    def seconds(match: re.Match) -> str:
        value = parse_duration(match.group(0), arg=arg, owner=owner)
        return str(value.numerator) if value.denominator == 1 else _decimal(value)

    return _IN_TEXT.sub(seconds, text)
