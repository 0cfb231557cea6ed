"""The grammar of the space files: a tokenizer and a small parser for each format.

Nothing here evaluates text: each line is split into tokens (names, numbers, quoted strings,
the few operators the formats use) and parsed by hand; a line that does not follow its
format's grammar raises a :class:`~maxent_util.errors.DataError` naming the file, the line and
its text. The readers return plain dictionaries, which :class:`~maxent_util.ParameterSpace`
checks and turns into options.
"""

from __future__ import annotations

import itertools
import json
import math
import re
from pathlib import Path
from typing import Any, Iterator, Mapping

from ..errors import DataError, argument_message, short

#: the largest space file read (a solver's space is a few kilobytes); pass ``max_bytes=``
MAX_SPACE_BYTES = 1_000_000
# the characters of a choice every format reads unquoted (ConfigSpace's PCS names, less
# those this grammar uses: & ! < > % and quotes)
WORD = re.compile(r"[A-Za-z0-9_.@:;/?$*+\-]+")
#: the most forbidden combinations a file may spell out (``p %in% c(...) & q %in% c(...)``
#: multiplies: a short line could otherwise ask for billions)
MAX_COMBINATIONS = 100_000
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


def read_text(path: Path, max_bytes: int) -> str:
    try:
        with open(path, "rb") as file:
            data = file.read(max_bytes + 1)
    except OSError as error:
        raise DataError(argument_message("path", "ParameterSpace.read", "a readable file", str(path),
                                         error.strerror or str(error))) from None
    if len(data) > max_bytes:
        raise DataError(argument_message("path", "ParameterSpace.read", f"a file of at most "
                                         f"{max_bytes:,} bytes", str(path), "Pass max_bytes= to read more."))
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise DataError(argument_message("path", "ParameterSpace.read", "UTF-8 text", str(path),
                                         f"Byte {error.start} is not.")) from None


_TOKEN = re.compile(r'\s+|(?P<str>"[^"\\\n]*")|(?P<op>&&|\|\||==|!=|%in%|[{}\[\](),|&=<>!])'
                    r'|(?P<word>[A-Za-z0-9_.@:;/?$*+\-]+)|(?P<comment>#.*)|(?P<bad>.)')


def _tokens(text: str, *, strict: bool = True) -> list[str] | None:
    """The tokens of one line (comments dropped), or None for a character no format uses
    (passed over when not ``strict``)."""
    tokens = []
    for match in _TOKEN.finditer(text):
        if match.group("bad") is not None:
            if strict:
                return None
            continue
        if match.group("comment") is not None:
            break
        token = match.group("str") or match.group("op") or match.group("word")
        if token:
            tokens.append(token)
    return tokens


def _lines(text: str) -> Iterator[tuple[int, str, list[str] | None]]:
    for number, line in enumerate(text.splitlines(), 1):
        tokens = _tokens(line)
        if tokens != []:
            yield number, line, tokens


def format_of(text: str, name: str) -> str:
    stripped = text.lstrip()
    if stripped.startswith("{"):
        try:
            document = json.loads(stripped)
        except (ValueError, RecursionError):
            document = None
        if isinstance(document, dict):
            return "json"
    for number, line, tokens in _lines(text):
        if re.match(r'\s*[^\s"#]+\s+"', line):  # a quoted switch, even one this grammar refuses
            return "irace"
        tokens = tokens if tokens is not None else _tokens(line, strict=False)
        if tokens and _header(tokens):
            return "pcs"
        if tokens is None or len(tokens) < 2 or tokens[1] == "|" or tokens[0] == "{":
            continue
        if tokens[1].startswith('"'):
            return "irace"
        if tokens[1] in ("real", "integer", "categorical", "ordinal"):
            return "pcs-new"
        if tokens[1] in ("[", "{"):
            return "pcs"
        break
    raise DataError(argument_message("text", name, "a space in classic PCS, ConfigSpace's PCS or "
                                     "JSON, or irace's parameter format", short(text[:80])))


class _Syntax(Exception):
    """A line that does not follow the grammar (turned into a DataError naming the line)."""


class _Cursor:
    def __init__(self, tokens: list[str]) -> None:
        self.tokens, self.at = tokens, 0

    def peek(self) -> str | None:
        return self.tokens[self.at] if self.at < len(self.tokens) else None

    def take(self) -> str:
        token = self.peek()
        if token is None:
            raise _Syntax
        self.at += 1
        return token

    def expect(self, *texts: str) -> str:
        token = self.take()
        if token not in texts:
            raise _Syntax
        return token

    def done(self) -> bool:
        return self.at == len(self.tokens)

    def name(self) -> str:
        token = self.take()
        if not (token.isidentifier() and token.isascii()):
            raise _Syntax
        return token

    def value(self) -> str:
        token = self.take()
        if token.startswith('"'):
            return token[1:-1]
        if not WORD.fullmatch(token):
            raise _Syntax
        return token

    def number(self) -> float:
        token = self.take()
        if not _NUMBER.fullmatch(token):
            raise _Syntax
        return float(token)

    def values(self, close: str) -> list[str]:
        values = [self.value()]
        while self.expect(",", close) == ",":
            values.append(self.value())
        return values


_PARAMETER_PCS = "a parameter (name [low, high] [default]il or name {a, b} [a])"
_PARAMETER_NEW = "a parameter (name real|integer [low, high] [default]log or name categorical {a, b} [a])"
_PARAMETER_IRACE = 'a parameter (name "switch" r|i|c|o (values) | condition)'
_CONDITION = ("a condition (child | parent in {values}, with && between clauses; parent == value "
              "and parent != value) on categorical options")
_CONDITION_IRACE = ("a condition of conjunctions of 'parent %in% c(values)', 'parent == value' or "
                    "'parent != value' on categorical options")
_FORBIDDEN = "a forbidden combination ({name=value, name=value})"
_FORBIDDEN_IRACE = ("a forbidden combination of 'name == value' or 'name %in% c(values)' joined by & "
                    "or &&")


class Reader:
    """The grammar of each format, over one file's lines."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.lines: dict[int, str] = {}

    def where(self, place: int | str) -> str:
        """Where an option was read: a line, or a place in a JSON document."""
        return f"{self.name}, line {place}" if isinstance(place, int) else f"{self.name}, {place}"

    def fail(self, number: int, requirement: str) -> DataError:
        return DataError(argument_message(f"line {number}", self.name, requirement,
                                          short(self.lines.get(number, "").strip())))

    # PCS, both versions

    def pcs(self, text: str, *, new: bool) -> tuple[dict, list, list]:
        parameters: dict[str, dict] = {}
        conditions: list[tuple] = []
        combos: list[dict] = []
        pending: list[tuple[int, list[str]]] = []
        for number, line, tokens in _lines(text):
            self.lines[number] = line
            if tokens is None:
                raise self.fail(number, _PARAMETER_NEW if new else _PARAMETER_PCS)
            if not new and _header(tokens):
                continue
            if "|" in tokens:
                pending.append((number, tokens))
            elif tokens[0] == "{":
                pending.append((number, tokens))
            else:
                entry = self._pcs_parameter(number, tokens, new)
                if entry["name"] in parameters:
                    raise self.fail(number, "a parameter not named before")
                parameters[entry["name"]] = entry
        for number, tokens in pending:
            if tokens[0] == "{":
                combos.append(self._pcs_forbidden(number, tokens, parameters))
            else:
                conditions.extend(self._pcs_condition(number, tokens, parameters))
        return parameters, conditions, combos

    def _pcs_parameter(self, number: int, tokens: list[str], new: bool) -> dict:
        cursor = _Cursor(tokens)
        try:
            name = cursor.name()
            kind = cursor.expect("real", "integer", "categorical", "ordinal") if new else None
            if cursor.peek() == "{" and kind in (None, "categorical", "ordinal"):
                cursor.take()
                values = cursor.values("}")
                cursor.expect("[")
                default = cursor.value()
                cursor.expect("]")
                if not cursor.done():
                    raise _Syntax
                return {"line": number, "name": name, "kind": "categorical", "values": tuple(values),
                        "default": default}
            if kind not in (None, "real", "integer"):
                raise _Syntax
            cursor.expect("[")
            low = cursor.number()
            cursor.expect(",")
            high = cursor.number()
            cursor.expect("]")
            cursor.expect("[")
            default = cursor.number()
            cursor.expect("]")
            flags = cursor.take() if not cursor.done() else ""
            if not cursor.done():
                raise _Syntax
            if new:
                if flags not in ("", "log"):
                    raise _Syntax
                log = flags == "log"
            else:
                if flags not in ("", "i", "l", "il", "li"):
                    raise _Syntax
                kind, log = ("integer" if "i" in flags else "real"), "l" in flags
            return {"line": number, "name": name, "kind": kind, "values": (low, high), "log": log,
                    "default": default}
        except _Syntax:
            raise self.fail(number, _PARAMETER_NEW if new else _PARAMETER_PCS) from None

    def _clauses(self, cursor: _Cursor, parameters: Mapping[str, dict], *, irace: bool) -> list[tuple]:
        """Conjunctions of ``parent in {v}`` / ``%in% c(v)``, ``==`` and ``!=`` to (parent, values)."""
        clauses = []
        while True:
            opened = 0
            while irace and cursor.peek() == "(":
                cursor.take()
                opened += 1
            parent = cursor.name()
            entry = parameters.get(parent)
            if entry is None or entry["kind"] != "categorical":
                raise _Syntax
            operator = cursor.expect("%in%" if irace else "in", "==", "!=")
            if operator in ("in", "%in%"):
                if irace:
                    if cursor.take() != "c":
                        raise _Syntax
                    cursor.expect("(")
                    values = cursor.values(")")
                else:
                    cursor.expect("{")
                    values = cursor.values("}")
            else:
                values = [cursor.value()]
                if operator == "!=":
                    values = [v for v in entry["values"] if v not in values]
            if not set(values) <= set(entry["values"]):
                raise _Syntax
            for _ in range(opened):
                cursor.expect(")")
            clauses.append((parent, tuple(values)))
            if cursor.done():
                return clauses
            cursor.expect("&&", "&") if irace else cursor.expect("&&")

    def _pcs_condition(self, number: int, tokens: list[str], parameters: Mapping[str, dict]) -> list:
        cursor = _Cursor(tokens)
        try:
            child = cursor.name()
            cursor.expect("|")
            clauses = self._clauses(cursor, parameters, irace=False)
        except _Syntax:
            raise self.fail(number, _CONDITION) from None
        if child not in parameters:
            raise self.fail(number, "a condition on an option of the file")
        return [(child, parent, values) for parent, values in clauses]

    def _pcs_forbidden(self, number: int, tokens: list[str], parameters: Mapping[str, dict]) -> dict:
        cursor = _Cursor(tokens)
        combination: dict[str, Any] = {}
        try:
            cursor.expect("{")
            while True:
                name = cursor.name()
                cursor.expect("=")
                token = cursor.value()
                entry = parameters.get(name)
                if entry is None or name in combination:
                    raise _Syntax
                combination[name] = token if entry["kind"] == "categorical" else _as_number(token)
                if cursor.expect(",", "}") == "}":
                    break
            if not cursor.done():
                raise _Syntax
        except _Syntax:
            raise self.fail(number, _FORBIDDEN) from None
        return combination

    # irace

    def irace(self, text: str) -> tuple[dict, list, list]:
        parameters: dict[str, dict] = {}
        pending = []
        for number, line, tokens in _lines(text):
            self.lines[number] = line
            cursor = _Cursor(tokens or [])
            try:
                if tokens is None:
                    raise _Syntax
                name = cursor.name()
                switch = cursor.take()
                if not switch.startswith('"'):
                    raise _Syntax
                letter = cursor.expect("r", "i", "c", "o")
                log = False
                if cursor.peek() == ",":
                    cursor.take()
                    cursor.expect("log")
                    log = True
                cursor.expect("(")
                if letter in ("c", "o"):
                    if log:
                        raise _Syntax
                    values: tuple = tuple(cursor.values(")"))
                    kind = "categorical"
                else:
                    low = cursor.number()
                    cursor.expect(",")
                    high = cursor.number()
                    cursor.expect(")")
                    values, kind = (low, high), ("real" if letter == "r" else "integer")
                if not cursor.done():
                    cursor.expect("|")
                    pending.append((number, name, cursor))
                    if cursor.done():
                        raise _Syntax
            except _Syntax:
                raise self.fail(number, _PARAMETER_IRACE) from None
            if name in parameters:
                raise self.fail(number, "a parameter not named before")
            parameters[name] = {"line": number, "name": name, "kind": kind, "values": values,
                                "log": log, "switch": switch[1:-1]}
        conditions = []
        for number, name, cursor in pending:
            try:
                clauses = self._clauses(cursor, parameters, irace=True)
            except _Syntax:
                raise self.fail(number, _CONDITION_IRACE) from None
            conditions.extend((name, parent, values) for parent, values in clauses)
        return parameters, conditions, []

    def irace_forbidden(self, text: str, parameters: Mapping[str, dict]) -> list[dict]:
        combos = []
        for number, line, tokens in _lines(text):
            self.lines[number] = line
            cursor = _Cursor(tokens or [])
            options: list[tuple[str, list]] = []
            try:
                if tokens is None:
                    raise _Syntax
                while True:
                    opened = 0
                    while cursor.peek() == "(":
                        cursor.take()
                        opened += 1
                    name = cursor.name()
                    entry = parameters.get(name)
                    if entry is None:
                        raise _Syntax
                    if cursor.expect("==", "%in%") == "==":
                        texts = [cursor.value()]
                    else:
                        if cursor.take() != "c":
                            raise _Syntax
                        cursor.expect("(")
                        texts = cursor.values(")")
                    for _ in range(opened):
                        cursor.expect(")")
                    options.append((name, [t if entry["kind"] == "categorical" else _as_number(t)
                                           for t in texts]))
                    if cursor.done():
                        break
                    cursor.expect("&", "&&")
            except _Syntax:
                raise self.fail(number, _FORBIDDEN_IRACE) from None
            names = [name for name, _ in options]
            if len(set(names)) != len(names):
                raise self.fail(number, "a combination naming each option once")
            if len(combos) + math.prod(len(v) for _, v in options) > MAX_COMBINATIONS:
                raise self.fail(number, f"at most {MAX_COMBINATIONS:,} forbidden combinations in all")
            for values in itertools.product(*(v for _, v in options)):
                combos.append(dict(zip(names, values)))
        return combos

    # ConfigSpace's JSON

    def json(self, text: str) -> tuple[dict, list, list]:
        try:
            document = json.loads(text)
        except (ValueError, RecursionError) as error:
            raise DataError(argument_message("text", self.name, "JSON", short(str(error)))) from None

        def fail(where: str, requirement: str, value: Any) -> DataError:
            return DataError(argument_message(where, self.name, requirement, short(value)))

        if not isinstance(document, dict) or not isinstance(document.get("hyperparameters"), list):
            raise fail("hyperparameters", "a list (ConfigSpace's JSON)", document)
        parameters: dict[str, dict] = {}
        for k, item in enumerate(document["hyperparameters"]):
            where = f"hyperparameters[{k}]"
            if not isinstance(item, dict) or not isinstance(item.get("name"), str):
                raise fail(where, "a hyperparameter with a name", item)
            kind = item.get("type")
            meta = item.get("meta")
            switch = meta.get("switch") if isinstance(meta, dict) else None
            entry: dict[str, Any] = {"line": where, "name": item["name"], "default": item.get("default_value"),
                                     "switch": switch if isinstance(switch, str) else None}
            if kind in ("uniform_float", "uniform_int"):
                bounds = (item.get("lower"), item.get("upper"))
                if not all(_json_number(b) for b in bounds) or not _json_number(entry["default"]) \
                        or item.get("q") is not None or not isinstance(item.get("log", False), bool):
                    raise fail(where, "a uniform number with numeric lower, upper and default_value "
                               "and no q", item)
                entry.update(kind="real" if kind == "uniform_float" else "integer", values=bounds,
                             log=item.get("log", False))
            elif kind in ("categorical", "ordinal", "constant"):
                choices = item.get("choices", item.get("sequence", [item.get("value")]))
                if kind == "constant":
                    entry["default"] = item.get("value")
                if not isinstance(choices, list) or not all(isinstance(c, str) for c in choices) \
                        or item.get("weights") is not None:
                    raise fail(where, "text choices without weights", item)
                entry.update(kind="categorical", values=tuple(choices))
            else:
                raise fail(where, "a uniform_float, uniform_int, categorical, ordinal or constant "
                           "hyperparameter", kind)
            if entry["name"] in parameters:
                raise fail(where, "a hyperparameter not named before", entry["name"])
            parameters[entry["name"]] = entry
        conditions = []
        for k, item in enumerate(document.get("conditions") or []):
            parts = item.get("conditions") if isinstance(item, dict) and item.get("type") == "AND" else [item]
            for part in parts if isinstance(parts, list) else [None]:
                clause = _json_condition(part, parameters)
                if clause is None:
                    raise fail(f"conditions[{k}]", "an EQUALS, NE or IN condition (or an AND of them) "
                               "on a categorical parent", item)
                conditions.append(clause)
        combos = []
        for k, item in enumerate(document.get("forbiddens") or []):
            parts = item.get("clauses") if isinstance(item, dict) and item.get("type") == "AND" else [item]
            options = [_json_forbidden(part, parameters) for part in (parts if isinstance(parts, list) else [None])]
            if not options or None in options:
                raise fail(f"forbiddens[{k}]", "an EQUALS or IN clause (or an AND of them)", item)
            names = [name for name, _ in options]
            if len(combos) + math.prod(len(v) for _, v in options) > MAX_COMBINATIONS:
                raise fail(f"forbiddens[{k}]", f"at most {MAX_COMBINATIONS:,} forbidden combinations "
                           "in all", short(item))
            combos.extend(dict(zip(names, values)) for values in itertools.product(*(v for _, v in options)))
        return parameters, conditions, combos


def _header(tokens: list[str]) -> bool:
    """Classic PCS's section headers, ``Conditionals:`` and ``Forbidden:``."""
    return "".join(tokens) in ("Conditionals:", "Forbidden:")


def _as_number(token: str) -> float:
    if not _NUMBER.fullmatch(token):
        raise _Syntax
    return float(token)


def _json_number(value: Any) -> bool:
    return not isinstance(value, bool) and isinstance(value, (int, float)) and math.isfinite(value)


def _json_condition(item: Any, parameters: Mapping[str, dict]) -> tuple | None:
    if not isinstance(item, dict):
        return None
    parent = parameters.get(item.get("parent")) if isinstance(item.get("parent"), str) else None
    if parent is None or parent["kind"] != "categorical" or item.get("child") not in parameters:
        return None
    kind = item.get("type")
    values = item.get("values") if kind == "IN" else [item.get("value")]
    if kind not in ("EQUALS", "NE", "IN") or not isinstance(values, list) \
            or not all(isinstance(v, str) and v in parent["values"] for v in values):
        return None
    if kind == "NE":
        values = [v for v in parent["values"] if v not in values]
    return (item["child"], item["parent"], tuple(values))


def _json_forbidden(item: Any, parameters: Mapping[str, dict]) -> tuple | None:
    if not isinstance(item, dict) or not isinstance(item.get("name"), str):
        return None
    entry = parameters.get(item["name"])
    kind = item.get("type")
    values = item.get("values") if kind == "IN" else [item.get("value")]
    if entry is None or kind not in ("EQUALS", "IN") or not isinstance(values, list):
        return None
    wanted = str if entry["kind"] == "categorical" else (int, float)
    if not all(isinstance(v, wanted) and not isinstance(v, bool) for v in values):
        return None
    return item["name"], values
