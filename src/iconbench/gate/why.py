"""Why a flagged GPU benchmark changed: its kernels and its generated code, base against head.

A regression or improvement on a GPU backend says how much; :mod:`iconbench.explain`, run
after the verdict, says where: a profiler pass over each side's program call (the
per-kernel diff, :class:`iconbench.records.kernels.KernelDiff`) and the diff of the generated
source between the two builds (:class:`~iconbench.records.summary.CodeDiff`). One
:class:`~iconbench.records.summary.Why` per flagged (case,
backend) goes into the gate summary's ``why`` key, which the table, the PR comment and the
site's program page show. What could not be had (no profiler on the runner, a side that did
not build) is one line in ``notes``, never a failed run.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from iconbench.gate.durations import seconds
from iconbench.gate.kernels import structure
from iconbench.records.summary import Why


@dataclasses.dataclass(frozen=True)
class KernelTable:
    """One kernel table of a why section: an explanation and the others it stands for.

    ``alike`` are explanations of the same program, backend and metric, each profiled, whose
    kernels are the same by name, launches and block on both sides
    (:func:`iconbench.gate.kernels.structure`): a summary explained variant by variant (as
    before variants were grouped by their generated code) shows one table for them, and
    each of the others with its own kernel time.
    """

    why: Why
    alike: tuple[Why, ...] = ()


def kernel_tables(whys: Sequence[Why]) -> list[KernelTable]:
    """``whys`` as the tables to show: each with the later ones whose kernels are the same.

    The order is ``whys``'s (the largest change first); an entry without a profile is a
    table of its own.

    >>> from iconbench.gate.kernels import diff
    >>> from iconbench.records.kernels import KernelRecord
    >>> def why(variant, head_s, extra=()):
    ...     bench = f"p[{variant}]|gtfn_gpu|device_time"
    ...     k = diff(bench, [KernelRecord("kernel#1", 1, 1e-4)],
    ...              [KernelRecord("kernel#1", 1, head_s), *extra])
    ...     return Why(bench, "p", "gtfn_gpu", k)
    >>> found = kernel_tables([why("a", 1.3e-4), why("b", 1.2e-4),
    ...                        why("c", 1.1e-4, [KernelRecord("kernel#2", 1, 1e-5)])])
    >>> [(t.why.case, [w.case for w in t.alike]) for t in found]
    [('p[a]', ['p[b]']), ('p[c]', [])]
    """
    tables: list[KernelTable] = []
    lead: dict[tuple[object, ...], int] = {}
    for why in whys:
        if why.kernels is None:
            tables.append(KernelTable(why))
            continue
        key = (why.program, why.backend, why.metric, structure(why.kernels))
        if key in lead:
            first = tables[lead[key]]
            tables[lead[key]] = dataclasses.replace(first, alike=(*first.alike, why))
        else:
            lead[key] = len(tables)
            tables.append(KernelTable(why))
    return tables


def render(
    why: Why, *, kernel_limit: int = 10, diff_lines: int = 40, alike: Sequence[Why] = ()
) -> str:
    """The text form under the gate's table: the kernel table, then the code diff.

    ``alike``: the explanations this table stands for (:class:`KernelTable`), one line.
    """
    from iconbench.gate import kernels

    if why.kernels is not None:
        lines = kernels.render(why.kernels, limit=kernel_limit).split("\n")
    else:
        lines = [f"why {why.id}: no kernel profile"]
    lines += [f"  {note}" for note in why.notes]
    if why.same_kernels:
        lines.append("  the same kernels (not profiled again): " + ", ".join(why.same_kernels))
    if alike:
        lines.append(
            "  the same kernels, profiled too: "
            + ", ".join(f"{other.id} {_kernel_time(other)}" for other in alike)
        )
    code = why.code
    if code is not None and code.identical:
        renamed = f", but for {code.renamed_lines} lines of renumbered names" * bool(
            code.renamed_lines
        )
        lines.append(f"  generated code identical ({code.base or '-'}{renamed})")
    elif code is not None:
        files = ", ".join(f"{f.path} +{f.added} -{f.removed}" for f in code.files)
        lines.append(f"  generated code {code.base or '-'} -> {code.head or '-'}: {files}")
        excerpt = code.excerpt.splitlines()
        lines += ["    " + line for line in excerpt[:diff_lines]]
        if len(excerpt) > diff_lines or code.shown_lines < code.changed_lines:
            where = code.full_diff or "the summary"
            lines.append(f"    ({code.changed_lines} changed lines in all; {where} keeps more)")
    return "\n".join(lines)


def _kernel_time(why: Why) -> str:
    """``527.3us -> 643.8us`` of an explanation's profile."""
    diff = why.kernels
    return "" if diff is None else f"{seconds(diff.base_s)} -> {seconds(diff.head_s)}"
