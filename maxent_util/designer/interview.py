"""The interview: the questions asked through two callables, each answer shown as its
constraint, and asked again until it can be read and holds with the others."""

from __future__ import annotations

from typing import Callable

from ..errors import argument_message
from .facts import Fact, check_complete, read_answer
from .questions import BY_KEY, FACT_KEYS, OWNER, QUESTIONS, DesignError, Question
from .result import Design, finish

# ---------------------------------------------------------------------------
# the interview
# ---------------------------------------------------------------------------

def interview(ask: Callable[[Question], str], say_line: Callable[[str], None], *,
              tries: int = 20) -> Design:
    """Ask the questions through ``ask``, show each answer as its constraint through ``say_line``,
    and ask again after an answer that cannot be read or cannot hold with the others.

    Parameters
    ----------
    ask : callable
        Question -> the answer typed (an empty text skips an optional question).
    say_line : callable
        Shows one line to the person.
    tries : int, keyword-only
        How many times one question is asked before giving up.

    Returns
    -------
    Design
        As :func:`design` gives it for the same answers.

    Raises
    ------
    DesignError
        When a question was answered wrongly ``tries`` times.
    """
    read: dict[str, Fact] = {}

    def one(question: Question) -> None:
        for _ in range(tries):
            text = ask(question)
            if question.optional and not text.strip():
                return
            try:
                fact = read_answer(question.key, text, {k: v for k, v in read.items() if k in FACT_KEYS})
            except DesignError as error:
                say_line(f"  ! {error.explanation} Please answer again.")
                continue
            read[question.key] = fact
            say_line(f"  = {fact}")
            return
        raise DesignError(argument_message(question.key, OWNER, "answered in a way that can be read",
                                           f"{tries} tries"), keys=(question.key,),
                          explanation="Too many answers that could not be read.")

    def incomplete() -> DesignError | None:
        try:
            check_complete({k: v for k, v in read.items() if k in FACT_KEYS})
        except DesignError as error:
            return error
        return None

    def complete_facts() -> None:
        """Ask the facts that would settle the law, one at a time, until they do."""
        for _ in range(tries):
            error = incomplete()
            if error is None:
                return
            say_line(f"  ! {error.explanation}")
            for key in error.keys:
                one(BY_KEY[key])
                if incomplete() is None:
                    return

    for question in QUESTIONS:
        if question.applies({k: f.value for k, f in read.items()}):
            one(question)
        if question.key == "tail" and read["captime"].value == "facts":
            complete_facts()
    for _ in range(tries):
        try:
            if read["captime"].value == "facts":
                say_line("Deriving the maximum-entropy law of these facts ...")
            return finish(read)
        except DesignError as error:
            say_line(f"  ! {error.explanation} Please answer again.")
            for key in error.keys:
                read.pop(key, None)
            for key in error.keys:
                one(BY_KEY[key])
    raise DesignError(argument_message("answers", OWNER, "answers that give a law", f"{tries} tries"),
                      keys=(), explanation="Too many answers that could not hold together.")

