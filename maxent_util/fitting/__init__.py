"""The captime law learned from records of real waiting (:func:`fit_captime`).

A log of how long people waited holds two kinds of record: the time a person gave up (the
captime itself) and the time an answer came while the person was still waiting (a
right-censored captime: it is known only to exceed that time).  The maximum-entropy law of
moment constraints E[g_i(kappa)] = v_i is the exponential family
f(kappa) = exp(-sum_i lambda_i g_i(kappa)) / Z(lambda) on the support, so stating which
expectations the data should fix (the *kinds*: ``"mean"`` for kappa, ``"log"`` for
log kappa, ``"log2"`` for (log kappa)**2) names a family, and the values come from the data
by maximum likelihood.  Without censoring the likelihood equations are the moment equations
(the fitted law has the sample's moments); with censoring a censored record adds log SF at its
time to the log-likelihood.

Each kind set has its family written in closed form (its normaliser and survival function with
scipy.special, in log space): ``mean`` is the exponential law (truncated on a bounded support),
``log`` the Pareto or power law, ``log`` + ``log2`` the log-normal (truncated on a bounded
support), ``mean`` + ``log`` the gamma law, ``log_below`` + ``log_above`` (the conditional
log-moments on either side of kappa0, the density continuous there) the generalized
log-Laplace law.  The fit minimises the negative log-likelihood with
scipy.optimize in an unconstrained parametrisation; the law handed out is then derived by
:func:`~maxent_util.derive` (or its preset) from the constraints whose values are the fitted
moments, and checked against the family's closed form at the data's quantiles.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import math
from typing import Any, Sequence

import numpy as np
import pandas as pd
import sympy

from ..bootstrap import check_level, generator
from ..distribution import CaptimeDistribution
from ..errors import DataError, MaxEntError, argument_message, short
from ..expressions import numpy_modules
from ..maxent import derive
from ..runs import _runs_array, first_bad
from ..symbols import kappa
from .closed_forms import INF, Family, in_seconds
from .likelihood import Data, NoMaximum, cross_validated, fit_one, location_interval, profile_interval
from .reading import read_waiting_times

__all__ = ["fit_captime", "CaptimeFit", "ModelFit", "read_waiting_times", "KINDS", "KIND_SETS", "CRITERIA"]

OWNER = "fit_captime"

#: the kinds of sufficient statistic, each with the constraint kind whose expectation it fixes
KINDS: dict[str, str] = {"mean": "Mean", "log": "LogMoment", "log2": "SquaredLogDeviation",
                         "log_below": "LogMoment(side='below')", "log_above": "LogMoment(side='above')"}

#: the kind sets fitted (in this order) when ``kinds`` is not given, with their families
KIND_SETS: dict[tuple[str, ...], str] = {
    ("mean",): "exponential",
    ("log",): "Pareto (power law)",
    ("log", "log2"): "log-normal",
    ("mean", "log"): "gamma",
    ("log_below", "log_above"): "generalized log-Laplace",
}

#: how :func:`fit_captime` chooses between kind sets
CRITERIA = ("aic", "bic", "cv")

#: a fitted law's log-density may differ from its family's closed form by at most this much
#: (the derived law is checked at the data's quantiles when it is made)
_LAW_AGREEMENT = 1e-6


# ---------------------------------------------------------------------------
# the public records


@dataclasses.dataclass(frozen=True)
class ModelFit:
    """The maximum-likelihood fit of one kind set.

    Attributes
    ----------
    kinds : the kinds of sufficient statistic, e.g. ``("log", "log2")``.
    family : the family they give on the support, e.g. ``"log-normal"``.
    support : (lower, upper) of the law.
    parameters : parameter name -> maximum-likelihood estimate.
    intervals : parameter name -> (lower, upper) profile-likelihood interval at ``level``.
    loglik : the log-likelihood at the estimate (censored records contribute log SF).
    n_parameters : the number of fitted parameters, a support end (the Pareto law's) or a kappa0
        (the log-Laplace law's) fitted from the data included.
    aic, bic : Akaike's and Schwarz's criteria, -2 loglik + 2k and -2 loglik + k log n.
    cv_loglik : the cross-validated log-likelihood (the sum over folds of the held-out records'
        log-likelihood under the fit to the other folds), or None when not asked for.
    note : why the fit is missing or incomplete, or why it is a nested family's law (a
        supremum on the boundary of the kind set's family: ``family``, ``support`` and
        ``parameters`` are then the nested law's); empty when there is nothing to say.
    """

    kinds: tuple[str, ...]
    family: str
    support: tuple[float, float]
    parameters: dict[str, float]
    intervals: dict[str, tuple[float, float]]
    loglik: float
    n_parameters: int
    aic: float
    bic: float
    cv_loglik: float | None = None
    note: str = ""

    @property
    def fitted(self) -> bool:
        """Whether the kind set has a fit to use and compare (a note may still explain it)."""
        return bool(self.parameters) and not (self.cv_loglik is not None and math.isnan(self.cv_loglik))


@dataclasses.dataclass(frozen=True)
class CaptimeFit:
    """What :func:`fit_captime` found: every kind set's fit, the chosen one and its law.

    Attributes
    ----------
    models : kinds -> :class:`ModelFit`, in the order fitted.
    chosen : the kinds of the model the criterion prefers.
    criterion : ``"aic"``, ``"bic"`` or ``"cv"``.
    level : the confidence level of the intervals.
    provenance : ``sha256`` of the data (little-endian float64 times, then one byte per record,
        1 for censored), ``n``, ``censored`` (their count), ``criterion``, ``kinds``, ``intervals``.
    """

    models: dict[tuple[str, ...], ModelFit]
    chosen: tuple[str, ...]
    criterion: str
    level: float
    provenance: dict[str, Any]
    _families: dict = dataclasses.field(default_factory=dict, repr=False, compare=False)
    _data: Any = dataclasses.field(default=None, repr=False, compare=False)

    @property
    def law(self) -> CaptimeDistribution:
        """The chosen model's captime law (see :meth:`law_of`)."""
        return self.law_of(self.chosen)

    def law_of(self, kinds: Sequence[str]) -> CaptimeDistribution:
        """The maximum-entropy law of one fitted kind set, as an ordinary distribution.

        Parameters
        ----------
        kinds : sequence of str
            One of the fitted kind sets, e.g. ``("log", "log2")``.

        Returns
        -------
        CaptimeDistribution
            The law derived from the constraints whose values are the fitted moments (the
            sample's moments without censoring); its ``notes`` hold the provenance.

        Raises
        ------
        DataError
            If ``kinds`` is not one of the fitted kind sets.
        MaxEntError
            If the derived law disagrees with the family's closed form at the fitted parameters.
        """
        key = tuple(kinds) if not isinstance(kinds, str) else (kinds,)
        if key not in self.models or not self.models[key].fitted:
            fitted = ", ".join("+".join(k) for k, m in self.models.items() if m.fitted)
            raise DataError(argument_message("kinds", "CaptimeFit.law_of",
                                             f"one of the fitted kind sets ({fitted})", kinds))
        return _built_law(self, key)

    @property
    def table(self) -> pd.DataFrame:
        """The models side by side: one row per kind set, best first by the criterion."""
        rows = []
        for kinds, model in self.models.items():
            row = {"kinds": "+".join(kinds), "family": model.family, "parameters": model.n_parameters,
                   "loglik": model.loglik, "aic": model.aic, "bic": model.bic}
            if self.criterion == "cv":
                row["cv_loglik"] = model.cv_loglik
            row["chosen"] = kinds == self.chosen
            row["note"] = model.note
            rows.append(row)
        frame = pd.DataFrame(rows).set_index("kinds")
        column = "cv_loglik" if self.criterion == "cv" else self.criterion
        best = frame[column].max() if self.criterion == "cv" else frame[column].min()
        frame.insert(frame.columns.get_loc("chosen"), "delta", (frame[column] - best).abs())
        ascending = self.criterion != "cv"
        return frame.sort_values(column, ascending=ascending, na_position="last")

    @property
    def estimates(self) -> pd.DataFrame:
        """Every model's parameters with their profile-likelihood intervals, one row each."""
        rows = [{"kinds": "+".join(kinds), "parameter": name, "estimate": value,
                 "lower": model.intervals[name][0], "upper": model.intervals[name][1]}
                for kinds, model in self.models.items() for name, value in model.parameters.items()]
        return pd.DataFrame(rows, columns=["kinds", "parameter", "estimate", "lower", "upper"])


@functools.lru_cache(maxsize=64)
def _cached_law(family: Family, moments: tuple, values: tuple, note: str, name: str
                ) -> CaptimeDistribution:
    p = dict(values)
    law = family.preset(p) if moments == () else None
    if law is None:
        # the values are floats from an optimiser: no closed form to find, straight to Newton
        law = derive(*moments, method="numeric")
    # the note goes into the derivation, so a law from derive's fast route is built here (naming
    # it would build it too): its closed form is what the JSON document and the utility need
    record = law.derivation
    law = law._evolve(derivation=dataclasses.replace(record, notes=tuple(record.notes) + (note,)))
    return law.with_name(name)._share()


def _built_law(fit: CaptimeFit, kinds: tuple[str, ...]) -> CaptimeDistribution:
    model = fit.models[kinds]
    family = fit._families[kinds]
    # the catalogue's preset where it is the law, else the support and the fitted moments
    moments = () if family.has_preset else family.law_constraints(model.parameters)
    provenance = fit.provenance
    choice = (f"chosen by {fit.criterion.upper()} among {', '.join('+'.join(k) for k in fit.models)}"
              if kinds == fit.chosen else f"not the model {fit.criterion.upper()} chose")
    boundary = f" ({model.note})" if model.note else ""
    note = (f"fitted by maximum likelihood (kinds {'+'.join(kinds)}, {model.family}{boundary}) to "
            f"{provenance['n']} waiting times, {provenance['censored']} of them right-censored; "
            f"data sha256 {provenance['sha256']}; {choice}")
    name = f"fit({'+'.join(kinds)}, n={provenance['n']}, censored={provenance['censored']})"
    law = _cached_law(family, moments, tuple(sorted(model.parameters.items())), note, name)
    _check_law(law, family, model.parameters, fit._data)
    return law


def _check_law(law: CaptimeDistribution, family: Family, p: dict[str, float], data: Data) -> None:
    """The derived law must be the fitted family member: log-densities agree at the data's
    quantiles (a second route, as a compiled scorer checks itself)."""
    points = np.quantile(np.concatenate([data.events, data.censored]), [0.1, 0.5, 0.9])
    points = points[(points > family.lower) & (points < family.upper)]
    if not points.size:
        return
    numbers = law.numeric  # the fast route's double-precision law: no closed form needed
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        if numbers is not None:
            density = numbers.pdf(points)
        else:  # a preset's closed form (no scipy.stats distribution built for three points)
            density = sympy.lambdify(kappa, law.pdf, numpy_modules(law.pdf))(points)
        derived = np.log(np.broadcast_to(np.asarray(density, dtype=float), points.shape))
    expected = family.logpdf(points, p)
    gap = float(np.max(np.abs(derived - expected)))
    if not gap <= _LAW_AGREEMENT * max(1.0, float(np.max(np.abs(expected)))):
        raise MaxEntError(
            f"the law derived from the fitted moments ({', '.join(map(repr, law.constraints))}) "
            f"differs from the fitted {family.name} law by {gap:.3g} in log-density at "
            f"{', '.join(f'{x:.6g}' for x in points)}; it is not handed out.")


# ---------------------------------------------------------------------------
# arguments


def _check_times(times: Any, censored: Any) -> tuple[np.ndarray, np.ndarray]:
    if isinstance(times, (list, tuple)):
        # numpy reads [1.0, True] as two floats: a flag among the times is a mistake
        bad = next((i for i, v in enumerate(times) if isinstance(v, (bool, np.bool_, str, bytes))), None)
        if bad is not None:
            raise DataError(argument_message(f"times[{bad}]", OWNER, "a number (not True/False or text)",
                                             short(times[bad])))
    values = _runs_array(times, "times", OWNER)
    n = values.shape[0]
    if n == 0:
        raise DataError(argument_message("times", OWNER, "non-empty", "no records"))
    bad = first_bad(~(np.isfinite(values) & (values >= 0)))
    if bad is not None:
        raise DataError(argument_message(f"times[{bad}]", OWNER, "a finite nonnegative number of "
                                         "seconds", float(values[bad])))
    if censored is None:
        flags = np.zeros(n, bool)
    else:
        if isinstance(censored, (str, bytes)) or np.ndim(censored) != 1:
            raise DataError(argument_message("censored", OWNER, "None or one True/False per time",
                                             short(censored)))
        raw = np.asarray(censored, dtype=object)
        if raw.shape[0] != n:
            raise DataError(argument_message("censored", OWNER, f"of length {n} (one flag per time)",
                                             raw.shape[0]))
        bad = first_bad(~np.array([isinstance(v, (bool, np.bool_)) or (
            isinstance(v, (int, np.integer)) and v in (0, 1)) for v in raw], bool))
        if bad is not None:
            raise DataError(argument_message(f"censored[{bad}]", OWNER, "True or False (or 1 or 0)",
                                             short(raw[bad])))
        flags = raw.astype(bool)
    if flags.all():
        raise DataError(argument_message(
            "censored", OWNER, "False for at least one record (a time someone stopped waiting)",
            f"all {n} censored", "Every record only says that the wait went on; no law can be "
            "fitted without a single captime."))
    return values, flags


def _check_kind_sets(kinds: Any) -> list[tuple[str, ...]]:
    if kinds is None:
        return list(KIND_SETS)
    if isinstance(kinds, str):
        sets = [(kinds,)]
    elif isinstance(kinds, (list, tuple)) and kinds and all(isinstance(k, str) for k in kinds):
        sets = [tuple(kinds)]
    elif isinstance(kinds, (list, tuple)) and kinds and all(
            isinstance(k, (list, tuple)) and k and all(isinstance(s, str) for s in k) for k in kinds):
        sets = [tuple(k) for k in kinds]
    else:
        raise DataError(argument_message(
            "kinds", OWNER, "a kind set such as ('log', 'log2'), a list of kind sets, or None",
            short(kinds)))
    known = {frozenset(s): s for s in KIND_SETS}
    chosen = []
    for kind_set in sets:
        unknown = [k for k in kind_set if k not in KINDS]
        if unknown:
            raise DataError(argument_message("kinds", OWNER, f"made of the kinds {', '.join(KINDS)}",
                                             unknown[0]))
        canonical = known.get(frozenset(kind_set))
        if canonical is None or len(set(kind_set)) != len(kind_set):
            raise DataError(argument_message(
                "kinds", OWNER, "one of the kind sets with a family: "
                + ", ".join(f"{'+'.join(s)} ({f})" for s, f in KIND_SETS.items()), kind_set))
        if canonical in chosen:
            raise DataError(argument_message("kinds", OWNER, "kind sets each named once", kind_set))
        chosen.append(canonical)
    return chosen


def _check_support(support: Any) -> tuple[float, float] | None:
    if support is None:
        return None
    try:
        lower, upper = (float(end) for end in support)
        valid = not isinstance(support, (str, bytes)) and all(
            not isinstance(end, (bool, np.bool_, str, bytes)) for end in support)
    except (TypeError, ValueError, OverflowError):
        valid = False
    if not valid or not (0 <= lower < upper) or not math.isfinite(lower):
        raise DataError(argument_message("support", OWNER, "None or a pair (lower, upper) with "
                                         "0 <= lower < upper (upper may be inf)", short(support)))
    return lower, upper


def _no_fit(kinds: tuple[str, ...], bounds: tuple[float, float] | None, reason: str) -> ModelFit:
    """The record of a kind set without a fit: in the table, never chosen."""
    return ModelFit(kinds, KIND_SETS[kinds], bounds or (0.0, INF), {}, {}, -INF, 0, INF, INF, None,
                    f"no fit: {reason}")


def _end_in_seconds(name: str, value: float, k: int) -> float:
    """An interval's end in seconds: beyond a double it is the end of the parameter's range."""
    try:
        return in_seconds(name, value, k)
    except OverflowError:
        return math.copysign(INF, value)


def _unit_exponent(values: np.ndarray, bounds: tuple[float, float] | None) -> int:
    """The k of the unit 2**k seconds the fit is made in: the median positive time's binary
    exponent (a power of two rescales a double without rounding). A time or support end more
    than 2**960 (about 1e289) times the median is refused by name (in that unit a sum of a few
    million times stays inside the range of a double), and so is one that would be a subnormal
    number in that unit (its digits lost)."""
    positive = values[values > 0]
    k = math.frexp(float(np.median(positive)))[1] - 1 if positive.size else 0
    ends = np.array([] if bounds is None else [end for end in bounds if math.isfinite(end)])
    for arg, numbers in (("times", values), ("support", ends)):
        with np.errstate(over="ignore"):  # beyond a double: refused below
            moved = np.ldexp(numbers, -k)
        bad = first_bad(~(moved <= 2.0 ** 960) | ((numbers > 0) & (moved < np.finfo(float).tiny)))
        if bad is not None:
            raise DataError(argument_message(
                f"times[{bad}]" if arg == "times" else arg, OWNER,
                f"at most 1e289 times the median time ({2.0 ** k:.3g} s) and at least its 1e-308th "
                "(a fit in double precision cannot hold both)", float(numbers[bad])))
    return k


def _sha256(times: np.ndarray, flags: np.ndarray) -> str:
    digest = hashlib.sha256()
    digest.update(np.ascontiguousarray(times, dtype="<f8").tobytes())
    digest.update(flags.astype(np.uint8).tobytes())
    return digest.hexdigest()


# ---------------------------------------------------------------------------
# the entry point


def fit_captime(times: Any, censored: Any = None, *, kinds: Any = None,
                support: Any = None, criterion: str = "aic", level: float = 0.95,
                folds: int = 5, seed: Any = 0) -> CaptimeFit:
    r"""The maximum-entropy captime law learned from records of real waiting.

    Each kind set names the expectations the law should fix (``"mean"``: E[kappa],
    ``"log"``: E[log kappa], ``"log2"``: E[(log kappa)^2]); its maximum-entropy law is the
    exponential family

    .. math:: f(\kappa) = \exp\Big(-\sum_i \lambda_i g_i(\kappa)\Big) / Z(\lambda)

    on the support, fitted by maximum likelihood. A censored record (a person still waiting
    when the answer came) adds :math:`\log S(c)` at its time :math:`c` to the log-likelihood.

    Parameters
    ----------
    times : array_like of float
        Waiting times in seconds: when a person gave up, or, for a censored record, how long
        they had waited when the answer came.
    censored : array_like of bool, optional
        True where the record is right-censored (the captime exceeds its time); None: none is.
    kinds : tuple of str, list of tuples, or None, keyword-only
        One kind set (``("log", "log2")``) or several to choose from; None fits every set of
        :data:`KIND_SETS`: ``mean`` (exponential), ``log`` (Pareto), ``log+log2`` (log-normal),
        ``mean+log`` (gamma), ``log_below+log_above`` (generalized log-Laplace, its kappa0 fitted
        too).
    support : (float, float), optional, keyword-only
        The support [lower, upper] of the law (upper may be ``inf``). None: [0, inf), except for
        ``log`` alone, whose lower end is fitted as the smallest captime (the Pareto law's
        maximum-likelihood scale, counted as a parameter).
    criterion : {"aic", "bic", "cv"}, keyword-only
        How the model is chosen: the smallest AIC or BIC, or the largest cross-validated
        log-likelihood over ``folds`` folds. AIC and BIC are reported in every case.
    level : float, keyword-only
        Confidence level of the profile-likelihood intervals of the parameters.
    folds : int, keyword-only
        Number of folds for ``criterion="cv"`` (records assigned at random by ``seed``).
    seed : int, numpy.random.Generator or None, keyword-only
        The seed of the folds' assignment.

    Returns
    -------
    CaptimeFit
        ``models`` (each kind set's :class:`ModelFit`), ``table`` (side by side), ``estimates``
        (parameters with intervals), ``chosen``, and ``law``: the chosen law, an ordinary
        :class:`~maxent_util.CaptimeDistribution` whose ``notes`` give the provenance.

    Raises
    ------
    DataError
        If ``times`` is empty or holds a negative, infinite or NaN value; ``censored`` is not one
        flag per time or flags every record; ``kinds``, ``support``, ``criterion``, ``level``,
        ``folds`` or ``seed`` is not one of the values described; a time lies outside
        ``support``; or no kind set has a maximum-likelihood fit on the data.

    Notes
    -----
    Without censoring, maximum likelihood in an exponential family matches the sufficient
    statistics' sample means: the fitted law is the maximum-entropy law of the constraints
    whose values are the data's moments. The intervals are profile-likelihood intervals:
    where twice the drop of the profile log-likelihood reaches the chi-square(1) quantile (the
    other parameters maximised at each value; where it never drops that far, the end of the
    parameter's domain).

    Examples
    --------
    >>> import numpy as np
    >>> times = np.random.default_rng(1).exponential(60.0, size=200)
    >>> fit = fit_captime(times, kinds=("mean",))
    >>> round(1 / fit.models[("mean",)].parameters["rate"], 6) == round(float(times.mean()), 6)
    True
    """
    values, flags = _check_times(times, censored)
    kind_sets = _check_kind_sets(kinds)
    bounds = _check_support(support)
    if not (isinstance(criterion, str) and criterion in CRITERIA):
        raise DataError(argument_message("criterion", OWNER, f"one of {', '.join(map(repr, CRITERIA))}",
                                         short(criterion)))
    level = check_level(level, OWNER, "level")
    rng = generator(seed, OWNER)
    data = Data(values[~flags], values[flags])
    n = values.shape[0]
    if criterion == "cv" and (isinstance(folds, (bool, np.bool_)) or not isinstance(folds, (int, np.integer))
                              or not 2 <= folds <= n):
        raise DataError(argument_message("folds", OWNER, f"an integer from 2 to the number of "
                                         f"records ({n})", short(folds)))
    if bounds is not None:
        lower, upper = bounds
        bad = first_bad((data.events < lower) | (data.events > upper))
        if bad is not None:
            index = int(np.flatnonzero(~flags)[bad])
            raise DataError(argument_message(f"times[{index}]", OWNER, f"within the support "
                                             f"[{lower:g}, {upper:g}]", float(values[index])))
        bad = first_bad(data.censored >= upper)
        if bad is not None:
            index = int(np.flatnonzero(flags)[bad])
            raise DataError(argument_message(
                f"times[{index}]", OWNER, f"below the support's upper end {upper:g} (a censored "
                "record says the captime exceeds it)", float(values[index])))

    assignment = rng.permutation(n) % folds if criterion == "cv" else None
    k = _unit_exponent(values, bounds)
    data_in_units = Data(np.ldexp(data.events, -k), np.ldexp(data.censored, -k))
    bounds_in_units = None if bounds is None else (math.ldexp(bounds[0], -k), math.ldexp(bounds[1], -k))
    log_unit = data.events.size * k * math.log(2.0)  # each captime's log-density is log(2**k) lower
    models: dict[tuple[str, ...], ModelFit] = {}
    families: dict[tuple[str, ...], Family] = {}
    for kind_set in kind_sets:
        try:
            fit = fit_one(kind_set, bounds_in_units, data_in_units)
        except NoMaximum as reason:
            models[kind_set] = _no_fit(kind_set, bounds, str(reason))
            continue
        family, p = fit.family, fit.parameters
        u_hat = family.internal(p)
        try:
            with np.errstate(all="ignore"):  # the root finders' probes may overflow: refused as 1e300
                intervals = {name: profile_interval(family, data_in_units, u_hat, fit.loglik, index, level)
                             for index, name in enumerate(family.parameter_names)}
                if family.located():
                    intervals["kappa0"] = location_interval(data_in_units, family, p, fit.loglik, level)
        except NoMaximum as reason:
            models[kind_set] = _no_fit(kind_set, bounds, str(reason))
            continue
        p = {**family.located(), **p}
        cv = (cross_validated(kind_set, bounds_in_units, data_in_units, assignment) - log_unit
              if criterion == "cv" else None)
        note = fit.note
        if cv is not None and math.isnan(cv):
            note = "no cross-validated log-likelihood: the training records of a fold have no fit"
        loglik, k_model = fit.loglik - log_unit, fit.n_parameters
        try:
            family = family.in_seconds(k)
            p = {name: in_seconds(name, value, k) for name, value in p.items()}
        except OverflowError:
            models[kind_set] = _no_fit(kind_set, bounds, "a fitted parameter in seconds lies beyond "
                                       "the range of a double")
            continue
        intervals = {name: (_end_in_seconds(name, low, k), _end_in_seconds(name, high, k))
                     for name, (low, high) in intervals.items()}
        models[kind_set] = ModelFit(
            kind_set, family.name, (family.lower, family.upper), p, intervals,
            loglik, k_model, -2 * loglik + 2 * k_model, -2 * loglik + k_model * math.log(n), cv, note)
        families[kind_set] = family
    usable = {kinds: m for kinds, m in models.items() if m.fitted}
    if not usable:
        raise DataError(argument_message(
            "times", OWNER, "data with a maximum-likelihood fit for at least one kind set",
            short(values.tolist()), "; ".join(f"{'+'.join(k)}: {m.note}" for k, m in models.items())))
    if criterion == "cv":
        chosen = max(usable, key=lambda kinds: usable[kinds].cv_loglik)  # -inf: a held-out time impossible
    else:
        chosen = min(usable, key=lambda kinds: getattr(usable[kinds], criterion))
    provenance = {"sha256": _sha256(values, flags), "n": int(n), "censored": int(flags.sum()),
                  "criterion": criterion, "kinds": chosen,
                  "intervals": f"profile likelihood, {level:g}"}
    return CaptimeFit(models, chosen, criterion, level, provenance, families, data)
