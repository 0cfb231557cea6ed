"""Every file the package writes appears whole or not at all.

Before, figures, reports and exports were written straight into the target: an interrupt
(Ctrl-C) in the middle left a 0-byte or truncated file that later runs refused to
overwrite, and with --force it destroyed the previous good file. Each test interrupts a
writer after it has written some bytes and checks that the previous file is intact (or
that no file appeared) and that no temporary file is left in the folder.
"""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import textwrap

import pytest
from conftest import PNG_SIGNATURE, as_from_a_terminal, checkout_env, run

from maxent_util import _output, families
from maxent_util.errors import ExportError
from maxent_util.export import export_python
from maxent_util.report import write_report

PREVIOUS = b"the previous, good file\n"


def _interrupt_after_writing(monkeypatch):
    """Every atomic write raises KeyboardInterrupt once its bytes are written, before the move."""
    def fsync(descriptor):
        assert os.fstat(descriptor).st_size > 0  # the writer did write something
        raise KeyboardInterrupt
    monkeypatch.setattr(_output.os, "fsync", fsync)


def _only(folder, *names):
    assert sorted(os.listdir(folder)) == sorted(names)


def test_an_interrupted_write_keeps_the_previous_file_and_leaves_no_temporary_file(tmp_path):
    target = tmp_path / "out.txt"
    target.write_bytes(PREVIOUS)
    with pytest.raises(KeyboardInterrupt):
        with _output.atomic_file(target, overwrite=True) as handle:
            handle.write("half of the new")
            raise KeyboardInterrupt
    assert target.read_bytes() == PREVIOUS
    _only(tmp_path, "out.txt")


def test_an_interrupted_write_of_a_new_file_leaves_nothing(tmp_path):
    with pytest.raises(KeyboardInterrupt):
        with _output.atomic_file(tmp_path / "new.bin", binary=True) as handle:
            handle.write(b"\x00" * 10_000)
            raise KeyboardInterrupt
    _only(tmp_path)


def test_a_complete_write_replaces_the_file_and_keeps_its_permissions(tmp_path):
    target = tmp_path / "out.txt"
    target.write_bytes(PREVIOUS)
    target.chmod(0o640)
    with _output.atomic_file(target, overwrite=True) as handle:
        handle.write("new\n")
    assert target.read_text() == "new\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    _only(tmp_path, "out.txt")


def test_a_file_that_appeared_meanwhile_is_not_replaced_without_overwrite(tmp_path):
    target = tmp_path / "out.txt"
    with pytest.raises(FileExistsError):
        with _output.atomic_file(target) as handle:
            handle.write("new\n")
            target.write_bytes(PREVIOUS)  # another process wrote it while this one worked
    assert target.read_bytes() == PREVIOUS
    _only(tmp_path, "out.txt")


def test_a_long_target_name_still_gets_a_temporary_file(tmp_path):
    target = tmp_path / ("n" * 250)
    with _output.atomic_file(target) as handle:
        handle.write("x")
    assert target.read_text() == "x"


@pytest.mark.parametrize("command", [
    ["plot", "--utility", "exponential(24)", "--force", "-o"],
    ["export", "--utility", "exponential(24)", "--force", "--c"],
    ["export", "--utility", "exponential(24)", "--force", "--python"],
    ["export", "--utility", "exponential(24)", "--force", "--latex"],
])
def test_an_interrupted_command_keeps_the_previous_file(tmp_path, capsys, monkeypatch, command):
    target = tmp_path / "out.png" if command[0] == "plot" else tmp_path / "out.txt"
    target.write_bytes(PREVIOUS)
    _interrupt_after_writing(monkeypatch)
    status, out, err = run(capsys, *command, str(target))
    assert (status, err) == (130, "maxent-util: interrupted\n")
    assert target.read_bytes() == PREVIOUS
    _only(tmp_path, target.name)


def test_an_interrupted_new_figure_leaves_no_file_to_refuse_later(tmp_path, capsys, monkeypatch):
    target = tmp_path / "new.png"
    with monkeypatch.context() as patch:
        _interrupt_after_writing(patch)
        assert run(capsys, "plot", "--utility", "exponential(24)", "-o", str(target))[0] == 130
    _only(tmp_path)
    # the next run, not interrupted, needs no --force
    assert run(capsys, "plot", "--utility", "exponential(24)", "-o", str(target))[0] == 0
    assert target.read_bytes().startswith(PNG_SIGNATURE)


def test_interrupted_library_writers_keep_the_previous_file(tmp_path, monkeypatch):
    import pandas as pd

    from maxent_util import Solved

    runs = pd.DataFrame({"algorithm": ["a", "b"], "instance": ["i", "i"],
                         "runtime": [1.0, 5.0], "status": ["solved", "capped"]})
    report, module = tmp_path / "report.html", tmp_path / "u.py"
    for path in (report, module):
        path.write_bytes(PREVIOUS)
    _interrupt_after_writing(monkeypatch)
    with pytest.raises(KeyboardInterrupt):
        write_report(runs, report, rules=[Solved()], sections=["data"], overwrite=True)
    with pytest.raises(KeyboardInterrupt):
        export_python(families.exponential(24).utility(), module, overwrite=True)
    assert report.read_bytes() == PREVIOUS and module.read_bytes() == PREVIOUS
    _only(tmp_path, "report.html", "u.py")


def test_a_failed_write_is_an_export_error_and_leaves_nothing(tmp_path, monkeypatch):
    def fsync(descriptor):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(_output.os, "fsync", fsync)
    with pytest.raises(ExportError, match=r"^`path` of `export_python` must be a writable file; "
                                          r"got '.*u\.py'\. \(No space left on device\)"):
        export_python(families.exponential(24).utility(), tmp_path / "u.py")
    _only(tmp_path)


# The child replaces savefig by one that writes half a file and waits to be interrupted; the
# test sends it a real SIGINT once the half is on the disk.
_SLOW_SAVEFIG = textwrap.dedent("""
    import sys, time
    import matplotlib.figure
    from maxent_util.cli import main

    def savefig(self, handle, **options):
        handle.write(b"half a figure")
        handle.flush()
        print("writing", flush=True)
        time.sleep(60)

    matplotlib.figure.Figure.savefig = savefig
    sys.exit(main(sys.argv[1:]))
""")


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
# the child is started with a preexec_fn (to handle SIGINT as from a terminal), so this worker's
# fork handlers run: JAX's, if a test here imported it, warns of its threads, which the child
# (it execs at once) never touches
@pytest.mark.filterwarnings(r"ignore:os\.fork\(\) was called:RuntimeWarning")
def test_a_real_sigint_while_a_figure_is_written_exits_130_and_keeps_the_previous_file(tmp_path):
    target = tmp_path / "figure.png"
    target.write_bytes(PREVIOUS)
    child = subprocess.Popen(  # started as from a terminal, whatever this worker holds
        [sys.executable, "-c", _SLOW_SAVEFIG, "plot", "--utility", "exponential(24)", "--force",
         "-o", str(target)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=as_from_a_terminal,
        env=checkout_env(MPLBACKEND="Agg"))
    try:
        assert child.stdout.readline() == "writing\n"
        assert any(name.endswith(".tmp") for name in os.listdir(tmp_path))  # half of it is written
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=60)
    finally:
        child.kill()
        child.wait()
    assert child.returncode == 130
    assert err == "maxent-util: interrupted\n"
    assert target.read_bytes() == PREVIOUS
    _only(tmp_path, "figure.png")
