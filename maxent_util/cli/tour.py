"""``maxent-util tour``: the whole idea on the bundled SAT Competition data."""

from __future__ import annotations

import argparse
import hashlib
import json
import time
from pathlib import Path
from typing import Any

from .core import CommandLineError, PROG, _PAPER_T_MAX, _formula
from .files import _file_flags, _save, _target, _write_text
from .inputs import TOUR_UTILITIES
from .rank import _ranking_text, _top_three


#: The file in the tour's folder that lists the figures the tour wrote there, with their sha256:
#: a second tour overwrites those (and only those, unchanged since) without --force.
TOUR_RECORD = ".maxent-util-tour.json"

_FIGURES = ("utilities", "ranking")


def _sha256(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def _previous_tour(folder: Path) -> tuple[set[str], bool]:
    """The figures of ``folder`` an earlier tour wrote and nobody changed since, and whether
    ``folder`` holds the tour's record (so that it may be replaced)."""
    try:
        files = json.loads((folder / TOUR_RECORD).read_text(encoding="utf-8"))["files"]
        ours = {name: digest for name, digest in files.items()
                if name in _FIGURES and isinstance(digest, str)}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return set(), False
    return {name for name, digest in ours.items()
            if _sha256(folder / f"{name}.png") == digest}, True


def _command_tour(arguments: argparse.Namespace, out: Any) -> int:
    from .. import plots
    from ..datasets import satcomp2021
    from ..families import parse_family
    from ..ranking import PAR, rank

    started = time.perf_counter()
    folder = Path(arguments.out)
    if folder.exists() and not folder.is_dir():
        raise CommandLineError(f"argument --out: {str(folder)!r} is a file, not a folder")
    # both figures are checked before any work: an existing one stops the tour at once; the
    # folder itself is made as asked, its missing parents only with --parents
    parents = arguments.parents or folder.parent.is_dir()
    # a second tour replaces its own earlier figures (and nothing else) without --force
    own, recorded = _previous_tour(folder)
    force = {name: arguments.force or name in own for name in _FIGURES}
    targets = {name: _target(folder / f"{name}.png", flag="--out", force=force[name],
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

    print("\n2. SAT Competition 2021, parallel track (9 solvers, 400 instances, 5000 s limit), "
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
    utilities_png = _save(plots.plot_utilities(utilities, t_max=_PAPER_T_MAX,
                                               title="Utilities of the seven captime families, "
                                                     "kappa0 = 24 s"),
                          targets["utilities"], force=force["utilities"], flag="--out")
    ranking_png = _save(plots.plot_ranking(frame, title="SAT Competition 2021, parallel track"),
                        targets["ranking"], force=force["ranking"], flag="--out")
    record = {"files": {name: _sha256(targets[name]) for name in _FIGURES}}
    _write_text(folder / TOUR_RECORD, json.dumps(record, indent=1) + "\n",
                force=arguments.force or recorded, flag="--out")
    for png, name in ((utilities_png, "utilities"), (ranking_png, "ranking")):
        again = " (replacing the previous tour's)" if name in own else ""
        print(f"   {png}{again}", file=out)
    print(f"\nDone in {time.perf_counter() - started:.1f} s. Next: `{PROG} --help`.", file=out)
    return 0


def add_parser(commands: Any) -> None:
    """Add ``tour`` to the subcommands ``commands``."""
    tour = commands.add_parser("tour", help="the whole idea on the bundled SAT Competition data",
                               description="Derive the seven families, rank the SAT Competition 2021 "
                                           "parallel track under five utilities and PAR-2, and draw "
                                           "both figures.")
    tour.add_argument("--out", default="maxent_util_tour", metavar="DIR",
                      help="folder for the figures (default: maxent_util_tour)")
    _file_flags(tour)
    tour.set_defaults(handler=_command_tour)
