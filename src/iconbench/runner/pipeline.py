"""The runner's steps by name, and the one way every command runs them.

``iconbench suite STEP``, ``iconbench run`` and ``iconbench demo`` build a
:class:`~iconbench.runner.options.RunOptions` at their command line and call :func:`run`:
one road from the selection to the result directory, whichever command a user types.
"""

from __future__ import annotations

import dataclasses
import os
import pathlib
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from iconbench.errors import IconbenchError
from iconbench.runner.options import RunOptions

if TYPE_CHECKING:
    from iconbench.stacks.breakage import StackBreak

#: ``all``: what a run of the suite does (``plan``, ``verify``, the checks are asked for).
ALL = ("precompile", "measure", "asv")
#: Steps that read what the others recorded and run no program: gt4py is not imported for them.
READ_ONLY = frozenset({"asv"})


def steps() -> dict[str, Callable[[RunOptions], None]]:
    """Every step by its name on the command line (imports the step modules)."""
    from iconbench.runner import crosscheck, measure, plan, precompile, sources, verify

    return {
        "plan": plan.run,
        "precompile": precompile.run,
        "verify": verify.run,
        "measure": measure.run,
        "crosscheck": crosscheck.crosscheck,
        "ncu": crosscheck.ncu,
        "asv": write_results,
        "ncu-target": crosscheck.ncu_target,
        "sources": sources.run,
    }


def write_results(options: RunOptions) -> None:
    """``OUT/asv`` and ``OUT/summary.json`` from the ledgers, by the one writer (step ``asv``)."""
    from iconbench import suite
    from iconbench.records import resultdir
    from iconbench.runner.progress import log

    written = resultdir.write(
        options, cases=suite.all_case_ids(), minimum_bytes=suite.minimum_bytes
    )
    log(f"asv: wrote {written.asv}")
    log(f"summary: wrote {written.summary} ({written.cases} cases)")


def prepare(
    options: RunOptions, *, resolve: bool = True, compiles: bool = False
) -> tuple[RunOptions, dict[str, StackBreak]]:
    """Refuse another stack's directory, make ``OUT/work``, point gt4py at the build cache.

    Before gt4py is imported: the build cache is configured by environment variables that
    gt4py reads once, at import (:func:`iconbench.buildcache.configure`). Each backend is
    resolved on the stack; one the stack cannot make (:mod:`iconbench.stacks.breakage`) is
    recorded as broken (``OUT/work/broken.json``) and left out of the options returned: the
    others are still measured. Returns those options and this selection's breaks.

    ``resolve=False`` (steps that only read the ledgers: ``asv``) takes the breaks the run's
    earlier steps recorded instead of importing gt4py to find them again: the step is a
    fresh process of every check's side and night, and gt4py's import was most of its CPU
    (2.7-2.8 s against 0.8-0.9 s without, on a two-core workstation).

    ``compiles`` (a run that precompiles): the compile processes' server starts here, to
    import the stack beside this process's own import (:mod:`.compile_server`).
    """
    import warnings

    from iconbench import buildcache
    from iconbench.files.directories import create_dir
    from iconbench.records import resultdir

    resultdir.require_stack(options.out, options.stack)
    create_dir(options.out, "--out")
    options.work.mkdir(exist_ok=True)
    warnings.filterwarnings("ignore", message="Field View Program")
    # one program per compile worker at a time: parallelism comes from the workers (--jobs)
    os.environ["GT4PY_BUILD_JOBS"] = str(options.build_jobs)
    buildcache.configure(options.stack, jobs=options.build_jobs)
    from iconbench.records import broken

    if compiles:
        from iconbench.runner import compile_server

        compile_server.start(options.processes, options.programs)

    if not resolve:
        recorded = broken.read(options.work)
        breaks = {b: found for b, found in recorded.items() if b in options.backend_names}
        kept = tuple(b for b in options.backends if b.name not in breaks)
        return dataclasses.replace(options, backends=kept), breaks
    from iconbench.programs import backends as registry  # after the cache: imports gt4py
    from iconbench.stacks.breakage import classify

    breaks = {}
    for backend in options.backends:
        try:
            registry.resolve(backend.name)
        except IconbenchError as error:
            raise IconbenchError(f"--backends: {error}") from None
        except Exception as error:
            found = classify(error)
            if found is None:
                raise
            breaks[backend.name] = found
    # a step's own workers resolve only the backends left: keep the others' record
    earlier = {b: found for b, found in broken.read(options.work).items()
               if b not in options.backend_names}  # fmt: skip
    broken.write(options.work, earlier | breaks)
    if breaks:
        from iconbench.runner.progress import log

        log(f"broken: {broken.line(breaks)}")
    kept = tuple(b for b in options.backends if b.name not in breaks)
    return dataclasses.replace(options, backends=kept), breaks


def run(options: RunOptions, names: Sequence[str]) -> None:
    """Prepare, then run the steps ``names`` (``"all"``: :data:`ALL`) in order.

    A backend the stack cannot make is a result: the other backends are run, the result
    files written (``summary.json`` names the broken ones), and then the run ends with the
    one line that says where the stack breaks (exit 2).
    """
    from iconbench.records import broken

    chosen = [n for step in names for n in (ALL if step == "all" else (step,))]
    prepared, breaks = prepare(options, resolve=any(name not in READ_ONLY for name in chosen),
                               compiles="precompile" in chosen)  # fmt: skip
    known = steps()
    for name in chosen:
        if prepared.backends or name == "asv":
            known[name](prepared)
    if breaks:
        raise broken.error(breaks)


def launched_as_cli() -> bool:
    """Whether this process is ``python -m iconbench`` / the ``iconbench`` script."""
    first = pathlib.Path(sys.argv[0] if sys.argv else "")
    return first.name == "iconbench" or (
        first.name == "__main__.py" and first.parent.name == "iconbench"
    )


def optimized(no_optimize: bool = False) -> None:
    """Run this command again under ``PYTHONOPTIMIZE=2`` unless it runs so already.

    gt4py validates arguments on every call while ``__debug__`` is on, which inflates the
    call overhead measured; the flag is fixed at interpreter start, so the only fix is a
    restart (the workers inherit it through the environment). ``no_optimize`` measures
    without it (recorded with every measurement).
    """
    os.environ["PYTHONOPTIMIZE"] = "" if no_optimize else "2"
    if bool(sys.flags.optimize) == no_optimize and launched_as_cli():
        sys.stdout.flush()
        os.execv(sys.executable, [sys.executable, "-m", "iconbench", *sys.argv[1:]])


def hostname() -> str:
    """The short host name: the asv machine name unless one is given."""
    import socket

    return socket.gethostname().split(".")[0] or "machine"
