"""maxent_util: maximum-entropy utilities for scoring algorithm runtimes.

State what you know about the captime (``Support``, ``Mean``, ``LogMoment``,
...), :func:`derive` the maximum-entropy captime law, take its
:meth:`~CaptimeDistribution.utility`, and score runtimes with it.
"""

from . import datasets
from .constraints import (Constraint, ContinuousAt, LogMoment, Mean, Moment, SquaredLogDeviation,
                          Support, TailProbability, constraint_kinds)
from .maxent import derive
from .distribution import CaptimeDistribution
from .errors import (ConstraintError, DataError, ExportError, InfeasibleError, MaxEntError,
                     MaximumNotAttainedError, NoClosedFormError, NotNormalizableError, TimeLimitError,
                     UtilityError)
from .export import (cost_function, derivation, export_c, export_python, from_json, to_json,
                     to_latex)
from .families import (FAMILIES, FIGURE_PARAMETERS, exponential, generalized_log_laplace, log_laplace, log_normal,
                       pareto, parse_family, parse_utility, piecewise, uniform)
from .io import read_aslib, read_long, read_runs, read_satcomp, validate_table
from .plots import plot_ranking, plot_utilities
from .sampling import Plan, plan, simulate_plan
from .scorer import Scorer, make_scorer
from .scoring import PAR, Score, Solved, cross_utility, rank, score
from .symbols import kappa, q, t
from .utility import (ExpectedUtility, KnownCaptime, QualityUtility, Utility, UtilityCheck, capped_runtime,
                      expected_utility, general, linear_compute, linear_quality, money,
                      quality_utility, step)

from ._version import __version__

__all__ = [
    "__version__",
    # symbols
    "kappa", "t", "q",
    # constraints and derivation
    "Constraint", "Support", "Moment", "Mean", "LogMoment", "SquaredLogDeviation", "TailProbability",
    "ContinuousAt", "constraint_kinds", "derive", "CaptimeDistribution",
    # the paper's catalogue
    "FAMILIES", "FIGURE_PARAMETERS", "uniform", "exponential", "pareto", "log_laplace", "generalized_log_laplace",
    "log_normal", "piecewise", "parse_family", "parse_utility",
    # utilities
    "Utility", "ExpectedUtility", "QualityUtility", "UtilityCheck", "step", "linear_compute",
    "capped_runtime", "money", "general", "expected_utility", "KnownCaptime", "quality_utility", "linear_quality",
    # scoring and planning
    "make_scorer", "Scorer", "score", "Score", "PAR", "Solved", "rank", "cross_utility",
    "plan", "Plan", "simulate_plan", "plot_utilities", "plot_ranking",
    # export
    "to_latex", "derivation", "export_python", "export_c", "to_json", "from_json", "cost_function",
    # data
    "datasets", "read_runs", "read_satcomp", "read_long", "read_aslib", "validate_table",
    # errors
    "MaxEntError", "ConstraintError", "InfeasibleError", "NotNormalizableError", "NoClosedFormError",
    "UtilityError", "DataError", "ExportError", "TimeLimitError", "MaximumNotAttainedError",
]
