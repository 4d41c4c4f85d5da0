"""The pull request comment: the gate summary as GitHub markdown (``reporting/comment.md.j2``).

Within a screen for a typical change: the verdict with its counts in one line, the two
commits, the regressions and improvements, why the flagged GPU benchmarks changed (their
kernels and generated code, when ``iconbench explain`` ran; variants with the same kernels
once), the speed-up against OpenACC of the timers of the measured programs and the
``integrate_nh`` estimate, base → head (or the one line why there is none), notes (code
generation changes, inconclusive and failed benchmarks); then, folded in ``<details>``, the
two stacks and the whole table. GitHub refuses comments over
:data:`LIMIT` characters, so :func:`render` tries ever shorter forms (:data:`LEVELS`: fold the
unchanged rows away, then shorten the full table, the top tables and the note lists) and takes
the first that fits; whatever is left out is counted in the comment and is on the site.

>>> format_time(1.2345e-4), format_time(2.2878e-3), format_time(31.2)
('123.4 µs', '2.288 ms', '31.20 s')
>>> format_change(1.065), format_change(0.5), format_change(None)
('+6.5 %', '−50.0 %', '–')
"""

from __future__ import annotations

import dataclasses
import math
import pathlib
from collections.abc import Sequence
from typing import Any

from iconbench.bot import escape
from iconbench.bot.links import Site
from iconbench.bot.target import PullRequest
from iconbench.questions import QUESTIONS
from iconbench.records.kernels import KernelDiff
from iconbench.records.summary import BenchmarkResult as Benchmark
from iconbench.records.summary import Side, Summary
from iconbench.records.summary import SideNumbers as Sample

#: GitHub's maximum comment length (characters).
LIMIT = 65536
TEMPLATE = "comment.md.j2"
#: Stack entries that are no package (the stack key; asv's environment name)
NOT_PACKAGES = frozenset({"key", "env"})


@dataclasses.dataclass(frozen=True)
class Detail:
    """How much of the summary one rendering shows."""

    #: rows of the regressions / improvements tables
    top_rows: int
    #: rows of the folded full table (None: all)
    full_rows: int | None
    #: whether the folded table lists unchanged benchmarks too
    full_unchanged: bool
    #: entries named per note (code generation, inconclusive, failed, new, gone)
    note_items: int
    #: explained benchmarks shown, kernels per benchmark, lines of each code diff (0: none)
    why_items: int = 10
    why_kernels: int = 5
    why_diff_lines: int = 60
    #: timers of the OpenACC section
    openacc_rows: int = 8


LEVELS = (
    Detail(top_rows=50, full_rows=None, full_unchanged=True, note_items=40),
    Detail(top_rows=50, full_rows=None, full_unchanged=False, note_items=40),
    Detail(40, 250, False, 20, why_items=5, why_kernels=5, why_diff_lines=40),
    Detail(25, 100, False, 10, why_items=3, why_kernels=5, why_diff_lines=20, openacc_rows=5),
    Detail(10, 0, False, 5, why_items=2, why_kernels=3, why_diff_lines=0, openacc_rows=3),
)


def format_time(seconds: float | None) -> str:
    """Seconds with a unit that keeps 4 significant digits."""
    if seconds is None or math.isnan(seconds):
        return "–"
    if seconds < 1e-3:
        return f"{seconds * 1e6:.1f} µs"
    if seconds < 1:
        return f"{seconds * 1e3:.3f} ms"
    return f"{seconds:.2f} s"


def format_value(value: float | None, unit: str) -> str:
    """A value in its unit: times as :func:`format_time`, bandwidth in GB/s."""
    if unit == "s":
        return format_time(value)
    if value is None:
        return "–"
    if unit in {"B/s", "bytes/s"}:
        return f"{value / 1e9:,.1f} GB/s"
    return f"{value:.4g} {unit}".strip()


def format_change(ratio: float | None) -> str:
    """``head / base - 1`` as a signed percentage (a real minus sign for decreases)."""
    if ratio is None or math.isnan(ratio):
        return "–"
    change = 100 * (ratio - 1)
    return f"+{change:.1f} %" if change >= 0 else f"−{-change:.1f} %"


def _percent(x: float) -> str:
    return f"{100 * (x - 1):+.1f}".replace("-", "−")


def format_confidence(bench: Benchmark, level: float) -> str:
    """The ratio's interval as changes, and the FDR-adjusted q value."""
    parts = []
    if bench.ratio_ci is not None:
        low, high = bench.ratio_ci
        parts.append(f"{round(100 * level)} % CI {_percent(low)} … {_percent(high)} %")
    if bench.q_value is not None:
        parts.append(f"q = {bench.q_value:.1g}")
    return ", ".join(parts) or "–"


def _side_value(sample: Sample | None, unit: str) -> str:
    if sample is None:
        return "–"
    if sample.error:
        return "failed"
    return format_value(sample.median, unit)


def _link(text: str, url: str | None) -> str:
    """``text`` (already markdown) linked to ``url`` (encoded: it cannot end the link early)."""
    return f"[{text}]({escape.url(url)})" if url else text


def _commit(side: Side, pr: PullRequest) -> str:
    return _link(escape.code(side.short), pr.commit_url(side.commit, side.component or None))


def _stack_entry(name: str, value: str, pr: PullRequest) -> str:
    """A stack component: a released version (link to PyPI) or a commit (link to its repo)."""
    if not value:
        return "–"
    text = str(value)
    if len(text) >= 7 and all(c in "0123456789abcdef" for c in text.lower()):
        return _link(escape.code(text[:7]), pr.commit_url(text, name))
    package = {"icon4py": "icon4py-common"}.get(name, name)
    return _link(escape.text(text), f"https://pypi.org/project/{package}/{text}/")


def _escape(text: str) -> str:
    """Free text, safe in a table cell on one line (:func:`iconbench.bot.escape.text`)."""
    return escape.text(text)


def _row(bench: Benchmark, level: float, site: Site | None) -> dict[str, str]:
    program = escape.code(bench.program)
    if site is not None:
        program = _link(program, site.program(bench.program))
    return {
        "program": program,
        "variant": "" if bench.variant == "default" else escape.code(bench.variant),
        "backend": escape.text(bench.backend),
        "metric": escape.text(bench.metric.replace("_", " ")),
        "base": _side_value(bench.base, bench.unit),
        "head": _side_value(bench.head, bench.unit),
        "change": format_change(bench.ratio)
        + (f" ({bench.threshold_note})" if bench.threshold_note else ""),
        "confidence": format_confidence(bench, level)
        + (f"; A/B {bench.confirmation.describe()}" if bench.confirmation else ""),
        "verdict": "not confirmed" if bench.not_confirmed else bench.verdict,
    }


def _named(benches: Sequence[Benchmark], limit: int, why: bool = False) -> tuple[list[str], int]:
    """``program[variant] (backend)`` for the first ``limit``; the count of the rest."""
    names = []
    for bench in benches[:limit]:
        variant = "" if bench.variant == "default" else f"[{bench.variant}]"
        text = f"{escape.code(bench.program + variant)} ({escape.text(bench.backend)}"
        metric = escape.text(bench.metric.replace("_", " "))
        text += f", {metric})" if bench.metric != "device_time" else ")"
        reason = bench.error or (bench.head.error if bench.head else None) or "; ".join(bench.notes)
        held = bench.confirmation
        if held is not None and not held.confirmed:  # the flag, and what the A/B found instead
            reason = f"{held.flagged} {format_change(bench.ratio)}, A/B {held.describe()}"
        if why and reason:
            text += f": {_escape(reason)[:160]}"
        names.append(text)
    return names, max(0, len(benches) - limit)


def _counted(n: int, word: str) -> str:
    plural = "" if n == 1 or word in {"new", "gone", "failed", "not run"} else "s"
    return f"{n} {word}{plural}"


def verdict_line(summary: Summary) -> str:
    """The one line at the top: what happened, in words, with the counts."""
    counts = summary.counts
    regressions = counts.get("regression", 0)
    improvements = counts.get("improvement", 0)
    # the flagged benchmarks an interleaved A/B did not confirm are named once, as noise
    noise = sum(1 for b in summary.benchmarks if b.not_confirmed)
    counted = dict(counts)
    for bench in summary.benchmarks:
        if bench.not_confirmed and counted.get(bench.verdict):
            counted[bench.verdict] -= 1
    others = [
        _counted(counted[key], key if key != "inconclusive" else "inconclusive result")
        for key in ("inconclusive", "failed", "new", "gone", "not run")
        if counted.get(key)
    ]
    if noise:
        others.append(f"{noise} not confirmed (run-to-run noise)")
    unchanged = counted.get("unchanged", 0)
    tail = ", ".join([f"{unchanged} unchanged", *others])
    if summary.verdict == "error":
        what = summary.error or (
            f"{_counted(counts.get('failed', 0), 'benchmark')} failed"
            if counts.get("failed")
            else "no results"
        )
        return f"⚠️ **The benchmark run failed** ({_escape(what)[:200]}): no verdict on this change"
    if summary.verdict == "not comparable":
        shifts = "; ".join(m.line() for m in summary.machine_shift if not m.comparable)
        return f"⚠️ **Not comparable** ({_escape(shifts)[:300]}): measure again"
    if summary.verdict == "regression":
        return (
            f"❌ **{_counted(regressions, 'regression')}**, "
            f"{_counted(improvements, 'improvement')}, {tail}"
        )
    if improvements:
        return f"✅ **No regression**: {_counted(improvements, 'improvement')}, {tail}"
    return f"✅ **Nothing changed**: no benchmark moved beyond its threshold ({tail})"


def _fenced(text: str) -> str:
    """Generated code made safe inside a markdown code fence."""
    return escape.in_fence(text)


def _kernel_row(change: Any) -> dict[str, str]:
    """One kernel of the why section (a :class:`iconbench.records.kernels.KernelChange`)."""
    from iconbench.gate.kernels import counters

    base, head = change.base, change.head
    if base is None or head is None:
        moved = "new" if base is None else "gone"
    else:
        moved = format_change(change.ratio)
    written = counters(change)
    return {
        "kernel": escape.code(change.kernel),
        "launches": written["count"],
        "block": written["block"],
        "base": format_time(base.device_s if base else None),
        "head": format_time(head.device_s if head else None),
        "change": moved,
        "share": "–" if change.share is None else f"{100 * change.share:.0f} %",
        "dram": written["dram_bytes"],
        "registers": written["registers"],
        "occupancy": written["occupancy"],
    }


def _why(summary: Summary, site: Site | None, detail: Detail) -> dict[str, Any] | None:
    """The "why it changed" section: each kernel table's explanation, its kernels and code.

    Explanations of one program and backend with the same kernels are one table
    (:func:`iconbench.gate.why.kernel_tables`); the others it stands for are listed under it.
    """
    from iconbench.gate.why import kernel_tables

    found = kernel_tables(summary.explanations)
    if not found:
        return None
    benches = {b.id: b for b in summary.benchmarks}
    entries = []
    for table in found[: detail.why_items]:
        why = table.why
        bench = benches.get(why.id)
        case, _, metric = why.id.split("|")
        variant = case.partition("[")[2].rstrip("]")
        program = escape.code(why.program)
        if site is not None:
            program = _link(program, site.program(why.program))
        entry: dict[str, Any] = {
            "program": program,
            "variant": _variant(variant),
            "same": [_also(other, benches) for other in why.same_kernels],
            "alike": [_also(other.id, benches, other.kernels) for other in table.alike],
            "backend": escape.text(why.backend),
            "metric": escape.text(metric.replace("_", " ")),
            "change": format_change(bench.ratio) if bench else "–",
            "verdict": bench.verdict if bench else "",
            "profiler": escape.text(why.profiler),
            "notes": [_escape(n)[:300] for n in why.notes],
            "kernels": None,
            "code": None,
        }
        diff = why.kernels
        if diff is not None:
            counts = [sum(1 for c in diff.changes if getattr(c, side)) for side in ("base", "head")]
            rows = [_kernel_row(c) for c in diff.changes[: detail.why_kernels]]
            entry["kernels"] = {
                "base_s": format_time(diff.base_s),
                "head_s": format_time(diff.head_s),
                "change": format_change(diff.head_s / diff.base_s) if diff.base_s else "–",
                "count_base": counts[0],
                "count_head": counts[1],
                "rows": rows,
                "more": max(0, len(diff.changes) - detail.why_kernels),
            }
        code = why.code
        if code is not None:
            files = len(code.files)
            entry["code"] = {
                "identical": code.identical,
                "fingerprint": escape.one_line(code.base or "").replace("`", ""),
                "files": files,
                "plural": "" if files == 1 else "s",
                "added": sum(f.added for f in code.files),
                "removed": sum(f.removed for f in code.files),
                "names": ", ".join(escape.code(f.path) for f in code.files[:6]),
                "source": escape.text(code.source),
                "excerpt": "\n".join(_fenced(code.excerpt).splitlines()[: detail.why_diff_lines]),
                "cut": code.shown_lines < code.changed_lines
                or len(code.excerpt.splitlines()) > detail.why_diff_lines,
                "renamed": code.renamed_lines,
                "whole": pathlib.PurePath(code.full_diff).name if code.full_diff else "",
            }
        entries.append(entry)
    return {"entries": entries, "more": max(0, len(found) - detail.why_items)}


def _variant(variant: str) -> str:
    """A case's variant as the comment names it (nothing for ``default``)."""
    return "" if variant in ("", "default") else escape.code(variant)


def _also(bench_id: str, benches: dict[str, Benchmark], profiled: KernelDiff | None = None) -> str:
    """Another flagged variant with the same kernels: its variant and change.

    ``profiled``: its own kernel diff, where it was profiled too: its kernel time base → head.
    """
    bench = benches.get(bench_id)
    variant = bench_id.partition("|")[0].partition("[")[2].rstrip("]")
    change = f" {format_change(bench.ratio)}" if bench else ""
    if profiled is not None:
        change += f" (kernel time {format_time(profiled.base_s)} → {format_time(profiled.head_s)})"
    return f"{_variant(variant) or '`default`'}{change}"


def _speedup(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f}x"


def _programs_of(label: str) -> set[str]:
    """The program names of a timer's label (``a[x=1]+b``: ``{"a", "b"}``)."""
    return {part.partition("[")[0] for part in label.split("+")}


def _openacc(summary: Summary, detail: Detail) -> dict[str, Any] | None:
    """The "against OpenACC" section: the selected programs' timers, the estimate, the GPUs.

    Rows are the baseline's timers that time a program this summary measured (the selected
    ones), per backend, largest share of the OpenACC step first; a timer of a selected
    program without a speed-up says which of its programs is missing, and why.
    """
    acc = summary.openacc
    if acc is None or acc.head is None:
        note = _escape(summary.openacc_note)
        return {"note": note[:1].upper() + note[1:]} if note else None
    base_side = acc.base or acc.head
    measured = {b.program for b in summary.benchmarks}
    before = {(p.program, p.backend, p.timer): p for p in base_side.programs}
    scale = acc.gpu.get("bandwidth_scale")
    chosen = [p for p in acc.head.programs if _programs_of(p.program) & measured]
    chosen.sort(key=lambda p: (-p.share, p.timer, p.backend))
    compared = [p for p in chosen if p.speedup is not None]
    rows = []
    for p in compared[: detail.openacc_rows]:
        old = before.get((p.program, p.backend, p.timer))
        names = [escape.code(n) for n in p.program.split("+")]
        scaled = ""
        if old is not None and (old.speedup_scaled or p.speedup_scaled):
            scaled = f"{_speedup(old.speedup_scaled)} → {_speedup(p.speedup_scaled)}"
        rows.append(
            {
                "program": " + ".join(names),
                "timer": escape.code(p.timer) if p.timer != p.program else "",
                "backend": escape.text(p.backend),
                "share": f"{100 * p.share:.1f} %",
                "openacc": format_time(p.openacc_s),
                "base": format_time(old.gt4py_s if old else None),
                "head": format_time(p.gt4py_s),
                "speedup_base": _speedup(old.speedup if old else None),
                "speedup_head": _speedup(p.speedup),
                "scaled": scaled,
            }
        )
    # timers of the selected programs without a speed-up, by why: one line each
    missing: dict[str, dict[str, None]] = {}
    for p in chosen:
        if p.speedup is None and p.status == "not measured":
            if any(_programs_of(m) & measured for m in p.missing):
                why, name = "measured in other variants than ICON runs", escape.code(p.timer)
            else:
                needs = ", ".join(escape.code(m) for m in p.missing)
                why, name = "not measured here", f"{escape.code(p.timer)} (needs {needs})"
            missing.setdefault(why, {})[name] = None
    estimates = []
    for backend in sorted(acc.head.integrate_nh):
        new = acc.head.integrate_nh[backend]
        old = base_side.integrate_nh.get(backend)
        old_scaled = base_side.integrate_nh_scaled.get(backend)
        new_scaled = acc.head.integrate_nh_scaled.get(backend)
        estimates.append(
            {
                "backend": escape.text(backend),
                "coverage": f"{100 * acc.head.coverage[backend]:.1f} %"
                if backend in acc.head.coverage
                else "–",
                "base": _speedup(old),
                "head": _speedup(new),
                "change": format_change(new / old) if old else "–",
                "scaled": f"{_speedup(old_scaled)} → {_speedup(new_scaled)}"
                if new_scaled is not None
                else "",
            }
        )
    scaled = any(r["scaled"] for r in rows) or any(e["scaled"] for e in estimates)
    gpu = acc.gpu
    gpu_note = ""
    if gpu.get("baseline") and gpu.get("measured") and gpu["baseline"] != gpu["measured"]:
        gpu_note = (
            f"OpenACC ran on {gpu['baseline']}, GT4Py on {gpu['measured']}: speed-ups as measured"
        )
        if scale:
            how = (
                f"for the {gpu['baseline']} by memory bandwidth (GT4Py times × {scale:.2f}: "
                f"{gpu.get('scale_source', '')}), an estimate"
            )
            gpu_note += f"; the last column restates them {how}" if scaled else f"; restated {how}"
        else:
            gpu_note += f" (no bandwidth known to restate them for the {gpu['baseline']})"
    return {
        "baseline": acc.baseline,
        "experiment": acc.experiment,
        "estimates": estimates,
        "programs": rows,
        "more": max(0, len(compared) - detail.openacc_rows),
        "scaled": scaled,
        "gpu_note": gpu_note,
        "forced": [_escape(f) for f in acc.forced if not f.startswith("GPU ")],
        "missing": [
            f"{len(timers)} timer{'s' if len(timers) > 1 else ''} of the measured programs "
            f"({why}): {', '.join(list(timers)[: detail.openacc_rows])}"
            + (
                f" and {len(timers) - detail.openacc_rows} more"
                if len(timers) > detail.openacc_rows
                else ""
            )
            for why, timers in missing.items()
        ],
        "note": "",
    }


def _stacks(summary: Summary, pr: PullRequest) -> str:
    """The two stacks in a few words: the same, or what differs (the folded table has all)."""
    names = sorted(
        {k for s in (summary.base, summary.head) for k in s.stack if k not in NOT_PACKAGES}
    )
    differ = [
        f"{escape.text(name)} {_stack_entry(name, summary.base.stack.get(name, ''), pr)} → "
        f"{_stack_entry(name, summary.head.stack.get(name, ''), pr)}"
        for name in names
        if summary.base.stack.get(name) != summary.head.stack.get(name)
    ]
    if differ:
        return "; ".join(differ)
    shown = [
        f"{n} {escape.text(summary.head.stack[n])}"
        for n in ("gt4py", "dace")
        if n in summary.head.stack
    ]
    return "the same on both sides" + (f" ({', '.join(shown)}, …)" if shown else "")


def context(
    summary: Summary,
    pr: PullRequest,
    site: Site | None,
    detail: Detail,
    *,
    marker: str,
    head_now: str | None = None,
) -> dict[str, Any]:
    """Everything the template shows, as strings, at one level of detail."""
    level = summary.settings.confidence
    by_verdict: dict[str, list[Benchmark]] = {}
    for bench in summary.benchmarks:
        by_verdict.setdefault(bench.verdict, []).append(bench)
    # the tables hold what the verdict counts: a change of a metric the gate does not gate
    # (compile time: a build found in one side's cache loads in a second) is a note
    gated = [b for b in summary.benchmarks if b.gated]
    regressions = sorted(
        (b for b in gated if b.verdict == "regression"), key=lambda b: -(b.ratio or 0)
    )
    improvements = sorted(
        (b for b in gated if b.verdict == "improvement"), key=lambda b: b.ratio or 0
    )
    ungated = [b for b in summary.benchmarks
               if not b.gated and b.verdict in ("regression", "improvement")]  # fmt: skip
    metrics = {b.metric for b in regressions + improvements}
    codegen = [b for b in summary.benchmarks if b.codegen_changed]
    notes = []
    for key, title, benches, why in (
        ("codegen", "Code generation changed", codegen, False),
        ("ungated", "Changed, not gated (reported only)", ungated, False),
        (
            "not_confirmed",
            "Not confirmed by an interleaved A/B (run-to-run noise)",
            [b for b in summary.benchmarks if b.not_confirmed],
            True,
        ),
        (
            "inconclusive",
            "Inconclusive (too noisy to decide)",
            [b for b in by_verdict.get("inconclusive", []) if not b.not_confirmed],
            True,
        ),
        ("failed", "Failed", by_verdict.get("failed", []), True),
        ("new", "New (no base)", by_verdict.get("new", []), False),
        ("gone", "Gone (no head)", by_verdict.get("gone", []), False),
    ):
        if benches:
            names, more = _named(benches, detail.note_items, why)
            notes.append(
                {"key": key, "title": title, "n": len(benches), "names": names, "more": more}
            )
    full = [
        b
        for b in summary.benchmarks
        if detail.full_unchanged or b.verdict not in ("unchanged", "not run")
    ]
    order = {
        v: i
        for i, v in enumerate(
            ("regression", "failed", "improvement", "inconclusive", "new", "gone", "unchanged")
        )
    }
    full.sort(key=lambda b: (order.get(b.verdict, 9), b.program, b.variant, b.backend, b.metric))
    shown_full = full if detail.full_rows is None else full[: detail.full_rows]
    thresholds = summary.settings.thresholds
    return {
        "marker": marker,
        "grid": escape.one_line(summary.grid_name).replace("`", ""),
        "verdict_line": verdict_line(summary),
        "machine_shift": [_escape(m.line()) for m in summary.machine_shift],
        "pr": pr,
        "sides": [
            {
                "name": name,
                "label": _escape(side.label or side.short),
                "commit": _commit(side, pr),
                "component": escape.text(side.component),
                "stack": {
                    escape.text(k): _stack_entry(k, v, pr)
                    for k, v in side.stack.items()
                    if k not in NOT_PACKAGES
                },
                "key": escape.text(side.stack.get("key", "")),
                "machine": _escape(side.device or "–"),
                "date": escape.text((side.date or "")[:16].replace("T", " ")),
            }
            for name, side in (("base", summary.base), ("head", summary.head))
        ],
        "components": sorted(
            {k for s in (summary.base, summary.head) for k in s.stack if k not in NOT_PACKAGES}
        ),
        # only when both are commits of the pull request's repository: "the head is now X;
        # these numbers are for Y" is false of a gt4py commit measured for an icon4py change
        "head_moved": head_now
        if head_now
        and pr.holds(summary.head.component)
        and not head_now.startswith(summary.head.commit)
        else None,
        "head_now_url": pr.commit_url(head_now) if head_now else None,
        "head_short": escape.one_line(summary.head.short).replace("`", ""),
        "show_metric": len(metrics) > 1 or metrics - {"device_time"},
        "regressions": [_row(b, level, site) for b in regressions[: detail.top_rows]],
        "regressions_more": max(0, len(regressions) - detail.top_rows),
        "improvements": [_row(b, level, site) for b in improvements[: detail.top_rows]],
        "improvements_more": max(0, len(improvements) - detail.top_rows),
        "openacc": _openacc(summary, detail),
        "stacks": _stacks(summary, pr),
        "why": _why(summary, site, detail),
        "bisect": [
            {
                "benchmark": _escape(b.id.replace("|", " ")),
                "commit": _link(escape.code(b.first_bad[:7]), b.url or None),
                "subject": _escape(b.subject),
                "repository": escape.text(b.repository or b.component),
                "change": format_change(b.ratio),
                "commits": b.commits,
            }
            for b in summary.bisect
        ],
        "notes": notes,
        "full": [_row(b, level, site) for b in shown_full],
        "full_total": len(summary.benchmarks),
        "full_hidden_unchanged": 0
        if detail.full_unchanged
        else len(by_verdict.get("unchanged", [])),
        "full_more": len(full) - len(shown_full),
        "settings": {
            "fdr": summary.settings.fdr,
            "confidence": level,
            "thresholds": ", ".join(
                f"{k.replace('_', ' ')} {100 * v:.0f} %" for k, v in thresholds.items()
            ),
        },
        "site": site,
        "report_url": site.report(summary.base.commit, summary.head.commit) if site else None,
        "questions": [
            {"text": q.text, "url": site.answer(q) if site else q.on_github} for q in QUESTIONS
        ],
        "nothing_changed": summary.verdict == "pass" and not regressions and not improvements,
    }


def render(
    summary: Summary,
    pr: PullRequest,
    site: Site | None = None,
    *,
    marker: str = "",
    head_now: str | None = None,
    limit: int = LIMIT,
) -> str:
    """The comment body: the most detailed form that stays under ``limit`` characters."""
    from iconbench.timing.report import render as render_template

    body = ""
    for detail in LEVELS:
        body = (
            render_template(
                TEMPLATE, context(summary, pr, site, detail, marker=marker, head_now=head_now)
            ).strip()
            + "\n"
        )
        if len(body) <= limit:
            return body
    cut = body[: limit - 200].rsplit("\n", 1)[0]
    if cut.count("<details>") > cut.count("</details>"):
        cut += "\n\n</details>"
    return cut + "\n\n… (cut to GitHub's comment limit; the full report is on the site)\n"
