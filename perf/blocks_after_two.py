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
import json
import pathlib
import re
import shutil
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

#: The directories whose checks are replayed by default.
RESULTS = ("results/pr-check-h100", "results/pr-check-2xh100", "results/pr-check-2xh200",
           "results/pr-check-h200")  # fmt: skip
#: A worker's round: ``r03-head-p2``, on a host with several devices ``d1-r03-head-p2``.
ROUND = re.compile(r"(?:^|-)r(\d+)-")


def recorded() -> list[str]:
    """The committed checks that measured more than two blocks, as ``results/DIR/CHECK``."""
    checks = []
    for results in RESULTS:
        for path in sorted((ROOT / results).glob("*/check.json")):
            if json.loads(path.read_text()).get("blocks", 0) > 2:
                checks.append(str(path.parent.relative_to(ROOT)))
    return checks


def _clock(log: str, pattern: str) -> int | None:
    """Seconds of the day of the first line of ``log`` that matches ``pattern``."""
    found = re.search(r"^\[(\d\d):(\d\d):(\d\d)\] " + pattern, log, re.MULTILINE)
    if found is None:
        return None
    hours, minutes, seconds = (int(x) for x in found.groups())
    return 3600 * hours + 60 * minutes + seconds


def replay(check: str, work: pathlib.Path) -> str:
    """One row: blocks measured, the gate's decision after block 2 now, the later blocks' time."""
    from iconbench import grids, results_archive
    from iconbench.check import stopping
    from iconbench.errors import IconbenchError
    from iconbench.records.check import CheckRecord

    record = CheckRecord.read(ROOT / check)
    grid = grids.resolve(record.facts["grid"])
    for side in ("base", "head"):
        ledger = results_archive.cached(ROOT, f"{check}/{side}/work/session.jsonl")
        kept = [line for line in ledger.read_text().splitlines()
                if (found := ROUND.search(json.loads(line).get("worker") or ""))
                and int(found.group(1)) <= 8]  # fmt: skip
        out = work / check / side / "work"
        out.mkdir(parents=True, exist_ok=True)
        (out / "session.jsonl").write_text("".join(line + "\n" for line in kept))
    base, head = (_side(work / check / side, side, grid) for side in ("base", "head"))
    from iconbench.gate import verdict

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
    decided, ended = _clock(log, r"check: block 2 measured"), _clock(log, r"check: \d+ rounds in")
    seconds = "–" if decided is None or ended is None else f"{ended - decided} s"
    return f"| {check.split('/', 1)[1]} | {record.facts['blocks']} | {reason} | {seconds} |"


def _side(path: pathlib.Path, label: str, grid):
    from iconbench.records import resultset

    return resultset.ledger_set(path, label=label, commit=label, grid=grid)


def main() -> int:
    """Each check's row (module docstring)."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n", 1)[0])
    parser.add_argument("checks", nargs="*", help="results/DIR/CHECK (default: every check "
                        "committed that measured more than two blocks)")  # fmt: skip
    args = parser.parse_args()
    from iconbench.errors import IconbenchError

    print("| check | blocks measured | after block 2, today's gate | block 2's decision to the "
          "end of the later blocks |")  # fmt: skip
    print("| --- | ---: | --- | ---: |")
    work = pathlib.Path(tempfile.mkdtemp(prefix="blocks-after-two-"))
    try:
        for check in args.checks:
            print(replay(check, work), flush=True)
        for check in [] if args.checks else recorded():
            try:
                print(replay(check, work), flush=True)
            except IconbenchError:  # recorded without rounds' ledgers (a check of the cache)
                print(f"| {check.split('/', 1)[1]} | | no session ledger archived | – |")
    except IconbenchError as error:  # a check not recorded, or its raw files not archived
        print(f"blocks_after_two: {error}", file=sys.stderr)
        return 2
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
