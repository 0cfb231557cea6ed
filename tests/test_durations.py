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
    # as people write them (the grammar's table in docs/cli.md)
    ("90m", 5400), ("2 hrs", 7200), ("45 secs", 45), ("1.5 days", 129600), ("3 weeks", 1814400),
    ("1w", 604800), ("500ms", Fraction(1, 2)), ("1h 30m", 5400), ("1 hour and 30 minutes", 5400),
    ("1 hour, 30 minutes", 5400), ("1:30:00", 5400), ("0:45", 45), ("2:05", 125),
    ("0:00:01.5", Fraction(3, 2)), ("an hour", 3600), ("a day", 86400), ("two hours", 7200),
    ("Twenty minutes", 1200), ("half an hour", 1800), ("a quarter of an hour", 900),
    ("quarter of an hour", 900), ("three quarters of an hour", 2700), ("half a day", 43200),
    ("an hour and a half", 5400), ("2 hours and a half", 9000), ("two and a half days", 216000),
    ("about an hour", 3600), ("~1h", 3600), ("roughly 90 minutes", 5400), ("2 hours or so", 7200),
    ("1 hour-ish", 3600), ("About  2   Hours", 7200),
])
def test_durations_are_read_exactly(text, seconds):
    value = parse_duration(text)
    assert isinstance(value, Fraction) and value == seconds
    assert duration_seconds(text) == float(seconds)


@pytest.mark.parametrize("text", [
    "", " ", "s", "min", "-5", "-5s", "5 mo", "5 years", "fortnight", "1h30", "5s5",
    "5 5", "5minx", "5 min,,,x", "1e31", "-1 h", "minus 5 s", "１２", "5\x00", "5\u200b s", "1:75",
    "1:30:75", "1::30", "half", "a", "an hour and", "about", "~", "twenty-one hours", "1e31", "1e-31 s", "2**10", "__import__('os')", "5/2", "nan",
    "inf", "oo", "5 s 3 min", "1h 2h", "0x10", "1_000", "٣", "5 мин", "x" * 101,
    5.0, True, None, [5], -1, Fraction(-1, 2),
])
def test_anything_else_is_refused_naming_the_argument(text):
    with pytest.raises(DurationError, match=r"^`--cutoff` of `rank` must be a duration"):
        parse_duration(text, arg="--cutoff", owner="rank")


def test_a_refusal_is_a_maxent_error_that_says_what_was_expected():
    with pytest.raises(MaxEntError, match=r"numbers with units ms, s, min, h, d or w .*got '5 fortnights'\.$"):
        parse_duration("5 fortnights")
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


@pytest.mark.parametrize("text, approximate", [
    ("about an hour", True), ("~1h", True), ("around 5 min", True), ("2 hours or so", True),
    ("1h", False), ("an hour", False), ("90", False),
])
def test_an_approximation_is_read_as_its_value_and_marked(text, approximate):
    from maxent_util.durations import read_duration

    duration = read_duration(text)
    assert duration.approximate is approximate
    assert duration.seconds == parse_duration(text.replace("about", "").replace("around", "")
                                              .replace("~", "").replace("or so", ""))


@pytest.mark.parametrize("text, why", [
    ("-1 h", "at least 0 seconds"), ("minus 5 min", "at least 0 seconds"),
    ("nan", "finite"), ("inf s", "finite"), ("１２", "digits 0-9"), ("5\x00", "control characters"),
])
def test_values_a_reader_could_misread_are_refused_by_name(text, why):
    with pytest.raises(DurationError, match=rf"^`waits` of `fit` must be a duration .*{why}"):
        parse_duration(text, arg="waits", owner="fit")


@settings(max_examples=200, deadline=None)
@given(st.fractions(min_value=0, max_value=10 ** 9).map(lambda f: Fraction(round(f * 1000), 1000)))
def test_format_duration_reads_back_through_the_grammar(value):
    assert parse_duration(format_duration(value)) == value


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
