"""The ``maxent-util`` command line.

Subcommands: ``derive`` (constraints -> captime law and utility), ``family``
(the paper's presets), ``rank`` (runtime data -> rankings), ``sweep`` (how a
ranking changes with a utility's parameter), ``compare``
(is one algorithm really ahead of another?), ``plan`` (sampling plans),
``race`` (the best algorithm by utility without running everything),
``export`` (Python, C or LaTeX), ``plot`` (figures), ``tour`` (all of it on
the bundled SAT Competition 2021 data) and ``report`` (one HTML page about
runtime data).

The flags of ``derive`` are made from the registry of constraint kinds: a
kind ``TailProbability`` with ``argument_names = ("kappa1", "delta")``
becomes ``--tail-probability KAPPA1 DELTA``, so a new kind gets its flag
with no edit here.

Bad input (an unknown flag, a bad number, an unreadable file, constraints
no distribution meets, a spec that does not parse) exits with status 2 and
one line on stderr starting ``maxent-util: error:``.  An unexpected failure
exits with status 1, also in one line; set ``MAXENT_UTIL_TRACEBACK=1`` to
see the traceback instead.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import os
import re
import signal
import sys
import time
import warnings
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

from . import _output as output
from ._limits import MAX_POINTS, MAX_RESAMPLES
from ._output import atomic_file, spreadsheet_safe
from ._version import __version__

__all__ = ["main", "build_parser", "TOUR_UTILITIES", "DATASETS"]

PROG = "maxent-util"

#: The utilities of the paper's SAT Competition figure (Section 5), ranked with PAR-2.
TOUR_UTILITIES: tuple[str, ...] = ("uniform(20)", "uniform(500)", "pareto(5, 3)", "pareto(5, 1)",
                                   "exponential(1)")

#: ``--dataset`` names -> track of :func:`maxent_util.datasets.satcomp2021`.
# `rank --dask` without an address: a local cluster
LOCAL_CLUSTER = "local"

DATASETS: dict[str, str] = {"satcomp2021-parallel": "parallel", "satcomp2021-main": "main"}

# Runtime axis of the default utility figure: the paper's seven families share kappa0 = 24 s.
_PAPER_T_MAX = 96.0

# More utilities than this to derive and a progress line per utility is worth printing.
_PROGRESS_AFTER = 3



class CommandLineError(Exception):
    """Bad command-line input: reported in one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors become :class:`CommandLineError` (one line, no usage dump)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise CommandLineError(f"{message} (see `{self.prog} --help`)")


# ---------------------------------------------------------------------------
# small helpers


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive number; got {text!r}") from None
    if not (value > 0 and value != float("inf")):
        raise argparse.ArgumentTypeError(f"expected a positive finite number; got {text!r}")
    return value


def _number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number; got {text!r}") from None


def _strictly_between_0_and_1(what: str, example: str) -> Callable[[str], float]:
    """An argparse type: a number strictly between 0 and 1, refused as ``what`` with ``example``."""
    def read(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = float("nan")
        if not 0 < value < 1:
            raise argparse.ArgumentTypeError(f"expected {what} between 0 and 1 such as {example}; "
                                             f"got {text!r}")
        return value
    return read


_level = _strictly_between_0_and_1("a confidence level", "0.95")


def _count(text: str, *, least: int, most: int | None = None) -> int:
    try:
        value = int(text)
    except ValueError:
        value = least - 1
    if value < least:
        raise argparse.ArgumentTypeError(f"expected an integer of at least {least}; got {text!r}")
    if most is not None and value > most:
        raise argparse.ArgumentTypeError(f"expected an integer of at most {most} (more does not "
                                         f"fit in memory); got {text!r}")
    return value


def _positive_int(text: str) -> int:
    return _count(text, least=1)


def _nonnegative_int(text: str) -> int:
    return _count(text, least=0)


def _unicode_output(stream: Any) -> bool:
    encoding = (getattr(stream, "encoding", None) or "").lower().replace("-", "")
    return encoding.startswith("utf")


def _pretty(expr: Any, stream: Any) -> str:
    import sympy

    # numeric multipliers carry 30+ digits; a dozen is plenty to read (--json keeps them all)
    shorter = expr.xreplace({f: sympy.Float(f, 12) for f in expr.atoms(sympy.Float)})
    return sympy.pretty(shorter, use_unicode=_unicode_output(stream), wrap_line=False)


def _formula(expr: Any) -> str:
    """One line for an expression, a Piecewise read as 'a if c; b otherwise'."""
    import sympy

    if isinstance(expr, sympy.Piecewise):
        parts = []
        for value, condition in expr.args:
            if condition == sympy.true:
                parts.append(f"{value} otherwise" if parts else str(value))
            else:
                parts.append(f"{value} if {condition}")
        return "; ".join(parts)
    return str(expr)


def _utf8(text: str) -> bool:
    """Whether ``text`` is UTF-8 text (Python keeps bytes of another encoding in an argument as
    lone surrogates, which no UTF-8 file can hold)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _write_csv(table: Any, out: Any, **options: Any) -> None:
    """A table as CSV, its text cells unable to run as spreadsheet formulas (a leading ')."""
    spreadsheet_safe(table).to_csv(out, **options)


def _progress(enabled: bool, message: str) -> None:
    if enabled:
        print(message, file=sys.stderr, flush=True)


def _show_progress(option: bool | None, count: int) -> bool:
    if option is not None:
        return option
    return count > _PROGRESS_AFTER and sys.stderr.isatty()


# ---------------------------------------------------------------------------
# derive: flags from the constraint registry


def _flag_name(kind: str) -> str:
    """``SquaredLogDeviation`` -> ``squared-log-deviation``."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "-", kind).lower()


class _ConstraintAction(argparse.Action):
    """Collects ``(kind, tokens)`` in command-line order across every constraint flag."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        collected = list(getattr(namespace, self.dest, None) or [])
        collected.append((self.const, option_string, list(values)))
        setattr(namespace, self.dest, collected)


def _kind_help(cls: type) -> str:
    doc = (cls.__doc__ or "").strip().split("\n\n")[0]
    return _one_line(doc).replace("``", "").replace("%", "%%")


def _kind_metavar(cls: type) -> str:
    names = [n.upper() for n in cls.argument_names]
    return " ".join(names + [f"[{n.upper()}]" for n in cls.option_names])


class _HelpFormatter(argparse.HelpFormatter):
    """Shows ``--log-moment VALUE KAPPA0 [SIDE]`` rather than argparse's ``VALUE [VALUE ...]``."""

    def _format_args(self, action: argparse.Action, default_metavar: str) -> str:
        if isinstance(action, _ConstraintAction) and action.nargs == "+":
            return str(action.metavar)
        return super()._format_args(action, default_metavar)


def _add_constraint_flags(parser: argparse.ArgumentParser) -> None:
    from .constraints import constraint_kinds

    group = parser.add_argument_group(
        "constraints (one flag per registered kind; repeat a flag for several constraints)",
        "Values are numbers, 'oo' for infinity, names for symbolic parameters (a name is a "
        "positive symbol) or sympy expressions. Optional trailing values fill the options in "
        "order; NAME=VALUE gives any argument by name; a comma makes a pair (e.g. WHERE=0,10). "
        "A moment's value may state a bound: --mean '<=3600' is E[kappa] <= 3600, "
        "--tail-probability 60 '<=0.1' is P(kappa < 60) <= 0.1 (or relation=<= / relation=>=).")
    for name, cls in constraint_kinds().items():
        required = len(cls.argument_names)
        if cls.option_names or required == 0:
            group.add_argument(f"--{_flag_name(name)}", action=_ConstraintAction, const=cls,
                               dest="constraints", nargs="+", metavar=_kind_metavar(cls),
                               help=_kind_help(cls))
        else:
            group.add_argument(f"--{_flag_name(name)}", action=_ConstraintAction, const=cls,
                               dest="constraints", nargs=required,
                               metavar=tuple(n.upper() for n in cls.argument_names),
                               help=_kind_help(cls))


def _option_value(token: str) -> Any:
    if "," in token:
        return tuple(part.strip() for part in token.split(","))
    return token


#: prefixes of a value that state a bound: ``--mean "<=3600"`` is Mean(3600, relation="<=")
_RELATION_PREFIXES = ("<=", ">=", "==")


def _split_relation(cls: type, flag: str, tokens: list[str]) -> tuple[list[str], str | None]:
    """The tokens with a leading ``<=``, ``>=`` or ``==`` taken off, and that relation (None if none)."""
    relation = None
    stripped = []
    for token in tokens:
        text = token.strip()
        prefix = text[:2]
        if prefix in _RELATION_PREFIXES:
            if not getattr(cls, "takes_relation", False):
                raise CommandLineError(f"argument {flag}: takes no bound ({prefix}); state its values plainly")
            if relation is not None and relation != prefix:
                raise CommandLineError(f"argument {flag}: two relations, {relation} and {prefix}")
            relation, token = prefix, text[2:].strip()
        elif text[:1] in "<>=" and text:
            raise CommandLineError(f"argument {flag}: a bound is stated with <=, >= or == before the value "
                                   f"(e.g. '<=3600'); got {token!r}")
        stripped.append(token)
    return stripped, relation


def _build_constraint(cls: type, flag: str, tokens: list[str]) -> Any:
    names = tuple(cls.argument_names) + tuple(cls.option_names)
    positional: list[Any] = []
    keywords: dict[str, Any] = {}
    tokens, relation = _split_relation(cls, flag, tokens)
    if relation is not None and relation != "==":
        keywords["relation"] = relation
    for token in tokens:
        key, sep, value = token.partition("=")
        if sep and key.strip() in names:
            keywords[key.strip()] = value.strip() if key.strip() in cls.argument_names \
                else _option_value(value.strip())
        elif sep and key.strip() == "relation" and getattr(cls, "takes_relation", False):
            keywords["relation"] = value.strip()
        elif set(keywords) - {"relation"}:
            raise CommandLineError(
                f"argument {flag}: positional value {token!r} after a NAME=VALUE one")
        else:
            positional.append(token)
    if len(positional) > len(names):
        raise CommandLineError(
            f"argument {flag}: expected at most {len(names)} values ({' '.join(map(str.upper, names))}); "
            f"got {len(positional)}")
    converted = [value if index < len(cls.argument_names) else _option_value(value)
                 for index, value in enumerate(positional)]
    return cls(*converted, **keywords)


def _constraints(arguments: argparse.Namespace) -> list[Any]:
    collected = getattr(arguments, "constraints", None) or []
    if not collected:
        raise CommandLineError("derive needs at least one constraint, e.g. --support 0 24 "
                               f"(see `{PROG} derive --help`)")
    return [_build_constraint(cls, flag, tokens) for cls, flag, tokens in collected]


# ---------------------------------------------------------------------------
# reporting a derived distribution


def distribution_record(distribution: Any) -> dict[str, Any]:
    """The JSON view of a captime distribution (expressions as sympy-readable strings)."""
    import sympy

    utility = distribution.utility().expr
    return {
        "name": getattr(distribution, "name", None),
        "constraints": [repr(c) for c in distribution.constraints],
        "support": [str(end) for end in distribution.support],
        "parameters": [s.name for s in distribution.parameters],
        "pdf": str(distribution.pdf),
        "cdf": str(distribution.cdf),
        "sf": str(distribution.sf),
        "utility": str(utility),
        "multipliers": {str(k): str(v) for k, v in distribution.multipliers.items()},
        "closed_form": bool(distribution.closed_form),
        # the inequality constraints that bind (null when that depends on symbolic parameters)
        "active": None if distribution.active is None else [repr(c) for c in distribution.active],
        "latex": {
            "pdf": sympy.latex(distribution.pdf),
            "cdf": sympy.latex(distribution.cdf),
            "sf": sympy.latex(distribution.sf),
            "utility": sympy.latex(utility),
        },
    }


def _print_distribution(distribution: Any, arguments: argparse.Namespace, out: Any) -> None:
    if arguments.json:
        json.dump(distribution_record(distribution), out, indent=2)
        out.write("\n")
        return
    import sympy

    utility = distribution.utility().expr
    if arguments.latex:
        print(f"f(\\kappa) = {sympy.latex(distribution.pdf)}", file=out)
        print(f"F(\\kappa) = {sympy.latex(distribution.cdf)}", file=out)
        print(f"u(t) = 1 - F(t) = {sympy.latex(utility)}", file=out)
        return
    name = getattr(distribution, "name", None)
    if name:
        print(f"family: {name}", file=out)
    print(f"constraints: {', '.join(map(repr, distribution.constraints))}", file=out)
    if distribution.active_cases:
        for condition, active in distribution.active_cases:
            where = "" if condition is True or str(condition) == "True" else f" where {condition}"
            print(f"active bounds{where}: {', '.join(map(repr, active)) or 'none'}", file=out)
    print("multipliers: " + ("exact (closed form)" if distribution.closed_form
                             else "solved numerically"), file=out)
    for symbol, value in distribution.multipliers.items():
        print(f"  {symbol} = {value}", file=out)
    for title, expr in (("pdf f(kappa) =", distribution.pdf),
                        ("CDF F(kappa) =", distribution.cdf),
                        ("utility u(t) = 1 - F(t) =", utility)):
        print(f"\n{title}", file=out)
        for line in _pretty(expr, out).splitlines():
            print(f"  {line}", file=out)


def _add_output_flags(parser: argparse.ArgumentParser) -> None:
    output = parser.add_mutually_exclusive_group()
    output.add_argument("--latex", action="store_true", help="print the pdf, CDF and utility in LaTeX")
    output.add_argument("--json", action="store_true",
                        help="print JSON: pdf, cdf, sf, utility, multipliers, closed_form, latex "
                             "(expressions in kappa and t, read by the safe expression reader)")


def _timeout_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--timeout", type=_positive_float, default=None, metavar="SECONDS",
                        help="time allowed for the whole derivation (the symbolic attempt, then "
                             "the numeric fallback)")


def _command_derive(arguments: argparse.Namespace, out: Any) -> int:
    from .maxent import derive

    constraints = _constraints(arguments)
    keywords = {} if arguments.timeout is None else {"timeout": arguments.timeout}
    _print_distribution(derive(*constraints, method=arguments.method, **keywords), arguments, out)
    return 0


def _command_family(arguments: argparse.Namespace, out: Any) -> int:
    from . import families
    from .errors import UtilityError, argument_message

    if arguments.name is None:
        for name, parameters in families.FAMILIES.items():
            print(f"{name}({', '.join(parameters)})", file=out)
        return 0
    name = arguments.name.lower().replace("-", "_")
    if name not in families.FAMILIES:
        raise UtilityError(argument_message("NAME", f"{PROG} family",
                                            f"one of {', '.join(families.FAMILIES)}", arguments.name))
    expected = families.FAMILIES[name]
    if len(arguments.params) != len(expected):
        raise UtilityError(argument_message(
            "PARAMS", f"{PROG} family {name}", f"{len(expected)} value(s) ({' '.join(expected)})",
            " ".join(arguments.params)))
    distribution = getattr(families, name)(*arguments.params)
    _print_distribution(distribution, arguments, out)
    return 0


# ---------------------------------------------------------------------------
# utilities and runtime data


def _rules(specs: Sequence[str], pars: Sequence[float], solved: bool, progress: bool | None
           ) -> dict[str, Any]:
    from .ranking import PAR, Solved, parse_rule

    rules: dict[str, Any] = {}
    show = _show_progress(progress, len(specs))
    started = time.perf_counter()
    for index, spec in enumerate(specs, start=1):
        _progress(show, f"[{index}/{len(specs)}] deriving {spec.strip()} "
                        f"({time.perf_counter() - started:.1f} s)")
        rule = parse_rule(spec)
        name = getattr(rule, "name", None) or spec.strip()
        rules[name] = rule
    for k in pars:
        rule = PAR(k)
        rules[rule.name] = rule
    if solved:
        rules[Solved.name] = Solved()
    return rules


def _runtime_source(arguments: argparse.Namespace) -> tuple[Any, str, str | None]:
    """FILE as the readers take it: a path, or for ``-`` standard input read whole.

    Also the format FILE is read as, when ``--format`` or the content tells it
    (needed to know which reader options apply); None if FILE does not exist.
    """
    from .io import STREAM_FORMATS, guess_format, sniff_format
    from .io.limits import read_stream
    from .io.table import NamedBytes

    fmt = arguments.format
    if arguments.file == "-":
        stream = sys.stdin.buffer if sys.stdin is not None else None
        # read within --read-limit max_bytes: `rank - < /dev/zero` stops there
        data = read_stream(stream, "<stdin>", PROG, _read_limits(arguments)) \
            if stream is not None else b""
        guessed = fmt or sniff_format(data[:1 << 16])
        if guessed not in STREAM_FORMATS:
            raise CommandLineError(f"standard input (FILE -) is read as {guessed} data; "
                                   f"only {', '.join(STREAM_FORMATS)} data can come from it "
                                   "(give an ASlib scenario as a path)")
        return NamedBytes(data, "<stdin>"), "<stdin>", guessed
    path = Path(arguments.file)
    if fmt is None and path.exists():
        fmt = guess_format(path)
    return path, str(path), fmt


def _read_limits(arguments: argparse.Namespace) -> Any:
    """The readers' limits with the changes of --read-limit NAME=N (None: the defaults)."""
    changes = getattr(arguments, "read_limit", None)
    if not changes:
        return None
    from .io.limits import changed, read_limits

    return changed(read_limits(), dict(changes), "--read-limit")


def _read_limit(text: str) -> tuple[str, int | float]:
    """``--read-limit NAME=N``: a field of ReadLimits and its new value."""
    name, _, value = text.partition("=")
    try:
        number: int | float = float(value) if name.strip() == "max_ratio" else int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected NAME=N, such as max_bytes=1073741824, got {text!r}") from None
    return name.strip(), number


def _reader_options(arguments: argparse.Namespace, guessed: str | None, label: str
                    ) -> dict[str, Any]:
    """The options of the chosen reader that the flags set (--cutoff, --performance, --time)."""
    options: dict[str, Any] = {}
    if arguments.cutoff is not None and guessed in ("satcomp", "aslib", "benchexec"):
        options["cutoff"] = arguments.cutoff
    performance = getattr(arguments, "performance", None)
    if performance is not None:
        if guessed != "aslib":
            raise CommandLineError("--performance names a column of an ASlib scenario; "
                                   f"{label!r} is read as {guessed or 'unknown'!s} data")
        options["performance"] = performance
    time_column = getattr(arguments, "time", None)
    if time_column is not None:
        if guessed != "benchexec":
            raise CommandLineError("--time picks the measured time of BenchExec results; "
                                   f"{label!r} is read as {guessed or 'unknown'!s} data")
        options["time"] = time_column
    return options


def _runtime_table(arguments: argparse.Namespace) -> tuple[Any, str]:
    from .io import read_runs
    from .runs import cap_runs

    if arguments.dataset is not None and arguments.file is not None:
        raise CommandLineError("give either a runtime FILE or --dataset, not both")
    if arguments.dataset is not None and getattr(arguments, "performance", None) is not None:
        raise CommandLineError("--performance goes with an ASlib FILE, not --dataset")
    if arguments.dataset is not None and getattr(arguments, "time", None) is not None:
        raise CommandLineError("--time goes with a BenchExec FILE, not --dataset")
    cutoff = arguments.cutoff
    if arguments.dataset is not None:
        from .datasets import satcomp2021

        table = satcomp2021(DATASETS[arguments.dataset])
        label = arguments.dataset
    elif arguments.file is not None:
        source, label, guessed = _runtime_source(arguments)
        options = _reader_options(arguments, guessed, label)
        table = read_runs(source, format=arguments.format or (guessed if arguments.file == "-"
                                                               else None),
                          limits=_read_limits(arguments), **options)
    else:
        raise CommandLineError("give a runtime FILE or --dataset "
                               f"({' or '.join(DATASETS)})")
    for note in table.attrs.get("notes", []):
        print(f"{PROG}: note: {label}: {_one_line(note)}", file=sys.stderr)
    if cutoff is not None:
        table = cap_runs(table, cutoff, arg="--cutoff", owner=f"{PROG} {label}")
    return table, label


def _fix_greedy_file(arguments: argparse.Namespace) -> None:
    # `--utility A B FILE` hands FILE to --utility (nargs="+"); a trailing value that is
    # neither a call nor an expression in t but an existing path is the runtime file.
    utilities = arguments.utility or []
    if (arguments.file is None and arguments.dataset is None and utilities
            and "(" not in utilities[-1]
            and (utilities[-1] == "-" or os.path.exists(utilities[-1]))):
        arguments.file = utilities.pop()


def _table_and_rules(arguments: argparse.Namespace) -> tuple[Any, str, dict[str, Any]]:
    """The runtime table, its label, and the rules of --utility/--par/--solved (by default the
    tour's utilities and PAR-2)."""
    _fix_greedy_file(arguments)
    table, label = _runtime_table(arguments)
    specs = list(arguments.utility or [])
    pars = list(arguments.par or [])
    if not specs and not pars and not arguments.solved:
        specs, pars = list(TOUR_UTILITIES), [2.0]
    return table, label, _rules(specs, pars, arguments.solved, arguments.progress)


def _ranking(arguments: argparse.Namespace) -> tuple[Any, str]:
    if getattr(arguments, "dask", None) is not None:
        return _dask_ranking(arguments)
    table, label, rules = _table_and_rules(arguments)
    ci = getattr(arguments, "ci", None)
    if ci is None and (getattr(arguments, "resamples", None) is not None
                       or getattr(arguments, "seed", None) is not None):
        raise CommandLineError("--resamples and --seed go with --ci (e.g. --ci 0.95)")
    # loaded once the input is read: a missing or bad file is reported without it
    from .ranking import rank

    return rank(table, rules, bounds=getattr(arguments, "bounds", False),
                duplicates=arguments.duplicates, missing=arguments.missing,
                **_bootstrap_options(arguments)), label


def _dask_ranking(arguments: argparse.Namespace) -> tuple[Any, str]:
    """``rank FILE --dask [ADDRESS]``: the Parquet dataset FILE ranked on a Dask cluster."""
    from ._dask import client, is_parquet_path
    from .ranking import rank

    _fix_greedy_file(arguments)
    if arguments.file is None and is_parquet_path(arguments.dask):  # `rank --dask DATA.parquet`
        arguments.file, arguments.dask = arguments.dask, LOCAL_CLUSTER
    if arguments.dataset is not None or arguments.file is None \
            or not is_parquet_path(arguments.file):
        raise CommandLineError("--dask ranks a Parquet dataset: give a .parquet file or a folder "
                               "of them as FILE")
    for flag, given in (("--cutoff", arguments.cutoff), ("--format", arguments.format),
                        ("--ci", getattr(arguments, "ci", None)),
                        ("--performance", getattr(arguments, "performance", None)),
                        ("--time", getattr(arguments, "time", None))):
        if given is not None:
            raise CommandLineError(f"{flag} does not go with --dask (the Parquet dataset is "
                                   "ranked as it is, partition by partition)")
    specs, pars = list(arguments.utility or []), list(arguments.par or [])
    if not specs and not pars and not arguments.solved:
        specs, pars = list(TOUR_UTILITIES), [2.0]
    rules = _rules(specs, pars, arguments.solved, arguments.progress)
    address = None if arguments.dask == LOCAL_CLUSTER else arguments.dask
    with client(address, f"{PROG} rank --dask", timeout=arguments.dask_timeout):
        return rank(arguments.file, rules, bounds=arguments.bounds,
                    duplicates=arguments.duplicates, missing=arguments.missing), arguments.file


def _bootstrap_options(arguments: argparse.Namespace) -> dict[str, Any]:
    """``ci``, ``resamples`` and ``seed`` for the library, where the command line gave them."""
    options: dict[str, Any] = {}
    for name in ("ci", "resamples", "seed"):
        if getattr(arguments, name, None) is not None:
            options[name] = getattr(arguments, name)
    return options


def _records(frame: Any) -> list[dict[str, Any]]:
    records = []
    for algorithm, row in frame.iterrows():
        record: dict[str, Any] = {"algorithm": str(algorithm)}
        for column, value in row.items():
            if column.endswith(" rank"):
                record[column] = int(value)
            else:
                record[column] = float(value)
        records.append(record)
    return records


def _ranking_text(frame: Any) -> str:
    rules = [c[: -len(" rank")] for c in frame.columns if c.endswith(" rank")]
    shown = {}
    for rule in rules:
        scores = frame[rule].to_numpy(dtype=float)
        decimals = 1 if rule.startswith("PAR") else (0 if rule == "solved" else 4)
        cells = [f"{s:.{decimals}f} ({r})" for s, r in zip(scores, frame[f"{rule} rank"])]
        if f"{rule} lower" in frame.columns:
            cells = [f"{cell} [{lo:.{decimals}f}, {hi:.{decimals}f}]" for cell, lo, hi in
                     zip(cells, frame[f"{rule} lower"], frame[f"{rule} upper"])]
        if f"{rule} ci low" in frame.columns:
            cells = [f"{cell} ci [{lo:.{decimals}f}, {hi:.{decimals}f}]" for cell, lo, hi in
                     zip(cells, frame[f"{rule} ci low"], frame[f"{rule} ci high"])]
        shown[rule] = cells
    import pandas as pd

    view = pd.DataFrame(shown, index=frame.index)
    return view.to_string()


def _top_three(frame: Any) -> list[str]:
    lines = []
    rules = [c[: -len(" rank")] for c in frame.columns if c.endswith(" rank")]
    width = max(len(rule) for rule in rules)
    for rule in rules:
        order = frame[f"{rule} rank"].sort_values(kind="stable")
        podium = ", ".join(f"{int(r)}. {name}" for name, r in order.iloc[:3].items())
        lines.append(f"  {rule:<{width}}  {podium}")
    return lines


def _command_rank(arguments: argparse.Namespace, out: Any) -> int:
    frame, label = _ranking(arguments)
    if arguments.tidy:
        from .ranking import tidy_ranking

        _write_csv(tidy_ranking(frame), out, index=False)
    elif arguments.csv:
        _write_csv(frame, out)
    elif arguments.json:
        json.dump(_records(frame), out, indent=2)
        out.write("\n")
    else:
        print(f"ranking of {label}: score (rank) per rule; utilities count unsolved runs as 0, "
              f"PAR-k is the mean penalised runtime (lower is better)", file=out)
        if arguments.ci is not None:
            print(f"ci [low, high]: {_percent(arguments.ci)} paired bootstrap interval of the "
                  f"score, resampling instances", file=out)
        print(_ranking_text(frame), file=out)
    return 0


# ---------------------------------------------------------------------------
# sweep


def _fixed_parameter(text: str) -> tuple[str, float]:
    """``NAME=VALUE`` of ``--fixed``: a parameter name and a number."""
    match = re.fullmatch(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(\S+)\s*", text)
    if match is None:
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE such as alpha=1; got {text!r}")
    return match.group(1), _number(match.group(2))


def _sweep_inputs(arguments: argparse.Namespace, flag: str) -> tuple[Any, str, dict[str, Any]]:
    """The table, its label and the keywords of ranking_changes and sweep (sweep, plot --sweep)."""
    if arguments.utility or arguments.par or arguments.solved:
        raise CommandLineError(f"--utility, --par and --solved do not go with {flag}: the rule "
                               "is --family with its --parameter swept")
    table, label = _runtime_table(arguments)
    options = dict(_sweep_keywords(arguments, flag), duplicates=arguments.duplicates,
                   missing=arguments.missing)
    return table, label, options


def _sweep_keywords(arguments: argparse.Namespace, flag: str) -> dict[str, Any]:
    """The preset, parameter, grid and fixed parameters of a sweep, checked (sweep, plot --sweep,
    report's sweep section)."""
    if arguments.family is None:
        raise CommandLineError(f"{flag} needs --family (a preset such as pareto) and --from, "
                               "--to")
    if arguments.start is None or arguments.stop is None:
        raise CommandLineError(f"{flag} needs --from and --to (the range of --parameter)")
    if not arguments.start < arguments.stop:
        raise CommandLineError(f"--from must be below --to; got --from {arguments.start:g} "
                               f"--to {arguments.stop:g}")
    fixed: dict[str, Any] = {}
    for name, value in arguments.fixed or []:
        if name in fixed:
            raise CommandLineError(f"argument --fixed: {name} is given twice")
        fixed[name] = value
    return dict(family=arguments.family, parameter=arguments.parameter,
                points=arguments.points, log=arguments.log, **fixed)


def _interval_records(changes: Any, top: int) -> list[dict[str, Any]]:
    """The intervals of ranking_changes as records of the top algorithms; neighbouring
    intervals whose top ``top`` (names and ranks) agree are joined."""
    records: list[dict[str, Any]] = []
    for row in changes.itertuples():
        order, ranks = list(row.order[:top]), list(row.ranks[:top])
        if records and records[-1]["order"] == order and records[-1]["ranks"] == ranks:
            records[-1]["end"] = float(row.end)
            continue
        records.append({"start": float(row.start), "end": float(row.end), "leader": row.leader,
                        "order": order, "ranks": ranks})
    return records


def _command_sweep(arguments: argparse.Namespace, out: Any) -> int:
    from .sweeps import ranking_changes

    _fix_greedy_file(arguments)
    table, label, options = _sweep_inputs(arguments, "sweep")
    bounds = (arguments.start, arguments.stop)
    changes = ranking_changes(table, bounds=bounds, **options)
    parameter = arguments.parameter
    if arguments.csv:
        import pandas as pd

        records = _interval_records(changes, arguments.top)
        frame = pd.DataFrame({"start": [r["start"] for r in records],
                              "end": [r["end"] for r in records],
                              "leader": [r["leader"] for r in records],
                              "order": [";".join(r["order"]) for r in records],
                              "ranks": [";".join(map(str, r["ranks"])) for r in records]})
        _write_csv(frame, out, index=False)
    elif arguments.json:
        json.dump({"data": label, "family": changes.attrs["family"], "parameter": parameter,
                   "top": arguments.top,
                   "intervals": _interval_records(changes, arguments.top)}, out, indent=2)
        out.write("\n")
    else:
        grid = f"{'log' if arguments.log else 'linear'} grid of {arguments.points} points"
        print(f"ranking of {label} under {changes.attrs['family']} as {parameter} runs from "
              f"{arguments.start:g} to {arguments.stop:g} ({grid}; change points refined to "
              f"1e-10 relative); the top {arguments.top} on each interval where they differ:",
              file=out)
        for record in _interval_records(changes, arguments.top):
            podium = ", ".join(f"{rank}. {name}" for name, rank in
                               zip(record["order"], record["ranks"]))
            print(f"  {parameter} in [{record['start']:.6g}, {record['end']:.6g}]: {podium}",
                  file=out)
    return 0


def _plot_sweep(arguments: argparse.Namespace, out: Any) -> int:
    """``plot --sweep``: every algorithm's score against the parameter, leader changes marked."""
    import numpy as np

    from . import plots
    from .sweeps import ranking_changes, sweep

    target = _figure_target(arguments.output or "sweep.png", flag="--output",
                            force=arguments.force, parents=arguments.parents)
    if arguments.t_max is not None:
        raise CommandLineError("--t-max only goes with utility figures, not --sweep")
    _fix_greedy_file(arguments)
    if arguments.file is None and arguments.dataset is None:
        arguments.dataset = "satcomp2021-parallel"
    table, label, options = _sweep_inputs(arguments, "--sweep")
    spacing = np.geomspace if arguments.log else np.linspace
    values = spacing(arguments.start, arguments.stop, arguments.points)
    values[0], values[-1] = arguments.start, arguments.stop
    points_options = {key: options.pop(key) for key in ("points", "log")}
    frame = sweep(table, values=values, **options)
    changes = ranking_changes(table, bounds=(arguments.start, arguments.stop), **options,
                              **points_options)
    figure = plots.plot_sweep(frame, changes=changes, log_x=arguments.log or arguments.log_x,
                              title=f"{label}: {frame.attrs['family']}")
    _save(figure, target, force=arguments.force)
    print(f"wrote {target}", file=out)
    return 0


def _add_sweep_flags(parser: argparse.ArgumentParser, *, required: bool) -> None:
    note = "" if required else " (with --sweep, or in a report its sweep section)"
    parser.add_argument("--family", required=required, default=None, metavar="NAME",
                        help="the preset whose parameter is swept, e.g. pareto" + note)
    parser.add_argument("--parameter", default="kappa0", metavar="NAME",
                        help="the swept parameter (default kappa0)")
    parser.add_argument("--from", dest="start", type=_positive_float, required=required,
                        metavar="VALUE", help="the smallest value of the parameter" + note)
    parser.add_argument("--to", dest="stop", type=_positive_float, required=required,
                        metavar="VALUE", help="the largest value of the parameter" + note)
    parser.add_argument("--fixed", action="append", type=_fixed_parameter, metavar="NAME=VALUE",
                        help="the value of another parameter of the preset, e.g. alpha=1; "
                             "repeatable")
    parser.add_argument("--log", action="store_true",
                        help="scan log-spaced values (default: evenly spaced)")
    parser.add_argument("--points", type=lambda text: _count(text, least=3, most=MAX_POINTS),
                        default=512, metavar="N",
                        help=f"values scanned for changes (default 512, at most {MAX_POINTS})")


# ---------------------------------------------------------------------------
# compare


def _percent(level: float) -> str:
    return f"{100 * level:.10g}%"


def _comparison_inputs(arguments: argparse.Namespace) -> tuple[Any, str, dict[str, Any]]:
    """The table, its label and the rules of ``compare``; the algorithms in arguments.solvers."""
    if arguments.dataset is not None and arguments.file is not None:
        # with --dataset every positional word names an algorithm
        arguments.solvers = [arguments.file, *arguments.solvers]
        arguments.file = None
    if arguments.all and arguments.solvers:
        raise CommandLineError("compare --all takes no algorithm names; got "
                               + " ".join(map(repr, arguments.solvers)))
    if not arguments.all and len(arguments.solvers) != 2:
        raise CommandLineError("compare needs two algorithms A B after the FILE (or --all); got "
                               + (" ".join(map(repr, arguments.solvers)) or "none"))
    _fix_greedy_file(arguments)
    if not (arguments.utility or arguments.par or arguments.solved):
        raise CommandLineError("compare needs a rule: --utility SPEC (or --par K, --solved)")
    table, label = _runtime_table(arguments)
    rules = _rules(list(arguments.utility or []), list(arguments.par or []), arguments.solved,
                   arguments.progress)
    return table, label, rules


def _p_value(value: float) -> str:
    return f"{value:.4g}"


def _comparison_lines(result: Any) -> list[str]:
    a, b = result.a, result.b
    lines = [result.sentence,
             f"  mean {result.rule}: {a} {result.mean_a:.6g}, {b} {result.mean_b:.6g}",
             f"  difference {a} - {b}: {result.difference:.6g}, {_percent(result.level)} "
             f"interval [{result.ci_low:.6g}, {result.ci_high:.6g}] ({result.resamples} "
             "paired bootstrap resamples of the instances)",
             f"  instances: {a} better on {result.a_better}, {b} better on {result.b_better}, "
             f"equal on {result.equal}",
             f"  Wilcoxon signed-rank test: p = {_p_value(result.wilcoxon_p)} (the {result.equal} "
             "equal instances left out, scipy's zero_method='wilcox')",
             f"  sign test: p = {_p_value(result.sign_p)} (binomial test of the "
             f"{result.a_better + result.b_better} instances where they differ)"]
    return lines


def _pairwise_text(frame: Any) -> str:
    import pandas as pd

    view = pd.DataFrame(index=frame.index)
    for column in ("mean a", "mean b", "difference", "ci low", "ci high"):
        view[column] = [f"{value:.4g}" for value in frame[column]]
    for column in ("wilcoxon p", "sign p", "wilcoxon p holm", "sign p holm"):
        view[column] = [_p_value(value) for value in frame[column]]
    view["significant"] = ["yes" if flag else "no" for flag in frame["significant"]]
    return view.to_string()


def _command_compare(arguments: argparse.Namespace, out: Any) -> int:
    from .comparison import compare, pairwise

    table, label, rules = _comparison_inputs(arguments)
    options = dict(_bootstrap_options(arguments), duplicates=arguments.duplicates,
                   missing=arguments.missing)
    level = options.get("ci", 0.95)
    if arguments.all:
        frames = {name: pairwise(table, {name: rule}, **options) for name, rule in rules.items()}
        if arguments.json:
            records = []
            for name, frame in frames.items():
                for (a, b), row in frame.iterrows():
                    records.append({"rule": name, "a": str(a), "b": str(b),
                                    **{column: (bool(value) if column == "significant"
                                                else float(value))
                                       for column, value in row.items()}})
            json.dump(records, out, indent=2)
            out.write("\n")
        elif arguments.csv:
            import pandas as pd

            _write_csv(pd.concat(frames, names=["rule"]), out)
        else:
            for name, frame in frames.items():
                print(f"all pairs of {label} under {name} ({len(frame)} pairs, a ranked above "
                      f"b): mean difference a - b and its {_percent(level)} paired bootstrap "
                      "interval; Wilcoxon signed-rank and sign-test p-values, also Holm-adjusted "
                      f"over the pairs; significant: Holm-adjusted Wilcoxon p < "
                      f"{1 - level:.10g}", file=out)
                print(_pairwise_text(frame), file=out)
        return 0
    first, second = arguments.solvers
    results = [compare(table, first, second, {name: rule}, **options)
               for name, rule in rules.items()]
    if arguments.json:
        json.dump([result.to_dict() for result in results], out, indent=2)
        out.write("\n")
    elif arguments.csv:
        import pandas as pd

        _write_csv(pd.DataFrame([result.to_dict() for result in results]), out, index=False)
    else:
        print(f"{first} against {second} on {label} ({results[0].instances} instances):",
              file=out)
        for result in results:
            print(file=out)
            for line in _comparison_lines(result):
                print(line, file=out)
    return 0


def _command_plan(arguments: argparse.Namespace, out: Any) -> int:
    from .ranking import parse_rule
    from .sampling import plan

    utility = parse_rule(arguments.utility)
    if not hasattr(utility, "expr"):
        raise CommandLineError(f"argument --utility: a sampling plan needs a utility, not the "
                               f"classic rule {arguments.utility!r}")
    result = plan(arguments.epsilon, arguments.delta, utility)
    if arguments.json:
        json.dump({"utility": arguments.utility.strip(), "epsilon": result.epsilon,
                   "delta": result.delta, "runs": result.runs, "captime": result.captime,
                   "min_total_time": result.min_total_time,
                   "max_total_time": result.max_total_time}, out, indent=2)
        out.write("\n")
        return 0
    print(f"utility: {arguments.utility.strip()}   u(t) = {_formula(utility.expr)}", file=out)
    print(f"estimate within epsilon = {result.epsilon:g} with probability >= 1 - delta = "
          f"{1 - result.delta:g}:", file=out)
    print(f"  runs needed:       {result.runs}", file=out)
    print(f"  captime per run:   {result.captime:.6g} s   (u^-1(epsilon/2))", file=out)
    print(f"  total time:        between {result.min_total_time:.6g} s (m u^-1(2 epsilon)) and "
          f"{result.max_total_time:.6g} s (m u^-1(epsilon/2))", file=out)
    return 0


def _inside_current_folder(folder: Path) -> bool:
    try:
        folder.resolve().relative_to(Path.cwd().resolve())
    except ValueError:
        return False
    return True


def _target(path: str | Path, *, flag: str, force: bool, parents: bool) -> Path:
    """A file about to be written, checked before any work is done.

    A directory (or a name ending with a separator) is refused, an existing
    file too unless ``--force``; a missing folder is created when it lies
    inside the current folder or ``--parents`` was given, and refused otherwise.
    """
    text = os.fspath(path)
    target = Path(text)
    if text.endswith(os.sep) or (os.altsep and text.endswith(os.altsep)) or target.is_dir():
        raise CommandLineError(f"argument {flag}: {text!r} is a directory; give a file name such as "
                               f"{str(target / 'out')!r}")
    if target.exists() and not force:
        raise CommandLineError(f"argument {flag}: {text!r} already exists; pass --force to overwrite it")
    folder = target.parent
    if not folder.is_dir():
        if folder.exists() or any(p.exists() and not p.is_dir() for p in folder.parents):
            raise CommandLineError(f"cannot use {text!r}: {str(folder)!r} is not a directory")
        if not parents and not _inside_current_folder(folder):
            raise CommandLineError(f"cannot use {text!r}: the folder {str(folder)!r} does not exist "
                                   "(pass --parents to create it)")
        folder.mkdir(parents=True, exist_ok=True)
    return target


@contextlib.contextmanager
def _written(target: Path, *, force: bool, flag: str, binary: bool = False) -> Iterator[Any]:
    """A file object whose contents replace ``target`` whole, and only when complete.

    Without --force a file that appeared since :func:`_target` looked is refused: nothing is
    overwritten unasked. An interrupt or error leaves the previous file and no temporary one.
    """
    try:
        with atomic_file(target, overwrite=force, binary=binary) as handle:
            yield handle
    except FileExistsError:
        raise CommandLineError(f"argument {flag}: {str(target)!r} already exists; pass --force to "
                               "overwrite it") from None


def _write_text(target: Path, text: str, *, force: bool, flag: str) -> None:
    with _written(target, force=force, flag=flag) as handle:
        handle.write(text)


def _command_export(arguments: argparse.Namespace, out: Any) -> int:
    from .ranking import parse_rule
    try:
        from . import export
    except ImportError as error:  # pragma: no cover - the module ships with the package
        raise CommandLineError(f"export is unavailable: {error}") from None
    flag, path = next((f, p) for f, p in (("--python", arguments.python), ("--c", arguments.c),
                                          ("--latex", arguments.latex_file)) if p is not None)
    target = _target(path, flag=flag, force=arguments.force, parents=arguments.parents)
    utility = parse_rule(arguments.utility)
    if not hasattr(utility, "expr"):
        raise CommandLineError(f"argument --utility: export needs a utility, not the classic rule "
                               f"{arguments.utility!r}")
    if flag == "--python":
        export.export_python(utility, target, overwrite=arguments.force)
    elif flag == "--c":
        _write_text(target, export.export_c(utility), force=arguments.force, flag=flag)
    else:
        distribution = getattr(utility, "distribution", None)
        # a file is meant to be compiled: a standalone document
        text = export.derivation(distribution if distribution is not None else utility,
                                 document=True)
        _write_text(target, text if text.endswith("\n") else text + "\n", force=arguments.force, flag=flag)
    print(f"wrote {target}", file=out)
    return 0


def _figure_target(path: str | Path, *, flag: str, force: bool, parents: bool) -> Path:
    """Where a figure goes: a name without a suffix gets .png (said out loud in "wrote ...")."""
    text = os.fspath(path)
    target = Path(text)
    if not (text.endswith(os.sep) or (os.altsep and text.endswith(os.altsep)) or target.is_dir()) \
            and not target.suffix:
        text = str(target.with_suffix(".png"))  # what matplotlib would do
    from . import plots

    plots.require_matplotlib()
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    formats = FigureCanvasAgg.get_supported_filetypes()
    suffix = Path(text).suffix
    if suffix and suffix[1:].lower() not in formats:
        raise CommandLineError(f"cannot write a figure as {suffix!r}; use one of "
                               f"{', '.join('.' + f for f in sorted(formats))}")
    return _target(text, flag=flag, force=force, parents=parents)


def _save(figure: Any, target: Path, *, force: bool = False, flag: str = "--output") -> Path:
    """Write a figure checked by :func:`_figure_target`, never over a file that appeared meanwhile."""
    with _written(target, force=force, flag=flag, binary=True) as handle:
        figure.savefig(handle, format=target.suffix[1:].lower(), dpi=150,
                       bbox_inches="tight")  # long names drawn outside the axes
    return target


def _command_plot(arguments: argparse.Namespace, out: Any) -> int:
    from . import plots

    if arguments.sweep:
        return _plot_sweep(arguments, out)
    if arguments.race:
        return _plot_race(arguments, out)
    if any(getattr(arguments, name) is not None for name in ("delta", "k0", "captime", "seed")):
        raise CommandLineError("--delta, --k0, --captime and --seed only go with --race")
    if arguments.family is not None or arguments.start is not None or arguments.stop is not None:
        raise CommandLineError("--family, --from and --to only go with --sweep")
    if arguments.cactus or arguments.survival:
        return _plot_runs(arguments, out)
    target = _figure_target(arguments.output or ("ranking.png" if arguments.ranking else "utilities.png"),
                            flag="--output", force=arguments.force, parents=arguments.parents)
    if arguments.ranking:
        frame, label = _ranking(arguments)
        figure = plots.plot_ranking(frame, title=f"Rankings of {label}")
        _save(figure, target, force=arguments.force)
    else:
        if arguments.file is not None or arguments.dataset is not None:
            raise CommandLineError("a runtime FILE or --dataset only goes with --ranking")
        if arguments.par or arguments.solved or arguments.cutoff is not None:
            raise CommandLineError("--par, --solved and --cutoff only go with --ranking")
        utilities = _overlay_utilities(arguments.utility or list(plots.PAPER_UTILITIES), arguments.progress)
        t_max = arguments.t_max
        if t_max is None and not arguments.utility:
            t_max = _PAPER_T_MAX
        figure = plots.plot_utilities(utilities, t_max=t_max, log_x=arguments.log_x)
        _save(figure, target, force=arguments.force)
    print(f"wrote {target}", file=out)
    return 0


def _overlay_utilities(specs: Sequence[str], progress: bool | None) -> dict[str, Any]:
    """The utilities of --utility SPEC to draw (classic rules are no curve)."""
    from .ranking import parse_rule

    show = _show_progress(progress, len(specs))
    utilities = {}
    for index, spec in enumerate(specs, start=1):
        _progress(show, f"[{index}/{len(specs)}] deriving {spec.strip()}")
        rule = parse_rule(spec)
        if not hasattr(rule, "expr"):
            raise CommandLineError(f"argument --utility: cannot draw the classic rule {spec!r}")
        utilities[spec.strip()] = rule
    return utilities


def _plot_runs(arguments: argparse.Namespace, out: Any) -> int:
    """``plot --cactus`` and ``plot --survival``: the runs of a runtime file or data set."""
    from . import plots

    kind = "cactus" if arguments.cactus else "survival"
    target = _figure_target(arguments.output or f"{kind}.png", flag="--output",
                            force=arguments.force, parents=arguments.parents)
    if arguments.par or arguments.solved:
        raise CommandLineError(f"--par and --solved only go with --ranking; --{kind} overlays "
                               "the utilities given with --utility")
    if arguments.t_max is not None or arguments.log_x:
        raise CommandLineError(f"--t-max and --log-x only go with utility figures, not --{kind}")
    table, label = _runtime_table(arguments)
    utilities = _overlay_utilities(arguments.utility or [], arguments.progress)
    if kind == "cactus":
        figure = plots.plot_cactus(table, utility=utilities or None, title=f"Cactus plot of {label}")
    else:
        figure = plots.plot_survival(table, utility=utilities or None,
                                     title=f"Runs still running, {label}")
    _save(figure, target, force=arguments.force)
    print(f"wrote {target}", file=out)
    return 0


def _data_source(arguments: argparse.Namespace) -> tuple[Any, str | None, list[str]]:
    """The file behind the runtime table, its format, and what was done to it (for the report)."""
    notes = []
    if arguments.dataset is not None:
        from . import datasets

        track = DATASETS[arguments.dataset]
        # the bundled file itself, so that its sha256 is on the page
        resource = datasets.satcomp2021_file(track)
        source: Any = Path(str(resource)) if Path(str(resource)).is_file() else None
        fmt: str | None = "satcomp"
        notes.append(f"The bundled data set {arguments.dataset}: the SAT Competition 2021 "
                     f"{track} track, read with a {datasets.SATCOMP2021_CUTOFF:g} s cutoff "
                     "(see maxent_util/datasets/data/SOURCE.md for the source and citation).")
    elif arguments.file == "-":
        source, fmt = None, arguments.format
        notes.append("Read from standard input (no file to name or hash).")
    else:
        from .io import guess_format

        source = Path(arguments.file)
        fmt = arguments.format
        if fmt is None:
            fmt = "aslib" if source.is_dir() else guess_format(source)
    if arguments.cutoff is not None:
        notes.append(f"Every run re-capped at {arguments.cutoff:g} s (--cutoff): runs at or past "
                     "it count as capped.")
    return source, fmt, notes


def _command_report(arguments: argparse.Namespace, out: Any) -> int:
    from .report import write_report

    target = _target(arguments.output, flag="--output", force=arguments.force,
                     parents=arguments.parents)
    if arguments.title is not None and not _utf8(arguments.title):
        raise CommandLineError(f"argument --title: expected text in UTF-8, the page's encoding; "
                               f"got {arguments.title!r} (bytes of another encoding)")
    table, label, rules = _table_and_rules(arguments)
    source, fmt, notes = _data_source(arguments)
    sweep = None
    if arguments.family is not None:
        sweep = dict(_sweep_keywords(arguments, "report's sweep section"),
                     bounds=(arguments.start, arguments.stop))
    write_report(table, target, rules=rules, overwrite=arguments.force, source=source,
                 label=label, format=fmt, notes=notes, title=arguments.title,
                 duplicates=arguments.duplicates, missing=arguments.missing, sweep=sweep,
                 **_bootstrap_options(arguments))
    print(f"wrote {target}", file=out)
    return 0


def _command_tour(arguments: argparse.Namespace, out: Any) -> int:
    from . import plots
    from .datasets import satcomp2021
    from .families import parse_family
    from .ranking import PAR, rank

    started = time.perf_counter()
    folder = Path(arguments.out)
    if folder.exists() and not folder.is_dir():
        raise CommandLineError(f"argument --out: {str(folder)!r} is a file, not a folder")
    # both figures are checked before any work: an existing one stops the tour at once; the
    # folder itself is made as asked, its missing parents only with --parents
    parents = arguments.parents or folder.parent.is_dir()
    targets = {name: _target(folder / f"{name}.png", flag="--out", force=arguments.force,
                             parents=parents) for name in ("utilities", "ranking")}
    print("1. The paper's seven captime families (kappa0 = 24 s), each derived by maximum entropy "
          "from its constraints;\n   the utility of a run of length t is u(t) = 1 - F(t):", file=out)
    utilities = {}
    width = max(len(spec) for spec in plots.PAPER_UTILITIES)
    for spec in plots.PAPER_UTILITIES:
        distribution = parse_family(spec)
        utility = distribution.utility().with_name(spec)
        utilities[spec] = utility
        constraints = ", ".join(map(repr, distribution.constraints))
        print(f"   {spec:<{width}}  u(t) = {_formula(utility.expr)}", file=out)
        print(f"   {'':<{width}}    from {constraints}", file=out)

    print("\n2. SAT Competition 2021, parallel track (9 solvers, 400 instances, 5000 s limit), "
          "ranked under five utilities and PAR-2\n   (score (rank); a utility's score is the mean "
          "u(t) with unsolved runs at 0, PAR-2 the mean penalised runtime):", file=out)
    rules: dict[str, Any] = {spec: parse_family(spec).utility() for spec in TOUR_UTILITIES}
    rules["PAR-2"] = PAR(2)
    frame = rank(satcomp2021("parallel"), rules)
    for line in _ranking_text(frame).splitlines():
        print(f"   {line}", file=out)
    print("\n   Top three under each rule:", file=out)
    for line in _top_three(frame):
        print(f"  {line}", file=out)
    podiums = {tuple(frame[f"{rule} rank"].sort_values(kind="stable").index[:3]) for rule in rules}
    print(f"   {len(podiums)} different top-three rankings from {len(rules)} rules.", file=out)

    print("\n3. Figures:", file=out)
    utilities_png = _save(plots.plot_utilities(utilities, t_max=_PAPER_T_MAX,
                                               title="Utilities of the seven captime families, "
                                                     "kappa0 = 24 s"),
                          targets["utilities"], force=arguments.force, flag="--out")
    ranking_png = _save(plots.plot_ranking(frame, title="SAT Competition 2021, parallel track"),
                        targets["ranking"], force=arguments.force, flag="--out")
    print(f"   {utilities_png}", file=out)
    print(f"   {ranking_png}", file=out)
    print(f"\nDone in {time.perf_counter() - started:.1f} s. Next: `{PROG} --help`.", file=out)
    return 0


# ---------------------------------------------------------------------------
# race


_probability_value = _strictly_between_0_and_1("a probability", "0.05")


def _race_inputs(arguments: argparse.Namespace, spec: str) -> tuple[Any, str, Any, Any]:
    """The runner of the runs table, its label, the utility of SPEC and Naive's captime."""
    from .racing import TableRunner
    from .ranking import parse_rule

    table, label = _runtime_table(arguments)
    utility = parse_rule(spec)
    if not hasattr(utility, "expr"):
        raise CommandLineError(f"argument --utility: a race needs a utility, not the classic "
                               f"rule {spec!r}")
    runner = TableRunner(table, duplicates=arguments.duplicates, missing=arguments.missing)
    captime = arguments.captime if arguments.captime is not None else runner.max_captime
    if captime > runner.max_captime:
        raise CommandLineError(f"argument --captime: {captime:g} s is above the cutoff of "
                               f"{label} ({runner.max_captime:g} s)")
    return runner, label, utility, captime


def _race_progress(show: bool) -> Any:
    """A function printing one carriage-return line per round on stderr (None if not shown)."""
    if not show:
        return None

    def line(row: dict[str, Any]) -> None:
        print(f"\rm = {row['m']}, survivors {row['survivors']}, epsilon* {row['epsilon']:.4f}, "
              f"time {row['total_time']:.4g} s ", end="", file=sys.stderr, flush=True)

    return line


def _duration(seconds: float) -> str:
    if seconds >= 2 * 86400:
        return f"{seconds:.4g} s ({seconds / 86400:.1f} days)"
    if seconds >= 2 * 3600:
        return f"{seconds:.4g} s ({seconds / 3600:.1f} hours)"
    return f"{seconds:.4g} s"


def _command_race(arguments: argparse.Namespace, out: Any) -> int:
    from .racing import naive, up

    if arguments.naive and arguments.epsilon is None:
        raise CommandLineError("--naive needs --epsilon (the accuracy Naive is sized for)")
    runner, label, utility, captime = _race_inputs(arguments, arguments.utility)
    spec = arguments.utility.strip()
    if arguments.naive:
        found = naive(runner, None, None, utility, arguments.epsilon, arguments.delta, captime,
                      seed=arguments.seed)
        record = {"procedure": "naive", "data": label, "utility": spec, "delta": found.delta,
                  "epsilon": found.epsilon, "captime": found.captime, "m": found.m,
                  "configurations": len(runner.configs), "incumbent": str(found.configuration),
                  "total_time": found.total_time}
        if arguments.json:
            json.dump(record, out, indent=2)
            out.write("\n")
        elif arguments.csv:
            _write_csv(found.means.rename("mean_utility"), out)
        else:
            print(f"Naive on {label} under {spec}: each of {len(runner.configs)} configurations "
                  f"ran on m = {found.m} instances at captime {found.captime:g} s", file=out)
            print(f"best: {found.configuration} (mean utility "
                  f"{float(found.means.max()):.4f}), within epsilon = {found.epsilon:g} of the "
                  f"best with probability at least {1 - found.delta:g}", file=out)
            print(f"total time of runs: {_duration(found.total_time)}", file=out)
        return 0
    show = arguments.progress if arguments.progress is not None else sys.stderr.isatty()
    trace = up(runner, None, None, utility, arguments.delta, k0=arguments.k0,
               epsilon_min=arguments.epsilon or 0.0, budget=arguments.budget,
               seed=arguments.seed, progress=_race_progress(show))
    if show:
        print(file=sys.stderr)
    if arguments.csv:
        _write_csv(trace, out, index=False)
        return 0
    last = trace.iloc[-1]
    if arguments.json:
        json.dump({"procedure": "up", "data": label, "utility": spec, "delta": arguments.delta,
                   "k0": arguments.k0, "seed": arguments.seed, "stopped": trace.attrs["stopped"],
                   "m": int(last["m"]), "incumbent": str(last["incumbent"]),
                   "epsilon": float(last["epsilon"]), "survivors": int(last["survivors"]),
                   "total_time": float(last["total_time"]),
                   "trace": json.loads(trace.to_json(orient="records"))}, out, indent=2)
        out.write("\n")
        return 0
    print(f"UP on {label} under {spec}, delta = {arguments.delta:g} (k0 = {arguments.k0:g} s, "
          f"seed {arguments.seed}): stopped after m = {int(last['m'])} instances "
          f"({trace.attrs['stopped']})", file=out)
    print(f"incumbent: {last['incumbent']}, within epsilon* = {last['epsilon']:.4f} of the best "
          f"with probability at least {1 - arguments.delta:g}", file=out)
    print(f"configurations left: {int(last['survivors'])} of {len(runner.configs)}; captimes "
          f"{last['captime_min']:g} to {last['captime_max']:g} s; total time of runs "
          f"{_duration(float(last['total_time']))}", file=out)
    return 0


def _plot_race(arguments: argparse.Namespace, out: Any) -> int:
    """``plot --race``: epsilon* and survivors against the time spent, UP and Naive."""
    import numpy as np

    from . import plots
    from .racing import naive_curve, up

    target = _figure_target(arguments.output or "race.png", flag="--output",
                            force=arguments.force, parents=arguments.parents)
    _fix_greedy_file(arguments)
    if arguments.delta is None or not arguments.utility or len(arguments.utility) != 1:
        raise CommandLineError("--race needs one --utility SPEC and --delta D")
    if arguments.par or arguments.solved or arguments.t_max is not None:
        raise CommandLineError("--par, --solved and --t-max do not go with --race")
    if arguments.file is None and arguments.dataset is None:
        arguments.dataset = "satcomp2021-parallel"
    runner, label, utility, captime = _race_inputs(arguments, arguments.utility[0])
    k0 = 1.0 if arguments.k0 is None else arguments.k0
    seed = 0 if arguments.seed is None else arguments.seed
    trace = up(runner, None, None, utility, arguments.delta, k0=k0, seed=seed)
    curve = naive_curve(runner, None, None, utility, arguments.delta, captime,
                        np.round(np.arange(0.05, 1.0, 0.05), 2), seed=seed)
    figure = plots.plot_race(trace, curve, title=f"{label}: {arguments.utility[0].strip()}, "
                                                 f"delta = {arguments.delta:g} (Naive at "
                                                 f"captime {captime:g} s)")
    _save(figure, target, force=arguments.force)
    print(f"wrote {target}", file=out)
    return 0


def _add_race_flags(parser: argparse.ArgumentParser, *, plot: bool) -> None:
    note = " (with --race)" if plot else ""
    parser.add_argument("--delta", type=_probability_value, required=not plot, default=None,
                        metavar="D", help="the probability that the guarantee fails" + note)
    parser.add_argument("--k0", type=_positive_float, default=None if plot else 1.0,
                        metavar="SECONDS", help="UP's first captime (default 1 s)" + note)
    parser.add_argument("--captime", type=_positive_float, default=None, metavar="SECONDS",
                        help="Naive's captime (default the data's cutoff)" + note)
    parser.add_argument("--seed", type=_nonnegative_int, default=None if plot else 0, metavar="S",
                        help="seed of the random order of the instances (default 0)" + note)


# ---------------------------------------------------------------------------
# the parser


def _add_ranking_inputs(parser: argparse.ArgumentParser, *, default_note: str) -> None:
    parser.add_argument("file", nargs="?", metavar="FILE",
                        help="runtime data: a SAT Competition CSV (2020 to 2024 layouts), a long "
                             "CSV, an ASlib algorithm_runs.arff (or scenario folder), BenchExec "
                             "result XML (or a folder of it); - reads standard input")
    parser.add_argument("--dataset", choices=sorted(DATASETS), default=None,
                        help="use bundled data instead of FILE")
    parser.add_argument("--format", choices=("satcomp", "long", "aslib", "benchexec"),
                        default=None, help="format of FILE (by default told from its content)")
    parser.add_argument("--utility", action="extend", nargs="+", metavar="SPEC",
                        help="a preset such as 'pareto(5, 3)', an expression in t such as "
                             f"'exp(-t/10)', 'PAR-2' or 'solved'; repeatable. {default_note}")
    parser.add_argument("--par", action="append", type=_positive_float, metavar="K",
                        help="add PAR-K (penalised average runtime); repeatable")
    parser.add_argument("--solved", action="store_true", help="add the number of solved runs")
    parser.add_argument("--cutoff", type=_positive_float, metavar="SECONDS",
                        help="treat every run as stopped at this time (runs at or past it are "
                             "unsolved); refused if above a cutoff the data already has; needed "
                             "for files that state none (2020 and 2021 SAT Competition layouts)")
    _read_limit_flag(parser)
    parser.add_argument("--performance", metavar="NAME", default=None,
                        help="the ASlib attribute to read as runtimes (default: the measure "
                             "description.txt types as runtime)")
    parser.add_argument("--time", choices=("cputime", "walltime"), default=None,
                        help="the measured time of BenchExec results read as the runtime "
                             "(default cputime)")
    parser.add_argument("--duplicates", choices=("raise", "mean", "first"), default="raise",
                        help="several runs of one algorithm on one instance: refuse (default), "
                             "average them, or keep the first")
    parser.add_argument("--missing", choices=("raise", "unsolved"), default="raise",
                        help="algorithms run on different instances: refuse (default), or count "
                             "a missing run as capped at the cutoff")
    _progress_flags(parser)


def _read_limit_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--read-limit", action="append", type=_read_limit, metavar="NAME=N",
                        help="raise (or lower) a limit of the file readers: max_bytes, "
                             "max_decompressed_bytes, max_ratio, max_columns, max_cell_chars "
                             "(see docs/safety.md); repeatable")


def _bootstrap_flags(parser: argparse.ArgumentParser, *, ci: float | None, resamples: int = 10_000,
                     seed: str = "fresh") -> None:
    if ci is None:
        parser.add_argument("--ci", type=_level, default=None, metavar="LEVEL",
                            help="add a paired bootstrap interval of every score at this "
                                 "confidence level, e.g. 0.95 (resampling instances)")
    else:
        parser.add_argument("--ci", type=_level, default=ci, metavar="LEVEL",
                            help=f"confidence level of the intervals and tests (default {ci:g})")
    parser.add_argument("--resamples", type=lambda text: _count(text, least=1, most=MAX_RESAMPLES),
                        default=None, metavar="N",
                        help=f"bootstrap resamples (default {resamples}, at most {MAX_RESAMPLES})")
    parser.add_argument("--seed", type=_nonnegative_int, default=None, metavar="S",
                        help=f"seed of the resamples, for results that repeat (default: {seed})")


def _progress_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--progress", action="store_true", default=None,
                        help="report each derivation on stderr (default: when stderr is a "
                             "terminal and there are more than three)")
    parser.add_argument("--no-progress", action="store_false", dest="progress")


def _file_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--force", action="store_true", help="overwrite files that exist")
    parser.add_argument("--parents", action="store_true",
                        help="create missing folders of the target (folders inside the current one "
                             "are created without it)")


def build_parser(*, constraint_flags: bool = True) -> argparse.ArgumentParser:
    """The argument parser of ``maxent-util``.

    The derive flags come from the constraint registry, which loads sympy;
    ``constraint_flags=False`` leaves them out, for commands other than ``derive``
    (``maxent-util --help`` and ``--version`` then load no scientific library).
    """

    parser = _Parser(prog=PROG, description="Maximum-entropy utilities for algorithm runtimes "
                                            "(Graham, Leyton-Brown and Roughgarden, ICML 2023).")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    derive = commands.add_parser("derive", formatter_class=_HelpFormatter, help="derive the maximum-entropy captime law of constraints",
                                 description="Derive the maximum-entropy captime distribution of the "
                                             "given constraints and its utility u(t) = 1 - F(t).")
    if constraint_flags:
        _add_constraint_flags(derive)
    _add_output_flags(derive)
    _timeout_flag(derive)
    derive.add_argument("--method", choices=("auto", "symbolic", "numeric"), default="auto",
                        help="how to find the multipliers: closed form first, then numerics (auto); "
                             "closed form only (symbolic); numerics only (numeric)")
    derive.set_defaults(handler=_command_derive)

    family = commands.add_parser("family", help="one of the paper's seven presets",
                                 description="Derive one of the paper's presets; without NAME, list "
                                             "them with their parameters.")
    family.add_argument("name", nargs="?", metavar="NAME")
    family.add_argument("params", nargs="*", metavar="PARAMS",
                        help="the preset's parameters (numbers or names for symbolic ones)")
    _add_output_flags(family)
    family.set_defaults(handler=_command_family)

    ranking = commands.add_parser("rank", help="rank algorithms on runtime data",
                                  description="Score and rank algorithms under utilities and "
                                              "classic rules.")
    _add_ranking_inputs(ranking, default_note="Default: " + ", ".join(TOUR_UTILITIES) + " and PAR-2.")
    ranking.add_argument("--bounds", action="store_true",
                         help="also give each utility's score with capped runs counting u(cutoff) "
                              "(upper) and 0 (lower)")
    _bootstrap_flags(ranking, ci=None)
    ranking.add_argument("--dask", nargs="?", const=LOCAL_CLUSTER, default=None,
                         metavar="SCHEDULER_ADDRESS",
                         help="rank a Parquet dataset FILE partition by partition with Dask (the "
                              "dask extra): on a local cluster, or on the running "
                              "dask.distributed scheduler at SCHEDULER_ADDRESS "
                              "(tcp://host:8786)")
    ranking.add_argument("--dask-timeout", type=_positive_float, default=None, metavar="SECONDS",
                         help="seconds the scheduler at SCHEDULER_ADDRESS has to answer "
                              "(default 10)")
    formats = ranking.add_mutually_exclusive_group()
    formats.add_argument("--csv", action="store_true", help="print the full table as CSV")
    formats.add_argument("--json", action="store_true", help="print the full table as JSON records")
    formats.add_argument("--tidy", action="store_true",
                         help="print a long CSV: one row per algorithm and rule (algorithm, rule, "
                              "score, rank, and lower, upper with --bounds)")
    ranking.set_defaults(handler=_command_rank)

    sweeping = commands.add_parser(
        "sweep", help="for which values of a utility's parameter is A ahead of B?",
        description="Rank algorithms under a preset at every value of one of its parameters "
                    "between --from and --to: the values where the order changes (refined to "
                    "1e-10 relative) and the ranking on each interval between them.")
    _add_ranking_inputs(sweeping, default_note="Not used here: give --family.")
    _add_sweep_flags(sweeping, required=True)
    sweeping.add_argument("--top", type=_positive_int, default=3, metavar="N",
                          help="algorithms shown per interval (default 3); intervals where these agree are "
                               "joined, so a large N shows every change of the order")
    formats = sweeping.add_mutually_exclusive_group()
    formats.add_argument("--csv", action="store_true",
                         help="print the intervals as CSV (start, end, leader, order, ranks)")
    formats.add_argument("--json", action="store_true", help="print the intervals as JSON")
    sweeping.set_defaults(handler=_command_sweep)

    comparing = commands.add_parser(
        "compare", help="is one algorithm really ahead of another? (paired tests, bootstrap)",
        description="Compare two algorithms A and B instance by instance under each rule: the "
                    "mean difference with a paired bootstrap interval, the Wilcoxon signed-rank "
                    "and sign tests, in one sentence and in numbers; with --all, every pair, "
                    "with Holm-adjusted p-values. Put FILE A B before the options.")
    _add_ranking_inputs(comparing, default_note="Give at least one rule.")
    comparing.add_argument("solvers", nargs="*", metavar="A B",
                           help="the two algorithms (with --dataset, the only positional words)")
    comparing.add_argument("--all", action="store_true", help="compare every pair of algorithms")
    _bootstrap_flags(comparing, ci=0.95)
    formats = comparing.add_mutually_exclusive_group()
    formats.add_argument("--csv", action="store_true", help="print the results as CSV")
    formats.add_argument("--json", action="store_true", help="print the results as JSON records")
    comparing.set_defaults(handler=_command_compare)

    racing = commands.add_parser(
        "race", help="find the best algorithm by utility without running everything (UP, Naive)",
        description="Replay a runs table as a race (Graham, Leyton-Brown and Roughgarden, "
                    "Utilitarian Algorithm Configuration, NeurIPS 2023): utilitarian "
                    "procrastination (UP) adds instances one at a time in a random order, drops "
                    "algorithms that are provably worse and doubles captimes only when capped "
                    "runs limit what it knows; it reports the incumbent and epsilon*, within "
                    "which it is of the best with probability at least 1 - D. With --naive, "
                    "every algorithm runs on the same m instances at one captime instead.")
    racing.add_argument("file", nargs="?", metavar="FILE",
                        help="runtime data, as for rank; - reads standard input")
    racing.add_argument("--dataset", choices=sorted(DATASETS), default=None,
                        help="use bundled data instead of FILE")
    racing.add_argument("--format", choices=("satcomp", "long", "aslib", "benchexec"),
                        default=None, help="format of FILE (by default told from its content)")
    racing.add_argument("--utility", required=True, metavar="SPEC",
                        help="the utility, e.g. 'pareto(60, 1)' or 'exp(-t/600)'")
    _add_race_flags(racing, plot=False)
    racing.add_argument("--epsilon", type=_positive_float, default=None, metavar="E",
                        help="UP: stop once epsilon* is at most E; Naive: the accuracy it is "
                             "sized for (required with --naive)")
    racing.add_argument("--naive", action="store_true",
                        help="run the Naive procedure instead of UP")
    racing.add_argument("--budget", type=_positive_float, default=None, metavar="SECONDS",
                        help="UP: stop once this much time of runs is spent")
    racing.add_argument("--cutoff", type=_positive_float, metavar="SECONDS",
                        help="treat every run as stopped at this time (the largest captime)")
    _read_limit_flag(racing)
    racing.add_argument("--duplicates", choices=("raise", "first"), default="raise",
                        help="several runs of one algorithm on one instance: refuse (default) "
                             "or keep the first")
    racing.add_argument("--missing", choices=("raise", "unsolved"), default="raise",
                        help="algorithms run on different instances: refuse (default), or count "
                             "a missing run as capped at the cutoff")
    racing.add_argument("--progress", action="store_true", default=None,
                        help="show m, survivors, epsilon* and time on one line of stderr "
                             "(default: when stderr is a terminal)")
    racing.add_argument("--no-progress", action="store_false", dest="progress")
    formats = racing.add_mutually_exclusive_group()
    formats.add_argument("--csv", action="store_true",
                         help="print UP's trace (Naive: each algorithm's mean) as CSV")
    formats.add_argument("--json", action="store_true", help="print the result as JSON")
    racing.set_defaults(handler=_command_race)

    planning = commands.add_parser("plan", help="runs and captime to estimate a score within epsilon",
                                   description="The estimation theorem's sampling plan (Section 4).")
    planning.add_argument("--epsilon", type=_number, required=True, metavar="E")
    planning.add_argument("--delta", type=_number, required=True, metavar="D")
    planning.add_argument("--utility", required=True, metavar="SPEC")
    planning.add_argument("--json", action="store_true", help="print the plan as JSON")
    planning.set_defaults(handler=_command_plan)

    export = commands.add_parser("export", help="write a utility as Python, C or a LaTeX derivation")
    export.add_argument("--utility", required=True, metavar="SPEC")
    targets = export.add_mutually_exclusive_group(required=True)
    targets.add_argument("--python", metavar="FILE", help="a standalone Python scorer")
    targets.add_argument("--c", metavar="FILE", help="a C function")
    targets.add_argument("--latex", dest="latex_file", metavar="FILE", help="the LaTeX derivation")
    _file_flags(export)
    export.set_defaults(handler=_command_export)

    plot = commands.add_parser("plot", help="draw utilities, a bump chart of rankings, or the runs",
                               description="Draw utility curves (default: the paper's seven families "
                                           "with kappa0 = 24), or with --ranking a bump chart of the "
                                           "ranks of algorithms under each rule, or with --cactus or "
                                           "--survival the runs of a runtime FILE or --dataset.")
    kinds = plot.add_mutually_exclusive_group()
    kinds.add_argument("--ranking", action="store_true", help="draw ranks instead of utilities")
    kinds.add_argument("--cactus", action="store_true",
                       help="draw each algorithm's solved runs, sorted by runtime (the SAT "
                            "Competition's cactus plot); --utility SPEC overlays utilities")
    kinds.add_argument("--survival", action="store_true",
                       help="draw the fraction of each algorithm's runs still running against "
                            "time (log axis; Kaplan-Meier where cutoffs differ); --utility SPEC "
                            "overlays utilities")
    kinds.add_argument("--sweep", action="store_true",
                       help="draw each algorithm's score against --parameter of --family, "
                            "from --from to --to, with the leader's changes marked")
    kinds.add_argument("--race", action="store_true",
                       help="race the algorithms of FILE under one --utility with --delta: "
                            "UP's epsilon* and survivors against the time spent, and Naive's")
    _add_ranking_inputs(plot, default_note="Default: the paper's figure.")
    _add_race_flags(plot, plot=True)
    _add_sweep_flags(plot, required=False)
    plot.add_argument("-o", "--output", metavar="FILE.png",
                      help="where to write (default utilities.png, ranking.png, cactus.png or "
                           "survival.png; .svg and .pdf too)")
    plot.add_argument("--t-max", type=_positive_float, default=None, metavar="SECONDS",
                      help="right end of the runtime axis")
    plot.add_argument("--log-x", action="store_true", help="logarithmic runtime axis")
    _file_flags(plot)
    plot.set_defaults(handler=_command_plot)

    tour = commands.add_parser("tour", help="the whole idea on the bundled SAT Competition data",
                               description="Derive the seven families, rank the SAT Competition 2021 "
                                           "parallel track under five utilities and PAR-2, and draw "
                                           "both figures.")
    tour.add_argument("--out", default="maxent_util_tour", metavar="DIR",
                      help="folder for the figures (default: maxent_util_tour)")
    _file_flags(tour)
    tour.set_defaults(handler=_command_tour)

    report = commands.add_parser(
        "report", help="one self-contained HTML page: rankings, figures, utilities, provenance",
        description="Write one HTML page about runtime data: the rankings under each rule with "
                    "lower and upper scores and paired bootstrap intervals, every pair of "
                    "algorithms compared under the first rule (Wilcoxon and sign tests, "
                    "Holm-adjusted), the bump chart, the cactus and survival plots, each "
                    "utility's formula and constraints, and the data's provenance (file, sha256, "
                    "counts, cutoff, version, date). The page loads nothing from the network.")
    _add_ranking_inputs(report, default_note="Default: " + ", ".join(TOUR_UTILITIES) + " and PAR-2.")
    report.add_argument("-o", "--output", default="report.html", metavar="FILE.html",
                        help="where to write (default report.html)")
    report.add_argument("--title", default=None, help="the page's title")
    _bootstrap_flags(report, ci=0.95, resamples=2000, seed="0")
    _add_sweep_flags(report, required=False)
    _file_flags(report)
    report.set_defaults(handler=_command_report)
    return parser


def _after_plot_defaults(arguments: argparse.Namespace) -> None:
    if arguments.command == "plot" and (arguments.ranking or arguments.cactus or arguments.survival) \
            and arguments.file is None and arguments.dataset is None:
        _fix_greedy_file(arguments)
        if arguments.file is None:
            arguments.dataset = "satcomp2021-parallel"


def _parser_for(words: Sequence[str]) -> argparse.ArgumentParser:
    """The parser for a command line, built once per process and set of constraint kinds.

    main() may run many times in one process (a notebook, a script, the tests): building the
    parser takes longer than parsing, and parsing leaves it unchanged. The derive flags follow
    the registry, so a kind defined later gets its flag.
    """
    if _command_of(words) != "derive":
        return _cached_parser(())
    from .constraints import constraint_kinds

    return _cached_parser(tuple(constraint_kinds().items()))


@functools.lru_cache(maxsize=4)
def _cached_parser(kinds: tuple) -> argparse.ArgumentParser:
    return build_parser(constraint_flags=bool(kinds))


def _command_of(words: Sequence[str]) -> str | None:
    """The subcommand named on the command line (the first word that is not an option)."""
    return next((word for word in words if not word.startswith("-")), None)


class _Output:
    """Standard output as a command writes to it.

    Once the reader has gone (a broken pipe, `| head`) or if there was none (`>&-`), what would
    be printed is dropped and the command carries on, so that the files it writes are still
    written; text the stream cannot encode (a file name of non-UTF-8 bytes) is written with
    backslash escapes instead of failing.
    """

    def __init__(self, stream: Any) -> None:
        self._stream = stream
        self.gone = stream is None or getattr(stream, "closed", False)
        self.encoding = getattr(stream, "encoding", None)

    def _leave(self) -> None:
        self.gone = True
        try:  # the buffered rest would fail again when the interpreter flushes it at exit
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, self._stream.fileno())
            os.close(devnull)
        except (AttributeError, OSError, ValueError):
            pass

    def write(self, text: str) -> int:
        if not self.gone:
            try:
                try:
                    self._stream.write(text)
                except UnicodeEncodeError:
                    encoding = self.encoding or "utf-8"
                    self._stream.write(text.encode(encoding, "backslashreplace").decode(encoding))
            except BrokenPipeError:
                self._leave()
        return len(text)

    def flush(self) -> None:
        if not self.gone:
            try:
                self._stream.flush()
            except BrokenPipeError:
                self._leave()

    def isatty(self) -> bool:
        return not self.gone and self._stream.isatty()


def _show_warning(message: Any, category: type, filename: str, lineno: int, file: Any = None,
                  line: str | None = None) -> None:
    """A warning in one line, without the source line Python would print under it."""
    print(f"{PROG}: warning: {_one_line(str(message))}", file=sys.stderr)


@contextlib.contextmanager
def _interrupts() -> Iterator[list[bool]]:
    """Ctrl-C raises KeyboardInterrupt and is remembered: if the interrupt is swallowed on the
    way (in a __del__ or a gc callback, which only print it), main still exits 130."""
    interrupted: list[bool] = []

    def interrupt(signum: int, frame: Any) -> None:
        interrupted.append(True)
        output.interrupted.set()  # no file is finished after this
        raise KeyboardInterrupt

    try:
        previous = signal.getsignal(signal.SIGINT)
        if previous is not signal.default_int_handler:  # the caller has its own: keep it
            yield interrupted
            return
        signal.signal(signal.SIGINT, interrupt)
    except ValueError:  # not the main thread: no handler can be set there
        yield interrupted
        return
    output.interrupted.clear()
    try:
        yield interrupted
    finally:
        signal.signal(signal.SIGINT, previous)
        output.interrupted.clear()


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``maxent-util`` with ``argv`` (default ``sys.argv[1:]``); return the exit status."""
    out = _Output(sys.stdout)
    if sys.stderr is None or getattr(sys.stderr, "closed", False):
        # started with stderr closed (`2>&-`): messages are dropped, not written to stdout
        sys.stderr = open(os.devnull, "w")  # noqa: SIM115 - lives as long as the process
    with warnings.catch_warnings(), _interrupts() as interrupted:
        # numpy's floating-point RuntimeWarnings say nothing a user can act on (the library
        # checks its numbers itself); any other warning is one line
        warnings.simplefilter("ignore", RuntimeWarning)
        warnings.showwarning = _show_warning
        try:
            status = _run(argv, out)
            out.flush()
        except BrokenPipeError:  # argparse's --help and --version write to sys.stdout itself
            out._stream = sys.stdout
            out._leave()
            status = 0
        except KeyboardInterrupt:
            status = 130
        except Exception as error:  # every failure is one line; bad input is status 2
            status = _report(error)
        if interrupted and status != 130:
            status = 130
        if status == 130:
            print(f"{PROG}: interrupted", file=sys.stderr)
    return status


def _run(argv: Sequence[str] | None, out: _Output) -> int:
    try:
        words = list(sys.argv[1:] if argv is None else argv)
        parser = _parser_for(words)
        arguments = parser.parse_args(words)
        if arguments.command is None:
            parser.print_help(out)
            return 2
        _after_plot_defaults(arguments)
        return arguments.handler(arguments, out)
    except SystemExit as exit_request:  # --help and --version
        return exit_request.code if isinstance(exit_request.code, int) else 0


def _report(error: Exception) -> int:
    from .errors import MaxEntError

    if os.environ.get("MAXENT_UTIL_TRACEBACK"):
        raise error
    if isinstance(error, (CommandLineError, MaxEntError)):
        message, status = str(error), 2
    elif isinstance(error, OSError):
        where = f" {error.filename!r}" if getattr(error, "filename", None) else ""
        message, status = f"cannot use{where}: {error.strerror or error}", 2
    else:
        message = (f"unexpected {type(error).__name__}: {error} "
                   f"(set MAXENT_UTIL_TRACEBACK=1 to see where)")
        status = 1
    print(f"{PROG}: error: {_one_line(message)}", file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main())
