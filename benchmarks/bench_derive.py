"""Benchmark of ``derive`` on the paper's seven captime families.

Run ``python benchmarks/bench_derive.py`` (symbolic parameters and the
paper's figure parameters, best of three cold runs) or with ``--quick`` (the
figure parameters, one cold run); ``--families NAME ...`` keeps some of the
seven (the test suite runs ``--quick --families uniform pareto``).  Prints, per
family, the time of a cold derivation (derive's cache and sympy's cache
cleared), of a warm one (the same constraints again) and their ratio
warm/cold; asserts nothing about speed.  The aims: under 2 s cold on a
2-core machine, under 1 ms warm.
"""

from __future__ import annotations

import argparse
import time

import sympy
from sympy.core.cache import clear_cache

from maxent_util.maxent import derive
from maxent_util.families import FAMILIES, FIGURE_PARAMETERS, family_constraints

#: the parameters of the paper's Figure "utilgrid" (Section 3)
FIGURE = FIGURE_PARAMETERS


def symbolic_parameters(name: str) -> tuple:
    return tuple(sympy.Symbol(parameter, positive=True) for parameter in FAMILIES[name])


def measure(constraints: tuple, repeat: int) -> tuple[float, float]:
    """(best cold time, best warm time) of ``derive(*constraints)``, in seconds."""
    cold = warm = float("inf")
    for _ in range(repeat):
        derive.cache_clear()
        clear_cache()  # sympy's own cache would make a second "cold" run warm
        start = time.perf_counter()
        derive(*constraints)
        cold = min(cold, time.perf_counter() - start)
        for _ in range(5):
            start = time.perf_counter()
            derive(*constraints)
            warm = min(warm, time.perf_counter() - start)
    return cold, warm


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="figure parameters only, one cold run per family")
    parser.add_argument("--families", nargs="+", choices=list(FAMILIES), default=list(FAMILIES),
                        metavar="NAME", help="only these families, in the paper's order "
                        f"(default all: {', '.join(FAMILIES)})")
    options = parser.parse_args(argv)
    chosen = [name for name in FAMILIES if name in options.families]
    repeat = 1 if options.quick else 3
    settings = [("figure", FIGURE)]
    if not options.quick:
        settings.insert(0, ("symbolic", {name: symbolic_parameters(name) for name in chosen}))

    print(f"{'family':<25} {'parameters':<10} {'cold (s)':>10} {'warm (ms)':>10} {'warm/cold':>11}")
    for label, parameters in settings:
        for name in chosen:
            constraints = family_constraints(name, *parameters[name])
            cold, warm = measure(constraints, repeat)
            print(f"{name:<25} {label:<10} {cold:>10.3f} {warm * 1e3:>10.4f} {warm / cold:>11.2e}")


if __name__ == "__main__":
    main()
