"""read_aslib takes the runtime column from the scenario's description.txt, never
by position; a cutoff can lower the stated one but not raise it; a byte-order
mark is harmless. Fixtures follow ASlib's published layout: description.txt
(performance_measures, maximize, performance_type, algorithm_cutoff_time) next
to algorithm_runs.arff (instance_id, repetition, algorithm, measures, runstatus)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from maxent_util.errors import DataError
from maxent_util.io import read_aslib, read_long, read_runs, read_satcomp

STATUSES = "{ok, timeout, memout, not_applicable, crash, other}"


def scenario(folder: Path, description: str | None, attributes: list[tuple[str, str]],
             rows: list[str], *, bom: bool = False) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    if description is not None:
        (folder / "description.txt").write_text(description, encoding="utf-8")
    header = "@RELATION ALGORITHM_RUNS\n\n" + "".join(
        f"@ATTRIBUTE {name} {kind}\n" for name, kind in attributes) + "\n@DATA\n"
    text = header + "\n".join(rows) + "\n"
    path = folder / "algorithm_runs.arff"
    path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + text.encode("utf-8"))
    return path


def description(measures, types, maximize, cutoff="100"):
    def block(name, items):
        return f"{name}:\n" + "".join(f"    - {item}\n" for item in items)
    return ("scenario_id: TEST-2016\n" + block("performance_measures", measures)
            + block("maximize", maximize) + block("performance_type", types)
            + f"algorithm_cutoff_time: {cutoff}\nalgorithm_cutoff_memory: '?'\n"
            "features_cutoff_time: 10\nfeatures_cutoff_memory: '?'\n"
            "number_of_feature_steps: 1\nfeature_steps:\n    basic:\n        provides:\n"
            "            - nvars\n")


# an objective scenario, as CSP-Minizinc-Obj-2016: the first numeric attribute after
# 'algorithm' is the objective, not a runtime
OBJECTIVE_ATTRIBUTES = [("instance_id", "STRING"), ("repetition", "NUMERIC"),
                        ("algorithm", "STRING"), ("objective", "NUMERIC"),
                        ("runstatus", STATUSES)]
OBJECTIVE_ROWS = ["p1,1,chuffed,412,ok", "p1,1,gecode,398,ok",
                  "p2,1,chuffed,77,timeout", "p2,1,gecode,90,ok"]

# a runtime scenario whose runtime is not the first numeric attribute after 'algorithm'
MIXED_ATTRIBUTES = [("instance_id", "STRING"), ("repetition", "NUMERIC"),
                    ("algorithm", "STRING"), ("objective", "NUMERIC"), ("time", "NUMERIC"),
                    ("runstatus", STATUSES)]
MIXED_ROWS = ["p1,1,chuffed,412,3.5,ok", "p1,1,gecode,398,70,ok",
              "p2,1,chuffed,77,?,timeout", "p2,1,gecode,90,12.25,ok"]


def test_runtime_column_comes_from_description(tmp_path):
    path = scenario(tmp_path / "mixed", description(["objective", "time"],
                                                    ["solution_quality", "runtime"],
                                                    ["false", "false"]),
                    MIXED_ATTRIBUTES, MIXED_ROWS)
    runs = read_aslib(path)
    # by hand from the rows: the 'time' attribute, timeouts at the 100 s cutoff
    assert runs["runtime"].tolist() == [3.5, 70.0, 100.0, 12.25]
    assert runs["status"].tolist() == ["solved", "solved", "capped", "solved"]
    assert (runs["cutoff"] == 100.0).all()
    pd.testing.assert_frame_equal(read_runs(path.parent), runs)


def test_objective_scenario_is_refused_unless_named(tmp_path):
    path = scenario(tmp_path / "CSP-Minizinc-Obj-like",
                    description(["objective"], ["solution_quality"], ["false"]),
                    OBJECTIVE_ATTRIBUTES, OBJECTIVE_ROWS)
    with pytest.raises(DataError, match=r"^`performance_type` of `.*description\.txt` must be a "
                                        r"list including 'runtime' \(maxent_util scores "
                                        r"runtimes\); got \['solution_quality'\]\. To score "
                                        r"another measure .* performance= \(one of "
                                        r"\['repetition', 'objective'\]\)\.$"):
        read_aslib(path)
    with pytest.raises(DataError, match=r"^`performance_type` of"):
        read_runs(path.parent)
    # named explicitly, the column is read as asked, and the stated 100 s time limit does not
    # cap objective values (by hand: 412 stays 412)
    runs = read_aslib(path, performance="objective")
    assert runs["runtime"].tolist() == [412.0, 398.0, 77.0, 90.0]
    assert "cutoff" not in runs.columns
    runs = read_aslib(path, performance="objective", cutoff=400)
    assert runs["runtime"].tolist() == [400.0, 398.0, 77.0, 90.0]
    assert runs["status"].tolist() == ["capped", "solved", "capped", "solved"]


@pytest.mark.parametrize("text, message", [
    (description(["time"], ["runtime"], ["false"]),
     r"`performance_measures` of `.*description\.txt` must be a list naming a numeric attribute "
     r"of .*, one of \['repetition', 'objective'\]; got \['time'\]"),
    (description(["objective"], ["runtime"], ["true"]),
     r"`maximize` of `.*description\.txt` must be false for the runtime measure 'objective'; "
     r"got \['true'\]"),
    (description(["objective", "objective"], ["runtime", "runtime"], ["false", "false"]),
     r"`performance_type` of `.*description\.txt` must be a list with one 'runtime' measure"),
    (description(["objective"], [], ["false"]),
     r"`performance_type` of `.*description\.txt` must be a list with one type per performance "
     r"measure \['objective'\]; got \[\]"),
])
def test_description_that_does_not_name_one_runtime(tmp_path, text, message):
    path = scenario(tmp_path / "s", text, OBJECTIVE_ATTRIBUTES, OBJECTIVE_ROWS)
    with pytest.raises(DataError, match=message):
        read_aslib(path)


def test_inline_lists_and_quoted_values(tmp_path):
    text = ("performance_measures: [objective, 'time']\nmaximize: [false, false]\n"
            "performance_type: [solution_quality, runtime]\nalgorithm_cutoff_time: '50'\n")
    path = scenario(tmp_path / "inline", text, MIXED_ATTRIBUTES, MIXED_ROWS)
    # by hand: the 70 s run is past the 50 s cutoff
    assert read_aslib(path)["runtime"].tolist() == [3.5, 50.0, 50.0, 12.25]


def test_bare_arff_needs_a_runtime_attribute(tmp_path):
    path = scenario(tmp_path / "bare", None, OBJECTIVE_ATTRIBUTES, OBJECTIVE_ROWS)
    with pytest.raises(DataError, match=r"must be a list including one numeric 'runtime' "
                                        r"attribute"):
        read_aslib(path, cutoff=1000)
    renamed = [(name if name != "objective" else "Runtime", kind)
               for name, kind in OBJECTIVE_ATTRIBUTES]
    path = scenario(tmp_path / "named", None, renamed, OBJECTIVE_ROWS)
    # by hand: the timeout stops at min(recorded 77, cutoff)
    assert read_aslib(path, cutoff=1000)["runtime"].tolist() == [412.0, 398.0, 77.0, 90.0]


def test_cutoff_may_lower_but_not_raise_the_stated_one(tmp_path):
    path = scenario(tmp_path / "s", description(["time"], ["runtime"], ["false"]),
                    MIXED_ATTRIBUTES, MIXED_ROWS)
    with pytest.raises(DataError, match=r"^`cutoff` of `read_aslib` must be at most the "
                                        r"scenario's algorithm_cutoff_time 100\.0 \(.*description"
                                        r"\.txt\), since its runs were stopped there; got 150\. "
                                        r"A cutoff can be lowered"):
        read_aslib(path, cutoff=150)
    assert read_aslib(path, cutoff=100).equals(read_aslib(path))
    # lowered: the 70 s run is re-capped at 60 s (by hand)
    assert read_aslib(path, cutoff=60)["runtime"].tolist() == [3.5, 60.0, 60.0, 12.25]


def test_byte_order_mark_is_harmless(tmp_path):
    text = description(["time"], ["runtime"], ["false"])
    plain = scenario(tmp_path / "plain", text, MIXED_ATTRIBUTES, MIXED_ROWS)
    marked = scenario(tmp_path / "marked", text, MIXED_ATTRIBUTES, MIXED_ROWS, bom=True)
    assert marked.read_bytes().startswith(b"\xef\xbb\xbf")
    pd.testing.assert_frame_equal(read_aslib(marked), read_aslib(plain))
    pd.testing.assert_frame_equal(read_runs(marked), read_aslib(plain))
    # as for a CSV with one
    csv = tmp_path / "long.csv"
    csv.write_bytes(b"\xef\xbb\xbfalgorithm,instance,runtime\na,i,1.5\n")
    assert read_long(csv)["runtime"].tolist() == [1.5]
    # and a description.txt with one
    (tmp_path / "marked" / "description.txt").write_bytes(b"\xef\xbb\xbf" + text.encode())
    pd.testing.assert_frame_equal(read_aslib(marked), read_aslib(plain))


@pytest.mark.parametrize("reader", [read_runs, read_long, read_satcomp, read_aslib])
@pytest.mark.parametrize("path", [None, 3, b"runs.csv"])
def test_a_path_that_is_not_a_path(reader, path):
    with pytest.raises(DataError, match=rf"^`path` of `{reader.__name__}` must be a file path "
                                        rf"\(str or os\.PathLike\); got {path!r}\.$"):
        reader(path)


@pytest.mark.parametrize("text, line, shown", [
    ("this is not yaml\n", 1, "'this is not yaml'"),
    ("scenario_id: X\nperformance_measures runtime\n", 2, "'performance_measures runtime'"),
    ("scenario_id: X\n: runtime\n", 2, "': runtime'"),
    ("algorithm_cutoff_time:100\n", 1, "'algorithm_cutoff_time:100'"),
])
def test_a_description_that_is_not_key_value_is_malformed_naming_the_line(tmp_path, text, line,
                                                                          shown):
    # read as a key, such a line left the fields missing, and the error said they were
    path = scenario(tmp_path, text, MIXED_ATTRIBUTES, MIXED_ROWS)
    with pytest.raises(DataError, match=rf"^`line {line}` of `.*description.txt` must be a "
                                        rf"'key: value' line \(description.txt is YAML\); got "
                                        rf"{shown}\."):
        read_aslib(path)


def test_yaml_document_markers_are_harmless(tmp_path):
    text = "---\n" + description(["time"], ["runtime"], ["false"]) + "...\n"
    frame = read_aslib(scenario(tmp_path, text, MIXED_ATTRIBUTES, MIXED_ROWS))
    assert frame["runtime"].max() <= 100
