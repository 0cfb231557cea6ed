"""One word per idea on the command line and in what it writes: the captime is the user's
patience (a law), the cutoff the data's time limit, the run limit where a race or a runner
stops a run. Old names stay as warned aliases."""

from __future__ import annotations

import argparse
import json
import re

import pandas as pd
import pytest
from conftest import run

from maxent_util.cli.app import build_parser
from maxent_util.cli.core import _DeprecatedAlias

#: each idea's word, as a flag (--run-limit), a key (run_limit) or in prose (run limit)
WORDS = {"captime": r"captime", "cutoff": r"cut-?off", "run limit": r"run[-_ ]limit"}
#: a word that names no idea for a reader: the paper's symbol for UP's first run limit
NOT_WORDS = (r"\bk0\b",)

#: the options (command, flag) allowed to carry each idea's word in their name, their
#: destination or their choices; any other option naming one is using a wrong word
ALLOWED = {
    "cutoff": {(command, flag) for command in ("rank", "sweep", "compare", "race", "plot",
                                               "report", "site")
               for flag in ("--cutoff", "--rules")},
    "run limit": {("race", "--run-limit"), ("race", "--first-run-limit"),
                  ("plot", "--run-limit"), ("plot", "--first-run-limit"),
                  ("export", "--run-limit"), ("export", "--capped")},
    "captime": set(),
}
#: commands about runtime data and races, whose words never say captime (a race's limit on a
#: run is not the user's patience)
NO_CAPTIME = ("rank", "sweep", "compare", "race", "plan", "export", "report", "site")

#: the old names kept, each warned: (command, old flag, new flag)
ALIASES = {("race", "--k0", "--first-run-limit"), ("plot", "--k0", "--first-run-limit"),
           ("race", "--captime", "--run-limit"), ("plot", "--captime", "--run-limit"),
           ("export", "--cutoff", "--run-limit")}


def _ideas(text: str) -> set[str]:
    return {idea for idea, word in WORDS.items() if re.search(word, text, re.IGNORECASE)}


def _options():
    """(command, action, aliased) for every option of every command."""
    parser = build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for name, sub in commands.choices.items():
        for action in sub._actions:
            if action.option_strings and not isinstance(action, argparse._HelpAction):
                yield name, action, sub


OPTIONS = list(_options())


def test_the_table_of_words_finds_a_wrong_one():
    # the walk below would pass vacuously if the patterns matched nothing
    assert _ideas("--k0 and captime_min") == {"captime"}
    assert _ideas("the data's cut-off, a run_limit_max") == {"cutoff", "run limit"}
    assert re.search(NOT_WORDS[0], "k0 = 1 s") and not re.search(NOT_WORDS[0], "kappa0")


@pytest.mark.parametrize("command, action, parser", OPTIONS,
                         ids=[f"{c} {a.option_strings[-1]}" for c, a, _ in OPTIONS])
def test_every_option_names_one_idea_by_its_word(command, action, parser):
    flag = action.option_strings[-1]
    if isinstance(action, _DeprecatedAlias):
        # an old name: kept only as a known alias of the new option, setting the same value
        assert (command, flag, action.new) in ALIASES, f"{command} {flag}: an unknown alias"
        new = parser._option_string_actions[action.new]
        assert new.dest == action.dest and not isinstance(new, _DeprecatedAlias)
        return
    named = " ".join([*action.option_strings, action.dest, str(action.metavar or ""),
                      *map(str, action.choices or ())])
    for idea in _ideas(named):
        assert (command, flag) in ALLOWED[idea], f"{command} {flag} uses the word of the {idea}"
    assert not any(re.search(word, named) for word in NOT_WORDS), f"{command} {flag}: {named}"
    help_text = action.help or ""
    if flag in ("--cutoff", "--run-limit", "--first-run-limit"):
        own = "cutoff" if flag == "--cutoff" else "run limit"
        # its help says its own word, and never another idea's as if it were its own
        assert own in _ideas(help_text), f"{command} {flag}: {help_text!r}"
        assert "captime" not in _ideas(help_text), f"{command} {flag}: {help_text!r}"
        if own == "cutoff":
            assert "run limit" not in _ideas(help_text), f"{command} {flag}: {help_text!r}"
    if command in NO_CAPTIME:
        assert "captime" not in _ideas(help_text), f"{command} {flag}: {help_text!r}"
    assert not any(re.search(word, help_text) for word in NOT_WORDS), f"{command} {flag}"


def test_no_command_about_runs_says_captime_in_its_description():
    parser = build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    helps = {choice.dest: choice.help for choice in commands._choices_actions}
    for name in NO_CAPTIME:
        text = f"{helps[name]} {commands.choices[name].description}"
        assert "captime" not in _ideas(text), name


def _keys(value) -> set[str]:
    if isinstance(value, dict):
        return set(value) | {key for item in value.values() for key in _keys(item)}
    if isinstance(value, list):
        return {key for item in value for key in _keys(item)}
    return set()


def test_race_and_plan_write_run_limits_by_their_name(capsys, race_csv):
    race = ["race", str(race_csv), "--utility", "exponential(10)", "--delta", "0.05"]
    written = {}
    for name, argv in (("up", race + ["--json"]), ("naive", race + ["--naive", "--epsilon", "0.5",
                                                                    "--json"]),
                       ("plan", ["plan", "--epsilon", "0.1", "--delta", "0.1", "--utility",
                                 "exponential(10)", "--json"])):
        status, out, err = run(capsys, *argv)
        assert (status, err) == (0, ""), err
        written[name] = _keys(json.loads(out))
    status, out, _ = run(capsys, *race, "--csv")
    written["trace"] = set(pd.read_csv(pd.io.common.StringIO(out)).columns)
    status, text, _ = run(capsys, *race)
    for name, keys in written.items():
        words = " ".join(keys)
        assert "run_limit" in words or name == "trace" and "run_limit_max" in keys, name
        assert not _ideas(words) - {"run limit"}, (name, sorted(keys))
        assert not any(re.search(word, words) for word in NOT_WORDS), (name, sorted(keys))
    assert {"first_run_limit", "run_limit_min", "run_limit_max"} <= written["up"]
    assert "first run limit" in text and not _ideas(text) - {"run limit"}, text


@pytest.mark.parametrize("old, new, value", [("--k0", "--first-run-limit", "2"),
                                             ("--captime", "--run-limit", "60")])
def test_an_old_race_flag_still_works_and_warns_in_one_line(capsys, race_csv, old, new, value):
    argv = ["race", str(race_csv), "--utility", "exponential(10)", "--delta", "0.05", "--json"]
    if new == "--run-limit":
        argv += ["--naive", "--epsilon", "0.5"]
    status, fresh, err = run(capsys, *argv, new, value)
    assert (status, err) == (0, "")
    status, kept, err = run(capsys, *argv, old, value)
    assert status == 0 and kept == fresh
    assert err == (f"maxent-util: warning: {old} is deprecated and will be removed; use {new} "
                   "(the same value)\n")


def test_capped_cutoff_still_works_and_warns(capsys, tmp_path):
    common = ["export", "--utility", "pareto(10, 1)", "--for", "smac"]
    status, _, err = run(capsys, *common, "--cost", str(tmp_path / "new.py"), "--capped",
                         "run-limit")
    assert (status, err) == (0, "")
    status, _, err = run(capsys, *common, "--cost", str(tmp_path / "old.py"), "--capped", "cutoff")
    assert status == 0 and err == ("maxent-util: warning: --capped cutoff is deprecated and will "
                                   "be removed; use --capped run-limit (the same rule)\n")
    assert (tmp_path / "new.py").read_text() == (tmp_path / "old.py").read_text()
    status, _, err = run(capsys, *common, "--cost", str(tmp_path / "bad.py"), "--capped", "limit")
    assert status == 2 and "expected one of zero, run-limit; got 'limit'" in err


@pytest.mark.parametrize("flag", ["--first-run-limit", "--run-limit"])
def test_a_run_limit_above_the_cutoff_is_refused_by_its_own_flag(capsys, race_csv, flag):
    status, _, err = run(capsys, "race", str(race_csv), "--utility", "exponential(10)",
                         "--delta", "0.05", flag, "500")
    # race_csv's cutoff is 100 s; the library's own names (k0, captime) stay out of it
    assert status == 2 and err.startswith(f"maxent-util: error: argument {flag}: 500 s (8.33 min) "
                                          "is above the cutoff of ")
    assert "k0" not in err and "captime" not in err
