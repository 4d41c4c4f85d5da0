"""Where the test suite's CPU goes, per test file: each test's own and its children's.

A pytest plugin and its report. Run the suite with it, then print the files by CPU::

    PYTHONPATH=perf ci/test -p cpu_per_test      # each worker writes DIR/<worker>.json
    .venv/bin/python perf/cpu_per_test.py [DIR]  # DIR: $CPU_PER_TEST_DIR, /tmp/cpu-per-test

A test's CPU is ``getrusage`` of its process (self) and of the children it waited for,
before and after it: a child reaped later counts to a later test, and processes nobody waits
for (a browser) not at all. docs/testing.md cites its table ("Where the CPU goes").
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
_ROWS: list[tuple[str, float, float, float]] = []


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
                  time.perf_counter() - started))  # fmt: skip


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Write this process's rows: one file a worker."""
    DIR.mkdir(parents=True, exist_ok=True)
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    (DIR / f"{worker}.json").write_text(json.dumps(_ROWS))


def main(directory: pathlib.Path) -> int:
    """Print the test files by CPU (own + children), the heaviest 40."""
    files: dict[str, list[float]] = collections.defaultdict(lambda: [0.0, 0.0, 0.0, 0])
    for path in sorted(directory.glob("*.json")):
        for nodeid, own, children, wall in json.loads(path.read_text()):
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


if __name__ == "__main__":
    sys.exit(main(pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else DIR))
