"""Compile a utility's expression into a fast vectorised scorer.

:func:`compile_scorer` turns a sympy expression in ``t`` (and ``q``) into a
numpy function; it sees expressions only, never a ``Utility``, so the
utility layer above builds on it.

Design notes
------------
*Scorers.* :func:`compile_scorer` turns a sympy utility into a vectorised numpy
function. sympy's own printing of ``Piecewise`` evaluates every branch on
every runtime and then selects, so a branch that is invalid where it is not
used (``(kappa0/t)**alpha`` at ``t = 0``) raises warnings and can leak NaN.
Here a costly branch (special functions, nested ``Piecewise``) is evaluated
only on the runtimes that take it; a cheap one (a few elementary functions)
is evaluated on the whole block with floating-point errors silenced and then
selected, as a hand-written ``np.where`` would, because gathering the
runtimes costs more than the branch. Either way no value of an unused branch
reaches the result. The selection copies bit patterns under an all-ones mask
(:func:`_select`) straight into the output block: ``np.where`` mispredicts a
branch per runtime when runtimes alternate between pieces, which made it the
dearest step of a cheap Piecewise. Runtimes are processed in blocks of
:data:`CHUNK_SIZE` so that the temporaries of a long expression stay in
cache; integer powers of the runtime print as products (``t**5`` as
``t*t*t*t*t``: numpy's ``power`` costs some 20 ns an element for any
exponent but 2). ``benchmarks/bench_scoring.py`` measures every family
against the best hand-written numpy formula; docs/performance.md has the
numbers.

*numba.* With numba installed (the ``[fast]`` extra), a call of at least
:data:`NUMBA_MIN_RUNTIMES` runtimes whose numpy code is plain arithmetic (``+ - * /``,
comparisons, squares, Piecewise: uniform, Pareto, log-Laplace and piecewise-linear
utilities) runs one numba loop over the runtimes instead: each runtime goes through the
printed operations in the printed order, its sub-expressions free of the runtime evaluated
by the numpy code itself, and the per-block checks ride in the same pass. Every operation is
correctly rounded, so the loop gives the numpy route's bits on any CPU, and it is checked
bit for bit against the numpy route before its first use. Functions (``exp``, ``erfc``)
stay on numpy: numba calls libm's scalar ``exp``, an ulp away from numpy's vector one and no
faster. The loop is compiled at the first large call (about 0.2 s, plus 0.5 s for numba's
import), so interactive commands on a few thousand runs never pay for it.

*Threads.* ``compile_scorer(u, threads=k)`` hands contiguous runs of whole
blocks to a pool of ``k`` threads; numpy and scipy.special release the GIL
while they compute, and every block is evaluated by the same code as on one
thread, so the result is the same to the bit. numexpr was the other
candidate: it lacks erf, erfc and the gamma functions the presets need and
rounds differently from numpy, so it could not promise identical results.

*Limits.* Numbers never raise inside a scorer. A runtime at or below 0 gets
:math:`u(0^+)` and ``inf`` gets :math:`\\lim_{t\\to\\infty} u(t)`, both
computed symbolically once (lazily, the first time such a runtime is seen:
by continuity where that decides, else by sympy's ``limit``) and evaluated
with the parameters of the call; floating-point breakdowns
(``0 * inf``, ``inf / inf``) at extreme but finite runtimes get the limit at
the nearer end of the support. A NaN runtime gives NaN.

*Numerics.* Before printing, a few rewrites remove catastrophic cancellation:
``c - c*erf(z)`` becomes ``c*erfc(z)`` (the log-normal utility in its upper
tail), ``log(1 + x)`` becomes ``log1p(x)``, ``exp(x) - 1`` ``expm1(x)`` and
``x**y - 1`` ``powm1(x, y)``.
"""

from __future__ import annotations

import ast
import copy
import inspect
import math
import operator
import os
import re
import threading
from concurrent.futures import ThreadPoolExecutor
import warnings
from functools import lru_cache
from importlib.util import find_spec
from keyword import iskeyword
from typing import Any, Callable, Protocol, Sequence, runtime_checkable

import numpy as np
import sympy
from sympy.codegen.cfunctions import log1p
from sympy.printing.numpy import SciPyPrinter

from ._reference import agree, check_points, log_space, mpmath_function, reference_values
from ._timing import Deadline, SymbolicTimeout, run_bounded, time_limit
from .errors import NoClosedFormError, UtilityError, argument_message, short
from .expressions import as_expression, numpy_modules
from .symbols import q, t
from sympy.codegen.cfunctions import expm1
from sympy.codegen.scipy_nodes import powm1

__all__ = ["BACKENDS", "CHUNK_SIZE", "NUMBA_MIN_RUNTIMES", "CompiledScorer", "Scorer", "compile_scorer"]

BACKENDS: tuple[str, ...] = ("numpy", "jax", "torch")
"""Array libraries a scorer can be generated for (``numpy`` is always installed)."""

CHUNK_SIZE = 1 << 15
"""Runtimes evaluated per block by a numpy scorer (keeps temporaries in cache)."""

NUMBA_MIN_RUNTIMES = 1 << 20
"""Runtimes in one call from which a scorer takes its numba loop (see :func:`compile_scorer`):
numba's import and first compile cost about 1.5 s, which a command scoring a few thousand
runs should not pay."""

#: a scorer on several threads gives each at least this many blocks (else one thread serves)
_MIN_BLOCKS_PER_THREAD = 4

_POOLS: dict[int, ThreadPoolExecutor] = {}

#: held while a scorer computes a limit at an end of the support (shared by its threads)
_LIMITS_LOCK = threading.RLock()


def _pool(workers: int) -> ThreadPoolExecutor:
    """A process-wide pool of ``workers`` threads, made on first use."""
    pool = _POOLS.get(workers)
    if pool is None:
        pool = _POOLS.setdefault(workers, ThreadPoolExecutor(workers, thread_name_prefix="scorer"))
    return pool


# ---------------------------------------------------------------------------
# expressions: normalisation and numerically stable rewrites


def utility_expression(utility: Any, owner: str) -> sympy.Expr:
    """The sympy expression of a Utility (or of a bare expression)."""
    expr = getattr(utility, "expr", utility)
    expr = as_expression(expr, arg="utility", owner=owner, allow_infinity=True, error=UtilityError)
    if not isinstance(expr, sympy.Expr):
        raise UtilityError(argument_message(
            "utility", owner, "a Utility or a sympy expression in t", utility))
    # A user's Symbol("t") without assumptions means the library's runtime t.
    renames = {s: {"t": t, "q": q}[s.name] for s in expr.free_symbols
               if s.name in ("t", "q") and s not in (t, q)}
    if renames:
        expr = expr.xreplace(renames)
    return expr


def parameters_of(expr: sympy.Expr, owner: str) -> tuple[sympy.Symbol, ...]:
    """Free symbols other than t and q, sorted by name (as Utility.parameters)."""
    free = sorted(expr.free_symbols - {t, q}, key=lambda s: s.name)
    names = [s.name for s in free]
    for name in names:
        if names.count(name) > 1:
            raise UtilityError(argument_message(
                "utility", owner, "free of two different symbols with the same name",
                name, "Use one symbol per parameter name."))
    return tuple(free)


def complement_erf(expr: sympy.Expr) -> sympy.Expr:
    """Rewrite ``c - c*erf(z)`` as ``c*erfc(z)`` and ``c + c*erf(z)`` as ``c*erfc(-z)``.

    The left-hand forms lose all relative accuracy once ``erf(z)`` rounds to
    +-1 (the tail of a log-normal utility), in doubles and at any fixed number
    of digits alike; the right-hand ones do not.

    Parameters
    ----------
    expr : sympy.Expr
        Any expression; sums without such a pair are left as they are.

    Returns
    -------
    sympy.Expr
        The same function, written with ``erfc`` where it cancels.

    Examples
    --------
    >>> from maxent_util import t
    >>> complement_erf(1 - sympy.erf(3*t - 1))
    erfc(3*t - 1)
    """
    def rewrite(node: sympy.Basic) -> sympy.Basic:
        if not isinstance(node, sympy.Add):
            return node
        terms = list(node.args)
        for i, term in enumerate(terms):
            erfs = [f for f in sympy.Mul.make_args(term) if isinstance(f, sympy.erf)]
            if len(erfs) != 1:
                continue
            erf_factor = erfs[0]
            coefficient = term / erf_factor
            rest = sympy.Add(*(terms[:i] + terms[i + 1:]))
            if sympy.expand(rest + coefficient) == 0:
                return -coefficient * sympy.erfc(erf_factor.args[0])
            if sympy.expand(rest - coefficient) == 0:
                # unevaluated, or sympy turns erfc(-z) back into 2 - erfc(z)
                return coefficient * sympy.erfc(-erf_factor.args[0], evaluate=False)
        return node

    if not expr.has(sympy.erf):
        return expr
    return expr.replace(lambda node: isinstance(node, sympy.Add), rewrite)


def rewrite_log1p(expr: sympy.Expr) -> sympy.Expr:
    """``log(1 + x)`` as ``log1p(x)``: exact for tiny ``x`` where the sum rounds to 1."""
    def rewrite(node: sympy.Basic) -> sympy.Basic:
        argument = node.args[0]
        if isinstance(argument, sympy.Add) and sympy.S.One in argument.args:
            return log1p(argument - 1)
        return node

    return expr.replace(lambda node: isinstance(node, sympy.log), rewrite)


def _cancel_minus_one(add: sympy.Add, func: Any, func_m_1: Any) -> sympy.Expr:
    """``c*f(x) - c`` as ``c*f_m_1(x)`` for any coefficient ``c`` (a number or a parameter).

    sympy's own optimisation finds symbolic coefficients by calling
    ``factor()`` on the whole utility, which can run for minutes on powers of
    rational parameters (``10**(747/1000)*107**(751/1000)``) and builds
    numbers far larger than those it started with; this looks for the
    matching ``-c`` among the terms instead, in time quadratic in their number.
    """
    terms = list(add.args)
    changed = True
    while changed:
        changed = False
        for i, term in enumerate(terms):
            factors = sympy.Mul.make_args(term)
            for k, factor in enumerate(factors):
                if factor.func != func or not factor.free_symbols:
                    continue
                if func is sympy.Pow and (factor.exp.is_Integer or factor.exp.is_number and factor.exp < 0):
                    continue  # t**2 - 1 gains nothing; a negative power is a division
                coefficient = sympy.Mul(*(factors[:k] + factors[k + 1:]))
                partner = next((j for j, other in enumerate(terms) if j != i and other == -coefficient), None)
                if partner is None:
                    continue
                replacement = coefficient * func_m_1(*factor.args)
                terms = [other for j, other in enumerate(terms) if j not in (i, partner)] + [replacement]
                changed = True
                break
            if changed:
                break
    return sympy.Add(*terms)


def _minus_one(expr: sympy.Expr) -> sympy.Expr:
    """``exp(x) - 1`` as ``expm1(x)`` and ``x**y - 1`` as ``powm1(x, y)``, without ``factor()``."""
    # sympy.codegen.rewriting loads sympy's tensor and combinatorics modules (0.15 s): only
    # when a scorer is compiled, not with every import of the library
    from sympy.codegen.rewriting import expm1_opt, powm1_opt

    for func, func_m_1, optim in ((sympy.exp, expm1, expm1_opt), (sympy.Pow, powm1, powm1_opt)):
        if not expr.has(func):
            continue
        # exact pairs first, then sympy's numeric-coefficient pass (its cheap half, no factor())
        expr = expr.replace(lambda node: node.is_Add,
                            lambda node, f=func, g=func_m_1, o=optim: _numeric_minus_one(
                                _cancel_minus_one(node, f, g), f, o))
    return expr


def _numeric_minus_one(add: sympy.Expr, func: Any, optim: Any) -> sympy.Expr:
    """sympy's numeric-coefficient pass, not for integer powers: ``1 - t**2/1152`` would become
    ``1151/1152 - powm1(t, 2)/1152``, a call to scipy's powm1 (four times slower than ``t*t``)
    that gains nothing, as ``t**2`` itself is exact."""
    if not add.is_Add:
        return add
    if func is sympy.Pow and not any(
            node.is_Pow and node.free_symbols and not node.exp.is_Integer
            for node in sympy.preorder_traversal(add)):
        return add
    return optim.replace_in_Add(add)


#: digits kept by a constant folded into a Float (above double precision)
_CONSTANT_DIGITS = 25


def fold_float_constants(expr: sympy.Basic) -> sympy.Basic:
    """Fold each constant sub-expression that is not a small rational into one Float.

    sympy evaluates ``Rational(49, 250)**Rational(209, 1000)`` into a
    600-digit integer to the power 1/1000, which numpy cannot turn into a
    float (OverflowError); its value, about 0.71, is an ordinary double.
    The whole constant is evaluated by mpmath at :data:`_CONSTANT_DIGITS`
    digits and rounded once, so no number grows and no digit is lost
    beyond the final rounding.
    """
    def small(number: sympy.Rational) -> bool:
        return abs(number.p) < 2 ** 53 and number.q < 2 ** 53

    def fold(node: sympy.Basic) -> sympy.Basic:
        if isinstance(node, sympy.Rational):
            return node if small(node) else sympy.Float(node, _CONSTANT_DIGITS)
        if node.is_Atom or not node.args:
            return node
        if isinstance(node, sympy.Expr) and node.is_number and not node.has(
                sympy.I, sympy.oo, -sympy.oo, sympy.zoo, sympy.nan):
            value = node.evalf(_CONSTANT_DIGITS)
            if isinstance(value, sympy.Float):
                return value
        return node.func(*(fold(arg) for arg in node.args))

    return fold(expr)


def _stable(expr: sympy.Expr, deadline: Deadline | None = None) -> sympy.Expr:
    """The numerically stable rewrites, bounded by ``deadline`` (else left out)."""
    expr = fold_float_constants(expr)
    try:
        with time_limit(deadline):
            rewritten = _minus_one(rewrite_log1p(expr))
            # last: later rewrites would re-evaluate erfc(-z)
            return complement_erf(rewritten)
    except SymbolicTimeout:
        return expr


# ---------------------------------------------------------------------------
# numpy code generation with branch-masked Piecewise


class _ScorerPrinter(SciPyPrinter):
    """numpy/scipy printer that keeps parameter-only factors out of array work.

    ``(1/2)*sqrt(2)*log(t/kappa0)/sigma`` printed left to right costs three
    passes over the runtimes; grouping the factors free of the runtime into
    one scalar costs one.
    """

    def __init__(self, runtime_symbols: frozenset[sympy.Symbol]) -> None:
        super().__init__({"fully_qualified_modules": False, "inline": True,
                          "allow_unknown_functions": False, "user_functions": {}})
        self._runtime_symbols = runtime_symbols

    def _print_Pow(self, expr: sympy.Pow, rational: bool = False) -> str:
        # numpy's power costs ~20 ns an element for any integer exponent but 2, a product of
        # the runtime with itself under 1 ns (error at most (n-1)/2 ulp more than pow's)
        exponent = expr.exp
        if (exponent.is_Integer and 3 <= abs(int(exponent)) <= _MAX_PRODUCT_POWER
                and expr.base.is_Symbol):
            product = "*".join([self._print(expr.base)] * abs(int(exponent)))
            return f"({product})" if exponent > 0 else f"(1.0/({product}))"
        if exponent.is_Integer and exponent == -2 and expr.base.is_Symbol:
            base = self._print(expr.base)
            return f"(1.0/({base}*{base}))"
        return super()._print_Pow(expr, rational=rational)

    def _print_Mul(self, expr: sympy.Mul) -> str:
        scalar, numerator, denominator = [], [], []
        for factor in expr.args:
            if not factor.free_symbols & self._runtime_symbols:
                scalar.append(factor)
            elif factor.is_Pow and factor.exp.is_number and factor.exp.is_negative:
                denominator.append(factor.base ** -factor.exp)
            else:
                numerator.append(factor)
        if not scalar or not (numerator or denominator) or scalar == [sympy.S.NegativeOne]:
            return super()._print_Mul(expr)
        text = f"({self._print(sympy.Mul(*scalar))})"
        if numerator:
            text += f"*({self._print(sympy.Mul(*numerator))})"
        if denominator:
            text += f"/({self._print(sympy.Mul(*denominator))})"
        return text


#: integer powers of a runtime up to this exponent are printed as products
_MAX_PRODUCT_POWER = 8

def _lambdify(args: Sequence[sympy.Symbol], expr: sympy.Basic,
              runtime_symbols: frozenset[sympy.Symbol]) -> Callable[..., Any]:
    return sympy.lambdify(args, expr, modules=numpy_modules(expr),
                          printer=_ScorerPrinter(runtime_symbols), dummify=False)


# Functions cheap enough to evaluate on a whole block and then select from,
# as a hand-written np.where would; anything else is evaluated only where its
# condition holds.
_ELEMENTARY = (sympy.exp, sympy.log, log1p, sympy.Abs, sympy.Min, sympy.Max, sympy.sign)
_MAX_CHEAP_CALLS = 2


def _is_cheap(expr: sympy.Basic) -> bool:
    calls = 0
    for node in sympy.preorder_traversal(expr):
        if isinstance(node, sympy.Piecewise):
            return False
        if isinstance(node, sympy.Function):
            if not isinstance(node, _ELEMENTARY):
                return False
            calls += 1
        elif isinstance(node, sympy.Pow) and not node.exp.is_Integer:
            calls += 1
    return calls <= _MAX_CHEAP_CALLS


def _select(holds: np.ndarray, value: Any, out: np.ndarray, bits: np.ndarray) -> None:
    """``out = np.where(holds, value, out)``, exactly, without branches.

    numpy's ``where`` mispredicts a branch per element when the runtimes
    alternate between pieces (7 ns an element); selecting bit patterns with an
    all-ones mask, ``out ^ ((value ^ out) & mask)``, costs four passes of
    under half a nanosecond each and copies every bit of the chosen value
    (NaN payloads and signed zeros included).
    """
    _mask(holds, bits)
    out_bits = out.view(np.int64)
    bits &= _bits(value) ^ out_bits
    out_bits ^= bits


def _mask(holds: np.ndarray, bits: np.ndarray) -> None:
    """``bits`` = all 64 bits set where ``holds``, else 0: True (1) negated as int8 is -1,
    widened in one pass (not a copy and then a negation)."""
    np.negative(holds.view(np.int8), out=bits, casting="unsafe")


def _bits(value: Any) -> Any:
    """The bit pattern of ``value`` (an array or a number) as float64, viewed as int64."""
    if isinstance(value, np.ndarray):
        return value.view(np.int64) if value.dtype == np.float64 else \
            np.asarray(value, dtype=np.float64).view(np.int64)
    return np.float64(value).view(np.int64)


def _select_over(holds: np.ndarray, value: Any, other: Any, out: np.ndarray,
                 bits: np.ndarray) -> None:
    """``out = np.where(holds, value, other)`` (``other`` a number or an array), exactly as
    writing ``other`` into ``out`` and then :func:`_select` would, with a pass and a
    temporary fewer: written as ``other ^ ((value ^ other) & mask)``."""
    _mask(holds, bits)
    out_bits = out.view(np.int64)
    fill = _bits(other)
    if not isinstance(fill, np.ndarray) and fill == 0:
        # a last piece of +0.0 (a law's end, a utility worth nothing): x ^ 0 is x, so the
        # selection is value & mask, one pass instead of three
        np.bitwise_and(_bits(value), bits, out=out_bits)
        return
    np.bitwise_xor(_bits(value), fill, out=out_bits)
    out_bits &= bits
    out_bits ^= fill


class _PiecewiseNode:
    """Evaluates a Piecewise without letting an unused branch leak NaN or warnings.

    Cheap branches are evaluated on the whole block (floating-point errors
    silenced by the caller) and selected with :func:`_select`; costly ones
    (special functions, nested Piecewise) only on the elements that take
    them. Earlier pieces win, as in sympy. :meth:`into` writes into the
    scorer's output block, so a piece costs no array beyond its own value.
    """

    def __init__(self, pieces: list[tuple[Callable[..., Any] | None, Callable[..., Any], bool]]
                 ) -> None:
        self.pieces = pieces
        self.covers_all = pieces[-1][0] is None

    def __call__(self, *values: Any) -> np.ndarray:
        out = np.empty(values[0].shape[0])
        self.into(out, *values)
        return out

    def into(self, out: np.ndarray, *values: Any) -> None:
        """Evaluate on the flat block ``values[0]`` into ``out`` (of the same length)."""
        n = out.shape[0]
        holds = [None if condition is None else condition(*values)
                 for condition, _, _ in self.pieces]
        holds = [h if h is None or (isinstance(h, np.ndarray) and h.shape == (n,))
                 else np.broadcast_to(np.asarray(h, dtype=bool), (n,)) for h in holds]
        bits = np.empty(n, np.int64)
        last = len(self.pieces) - 1
        pending = None  # what a last piece gives everywhere, not yet written to out
        for i in range(last, -1, -1):
            _, branch, cheap = self.pieces[i]
            if cheap:
                value = branch(*values)
                if i == last:
                    if holds[i] is None and i > 0 and self.pieces[i - 1][2]:
                        pending = value  # selected against in the next (cheap) piece's pass
                        continue
                    out[...] = value if holds[i] is None else np.nan
                    if holds[i] is None:
                        continue
                if pending is not None:
                    _select_over(holds[i], value, pending, out, bits)
                    pending = None
                    continue
                _select(holds[i], value, out, bits)
                continue
            takes = np.ones(n, bool) if holds[i] is None else holds[i].copy()
            for earlier in holds[:i]:
                takes &= ~earlier
            if i == last and holds[i] is not None:
                out.fill(np.nan)
            index = np.flatnonzero(takes)
            if index.size == n:
                out[...] = branch(*values)
            elif index.size:
                out[index] = branch(*[v.take(index) if isinstance(v, np.ndarray) else v
                                      for v in values])


#: seconds allowed for the stable rewrites of one scorer (they are skipped after that)
_REWRITE_SECONDS = 5.0


def _compile(expr: sympy.Basic, args: Sequence[sympy.Symbol],
             runtime_symbols: frozenset[sympy.Symbol],
             deadline: Deadline | None = None, in_log_space: bool = False) -> Callable[..., Any]:
    """A numpy function of ``*args`` (flat arrays or floats) evaluating ``expr``.

    The rewrites of all branches share ``deadline`` (default: :data:`_REWRITE_SECONDS`);
    ``in_log_space`` writes products of powers as exponentials of sums of logs
    (:func:`~maxent_util._reference.log_space`), the second route of a scorer whose check failed.
    """
    if deadline is None:
        deadline = Deadline(_REWRITE_SECONDS)
    expr = sympy.piecewise_fold(expr)
    if isinstance(expr, sympy.Piecewise):
        pieces = []
        for branch, condition in expr.args:
            if condition == sympy.false:
                continue
            compiled = (_compile(branch, args, runtime_symbols, deadline, in_log_space),
                        _is_cheap(branch))
            if condition == sympy.true:
                pieces.append((None, *compiled))
                break
            pieces.append((_lambdify(args, fold_float_constants(condition), runtime_symbols), *compiled))
        if not pieces:
            return lambda *values: np.full(values[0].shape[0], np.nan)
        return _PiecewiseNode(pieces)
    stable = _stable(expr, deadline)
    if in_log_space:
        stable = log_space(stable, args[0])
    outer = _outer_ufunc(stable, runtime_symbols)
    if outer is not None:
        return _OuterUfunc(outer, _lambdify(args, stable.args[0], runtime_symbols))
    return _lambdify(args, stable, runtime_symbols)


def _outer_ufunc(expr: sympy.Basic, runtime_symbols: frozenset[sympy.Symbol]) -> np.ufunc | None:
    """The numpy or scipy ufunc that the printed code of ``expr`` calls last, when ``expr`` is
    one function of one argument that involves the runtime (``exp(-t/24)``, ``erfc(...)``);
    else None. Looked up where the printed code would find it: the same function."""
    if not (isinstance(expr, sympy.Function) and len(expr.args) == 1
            and expr.args[0].free_symbols & runtime_symbols):
        return None
    stand_in = sympy.Symbol("_y")
    try:
        probe = sympy.lambdify([stand_in], expr.func(stand_in), modules=numpy_modules(expr),
                               printer=_ScorerPrinter(runtime_symbols), dummify=False)
    except Exception:  # sympy printers raise a zoo of types: print the whole instead
        return None
    name, _, rest = _ScorerPrinter(runtime_symbols).doprint(expr.func(stand_in)).partition("(")
    function = probe.__globals__.get(name) if rest == "_y)" else None
    return function if isinstance(function, np.ufunc) and function.nin == function.nout == 1 \
        else None


class _OuterUfunc:
    """``f(g(t))`` for a ufunc ``f``: ``g`` is evaluated into a temporary, ``f`` straight into
    the scorer's output block (``out=``), which saves a copy of every block. The ufunc is the
    one the printer names, applied to the same printed argument: the same numbers."""

    def __init__(self, ufunc: np.ufunc, inner: Callable[..., Any]) -> None:
        self.ufunc, self.inner = ufunc, inner

    def __call__(self, *values: Any) -> np.ndarray:
        out = np.empty(np.shape(values[0])[0])
        self.into(out, *values)
        return out

    def into(self, out: np.ndarray, *values: Any) -> None:
        """Evaluate on the flat block ``values[0]`` into ``out`` (of the same length)."""
        self.ufunc(self.inner(*values), out=out)


# ---------------------------------------------------------------------------
# the numba route: the numpy route's printed code, one runtime at a time


class _NotPlain(Exception):
    """The numpy route's code holds something the numba loop does not translate."""


#: the comparisons the printer writes for a Piecewise condition, as Python's operators
_COMPARISONS = {np.less: "<", np.less_equal: "<=", np.greater: ">", np.greater_equal: ">="}
_OPERATORS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/"}
#: what a sub-expression free of the runtime may hold (evaluated by Python and numpy, as in
#: the numpy route): numbers, parameters, arithmetic and numpy's ufuncs of them
_HOISTABLE = (ast.Constant, ast.Name, ast.BinOp, ast.UnaryOp, ast.Call, ast.Load, ast.operator,
              ast.unaryop)


class _KernelText:
    """The numpy route's code of a scorer written for one runtime ``x`` at a time.

    Sub-expressions free of the runtime are left to Python and numpy: :meth:`constants`
    evaluates them once a call by the numpy route's own printed code (``-1/24``, functions of
    the parameters: the same bits). What involves the runtime is written with ``+ - * /``,
    comparisons and ``x**2`` as ``x*x`` (numpy's square) only: each is one correctly rounded
    IEEE operation, so one runtime at a time gives the numpy route's bits on any CPU, in the
    printed order. ``exp`` and the other functions are not: numba calls libm's scalar
    functions, which differ from numpy's vector ones by an ulp; anything but the listed
    operations raises :class:`_NotPlain`. The text is made of ``x``, ``c0``, ``c1``, ...,
    ``_nan``, operators and parentheses only, never of text from the expression.
    """

    def __init__(self, args: Sequence[sympy.Symbol]) -> None:
        self.runtime = args[0].name
        self.parameters = tuple(a.name for a in args[1:])
        self.hoisted: list[Callable[..., Any]] = []

    def root(self, root: Any) -> str:
        if isinstance(root, _PiecewiseNode):
            text = "_nan"  # no piece holds: NaN, as the numpy route writes
            for condition, branch, _ in reversed(root.pieces):
                value = self.root(branch)
                text = value if condition is None else \
                    f"({value} if {self.function(condition)} else {text})"
            return text
        return self.function(root)  # an _OuterUfunc (exp, erfc, ...) is not printed code

    def function(self, function: Any) -> str:
        if getattr(function, "__name__", "") != "_lambdifygenerated":
            raise _NotPlain("a function that is not arithmetic")
        try:
            tree = ast.parse(inspect.getsource(function))
        except (OSError, TypeError, SyntaxError):
            raise _NotPlain("no source") from None
        definition = tree.body[0] if len(tree.body) == 1 else None
        if not (isinstance(definition, ast.FunctionDef) and len(definition.body) == 1
                and isinstance(definition.body[0], ast.Return)
                and [a.arg for a in definition.args.args] == [self.runtime, *self.parameters]):
            raise _NotPlain("unexpected source")
        return self.node(definition.body[0].value, function.__globals__)

    def node(self, node: ast.expr, names: dict[str, Any]) -> str:
        if not any(isinstance(n, ast.Name) and n.id == self.runtime for n in ast.walk(node)):
            return self.hoist(node, names)
        if isinstance(node, ast.Name):
            return "x"
        if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
            return (f"({self.node(node.left, names)} {_OPERATORS[type(node.op)]} "
                    f"{self.node(node.right, names)})")
        if (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow)
                and isinstance(node.right, ast.Constant) and type(node.right.value) is int
                and node.right.value == 2):
            base = self.node(node.left, names)  # numpy's array ** 2 is np.square
            return f"({base} * {base})"
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return f"(-{self.node(node.operand, names)})"
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords
                and len(node.args) == 2 and names.get(node.func.id) in _COMPARISONS):
            return (f"({self.node(node.args[0], names)} {_COMPARISONS[names[node.func.id]]} "
                    f"{self.node(node.args[1], names)})")
        raise _NotPlain(f"{type(node).__name__} of the runtime")

    def hoist(self, node: ast.expr, names: dict[str, Any]) -> str:
        for part in ast.walk(node):
            if not isinstance(part, _HOISTABLE) \
                    or (isinstance(part, ast.Constant) and type(part.value) not in (int, float)) \
                    or (isinstance(part, ast.Name) and part.id not in self.parameters
                        and not isinstance(names.get(part.id), np.ufunc)) \
                    or (isinstance(part, ast.Call) and (part.keywords or not isinstance(part.func, ast.Name))):
                raise _NotPlain(f"{type(part).__name__} in a constant")
        parameters = self.parameters

        def value(*params: Any) -> Any:
            # the numpy route's own printed code, walked: the same operations on the same numbers
            return _constant_value(node, names, dict(zip(parameters, params)))
        self.hoisted.append(value)
        return f"c{len(self.hoisted) - 1}"

    def constants(self, params: Sequence[Any]) -> list[float]:
        """The hoisted sub-expressions' values at ``params`` (numbers): floats, as numpy
        turns them into float64 against an array; a value that is no number raises."""
        values = []
        for function in self.hoisted:
            value = function(*params)
            if isinstance(value, (bool, np.bool_)) or not isinstance(
                    value, (int, float, np.floating, np.integer)):
                raise _NotPlain("a constant that is not a number")
            try:
                values.append(float(value))
            except OverflowError:
                raise _NotPlain("an integer beyond a double") from None
        return values


_BINARY = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
           ast.Pow: operator.pow, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod}
_UNARY = {ast.USub: operator.neg, ast.UAdd: operator.pos}


def _constant_value(node: ast.expr, names: dict[str, Any], params: dict[str, Any]) -> Any:
    """A sub-expression of the numpy route's printed code free of the runtime (numbers,
    parameters, arithmetic and numpy's ufuncs: :meth:`_KernelText.hoist` checked it), evaluated
    with Python's operators and the ufuncs, as the printed code evaluates it."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        return params[node.id] if node.id in params else names[node.id]
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        return _BINARY[type(node.op)](_constant_value(node.left, names, params),
                                      _constant_value(node.right, names, params))
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        return _UNARY[type(node.op)](_constant_value(node.operand, names, params))
    if isinstance(node, ast.Call):
        return names[node.func.id](*(_constant_value(a, names, params) for a in node.args))
    raise _NotPlain(f"{type(node).__name__} in a constant")


#: the only words and signs a loop's formula is written with (see _KernelText): checked before
#: the loop's source is compiled, so that nothing else can reach it
_KERNEL_FORMULA = re.compile(r"(?:[ ()+\-*/]|<=|>=|<|>|\bx\b|\bc\d+\b|\b_nan\b|\bif\b|\belse\b)*")

_KERNEL_TEMPLATE = """
def kernel(t, out{constants}):
    low = 0
    infinite = 0
    broken = 0
    for i in range(t.shape[0]):
        x = t[i]
        v = {value}
        out[i] = v
        low |= not x > 0.0
        infinite |= x == _inf
        broken |= v != v
    return low == 0, infinite != 0, broken != 0
"""


class _NumbaRoute:
    """A scorer's numba loop, made at its first call with :data:`NUMBA_MIN_RUNTIMES` runtimes:
    shared by its copies on other threads. ``kernel(t, out, *constants)`` writes the formula
    (before the scorer's repairs) and says whether every runtime is positive, whether one is
    infinite and whether a value is NaN: the numpy route's per-block checks, in the same pass."""

    def __init__(self) -> None:
        self.kernel: Any = None
        self.text: _KernelText | None = None
        #: why the numpy route stays (numba missing, a function numba would round differently,
        #: a value that differed from the numpy route's); None while the loop may be used
        self.refused: str | None = None
        self.checked: set[tuple[float, ...]] = set()
        self.used = False

    def build(self, root: Any, args: Sequence[sympy.Symbol]) -> None:
        text = _KernelText(args)
        try:
            value = text.root(root)
        except _NotPlain as reason:
            self.refused = f"not arithmetic ({reason})"
            return
        try:
            import numba
        except Exception:  # not installed, or not for this numpy: the numpy route serves
            self.refused = "numba not installed"
            return
        constants = "".join(f", c{i}" for i in range(len(text.hoisted)))
        source = _KERNEL_TEMPLATE.format(constants=constants, value=value)
        kernel = _KERNELS.get(source)
        if kernel is None:
            if not _KERNEL_FORMULA.fullmatch(value):
                self.refused = "not arithmetic (a word the loop is not written with)"
                return
            namespace: dict[str, Any] = {"_nan": math.nan, "_inf": math.inf}
            try:
                # the one place the library runs code it wrote: the template and a formula of
                # x, c0, c1, ..., _nan, operators and parentheses (checked just above)
                exec(compile(source, "<scorer numba loop>", "exec"), namespace)  # noqa: S102 (checked)
                signature = numba.types.Tuple((numba.boolean,) * 3)(
                    numba.float64[::1], numba.float64[::1], *[numba.float64] * len(text.hoisted))
                # numpy's error model: a division by zero gives inf, as in the numpy route; no
                # fastmath, so no operation is reordered or fused
                kernel = _KERNELS[source] = numba.njit(
                    signature, error_model="numpy", nogil=True, cache=False)(namespace["kernel"])
            except Exception as error:  # a loop numba cannot compile: the numpy route serves
                self.refused = f"numba could not compile the loop ({type(error).__name__})"
                return
        self.kernel, self.text = kernel, text


#: held while a scorer's numba loop is compiled or checked
_NUMBA_LOCK = threading.Lock()

#: numba loops by their source: utilities of one shape with other numbers share one (the
#: numbers are the loop's arguments), compiled once a process
_KERNELS: dict[str, Any] = {}


# ---------------------------------------------------------------------------
# limits at the ends of the support


_LIMIT_SECONDS = 5.0


def limit_at_end(expr: sympy.Expr, point: sympy.Expr) -> sympy.Expr | None:
    """``lim u(t)`` as ``t -> 0+`` (point 0) or ``t -> oo``; None if sympy cannot say.

    A Piecewise is taken branch by branch, its conditions decided at the point
    (or left for the parameters' values to decide).
    """
    expr = sympy.piecewise_fold(expr)
    if isinstance(expr, sympy.Piecewise):
        pieces = []
        for branch, condition in expr.args:
            try:
                at_point = (condition.subs(t, point) if t in condition.free_symbols
                            else condition)
            except TypeError:  # e.g. log(t) < 1 at t = 0: comparison with zoo
                return None
            if at_point == sympy.false:
                continue
            value = limit_at_end(branch, point)
            if value is None:
                return None
            pieces.append((value, at_point))
            if at_point == sympy.true:
                break
        return sympy.Piecewise(*pieces) if pieces else sympy.nan
    if t not in expr.free_symbols:
        return expr
    value = limit_by_continuity(expr, point)
    if value is not None:
        return value
    if point == 0:
        value = expr.subs(t, 0)
        if not _undetermined(value):
            return value
    try:
        # sympy's limit can recurse without end or run long on symbolic powers: bounded on
        # any thread (a worker process off the main thread)
        value = run_bounded(sympy.limit, expr, t, point, "+" if point == 0 else "-",
                            deadline=Deadline(_LIMIT_SECONDS))
    except (NotImplementedError, ValueError, TypeError, AttributeError, RecursionError, SymbolicTimeout):
        return None
    return None if _undetermined(value) else value


#: functions continuous wherever they are finite, with limits at +-oo that sympy evaluates
#: (erf(oo) = 1, atan(-oo) = -pi/2, exp(-oo) = 0, log(oo) = oo)
_CONTINUOUS = (sympy.exp, sympy.log, sympy.erf, sympy.erfc, sympy.atan, sympy.tanh)


def limit_by_continuity(expr: sympy.Expr, point: sympy.Expr) -> sympy.Expr | None:
    """``lim expr`` as ``t -> point`` (t > 0 near it) from the limits of its parts, or None.

    Each step is continuity: a sum, product or power of the parts' limits, Min, Max or Abs
    of them, or one of ``_CONTINUOUS`` at its argument's limit (also at +-oo, and log or a
    negative power at 0 from above).  Where a step is indeterminate (0 * oo, oo - oo, 0**0,
    1**oo, a sign that is not known) or the function is another one, the answer is None and
    sympy's limit decides.  No series is taken, so sympy's wrong limits of erf at infinity
    (lim 1 - erf(3 t - 1) = 2 under gruntz in sympy 1.14) never come in where continuity
    gives the answer, and lim erf(log(t)/s) costs a walk of the tree instead of gruntz.
    """
    if isinstance(point, int):
        point = sympy.Integer(point)
    runtime = sympy.Dummy("t", positive=True)

    def positive_near(part: sympy.Expr) -> bool:
        return part.xreplace({t: runtime}).is_positive is True

    def settled(value: sympy.Expr) -> sympy.Expr | None:
        # a limit is a finite expression or exactly +-oo: oo*x (x of unknown sign), nan, zoo,
        # complex values and AccumBounds are not decided here
        if value in (sympy.oo, -sympy.oo):
            return value
        if value.has(sympy.oo, -sympy.oo, sympy.nan, sympy.zoo, sympy.I, sympy.AccumBounds):
            return None
        return value

    def limit_of(part: sympy.Expr) -> sympy.Expr | None:
        if t not in part.free_symbols:
            return part
        if part == t:
            return point
        if part.is_Add or part.is_Mul or isinstance(part, (sympy.Min, sympy.Max, sympy.Abs)):
            limits = []
            for argument in part.args:
                value = limit_of(argument)
                if value is None:
                    return None
                limits.append(value)
            return settled(part.func(*limits))
        if part.is_Pow:
            base, exponent = limit_of(part.base), limit_of(part.exp)
            if base is None or exponent is None:
                return None
            if exponent.is_finite and base.is_finite and base.is_positive:
                return settled(sympy.Pow(base, exponent))  # continuous
            if exponent.is_finite and (exponent.is_positive or exponent.is_negative):
                if base == 0 and (exponent.is_positive or positive_near(part.base)):
                    return sympy.S.Zero if exponent.is_positive else sympy.oo
                if base == sympy.oo:
                    return sympy.oo if exponent.is_positive else sympy.S.Zero
                return None
            if exponent in (sympy.oo, -sympy.oo) and base.is_finite and base.is_positive \
                    and (base - 1).is_nonzero:
                return settled(sympy.Pow(base, exponent))
            return None
        if isinstance(part, _CONTINUOUS) and len(part.args) == 1:
            argument = limit_of(part.args[0])
            if argument is None:
                return None
            if isinstance(part, sympy.log):
                if argument == 0 and positive_near(part.args[0]):
                    return -sympy.oo
                if not (argument == sympy.oo or (argument.is_finite and argument.is_positive)):
                    return None
            return settled(part.func(argument))
        return None

    value = limit_of(expr)
    return None if value is None or _undetermined(value) else value


def _undetermined(value: sympy.Basic) -> bool:
    return (value.has(sympy.Limit, sympy.AccumBounds, sympy.nan, sympy.zoo, sympy.oo,
                      -sympy.oo) or value.is_finite is False)


# ---------------------------------------------------------------------------
# scorers


def _owner_label(expr: sympy.Expr) -> str:
    try:
        text = str(expr)
    except ValueError:  # an integer past Python's limit on integers as text
        return "scorer of an expression holding an integer too long to print"
    return f"scorer of {text if len(text) <= 60 else text[:57] + '...'}"


@runtime_checkable
class CompiledScorer(Protocol):
    """What :func:`compile_scorer` returns, whatever the backend.

    A :class:`Scorer` for ``backend="numpy"``; for ``"jax"`` and ``"torch"``
    a ``sympy.lambdify`` function of that module with the same attributes and
    the same way of passing parameters (their branches are not masked and
    the ends of the support are not special-cased; it returns that module's
    arrays). ``isinstance(f, CompiledScorer)`` holds for both.

    Attributes
    ----------
    expr : sympy.Expr
        The utility.
    parameters : tuple of str
        Names of the parameters, in positional order.
    backend : str
        ``"numpy"``, ``"jax"`` or ``"torch"``.
    """

    expr: sympy.Expr
    parameters: tuple[str, ...]
    backend: str

    def __call__(self, t: Any, *args: Any, **kwargs: Any) -> Any:
        """The utility at runtimes ``t``; parameters by position or by name.

        Parameters
        ----------
        t : float or array_like of float
            The runtimes (a tensor or array of the backend for jax and torch).
        *args : float or array_like of float
            Values of the parameters, in the order of :attr:`parameters`.
        **kwargs : float or array_like of float
            Values of the parameters by name.

        Returns
        -------
        Any
            The utilities: a float or numpy array for numpy, the backend's
            array type for jax and torch.

        Raises
        ------
        UtilityError
            For too many positional values, or an unknown, repeated or missing parameter.
        """
        ...


class Scorer:
    """A vectorised numpy function ``u(t, **parameters)`` made by :func:`compile_scorer`.

    Call it as ``scorer(t, *parameters, **parameters)``: positional
    parameters follow :attr:`parameters`; keywords use the symbols' names.
    A scalar ``t`` (with scalar parameters) gives a float, an array gives an
    array of the broadcast shape.

    Attributes
    ----------
    expr : sympy.Expr
        The utility.
    parameters : tuple of str
        Names of the parameters, in positional order (sorted by name; ``q``
        last if the utility depends on solution quality).
    backend : str
        ``"numpy"``.
    threads : int
        Threads its blocks are evaluated on (``compile_scorer(..., threads=)``).
    route : str
        How its values are computed: ``"compiled"`` (numpy), ``"numba"`` (large calls in a
        numba loop), ``"log space"`` or ``"mpmath"`` (see the property).
    """

    backend = "numpy"
    threads = 1

    #: whether the expression is a utility, whose values must stay in [0, 1] (a bare
    #: expression may be a density or a cost)
    _bounded = False

    def __init__(self, expr: sympy.Expr, bounded: bool = False) -> None:
        self.expr = expr
        self._bounded = bounded
        self._owner = _owner_label(expr)
        if expr.has(sympy.Integral):
            raise NoClosedFormError(argument_message(
                "utility", "compile_scorer", "a closed form (no unevaluated Integral)", expr,
                "Call the Utility itself, which integrates numerically, or find the integral."))
        symbols = parameters_of(expr, self._owner)
        if q in expr.free_symbols:
            symbols = symbols + (q,)
        self.parameters: tuple[str, ...] = tuple(s.name for s in symbols)
        # plain-named stand-ins, so names such as `lambda` print as valid code
        stand_ins = [sympy.Symbol(f"_x{i}", **s.assumptions0)
                     for i, s in enumerate((t,) + symbols)]
        self._mapping = dict(zip((t,) + symbols, stand_ins))
        self._args = tuple(stand_ins)
        self._runtime = frozenset({stand_ins[0]} | ({stand_ins[-1]} if q in symbols else set()))
        self._stand_in_expr = expr.xreplace(self._mapping)
        self._symbols = symbols
        try:
            root = _compile(self._stand_in_expr, self._args, self._runtime)
        except Exception as error:  # sympy printers raise a zoo of types
            raise UtilityError(argument_message(
                "utility", "compile_scorer", "made of functions with a numpy or scipy equivalent",
                short(expr), f"({type(error).__name__}: {short(error)})")) from None
        self._use(root, "compiled")
        self._limits: dict[str, Callable[..., Any]] = {}
        #: parameter values the scorer was checked at (see _verify)
        self._verified: set[tuple[float, ...]] = set()
        self._reference: Callable[..., Any] | None = None
        if not self.parameters:
            self._verify([])
        names_are_identifiers = all(name.isidentifier() and not iskeyword(name)
                                    for name in self.parameters)
        if names_are_identifiers:  # so that help() shows f(t, alpha, kappa0)
            self.__signature__ = inspect.Signature(
                [inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD)
                 for name in ("t",) + self.parameters])

    def __repr__(self) -> str:
        return f"Scorer(u(t) = {short(self.expr)}; parameters {self.parameters})"

    # -- the second route (see maxent_util._reference)
    def _use(self, root: Callable[..., Any], route: str) -> None:
        self._root = root
        self._into = root.into if isinstance(root, (_PiecewiseNode, _OuterUfunc)) else None
        self._route = route
        # only the compiled numpy code has a numba loop (the others are not plain arithmetic)
        self._numba = _NumbaRoute()
        if route != "compiled":
            self._numba.refused = route

    @property
    def route(self) -> str:
        """How values are computed: ``"compiled"`` (numpy), ``"numba"`` (calls of at least
        :data:`NUMBA_MIN_RUNTIMES` runtimes run a numba loop of the same operations, smaller ones
        the numpy code: the same bits), ``"log space"`` (numpy, products of powers as
        exponentials of sums of logs) or ``"mpmath"`` (30 digits, slow), after a failed check.
        ``"compiled (numba loop refused: ...)"`` says why a large call stayed on numpy."""
        numba_route = self._numba
        if numba_route.used:
            return "numba"
        if numba_route.refused is not None and numba_route.refused.startswith("differed"):
            return f"{self._route} (numba loop refused: {numba_route.refused})"
        return self._route

    def _verify(self, params: list[Any]) -> None:
        """Check this scorer against mpmath at the first values of ``params`` (once per set of
        values, for the first :data:`_MAX_VERIFIED` sets), and take the next route where they
        disagree: the log-space formula, then mpmath itself; raise if no route agrees."""
        try:
            key = tuple(float(np.ravel(v)[0]) if np.size(v) else math.nan for v in params)
        except (TypeError, ValueError):
            return
        if key in self._verified or len(self._verified) >= _MAX_VERIFIED \
                or any(math.isnan(v) for v in key):
            return
        with _LIMITS_LOCK:
            if key in self._verified:
                return
            values = dict(zip(self._args[1:], key))
            points = check_points(self._stand_in_expr, self._args[0], values)
            if self._reference is None:
                try:
                    self._reference = mpmath_function(self._stand_in_expr, self._args)
                except Exception:  # printing for mpmath failed: the reference uses evalf
                    self._reference = None
            reference = reference_values(self._stand_in_expr, self._args, points, key, self._reference)
            for route in ("log space", "mpmath", None):
                fast = self._evaluate(points, [np.float64(v) for v in key], loop=False)
                good = agree(fast, reference)
                if good.all():
                    break
                if route is None:
                    i = int(np.flatnonzero(~good)[0])
                    raise UtilityError(
                        f"the {self._owner} gives {float(fast[i])!r} at t = {float(points[i])!r}"
                        + (f" ({', '.join(f'{n}={v!r}' for n, v in zip(self.parameters, key))})"
                           if key else "")
                        + f", but mpmath at 30 digits gives {float(reference[i])!r}, by every route "
                        "(compiled, log space, mpmath). Suggestion: rewrite the utility, or "
                        "report it with this message.")
                self._use(self._next_route(route), route)
            self._check_range(points, fast, key)
            self._verified.add(key)

    def _check_range(self, runtimes: np.ndarray, values: np.ndarray, key: Any) -> None:
        """A utility's values lie in [0, 1]: refuse the parameter values (by name) for which they
        do not, once at the door (a negative scale made exp(-t/c) 2.72 and every run 'better
        than solved').  A utility without parameters is what it is: score, rank, race and
        from_json say where it leaves [0, 1], on the runs they are given."""
        if not self._bounded or not self.parameters:
            return
        outside = ~((values >= -_RANGE_SLACK) & (values <= 1 + _RANGE_SLACK)) & ~np.isnan(values)
        if not outside.any():
            return
        i = int(np.flatnonzero(outside)[0])
        found = f"u = {float(values[i])!r} at t = {float(np.ravel(runtimes)[i])!r}"
        shown = {name: float(np.ravel(v)[i]) if np.ndim(v) else float(v)
                 for name, v in zip(self.parameters, key)}
        arg = next(iter(shown)) if len(shown) == 1 else ", ".join(shown)
        value = next(iter(shown.values())) if len(shown) == 1 else shown
        raise UtilityError(argument_message(
            arg, self._owner, "a value for which the utility stays in [0, 1]", value,
            f"With it the utility gives {found}."))

    def _next_route(self, route: str) -> Callable[..., Any]:
        if route == "log space":
            try:
                return _compile(self._stand_in_expr, self._args, self._runtime, in_log_space=True)
            except Exception:  # no log-space form prints: go on to mpmath
                return self._root
        return _MpmathRoot(self._stand_in_expr, self._args, self._reference)

    # -- arguments
    def _bind(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[Any]:
        values = [_as_float(value, name, self._owner)
                  for name, value in zip(self.parameters,
                                         _bind(self.parameters, self._owner, args, kwargs))]
        for symbol, value in zip(self._symbols, values):
            _check_parameter(symbol, value, self._owner)
        return values

    # -- evaluation
    def __call__(self, t: Any, *args: Any, **kwargs: Any) -> Any:
        """The utility at runtimes ``t``, vectorised.

        ``t <= 0`` gives the limit u(0+), ``t = inf`` the limit at infinity and a NaN
        runtime NaN; a runtime outside the support never raises.

        Parameters
        ----------
        t : float or array_like of float
            The runtimes.
        *args : float or array_like of float
            Values of the parameters, in the order of :attr:`parameters`.
        **kwargs : float or array_like of float
            Values of the parameters by name.

        Returns
        -------
        float or numpy.ndarray
            A float when ``t`` and the parameters are scalars, else an array of their
            broadcast shape.

        Raises
        ------
        UtilityError
            For too many positional values, an unknown, repeated or missing parameter,
            values that are not real numbers, or shapes that do not broadcast.
        """
        params = self._bind(args, kwargs)
        runtimes = _as_float(t, "t", self._owner)
        if len(self._verified) < _MAX_VERIFIED:
            self._verify(params)
        shapes = [np.shape(v) for v in params]
        if not any(shapes):
            shape = np.shape(runtimes)
            flat_t = np.ravel(runtimes)
            # numpy scalars: a division by a zero parameter is inf (silenced), not ZeroDivisionError
            flat_p = [np.float64(v) for v in params]
        else:
            try:
                shape = np.broadcast_shapes(np.shape(runtimes), *shapes)
            except ValueError:
                raise UtilityError(argument_message(
                    "t", self._owner, f"broadcastable with the parameters' shapes {shapes}",
                    np.shape(runtimes))) from None
            flat_t = np.broadcast_to(runtimes, shape).ravel()
            flat_p = [np.broadcast_to(v, shape).ravel() if np.ndim(v) else np.float64(v)
                      for v in params]
        out = self._evaluate(flat_t, flat_p)
        if self._bounded and params and any(shapes):
            # arrays of parameter values: each was not verified, so their values are checked
            self._check_range(flat_t, out, flat_p)
        return float(out[0]) if shape == () else out.reshape(shape)

    def with_threads(self, threads: int) -> "Scorer":
        """This scorer evaluating its blocks on ``threads`` threads (same compiled code).

        Parameters
        ----------
        threads : int
            Number of threads (at least 1; :func:`compile_scorer` checks it).

        Returns
        -------
        Scorer
            A copy sharing the compiled code and limits, with :attr:`threads` set.
        """
        twin = copy.copy(self)
        twin.threads = threads
        return twin

    def _evaluate(self, flat_t: np.ndarray, flat_p: list[Any], loop: bool = True) -> np.ndarray:
        """The scorer's values at flat runtimes and parameters; ``loop=False`` keeps to the
        numpy code (for its check against mpmath, on a few dozen runtimes)."""
        n = flat_t.shape[0]
        out = np.empty(n)
        kernel = self._numba_kernel(flat_t, flat_p) if loop and n >= NUMBA_MIN_RUNTIMES else None
        blocks = -(-n // CHUNK_SIZE)
        workers = min(self.threads, blocks // _MIN_BLOCKS_PER_THREAD)
        if workers <= 1:
            self._evaluate_range(flat_t, flat_p, out, 0, n, kernel)
            return out
        # contiguous runs of whole blocks: the same blocks as one thread evaluates,
        # so the result is the same to the bit; numpy, scipy.special and the numba loop
        # release the GIL
        per_worker = -(-blocks // workers) * CHUNK_SIZE
        futures = [_pool(workers).submit(self._evaluate_range, flat_t, flat_p, out, start,
                                         min(start + per_worker, n), kernel)
                   for start in range(0, n, per_worker)]
        for future in futures:
            future.result()
        return out

    def _numba_kernel(self, flat_t: np.ndarray, flat_p: list[Any]
                      ) -> Callable[[np.ndarray, np.ndarray], Any] | None:
        """The numba loop for these parameter values (numbers), compiled at the first large
        call, or None where the numpy route serves: numba missing, an expression that is not
        plain arithmetic, parameters given as arrays, or a loop that differed from the numpy
        route at these values' check points."""
        route = self._numba
        if route.refused is not None or not flat_t.flags.c_contiguous \
                or any(isinstance(v, np.ndarray) for v in flat_p):
            return None
        if route.kernel is None:
            with _NUMBA_LOCK:
                if route.kernel is None and route.refused is None:
                    route.build(self._root, self._args)
            if route.kernel is None:
                return None
        try:
            with np.errstate(all="ignore"):  # as the numpy route evaluates them (1/kappa at 0)
                constants = route.text.constants(flat_p)
        except (_NotPlain, ArithmeticError):
            return None
        key = tuple(constants)
        if key not in route.checked:
            with _NUMBA_LOCK:
                if key not in route.checked:
                    differs = self._numba_differs(route, flat_p, constants)
                    if differs is not None:
                        route.refused = differs
                        return None
                    if len(route.checked) < 256:
                        route.checked.add(key)
        route.used = True
        kernel = route.kernel
        return lambda tc, oc: kernel(tc, oc, *constants)

    def _numba_differs(self, route: _NumbaRoute, flat_p: list[Any], constants: list[float]
                       ) -> str | None:
        """Where the numba loop's formula and checks differ from the numpy route's at these
        parameter values, or None: the scorer's check points, a few thousand runtimes drawn
        at random, 0, -0, the tiniest doubles, inf, NaN and every number of the loop (its
        breakpoints) with its neighbours, compared bit for bit."""
        key = [float(v) for v in flat_p]
        values = dict(zip(self._args[1:], key))
        numbers = [c for c in constants if math.isfinite(c)] + [1.0]
        near = [np.nextafter(c, direction) if k else c for c in numbers + [-c for c in numbers]
                for direction in (-math.inf, math.inf) for k in range(2)]
        rng = np.random.default_rng(0)
        runtimes = np.concatenate([
            check_points(self._stand_in_expr, self._args[0], values),
            [0.0, -0.0, 5e-324, -5e-324, 2.2250738585072014e-308, 1e-300, 1e300,
             1.7976931348623157e308, math.inf, -math.inf, math.nan, -math.nan, -1.0],
            near, [np.nextafter(np.nextafter(c, -math.inf), -math.inf) for c in numbers],
            rng.lognormal(0.0, 4.0, 2000), rng.uniform(0.0, min(2.0 * max(map(abs, numbers)), 1e300), 2000)])
        expected = np.empty(runtimes.size)
        with np.errstate(all="ignore"):
            self._formula(expected, runtimes, flat_p)
        got = np.empty(runtimes.size)
        checks = route.kernel(runtimes, got, *constants)
        wrong = np.flatnonzero(got.view(np.int64) != expected.view(np.int64))
        if wrong.size:
            i = int(wrong[0])
            return (f"differed from the numpy route at t = {float(runtimes[i])!r}: "
                    f"{float(got[i])!r} against {float(expected[i])!r}")
        if tuple(checks) != (bool(runtimes.min() > 0.0), bool((runtimes == math.inf).any()),
                             bool(np.isnan(got).any())):
            return "differed from the numpy route in its checks"
        return None

    def _evaluate_range(self, flat_t: np.ndarray, flat_p: list[Any], out: np.ndarray,
                        begin: int, end: int,
                        kernel: Callable[[np.ndarray, np.ndarray], Any] | None = None) -> None:
        # whether the formula itself gives the limit at t = inf (exp(-t/24) gives 0): settled
        # at the first infinite runtime, after which infinite runtimes need neither a search
        # for them nor a repair, and blocks no maximum
        infinite_exact = False
        with np.errstate(all="ignore"):
            for start in range(begin, end, CHUNK_SIZE):
                stop = min(start + CHUNK_SIZE, end)
                tc = flat_t[start:stop]
                pc = [v[start:stop] if isinstance(v, np.ndarray) else v for v in flat_p]
                oc = out[start:stop]
                if kernel is not None:
                    # the numba loop checks as it goes: all positive, any infinite, any NaN
                    positive, infinite, broken = kernel(tc, oc)
                else:
                    self._formula(oc, tc, pc)
                    # Cheap in-cache checks; the repairs run only when something is off.
                    positive = tc.min() > 0.0  # False if any runtime is NaN
                    infinite = broken = None
                if not (positive and (infinite_exact or not (
                        tc.max() == math.inf if infinite is None else infinite))):
                    if positive and not infinite_exact:  # infinite runtimes, nothing else
                        infinite_exact = self._formula_gives_limit_at_infinity(pc)
                    if not infinite_exact or not positive:
                        self._repair_ends(tc, pc, oc, positive)
                # a NaN at a finite positive runtime is what _repair_breakdowns mends (a sum
                # that is not finite finds it, and the loop's NaN flag finds it before the ends
                # are written)
                if (not math.isfinite(np.add.reduce(oc))) if broken is None else broken:
                    self._repair_breakdowns(tc, pc, oc)

    def _formula(self, out: np.ndarray, t: np.ndarray, params: list[Any]) -> None:
        """The numpy route's compiled formula at runtimes ``t`` into ``out`` (before repairs)."""
        if self._into is not None:
            self._into(out, t, *params)
        else:
            out[...] = self._root(t, *params)

    def _formula_gives_limit_at_infinity(self, pc: list[Any]) -> bool:
        """Whether the compiled formula at t = inf gives, bit for bit, the limit that
        :meth:`_repair_ends` would write there (parameters that are numbers only): then
        infinite runtimes can be left as the formula made them, with the same result. Checked
        on a few dozen runtimes, so that numpy's vector loops and their scalar tail both answer."""
        if any(isinstance(v, np.ndarray) for v in pc):
            return False
        probe = np.full(67, math.inf)
        formula = np.empty(probe.size)
        self._formula(formula, probe, pc)
        limit = np.empty(probe.size)
        limit[...] = self._limit_values("inf", pc, np.arange(probe.size))
        return bool(np.all(formula.view(np.int64) == limit.view(np.int64)))

    def _repair_ends(self, tc: np.ndarray, pc: list[Any], oc: np.ndarray,
                     only_infinite: bool) -> None:
        """Limits at runtimes at or below 0 and at infinity, NaN at NaN runtimes. Infinite
        runtimes alone (capped runs written as inf, the common case) cost one comparison and
        the writes at their positions, not three masks of the block."""
        if not only_infinite:
            at_zero = np.flatnonzero(tc <= 0.0)
            if at_zero.size:
                oc[at_zero] = self._limit_values("zero", pc, at_zero)
        at_inf = np.flatnonzero(tc == math.inf)
        if at_inf.size:
            oc[at_inf] = self._limit_values("inf", pc, at_inf)
        if not only_infinite:
            oc[np.isnan(tc)] = np.nan

    def _repair_breakdowns(self, tc: np.ndarray, pc: list[Any], oc: np.ndarray) -> None:
        broken = np.isnan(oc) & (tc > 0.0) & (tc < math.inf)
        if not broken.any():
            return
        large = broken & (tc > 1.0)
        if large.any():
            oc[large] = self._limit_values("inf", pc, large)
        small = broken & ~large
        if small.any():
            oc[small] = self._limit_values("zero", pc, small)

    def _limit_values(self, end: str, pc: list[Any], mask: np.ndarray) -> Any:
        if end not in self._limits:
            # one thread computes a limit (sympy, seconds at worst); the others wait for it
            with _LIMITS_LOCK:
                if end not in self._limits:
                    self._limits[end] = self._limit_function(end)
        # the runs' positions (an index, or a mask of the block)
        count = int(np.count_nonzero(mask)) if mask.dtype == bool else mask.size
        placeholder = np.zeros(count)  # stands for t, of the right length
        return self._limits[end](
            placeholder, *[v[mask] if isinstance(v, np.ndarray) else v for v in pc])

    def _limit_function(self, end: str) -> Callable[..., Any]:
        value = limit_at_end(self.expr, sympy.S.Zero if end == "zero" else sympy.oo)
        if value is not None and (value.has(sympy.I) or value.is_real is False):
            # (t - 5)**(1/3) at 0: a complex limit is no utility's value (the caller says so)
            return lambda placeholder, *pc: np.full_like(placeholder, np.nan)
        if value is not None:
            try:
                return _compile(value.xreplace(self._mapping), self._args, self._runtime)
            except Exception:  # a limit sympy prints but numpy cannot evaluate
                pass
        # no symbolic limit: evaluate at the last representable runtime instead
        edge = 5e-324 if end == "zero" else float(np.finfo(float).max)
        return lambda placeholder, *pc: self._root(np.full_like(placeholder, edge), *pc)


#: sets of parameter values a scorer with parameters is checked at (its first calls' values)
_MAX_VERIFIED = 16


class _MpmathRoot:
    """The last route of a scorer: each runtime evaluated by mpmath at 30 digits (slow: tens of
    microseconds a runtime), for an expression that doubles cannot evaluate by any rewrite."""

    def __init__(self, expr: sympy.Expr, args: Sequence[sympy.Symbol],
                 function: Callable[..., Any] | None) -> None:
        self._expr, self._args, self._function = expr, tuple(args), function

    def __call__(self, runtimes: np.ndarray, *params: Any) -> np.ndarray:
        runtimes = np.asarray(runtimes, dtype=float)
        out = np.empty(runtimes.shape[0])
        columns = [np.broadcast_to(np.asarray(p, dtype=float), runtimes.shape) for p in params]
        for i, runtime in enumerate(runtimes):
            out[i] = reference_values(self._expr, self._args, np.array([runtime]),
                                      [float(c[i]) for c in columns], self._function)[0]
        return out


def _torch_printer() -> Any:
    """sympy's torch printer, taught erfc (torch.special has it, sympy does not print it)."""
    from sympy.printing.pytorch import TorchPrinter

    class _ErfcTorchPrinter(TorchPrinter):
        def _print_erfc(self, expr: sympy.Expr) -> str:
            return f"{self._module_format('torch.special.erfc')}({self._print(expr.args[0])})"

    return _ErfcTorchPrinter


def _jax_printer() -> Any:
    """sympy's jax printer, taught erf and erfc (it prints them as math.erf, which rejects arrays)."""
    from sympy.printing.numpy import JaxPrinter

    class _ErfJaxPrinter(JaxPrinter):
        def _print_erf(self, expr: sympy.Expr) -> str:
            return f"{self._module_format('jax.scipy.special.erf')}({self._print(expr.args[0])})"

        def _print_erfc(self, expr: sympy.Expr) -> str:
            return f"{self._module_format('jax.scipy.special.erfc')}({self._print(expr.args[0])})"

    return _ErfJaxPrinter


class _LambdifiedScorer:
    """A scorer for jax or torch: sympy.lambdify with that module, no masking (a
    :class:`CompiledScorer`)."""

    def __init__(self, expr: sympy.Expr, backend: str) -> None:
        self.expr = expr
        self.backend = backend
        self._owner = _owner_label(expr)
        symbols = parameters_of(expr, self._owner) + ((q,) if q in expr.free_symbols else ())
        self.parameters = tuple(s.name for s in symbols)
        # torch.sqrt(2) and friends reject plain numbers: constants go in as floats
        constants = {atom: atom.evalf(17) for atom in expr.atoms(sympy.Pow, sympy.NumberSymbol)
                     if atom.is_number}
        # c - c*erf(z) -> c*erfc(z), as for numpy, keeps the upper tail accurate
        stable = complement_erf(expr).xreplace(constants)
        printer = {"torch": _torch_printer, "jax": _jax_printer}[backend]()
        self._function = sympy.lambdify((t,) + symbols, stable, modules=backend, printer=printer)

    def __call__(self, t: Any, *args: Any, **kwargs: Any) -> Any:
        values = _bind(self.parameters, self._owner, args, kwargs)
        if self.backend == "torch":
            # torch's functions take tensors only: numbers and arrays become float64 tensors
            import torch

            t, *values = (v if isinstance(v, torch.Tensor) else torch.as_tensor(v, dtype=torch.float64)
                          for v in (t, *values))
        return self._function(t, *values)


def _check_parameter(symbol: sympy.Symbol, value: Any, owner: str) -> None:
    """A parameter's value is a number (never NaN: a NaN scored 1.0 on exp(-t/c)) in the
    domain its symbol declares (positive, nonnegative; real symbols are finite)."""
    array = np.atleast_1d(value)
    for requirement, applies, holds in (("a number (not NaN)", True, lambda a: ~np.isnan(a)),
                                        ("finite", symbol.is_finite, np.isfinite),
                                        ("positive", symbol.is_positive, lambda a: a > 0),
                                        ("non-negative", symbol.is_nonnegative, lambda a: a >= 0)):
        if applies:
            ok = holds(array)
            if not ok.all():
                raise UtilityError(argument_message(symbol.name, owner, requirement,
                                                    float(array[~ok][0])))


def _bind(parameters: tuple[str, ...], owner: str, args: tuple[Any, ...],
          kwargs: dict[str, Any]) -> list[Any]:
    """A scorer's parameter values in positional order, from its call's arguments."""
    if len(args) > len(parameters):
        raise UtilityError(argument_message(
            "args", owner, f"at most {len(parameters)} positional parameters {parameters}",
            args))
    values = dict(zip(parameters, args))
    for name, value in kwargs.items():
        if name not in parameters:
            raise UtilityError(argument_message(
                name, owner, f"one of its parameters {parameters}", name))
        if name in values:
            raise UtilityError(argument_message(
                name, owner, "given once (positionally or by keyword)", value))
        values[name] = value
    for name in parameters:
        if name not in values:
            raise UtilityError(argument_message(
                name, owner, "given (a number or an array)", None, f"Pass it as {name}=..."))
    return [values[name] for name in parameters]


def as_float(value: Any, arg: str, owner: str) -> Any:
    """A float or float64 array; misuse (strings, None, objects, complex) raises (for the
    library's own evaluators: a scorer's runtimes and parameters)."""
    if isinstance(value, float):
        return value
    if np.iscomplexobj(value):
        raise UtilityError(argument_message(arg, owner, "real numbers", value))
    try:
        raw = np.asarray(value)
    except (TypeError, ValueError):
        raise UtilityError(argument_message(arg, owner, "real numbers", short(value))) from None
    # numpy reads None as NaN and parses text ("1e3"): neither is a number given.
    if raw.dtype.kind in "USV" or (raw.dtype == object and any(v is None or isinstance(v, (str, bytes))
                                                              for v in raw.ravel())):
        raise UtilityError(argument_message(arg, owner, "real numbers", short(value)))
    try:
        array = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise UtilityError(argument_message(arg, owner, "real numbers", short(value))) from None
    except OverflowError:  # an integer beyond the largest double (10**400)
        raise UtilityError(argument_message(arg, owner, "real numbers within the range of a double "
                                            "(below 1.8e308)", short(value))) from None
    return array if array.ndim else float(array)


_as_float = as_float


def _installed_backends() -> tuple[str, ...]:
    return tuple(b for b in BACKENDS if b == "numpy" or find_spec(b) is not None)


#: how far a utility's value may fall outside [0, 1] by rounding (a linear quality utility
#: with coefficients near 1e3 reaches 1 + 3e-12 at t = 0)
_RANGE_SLACK = 1e-9


@lru_cache(maxsize=512)
def _cached_scorer(expr: sympy.Expr, backend: str, bounded: bool = False) -> Any:
    if backend == "numpy":
        return Scorer(expr, bounded)
    return _LambdifiedScorer(expr, backend)


#: runtimes valued at a time by a law's own survival function
_LAW_BLOCK = 1 << 12


class _LawScorer:
    """The scorer of a derived law's utility: the law's own survival function (its
    double-precision law, or quadrature), so that the scorer and the utility give the same
    numbers and neither needs the closed form; :attr:`expr` is written out when first read."""

    backend = "numpy"
    threads = 1
    parameters: tuple[str, ...] = ()
    route = "the law's survival function"

    def __init__(self, utility: Any, values: Callable[[Any], Any]) -> None:
        self._utility = utility
        self._values = values

    @property
    def expr(self) -> sympy.Expr:
        return self._utility.expr

    def __repr__(self) -> str:
        return f"Scorer(u(t) = S(t) of {self._utility.name or 'a derived law'}; parameters ())"

    def __call__(self, t: Any, *args: Any, **kwargs: Any) -> Any:
        owner = f"utility of {self._utility.name}" if self._utility.name else "utility of a derived law"
        _bind((), owner, args, kwargs)  # the law has no parameters
        runtimes = _as_float(t, "t", owner)
        block = getattr(self._values, "block", None) or _LAW_BLOCK
        if np.ndim(runtimes) == 0 or np.size(runtimes) <= block:
            return self._values(runtimes)
        # in blocks: the law's quadrature holds some 20 nodes a runtime in each temporary
        # (gigabytes for 10^7 runtimes at once); every runtime is valued on its own, by the
        # same code, so the numbers are the same to the bit
        flat = np.ravel(runtimes)
        out = np.empty(flat.shape[0])
        for start in range(0, flat.shape[0], block):
            out[start:start + block] = self._values(flat[start:start + block])
        return out.reshape(np.shape(runtimes))

    def with_threads(self, threads: int) -> "_LawScorer":
        return self  # the law's survival function is one vectorised call


def compile_scorer(utility: Any, *, backend: str = "numpy", threads: int | None = 1) -> CompiledScorer:
    """A fast vectorised function ``f(t, **parameters)`` evaluating a utility.

    Parameters
    ----------
    utility : Utility or sympy.Expr
        The utility :math:`u(t)` (a sympy expression in :data:`maxent_util.t`,
        possibly with parameters and ``Piecewise`` branches).
    backend : {"numpy", "jax", "torch"}, keyword-only
        ``"numpy"`` (default) gives a :class:`Scorer`; ``"jax"`` and
        ``"torch"`` give ``sympy.lambdify`` with that module, for use inside
        those frameworks (their branches are not masked and ends of the
        support are not special-cased).
    threads : int or None, keyword-only
        Threads a numpy scorer evaluates its blocks of :data:`CHUNK_SIZE`
        runtimes on: ``1`` (default), a positive integer, or ``None`` for
        every core (``os.cpu_count()``). Each thread takes at least four
        blocks, so small inputs stay on the calling thread; the result is the
        same to the bit whatever the number of threads (the same blocks, the
        same code; numpy and scipy.special release the GIL while they compute).

    Returns
    -------
    CompiledScorer
        A :class:`Scorer` for ``"numpy"``; for ``"jax"`` and ``"torch"`` a
        lambdified function with the same attributes (``expr``,
        ``parameters``, ``backend``). Called as
        ``f(t, *parameters, **parameters)``; keyword names are the parameter
        symbols' names, positional parameters follow ``utility.parameters``
        (sorted by name). Scorers are cached per expression and backend.

    Raises
    ------
    UtilityError
        If ``backend`` is unknown or not installed, ``threads`` is not a positive
        integer or None (or is not 1 for jax and torch), or the utility uses a
        function with no numpy/scipy equivalent.
    NoClosedFormError
        If the utility holds an unevaluated integral. A scorer itself raises only
        for misuse: an unknown or missing parameter, or values that are not
        real numbers or do not broadcast.

    Notes
    -----
    Every ``Piecewise`` branch is evaluated only where its condition holds, so
    no warning or NaN escapes from an unused branch. ``t <= 0`` gives the
    limit :math:`u(0^+)`, ``t = inf`` gives :math:`\\lim_{t\\to\\infty} u(t)`
    (both computed symbolically once), and a NaN runtime gives NaN.
    ``erf``, ``erfc``, ``gamma``, ``uppergamma`` and friends map to
    :mod:`scipy.special`. With numba installed (``pip install maxent-util[fast]``), calls of
    at least :data:`NUMBA_MIN_RUNTIMES` runtimes of a plain-arithmetic utility run a numba
    loop of the same operations (the same bits, some 2-3x faster; ``Scorer.route`` says
    ``"numba"``).

    Examples
    --------
    >>> import sympy
    >>> from maxent_util import t
    >>> kappa0, alpha = sympy.symbols("kappa0 alpha", positive=True)
    >>> pareto = sympy.Piecewise((1, t < kappa0), ((kappa0 / t) ** alpha, True))
    >>> f = compile_scorer(pareto)
    >>> f.parameters
    ('alpha', 'kappa0')
    >>> f([0.0, 0.5, 4.0, float("inf")], kappa0=1.0, alpha=1.0)
    array([1.  , 1.  , 0.25, 0.  ])
    >>> f(20.0, 1.0, 10.0)  # positional: alpha, then kappa0
    0.5
    >>> fast = compile_scorer(pareto, threads=None)  # every core, for large inputs
    >>> x = np.linspace(0.0, 50.0, 10**6)
    >>> bool(np.array_equal(fast(x, kappa0=1.0, alpha=1.0), f(x, kappa0=1.0, alpha=1.0)))
    True
    """
    if backend not in BACKENDS:
        raise UtilityError(argument_message(
            "backend", "compile_scorer", f"one of {', '.join(map(repr, BACKENDS))}", backend))
    # numpy is always there; find_spec reads the import path (a millisecond a call)
    if backend != "numpy" and find_spec(backend) is None:
        installed = _installed_backends()
        raise UtilityError(argument_message(
            "backend", "compile_scorer",
            f"an installed backend (installed: {', '.join(map(repr, installed))})", backend,
            f"Install {backend} to use it."))
    if threads is None:
        threads = os.cpu_count() or 1
    if not (isinstance(threads, (int, np.integer)) and not isinstance(threads, bool)
            and threads >= 1) or (backend != "numpy" and threads != 1):
        raise UtilityError(argument_message(
            "threads", "compile_scorer",
            "a positive integer or None (every core)" if backend == "numpy"
            else f"1 (the {backend} backend runs on that framework's own threads)", threads))
    law_values = getattr(utility, "_values_of_law", None)
    values = law_values() if law_values is not None and backend == "numpy" else None
    if values is not None:
        return _LawScorer(utility, values)
    expr = utility_expression(utility, "compile_scorer")
    # a Utility's values must lie in [0, 1]; a bare expression may be a density or a cost
    scorer = _cached_scorer(expr, backend, not isinstance(utility, sympy.Basic) and hasattr(utility, "expr"))
    return scorer if threads == 1 else scorer.with_threads(int(threads))


def make_scorer(utility: Any, *, backend: str = "numpy") -> CompiledScorer:
    """Deprecated: the former name of :func:`compile_scorer` (scikit-learn has a
    ``make_scorer`` of its own, which returns something else)."""
    warnings.warn("maxent_util.make_scorer is now maxent_util.compile_scorer; the old name will be "
                  "removed in 0.3", DeprecationWarning, stacklevel=2)
    return compile_scorer(utility, backend=backend)
