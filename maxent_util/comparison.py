"""Comparing algorithms on paired instances: is A really ahead of B? and the portfolio view.

Every algorithm of a long table ran on the same instances, so the
difference between two algorithms is best judged instance by instance:
:func:`compare` takes the per-instance values of one rule
(:func:`maxent_util.ranking.per_instance`), their differences ``a - b``,
and reports

- the mean difference with a paired bootstrap percentile interval
  (:mod:`maxent_util.bootstrap`);
- the Wilcoxon signed-rank test (``scipy.stats.wilcoxon`` with scipy's
  defaults: ``zero_method="wilcox"`` drops instances where the two are
  equal, such as both solving at once or both failing, before ranking;
  ``method="auto"``: up to 50 instances, the exact distribution without
  ties or zeros, an exact sign-flip permutation test with them up to 13
  instances, else the normal approximation, as it is from 51 instances on.
  scipy runs that permutation test one sign pattern at a time, about a
  second a pair; it is computed here over all patterns at once, and the
  tests check it against scipy);
- the sign test (``scipy.stats.binomtest`` of the number of instances where
  ``a - b > 0`` among the nonzero differences, against 1/2).

When every difference is zero neither test has anything to rank or count:
both p-values are then 1 (no evidence of a difference), rather than
scipy's NaN or error.

The decision "ahead at 95%" is the Wilcoxon test's at level ``1 - ci``;
:func:`pairwise` runs every pair and adjusts both tests' p-values for the
number of pairs with Holm's step-down method (:func:`holm_adjusted`), and a
difference is significant when its Holm-adjusted Wilcoxon p-value is below
``1 - ci``.

For algorithm selection (ASlib), :func:`virtual_best` scores the oracle that
picks the best algorithm on every instance, :func:`single_best` names the
algorithm with the best score, and :func:`gap_closed` says which fraction
of the gap between them each algorithm (a selector's runs among them)
closes.
"""

from __future__ import annotations

import functools
import itertools
import math
from dataclasses import asdict, dataclass
from typing import Any, Sequence

import numpy as np
import pandas as pd
# scipy loads scipy.stats on first use: importing this module does not pay for it, and
# neither does a comparison of more than 50 instances (the normal route, written here)
import scipy

from .bootstrap import check_level, check_resamples, generator, interval_from, resampled_means
from .errors import DataError, argument_message
from .ranking import InstanceValues, min_ranks, instance_values

__all__ = [
    "Comparison",
    "compare",
    "pairwise",
    "compare_with_best",
    "holm_adjusted",
    "virtual_best",
    "single_best",
    "gap_closed",
]

# Pair differences resampled at once in pairwise(): resamples x pairs floats, 32 MB.
_BLOCK_VALUES = 2**22


# ---------------------------------------------------------------------------
# formatting


def _number(value: float) -> str:
    """3 significant digits, or one decimal from 100 on (PAR-sized numbers)."""
    return f"{value:.1f}" if abs(value) >= 100 else f"{value:.3g}"


def _p(value: float) -> str:
    return f"{value:.2g}"


def _percent(level: float) -> str:
    return f"{100 * level:.10g}%"


# ---------------------------------------------------------------------------
# one pair


@dataclass(frozen=True, repr=False)
class Comparison:
    """How two algorithms compare under one rule, instance by instance.

    Attributes
    ----------
    a, b : str
        The algorithms compared; differences are ``a - b``.
    rule : str
        The rule's name.
    higher_is_better : bool
        Whether a higher value is better under the rule (False for PAR).
    instances : int
        Number of instances (the pairs).
    mean_a, mean_b : float
        Mean per-instance values (for Solved, the share of instances solved).
    difference : float
        Mean of the per-instance differences ``a - b``.
    ci_low, ci_high : float
        Paired bootstrap percentile interval of ``difference`` at ``level``.
    level : float
        Confidence level of the interval; the tests are read at ``1 - level``.
    wilcoxon_p : float
        Two-sided Wilcoxon signed-rank p-value (scipy's defaults; instances
        with equal values are dropped; 1 if all are equal).
    sign_p : float
        Two-sided sign-test p-value (binomial test of the positive
        differences among the nonzero ones; 1 if all are equal).
    a_better, b_better, equal : int
        Instances where ``a`` is better, where ``b`` is, and ties.
    wilcoxon_favours : str or None
        The algorithm whose wins carry the larger sum of signed ranks (the
        side the Wilcoxon test leans to; None if neither).
    resamples : int
        Number of bootstrap resamples.
    """

    a: str
    b: str
    rule: str
    higher_is_better: bool
    instances: int
    mean_a: float
    mean_b: float
    difference: float
    ci_low: float
    ci_high: float
    level: float
    wilcoxon_p: float
    sign_p: float
    a_better: int
    b_better: int
    equal: int
    wilcoxon_favours: str | None
    resamples: int

    @property
    def significant(self) -> bool:
        """Whether the Wilcoxon test tells the two apart at ``level`` (p < 1 - level)."""
        return self.wilcoxon_p < 1.0 - self.level

    @property
    def leader(self) -> str | None:
        """The algorithm ahead on the mean (None if the means are equal)."""
        side = self._mean_side()
        return None if side == 0 else (self.a if side > 0 else self.b)

    def _mean_side(self) -> int:
        sign = (self.difference > 0) - (self.difference < 0)
        return sign if self.higher_is_better else -sign

    @property
    def sentence(self) -> str:
        """The comparison in one plain sentence."""
        level = _percent(self.level)
        tests = f"Wilcoxon p = {_p(self.wilcoxon_p)}, sign test p = {_p(self.sign_p)}"
        side = self._mean_side()
        direction = "" if self.higher_is_better else ", lower is better"
        interval = (f"{level} interval of {self.a} - {self.b}: "
                    f"[{_number(self.ci_low)}, {_number(self.ci_high)}]")
        if side == 0:
            start = (f"{self.a} and {self.b} have the same mean {self.rule} "
                     f"({_number(self.mean_a)}) on {self.instances} instances ({interval})")
        else:
            ahead, behind = (self.a, self.b) if side > 0 else (self.b, self.a)
            start = (f"{ahead} is ahead of {behind} by {_number(abs(self.difference))} in mean "
                     f"{self.rule}{direction} ({interval})")
        excludes_zero = self.ci_low > 0 or self.ci_high < 0
        if not self.significant:
            if excludes_zero:
                return (f"{start}; the Wilcoxon test cannot tell them apart at {level} ({tests}), "
                        "though the interval of the mean difference leaves out 0.")
            return f"{start}; the data cannot tell them apart at {level} ({tests})."
        if side != 0 and self.wilcoxon_favours == self.leader:
            if not excludes_zero:
                return (f"{start}; {self.leader} is ahead at {level} ({tests}), though the "
                        "interval of the mean difference holds 0.")
            return f"{start}; {self.leader} is ahead at {level} ({tests})."
        return (f"{start}, but the signed ranks of the per-instance differences favour "
                f"{self.wilcoxon_favours} ({tests}): the mean and the test disagree at {level}.")

    def to_dict(self) -> dict[str, Any]:
        """The comparison as plain Python values (for JSON).

        Returns
        -------
        dict
            Every field, and ``significant``, ``leader`` and ``sentence``.
        """
        record = asdict(self)
        record.update(significant=self.significant, leader=self.leader, sentence=self.sentence)
        return record

    def __repr__(self) -> str:
        return (f"Comparison({self.a!r} - {self.b!r} under {self.rule!r}: difference "
                f"{_number(self.difference)}, {_percent(self.level)} interval "
                f"[{_number(self.ci_low)}, {_number(self.ci_high)}], Wilcoxon p = "
                f"{_p(self.wilcoxon_p)}, sign test p = {_p(self.sign_p)}, "
                f"{self.instances} instances)")


# scipy.stats.wilcoxon's method="auto" takes the normal approximation for every column when
# there are more instances than this; then one vectorised call equals a call per column.
_WILCOXON_EXACT_MAX = 50

# Up to this many instances, with ties or zeros among the differences, scipy's route is an
# exact sign-flip permutation test that evaluates the statistic once per sign pattern (about
# a second a pair); the same test is computed here over all patterns at once.
_WILCOXON_PERMUTATION_MAX = 13


def _average_ranks(magnitudes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per column, the average ranks of the values that are not NaN (NaN ranks 0), and the
    tie term sum(t**3 - t) over each column's groups of t equal values.

    scipy.stats.rankdata(method="average", nan_policy="omit") and the tie counts of
    scipy.stats.wilcoxon, without loading scipy.stats (a second or two of a command's
    start). Ranks are halves of integers, exact in floating point."""
    count, columns = magnitudes.shape
    # NaN last; equal values get the same average rank in any order, so no need of a stable
    # sort (numpy's default is two to three times faster here)
    order = np.argsort(magnitudes, axis=0)
    ordered = np.take_along_axis(magnitudes, order, axis=0)
    position = np.broadcast_to(np.arange(count)[:, None], (count, columns))
    starts = np.ones((count, columns), dtype=bool)
    starts[1:] = ordered[1:] != ordered[:-1]  # NaN != NaN: each NaN a group of its own
    ends = np.ones((count, columns), dtype=bool)
    ends[:-1] = starts[1:]
    first = np.maximum.accumulate(np.where(starts, position, 0), axis=0)
    last = np.minimum.accumulate(np.where(ends, position, count - 1)[::-1], axis=0)[::-1]
    valid = ~np.isnan(ordered)
    ranked = np.where(valid, (first + last) / 2.0 + 1.0, 0.0)
    ranks = np.empty_like(ranked)
    np.put_along_axis(ranks, order, ranked, axis=0)
    # each of a group's t members carries (t**3 - t) / t = t**2 - 1
    size = (last - first + 1).astype(np.float64)
    ties = np.where(valid, size * size - 1.0, 0.0).sum(axis=0)
    return ranks, ties


def _signed_ranks(differences: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per column, the average ranks of the nonzero differences' magnitudes (0 for a zero
    difference) and their tie term: what the Wilcoxon test and the leaning of a pair share."""
    return _average_ranks(np.where(differences != 0, np.abs(differences), np.nan))


def _wilcoxon_normal(differences: np.ndarray, ranks: np.ndarray, ties: np.ndarray
                     ) -> np.ndarray:
    """Per column, scipy.stats.wilcoxon's two-sided p-value by its normal approximation
    (zero_method="wilcox", no continuity correction, the tie-corrected variance), as
    scipy computes it: z = (R+ - n(n+1)/4) / se, p = 2 ndtr(-|z|), from the columns'
    :func:`_signed_ranks`. Every column has a nonzero difference."""
    count = (differences != 0).sum(axis=0).astype(np.float64)
    positive = ((differences > 0) * ranks).sum(axis=0)
    mean = count * (count + 1.0) * 0.25
    se = np.sqrt((count * (count + 1.0) * (2.0 * count + 1.0) - ties / 2) / 24)
    return np.array([2 * _normal_tail(abs(z)) for z in (positive - mean) / se])


def _normal_tail(z: float) -> float:
    """P(Z > z) for z >= 0 of the standard normal, as scipy.special.ndtr(-z) computes it
    (Cephes: through erf near 0, erfc beyond), with the C library's erf and erfc."""
    x = z * math.sqrt(0.5)
    return 0.5 - 0.5 * math.erf(x) if x < math.sqrt(0.5) else 0.5 * math.erfc(x)


def _wilcoxon(differences: np.ndarray,
              signed: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
    """Per column, scipy.stats.wilcoxon's two-sided p-value with its defaults (1 if all zero);
    ``signed``, the columns' :func:`_signed_ranks` when the caller has them."""
    p = np.ones(differences.shape[1])
    some = np.flatnonzero((differences != 0).any(axis=0))
    if differences.shape[0] > _WILCOXON_EXACT_MAX:
        if some.size:
            ranks, ties = _signed_ranks(differences) if signed is None else signed
            p[some] = _wilcoxon_normal(differences[:, some], ranks[:, some], ties[some])
        return p
    for j in some:  # the exact, permutation or normal route is chosen per column
        column = differences[:, j]
        nonzero = np.abs(column[column != 0])
        if differences.shape[0] <= _WILCOXON_PERMUTATION_MAX and (
                nonzero.size < column.size or np.unique(nonzero).size < nonzero.size):
            p[j] = _sign_flip_p(column)
        else:
            p[j] = scipy.stats.wilcoxon(column).pvalue
    return p


def _sign_flip_p(differences: np.ndarray) -> float:
    """Two-sided p-value of the signed-rank sum over all sign patterns of the nonzero
    differences: scipy.stats.wilcoxon's permutation route (scipy.stats.permutation_test with
    permutation_type="samples", exact), with its tolerance for equal sums."""
    nonzero = differences[differences != 0]
    ranks = _average_ranks(np.abs(nonzero)[:, None])[0][:, 0]
    observed = float(ranks[nonzero > 0].sum())
    patterns = (np.arange(2**nonzero.size)[:, None] >> np.arange(nonzero.size)) & 1
    null = patterns @ ranks
    gamma = abs(np.finfo(np.float64).eps * 100 * observed)
    less = np.count_nonzero(null <= observed + gamma) / null.size
    greater = np.count_nonzero(null >= observed - gamma) / null.size
    return float(min(1.0, 2 * min(less, greater)))


def _sign_test(positive: np.ndarray, nonzero: np.ndarray) -> np.ndarray:
    """scipy.stats.binomtest(positive, nonzero).pvalue, vectorised (1 if nonzero is 0).

    For p = 1/2 the distribution is symmetric: binomtest adds the tail at
    ``low = min(k, n - k)`` and its mirror, cdf(low) + sf(n - low - 1),
    and gives 1 when ``k = n / 2``. Both tails are sum_{j <= low} C(n, j) / 2^n:
    up to :data:`_EXACT_SIGN_MAX` trials summed here in integers, so the p-value is
    the exact one rounded once (scipy.stats' binomial is within 4e-14 of it),
    without loading scipy; beyond, the regularized incomplete beta function
    I_{1/2}(n - low, low + 1) of scipy.special (Boost's, as scipy.stats uses).
    """
    p = np.ones(len(positive))
    for index, (k, n) in enumerate(zip(np.asarray(positive).tolist(),
                                       np.asarray(nonzero).tolist())):
        if n and 2 * k != n:
            low = min(k, n - k)
            tail = (2 * _binomial_head(int(n))[low] / 2**int(n) if n <= _EXACT_SIGN_MAX
                    else 2 * float(scipy.special.betainc(n - low, low + 1, 0.5)))
            p[index] = min(1.0, tail)
    return p


# the most trials whose binomial tails are summed exactly (the sums of 1000 trials hold
# 1000-bit integers, 125 kB a trial count)
_EXACT_SIGN_MAX = 1000


@functools.lru_cache(maxsize=1024)
def _binomial_head(n: int) -> tuple[int, ...]:
    """sum_{j <= m} C(n, j) for m = 0 .. n, exact: each C(n, j + 1) from C(n, j), seven times
    faster than math.comb for each (the pairs of a table have about as many counts n as
    it has instances)."""
    terms = [1] * (n + 1)
    for j in range(n):
        terms[j + 1] = terms[j] * (n - j) // (j + 1)
    return tuple(itertools.accumulate(terms))


def _signed_rank_balance(differences: np.ndarray, ranks: np.ndarray) -> np.ndarray:
    """Per column, the sign of (sum of ranks of |d| over d > 0) - (the same over d < 0), from
    the columns' :func:`_signed_ranks`."""
    return np.sign((np.sign(differences) * ranks).sum(axis=0)).astype(np.int64)


def _pairs(values: InstanceValues, left: np.ndarray, right: np.ndarray, level: float,
           draws: np.ndarray | None) -> dict[str, np.ndarray]:
    """Every statistic of the pairs (left[p], right[p]), from their resampled mean differences
    ``draws`` (resamples x pairs); the tests alone when ``draws`` is None."""
    x, y = values.values[:, left], values.values[:, right]
    differences = x - y
    low, high = (np.full(left.size, np.nan),) * 2 if draws is None else \
        interval_from(draws, differences, ci=level)
    nonzero = (differences != 0).sum(axis=0)
    positive = (differences > 0).sum(axis=0)
    negative = nonzero - positive
    better, worse = (positive, negative) if values.higher_is_better else (negative, positive)
    signed = _signed_ranks(differences)  # one ranking for the test and the leaning
    leaning = _signed_rank_balance(differences, signed[0]) * (1 if values.higher_is_better
                                                              else -1)
    return {"mean a": x.mean(axis=0), "mean b": y.mean(axis=0),
            "difference": differences.mean(axis=0), "ci low": low, "ci high": high,
            "wilcoxon p": _wilcoxon(differences, signed), "sign p": _sign_test(positive, nonzero),
            "a better": better, "b better": worse, "equal": differences.shape[0] - nonzero,
            "leaning": leaning}


def _column(values: InstanceValues, name: Any, arg: str, owner: str) -> int:
    names = [str(algorithm) for algorithm in values.algorithms]
    matches = [i for i, algorithm in enumerate(values.algorithms)
               if algorithm == name or (isinstance(name, str) and str(algorithm) == name)]
    if not matches:
        raise DataError(argument_message(
            arg, owner, f"one of the table's algorithms ({', '.join(names)})", name))
    return matches[0]


def _options(ci: Any, resamples: Any, seed: Any, owner: str
             ) -> tuple[float, int, np.random.Generator]:
    return check_level(ci, owner), check_resamples(resamples, owner), generator(seed, owner)


def compare(table: pd.DataFrame, a: str, b: str, rule: Any, *, ci: float = 0.95,
            resamples: int = 10_000, seed: Any = None, duplicates: str = "raise",
            missing: str = "raise") -> Comparison:
    """Compare two algorithms under one rule on their paired per-instance values.

    Parameters
    ----------
    table : pandas.DataFrame
        The long runtime table, as in :func:`maxent_util.ranking.rank`.
    a, b : str
        The algorithms; differences are ``a - b``.
    rule : Utility, sympy.Expr, PAR or Solved, or a one-entry mapping
        The rule, as in :func:`maxent_util.ranking.per_instance`.
    ci : float, keyword-only
        Confidence level of the interval; the tests are read at ``1 - ci``.
    resamples : int, keyword-only
        Number of bootstrap resamples.
    seed : None, int or numpy.random.Generator, keyword-only
        Fixes the resamples; None draws fresh entropy. The same seed draws
        the same resampled instances as ``rank(..., ci=...)`` and
        :func:`pairwise`.
    duplicates, missing : str, keyword-only
        As in :func:`maxent_util.ranking.rank`.

    Returns
    -------
    Comparison
        The means, the mean difference and its interval, both p-values,
        the counts of instances won by each, and a plain ``sentence``.

    Raises
    ------
    DataError
        If ``a`` or ``b`` is not an algorithm of the table (naming the
        ones it has), they are the same, or an option is invalid; also as
        :func:`maxent_util.ranking.rank`.
    UtilityError
        As :func:`maxent_util.ranking.rank`.

    Examples
    --------
    >>> import pandas as pd
    >>> from maxent_util import PAR
    >>> runs = pd.DataFrame({"algorithm": ["a"] * 8 + ["b"] * 8,
    ...                      "instance": list("ijklmnop") * 2,
    ...                      "runtime": [1.0, 2, 3, 4, 5, 6, 7, 8, 2, 3, 4, 5, 6, 7, 8, 9],
    ...                      "status": "solved", "cutoff": 10.0})
    >>> result = compare(runs, "a", "b", PAR(2), seed=0)
    >>> result.difference, result.a_better, round(result.sign_p, 4)
    (-1.0, 8, 0.0078)
    >>> print(result.sentence)
    a is ahead of b by 1 in mean PAR-2, lower is better (95% interval of a - b: [-1, -1]); a is ahead at 95% (Wilcoxon p = 0.0078, sign test p = 0.0078).
    """
    owner = "compare"
    level, resamples, rng = _options(ci, resamples, seed, owner)
    values = instance_values(table, rule, owner, duplicates, missing)
    i, j = _column(values, a, "a", owner), _column(values, b, "b", owner)
    if i == j:
        raise DataError(argument_message("b", owner, "an algorithm other than `a`", b))
    draws = resampled_means(values.values[:, [i, j]], resamples, rng)
    found = {key: column[0] for key, column in _pairs(
        values, np.array([i]), np.array([j]), level, draws[:, :1] - draws[:, 1:]).items()}
    leaning = int(found["leaning"])
    return Comparison(
        a=str(values.algorithms[i]), b=str(values.algorithms[j]), rule=values.name,
        higher_is_better=values.higher_is_better, instances=int(values.instances.size),
        mean_a=float(found["mean a"]), mean_b=float(found["mean b"]),
        difference=float(found["difference"]), ci_low=float(found["ci low"]),
        ci_high=float(found["ci high"]), level=level, wilcoxon_p=float(found["wilcoxon p"]),
        sign_p=float(found["sign p"]), a_better=int(found["a better"]),
        b_better=int(found["b better"]), equal=int(found["equal"]),
        wilcoxon_favours=None if leaning == 0 else str(values.algorithms[i if leaning > 0
                                                                          else j]),
        resamples=resamples)


# ---------------------------------------------------------------------------
# every pair


def holm_adjusted(p_values: Any) -> np.ndarray:
    """Holm's step-down adjustment of p-values for multiple tests.

    The ``i``-th smallest of ``m`` p-values becomes
    :math:`\\max_{j \\le i} \\min(1, (m - j + 1)\\,p_{(j)})`; rejecting the
    hypotheses whose adjusted p-value is below ``alpha`` controls the
    family-wise error rate at ``alpha`` (Holm 1979).

    Parameters
    ----------
    p_values : array-like
        P-values between 0 and 1.

    Returns
    -------
    numpy.ndarray
        The adjusted p-values, in the order given.

    Raises
    ------
    DataError
        If a value is not a number between 0 and 1.

    Examples
    --------
    >>> holm_adjusted([0.01, 0.04, 0.03])
    array([0.03, 0.06, 0.06])
    """
    owner = "holm_adjusted"
    try:
        p = np.asarray(p_values, dtype=np.float64).ravel()
    except (TypeError, ValueError):
        raise DataError(argument_message("p_values", owner, "an array of numbers",
                                         type(p_values).__name__)) from None
    bad = np.flatnonzero(~((p >= 0) & (p <= 1)))
    if bad.size:
        raise DataError(argument_message(f"p_values[{int(bad[0])}]", owner,
                                         "a number between 0 and 1", float(p[bad[0]])))
    order = np.argsort(p, kind="stable")
    steps = (p.size - np.arange(p.size)) * p[order]
    adjusted = np.empty(p.size)
    adjusted[order] = np.minimum(1.0, np.maximum.accumulate(steps))
    return adjusted


def _rank_order(values: InstanceValues) -> np.ndarray:
    """Column indices best first by score (then by name), as rank() orders its rows."""
    return np.lexsort((values.algorithms.astype(str),
                       min_ranks(values.scores(), values.higher_is_better)))


def pairwise(table: pd.DataFrame, rule: Any, *, ci: float = 0.95, resamples: int = 10_000,
             seed: Any = None, duplicates: str = "raise", missing: str = "raise"
             ) -> pd.DataFrame:
    """Compare every pair of algorithms under one rule, with Holm-adjusted p-values.

    Each pair is compared as :func:`compare` does, all from the same
    resamples; ``a`` is the better-ranked algorithm of the pair, so the
    difference ``a - b`` favours ``a`` (or is zero).

    Parameters
    ----------
    table : pandas.DataFrame
        The long runtime table, as in :func:`maxent_util.ranking.rank`.
    rule : Utility, sympy.Expr, PAR or Solved, or a one-entry mapping
        The rule, as in :func:`maxent_util.ranking.per_instance`.
    ci : float, keyword-only
        Confidence level of the intervals; a difference is significant
        when its Holm-adjusted Wilcoxon p-value is below ``1 - ci``.
    resamples : int, keyword-only
        Number of bootstrap resamples.
    seed : None, int or numpy.random.Generator, keyword-only
        Fixes the resamples.
    duplicates, missing : str, keyword-only
        As in :func:`maxent_util.ranking.rank`.

    Returns
    -------
    pandas.DataFrame
        One row per pair, indexed by ``("a", "b")`` in rank order, with
        columns ``"mean a"``, ``"mean b"``, ``"difference"``, ``"ci low"``,
        ``"ci high"``, ``"wilcoxon p"``, ``"sign p"``, ``"wilcoxon p
        holm"``, ``"sign p holm"`` and ``"significant"``; ``attrs`` holds
        ``rule``, ``level``, ``resamples`` and ``higher_is_better``.

    Raises
    ------
    DataError
        If the table has fewer than two algorithms or an option is invalid;
        also as :func:`maxent_util.ranking.rank`.
    UtilityError
        As :func:`maxent_util.ranking.rank`.

    Examples
    --------
    >>> import pandas as pd
    >>> from maxent_util import Solved
    >>> runs = pd.DataFrame({"algorithm": ["a"] * 4 + ["b"] * 4 + ["c"] * 4,
    ...                      "instance": list("ijkl") * 3,
    ...                      "runtime": 1.0, "cutoff": 10.0,
    ...                      "status": ["solved"] * 4 + ["solved", "capped"] * 2
    ...                                + ["capped"] * 4})
    >>> table = pairwise(runs, Solved(), seed=0)
    >>> table[["difference", "sign p", "sign p holm"]]  # doctest: +NORMALIZE_WHITESPACE
         difference  sign p  sign p holm
    a b
    a b         0.5   0.500        1.000
      c         1.0   0.125        0.375
    b c         0.5   0.500        1.000
    """
    owner = "pairwise"
    level, resamples, rng = _options(ci, resamples, seed, owner)
    values = instance_values(table, rule, owner, duplicates, missing)
    if values.algorithms.size < 2:
        raise DataError(argument_message("table", owner, "runs of at least two algorithms",
                                         f"runs of {values.algorithms.size}"))
    order = _rank_order(values)
    first, second = np.triu_indices(order.size, k=1)
    left, right = order[first], order[second]
    # one algorithm's resampled means a row: a pair's draws are two rows apart, copied whole
    # rather than gathered a number at a time, and each pair's draws lie together for the
    # sort of its interval (a view of resamples x pairs, as interval_from reads them)
    means = np.ascontiguousarray(resampled_means(values.values, resamples, rng).T)
    block = max(1, _BLOCK_VALUES // resamples)
    parts = []
    for start in range(0, left.size, block):
        chosen = slice(start, start + block)
        draws = (means[left[chosen]] - means[right[chosen]]).T
        parts.append(_pairs(values, left[chosen], right[chosen], level, draws))
    shown = ["mean a", "mean b", "difference", "ci low", "ci high", "wilcoxon p", "sign p"]
    names = values.algorithms.astype(str)
    frame = pd.DataFrame({key: np.concatenate([part[key] for part in parts]) for key in shown},
                         index=pd.MultiIndex.from_arrays([names[left], names[right]],
                                                         names=["a", "b"]))
    frame["wilcoxon p holm"] = holm_adjusted(frame["wilcoxon p"].to_numpy())
    frame["sign p holm"] = holm_adjusted(frame["sign p"].to_numpy())
    frame["significant"] = frame["wilcoxon p holm"].to_numpy() < 1.0 - level
    frame.attrs.update(rule=values.name, level=level, resamples=resamples,
                       higher_is_better=values.higher_is_better)
    return frame


def compare_with_best(table: pd.DataFrame, rule: Any, *, ci: float = 0.95,
                      duplicates: str = "raise", missing: str = "raise") -> pd.DataFrame:
    """Compare every algorithm with the best under one rule: is it really behind?

    The best is the algorithm ranked first (among equal scores, the first
    by name, as :func:`pairwise` orders them). Each other algorithm is
    compared with it instance by instance, as :func:`compare` does, by the
    Wilcoxon signed-rank and sign tests; the p-values are Holm-adjusted over
    these ``k - 1`` comparisons (fewer than :func:`pairwise`'s
    ``k (k - 1) / 2``, so the adjustment costs less power). No bootstrap:
    the result does not depend on a seed.

    Parameters
    ----------
    table : pandas.DataFrame
        The long runtime table, as in :func:`maxent_util.ranking.rank`.
    rule : Utility, sympy.Expr, PAR or Solved, or a one-entry mapping
        The rule, as in :func:`maxent_util.ranking.per_instance`.
    ci : float, keyword-only
        The level: a difference is significant when its Holm-adjusted
        Wilcoxon p-value is below ``1 - ci`` (as in :func:`pairwise`).
    duplicates, missing : str, keyword-only
        As in :func:`maxent_util.ranking.rank`.

    Returns
    -------
    pandas.DataFrame
        One row per algorithm other than the best, in rank order, indexed
        by ``algorithm``, with columns ``"mean"`` (its mean per-instance
        value), ``"difference"`` (its mean minus the best's), ``"wilcoxon
        p"``, ``"sign p"``, ``"wilcoxon p holm"``, ``"sign p holm"`` and
        ``"significant"``; ``attrs`` holds ``best``, ``best mean``,
        ``rule``, ``level`` and ``higher_is_better``.

    Raises
    ------
    DataError
        If the table has fewer than two algorithms or ``ci`` is invalid;
        also as :func:`maxent_util.ranking.rank`.
    UtilityError
        As :func:`maxent_util.ranking.rank`.

    Examples
    --------
    >>> import pandas as pd
    >>> from maxent_util import PAR
    >>> runs = pd.DataFrame({"algorithm": ["a"] * 8 + ["b"] * 8 + ["c"] * 8,
    ...                      "instance": list("ijklmnop") * 3,
    ...                      "runtime": list(range(1, 9)) + list(range(2, 10))
    ...                                 + [1, 3, 2, 5, 4, 7, 6, 9],
    ...                      "status": "solved", "cutoff": 10.0})
    >>> found = compare_with_best(runs, PAR(2))
    >>> found.attrs["best"], found.index.tolist(), found["significant"].tolist()
    ('a', ['c', 'b'], [False, True])
    """
    owner = "compare_with_best"
    level = check_level(ci, owner)
    values = instance_values(table, rule, owner, duplicates, missing)
    if values.algorithms.size < 2:
        raise DataError(argument_message("table", owner, "runs of at least two algorithms",
                                         f"runs of {values.algorithms.size}"))
    order = _rank_order(values)
    best, others = order[0], order[1:]
    found = _pairs(values, others, np.full(others.size, best), level, None)
    frame = pd.DataFrame({"mean": found["mean a"], "difference": found["difference"],
                          "wilcoxon p": found["wilcoxon p"], "sign p": found["sign p"]},
                         index=pd.Index(values.algorithms[others].astype(str), name="algorithm"))
    frame["wilcoxon p holm"] = holm_adjusted(frame["wilcoxon p"].to_numpy())
    frame["sign p holm"] = holm_adjusted(frame["sign p"].to_numpy())
    frame["significant"] = frame["wilcoxon p holm"].to_numpy() < 1.0 - level
    frame.attrs.update(best=str(values.algorithms[best]),
                       **{"best mean": float(values.values[:, best].mean())},
                       rule=values.name, level=level, higher_is_better=values.higher_is_better)
    return frame


# ---------------------------------------------------------------------------
# virtual and single best


def _portfolio(values: InstanceValues, among: Sequence[str] | None, owner: str) -> np.ndarray:
    """Column indices of the algorithms the oracle and the single best choose from."""
    if among is None:
        return np.arange(values.algorithms.size)
    if isinstance(among, str) or not isinstance(among, Sequence):
        raise DataError(argument_message("among", owner, "a list of algorithm names", among))
    if not among:
        raise DataError(argument_message("among", owner, "a non-empty list of algorithm names",
                                         among))
    chosen = sorted({_column(values, name, "among", owner) for name in among})
    return np.asarray(chosen, dtype=np.int64)


def _best_scores(values: InstanceValues, columns: np.ndarray) -> tuple[float, int, float]:
    """The virtual best's score, and the single best's column and score, among ``columns``."""
    matrix = values.values[:, columns]
    best = matrix.max(axis=1) if values.higher_is_better else matrix.min(axis=1)
    virtual = float(values.scores(best[:, None])[0])
    scores = values.scores(matrix)
    pick = int(np.argmax(scores) if values.higher_is_better else np.argmin(scores))
    return virtual, int(columns[pick]), float(scores[pick])


def virtual_best(table: pd.DataFrame, rule: Any, *, among: Sequence[str] | None = None,
                 duplicates: str = "raise", missing: str = "raise") -> float:
    """The score of the virtual best solver: the best algorithm picked on every instance.

    Parameters
    ----------
    table : pandas.DataFrame
        The long runtime table, as in :func:`maxent_util.ranking.rank`.
    rule : Utility, sympy.Expr, PAR or Solved, or a one-entry mapping
        The rule, as in :func:`maxent_util.ranking.per_instance`.
    among : list of str, optional, keyword-only
        The algorithms to pick from (default: all).
    duplicates, missing : str, keyword-only
        As in :func:`maxent_util.ranking.rank`.

    Returns
    -------
    float
        The mean over instances of the best per-instance value (the
        highest utility, the lowest penalised runtime; for Solved, the
        number of instances some algorithm solves), on the scale of
        :func:`maxent_util.ranking.rank`'s scores.

    Raises
    ------
    DataError, UtilityError
        As :func:`maxent_util.ranking.rank`; also if ``among`` names an
        algorithm the table lacks.

    Examples
    --------
    >>> import pandas as pd
    >>> from maxent_util import PAR
    >>> runs = pd.DataFrame({"algorithm": ["a", "a", "b", "b"],
    ...                      "instance": ["i", "j", "i", "j"],
    ...                      "runtime": [1.0, 100.0, 10.0, 20.0],
    ...                      "status": ["solved", "capped", "solved", "solved"],
    ...                      "cutoff": 100.0})
    >>> virtual_best(runs, PAR(2))  # i: a in 1 s, j: b in 20 s
    10.5
    """
    owner = "virtual_best"
    values = instance_values(table, rule, owner, duplicates, missing)
    return _best_scores(values, _portfolio(values, among, owner))[0]


def single_best(table: pd.DataFrame, rule: Any, *, among: Sequence[str] | None = None,
                duplicates: str = "raise", missing: str = "raise") -> str:
    """The single best solver: the algorithm with the best score under the rule.

    Parameters
    ----------
    table : pandas.DataFrame
        The long runtime table, as in :func:`maxent_util.ranking.rank`.
    rule : Utility, sympy.Expr, PAR or Solved, or a one-entry mapping
        The rule, as in :func:`maxent_util.ranking.per_instance`.
    among : list of str, optional, keyword-only
        The algorithms to pick from (default: all).
    duplicates, missing : str, keyword-only
        As in :func:`maxent_util.ranking.rank`.

    Returns
    -------
    str
        Its name; among equal scores, the first by name.

    Raises
    ------
    DataError, UtilityError
        As :func:`virtual_best`.

    Examples
    --------
    >>> import pandas as pd
    >>> from maxent_util import PAR
    >>> runs = pd.DataFrame({"algorithm": ["a", "a", "b", "b"],
    ...                      "instance": ["i", "j", "i", "j"],
    ...                      "runtime": [1.0, 100.0, 10.0, 20.0],
    ...                      "status": ["solved", "capped", "solved", "solved"],
    ...                      "cutoff": 100.0})
    >>> single_best(runs, PAR(2))
    'b'
    """
    owner = "single_best"
    values = instance_values(table, rule, owner, duplicates, missing)
    return str(values.algorithms[_best_scores(values, _portfolio(values, among, owner))[1]])


def gap_closed(table: pd.DataFrame, rule: Any, *, among: Sequence[str] | None = None,
               duplicates: str = "raise", missing: str = "raise") -> pd.Series:
    """The fraction of the gap between the single and the virtual best each algorithm closes.

    .. math::

        \\text{gap closed}(x) = \\frac{s(x) - s(\\text{SBS})}{s(\\text{VBS}) - s(\\text{SBS})}

    with :math:`s` the score under the rule: 0 for the single best, 1 for
    an algorithm as good as the virtual best, negative for one worse than
    the single best. The usual ASlib measure of an algorithm selector: put
    the selector's runs in the table and the portfolio's names in
    ``among``.

    Parameters
    ----------
    table : pandas.DataFrame
        The long runtime table, as in :func:`maxent_util.ranking.rank`.
    rule : Utility, sympy.Expr, PAR or Solved, or a one-entry mapping
        The rule, as in :func:`maxent_util.ranking.per_instance`.
    among : list of str, optional, keyword-only
        The portfolio the virtual and single best choose from (default:
        all algorithms); every algorithm of the table gets a fraction.
    duplicates, missing : str, keyword-only
        As in :func:`maxent_util.ranking.rank`.

    Returns
    -------
    pandas.Series
        The fraction per algorithm (best first), named ``"gap closed"``;
        ``attrs`` holds ``"virtual best"`` (its score), ``"single best"``
        (its name) and ``"single best score"``.

    Raises
    ------
    DataError
        If the single best is as good as the virtual best (it is best on
        every instance: there is no gap to close); also as
        :func:`virtual_best`.
    UtilityError
        As :func:`maxent_util.ranking.rank`.

    Examples
    --------
    >>> import pandas as pd
    >>> from maxent_util import PAR
    >>> runs = pd.DataFrame({"algorithm": ["a", "a", "b", "b", "s", "s"],
    ...                      "instance": ["i", "j"] * 3,
    ...                      "runtime": [1.0, 100.0, 10.0, 20.0, 2.0, 20.0],
    ...                      "status": ["solved", "capped", "solved", "solved", "solved",
    ...                                 "solved"], "cutoff": 100.0})
    >>> gap = gap_closed(runs, PAR(2), among=["a", "b"])
    >>> gap.attrs  # on i, a takes 1 s; on j, b 20 s: VBS (1 + 20) / 2
    {'virtual best': 10.5, 'single best': 'b', 'single best score': 15.0}
    >>> gap.round(3).to_dict()  # s scores 11: (11 - 15) / (10.5 - 15)
    {'s': 0.889, 'b': 0.0, 'a': -19.0}
    """
    owner = "gap_closed"
    values = instance_values(table, rule, owner, duplicates, missing)
    virtual, column, single = _best_scores(values, _portfolio(values, among, owner))
    name = str(values.algorithms[column])
    if virtual == single or not math.isfinite(virtual - single):
        raise DataError(argument_message(
            "among" if among is not None else "table", owner,
            "a portfolio whose virtual best beats its single best",
            f"single best {name!r} with the virtual best's score {single!r}",
            "The single best is best on every instance: there is no gap to close."))
    scores = values.scores()
    order = _rank_order(values)
    closed = (scores[order] - single) / (virtual - single) + 0.0  # no -0.0 for the SBS
    series = pd.Series(closed, index=pd.Index(values.algorithms[order], name="algorithm"),
                       name="gap closed")
    series.attrs.update({"virtual best": virtual, "single best": name,
                         "single best score": single})
    return series
