"""``--shard i/n``: split the benchmark parameter space over several runners.

Shards are 1-based (``1/4`` … ``4/4``). Without timing history they deal the *sorted* items
round-robin, so every shard gets programs from the whole alphabet (slow and fast ones mixed);
with the runner's ledgers (:func:`ledger_cost`: compile + measure seconds per case) they are
balanced by time, longest first onto the least loaded shard, so that the shards of a job
matrix finish together (the solver's 32 variants take 150-180 s each to compile on the H100,
most cases 30 s). Either way the split is the same on every machine given the same ledgers.
Because every item lands in exactly one shard, the shards' asv result files merge into one
result set by plain union (:func:`iconbench.records.asv.merge`,
:func:`iconbench.records.resultdir.merge_runs`).
"""

from __future__ import annotations

import heapq
import os
import re
from collections.abc import Callable, Iterable, Sequence

from iconbench.errors import IconbenchError

_SHARD = re.compile(r"^\s*(\d+)\s*/\s*(\d+)\s*$")


def parse_shard(text: str) -> tuple[int, int]:
    """Parse ``"i/n"`` (1 ≤ i ≤ n).

    >>> parse_shard("2/4")
    (2, 4)
    >>> parse_shard("5/4")
    Traceback (most recent call last):
    ...
    iconbench.errors.IconbenchError: bad shard '5/4': expected i/n with 1 <= i <= n, e.g. 1/4
    """
    match = _SHARD.match(text)
    if match:
        index, count = int(match.group(1)), int(match.group(2))
        if 1 <= index <= count:
            return index, count
    raise IconbenchError(f"bad shard {text!r}: expected i/n with 1 <= i <= n, e.g. 1/4")


def select_shard[T](
    items: Iterable[T],
    shard: tuple[int, int] | None,
    key=str,
    cost: Callable[[T], float] | None = None,
) -> list[T]:
    """The items of ``shard`` (all items when ``None``), in sorted order.

    Without ``cost`` dealt round-robin over sorted keys; with it balanced (:func:`balance`).

    >>> select_shard(["d", "a", "c", "b", "e"], (1, 2))
    ['a', 'c', 'e']
    >>> select_shard(["d", "a", "c", "b", "e"], (2, 2))
    ['b', 'd']
    >>> seconds = {"a": 10.0, "b": 1.0, "c": 1.0, "d": 1.0, "e": 7.0}
    >>> select_shard("abcde", (1, 2), cost=seconds.get), select_shard("abcde", (2, 2),
    ...                                                                cost=seconds.get)
    (['a'], ['b', 'c', 'd', 'e'])
    """
    ordered = sorted(items, key=key)
    if shard is None:
        return ordered
    index, count = shard
    if cost is not None:
        return balance(ordered, cost, count, key=key)[index - 1]
    return ordered[index - 1 :: count]


def balance[T](
    items: Sequence[T], cost: Callable[[T], float], count: int, key=str
) -> list[list[T]]:
    """``count`` groups of ``items`` with about equal total cost (longest first, LPT).

    Ties are broken by key and shard number, so every machine computes the same groups.
    Greedy longest-first ends within 4/3 of the best possible maximum (Graham's bound).

    >>> balance(["a", "b", "c", "d"], {"a": 4.0, "b": 3.0, "c": 2.0, "d": 1.0}.get, 2)
    [['a', 'd'], ['b', 'c']]
    """
    loads = [(0.0, number) for number in range(count)]
    groups: list[list[T]] = [[] for _ in range(count)]
    for item in sorted(items, key=lambda i: (-cost(i), key(i))):
        load, number = heapq.heappop(loads)
        groups[number].append(item)
        heapq.heappush(loads, (load + cost(item), number))
    return [sorted(group, key=key) for group in groups]


def ledger_cost(work: str | os.PathLike[str], backends: Sequence[str]) -> Callable[[str], float]:
    """Seconds a case costs on ``backends``: expected compile + last measuring wall time.

    Read from ``work/compile.jsonl`` and ``work/session.jsonl`` (a runner's ledgers); a case
    never measured counts the median of those measured.
    """
    import pathlib
    import statistics

    from iconbench.records import compilation, session

    root = pathlib.Path(work)
    expect = compilation.CompileLedger(root / "compile.jsonl").expected_seconds()
    measured = session.SessionLedger(root / "session.jsonl").durations()
    typical = statistics.median(measured.values()) if measured else 0.0

    def cost(case: str) -> float:
        return sum(expect(case, b) + measured.get((case, b), typical) for b in backends)

    return cost
