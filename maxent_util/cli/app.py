"""The parser of every command, and ``main``: one line on stderr for every failure."""

from __future__ import annotations

import argparse
import contextlib
import functools
import gc
import os
import signal
import sys
import warnings
from typing import Any, Iterator, Sequence

from .. import _output as output
from .._version import __version__
from .core import CommandLineError, PROG, _Parser, _flush_notes, _one_line
from .inputs import _fix_greedy_file
from . import (compare, derive, design, export, family, fit, plan, plot, race, rank, report, site,
               space, sweep, tour)


#: how every command reads a time (said once, under ``maxent-util --help``)
DURATIONS_NOTE = ("Times (SECONDS) take units: 90, 90s, 15min, 2h, 1.5d, 1h30min; a bare number "
                  "is seconds. So do the numbers of a SPEC ('pareto(5min, 1)') and of derive's "
                  "constraints (--mean 1h, --support 0 2h).")


def build_parser(*, constraint_flags: bool = True) -> argparse.ArgumentParser:
    """The argument parser of ``maxent-util``.

    The derive flags come from the constraint registry, which loads sympy;
    ``constraint_flags=False`` leaves them out, for commands other than ``derive``
    (``maxent-util --help`` and ``--version`` then load no scientific library).
    """

    parser = _Parser(prog=PROG, description="Maximum-entropy utilities for algorithm runtimes "
                                            "(Graham, Leyton-Brown and Roughgarden, ICML 2023).",
                     epilog=DURATIONS_NOTE)
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    derive.add_parser(commands, constraint_flags=constraint_flags)
    family.add_parser(commands)
    rank.add_parser(commands)
    sweep.add_parser(commands)
    compare.add_parser(commands)
    race.add_parser(commands)
    plan.add_parser(commands)
    export.add_parser(commands)
    plot.add_parser(commands)
    tour.add_parser(commands)
    report.add_parser(commands)
    site.add_parser(commands)
    design.add_parser(commands)
    fit.add_parser(commands)
    space.add_parser(commands)
    return parser


def _after_plot_defaults(arguments: argparse.Namespace) -> None:
    if arguments.command == "plot" and (arguments.ranking or arguments.cactus or arguments.survival) \
            and arguments.file is None and arguments.dataset is None:
        _fix_greedy_file(arguments)
        if arguments.file is None:
            arguments.dataset = "satcomp2021-parallel"


def _parser_for(words: Sequence[str]) -> argparse.ArgumentParser:
    """The parser for a command line, built once per process and set of constraint kinds.

    main() may run many times in one process (a notebook, a script, the tests): building the
    parser takes longer than parsing, and parsing leaves it unchanged. The derive flags follow
    the registry, so a kind defined later gets its flag.
    """
    if _command_of(words) != "derive":
        return _cached_parser(())
    from ..constraints import constraint_kinds

    return _cached_parser(tuple(constraint_kinds().items()))


@functools.lru_cache(maxsize=4)
def _cached_parser(kinds: tuple) -> argparse.ArgumentParser:
    return build_parser(constraint_flags=bool(kinds))


def _command_of(words: Sequence[str]) -> str | None:
    """The subcommand named on the command line (the first word that is not an option)."""
    return next((word for word in words if not word.startswith("-")), None)


class _Output:
    """Standard output as a command writes to it.

    Once the reader has gone (a broken pipe, `| head`) or if there was none (`>&-`), what would
    be printed is dropped and the command carries on, so that the files it writes are still
    written; text the stream cannot encode (a file name of non-UTF-8 bytes) is written with
    backslash escapes instead of failing.
    """

    def __init__(self, stream: Any) -> None:
        self._stream = stream
        self.gone = stream is None or getattr(stream, "closed", False)
        self.encoding = getattr(stream, "encoding", None)

    def _leave(self) -> None:
        self.gone = True
        try:  # the buffered rest would fail again when the interpreter flushes it at exit
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, self._stream.fileno())
            os.close(devnull)
        except (AttributeError, OSError, ValueError):
            pass

    def write(self, text: str) -> int:
        if not self.gone:
            try:
                try:
                    self._stream.write(text)
                except UnicodeEncodeError:
                    encoding = self.encoding or "utf-8"
                    self._stream.write(text.encode(encoding, "backslashreplace").decode(encoding))
            except BrokenPipeError:
                self._leave()
        return len(text)

    def flush(self) -> None:
        if not self.gone:
            try:
                self._stream.flush()
            except BrokenPipeError:
                self._leave()

    def isatty(self) -> bool:
        return not self.gone and self._stream.isatty()


def _show_warning(message: Any, category: type, filename: str, lineno: int, file: Any = None,
                  line: str | None = None) -> None:
    """A warning in one line, without the source line Python would print under it."""
    print(f"{PROG}: warning: {_one_line(str(message))}", file=sys.stderr)


@contextlib.contextmanager
def _interrupts() -> Iterator[list[bool]]:
    """Ctrl-C raises KeyboardInterrupt and is remembered: if the interrupt is swallowed on the
    way (in a __del__ or a gc callback, which only print it), main still exits 130."""
    interrupted: list[bool] = []

    def interrupt(signum: int, frame: Any) -> None:
        interrupted.append(True)
        output.interrupted.set()  # no file is finished after this
        raise KeyboardInterrupt

    try:
        previous = signal.getsignal(signal.SIGINT)
        if previous is not signal.default_int_handler:  # the caller has its own: keep it
            yield interrupted
            return
        signal.signal(signal.SIGINT, interrupt)
    except ValueError:  # not the main thread: no handler can be set there
        yield interrupted
        return
    output.interrupted.clear()
    try:
        yield interrupted
    finally:
        signal.signal(signal.SIGINT, previous)
        output.interrupted.clear()


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``maxent-util`` with ``argv`` (default ``sys.argv[1:]``); return the exit status."""
    program = argv is None  # the installed command: the process ends with this call
    if program:
        # the objects made so far (the imports: sympy, pandas, numpy) live until the process
        # ends; frozen, the collector no longer walks them in every full collection, nor in
        # those the interpreter runs at exit (0.1 to 0.5 s a command)
        gc.freeze()
    try:
        return _main(argv)
    finally:
        if program:
            gc.freeze()


def _main(argv: Sequence[str] | None) -> int:
    out = _Output(sys.stdout)
    if sys.stderr is None or getattr(sys.stderr, "closed", False):
        # started with stderr closed (`2>&-`): messages are dropped, not written to stdout
        sys.stderr = open(os.devnull, "w")  # noqa: SIM115 - lives as long as the process
    with warnings.catch_warnings(), _interrupts() as interrupted:
        # numpy's floating-point RuntimeWarnings say nothing a user can act on (the library
        # checks its numbers itself); any other warning is one line
        warnings.simplefilter("ignore", RuntimeWarning)
        warnings.showwarning = _show_warning
        try:
            status = _run(argv, out)
            out.flush()
            _flush_notes(status == 0)
        except BrokenPipeError:  # argparse's --help and --version write to sys.stdout itself
            out._stream = sys.stdout
            out._leave()
            status = 0
        except KeyboardInterrupt:
            status = 130
        except Exception as error:  # every failure is one line; bad input is status 2
            status = _report(error)
        _flush_notes(False)  # a failed command's notes are dropped (it said nothing else)
        if interrupted and status != 130:
            status = 130
        if status == 130:
            print(f"{PROG}: interrupted", file=sys.stderr)
    return status


def _run(argv: Sequence[str] | None, out: _Output) -> int:
    try:
        words = list(sys.argv[1:] if argv is None else argv)
        parser = _parser_for(words)
        arguments = parser.parse_args(words)
        arguments.words = words  # as typed, for a page that says how it was made
        if arguments.command is None:
            parser.print_help(out)
            return 2
        _after_plot_defaults(arguments)
        return arguments.handler(arguments, out)
    except SystemExit as exit_request:  # --help and --version
        return exit_request.code if isinstance(exit_request.code, int) else 0


def _report(error: Exception) -> int:
    from ..errors import MaxEntError

    if os.environ.get("MAXENT_UTIL_TRACEBACK"):
        raise error
    if isinstance(error, (CommandLineError, MaxEntError)):
        message, status = str(error), 2
    elif isinstance(error, OSError):
        where = f" {error.filename!r}" if getattr(error, "filename", None) else ""
        message, status = f"cannot use{where}: {error.strerror or error}", 2
    else:
        message = (f"unexpected {type(error).__name__}: {error} "
                   f"(set MAXENT_UTIL_TRACEBACK=1 to see where)")
        status = 1
    print(f"{PROG}: error: {_one_line(message)}", file=sys.stderr)
    return status
