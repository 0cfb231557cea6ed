"""Every duration a command prints in words carries a human unit beside its seconds
(``5000 s (1.39 h)``, ``durations.readable_duration``); CSV and JSON keep bare numbers."""

from __future__ import annotations

import html
import math
import re
import shutil

import pytest
from conftest import ROOT, run
from hypothesis import given, settings
from hypothesis import strategies as st

from maxent_util.durations import readable_duration

EXAMPLES = ROOT / "examples"

#: a number of seconds as printed: ``5000 s``, ``1.684e+06 s``, ``2.5 s``
_SECONDS = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?(?:e[+-]?\d+)?) s\b")
#: what readable_duration writes beside it
_HUMAN = re.compile(r" \([\d.]+(?:e[+-]?\d+)? (?:min|h|days|weeks|years)\)")


def durations(text: str) -> tuple[list[str], list[str]]:
    """(the durations of at least a minute shown with a human unit, those shown without)."""
    shown, bare = [], []
    for match in _SECONDS.finditer(text):
        if float(match.group(1)) < 60:
            continue
        human = _HUMAN.match(text, match.end())
        (shown if human else bare).append(text[match.start():human.end() if human else
                                              match.end()])
    return shown, bare


def test_the_check_tells_a_bare_duration_from_a_shown_one():
    assert durations("a 5000 s limit, 12 s, 90 s (1.5 min)") == (["90 s (1.5 min)"],
                                                                 ["5000 s"])
    assert durations("1.684e+06 s (2.78 weeks), pareto(60, 1)") == (
        ["1.684e+06 s (2.78 weeks)"], [])


def _page_text(path) -> str:
    text = re.sub(r"<(script|style)\b.*?</\1>", " ", path.read_text(), flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", " ", text))


@pytest.fixture()
def folder(tmp_path, monkeypatch):
    for name in ("detailed_main.csv", "results.csv"):
        shutil.copy(EXAMPLES / name, tmp_path / name)
    shutil.copytree(EXAMPLES / "aslib-scenario", tmp_path / "aslib-scenario")
    rows = ["algorithm,instance,runtime,status,cutoff"]
    for i in range(40):
        rows += [f"a,i{i},{1 + i % 3},solved,300", f"b,i{i},{50 + i},solved,300"]
    (tmp_path / "race.csv").write_text("\n".join(rows) + "\n")
    (tmp_path / "waits.csv").write_text("waited\n120\n120\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


RACE = ("race", "race.csv", "--utility", "exponential(10)", "--delta", "0.05")
COMMANDS = {
    # the default rules' note names the data's cutoff C
    "rank's rules": ("rank", "--dataset", "satcomp2021-parallel"),
    # the reader's note says where a given cutoff comes from
    "satcomp cutoff": ("rank", "detailed_main.csv", "--utility", "pareto(60, 1)"),
    "aslib cutoff": ("rank", "aslib-scenario", "--utility", "pareto(60, 1)"),
    "race": RACE + ("--first-run-limit", "90"),
    "naive": RACE + ("--naive", "--epsilon", "0.5", "--run-limit", "2min"),
    "sweep": ("sweep", "race.csv", "--family", "pareto", "--fixed", "alpha=1", "--from", "1",
              "--to", "300"),
    "plan": ("plan", "--epsilon", "0.05", "--delta", "0.05", "--utility", "pareto(60, 1)"),
    "tour": ("tour", "--out", "tour"),
    "fit's warning": ("fit", "waits.csv", "--column", "waited", "--kinds", "mean",
                      "--output", "fit.json"),
    "report": ("report", "results.csv", "--utility", "pareto(60, 1)", "--cutoff", "1000",
               "-o", "report.html"),
}


@pytest.mark.parametrize("name", COMMANDS)
def test_every_duration_a_command_prints_has_a_human_unit(capsys, folder, name):
    status, out, err = run(capsys, *COMMANDS[name])
    assert status == 0, err
    text = out + err
    if name == "report":
        text += _page_text(folder / "report.html")
    shown, bare = durations(text)
    # each command here prints a duration of a minute or more: the check is not vacuous
    assert shown, text
    assert not bare, bare


def test_machine_outputs_keep_bare_numbers(capsys, folder):
    status, out, _ = run(capsys, *RACE, "--naive", "--epsilon", "0.5", "--run-limit", "2min",
                         "--json")
    assert status == 0 and '"run_limit": 120.0' in out and "min" not in out
    status, out, _ = run(capsys, *RACE, "--csv")
    assert status == 0 and not re.search(r"\d s\b", out)


_SIZES = {"min": 60, "h": 3600, "days": 86400, "weeks": 604800, "years": 31557600}


@settings(max_examples=300, deadline=None)
@given(st.floats(min_value=0, max_value=1e12, allow_nan=False, allow_infinity=False)
       | st.integers(min_value=0, max_value=10**6).map(float))
def test_a_readable_duration_says_the_seconds_and_the_same_time_in_a_larger_unit(seconds):
    text = readable_duration(seconds)
    shown, bare = durations(text)
    assert not bare and bool(shown) == (seconds >= 60), text
    # the seconds read back to 4 significant digits (a whole number below a million exactly)
    written = float(text.split(" s")[0])
    assert written == seconds if seconds.is_integer() and seconds < 1e6 else \
        math.isclose(written, seconds, rel_tol=5e-4), text
    unit = re.search(r"\(([\d.e+]+) (\w+)\)$", text)
    if unit:  # the unit's number, to 3 digits, is the same time, and at least 1
        value, size = float(unit.group(1)), _SIZES[unit.group(2)]
        assert value >= 1 and math.isclose(value * size, seconds, rel_tol=5e-3), text
