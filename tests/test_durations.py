"""The one reader of durations (maxent_util/durations.py): units, exact values, refusals."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from maxent_util.durations import (UNITS, DurationError, duration_seconds, format_duration,
                                   looks_like_duration, parse_duration)
from maxent_util.errors import MaxEntError


@pytest.mark.parametrize("text, seconds", [
    ("90", 90), ("90s", 90), ("90 s", 90), ("90 sec", 90), ("1 second", 1), ("2 seconds", 2),
    ("15 min", 900), ("15min", 900), ("1 minute", 60), ("3 minutes", 180),
    ("2h", 7200), ("2 hr", 7200), ("1 hour", 3600), ("2 hours", 7200),
    ("1.5 d", 129600), ("1 day", 86400), ("2 days", 172800),
    ("1h30min", 5400), ("1 h 30 min", 5400), ("1d 2h 3min 4s", 93784),
    ("0.25 s", Fraction(1, 4)), (".5", Fraction(1, 2)), ("5.", 5), ("1e3", 1000),
    ("2.5e-1min", 15), ("  7 s  ", 7), ("0", 0),
    (7, 7), (Fraction(3, 2), Fraction(3, 2)),
])
def test_durations_are_read_exactly(text, seconds):
    value = parse_duration(text)
    assert isinstance(value, Fraction) and value == seconds
    assert duration_seconds(text) == float(seconds)


@pytest.mark.parametrize("text", [
    "", " ", "s", "min", "-5", "-5s", "5 m", "5 ms", "5 weeks", "fortnight", "1h30", "5s5",
    "5 5", "5minx", "5 min,", "1e31", "1e-31 s", "2**10", "__import__('os')", "5/2", "nan",
    "inf", "oo", "5 s 3 min", "1h 2h", "0x10", "1_000", "٣", "5 мин", "x" * 101,
    5.0, True, None, [5], -1, Fraction(-1, 2),
])
def test_anything_else_is_refused_naming_the_argument(text):
    with pytest.raises(DurationError, match=r"^`--cutoff` of `rank` must be a duration"):
        parse_duration(text, arg="--cutoff", owner="rank")


def test_a_refusal_is_a_maxent_error_that_says_what_was_expected():
    with pytest.raises(MaxEntError, match=r"numbers with units s, min, h or d .*got '5 weeks'\.$"):
        parse_duration("5 weeks")
    with pytest.raises(DurationError, match="from the largest unit down"):
        parse_duration("30min 1h")
    with pytest.raises(DurationError, match="decimal exponent of at most 30"):
        parse_duration("1e999999999")  # refused at once, not a billion-digit integer


_DECIMALS = st.builds(
    lambda whole, digits: f"{whole}.{digits}" if digits else str(whole),
    st.integers(0, 10**9), st.text("0123456789", max_size=6))


@settings(max_examples=300, deadline=None)
@given(number=_DECIMALS, unit=st.sampled_from(sorted(UNITS)), space=st.sampled_from(["", " "]))
def test_a_number_with_a_unit_is_that_many_units(number, unit, space):
    assert parse_duration(f"{number}{space}{unit}") == Fraction(number) * UNITS[unit]
    assert parse_duration(number) == Fraction(number)  # a bare number is seconds


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 10**12), st.integers(0, 6))
def test_format_and_parse_round_trip(numerator, places):
    seconds = Fraction(numerator, 10 ** places)
    text = format_duration(seconds)
    assert parse_duration(text) == seconds
    assert looks_like_duration(text)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=30))
def test_junk_is_refused_or_read_never_crashes(text):
    try:
        value = parse_duration(text)
    except DurationError as error:
        assert "must be a duration" in str(error)
    else:
        assert isinstance(value, Fraction) and value >= 0


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=("Nd",)), min_size=1, max_size=20))
def test_text_without_a_digit_is_never_a_duration(text):
    with pytest.raises(DurationError):
        parse_duration(text)


def test_a_duration_without_a_finite_decimal_is_not_formatted():
    assert format_duration(5400) == "1h30min"
    with pytest.raises(DurationError, match="finite decimal expansion"):
        format_duration(Fraction(1, 3))


@pytest.mark.parametrize("value", [10 ** 100000, Fraction(10 ** 100000), Fraction(1, 10 ** 100000),
                                   Fraction(10 ** 400, 3)], ids=["int", "big", "small", "400"])
def test_a_number_of_more_than_400_digits_is_refused_with_its_size(value):
    # str() of such a number raises Python's int-to-str limit: the refusal never prints it
    for read in (parse_duration, duration_seconds, format_duration):
        with pytest.raises(DurationError, match=r"numerator and denominator have at most 400 "
                                                r"digits; got '(<an integer|<a Fraction|Frac)"):
            read(value)


def test_a_duration_beyond_a_double_is_refused_as_a_float_and_kept_exact():
    value = 10 ** 399  # 400 digits: read exactly, but no double holds it
    assert parse_duration(value) == value
    assert format_duration(value).endswith("s")
    with pytest.raises(DurationError, match=r"`duration` of `duration_seconds` must be a duration "
                                            r"a double can hold"):
        duration_seconds(value)
    assert duration_seconds(Fraction(1, 10 ** 399)) == 0.0  # the nearest double
