#!/usr/bin/env python3
"""Whether today's gate would stop the recorded checks after block 2.

Run: ``python perf/blocks_after_two.py`` (raw files from git history).

A check measures blocks 3-4 only for the benchmarks that are still open after block 2 and
could become a regression on more processes (``iconbench.check.stopping``). A change of the
gate (docs/gate.md: the processes' CPU speed as a covariate of host overhead, and a change of
host overhead flagged on 5 processes a side or more) changes which benchmarks those are. This
replays the decision after block 2 on every committed check that measured more than two
blocks: each side's session ledger cut to its first 8 rounds (4 processes a side), the gate
asked as the check asks it (``stopping.reason_to_stop``). Per check it prints the blocks the
check measured, what the gate says now, and, where the check's log is kept, the seconds from
the decision after block 2 to the end of the later blocks.
"""

from __future__ import annotations

import argparse
import functools
import json
import pathlib
import sys
from collections.abc import Callable

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

#: The directories whose checks are replayed by default.
RESULTS = ("results/pr-check-h100", "results/pr-check-2xh100", "results/pr-check-2xh200",
           "results/pr-check-h200")  # fmt: skip


def recorded() -> list[str]:
    """The committed checks that measured more than two blocks, as ``results/DIR/CHECK``."""
    checks = []
    for results in RESULTS:
        for path in sorted((ROOT / results).glob("*/check.json")):
            if json.loads(path.read_text()).get("blocks", 0) > 2:
                checks.append(str(path.parent.relative_to(ROOT)))
    return checks


def replay(check: str, work: pathlib.Path) -> str:
    """One row: blocks measured, the gate's decision after block 2 now, the later blocks' time."""
    from early_blocks import later_blocks_seconds, round_number  # beside this script

    from iconbench import grids, results_archive
    from iconbench.check import stopping
    from iconbench.errors import IconbenchError
    from iconbench.gate import verdict
    from iconbench.records import resultset
    from iconbench.records.check import CheckRecord

    record = CheckRecord.read(ROOT / check)
    grid = grids.resolve(record.facts["grid"])
    for side in ("base", "head"):
        ledger = results_archive.cached(ROOT, f"{check}/{side}/work/session.jsonl")
        kept = [line for line in ledger.read_text().splitlines()
                if round_number(json.loads(line)["worker"]) <= 8]  # fmt: skip
        out = work / check / side / "work"
        out.mkdir(parents=True, exist_ok=True)
        (out / "session.jsonl").write_text("".join(line + "\n" for line in kept))
    base, head = (resultset.ledger_set(work / check / side, label=side, commit=side, grid=grid)
                  for side in ("base", "head"))  # fmt: skip
    results = verdict.compare(base, head).benchmarks
    reason = stopping.reason_to_stop(results, 4, 8)
    if reason is None:
        left = stopping.keeping_on(results, 4, 8)
        reason = "measures on for " + ", ".join(
            sorted({f"{r.program} {r.backend} {r.metric}" for r in left})
        )
    try:
        log = results_archive.cached(ROOT, f"{check}/benchmark.log").read_text(errors="replace")
    except IconbenchError:  # checks recorded before the benchmark kept its log
        log = ""
    seconds = later_blocks_seconds(log)
    return f"| {check.split('/', 1)[1]} | {record.facts['blocks']} | {reason} | {seconds} |"


def main() -> int:
    """Each check's row (module docstring)."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n", 1)[0])
    parser.add_argument("checks", nargs="*", help="results/DIR/CHECK (default: every check "
                        "committed that measured more than two blocks)")  # fmt: skip
    args = parser.parse_args()
    from early_blocks import print_rows  # beside this script

    from iconbench.errors import IconbenchError

    def skipped(check: str) -> Callable[[pathlib.Path], str]:
        """A default check's row; one recorded without rounds' ledgers says so and is skipped."""

        def row(work: pathlib.Path) -> str:
            try:
                return replay(check, work)
            except IconbenchError:  # a check of the cache alone
                return f"| {check.split('/', 1)[1]} | | no session ledger archived | – |"

        return row

    print("| check | blocks measured | after block 2, today's gate | block 2's decision to the "
          "end of the later blocks |")  # fmt: skip
    print("| --- | ---: | --- | ---: |")
    rows = ([functools.partial(replay, check) for check in args.checks]
            or [skipped(check) for check in recorded()])  # fmt: skip
    return print_rows("blocks_after_two", rows)


if __name__ == "__main__":
    sys.exit(main())
