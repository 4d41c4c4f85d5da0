"""The gate's summary (``iconbench-gate-summary`` version 1) as typed values.

The format is fixed in ``docs/gate-summary.md``; the gate writes it, the PR bot, the site and
CI read it, all through this module: :meth:`Summary.from_json` (or :meth:`Summary.read`)
refuses another schema or version with one line (:class:`iconbench.errors.IconbenchError`)
and ignores keys added later within version 1. :meth:`Summary.write` is atomic. Every part
of the document is a typed value here: the runner's common shift (:class:`MachineShift`,
estimated by :mod:`iconbench.gate.shift`), the explanations (:class:`Why`, made by
:mod:`iconbench.explain`) and their kernels (:mod:`iconbench.records.kernels`); the verdicts
that fill it are :mod:`iconbench.gate.verdict`'s.

>>> s = Summary.from_json(Summary.example().to_json())
>>> s.verdict, s.exit_code, s.benchmarks[0].verdict, s.benchmarks[0].base.fingerprint
('regression', 1, 'regression', '28d4c4bc')
>>> s.benchmarks[0].change, s.head.short, s.grid_name
(0.065, '0e8595e', 'icon_benchmark_regional')
>>> Summary.from_json('{"schema": "iconbench-gate-summary", "version": 2}')  # doctest: +ELLIPSIS
Traceback (most recent call last):
iconbench.errors.IconbenchError: gate summary: version 2 is not supported ...
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import pathlib
from typing import Any

from iconbench.errors import IconbenchError
from iconbench.files.atomic import write_atomic
from iconbench.records.kernels import KernelDiff
from iconbench.records.resultset import Grid

SCHEMA = "iconbench-gate-summary"
VERSION = 1
VERDICTS = (
    "regression",
    "improvement",
    "unchanged",
    "inconclusive",
    "failed",
    "not run",
    "new",
    "gone",
)
#: The run's verdict by exit code; ``not comparable`` (exit 2 as well): the runner's common
#: shift exceeded ``max_machine_shift`` (see :mod:`iconbench.gate.shift`).
RUN_VERDICTS = {0: "pass", 1: "regression", 2: "error"}
NOT_COMPARABLE = "not comparable"


@dataclasses.dataclass(frozen=True)
class Side:
    """What one side measured, so that every number can be traced."""

    label: str
    commit: str
    component: str
    date: str | None
    stack: dict[str, str]
    machine: dict[str, str]
    grid: Grid
    source: str | list[str]

    @property
    def short(self) -> str:
        """The commit as GitHub abbreviates it (7 characters)."""
        return self.commit[:7]

    @property
    def device(self) -> str:
        """The GPU, else the machine's name (what a reader calls the device)."""
        gpu = self.machine.get("gpu")
        return str(gpu if gpu and gpu != "none" else self.machine.get("name") or "")


@dataclasses.dataclass(frozen=True)
class SideNumbers:
    """One side of one benchmark: numbers, or the error of a failed side.

    ``median``: the side's typical time that the verdict's ratio is of (the median of the
    samples compared; over processes, their typical median), so base x ratio = head in every
    table; ``n`` and ``ci``: the side's samples and the interval of their median.
    """

    median: float | None = None
    n: int = 0
    ci: tuple[float, float] | None = None
    fingerprint: str | None = None
    error: str | None = None


#: A flagged benchmark's interleaved A/B: the same change (:class:`Confirmation`), or not.
CONFIRMED, NOT_CONFIRMED = "confirmed", "not confirmed"


@dataclasses.dataclass(frozen=True)
class Confirmation:
    """A benchmark that a comparison of two separate runs flagged, measured again interleaved.

    Two runs hours apart differ by more than their code (the host's load, clocks, a
    neighbour): a regression or improvement between them is reported only once both stacks,
    measured again in one job in alternating fresh processes (the check's road,
    :mod:`iconbench.check.confirm`), show it too. ``flagged``: the comparison's verdict
    before (``regression`` | ``improvement``); ``verdict``: :data:`CONFIRMED` when the A/B's
    own verdict (``gate_verdict``: beyond its threshold at its false discovery rate) is the
    same, else :data:`NOT_CONFIRMED`; ``ratio``, ``ratio_ci``: head/base of the A/B;
    ``processes``: ``"4+4"``, base's and head's processes that measured it.

    >>> Confirmation("regression", CONFIRMED, 1.1042, (1.0812, 1.1277), "4+4",
    ...              "regression").describe()
    'confirmed: 1.104x [1.081, 1.128], 4+4 processes'
    >>> Confirmation("regression", NOT_CONFIRMED, None, None, "0+0", "missing",
    ...              ("head: compile failed",)).describe()
    'not confirmed: no interval (head: compile failed)'
    """

    flagged: str
    verdict: str
    ratio: float | None
    ratio_ci: tuple[float, float] | None
    processes: str
    gate_verdict: str
    notes: tuple[str, ...] = ()

    @property
    def confirmed(self) -> bool:
        return self.verdict == CONFIRMED

    def describe(self) -> str:
        """The A/B in one phrase, as the log, the job summary, the bot and the site print it."""
        if self.ratio is None or self.ratio_ci is None:
            why = f" ({'; '.join(self.notes)})" if self.notes else ""
            return f"{self.verdict}: no interval{why}"
        low, high = self.ratio_ci
        interval = f"{self.ratio:.3f}x [{low:.3f}, {high:.3f}]"
        return f"{self.verdict}: {interval}, {self.processes} processes"

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Confirmation:
        known = _known(cls, data)
        known["ratio_ci"] = tuple(data["ratio_ci"]) if data.get("ratio_ci") else None
        known["notes"] = tuple(data.get("notes") or ())
        return cls(**known)


def percent(value: float) -> str:
    """``0.05`` → ``5 %``, ``0.025`` → ``2.5 %``."""
    return f"{value * 100:.3g} %"


def below_threshold(verdict: str, ratio_ci: tuple[float, float] | None, threshold: float) -> bool:
    """Whether a regression's (improvement's) interval stays within ``±threshold``.

    That is a change shown beyond the margin and smaller than the threshold.

    >>> below_threshold("regression", (1.031, 1.041), 0.05), below_threshold("regression",
    ...     (1.031, 1.061), 0.05), below_threshold("unchanged", (0.99, 1.01), 0.05)
    (True, False, False)
    """
    if ratio_ci is None or verdict not in ("regression", "improvement"):
        return False
    low, high = ratio_ci
    return high < 1 + threshold if verdict == "regression" else low > 1 / (1 + threshold)


def threshold_words(threshold: float) -> str:
    """How every report names a change below the threshold (``below the 5 % threshold``)."""
    return f"below the {percent(threshold)} threshold"


@dataclasses.dataclass(frozen=True)
class BenchmarkResult:
    """One (program, variant, backend, metric) and its verdict."""

    id: str
    program: str
    variant: str
    backend: str
    metric: str
    unit: str
    gated: bool
    threshold: float | None
    base: SideNumbers | None
    head: SideNumbers | None
    ratio: float | None
    ratio_ci: tuple[float, float] | None
    p_value: float | None
    q_value: float | None
    verdict: str
    notes: tuple[str, ...] = ()
    error: str | None = None
    #: the interleaved A/B of a flagged benchmark (``None``: not measured again); where it
    #: did not confirm the flag, ``verdict`` is the A/B's (unchanged) or inconclusive
    confirmation: Confirmation | None = None

    @property
    def job(self) -> tuple[str, str]:
        """The (case, backend) that measures it: what a check or an A/B runs again.

        >>> Summary.example().benchmarks[0].job
        ('compute_theta_rho_face_values[default]', 'gtfn_gpu')
        """
        return self.id.split("|")[0], self.backend

    @property
    def not_confirmed(self) -> bool:
        """Flagged by the comparison, not by the A/B: run-to-run noise, never reported."""
        return self.confirmation is not None and not self.confirmation.confirmed

    @property
    def below_threshold(self) -> bool:
        """A regression or improvement whose interval stays within its threshold.

        The interval is its A/B's where one confirmed it (the gate's one rule).
        """
        held = self.confirmation
        ci = held.ratio_ci if held is not None and held.confirmed else self.ratio_ci
        return self.threshold is not None and below_threshold(self.verdict, ci, self.threshold)

    @property
    def threshold_note(self) -> str:
        """``below the 5 % threshold`` for a change below it, else ``""``.

        What every report adds to the verdict or to the change it shows.
        """
        if not self.below_threshold or self.threshold is None:
            return ""
        return threshold_words(self.threshold)

    @property
    def verdict_words(self) -> str:
        """The verdict as every report names it: ``regression (below the 5 % threshold)``.

        >>> b = Summary.example().benchmarks[0]
        >>> b.verdict_words, dataclasses.replace(b, ratio_ci=(1.03, 1.04)).verdict_words
        ('regression', 'regression (below the 5 % threshold)')
        """
        return f"{self.verdict} ({self.threshold_note})" if self.threshold_note else self.verdict

    @property
    def change(self) -> float | None:
        """Relative change ``ratio - 1`` (> 0: slower for times), rounded to 1e-6."""
        return None if self.ratio is None else round(self.ratio - 1, 6)

    @property
    def codegen_changed(self) -> bool:
        """Whether the generated code differs (the gate's note, or two differing fingerprints)."""
        if any("code generation" in note for note in self.notes):
            return True
        prints = [s.fingerprint for s in (self.base, self.head) if s is not None]
        return len(prints) == 2 and None not in prints and prints[0] != prints[1]


@dataclasses.dataclass(frozen=True)
class ProgramSpeedup:
    """One ICON timer's program(s) against OpenACC on one side."""

    program: str
    backend: str
    timer: str
    openacc_s: float
    gt4py_s: float | None
    speedup: float | None
    share: float
    #: the speed-up restated for the baseline's GPU by memory bandwidth (GPUs differ)
    speedup_scaled: float | None = None
    #: ``ok``, ``partial``, ``not measured`` or ``enclosed`` (as ``speedup.Row.status``)
    status: str = ""
    #: the timer's programs that were not measured
    missing: tuple[str, ...] = ()


@dataclasses.dataclass(frozen=True)
class OpenACCSide:
    """The ``integrate_nh`` estimate per backend and the programs by share, for one side."""

    integrate_nh: dict[str, float]
    programs: tuple[ProgramSpeedup, ...] = ()
    #: the share of the OpenACC step time the estimate speaks for, per backend
    coverage: dict[str, float] = dataclasses.field(default_factory=dict)
    #: the estimate restated for the baseline's GPU by memory bandwidth (GPUs differ)
    integrate_nh_scaled: dict[str, float] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass(frozen=True)
class OpenACC:
    """Each side's speed-up against a stored OpenACC baseline (the ``openacc`` key)."""

    baseline: str
    experiment: str
    #: ``baseline``/``measured`` GPU names; ``bandwidth_scale`` (factor on GT4Py times that
    #: restates them for the baseline's GPU) and ``scale_source`` where the GPUs differ
    gpu: dict[str, Any]
    base: OpenACCSide | None
    head: OpenACCSide | None
    #: mismatches (grid, GPU) of a comparison made anyway (``--force``); empty: like for like
    forced: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        """The ``openacc`` object of the document (``sides`` keyed by base/head)."""
        return {
            "baseline": self.baseline,
            "experiment": self.experiment,
            "gpu": dict(self.gpu),
            "forced": list(self.forced),
            "sides": {
                name: dataclasses.asdict(side)
                for name, side in (("base", self.base), ("head", self.head))
                if side is not None
            },
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> OpenACC:
        """The typed value of an ``openacc`` object."""

        def side(d: dict[str, Any] | None) -> OpenACCSide | None:
            if d is None:
                return None
            programs = tuple(
                ProgramSpeedup(
                    **{**_known(ProgramSpeedup, p), "missing": tuple(p.get("missing") or ())}
                )
                for p in d["programs"]
            )

            def numbers(key: str) -> dict[str, float]:
                return {k: float(v) for k, v in (d.get(key) or {}).items() if v is not None}

            return OpenACCSide(
                numbers("integrate_nh"),
                programs,
                numbers("coverage"),
                numbers("integrate_nh_scaled"),
            )

        sides = data.get("sides") or {}
        return cls(
            baseline=str(data["baseline"]),
            experiment=str(data.get("experiment", "")),
            gpu=dict(data.get("gpu") or {}),
            base=side(sides.get("base")),
            head=side(sides.get("head")),
            forced=tuple(str(f) for f in data.get("forced") or ()),
        )


@dataclasses.dataclass(frozen=True)
class Bisection:
    """The first bad commit of a regression, found by ``iconbench bisect`` (``bisect`` key)."""

    id: str
    first_bad: str
    component: str = ""
    repository: str = ""
    benchmark: str = ""
    good: str = ""
    bad: str = ""
    parent: str = ""
    subject: str = ""
    url: str = ""
    ratio: float | None = None
    before: float | None = None
    after: float | None = None
    commits: int | None = None
    method: str = ""
    #: each step of an interleaved bisection, in the order measured (empty: ``asv find``)
    steps: tuple[BisectStep, ...] = ()


@dataclasses.dataclass(frozen=True)
class BisectStep:
    """One step of an interleaved bisection: ``commit`` measured against ``good`` by an A/B.

    ``bad``: the A/B's verdict of the bisected benchmark is the regression's (its
    ``verdict``); ``ratio``, ``ratio_ci``: commit/good; ``processes``: ``"4+4"``.
    """

    commit: str
    bad: bool
    verdict: str
    ratio: float | None
    ratio_ci: tuple[float, float] | None
    processes: str
    directory: str = ""

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> BisectStep:
        known = _known(cls, data)
        known["ratio_ci"] = tuple(data["ratio_ci"]) if data.get("ratio_ci") else None
        return cls(**known)


@dataclasses.dataclass(frozen=True)
class ConfirmationRun:
    """Where the flagged benchmarks of a summary were measured again (``confirmation_run``).

    ``base`` and ``head``: per component whose commit differs between the two runs, the
    commit whose tree each side put first on the path (the others: the running
    environment's); ``directory``: the A/B's (both sides' results, rounds, its own gate
    summary, phase times); ``rounds``: processes in all; ``stopped``: why it stopped.
    """

    created: str
    directory: str
    base: dict[str, str]
    head: dict[str, str]
    rounds: int
    stopped: str


@dataclasses.dataclass(frozen=True)
class MachineShift:
    """The common shift of one metric, from the benchmarks whose code did not change.

    The summary's ``machine_shift`` entries, estimated by :func:`iconbench.gate.shift.estimate`.

    Attributes:
        metric: ``device_time``, ``host_overhead``.
        ratio: head/base of the runner (1.029: head's runner 2.9 % slower).
        ratio_ci: its confidence interval.
        controls: how many benchmarks with equal fingerprints it was estimated from.
        changed: how many compared benchmarks had different fingerprints.
        limit: the largest shift the gate corrects for (``max_machine_shift``).
        decides: whether a shift beyond the limit makes the run not comparable (``False``
            for a metric whose processes scatter beyond the limit on unchanged code).

    """

    metric: str
    ratio: float
    ratio_ci: tuple[float, float]
    controls: int
    changed: int
    limit: float
    decides: bool = True

    @property
    def beyond_limit(self) -> bool:
        """The whole interval lies beyond ``±limit``: the runner itself moved that far.

        >>> MachineShift("device_time", 1.08, (1.07, 1.09), 400, 0, 0.05).beyond_limit
        True
        >>> MachineShift("host_overhead", 0.907, (0.873, 1.17), 20, 0, 0.05).beyond_limit
        False
        """
        bound = math.log1p(self.limit)
        low, high = (math.log(r) for r in self.ratio_ci)
        return low > bound or high < -bound

    @property
    def comparable(self) -> bool:
        """The run stays comparable: within the limit, or a metric that does not decide."""
        return not (self.decides and self.beyond_limit)

    @property
    def corrected(self) -> bool:
        """Benchmarks of this metric are judged relative to the shift (not beyond the limit)."""
        return not self.beyond_limit

    def line(self) -> str:
        """The summary's one line.

        >>> MachineShift("device_time", 1.029, (1.025, 1.033), 400, 12, 0.05).line()
        'device_time: the runner was 2.9 % [2.5, 3.3] slower on the 400 benchmarks whose code did not change'
        """  # noqa: E501
        change = self.ratio - 1
        word, sign = ("slower", 1) if change >= 0 else ("faster", -1)
        low, high = (
            f"{v:.1f}".replace("-0.0", "0.0")
            for v in sorted(sign * (r - 1) * 100 for r in self.ratio_ci)
        )
        text = (
            f"{self.metric}: the runner was {abs(change) * 100:.1f} % [{low}, {high}] "
            f"{word} on the {self.controls} benchmarks whose code did not change"
        )
        if self.beyond_limit and self.decides:
            text += f", beyond the {self.limit * 100:.0f} % limit: not comparable"
        elif self.beyond_limit:
            text += f", beyond the {self.limit * 100:.0f} % limit (not corrected; this metric "
            text += "does not decide whether runs are comparable)"
        return text


@dataclasses.dataclass(frozen=True)
class FileChange:
    """One generated source file: lines added and removed (``status``: changed, new, gone)."""

    path: str
    added: int
    removed: int
    status: str = "changed"


@dataclasses.dataclass(frozen=True)
class CodeDiff:
    """The generated code of one benchmark, base against head.

    ``excerpt`` is a unified diff cut to a bounded size (``shown_lines`` of its
    ``changed_lines`` added and removed lines); ``files`` lists every file that differs.
    ``source`` says where the code came from (the build folder, or generated again from the
    program's SDFG where DaCe keeps only the library). Lines that differ only in the names
    the generators number (``_fun_2`` -> ``_fun_3``) are no change: ``renamed_lines`` counts
    them (:func:`iconbench.explain.codediff.normalise`); ``full_diff`` names the file that
    keeps the whole diff (the explanation's work folder).
    """

    base: str | None
    head: str | None
    files: tuple[FileChange, ...]
    excerpt: str
    changed_lines: int
    shown_lines: int
    source: str = "build folder"
    renamed_lines: int = 0
    full_diff: str = ""

    @property
    def identical(self) -> bool:
        """Whether the two sides generated the same code."""
        return not self.files


@dataclasses.dataclass(frozen=True)
class Why:
    """The explanation of one flagged (case, backend): kernels, code, what is missing."""

    id: str
    program: str
    backend: str
    kernels: KernelDiff | None = None
    code: CodeDiff | None = None
    #: what was run to get the kernels (the profiler and its calls), for the record
    profiler: str = ""
    #: one line per part that could not be had (no profiler, a side's error)
    notes: tuple[str, ...] = ()
    #: ids of the other flagged variants of the program (same backend and metric) whose
    #: generated code launches the same kernels: explained by this entry, not profiled again
    same_kernels: tuple[str, ...] = ()

    @property
    def case(self) -> str:
        """``program[variant]`` of the benchmark id."""
        return self.id.split("|")[0]

    @property
    def metric(self) -> str:
        """The gated metric of the benchmark id (``device_time``)."""
        return self.id.split("|")[2] if self.id.count("|") >= 2 else ""

    def as_dict(self) -> dict[str, Any]:
        """The JSON object of the summary's ``why`` list."""
        return {
            "id": self.id,
            "program": self.program,
            "backend": self.backend,
            "kernels": self.kernels.as_dict() if self.kernels else None,
            "code": dataclasses.asdict(self.code) if self.code else None,
            "profiler": self.profiler,
            "notes": list(self.notes),
            "same_kernels": list(self.same_kernels),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Why:
        """The typed value of an object written by :meth:`as_dict`."""
        code = data.get("code")
        return cls(
            id=str(data["id"]),
            program=str(data.get("program") or data["id"].split("[")[0]),
            backend=str(data.get("backend") or data["id"].split("|")[1]),
            kernels=KernelDiff.from_dict(data["kernels"]) if data.get("kernels") else None,
            code=None
            if not code
            else CodeDiff(
                base=code.get("base"),
                head=code.get("head"),
                files=tuple(FileChange(**f) for f in code.get("files") or ()),
                excerpt=str(code.get("excerpt") or ""),
                changed_lines=int(code.get("changed_lines") or 0),
                shown_lines=int(code.get("shown_lines") or 0),
                source=str(code.get("source") or "build folder"),
                renamed_lines=int(code.get("renamed_lines") or 0),
                full_diff=str(code.get("full_diff") or ""),
            ),
            profiler=str(data.get("profiler") or ""),
            notes=tuple(str(n) for n in data.get("notes") or ()),
            same_kernels=tuple(str(i) for i in data.get("same_kernels") or ()),
        )


@dataclasses.dataclass(frozen=True)
class Settings:
    """The settings the verdict was made with."""

    fdr: float
    confidence: float
    thresholds: dict[str, float]


@dataclasses.dataclass(frozen=True)
class Summary:
    """The whole summary document."""

    created: str
    verdict: str
    exit_code: int
    base: Side
    head: Side
    settings: Settings
    counts: dict[str, int]
    benchmarks: tuple[BenchmarkResult, ...]
    openacc: OpenACC | None = None
    #: why the run failed (``verdict == "error"``): no benchmark has numbers on head
    error: str | None = None
    #: the program and version that wrote the document
    generated_by: str = ""
    #: first bad commits of regressions, appended by ``iconbench bisect``
    bisect: tuple[Bisection, ...] = ()
    #: the runner's common shift per metric, from the benchmarks whose code did not change
    #: (the ``machine_shift`` key; empty: no control benchmarks, verdicts are absolute)
    machine_shift: tuple[MachineShift, ...] = ()
    #: per-kernel diffs of flagged benchmarks (``iconbench compare --kernels``)
    kernels: tuple[KernelDiff, ...] = ()
    #: why each flagged GPU benchmark changed: kernels and generated code, base against head
    #: (the ``why`` key, ``iconbench explain`` after the verdict)
    why: tuple[Why, ...] = ()
    #: why ``openacc`` is empty (no ICON experiment on the grid, no GPU backend, ...): one line
    openacc_note: str = ""
    #: the interleaved A/B of the flagged benchmarks (``iconbench confirm``; ``None``: none)
    confirmation_run: ConfirmationRun | None = None

    @property
    def explanations(self) -> tuple[Why, ...]:
        """``why``, plus each ``kernels`` diff of a benchmark it does not explain.

        >>> s = Summary.example()
        >>> diff = KernelDiff(s.benchmarks[0].id, 1.0e-4, 1.1e-4, ())
        >>> [(w.program, w.backend) for w in dataclasses.replace(s, kernels=(diff,)).explanations]
        [('compute_theta_rho_face_values', 'gtfn_gpu')]
        """
        explained = {w.id for w in self.why}
        benches = {b.id: b for b in self.benchmarks}
        extra = []
        for diff in self.kernels:
            if diff.id in explained:
                continue
            bench = benches.get(diff.id)
            case, backend = diff.id.split("|")[:2]
            program = bench.program if bench else case.split("[")[0]
            extra.append(Why(diff.id, program, backend, kernels=diff))
        return (*self.why, *extra)

    @property
    def grid_name(self) -> str:
        """The grid's name (head side; a status context is ``iconbench/<grid>``)."""
        return self.head.grid.name or self.base.grid.name or "unknown"

    def as_dict(self) -> dict[str, Any]:
        """The JSON document as a dict (schema and version first)."""
        body = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        for name in ("base", "head", "settings"):
            body[name] = dataclasses.asdict(body[name])
        body["benchmarks"] = [dataclasses.asdict(b) for b in self.benchmarks]
        body["openacc"] = self.openacc.as_dict() if self.openacc else None
        body["bisect"] = [dataclasses.asdict(b) for b in self.bisect]
        body["machine_shift"] = [dataclasses.asdict(m) for m in self.machine_shift]
        body["kernels"] = [k.as_dict() for k in self.kernels]
        body["why"] = [w.as_dict() for w in self.why]
        body["confirmation_run"] = (
            dataclasses.asdict(self.confirmation_run) if self.confirmation_run else None
        )
        return {"schema": SCHEMA, "version": VERSION, **body}

    def to_json(self) -> str:
        """The document as JSON text."""
        return json.dumps(self.as_dict(), indent=1) + "\n"

    def write(self, path: str | os.PathLike[str]) -> pathlib.Path:
        """Write atomically (temporary file in the same directory, then ``os.replace``)."""
        return write_atomic(path, self.to_json())

    @classmethod
    def from_json(cls, text: str, origin: str = "gate summary") -> Summary:
        """Parse and check a summary; one line naming ``origin`` for anything not v1."""
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            raise IconbenchError(
                f"{origin}: line {error.lineno}: not JSON ({error.msg}); pass the file that "
                "'iconbench compare BASE HEAD --out summary.json' wrote"
            ) from None
        if not isinstance(data, dict):
            raise IconbenchError(f"{origin}: a JSON object expected, found {type(data).__name__}")
        if data.get("schema") != SCHEMA:
            raise IconbenchError(
                f"{origin}: schema {data.get('schema')!r} is not an {SCHEMA}; write it with "
                "'iconbench compare BASE HEAD --out summary.json'"
            )
        if data.get("version") != VERSION:
            raise IconbenchError(
                f"{origin}: version {data.get('version')!r} is not supported (this reader knows "
                f"{SCHEMA} version {VERSION}); upgrade iconbench"
            )
        try:
            return cls._from_dict(data)
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            raise IconbenchError(
                f"{origin}: broken {SCHEMA} v{VERSION} document (missing or invalid {error}); "
                "regenerate it with 'iconbench compare'"
            ) from None

    @classmethod
    def read(cls, path: str | os.PathLike[str]) -> Summary:
        """Read a summary file; a missing or unreadable one is one line naming it."""
        try:
            text = pathlib.Path(path).read_text(encoding="utf-8")
        except FileNotFoundError:
            raise IconbenchError(
                f"{path}: no such gate summary; pass the file 'iconbench compare --out' wrote"
            ) from None
        except (OSError, UnicodeDecodeError) as error:
            raise IconbenchError(f"{path}: not a readable gate summary ({error})") from None
        return cls.from_json(text, origin=str(path))

    @classmethod
    def _from_dict(cls, data: dict[str, Any]) -> Summary:
        def side(d: dict[str, Any]) -> Side:
            return Side(**{**_known(Side, d), "grid": Grid(**_known(Grid, d["grid"]))})

        def numbers(d: dict[str, Any] | None) -> SideNumbers | None:
            if d is None:
                return None
            known = _known(SideNumbers, d)
            if known.get("ci") is not None:
                known["ci"] = tuple(known["ci"])
            return SideNumbers(**known)

        def bench(d: dict[str, Any]) -> BenchmarkResult:
            if d["verdict"] not in VERDICTS:
                raise ValueError(f"benchmark verdict {d['verdict']!r}")
            known = _known(BenchmarkResult, d)
            known["base"], known["head"] = numbers(d["base"]), numbers(d["head"])
            known["ratio_ci"] = tuple(d["ratio_ci"]) if d.get("ratio_ci") else None
            known["notes"] = tuple(d.get("notes", ()))
            if d.get("confirmation"):
                known["confirmation"] = Confirmation.from_dict(d["confirmation"])
            return BenchmarkResult(**known)

        def bisection(d: dict[str, Any]) -> Bisection:
            steps = tuple(BisectStep.from_dict(s) for s in d.get("steps") or ())
            return Bisection(**{**_known(Bisection, d), "steps": steps})

        if data["verdict"] not in (*RUN_VERDICTS.values(), NOT_COMPARABLE):
            raise ValueError(f"verdict {data['verdict']!r}")
        return cls(
            created=data["created"],
            verdict=data["verdict"],
            exit_code=data["exit_code"],
            base=side(data["base"]),
            head=side(data["head"]),
            settings=Settings(**_known(Settings, data["settings"])),
            counts=dict(data["counts"]),
            benchmarks=tuple(bench(b) for b in data["benchmarks"]),
            openacc=OpenACC.from_dict(data["openacc"]) if data.get("openacc") else None,
            error=data.get("error"),
            generated_by=str(data.get("generated_by") or ""),
            bisect=tuple(bisection(b) for b in data.get("bisect") or ()),
            machine_shift=tuple(
                MachineShift(**{**_known(MachineShift, m), "ratio_ci": tuple(m["ratio_ci"])})
                for m in data.get("machine_shift") or ()
            ),
            kernels=tuple(KernelDiff.from_dict(k) for k in data.get("kernels") or ()),
            why=tuple(Why.from_dict(w) for w in data.get("why") or ()),
            openacc_note=str(data.get("openacc_note") or ""),
            confirmation_run=ConfirmationRun(**_known(ConfirmationRun, data["confirmation_run"]))
            if data.get("confirmation_run")
            else None,
        )

    @classmethod
    def example(cls) -> Summary:
        """The example of docs/gate-summary.md (for readers' tests)."""
        grid = Grid("icon_benchmark_regional", 44528, 67096, 22569, 80)
        side = Side(
            label="main",
            commit="0e8595e4",
            component="gt4py",
            date="2026-11-23T10:51:12+00:00",
            stack={"gt4py": "1.2.1", "dace": "2.0.0a6", "icon4py": "0.4.1"},
            machine={"name": "h100-runner", "gpu": "NVIDIA H100 80GB HBM3"},
            grid=grid,
            source="results/h100/asv/h100/0e8595e4.json",
        )
        bench = BenchmarkResult(
            id="compute_theta_rho_face_values[default]|gtfn_gpu|device_time",
            program="compute_theta_rho_face_values",
            variant="default",
            backend="gtfn_gpu",
            metric="device_time",
            unit="s",
            gated=True,
            threshold=0.05,
            base=SideNumbers(1.23e-4, 50, (1.22e-4, 1.24e-4), "28d4c4bc"),
            head=SideNumbers(1.31e-4, 50, (1.30e-4, 1.32e-4), "28d4c4bc"),
            ratio=1.065,
            ratio_ci=(1.058, 1.071),
            p_value=1.2e-9,
            q_value=4.0e-7,
            verdict="regression",
        )
        counts = dict.fromkeys(VERDICTS, 0) | {"regression": 1}
        return cls(
            created="2026-11-23T20:00:00+00:00",
            verdict="regression",
            exit_code=1,
            base=side,
            head=dataclasses.replace(side, label="HEAD"),
            settings=Settings(0.05, 0.95, {"device_time": 0.05, "host_overhead": 0.10}),
            counts=counts,
            benchmarks=(bench,),
        )


def _known(kind: type, data: dict[str, Any]) -> dict[str, Any]:
    """The keys of ``data`` that ``kind`` has (keys added later in version 1 are skipped)."""
    names = {f.name for f in dataclasses.fields(kind)}
    return {k: v for k, v in data.items() if k in names}
