"""maxent_util: maximum-entropy utilities for scoring algorithm runtimes.

State what you know about the captime (``Support``, ``Mean``, ``LogMoment``,
...), :func:`derive` the maximum-entropy captime law, take its
:meth:`~CaptimeDistribution.utility`, and score runtimes with it.

Names are loaded on first use (PEP 562): ``import maxent_util`` loads no
sympy, scipy, pandas or matplotlib, so the command line starts at once.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ._version import __version__

#: public name -> the module that defines it (the one place to update when a name moves)
_LOCATIONS: dict[str, str] = {
    **dict.fromkeys(["kappa", "t", "q"], "symbols"),
    **dict.fromkeys(["Constraint", "Support", "Moment", "Mean", "LogMoment", "SquaredLogDeviation",
                     "TailProbability", "ContinuousAt", "constraint_kinds"], "constraints"),
    **dict.fromkeys(["derive", "derive_many"], "maxent"),
    "CaptimeDistribution": "distribution",
    **dict.fromkeys(["FAMILIES", "FIGURE_PARAMETERS", "uniform", "exponential", "pareto", "log_laplace",
                     "generalized_log_laplace", "log_normal", "piecewise", "parse_family",
                     "parse_utility"], "families"),
    **dict.fromkeys(["Utility", "ExpectedUtility", "QualityUtility", "UtilityCheck", "step",
                     "linear_compute", "capped_runtime", "money", "general", "expected_utility",
                     "KnownCaptime", "quality_utility", "linear_quality"], "utility"),
    **dict.fromkeys(["compile_scorer", "Scorer", "CompiledScorer"], "scorer"),
    **dict.fromkeys(["score", "Score"], "estimate"),
    **dict.fromkeys(["PAR", "Solved", "parse_rule"], "rules"),
    **dict.fromkeys(["rank", "tidy_ranking", "cross_utility", "per_instance", "rank_stability"], "ranking"),
    **dict.fromkeys(["bootstrap_means", "bootstrap_intervals", "rank_probabilities"], "bootstrap"),
    **dict.fromkeys(["Comparison", "compare", "pairwise", "compare_with_best", "holm_adjusted",
                     "virtual_best", "single_best", "gap_closed"], "comparison"),
    **dict.fromkeys(["plan", "Plan", "simulate_plan"], "sampling"),
    **dict.fromkeys(["sweep", "crossovers", "ranking_changes"], "sweeps"),
    **dict.fromkeys(["Runner", "TableRunner", "ProcessRunner", "NaiveResult", "naive", "naive_curve",
                     "up", "simulate_up"], "racing"),
    **dict.fromkeys(["plot_utilities", "plot_ranking", "plot_cactus", "plot_survival",
                     "plot_sweep", "plot_race"], "plots"),
    **dict.fromkeys(["report_html", "write_report"], "report"),
    **dict.fromkeys(["to_latex", "derivation", "export_python", "export_c", "to_json", "from_json",
                     "cost_function"], "export"),
    **dict.fromkeys(["cap_runs"], "runs"),
    **dict.fromkeys(["ParameterSpace"], "space"),
    **dict.fromkeys(["fit_captime", "CaptimeFit"], "fitting"),
    **dict.fromkeys(["read_runs", "read_satcomp", "read_long", "read_aslib", "read_benchexec",
                     "validate_table"], "io"),
    **dict.fromkeys(["MaxEntError", "ConstraintError", "InfeasibleError", "NotNormalizableError",
                     "NoClosedFormError", "UtilityError", "DataError", "ExportError", "TimeLimitError",
                     "MaximumNotAttainedError", "MissingExtraError"], "errors"),
}
_SUBPACKAGES = ("datasets",)
#: former names, still importable (they warn) but not exported
_DEPRECATED: dict[str, str] = {"make_scorer": "scorer"}

__all__ = ["__version__", *_LOCATIONS, *_SUBPACKAGES]


def __getattr__(name: str) -> Any:
    if name in _LOCATIONS:
        value = getattr(importlib.import_module(f".{_LOCATIONS[name]}", __name__), name)
    elif name in _SUBPACKAGES:
        value = importlib.import_module(f".{name}", __name__)
    elif name in _DEPRECATED:
        return getattr(importlib.import_module(f".{_DEPRECATED[name]}", __name__), name)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value  # the next look-up is an ordinary attribute
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


if TYPE_CHECKING:  # what the names are, for type checkers and editors
    from . import datasets
    from .constraints import (Constraint, ContinuousAt, LogMoment, Mean, Moment, SquaredLogDeviation,
                              Support, TailProbability, constraint_kinds)
    from .distribution import CaptimeDistribution
    from .errors import (ConstraintError, DataError, ExportError, InfeasibleError, MaxEntError,
                         MaximumNotAttainedError, MissingExtraError, NoClosedFormError,
                         NotNormalizableError, TimeLimitError, UtilityError)
    from .estimate import Score, score
    from .export import (cost_function, derivation, export_c, export_python, from_json, to_json,
                         to_latex)
    from .fitting import CaptimeFit, fit_captime
    from .families import (FAMILIES, FIGURE_PARAMETERS, exponential, generalized_log_laplace, log_laplace,
                           log_normal, pareto, parse_family, parse_utility, piecewise, uniform)
    from .io import read_aslib, read_benchexec, read_long, read_runs, read_satcomp, validate_table
    from .maxent import derive, derive_many
    from .bootstrap import bootstrap_intervals, bootstrap_means, rank_probabilities
    from .comparison import (Comparison, compare, compare_with_best, gap_closed, holm_adjusted,
                             pairwise, single_best, virtual_best)
    from .plots import (plot_cactus, plot_race, plot_ranking, plot_survival, plot_sweep,
                        plot_utilities)
    from .racing import (NaiveResult, ProcessRunner, Runner, TableRunner, naive, naive_curve,
                         simulate_up, up)
    from .ranking import cross_utility, per_instance, rank, rank_stability, tidy_ranking
    from .rules import PAR, Solved, parse_rule
    from .report import report_html, write_report
    from .runs import cap_runs
    from .space import ParameterSpace
    from .sampling import Plan, plan, simulate_plan
    from .scorer import CompiledScorer, Scorer, compile_scorer
    from .sweeps import crossovers, ranking_changes, sweep
    from .symbols import kappa, q, t
    from .utility import (ExpectedUtility, KnownCaptime, QualityUtility, Utility, UtilityCheck,
                          capped_runtime, expected_utility, general, linear_compute, linear_quality,
                          money, quality_utility, step)
