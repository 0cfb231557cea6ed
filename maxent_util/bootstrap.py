"""Paired bootstrap over instances: intervals for mean scores and how stable a ranking is.

The algorithms of a long table ran on the same instances, so one rule's
per-instance values form an instances x algorithms matrix
(:func:`maxent_util.ranking.per_instance`) whose rows are *paired*. A
resample draws ``n`` instances (rows) with replacement and keeps each drawn
row whole: every algorithm sees the same resampled instances, and what the
algorithms have in common (hard instances are hard for all) stays in the
resample (``scipy.stats.bootstrap(..., paired=True)``).

*How it is computed.* A resample is a row of ``n`` instance indices drawn
from one :class:`numpy.random.Generator`; its counts (how often each
instance was drawn) turn the resampled means of every algorithm into one
matrix product, ``counts @ values / n``. Resamples are drawn in chunks of
at most about two million indices, so memory stays bounded whatever the
number of resamples; a seed fixes every result.

*The same numbers on every CPU.* A BLAS matrix product adds in an order
that follows the machine's SIMD width and the shape of the chunk, so a
plain ``counts @ values`` differs in the last bit between CPUs and
between chunk sizes. Here the product is exact instead: each column of
``values`` is cut into at most three slices of integers times a power of
two (``b = 53 - ceil(log2 n)`` bits each, below the column's largest
magnitude), so that every partial sum of ``counts @ slice`` is an integer
below 2**53 and any order of addition gives the same, exact sum. The
slices' sums are then scaled and added in a fixed order and divided by
``n``. What is left below the third slice (less than ``2**-(3 b)`` of the
column's largest magnitude, about 1e-40 of it for 400 instances) is
dropped, the same way on every machine. The cost is one product per
slice that the values need (utilities in [0, 1] need two).

*Intervals.* ``method="percentile"`` takes the ``(1 - ci)/2`` and
``(1 + ci)/2`` quantiles of the resampled means (linear interpolation, as
:func:`numpy.quantile` and scipy's percentile method).
``method="BCa"`` (bias-corrected and accelerated, Efron 1987) moves both
quantiles by a bias correction (the share of resampled means below the
observed one, counting ties half) and an acceleration (from the jackknife,
which for a mean is one vectorised expression); both follow
``scipy.stats.bootstrap``. A bias share of 0 or 1 (every resample on one
side, possible only with very few instances) is clipped to the outermost
share ``1/(2 * resamples)`` the resamples can show, instead of giving NaN.
A column with one value throughout has the interval ``[value, value]``
under both methods.

*Ranks.* :func:`rank_probabilities` ranks the algorithms in every resample
(1 = best; equal means share the best of their ranks, as
``pandas.Series.rank(method="min")``) and counts. Means that differ by less
than the rounding of a sum of ``n`` values (``4 n`` machine epsilons of the
largest value) count as equal, so algorithms with the same values on the
resampled instances tie whatever the order of summation.
"""

from __future__ import annotations

from typing import Any, Iterator

import numpy as np
import pandas as pd
# scipy loads scipy.special on first use: only BCa intervals need it
import scipy

from ._limits import MAX_RESAMPLES
from .errors import DataError, argument_message
from .runs import real

__all__ = [
    "BOOTSTRAP_METHODS",
    "bootstrap_means",
    "bootstrap_intervals",
    "interval_from",
    "rank_probabilities",
]

BOOTSTRAP_METHODS: tuple[str, ...] = ("percentile", "BCa")
"""Values of ``method=`` in :func:`bootstrap_intervals` and :func:`interval_from`."""

# Indices drawn per chunk: 2**21 int64 indices and as many float64 counts, 32 MB in all.
_CHUNK_INDICES = 2**21

# Slices of each column at most (module notes: what is left below the last is dropped).
_SLICES = 3

# Means closer than this many machine epsilons times n times the largest |value| are equal.
_TIE_ULPS = 4.0


# ---------------------------------------------------------------------------
# arguments, shared with the ranking and comparison modules


def check_level(ci: Any, owner: str, arg: str = "ci") -> float:
    """A confidence level strictly between 0 and 1, as a float."""
    number = real(ci)
    if not 0.0 < number < 1.0:  # NaN fails too
        raise DataError(argument_message(arg, owner, "a confidence level strictly between 0 "
                                         "and 1, such as 0.95", ci))
    return number


def check_resamples(resamples: Any, owner: str) -> int:
    """A positive number of resamples, at most :data:`MAX_RESAMPLES`, as an int."""
    if isinstance(resamples, (bool, np.bool_)) or not isinstance(resamples, (int, np.integer)) \
            or resamples < 1:
        raise DataError(argument_message("resamples", owner, "a positive integer, such as "
                                         "10_000", resamples))
    if resamples > MAX_RESAMPLES:  # see maxent_util._limits
        raise DataError(argument_message("resamples", owner, f"at most {MAX_RESAMPLES:,}",
                                         resamples))
    return int(resamples)


def generator(seed: Any, owner: str) -> np.random.Generator:
    """The random generator of ``seed``: None (fresh entropy), a nonnegative int or a Generator."""
    if isinstance(seed, np.random.Generator):
        return seed
    if seed is not None and (isinstance(seed, (bool, np.bool_))
                             or not isinstance(seed, (int, np.integer)) or seed < 0):
        raise DataError(argument_message("seed", owner, "None, a nonnegative integer or a "
                                         "numpy.random.Generator", seed))
    return np.random.default_rng(None if seed is None else int(seed))


def check_method(method: Any, owner: str) -> str:
    if not (isinstance(method, str) and method in BOOTSTRAP_METHODS):
        raise DataError(argument_message("method", owner,
                                         f"one of {', '.join(map(repr, BOOTSTRAP_METHODS))}",
                                         method))
    return method


def _matrix(values: Any, owner: str, arg: str = "values") -> tuple[np.ndarray, pd.Index | None]:
    """An instances x columns float matrix (a 1-D array is one column) and the columns' labels."""
    labels = values.columns if isinstance(values, pd.DataFrame) else None
    try:
        matrix = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError, OverflowError):
        raise DataError(argument_message(
            arg, owner, "an instances x algorithms array of numbers", type(values).__name__)) \
            from None
    if matrix.ndim == 1:
        matrix = matrix[:, None]
    if matrix.ndim != 2 or matrix.shape[0] == 0 or matrix.shape[1] == 0:
        raise DataError(argument_message(
            arg, owner, "an instances x algorithms array with at least one of each",
            f"an array of shape {matrix.shape}"))
    bad = np.flatnonzero(~np.isfinite(matrix).all(axis=1))
    if bad.size:
        row = int(bad[0])
        column = int(np.flatnonzero(~np.isfinite(matrix[row]))[0])
        raise DataError(argument_message(
            f"{arg}[{row}, {column}]", owner, "a finite number", float(matrix[row, column])))
    return matrix, labels


# ---------------------------------------------------------------------------
# the resamples


def resample_counts(n: int, resamples: int, rng: np.random.Generator) -> Iterator[np.ndarray]:
    """Chunks of resamples as counts: a (chunk x n) float matrix, row r = how often each
    instance was drawn in resample r (each row sums to n)."""
    chunk = max(1, _CHUNK_INDICES // n)
    for start in range(0, resamples, chunk):
        size = min(chunk, resamples - start)
        drawn = rng.integers(0, n, size=(size, n))
        drawn += (np.arange(size) * n)[:, None]  # row r's indices to r * n + index
        yield np.bincount(drawn.ravel(), minlength=size * n).reshape(size, n).astype(np.float64)


class _ExactSums:
    """``matrix`` cut into integer slices whose products with resample counts are exact
    (module notes): ``means(counts)`` is then the same, bit for bit, whatever the BLAS, the
    CPU and the chunk the counts came in."""

    def __init__(self, matrix: np.ndarray) -> None:
        n, k = matrix.shape
        self.n, self.k = n, k
        # counts sum to n, so a slice of integers of at most `bits` bits sums to at most 2**53
        bits = 53 - (n - 1).bit_length()
        top = np.frexp(np.abs(matrix).max(axis=0))[1]  # every |value| of column j < 2**top[j]
        slices, exponents = [], []
        rest = matrix
        for s in range(1, _SLICES + 1):
            exponent = top - s * bits  # slice s counts in units of 2**exponent
            # rint of the rest in those units; scaling by powers of two and the subtraction
            # are exact, so rest is exactly what the slices so far leave out
            units = np.rint(np.ldexp(rest, -exponent))
            slices.append(units)
            exponents.append(exponent)
            rest = rest - np.ldexp(units, exponent)
            if not rest.any():
                break
        self.slices = np.hstack(slices)
        self.exponents = exponents

    def means(self, counts: np.ndarray) -> np.ndarray:
        """(chunk x columns): each column's mean over each resample (a row of counts)."""
        sums = counts @ self.slices  # integers below 2**53: exact in any order
        k = self.k
        total = np.ldexp(sums[:, -k:], self.exponents[-1])
        for s in range(len(self.exponents) - 2, -1, -1):  # smallest slice first
            total += np.ldexp(sums[:, s * k:(s + 1) * k], self.exponents[s])
        total /= self.n
        return total


def resampled_means(matrix: np.ndarray, resamples: int, rng: np.random.Generator) -> np.ndarray:
    """(resamples x columns): each column's mean over each paired resample of the rows, the
    same on every CPU and for every chunk size (module notes)."""
    exact = _ExactSums(matrix)
    out = np.empty((resamples, matrix.shape[1]))
    start = 0
    for counts in resample_counts(matrix.shape[0], resamples, rng):
        out[start:start + counts.shape[0]] = exact.means(counts)
        start += counts.shape[0]
    return out


def _column_quantiles(ordered: np.ndarray, shares: np.ndarray) -> np.ndarray:
    """Per column j the ``shares[j]`` quantile of the sorted column (numpy's linear method)."""
    position = shares * (ordered.shape[0] - 1)
    below = np.clip(np.floor(position).astype(np.int64), 0, ordered.shape[0] - 1)
    above = np.minimum(below + 1, ordered.shape[0] - 1)
    columns = np.arange(ordered.shape[1])
    low, high = ordered[below, columns], ordered[above, columns]
    return low + (high - low) * (position - below)


def interval_from(resampled: np.ndarray, values: np.ndarray, *, ci: float = 0.95,
                  method: str = "percentile") -> tuple[np.ndarray, np.ndarray]:
    """Bootstrap intervals of column means from resampled means already drawn.

    Parameters
    ----------
    resampled : numpy.ndarray
        (resamples x columns): each column's mean over each resample, as
        returned by :func:`bootstrap_means` for ``values``.
    values : numpy.ndarray
        (instances x columns): the values whose means were resampled (BCa's
        jackknife and the observed means come from them).
    ci : float, keyword-only
        Confidence level, strictly between 0 and 1.
    method : {"percentile", "BCa"}, keyword-only
        How the interval is read off the resampled means (module notes).

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        The lower and upper ends, one per column.

    Raises
    ------
    DataError
        If the arrays' shapes disagree or ``ci`` or ``method`` is not one
        of the values above.

    Examples
    --------
    >>> values = np.array([[1.0], [2.0], [3.0], [4.0]])
    >>> means = bootstrap_means(values, resamples=2000, seed=1)
    >>> low, high = interval_from(means, values, ci=0.9)
    >>> float(low[0]), float(high[0])
    (1.5, 3.5)
    """
    owner = "interval_from"
    level = check_level(ci, owner)
    method = check_method(method, owner)
    matrix, _ = _matrix(values, owner)
    draws, _ = _matrix(resampled, owner, "resampled")
    if draws.shape[1] != matrix.shape[1]:
        raise DataError(argument_message(
            "resampled", owner, f"one column per column of `values` ({matrix.shape[1]})",
            f"an array of shape {draws.shape}"))
    return _interval(draws, matrix, level, method)


def _interval(draws: np.ndarray, matrix: np.ndarray, level: float, method: str
              ) -> tuple[np.ndarray, np.ndarray]:
    alpha = (1.0 - level) / 2.0
    ordered = np.sort(draws, axis=0)
    k = matrix.shape[1]
    if method == "percentile":
        low_share, high_share = np.full(k, alpha), np.full(k, 1.0 - alpha)
    else:
        low_share, high_share = _bca_shares(ordered, matrix, alpha)
    low = _column_quantiles(ordered, low_share)
    high = _column_quantiles(ordered, high_share)
    constant = (matrix == matrix[0]).all(axis=0)
    low[constant] = high[constant] = matrix[0, constant]
    return low, high


def _bca_shares(ordered: np.ndarray, matrix: np.ndarray, alpha: float
                ) -> tuple[np.ndarray, np.ndarray]:
    """BCa's adjusted quantile shares (Efron 1987; the formulas of scipy.stats.bootstrap)."""
    resamples, n = ordered.shape[0], matrix.shape[0]
    observed = matrix.mean(axis=0)
    below = (ordered < observed).sum(axis=0)
    at_most = (ordered <= observed).sum(axis=0)
    edge = 1.0 / (2.0 * resamples)
    bias = scipy.special.ndtri(np.clip((below + at_most) / (2.0 * resamples), edge, 1.0 - edge))
    if n > 1:
        # jackknife of a mean: leaving instance i out gives (total - x_i) / (n - 1)
        left_out = (matrix.sum(axis=0) - matrix) / (n - 1)
        spread = left_out.mean(axis=0) - left_out
        with np.errstate(divide="ignore", invalid="ignore"):
            acceleration = (spread**3).sum(axis=0) / (6.0 * ((spread**2).sum(axis=0)) ** 1.5)
        acceleration = np.where(np.isfinite(acceleration), acceleration, 0.0)
    else:
        acceleration = np.zeros(matrix.shape[1])

    def share(z: float) -> np.ndarray:
        shifted = bias + z
        return scipy.special.ndtr(bias + shifted / (1.0 - acceleration * shifted))

    return share(scipy.special.ndtri(alpha)), share(-scipy.special.ndtri(alpha))


# ---------------------------------------------------------------------------
# public entry points


def bootstrap_means(values: Any, *, resamples: int = 10_000, seed: Any = None
                    ) -> np.ndarray | pd.DataFrame:
    """Each column's mean over paired resamples of the rows (instances).

    Parameters
    ----------
    values : array-like or pandas.DataFrame
        Instances x algorithms (a 1-D array is one algorithm), such as
        :func:`maxent_util.ranking.per_instance` returns.
    resamples : int, keyword-only
        Number of resamples.
    seed : None, int or numpy.random.Generator, keyword-only
        Fixes the resamples (None draws fresh entropy).

    Returns
    -------
    numpy.ndarray or pandas.DataFrame
        Resamples x algorithms (a DataFrame with the same columns when
        ``values`` is one).

    Raises
    ------
    DataError
        If ``values`` is not a nonempty 2-D array of finite numbers, or
        ``resamples`` or ``seed`` is invalid.

    Examples
    --------
    >>> means = bootstrap_means([[0.0, 1.0], [1.0, 1.0]], resamples=4, seed=0)
    >>> means.shape
    (4, 2)
    >>> bool(set(means[:, 0]) <= {0.0, 0.5, 1.0}), bool((means[:, 1] == 1.0).all())
    (True, True)
    """
    owner = "bootstrap_means"
    matrix, labels = _matrix(values, owner)
    draws = resampled_means(matrix, check_resamples(resamples, owner), generator(seed, owner))
    return draws if labels is None else pd.DataFrame(draws, columns=labels)


def bootstrap_intervals(values: Any, *, ci: float = 0.95, resamples: int = 10_000,
                        seed: Any = None, method: str = "percentile"
                        ) -> tuple[np.ndarray, np.ndarray] | pd.DataFrame:
    """Bootstrap confidence intervals of every algorithm's mean over paired instances.

    Parameters
    ----------
    values : array-like or pandas.DataFrame
        Instances x algorithms (a 1-D array is one algorithm).
    ci : float, keyword-only
        Confidence level, strictly between 0 and 1.
    resamples : int, keyword-only
        Number of resamples.
    seed : None, int or numpy.random.Generator, keyword-only
        Fixes the resamples.
    method : {"percentile", "BCa"}, keyword-only
        Percentile interval (default) or bias-corrected and accelerated
        (module notes).

    Returns
    -------
    (numpy.ndarray, numpy.ndarray) or pandas.DataFrame
        The lower and upper ends, one per algorithm; for a DataFrame, a
        DataFrame indexed by its columns with columns ``"low"`` and
        ``"high"``.

    Raises
    ------
    DataError
        If ``values`` is not a nonempty 2-D array of finite numbers, or an
        option is invalid.

    Examples
    --------
    >>> import pandas as pd
    >>> values = pd.DataFrame({"a": [0.1, 0.9, 0.4, 0.7, 0.3, 0.8], "b": 0.5})
    >>> bootstrap_intervals(values, ci=0.9, seed=1).round(3)
    ... # doctest: +NORMALIZE_WHITESPACE
         low   high
    a  0.333  0.717
    b  0.500  0.500
    """
    owner = "bootstrap_intervals"
    matrix, labels = _matrix(values, owner)
    level = check_level(ci, owner)
    method = check_method(method, owner)
    draws = resampled_means(matrix, check_resamples(resamples, owner), generator(seed, owner))
    low, high = _interval(draws, matrix, level, method)
    if labels is None:
        return low, high
    return pd.DataFrame({"low": low, "high": high}, index=labels)


def min_ranks(scores: np.ndarray, higher_is_better: bool, tolerance: float = 0.0) -> np.ndarray:
    """Per row, each column's rank: 1 + the number of columns better by more than ``tolerance``.

    Ties (within ``tolerance``, chained) share the best of their ranks, as
    ``pandas.Series.rank(method="min")``.
    """
    key = -scores if higher_is_better else scores
    order = np.argsort(key, axis=1, kind="stable")
    ordered = np.take_along_axis(key, order, axis=1)
    k = key.shape[1]
    starts = np.ones(ordered.shape, dtype=bool)
    starts[:, 1:] = np.diff(ordered, axis=1) > tolerance
    first = np.maximum.accumulate(np.where(starts, np.arange(k), 0), axis=1)
    ranks = np.empty_like(order)
    np.put_along_axis(ranks, order, first + 1, axis=1)
    return ranks


def tie_tolerance(matrix: np.ndarray) -> float:
    """How far apart two resampled means may be and still count as equal (module notes)."""
    return _TIE_ULPS * matrix.shape[0] * np.finfo(np.float64).eps * float(np.abs(matrix).max())


def rank_counts(matrix: np.ndarray, higher_is_better: bool, resamples: int,
                rng: np.random.Generator) -> np.ndarray:
    """(columns x columns): how many resamples put column i at rank j + 1."""
    n, k = matrix.shape
    tolerance = tie_tolerance(matrix)
    counts = np.zeros(k * k, dtype=np.int64)
    offsets = np.arange(k) * k
    exact = _ExactSums(matrix)
    for chunk in resample_counts(n, resamples, rng):
        ranks = min_ranks(exact.means(chunk), higher_is_better, tolerance)
        counts += np.bincount((offsets + ranks - 1).ravel(), minlength=k * k)
    return counts.reshape(k, k)


def rank_probabilities(values: Any, *, higher_is_better: bool = True, resamples: int = 10_000,
                       seed: Any = None) -> np.ndarray | pd.DataFrame:
    """The probability that each algorithm takes each rank, over paired resamples of instances.

    In every resample the algorithms are ranked by their mean (1 = best;
    equal means share the best of their ranks, as
    ``pandas.Series.rank(method="min")``, so some ranks may go untaken);
    the share of resamples giving algorithm ``i`` rank ``r`` is entry
    ``[i, r - 1]``.

    Parameters
    ----------
    values : array-like or pandas.DataFrame
        Instances x algorithms (a 1-D array is one algorithm).
    higher_is_better : bool, keyword-only
        Whether a higher mean ranks first (False for PAR).
    resamples : int, keyword-only
        Number of resamples.
    seed : None, int or numpy.random.Generator, keyword-only
        Fixes the resamples.

    Returns
    -------
    numpy.ndarray or pandas.DataFrame
        Algorithms x ranks; each row sums to 1. For a DataFrame, indexed
        by its columns, with columns ``1, 2, ...`` (named ``"rank"``).

    Raises
    ------
    DataError
        If ``values`` is not a nonempty 2-D array of finite numbers, or an
        option is invalid.

    Examples
    --------
    Two instances, each won by one algorithm: a resample that draws both
    ties them (half the resamples), one that draws one twice ranks its
    winner first:

    >>> rank_probabilities([[1.0, 0.0], [0.0, 1.0]], resamples=20_000, seed=0).round(2)
    array([[0.75, 0.25],
           [0.75, 0.25]])
    """
    owner = "rank_probabilities"
    matrix, labels = _matrix(values, owner)
    if not isinstance(higher_is_better, (bool, np.bool_)):
        raise DataError(argument_message("higher_is_better", owner, "True or False",
                                         higher_is_better))
    counts = rank_counts(matrix, bool(higher_is_better), check_resamples(resamples, owner),
                         generator(seed, owner))
    shares = counts / counts.sum(axis=1, keepdims=True)
    if labels is None:
        return shares
    return pd.DataFrame(shares, index=labels,
                        columns=pd.RangeIndex(1, shares.shape[1] + 1, name="rank"))
