"""A static site of a competition: every track's report, an index, and each solver followed.

:func:`read_tracks` reads a competition's published files as they are published:
files, ``FILE.zip:MEMBER``, zip archives of several tracks (each CSV member a
track) and folders of them (every results file inside, sorted by path); a file
found inside an archive or a folder that is not a results table (a benchmark's
metadata, a summary) is left out and listed on the index with the reason.
:func:`site_pages` makes the pages and :func:`write_site` writes them:

- ``index.html``: the years and their tracks, the rules with their formulas,
  and the data's provenance (each file, member, size, sha256 and format);
- one page per track: the report of :func:`maxent_util.report.report_html`,
  under the same rules as every other page;
- ``solvers.html``: each solver followed across the tracks and years under
  each rule: its rank and score, with the paired bootstrap interval.

Every page is self-contained as the report is: no script but the report's
explorer (allowed by its hash), the report's Content-Security-Policy, nothing
loaded from anywhere; links join the site's own files only, and every text from
data (solver, file and track names) is escaped.
"""

from __future__ import annotations

import datetime
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd

from . import report
from ._output import file_group, writable, write
from ._version import __version__
from .errors import DataError, ExportError, MaxEntError, argument_message, short
from .io import guess_format, read_runs
from .io.limits import split_member, zip_members
from .ranking import rank
from .runs import cap_runs

__all__ = ["Skipped", "Track", "page_names", "read_tracks", "site_pages", "write_site"]

# the files of a published folder or zip that may be results tables
_RESULT_SUFFIXES = (".csv", ".csv.gz", ".csv.bz2", ".csv.xz", ".arff")
# a year in a title or a file's name
_YEAR = re.compile(r"(?<![0-9])(19[89][0-9]|20[0-9][0-9])(?![0-9])")


@dataclass(frozen=True)
class Track:
    """One track of a competition, read from a published file.

    Attributes
    ----------
    table : pandas.DataFrame
        Its runs, as :func:`maxent_util.read_runs` reads them.
    source : str
        The file as given (``FILE``, ``FILE.zip:MEMBER`` or a file of a folder).
    name : str
        The file as the pages name it: no folder of this machine.
    title : str
        The track's title: the competition and track the reader found in the
        file's name or content ("SAT Competition 2023, main track"), else its name.
    year : str or None
        The year the title or the file's name says, if any.
    format : str
        The format it was read in.
    """

    table: pd.DataFrame
    source: str
    name: str
    title: str
    year: str | None
    format: str


@dataclass(frozen=True)
class Skipped:
    """A file of a folder or an archive that was not read as a track, and why."""

    name: str
    reason: str


def _shown_name(source: str, base: Path | None) -> str:
    split = split_member(source)
    if split is not None:
        return f"{Path(split[0]).name}:{split[1]}"
    if base is not None:
        try:
            return Path(source).relative_to(base).as_posix()
        except ValueError:
            pass
    return Path(source).name


def _candidates(source: Any, owner: str) -> list[tuple[str, str, bool]]:
    """(path to read, its shown name, whether it was named itself) for one source."""
    try:
        text = os.fspath(source)
    except TypeError:
        raise DataError(argument_message("sources", owner, "file or folder paths",
                                         short(source))) from None
    if not isinstance(text, str) or "\x00" in text:
        raise DataError(argument_message("sources", owner, "file or folder paths", short(source)))
    if split_member(text) is not None:
        return [(text, _shown_name(text, None), True)]
    path = Path(text)
    if path.is_dir():
        if (path / "algorithm_runs.arff").is_file():  # an ASlib scenario: one track
            return [(text, path.name, True)]
        found = []
        for inner in sorted(path.rglob("*")):
            if inner.name.startswith(".") or not inner.is_file():
                continue
            shown = inner.relative_to(path).as_posix()
            if inner.name.lower().endswith(".zip"):
                found += [(member, f"{shown}:{member.split(':', 1)[1]}", False)
                          for member in _members(str(inner), owner)]
            elif inner.name.lower().endswith(_RESULT_SUFFIXES):
                found.append((str(inner), shown, False))
        if not found:
            raise DataError(argument_message("sources", owner, "a folder holding results files "
                                             f"({', '.join(_RESULT_SUFFIXES)}, .zip)", path.name))
        return found
    if path.is_file() and text.lower().endswith(".zip"):
        members = _members(text, owner)
        if len(members) == 1:
            return [(members[0], _shown_name(members[0], None), True)]
        return [(member, _shown_name(member, None), False) for member in members]
    return [(text, path.name, True)]


def _members(path: str, owner: str) -> list[str]:
    """The members of a zip that may be results tables, each as ``path:member``."""
    return [f"{path}:{member}" for member in zip_members(path, owner)
            if member.lower().endswith(_RESULT_SUFFIXES)]


def _year(*texts: str) -> str | None:
    for text in texts:
        found = _YEAR.findall(text)
        if found:
            return found[-1]
    return None


#: the readers that take a cutoff for a file that states none; the other formats' runs are
#: capped at it once read (as ``rank --cutoff`` does)
_READ_WITH_CUTOFF = ("satcomp", "aslib", "benchexec")


def read_tracks(sources: Sequence[str | os.PathLike], *, format: str | None = None,
                cutoff: float | None = None, **options: Any) -> tuple[list[Track], list[Skipped]]:
    """The tracks of a competition from its published files.

    Parameters
    ----------
    sources : sequence of str or os.PathLike
        Files (``FILE.zip:MEMBER`` names one member of an archive), zip
        archives (each CSV member a track) and folders (every results file
        and zip inside, by path).
    format : str, optional, keyword-only
        The format of every file, as in :func:`maxent_util.read_runs`;
        default: told from each file's content.
    cutoff : float, optional, keyword-only
        Seconds at which every run is treated as stopped: given to the readers
        that take it (a SAT Competition file that states no limit), and the
        runs of other formats capped there once read.
    **options
        Further keywords of :func:`maxent_util.read_runs`.

    Returns
    -------
    tracks : list of Track
        In the order given, each folder's and archive's files by name.
    skipped : list of Skipped
        The files of folders and archives that are not results tables.

    Raises
    ------
    DataError
        If a file named itself cannot be read (as :func:`maxent_util.read_runs`
        says), a folder holds no results file, or no track is found.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "runs.csv").write_text(
    ...     "algorithm,instance,runtime,status,cutoff\\na,i,1.5,solved,10\\nb,i,10,capped,10\\n")
    >>> tracks, skipped = read_tracks([folder])
    >>> [(track.name, track.title, len(track.table)) for track in tracks], skipped
    ([('runs.csv', 'runs.csv', 2)], [])
    """
    owner = "read_tracks"
    if isinstance(sources, (str, os.PathLike)) or not isinstance(sources, Sequence) \
            or not sources:
        raise DataError(argument_message("sources", owner, "a non-empty list of file or folder "
                                         "paths", short(sources)))
    tracks: list[Track] = []
    skipped: list[Skipped] = []
    for source in sources:
        for path, shown, named in _candidates(source, owner):
            kind = format or _format_of(path)  # sniffed once: for the cutoff and the page
            try:
                given = {"cutoff": cutoff} if cutoff is not None and kind in _READ_WITH_CUTOFF else {}
                table = read_runs(path, format=format, **given, **options)
                if cutoff is not None and not given:
                    table = cap_runs(table, cutoff, arg="cutoff", owner=owner)
            except DataError as error:
                if named:
                    raise
                # the message names the file as the page does: no folder of this machine
                skipped.append(Skipped(shown, str(error).replace(path, shown)))
                continue
            track = table.attrs.get("track")
            title = track if isinstance(track, str) and track else shown
            tracks.append(Track(table=table, source=path, name=shown, title=title,
                                year=_year(title, shown), format=kind))
    if not tracks:
        raise DataError(argument_message("sources", owner, "files of which one at least is a "
                                         "results table", ", ".join(s.name for s in skipped)))
    # two tracks of one title (two files of the same track) are told apart by their files
    titles = [track.title for track in tracks]
    return [Track(**{**track.__dict__, "title": f"{track.title} ({track.name})"})
            if titles.count(track.title) > 1 else track for track in tracks], skipped


def _format_of(path: str) -> str:
    try:
        return guess_format(Path(path))
    except (MaxEntError, OSError):
        return "told from its content"


# ---------------------------------------------------------------------------
# the pages


def _slug(title: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")[:48].strip("-")
    return slug or "track"


def page_names(tracks: Sequence[Track]) -> list[str]:
    """The files of a site of these tracks: the index, the solvers' page, a page per track.

    >>> page_names([])
    ['index.html', 'solvers.html']
    """
    return ["index.html", "solvers.html"] + [f"track-{index:02d}-{_slug(track.title)}.html"
            for index, track in enumerate(tracks, start=1)]


def _page(title: str, body: str, site_title: str) -> str:
    e = report._e
    return ("<!DOCTYPE html>\n"
            '<html lang="en"><head><meta charset="utf-8">'
            f'<meta http-equiv="Content-Security-Policy" content="{report._POLICY}">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f'<meta name="generator" content="maxent_util {e(__version__)}">'
            f"<title>{e(title)}</title><style>{report._CSS}</style></head>\n<body>"
            f"{_navigation(site_title)}<header><h1>{e(title)}</h1></header>\n"
            f"<main>{body}</main>\n</body></html>\n")


def _navigation(site_title: str) -> str:
    return (f'<nav class="site note"><a href="index.html">{report._e(site_title)}</a> · '
            '<a href="solvers.html">Solvers across tracks</a></nav>')


def _track_page(page: str, site_title: str) -> str:
    """A report with the site's navigation at the top of its body."""
    return page.replace("<body>", "<body>" + _navigation(site_title), 1)


def _cutoffs(table: pd.DataFrame) -> str:
    if "cutoff" not in table.columns:
        return "none recorded"
    values = np.unique(table["cutoff"].to_numpy(dtype=float))
    return ", ".join(f"{value:g} s" for value in values[:4]) + (" ..." if values.size > 4 else "")


def _index(tracks: Sequence[Track], pages: Sequence[str], rankings: Sequence[pd.DataFrame],
           rules: tuple[tuple[str, Any], ...], skipped: Sequence[Skipped], site_title: str,
           when: str, command: str | None) -> str:
    e = report._e
    first = rules[0][0]
    years: dict[str, list[int]] = {}
    for index, track in enumerate(tracks):
        years.setdefault(track.year or "year not stated", []).append(index)
    parts = [f"<p>{len(tracks)} track{'s' if len(tracks) != 1 else ''} of "
             f"{len(years)} year{'s' if len(years) != 1 else ''}, each ranked under the same "
             f"{len(rules)} rules; the page of a track is its full report, and "
             '<a href="solvers.html">the solvers\' page</a> follows each solver across the '
             "tracks and years.</p>", '<section id="years"><h2>Years and tracks</h2>']
    for year in sorted(years, key=lambda y: (not y[:1].isdigit(), y)):
        rows = []
        for index in years[year]:
            track, ranking = tracks[index], rankings[index]
            leader = ", ".join(str(a) for a in ranking.index[ranking[first + " rank"] == 1])
            rows.append(
                f'<tr><th scope="row"><a href="{pages[index]}">{e(track.title)}</a></th>'
                f'<td class="number">{track.table["algorithm"].nunique()}</td>'
                f'<td class="number">{track.table["instance"].nunique()}</td>'
                f'<td class="number">{len(track.table)}</td><td>{e(_cutoffs(track.table))}</td>'
                f"<td>{e(leader)}</td></tr>")
        parts.append(f'<h3>{e(year)}</h3><div class="scroll"><table class="tracks"><thead><tr>'
                     '<th scope="col">track</th><th scope="col">solvers</th><th scope="col">'
                     'instances</th><th scope="col">runs</th><th scope="col">cutoff</th>'
                     f'<th scope="col">first under {e(first)}</th></tr></thead><tbody>'
                     f'{"".join(rows)}</tbody></table></div>')
    parts.append("</section>")
    parts.append('<section id="rules"><h2>The rules</h2><p>Every page ranks under these '
                 "rules, in this order.</p>")
    for name, rule in rules:
        parts.append(f"<h3>{e(name)}</h3>{report.rule_summary(name, rule)}")
    parts.append("</section>")
    rows = []
    for track, page in zip(tracks, pages):
        given = report._input(track.source, report._source_file(track.source, "site_pages"))
        member = given.member if given is not None and given.member else ""
        size = f"{given.size:,} bytes" if given is not None else ""
        digest = given.sha256 if given is not None else ""
        rows.append(f'<tr><th scope="row"><a href="{page}">{e(track.title)}</a></th>'
                    f"<td>{e(given.name if given is not None else track.name)}</td>"
                    f"<td>{e(member)}</td><td>{e(track.format)}</td>"
                    f'<td class="number">{e(size)}</td><td><code>{e(digest)}</code></td></tr>')
    parts.append('<section id="provenance"><h2>The data</h2><p>Each track as read: the file '
                 "(and the member of an archive), its size and sha256, and the format it was "
                 "read in; each track's page says what its reader did to it.</p>"
                 '<div class="scroll"><table class="provenance"><thead><tr><th scope="col">'
                 'track</th><th scope="col">file</th><th scope="col">member</th><th scope="col">'
                 'format</th><th scope="col">size</th><th scope="col">sha256</th></tr></thead>'
                 f'<tbody>{"".join(rows)}</tbody></table></div>')
    if skipped:
        items = "".join(f"<li><code>{e(s.name)}</code>: {e(s.reason)}</li>" for s in skipped)
        parts.append(f"<h3>Files not read</h3><p>Files of the folders and archives given that "
                     f"are not results tables:</p><ul>{items}</ul>")
    made = f"<p>Made with maxent_util {e(__version__)} on {e(when)}.</p>"
    if command:
        made += (f'<details class="made"><summary>How this site was made</summary><pre><code>'
                 f"{e(command)}</code></pre></details>")
    parts.append(made + "</section>")
    return _page(site_title, "".join(parts), site_title)


def _solvers(tracks: Sequence[Track], pages: Sequence[str], rankings: Sequence[pd.DataFrame],
             rules: tuple[tuple[str, Any], ...], site_title: str) -> str:
    e = report._e
    solvers = sorted({str(a) for ranking in rankings for a in ranking.index})
    parts = [f"<p>{len(solvers)} solvers over {len(tracks)} tracks. Under each rule, a "
             "solver's rank on each track (1 is best) and its score, with the paired bootstrap "
             "interval of the track's page where it has one; a dash where the solver did not "
             "run. Solvers are in alphabetical order; the same name is the same solver.</p>"]
    heads = "".join(f'<th scope="col"><a href="{page}">{e(track.title)}</a></th>'
                    for track, page in zip(tracks, pages))
    for index, (name, rule) in enumerate(rules):
        rows = []
        for solver in solvers:
            cells = [f'<th scope="row">{e(solver)}</th>']
            for ranking in rankings:
                if solver not in ranking.index:
                    cells.append('<td class="absent">–</td>')
                    continue
                row = ranking.loc[solver]
                score = report._number(row[name], rule, "")
                shown = f"<b>{report._number(row[name + ' rank'], rule, ' rank')}</b> {score}"
                if name + " ci low" in ranking.columns:
                    low = report._number(row[name + " ci low"], rule, "")
                    high = report._number(row[name + " ci high"], rule, "")
                    shown += f' <span class="note">[{low}, {high}]</span>'
                cells.append(f'<td class="number" data-rank="{int(row[name + " rank"])}" '
                             f'data-value="{e(repr(float(row[name])))}">{shown}</td>')
            rows.append(f"<tr>{''.join(cells)}</tr>")
        parts.append(f'<section id="rule-{index + 1}"><h2>{e(name)}</h2><div class="scroll">'
                     f'<table class="solvers compact" data-rule="{e(name)}"><thead><tr>'
                     f'<th scope="col">solver</th>{heads}</tr></thead>'
                     f'<tbody>{"".join(rows)}</tbody></table></div></section>')
    return _page(f"{site_title}: solvers across tracks", "".join(parts), site_title)


def site_pages(tracks: Sequence[Track], *, rules: Mapping[str, Any] | Sequence[Any],
               skipped: Sequence[Skipped] = (), title: str | None = None,
               date: datetime.datetime | str | None = None, ci: float | None = 0.95,
               resamples: int = 2000, seed: Any = 0, duplicates: str = "raise",
               missing: str = "raise", explore: bool = True, command: str | None = None
               ) -> dict[str, str]:
    """The pages of a competition's site, by file name.

    Parameters
    ----------
    tracks : sequence of Track
        As :func:`read_tracks` gives them.
    rules : mapping of str to rule, or sequence of rules, keyword-only
        The rules of every page, as :func:`maxent_util.report.report_html`
        takes them; the first orders each track's rows.
    skipped : sequence of Skipped, keyword-only
        Files left out, listed on the index.
    title : str, optional, keyword-only
        The site's title (default: the competition the tracks' titles name,
        "SAT Competition 2021 to 2024", else "Competition results").
    date : datetime or str, optional, keyword-only
        The date every page shows (default: now, in UTC).
    ci, resamples, seed, duplicates, missing, explore : keyword-only
        As :func:`maxent_util.report.report_html`, for every track.
    command : str, optional, keyword-only
        The command that made the site, shown on the index.

    Returns
    -------
    dict of str to str
        ``index.html``, ``solvers.html`` and one ``track-NN-....html`` per
        track, in that order.

    Raises
    ------
    DataError, UtilityError, ExportError
        As :func:`maxent_util.report.report_html`, and for an empty ``tracks``.
    """
    owner = "site_pages"
    tracks = list(tracks)
    if not tracks or not all(isinstance(track, Track) for track in tracks):
        raise DataError(argument_message("tracks", owner, "a non-empty list of Track (from "
                                         "read_tracks)", short(tracks)))
    named = report._rules(rules, owner)
    heading = report._title(title, owner) or _default_title(tracks)
    when = report._when(date, owner)
    options: dict[str, Any] = {"duplicates": duplicates, "missing": missing}
    if ci is not None:
        options.update(ci=ci, resamples=resamples, seed=seed)
    pages = page_names(tracks)[2:]
    rankings = [rank(track.table, dict(named), bounds=True, **options) for track in tracks]
    result = {"index.html": _index(tracks, pages, rankings, named, skipped, heading, when,
                                   None if command is None else report._shown(command)),
              "solvers.html": _solvers(tracks, pages, rankings, named, heading)}
    for track, page in zip(tracks, pages):
        text = report.report_html(track.table, rules=dict(named), source=track.source,
                                  format=track.format, title=track.title, date=when, ci=ci,
                                  resamples=resamples, seed=seed, duplicates=duplicates,
                                  missing=missing, explore=True if explore else None)
        result[page] = _track_page(text, heading)
    return result


def _default_title(tracks: Sequence[Track]) -> str:
    competitions = {re.sub(r"\s*\b(19|20)[0-9]{2}\b.*$", "", track.title) for track in tracks
                    if track.year is not None and _YEAR.search(track.title)}
    years = sorted({track.year for track in tracks if track.year is not None})
    if len(competitions) == 1 and years:
        span = years[0] if len(years) == 1 else f"{years[0]} to {years[-1]}"
        return f"{competitions.pop()} {span}"
    return "Competition results"


def write_site(tracks: Sequence[Track], folder: str | os.PathLike, *,
               rules: Mapping[str, Any] | Sequence[Any], overwrite: bool = False,
               **options: Any) -> list[Path]:
    """Write :func:`site_pages` into a folder.

    Each page is written to a temporary name and moved into place, all of them or
    none (an error or an interrupt leaves the folder as it was); the folder is
    made when missing (its parent must exist).

    Parameters
    ----------
    tracks : sequence of Track
        As :func:`read_tracks` gives them.
    folder : str or os.PathLike
        Where the pages go.
    rules : mapping or sequence, keyword-only
        As in :func:`site_pages`.
    overwrite : bool, keyword-only
        Replace pages that exist; by default an existing page is refused
        (checked before any work, and again when writing).
    **options
        The other keyword options of :func:`site_pages`.

    Returns
    -------
    list of pathlib.Path
        The pages written, the index first.

    Raises
    ------
    ExportError
        If ``folder`` is a file, lies in a missing folder, or holds a page of
        the site (without ``overwrite``).
    DataError, UtilityError
        As :func:`site_pages`.
    """
    owner = "write_site"
    try:
        root = Path(os.fspath(folder))
    except TypeError:
        raise ExportError(argument_message("folder", owner, "a folder path", short(folder))) \
            from None
    if root.exists() and not root.is_dir():
        raise ExportError(argument_message("folder", owner, "a folder (or a path to make one)",
                                           os.fspath(root)))
    if not root.parent.is_dir():
        raise ExportError(argument_message("folder", owner, "in an existing folder",
                                           os.fspath(root), f"Create {str(root.parent)!r} "
                                           "first."))
    names = page_names(list(tracks))
    if root.is_dir():
        for name in names:  # refused before the work
            writable(root / name, owner, overwrite=overwrite)
    pages = site_pages(tracks, rules=rules, **options)
    made = not root.exists()
    root.mkdir(exist_ok=True)
    written = []
    try:
        with file_group():
            for name, text in pages.items():
                target = writable(root / name, owner, overwrite=overwrite)
                write(target, text, owner, overwrite=overwrite)
                written.append(target)
    except BaseException:
        if made:
            try:
                root.rmdir()
            except OSError:
                pass
        raise
    return written
