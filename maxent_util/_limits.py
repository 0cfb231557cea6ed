"""Sizes of work the package refuses to start, in one place for the library and the command line.

Each is what one call may ask for; beyond it numpy asked for gigabytes to terabytes and ended in
a MemoryError. At these sizes the 2021 SAT Competition parallel track (9 algorithms, 400
instances) takes about 15 s and 350 MB each.
"""

from __future__ import annotations

__all__ = ["MAX_POINTS", "MAX_RESAMPLES"]

#: the most values a sweep scans (it holds algorithms x points scores; 10**8 asked for 7 GB)
MAX_POINTS = 100_000

#: the most bootstrap resamples (resamples x algorithms means; 10**12 asked for 65 TB);
#: interval ends move by less than 0.1% of their width beyond 100,000
MAX_RESAMPLES = 1_000_000
