"""What every command shares: the program's name, its one-line errors, the argument readers
(argparse types) and the helpers that print.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from typing import Any, Callable, Sequence

from .._output import spreadsheet_safe


PROG = "maxent-util"


# Runtime axis of the default utility figure: the paper's seven families share kappa0 = 24 s.
_PAPER_T_MAX = 96.0


# More utilities than this to derive and a progress line per utility is worth printing.
_PROGRESS_AFTER = 3


class CommandLineError(Exception):
    """Bad command-line input: reported in one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors become :class:`CommandLineError` (one line, no usage dump)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise CommandLineError(f"{message} (see `{self.prog} --help`)")


class _DeprecatedAlias(argparse.Action):
    """An option's old name: sets what the new one sets, and warns (one line) naming the new."""

    def __init__(self, option_strings: Sequence[str], dest: str, *, new: str,
                 **options: Any) -> None:
        super().__init__(option_strings, dest, **options)
        self.new = new

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        warnings.warn(f"{option_string} is deprecated and will be removed; use {self.new} "
                      "(the same value)", FutureWarning, stacklevel=2)
        setattr(namespace, self.dest, values)


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive number; got {text!r}") from None
    if not (value > 0 and value != float("inf")):
        raise argparse.ArgumentTypeError(f"expected a positive finite number; got {text!r}")
    return value


def _seconds(text: str) -> float:
    """An argparse type: a positive duration in seconds, with a unit or not (``90``, ``90s``,
    ``15min``, ``2h``, ``1.5d``, ``1h30min``; :mod:`maxent_util.durations` reads the units)."""
    try:
        value = float(text)  # a bare number: seconds, read as before
    except ValueError:
        from ..durations import DurationError, parse_duration

        try:
            value = float(parse_duration(text))
        except DurationError:
            raise argparse.ArgumentTypeError(
                f"expected a duration such as 90, 90s, 15min, 2h or 1.5d (a bare number is "
                f"seconds); got {text!r}") from None
    if not (value > 0 and value != float("inf")):
        raise argparse.ArgumentTypeError(f"expected a positive finite duration; got {text!r}")
    return value


def _number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number; got {text!r}") from None


def _strictly_between_0_and_1(what: str, example: str) -> Callable[[str], float]:
    """An argparse type: a number strictly between 0 and 1, refused as ``what`` with ``example``."""
    def read(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = float("nan")
        if not 0 < value < 1:
            raise argparse.ArgumentTypeError(f"expected {what} between 0 and 1 such as {example}; "
                                             f"got {text!r}")
        return value
    return read


_level = _strictly_between_0_and_1("a confidence level", "0.95")


def _count(text: str, *, least: int, most: int | None = None) -> int:
    try:
        value = int(text)
    except ValueError:
        value = least - 1
    if value < least:
        raise argparse.ArgumentTypeError(f"expected an integer of at least {least}; got {text!r}")
    if most is not None and value > most:
        raise argparse.ArgumentTypeError(f"expected an integer of at most {most} (more does not "
                                         f"fit in memory); got {text!r}")
    return value


def _positive_int(text: str) -> int:
    return _count(text, least=1)


def _nonnegative_int(text: str) -> int:
    return _count(text, least=0)


def _unicode_output(stream: Any) -> bool:
    encoding = (getattr(stream, "encoding", None) or "").lower().replace("-", "")
    return encoding.startswith("utf")


def _pretty(expr: Any, stream: Any) -> str:
    import sympy

    # numeric multipliers carry 30+ digits; a dozen is plenty to read (--json keeps them all)
    shorter = expr.xreplace({f: sympy.Float(f, 12) for f in expr.atoms(sympy.Float)})
    return sympy.pretty(shorter, use_unicode=_unicode_output(stream), wrap_line=False)


def _formula(expr: Any) -> str:
    """One line for an expression, a Piecewise read as 'a if c; b otherwise'."""
    import sympy

    if isinstance(expr, sympy.Piecewise):
        parts = []
        for value, condition in expr.args:
            if condition == sympy.true:
                parts.append(f"{value} otherwise" if parts else str(value))
            else:
                parts.append(f"{value} if {condition}")
        return "; ".join(parts)
    return str(expr)


def _utf8(text: str) -> bool:
    """Whether ``text`` is UTF-8 text (Python keeps bytes of another encoding in an argument as
    lone surrogates, which no UTF-8 file can hold)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _write_csv(table: Any, out: Any, **options: Any) -> None:
    """A table as CSV, its text cells unable to run as spreadsheet formulas (a leading ')."""
    spreadsheet_safe(table).to_csv(out, **options)


def _progress(enabled: bool, message: str) -> None:
    if enabled:
        print(message, file=sys.stderr, flush=True)


def _show_progress(option: bool | None, count: int) -> bool:
    if option is not None:
        return option
    return count > _PROGRESS_AFTER and sys.stderr.isatty()


def _percent(level: float) -> str:
    return f"{100 * level:.10g}%"


_probability_value = _strictly_between_0_and_1("a probability", "0.05")
