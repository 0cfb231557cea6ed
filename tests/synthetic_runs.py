"""Synthetic long runtime tables of any number of algorithms, for the figures and the report."""

from __future__ import annotations

import numpy as np
import pandas as pd


def competition(algorithms: int, instances: int = 12, *, cutoff: float = 1000.0,
                seed: int = 0) -> pd.DataFrame:
    """``algorithms`` solvers on ``instances`` instances, one run each, as in a competition.

    Each solver's runtimes are log-normal around its own speed (so the ranking is spread
    out and some orders differ between rules); runs at or past ``cutoff`` are capped, and
    a few runs are memouts. Names are long, as published solver names are.
    """
    rng = np.random.default_rng(seed)
    names = [f"solver-{index:03d}-{'abcdefgh'[index % 8] * (3 + index % 5)}"
             for index in range(algorithms)]
    speed = np.exp(rng.uniform(np.log(2.0), np.log(400.0), size=algorithms))
    difficulty = np.exp(rng.normal(0.0, 1.0, size=instances))
    rows = []
    for name, scale in zip(names, speed):
        times = scale * difficulty * np.exp(rng.normal(0.0, 0.8, size=instances))
        for index, time in enumerate(times):
            status = "solved" if time < cutoff else "capped"
            if rng.random() < 0.03:
                status = "memout"
            rows.append((name, f"instance-{index:03d}.cnf", float(min(time, cutoff)), status,
                         cutoff))
    return pd.DataFrame(rows, columns=["algorithm", "instance", "runtime", "status", "cutoff"])
