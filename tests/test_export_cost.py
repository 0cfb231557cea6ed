"""Cost modules for configurators: the library's cost, a standalone numpy module, C.

The written module is imported in a fresh interpreter (``python -I``, with ``maxent_util``
made unimportable) and its numbers compared with :func:`cost_function`'s to 1e-15 on
runtimes beside every breakpoint and scale of the utility (the scorer's own check points),
capped runs under both rules, and bad values.
"""

from __future__ import annotations

import json
import math
import shutil
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import sympy
from hypothesis import given, settings, strategies as st

from maxent_util import Utility, parse_utility
from maxent_util._reference import check_points
from maxent_util.errors import DataError, ExportError, UtilityError
from maxent_util.export import cost, cost_c, cost_function, export_cost
from maxent_util.symbols import t

# every preset but generalized_log_laplace, whose inverse sympy seeks for 10 s (a utility's
# inverse_expr) before the module falls back on bisection; the piecewise one has pieces
# meeting at 10 and 100, and no closed-form inverse either
SPECS = ["uniform(100)", "exponential(24)", "pareto(10, 1)", "log_laplace(24, 2)",
         "log_normal(24, 0.5)", "piecewise(100, 10, 0.5)"]
STATUSES = ["solved", "capped", "crash", "SUCCESS", "TIMEOUT", "memout", "unverified"]


def _runtimes(spec: str) -> list[float]:
    """The scorer's check points (beside every breakpoint and scale, and decades) and the ends."""
    points = check_points(parse_utility(spec).expr, t, {})
    return [0.0, -1.0, 5e-324, *points.tolist(), 1e300, math.inf, math.nan]


def _fresh_interpreter(script: str, *args: str) -> subprocess.CompletedProcess:
    """Run ``script`` in ``python -I`` (no PYTHONPATH, no user site, no script folder) with
    ``maxent_util`` unimportable even where it is installed."""
    guard = "import sys; sys.modules['maxent_util'] = None\n"
    return subprocess.run([sys.executable, "-I", "-c", guard + textwrap.dedent(script), *args],
                          capture_output=True, text=True, timeout=120)


_COMPARE = """
    import importlib.util, json, math, sys
    out = {}
    for path, runtimes in json.loads(sys.argv[1]):
        spec = importlib.util.spec_from_file_location("exported_cost", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        rows = []
        for status in %r:
            for cutoff in (None, 50.0):
                rows.append([float(module.cost(r, status, cutoff)) for r in runtimes])
        rows.append(module.cost(runtimes).tolist())
        rows.append(module.utility(runtimes).tolist())
        errors = []
        for bad in (("x", "solved"), (1.0, "lost"), (True, "solved"), ([1.0], None)):
            try:
                module.cost(*bad)
            except ValueError as error:
                errors.append(str(error))
        out[path] = {"rows": rows, "errors": errors, "doc": module.__doc__, "capped": module.CAPPED,
                     "inverse": module.inverse([0.9, 0.5, 0.1]).tolist()}
    print(json.dumps(out))
""" % (STATUSES,)


# every preset under the default rule for capped runs, two under the other (the rule is one
# constant of the module's cost, the code is the same)
CASES = [(spec, "zero") for spec in SPECS] + [("pareto(10, 1)", "cutoff"), ("piecewise(100, 10, 0.5)", "cutoff")]


def test_the_written_module_gives_the_library_s_numbers_without_the_library(tmp_path):
    cases = []
    for index, (spec, capped) in enumerate(CASES):
        path = export_cost(spec, tmp_path / f"cost_{index}.py", capped=capped)
        cases.append((str(path), _runtimes(spec)))
    done = _fresh_interpreter(_COMPARE, json.dumps(cases))
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    for (spec, capped), (path, runtimes) in zip(CASES, cases):
        library = cost_function(spec, capped=capped)
        assert found[path]["capped"] == capped
        expected = [library(runtimes, status, cutoff) for status in STATUSES for cutoff in (None, 50.0)]
        expected += [library(runtimes), 1.0 - library(runtimes)]
        got = np.array(found[path]["rows"], dtype=float)
        np.testing.assert_allclose(got, np.array(expected), rtol=0, atol=1e-15, equal_nan=True,
                                   err_msg=spec)
        # the ends are exact: an instant run costs 1 - u(0+), inf costs 1, a failure 1, NaN stays NaN
        assert got[-2][runtimes.index(math.inf)] == 1.0 and math.isnan(got[-2][-1])
        # bad values are refused with the library's message, as ValueError
        errors = found[path]["errors"]
        assert errors[0] == "`runtime` of `cost` must be a number of seconds or an array of them; got 'x'."
        assert errors[1].startswith("`status` of `cost` must be one of 'solved', 'capped', ")
        assert errors[1].endswith("; got 'lost'.")
        assert errors[2].startswith("`runtime` of `cost` must be a number") and len(errors) == 4
        # the inverse, in level space: u is flat near 0 for some laws, where a level pins its
        # runtime only loosely (generalized_log_laplace: u = 0.9 at 1.7e-7 s, +-2e-6 relatively)
        levels = np.array([0.9, 0.5, 0.1])
        np.testing.assert_allclose(parse_utility(spec)(np.array(found[path]["inverse"])), levels,
                                   rtol=0, atol=1e-12, err_msg=spec)


def test_the_library_refuses_what_the_module_refuses():
    library = cost_function("exponential(24)")
    with pytest.raises(DataError, match=r"^`runtime` of `cost` must be a number of seconds or an "
                                        r"array of them; got 'x'\.$"):
        library("x")
    with pytest.raises(DataError, match=r"^`cutoff` of `cost` must be a number .*; got True\.$"):
        library(1.0, "capped", True)
    with pytest.raises(DataError, match=r"; got 'lost'\.$"):
        library(1.0, "lost")


def test_a_spec_string_is_read_by_the_safe_reader():
    # 1 - 10/40 by hand: pareto(10, 1) has u(t) = 10/t past 10
    assert cost_function("pareto(10, 1)")(40.0) == 0.75
    assert cost_function(" pareto(10, 1) ")(40.0) == cost_function(parse_utility("pareto(10, 1)"))(40.0)
    with pytest.raises(UtilityError, match=r"^`spec` of `parse_utility` must be a preset call such as"):
        cost_function("__import__('os').system('true')")
    with pytest.raises(ExportError, match=r"^`capped` of `cost_function` must be 'zero' or "
                                          r"'cutoff'; got 'half'\.$"):
        cost_function("pareto(10, 1)", capped="half")


def test_the_docstring_records_provenance_and_the_tool_s_convention(tmp_path):
    import runpy
    module = runpy.run_path(str(export_cost("pareto(10, 1)", tmp_path / "c.py", tool="optuna")))
    doc = module["__doc__"]
    assert doc.startswith("pareto(10, 1): the cost of a run for optuna, exported by maxent_util ")
    for text in ("spec: pareto(10, 1)", "constraints: Support(10, oo), LogMoment(1, 10)",
                 "LaTeX: ", "maxent_util version: ", 'create_study(direction="minimize")',
                 "Needs numpy and no maxent_util"):
        assert text in doc
    assert module["TOOL"] == "optuna" and module["CAPPED"] == "zero"
    scipy_doc = runpy.run_path(str(export_cost("log_normal(24, 0.5)", tmp_path / "l.py")))["__doc__"]
    assert "Needs numpy and scipy.special and no maxent_util" in scipy_doc


def test_hostile_names_stay_text(tmp_path):
    name = 'x"""\nimport os; os.system("false") #\\ {requirement} \x00'
    utility = Utility(1 / (1 + sympy.Symbol("t", positive=True)), name=name)
    path = export_cost(utility, tmp_path / "c.py")
    done = _fresh_interpreter(f"""
        import runpy, json
        module = runpy.run_path({str(path)!r})
        print(json.dumps([module["__doc__"].splitlines()[0], module["cost"](1.0)]))
    """)
    assert done.returncode == 0, done.stderr
    first, value = json.loads(done.stdout)
    assert first == 'x"""' and value == 0.5  # the name's line break is kept as text, not code


def test_nothing_is_overwritten_without_being_asked(tmp_path):
    path = export_cost("exponential(24)", tmp_path / "c.py")
    before = path.read_text()
    with pytest.raises(ExportError, match=r"^`path` of `export_cost` must be a file that does not exist yet"):
        export_cost("pareto(10, 1)", path)
    assert path.read_text() == before
    export_cost("pareto(10, 1)", path, overwrite=True)
    assert "pareto(10, 1)" in path.read_text()


@pytest.mark.parametrize("call, message", [
    (lambda p: export_cost("exponential(24)", p, tool="hyperopt"),
     r"^`tool` of `export_cost` must be one of 'generic', 'smac', 'irace', 'optuna'; got 'hyperopt'\.$"),
    (lambda p: export_cost("exponential(24)", p, capped=None), r"^`capped` of `export_cost` must be"),
    (lambda p: cost_c("exponential(24)", name="double"), r"^`name` of `cost_c` must be a C identifier"),
    (lambda p: cost_c("exponential(24)", name="_x"), r"^`name` of `cost_c` must be a C identifier"),
])
def test_bad_options_are_refused(tmp_path, call, message):
    with pytest.raises(ExportError, match=message):
        call(tmp_path / "c.py")
    assert not (tmp_path / "c.py").exists()


def test_a_module_that_needs_maxent_util_is_not_written(tmp_path, monkeypatch):
    # the check imports the module where maxent_util is absent, as a user's runner would
    monkeypatch.setattr(cost, "_core_source", lambda: "import maxent_util\n")
    with pytest.raises(ExportError, match=r"^`utility` of `export_cost` must be a utility whose "
                                          r"module imports without maxent_util; .*ModuleNotFoundError"):
        export_cost("pareto(10, 1)", tmp_path / "c.py")
    assert list(tmp_path.iterdir()) == []


def test_a_module_that_disagrees_with_mpmath_is_not_written(tmp_path, monkeypatch):
    # the second route says otherwise: the module must not reach the disk (the comparison is
    # export.python's, shared with export_python's own check)
    import maxent_util.export.python as python_export

    real = python_export.reference_values
    monkeypatch.setattr(python_export, "reference_values", lambda *a, **k: real(*a, **k) + 1e-6)
    with pytest.raises(ExportError, match=r"^`utility` of `export_cost` must be a utility its "
                                          r"exported module evaluates right"):
        export_cost("pareto(10, 1)", tmp_path / "c.py")
    assert list(tmp_path.iterdir()) == []


def test_the_c_cost_gives_the_library_s_numbers(tmp_path):
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        pytest.skip("no C compiler")
    import ctypes
    sources = []
    for index, spec in enumerate(SPECS[:5]):
        for capped in ("zero", "cutoff"):
            sources.append((f"cost_{index}_{capped}", spec, capped))
    text = "\n".join(cost_c(spec, capped=capped, name=name) for name, spec, capped in sources)
    # one translation unit: the headers' repeated includes are harmless
    (tmp_path / "costs.c").write_text(text)
    done = subprocess.run([compiler, "-std=c99", "-Wall", "-Werror", "-shared", "-fPIC", "-O2", "-o",
                           str(tmp_path / "costs.so"), str(tmp_path / "costs.c"), "-lm"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    library = ctypes.CDLL(str(tmp_path / "costs.so"))
    for name, spec, capped in sources:
        function = getattr(library, name)
        function.argtypes = [ctypes.c_double, ctypes.c_int, ctypes.c_double]
        function.restype = ctypes.c_double
        reference = cost_function(spec, capped=capped)
        for runtime in _runtimes(spec):
            for code, status in enumerate(("solved", "capped", "crash")):
                for cutoff in (math.nan, 50.0):
                    expected = reference(runtime, status, None if math.isnan(cutoff) else cutoff)
                    got = function(runtime, code, cutoff)
                    assert got == pytest.approx(expected, abs=1e-15, nan_ok=True), (name, runtime, status)
        assert math.isnan(function(1.0, 7, 1.0))  # an unknown status


_RUNTIMES = st.one_of(st.floats(min_value=-10, max_value=1e6), st.sampled_from([0.0, math.inf, math.nan]),
                      st.integers(min_value=0, max_value=10**6))
_PARETO_COSTS: dict = {}
_STATUS = st.sampled_from(["solved", "capped", "crash", "memout", "unverified", "SUCCESS", "TIMEOUT",
                           "CRASHED", " Solved "])


@settings(max_examples=60, deadline=None)
@given(runtimes=st.lists(_RUNTIMES, min_size=1, max_size=8), data=st.data(),
       cutoff=st.one_of(st.none(), st.floats(min_value=0.001, max_value=1e4)),
       capped=st.sampled_from(["zero", "cutoff"]))
def test_the_cost_is_one_minus_the_utility_of_what_each_run_earned(runtimes, data, cutoff, capped):
    statuses = data.draw(st.lists(_STATUS, min_size=len(runtimes), max_size=len(runtimes)))
    u = parse_utility("pareto(10, 1)")
    if capped not in _PARETO_COSTS:  # built once: each build compiles and checks a scorer
        _PARETO_COSTS[capped] = cost_function("pareto(10, 1)", capped=capped)
    got = _PARETO_COSTS[capped](runtimes, statuses, cutoff)
    for runtime, status, value in zip(runtimes, statuses, got):
        name = status.strip().lower()
        if name in ("solved", "success"):
            # u(t) = min(1, 10/t) by hand; t <= 0 gives u(0+) = 1; NaN stays NaN
            expected = math.nan if math.isnan(runtime) else 1 - (1.0 if runtime <= 10 else 10 / runtime)
        elif name in ("capped", "timeout") and capped == "cutoff":
            at = runtime if cutoff is None else cutoff
            expected = math.nan if math.isnan(at) else 1 - float(u(max(at, 0.0)))
        else:
            expected = 1.0
        assert value == pytest.approx(expected, abs=1e-15, nan_ok=True)
        assert math.isnan(value) or 0.0 <= value <= 1.0
