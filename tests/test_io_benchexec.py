"""BenchExec result XML: the reader against files built here from the published schema.

The schema is BenchExec's ``doc/result.dtd`` (github.com/sosy-lab/benchexec):
``<result>`` with ``benchmarkname``, ``tool``, ``version``, ``options``,
``timelimit``, ... then ``<columns>``, ``<systeminfo>``, ``<run name=...
properties=...>`` elements of ``<column title=... value=...>`` and trailing
totals. The status words are those of ``benchexec/result.py`` and
``benchexec/model.py`` (``TIMEOUT``, ``OUT OF MEMORY``, ``ERROR (1)``, ...),
the values those of ``doc/run-results.md`` (``cputime`` as ``"12.3s"``).
Each expectation is worked out by hand next to its assertion, or by a plain
Python computation over the runs the test wrote.
"""

from __future__ import annotations

import bz2
import gzip
import io
import zipfile
from xml.sax.saxutils import quoteattr

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from maxent_util.cli import main
from maxent_util.errors import DataError
from maxent_util.io import guess_format, read_benchexec, read_runs, sniff_format, validate_table
from maxent_util.ranking import PAR, Solved, rank

DOCTYPE = ("<!DOCTYPE result\n  PUBLIC '+//IDN sosy-lab.org//DTD BenchExec result 3.12//EN'\n"
           "  'https://www.sosy-lab.org/benchexec/result-3.12.dtd'>\n")


def result_xml(runs, *, tool="CPAchecker", version="2.3", benchmarkname="cpachecker",
               name="SV-COMP24_unreach-call", timelimit="900s", extra="", doctype=True,
               run_tag="run") -> str:
    """A result file as BenchExec 3 writes it; runs are (name, properties, {title: value})."""
    attributes = {"benchmarkname": benchmarkname, "date": "2024-01-05 10:00:00 CET",
                  "starttime": "2024-01-05T10:00:00+01:00", "tool": tool,
                  "toolmodule": "benchexec.tools.cpachecker", "version": version,
                  "options": "--heap 10000M", "generator": "BenchExec 3.20", "memlimit": "15000000000B",
                  "cpuCores": "4"}
    if name is not None:
        attributes["name"] = name
    if timelimit is not None:
        attributes["timelimit"] = timelimit
    head = " ".join(f"{key}={quoteattr(value)}" for key, value in attributes.items())
    lines = ['<?xml version="1.0" encoding="utf-8"?>', DOCTYPE if doctype else "",
             f"<result {head} {extra}>",
             '  <columns><column title="status"/><column title="cputime"/>'
             '<column title="walltime"/></columns>',
             '  <systeminfo hostname="apollon"><os name="Linux"/>'
             '<cpu cores="8" model="Intel Xeon"/><ram size="33000000000B"/>'
             '<environment/></systeminfo>']
    for run_name, properties, columns in runs:
        props = f" properties={quoteattr(properties)}" if properties else ""
        lines.append(f"  <{run_tag} name={quoteattr(run_name)} files={quoteattr('[' + run_name + ']')}"
                     f"{props}>")
        for title, value in columns.items():
            hidden = ' hidden="true"' if title in ("category", "terminationreason") else ""
            lines.append(f"    <column{hidden} title={quoteattr(title)} value={quoteattr(value)}/>")
        lines.append(f"  </{run_tag}>")
    lines += ['  <column title="cputime" value="1234.5s"/>',
              '  <column title="walltime" value="1300.2s"/>', "</result>"]
    return "\n".join(lines) + "\n"


def run(status, cputime, category, walltime=None, **more):
    columns = {"status": status, "cputime": cputime, "walltime": walltime or cputime,
               "category": category, "memory": "123456789B", **more}
    return {key: value for key, value in columns.items() if value is not None}


# one run of each kind (status, category as BenchExec writes them)
KINDS = [
    ("a.yml", "unreach-call", run("true", "12.5s", "correct")),
    ("b.yml", "unreach-call", run("false(unreach-call)", "100.25s", "correct")),
    ("c.yml", "unreach-call", run("TIMEOUT", "901.2s", "error", terminationreason="cputime")),
    ("d.yml", "unreach-call", run("TIMEOUT (true)", "903s", "error")),
    ("e.yml", "unreach-call", run("OUT OF MEMORY", "45.5s", "error", terminationreason="memory")),
    ("f.yml", "unreach-call", run("OUT OF JAVA MEMORY", "60s", "error")),
    ("g.yml", "unreach-call", run("ERROR (1)", "2.5s", "error")),
    ("h.yml", "unreach-call", run("SEGMENTATION FAULT", "0.5s", "error")),
    ("i.yml", "unreach-call", run("unknown", "33s", "unknown")),
    ("j.yml", "unreach-call", run("true", "20s", "wrong")),
    ("k.yml", "unreach-call", run("false(unreach-call)", "7s", "correct-unconfirmed")),
    ("l.yml", "unreach-call", run("true", "950s", "correct")),
]
# by hand from KINDS: status, runtime (cutoff 900)
EXPECTED = {
    "a.yml": ("solved", 12.5), "b.yml": ("solved", 100.25), "c.yml": ("capped", 900.0),
    "d.yml": ("capped", 900.0), "e.yml": ("memout", 45.5), "f.yml": ("memout", 60.0),
    "g.yml": ("crash", 2.5), "h.yml": ("crash", 0.5), "i.yml": ("crash", 33.0),
    "j.yml": ("unverified", 20.0), "k.yml": ("unverified", 7.0),
    "l.yml": ("capped", 900.0),  # correct, but 950 s is past the 900 s limit
}


def write(tmp_path, name, text, compress=None):
    data = text.encode("utf-8")
    if compress == "bz2":
        data = bz2.compress(data)
    elif compress == "gz":
        data = gzip.compress(data)
    elif compress == "zip":  # one result file in a zip archive
        packed = io.BytesIO()
        with zipfile.ZipFile(packed, "w", zipfile.ZIP_DEFLATED) as archive:
            archive.writestr("cpachecker.results.xml", data)
        data = packed.getvalue()
    path = tmp_path / name
    path.write_bytes(data)
    return path


def test_each_kind_of_run(tmp_path):
    runs = read_benchexec(write(tmp_path, "cpa.xml", result_xml(KINDS)))
    validate_table(runs)
    assert runs["algorithm"].unique().tolist() == ["CPAchecker SV-COMP24_unreach-call"]
    got = {instance.split(" ")[0]: (status, runtime) for instance, status, runtime in
           runs[["instance", "status", "runtime"]].itertuples(index=False)}
    assert got == EXPECTED
    assert runs["instance"].iloc[0] == "a.yml (unreach-call)"
    assert (runs["cutoff"] == 900.0).all()
    assert runs.attrs["notes"] == [
        "1 run with a wrong answer (category 'wrong') counts as unsolved: status 'unverified', "
        "utility 0",
        "1 run with an unconfirmed answer (category 'correct-unconfirmed') counts as unsolved: "
        "status 'unverified', utility 0"]


def test_par2_against_a_plain_computation(tmp_path):
    # two tools on the same tasks; PAR-2 by hand: solved runs below 900 s count their time
    tasks = [f"t{i}.c" for i in range(4)]
    times = {"ToolA": [10.0, 950.0, 300.0, None], "ToolB": [5.0, 20.0, None, 899.0]}
    for tool, values in times.items():
        runs_ = []
        for task, value in zip(tasks, values):
            if value is None:
                runs_.append((task, "", run("TIMEOUT", "901s", "error")))
            else:
                runs_.append((task, "", run("true", f"{value}s", "correct")))
        write(tmp_path, f"{tool}.xml", result_xml(runs_, tool=tool, name=None))
    ranked = rank(read_runs(tmp_path), {"PAR-2": PAR(2), "solved": Solved()})
    reference = {tool: sum(v if v is not None and v < 900 else 1800.0 for v in values) / 4
                 for tool, values in times.items()}
    assert ranked["PAR-2"].to_dict() == pytest.approx(reference)
    assert ranked["solved"].to_dict() == {"ToolA": 2.0, "ToolB": 3.0}


def test_unchecked_answers_and_empty_statuses(tmp_path):
    runs_ = [("x.smt2", "", run("sat", "0.5s", "missing")),
             ("y.smt2", "", run("unknown", "0.25s", "missing")),
             ("z.smt2", "", {"status": "", "cputime": "", "walltime": ""}),
             ("w.smt2", "", {"status": "done", "cputime": "1s"}),   # no category at all
             ("v.smt2", "", {"status": "EXCEPTION", "cputime": "2s"})]
    runs = read_benchexec(write(tmp_path, "m.xml", result_xml(runs_, timelimit="10 s")))
    assert runs["status"].tolist() == ["solved", "crash", "crash", "solved", "crash"]
    # the empty run has no time: it stops at the cutoff
    assert runs["runtime"].tolist() == [0.5, 0.25, 10.0, 1.0, 2.0]
    assert runs.attrs["notes"] == [
        "2 runs had no expected answer to check against (category 'missing' or none); their "
        "answers count as solved",
        "1 run has an empty status (no result recorded); it counts as 'crash'"]


def test_walltime_and_cutoff_options(tmp_path):
    path = write(tmp_path, "t.xml", result_xml(
        [("a", "", run("true", "10s", "correct", walltime="30s")),
         ("b", "", run("true", "40s", "correct", walltime="41s"))], timelimit="60s"))
    assert read_benchexec(path)["runtime"].tolist() == [10.0, 40.0]
    assert read_benchexec(path, time="walltime")["runtime"].tolist() == [30.0, 41.0]
    lowered = read_benchexec(path, cutoff=35)
    assert lowered["status"].tolist() == ["solved", "capped"]
    assert lowered["runtime"].tolist() == [10.0, 35.0] and (lowered["cutoff"] == 35).all()
    with pytest.raises(DataError, match=r"^`cutoff` of `read_benchexec` must be at most 60 s, the "
                                        r"time limit .*t\.xml states; got 100\. A cutoff can re-cap"):
        read_benchexec(path, cutoff=100)
    with pytest.raises(DataError, match=r"^`time` of `read_benchexec` must be 'cputime' or "
                                        r"'walltime'; got 'usertime'\.$"):
        read_benchexec(path, time="usertime")


def test_a_file_without_a_time_limit_needs_a_cutoff(tmp_path):
    # BenchExec's own test results of DummyTool carry no timelimit attribute
    path = write(tmp_path, "dummy.xml", result_xml([("a", "", run("true", "0.1s", "missing"))],
                                                   timelimit=None))
    with pytest.raises(DataError, match=r"^`cutoff` of `read_benchexec` must be a number of "
                                        r"seconds, as the file states no time limit"):
        read_benchexec(path)
    assert read_benchexec(path, cutoff=60)["cutoff"].tolist() == [60.0]


@pytest.mark.parametrize("compress, suffix", [(None, ".xml"), ("bz2", ".xml.bz2"),
                                              ("gz", ".xml.gz"), ("bz2", ".data"),
                                              ("zip", ".zip")])
def test_compressed_files_read_like_plain_ones(tmp_path, compress, suffix):
    text = result_xml(KINDS)
    plain = read_benchexec(write(tmp_path, "plain.xml", text))
    path = write(tmp_path, "packed" + suffix, text, compress)
    pd.testing.assert_frame_equal(read_benchexec(path), plain)
    assert guess_format(path) == "benchexec"
    pd.testing.assert_frame_equal(read_runs(path), plain)
    # and from a stream, as `maxent-util rank -` hands it over
    pd.testing.assert_frame_equal(read_runs(io.BytesIO(path.read_bytes())), plain)


def test_legacy_sourcefile_tags(tmp_path):
    text = result_xml(KINDS[:3], run_tag="sourcefile", doctype=False)
    assert read_benchexec(write(tmp_path, "old.xml", text))["status"].tolist() == [
        "solved", "solved", "capped"]


# ---------------------------------------------------------------------------
# names: tool and run set, blocks, clashes


def test_blocks_of_one_run_set_are_one_algorithm(tmp_path):
    # SV-COMP writes a run set's categories to separate files: name "<run set>.<block>"
    for block, task in (("ReachSafety-Arrays", "a.yml"), ("ReachSafety-Loops", "b.yml")):
        write(tmp_path, f"cpa.{block}.xml.bz2", result_xml(
            [(task, "unreach-call", run("true", "1s", "correct"))],
            name=f"SV-COMP24_unreach-call.{block}", extra=f'block="{block}"'), "bz2")
    runs = read_runs(tmp_path)
    assert runs["algorithm"].unique().tolist() == ["CPAchecker SV-COMP24_unreach-call"]
    assert runs["instance"].tolist() == ["a.yml (unreach-call)", "b.yml (unreach-call)"]


def test_display_name_and_clashing_names(tmp_path):
    write(tmp_path, "1.xml", result_xml([("a", "", run("true", "1s", "correct"))],
                                        extra='displayName="CPA-Seq"'))
    write(tmp_path, "2.xml", result_xml([("a", "", run("true", "2s", "correct"))], version="2.2"))
    write(tmp_path, "3.xml", result_xml([("a", "", run("true", "3s", "correct"))], version="2.3"))
    runs = read_benchexec(tmp_path)
    assert runs["algorithm"].tolist() == ["CPA-Seq", "CPAchecker SV-COMP24_unreach-call [2.2]",
                                          "CPAchecker SV-COMP24_unreach-call [2.3]"]


def test_identical_run_sets_merge_and_indistinct_ones_are_refused(tmp_path):
    write(tmp_path, "1.xml", result_xml([("a", "", run("true", "1s", "correct"))]))
    write(tmp_path, "2.xml", result_xml([("a", "", run("true", "2s", "correct"))]))
    # the same run set twice (a repetition): one algorithm with a repeated run, for rank's
    # duplicates= policy
    runs = read_benchexec(tmp_path)
    assert runs["algorithm"].nunique() == 1 and len(runs) == 2
    # one display name on two tools, nothing else to tell them apart by
    write(tmp_path, "1.xml", result_xml([("a", "", run("true", "1s", "correct"))],
                                        tool="A", extra='displayName="X"'))
    write(tmp_path, "2.xml", result_xml([("a", "", run("true", "2s", "correct"))],
                                        tool="B", extra='displayName="X"'))
    with pytest.raises(DataError, match=r"^`path` of `read_benchexec` must be result files of "
                                        r"distinct run sets with distinct names"):
        read_benchexec(tmp_path)


# ---------------------------------------------------------------------------
# hostile files


def test_billion_laughs_is_refused(tmp_path):
    # ten levels of ten: expanded, &lol9; would be 10**9 "lol"s; the parser must refuse the
    # entity declarations before expanding anything
    entities = ['<!ENTITY lol0 "lol">'] + [
        f'<!ENTITY lol{i} "{("&lol" + str(i - 1) + ";") * 10}">' for i in range(1, 10)]
    text = ('<?xml version="1.0"?>\n<!DOCTYPE result [\n' + "\n".join(entities) + "\n]>\n"
            '<result tool="x" timelimit="1s"><run name="&lol9;"/></result>\n')
    path = write(tmp_path, "lol.xml", text)
    with pytest.raises(DataError, match=r"^`path` of `read_benchexec` must be XML without entity "
                                        r"declarations or external references; got '.*lol\.xml'\. "
                                        r"The parser refused: EntitiesForbidden\.$"):
        read_benchexec(path)
    with pytest.raises(DataError, match="EntitiesForbidden"):
        read_runs(io.BytesIO(bz2.compress(text.encode())))


def test_external_entities_are_refused(tmp_path):
    text = ('<?xml version="1.0"?>\n<!DOCTYPE result [<!ENTITY x SYSTEM "file:///etc/passwd">]>\n'
            '<result tool="x" timelimit="1s"><run name="&x;"/></result>\n')
    with pytest.raises(DataError, match="The parser refused: EntitiesForbidden"):
        read_benchexec(write(tmp_path, "ext.xml", text))


@pytest.mark.parametrize("text, message", [
    ("<result tool='x' timelimit='1s'><run name='a'>", r"must be well-formed XML"),
    ("<results/>", r"^`path` of `read_benchexec` must be a BenchExec result file \(root element "
                   r"<result>\); got '.*bad\.xml'\. The root element is <results>\.$"),
    ("", r"must be well-formed XML"),
    ("<result tool='x' timelimit='soon'/>", r"^`timelimit` of `.*` must be a positive number of "
                                            r"seconds such as '900s'; got 'soon'\.$"),
    ("<result tool='x' timelimit='1s'><run name=''/></result>",
     r"^`name` of `.*bad\.xml, run 1` must be a non-empty task name; got ''\.$"),
    ("<result tool='x' timelimit='9s'><run name='a'><column title='status' value='true'/>"
     "<column title='cputime' value='-1s'/></run></result>",
     r"^`cputime` of `.*, run 1` must be a non-negative number of seconds such as '12\.3s'; "
     r"got '-1s'\.$"),
    ("<result tool='x' timelimit='9s'><run name='a'><column title='status' value='true'/>"
     "<column title='cputime' value='nan'/></run></result>", r"got 'nan'"),
    ("<result tool='x' timelimit='9s'><run name='a'><column title='status' value='true'/>"
     "</run></result>", r"^`cputime` of `.*, run 1` must be the run's cputime \(its status is "
                        r"'true'\); got None\.$"),
    ("<result tool='x' timelimit='9s'><run name='a'><column title='status' value='true'/>"
     "<column title='category' value='splendid'/></run></result>",
     r"^`category` of `.*, run 1` must be one of 'correct', .*; got 'splendid'\.$"),
])
def test_malformed_files(tmp_path, text, message):
    with pytest.raises(DataError, match=message):
        read_benchexec(write(tmp_path, "bad.xml", text))


def test_bad_paths_and_options(tmp_path):
    with pytest.raises(DataError, match=r"^`path` of `read_benchexec` must be an existing, "
                                        r"readable file; got '.*nowhere\.xml'"):
        read_benchexec(tmp_path / "nowhere.xml")
    with pytest.raises(DataError, match=r"^`path` of `read_benchexec` must be a folder holding "
                                        r"result files"):
        read_benchexec(tmp_path)
    with pytest.raises(DataError, match=r"^`path` of `read_benchexec` must be a file path"):
        read_benchexec(42)
    with pytest.raises(DataError, match=r"^`cutoff` of `read_benchexec` must be a positive"):
        read_benchexec(tmp_path, cutoff=-1)
    with pytest.raises(DataError, match=r"must be at least one result file"):
        read_benchexec([])


def test_a_list_of_files(tmp_path):
    first = write(tmp_path, "a.xml", result_xml([("t", "", run("true", "1s", "correct"))],
                                                tool="A", name=None))
    second = write(tmp_path, "b.xml.bz2", result_xml([("t", "", run("true", "2s", "correct"))],
                                                     tool="B", name=None), "bz2")
    runs = read_benchexec([second, first])
    assert runs["algorithm"].tolist() == ["B", "A"]


# ---------------------------------------------------------------------------
# property: whatever the runs, the reader's statuses and runtimes follow the rules


OUTCOMES = st.sampled_from([("true", "correct"), ("false(unreach-call)", "correct"),
                            ("TIMEOUT", "error"), ("OUT OF MEMORY", "error"), ("ERROR (1)", "error"),
                            ("true", "wrong"), ("unknown", "unknown")])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(runs_=st.lists(st.tuples(OUTCOMES, st.floats(0.0, 200.0)), min_size=1, max_size=12),
       limit=st.sampled_from([60.0, 100.0]))
def test_property_statuses_and_runtimes(runs_, limit):
    spec = [(f"task{i}.c", "", run(status, f"{seconds!r}s", category))
            for i, ((status, category), seconds) in enumerate(runs_)]
    table = read_benchexec(io.BytesIO(result_xml(spec, timelimit=f"{limit:g}s").encode()))
    validate_table(table)
    for ((status, category), seconds), got_status, runtime in zip(
            runs_, table["status"], table["runtime"]):
        if category == "correct":
            expected = "solved" if seconds < limit else "capped"
        else:
            expected = {"TIMEOUT": "capped", "OUT OF MEMORY": "memout"}.get(
                status, "unverified" if category == "wrong" else "crash")
        assert got_status == expected
        assert runtime == (limit if expected == "capped" else min(seconds, limit))
    wrong = sum(category == "wrong" for (_, category), _ in runs_)
    assert any(f"{wrong} run" in note for note in table.attrs["notes"]) == (wrong > 0)


# ---------------------------------------------------------------------------
# the command line


def test_rank_reads_benchexec_results(tmp_path, capsys, monkeypatch):
    for tool, seconds in (("ToolA", "12s"), ("ToolB", "30s")):
        write(tmp_path, f"{tool}.xml", result_xml(
            [("a.c", "", run("true", seconds, "correct", walltime="50s")),
             ("b.c", "", run("true", "7s", "wrong"))], tool=tool, name=None))
    status = main(["rank", str(tmp_path), "--par", "2", "--csv"])
    captured = capsys.readouterr()
    assert status == 0, captured.err
    scores = pd.read_csv(io.StringIO(captured.out), index_col=0)["PAR-2"].to_dict()
    # by hand: the wrong answer counts 2 x 900; (12 + 1800) / 2 and (30 + 1800) / 2
    assert scores == pytest.approx({"ToolA": 906.0, "ToolB": 915.0})
    assert captured.err.count("with a wrong answer") == 1
    status = main(["rank", str(tmp_path), "--par", "2", "--csv", "--time", "walltime",
                   "--format", "benchexec"])
    captured = capsys.readouterr()
    assert status == 0
    assert pd.read_csv(io.StringIO(captured.out), index_col=0)["PAR-2"].to_dict() == \
        pytest.approx({"ToolA": 925.0, "ToolB": 925.0})
    assert sniff_format((tmp_path / "ToolA.xml").read_bytes()) == "benchexec"
    status = main(["rank", "--dataset", "satcomp2021-parallel", "--time", "walltime"])
    err = capsys.readouterr().err
    assert status == 2 and "--time goes with a BenchExec FILE" in err
    csv = tmp_path / "runs.csv"
    csv.write_text("algorithm,instance,runtime\na,x,1\n")
    status = main(["rank", str(csv), "--time", "walltime"])
    err = capsys.readouterr().err
    assert status == 2 and "--time picks the measured time of BenchExec results" in err
