"""Typed access to a decoded JSON/TOML object that names the file and key of any mismatch.

>>> f = Fields("run.json", {"samples": [0.1, -2.0], "name": "x"}, hint="re-run it")
>>> f.text("name")
'x'
>>> f.seconds_list("samples")
Traceback (most recent call last):
...
iconbench.errors.IconbenchError: run.json: key 'samples[1]': must be a finite time >= 0 s, \
got -2.0; re-run it
"""

from __future__ import annotations

import math
from typing import Any, NoReturn

from iconbench.errors import IconbenchError


def kind_name(kind: type | tuple[type, ...]) -> str:
    """``(int, float)`` -> ``'an integer or a number'`` (for messages)."""
    kinds = kind if isinstance(kind, tuple) else (kind,)
    names = {
        int: "an integer",
        float: "a number",
        str: "a string",
        dict: "an object",
        list: "a list",
        bool: "true or false",
    }
    return " or ".join(names.get(k, k.__name__) for k in kinds)


def describe(value: Any) -> str:
    """``'str 'abc''``, shortened: what a wrong value was, for a message."""
    text = repr(value)
    return f"{type(value).__name__} {text if len(text) <= 40 else text[:37] + '...'}"


class Fields:
    """An object read from ``origin``: each failed expectation is one IconbenchError line.

    The line is ``ORIGIN: key 'a.b': PROBLEM; HINT``.
    """

    def __init__(self, origin: str, data: Any, key: str = "", *, hint: str = "") -> None:
        self.origin, self.key, self.hint = str(origin), key, hint
        if not isinstance(data, dict):
            self.fail(f"expected an object, got {describe(data)}")
        self.data: dict[str, Any] = data

    def fail(self, what: str, key: str | None = None) -> NoReturn:
        where = key if key is not None else (self.key or "<top level>")
        message = f"{self.origin}: key '{where}': {what}"
        raise IconbenchError(f"{message}; {self.hint}" if self.hint else message)

    def path(self, key: str) -> str:
        """The dotted key of ``key`` below this object."""
        return f"{self.key}.{key}" if self.key else key

    def get(self, key: str, kind: type | tuple[type, ...], *, optional: bool = False) -> Any:
        """``data[key]``, of type ``kind`` (``bool`` is not an integer here)."""
        if key not in self.data:
            if optional:
                return None
            self.fail("is missing", self.path(key))
        value = self.data[key]
        if optional and value is None:
            return None
        check_kind(self, value, kind, self.path(key))
        return value

    def text(self, key: str, *, optional: bool = False) -> str:
        value = self.get(key, str, optional=optional)
        if value is not None and not value.strip():
            self.fail("is empty", self.path(key))
        return value

    def seconds(self, key: str, *, optional: bool = False) -> float:
        value = self.get(key, (int, float), optional=optional)
        return value if value is None else check_seconds(self, value, self.path(key))

    def seconds_list(self, key: str) -> list[float]:
        """A list of times >= 0 (``null`` entries, asv's "not measured", are kept as None)."""
        values = self.get(key, list)
        return [
            None if v is None else check_seconds(self, v, f"{self.path(key)}[{i}]")
            for i, v in enumerate(values)
        ]

    def child(self, key: str, *, optional: bool = False) -> Fields | None:
        value = self.get(key, dict, optional=optional)
        return None if value is None else Fields(self.origin, value, self.path(key), hint=self.hint)


def check_kind(fields: Fields, value: Any, kind: type | tuple[type, ...], key: str) -> None:
    """Fail unless ``value`` is a ``kind`` (a boolean never counts as a number)."""
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if isinstance(value, bool) and bool not in kinds:
        fields.fail(f"expected {kind_name(kind)}, got a boolean", key)
    if not isinstance(value, kinds):
        fields.fail(f"expected {kind_name(kind)}, got {describe(value)}", key)


def check_seconds(fields: Fields, value: Any, key: str) -> float:
    """``value`` as a finite time >= 0 s."""
    check_kind(fields, value, (int, float), key)
    if not math.isfinite(value) or value < 0:
        fields.fail(f"must be a finite time >= 0 s, got {value!r}", key)
    return float(value)
