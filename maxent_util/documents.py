"""JSON documents of a derived law or a utility: :func:`to_json` and :func:`from_json`."""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np
import sympy

from ._timing import Deadline, SymbolicTimeout, run_bounded
from .catalogue import FAMILIES, family_constraints
from .constraints import Constraint, constraint_kinds, provably
from .errors import ExportError, MaxEntError, argument_message, short
from .expressions import as_expression, check_evaluable, from_tree, to_tree
from .distribution import CaptimeDistribution
from .utility import ExpectedUtility, QualityUtility, Utility
from .maxent import Derivation, derive
from .symbols import q, t
from .utility.pieces import time_grid


# A document is data: a header ({"format": "maxent_util", "version": 2}), plain
# JSON fields, and expressions as operator trees (maxent_util.expressions.to_tree).
# Reading it looks every node up in closed tables and calls constructors
# directly; no string is ever evaluated.  docs/json-format.md describes it.


#: the ``"format"`` header of documents written by :func:`to_json`
JSON_FORMAT = "maxent_util"
#: the ``"version"`` header: the layout read by :func:`from_json` (bumped on incompatible changes)
JSON_VERSION = 2

#: largest document read by :func:`from_json`, in characters
MAX_JSON_LENGTH = 10_000_000
#: most items in any list of a document (pieces, terms, constraints, ...)
_MAX_ITEMS = 1000
#: longest plain string field (a name, a method, a constraint option)
_MAX_TEXT = 1000


class _Document:
    """Typed access to a parsed document; every failure is an ExportError naming the field's path."""

    owner = "from_json"

    @staticmethod
    def fail(where: str, requirement: str, value: Any, remedy: str | None = None) -> ExportError:
        return ExportError(argument_message(where, "from_json", requirement, short(value), remedy))

    def field(self, data: Any, key: str, where: str) -> Any:
        if not isinstance(data, dict):
            raise self.fail(where or "document", "an object", data)
        if key not in data:
            raise self.fail(_join(where, key), "present", "nothing",
                            "The document is incomplete; write it again with maxent_util.to_json.")
        return data[key]

    def expr(self, data: Any, key: str, where: str, *, kind: str = "expression",
             optional: bool = False) -> Any:
        value = self.field(data, key, where)
        if optional and value is None:
            return None
        return self.tree(value, _join(where, key), kind=kind)

    def tree(self, value: Any, where: str, *, kind: str = "expression") -> Any:
        built = from_tree(value, where=where, owner="from_json", error=ExportError)
        # the tree keeps functions unevaluated; checking their values may evaluate them
        # (uppergamma(1e20, 1e20) keeps mpmath busy for minutes): bounded in time and size
        check_evaluable(built, arg=where, owner="from_json", error=ExportError)
        if kind == "expression" and not isinstance(built, sympy.Expr):
            raise self.fail(where, "an expression", str(built))
        if kind == "symbol" and not isinstance(built, sympy.Symbol):
            raise self.fail(where, "a symbol", str(built))
        if kind == "relation" and not isinstance(built, (sympy.Basic,)):
            raise self.fail(where, "a relation", str(built))
        return built

    def items(self, data: Any, key: str, where: str, *, length: int | None = None) -> list:
        value = self.field(data, key, where)
        path = _join(where, key)
        if not isinstance(value, list) or len(value) > _MAX_ITEMS:
            raise self.fail(path, f"a list of at most {_MAX_ITEMS} items", value)
        if length is not None and len(value) != length:
            raise self.fail(path, f"a list of {length} items", value)
        return value

    def exprs(self, data: Any, key: str, where: str, *, length: int | None = None,
              kind: str = "expression") -> list:
        path = _join(where, key)
        return [self.tree(v, f"{path}[{i}]", kind=kind)
                for i, v in enumerate(self.items(data, key, where, length=length))]

    def text(self, data: Any, key: str, where: str, *, optional: bool = False) -> str | None:
        value = self.field(data, key, where)
        if optional and value is None:
            return None
        if not isinstance(value, str) or len(value) > _MAX_TEXT or "\x00" in value:
            raise self.fail(_join(where, key), f"a string of at most {_MAX_TEXT} characters"
                            + (" or null" if optional else ""), value)
        return value

    def flag(self, data: Any, key: str, where: str) -> bool:
        value = self.field(data, key, where)
        if not isinstance(value, bool):
            raise self.fail(_join(where, key), "true or false", value)
        return value

    def number(self, data: Any, key: str, where: str) -> float:
        value = self.field(data, key, where)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not (
                isinstance(value, float) or abs(value) < 10 ** 15) or not math.isfinite(value) or value <= 0:
            raise self.fail(_join(where, key), "a positive finite number", value)
        return float(value)


def _join(where: str, key: str) -> str:
    return f"{where}.{key}" if where else key


def _tree(value: Any, where: str) -> Any:
    try:
        return to_tree(value)
    except TypeError as error:
        raise ExportError(argument_message(
            "obj", "to_json", "made of expressions the JSON format has operators for", where,
            f"Found {str(error).replace('no tree form for ', '')}, which has no operator; "
            "see docs/json-format.md.")) from None


def _trees(values: Any, where: str) -> list:
    return [_tree(as_expression(v, arg=where, owner="to_json", error=ExportError)
                  if not isinstance(v, sympy.Basic) else v, f"{where}[{i}]")
            for i, v in enumerate(values)]


def _encode_constraint(constraint: Constraint, where: str) -> dict:
    arguments = constraint.arguments
    options: dict[str, Any] = {}
    for name in constraint.option_names:
        value = arguments.get(name)
        if value is None or isinstance(value, str):
            options[name] = value
        elif isinstance(value, (tuple, list)):
            options[name] = _trees(value, f"{where}.options.{name}")
        else:
            raise ExportError(argument_message(
                name, "to_json", "None, a string or a tuple of expressions (a constraint option)",
                short(value)))
    encoded = {"kind": type(constraint).__name__,
               "arguments": {name: _tree(arguments[name], f"{where}.arguments.{name}")
                             for name in constraint.argument_names},
               "options": options}
    if constraint.relation != "==":
        # optional: absent means "==" (documents written before inequalities still load)
        encoded["relation"] = constraint.relation
    # for people reading the file; ignored when loading
    encoded["readable"] = repr(constraint)
    return encoded


def _decode_constraint(reader: _Document, data: Any, where: str) -> Constraint:
    kinds = constraint_kinds()
    kind = reader.field(data, "kind", where)
    if not isinstance(kind, str) or kind not in kinds:
        raise reader.fail(_join(where, "kind"), f"a known constraint kind ({', '.join(kinds)})", kind)
    cls = kinds[kind]
    arguments = reader.field(data, "arguments", where)
    options = reader.field(data, "options", where)
    if not isinstance(arguments, dict) or not set(arguments) <= set(cls.argument_names):
        raise reader.fail(_join(where, "arguments"), f"an object with keys among "
                          f"{', '.join(cls.argument_names) or 'none'}", arguments)
    if not isinstance(options, dict) or not set(options) <= set(cls.option_names):
        raise reader.fail(_join(where, "options"), f"an object with keys among "
                          f"{', '.join(cls.option_names) or 'none'}", options)
    values: dict[str, Any] = {name: reader.tree(value, f"{where}.arguments.{name}")
                              for name, value in arguments.items()}
    for name, value in options.items():
        path = f"{where}.options.{name}"
        if value is None:
            values[name] = None
        elif isinstance(value, str) and len(value) <= _MAX_TEXT:
            values[name] = value  # e.g. side="above"; the constraint's check() accepts or refuses it
        elif isinstance(value, list) and len(value) <= _MAX_ITEMS:
            values[name] = tuple(reader.tree(v, f"{path}[{i}]") for i, v in enumerate(value))
        else:
            raise reader.fail(path, "null, a string or a list of expressions", value)
    relation = data.get("relation", "==") if isinstance(data, dict) else "=="
    if relation != "==":
        if not getattr(cls, "takes_relation", False) or relation not in ("<=", ">="):
            raise reader.fail(_join(where, "relation"), "'==', '<=' or '>=' on a moment constraint",
                              relation)
        values["relation"] = relation
    try:
        return cls(**values)
    except MaxEntError as error:
        raise reader.fail(where, f"a valid {kind} constraint", values, f"({error})") from None


def _distribution_payload(dist: Any) -> dict:
    if dist.numeric is not None:
        return _numbers_payload(dist)
    record = dist.derivation
    terms = []
    for index, (multiplier, feature, region, value, constraint) in enumerate(record.terms):
        where = f"derivation.terms[{index}]"
        # a continuity condition has no target value: sympy's nan, written as null
        terms.append({"multiplier": _tree(multiplier, f"{where}.multiplier"),
                      "feature": _tree(feature, f"{where}.feature"),
                      "region": _trees(region, f"{where}.region"),
                      "value": None if value is sympy.nan else _tree(value, f"{where}.value"),
                      "constraint": _encode_constraint(constraint, f"{where}.constraint")})
    return {
        **_identity_payload(dist),
        "breakpoints": _trees(dist.breakpoints, "breakpoints"),
        "pdf_pieces": _trees(dist._pdf_pieces, "pdf_pieces"),
        "cdf_pieces": _trees(dist._cdf_pieces, "cdf_pieces"),
        "sf_pieces": _trees(dist._sf_pieces, "sf_pieces"),
        "scales": [None if s is None else _tree(s, f"scales[{i}]") for i, s in enumerate(dist._scales)],
        "multipliers": [[_tree(k, "multipliers"), _tree(v, f"multipliers.{k}")]
                        for k, v in dist.multipliers.items()],
        "closed_form": bool(dist.closed_form),
        "timeout": float(dist._timeout),
        "derivation": {
            "support": _trees(record.support, "derivation.support"),
            "terms": terms,
            "breakpoints": _trees(record.breakpoints, "derivation.breakpoints"),
            "stationary_density": _tree(record.stationary_density, "derivation.stationary_density"),
            "partition": None if record.partition is None else _tree(record.partition, "derivation.partition"),
            "equations": [_tree(eq, f"derivation.equations[{i}]") for i, eq in enumerate(record.equations)],
            "method": record.method,
            **({"kkt": _kkt_payload(record.kkt)} if getattr(record, "kkt", ()) else {}),
            # optional: remarks on the answer and a fitted law's provenance (absent means none)
            **({"notes": list(record.notes)} if record.notes else {}),
        },
        # for people reading the file; ignored when loading
        "readable": {"pdf": str(dist.pdf), "cdf": str(dist.cdf),
                     "multipliers": {str(k): str(v) for k, v in dist.multipliers.items()}},
    }


def _identity_payload(dist: Any) -> dict:
    """What every law's document holds: its name, preset, constraints and support."""
    return {
        "name": getattr(dist, "name", None),
        "preset": None if dist.preset is None else {
            "family": dist.preset[0], "arguments": _trees(dist.preset[1], "preset.arguments")},
        "constraints": [_encode_constraint(c, f"constraints[{i}]") for i, c in enumerate(dist.constraints)],
        "support": _trees(dist.support, "support"),
    }


def _numbers_payload(dist: Any) -> dict:
    """A law of the double-precision route: what it is derived from and its numbers, no closed form
    (which may take seconds to build, or not exist): :func:`from_json` solves it again."""
    numbers = dist.numeric
    return {
        **_identity_payload(dist),
        "timeout": float(dist._timeout),
        "numbers": {"multipliers": [float(value) for value in numbers.multipliers],
                    "log_z": float(numbers.log_z)},
    }


def _kkt_payload(cases: tuple) -> list:
    """The KKT cases of a derivation with inequalities (optional in a document: absent means none)."""
    payload = []
    for index, (condition, rows) in enumerate(cases):
        where = f"derivation.kkt[{index}]"
        payload.append({
            "condition": _tree(condition, f"{where}.condition"),
            "rows": [{"constraint": _encode_constraint(constraint, f"{where}.rows[{i}].constraint"),
                      "multiplier": _tree(multiplier, f"{where}.rows[{i}].multiplier"),
                      "value": _tree(value, f"{where}.rows[{i}].value"),
                      "expectation": _tree(reached, f"{where}.rows[{i}].expectation"),
                      "active": bool(binding)}
                     for i, (constraint, multiplier, value, reached, binding) in enumerate(rows)]})
    return payload


def _load_kkt(reader: _Document, record_data: Any, record_where: str) -> tuple:
    if not isinstance(record_data, dict) or "kkt" not in record_data:
        return ()
    cases = []
    for index, case in enumerate(reader.items(record_data, "kkt", record_where)):
        path = f"{record_where}.kkt[{index}]"
        rows = []
        for i, row in enumerate(reader.items(case, "rows", path)):
            row_path = f"{path}.rows[{i}]"
            rows.append((_decode_constraint(reader, reader.field(row, "constraint", row_path),
                                            _join(row_path, "constraint")),
                         reader.expr(row, "multiplier", row_path, kind="symbol"),
                         reader.expr(row, "value", row_path),
                         reader.expr(row, "expectation", row_path),
                         reader.flag(row, "active", row_path)))
        cases.append((reader.expr(case, "condition", path, kind="relation"), tuple(rows)))
    return tuple(cases)


def _load_notes(reader: _Document, record_data: Any, record_where: str) -> list[str]:
    """A derivation's remarks (optional in a document: absent means none)."""
    if not isinstance(record_data, dict) or "notes" not in record_data:
        return []
    notes = reader.items(record_data, "notes", record_where)
    for index, note in enumerate(notes):
        if not isinstance(note, str) or len(note) > _MAX_TEXT or "\x00" in note:
            raise reader.fail(f"{_join(record_where, 'notes')}[{index}]",
                              f"a string of at most {_MAX_TEXT} characters", note)
    return list(notes)


def _load_distribution(reader: _Document, data: Any, where: str) -> Any:
    if isinstance(data, dict) and "numbers" in data:
        return _load_numbers(reader, data, where)
    record_where = _join(where, "derivation")
    record_data = reader.field(data, "derivation", where)
    terms = []
    for index, term in enumerate(reader.items(record_data, "terms", record_where)):
        path = f"{record_where}.terms[{index}]"
        value = reader.field(term, "value", path)
        terms.append((reader.expr(term, "multiplier", path, kind="symbol"),
                      reader.expr(term, "feature", path),
                      tuple(reader.exprs(term, "region", path, length=2)),
                      sympy.nan if value is None else reader.tree(value, _join(path, "value")),
                      _decode_constraint(reader, reader.field(term, "constraint", path),
                                         _join(path, "constraint"))))
    equations = [reader.tree(v, f"{record_where}.equations[{i}]", kind="relation")
                 for i, v in enumerate(reader.items(record_data, "equations", record_where))]
    method = reader.text(record_data, "method", record_where)
    record = Derivation(
        support=tuple(reader.exprs(record_data, "support", record_where, length=2)),
        terms=terms,
        breakpoints=reader.exprs(record_data, "breakpoints", record_where),
        stationary_density=reader.expr(record_data, "stationary_density", record_where),
        partition=reader.expr(record_data, "partition", record_where, optional=True),
        equations=equations, method=method, kkt=_load_kkt(reader, record_data, record_where),
        notes=_load_notes(reader, record_data, record_where))

    pdf = reader.exprs(data, "pdf_pieces", where)
    if not pdf:
        raise reader.fail(_join(where, "pdf_pieces"), "a list of at least one piece", pdf)
    count = len(pdf)
    cdf = reader.exprs(data, "cdf_pieces", where, length=count)
    sf = reader.exprs(data, "sf_pieces", where, length=count)
    breakpoints = reader.exprs(data, "breakpoints", where, length=count + 1)  # the ends of the pieces
    scales = [None if v is None else reader.tree(v, f"{_join(where, 'scales')}[{i}]")
              for i, v in enumerate(reader.items(data, "scales", where, length=count))]
    multipliers = {}
    for index, pair in enumerate(reader.items(data, "multipliers", where)):
        path = f"{_join(where, 'multipliers')}[{index}]"
        if not (isinstance(pair, list) and len(pair) == 2):
            raise reader.fail(path, "a [symbol, value] pair", pair)
        multipliers[reader.tree(pair[0], path, kind="symbol")] = reader.tree(pair[1], path)
    constraints = tuple(_decode_constraint(reader, c, f"{_join(where, 'constraints')}[{i}]")
                        for i, c in enumerate(reader.items(data, "constraints", where)))
    support = tuple(reader.exprs(data, "support", where, length=2))
    _check_ordered(reader, support, _join(where, "support"), strict=True)
    _check_ordered(reader, breakpoints, _join(where, "breakpoints"), strict=False)
    if provably(sympy.Eq(breakpoints[0], support[0])) is False or \
            provably(sympy.Eq(breakpoints[-1], support[1])) is False:
        raise reader.fail(_join(where, "breakpoints"), "points from the lower to the upper end of the support",
                          [str(b) for b in breakpoints], f"The support is [{support[0]}, {support[1]}].")
    dist = CaptimeDistribution(
        constraints=constraints, support=support,
        pdf_pieces=pdf, cdf_pieces=cdf, sf_pieces=sf, breakpoints=breakpoints,
        multipliers=multipliers, closed_form=reader.flag(data, "closed_form", where),
        derivation=record, timeout=reader.number(data, "timeout", where), scales=scales)
    return _named(reader, dist, data, where)


def _named(reader: _Document, dist: CaptimeDistribution, data: dict, where: str) -> CaptimeDistribution:
    """The law under the document's name and preset (a copy: a law of numbers is shared)."""
    name = reader.text(data, "name", where, optional=True)
    if name is not None:
        dist = dist.with_name(name)
    preset = data.get("preset")
    if preset is not None:
        path = _join(where, "preset")
        family = reader.text(preset, "family", path)
        arguments = tuple(reader.exprs(preset, "arguments", path))
        _check_preset(reader, dist, family, arguments, path)
        dist = dist.with_preset(family, arguments)
    return dist


#: seconds a document's law of numbers may take to be solved again
_SOLVE_SECONDS = 10.0
#: how far the stored multipliers and log Z may be from the ones solved again (relative)
_NUMBERS_TOLERANCE = 1e-9


def _load_numbers(reader: _Document, data: dict, where: str) -> Any:
    """A law stored by its constraints and numbers: solved again by the double-precision route,
    which must give the stored numbers (else the document contradicts itself)."""
    constraints = tuple(_decode_constraint(reader, c, f"{_join(where, 'constraints')}[{i}]")
                        for i, c in enumerate(reader.items(data, "constraints", where)))
    support = tuple(reader.exprs(data, "support", where, length=2))
    _check_ordered(reader, support, _join(where, "support"), strict=True)
    timeout = reader.number(data, "timeout", where)
    path = _join(where, "numbers")
    numbers = reader.field(data, "numbers", where)
    stored = reader.items(numbers, "multipliers", path)
    log_z = reader.field(numbers, "log_z", path)
    if not all(_finite(v) for v in stored) or not _finite(log_z):
        raise reader.fail(path, "finite numbers: the multipliers and log_z", numbers)
    if any(c.free_symbols for c in constraints):
        raise reader.fail(_join(where, "constraints"), "constraints of numbers (a law with `numbers` "
                          "has no parameters)", [repr(c) for c in constraints])
    try:
        law = derive(*constraints, timeout=_SOLVE_SECONDS)
    except MaxEntError as error:
        raise reader.fail(_join(where, "constraints"), "constraints that have a law",
                          [repr(c) for c in constraints], f"({error})") from None
    solved = law.numeric
    if solved is None or tuple(law.support) != support:
        raise reader.fail(path, "the numbers of a law the double-precision route solves",
                          [repr(c) for c in constraints], "Write the law again with to_json.")
    found = [float(v) for v in solved.multipliers] + [float(solved.log_z)]
    if len(stored) != len(found) - 1 or not np.allclose(
            found, [float(v) for v in stored] + [float(log_z)], rtol=_NUMBERS_TOLERANCE, atol=_NUMBERS_TOLERANCE):
        raise reader.fail(path, "the law of its constraints", numbers,
                          f"Solved again they give multipliers {found[:-1]} and log_z {found[-1]}.")
    return _named(reader, law._with_timeout(timeout), data, where)


def _finite(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _check_ordered(reader: _Document, points: tuple | list, where: str, *, strict: bool) -> None:
    """Refuse points that are provably not increasing (a reversed support or breakpoints)."""
    for index, (low, high) in enumerate(zip(points, points[1:])):
        if provably(high > low if strict else high >= low) is False:
            raise reader.fail(where, "increasing points" if strict else "non-decreasing points",
                              [str(p) for p in points], f"Item {index + 1} ({high}) comes before item "
                              f"{index} ({low}).")


def _check_preset(reader: _Document, dist: CaptimeDistribution, family: str, arguments: tuple,
                  where: str) -> None:
    """The preset a document names must be the law: its constraints at its arguments are the law's."""
    if family not in FAMILIES:
        raise reader.fail(_join(where, "family"), f"a preset of the catalogue ({', '.join(FAMILIES)})", family)
    if len(arguments) != len(FAMILIES[family]):
        raise reader.fail(_join(where, "arguments"), f"{len(FAMILIES[family])} arguments "
                          f"({', '.join(FAMILIES[family])})", [str(a) for a in arguments])
    try:
        stated = family_constraints(family, *arguments)
    except MaxEntError as error:
        raise reader.fail(_join(where, "arguments"), f"valid arguments of {family}",
                          [str(a) for a in arguments], f"({error})") from None
    if tuple(stated) != tuple(dist.constraints):
        raise reader.fail(where, "the preset whose constraints the law has",
                          f"{family}({', '.join(map(str, arguments))})",
                          f"The law's constraints are {', '.join(map(repr, dist.constraints))}.")


def _utility_payload(utility: Any) -> dict:

    distribution = getattr(utility, "distribution", None)
    if type(utility) is Utility and distribution is not None and distribution.numeric is not None:
        # the survival function of a law of numbers: the law says it all (its closed form is not
        # needed, and may not exist)
        return {"class": "Utility", "name": utility.name, "expr": None,
                "readable": "the survival function 1 - F(t) of `distribution`",
                "distribution": _distribution_payload(distribution)}
    payload: dict[str, Any] = {"class": type(utility).__name__, "name": utility.name,
                               "expr": _tree(utility.expr, "expr"), "readable": str(utility.expr)}
    if isinstance(utility, QualityUtility):
        payload["q0"], payload["q1"] = _tree(utility.q0, "q0"), _tree(utility.q1, "q1")
    elif isinstance(utility, ExpectedUtility):
        payload["per_captime"] = _tree(utility.per_captime, "per_captime")
        payload["captime_pdf"] = _tree(utility.captime_pdf, "captime_pdf")
        payload["captime_support"] = _trees(utility.captime_support, "captime_support")
        payload["method"] = utility.method
    payload["distribution"] = None if distribution is None else _distribution_payload(distribution)
    return payload


def _load_utility(reader: _Document, data: dict) -> Any:

    kind = reader.field(data, "class", "")
    name = reader.text(data, "name", "", optional=True)
    if kind == "Utility" and reader.field(data, "expr", "") is None:
        # the survival function of its law, which the document holds by its numbers
        distribution = reader.field(data, "distribution", "")
        if not isinstance(distribution, dict) or "numbers" not in distribution:
            raise reader.fail("expr", "an expression (null only beside a `distribution` with `numbers`)", None)
        return _load_distribution(reader, distribution, "distribution").utility().with_name(name)
    expr = reader.expr(data, "expr", "")
    _check_finite_values(reader, expr)
    try:
        if kind == "QualityUtility":
            q0, q1 = reader.expr(data, "q0", ""), reader.expr(data, "q1", "")
            if provably(q1 > q0) is False:
                raise reader.fail("q1", f"greater than `q0` = {q0} (qualities lie in [q0, q1])", str(q1))
            utility = QualityUtility(expr, q0=q0, q1=q1, name=name)
        elif kind == "ExpectedUtility":
            utility = ExpectedUtility(
                expr, per_captime=reader.expr(data, "per_captime", ""),
                captime_pdf=reader.expr(data, "captime_pdf", ""),
                captime_support=tuple(reader.exprs(data, "captime_support", "", length=2)),
                method=reader.text(data, "method", ""), name=name)
        elif kind == "Utility":
            utility = Utility(expr, name=name)
        else:
            raise reader.fail("class", "'Utility', 'QualityUtility' or 'ExpectedUtility'", kind)
    except ExportError:
        raise
    except MaxEntError as error:
        raise reader.fail("expr", f"a valid {kind}", str(expr), f"({error})") from None
    distribution = reader.field(data, "distribution", "")
    if distribution is not None:
        law = _load_distribution(reader, distribution, "distribution")
        if kind == "Utility":
            _check_survival(reader, utility.expr, law)
            return law.utility().with_name(name)  # the one utility of a law, whatever its route
        utility.distribution = law
    if not utility.parameters and q not in utility.expr.free_symbols:
        _check_shape(reader, utility)
    return utility


def _check_finite_values(reader: _Document, expr: sympy.Expr) -> None:
    """Refuse an infinity or NaN where the utility takes a value (``oo*t``): a utility is a
    probability-like number; infinities may stand only in conditions (``t < oo``)."""
    def values(node: sympy.Basic):
        if isinstance(node, sympy.Piecewise):
            for value, _ in node.args:
                yield from values(value)
        elif not isinstance(node, (sympy.logic.boolalg.Boolean, sympy.core.relational.Relational)):
            yield node
            for arg in node.args:
                yield from values(arg)

    for node in values(expr):
        if node in (sympy.oo, -sympy.oo, sympy.zoo, sympy.nan):
            raise reader.fail("expr", "a utility with finite values (no infinity or NaN in them)", str(expr))


#: how far a stored utility may leave [0, 1], or rise, by rounding
_SHAPE_SLACK = 1e-12


def _check_shape(reader: _Document, utility: Any) -> None:
    """A utility of numbers must lie in [0, 1] and not increase in t: checked on a grid over its
    pieces (a document saying otherwise is refused, not scored)."""
    grid = time_grid(utility._breakpoints())
    try:
        with np.errstate(all="ignore"):
            values = np.asarray(utility._values(grid), dtype=float)
    except MaxEntError as error:
        raise reader.fail("expr", "a utility with values in [0, 1] that can be evaluated", str(utility.expr),
                          f"({error})") from None
    finite = ~np.isnan(values)
    outside = finite & ~((values >= -_SHAPE_SLACK) & (values <= 1 + _SHAPE_SLACK))
    if outside.any():
        i = int(np.flatnonzero(outside)[0])
        raise reader.fail("expr", "a utility with values in [0, 1]", str(utility.expr),
                          f"It gives {float(values[i])!r} at t = {float(grid[i])!r}.")
    rises = np.flatnonzero(finite[1:] & finite[:-1] & (np.diff(values) > _SHAPE_SLACK))
    if rises.size:
        i = int(rises[0])
        raise reader.fail("expr", "a utility that does not increase in t", str(utility.expr),
                          f"It rises from {float(values[i])!r} at t = {float(grid[i])!r} to "
                          f"{float(values[i + 1])!r} at t = {float(grid[i + 1])!r}.")


#: how far a utility may be from its law's survival function at the points compared
_SURVIVAL_TOLERANCE = 1e-9
#: seconds allowed for comparing a utility with its law's survival function
_SURVIVAL_CHECK_SECONDS = 5.0


def _check_survival(reader: _Document, expr: sympy.Expr, dist: CaptimeDistribution) -> None:
    """A utility stored with its law must be that law's survival function ``1 - F(t)``: the same
    expression as written by to_json, else equal to 1e-9 at points spread over the support."""
    survival = dist._piecewise(dist._sf_pieces, t, 1, 0)
    if expr == survival:
        return
    try:
        point = run_bounded(_first_disagreement, expr, survival, dist,
                            deadline=Deadline(_SURVIVAL_CHECK_SECONDS))
    except SymbolicTimeout:
        point = "none found in time"
    except MaxEntError:
        raise
    except Exception as error:  # sympy failing on one of the two: they cannot be shown equal
        point = f"({type(error).__name__} while comparing)"
    if point is not None:
        raise reader.fail("expr", "the survival function 1 - F(t) of its `distribution`", str(expr),
                          f"They differ at t = {point}.")


def _first_disagreement(expr: sympy.Expr, survival: sympy.Expr, dist: CaptimeDistribution) -> Any:
    """A point of the support where ``expr`` and ``survival`` differ by more than the tolerance (their
    parameters at fixed positive values), or None."""
    values = {s: sympy.Rational(17 + 6 * i, 10) for i, s in enumerate(
        sorted((expr.free_symbols | survival.free_symbols) - {t}, key=lambda s: s.name))}
    ends = [b.subs(values) for b in dist.breakpoints]
    finite = [float(b) for b in ends if b.is_finite]
    low, high = (min(finite), max(finite)) if finite else (0.0, 1.0)
    span = max(high - low, 1.0)
    points = sorted({*finite, *(low + span * f for f in (0.1, 0.37, 0.5, 0.81)), high + span, high + 10 * span})
    for x in points:
        a = complex(sympy.N(expr.subs(values).subs(t, x), 20))
        b = complex(sympy.N(survival.subs(values).subs(t, x), 20))
        if abs(a - b) > _SURVIVAL_TOLERANCE:
            return x
    return None


def to_json(obj: Any, *, indent: int | None = 2) -> str:
    """A derived captime law or a utility as JSON text, to store and load without deriving again.

    The document is data, not code: a header ``{"format": "maxent_util",
    "version": 2}``, plain fields, and every expression as a tree of
    operators and leaves (:func:`maxent_util.expressions.to_tree`): exact,
    so rationals stay rational and floats keep their precision.  A
    distribution keeps its constraints, pieces, multipliers, derivation
    record and name; a utility keeps its expression, name and, when it came
    from :meth:`utility`, its distribution.  The same object gives the same
    bytes in every process.  The layout is described in ``docs/json-format.md``.

    Parameters
    ----------
    obj : CaptimeDistribution or Utility
        What to store.
    indent : int or None, keyword-only
        Spaces per level of indentation; None writes one line.

    Returns
    -------
    str
        The JSON document (no NaN or Infinity), for :func:`from_json`.

    Raises
    ------
    ExportError
        For an object that is neither a CaptimeDistribution nor a Utility, or
        one holding an expression the format has no operator for.

    Examples
    --------
    >>> from maxent_util import pareto
    >>> utility = from_json(to_json(pareto(24, 1).utility()))
    >>> utility(48.0), utility.distribution.multipliers
    (0.5, {lambda_0: -1 + log(24), lambda_1: 2})
    """

    header = {"format": JSON_FORMAT, "version": JSON_VERSION}
    if isinstance(obj, CaptimeDistribution):
        payload = {**header, "kind": "distribution", **_distribution_payload(obj)}
    elif isinstance(obj, Utility):
        payload = {**header, "kind": "utility", **_utility_payload(obj)}
    else:
        raise ExportError(argument_message("obj", "to_json", "a CaptimeDistribution or a Utility", short(obj)))
    return json.dumps(payload, indent=indent, allow_nan=False)


def _unique_keys(pairs: list) -> dict:
    """A JSON object whose keys are all different: a repeated key (which json would let the last
    win) is a document that says two things."""
    data = dict(pairs)
    if len(data) != len(pairs):
        seen: set = set()
        repeated = next(key for key, _ in pairs if key in seen or seen.add(key))
        raise ExportError(argument_message("text", "from_json", "JSON objects with distinct keys",
                                           short(repeated), f"The key {short(repeated)!r} appears twice."))
    return data


def _refuse_constant(name: str) -> Any:
    raise ExportError(argument_message("text", "from_json", "JSON without NaN or Infinity", name))


def from_json(text: str | bytes) -> Any:
    """Load what :func:`to_json` wrote: a CaptimeDistribution or a Utility.

    The text is read as data: expressions are rebuilt node by node from the
    closed list of operators of :func:`maxent_util.expressions.from_tree`,
    nothing is evaluated as code, no file is touched and nothing is derived
    again.  Only version 2 documents are read (the earlier ``srepr`` layout,
    ``"format": "maxent_util/1"``, is refused: write the object again).

    Parameters
    ----------
    text : str or bytes
        A document written by :func:`to_json` (at most ``MAX_JSON_LENGTH`` characters).

    Returns
    -------
    CaptimeDistribution or Utility
        The object, as the document's ``kind`` says; a utility keeps the distribution it
        came from.

    Raises
    ------
    ExportError
        For text that is not a document written by :func:`to_json`: not JSON,
        an unknown format or version, a missing or mistyped field, an unknown
        operator or constraint kind, a number of more than
        :data:`~maxent_util.expressions.MAX_DIGITS` digits, or an expression
        nested deeper than :data:`~maxent_util.expressions.MAX_DEPTH`.  The
        message names the field, e.g. ``derivation.terms[0].feature``.
    """
    if not isinstance(text, (str, bytes, bytearray)):
        raise ExportError(argument_message("text", "from_json", "a JSON string", short(text)))
    if len(text) > MAX_JSON_LENGTH:
        raise ExportError(argument_message("text", "from_json", f"at most {MAX_JSON_LENGTH} characters",
                                           f"{len(text)} characters"))
    try:
        data = json.loads(text, parse_constant=_refuse_constant, object_pairs_hook=_unique_keys)
    except ExportError:
        raise
    except (ValueError, RecursionError, MemoryError) as error:
        # ValueError covers bad JSON, bad UTF-8 and integers longer than Python converts
        detail = str(error) if not isinstance(error, RecursionError) else "nested too deeply"
        raise ExportError(argument_message("text", "from_json", "valid JSON", short(text),
                                           f"({short(detail)})")) from None
    if not isinstance(data, dict):
        raise ExportError(argument_message("text", "from_json", "a JSON object written by to_json",
                                           short(data)))
    found = data.get("format")
    if found != JSON_FORMAT:
        remedy = ("Documents of the old srepr layout are not read (they could run code); "
                  "write the object again with maxent_util.to_json." if found == "maxent_util/1"
                  else "The text was not written by maxent_util.export.to_json.")
        raise ExportError(argument_message("format", "from_json", repr(JSON_FORMAT), short(found), remedy))
    version = data.get("version")
    if isinstance(version, bool) or version != JSON_VERSION:
        raise ExportError(argument_message(
            "version", "from_json", f"{JSON_VERSION} (the version this maxent_util reads)", short(version),
            "A newer maxent_util may read it."))
    reader = _Document()
    kind = data.get("kind")
    if kind == "distribution":
        return _load_distribution(reader, data, "")
    if kind == "utility":
        return _load_utility(reader, data)
    raise ExportError(argument_message("kind", "from_json", "'distribution' or 'utility'", short(kind)))
