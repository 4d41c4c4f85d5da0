"""``--shard i/n``: split the benchmark parameter space over several runners.

Shards are 1-based (``1/4`` … ``4/4``) and deal the *sorted* items round-robin, so every
shard gets programs from the whole alphabet (slow and fast ones mixed) and the split is the
same on every machine. Because every item lands in exactly one shard, the shards' asv result
files merge into one result set by plain union (:func:`iconbench.results.merge`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

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


def select_shard[T](items: Iterable[T], shard: tuple[int, int] | None, key=str) -> list[T]:
    """The items of ``shard`` (all items when ``None``), dealt round-robin over sorted keys.

    >>> select_shard(["d", "a", "c", "b", "e"], (1, 2))
    ['a', 'c', 'e']
    >>> select_shard(["d", "a", "c", "b", "e"], (2, 2))
    ['b', 'd']
    """
    ordered = sorted(items, key=key)
    if shard is None:
        return ordered
    index, count = shard
    return ordered[index - 1 :: count]
