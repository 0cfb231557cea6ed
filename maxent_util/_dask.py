"""Dask DataFrames and Parquet datasets as runtime tables: recognising them, reading them
lazily, computing a map over their partitions, and a client for the command line.

Dask is the optional ``[dask]`` extra (``dask[dataframe]`` and ``distributed``). Nothing
here imports it until a Dask frame or a Parquet path is in hand, so ``import maxent_util``
and every pandas route run without it; a Parquet path without it raises
:class:`~maxent_util.errors.MissingExtraError` naming the extra.

The scoring itself (:func:`maxent_util.ranking.rank` and :func:`maxent_util.sweeps.sweep`
on such a table) lives with the pandas route it mirrors: each partition is validated and
scored by the same code, and only per-algorithm sums and counts leave a partition.
"""

from __future__ import annotations

import logging
import os
import threading
import uuid
from contextlib import contextmanager
from importlib.util import find_spec
from typing import Any, Callable, Iterator

import numpy as np
import pandas as pd

from .errors import DataError, MissingExtraError, argument_message

__all__ = ["is_dask", "is_parquet_path", "partitioned"]

PARQUET_SUFFIXES: tuple[str, ...] = (".parquet", ".pq")
"""File names a Parquet dataset is recognised by (a folder counts when it holds such files)."""


def is_dask(value: Any) -> bool:
    """Whether ``value`` is a Dask DataFrame (told by its type, without importing dask)."""
    module = type(value).__module__ or ""
    return ((module == "dask" or module.startswith("dask."))
            and callable(getattr(value, "map_partitions", None))
            and hasattr(value, "npartitions"))


def is_parquet_path(value: Any) -> bool:
    """Whether ``value`` is a path naming a Parquet file, or a folder of Parquet files."""
    if not isinstance(value, (str, os.PathLike)):
        return False
    try:
        text = os.fspath(value)
    except TypeError:
        return False
    if not isinstance(text, str):
        return False
    if text.lower().endswith(PARQUET_SUFFIXES):
        return True
    try:
        return os.path.isdir(text) and any(name.lower().endswith(PARQUET_SUFFIXES)
                                           for name in os.listdir(text))
    except OSError:
        return False


def partitioned(value: Any) -> bool:
    """Whether ``value`` is a table for the partitioned route: a Dask frame or a Parquet path."""
    return is_dask(value) or is_parquet_path(value)


def require(owner: str) -> None:
    """Raise :class:`MissingExtraError` naming the ``dask`` extra when dask is not installed."""
    if find_spec("dask") is None or find_spec("distributed") is None:
        raise MissingExtraError(
            f"{owner} on a Dask DataFrame or a Parquet dataset needs dask and distributed, "
            "which are not installed; install the dask extra: pip install 'maxent_util[dask]'")


def frame_of(table: Any, owner: str) -> Any:
    """A Dask DataFrame: ``table`` itself, or the Parquet dataset it names, read lazily."""
    require(owner)
    if is_dask(table):
        return table
    import dask.dataframe as dd

    path = os.fspath(table)
    if not os.path.exists(path):
        raise DataError(argument_message("table", owner, "an existing Parquet file or folder",
                                         path))
    try:
        # names as categoricals: a partition factorizes and hashes each name once
        return dd.read_parquet(path)
    except Exception as error:  # noqa: BLE001 - pyarrow and fsspec raise many kinds
        raise DataError(argument_message(
            "table", owner, "a readable Parquet file or dataset", path,
            f"The reader reported: {type(error).__name__}: {error}")) from None


def compute(owner: str, *collections: Any) -> tuple[Any, ...]:
    """Compute Dask collections together (one pass over shared partitions); a library error
    raised in a partition comes back as itself, a reader's error as a DataError."""
    import dask

    try:
        return dask.compute(*collections)
    except (ValueError, TypeError, ArithmeticError) as error:
        if type(error).__module__.startswith("maxent_util"):
            raise
        raise DataError(argument_message(
            "table", owner, "a table of runs the partitions can be read from",
            "a Dask DataFrame",
            f"Reading or scoring a partition raised {type(error).__name__}: {error}")) from None
    except OSError as error:
        raise DataError(argument_message(
            "table", owner, "a table of runs the partitions can be read from",
            "a Dask DataFrame", f"Reading a partition raised {type(error).__name__}: "
            f"{error}")) from None


def map_partitions(frame: Any, function: Callable[..., pd.DataFrame], meta: pd.DataFrame,
                   **arguments: Any) -> Any:
    """``function(partition, number, **arguments)`` on every partition (``number`` counts
    the partitions from 0, for messages), as a lazy Dask frame of the small results."""
    def call(part: pd.DataFrame, partition_info: dict[str, Any] | None = None) -> pd.DataFrame:
        number = partition_info["number"] if partition_info else 0
        return function(part, number, **arguments)

    # a name of its own: dask would otherwise hash the arguments for one, pickling every
    # compiled rule by value (seconds for a few rules, as cloudpickle searches the modules)
    name = f"maxent-util-{function.__name__.strip('_')}-{uuid.uuid4().hex}"
    return frame.map_partitions(call, meta=meta, align_dataframes=False, token=name)


def columns_of(frame: Any) -> list[str]:
    return [str(column) for column in frame.columns]


def rows_of(frame: Any, column: str, value: Any, columns: list[str]) -> pd.DataFrame:
    """The rows whose ``column`` equals ``value`` (a few, to name them in a message)."""
    return frame[frame[column] == value][columns].compute()


def distinct(frame: Any, column: str) -> Any:
    """The distinct values of a column, lazily (a tree reduction: memory for the values)."""
    return frame[column].drop_duplicates(split_out=1)


def instance_hashes(series: pd.Series, keys: list[str]) -> list[np.ndarray]:
    """Per key, a keyed 64-bit hash of every value: the distinct values (the categories, for
    a categorical column) are hashed, and each row takes its value's hash."""
    if isinstance(series.dtype, pd.CategoricalDtype):
        codes, distinct = series.cat.codes.to_numpy(), series.cat.categories
    else:
        codes, distinct = pd.factorize(series)
    values = np.asarray(distinct, dtype=object)
    return [pd.util.hash_array(values, hash_key=key, categorize=False)[codes] for key in keys]


def add_per_group(codes: np.ndarray, values: np.ndarray, groups: int) -> np.ndarray:
    """Per group, the sum of ``values`` (integers wrap around, as hashes should)."""
    total = np.zeros(groups, dtype=values.dtype)
    np.add.at(total, codes, values)
    return total


CONNECT_TIMEOUT = 10.0
"""Seconds :func:`client` waits for a scheduler to answer (``--dask-timeout`` on the command
line): distributed's own ``timeout`` bounds the TCP connection but not the handshake that
follows, so a server that accepts and never answers would hold the client for ever."""


def _answers(address: str, seconds: float) -> None:
    """Return once a dask.distributed comm at ``address`` completes its handshake; raise
    TimeoutError after ``seconds``, or what connecting raised. Runs in a thread of its own with
    its own event loop, so neither a caller's loop nor a stuck lookup can hold it longer."""
    import asyncio  # (20 ms) only to probe a scheduler: not with every ranking

    from distributed.comm import connect

    async def handshake() -> None:
        comm = await asyncio.wait_for(connect(address, timeout=seconds), seconds)
        comm.abort()

    failures: list[BaseException] = []

    def attempt() -> None:
        try:
            asyncio.run(handshake())
        except BaseException as error:  # noqa: BLE001 - handed to the caller's thread
            failures.append(error)

    worker = threading.Thread(target=attempt, name="maxent-util-dask-probe", daemon=True)
    worker.start()
    worker.join(seconds + 5.0)  # the loop's own deadline, and time to cancel what is pending
    if worker.is_alive():
        raise TimeoutError(f"no answer within {seconds:g} s")
    if failures:
        raise failures[0]


@contextmanager
def client(address: str | None, owner: str, workers: int | None = None,
           timeout: float | None = None) -> Iterator[Any]:
    """A ``dask.distributed`` client: of a new local cluster (one thread per worker, in this
    process) when ``address`` is None, else of the running scheduler at ``address``, which must
    answer within ``timeout`` seconds (default :data:`CONNECT_TIMEOUT`)."""
    require(owner)
    from distributed import Client, LocalCluster

    if address is None:
        count = workers or max(1, min(4, os.cpu_count() or 1))
        # a partition's refusal reaches the caller as the library's error: the workers' own
        # logging of it would be a second, longer report; the dashboard takes a free port
        with LocalCluster(n_workers=count, threads_per_worker=1, processes=False,
                          dashboard_address=":0", silence_logs=logging.CRITICAL) as cluster, \
                Client(cluster) as connected:
            yield connected
        return
    seconds = CONNECT_TIMEOUT if timeout is None else timeout
    try:
        _answers(address, seconds)
        connected = Client(address, timeout=f"{seconds}s")
    except Exception as error:  # noqa: BLE001 - distributed raises many kinds
        reason = str(error) or type(error).__name__
        raise DataError(argument_message(
            "--dask", owner, "the address of a running dask.distributed scheduler "
            f"(tcp://host:8786) that answers within {seconds:g} s", address,
            f"Connecting failed: {reason[:200]}. Give more time with --dask-timeout SECONDS "
            "(timeout= in Python).")) from None
    with connected:
        yield connected
