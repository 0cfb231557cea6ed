"""``maxent-util fit``: the captime law learned from a log of waiting times."""

from __future__ import annotations

import argparse
import math
import re
import warnings
from typing import Any

from ..durations import readable_duration
from .core import CommandLineError, _count, _level
from .files import _file_flags, _target, _write_text
from .inputs import _read_limit_flag, _read_limits

#: the kind sets ``--kinds`` names, as written on the command line
KIND_SET_WORDS = ("mean", "log", "log+log2", "mean+log", "log_below+log_above")


def _kind_set(text: str) -> tuple[str, ...]:
    """``--kinds mean`` or ``--kinds log+log2``: one kind set (fit_captime checks it)."""
    kinds = tuple(part.strip() for part in text.split("+"))
    if not all(kinds):
        raise argparse.ArgumentTypeError(f"expected a kind set such as {', '.join(KIND_SET_WORDS)}; "
                                         f"got {text!r}")
    return kinds


def _support_end(text: str) -> float:
    """A support end: a duration (``0``, ``90s``, ``1h``) or ``inf`` for the upper one."""
    if text.strip().lower() in ("inf", "oo", "infinity"):
        return math.inf
    try:
        value = float(text)
    except ValueError:
        from ..durations import DurationError, parse_duration

        try:
            value = float(parse_duration(text))
        except DurationError:
            raise argparse.ArgumentTypeError(f"expected a duration such as 0, 90s or 1h, or inf; "
                                             f"got {text!r}") from None
    if not (value >= 0):
        raise argparse.ArgumentTypeError(f"expected a nonnegative duration; got {text!r}")
    return value


def _check_spread(times: Any, arguments: argparse.Namespace) -> None:
    """One waiting time, or one repeated, tells no law apart from another: every family but the
    exponential has no fit, and the exponential's one parameter is that time. Such a log is more
    often a wrong column (a constant timeout) than a measurement, so the law is written only
    when the kinds were asked for by name, and then with a warning that says what was fitted."""
    import numpy as np

    distinct = np.unique(times)
    if distinct.size >= 2:
        return
    what = (f"one record ({readable_duration(float(distinct[0]))})" if times.size == 1 else
            f"{times.size} records, every one {readable_duration(float(distinct[0]))}")
    if arguments.kinds is None:
        raise CommandLineError(
            f"{arguments.file}: column {arguments.column!r} holds {what}: one waiting time cannot "
            "tell one law from another (every family but the exponential needs two different "
            "times, and nothing checks the exponential's). Give a log with more records, or pass "
            "--kinds mean to fit the exponential law whose mean is that time anyway")
    warnings.warn(f"{arguments.file}: column {arguments.column!r} holds {what}: the fit below "
                  "rests on that one time alone; "
                  "nothing in the data checks it", stacklevel=2)


def _command_fit(arguments: argparse.Namespace, out: Any) -> int:
    import pandas as pd

    from ..documents import to_json
    from ..errors import DataError
    from ..fitting import fit_captime, read_waiting_times

    target = None if arguments.output is None else _target(
        arguments.output, flag="--output", force=arguments.force, parents=arguments.parents)
    times, censored = read_waiting_times(arguments.file, arguments.column, arguments.censored_column,
                                         empty_flag=arguments.empty_flag, limits=_read_limits(arguments))
    _check_spread(times, arguments)
    try:
        fit = fit_captime(times, censored, kinds=arguments.kinds, support=arguments.support,
                          criterion=arguments.criterion, level=arguments.level, folds=arguments.folds,
                          seed=arguments.seed)
    except DataError as error:
        # `times[i]` is the file's data row i + 1: say so
        row = re.match(r"`times\[(\d+)\]`", str(error))
        if row is None:
            raise
        raise DataError(f"{error} (data row {int(row.group(1)) + 1} of {arguments.file})") from None
    provenance = fit.provenance
    print(f"{provenance['n']} waiting times from {arguments.file}, {provenance['censored']} "
          f"right-censored (sha256 {provenance['sha256'][:16]}...)", file=out)
    with pd.option_context("display.width", 200, "display.max_columns", 20):
        table = fit.table
        notes = table["note"]
        print(table.drop(columns="note").to_string(float_format=lambda x: f"{x:.6g}"), file=out)
        for kinds, note in notes[notes != ""].items():
            print(f"  {kinds}: {note}", file=out)
        print(f"\nparameters ({provenance['intervals']} intervals):", file=out)
        print(fit.estimates.to_string(index=False, float_format=lambda x: f"{x:.6g}"), file=out)
    chosen = "+".join(fit.chosen)
    print(f"\nchosen by {fit.criterion.upper()}: {chosen} ({fit.models[fit.chosen].family})", file=out)
    if target is None:
        print("(pass --output FILE to write the chosen law as JSON)", file=out)
        return 0
    law = fit.law
    _write_text(target, to_json(law) + "\n", force=arguments.force, flag="--output")
    print(f"wrote {target}", file=out)
    return 0


def add_parser(commands: Any) -> None:
    """Add ``fit`` to the subcommands ``commands``."""
    fit = commands.add_parser(
        "fit", help="learn the captime law from a log of waiting times",
        description="Fit the maximum-entropy captime law of each kind set to waiting times by "
                    "maximum likelihood (right-censored records: the person was still waiting when "
                    "the answer came), print the models side by side with their parameters' "
                    "profile-likelihood intervals, and write the chosen law as JSON.")
    fit.add_argument("file", metavar="FILE", help="a CSV file with a header row")
    fit.add_argument("--column", required=True, metavar="NAME",
                     help="the column of waiting times: seconds (1201) or durations (1201s, 20 min)")
    fit.add_argument("--censored-column", metavar="NAME",
                     help="the column that is 1/true/yes where the person was still waiting "
                          "(0/false/no where the person gave up)")
    fit.add_argument("--empty-flag", choices=("no", "yes"), metavar="no|yes",
                     help="read an empty cell of --censored-column as this flag (no: the person "
                          "gave up, as in a log that marks only the people still waiting); "
                          "default: an empty cell is refused, naming its row")
    fit.add_argument("--kinds", action="append", type=_kind_set, metavar="KINDS",
                     help=f"a kind set to fit, repeatable: {', '.join(KIND_SET_WORDS)} (default: all)")
    fit.add_argument("--support", nargs=2, type=_support_end, metavar=("LOWER", "UPPER"),
                     help="the support of the law (UPPER may be inf; default [0, inf), for log "
                          "alone from the smallest captime)")
    fit.add_argument("--criterion", choices=("aic", "bic", "cv"), default="aic",
                     help="how the model is chosen (default aic)")
    fit.add_argument("--level", type=_level, default=0.95, metavar="L",
                     help="confidence level of the intervals (default 0.95)")
    fit.add_argument("--folds", type=lambda text: _count(text, least=2), default=5, metavar="K",
                     help="folds of --criterion cv (default 5)")
    fit.add_argument("--seed", type=lambda text: _count(text, least=0), default=0, metavar="N",
                     help="seed of the folds' assignment (default 0)")
    fit.add_argument("--output", "-o", metavar="FILE", help="write the chosen law here as JSON")
    _read_limit_flag(fit)
    _file_flags(fit)
    fit.set_defaults(handler=_command_fit)
