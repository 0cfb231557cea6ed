"""Benchmark of the full (exact, sympy) route of ``derive``, against another checkout.

Run ``python benchmarks/bench_full_route.py --against DIR`` (DIR a checkout of the library
before a change, e.g. ``git worktree add /tmp/before <commit>``).  For each constraint set of
the corpus below (taken from the tests, the presets and the docs) it times, cold (derive's and
sympy's caches cleared), in this process and in a worker process running DIR's library,
interleaved set by set (which side goes first alternates):

- ``derive(*constraints, digits=30)`` and the first read of its pdf, CDF and survival function
  (the full route), and
- ``derive(*constraints)`` and the first read of its pdf, CDF and survival function (the
  written closed form of :mod:`maxent_util.maxent.direct` where it applies, else the full route),

in CPU seconds of the process.  It prints per set the time before and after, their ratio, and
whether both checkouts give the same forms: the pdf, CDF, survival function, multipliers and
derivation record of both laws, compared by ``sympy.srepr``.  Then the totals.  ``--sets I J ...``
keeps some sets (by index); ``--list`` prints the corpus.  Without ``--against`` it times this
checkout alone.  Asserts nothing about speed; exits 1 when a form differs.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import sympy
from sympy import Rational as R
from sympy import oo
from sympy.core.cache import clear_cache

from maxent_util.catalogue import family_constraints
from maxent_util.constraints import (ContinuousAt, LogMoment, Mean, Moment, SquaredLogDeviation, Support,
                                     TailProbability)
from maxent_util.families import FIGURE_PARAMETERS
from maxent_util.maxent import derive
from maxent_util.symbols import kappa


def _symbols(*names: str) -> tuple:
    return tuple(sympy.Symbol(name, positive=True) for name in names)


def corpus() -> list[tuple[str, tuple]]:
    """(label, constraints) of every set timed: the tests' sets (tests/test_direct_closed_form.py's
    CASES, test_derive*.py, test_inequalities.py, test_families.py), the presets at the paper's
    figure parameters and with symbolic parameters, and the docs' examples."""
    m, s, k0, a, b = _symbols("m", "s", "kappa0", "alpha", "beta")
    sets = [
        # tests/test_direct_closed_form.py CASES
        (Support(0, oo), Mean(R(37, 10))),
        (Support(2, oo), LogMoment(R(1, 2), 3)),
        (LogMoment(R(1, 2), 10), SquaredLogDeviation(R(3, 4), 10)),
        (Support(0, 100), TailProbability(50, R(1, 10))),
        (Support(0, 3600), TailProbability(600, R(1, 2)), TailProbability(3000, R(9, 10))),
        (Support(1, 50), TailProbability(30, R(3, 4)), TailProbability(4, R(1, 5)), TailProbability(10, R(1, 2))),
        (Support(0, 10), Mean(R(33, 10))),
        (Support(1, 100), LogMoment(2, 10)),
        (Support(0, oo), Mean(5), Moment(kappa ** 2, 40)),
        # test_derive*.py, test_numbers_*.py, test_utility.py
        (Support(0, 7200), Mean(3600)),
        (Support(0, 10), Mean(5)),
        (Support(0, 10), Mean(3)),
        (Support(0, 10), Mean(R(18, 5))),
        (Support(0, oo), Mean(4), LogMoment(1, 1)),
        (Support(0, oo), Mean(2), Moment(kappa ** 2, 6)),
        (Support(0, oo), Mean(R(7, 2))),
        (Support(24, oo), LogMoment(1000, 24)),
        (Support(0, 3600), Mean(1200)),
        (Support(0, oo), Mean(1), Moment(kappa ** 2, R(1, 2))),
        (Support(0, oo), Moment(kappa ** 2, 10)),
        (Support(0, 10), LogMoment(R(-1, 2), 3)),
        (SquaredLogDeviation(R(3, 4), 10),),
        (Support(1, 100), LogMoment(R(-1, 2), 10)),
        (Support(0, 10), TailProbability(2, R(1, 2))),
        # multipliers of exactly 0 or 1 (tests/test_derive_trust.py): the uniform, the log-uniform
        (Support(0, 10), Moment(kappa ** 2, R(100, 3))),
        (Support(0, 4), LogMoment(1, 4, side="below")),
        (Support(R(1, 10), 10), LogMoment(0, 1)),
        # inequalities (tests/test_inequalities.py)
        (Support(0, 10), Mean(7, relation="<=")),
        (Support(0, 10), Mean(20, relation=">=")),
        (Support(0, 10), Mean(2, relation="<="), Mean(8, relation=">=")),
        (Support(0, 10), TailProbability(2, R(1, 2), relation="<=")),
        (Support(0, oo), Mean(3, relation="<="), LogMoment(1, 1)),
        # the presets at the paper's figure parameters
        *(family_constraints(name, *values) for name, values in FIGURE_PARAMETERS.items()),
        # presets and sets with symbolic parameters (tests/test_families.py)
        (Support(0, oo), Mean(m)),
        (Support(0, k0),),
        (Support(k0, oo), LogMoment(1 / a, k0)),
        (Support(0, oo), LogMoment(1 / b, k0, side="below"), LogMoment(1 / a, k0, side="above"), ContinuousAt(k0)),
        (LogMoment(0, k0), SquaredLogDeviation(s ** 2, k0)),
        (Support(0, 10), Mean(m)),
        # the docs (README, getting-started, the paper's examples)
        (Support(0, 300), Mean(60)),
        (Support(1, 1000), LogMoment(2, 1)),
        (Support(0, oo), Mean(10), Moment(kappa ** 2, 150)),
        (Support(0, 60), TailProbability(30, R(1, 5))),
        (Support(0, oo), Mean(R(3, 2)), LogMoment(R(1, 10), 1)),
        # decimals (tests/test_derive_trust.py, test_limits_derive.py)
        (Support(0, 10), Mean(3.3)),
        (Support(1.11, 20.5), SquaredLogDeviation(0.709, 4.77)),
    ]
    return [(", ".join(map(repr, constraints)), constraints) for constraints in sets]


#: the corpus's set run first on both sides, untimed: Support(0, 10), Mean(33/10)
WARM_UP = 6


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def forms(law) -> dict[str, str]:
    """What must not change, each as the digest of its srepr: the pdf, CDF, survival function,
    multipliers and derivation record."""
    record = law.derivation
    return {
        "pdf": _digest(sympy.srepr(law.pdf)),
        "cdf": _digest(sympy.srepr(law.cdf)),
        "sf": _digest(sympy.srepr(law.sf)),
        "multipliers": _digest(sympy.srepr(sorted(law.multipliers.items(), key=lambda item: item[0].name))),
        "record": _digest("|".join(sympy.srepr(getattr(record, field)) if not isinstance(getattr(record, field), str)
                                   else getattr(record, field)
                                   for field in ("support", "terms", "breakpoints", "stationary_density",
                                                 "partition", "equations", "method", "notes", "kkt"))),
        "cdf_method": law.cdf_method,
    }


def run(index: int) -> dict:
    """Both timings of set ``index``, cold, and the digests of both laws."""
    _, constraints = corpus()[index]
    answer: dict = {}
    for name, options in (("full", {"digits": 30}), ("default", {})):
        derive.cache_clear()
        clear_cache()
        start = time.process_time()
        try:
            law = derive(*constraints, **options)
            law.pdf, law.cdf, law.sf
            spent = time.process_time() - start
            result = forms(law)  # untimed: srepr is the comparison's, not the route's
        except Exception as error:  # an error is an output too: it must stay the same
            spent = time.process_time() - start
            result = {"error": f"{type(error).__name__}: {error}"}
        answer[name] = (spent, result)
    return answer


#: the worker run in the other checkout: reads set indices, answers run(index) as JSON
_WORKER = """
import json, sys
sys.path.insert(0, {bench!r})
from bench_full_route import run
for line in sys.stdin:
    print(json.dumps(run(int(line))), flush=True)
"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", default=None, metavar="DIR",
                        help="another checkout of the library (the 'before'), run in a worker process, interleaved")
    parser.add_argument("--sets", nargs="+", type=int, default=None, metavar="I", help="only these sets")
    parser.add_argument("--list", action="store_true", help="print the corpus and exit")
    options = parser.parse_args(argv)
    sets = corpus()
    if options.list:
        for index, (label, _) in enumerate(sets):
            print(f"{index:>3}  {label}")
        return 0
    chosen = options.sets if options.sets is not None else range(len(sets))
    worker = None
    if options.against is not None:
        environment = dict(os.environ, PYTHONPATH=str(Path(options.against).resolve()))
        worker = subprocess.Popen([sys.executable, "-c", _WORKER.format(bench=str(Path(__file__).parent))],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=environment,
                                  cwd=options.against)

    def before(index: int) -> dict:
        worker.stdin.write(f"{index}\n")
        worker.stdin.flush()
        return json.loads(worker.stdout.readline())

    # warm-up, both sides, on a set of the full route that simplifies, integrates and polishes:
    # imports and first calls (sympy.simplify's of sympy.physics, scipy.optimize) are not the route's
    run(WARM_UP)
    if worker is not None:
        before(WARM_UP)
    load = os.getloadavg()[0]
    print(f"the full route, cold, CPU seconds; before: {options.against or '-'}, after: this checkout "
          f"(load average {load:.1f} at the start)")
    print(f"{'':>3} {'digits=30':^24} {'default, first read':^24} {'same':>5}  set")
    print(f"{'':>3} {'before':>7} {'after':>7} {'ratio':>8} {'before':>7} {'after':>7} {'ratio':>8} {'forms':>5}")
    totals = {"full": [0.0, 0.0], "default": [0.0, 0.0]}
    different = []
    for turn, index in enumerate(chosen):
        theirs = None
        if worker is not None and turn % 2:
            theirs = before(index)
        ours = run(index)
        if worker is not None and not turn % 2:
            theirs = before(index)
        cells = []
        same = True
        for name in ("full", "default"):
            after = ours[name][0]
            totals[name][1] += after
            if theirs is None:
                cells.append(f"{'':>7} {after:>7.2f} {'':>8}")
                continue
            was = theirs[name][0]
            totals[name][0] += was
            cells.append(f"{was:>7.2f} {after:>7.2f} {was / max(after, 1e-9):>7.2f}x")
            if theirs[name][1] != ours[name][1]:
                same = False
                different.append((index, name, [key for key in ours[name][1]
                                                 if ours[name][1].get(key) != theirs[name][1].get(key)]))
        verdict = "-" if theirs is None else ("yes" if same else "NO")
        label = sets[index][0]
        print(f"{index:>3} {cells[0]} {cells[1]} {verdict:>5}  {label[:90]}", flush=True)
    if worker is not None:
        worker.stdin.close()
        worker.wait()
        print(f"\ntotal (load average {os.getloadavg()[0]:.1f} at the end)")
        for name, (was, after) in totals.items():
            print(f"  {name:<8} before {was:8.2f} s  after {after:8.2f} s  ratio {was / max(after, 1e-9):.2f}x")
        print(f"same forms: {'yes' if not different else 'no'} ({len(chosen)} sets, "
              f"pdf, CDF, survival function, multipliers and record of both laws, by srepr)")
        for index, name, keys in different:
            print(f"  differs: set {index} ({name}): {', '.join(keys)}")
    else:
        print(f"\ntotal: digits=30 {totals['full'][1]:.2f} s, default {totals['default'][1]:.2f} s")
    return 1 if different else 0


if __name__ == "__main__":
    sys.exit(main())
