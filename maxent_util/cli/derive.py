"""``maxent-util derive``: its flags made from the registry of constraint kinds, and how a
derived distribution is printed.
"""

from __future__ import annotations

import argparse
import json
import re
from typing import Any

from .core import CommandLineError, PROG, _one_line, _pretty, _seconds


def _flag_name(kind: str) -> str:
    """``SquaredLogDeviation`` -> ``squared-log-deviation``."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "-", kind).lower()


class _ConstraintAction(argparse.Action):
    """Collects ``(kind, tokens)`` in command-line order across every constraint flag."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        collected = list(getattr(namespace, self.dest, None) or [])
        collected.append((self.const, option_string, list(values)))
        setattr(namespace, self.dest, collected)


def _kind_help(cls: type) -> str:
    doc = (cls.__doc__ or "").strip().split("\n\n")[0]
    return _one_line(doc).replace("``", "").replace("%", "%%")


def _kind_metavar(cls: type) -> str:
    names = [n.upper() for n in cls.argument_names]
    bound = ["[relation=<=|>=]"] if getattr(cls, "takes_relation", False) else []
    return " ".join(names + [f"[{n.upper()}]" for n in cls.option_names] + bound)


class _HelpFormatter(argparse.HelpFormatter):
    """Shows ``--log-moment VALUE KAPPA0 [SIDE]`` rather than argparse's ``VALUE [VALUE ...]``."""

    def _format_args(self, action: argparse.Action, default_metavar: str) -> str:
        if isinstance(action, _ConstraintAction) and action.nargs == "+":
            return str(action.metavar)
        return super()._format_args(action, default_metavar)


def _add_constraint_flags(parser: argparse.ArgumentParser) -> None:
    from ..constraints import constraint_kinds

    group = parser.add_argument_group(
        "constraints (one flag per registered kind; repeat a flag for several constraints)",
        "Values are numbers, 'oo' for infinity, names for symbolic parameters (a name is a "
        "positive symbol) or sympy expressions. Optional trailing values fill the options in "
        "order; NAME=VALUE gives any argument by name; a comma makes a pair (e.g. WHERE=0,10). "
        "A moment's value may state a bound: --mean '<=3600' is E[kappa] <= 3600, "
        "--tail-probability 60 '<=0.1' is P(kappa < 60) <= 0.1 (or relation=<= / relation=>=). "
        "--tail-probability T P states the chance P that the captime is below T (the lower "
        "tail): 'one time in 10 I would still be waiting after 2h', as the designer asks it, "
        "is --tail-probability 2h 0.9. "
        "Without --support the support is [0, oo), said in the output.")
    for name, cls in constraint_kinds().items():
        required = len(cls.argument_names)
        # a kind that takes a bound reads `relation=<=` after its values, as Python does
        if cls.option_names or required == 0 or getattr(cls, "takes_relation", False):
            group.add_argument(f"--{_flag_name(name)}", action=_ConstraintAction, const=cls,
                               dest="constraints", nargs="+", metavar=_kind_metavar(cls),
                               help=_kind_help(cls))
        else:
            group.add_argument(f"--{_flag_name(name)}", action=_ConstraintAction, const=cls,
                               dest="constraints", nargs=required,
                               metavar=tuple(n.upper() for n in cls.argument_names),
                               help=_kind_help(cls))


def _option_value(token: str) -> Any:
    if "," in token:
        return tuple(part.strip() for part in token.split(","))
    return token


#: prefixes of a value that state a bound: ``--mean "<=3600"`` is Mean(3600, relation="<=")
_RELATION_PREFIXES = ("<=", ">=", "==")


def _split_relation(cls: type, flag: str, tokens: list[str]) -> tuple[list[str], str | None]:
    """The tokens with a leading ``<=``, ``>=`` or ``==`` taken off, and that relation (None if none)."""
    relation = None
    stripped = []
    for token in tokens:
        text = token.strip()
        prefix = text[:2]
        if prefix in _RELATION_PREFIXES:
            if not getattr(cls, "takes_relation", False):
                raise CommandLineError(f"argument {flag}: takes no bound ({prefix}); state its values plainly")
            if relation is not None and relation != prefix:
                raise CommandLineError(f"argument {flag}: two relations, {relation} and {prefix}")
            relation, token = prefix, text[2:].strip()
        elif text[:1] in "<>=" and text:
            raise CommandLineError(f"argument {flag}: a bound is stated with <=, >= or == before the value "
                                   f"(e.g. '<=3600'); got {token!r}")
        stripped.append(token)
    return stripped, relation


def _build_constraint(cls: type, flag: str, tokens: list[str]) -> Any:
    names = tuple(cls.argument_names) + tuple(cls.option_names)
    positional: list[Any] = []
    keywords: dict[str, Any] = {}
    tokens, relation = _split_relation(cls, flag, tokens)
    if relation is not None and relation != "==":
        keywords["relation"] = relation
    for token in tokens:
        key, sep, value = token.partition("=")
        if sep and key.strip() in names:
            keywords[key.strip()] = value.strip() if key.strip() in cls.argument_names \
                else _option_value(value.strip())
        elif sep and key.strip() == "relation" and getattr(cls, "takes_relation", False):
            keywords["relation"] = value.strip()
        elif set(keywords) - {"relation"}:
            raise CommandLineError(
                f"argument {flag}: positional value {token!r} after a NAME=VALUE one")
        else:
            positional.append(token)
    if len(positional) > len(names):
        raise CommandLineError(
            f"argument {flag}: expected at most {len(names)} values ({' '.join(map(str.upper, names))}); "
            f"got {len(positional)}")
    converted = [value if index < len(cls.argument_names) else _option_value(value)
                 for index, value in enumerate(positional)]
    return cls(*converted, **keywords)


def _constraints(arguments: argparse.Namespace) -> list[Any]:
    collected = getattr(arguments, "constraints", None) or []
    if not collected:
        raise CommandLineError("derive needs at least one constraint, e.g. --support 0 24 "
                               f"(see `{PROG} derive --help`)")
    return [_build_constraint(cls, flag, tokens) for cls, flag, tokens in collected]


def distribution_record(distribution: Any) -> dict[str, Any]:
    """The JSON view of a captime distribution (expressions as sympy-readable strings)."""
    import sympy

    utility = distribution.utility().expr
    return {
        "name": getattr(distribution, "name", None),
        "constraints": [repr(c) for c in distribution.constraints],
        "support": [str(end) for end in distribution.support],
        "parameters": [s.name for s in distribution.parameters],
        "pdf": str(distribution.pdf),
        "cdf": str(distribution.cdf),
        "sf": str(distribution.sf),
        "utility": str(utility),
        "multipliers": {str(k): str(v) for k, v in distribution.multipliers.items()},
        "closed_form": bool(distribution.closed_form),
        # the inequality constraints that bind (null when that depends on symbolic parameters)
        "active": None if distribution.active is None else [repr(c) for c in distribution.active],
        "latex": {
            "pdf": sympy.latex(distribution.pdf),
            "cdf": sympy.latex(distribution.cdf),
            "sf": sympy.latex(distribution.sf),
            "utility": sympy.latex(utility),
        },
    }


def _support_text(distribution: Any) -> str:
    """``[0, oo) (default)`` when no constraint states the support, else the support stated."""
    low, high = distribution.support
    shown = f"[{low}, {high}{')' if str(high) == 'oo' else ']'}"
    stated = any(type(c).__name__ == "Support" for c in distribution.constraints)
    return shown if stated else f"{shown} (default: no --support given)"


def _print_distribution(distribution: Any, arguments: argparse.Namespace, out: Any) -> None:
    if arguments.json:
        json.dump(distribution_record(distribution), out, indent=2)
        out.write("\n")
        return
    import sympy

    utility = distribution.utility().expr
    if arguments.latex:
        print(f"f(\\kappa) = {sympy.latex(distribution.pdf)}", file=out)
        print(f"F(\\kappa) = {sympy.latex(distribution.cdf)}", file=out)
        print(f"u(t) = 1 - F(t) = {sympy.latex(utility)}", file=out)
        return
    name = getattr(distribution, "name", None)
    if name:
        print(f"family: {name}", file=out)
    print(f"constraints: {', '.join(map(repr, distribution.constraints))}", file=out)
    print(f"support: {_support_text(distribution)}", file=out)
    if distribution.active_cases:
        for condition, active in distribution.active_cases:
            where = "" if condition is True or str(condition) == "True" else f" where {condition}"
            print(f"active bounds{where}: {', '.join(map(repr, active)) or 'none'}", file=out)
    print("multipliers: " + ("exact (closed form)" if distribution.closed_form
                             else "solved numerically"), file=out)
    for symbol, value in distribution.multipliers.items():
        print(f"  {symbol} = {value}", file=out)
    for title, expr in (("pdf f(kappa) =", distribution.pdf),
                        ("CDF F(kappa) =", distribution.cdf),
                        ("utility u(t) = 1 - F(t) =", utility)):
        print(f"\n{title}", file=out)
        for line in _pretty(expr, out).splitlines():
            print(f"  {line}", file=out)


def _add_output_flags(parser: argparse.ArgumentParser) -> None:
    output = parser.add_mutually_exclusive_group()
    output.add_argument("--latex", action="store_true", help="print the pdf, CDF and utility in LaTeX")
    output.add_argument("--json", action="store_true",
                        help="print JSON: pdf, cdf, sf, utility, multipliers, closed_form, latex "
                             "(expressions in kappa and t, read by the safe expression reader)")


def _timeout_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--timeout", type=_seconds, default=None, metavar="SECONDS",
                        help="time allowed for the whole derivation (the symbolic attempt, then "
                             "the numeric fallback)")


def _command_derive(arguments: argparse.Namespace, out: Any) -> int:
    from ..maxent import derive

    constraints = _constraints(arguments)
    keywords = {} if arguments.timeout is None else {"timeout": arguments.timeout}
    _print_distribution(derive(*constraints, method=arguments.method, **keywords), arguments, out)
    return 0


def add_parser(commands: Any, *, constraint_flags: bool = True) -> None:
    """Add ``derive`` to the subcommands ``commands``."""
    derive = commands.add_parser("derive", formatter_class=_HelpFormatter, help="derive the maximum-entropy captime law of constraints",
                                 description="Derive the maximum-entropy captime distribution of the "
                                             "given constraints and its utility u(t) = 1 - F(t).")
    if constraint_flags:
        _add_constraint_flags(derive)
    _add_output_flags(derive)
    _timeout_flag(derive)
    derive.add_argument("--method", choices=("auto", "symbolic", "numeric"), default="auto",
                        help="how to find the multipliers: closed form first, then numerics (auto); "
                             "closed form only (symbolic); numerics only (numeric)")
    derive.set_defaults(handler=_command_derive)
