"""Input fields drawn once per program in a process and shared by its static variants.

Every static variant of a program gets the same input values: :func:`iconbench.programs.inputs.
field_values` seeds each field by program and parameter, never by variant. Drawing them again
for each variant was most of a measuring turn besides the warm-up: on the H100 host
(2026-11-27, mch_icon-ch1_medium) a case's inputs took 0.08 s for
``apply_divergence_damping_and_update_vn`` (16 fields, 425 MB) and 0.25 s for
``compute_rho_theta_pgrad_and_update_vn`` (32 fields, 939 MB): 39 s of the heavy check's 82 s
of measuring, 20 static variants a backend drawing the same values over and over.

:class:`DrawnFields` keeps one program's fields as drawn, before any call: a later variant
shares the read-only ones and gets a fresh copy of each output (its calls update it in place),
so it starts from exactly the values a fresh draw gives. :class:`DrawnFieldsCache` holds them
for the last programs of a process within a byte budget: what it keeps stays allocated
between cases, and the worker's device-memory check (:class:`iconbench.timing.isolation.
DeviceMemory`, 25 % of the GPU) must not take it for a leak.
"""

from __future__ import annotations

import collections
import dataclasses
from collections.abc import Hashable
from typing import Any

#: What a process keeps drawn, at most: 4 GiB, the fields of every program and backend of the
#: heavy check (3.3 GB) on mch_icon-ch1_medium, a sixth of the device-memory check's 25 % of
#: an 80 GB GPU. A program whose fields alone exceed it is drawn for every variant.
DEFAULT_LIMIT_BYTES = 4 * 2**30


@dataclasses.dataclass
class DrawnFields:
    """One program's fields as drawn, before any call: ``name -> (field, its rule's source)``.

    Outputs are kept as a copy of their own (the first variant's calls update its outputs);
    read-only inputs are the first variant's field objects, never written by any variant.
    Past ``limit_bytes`` nothing more is kept and what was is dropped (``full``): a program
    too big to keep is drawn for every variant, without copies of its outputs on top.

    >>> import numpy as np
    >>> class Field:
    ...     def __init__(self, n): self.ndarray = np.zeros(n)
    >>> drawn = DrawnFields(limit_bytes=1000)
    >>> drawn.room_for(800), drawn.keep("a", Field(100), "default"), drawn.room_for(800)
    (True, True, False)
    >>> drawn.keep("b", Field(100), "default"), drawn.full, drawn.fields, drawn.room_for(8)
    (False, True, {}, False)
    """

    fields: dict[str, tuple[Any, str]] = dataclasses.field(default_factory=dict)
    limit_bytes: int | None = None
    full: bool = False

    def room_for(self, nbytes: int) -> bool:
        """Whether a field of ``nbytes`` more can be kept (never once the set was full)."""
        if self.full:
            return False
        return self.limit_bytes is None or self.nbytes + nbytes <= self.limit_bytes

    def keep(self, name: str, field: Any, source: str) -> bool:
        """Remember field ``name`` as drawn (give an output's copy, not the call's field).

        Past the limit the set is full: emptied, and nothing is kept from then on.
        """
        if not self.room_for(int(field.ndarray.nbytes)):
            self.full = True
            self.fields.clear()
            return False
        self.fields[name] = (field, source)
        return True

    def get(self, name: str) -> tuple[Any, str] | None:
        """The field ``name`` as drawn, with its source; ``None`` before it was drawn."""
        return self.fields.get(name)

    @property
    def nbytes(self) -> int:
        """Bytes the kept fields hold (their buffers)."""
        return sum(int(field.ndarray.nbytes) for field, _ in self.fields.values())


class DrawnFieldsCache:
    """The :class:`DrawnFields` of a process's last programs, least recently used out first.

    >>> import numpy as np
    >>> class Field:
    ...     def __init__(self, n): self.ndarray = np.zeros(n)
    >>> cache = DrawnFieldsCache(limit_bytes=2000)
    >>> a = cache.for_key("a"); a.keep("x", Field(100), "default")   # 800 bytes
    True
    >>> cache.store("a", a)
    >>> b = cache.for_key("b"); b.keep("x", Field(100), "default")
    True
    >>> cache.store("b", b)
    >>> cache.for_key("a") is a, cache.nbytes
    (True, 1600)
    >>> c = cache.for_key("c"); c.keep("x", Field(100), "default")
    True
    >>> cache.store("c", c)  # over 2000 bytes: "b", the least recently used, goes
    >>> sorted(cache.keys()), cache.nbytes
    (['a', 'c'], 1600)
    >>> big = cache.for_key("big"); big.keep("x", Field(1000), "default")  # past 2000 bytes
    False
    >>> cache.store("big", big)  # over the limit on its own: not kept, nothing else dropped
    >>> sorted(cache.keys()), cache.for_key("big")  # and never tried again
    (['a', 'c'], None)
    """

    def __init__(self, limit_bytes: int = DEFAULT_LIMIT_BYTES) -> None:
        self.limit_bytes = limit_bytes
        self._kept: collections.OrderedDict[Hashable, DrawnFields] = collections.OrderedDict()
        self._too_big: set[Hashable] = set()

    def for_key(self, key: Hashable) -> DrawnFields | None:
        """The fields kept for ``key`` (marked as just used), or a new, empty set to fill.

        ``None`` for a key whose fields did not fit: drawn for each variant, nothing kept.
        """
        if key in self._too_big:
            return None
        if key in self._kept:
            self._kept.move_to_end(key)
            return self._kept[key]
        return DrawnFields(limit_bytes=self.limit_bytes)

    def store(self, key: Hashable, drawn: DrawnFields) -> None:
        """Keep ``drawn`` for ``key`` unless it alone exceeds the limit; older sets make room."""
        size = drawn.nbytes
        if drawn.full or size > self.limit_bytes:
            self._kept.pop(key, None)
            self._too_big.add(key)
            return
        self._kept[key] = drawn
        self._kept.move_to_end(key)
        while self.nbytes > self.limit_bytes:
            self._kept.popitem(last=False)

    def keys(self) -> list[Hashable]:
        """The keys kept, least recently used first."""
        return list(self._kept)

    def clear(self) -> None:
        """Drop every kept set (their memory goes with the last reference)."""
        self._kept.clear()
        self._too_big.clear()

    @property
    def nbytes(self) -> int:
        """Bytes of every kept set."""
        return sum(drawn.nbytes for drawn in self._kept.values())
