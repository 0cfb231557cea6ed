"""Tests of the ``maxent-util`` command line.

Most paths run in-process through ``main(argv)`` with captured output; a few
real subprocess calls check the installed entry point, ``python -m`` and that
bad input never prints a traceback.  Each subcommand's output is parsed and
compared with the library called directly, and anchored to values computed
by hand from the paper's formulas.
"""

from __future__ import annotations

import io
import json
import math
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import sympy
from conftest import ERROR_PREFIX, PNG_SIGNATURE, assert_usage_error, checkout_env, run
from hypothesis import given, settings, strategies as st

from maxent_util import (PAR, Mean, Moment, Solved, Support, TailProbability, derive, kappa, plan,
                         rank, t)
from maxent_util import families
from maxent_util.cli import TOUR_UTILITIES, _flag_name, main
from maxent_util.ranking import parse_rule
from maxent_util.constraints import constraint_kinds
from maxent_util.datasets import satcomp2021

def read_back(text: str, **symbols: sympy.Symbol) -> sympy.Expr:
    """sympify with the library's symbols (positive kappa, non-negative t) and parameters."""
    return sympy.sympify(text, locals={"kappa": kappa, "t": t, **symbols})


def assert_same_numbers(printed: sympy.Expr, library: sympy.Expr, variable: sympy.Symbol) -> None:
    """Numeric multipliers print 30+ digits: the read-back law agrees to ~1e-25 (not bit for bit)."""
    for point in (0.5, 2.0, 7.5, 9.9, 12.0):
        a, b = (sympy.N(e.subs(variable, point), 40) for e in (printed, library))
        assert abs(a - b) <= 1e-25 * max(1, abs(b))


# ---------------------------------------------------------------------------
# derive


def test_every_registered_kind_has_a_flag(capsys):
    status, help_text, _ = run(capsys, "derive", "--help")
    assert status == 0
    for name in constraint_kinds():
        assert f"--{_flag_name(name)}" in help_text
    # the flag names of the brief, spelled out
    for flag in ("--support", "--mean", "--log-moment", "--squared-log-deviation",
                 "--tail-probability", "--continuous-at", "--moment"):
        assert flag in help_text


def test_a_new_kind_gets_a_flag_with_no_edit(capsys):
    from maxent_util import constraints

    try:
        class MeanSquare(Moment):
            """E[kappa**2] = value (a kind defined only by this test)."""

            argument_names = ("value",)
            option_names = ()

            def feature(self):
                from maxent_util.constraints import Feature

                return Feature(kappa ** 2, self.value)

        status, out, err = run(capsys, "derive", "--support", "0", "oo", "--mean-square", "2",
                               "--json")
    finally:
        constraints._registry.pop("MeanSquare", None)
    assert status == 0, err
    record = json.loads(out)
    assert record["constraints"] == ["Support(0, oo)", "MeanSquare(2)"]
    # reference (hand): E[kappa^2] = 2 on [0, oo) is the half-normal law with variance 2,
    # f = 2 exp(-kappa^2/4) / sqrt(4 pi)
    assert sympy.simplify(read_back(record["pdf"]) - sympy.exp(-kappa ** 2 / 4) / sympy.sqrt(sympy.pi)) == 0


def test_derive_json_round_trip_exponential(capsys):
    status, out, err = run(capsys, "derive", "--support", "0", "oo", "--mean", "24", "--json")
    assert status == 0, err
    record = json.loads(out)
    assert set(record) >= {"pdf", "cdf", "sf", "utility", "multipliers", "closed_form", "latex"}
    library = derive(Support(0, sympy.oo), Mean(24))
    for key in ("pdf", "cdf", "sf"):
        assert read_back(record[key]) == getattr(library, key)
    assert read_back(record["utility"]) == library.utility().expr
    assert record["closed_form"] is True
    assert {k: read_back(v) for k, v in record["multipliers"].items()} == \
        {str(k): v for k, v in library.multipliers.items()}
    # reference (paper, Appendix C "Fixed Expectation"): f = exp(-kappa/24)/24, u = exp(-t/24)
    assert sympy.simplify(read_back(record["pdf"]) - sympy.exp(-kappa / 24) / 24) == 0
    assert sympy.simplify(read_back(record["utility"]) - sympy.exp(-t / 24)) == 0
    assert record["latex"]["pdf"] == sympy.latex(library.pdf)


def test_derive_json_symbolic_pareto(capsys):
    status, out, _ = run(capsys, "derive", "--support", "kappa0", "oo", "--log-moment", "1/alpha",
                         "kappa0", "--json")
    assert status == 0
    record = json.loads(out)
    kappa0, alpha = sympy.symbols("kappa0 alpha", positive=True)
    assert record["parameters"] == ["alpha", "kappa0"]
    utility = read_back(record["utility"], kappa0=kappa0, alpha=alpha)
    # reference (paper, Appendix C "Fixed order of magnitude"): u = (kappa0/t)^alpha after kappa0
    assert sympy.simplify(utility.subs(t, 3 * kappa0) - sympy.Rational(1, 3) ** alpha) == 0
    assert utility.subs(t, kappa0 / 2) == 1


def test_derive_text_output(capsys):
    status, out, _ = run(capsys, "derive", "--support", "0", "24")
    assert status == 0
    assert "constraints: Support(0, 24)" in out
    assert "multipliers: exact (closed form)" in out
    # lambda_0 = log(Z) - 1 with Z = 24 for the uniform law on [0, 24] (hand computation)
    assert "lambda_0 = -1 + log(24)" in out
    for title in ("pdf f(kappa) =", "CDF F(kappa) =", "utility u(t) = 1 - F(t) ="):
        assert title in out


def test_derive_text_output_shortens_numeric_multipliers(capsys):
    status, out, _ = run(capsys, "derive", "--support", "0", "10", "--mean", "3")
    assert status == 0
    assert "solved numerically" in out
    library = derive(Support(0, 10), Mean(3))
    # the multiplier lines keep every digit; the pretty formulas show 12 significant digits
    for symbol, value in library.multipliers.items():
        assert f"{symbol} = {value}" in out
    lambda_1 = float(library.multipliers[sympy.Symbol("lambda_1", real=True)])
    assert f"{lambda_1:.12g}"[:10] in out


def test_derive_latex(capsys):
    status, out, _ = run(capsys, "derive", "--support", "0", "24", "--tail-probability", "12", "0.3",
                         "--latex")
    assert status == 0
    library = derive(Support(0, 24), TailProbability(12, sympy.Rational(3, 10)))
    assert out.splitlines() == [f"f(\\kappa) = {sympy.latex(library.pdf)}",
                                f"F(\\kappa) = {sympy.latex(library.cdf)}",
                                f"u(t) = 1 - F(t) = {sympy.latex(library.utility().expr)}"]


def test_derive_options_and_keywords_give_the_generalized_log_laplace(capsys):
    status, out, _ = run(capsys, "derive", "--support", "0", "oo", "--log-moment", "1/5", "24", "below",
                         "--log-moment", "value=1/2", "kappa0=24", "side=above", "--continuous-at", "24",
                         "--json")
    assert status == 0
    record = json.loads(out)
    expected = families.generalized_log_laplace(24, 2, 5)
    assert read_back(record["pdf"]) == expected.pdf
    utility = read_back(record["utility"])
    # reference (paper, Section 3): P(K < k0) = p = a/(a+b), so u = 1 - p (t/k0)^b below k0 and
    # (1 - p) (k0/t)^a above; here a = 2, b = 5, k0 = 24, p = 2/7
    for runtime in (6, 30, 100):
        hand = (1 - sympy.Rational(2, 7) * sympy.Rational(runtime, 24) ** 5 if runtime < 24
                else sympy.Rational(5, 7) * sympy.Rational(24, runtime) ** 2)
        assert sympy.simplify(utility.subs(t, runtime) - hand) == 0


def test_derive_moment_with_a_region(capsys):
    status, out, _ = run(capsys, "derive", "--support", "0", "10", "--moment", "kappa**2", "30",
                         "0,10", "--json")
    assert status == 0
    record = json.loads(out)
    assert record["constraints"][0] == "Support(0, 10)"
    assert record["closed_form"] is False
    library = derive(Support(0, 10), Moment(kappa ** 2, 30, where=(0, 10)))
    assert_same_numbers(read_back(record["pdf"]), library.pdf, kappa)
    # the constraint holds: E[kappa^2] = 30, by mpmath quadrature of the printed density
    import mpmath

    density = sympy.lambdify(kappa, read_back(record["pdf"]).args[0][0], "mpmath")
    assert float(mpmath.quad(lambda x: x * x * density(x), [0, 10])) == pytest.approx(30, rel=1e-9)


def test_derive_timeout_reaches_the_engine(capsys):
    # a microsecond is the limit of the whole derivation: refused in one line
    status, out, err = run(capsys, "derive", "--support", "0", "oo", "--mean", "23.5", "--timeout", "1e-6")
    assert_usage_error(status, out, err, "time limit")


def test_derive_method_numeric_reaches_the_engine(capsys):
    # the numeric route alone still matches the closed form lambda_1 = 1/24 (paper, Appendix C)
    status, out, _ = run(capsys, "derive", "--support", "0", "oo", "--mean", "24", "--method", "numeric",
                         "--json")
    assert status == 0
    record = json.loads(out)
    assert record["closed_form"] is False
    assert float(read_back(record["multipliers"]["lambda_1"])) == pytest.approx(1 / 24, rel=1e-12)


@pytest.mark.parametrize("argv, pattern", [
    (["derive", "--support", "0", "10", "--mean", "20"], "Mean(20)"),
    (["derive", "--support", "0", "24", "--timeout", "0"], "argument --timeout"),
    (["derive", "--support", "0", "1e"], "`upper` of `Support`"),
    (["derive", "--support", "0", "oo"], "cannot be normalised"),
    (["derive", "--log-moment", "0.5", "24", "sideways"], "`side` of `LogMoment`"),
    (["derive", "--log-moment", "0.5", "24", "above", "extra"], "at most 3 values"),
    (["derive", "--mean", "1", "2"], "argument --mean: expected at most 1 values (VALUE); got 2"),
    (["derive", "--bogus"], "unrecognized arguments: --bogus"),
    (["derive"], "at least one constraint"),
    (["derive", "--support", "0", "24", "--json", "--latex"], "not allowed with"),
    (["frobnicate"], "invalid choice"),
])
def test_derive_bad_input_is_one_line(capsys, argv, pattern):
    assert_usage_error(*run(capsys, *argv), pattern)


@settings(max_examples=8, deadline=None)
@given(st.one_of(st.integers(1, 10_000), st.integers(-100, 0)))
def test_derive_mean_property(mean):
    # reference (Appendix C): on [0, oo) with E[kappa] = mu the law is exponential(mu);
    # a non-positive mean is bad input
    stdout, stderr = io.StringIO(), io.StringIO()
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = stdout, stderr
    try:
        status = main(["derive", "--support", "0", "oo", "--mean", str(mean), "--json"])
    finally:
        sys.stdout, sys.stderr = saved
    if mean > 0:
        assert status == 0
        pdf = read_back(json.loads(stdout.getvalue())["pdf"])
        assert sympy.simplify(pdf - sympy.exp(-kappa / mean) / mean) == 0
    else:
        assert status == 2
        assert stderr.getvalue().startswith(ERROR_PREFIX + "`value` of `Mean` must be positive")


# ---------------------------------------------------------------------------
# family


def test_family_json_equals_the_preset(capsys):
    status, out, _ = run(capsys, "family", "pareto", "5", "3", "--json")
    assert status == 0
    record = json.loads(out)
    assert record["name"] == "pareto(5, 3)"
    assert read_back(record["utility"]) == families.pareto(5, 3).utility().expr
    # reference (hand): u(t) = 1 before 5, (5/t)^3 after
    utility = read_back(record["utility"])
    assert utility.subs(t, 4) == 1
    assert utility.subs(t, 10) == sympy.Rational(1, 8)


def test_family_latex_and_text(capsys):
    status, out, _ = run(capsys, "family", "uniform", "24", "--latex")
    assert status == 0
    assert out.splitlines()[2] == f"u(t) = 1 - F(t) = {sympy.latex(families.uniform(24).utility().expr)}"
    status, out, _ = run(capsys, "family", "log-normal", "24", "0.5")
    assert status == 0
    assert out.startswith("family: log_normal(24, 0.5)")


def test_family_list(capsys):
    status, out, _ = run(capsys, "family")
    assert status == 0
    assert out.splitlines() == [f"{name}({', '.join(params)})"
                                for name, params in families.FAMILIES.items()]


@pytest.mark.parametrize("argv, pattern", [
    (["family", "weibull", "3"], "`NAME` of `maxent-util family`"),
    (["family", "pareto", "5"], "2 value(s) (kappa0 alpha)"),
    (["family", "pareto", "5", "-3"], "`alpha` of `pareto` must be positive"),
])
def test_family_bad_input(capsys, argv, pattern):
    assert_usage_error(*run(capsys, *argv), pattern)


# ---------------------------------------------------------------------------
# rank


@pytest.fixture(scope="module")
def parallel_reference():
    rules = {spec: families.parse_utility(spec) for spec in TOUR_UTILITIES}
    rules["PAR-2"] = PAR(2)
    return rank(satcomp2021("parallel"), rules)


def test_rank_json_equals_the_library(capsys, parallel_reference):
    status, out, _ = run(capsys, "rank", "--dataset", "satcomp2021-parallel", "--rules", "paper",
                         "--json")
    assert status == 0
    records = json.loads(out)
    assert [r["algorithm"] for r in records] == list(parallel_reference.index)
    for record in records:
        row = parallel_reference.loc[record["algorithm"]]
        for column in parallel_reference.columns:
            assert record[column] == row[column]


def test_rank_csv_and_text(capsys, parallel_reference):
    specs = ["uniform(20)", "pareto(5, 3)"]
    status, out, _ = run(capsys, "rank", "--dataset", "satcomp2021-parallel", "--utility", *specs,
                         "--par", "2", "--csv")
    assert status == 0
    table = pd.read_csv(io.StringIO(out), index_col="algorithm")
    columns = ["uniform(20)", "uniform(20) rank", "pareto(5, 3)", "pareto(5, 3) rank",
               "PAR-2", "PAR-2 rank"]
    assert list(table.columns) == columns
    expected = parallel_reference.sort_values("uniform(20) rank")[columns]
    pd.testing.assert_frame_equal(table, expected, check_dtype=False, rtol=1e-15)

    status, out, _ = run(capsys, "rank", "--dataset", "satcomp2021-parallel", "--utility", *specs,
                         "--par", "2")
    assert status == 0
    rows = {line.split()[0]: line for line in out.splitlines()[3:]}
    for algorithm, row in expected.iterrows():
        assert f"{row['pareto(5, 3)']:.4f} ({int(row['pareto(5, 3) rank'])})" in rows[algorithm]
        assert f"{row['PAR-2']:.1f} ({int(row['PAR-2 rank'])})" in rows[algorithm]


def test_rank_par2_follows_the_competition_definition(capsys):
    # reference: PAR-2 computed with plain pandas on the long table (runtime if solved, else 2 x 5000)
    status, out, _ = run(capsys, "rank", "--dataset", "satcomp2021-parallel", "--par", "2", "--json")
    assert status == 0
    runs = satcomp2021("parallel")
    penalised = np.where(runs["status"] == "solved", runs["runtime"], 2 * 5000.0)
    by_hand = pd.Series(penalised).groupby(runs["algorithm"]).mean()
    for record in json.loads(out):
        assert record["PAR-2"] == pytest.approx(by_hand[record["algorithm"]], rel=1e-12)


@pytest.fixture()
def long_csv(tmp_path):
    path = tmp_path / "runs.csv"
    path.write_text("algorithm,instance,runtime,status,cutoff\n"
                    "fast,i1,1,solved,100\n"
                    "fast,i2,60,solved,100\n"
                    "slow,i1,30,solved,100\n"
                    "slow,i2,100,timeout,100\n")
    return path


def test_rank_long_file_by_hand(capsys, long_csv):
    status, out, _ = run(capsys, "rank", str(long_csv), "--utility", "exp(-t/10)", "--par", "2",
                         "--solved", "--bounds", "--json")
    assert status == 0
    records = {r["algorithm"]: r for r in json.loads(out)}
    # hand computation: mean of exp(-t/10) with the timeout at 0 (lower) or exp(-100/10) (upper)
    assert records["fast"]["exp(-t/10)"] == pytest.approx((math.exp(-0.1) + math.exp(-6)) / 2,
                                                          rel=1e-14)
    assert records["slow"]["exp(-t/10) lower"] == pytest.approx(math.exp(-3) / 2, rel=1e-14)
    assert records["slow"]["exp(-t/10) upper"] == pytest.approx((math.exp(-3) + math.exp(-10)) / 2,
                                                                rel=1e-14)
    assert records["fast"]["PAR-2"] == pytest.approx(30.5)
    assert records["slow"]["PAR-2"] == pytest.approx((30 + 200) / 2)
    assert records["fast"]["solved"] == 2 and records["slow"]["solved"] == 1
    assert records["fast"]["exp(-t/10) rank"] == 1


def test_rank_cutoff_recensors_runs(capsys, long_csv):
    # with a 50 s cutoff, fast's 60 s run becomes a timeout: PAR-2 = (1 + 2*50)/2 (hand)
    status, out, _ = run(capsys, "rank", "--utility", "exp(-t/10)", "--par", "2", "--cutoff", "50",
                         "--json", str(long_csv))  # FILE after a greedy --utility list
    assert status == 0
    records = {r["algorithm"]: r for r in json.loads(out)}
    assert records["fast"]["PAR-2"] == pytest.approx((1 + 100) / 2)
    assert records["slow"]["PAR-2"] == pytest.approx((30 + 100) / 2)
    assert records["fast"]["exp(-t/10)"] == pytest.approx(math.exp(-0.1) / 2, rel=1e-14)


def test_rank_satcomp_file_with_cutoff(capsys, tmp_path):
    path = tmp_path / "wide.csv"
    path.write_text("hash,result,filename,a,b\n"
                    "h1,SAT,x.cnf,10,timeout\n"
                    "h2,UNSAT,y.cnf,300,20\n")
    status, out, _ = run(capsys, "rank", str(path), "--format", "satcomp", "--cutoff", "200",
                         "--par", "2", "--solved", "--json")
    assert status == 0
    records = {r["algorithm"]: r for r in json.loads(out)}
    # hand: a = (10 + 2*200)/2 (its 300 s run is past the limit), b = (2*200 + 20)/2
    assert records["a"]["PAR-2"] == pytest.approx(205.0)
    assert records["b"]["PAR-2"] == pytest.approx(210.0)
    assert records["a"]["solved"] == 1


def test_rank_aslib_scenario(capsys):
    from maxent_util import read_runs

    folder = Path(__file__).parent / "data" / "aslib_scenario"
    # the scenario repeats two runs: refused unless --duplicates says what to do
    assert_usage_error(*run(capsys, "rank", str(folder), "--par", "2"))
    status, out, _ = run(capsys, "rank", str(folder), "--par", "2", "--solved", "--json",
                         "--duplicates", "mean")
    assert status == 0
    expected = rank(read_runs(folder), {"PAR-2": PAR(2), "solved": Solved()}, duplicates="mean")
    assert {r["algorithm"]: r["PAR-2"] for r in json.loads(out)} == expected["PAR-2"].to_dict()
    # with a 50 s cutoff and the first of each repeated run, only the 1.5 s (minisat) and
    # 0.25 s (glucose) runs stay solved (hand count from the file)
    status, out, _ = run(capsys, "rank", str(folder), "--solved", "--cutoff", "50", "--json",
                         "--duplicates", "first")
    assert status == 0
    assert {r["algorithm"]: r["solved"] for r in json.loads(out)} == {"minisat": 1, "glucose": 1}


def test_rank_progress_on_request(capsys):
    specs = ["uniform(20)", "uniform(500)", "pareto(5, 3)", "exponential(1)"]
    status, out, err = run(capsys, "rank", "--dataset", "satcomp2021-parallel", "--utility", *specs,
                           "--progress", "--csv")
    assert status == 0
    lines = err.splitlines()
    assert len(lines) == 4
    assert lines[0].startswith("[1/4] deriving uniform(20)")
    status, out, err = run(capsys, "rank", "--dataset", "satcomp2021-parallel", "--utility", *specs,
                           "--csv")
    assert err == ""  # not a terminal


def test_parse_rule():
    assert parse_rule("PAR-10") == PAR(10)
    assert parse_rule("par(2)") == PAR(2)
    assert isinstance(parse_rule("solved"), Solved)
    assert parse_rule("exp(-t/10)").expr == sympy.exp(-t / 10)
    assert parse_rule(" pareto(5, 3) ").expr == families.pareto(5, 3).utility().expr


@pytest.mark.parametrize("argv, pattern", [
    (["rank", "missing.csv"], "`path` of `read_runs`"),
    (["rank"], "give a runtime FILE or --dataset"),
    (["rank", "x.csv", "--dataset", "satcomp2021-main"], "not both"),
    (["rank", "--dataset", "satcomp2021-parallel", "--utility", "foo(3)"], "`spec` of `parse_utility`"),
    (["rank", "--dataset", "satcomp2021-parallel", "--cutoff", "-5"], "argument --cutoff"),
    (["rank", "--dataset", "satcomp2022"], "argument --dataset: invalid choice"),
    (["rank", "--dataset", "satcomp2021-parallel", "--par", "two"], "argument --par"),
])
def test_rank_bad_input(capsys, argv, pattern):
    assert_usage_error(*run(capsys, *argv), pattern)


def test_rank_bad_rows_name_the_file(capsys, tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("algorithm,instance,runtime,status\na,i,-3,solved\n")
    status, out, err = run(capsys, "rank", str(path), "--par", "2")
    assert_usage_error(status, out, err, "bad.csv")


def test_rank_unreadable_file(capsys, tmp_path):
    folder = tmp_path / "folder.csv"
    folder.mkdir()
    assert_usage_error(*run(capsys, "rank", str(folder), "--par", "2"))


# ---------------------------------------------------------------------------
# plan


def test_plan_json_equals_the_library(capsys):
    status, out, _ = run(capsys, "plan", "--epsilon", "0.1", "--delta", "0.05", "--utility",
                         "exponential(10)", "--json")
    assert status == 0
    record = json.loads(out)
    expected = plan(0.1, 0.05, families.parse_utility("exponential(10)"))
    for field in ("runs", "run_limit", "min_total_time", "max_total_time"):
        assert record[field] == getattr(expected, field)
    # hand (estimation theorem): m = ceil(ln(2/0.05)/2 * (1.9/0.1)^2) = 666,
    # captime u^-1(0.05) = -10 ln 0.05, shortest u^-1(0.2) = -10 ln 0.2
    assert record["runs"] == math.ceil(math.log(40) / 2 * 19 ** 2) == 666
    assert record["run_limit"] == pytest.approx(-10 * math.log(0.05), rel=1e-10)
    assert record["min_total_time"] == pytest.approx(666 * -10 * math.log(0.2), rel=1e-10)


def test_plan_text(capsys):
    status, out, _ = run(capsys, "plan", "--epsilon", "0.1", "--delta", "0.05", "--utility",
                         "pareto(5, 3)")
    assert status == 0
    expected = plan(0.1, 0.05, families.parse_utility("pareto(5, 3)"))
    assert f"runs needed:       {expected.runs}" in out
    assert f"run limit:         {expected.run_limit:.4g} s" in out
    # hand: u^-1(0.05) = 5 * 0.05^(-1/3) for the Pareto utility (5/t)^3
    assert expected.run_limit == pytest.approx(5 * 0.05 ** (-1 / 3), rel=1e-9)


def test_plan_prints_long_times_in_days_beside_the_seconds(capsys):
    status, out, _ = run(capsys, "plan", "--epsilon", "0.01", "--delta", "0.05", "--utility",
                         "pareto(5, 1)")
    expected = plan(0.01, 0.05, families.parse_utility("pareto(5, 1)"))
    years = expected.max_total_time / 31557600  # Julian years of 365.25 days
    assert status == 0 and expected.max_total_time > 2 * 31557600
    assert f"({years:.3g} years)" in out


def test_plan_captime_is_the_run_limit_by_its_old_name():
    expected = plan(0.1, 0.05, families.parse_utility("pareto(5, 3)"))
    with pytest.deprecated_call():
        assert expected.captime == expected.run_limit


@pytest.mark.parametrize("argv, pattern", [
    (["plan", "--epsilon", "0.7", "--delta", "0.05", "--utility", "uniform(10)"], "`epsilon` of `plan`"),
    (["plan", "--epsilon", "x", "--delta", "0.05", "--utility", "uniform(10)"], "argument --epsilon"),
    (["plan", "--epsilon", "0.1", "--delta", "0.05", "--utility", "PAR-2"], "classic rule"),
    (["plan", "--epsilon", "0.1", "--delta", "0.05"], "--utility"),
])
def test_plan_bad_input(capsys, argv, pattern):
    assert_usage_error(*run(capsys, *argv), pattern)


# ---------------------------------------------------------------------------
# export


def test_export_python_c_latex(capsys, tmp_path):
    pytest.importorskip("maxent_util.export")
    import runpy

    target = tmp_path / "scorer.py"
    status, out, _ = run(capsys, "export", "--utility", "pareto(5, 3)", "--python", str(target))
    assert status == 0 and out.strip() == f"wrote {target}"
    module = runpy.run_path(str(target))
    runtimes = np.array([1.0, 5.0, 10.0, 40.0])
    # hand: (5/t)^3 after 5
    np.testing.assert_allclose(module["utility"](runtimes), [1.0, 1.0, 0.125, 125 / 64000],
                               rtol=1e-14)

    target = tmp_path / "scorer.c"
    status, _, _ = run(capsys, "export", "--utility", "exponential(24)", "--c", str(target))
    assert status == 0
    assert "double utility(double t)" in target.read_text()

    target = tmp_path / "pareto.tex"
    status, _, _ = run(capsys, "export", "--utility", "pareto(5, 3)", "--latex", str(target))
    assert status == 0
    text = target.read_text()
    assert text.startswith("\\documentclass") and "\\end{document}" in text


@pytest.mark.parametrize("argv, pattern", [
    (["export", "--utility", "exp(-t/3)", "--latex", "x.tex"], "`constraints` of `derivation`"),
    (["export", "--utility", "uniform(3)"], "one of the arguments --python --c --latex --cost --irace is required"),
    (["export", "--utility", "uniform(3)", "--python", "a.py", "--c", "a.c"], "not allowed with"),
])
def test_export_bad_input(capsys, argv, pattern):
    pytest.importorskip("maxent_util.export")
    assert_usage_error(*run(capsys, *argv), pattern)


def test_export_unwritable_path(capsys, tmp_path):
    pytest.importorskip("maxent_util.export")
    status, out, err = run(capsys, "export", "--utility", "uniform(3)", "--c",
                           str(tmp_path / "no" / "such" / "dir" / "u.c"))
    assert_usage_error(status, out, err)


# ---------------------------------------------------------------------------
# plot and tour


def assert_png(path: Path) -> None:
    data = Path(path).read_bytes()
    assert data[:8] == PNG_SIGNATURE
    assert len(data) > 20_000  # a drawn figure, not an empty canvas


def test_plot_default_and_ranking(capsys, tmp_path):
    target = tmp_path / "u.png"
    status, out, _ = run(capsys, "plot", "-o", str(target))
    assert status == 0 and out.strip() == f"wrote {target}"
    assert_png(target)
    target = tmp_path / "nested" / "r.png"
    # a missing folder outside the current one is created only when asked
    assert_usage_error(*run(capsys, "plot", "--ranking", "-o", str(target)),
                       f"cannot use '{target}': the folder '{target.parent}' does not exist (pass --parents")
    assert not target.parent.exists()
    status, _, _ = run(capsys, "plot", "--ranking", "--utility", "uniform(20)", "pareto(5, 1)",
                       "--par", "2", "-o", str(target), "--parents")
    assert status == 0
    assert_png(target)


def test_plot_utilities_chosen(capsys, tmp_path):
    target = tmp_path / "two.png"
    status, _, _ = run(capsys, "plot", "--utility", "exp(-t/10)", "uniform(30)", "--t-max", "60",
                       "--log-x", "-o", str(target))
    assert status == 0
    assert_png(target)


@pytest.mark.parametrize("argv, pattern", [
    (["plot", "--utility", "PAR-2", "-o", "x.png"], "cannot draw the classic rule"),
    (["plot", "--dataset", "satcomp2021-main", "-o", "x.png"], "only goes with --ranking"),
    (["plot", "--t-max", "0", "-o", "x.png"], "argument --t-max"),
    (["plot", "--par", "2", "-o", "x.png"], "only go with --ranking"),
])
def test_plot_bad_input(capsys, argv, pattern):
    assert_usage_error(*run(capsys, *argv), pattern)


def test_plot_unwritable_or_unknown_format_is_one_line(capsys, tmp_path):
    blocker = tmp_path / "a_file"
    blocker.write_text("")
    assert_usage_error(*run(capsys, "plot", "--utility", "uniform(3)", "-o", str(blocker / "u.png")),
                       "cannot use")
    assert_usage_error(*run(capsys, "plot", "--utility", "uniform(3)", "-o", str(tmp_path / "u.xyz")),
                       "cannot write a figure as '.xyz'")


def test_plot_without_suffix_writes_png(capsys, tmp_path):
    status, out, _ = run(capsys, "plot", "--utility", "uniform(3)", "-o", str(tmp_path / "curves"))
    assert status == 0 and out.strip() == f"wrote {tmp_path / 'curves.png'}"
    assert_png(tmp_path / "curves.png")


def test_tour_in_process(capsys, tmp_path, parallel_reference):
    status, out, _ = run(capsys, "tour", "--out", str(tmp_path / "tour"))
    assert status == 0
    # every family's utility formula, as the library derives it
    for spec in ("uniform(24)", "pareto(24, 1)", "piecewise(24, 12, 0.3)"):
        assert spec in out
    assert "u(t) = 1 - t/24 if t < 24; 0 otherwise" in out  # hand: uniform on [0, 24]
    assert "u(t) = 1 if t < 24; 24/t otherwise" in out      # hand: Pareto(24, 1)
    assert "6 different top-three rankings" in out
    # the top three per rule, as the library ranks them
    for rule in list(TOUR_UTILITIES) + ["PAR-2"]:
        order = parallel_reference[f"{rule} rank"].sort_values(kind="stable").index[:3]
        podium = ", ".join(f"{i}. {name}" for i, name in enumerate(order, start=1))
        assert any(line.split() == f"{rule} {podium}".split() for line in out.splitlines()), rule
    assert_png(tmp_path / "tour" / "utilities.png")
    assert_png(tmp_path / "tour" / "ranking.png")


def test_help_and_version(capsys):
    status, out, _ = run(capsys, "--version")
    assert status == 0 and out.startswith("maxent-util ")
    status, out, _ = run(capsys, "rank", "--help")
    assert status == 0 and "--dataset" in out


# ---------------------------------------------------------------------------
# real processes: the installed entry point and python -m


def entry_point() -> str:
    candidate = Path(sys.executable).parent / "maxent-util"
    found = str(candidate) if candidate.exists() else shutil.which("maxent-util")
    if found is None:
        pytest.skip("the maxent-util entry point is not installed")
    return found


def run_process(*command: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    # the entry point and `python -m` load this checkout's package, not an installed copy
    env = checkout_env(PYTHONIOENCODING="utf-8")
    env.pop("MAXENT_UTIL_TRACEBACK", None)
    return subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=cwd, env=env)


def test_entry_point_tour_when_the_reader_leaves_early(tmp_path):
    # the README's first command as typed, `maxent-util tour`, read as `| head -1` reads it:
    # unbuffered, so the second line already meets the closed pipe, long before the figures
    # are drawn; they are written all the same, into the default folder, and quietly. (What
    # the tour prints is checked in process, test_tour_in_process: one real tour is enough.)
    env = checkout_env(MPLBACKEND="Agg", PYTHONUNBUFFERED="1")
    env.pop("MAXENT_UTIL_TRACEBACK", None)
    child = subprocess.Popen([entry_point(), "tour"], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, cwd=tmp_path, env=env)
    try:
        assert child.stdout.readline().startswith(b"1. The paper's seven captime families")
        child.stdout.close()  # `head -1` has its line and leaves
        err = child.stderr.read()
        child.wait(timeout=300)
    finally:
        child.kill()
        child.wait()
    assert child.returncode == 0, err
    assert err == b""  # no traceback, no "Exception ignored"
    assert_png(tmp_path / "maxent_util_tour" / "utilities.png")
    assert_png(tmp_path / "maxent_util_tour" / "ranking.png")


@pytest.mark.parametrize("command, pattern", [
    (["-m", "maxent_util", "derive", "--support", "0", "10", "--mean", "20"], "Mean(20)"),
    (["-m", "maxent_util.cli", "rank", "missing.csv"], "`path` of `read_runs`"),
    (["-m", "maxent_util", "plan", "--epsilon", "0.1"], "required"),
])
def test_subprocess_bad_input(tmp_path, command, pattern):
    done = run_process(sys.executable, *command, cwd=tmp_path)
    assert done.returncode == 2
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(ERROR_PREFIX), done.stderr
    assert pattern in lines[0]
    assert done.stdout == ""


def test_subprocess_derive_json():
    done = run_process(entry_point(), "family", "exponential", "24", "--json")
    assert done.returncode == 0
    assert read_back(json.loads(done.stdout)["utility"]) == sympy.exp(-t / 24)
