"""``verify``: each selected backend against the embedded backend, on a small grid.

The same check as ``iconbench verify`` (:mod:`iconbench.verification`), run before measuring
so that a wrong result is found before its time is recorded; on ``tiny_lam`` (limited-area
zones included) it takes seconds per case once compiled. Reports go to
``OUT/verify-<backend>-tiny_lam.md`` (and ``.json``).
"""

from __future__ import annotations

from iconbench.runner.options import RunOptions
from iconbench.runner.progress import log

GRID = "tiny_lam"


def run(options: RunOptions) -> None:
    """``iconbench verify`` for every compiled backend of the selection."""
    from iconbench import cli

    for backend in (b.name for b in options.backends if not b.is_embedded):
        out = options.out / f"verify-{backend}-{GRID}.md"
        command = ["verify", "--backends", backend, "--grid", GRID, "--out", str(out),
                   "--jobs", str(options.processes)]  # fmt: skip
        if options.programs:
            command += ["--programs", options.programs]
        if options.one_variant:
            command.append("--one-variant")
        status = cli.main(command)
        log(f"verify: {backend} on {GRID}: exit {status} ({out})")
