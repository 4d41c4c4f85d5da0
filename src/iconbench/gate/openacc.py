"""Each side's speed-up against a stored OpenACC baseline (the summary's ``openacc`` part).

Uses :mod:`iconbench.baselines.speedup` on the device-time samples of each side. A baseline
that does not match the grid or GPU of the results is not forced: ``openacc`` stays ``null``
and the reason is returned for the table.
"""

from __future__ import annotations

import pathlib
from typing import Any

from iconbench.errors import IconbenchError
from iconbench.gate.resultset import ResultSet


def _timings(side: ResultSet) -> list[Any]:
    from iconbench.baselines.gt4py_timings import GT4PyTiming, backend_name, parse_variant
    from iconbench.suite import split_case

    timings = []
    for entry in side.entries.values():
        if entry.metric != "device_time" or entry.error or not entry.samples:
            continue
        program, variant = split_case(entry.case)
        static = {} if variant == "default" else parse_variant(variant)
        timings.append(
            GT4PyTiming(
                program=program,
                static_args=tuple(sorted(static.items())),
                backend=backend_name(entry.backend),
                grid=side.grid.name,
                gpu=side.machine.get("gpu") or side.machine.get("name", ""),
                samples_s=entry.samples,
            )
        )
    return timings


def speedups(
    base: ResultSet,
    head: ResultSet,
    baseline_name: str,
    *,
    store_root: pathlib.Path | None = None,
    mapping_file: pathlib.Path | None = None,
) -> tuple[dict[str, Any] | None, str | None]:
    """(the ``openacc`` object, ``None``) or (``None``, why no baseline matches)."""
    from iconbench.baselines import mapping, speedup, store

    baseline = store.load(store_root or store.default_root(), baseline_name)
    table = mapping.load(mapping_file or mapping.DEFAULT_FILE)
    sides: dict[str, Any] = {}
    for name, side in (("base", base), ("head", head)):
        try:
            report = speedup.compare(baseline, table, _timings(side))
        except IconbenchError as error:
            return None, f"OpenACC baseline {baseline_name}: {error}"
        sides[name] = {
            "integrate_nh": {
                b.backend: round(b.estimate.value, 4) for b in report.backends if b.estimate
            },
            "programs": [
                {
                    "program": "+".join(row.programs),
                    "backend": b.backend,
                    "timer": row.timer,
                    "openacc_s": row.openacc_s,
                    "gt4py_s": row.gt4py_s,
                    "speedup": row.speedup,
                    "share": round(row.share, 4),
                }
                for b in report.backends
                for row in b.rows
                if row.speedup is not None
            ],
        }
    return {
        "baseline": baseline.name,
        "experiment": baseline.experiment.name,
        "gpu": {"baseline": baseline.machine.gpu, "measured": head.machine.get("gpu", "")},
        "sides": sides,
    }, None
