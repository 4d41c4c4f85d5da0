"""Verifying backends: each against the embedded backend, compiled first by the runner's driver.

:func:`verify` is what ``iconbench verify`` does after its command line is checked: the
selected cases (and the compiled references of those embedded cannot run) compiled with the
one precompile driver (:func:`iconbench.runner.precompile.compile_pairs`), then each case's
outputs compared (:mod:`iconbench.verification`), the table printed and written.

The runner's ``verify`` step (:func:`run`) does the same before measuring, so that a wrong
result is found before its time is recorded; on ``tiny_lam`` (limited-area zones included)
it takes seconds per case once compiled. Reports go to ``OUT/verify-<backend>-tiny_lam.md``
(and ``.json``).
"""

from __future__ import annotations

import pathlib
import sys
import tempfile
from collections.abc import Sequence

from iconbench.errors import IconbenchError
from iconbench.runner.options import RunOptions
from iconbench.runner.progress import log

GRID = "tiny_lam"


def verify(
    backends: Sequence[str],
    grid: str,
    *,
    stack: str,
    processes: int,
    programs: str | None = None,
    seed: int = 0,
    one_variant: bool = False,
    shard: tuple[int, int] | None = None,
    precompile: bool = True,
    out: pathlib.Path | None = None,
) -> int:
    """Verify the selected cases of ``backends`` on ``grid``; 0 when every case agrees, else 1.

    ``precompile``: compile in ``processes`` first, then verify in as many; without it each
    case compiles on its first call, in this process. The table's lines go to stdout; with
    ``out`` the table (``out``) and its data (``.json``) are written, and the compiles'
    ledger beside them (``.compiles.jsonl``).
    """
    from iconbench import verification

    if precompile:
        _precompile(backends, grid, stack=stack, processes=processes, programs=programs,
                    one_variant=one_variant, shard=shard, out=out)  # fmt: skip
    report = verification.verify(
        list(backends),
        grid,
        pattern=programs,
        seed=seed,
        progress=verification.print_progress,
        one_variant=one_variant,
        shard=shard,
        processes=processes if precompile else 1,
    )
    for line in verification.summary_lines(report):
        print(line)
    for result in report.results:
        if result.status != "pass":
            print(f"{result.status:<12} {result.backend:<9} {result.case}: {result.detail}")
    if out:
        markdown, data = report.write(out)
        print(f"wrote {markdown} and {data}", file=sys.stderr)
    return 0 if report.ok else 1


def _precompile(
    backends: Sequence[str],
    grid: str,
    *,
    stack: str,
    processes: int,
    programs: str | None,
    one_variant: bool,
    shard: tuple[int, int] | None,
    out: pathlib.Path | None,
) -> None:
    """Compile every selected case (and needed references) with the runner's precompile driver.

    Its compile ledger lies beside the table (``PATH.compiles.jsonl``); without ``out`` the
    compiles are recorded for this call only (the build cache keeps the builds).
    """
    from iconbench import suite, verification
    from iconbench.records.compilation import CompileLedger
    from iconbench.runner.precompile import compile_pairs

    jobs = verification.precompile_jobs(
        programs, list(backends), grid, one_variant=one_variant, shard=shard
    )
    with tempfile.TemporaryDirectory(prefix="iconbench-verify-") as scratch:
        path = out.with_suffix(".compiles.jsonl") if out else pathlib.Path(scratch)
        compile_pairs(
            jobs,
            grid=suite.as_grid(grid),
            stack=stack,
            ledger=CompileLedger(path if out else path / "compile.jsonl"),
            processes=processes,
            cache_dir=suite.build_cache_dir(),
        )


def run(options: RunOptions) -> None:
    """The ``verify`` step: :func:`verify` for every compiled backend of the selection.

    A backend that cannot be verified is one line and exit 2 in the log, as ``iconbench
    verify`` would say; the next backend is verified all the same.
    """
    for backend in (b.name for b in options.backends if not b.is_embedded):
        out = options.out / f"verify-{backend}-{GRID}.md"
        try:
            status = verify(
                [backend],
                GRID,
                stack=options.stack,
                processes=options.processes,
                programs=options.programs or None,
                one_variant=options.one_variant,
                out=out,
            )
        except IconbenchError as error:
            print(f"iconbench: error: {error}", file=sys.stderr)
            status = 2
        log(f"verify: {backend} on {GRID}: exit {status} ({out})")
