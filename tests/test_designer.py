"""The guided utility designer (issue 26, section 1): answers -> constraints -> law -> utility.

References: the paper's formulas (Section 3 and Appendix C) worked by hand at the answers' values,
scipy.stats for the log-normal, scipy.integrate.quad for the money utilities, scipy.optimize for
the truncated exponential's rate.
"""

from __future__ import annotations

import json
import math
import re

import mpmath
import numpy as np
import pytest
import sympy
from hypothesis import given, settings, strategies as st
from scipy import integrate, optimize, stats

from maxent_util import derive, from_json, parse_rule
from maxent_util.constraints import LogMoment, Mean, SquaredLogDeviation, Support, TailProbability
from maxent_util.designer import (FACT_KEYS, QUESTIONS, DesignError, check_complete, design, interview,
                                  read_answer, say)

FACTS = {"captime": "facts", "value": "constant"}


def facts(**answers):
    return design({**FACTS, **answers})


# ---------------------------------------------------------------------------
# each answer becomes its constraint

@pytest.mark.parametrize("key, text, constraints", [
    ("longest", "1h", (Support(0, 3600),)),
    ("shortest", "90s", (Support(90, sympy.oo),)),
    ("typical", "15 min", (Mean(900),)),
    ("median", "10min", (TailProbability(600, sympy.Rational(1, 2)),)),
    ("magnitude", "between 1 min and 1 h", (Support(60, 3600), LogMoment(sympy.log(60) / 2, 60))),
    ("magnitude", "about 1h", (LogMoment(0, 3600),)),
    ("tail", "1 in 10 after 2h", (TailProbability(7200, sympy.Rational(9, 10)),)),
])
def test_each_fact_becomes_its_constraint(key, text, constraints):
    assert read_answer(key, text).constraints == constraints


def test_a_spread_is_measured_around_the_median_or_the_order_of_magnitude():
    median = read_answer("median", "10 min")
    assert read_answer("spread", "3", {"median": median}).constraints == (
        SquaredLogDeviation(sympy.log(3), 600),)
    magnitude = read_answer("magnitude", "between 1 min and 1 h")
    assert read_answer("spread", "a factor of 2", {"magnitude": magnitude}).constraints == (
        SquaredLogDeviation(sympy.log(2), 60 * sympy.sqrt(60)),)


def test_the_log_scale_centre_takes_the_pareto_form_above_a_shortest_wait():
    shortest = read_answer("shortest", "1 min")
    fact = read_answer("magnitude", "about 1h", {"shortest": shortest})
    assert fact.constraints == (LogMoment(sympy.log(60), 60),)   # E[log(kappa/60)] = log 60


@pytest.mark.parametrize("text", ["1 in 10", "10%", "0.1", "1/10", " 1 out of 10 "])
def test_chances_as_people_say_them(text):
    chance, after = read_answer("tail", {"chance": text, "after": "2h"}).value
    assert (chance, after) == (sympy.Rational(1, 10), 7200)


@pytest.mark.parametrize("text", ["3", "a factor of 3", "3x", "x3", "within a factor of 3 either way", 3])
def test_spread_factors_as_people_say_them(text):
    median = read_answer("median", "1h")
    assert read_answer("spread", text, {"median": median}).value == 3


@pytest.mark.parametrize("value", ["1 in 10 after 2h", ["1 in 10", "2h"], {"chance": 0.1, "after": 7200}])
def test_a_tail_as_text_pair_or_table(value):
    assert read_answer("tail", value).value == (sympy.Rational(1, 10), 7200)


@pytest.mark.parametrize("value", ["1min-1h", "from 1 min to 1 h", ["1 min", "1 h"], "somewhere between 60 and 1h",
                                   "6e1-3.6e3"])
def test_order_of_magnitude_ranges(value):
    assert read_answer("magnitude", value).value == (60, 3600)


def test_say_writes_durations_as_people_read_them():
    assert [say(3600), say(5400.0), say(60 * sympy.sqrt(60)), say(0.25), say(10 ** 30), say(1e-20)] == [
        "1h", "1h30min", "about 7min45s", "0.25s", "about 1.16e+25 days", "about 1e-20s"]


# ---------------------------------------------------------------------------
# the laws and utilities, against the paper's formulas

def test_longest_wait_alone_is_the_uniform_law():
    result = facts(longest="1h")
    assert result.spec == "uniform(3600)"
    assert result.sentences(["15 min"]) == ["a run of 15min is worth 0.75 of an instant one"]  # 1 - 900/3600


def test_typical_wait_alone_is_the_exponential_law():
    result = facts(typical="15 min")
    assert result.spec == "exponential(900)"
    assert float(result.utility(600.0)) == pytest.approx(math.exp(-600 / 900), rel=1e-12)


def test_longest_and_median_is_the_papers_piecewise_law():
    result = facts(longest="1h", median="10 min")
    assert result.spec == "piecewise(3600, 600, 1/2)"
    # Section 3: u = 1 - delta t / kappa1 below kappa1, (1 - delta)(kappa0 - t)/(kappa0 - kappa1) above
    assert float(result.utility(300.0)) == pytest.approx(1 - 0.5 * 300 / 600, rel=1e-12)
    assert float(result.utility(1200.0)) == pytest.approx(0.5 * (3600 - 1200) / 3000, rel=1e-12)


def test_shortest_wait_and_order_of_magnitude_is_the_pareto_law():
    result = facts(shortest="1 min", magnitude="about 1h")
    assert result.spec == "pareto(60, 1/log(60))"
    # u = (kappa0/t)**alpha with alpha = 1/log(60): at the centre t = 1 h, (1/60)**(1/log 60) = 1/e
    assert float(result.utility(3600.0)) == pytest.approx(math.exp(-1), rel=1e-12)


def test_order_of_magnitude_and_spread_is_the_log_normal_law():
    result = facts(magnitude="about 10 min", spread="3")
    assert result.spec == "log_normal(600, log(3))"
    reference = stats.lognorm(s=math.log(3), scale=600).sf(1800.0)   # scipy.stats
    assert float(result.utility(1800.0)) == pytest.approx(reference, rel=1e-10)


def test_an_order_of_magnitude_range_is_log_uniform():
    result = facts(magnitude="between 1 min and 1 h")
    # E[log kappa] fixed on [a, b]: density 1/(kappa log(b/a)), u = 1 - log(t/a)/log(b/a) (by hand)
    for time in (60.0, 300.0, 3600.0 ** 0.5 * 60 ** 0.5, 3000.0):
        assert float(result.utility(time)) == pytest.approx(1 - math.log(time / 60) / math.log(60), abs=1e-12)
    assert parse_rule(result.spec)(300.0) == pytest.approx(float(result.utility(300.0)), rel=1e-12)


def test_longest_and_typical_wait_is_the_truncated_exponential():
    result = facts(longest="1h", typical="15 min")
    assert result.constraints == (Support(0, 3600), Mean(900))

    def mean(rate):   # the mean of exp(-rate k) on [0, L], by hand
        return 1 / rate - 3600 / math.expm1(rate * 3600)
    rate = optimize.brentq(lambda r: mean(r) - 900, 1e-6, 1e-2, xtol=1e-15)
    survival = (math.exp(-rate * 600) - math.exp(-rate * 3600)) / -math.expm1(-rate * 3600)
    assert float(result.utility(600.0)) == pytest.approx(survival, rel=1e-9)
    assert parse_rule(result.spec)(600.0) == pytest.approx(survival, rel=1e-9)


def test_known_captime_constant_value_is_the_step():
    result = design({"captime": "known", "known": "2h", "value": "constant"})
    assert result.scenario == "solves the most instances (within the captime)"
    assert [float(result.utility(x)) for x in (7199.0, 7200.0)] == [1.0, 0.0]
    assert result.sentences() == ["a run of 1h is worth as much as an instant one",
                                  "a run of 4h is worth nothing"]


def test_known_captime_with_money_is_the_papers_linear_utility():
    result = design({"captime": "known", "known": "2h", "value": "money", "cost_per_hour": "10",
                     "solution_value": "100"})
    a, v, kappa0 = 10 / 3600, 100, 7200
    # Section 3: p(t) = (v + a (kappa0 - t)) / (v + a kappa0)
    assert float(result.utility(1800.0)) == pytest.approx((v + a * (kappa0 - 1800)) / (v + a * kappa0), rel=1e-12)


def test_money_over_an_uncertain_captime_is_the_expected_proportion_of_benefit():
    result = facts(longest="1h", value="money", cost_per_hour="10", solution_value="100")
    assert result.scenario.startswith("gives the greatest expected proportion of benefit, in expectation")
    a, v = 10 / 3600, 100

    def reference(time):   # E over kappa ~ U(0, 1 h) of p(t, kappa), by quadrature
        return integrate.quad(lambda k: (v + a * (k - time)) / (v + a * k) / 3600, time, 3600,
                              epsabs=1e-13)[0]
    for time in (60.0, 900.0, 3000.0):
        assert float(result.utility(time)) == pytest.approx(reference(time), rel=1e-9)


def test_a_known_distribution_is_taken_as_it_is():
    result = design({"captime": "distribution", "law": "exponential(15 min)", "value": "constant"})
    assert result.spec == "exponential(900)"
    assert result.scenario == "is most likely to solve an instance from K"


def test_money_notes_say_what_the_paper_says():
    free = design({"captime": "known", "known": "1h", "value": "money", "cost_per_hour": "0",
                   "solution_value": "5"})
    assert free.notes == ("Waiting costs nothing: the value of a solution is constant.",)
    worthless = design({"captime": "known", "known": "1h", "value": "money", "cost_per_hour": "3",
                        "solution_value": "0"})
    assert "capped average runtime" in worthless.notes[0]


# ---------------------------------------------------------------------------
# conflicts in the person's terms

@pytest.mark.parametrize("answers, key, explanation", [
    ({"longest": "1h", "typical": "2h"}, "typical", "A typical wait of 2h cannot exceed the longest wait of 1h."),
    ({"longest": "1h", "typical": "1h"}, "typical", "cannot equal the longest wait"),
    ({"shortest": "10min", "typical": "5min"}, "typical", "cannot be shorter than the shortest wait of 10min"),
    ({"shortest": "2h", "longest": "1h"}, "shortest", r"shortest wait you always allow \(2h\) must be shorter"),
    ({"longest": "1h", "median": "2h"}, "median", "by then you would always have stopped"),
    ({"shortest": "1h", "median": "10 min"}, "median", "before 10min you would never have stopped"),
    ({"typical": "3min", "median": "10min"}, "median", r"a typical \(average\) wait lies above 5min; 3min cannot be"),
    ({"median": "10min", "tail": "1 in 10 after 5 min"}, "tail", "the later time must find fewer"),
    ({"median": "10min", "tail": "1 in 2 after 10 min"}, "tail", "two chances at the same time"),
    ({"magnitude": "between 1min and 1h", "spread": "10"}, "spread",
     "at most a factor of 7.75 away from about 7min45s"),
    ({"shortest": "1s", "typical": "10min", "magnitude": "about 1h"}, "magnitude",
     "the average is always above the centre on a log scale"),
    ({"shortest": "1h", "magnitude": "about 10min"}, "magnitude", "lies between 1h and forever"),
    ({"longest": "1h", "magnitude": "between 1min and 1h"}, "magnitude", "say 'about C' instead"),
    ({"spread": "3"}, "spread", "How sure you are is measured around a centre"),
    # uniform halves of [0, 2h] around 1h: E[log(k/1h)**2] = (2 + (2 log(2)**2 - 4 log(2) + 2))/2
    # = 1.0942 by hand, a factor of exp(sqrt(1.0942)) = 2.85; no maximum-entropy law goes further
    ({"longest": "2h", "median": "1h", "spread": "5"}, "spread",
     r"then a typical wait is a factor of 2.85 from 1h. A factor of 5 would need more waits"),
    ({"longest": "0"}, "longest", "A wait of no time at all"),
    ({"longest": "fortnight"}, "longest", "must be a duration: a number of seconds or numbers with units"),
    ({"tail": "2 in 1 after 1h"}, "tail", "A chance of never or always"),
    ({"magnitude": "between 1h and 1min"}, "magnitude", "needs the shorter end first"),
])
def test_conflicts_are_explained_in_the_persons_terms(answers, key, explanation):
    with pytest.raises(DesignError, match=explanation) as caught:
        facts(**answers)
    assert caught.value.keys[0] == key and set(caught.value.keys) <= set(answers)
    assert str(caught.value).startswith(f"`{key}` of `design` must be ")


def test_a_conflict_names_every_answer_involved():
    with pytest.raises(DesignError) as caught:
        facts(longest="1h", typical="3 min", median="10min")
    assert caught.value.keys == ("median", "typical", "longest")


def test_the_issues_example_is_said_word_for_word():
    longest = read_answer("longest", "1h")
    with pytest.raises(DesignError) as caught:
        read_answer("typical", "2h", {"longest": longest})
    assert caught.value.explanation == "A typical wait of 2h cannot exceed the longest wait of 1h."


@pytest.mark.parametrize("answers, keys, explanation", [
    ({"median": "10 min"}, ("longest", "typical", "magnitude", "spread", "shortest"),
     "Nothing you said limits how long the long waits can be"),
    ({"magnitude": "about 10 min"}, ("longest", "typical", "spread", "shortest"),
     "An order of magnitude alone leaves both"),
    ({}, FACT_KEYS, "Say at least one thing about your patience"),
])
def test_facts_that_determine_no_law_say_what_would(answers, keys, explanation):
    with pytest.raises(DesignError, match=explanation) as caught:
        facts(**answers)
    assert caught.value.keys == keys


def test_answers_that_do_not_fit_the_branch_or_the_questions_are_refused():
    with pytest.raises(DesignError, match="`longest` of `design` must be left out here"):
        design({"captime": "known", "known": "1h", "longest": "2h", "value": "constant"})
    with pytest.raises(DesignError, match="`answers` of `design` must be keyed by the questions"):
        design({**FACTS, "patience": "none"})
    with pytest.raises(DesignError, match="`known` of `design` must be answered"):
        design({"captime": "known", "value": "constant"})
    with pytest.raises(DesignError, match="`captime` of `design` must be one of 'known'"):
        design({"captime": "maybe", "value": "constant"})
    with pytest.raises(DesignError, match="`answers` of `design` must be a mapping"):
        design("longest=1h")
    with pytest.raises(DesignError, match="nothing is at stake"):
        design({"captime": "known", "known": "1h", "value": "money", "cost_per_hour": "0",
                "solution_value": "0"})
    with pytest.raises(DesignError, match="must be an amount of at least 0"):
        design({"captime": "known", "known": "1h", "value": "money", "cost_per_hour": "-3",
                "solution_value": "1"})


def test_a_law_text_goes_through_the_safe_reader():
    with pytest.raises(DesignError, match="`spec` of `parse_family` must be a preset call"):
        design({"captime": "distribution", "law": "__import__('os').system('true')", "value": "constant"})


@settings(max_examples=60, deadline=None)
@given(key=st.sampled_from([q.key for q in QUESTIONS]),
       value=st.one_of(st.text(max_size=40), st.integers(-10, 10 ** 6), st.floats(allow_nan=True),
                       st.none(), st.booleans(), st.lists(st.text(max_size=5), max_size=3)))
def test_any_answer_is_read_or_refused_by_a_design_error(key, value):
    try:
        read_answer(key, value)
    except DesignError as error:
        assert error.explanation and "\n" not in error.explanation


@settings(max_examples=25, deadline=None)
@given(longest=st.integers(2, 10 ** 6), median=st.integers(1, 10 ** 6))
def test_a_median_under_the_longest_wait_is_met_and_any_other_is_explained(longest, median):
    try:
        result = facts(longest=str(longest), median=str(median))
    except DesignError as error:
        assert median >= longest and "you would always have stopped" in error.explanation
    else:
        assert median < longest
        assert float(result.utility(float(median))) == pytest.approx(0.5, rel=1e-12)


# ---------------------------------------------------------------------------
# what the design hands over

def test_the_json_document_is_the_utility_with_the_design_attached(tmp_path):
    result = facts(longest="1h", median="10 min")
    target = tmp_path / "design.json"
    result.write_json(target)
    text = target.read_text(encoding="utf-8")
    utility = from_json(text)
    assert utility.name == "piecewise(3600, 600, 1/2)"
    assert float(utility(1200.0)) == float(result.utility(1200.0))
    record = json.loads(text)["design"]
    assert record["answers"] == {"captime": "facts", "longest": 3600, "median": 600, "value": "constant"}
    assert record["facts"][2]["constraints"] == ["TailProbability(600, 1/2)"]
    with pytest.raises(FileExistsError):
        result.write_json(target)
    assert json.loads(target.read_text(encoding="utf-8")) == json.loads(text)


def test_the_spec_reads_back_to_the_same_utility():
    result = facts(magnitude="between 1 min and 1 h")
    again = parse_rule(result.spec)
    times = np.array([30.0, 90.0, 600.0, 3000.0, 7200.0])
    assert np.allclose(again(times), result.utility(times), rtol=1e-12, atol=0)


def test_the_summary_shows_constraints_law_utility_and_worth_in_words():
    text = facts(longest="1h").summary()
    assert "as constraints on your patience κ: κ ∈ [0, 3600 s (1 h)]" in text
    # the utility drawn in Unicode mathematics: 1 - t/3600 below the hour, 0 after
    assert "  u(t) = ⎨" in text and "for t < 3600" in text and "otherwise" in text
    assert "\\" not in text and "Piecewise" not in text.split("Spec:")[0]  # no raw LaTeX or sympy
    assert text.startswith("Scoring by this utility puts first the algorithm most likely to finish")
    assert "A run of 15min is worth 0.75 of an instant one." in text
    assert "Spec: uniform(3600)" in text


def test_the_plot_is_written_to_a_file(tmp_path):
    pytest.importorskip("matplotlib")
    target = tmp_path / "u.png"
    assert facts(longest="1h").plot(target) is True
    assert target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


# ---------------------------------------------------------------------------
# the interview

def scripted(answers):
    """An `ask` that types the given answers in turn, and a record of what was shown."""
    typed, shown, asked = list(answers), [], []

    def ask(question):
        asked.append(question.key)
        return typed.pop(0)
    return ask, shown.append, shown, asked


def test_the_interview_asks_again_after_wrong_answers_and_gives_what_design_gives():
    ask, show, shown, asked = scripted([
        "perhaps", "3",             # captime: not a choice, then facts
        "1h", "",                   # longest; no shortest
        "2h", "15 min",             # typical: over the longest, then fine
        "", "", "", "",             # no median, magnitude, spread, tail
        "1",                        # value: constant
    ])
    result = interview(ask, show)
    assert asked == ["captime", "captime", "longest", "shortest", "typical", "typical", "median",
                     "magnitude", "spread", "tail", "value"]
    assert "  ! A typical wait of 2h cannot exceed the longest wait of 1h. Please answer again." in shown
    assert "  = a typical (average) wait is 15min  ->  E(κ) = 900 s (15 min)" in shown
    expected = facts(longest="1h", typical="15 min")
    assert result.formula() == expected.formula() and result.spec == expected.spec


def test_the_interview_asks_for_a_fact_that_bounds_the_long_waits():
    ask, show, shown, asked = scripted(["facts", "", "", "", "10 min", "", "", "", "1h", "constant"])
    result = interview(ask, show)
    assert any("Nothing you said limits how long the long waits can be" in line for line in shown)
    assert asked[-2:] == ["longest", "value"]
    assert result.spec == "piecewise(3600, 600, 1/2)"


def test_check_complete_passes_bounded_facts():
    check_complete({"longest": read_answer("longest", "1h")})


@settings(max_examples=8, deadline=None)
@given(shortest=st.integers(1, 10 ** 6), ratio=st.integers(2, 10 ** 4))
def test_a_shortest_wait_with_an_order_of_magnitude_is_always_the_pareto_preset(shortest, ratio):
    result = facts(shortest=str(shortest), magnitude=f"about {shortest * ratio}")
    assert result.spec.startswith("pareto(")
    # (S/c)**(1/log(c/S)) = 1/e at the centre c, whatever S and c (by hand)
    assert float(result.utility(float(shortest * ratio))) == pytest.approx(math.exp(-1), rel=1e-9)


def test_the_interview_asks_the_facts_again_when_no_law_follows(monkeypatch):
    from maxent_util.designer import result as result_module
    from maxent_util.errors import InfeasibleError

    def no_law(*constraints, **options):
        raise InfeasibleError("the constraints Mean(900) cannot hold (a stand-in failure)")
    monkeypatch.setattr(result_module, "derive", no_law)
    ask, show, shown, asked = scripted(["facts", "1h", "", "15 min", "", "", "", "", "constant",
                                        "1h", ""])   # asked again: longest, then typical (skipped)
    result = interview(ask, show)
    assert any(line.startswith("  ! No captime law follows from these answers together (the "
                               "constraints Mean(900) cannot hold") for line in shown)
    assert asked[-2:] == ["longest", "typical"]
    assert result.spec == "uniform(3600)"


def test_a_money_design_over_a_piecewise_law_is_the_same_by_quadrature_and_in_closed_form():
    # the quadrature of one rule for every runtime did not converge over a density with
    # breakpoints (2,049 intervals, error 4.6e-4, reported as a value); each runtime alone,
    # split at the breakpoints, is checked against the closed form sympy integrates
    from maxent_util.symbols import kappa, t
    from maxent_util.utility.expected import expected_utility

    answers = {"captime": "facts", "longest": "1h", "median": "10 min",
               "tail": "1 in 10 after 50 min", "value": "money", "cost_per_hour": 12.5,
               "solution_value": 200}
    closed = design(answers)
    assert closed.utility.method == "closed form"  # chosen by the law's form, not by a clock
    per_captime = (200 + sympy.Rational(25, 2) / 3600 * (kappa - t)) / (200 + sympy.Rational(25, 2) / 3600 * kappa)
    numeric = expected_utility(per_captime, closed.distribution, method="numerical")
    times = np.linspace(1.0, 3599.0, 40)
    assert np.allclose(numeric(times), closed.utility(times), rtol=0, atol=1e-9)


def test_a_log_normal_money_design_goes_to_quadrature_at_once():
    from maxent_util.designer.result import _closed_form_expected
    from maxent_util import families

    assert not _closed_form_expected(families.log_normal(600, 1), divided=True)
    assert _closed_form_expected(families.pareto(5, 1), divided=True)
    assert _closed_form_expected(families.exponential(600), divided=True)


def test_a_money_design_over_a_truncated_exponential_goes_to_quadrature_at_once():
    """exp(-c kappa) / (value + cost kappa) over a bounded support has no form sympy finds (it
    gave up after 4 to 6 s): the design takes quadrature at once; its values are the closed
    form's where a value of 0 leaves no division (reference: mpmath quadrature of the definition)."""
    from maxent_util.designer.result import _closed_form_expected

    law = derive(Support(0, 3600), Mean(1200))
    assert not _closed_form_expected(law, divided=True)
    assert _closed_form_expected(law, divided=False)
    answers = {"captime": "facts", "longest": "1h", "typical": "20 min", "value": "money",
               "cost_per_hour": 12.5, "solution_value": 200}
    designed = design(answers)
    assert designed.utility.method == "numerical quadrature"
    rate = float(law.numeric.multipliers[0])
    density = lambda k: mpmath.exp(-rate * k) / mpmath.quad(lambda z: mpmath.exp(-rate * z), [0, 3600])
    per_second = mpmath.mpf(12.5) / 3600
    for point in (1.0, 600.0, 2400.0, 3599.0):
        expected = mpmath.quad(lambda k: (200 + per_second * (k - point)) / (200 + per_second * k) * density(k),
                               [point, 3600])
        assert float(designed.utility(point)) == pytest.approx(float(expected), rel=1e-8, abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(seconds=st.integers(1, 10**7), kind=st.sampled_from(["support", "mean", "median"]))
def test_a_constraint_shows_its_seconds_and_a_human_unit_that_read_back_the_same(seconds, kind):
    from maxent_util.designer.facts import constraint_text
    from maxent_util.durations import duration_seconds

    constraint = {"support": Support(0, seconds), "mean": Mean(seconds),
                  "median": TailProbability(seconds, sympy.Rational(1, 2))}[kind]
    text = constraint_text(constraint)
    assert "\\" not in text and "κ" in text  # Unicode mathematics, not LaTeX
    found = re.search(r"([\d.e+]+) s(?: \(([^)]+)\))?", text)
    # the seconds as stated: whole below a million, else to 4 significant digits
    assert found and (found.group(1) == str(seconds) if seconds < 10**6
                      else float(found.group(1)) == pytest.approx(seconds, rel=5e-4))
    if seconds >= 60:  # a larger unit beside them, the same time to its 3 significant digits
        assert found.group(2) is not None
        assert duration_seconds(found.group(2)) == pytest.approx(seconds, rel=5e-3)
    else:
        assert found.group(2) is None
