"""Hostile values, not hostile text: numbers too large to build or to print, values whose check
would evaluate a special function for minutes, presets whose exact substitution would expand
powers of 10**300 digits, objects handed out by a cache.  Each either gives the right answer or
raises a maxent_util error that names the argument and shows the value shortened (issue 23, 4).
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

import maxent_util as mu
from maxent_util import families
from maxent_util import expressions
from maxent_util.constraints import Mean, Moment, Support, TailProbability
from maxent_util.documents import from_json, to_json
from maxent_util.errors import ConstraintError, ExportError, MaxEntError

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def quick_deadline(monkeypatch):
    """Half a second for the evaluations of one value (the default is EVALUATION_SECONDS)."""
    monkeypatch.setattr(expressions, "EVALUATION_SECONDS", 0.5)


# ---------------------------------------------------------------------------
# numbers too large to print: never Python's int-to-str ValueError


@pytest.mark.parametrize("value", [10 ** 5000, sympy.Integer(10) ** 5000, sympy.Rational(1, 10 ** 5000)],
                         ids=["int", "sympy-Integer", "sympy-Rational"])
def test_a_number_beyond_the_int_to_str_limit_is_refused_with_its_size(value):
    with pytest.raises(ConstraintError, match=r"`value` of `Mean` must be (a number|numbers) of at most "
                                              r"400 digits; got '.*5001 digits'") as caught:
        Mean(value)
    assert len(str(caught.value)) < 200


def test_a_float_beyond_the_exponent_range_is_refused_as_a_support_bound():
    with pytest.raises(ConstraintError, match=r"`lower` of `Support` must be numbers between 1e-10000 "
                                              r"and 1e10000; got 1\.0+e-100000"):
        Support(sympy.Float("1e-100000"), 1)


# ---------------------------------------------------------------------------
# powers: the size of what sympy would expand is bounded whatever the base

BLOW_UPS = ["(3**(1/7))**(7**300)", "sqrt(2)**(10**300)", "(2*alpha)**(10**300)", "2**(10**300 + 1/2)",
            "(2**(1/3))**(3*10**300)", "(sqrt(2)*alpha)**(-10**300)",
            "24**(-1/10**300)"]


def test_powers_of_any_base_are_refused_before_they_are_computed():
    # in a child with a memory limit: before the size check each of these ran for minutes and
    # took gigabytes (sqrt(2)**(10**300) reached 4 GB)
    script = textwrap.dedent(f"""
        import resource, sys
        resource.setrlimit(resource.RLIMIT_AS, (2 * 2**30, 2 * 2**30))
        from maxent_util import Mean
        from maxent_util.errors import ConstraintError
        for text in {BLOW_UPS!r}:
            try:
                Mean(text)
            except ConstraintError as error:
                print(error)
            else:
                print("accepted", text)
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                          cwd=ROOT)
    lines = done.stdout.splitlines()
    assert done.returncode == 0, done.stderr[-2000:]
    assert len(lines) == len(BLOW_UPS)
    for text, line in zip(BLOW_UPS, lines):
        assert line == (f"`value` of `Mean` must be a power with at most 400 digits (write it as a float, "
                        f"e.g. 1e300); got {text!r}.")


@pytest.mark.parametrize("text, value", [
    ("sqrt(2)**400", 2 ** 200), ("(3**(1/7))**(7**2)", 3 ** 7), ("(2*alpha)**3/alpha**3", 8),
    ("15**(-77000/252213)", None), ("10**399", 10 ** 399)],
    ids=["sqrt", "root-of-power", "symbolic", "root-of-large-order", "399-digits"])
def test_powers_of_sensible_size_are_kept(text, value):
    mean = Mean(text)
    if value is not None:
        assert mean.value == value
    else:  # a root of large order that sympy keeps as it is (it expands none of its digits)
        assert mean.value == sympy.Pow(15, sympy.Rational(-77000, 252213))


@settings(max_examples=60, deadline=None)
@given(base=st.sampled_from(["2", "sqrt(2)", "3**(1/7)", "(2*alpha)", "1.5", "pi", "t"]),
       exponent=st.integers(min_value=-10 ** 6, max_value=10 ** 6))
def test_a_power_is_built_within_the_digit_limit_or_refused(base, exponent):
    try:
        value = expressions.read_expression(f"{base}**({exponent})", arg="u", owner="Utility")
    except MaxEntError as error:
        assert str(error).startswith("`u` of `Utility` must be ")
        return
    for number in value.atoms(sympy.Rational):
        assert abs(number.p) < 10 ** expressions.MAX_DIGITS and number.q < 10 ** expressions.MAX_DIGITS


# ---------------------------------------------------------------------------
# evaluations of a checked value run under a deadline


@pytest.mark.usefixtures("quick_deadline")
@pytest.mark.parametrize("text", ["gamma(-1e300+0.5)", "gamma(10**300+0.5)"])
def test_a_value_whose_evaluation_takes_minutes_is_refused_at_the_deadline(text):
    # sympy evaluates gamma of an exact half-integer by a product of 10**300 terms
    with pytest.raises(ConstraintError, match=r"`value` of `Mean` must be a value whose numbers can be "
                                              r"evaluated within 0\.5 s; got 'gamma\("):
        Mean(text)


def test_cheap_functions_of_numbers_are_still_evaluated():
    assert Mean("gamma(3.5)").value == 15 * sympy.sqrt(sympy.pi) / 8
    assert Mean("exp(2)").value == sympy.exp(2)


def _utility_document(expr_tree: dict) -> str:
    document = json.loads(to_json(mu.Utility("exp(-t)")))
    document["expr"] = expr_tree
    return json.dumps(document)


def _float(text: str) -> dict:
    return {"float": text, "precision": 53}


@pytest.mark.usefixtures("quick_deadline")
def test_from_json_refuses_a_value_whose_check_would_spin():
    # 400 bytes: checking that uppergamma(1e20, 1e20) is real evaluated it, for minutes
    document = _utility_document({"op": "uppergamma", "args": [_float("1e20"), _float("1e20")]})
    with pytest.raises(ExportError, match=r"`expr` of `from_json` must be a value whose numbers can be "
                                          r"evaluated within 0\.5 s; got uppergamma\(1\.0e\+20, 1\.0e\+20\)"):
        from_json(document)


@pytest.mark.parametrize("tree, requirement", [
    ({"op": "lowergamma", "args": [_float("1e20"), _float("1e20")]}, "a value that can be evaluated"),
    ({"op": "floor", "args": [_float("1e9999")]}, "numbers of at most 400 digits"),
], ids=["lowergamma-no-convergence", "floor-10000-digits"])
def test_from_json_refuses_a_value_that_cannot_be_evaluated_or_is_too_large(tree, requirement):
    # before: mpmath's NoConvergence, and a 10,000-digit integer that failed when printed
    with pytest.raises(ExportError, match=rf"`expr` of `from_json` must be {requirement}; got "):
        from_json(_utility_document(tree))


def test_from_json_reads_a_document_with_special_functions_of_sensible_numbers():
    tree = {"op": "Mul", "args": [{"op": "uppergamma", "args": [{"int": "2"}, _float("1.5")]},
                                  {"op": "exp", "args": [{"op": "Mul", "args": [
                                      {"int": "-1"}, {"symbol": "t", "assumptions": ["nonnegative"]}]}]}]}
    utility = from_json(_utility_document(tree))
    assert utility.expr.has(sympy.uppergamma)


# ---------------------------------------------------------------------------
# presets: huge parameters are refused before the exact substitution, and a deadline holds


@pytest.mark.parametrize("family, args, parameter, shown", [
    ("generalized_log_laplace", (24, 1e-6, 1e-6), "beta", "1e-06"),   # before: "unexpected ValueError"
    ("log_laplace", (24, "1e-300"), "alpha", "1e-300"),                 # before: 10 GB
    ("pareto", ("1e300", "1e300"), "alpha", r"1e\+300"),                # before: never finished
])
def test_a_preset_refuses_parameters_whose_exact_law_would_hold_millions_of_digits(family, args, parameter,
                                                                                     shown):
    with pytest.raises(ConstraintError, match=rf"`{parameter}` of `{family}` must be a value at which the "
                                              rf"exact law holds numbers of at most 100,000 digits; got "
                                              rf"{shown}\. Its term .* would build numbers of about"):
        getattr(families, family)(*args)


def test_the_paper_presets_with_typed_values_are_not_refused():
    # generalized_log_laplace(1500, 3.42, 0.0993) holds a 9,205-digit integer: within the bound
    assert families.generalized_log_laplace(1500, 3.42, 0.0993).name == "generalized_log_laplace(1500, 3.42, 0.0993)"
    assert families.pareto(24, 1000).utility()(48.0) == pytest.approx(0.5 ** 1000, rel=1e-9)


def test_a_preset_refusal_reaches_the_command_line_as_one_line(capsys):
    from maxent_util.cli import main

    assert main(["family", "log_laplace", "24", "1e-300"]) == 2
    error = capsys.readouterr().err.strip().splitlines()
    assert len(error) == 1 and "`alpha` of `log_laplace` must be a value at which" in error[0]
    with pytest.raises(ConstraintError, match=r"`alpha` of `log_laplace` must be a value at which"):
        families.parse_utility("log_laplace(24, 1e-300)")   # rank --utility reads it so


def test_a_preset_runs_under_the_deadline_of_derive(monkeypatch):
    import time

    from maxent_util.errors import TimeLimitError

    def slow(*args):  # a substitution that would never end (interrupted by the alarm)
        while True:
            time.sleep(0.01)
    monkeypatch.setattr(families, "_from_shipped", slow)
    with pytest.raises(TimeLimitError, match=r"pareto\(24, 2\) did not finish within the time limit of 0\.5 s"):
        families._preset("pareto")(24, 2, timeout=0.5)


# ---------------------------------------------------------------------------
# the derive cache hands out objects that no caller can rename for the others


def test_a_law_from_the_derive_cache_cannot_be_renamed_for_the_next_caller():
    first = mu.derive(Support(0, "oo"), Mean(sympy.Rational(7, 3)))
    with pytest.raises(AttributeError, match=r"`CaptimeDistribution` objects are immutable: `name` cannot "
                                             r"be changed \(make a changed copy instead, e.g. with `with_name`"):
        first.name = "renamed"
    again = mu.derive(Support(0, "oo"), Mean(sympy.Rational(7, 3)))
    assert again is first and getattr(again, "name", None) is None
    named = first.with_name("mine")   # the way to rename: a copy, which its maker may still change
    assert named.name == "mine" and getattr(first, "name", None) is None


def test_the_cached_symbolic_preset_cannot_be_renamed_either():
    shipped = families.symbolic_preset("pareto")
    with pytest.raises(AttributeError, match="immutable"):
        shipped.name = "renamed"
    assert families.pareto(24, 2).name == "pareto(24, 2)"


# ---------------------------------------------------------------------------
# a known captime law is a density: non-negative, of mass 1


@pytest.mark.parametrize("pdf, support, requirement, remedy", [
    ("exp(-kappa)/2", (0, "oo"), "a density whose integral over the support is 1",
     r"Its integral is 0\.5; divide it by that\."),
    ("1/5", (0, 10), "a density whose integral over the support is 1", r"Its integral is 2;"),
    ("-exp(-kappa)", (0, "oo"), "a density, non-negative on the support", r"pdf\(0\) = -1\."),
    ("(kappa - 1)*3/2", (0, 2), "a density, non-negative on the support", r"pdf\(0\) = -1\.5\."),
], ids=["mass-one-half", "mass-two", "negative", "negative-then-positive"])
def test_known_captime_refuses_what_is_not_a_density(pdf, support, requirement, remedy):
    # before: accepted, and every score came out scaled by the wrong mass (or above 1)
    with pytest.raises(mu.errors.UtilityError, match=rf"^`pdf` of `KnownCaptime` must be {requirement}; "
                                                     rf"got '.*'\. {remedy}"):
        mu.KnownCaptime(pdf, support)


@pytest.mark.parametrize("pdf, support", [
    ("exp(-kappa)", (0, "oo")), ("1/(2*sqrt(kappa))", (0, 1)), ("2*kappa*exp(-kappa**2)", (0, "oo")),
    ("exp(-kappa/c)/c", (0, "oo")),   # a symbolic parameter: not checked
])
def test_known_captime_accepts_densities(pdf, support):
    law = mu.KnownCaptime(pdf, support)
    if law.pdf.free_symbols == {mu.kappa}:
        assert 0.0 <= float(law.utility()(0.5)) <= 1.0


def test_known_captime_checks_the_mass_by_quadrature_where_sympy_has_no_integral(monkeypatch):
    from maxent_util.utility import known

    def no_integral(*args, **kwargs):
        raise NotImplementedError
    monkeypatch.setattr(known.sympy, "integrate", no_integral)
    mu.KnownCaptime("exp(-kappa)", (0, "oo"))
    with pytest.raises(mu.errors.UtilityError, match=r"integral over the support is 1; .* Its integral is 0\.5"):
        mu.KnownCaptime("exp(-kappa)/2", (0, "oo"))


# ---------------------------------------------------------------------------
# the hostile inputs of issue 32 at the library's readers and writers


def test_a_binary_file_is_refused_as_a_csv_naming_the_file(tmp_path):
    from maxent_util.errors import DataError
    from maxent_util.io import read_runs, read_satcomp
    path = tmp_path / "runs.csv"
    # a carriage return inside the header's quoted-looking field made csv raise csv.Error
    path.write_bytes(bytes(range(1, 256)) * 4 + b'a\rb,"c\n\x00,"')
    for read in (read_runs, read_satcomp):
        with pytest.raises(DataError, match=rf"`path` of `read_\w+` must be .*; got "
                                            rf"'{path}'"):
            read(path)


def test_a_rate_of_1e300_exports_within_moments_and_right(tmp_path):
    # exp(-10**300 t): expm1's rewrite factored it as a polynomial of degree 10**300
    from maxent_util.export import cost_c
    assert "double cost(double runtime, int status, double cutoff)" in cost_c("exponential(1e-300)")


def test_a_write_to_a_device_says_so_and_leaves_it_alone(tmp_path):
    from maxent_util._output import atomic_file
    from maxent_util.export import export_cost
    device = Path("/dev/full")
    if not device.is_char_device():
        pytest.skip("no /dev/full here")
    for overwrite in (False, True):
        with pytest.raises(ExportError, match=r"`path` of `export_cost` must be a file path, not "
                                              r"a device, FIFO or socket; got '/dev/full'"):
            export_cost("exponential(2)", device, overwrite=overwrite)
    with pytest.raises(OSError, match="not a regular file"):
        with atomic_file(device, overwrite=True) as handle:
            handle.write("x")
    assert device.is_char_device()  # not replaced by a file (as root, it was)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(ExportError, match="not a device, FIFO or socket"):
        export_cost("exponential(2)", fifo, overwrite=True)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
