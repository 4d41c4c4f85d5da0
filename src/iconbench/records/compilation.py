"""The compile ledger (``work/compile.jsonl``): one record per compile, as typed values.

Every compile the runner's precompile step (:mod:`iconbench.runner.precompile`, the one
driver) makes is appended to a result directory's ledger, one JSON line each, never
rewritten, and read by the ledgers' one rule (:mod:`iconbench.files.ledger`). The *cold*
compile time of a case is the first ledger entry for it and its stack (the compile that
filled the empty cache). What the ledger says a pool of compiles will take is
:mod:`iconbench.timing.compilation`'s.
"""

from __future__ import annotations

import dataclasses
import pathlib
import statistics
import time
from collections.abc import Callable, Iterable

from iconbench.files import decode
from iconbench.files import ledger as lines
from iconbench.programs import backends
from iconbench.programs.catalog import split_case


@dataclasses.dataclass(frozen=True)
class CompileRecord:
    """One compilation of ``case`` for ``backend`` (``seconds`` wall, in a worker process).

    ``library`` is the built library relative to gt4py's build-cache directory
    (:class:`iconbench.timing.codegen.Build`), so a resumed run knows whether it is still there.
    ``from_index``: no compile ran; the compile index (:mod:`iconbench.timing.compile_index`)
    found this build of an earlier run in the cache, and ``seconds`` are that run's. A ledger
    line has the key only when it is true, so the lines of compiles are as they always were.
    ``stages``: where a compile's seconds went, per stage
    (:mod:`iconbench.timing.compile_stages`); a line has it only for a compile so timed.
    """

    case: str
    backend: str
    grid: str
    stack: str
    seconds: float
    fingerprint: str | None = None
    error: str | None = None
    at: float = dataclasses.field(default_factory=time.time)
    library: str | None = None
    from_index: bool = False
    stages: dict[str, float] | None = None


class CompileLedger:
    """Append-only JSON-lines file of :class:`CompileRecord` (one line per compile).

    >>> import tempfile, pathlib
    >>> ledger = CompileLedger(pathlib.Path(tempfile.mkdtemp()) / "compile.jsonl")
    >>> ledger.append(CompileRecord("p[v]", "gtfn_cpu", "tiny", "default", 41.0))
    >>> ledger.append(CompileRecord("p[v]", "gtfn_cpu", "tiny", "default", 0.3))
    >>> ledger.cold_seconds("p[v]", "gtfn_cpu", "default")
    41.0
    >>> found = CompileRecord("p[v]", "gtfn_cpu", "tiny", "default", 41.0, from_index=True)
    >>> ledger.append(found)
    >>> [r.from_index for r in ledger.records()], ledger.path.read_text().count("from_index")
    ([False, False, True], 1)
    """

    def __init__(self, path: pathlib.Path) -> None:
        self.path = pathlib.Path(path)

    def append(self, record: CompileRecord) -> None:
        """Append one line, whole (:func:`iconbench.files.ledger.append`)."""
        data = dataclasses.asdict(record)
        if not record.from_index:
            del data["from_index"]
        if record.stages is None:
            del data["stages"]
        lines.append(self.path, data)

    def records(self) -> list[CompileRecord]:
        """Every record, oldest first.

        Read by the ledgers' one rule (:mod:`iconbench.files.ledger`: a torn last line, a
        writer killed mid-append, skipped; any other line that is not JSON one error naming
        the file and line); a JSON line that is no compile record is such an error too.
        """
        found = []
        for number, data in lines.read(self.path).rows:
            try:
                found.append(CompileRecord(**data))
            except TypeError:
                raise decode.fail(self.path, "not a compile record", lines.HINT, number) from None
        return found

    def cold_seconds(self, case: str, backend: str, stack: str) -> float | None:
        """The first successful compile time of ``case`` on ``backend`` for ``stack``."""
        for record in self.records():
            key = (record.case, record.backend, record.stack)
            if key == (case, backend, stack) and record.error is None:
                return record.seconds
        return None

    def expected_seconds(self, *others: CompileLedger) -> Callable[[str, str], float]:
        """Seconds a (case, backend) compile is expected to take (to start long ones first).

        That is its longest known compile on any grid or stack, else the longest known of
        another static variant of the same program on that backend (variants of a fused
        program cost alike: 28 of 30 gtfn_gpu solver variants took 144-177 s on the H100 at
        412cde3), else the program's longest on another backend of the same device (a fused
        program is long on both: compute_rho_theta_pgrad_and_update_vn took 154-166 s on
        gtfn_gpu and 182-230 s on dace_gpu on one H100 host; the runner's ledger knew only
        failed dace_gpu compiles of it, so the median, 32 s, started its four dace_gpu builds
        last and kept the check's precompile 100 s longer), else the median of all known; from
        this ledger and ``others`` (a runner's, where this one is a fresh result directory's: a
        check's side).

        >>> import tempfile
        >>> ledger = CompileLedger(pathlib.Path(tempfile.mkdtemp()) / "compile.jsonl")
        >>> for case, seconds in [("a", 30.0), ("a", 40.0), ("b[x=1]", 190.0), ("c", 20.0)]:
        ...     ledger.append(CompileRecord(case, "gtfn_gpu", "g", "s", seconds, None, None, 0.0))
        >>> expect = ledger.expected_seconds()
        >>> expect("a", "gtfn_gpu"), expect("b[x=1]", "gtfn_gpu"), expect("new", "gtfn_gpu")
        (40.0, 190.0, 40.0)
        >>> expect("b[x=2]", "gtfn_gpu"), expect("b[x=2]", "dace_gpu"), expect("b[x=2]", "dace_cpu")
        (190.0, 190.0, 40.0)
        """
        known: dict[tuple[str, str], float] = {}
        per_program: dict[tuple[str, str], float] = {}
        per_device: dict[tuple[str, str], float] = {}
        for record in [r for ledger in (self, *others) for r in ledger.records()]:
            if record.error is None:
                key = (record.case, record.backend)
                known[key] = max(known.get(key, 0.0), record.seconds)
                program = (split_case(record.case)[0], record.backend)
                per_program[program] = max(per_program.get(program, 0.0), record.seconds)
                device = (program[0], backends.backend(record.backend).device)
                per_device[device] = max(per_device.get(device, 0.0), record.seconds)
        fallback = statistics.median(known.values()) if known else 0.0

        def expect(case: str, backend: str) -> float:
            if (case, backend) in known:
                return known[case, backend]
            program = split_case(case)[0]
            if (program, backend) in per_program:
                return per_program[program, backend]
            return per_device.get((program, backends.backend(backend).device), fallback)

        return expect

    def compiled(self, stack: str) -> set[tuple[str, str]]:
        """(case, backend) pairs compiled successfully for ``stack``."""
        return {(r.case, r.backend) for r in self.records() if r.stack == stack and r.error is None}

    def libraries(self, stack: str) -> dict[tuple[str, str], str | None]:
        """The library of the latest successful compile of each (case, backend) for ``stack``.

        ``None`` for a record written before libraries were recorded (its build cannot be
        found again, so it counts as not in the cache).
        """
        return {
            (r.case, r.backend): r.library
            for r in self.records()
            if r.stack == stack and r.error is None
        }

    def in_cache(self, stack: str, cache_dir: pathlib.Path) -> set[tuple[str, str]]:
        """(case, backend) pairs whose latest successful build is in the cache at ``cache_dir``.

        >>> import tempfile
        >>> root = pathlib.Path(tempfile.mkdtemp())
        >>> ledger = CompileLedger(root / "compile.jsonl")
        >>> for case in ("a", "b"):
        ...     record = CompileRecord(case, "gtfn_gpu", "g", "s", 30.0, library=f"{case}/l.so")
        ...     ledger.append(record)
        >>> ledger.append(CompileRecord("old", "gtfn_gpu", "g", "s", 30.0))  # no library known
        >>> (root / "a").mkdir(); (root / "a" / "l.so").touch()
        >>> ledger.in_cache("s", root)
        {('a', 'gtfn_gpu')}
        """
        return {
            pair
            for pair, library in self.libraries(stack).items()
            if library is not None and (pathlib.Path(cache_dir) / library).is_file()
        }

    def pending(
        self,
        jobs: Iterable[tuple[str, str]],
        stack: str,
        *,
        cache_dir: pathlib.Path | None = None,
        skip_failed: bool = False,
    ) -> list[tuple[str, str]]:
        """The (case, backend) pairs of ``jobs`` still to compile for ``stack``, in their order.

        A pair is done once compiled; with ``cache_dir`` (gt4py's build-cache directory) only
        while its library is still there (the ledger outlives the cache on a fresh machine);
        with ``skip_failed`` a pair whose latest compile failed counts as done too.

        >>> import tempfile
        >>> ledger = CompileLedger(pathlib.Path(tempfile.mkdtemp()) / "compile.jsonl")
        >>> ledger.append(CompileRecord("a", "gtfn_gpu", "g", "s", 30.0))
        >>> ledger.append(CompileRecord("b", "gtfn_gpu", "g", "s", 0.0, error="boom"))
        >>> jobs = [("a", "gtfn_gpu"), ("b", "gtfn_gpu"), ("c", "gtfn_gpu")]
        >>> ledger.pending(jobs, "s"), ledger.pending(jobs, "s", skip_failed=True)
        ([('b', 'gtfn_gpu'), ('c', 'gtfn_gpu')], [('c', 'gtfn_gpu')])
        """
        done = self.compiled(stack) if cache_dir is None else self.in_cache(stack, cache_dir)
        if skip_failed:
            done |= self.failed(stack)
        return [job for job in jobs if job not in done]

    def failed(self, stack: str) -> set[tuple[str, str]]:
        """(case, backend) pairs whose latest compile for ``stack`` failed.

        A failure such as DaCe's SDFG validation repeats on every try of the same stack, so a
        resumed run skips these rather than spend GPU time compiling them again; a later
        success (a transient failure retried) takes the pair out.

        >>> import tempfile
        >>> ledger = CompileLedger(pathlib.Path(tempfile.mkdtemp()) / "compile.jsonl")
        >>> for case, error in [("a", "boom"), ("b", "boom"), ("b", None)]:
        ...     ledger.append(CompileRecord(case, "dace_gpu", "g", "s", 20.0, None, error))
        >>> ledger.failed("s"), ledger.failed("other")
        ({('a', 'dace_gpu')}, set())
        """
        latest = {(r.case, r.backend): r.error for r in self.records() if r.stack == stack}
        return {pair for pair, error in latest.items() if error is not None}
