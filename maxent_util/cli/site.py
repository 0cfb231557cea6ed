"""``maxent-util site``: a static site of a competition from its published files."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from .core import CommandLineError, _positive_float, _seconds, _utf8
from .inputs import (RULE_SETS, TOUR_UTILITIES, _bootstrap_flags, _bootstrap_options,
                     _progress_flags, _rule_specs, _rules)
from .report import _command


def _command_site(arguments: argparse.Namespace, out: Any) -> int:
    import pandas as pd

    from ..site import page_names, read_tracks, write_site

    folder = Path(arguments.output)
    if folder.exists() and not folder.is_dir():
        raise CommandLineError(f"argument --output: {arguments.output!r} is a file; give a folder")
    if not folder.parent.is_dir():
        raise CommandLineError(f"cannot use {arguments.output!r}: the folder "
                               f"{str(folder.parent)!r} does not exist")
    if arguments.title is not None and not _utf8(arguments.title):
        raise CommandLineError(f"argument --title: expected text in UTF-8, the page's encoding; "
                               f"got {arguments.title!r} (bytes of another encoding)")
    tracks, skipped = read_tracks(arguments.sources, format=arguments.format, cutoff=arguments.cutoff)
    for name in page_names(tracks) if folder.is_dir() and not arguments.force else ():
        if (folder / name).exists():
            raise CommandLineError(f"argument --output: {str(folder / name)!r} already exists; "
                                   "pass --force to overwrite the site's pages")
    # one set of rules for every page: by default the cutoff rules of the largest cutoff
    arguments.file = ", ".join(track.name for track in tracks)
    cutoffs = pd.concat([track.table[["cutoff"]] for track in tracks
                         if "cutoff" in track.table.columns] or [pd.DataFrame({"cutoff": []})])
    specs, pars, _ = _rule_specs(arguments, cutoffs)
    rules = _rules(specs, pars, arguments.solved, arguments.progress)
    written = write_site(tracks, folder, rules=rules, overwrite=arguments.force,
                         skipped=skipped, title=arguments.title, command=_command(arguments),
                         duplicates=arguments.duplicates, missing=arguments.missing,
                         **_bootstrap_options(arguments))
    size = sum(path.stat().st_size for path in written)
    print(f"wrote {len(written)} pages to {os.fspath(folder)} ({size / 1e6:.1f} MB): "
          f"{len(tracks)} tracks" + (f", {len(skipped)} files not results tables"
                                     if skipped else ""), file=out)
    return 0


def add_parser(commands: Any) -> None:
    """Add ``site`` to the subcommands ``commands``."""
    site = commands.add_parser(
        "site", help="a static site of a competition: every track's report, an index, and "
                     "each solver followed across tracks and years",
        description="Write a folder of HTML pages about a competition from its published "
                    "files: index.html (the years and tracks, the rules and their formulas, "
                    "each file's provenance), one page per track (the report of 'maxent-util "
                    "report') and solvers.html (each solver's rank and score under each rule "
                    "on every track, with intervals). Every page is ranked under the same "
                    "rules, loads nothing from the network and has the report's "
                    "Content-Security-Policy.")
    site.add_argument("sources", nargs="+", metavar="SOURCE",
                      help="a results file (FILE.zip:MEMBER names one member of an archive), "
                           "a zip of several tracks (each CSV member a track) or a folder of "
                           "them; files of archives and folders that are not results tables "
                           "are listed on the index")
    site.add_argument("-o", "--output", required=True, metavar="DIR",
                      help="the folder to write (made if missing; pages in it are replaced "
                           "only with --force)")
    site.add_argument("--title", default=None,
                      help="the site's title (default: the competition and years the tracks' "
                           "titles name)")
    site.add_argument("--format", choices=("satcomp", "long", "aslib", "benchexec"),
                      default=None, help="format of every file (by default told from each one's "
                                         "content)")
    site.add_argument("--cutoff", type=_seconds, metavar="SECONDS",
                      help="the cutoff: treat every run as stopped at this time; needed for files that state "
                           "none (2020 and 2021 SAT Competition layouts)")
    site.add_argument("--utility", action="extend", nargs="+", metavar="SPEC",
                      help="a preset such as 'pareto(5, 3)', an expression in t, 'PAR-2' or "
                           "'solved'; repeatable; the same on every page. Default: --rules cutoff "
                           "for the largest cutoff of the tracks.")
    site.add_argument("--par", action="append", type=_positive_float, metavar="K",
                      help="add PAR-K (penalised average runtime); repeatable")
    site.add_argument("--solved", action="store_true", help="add the number of solved runs")
    site.add_argument("--rules", choices=RULE_SETS, default=None,
                      help="a set of rules: 'cutoff' (the default) for the largest cutoff C of "
                           "the tracks, or 'paper' (" + ", ".join(TOUR_UTILITIES) + ", PAR-2)")
    site.add_argument("--duplicates", choices=("raise", "mean", "first"), default="raise",
                      help="several runs of one algorithm on one instance: refuse (default), "
                           "average them, or keep the first")
    site.add_argument("--missing", choices=("raise", "unsolved"), default="raise",
                      help="algorithms run on different instances: refuse (default), or count "
                           "a missing run as capped at the cutoff")
    _bootstrap_flags(site, ci=0.95, resamples=2000, seed="0")
    _progress_flags(site)
    site.add_argument("--force", action="store_true", help="replace pages that exist")
    site.set_defaults(handler=_command_site)
