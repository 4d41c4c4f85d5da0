"""A process of one side of a comparison, in that side's environment, failing in one line."""

from __future__ import annotations

import dataclasses
import pathlib
import subprocess
import time
from collections.abc import Sequence

from iconbench.errors import IconbenchError
from iconbench.stacks.sides import Side


@dataclasses.dataclass
class Started:
    """A side's process, running, its output going to ``log``."""

    side: Side
    process: subprocess.Popen
    what: str
    log: pathlib.Path
    started: float

    @property
    def where(self) -> str:
        """``what on SIDE (COMMIT)``: how its one-line failures begin."""
        return _where(self.what, self.side)

    def finish(self, timeout_s: float) -> None:
        """Wait for it, ``timeout_s`` from its start; one line if it failed or took too long.

        The line ends with the last line the process wrote; ``log`` has all of it.
        """
        left = max(0.0, timeout_s - (time.monotonic() - self.started))
        try:
            status = self.process.wait(timeout=left)
        except subprocess.TimeoutExpired:
            self.stop()
            raise IconbenchError(f"{self.where} took over {timeout_s:.0f} s; stopped") from None
        if status != 0:
            text = self.log.read_text(encoding="utf-8", errors="replace")
            lines = [ln for ln in text.splitlines() if ln.strip()]
            last = lines[-1].strip()[:200] if lines else f"exit {status}"
            raise IconbenchError(f"{self.where} failed: {last} (all of it: {self.log})")

    def stop(self) -> None:
        """End it (another side failed, or it ran out of time)."""
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


def start(side: Side, command: Sequence[str], *, what: str, log: pathlib.Path) -> Started:
    """Start ``command`` with ``side``'s environment, its output (stdout and stderr) into ``log``.

    One line when the program is not there (``ncu`` not on PATH).
    """
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("w", encoding="utf-8") as output:
        try:
            process = subprocess.Popen(list(command), env=side.environment(), stdout=output,
                                       stderr=subprocess.STDOUT)  # fmt: skip
        except FileNotFoundError:
            raise IconbenchError(f"{_where(what, side)}: {command[0]} is not on PATH") from None
    return Started(side, process, what, log, time.monotonic())


def _where(what: str, side: Side) -> str:
    return f"{what} on {side.name} ({side.commit[:12]})"


def run(
    side: Side, command: Sequence[str], *, what: str, timeout_s: float, log: pathlib.Path
) -> None:
    """Run ``command`` with ``side``'s environment to its end, its output into ``log``.

    A failure is one line saying ``what`` failed on which side and commit, ending with the
    last line the process wrote; ``log`` has all of it.
    """
    start(side, command, what=what, log=log).finish(timeout_s)
