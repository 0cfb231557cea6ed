"""A derived law's derivation record read and carried: which inequalities bind, the entropy
from the multipliers, and what substituting values into a law does to the record and checks."""

from __future__ import annotations

import dataclasses
from typing import Any

import sympy

from ..constraints import ContinuousAt
from ..errors import ConstraintError, argument_message
from ..problem import check_ranges, make_terms, provably_less, support_of
from ..symbols import kappa
from .closed_form import _FOLDED_DIGITS, _simplify

oo = sympy.oo


def active_cases(derivation: Any) -> tuple:
    """``((condition, active inequalities), ...)`` from a record's KKT cases."""
    cases = getattr(derivation, "kkt", ()) or ()
    return tuple((condition, tuple(row[0] for row in rows if row[4] and row[0].relation != "=="))
                 for condition, rows in cases)


def entropy_of(self: Any) -> sympy.Expr:
    """The differential entropy, from the multipliers (no integration).

    At the maximum the entropy is 1 + lambda_0 + sum_i lambda_i E[g_i 1_i], with the
    constrained expectations read off the constraints.

    Returns
    -------
    sympy.Expr
        The entropy in nats, simplified (within the law's time limit).
    """
    record = self.derivation
    lambda_0 = sympy.Symbol("lambda_0", real=True)
    entropy = self.multipliers[lambda_0] + 1
    masses = masses_of(self)
    for multiplier, _, region, value, constraint in record.terms:
        if isinstance(constraint, ContinuousAt):
            value = sum(m for m, upper in zip(masses, self.breakpoints[1:])
                        if upper == constraint.kappa0 or _before(upper, constraint.kappa0))
        entropy += self.multipliers[multiplier] * value
    return _simplify(entropy, self._timeout)

def masses_of(self: Any) -> list:
    masses = []
    for index, cdf in enumerate(self._cdf_pieces):
        upper = self.breakpoints[index + 1]
        end = 1 if upper == oo else cdf.subs(kappa, upper)
        start = sympy.Add(*masses)
        masses.append(_simplify(end - start, self._timeout))
    return masses


def substituted_record(derivation: Any, mapping: dict, sub: Any, *, folded: bool) -> Any:
    """The derivation record with values put in by ``sub`` (``mapping`` for the constraints),
    noting where they went in as floats (``folded``)."""
    record = dataclasses.replace(
        derivation,
        breakpoints=[sub(p) for p in derivation.breakpoints],
        support=tuple(sub(p) for p in derivation.support),
        terms=[(m, sub(g), (sub(region[0]), sub(region[1])), sub(v), c.subs(mapping))
               for m, g, region, v, c in derivation.terms],
        stationary_density=sub(derivation.stationary_density),
        partition=sub(derivation.partition),
        # kept as equations: sympy would spend a fraction of a second per relation deciding
        # whether each substituted one now holds, and fold it to True if it did
        equations=[sympy.Eq(sub(e.lhs), sub(e.rhs), evaluate=False) if isinstance(e, sympy.Equality)
                   else sub(e) for e in derivation.equations],
        kkt=_substituted_cases(getattr(derivation, "kkt", ()), mapping, sub))
    if folded:
        record = dataclasses.replace(record, notes=tuple(record.notes) + (
            f"the values were put in at {_FOLDED_DIGITS} digits where their exact form would "
            "hold integers far larger than the values themselves (exact powers multiplied "
            "under a common root)",))
    return record


def _substituted_cases(cases: tuple, mapping: dict, sub: Any) -> tuple:
    """The KKT cases with the values put in: cases whose condition became False are dropped, and
    the first whose condition became True is the last kept (a Piecewise takes the first that holds)."""
    kept = []
    for condition, rows in cases:
        condition = sub(condition)
        if condition == sympy.false:
            continue
        rows = tuple((constraint.subs(mapping), multiplier, sub(value), sub(reached), binding)
                     for constraint, multiplier, value, reached, binding in rows)
        kept.append((condition, rows))
        if condition == sympy.true:
            break
    if len(kept) == 1:
        kept[0] = (sympy.true, kept[0][1])
    return tuple(kept)


def _check_substitution(distribution: Any, values: dict) -> None:
    """Refuse values for which the substituted closed form is no longer a density.

    The closed form was derived for the parameters' whole domain; values
    outside it (a Pareto exponent alpha = -1) pass the constraints' own
    checks but give a negative or non-finite density.  The constraint set
    is checked as :func:`derive` checks it, then each piece of the density
    at an interior point.
    """

    support = support_of(distribution.constraints)
    # the bounds that do not bind need not be reachable as equalities
    active = distribution.active or ()
    binding = [c.as_equality() for c in distribution.constraints if c.relation == "==" or c in active]
    terms, _ = make_terms(binding, support)
    check_ranges(terms, support)
    shown = ", ".join(f"{name}={value!r}" for name, value in values.items())
    arg = next(iter(values)) if len(values) == 1 else ", ".join(values)
    for lower, upper, density in zip(distribution.breakpoints, distribution.breakpoints[1:],
                                     distribution._pdf_pieces):
        if density.has(sympy.nan) or density.has(sympy.zoo):
            bad = True
        elif density.free_symbols - {kappa}:
            bad = density.is_negative is True or density.is_zero is True
        else:
            if upper == oo:
                inside = 2 * lower if lower != 0 else sympy.Integer(1)
            else:
                inside = (lower + upper) / 2
            value = sympy.N(density.subs(kappa, inside))
            bad = not (value.is_real and value.is_finite and value > 0)
        if bad:
            raise ConstraintError(argument_message(
                arg, "CaptimeDistribution.subs",
                f"a value for which the constraints {', '.join(map(repr, distribution.constraints))} "
                f"give a probability density (on [{lower}, {upper}) it came out as {density})", shown))


def _before(a: sympy.Expr, b: sympy.Expr) -> bool:

    return bool(provably_less(a, b))
