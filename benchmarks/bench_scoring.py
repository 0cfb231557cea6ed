"""Benchmark of maxent_util scorers, samplers and rankings.

Run ``python benchmarks/bench_scoring.py`` (10**7 runtimes, 10**6 draws) or
with ``--quick`` (10**5 runtimes and draws; the test suite runs ``--quick --repeat 1``). Prints
times and ratios measured side by side in one process; asserts nothing about
speed.

1. Scorer throughput, per family: ``compile_scorer(u)`` against the best
   hand-written numpy formula of the same utility (constants folded; a
   ``Piecewise`` as ``np.where`` over all branches with floating-point
   warnings silenced). Families: the seven presets at the parameters of the
   paper's figure, two laws derived with numeric multipliers, a utility with
   four breakpoints.
2. The multi-core path: ``compile_scorer(u, threads=2)`` against the same
   scorer on one thread, with the largest relative difference between the
   two (0: the same blocks evaluated by the same code).
3. Sampling: ``log_laplace(24, 2).to_scipy().rvs(10**6)`` including set-up,
   against numpy's own generator of the same law (``exp`` of ``rng.laplace``).
4. Ranking the SAT Competition 2021 main track (46 solvers x 400 instances)
   under seven utilities and PAR-2, against a pandas groupby over per-run
   values computed by hand.
5. Hook for ``benchmarks/bench_scale.py`` (Dask against pandas on the same
   data): its ``main()`` runs here if that file exists.
"""

from __future__ import annotations

import argparse
import importlib.util
import inspect
import os
import time
from pathlib import Path
from typing import Callable

import numpy as np
import pandas as pd
import sympy
from scipy import special, stats

import maxent_util as mu
from maxent_util.constraints import LogMoment, Mean, Support
from maxent_util.families import FAMILIES, FIGURE_PARAMETERS
from maxent_util.maxent import derive
from maxent_util.ranking import PAR, rank
from maxent_util.scorer import compile_scorer
from maxent_util.symbols import t

HERE = Path(__file__).resolve().parent


def best_times(functions: list[Callable[[], object]], repeat: int) -> list[float]:
    """Best wall time of each function; interleaved, so load on the machine hits all alike."""
    best = [float("inf")] * len(functions)
    for _ in range(repeat):
        for i, function in enumerate(functions):
            start = time.perf_counter()
            function()
            best[i] = min(best[i], time.perf_counter() - start)
    return best


def where_by_hand(*pieces: tuple[Callable, Callable], default: Callable) -> Callable:
    """np.where over all branches, warnings silenced: the hand-written Piecewise."""
    def by_hand(x: np.ndarray) -> np.ndarray:
        with np.errstate(all="ignore"):
            result = default(x)
            for condition, branch in reversed(pieces):
                result = np.where(condition(x), branch(x), result)
            return result
    return by_hand


def derived_cases() -> list[tuple[str, sympy.Expr, Callable[[np.ndarray], np.ndarray]]]:
    """Two laws derived with numeric multipliers (15 s of derivation), their utilities by hand."""
    cases = []
    # 1 below 1, A + B exp(C t) up to 100, then 0
    truncated = derive(Support(1, 100), Mean(20)).utility().expr
    inner = truncated.args[1][0]
    offset, term = inner.as_independent(t)
    factor, exponential = term.as_independent(t)
    a, b, c = float(offset), float(factor), float(exponential.args[0] / t)
    cases.append(("derived: Support(1,100), Mean(20)", truncated,
                  where_by_hand((lambda x: x < 1, lambda x: 1.0),
                         (lambda x: x < 100, lambda x: a + b * np.exp(c * x)),
                         default=lambda x: 0.0)))
    # a gamma law: 1 - C lowergamma(s, r t)
    gamma_law = derive(Support(0, sympy.oo), Mean(10), LogMoment(2)).utility().expr
    (lower,) = gamma_law.atoms(sympy.lowergamma)
    s, r = float(lower.args[0]), float(lower.args[1] / t)
    scale = float(gamma_law.coeff(lower)) * special.gamma(s)
    one = float(gamma_law.as_independent(t)[0])
    cases.append(("derived: Mean(10), LogMoment(2)", gamma_law,
                  lambda x: one + scale * special.gammainc(s, r * x)))
    return cases


def hand_written() -> dict[str, Callable[[np.ndarray], np.ndarray]]:
    """Each family at the paper's figure's parameters, written by hand in numpy (constants
    folded, a Piecewise as np.where over all branches)."""
    return {
        "uniform": where_by_hand((lambda x: x < 24, lambda x: 1 - x / 24), default=lambda x: 0.0),
        "exponential": lambda x: np.exp(x * (-1 / 24)),
        "pareto": where_by_hand((lambda x: x < 24, lambda x: 1.0), default=lambda x: 24 / x),
        "log_laplace": where_by_hand((lambda x: x < 24, lambda x: 1 - x * x / 1152),
                              default=lambda x: 288 / (x * x)),
        "generalized_log_laplace": where_by_hand((lambda x: x < 24, lambda x: 1 - x ** 5 / 27869184),
                                          default=lambda x: (2880 / 7) / (x * x)),
        # sqrt(2) log(t/24) / (2 sigma) with sigma = 1/2
        "log_normal": lambda x: 0.5 * special.erfc(np.log(x * (1 / 24)) * np.sqrt(2)),
        "piecewise": where_by_hand((lambda x: x < 12, lambda x: 1 - x / 40),
                            (lambda x: x < 24, lambda x: 1.4 - x * (7 / 120)),
                            default=lambda x: 0.0),
    }


def four_breakpoints() -> tuple[str, sympy.Expr, Callable[[np.ndarray], np.ndarray]]:
    """A utility of five pieces (log, exponential, linear, 0), and the same by hand."""
    breakpoints = sympy.Piecewise(
        (1, t < 1), (1 - sympy.log(t) / 10, t < 10),
        (sympy.Rational(77, 100) * sympy.exp(-(t - 10) / 50), t < 100),
        ((1000 - t) / 9000, t < 1000), (0, True))
    e77 = 0.77 * np.exp(10 / 50)
    return ("utility, 4 breakpoints", breakpoints,
            where_by_hand((lambda x: x < 1, lambda x: 1.0),
                   (lambda x: x < 10, lambda x: 1 - np.log(x) * 0.1),
                   (lambda x: x < 100, lambda x: e77 * np.exp(x * -0.02)),
                   (lambda x: x < 1000, lambda x: (1000 - x) * (1 / 9000)),
                   default=lambda x: 0.0))


def scorer_cases(derived: bool = True) -> list[tuple[str, sympy.Expr, Callable[[np.ndarray], np.ndarray]]]:
    """(label, utility, the same utility written by hand in numpy) for every family; the laws
    with numeric multipliers only if ``derived``."""
    hand = hand_written()
    cases = []
    for name in FAMILIES:
        law = getattr(mu, name)(*FIGURE_PARAMETERS[name])
        cases.append((name, law.utility().expr, hand[name]))
    if derived:
        cases += derived_cases()
    cases.append(four_breakpoints())
    return cases


def scorer_rows(n: int, repeat: int, derived: bool = True) -> list[tuple[str, float, float, float]]:
    runtimes = np.random.default_rng(0).lognormal(3.0, 2.0, n)
    rows = []
    for name, expr, by_hand in scorer_cases(derived):
        scorer = compile_scorer(expr)
        ours = scorer(runtimes)  # also warms up: compiling is not timed
        reference = by_hand(runtimes)
        diff = float(np.max(np.abs(ours - reference)))  # utilities lie in [0, 1]
        times = best_times([lambda: scorer(runtimes), lambda: by_hand(runtimes)], repeat)
        rows.append((name, *times, diff))
    return rows


def multicore_rows(n: int, repeat: int, derived: bool = True,
                   threads: int = 2) -> list[tuple[str, float, float, float]]:
    """(family, scorer on 1 thread, on ``threads`` threads, max rel. diff)."""
    runtimes = np.random.default_rng(0).lognormal(3.0, 2.0, n)
    rows = []
    for name, expr, _ in scorer_cases(derived):
        plain, fast = compile_scorer(expr), compile_scorer(expr, threads=threads)
        a, b = plain(runtimes), fast(runtimes)
        same = (a == b) | (np.isnan(a) & np.isnan(b))
        diff = float(np.max(np.where(same, 0.0, np.abs(a - b) / np.maximum(np.abs(a), 1e-300))))
        times = best_times([lambda: plain(runtimes), lambda: fast(runtimes)], repeat)
        rows.append((name, *times, diff))
    return rows


def sampling_rows(n: int, repeat: int) -> list[tuple[str, float]]:
    """rvs throughput of log_laplace(24, 2) against numpy's generator of the same law."""
    stats.norm  # scipy.stats imported outside the timing (a one-off per process)

    def ours_cold() -> np.ndarray:
        law = mu.log_laplace(24, 2).with_name(None)  # a fresh copy: its scipy view is rebuilt
        return law.to_scipy().rvs(n, random_state=np.random.default_rng(1))

    frozen = mu.log_laplace(24, 2).to_scipy()
    rng = np.random.default_rng(1)

    def ours_warm() -> np.ndarray:
        return frozen.rvs(n, random_state=rng)

    def numpy_own() -> np.ndarray:  # log T ~ Laplace(log 24, 1/alpha)
        return np.exp(rng.laplace(np.log(24.0), 0.5, n))

    cold, warm, reference = best_times([ours_cold, ours_warm, numpy_own], repeat)
    ks = stats.kstest(ours_cold(), frozen.cdf)
    return [(f"to_scipy() + rvs({n:,}), fresh law", cold),
            (f"rvs({n:,}) on a built view", warm),
            (f"numpy: exp(rng.laplace(log 24, 1/2, {n:,}))", reference),
            (f"KS test of the fresh draws against the law's CDF: p = {ks.pvalue:.2f}", float("nan"))]


def main_track() -> tuple[pd.DataFrame, str]:
    try:
        from maxent_util.datasets import satcomp2021

        return satcomp2021("main"), "SAT Competition 2021 main track"
    except (ImportError, ValueError):
        rng = np.random.default_rng(1)
        solvers, instances = 46, 400
        runtime = rng.lognormal(5.0, 2.0, solvers * instances)
        solved = runtime < 5000
        table = pd.DataFrame({
            "algorithm": np.repeat([f"solver{i:02d}" for i in range(solvers)], instances),
            "instance": np.tile([f"instance{j:03d}" for j in range(instances)], solvers),
            "runtime": np.where(solved, runtime, 5000.0),
            "status": np.where(solved, "solved", "capped"),
            "cutoff": 5000.0,
        })
        return table, "synthetic table of the main track's shape"


def ranking_rows(repeat: int) -> tuple[str, int, list[tuple[str, float]]]:
    table, label = main_track()
    k = 60.0
    rules = {
        "uniform": sympy.Max(0, 1 - t / 5000),
        "exponential": sympy.exp(-t / k),
        "Pareto": sympy.Piecewise((1, t < k), (k / t, True)),
        "log-Laplace": sympy.Piecewise((1 - t / k / 2, t < k), (k / t / 2, True)),
        "generalized log-Laplace": sympy.Piecewise((1 - sympy.Rational(2, 3) * t / k, t < k),
                                                   (sympy.Rational(1, 3) * (k / t) ** 2, True)),
        "log-normal": sympy.Rational(1, 2) - sympy.erf(sympy.log(t / k) / sympy.sqrt(2)) / 2,
        "piecewise": sympy.Piecewise((1 - 0.01 * t / 100, t < 100),
                                     (0.99 * (5000 - t) / 4900, t < 5000), (0, True)),
        "PAR-2": PAR(2),
    }

    def by_hand() -> pd.DataFrame:
        x = table["runtime"].to_numpy()
        solved = (table["status"] == "solved").to_numpy()
        with np.errstate(divide="ignore"):
            values = {
                "uniform": np.maximum(0, 1 - x / 5000),
                "exponential": np.exp(-x / k),
                "Pareto": np.where(x < k, 1.0, k / x),
                "log-Laplace": np.where(x < k, 1 - x / k / 2, k / x / 2),
                "generalized log-Laplace": np.where(x < k, 1 - 2 / 3 * x / k,
                                                    1 / 3 * (k / x) ** 2),
                "log-normal": 0.5 * special.erfc(np.log(x / k) / np.sqrt(2)),
                "piecewise": np.where(x < 100, 1 - 0.01 * x / 100,
                                      np.where(x < 5000, 0.99 * (5000 - x) / 4900, 0.0)),
            }
        frame = pd.DataFrame({name: np.where(solved, v, 0.0) for name, v in values.items()})
        frame["PAR-2"] = np.where(solved, x, 2 * table["cutoff"].to_numpy())
        frame["algorithm"] = table["algorithm"].to_numpy()
        return frame.groupby("algorithm").mean()

    (cold,) = best_times([lambda: rank(table, rules)], 1)  # first call compiles the scorers
    warm, hand = best_times([lambda: rank(table, rules), by_hand], repeat)
    ours = rank(table, rules)
    reference = by_hand()
    worst = max(float(np.max(np.abs(ours[name] - reference.loc[ours.index, name])
                              / np.abs(reference.loc[ours.index, name]).clip(1e-300)))
                for name in rules)
    rows = [("rank, first call (compiles scorers)", cold),
            ("rank, later calls", warm),
            ("pandas groupby of hand-written numpy", hand)]
    return f"{label}: {len(table)} runs, {len(rules)} rules (max rel. diff {worst:.1e})", \
        len(table), rows


def run_scale_benchmark(quick: bool) -> bool:
    """HOOK (Dask against pandas on the same data): runs ``benchmarks/bench_scale.py``'s
    ``main()`` if that file exists, passing ``["--quick"]`` or ``[]`` when ``main`` takes
    an argument list. Returns whether it ran."""
    path = HERE / "bench_scale.py"
    if not path.exists():
        return False
    spec = importlib.util.spec_from_file_location("bench_scale", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    if inspect.signature(module.main).parameters:
        module.main(["--quick"] if quick else [])
    else:
        module.main()
    return True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="10**5 runtimes and draws instead of 10**7 and 10**6")
    parser.add_argument("--repeat", type=int, default=None, help="timings per case (best of)")
    options = parser.parse_args()
    n = 10**5 if options.quick else 10**7
    draws = 10**5 if options.quick else 10**6
    repeat = options.repeat or (3 if options.quick else 5)

    print(f"1. Scorer throughput on {n:,} runtimes (best of {repeat}; ratios <= 1 mean "
          "at least as fast as numpy by hand)"
          + ("; --quick leaves out the two derived laws" if options.quick else ""))
    header = f"{'utility':<36}{'scorer':>11}{'numpy':>11}{'vs numpy':>10}{'max |diff|':>14}"
    print(header)
    print("-" * len(header))
    for name, ours, hand, diff in scorer_rows(n, repeat, not options.quick):
        print(f"{name:<36}{ours * 1e3:>9.2f}ms{hand * 1e3:>9.2f}ms{ours / hand:>9.2f}x{diff:>14.1e}")

    print()
    print(f"2. Multi-core scorer (threads=2; this machine has {os.cpu_count()} cores) "
          f"on {n:,} runtimes")
    header = f"{'utility':<36}{'1 thread':>11}{'2 threads':>11}{'speed-up':>10}{'max rel diff':>14}"
    print(header)
    print("-" * len(header))
    for name, plain, fast, diff in multicore_rows(n, repeat, not options.quick):
        print(f"{name:<36}{plain * 1e3:>9.2f}ms{fast * 1e3:>9.2f}ms{plain / fast:>9.2f}x"
              f"{diff:>14.1e}")

    print()
    print(f"3. Sampling log_laplace(24, 2) (best of {repeat})")
    rows = sampling_rows(draws, repeat)
    reference = rows[2][1]
    for label, seconds in rows:
        if np.isnan(seconds):
            print(label)
        else:
            print(f"{label:<52}{seconds * 1e3:>9.2f}ms{seconds / reference:>9.2f}x"
                  f"{draws / seconds / 1e6:>9.1f} M draws/s")

    title, _, rows = ranking_rows(repeat)
    print()
    print(f"4. Ranking: {title}")
    reference = rows[-1][1]
    for label, seconds in rows:
        print(f"{label:<40}{seconds * 1e3:>9.2f}ms{seconds / reference:>9.2f}x")

    print()
    print("5. Dask against pandas (benchmarks/bench_scale.py)")
    if options.quick:
        # starting Dask's worker processes alone takes longer than the rest of a quick run
        print("   skipped with --quick: run benchmarks/bench_scale.py --quick (about 20 s) or without it")
    elif not run_scale_benchmark(quick=False):
        print("   (benchmarks/bench_scale.py is not there)")


if __name__ == "__main__":
    main()
