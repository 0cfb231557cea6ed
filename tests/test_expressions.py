"""The safe expression reader: what it builds, what it refuses, and that no text runs code.

Reference values: the expressions a text must build are written here as sympy objects
made directly (not parsed), so each comparison is against an independent construction.
"""

from __future__ import annotations

import math
import re

import pytest
import sympy
from hypothesis import HealthCheck, given, settings
from conftest import ROOT
from hypothesis import strategies as st

from maxent_util import expressions
from maxent_util.errors import ConstraintError, MaxEntError, UtilityError
from maxent_util.expressions import as_expression, from_tree, read_expression, read_number, to_tree
from maxent_util.symbols import kappa, q, t

PACKAGE = ROOT / "maxent_util"


# ---------------------------------------------------------------------------
# what a text builds


a, alpha, kappa0 = sympy.symbols("a alpha kappa0")


@pytest.mark.parametrize("text, expected", [
    ("exp(-t/a)", sympy.exp(-t / a)),
    ("t^2 + 1", t ** 2 + 1),                      # ^ is a power, as sympy's own reader has it
    ("(kappa0/t)**alpha", (kappa0 / t) ** alpha),
    ("log(kappa/2)**2", sympy.log(kappa / 2) ** 2),
    ("log(8, 2)", sympy.Integer(3)),
    ("Min(t, 3) + Max(q, 0)", sympy.Min(t, 3) + sympy.Max(q, 0)),
    ("erfc(log(t/24)/sqrt(2))", sympy.erfc(sympy.log(t / 24) / sympy.sqrt(2))),
    ("gamma*t", sympy.Symbol("gamma") * t),       # a bare name is a symbol, even a function's name
    ("gamma(3)", sympy.Integer(2)),
    ("pi + E", sympy.pi + sympy.E),
    ("Piecewise((1, t < a), (a/t, True))", sympy.Piecewise((1, t < a), (a / t, True))),
    ("Piecewise((0, (t >= 1) & (t < 2)), (1, True))",
     sympy.Piecewise((0, sympy.And(t >= 1, t < 2)), (1, True))),
    ("Piecewise((0, t < 1 or t > 2), (1, True))", sympy.Piecewise((0, sympy.Or(t < 1, t > 2)), (1, True))),
    ("-(-3)", sympy.Integer(3)),
    ("1_000", sympy.Integer(1000)),
])
def test_texts_build_the_expression_they_say(text, expected):
    assert read_expression(text) == expected


@pytest.mark.parametrize("text, exact, expected", [
    ("0.3", "short", sympy.Rational(3, 10)),
    ("1e-4", "short", sympy.Rational(1, 10000)),
    ("2.5e3", "rational", sympy.Integer(2500)),
    ("1.670534513553897", "short", sympy.Float(1.670534513553897)),
    ("1.6705345135538971234", "short", sympy.Float("1.6705345135538971234", 20)),
    ("0.1", "float", sympy.Float(0.1)),
])
def test_decimals_are_read_as_asked(text, exact, expected):
    value = read_expression(text, exact=exact)
    assert value == expected and type(value) is type(expected)


def test_infinity_only_where_allowed():
    assert read_expression("oo", allow_infinity=True) is sympy.oo
    assert read_expression("inf", allow_infinity=True) is sympy.oo
    with pytest.raises(MaxEntError, match=r"must be finite; got 'inf'"):
        read_expression("inf")


def test_names_can_be_refused_or_given_meaning():
    assert read_expression("alpha", names={"alpha": kappa0}) == kappa0
    positive = read_expression("b", new_symbol=lambda name: sympy.Symbol(name, positive=True))
    assert positive.is_positive
    with pytest.raises(MaxEntError, match=r"must be a number; got 'b'"):
        read_number("b")


def test_comparisons_only_where_allowed():
    assert read_expression("0 < t < 3", allow_relations=True) == sympy.And(sympy.Lt(0, t), t < 3)
    with pytest.raises(MaxEntError):
        read_expression("t < 3")


# ---------------------------------------------------------------------------
# what it refuses, with the argument named

REFUSED = {
    # code
    "__import__('os').system('echo hostile')": "calls of the functions",
    "().__class__.__bases__[0].__subclasses__()": "calls of the functions",
    "open('x', 'w')": "calls of the functions",
    "eval('1')": "calls of the functions",
    "exec('x = 1')": "calls of the functions",
    "Symbol('x')": "calls of the functions",
    "Function('f')(t)": "calls of the functions",
    "Tuple('1')": "calls of the functions",
    "sympify('1')": "calls of the functions",
    "lambda: 1": "arithmetic expression",
    "[x for x in ()]": "arithmetic expression",
    "t if t else 1": "arithmetic expression",
    "'text'": "a number",
    "b'x'": "a number",
    "f'{t}'": "arithmetic expression",
    "t.real": "arithmetic expression",
    "t[0]": "arithmetic expression",
    "exp(x=1)": "calls of the functions",
    "exp(*t)": "arithmetic expression",
    "x; y": "arithmetic expression",
    "x = 1": "arithmetic expression",
    "t // 2": "arithmetic with",
    "t % 2": "arithmetic with",
    "t @ t": "arithmetic with",
    "~t": "arithmetic expression",
    "not t": "arithmetic expression",
    "_x": "names made of ASCII letters",
    "κ": "names made of ASCII letters",
    # blow-ups
    "9**9**9": "a power with at most",
    "10**10**10": "a power with at most",
    "2**2**2**2**2": "a power with at most",
    "(10**300)**2": "a power with at most",
    "9" * 500: "numbers of at most",
    "1e999": "a finite number",
    "1" + "0" * 401 + ".5": "numbers of at most",
    "t" + "+t" * 3000: "a text of at most",
    "exp(" * 70 + "t" + ")" * 70: "nested at most",
    # values that are not real numbers
    "nan": "a real value",
    "zoo": "a real value",
    "I": "a real value",
    "1j": "a real number",
    "sqrt(-1)": "a real value",
    "log(-2)": "a real value",
    "1/0": "division by zero",
    "0**-1": "a defined real value",
    # not an expression
    "": "a non-empty expression",
    "   ": "a non-empty expression",
    "t\x00": "a non-empty expression",
    "exp(t, t)": "with 1 argument",
    "Piecewise(1)": "Piecewise of",
    "Piecewise((1, 2))": "Piecewise conditions",
    "exp(t < 1)": "arithmetic expression",
    "Piecewise((t < 1, True))": "arithmetic expression",
    "(t < 1) + 1": "arithmetic expression",
}


@pytest.mark.parametrize("text", list(REFUSED))
def test_refused_texts_name_the_argument_and_the_reason(text):
    shown = text if len(text) <= 80 else None
    with pytest.raises(UtilityError) as caught:
        read_expression(text, arg="u", owner="Owner", error=UtilityError)
    message = str(caught.value)
    assert message.startswith("`u` of `Owner` must be ")
    assert REFUSED[text] in message
    if shown is not None and "characters" not in message:
        assert repr(shown) in message


@pytest.mark.parametrize("value", [None, True, [1], (1, 2), {"a": 1}, 1 + 2j, object(), b"1",
                                   float("nan"), sympy.I, sympy.nan, sympy.zoo, 10 ** 500,
                                   sympy.Eq(t, 1)])
def test_non_text_values_that_are_not_real_numbers_are_refused(value):
    with pytest.raises(ConstraintError, match=r"^`v` of `Owner` must be "):
        as_expression(value, arg="v", owner="Owner", error=ConstraintError)


# ---------------------------------------------------------------------------
# hypothesis: any text whatever is read or refused with a maxent_util error

_ALPHABET = st.sampled_from(list("tk0123456789.+-*/()^<>=!,eE_ aIjx'\"[]{}:;@%~&|\\\n\t\x00κ")
                            + ["exp", "log", "**", "oo", "nan", "__", "lambda", "import", "Piecewise",
                               "True", "9**9", "sqrt", "Min("])


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_ALPHABET, max_size=40).map("".join))
def test_any_text_is_read_or_refused_cleanly(text):
    try:
        value = read_expression(text, allow_infinity=True)
    except MaxEntError:
        return
    assert isinstance(value, sympy.Expr)
    assert not value.has(sympy.nan, sympy.zoo)
    assert value.is_extended_real is not False


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=60))
def test_any_unicode_text_is_read_or_refused_cleanly(text):
    try:
        read_expression(text)
    except MaxEntError:
        pass


_LEAVES = st.one_of(st.integers(-1000, 1000).map(sympy.Integer),
                    st.fractions(max_denominator=1000).map(lambda f: sympy.Rational(f.numerator, f.denominator)),
                    st.sampled_from([t, kappa, a, alpha, sympy.pi, sympy.E]))


def _built(function):
    """``function`` of a drawn argument, or nothing when sympy cannot build it (overflow)."""
    def build(argument):
        try:
            return function(argument)
        except (OverflowError, ValueError, MemoryError):
            return None
    return build


def _combine(children):
    return _combined(children).filter(lambda expr: expr is not None)


def _combined(children):
    return st.one_of(
        st.tuples(children, children).map(_built(lambda p: p[0] + p[1])),
        st.tuples(children, children).map(_built(lambda p: p[0] * p[1])),
        st.tuples(children, st.integers(-2, 2)).map(_built(lambda p: p[0] ** p[1] if p[0].is_Atom and p[0] != 0 else p[0])),
        # functions of leaves only: exp(exp(...)) inside Max makes sympy evaluate towers
        _LEAVES.map(_built(sympy.exp)), _LEAVES.map(_built(sympy.erfc)),
        children.map(_built(lambda c: sympy.Max(c, t))),
        st.tuples(children, children).map(_built(lambda p: sympy.Piecewise((p[0], t < 3), (p[1], True)))))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.recursive(_LEAVES, _combine, max_leaves=12))
def test_trees_round_trip(expr):
    assert from_tree(to_tree(expr)) == expr


@settings(max_examples=200, deadline=None)
@given(st.floats(allow_nan=False, allow_infinity=False), st.integers(10, 200))
def test_floats_round_trip_bit_for_bit(value, precision):
    number = sympy.Float(value, precision=precision)
    back = from_tree(to_tree(number))
    assert back == number and back._prec == number._prec


def _nested(tree: dict, depth: int) -> dict:
    """``tree`` inside ``depth`` sums with a symbol, alternating sides."""
    for level in range(depth):
        x = {"symbol": f"x{level}", "assumptions": []}
        tree = {"op": "Add", "args": [tree, x] if level % 2 else [x, tree]}
    return tree


@pytest.mark.parametrize("tree, fragment", [
    ({"op": "Add"}, "an expression node"),
    ({"op": "eval", "args": [{"int": "1"}]}, "a known operator"),
    ({"op": "Add", "args": [{"int": "9" * 1000}]}, "at most 400 digits"),
    ({"int": 1}, "an integer written as a string"),
    ({"symbol": "__import__", "assumptions": []}, "a symbol name"),
    ({"symbol": "lambda", "assumptions": []}, "a symbol name"),
    ({"symbol": "a", "assumptions": ["commutative; import os"]}, "assumptions among"),
    ({"float": "1e500000", "precision": 53}, "a float written as a decimal string"),
    ({"float": "1e50000", "precision": 53}, "numbers between"),
    ({"float": "0x10", "precision": 53}, "a float written as a decimal string"),
    ({"rational": ["1", "0"]}, "non-zero denominator"),
    ({"op": "Pow", "args": [{"int": "9"}, {"op": "Pow", "args": [{"int": "9"}, {"int": "9"}]}]},
     "a power with at most"),
    ("exp(1)", "an expression node"),
    # numbers computed while building: two allowed factors whose product has 599 digits, deep
    # inside a tree whose other parts were checked already, and the same subtree used twice
    (_nested({"op": "Mul", "args": [{"int": "9" * 300}, {"int": "9" * 300}]}, 40), "at most 400 digits"),
    ({"op": "Add", "args": [_nested({"int": "9" * 300}, 20),
                            {"op": "Mul", "args": [_nested({"int": "9" * 300}, 20), {"int": "9" * 300}]}]},
     "at most 400 digits"),
])
def test_bad_trees_are_refused(tree, fragment):
    with pytest.raises(MaxEntError, match=re.escape(fragment)):
        from_tree(tree, where="value", owner="from_json")


def test_deep_trees_are_refused():
    tree = {"int": "1"}
    for _ in range(200):
        tree = {"op": "exp", "args": [tree]}
    with pytest.raises(MaxEntError, match="nested at most"):
        from_tree(tree)


# ---------------------------------------------------------------------------
# the package never evaluates text


_FORBIDDEN = re.compile(r"\b(sympify|parse_expr|eval|exec|compile|__import__)\s*\(|\bsympy\.S\(|\bS\(\s*['\"]")


#: the one line that runs code the library wrote: the scorer's numba loop, a fixed template
#: around a formula of x, c0, c1, ..., _nan, operators and parentheses, checked before it runs
#: (test_the_numba_loop_is_written_with_its_own_words_only below)
_CHECKED_EXEC = ("scorer.py", "exec(compile(source, \"<scorer numba loop>\", \"exec\"), namespace)")


def test_no_module_evaluates_text():
    offenders, checked = [], []
    for path in sorted(PACKAGE.rglob("*.py")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            code = line.split("#", 1)[0]
            if _FORBIDDEN.search(code) and "re.compile(" not in code:
                if (path.name, code.strip()) == _CHECKED_EXEC:
                    checked.append(number)
                else:
                    offenders.append(f"{path.relative_to(PACKAGE)}:{number}: {line.strip()}")
    assert offenders == [] and len(checked) == 1


def test_the_numba_loop_is_written_with_its_own_words_only():
    from maxent_util.scorer import _KERNEL_FORMULA
    for formula in ("((x * c0) if (x < c1) else _nan)", "(-(x - c12)) / (x * x)", "x <= c0"):
        assert _KERNEL_FORMULA.fullmatch(formula), formula
    for formula in ("__import__('os')", "x; import os", "x + y", "c0.real", "open", "x\nimport os",
                    "lambda: 0", "[x]", "x or c0", "f(x)", "'x'", "c0e5", "xx", "c", "x = c0", "x == c0", "1.5"):
        assert not _KERNEL_FORMULA.fullmatch(formula), formula


def test_the_limits_are_stated_once():
    assert expressions.MAX_DIGITS >= 300 and expressions.MAX_NODES >= 100
    assert math.isfinite(expressions.MAX_LENGTH)
