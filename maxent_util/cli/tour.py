"""``maxent-util tour``: the whole idea on the bundled SAT Competition data."""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

from .._output import file_group
from ..durations import readable_duration
from .core import CommandLineError, PROG, _PAPER_T_MAX, _formula
from .files import _file_flags, _save, _target
from .inputs import TOUR_UTILITIES
from .rank import _ranking_text, _top_three


#: the folder of the tour's figures when --out is not given
DEFAULT_FOLDER = "maxent_util_tour"

_FIGURES = ("utilities", "ranking")


def _fresh_folder(name: str) -> Path:
    """``name``, or ``name-2``, ``name-3``, ... : the first that holds none of the figures
    (the tour without --out never replaces an earlier tour's figures: it writes beside them)."""
    for number in range(1, 10_000):
        folder = Path(name if number == 1 else f"{name}-{number}")
        if not (folder.exists() and (not folder.is_dir() or any(
                (folder / f"{figure}.png").exists() for figure in _FIGURES))):
            return folder
    raise CommandLineError(f"argument --out: {name}, {name}-2, ... {name}-9999 all hold figures; "
                           "give --out")


def _command_tour(arguments: argparse.Namespace, out: Any) -> int:
    from .. import plots
    from ..datasets import SATCOMP2021_CUTOFF, satcomp2021
    from ..families import parse_family
    from ..ranking import rank
    from ..rules import PAR

    started = time.perf_counter()
    # without --out, a fresh folder: the tour runs again beside an earlier one (the README's
    # first command, run twice); with --out, an existing figure needs --force
    folder = (Path(arguments.out) if arguments.out is not None else Path(DEFAULT_FOLDER)
              if arguments.force else _fresh_folder(DEFAULT_FOLDER))
    if folder.exists() and not folder.is_dir():
        raise CommandLineError(f"argument --out: {str(folder)!r} is a file, not a folder")
    # both figures are checked before any work: an existing one stops the tour at once; the
    # folder itself is made as asked, its missing parents only with --parents
    parents = arguments.parents or folder.parent.is_dir()
    targets = {name: _target(folder / f"{name}.png", flag="--out", force=arguments.force,
                             parents=parents) for name in _FIGURES}
    print("1. The paper's seven captime families (kappa0 = 24 s), each derived by maximum entropy "
          "from its constraints;\n   the utility of a run of length t is u(t) = 1 - F(t):", file=out)
    utilities = {}
    width = max(len(spec) for spec in plots.PAPER_UTILITIES)
    for spec in plots.PAPER_UTILITIES:
        distribution = parse_family(spec)
        utility = distribution.utility().with_name(spec)
        utilities[spec] = utility
        constraints = ", ".join(map(repr, distribution.constraints))
        print(f"   {spec:<{width}}  u(t) = {_formula(utility.expr)}", file=out)
        print(f"   {'':<{width}}    from {constraints}", file=out)

    print("\n2. SAT Competition 2021, parallel track (9 solvers, 400 instances, a cutoff of "
          f"{readable_duration(SATCOMP2021_CUTOFF)}), "
          "ranked under five utilities and PAR-2\n   (score (rank); a utility's score is the mean "
          "u(t) with unsolved runs at 0, PAR-2 the mean penalised runtime):", file=out)
    rules: dict[str, Any] = {spec: parse_family(spec).utility() for spec in TOUR_UTILITIES}
    rules["PAR-2"] = PAR(2)
    frame = rank(satcomp2021("parallel"), rules)
    for line in _ranking_text(frame).splitlines():
        print(f"   {line}", file=out)
    print("\n   Top three under each rule:", file=out)
    for line in _top_three(frame):
        print(f"  {line}", file=out)
    podiums = {tuple(frame[f"{rule} rank"].sort_values(kind="stable").index[:3]) for rule in rules}
    print(f"   {len(podiums)} different top-three rankings from {len(rules)} rules.", file=out)

    print("\n3. Figures:", file=out)
    with file_group():  # both figures or neither (Ctrl-C between them)
        utilities_png, ranking_png = _figures(plots, utilities, frame, targets, arguments.force)
    for png in (utilities_png, ranking_png):
        print(f"   {png}", file=out)
    print(f"\nDone in {time.perf_counter() - started:.1f} s. Next: `{PROG} --help`.", file=out)
    return 0


def _figures(plots: Any, utilities: dict, frame: Any, targets: dict, force: bool) -> tuple:
    utilities_png = _save(plots.plot_utilities(utilities, t_max=_PAPER_T_MAX,
                                               title="Utilities of the seven captime families, "
                                                     "kappa0 = 24 s"),
                          targets["utilities"], force=force, flag="--out")
    ranking_png = _save(plots.plot_ranking(frame, title="SAT Competition 2021, parallel track"),
                        targets["ranking"], force=force, flag="--out")
    return utilities_png, ranking_png


def add_parser(commands: Any) -> None:
    """Add ``tour`` to the subcommands ``commands``."""
    tour = commands.add_parser("tour", help="the whole idea on the bundled SAT Competition data",
                               description="Derive the seven families, rank the SAT Competition 2021 "
                                           "parallel track under five utilities and PAR-2, and draw "
                                           "both figures.")
    tour.add_argument("--out", default=None, metavar="DIR",
                      help="folder for the figures; an existing figure there needs --force "
                           "(default: maxent_util_tour, or maxent_util_tour-2, -3, ... when an "
                           "earlier tour's figures are there)")
    _file_flags(tour)
    tour.set_defaults(handler=_command_tour)
