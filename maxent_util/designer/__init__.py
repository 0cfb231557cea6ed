"""The guided utility designer: plain answers about one's patience -> a utility.

The paper's summary table (its Figure "Implied scoring functions for
different scenarios") asks two questions: is the captime known exactly, known
as a distribution, or unknown; and is a solution worth the same whenever it
comes, or does waiting cost money (Section 3)?  For an unknown captime the
person states a few facts they can answer in words and units ("the longest I
would ever wait is 2 h", "half the time I would stop before 10 min"); each
fact becomes one of the library's constraints (:mod:`maxent_util.constraints`),
and the maximum-entropy law of those constraints (:func:`maxent_util.derive`)
gives the utility.

Answers are read one at a time (:func:`read_answer`), each against the ones
before it, so that an impossible or conflicting answer is explained in the
person's terms ("a typical wait of 2h cannot exceed the longest wait of 1h")
before anything is derived; :func:`design` reads a whole mapping of answers
and :func:`interview` asks the same questions through two callables (the
command line's prompts, a notebook's widgets), asking again after a
:class:`DesignError`.  The law is derived once, at the end; a fact set that is
one of the paper's presets is taken from the shipped closed forms instead.

The facts and the constraints they become (``lower``/``upper`` are the ends
of the support: the shortest and longest wait, or the order of magnitude's
range; ``c`` is the centre on a log scale)::

    longest L            Support(lower, L)
    shortest S           Support(S, upper)
    typical M            Mean(M)
    median m             TailProbability(m, 1/2)
    magnitude a..b       Support(a, b) and E[log kappa] = log sqrt(a b)
    magnitude about c    E[log kappa] = log c
    spread k             SquaredLogDeviation(log k, c)  (c: the magnitude's centre, else the median)
    tail 1 in n after T  TailProbability(T, 1 - 1/n)

The log-scale centre is written ``LogMoment(log(c/lower), lower)`` when the
support starts above 0 (the paper's Pareto form) and ``LogMoment(0, c)``
otherwise: the same fact, E[log kappa] = log c.
"""


from __future__ import annotations

from .facts import Fact, check_complete, read_answer
from .interview import interview
from .questions import (CAPTIME_KINDS, FACT_KEYS, QUESTIONS, VALUE_KINDS, DesignError, Question, say)
from .result import SCENARIOS, Design, design, finish

__all__ = ["QUESTIONS", "Question", "Fact", "Design", "DesignError", "design", "finish", "read_answer",
           "check_complete", "interview", "say", "SCENARIOS", "CAPTIME_KINDS", "VALUE_KINDS", "FACT_KEYS"]
