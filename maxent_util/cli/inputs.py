"""Runtime data and rules as the commands read them: FILE, --dataset, --format, --cutoff,
--read-limit, --utility, --par, --solved and the bootstrap flags.
"""

from __future__ import annotations

import argparse
import io
import os
import sys
import time
from pathlib import Path
from typing import Any, Sequence

from .._limits import MAX_RESAMPLES
from ..durations import readable_duration
from .core import (CommandLineError, PROG, _count, _level, _nonnegative_int, _note, _one_line,
                   _positive_float, _progress, _seconds, _show_progress)


#: The utilities of the paper's SAT Competition figure (Section 5), ranked with PAR-2: the
#: tour's rules and ``--rules paper``. They suit a 5,000 s track only.
TOUR_UTILITIES: tuple[str, ...] = ("uniform(20)", "uniform(500)", "pareto(5, 3)", "pareto(5, 1)",
                                   "exponential(1)")

#: The default utilities for data whose cutoff is C: (spec with C's share, the share of C).
#: Each puts the user's patience on a different scale of the experiment, from the whole cutoff
#: down to a thousandth of it (docs/cli.md, "Default rules", says why these four).
CUTOFF_UTILITIES: tuple[tuple[str, int], ...] = (
    ("uniform(C)", 1),             # patience anywhere up to the cutoff: 1 - t/C, PAR's cousin
    ("exponential(C/10)", 10),     # memoryless patience, a tenth of the cutoff on average
    ("log_laplace(C/100, 1)", 100),  # median patience C/100, orders of magnitude both ways
    ("pareto(C/1000, 1)", 1000),   # scale-free: every tenfold speed-up counts alike above C/1000
)

#: ``--rules NAME``: the default rules chosen from the data's cutoff, or the paper's figure
RULE_SETS: tuple[str, ...] = ("cutoff", "paper")

RULES_WHY = ("uniform(C), exponential(C/10), log_laplace(C/100, 1) and pareto(C/1000, 1) put the "
             "user's patience at the whole cutoff, a tenth, a hundredth and a thousandth of it, so "
             "the rules fit any cutoff; PAR-2 is the competitions' own rule")


DATASETS: dict[str, str] = {"satcomp2021-parallel": "parallel", "satcomp2021-main": "main"}


def _read_rule(spec: str) -> Any:
    """The rule of one --utility SPEC, the one place every command reads it: a preset call, an
    expression in t, PAR-k or solved (:func:`maxent_util.parse_rule`), or ``@FILE``, a utility's
    JSON document (``maxent-util design`` writes one; a law's document gives its utility)."""
    from ..rules import parse_rule

    if isinstance(spec, str) and spec.startswith("@"):
        return _utility_file(spec[1:])
    return parse_rule(spec)


def _is_classic(rule: Any) -> bool:
    """Whether a rule read by :func:`_read_rule` is a classic one (PAR-k, solved), not a utility:
    asked without reading a utility's expression (a derived law's is written on first read)."""
    return hasattr(rule, "per_run")


def _utility_file(path: str) -> Any:
    """The utility of the JSON document at ``path``, read as data (bounded, never evaluated)."""
    from ..distribution import CaptimeDistribution
    from ..documents import MAX_JSON_LENGTH, from_json

    found = from_json(_small_file(path, flag="--utility", what="a utility's JSON document",
                                  most=MAX_JSON_LENGTH))
    if isinstance(found, CaptimeDistribution):
        found = found.utility()
    return found if found.name else found.with_name(Path(path).stem)


def _small_file(path: str, *, flag: str, what: str, most: int) -> bytes:
    """The bytes of a small file a command reads whole (an answers file, a utility's document):
    a regular file (anything else is refused before a byte is read) of at most ``most`` bytes."""
    from ..io.limits import open_regular

    with io.BufferedReader(open_regular(path, f"{PROG} {flag}")) as handle:
        data = handle.read(most + 1)
    if len(data) > most:
        raise CommandLineError(f"argument {flag}: {path!r} has more than {most} bytes; {what} has "
                               f"at most {most}")
    return data


def _rules(specs: Sequence[str], pars: Sequence[float], solved: bool, progress: bool | None
           ) -> dict[str, Any]:
    from ..rules import PAR, Solved

    rules: dict[str, Any] = {}
    show = _show_progress(progress, len(specs))
    started = time.perf_counter()
    for index, spec in enumerate(specs, start=1):
        _progress(show, f"[{index}/{len(specs)}] deriving {spec.strip()} "
                        f"({time.perf_counter() - started:.1f} s)")
        rule = _read_rule(spec)
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
    from ..io import STREAM_FORMATS, guess_format, sniff_format
    from ..io.limits import read_stream
    from ..io.table import NamedBytes

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
        # kept, so that a report measures and hashes what was read, as it does a file
        arguments.stdin_bytes = NamedBytes(data, "<stdin>")
        return arguments.stdin_bytes, "<stdin>", guessed
    path = Path(arguments.file)
    if fmt is None and path.exists():
        fmt = guess_format(path)
    return path, str(path), fmt


def _read_limits(arguments: argparse.Namespace) -> Any:
    """The readers' limits with the changes of --read-limit NAME=N (None: the defaults)."""
    changes = getattr(arguments, "read_limit", None)
    if not changes:
        return None
    from ..io.limits import changed, read_limits

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
    from ..io import read_runs
    from ..runs import cap_runs

    if arguments.dataset is not None and arguments.file is not None:
        raise CommandLineError("give either a runtime FILE or --dataset, not both")
    if arguments.dataset is not None and getattr(arguments, "performance", None) is not None:
        raise CommandLineError("--performance goes with an ASlib FILE, not --dataset")
    if arguments.dataset is not None and getattr(arguments, "time", None) is not None:
        raise CommandLineError("--time goes with a BenchExec FILE, not --dataset")
    cutoff = arguments.cutoff
    if arguments.dataset is not None:
        from ..datasets import satcomp2021

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
        _note(f"{label}: {note}")
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
    """The runtime table, its label, and the rules of --utility/--par/--solved and --rules (by
    default the rules chosen from the table's cutoff, and PAR-2).

    What was chosen is said in ``arguments.rules_note`` (None when every rule was named)."""
    _fix_greedy_file(arguments)
    table, label = _runtime_table(arguments)
    specs, pars, arguments.rules_note = _rule_specs(arguments, table)
    rules = _rules(specs, pars, arguments.solved, arguments.progress)
    # what each @FILE utility was designed from, for a page that lists its constraints
    names = list(rules)[:len(specs)]
    arguments.designs = {name: _design_facts(spec[1:]) for spec, name in zip(specs, names)
                         if spec.startswith("@") and len(names) == len(specs)}
    return table, label, rules


def _design_facts(path: str) -> list[tuple[str, str]]:
    """The answers a ``maxent-util design`` document records, each with the constraints it
    became (``("half the time you would stop before 10min", "TailProbability(600, 1/2)")``);
    empty for a document of no design. Read as data: strings only, anything else skipped."""
    import json

    from ..documents import MAX_JSON_LENGTH

    try:
        document = json.loads(_small_file(path, flag="--utility", what="a utility's JSON "
                                          "document", most=MAX_JSON_LENGTH))
    except (ValueError, RecursionError):
        return []
    design = document.get("design") if isinstance(document, dict) else None
    facts = design.get("facts") if isinstance(design, dict) else None
    found = []
    for fact in facts if isinstance(facts, list) else []:
        if not isinstance(fact, dict) or not isinstance(fact.get("says"), str):
            continue
        constraints = fact.get("constraints")
        for constraint in constraints if isinstance(constraints, list) else []:
            if isinstance(constraint, str):
                found.append((fact["says"], constraint))
    return found


def _rule_specs(arguments: argparse.Namespace, table: Any = None
                ) -> tuple[list[str], list[float], str | None]:
    """The specs and PAR-k of the rules asked for, and a sentence saying which default set was
    added and why (None if none was). ``table`` is None where no cutoff can be read first (Dask)."""
    specs, pars = list(arguments.utility or []), list(arguments.par or [])
    chosen = getattr(arguments, "rules", None)
    if chosen is None and (specs or pars or arguments.solved):
        return specs, pars, None
    if chosen == "paper" or (chosen is None and table is None):
        note = ("rules: the paper's SAT Competition figure, " + ", ".join(TOUR_UTILITIES)
                + " and PAR-2 (made for a 5000 s cutoff)")
        if chosen is None:
            note += "; --rules cutoff is not available with --dask (the cutoff is not read first)"
        return list(TOUR_UTILITIES) + specs, [2.0] + pars, note
    if table is None:
        raise CommandLineError("--rules cutoff does not go with --dask (the cutoff is not read "
                               "first); give --rules paper or the rules (--utility, --par)")
    cutoff = _table_cutoff(table, label=getattr(arguments, "file", None) or arguments.dataset)
    chosen_specs = cutoff_utilities(cutoff)
    note = (f"rules: {', '.join(chosen_specs)} and PAR-2, the defaults for the cutoff C = "
            f"{readable_duration(cutoff)}: {RULES_WHY} (--rules paper: the paper's figure)")
    return chosen_specs + specs, [2.0] + pars, note


def cutoff_utilities(cutoff: float) -> list[str]:
    """The default utilities for data whose cutoff is ``cutoff`` seconds, as specs.

    >>> cutoff_utilities(5000)
    ['uniform(5000)', 'exponential(500)', 'log_laplace(50, 1)', 'pareto(5, 1)']
    """
    return [spec.replace("C" if share == 1 else f"C/{share}", f"{cutoff / share:.12g}")
            for spec, share in CUTOFF_UTILITIES]


def _table_cutoff(table: Any, *, label: str) -> float:
    """The cutoff C the default rules are made from: the largest cutoff of the runs."""
    import numpy as np

    cutoffs = table["cutoff"].to_numpy(dtype=float) if "cutoff" in table.columns else np.array([])
    finite = cutoffs[np.isfinite(cutoffs)]
    if finite.size == 0 or not finite.max() > 0:
        raise CommandLineError(f"{label!r} states no cutoff, and the default rules are made from "
                               "it: give --cutoff SECONDS, the rules (--utility, --par) or "
                               "--rules paper")
    return float(finite.max())


def _rule_named(text: str, rules: Sequence[str]) -> str:
    """The rule ``text`` names (``--sort-by``): exactly, or but for spaces and case."""
    if text in rules:
        return text
    loose = {"".join(rule.split()).lower(): rule for rule in rules}
    found = loose.get("".join(text.split()).lower())
    if found is None:
        raise CommandLineError(f"argument --sort-by: expected one of the rules "
                               f"{', '.join(map(repr, rules))}; got {text!r}")
    return found


def _sort_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--sort-by", default=None, metavar="RULE",
                        help="order the algorithms by their rank under RULE, one of the rules "
                             "given, e.g. 'PAR-2' (default: the first rule)")


def _bootstrap_options(arguments: argparse.Namespace) -> dict[str, Any]:
    """``ci``, ``resamples`` and ``seed`` for the library, where the command line gave them."""
    options: dict[str, Any] = {}
    for name in ("ci", "resamples", "seed"):
        if getattr(arguments, name, None) is not None:
            options[name] = getattr(arguments, name)
    return options


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
    parser.add_argument("--rules", choices=RULE_SETS, default=None,
                        help="a set of rules: 'cutoff' (the default when no rule is given) is "
                             "uniform(C), exponential(C/10), log_laplace(C/100, 1), "
                             "pareto(C/1000, 1) and PAR-2 for the data's cutoff C; 'paper' is the "
                             "paper's figure for a 5000 s track (" + ", ".join(TOUR_UTILITIES)
                             + ", PAR-2); given with --utility or --par, it is added before them")
    parser.add_argument("--cutoff", type=_seconds, metavar="SECONDS",
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
    parser.add_argument("--no-progress", action="store_false", dest="progress",
                        help="never report progress, even on a terminal")
