"""The ``bisect`` key of a gate summary (iconbench-gate-summary v1, docs/gate-summary.md).

Summaries are never rewritten: :func:`attach` returns a new document, written next to the
original (``iconbench bisect --summary gate.json --out gate-bisected.json``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from iconbench.bisection.find import Record
from iconbench.errors import IconbenchError

#: The asv benchmark method that measures each gated metric (benchmarks/programs.py).
METRIC_BENCHMARKS = {
    "device_time": "time_device",
    "host_overhead": "track_call_overhead",
    "compile_time": "track_compile_cold",
    "bandwidth": "track_bandwidth",
}


def check_summary(summary: Mapping[str, Any], origin: str) -> None:
    """Refuse anything but an iconbench-gate-summary of version 1."""
    if summary.get("schema") != "iconbench-gate-summary" or summary.get("version") != 1:
        raise IconbenchError(
            f"{origin}: not an iconbench-gate-summary v1 (schema {summary.get('schema')!r}, "
            f"version {summary.get('version')!r}); give the file 'iconbench compare --out' wrote"
        )


def worst_regression(summary: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The regressed benchmark with the largest ratio (``None``: no regression)."""
    regressed = [b for b in summary.get("benchmarks", []) if b.get("verdict") == "regression"]
    return max(regressed, key=lambda b: b.get("ratio") or 0.0, default=None)


def asv_selection(benchmark: Mapping[str, Any]) -> tuple[str, dict[str, str]]:
    r"""The asv ``--bench`` regex and suite variables that time just this benchmark.

    >>> bench, variables = asv_selection({"program": "p", "variant": "default",
    ...                                   "backend": "gtfn_gpu", "metric": "device_time"})
    >>> bench, variables["ICONBENCH_PROGRAMS"], variables["ICONBENCH_BACKENDS"]
    ('programs\\.Programs\\.time_device', '^p\\[default\\]$', 'gtfn_gpu')
    """
    method = METRIC_BENCHMARKS.get(benchmark.get("metric", ""))
    if method is None:
        raise IconbenchError(f"no asv benchmark measures metric {benchmark.get('metric')!r}")
    case = f"{benchmark['program']}[{benchmark['variant']}]"
    return re.escape(f"programs.Programs.{method}"), {
        "ICONBENCH_PROGRAMS": f"^{re.escape(case)}$",
        "ICONBENCH_BACKENDS": benchmark["backend"],
    }


def attach(
    summary: Mapping[str, Any], records: Iterable[Record], benchmark_id: str = ""
) -> dict[str, Any]:
    """A copy of ``summary`` whose ``bisect`` list also holds ``records``."""
    entries = list(summary.get("bisect") or [])
    entries += [{**r.as_dict(), "id": benchmark_id} for r in records]
    return {**summary, "bisect": entries}
