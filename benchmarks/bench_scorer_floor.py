"""Benchmark of scorers against hand-written numpy and the memory floor, capped runs included.

Run ``python benchmarks/bench_scorer_floor.py`` (about a minute). On ``--n`` log-normal
runtimes (median 20 s) of which every 97th is infinite (a capped run written as inf), it
times, interleaved over ``--repeat`` rounds (medians):

- ``compile_scorer(u)`` of the exponential(24), uniform(24), Pareto(24, 2) and log-normal
  utilities;
- the same formula in numpy by hand (whole arrays, the infinite runtimes giving the limit by
  themselves), and written with ``out=`` into a preallocated array where it is one call;
- the floor: ``np.exp(t, out=out)`` on the same array (one read, one write, one cheap
  transcendental call);
- with ``--before MODULE``, the scorer of another module too (a copy of an earlier
  ``maxent_util/scorer.py`` placed in the package, e.g. ``maxent_util._scorer_before``), so
  that before and after are measured in one run.

It prints the medians and the ratios scorer / numpy and scorer / floor, and the largest
difference between the scorer and numpy. Nothing is asserted about speed. Set
``NPY_DISABLE_CPU_FEATURES`` (e.g. to ``AVX512F AVX512_SKX``) to measure without the widest
SIMD.
"""

from __future__ import annotations

import argparse
import importlib
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np
from scipy import special

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the checkout this file is in, not an installed copy

import maxent_util as mu  # noqa: E402
from maxent_util.scorer import compile_scorer  # noqa: E402


def cases(out: np.ndarray) -> list[tuple[str, object, object, object]]:
    """(label, utility, numpy by hand, numpy with out= or None)."""
    def exponential(x):
        return np.exp(x * (-1 / 24))

    def exponential_out(x):
        into = out[:x.size]
        np.multiply(x, -1 / 24, out=into)
        return np.exp(into, out=into)

    def uniform(x):
        with np.errstate(all="ignore"):
            return np.where(x < 24, 1 - x / 24, 0.0)

    def pareto(x):
        with np.errstate(all="ignore"):
            return np.where(x < 24, 1.0, (24 / x) ** 2)

    def log_normal(x):
        return 0.5 * special.erfc(np.log(x * (1 / 24)) * np.sqrt(2))

    return [("exponential(24)", mu.exponential(24).utility().expr, exponential, exponential_out),
            ("uniform(24)", mu.uniform(24).utility().expr, uniform, None),
            ("pareto(24, 2)", mu.pareto(24, 2).utility().expr, pareto, None),
            ("log_normal(24, 1/2)", mu.log_normal(24, 0.5).utility().expr, log_normal, None)]


def main(argv: list[str] | tuple[str, ...] = ()) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=10_000_000, help="runtimes (default 10^7)")
    parser.add_argument("--repeat", type=int, default=7, help="rounds (default 7)")
    parser.add_argument("--before", default=None,
                        help="a module with another compile_scorer, timed alongside")
    arguments = parser.parse_args(list(argv))
    runtimes = np.random.default_rng(0).lognormal(3.0, 2.0, arguments.n)
    runtimes[::97] = np.inf
    out = np.empty_like(runtimes)
    before = (importlib.import_module(arguments.before).compile_scorer
              if arguments.before else None)
    print(f"{arguments.n:,} runtimes, every 97th infinite; medians of {arguments.repeat} "
          f"interleaved rounds; load average {os.getloadavg()[0]:.1f}; "
          f"NPY_DISABLE_CPU_FEATURES={os.environ.get('NPY_DISABLE_CPU_FEATURES', '')!r}")
    for label, expr, by_hand, with_out in cases(out):
        contenders = {"scorer": compile_scorer(expr), "numpy": by_hand,
                      "floor": lambda x: np.exp(x, out=out[:x.size])}
        if with_out is not None:
            contenders["numpy out="] = with_out
        if before is not None:
            contenders["before"] = before(expr)
        for function in contenders.values():
            function(runtimes[:1000])  # warm up (and the limits at the ends)
        times: dict[str, list[float]] = {name: [] for name in contenders}
        for _ in range(arguments.repeat):
            for name, function in contenders.items():
                start = time.perf_counter()
                function(runtimes)
                times[name].append(time.perf_counter() - start)
        median = {name: statistics.median(values) for name, values in times.items()}
        ours = contenders["scorer"](runtimes)
        difference = float(np.max(np.abs(ours - by_hand(runtimes))))
        text = ", ".join(f"{name} {1e3 * value:6.1f} ms" for name, value in median.items())
        ratios = (f"scorer/numpy {median['scorer'] / median['numpy']:.2f}, "
                  f"scorer/floor {median['scorer'] / median['floor']:.2f}")
        if "numpy out=" in median:
            ratios += f", scorer/numpy out= {median['scorer'] / median['numpy out=']:.2f}"
        if before is not None:
            ratios += f", scorer/before {median['scorer'] / median['before']:.2f}"
        print(f"  {label:20s} {text}\n  {'':20s} {ratios}; max |scorer - numpy| {difference:.1e}")


if __name__ == "__main__":
    main(sys.argv[1:])
