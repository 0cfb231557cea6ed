"""The package's layers: imports only go downward, and no module imports inside a function.

The contract itself is in pyproject.toml ([tool.importlinter]); import-linter counts every
import, including those inside functions, so a circle held apart by a late import fails too.
"""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, checkout_env

PACKAGE = ROOT / "maxent_util"

#: modules that may import inside functions, and what: optional backends (a missing one must not
#: break the import of the package) and the command line, which loads only what a command needs
LATE_IMPORTS_ALLOWED = {
    "cli/": None,               # any: `maxent-util --help` must not load sympy, scipy or pandas
    "_timing.py": {"multiprocessing"},
    "plots.py": {"matplotlib"},
    "long.py": {"pyarrow"},
    "_dask.py": {"dask", "distributed", "asyncio"},
    # sympy.stats (40 ms) for a variable from it, not with every utility
    "known.py": {"sympy.stats"},
    # the [configure] extra: only to_configspace and suggest need them
    "space/": {"ConfigSpace", "optuna"},
    # sympy.codegen.rewriting loads sympy's tensor and combinatorics modules (0.15 s): only when
    # a scorer is compiled, not with the first derive; numba (the [fast] extra, 0.5 s) at a
    # scorer's first large call
    "scorer.py": {"jax", "torch", "numba", "sympy.printing.pytorch", "sympy.printing.numpy",
                  "sympy.codegen.rewriting"},
    # scipy.stats does not load its sampling submodule; importing it at the top would load
    # scipy.stats (a second) for every law, drawn from or not
    "_scipy.py": {"scipy.stats.sampling"},
    # scipy.special (0.4 s) is loaded when an expression to compile has a special function
    "expressions.py": {"scipy"},
    # pandas (0.45 s) with the runs: a command that only reads a rule (export, plan, design)
    # starts without it
    "rules.py": {".runs"},
    "result.py": {"..plots"},
}


def test_the_import_linter_contract_holds(monkeypatch):
    lint = pytest.importorskip("importlinter.cli")
    monkeypatch.chdir(ROOT)
    assert lint.lint_imports(config_filename=str(ROOT / "pyproject.toml"), no_cache=True,
                             no_logo=True) == 0


def _late_imports(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for function in ast.walk(tree):
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for node in ast.walk(function):
            if isinstance(node, ast.Import):
                found += [(node.lineno, alias.name) for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                found.append((node.lineno, "." * node.level + (node.module or "")))
    return found


def test_no_module_imports_inside_a_function_except_optional_backends():
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        folder = f"{path.parent.name}/"  # a key ending in / stands for every module of a package
        allowed = LATE_IMPORTS_ALLOWED[folder] if folder in LATE_IMPORTS_ALLOWED \
            else LATE_IMPORTS_ALLOWED.get(path.name, set())
        if allowed is None:
            continue
        for line, module in _late_imports(path):
            if not any(module == name or module.startswith(name + ".") for name in allowed):
                offenders.append(f"{path.relative_to(ROOT)}:{line}: {module}")
    assert offenders == []


HEAVY = ("sympy", "scipy", "pandas", "matplotlib", "numpy")


@pytest.mark.parametrize("code", [
    "import maxent_util",
    "import maxent_util; maxent_util.__version__",
    "from maxent_util.cli import main; main(['--help'])",
    "from maxent_util.cli import main; main(['--version'])",
    "from maxent_util.cli import main; main(['rank', '--help'])",
])
def test_start_up_loads_no_scientific_library(code):
    probe = f"{code}\nimport sys\nprint(sorted(m for m in {HEAVY!r} if m in sys.modules))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT,
                          timeout=120, env=checkout_env())
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "[]"


@pytest.mark.parametrize("argv", [
    ["export", "--utility", "pareto(5, 1)", "--python", "scorer.py"],
    ["export", "--utility", "@design.json", "--c", "scorer.c"],
    ["plan", "--epsilon", "0.05", "--delta", "0.05", "--utility", "pareto(5, 1)", "--json"],
    ["design", "--answers", "answers.toml", "--json", "again.json", "--no-plot"],
], ids=lambda argv: " ".join(argv[:3]))
def test_commands_that_read_no_runs_load_no_pandas(argv, tmp_path):
    # pandas is 0.45 s of such a command's start; a rule, a utility's document and an answers
    # file are read without it
    shutil.copy(ROOT / "examples" / "answers.toml", tmp_path)
    design = ["design", "--answers", "answers.toml", "--json", "design.json", "--no-plot"]
    probe = (f"import sys, contextlib, io\nfrom maxent_util.cli import main\n"
             f"with contextlib.redirect_stdout(io.StringIO()):\n"
             f"    assert main({design!r}) == 0\n"
             f"    loaded = 'pandas' in sys.modules\n"
             f"    assert main({argv!r}) == 0\n"
             f"print(loaded, 'pandas' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=tmp_path,
                          timeout=120, env=checkout_env())
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "False False"


def test_lazy_names_are_the_modules_objects():
    import maxent_util
    from maxent_util import estimate, maxent
    from maxent_util.ranking import rank

    assert maxent_util.derive is maxent.derive and maxent_util.score is estimate.score
    assert maxent_util.rank is rank and maxent_util.ranking.rank is rank  # the module is named apart
    assert set(maxent_util.__all__) <= set(dir(maxent_util))
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        maxent_util.nothing  # noqa: B018
