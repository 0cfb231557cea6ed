"""The classic rules, :class:`PAR` and :class:`Solved`, and :func:`parse_rule`, which reads the
rule a short text names (a preset call, an expression in t, ``PAR-k`` or ``solved``): what the
command line's ``--utility`` and the rankings, races and designer take.

Without pandas: a command that only reads a rule (``maxent-util export``, ``plan``) starts
without it; scoring runs validates them through :mod:`maxent_util.runs`, imported then.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from ._numbers import real
from .errors import DataError, MaxEntError, UtilityError, argument_message
from .expressions import read_expression
from .families import parse_utility
from .symbols import t
from .utility import Utility

__all__ = ["PAR", "Solved", "parse_rule"]


# ---------------------------------------------------------------------------
# classic rules


def _rule_runs(runtimes: Any, solved: Any, cutoff: Any, owner: str) -> Any:
    from .runs import validate_runs  # pandas, needed only once runs are scored

    if solved is None:
        raise DataError(argument_message(
            "solved", owner, "an array of True/False, one per runtime", None))
    return validate_runs(runtimes, solved=solved, cutoff=cutoff, status=None,
                         failures_as_capped=False, owner=owner)


@dataclass(frozen=True)
class PAR:
    """Penalised average runtime: the runtime, or ``k`` times the cutoff if unsolved.

    Lower is better. PAR-2 ranked the SAT Competition 2021; PAR-10 is common
    in algorithm configuration.

    Parameters
    ----------
    k : float
        The penalty factor (positive).
    cutoff : float, optional, keyword-only
        The cutoff used by :func:`rank` when the table has no ``cutoff``
        column (else an unsolved run's own runtime stands for its cutoff).

    Examples
    --------
    >>> PAR(2).score([10.0, 100.0], [True, False], cutoff=100.0)
    105.0
    >>> PAR(2).name, PAR(2.5).name
    ('PAR-2', 'PAR-2.5')
    """

    k: float = 2.0
    cutoff: float | None = field(default=None, kw_only=True)
    higher_is_better: ClassVar[bool] = False

    def __post_init__(self) -> None:
        if not (math.isfinite(real(self.k)) and self.k > 0):
            raise UtilityError(argument_message("k", "PAR", "a positive finite number", self.k))
        if self.cutoff is not None and not (
                math.isfinite(real(self.cutoff)) and self.cutoff > 0):
            raise UtilityError(argument_message(
                "cutoff", "PAR", "a positive finite number of seconds", self.cutoff))

    @property
    def name(self) -> str:
        return f"PAR-{float(self.k):g}"

    def per_run(self, runtimes: np.ndarray, solved: np.ndarray,
                cutoffs: np.ndarray | None) -> np.ndarray:
        """Penalised runtime of each run (arrays already validated).

        Parameters
        ----------
        runtimes : numpy.ndarray
            The runs' runtimes in seconds (validated float array).
        solved : numpy.ndarray
            Whether each run was solved (bool array).
        cutoffs : numpy.ndarray or None
            Each run's cutoff, or None when the runs have none.

        Returns
        -------
        numpy.ndarray
            The runtime of a solved run; ``k`` times its cutoff (its runtime when
            ``cutoffs`` is None) for an unsolved one.
        """
        limit = runtimes if cutoffs is None else cutoffs
        values = np.multiply(limit, self.k)  # one array over the runs, no temporary
        np.copyto(values, runtimes, where=solved)
        return values

    def score(self, runtimes: Any, solved: Any, cutoff: Any = None) -> float:
        """Mean penalised runtime of the runs.

        Parameters
        ----------
        runtimes : array_like of float
            The runtimes in seconds (finite, nonnegative).
        solved : array_like of bool
            Whether each run was solved (required).
        cutoff : float or array_like of float, optional
            The cutoff (default: the rule's ``cutoff``), one for all runs or one per run (positive, at least each solved
            run's runtime).

        Returns
        -------
        float
            The PAR-k score in seconds; lower is better.  Without a cutoff an unsolved
            run's own runtime stands for it.

        Raises
        ------
        DataError
            If ``solved`` is missing, or the runs or cutoffs are invalid or inconsistent.
        """
        runs = _rule_runs(runtimes, solved, cutoff if cutoff is not None else self.cutoff,
                          "PAR.score")
        return float(np.mean(self.per_run(runs.runtimes, runs.solved, runs.cutoffs)))


@dataclass(frozen=True)
class Solved:
    """Number of solved runs; higher is better.

    Examples
    --------
    >>> Solved().score([10.0, 100.0, 3.0], [True, False, True])
    2
    """

    higher_is_better: ClassVar[bool] = True
    name: ClassVar[str] = "solved"

    def per_run(self, runtimes: np.ndarray, solved: np.ndarray,
                cutoffs: np.ndarray | None) -> np.ndarray:
        """Whether each run was solved, as 1.0 or 0.0 (arrays already validated).

        Parameters
        ----------
        runtimes : numpy.ndarray
            The runs' runtimes in seconds (validated float array).
        solved : numpy.ndarray
            Whether each run was solved (bool array).
        cutoffs : numpy.ndarray or None
            Each run's cutoff, or None when the runs have none.

        Returns
        -------
        numpy.ndarray
            1.0 for a solved run, 0.0 otherwise.
        """
        return solved.astype(float)

    def score(self, runtimes: Any, solved: Any, cutoff: Any = None) -> int:
        """Count of solved runs.

        Parameters
        ----------
        runtimes : array_like of float
            The runtimes in seconds (finite, nonnegative).
        solved : array_like of bool
            Whether each run was solved (required).
        cutoff : float or array_like of float, optional
            The cutoff, one for all runs or one per run (positive, at least each solved
            run's runtime).

        Returns
        -------
        int
            The number of solved runs; higher is better.

        Raises
        ------
        DataError
            If ``solved`` is missing, or the runs or cutoffs are invalid or inconsistent.
        """
        runs = _rule_runs(runtimes, solved, cutoff, "Solved.score")
        return int(runs.solved.sum())


def parse_rule(spec: str) -> "Utility | PAR | Solved":
    """The rule a short text names, as the command line's ``--utility`` reads it.

    Parameters
    ----------
    spec : str
        A preset call (``"pareto(5, 3)"``), an expression in the runtime ``t``
        (``"exp(-t/10)"``), ``"PAR-k"`` or ``"par(k)"``, or ``"solved"``
        (case-insensitive). Read by the library's safe reader: nothing in it is
        evaluated as code.

    Returns
    -------
    Utility, PAR or Solved
        A utility named by ``spec`` (a preset's step utility), or a classic rule.

    Raises
    ------
    UtilityError
        If ``spec`` is none of these, or a preset's arguments are invalid.

    Examples
    --------
    >>> parse_rule("PAR-2")
    PAR(k=2.0, cutoff=None)
    >>> float(parse_rule("pareto(5, 3)")(10.0))
    0.125
    """
    if not isinstance(spec, str):
        raise UtilityError(argument_message(
            "spec", "parse_rule", "a string such as 'pareto(5, 3)', 'exp(-t/10)', 'PAR-2' or 'solved'", spec))
    text = spec.strip()
    classic = re.fullmatch(r"(?i)par(?:-|\(\s*)([0-9.eE+]+)\s*\)?", text)
    if classic:
        try:
            return PAR(float(classic.group(1)))
        except ValueError:
            pass  # not a number after all: read as an expression below
    if text.lower() == "solved":
        return Solved()
    near_classic = re.fullmatch(r"(?i)par\s*[_ ]?\s*([0-9]+(?:\.[0-9]*)?)", text)
    if near_classic:  # PAR2, PAR 2, par_2: the competitions' PAR-2, written another way
        raise UtilityError(argument_message(
            "spec", "parse_rule", "a preset call, an expression in t, 'PAR-k' or 'solved'", spec,
            f"Did you mean 'PAR-{near_classic.group(1)}'?"))
    if _mentions_runtime(text):
        # an expression in t: preset parameters never involve the runtime
        return Utility(text, name=text)
    return parse_utility(text)


def _mentions_runtime(text: str) -> bool:
    """Whether ``text`` reads (safely) as an expression in the runtime ``t``."""
    try:
        return t in read_expression(text, allow_infinity=True).free_symbols
    except MaxEntError:
        return False
