"""``maxent-util rank``: runtime data -> rankings (also on a Dask cluster)."""

from __future__ import annotations

import argparse
import json
from typing import Any

from .core import CommandLineError, PROG, _percent, _seconds, _write_csv
from .inputs import (_add_ranking_inputs, _bootstrap_flags, _bootstrap_options, _fix_greedy_file,
                     _rule_named, _rule_specs, _rules, _sort_flag, _table_and_rules)


# `rank --dask` without an address: a local cluster
LOCAL_CLUSTER = "local"


def _ranking(arguments: argparse.Namespace) -> tuple[Any, str]:
    frame, label, _, _ = _ranking_and_inputs(arguments)
    return frame, label


def _ranking_and_inputs(arguments: argparse.Namespace) -> tuple[Any, str, Any, dict[str, Any]]:
    """The ranking, its label, and the table and rules it came from (None, {} from Dask)."""
    if getattr(arguments, "dask", None) is not None:
        return (*_dask_ranking(arguments), None, {})
    table, label, rules = _table_and_rules(arguments)
    ci = getattr(arguments, "ci", None)
    if ci is None and (getattr(arguments, "resamples", None) is not None
                       or getattr(arguments, "seed", None) is not None):
        raise CommandLineError("--resamples and --seed go with --ci (e.g. --ci 0.95)")
    # loaded once the input is read: a missing or bad file is reported without it
    from ..ranking import rank

    return rank(table, rules, bounds=getattr(arguments, "bounds", False),
                duplicates=arguments.duplicates, missing=arguments.missing,
                **_bootstrap_options(arguments)), label, table, rules


def _dask_ranking(arguments: argparse.Namespace) -> tuple[Any, str]:
    """``rank FILE --dask [ADDRESS]``: the Parquet dataset FILE ranked on a Dask cluster."""
    from .._dask import client, is_parquet_path
    from ..ranking import rank

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
    specs, pars, arguments.rules_note = _rule_specs(arguments)
    rules = _rules(specs, pars, arguments.solved, arguments.progress)
    address = None if arguments.dask == LOCAL_CLUSTER else arguments.dask
    with client(address, f"{PROG} rank --dask", timeout=arguments.dask_timeout):
        return rank(arguments.file, rules, bounds=arguments.bounds,
                    duplicates=arguments.duplicates, missing=arguments.missing), arguments.file


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


def _sorted(frame: Any, arguments: argparse.Namespace) -> tuple[Any, str]:
    """The ranking with its rows in the order of --sort-by's rank, and a sentence saying so."""
    rules = [c[: -len(" rank")] for c in frame.columns if c.endswith(" rank")]
    if getattr(arguments, "sort_by", None) is None:
        return frame, (f"rows in the order of the first rule, {rules[0]} (--sort-by RULE for "
                       "another)")
    rule = _rule_named(arguments.sort_by, rules)
    return (frame.sort_values(f"{rule} rank", kind="stable"),
            f"rows in the order of {rule} (--sort-by)")


def _not_real(table: Any, rules: dict[str, Any], arguments: argparse.Namespace
              ) -> tuple[dict[str, set[str]], str]:
    """Per rule the algorithms the paired test cannot tell from the best, and the table's
    note saying so (for --latex and --markdown with --ci)."""
    from ..comparison import compare_with_best

    marks = {}
    for name, rule in rules.items():
        found = compare_with_best(table, {name: rule}, ci=arguments.ci,
                                  duplicates=arguments.duplicates, missing=arguments.missing)
        marks[name] = set(found.index[~found["significant"].to_numpy()])
    note = ("not significantly different from the best under the rule: two-sided Wilcoxon "
            "signed-rank test paired by instance, p of at least "
            f"{1 - arguments.ci:.10g} after Holm's adjustment over the comparisons with the "
            f"best; intervals: {_percent(arguments.ci)} paired bootstrap percentile intervals "
            "of the scores, resampling instances")
    return marks, note


def _command_rank(arguments: argparse.Namespace, out: Any) -> int:
    frame, label, table, rules = _ranking_and_inputs(arguments)
    frame, order = _sorted(frame, arguments)
    if arguments.tidy:
        from ..ranking import tidy_ranking

        _write_csv(tidy_ranking(frame), out, index=False)
    elif arguments.csv:
        _write_csv(frame, out)
    elif arguments.json:
        json.dump(_records(frame), out, indent=2)
        out.write("\n")
    elif arguments.latex or arguments.markdown:
        from .tables import ranking_table

        marks, note = (_not_real(table, rules, arguments)
                       if arguments.ci is not None and len(frame) > 1 else ({}, None))
        print(ranking_table(frame, latex=arguments.latex, marks=marks, note=note), file=out)
    else:
        print(f"ranking of {label}: score (rank) per rule; utilities count unsolved runs as 0, "
              f"PAR-k is the mean penalised runtime (lower is better); {order}", file=out)
        if getattr(arguments, "rules_note", None):
            print(arguments.rules_note, file=out)
        if arguments.ci is not None:
            print(f"ci [low, high]: {_percent(arguments.ci)} paired bootstrap interval of the "
                  f"score, resampling instances", file=out)
        print(_ranking_text(frame), file=out)
    return 0


def add_parser(commands: Any) -> None:
    """Add ``rank`` to the subcommands ``commands``."""
    ranking = commands.add_parser("rank", help="rank algorithms on runtime data",
                                  description="Score and rank algorithms under utilities and "
                                              "classic rules.")
    _add_ranking_inputs(ranking, default_note="Default: --rules cutoff.")
    _sort_flag(ranking)
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
    ranking.add_argument("--dask-timeout", type=_seconds, default=None, metavar="SECONDS",
                         help="seconds the scheduler at SCHEDULER_ADDRESS has to answer "
                              "(default 10)")
    formats = ranking.add_mutually_exclusive_group()
    formats.add_argument("--csv", action="store_true", help="print the full table as CSV")
    formats.add_argument("--json", action="store_true", help="print the full table as JSON records")
    formats.add_argument("--latex", action="store_true",
                         help="print a LaTeX table for a paper (booktabs; the best per rule in "
                              "bold; with --ci, intervals as 0.452 [0.431, 0.470] and a dagger "
                              "on scores the Wilcoxon test cannot tell from the best's)")
    formats.add_argument("--markdown", action="store_true",
                         help="print a Markdown table (the best per rule in bold; with --ci, "
                              "intervals and the dagger, as --latex)")
    formats.add_argument("--tidy", action="store_true",
                         help="print a long CSV: one row per algorithm and rule (algorithm, rule, "
                              "score, rank, and lower, upper with --bounds)")
    ranking.set_defaults(handler=_command_rank)
