"""Every input bounded while it is read (issue 23, section 4).

The inputs are built small: a limit is set low, or a gzip of a few megabytes of repeated rows
(a "compression bomb" in miniature) meets a 1 MiB limit. An endless stream stands for
``/dev/zero``: it fails the test if more than 64 MiB are read from it, so a reader that reads
before it counts fails instead of filling the memory.
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
import sys
import threading

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import assert_usage_error, run
from maxent_util.errors import DataError
from maxent_util.io import (ReadLimits, read_aslib, read_benchexec, read_limits, read_long,
                            read_runs, read_satcomp, set_read_limits)

ROW = b"kissat,instance-with-a-longish-name-0001.cnf,12.5,solved,5000\n"
HEADER = b"algorithm,instance,runtime,status,cutoff\n"
# 3 MB of rows: gzip packs them some 340 times
ROWS = HEADER + ROW * (3_000_000 // len(ROW))
PACKERS = {"gzip": gzip.compress, "bz2": bz2.compress, "xz": lzma.compress}


class Endless(io.RawIOBase):
    """A stream that never ends (as /dev/zero), which fails the test past 64 MiB read."""

    def __init__(self, line: bytes = ROW, head: bytes = HEADER) -> None:
        super().__init__()
        self.pending = head
        self.line = line
        self.given = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        self.given += len(buffer)
        assert self.given < 64 << 20, "the reader went on reading past its limit"
        if not self.pending:
            self.pending = self.line * (len(buffer) // len(self.line) + 1)
        size = min(len(buffer), len(self.pending))
        buffer[:size] = self.pending[:size]
        self.pending = self.pending[size:]
        return size


def limit_message(name: str) -> str:
    return (rf"\(the read limit {name}=\d+\); got .*Reading stopped there\. Raise the limit with "
            rf"limits=ReadLimits\({name}=\.\.\.\) or set_read_limits\({name}=\.\.\.\) in Python, "
            rf"or --read-limit {name}=N on the command line\.$")


# ---------------------------------------------------------------------------
# bytes: as stored, unpacked, and their ratio


@pytest.mark.parametrize("kind", PACKERS)
def test_a_packed_file_is_unpacked_only_up_to_the_limit(tmp_path, kind):
    path = tmp_path / f"runs.csv.{kind}"
    path.write_bytes(PACKERS[kind](ROWS))
    small = ReadLimits(max_decompressed_bytes=1 << 20, max_ratio=10_000)
    with pytest.raises(DataError, match=r"^`path` of `read_long` must be content that unpacks to "
                                        r"at most 1048576 bytes " + limit_message(
                                            "max_decompressed_bytes")):
        read_long(path, limits=small)
    # read_runs and the stream route stop there too
    with pytest.raises(DataError, match=limit_message("max_decompressed_bytes")):
        read_runs(path, limits=small)
    with pytest.raises(DataError, match=limit_message("max_decompressed_bytes")):
        read_runs(io.BytesIO(path.read_bytes()), limits=small)
    assert len(read_long(path, limits=ReadLimits(max_ratio=10_000))) == len(ROWS) // len(ROW)


def test_a_compression_bomb_is_refused_by_its_ratio(tmp_path):
    # before: a 4 MB .csv.gz of 2 GB of rows took 24 GB of memory
    path = tmp_path / "bomb.csv.gz"
    path.write_bytes(gzip.compress(ROWS, 9))
    assert len(ROWS) / path.stat().st_size > 100
    with pytest.raises(DataError, match=r"^`path` of `read_long` must be gzip content that unpacks "
                                        r"to at most 100 times its size \(past 1 MiB, it unpacked "
                                        r"\d+ bytes from \d+\) " + limit_message("max_ratio")
                       .replace(r"=\d+\)", r"=100\)")):
        read_long(path)


def test_a_small_packed_file_may_unpack_a_hundredfold():
    # below 1 MiB unpacked, the ratio is not checked: a short file of repeated rows reads
    text = HEADER + ROW * 1000
    assert len(text) / len(gzip.compress(text)) > 100
    assert len(read_runs(io.BytesIO(gzip.compress(text)))) == 1000


@pytest.mark.parametrize("path_or_stream", ["file", "stream"])
def test_plain_content_is_read_only_up_to_max_bytes(tmp_path, path_or_stream):
    path = tmp_path / "runs.csv"
    path.write_bytes(HEADER + ROW * 20_000)  # 1.3 MB
    source = path if path_or_stream == "file" else io.BytesIO(path.read_bytes())
    with pytest.raises(DataError, match=r"must be a (file|stream) of at most 1048576 bytes "
                       + limit_message("max_bytes")):
        read_runs(source, limits=ReadLimits(max_bytes=1 << 20))
    # the pyarrow route (a plain file) and the cell-by-cell route alike
    with pytest.raises(DataError, match=limit_message("max_bytes")):
        read_long(path, limits=ReadLimits(max_bytes=1 << 20))
    with pytest.raises(DataError, match=limit_message("max_bytes")):
        read_satcomp(path, cutoff=10, limits=ReadLimits(max_bytes=1 << 20))


def test_an_endless_stream_is_read_up_to_the_limit():
    # before: read whole, so `rank - < /dev/zero` ended in MemoryError
    with pytest.raises(DataError, match=r"^`path` of `read_runs` must be a stream of at most "
                                        r"1048576 bytes " + limit_message("max_bytes")):
        read_runs(io.BufferedReader(Endless()), limits=ReadLimits(max_bytes=1 << 20))


def test_rank_stops_reading_an_endless_standard_input(capsys, monkeypatch):
    stdin = io.TextIOWrapper(io.BufferedReader(Endless()))
    monkeypatch.setattr(sys, "stdin", stdin)
    status, out, err = run(capsys, "rank", "-", "--par", "2", "--read-limit", "max_bytes=100000")
    assert_usage_error(status, out, err, "(the read limit max_bytes=100000)")
    assert "--read-limit max_bytes=N" in err


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero")
def test_rank_from_dev_zero_is_refused_not_a_memory_error():
    # before: "unexpected MemoryError"; here with a 5 MB limit, in a process of its own
    import subprocess

    with open("/dev/zero", "rb") as zero:
        done = subprocess.run([sys.executable, "-m", "maxent_util", "rank", "-", "--par", "2",
                               "--read-limit", "max_bytes=5000000"], stdin=zero,
                              capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and "the read limit max_bytes=5000000" in lines[0], done.stderr


# ---------------------------------------------------------------------------
# files that are not regular: refused before they are opened


def _within(seconds: float, call) -> BaseException | None:
    """Run ``call`` in a thread; the error it raised, or fail if it is still running."""
    outcome: list[BaseException | None] = []

    def target() -> None:
        try:
            call()
            outcome.append(None)
        except BaseException as error:  # noqa: BLE001 - handed to the test
            outcome.append(error)

    worker = threading.Thread(target=target, daemon=True)
    worker.start()
    worker.join(seconds)
    assert outcome, f"still running after {seconds} s (blocked)"
    return outcome[0]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
@pytest.mark.parametrize("reader", [
    lambda path: read_runs(path), lambda path: read_long(path),
    lambda path: read_satcomp(path, cutoff=10), lambda path: read_benchexec(path),
    lambda path: read_runs(path, format="satcomp", cutoff=10)])
def test_a_fifo_is_refused_before_it_is_opened(tmp_path, reader):
    # before: the format was guessed by opening it, which blocks until a writer comes
    fifo = tmp_path / "runs.csv"
    os.mkfifo(fifo)
    error = _within(20, lambda: reader(fifo))
    assert isinstance(error, DataError), error
    assert str(error).startswith("`path` of `")
    assert "must be a regular file; got " in str(error)
    assert "It is a FIFO (named pipe), which could block or never end" in str(error)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
def test_rank_refuses_a_fifo(tmp_path, capsys):
    fifo = tmp_path / "runs.csv"
    os.mkfifo(fifo)
    outcome: list = []
    error = _within(20, lambda: outcome.append(run(capsys, "rank", str(fifo), "--par", "2")))
    assert error is None
    assert_usage_error(*outcome[0], "It is a FIFO (named pipe)")


def test_a_device_and_a_folder_are_refused(tmp_path):
    with pytest.raises(DataError, match=r"must be a regular file; got '/dev/null'\. It is a "
                                        r"character device"):
        read_satcomp("/dev/null", cutoff=10)
    with pytest.raises(DataError, match=r"must be a regular file; got .*\. It is a folder"):
        read_long(tmp_path)


# ---------------------------------------------------------------------------
# columns and cells


def wide_csv(columns: int, rows: int = 3) -> str:
    head = "algorithm,instance,runtime," + ",".join(f"x{j}" for j in range(columns))
    body = [f"a,i{r},1.5," + ",".join(str(j) for j in range(columns)) for r in range(rows)]
    return head + "\n" + "\n".join(body) + "\n"


def test_a_csv_past_the_column_limit_is_refused(tmp_path):
    path = tmp_path / "wide.csv"
    path.write_text(wide_csv(2000, rows=2))
    message = (r"^`path` of `read_long` must be a CSV of at most 1000 columns; its header has "
               r"2003 " + limit_message("max_columns"))
    with pytest.raises(DataError, match=message):
        read_long(path)
    with pytest.raises(DataError, match=message.replace("read_long", "read_runs").replace(
            "read_runs", "read_long")):
        read_runs(path)
    with pytest.raises(DataError, match=r"its header has 2003"):
        read_satcomp(path, cutoff=10)


def test_extra_columns_are_joined_at_once(tmp_path):
    # before: one column inserted at a time, 101 s (270 s here) for 10^4 extra columns; now
    # about 3 s at 10^4 (measured by hand; the test reads 1500)
    path = tmp_path / "wide.csv"
    path.write_text(wide_csv(1500))
    runs = read_long(path, limits=ReadLimits(max_columns=5000))
    assert runs.shape == (3, 4 + 1500)
    assert runs.columns[-1] == "x1499" and runs["x1499"].tolist() == ["1499"] * 3
    from maxent_util.io import long as long_module

    saved = long_module._read_long_blocks
    long_module._read_long_blocks = lambda source, limits: None
    try:
        exact = read_long(path, limits=ReadLimits(max_columns=5000))
    finally:
        long_module._read_long_blocks = saved
    assert exact.shape == runs.shape and exact["x1499"].tolist() == ["1499"] * 3


def test_a_long_cell_is_refused_and_not_echoed(tmp_path):
    path = tmp_path / "runs.csv"
    name = "n" * 100_000
    path.write_text(f"algorithm,instance,runtime\na,{name},1.5\n")
    for read in (read_long, lambda p: read_runs(p)):
        with pytest.raises(DataError) as caught:
            read(path)
        message = str(caught.value)
        assert message.startswith(f"`instance` of `{path}, data row 1` must be at most 65536 "
                                  "characters (the read limit max_cell_chars=65536); got ")
        assert len(message) < 800 and "limits=ReadLimits(max_cell_chars=...)" in message
    assert len(read_long(path, limits=ReadLimits(max_cell_chars=200_000))) == 1


@pytest.mark.parametrize("where", ["runtime", "name"])
@pytest.mark.parametrize("reader", [read_long, read_runs, read_satcomp])
def test_a_nul_byte_is_refused_not_read_as_the_end_of_a_cell(tmp_path, reader, where):
    """pandas' CSV parser ends a cell at a NUL byte: ``5\\x00`` was read as 5 seconds."""
    path = tmp_path / "runs.csv"
    if reader is read_satcomp:  # the published SAT Competition layout: a solver per column
        row = "i1,5\x00" if where == "runtime" else "i\x001,5"
        path.write_bytes(f"benchmark,kissat\n{row}\ni2,7\n".encode())
    else:
        row = "a,i1,5\x00" if where == "runtime" else "a,i\x001,5"
        path.write_bytes(f"algorithm,instance,runtime\n{row}\na,i2,7\n".encode())
    with pytest.raises(DataError, match=r"^`path` of `read_\w+` must be a text file \(it holds a NUL "
                                        r"byte, as a binary file does\); got "):
        reader(path)


def test_bad_cells_are_quoted_in_short(tmp_path):
    path = tmp_path / "runs.csv"
    path.write_text("algorithm,instance,runtime\na,x," + "9" * 5000 + "x\n")
    with pytest.raises(DataError) as caught:
        read_long(path)
    assert str(caught.value).startswith("`runtime` of ") and len(str(caught.value)) < 400


# ---------------------------------------------------------------------------
# XML


RESULT = ('<?xml version="1.0"?>\n<result tool="T" name="r" timelimit="900s">\n'
          '<run name="{name}"><column title="status" value="true"/>'
          '<column title="cputime" value="1.5s"/></run>\n</result>\n')


def test_a_huge_xml_attribute_is_refused_while_read(tmp_path):
    # before: a 50 MB attribute took 49 s and was echoed into the output
    path = tmp_path / "results.xml"
    path.write_text(RESULT.format(name="a" * 200_000))
    with pytest.raises(DataError) as caught:
        read_benchexec(path)
    message = str(caught.value)
    assert message.startswith("`path` of `read_benchexec` must be XML whose tags (with their "
                              "attributes) and texts are at most 65536 bytes each (the read limit "
                              "max_cell_chars=65536); got ")
    assert "aaaa" not in message
    assert len(read_benchexec(path, limits=ReadLimits(max_cell_chars=300_000))) == 1
    packed = tmp_path / "results.xml.bz2"
    packed.write_bytes(bz2.compress(path.read_bytes()))
    with pytest.raises(DataError, match=limit_message("max_cell_chars")):
        read_benchexec(packed, limits=ReadLimits(max_cell_chars=1000))


def test_xml_values_in_errors_are_excerpts(tmp_path):
    path = tmp_path / "results.xml"
    path.write_text(RESULT.format(name="b").replace('value="1.5s"', 'value="' + "7" * 20_000 + 'x"'))
    with pytest.raises(DataError) as caught:
        read_benchexec(path)
    assert str(caught.value).startswith("`cputime` of ") and len(str(caught.value)) < 400


# ---------------------------------------------------------------------------
# ASlib


def scenario(folder):
    folder.mkdir(exist_ok=True)
    (folder / "algorithm_runs.arff").write_text(
        "@RELATION runs\n@ATTRIBUTE instance_id STRING\n@ATTRIBUTE repetition NUMERIC\n"
        "@ATTRIBUTE algorithm STRING\n@ATTRIBUTE runtime NUMERIC\n"
        "@ATTRIBUTE runstatus {ok, timeout}\n@DATA\na1,1,s,1.5,ok\nb1,1,s,?,timeout\n")
    return folder / "algorithm_runs.arff"


@pytest.mark.parametrize("kind", ["folder", "broken link", "fifo"])
def test_an_unreadable_description_is_refused(tmp_path, kind):
    # before: ignored without a word, so the scenario's cutoff and runtime measure were lost
    arff = scenario(tmp_path / "scenario")
    description = arff.with_name("description.txt")
    if kind == "folder":
        description.mkdir()
    elif kind == "broken link":
        description.symlink_to(tmp_path / "nowhere")
    else:
        if not hasattr(os, "mkfifo"):
            pytest.skip("no FIFOs on this system")
        os.mkfifo(description)
    error = _within(20, lambda: read_aslib(arff))
    assert isinstance(error, DataError), error
    assert str(error).startswith(f"`path` of `read_aslib` must be ")
    assert f"got '{description}'" in str(error)


def test_an_arff_past_the_limits_is_refused(tmp_path):
    arff = scenario(tmp_path / "scenario")
    with pytest.raises(DataError, match=r"an ARFF file of at most 3 attributes "
                       + limit_message("max_columns")):
        read_aslib(arff, cutoff=10, limits=ReadLimits(max_columns=3))
    with pytest.raises(DataError, match=r"^`instance_id` of `.*line 8` must be a name of at most "
                                        r"1 characters"):
        read_aslib(arff, cutoff=10, limits=ReadLimits(max_cell_chars=1))
    with pytest.raises(DataError, match=limit_message("max_bytes")):
        read_aslib(arff, cutoff=10, limits=ReadLimits(max_bytes=100))


# ---------------------------------------------------------------------------
# the limits themselves


def test_limits_are_checked_and_set_for_the_process(tmp_path):
    for bad in ({"max_bytes": 0}, {"max_bytes": 1.5}, {"max_ratio": float("nan")},
                {"max_columns": True}, {"max_cell_chars": "10"}):
        with pytest.raises(DataError, match=r"^`max_\w+` of `ReadLimits` must be a (whole|finite) "
                                            r"number of at least 1; got "):
            ReadLimits(**bad)
    with pytest.raises(DataError, match=r"^`changes` of `set_read_limits` must be names of "
                                        r"ReadLimits fields \(max_bytes, .*\); got 'bytes'\.$"):
        set_read_limits(bytes=10)
    with pytest.raises(DataError, match=r"^`limits` of `read_runs` must be a ReadLimits or None"):
        read_runs(io.BytesIO(b"a"), limits={"max_bytes": 10})
    path = tmp_path / "wide.csv"
    path.write_text(wide_csv(5, rows=1))
    previous = set_read_limits(max_columns=4)
    try:
        assert read_limits().max_columns == 4
        with pytest.raises(DataError, match=r"at most 4 columns"):
            read_runs(path)
    finally:
        set_read_limits(previous)
    assert read_limits() == ReadLimits()
    assert len(read_runs(path)) == 1


def test_read_limit_flag(tmp_path, capsys):
    path = tmp_path / "wide.csv"
    path.write_text(wide_csv(5, rows=1))
    assert_usage_error(*run(capsys, "rank", str(path), "--par", "2", "--read-limit",
                            "max_columns=4"), "(the read limit max_columns=4)")
    assert_usage_error(*run(capsys, "rank", str(path), "--par", "2", "--read-limit",
                            "columns=4"), "`changes` of `--read-limit` must be names of "
                                          "ReadLimits fields")
    assert_usage_error(*run(capsys, "rank", str(path), "--par", "2", "--read-limit",
                            "max_columns=lots"), "expected NAME=N")
    status, out, err = run(capsys, "rank", str(path), "--par", "2", "--read-limit",
                           "max_columns=10")
    assert status == 0 and out.startswith("ranking of "), err


# ---------------------------------------------------------------------------
# a Dask scheduler that accepts and never answers


@pytest.fixture
def silent_server():
    """A TCP server on localhost that accepts connections and never says a word."""
    import socket

    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    held = []
    stop = threading.Event()

    def accept() -> None:
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(server.accept()[0])
            except OSError:
                continue

    worker = threading.Thread(target=accept, daemon=True)
    worker.start()
    yield f"tcp://127.0.0.1:{server.getsockname()[1]}"
    stop.set()
    worker.join(5)
    for connection in held:
        connection.close()
    server.close()


def test_a_dask_scheduler_that_never_answers_is_given_up(silent_server):
    # before: distributed's timeout bounds the TCP connection, not the handshake: past 300 s
    pytest.importorskip("distributed")
    from maxent_util._dask import client

    def attempt() -> None:
        with client(silent_server, "rank --dask", timeout=1.0):
            raise AssertionError("connected to a server that never answers")

    error = _within(30, attempt)
    assert isinstance(error, DataError), error
    assert str(error).startswith(f"`--dask` of `rank --dask` must be the address of a running "
                                 f"dask.distributed scheduler (tcp://host:8786) that answers "
                                 f"within 1 s; got '{silent_server}'. Connecting failed: ")
    assert "--dask-timeout SECONDS" in str(error)


def test_rank_dask_gives_up_on_a_silent_scheduler(silent_server, tmp_path, capsys):
    pytest.importorskip("distributed")
    pytest.importorskip("pyarrow")
    import pandas as pd

    path = tmp_path / "runs.parquet"
    pd.DataFrame({"algorithm": ["a"], "instance": ["x"], "runtime": [1.0],
                  "status": ["solved"], "cutoff": [10.0]}).to_parquet(path)
    outcome: list = []
    error = _within(30, lambda: outcome.append(run(
        capsys, "rank", str(path), "--par", "2", "--dask", silent_server, "--dask-timeout", "1")))
    assert error is None
    assert_usage_error(*outcome[0], "that answers within 1 s")


# ---------------------------------------------------------------------------
# property: a limit either lets the whole content through or stops it, at the exact byte


@settings(max_examples=40, deadline=None)
@given(rows=st.lists(st.tuples(st.sampled_from(["a", "b", "kissat"]),
                               st.text(alphabet="xyz0123456789._-", min_size=1, max_size=30),
                               st.floats(0, 1e4, allow_nan=False)), min_size=1, max_size=60),
       slack=st.integers(-50, 50), packed=st.booleans())
def test_property_max_bytes_is_exact(rows, slack, packed):
    text = "algorithm,instance,runtime\n" + "".join(f"{a},{i},{r!r}\n" for a, i, r in rows)
    content = text.encode()
    if packed:
        content = gzip.compress(content)
    limit = max(1, len(content) + slack)
    bounded = ReadLimits(max_bytes=limit, max_ratio=1e6)
    if len(content) <= limit:
        got = read_runs(io.BytesIO(content), limits=bounded)
        pd.testing.assert_frame_equal(got, read_runs(io.BytesIO(content)))
    else:
        with pytest.raises(DataError, match=rf"at most {limit} bytes \(the read limit "
                                            rf"max_bytes={limit}\)"):
            read_runs(io.BytesIO(content), limits=bounded)


def test_a_file_read_is_closed_after_reading():
    # the bounded reader kept only the file's read method: closing the stream left the file to
    # its finaliser (a ResourceWarning when it was collected, which failed whichever test ran then)
    import gc
    import warnings
    from maxent_util import datasets
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ResourceWarning)
        datasets.satcomp2021("parallel")
        gc.collect()
    assert not [w for w in caught if issubclass(w.category, ResourceWarning)]
