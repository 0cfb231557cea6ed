"""Hostile strings at every entry point: nothing runs, nothing is written, every refusal is ours.

Each payload below tries to run code (the sentinel file records it if it does), to blow up
(towers, huge numbers, deep nesting) or to smuggle in a value that is not a real number.
Every entry point that takes text from a user, a file or the command line is fed every
payload, directly and from hypothesis; it must either return or raise a MaxEntError (on the
command line: exit status 2 with one line on stderr), and the sentinel must never appear.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import sympy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import maxent_util as mu
from maxent_util.cli import main
from maxent_util.errors import MaxEntError

SENTINEL = Path(os.environ.get("TMPDIR", "/tmp")) / f"maxent_util_hostile_{os.getpid()}"
S = str(SENTINEL)

PAYLOADS = [
    # code
    f"__import__('os').system('touch {S}')",
    f"open('{S}', 'w')",
    f"exec(\"open('{S}', 'w')\")",
    f"eval(\"open('{S}', 'w')\")",
    f"().__class__.__base__.__subclasses__()[0]('{S}')",
    f"Function('open')('{S}', 'w')",
    f"Tuple('open(\"{S}\", \"w\")')",
    f"Symbol('x') + open('{S}', 'w')",
    f"lambda: open('{S}', 'w')",
    f"[open('{S}', 'w') for _ in (1,)]",
    f"1 if open('{S}', 'w') else 2",
    f"(t := open('{S}', 'w'))",
    f"t.__class__('{S}')",
    "__builtins__",
    "_",
    # blow-ups
    "9**9**9",
    "10**10**10**10",
    "2**2**2**2**2**2",
    "9" * 5000,
    "1e400",
    "exp(" * 200 + "t" + ")" * 200,
    "t" + "+t" * 20000,
    "(" * 500 + "1" + ")" * 500,
    "gamma(1e300)",
    "exp(10**300)",
    # not real numbers
    "nan", "zoo", "I", "1j", "sqrt(-1)", "log(-1)", "oo - oo", "0/0", "1/0", "E**(I*pi)",
    # odd text
    "", " ", "\x00", "t\n", "κ", "\u202e1", "1;2", "t @ t", "t // 2", "'1'", "b'1'", "None",
    "True", "[1]", "{1: 2}", "...",
]
# payloads that are plain, harmless values some entry points accept
HARMLESS = {"True"}


@pytest.fixture(autouse=True)
def no_sentinel():
    SENTINEL.unlink(missing_ok=True)
    yield
    assert not SENTINEL.exists(), "a hostile string ran code"


def _table() -> pd.DataFrame:
    return pd.DataFrame({"algorithm": ["a", "a", "b", "b"], "instance": ["i", "j", "i", "j"],
                         "runtime": [1.0, 3.0, 2.0, 5.0], "status": ["solved"] * 4,
                         "cutoff": [10.0] * 4})


ENTRY_POINTS = {
    "Moment.expr": lambda s: mu.Moment(s, 1),
    "Moment.value": lambda s: mu.Moment("kappa", s),
    "Moment.where": lambda s: mu.Moment("kappa", 1, where=(s, 5)),
    "Support.lower": lambda s: mu.Support(s, 10),
    "Support.upper": lambda s: mu.Support(0, s),
    "Mean": lambda s: mu.Mean(s),
    "LogMoment.value": lambda s: mu.LogMoment(s, 1),
    "LogMoment.kappa0": lambda s: mu.LogMoment(1, s),
    "SquaredLogDeviation": lambda s: mu.SquaredLogDeviation(s),
    "TailProbability.kappa1": lambda s: mu.TailProbability(s, 0.5),
    "TailProbability.delta": lambda s: mu.TailProbability(2, s),
    "ContinuousAt": lambda s: mu.ContinuousAt(s),
    "parse_utility": lambda s: mu.parse_utility(f"uniform({s})"),
    "parse_family": lambda s: mu.parse_family(s),
    "preset": lambda s: mu.uniform(s),
    "Utility": lambda s: mu.Utility(s),
    "Utility.subs": lambda s: mu.Utility("exp(-t/a)").subs(a=s),
    "step": lambda s: mu.step(s),
    "linear_compute": lambda s: mu.linear_compute(10, s, 1),
    "money": lambda s: mu.money(10, s, "1"),
    "general": lambda s: mu.general(10, "1", s),
    "KnownCaptime.pdf": lambda s: mu.KnownCaptime(s, (0, 10)),
    "KnownCaptime.support": lambda s: mu.KnownCaptime("1/10", (0, s)),
    "expected_utility": lambda s: mu.expected_utility(s, mu.KnownCaptime("1/10", (0, 10))),
    "quality_utility": lambda s: mu.quality_utility(s, 0, 1, kappa0=10),
    "score": lambda s: mu.score([1.0, 2.0], s),
    "rank": lambda s: mu.rank(_table(), {"rule": s}),
    "plan": lambda s: mu.plan(0.1, 0.1, s),
    "Constraint.subs by symbol": lambda s: mu.Mean("m").subs({sympy.Symbol("m", positive=True): s}),
    "Constraint.subs by name": lambda s: mu.Mean("m").subs({"m": s}),
    "CaptimeDistribution.subs": lambda s: mu.uniform("k").subs(k=s),
    "parse_rule": lambda s: mu.parse_rule(s),
}


def _call(entry, payload: str) -> None:
    try:
        result = entry(payload)
    except MaxEntError:
        return
    # an accepted payload must have built something harmless: no names from the payload
    # beyond plain symbols, and no NaN
    for value in getattr(result, "__dict__", {}).values():
        if isinstance(value, sympy.Basic):
            assert not value.has(sympy.nan, sympy.zoo)


@pytest.mark.parametrize("name", list(ENTRY_POINTS))
def test_every_payload_is_refused_or_harmless(name):
    for payload in PAYLOADS:
        _call(ENTRY_POINTS[name], payload)


CLI_COMMANDS = [
    ["derive", "--support", "0", "{}"],
    ["derive", "--support", "0", "oo", "--mean", "{}"],
    ["derive", "--support", "0", "10", "--moment", "{}", "1"],
    ["derive", "--support", "0", "10", "--tail-probability", "2", "{}"],
    ["family", "{}"],
    ["family", "pareto({}, 3)"],
    ["rank", "--dataset", "satcomp2021-parallel", "--utility", "{}"],
    ["plan", "--epsilon", "0.1", "--delta", "0.1", "--utility", "{}"],
]


@pytest.mark.parametrize("command", CLI_COMMANDS, ids=lambda c: " ".join(c[:3]))
def test_the_command_line_refuses_every_payload_in_one_line(command, capsys):
    for payload in PAYLOADS:
        status = main([part.replace("{}", payload) for part in command])
        captured = capsys.readouterr()
        assert "Traceback" not in captured.err
        if status != 0:
            assert status == 2, (payload, captured.err)
            assert len(captured.err.strip().splitlines()) == 1, (payload, captured.err)


_PIECES = st.sampled_from(["__import__", "(", ")", "'", "os", ".", "system", "open", S, "exec",
                           "eval", "lambda", ":", "[", "]", "t", "1", "9**9", "**", "e9", "nan",
                           "I", "kappa", "+", ",", "__class__", "Function", "Symbol", " "])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                   HealthCheck.function_scoped_fixture])
@given(st.lists(_PIECES, max_size=14).map("".join),
       st.sampled_from(["Moment.expr", "Mean", "Utility", "score", "parse_utility", "step", "money"]))
def test_generated_payloads_are_refused_or_harmless(payload, name):
    _call(ENTRY_POINTS[name], payload)
    assert not SENTINEL.exists()


MEAN_MESSAGE = r"^`value` of `Mean` must be "


@pytest.mark.parametrize("call, error, message", [
    pytest.param(lambda: mu.Mean(None), mu.ConstraintError, MEAN_MESSAGE, id="Mean-None"),
    pytest.param(lambda: mu.Mean([1]), mu.ConstraintError, MEAN_MESSAGE, id="Mean-list"),
    pytest.param(lambda: mu.Mean((1, 2)), mu.ConstraintError, MEAN_MESSAGE, id="Mean-tuple"),
    pytest.param(lambda: mu.Mean(1 + 2j), mu.ConstraintError, MEAN_MESSAGE, id="Mean-complex"),
    pytest.param(lambda: mu.Mean({"a": 1}), mu.ConstraintError, MEAN_MESSAGE, id="Mean-dict"),
    pytest.param(lambda: mu.Mean(object()), mu.ConstraintError, MEAN_MESSAGE, id="Mean-object"),
    pytest.param(lambda: mu.Mean(float("nan")), mu.ConstraintError, MEAN_MESSAGE, id="Mean-nan"),
    pytest.param(lambda: mu.Mean(np.array([1.0])), mu.ConstraintError, MEAN_MESSAGE, id="Mean-array"),
    pytest.param(lambda: mu.Moment(None, 1), mu.ConstraintError, r"^`expr` of `Moment` must be ", id="Moment-None"),
    pytest.param(lambda: mu.Utility(""), mu.UtilityError,
                 r"^`expr` of `Utility` must be a non-empty expression", id="Utility-empty"),
])
def test_a_constraint_of_bad_python_values_is_refused(call, error, message):
    with pytest.raises(error, match=message):
        call()


@pytest.mark.parametrize("constraint, argument", [
    (lambda: mu.Mean("oo"), "value"), (lambda: mu.LogMoment("inf", 1), "value"),
    (lambda: mu.SquaredLogDeviation(sympy.oo), "sigma"), (lambda: mu.TailProbability(2, "oo"), "delta"),
    (lambda: mu.Moment("kappa", float("inf")), "value"), (lambda: mu.ContinuousAt("oo"), "kappa0"),
])
def test_infinity_is_refused_where_a_finite_parameter_is_needed(constraint, argument):
    with pytest.raises(mu.ConstraintError, match=rf"^`{argument}` of `\w+` must be .*finite"):
        constraint()


def huge(variable):  # 8000 terms a_i * exp(-variable): 32001 nodes
    return sympy.Add(*[sympy.Mul(a, sympy.exp(-variable), evaluate=False)
                       for a in sympy.symbols("a0:8000")], evaluate=False)


@pytest.mark.parametrize("build", [
    pytest.param(lambda: mu.Utility(huge(mu.t)), id="Utility"),
    pytest.param(lambda: mu.score([1.0], huge(mu.t)), id="score"),
    pytest.param(lambda: mu.Moment(huge(mu.kappa), 1), id="Moment"),
])
def test_a_huge_expression_built_in_python_is_refused_at_once(build):
    with pytest.raises(MaxEntError, match=r"must be an expression of at most 20000 nodes"):
        build()
