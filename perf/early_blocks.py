#!/usr/bin/env python3
"""The later blocks a check needed, and whether the gate named them before the last build.

Run: ``python perf/early_blocks.py``.

With main's builds the heavy check measures the cases whose builds both sides have while
head's longest builds still compile, and its first two blocks end soon after the last
build. Where the gate then leaves a benchmark open that more processes could decide, blocks
3-4 start up for its cases after that decision: 10-15 s after the last build on the H200
hosts. From this change the gate is asked while the builds compile, about the benchmarks
whose cases every round has measured (``iconbench.check.run._open_so_far``), and blocks 3-4
start for those at once (``iconbench.check.rounds.measure``'s ``open_early``).

This replays that question on recorded checks (default: the committed H200 checks with main's
builds measured while head compiled that needed a third block; raw files from git history):
each side's session ledger cut at the end of head's last build, the cases measured by then
in all 8 rounds, and the gate asked about them with 4 processes a side. Per check it prints
the cases the gate left open after block 2 (``rounds/jobs-b03-*.json``), those it names
before the last build, and the seconds from the decision after block 2 to the end of the
later blocks (``benchmark.log``): what an early start takes off the check where the two sets
agree.
"""

from __future__ import annotations

import argparse
import datetime
import functools
import json
import pathlib
import re
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterable

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

CHECKS = (
    "icon4py-1405-main-c3a5b1a-1023",
    "icon4py-1405-main-5098a2d-1135",
    "icon4py-1405-main-f51c43e-1339",
)
RESULTS = "results/pr-check-h200"


def _lines(path: pathlib.Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


#: A worker's round: ``r03-head-p2``, on a host with several devices ``d1-r03-head-p2``.
ROUND = re.compile(r"(?:^|-)r(\d+)-")


def round_number(worker: str) -> int:
    """A record's round (``d1-r03-head-p2`` -> 3).

    >>> round_number("r03-head-p2"), round_number("d1-r11-base")
    (3, 11)
    """
    found = ROUND.search(worker)
    if found is None:
        raise ValueError(f"not a round's worker: {worker!r}")
    return int(found.group(1))


def _round(worker: str) -> str:
    """A record's round: its worker's name without the part (``r03-head-p2`` -> ``r03-head``)."""
    return re.sub(r"-p[0-9]+$", "", worker)


def _clock(log: str, pattern: str) -> float | None:
    """Seconds of the day of the first line of ``log`` that matches ``pattern``."""
    found = re.search(r"^\[(\d\d):(\d\d):(\d\d)\] " + pattern, log, re.MULTILINE)
    if found is None:
        return None
    hours, minutes, seconds = (int(x) for x in found.groups())
    return 3600 * hours + 60 * minutes + seconds


def later_blocks_seconds(log: str) -> str:
    r"""From the decision after block 2 to the end of the later blocks, in a check's log.

    >>> later_blocks_seconds("[10:00:05] check: block 2 measured in 60s; not decided yet\n"
    ...                      "[10:00:20] check: 12 rounds in 75s (decided)")
    '15 s'
    >>> later_blocks_seconds("")
    '–'
    """
    decided, ended = _clock(log, r"check: block 2 measured"), _clock(log, r"check: \d+ rounds in")
    return "–" if decided is None or ended is None else f"{ended - decided} s"


def print_rows(script: str, rows: Iterable[Callable[[pathlib.Path], str]]) -> int:
    """Print each row, made in a scratch directory of the script's; a bad check in one line.

    A check not recorded, or whose raw files are not archived, ends the script with
    ``SCRIPT: what is wrong`` on stderr and exit status 2.
    """
    from iconbench.errors import IconbenchError

    work = pathlib.Path(tempfile.mkdtemp(prefix=f"{script}-"))
    try:
        for row in rows:
            print(row(work), flush=True)
    except IconbenchError as error:
        print(f"{script}: {error}", file=sys.stderr)
        return 2
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


def replay(check: str, work: pathlib.Path) -> str:
    """One row: the cases blocks 3-4 measured, those named early, and their seconds."""
    from iconbench import grids, results_archive
    from iconbench.check.run import _open_so_far
    from iconbench.errors import IconbenchError
    from iconbench.records.check import CheckRecord
    from iconbench.stacks.sides import Side

    name = f"{RESULTS}/{check}"
    record = CheckRecord.read(ROOT / name)
    grid = grids.resolve(record.facts["grid"])

    def raw(path: str) -> pathlib.Path:
        return results_archive.cached(ROOT, f"{name}/{path}")

    builds = _lines(raw("head/work/compile.jsonl"))
    last_build = max(r["at"] for r in builds if r.get("case"))
    sides, seen = {}, {}
    for side in ("base", "head"):
        cut = [r for r in _lines(raw(f"{side}/work/session.jsonl"))
               if r["started_at"] + r["duration_s"] <= last_build]  # fmt: skip
        out = work / check / side
        (out / "work").mkdir(parents=True, exist_ok=True)
        (out / "work" / "session.jsonl").write_text("".join(json.dumps(r) + "\n" for r in cut))
        sides[side] = Side(side, side, record.facts[side], (), out, "stack")
        for r in cut:
            if round_number(r["worker"]) <= 8:
                seen.setdefault((r["case"], r["backend"]), set()).add(_round(r["worker"]))
    measured = frozenset(job for job, rounds in seen.items() if len(rounds) == 8)
    named = _open_so_far(sides["base"], sides["head"], grid, 4, most=8, measured=measured)
    later: set[tuple[str, str]] = set()
    for path in ("rounds/jobs-b03-p1.json", "rounds/jobs-b03-p2.json"):
        try:
            later |= {tuple(job) for job in json.loads(raw(path).read_text())}
        except (IconbenchError, OSError):  # a part that did not run
            continue
    seconds = later_blocks_seconds(raw("benchmark.log").read_text(errors="replace"))
    at = datetime.datetime.fromtimestamp(last_build, datetime.UTC).strftime("%H:%M:%S")

    def cases(jobs) -> str:
        return ", ".join(f"{c.split('[')[0]}[…] {b}" for c, b in sorted(jobs)) or "none"

    agree = "the same" if later == named else ("all, and more" if later < named else "no")
    return (f"| {check} | {at} | {len(measured)} | {cases(later)} | {cases(named)} | {agree} | "
            f"{seconds} |")  # fmt: skip


def main() -> int:
    """Each check's row of the table (module docstring)."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n", 1)[0])
    parser.add_argument("checks", nargs="*", default=list(CHECKS), help=f"under {RESULTS}")
    args = parser.parse_args()
    print("| check | head's last build ended | cases measured in all 8 rounds by then | "
          "blocks 3-4 measured | named before the last build | named | decision after "
          "block 2 to the end of the later blocks |")  # fmt: skip
    print("| --- | --- | ---: | --- | --- | --- | ---: |")
    rows = [functools.partial(replay, check) for check in args.checks]
    return print_rows("early_blocks", rows)


if __name__ == "__main__":
    sys.exit(main())
