"""Benchmark of a compiled scorer's self-check against mpmath.

Run ``python benchmarks/bench_check.py`` (best of five) or with ``--quick`` (best of one);
``--laws NAME ...`` keeps some (the test suite runs ``--quick --laws pareto``).
For each of the paper's seven families at the figure parameters, and for a law derived from
values as people type them, prints the time to compile its scorer with the check
(:class:`maxent_util.scorer.Scorer` as shipped) and without it (the same class with the
check switched off), their ratio, and the route the check settled on, beside the time of
the law's own derivation (cold); asserts nothing about speed.  The aim: a check small next
to a derivation.
"""

from __future__ import annotations

import argparse
import time

from sympy.core.cache import clear_cache

from maxent_util import scorer as scorer_module
from maxent_util.constraints import LogMoment, SquaredLogDeviation, Support
from maxent_util.families import FAMILIES, FIGURE_PARAMETERS, family_constraints
from maxent_util.maxent import derive


def laws() -> dict[str, tuple]:
    """name -> constraints: the seven families, and the log-normal with an offset."""
    chosen = {name: tuple(family_constraints(name, *FIGURE_PARAMETERS[name])) for name in FAMILIES}
    chosen["log-normal, typed values"] = (Support(0, "oo"), SquaredLogDeviation(0.9, 15),
                                          LogMoment(-0.231, 15))
    return chosen


def compile_time(expr, check: bool, repeat: int) -> tuple[float, str]:
    """(best seconds to build a Scorer of ``expr``, its route)."""
    saved = scorer_module._MAX_VERIFIED
    best, route = float("inf"), ""
    try:
        scorer_module._MAX_VERIFIED = saved if check else 0
        for _ in range(repeat):
            clear_cache()
            start = time.perf_counter()
            built = scorer_module.Scorer(expr)
            best = min(best, time.perf_counter() - start)
            route = built.route
    finally:
        scorer_module._MAX_VERIFIED = saved
    return best, route


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one run of each")
    parser.add_argument("--laws", nargs="+", metavar="NAME", help="only these laws (default all)")
    options = parser.parse_args(argv)
    repeat = 1 if options.quick else 5
    print(f"{'law':<26} {'derive':>9} {'no check':>9} {'checked':>9} {'ratio':>6}  route")
    for name, constraints in laws().items():
        if options.laws and name not in options.laws:
            continue
        derive.cache_clear()
        clear_cache()
        start = time.perf_counter()
        law = derive(*constraints)
        derived = time.perf_counter() - start
        expr = law.utility().expr
        compile_time(expr, True, 1)  # warm-up: imports (scipy.special) before either is timed
        plain, _ = compile_time(expr, False, repeat)
        checked, route = compile_time(expr, True, repeat)
        print(f"{name:<26} {derived * 1e3:7.0f}ms {plain * 1e3:7.1f}ms {checked * 1e3:7.1f}ms "
              f"{checked / plain:6.2f}  {route}")


if __name__ == "__main__":
    main()
