"""What ``iconbench continuous`` prints: the gate's verdict in a developer's words.

A gt4py, dace or icon4py developer asks "is my branch slower than main?": the answer names
both branches and their commits, calls each metric what it is on the backend that measured
it (a CPU backend has no device: its time is the time per call), says the statistics in
plain words with the page of the docs that explains them, and leaves out what does not
apply (an OpenACC comparison on a grid no ICON experiment runs on). The gate's summary
itself (``gate-summary.json``) is unchanged: the words are the presentation's.
"""

from __future__ import annotations

import dataclasses
import re

from iconbench.buildcache import REPO_ROOT
from iconbench.questions import Q_VALUE
from iconbench.records.summary import Summary

#: Where the verdict, its interval and its q-value are explained (the page the comment and the
#: site link to: :mod:`iconbench.questions`).
EXPLAINED = REPO_ROOT / "docs" / f"{Q_VALUE.page}.md"
#: The gate's note on a comparison of processes, and how a developer reads it.
PROCESSES = re.compile(r"^(\d+)\+(\d+) processes: the spread between them counts$")


def metric_words(backend: str, metric: str) -> str:
    """A metric as a developer of ``backend`` calls it.

    >>> metric_words("embedded", "device_time"), metric_words("gtfn_gpu", "device_time")
    ('time per call', 'device time per call')
    >>> metric_words("gtfn_cpu", "host_overhead")
    'host overhead per call'
    """
    from iconbench.programs.backends import on_gpu

    if metric == "device_time":
        return "device time per call" if on_gpu(backend) else "time per call"
    if metric == "host_overhead":
        return "host overhead per call"
    return metric.replace("_", " ")


def plain_note(note: str) -> str:
    """A gate note in plain words (the processes' one; the others read as they are).

    >>> plain_note("4+4 processes: the spread between them counts")[:55]
    'measured in 4 fresh processes per commit, alternating; '
    """
    found = PROCESSES.match(note)
    if not found:
        return note
    each = found[1] if found[1] == found[2] else f"{found[1]} and {found[2]}"
    return (
        f"measured in {each} fresh processes per commit, alternating; the differences "
        "between processes count as noise"
    )


def header(component: str, base: tuple[str, str], head: tuple[str, str]) -> str:
    """``gt4py: main (b6b8ac1a0033) → slow (0c1d2e3f4a5b)``: both branches and their commits.

    >>> header("gt4py", ("main", "b6b8ac1a0033ff"), ("slow", "0c1d2e3f4a5b99"))
    'gt4py: main (b6b8ac1a0033) → slow (0c1d2e3f4a5b)'
    """
    return f"{component}: {base[0]} ({base[1][:12]}) → {head[0]} ({head[1][:12]})"


def for_developer(summary: Summary, base_ref: str, head_ref: str) -> Summary:
    """The summary as the table shows it: sides named by their branch, metrics by backend."""
    benchmarks = tuple(
        dataclasses.replace(
            b, metric=metric_words(b.backend, b.metric), notes=tuple(map(plain_note, b.notes))
        )
        for b in summary.benchmarks
    )
    note = "" if summary.openacc_note.startswith("no ICON experiment ran") else summary.openacc_note
    named = {metric_words(b.backend, "device_time") for b in summary.benchmarks}
    thresholds = {
        (named.pop() if m == "device_time" and len(named) == 1 else m.replace("_", " ")): t
        for m, t in summary.settings.thresholds.items()
    }
    return dataclasses.replace(
        summary,
        settings=dataclasses.replace(summary.settings, thresholds=thresholds),
        base=dataclasses.replace(summary.base, label=base_ref),
        head=dataclasses.replace(summary.head, label=head_ref),
        benchmarks=benchmarks,
        openacc_note=note,
    )


def render(summary: Summary, base_ref: str, head_ref: str, component: str) -> str:
    """The header, the gate's table in a developer's words, and how to read it."""
    from iconbench.gate import table

    shown = for_developer(summary, base_ref, head_ref)
    return "\n".join([
        header(component, (base_ref, summary.base.commit), (head_ref, summary.head.commit)),
        table.render(shown),
        "",
        "How to read it: ratio is head's time over base's (above 1: head is slower); the "
        "interval in brackets holds the true ratio with 95 % confidence; q is the chance that "
        "a change this large is noise, corrected for the number of benchmarks compared. A "
        "change counts once it is beyond half the threshold with q under the false discovery "
        f"rate: {EXPLAINED} ('{Q_VALUE.text}').",
    ])  # fmt: skip


def identical(component: str, base: tuple[str, str], head: tuple[str, str]) -> str:
    """The one line for two commits whose sources do the same (their code identity is one).

    >>> identical("gt4py", ("main", "b6b8ac1a0033ff"), ("same", "0c1d2e3f4a5b99"))[:77]
    'gt4py: main (b6b8ac1a0033) → same (0c1d2e3f4a5b): the same code on both sides'
    """
    return (
        f"{header(component, base, head)}: the same code on both sides (the sources differ "
        "in comments or layout at most): nothing to measure"
    )
