"""The documentation site: it builds with warnings as errors, covers every
constraint kind, module and subcommand, and its Python examples run."""

from __future__ import annotations

import argparse
import fcntl
import importlib.util
import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, checkout_env

import maxent_util
from maxent_util.constraints import constraint_kinds

DOCS = ROOT / "docs"

# Modules whose API page the site must carry (each skipped while it does not exist).
API_MODULES = ["maxent", "problem", "scorer", "distribution", "families", "utility", "runs", "estimate", "ranking",
               "bootstrap", "fitting", "comparison", "sweeps", "racing", "space", "sampling", "io",
               "datasets", "errors", "export", "plots", "report", "designer"]


def _module_exists(name: str) -> bool:
    return importlib.util.find_spec(f"maxent_util.{name}") is not None


def _build_site_once(folder: Path) -> tuple[int, str]:
    """Build the site into ``folder/site`` unless a build there is recorded; (status, log).

    Test processes started together (pytest-xdist workers) share ``folder`` and take turns
    at its lock: the first builds, the others read the record of that build, so a run
    builds the site once whatever the number of workers.
    """
    record = folder / "build.json"
    with open(folder / "build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not record.exists():
            env = checkout_env()
            result = subprocess.run(
                [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(folder / "site")],
                cwd=ROOT, capture_output=True, text=True, env=env, timeout=180)
            record.write_text(json.dumps({"status": result.returncode, "log": result.stdout + result.stderr}))
    built = json.loads(record.read_text())
    return built["status"], built["log"]


@pytest.fixture(scope="session")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("mkdocs")
    pytest.importorskip("mkdocstrings_handlers.python")
    if os.environ.get("PYTEST_XDIST_WORKER"):
        # the workers' temporary folders share a parent that is new for each run
        folder = tmp_path_factory.getbasetemp().parent / "docs-site"
        folder.mkdir(exist_ok=True)
    else:
        folder = tmp_path_factory.mktemp("docs-site")
    status, log = _build_site_once(folder)
    assert status == 0, log
    # --strict turns warnings into a failure; also refuse any that slip through as text
    assert "WARNING" not in log, log
    return folder / "site"


def test_site_builds_strict(site: Path) -> None:
    for page in ["index.html", "getting-started/index.html", "idea/index.html",
                 "constraints/index.html", "cli/index.html", "recipes/organiser/index.html",
                 "recipes/configurator/index.html", "recipes/uncertainty/index.html",
                 "api/index.html"]:
        assert (site / page).is_file(), page


def test_no_raw_sphinx_markup_reaches_the_site(site: Path) -> None:
    # numpydoc docstrings use Sphinx roles and math blocks; the site's hook
    # (docs/_hooks/sphinx_roles.py) renders them, so none may show as text.
    leftover = re.compile(r":(?:math|func|class|meth|attr|data|mod|exc|obj):[<`]|\.\. math::")
    for page in site.rglob("*.html"):
        found = leftover.search(page.read_text())
        assert found is None, f"{page.relative_to(site)}: {found.group(0)!r}"


def test_mkdocstrings_reads_numpy_docstrings() -> None:
    config = (ROOT / "mkdocs.yml").read_text()
    assert re.search(r"docstring_style:\s*numpy", config)


def _documented_objects(page: str) -> set[str]:
    return set(re.findall(r"^::: ([\w.]+)\s*$", (DOCS / page).read_text(), re.M))


def _missing_kinds() -> list[str]:
    documented = _documented_objects("constraints.md")
    return sorted(name for name, kind in constraint_kinds().items()
                  if f"{kind.__module__}.{kind.__qualname__}" not in documented)


def test_every_constraint_kind_is_documented() -> None:
    assert constraint_kinds(), "no registered constraint kinds"
    missing = _missing_kinds()
    assert not missing, f"constraint kinds missing from docs/constraints.md: {missing}"


def test_every_constraint_kind_is_rendered(site: Path) -> None:
    html = (site / "constraints" / "index.html").read_text()
    text = re.sub(r"<[^>]+>", " ", html)
    for name, kind in constraint_kinds().items():
        # mkdocstrings anchors each object at its dotted path
        assert f'id="{kind.__module__}.{kind.__qualname__}"' in html, name
        # and the words of the docstring's first line reach the page
        first_line = (kind.__doc__ or "").strip().splitlines()[0]
        words = re.findall(r"[A-Za-z]{5,}", first_line)
        assert words and all(word in text for word in words), name


def test_a_new_constraint_kind_would_be_reported() -> None:
    # The check above compares against the live registry: a subclass defined
    # now registers itself and must show up as missing.
    class Unwritten(maxent_util.Moment):
        argument_names = ("value",)
        option_names = ()

    try:
        assert _missing_kinds() == ["Unwritten"]
    finally:
        from maxent_util import constraints
        constraints._registry.pop("Unwritten", None)


@pytest.mark.parametrize("module", API_MODULES)
def test_api_page_per_module(module: str) -> None:
    if not _module_exists(module):
        pytest.skip(f"maxent_util.{module} does not exist yet")
    page = DOCS / "api" / f"{module}.md"
    assert page.is_file(), page
    assert re.search(rf"^::: maxent_util\.{module}\s*$", page.read_text(), re.M)
    assert f"api/{module}.md" in (ROOT / "mkdocs.yml").read_text()


def _cli_parser():
    if not _module_exists("cli"):
        pytest.skip("maxent_util.cli does not exist yet")
    from maxent_util.cli import build_parser

    return build_parser()


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def test_cli_page_covers_every_subcommand() -> None:
    parser_commands = set(_subcommands(_cli_parser()))
    assert parser_commands, "the parser has no subcommands"
    page = (DOCS / "cli.md").read_text()
    documented = set(re.findall(r"^## `maxent-util ([\w-]+)`", page, re.M))
    with_help = set(re.findall(r"^<!-- maxent-util-help: ([\w-]+) -->$", page, re.M))
    assert parser_commands - documented == set(), "subcommands missing from docs/cli.md"
    assert documented - parser_commands == set(), "docs/cli.md documents unknown subcommands"
    assert parser_commands <= with_help, "a subcommand section lacks its --help marker"


def test_cli_page_shows_the_parsers_help(site: Path) -> None:
    parser = _cli_parser()
    html = (site / "cli" / "index.html").read_text()
    for name, subparser in _subcommands(parser).items():
        # the usage line is the parser's own, whatever the wrapping
        assert f"usage: maxent-util {name}" in html, name
        for action in subparser._actions:
            for flag in action.option_strings:
                if flag.startswith("--"):
                    assert flag in html, f"{name} {flag}"


def _command_examples() -> list[tuple[str, str]]:
    examples = []
    for page in sorted(DOCS.rglob("*.md")):
        for block in re.findall(r"```bash\n(.*?)```", page.read_text(), re.S):
            for line in block.replace("\\\n", " ").splitlines():
                if line.startswith("maxent-util "):
                    examples.append((page.relative_to(DOCS).as_posix(), line))
    return examples


def test_command_examples_parse() -> None:
    # Every `maxent-util ...` line in the docs is accepted by the parser.
    parser = _cli_parser()
    examples = _command_examples()
    assert len(examples) > 10
    for page, line in examples:
        try:
            parser.parse_args(shlex.split(line)[1:])
        except (SystemExit, Exception) as exc:  # the CLI's parser raises its own error class
            pytest.fail(f"{page}: `{line}` does not parse: {exc}")


# The Python (and shell) blocks of every page run in tests/test_docs_blocks.py.
