"""``maxent-util site``: a competition's published files as a folder of pages that link only to
each other, load nothing, escape every name, and are not overwritten unless asked.

The fixtures are small tracks in the published layouts of tests/test_io_published.py: the 2023
zip of detailed results (the main and parallel tracks, and bench_meta.csv, which is no results
table), 2024's detailed_main.csv with a solver named to break out of the markup, and a long CSV
whose file name is markup too. The site is built once for the module, through the command line.
"""

from __future__ import annotations

import re
import shutil
import zipfile
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from maxent_util.cli import main
from maxent_util.errors import DataError, ExportError
from maxent_util.ranking import PAR
from maxent_util.site import read_tracks, write_site

from conftest import CHROMIUM
from conftest import CHROMIUM_ARGS as ARGS
from test_io_published import FIXTURES

# a solver and a file named to end an attribute or a block and run a script, if anything let them
SOLVER = "<img src=x onerror=alert(1)>"
FILE = "<b onclick=alert(2)>x.csv"  # (a file name holds no /)
RULES = ["--utility", "pareto(5, 1)", "--par", "2"]


def sources(folder: Path) -> list[str]:
    archive = folder / "sc2023-detailed-results.zip"
    with zipfile.ZipFile(archive, "w") as zipped:
        zipped.writestr("results_main_detailed.csv", FIXTURES["2023-main"][0])
        zipped.writestr("results_parallel_detailed.csv", FIXTURES["2023-parallel"][0])
        zipped.writestr("bench_meta.csv", "hash,author,family\n"
                        "004b0f451f7d96f6a572e9e76360f51a,chowdhury,crypto\n")
    later = folder / "2024"
    later.mkdir()
    (later / "detailed_main.csv").write_text(FIXTURES["2024-main"][0].replace("IsaSAT", SOLVER))
    (later / FILE).write_text("algorithm,instance,runtime,status,cutoff\n"
                              "a,i1,1.5,solved,100\nb,i1,100,capped,100\n"
                              "a,i2,7,solved,100\nb,i2,3,solved,100\n")
    return [str(archive), str(later)]


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("published")
    target = folder / "site"
    status = main(["site", *sources(folder), "-o", str(target), "--resamples", "200", *RULES])
    assert status == 0
    return target


class Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if name in ("href", "src", "action", "xlink:href", "poster", "data") and value:
                self.links.append(value)
            if name == "id":
                self.ids.add(value)


def parsed(path: Path) -> Links:
    parser = Links()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser


def test_every_link_resolves_to_a_page_of_the_site(site):
    pages = sorted(site.iterdir())
    names = [page.name for page in pages]
    assert "index.html" in names and "solvers.html" in names
    assert sum(name.startswith("track-") for name in names) == 4  # the meta file left out
    ids = {page.name: parsed(page).ids for page in pages}
    followed = 0
    for page in pages:
        for link in parsed(page).links:
            parts = urlsplit(link)
            assert not parts.scheme and not parts.netloc, (page.name, link)  # nothing external
            target = unquote(parts.path) or page.name
            assert target in ids, (page.name, link)  # a file of the site, no folder
            if parts.fragment:
                assert parts.fragment in ids[target], (page.name, link)
            followed += 1
    # each track page links back, the index and the solvers' page link to every track
    assert followed > 4 * 2 + 2 * 4


def test_index_names_years_tracks_rules_and_files(site):
    text = (site / "index.html").read_text(encoding="utf-8")
    for shown in ("SAT Competition 2023, main track", "SAT Competition 2023, parallel track",
                  "SAT Competition 2024, main track", "results_main_detailed.csv",
                  "bench_meta.csv", "not a results table", "pareto(5, 1)", "PAR-2", "<math"):
        assert shown in text, shown
    assert re.search(r"<h3>2023</h3>.*<h3>2024</h3>", text, re.S)
    assert "<title>SAT Competition 2023 to 2024</title>" in text
    # no folder of this machine on any page
    for page in site.iterdir():
        assert str(site.parent) not in page.read_text(encoding="utf-8"), page.name


def test_solvers_page_follows_a_solver_across_tracks(site):
    text = (site / "solvers.html").read_text(encoding="utf-8")
    # kissat-sc2024 ran in 2024's main track only, under each of the two rules
    assert text.count('<th scope="row">kissat-sc2024</th>') == 2  # one row per rule
    row = re.search(r'<th scope="row">gimsatul</th>(.*?)</tr>', text).group(1)
    # in the 2023 parallel track only: a rank and an interval there, a dash elsewhere
    assert row.count("–") == 3 and row.count("[") == 1


def test_every_name_is_escaped(site):
    for page in site.iterdir():
        text = page.read_text(encoding="utf-8")
        assert SOLVER not in text and FILE not in text, page.name
        assert "alert(1)" not in text or "&lt;img src=x onerror=alert(1)&gt;" in text
    assert "&lt;img src=x onerror=alert(1)&gt;" in (site / "solvers.html").read_text("utf-8")
    assert "&lt;b onclick=alert(2)&gt;x.csv" in (site / "index.html").read_text("utf-8")


def test_nothing_is_overwritten_unless_forced(site, tmp_path, capsys):
    tracks, _ = read_tracks([str(site.parent / "sc2023-detailed-results.zip")])
    before = {page.name: page.read_bytes() for page in site.iterdir()}
    with pytest.raises(ExportError, match="does not exist yet"):
        write_site(tracks, site, rules=[PAR(2)], ci=None)
    assert {page.name: page.read_bytes() for page in site.iterdir()} == before
    copy = tmp_path / "copy"
    shutil.copytree(site, copy)
    written = write_site(tracks, copy, rules=[PAR(2)], ci=None, overwrite=True, explore=False,
                         date="fixed")
    assert [path.name for path in written][:2] == ["index.html", "solvers.html"]
    assert not [p for p in copy.iterdir() if p.name.startswith(".")]  # no temporary left
    status = main(["site", str(site.parent / "sc2023-detailed-results.zip"), "-o", str(site),
                   "--par", "2"])
    assert status != 0 and "pass --force" in capsys.readouterr().err


def test_a_named_file_that_is_no_results_table_is_refused(tmp_path):
    meta = tmp_path / "meta.csv"
    meta.write_text("hash,author\n004b,chowdhury\n")
    with pytest.raises(DataError, match="not a results table"):
        read_tracks([str(meta)])
    with pytest.raises(DataError, match="sources"):
        read_tracks([])


@pytest.mark.skipif(not Path(CHROMIUM).is_file(), reason="no chromium at /usr/bin/chromium")
def test_pages_load_in_chromium_with_no_error_and_no_request(site):
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            for page in sorted(site.iterdir()):
                tab = browser.new_page()
                messages, requested, dialogs = [], [], []
                tab.on("console", lambda message: messages.append(message.text))
                tab.on("request", lambda request: requested.append(request.url))
                tab.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
                tab.goto(page.resolve().as_uri())
                assert tab.title() and messages == [] and dialogs == [], page.name
                assert requested == [page.resolve().as_uri()], page.name  # the page itself only
                tab.close()
        finally:
            browser.close()


def test_a_cutoff_goes_to_the_readers_that_take_it_and_caps_the_other_formats(tmp_path):
    """``site --cutoff`` on a long CSV was refused ("options of read_long (none); got
    'cutoff'"): the long reader takes no cutoff, so its runs are capped once read, as
    ``rank --cutoff`` does. Expected by hand: a run of 900 s at a cutoff of 600 s is capped."""
    path = tmp_path / "runs.csv"
    path.write_text("algorithm,instance,runtime,status,cutoff\n"
                    "a,i,900,solved,1000\na,j,20,solved,1000\nb,i,30,solved,1000\nb,j,40,solved,1000\n")
    tracks, _ = read_tracks([path], cutoff=600)
    table = tracks[0].table.set_index(["algorithm", "instance"])
    assert table.loc[("a", "i"), "status"] == "capped" and table.loc[("a", "i"), "runtime"] >= 600
    assert (table["cutoff"] == 600).all()
    assert table.loc[("a", "j"), "status"] == "solved" and table.loc[("a", "j"), "runtime"] == 20
    status = main(["site", str(path), "--cutoff", "600", "-o", str(tmp_path / "site")])
    assert status == 0 and (tmp_path / "site" / "index.html").is_file()
