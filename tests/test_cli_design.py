"""``maxent-util design``: the interview through a pseudo-terminal (typed answers, wrong ones
included), --answers files, and the design document read back by the commands as
``--utility @FILE``."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from conftest import assert_usage_error, checkout_env, run

from maxent_util import from_json
from maxent_util.designer import design

pexpect = pytest.importorskip("pexpect")

PIECEWISE = {"captime": "facts", "longest": "1h", "median": "10 min", "value": "constant"}


def spawn(folder: Path, *arguments: str):
    child = pexpect.spawn(sys.executable, ["-m", "maxent_util", "design", *arguments], cwd=str(folder),
                          env=checkout_env(MPLBACKEND="Agg"), encoding="utf-8", timeout=60,
                          dimensions=(200, 200))
    # each answer is sent after its prompt is read: pexpect's 50 ms pause before every send
    # (for programs that read before they show a prompt) only slows the tests
    child.delaybeforesend = None
    return child


def answer(child, expected: str, text: str) -> None:
    child.expect_exact(expected)
    child.sendline(text)


def test_the_interview_explains_wrong_answers_and_asks_again(tmp_path):
    child = spawn(tmp_path, "--no-plot")
    answer(child, "Do you know the captime", "perhaps")
    child.expect_exact("Answer with one of 'known', 'distribution', 'facts', or its number 1 to 3. "
                       "Please answer again.")
    answer(child, "  > ", "3")
    answer(child, "The longest you would ever wait", "a while")
    child.expect_exact("'a while' is not a duration")
    answer(child, "(Enter to skip) > ", "1h")
    child.expect_exact("you would never wait longer than 1h  ->  κ ∈ [0, 3600 s (1 h)]")
    answer(child, "The shortest time you always give it", "")
    answer(child, "A typical wait", "")
    answer(child, "Half the time I would stop before", "2h")
    child.expect_exact("You said half the time you would stop before 2h, but you would never wait "
                       "longer than 1h: by then you would always have stopped. Please answer again.")
    answer(child, "(Enter to skip) > ", "10 min")
    child.expect_exact("P(κ < 600 s (10 min)) = 1/2")
    for question in ("Only the order of magnitude", "How sure are you", "One time in N"):
        answer(child, question, "")
    answer(child, "Is a solution worth the same", "1")
    child.expect_exact("Spec: piecewise(3600, 600, 1/2)")
    child.expect_exact("wrote design.json")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    written = from_json((tmp_path / "design.json").read_text(encoding="utf-8"))
    assert written.name == "piecewise(3600, 600, 1/2)"
    assert float(written(1200.0)) == float(design(PIECEWISE).utility(1200.0))


def test_the_interview_ends_with_one_line_at_the_end_of_input(tmp_path):
    child = spawn(tmp_path, "--no-plot")
    answer(child, "Do you know the captime", "3")
    child.expect_exact("The longest you would ever wait")
    child.sendeof()
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 2
    assert "maxent-util: error: the interview ended before every question was answered" in child.before
    assert not (tmp_path / "design.json").exists()


def test_answers_from_toml_and_json_give_what_design_gives(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.toml").write_text('captime = "facts"\nlongest = "1h"\nmedian = "10 min"\n'
                                     'value = "constant"\n', encoding="utf-8")
    (tmp_path / "b.json").write_text(json.dumps(PIECEWISE), encoding="utf-8")
    expected = design(PIECEWISE)
    for name, target in (("a.toml", "a.json"), ("b.json", "b-design.json")):
        status, out, err = run(capsys, "design", "--answers", name, "--json", target, "--no-plot")
        assert status == 0, err
        assert "half the time you would stop before 10min  ->  P(κ < 600 s (10 min)) = 1/2" in out
        assert "A run of 30min is worth 0.30 of an instant one." in out
        document = json.loads((tmp_path / target).read_text(encoding="utf-8"))
        assert document["design"] == json.loads(expected.to_json())["design"]


def test_a_conflict_in_an_answers_file_is_one_line(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.toml").write_text('captime = "facts"\nlongest = "1h"\ntypical = "2h"\n'
                                     'value = "constant"\n', encoding="utf-8")
    status, out, err = run(capsys, "design", "--answers", "a.toml", "--no-plot")
    assert_usage_error(status, out, err, "A typical wait of 2h cannot exceed the longest wait of 1h.")
    assert not (tmp_path / "design.json").exists()


@pytest.mark.parametrize("name, content, message", [
    ("a.yaml", "captime: facts", "must be a .toml or .json file"),
    ("a.toml", "captime = ", "is not valid UTF-8 TOML"),
    ("a.json", "[1, 2]", "must hold a table of answers"),
    ("a.json", '{"longest": NaN}', "is not valid UTF-8 JSON"),
    ("a.toml", "#" * ((1 << 20) + 1), "'a.toml' has more than 1048576 bytes; an answers file has at most"),
    ("missing.toml", None, "`path` of `maxent-util --answers` must be an existing, readable file; "
                           "got 'missing.toml'"),
])
def test_bad_answers_files_are_refused(capsys, tmp_path, monkeypatch, name, content, message):
    monkeypatch.chdir(tmp_path)
    if content is not None:
        (tmp_path / name).write_text(content, encoding="utf-8")
    status, out, err = run(capsys, "design", "--answers", name, "--no-plot")
    assert_usage_error(status, out, err, message)


def test_an_existing_design_file_is_kept_before_any_question(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "design.json").write_text("mine", encoding="utf-8")
    status, out, err = run(capsys, "design", "--no-plot")
    assert_usage_error(status, out, err, "'design.json' already exists; pass --force")
    assert out == "" and (tmp_path / "design.json").read_text(encoding="utf-8") == "mine"


def test_the_plot_is_written_beside_the_json(capsys, tmp_path, monkeypatch):
    pytest.importorskip("matplotlib")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.json").write_text(json.dumps(PIECEWISE), encoding="utf-8")
    status, out, err = run(capsys, "design", "--answers", "a.json", "--plot", "u.png")
    assert status == 0, err
    assert "wrote u.png" in out and (tmp_path / "u.png").read_bytes()[:4] == b"\x89PNG"


# ---------------------------------------------------------------------------
# --utility @FILE: the design document where a spec goes

@pytest.fixture
def design_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    design(PIECEWISE).write_json(tmp_path / "design.json")
    (tmp_path / "runs.csv").write_text("algorithm,instance,runtime,status,cutoff\n"
                                       "a,x,300,solved,3600\na,y,3600,timeout,3600\n"
                                       "b,x,1200,solved,3600\nb,y,900,solved,3600\n", encoding="utf-8")
    return tmp_path / "design.json"


def test_rank_reads_the_design_as_its_utility(capsys, design_file):
    status, out, err = run(capsys, "rank", "runs.csv", "--utility", "@design.json", "--json")
    assert status == 0, err
    by_file = {r["algorithm"]: r["piecewise(3600, 600, 1/2)"] for r in json.loads(out)}
    status, out, _ = run(capsys, "rank", "runs.csv", "--utility", "piecewise(3600, 600, 1/2)", "--json")
    by_spec = {r["algorithm"]: r["piecewise(3600, 600, 1/2)"] for r in json.loads(out)}
    assert by_file == by_spec
    # by hand (Section 3's piecewise utility): a: u(300) = 1 - 300/1200 = 3/4 and a capped run is
    # worth 0; b: u(1200) = (1/2)(3600 - 1200)/3000 = 2/5, u(900) = (1/2)(2700/3000) = 9/20
    assert by_file == {"a": pytest.approx(0.375), "b": pytest.approx(0.425)}


def test_export_and_plan_read_the_design(capsys, design_file):
    status, out, err = run(capsys, "export", "--utility", "@design.json", "--python", "u.py")
    assert status == 0, err
    namespace: dict = {}
    exec((design_file.parent / "u.py").read_text(encoding="utf-8"), namespace)
    assert namespace["utility"](1200.0) == pytest.approx(0.4)
    status, out, err = run(capsys, "plan", "--utility", "@design.json", "--epsilon", "0.1",
                           "--delta", "0.05")
    assert status == 0, err


@pytest.mark.parametrize("spec, message", [
    ("@missing.json", "`path` of `maxent-util --utility` must be an existing, readable file; got "
                      "'missing.json'"),
    ("@.", "`path` of `maxent-util --utility` must be a regular file; got '.'. It is a folder"),
    ("@runs.csv", "`text` of `from_json` must be valid JSON"),
])
def test_a_utility_file_that_is_not_one_is_one_line(capsys, design_file, spec, message):
    status, out, err = run(capsys, "export", "--utility", spec, "--python", "u.py")
    assert_usage_error(status, out, err, message)


def test_a_law_document_gives_its_utility(capsys, design_file):
    from maxent_util import parse_family, to_json

    (design_file.parent / "law.json").write_text(to_json(parse_family("uniform(3600)")), encoding="utf-8")
    status, out, err = run(capsys, "rank", "runs.csv", "--utility", "@law.json", "--json")
    assert status == 0, err
    # by hand: a: (1 - 300/3600 + 0)/2, b: (2/3 + 3/4)/2
    scores = {r["algorithm"]: r["uniform(3600)"] for r in json.loads(out)}
    assert scores == {"a": pytest.approx(11 / 24), "b": pytest.approx(17 / 24)}


def test_race_reads_the_design(capsys, design_file):
    status, out, err = run(capsys, "race", "runs.csv", "--utility", "@design.json", "--delta", "0.2",
                           "--json")
    assert status == 0, err
    assert json.loads(out)["utility"] == "@design.json"
