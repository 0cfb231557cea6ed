"""A solver's parameter space, read and written in the field's formats.

:class:`ParameterSpace` holds a solver's options (:class:`Parameter`: real, integer or
categorical, with its range, log scale, default and command-line switch), the conditions
under which an option matters (:class:`Condition`: ``child`` only when ``parent`` takes one of
some values) and the forbidden combinations of values. It is read from and written to the
formats configurators keep spaces in:

``"pcs"``
    The classic PCS of AClib and SMAC (``name [lo, hi] [default]il``, ``name {a, b} [a]``,
    ``Conditionals:`` with ``child | parent in {a}``, ``Forbidden:`` with ``{p=a, q=b}``).
``"pcs-new"``
    ConfigSpace's newer PCS (``name real [lo, hi] [default]log``, ``name categorical {a, b}
    [a]``, ``child | parent in {a} && other == b``).
``"json"``
    ConfigSpace's JSON (``ConfigSpace.read_and_write.json``; the switches ride in each
    hyperparameter's ``meta``).
``"irace"``
    irace's parameter file (``name "switch" r,log (lo, hi) | parent %in% c("a")``) and its
    forbidden file (``(p == "a") & (q == 2)``).

Every file is hostile: a small tokenizer and grammar of this module's own read it (no
``eval``, no R, no ConfigSpace), the file's size is bounded, and each refusal names the file,
the line and the text. Conditions are conjunctions of ``parent in {values}`` on categorical
parents (``==`` and ``!=`` are read as such sets); ``||`` and comparisons of numbers are
refused rather than approximated. irace's ordinal (``o``) and ConfigSpace's ordinal and
constant options are read as categorical ones (the order is not kept).

PCS and JSON name no switches: an option read from them gets the switch ``-name=`` (its
``_`` written ``-``), and a categorical option whose choices all start with ``-`` gets none
(the choices are whole words, as ``{-luby, -no-luby}``); ``switches=`` sets others. irace's
parameter file holds no defaults: an option read from it has the default a configurator
would take (ConfigSpace's: the middle of the range, on the log scale for a log option; the
first choice).

ConfigSpace and Optuna are imported only by :meth:`ParameterSpace.to_configspace` and
:meth:`ParameterSpace.suggest`, so reading and writing spaces needs neither.
"""

from __future__ import annotations

from .core import FORMATS, IRACE_SLACK, Condition, Parameter, ParameterSpace, space_words
from .reading import MAX_SPACE_BYTES

__all__ = ["Condition", "Parameter", "ParameterSpace", "FORMATS", "IRACE_SLACK", "MAX_SPACE_BYTES",
           "space_words"]
