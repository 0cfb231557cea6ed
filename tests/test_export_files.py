"""Nothing is overwritten or created unasked: export, plot and tour on the command line and the API."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from conftest import PNG_SIGNATURE, assert_usage_error, checkout_env, run

from maxent_util import families
from maxent_util.errors import ExportError
from maxent_util.export import export_python

@pytest.mark.parametrize("flag, name", [("--python", "u.py"), ("--c", "u.c"), ("--latex", "u.tex")])
def test_export_refuses_an_existing_file_unless_forced(capsys, tmp_path, flag, name):
    target = tmp_path / name
    target.write_text("precious\n")
    status, out, err = run(capsys, "export", "--utility", "pareto(5, 3)", flag, str(target))
    assert_usage_error(status, out, err, f"argument {flag}: '{target}' already exists; pass --force to overwrite it")
    assert target.read_text() == "precious\n" and out == ""
    status, out, _ = run(capsys, "export", "--utility", "pareto(5, 3)", flag, str(target), "--force")
    assert status == 0 and out.strip() == f"wrote {target}"
    assert target.read_text() != "precious\n" and len(target.read_text()) > 200


def test_export_parents_only_when_asked(capsys, tmp_path):
    target = tmp_path / "new" / "deeper" / "u.c"
    status, out, err = run(capsys, "export", "--utility", "exponential(3)", "--c", str(target))
    assert_usage_error(status, out, err, f"cannot use '{target}': the folder '{target.parent}' does not exist "
                                       "(pass --parents to create it)")
    assert not (tmp_path / "new").exists()
    status, _, _ = run(capsys, "export", "--utility", "exponential(3)", "--c", str(target), "--parents")
    assert status == 0 and "double utility(double t)" in target.read_text()


def test_missing_folders_inside_the_current_one_are_created(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    status, out, _ = run(capsys, "export", "--utility", "exponential(3)", "--c", "here/u.c")
    assert status == 0 and (tmp_path / "here" / "u.c").is_file()
    # ".." leaves the current folder: not created unasked
    monkeypatch.chdir(tmp_path / "here")
    status, out, err = run(capsys, "export", "--utility", "exponential(3)", "--c", "../elsewhere/u.c")
    assert_usage_error(status, out, err, "the folder '../elsewhere' does not exist (pass --parents")
    assert not (tmp_path / "elsewhere").exists()


@pytest.mark.parametrize("kind", ["separator", "existing"])
def test_plot_to_a_directory_is_an_error(capsys, tmp_path, kind):
    folder = tmp_path / "figures"
    if kind == "existing":
        folder.mkdir()
        given = str(folder)
    else:
        given = str(folder) + os.sep
    status, out, err = run(capsys, "plot", "--utility", "uniform(3)", "-o", given)
    assert_usage_error(status, out, err, f"argument --output: {given!r} is a directory; give a file name")
    assert not (tmp_path / "figures.png").exists()
    assert not folder.exists() or list(folder.iterdir()) == []


def test_plot_refuses_an_existing_figure_unless_forced(capsys, tmp_path):
    target = tmp_path / "u.png"
    target.write_bytes(b"precious")
    status, out, err = run(capsys, "plot", "--utility", "uniform(3)", "-o", str(target))
    assert_usage_error(status, out, err, f"'{target}' already exists; pass --force")
    assert target.read_bytes() == b"precious"
    # the name without a suffix means .png: that file is protected too
    status, out, err = run(capsys, "plot", "--utility", "uniform(3)", "-o", str(tmp_path / "u"))
    assert_usage_error(status, out, err, f"'{target}' already exists")
    status, out, _ = run(capsys, "plot", "--utility", "uniform(3)", "-o", str(target), "--force")
    assert status == 0 and target.read_bytes()[:8] == PNG_SIGNATURE


def test_tour_refuses_existing_figures_before_any_work(capsys, tmp_path):
    folder = tmp_path / "tour"
    folder.mkdir()
    (folder / "ranking.png").write_bytes(b"precious")
    status, out, err = run(capsys, "tour", "--out", str(folder))
    assert_usage_error(status, out, err, f"argument --out: '{folder / 'ranking.png'}' already exists; pass --force")
    assert out == "" and not (folder / "utilities.png").exists()
    assert (folder / "ranking.png").read_bytes() == b"precious"
    blocker = tmp_path / "a_file"
    blocker.write_text("")
    status, out, err = run(capsys, "tour", "--out", str(blocker))
    assert_usage_error(status, out, err, f"argument --out: '{blocker}' is a file, not a folder")
    status, out, err = run(capsys, "tour", "--out", str(tmp_path / "x" / "y"))
    assert_usage_error(status, out, err, "does not exist (pass --parents to create it)")


def test_export_python_api_does_not_overwrite(tmp_path):
    utility = families.exponential(24).utility()
    target = tmp_path / "u.py"
    target.write_text("precious\n")
    with pytest.raises(ExportError, match=r"`path` of `export_python` must be a file that does not exist yet; "
                                          r"got '.*u\.py'\. Pass overwrite=True to replace it\."):
        export_python(utility, target)
    assert target.read_text() == "precious\n"
    assert export_python(utility, target, overwrite=True) == target
    assert "def utility(" in target.read_text()
    deep = tmp_path / "a" / "b" / "u.py"
    with pytest.raises(ExportError, match=r"must be in an existing directory; got '.*a/b/u\.py'\. "
                                          r"Create '.*a/b' first, or pass parents=True\."):
        export_python(utility, deep)
    assert not (tmp_path / "a").exists()
    assert export_python(utility, deep, parents=True) == deep and deep.is_file()
    with pytest.raises(ExportError, match=r"`path` of `export_python` must be a file path, not a directory"):
        export_python(utility, str(tmp_path / "new_folder") + os.sep)


_CLOSED_STDOUT = r"""
import sys
from maxent_util.cli import main
sys.stdout.close()
status = main(["derive", "--support", "0", "10", "--json"])
sys.stderr.write(f"status {status}\n")
"""


def test_derive_json_with_stdout_closed_exits_cleanly(tmp_path):
    # The derivations are closed forms (uniform, log-normal): what is checked is how a process
    # writes to a missing or closed stdout, not the engine's numerics (tested elsewhere).
    env = checkout_env()
    env.pop("MAXENT_UTIL_TRACEBACK", None)
    # closed by the caller inside the process
    done = subprocess.run([sys.executable, "-c", _CLOSED_STDOUT], capture_output=True, text=True,
                          timeout=120, env=env, cwd=tmp_path)
    assert done.returncode == 0 and done.stderr == "status 0\n", done.stderr
    # started with file descriptor 1 closed (`>&-`): sys.stdout is None
    # (by the shell, as a user's `>&-`: a preexec_fn would run this worker's fork handlers)
    done = subprocess.run(["sh", "-c", 'exec "$@" >&-', "sh",
                           sys.executable, "-m", "maxent_util", "derive", "--support", "0", "10", "--json"],
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                          timeout=120, env=env, cwd=tmp_path)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    # a reader that leaves early (`| head -c 1`)
    reader = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read(1)"], stdin=subprocess.PIPE)
    done = subprocess.run([sys.executable, "-m", "maxent_util", "family", "log_normal", "24", "0.5", "--json"],
                          stdout=reader.stdin, stderr=subprocess.PIPE, text=True, timeout=120, env=env,
                          cwd=tmp_path)
    reader.stdin.close()
    reader.wait(timeout=60)
    assert "Traceback" not in done.stderr and done.returncode == 0, done.stderr
