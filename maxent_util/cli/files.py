"""Files a command writes: checked before any work, written whole (a temporary name, then
os.replace), never over one that exists unless --force.
"""

from __future__ import annotations

import argparse
import contextlib
import os
from pathlib import Path
from typing import Any, Iterator

from .._output import atomic_file
from .core import CommandLineError


def _inside_current_folder(folder: Path) -> bool:
    try:
        folder.resolve().relative_to(Path.cwd().resolve())
    except ValueError:
        return False
    return True


def _target(path: str | Path, *, flag: str, force: bool, parents: bool) -> Path:
    """A file about to be written, checked before any work is done.

    A directory (or a name ending with a separator) is refused, an existing
    file too unless ``--force``; a missing folder is created when it lies
    inside the current folder or ``--parents`` was given, and refused otherwise.
    """
    text = os.fspath(path)
    target = Path(text)
    if text.endswith(os.sep) or (os.altsep and text.endswith(os.altsep)) or target.is_dir():
        raise CommandLineError(f"argument {flag}: {text!r} is a directory; give a file name such as "
                               f"{str(target / 'out')!r}")
    if target.exists() and not force:
        raise CommandLineError(f"argument {flag}: {text!r} already exists; pass --force to overwrite it")
    folder = target.parent
    if not folder.is_dir():
        if folder.exists() or any(p.exists() and not p.is_dir() for p in folder.parents):
            raise CommandLineError(f"cannot use {text!r}: {str(folder)!r} is not a directory")
        if not parents and not _inside_current_folder(folder):
            raise CommandLineError(f"cannot use {text!r}: the folder {str(folder)!r} does not exist "
                                   "(pass --parents to create it)")
        folder.mkdir(parents=True, exist_ok=True)
    return target


@contextlib.contextmanager
def _written(target: Path, *, force: bool, flag: str, binary: bool = False) -> Iterator[Any]:
    """A file object whose contents replace ``target`` whole, and only when complete.

    Without --force a file that appeared since :func:`_target` looked is refused: nothing is
    overwritten unasked. An interrupt or error leaves the previous file and no temporary one.
    """
    try:
        with atomic_file(target, overwrite=force, binary=binary) as handle:
            yield handle
    except FileExistsError:
        raise CommandLineError(f"argument {flag}: {str(target)!r} already exists; pass --force to "
                               "overwrite it") from None


def _write_text(target: Path, text: str, *, force: bool, flag: str) -> None:
    with _written(target, force=force, flag=flag) as handle:
        handle.write(text)


def _figure_target(path: str | Path, *, flag: str, force: bool, parents: bool) -> Path:
    """Where a figure goes: a name without a suffix gets .png (said out loud in "wrote ...")."""
    text = os.fspath(path)
    target = Path(text)
    if not (text.endswith(os.sep) or (os.altsep and text.endswith(os.altsep)) or target.is_dir()) \
            and not target.suffix:
        text = str(target.with_suffix(".png"))  # what matplotlib would do
    from .. import plots

    plots.require_matplotlib()
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    formats = FigureCanvasAgg.get_supported_filetypes()
    suffix = Path(text).suffix
    if suffix and suffix[1:].lower() not in formats:
        raise CommandLineError(f"cannot write a figure as {suffix!r}; use one of "
                               f"{', '.join('.' + f for f in sorted(formats))}")
    return _target(text, flag=flag, force=force, parents=parents)


def _save(figure: Any, target: Path, *, force: bool = False, flag: str = "--output") -> Path:
    """Write a figure checked by :func:`_figure_target`, never over a file that appeared meanwhile."""
    with _written(target, force=force, flag=flag, binary=True) as handle:
        figure.savefig(handle, format=target.suffix[1:].lower(), dpi=150,
                       bbox_inches="tight")  # long names drawn outside the axes
    return target


def _file_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--force", action="store_true", help="overwrite files that exist")
    parser.add_argument("--parents", action="store_true",
                        help="create missing folders of the target (folders inside the current one "
                             "are created without it)")
