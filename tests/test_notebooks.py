"""The example notebooks: each runs from top to bottom without error, and the
stored copies carry no outputs."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK_DIR = ROOT / "notebooks"
NOTEBOOKS = sorted(NOTEBOOK_DIR.glob("*.ipynb"))
EXPECTED = ["01_derive_families.ipynb", "02_sat_competition.ipynb", "03_cross_utility.ipynb",
            "04_sampling.ipynb"]


def test_the_four_notebooks_exist() -> None:
    assert [path.name for path in NOTEBOOKS] == EXPECTED


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_stored_without_outputs(path: Path) -> None:
    notebook = nbformat.read(path, as_version=4)
    nbformat.validate(notebook)
    for cell in notebook.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [], f"{path.name}: a cell has stored outputs"
            assert cell.execution_count is None, f"{path.name}: a cell has an execution count"


def test_stored_notebooks_match_their_generator(tmp_path: Path) -> None:
    # notebooks/make_notebooks.py is the source; the .ipynb files must be its output
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_notebooks", NOTEBOOK_DIR / "make_notebooks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for generated in module.build(tmp_path):
        stored = nbformat.read(NOTEBOOK_DIR / generated.name, as_version=4)
        fresh = nbformat.read(generated, as_version=4)
        assert [c.source for c in stored.cells] == [c.source for c in fresh.cells], generated.name


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_runs(path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    from nbclient import NotebookClient

    # The kernel inherits this environment: no display, and the checkout's package.
    monkeypatch.setenv("MPLBACKEND", "Agg")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    notebook = nbformat.read(path, as_version=4)
    client = NotebookClient(notebook, timeout=300, kernel_name="python3",
                            resources={"metadata": {"path": str(tmp_path)}})
    client.execute()  # raises CellExecutionError on the first failing cell
    errors = [output for cell in notebook.cells if cell.cell_type == "code"
              for output in cell.outputs if output.output_type == "error"]
    assert not errors
