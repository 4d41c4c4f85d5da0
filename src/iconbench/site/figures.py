"""Which plots each page shows, made from its page data with :mod:`iconbench.site.plots`."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from iconbench.site import plots

GOAL_COLOUR, PARITY_COLOUR, OPENACC_COLOUR = "#1a7f37", "#555555", "#c62828"
#: Marker of a change point of the device-time history (iconbench.history.changepoints).
CHANGE_COLOUR = "#e65100"


def for_both(draw: Callable[..., str], *args: Any, **kwargs: Any) -> str:
    """A chart drawn for a desktop and again for a phone's width; the page shows the one that fits.

    A chart scaled down to a phone is unreadable, one read sideways shows labels and no bars.
    """
    return draw(*args, **kwargs) + draw(*args, phone=True, **kwargs)


def speedup_chart(section: Mapping[str, Any]) -> str:
    """Speed-up per ICON timer (rows by share of OpenACC time) and backend, estimate on top."""
    backends = [
        b for b in section["backends"] if any(b in row["backends"] for row in section["speedups"])
    ]
    rows: list[plots.BarRow] = []
    estimate = {e["backend"]: e["estimate"].value for e in section["estimates"]}
    if estimate:
        rows.append(plots.BarRow("integrate_nh estimate", tuple(estimate.get(b) for b in backends)))
    for row in section["speedups"]:
        values = tuple(
            (row["backends"].get(b) or {}).get("speedup")
            if (row["backends"].get(b) or {}).get("status") in {"ok", "partial"}
            else None
            for b in backends
        )
        rows.append(plots.BarRow(f"{row['timer']} ({row['share']:.1%})", values))
    return for_both(
        plots.bar_chart,
        rows,
        backends,
        title=f"Speed-up over OpenACC · {section['target'].label} · {section['commit']}",
        x_label="speed-up over OpenACC (x, > 1: GT4Py faster); rows by share of OpenACC time",
        references=(
            plots.Reference("parity 1x", 1.0, PARITY_COLOUR),
            plots.Reference(f"goal {section['goal']}x", section["goal"], GOAL_COLOUR),
        ),
        chart_id=f"speedup-{section['key']}",
    )


def slowest_chart(section: Mapping[str, Any]) -> str:
    """Without a baseline: the programs with the largest device time, per backend."""
    backends = section["backends"]
    rows = [
        plots.BarRow(entry["program"], tuple(entry["times"].get(b) for b in backends))
        for entry in section["slowest"]
    ]
    scale = plots.time_scale([v for r in rows for v in r.values])
    scaled = [
        plots.BarRow(r.label, tuple(None if v is None else v * scale.factor for v in r.values))
        for r in rows
    ]
    return for_both(
        plots.bar_chart,
        scaled,
        backends,
        title=f"Slowest programs · {section['target'].label} · {section['commit']}",
        x_label=f"device time per call [{scale.unit}] (slowest variant)",
        chart_id=f"slowest-{section['key']}",
        unit=f" {scale.unit}",
    )


BREAK_COLOUR = "#b26a00"


def estimate_chart(section: Mapping[str, Any], goal: float) -> str:
    """The integrate_nh estimate of each backend over commits, with parity and goal.

    Each point is labelled with its coverage of the OpenACC time; where the coverage or the
    stack changes, the line breaks and a marker says what changed (not a speed change).
    """
    commits = section["commits"]
    backends = sorted({p["backend"] for p in section["points"]})
    breaks = section.get("breaks", [])
    lines = []
    for n, backend in enumerate(backends):
        values: list[float | None] = [None] * len(commits)
        labels: list[str | None] = [None] * len(commits)
        for point in section["points"]:
            if point["backend"] == backend:
                values[point["index"]] = point["value"]
                labels[point["index"]] = (
                    f"{point['value']:.2f}x · covers {100 * point['coverage']:.1f} %"
                )
        lines.append(
            plots.Line(
                backend,
                tuple(values),
                plots.colour(backend, n),
                breaks=frozenset(b["index"] for b in breaks if b["backend"] == backend),
                labels=tuple(labels),
            )
        )
    markers = [
        plots.Marker(b["index"], f"{b['backend']}: {b['what']}", BREAK_COLOUR, "not comparable")
        for b in breaks
    ]
    return for_both(
        plots.line_chart,
        lines,
        commits,
        title=f"integrate_nh estimate · {section['target'].label}",
        y_label="speed-up over OpenACC (x)",
        references=(
            plots.Reference("parity 1x", 1.0, PARITY_COLOUR),
            plots.Reference(f"goal {goal}x", goal, GOAL_COLOUR),
        ),
        markers=markers,
        chart_id=f"estimate-{section['key']}",
    )


METRICS = (
    ("device_s", "Device time per call", "device time per call", "time"),
    ("overhead_s", "Host overhead per call", "host − device time per call", "time"),
    ("compile_s", "Compile time (cold)", "compile time", "time"),
    # bytes a call must move over its time, of a 1 GiB copy's rate (from memory, beyond the
    # L2 cache): above 100 % the repeated calls found part of their fields in the L2 cache
    (
        "bandwidth_fraction",
        "Bandwidth, of the copy peak · over 100 %: cache reuse, reads served from L2",
        "fraction of copy peak",
        "fraction",
    ),
)


def regime_labels(changes: list[dict[str, Any]]) -> list[tuple[int, str]]:
    """One label per change of stack or clock at a commit, naming the backends it holds for.

    A new stack changes every backend at once: one marker, not one per backend on top of
    each other.

    >>> regime_labels([{"index": 3, "backend": "dace_gpu", "what": "stack a → b"},
    ...                {"index": 3, "backend": "gtfn_gpu", "what": "stack a → b"},
    ...                {"index": 5, "backend": "gtfn_gpu", "what": "clock x → y"}])
    [(3, 'stack a → b (dace_gpu, gtfn_gpu)'), (5, 'gtfn_gpu: clock x → y')]
    """
    grouped: dict[tuple[int, str], list[str]] = {}
    for change in changes:
        grouped.setdefault((change["index"], change["what"]), []).append(change["backend"])
    return [
        (
            index,
            f"{what} ({', '.join(backends)})" if len(backends) > 1 else f"{backends[0]}: {what}",
        )
        for (index, what), backends in grouped.items()
    ]


def program_charts(section: Mapping[str, Any], variant: Mapping[str, Any]) -> list[str]:
    """Device time (with OpenACC and code changes), overhead, compile time, bandwidth."""
    charts = []
    commits = section["commits"]
    for metric, title, label, kind in METRICS:
        series = variant["series"][metric]
        if not any(v is not None for values in series.values() for v in values):
            continue
        changes = variant.get("regime_changes", [])
        lines = [
            plots.Line(
                backend,
                tuple(values),
                plots.colour(backend, n),
                breaks=frozenset(c["index"] for c in changes if c["backend"] == backend),
            )
            for n, (backend, values) in enumerate(series.items())
        ]
        references: list[plots.Reference] = []
        markers = [
            plots.Marker(index, label, BREAK_COLOUR, "stack or clock changed")
            for index, label in regime_labels(changes)
        ]
        if metric == "device_s":
            if variant["openacc"]:
                references.append(
                    plots.Reference(
                        f"OpenACC ({variant['openacc']['timer']})",
                        variant["openacc"]["openacc_s"],
                        OPENACC_COLOUR,
                    )
                )
            markers += [
                plots.Marker(c["index"], f"{c['backend']} code {c['to'][:6]}")
                for c in variant["fingerprint_changes"]
            ] + [
                plots.Marker(
                    c["index"],
                    f"{c['backend']} step x{c['magnitude']:.2f}: {c['status']}",
                    CHANGE_COLOUR,
                    "change point",
                )
                for c in variant.get("change_points", ())
            ]
        values = [v for values in series.values() for v in values]
        values += [r.value for r in references]
        scale = plots.time_scale(values) if kind == "time" else plots.Scale(100.0, "%")
        charts.append(
            for_both(
                plots.line_chart,
                lines,
                commits,
                title=title,
                y_label=label,
                scale=scale,
                references=references,
                markers=markers,
                chart_id=f"{metric}-{section['key']}-{variant['key']}",
                width=580,
            )
        )
    return charts
