"""Reading the history: result files into typed runs, one per (result file, grid), in order.

The site's pages, the change points (:mod:`iconbench.history.changepoints`) and their
confirmation read the same runs in the same history order (:func:`ordered`). Two kinds of
result sets feed them, both in asv's storage:

* an asv ``results_dir`` (``benchmarks.json``, ``<machine>/machine.json``, one file per
  commit and environment), as ``iconbench run`` / ``asv run`` write it;
* a GPU runner's result set (``results/h100``: ``asv/`` as above, written by
  ``iconbench suite asv``, plus ``work/compile.jsonl`` and ``work/session.jsonl``, the
  compile and measure ledgers). asv stores a failed combination as ``None`` without a
  reason; the ledgers say which ones failed to compile and which failed to run, and why,
  so that failures show on the site instead of silently lowering the coverage.

A run is keyed by its :class:`Target`, the (device, grid) it ran on as the result file
records it (the runner's ``machine.json`` ``gpu``, else the asv machine name), never by a
preset name known in advance.
"""

from __future__ import annotations

import dataclasses
import json
import math
import pathlib
import re
import statistics
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from iconbench.commits import commit_time_ms, full_hash
from iconbench.errors import IconbenchError
from iconbench.programs.catalog import split_case
from iconbench.records import asv as results
from iconbench.records import broken

#: asv benchmark kind -> field of :class:`Measured`.
KIND_FIELDS = {
    "time_device": "device_s",
    "time_host": "host_s",
    "track_call_overhead": "overhead_s",
    "track_compile_cold": "compile_s",
    "track_bandwidth_fraction": "bandwidth_fraction",
}


def slug(text: str) -> str:
    """A file-name-safe lower-case form of ``text``.

    >>> slug("NVIDIA H100 80GB HBM3"), slug("compute_theta[a=1-b=True]")
    ('nvidia-h100-80gb-hbm3', 'compute_theta-a-1-b-true')
    """
    return re.sub(r"[^a-z0-9_]+", "-", text.lower()).strip("-")


@dataclasses.dataclass(frozen=True, order=True)
class Target:
    """What a run measured on: the device (GPU model, or the CPU machine) and the grid."""

    device: str
    grid: str

    @property
    def label(self) -> str:
        """How pages name it, e.g. ``NVIDIA H100 80GB HBM3 · ch1_medium``."""
        return f"{self.device} · {self.grid}"

    @property
    def key(self) -> str:
        """A stable file-name-safe key."""
        return f"{slug(self.device)}--{slug(self.grid)}"


@dataclasses.dataclass(frozen=True)
class Measured:
    """One (case, backend) of one run: medians, or why there is no number."""

    case: str
    backend: str
    #: ``ok``, ``compile failed``, ``run failed``, ``not measured`` (asv stored no value
    #: and no ledger says why: skipped or timed out) or ``not selected`` (a GPU runner's
    #: ledgers never saw the case: outside the run's selection, e.g. an experiment's
    #: variants or ``--programs``; not a warning and not counted against coverage).
    status: str
    device_s: float | None = None
    samples: int = 0
    host_s: float | None = None
    overhead_s: float | None = None
    compile_s: float | None = None
    bandwidth_fraction: float | None = None
    fingerprint: str | None = None
    error: str | None = None
    #: The device clock of the measurement (``cuda-events-held``, ``gt4py-compute``, ...) as
    #: the runner's measure ledger records it; ``None`` where no ledger says.
    clock: str | None = None

    @property
    def program(self) -> str:
        """The program part of the case id."""
        return split_case(self.case)[0]

    @property
    def variant(self) -> str:
        """The variant part of the case id (``default`` without one)."""
        return split_case(self.case)[1]


@dataclasses.dataclass(frozen=True)
class Stack:
    """What a run's code ran on, as the GPU runner's ``summary.json`` records it.

    Versions come from the installed packages (``provenance``); a commit is shown where the
    provenance records one (``commits``), else the version is all that is known.
    """

    key: str
    gt4py: str | None = None
    dace: str | None = None
    icon4py: str | None = None
    commits: dict[str, str] = dataclasses.field(default_factory=dict)
    python: str | None = None
    cuda_runtime: str | None = None
    cuda_driver: str | None = None
    gpu: str | None = None
    #: per backend, the line that says where the stack breaks (``summary.json``'s ``broken``)
    broken: dict[str, str] = dataclasses.field(default_factory=dict)

    def rows(self) -> list[tuple[str, str]]:
        """``(component, version and commit)`` for a page's stack table."""

        def with_commit(name: str, version: str | None) -> str:
            commit = self.commits.get(name)
            text = version or "not recorded"
            return f"{text} (commit {commit[:12]})" if commit else f"{text} (no commit recorded)"

        return [
            ("gt4py", with_commit("gt4py", self.gt4py)),
            ("dace", with_commit("dace", self.dace)),
            ("icon4py", with_commit("icon4py", self.icon4py)),
            ("CUDA runtime / driver", f"{self.cuda_runtime or '–'} / {self.cuda_driver or '–'}"),
            ("GPU", self.gpu or "none recorded"),
            ("Python", self.python or "–"),
            ("stack key", self.key),
            *((f"broken: {backend}", line) for backend, line in sorted(self.broken.items())),
        ]


def stacks_of(root: pathlib.Path) -> dict[str, Stack]:
    """The stacks a GPU runner's result set records (``summary*.json``), keyed by stack key.

    A summary that cannot be read gives no stack (the site then says "not recorded").
    """
    found: dict[str, Stack] = {}
    for path in sorted(root.glob("summary*.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError):
            continue
        provenance = data.get("provenance") if isinstance(data, dict) else None
        if not isinstance(provenance, dict) or not isinstance(data.get("stack"), str):
            continue
        packages = provenance.get("packages") or {}
        gpu = provenance.get("gpu") or {}
        commits = provenance.get("commits") or {}
        icon4py = packages.get("icon4py-atmosphere-dycore") or packages.get("icon4py-common")
        found.setdefault(
            data["stack"],
            Stack(
                key=data["stack"],
                gt4py=packages.get("gt4py"),
                dace=packages.get("dace"),
                icon4py=icon4py,
                commits={str(k): str(v) for k, v in commits.items()},
                python=provenance.get("python"),
                cuda_runtime=gpu.get("cuda_runtime"),
                cuda_driver=gpu.get("cuda_driver"),
                gpu=gpu.get("name"),
                broken={b: found.line() for b, found in broken.of_summary(data).items()},
            ),
        )
    return found


@dataclasses.dataclass(frozen=True)
class Run:
    """The results of one commit on one target, from one result file."""

    target: Target
    commit: str
    date_ms: int
    machine: str
    env_name: str
    source: str
    measured: tuple[Measured, ...]
    stack: Stack | None = None
    #: when the commit was committed (ms), where its repository was at hand; 0: unknown
    commit_ms: int = 0

    @property
    def stack_key(self) -> str:
        """The stack part of the asv environment name (``stack-<hash>``), or the name."""
        found = re.search(r"stack-[0-9a-f]+", self.env_name)
        return found.group(0) if found else self.env_name

    @property
    def id(self) -> str:
        """Unique per (machine, commit, environment, grid): the name of its stored copy."""
        return slug(f"{self.machine}-{self.commit[:12]}-{self.env_name}-{self.target.grid}")

    @property
    def programs(self) -> tuple[str, ...]:
        """The programs with at least one case in this run."""
        return tuple(sorted({m.program for m in self.measured}))

    def as_dict(self) -> dict[str, Any]:
        """The JSON form the published site keeps (see :func:`run_from_dict`)."""
        return {
            "target": dataclasses.asdict(self.target),
            "commit": self.commit,
            "date_ms": self.date_ms,
            "machine": self.machine,
            "env_name": self.env_name,
            "source": self.source,
            "stack": None if self.stack is None else dataclasses.asdict(self.stack),
            "commit_ms": self.commit_ms,
            "measured": [
                {k: v for k, v in dataclasses.asdict(m).items() if v is not None}
                for m in self.measured
            ],
        }


def run_from_dict(data: dict[str, Any]) -> Run:
    """The inverse of :meth:`Run.as_dict`."""
    return Run(
        target=Target(**data["target"]),
        commit=data["commit"],
        date_ms=int(data["date_ms"]),
        machine=data["machine"],
        env_name=data["env_name"],
        source=data["source"],
        measured=tuple(Measured(**m) for m in data["measured"]),
        stack=Stack(**data["stack"]) if data.get("stack") else None,
        commit_ms=int(data.get("commit_ms") or 0),
    )


@dataclasses.dataclass(frozen=True)
class Failures:
    """What a GPU runner's ledgers say about (case, backend, grid) combinations over time.

    Each key maps to its outcomes ``(unix time, error or None)`` in ledger order, so that a
    run is explained by what was known when it was written (a case that failed in the run
    of 8c5fb4c and was measured in that of 0e8595e is a run failure of 8c5fb4c's run only).
    ``clocks`` holds the device clock of every successful measurement, so that a change of
    clock between two runs is drawn as a break, not as a change of speed. With ledgers
    (``selected`` not ``None``), a combination they never mention was not selected.
    """

    compile: dict[tuple[str, str, str], list[tuple[float, str | None]]]
    run: dict[tuple[str, str, str], list[tuple[float, str | None]]]
    clocks: dict[tuple[str, str, str], list[tuple[float, str]]] = dataclasses.field(
        default_factory=dict
    )
    selected: frozenset[tuple[str, str, str]] | None = None

    def reason(
        self, case: str, backend: str, grid: str, at_s: float = math.inf
    ) -> tuple[str, str | None]:
        """``(status, error)`` of a combination asv has no value for, as of ``at_s``."""
        for status, outcomes in (("compile failed", self.compile), ("run failed", self.run)):
            known = [
                error for when, error in outcomes.get((case, backend, grid), ()) if when <= at_s
            ]
            if known and known[-1] is not None:
                return status, known[-1]
        if self.selected is not None and (case, backend, grid) not in self.selected:
            return "not selected", None
        return "not measured", None

    def clock(self, case: str, backend: str, grid: str, at_s: float = math.inf) -> str | None:
        """The device clock of the newest measurement of a combination up to ``at_s``."""
        known = [c for when, c in self.clocks.get((case, backend, grid), ()) if when <= at_s]
        if known:
            return known[-1]
        later = self.clocks.get((case, backend, grid))
        return later[0][1] if later else None


NO_FAILURES = Failures({}, {})


def _ledger(path: pathlib.Path) -> Iterator[dict[str, Any]]:
    if not path.exists():
        return
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
        except json.JSONDecodeError as error:
            raise IconbenchError(f"{path}:{number}: not a JSON line ({error.msg})") from None
        if isinstance(entry, dict):
            yield entry


def _first_line(text: str) -> str:
    r"""The line of an error that says what happened (a traceback's last, else the first).

    >>> _first_line("Traceback (most recent call last):\n  File x\nValueError: bad")
    'ValueError: bad'
    >>> _first_line("dace.InvalidSDFGNodeError: Node validation failed\nOriginating from")
    'dace.InvalidSDFGNodeError: Node validation failed'
    """
    lines = [line.strip() for line in str(text).splitlines() if line.strip()]
    if not lines:
        return ""
    return (lines[-1] if lines[0].startswith("Traceback") else lines[0])[:300]


def read_failures(result_set: pathlib.Path) -> Failures:
    """Every outcome of the compile and measure ledgers, per combination, in time order.

    ``work/compile.jsonl`` is timed by ``at``, ``work/session.jsonl`` by ``started_at``; the
    measure ledger's ``measurement.device_source`` is the clock of each measurement.
    """
    found: list[dict[tuple[str, str, str], list[tuple[float, str | None]]]] = []
    clocks: dict[tuple[str, str, str], list[tuple[float, str]]] = {}
    for name, clock in (("compile.jsonl", "at"), ("session.jsonl", "started_at")):
        outcomes: dict[tuple[str, str, str], list[tuple[float, str | None]]] = {}
        for entry in _ledger(result_set / "work" / name):
            key = (entry.get("case", ""), entry.get("backend", ""), entry.get("grid", ""))
            error = _first_line(entry["error"]) if entry.get("error") else None
            when = float(entry.get(clock) or 0.0)
            outcomes.setdefault(key, []).append((when, error))
            measurement = entry.get("measurement")
            if isinstance(measurement, dict) and measurement.get("device_source"):
                clocks.setdefault(key, []).append((when, str(measurement["device_source"])))
        found.append({k: sorted(v, key=lambda o: o[0]) for k, v in outcomes.items()})
    return Failures(
        *found,
        clocks={k: sorted(v) for k, v in clocks.items()},
        selected=frozenset(found[0]) | frozenset(found[1]),
    )


def _number(value: float | None) -> float | None:
    return None if value is None or math.isnan(value) else value


def runs_of_file(
    result: results.ResultFile,
    failures: Failures = NO_FAILURES,
    stacks: dict[str, Stack] | None = None,
    commit: str | None = None,
    source: str | None = None,
    *,
    commit_ms: int = 0,
) -> list[Run]:
    """One :class:`Run` per grid of an asv result file.

    ``commit``: the file's commit resolved to its full hash (:mod:`iconbench.commits`);
    ``source``: how pages name the file (never an absolute path of the publishing machine);
    ``commit_ms``: when that commit was committed (0: unknown).
    """
    device = result.machine.get("gpu") or result.machine.get("machine") or "unknown machine"
    by_combo: dict[tuple[str, str, str], dict[str, Any]] = {}
    for record in result.records:
        if not record.program or not record.backend:
            continue
        fields = by_combo.setdefault((record.grid, record.program, record.backend), {})
        value = _number(record.value)
        if record.kind == "time_device":
            if record.samples:
                fields["device_s"] = statistics.median(record.samples)
                fields["samples"] = len(record.samples)
            elif value is not None:
                fields["device_s"], fields["samples"] = value, 1
        elif record.kind == "track_codegen_fingerprint":
            if value is not None:
                fields["fingerprint"] = f"{int(value):012x}"
        elif (field := KIND_FIELDS.get(record.kind)) is not None and value is not None:
            fields[field] = value
    grids: dict[str, list[Measured]] = {}
    for (grid, case, backend), fields in sorted(by_combo.items()):
        if fields.get("device_s") is not None or fields.get("host_s") is not None:
            clock = failures.clock(case, backend, grid, result.date_ms / 1000)
            measured = Measured(case, backend, "ok", clock=clock, **fields)
        else:
            status, error = failures.reason(case, backend, grid, result.date_ms / 1000)
            measured = Measured(case, backend, status, error=error, **fields)
        grids.setdefault(grid, []).append(measured)
    machine = result.machine.get("machine", "")
    stack_key = re.search(r"stack-[0-9a-f]+", result.env_name)
    return [
        Run(
            target=Target(device, grid),
            commit=commit or result.commit,
            date_ms=result.date_ms,
            machine=machine,
            env_name=result.env_name,
            source=source or result.path.name,
            measured=tuple(measured),
            stack=(stacks or {}).get(stack_key.group(0)) if stack_key else None,
            commit_ms=commit_ms,
        )
        for grid, measured in sorted(grids.items())
    ]


@dataclasses.dataclass(frozen=True)
class ResultSet:
    """A directory of results: its asv ``results_dir`` and, for a GPU runner's set, its ledgers."""

    root: pathlib.Path
    asv_dir: pathlib.Path
    ledgers: tuple[pathlib.Path, ...]

    def files(self) -> list[pathlib.Path]:
        """The asv result files, sorted."""
        return results.result_files(self.asv_dir)

    def display(self, path: pathlib.Path) -> str:
        """How pages name one of its files: relative to the set's parent, never absolute.

        >>> s = ResultSet(pathlib.Path("/home/me/results/h100"), pathlib.Path("/x"), ())
        >>> s.display(pathlib.Path("/home/me/results/h100/asv/h100/abc.json"))
        'h100/asv/h100/abc.json'
        """
        try:
            return path.relative_to(self.root.parent).as_posix()
        except ValueError:
            return path.name


def result_set(path: pathlib.Path) -> ResultSet:
    """Recognise ``path``: an asv ``results_dir`` or a GPU runner's result set (``asv/``).

    Raises one line naming what was expected when it is neither.
    """
    if not path.is_dir():
        raise IconbenchError(
            f"{path}: no such directory; pass an asv results directory (e.g. .asv/results) "
            "or a GPU runner's result set (e.g. results/h100)"
        )
    if (path / "asv").is_dir() and (path / "asv" / "benchmarks.json").exists():
        ledgers = tuple(path / "work" / n for n in ("compile.jsonl", "session.jsonl"))
        return ResultSet(path, path / "asv", tuple(p for p in ledgers if p.exists()))
    if (path / "benchmarks.json").exists() or any(path.glob("*/machine.json")):
        return ResultSet(path, path, ())
    raise IconbenchError(
        f"{path}: neither an asv results directory (benchmarks.json, <machine>/machine.json) "
        "nor a GPU runner's result set (asv/benchmarks.json); check the path"
    )


def read_runs(
    result_files: Iterable[pathlib.Path],
    units: dict[str, str],
    failures: Failures,
    *,
    result_set: ResultSet | None = None,
    repo: pathlib.Path | None = None,
    stacks: Mapping[str, Stack] | None = None,
) -> Iterator[tuple[pathlib.Path, list[Run] | IconbenchError]]:
    """Runs of each file, or the one-line error of a file that cannot be read.

    ``repo``, the repository of the files' commits, turns a recorded commit (possibly
    abbreviated) into its full hash and gives its date, the run's place in history order
    (:mod:`iconbench.commits`); without it both stay as recorded (date: unknown).
    A run's stack comes from its result set's summaries, else from ``stacks`` (summaries
    given beside asv result files: ``publish --summaries``).
    """
    stacks = {**(stacks or {})}
    stacks |= stacks_of(result_set.root) if result_set is not None else {}
    for path in result_files:
        try:
            read = results.read_file(path, units, with_stats=False)
            source = result_set.display(path) if result_set is not None else path.name
            commit = full_hash(repo, read.commit) if repo else read.commit
            committed = commit_time_ms(repo, commit) if repo else 0
            yield path, runs_of_file(read, failures, stacks, commit, source,
                                     commit_ms=committed)  # fmt: skip
        except IconbenchError as error:
            yield path, error


def runs_in(path: pathlib.Path, repo: pathlib.Path | None = None) -> list[Run]:
    """Every run of the result set at ``path``; one line for the first file that is unreadable.

    For readers that need the whole history at once (``iconbench changepoints``, a
    backfill's confirmation); the site itself skips such a file and goes on. ``repo``: the
    repository of the runs' commits, whose dates put the runs in history order
    (:func:`ordered`).
    """
    found = result_set(path)
    units = results.units_of(found.asv_dir)
    runs = []
    for file, outcome in read_runs(found.files(), units, NO_FAILURES, repo=repo):
        if isinstance(outcome, IconbenchError):
            raise IconbenchError(f"{file}: {outcome}")
        runs.extend(outcome)
    return runs


def ordered(runs: Sequence[Run]) -> list[Run]:
    """Runs in history order: by their commit's date where known, else when measured.

    A nightly measures each commit after the one before, but a backfill measures old commits
    after new ones: ordered by when they were measured, their change points would fall
    between the wrong commits.
    """
    return sorted(runs, key=lambda r: (r.commit_ms or r.date_ms, r.date_ms, r.commit, r.id))


def history_per_target(runs: Sequence[Run]) -> dict[Target, list[Run]]:
    """The runs of every (device, grid), each list in history order; targets sorted."""
    per_target: dict[Target, list[Run]] = {}
    for run in ordered(runs):
        per_target.setdefault(run.target, []).append(run)
    return dict(sorted(per_target.items()))
