"""Tests of the export layer: LaTeX derivations, generated Python and C scorers,
JSON round trips, backends for other array libraries, and the configurator cost.

Reference values:
* The Lagrange multipliers come from the paper's Appendix C (quoted next to
  each); where the library states a constraint in an equivalent but
  differently parametrised way, the conversion is derived by hand in a comment.
* The figure parameters are those of the paper's utility grid (Figure 2), as
  set in the authors' plotting script generate_maxent_plots.py:
  kappa0 = 24, Pareto alpha = 1, log-Laplace alpha = 2, generalized
  log-Laplace alpha = 2 and beta = 5, sigma = 0.5, kappa1 = 12, delta = 0.3.
* Generated scorers are compared with the library's own numpy scorer
  (:func:`maxent_util.scorer.compile_scorer`), which test_scoring.py checks
  against mpmath; the closed-form utilities of Section 3 are checked here too.
"""

from __future__ import annotations

import ctypes
import functools
import json
import math
import shutil
import subprocess
import sys
import textwrap
import typing
from pathlib import Path

import numpy as np
import pytest
import sympy
from conftest import identical, same

from maxent_util import families
from maxent_util.constraints import LogMoment, Mean, Moment, Support, TailProbability
from maxent_util.errors import DataError, ExportError, MaxEntError
from maxent_util.export import (JSON_FORMAT, JSON_VERSION, cost_function, derivation, export_c, export_python,
                                from_json, to_json, to_latex)
from maxent_util.scorer import CompiledScorer, compile_scorer
from maxent_util.symbols import kappa, t
from maxent_util.utility import Utility

# (preset, arguments) at the paper's figure parameters (see the module docstring)
FIGURE = families.FIGURE_PARAMETERS

# The paper's closed-form utilities (Section 3) at the figure parameters, by hand:
# u_unif = 1 - t/24 before 24; u_exp = exp(-t/24); u_Pareto = 24/t after 24;
# u_LL = 1 - (t/24)^2/2 | (24/t)^2/2; u_GLL = 1 - (2/7)(t/24)^5 | (5/7)(24/t)^2;
# u_LN = erfc(log(t/24)/(sqrt(2)/2))/2; u_piece = 1 - 0.3 t/12 | 0.7 (24 - t)/12.
PAPER_UTILITY = {
    "uniform": lambda x: np.where(x < 24, 1 - x / 24, 0.0),
    "exponential": lambda x: np.exp(-x / 24),
    "pareto": lambda x: np.where(x < 24, 1.0, 24 / x),
    "log_laplace": lambda x: np.where(x < 24, 1 - (x / 24) ** 2 / 2, (24 / x) ** 2 / 2),
    "generalized_log_laplace": lambda x: np.where(x < 24, 1 - 2 / 7 * (x / 24) ** 5, 5 / 7 * (24 / x) ** 2),
    "log_normal": None,  # needs erfc: checked against scipy in its own test
    "piecewise": lambda x: np.where(x < 12, 1 - 0.3 * x / 12, np.where(x < 24, 0.7 * (24 - x) / 12, 0.0)),
}


@pytest.fixture(scope="module")
def figure_laws():
    return {name: getattr(families, name)(*args) for name, args in FIGURE.items()}


@functools.cache
def symbolic_pareto() -> Utility:
    """The Pareto preset's utility with symbols kappa0 and alpha (shared by the refusal tables)."""
    return families.pareto("kappa0", "alpha").utility()


def _runtimes(count: int = 10_000) -> np.ndarray:
    """Runtimes over 16 decades around kappa0 = 24, the breakpoints and their neighbours, and the ends."""
    special = []
    for point in (12.0, 24.0):
        special += [point, np.nextafter(point, 0), np.nextafter(point, np.inf)]
    special += [0.0, -1.0, np.inf, 5e-324, 1e-300, 1e300, 1.7976931348623157e308]
    grid = 24.0 * np.geomspace(1e-8, 1e8, count - len(special))
    return np.concatenate([grid, special])


# ---------------------------------------------------------------------------
# LaTeX
# ---------------------------------------------------------------------------

def test_to_latex_of_each_object_matches_its_notebook_rendering(figure_laws):
    law = figure_laws["pareto"]
    utility = law.utility()
    # the objects' own _repr_latex_ wraps the same text in $...$
    assert utility._repr_latex_() == f"${to_latex(utility)}$"
    assert law._repr_latex_() == f"${to_latex(law)}$"
    assert to_latex(utility) == "u(t) = " + sympy.latex(utility.expr)
    assert to_latex(law) == r"f(\kappa) = " + sympy.latex(law.pdf)
    assert to_latex({sympy.Symbol("lambda_1"): 1 / sympy.Symbol("mu")}) == r"\lambda_{1} = \frac{1}{\mu}"
    assert to_latex(sympy.sqrt(t)) == r"\sqrt{t}"


def test_to_latex_states_constraints_as_the_paper_does():
    # the paper's Section 3 notation: E[log(kappa/kappa0) | kappa >= kappa0] = 1/alpha, P(kappa < kappa1) = delta
    alpha = sympy.Symbol("alpha", positive=True)
    assert to_latex(Mean(3)) == r"\operatorname{E}\left[\kappa\right] = 3"
    assert to_latex(LogMoment(1 / alpha, 24, side="above")) == (
        r"\operatorname{E}\left[\log{\left(\frac{\kappa}{24} \right)} \;\middle|\; \kappa \geq 24\right]"
        r" = \frac{1}{\alpha}")
    assert to_latex(TailProbability(12, sympy.Rational(3, 10))) == (
        r"\operatorname{P}\left(\kappa < 12\right) = \frac{3}{10}")
    # Support(0, oo) is printed as an interval (sympy would evaluate the membership to True)
    assert to_latex(Support(0, sympy.oo)) == r"\kappa \in \left[0, \infty\right)"
    assert to_latex(Support(0, 24)) == r"\kappa \in \left[0, 24\right]"
    assert r"\mathbf{1}" in to_latex(Moment(kappa ** 2, 5, where=(0, 3)))


# The multipliers of Appendix C, as (symbolic preset, {multiplier index: paper's value}).
# The library states the two-sided tail conditions as E[(log(kappa0/kappa) - 1/beta) 1{kappa < kappa0}] = 0
# (lambda_1) and E[(log(kappa/kappa0) - 1/alpha) 1{kappa >= kappa0}] = 0 (lambda_2): the same features as
# the paper's lambda_2 and lambda_3 plus constants, so lambda_1 = beta - 1 and lambda_2 = alpha + 1 carry over.
_A, _B, _K0, _MU, _SIGMA = sympy.symbols("alpha beta kappa0 mu sigma", positive=True)
_K1, _DELTA = sympy.symbols("kappa1 delta", positive=True)
PAPER_MULTIPLIERS = {
    # Bounded (uniform): lambda_0 = log(kappa0) - 1
    "uniform": (("kappa0",), {0: sympy.log(_K0) - 1}),
    # Fixed expectation: lambda_0 = log(1/lambda_1) - 1, lambda_1 = 1/mu
    "exponential": (("mu",), {0: sympy.log(_MU) - 1, 1: 1 / _MU}),
    # Fixed order of magnitude: lambda_1 - 1 = alpha, exp(-lambda_0 - 1) = (lambda_1 - 1)/kappa0
    "pareto": (("kappa0", "alpha"), {0: sympy.log(_K0 / _A) - 1, 1: _A + 1}),
    # (generalized) log-Laplace: lambda_3 = alpha + 1, lambda_2 = beta - 1 (paper's numbering)
    "log_laplace": (("kappa0", "alpha"), {1: _A - 1, 2: _A + 1}),
    "generalized_log_laplace": (("kappa0", "alpha", "beta"), {1: _B - 1, 2: _A + 1}),
    # Fixed squared deviation: lambda_2 = 1/(2 sigma^2), lambda_1 = 1, exp(-1 - lambda_0) = 1/(kappa0 sigma sqrt(2 pi))
    "log_normal": (("kappa0", "sigma"), {0: sympy.log(_K0 * _SIGMA * sympy.sqrt(2 * sympy.pi)) - 1,
                                         1: sympy.Integer(1), 2: 1 / (2 * _SIGMA ** 2)}),
    # Piecewise: the paper's indicator is 1{kappa > kappa1} with exp(-lambda_0 - 1) = delta/kappa1 and
    # exp(-lambda_1) = ((1 - delta)/delta)(kappa1/(kappa0 - kappa1)); the library's TailProbability
    # multiplies 1{kappa < kappa1}, so its lambda_1 is minus the paper's and its exp(-1 - lambda_0) is
    # the density above kappa1, (1 - delta)/(kappa0 - kappa1).
    "piecewise": (("kappa0", "kappa1", "delta"),
                  {0: sympy.log((_K0 - _K1) / (1 - _DELTA)) - 1,
                   1: sympy.log((1 - _DELTA) / _DELTA * _K1 / (_K0 - _K1))}),
}


@pytest.mark.parametrize("name", list(PAPER_MULTIPLIERS))
def test_symbolic_multipliers_are_the_papers(name):
    arguments, expected = PAPER_MULTIPLIERS[name]
    law = getattr(families, name)(*arguments)
    assert law.closed_form
    text = derivation(law).replace("&", "")
    for index, value in expected.items():
        symbol = sympy.Symbol(f"lambda_{index}", real=True)
        assert same(law.multipliers[symbol], value), (symbol, law.multipliers[symbol], value)
        # the derivation prints the solved value; logs are combined as the paper writes them
        shown = f"{sympy.latex(symbol)} = {sympy.latex(value)}"
        if name != "piecewise" and not (name == "log_normal" and index == 0):
            assert shown in text, shown
    if name == "log_laplace":  # the GLL with alpha = beta (paper: "When alpha = beta, it becomes the standard log-Laplace")
        assert r"\lambda_{1} = \alpha - 1" in text


@pytest.mark.parametrize("name", list(FIGURE))
def test_multipliers_at_the_figure_parameters(name, figure_laws):
    arguments, expected = PAPER_MULTIPLIERS[name]
    law = figure_laws[name]
    symbols = {"kappa0": _K0, "mu": _MU, "alpha": _A, "beta": _B, "sigma": _SIGMA, "kappa1": _K1,
               "delta": _DELTA}
    values = {symbols[a]: v for a, v in zip(arguments, FIGURE[name])}
    text = derivation(law).replace("&", "")
    for index, value in expected.items():
        symbol = sympy.Symbol(f"lambda_{index}", real=True)
        number = value.subs(values)
        assert same(law.multipliers[symbol], number), (symbol, law.multipliers[symbol], number)
        # printed with logs combined, e.g. lambda_1 = log(7/3) for the piecewise law
        assert f"{sympy.latex(symbol)} = {sympy.latex(sympy.logcombine(number, force=True))}" in text


def test_numeric_multipliers_are_reported_with_a_note():
    # Support(0, 10) with Mean(3): the multiplier equation is transcendental (Appendix C has no such case)
    law = __import__("maxent_util").derive(Support(0, 10), Mean(3))
    assert not law.closed_form
    text = derivation(law)
    assert "No closed form was found" in text
    lam = float(law.multipliers[sympy.Symbol("lambda_1", real=True)])
    # the printed value agrees with the multiplier to the 15 digits shown
    shown = sympy.latex(sympy.Float(law.multipliers[sympy.Symbol("lambda_1", real=True)], 15))
    assert shown in text
    # the density it gives has mean 3 (quadrature by hand of kappa exp(-lambda_1 kappa) on [0, 10])
    from scipy import integrate
    z = integrate.quad(lambda x: math.exp(-lam * x), 0, 10)[0]
    m = integrate.quad(lambda x: x * math.exp(-lam * x), 0, 10)[0]
    assert m / z == pytest.approx(3, rel=1e-10)


def test_derivation_has_every_step_of_appendix_c():
    text = derivation(Support(0, sympy.oo), Mean("mu"))
    # the exponential case of Appendix C, step by step
    for piece in (r"L[f(\kappa), \lambda] = - \int_{0}^{\infty} f(\kappa) \log f(\kappa)",
                  r"\lambda_{1} \bigg( \int_{0}^{\infty} \kappa f(\kappa) \;d\kappa - \mu \bigg)",
                  r"\frac{\partial L}{\partial f(\kappa)} &= - \log f(\kappa) - 1 - \lambda_{0} - \lambda_{1} \kappa",
                  r"\frac{\partial L}{\partial \lambda_{1}} &= - \int_{0}^{\infty} \kappa f(\kappa) \;d\kappa + \mu",
                  r"f(\kappa) &= e^{- \kappa \lambda_{1} - \lambda_{0} - 1}",
                  r"\int_{0}^{\infty} \kappa f(\kappa) \;d\kappa &= \mu",
                  r"\lambda_{1} &= \frac{1}{\mu}",
                  r"f(\kappa) &= \frac{e^{- \frac{\kappa}{\mu}}}{\mu}",
                  r"u(t) = 1 - F(t) &= e^{- \frac{t}{\mu}}"):
        assert piece in text, piece
    assert text.startswith(r"\section{")
    assert r"\documentclass" not in text
    assert derivation(Support(0, sympy.oo), Mean("mu"), document=True).startswith("\\documentclass{article}")


LATEX_MISUSE = [
    pytest.param(lambda: to_latex(object()), ExportError,
                 r"^`obj` of `to_latex` must be a Constraint, CaptimeDistribution", id="to_latex-object"),
    pytest.param(lambda: derivation("pareto(5, 3)"), ExportError,
                 r"^`constraints` of `derivation` must be Constraint objects or one", id="derivation-text"),
    pytest.param(lambda: derivation(), ExportError,
                 r"^`constraints` of `derivation` must be", id="derivation-nothing"),
]


@pytest.mark.parametrize("call, error, message", LATEX_MISUSE)
def test_latex_export_refuses_other_arguments(call, error, message):
    with pytest.raises(error, match=message):
        call()


def _pdflatex(folder: Path, name: str, text: str) -> subprocess.CompletedProcess:
    (folder / f"{name}.tex").write_text(text)
    return subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", f"{name}.tex"],
                          cwd=folder, capture_output=True, text=True, timeout=60)


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="pdflatex is not installed")
@pytest.mark.parametrize("symbolic", [False, True], ids=["figure", "symbolic"])
def test_every_family_derivation_compiles(tmp_path, figure_laws, symbolic):
    for name in FIGURE:
        law = getattr(families, name)(*PAPER_MULTIPLIERS[name][0]) if symbolic else figure_laws[name]
        result = _pdflatex(tmp_path, name, derivation(law, document=True))
        errors = [line for line in result.stdout.splitlines() if line.startswith("!")]
        assert result.returncode == 0, (name, errors)
        assert (tmp_path / f"{name}.pdf").stat().st_size > 1000


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="pdflatex is not installed")
def test_derivations_beyond_the_catalogue_compile(tmp_path):
    from maxent_util import derive

    sets = {
        # transcendental multiplier equation: the numeric route
        "bounded_mean": (Support(0, 10), Mean(3)),
        # a moment on part of the support, numeric as well
        "partial_log_moment": (Support(1, 50), Moment(sympy.log(kappa), 1, where=(1, 10))),
        # no Support stated: [0, oo) by default
        "mean_only": (Mean(5),),
    }
    for name, constraints in sets.items():
        text = derivation(*constraints, document=True, title=f"{name} & co.")
        result = _pdflatex(tmp_path, name, text)
        assert result.returncode == 0, (name, [l for l in result.stdout.splitlines() if l.startswith("!")])
        assert (r"\section{" + name.replace("_", r"\_") + r" \& co.}") in text
    partial = derivation(*sets["partial_log_moment"])
    # the feature applies on [1, 10) of the support [1, 50]: an indicator in dL/df, the region in the integral
    assert r"\lambda_{1} \log{\left(\kappa \right)} \mathbf{1}\{\kappa < 10\}" in partial
    assert r"\int_{1}^{10} \log{\left(\kappa \right)} f(\kappa) \;d\kappa - 1" in partial
    assert "on the support" in derivation(Mean(5))
    assert derive(Mean(5)).closed_form


# ---------------------------------------------------------------------------
# Python module
# ---------------------------------------------------------------------------

_NO_SYMPY = textwrap.dedent("""
    import importlib.util, sys, warnings, json
    import numpy
    sys.modules["sympy"] = None          # any import of sympy now raises ImportError
    sys.modules["maxent_util"] = None
    warnings.simplefilter("error")       # and any warning fails
    folder, names = sys.argv[1], json.loads(sys.argv[2])
    runtimes = numpy.load(folder + "/runtimes.npy")
    levels = numpy.load(folder + "/levels.npy")
    for name in names:
        spec = importlib.util.spec_from_file_location(name, folder + "/" + name + ".py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        numpy.save(folder + "/" + name + "_u.npy", module.utility(runtimes))
        if hasattr(module, "inverse"):
            numpy.save(folder + "/" + name + "_inverse.npy", module.inverse(levels))
        assert isinstance(module.utility(1.0), float)
    assert "sympy" not in [m for m in sys.modules if sys.modules[m] is not None]
    print("ok")
""")


def test_exported_modules_run_without_sympy_and_match_the_scorer(tmp_path, figure_laws):
    runtimes = _runtimes()
    levels = np.concatenate([np.linspace(0.001, 0.999, 999), [1.0, 0.0, -0.5, 1.5]])
    np.save(tmp_path / "runtimes.npy", runtimes)
    np.save(tmp_path / "levels.npy", levels)
    utilities = {name: law.utility() for name, law in figure_laws.items()}
    for name, utility in utilities.items():
        assert export_python(utility, tmp_path / f"{name}.py") == tmp_path / f"{name}.py"
    result = subprocess.run([sys.executable, "-c", _NO_SYMPY, str(tmp_path), json.dumps(list(utilities))],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    for name, utility in utilities.items():
        exported = np.load(tmp_path / f"{name}_u.npy")
        expected = compile_scorer(utility)(runtimes)
        np.testing.assert_allclose(exported, expected, rtol=1e-12, atol=1e-300, err_msg=name)
        # exact ends: u(0) = 1 and u(inf) = 0 for every captime law (the main theorem's shape)
        assert exported[runtimes == 0.0][0] == 1.0 and exported[runtimes == np.inf][0] == 0.0
        if PAPER_UTILITY[name] is not None:
            finite = (runtimes > 0) & (runtimes < 1e200)
            with np.errstate(all="ignore"):
                np.testing.assert_allclose(exported[finite], PAPER_UTILITY[name](runtimes[finite]),
                                           rtol=1e-9, atol=1e-15, err_msg=name)
        source = (tmp_path / f"{name}.py").read_text()
        assert str(utility.expr) in source  # the formula is in the docstring
        if (tmp_path / f"{name}_inverse.npy").exists():
            inverse = np.load(tmp_path / f"{name}_inverse.npy")
            inside = (levels > 0) & (levels < 1)
            np.testing.assert_allclose(inverse[inside], utility.inverse(levels[inside]), rtol=1e-12)
            assert inverse[levels == 1.0][0] == 0.0
            assert np.isnan(inverse[(levels <= 0) | (levels > 1)]).all()
        else:
            assert utility.inverse_expr is None, name
    # the log-normal utility against scipy: u = P(K > t) for K log-normal(log 24, 0.5)
    from scipy import stats
    exported = np.load(tmp_path / "log_normal_u.npy")
    finite = (runtimes > 0) & (runtimes < np.inf)
    np.testing.assert_allclose(exported[finite], stats.lognorm(0.5, scale=24).sf(runtimes[finite]),
                               rtol=1e-9, atol=1e-300)
    assert "import scipy.special" in (tmp_path / "log_normal.py").read_text()
    assert "scipy" not in (tmp_path / "pareto.py").read_text()


def test_exported_parameters_are_keywords_with_defaults(tmp_path):
    import runpy

    utility = families.pareto("kappa0", "alpha").utility()
    path = export_python(utility, tmp_path / "pareto_symbolic.py", defaults={"kappa0": 24, "alpha": 1})
    module = runpy.run_path(str(path))
    assert module["PARAMETERS"] == {"alpha": 1.0, "kappa0": 24.0}
    x = np.array([0.0, 1.0, 24.0, 48.0, 96.0, np.inf])
    # the paper: u = 1 before kappa0, (kappa0/t)^alpha after
    np.testing.assert_array_equal(module["utility"](x), [1, 1, 1, 0.5, 0.25, 0])
    np.testing.assert_allclose(module["utility"](x, alpha=2.0, kappa0=12.0),
                               compile_scorer(utility)(x, alpha=2.0, kappa0=12.0), rtol=1e-15)
    # broadcasting over parameters, as the library's scorer does
    alphas = np.array([[1.0], [2.0], [3.0]])
    np.testing.assert_allclose(module["utility"](x, alpha=alphas),
                               compile_scorer(utility)(x, alpha=alphas, kappa0=24.0), rtol=1e-15)
    assert module["inverse"](0.5, alpha=2.0, kappa0=12.0) == pytest.approx(12 * math.sqrt(2), rel=1e-15)


# each call gets the test's empty tmp_path as `folder`
EXPORT_PYTHON_MISUSE = [
    pytest.param(lambda folder: export_python(symbolic_pareto(), folder / "u.py"), ExportError,
                 r"^`defaults` of `export_python` must be a value for every unresolved symbol \(alpha, kappa0\)",
                 id="no-defaults"),
    pytest.param(lambda folder: export_python(symbolic_pareto(), folder / "u.py", defaults={"alpha": 1}),
                 ExportError, r"unresolved symbol \(kappa0\)", id="some-defaults"),
    pytest.param(lambda folder: export_python(symbolic_pareto(), folder / "u.py",
                                              defaults={"alpha": 1, "kappa0": 2, "beta": 3}),
                 ExportError, r"^`beta` of `export_python` must be one of the utility's parameters \(alpha, kappa0\)",
                 id="unknown-default"),
    pytest.param(lambda folder: export_python(symbolic_pareto(), folder / "u.py",
                                              defaults={"alpha": "fast", "kappa0": 2}),
                 ExportError, r"^`alpha` of `export_python` must be a finite number", id="text-default"),
    pytest.param(lambda folder: export_python(families.exponential(24).utility(), folder / "no_such_folder" / "u.py"),
                 ExportError,
                 r"^`path` of `export_python` must be in an existing directory; got '.*no_such_folder/u.py'\. Create",
                 id="missing-folder"),
    pytest.param(lambda folder: export_python(families.exponential(24).utility(), folder), ExportError,
                 r"^`path` of `export_python` must be a file path, not a directory", id="path-is-a-folder"),
    pytest.param(lambda folder: export_python("exp(-t)", folder / "u.py"), ExportError,
                 r"^`utility` of `export_python` must be a Utility", id="text-utility"),
    # a function numpy does not have
    pytest.param(lambda folder: export_python(Utility(1 - sympy.polylog(2, -t)), folder / "u.py"), ExportError,
                 r"^`utility` of `export_python` must be made of functions with a numpy", id="no-numpy-function"),
    # an undefined function would be printed by its name, which can be any text
    pytest.param(lambda folder: export_python(Utility(sympy.Function("g")(t)), folder / "u.py"), ExportError,
                 r"^`utility` of `export_python` must be made of numbers, t, named parameters, arithmetic, "
                 r"comparisons and sympy's own functions", id="undefined-function"),
    pytest.param(lambda folder: export_python(Utility(sympy.exp(-t)), folder / "plain.py", keep_parameters=True),
                 ExportError,
                 r"^`utility` of `export_python` must be a preset's utility built with numbers, e.g. "
                 r"pareto\(24, 1\), when keep_parameters=True", id="keep-parameters-of-no-preset"),
]


@pytest.mark.parametrize("call, error, message", EXPORT_PYTHON_MISUSE)
def test_export_python_refuses_bad_input(tmp_path, call, error, message):
    with pytest.raises(error, match=message):
        call(tmp_path)
    assert list(tmp_path.iterdir()) == []  # refused before anything was written or created


def test_export_errors_are_library_errors():
    assert isinstance(ExportError("x"), MaxEntError)


# ---------------------------------------------------------------------------
# C
# ---------------------------------------------------------------------------

def _compile(folder: Path, source: str) -> ctypes.CDLL:
    (folder / "utilities.c").write_text(source)
    compiler = shutil.which("cc") or shutil.which("gcc")
    result = subprocess.run([compiler, "-std=c99", "-Wall", "-Werror", "-shared", "-fPIC", "-O2",
                             "-o", str(folder / "utilities.so"), str(folder / "utilities.c"), "-lm"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return ctypes.CDLL(str(folder / "utilities.so"))


def _array_function(library: ctypes.CDLL, name: str, parameters: int):
    function = getattr(library, f"{name}_array")
    pointer = np.ctypeslib.ndpointer(dtype=np.float64, flags="C_CONTIGUOUS")
    function.argtypes = [ctypes.c_size_t, pointer, pointer] + [ctypes.c_double] * parameters
    function.restype = None

    def call(x: np.ndarray, *params: float) -> np.ndarray:
        x = np.ascontiguousarray(x, dtype=np.float64)
        out = np.empty_like(x)
        function(x.size, x, out, *params)
        return out
    return call


@pytest.mark.skipif(shutil.which("cc") is None and shutil.which("gcc") is None, reason="no C compiler")
def test_c_export_matches_the_scorer(tmp_path, figure_laws):
    symbolic = families.generalized_log_laplace("kappa0", "alpha", "beta").utility()
    sources = [export_c(law.utility(), name=f"u_{name}") for name, law in figure_laws.items()]
    sources.append(export_c(symbolic, name="u_gll"))
    library = _compile(tmp_path, "\n".join(sources))
    runtimes = _runtimes()
    for name, law in figure_laws.items():
        exported = _array_function(library, f"u_{name}", 0)(runtimes)
        expected = compile_scorer(law.utility())(runtimes)
        np.testing.assert_allclose(exported, expected, rtol=1e-12, atol=1e-300, err_msg=name)
        single = getattr(library, f"u_{name}")
        single.argtypes, single.restype = [ctypes.c_double], ctypes.c_double
        assert single(0.0) == 1.0 and single(math.inf) == 0.0 and math.isnan(single(math.nan))
    # one double per unbound parameter, in name order: alpha, beta, kappa0
    assert "double u_gll(double t, double alpha, double beta, double kappa0)" in sources[-1]
    exported = _array_function(library, "u_gll", 3)(runtimes, 2.0, 5.0, 24.0)
    np.testing.assert_allclose(exported, compile_scorer(symbolic)(runtimes, alpha=2.0, beta=5.0, kappa0=24.0),
                               rtol=1e-12, atol=1e-300)
    np.testing.assert_allclose(exported, compile_scorer(figure_laws["generalized_log_laplace"].utility())(runtimes),
                               rtol=1e-12, atol=1e-300)


def test_c_export_binds_defaults():
    source = export_c(symbolic_pareto(), defaults={"kappa0": 24})
    assert "double utility(double t, double alpha)" in source


C_EXPORT_MISUSE = [
    pytest.param(lambda: export_c(symbolic_pareto(), name="my utility"), ExportError,
                 r"^`name` of `export_c` must be a C identifier; got 'my utility'", id="name-with-space"),
    pytest.param(lambda: export_c(symbolic_pareto(), name="double"), ExportError,
                 r"^`name` of `export_c` must be a C identifier; got 'double'", id="name-is-a-keyword"),
    pytest.param(lambda: export_c(symbolic_pareto(), defaults={"gamma": 1}), ExportError,
                 r"^`gamma` of `export_c` must be one of the utility's parameters", id="unknown-default"),
    pytest.param(lambda: export_c(Utility(sympy.Function("g")(t))), ExportError,
                 r"^`utility` of `export_c` must be made of numbers, t, named parameters, arithmetic, comparisons "
                 r"and sympy's own functions; got 'g\(t\)'\. It holds an undefined function", id="undefined-function"),
    # a function C99 does not have (refused before the limits, which sympy cannot take, are sought)
    pytest.param(lambda: export_c(Utility(1 - sympy.polylog(2, -t))), ExportError,
                 r"^`utility` of `export_c` must be made of functions with a C99 <math.h> equivalent; "
                 r"got '1 - polylog\(2, -t\)'",
                 id="no-c99-function"),
]


@pytest.mark.parametrize("call, error, message", C_EXPORT_MISUSE)
def test_c_export_refuses_bad_input(call, error, message):
    with pytest.raises(error, match=message):
        call()


# ---------------------------------------------------------------------------
# JSON
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("symbolic", [False, True], ids=["figure", "symbolic"])
def test_json_round_trip_of_every_preset(figure_laws, symbolic, monkeypatch):
    laws = ({name: getattr(families, name)(*PAPER_MULTIPLIERS[name][0]) for name in FIGURE} if symbolic
            else figure_laws)
    texts = {name: (to_json(law), to_json(law.utility())) for name, law in laws.items()}
    # loading must not derive again: make any derivation fail
    derive_module = sys.modules["maxent_util.maxent"]  # the package's `derive` attribute is the function

    def refuse(*args, **kwargs):
        raise AssertionError("from_json derived again")
    monkeypatch.setattr(derive_module, "_derive_cached", refuse)
    runtimes = _runtimes(2000)
    for name, law in laws.items():
        dist_text, utility_text = texts[name]
        data = json.loads(dist_text)
        assert (data["format"], data["version"], data["kind"]) == (JSON_FORMAT, JSON_VERSION, "distribution")
        assert (JSON_FORMAT, JSON_VERSION) == ("maxent_util", 2)
        loaded = from_json(dist_text)
        assert loaded.constraints == law.constraints
        assert loaded.name == law.name
        for attribute in ("pdf", "cdf", "sf"):
            assert identical(getattr(loaded, attribute), getattr(law, attribute)), (name, attribute)
        assert loaded.multipliers == law.multipliers
        assert all(identical(loaded.multipliers[k], v) for k, v in law.multipliers.items())
        assert loaded.closed_form == law.closed_form
        assert derivation(loaded) == derivation(law)
        utility = from_json(utility_text)
        assert identical(utility.expr, law.utility().expr) and utility.name == law.utility().name
        assert identical(utility.distribution.pdf, law.pdf)
        if not symbolic:
            np.testing.assert_array_equal(utility(runtimes), law.utility()(runtimes))
            np.testing.assert_array_equal(loaded.utility()(runtimes), law.utility()(runtimes))


def test_json_keeps_numeric_multipliers_exactly():
    law = __import__("maxent_util").derive(Support(0, 10), Mean(3))
    loaded = from_json(to_json(law))
    for key, value in law.multipliers.items():
        assert loaded.multipliers[key] == value and loaded.multipliers[key]._prec == value._prec


def test_json_of_plain_and_quality_utilities():
    from maxent_util.utility import linear_quality

    plain = Utility(sympy.exp(-t / sympy.Symbol("mu", positive=True)), name="exp")
    loaded = from_json(to_json(plain))
    assert identical(loaded.expr, plain.expr) and loaded.name == "exp" and loaded.parameters == plain.parameters
    quality = linear_quality(10, 0, 1)
    loaded = from_json(to_json(quality))
    assert type(loaded).__name__ == "QualityUtility" and identical(loaded.expr, quality.expr)
    assert loaded.q0 == quality.q0 and loaded.q1 == quality.q1


@functools.cache
def exponential_document() -> dict:
    """A valid JSON document (the exponential preset's utility) for the rows to spoil; rows copy it."""
    return json.loads(to_json(families.exponential(24).utility()))


def spoiled(**changes: object) -> str:
    return json.dumps({**exponential_document(), **changes})


VERSION_MESSAGE = r"^`version` of `from_json` must be 2 \(the version this maxent_util reads\)"
# text where an expression belongs is data of the wrong type, never read as code
ATTACK_MESSAGE = r"^`expr` of `from_json` must be an expression node \(an object\)"

JSON_MISUSE = [
    pytest.param(lambda: from_json(json.dumps({"kind": "utility"})), ExportError,
                 r"^`format` of `from_json` must be 'maxent_util'; got None", id="no-format"),
    pytest.param(lambda: from_json(spoiled(format="maxent_util/1")), ExportError,
                 r"^`format` of `from_json` must be 'maxent_util'; got 'maxent_util/1'\. "
                 r"Documents of the old srepr layout are not read", id="old-format"),
    pytest.param(lambda: from_json(spoiled(version=1)), ExportError, VERSION_MESSAGE, id="version-1"),
    pytest.param(lambda: from_json(spoiled(version=3)), ExportError, VERSION_MESSAGE, id="version-3"),
    pytest.param(lambda: from_json(spoiled(version="2")), ExportError, VERSION_MESSAGE, id="version-text"),
    pytest.param(lambda: from_json(spoiled(version=True)), ExportError, VERSION_MESSAGE, id="version-True"),
    pytest.param(lambda: from_json(spoiled(version=None)), ExportError, VERSION_MESSAGE, id="version-null"),
    pytest.param(lambda: from_json("{not json"), ExportError,
                 r"^`text` of `from_json` must be valid JSON", id="not-json"),
    pytest.param(lambda: from_json(spoiled(kind="model")), ExportError,
                 r"^`kind` of `from_json` must be 'distribution' or 'utility'", id="unknown-kind"),
    pytest.param(lambda: from_json(spoiled(expr="__import__('os').system('echo pwned')", distribution=None)),
                 ExportError, ATTACK_MESSAGE, id="expr-import"),
    pytest.param(lambda: from_json(spoiled(expr="Symbol('x').__class__", distribution=None)),
                 ExportError, ATTACK_MESSAGE, id="expr-dunder"),
    pytest.param(lambda: from_json(spoiled(expr="open('/etc/passwd')", distribution=None)),
                 ExportError, ATTACK_MESSAGE, id="expr-open"),
    pytest.param(lambda: to_json({"u": "exp(-t)"}), ExportError,
                 r"^`obj` of `to_json` must be a CaptimeDistribution or a Utility", id="to_json-dict"),
]


@pytest.mark.parametrize("call, error, message", JSON_MISUSE)
def test_json_refuses_code_and_foreign_text(call, error, message):
    with pytest.raises(error, match=message):
        call()


# ---------------------------------------------------------------------------
# Configurator cost
# ---------------------------------------------------------------------------

def test_cost_function_counts_runs_as_the_paper_does(figure_laws):
    utility = figure_laws["pareto"].utility()      # u = 1 before 24, 24/t after (paper, Section 3)
    cost = cost_function(utility)
    runtimes = np.array([1.0, 48.0, 96.0, 300.0, 10.0, 10.0, 10.0])
    status = ["solved", "solved", "solved", "capped", "crash", "memout", "unverified"]
    np.testing.assert_allclose(cost(runtimes, status, 300.0), [0, 0.5, 0.75, 1, 1, 1, 1], rtol=1e-15)
    # a timeout counted at its cutoff: u(300) = 24/300
    optimistic = cost_function(utility, capped="cutoff")
    np.testing.assert_allclose(optimistic(runtimes, status, 300.0), [0, 0.5, 0.75, 1 - 24 / 300, 1, 1, 1],
                               rtol=1e-15)
    # without a cutoff a timeout's runtime is the time it was stopped
    assert optimistic(96.0, "capped") == pytest.approx(0.75, rel=1e-15)
    assert cost(48.0) == 0.5 and isinstance(cost(48.0), float)
    # SMAC-style names and enum members
    import enum
    StatusType = enum.Enum("StatusType", "SUCCESS TIMEOUT CRASHED MEMORYOUT")
    np.testing.assert_allclose(cost([48.0] * 4, [StatusType.SUCCESS, "TIMEOUT", "CRASHED", StatusType.MEMORYOUT]),
                               [0.5, 1, 1, 1])
    # vectorised and broadcast against per-run cutoffs
    costs = optimistic(np.array([[48.0], [96.0]]), "capped", np.array([48.0, 96.0]))
    np.testing.assert_allclose(costs, [[0.5, 0.75], [0.5, 0.75]])
    # the exact ends and a NaN runtime (numbers never raise)
    assert cost(0.0) == 0.0 and cost(np.inf) == 1.0 and math.isnan(cost(math.nan))


@pytest.mark.parametrize("name", list(FIGURE))
def test_cost_is_one_minus_the_scorer(name, figure_laws):
    utility = figure_laws[name].utility()
    x = _runtimes(1000)
    np.testing.assert_array_equal(cost_function(utility)(x), 1.0 - compile_scorer(utility)(x))


def test_cost_function_takes_defaults_for_symbols():
    symbolic = families.exponential("mu").utility()
    assert cost_function(symbolic, defaults={"mu": 24})(24.0) == pytest.approx(1 - math.exp(-1), rel=1e-15)


COST_MISUSE = [
    pytest.param(lambda: cost_function(families.exponential("mu").utility()), ExportError,
                 r"^`defaults` of `cost_function` must be a value for every unresolved symbol \(mu\)",
                 id="no-defaults"),
    pytest.param(lambda: cost_function(families.exponential("mu").utility(), capped="half", defaults={"mu": 1}),
                 ExportError, r"^`capped` of `cost_function` must be 'zero' or 'cutoff'; got 'half'",
                 id="unknown-capped"),
    pytest.param(lambda: cost_function(families.exponential(24))([1.0, 2.0], ["solved", "lost"]), DataError,
                 r"^`status` of `cost` must be one of 'solved', 'capped', .*; got 'lost'", id="unknown-status"),
]


@pytest.mark.parametrize("call, error, message", COST_MISUSE)
def test_cost_function_refuses_bad_input(call, error, message):
    with pytest.raises(error, match=message):
        call()


# ---------------------------------------------------------------------------
# Other array libraries (skipped unless installed)
# ---------------------------------------------------------------------------

def test_unknown_backend_is_refused():
    from maxent_util.errors import UtilityError

    with pytest.raises(UtilityError, match=r"^`backend` of `compile_scorer` must be one of 'numpy', 'jax', 'torch'; "
                                           r"got 'tensorflow'"):
        compile_scorer(families.exponential(24).utility(), backend="tensorflow")


DIFFERENTIABLE = ["exponential", "pareto", "log_laplace", "log_normal"]


@pytest.mark.parametrize("name", DIFFERENTIABLE)
def test_torch_scorer_agrees_and_is_differentiable(name, figure_laws):
    torch = pytest.importorskip("torch")
    utility = figure_laws[name].utility()
    scorer = compile_scorer(utility, backend="torch")
    x = np.geomspace(0.5, 500, 101)
    values = scorer(torch.tensor(x, dtype=torch.float64))
    np.testing.assert_allclose(values.detach().numpy(), compile_scorer(utility)(x), rtol=1e-12)
    # d u / d t by autograd against sympy's derivative
    point = torch.tensor(36.0, dtype=torch.float64, requires_grad=True)
    scorer(point).backward()
    expected = float(sympy.diff(utility.expr, t).subs(t, 36))
    assert point.grad.item() == pytest.approx(expected, rel=1e-10)


def test_torch_scorer_is_differentiable_in_a_parameter():
    torch = pytest.importorskip("torch")
    # d/dmu exp(-t/mu) = t exp(-t/mu)/mu^2, by hand
    scorer = compile_scorer(families.exponential("mu").utility(), backend="torch")
    mu = torch.tensor(24.0, dtype=torch.float64, requires_grad=True)
    scorer(torch.tensor(12.0, dtype=torch.float64), mu=mu).backward()
    assert mu.grad.item() == pytest.approx(12 * math.exp(-0.5) / 24 ** 2, rel=1e-12)


@pytest.mark.parametrize("name", DIFFERENTIABLE)
def test_jax_scorer_agrees_and_is_differentiable(name, figure_laws):
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    utility = figure_laws[name].utility()
    scorer = compile_scorer(utility, backend="jax")
    x = np.geomspace(0.5, 500, 101)
    np.testing.assert_allclose(np.asarray(scorer(jax.numpy.asarray(x))), compile_scorer(utility)(x), rtol=1e-12)
    gradient = jax.grad(lambda s: scorer(s))(36.0)
    expected = float(sympy.diff(utility.expr, t).subs(t, 36))
    assert float(gradient) == pytest.approx(expected, rel=1e-10)


@pytest.mark.parametrize("backend", ["numpy", "jax", "torch"])
def test_compile_scorer_returns_what_its_annotation_says(backend):
    if backend != "numpy":
        pytest.importorskip(backend)
    annotation = typing.get_type_hints(compile_scorer)["return"]
    assert annotation is CompiledScorer
    scorer = compile_scorer(families.exponential("mu").utility(), backend=backend)
    assert isinstance(scorer, annotation)
    assert (scorer.backend, scorer.parameters) == (backend, ("mu",))
    assert same(scorer.expr, families.exponential("mu").utility().expr)
    # exp(-12/24), by hand (jax computes in float32 unless x64 is enabled)
    assert float(scorer(12.0, mu=24.0)) == pytest.approx(math.exp(-0.5), rel=1e-6)


def test_json_of_an_expected_utility():
    from maxent_util.utility import expected_utility

    # p(t, kappa) = 1 - t/kappa under a uniform captime on [0, 24] (Section 3's "general utility" case)
    utility = expected_utility(1 - t / kappa, families.uniform(24))
    loaded = from_json(to_json(utility))
    assert type(loaded).__name__ == "ExpectedUtility" and loaded.method == utility.method
    assert identical(loaded.per_captime, utility.per_captime) and identical(loaded.captime_pdf, utility.captime_pdf)
    x = np.array([0.0, 1.0, 6.0, 12.0, 23.0, 30.0])
    np.testing.assert_allclose(loaded(x), utility(x), rtol=1e-13)


# ---------------------------------------------------------------------------
# Property: generated code agrees with the scorer for any parameter values
# ---------------------------------------------------------------------------

from hypothesis import given, settings, strategies as st  # noqa: E402


@pytest.fixture(scope="module")
def exported_gll(tmp_path_factory):
    import runpy

    utility = families.generalized_log_laplace("kappa0", "alpha", "beta").utility()
    folder = tmp_path_factory.mktemp("gll")
    path = export_python(utility, folder / "gll.py", defaults={"kappa0": 24, "alpha": 2, "beta": 5})
    return utility, runpy.run_path(str(path))["utility"]


@settings(max_examples=60, deadline=None)
@given(alpha=st.floats(0.05, 20), beta=st.floats(0.05, 20), kappa0=st.floats(1e-3, 1e6),
       runtime=st.floats(0, 1e12))
def test_generated_module_matches_the_scorer_for_any_parameters(exported_gll, alpha, beta, kappa0, runtime):
    utility, exported = exported_gll
    value = exported(runtime, alpha=alpha, beta=beta, kappa0=kappa0)
    expected = compile_scorer(utility)(runtime, alpha=alpha, beta=beta, kappa0=kappa0)
    assert value == pytest.approx(expected, rel=1e-12, abs=1e-300)
    assert 0.0 <= value <= 1.0


def test_keep_parameters_exports_the_presets_formula_with_its_numbers(tmp_path, figure_laws):
    import runpy

    x = _runtimes(3000)
    for name, other in (("pareto", (12, 3)), ("generalized_log_laplace", (12, 3, sympy.Rational(3, 2))),
                        ("piecewise", (10, 2, sympy.Rational(1, 4)))):
        utility = figure_laws[name].utility()
        path = export_python(utility, tmp_path / f"{name}_general.py", keep_parameters=True)
        module = runpy.run_path(str(path))
        names = families.FAMILIES[name]
        assert module["PARAMETERS"] == {n: float(v) for n, v in sorted(zip(names, FIGURE[name]))}
        # the defaults reproduce the preset built with numbers
        np.testing.assert_allclose(module["utility"](x), compile_scorer(utility)(x), rtol=1e-12, atol=1e-15,
                                   err_msg=name)
        # other numbers reproduce the preset derived at those numbers
        changed = getattr(families, name)(*other).utility()
        values = {n: float(v) for n, v in zip(names, other)}
        np.testing.assert_allclose(module["utility"](x, **values), compile_scorer(changed)(x),
                                   rtol=1e-12, atol=1e-15, err_msg=name)
        levels = np.linspace(0.05, 0.95, 19)
        np.testing.assert_allclose(module["inverse"](levels, **values), changed.inverse(levels), rtol=1e-10)


def test_parameter_names_that_are_python_keywords_are_renamed(tmp_path):
    import runpy

    rate = sympy.Symbol("lambda", positive=True)
    path = export_python(Utility(sympy.exp(-rate * t)), tmp_path / "rate.py", defaults={"lambda": 2})
    module = runpy.run_path(str(path))
    assert module["PARAMETERS"] == {"lambda_": 2.0}
    assert module["utility"](1.0) == pytest.approx(math.exp(-2), rel=1e-15)
    assert module["utility"](1.0, lambda_=3.0) == pytest.approx(math.exp(-3), rel=1e-15)


def test_constraint_latex_is_to_latex():
    # Support(0, oo) once printed as \text{True}: sympy evaluates Contains(kappa, [0, oo)) for kappa > 0
    from maxent_util import Mean, Support

    for constraint in (Support(0, "oo"), Support(0, 10), Mean(3)):
        assert constraint.latex() == to_latex(constraint)
        assert constraint._repr_latex_() == f"${to_latex(constraint)}$"
    assert "True" not in Support(0, "oo").latex()


def test_a_money_design_with_min_and_max_exports_and_checks_itself(tmp_path):
    # the money design over piecewise patience clips the captime with Min and Max; numpy's
    # printer writes them with functools.reduce, which the module must import
    import runpy

    from maxent_util.designer import design

    result = design({"captime": "facts", "longest": "1h", "median": "10 min",
                     "tail": "1 in 10 after 50 min", "value": "money", "cost_per_hour": 12.5,
                     "solution_value": 200})
    assert result.utility.expr.has(sympy.Min)
    path = export_python(result.utility, tmp_path / "design.py")
    module = runpy.run_path(str(path))
    times = np.array([0.0, 30.0, 600.0, 2999.0, 3599.0, 7200.0])
    # near the support's end u is a difference of nearly equal terms: both routes lose the same
    # few digits there (about 4e-10 relative at 3599 s), so the comparison allows 1e-9
    assert np.allclose(module["utility"](times), result.utility(times), rtol=1e-9, atol=1e-13)


def test_a_written_module_that_disagrees_with_mpmath_is_refused(tmp_path, monkeypatch):
    import maxent_util.export.python as python_export
    from maxent_util import exponential

    honest = python_export._python_source

    def off_by_a_little(*args, **kwargs):  # the module's formula, one term changed
        return honest(*args, **kwargs).replace("numpy.exp(-1/24*t)", "numpy.exp(-1/25*t)")

    monkeypatch.setattr(python_export, "_python_source", off_by_a_little)
    with pytest.raises(ExportError, match=r"a utility its written module evaluates right; .*"
                                          r"\(at t = .* the module gives"):
        export_python(exponential(24).utility(), tmp_path / "u.py")
    assert not (tmp_path / "u.py").exists()
