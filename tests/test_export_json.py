"""The JSON format is data: hostile documents, stable bytes, and round trips of every preset.

``from_json`` reads files from other people.  Mutations of valid documents
(dropped keys, changed types, huge numbers, deep nesting, unknown operators,
strings with code) must either load or raise ExportError: never another
exception, never a file written, never a hang.
"""

from __future__ import annotations

import copy
import json
import re
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import sympy
from conftest import ROOT, checkout_env, identical
from hypothesis import HealthCheck, given, settings, strategies as st

from maxent_util import families
from maxent_util.distribution import CaptimeDistribution
from maxent_util.errors import ExportError
from maxent_util.export import from_json, to_json
from maxent_util.expressions import MAX_DEPTH, from_tree, to_tree
from maxent_util.scorer import compile_scorer
from maxent_util.symbols import t
from maxent_util.utility import Utility

SENTINEL = Path(os.environ.get("TMPDIR", "/tmp")) / "maxent_util_json_sentinel"
CODE = [f"__import__('os').system('touch {SENTINEL}')", f"open('{SENTINEL}', 'w')",
        "Symbol('x').__class__.__base__", "lambda: 0", "Tuple(\"__import__('os')\")",
        f"Function(\"__import__('os').system('touch {SENTINEL}')\")(t)"]

PRESETS = [("pareto", (5, 3)), ("log_normal", (24, 0.5)), ("generalized_log_laplace", (24, 2, 3)),
           ("uniform", (24,)), ("exponential", (24,)), ("log_laplace", (24, 2)), ("piecewise", (24, 12, 0.3)),
           ("pareto", ("kappa0", "alpha")), ("log_normal", ("kappa0", "sigma"))]


@pytest.fixture(scope="module")
def documents():
    law = families.generalized_log_laplace(24, 2, 3)
    return {"distribution": json.loads(to_json(law)), "utility": json.loads(to_json(law.utility())),
            "plain": json.loads(to_json(Utility(sympy.exp(-t / sympy.Symbol("mu", positive=True)), name="e")))}


@pytest.fixture(scope="module")
def document_paths(documents):
    """Every path into each document (listed once: the documents do not change)."""
    return {which: list(_paths(document)) for which, document in documents.items()}


# ---------------------------------------------------------------------------
# round trips


@pytest.mark.parametrize("name, args", PRESETS, ids=[f"{n}{a}" for n, a in PRESETS])
def test_every_preset_and_its_utility_round_trip(name, args):
    law = getattr(families, name)(*args)
    loaded = from_json(to_json(law))
    assert isinstance(loaded, CaptimeDistribution) and loaded.name == law.name
    assert loaded.constraints == law.constraints
    for attribute in ("pdf", "cdf", "sf"):
        assert identical(getattr(loaded, attribute), getattr(law, attribute)), attribute
    assert list(loaded.multipliers) == list(law.multipliers)
    assert all(identical(loaded.multipliers[k], v) for k, v in law.multipliers.items())
    assert [identical(a, b) for a, b in zip(loaded.derivation.equations, law.derivation.equations)] == \
        [True] * len(law.derivation.equations)
    utility = from_json(to_json(law.utility()))
    assert identical(utility.expr, law.utility().expr) and utility.name == law.utility().name
    # written again, the loaded objects give the same bytes
    assert to_json(loaded) == to_json(law) and to_json(utility) == to_json(law.utility())
    if not law.parameters:
        # independent check: the loaded utility scores like the original at many runtimes
        runtimes = 24.0 * np.geomspace(1e-6, 1e6, 500)
        np.testing.assert_array_equal(compile_scorer(utility)(runtimes), compile_scorer(law.utility())(runtimes))


_DUMP = r"""
import sys
from maxent_util import families
from maxent_util.documents import to_json  # the JSON writer alone (maxent_util.export also loads pandas)
for law in (families.generalized_log_laplace(24, 2, 3), families.log_normal("kappa0", "sigma")):
    sys.stdout.write(to_json(law) + to_json(law.utility()) + "\0")
"""


def test_output_is_byte_identical_across_processes():
    # each process writes a law with numbers (generalized log-Laplace) and a symbolic one
    # (log-normal), each document ended by a NUL byte (JSON text holds none)
    outputs = []
    for seed in ("0", "12345"):
        env = checkout_env(PYTHONHASHSEED=seed)
        done = subprocess.run([sys.executable, "-c", _DUMP], capture_output=True, timeout=300, env=env)
        assert done.returncode == 0, done.stderr.decode()
        outputs.append(done.stdout)
    assert outputs[0] == outputs[1]
    laws = outputs[0].split(b"\0")
    assert len(laws) == 3 and laws[2] == b""
    for law in laws[:2]:
        assert len(law) > 1000
        assert b"Dummy" not in law and b"_Dummy" not in law


def test_the_header_is_format_and_version(documents):
    for document in documents.values():
        assert (document["format"], document["version"]) == ("maxent_util", 2)


# ---------------------------------------------------------------------------
# targeted refusals, each with its message


def _tree_with_depth(depth: int) -> dict:
    node: dict = {"symbol": "t", "assumptions": []}
    for _ in range(depth):
        node = {"op": "exp", "args": [node]}
    return node


@pytest.mark.parametrize("expr, message", [
    ({"op": "eval", "args": [{"int": "1"}]}, r"^`expr` of `from_json` must be a known operator"),
    ({"op": "exp", "args": [{"int": "1"}, {"int": "2"}]}, r"must be `exp` with 1 argument\(s\); got '2 arguments'"),
    ({"int": "9" * 10000}, r"must be an integer written as a string of at most 400 digits"),
    ({"int": 12}, r"must be an integer written as a string"),
    ({"float": "1e999999", "precision": 53}, r"must be a float written as a decimal string"),
    ({"symbol": "os.system", "assumptions": []}, r"must be a symbol name of ASCII letters"),
    ({"symbol": "x", "assumptions": ["__class__"]}, r"must be assumptions among"),
    ({"op": "Pow", "args": [{"int": "9"}, {"int": "9" * 300}]}, r"must be a power with at most 400 digits"),
    ({"op": "Lt", "args": [True, {"int": "1"}]}, r"must be `Lt` of expressions, not of conditions"),
    ({"op": "Add", "args": []}, r"must be a list of 1 to 64 arguments"),
    ({"rational": ["1", "0"]}, r"must be a rational with a non-zero denominator"),
    ({"constant": "nan"}, r"must be one of the constants oo, -oo, pi, E"),
    ("exp(-t)", r"must be an expression node \(an object\); got 'exp\(-t\)'"),
    (_tree_with_depth(MAX_DEPTH + 5), rf"must be an expression nested at most {MAX_DEPTH} deep"),
])
def test_bad_expression_trees_are_refused_with_their_path(documents, expr, message):
    document = {**documents["plain"], "expr": expr}
    with pytest.raises(ExportError, match=message):
        from_json(json.dumps(document))


def spoiled(document: dict, path: tuple, value: object = None, *, drop: bool = False) -> str:
    """The JSON text of a copy of `document` with the entry at `path` set to `value` (or dropped)."""
    document = copy.deepcopy(document)
    parent = document
    for key in path[:-1]:
        parent = parent[key]
    if drop:
        del parent[path[-1]]
    else:
        parent[path[-1]] = value
    return json.dumps(document)


def with_constant(document: dict, constant: str) -> str:
    """The JSON text of `document` with its timeout written as the non-JSON `constant`."""
    text = re.sub(r'"timeout": [0-9.]+', f'"timeout": {constant}', json.dumps(document))
    assert constant in text
    return text


FEATURE = ("distribution", "derivation", "terms", 1, "feature")

# each spoil(documents) gives the text to read
FROM_JSON_MISUSE = [
    pytest.param(lambda documents: spoiled(documents["utility"], FEATURE, {"op": "system", "args": [True]}),
                 r"^`distribution\.derivation\.terms\[1\]\.feature` of `from_json` must be a known operator",
                 id="unknown-operator-in-a-field"),
    pytest.param(lambda documents: spoiled(documents["utility"], FEATURE, drop=True),
                 r"^`distribution\.derivation\.terms\[1\]\.feature` of `from_json` must be present; "
                 r"got 'nothing'", id="missing-field"),
    pytest.param(lambda documents: spoiled(documents["distribution"], ("constraints", 1, "options", "side"),
                                           "__import__('os')"),
                 r"^`constraints\[1\]` of `from_json` must be a valid LogMoment constraint.*`side` of `LogMoment` "
                 r"must be None, 'above' or 'below'", id="bad-constraint-option"),
    pytest.param(lambda documents: with_constant(documents["distribution"], "NaN"),
                 r"^`text` of `from_json` must be JSON without NaN or Infinity; got 'NaN'", id="NaN"),
    pytest.param(lambda documents: with_constant(documents["distribution"], "Infinity"),
                 r"^`text` of `from_json` must be JSON without NaN or Infinity; got 'Infinity'", id="Infinity"),
    pytest.param(lambda documents: with_constant(documents["distribution"], "-Infinity"),
                 r"^`text` of `from_json` must be JSON without NaN or Infinity; got '-Infinity'", id="-Infinity"),
    pytest.param(lambda documents: "[" * 100_000 + "]" * 100_000,
                 r"^`text` of `from_json` must be valid JSON", id="deep-json"),
    pytest.param(lambda documents: '{"format": "maxent_util", "version": ' + "9" * 10000 + "}",
                 r"^`text` of `from_json` must be valid JSON", id="huge-integer"),
]


@pytest.mark.parametrize("spoil, message", FROM_JSON_MISUSE)
def test_errors_name_the_field(documents, spoil, message):
    with pytest.raises(ExportError, match=message):
        from_json(spoil(documents))


@pytest.mark.parametrize("code", CODE, ids=["import-system", "open", "class-base", "lambda", "tuple-of-code",
                                        "function-named-code"])
def test_constraint_values_are_trees_not_text(documents, code):
    text = spoiled(documents["distribution"], ("constraints", 1, "arguments", "value"), code)
    with pytest.raises(ExportError, match=r"^`constraints\[1\]\.arguments\.value` of `from_json` must be an "
                                          r"expression node"):
        from_json(text)
    assert not SENTINEL.exists()


def test_a_hostile_expression_is_not_evaluated_while_reading(documents):
    # evaluating uppergamma(1e100, 1e100) takes minutes; reading the tree must not
    slow = {"op": "uppergamma", "args": [{"float": "1e100", "precision": 53}] * 2}
    tree = from_tree(slow, error=ExportError)
    assert isinstance(tree, sympy.uppergamma)
    comparison = {"op": "Lt", "args": [slow, {"int": "1"}]}
    assert isinstance(from_tree(comparison, error=ExportError), sympy.core.relational.Relational)


@pytest.mark.parametrize("utility, message", [
    pytest.param(lambda: Utility(1 - sympy.besselj(0, t) ** 2),
                 r"^`obj` of `to_json` must be made of expressions the JSON format has operators for; got 'expr'\. "
                 r"Found besselj, which has no operator", id="bessel-function"),
    pytest.param(lambda: Utility(sympy.exp(-t * sympy.Dummy("rate", positive=True))),
                 r"Found the dummy symbol _rate \(give it a name: a Symbol\), which has no operator",
                 id="dummy-symbol"),
])
def test_to_json_refuses_what_the_format_has_no_operator_for(utility, message):
    with pytest.raises(ExportError, match=message):
        to_json(utility())


# ---------------------------------------------------------------------------
# property: any mutation loads or raises ExportError


HUGE = ["9" * 10000, -10 ** 400, 1e308, 10 ** 30]
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-10, 10), st.floats(allow_nan=False, allow_infinity=False),
                    st.sampled_from(HUGE), st.sampled_from(CODE), st.text(max_size=20))
NODES = st.one_of(
    st.fixed_dictionaries({"op": st.sampled_from(["Add", "Mul", "Pow", "exp", "log", "Piecewise", "Integral",
                                                  "Lt", "And", "Not", "Min", "uppergamma", "eval", "__import__",
                                                  "Function", "Symbol"]),
                           "args": st.lists(SCALARS, max_size=3)}),
    st.fixed_dictionaries({"int": st.sampled_from(["1", "-3", "9" * 401, "0x10", " 1", "1e3"])}),
    st.fixed_dictionaries({"float": st.sampled_from(["0.5", "1e9999", "nan", "inf", "1e-9999", "--1"]),
                           "precision": st.sampled_from([53, 0, 10 ** 9, True, "53"])}),
    st.fixed_dictionaries({"symbol": st.sampled_from(["t", "kappa0", "os.system", "__class__", "é", ""]),
                           "assumptions": st.sampled_from([[], ["positive"], ["commutative"], "positive"])}),
    st.fixed_dictionaries({"constant": st.sampled_from(["oo", "pi", "nan", "zoo", "I", 1])}),
)
REPLACEMENTS = st.one_of(SCALARS, NODES, st.lists(NODES, max_size=3), st.dictionaries(st.text(max_size=5), SCALARS,
                                                                                      max_size=3))


def _paths(node, prefix=()):
    yield prefix
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _paths(value, prefix + (key,))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _paths(value, prefix + (index,))


def _mutate(document, path, action, replacement):
    document = json.loads(json.dumps(document))  # a copy: the documents are JSON values
    if not path:
        return replacement if action != "keep" else document
    parent = document
    for key in path[:-1]:
        parent = parent[key]
    last = path[-1]
    if action == "drop":
        del parent[last]
    elif action == "nest":
        value = parent[last]
        for _ in range(200):
            value = {"op": "exp", "args": [value]} if isinstance(value, dict) else [value]
        parent[last] = value
    else:
        parent[last] = replacement
    return document


def _check_loads_or_refuses(text):
    try:
        loaded = from_json(text)
    except ExportError:
        return
    # loaded: it is one of the two kinds, and written again it reads back the same
    assert type(loaded).__name__ in ("CaptimeDistribution", "Utility", "QualityUtility", "ExpectedUtility")
    try:
        again = to_json(loaded)
    except ExportError:
        return  # a loaded value the writer cannot express (e.g. an unevaluated relation)
    assert type(from_json(again)) is type(loaded)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                   HealthCheck.function_scoped_fixture])
@given(data=st.data(), which=st.sampled_from(["distribution", "utility", "plain"]),
       action=st.sampled_from(["replace", "drop", "nest", "keep"]), replacement=REPLACEMENTS)
def test_mutated_documents_load_or_raise_export_error(documents, document_paths, data, which, action,
                                                      replacement):
    document = documents[which]
    path = data.draw(st.sampled_from(document_paths[which]))
    if action == "drop" and not path:
        action = "replace"
    mutated = _mutate(document, path, action, replacement)
    _check_loads_or_refuses(json.dumps(mutated))
    assert not SENTINEL.exists()


@settings(max_examples=200, deadline=None)
@given(text=st.one_of(st.text(max_size=200), st.binary(max_size=200),
                      st.recursive(SCALARS, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                                     st.dictionaries(st.text(max_size=8), inner,
                                                                                     max_size=4)),
                                   max_leaves=30).map(json.dumps)))
def test_arbitrary_text_loads_or_raises_export_error(text):
    _check_loads_or_refuses(text)
    assert not SENTINEL.exists()


def test_tree_round_trip_of_every_operator():
    x = sympy.Symbol("x", positive=True)
    y = sympy.Symbol("y", real=True)
    exprs = [sympy.exp(-x) * sympy.erfc(x) + sympy.erf(x), sympy.log(x) / sympy.gamma(x), sympy.loggamma(x),
             sympy.Min(x, 2), sympy.Max(x, y), sympy.floor(y) + sympy.ceiling(y), sympy.Heaviside(y),
             sympy.uppergamma(2, x), sympy.lowergamma(3, x), sympy.LambertW(x), sympy.sign(y),
             sympy.expint(2, x), sympy.Ei(x), sympy.Abs(y), sympy.erfinv(x / 2), sympy.erfcinv(x / 2),
             sympy.Piecewise((x, sympy.And(y < 1, x > 2)), (1, sympy.Or(sympy.Eq(y, 0), sympy.Ne(x, 1))), (0, True)),
             sympy.Integral(sympy.exp(-x * y), (x, 0, sympy.oo)), sympy.Float("0.1", 80) * sympy.pi,
             sympy.Rational(-7, 3) * sympy.E ** x, sympy.Not(sympy.Ge(y, 2)), sympy.Le(y, sympy.oo)]
    for expr in exprs:
        tree = to_tree(expr)
        assert identical(from_tree(json.loads(json.dumps(tree))), expr), expr


def test_the_export_module_evaluates_no_text():
    import re

    for path in sorted((ROOT / "maxent_util" / "export").glob("*.py")):
        source = path.read_text(encoding="utf-8")
        for pattern in (r"\bsympify\(", r"\beval\(", r"\bexec\(", r"parse_expr", r"\bcompile\(", r"__import__"):
            assert re.search(pattern, source) is None, (path.name, pattern)


def test_pieces_and_breakpoints_must_agree(documents):
    # found by the mutation test: no breakpoints loaded, then the density failed with IndexError
    data = json.loads(json.dumps(documents["distribution"]))
    data["breakpoints"] = []
    with pytest.raises(ExportError, match=r"^`breakpoints` of `from_json` must be a list of \d+ items"):
        from_json(json.dumps(data))
