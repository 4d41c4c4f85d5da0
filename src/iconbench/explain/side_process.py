"""A process of one side of a comparison, in that side's environment, failing in one line."""

from __future__ import annotations

import pathlib
import subprocess
from collections.abc import Sequence

from iconbench.errors import IconbenchError
from iconbench.stacks.sides import Side


def run(
    side: Side, command: Sequence[str], *, what: str, timeout_s: float, log: pathlib.Path
) -> None:
    """Run ``command`` with ``side``'s environment, its output into ``log``.

    A failure is one line saying ``what`` failed on which side and commit, ending with the
    last line the process wrote on stderr (else on stdout); ``log`` has all of it.
    """
    where = f"{what} on {side.name} ({side.commit[:12]})"
    try:
        done = subprocess.run(
            list(command),
            env=side.environment(),
            capture_output=True,
            text=True,
            timeout=timeout_s,
            check=False,
        )
    except FileNotFoundError:
        raise IconbenchError(f"{where}: {command[0]} is not on PATH") from None
    except subprocess.TimeoutExpired:
        raise IconbenchError(f"{where} took over {timeout_s:.0f} s; stopped") from None
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_text(done.stdout + done.stderr, encoding="utf-8")
    if done.returncode != 0:
        lines = [ln for ln in (done.stderr or done.stdout).splitlines() if ln.strip()]
        last = lines[-1].strip()[:200] if lines else f"exit {done.returncode}"
        raise IconbenchError(f"{where} failed: {last} (all of it: {log})")
