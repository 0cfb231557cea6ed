"""Benchmark of scorers against hand-written numpy and the memory floor, capped runs included.

Run ``python benchmarks/bench_scorer_floor.py`` (a few minutes). On ``--n`` log-normal
runtimes (median 20 s) of which every 97th is infinite (a capped run written as inf) and
every 89th sits exactly at 3600 s (a run stopped at its cap), it times, interleaved over
``--repeat`` rounds (medians):

- ``compile_scorer(u)`` of every preset family at the parameters of the paper's figure, of a
  law derived by the fast route (``derive(Support(0, 3600), Mean(1200)).utility()``, valued by
  the law itself), of the closed form of that law and of ``Support(1, 100), Mean(20)`` (a
  Piecewise with an exponential), and of a utility with four breakpoints;
- the same formula in numpy by hand (whole arrays, ``np.where`` over every branch, the
  infinite runtimes giving the limit by themselves);
- the floor: ``np.exp(t, out=out)`` on the same array (one read, one write, one cheap
  transcendental call);
- with ``--before MODULE``, the scorer of another module too (a copy of an earlier
  ``maxent_util/scorer.py`` placed in the package, e.g. ``maxent_util._scorer_before``), so
  that before and after are measured in one run;
- with ``--only TEXT``, only the rows whose label holds TEXT (``--only ": law"``: the fast-route
  law alone).

A law valued by its own survival function is timed on every runtime like the others; on the first
``--n-law`` runtimes, its survival function written out is also timed against its quadrature
panels (the route it took before, some microseconds a runtime). It prints a
markdown table: the medians, the ratios scorer / numpy and scorer / floor (and before / floor),
the largest difference between the scorer and numpy, and whether before and after agree to the
bit. Nothing is asserted about speed. Set ``NPY_DISABLE_CPU_FEATURES`` to the dispatched
features this CPU has (as ``.ci/run`` builds the list) to measure without the widest SIMD.
"""

from __future__ import annotations

import argparse
import importlib
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Callable

import numpy as np
import sympy

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the checkout this file is in, not an installed copy
sys.path.insert(0, str(ROOT / "benchmarks"))

import maxent_util as mu  # noqa: E402
from bench_scoring import where_by_hand, four_breakpoints, hand_written  # noqa: E402
from maxent_util.constraints import Mean, Support  # noqa: E402
from maxent_util.families import FAMILIES, FIGURE_PARAMETERS  # noqa: E402
from maxent_util.maxent import derive  # noqa: E402
from maxent_util.scorer import compile_scorer  # noqa: E402
from maxent_util.symbols import t  # noqa: E402

#: the formulas of one transcendental call or plain arithmetic: the 2x-the-floor target
ONE_CALL = {"uniform", "exponential", "pareto", "log_laplace", "generalized_log_laplace",
            "piecewise", "Support(0,3600), Mean(1200): law", "Support(0,3600), Mean(1200): closed form",
            "Support(1,100), Mean(20): closed form"}


def _exponential_piece(expr: sympy.Expr) -> tuple[float, float, float]:
    """(a, b, c) of the piece ``a + b exp(c t)`` of a derived law's utility."""
    inner = next(piece for piece, _ in expr.args if piece.has(sympy.exp))
    offset, term = inner.as_independent(t)
    factor, exponential = term.as_independent(t)
    return float(offset), float(factor), float(exponential.args[0] / t)


def cases() -> list[tuple[str, object, Callable[[np.ndarray], np.ndarray]]]:
    """(label, what compile_scorer is given, the same utility in numpy by hand)."""
    hand = hand_written()
    found = [(name, getattr(mu, name)(*FIGURE_PARAMETERS[name]).utility(), hand[name])
             for name in FAMILIES]
    law = derive(Support(0, 3600), Mean(1200)).utility()
    a, b, c = _exponential_piece(law.expr)
    capped = where_by_hand((lambda x: x < 3600, lambda x: a + b * np.exp(c * x)), default=lambda x: 0.0)
    found.append(("Support(0,3600), Mean(1200): law", law, capped))
    found.append(("Support(0,3600), Mean(1200): closed form", law.expr, capped))
    truncated = derive(Support(1, 100), Mean(20)).utility().expr
    a2, b2, c2 = _exponential_piece(truncated)
    found.append(("Support(1,100), Mean(20): closed form", truncated,
                  where_by_hand((lambda x: x < 1, lambda x: 1.0),
                         (lambda x: x < 100, lambda x: a2 + b2 * np.exp(c2 * x)),
                         default=lambda x: 0.0)))
    found.append(four_breakpoints())
    return found


def floor(x: np.ndarray) -> np.ndarray:
    """One read, one write, one cheap transcendental call: ``np.exp(t, out=out)``."""
    with np.errstate(over="ignore"):
        return np.exp(x, out=_OUT[:x.size])


_OUT = np.empty(0)


def _law_routes(utility: object, x: np.ndarray, repeat: int) -> None:
    """The fast-route law's survival function written out (its segments' exp(c0 + c1 u)) against
    the route it took before, its quadrature panels (20 Gauss-Legendre nodes a runtime), on the
    same runtimes, interleaved; printed before the table's row of that law."""
    numeric = utility._law.numeric
    routes = {"written": numeric.sf, "panels": lambda v: np.clip(numeric._partial(v, True), 0.0, 1.0)}
    inner = x[(x > numeric.support[0]) & (x < numeric.support[1])]
    times: dict[str, list[float]] = {name: [] for name in routes}
    for _ in range(repeat):
        for name, function in routes.items():
            start = time.perf_counter()
            function(inner)
            times[name].append(time.perf_counter() - start)
    median = {name: statistics.median(values) for name, values in times.items()}
    gap = float(np.max(np.abs(routes["written"](inner) - routes["panels"](inner))))
    print(f"(the law's survival function on {inner.size:,} runtimes inside its support: written "
          f"{1e3 * median['written']:.1f} ms, its quadrature panels (the route before) "
          f"{1e3 * median['panels']:.1f} ms, ratio {median['panels'] / median['written']:.1f}; "
          f"largest difference {gap:.1e})", flush=True)


def _same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    return bool(np.array_equal(np.asarray(a, float).view(np.int64), np.asarray(b, float).view(np.int64)))


def main(argv: list[str] | tuple[str, ...] = ()) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=10_000_000, help="runtimes (default 10^7)")
    parser.add_argument("--n-law", type=int, default=100_000,
                        help="runtimes for a law valued by quadrature (default 10^5)")
    parser.add_argument("--repeat", type=int, default=7, help="rounds (default 7)")
    parser.add_argument("--only", default=None,
                        help="only the rows whose label holds this text (e.g. 'law')")
    parser.add_argument("--before", default=None,
                        help="a module with another compile_scorer, timed alongside")
    arguments = parser.parse_args(list(argv))
    runtimes = np.random.default_rng(0).lognormal(3.0, 2.0, arguments.n)
    runtimes[::89] = 3600.0
    runtimes[::97] = np.inf
    global _OUT
    _OUT = np.empty_like(runtimes)
    before = (importlib.import_module(arguments.before).compile_scorer
              if arguments.before else None)
    load = os.getloadavg()[0]
    print(f"{arguments.n:,} runtimes, every 97th infinite, every 89th at 3600; medians of "
          f"{arguments.repeat} interleaved rounds; load average {load:.1f}; "
          f"NPY_DISABLE_CPU_FEATURES={os.environ.get('NPY_DISABLE_CPU_FEATURES', '')!r}\n")
    head = "| utility | route | scorer | numpy | floor | scorer/numpy | scorer/floor |"
    rule = "|---|---|---:|---:|---:|---:|---:|"
    if before is not None:
        head += " before/numpy | before/floor | same bits |"
        rule += "---:|---:|---|"
    print(head + " max \\|scorer - numpy\\| |\n" + rule + "---:|")
    for label, utility, by_hand in cases():
        if arguments.only is not None and arguments.only not in label:
            continue
        scorer = compile_scorer(utility)
        x = runtimes
        if getattr(scorer, "route", "") == "the law's survival function":
            _law_routes(utility, runtimes[:arguments.n_law], arguments.repeat)
        contenders = {"scorer": scorer, "numpy": by_hand, "floor": floor}
        if before is not None:
            contenders["before"] = before(utility)
        for function in contenders.values():
            function(x)  # warm up (the limits at the ends, a numba loop's compilation)
        times: dict[str, list[float]] = {name: [] for name in contenders}
        for _ in range(arguments.repeat):
            for name, function in contenders.items():
                start = time.perf_counter()
                function(x)
                times[name].append(time.perf_counter() - start)
        median = {name: statistics.median(values) for name, values in times.items()}
        ours = scorer(x)
        difference = float(np.max(np.abs(ours - by_hand(x))))
        mark = " *" if label.split(" (")[0] in ONE_CALL else ""
        row = (f"| {label}{mark} | {getattr(scorer, 'route', '')} | {1e3 * median['scorer']:.1f} ms | {1e3 * median['numpy']:.1f} ms "
               f"| {1e3 * median['floor']:.1f} ms | {median['scorer'] / median['numpy']:.2f} "
               f"| {median['scorer'] / median['floor']:.2f} |")
        if before is not None:
            row += (f" {median['before'] / median['numpy']:.2f} | {median['before'] / median['floor']:.2f}"
                    f" | {'yes' if _same_bits(ours, contenders['before'](x)) else 'NO'} |")
        print(row + f" {difference:.1e} |", flush=True)
    print(f"\n* one transcendental call or plain arithmetic (target: within 2x the floor); "
          f"load average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main(sys.argv[1:])
