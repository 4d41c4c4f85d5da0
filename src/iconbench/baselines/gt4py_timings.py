"""GT4Py per-call timings to compare with the OpenACC baseline, from two sources.

1. **gt4py metrics dumps**: with ``GT4PY_COLLECT_METRICS_LEVEL=10`` and
   ``GT4PY_DUMP_METRICS_AT_EXIT=file.json`` gt4py writes (``gt4py.next.instrumentation.metrics
   .dumps_json``)::

       {"<program><<backend>>#<pool>[<hash>]": {
            "metadata": {"name": "apply_diffusion_to_vn", "backend": "gtfn_gpu",
                         "static_args": {"at_first_substep": true}, ...},
            "metrics": {"compute": [s, s, ...], "total": [s, s, ...]}}}

   ``compute`` is the kernel time (what blueline compares with OpenACC), ``total`` the time of
   the whole Python call. Embedded runs have keys ``<program><'embedded'>``, no metadata and
   only ``total``. Such a dump says nothing about grid or GPU: the caller states them.
2. **asv results** read through :func:`iconbench.records.asv.read` (one record per case, backend,
   grid and benchmark kind), adapted by :func:`from_records`: ``time_device`` samples (the
   CUDA-event kernel time) stand for ``compute``, ``time_host`` for ``total``.

The first sample of a compiled program includes its compilation and first-touch costs, so it
is dropped when there are more (icon4py's script replaces it with the median instead; both
keep it from dominating a mean, dropping also keeps the median honest for few samples).
"""

from __future__ import annotations

import ast
import dataclasses
import math
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from iconbench.errors import IconbenchError
from iconbench.files import decode

#: Key of a metrics source: ``name<backend>`` optionally followed by ``#pool[hash]``.
_SOURCE_KEY = re.compile(r"^(?P<name>[^<]+)<'?(?P<backend>[^'>]*)'?>")
#: Separator of static arguments in a catalog variant name ``a=True-b=False``.
_VARIANT_SPLIT = re.compile(r"-(?=[A-Za-z_]\w*=)")

type StaticArgs = tuple[tuple[str, Any], ...]


@dataclasses.dataclass(frozen=True)
class GT4PyTiming:
    """Per-call seconds of one program variant on one backend, grid and GPU."""

    program: str
    static_args: StaticArgs
    backend: str
    grid: str
    gpu: str
    samples_s: tuple[float, ...]
    metric: str = "compute"
    #: counts of the grid measured on (asv results record them; ``None``: unknown, a dump)
    grid_counts: Any = None

    @property
    def variant(self) -> str:
        """The catalog's variant name (``k=v-k=v``, empty without static arguments)."""
        return variant_name(dict(self.static_args))


def variant_name(static_args: Mapping[str, Any]) -> str:
    """The catalog-style name of a static-argument assignment.

    >>> variant_name({"at_first_substep": True, "at_last_substep": False})
    'at_first_substep=True-at_last_substep=False'
    """
    return "-".join(f"{k}={v}" for k, v in static_args.items())


def parse_variant(name: str) -> dict[str, Any]:
    """Static arguments from a catalog variant name (Python literals where they parse).

    ``default`` (the catalog's name for a program without static arguments) and ``""`` are none.

    >>> parse_variant("at_first_substep=True-at_last_substep=False")
    {'at_first_substep': True, 'at_last_substep': False}
    >>> parse_variant(""), parse_variant("default")
    ({}, {})
    """
    result: dict[str, Any] = {}
    if name == "default":
        return result
    for part in filter(None, _VARIANT_SPLIT.split(name)):
        key, _, raw = part.partition("=")
        try:
            result[key] = ast.literal_eval(raw)
        except (ValueError, SyntaxError):
            result[key] = raw
    return result


def backend_name(name: str) -> str:
    """The backend as users and the asv suite name it: gt4py's ``run_`` prefix dropped.

    gt4py records its backend objects' names (``run_gtfn_gpu``); icon4py, blueline and
    iconbench call the same backend ``gtfn_gpu``.

    >>> backend_name("run_gtfn_gpu"), backend_name("dace_gpu"), backend_name("embedded")
    ('gtfn_gpu', 'dace_gpu', 'embedded')
    """
    return name.removeprefix("run_")


def _samples(origin: str, key: str, values: Any) -> tuple[float, ...]:
    if not isinstance(values, list) or not all(
        isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v) and v >= 0
        for v in values
    ):
        raise IconbenchError(
            f"{origin}: key '{key}': expected a list of times in seconds >= 0; "
            "is this a GT4PY_DUMP_METRICS_AT_EXIT file?"
        )
    return tuple(float(v) for v in values)


def from_metrics_dump(
    text: str, *, grid: str, gpu: str, metric: str = "auto", origin: str = "<metrics dump>"
) -> list[GT4PyTiming]:
    """Timings from a gt4py metrics JSON; ``metric`` is ``compute``, ``total`` or ``auto``.

    ``auto`` takes ``compute`` (kernel time) where a source has it and ``total`` elsewhere;
    the metric used is recorded on each timing and shown in the report. Sources of the same
    program, backend and static arguments (several compiled pools) are pooled.
    """
    data = decode.parse_json(text, origin, hint=HINT)
    if not isinstance(data, dict):
        raise IconbenchError(f"{origin}: expected an object of metric sources")
    pooled: dict[tuple[str, StaticArgs, str, str], list[float]] = {}
    for key, source in data.items():
        match = _SOURCE_KEY.match(key)
        if not isinstance(source, dict) or "metrics" not in source or match is None:
            raise IconbenchError(
                f"{origin}: key '{key}': expected 'program<backend>' with 'metrics'; "
                "is this a GT4PY_DUMP_METRICS_AT_EXIT file?"
            )
        metadata = source.get("metadata") or {}
        metrics = source["metrics"]
        if not isinstance(metrics, dict):
            raise IconbenchError(f"{origin}: key '{key}.metrics': expected an object")
        chosen = ("compute" if "compute" in metrics else "total") if metric == "auto" else metric
        if chosen not in metrics:
            continue  # e.g. a program that was only compiled, never called at this level
        samples = _samples(origin, f"{key}.metrics.{chosen}", metrics[chosen])
        static_args = metadata.get("static_args") or {}
        if not isinstance(static_args, dict):
            raise IconbenchError(f"{origin}: key '{key}.metadata.static_args': expected object")
        ident = (
            str(metadata.get("name") or match["name"]),
            tuple(sorted(static_args.items())),
            backend_name(str(metadata.get("backend") or match["backend"])),
            chosen,
        )
        pooled.setdefault(ident, []).extend(samples[1:] if len(samples) > 1 else samples)
    timings = [
        GT4PyTiming(name, args, backend, grid, gpu, tuple(samples), chosen)
        for (name, args, backend, chosen), samples in pooled.items()
        if samples
    ]
    if not timings:
        raise IconbenchError(f"{origin}: no program has '{metric}' samples; nothing to compare")
    return timings


#: asv benchmark kind per ``--metric``: device clock (kernel time, like gt4py's ``compute``) or
#: host clock (the whole call incl. synchronisation, like ``total``).
ASV_KINDS = {"auto": "time_device", "compute": "time_device", "total": "time_host"}


def from_records(
    records: Iterable[Any], *, gpu: str | None = None, metric: str = "auto"
) -> list[GT4PyTiming]:
    """Adapt :class:`iconbench.records.asv.ResultRecord` s (asv) to timings.

    Only the ``time_device`` records are kept (``time_host`` for ``metric="total"``); with
    ``auto``, a (case, backend, grid) without a device time (CPU backends) falls back to its
    host time. The case id ``program[variant]`` is split into program and static arguments
    (variant ``default``: none). asv records the machine, not the GPU: the GPU is ``gpu`` if
    given, else the asv machine name.
    """
    from iconbench.records.asv import grid_counts

    wanted = ASV_KINDS[metric]
    by_case: dict[tuple[str, str, str, str], Any] = {}
    for record in records:
        if record.kind not in {wanted, "time_host"} or not record.samples:
            continue
        if record.kind != wanted and metric != "auto":
            continue
        key = (record.program, record.backend, record.grid, record.machine)
        if key not in by_case or record.kind == wanted:
            by_case[key] = record
    timings = []
    for (case, backend, grid, machine), record in by_case.items():
        program, _, rest = case.partition("[")
        variant = rest.removesuffix("]")
        static = parse_variant(variant)
        timings.append(
            GT4PyTiming(
                program=program,
                static_args=tuple(sorted(static.items())),
                backend=backend_name(backend),
                grid=grid,
                gpu=gpu or machine,
                samples_s=tuple(float(s) for s in record.samples),
                metric=record.kind,
                grid_counts=grid_counts(record),
            )
        )
    return timings


def _preset_counts(grid: str) -> Any:
    """The counts of a grid named by preset (a dump's ``--grid``), else ``None``."""
    from iconbench.grids.presets import counts_of

    try:
        return counts_of(grid)
    except IconbenchError:
        return None


#: What to do about a broken metrics dump.
HINT = "is this a GT4PY_DUMP_METRICS_AT_EXIT file? Dump it again"


def check_one_grid(timings: Iterable[GT4PyTiming], path: Path | str) -> None:
    """Refuse timings of several grids: side by side they would compare different problems.

    >>> t = GT4PyTiming("p", (), "gtfn_gpu", "tiny", "H100", (1e-3,), "time_device")
    >>> try:
    ...     check_one_grid([t, dataclasses.replace(t, grid="R04B09")], "res")
    ... except IconbenchError as e:
    ...     print(e)
    res: results on 2 grids would be mixed; pick one with --grid (R04B09, tiny)
    """
    grids = sorted({t.grid for t in timings})
    if len(grids) > 1:
        raise IconbenchError(
            f"{path}: results on {len(grids)} grids would be mixed; pick one with --grid "
            f"({', '.join(grids)})"
        )


def load(
    path: Path,
    *,
    grid: str | None,
    gpu: str | None,
    metric: str = "auto",
    commit: str | None = None,
    one_grid: bool = True,
) -> list[GT4PyTiming]:
    """Timings from ``path``: a gt4py metrics dump (JSON file) or an asv results directory.

    asv results are read by :mod:`iconbench.records.asv` (``grid`` then selects one grid of the
    suite); a metrics dump needs ``grid`` and ``gpu`` because it does not record them.
    Results on several grids are refused unless ``one_grid`` is false: a caller that selects
    the grid itself (an experiment, by its cell counts) then calls :func:`check_one_grid`.
    """
    if path.is_file():
        text = decode.read_text(path, hint=HINT)
        data = decode.parse_json(text, path, hint=HINT)
        if isinstance(data, dict) and not {"results", "params", "commit_hash"} & data.keys():
            if grid is None or gpu is None:
                raise IconbenchError(
                    f"{path}: a gt4py metrics dump does not record grid or GPU; "
                    "pass --grid and --gpu (e.g. --grid R04B09 --gpu A100)"
                )
            timings = from_metrics_dump(text, grid=grid, gpu=gpu, metric=metric, origin=str(path))
            return [dataclasses.replace(t, grid_counts=_preset_counts(grid)) for t in timings]
    if not path.is_dir():
        raise IconbenchError(
            f"{path}: not a gt4py metrics dump nor an asv results directory; pass the dump "
            "(GT4PY_DUMP_METRICS_AT_EXIT) or the asv results_dir"
        )
    from iconbench.records import asv as results

    records = results.select_run(results.read(path), commit=commit, origin=str(path))
    timings = from_records(records, gpu=gpu, metric=metric)
    grids = sorted({t.grid for t in timings})
    if grid is not None and timings and grid not in grids:
        raise IconbenchError(
            f"{path}: no results on grid {grid!r}; grids present: {', '.join(grids)}"
        )
    if grid is None and one_grid:
        check_one_grid(timings, path)
    if grid is not None:
        timings = [t for t in timings if t.grid == grid]
    if not timings:
        raise IconbenchError(
            f"{path}: no asv time_device/time_host samples"
            + (f" on grid {grid!r}" if grid else "")
            + "; run the suite with --record-samples"
        )
    return timings
