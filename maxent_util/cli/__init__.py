"""The ``maxent-util`` command line.

Subcommands: ``derive`` (constraints -> captime law and utility), ``family``
(the paper's presets), ``rank`` (runtime data -> rankings), ``sweep`` (how a
ranking changes with a utility's parameter), ``compare``
(is one algorithm really ahead of another?), ``plan`` (sampling plans),
``race`` (the best algorithm by utility without running everything),
``export`` (Python, C or LaTeX), ``plot`` (figures), ``tour`` (all of it on
the bundled SAT Competition 2021 data) and ``report`` (one HTML page about
runtime data).

The flags of ``derive`` are made from the registry of constraint kinds: a
kind ``TailProbability`` with ``argument_names = ("kappa1", "delta")``
becomes ``--tail-probability KAPPA1 DELTA``, so a new kind gets its flag
with no edit here.

One module per command (``derive``, ``family``, ``rank``, ``sweep``,
``compare``, ``race``, ``plan``, ``export``, ``plot``, ``tour``, ``report``),
each with its ``add_parser`` and its ``_command_*``, over a small shared core:
``core`` (errors, argument readers, printing), ``files`` (files written whole)
and ``inputs`` (runtime data and rules); ``app`` builds the parser from the
command modules and holds ``main``. A new command is a new module whose
``add_parser`` ``app.build_parser`` calls. Every module imports sympy, scipy and
pandas only inside the functions that need them: ``maxent-util --help`` loads
none of them.

Bad input (an unknown flag, a bad number, an unreadable file, constraints
no distribution meets, a spec that does not parse) exits with status 2 and
one line on stderr starting ``maxent-util: error:``.  An unexpected failure
exits with status 1, also in one line; set ``MAXENT_UTIL_TRACEBACK=1`` to
see the traceback instead.
"""

from __future__ import annotations

from .._limits import MAX_POINTS, MAX_RESAMPLES
from .app import build_parser, main
from .core import PROG, CommandLineError
from .derive import _flag_name, distribution_record
from .inputs import DATASETS, TOUR_UTILITIES
from .rank import LOCAL_CLUSTER

__all__ = ["main", "build_parser", "TOUR_UTILITIES", "DATASETS"]
