"""ASlib scenarios: ``algorithm_runs.arff`` (a line-by-line ARFF parser) and ``description.txt``."""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import DataError, argument_message, short
from ..durations import readable_duration
from .limits import ReadLimits, open_bounded, over, read_limits, remedy
from .table import PathLike, _check_path, _check_time_option, _long_frame, _where

__all__ = ["read_aslib"]

_ASLIB_STATUS = {
    "ok": "solved",
    "timeout": "capped",
    "memout": "memout",
    "not_applicable": "crash",
    "crash": "crash",
    "other": "crash",
}


_ARFF_ATTRIBUTE = re.compile(
    r"""@attribute\s+('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|[^\s{]+)\s*(.*?)\s*$""",
    re.IGNORECASE)
# an unquoted value may not start with a quote, so an unclosed quote is an error
_ARFF_TOKEN = re.compile(
    r"""\s*('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|(?:[^,'"\s][^,]*?)?)\s*(,|$)""")
_ARFF_NUMERIC = ("numeric", "real", "integer")


def _unquote(token: str) -> str | None:
    """A value without its quotes; None for the unquoted missing value ``?``."""
    if len(token) >= 2 and token[0] == token[-1] and token[0] in "'\"":
        return re.sub(r"\\(.)", r"\1", token[1:-1])
    return None if token == "?" else token


def _split_arff_row(line: str) -> list[str | None] | None:
    """Comma-separated values with optional ' or " quotes; None if malformed."""
    if "'" not in line and '"' not in line:
        return [None if token == "?" else token
                for token in (part.strip() for part in line.split(","))]
    tokens: list[str | None] = []
    position = 0
    while True:
        match = _ARFF_TOKEN.match(line, position)
        if match is None:
            return None
        tokens.append(_unquote(match.group(1)))
        if match.group(2) == "":
            return tokens if match.end() == len(line) else None
        position = match.end()


def _description_fields(text: str, source: str) -> dict[str, list[str]]:
    """Top-level fields of an ASlib description.txt, each as a list of strings.

    The file is YAML; only the subset ASlib uses for its top-level fields is
    read here: ``key: value``, ``key: [a, b]`` and ``key:`` followed by
    indented ``- item`` lines. Nested mappings (``feature_steps``) are skipped.
    A top-level line of another form is refused, naming it: read as a key, it
    would leave the file's fields missing and the error would say so.
    """
    fields: dict[str, list[str]] = {}
    current: list[str] | None = None
    for number, raw_line in enumerate(text.split("\n"), 1):
        line = raw_line.rstrip()
        if not line.strip() or line.lstrip().startswith("#") or line in ("---", "..."):
            continue  # YAML's document markers too
        if not line[0].isspace():
            key, colon, value = line.partition(":")
            if not colon or not key.strip() or (value and not value[0].isspace()):
                raise DataError(argument_message(
                    f"line {number}", source, "a 'key: value' line (description.txt is YAML)",
                    short(line)))
            value = value.strip()
            if value.startswith("[") and value.endswith("]"):
                items = [_yaml_scalar(v) for v in value[1:-1].split(",") if v.strip()]
            else:
                items = [_yaml_scalar(value)] if value else []
            current = fields[key.strip()] = items
        elif current is not None and line.strip().startswith("- "):
            current.append(_yaml_scalar(line.strip()[2:]))
        elif current is not None and line.strip() == "-":
            current.append("")
        else:
            current = None  # a nested mapping: not a list of this key
    return fields


def _yaml_scalar(text: str) -> str:
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    return text


@dataclass(frozen=True)
class _Description:
    """What read_aslib needs from a scenario's description.txt."""

    path: str
    cutoff: float | None
    measures: list[str] | None
    maximize: list[str] | None
    types: list[str] | None


def _read_text(source: str, owner: str, limits: ReadLimits, requirement: str) -> str:
    """A file's text (UTF-8, a byte-order mark dropped), read within ``limits``; a FIFO,
    device or folder is refused before it is read."""
    with open_bounded(source, source, owner, limits) as handle:
        data = handle.read()
    try:
        # utf-8-sig: a byte-order mark is dropped, as pandas drops it from a CSV
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DataError(argument_message(
            "path", owner, requirement, source,
            f"Byte {exc.start} cannot be decoded as UTF-8.")) from None


def _read_description(arff_path: Path, limits: ReadLimits) -> _Description | None:
    """The description.txt next to an algorithm_runs.arff, if there is one. One that is there
    but cannot be read (a folder, a broken link, a FIFO, not UTF-8) is refused: it would say
    the cutoff and the runtime measure."""
    description = arff_path.with_name("description.txt")
    if not os.path.lexists(description):
        return None
    source = os.fspath(description)
    text = _read_text(source, "read_aslib", limits,
                      "a readable UTF-8 description.txt next to the runs")
    fields = _description_fields(text, source)
    cutoff = None
    stated = fields.get("algorithm_cutoff_time") or []
    if len(stated) == 1 and stated[0] not in ("?", "", "null", "None", "~"):
        cutoff = _check_time_option(stated[0], "algorithm_cutoff_time", source)
    elif len(stated) > 1:
        raise DataError(argument_message(
            "algorithm_cutoff_time", source, "one number of seconds", stated))
    return _Description(path=source, cutoff=cutoff,
                        measures=fields.get("performance_measures"),
                        maximize=fields.get("maximize"), types=fields.get("performance_type"))


def _performance_attribute(description: _Description | None, attributes: list[tuple[str, str, int]],
                           source: str) -> int:
    """Index of the runtime attribute: the one description.txt types as runtime.

    Without a description.txt (a bare ARFF file), an attribute named
    ``runtime``; never a guess by position.
    """
    names = [name for name, _, _ in attributes]
    numeric = [name for name, kind, _ in attributes if kind == "numeric"]
    remedy = "Name the runtime attribute with performance= (--performance on the command line)."
    if description is None or not description.measures:
        matches = [j for j, (name, kind, _) in enumerate(attributes)
                   if name.lower() == "runtime" and kind == "numeric"]
        if len(matches) != 1:
            raise DataError(argument_message(
                "attributes", source, "a list including one numeric 'runtime' attribute "
                "(or a description.txt next to the file whose performance_measures name the "
                "runtime)", names, remedy))
        return matches[0]
    measures, types = description.measures, description.types
    if types is None or len(types) != len(measures):
        raise DataError(argument_message(
            "performance_type", description.path, "a list with one type per performance "
            f"measure {measures}", types, remedy))
    runtimes = [j for j, kind in enumerate(types) if kind.lower() == "runtime"]
    if not runtimes:
        raise DataError(argument_message(
            "performance_type", description.path, "a list including 'runtime' (maxent_util "
            "scores runtimes)", types,
            f"To score another measure as if it were seconds, name it with performance= "
            f"(one of {numeric})."))
    if len(runtimes) > 1:
        raise DataError(argument_message(
            "performance_type", description.path, "a list with one 'runtime' measure",
            types, remedy))
    measure = measures[runtimes[0]]
    maximize = description.maximize or []
    if len(maximize) == len(measures) and maximize[runtimes[0]].lower() == "true":
        raise DataError(argument_message(
            "maximize", description.path, f"false for the runtime measure {measure!r}",
            maximize, remedy))
    if measure not in names or attributes[names.index(measure)][1] != "numeric":
        raise DataError(argument_message(
            "performance_measures", description.path,
            f"a list naming a numeric attribute of {source}, one of {numeric}", measures,
            remedy))
    return names.index(measure)


def read_aslib(path: PathLike, *, performance: str | None = None,
               cutoff: float | None = None, limits: ReadLimits | None = None) -> pd.DataFrame:
    """Read an ASlib ``algorithm_runs.arff`` file.

    Parameters
    ----------
    path : str or os.PathLike
        The ARFF file, with the attributes ``instance_id``, ``algorithm``,
        ``runstatus``, a performance attribute and optionally
        ``repetition``.
    performance : str, optional, keyword-only
        Name of the numeric attribute to read as runtimes in seconds. By
        default the measure that the scenario's ``description.txt`` (next to
        the file) lists in ``performance_measures`` with
        ``performance_type: runtime``; a scenario with no runtime measure
        (``solution_quality``, as CSP-Minizinc-Obj-2016) is refused unless
        this names a column (whose values are then read as seconds, and not
        capped at ``algorithm_cutoff_time``, which limits time). A bare ARFF
        file without ``description.txt`` needs an attribute called
        ``runtime`` or this option. The column is never guessed by
        position.
    cutoff : float, optional, keyword-only
        The algorithm cutoff time in seconds. By default it is read from
        ``algorithm_cutoff_time`` in ``description.txt``; without either, the
        table has no ``cutoff`` column. It may lower the stated cutoff (runs
        are re-capped) but not raise it: runs stopped at the stated limit say
        nothing about later times.
    limits : ReadLimits, optional, keyword-only
        Bounds on the bytes, attributes and name lengths read
        (:class:`~maxent_util.io.ReadLimits`); by default the process's
        (:func:`~maxent_util.io.set_read_limits`).

    Returns
    -------
    pandas.DataFrame
        The long table in file order, one row per line of ``@DATA`` (each
        repetition is a run of its own).

    Raises
    ------
    DataError
        If the file is missing, the ARFF is malformed, an attribute is
        missing, or a value is invalid (data errors give the line number);
        if the runtime column cannot be told from ``description.txt`` or
        the scenario's performance type is not runtime (without
        ``performance=``); if ``cutoff`` exceeds the stated cutoff; if a
        ``description.txt`` is there but cannot be read (a folder, a broken
        link, a FIFO, not UTF-8); or if a read limit is passed.

    Notes
    -----
    ``runstatus`` maps ``ok`` to ``"solved"``, ``timeout`` and ``memout`` to
    themselves, and ``crash``, ``other``, ``not_applicable`` to ``"crash"``.
    With a cutoff, an ``ok`` run at or above it becomes ``"capped"`` (the
    same rule as :func:`read_satcomp`), and an unsuccessful run stops at
    ``min(recorded value, cutoff)``, or at the cutoff when its value is
    missing (``?``); this also undoes PAR10 penalties. Without a cutoff an
    unsuccessful run needs a recorded value.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "algorithm_runs.arff").write_text(
    ...     "@RELATION runs\\n"
    ...     "@ATTRIBUTE instance_id STRING\\n"
    ...     "@ATTRIBUTE repetition NUMERIC\\n"
    ...     "@ATTRIBUTE algorithm STRING\\n"
    ...     "@ATTRIBUTE runtime NUMERIC\\n"
    ...     "@ATTRIBUTE runstatus {ok, timeout, memout, not_applicable, crash, other}\\n"
    ...     "@DATA\\n"
    ...     "a.cnf,1,minisat,3.5,ok\\n"
    ...     "'b c.cnf',1,minisat,?,timeout\\n")
    >>> read_aslib(folder / "algorithm_runs.arff", cutoff=60)
      algorithm instance  runtime  status  cutoff
    0   minisat    a.cnf      3.5  solved    60.0
    1   minisat  b c.cnf     60.0  capped    60.0
    """
    owner = "read_aslib"
    source = _check_path(path, owner)
    if cutoff is not None:
        limit: float | None = _check_time_option(cutoff, "cutoff", owner)
    else:
        limit = None
    if performance is not None and not isinstance(performance, str):
        raise DataError(argument_message(
            "performance", owner, "the name of a numeric attribute (a string)", performance))
    chosen = read_limits(limits)
    text = _read_text(source, owner, chosen, "an existing, readable UTF-8 file")
    description = _read_description(Path(path), chosen)

    attributes: list[tuple[str, str, int]] = []  # name, kind, line
    data: list[tuple[int, str]] = []
    in_data = False
    # split on '\n' only: str.splitlines would also break inside names holding '\x85' or '\u2028'
    for number, raw_line in enumerate(text.split("\n"), start=1):
        line = raw_line.strip()
        if not line or line.startswith("%"):
            continue
        if in_data:
            data.append((number, line))
            continue
        keyword = line.split(None, 1)[0].lower()
        if keyword == "@relation":
            continue
        if keyword == "@data":
            in_data = True
            continue
        if keyword == "@attribute":
            match = _ARFF_ATTRIBUTE.match(line)
            kind = match.group(2).lower() if match else ""
            if match is None or not (kind.startswith("{") or kind in _ARFF_NUMERIC
                                     or kind == "string" or kind.startswith("date")):
                raise DataError(argument_message(
                    "@ATTRIBUTE", _where(path, number, "line"),
                    "'@ATTRIBUTE <name> <NUMERIC|REAL|INTEGER|STRING|DATE|{values}>'",
                    short(raw_line)))
            kind = "numeric" if kind in _ARFF_NUMERIC else "text"
            attributes.append((_unquote(match.group(1)) or "?", kind, number))
            if len(attributes) > chosen.max_columns:
                raise over(source, owner, "max_columns", chosen.max_columns,
                           f"an ARFF file of at most {chosen.max_columns} attributes")
            continue
        raise DataError(argument_message(
            "header", _where(path, number, "line"),
            "'@RELATION', '@ATTRIBUTE', '@DATA' or a '%' comment", short(raw_line)))
    if not in_data:
        raise DataError(argument_message(
            "path", owner, "an ARFF file with an '@DATA' section", source))

    names = [name for name, _, _ in attributes]
    lowered_names = [name.lower() for name in names]
    required = ("instance_id", "algorithm", "runstatus")
    if any(name not in lowered_names for name in required):
        raise DataError(argument_message(
            "attributes", source, "a list including 'instance_id', 'algorithm', 'runstatus' "
            "and a numeric performance attribute", names))
    instance_j = lowered_names.index("instance_id")
    algorithm_j = lowered_names.index("algorithm")
    status_j = lowered_names.index("runstatus")
    if performance is not None:
        if performance not in names or attributes[names.index(performance)][1] != "numeric":
            numeric = [name for name, kind, _ in attributes if kind == "numeric"]
            raise DataError(argument_message(
                "performance", owner, f"a numeric attribute of {source}, one of {numeric}",
                performance))
        performance_j = names.index(performance)
    else:
        performance_j = _performance_attribute(description, attributes, source)
    performance_name = names[performance_j]

    stated = description.cutoff if description is not None else None
    if stated is not None and description.measures and description.types \
            and performance_name in description.measures \
            and len(description.types) == len(description.measures) \
            and description.types[description.measures.index(performance_name)].lower() \
            != "runtime":
        stated = None  # a time limit, not a bound on a solution-quality measure named by hand
    if limit is None:
        limit = stated
    elif stated is not None and limit > stated:
        # runs stopped at the stated limit say nothing about the time between it and `cutoff`
        raise DataError(argument_message(
            "cutoff", owner, f"at most the scenario's algorithm_cutoff_time {stated!r} "
            f"({description.path}), since its runs were stopped there", cutoff,
            "A cutoff can be lowered to re-cap the runs, never raised."))

    n_attributes = len(attributes)
    n_runs = len(data)
    unsuccessful: list[float] = []  # recorded values of runs that did not end 'ok'

    algorithm = np.empty(n_runs, dtype=object)
    instance = np.empty(n_runs, dtype=object)
    runtime = np.empty(n_runs)
    status = np.empty(n_runs, dtype=object)
    for k, (number, line) in enumerate(data):
        where = _where(path, number, "line")
        tokens = None if line.startswith("{") else _split_arff_row(line)
        if tokens is None or len(tokens) != n_attributes:
            raise DataError(argument_message(
                "@DATA", where, f"a row of {n_attributes} comma-separated values "
                "(sparse rows are not supported)", short(line)))
        for j, column in ((instance_j, "instance_id"), (algorithm_j, "algorithm")):
            if not tokens[j]:
                raise DataError(argument_message(
                    column, where, "a non-empty name", "?" if tokens[j] is None else tokens[j]))
            if len(tokens[j]) > chosen.max_cell_chars:
                raise DataError(argument_message(
                    column, where, f"a name of at most {chosen.max_cell_chars} characters (the "
                    f"read limit max_cell_chars={chosen.max_cell_chars})", short(tokens[j]),
                    remedy("max_cell_chars")))
        value = (tokens[status_j] or "?").lower()
        if value not in _ASLIB_STATUS:
            raise DataError(argument_message(
                "runstatus", where, f"one of {', '.join(map(repr, _ASLIB_STATUS))}",
                "?" if tokens[status_j] is None else short(tokens[status_j])))
        run_status = _ASLIB_STATUS[value]
        recorded = tokens[performance_j]
        if recorded is None:
            recorded, seconds = "?", math.nan
        else:
            try:
                seconds = float(recorded)
            except ValueError:
                seconds = -1.0  # reported below with the original text
            if not (math.isfinite(seconds) and seconds >= 0):
                raise DataError(argument_message(
                    performance_name, where, "a finite non-negative number of seconds or '?'",
                    short(recorded)))
        if run_status != "solved" and not math.isnan(seconds):
            unsuccessful.append(seconds)
        if run_status == "solved":
            if math.isnan(seconds):
                raise DataError(argument_message(
                    performance_name, where, "a number of seconds for an 'ok' run", recorded))
            if limit is not None and seconds >= limit:
                run_status, seconds = "capped", limit
        elif limit is not None:
            seconds = limit if math.isnan(seconds) else min(seconds, limit)
        elif math.isnan(seconds):
            raise DataError(argument_message(
                performance_name, where, f"a number of seconds for a '{value}' run "
                "when no cutoff is known", recorded,
                "Pass cutoff= or put a description.txt with algorithm_cutoff_time "
                "next to the file."))
        algorithm[k] = tokens[algorithm_j]
        instance[k] = tokens[instance_j]
        runtime[k] = seconds
        status[k] = run_status
    table = _long_frame(algorithm, instance, runtime, status,
                        None if limit is None else np.full(n_runs, limit))
    table.attrs["notes"] = [_measure_note(performance_name, performance, description, limit,
                                          stated, cutoff, unsuccessful)]
    return table


_PAR_NAME = re.compile(r"par(\d+)", re.IGNORECASE)


def _measure_note(name: str, performance: str | None, description: _Description | None,
                  limit: float | None, stated: float | None, cutoff: float | None,
                  unsuccessful: list[float]) -> str:
    """The sentence saying which measure was read as runtimes, the cutoff, and the PAR
    penalty the scenario writes for its unsuccessful runs where it shows one."""
    if performance is not None:
        source = "named by performance="
    elif description is not None and description.measures:
        source = f"the runtime measure of {os.path.basename(description.path)}"
    elif description is not None:  # there, but naming no measure: its cutoff may still be read
        source = (f"the attribute named runtime, as {os.path.basename(description.path)} lists "
                  "no performance_measures")
    else:
        source = "the attribute named runtime, as there is no description.txt"
    note = f"measure: {name!r} ({source}), read as seconds"
    if limit is None:
        return note + "; no cutoff known"
    where = "given" if cutoff is not None else "from algorithm_cutoff_time of description.txt"
    note += f"; cutoff {readable_duration(limit)}, {where}"
    # a scenario states a PAR-k penalty by its measure's name (PAR10) or by writing every
    # unsuccessful run as k times the cutoff
    named = _PAR_NAME.fullmatch(name.strip())
    base = stated if stated is not None else limit
    ratios = {round(value / base, 9) for value in unsuccessful} if base else set()
    written = next(iter(ratios)) if len(ratios) == 1 else None
    if written is not None and written > 1 and float(written).is_integer():
        note += (f"; its unsuccessful runs record the PAR{int(written)} penalty, "
                 f"{int(written)} times {readable_duration(base)}, read as runs capped at the "
                 "cutoff")
    elif named is not None:
        note += (f"; a PAR{named.group(1)} measure: its unsuccessful runs are read as runs "
                 "capped at the cutoff, whatever penalty they record")
    return note
