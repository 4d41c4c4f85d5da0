"""Each backend computes what the embedded backend computes, before any time is reported.

For every program and static variant, the same inputs (fixed seed, :mod:`iconbench.programs.
inputs`) are run on the backend under test and on a reference, and every output is compared
with a dtype-appropriate tolerance. The reference is the embedded backend (plain Python, the
definition of the program's meaning); where embedded cannot run a program (gt4py 1.2's
embedded ``concat_where`` limits, the same programs upstream marks ``uses_concat_where``) the
reference is ``gtfn_cpu``, then ``dace_cpu``, and the table says so. Outputs that are not also
inputs start as NaN, so an element a backend forgets to write is a mismatch, not a pass.

A program that cannot run on a backend is a row with ``status = error`` and the error, never a
silent skip.
"""

from __future__ import annotations

import dataclasses
import datetime
import functools
import json
import os
import pathlib
import time
import traceback
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

from iconbench.errors import IconbenchError
from iconbench.timing.sharding import parse_shard

#: (rtol, atol) per dtype: float64 allows reassociated sums over neighbours and levels.
TOLERANCES: dict[str, tuple[float, float]] = {
    "float64": (1e-9, 1e-12),
    "float32": (1e-4, 1e-6),
}

#: Errors by which the embedded backend says it cannot run a program (not a wrong result).
EMBEDDED_LIMITATIONS: tuple[tuple[str, str], ...] = (
    ("NotImplementedError", "concat_where"),
    ("ValueError", "open 'UnitRange'"),
)

#: References in order of preference.
REFERENCES: tuple[str, ...] = ("embedded", "gtfn_cpu", "dace_cpu")

STATUSES: tuple[str, ...] = ("pass", "fail", "error", "no-reference")


@dataclasses.dataclass
class CaseResult:
    """The verdict for one case on one backend."""

    case: str
    backend: str
    reference: str
    status: str
    #: Largest ``|actual - expected| / (atol + rtol * |expected|)`` over all outputs (<= 1 passes).
    worst_ratio: float | None = None
    worst_output: str | None = None
    detail: str = ""
    reference_note: str = ""
    seconds: float = 0.0


def is_embedded_limitation(error: BaseException) -> bool:
    """Whether ``error`` is embedded gt4py declining a program (not a wrong program).

    >>> is_embedded_limitation(ValueError("Cannot compute length of open 'UnitRange'."))
    True
    >>> is_embedded_limitation(ValueError("x"))
    False
    """
    text = str(error)
    return any(type(error).__name__ == kind and part in text for kind, part in EMBEDDED_LIMITATIONS)


def one_line(error: BaseException) -> str:
    """The last line of an exception, shortened for a table cell."""
    lines = "".join(traceback.format_exception_only(error)).strip().splitlines()
    text = lines[-1]
    if len(lines) > 1 and lines[0] != text:
        text = f"{lines[0]} ... {text}"  # e.g. DaCe: the reason first, the file last
    if text == type(error).__name__ and error.__traceback__ is not None:
        frame = traceback.extract_tb(error.__traceback__)[-1]
        text += f" at {pathlib.Path(frame.filename).name}:{frame.lineno}"
    return text[:300]


def host(array: Any) -> np.ndarray:
    """A numpy copy of a numpy or cupy array."""
    if hasattr(array, "get"):
        return array.get()
    return np.array(array, copy=True)


def run_case(
    spec: Any, variant: Any, generated_grid: Any, backend: str, *, seed: int = 0
) -> dict[str, np.ndarray]:
    """Run one case on ``backend``; host copies of its outputs (NaN where not written)."""
    from iconbench.programs import backends, inputs

    call = inputs.build(
        spec, variant, generated_grid, backend=backend, seed=seed, poison_outputs=True
    )
    # icon4py's per-program backend options (model_options.customize_backend), as in ICON.
    program = spec.program.with_backend(backends.resolve(backend, spec.program))
    resolved = backends.backend(backend)
    if not resolved.is_embedded:
        # As icon4py's setup_program and the asv suite: static arguments compiled in, so the
        # verified code is the benchmarked code (and comes from the same cache entry).
        program.compile(
            offset_provider=call.offset_provider, **{k: [v] for k, v in call.static_args.items()}
        )
    call(program)
    if resolved.on_gpu:
        import cupy

        cupy.cuda.runtime.deviceSynchronize()
    return {name: host(call.kwargs[name].ndarray) for name in call.outputs}


def compare(
    expected: dict[str, np.ndarray], actual: dict[str, np.ndarray]
) -> tuple[bool, float, str | None, str]:
    """(all close, worst ratio, worst output, detail) of ``actual`` against ``expected``.

    >>> a = {"x": np.array([1.0, np.nan])}
    >>> compare(a, {"x": np.array([1.0 + 1e-13, np.nan])})[0]
    True
    >>> ok, ratio, name, detail = compare(a, {"x": np.array([1.1, np.nan])})
    >>> ok, name, detail
    (False, 'x', 'x: 1 of 2 differ')
    """
    worst, worst_name, details = 0.0, None, []
    for name, want in expected.items():
        got = actual[name]
        if want.shape != got.shape:
            details.append(f"{name}: shape {got.shape} != {want.shape}")
            worst, worst_name = float("inf"), name
            continue
        if want.dtype.kind in "biu":
            bad = int(np.count_nonzero(want != got))
            ratio = float("inf") if bad else 0.0
        else:
            rtol, atol = TOLERANCES.get(want.dtype.name, TOLERANCES["float64"])
            both_nan = np.isnan(want) & np.isnan(got)
            with np.errstate(invalid="ignore"):
                scaled = np.abs(got - want) / (atol + rtol * np.abs(want))
            scaled = np.where(both_nan, 0.0, np.nan_to_num(scaled, nan=np.inf))
            ratio = float(scaled.max()) if scaled.size else 0.0
            bad = int(np.count_nonzero(scaled > 1.0))
        if bad:
            details.append(f"{name}: {bad} of {want.size} differ")
        if ratio > worst or worst_name is None:
            worst, worst_name = ratio, name
    return not details, worst, worst_name, "; ".join(details)


def written_problems(spec: Any, call: Any) -> list[str]:
    """Outputs not finite, or not written, in the domain their program writes (empty: fine).

    ``call`` must come from ``build(..., poison_outputs=True)`` and have been run: outputs
    that are not read start as NaN, so a non-finite element in the domain is either not
    written or computed as NaN/Inf. An in-out output may pass through unchanged (a static
    variant that switches its update off, a clipping nowhere needed), but some output of the
    call must change.
    """
    from iconbench.programs import inputs

    problems = []
    arguments = call.arguments()
    changed_any, domain_cells = False, 0
    for name in call.outputs:
        array = host(call.kwargs[name].ndarray)
        initial = call._initial.get(name)
        for domain in spec.output_domains.get(name, ((),)):
            region = inputs.written_region(domain, spec.param[name].dims, arguments)
            if region is None:
                continue
            part = array[region]
            domain_cells += part.size
            if part.size == 0:
                continue
            if part.dtype.kind == "f" and not np.all(np.isfinite(part)):
                count = int(np.count_nonzero(~np.isfinite(part)))
                problems.append(f"{name}: {count} of {part.size} not finite in {region}")
            updated_in_place = name in call.in_out and initial is not None
            changed_any = changed_any or not (
                updated_in_place
                and np.array_equal(part, host(initial)[region], equal_nan=part.dtype.kind == "f")
            )
    if domain_cells and not changed_any:
        problems.append("no output changed in its domain")
    return problems


def reference_outputs(
    spec: Any, variant: Any, host_grid: Any, backend: str, *, seed: int = 0
) -> tuple[str, dict[str, np.ndarray] | None, str]:
    """(reference name, its outputs or None, note) for a case verified on ``backend``."""
    notes = []
    for reference in REFERENCES:
        if reference == backend:
            continue
        try:
            outputs = run_case(spec, variant, host_grid, reference, seed=seed)
        except Exception as error:
            kind = "limitation" if is_embedded_limitation(error) else "error"
            notes.append(f"{reference} cannot run it ({kind}): {one_line(error)}")
            continue
        return reference, outputs, "; ".join(notes)
    return "none", None, "; ".join(notes)


def verify_case(
    spec: Any,
    variant: Any,
    backend: str,
    *,
    host_grid: Any,
    device_grid: Any | None = None,
    seed: int = 0,
) -> CaseResult:
    """Verify one case on ``backend`` (``device_grid``: the grid with the backend's allocator)."""
    case = spec.case_id(variant)
    start = time.perf_counter()
    reference, expected, note = reference_outputs(spec, variant, host_grid, backend, seed=seed)
    if expected is None:
        return CaseResult(case, backend, reference, "no-reference", detail=note)
    try:
        actual = run_case(spec, variant, device_grid or host_grid, backend, seed=seed)
    except Exception as error:
        return CaseResult(
            case,
            backend,
            reference,
            "error",
            detail=one_line(error),
            reference_note=note,
            seconds=time.perf_counter() - start,
        )
    ok, ratio, worst, detail = compare(expected, actual)
    if not any(np.isfinite(a).any() for a in expected.values() if a.dtype.kind == "f"):
        detail = "; ".join(filter(None, [detail, "empty domain on this grid: nothing written"]))
    return CaseResult(
        case,
        backend,
        reference,
        "pass" if ok else "fail",
        worst_ratio=ratio,
        worst_output=worst,
        detail=detail,
        reference_note=note,
        seconds=time.perf_counter() - start,
    )


@dataclasses.dataclass
class Report:
    """A verification table: results plus what was run where."""

    grid: str
    backends: list[str]
    results: list[CaseResult]
    provenance: dict[str, Any]
    programs: int
    created: str = dataclasses.field(
        default_factory=lambda: datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
    )
    #: ``(i, n)`` when this table is the i-th of n shares of the cases (``verify --shard``).
    shard: tuple[int, int] | None = None
    #: What was selected before sharding (``--programs``, ``--one-variant``, ``--seed``): the
    #: shards of one verification share it.
    selection: dict[str, Any] = dataclasses.field(default_factory=dict)

    @classmethod
    def read(cls, path: pathlib.Path) -> Report:
        """The table ``path`` (the ``.json`` that :meth:`write` wrote); one clear line if not."""
        path = pathlib.Path(path)
        try:
            data = json.loads(path.read_text())
            shard = data.get("shard")
            return cls(
                grid=data["grid"],
                backends=list(data["backends"]),
                results=[CaseResult(**r) for r in data["results"]],
                provenance=dict(data["provenance"]),
                programs=int(data["programs"]),
                created=data["created"],
                shard=None if shard is None else parse_shard(shard),
                selection=dict(data.get("selection", {})),
            )
        except FileNotFoundError:
            raise IconbenchError(
                f"{path}: no such verification table; give the PATH.json that "
                "'iconbench verify --out PATH' wrote"
            ) from None
        except (ValueError, KeyError, TypeError, AttributeError, IconbenchError) as error:
            raise IconbenchError(
                f"{path}: not a verification table of 'iconbench verify --out' ({error!r}); "
                "verify that shard again"
            ) from None

    def counts(self) -> dict[str, dict[str, int]]:
        """Per backend: cases, and each status's count."""
        table: dict[str, dict[str, int]] = {}
        for result in self.results:
            row = table.setdefault(result.backend, {"cases": 0, **dict.fromkeys(STATUSES, 0)})
            row["cases"] += 1
            row[result.status] += 1
        return table

    @property
    def ok(self) -> bool:
        return all(r.status == "pass" for r in self.results)

    def to_json(self) -> str:
        return json.dumps(
            {
                "grid": self.grid,
                "backends": self.backends,
                "created": self.created,
                "programs": self.programs,
                "shard": None if self.shard is None else "/".join(map(str, self.shard)),
                "selection": self.selection,
                "counts": self.counts(),
                "provenance": self.provenance,
                "results": [dataclasses.asdict(r) for r in self.results],
            },
            indent=1,
            default=str,
        )

    def to_markdown(self) -> str:
        lines = [
            f"# Verification on grid `{self.grid}` ({self.created})",
            "",
            f"Programs: {self.programs}; cases (program x static variant): "
            f"{len({r.case for r in self.results})}"
            + ("." if self.shard is None else f" (shard {self.shard[0]}/{self.shard[1]})."),
            "",
            "| backend | cases | pass | fail | error | no-reference |",
            "| --- | ---: | ---: | ---: | ---: | ---: |",
        ]
        for backend, row in self.counts().items():
            lines.append(
                f"| {backend} | {row['cases']} | {row['pass']} | {row['fail']} | "
                f"{row['error']} | {row['no-reference']} |"
            )
        lines += ["", "## Stack", ""]
        for key, value in self.provenance.items():
            lines.append(f"- {key}: {value}")
        not_embedded = sorted({r.case for r in self.results if r.reference != "embedded"})
        if not_embedded:
            lines += [
                "",
                "## Cases verified against a compiled reference (embedded cannot run them)",
                "",
            ]
            lines += [f"- `{c}`" for c in not_embedded]
        lines += [
            "",
            "## Results",
            "",
            "| case | backend | reference | status | worst err/tol | detail |",
            "| --- | --- | --- | --- | ---: | --- |",
        ]
        for r in self.results:
            ratio = "" if r.worst_ratio is None else f"{r.worst_ratio:.2g}"
            detail = (r.detail or "").replace("|", "\\|")
            lines.append(
                f"| `{r.case}` | {r.backend} | {r.reference} | {r.status} | {ratio} | {detail} |"
            )
        return "\n".join(lines) + "\n"

    @staticmethod
    def paths(path: pathlib.Path) -> tuple[pathlib.Path, pathlib.Path]:
        """The markdown and JSON files :meth:`write` writes for ``path``.

        >>> [p.name for p in Report.paths(pathlib.Path("docs/dace_cpu-2.0.0a6.md"))]
        ['dace_cpu-2.0.0a6.md', 'dace_cpu-2.0.0a6.json']
        """
        path = pathlib.Path(path)
        stem = path.with_suffix("") if path.suffix in (".md", ".json") else path
        return stem.with_name(stem.name + ".md"), stem.with_name(stem.name + ".json")

    def write(self, path: pathlib.Path) -> tuple[pathlib.Path, pathlib.Path]:
        """Write ``path`` (markdown) and ``path`` with ``.json`` beside it, atomically.

        Only a ``.md`` or ``.json`` ending is replaced: a name with other dots (a version,
        ``dace-2.0.0a6``) keeps them.
        """
        markdown, data = self.paths(path)
        for target, text in ((markdown, self.to_markdown()), (data, self.to_json())):
            target.parent.mkdir(parents=True, exist_ok=True)
            temporary = target.with_name(f".{target.name}.{os.getpid()}.tmp")
            temporary.write_text(text)
            os.replace(temporary, target)
        return markdown, data


def merge(reports: Sequence[Report]) -> Report:
    """One table from the tables of shards 1/n ... n/n of one verification.

    The shards must be of one grid, backends and stack (provenance), and each share must be
    there once: a table that silently lacks a shard would read as full coverage. Results are
    ordered as one run orders them: by backend, then by case in the catalog's order.
    """
    if not reports:
        raise IconbenchError("merge: give the verification table of every shard")
    first = reports[0]
    for report in reports[1:]:
        for what in ("grid", "backends", "selection"):
            if getattr(report, what) != getattr(first, what):
                raise IconbenchError(
                    f"the shards differ in {what} ({getattr(first, what)!r} and "
                    f"{getattr(report, what)!r}): merge the shards of one verification"
                )
        keys = first.provenance.keys() | report.provenance.keys()
        differ = sorted(k for k in keys if first.provenance.get(k) != report.provenance.get(k))
        if differ:
            key = differ[0]
            raise IconbenchError(
                f"the shards ran on different stacks or machines ({key}: "
                f"{first.provenance.get(key)!r} and {report.provenance.get(key)!r}): "
                "verify every shard on one stack and machine type"
            )
    counts = {report.shard[1] if report.shard else None for report in reports}
    if None in counts or len(counts) != 1:
        raise IconbenchError(
            "merge takes the tables of 'iconbench verify --shard I/N' with one N; "
            f"these have shards {[r.shard for r in reports]}"
        )
    (count,) = counts
    given = sorted(report.shard[0] for report in reports if report.shard)
    if given != list(range(1, count + 1)):
        missing = sorted(set(range(1, count + 1)) - set(given))
        twice = sorted({i for i in given if given.count(i) > 1})
        raise IconbenchError(
            f"shards of {count}: "
            + (f"missing {', '.join(f'{i}/{count}' for i in missing)}" if missing else "")
            + ("; " if missing and twice else "")
            + (f"given twice {', '.join(f'{i}/{count}' for i in twice)}" if twice else "")
            + "; give each shard's table once"
        )
    from iconbench.programs.catalog import split_case

    results = [r for report in reports for r in report.results]
    order = _case_order({r.case for r in results})
    results.sort(key=lambda r: (first.backends.index(r.backend), order(r.case)))
    return Report(
        first.grid,
        list(first.backends),
        results,
        first.provenance,
        programs=len({split_case(r.case)[0] for r in results}),
        created=max(report.created for report in reports),
        selection=first.selection,
    )


def _case_order(cases: set[str]) -> Callable[[str], tuple[int, str]]:
    """Sort key of a case: its place in the installed case index, else its id."""
    from iconbench.programs import caseindex

    known = caseindex.case_ids() or []
    place = {case: number for number, case in enumerate(known)}
    if not cases <= place.keys():
        place = {}
    return lambda case: (place.get(case, 0), case)


def select(
    pattern: str | None,
    *,
    one_variant: bool = False,
    shard: tuple[int, int] | None = None,
) -> list[tuple[Any, Any]]:
    """(spec, variant) of every case whose id matches ``pattern`` (regex search).

    ``one_variant``: only each program's first variant (every program once, fewer compiles).
    ``shard`` ``(i, n)``: the i-th of n shares, dealt as ``iconbench run --shard`` deals them
    (round-robin over sorted case ids), so n runners verify a table :func:`merge` joins.
    """
    from iconbench.programs import catalog
    from iconbench.suite import matches
    from iconbench.timing.sharding import select_shard

    specs = catalog.discover()
    chosen = [
        (spec, variant)
        for spec in specs
        for variant in (spec.variants[:1] if one_variant else spec.variants)
        if not pattern or matches(pattern, spec.case_id(variant))
    ]
    if not chosen:
        raise IconbenchError(
            f"no program matches {pattern!r}; run 'iconbench programs' to list them"
        )
    if shard is not None:
        share = set(select_shard([spec.case_id(v) for spec, v in chosen], shard))
        chosen = [(spec, v) for spec, v in chosen if spec.case_id(v) in share]
    return chosen


def stack_provenance() -> dict[str, Any]:
    """GPU, driver and package versions for the table (``iconbench.provenance.collect``)."""
    from iconbench import provenance

    info = provenance.collect()
    stack: dict[str, Any] = {"python": info.python, "platform": info.platform}
    stack.update(info.packages)
    if info.gpu is not None:
        stack["gpu"] = f"{info.gpu.name} ({info.gpu.memory_gib} GiB)"
        stack["cuda runtime / driver"] = f"{info.gpu.cuda_runtime} / {info.gpu.cuda_driver}"
        stack["nvidia driver"] = provenance.nvidia_driver_version() or "unknown"
    else:
        stack["gpu"] = "none"
    return stack


def verify(
    backends_: Sequence[str],
    grid: str,
    *,
    pattern: str | None = None,
    seed: int = 0,
    progress: Callable[[int, int, CaseResult], None] | None = None,
    one_variant: bool = False,
    shard: tuple[int, int] | None = None,
    processes: int = 1,
) -> Report:
    """Verify every case matching ``pattern`` on each backend of ``backends_`` on ``grid``.

    ``processes`` > 1 verifies the cases in a ``spawn`` pool of that many workers. Loading a
    compiled program from the cache costs seconds on DaCe (638 s for the 112 first variants
    on dace_gpu on the H100, references included, against 54 s on gtfn_gpu), so a serial
    loop after a parallel precompile spent most of its time there. The table is in case
    order either way.
    """
    from iconbench.programs import backends

    for name in backends_:
        usable, why = backends.available(name)
        if not usable:
            raise IconbenchError(f"backend {name!r} cannot run here: {why}")
    scope = Scope(grid, pattern, one_variant, seed, shard)
    cases = scope.cases()
    jobs = [(name, index) for name in backends_ for index in range(len(cases))]
    if processes > 1:
        results = _verify_in_pool(scope, jobs, processes=processes, progress=progress)
    else:
        results = []
        for name, index in jobs:
            results.append(_verify_job(scope, name, index))
            if progress:
                progress(len(results), len(jobs), results[-1])
    return Report(
        grid,
        list(backends_),
        results,
        stack_provenance(),
        programs=len({spec.name for spec, _ in cases}),
        shard=shard,
        selection={"programs": pattern, "one_variant": one_variant, "seed": seed},
    )


@dataclasses.dataclass(frozen=True)
class Scope:
    """What one verification covers: the cases matching ``pattern``, on ``grid``, from ``seed``.

    Small and picklable, so a pool worker gets the scope and an index, not gt4py programs.
    """

    grid: str
    pattern: str | None = None
    one_variant: bool = False
    seed: int = 0
    shard: tuple[int, int] | None = None

    def cases(self) -> list[tuple[Any, Any]]:
        """:func:`select` of this scope, once per process."""
        return _cases(self.pattern, self.one_variant, self.shard)


@functools.cache
def _cases(
    pattern: str | None, one_variant: bool, shard: tuple[int, int] | None
) -> list[tuple[Any, Any]]:
    return select(pattern, one_variant=one_variant, shard=shard)


def _verify_job(scope: Scope, backend: str, index: int) -> CaseResult:
    """Verify case ``index`` of ``scope`` on ``backend`` (grids built once per process)."""
    from iconbench.suite import generated_grid

    spec, variant = scope.cases()[index]
    return verify_case(
        spec,
        variant,
        backend,
        host_grid=generated_grid(scope.grid),
        device_grid=generated_grid(scope.grid, backend),
        seed=scope.seed,
    )


def _start_worker() -> None:
    """Make a pool worker compile in its own process.

    gt4py's nested pool would cost a pool start per program loaded (``iconbench.buildcache``);
    the cache directory comes from the parent's environment.
    """
    os.environ["GT4PY_BUILD_JOBS"] = "1"
    from iconbench import buildcache
    from iconbench.stacks.identity import stack_key

    buildcache.configure(stack_key(), jobs=1)


def _verify_in_pool(
    scope: Scope,
    jobs: Sequence[tuple[str, int]],
    *,
    processes: int,
    progress: Callable[[int, int, CaseResult], None] | None,
) -> list[CaseResult]:
    """:func:`_verify_job` of every job in a ``spawn`` pool; results in the order of ``jobs``."""
    import concurrent.futures
    import multiprocessing

    context = multiprocessing.get_context("spawn")
    results: list[CaseResult | None] = [None] * len(jobs)
    with concurrent.futures.ProcessPoolExecutor(
        processes, mp_context=context, initializer=_start_worker
    ) as pool:
        futures = {
            pool.submit(_verify_job, scope, name, index): position
            for position, (name, index) in enumerate(jobs)
        }
        for done, future in enumerate(concurrent.futures.as_completed(futures), start=1):
            results[futures[future]] = result = future.result()
            if progress:
                progress(done, len(jobs), result)
    return [result for result in results if result is not None]


def print_progress(number: int, total: int, result: CaseResult) -> None:
    """One line per verified case on stderr."""
    import sys

    print(
        f"[{number:>4}/{total}] {result.backend:<9} {result.status:<12} {result.case}"
        + (f"  ({result.detail[:120]})" if result.status != "pass" and result.detail else ""),
        file=sys.stderr,
        flush=True,
    )


def precompile_jobs(
    pattern: str | None,
    backends_: Sequence[str],
    grid: str,
    *,
    one_variant: bool = False,
    shard: tuple[int, int] | None = None,
) -> list[tuple[str, str]]:
    """(case, backend) pairs to compile before verifying.

    Every case on each compiled backend, plus the compiled reference of the cases embedded
    cannot run (found by running them on embedded, which needs no compilation).
    """
    from iconbench.suite import generated_grid

    cases = select(pattern, one_variant=one_variant, shard=shard)
    jobs = [(spec.case_id(v), b) for b in backends_ if b != "embedded" for spec, v in cases]
    host_grid = generated_grid(grid)
    for spec, variant in cases:
        try:
            run_case(spec, variant, host_grid, "embedded")
        except Exception as error:
            if not is_embedded_limitation(error):
                continue
            for backend in backends_:
                reference = next(r for r in REFERENCES[1:] if r != backend)
                if (spec.case_id(variant), reference) not in jobs:
                    jobs.append((spec.case_id(variant), reference))
    return jobs


def summary_lines(report: Report) -> Iterable[str]:
    """The counts table as plain text lines (for the terminal)."""
    yield f"{'backend':<18} {'cases':>6} {'pass':>6} {'fail':>6} {'error':>6} {'no-ref':>6}"
    for backend, row in report.counts().items():
        yield (
            f"{backend:<18} {row['cases']:>6} {row['pass']:>6} {row['fail']:>6} "
            f"{row['error']:>6} {row['no-reference']:>6}"
        )
