"""Import the OpenACC timers that icon4py's comparison script reads (bencher JSON).

Files are named ``bencher=<experiment>=<...>=OPENACC.json`` (earlier ``=ACC.json``) and hold
one object per ICON timer, in Bencher Metric Format with times in **milliseconds**::

    {"integrate_nh": {"latency": {"value": 64.675, "lower_value": 59.79, "upper_value": 278.07},
                      "latency_total": {"value": 23283.0, ...},
                      "num_calls": {"value": 360}}, ...}

``latency.value`` is the per-call average, ``lower_value``/``upper_value`` the per-call min and
max, ``latency_total.value`` the sum over calls (icon4py's
``scripts/python/compare_icon4py_openacc.py`` divides it by 1000 to get seconds).
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

from iconbench.baselines.format import Timer
from iconbench.errors import IconbenchError

_NAME = re.compile(r"^bencher=(?P<experiment>[^=]+)=.*=(?P<build>OPENACC|ACC)\.json$")

MS = 1e-3


def experiment_from_name(path: Path) -> tuple[str, str] | None:
    """``(experiment, build)`` encoded in a bencher file name, if it follows the convention.

    >>> experiment_from_name(Path("bencher=mch_icon-ch1_medium_stencils=0.9=OPENACC.json"))
    ('mch_icon-ch1_medium_stencils', 'OPENACC')
    """
    match = _NAME.match(path.name)
    return (match["experiment"], match["build"]) if match else None


def _number(origin: str, key: str, node: Any) -> float:
    if not isinstance(node, dict) or "value" not in node:
        raise IconbenchError(
            f"{origin}: key '{key}': missing object with 'value'; "
            "is this a bencher OPENACC.json file?"
        )
    value = node["value"]
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise IconbenchError(f"{origin}: key '{key}.value': expected a number, got {value!r}")
    if value < 0:
        raise IconbenchError(f"{origin}: key '{key}.value': negative time or count {value!r}")
    return float(value)


def parse(text: str, origin: str = "<bencher json>") -> list[Timer]:
    """Every timer of a bencher JSON document, times converted from ms to s."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise IconbenchError(f"{origin}: line {error.lineno}: invalid JSON ({error.msg})") from None
    if not isinstance(data, dict) or not data:
        raise IconbenchError(f"{origin}: expected an object of timers, got {type(data).__name__}")
    timers = []
    for name, entry in data.items():
        if not isinstance(entry, dict):
            raise IconbenchError(f"{origin}: key '{name}': expected an object, got {entry!r}")
        latency = entry.get("latency")
        t_avg = _number(origin, f"{name}.latency", latency)
        t_min = _number(
            origin,
            f"{name}.latency.lower_value",
            {"value": latency.get("lower_value", latency["value"])},
        )
        t_max = _number(
            origin,
            f"{name}.latency.upper_value",
            {"value": latency.get("upper_value", latency["value"])},
        )
        calls = _number(origin, f"{name}.num_calls", entry.get("num_calls"))
        if calls != int(calls) or calls < 1:
            raise IconbenchError(
                f"{origin}: key '{name}.num_calls.value': expected a count >= 1, got {calls!r}"
            )
        total = (
            _number(origin, f"{name}.latency_total", entry["latency_total"]) * MS
            if "latency_total" in entry
            else calls * t_avg * MS
        )
        timers.append(
            Timer(
                name=name,
                calls=int(calls),
                t_min_s=t_min * MS,
                t_avg_s=t_avg * MS,
                t_max_s=t_max * MS,
                total_s=total,
            )
        )
    return timers
