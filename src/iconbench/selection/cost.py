"""What a run costs on one GPU host, from the runner's own ledgers.

Compile seconds per (case, backend) come from ``work/compile.jsonl`` (the longest known
compile; an unknown variant takes its program's, an unknown program the median), measuring
seconds per case from ``work/session.jsonl`` (the last measurement's wall time: setup, warm-up
and samples). Compiles run in ``processes`` parallel workers, longest first
(:func:`iconbench.timing.compilation.makespan`); cases are measured one after the other. Not
counted: building the Python environments of the stacks, and generating the grid once per
measure worker (6-8 s on the H100 for ``ch1_medium``, in results/h100/work/log-*.txt).
"""

from __future__ import annotations

import dataclasses
import statistics
from collections.abc import Sequence

from iconbench.records import session
from iconbench.records.compilation import CompileLedger
from iconbench.timing import compilation

Pair = tuple[str, str]


@dataclasses.dataclass(frozen=True)
class Estimate:
    """Expected wall time of compiling and measuring some pairs."""

    compiled: int
    measured: int
    compile_s: float
    measure_s: float

    @property
    def total_s(self) -> float:
        return self.compile_s + self.measure_s


@dataclasses.dataclass(frozen=True)
class CostModel:
    """Expected seconds per pair, read once from the ledgers."""

    measure_seconds: dict[Pair, float]
    default_measure_s: float
    expect_compile: object  # (case, backend) -> seconds

    @classmethod
    def from_ledgers(cls, work: str) -> CostModel:
        """The model of the ledgers in ``work`` (``compile.jsonl``, ``session.jsonl``)."""
        import pathlib

        compile_ledger = CompileLedger(pathlib.Path(work) / "compile.jsonl")
        measured = session.SessionLedger(pathlib.Path(work) / "session.jsonl").durations()
        default = statistics.median(measured.values()) if measured else 0.0
        return cls(measured, default, compile_ledger.expected_seconds())

    def estimate(
        self, to_compile: Sequence[Pair], to_measure: Sequence[Pair], processes: int
    ) -> Estimate:
        """Compiling ``to_compile`` on ``processes`` workers, then measuring ``to_measure``."""
        compile_s = compilation.makespan(
            [self.expect_compile(*pair) for pair in to_compile], processes
        )
        measure_s = sum(self.measure_seconds.get(p, self.default_measure_s) for p in to_measure)
        return Estimate(len(to_compile), len(to_measure), compile_s, measure_s)
