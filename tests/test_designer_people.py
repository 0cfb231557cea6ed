"""Thirty people answer the designer as people write, and each reaches a utility.

Each script is what one person types at the prompts, in order (an empty answer skips an
optional question). The answers are written the ways people write durations, chances and
choices; none is in the library's own notation. The interview runs through the library's
`interview` (the code behind `maxent-util design`), and three of the people also through a
pseudo-terminal, to check the command shows the same. Re-asks are counted: an answer the
designer could not read, or that could not hold with the others.
"""

from __future__ import annotations

import io
import sys

import numpy as np
import pytest

from maxent_util.designer import interview
from maxent_util.designer.questions import QUESTIONS

# (name, answers typed in order, re-asks expected): the facts questions come in the order
# longest, shortest, typical, median, magnitude, spread, tail
PEOPLE = [
    ("deadline in words", ["yes", "two hours", "the same whenever it comes"], 0),
    ("deadline, clock", ["exactly", "1:30:00", "same"], 0),
    ("deadline, abbreviated", ["1", "90m", "1"], 0),
    ("deadline with money", ["known", "an hour and a half", "waiting costs money", "12.50", "200"], 0),
    ("a law", ["as a probability distribution", "exponential(15 min)", "constant"], 0),
    ("a law, log-normal", ["a distribution", "log_normal(1h, 1)", "the same"], 0),
    ("longest only", ["not exactly, I can tell you a few things", "an hour", "", "", "", "", "", "",
                      "same whenever it comes"], 0),
    ("longest and median", ["no", "1 hour", "", "", "half the time under 10 minutes", "", "", "",
                            "the same"], 0),
    ("typical only", ["not exactly", "", "", "about 20 minutes", "", "", "", "", "same"], 0),
    ("typical, approximate", ["3", "", "", "20 min or so", "", "", "", "", "1"], 0),
    ("longest and typical", ["facts", "2 hrs", "", "half an hour", "", "", "", "", "constant"], 0),
    ("shortest and magnitude", ["facts", "", "1 min", "", "", "about an hour", "", "", "1"], 0),
    ("magnitude range", ["facts", "", "", "", "", "between 1 min and 1 h", "", "", "1"], 0),
    ("magnitude with a dash", ["facts", "", "", "", "", "1 min - 1 h", "", "", "1"], 0),
    ("magnitude and spread", ["facts", "", "", "", "", "about 1h", "a factor of 3", "", "1"], 0),
    ("median and spread", ["facts", "", "", "", "10 minutes", "", "within a factor of 2", "",
                           "same"], 0),
    ("longest and tail", ["facts", "1 hour", "", "", "", "", "", "one time in ten after 50 minutes",
                          "same"], 0),
    ("tail in words", ["facts", "two hours", "", "", "", "", "",
                       "1 in 10 I would still be waiting after an hour and a half", "1"], 0),
    ("three facts", ["facts", "1h", "", "", "10 min", "", "", "1 in 10 after 50 min", "1"], 0),
    ("money and facts", ["facts", "1h", "", "20 min", "", "", "", "", "waiting costs money",
                         "12.5", "200"], 0),
    ("a week", ["facts", "a week", "", "a day", "", "", "", "", "same"], 0),
    ("weeks and days", ["facts", "3 weeks", "", "2.5 days", "", "", "", "", "same"], 0),
    ("seconds", ["facts", "90 secs", "", "20s", "", "", "", "", "same"], 0),
    ("milliseconds", ["facts", "500ms", "", "100 ms", "", "", "", "", "same"], 0),
    ("quarter hour", ["facts", "", "", "a quarter of an hour", "", "", "", "", "same"], 0),
    # people who write something the designer asks about again
    ("vague choice first", ["perhaps", "facts", "1h", "", "", "", "", "", "", "same"], 1),
    ("typo in a unit", ["facts", "1 hr", "", "20 mn", "20 min", "", "", "", "", "same"], 1),
    ("typical past longest", ["facts", "1h", "", "2h", "15 min", "", "", "", "", "same"], 1),
    ("vague tail", ["facts", "1h", "", "", "", "", "", "most of the time after 10 min",
                    "9 in 10 after 10 min", "same"], 1),
    ("negative", ["facts", "-1 h", "1h", "", "", "", "", "", "", "same"], 1),
]


def scripted(answers):
    typed, shown = list(answers), []

    def ask(question):
        if not typed:
            raise AssertionError(f"asked {question.key!r} after the script ended; shown: {shown}")
        return typed.pop(0)
    return ask, shown.append, shown, typed


@pytest.mark.parametrize("name, answers, reasks", PEOPLE, ids=[p[0] for p in PEOPLE])
def test_each_person_reaches_a_utility(name, answers, reasks):
    ask, show, shown, left = scripted(answers)
    result = interview(ask, show)
    assert left == [], f"{name}: answers left over {left}"
    asked_again = sum("Please answer again" in line for line in shown)
    assert asked_again == reasks, shown
    # a utility: 1 at t = 0, falling, within [0, 1] (checked on a grid over 12 decades)
    times = np.concatenate([[0.0], np.geomspace(1e-3, 1e9, 49)])
    values = np.asarray(result.utility(times), dtype=float)
    assert np.all((values >= 0) & (values <= 1 + 1e-12)) and values[0] == pytest.approx(1.0)
    assert np.all(np.diff(values) <= 1e-12)
    assert "\\" not in result.summary()  # no raw LaTeX on the terminal


def test_thirty_people_and_how_many_were_asked_again():
    assert len(PEOPLE) == 30
    # the closing count: people who needed at least one question asked again
    assert sum(1 for *_, reasks in PEOPLE if reasks) == 5


def test_every_question_is_met_by_some_person():
    keys = {question.key for question in QUESTIONS}
    met = set()
    for _, answers, _ in PEOPLE:
        ask, show, shown, _ = scripted(answers)
        asked = []

        def recording(question, ask=ask):
            asked.append(question.key)
            return ask(question)
        interview(recording, show)
        met |= set(asked)
    assert met == keys


@pytest.mark.parametrize("name", ["longest and median", "three facts", "deadline with money"])
def test_the_command_shows_the_same_through_a_terminal(tmp_path, name):
    pexpect = pytest.importorskip("pexpect")
    from conftest import checkout_env

    answers = dict((p[0], p[1]) for p in PEOPLE)[name]
    ask, show, shown, _ = scripted(answers)
    expected = interview(ask, show)
    child = pexpect.spawn(sys.executable, ["-m", "maxent_util", "design", "--no-plot"],
                          cwd=str(tmp_path), env=checkout_env(), encoding="utf-8", timeout=60,
                          dimensions=(200, 200))
    child.logfile_read = seen = io.StringIO()  # everything the terminal showed
    child.delaybeforesend = None  # each answer follows its prompt (no 50 ms pause a send)
    for text in answers:
        child.expect_exact("> ")
        child.sendline(text)
    child.expect(pexpect.EOF)
    child.close()
    terminal = seen.getvalue().replace("\r\n", "\n")
    assert child.exitstatus == 0, terminal
    for line in shown:
        assert line.strip() in terminal
    assert "wrote design.json" in terminal
    from maxent_util import from_json

    written = from_json((tmp_path / "design.json").read_text(encoding="utf-8"))
    times = np.array([1.0, 60.0, 600.0, 3000.0])
    assert np.allclose(written(times), expected.utility(times), rtol=1e-12, atol=0)
