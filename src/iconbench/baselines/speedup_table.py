"""Plain-text and JSON rendering of a :class:`iconbench.baselines.speedup.Report`."""

from __future__ import annotations

import dataclasses
import json

from iconbench.baselines.speedup import GOAL, BackendReport, Report


def _ms(seconds: float | None) -> str:
    return "-" if seconds is None else f"{seconds * 1e3:.4g}"


def _x(value: float | None) -> str:
    return "-" if value is None else f"{value:.3g}x"


def _ci(ci: tuple[float, float] | None) -> str:
    return "n/a" if ci is None else f"[{ci[0]:.3g}, {ci[1]:.3g}]"


def _backend(report: BackendReport) -> list[str]:
    lines = [f"backend {report.backend}"]
    header = (
        f"  {'ICON timer':<48} {'share':>6} {'calls':>6} {'/step':>6} {'OpenACC ms':>11} "
        f"{'GT4Py ms':>10} {'speed-up':>9} {'95% CI':>18} {'OpenACC min..max':>17}  status"
    )
    lines += [header, "  " + "-" * (len(header) - 2)]
    for row in report.rows:
        spread = (
            f"{row.openacc_min_s / row.gt4py_s:.3g}..{row.openacc_max_s / row.gt4py_s:.3g}x"
            if row.gt4py_s
            else "-"
        )
        status = row.status + (f" (missing: {', '.join(row.missing)})" if row.missing else "")
        lines.append(
            f"  {row.timer:<48} {row.share:>6.1%} {row.calls:>6} {row.calls_per_step:>6.3g} "
            f"{_ms(row.openacc_s):>11} "
            f"{_ms(row.gt4py_s):>10} {_x(row.speedup):>9} {_ci(row.ci):>18} {spread:>17}  "
            f"{status}"
            + (
                f"  [{row.speedup_bandwidth_scaled:.3g}x est.*]"
                if row.speedup_bandwidth_scaled is not None
                else ""
            )
        )
        lines.append(f"    programs: {', '.join(row.programs)}; GT4Py metric: {row.metric or '-'}")
    if (est := report.estimate) is not None:
        verdict = (
            "goal reached"
            if est.distance_to_goal >= 0
            else f"cut GT4Py time by {est.reduction_needed:.1%} to reach it"
        )
        lines += [
            "",
            f"  integrate_nh estimate: {est.value:.3g}x, 95% CI {_ci(est.ci)} "
            f"(sum calls x OpenACC {est.openacc_s:.4g} s / sum calls x GT4Py {est.gt4py_s:.4g} s)",
            f"  coverage: {est.coverage:.1%} of OpenACC time ({est.reference})",
            *(
                [
                    f"  integrate_nh estimate scaled to the baseline's GPU: "
                    f"{est.value_bandwidth_scaled:.3g}x (estimate*)"
                ]
                if est.value_bandwidth_scaled is not None
                else []
            ),
            f"  goal {GOAL}x: distance {est.distance_to_goal:+.3g}x; {verdict}",
        ]
    else:
        lines += ["", "  integrate_nh estimate: none (no mapped timer measured on this backend)"]
    for g in report.granules:
        lines.append(
            f"  granule {g.timer}: measured directly by '{g.benchmark}' {_ms(g.direct_s)} ms -> "
            f"{g.direct_speedup:.3g}x {_ci(g.direct_ci)}; sum of programs {_ms(g.programs_s)} ms;"
            f" difference (Python overhead) {_ms(g.overhead_s)} ms per call; direct vs goal "
            f"{GOAL}x: distance {g.direct_speedup - GOAL:+.3g}x"
        )
    return lines


def render(report: Report) -> str:
    """The table sorted by share of OpenACC time, the estimate, unmapped timers, warnings."""
    lines = [
        f"baseline {report.baseline}: {report.experiment}, grid {report.grid}, GPU {report.gpu}",
        f"GT4Py timings: grid {', '.join(report.gt4py_grids)}, GPU {', '.join(report.gt4py_gpus)}",
    ]
    if report.experiment_file:
        lines.append(f"experiment {report.experiment_file}")
    if report.forced:
        lines += [
            f"WARNING (--force): {m}; these speed-ups are NOT like for like" for m in report.forced
        ]
    if report.gpu_scaling is not None:
        g = report.gpu_scaling
        b, o = g["baseline"], g["gt4py"]
        lines.append(
            f"* estimate: speed-up x {g['factor']:.3f} = {b['gpu']} {b['bytes_per_s'] / 1e12:.3g} "
            f"TB/s ({b['kind']}) / {o['gpu']} {o['bytes_per_s'] / 1e12:.3g} TB/s ({o['kind']}): "
            "GT4Py restated for the baseline's GPU assuming memory-bound kernels; not measured"
        )
    for backend in report.backends:
        lines += ["", *_backend(backend)]
    if report.unmapped:
        lines += ["", "unmapped OpenACC timers (share of OpenACC time, reason):"]
        lines += [f"  {name:<48} {share:>6.1%}  {why}" for name, share, why in report.unmapped]
    return "\n".join(lines)


def to_json(report: Report) -> str:
    """The report as JSON (for the site and bot)."""
    return json.dumps(dataclasses.asdict(report), indent=2)
