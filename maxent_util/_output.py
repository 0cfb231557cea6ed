"""Output that cannot be left half-written or turned into a spreadsheet formula.

:func:`atomic_file` is the one way the package writes a file (figures, reports,
exports): the bytes go to a temporary file in the target's folder, which is moved
into place with :func:`os.replace` only once it is complete, so an interrupt
(Ctrl-C), a full disk or an error leaves the previous file as it was and no
temporary file behind (pip and conda write their metadata the same way).

:func:`spreadsheet_safe` is the one way a table becomes CSV text: a text cell that
a spreadsheet would run as a formula gets a leading single quote (the OWASP rule
for CSV injection).

This module imports nothing of the package's but its errors, so every layer can use
it; :func:`atomic_file` raises the operating system's errors (``FileExistsError``,
``OSError``) and lets each caller word them for its users; :func:`writable` and
:func:`write`, the exports' and the report's checks and writes, word them as an
:class:`~maxent_util.errors.ExportError`.
"""

from __future__ import annotations

import errno
import os
import secrets
import stat
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any, Iterator

from .errors import ExportError, argument_message, short

__all__ = ["atomic_file", "file_group", "interrupted", "spreadsheet_cell", "spreadsheet_safe", "writable",
           "write", "FORMULA_STARTS"]

#: set by a program's Ctrl-C handler (the command line's): a file not yet moved into place is
#: abandoned, even when the KeyboardInterrupt itself was swallowed on the way (Python only prints
#: an exception raised in a __del__ or a gc callback)
interrupted = threading.Event()

#: the first characters that make a spreadsheet read a cell as a formula (OWASP's list)
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")

# a temporary file's name keeps this much of the target's name: the whole name plus the
# prefix and suffix could pass the file system's limit on a name (255 bytes)
_KEPT_NAME = 64


def _temporary_name(target: Path) -> Path:
    return target.with_name(f".{target.name[:_KEPT_NAME]}.{secrets.token_hex(6)}.tmp")


def _remove(path: Path) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def _not_a_file(target: Path) -> None:
    """Refuse a target that exists as something other than a file or a symbolic link: a
    device (``/dev/full``, ``/dev/null``), a FIFO, a socket or a folder would be replaced by
    a file (or its writes lost), and the write reported done."""
    try:
        mode = os.lstat(target).st_mode
    except OSError:
        return
    if not (stat.S_ISREG(mode) or stat.S_ISLNK(mode)):
        raise IsADirectoryError(errno.EISDIR if stat.S_ISDIR(mode) else errno.EINVAL,
                                "not a regular file (a device, FIFO, socket or folder)",
                                str(target))


#: the files moved into place in the current file_group() block of this thread, each with
#: the hard link that keeps the file it replaced (None: there was none)
_group = threading.local()


@contextmanager
def file_group() -> Iterator[None]:
    """Files that :func:`atomic_file` writes inside the block appear all or none.

    A command that writes several files (an irace set-up, the tour's two figures, a
    design's JSON and figure) is interrupted between two of them too: on any exception,
    ``KeyboardInterrupt`` included, the files the block moved into place are removed and
    the ones they replaced put back (each kept meanwhile as a hard link beside it), so the
    folder holds what it held before. Blocks nest: an inner one's files are undone with the
    outer one's.
    """
    done: list[tuple[Path, Path | None]] = []
    outer = getattr(_group, "done", None)
    _group.done = done
    try:
        yield
    except BaseException:
        for target, kept in reversed(done):
            if kept is None:
                _remove(target)
            else:
                os.replace(kept, target)
        raise
    else:
        if outer is not None:
            outer.extend(done)
        else:
            for _, kept in done:
                if kept is not None:
                    _remove(kept)
    finally:
        _group.done = outer


def _move_into_place(temporary: Path, target: Path, overwrite: bool) -> None:
    _not_a_file(target)  # again: it may have appeared since the block began
    group = getattr(_group, "done", None)
    if group is None:
        _replace_or_link(temporary, target, overwrite)
        return
    kept = None
    if overwrite and os.path.lexists(target):  # kept until the group ends
        kept = _temporary_name(target)
        os.link(target, kept, follow_symlinks=False)
    try:
        _replace_or_link(temporary, target, overwrite)
    except BaseException:
        if kept is not None:
            _remove(kept)
        raise
    group.append((target, kept))


def _replace_or_link(temporary: Path, target: Path, overwrite: bool) -> None:
    if overwrite:
        try:  # a replaced file keeps its permissions
            os.chmod(temporary, stat.S_IMODE(os.stat(target).st_mode))
        except OSError:
            pass
        os.replace(temporary, target)
        return
    # a hard link refuses an existing target in the same system call that creates it, so a
    # file that appeared since the caller looked is never replaced
    try:
        os.link(temporary, target)
    except FileExistsError:
        raise
    except OSError:  # a file system without hard links: look, then move
        if os.path.lexists(target):
            raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST), str(target)) from None
        os.replace(temporary, target)
        return
    _remove(temporary)


@contextmanager
def atomic_file(target: str | os.PathLike, *, overwrite: bool = False, binary: bool = False,
                encoding: str = "utf-8", newline: str | None = None) -> Iterator[IO[Any]]:
    """A file object whose contents become ``target`` only when the block ends normally.

    Parameters
    ----------
    target : str or os.PathLike
        The file to write; its folder must exist.
    overwrite : bool, keyword-only
        Replace an existing ``target`` (keeping its permissions); otherwise a
        ``target`` that exists when the block ends raises ``FileExistsError``.
    binary : bool, keyword-only
        Yield a binary file object instead of a text one.
    encoding, newline : keyword-only
        As :func:`open`, for a text file.

    Yields
    ------
    file object
        The temporary file, in the target's folder.

    Raises
    ------
    FileExistsError
        If ``target`` exists and ``overwrite`` is false.
    IsADirectoryError
        If ``target`` exists and is not a file (nor a symbolic link): a device such as
        ``/dev/full``, a FIFO, a socket, a folder.
    OSError
        If the temporary file cannot be made, written or moved.

    Notes
    -----
    On any exception, ``KeyboardInterrupt`` included, the temporary file is
    removed and ``target`` is left untouched; so too once :data:`interrupted`
    is set. The file's data is flushed to
    the disk (``fsync``) before the move, so a crash does not leave an empty
    file under the target's name either.
    """
    target = Path(os.fspath(target))
    _not_a_file(target)
    temporary = _temporary_name(target)
    created = False
    try:
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0) \
            | getattr(os, "O_BINARY", 0)
        descriptor = os.open(temporary, flags, 0o666)  # the umask applies, as for open()
        created = True
        handle = os.fdopen(descriptor, "wb") if binary else \
            os.fdopen(descriptor, "w", encoding=encoding, newline=newline)
        with handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        if interrupted.is_set():
            raise KeyboardInterrupt
        _move_into_place(temporary, target, overwrite)
    except BaseException:
        if created:
            _remove(temporary)
        raise


def spreadsheet_cell(value: Any) -> Any:
    """``value`` with a leading ``'`` if it is text a spreadsheet would read as a formula.

    >>> spreadsheet_cell("=cmd|' /C calc'!A0")
    "'=cmd|' /C calc'!A0"
    >>> spreadsheet_cell(-1.5), spreadsheet_cell("kissat")
    (-1.5, 'kissat')
    """
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def _text_kind(dtype: Any) -> bool:
    # numbers, booleans and times are written as such; anything else may hold text
    return getattr(dtype, "kind", "O") not in "biufcmM"


def spreadsheet_safe(table: Any) -> Any:
    """A copy of a pandas DataFrame or Series whose text cells and labels cannot run as formulas.

    Every text cell, index label, column label and index name that starts with
    one of :data:`FORMULA_STARTS` gets a leading single quote; numbers stay
    numbers (``-1.5`` is written as ``-1.5``).
    """
    labels = {"index": spreadsheet_cell}
    if hasattr(table, "columns"):
        labels["columns"] = spreadsheet_cell
    table = table.rename(**labels)  # a copy; every level of a MultiIndex
    table.index = table.index.set_names([spreadsheet_cell(name) for name in table.index.names])
    if hasattr(table, "columns"):
        for position, dtype in enumerate(table.dtypes):
            if _text_kind(dtype):
                table.isetitem(position, table.iloc[:, position].map(spreadsheet_cell))
    else:
        if _text_kind(table.dtype):
            table = table.map(spreadsheet_cell)
        table = table.rename(spreadsheet_cell(table.name)) if table.name is not None else table
    return table


def writable(path: Any, owner: str, *, overwrite: bool = False, parents: bool = False) -> Path:
    """The file to write, checked before the work: not a directory, not an existing file unless asked."""
    try:
        text = os.fspath(path)
    except TypeError:
        raise ExportError(argument_message("path", owner, "a file path (str or os.PathLike)",
                                           short(path))) from None
    if not isinstance(text, str) or "\x00" in text:
        raise ExportError(argument_message("path", owner, "a file path (str or os.PathLike)", short(path)))
    target = Path(text)
    if text.endswith(os.sep) or (os.altsep and text.endswith(os.altsep)) or target.is_dir():
        raise ExportError(argument_message("path", owner, "a file path, not a directory", text))
    if target.exists() and not target.is_file():  # /dev/full, a FIFO: the write would be lost
        raise ExportError(argument_message("path", owner, "a file path, not a device, FIFO or "
                                           "socket", text))
    if target.exists() and not overwrite:
        raise ExportError(argument_message("path", owner, "a file that does not exist yet", text,
                                           "Pass overwrite=True to replace it."))
    if not target.parent.is_dir():
        if not parents or target.parent.exists():
            raise ExportError(argument_message(
                "path", owner, "in an existing directory", text,
                f"Create {str(target.parent)!r} first, or pass parents=True."))
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise ExportError(argument_message(
                "path", owner, "in a directory that can be created", text,
                f"({error.strerror or error})")) from None
    return target


def write(target: Path, text: str, owner: str, *, overwrite: bool = False) -> None:
    """Write ``text`` to ``target`` whole or not at all (see :func:`maxent_util._output.atomic_file`)."""
    try:
        # without overwrite, a file that appeared since writable looked is refused too
        with atomic_file(target, overwrite=overwrite) as handle:
            handle.write(text)
    except UnicodeEncodeError as error:
        raise ExportError(argument_message(
            "path", owner, "given text that UTF-8 can encode", str(target),
            f"The text holds {error.object[error.start:error.end]!r}, a byte of some other "
            "encoding (e.g. from a command-line argument in a non-UTF-8 locale).")) from None
    except FileExistsError:
        raise ExportError(argument_message("path", owner, "a file that does not exist yet", str(target),
                                           "Pass overwrite=True to replace it.")) from None
    except OSError as error:
        raise ExportError(argument_message(
            "path", owner, "a writable file", str(target), f"({error.strerror or error})")) from None
