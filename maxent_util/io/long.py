"""The long runtime CSV: one row per run, in the columns of the long table."""

from __future__ import annotations

import csv
import io
import os
import warnings
from typing import Any

import numpy as np
import pandas as pd

from ..errors import DataError, argument_message, short
from .limits import (ReadLimits, _Source, compression_of, counter, open_regular, read_limits, text_only,
                     split_member)
from .table import lowered
from .table import (LONG_COLUMNS, STATUSES, PathLike, _check_names, _first, _is_stream,
                    _long_frame, _missing_columns, _parse_numbers, _read_csv_cells, _where, not_runs,
                    plain)

__all__ = ["read_long"]


def read_long(path: PathLike, *, limits: ReadLimits | None = None) -> pd.DataFrame:
    """Read a long runtime CSV: one row per run.

    Parameters
    ----------
    path : str or os.PathLike
        A CSV file with the columns ``algorithm``, ``instance``, ``runtime``
        and optionally ``status`` (default ``"solved"``; one of
        :data:`STATUSES`, case-insensitive) and ``cutoff``. Other columns are
        kept, as text, after the standard ones.
    limits : ReadLimits, optional, keyword-only
        Bounds on the bytes, columns and cell lengths read
        (:class:`~maxent_util.io.ReadLimits`); by default the process's
        (:func:`~maxent_util.io.set_read_limits`).

    Returns
    -------
    pandas.DataFrame
        The long table in file order. Surrounding whitespace is removed from
        every field. A plain (uncompressed) file is parsed block by block
        into categorical ``algorithm``, ``instance`` and ``status`` columns
        (categories: the values present, in the order they first appear),
        which hold a large table in a fraction of the memory: by pyarrow's
        CSV reader when it is installed (the ``[arrow]`` extra), else by
        pandas' in chunks. A file that reader cannot take whole, or that
        breaks a rule, is read again cell by cell, which names the
        offending cell.

    Raises
    ------
    DataError
        If the file is missing or malformed, a required column is missing, a
        name is empty, a runtime is not a finite non-negative number, a
        status is unknown, a cutoff is not a positive finite number, or a
        solved run took longer than its cutoff.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "runs.csv").write_text(
    ...     "algorithm,instance,runtime,status,cutoff\\n"
    ...     "kissat,a.cnf,12.5,solved,60\\n"
    ...     "kissat,b.cnf,60,timeout,60\\n")
    >>> read_long(folder / "runs.csv")
      algorithm instance  runtime  status  cutoff
    0    kissat    a.cnf     12.5  solved    60.0
    1    kissat    b.cnf     60.0  capped    60.0
    """
    chosen = read_limits(limits)
    fast = _read_long_blocks(path, chosen)
    if fast is not None:
        return fast
    header, body = _read_csv_cells(path, "read_long", chosen)
    required = ("algorithm", "instance", "runtime")
    if any(name not in header for name in required):
        refusal = not_runs(path, header, body, "read_long")
        if refusal is not None:
            raise refusal
        raise _missing_columns(path, header, "the columns 'algorithm', 'instance', 'runtime' "
                               "(optional: 'status', 'cutoff')")
    n_rows = body.shape[0]
    rows = np.arange(1, n_rows + 1)

    def column(name: str) -> np.ndarray:
        return body[:, header.index(name)] if n_rows else np.array([], dtype=object)

    algorithm, instance = column("algorithm"), column("instance")
    _check_names(path, "algorithm", algorithm, rows)
    _check_names(path, "instance", instance, rows)

    raw_runtime = column("runtime")
    runtime = _parse_numbers(raw_runtime)
    bad = _first(~(np.isfinite(runtime) & (runtime >= 0)))
    if bad is not None:
        raise DataError(argument_message(
            "runtime", _where(path, int(rows[bad])), "a finite non-negative number of seconds",
            short(raw_runtime[bad])))

    if "status" in header:
        raw_status = column("status")
        status = lowered(raw_status) if n_rows else raw_status
        # files written before the vocabulary settled on "capped" say "timeout"
        status[status == "timeout"] = "capped"
        bad = _first(~pd.Series(status, dtype=object).isin(STATUSES).to_numpy())
        if bad is not None:
            raise DataError(argument_message(
                "status", _where(path, int(rows[bad])), f"one of {', '.join(map(repr, STATUSES))}",
                short(raw_status[bad])))
    else:
        status = np.full(n_rows, "solved", dtype=object)

    cutoff = None
    if "cutoff" in header:
        raw_cutoff = column("cutoff")
        cutoff = _parse_numbers(raw_cutoff)
        bad = _first(~(np.isfinite(cutoff) & (cutoff > 0)))
        if bad is not None:
            raise DataError(argument_message(
                "cutoff", _where(path, int(rows[bad])), "a positive finite number of seconds",
                short(raw_cutoff[bad])))
        bad = _first((status == "solved") & (runtime > cutoff))
        if bad is not None:
            raise DataError(argument_message(
                "runtime", _where(path, int(rows[bad])),
                f"at most the cutoff {plain(cutoff[bad])!r} for a solved run", short(raw_runtime[bad]),
                "Mark the run as 'capped' or raise its cutoff."))

    table = _long_frame(algorithm, instance, runtime, status, cutoff)
    return _with_extra_columns(table, {
        name: pd.Series(body[:, j] if n_rows else [], dtype=str)
        for j, name in enumerate(header) if name not in LONG_COLUMNS})


def _with_extra_columns(table: pd.DataFrame, extra: dict[str, pd.Series]) -> pd.DataFrame:
    """The long table with the file's other columns after the standard ones, joined at once
    (inserting them one by one copied the frame each time: 101 s for 10^4 columns)."""
    if not extra:
        return table
    joined = pd.concat([table, pd.DataFrame(extra, index=table.index)], axis=1)
    joined.attrs = table.attrs
    return joined


def _stripped(categories: pd.Index, longest: int) -> bool:
    """Whether every category is a non-empty str without surrounding whitespace, of at most
    ``longest`` characters."""
    return all(isinstance(c, str) and c and c == c.strip() and len(c) <= longest
               for c in categories)


# Bytes of the file pyarrow parses at a time: the reader holds about one block of text at once.
_BLOCK_SIZE = 1 << 20
# Rows pandas parses at a time when pyarrow is not installed (about 3 MB of a runs CSV).
_CHUNK_ROWS = 1 << 16
_NUMBERS = ("runtime", "cutoff")


class _Words:
    """The distinct names of a column across the blocks of a file, and each block's codes.

    Each block's distinct names (not its rows) are looked up in a dict of the names seen so
    far, in the order they first appear; the rows get their codes by one numpy gather.
    """

    def __init__(self) -> None:
        self.lookup: dict[str, int] = {}
        self.codes: list[np.ndarray] = []

    def add(self, words: list[Any], codes: np.ndarray) -> None:
        """One block's names in the order they first appear in it, and its rows as positions
        in ``words``."""
        lookup = self.lookup
        found = np.fromiter((lookup.setdefault(word, len(lookup)) for word in words),
                            np.int32, len(words))
        # the narrowest integer for the names seen so far (a status or an algorithm: one
        # byte a row, not four); the blocks' codes are widened as they are joined
        self.codes.append(found.astype(np.min_scalar_type(-len(lookup)), copy=False)[codes])

    def categorical(self) -> pd.Categorical:
        codes = np.concatenate(self.codes) if self.codes else np.zeros(0, dtype=np.int8)
        self.codes.clear()  # the blocks' codes, now copied: at most one column held twice
        words = list(self.lookup)
        self.lookup = {}  # freed before pandas hashes the categories to check them
        categories = pd.Index(words, dtype=object)
        column = pd.Categorical.from_codes(codes, categories=categories)
        # pandas keeps the hash table it checked the categories' uniqueness with (34 MB for
        # 10^6 names) for lookups a long table never makes: dropped, it is rebuilt if asked
        getattr(column.categories, "_cache", {}).pop("_engine", None)
        return column


class _LongestLine:
    """A watch that keeps the length in bytes of the longest line read so far. The block
    readers parse numbers without holding their text, so a number cell longer than
    ``max_cell_chars`` (which the exact route refuses) is found by its line."""

    def __init__(self) -> None:
        self.longest = 0
        self.current = 0

    def __call__(self, chunk: bytes) -> None:
        ends = np.flatnonzero(np.frombuffer(chunk, np.uint8) == ord("\n"))
        if ends.size:
            inner = int(np.diff(ends).max()) - 1 if ends.size > 1 else 0
            self.longest = max(self.longest, self.current + int(ends[0]), inner)
            self.current = len(chunk) - int(ends[-1]) - 1
        else:
            self.current += len(chunk)
        self.longest = max(self.longest, self.current)


def _arrow_blocks(stream: Any, header: list[str], names: dict[str, _Words],
                  values: dict[str, list[np.ndarray]]) -> bool:
    """The CSV body of ``stream`` parsed by pyarrow, block by block, into ``names`` and
    ``values``; False when pyarrow cannot take it whole (the exact route then reads it)."""
    import pyarrow as pa
    import pyarrow.csv as pa_csv

    words = pa.dictionary(pa.int32(), pa.string())
    try:  # jemalloc hands freed blocks back to the system sooner than the default pool
        pool = pa.jemalloc_memory_pool()
    except NotImplementedError:  # a pyarrow built without it
        pool = pa.default_memory_pool()
    convert = pa_csv.ConvertOptions(
        column_types={name: pa.float64() if name in _NUMBERS else words for name in header},
        null_values=[], strings_can_be_null=False, quoted_strings_can_be_null=False)
    try:
        with pa.PythonFile(stream, mode="r") as raw, pa_csv.open_csv(
                raw, convert_options=convert, memory_pool=pool,
                read_options=pa_csv.ReadOptions(block_size=_BLOCK_SIZE)) as reader:
            if list(reader.schema.names) != header:
                return False
            for batch in reader:
                for name, column in zip(batch.schema.names, batch.columns):
                    if name in _NUMBERS:
                        values[name].append(column.to_numpy(zero_copy_only=False))
                    else:
                        names[name].add(column.dictionary.to_pylist(),
                                        column.indices.to_numpy())
    except pa.ArrowException:
        return False
    finally:
        pool.release_unused()  # the blocks' buffers go back to the system, not to a cache
    return True


def _pandas_blocks(stream: Any, header: list[str], names: dict[str, _Words],
                   values: dict[str, list[np.ndarray]]) -> bool:
    """The CSV body of ``stream`` parsed by pandas' C reader, ``_CHUNK_ROWS`` rows at a time,
    into ``names`` (each chunk's names factorised in the order they appear, as pyarrow's
    dictionaries have them, so both routes give the same table) and ``values`` (float64, by
    Python's parser, as the exact route's: correctly rounded); False when a row is not as the
    header says. Only one chunk's cells are ever held as str."""
    # names as object, not "category": pandas sorts each chunk's categories, which took half
    # the time of the read
    types = {name: np.float64 if name in _NUMBERS else object for name in header}
    with warnings.catch_warnings():
        # a row longer than the header: with index_col=False pandas would drop its extra cells
        warnings.simplefilter("error", pd.errors.ParserWarning)
        # round_trip: Python's parser, correctly rounded (pandas' default one is not, and read
        # "0" * 20 + "1.5" as 0.0)
        with pd.read_csv(stream, header=0, index_col=False, dtype=types, na_filter=False,
                         encoding="utf-8", engine="c", chunksize=_CHUNK_ROWS,
                         float_precision="round_trip") as reader:
            for chunk in reader:
                if list(chunk.columns) != header:
                    return False
                for name in header:
                    if name in _NUMBERS:  # a copy: a view would keep the chunk's block
                        values[name].append(chunk[name].to_numpy(dtype=np.float64, copy=True))
                        continue
                    codes, words = pd.factorize(chunk[name].to_numpy(dtype=object))
                    if codes.size and codes.min() < 0:  # a missing cell
                        return False
                    names[name].add(words.tolist(), codes)
    return True


def _read_long_blocks(path: Any, limits: ReadLimits) -> pd.DataFrame | None:
    """The long CSV at ``path`` read block by block, names and statuses as categoricals (by
    pyarrow when it is installed, else by pandas in chunks); None when ``path`` is a stream,
    a compressed file or an archive's member, or anything in the file is out of the ordinary
    (then the exact route reads it and names what is wrong). A FIFO, device or folder is
    refused before it is read; the bytes are counted as they are read, against
    ``limits.max_bytes``."""
    if _is_stream(path) or not isinstance(path, (str, os.PathLike)):
        return None
    label = os.fspath(path)
    if not isinstance(label, str) or split_member(label) is not None:
        return None  # ARCHIVE:MEMBER: the exact route unpacks it, within the limits
    try:
        import pyarrow  # noqa: F401
        blocks = _arrow_blocks
    except ImportError:  # the [arrow] extra is not installed
        blocks = _pandas_blocks
    handle = open_regular(label, "read_long")
    stored = _Source(handle.read, counter(label, "read_long", limits.max_bytes, "max_bytes",
                                          "a file of at most {limit} bytes"), label, "read_long")
    lines = _LongestLine()
    try:
        if compression_of(stored.head(6)) is not None:
            return None  # the exact route unpacks it, within the limits
        buffered = io.BufferedReader(stored, 1 << 16)
        first_line = buffered.readline()
        header = [name for name in next(csv.reader([first_line.decode("utf-8-sig")]), [])]
        if len(header) > limits.max_columns or len(set(header)) != len(header) \
                or any(n != n.strip() for n in header) \
                or any(name not in header for name in ("algorithm", "instance", "runtime")):
            return None
        pending = [first_line]

        def again(size: int) -> bytes:
            return pending.pop() if pending else buffered.read(size)

        names = {name: _Words() for name in header if name not in _NUMBERS}
        values: dict[str, list[np.ndarray]] = {name: [] for name in header if name in _NUMBERS}
        # read through Python in blocks (a memory map would count the whole file as resident,
        # and would not count the bytes against the limit)
        watch = text_only(label, "read_long")

        def watched(chunk: bytes) -> None:
            watch(chunk)
            lines(chunk)

        whole = io.BufferedReader(_Source(again, watched, label, "read_long"))
        if not blocks(whole, header, names, values):
            return None
    except DataError:
        raise
    except (OSError, ValueError, UnicodeDecodeError, csv.Error, pd.errors.ParserWarning):
        return None  # the exact route reads it again and says what is wrong
    finally:
        handle.close()
    if lines.longest > limits.max_cell_chars:
        return None  # a cell may be longer than the limit: the exact route names it
    return _assembled(header, names, values, limits)


def _assembled(header: list[str], names: dict[str, _Words], values: dict[str, list[np.ndarray]],
               limits: ReadLimits) -> pd.DataFrame | None:
    """The long table from the blocks' names and numbers; None when a value breaks a rule
    (the exact route then names it)."""
    frame = {name: names.pop(name).categorical() for name in list(names)}
    for name in header:
        if name not in _NUMBERS and not _stripped(frame[name].categories, limits.max_cell_chars):
            return None
    runtime = np.concatenate(values.pop("runtime")) if values["runtime"] else np.zeros(0)
    if not np.all(np.isfinite(runtime) & (runtime >= 0)):
        return None
    n = runtime.size
    if "status" in header:
        lowered = [c.lower() for c in frame["status"].categories]
        lowered = ["capped" if c == "timeout" else c for c in lowered]
        if any(c not in STATUSES for c in lowered):
            return None
        codes = np.array([STATUSES.index(c) for c in lowered], dtype=np.int8)
        status = pd.Categorical.from_codes(codes[frame["status"].codes], categories=list(STATUSES))
        status = status.remove_unused_categories()  # value counts list the statuses present
    else:
        status = pd.Categorical.from_codes(np.zeros(n, dtype=np.int8), categories=["solved"])
    columns = {"algorithm": frame["algorithm"], "instance": frame["instance"],
               "runtime": runtime, "status": status}
    if "cutoff" in header:
        cutoff = np.concatenate(values.pop("cutoff")) if values["cutoff"] else np.zeros(0)
        solved = np.asarray(status == "solved")
        if not (np.all(np.isfinite(cutoff) & (cutoff > 0))
                and not np.any(solved & (runtime > cutoff))):
            return None
        columns["cutoff"] = cutoff
    values.clear()
    table = pd.DataFrame(columns, copy=False)
    return _with_extra_columns(table, {name: pd.Series(frame[name]).astype(str)
                                       for name in header if name not in LONG_COLUMNS})
