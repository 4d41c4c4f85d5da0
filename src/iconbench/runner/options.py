"""What one ``iconbench suite`` call is asked to do, resolved once."""

from __future__ import annotations

import dataclasses
import pathlib
from typing import Any


@dataclasses.dataclass(frozen=True)
class RunOptions:
    """The options every step reads (``iconbench suite --help`` documents each)."""

    out: pathlib.Path
    backends: tuple[str, ...]
    grid: str
    compile_grid: str
    programs: str
    shard: str
    stack: str
    processes: int
    build_jobs: int
    budget: float | None
    samples: int
    max_s: float
    warmup_s: float
    crosscheck: int
    retry_failed: bool
    remeasure_cv_above: float | None
    one_variant: bool
    compiled_only: bool
    machine: str
    provenance: pathlib.Path | None
    case: str
    ncu_calls: int
    #: the ICON experiment (iconbench.baselines.experiments.Experiment) whose variants run
    experiment: Any = None
    worker_jobs: pathlib.Path | None = None
    inflight: pathlib.Path | None = None
    #: the command line a measure worker is started with (this call's, step replaced)
    worker_argv: tuple[str, ...] = ()
    #: an interleaved check's worker: its name (``r03-head``); it measures every job again
    round_name: str = ""
    #: an interleaved check's worker waits, set up, until this file exists (its turn)
    turn: pathlib.Path | None = None
    #: the cores an interleaved check's worker measures on (empty: not pinned)
    measure_cores: tuple[int, ...] = ()
    #: calls measured with gt4py's own instrumentation after the samples (its cross-check)
    gt4py_calls: int = 10
    #: the commit the asv results are for ("": iconbench's own checkout)
    commit: str = ""
    #: ``sources``: where the generated code of ``case`` is written
    sources_dir: pathlib.Path | None = None

    @property
    def work(self) -> pathlib.Path:
        """The ledgers' directory (``OUT/work``)."""
        return self.out / "work"
