"""The maximum-entropy engine: stated constraints -> closed-form density.

Sign conventions follow the paper's Appendix C.  The entropy Lagrangian is

    L[f, lambda] = -int f log f - lambda_0 (int f - 1)
                   - sum_i lambda_i (int g_i(kappa) 1_i(kappa) f - v_i),

and its stationary point is the exponential-family density
f = exp(-1 - lambda_0 - sum_i lambda_i g_i 1_i).  Writing
Z(lambda) = int exp(-sum_i lambda_i g_i 1_i), normalisation gives
exp(-1 - lambda_0) = 1/Z and every moment condition becomes
-d log Z / d lambda_i = v_i.  A :class:`~maxent_util.constraints.ContinuousAt`
constraint adds a multiplier on 1{kappa < kappa0} whose equation is that the
exponent has the same value on both sides of kappa0.

The support and the regions of the features cut the captime axis into
pieces; on each piece the exponent is smooth.  Each piece is integrated
symbolically, after the substitution kappa = s exp(y) when every feature on
it is a function of log(kappa/s) (the paper's log-moment families), which
turns power laws and log-normals into exponentials and Gaussians in y that
sympy integrates reliably.

When is the symbolic route abandoned?  Integration and solving run under a
wall-clock limit (``timeout``, seconds).  If sympy cannot integrate a piece,
cannot solve the multiplier equations (they are often transcendental, e.g.
``Support(0, 10), Mean(3)``), or runs out of time, the multipliers are found
numerically: Newton's method on the moment conditions (the gradient of the
convex dual when there is no continuity condition) from a start where the
density is integrable, in double precision and then polished with mpmath to
``digits`` significant digits.  The density keeps its symbolic form with the
numeric multipliers, and ``closed_form`` is False.  Symbolic parameters with
no closed form raise :class:`~maxent_util.errors.NoClosedFormError`.
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import numpy as np
import sympy

from .._timing import Deadline, alarm_usable, check_timeout, rings, run_bounded, time_limit, timed_out
from .._timing import SymbolicTimeout as _SymbolicTimeout

from ..constraints import Constraint, Support
from ..errors import (ConstraintError, InfeasibleError, MaxEntError, MaximumNotAttainedError, NoClosedFormError,
                      NotNormalizableError,
                      argument_message)
from ..problem import (build_pieces, check_ranges, clear_kept, keep, kept_store, make_terms, stationary_density,
                       support_of)
from ..distribution import CaptimeDistribution
from ..distribution.closed_form import density_parts
from .direct import direct_law
from .exact import exact_double_root, parts_at_root, positive_number, recognise_exact
from .fast import TimeUp, fast_problem
from .numeric import NumericProblem
from .symbolic import multiplier_equations, solve_symbolic, symbolic_partition
from .kkt import annotate, global_multipliers, kkt_rows, merge, reachable

__all__ = ["derive", "derive_many", "Derivation", "DEFAULT_TIMEOUT"]

oo = sympy.oo


#: seconds allowed for a whole derivation (symbolic attempt, numeric fallback, tidying)
DEFAULT_TIMEOUT = 30.0

#: share of the time limit the symbolic attempt may use when numbers leave a numeric fallback
_SYMBOLIC_SHARE = 0.5

#: seconds past the deadline allowed for handing the result over (worker process, last step)
_GRACE = 0.5

#: the most significant digits ``derive`` solves multipliers to: digits=2000 takes seconds,
#: digits=10**5 does not finish in minutes
MAX_DIGITS = 1000

@dataclass(frozen=True)
class Derivation:
    """Every intermediate object of a derivation, kept for the LaTeX export.

    Attributes
    ----------
    support : (lower, upper) of the captime.
    terms : list of (multiplier symbol, feature expression, region (lower, upper), value, constraint).
    breakpoints : the sorted points that cut the support into pieces.
    stationary_density : exp(-1 - lambda_0 - sum lambda_i g_i 1_i), a Piecewise in kappa.
    partition : Z(lambda) = int exp(-sum lambda_i g_i 1_i) dkappa, or None if numeric only.
    equations : the multiplier equations as sympy relations (symbolic route), else [].
    method : how the multipliers were found.
    notes : remarks on the answer, e.g. that the stationary conditions had several solutions and
        the one of largest entropy was kept.
    kkt : for constraints with inequalities, the Karush-Kuhn-Tucker conditions at the answer: cases
        (condition on the parameters, rows), one case with condition True unless the active set
        depends on the parameters; each row is (constraint, multiplier symbol, its value, E[g] at the
        law, whether the constraint is active).  Empty when every constraint is an equality.
    """

    support: tuple[sympy.Expr, sympy.Expr]
    terms: list[tuple]
    breakpoints: list[sympy.Expr]
    stationary_density: sympy.Expr
    partition: sympy.Expr | None
    equations: list[sympy.Basic] = field(default_factory=list)
    method: str = "symbolic"
    #: remarks on how the answer was chosen (e.g. which of several stationary points)
    notes: list[str] = field(default_factory=list)
    #: the KKT conditions of a derivation with inequality constraints (see above)
    kkt: tuple = ()

    def __post_init__(self) -> None:
        # a derivation is shared through derive's cache: its sequences are tuples, not lists
        for name in ("terms", "breakpoints", "equations", "notes", "kkt"):
            object.__setattr__(self, name, tuple(getattr(self, name)))
        object.__setattr__(self, "support", tuple(self.support))


# ---------------------------------------------------------------------------
# Entry point
# ---------------------------------------------------------------------------

#: how the multipliers may be found: both routes, only the closed form, only numerics
METHODS = ("auto", "symbolic", "numeric")


def derive(*constraints: Constraint, timeout: float = DEFAULT_TIMEOUT, digits: int = 15,
           method: str = "auto") -> CaptimeDistribution:
    """Derive the maximum-entropy captime distribution of some constraints.

    Parameters
    ----------
    *constraints : :class:`~maxent_util.constraints.Constraint`
        At most one :class:`Support` (default ``[0, oo)``) and any moment or
        continuity constraints.
    timeout : float or None, keyword-only
        Seconds allowed for the whole derivation, or None for no limit
        (``inf`` means the same).  One deadline is shared by every step:
        the symbolic attempt (integration and solving) may use half of it
        when the constraints are all numbers (the numeric fallback and the
        simplification of the result get what is left), all of it when they
        have symbolic parameters (there is no numeric fallback then).  The
        call returns or raises :class:`~maxent_util.errors.TimeLimitError`
        within about ``timeout + 0.5`` s on any thread: on the main thread
        (POSIX) each step is interrupted by SIGALRM; on another thread, or
        where SIGALRM is missing, the derivation runs in a worker process
        (``fork`` on Linux, ``spawn`` elsewhere; the result comes back
        pickled) that is killed when the time is up.  Zero, negative, NaN
        and non-numbers are refused.
    digits : int, keyword-only
        15 (the default): a set of numbers of the common kinds (Support, Mean, LogMoment,
        SquaredLogDeviation, TailProbability, Moment; equalities and bounds; ContinuousAt in
        the generalized log-Laplace law's set) is solved at
        once in double precision (milliseconds; :attr:`CaptimeDistribution.numeric`), and
        its closed form (sympy pdf, CDF, survival function, exact or 30-digit multipliers,
        derivation) is built when one of them is first read, under the same ``timeout``
        (:attr:`CaptimeDistribution.forms` says what is built).  Other sets, and ``digits``
        above 15 (up to ``MAX_DIGITS``), take the full route at once: multipliers solved
        exactly or to ``max(digits, 30)`` digits.
    method : {"auto", "symbolic", "numeric"}, keyword-only
        ``"auto"`` tries the closed form first and falls back to numerics;
        ``"symbolic"`` raises :class:`~maxent_util.errors.NoClosedFormError`
        rather than fall back; ``"numeric"`` skips the symbolic attempt (the
        multipliers still come out exact when they are small fractions such
        as 0 or 1, checked exactly).

    Returns
    -------
    CaptimeDistribution
        The law: its pdf, CDF and survival function in closed form, the multipliers
        (exact or numeric, see ``closed_form``) and the derivation's steps, built at once
        or on first read (see ``digits``); its :meth:`~CaptimeDistribution.utility` is
        valued at once either way.  Equal arguments give the same (cached, immutable) object.

    Raises
    ------
    ConstraintError
        For an argument that is not a constraint, two supports, constraints that do not
        fit the support, or an invalid ``timeout``, ``digits`` or ``method``.
    InfeasibleError
        If no distribution satisfies all the constraints at once.
    NotNormalizableError
        If the maximum-entropy density cannot be normalised (for instance an unbounded
        support with no moment), or the supremum of the entropy is not attained
        (:class:`~maxent_util.errors.MaximumNotAttainedError`).
    NoClosedFormError
        With ``method="symbolic"`` when sympy finds no closed form in time.
    TimeLimitError
        If the derivation does not finish within ``timeout``.

    Examples
    --------
    >>> from maxent_util import derive, Support, Mean, kappa
    >>> derive(Support(0, "oo"), Mean(2)).pdf
    exp(-kappa/2)/2
    """
    seconds = _check_arguments(constraints, timeout, digits, method)
    constraints = tuple(constraints)
    if digits <= FAST_DIGITS and method != "symbolic":
        law = _fast_law(constraints, seconds, method)
        if law is not None:
            return law._share()
    # every caller gets the cached object: sealed, so that none can rename it for the others
    return _derive_cached(constraints, seconds, int(max(digits, 30)), method)._share()


def _check_arguments(constraints: tuple, timeout: Any, digits: Any, method: Any) -> float | None:
    """derive's arguments checked; the time limit in seconds (None: none)."""
    for constraint in constraints:
        if not isinstance(constraint, Constraint):
            raise ConstraintError(argument_message(
                "constraints", "derive", "Constraint objects (Support, Mean, LogMoment, ...)", constraint))
    if isinstance(digits, bool) or not isinstance(digits, (int, np.integer)):
        raise ConstraintError(argument_message("digits", "derive", "an integer (significant digits)", digits))
    if digits < 15:
        raise ConstraintError(argument_message("digits", "derive", "at least 15", digits))
    if digits > MAX_DIGITS:
        raise ConstraintError(argument_message(
            "digits", "derive", f"at most {MAX_DIGITS}", digits,
            "The cost of mpmath's quadratures grows steeply with the precision; beyond this "
            "they do not finish in reasonable time."))
    seconds = check_timeout(timeout, arg="timeout", owner="derive", error=ConstraintError)
    if method not in METHODS:
        raise ConstraintError(argument_message("method", "derive", "one of 'auto', 'symbolic', 'numeric'",
                                               method))
    return seconds


#: ``digits`` up to this take the fast route (double precision at once, the rest on demand)
FAST_DIGITS = 15

#: fast-route laws by (constraints, method): a law does not depend on the time limit it was
#: solved under (the route either finishes or raises), so one serves every timeout
_FAST_KEPT = 1024
_fast_laws: dict[tuple, CaptimeDistribution | None] = {}
_fast_counts = [0, 0]  # hits, misses


def derive_many(constraint_sets: Any, *, timeout: float = DEFAULT_TIMEOUT, digits: int = 15,
                method: str = "auto") -> list[CaptimeDistribution]:
    """Derive the law of each of many constraint sets: :func:`derive` for each, faster.

    A sweep over a value (``[(Support(0, 10), Mean(v)) for v in values]``), a slider, or a
    likelihood fit solves many neighbouring problems.  Each set of numbers that the fast route
    takes starts Newton's method from the multipliers of the previous set of the same shape (the
    same kinds, in the same order), which usually leaves one or two steps; the others are derived
    one by one as by :func:`derive`.

    Parameters
    ----------
    constraint_sets : iterable of sequences of Constraint
        One sequence of constraints per law.
    timeout : float or None, keyword-only
        Seconds allowed for each law (as in :func:`derive`).
    digits, method : keyword-only
        As in :func:`derive`.

    Returns
    -------
    list of CaptimeDistribution
        One law per set, in order: the objects :func:`derive` returns for the same arguments.

    Raises
    ------
    ConstraintError, InfeasibleError, NotNormalizableError, TimeLimitError
        As :func:`derive` does, for the first set that raises.

    Examples
    --------
    >>> from maxent_util import derive_many, Support, Mean
    >>> laws = derive_many([(Support(0, 10), Mean(v)) for v in (2, 3, 4)])
    >>> [round(float(law.numeric.multipliers[0]), 6) for law in laws]
    [0.480101, 0.26721, 0.122993]
    """
    if isinstance(constraint_sets, (Constraint, str, bytes)):
        raise ConstraintError(argument_message(
            "constraint_sets", "derive_many", "an iterable of constraint sets (sequences of Constraint)",
            constraint_sets))
    seconds = _check_arguments((), timeout, digits, method)
    laws: list[CaptimeDistribution] = []
    previous: dict[tuple, tuple] = {}  # shape of a set -> the last two laws of that shape
    for index, constraints in enumerate(constraint_sets):
        if isinstance(constraints, Constraint):
            constraints = (constraints,)
        try:
            constraints = tuple(constraints)
        except TypeError:
            raise ConstraintError(argument_message(
                f"constraint_sets[{index}]", "derive_many", "a sequence of Constraint", constraints)) from None
        shape = tuple((type(c).__name__, c.relation, c.arguments.get("side")) for c in constraints
                      if isinstance(c, Constraint))
        law = None
        if (digits <= FAST_DIGITS and method != "symbolic"
                and all(isinstance(c, Constraint) for c in constraints)):
            neighbours = previous.get(shape, ())
            guess = None
            if len(neighbours) == 2:  # the next point on the line through the last two
                guess = 2 * neighbours[1].multipliers - neighbours[0].multipliers
            law = _fast_law(constraints, seconds, method, start=neighbours[-1] if neighbours else None,
                            guess=guess)
            if law is not None:
                previous[shape] = (*neighbours[-1:], law.numeric)
                law = law._share()
        laws.append(law if law is not None
                    else derive(*constraints, timeout=timeout, digits=digits, method=method))
    return laws


def _fast_law(constraints: tuple, timeout: float | None, method: str,
              start: Any = None, guess: Any = None) -> CaptimeDistribution | None:
    """The law of ``constraints`` by the double-precision route (see :mod:`.fast`), its closed
    form left to be built when first read; None when that route does not take the set (it
    then goes the full way, which also explains any error).  Raises TimeLimitError when the
    route does not finish within ``timeout``."""
    key = (constraints, method)
    if key in _fast_laws:
        _fast_counts[0] += 1
        law = _fast_laws[key]
        return None if law is None else law._with_timeout(timeout)
    _fast_counts[1] += 1
    deadline = Deadline(timeout)
    try:
        problem = fast_problem(constraints)
        numeric = None if problem is None else problem.solve(deadline, start=start, guess=guess)
    except TimeUp:
        raise timed_out(f"derive({', '.join(map(repr, constraints))})", timeout) from None
    if deadline.expired():
        raise timed_out(f"derive({', '.join(map(repr, constraints))})", timeout)
    law = None
    if numeric is not None:
        law = CaptimeDistribution._on_demand(constraints, support_of(constraints), numeric,
                                             functools.partial(_built, constraints, method, numeric), timeout)
    keep(_fast_laws, key, law, _FAST_KEPT)
    return law


def _built(constraints: tuple, method: str, numeric: Any, timeout: float | None) -> CaptimeDistribution:
    """The closed form of a fast-route law (its double-precision law ``numeric``): written out
    from its multipliers where its pieces are of the common forms (see :mod:`.direct`), else the
    full derivation.  A law once handed out never refuses its own parts: where the full numeric
    route cannot reach the law the fast route found (Newton at 30 digits stopping short of a
    multiplier the exact step recognises), the default route builds it."""
    law = direct_law(constraints, numeric, method, Derivation)
    if law is None and any(c.relation != "==" for c in constraints):
        law = _written_with_bounds(constraints, numeric, method, Deadline(timeout))
    if law is not None:
        return law
    try:
        return _derive_cached(constraints, timeout, 30, method)
    except (InfeasibleError, NotNormalizableError, MaximumNotAttainedError, NoClosedFormError):
        if method == "auto":
            raise
    return _derive_cached(constraints, timeout, 30, "auto")


def _written_with_bounds(constraints: tuple, numeric: Any, method: str, deadline: Deadline) -> CaptimeDistribution | None:
    """The closed form of a fast-route law with bounds, written out (see :mod:`.direct`) for the
    active set the fast route found (the bounds whose multipliers are not 0, held as equalities,
    the others dropped), then checked and stated as the full route states the law of an active
    set (:func:`~.kkt.kkt_rows`, :func:`~.kkt.annotate`); None where the writer does not take
    that set or the KKT conditions do not all hold (the full route then searches the active sets
    itself).  Off the main thread with a time limit it leaves the law to the full route, which
    runs there in a process that can be stopped (the KKT check integrates with sympy)."""
    if not (deadline.unbounded or alarm_usable()):
        return None
    moments = [c for c in constraints if type(c) is not Support]
    positions = set(numeric.active)
    active = tuple(c for i, c in enumerate(moments) if i in positions)
    system = tuple(c.as_equality() for c in constraints if c.relation == "==" or c in active)
    try:
        problem = fast_problem(system)
        solved = None if problem is None else problem.solve(deadline)
    except TimeUp:
        return None
    law = None if solved is None else direct_law(system, solved, method, Derivation)
    if law is None:
        return None
    names = global_multipliers(constraints)
    local = {c: t[0] for t in law.derivation.terms for c in constraints if c.as_equality() == t[4]}
    try:
        with time_limit(deadline):
            condition, rows = kkt_rows(law, constraints, active, names, local, deadline)
    except (_SymbolicTimeout, MaxEntError):
        return None
    if condition != sympy.true:
        return None
    return annotate(law, constraints, names, local, ((sympy.true, rows),))


#: laws whose derivation no time limit cut short, by (constraints, digits, method): every step
#: ran to its end, so the same law comes out under any timeout, and a call with another timeout
#: takes it instead of deriving it again (a law that fell back on a cheaper route when time ran
#: out is kept for its own timeout only, by the lru_cache below)
_UNINTERRUPTED_KEPT = 256
_uninterrupted: dict[tuple, CaptimeDistribution] = {}


@functools.lru_cache(maxsize=256)
def _derive_cached(constraints: tuple, timeout: float | None, digits: int, method: str = "auto"):
    key = (constraints, digits, method)
    shared = _uninterrupted.get(key)  # one look-up: another thread may drop the entry meanwhile
    if shared is not None:
        return shared._with_timeout(timeout)
    deadline = Deadline(timeout)
    if timeout is None or alarm_usable():
        law, uninterrupted = _derive_within(constraints, deadline, digits, method)
    else:
        # off the main thread no alarm can interrupt sympy: a worker process that can be killed
        try:
            law, uninterrupted = run_bounded(_derive_within, constraints, deadline, digits, method,
                                             deadline=deadline.extended(_GRACE))
        except _SymbolicTimeout:
            raise timed_out(f"derive({', '.join(map(repr, constraints))})", timeout) from None
    if uninterrupted:
        keep(_uninterrupted, key, law, _UNINTERRUPTED_KEPT)
    return law


def _derive_within(constraints: tuple, deadline: Deadline, digits: int, method: str = "auto"):
    """The derivation, every step bounded by ``deadline`` (alarms: call on a main thread), and
    whether it ran without any time limit ringing (counted where it runs, which may be a worker
    process)."""
    timeout = deadline.seconds
    before = rings()
    try:
        with time_limit(deadline.extended(_GRACE)):
            if any(c.relation != "==" for c in constraints):
                law = _derive_active_set(constraints, deadline, digits, method)
            else:
                law = _derive_steps(constraints, deadline, digits, method)
    except _SymbolicTimeout:
        raise timed_out(f"derive({', '.join(map(repr, constraints))})", timeout) from None
    return law, rings() == before


def _derive_active_set(constraints: tuple, deadline: Deadline, digits: int, method: str = "auto"):
    """The law of constraints with inequalities, by active sets (see :mod:`.kkt`).

    Each subset of the inequalities, smallest first, is held as equalities (the others dropped)
    and its law derived; the law whose multipliers have the right signs and at which every dropped
    inequality holds is the answer (the problem is convex: the KKT conditions single it out).
    With numbers the first such law is returned; with symbolic parameters every active set whose
    conditions can hold is kept, and the law is a Piecewise over those conditions."""
    support = support_of(constraints)
    for constraint in constraints:
        # a region outside the support is an error whatever the active set
        make_terms([constraint.as_equality()], support)
    names = global_multipliers(constraints)
    inequalities = [c for c in constraints if c.relation != "=="]
    numbers = not set().union(*(c.free_symbols for c in constraints))
    cases: list = []
    failures: list[MaxEntError] = []
    for size in range(len(inequalities) + 1):
        for active in itertools.combinations(inequalities, size):
            system = tuple(c.as_equality() for c in constraints if c.relation == "==" or c in active)
            try:
                solved = _solve_steps(system, deadline, digits, method)
                # with numbers the KKT conditions are read off the density alone, and the CDF is
                # written for the answer only (about half of each rejected candidate's time)
                density = solved.density() if numbers else None
                law = solved.candidate(density) if numbers else solved.law()
            except (InfeasibleError, NotNormalizableError) as error:
                failures.append(error)
                continue
            local = {c: t[0] for t in law.derivation.terms for c in constraints if c.as_equality() == t[4]}
            condition, rows = kkt_rows(law, constraints, active, names, local, deadline)
            if condition == sympy.false:
                continue
            if numbers:
                law = solved.law(density)
            law = annotate(law, constraints, names, local, ((sympy.true, rows),))
            cases.append((condition, law))
            if condition == sympy.true:
                return merge(cases, constraints)
    if cases:
        return merge(cases, constraints)
    stated = ", ".join(map(repr, constraints))
    if numbers and not reachable(constraints, support):
        raise InfeasibleError(
            f"no distribution on the support [{support[0]}, {support[1]}] meets {stated} at once. "
            "Suggestion: loosen one of the bounds.")
    if numbers and any(isinstance(f, NotNormalizableError) for f in failures):
        raise NotNormalizableError(
            f"the entropy under {stated} has no maximum: no active set of the inequalities gives a "
            "normalisable density whose multipliers have the signs the bounds require. Suggestion: "
            "bound the support, or add a constraint that controls the tail.")
    if not numbers:
        raise NoClosedFormError(
            f"no active set of the inequalities in {stated} meets the KKT conditions for any value of "
            f"the parameters that sympy could establish. Suggestion: substitute numbers for the parameters.")
    raise InfeasibleError(
        f"no active set of the inequalities in {stated} gives a density meeting every constraint "
        f"({'; '.join(str(f) for f in failures[:2]) or 'each candidate broke a bound or a sign'}).")


@dataclass(frozen=True)
class _Solved:
    """A law's multipliers found, before its closed form is written (see :func:`_solve_steps`)."""

    constraints: tuple
    support: tuple
    pieces: list
    terms: list
    multipliers: dict
    parts: list
    closed_form: bool
    record: Derivation
    deadline: Deadline

    def density(self) -> dict[str, Any]:
        return density_parts(self.constraints, self.pieces, self.terms, self.multipliers, self.parts,
                             self.closed_form, self.deadline)

    def law(self, density: dict[str, Any] | None = None) -> CaptimeDistribution:
        # the last steps (simplifying, the cdf) get what is left: each gives up its cosmetic work in time
        return CaptimeDistribution._from_solution(
            self.constraints, self.support, self.pieces, self.terms, self.multipliers, self.parts,
            self.closed_form, self.record, self.deadline.seconds, deadline=self.deadline, density=density)

    def candidate(self, density: dict[str, Any]) -> SimpleNamespace:
        """What the KKT conditions read of the law (its multipliers and density), without its CDF."""
        return SimpleNamespace(support=self.support, breakpoints=self.record.breakpoints,
                               _pdf_pieces=density["pdf_pieces"], _scales=[p.scale for p in self.pieces],
                               multipliers=density["multipliers"], closed_form=self.closed_form,
                               parameters=(), derivation=self.record)


def _derive_steps(constraints: tuple, deadline: Deadline, digits: int, method: str = "auto"):
    return _solve_steps(constraints, deadline, digits, method).law()


def _solve_steps(constraints: tuple, deadline: Deadline, digits: int, method: str = "auto") -> _Solved:
    timeout = deadline.seconds
    support = support_of(constraints)
    terms, interior = make_terms(constraints, support)
    points, pieces = build_pieces(support, terms, interior)
    check_ranges(terms, support)
    stationary = stationary_density(pieces)
    record_terms = [(t.multiplier, t.feature.expr, (t.feature.lower, t.feature.upper), t.feature.value,
                     t.constraint) for t in terms]
    if support[1] == oo and not terms:
        raise NotNormalizableError(
            f"the support [{support[0]}, oo) alone has no maximum-entropy density: a constant density "
            "cannot be normalised on an unbounded interval. Suggestion: add a Mean, a LogMoment or a "
            "bounded Support.")

    parts = partition = solution = None
    equations: list = []
    free = set().union(*(c.free_symbols for c in constraints)) if constraints else set()
    # integration and solving share one deadline; with numbers, half of it is kept for numerics
    symbolic = (deadline if free or timeout is None or method == "symbolic"
                else deadline.within(_SYMBOLIC_SHARE * timeout))
    if method != "numeric":  # method="numeric" skips the symbolic attempt
        try:
            with time_limit(symbolic):
                parts = symbolic_partition(pieces, terms)
                if parts is not None:
                    partition = sympy.Add(*parts)
                    equations = multiplier_equations(terms, partition, pieces)
                    solution = solve_symbolic(terms, equations)
        except _SymbolicTimeout:
            pass
        except MaxEntError:
            raise
        except Exception:  # sympy raises many kinds when it cannot integrate or solve
            pass

    notes: list[str] = []
    if solution is not None and parts is not None:
        # a root where the generic integral is 0/0 (lambda = 0, or 1 on kappa**-lambda): check it
        # with the integrals done at the root itself, else let the numeric route decide
        at_root = parts_at_root(pieces, parts, solution, deadline)
        if at_root is None:
            solution = None
        else:
            parts = at_root
    if solution is None and method == "symbolic":
        raise NoClosedFormError(
            f"no closed form was found for the multipliers of {', '.join(map(repr, constraints))}"
            + ("" if timeout is None else f" within {timeout:g} s")
            + ". Suggestion: use method='auto' for the numeric route, or raise `timeout`.")
    if solution is not None:
        multipliers, closed_form, method = solution, True, "symbolic"
    else:
        if free:
            within = "" if timeout is None else f" within {timeout:g} s"
            raise NoClosedFormError(
                "no closed form was found for the multipliers of "
                f"{', '.join(map(repr, constraints))}{within}, and the numeric route needs "
                f"numbers for {', '.join(sorted(s.name for s in free))}. Suggestion: substitute values "
                "for the parameters, or raise `timeout`.")
        try:
            with time_limit(deadline):
                problem, multipliers, notes = _numeric_solution(constraints, pieces, terms, digits, partition,
                                                               deadline)
        except _SymbolicTimeout:
            raise timed_out(f"the numeric solution for the multipliers of "
                            f"{', '.join(map(repr, constraints))}", timeout) from None
        closed_form = False
        method = "numeric (closed-form integrals)" if partition is not None else "numeric (quadrature)"
        recognised = recognise_exact(problem, pieces, terms, multipliers, digits, deadline)
        if recognised is not None:
            multipliers, exact_parts = recognised
            if exact_parts is not None:
                parts, closed_form = exact_parts, True
                method = "symbolic (multipliers recognised from the numeric root, verified exactly)"
        if parts is not None and not closed_form and not all(
                positive_number(part.subs(multipliers)) for part in parts):
            # the generic closed form can lose everything at a tiny multiplier (exp(1/(4 lambda))
            # with lambda = -2e-17): quadrature instead
            parts = None
        if parts is None:
            parts = problem.piece_integrals(multipliers, digits)
    relations = [sympy.Eq(eq, 0) for eq in equations]

    record = Derivation(support, record_terms, points, stationary, partition, relations, method, notes)
    return _Solved(constraints, support, pieces, terms, multipliers, parts, closed_form, record, deadline)


#: the numeric solutions kept (see _numeric_solution)
_SOLUTIONS_KEPT = 64
_solutions: dict[tuple, tuple] = kept_store()


def _numeric_solution(constraints: tuple, pieces: list, terms: list, digits: int,
                      partition: sympy.Expr | None, deadline: Deadline | None = None) -> tuple:
    """The numeric problem of the constraints and its solution to ``digits`` (multipliers, notes),
    kept per process: a law derived again (``method="numeric"`` after ``"auto"`` when sympy has no
    closed-form partition function, or after ``derive.cache_clear()``) reuses the root, which
    depends on the constraints, the digits and the closed-form partition function (None, or the
    one the polish uses) alone.  A failed solve is not kept."""
    key = (constraints, digits, None if partition is None else sympy.srepr(partition))
    if key in _solutions:
        problem, multipliers, notes = _solutions[key]
        return problem, dict(multipliers), list(notes)
    problem = NumericProblem(pieces, terms)
    # a double-precision root that is exactly a small fraction (the uniform law's 0) needs no
    # polish: recognise_exact, which every solution goes through, makes the polished root that
    # same fraction (0.6 s of mpmath quadrature for Support(0, 7200), Mean(3600))
    multipliers, notes = problem.solve(
        digits, partition=partition,
        exact=lambda point: exact_double_root(problem, pieces, terms, point, deadline))
    keep(_solutions, key, (problem, dict(multipliers), list(notes)), _SOLUTIONS_KEPT)
    return problem, multipliers, notes


def _forget_laws() -> None:
    """Forget every law derived; the engine's results (integrals, numeric roots, ...) stay."""
    _derive_cached.cache_clear()
    _fast_laws.clear()
    _uninterrupted.clear()


def _cache_clear() -> None:
    """Forget every law derived and every result the engine keeps (integrals, simplified
    pieces of Z, log scales, numeric solutions): the next derivation is cold."""
    _forget_laws()
    clear_kept()


# ``maxent_util.derive`` is this function once the package re-exports it, so its cache is
# reachable from it: ``derive.cache_clear()`` (benchmarks, tests: everything the engine keeps)
# and ``derive.cache_info()`` (the laws kept)
derive.cache_clear = _cache_clear  # type: ignore[attr-defined]
def _cache_info() -> functools._CacheInfo:
    """The laws kept, counted over both routes (the fast one and the full one)."""
    full = _derive_cached.cache_info()
    return functools._CacheInfo(_fast_counts[0] + full.hits, _fast_counts[1] + full.misses,
                                _FAST_KEPT + (full.maxsize or 0), len(_fast_laws) + full.currsize)


derive.cache_info = _cache_info  # type: ignore[attr-defined]
