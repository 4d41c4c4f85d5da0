"""Explain the flagged GPU benchmarks of a gate summary: kernels and code, per side.

Only what the gate flagged is profiled, after the verdict: a regression or improvement of a
gated time (device time first, then host overhead) on a GPU backend, one per (case,
backend), the largest changes first, at most ``limit``. Each side runs in its own
environment (:meth:`iconbench.stacks.sides.Side.environment`): its commit's sources first on
the path, its build cache, its runner directory. The pull-request check calls
:func:`explain` with its two sides after its gate phase; ``iconbench explain`` builds the
sides from two runner directories.
"""

from __future__ import annotations

import dataclasses
import math
import pathlib
import re
import shutil
import subprocess
from collections.abc import Iterable

from iconbench.errors import IconbenchError
from iconbench.explain import codediff, profile, shapes, sources
from iconbench.files.atomic import write_atomic
from iconbench.gate import kernels
from iconbench.grids.grid import Grid, resolve
from iconbench.programs.backends import on_gpu
from iconbench.records.summary import BenchmarkResult, CodeDiff, Summary, Why
from iconbench.runner.progress import log
from iconbench.stacks.sides import Side
from iconbench.timing import nsight

#: Gated times a GPU benchmark is explained for, in this order of preference.
METRICS = ("device_time", "host_overhead")
#: Benchmarks explained per run (each costs a profile and a code lookup on both sides).
MAX_BENCHMARKS = 5
FLAGGED = ("regression", "improvement")


def flagged(summary: Summary, limit: int = MAX_BENCHMARKS) -> list[BenchmarkResult]:
    """The benchmarks to explain: one per flagged (case, backend) on a GPU, largest first."""
    chosen: dict[tuple[str, str], BenchmarkResult] = {}
    for bench in summary.benchmarks:
        if bench.verdict not in FLAGGED or bench.metric not in METRICS or bench.ratio is None:
            continue
        if not on_gpu(bench.backend):
            continue
        known = chosen.get(bench.job)
        if known is None or METRICS.index(bench.metric) < METRICS.index(known.metric):
            chosen[bench.job] = bench
    ordered = sorted(
        chosen.values(),
        key=lambda b: (METRICS.index(b.metric), -abs(math.log(b.ratio or 1.0)), b.id),
    )
    return ordered[:limit]


def explained(whys: Iterable[Why]) -> set[str]:
    """The ids of the benchmarks ``whys`` explain.

    Each entry's, and those of the variants it names as launching the same kernels.

    >>> sorted(explained([Why("a|gtfn_gpu|device_time", "a", "gtfn_gpu",
    ...                       same_kernels=("b|gtfn_gpu|device_time",))]))
    ['a|gtfn_gpu|device_time', 'b|gtfn_gpu|device_time']
    """
    return {i for why in whys for i in (why.id, *why.same_kernels)}


def profiler_version() -> str | None:
    """``ncu --version``'s version (``None``: no ncu on PATH)."""
    if shutil.which(nsight.EXECUTABLE) is None:
        return None
    try:
        done = subprocess.run(
            [nsight.EXECUTABLE, "--version"],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return "unknown version"
    match = re.search(r"Version\s+(\S+)", done.stdout)
    return match.group(1) if match else "unknown version"


def explain(
    summary: Summary,
    base: Side,
    head: Side,
    *,
    work: pathlib.Path,
    grid: Grid | None = None,
    limit: int = MAX_BENCHMARKS,
    calls: int = profile.CALLS,
    timeout_s: float = 900.0,
    keep: bool = False,
) -> Summary:
    """``summary`` with a :class:`Why` for each flagged GPU benchmark (``why`` key).

    ``work`` keeps what was run (ncu's CSV and output, code written again) per benchmark.
    Nothing here fails the run: a part that cannot be had is a note of its entry. ``grid``
    is the one the sides ran on (default: the preset the summary names). ``keep``: the
    benchmarks ``summary`` explains already (a check's, explained while its builds compiled,
    :mod:`iconbench.check.early_why`) are not explained again, and count towards ``limit``.
    """
    chosen = flagged(summary, len(summary.benchmarks))
    if keep:
        known = explained(summary.why)
        chosen = [bench for bench in chosen if bench.id not in known]
        limit = max(0, limit - len(summary.why))
    if not chosen or not limit:
        return summary
    grid = grid or resolve(summary.grid_name)
    builds = _Builds(base, head, grid, work, timeout_s)
    version = profiler_version()
    profiler = "" if version is None else f"Nsight Compute {version}, {calls} calls per side"
    found = []
    for bench, alike in together(chosen, builds)[:limit]:
        case = bench.id.split("|")[0]
        folder = _folder(work, case, bench.backend)
        notes: list[str] = []
        kernel_diff = None
        if version is None:
            notes.append(
                f"Nsight Compute ({nsight.EXECUTABLE}) is not on PATH: no kernel profile; "
                "install it on the runner"
            )
        else:
            try:
                records = profile.profile_sides(
                    (base, head), case, bench.backend, grid, work=folder, calls=calls,
                    timeout_s=timeout_s,
                )  # fmt: skip
                kernel_diff = kernels.diff(bench.id, records[0], records[1])
            except IconbenchError as error:
                notes.append(str(error))
            except Exception as error:  # the verdict stands without it (a new ncu's output)
                notes.append(f"the kernel profile could not be read ({_named(error)}); {folder}")
        code = None
        try:
            code = _code(bench, builds)
        except IconbenchError as error:
            notes.append(str(error))
        except Exception as error:  # the verdict stands without it
            notes.append(f"the generated code could not be compared ({_named(error)})")
        same = tuple(b.id for b in alike)
        why = Why(bench.id, bench.program, bench.backend, kernel_diff, code, profiler,
                  tuple(notes), same_kernels=same)  # fmt: skip
        log(f"explain: {bench.id}: " + _said(why))
        found.append(why)
    done = {w.id for w in found}
    return dataclasses.replace(summary, why=(*(w for w in summary.why if w.id not in done), *found))


def _folder(work: pathlib.Path, case: str, backend: str) -> pathlib.Path:
    """The work folder of one benchmark's explanation."""
    return work / re.sub(r"[^A-Za-z0-9_.=-]+", "_", f"{case}-{backend}")


@dataclasses.dataclass
class _Builds:
    """Each side's generated code of a benchmark, read from its build (or written again) once."""

    base: Side
    head: Side
    grid: Grid
    work: pathlib.Path
    timeout_s: float
    found: dict[tuple[str, str, str], sources.Sources | IconbenchError] = dataclasses.field(
        default_factory=dict
    )

    def of(self, side: Side, case: str, backend: str) -> sources.Sources:
        """``side``'s code of ``case`` on ``backend``; one line when it cannot be had."""
        key = (side.name, case, backend)
        if key not in self.found:
            try:
                self.found[key] = sources.of_side(side, case, backend, self.grid,
                                                  work=_folder(self.work, case, backend),
                                                  timeout_s=self.timeout_s)  # fmt: skip
            except IconbenchError as error:
                self.found[key] = error
        found = self.found[key]
        if isinstance(found, IconbenchError):
            raise found
        return found


def together(
    chosen: list[BenchmarkResult], builds: _Builds
) -> list[tuple[BenchmarkResult, list[BenchmarkResult]]]:
    """The benchmarks to profile, each with the flagged variants that launch its kernels.

    Variants of one program flagged on one backend and metric whose generated code has the
    same kernel shape on both sides (:mod:`iconbench.explain.shapes`) are profiled once: the
    largest change of them, the others listed beside it. A variant whose code cannot be read
    is profiled on its own. The order is ``chosen``'s (largest change first).
    """
    by_program: dict[tuple[str, str, str], list[BenchmarkResult]] = {}
    for bench in chosen:
        by_program.setdefault((bench.program, bench.backend, bench.metric), []).append(bench)
    found = []
    for benches in by_program.values():
        alike: dict[object, list[BenchmarkResult]] = {}
        for bench in benches:
            shape = _shape(bench, builds) if len(benches) > 1 else None
            alike.setdefault(shape if shape is not None else bench.id, []).append(bench)
        found += [(group[0], group[1:]) for group in alike.values()]
        if len(benches) > 1:
            first = benches[0]
            log(f"explain: {len(benches)} variants of {first.program} flagged on {first.backend}: "
                f"{len(alike)} kernel shape(s), profiled once each")  # fmt: skip
    order = {bench.id: index for index, bench in enumerate(chosen)}
    return sorted(found, key=lambda item: order[item[0].id])


def _shape(bench: BenchmarkResult, builds: _Builds) -> tuple[object, ...] | None:
    """The kernel shapes of ``bench``'s code on both sides (``None``: not known)."""
    case = bench.id.split("|")[0]
    prints = [n.fingerprint if n else None for n in (bench.base, bench.head)]
    sides = (builds.head,) if prints[0] is not None and prints[0] == prints[1] else (
        builds.base, builds.head)  # fmt: skip
    try:
        found = [shapes.of(builds.of(side, case, bench.backend)) for side in sides]
    except IconbenchError:
        return None
    if None in found:
        return None
    return (bench.program, bench.backend, bench.metric, *found)


def _code(bench: BenchmarkResult, builds: _Builds) -> CodeDiff:
    """The generated-code diff of ``bench`` (nothing read where the fingerprints are equal).

    The whole diff goes to the benchmark's work folder (``code.diff``); the summary keeps
    its excerpt.
    """
    prints = [n.fingerprint if n else None for n in (bench.base, bench.head)]
    if prints[0] is not None and prints[0] == prints[1]:
        return CodeDiff(prints[0], prints[1], (), "", 0, 0, "codegen fingerprint")
    case = bench.id.split("|")[0]
    found = [builds.of(side, case, bench.backend) for side in (builds.base, builds.head)]
    whole = _folder(builds.work, case, bench.backend) / "code.diff"
    write_atomic(whole, codediff.full(found[0], found[1]))
    return dataclasses.replace(codediff.diff(found[0], found[1]), full_diff=str(whole))


def _named(error: Exception) -> str:
    """``ValueError: could not convert …``, on one line and short."""
    return f"{type(error).__name__}: {str(error).splitlines()[0][:200] if str(error) else ''}"


def _said(why: Why) -> str:
    """One log line: what the entry holds."""
    parts = []
    if why.kernels is not None:
        parts.append(f"{len(why.kernels.changes)} kernels")
    if why.code is not None:
        parts.append(
            "code identical" if why.code.identical else f"{why.code.changed_lines} lines of code"
        )
    if why.same_kernels:
        parts.append(f"the same kernels as {len(why.same_kernels)} more flagged variant(s)")
    return ", ".join(parts + list(why.notes)) or "nothing found"
