"""The gate's readable table (stdout): what changed first, then one line of counts."""

from __future__ import annotations

from iconbench.gate import why
from iconbench.gate.durations import seconds
from iconbench.records.summary import BenchmarkResult, Summary

ORDER = (
    "regression",
    "failed",
    "inconclusive",
    "improvement",
    "new",
    "gone",
    "not run",
    "unchanged",
)
MARKS = {
    "regression": "+",
    "improvement": "-",
    "unchanged": " ",
    "inconclusive": "?",
    "failed": "!",
    "not run": ".",
    "new": "n",
    "gone": "g",
}


def _line(r: BenchmarkResult) -> str:
    ratio = "-" if r.ratio is None else f"{r.ratio:.3f}"
    if r.ratio_ci:
        ratio += f" [{r.ratio_ci[0]:.3f}, {r.ratio_ci[1]:.3f}]"
    q = "" if r.q_value is None else f"q={r.q_value:.2g}"
    base = seconds(r.base.median) if r.base else "-"
    head = seconds(r.head.median) if r.head else "-"
    gated = "" if r.gated else " (not gated)"
    error = r.error
    if r.base and r.head and r.base.error and r.base.error == r.head.error:
        error = f"both: {r.base.error}"
    if error and len(error) > 110:
        error = error[:107] + "..."
    confirmed = [f"A/B {r.confirmation.describe()}"] if r.confirmation else []
    extra = "; ".join([*confirmed, *r.notes, *([error] if error else [])])
    name = f"{r.program}[{r.variant}] {r.backend} {r.metric}"
    return (
        f"{MARKS[r.verdict]} {r.verdict:<12} {name:<70} {base:>10} {head:>10} "
        f"{ratio:<26} {q:<9}{gated} {extra}".rstrip()
    )


def _known_failure(r: BenchmarkResult) -> bool:
    return bool(r.verdict == "failed" and r.base and r.head and r.base.error and r.head.error)


def render(summary: Summary, *, everything: bool = False) -> str:
    """The table: every benchmark that is not unchanged (all with ``everything``)."""
    lines = [
        f"base: {summary.base.label} ({summary.base.commit[:8] or '?'}, {summary.base.source})",
        f"head: {summary.head.label} ({summary.head.commit[:8] or '?'}, {summary.head.source})",
        f"grid {summary.base.grid.name}; thresholds "
        + ", ".join(f"{m} {t:.0%}" for m, t in summary.settings.thresholds.items())
        + f"; FDR {summary.settings.fdr:.0%}",
        *(f"machine shift: {m.line()}" for m in summary.machine_shift),
        "",
        f"  {'verdict':<12} {'benchmark':<70} {'base':>10} {'head':>10} "
        f"{'ratio [95% CI]':<26} {'q':<9} notes",
    ]
    rows = sorted(summary.benchmarks, key=lambda r: (ORDER.index(r.verdict), r.id))
    # a benchmark measured again is shown whatever the A/B found: it was flagged
    quiet = ("unchanged", "not run")
    shown = [r for r in rows if everything or r.verdict not in quiet or r.confirmation]
    known = [r for r in shown if _known_failure(r)]
    if not everything:
        shown = [r for r in shown if r.gated or r.verdict in ("failed", "new", "gone")]
        shown = [r for r in shown if not _known_failure(r)]
    lines += [_line(r) for r in shown]
    hidden = len(rows) - len(shown)
    if hidden:
        failing = f", {len(known)} failing on both sides" if known and not everything else ""
        absent = summary.counts.get("not run", 0)
        absent_text = f", {absent} not run" if absent and not everything else ""
        lines.append(
            f"  ({hidden} not shown: unchanged, not gated{absent_text}{failing}; --all shows them)"
        )
    for table in why.kernel_tables(summary.explanations):
        lines += ["", why.render(table.why, alike=table.alike)]
    counts = ", ".join(f"{n} {v}" for v, n in summary.counts.items() if n)
    # gated metrics that two separate runs do not judge without a history (gate.config's
    # history_only): the only ungated results left inconclusive
    unjudged = sum(1 for r in summary.benchmarks if not r.gated and r.verdict == "inconclusive")
    if unjudged:
        counts += (", " if counts else "") + (
            f"{unjudged} not judged between separate runs (--history, or measure interleaved)"
        )
    lines += ["", f"{summary.verdict.upper()}: {counts or 'nothing compared'}"]
    return "\n".join(lines)
