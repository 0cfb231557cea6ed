"""Generated source cannot be hijacked by names, labels or symbols.

A utility's name, a preset's label and a parameter's symbol come from other
people's files; the exporters write them into Python docstrings and C
comments.  Each test below builds the hostile text, exports, compiles or
imports the result, and checks three things independently: the source is
well-formed, the injected statement did not happen (no name, no file, no
symbol), and the exported scorer still equals the library's own utility.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import sympy

from maxent_util import families
from maxent_util.errors import ExportError
from maxent_util.export import cost_function, export_c, export_python
from maxent_util.scorer import compile_scorer
from maxent_util.symbols import t
from maxent_util.utility import Utility

C_ESCAPE = "a*/\nint injected = 1; /*"
PY_ESCAPE = '"""; import os; """'
LABELS = [C_ESCAPE, PY_ESCAPE, "x\x00y", "trailing backslash \\", 'quote at the end"', "\u2028line\rbreak",
          "'''; import os; '''", "\\N{", "é ✓"]
RUNTIMES = 24.0 * np.geomspace(1e-6, 1e6, 400)


def _hostile_utility(label: str) -> Utility:
    utility = families.pareto(24, 2).utility()
    utility = utility.with_name(label)
    return utility


def _sentinel_label(folder: Path) -> str:
    return f'"""; open({str(folder / "SENTINEL")!r}, "w"); """'


# Runs each module given, in turn, with runpy, each in a namespace of its own; prints per module
# the names it defined, its docstring and its values at the runtimes given.
_RUN_MODULES = r"""
import json, runpy, sys
import numpy
x = numpy.array(json.loads(sys.argv[1]))
results = []
for path in sys.argv[2:]:
    namespace = runpy.run_path(path)
    results.append({"names": sorted(k for k in namespace if not k.startswith("__")),
                    "doc": namespace["__doc__"], "values": namespace["utility"](x).tolist()})
print(json.dumps(results))
"""


def test_labels_cannot_leave_the_python_docstring(tmp_path):
    reference = compile_scorer(families.pareto(24, 2).utility())(RUNTIMES)
    labels = LABELS + [_sentinel_label(tmp_path)]
    paths, sources = [], []
    for index, label in enumerate(labels):
        path = export_python(_hostile_utility(label), tmp_path / f"m{index}.py")
        source = path.read_text(encoding="utf-8")
        compile(source, str(path), "exec")  # no NUL, no unterminated string
        paths.append(str(path))
        sources.append(source)
    # in another process, as a user would run them (one process runs them all, one by one)
    result = subprocess.run([sys.executable, "-c", _RUN_MODULES, json.dumps(RUNTIMES.tolist()), *paths],
                            capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    modules = json.loads(result.stdout)
    assert len(modules) == len(labels)
    for label, source, loaded in zip(labels, sources, modules):
        # the label is data: the docstring carries it verbatim, no statement ran
        assert loaded["doc"].startswith(label + ": a runtime utility"), (label, loaded["doc"][:80])
        assert "os" not in loaded["names"] and "injected" not in loaded["names"]
        np.testing.assert_allclose(loaded["values"], reference, rtol=1e-13, atol=1e-300)
        # every line of code is one the exporter wrote: the label appears only escaped
        assert all(not line.lstrip().startswith(("import os", "open(")) for line in source.splitlines())
    assert not (tmp_path / "SENTINEL").exists()


@pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler (cc)")
def test_names_cannot_leave_the_c_comment(tmp_path):
    kappa0 = sympy.Symbol(C_ESCAPE, positive=True)
    alpha = sympy.Symbol("alpha", positive=True)
    symbolic = Utility(sympy.Piecewise((1, t < kappa0), ((kappa0 / t) ** alpha, True)), name=C_ESCAPE)
    sources = [export_c(_hostile_utility(label), name=f"u{index}") for index, label in enumerate(LABELS)]
    # the hostile symbol bound to a number: its name is written into the comment only
    sources.append(export_c(symbolic, defaults={C_ESCAPE: 24}, name="u_bound"))
    for source in sources:
        assert "\x00" not in source
        assert not any(line.startswith("int injected") for line in source.splitlines())
        comment = source[:source.index("*/") + 2]
        assert comment.count("*/") == 1 and source.index("*/") > source.index("#include") - 4
    main = "\n".join(sources) + r"""
#include <stdio.h>
int injected = 7;  /* a second definition would not link */
int main(void)
{
    double x;
    while (scanf("%lf", &x) == 1)
        printf("%.17g %.17g %.17g\n", u0(x), u1(x), u_bound(x, 2.0));
    printf("%d\n", injected);
    return 0;
}
"""
    (tmp_path / "main.c").write_text(main, encoding="utf-8")
    compiled = subprocess.run(["cc", "-std=c99", "-Wall", "-Werror", "-o", str(tmp_path / "main"),
                               str(tmp_path / "main.c"), "-lm"], capture_output=True, text=True, timeout=120)
    assert compiled.returncode == 0, compiled.stderr
    run = subprocess.run([str(tmp_path / "main")], input="\n".join(map(repr, RUNTIMES.tolist())),
                         capture_output=True, text=True, timeout=60)
    lines = run.stdout.split("\n")
    assert lines[len(RUNTIMES)] == "7"
    values = np.array([[float(v) for v in line.split()] for line in lines[:len(RUNTIMES)]])
    reference = compile_scorer(families.pareto(24, 2).utility())(RUNTIMES)
    for column in range(3):
        np.testing.assert_allclose(values[:, column], reference, rtol=1e-13, atol=1e-300)


def test_symbols_that_are_not_identifiers_are_refused(tmp_path):
    bad = sympy.Symbol(C_ESCAPE, positive=True)
    utility = Utility(sympy.exp(-t / bad))
    with pytest.raises(ExportError, match=r"^`utility` of `export_c` must be parameters named as C "
                                          r"identifiers; got 'a\*/\\nint injected = 1; /\*'"):
        export_c(utility)
    with pytest.raises(ExportError, match=r"^`utility` of `export_python` must be parameters named as "
                                          r"Python identifiers"):
        export_python(utility, tmp_path / "u.py", defaults={C_ESCAPE: 2})
    assert not (tmp_path / "u.py").exists()
    python_name = sympy.Symbol('x"""; import os; """', positive=True)
    with pytest.raises(ExportError, match=r"must be parameters named as Python identifiers"):
        export_python(Utility(sympy.exp(-t * python_name)), tmp_path / "u.py", defaults={python_name.name: 1})
    # cost_function binds every parameter to a number: the name never reaches generated code
    cost = cost_function(utility, defaults={C_ESCAPE: 2})
    np.testing.assert_allclose(cost(RUNTIMES), 1 - np.exp(-RUNTIMES / 2), rtol=1e-13)


@pytest.mark.parametrize("exporter", ["python", "c", "cost"])
def test_objects_printed_by_name_are_refused(tmp_path, exporter):
    marker = tmp_path / "SENTINEL"
    hostile = f"__import__('os').system('touch {marker}')"
    k = sympy.Symbol(f"k); {hostile}; (k", integer=True)
    cases = [sympy.Function(hostile)(t),                               # an undefined function
             sympy.Sum(sympy.exp(-k * t), (k, 1, 3)),                  # a bound variable with any name
             type(hostile.replace("'", ""), (sympy.Function,), {})(t),  # a function class made outside sympy
             sympy.exp(-t) + sympy.Dummy("d")]
    for expr in cases:
        with pytest.raises(ExportError, match=r"^`utility` of `\w+` must be (made of numbers, t, named "
                                              r"parameters|an expression with no bound or dummy variables)"):
            if exporter == "python":
                export_python(Utility(expr), tmp_path / "u.py")
            elif exporter == "c":
                export_c(Utility(expr))
            else:
                cost_function(Utility(expr))(1.0)
    assert not marker.exists() and not (tmp_path / "u.py").exists()


@pytest.mark.parametrize("name", ["exp", "log", "main", "erfc"])
def test_c_function_names_must_not_shadow_math_h(name):
    with pytest.raises(ExportError, match=rf"^`name` of `export_c` must be a C identifier; got '{name}'"):
        export_c(families.exponential(24).utility(), name=name)


def test_c_parameters_named_like_math_h_functions_are_renamed():
    # a parameter named like a math.h function is renamed, not shadowing exp()
    rate = sympy.Symbol("exp", positive=True)
    source = export_c(Utility(sympy.exp(-rate * t)))
    assert "double utility(double t, double exp_)" in source


# ---------------------------------------------------------------------------
# names the C headers take


#: parameters named as a header's macro (NULL, HUGE_VAL, M_PI), a C23 keyword (bool) or a
#: reserved identifier (__x, _Bool): before, they were written as they are and gcc refused them
HEADER_NAMES = ["NULL", "HUGE_VAL", "M_PI", "EOF", "errno", "bool", "__x", "_Bool", "fmaxf"]


@pytest.mark.parametrize("name", ["__attribute__", "NULL", "HUGE_VAL", "_utility", "_Bool",
                                  "bool", "fmaxf", "isnan", "offsetof", "size_t", "M_PI", "y0"])
def test_c_function_names_that_headers_take_or_c_reserves_are_refused(name):
    with pytest.raises(ExportError, match=rf"^`name` of `export_c` must be a C identifier; got "
                                          rf"'{name}'\. It must not be a C keyword, begin with an "
                                          r"underscore \(reserved\) or be a name <math\.h> or "
                                          r"<stddef\.h> declare\.$"):
        export_c(families.exponential(24).utility(), name=name)


@pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler (cc)")
@pytest.mark.parametrize("standard", ["c99", "gnu11", "c2x"])
def test_c_parameters_named_as_header_macros_compile(tmp_path, standard):
    # M_PI is a macro only outside strict ISO mode (gnu11), bool a keyword only in C23 (c2x)
    symbols = [sympy.Symbol(name, positive=True) for name in HEADER_NAMES]
    expr = sympy.exp(-t * sum(symbols) / len(symbols) / 24)
    source = export_c(Utility(expr))
    signature = next(line for line in source.splitlines() if line.startswith("double utility("))
    for name in HEADER_NAMES:
        assert f"double {name}," not in signature + "," and f"double {name})" not in signature
    main = source + r"""
#include <stdio.h>
#include <stdlib.h>
int main(void)
{
    double x;
    while (scanf("%lf", &x) == 1)
        printf("%.17g\n", utility(x, 1, 1, 1, 1, 1, 1, 1, 1, 1));
    return EXIT_SUCCESS;
}
"""
    (tmp_path / "main.c").write_text(main, encoding="utf-8")
    compiled = subprocess.run(["cc", f"-std={standard}", "-Wall", "-Werror", "-o",
                               str(tmp_path / "main"), str(tmp_path / "main.c"), "-lm"],
                              capture_output=True, text=True, timeout=120)
    if compiled.returncode and "unrecognized command-line option" in compiled.stderr:
        pytest.skip(f"cc knows no -std={standard}")
    assert compiled.returncode == 0, compiled.stderr
    ran = subprocess.run([str(tmp_path / "main")], input="\n".join(map(repr, RUNTIMES.tolist())),
                         capture_output=True, text=True, timeout=60)
    values = np.array([float(line) for line in ran.stdout.split()])
    # every parameter 1: u(t) = exp(-t/24); C sums the nine parameters in another order than
    # numpy, and an exponent of up to 1e6 turns their last-bit difference into 1e-13 relative
    np.testing.assert_allclose(values, np.exp(-RUNTIMES / 24), rtol=1e-10, atol=1e-300)


@pytest.mark.parametrize("value, shown", [
    pytest.param(10**500, r"'1000000000.*\.\.\.'", id="1e500"),  # float() overflows
    pytest.param(10**5000, r"'<an integer of about 5,001 digits>'", id="1e5000"),  # too long for repr
    pytest.param(sympy.Integer(10)**400, r"'1000000000.*\.\.\.'", id="sympy-1e400"),
    pytest.param(float("inf"), "inf", id="inf"),
    pytest.param(float("nan"), "nan", id="nan"),
])
@pytest.mark.parametrize("exporter", ["c", "python"])
def test_a_default_must_be_a_finite_double(tmp_path, value, shown, exporter):
    utility = Utility("exp(-t/c)")
    owner = "export_c" if exporter == "c" else "export_python"
    with pytest.raises(ExportError, match=rf"^`c` of `{owner}` must be a finite number a double can "
                                          rf"hold \(a default value\); got {shown}\.$"):
        if exporter == "c":
            export_c(utility, defaults={"c": value})
        else:
            export_python(utility, tmp_path / "u.py", defaults={"c": value})
    assert not (tmp_path / "u.py").exists()
