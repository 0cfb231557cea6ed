"""Inequality constraints: the Karush-Kuhn-Tucker conditions of an active set.

A constraint stated with ``relation="<="`` (E[g] <= v) or ``">="`` (E[g] >= v)
enters the Lagrangian L = ... - lambda (E[g] - v) of the engine's sign
convention with a multiplier of fixed sign: lambda >= 0 for ``<=`` and
lambda <= 0 for ``>=`` (on [0, 10], ``Mean(3, relation="<=")`` binds and gives
the decreasing density exp(-lambda kappa), lambda > 0).  The engine derives
the law of each active set (the inequalities it holds as equalities, the
others dropped) and keeps the one whose multipliers have the right signs
and at which every dropped inequality holds: the problem is convex, so the
KKT conditions single it out.  This module checks those conditions on one
candidate and merges parameter-dependent candidates into one Piecewise law.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Sequence

import mpmath
import numpy as np
import scipy
import sympy

from .._immutable import FrozenDict
from .._sizes import grew
from .._timing import SymbolicTimeout, as_deadline, time_limit
from ..constraints import Constraint, Support
from ..distribution import CaptimeDistribution
from ..errors import NoClosedFormError
from ..expressions import numpy_modules
from ..problem import Piece, generic_branch, integrate_piece, provably_less, sorted_points
from ..symbols import kappa

oo = sympy.oo

#: relative slack of the numeric checks (a dropped bound met to this, a multiplier's sign)
TOLERANCE = 1e-12


def global_multipliers(constraints: Sequence[Constraint]) -> dict[Constraint, sympy.Symbol]:
    """lambda_i for the i-th constraint that adds a term (every constraint but the support), so a
    constraint keeps its multiplier's name whatever the active set."""
    names: dict[Constraint, sympy.Symbol] = {}
    for constraint in constraints:
        if isinstance(constraint, Support) or constraint.feature() is None or constraint in names:
            continue
        names[constraint] = sympy.Symbol(f"lambda_{len(names) + 1}", real=True)
    return names


def _region(constraint: Constraint, support: tuple) -> tuple:
    feature = constraint.feature()
    lower = support[0] if feature.lower == -oo else feature.lower
    upper = support[1] if feature.upper == oo else feature.upper
    return feature, lower, upper


#: share of the time left that the exact E[g] of a law of numbers may take before quadrature
_EXACT_SHARE = 0.25


def expectation(law: CaptimeDistribution, constraint: Constraint, deadline: Any) -> sympy.Expr:
    """E[g] of the constraint's feature under the law (see :func:`_expectation`).  For a law of
    numbers the exact value is tried first under a quarter of the time left; where it does not
    come in time, fails, or builds integers larger than the law's own (``simplify`` on a uniform
    law's E[log(kappa/s)**2] made a 4,300-digit one), mpmath quadrature at 30 digits decides."""
    if law.parameters or not law.closed_form:
        return _expectation(law, constraint, deadline, numeric=not law.parameters)
    share = as_deadline(deadline).share(_EXACT_SHARE)
    try:
        with time_limit(share):
            value = _expectation(law, constraint, share, numeric=False)
        if not grew(value, *law._pdf_pieces, *law.breakpoints, constraint.feature().expr,
                    constraint.feature().value):
            return value
    except SymbolicTimeout:
        pass
    except (ValueError, ArithmeticError, TypeError, NotImplementedError):
        pass  # sympy could not: quadrature decides
    return _expectation(law, constraint, deadline, numeric=True)


def _real(value: Any, constraint: Constraint) -> Any:
    """A quadrature's value as a real number. mpmath evaluates a power of a negative base
    (a density's ``(a - b*kappa)**c`` written by sympy) on the complex plane, and returns an
    mpc whose imaginary part is zero, or rounding, for a real integral."""
    real, imaginary = mpmath.re(value), mpmath.im(value)
    if abs(imaginary) <= mpmath.mpf(10) ** (-20) * max(1, abs(real)):
        return real
    raise NoClosedFormError(
        f"the expectation of `{constraint!r}` under the law came out complex ({value}): "
        "its density is not real on the region. Suggestion: derive with method='numeric'.")


def _expectation(law: CaptimeDistribution, constraint: Constraint, deadline: Any,
                 numeric: bool) -> sympy.Expr:
    """E[g 1_region] under ``law`` for a moment constraint: exact (by sympy, piece by piece)
    when the law has symbolic parameters or a closed form, else by mpmath quadrature."""
    feature, lower, upper = _region(constraint, law.support)
    points = list(law.breakpoints)
    total = sympy.Integer(0) if not numeric else mpmath.mpf(0)
    for a, b, density, scale in zip(points, points[1:], law._pdf_pieces, law._scales):
        if provably_less(a, upper) is False or provably_less(lower, b) is False:
            continue  # the piece lies outside the region
        start_inside = lower == a or provably_less(lower, a)
        end_inside = upper == b or provably_less(b, upper)
        start = a if start_inside else lower if provably_less(a, lower) else None
        end = b if end_inside else upper if provably_less(upper, b) else None
        if start is None or end is None:
            raise NoClosedFormError(
                f"whether `{constraint!r}` binds depends on how {lower}, {upper} fall among the law's "
                f"breakpoints {points}, which sympy cannot order. Suggestion: substitute numbers for the "
                "parameters.")
        if numeric:
            function = sympy.lambdify(kappa, feature.expr * density, "mpmath")
            with mpmath.workdps(30):
                ends = [mpmath.mpf(sympy.N(start, 40)), mpmath.inf if end == oo else mpmath.mpf(sympy.N(end, 40))]
                total += _real(mpmath.quad(function, ends), constraint)
            continue
        with time_limit(deadline):
            value = integrate_piece(feature.expr * density, Piece(start, end, [], sympy.Integer(0), scale))
            if value.has(sympy.Integral, sympy.nan, sympy.zoo):
                value = generic_branch(sympy.integrate(feature.expr * density, (kappa, start, end),
                                                       conds="none"))
        total += value
    if numeric:
        return sympy.Float(total, 30)
    if not law.parameters:
        # numbers: their value decides (see _holds); simplify's logcombine raised a rational to
        # a power with a 7-digit numerator and tested the result for primality, in one C call
        # that no time limit interrupts
        return total
    return sympy.simplify(total)


def _holds(relation: str, left: sympy.Expr, right: sympy.Expr) -> sympy.Basic:
    """``left <= right`` (or ``>=``) as True, False, or a condition on the parameters."""
    difference = left - right
    if difference.free_symbols:
        difference = sympy.simplify(difference)
    else:  # numbers: their value decides, simplify could only spend time (30 s on a log-spread)
        size = max(1.0, abs(float(sympy.N(right))))
        number = float(sympy.N(difference, 30))
        ok = number <= TOLERANCE * size if relation == "<=" else number >= -TOLERANCE * size
        return sympy.true if ok else sympy.false
    return tidy_condition(sympy.Le(difference, 0) if relation == "<=" else sympy.Ge(difference, 0))


def tidy_condition(condition: sympy.Basic) -> sympy.Basic:
    """A condition on one positive parameter as a plain inequality (``d <= 1/5``); others as they are."""
    if condition in (sympy.true, sympy.false):
        return condition
    symbols = condition.free_symbols
    if len(symbols) != 1:
        return condition
    symbol = next(iter(symbols))
    domain = sympy.Interval.open(0, oo) if symbol.is_positive else sympy.S.Reals
    solved = _as_set(condition, symbol, domain)
    if solved is None:
        return condition  # sympy cannot solve it: the condition stays as stated, still exact
    solved = solved.intersect(domain)
    if solved == sympy.S.EmptySet:
        return sympy.false
    if solved == domain:
        return sympy.true
    if symbol.is_positive:
        # the parameter is positive: (0, 1/5] reads d <= 1/5
        solved = sympy.Union(solved, sympy.Interval(-oo, 0))
    return solved.as_relational(symbol)


def _as_set(condition: sympy.Basic, symbol: sympy.Symbol, domain: sympy.Set) -> sympy.Set | None:
    try:
        if isinstance(condition, sympy.core.relational.Relational):
            return sympy.solve_univariate_inequality(condition, symbol, relational=False, domain=domain)
        if isinstance(condition, (sympy.And, sympy.Or)):
            parts = [_as_set(arg, symbol, domain) for arg in condition.args]
            if any(part is None for part in parts):
                return None
            return sympy.Intersection(*parts) if isinstance(condition, sympy.And) else sympy.Union(*parts)
        if isinstance(condition, sympy.Not):
            part = _as_set(condition.args[0], symbol, domain)
            return None if part is None else sympy.Complement(domain, part)
    except Exception:  # sympy cannot solve it
        return None
    return None


def kkt_rows(law: CaptimeDistribution, constraints: Sequence[Constraint], active: Sequence[Constraint],
             names: dict, local: dict, deadline: Any) -> tuple[sympy.Basic, tuple]:
    """The KKT conditions of one active set: (the condition under which they all hold, the rows
    (constraint, multiplier, value, E[g] at the law, active) of every moment constraint)."""
    condition: sympy.Basic = sympy.true
    rows = []
    for constraint in constraints:
        if constraint not in names:
            continue
        symbol = names[constraint]
        binding = constraint.relation == "==" or constraint in active
        if binding:
            value = law.multipliers.get(local.get(constraint), sympy.Integer(0))
            feature = constraint.feature()
            rows.append((constraint, symbol, value, feature.value, True))
            if constraint.relation != "==":
                # dual feasibility: lambda >= 0 for E[g] <= v, lambda <= 0 for E[g] >= v
                sign = _holds(">=" if constraint.relation == "<=" else "<=", value, sympy.Integer(0))
                condition = sympy.And(condition, sign)
        else:
            reached = expectation(law, constraint, deadline)
            rows.append((constraint, symbol, sympy.Integer(0), reached, False))
            # primal feasibility of a dropped inequality
            condition = sympy.And(condition, _holds(constraint.relation, reached, constraint.feature().value))
        if condition == sympy.false:
            break
    return tidy_condition(condition), tuple(rows)


def annotate(law: CaptimeDistribution, constraints: tuple, names: dict, local: dict,
             cases: tuple) -> CaptimeDistribution:
    """``law`` (derived from an active set) restated for the constraints as given: multipliers
    named lambda_i after the constraints, zeros for dropped ones, and the KKT record."""
    rename = {local[c]: names[c] for c in local}
    original = {c.as_equality(): c for c in constraints}
    multipliers = {sympy.Symbol("lambda_0", real=True): law.multipliers[sympy.Symbol("lambda_0", real=True)]}
    for constraint, symbol in names.items():
        multipliers[symbol] = law.multipliers.get(local.get(constraint), sympy.Integer(0))
    record = law.derivation
    record = dataclasses.replace(
        record,
        terms=[(rename.get(m, m), g, region, v, original.get(c, c)) for m, g, region, v, c in record.terms],
        stationary_density=record.stationary_density.xreplace(rename),
        partition=None if record.partition is None else record.partition.xreplace(rename),
        equations=[e.xreplace(rename) for e in record.equations],
        kkt=cases)
    return law._evolve(constraints=tuple(constraints), multipliers=FrozenDict(multipliers), derivation=record)


def _refined(law: CaptimeDistribution, points: list) -> tuple[list, list, list, list]:
    """The law's pdf, cdf, sf pieces and scales on the finer breakpoints ``points``."""
    own = list(law.breakpoints)
    pdf, cdf, sf, scales = [], [], [], []
    for a, b in zip(points, points[1:]):
        index = next((i for i, (lo, hi) in enumerate(zip(own, own[1:]))
                      if (lo == a or provably_less(lo, a)) and (hi == b or provably_less(b, hi))), None)
        if index is None:
            raise NoClosedFormError(
                f"the laws of the possible active sets have breakpoints {points} that sympy cannot order. "
                "Suggestion: substitute numbers for the parameters.")
        pdf.append(law._pdf_pieces[index])
        cdf.append(law._cdf_pieces[index])
        sf.append(law._sf_pieces[index])
        scales.append(law._scales[index])
    return pdf, cdf, sf, scales


def merge(cases: list, constraints: tuple) -> CaptimeDistribution:
    """One law from the candidates (condition, law) of several active sets: every piece a Piecewise
    over the conditions, made exclusive in order (the first that holds is the law)."""
    exclusive = []
    before: sympy.Basic = sympy.false
    for condition, law in cases:
        own = tidy_condition(sympy.And(condition, sympy.Not(before)))
        if own != sympy.false:
            exclusive.append((own, law))
        before = tidy_condition(sympy.Or(before, condition))
    if len(exclusive) == 1:
        return exclusive[0][1]
    points = sorted_points([p for _, law in exclusive for p in law.breakpoints])
    refined = [_refined(law, points) for _, law in exclusive]

    def over(values: list) -> sympy.Expr:
        if all(v == values[0] for v in values):
            return values[0]
        return sympy.Piecewise(*[(v, c) for v, (c, _) in zip(values, exclusive)])

    pieces = [[over([r[k][i] for r in refined]) for i in range(len(points) - 1)] for k in range(3)]
    scales = [r[3] for r in refined]
    scale_row = [s[0] if all(x == s[0] for x in s) else None for s in zip(*scales)]
    multipliers = {m: over([law.multipliers[m] for _, law in exclusive]) for m in exclusive[0][1].multipliers}
    largest = max((law for _, law in exclusive), key=lambda law: len(law.derivation.terms))
    kkt = tuple((c, law.derivation.kkt[0][1]) for c, law in exclusive)
    record = dataclasses.replace(largest.derivation, kkt=kkt, breakpoints=points,
                                 method="symbolic (active set depends on the parameters)")
    return CaptimeDistribution(
        constraints=constraints, support=largest.support, pdf_pieces=pieces[0], cdf_pieces=pieces[1],
        sf_pieces=pieces[2], breakpoints=points, multipliers=multipliers,
        closed_form=all(law.closed_form for _, law in exclusive), derivation=record,
        timeout=largest._timeout, scales=scale_row)


def reachable(constraints: Sequence[Constraint], support: tuple) -> bool:
    """Whether some distribution on the support meets every (in)equality: a linear program over
    point masses on a wide grid of captimes (scipy's HiGHS)."""
    lower, upper = float(support[0]), float(support[1])
    finite_upper = upper if math.isfinite(upper) else max(lower, 1.0) * 1e6
    grid = np.unique(np.concatenate([np.linspace(lower, finite_upper, 2001),
                                     np.geomspace(max(lower, 1e-6), finite_upper, 2001)]))
    rows, values, relations = [], [], []
    for constraint in constraints:
        if isinstance(constraint, Support) or constraint.feature() is None \
                or not math.isfinite(float(constraint.feature().value)):
            continue  # ContinuousAt fixes no expectation (its feature's value is NaN)
        feature, a, b = _region(constraint, support)
        function = sympy.lambdify(kappa, feature.expr, numpy_modules(feature.expr))
        with np.errstate(all="ignore"):
            row = np.broadcast_to(np.asarray(function(grid), dtype=float), grid.shape).copy()
        inside = (grid >= float(a)) & ((grid < float(b)) | (float(b) == upper))
        row = np.where(inside, row, 0.0)
        rows.append(row)
        values.append(float(feature.value))
        relations.append(constraint.relation)
    table = np.array(rows) if rows else np.zeros((0, grid.size))
    keep = np.all(np.isfinite(table), axis=0)
    table = table[:, keep]
    size = np.maximum(np.abs(values), 1.0) if values else np.ones(0)
    eq = [i for i, r in enumerate(relations) if r == "=="]
    ub = [(i, 1.0 if r == "<=" else -1.0) for i, r in enumerate(relations) if r != "=="]
    a_eq = np.vstack([table[eq] / size[eq, None] if eq else np.zeros((0, table.shape[1])),
                      np.ones(table.shape[1])])
    b_eq = np.concatenate([np.array(values)[eq] / size[eq] if eq else np.zeros(0), [1.0]])
    a_ub = np.array([s * table[i] / size[i] for i, s in ub]) if ub else None
    b_ub = np.array([s * values[i] / size[i] for i, s in ub]) if ub else None
    result = scipy.optimize.linprog(np.zeros(table.shape[1]), A_ub=a_ub, b_ub=b_ub, A_eq=a_eq, b_eq=b_eq,
                                    bounds=(0, None), method="highs")
    return result.status == 0
