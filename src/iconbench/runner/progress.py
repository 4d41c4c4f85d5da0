"""Progress lines and the wall time of each step (``OUT/work/phases.jsonl``)."""

from __future__ import annotations

import json
import pathlib
import sys
import time


def log(message: str) -> None:
    """One progress line on stderr, with the time of day."""
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def phase(out: pathlib.Path, name: str, seconds: float, **extra) -> None:
    """Append the wall time of one step to ``out/work/phases.jsonl`` (for the report)."""
    path = out / "work" / "phases.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    line = json.dumps({"phase": name, "seconds": seconds, "at": time.time(), **extra})
    with path.open("a", encoding="utf-8") as handle:
        handle.write(line + "\n")
