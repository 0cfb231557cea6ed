"""Bounds on what the readers take in, enforced while they read.

A results file comes from outside: it may be a gzip of a few megabytes that
unpacks to gigabytes, a FIFO that never ends, a CSV with a million columns or
an XML attribute of fifty megabytes. Every reader opens its input through
:func:`open_bounded`, which

- refuses anything but a regular file before opening it (a FIFO, a device or
  a folder given as a file would block or never end; standard input is
  passed as a stream instead, and bounded the same way);
- counts the bytes as stored (``max_bytes``) and, for gzip, bzip2 and xz
  content and the one member of a zip archive, the bytes it unpacks to
  (``max_decompressed_bytes``) and their ratio (``max_ratio``), raising a
  :class:`~maxent_util.errors.DataError` the moment one is passed, so nothing
  past a limit is ever held (a zip's directory is checked first: one member,
  of the kind the reader reads, whose stated size is within the limit);

and the readers check the number of columns (``max_columns``) before they
parse the rows, and the length of every name, cell, XML attribute or text
(``max_cell_chars``).

The limits are a :class:`ReadLimits`; every reader takes one as ``limits=``,
and :func:`set_read_limits` changes the defaults for the whole process. The
defaults are in docs/safety.md.
"""

from __future__ import annotations

import bz2
import dataclasses
import gzip
import io
import lzma
import math
import os
import stat
import struct
import tarfile
import zipfile
import zlib
from dataclasses import dataclass
from typing import IO, Any, Callable

from ..errors import DataError, argument_message, short

__all__ = ["ReadLimits", "read_limits", "set_read_limits", "split_member", "zip_members",
           "ARCHIVE_SUFFIXES"]

_MIB = 1 << 20
# unpacked bytes the ratio is not checked below: a small file of repeated rows may unpack a
# hundredfold and more without harm
_RATIO_GRACE = _MIB
_CHUNK = 1 << 16


@dataclass(frozen=True)
class ReadLimits:
    """How much a reader takes from one file or stream before it refuses.

    Parameters
    ----------
    max_bytes : int
        Bytes of one file or stream as stored (compressed or not); default
        256 MiB (a long CSV of five million runs).
    max_decompressed_bytes : int
        Bytes that gzip, bzip2 or xz content unpacks to; default 256 MiB.
    max_ratio : float
        Unpacked bytes per stored byte, checked once more than 1 MiB is
        unpacked; default 100 (results CSVs pack 3 to 20 times; a
        "compression bomb" of repeated bytes a thousand times).
    max_columns : int
        Columns of a CSV, attributes of an ARFF file; default 1000 (the
        SAT Competition's widest files have some 60 solver columns).
    max_cell_chars : int
        Characters of one cell, name, XML attribute value or text (and bytes
        of one XML tag or text between two ``<``); default 65536.

    Examples
    --------
    >>> ReadLimits(max_bytes=1 << 30).max_bytes
    1073741824
    """

    max_bytes: int = 256 * _MIB
    max_decompressed_bytes: int = 256 * _MIB
    max_ratio: float = 100.0
    max_columns: int = 1000
    max_cell_chars: int = 65536

    def __post_init__(self) -> None:
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            whole = field.name != "max_ratio"
            if isinstance(value, bool) or not isinstance(value, (int, float)) \
                    or (whole and not isinstance(value, int)) \
                    or not (math.isfinite(value) and value >= 1):
                kind = "a whole number" if whole else "a finite number"
                raise DataError(argument_message(
                    field.name, "ReadLimits", f"{kind} of at least 1", value))


_current = ReadLimits()


def read_limits(limits: ReadLimits | None = None) -> ReadLimits:
    """The limits a reader applies: ``limits`` if given, else the process's defaults.

    Parameters
    ----------
    limits : ReadLimits, optional
        The limits a caller passed.

    Returns
    -------
    ReadLimits
        ``limits``, or the defaults :func:`set_read_limits` last set.

    Raises
    ------
    DataError
        If ``limits`` is neither None nor a :class:`ReadLimits`.
    """
    if limits is None:
        return _current
    if not isinstance(limits, ReadLimits):
        raise DataError(argument_message("limits", "read_runs", "a ReadLimits or None", limits))
    return limits


def set_read_limits(limits: ReadLimits | None = None, **changes: Any) -> ReadLimits:
    """Change the limits every reader applies by default; return the previous ones.

    Parameters
    ----------
    limits : ReadLimits, optional
        The new defaults (``ReadLimits()`` restores the built-in ones).
    **changes
        Fields to change in the current defaults, as ``max_bytes=1 << 30``.

    Returns
    -------
    ReadLimits
        The defaults before the call, to restore them later.

    Raises
    ------
    DataError
        If a name is not a field of :class:`ReadLimits` or a value is not
        a number of at least 1.

    Examples
    --------
    >>> previous = set_read_limits(max_columns=5000)
    >>> read_limits().max_columns
    5000
    >>> _ = set_read_limits(previous)
    """
    global _current
    new = changed(read_limits(limits), changes, "set_read_limits")
    previous, _current = _current, new
    return previous


def changed(limits: ReadLimits, changes: dict[str, Any], owner: str) -> ReadLimits:
    """``limits`` with some fields changed; an unknown name or a bad value raises DataError."""
    names = [field.name for field in dataclasses.fields(ReadLimits)]
    unknown = next((name for name in changes if name not in names), None)
    if unknown is not None:
        raise DataError(argument_message(
            "changes", owner, f"names of ReadLimits fields ({', '.join(names)})", unknown))
    return dataclasses.replace(limits, **changes)


class _Source(io.RawIOBase):
    """The bytes of ``read`` (a stream's read method), handed on as they come, each chunk shown
    to ``watch`` first (which counts it and raises past a limit). Text is encoded as UTF-8."""

    def __init__(self, read: Callable[[int], Any], watch: Callable[[bytes], None],
                 label: str, owner: str) -> None:
        super().__init__()
        self._read = read
        self._watch = watch
        self._pending = memoryview(b"")
        self._label = label
        self._owner = owner
        self.count = 0
        self.ended = False
        #: what closing this stream closes too (the file open_bounded opened, its unpacker)
        self.closes: list[Callable[[], None]] = []

    def readable(self) -> bool:
        return True

    def close(self) -> None:
        try:
            for close in self.closes:
                close()
            self.closes = []
        finally:
            super().close()

    def _fill(self, size: int) -> None:
        chunk = self._read(max(size, _CHUNK))
        if chunk is None:  # a non-blocking stream with nothing yet: read as the end
            chunk = b""
        if isinstance(chunk, str):
            chunk = chunk.encode("utf-8", errors="surrogateescape")
        elif isinstance(chunk, (bytearray, memoryview)):
            chunk = bytes(chunk)
        elif not isinstance(chunk, bytes):
            raise DataError(argument_message(
                "path", self._owner, "a stream of bytes or text", type(chunk).__name__))
        if not chunk:
            self.ended = True
            return
        self.count += len(chunk)
        self._watch(chunk)
        self._pending = memoryview(chunk)

    def readinto(self, buffer: Any) -> int:
        if not self._pending and not self.ended:
            self._fill(len(buffer))
        size = min(len(buffer), len(self._pending))
        buffer[:size] = self._pending[:size]
        self._pending = self._pending[size:]
        return size

    def head(self, size: int) -> bytes:
        """The next ``size`` bytes (fewer at the end) without consuming them."""
        kept = bytes(self._pending)
        while len(kept) < size and not self.ended:
            self._pending = memoryview(b"")
            self._fill(size - len(kept))
            kept += bytes(self._pending)
        self._pending = memoryview(kept)
        return kept[:size]


def _stat_error(label: str, owner: str, exc: OSError) -> DataError:
    return DataError(argument_message(
        "path", owner, "an existing, readable file", label,
        f"The system reported: {exc.strerror or exc}."))


_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
          (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISSOCK, "a socket"))


def _not_regular(label: str, owner: str, mode: int) -> DataError:
    kind = next((name for test, name in _KINDS if test(mode)), "not a regular file")
    return DataError(argument_message(
        "path", owner, "a regular file", label,
        f"It is {kind}, which could block or never end; pipe it to standard input (FILE -) "
        "to read it, within the read limits."))


def open_regular(path: str, owner: str) -> IO[bytes]:
    """``path`` opened for reading when it is a regular file; a FIFO, device, socket or folder
    is refused before anything is read (opened without blocking, then checked)."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        descriptor = os.open(path, flags)
    except IsADirectoryError:
        raise _not_regular(path, owner, stat.S_IFDIR) from None
    except (OSError, ValueError) as exc:  # ValueError: a NUL byte in the path
        if isinstance(exc, ValueError):
            raise DataError(argument_message(
                "path", owner, "a file path without NUL bytes", path)) from None
        raise _stat_error(path, owner, exc) from None
    try:
        mode = os.fstat(descriptor).st_mode
        if not stat.S_ISREG(mode):
            raise _not_regular(path, owner, mode)
        if getattr(os, "O_NONBLOCK", 0):
            os.set_blocking(descriptor, True)
        return os.fdopen(descriptor, "rb", buffering=0)
    except BaseException:
        os.close(descriptor)
        raise


def is_regular(path: Any) -> bool:
    """Whether ``path`` names a regular file (following links), without opening it."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


# a zip archive starts with a member's local header, or (empty) with the end of its directory
_MAGIC = ((b"\x1f\x8b", "gzip"), (b"BZh", "bz2"), (b"\xfd7zXZ\x00", "xz"),
          (b"PK\x03\x04", "zip"), (b"PK\x05\x06", "zip"))


def compression_of(head: bytes) -> str | None:
    """gzip, bz2, xz or zip by the first bytes of the content, else None."""
    return next((name for magic, name in _MAGIC if head.startswith(magic)), None)


def read_stream(stream: Any, label: str, owner: str, limits: ReadLimits | None = None) -> bytes:
    """The whole content of an open stream as stored (text as UTF-8), at most ``max_bytes``;
    used where a stream must be read before its format is known (standard input)."""
    chosen = read_limits(limits)
    source = _Source(stream.read, counter(label, owner, chosen.max_bytes, "max_bytes",
                                           "a stream of at most {limit} bytes"), label, owner)
    return io.BufferedReader(source, _CHUNK).read()


def counter(label: str, owner: str, limit: int, name: str, what: str) -> Callable[[bytes], None]:
    total = [0]

    def watch(chunk: bytes) -> None:
        total[0] += len(chunk)
        if total[0] > limit:
            raise over(label, owner, name, limit, what.format(limit=limit))
    return watch


def text_only(label: str, owner: str) -> Callable[[bytes], None]:
    """A watch that refuses a NUL byte: a CSV parser would end the cell there and read
    ``5\\x00`` as 5, so a file holding one is binary, not a table of text."""
    def watch(chunk: bytes) -> None:
        at = chunk.find(b"\x00")
        if at >= 0:
            raise DataError(argument_message(
                "path", owner, "a text file (it holds a NUL byte, as a binary file does)", label))
    return watch


def over(label: str, owner: str, name: str, limit: float, requirement: str) -> DataError:
    """The error for content past the read limit ``name``: what it allows, and how to raise it."""
    # 268435456, not 2.68435e+08
    shown = f"{int(limit)}" if float(limit).is_integer() else f"{limit:g}"
    return DataError(argument_message(
        "path", owner, f"{requirement} (the read limit {name}={shown})", label,
        f"Reading stopped there. {remedy(name)}"))


def remedy(name: str) -> str:
    """The sentence an error past a limit ends with: how to raise the limit ``name``."""
    return (f"Raise the limit with limits=ReadLimits({name}=...) or set_read_limits({name}=...) "
            f"in Python, or --read-limit {name}=N on the command line.")


def open_bounded(source: Any, label: str, owner: str, limits: ReadLimits | None = None,
                 watch: Callable[[bytes], None] | None = None,
                 zip_suffixes: tuple[str, ...] = ()) -> IO[bytes]:
    """The content of a regular file or an open stream, unpacked when it starts like gzip,
    bzip2 or xz, as a buffered binary stream that raises DataError past a limit.

    ``watch``, when given, sees every chunk of the (unpacked) content as it is read (the XML
    reader bounds the length of a tag with it). A zip archive is read when it holds one
    member whose name ends with one of ``zip_suffixes`` (``(".csv",)`` for the CSV readers),
    unpacked within the same limits; any other zip is refused, naming its members.
    """
    chosen = read_limits(limits)
    opened = None  # a file opened here is closed with the stream returned; a caller's is not
    wanted = None  # the member named as ARCHIVE:MEMBER
    if callable(getattr(source, "read", None)) and not isinstance(source, (str, os.PathLike)):
        read = source.read
    else:
        path = os.fspath(source)
        split = split_member(path)
        if split is not None:
            path, wanted = split
            if compression_of(_first_bytes(path, owner)) != "zip":
                return _tar_member(path, wanted, label, owner, chosen, watch)
        opened = open_regular(path, owner)
        read = opened.read
    stored = _Source(read, counter(label, owner, chosen.max_bytes, "max_bytes",
                                    "a file of at most {limit} bytes"), label, owner)
    if opened is not None:
        stored.closes.append(opened.close)
    kind = compression_of(stored.head(6))
    if wanted is not None and kind != "zip":  # the file changed since split_member looked
        stored.close()
        raise DataError(argument_message(
            "path", owner, "an archive (zip, tar, tar.gz) holding the member named after ':'",
            label))
    if kind is None:
        content: _Source = stored
        if watch is not None:
            content._watch = _both(content._watch, watch)
        return io.BufferedReader(content, _CHUNK)
    closes: list[Callable[[], None]] = []
    if kind == "zip":
        try:
            unpacker, close_archive, packed_size = _zip_member(
                opened, stored, label, owner, chosen, zip_suffixes, wanted)
        except BaseException:
            stored.close()
            raise
        closes.append(close_archive)
    else:
        packed = io.BufferedReader(stored, _CHUNK)
        unpacker = {"gzip": lambda: gzip.GzipFile(fileobj=packed),
                    "bz2": lambda: bz2.BZ2File(packed),
                    "xz": lambda: lzma.LZMAFile(packed)}[kind]()

        def packed_size() -> int:
            return stored.count
    limit, ratio = chosen.max_decompressed_bytes, chosen.max_ratio
    unpacked_total = [0]

    def bounded(chunk: bytes) -> None:
        unpacked_total[0] += len(chunk)
        count = unpacked_total[0]
        if count > limit:
            raise over(label, owner, "max_decompressed_bytes", limit,
                       f"content that unpacks to at most {limit} bytes")
        if count > _RATIO_GRACE and count > ratio * max(packed_size(), 1):
            raise over(label, owner, "max_ratio", ratio,
                       f"{kind} content that unpacks to at most {ratio:g} times its size "
                       f"(past 1 MiB, it unpacked {count} bytes from {packed_size()})")
        if watch is not None:
            watch(chunk)

    def unpack(size: int) -> bytes:
        try:
            return unpacker.read(size)
        except DataError:
            raise
        except (OSError, EOFError, ValueError, RuntimeError, NotImplementedError,
                zlib.error, lzma.LZMAError, zipfile.BadZipFile) as exc:
            raise DataError(argument_message(
                "path", owner, f"readable {kind} content", label,
                f"Unpacking it failed: {exc}.")) from None

    content = _Source(unpack, bounded, label, owner)
    content.closes.extend([unpacker.close, *closes, stored.close])
    return io.BufferedReader(content, _CHUNK)


# A results archive holds one file: a directory of more entries, or of more bytes, is refused
# before zipfile reads it (zipfile builds an object per entry, a directory of a million
# entries would take gigabytes).
_ZIP_ENTRIES = 64
_ZIP_DIRECTORY_BYTES = 1 << 20
_ZIP_END = struct.Struct("<4s4H2LH")  # the end-of-central-directory record
_ZIP_END_SEARCH = _ZIP_END.size + 0xFFFF  # the record and the longest archive comment


def _quoted(name: str) -> str:
    """A name from an archive as a message quotes it: its repr, at most 80 characters."""
    return repr(name) if len(repr(name)) <= 80 else str(short(name))


def _zip_member(opened: IO[bytes] | None, stored: _Source, label: str, owner: str,
                limits: ReadLimits, suffixes: tuple[str, ...], wanted: str | None = None
                ) -> tuple[IO[bytes], Callable[[], None], Callable[[], int]]:
    """The member of the zip archive in ``stored`` (a file opened here, else a stream, read
    whole within ``max_bytes``) opened for reading, what closes the archive, and the member's
    packed size: the one named ``wanted``, or else its only member."""
    kinds = " or ".join(suffix.lstrip(".").upper() for suffix in suffixes)
    if not suffixes and wanted is None:
        raise DataError(argument_message(
            "path", owner, "plain, gzip, bzip2 or xz content", label,
            "It is a zip archive, which this reader does not open; unpack it first."))
    if opened is not None:
        size = os.fstat(opened.fileno()).st_size
        if size > limits.max_bytes:
            raise over(label, owner, "max_bytes", limits.max_bytes,
                       f"a file of at most {limits.max_bytes} bytes")
        opened.seek(0)
        archive_file: IO[bytes] = opened
    else:
        archive_file = io.BytesIO(io.BufferedReader(stored, _CHUNK).read())
        size = len(archive_file.getvalue())  # type: ignore[attr-defined]

    def unreadable(reason: str) -> DataError:
        return DataError(argument_message(
            "path", owner, f"a readable zip archive holding one {kinds} file", label, reason))

    archive, members = _zip_directory(archive_file, size, label, owner,
                                      f"a zip archive holding one {kinds} file", unreadable)
    if wanted is not None:
        named = [info for info in members if info.filename == wanted]
        if not named:
            archive.close()
            raise _no_member(label, owner, wanted, [info.filename for info in members])
        members = named
    elif len(members) != 1 or not members[0].filename.lower().endswith(suffixes):
        archive.close()
        raise DataError(argument_message(
            "path", owner, f"a zip archive holding one {kinds} file", label,
            f"It holds {_listed([info.filename for info in members])}; name the one to read "
            f"as FILE.zip:MEMBER{_example(label, members)}."))
    member = members[0]
    if member.file_size > limits.max_decompressed_bytes:
        archive.close()
        raise over(label, owner, "max_decompressed_bytes", limits.max_decompressed_bytes,
                   f"content that unpacks to at most {limits.max_decompressed_bytes} bytes "
                   f"(its member {_quoted(member.filename)} states {member.file_size})")
    try:
        handle = archive.open(member)
    except (zipfile.BadZipFile, RuntimeError, NotImplementedError, OSError, ValueError) as exc:
        archive.close()
        raise unreadable(f"Opening its member {_quoted(member.filename)} failed: {exc}.") \
            from None
    packed = max(member.compress_size, 1)
    return handle, archive.close, lambda: packed


def _zip_directory(archive_file: IO[bytes], size: int, label: str, owner: str, expected: str,
                   unreadable: Callable[[str], DataError]) -> tuple[zipfile.ZipFile, list[Any]]:
    """The zip archive in ``archive_file`` opened, and its members (no folders, no macOS
    resource forks), its directory's size checked before zipfile reads it."""
    archive_file.seek(max(0, size - _ZIP_END_SEARCH))
    tail = archive_file.read(_ZIP_END_SEARCH)
    at = tail.rfind(b"PK\x05\x06")
    if at < 0 or len(tail) - at < _ZIP_END.size:
        raise unreadable("It has no end-of-directory record (a damaged or cut archive).")
    _, _, _, _, entries, directory_bytes, _, _ = _ZIP_END.unpack_from(tail, at)
    if entries > _ZIP_ENTRIES or directory_bytes > _ZIP_DIRECTORY_BYTES:
        raise DataError(argument_message(
            "path", owner, expected, label,
            f"Its directory lists {entries} entries ({directory_bytes} bytes); it was not "
            "read further."))
    archive_file.seek(0)
    try:
        archive = zipfile.ZipFile(archive_file)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, ValueError, EOFError) as exc:
        raise unreadable(f"The zip reader reported: {exc}.") from None
    # folders, and the resource forks macOS adds when it zips a file, are not members
    members = [info for info in archive.infolist()
               if not info.is_dir() and not info.filename.startswith("__MACOSX/")]
    return archive, members


def zip_members(path: str, owner: str, limits: ReadLimits | None = None) -> list[str]:
    """The names of the files a zip archive holds (folders and macOS resource forks left
    out), read within the limits every reader keeps (the file's size, the directory's
    entries and bytes); each can be read as ``path:member``.

    Raises
    ------
    DataError
        If ``path`` is no regular file, is past ``max_bytes`` or is no readable zip archive.
    """
    chosen = read_limits(limits)
    label = os.path.basename(path) or path

    def unreadable(reason: str) -> DataError:
        return DataError(argument_message("path", owner, "a readable zip archive", label,
                                          reason))

    with open_regular(path, owner) as opened:
        size = os.fstat(opened.fileno()).st_size
        if size > chosen.max_bytes:
            raise over(label, owner, "max_bytes", chosen.max_bytes,
                       f"a file of at most {chosen.max_bytes} bytes")
        archive, members = _zip_directory(opened, size, label, owner, "a zip archive of at most "
                                          f"{_ZIP_ENTRIES} entries", unreadable)
        archive.close()
    return [info.filename for info in members]


# the archives a member is named in, as ARCHIVE:MEMBER
ARCHIVE_SUFFIXES: tuple[str, ...] = (".zip", ".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tar.xz")
# a tar has no directory: the entries read before the one named are bounded, as a zip's are
_TAR_ENTRIES = 4096


def split_member(path: str) -> tuple[str, str] | None:
    """``ARCHIVE:MEMBER`` split into the archive and the member's name, when ``path`` itself is
    no file but the part before a ``:`` is an existing file whose name ends as an archive's
    (``.zip``, ``.tar``, ``.tar.gz``, ``.tgz``, ``.tar.bz2``, ``.tar.xz``); else None.

    Examples
    --------
    >>> split_member("no-such-file.csv") is None
    True
    """
    if not isinstance(path, str) or ":" not in path or os.path.lexists(path):
        return None
    lowered = path.lower()
    for suffix in ARCHIVE_SUFFIXES:
        at = lowered.find(suffix + ":")
        while at >= 0:
            archive, member = path[:at + len(suffix)], path[at + len(suffix) + 1:]
            if member and is_regular(archive):
                return archive, member
            at = lowered.find(suffix + ":", at + 1)
    return None


def _first_bytes(path: str, owner: str) -> bytes:
    with open_regular(path, owner) as handle:
        return handle.read(6)


def _listed(names: list[str]) -> str:
    shown = ", ".join(_quoted(name) for name in names[:8])
    more = f" and {len(names) - 8} more" if len(names) > 8 else ""
    return f"{len(names)} member{'s' if len(names) != 1 else ''}{': ' + shown + more if names else ''}"


def _example(label: str, members: list[Any]) -> str:
    csvs = [info.filename for info in members if info.filename.lower().endswith(".csv")]
    # a file of runs rather than of the instances (bench_meta.csv) makes the better example
    csvs.sort(key=lambda name: "meta" in name.lower())
    # the archive by its name only: a long folder would push the member out of the message
    return f", such as {os.path.basename(label) + ':' + csvs[0]!r}" if csvs else ""


def _no_member(label: str, owner: str, wanted: str, names: list[str]) -> DataError:
    return DataError(argument_message(
        "path", owner, "ARCHIVE:MEMBER naming a file the archive holds", f"{label}",
        f"It holds no member {_quoted(wanted)}; it holds {_listed(names)}."))


def _tar_member(path: str, wanted: str, label: str, owner: str, limits: ReadLimits,
                watch: Callable[[bytes], None] | None) -> IO[bytes]:
    """The member ``wanted`` of a tar archive (plain, gzip, bzip2 or xz), read as a stream
    within the limits: its unpacked bytes, up to the member's end, count against
    ``max_decompressed_bytes`` and ``max_ratio`` as a compressed file's do."""
    content = open_bounded(path, label, owner, limits)
    names: list[str] = []
    try:
        archive = tarfile.open(fileobj=content, mode="r|")
        for info in archive:
            if len(names) >= _TAR_ENTRIES:
                raise DataError(argument_message(
                    "path", owner, f"a tar archive of at most {_TAR_ENTRIES} entries before "
                    "the member named", label, "It was not read further."))
            if info.name == wanted or info.name == "./" + wanted:
                if not info.isreg():
                    break
                handle = archive.extractfile(info)
                assert handle is not None  # a regular member always has its bytes
                member = _Source(handle.read, watch or (lambda chunk: None), label, owner)
                member.closes.extend([archive.close, content.close])
                return io.BufferedReader(member, _CHUNK)
            if info.isreg():
                names.append(info.name)
        archive.close()
    except DataError:
        content.close()
        raise
    except (tarfile.TarError, OSError, EOFError, ValueError) as exc:
        content.close()
        raise DataError(argument_message(
            "path", owner, "a readable tar archive", label,
            f"The tar reader reported: {exc}.")) from None
    content.close()
    raise _no_member(label, owner, wanted, names)


def _both(first: Callable[[bytes], None], second: Callable[[bytes], None]
          ) -> Callable[[bytes], None]:
    def watch(chunk: bytes) -> None:
        first(chunk)
        second(chunk)
    return watch
