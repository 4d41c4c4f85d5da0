"""The session ledger (``work/session.jsonl``): one record per case measured, as typed values.

Every finished case is appended as one JSON line (:class:`CaseResult`, its samples a
:class:`Measurement`) by the measuring processes (:mod:`iconbench.timing.session`), several
at once where a run measures on several devices; a run killed at its time limit restarts
where it stopped. Its lines are kept and read by the ledgers' one rule
(:mod:`iconbench.files.ledger`: a torn last line skipped). An interleaved check appends one
line per process and case, round after round; :func:`rounds` is the one rule that joins
them, for the ledger's own reader (:meth:`SessionLedger.results`, samples pooled) and for a
comparison's (:mod:`iconbench.records.resultset`, each process's samples kept).
"""

from __future__ import annotations

import dataclasses
import pathlib
import statistics
import sys
import time
from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import Any

from iconbench.files import decode
from iconbench.files import ledger as lines


@dataclasses.dataclass(frozen=True)
class Measurement:
    """Paired samples of one program call, all in seconds.

    Taken by :func:`iconbench.timing.measurement.measure`.

    ``device_s`` is empty when the backend has no separate device time (embedded).
    ``gt4py_compute_s``/``gt4py_total_s`` are gt4py's own instrumentation samples, kept for
    the cross-check; they may be empty.

    >>> m = Measurement(host_s=[3e-6, 4e-6, 5e-6], device_s=[1e-6, 2e-6, 2e-6],
    ...                 device_source="cuda-events")
    >>> round(m.host_median * 1e6, 3), round(m.device_median * 1e6, 3)
    (4.0, 2.0)
    >>> round(m.overhead_median * 1e6, 3)
    2.0
    """

    host_s: list[float]
    device_s: list[float]
    device_source: str
    gt4py_compute_s: list[float] = dataclasses.field(default_factory=list)
    gt4py_total_s: list[float] = dataclasses.field(default_factory=list)
    warmup_calls: int = 0
    python_optimize: int = dataclasses.field(default_factory=lambda: sys.flags.optimize)
    #: seconds of :func:`~iconbench.timing.measurement.reference_work` timed beside each
    #: sample: how fast this process's CPU runs Python just then (the gate scales host
    #: overhead by it between processes)
    reference_s: list[float] = dataclasses.field(default_factory=list)
    #: wall seconds of the warm-up before the samples (``None`` in older ledger lines): with
    #: :attr:`CaseResult.prepare_s`, where a measuring turn's time goes besides the samples
    warmup_s: float | None = None

    @property
    def host_median(self) -> float:
        """Median host seconds per call (call + synchronisation)."""
        return statistics.median(self.host_s)

    @property
    def device_median(self) -> float | None:
        """Median device seconds per call, ``None`` without a device clock."""
        return statistics.median(self.device_s) if self.device_s else None

    @property
    def overhead_s(self) -> list[float]:
        """Per-call overhead samples: host minus device of the same call."""
        return [h - d for h, d in zip(self.host_s, self.device_s, strict=False)]

    @property
    def overhead_median(self) -> float | None:
        """Median per-call Python/launch overhead (median of the paired differences)."""
        return statistics.median(self.overhead_s) if self.device_s else None

    def as_dict(self) -> dict[str, Any]:
        """JSON-serialisable form (samples included)."""
        return dataclasses.asdict(self)


@dataclasses.dataclass(frozen=True)
class CaseResult:
    """Everything measured for one (case, backend, grid)."""

    case: str
    backend: str
    grid: str
    measurement: Measurement | None
    bytes_moved: int
    load_s: float
    cold_compile_s: float | None
    fingerprint: str | None
    copy_peak_bytes_per_s: float | None
    datasheet_bytes_per_s: float | None
    started_at: float
    duration_s: float
    error: str | None = None
    #: cells/edges/vertices/levels of ``grid`` as measured (``None`` in older ledger lines)
    grid_counts: dict[str, int] | None = None
    #: the measuring process of an interleaved check (``"r03-head"``), ``None`` elsewhere:
    #: the gate counts the spread between processes only where it can tell them apart
    worker: str | None = None
    #: the version of the model that counted ``bytes_moved``
    #: (:data:`iconbench.programs.inputs.MINIMUM_BYTES_MODEL`; ``None``: unknown, older lines)
    bytes_model: int | None = None
    #: the device that measured it: its ``CUDA_VISIBLE_DEVICES`` entry, where a run measures
    #: on several or a shard's runner gave it one GPU (:func:`iconbench.runner.devices.
    #: recorded_label`); ``None``: the one device a process finds
    device: str | None = None
    #: wall seconds drawing the case's inputs (and loading its program where the process had
    #: not loaded it ahead) before the warm-up; ``None`` in older ledger lines
    prepare_s: float | None = None

    @property
    def timed_s(self) -> float | None:
        """Device median when there is a device clock, else host median."""
        if self.measurement is None:
            return None
        return self.measurement.device_median or self.measurement.host_median

    @property
    def bandwidth_bytes_per_s(self) -> float | None:
        """Minimum bytes moved over the device (or host) median time."""
        timed = self.timed_s
        if not timed or not self.bytes_moved:
            return None
        return self.bytes_moved / timed

    def fraction_of(self, peak: float | None) -> float | None:
        """Achieved bandwidth as a fraction of ``peak`` bytes/s."""
        achieved = self.bandwidth_bytes_per_s
        return achieved / peak if achieved and peak else None

    def as_dict(self) -> dict[str, Any]:
        """JSON form."""
        return dataclasses.asdict(self)

    @classmethod
    def failure(
        cls, case: str, backend: str, grid: str, error: str, *, started_at: float | None = None
    ) -> CaseResult:
        """The record of a case that could not be measured, and why."""
        now = time.time()
        start = now if started_at is None else started_at
        return cls(
            case, backend, grid, None, 0, 0.0, None, None, None, None, start, now - start, error
        )

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CaseResult:
        """Inverse of :meth:`as_dict`."""
        data = dict(data)
        if data.get("measurement") is not None:
            data["measurement"] = Measurement(**data["measurement"])
        return cls(**data)


class SessionLedger:
    """Append-only JSON-lines file of :class:`CaseResult`."""

    def __init__(self, path: pathlib.Path) -> None:
        self.path = pathlib.Path(path)

    def append(self, result: CaseResult) -> None:
        """Append one result as one line, whole (:func:`iconbench.files.ledger.append`).

        The measuring workers of several devices append to one ledger at the same time.
        """
        lines.append(self.path, result.as_dict())

    def size(self) -> int:
        """Bytes in the file now (an offset for :meth:`results_since`)."""
        return self.path.stat().st_size if self.path.exists() else 0

    def results_since(self, offset: int) -> list[CaseResult]:
        """Every result appended after byte ``offset``, in order.

        Read by the ledgers' one rule (:mod:`iconbench.files.ledger`: a torn last line
        skipped, any other line that is not JSON one error naming the file and line); a JSON
        line that is no session record is such an error too.
        """
        found = []
        for number, data in lines.read(self.path, offset=offset).rows:
            try:
                found.append(CaseResult.from_dict(data))
            except (TypeError, AttributeError):
                raise decode.fail(self.path, "not a session record", lines.HINT, number) from None
        return found

    def results(self) -> list[CaseResult]:
        """All results, the last one per (case, backend, grid) winning.

        The rounds of an interleaved check (lines with a ``worker``) are one result: their
        samples pooled, in the order measured, the other fields from the last round
        (:func:`rounds`, :func:`pooled`).
        """
        grouped = rounds(self.results_since(0), key=lambda r: (r.case, r.backend, r.grid))
        return [pooled(group) if len(group) > 1 else group[-1] for group in grouped.values()]

    def durations(self) -> dict[tuple[str, str], float]:
        """Each measured (case, backend)'s last measuring wall time (``duration_s``), any grid."""
        return {
            (r.case, r.backend): r.duration_s for r in self.results() if r.measurement is not None
        }

    def failed(self) -> set[tuple[str, str, str]]:
        """Keys of cases whose latest record is an error."""
        return {(r.case, r.backend, r.grid) for r in self.results() if r.error is not None}


def rounds[Key: Hashable](
    results: Iterable[CaseResult], key: Callable[[CaseResult], Key]
) -> dict[Key, list[CaseResult]]:
    """Each key's last result, with the rounds of an interleaved check that it ends.

    A check appends one line per measuring process (its ``worker``) and case, round after
    round; those lines since the key's last other one (a plain run's, a failed round's) are
    one measurement of several processes. Any other last line stands alone. The ledger's
    reader (:meth:`SessionLedger.results`) and the gate's (:mod:`iconbench.records.resultset`,
    which keeps each process's samples apart) group by this one rule. Keys in the order they
    first appear, rounds in the order measured.

    >>> def line(case, worker, measured=True):
    ...     m = Measurement(host_s=[1e-3], device_s=[], device_source="none") if measured else None
    ...     return CaseResult(case, "embedded", "g", m, 0, 0.0, None, None, None, None, 0.0, 1.0,
    ...                       worker=worker)
    >>> found = rounds([line("a", "r01"), line("b", None), line("a", "r02", measured=False),
    ...                 line("a", "r03"), line("a", "r04"), line("b", "r01")], key=lambda r: r.case)
    >>> {case: [r.worker for r in group] for case, group in found.items()}
    {'a': ['r03', 'r04'], 'b': ['r01']}
    """
    grouped: dict[Key, list[CaseResult]] = {}
    for result in results:
        group = grouped.get(found := key(result))
        if group and _is_round(result) and _is_round(group[-1]):
            group.append(result)
        else:
            grouped[found] = [result]
    return grouped


def _is_round(result: CaseResult) -> bool:
    """A measured line of an interleaved check's process."""
    return bool(result.worker) and result.measurement is not None


def pooled(rounds: Sequence[CaseResult]) -> CaseResult:
    """One result of several processes' rounds of one case: samples joined, last round's rest.

    >>> def one(worker, device):
    ...     m = Measurement(host_s=[d + 1e-5 for d in device], device_s=device,
    ...                     device_source="cuda-events-held")
    ...     return CaseResult("c", "gtfn_gpu", "g", m, 0, 0.0, None, None, None, None, 0.0, 1.0,
    ...                       worker=worker)
    >>> both = pooled([one("r01-base", [1e-3, 2e-3]), one("r02-base", [3e-3])])
    >>> both.measurement.device_s, both.worker, both.duration_s, both.prepare_s
    ([0.001, 0.002, 0.003], 'r02-base', 2.0, None)

    The rounds' seconds (duration, inputs, warm-up) are summed: what the case cost in all.
    """
    last = rounds[-1]
    measured = [r.measurement for r in rounds if r.measurement is not None]
    joined = dataclasses.replace(
        last.measurement,
        host_s=[s for m in measured for s in m.host_s],
        device_s=[s for m in measured for s in m.device_s],
        gt4py_compute_s=[s for m in measured for s in m.gt4py_compute_s],
        gt4py_total_s=[s for m in measured for s in m.gt4py_total_s],
        warmup_s=_total([m.warmup_s for m in measured]),
    )
    return dataclasses.replace(
        last,
        measurement=joined,
        duration_s=sum(r.duration_s for r in rounds),
        prepare_s=_total([r.prepare_s for r in rounds]),
    )


def _total(seconds: Sequence[float | None]) -> float | None:
    """The sum, or ``None`` where a round did not record it (an older ledger line)."""
    return None if any(s is None for s in seconds) else sum(s for s in seconds if s is not None)
