"""Progress lines and the wall time of each step (``OUT/work/phases.jsonl``)."""

from __future__ import annotations

import pathlib
import sys
import time
from typing import Any

from iconbench.records import phases


def log(message: str) -> None:
    """One progress line on stderr, with the time of day."""
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def phase(out: pathlib.Path, name: str, seconds: float, **extra: Any) -> None:
    """Append the wall time of one step to ``out/work/phases.jsonl`` (for the report)."""
    phases.append(out / "work", name, seconds, **extra)
