"""Durations with units wherever a time is read: CLI options, derive's constraint values and
the numbers of rule specs (issue 25, section 2)."""

from __future__ import annotations

import json

import pytest
import sympy
from conftest import assert_usage_error, run

from maxent_util import Mean, Support
from maxent_util.errors import MaxEntError, UtilityError
from maxent_util.expressions import read_expression
from maxent_util.ranking import parse_rule


def test_the_safe_reader_takes_durations_and_leaves_names_alone():
    assert read_expression("2h") == 7200 and read_expression("1h30min") == 5400
    assert read_expression("exp(-t/(5 min))") == read_expression("exp(-t/300)")
    assert read_expression("1.5 s") == read_expression("1.5")  # seconds keep the text's number
    h, d = sympy.symbols("h d")
    assert read_expression("2*h + d") == 2 * h + d  # names, not units
    assert str(read_expression("min(t, 5)")) == "Min(5, t)"  # the function, not minutes
    with pytest.raises(MaxEntError, match="from the largest unit down"):
        read_expression("30min 1h", arg="x", owner="test")
    with pytest.raises(MaxEntError, match="must be an arithmetic expression"):
        read_expression("5 fortnights", arg="x", owner="test")


def test_constraints_and_specs_take_durations():
    assert Mean("1h") == Mean(3600) and Support(0, "2h") == Support(0, 7200)
    assert float(parse_rule("pareto(5min, 1)")(600.0)) == float(parse_rule("pareto(300, 1)")(600.0))
    assert parse_rule("pareto(5min, 1)").name == "pareto(5min, 1)"  # named as written
    with pytest.raises(UtilityError, match=r"`spec` of `parse_utility` must be a duration whose parts"):
        parse_rule("pareto(30min 1h, 1)")


def test_derive_reads_mean_and_support_with_units(capsys):
    status, with_units, err = run(capsys, "derive", "--support", "0", "2h", "--mean", "1h", "--json")
    assert (status, err) == (0, "")
    status, plain, _ = run(capsys, "derive", "--support", "0", "7200", "--mean", "3600", "--json")
    assert json.loads(with_units)["pdf"] == json.loads(plain)["pdf"]


@pytest.mark.parametrize("unit, plain", [("1h", "3600"), ("90min", "5400")])
def test_cutoff_with_a_unit_is_that_many_seconds(capsys, tmp_path, unit, plain):
    data = tmp_path / "runs.csv"
    data.write_text("algorithm,instance,runtime,status,cutoff\n"
                    "a,i1,100,solved,7200\na,i2,4000,solved,7200\n"
                    "b,i1,200,solved,7200\nb,i2,7200,capped,7200\n")
    outputs = []
    for cutoff in (unit, plain):
        status, out, err = run(capsys, "rank", str(data), "--par", "2", "--cutoff", cutoff, "--csv")
        assert (status, err) == (0, ""), err
        outputs.append(out)
    assert outputs[0] == outputs[1]


@pytest.mark.parametrize("flag", ["--cutoff", "--t-max"])
def test_a_time_that_is_no_duration_is_refused_in_one_line(capsys, flag):
    command = ["rank", "--dataset", "satcomp2021-parallel"] if flag == "--cutoff" else ["plot"]
    assert_usage_error(*run(capsys, *command, flag, "2 fortnights"),
                       f"argument {flag}: expected a duration such as 90, 90s, 15min")
    assert_usage_error(*run(capsys, *command, flag, "-5min"), f"argument {flag}: expected")


@pytest.mark.parametrize("text, hint", [
    ("t**2h", "2h is an exponent"), ("t^2h", "2h is an exponent"),
    ("3 min(t, 2)", r"write \* for a product"), ("2h**t", r"followed by '\*\*'"),
])
def test_a_unit_stands_only_where_a_duration_stands(text, hint):
    # rewritten, t**2h would silently become t**7200 and 3 min(t, 2) the text 180(t, 2)
    with pytest.raises(MaxEntError, match=hint):
        parse_rule(text)


def test_a_duration_as_a_whole_operand_still_reads():
    assert parse_rule("exp(-t/90s)")(90.0) == pytest.approx(float(sympy.exp(-1)), rel=1e-15)
    assert parse_rule("exp(-t/(1h 30m))")(5400.0) == pytest.approx(float(sympy.exp(-1)), rel=1e-15)
