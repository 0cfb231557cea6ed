"""Ctrl-C during any writing command leaves no partial output (issue 32).

Each command runs in this process with the atomic writer patched to raise KeyboardInterrupt
(what Ctrl-C raises) once the bytes of its k-th file are written, before the file is moved
into place, for k = 1, 2, ... until the command writes all its files without reaching the
k-th: so a command of several files (an irace set-up, the tour's figures, a design's JSON
and figure) is interrupted between its files too. After every interrupt the folder holds
what it held before: no temporary file, no file of the run, no partial set-up. A real SIGINT
in a child process is test_files_atomic.py's.
"""

from __future__ import annotations

import json
import os

import pytest
from conftest import ROOT, run

from maxent_util import _output

LONG = str(ROOT / "tests" / "data" / "long_small.csv")
SPEC = "exponential(24)"

COMMANDS = {
    "export --python": ["export", "--utility", SPEC, "--python", "out/u.py"],
    "export --c": ["export", "--utility", SPEC, "--c", "out/u.c"],
    "export --latex": ["export", "--utility", SPEC, "--latex", "out/u.tex"],
    "export --cost": ["export", "--utility", SPEC, "--cost", "out/cost.py"],
    "export --irace": ["export", "--utility", SPEC, "--irace", "out", "--command",
                       "solver {config} {instance}", "--run-limit", "5", "--instance", "a.cnf"],
    "plot": ["plot", "--utility", SPEC, "-o", "out/u.png"],
    "tour": ["tour", "--out", "out"],
    "report": ["report", LONG, "--par", "2", "--missing", "unsolved", "-o", "out/r.html"],
    "fit": ["fit", "waits.csv", "--column", "waited", "--kinds", "mean", "-o", "out/law.json"],
    "design": ["design", "--answers", "answers.json", "--json", "out/design.json", "--plot",
               "out/design.png"],
}


def _interrupt_at(monkeypatch, k):
    """The k-th file's fsync raises KeyboardInterrupt; returns the list of files written."""
    written = []
    real = os.fsync

    def fsync(descriptor):
        written.append(descriptor)
        if len(written) == k:  # its bytes are written (irace's parameters.txt may be empty)
            raise KeyboardInterrupt
        real(descriptor)

    monkeypatch.setattr(_output.os, "fsync", fsync)
    return written


def _tree(folder):
    return sorted(str(path.relative_to(folder)) for path in folder.rglob("*"))


@pytest.mark.parametrize("name", COMMANDS)
def test_an_interrupted_command_leaves_no_partial_output(name, capsys, tmp_path, monkeypatch):
    if name in ("plot", "tour", "design"):
        pytest.importorskip("matplotlib")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "out").mkdir()
    (tmp_path / "waits.csv").write_text("waited\n" + "".join(f"{1 + k % 7}.5\n" for k in range(30)))
    (tmp_path / "answers.json").write_text(json.dumps(
        {"captime": "facts", "longest": "1h", "median": "10 min", "value": "constant"}))
    before = _tree(tmp_path)
    for k in range(1, 10):
        with monkeypatch.context() as patch:
            written = _interrupt_at(patch, k)
            status, out, err = run(capsys, *COMMANDS[name])
        if len(written) < k:  # the command wrote all its files before the k-th
            assert status == 0, err
            assert len(_tree(tmp_path)) > len(before)
            break
        assert (status, err) == (130, "maxent-util: interrupted\n"), (k, err)
        assert _tree(tmp_path) == before, f"interrupted at file {k}"
    else:
        pytest.fail("the command never finished")
    assert k > 1  # it was interrupted at least once


def test_a_group_interrupted_between_its_files_puts_the_replaced_ones_back(tmp_path):
    first, second = tmp_path / "a.txt", tmp_path / "b.txt"
    first.write_text("old a")
    with pytest.raises(KeyboardInterrupt):
        with _output.file_group():
            with _output.atomic_file(first, overwrite=True) as handle:
                handle.write("new a")
            with _output.atomic_file(second) as handle:
                handle.write("new b")
            assert first.read_text() == "new a" and second.exists()
            raise KeyboardInterrupt
    assert first.read_text() == "old a" and _tree(tmp_path) == ["a.txt"]
    with _output.file_group():  # a group that ends normally keeps its files, and no link
        with _output.file_group():
            with _output.atomic_file(first, overwrite=True) as handle:
                handle.write("new a")
    assert first.read_text() == "new a" and _tree(tmp_path) == ["a.txt"]
