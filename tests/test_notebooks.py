"""The example notebooks: each runs from top to bottom without error, and the
stored copies carry no outputs."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import importlib.util

import pytest
from conftest import ROOT, checkout_env

if TYPE_CHECKING:
    import nbformat

# nbformat (and jsonschema under it) is imported by the tests that read a notebook, not at
# collection: every pytest-xdist worker collects this module, and the import costs 0.4 s each
if importlib.util.find_spec("nbformat") is None:
    pytest.skip("nbformat is not installed (the test extra)", allow_module_level=True)

NOTEBOOK_DIR = ROOT / "notebooks"
NOTEBOOKS = sorted(NOTEBOOK_DIR.glob("*.ipynb"))
EXPECTED = ["01_derive_families.ipynb", "02_sat_competition.ipynb", "03_cross_utility.ipynb",
            "04_sampling.ipynb", "05_design.ipynb"]


def test_the_notebooks_exist() -> None:
    assert [path.name for path in NOTEBOOKS] == EXPECTED


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_stored_without_outputs(path: Path) -> None:
    import nbformat

    notebook = nbformat.read(path, as_version=4)
    nbformat.validate(notebook)
    for cell in notebook.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [], f"{path.name}: a cell has stored outputs"
            assert cell.execution_count is None, f"{path.name}: a cell has an execution count"


def test_stored_notebooks_match_their_generator(tmp_path: Path) -> None:
    # notebooks/make_notebooks.py is the source; the .ipynb files must be its output
    import nbformat

    spec = importlib.util.spec_from_file_location("make_notebooks", NOTEBOOK_DIR / "make_notebooks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for generated in module.build(tmp_path):
        stored = nbformat.read(NOTEBOOK_DIR / generated.name, as_version=4)
        fresh = nbformat.read(generated, as_version=4)
        assert [c.source for c in stored.cells] == [c.source for c in fresh.cells], generated.name


# Each notebook starts from an empty namespace: a first cell, added to the copy run here (not
# to the file), forgets every name of the notebook before, closes its figures, moves to the
# test's folder and checks that no name is left.
# Modules stay imported, and the library's caches filled: that is the work the kernel
# is shared for (starting a kernel and importing matplotlib, pandas, scipy, sympy and the
# library costs seconds per notebook).
_FRESH_START = """
get_ipython().run_line_magic("reset", "-f")
if "matplotlib.pyplot" in __import__("sys").modules:
    __import__("sys").modules["matplotlib.pyplot"].close("all")
__import__("os").chdir({folder!r})
_kept = {{"In", "Out", "get_ipython", "exit", "quit", "open"}}
assert not [name for name in globals() if not name.startswith("_") and name not in _kept]
"""


@pytest.fixture(scope="module")
def kernel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """One python3 kernel for the notebooks of this module (restarted if one kills it)."""
    pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    from jupyter_client import KernelManager

    # The kernel gets this environment: no display, and the checkout's package.
    env = checkout_env(MPLBACKEND="Agg")
    manager = KernelManager(kernel_name="python3")
    manager.start_kernel(env=env, cwd=str(tmp_path_factory.mktemp("kernel")),
                         extra_arguments=["--HistoryManager.hist_file=:memory:"])  # as nbclient does
    yield manager
    manager.shutdown_kernel(now=True)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_runs(path: Path, tmp_path: Path, kernel: Any) -> None:
    import nbformat
    from nbclient import NotebookClient

    if not kernel.is_alive():
        kernel.restart_kernel(now=True)
    notebook = nbformat.read(path, as_version=4)
    notebook.cells.insert(0, nbformat.v4.new_code_cell(_FRESH_START.format(folder=str(tmp_path))))
    client = NotebookClient(notebook, km=kernel, timeout=300, kernel_name="python3")
    try:
        client.execute()  # raises CellExecutionError on the first failing cell
    finally:
        if client.kc is not None:
            client.kc.stop_channels()
    errors = [output for cell in notebook.cells if cell.cell_type == "code"
              for output in cell.outputs if output.output_type == "error"]
    assert not errors
