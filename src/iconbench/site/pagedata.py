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
import functools
from collections.abc import Mapping, Sequence
from typing import Any

from iconbench.baselines import format as baseline_format
from iconbench.baselines import gt4py_timings, speedup
from iconbench.baselines.format import Baseline
from iconbench.baselines.mapping import TimerProgramMapping
from iconbench.errors import IconbenchError
from iconbench.gate.kernels import counters as kernel_counters
from iconbench.gate.why import kernel_tables
from iconbench.history import changepoints, confirmation
from iconbench.history.runs import Measured, Run, Target, history_per_target, ordered, slug
from iconbench.stacks.reproducibility import draw_note

#: Backends the overview compares with OpenACC when a run has them (else: all it has).
GPU_BACKENDS = ("gtfn_gpu", "dace_gpu")
STATUSES = ("ok", "compile failed", "run failed", "not measured")
#: Cases outside a run's selection: listed nowhere as a problem, counted in no total.
NOT_SELECTED = "not selected"


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


def latest_per_target(runs: Sequence[Run]) -> dict[Target, Run]:
    """The newest run of every (device, grid)."""
    latest: dict[Target, Run] = {}
    for run in ordered(runs):
        latest[run.target] = run
    return dict(sorted(latest.items()))


def complete(run: Run, backend: str) -> bool:
    """Whether every case of ``backend`` in ``run`` has an outcome (ok or failed).

    A run that selected a part of the suite (``not selected``) or left cases unmeasured is
    partial: it is listed, but a card shows the newest complete run of each backend.
    """
    mine = [m for m in run.measured if m.backend == backend]
    return bool(mine) and all(m.status in STATUSES[:3] for m in mine)


@functools.cache
def pinned_stack() -> tuple[tuple[str, str], ...]:
    """``(component, version)`` upstream's locks pin (``uv.lock``): the stack users run today.

    Empty where the lock cannot be read (a site is still published, nothing marked).
    """
    from iconbench.stacks import lockpins

    try:
        return tuple((name, lockpins.pinned_version(name)) for name in ("gt4py", "dace", "icon4py"))
    except IconbenchError:
        return ()


def off_pins(run: Run) -> str:
    """What of ``run``'s stack differs from the pinned one (``''``: pinned, or not recorded).

    >>> from iconbench.history.runs import Stack, Target
    >>> pinned = dict(pinned_stack())
    >>> old = Stack("stack-x", gt4py=pinned["gt4py"], dace="2.0.0b1", icon4py=pinned["icon4py"])
    >>> off_pins(Run(Target("H100", "g"), "abc", 0, "h100", "env", "f.json", (), old))
    'dace 2.0.0b1 (pinned: dace 2.0.0a6)'
    """
    if run.stack is None:
        return ""
    differs = [
        (name, getattr(run.stack, name), version)
        for name, version in pinned_stack()
        if getattr(run.stack, name) not in (None, version)
    ]
    if not differs:
        return ""
    said = ", ".join(f"{name} {have}" for name, have, _ in differs)
    return f"{said} (pinned: {', '.join(f'{name} {want}' for name, _, want in differs)})"


def shown_per_backend(history: Sequence[Run]) -> dict[str, Run]:
    """Per backend of a target: the run its card shows.

    Of the runs on the pinned stack (:func:`off_pins`; all runs where none is) the newest
    complete run (:func:`complete`); without one, the run with the most measured cases (the
    newest of those). A run of an obsolete stack is no current picture, however complete.
    """
    chosen: dict[str, Run] = {}
    for backend in sorted({m.backend for r in history for m in r.measured}):
        having = [r for r in ordered(history) if any(m.backend == backend for m in r.measured)]
        having = [r for r in having if not off_pins(r)] or having
        full = [r for r in having if complete(r, backend)]
        if full:
            chosen[backend] = full[-1]
            continue
        ok = {
            r.id: sum(m.backend == backend and m.status == "ok" for m in r.measured) for r in having
        }
        best = max(ok.values())
        if best:
            chosen[backend] = [r for r in having if ok[r.id] == best][-1]
    return chosen


def composite(target: Target, chosen: Mapping[str, Run]) -> Run:
    """One run of ``target`` made of each backend's cases from its chosen run.

    Its commit and date are those of the newest chosen run; the card names each backend's
    own run.
    """
    newest = max(chosen.values(), key=lambda r: (r.date_ms, r.commit))
    measured = tuple(
        m for backend, run in sorted(chosen.items()) for m in run.measured if m.backend == backend
    )
    return dataclasses.replace(newest, target=target, measured=measured)


def shown_per_target(runs: Sequence[Run]) -> dict[Target, Run]:
    """Per (device, grid): the run its overview card compares (:func:`composite`)."""
    shown = {}
    for target, history in history_per_target(runs).items():
        chosen = shown_per_backend(history)
        shown[target] = composite(target, chosen) if chosen else history[-1]
    return shown


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
        mine = [m for m in run.measured if m.backend == backend and m.status != NOT_SELECTED]
        if not mine:
            continue
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
        "clock": m.clock,
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
    chosen_baseline: str | None = None,
) -> list[dict[str, Any]]:
    """One section per (device, grid): per backend its newest complete run, and the rest.

    The speed-ups and the estimate are those of the composite of the chosen runs (each
    backend's numbers from its own run); newer partial runs are listed with their pages.
    """
    sections = []
    for target, history in history_per_target(runs).items():
        chosen = shown_per_backend(history)
        if not chosen:
            chosen = {"": history[-1]}
        run = composite(target, chosen) if "" not in chosen else history[-1]
        comparison = compare(run, baselines, mapping, pins, chosen_baseline)
        report = comparison.report
        backends = compared_backends(run)
        shown_ids = {r.id for r in chosen.values()}
        cover = coverage(run)
        for row in cover:
            source = chosen.get(row["backend"], run)
            row.update(
                commit=short(source.commit),
                date=day(source.date_ms),
                run_page=run_page(source),
                stack=source.stack_key,
                off_pins=off_pins(source),
            )
        sections.append(
            {
                "target": target,
                "key": target.key,
                "run": run,
                "runs": [
                    {
                        "backend": b,
                        "run": r,
                        "page": run_page(r),
                        "commit": short(r.commit),
                        "off_pins": off_pins(r),
                    }
                    for b, r in sorted(chosen.items())
                    if b
                ],
                "partial": [
                    {
                        "run": r,
                        "page": run_page(r),
                        "commit": short(r.commit),
                        "date": day(r.date_ms),
                        "coverage": coverage(r),
                    }
                    for r in history
                    if r.id not in shown_ids and r.date_ms > min(x.date_ms for x in chosen.values())
                ],
                "commit": short(run.commit),
                "date": day(run.date_ms),
                "coverage": cover,
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
                "cases": [case_row(run, m) for m in run.measured if m.status != NOT_SELECTED],
            }
        )
    # the pinned stack's picture first: a target whose cards all show pinned runs leads
    return sorted(sections, key=lambda s: any(off_pins(r) for r in chosen_runs(s)))


def chosen_runs(section: Mapping[str, Any]) -> list[Run]:
    """The runs an overview section's cards show."""
    return [r["run"] for r in section["runs"]] or [section["run"]]


def run_page(run: Run) -> str:
    """The file of a run's page (its stack, grid, coverage and cases), relative to the root.

    >>> import dataclasses as d
    >>> from iconbench.history.runs import Target
    >>> run_page(Run(Target("H100", "g"), "abc", 0, "h100", "env", "f.json", ()))
    'runs/h100-abc-env-g.html'
    """
    return f"runs/{run.id}.html"


def run_details(run: Run) -> dict[str, Any]:
    """What a run's page shows: target, commit, stack, coverage and every selected case."""
    return {
        "run": run,
        "target": run.target,
        "commit": run.commit,
        "date": day(run.date_ms),
        "stack": run.stack.rows() if run.stack else [("stack key", run.stack_key)],
        "stack_recorded": run.stack is not None,
        "off_pins": off_pins(run),
        "coverage": coverage(run),
        "not_selected": sum(m.status == NOT_SELECTED for m in run.measured),
        "cases": [case_row(run, m) for m in run.measured if m.status != NOT_SELECTED],
    }


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
    """Per target: the estimate of every run that has one, per backend, in history order.

    Two estimates are comparable only when they cover the same part of the OpenACC step
    and ran on the same stack: each point carries its ``regime`` (stack, coverage to 0.1 %),
    and the chart breaks its line where the regime changes instead of drawing a slope.
    """
    result = []
    for target, history in history_per_target(runs).items():
        points = [
            {
                "index": index,
                "commit": short(run.commit),
                "date": day(run.date_ms),
                "backend": backend,
                "value": values["value"],
                "coverage": values["coverage"],
                "stack": run.stack_key,
                "regime": f"{run.stack_key} · coverage {100 * values['coverage']:.1f} %",
                "page": run_page(run),
            }
            for index, run in enumerate(history)
            for backend, values in sorted(per_run.get(run.id, {}).items())
        ]
        result.append(_over_time(target, history, points=points, breaks=_breaks(points)))
    return result


def _breaks(points: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Where a backend's estimate changes regime: coverage or stack, with what changed.

    >>> _breaks([{"index": 0, "backend": "g", "coverage": 0.102, "stack": "s", "commit": "a"},
    ...          {"index": 1, "backend": "g", "coverage": 0.346, "stack": "s", "commit": "b"}])
    [{'index': 1, 'backend': 'g', 'commit': 'b', 'what': 'coverage 10.2 % → 34.6 %'}]
    """
    found, previous = [], {}
    for point in points:
        last = previous.get(point["backend"])
        if last is not None:
            changes = []
            if round(last["coverage"], 3) != round(point["coverage"], 3):
                changes.append(
                    f"coverage {100 * last['coverage']:.1f} % → {100 * point['coverage']:.1f} %"
                )
            if last["stack"] != point["stack"]:
                changes.append(f"stack {last['stack']} → {point['stack']}")
            if changes:
                found.append(
                    {
                        "index": point["index"],
                        "backend": point["backend"],
                        "commit": point["commit"],
                        "what": "; ".join(changes),
                    }
                )
        previous[point["backend"]] = point
    return found


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


def measurements(points: Mapping[int, Measured]) -> dict[int, bool]:
    """Per run index: whether the value there was measured in that run.

    asv result files written by a runner are snapshots of the suite: a case measured in an
    earlier run is stored again, unchanged, in the next file. Two measurements never give
    the same median, host time and sample count to the bit, so a value equal to the
    previous one of the same case and backend is that earlier measurement carried forward,
    not a new point.

    >>> a = Measured("p[default]", "g", "ok", device_s=1e-3, samples=50, host_s=2e-3)
    >>> b = Measured("p[default]", "g", "ok", device_s=1.1e-3, samples=50, host_s=2e-3)
    >>> measurements({0: a, 1: a, 2: b})
    {0: True, 1: False, 2: True}
    """
    found, last = {}, None
    for index in sorted(points):
        m = points[index]
        if m.status != "ok":
            found[index] = False
            continue
        value = (m.device_s, m.host_s, m.samples)
        found[index] = value != last
        last = value
    return found


def variant_order(
    cases: Mapping[str, Mapping[str, Mapping[int, Measured]]], pins: Mapping[str, Any]
) -> list[str]:
    """Cases in chart order: measured first, the experiment's variants (``pins``) first.

    Then by name, ``[default]`` first.

    >>> ok = {"g": {0: Measured("p[a=1]", "g", "ok", device_s=1.0)}}
    >>> no = {"g": {0: Measured("p[a=2]", "g", "compile failed")}}
    >>> variant_order({"p[a=2]": ok, "p[a=1]": ok, "p[a=0]": no}, {"a": 2})
    ['p[a=2]', 'p[a=1]', 'p[a=0]']
    """

    def key(case: str) -> tuple[int, int, int, str]:
        measured = any(m.status == "ok" for points in cases[case].values() for m in points.values())
        static = speedup_static(case)
        selected = all(static.get(k, v) == v for k, v in pins.items()) if pins else True
        return (0 if measured else 1, 0 if selected else 1, *_variant_order(case))

    return sorted(cases, key=key)


def _variant_order(case: str) -> tuple[int, str]:
    return (0 if case.endswith("[default]") else 1, case)


def speedup_static(case: str) -> dict[str, Any]:
    """The static arguments of a case id, typed as the speed-up code reads them."""
    return gt4py_timings.parse_variant(case.partition("[")[2].rstrip("]") or "default")


def program_history(
    program: str,
    runs: Sequence[Run],
    openacc: Mapping[Target, Mapping[str, dict[str, Any]]],
    pins: Mapping[str, Any] | None = None,
    confirmations: confirmation.ByChangePoint | None = None,
) -> list[dict[str, Any]]:
    """Per target and variant of ``program``: the series of every metric over commits.

    Only measurements are points (:func:`measurements`); each point's ``regime`` (stack
    and device clock) tells the chart where a line must break. ``confirmations``: the
    change points' A/Bs (:func:`iconbench.history.confirmation.by_change_point`).
    """
    sections = []
    for target, history in history_per_target(runs).items():
        cases: dict[str, dict[str, dict[int, Measured]]] = {}
        for index, run in enumerate(history):
            for m in run.measured:
                if m.program == program and m.status != NOT_SELECTED:
                    cases.setdefault(m.case, {}).setdefault(m.backend, {})[index] = m
        if not cases:
            continue
        variants = []
        for case in variant_order(cases, pins or {}):
            per_backend = cases[case]
            variant = case.partition("[")[2].rstrip("]") or "default"
            reference = openacc.get(target, {})
            acc = reference.get(case) or reference.get(program)
            real = {b: measurements(points) for b, points in per_backend.items()}
            regimes = {
                backend: [
                    f"{history[i].stack_key} · clock {points[i].clock or 'not recorded'}"
                    if i in points and real[backend][i]
                    else None
                    for i in range(len(history))
                ]
                for backend, points in sorted(per_backend.items())
            }
            variants.append(
                {
                    "case": case,
                    "variant": variant,
                    "key": slug(case),
                    "backends": sorted(per_backend),
                    "measured": any(any(r.values()) for r in real.values()),
                    "series": {
                        metric: {
                            backend: [
                                getattr(points[i], metric)
                                if i in points and real[backend][i]
                                else None
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
                    "regimes": regimes,
                    "regime_changes": _regime_changes(regimes, history),
                    "status": {
                        backend: [
                            points[i].status if i in points else None for i in range(len(history))
                        ]
                        for backend, points in sorted(per_backend.items())
                    },
                    "fingerprint_changes": _fingerprint_changes(per_backend, history),
                    "change_points": _change_points(
                        per_backend, history, case, confirmations or {}
                    ),
                    "openacc": acc,
                    "latest": [
                        case_row(history[max(points)], points[max(points)])
                        for _, points in sorted(per_backend.items())
                    ],
                }
            )
        sections.append(_over_time(target, history, variants=variants))
    return sections


def _regime_changes(
    regimes: Mapping[str, Sequence[str | None]], history: Sequence[Run]
) -> list[dict[str, Any]]:
    """Where a backend's measurements change stack or clock (drawn as a break, listed)."""
    changes = []
    for backend, values in sorted(regimes.items()):
        previous = None
        for index, regime in enumerate(values):
            if regime is None:
                continue
            if previous is not None and regime != previous:
                (old_stack, old_clock), (new_stack, new_clock) = (
                    previous.split(" · clock "),
                    regime.split(" · clock "),
                )
                what = [f"stack {old_stack} → {new_stack}"] if old_stack != new_stack else []
                what += [f"clock {old_clock} → {new_clock}"] if old_clock != new_clock else []
                changes.append(
                    {
                        "index": index,
                        "backend": backend,
                        "commit": short(history[index].commit),
                        "from": previous,
                        "to": regime,
                        "what": "; ".join(what),
                    }
                )
            previous = regime
    return changes


#: What a change point says of its confirmation (iconbench history confirm) when it has none.
NOT_REMEASURED = "not re-measured yet"


def _change_points(
    per_backend: Mapping[str, Mapping[int, Measured]],
    history: Sequence[Run],
    case: str,
    confirmations: confirmation.ByChangePoint,
) -> list[dict[str, Any]]:
    """Steps in each backend's device time (iconbench.history.changepoints), oldest first.

    Each names its commit (``commit``, full) and says whether an interleaved A/B of that
    commit against its parent confirmed it (``confirmation``: the record's benchmark, or
    ``None``; ``parent``: the A/B's base; ``status``: ``confirmed``, ``not confirmed`` or
    :data:`NOT_REMEASURED`).
    """
    found = []
    commits = [short(r.commit) for r in history]
    for backend, points in sorted(per_backend.items()):
        values = [points[i].device_s if i in points else None for i in range(len(history))]
        for point in changepoints.detect(values, commits):
            run = history[point.index]
            record, bench = confirmations.get(
                (run.target.device, run.target.grid, run.commit, case, backend), (None, None)
            )
            found.append(
                {
                    "backend": backend,
                    **dataclasses.asdict(point),
                    "commit": run.commit,
                    "confirmation": bench,
                    "parent": record.parent if record else None,
                    "status": bench.verdict if bench else NOT_REMEASURED,
                    "draw": _draw(backend, history[point.index - 1], run),
                }
            )
    return found


def _fingerprint_changes(
    per_backend: Mapping[str, Mapping[int, Measured]], history: Sequence[Run]
) -> list[dict[str, Any]]:
    """Commits at which a backend's generated code changed (its fingerprint differs)."""
    changes = []
    for backend, points in sorted(per_backend.items()):
        previous, previous_index = None, 0
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
                        "draw": _draw(backend, history[previous_index], history[index]),
                    }
                )
            previous, previous_index = fingerprint, index
    return changes


def _draw(backend: str, before: Run, after: Run) -> str | None:
    """Whether a change of ``backend``'s code or time between two runs may be a build's draw.

    The note of :func:`iconbench.stacks.reproducibility.draw_note`, where either run's stack
    translates for DaCe irreproducibly, else ``None``.
    """
    return draw_note(backend, (run.stack.gt4py for run in (before, after) if run.stack))


# --------------------------------------------------------------------------- gate


#: The benchmark verdicts the verdict page lists one by one (the others are counted).
LISTED = ("regression", "improvement", "failed")


def gate_rows(summaries: Sequence[tuple[str, Any]]) -> list[dict[str, Any]]:
    """The gate's verdicts (``(source, Summary)``), newest first, with the listed changes.

    A change lists its interleaved A/B where one measured it again (``iconbench confirm``):
    the confirmed ones under their verdict, the others as not confirmed (run-to-run noise),
    whatever their verdict became.
    """
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
                    if b.verdict in LISTED or b.confirmation is not None
                ],
                "confirmed": sum(
                    1 for b in summary.benchmarks if b.confirmation and b.confirmation.confirmed
                ),
                "not_confirmed": sum(1 for b in summary.benchmarks if b.not_confirmed),
            }
        )
    return rows


def changes_by_program(summaries: Sequence[tuple[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """Each program's changes between two runs that were measured again, newest verdict first.

    The benchmarks of a comparison of two separate runs (the nightly against the last one)
    that it flagged and an interleaved A/B of both stacks measured again (``iconbench
    confirm``): ``status`` confirmed or not confirmed, the A/B (``confirmation``), the
    comparison's ratio, and the first bad commit where a bisection found one.
    """
    found: dict[str, list[dict[str, Any]]] = {}
    for _, summary in sorted(summaries, key=lambda item: item[1].created, reverse=True):
        first_bad = {b.id: b for b in summary.bisect}
        for bench in summary.benchmarks:
            if bench.confirmation is None:
                continue
            found.setdefault(bench.program, []).append(
                {
                    "created": summary.created[:16].replace("T", " "),
                    "base": short(summary.base.commit),
                    "head": short(summary.head.commit),
                    "head_commit": summary.head.commit,
                    "case": bench.id.split("|")[0],
                    "backend": bench.backend,
                    "metric": bench.metric.replace("_", " "),
                    "flagged": bench.confirmation.flagged,
                    "ratio": bench.ratio,
                    "status": bench.confirmation.verdict,
                    "confirmation": bench.confirmation,
                    "bisect": first_bad.get(bench.id),
                }
            )
    return found


# --------------------------------------------------------------------------- why


def why_by_program(summaries: Sequence[tuple[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """Each program's explained benchmarks (the summaries' ``why``), newest verdict first.

    Kernel rows carry the raw seconds and ratios (the templates format them); the hardware
    counters are strings: one value where they stayed, ``a → b`` where they moved. Variants
    of one program and backend profiled each with the same kernels are one card
    (:func:`iconbench.gate.why.kernel_tables`), the others listed in ``alike`` with their
    change and kernel time.
    """
    found: dict[str, list[dict[str, Any]]] = {}
    for path, summary in sorted(summaries, key=lambda item: item[1].created, reverse=True):
        benches = {b.id: b for b in summary.benchmarks}
        for table in kernel_tables(summary.explanations):
            why = table.why
            bench = benches.get(why.id)
            diff = why.kernels
            kernels = None
            if diff is not None:
                rows = [
                    {
                        "kernel": c.kernel,
                        "base_s": c.base.device_s if c.base else None,
                        "head_s": c.head.device_s if c.head else None,
                        "ratio": c.ratio,
                        "status": "new" if c.base is None else "gone" if c.head is None else "",
                        "share": c.share,
                        **kernel_counters(c),
                    }
                    for c in diff.changes
                ]
                kernels = {
                    "base_s": diff.base_s,
                    "head_s": diff.head_s,
                    "ratio": diff.head_s / diff.base_s if diff.base_s else None,
                    "count_base": sum(1 for c in diff.changes if c.base),
                    "count_head": sum(1 for c in diff.changes if c.head),
                    "rows": rows,
                }
            found.setdefault(why.program, []).append(
                {
                    "source": path,
                    "created": summary.created[:16].replace("T", " "),
                    "base": short(summary.base.commit),
                    "head": short(summary.head.commit),
                    "case": why.case,
                    "backend": why.backend,
                    "metric": why.id.split("|")[2].replace("_", " "),
                    "ratio": bench.ratio if bench else None,
                    "verdict": bench.verdict_words if bench else "",
                    "profiler": why.profiler,
                    "notes": list(why.notes),
                    "same_kernels": [i.partition("|")[0] for i in why.same_kernels],
                    "alike": [
                        {
                            "case": other.case,
                            "ratio": benches[other.id].ratio if other.id in benches else None,
                            "base_s": other.kernels.base_s if other.kernels else None,
                            "head_s": other.kernels.head_s if other.kernels else None,
                        }
                        for other in table.alike
                    ],
                    "kernels": kernels,
                    "code": why.code,
                }
            )
    return found
