"""Where the test suite's CPU goes, per test file: each test's own and its children's.

A pytest plugin and its report. Run the suite with it, then print the files by CPU::

    PYTHONPATH=perf ci/test -p cpu_per_test      # each worker writes DIR/<worker>.json
    .venv/bin/python perf/cpu_per_test.py [DIR]  # DIR: $CPU_PER_TEST_DIR, /tmp/cpu-per-test
    .venv/bin/python perf/cpu_per_test.py --tail [DIR]  # the files each worker ended with

A test's CPU is ``getrusage`` of its process (self) and of the children it waited for,
before and after it: a child reaped later counts to a later test, and processes nobody waits
for (a browser) not at all. results/test-suite/README.md cites its table ("Where the CPU goes").
"""

from __future__ import annotations

import collections
import json
import os
import pathlib
import resource
import sys
import time

import pytest

DIR = pathlib.Path(os.environ.get("CPU_PER_TEST_DIR", "/tmp/cpu-per-test"))
#: (test id, own CPU, children's CPU, wall seconds, when it ended: seconds since the epoch)
_ROWS: list[tuple[str, float, float, float, float]] = []


def _cpu() -> tuple[float, float]:
    own, children = (resource.getrusage(who) for who in (resource.RUSAGE_SELF,
                                                         resource.RUSAGE_CHILDREN))  # fmt: skip
    return own.ru_utime + own.ru_stime, children.ru_utime + children.ru_stime


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> object:
    """Time one test's CPU around its setup, call and teardown."""
    own, children, started = *_cpu(), time.perf_counter()
    yield
    own_after, children_after = _cpu()
    _ROWS.append((item.nodeid, own_after - own, children_after - children,
                  time.perf_counter() - started, time.time()))  # fmt: skip


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Write this process's rows: one file a worker."""
    DIR.mkdir(parents=True, exist_ok=True)
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    (DIR / f"{worker}.json").write_text(json.dumps(_ROWS))


def main(directory: pathlib.Path) -> int:
    """Print the test files by CPU (own + children), the heaviest 40."""
    files: dict[str, list[float]] = collections.defaultdict(lambda: [0.0, 0.0, 0.0, 0])
    for path in sorted(directory.glob("*.json")):
        for nodeid, own, children, wall, *_ in json.loads(path.read_text()):
            row = files[nodeid.split("::")[0]]
            row[0] += own
            row[1] += children
            row[2] += wall
            row[3] += 1
    total = sum(own + children for own, children, _, _ in files.values())
    print(f"CPU attributed: {total:.1f} s")
    print("| file | CPU | own | children | wall | tests |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    ranked = sorted(files.items(), key=lambda item: -(item[1][0] + item[1][1]))
    for name, (own, children, wall, count) in ranked[:40]:
        print(f"| `{name}` | {own + children:.1f} s | {own:.1f} s | {children:.1f} s | "
              f"{wall:.1f} s | {count} |")  # fmt: skip
    return 0


def tail(directory: pathlib.Path, last: int = 6) -> int:
    """Print each worker's last files, when each ended (seconds after the first test ended).

    A worker that ends long before the others idles a core: the suite's wall time is its
    slowest worker's, and a heavy file taken late makes that tail.
    """
    workers = {path.stem: rows for path in sorted(directory.glob("*.json"))
               if (rows := json.loads(path.read_text()))}  # fmt: skip
    start = min(row[4] for rows in workers.values() for row in rows)
    for worker, rows in workers.items():
        ends: dict[str, tuple[float, float]] = {}  # file: (first end, last end)
        for nodeid, _own, _children, wall, ended in rows:
            name = nodeid.split("::")[0]
            first = ends.get(name, (ended - wall, ended))[0]
            ends[name] = (first, ended)
        ordered = sorted(ends.items(), key=lambda item: item[1][1])
        print(f"{worker}: {len(ends)} files, ended at {ordered[-1][1][1] - start:.1f} s")
        for name, (began, ended) in ordered[-last:]:
            print(f"    {began - start:7.1f} .. {ended - start:7.1f} s  {name}")
    return 0


if __name__ == "__main__":
    args = sys.argv[1:]
    if args[:1] == ["--tail"]:
        sys.exit(tail(pathlib.Path(args[1]) if len(args) > 1 else DIR))
    sys.exit(main(pathlib.Path(args[0]) if args else DIR))
