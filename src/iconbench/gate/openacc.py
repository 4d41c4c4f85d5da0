"""Each side's speed-up against a stored OpenACC baseline (the summary's ``openacc`` part).

Uses :mod:`iconbench.baselines.speedup` on the device-time samples of each side, as
``iconbench speedup`` does: with an experiment (``--experiment``) its baseline, grid (by cell,
edge, vertex and level counts) and static arguments. A baseline that does not match the grid
or GPU of the results is not forced unless asked (``--force``): ``openacc`` stays ``null`` and
the reason is returned for the table; a forced comparison lists its mismatches in
``openacc.forced``. Where the GPUs differ, ``gpu.bandwidth_scale`` is the factor that restates
GT4Py times for the baseline's GPU (memory-bound estimate, :mod:`iconbench.baselines.gpu_scaling`).

Without an experiment named (the pull-request check, ``iconbench continuous``, the nightly's
``iconbench compare``), :func:`for_grid` takes the experiment ICON ran on the grid the
results were measured on, if any, and compares the GPU backends: a GPU other than the
baseline's is compared and said (``forced``, the bandwidth-scaled figures beside the raw
ones), another grid never. Where nothing is compared, the reason is the summary's
``openacc_note``.
"""

from __future__ import annotations

import dataclasses
import pathlib
from typing import Any

from iconbench.errors import IconbenchError
from iconbench.records.resultset import ResultSet
from iconbench.records.summary import OpenACC, OpenACCSide, ProgramSpeedup


@dataclasses.dataclass(frozen=True)
class Request:
    """What to compare against: a baseline, and the experiment that says how."""

    baseline: str
    experiment: Any = None  # iconbench.baselines.experiments.Experiment
    force: bool = False
    store_root: pathlib.Path | None = None
    mapping_file: pathlib.Path | None = None
    #: compare on a GPU other than the baseline's, said in ``forced`` (another grid: never)
    across_gpus: bool = False
    #: the backends compared (``None``: every backend of the results)
    backends: tuple[str, ...] | None = None


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
    from iconbench.programs.catalog import split_case

    counts = _counts(side)
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


def _counts(side: ResultSet) -> Any:
    """The side's grid counts: recorded, else its preset's, else ``None``.

    As :func:`iconbench.records.asv.grid_counts` reads asv's records, which ``iconbench speedup``
    compares.
    """
    from iconbench.grids.presets import GridCounts, counts_of

    g = side.grid
    if None not in (g.cells, g.edges, g.vertices, g.levels):
        return GridCounts(g.cells, g.edges, g.vertices, g.levels)  # type: ignore[arg-type]
    try:
        return counts_of(g.name)
    except IconbenchError:
        return None


def _copy_peak(side: ResultSet) -> float | None:
    """The device copy peak recorded with the side's asv results (bytes/s), if any."""
    from iconbench.baselines import gpu_scaling
    from iconbench.records import asv as results

    root = side.results_dir
    for candidate in (root, root / "asv") if root else ():
        if candidate.is_dir() and (candidate / "benchmarks.json").exists():
            try:
                return gpu_scaling.measured_copy_peak(results.read(candidate))
            except IconbenchError:
                return None
    return None


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def _side(report: Any) -> OpenACCSide:
    estimates = [(b.backend, b.estimate) for b in report.backends if b.estimate]
    return OpenACCSide(
        integrate_nh={backend: round(e.value, 4) for backend, e in estimates},
        coverage={backend: round(e.coverage, 4) for backend, e in estimates},
        integrate_nh_scaled={
            backend: round(e.value_bandwidth_scaled, 4)
            for backend, e in estimates
            if e.value_bandwidth_scaled is not None
        },
        programs=tuple(
            sorted(
                (
                    ProgramSpeedup(
                        program="+".join(row.programs),
                        backend=b.backend,
                        timer=row.timer,
                        openacc_s=row.openacc_s,
                        gt4py_s=row.gt4py_s,
                        speedup=_rounded(row.speedup),
                        share=round(row.share, 4),
                        speedup_scaled=_rounded(row.speedup_bandwidth_scaled),
                        status=row.status,
                        missing=tuple(row.missing),
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

    baseline = store.load(want.store_root or store.default_root(), want.baseline)
    table = mapping.load(want.mapping_file or mapping.DEFAULT_FILE)
    experiment = want.experiment
    pins = experiment.pins if experiment else {}
    sides: dict[str, OpenACCSide] = {}
    forced: list[str] = []
    scale = None
    for name, side in (("base", base), ("head", head)):
        timings = _timings(side)
        if not timings:
            return None, f"OpenACC baseline {want.baseline}: {name} has no device times"
        gpu = timings[0].gpu
        # the experiment's grid, or another preset of its domain this side measured on
        grid = experiment.grid_of(t.grid_counts for t in timings) if experiment else None
        scale = gpu_scaling.scaling(baseline.machine.gpu, gpu, _copy_peak(side))
        if want.backends is not None:
            timings = [t for t in timings if t.backend in want.backends]
            if not timings:
                return None, f"OpenACC baseline {want.baseline}: {name} has no GPU device times"
        try:
            report = speedup.compare(
                baseline,
                table,
                timings,
                force=want.force or want.across_gpus,
                pins=pins,
                grid=grid,
                gpu_scaling=scale,
            )
        except IconbenchError as error:
            return None, f"OpenACC baseline {want.baseline}: {error}"
        if not want.force and (other := [f for f in report.forced if not f.startswith("GPU ")]):
            return None, f"OpenACC baseline {want.baseline}: {'; '.join(other)}"
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


def applies(side: ResultSet) -> bool:
    """Whether an ICON experiment ran on ``side``'s grid: an OpenACC line says something there.

    On any other grid (``tiny``) the missing comparison is no news and is not logged.
    """
    from iconbench.baselines import experiments

    return bool(experiments.on_grid(side.grid.name, _counts(side)))


def for_grid(base: ResultSet, head: ResultSet) -> tuple[OpenACC | None, str | None]:
    """Both sides' GPU backends against the experiment ICON ran on their grid, if any.

    ``(openacc, None)``, or ``(None, why not)``: no experiment on the grid, no GPU backend
    measured, the baseline's own refusal (:func:`speedups`), or a file that cannot be read
    (an experiment, the baseline, the mapping). Never an error: the verdict stands without it.
    """
    try:
        return _for_grid(base, head)
    except IconbenchError as error:
        return None, f"no OpenACC comparison: {error}"


def _for_grid(base: ResultSet, head: ResultSet) -> tuple[OpenACC | None, str | None]:
    from iconbench.baselines import experiments
    from iconbench.programs.backends import on_gpu

    found = experiments.on_grid(head.grid.name, _counts(head))
    if not found:
        known = ", ".join(
            f"{e.name} on {e.grid}" for e in map(experiments.load, experiments.names())
        )
        return None, (
            f"no ICON experiment ran on grid {head.grid.name}: no OpenACC comparison "
            f"(experiments: {known or 'none'})"
        )
    experiment = found[0]
    gpus = tuple(sorted({e.backend for e in head.entries.values() if on_gpu(e.backend)}))
    if not gpus:
        return None, (
            f"no GPU backend measured: no OpenACC comparison with {experiment.name}'s "
            f"baseline {experiment.baseline}"
        )
    want = Request(experiment.baseline, experiment, across_gpus=True, backends=gpus)
    return speedups(base, head, want)
