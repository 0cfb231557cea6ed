"""``python -m maxent_util.cli``: the ``maxent-util`` command line."""

from __future__ import annotations

import sys

from .app import main

if __name__ == "__main__":
    sys.exit(main())
