"""How large the exact numbers inside an expression are, without printing them.

sympy multiplies exact powers of rationals under a common root:
``2**(993/5000) * 375**(993/10000)`` becomes ``(2**1986 * 375**993)**(1/10000)``, a
9,205-digit integer, and ``simplify`` turns ``1000*log(kappa/15)`` into
``log(kappa**1000/15**1000)``.  Such numbers are right but useless: a float overflows on them,
and printing them (which sympy does to sort the factors of a product) exceeds Python's limit on
converting integers to text.  Every engine step that may build numbers compares the size of
what it made with the size of what it was given (:func:`grew`) and takes another route when
the numbers grew.  Sizes are read from ``int.bit_length``, never from text.
"""

from __future__ import annotations

from typing import Any

import sympy

__all__ = ["EXACT_BITS", "SLACK_BITS", "grew", "integer_bits", "power_digits", "total_integer_bits"]

#: bits an exact step may add beyond the numbers it was given (a few products of small numbers)
SLACK_BITS = 64


def _integer_sizes(expr: Any):
    if not isinstance(expr, sympy.Basic):
        return
    for node in sympy.preorder_traversal(expr):
        if isinstance(node, sympy.Rational):
            yield max(abs(node.p).bit_length(), node.q.bit_length())


def integer_bits(expr: Any) -> int:
    """Bits of the largest numerator or denominator inside ``expr`` (0 when there is none).

    Examples
    --------
    >>> integer_bits(sympy.Rational(3, 1024) * sympy.Symbol("x"))
    11
    """
    return max(_integer_sizes(expr), default=0)


def total_integer_bits(*exprs: Any) -> int:
    """Bits of all the numerators and denominators inside ``exprs`` together: no product of
    those numbers, each used once, is larger."""
    return sum(sum(_integer_sizes(expr)) for expr in exprs)


#: integers up to this many bits (about 1,200 digits) are exact, printable and cheap whatever
#: built them: an exact power of typed values, (168/25)**(21/100), is (168**21/25**21)**(1/100)
EXACT_BITS = 4096


def grew(result: Any, *inputs: Any, slack: int = SLACK_BITS, floor: int = 0) -> bool:
    """Whether ``result`` holds an integer larger than any product of the numbers in ``inputs``
    (each used once) times ``2**slack``, and than ``2**floor``.

    Examples
    --------
    >>> x = sympy.Symbol("x", positive=True)
    >>> grew(sympy.log(x**1000 / 15**1000), 1000 * sympy.log(x / 15))
    True
    >>> grew(sympy.log(x / 15) / 252213, sympy.log(x / 15), sympy.Rational(1, 252213))
    False
    """
    return integer_bits(result) > max(total_integer_bits(*inputs) + slack, floor)


def power_digits(exponent: sympy.Expr) -> float:
    """Decimal digits sympy would build in ``exp(exponent)``: it writes ``exp(c*log(x))`` as
    ``x**c`` and multiplies the numbers of ``x`` out ``c.p`` times (``exp(-5729749/9429749 *
    log(100*kappa/363))`` asks for 363**5729749, 14.7 million digits, and ran out of time).

    Examples
    --------
    >>> k = sympy.Symbol("k", positive=True)
    >>> round(power_digits(-sympy.Rational(5, 2) * sympy.log(k / 24)))  # 5 times 24's 1.5 digits
    8
    >>> power_digits(-3 * sympy.log(k) ** 2)
    0.0
    """
    total = 0.0
    for term in sympy.Add.make_args(exponent):
        coefficient, rest = term.as_coeff_Mul()
        if not isinstance(coefficient, sympy.Rational) or not isinstance(rest, sympy.log):
            continue
        numbers = [atom for atom in rest.atoms(sympy.Rational) if atom not in (1, -1)]
        digits = sum(max(abs(n.p), n.q).bit_length() * 0.30103 for n in numbers)
        total += abs(coefficient.p) * digits
    return total
