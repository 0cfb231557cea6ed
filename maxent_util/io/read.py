"""The reader of any runtime file, :func:`read_runs`, and its format guessing
(:func:`guess_format`, :func:`sniff_format`); the package :mod:`maxent_util.io` re-exports
every public name (see its docstring)."""

from __future__ import annotations

import bz2
import csv
import inspect
import lzma
import os
import struct
import zlib
from pathlib import Path
from typing import IO, Any, Callable

import pandas as pd

from ..errors import DataError, argument_message
# every public name of the package is imported here: maxent_util.io finds them in this module
from .aslib import read_aslib
from .benchexec import BENCHEXEC_SUFFIXES, read_benchexec
from .limits import (ReadLimits, open_bounded, open_regular, read_limits, read_stream,
                     set_read_limits, split_member)
from .long import read_long
from .satcomp import INSTANCE_ROW_NAMES, read_satcomp
from .table import (FAILURE_STATUSES, LONG_COLUMNS, STATUSES, NamedBytes, PathLike, _check_path,
                    _is_stream, _label, solver_rows, validate_table)

__all__ = ["FORMATS", "STREAM_FORMATS", "read_runs", "guess_format", "sniff_format"]

FORMATS: tuple[str, ...] = ("satcomp", "long", "aslib", "benchexec")
"""Formats understood by :func:`read_runs`."""

STREAM_FORMATS: tuple[str, ...] = ("satcomp", "long", "benchexec")
"""Formats :func:`read_runs` reads from an open stream (an ASlib scenario needs its folder)."""

_READERS: dict[str, Callable[..., pd.DataFrame]] = {
    "satcomp": read_satcomp,
    "long": read_long,
    "aslib": read_aslib,
    "benchexec": read_benchexec,
}

_SNIFF_BYTES = 1 << 16
# header names that only SAT Competition tables have (2020: cnf, 2021: filename, 2022-2024: hash)
_SATCOMP_MARKERS = {"hash", "filename", "cnf", "verified-result", "claimed-result"}


_ZIP_LOCAL = struct.Struct("<4s5H3L2H")  # a zip member's local header


def _zip_head(head: bytes) -> bytes:
    """The first bytes of a zip archive's first member (stored or deflated), else b""."""
    if len(head) < _ZIP_LOCAL.size or not head.startswith(b"PK\x03\x04"):
        return b""
    fields = _ZIP_LOCAL.unpack_from(head)
    method, name_length, extra_length = fields[3], fields[9], fields[10]
    data = head[_ZIP_LOCAL.size + name_length + extra_length:]
    if method == 0:
        return data[:_SNIFF_BYTES]
    if method == 8:
        return zlib.decompressobj(wbits=-15).decompress(data, _SNIFF_BYTES)
    if method == 12:
        return bz2.BZ2Decompressor().decompress(data, max_length=_SNIFF_BYTES)
    if method == 14 and len(data) > 4:  # zip's LZMA: version, size of the properties, them
        size = int.from_bytes(data[2:4], "little")
        lzma_filter = lzma._decode_filter_properties(  # type: ignore[attr-defined]
            lzma.FILTER_LZMA1, data[4:4 + size])  # as zipfile reads it
        return lzma.LZMADecompressor(lzma.FORMAT_RAW, filters=[lzma_filter]).decompress(
            data[4 + size:], max_length=_SNIFF_BYTES)
    return b""


def _decompressed_head(head: bytes) -> bytes:
    """The first bytes of the content, through bz2, gzip, xz or zip when it starts like one."""
    try:
        if head.startswith(b"PK\x03\x04"):
            return _zip_head(head)
        if head.startswith(b"BZh"):
            return bz2.BZ2Decompressor().decompress(head, max_length=_SNIFF_BYTES)
        if head.startswith(b"\x1f\x8b"):
            return zlib.decompressobj(wbits=31).decompress(head, _SNIFF_BYTES)
        if head.startswith(b"\xfd7zXZ\x00"):
            return lzma.LZMADecompressor().decompress(head, max_length=_SNIFF_BYTES)
    except (OSError, EOFError, ValueError, zlib.error, lzma.LZMAError):
        return b""
    return head


def sniff_format(head: bytes) -> str:
    """The format of content from its first bytes (plain, bz2, gzip, xz or zip), by what it holds.

    XML (first character ``<``) is BenchExec; ``@`` or ``%`` (an ARFF
    relation or comment) is ASlib; a CSV whose header names ``hash``,
    ``filename``, ``cnf``, ``verified-result`` or ``claimed-result`` is a SAT
    Competition table, and so is a CSV of solver columns only (every cell a
    number or a word such as ``timeout``, no column named ``algorithm``,
    ``instance`` or ``runtime``: 2023's special-track file), a CSV of one
    row per solver (a first column ``solver`` or ``algorithm``, the others
    instances, none a ranking's ``<rule> rank``: 2020's ``par2scores.csv``)
    and one of one column per solver beside a first column ``instance``;
    anything else is read as a long CSV, whose reader then reports what is missing.

    Parameters
    ----------
    head : bytes
        The first bytes of the content (64 KiB are plenty), compressed or not.

    Returns
    -------
    str
        One of :data:`FORMATS`.

    Examples
    --------
    >>> sniff_format(b"cnf,solution,kissat\\nx.cnf,SATISFIABLE,TIMEOUT\\n")
    'satcomp'
    >>> sniff_format(b'<?xml version="1.0"?>\\n<result tool="CPAchecker">')
    'benchexec'
    >>> sniff_format(b"algorithm,instance,runtime\\n")
    'long'
    """
    text = _decompressed_head(head).lstrip(b"\xef\xbb\xbf \t\r\n")
    if text.startswith(b"<"):
        return "benchexec"
    if text.startswith((b"@", b"%")):
        return "aslib"
    lines = text.decode("utf-8", errors="replace").split("\n")
    try:
        header = [name.strip() for name in next(csv.reader(lines[:1]), [])]
    except csv.Error:  # not a CSV a person wrote (binary): the long reader says why
        return "long"
    if set(header) & _SATCOMP_MARKERS or solver_rows(header):
        return "satcomp"
    if header and header[0].lower() in INSTANCE_ROW_NAMES \
            and not set(header) & {"algorithm", "runtime"}:
        return "satcomp"  # one column per solver beside an instance column
    return "satcomp" if _solver_columns_only(header, lines[1:-1]) else "long"


# the words a SAT Competition table writes for an unsolved run (2020, 2021)
_RUN_WORDS = {"timeout", "memout", "unverified", "failed", "incorrect", "unknown"}


def _solver_columns_only(header: list[str], lines: list[str]) -> bool:
    """Whether a CSV is a SAT Competition table of solver columns only (2023's special track:
    no instance column): none of the long table's names in the header, and every cell of the
    complete lines read a number or a word for an unsolved run."""
    if not header or set(header) & {"algorithm", "instance", "runtime"}:
        return False
    try:
        rows = [row for row in csv.reader(line for line in lines if line.strip())]
    except csv.Error:
        return False
    if not rows:
        return False
    for row in rows:
        if len(row) != len(header):
            return False
        for cell in row:
            cell = cell.strip()
            if cell.lower() in _RUN_WORDS:
                continue
            try:
                float(cell)
            except ValueError:
                return False
    return True


def guess_format(path: Path) -> str:
    """The format of an existing file or folder, by the rule :func:`read_runs` documents.

    Parameters
    ----------
    path : pathlib.Path
        A file, an ASlib scenario folder, or a folder of BenchExec results.

    Returns
    -------
    str
        One of :data:`FORMATS`: a folder with ``algorithm_runs.arff`` or an
        ``.arff`` file is ASlib, another folder BenchExec, a file what
        :func:`sniff_format` finds in its first bytes (``"long"`` if it cannot
        be read, so that the long reader reports why).
    """
    if path.is_dir():
        return "aslib" if (path / "algorithm_runs.arff").is_file() else "benchexec"
    if path.suffix.lower() == ".arff":
        return "aslib"
    if split_member(os.fspath(path)) is not None:
        try:
            with open_bounded(os.fspath(path), os.fspath(path), "guess_format") as handle:
                return sniff_format(handle.read(_SNIFF_BYTES))
        except DataError:
            return "long"  # the reader then reports the problem in full
    try:
        with open_regular(os.fspath(path), "guess_format") as handle:
            head = handle.read(_SNIFF_BYTES)
    except (OSError, DataError):
        return "long"  # the long reader then reports the problem in full (a FIFO: refused)
    return sniff_format(head)


def read_runs(path: PathLike | IO[Any], *, format: str | None = None,
              limits: ReadLimits | None = None, **options: Any) -> pd.DataFrame:
    """Read runtime data in any supported format into the long table.

    Parameters
    ----------
    path : str, os.PathLike or file object
        A file; an ASlib scenario folder holding ``algorithm_runs.arff``; a
        folder of BenchExec result files; or an open stream (standard input)
        of a CSV or BenchExec file, read whole.
    format : {"satcomp", "long", "aslib", "benchexec"}, optional, keyword-only
        Without it the format is guessed from the content
        (:func:`sniff_format`): XML is BenchExec, ``.arff`` files, ARFF text
        and scenario folders are ASlib, other folders are folders of
        BenchExec results, CSV files whose header names ``hash``,
        ``filename`` or ``cnf`` are SAT Competition tables, and so are CSV
        files of solver columns only (numbers and words such as ``timeout``),
        anything else is a long CSV. A ``.zip`` holding one CSV is read as
        the CSV; ``ARCHIVE:MEMBER`` reads one member of a zip or tar archive
        (``.tar``, ``.tar.gz``, ``.tgz``, ``.tar.bz2``, ``.tar.xz``), such as
        ``sc2023-detailed-results.zip:results_main_detailed.csv``, within the
        same limits.
    limits : ReadLimits, optional, keyword-only
        Bounds on the bytes (as stored and unpacked), columns and cell
        lengths read, enforced while reading; by default the process's
        (:func:`set_read_limits`; the values are in docs/safety.md).
    **options
        Keyword options of the chosen reader (``cutoff=`` for
        :func:`read_satcomp`, ``performance=``/``cutoff=`` for
        :func:`read_aslib`, ``cutoff=``/``time=`` for :func:`read_benchexec`).

    Returns
    -------
    pandas.DataFrame
        The long table, with the reader's ``attrs["notes"]`` (a list, maybe
        empty).

    Raises
    ------
    DataError
        If the path does not exist, the format is unknown, an option does not
        belong to the reader, an ASlib scenario comes as a stream, or the
        reader rejects the file.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "wide.csv").write_text("hash,filename,kissat\\nab12,x.cnf,timeout\\n")
    >>> read_runs(folder / "wide.csv", cutoff=100)
      algorithm instance  runtime  status  cutoff
    0    kissat    x.cnf    100.0  capped   100.0

    A stream, such as standard input, is read whole and its format sniffed (a 2020
    layout states no time limit, so it is given):

    >>> import io
    >>> read_runs(io.BytesIO(b"cnf,solution,kissat\\nx.cnf,SATISFIABLE,12.5\\n"), cutoff=5000)
      algorithm instance  runtime  status  cutoff
    0    kissat    x.cnf     12.5  solved  5000.0
    """
    if not (format is None or isinstance(format, str) and format in _READERS):
        raise DataError(argument_message(
            "format", "read_runs", f"one of {', '.join(map(repr, FORMATS))} or None", format))
    bounds = read_limits(limits)
    if _is_stream(path):
        data = read_stream(path, _label(path), "read_runs", bounds)
        source: Any = NamedBytes(data, _label(path))
        chosen = format if format is not None else sniff_format(data[:_SNIFF_BYTES])
        if chosen not in STREAM_FORMATS:
            raise DataError(argument_message(
                "format", "read_runs", "a format read from a stream "
                f"({', '.join(map(repr, STREAM_FORMATS))}); an ASlib scenario is read from its "
                "folder", chosen))
    elif split_member(_check_path(path, "read_runs")) is not None:
        # ARCHIVE:MEMBER, such as sc2023-detailed-results.zip:results_main_detailed.csv
        source = os.fspath(path)
        chosen = format if format is not None else guess_format(Path(source))
        if chosen not in STREAM_FORMATS:
            raise DataError(argument_message(
                "format", "read_runs", "a format read from a member of an archive "
                f"({', '.join(map(repr, STREAM_FORMATS))}); an ASlib scenario is read from its "
                "folder", chosen))
    else:
        location = Path(path)
        if location.is_dir() and (location / "algorithm_runs.arff").is_file():
            location = location / "algorithm_runs.arff"
        folder_of_results = location.is_dir() and format in (None, "benchexec") and any(
            item.name.lower().endswith(BENCHEXEC_SUFFIXES) for item in location.iterdir())
        # a FIFO or device goes on to the reader, which refuses it before reading
        if not ((location.exists() and not location.is_dir()) or folder_of_results):
            raise DataError(argument_message(
                "path", "read_runs", "an existing file (or an ASlib scenario folder, or a folder "
                "of BenchExec result files)", os.fspath(path)))
        source = location
        chosen = format if format is not None else guess_format(location)
    reader = _READERS[chosen]
    accepted = [name for name, parameter in inspect.signature(reader).parameters.items()
                if parameter.kind is inspect.Parameter.KEYWORD_ONLY and name != "limits"]
    for name in options:
        if name not in accepted:
            raise DataError(argument_message(
                "options", "read_runs", f"options of {reader.__name__} "
                f"({', '.join(accepted) if accepted else 'none'})", name))
    table = reader(source, limits=bounds, **options)
    table.attrs.setdefault("notes", [])
    return table
