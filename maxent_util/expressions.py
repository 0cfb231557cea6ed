"""The one safe reader of text into sympy expressions.

Every string that reaches maxent_util (a constraint value, a utility, a
preset's argument, a flag on the command line, a leaf of a JSON document)
comes from someone else's file, so it is read here and nowhere else.  Text
is parsed with Python's :mod:`ast` and the tree is walked by hand: only
numbers, names that the context allows, arithmetic, comparisons and a fixed
list of functions are accepted, and each node is built directly as a sympy
object.  Nothing is ever passed to ``eval``, ``sympify`` or ``parse_expr``.

Blow-ups are refused before they are computed: long texts, deep or large
trees, numbers with more than :data:`MAX_DIGITS` digits and powers whose
exact result would have more, whatever the base (``9**9**9``,
``sqrt(2)**(10**300)``, ``(3**(1/7))**(7**300)``, ``(2*x)**(10**300)``).
Every evaluation of a number while a value is read or checked (``gamma(-1e300 + 0.5)``,
``uppergamma(1e20, 1e20)`` in a JSON document) runs under a deadline of
:data:`EVALUATION_SECONDS`; a value not evaluated in time is refused, never waited for.

The same builders read the operator trees of the JSON format
(:func:`from_tree`), so a document and a string obey one set of rules.

>>> read_expression("pareto_scale * exp(-t/2)", arg="u", owner="Utility")
pareto_scale*exp(-t/2)
>>> read_expression("open('/etc/passwd')", arg="u", owner="Utility")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
maxent_util.errors.MaxEntError: `u` of `Utility` must be ...
"""

from __future__ import annotations

import ast
import keyword
import math
import re
import warnings
from fractions import Fraction
from typing import Any, Callable, Mapping

import mpmath
import numpy as np
import sympy
from sympy.codegen.cfunctions import log1p

from ._timing import Deadline, SymbolicTimeout, alarm_usable, run_bounded
from .durations import DurationError, seconds_in_text
from .errors import MaxEntError, argument_message, short
from .symbols import kappa, q, t

__all__ = [
    "numpy_modules",
    "MAX_LENGTH",
    "MAX_NODES",
    "MAX_DEPTH",
    "MAX_DIGITS",
    "MAX_EXPONENT",
    "EVALUATION_SECONDS",
    "FUNCTIONS",
    "read_expression",
    "read_number",
    "as_expression",
    "check_evaluable",
    "expansion_digits",
    "to_tree",
    "from_tree",
    "TREE_VERSION",
]

#: longest text read, in characters
MAX_LENGTH = 4000
#: most nodes in one expression (text or JSON tree)
MAX_NODES = 2000
#: deepest nesting of one expression
MAX_DEPTH = 60
#: most nodes in an expression built in Python and handed in (scoring and printing a larger
#: one takes minutes or exhausts the recursion limit)
MAX_OBJECT_NODES = 20000
#: most decimal digits of any number, read or computed while reading
MAX_DIGITS = 400
#: largest decimal exponent of any float, read or computed while reading
MAX_EXPONENT = 10000
#: seconds allowed for evaluating the numbers of one value while it is read or checked (a
#: special function of large arguments can keep mpmath busy for minutes); a module constant, so
#: a caller that needs more may raise it
EVALUATION_SECONDS = 5.0

#: the variables every context knows, by name
VARIABLES: dict[str, sympy.Symbol] = {"t": t, "kappa": kappa, "q": q}

_INFINITY_WORDS = {"oo", "inf", "infinity", "Infinity"}
# words sympy reads as non-real or undefined numbers; refused, never symbols
_REFUSED_WORDS = {"nan", "NaN", "zoo", "I", "j", "J", "ComplexInfinity"}
_CONSTANTS = {"pi": sympy.pi, "E": sympy.E}
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*\Z")


#: the functions a text may call, with how many arguments each takes
FUNCTIONS: dict[str, tuple[Callable[..., sympy.Expr], tuple[int, ...]]] = {
    "exp": (sympy.exp, (1,)),
    "log": (sympy.log, (1, 2)),
    "ln": (sympy.log, (1,)),
    "sqrt": (sympy.sqrt, (1,)),
    "erf": (sympy.erf, (1,)),
    "erfc": (sympy.erfc, (1,)),
    "erfinv": (sympy.erfinv, (1,)),
    "erfcinv": (sympy.erfcinv, (1,)),
    "gamma": (sympy.gamma, (1,)),
    "loggamma": (sympy.loggamma, (1,)),
    "Abs": (sympy.Abs, (1,)),
    "abs": (sympy.Abs, (1,)),
    "Min": (sympy.Min, tuple(range(1, 33))),
    "min": (sympy.Min, tuple(range(1, 33))),
    "Max": (sympy.Max, tuple(range(1, 33))),
    "max": (sympy.Max, tuple(range(1, 33))),
    "floor": (sympy.floor, (1,)),
    "ceiling": (sympy.ceiling, (1,)),
    "Heaviside": (sympy.Heaviside, (1, 2)),
    "Piecewise": (sympy.Piecewise, tuple(range(1, 33))),
}


#: a number and a word: meant as a duration, by a unit the duration reader does not know
_NUMBER_AND_WORD = re.compile(r"\s*[0-9][0-9.eE+-]*\s*[A-Za-z]+\s*", re.ASCII)


class _Refused(Exception):
    """Why a text was refused (turned into the caller's error with its argument name)."""


#: decimals with at most this many significant digits read as exact rationals in "short" mode
EXACT_DIGITS = 8

# ---------------------------------------------------------------------------
# numbers and their sizes


#: the least integer with more than MAX_DIGITS decimal digits
_TOO_LARGE = 10 ** MAX_DIGITS


def _too_many_digits(value: sympy.Rational) -> bool:
    """Whether the numerator or the denominator of a rational has more than MAX_DIGITS digits
    (compared as integers: ``str`` of a 5,000-digit integer raises Python's conversion limit)."""
    return abs(value.p) >= _TOO_LARGE or value.q >= _TOO_LARGE


def _float_in_range(value: sympy.Float) -> bool:
    """Whether a Float lies between 10**-MAX_EXPONENT and 10**MAX_EXPONENT (or is zero)."""
    sign, mantissa, exponent, bits = value._mpf_
    if not mantissa:
        return exponent == 0 or value == 0  # zero; infinities and NaN have a zero mantissa too
    return abs(exponent + bits) <= MAX_EXPONENT * 3.33  # 3.32 bits per decimal digit


def _check_size(value: sympy.Basic, checked: set | None = None) -> sympy.Basic:
    """``value``, refused when a number inside it has too many digits or too large an exponent.

    ``checked`` holds the subtrees a reader has already checked; they are not walked again, so
    checking each node as a tree is built costs time in proportion to its size, not its
    size times its depth.
    """
    if not isinstance(value, sympy.Basic):
        return value
    pending = [value]
    while pending:
        node = pending.pop()
        if isinstance(node, sympy.Rational):
            if _too_many_digits(node):
                raise _Refused(f"numbers of at most {MAX_DIGITS} digits")
        elif isinstance(node, sympy.Float):
            if not _float_in_range(node):
                raise _Refused(f"numbers between 1e-{MAX_EXPONENT} and 1e{MAX_EXPONENT}")
        elif node.args and (checked is None or node not in checked):
            if checked is not None:
                checked.add(node)
            pending.extend(arg for arg in node.args if isinstance(arg, sympy.Basic))
    return value


def _check_number(value: sympy.Basic, checked: set | None = None) -> sympy.Basic:
    """A function of numbers only (``exp(10**300)``) must have a value of sensible size.

    Call it under a deadline (:func:`_bounded`): evaluating a special function can take minutes.
    """
    _check_size(value, checked)
    if isinstance(value, sympy.Expr) and value.is_number and not value.is_Atom:
        approximate = value.evalf(15)
        if isinstance(approximate, sympy.Float):
            _check_size(approximate)
    return value


#: functions that mpmath evaluates at once for any argument of checked size; a value whose
#: numbers involve only these is checked in place even where no alarm can stop the check
_QUICK_FUNCTIONS = (sympy.exp, sympy.log, sympy.Abs, sympy.Min, sympy.Max, sympy.sign,
                    sympy.Heaviside, sympy.erf, sympy.erfc, sympy.Piecewise)


def _needs_deadline(value: sympy.Basic) -> bool:
    """Whether checking ``value`` may evaluate a slow function of numbers (gamma, uppergamma,
    floor, ...): only such a check is sent to a worker process off the main thread."""
    for node in sympy.preorder_traversal(value):
        if (isinstance(node, sympy.Function) and not isinstance(node, _QUICK_FUNCTIONS)
                and node.args and all(arg.is_number for arg in node.args if isinstance(arg, sympy.Expr))):
            return True
    return False


def _bounded(function: Callable[..., Any], *args: Any, deadline: Deadline, value: Any = None) -> Any:
    """``function(*args)`` stopped at ``deadline``; a refusal (:class:`_Refused`) when time runs
    out or sympy/mpmath fail on the numbers (``NoConvergence``).

    On the main thread the alarm of :func:`~maxent_util._timing.time_limit` costs microseconds;
    elsewhere a worker process is needed, so a ``value`` whose numbers involve only quick
    functions is checked in place there.
    """
    if value is not None and not alarm_usable() and not _needs_deadline(value):
        return function(*args)
    try:
        return run_bounded(function, *args, deadline=deadline)
    except SymbolicTimeout:
        raise _Refused(f"a value whose numbers can be evaluated within {EVALUATION_SECONDS:g} s") from None
    except (_Refused, MaxEntError):
        raise
    except (RecursionError, MemoryError, ArithmeticError, ValueError, TypeError) as error:
        raise _Refused("a value that can be evaluated") from error
    except Exception as error:  # mpmath's NoConvergence and the like: never a raw traceback
        raise _Refused("a value that can be evaluated") from error


#: a rational exponent p/q can make sympy build base**(p mod q) (24**(-1/10**6) holds 24**999999):
#: an expansion of up to this many digits is cheap to build and checked once built (so
#: 15**(-77000/252213), which sympy keeps as it is, is not refused); a larger one counts
_CHEAP_EXPANSION = 10 ** 6


def expansion_digits(expr: sympy.Basic, values: Mapping[sympy.Symbol, sympy.Expr] | None = None) -> float:
    """An upper bound on the decimal digits of the exact numbers sympy may build in ``expr``, with
    ``values`` put for its symbols, before anything is substituted.

    sympy expands integer powers of exact numbers: (2*x)**n builds 2**n, (3**(1/7))**n builds
    3**(n/7), 24**(-1/10**6) builds 24**999999.  A power counts the digits of its base times its
    exponent (plus the exponent's denominator when that is large); floats count nothing (a float
    power stays a float), nor does a symbol without a value.

    >>> kappa0, alpha = sympy.symbols("kappa0 alpha", positive=True)
    >>> expansion_digits((kappa0 / t) ** alpha, {kappa0: sympy.Integer(10), alpha: sympy.Integer(300)})
    300.0
    """
    values = values or {}
    if isinstance(expr, sympy.Rational):
        magnitude = max(abs(expr.p), expr.q)
        return math.log10(magnitude) if magnitude > 1 else 0.0
    if isinstance(expr, sympy.Symbol):
        return expansion_digits(values[expr]) if expr in values else 0.0
    if not isinstance(expr, sympy.Basic) or expr.is_Atom:
        return 0.0
    if isinstance(expr, sympy.Pow):
        base = expansion_digits(expr.base, values)
        if not base:
            return 0.0
        magnitude, denominator = _exponent_weight(expr.exp, values)
        remainder = base * denominator
        return base * magnitude + (remainder if remainder > _CHEAP_EXPANSION else 0.0)
    return sum(expansion_digits(arg, values) for arg in expr.args)


def _exponent_weight(exponent: sympy.Expr, values: Mapping[sympy.Symbol, sympy.Expr]) -> tuple[float, int]:
    """How many times a power's base may be multiplied out: (|exponent|, its denominator); (0, 1)
    for a float exponent, (1, 1) for one with symbols left."""
    exponent_values = {s: values[s] for s in exponent.free_symbols if s in values}
    if any(isinstance(v, sympy.Basic) and v.has(sympy.Float) for v in exponent_values.values()) \
            or exponent.has(sympy.Float):
        return 0.0, 1
    if exponent.free_symbols - set(exponent_values):
        return 1.0, 1
    if expansion_digits(exponent, exponent_values) > MAX_DIGITS:
        return math.inf, 1
    exact = exponent.xreplace(exponent_values) if exponent_values else exponent
    if isinstance(exact, sympy.Rational):
        try:
            return abs(exact.p) / exact.q, exact.q
        except OverflowError:
            return math.inf, 1
    approximate = exact.evalf(15) if isinstance(exact, sympy.Expr) else None
    if not isinstance(approximate, sympy.Float):
        return math.inf, 1  # not a real number of known size: count it as too large
    return abs(float(approximate)), 1


def _power(base: sympy.Expr, exponent: sympy.Expr) -> sympy.Expr:
    """``base**exponent``, refused when the exact numbers it expands would exceed MAX_DIGITS digits.

    Any base counts: a rational, a radical (``sqrt(2)**(10**300)`` is 2**(5*10**299)), a nested
    power (``(3**(1/7))**(7**300)``) or a product with symbols (``(2*x)**(10**300)``).
    """
    if expansion_digits(sympy.Pow(base, exponent, evaluate=False)) > MAX_DIGITS:
        raise _Refused(f"a power with at most {MAX_DIGITS} digits (write it as a float, e.g. 1e300)")
    return sympy.Pow(base, exponent)


def _number_from_text(text: str, value: Any, exact: str) -> sympy.Expr:
    """A number literal; ``exact`` says how decimals are read (see :func:`read_expression`)."""
    if isinstance(value, bool) or isinstance(value, complex):
        raise _Refused("a real number")
    if isinstance(value, int):
        if abs(value) >= _TOO_LARGE:
            raise _Refused(f"numbers of at most {MAX_DIGITS} digits")
        return sympy.Integer(value)
    if not isinstance(value, float):
        raise _Refused("a number")
    literal = text.replace("_", "")
    mantissa = literal.lower().split("e")[0]
    if len(mantissa) > MAX_DIGITS:
        raise _Refused(f"numbers of at most {MAX_DIGITS} digits")
    if not math.isfinite(value):
        raise _Refused("a finite number (write oo for infinity)")
    significant = mantissa.replace(".", "").lstrip("0").rstrip("0")
    exponent_part = literal.lower().split("e")[1] if "e" in literal.lower() else "0"
    if abs(int(exponent_part)) > MAX_DIGITS:
        # 1e-300 is fine as a Float; as an exact rational it is 300 digits, allowed too
        raise _Refused(f"numbers of at most {MAX_DIGITS} digits")
    if exact == "rational" or (exact == "short" and len(significant) <= EXACT_DIGITS):
        return sympy.Rational(literal)
    if len(significant) <= 17:
        # the double the text names, as the same number given as a Python float would be
        return sympy.Float(float(literal))
    return sympy.Float(literal, len(significant))




# ---------------------------------------------------------------------------
# the walker


class _Reader:
    def __init__(self, *, names: Mapping[str, sympy.Basic], new_symbol: Callable[[str], sympy.Symbol] | None,
                 exact: str, allow_infinity: bool, allow_relations: bool) -> None:
        self.names = names
        self.new_symbol = new_symbol
        self.exact = exact
        self.allow_infinity = allow_infinity
        self.allow_relations = allow_relations
        self.nodes = 0
        self.text = ""
        self.checked: set = set()
        #: one deadline for every evaluation of the text's numbers
        self.deadline = Deadline(EVALUATION_SECONDS)

    def read(self, text: str) -> sympy.Basic:
        # t^2 is t**2, as sympy's own reader has it (string literals are refused anyway,
        # so rewriting every caret changes nothing else)
        text = text.replace("^", "**")
        # durations with units (5min, 1h30min) are seconds: a number and a word are never
        # arithmetic, so only a text that would be refused changes
        try:
            text = seconds_in_text(text)
        except DurationError as error:
            raise _Refused(getattr(error, "requirement", "an expression whose durations are "
                                   "read by maxent_util.durations")) from None
        self.text = text
        try:
            tree = syntax_tree(text)
        except (SyntaxError, ValueError, MemoryError, RecursionError, OverflowError) as error:
            if _NUMBER_AND_WORD.fullmatch(text):  # "90 mn", "1 fortnight": a unit we do not know
                raise _Refused("an arithmetic expression, or a duration with a unit of ms, s, "
                               "min, h, d or w (such as 90 min or 2 weeks)") from error
            raise _Refused("an arithmetic expression") from error
        return self.node(tree.body, 0)

    # one method per kind of node -----------------------------------------
    def node(self, node: ast.AST, depth: int) -> sympy.Basic:
        self.nodes += 1
        if self.nodes > MAX_NODES:
            raise _Refused(f"an expression of at most {MAX_NODES} terms")
        if depth > MAX_DEPTH:
            raise _Refused(f"an expression nested at most {MAX_DEPTH} deep")
        if isinstance(node, ast.Constant):
            if isinstance(node.value, bool) and self.allow_relations:
                return sympy.true if node.value else sympy.false
            segment = ast.get_source_segment(self.text, node) or repr(node.value)
            return _number_from_text(segment, node.value, self.exact)
        if isinstance(node, ast.Name):
            return self.name(node.id)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            operand = self.node(node.operand, depth + 1)
            return -operand if isinstance(node.op, ast.USub) else operand
        if isinstance(node, ast.BinOp):
            return self.binary(node, depth)
        if isinstance(node, ast.Call):
            return self.call(node, depth)
        if isinstance(node, ast.Compare) and self.allow_relations:
            return self.compare(node, depth)
        if isinstance(node, ast.BoolOp) and self.allow_relations:
            parts = [self.node(value, depth + 1) for value in node.values]
            return sympy.And(*parts) if isinstance(node.op, ast.And) else sympy.Or(*parts)
        raise _Refused("an arithmetic expression of numbers, names, + - * / ** and the functions "
                       + ", ".join(sorted(set(FUNCTIONS) - {"abs", "min", "max", "ln"})))

    def name(self, word: str) -> sympy.Basic:
        if word in self.names:
            return self.names[word]
        if word in VARIABLES:
            return VARIABLES[word]
        if word in _INFINITY_WORDS:
            if not self.allow_infinity:
                raise _Refused("finite")
            return sympy.oo
        if word in _REFUSED_WORDS:
            raise _Refused(f"a real value (`{word}` is not one)")
        if word in _CONSTANTS:
            return _CONSTANTS[word]
        if word in ("True", "False"):
            return sympy.true if word == "True" else sympy.false
        if not _NAME.match(word) or keyword.iskeyword(word) or self.new_symbol is None:
            raise _Refused("a number" if self.new_symbol is None else
                           "names made of ASCII letters, digits and underscores")
        return self.new_symbol(word)

    def binary(self, node: ast.BinOp, depth: int) -> sympy.Expr:
        left = self.node(node.left, depth + 1)
        right = self.node(node.right, depth + 1)
        if isinstance(node.op, (ast.BitAnd, ast.BitOr)) and self.allow_relations:
            # conditions as sympy prints them: (t >= 0) & (t < 5)
            if not all(isinstance(side, sympy.logic.boolalg.Boolean) for side in (left, right)):
                raise _Refused("& and | between conditions only")
            return sympy.And(left, right) if isinstance(node.op, ast.BitAnd) else sympy.Or(left, right)
        for side in (left, right):
            if not isinstance(side, sympy.Expr):
                raise _Refused("arithmetic on numbers and expressions, not on conditions")
        op = node.op
        if isinstance(op, ast.Add):
            result = left + right
        elif isinstance(op, ast.Sub):
            result = left - right
        elif isinstance(op, ast.Mult):
            result = left * right
        elif isinstance(op, ast.Div):
            if right == 0:
                raise _Refused("free of division by zero")
            result = left / right
        elif isinstance(op, ast.Pow):
            if right.is_number:
                # the size estimate evaluates the exponent; sympy may evaluate the power
                result = _bounded(_checked_power, left, right, self.checked, deadline=self.deadline,
                                  value=sympy.Tuple(left, right))
            else:
                result = _check_number(_power(left, right), self.checked)
        else:
            raise _Refused("arithmetic with + - * / and **")
        return _check_size(result, self.checked)

    def call(self, node: ast.Call, depth: int) -> sympy.Expr:
        if not isinstance(node.func, ast.Name) or node.func.id not in FUNCTIONS or node.keywords:
            raise _Refused("calls of the functions " + ", ".join(sorted(FUNCTIONS)) + " only")
        function, arities = FUNCTIONS[node.func.id]
        if len(node.args) not in arities:
            raise _Refused(f"`{node.func.id}` with {' or '.join(map(str, arities[:2]))} argument(s)")
        if function is sympy.Piecewise:
            pieces = []
            for argument in node.args:
                if not (isinstance(argument, ast.Tuple) and len(argument.elts) == 2):
                    raise _Refused("Piecewise of (expression, condition) pairs")
                value = self.node(argument.elts[0], depth + 2)
                condition = self.condition(argument.elts[1], depth + 2)
                pieces.append((value, condition))
            return sympy.Piecewise(*pieces)
        args = [self.node(argument, depth + 1) for argument in node.args]
        if not all(isinstance(argument, sympy.Expr) for argument in args):
            raise _Refused(f"`{node.func.id}` of expressions, not of conditions")
        if all(argument.is_number for argument in args):
            # sympy evaluates a function of exact numbers as it builds it (gamma(-10**300 + 1/2)
            # would run for minutes): under the text's deadline
            return _bounded(_checked_call, function, args, self.checked, deadline=self.deadline,
                            value=function(*args, evaluate=False))
        return _check_number(function(*args), self.checked)

    def condition(self, node: ast.AST, depth: int) -> sympy.Basic:
        allowed, self.allow_relations = self.allow_relations, True
        try:
            value = self.node(node, depth)
        finally:
            self.allow_relations = allowed
        if not isinstance(value, (sympy.logic.boolalg.Boolean, bool)):
            raise _Refused("Piecewise conditions that are comparisons or True")
        return value

    def compare(self, node: ast.Compare, depth: int) -> sympy.Basic:
        operators = {ast.Lt: sympy.Lt, ast.LtE: sympy.Le, ast.Gt: sympy.Gt, ast.GtE: sympy.Ge,
                     ast.Eq: sympy.Eq, ast.NotEq: sympy.Ne}
        terms = [self.node(node.left, depth + 1)] + [self.node(c, depth + 1) for c in node.comparators]
        parts = []
        for op, left, right in zip(node.ops, terms, terms[1:]):
            if type(op) not in operators:
                raise _Refused("comparisons with < <= > >= == !=")
            parts.append(operators[type(op)](left, right))
        return parts[0] if len(parts) == 1 else sympy.And(*parts)


def _checked_power(base: sympy.Expr, exponent: sympy.Expr, checked: set) -> sympy.Expr:
    return _check_number(_power(base, exponent), checked)


def _checked_call(function: Callable[..., sympy.Expr], args: list, checked: set) -> sympy.Expr:
    return _check_number(function(*args), checked)


def _fail(error: type[MaxEntError], arg: str, owner: str, requirement: str, value: Any) -> MaxEntError:
    shown = value if not isinstance(value, str) or len(value) <= 80 else value[:77] + "..."
    return error(argument_message(arg, owner, requirement, shown))


def read_expression(text: Any, *, arg: str = "value", owner: str = "maxent_util",
                    names: Mapping[str, sympy.Basic] | None = None,
                    new_symbol: Callable[[str], sympy.Symbol] | None = sympy.Symbol,
                    exact: str = "float", allow_infinity: bool = False,
                    allow_relations: bool = False, real: bool = True,
                    error: type[MaxEntError] = MaxEntError) -> sympy.Basic:
    """Read ``text`` into a sympy expression, safely.

    Parameters
    ----------
    text : str
        The text, e.g. ``"exp(-t/kappa0)"``.
    arg, owner : str
        Where the text came from, for error messages.
    names : mapping, optional
        Names with a fixed meaning in this context (``{"alpha": alpha}``);
        ``t``, ``kappa`` and ``q`` are always the library's variables.
    new_symbol : callable or None
        How any other name becomes a symbol (``sympy.Symbol`` by default; a
        function that adds assumptions; None to refuse unknown names).
    exact : {"float", "short", "rational"}
        Decimals as Floats, as exact rationals when they have at most eight
        significant digits (``0.3`` is 3/10), or always as exact rationals.
    allow_infinity : bool
        Whether ``oo``/``inf`` may appear.
    allow_relations : bool
        Whether the whole text may be a comparison (Piecewise conditions are always allowed).
    real : bool
        Refuse values that are provably not real (``sqrt(-1)``, ``log(-2)``).
    error : MaxEntError subclass
        The error raised for a refused text.

    Returns
    -------
    sympy.Basic
        The expression.

    Raises
    ------
    MaxEntError
        (``error``) when the text is not one this reader accepts.
    """
    if not isinstance(text, str):
        raise _fail(error, arg, owner, "a string", text)
    if len(text) > MAX_LENGTH:
        raise _fail(error, arg, owner, f"a text of at most {MAX_LENGTH} characters",
                    f"{len(text)} characters")
    if "\x00" in text or not text.strip():
        raise _fail(error, arg, owner, "a non-empty expression", text)
    reader = _Reader(names=dict(names or {}), new_symbol=new_symbol, exact=exact,
                     allow_infinity=allow_infinity, allow_relations=allow_relations)
    try:
        value = reader.read(text.strip())
        _check_value(value, real=real, allow_infinity=allow_infinity, deadline=reader.deadline)
    except _Refused as refused:
        raise _fail(error, arg, owner, str(refused), text) from None
    except (RecursionError, MemoryError, OverflowError, ValueError, TypeError, ZeroDivisionError) as exc:
        # sympy's own complaints while building (never code execution): refuse the text
        raise _fail(error, arg, owner, "an expression that can be evaluated", text) from exc
    return value


def _check_value(value: sympy.Basic, *, real: bool, allow_infinity: bool, deadline: Deadline) -> None:
    """Refuse (:class:`_Refused`) an undefined, non-real or infinite value; sympy's assumptions
    may evaluate its numbers, so the question runs under ``deadline``."""
    if isinstance(value, sympy.Expr):
        if value.has(sympy.nan, sympy.zoo):
            raise _Refused("a defined real value")
        if real and _bounded(_is_not_real, value, deadline=deadline, value=value):
            raise _Refused("a real value")
        if not allow_infinity and value.has(sympy.oo, -sympy.oo):
            raise _Refused("finite")


def _is_not_real(value: sympy.Expr) -> bool:
    return value.is_extended_real is False


def _evaluated(value: sympy.Basic) -> sympy.Basic:
    """``value`` with every function of numbers evaluated as sympy evaluates it when it builds it
    (a JSON tree keeps ``floor(1e9999)`` unevaluated; evaluated, it is a 10,000-digit integer)."""
    if value.is_Atom or isinstance(value, sympy.Integral) or not value.args:
        return value
    args = [_evaluated(arg) if isinstance(arg, sympy.Basic) else arg for arg in value.args]
    return value.func(*args)


def _check_numbers(value: sympy.Basic) -> None:
    """Refuse a number inside ``value`` that is too large once evaluated, or cannot be evaluated."""
    pending = [value]
    while pending:
        node = pending.pop()
        if not isinstance(node, sympy.Basic) or node.is_Atom:
            continue
        if isinstance(node, sympy.Expr) and node.is_number and not isinstance(node, sympy.Integral):
            _check_number(_check_size(_evaluated(node)))
            continue
        pending.extend(node.args)


def check_evaluable(value: sympy.Basic, *, arg: str = "value", owner: str = "maxent_util",
                    error: type[MaxEntError] = MaxEntError) -> sympy.Basic:
    """``value``, refused unless every number in it has a sensible size and is evaluated in time.

    Each function of numbers only (``uppergamma(1e20, 1e20)``, ``floor(1e9999)``) is evaluated
    to 15 digits and its exact value built, within :data:`EVALUATION_SECONDS` for the whole value;
    a number with more than :data:`MAX_DIGITS` digits, beyond 1e\u00b1:data:`MAX_EXPONENT`, or not
    evaluated in time (or at all) is refused.  The value itself is returned unchanged: a JSON
    document's trees stay as they were written.

    Raises
    ------
    MaxEntError
        (``error``) naming ``arg`` and ``owner``, with the value shortened.
    """
    try:
        _check_size(value)
        _bounded(_check_numbers, value, deadline=Deadline(EVALUATION_SECONDS), value=value)
    except _Refused as refused:
        raise error(argument_message(arg, owner, str(refused), short(_shown(value)))) from None
    return value


def _shown(value: Any) -> Any:
    """A value as an error message names it: itself when short, else a short text (never a
    5,000-digit number, whose ``str`` raises Python's int-to-str limit)."""
    if isinstance(value, sympy.Basic):
        large = [n for n in value.atoms(sympy.Rational) if _too_many_digits(n)]
        if large:
            digits = max(int(max(abs(n.p), n.q).bit_length() * math.log10(2)) + 1 for n in large)
            return f"{type(value).__name__} holding a number of about {digits} digits"
    try:
        text = str(value)
    except ValueError:
        return f"a {type(value).__name__} too large to print"
    return value if len(text) <= 80 else text[:77] + "..."


def read_number(text: Any, *, arg: str = "value", owner: str = "maxent_util", exact: str = "float",
                allow_infinity: bool = False, error: type[MaxEntError] = MaxEntError) -> sympy.Expr:
    """A real number (no names) read from text, e.g. ``"1/3"``, ``"1e-4"``, ``"oo"``."""
    return read_expression(text, arg=arg, owner=owner, new_symbol=None, exact=exact,
                           allow_infinity=allow_infinity, error=error)


def as_expression(value: Any, *, arg: str = "value", owner: str = "maxent_util",
                  allow_infinity: bool = True, real: bool = True, exact: str = "float",
                  new_symbol: Callable[[str], sympy.Symbol] | None = sympy.Symbol,
                  names: Mapping[str, sympy.Basic] | None = None,
                  error: type[MaxEntError] = MaxEntError, check_size: bool = False) -> sympy.Expr:
    """A number, a sympy expression or a text (read by :func:`read_expression`) as a sympy Expr.

    Anything else (None, a bool, a list, a complex number, an arbitrary object) is refused:
    it is never handed to sympy's string-evaluating ``sympify``.  With ``check_size`` a sympy
    object obeys the text's limits too (numbers of at most :data:`MAX_DIGITS` digits, floats
    within 1e\u00b1:data:`MAX_EXPONENT`): constraint arguments are checked so, while a law's own
    expressions (``(24/t)**1000`` has 1,381 digits) are not.
    """
    if isinstance(value, str):
        value = read_expression(value, arg=arg, owner=owner, names=names, new_symbol=new_symbol,
                                exact=exact, allow_infinity=allow_infinity, real=real, error=error)
    elif isinstance(value, (bool, np.bool_)) or value is None:
        raise _fail(error, arg, owner, "a number or an expression", value)
    elif isinstance(value, (int, np.integer)):
        if abs(int(value)) >= _TOO_LARGE:
            raise _fail(error, arg, owner, f"a number of at most {MAX_DIGITS} digits",
                        f"an integer of {int(abs(int(value)).bit_length() * math.log10(2)) + 1} digits")
        value = sympy.Integer(int(value))
    elif isinstance(value, (float, np.floating)):
        if math.isnan(value):
            raise _fail(error, arg, owner, "a number, not NaN", value)
        value = (sympy.oo if value > 0 else -sympy.oo) if math.isinf(value) else sympy.Float(float(value))
    elif isinstance(value, Fraction):
        value = sympy.Rational(value.numerator, value.denominator)
    elif not isinstance(value, sympy.Basic):
        raise _fail(error, arg, owner, "a number, a sympy expression or a text", value)
    if not isinstance(value, sympy.Expr):
        raise _fail(error, arg, owner, "a number or an expression", value)
    if _larger_than(value, MAX_OBJECT_NODES):
        raise _fail(error, arg, owner, f"an expression of at most {MAX_OBJECT_NODES} nodes",
                    f"{type(value).__name__} with more")
    try:
        if check_size:
            _check_size(value)
        _check_value(value, real=real, allow_infinity=allow_infinity, deadline=Deadline(EVALUATION_SECONDS))
    except _Refused as refused:
        raise _fail(error, arg, owner, str(refused), _shown(value)) from None
    return value


def _larger_than(expr: sympy.Basic, limit: int) -> bool:
    """Whether ``expr`` has more than ``limit`` nodes (stops counting there)."""
    for count, _ in enumerate(sympy.preorder_traversal(expr), start=1):
        if count > limit:
            return True
    return False


# ---------------------------------------------------------------------------
# the JSON tree: operators and leaves, read by the same builders
#
# A tree is data: every node is looked up in the closed tables below and built
# by a direct constructor call.  Functions and relations are built unevaluated
# (``evaluate=False``): a tree written by :func:`to_tree` holds expressions that
# sympy has already evaluated, so nothing changes for them, while a hostile tree
# cannot make the reader spend minutes evaluating ``uppergamma(1e100, 1e100)``.

#: version of the tree format written by :func:`to_tree`
TREE_VERSION = 1

#: function operators -> (constructor, allowed numbers of arguments)
_TREE_FUNCTIONS: dict[str, tuple[Callable[..., sympy.Basic], tuple[int, ...]]] = {
    "exp": (sympy.exp, (1,)), "log": (sympy.log, (1,)), "erf": (sympy.erf, (1,)),
    "erfc": (sympy.erfc, (1,)), "erfinv": (sympy.erfinv, (1,)), "erfcinv": (sympy.erfcinv, (1,)),
    "gamma": (sympy.gamma, (1,)), "loggamma": (sympy.loggamma, (1,)), "Abs": (sympy.Abs, (1,)),
    "Min": (sympy.Min, tuple(range(1, 65))), "Max": (sympy.Max, tuple(range(1, 65))),
    "floor": (sympy.floor, (1,)), "ceiling": (sympy.ceiling, (1,)),
    "Heaviside": (sympy.Heaviside, (1, 2)), "uppergamma": (sympy.uppergamma, (2,)),
    "lowergamma": (sympy.lowergamma, (2,)), "LambertW": (sympy.LambertW, (1, 2)),
    "sign": (sympy.sign, (1,)), "expint": (sympy.expint, (2,)), "Ei": (sympy.Ei, (1,)),
}
#: relation operators (arguments are expressions) and logic operators (arguments are conditions)
_TREE_RELATIONS: dict[str, tuple[Callable[..., sympy.Basic], tuple[int, ...]]] = {
    "Lt": (sympy.Lt, (2,)), "Le": (sympy.Le, (2,)), "Gt": (sympy.Gt, (2,)), "Ge": (sympy.Ge, (2,)),
    "Eq": (sympy.Eq, (2,)), "Ne": (sympy.Ne, (2,)),
    "And": (sympy.And, tuple(range(2, 65))), "Or": (sympy.Or, tuple(range(2, 65))),
    "Not": (sympy.Not, (1,)),
}
_LOGIC = ("And", "Or", "Not")
_RELATION_NAMES = {"StrictLessThan": "Lt", "LessThan": "Le", "StrictGreaterThan": "Gt",
                   "GreaterThan": "Ge", "Equality": "Eq", "Unequality": "Ne"}
_ASSUMPTIONS = ("positive", "nonnegative", "negative", "real", "integer")
#: digits of a float leaf's written exponent: enough for any float within 1e-MAX_EXPONENT ..
#: 1e+MAX_EXPONENT (to_tree writes 9.99e-10000); the value's size is checked after reading
_FLOAT_EXPONENT_DIGITS = len(str(MAX_EXPONENT))


def to_tree(expr: Any) -> Any:
    """A sympy expression as a JSON-ready tree of operators and leaves.

    Leaves: ``{"int": "12"}``, ``{"rational": ["1", "3"]}``,
    ``{"float": "0.1", "precision": 53}``, ``{"symbol": "alpha", "assumptions": [...]}``,
    ``{"constant": "oo" | "-oo" | "pi" | "E"}``, ``true``/``false``.  Operators:
    ``{"op": "Add" | "Mul" | "Pow" | "Piecewise" | "Integral" | <function> | <relation>,
    "args": [...]}``; a Piecewise's arguments are ``[value, condition]`` pairs and an
    Integral's are ``[integrand, variable, lower, upper]``.

    Raises
    ------
    TypeError
        For an object with no tree form (an unknown function, a Dummy, NaN).

    >>> to_tree(sympy.Rational(1, 3) * t)
    {'op': 'Mul', 'args': [{'rational': ['1', '3']}, {'symbol': 't', 'assumptions': ['nonnegative']}]}
    """
    if isinstance(expr, bool):
        return expr
    if isinstance(expr, int):
        expr = sympy.Integer(expr)
    elif isinstance(expr, float):
        expr = sympy.Float(expr)
    if expr is sympy.true:
        return True
    if expr is sympy.false:
        return False
    if isinstance(expr, sympy.Integer):
        return {"int": str(int(expr))}
    if isinstance(expr, sympy.Rational):
        return {"rational": [str(expr.p), str(expr.q)]}
    if isinstance(expr, sympy.Float):
        if not _float_in_range(expr):
            raise TypeError(f"a float beyond 1e{MAX_EXPONENT} has no tree form")
        # enough digits that the binary value reads back exactly
        return {"float": mpmath.libmp.to_str(expr._mpf_, mpmath.libmp.repr_dps(expr._prec)),
                "precision": int(expr._prec)}
    if expr is sympy.oo:
        return {"constant": "oo"}
    if expr is -sympy.oo:
        return {"constant": "-oo"}
    if expr is sympy.pi:
        return {"constant": "pi"}
    if expr is sympy.E:
        return {"constant": "E"}
    if isinstance(expr, sympy.Dummy):
        raise TypeError(f"no tree form for the dummy symbol {expr} (give it a name: a Symbol)")
    if isinstance(expr, sympy.Symbol):
        # the assumptions as the symbol was made with them (equal symbols read back equal)
        given = getattr(expr, "_assumptions_orig", None) or expr.assumptions0
        assumptions = [name for name in _ASSUMPTIONS if given.get(name)]
        return {"symbol": expr.name, "assumptions": assumptions}
    if isinstance(expr, sympy.Piecewise):
        return {"op": "Piecewise", "args": [[to_tree(e), to_tree(c)] for e, c in expr.args]}
    if type(expr) is sympy.Integral:
        if len(expr.limits) != 1 or len(expr.limits[0]) != 3:
            raise TypeError(f"no tree form for {expr} (one definite integral only)")
        variable, lower, upper = expr.limits[0]
        return {"op": "Integral", "args": [to_tree(expr.function), to_tree(variable),
                                           to_tree(lower), to_tree(upper)]}
    for name, cls in (("Add", sympy.Add), ("Mul", sympy.Mul), ("Pow", sympy.Pow)):
        if type(expr) is cls:
            return {"op": name, "args": [to_tree(a) for a in expr.args]}
    name = _RELATION_NAMES.get(type(expr).__name__, type(expr).__name__)
    known = _TREE_FUNCTIONS.get(name) or _TREE_RELATIONS.get(name)
    if known is not None and type(expr) is known[0]:
        return {"op": name, "args": [to_tree(a) for a in expr.args]}
    raise TypeError(f"no tree form for {type(expr).__name__}")


def from_tree(tree: Any, *, where: str = "document", owner: str = "from_json",
              error: type[MaxEntError] = MaxEntError) -> sympy.Basic:
    """Build the sympy expression of a tree written by :func:`to_tree`, refusing anything else.

    Every refusal (an unknown operator or leaf, a wrong number or kind of
    arguments, a number of more than :data:`MAX_DIGITS` digits, more than
    :data:`MAX_NODES` nodes or nesting deeper than :data:`MAX_DEPTH`) raises
    ``error`` with the message ``"`{where}` of `{owner}` must be ...; got ..."``.
    """
    count = [0]
    checked: set = set()

    def fail(requirement: str, value: Any) -> MaxEntError:
        shown = value if len(repr(value)) <= 80 else repr(value)[:77] + "..."
        return error(argument_message(where, owner, requirement, shown))

    def text_int(value: Any) -> int:
        if not isinstance(value, str) or not re.fullmatch(r"-?[0-9]{1,%d}" % MAX_DIGITS, value):
            raise fail(f"an integer written as a string of at most {MAX_DIGITS} digits", value)
        return int(value)

    def expression(value: sympy.Basic, op: str) -> sympy.Expr:
        if not isinstance(value, sympy.Expr):
            raise fail(f"`{op}` of expressions, not of conditions", str(value))
        return value

    def condition(value: sympy.Basic, op: str) -> sympy.Basic:
        if not isinstance(value, sympy.logic.boolalg.Boolean):
            raise fail(f"`{op}` of conditions (comparisons, true or false)", str(value))
        return value

    def arity(op: str, args: list, allowed: tuple[int, ...]) -> None:
        if len(args) not in allowed:
            counts = f"{allowed[0]}" if len(allowed) == 1 else f"{allowed[0]} to {allowed[-1]}"
            raise fail(f"`{op}` with {counts} argument(s)", f"{len(args)} arguments")

    def build(node: Any, depth: int) -> sympy.Basic:
        count[0] += 1
        if count[0] > MAX_NODES:
            raise fail(f"an expression of at most {MAX_NODES} nodes", "more")
        if depth > MAX_DEPTH:
            raise fail(f"an expression nested at most {MAX_DEPTH} deep", "deeper")
        if node is True or node is False:
            return sympy.true if node else sympy.false
        if not isinstance(node, dict):
            raise fail("an expression node (an object)", node)
        keys = set(node)
        if keys == {"int"}:
            return sympy.Integer(text_int(node["int"]))
        if keys == {"rational"}:
            pair = node["rational"]
            if not (isinstance(pair, list) and len(pair) == 2):
                raise fail("a rational as [numerator, denominator]", pair)
            p, q_ = text_int(pair[0]), text_int(pair[1])
            if q_ == 0:
                raise fail("a rational with a non-zero denominator", pair)
            return sympy.Rational(p, q_)
        if keys == {"float", "precision"}:
            text, precision = node["float"], node["precision"]
            if not (isinstance(text, str) and len(text) <= MAX_DIGITS + 10
                    and re.fullmatch(r"-?[0-9]+(\.[0-9]*)?([eE][-+]?[0-9]{1,%d})?"
                                     % _FLOAT_EXPONENT_DIGITS, text)):
                raise fail("a float written as a decimal string", text)
            if not (isinstance(precision, int) and not isinstance(precision, bool) and 1 <= precision <= 4000):
                raise fail("a precision in bits between 1 and 4000", precision)
            return _check_size(sympy.Float(text, precision=precision), checked)
        if keys == {"constant"}:
            constants = {"oo": sympy.oo, "-oo": -sympy.oo, "pi": sympy.pi, "E": sympy.E}
            if not isinstance(node["constant"], str) or node["constant"] not in constants:
                raise fail("one of the constants oo, -oo, pi, E", node["constant"])
            return constants[node["constant"]]
        if keys == {"symbol", "assumptions"}:
            name, assumptions = node["symbol"], node["assumptions"]
            if not (isinstance(name, str) and _NAME.match(name) and not keyword.iskeyword(name)):
                raise fail("a symbol name of ASCII letters, digits and underscores", name)
            if not (isinstance(assumptions, list) and all(isinstance(a, str) and a in _ASSUMPTIONS
                                                          for a in assumptions)):
                raise fail(f"assumptions among {', '.join(_ASSUMPTIONS)}", assumptions)
            if name in VARIABLES:
                return VARIABLES[name]
            return sympy.Symbol(name, **{a: True for a in assumptions})
        if keys == {"op", "args"}:
            op, args = node["op"], node["args"]
            if not isinstance(op, str):
                raise fail("an operator name (a string)", op)
            if not isinstance(args, list) or not args or len(args) > 64:
                raise fail("a list of 1 to 64 arguments", args)
            if op == "Piecewise":
                pieces = []
                for pair in args:
                    if not (isinstance(pair, list) and len(pair) == 2):
                        raise fail("Piecewise arguments as [value, condition] pairs", pair)
                    pieces.append((expression(build(pair[0], depth + 1), op),
                                   condition(build(pair[1], depth + 1), op)))
                return sympy.Piecewise(*pieces, evaluate=False)
            if op == "Integral":
                arity(op, args, (4,))
                integrand, variable, lower, upper = (expression(build(a, depth + 1), op) for a in args)
                if not isinstance(variable, sympy.Symbol):
                    raise fail("an Integral over a symbol", str(variable))
                return sympy.Integral(integrand, (variable, lower, upper))
            if op in ("Add", "Mul"):
                built = [expression(build(a, depth + 1), op) for a in args]
                return _check_size((sympy.Add if op == "Add" else sympy.Mul)(*built), checked)
            if op == "Pow":
                arity(op, args, (2,))
                return _check_size(_power(*(expression(build(a, depth + 1), op) for a in args)), checked)
            if op in _TREE_FUNCTIONS:
                function, allowed = _TREE_FUNCTIONS[op]
                arity(op, args, allowed)
                built = [expression(build(a, depth + 1), op) for a in args]
                return function(*built, evaluate=False)
            if op in _TREE_RELATIONS:
                function, allowed = _TREE_RELATIONS[op]
                arity(op, args, allowed)
                check = condition if op in _LOGIC else expression
                built = [check(build(a, depth + 1), op) for a in args]
                return function(*built, evaluate=False)
            raise fail("a known operator (Add, Mul, Pow, Piecewise, Integral, "
                       + ", ".join(list(_TREE_FUNCTIONS) + list(_TREE_RELATIONS)) + ")", op)
        raise fail("an expression node (int, rational, float, constant, symbol or op)", sorted(map(str, keys)))

    try:
        return build(tree, 0)
    except _Refused as refused:
        raise fail(str(refused), "a larger value") from None
    except MaxEntError:
        raise
    except (RecursionError, MemoryError, OverflowError, ValueError, TypeError, ZeroDivisionError,
            AttributeError, IndexError, KeyError) as exc:
        # sympy's constructors complaining about their arguments: never code, refuse the tree
        raise fail("a well-formed expression", f"{type(exc).__name__} while building it") from None


#: functions numpy evaluates by itself; any other (erfc, gamma, ...) needs scipy.special
_NUMPY_FUNCTIONS = (sympy.exp, sympy.log, log1p, sympy.Abs, sympy.Min, sympy.Max, sympy.sign,
                    sympy.sin, sympy.cos, sympy.tan, sympy.sinh, sympy.cosh, sympy.tanh,
                    sympy.asin, sympy.acos, sympy.atan, sympy.floor, sympy.ceiling)


def syntax_tree(text: str) -> ast.Expression:
    """``ast.parse(text, mode="eval")``, quietly: Python warns while it parses some texts (an
    escape such as ``'\\l'`` in a string is a DeprecationWarning, printed to the person who typed
    it), and the text is only ever read as data here."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        warnings.simplefilter("ignore", SyntaxWarning)
        return ast.parse(text, mode="eval")


def numpy_modules(expr: sympy.Basic) -> list[Any]:
    """The modules a numpy ``lambdify`` of ``expr`` needs: scipy first where it has a special
    function (numpy alone prints ``gamma`` as ``math.gamma``, which refuses arrays), else numpy
    alone (scipy.special costs 0.4 s to import).

    They are given as modules, not names: for a name, sympy runs ``from numpy import *``
    once per process, which imports numpy's submodules that no scorer uses
    (``numpy.testing``, ``numpy.f2py``: 0.1 to 0.2 s of every command that builds one).
    The printer and the code it writes are the same."""
    special = any(isinstance(node, sympy.Function) and not isinstance(node, _NUMPY_FUNCTIONS)
                  for node in sympy.preorder_traversal(expr))
    if not special:
        return [np]
    import scipy
    import scipy.special

    # the scipy module makes sympy print for scipy; the names it prints bare (erfcinv, ...)
    # come from scipy.special's public names, ahead of numpy's, as its star import gives them
    return [{name: getattr(scipy.special, name) for name in scipy.special.__all__}, scipy, np]
