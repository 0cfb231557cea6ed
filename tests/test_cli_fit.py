"""``maxent-util fit``: the comparison table printed, the chosen law written as JSON, one-line
refusals (tests/test_fitting.py checks the numbers against scipy.stats and lifelines)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import assert_usage_error, run
from scipy import stats

from maxent_util.export import from_json
from maxent_util.fitting import fit_captime


@pytest.fixture
def waits(tmp_path):
    """A simulated log: log-normal captimes (median 300 s, sigma 1), exponential answer times."""
    rng = np.random.default_rng(21)
    captimes, answers = rng.lognormal(math.log(300.0), 1.0, 150), rng.exponential(600.0, 150)
    times, censored = np.minimum(captimes, answers), captimes > answers
    path = tmp_path / "waits.csv"
    path.write_text("user,waited,still_waiting\n" + "".join(
        f"u{i},{float(t)!r},{'yes' if c else 'no'}\n" for i, (t, c) in enumerate(zip(times, censored))))
    return path, times, censored


def test_fit_prints_the_table_and_writes_the_chosen_law(capsys, waits, tmp_path) -> None:
    path, times, censored = waits
    output = tmp_path / "law.json"
    status, out, err = run(capsys, "fit", str(path), "--column", "waited", "--censored-column",
                           "still_waiting", "--kinds", "mean", "--kinds", "log+log2", "-o", str(output))
    assert status == 0, err
    assert f"150 waiting times from {path}, {int(censored.sum())} right-censored" in out
    for word in ("log-normal", "exponential", "aic", "bic", "delta", "mu", "sigma", "rate",
                 "chosen by AIC: log+log2 (log-normal)", f"wrote {output}"):
        assert word in out, word
    law = from_json(output.read_text())
    reference = fit_captime(times, censored, kinds=[("mean",), ("log", "log2")])
    model = reference.models[("log", "log2")]
    assert law.notes == reference.law.notes  # the provenance, the data's sha256 included
    expected = stats.lognorm.sf(300.0, model.parameters["sigma"], 0, math.exp(model.parameters["mu"]))
    assert float(law.utility()(300.0)) == pytest.approx(expected, rel=1e-9)


def test_fit_without_output_only_prints(capsys, waits) -> None:
    path, _, _ = waits
    status, out, err = run(capsys, "fit", str(path), "--column", "waited", "--kinds", "mean",
                           "--criterion", "bic")
    assert status == 0, err
    assert "chosen by BIC: mean (exponential)" in out and "pass --output FILE" in out


def test_fit_never_overwrites_a_file_unasked(capsys, waits, tmp_path) -> None:
    path, _, _ = waits
    output = tmp_path / "law.json"
    output.write_text("keep")
    status, out, err = run(capsys, "fit", str(path), "--column", "waited", "--kinds", "mean",
                           "-o", str(output))
    assert_usage_error(status, out, err, "already exists; pass --force to overwrite it")
    assert output.read_text() == "keep"


@pytest.mark.parametrize(("arguments", "message"), [
    (["--column", "wait"], "`column` of `read_waiting_times` must be a column of"),
    (["--column", "waited", "--censored-column", "user"], "must be a censoring flag"),
    (["--column", "waited", "--kinds", "median"], "`kinds` of `fit_captime` must be made of the kinds"),
    (["--column", "waited", "--kinds", "log+"], "argument --kinds: expected a kind set such as"),
    (["--column", "waited", "--support", "0", "1min"], "must be within the support [0, 60]; got 545.5"),
    (["--column", "waited", "--support", "0", "soon"], "argument --support: expected a duration"),
    (["--column", "waited", "--criterion", "cv", "--folds", "1"], "argument --folds"),
])
def test_bad_input_is_one_line(capsys, waits, arguments, message) -> None:
    path, _, _ = waits
    status, out, err = run(capsys, "fit", str(path), *arguments)
    assert_usage_error(status, out, err, message)


def test_support_takes_durations_and_inf(capsys, waits) -> None:
    path, times, _ = waits
    status, out, err = run(capsys, "fit", str(path), "--column", "waited", "--kinds", "mean",
                           "--support", "0", "inf")
    assert status == 0, err
    status, out, err = run(capsys, "fit", str(path), "--column", "waited", "--kinds", "log",
                           "--support", "1s", "inf")
    assert status == 0 and "Pareto" in out, err


def test_a_time_outside_the_support_is_named_by_its_row(capsys, waits) -> None:
    path, times, _ = waits
    assert times[0] < 60 < times[1]
    status, out, err = run(capsys, "fit", str(path), "--column", "waited", "--support", "0", "60")
    assert_usage_error(status, out, err, f"`times[1]` of `fit_captime` must be within the support [0, 60]")
    assert err.rstrip().endswith(f"(data row 2 of {path})")


def test_the_written_law_is_a_utility_for_other_commands(capsys, waits, tmp_path) -> None:
    path, _, _ = waits
    output = tmp_path / "law.json"
    status, out, err = run(capsys, "fit", str(path), "--column", "waited", "--censored-column",
                           "still_waiting", "--kinds", "log+log2", "-o", str(output))
    assert status == 0, err
    status, out, err = run(capsys, "plan", "--utility", f"@{output}", "--epsilon", "0.05", "--delta", "0.05")
    assert status == 0 and "runs needed" in out, err


@pytest.mark.parametrize("body", ["waited\n5\n", "waited\n5\n5.0\n5s\n"])
def test_one_distinct_waiting_time_is_refused_unless_the_kinds_are_named(capsys, tmp_path, body) -> None:
    path = tmp_path / "one.csv"
    path.write_text(body)
    output = tmp_path / "law.json"
    status, out, err = run(capsys, "fit", str(path), "--column", "waited", "-o", str(output))
    assert_usage_error(status, out, err, "one waiting time cannot tell one law from another")
    assert "pass --kinds mean" in err and not output.exists()
    status, out, err = run(capsys, "fit", str(path), "--column", "waited", "--kinds", "mean",
                           "-o", str(output))
    assert status == 0, err
    assert "warning:" in err and "rests on that one time alone" in err
    # by hand: the exponential's maximum is the rate 1 / (mean time) = 1/5
    assert from_json(output.read_text()).utility()(5.0) == pytest.approx(math.exp(-1.0), rel=1e-12)


def test_times_with_units_and_empty_flags(capsys, tmp_path) -> None:
    path = tmp_path / "waits.csv"
    path.write_text("waited,still_waiting\n1201s,0\n20 min,1\n300,\n45,no\n1h,yes\n")
    status, out, err = run(capsys, "fit", str(path), "--column", "waited", "--censored-column",
                           "still_waiting", "--kinds", "mean")
    assert_usage_error(status, out, err, "`still_waiting` of ")
    assert "data row 3" in err and "--empty-flag" in err
    status, out, err = run(capsys, "fit", str(path), "--column", "waited", "--censored-column",
                           "still_waiting", "--kinds", "mean", "--empty-flag", "no")
    assert status == 0, err
    assert f"5 waiting times from {path}, 2 right-censored" in out
    # by hand: the censored exponential's rate is (captimes) / (sum of all times) = 3 / 6346
    reference = fit_captime([1201.0, 1200.0, 300.0, 45.0, 3600.0], [False, True, False, False, True],
                            kinds="mean")
    assert reference.models[("mean",)].parameters["rate"] == pytest.approx(3 / 6346, rel=1e-7)
    assert f"{3 / 6346:.6g}" in out
