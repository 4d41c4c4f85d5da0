"""Progress lines on stderr (a step's wall time: :mod:`iconbench.records.phases`)."""

from __future__ import annotations

import sys
import time


def log(message: str) -> None:
    """One progress line on stderr, with the time of day."""
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)
