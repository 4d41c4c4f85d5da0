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
import math
import os
import pathlib
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from iconbench.errors import IconbenchError
from iconbench.files import decode
from iconbench.files.atomic import write_atomic
from iconbench.files.fields import Fields, describe
from iconbench.grids.presets import GridCounts, counts_of, spec_for
from iconbench.sample_stats import SampleStats, summarize

#: Key of an asv result file's ``params`` holding the counts of each grid measured in it:
#: ``"NAME:cells/edges/vertices/levels[,NAME:...]"`` (asv keeps params as strings).
GRID_COUNTS_PARAM = "grid_counts"
#: Key of the params holding what made each grid measured in it (:mod:`iconbench.grids.makers`):
#: ``"NAME=maker[,NAME=maker]"``; files written before it have none.
GRID_MAKERS_PARAM = "grid_makers"
#: Key of the params holding the options of each backend variant of ``backends.toml`` measured.
BACKEND_OPTIONS_PARAM = "backend_options"

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
        grid_counts: the counts of the grid the file recorded for ``grid`` (``None`` in files
            written before counts were recorded: see :func:`grid_counts`).

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
    grid_counts: GridCounts | None = None
    #: what made ``grid``, as the file recorded it (``None`` in files written before makers
    #: were recorded: :func:`iconbench.grids.makers.of_result` says what the name meant then)
    grid_maker: str | None = None


def format_grid_makers(makers: dict[str, str]) -> str:
    """The ``grid_makers`` param of a result file.

    >>> format_grid_makers({"tiny": "iconbench lattice", "r02b02": "icon-grid-generator 0.9.0"})
    'r02b02=icon-grid-generator 0.9.0,tiny=iconbench lattice'
    >>> parse_grid_makers(_)["tiny"], parse_grid_makers("")
    ('iconbench lattice', {})
    """
    return ",".join(f"{name}={maker}" for name, maker in sorted(makers.items()))


def parse_grid_makers(text: str) -> dict[str, str]:
    """Inverse of :func:`format_grid_makers` (``{}`` for an empty or foreign value)."""
    pairs = (item.partition("=") for item in filter(None, text.split(",")))
    return {name: maker for name, sep, maker in pairs if sep and name and maker}


def format_grid_counts(counts: dict[str, GridCounts]) -> str:
    """The ``grid_counts`` param of a result file.

    >>> format_grid_counts({"tiny": GridCounts(512, 768, 256, 10)})
    'tiny:512/768/256/10'
    >>> parse_grid_counts(_) == {"tiny": GridCounts(512, 768, 256, 10)}
    True
    """
    return ",".join(
        f"{name}:{c.cells}/{c.edges}/{c.vertices}/{c.levels}" for name, c in sorted(counts.items())
    )


def parse_grid_counts(text: str) -> dict[str, GridCounts]:
    """Inverse of :func:`format_grid_counts` (``{}`` for an empty or foreign value)."""
    found = {}
    for item in filter(None, text.split(",")):
        name, _, numbers = item.rpartition(":")
        try:
            found[name] = GridCounts(*(int(n) for n in numbers.split("/")))
        except (TypeError, ValueError):
            continue
    return found


def grid_counts(record: ResultRecord) -> GridCounts | None:
    """The counts of the grid a record was measured on.

    Recorded in the result file since counts are recorded; for older files, the counts the
    preset name generates (presets never change their counts, ``ch1_medium`` included: a test
    freezes them), ``None`` for a grid name that is no preset.
    """
    if record.grid_counts is not None:
        return record.grid_counts
    try:
        return counts_of(record.grid)
    except IconbenchError:
        return None


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


#: What to do about a broken asv result file.
HINT = "move the broken file out of the results directory or run the suite again"


def _load_benchmarks(results_dir: pathlib.Path) -> dict[str, Any]:
    path = results_dir / "benchmarks.json"
    if not path.exists():
        return {}
    data = decode.load_json(path, hint=HINT)
    if not isinstance(data, dict):
        raise decode.fail(path, "expected an object of benchmarks", HINT)
    return data


def read(results_dir: str | os.PathLike[str]) -> list[ResultRecord]:
    """Every record of every asv result file under ``results_dir`` (an asv ``results_dir``)."""
    root = pathlib.Path(results_dir)
    if not root.is_dir():
        raise IconbenchError(f"no asv results directory at {root}")
    units = units_of(root)
    records: list[ResultRecord] = []
    for path in result_files(root):
        records.extend(read_file(path, units).records)
    return records


@dataclasses.dataclass(frozen=True)
class ResultFile:
    """One asv result file: what it says about its run, and its records.

    Attributes:
        path: the file.
        commit: the commit hash of the run.
        date_ms: asv's ``date`` (milliseconds since the epoch: the commit's date for
            ``asv run``, the run's for ``--set-commit-hash`` and iconbench's own writers).
        machine: the asv machine description the run recorded (``machine``, ``cpu``, and
            ``gpu`` where the runner's ``machine.json`` has one).
        env_name: asv environment name (iconbench's name the stack and grid in it).
        records: one :class:`ResultRecord` per benchmark and parameter combination.

    """

    path: pathlib.Path
    commit: str
    date_ms: int
    machine: dict[str, str]
    env_name: str
    records: tuple[ResultRecord, ...]


def units_of(results_dir: pathlib.Path) -> dict[str, str]:
    """The unit of every benchmark in ``benchmarks.json`` (empty when it is missing)."""
    return {
        name: bench.get("unit", "")
        for name, bench in _load_benchmarks(results_dir).items()
        if isinstance(bench, dict)
    }


def result_files(results_dir: str | os.PathLike[str]) -> list[pathlib.Path]:
    """The result files (not ``machine.json``) of an asv results dir or one machine's dir."""
    root = pathlib.Path(results_dir)
    found = [*root.glob("*.json"), *root.glob("*/*.json")]
    return sorted(
        p for p in found if p.name not in ("machine.json", "benchmarks.json") and p.is_file()
    )


#: iconbench's own JSON files (by their ``schema``) that are given where results belong.
OTHER_FILES = {
    "iconbench-gate-summary": "a gate summary (the output of 'iconbench compare', read by "
    "'iconbench comment' and 'publish --gate')",
    "iconbench-history-entry": "a history entry (read it with 'iconbench history')",
    "iconbench.baseline": "an OpenACC baseline (read it with 'iconbench baseline')",
    "iconbench.granules": "a granule result file (read it with 'iconbench granules report')",
}


def refuse_other_iconbench_file(path: pathlib.Path, data: Any) -> None:
    """One line naming what ``path`` is when it is one of iconbench's other files.

    Otherwise its first missing key (``commit_hash``) reads as a broken result file.
    """
    schema = data.get("schema") if isinstance(data, dict) else None
    if isinstance(schema, str) and schema.startswith("iconbench"):
        what = OTHER_FILES.get(schema, f"an iconbench {schema!r} file")
        raise IconbenchError(
            f"{path}: this is {what}, not a result set; give asv results or a GPU runner's "
            "result set (e.g. results/h100)"
        )


def load_file(path: str | os.PathLike[str]) -> dict[str, Any]:
    """One asv result file as checked JSON.

    Any malformed content (truncated, binary, wrong schema, wrong types) is one line naming
    the file and the key.
    """
    path = pathlib.Path(path)
    data = decode.load_json(path, hint=HINT)
    refuse_other_iconbench_file(path, data)
    top = Fields(str(path), data, hint=HINT)
    top.text("commit_hash")
    top.get("env_name", str, optional=True)
    top.get("result_columns", list)
    results = top.child("results")
    params = top.child("params", optional=True)
    if params is not None:
        params.get("machine", str, optional=True)
    assert results is not None
    for name, row in results.data.items():
        if not isinstance(row, list):
            results.fail(f"expected a list, got {describe(row)}", results.path(name))
    return data


def read_file(
    path: str | os.PathLike[str],
    units: dict[str, str] | None = None,
    *,
    with_stats: bool = True,
) -> ResultFile:
    """One result file and its records (negative or non-finite samples are one error line).

    ``units`` default to those of the results dir's ``benchmarks.json``; ``with_stats=False``
    leaves :attr:`ResultRecord.stats` empty (readers that only need medians, such as the
    history site over hundreds of files, skip the summaries).
    """
    path = pathlib.Path(path)
    data = load_file(path)
    top = Fields(str(path), data, hint=HINT)
    if units is None:
        units = units_of(path.parent.parent)
    try:
        records = tuple(_records_of_file(data, units, top, with_stats=with_stats))
        return ResultFile(
            path=path,
            commit=str(data.get("commit_hash") or ""),
            date_ms=int(data.get("date") or 0),
            machine={str(k): str(v) for k, v in (data.get("params") or {}).items()},
            env_name=str(data.get("env_name") or ""),
            records=records,
        )
    except (TypeError, ValueError, AttributeError) as error:
        raise decode.fail(path, f"unexpected asv result layout ({error})", HINT) from None


def select_run(
    records: list[ResultRecord], *, commit: str | None = None, origin: str = "results"
) -> list[ResultRecord]:
    """The records of one commit and one environment (stack) of ``records``.

    Numbers of several commits or stacks side by side would compare different code without
    saying so: more than one is refused with the list, and ``commit`` (a prefix) picks one.
    """
    counts: dict[str, set[str]] = {}
    for record in records:
        measured = counts.setdefault(record.commit, set())
        if record.value is not None:
            measured.add(record.program)
    commits = sorted(counts)
    if commit:
        chosen = [c for c in commits if c.startswith(commit)]
        if len(chosen) != 1:
            raise IconbenchError(
                f"{origin}: --commit {commit!r} matches {len(chosen)} of the commits "
                f"{', '.join(c[:12] for c in commits) or 'none'}; give a longer prefix"
            )
        records = [r for r in records if r.commit == chosen[0]]
    elif len(commits) > 1:
        listed = ", ".join(f"{c[:12]} ({len(counts[c])} cases measured)" for c in commits)
        raise IconbenchError(
            f"{origin}: results of {len(commits)} commits ({listed}) would be mixed; "
            "pick one with --commit SHA"
        )
    envs = sorted({r.env_name for r in records})
    if len(envs) > 1:
        raise IconbenchError(
            f"{origin}: results of {len(envs)} environments/stacks ({', '.join(envs)}) for one "
            "commit would be mixed; keep one environment's files in the directory"
        )
    return records


def _records_of_file(
    data: dict[str, Any],
    units: dict[str, str],
    top: Fields | None = None,
    *,
    with_stats: bool = True,
) -> Iterable[ResultRecord]:
    from iconbench.programs.catalog import split_case

    columns = data.get("result_columns", [])
    machine = data.get("params", {}).get("machine", "")
    recorded = parse_grid_counts(str(data.get("params", {}).get(GRID_COUNTS_PARAM, "")))
    makers = parse_grid_makers(str(data.get("params", {}).get(GRID_MAKERS_PARAM, "")))
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
            bad = [s for s in sample_tuple if not (math.isfinite(s) and s >= 0)]
            if top is not None and bad:
                top.fail(f"samples must be finite times >= 0 s, got {bad[0]!r}", f"results.{name}")
            yield ResultRecord(
                program=case,
                variant=variant,
                backend=named.get("backend", ""),
                grid=named.get("grid", ""),
                kind=name.rsplit(".", 1)[-1],
                value=None if value is None else float(value),
                samples=sample_tuple,
                stats=summarize(sample_tuple) if sample_tuple and with_stats else None,
                unit=units.get(name, ""),
                commit=data.get("commit_hash", ""),
                machine=machine,
                env_name=data.get("env_name", ""),
                params=named,
                benchmark=name,
                grid_counts=recorded.get(named.get("grid", "")),
                grid_maker=makers.get(named.get("grid", "")),
            )


def merge(sources: Sequence[str | os.PathLike[str]], target: str | os.PathLike[str]) -> int:
    """Merge the result files of shard runs into ``target`` (an asv results dir).

    Shards cover disjoint parameter combinations, so for each (machine, file) the merged
    entry takes, per combination, the value of the shard that has one. The merged file is
    dated by its newest shard: the gate reads a runner directory's ledger up to its asv file's
    date, and dated by an earlier shard the cases measured after it would be left out. Returns
    the number of files written. Files already in ``target`` are merged into, never silently
    replaced.
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
                    write_atomic(destination, path.read_text(encoding="utf-8"))
        bench = root / "benchmarks.json"
        if bench.exists() and not (target_dir / "benchmarks.json").exists():
            write_atomic(target_dir / "benchmarks.json", bench.read_text(encoding="utf-8"))
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
        base._date = max(result.date for result in loaded)
        base.save(str(target_dir))
        written += 1
    return written


def discover_benchmarks(benchmark_dir: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """The benchmark descriptions asv would put into ``benchmarks.json`` (imports the suite).

    Uses asv_runner's own discovery so names, params and code versions match ``asv run``.
    """
    import io

    from asv_runner import discovery

    buffer = io.StringIO()
    discovery.list_benchmarks(str(pathlib.Path(benchmark_dir).resolve()), buffer)
    return json.loads(buffer.getvalue())


def program_benchmarks(
    benchmark_dir: str | os.PathLike[str],
    *,
    cases: Sequence[str],
    backends: Sequence[str],
    grids: Sequence[str],
) -> list[dict[str, Any]]:
    """The suite's benchmark descriptions with the program suite's parameters given here.

    asv's suite takes its parameter space from the environment it is imported in; a runner
    writing a result directory knows its own (cases, backends, grids) and states them, so
    what the directory holds does not depend on which ``ICONBENCH_*`` variables are set.
    Parameters are stored as asv stores them, as ``repr`` strings.
    """
    params = [[repr(value) for value in values] for values in (cases, backends, grids)]
    described = discover_benchmarks(benchmark_dir)
    return [
        {**bench, "params": params} if bench["name"].startswith(SUITE + ".") else bench
        for bench in described
    ]


#: What a runner's ``machine.json`` says of a machine without a GPU (iconbench's writer: "none").
NO_GPU = ("", "none")


def machine_name(description: Mapping[str, Any]) -> str:
    """The name a runner goes by in the history: its GPU model's, else asv's machine name.

    A GPU host's numbers are its GPU's, so two hosts of one model are one machine to compare
    night with night, and two models are two even where the hosts share a name (asv's
    machine name is the host name, ``vm`` on many cloud GPU hosts). The model's name is its
    first word of letters and digits (``H100`` of ``NVIDIA H100 80GB HBM3``), lower-case; a
    model without one keeps its whole name.

    >>> [machine_name({"machine": "vm", "gpu": gpu}) for gpu in ("NVIDIA H100 80GB HBM3",
    ...  "NVIDIA H200", "NVIDIA GH200 480GB", "NVIDIA A100-SXM4-80GB", "Tesla V100-SXM2-16GB",
    ...  "NVIDIA GeForce RTX 4090")]
    ['h100', 'h200', 'gh200', 'a100', 'v100', 'nvidia-geforce-rtx-4090']
    >>> machine_name({"machine": "balfrin-cn12", "cpu": "128 cores", "gpu": "none"})
    'balfrin-cn12'
    """
    gpu = str(description.get("gpu") or "").strip()
    if gpu.lower() in NO_GPU:
        return str(description.get("machine") or "")
    words = re.split(r"[\s_-]+", gpu)
    model = next((w for w in words if re.search("[A-Za-z]", w) and re.search("[0-9]", w)), "")
    return (model or re.sub(r"[^a-z0-9]+", "-", gpu.lower()).strip("-")).lower()


def machine_of(results_dir: str | os.PathLike[str]) -> str | None:
    """:func:`machine_name` of the machine of an asv results directory (its ``machine.json``).

    ``None`` where the directory has no ``machine.json``; no directory, or several machines of
    different names, are one error line (a result set is measured on one machine).
    """
    root = pathlib.Path(results_dir)
    if not root.is_dir():
        raise IconbenchError(
            f"{root}: no asv results directory there; give a result set's asv/ (e.g. "
            "results/merged/asv)"
        )
    names: dict[str, pathlib.Path] = {}
    for path in sorted(root.glob("*/machine.json")):
        data = decode.load_json(path, hint=HINT)
        if not isinstance(data, dict):
            raise decode.fail(path, f"expected an object, got {describe(data)}", HINT)
        Fields(str(path), data, hint=HINT).text("machine")
        names.setdefault(machine_name(data), path)
    if len(names) > 1:
        listed = ", ".join(f"{name} in {path.parent.name}/" for name, path in names.items())
        raise IconbenchError(
            f"{root}: results of {len(names)} machines ({listed}); give the machine's name "
            "(--machine) or one machine's results"
        )
    return next(iter(names), None)


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
    grids: dict[str, GridCounts] | None = None,
    makers: dict[str, str] | None = None,
) -> pathlib.Path:
    """Write one asv result file (plus ``benchmarks.json`` and ``machine.json`` if missing).

    ``values[kind][(case, backend, grid)] = (value, samples)`` with ``kind`` the method name
    (``time_device``…). Combinations without a value are stored as ``None`` (failed/skipped),
    exactly as ``asv run`` does. Refuses to overwrite an existing result file. ``grids``: the
    counts of each grid measured (default: of the presets named in ``values``), stored in the
    file's params under :data:`GRID_COUNTS_PARAM`; ``makers`` what made each (default: the
    presets' makers), under :data:`GRID_MAKERS_PARAM`.
    """
    if grids is None or makers is None:  # the presets named in ``values``: their counts, makers
        presets = {}
        for name in {key[2] for by_key in values.values() for key in by_key}:
            try:
                presets[name] = spec_for(name, None, None)
            except IconbenchError:
                continue
        if grids is None:
            grids = {name: spec.counts for name, spec in presets.items()}
        if makers is None:
            makers = {name: spec.maker for name, spec in presets.items() if spec.maker}
    from asv import results as asv_results
    from asv import runner as asv_runner

    root = pathlib.Path(results_dir)
    by_name = {b["name"]: b for b in benchmarks}
    bench_json = root / "benchmarks.json"
    if not bench_json.exists():
        write_atomic(bench_json, json.dumps({**by_name, "version": 2}, indent=4, sort_keys=True))
    machine_json = root / machine["machine"] / "machine.json"
    if not machine_json.exists():
        write_atomic(machine_json, json.dumps({**machine, "version": 1}, indent=4))
    params = {**machine, "python": python}
    if grids:
        params[GRID_COUNTS_PARAM] = format_grid_counts(grids)
    if makers:
        params[GRID_MAKERS_PARAM] = format_grid_makers(makers)
    from iconbench.programs.backend_variants import variants

    measured = sorted({key[1] for by_key in values.values() for key in by_key} & set(variants()))
    if measured:  # the DaCe variants' options (backends.toml), as they were when measured
        params[BACKEND_OPTIONS_PARAM] = "; ".join(
            f"{name}: {variants()[name].describe()}" for name in measured
        )
    result = asv_results.Results(
        params,
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
