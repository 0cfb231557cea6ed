"""The parameter space and its options: the model, the writers, Optuna and ConfigSpace."""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Mapping, Sequence

import numpy as np

from .._numbers import real
from .._output import atomic_file
from ..errors import DataError, ExportError, MissingExtraError, argument_message, short
from .reading import MAX_SPACE_BYTES, WORD, Reader, format_of, read_text

__all__ = ["Condition", "Parameter", "ParameterSpace", "FORMATS", "IRACE_SLACK", "space_words"]

#: the formats :meth:`ParameterSpace.read` tells apart and :meth:`ParameterSpace.write` writes
FORMATS = ("pcs", "pcs-new", "json", "irace")

_KINDS = ("real", "integer", "categorical")
_IRACE_KINDS = {"real": "r", "integer": "i", "categorical": "c"}

def _irace_text(text: Any) -> bool:
    """Text irace reads between double quotes: no quote, backslash or control character."""
    return isinstance(text, str) and not any(c in '"\\' or c < " " or c == "\x7f" for c in text)


@dataclass(frozen=True)
class Parameter:
    """One option of a solver, as every configurator is told about it.

    Parameters
    ----------
    name : str
        An identifier (letters, digits, ``_``): irace's and ConfigSpace's name of it.
    kind : {"real", "integer", "categorical"}
        Its domain's kind.
    values : tuple
        ``(low, high)`` for a number (integers for an integer option), the choices (strings)
        for a categorical option.
    switch : str
        The text before the value in the run's word, e.g. ``"-var-decay="`` gives
        ``-var-decay=0.9``; ``""`` for choices that are whole words (``"-luby"``, ``"-no-luby"``).
    log : bool
        Sample a number on a log scale.
    default : object, optional
        The value a configurator starts from; None for ConfigSpace's rule (the middle of the
        range, on the log scale for a log option; the first choice), see :attr:`start`.

    Raises
    ------
    ExportError
        For a name that is not an identifier, an unknown kind, bounds that are not two
        finite increasing numbers, text irace could not read between quotes, or a default
        outside the domain.

    Examples
    --------
    >>> Parameter("var_decay", "real", (0.5, 0.99), "-var-decay=").word(0.9)
    '-var-decay=0.9'
    >>> Parameter("rfirst", "integer", (10, 1000), "-rfirst=", log=True).start
    100
    """

    name: str
    kind: str
    values: tuple
    switch: str = ""
    log: bool = False
    default: Any = None

    def __post_init__(self) -> None:
        owner = "Parameter"
        if not (isinstance(self.name, str) and self.name.isidentifier() and self.name.isascii()):
            raise ExportError(argument_message("name", owner, "an ASCII identifier", short(self.name)))
        if self.kind not in _KINDS:
            raise ExportError(argument_message("kind", owner, "'real', 'integer' or 'categorical'",
                                               short(self.kind)))
        if not isinstance(self.log, bool):
            raise ExportError(argument_message("log", owner, "True or False", short(self.log)))
        if isinstance(self.values, list):
            object.__setattr__(self, "values", tuple(self.values))
        texts = [self.switch] + (list(self.values) if self.kind == "categorical" else [])
        if not all(_irace_text(text) for text in texts):
            raise ExportError(argument_message(
                "switch" if self.kind != "categorical" else "values", owner,
                "text without quotes, backslashes or control characters", short(texts)))
        if self.kind == "categorical":
            if not isinstance(self.values, tuple) or not self.values \
                    or len(set(self.values)) != len(self.values):
                raise ExportError(argument_message("values", owner, "a tuple of distinct choices",
                                                   short(self.values)))
            if self.log:
                raise ExportError(argument_message("log", owner, "False for a categorical option",
                                                   self.log))
        else:
            bounds = [real(v) for v in self.values] if isinstance(self.values, tuple) else []
            if len(bounds) != 2 or not all(math.isfinite(b) for b in bounds) \
                    or not bounds[0] < bounds[1] or (self.log and bounds[0] <= 0):
                raise ExportError(argument_message(
                    "values", owner, "(low, high), finite, low < high (and low > 0 on a log scale)",
                    short(self.values)))
            if self.kind == "integer":
                if not all(b == int(b) and abs(b) < 2 ** 53 for b in bounds):
                    raise ExportError(argument_message("values", owner, "two integers (an integer "
                                                       "option's bounds)", short(self.values)))
                bounds = [int(b) for b in bounds]
            object.__setattr__(self, "values", tuple(bounds))
        if self.default is not None:
            value = self.value(self.default)
            if value is None:
                raise ExportError(argument_message("default", owner, f"a value of {self.name}'s "
                                                   f"domain {self.values}", short(self.default)))
            object.__setattr__(self, "default", value)

    def value(self, value: Any) -> Any:
        """``value`` as this option holds it (a float, an int, a choice), or None if outside.

        Parameters
        ----------
        value : object
            A number (for an integer option, an integral one) or a choice.

        Returns
        -------
        float, int, str or None
            The value, or None if it is not one of the domain's.
        """
        if self.kind == "categorical":
            return value if isinstance(value, str) and value in self.values else None
        number = real(value)
        low, high = self.values
        if not (math.isfinite(number) and low <= number <= high):
            return None
        if self.kind == "integer":
            return int(number) if number == int(number) else None
        return number

    @property
    def start(self) -> Any:
        """The default, or ConfigSpace's when none was given (the range's middle; the first choice)."""
        if self.default is not None:
            return self.default
        if self.kind == "categorical":
            return self.values[0]
        low, high = self.values
        middle = math.exp((math.log(low) + math.log(high)) / 2) if self.log else (low + high) / 2
        middle = min(max(middle, low), high)
        return int(round(middle)) if self.kind == "integer" else middle

    def word(self, value: Any) -> str:
        """The run's argument for ``value``: the switch followed by the value.

        Parameters
        ----------
        value : object
            The option's value, in its domain (an integer option's as an ``int``).

        Returns
        -------
        str
            One word of the command line.

        Raises
        ------
        ExportError
            For a value outside the option's domain (a configuration is data: it must come
            from the declared space).
        """
        return f"{self.switch}{self.check(value)}"

    def check(self, value: Any, slack: float = 0.0) -> Any:
        """``value`` if it is in the option's domain, else an error naming the option.

        Parameters
        ----------
        value : object
            A choice of a categorical option, a number of a real or integer one.
        slack : float
            How far past a bound a number may be, as a fraction of the larger bound's size
            (irace prints numbers with 4 significant digits: :data:`IRACE_SLACK`).

        Returns
        -------
        object
            ``value`` (an integer option's as an ``int``).

        Raises
        ------
        ExportError
            For a value outside the domain.
        """
        owner = f"Parameter {self.name!r}"
        if self.kind == "categorical":
            if isinstance(value, str) and value in self.values:
                return value
            raise ExportError(argument_message("value", owner, f"one of {list(self.values)}",
                                               short(value)))
        try:
            number = real(value)
        except (TypeError, ValueError, ArithmeticError):
            number = math.nan
        low, high = self.values
        margin = slack * max(abs(low), abs(high))
        if isinstance(value, bool) or not (low - margin <= number <= high + margin) or (
                self.kind == "integer" and number != int(number)):
            kind = "an integer" if self.kind == "integer" else "a number"
            raise ExportError(argument_message("value", owner, f"{kind} in [{low:g}, {high:g}]",
                                               short(value)))
        return int(number) if self.kind == "integer" else value

    def read(self, word: str) -> Any:
        """The value of this option in a command-line word (as irace writes it).

        Parameters
        ----------
        word : str
            One word of a configuration, e.g. ``-rinc=2.5``.

        Returns
        -------
        object or None
            The value, not yet checked against the bounds; None if the word is not this
            option's.

        Examples
        --------
        >>> Parameter("rinc", "real", (1.1, 4.0), "-rinc=").read("-rinc=2.5")
        2.5
        """
        if self.switch and not word.startswith(self.switch):
            return None
        text = word[len(self.switch):]
        if self.kind == "categorical":
            return text if text in self.values else None
        try:
            return int(text) if self.kind == "integer" else float(text)
        except ValueError:
            return None


#: irace writes a number with 4 significant digits: a value at a bound may pass it by half a
#: unit of the fourth digit
IRACE_SLACK = 5e-4


def space_words(space: Any, words: Sequence[str], owner: str,
                slack: float = 0.0) -> dict[str, Any]:
    """The values that ``words`` give the options of ``space``, each checked against its
    domain; an error naming the word for a word of no option, or an option given twice.

    Parameters
    ----------
    space : ParameterSpace or sequence of Parameter
        The declared options.
    words : sequence of str
        A configuration's words (``-var-decay=0.9``, ``-luby``).
    owner : str
        Who asks (for the error message).
    slack : float
        See :meth:`Parameter.check`.

    Returns
    -------
    dict
        The value of each option given.

    Raises
    ------
    ExportError
        For a word that is no option of the space, a value outside its domain, or an
        option given twice.

    Examples
    --------
    >>> space = [Parameter("luby", "categorical", ("-luby", "-no-luby")),
    ...          Parameter("rinc", "real", (1.1, 4.0), "-rinc=")]
    >>> space_words(space, ["-no-luby", "-rinc=2.5"], "example")
    {'luby': '-no-luby', 'rinc': 2.5}
    """
    values: dict[str, Any] = {}
    for word in words:
        # the longest switch that reads the word: -rinc= before -r
        found = [(len(p.switch), p, value) for p in space
                 if isinstance(word, str) and (value := p.read(word)) is not None]
        if not found:
            raise ExportError(argument_message(
                "config", owner, "words of the declared parameter space "
                f"({', '.join(p.name for p in space) or 'none declared'})", short(word)))
        _, parameter, value = max(found, key=lambda item: item[0])
        if parameter.name in values:
            raise ExportError(argument_message("config", owner, f"one value of {parameter.name}",
                                               short(list(words))))
        values[parameter.name] = parameter.check(value, slack)
    return values


@dataclass(frozen=True)
class Condition:
    """``child`` matters only when ``parent`` is active and takes one of ``values``.

    Several conditions on one child must all hold (AClib's and ConfigSpace's reading).

    Parameters
    ----------
    child, parent : str
        Names of options of the space; the parent is categorical.
    values : tuple of str
        The parent's choices under which the child is active.
    """

    child: str
    parent: str
    values: tuple


class ParameterSpace:
    """A solver's options, the conditions under which they matter, and forbidden combinations.

    Parameters
    ----------
    parameters : sequence of Parameter
        The options, in the order their words go on the command line.
    conditions : sequence of Condition, optional
        Each makes an option active only when a categorical option takes some values.
    forbidden : sequence of mapping, optional
        Combinations no configuration may hold, each ``{name: value, ...}``.

    Raises
    ------
    ExportError
        For a repeated name, a condition or combination naming an unknown option or value, a
        condition on a non-categorical parent, or conditions that go round in a circle.

    Examples
    --------
    >>> space = ParameterSpace(
    ...     [Parameter("pre", "categorical", ("-pre", "-no-pre")),
    ...      Parameter("sub_lim", "integer", (-1, 10000), "-sub-lim=", default=1000)],
    ...     [Condition("sub_lim", "pre", ("-pre",))])
    >>> space.words(space.default())
    ['-pre', '-sub-lim=1000']
    >>> space.words({"pre": "-no-pre", "sub_lim": 5})
    ['-no-pre']
    >>> print(space.text("pcs"), end="")
    pre {-pre, -no-pre} [-pre]
    sub_lim [-1, 10000] [1000]i
    <BLANKLINE>
    Conditionals:
    sub_lim | pre in {-pre}
    """

    def __init__(self, parameters: Sequence[Parameter], conditions: Sequence[Condition] = (),
                 forbidden: Sequence[Mapping[str, Any]] = ()) -> None:
        owner = "ParameterSpace"
        parameters = tuple(parameters)
        if not all(isinstance(p, Parameter) for p in parameters):
            raise ExportError(argument_message("parameters", owner, "a sequence of Parameter",
                                               short(parameters)))
        self._by_name = {p.name: p for p in parameters}
        if len(self._by_name) != len(parameters):
            names = [p.name for p in parameters]
            raise ExportError(argument_message("parameters", owner, "options of distinct names",
                                               short(sorted({n for n in names if names.count(n) > 1}))))
        self.parameters = parameters
        index = {p.name: k for k, p in enumerate(parameters)}
        kept: dict[tuple[str, str], Condition] = {}
        for condition in conditions:
            if not isinstance(condition, Condition) or condition.child not in index \
                    or condition.parent not in index or condition.child == condition.parent:
                raise ExportError(argument_message("conditions", owner, "conditions between two "
                                                   "distinct options of the space", short(condition)))
            parent = self._by_name[condition.parent]
            values = tuple(condition.values) if isinstance(condition.values, (tuple, list)) else ()
            if parent.kind != "categorical" or not values or not set(values) <= set(parent.values):
                raise ExportError(argument_message(
                    "conditions", owner, "conditions on a categorical option's choices",
                    short(condition)))
            key = (condition.child, condition.parent)
            if key in kept:  # two conditions on one pair: both hold, the choices they share
                values = tuple(v for v in values if v in kept[key].values)
            kept[key] = Condition(condition.child, condition.parent,
                                  tuple(v for v in parent.values if v in values))
        self.conditions = tuple(sorted(kept.values(), key=lambda c: (index[c.child], index[c.parent])))
        self._conditions_of: dict[str, list[Condition]] = {p.name: [] for p in parameters}
        for condition in self.conditions:
            self._conditions_of[condition.child].append(condition)
        self._order = self._topological()
        combinations: dict[tuple, None] = {}  # in the order given, each once
        for combination in forbidden:
            pairs = dict(combination) if isinstance(combination, Mapping) else None
            values = {name: self._by_name[name].value(value) if name in self._by_name else None
                      for name, value in (pairs or {}).items()}
            if not values or None in values.values():
                raise ExportError(argument_message("forbidden", owner, "combinations of options "
                                                   "of the space and values of their domains",
                                                   short(combination)))
            ordered = tuple(sorted(values.items(), key=lambda pair: index[pair[0]]))
            combinations[ordered] = None
        self.forbidden = tuple(combinations)

    def _topological(self) -> tuple[Parameter, ...]:
        """The options, each after the parents of its conditions (Kahn's order: linear, so a
        hostile file's long chain of conditions costs no more than its length)."""
        waiting = {p.name: len({c.parent for c in self._conditions_of[p.name]}) for p in self.parameters}
        children: dict[str, set[str]] = {p.name: set() for p in self.parameters}
        for condition in self.conditions:
            children[condition.parent].add(condition.child)
        ready = [p.name for p in self.parameters if waiting[p.name] == 0]
        order: list[str] = []
        while ready:
            name = ready.pop()
            order.append(name)
            for child in children[name]:
                waiting[child] -= 1
                if waiting[child] == 0:
                    ready.append(child)
        if len(order) < len(self.parameters):
            circle = sorted(name for name, count in waiting.items() if count > 0)
            raise ExportError(argument_message("conditions", "ParameterSpace",
                                               "conditions without a circle", short(circle)))
        return tuple(self._by_name[name] for name in order)

    @classmethod
    def of(cls, space: Any) -> "ParameterSpace":
        """``space`` itself, or the space of a sequence of :class:`Parameter`.

        Parameters
        ----------
        space : ParameterSpace or sequence of Parameter or None
            A space, or options without conditions (None: no options).

        Returns
        -------
        ParameterSpace
            The space.
        """
        if isinstance(space, ParameterSpace):
            return space
        return cls(tuple(space or ()))

    # --- the space as a value -------------------------------------------------------------

    def __iter__(self) -> Iterator[Parameter]:
        return iter(self.parameters)

    def __len__(self) -> int:
        return len(self.parameters)

    def __getitem__(self, name: str) -> Parameter:
        return self._by_name[name]

    def __contains__(self, name: object) -> bool:
        return name in self._by_name

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ParameterSpace):
            return NotImplemented
        return (self.parameters, self.conditions, self.forbidden) == \
            (other.parameters, other.conditions, other.forbidden)

    def __hash__(self) -> int:
        return hash((self.parameters, self.conditions, self.forbidden))

    def __repr__(self) -> str:
        return (f"ParameterSpace({len(self.parameters)} options, {len(self.conditions)} "
                f"conditions, {len(self.forbidden)} forbidden combinations)")

    def replace(self, **changes: Any) -> "ParameterSpace":
        """A copy with some of ``parameters``, ``conditions``, ``forbidden`` replaced.

        Parameters
        ----------
        **changes
            The arguments of :class:`ParameterSpace` to change.

        Returns
        -------
        ParameterSpace
            The new space, checked as a new one is.
        """
        arguments = {"parameters": self.parameters, "conditions": self.conditions,
                     "forbidden": [dict(c) for c in self.forbidden], **changes}
        return ParameterSpace(**arguments)

    # --- configurations -------------------------------------------------------------------

    def _active(self, parameter: Parameter, config: Mapping[str, Any]) -> bool:
        return all(c.parent in config and config[c.parent] in c.values
                   for c in self._conditions_of[parameter.name])

    def active(self, config: Mapping[str, Any]) -> list[str]:
        """The options of ``config`` whose conditions hold, in the space's order.

        Parameters
        ----------
        config : mapping
            Option names to values; an option absent from it is not active, nor are the
            options that depend on it.

        Returns
        -------
        list of str
            The names of the active options.
        """
        kept: dict[str, Any] = {}
        for parameter in self._order:
            if parameter.name in config and self._active(parameter, kept):
                kept[parameter.name] = config[parameter.name]
        return [p.name for p in self.parameters if p.name in kept]

    def is_forbidden(self, config: Mapping[str, Any]) -> bool:
        """Whether the active options of ``config`` hold one of the forbidden combinations.

        Parameters
        ----------
        config : mapping
            Option names to values.

        Returns
        -------
        bool
            True if the configuration may not be run.
        """
        active = set(self.active(config))
        return any(all(name in active and self._by_name[name].value(config[name]) == value
                       for name, value in combination) for combination in self.forbidden)

    def words(self, config: Any, *, owner: str = "ParameterSpace.words") -> list[str]:
        """A configuration's words on the command line, each active option's switch and value.

        Parameters
        ----------
        config : mapping or sequence of str
            Option names to values (the options whose conditions fail are left out), or the
            words themselves (checked against the space when it declares options).
        owner : str, keyword-only
            Who asks, as an error names it.

        Returns
        -------
        list of str
            The words that go in place of ``{config}`` in a command.

        Raises
        ------
        ExportError
            For an option or a value outside the declared space (a configuration is data),
            or a mapping when no space is declared.
        """
        if not isinstance(config, Mapping):
            words = [str(word) for word in config]
            if len(self):  # words are data too: each must be a word of the declared space
                space_words(self, words, owner)
            return words
        if not len(self) and config:
            raise ExportError(argument_message(
                "config", owner, "words, or a mapping with a space to read it by",
                short(config), "Declare the space: ParameterSpace([Parameter(...), ...])."))
        unknown = sorted(set(config) - set(self._by_name), key=str)
        if unknown:
            raise ExportError(argument_message(
                "config", owner, "options of the declared space "
                f"({', '.join(self._by_name)})", short(unknown)))
        return [self._by_name[name].word(config[name]) for name in self.active(config)]

    def default(self) -> dict[str, Any]:
        """The default configuration: each active option's :attr:`Parameter.start`.

        Returns
        -------
        dict
            Option names to values.
        """
        config = {p.name: p.start for p in self.parameters}
        return {name: config[name] for name in self.active(config)}

    def sample(self, rng: Any = None, *, tries: int = 1000) -> dict[str, Any]:
        """A configuration drawn at random: uniform (log-uniform) numbers, uniform choices.

        Only the active options are drawn; a draw holding a forbidden combination is drawn
        again.

        Parameters
        ----------
        rng : numpy.random.Generator, int or None
            The random source, or its seed.
        tries : int, keyword-only
            Draws before giving up on a space that forbids nearly everything.

        Returns
        -------
        dict
            The active options' values, in the space's order.

        Raises
        ------
        ExportError
            If every one of ``tries`` draws was forbidden.

        Examples
        --------
        >>> space = ParameterSpace([Parameter("x", "integer", (1, 3))], forbidden=[{"x": 2}])
        >>> sorted({space.sample(seed)["x"] for seed in range(20)})
        [1, 3]
        """
        generator = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
        for _ in range(max(1, int(tries))):
            config: dict[str, Any] = {}
            for parameter in self._order:
                if not self._active(parameter, config):
                    continue
                if parameter.kind == "categorical":
                    config[parameter.name] = parameter.values[int(generator.integers(len(parameter.values)))]
                    continue
                low, high = parameter.values
                if parameter.kind == "integer":
                    if parameter.log:  # log-uniform on [low, high + 1), as ConfigSpace
                        value = int(math.exp(generator.uniform(math.log(low), math.log(high + 1))))
                    else:
                        value = int(generator.integers(low, high, endpoint=True))
                    config[parameter.name] = min(max(value, low), high)
                elif parameter.log:
                    value = math.exp(generator.uniform(math.log(low), math.log(high)))
                    config[parameter.name] = min(max(value, low), high)
                else:
                    config[parameter.name] = float(generator.uniform(low, high))
            if not self.is_forbidden(config):
                return {name: config[name] for name in self.active(config)}
        raise ExportError(argument_message("tries", "ParameterSpace.sample", "enough draws to find "
                                           "a configuration that is not forbidden", tries))

    # --- configurators --------------------------------------------------------------------

    def to_configspace(self, *, seed: int | None = None) -> Any:
        """The space as ConfigSpace's ``ConfigurationSpace`` (SMAC3's), conditions and all.

        Parameters
        ----------
        seed : int, optional, keyword-only
            The ConfigurationSpace's seed.

        Returns
        -------
        ConfigSpace.ConfigurationSpace
            The options (each switch in its ``meta``), their conditions and the forbidden
            combinations.

        Raises
        ------
        MissingExtraError
            Without ConfigSpace (the ``configure`` extra installs it with SMAC3).
        """
        try:
            import ConfigSpace as cs
        except ImportError:
            raise MissingExtraError(_missing("to_configspace", "ConfigSpace")) from None
        space = cs.ConfigurationSpace(seed=seed)
        made = {}
        for p in self.parameters:
            meta = {"switch": p.switch}  # kept by ConfigSpace's JSON, as in write(path, "json")
            if p.kind == "categorical":
                made[p.name] = cs.Categorical(p.name, list(p.values), default=p.start, meta=meta)
            elif p.kind == "integer":
                made[p.name] = cs.Integer(p.name, p.values, default=p.start, log=p.log, meta=meta)
            else:
                made[p.name] = cs.Float(p.name, p.values, default=p.start, log=p.log, meta=meta)
        space.add(list(made.values()))
        for child in dict.fromkeys(c.child for c in self.conditions):
            clauses = [cs.InCondition(made[child], made[c.parent], list(c.values))
                       for c in self._conditions_of[child]]
            space.add(clauses[0] if len(clauses) == 1 else cs.AndConjunction(*clauses))
        for combination in self.forbidden:
            clauses = [cs.ForbiddenEqualsClause(made[name], value) for name, value in combination]
            space.add(clauses[0] if len(clauses) == 1 else cs.ForbiddenAndConjunction(*clauses))
        return space

    def suggest(self, trial: Any) -> dict[str, Any]:
        """A configuration from an Optuna trial: only the options whose conditions hold.

        Numbers come from ``suggest_float`` and ``suggest_int`` (log where the option is),
        choices from ``suggest_categorical``; a configuration holding a forbidden combination
        is pruned (``optuna.TrialPruned``), so the study moves on to another.

        Parameters
        ----------
        trial : optuna.trial.Trial
            The trial an Optuna objective is given.

        Returns
        -------
        dict
            The configuration, in the space's order.

        Raises
        ------
        optuna.TrialPruned
            For a forbidden combination.
        MissingExtraError
            Without Optuna (the ``configure`` extra).
        """
        try:
            import optuna
        except ImportError:
            raise MissingExtraError(_missing("suggest", "Optuna")) from None
        config: dict[str, Any] = {}
        for p in self._order:
            if not self._active(p, config):
                continue
            if p.kind == "categorical":
                config[p.name] = trial.suggest_categorical(p.name, list(p.values))
            elif p.kind == "integer":
                config[p.name] = trial.suggest_int(p.name, *p.values, log=p.log)
            else:
                config[p.name] = trial.suggest_float(p.name, *p.values, log=p.log)
        if self.is_forbidden(config):
            raise optuna.TrialPruned("a forbidden combination of the parameter space")
        return {name: config[name] for name in self.active(config)}

    # --- writing --------------------------------------------------------------------------

    def to_irace(self) -> str:
        """irace's parameter file: ``name "switch" r,log (lo, hi) | parent %in% c("a")``.

        Returns
        -------
        str
            The file's text.

        Examples
        --------
        >>> print(ParameterSpace([Parameter("luby", "categorical", ("-luby", "-no-luby"))]).to_irace(),
        ...       end="")
        luby "" c ("-luby", "-no-luby")
        """
        lines = []
        for p in self.parameters:
            kind = _IRACE_KINDS[p.kind] + (",log" if p.log else "")
            if p.kind == "categorical":
                domain = ", ".join(f'"{v}"' for v in p.values)
            else:
                domain = ", ".join(_number(p, v) for v in p.values)
            line = f'{p.name} "{p.switch}" {kind} ({domain})'
            clauses = [f"{c.parent} %in% c({', '.join(_irace_value(v) for v in c.values)})"
                       for c in self._conditions_of[p.name]]
            lines.append(line + (" | " + " && ".join(clauses) if clauses else ""))
        return "\n".join(lines) + "\n"

    def to_irace_forbidden(self) -> str:
        """irace's forbidden file: one combination a line, ``(p == "a") & (q == 2)``.

        Returns
        -------
        str
            Empty for a space without forbidden combinations.
        """
        return "".join(" & ".join(f"({name} == {_irace_value(value)})" for name, value in combination)
                       + "\n" for combination in self.forbidden)

    def to_irace_configurations(self) -> str:
        """irace's configurations file holding the default configuration, irace's first candidate.

        One header line of names, one line of values (``NA`` for an option whose conditions
        fail), as irace's ``configurationsFile`` reads it.

        Returns
        -------
        str
            The file's text.

        Raises
        ------
        ExportError
            If the default configuration holds a forbidden combination (irace refuses it).

        Examples
        --------
        >>> space = ParameterSpace([Parameter("pre", "categorical", ("-pre", "-no-pre"), default="-no-pre"),
        ...                         Parameter("grow", "integer", (0, 10), "-grow=")],
        ...                        [Condition("grow", "pre", ("-pre",))])
        >>> print(space.to_irace_configurations(), end="")
        pre grow
        "-no-pre" NA
        """
        default = self.default()
        if self.is_forbidden(default):
            raise ExportError(argument_message("default", "ParameterSpace", "a configuration that "
                                               "is not forbidden", short(default)))
        values = ["NA" if p.name not in default else f'"{default[p.name]}"' if p.kind == "categorical"
                  else _number(p, default[p.name]) for p in self.parameters]
        return " ".join(p.name for p in self.parameters) + "\n" + " ".join(values) + "\n"

    def text(self, format: str) -> str:
        """The space as a file of ``format`` holds it (for irace, the parameter file).

        Parameters
        ----------
        format : {"pcs", "pcs-new", "json", "irace"}
            The format (see the module's notes).

        Returns
        -------
        str
            The file's text.

        Raises
        ------
        ExportError
            For an unknown format, or a choice a PCS file cannot hold unquoted.
        """
        if format == "irace":
            return self.to_irace()
        if format == "json":
            return self._json()
        if format in ("pcs", "pcs-new"):
            return self._pcs(new=format == "pcs-new")
        raise ExportError(argument_message("format", "ParameterSpace", f"one of {FORMATS}", short(format)))

    def _pcs(self, *, new: bool) -> str:
        for p in self.parameters:
            bad = [v for v in (p.values if p.kind == "categorical" else ()) if not WORD.fullmatch(v)]
            if bad:
                raise ExportError(argument_message(
                    "values", f"{p.name} in a PCS file", "choices of letters, digits and "
                    "_ . @ : ; / ? $ * + -", short(bad), "Write the space in irace's format or JSON."))
        lines = []
        for p in self.parameters:
            if p.kind == "categorical":
                domain = f"{{{', '.join(p.values)}}} [{p.start}]"
            else:
                domain = f"[{_number(p, p.values[0])}, {_number(p, p.values[1])}] [{_number(p, p.start)}]"
            if new:
                lines.append(f"{p.name} {p.kind} {domain}" + ("log" if p.log else ""))
            else:
                flags = ("i" if p.kind == "integer" else "") + ("l" if p.log else "")
                lines.append(f"{p.name} {domain}{flags}")
        conditions = []
        for child in dict.fromkeys(c.child for c in self.conditions):
            clauses = [f"{c.parent} in {{{', '.join(c.values)}}}" for c in self._conditions_of[child]]
            if new:
                conditions.append(f"{child} | " + " && ".join(clauses))
            else:  # AClib's classic PCS: one line per condition, all of them hold
                conditions.extend(f"{child} | {clause}" for clause in clauses)
        forbidden = ["{" + ", ".join(f"{name}={_number(self._by_name[name], value)}"
                                     for name, value in combination) + "}"
                     for combination in self.forbidden]
        text = "\n".join(lines) + "\n"
        if conditions:
            text += "\n" + ("" if new else "Conditionals:\n") + "\n".join(conditions) + "\n"
        if forbidden:
            text += "\n" + ("" if new else "Forbidden:\n") + "\n".join(forbidden) + "\n"
        return text

    def _json(self) -> str:
        hyperparameters = []
        for p in self.parameters:
            entry: dict[str, Any] = {"name": p.name}
            if p.kind == "categorical":
                entry.update(type="categorical", choices=list(p.values), weights=None,
                             default_value=p.start)
            else:
                entry.update(type="uniform_int" if p.kind == "integer" else "uniform_float",
                             lower=p.values[0], upper=p.values[1], default_value=p.start, log=p.log)
            entry["meta"] = {"switch": p.switch}
            hyperparameters.append(entry)
        conditions = []
        for child in dict.fromkeys(c.child for c in self.conditions):
            clauses = [{"type": "IN", "child": child, "parent": c.parent, "values": list(c.values)}
                       for c in self._conditions_of[child]]
            conditions.append(clauses[0] if len(clauses) == 1 else {"type": "AND", "child": child,
                                                                         "conditions": clauses})
        forbiddens = []
        for combination in self.forbidden:
            clauses = [{"type": "EQUALS", "name": name, "value": value} for name, value in combination]
            forbiddens.append(clauses[0] if len(clauses) == 1 else {"type": "AND", "clauses": clauses})
        return json.dumps({"name": None, "hyperparameters": hyperparameters, "conditions": conditions,
                           "forbiddens": forbiddens, "format_version": 0.4}, indent=2) + "\n"

    def write(self, path: str | os.PathLike, format: str = "pcs", *, overwrite: bool = False,
              forbidden: str | os.PathLike | None = None) -> Path:
        """Write the space to ``path`` in ``format``, whole or not at all.

        Parameters
        ----------
        path : str or os.PathLike
            The file; its folder must exist.
        format : {"pcs", "pcs-new", "json", "irace"}
            The file's format (see the module's notes).
        overwrite : bool, keyword-only
            Replace an existing file.
        forbidden : str or os.PathLike, optional, keyword-only
            For irace, the forbidden file, written when the space has forbidden combinations
            (default ``forbidden.txt`` beside ``path``).

        Returns
        -------
        pathlib.Path
            ``path``.

        Raises
        ------
        ExportError
            For an unknown format, a choice a PCS file cannot hold, or an existing file without
            ``overwrite``.
        """
        target = Path(os.fspath(path))
        files = [(target, self.text(format))]
        if format == "irace" and self.forbidden:
            files.append((Path(os.fspath(forbidden)) if forbidden is not None
                          else target.with_name("forbidden.txt"), self.to_irace_forbidden()))
        for file, _ in files:
            if file.exists() and not overwrite:
                raise ExportError(argument_message("path", "ParameterSpace.write", "a file that does "
                                                   "not exist yet", str(file), "Pass overwrite=True."))
        for file, text in files:
            try:
                with atomic_file(file, overwrite=overwrite) as handle:
                    handle.write(text)
            except FileExistsError:
                raise ExportError(argument_message("path", "ParameterSpace.write", "a file that does "
                                                   "not exist yet", str(file), "Pass overwrite=True.")) from None
        return target

    # --- reading --------------------------------------------------------------------------

    @classmethod
    def read(cls, path: str | os.PathLike, *, format: str | None = None,
             forbidden: str | os.PathLike | None = None, switches: Mapping[str, str] | None = None,
             max_bytes: int = MAX_SPACE_BYTES) -> "ParameterSpace":
        """Read a space from a PCS (classic or ConfigSpace's), ConfigSpace JSON or irace file.

        Parameters
        ----------
        path : str or os.PathLike
            The file.
        format : {"pcs", "pcs-new", "json", "irace"}, optional, keyword-only
            The file's format; told from the content when not given.
        forbidden : str or os.PathLike, optional, keyword-only
            irace's forbidden file; by default ``forbidden.txt`` beside an irace ``path``, if
            there is one.
        switches : mapping, optional, keyword-only
            Option names to switches, over those the format gives (or the module's rule).
        max_bytes : int, keyword-only
            The largest file read.

        Returns
        -------
        ParameterSpace
            The space the file describes.

        Raises
        ------
        DataError
            For a file that is too large, not UTF-8, or not a space of the format; the
            message names the file, the line and its text.
        """
        source = Path(os.fspath(path))
        text = read_text(source, max_bytes)
        kind = format or format_of(text, str(source))
        forbidden_text = None
        if kind == "irace":
            extra = Path(os.fspath(forbidden)) if forbidden is not None else source.with_name("forbidden.txt")
            if forbidden is not None or (extra.is_file() and extra != source):
                forbidden_text = (read_text(extra, max_bytes), str(extra))
        return cls.parse(text, format=kind, name=str(source), forbidden=forbidden_text,
                         switches=switches)

    @classmethod
    def parse(cls, text: str, *, format: str | None = None, name: str = "<text>",
              forbidden: tuple[str, str] | str | None = None,
              switches: Mapping[str, str] | None = None) -> "ParameterSpace":
        """A space from the text of a space file (see :meth:`read`).

        Parameters
        ----------
        text : str
            The file's text.
        format : {"pcs", "pcs-new", "json", "irace"}, optional, keyword-only
            Told from the text when not given.
        name : str, keyword-only
            The file's name in error messages.
        forbidden : str or (str, str), optional, keyword-only
            irace's forbidden file's text (and its name).
        switches : mapping, optional, keyword-only
            Option names to switches.

        Returns
        -------
        ParameterSpace
            The space the text describes.

        Raises
        ------
        DataError
            For text that is not a space of the format (naming the line).

        Examples
        --------
        >>> space = ParameterSpace.parse('x "--x=" r,log (0.01, 1)\\n'
        ...                              'mode "-" c (a, b) | x > 0.5\\n')
        Traceback (most recent call last):
        ...
        maxent_util.errors.DataError: `line 2` of `<text>` must be a condition of conjunctions of \
'parent %in% c(values)', 'parent == value' or 'parent != value' on categorical options; got \
'mode "-" c (a, b) | x > 0.5'.
        """
        kind = format or format_of(text, name)
        if kind not in FORMATS:
            raise DataError(argument_message("format", name, f"one of {FORMATS}", short(kind)))
        reader = Reader(name)
        if kind == "json":
            parameters, conditions, combos = reader.json(text)
        elif kind == "irace":
            parameters, conditions, combos = reader.irace(text)
            if forbidden is not None:
                forbidden_text, forbidden_name = (forbidden, name) if isinstance(forbidden, str) else forbidden
                combos = Reader(forbidden_name).irace_forbidden(forbidden_text, parameters)
        else:
            parameters, conditions, combos = reader.pcs(text, new=kind == "pcs-new")
        for option in (switches or {}):
            if option not in parameters:
                raise DataError(argument_message("switches", name, "names of the file's options",
                                                 short(option)))
        made = []
        for entry in parameters.values():
            switch = (switches or {}).get(entry["name"], entry.get("switch"))
            if switch is None:
                switch = _default_switch(entry)
            try:
                made.append(Parameter(entry["name"], entry["kind"], entry["values"], switch,
                                      entry.get("log", False), entry.get("default")))
            except ExportError as error:
                raise DataError(f"{reader.where(entry['line'])}: {error}") from None
        try:
            return cls(made, [Condition(*c) for c in conditions], combos)
        except ExportError as error:
            raise DataError(f"{name}: {error}") from None


# --- helpers ---------------------------------------------------------------------------------


def _missing(method: str, library: str) -> str:
    return (f"ParameterSpace.{method} needs {library}, which is not installed; install the "
            "configure extra: pip install 'maxent_util[configure]'")


def _number(parameter: Parameter, value: Any) -> str:
    """A value as the files write it: integers bare, reals as their shortest exact repr."""
    if parameter.kind == "categorical":
        return str(value)
    return str(int(value)) if parameter.kind == "integer" else repr(float(value))


def _irace_value(value: Any) -> str:
    return f'"{value}"' if isinstance(value, str) else repr(value)


def _default_switch(entry: Mapping[str, Any]) -> str:
    if entry["kind"] == "categorical" and all(str(v).startswith("-") for v in entry["values"]):
        return ""
    return "-" + entry["name"].replace("_", "-") + "="


