"""Turning measured cases into the numbers a reader wants, and rendering them with jinja2.

The report answers, per backend: how much of the catalog ran (coverage), what the run cost
(wall time, and the share that was compilation), which programs dominate (the 10 slowest by
device median), how close to the hardware they are (median fraction of the copy peak and of
the datasheet bandwidth), and whether the numbers can be trusted (coefficient of variation of
the device samples of every program slower than 100 µs; the goal is below 1 %).
Templates live in the top-level ``reporting/`` directory.
"""

from __future__ import annotations

import pathlib
import statistics
from collections.abc import Iterable, Sequence
from typing import Any

from iconbench.buildcache import REPO_ROOT
from iconbench.programs.catalog import split_case
from iconbench.sample_stats import CV_THRESHOLD_S

TEMPLATES = REPO_ROOT / "reporting"


#: Keys of a ``summary.json`` case entry; absent ones (no device clock, failed) become None.
CASE_KEYS = (
    "case",
    "backend",
    "error",
    "host_median_s",
    "host_cv",
    "device_median_s",
    "device_cv",
    "overhead_median_s",
    "bandwidth_bytes_per_s",
    "fraction_of_copy_peak",
    "fraction_of_datasheet",
    "load_s",
    "cold_compile_s",
    "fingerprint",
)


def _median(values: Iterable[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return statistics.median(present) if present else None


def backend_summary(cases: Sequence[dict[str, Any]], backend: str, expected: int) -> dict:
    """Coverage, slowest programs, bandwidth fraction and CV for one backend.

    ``cases`` are the entries of ``summary.json`` (see ``iconbench suite asv``).

    >>> rows = [{"case": "a[default]", "backend": "b", "device_median_s": 2e-4,
    ...          "host_median_s": 3e-4, "device_cv": 0.004, "fraction_of_copy_peak": 0.8},
    ...         {"case": "c[default]", "backend": "b", "device_median_s": 5e-5,
    ...          "host_median_s": 9e-5, "device_cv": 0.03, "fraction_of_copy_peak": 0.4}]
    >>> s = backend_summary(rows, "b", expected=3)
    >>> s["measured"], s["coverage"], s["median_fraction_of_copy_peak"]
    (2, 0.6666666666666666, 0.6000000000000001)
    >>> [(c["clock"], c["count"], c["below_1pct"]) for c in s["cv_by_clock"]]
    [('?', 1, 1)]
    """
    mine = [dict.fromkeys(CASE_KEYS) | c for c in cases if c["backend"] == backend]
    ok = [c for c in mine if c.get("error") is None and c.get("host_median_s") is not None]
    timed = [c for c in ok if c.get("device_median_s") is not None] or ok
    key = "device_median_s" if any(c.get("device_median_s") for c in ok) else "host_median_s"
    slowest = sorted(timed, key=lambda c: c.get(key) or 0.0, reverse=True)[:10]
    long = [c for c in timed if (c.get("device_median_s") or 0.0) > CV_THRESHOLD_S]
    # per clock: a ledger may hold cases timed before and after a change of the clock
    by_clock: dict[str, list[float]] = {}
    for c in long:
        if c.get("device_cv") is not None:
            by_clock.setdefault(c.get("device_source") or "?", []).append(c["device_cv"])
    return {
        "backend": backend,
        "expected": expected,
        "measured": len(ok),
        "failed": [c for c in mine if c.get("error")],
        "coverage": len(ok) / expected if expected else 0.0,
        "time_key": key,
        "slowest": slowest,
        "total_device_s": sum(c.get(key) or 0.0 for c in timed),
        "median_fraction_of_copy_peak": _median(c.get("fraction_of_copy_peak") for c in ok),
        "median_fraction_of_datasheet": _median(c.get("fraction_of_datasheet") for c in ok),
        "median_overhead_s": _median(c.get("overhead_median_s") for c in ok),
        "noisy": sorted(
            (c for c in long if (c.get("device_cv") or 0.0) >= 0.01),
            key=lambda c: c["device_cv"],
            reverse=True,
        ),
        "cv_by_clock": [
            {
                "clock": clock,
                "count": len(values),
                "median": _median(values),
                "max": max(values),
                "below_1pct": sum(1 for v in values if v < 0.01),
            }
            for clock, values in sorted(by_clock.items())
        ],
    }


def within_5pct(rows: Sequence[dict[str, Any]]) -> int:
    """How many cross-check rows have a ``ratio`` within 5 % of 1.

    >>> within_5pct([{"ratio": 0.9968}, {"ratio": 0.4391}, {"ratio": 1.049}])
    2
    """
    return sum(1 for r in rows if abs(r["ratio"] - 1) <= 0.05)


def failures_by_program(
    failures: Sequence[dict[str, Any]], variants: dict[str, int] | None = None
) -> list[dict[str, Any]]:
    """Compile failures (``case``, ``backend``, ``error``) grouped per (backend, program).

    A program's static variants mostly fail alike (on the H100, 56 of the 73 dace_gpu failures
    are the variants of the two vertically implicit solvers), so one row per program with how
    many of its ``variants`` failed reads better than 73 rows; the error is the first one's.

    >>> rows = failures_by_program(
    ...     [
    ...         {"case": "solver[a=1]", "backend": "dace_gpu", "error": "scan connector"},
    ...         {"case": "solver[a=2]", "backend": "dace_gpu", "error": "scan connector"},
    ...         {"case": "halo[default]", "backend": "dace_gpu", "error": "scalar connector"},
    ...     ],
    ...     variants={"solver": 4, "halo": 1},
    ... )
    >>> [(r["program"], r["failed"], r["variants"]) for r in rows]
    [('halo', 1, 1), ('solver', 2, 4)]
    """
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for failure in failures:
        program, _ = split_case(failure["case"])
        groups.setdefault((failure["backend"], program), []).append(failure)
    return [
        {
            "backend": backend,
            "program": program,
            "failed": len(group),
            "variants": (variants or {}).get(program, len(group)),
            "error": group[0]["error"],
        }
        for (backend, program), group in sorted(groups.items())
    ]


def suite_context(
    summary: dict[str, Any],
    crosscheck: Sequence[dict[str, Any]],
    expected_cases: int,
    *,
    ncu: Sequence[dict[str, Any]] = (),
    compile_failures: Sequence[dict[str, Any]] = (),
    variants: dict[str, int] | None = None,
) -> dict[str, Any]:
    """Everything the ``gpu_suite.md.j2`` template shows, from ``summary.json``.

    ``crosscheck`` and ``ncu`` are the rows of ``crosscheck*.json`` and ``ncu*.json``;
    ``compile_failures`` the cases (``case``, ``backend``, ``error``) that never compiled, so
    they are never measured and would otherwise be missing without a word; ``variants`` the
    number of static variants of each program in the suite.
    """
    phases = summary.get("phases", [])
    compile_s = sum(p["seconds"] for p in phases if p["phase"] == "precompile")
    total_s = sum(p["seconds"] for p in phases)
    compile_cpu_s = sum(c.get("seconds", 0.0) for c in summary.get("compile", []))
    return {
        "summary": summary,
        "backends": [
            backend_summary(summary["cases"], b, expected_cases) for b in summary["backends"]
        ],
        "total_s": total_s,
        "compile_s": compile_s,
        "compile_share": compile_s / total_s if total_s else None,
        "compile_worker_s": compile_cpu_s,
        "crosscheck": list(crosscheck),
        "crosscheck_within_5pct": within_5pct(crosscheck),
        "ncu": list(ncu),
        "ncu_within_5pct": within_5pct(ncu),
        "ncu_programs": len({r["case"] for r in ncu}),
        "compile_failures": list(compile_failures),
        "compile_failures_by_program": failures_by_program(compile_failures, variants),
    }


def _us(seconds: float | None) -> str:
    return "–" if seconds is None else f"{seconds * 1e6:,.1f}"


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f} %"


def render(template: str, context: dict[str, Any], directory: pathlib.Path = TEMPLATES) -> str:
    """Render ``reporting/<template>`` with ``us``/``pct``/``gbs`` formatting filters."""
    import jinja2

    environment = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(directory)),
        autoescape=jinja2.select_autoescape(["html"]),
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
    )
    environment.filters["us"] = _us
    environment.filters["pct"] = _pct
    environment.filters["gbs"] = lambda v: "–" if v is None else f"{v / 1e9:,.1f}"
    return environment.get_template(template).render(**context)
