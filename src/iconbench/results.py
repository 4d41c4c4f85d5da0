"""asv result files ↔ typed records.

asv stores one JSON file per (machine, commit, environment) under ``results/<machine>/``; a
parameterised benchmark keeps one value, one stats entry and (with ``--record-samples``) one
sample list per parameter combination, in the order of ``itertools.product(*params)``.
:func:`read` flattens that into one :class:`ResultRecord` per (benchmark, parameter
combination), the form the baselines, gate and site code consume.

:func:`write_asv` is the inverse for the in-process runs of :mod:`iconbench.timing.session`:
it writes the same files ``asv run`` would, via asv's own ``Results`` class, so
``asv compare``/``asv publish`` accept them. Existing result files are never overwritten.
"""

from __future__ import annotations

import ast
import dataclasses
import datetime
import itertools
import json
import os
import pathlib
import tempfile
from collections.abc import Iterable, Sequence
from typing import Any

from iconbench.errors import IconbenchError
from iconbench.timing.statistics import SampleStats, summarize

#: The asv benchmark of each kind, in ``benchmarks/programs.py``.
SUITE = "programs.Programs"
TIME_KINDS = ("time_host", "time_device")
TRACK_KINDS = (
    "track_call_overhead",
    "track_bandwidth",
    "track_bandwidth_fraction",
    "track_compile_cold",
    "track_compile_cached",
    "track_codegen_fingerprint",
)


@dataclasses.dataclass(frozen=True)
class ResultRecord:
    """One benchmark value for one parameter combination of one asv result file.

    Attributes:
        program: the catalog case id ``program[variant]`` (asv parameter ``program``).
        variant: the variant part of ``program`` (``default`` when there is none).
        backend: gt4py backend name (``embedded``, ``gtfn_cpu``, ``gtfn_gpu``, ``dace_gpu``…).
        grid: grid preset name.
        kind: the benchmark method, e.g. ``time_device`` (seconds per call, device clock),
            ``time_host`` (seconds per call incl. synchronisation), ``track_call_overhead``
            (seconds), ``track_bandwidth`` (GB/s), ``track_bandwidth_fraction`` (of the
            measured copy peak), ``track_compile_cold``/``track_compile_cached`` (seconds).
        value: asv's reported value (median for ``time_`` benchmarks); ``None`` if failed/skipped.
        samples: the raw samples (seconds for ``time_``), empty unless recorded.
        stats: :class:`SampleStats` of ``samples`` (``None`` without samples).
        unit: asv's unit string.
        commit: the commit hash the result file belongs to.
        machine: asv machine name.
        env_name: asv environment name.
        params: the raw parameter values of the combination, by asv parameter name.
        benchmark: full asv benchmark name, e.g. ``programs.Programs.time_device``.

    """

    program: str
    variant: str
    backend: str
    grid: str
    kind: str
    value: float | None
    samples: tuple[float, ...]
    stats: SampleStats | None
    unit: str
    commit: str
    machine: str
    env_name: str
    params: dict[str, str]
    benchmark: str


def _unquote(value: str) -> str:
    """Asv stores parameter values as their ``repr``.

    >>> _unquote("'gtfn_cpu'"), _unquote("3")
    ('gtfn_cpu', '3')
    """
    try:
        parsed = ast.literal_eval(value)
    except (ValueError, SyntaxError):
        return value
    return str(parsed)


def _load_benchmarks(results_dir: pathlib.Path) -> dict[str, Any]:
    path = results_dir / "benchmarks.json"
    if not path.exists():
        return {}
    return json.loads(path.read_text(encoding="utf-8"))


def read(results_dir: str | os.PathLike[str]) -> list[ResultRecord]:
    """Every record of every asv result file under ``results_dir`` (an asv ``results_dir``)."""
    root = pathlib.Path(results_dir)
    if not root.is_dir():
        raise IconbenchError(f"no asv results directory at {root}")
    units = {
        name: bench.get("unit", "")
        for name, bench in _load_benchmarks(root).items()
        if isinstance(bench, dict)
    }
    records: list[ResultRecord] = []
    for path in result_files(root):
        records.extend(read_file(path, units))
    return records


def result_files(results_dir: str | os.PathLike[str]) -> list[pathlib.Path]:
    """The result files (not ``machine.json``) of an asv results dir or one machine's dir."""
    root = pathlib.Path(results_dir)
    found = [*root.glob("*.json"), *root.glob("*/*.json")]
    return sorted(
        p for p in found if p.name not in ("machine.json", "benchmarks.json") and p.is_file()
    )


def load_file(path: str | os.PathLike[str]) -> dict[str, Any]:
    """One asv result file as JSON; a broken or foreign file raises one clear line."""
    path = pathlib.Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as error:
        raise IconbenchError(f"{path}: cannot read ({error})") from None
    except json.JSONDecodeError as error:
        raise IconbenchError(
            f"{path}: line {error.lineno}: invalid JSON ({error.msg}); "
            "pass an asv result file or results directory"
        ) from None
    if not isinstance(data, dict) or "results" not in data or "commit_hash" not in data:
        raise IconbenchError(f"{path}: not an asv result file (no 'results'/'commit_hash')")
    return data


def read_file(
    path: str | os.PathLike[str], units: dict[str, str] | None = None
) -> list[ResultRecord]:
    """Every record of one asv result file; units from its results dir's ``benchmarks.json``."""
    path = pathlib.Path(path)
    if units is None:
        root = path.parent.parent
        units = {
            name: bench.get("unit", "")
            for name, bench in _load_benchmarks(root).items()
            if isinstance(bench, dict)
        }
    return list(_records_of_file(load_file(path), units))


def _records_of_file(data: dict[str, Any], units: dict[str, str]) -> Iterable[ResultRecord]:
    from iconbench.suite import split_case

    columns = data.get("result_columns", [])
    machine = data.get("params", {}).get("machine", "")
    for name, row in data.get("results", {}).items():
        entry = dict(zip(columns, row, strict=False))
        params = entry.get("params") or []
        combos = list(itertools.product(*params)) if params else [()]
        values = entry.get("result")
        samples = entry.get("samples") or [None] * len(combos)
        if not isinstance(values, list):
            values = [values] * len(combos)
        param_names = ("program", "backend", "grid")
        for combo, value, sample in zip(combos, values, samples, strict=False):
            named = dict(zip(param_names, (_unquote(v) for v in combo), strict=False))
            case = named.get("program", "")
            _, variant = split_case(case) if case else ("", "")
            sample_tuple = tuple(float(s) for s in sample or ())
            yield ResultRecord(
                program=case,
                variant=variant,
                backend=named.get("backend", ""),
                grid=named.get("grid", ""),
                kind=name.rsplit(".", 1)[-1],
                value=None if value is None else float(value),
                samples=sample_tuple,
                stats=summarize(sample_tuple) if sample_tuple else None,
                unit=units.get(name, ""),
                commit=data.get("commit_hash", ""),
                machine=machine,
                env_name=data.get("env_name", ""),
                params=named,
                benchmark=name,
            )


def merge(sources: Sequence[str | os.PathLike[str]], target: str | os.PathLike[str]) -> int:
    """Merge the result files of shard runs into ``target`` (an asv results dir).

    Shards cover disjoint parameter combinations, so for each (machine, file) the merged
    entry takes, per combination, the value of the shard that has one. Returns the number of
    files written. Files already in ``target`` are merged into, never silently replaced.
    """
    from asv import results as asv_results
    from asv import util as asv_util

    target_dir = pathlib.Path(target)
    written = 0
    groups: dict[pathlib.Path, list[pathlib.Path]] = {}
    for source in sources:
        root = pathlib.Path(source)
        for path in root.glob("*/*.json"):
            if path.name != "machine.json":
                groups.setdefault(path.relative_to(root), []).append(path)
            else:
                destination = target_dir / path.relative_to(root)
                if not destination.exists():
                    _atomic_write(destination, path.read_text(encoding="utf-8"))
        bench = root / "benchmarks.json"
        if bench.exists() and not (target_dir / "benchmarks.json").exists():
            _atomic_write(target_dir / "benchmarks.json", bench.read_text(encoding="utf-8"))
    for relative, paths in groups.items():
        existing = target_dir / relative
        loaded = [asv_results.Results.load(str(p)) for p in paths]
        if existing.exists():
            loaded.insert(0, asv_results.Results.load(str(existing)))
        base = loaded[0]
        for other in loaded[1:]:
            for key in other.get_all_result_keys():
                params = other.get_result_params(key)
                new_values = other.get_result_value(key, params)
                new_samples = other.get_result_samples(key, params)
                if key in base.get_all_result_keys():
                    old_values = base.get_result_value(key, params)
                    old_samples = base.get_result_samples(key, params)
                    values = [
                        o if n is None or asv_util.is_nan(n) else n
                        for o, n in zip(old_values, new_values, strict=False)
                    ]
                    samples = [
                        n if n is not None else o
                        for o, n in zip(old_samples, new_samples, strict=False)
                    ]
                else:
                    values, samples = new_values, new_samples
                base._results[key] = values
                base._samples[key] = samples
                base._stats[key] = [None] * len(values)
                base._benchmark_params[key] = params
                base._benchmark_version[key] = other.benchmark_version[key]
                base._started_at[key] = other.started_at.get(key)
        base.save(str(target_dir))
        written += 1
    return written


def _atomic_write(path: pathlib.Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(
        "w", dir=path.parent, delete=False, suffix=".tmp", encoding="utf-8"
    ) as out:
        out.write(text)
    os.replace(out.name, path)


def discover_benchmarks(benchmark_dir: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """The benchmark descriptions asv would put into ``benchmarks.json`` (imports the suite).

    Uses asv_runner's own discovery so names, params and code versions match ``asv run``.
    """
    import io

    from asv_runner import discovery

    buffer = io.StringIO()
    discovery.list_benchmarks(str(pathlib.Path(benchmark_dir).resolve()), buffer)
    return json.loads(buffer.getvalue())


def write_asv(
    results_dir: str | os.PathLike[str],
    benchmarks: list[dict[str, Any]],
    values: dict[str, dict[tuple[str, str, str], tuple[float | None, list[float] | None]]],
    *,
    machine: dict[str, str],
    commit: str,
    env_name: str,
    python: str,
    date_ms: int | None = None,
) -> pathlib.Path:
    """Write one asv result file (plus ``benchmarks.json`` and ``machine.json`` if missing).

    ``values[kind][(case, backend, grid)] = (value, samples)`` with ``kind`` the method name
    (``time_device``…). Combinations without a value are stored as ``None`` (failed/skipped),
    exactly as ``asv run`` does. Refuses to overwrite an existing result file.
    """
    from asv import results as asv_results
    from asv import runner as asv_runner

    root = pathlib.Path(results_dir)
    by_name = {b["name"]: b for b in benchmarks}
    bench_json = root / "benchmarks.json"
    if not bench_json.exists():
        _atomic_write(bench_json, json.dumps({**by_name, "version": 2}, indent=4, sort_keys=True))
    machine_json = root / machine["machine"] / "machine.json"
    if not machine_json.exists():
        _atomic_write(machine_json, json.dumps({**machine, "version": 1}, indent=4))
    result = asv_results.Results(
        {**machine, "python": python},
        {},
        commit,
        date_ms or int(datetime.datetime.now(datetime.UTC).timestamp() * 1000),
        python,
        env_name,
        {},
    )
    path = root / result._filename
    if path.exists():
        raise IconbenchError(
            f"{path} exists; results are append-only (use another --env-name or commit)"
        )
    for name, bench in by_name.items():
        kind = name.rsplit(".", 1)[-1]
        if kind not in values:
            continue
        combos = list(itertools.product(*bench["params"]))
        covered = {tuple(_unquote(v) for v in combo) for combo in combos}
        if lost := sorted(set(values[kind]) - covered):
            raise IconbenchError(
                f"{len(lost)} {kind} results (first: {lost[0]}) are not parameters of the "
                f"benchmark suite; discover it with the same ICONBENCH_PROGRAMS, _BACKENDS, "
                f"_GRID and _ONE_VARIANT as the run, or they would be lost"
            )
        per_combo = [
            values[kind].get(tuple(_unquote(v) for v in combo), (None, None))  # type: ignore[arg-type]
            for combo in combos
        ]
        is_time = kind.startswith("time_")
        result.add_result(
            bench,
            asv_runner.BenchmarkResult(
                result=[v for v, _ in per_combo],
                samples=[s if is_time else None for _, s in per_combo],
                number=[1 if (is_time and v is not None) else None for v, _ in per_combo],
                errcode=0,
                stderr="",
                profile=None,
            ),
            record_samples=True,
        )
    result.save(str(root))
    return path
