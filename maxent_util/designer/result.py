"""The designed utility: the law of the facts (a preset when they are one, else derived once),
its utility for a constant value or for money, and what is handed over (spec, JSON, plot, words)."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

import numpy as np
import sympy

from .._output import atomic_file
from ..catalogue import family_constraints
from ..constraints import Support
from ..documents import to_json
from ..errors import MaxEntError, MissingExtraError, argument_message, short
from ..families import parse_family
from ..maxent import derive
from ..rules import parse_rule
from ..symbols import kappa, t
from ..utility import expected_utility, linear_compute, step
from .facts import Fact, check_complete, constraint_text, read_answer, support_ends
from .questions import (BY_KEY, FACT_KEYS, MAX_SPEC_LENGTH, MONEY_SYMBOLIC_SECONDS, NICE_TIMES, OWNER,
                        QUESTIONS, DesignError, read_seconds, refuse, say)

# ---------------------------------------------------------------------------
# the result
# ---------------------------------------------------------------------------

#: the paper's summary table: (captime, value) -> "The best algorithm ..."
SCENARIOS = {
    ("known", "constant"): "solves the most instances (within the captime)",
    ("known", "money"): "gives the greatest expected proportion of benefit",
    ("distribution", "constant"): "is most likely to solve an instance from K",
    ("distribution", "money"): "gives the greatest expected proportion of benefit, in expectation over K",
    ("facts", "constant"): "is most likely to solve an instance from the maximum entropy distribution",
    ("facts", "money"): "gives the greatest expected proportion of benefit, in expectation over the "
                        "maximum entropy distribution",
}

#: the same cells in plain words, for someone who has not read the paper
_LEAST_COMMITTAL = ("How long you would wait is uncertain, so it is taken to vary as the least "
                    "committal law that fits what you said (the maximum-entropy law): nothing you "
                    "did not say is assumed.")
SCENARIO_WORDS = {
    ("known", "constant"): "Scoring by this utility puts first the algorithm that solves the most "
                           "instances within your deadline.",
    ("known", "money"): "Scoring by this utility puts first the algorithm that keeps the largest "
                        "share of a solution's worth once the cost of waiting is paid.",
    ("distribution", "constant"): "Scoring by this utility puts first the algorithm most likely to "
                                  "finish before you stop waiting, where how long you wait varies "
                                  "as the law you gave.",
    ("distribution", "money"): "Scoring by this utility puts first the algorithm that keeps the "
                               "largest share of a solution's worth after the cost of waiting, on "
                               "average over how long you wait (the law you gave).",
    ("facts", "constant"): "Scoring by this utility puts first the algorithm most likely to finish "
                           "before you stop waiting. " + _LEAST_COMMITTAL,
    ("facts", "money"): "Scoring by this utility puts first the algorithm that keeps the largest "
                        "share of a solution's worth after the cost of waiting, on average over how "
                        "long you wait. " + _LEAST_COMMITTAL,
}
#: significant digits of the numbers a person reads in the summary
SHOWN_DIGITS = 4


@dataclass(frozen=True)
class Design:
    """A designed utility: the answers, the constraints they became, the law and its utility.

    Attributes
    ----------
    facts : tuple of Fact
        Every answer read, in the order asked.
    scenario : str
        The cell of the paper's summary table: "The best algorithm ...".
    constraints : tuple of Constraint
        The constraints on the captime (empty for a known captime).
    distribution : CaptimeDistribution or None
        The captime law (None for a known captime).
    utility : Utility
        The utility u(t), named :attr:`name`.
    spec : str or None
        A spec string that ``--utility`` and :func:`maxent_util.parse_rule` read back to this
        utility (a preset call, or the formula); None when no short one exists (use the JSON).
    notes : tuple of str
        Remarks on the answers (a solution worth nothing, waiting that costs nothing).
    """

    facts: tuple[Fact, ...]
    scenario: str
    constraints: tuple
    distribution: Any
    utility: Any
    spec: str | None
    notes: tuple[str, ...] = field(default=())

    @property
    def explanation(self) -> str:
        """What scoring by this utility rewards, in plain words (the scenario without the paper)."""
        for (captime, value), cell in SCENARIOS.items():
            if cell == self.scenario:
                return SCENARIO_WORDS[captime, value]
        return f"The best algorithm {self.scenario}."

    @property
    def name(self) -> str:
        """The utility's name (the preset call, or the answers in short)."""
        return self.utility.name

    @property
    def answers(self) -> dict[str, Any]:
        """The answers as read: seconds, chances and amounts as exact numbers (JSON-ready)."""
        return {fact.key: _plain(fact.value) for fact in self.facts}

    def formula(self) -> str:
        """u(t) as text."""
        return str(self.utility.expr)

    def latex(self) -> str:
        """u(t) in LaTeX (math mode, without ``$``)."""
        return self.utility.latex()

    def worth(self, times: Any = None) -> list[tuple[float, float]]:
        """(runtime in seconds, u) at a few runtimes: ``times``, else round durations where u changes.

        Parameters
        ----------
        times : sequence of durations, optional
            Runtimes (numbers of seconds or duration texts such as ``"10 min"``).

        Returns
        -------
        list of (float, float)
        """
        if times is not None:
            chosen = [float(read_seconds(x, "times")) if not isinstance(x, float) else x for x in times]
            return list(zip(chosen, (float(v) for v in np.atleast_1d(self.utility(np.array(chosen))))))
        grid = np.array(NICE_TIMES, dtype=float)
        values = np.atleast_1d(np.asarray(self.utility(grid), dtype=float))
        inside = [i for i, v in enumerate(values) if 0.02 <= v <= 0.98]
        if len(inside) > 4:
            inside = [inside[round(j)] for j in np.linspace(0, len(inside) - 1, 4)]
        chosen = [float(grid[i]) for i in inside]
        if len(chosen) < 2:
            for fact in self.facts:
                if fact.key in ("known", "longest", "typical", "median"):
                    chosen += [float(fact.value) / 2, float(fact.value) * 2]
            chosen = sorted(set(chosen))[:4] or [float(grid[len(grid) // 2])]
            return self.worth(chosen)
        return list(zip(chosen, (float(values[i]) for i in inside)))

    def sentences(self, times: Any = None) -> list[str]:
        """The worth of a few runtimes in words: "a run of 10min is worth 0.62 of an instant one"."""
        said = []
        for seconds, value in self.worth(times):
            if value >= 0.995:
                worth = "as much as an instant one"
            elif value <= 0.005:
                worth = "nothing"
            else:
                worth = f"{value:.2f} of an instant one"
            said.append(f"a run of {say(seconds)} is worth {worth}")
        return said

    def summary(self) -> str:
        """Everything shown at the end of an interview, as lines of text."""
        lines = [self.explanation, f"(In the paper's terms: the best algorithm {self.scenario}.)"]
        if self.constraints:
            lines.append("What you said, as constraints on your patience κ: "
                         + "; ".join(constraint_text(c) for c in self.constraints))
        if self.distribution is not None:
            lines.append("Your patience κ then has the density:")
            lines += _indented(readable(self.distribution.pdf), "  f(κ) = ")
        lines.append("A run of t seconds is worth (1 = as much as an instant answer):")
        lines += _indented(readable(self.utility.expr), "  u(t) = ")
        lines += [f"  {sentence[0].upper()}{sentence[1:]}." for sentence in self.sentences()]
        lines.append(f"Spec: {self.spec}" if self.spec else
                     "Spec: none short enough; use the JSON document (--utility @FILE)")
        lines += [f"Note: {note}" for note in self.notes]
        return "\n".join(lines)

    def record(self) -> dict[str, Any]:
        """The design as plain JSON data (the ``design`` field of :meth:`to_json`)."""
        return {"answers": self.answers, "scenario": f"The best algorithm {self.scenario}.",
                "facts": [{"key": f.key, "says": f.says, "approximate": f.approximate,
                           "constraints": [repr(c) for c in f.constraints],
                           "latex": [c.latex() for c in f.constraints]} for f in self.facts],
                "constraints": [repr(c) for c in self.constraints], "spec": self.spec,
                "formula": self.formula(), "latex": self.latex(),
                "worth": [{"seconds": s, "u": u} for s, u in self.worth()], "notes": list(self.notes)}

    def to_json(self, *, indent: int | None = 2) -> str:
        """The utility's JSON document (:func:`maxent_util.to_json`) with this design as its
        ``design`` field: :func:`maxent_util.from_json` and ``--utility @FILE`` read it as the utility."""
        document = json.loads(to_json(self.utility, indent=None))
        document["design"] = self.record()
        return json.dumps(document, indent=indent, allow_nan=False)

    def write_json(self, path: Any, *, overwrite: bool = False) -> None:
        """Write :meth:`to_json` to ``path`` (whole or not at all; an existing file only with
        ``overwrite``)."""
        text = self.to_json()
        with atomic_file(path, overwrite=overwrite) as handle:
            handle.write(text + "\n")

    def plot(self, path: Any, *, overwrite: bool = False) -> bool:
        """Draw u(t) into an image file (PNG, SVG, PDF: by its suffix).

        Returns
        -------
        bool
            True when written; False when matplotlib (the ``plot`` extra) is missing.
        """
        from ..plots import plot_utilities  # pandas, only for the figure

        try:
            end = self.plot_end()
            # a tail far longer than the typical wait is seen on a log axis
            half = np.geomspace(end * 1e-6, end, 61)[np.asarray(self.utility(np.geomspace(
                end * 1e-6, end, 61)), dtype=float) <= 0.5]
            figure = plot_utilities({self.name: self.utility}, title="Designed utility", t_max=end,
                                    log_x=bool(half.size) and end > 1000 * float(half[0]))
        except MissingExtraError:
            return False
        suffix = str(path).rsplit(".", 1)[-1].lower() if "." in str(path) else "png"
        with atomic_file(path, overwrite=overwrite, binary=True) as handle:
            figure.savefig(handle, format=suffix)
        return True

    def plot_end(self) -> float:
        """Where the figure's runtime axis ends: past the whole support, so that u is seen
        reaching 0 at the longest wait (a bounded captime: its upper end, or the known
        captime, plus a fifth); else where u has fallen to 1%."""
        ends = [float(self.distribution.support[1])] if self.distribution is not None else []
        ends += [float(fact.value) for fact in self.facts if fact.key == "known"]
        finite = [end for end in ends if math.isfinite(end) and end > 0]
        if finite:
            return 1.2 * max(finite)
        grid = np.geomspace(1e-3, 1e9, 601)
        values = np.asarray(self.utility(grid), dtype=float)
        low = np.flatnonzero(values <= 0.01)
        return 1.2 * float(grid[low[0]]) if low.size else float(grid[-1])

    def _repr_latex_(self) -> str:
        return f"$u(t) = {self.latex()}$"


def _short_floats(expr: Any, digits: int = SHOWN_DIGITS) -> Any:
    """``expr`` with its floats at ``digits`` significant digits, for reading (exact numbers
    stay exact)."""
    if not isinstance(expr, sympy.Basic):
        return expr
    return expr.xreplace({number: sympy.Float(number, digits) for number in expr.atoms(sympy.Float)})


def readable(expr: Any) -> Any:
    """``expr`` as a person reads it: a piecewise law's conditions simplified (``κ < 3000 | κ <
    3600`` is ``κ < 3600``), its floats at :data:`SHOWN_DIGITS` digits."""
    if isinstance(expr, sympy.Basic) and expr.has(sympy.Piecewise):
        try:
            expr = expr.replace(lambda node: isinstance(node, sympy.Piecewise),
                                lambda node: sympy.Piecewise(*[(e, _simpler(c)) for e, c in node.args]))
        except Exception:  # noqa: BLE001 - reading aid only: the unsimplified form is as true
            pass
    return _short_floats(expr)


def _simpler(condition: Any) -> Any:
    """A condition on one variable as the interval it describes (``κ < 3000 ∨ κ < 3600`` is
    ``κ < 3600``); other conditions as they are."""
    symbols = condition.free_symbols if isinstance(condition, sympy.Basic) else set()
    if len(symbols) != 1 or condition in (sympy.true, sympy.false):
        return condition
    (symbol,) = symbols
    return condition.as_set().as_relational(symbol)


def _indented(expr: Any, head: str) -> list[str]:
    """``expr`` pretty-printed in Unicode under ``head``, the following lines aligned with it."""
    shown = sympy.pretty(expr, use_unicode=True, wrap_line=False).split("\n")
    if len(shown) == 1:
        return [head + shown[0]]
    # the formula's baseline carries the head; the lines above and below are indented as far
    middle = next((i for i, line in enumerate(shown) if "⎨" in line or "{" in line), len(shown) // 2)
    return [(head if i == middle else " " * len(head)) + line for i, line in enumerate(shown)]


def _plain(value: Any) -> Any:
    """An answer's value as JSON data: exact numbers as integers or "p/q" texts."""
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    if isinstance(value, sympy.Rational):
        return int(value) if value.q == 1 else f"{value.p}/{value.q}"
    if isinstance(value, sympy.Basic):
        return str(value)
    if hasattr(value, "name") and hasattr(value, "pdf"):
        return value.name
    return value


#: (fact keys) -> the preset those facts are, as a function of the facts
_PRESETS: dict[frozenset, Callable[[Mapping[str, Fact]], tuple[str, tuple]]] = {
    frozenset({"longest"}): lambda f: ("uniform", (f["longest"].value,)),
    frozenset({"typical"}): lambda f: ("exponential", (f["typical"].value,)),
    frozenset({"longest", "median"}): lambda f: ("piecewise", (f["longest"].value, f["median"].value,
                                                              sympy.Rational(1, 2))),
    frozenset({"longest", "tail"}): lambda f: ("piecewise", (f["longest"].value, f["tail"].value[1],
                                                            1 - f["tail"].value[0])),
    # E[log(kappa/S)] = log(c/S) is the Pareto law's 1/alpha (facts.log_centre writes it so)
    frozenset({"shortest", "magnitude"}): lambda f: ("pareto", (f["shortest"].value, 1 / sympy.log(
        f["magnitude"].value[0] / f["shortest"].value))),
    frozenset({"magnitude", "spread"}): lambda f: ("log_normal", (f["magnitude"].value[0],
                                                                  sympy.log(f["spread"].value))),
}


def _constraints(facts: Mapping[str, Fact]) -> tuple:
    """The constraints of the facts: one support, then each fact's own."""
    lower, upper = support_ends(facts)
    stated = [Support(lower, upper)]
    for key in FACT_KEYS:
        if key in facts:
            stated += [c for c in facts[key].constraints if not isinstance(c, Support)]
    return tuple(stated)


def _law(facts: Mapping[str, Fact]) -> tuple[Any, tuple, str | None]:
    """The maximum-entropy law of the facts, its constraints and its preset spec (or None)."""
    constraints = _constraints(facts)
    recipe = _PRESETS.get(frozenset(facts))
    if recipe is not None:
        name, arguments = recipe(facts)
        if set(family_constraints(name, *arguments)) == set(constraints):
            spec = f"{name}({', '.join(str(a) for a in arguments)})"
            return parse_family(spec), constraints, spec
    try:
        law = derive(*constraints)
    except MaxEntError as error:
        raise DesignError(argument_message("answers", OWNER, "facts that can all hold together",
                                           ", ".join(facts), str(error)), keys=tuple(facts),
                          explanation=f"No captime law follows from these answers together "
                                      f"({error}); change one of them.") from None
    return law, constraints, None


#: significant digits of a spec's decimals: enough to give back every double exactly
SPEC_DIGITS = 17


def _round_trip_spec(utility: Any) -> str | None:
    """The utility's formula as a spec (its decimals at :data:`SPEC_DIGITS` digits rather than
    30), if the command line's reader gives it back."""
    text = str(_short_floats(utility.expr, SPEC_DIGITS))
    if len(text) > MAX_SPEC_LENGTH:
        return None
    try:
        again = parse_rule(text)
        times = np.array([1.0, 30.0, 600.0, 3600.0, 86400.0])
        same = np.allclose(np.asarray(again(times), float), np.asarray(utility(times), float),
                           rtol=1e-9, atol=1e-12)
    except MaxEntError:
        return None
    return text if same else None


def design(answers: Mapping[str, Any]) -> Design:
    """The utility of a person's answers, as the interview would give it, without prompts.

    Parameters
    ----------
    answers : mapping
        The answers by question key (see :data:`QUESTIONS`): ``captime`` (``"known"``,
        ``"distribution"`` or ``"facts"``) and ``value`` (``"constant"`` or ``"money"``);
        then ``known`` (a duration), ``law`` (a preset call), or the facts ``longest``,
        ``shortest``, ``typical``, ``median`` (durations), ``magnitude`` (``"between 1 min
        and 1 h"`` or ``"about 1 h"``), ``spread`` (a factor above 1) and ``tail`` (``"1 in
        10 after 2h"``); for money, ``cost_per_hour`` and ``solution_value``.  Durations as
        :func:`maxent_util.durations.parse_duration` reads them (a bare number is seconds).

    Returns
    -------
    Design
        The facts, constraints, law and utility, with its spec and JSON.

    Raises
    ------
    DesignError
        For an unknown key, an answer that cannot be read, answers that cannot hold
        together or do not determine a law (the message says why in plain words), or an
        answer to a question that does not apply.

    Examples
    --------
    >>> result = design({"captime": "facts", "longest": "1h", "value": "constant"})
    >>> result.spec, result.sentences(["15 min"])
    ('uniform(3600)', ['a run of 15min is worth 0.75 of an instant one'])
    """
    if not isinstance(answers, Mapping):
        raise DesignError(argument_message("answers", OWNER, "a mapping from questions to answers",
                                           short(answers)), keys=(), explanation="Give the answers "
                          "as a table, such as {'captime': 'facts', 'longest': '1h', 'value': 'constant'}.")
    unknown = [key for key in answers if key not in BY_KEY]
    if unknown:
        read_answer(str(unknown[0]), None)
    read: dict[str, Fact] = {}
    for question in QUESTIONS:
        choices = {key: fact.value for key, fact in read.items()}
        given = answers.get(question.key)
        if not question.applies(choices):
            if given is not None:
                raise refuse(question.key, f"left out here (it goes with another answer to "
                              f"`{'value' if question.key in ('cost_per_hour', 'solution_value') else 'captime'}`)",
                              given, f"The question {question.key!r} is not asked with these answers.")
            continue
        if given is None or (question.optional and isinstance(given, str) and not given.strip()):
            if question.optional:
                continue
            raise refuse(question.key, "answered", None, f"Answer: {question.prompt}")
        read[question.key] = read_answer(question.key, given, {k: v for k, v in read.items()
                                                               if k in FACT_KEYS})
    return finish(read)


def finish(read: Mapping[str, Fact]) -> Design:
    """The design of answers already read one by one (:func:`read_answer`); the interview's last step."""
    captime, value = read["captime"].value, read["value"].value
    facts = {key: fact for key, fact in read.items() if key in FACT_KEYS}
    notes: list[str] = []
    law, constraints, spec = None, (), None
    if captime == "facts":
        check_complete(facts)
        law, constraints, spec = _law(facts)
        if spec is None:
            law = law.with_name(_described(read, ("captime", "value", "cost_per_hour", "solution_value")))
    elif captime == "distribution":
        law = read["law"].value
        constraints, spec = tuple(law.constraints), law.name
    if value == "constant":
        utility = step(read["known"].value) if law is None else law.utility()
    else:
        cost, worth = read["cost_per_hour"].value, read["solution_value"].value
        if cost == 0 and worth == 0:
            raise refuse("solution_value", "above 0 when waiting costs nothing", "0",
                          "With no cost and no value nothing is at stake: give what a solution is worth.")
        if cost == 0:
            notes.append("Waiting costs nothing: the value of a solution is constant.")
        if worth == 0:
            notes.append("A solution worth nothing ranks by capped average runtime, which the paper "
                         "(Section 3) shows asserts that solving the problem has no value.")
        per_second = cost / 3600
        if law is None:
            utility = linear_compute(read["known"].value, per_second, worth)
        else:
            per_captime = (worth + per_second * (kappa - t)) / (worth + per_second * kappa)
            closed = _closed_form_expected(law, divided=cost > 0 and worth > 0)
            utility = expected_utility(per_captime, law, timeout=MONEY_SYMBOLIC_SECONDS,
                                       method="auto" if closed else "numerical")
        spec = None
    utility = utility.with_name(spec or _described(read, ("captime", "value")))
    if spec is None:
        spec = _round_trip_spec(utility)
    return Design(tuple(read.values()), SCENARIOS[captime, value], constraints, law, utility, spec,
                  tuple(notes))


def _closed_form_expected(law: Any, divided: bool) -> bool:
    """Whether the money utility's integral over ``law`` is tried in closed form: a density
    whose exponent is at most linear in kappa and in log(kappa) (uniform, exponential, Pareto
    and log-Laplace pieces, the laws of bounds, means and tail chances) integrates at once;
    a log-normal's (log(kappa) squared) has no elementary integral, so it goes to quadrature
    at once rather than after a time limit that a loaded machine would reach sooner.

    ``divided``: the utility under a known captime divides by ``value + cost kappa`` (both
    above 0). exp(-c kappa) / (a + b kappa) over a bounded piece (a truncated exponential:
    the longest and the typical wait) has no form sympy finds; it gave up after 4 to 6 s."""
    log_kappa = sympy.Dummy("log_kappa")
    bounded = law.support[1] != sympy.oo
    for piece in sympy.preorder_traversal(law.pdf):
        if isinstance(piece, sympy.exp):
            exponent = piece.args[0].subs(sympy.log(kappa), log_kappa)
            try:
                polynomial = sympy.Poly(exponent, kappa, log_kappa)
            except sympy.PolynomialError:
                return False
            if polynomial.total_degree() > 1:
                return False
            if divided and bounded and polynomial.degree(kappa) == 1:
                return False
    return True


def _described(read: Mapping[str, Fact], left_out: tuple[str, ...]) -> str:
    """A name that says the answers: ``design(longest=1h, typical=15min)``."""
    return "design(" + ", ".join(f"{key}={_short_answer(fact)}" for key, fact in read.items()
                                 if key not in left_out) + ")"


def _short_answer(fact: Fact) -> str:
    value = fact.value
    if fact.key in ("known", "longest", "shortest", "typical", "median"):
        return say(value)
    if fact.key == "magnitude":
        return "..".join(say(v) for v in value)
    if fact.key == "tail":
        return f"{value[0]}@{say(value[1])}"
    if fact.key == "law":
        return value.name
    return str(value)


