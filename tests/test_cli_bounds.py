"""derive on the command line: relation= for every kind that takes a bound, and the support said
when it was not given (issue 25, section 2)."""

from __future__ import annotations

import pytest
from conftest import assert_usage_error, run

from maxent_util.constraints import constraint_kinds
from maxent_util.cli.derive import _flag_name

BOUNDED = [name for name, cls in constraint_kinds().items() if getattr(cls, "takes_relation", False)]


def test_every_kind_with_a_bound_takes_relation_in_its_help(capsys):
    status, out, _ = run(capsys, "derive", "--help")
    assert status == 0 and len(BOUNDED) >= 3
    for name in BOUNDED:
        assert f"--{_flag_name(name)} " in out and "[relation=<=|>=]" in out


@pytest.mark.parametrize("argv, value_at, constraint", [
    (["--support", "0", "oo", "--mean", "3600", "relation=<="], 4, "Mean(3600, relation='<=')"),
    (["--support", "0", "10", "--tail-probability", "5", "0.1", "relation=>="], 5,
     "TailProbability(5, 1/10, relation='>=')"),
    (["--support", "1", "oo", "--log-moment", "2", "1", "relation=<="], 4,
     "LogMoment(2, 1, relation='<=')"),
])
def test_relation_after_the_values_is_the_bound_as_in_python(capsys, argv, value_at, constraint):
    status, out, err = run(capsys, "derive", *argv)
    assert (status, err) == (0, "")
    assert constraint in out.splitlines()[0]
    # the prefix form ('<=3600' for the bounded value) states the same constraint
    prefixed = list(argv[:-1])
    prefixed[value_at] = argv[-1].removeprefix("relation=") + prefixed[value_at]
    status, same, _ = run(capsys, "derive", *prefixed)
    assert status == 0 and same.splitlines()[0] == out.splitlines()[0]


def test_a_kind_without_a_bound_refuses_relation(capsys):
    assert_usage_error(*run(capsys, "derive", "--support", "0", "10", "relation=<="))


def test_the_default_support_is_said(capsys):
    status, out, _ = run(capsys, "derive", "--mean", "3600")
    assert status == 0
    assert "support: [0, oo) (default: no --support given)" in out.splitlines()
    status, out, _ = run(capsys, "derive", "--support", "0", "24")
    assert "support: [0, 24]" in out.splitlines()
