"""Runtime data sets shipped with maxent_util.

The files live in ``maxent_util/datasets/data/`` with their attribution in
``SOURCE.md`` there; they are read through :mod:`importlib.resources`, so they
work from an installed wheel as well as from a source checkout.

Examples
--------
>>> from maxent_util.datasets import satcomp2021
>>> runs = satcomp2021("parallel")
>>> runs.shape
(3600, 5)
>>> runs["status"].value_counts().to_dict()
{'solved': 2656, 'capped': 815, 'memout': 129}
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any
from importlib import resources

import pandas as pd

from ..errors import DataError, argument_message
from ..io import read_satcomp

__all__ = ["SATCOMP2021_TRACKS", "SATCOMP2021_CUTOFF", "satcomp2021", "satcomp2021_file", "list_datasets"]

SATCOMP2021_CUTOFF = 5000.0
"""Time limit of the SAT Competition 2021 main and parallel tracks, in seconds."""

SATCOMP2021_TRACKS: tuple[str, ...] = ("parallel", "main")
"""Tracks of the SAT Competition 2021 bundled with the library."""

_SATCOMP2021_FILES = {"parallel": "r_parallel.csv", "main": "r_main.csv"}


def satcomp2021_file(track: str = "parallel") -> resources.abc.Traversable:
    """The bundled CSV of a SAT Competition 2021 track, as published.

    Parameters
    ----------
    track : {"parallel", "main"}
        The track, as for :func:`satcomp2021`.

    Returns
    -------
    importlib.resources.abc.Traversable
        The file inside the installed package (a real path unless the package
        is imported from a zip; ``importlib.resources.as_file`` gives one).

    Raises
    ------
    DataError
        If ``track`` is not one of :data:`SATCOMP2021_TRACKS`.
    """
    _check_track(track, "satcomp2021_file")
    return resources.files(__name__).joinpath("data", _SATCOMP2021_FILES[track])


@lru_cache(maxsize=None)
def _load_satcomp2021(track: str) -> pd.DataFrame:
    resource = satcomp2021_file(track)
    # as_file gives a real path even when the package is imported from a zip
    with resources.as_file(resource) as path:
        return read_satcomp(path, cutoff=SATCOMP2021_CUTOFF)


def satcomp2021(track: str = "parallel") -> pd.DataFrame:
    """Runtimes of the SAT Competition 2021 as a long table.

    Parameters
    ----------
    track : {"parallel", "main"}
        ``"parallel"``: 9 solvers on 400 instances (3600 runs);
        ``"main"``: 46 solvers on 400 instances (18400 runs).

    Returns
    -------
    pandas.DataFrame
        Columns ``algorithm``, ``instance`` (the benchmark file name),
        ``runtime``, ``status``, ``cutoff`` (5000 s on every row); rows by
        solver in the order of the published file, then by instance. A fresh
        copy on every call, so it can be modified freely.

    Raises
    ------
    DataError
        If ``track`` is not one of :data:`SATCOMP2021_TRACKS`.

    Notes
    -----
    Values at or above 5000 s (13 in the parallel track) count as capped runs
    with runtime 5000; ``memout`` and ``unverified`` runs are failures, also
    with runtime 5000. See ``SOURCE.md`` next to the data for the source and
    citation (Balyo et al., Proceedings of SAT Competition 2021).

    Examples
    --------
    >>> main = satcomp2021("main")
    >>> main["algorithm"].nunique(), main["instance"].nunique()
    (46, 400)
    """
    _check_track(track, "satcomp2021")
    return _load_satcomp2021(track).copy()


def _check_track(track: Any, owner: str) -> None:
    if not isinstance(track, str) or track not in _SATCOMP2021_FILES:
        raise DataError(argument_message(
            "track", owner, f"one of {', '.join(map(repr, SATCOMP2021_TRACKS))}", track))


def list_datasets() -> dict[str, str]:
    """Names of the bundled data sets, each with a one-line description.

    Returns
    -------
    dict of str to str
        Data set name (a function of this module) -> what it holds and how to call it.

    Examples
    --------
    >>> list(list_datasets())
    ['satcomp2021']
    """
    return {
        "satcomp2021": "SAT Competition 2021 runtimes: satcomp2021(track) with track 'parallel' "
                       "(9 solvers) or 'main' (46 solvers), 400 instances, 5000 s cutoff.",
    }
