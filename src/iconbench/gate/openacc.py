"""Each side's speed-up against a stored OpenACC baseline (the summary's ``openacc`` part).

Uses :mod:`iconbench.baselines.speedup` on the device-time samples of each side, as
``iconbench speedup`` does: with an experiment (``--experiment``) its baseline, grid (by cell,
edge, vertex and level counts) and static arguments. A baseline that does not match the grid
or GPU of the results is not forced unless asked (``--force``): ``openacc`` stays ``null`` and
the reason is returned for the table; a forced comparison lists its mismatches in
``openacc.forced``. Where the GPUs differ, ``gpu.bandwidth_scale`` is the factor that restates
GT4Py times for the baseline's GPU (memory-bound estimate, :mod:`iconbench.baselines.gpu_scaling`).
"""

from __future__ import annotations

import dataclasses
import pathlib
from typing import Any

from iconbench.errors import IconbenchError
from iconbench.gate.resultset import ResultSet
from iconbench.gate.summary import OpenACC, OpenACCSide, ProgramSpeedup


@dataclasses.dataclass(frozen=True)
class Request:
    """What to compare against: a baseline, and the experiment that says how."""

    baseline: str
    experiment: Any = None  # iconbench.baselines.experiments.Experiment
    force: bool = False
    store_root: pathlib.Path | None = None
    mapping_file: pathlib.Path | None = None


def request(
    baseline: str | None,
    experiment: str | None,
    *,
    force: bool = False,
    store_root: pathlib.Path | None = None,
) -> Request | None:
    """Check the names (before any work) and resolve them; ``None`` when neither is given."""
    from iconbench.baselines import experiments, store

    if force and not (baseline or experiment):
        raise IconbenchError("--force compares against a baseline: give --experiment or --baseline")
    if not (baseline or experiment):
        return None
    loaded = experiments.load(experiment) if experiment else None
    name = baseline or loaded.baseline  # type: ignore[union-attr]
    root = store_root or store.default_root()
    store.load(root, name)  # one line now if the name is wrong
    return Request(name, loaded, force, root)


def _timings(side: ResultSet) -> list[Any]:
    from iconbench.baselines.gt4py_timings import GT4PyTiming, backend_name, parse_variant
    from iconbench.grids.presets import GridCounts
    from iconbench.programs.catalog import split_case

    g = side.grid
    counts = (
        GridCounts(g.cells, g.edges, g.vertices, g.levels)
        if None not in (g.cells, g.edges, g.vertices, g.levels)
        else None
    )
    timings = []
    for entry in side.entries.values():
        if entry.metric != "device_time" or entry.error or not entry.samples:
            continue
        program, variant = split_case(entry.case)
        static = parse_variant(variant)
        timings.append(
            GT4PyTiming(
                program=program,
                static_args=tuple(sorted(static.items())),
                backend=backend_name(entry.backend),
                grid=side.grid.name,
                gpu=side.machine.get("gpu") or side.machine.get("name", ""),
                samples_s=entry.samples,
                metric="time_device",
                grid_counts=counts,
            )
        )
    return timings


def _copy_peak(side: ResultSet) -> float | None:
    """The device copy peak recorded with the side's asv results (bytes/s), if any."""
    from iconbench import results
    from iconbench.baselines import gpu_scaling

    root = side.results_dir
    for candidate in (root, root / "asv") if root else ():
        if candidate.is_dir() and (candidate / "benchmarks.json").exists():
            try:
                return gpu_scaling.measured_copy_peak(results.read(candidate))
            except IconbenchError:
                return None
    return None


def _side(report: Any) -> OpenACCSide:
    return OpenACCSide(
        integrate_nh={b.backend: round(b.estimate.value, 4) for b in report.backends if b.estimate},
        programs=tuple(
            sorted(
                (
                    ProgramSpeedup(
                        program="+".join(row.programs),
                        backend=b.backend,
                        timer=row.timer,
                        openacc_s=row.openacc_s,
                        gt4py_s=row.gt4py_s,
                        speedup=None if row.speedup is None else round(row.speedup, 4),
                        share=round(row.share, 4),
                    )
                    for b in report.backends
                    for row in b.rows
                ),
                key=lambda p: (-p.share, p.backend),
            )
        ),
    )


def speedups(base: ResultSet, head: ResultSet, want: Request) -> tuple[OpenACC | None, str | None]:
    """(the ``openacc`` value, ``None``) or (``None``, why no baseline matches)."""
    from iconbench.baselines import gpu_scaling, mapping, speedup, store
    from iconbench.grids.presets import counts_of

    baseline = store.load(want.store_root or store.default_root(), want.baseline)
    table = mapping.load(want.mapping_file or mapping.DEFAULT_FILE)
    experiment = want.experiment
    grid = (experiment.grid, counts_of(experiment.grid)) if experiment else None
    pins = experiment.pins if experiment else {}
    sides: dict[str, OpenACCSide] = {}
    forced: list[str] = []
    scale = None
    for name, side in (("base", base), ("head", head)):
        timings = _timings(side)
        if not timings:
            return None, f"OpenACC baseline {want.baseline}: {name} has no device times"
        gpu = timings[0].gpu
        scale = gpu_scaling.scaling(baseline.machine.gpu, gpu, _copy_peak(side))
        try:
            report = speedup.compare(
                baseline, table, timings, force=want.force, pins=pins, grid=grid, gpu_scaling=scale
            )
        except IconbenchError as error:
            return None, f"OpenACC baseline {want.baseline}: {error}"
        forced += [f for f in report.forced if f not in forced]
        sides[name] = _side(report)
    gpus = {"baseline": baseline.machine.gpu, "measured": head.machine.get("gpu", "")}
    if scale is not None and any("GPU differs" in f for f in forced):
        gpus |= {
            "bandwidth_scale": round(1 / scale.factor, 4),
            "scale_source": f"{scale.baseline} / {scale.gt4py}",
        }
    return (
        OpenACC(
            baseline=baseline.name,
            experiment=baseline.experiment.name,
            gpu=gpus,
            base=sides["base"],
            head=sides["head"],
            forced=tuple(forced),
        ),
        None,
    )
