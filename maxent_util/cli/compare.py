"""``maxent-util compare``: is one algorithm really ahead of another?"""

from __future__ import annotations

import argparse
import json
from typing import Any

from .core import CommandLineError, _percent, _write_csv
from .inputs import (_add_ranking_inputs, _bootstrap_flags, _bootstrap_options, _fix_greedy_file,
                     _rule_specs, _rules, _runtime_table)


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
    if not (arguments.utility or arguments.par or arguments.solved or arguments.rules):
        raise CommandLineError("compare needs a rule: --utility SPEC (or --par K, --solved, "
                               "--rules cutoff)")
    table, label = _runtime_table(arguments)
    specs, pars, _ = _rule_specs(arguments, table)
    rules = _rules(specs, pars, arguments.solved, arguments.progress)
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


def _all_pairs_table(table: Any, rules: dict[str, Any], frames: dict[str, Any],
                     options: dict[str, Any], *, latex: bool) -> str:
    """``compare --all --latex/--markdown``: the ranking with its intervals, each score marked
    where the pair it makes with the best is not significant (pairwise's own decision)."""
    from ..ranking import rank
    from .tables import ranking_table

    level = options.get("ci", 0.95)
    ranking = rank(table, rules, **options)
    marks = {}
    for name, frame in frames.items():
        pairs = frame.index.to_frame(index=False)
        with_best = (pairs["a"] == pairs["a"].iloc[0]).to_numpy()
        marks[name] = set(pairs["b"][with_best & ~frame["significant"].to_numpy()])
    pairs = len(next(iter(frames.values())))
    note = ("not significantly different from the best under the rule: two-sided Wilcoxon "
            f"signed-rank test paired by instance, p of at least {1 - level:.10g} after Holm's "
            f"adjustment over all {pairs} pairs; intervals: {_percent(level)} paired bootstrap "
            "percentile intervals of the scores, resampling instances")
    return ranking_table(ranking, latex=latex, marks=marks, note=note)


def _command_compare(arguments: argparse.Namespace, out: Any) -> int:
    from ..comparison import compare, pairwise

    table, label, rules = _comparison_inputs(arguments)
    options = dict(_bootstrap_options(arguments), duplicates=arguments.duplicates,
                   missing=arguments.missing)
    level = options.get("ci", 0.95)
    if arguments.all:
        frames = {name: pairwise(table, {name: rule}, **options) for name, rule in rules.items()}
        if arguments.latex or arguments.markdown:
            print(_all_pairs_table(table, rules, frames, options, latex=arguments.latex),
                  file=out)
        elif arguments.json:
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
    if arguments.latex or arguments.markdown:
        from .tables import comparison_table

        print(comparison_table(results, latex=arguments.latex), file=out)
    elif arguments.json:
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


def add_parser(commands: Any) -> None:
    """Add ``compare`` to the subcommands ``commands``."""
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
    formats.add_argument("--latex", action="store_true",
                         help="print a LaTeX table for a paper (booktabs): per rule both means, "
                              "the better in bold, the other marked with a dagger when the "
                              "Wilcoxon test cannot tell them apart, the difference with its "
                              "interval; with --all, the ranking with intervals, a dagger on "
                              "scores not significantly different from the best's")
    formats.add_argument("--markdown", action="store_true",
                         help="print the table of --latex in Markdown")
    comparing.set_defaults(handler=_command_compare)
