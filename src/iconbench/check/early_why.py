"""The why of a check's flagged GPU benchmarks, while its longest builds still compile.

A check that measures while it compiles (:mod:`iconbench.check.rounds`) has measured the
cases whose builds are done long before its last build ends: with main's builds, icon4py
#1405's gtfn_gpu cases about 110 s into the check on an H200, its last dace_gpu build at about
175 s. The why (Nsight Compute on both sides, 12-18 s) came after the gate. Here the rounds'
driver calls :class:`EarlyWhy` while every device waits for builds: the gate is asked what
the cases measured in every round so far say, and a program flagged on a GPU backend, once
all its cases of that backend are measured, is explained then, with the device otherwise
idle. After the gate the check keeps the explanations of the benchmarks it still flags
(:meth:`EarlyWhy.kept`) and explains only the others.
"""

from __future__ import annotations

import contextlib
import dataclasses
import pathlib
import time
from collections.abc import Callable, Collection

from iconbench.grids.grid import Grid
from iconbench.records.summary import Summary, Why
from iconbench.runner.progress import log
from iconbench.stacks.sides import Side

Job = tuple[str, str]


@dataclasses.dataclass
class EarlyWhy:
    """Explains, between turns, what the gate flags among the cases measured so far."""

    base: Side
    head: Side
    grid: Grid
    work: pathlib.Path
    #: every (case, backend) the check measures
    jobs: Collection[Job]
    found: list[Why] = dataclasses.field(default_factory=list)
    _judged: frozenset[Job] = frozenset()

    def __call__(
        self, measured: frozenset[Job], quiet: Callable[[], contextlib.AbstractContextManager]
    ) -> bool:
        """Explain the flagged programs all of whose cases are in ``measured``; whether it did.

        ``measured``: the cases every round started so far has measured. ``quiet``: holds
        the devices (no worker loads or measures) while the profiles run.
        """
        from iconbench.explain.run import MAX_BENCHMARKS, explain, explained, flagged

        if measured <= self._judged or len(self.found) >= MAX_BENCHMARKS:
            return False
        self._judged = measured
        summary = self._verdict(measured)
        done = explained(self.found)
        ready = [
            bench
            for bench in flagged(summary, len(summary.benchmarks))
            if bench.id not in done and self._all_measured(bench.program, bench.backend, measured)
        ]
        if not ready:
            return False
        t0 = time.perf_counter()
        with quiet():
            answered = explain(
                dataclasses.replace(summary, benchmarks=tuple(ready), why=()),
                self.base,
                self.head,
                work=self.work,
                grid=self.grid,
                limit=MAX_BENCHMARKS - len(self.found),
            )
        self.found += answered.why
        log(f"check: {len(answered.why)} flagged benchmark(s) explained while the builds "
            f"compile ({time.perf_counter() - t0:.1f}s)")  # fmt: skip
        return True

    def kept(self, summary: Summary) -> Summary:
        """``summary`` (the gate's) with the explanations of the benchmarks it still flags.

        An explanation whose benchmark the gate no longer flags is dropped (the check explains
        what it flags then); the variants it names as launching the same kernels are those
        still flagged.
        """
        from iconbench.explain.run import flagged

        still = {bench.id for bench in flagged(summary, len(summary.benchmarks))}
        kept = [
            dataclasses.replace(why, same_kernels=tuple(i for i in why.same_kernels if i in still))
            for why in self.found
            if why.id in still
        ]
        return dataclasses.replace(summary, why=(*summary.why, *kept)) if kept else summary

    def _all_measured(self, program: str, backend: str, measured: frozenset[Job]) -> bool:
        """Whether every case of ``program`` on ``backend`` is measured.

        Its variants are profiled together where their kernels are alike
        (:func:`iconbench.explain.run.together`): not one by one as each is measured.
        """
        return all(
            (case, b) in measured
            for case, b in self.jobs
            if b == backend and case.split("[")[0] == program
        )

    def _verdict(self, measured: frozenset[Job]) -> Summary:
        """The gate's verdict on the ledgers' cases in ``measured``."""
        from iconbench.check.stopping import ledger_verdict

        summary = ledger_verdict(self.base, self.head, self.grid)
        return dataclasses.replace(
            summary, benchmarks=tuple(b for b in summary.benchmarks if b.job in measured)
        )
