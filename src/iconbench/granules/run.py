"""Measure granule cases on one backend and grid and write the result file."""

from __future__ import annotations

from pathlib import Path

from iconbench.granules import cases, measure, results


def measure_all(
    chosen: list[str], backend: str, grid: str, *, samples: int
) -> tuple[list[measure.GranuleMeasurement], cases.Prepared]:
    """Build the granules once, then measure every case in ``chosen``."""
    prepared = cases.prepare(chosen, backend, grid)
    measured = [
        measure.measure(
            prepared.call(case),
            case=case,
            backend=backend,
            grid=grid,
            samples=samples,
            on_gpu=prepared.on_gpu,
        )
        for case in chosen
    ]
    return measured, prepared


def measure_and_write(
    chosen: list[str], backend: str, grid: str, *, samples: int, out: Path
) -> Path:
    """:func:`measure_all`, then one result file in ``out`` (returns its path)."""
    from iconbench import provenance

    measured, prepared = measure_all(chosen, backend, grid, samples=samples)
    gpu = provenance.gpu_info() if prepared.on_gpu else None
    data = results.to_dict(
        measured,
        grid=grid,
        backend=backend,
        samples=samples,
        build_s=prepared.build_s,
        stack=provenance.package_versions(),
        gpu=getattr(gpu, "name", None) or "none",
    )
    return results.write(data, out)
