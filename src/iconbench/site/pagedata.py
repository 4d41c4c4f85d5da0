"""Computing what each page shows from the history: plain values, ready for the templates.

The site answers the users' questions in this order: where do we stand against OpenACC
(overview: latest run per device and grid, speed-up per ICON timer sorted by its share of the
OpenACC step, the ``integrate_nh`` estimate against the 1.5x goal, coverage and failures), how
did the estimate move (estimate over time), when did one program get slower and why (a page
per program: device time per backend over commits with the OpenACC time, host overhead,
compile time, bandwidth fraction, codegen changes), and what did the gate decide (verdicts).

Speed-ups come from :func:`iconbench.baselines.speedup.compare` on each run's medians (the
site shows point values; ``iconbench speedup`` gives their bootstrap intervals).
"""

from __future__ import annotations

import dataclasses
import datetime
from collections.abc import Mapping, Sequence
from typing import Any

from iconbench.baselines import format as baseline_format
from iconbench.baselines import gt4py_timings, speedup
from iconbench.baselines.format import Baseline
from iconbench.baselines.mapping import TimerProgramMapping
from iconbench.errors import IconbenchError
from iconbench.history import changepoints
from iconbench.site.history import Measured, Run, Target, slug

#: Backends the overview compares with OpenACC when a run has them (else: all it has).
GPU_BACKENDS = ("gtfn_gpu", "dace_gpu")
STATUSES = ("ok", "compile failed", "run failed", "not measured")


def program_page(program: str) -> str:
    """The file of a program's page, relative to the site root.

    >>> program_page("compute_theta_rho_face_values")
    'programs/compute_theta_rho_face_values.html'
    """
    return f"programs/{slug(program)}.html"


def short(commit: str) -> str:
    """The first 8 hex digits of a commit."""
    return commit[:8]


def day(date_ms: int) -> str:
    """``YYYY-MM-DD HH:MM`` (UTC) of an asv date.

    >>> day(1795449049693)
    '2026-11-23 15:50'
    """
    moment = datetime.datetime.fromtimestamp(date_ms / 1000, datetime.UTC)
    return moment.strftime("%Y-%m-%d %H:%M")


def ordered(runs: Sequence[Run]) -> list[Run]:
    """Runs in history order: by asv date, then commit."""
    return sorted(runs, key=lambda r: (r.date_ms, r.commit, r.id))


def latest_per_target(runs: Sequence[Run]) -> dict[Target, Run]:
    """The newest run of every (device, grid)."""
    latest: dict[Target, Run] = {}
    for run in ordered(runs):
        latest[run.target] = run
    return dict(sorted(latest.items()))


def history_per_target(runs: Sequence[Run]) -> dict[Target, list[Run]]:
    """The runs of every (device, grid), each list in history order; targets sorted."""
    per_target: dict[Target, list[Run]] = {}
    for run in ordered(runs):
        per_target.setdefault(run.target, []).append(run)
    return dict(sorted(per_target.items()))


# --------------------------------------------------------------------------- baselines


@dataclasses.dataclass(frozen=True)
class BaselineChoice:
    """The OpenACC baseline a target is compared with, and why it was chosen."""

    baseline: Baseline | None
    note: str
    forced: bool = False


def _gpu_matches(baseline_gpu: str, device: str) -> bool:
    """``H100`` matches ``NVIDIA H100 80GB HBM3``; ``unknown`` matches nothing.

    >>> _gpu_matches("H100", "NVIDIA H100 80GB HBM3"), _gpu_matches("A100", "NVIDIA H100")
    (True, False)
    """
    ours = baseline_format.slug(baseline_gpu)
    theirs = baseline_format.slug(device)
    return ours != "unknown" and (ours == theirs or ours in theirs.split("-"))


def choose_baseline(
    target: Target, baselines: Sequence[Baseline], chosen: str | None = None
) -> BaselineChoice:
    """The newest baseline of the target's grid, preferring one measured on the same GPU.

    ``chosen`` (a baseline name, ``--baseline``) is used for every target; when its grid or
    GPU differs the comparison is marked forced, as ``iconbench speedup --force`` does.
    """
    if chosen is not None:
        found = [b for b in baselines if b.name == chosen]
        if not found:
            raise IconbenchError(f"baseline {chosen!r} not found in the baselines directory")
        baseline = found[0]
        same = baseline_format.slug(baseline.experiment.grid) == baseline_format.slug(
            target.grid
        ) and _gpu_matches(baseline.machine.gpu, target.device)
        note = "chosen with --baseline" + ("" if same else ": other grid or GPU, not like-for-like")
        return BaselineChoice(baseline, note, forced=not same)
    grid = [
        b
        for b in baselines
        if baseline_format.slug(b.experiment.grid) == baseline_format.slug(target.grid)
    ]
    gpu = [b for b in grid if _gpu_matches(b.machine.gpu, target.device)]
    if gpu:
        best = max(gpu, key=lambda b: b.date)
        return BaselineChoice(best, f"same grid and GPU ({best.machine.gpu})")
    if grid:
        best = max(grid, key=lambda b: b.date)
        return BaselineChoice(
            best,
            f"same grid, OpenACC measured on {best.machine.gpu}: not like-for-like",
            forced=True,
        )
    return BaselineChoice(
        None,
        f"no OpenACC baseline for grid {target.grid!r}; import one with "
        "'iconbench baseline import' (docs/baselines.md)",
    )


def timings_of(run: Run, backends: Sequence[str] | None = None) -> list[gt4py_timings.GT4PyTiming]:
    """The run's device medians as the speed-up code takes them (one value per case)."""
    timings = []
    for m in run.measured:
        if m.device_s is None or (backends and m.backend not in backends):
            continue
        static = gt4py_timings.parse_variant(m.variant)
        timings.append(
            gt4py_timings.GT4PyTiming(
                program=m.program,
                static_args=tuple(sorted(static.items())),
                backend=m.backend,
                grid=run.target.grid,
                gpu=run.target.device,
                samples_s=(m.device_s,),
                metric="time_device",
            )
        )
    return timings


def compared_backends(run: Run) -> list[str]:
    """gtfn_gpu and dace_gpu where the run has them, else every backend it measured."""
    present = sorted({m.backend for m in run.measured if m.device_s is not None})
    gpu = [b for b in GPU_BACKENDS if b in present]
    return gpu or present


@dataclasses.dataclass(frozen=True)
class Comparison:
    """A run against its baseline: the speed-up report, or why there is none."""

    choice: BaselineChoice
    report: speedup.Report | None
    error: str | None


def compare(
    run: Run,
    baselines: Sequence[Baseline],
    mapping: TimerProgramMapping,
    pins: Mapping[str, Any],
    chosen: str | None = None,
) -> Comparison:
    """Speed-up of ``run`` against the baseline chosen for its target."""
    choice = choose_baseline(run.target, baselines, chosen)
    backends = compared_backends(run)
    timings = timings_of(run, backends)
    if choice.baseline is None or not timings:
        return Comparison(choice, None, None if timings else "no device times in this run")
    try:
        report = speedup.compare(
            choice.baseline, mapping, timings, force=True, backends=backends, pins=pins
        )
    except IconbenchError as error:
        return Comparison(choice, None, str(error))
    return Comparison(choice, report, None)


def estimates(comparison: Comparison) -> dict[str, dict[str, float]]:
    """``{backend: {"value": E, "coverage": c}}`` of a comparison (empty without one)."""
    if comparison.report is None:
        return {}
    return {
        b.backend: {"value": b.estimate.value, "coverage": b.estimate.coverage}
        for b in comparison.report.backends
        if b.estimate is not None
    }


# --------------------------------------------------------------------------- overview


def coverage(run: Run) -> list[dict[str, Any]]:
    """Per backend: how many cases ended in each status, and the share measured."""
    rows = []
    for backend in sorted({m.backend for m in run.measured}):
        mine = [m for m in run.measured if m.backend == backend]
        counts = {s: sum(m.status == s for m in mine) for s in STATUSES}
        rows.append(
            {
                "backend": backend,
                "total": len(mine),
                "counts": counts,
                "share": counts["ok"] / len(mine) if mine else 0.0,
            }
        )
    return rows


def case_row(run: Run, m: Measured) -> dict[str, Any]:
    """One line of a case table (all numbers in SI units; the template formats them)."""
    return {
        "grid": run.target.grid,
        "device": run.target.device,
        "program": m.program,
        "variant": m.variant,
        "case": m.case,
        "backend": m.backend,
        "status": m.status,
        "device_s": m.device_s,
        "host_s": m.host_s,
        "overhead_s": m.overhead_s,
        "compile_s": m.compile_s,
        "bandwidth_fraction": m.bandwidth_fraction,
        "fingerprint": m.fingerprint,
        "error": m.error,
        "page": program_page(m.program),
    }


def _speedup_rows(report: speedup.Report) -> list[dict[str, Any]]:
    """Timers (sorted by share) with one speed-up per backend side by side."""
    by_timer: dict[str, dict[str, Any]] = {}
    for backend in report.backends:
        for row in backend.rows:
            entry = by_timer.setdefault(
                row.timer,
                {
                    "timer": row.timer,
                    "programs": row.programs,
                    "pages": [program_page(p.split(" ")[-1].split("[")[0]) for p in row.programs],
                    "share": row.share,
                    "openacc_s": row.openacc_s,
                    "backends": {},
                },
            )
            entry["backends"][backend.backend] = {
                "gt4py_s": row.gt4py_s,
                "speedup": row.speedup,
                "status": row.status,
                "missing": row.missing,
            }
    return sorted(by_timer.values(), key=lambda r: r["share"], reverse=True)


def overview(
    runs: Sequence[Run],
    baselines: Sequence[Baseline],
    mapping: TimerProgramMapping,
    pins: Mapping[str, Any],
    chosen: str | None = None,
) -> list[dict[str, Any]]:
    """One section per (device, grid): its latest run, coverage, failures and speed-ups."""
    sections = []
    for target, run in latest_per_target(runs).items():
        comparison = compare(run, baselines, mapping, pins, chosen)
        report = comparison.report
        backends = compared_backends(run)
        sections.append(
            {
                "target": target,
                "key": target.key,
                "run": run,
                "commit": short(run.commit),
                "date": day(run.date_ms),
                "coverage": coverage(run),
                "failures": [case_row(run, m) for m in run.measured if m.status in STATUSES[1:3]],
                "not_measured": sum(m.status == "not measured" for m in run.measured),
                "backends": backends,
                "baseline": comparison.choice,
                "error": comparison.error,
                "speedups": _speedup_rows(report) if report else [],
                "estimates": [
                    {"backend": b.backend, "estimate": b.estimate}
                    for b in (report.backends if report else ())
                    if b.estimate is not None
                ],
                "unmapped": report.unmapped if report else (),
                "goal": speedup.GOAL,
                "slowest": _slowest(run, backends),
                "cases": [case_row(run, m) for m in run.measured],
            }
        )
    return sections


def _slowest(run: Run, backends: Sequence[str], count: int = 15) -> list[dict[str, Any]]:
    """Programs by their largest device time (what dominates when no baseline says)."""
    best: dict[str, dict[str, Any]] = {}
    for m in run.measured:
        if m.device_s is None or m.backend not in backends:
            continue
        entry = best.setdefault(m.program, {"program": m.program, "times": {}})
        entry["times"][m.backend] = max(entry["times"].get(m.backend, 0.0), m.device_s)
        entry["page"] = program_page(m.program)
    return sorted(best.values(), key=lambda e: max(e["times"].values()), reverse=True)[:count]


# --------------------------------------------------------------------------- over time


def estimate_history(
    runs: Sequence[Run], per_run: Mapping[str, dict[str, dict[str, float]]]
) -> list[dict[str, Any]]:
    """Per target: the estimate of every run that has one, per backend, in history order."""
    result = []
    for target, history in history_per_target(runs).items():
        points = [
            {
                "commit": short(run.commit),
                "date": day(run.date_ms),
                "backend": backend,
                "value": values["value"],
                "coverage": values["coverage"],
            }
            for run in history
            for backend, values in sorted(per_run.get(run.id, {}).items())
        ]
        result.append(_over_time(target, history, points=points))
    return result


def _over_time(target: Target, history: Sequence[Run], **series: Any) -> dict[str, Any]:
    """A section of a page over time: its target, the commits and dates of its x axis."""
    return {
        "target": target,
        "key": target.key,
        "commits": [short(r.commit) for r in history],
        "dates": [day(r.date_ms) for r in history],
        **series,
    }


def openacc_per_program(comparison: Comparison) -> dict[str, dict[str, Any]]:
    """OpenACC time per call of programs that a timer maps to alone (comparable directly).

    Keyed by case id where the timer names static arguments (``program[k=v-...]``), else by
    program name. A timer shared by several programs has no single-program counterpart.
    """
    if comparison.report is None:
        return {}
    found: dict[str, dict[str, Any]] = {}
    for backend in comparison.report.backends:
        for row in backend.rows:
            if len(row.programs) != 1 or " " in row.programs[0]:  # "2x prog": per timer call
                continue
            found.setdefault(row.programs[0], {"timer": row.timer, "openacc_s": row.openacc_s})
    return found


def program_history(
    program: str,
    runs: Sequence[Run],
    openacc: Mapping[Target, Mapping[str, dict[str, Any]]],
) -> list[dict[str, Any]]:
    """Per target and variant of ``program``: the series of every metric over commits."""
    sections = []
    for target, history in history_per_target(runs).items():
        cases: dict[str, dict[str, dict[int, Measured]]] = {}
        for index, run in enumerate(history):
            for m in run.measured:
                if m.program == program:
                    cases.setdefault(m.case, {}).setdefault(m.backend, {})[index] = m
        if not cases:
            continue
        variants = []
        for case, per_backend in sorted(cases.items(), key=lambda c: _variant_order(c[0])):
            variant = case.partition("[")[2].rstrip("]") or "default"
            reference = openacc.get(target, {})
            acc = reference.get(case) or reference.get(program)
            variants.append(
                {
                    "case": case,
                    "variant": variant,
                    "key": slug(case),
                    "backends": sorted(per_backend),
                    "series": {
                        metric: {
                            backend: [
                                getattr(points[i], metric) if i in points else None
                                for i in range(len(history))
                            ]
                            for backend, points in sorted(per_backend.items())
                        }
                        for metric in (
                            "device_s",
                            "overhead_s",
                            "compile_s",
                            "bandwidth_fraction",
                        )
                    },
                    "status": {
                        backend: [
                            points[i].status if i in points else None for i in range(len(history))
                        ]
                        for backend, points in sorted(per_backend.items())
                    },
                    "fingerprint_changes": _fingerprint_changes(per_backend, history),
                    "change_points": _change_points(per_backend, history),
                    "openacc": acc,
                    "latest": [
                        case_row(history[max(points)], points[max(points)])
                        for _, points in sorted(per_backend.items())
                    ],
                }
            )
        sections.append(_over_time(target, history, variants=variants))
    return sections


def _variant_order(case: str) -> tuple[int, str]:
    return (0 if case.endswith("[default]") else 1, case)


def _change_points(
    per_backend: Mapping[str, Mapping[int, Measured]], history: Sequence[Run]
) -> list[dict[str, Any]]:
    """Steps in each backend's device time (iconbench.history.changepoints), oldest first."""
    found = []
    commits = [short(r.commit) for r in history]
    for backend, points in sorted(per_backend.items()):
        values = [points[i].device_s if i in points else None for i in range(len(history))]
        for point in changepoints.detect(values, commits):
            found.append({"backend": backend, **dataclasses.asdict(point)})
    return found


def _fingerprint_changes(
    per_backend: Mapping[str, Mapping[int, Measured]], history: Sequence[Run]
) -> list[dict[str, Any]]:
    """Commits at which a backend's generated code changed (its fingerprint differs)."""
    changes = []
    for backend, points in sorted(per_backend.items()):
        previous = None
        for index in sorted(points):
            fingerprint = points[index].fingerprint
            if fingerprint is None:
                continue
            if previous is not None and fingerprint != previous:
                changes.append(
                    {
                        "index": index,
                        "backend": backend,
                        "commit": short(history[index].commit),
                        "from": previous,
                        "to": fingerprint,
                    }
                )
            previous = fingerprint
    return changes


# --------------------------------------------------------------------------- gate


#: The benchmark verdicts the verdict page lists one by one (the others are counted).
LISTED = ("regression", "improvement", "failed")


def gate_rows(summaries: Sequence[tuple[str, Any]]) -> list[dict[str, Any]]:
    """The gate's verdicts (``(source, Summary)``), newest first, with the listed changes."""
    rows = []
    for path, summary in sorted(summaries, key=lambda item: item[1].created, reverse=True):
        acc = summary.openacc
        rows.append(
            {
                "summary": summary,
                "path": path,
                "estimate": dict(acc.head.integrate_nh) if acc and acc.head else {},
                "forced": bool(acc and acc.forced),
                "changes": [
                    {"change": b, "page": program_page(b.program) if b.program else None}
                    for b in summary.benchmarks
                    if b.verdict in LISTED
                ],
            }
        )
    return rows
