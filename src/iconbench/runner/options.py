"""What one run of the runner is asked to do, resolved once at the command line."""

from __future__ import annotations

import dataclasses
import pathlib
from typing import Any

from iconbench.grids.grid import Grid
from iconbench.programs.backends import Backend
from iconbench.runner.devices import ONE, Devices


@dataclasses.dataclass(frozen=True)
class RunOptions:
    """The options every step reads (``iconbench suite --help`` documents each).

    ``iconbench suite``, ``run``, ``demo`` and the asv suite's ``setup_cache`` build one of
    these and hand it to the same steps; the defaults are ``iconbench suite``'s.
    """

    out: pathlib.Path
    #: the backends measured, resolved once at the command line (``programs.backends.backend``)
    backends: tuple[Backend, ...]
    #: the grid measured on, resolved once at the command line (``iconbench.grids.resolve``)
    grid: Grid
    stack: str
    #: the grid the compile workers take static arguments from (``None``: ``grid``)
    compile_grid: Grid | None = None
    programs: str = ""
    shard: str = ""
    processes: int = 1
    build_jobs: int = 1
    #: link the build folders of the runner's other stacks into this stack's cache before
    #: precompiling (``ICONBENCH_SHARED_BUILD_CACHE=1``, :mod:`iconbench.stacks.shared_builds`)
    shared_builds: bool = False
    #: precompile the shortest compiles first: a second precompile into the same build cache
    #: (a check's head beside its base) then meets the first in the middle
    shortest_first: bool = False
    budget: float | None = None
    samples: int = 100
    max_s: float = 5.0
    warmup_s: float = 0.5
    #: the warm-up of a GPU case measured right after another in one process (None: ``warmup_s``)
    warmup_next_s: float | None = None
    #: stop sampling a case once its median is known to this relative precision (None: never)
    precision: float | None = None
    crosscheck: int = 3
    retry_failed: bool = False
    remeasure_cv_above: float | None = None
    one_variant: bool = False
    compiled_only: bool = False
    machine: str = "machine"
    provenance: pathlib.Path | None = None
    case: str = ""
    ncu_calls: int = 3
    #: the ICON experiment (iconbench.baselines.experiments.Experiment) whose variants run
    experiment: Any = None
    worker_jobs: pathlib.Path | None = None
    inflight: pathlib.Path | None = None
    #: an interleaved check's worker: its name (``r03-head``); it measures every job again
    round_name: str = ""
    #: an interleaved check's worker waits, set up, until this file exists (its turn)
    turn: pathlib.Path | None = None
    #: an interleaved check's first workers start during its precompile, which ends when this
    #: file exists: until then they load only the programs whose builds the compile index has
    load_after: pathlib.Path | None = None
    #: while this file exists a worker on the device measures: an interleaved check's worker
    #: loads nothing then (:func:`iconbench.runner.turn.quietly`)
    hold_loads: pathlib.Path | None = None
    #: the cores an interleaved check's worker measures on (empty: not pinned)
    measure_cores: tuple[int, ...] = ()
    #: the cores an interleaved check's worker starts up and waits on (empty: not pinned)
    startup_cores: tuple[int, ...] = ()
    #: cases a measuring worker takes while the next worker loads its own (0: one worker
    #: loads and measures a device's cases, one after the other; :mod:`.load_ahead`)
    load_ahead: int = 0
    #: the devices the measure step spreads the cases over, one worker on each at a time
    devices: Devices = ONE
    #: a measure worker's device, as recorded in the ledger ("": the one a process finds)
    device: str = ""
    #: calls measured with gt4py's own instrumentation after the samples (its cross-check)
    gt4py_calls: int = 10
    #: the commit the asv results are for ("": iconbench's own checkout)
    commit: str = ""
    #: ``sources``: where the generated code of ``case`` is written
    sources_dir: pathlib.Path | None = None
    #: run without PYTHONOPTIMIZE (recorded in every measurement)
    no_optimize: bool = False
    #: a runner's ``work/`` whose ledgers balance the shards by time (None: by count)
    shard_ledgers: pathlib.Path | None = None
    #: the source roots put first on the path (a check's side; empty: the environment's), and
    #: their code identity ("": computed): what the compile index keys their builds by
    sources: tuple[pathlib.Path, ...] = ()
    sources_identity: str = ""
    #: precompile: take the builds the compile index knows from it instead of loading them
    compile_index: bool = True

    def __post_init__(self) -> None:
        if self.compile_grid is None:
            object.__setattr__(self, "compile_grid", self.grid)

    @property
    def work(self) -> pathlib.Path:
        """The ledgers' directory (``OUT/work``)."""
        return self.out / "work"

    @property
    def backend_names(self) -> tuple[str, ...]:
        """The names of :attr:`backends`: the ledgers' and result files' spelling."""
        return tuple(b.name for b in self.backends)

    @property
    def worker_argv(self) -> tuple[str, ...]:
        """The ``iconbench suite`` arguments of a measure worker of this run.

        The grid goes as its command-line form (:attr:`iconbench.grids.Grid.argv`), which the
        worker's command line resolves back into the same grid.

        >>> from iconbench.grids import resolve
        >>> from iconbench.programs.backends import backend
        >>> options = RunOptions(pathlib.Path("o"), (backend("gtfn_cpu"),), resolve(cells=900), "s")
        >>> options.worker_argv[:9]
        ('measure', '--out', 'o', '--backends', 'gtfn_cpu', '--cells', '900', '--stack', 's')
        """
        argv = ["measure", "--out", str(self.out), "--backends", ",".join(self.backend_names),
                *self.grid.argv, "--stack", self.stack, "--samples", str(self.samples),
                "--max-s", str(self.max_s), "--warmup-s", str(self.warmup_s),
                "--gt4py-calls", str(self.gt4py_calls)]  # fmt: skip
        compile_grid = self.compile_grid or self.grid
        for flag, value in (("--programs", self.programs), ("--shard", self.shard),
                            ("--compile-grid", compile_grid.name if compile_grid != self.grid
                             else ""),
                            ("--experiment", self.experiment.name if self.experiment else ""),
                            ("--remeasure-cv-above", self.remeasure_cv_above),
                            ("--precision", self.precision),
                            ("--shard-ledgers", self.shard_ledgers)):  # fmt: skip
            if value:
                argv += [flag, str(value)]
        for flag, on in (("--one-variant", self.one_variant), ("--no-optimize", self.no_optimize),
                         ("--compiled-only", self.compiled_only)):  # fmt: skip
            if on:
                argv.append(flag)
        return tuple(argv)
