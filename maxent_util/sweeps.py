"""Sweeps and crossovers: how a ranking depends on a utility's parameter.

A ranking under one utility hides how it depends on the utility's
parameters: an organiser choosing ``kappa0`` (the scale at which they stop
caring) wants the whole picture. :func:`sweep` scores every algorithm under
``family(..., parameter=value)`` for many values at once;
:func:`crossovers` finds every value where two algorithms' scores are equal;
:func:`ranking_changes` every value where the order of all of them changes,
and the order in between.

Design notes
------------
*One derivation.* The preset is derived once with the swept parameter as a
positive symbol (the shipped closed forms make this a substitution, see
:mod:`maxent_util.families`), compiled once by
:func:`~maxent_util.compile_scorer`, and evaluated on a (distinct solved
runtimes x values) block: the parameter broadcasts against the runtimes.
Blocks hold at most :data:`BLOCK_SIZE` numbers, which bounds the memory.

*The same scores as rank.* The runs table goes through the same validation
as :func:`~maxent_util.rank` (``duplicates`` and ``missing`` policies
included); a solved run counts :math:`u(t)`, a capped or failed one 0; an
algorithm's score is the mean over its instances. Each algorithm's
per-instance values are summed in sorted order, so two algorithms with
the same values get bit-identical scores and tie exactly, as in
:func:`~maxent_util.rank`.

*Roots.* A crossover is found by scanning a grid of ``points`` values
(log-spaced by default) for changes of the sign of the exact score
difference, and refining each bracket: :func:`scipy.optimize.brentq` to a
relative tolerance of :data:`RTOL` where the sign flips, bisection where
the difference becomes (or stops being) exactly zero. Two crossings
between neighbouring grid points cancel and are not seen, and an isolated
touching zero is seen only when it falls on a grid point: a finer grid
(``points``) sees more.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import numpy as np
import pandas as pd
# scipy loads scipy.optimize on first use
import scipy

from . import _dask, families
from ._limits import MAX_POINTS
from .errors import DataError, MaxEntError, UtilityError, argument_message
from .ranking import min_ranks, partitioned_sums
from .runs import Table, long_table
from .scorer import Scorer, compile_scorer

__all__ = ["BLOCK_SIZE", "RTOL", "sweep", "crossovers", "ranking_changes"]

BLOCK_SIZE = 1 << 22
"""Numbers held at once by a sweep's block of (runs x values) utilities (32 MB of float64)."""

RTOL = 1e-10
"""Relative tolerance of a refined crossover."""

#: grid points scanned by default for sign changes
_POINTS = 512

#: two refined points closer than this (relative) are one
_MERGE = 1e-9


# ---------------------------------------------------------------------------
# the family and its parameter


@dataclass(frozen=True)
class _Family:
    name: str
    parameter: str
    fixed: dict[str, Any]
    scorer: Scorer
    preset: Callable[..., Any]

    @property
    def label(self) -> str:
        args = [self.parameter if p == self.parameter else str(self.fixed[p])
                for p in families.FAMILIES[self.name]]
        return f"{self.name}({', '.join(args)})"

    def at(self, value: float) -> Any:
        """The preset at one value of the parameter (derives; used to check the domain)."""
        return self.preset(**self.fixed, **{self.parameter: value})


def _family_name(family: Any, owner: str) -> str:
    expected = f"a preset name ({', '.join(map(repr, families.FAMILIES))}) or preset function"
    if isinstance(family, str):
        name = family.strip().lower()
        if name in families.FAMILIES:
            return name
    elif callable(family):
        name = getattr(family, "__name__", "")
        if name in families.FAMILIES and getattr(families, name) is family:
            return name
    raise UtilityError(argument_message("family", owner, expected, family))


def _family(family: Any, parameter: Any, fixed: dict[str, Any], owner: str) -> _Family:
    name = _family_name(family, owner)
    names = families.FAMILIES[name]
    if not (isinstance(parameter, str) and parameter in names):
        raise UtilityError(argument_message(
            "parameter", owner, f"a parameter of {name} ({', '.join(names)})", parameter))
    others = [p for p in names if p != parameter]
    unknown = [key for key in fixed if key not in others]
    if unknown:
        raise UtilityError(argument_message(
            unknown[0], owner, f"a fixed parameter of {name} other than the swept {parameter!r} "
            f"(one of {', '.join(others) or 'none'})", fixed[unknown[0]]))
    missing = [p for p in others if p not in fixed]
    if missing:
        raise UtilityError(argument_message(
            missing[0], owner, f"given: {name} needs a value of every parameter but the swept "
            f"one", None, f"Pass {missing[0]}=... (on the command line, --fixed "
            f"{missing[0]}=VALUE)."))
    preset = getattr(families, name)
    law = preset(**fixed, **{parameter: parameter})  # checks the fixed values
    scorer = compile_scorer(law.utility())
    if scorer.parameters != (parameter,):
        raise UtilityError(argument_message(
            "fixed", owner, f"numbers (the only free parameter of the utility is {parameter!r})",
            dict(fixed)))
    return _Family(name=name, parameter=parameter, fixed=dict(fixed), scorer=scorer,
                   preset=preset)


def _check_values(values: Any, model: _Family, owner: str, arg: str = "values") -> np.ndarray:
    """Finite positive values, inside the preset's domain at both ends."""
    try:
        array = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise UtilityError(argument_message(
            arg, owner, f"numbers (values of {model.parameter})", values)) from None
    if array.ndim == 0:
        array = array.reshape(1)
    if array.ndim != 1 or array.size == 0:
        raise UtilityError(argument_message(
            arg, owner, f"a non-empty one-dimensional sequence of values of {model.parameter}",
            values))
    bad = np.flatnonzero(~(np.isfinite(array) & (array > 0)))
    if bad.size:
        raise UtilityError(argument_message(
            arg, owner, f"positive finite values of {model.parameter}", float(array[bad[0]])))
    # every preset's domain is an interval in any one parameter: its ends decide
    for end in {float(array.min()), float(array.max())}:
        try:
            model.at(end)
        except MaxEntError as error:
            raise UtilityError(argument_message(
                arg, owner, f"values of {model.parameter} where {model.label} is defined", end,
                f"({error})")) from None
    return array


def _check_bounds(bounds: Any, model: _Family, owner: str) -> tuple[float, float]:
    try:
        low, high = (float(v) for v in bounds)
    except (TypeError, ValueError):
        raise UtilityError(argument_message(
            "bounds", owner, f"two numbers (low, high) of {model.parameter}", bounds)) from None
    if not (math.isfinite(low) and math.isfinite(high) and 0 < low < high):
        raise UtilityError(argument_message(
            "bounds", owner, "two positive finite values, the first below the second",
            (low, high) if not isinstance(bounds, str) else bounds))
    _check_values([low, high], model, owner, "bounds")
    return low, high


def _check_points(points: Any, owner: str) -> int:
    if isinstance(points, bool) or not isinstance(points, (int, np.integer)) or points < 3:
        raise UtilityError(argument_message("points", owner, "an integer of at least 3", points))
    if points > MAX_POINTS:
        raise UtilityError(argument_message("points", owner, f"at most {MAX_POINTS:,}", points))
    return int(points)


def _grid(low: float, high: float, points: int, log: bool) -> np.ndarray:
    grid = np.geomspace(low, high, points) if log else np.linspace(low, high, points)
    grid[0], grid[-1] = low, high
    return grid


# ---------------------------------------------------------------------------
# scores: (algorithms x values), vectorised


class _Scores:
    """The scores of some algorithms of a validated table, at any values of the parameter."""

    def __init__(self, runs: Table, model: _Family, algorithms: np.ndarray) -> None:
        self.model = model
        self.n_instances = runs.instances.size
        self.n = algorithms.size
        run_algorithm = runs.cell_algorithm[runs.cells]
        position = np.full(runs.names.size, -1)
        position[algorithms] = np.arange(algorithms.size)
        keep = runs.solved & (position[run_algorithm] >= 0)
        self.times, self.inverse = np.unique(runs.runtimes[keep], return_inverse=True)
        self.inverse = self.inverse.ravel()
        self.row = position[run_algorithm[keep]]
        self.column = runs.cells[keep] % self.n_instances
        self.single = bool(runs.runs_per_cell.max() == 1)
        self.weight = 1.0 / runs.runs_per_cell[runs.cells[keep]]

    def __call__(self, values: np.ndarray) -> np.ndarray:
        """Scores, algorithms x values."""
        values = np.asarray(values, dtype=float)
        per_value = max(self.times.size, self.n * self.n_instances, 1)
        block = max(1, BLOCK_SIZE // per_value)
        out = np.empty((self.n, values.size))
        for start in range(0, values.size, block):
            chunk = values[start:start + block]
            out[:, start:start + block] = self._block(chunk)
        return out

    def _block(self, values: np.ndarray) -> np.ndarray:
        grid = np.zeros((self.n, self.n_instances, values.size))
        if self.times.size:
            at = self.model.scorer(self.times[:, None],
                                   **{self.model.parameter: values[None, :]})
            at = np.atleast_2d(at)[self.inverse]
            if self.single:
                grid[self.row, self.column] = at
            else:  # repeated runs: a cell's value is the mean over its runs
                np.add.at(grid, (self.row, self.column), at * self.weight[:, None])
        # sorted sums: algorithms with the same values tie exactly
        grid.sort(axis=1)
        return grid.sum(axis=1) / self.n_instances

    def at(self, value: float) -> np.ndarray:
        return self(np.array([value]))[:, 0]


class FamilySums:
    """Per algorithm of a partition, the sum over its solved runs of the preset's utility at
    every value (one column per value); a worker derives and compiles the preset once, by
    the route of :func:`sweep` (it travels as its name, parameter and fixed values)."""

    def __init__(self, name: str, parameter: str, fixed: dict[str, Any],
                 values: np.ndarray) -> None:
        self.name, self.parameter, self.fixed, self.values = name, parameter, fixed, values
        self._model: _Family | None = None

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_model": None}

    def columns(self) -> list[str]:
        return [f"value {j}" for j in range(self.values.size)]

    def __call__(self, runs: Table, codes: np.ndarray, k: int) -> dict[str, np.ndarray]:
        if self._model is None:
            self._model = _family(self.name, self.parameter, self.fixed, "sweep")
        solved = runs.solved
        times, inverse = np.unique(runs.runtimes[solved], return_inverse=True)
        owners = codes[solved]
        sums = np.zeros((k, self.values.size))
        block = max(1, BLOCK_SIZE // max(times.size, 1))
        for start in range(0, self.values.size, block):
            chunk = self.values[start:start + block]
            if times.size:
                at = np.atleast_2d(self._model.scorer(times[:, None],
                                                      **{self.parameter: chunk[None, :]}))
                np.add.at(sums[:, start:start + block], owners, at[np.ravel(inverse)])
        return {f"value {j}": sums[:, j] for j in range(self.values.size)}


def _prepare(table: Any, family: Any, parameter: Any, fixed: dict[str, Any], owner: str,
             duplicates: str, missing: str) -> tuple[Table, _Family]:
    model = _family(family, parameter, fixed, owner)
    runs = long_table(table, owner, duplicates, missing)
    return runs, model


def _algorithm_index(runs: Table, name: Any, arg: str, owner: str) -> int:
    found = np.flatnonzero(runs.names == name)
    if not found.size:
        shown = ", ".join(map(repr, runs.names[:8])) + (", ..." if runs.names.size > 8 else "")
        raise DataError(argument_message(arg, owner, f"an algorithm of the table ({shown})", name))
    return int(found[0])


# ---------------------------------------------------------------------------
# sweep


def sweep(table: pd.DataFrame, family: Any, parameter: str, values: Sequence[float] | np.ndarray,
          *, duplicates: str = "raise", missing: str = "raise", **fixed: Any) -> pd.DataFrame:
    """Score and rank every algorithm under a preset at many values of one parameter.

    Equivalent to calling :func:`~maxent_util.rank` with
    ``family(**fixed, parameter=value)`` for each value, but the preset is
    derived and compiled once and evaluated on all values together.

    Parameters
    ----------
    table : pandas.DataFrame, dask.dataframe.DataFrame or path
        The long runtime table, as in :func:`~maxent_util.rank` (a Dask
        DataFrame or a Parquet dataset is scored partition by partition).
    family : str or callable
        A preset of :data:`~maxent_util.FAMILIES` by name (``"pareto"``) or
        the preset function itself (:func:`maxent_util.pareto`).
    parameter : str
        The swept parameter, one of the preset's (``"kappa0"``).
    values : array_like of float
        The values of ``parameter`` (positive, inside the preset's domain).
    duplicates, missing : str, keyword-only
        As in :func:`~maxent_util.rank`.
    **fixed : float
        The preset's other parameters (``alpha=1``).

    Returns
    -------
    pandas.DataFrame
        One row per value and algorithm, value by value in the order given
        and within a value by rank (then name): the columns ``algorithm``,
        the parameter's name (its value), ``score`` (the mean utility over
        the instances, capped runs and failures counting 0) and ``rank``
        (1 = best, ties share the best rank). ``attrs`` holds ``family`` (the
        symbolic preset, e.g. ``"pareto(kappa0, 1)"``) and ``parameter``.

    Raises
    ------
    UtilityError
        If ``family`` is no preset, ``parameter`` not one of its
        parameters, a fixed parameter is missing, unknown or invalid, or a
        value is not positive or outside the preset's domain.
    DataError
        As :func:`~maxent_util.rank`, for the table.

    Examples
    --------
    >>> import pandas as pd
    >>> runs = pd.DataFrame({"algorithm": ["a", "a", "b", "b"],
    ...                      "instance": ["i", "j", "i", "j"],
    ...                      "runtime": [1.0, 100.0, 10.0, 20.0],
    ...                      "status": ["solved", "capped", "solved", "solved"],
    ...                      "cutoff": 100.0})
    >>> sweep(runs, "pareto", "kappa0", [1, 10, 100], alpha=1)
      algorithm  kappa0  score  rank
    0         a     1.0  0.500     1
    1         b     1.0  0.075     2
    2         b    10.0  0.750     1
    3         a    10.0  0.500     2
    4         b   100.0  1.000     1
    5         a   100.0  0.500     2
    """
    owner = "sweep"
    if _dask.partitioned(table):
        model = _family(family, parameter, fixed, owner)
        array = _check_values(values, model, owner)
        sums = FamilySums(model.name, parameter, model.fixed, array)
        names, n_instances, totals = partitioned_sums(table, sums, duplicates, missing, owner)
        scores = totals.to_numpy() / n_instances
        return _sweep_frame(names, scores, array, model, parameter)
    runs, model = _prepare(table, family, parameter, fixed, owner, duplicates, missing)
    array = _check_values(values, model, owner)
    scores = _Scores(runs, model, np.arange(runs.names.size))(array)  # algorithms x values
    return _sweep_frame(runs.names, scores, array, model, parameter)


def _sweep_frame(names: np.ndarray, scores: np.ndarray, array: np.ndarray, model: _Family,
                 parameter: str) -> pd.DataFrame:
    """The sweep's table from the scores (algorithms x values)."""
    n, m = scores.shape
    ranks = np.column_stack([min_ranks(scores[:, j], True) for j in range(m)]) if m else \
        np.empty((n, 0), dtype=int)
    value_index = np.repeat(np.arange(m), n)
    algorithm_index = np.tile(np.arange(n), m)
    flat_ranks = ranks.T.ravel()
    order = np.lexsort((algorithm_index, flat_ranks, value_index))
    frame = pd.DataFrame({
        "algorithm": names[algorithm_index[order]].astype(str),
        parameter: array[value_index[order]],
        "score": scores.T.ravel()[order],
        "rank": flat_ranks[order].astype(int),
    })
    frame.attrs.update(family=model.label, parameter=parameter)
    return frame


# ---------------------------------------------------------------------------
# roots


def _refine(difference: Callable[[float], float], low: float, high: float, sign_low: int,
            sign_high: int, log: bool) -> float:
    """Where the sign of ``difference`` changes between ``low`` and ``high``."""
    if sign_low and sign_high:  # a sign flip
        return float(scipy.optimize.brentq(difference, low, high, xtol=RTOL * low * 1e-2, rtol=RTOL))
    # the difference becomes exactly zero (or stops being): bisect on "the sign at low"
    while high - low > RTOL * high:
        middle = math.sqrt(low * high) if log else 0.5 * (low + high)
        if not low < middle < high:
            break
        if np.sign(difference(middle)) == sign_low:
            low = middle
        else:
            high = middle
    return high if sign_low else low


def _merged(points: list[float]) -> list[float]:
    merged: list[float] = []
    for point in sorted(points):
        if merged and point - merged[-1] <= _MERGE * point:
            continue
        merged.append(point)
    return merged


def _midpoints(edges: Sequence[float], log: bool) -> np.ndarray:
    edges = np.asarray(edges, dtype=float)
    return np.sqrt(edges[:-1] * edges[1:]) if log else 0.5 * (edges[:-1] + edges[1:])


def crossovers(table: pd.DataFrame, a: Any, b: Any, family: Any, parameter: str,
               bounds: Sequence[float], *, points: int = _POINTS, log: bool = True,
               duplicates: str = "raise", missing: str = "raise", **fixed: Any
               ) -> pd.DataFrame:
    """Every value of a parameter, inside bounds, where two algorithms' scores are equal.

    The exact difference of the scores (as :func:`sweep` computes them) is
    scanned on a grid of ``points`` values for changes of sign; each bracket
    is refined with :func:`scipy.optimize.brentq` to a relative tolerance of
    :data:`RTOL` (by bisection where the difference is exactly zero on one
    side).

    Parameters
    ----------
    table : pandas.DataFrame
        The long runtime table, as in :func:`~maxent_util.rank`.
    a, b : str
        The two algorithms.
    family : str or callable
        A preset by name or function, as in :func:`sweep`.
    parameter : str
        The parameter varied.
    bounds : (float, float)
        The range searched, ``low < high``, both positive and inside the
        preset's domain.
    points : int, keyword-only
        Grid points scanned (at least 3).
    log : bool, keyword-only
        Log-spaced grid (default) or linear.
    duplicates, missing : str, keyword-only
        As in :func:`~maxent_util.rank`.
    **fixed : float
        The preset's other parameters.

    Returns
    -------
    pandas.DataFrame
        One row per crossover, in increasing order: the parameter's name
        (the value), ``kind``, ``below`` and ``above`` (the algorithm ahead
        just below and just above, None where the scores are equal there),
        ``score`` (``a``'s score there) and ``difference`` (``a``'s score
        minus ``b``'s there, zero up to rounding). ``kind`` is ``"cross"``
        where the lead changes hands, ``"touch"`` where the scores meet at
        one value and the same algorithm leads on both sides (seen only on a
        grid point), ``"tie starts"`` and ``"tie ends"`` at the ends of an
        interval where the scores are exactly equal (say both solved the
        same instances, all within ``kappa0``). Equality exactly at an end
        of ``bounds`` is no row. ``attrs``: ``family``, ``parameter``, and
        ``tied``, True when the scores are equal on the whole grid (the
        frame is then empty).

    Raises
    ------
    UtilityError
        As :func:`sweep`; if ``bounds`` are not two increasing positive
        values in the preset's domain or ``points`` is not an integer of at
        least 3.
    DataError
        If ``a`` or ``b`` is not an algorithm of the table, or they are the
        same; as :func:`~maxent_util.rank` for the table.

    Examples
    --------
    Under ``exponential(kappa0)``, ``a`` solves its one instance in 1 s and
    ``b`` in 3 s half of the time: they are equal where
    :math:`e^{-1/\\kappa_0} = e^{-3/\\kappa_0}/2`, at
    :math:`\\kappa_0 = 2/\\ln 2`:

    >>> import pandas as pd
    >>> runs = pd.DataFrame({"algorithm": ["a", "a", "b", "b"],
    ...                      "instance": ["i", "j", "i", "j"],
    ...                      "runtime": [1.0, 9.0, 3.0, 3.0],
    ...                      "status": ["solved", "capped", "solved", "solved"]})
    >>> found = crossovers(runs, "a", "b", "exponential", "kappa0", (0.1, 100))
    >>> found[["kappa0", "kind", "below", "above"]].round(6)
        kappa0   kind below above
    0  2.88539  cross     a     b
    """
    owner = "crossovers"
    runs, model = _prepare(table, family, parameter, fixed, owner, duplicates, missing)
    low, high = _check_bounds(bounds, model, owner)
    points = _check_points(points, owner)
    first = _algorithm_index(runs, a, "a", owner)
    second = _algorithm_index(runs, b, "b", owner)
    if first == second:
        raise DataError(argument_message("b", owner, f"an algorithm other than a={a!r}", b))
    scores = _Scores(runs, model, np.array([first, second]))

    def difference(value: float) -> float:
        pair = scores.at(value)
        return float(pair[0] - pair[1])

    grid = _grid(low, high, points, log)
    pair = scores(grid)
    signs = np.sign(pair[0] - pair[1]).astype(int)
    candidates = [_refine(difference, grid[k], grid[k + 1], signs[k], signs[k + 1], log)
                  for k in np.flatnonzero(signs[:-1] != signs[1:])]
    inner = [c for c in _merged(candidates) if low < c < high]
    edges = [low, *inner, high]
    middle = scores(_midpoints(edges, log))
    side = np.sign(middle[0] - middle[1]).astype(int)
    names = {1: str(runs.names[first]), -1: str(runs.names[second]), 0: None}
    rows = []
    for index, value in enumerate(inner):
        before, after = side[index], side[index + 1]
        at = scores.at(value)
        if before == after:
            if before == 0 or at[0] != at[1]:
                continue  # no change and no meeting: a refinement artefact
            kind = "touch"
        elif before and after:
            kind = "cross"
        else:
            kind = "tie starts" if after == 0 else "tie ends"
        rows.append({parameter: value, "kind": kind, "below": names[before],
                     "above": names[after], "score": float(at[0]),
                     "difference": float(at[0] - at[1])})
    columns = [parameter, "kind", "below", "above", "score", "difference"]
    frame = pd.DataFrame({column: pd.Series([row[column] for row in rows],
                                            dtype=float if column in (parameter, "score",
                                                                      "difference") else object)
                          for column in columns})
    frame.attrs.update(family=model.label, parameter=parameter,
                       tied=bool(np.all(signs == 0)))
    return frame


def ranking_changes(table: pd.DataFrame, family: Any, parameter: str, bounds: Sequence[float],
                    *, points: int = _POINTS, log: bool = True, duplicates: str = "raise",
                    missing: str = "raise", **fixed: Any) -> pd.DataFrame:
    """The values of a parameter where the ranking's order changes, and the order in between.

    The scores of all algorithms are scanned on a grid (as in
    :func:`crossovers`); wherever two algorithms change places (or start or
    stop being tied) between neighbouring grid points, the value is
    refined as in :func:`crossovers`. The order is then computed on each
    interval between refined values, and neighbouring intervals with the
    same order are joined, so a value where two scores only touch is no
    change.

    Parameters
    ----------
    table : pandas.DataFrame
        The long runtime table, as in :func:`~maxent_util.rank`.
    family : str or callable
        A preset by name or function, as in :func:`sweep`.
    parameter : str
        The parameter varied.
    bounds : (float, float)
        The range searched, as in :func:`crossovers`.
    points : int, keyword-only
        Grid points scanned (at least 3).
    log : bool, keyword-only
        Log-spaced grid (default) or linear.
    duplicates, missing : str, keyword-only
        As in :func:`~maxent_util.rank`.
    **fixed : float
        The preset's other parameters.

    Returns
    -------
    pandas.DataFrame
        One row per interval, in increasing order: ``start`` and ``end``
        (the first starts at ``bounds[0]``, the last ends at ``bounds[1]``;
        every other ``start`` is a change point), ``leader`` (the first
        algorithm; several tied for first are joined with ``" = "``),
        ``order`` (tuple of algorithms, best first, tied ones by name) and
        ``ranks`` (their ranks, ties sharing the best), both as
        :func:`~maxent_util.rank` gives them inside the interval. ``attrs``:
        ``family`` and ``parameter``.

    Raises
    ------
    UtilityError, DataError
        As :func:`crossovers`.

    Examples
    --------
    >>> import pandas as pd
    >>> runs = pd.DataFrame({"algorithm": ["a", "a", "b", "b"],
    ...                      "instance": ["i", "j", "i", "j"],
    ...                      "runtime": [1.0, 100.0, 10.0, 20.0],
    ...                      "status": ["solved", "capped", "solved", "solved"],
    ...                      "cutoff": 100.0})
    >>> changes = ranking_changes(runs, "pareto", "kappa0", (1, 100), alpha=1)
    >>> changes[["start", "end", "leader"]].round(4)
        start       end leader
    0  1.0000    6.6667      a
    1  6.6667  100.0000      b

    ``b`` overtakes ``a`` at :math:`\\kappa_0 = 20/3`, where
    :math:`(\\kappa_0/10 + \\kappa_0/20)/2 = 1/2`.
    """
    owner = "ranking_changes"
    runs, model = _prepare(table, family, parameter, fixed, owner, duplicates, missing)
    low, high = _check_bounds(bounds, model, owner)
    points = _check_points(points, owner)
    everyone = _Scores(runs, model, np.arange(runs.names.size))
    grid = _grid(low, high, points, log)
    scores = everyone(grid)
    n = runs.names.size
    upper = np.triu_indices(n, 1)
    signs = np.sign(scores[upper[0]] - scores[upper[1]]).astype(int)  # pairs x grid
    pair_index, step = np.nonzero(signs[:, :-1] != signs[:, 1:])
    candidates = []
    for p, k in zip(pair_index, step):
        i, j = upper[0][p], upper[1][p]
        two = _Scores(runs, model, np.array([i, j]))

        def difference(value: float, two: _Scores = two) -> float:
            pair = two.at(value)
            return float(pair[0] - pair[1])

        candidates.append(_refine(difference, grid[k], grid[k + 1], signs[p, k],
                                  signs[p, k + 1], log))
    edges = [low, *(c for c in _merged(candidates) if low < c < high), high]
    middle = everyone(_midpoints(edges, log))
    orders = [_order(runs.names, middle[:, index]) for index in range(middle.shape[1])]
    rows: list[dict[str, Any]] = []
    for index, (order, ranks) in enumerate(orders):
        if rows and rows[-1]["order"] == order and rows[-1]["ranks"] == ranks:
            rows[-1]["end"] = edges[index + 1]
            continue
        leader = " = ".join(name for name, r in zip(order, ranks) if r == 1)
        rows.append({"start": edges[index], "end": edges[index + 1], "leader": leader,
                     "order": order, "ranks": ranks})
    frame = pd.DataFrame(rows, columns=["start", "end", "leader", "order", "ranks"])
    frame.attrs.update(family=model.label, parameter=parameter)
    return frame


def _order(names: np.ndarray, scores: np.ndarray) -> tuple[tuple[str, ...], tuple[int, ...]]:
    ranks = min_ranks(scores, True)
    order = np.lexsort((names.astype(str), ranks))
    return (tuple(str(names[i]) for i in order), tuple(int(ranks[i]) for i in order))
