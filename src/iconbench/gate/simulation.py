"""The gate's simulation on real samples: false alarms and power under planted effects.

Each trial draws a base and a head result set from one measured result set (every
benchmark's samples re-sampled with replacement, as many as were measured), plants an
effect, and runs the gate (:func:`iconbench.gate.verdict.compare`, what ``iconbench
compare`` runs) on the pair. The scenarios are the runner's failure modes:

- ``identical``: two runs of the same code (false alarms of the test and FDR alone);
- ``shift``: every head sample +3 % (a slower runner): no benchmark may regress, one
  machine-shift line must say +3 %;
- ``shift+regressions``: the same shift and +5 % more on 10 benchmarks whose code changed
  (their head fingerprint differs): the 10 must be caught, nothing else;
- ``outliers``: 10 % of the samples of both sides at 2x (other tenants, clock dips): no
  false alarm;
- ``outliers+regressions``: the same outliers and +5 % on 10 benchmarks (code changed):
  the power must hold.

A false alarm is a regression or improvement of a benchmark with no planted effect; a
catch is a regression of a benchmark with one. ``iconbench simulate-gate`` prints the
table (docs/gate-simulation.md holds its output).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np

from iconbench.gate import verdict
from iconbench.gate.config import GateConfig
from iconbench.records.resultset import Entry, ResultSet


@dataclasses.dataclass(frozen=True)
class Scenario:
    """A planted effect: a common shift, a regression on some benchmarks, outliers."""

    name: str
    shift: float = 0.0
    regression: float = 0.0
    regressed: int = 0
    outlier_share: float = 0.0
    outlier_factor: float = 2.0


SCENARIOS = (
    Scenario("identical"),
    Scenario("shift", shift=0.03),
    Scenario("shift+regressions", shift=0.03, regression=0.05, regressed=10),
    Scenario("outliers", outlier_share=0.10),
    Scenario("outliers+regressions", regression=0.05, regressed=10, outlier_share=0.10),
)


@dataclasses.dataclass(frozen=True)
class Outcome:
    """One scenario's result over ``trials`` runs.

    Attributes:
        false_alarm_runs: runs with at least one false regression or improvement.
        false_alarms: false regressions and improvements over all runs.
        caught: planted regressions flagged as regression, over all runs.
        planted: planted regressions over all runs (``regressed * trials``).
        not_comparable: runs whose shift exceeded the limit.
        shift: the median over runs of the device-time shift the gate estimated (ratio).
        shift_line: the machine-shift line of the first run (``""`` without one).
        flagged: each false alarm (benchmark, verdict, ratio).

    """

    scenario: Scenario
    trials: int
    benchmarks: int
    false_alarm_runs: int
    false_alarms: int
    caught: int
    planted: int
    not_comparable: int
    shift: float | None
    shift_line: str
    #: each false alarm: benchmark, verdict, ratio
    flagged: tuple[str, ...] = ()

    @property
    def power(self) -> float | None:
        """Share of planted regressions caught (``None`` without any planted)."""
        return self.caught / self.planted if self.planted else None


def measured_entries(source: ResultSet) -> dict[str, Entry]:
    """The benchmarks of ``source`` that the gate tests: gated metrics with samples."""
    config = GateConfig.default()
    return {
        key: entry
        for key, entry in sorted(source.entries.items())
        if entry.samples and not entry.error and config.gated.get(entry.metric)
    }


def _draw(
    rng: np.random.Generator, entry: Entry, factor: float, scenario: Scenario
) -> tuple[float, ...]:
    samples = rng.choice(np.asarray(entry.samples), size=len(entry.samples)) * factor
    if scenario.outlier_share:
        hit = rng.random(len(samples)) < scenario.outlier_share
        samples = np.where(hit, samples * scenario.outlier_factor, samples)
    return tuple(float(v) for v in samples)


@dataclasses.dataclass(frozen=True)
class Trial:
    """One re-sampled comparison: what the gate flagged and the shift it estimated."""

    false_alarms: tuple[str, ...]
    caught: int
    not_comparable: bool
    shift: float | None
    shift_line: str


def one_run(
    source: ResultSet,
    entries: dict[str, Entry],
    scenario: Scenario,
    seed: int,
    config: GateConfig | None = None,
) -> Trial:
    """One trial of ``scenario`` on ``entries`` re-sampled with ``seed``."""
    rng = np.random.default_rng(seed)
    keys = list(entries)
    device = [k for k in keys if entries[k].metric == "device_time"]
    regressed = set(rng.choice(device, size=scenario.regressed, replace=False).tolist())
    base, head = {}, {}
    for key, entry in entries.items():
        factor = 1 + scenario.shift
        fingerprint = entry.fingerprint or "0"
        if key in regressed:
            factor *= 1 + scenario.regression
            fingerprint = fingerprint + "-changed"
        base[key] = dataclasses.replace(entry, samples=_draw(rng, entry, 1.0, scenario))
        head[key] = dataclasses.replace(
            entry, samples=_draw(rng, entry, factor, scenario), fingerprint=fingerprint
        )
    summary = verdict.compare(
        dataclasses.replace(source, label="base", entries=base),
        dataclasses.replace(source, label="head", entries=head),
        config,
    )
    false = tuple(
        f"{r.id} {r.verdict} {r.ratio}"
        for r in summary.benchmarks
        if r.verdict in ("regression", "improvement") and r.id not in regressed
    )
    caught = sum(1 for r in summary.benchmarks if r.verdict == "regression" and r.id in regressed)
    shifts = {s.metric: s for s in summary.machine_shift}
    device_shift = shifts.get("device_time")
    line = "; ".join(s.line() for s in summary.machine_shift)
    return Trial(
        false,
        caught,
        summary.verdict == "not comparable",
        device_shift.ratio if device_shift else None,
        line,
    )


def simulate(
    source: ResultSet,
    scenarios: Sequence[Scenario] = SCENARIOS,
    *,
    trials: int = 100,
    seed: int = 0,
    config: GateConfig | None = None,
) -> list[Outcome]:
    """Run every scenario ``trials`` times on re-sampled copies of ``source``."""
    entries = measured_entries(source)
    outcomes = []
    for number, scenario in enumerate(scenarios):
        runs = [
            one_run(source, entries, scenario, seed + 100_000 * number + i, config)
            for i in range(trials)
        ]
        ratios = [r.shift for r in runs if r.shift is not None]
        outcomes.append(
            Outcome(
                scenario=scenario,
                trials=trials,
                benchmarks=len(entries),
                false_alarm_runs=sum(1 for r in runs if r.false_alarms),
                false_alarms=sum(len(r.false_alarms) for r in runs),
                caught=sum(r.caught for r in runs),
                planted=scenario.regressed * trials,
                not_comparable=sum(1 for r in runs if r.not_comparable),
                shift=float(np.median(ratios)) if ratios else None,
                shift_line=runs[0].shift_line if runs else "",
                flagged=tuple(f for r in runs for f in r.false_alarms),
            )
        )
    return outcomes


def upper95(k: int, n: int) -> float:
    """One-sided 95 % Clopper-Pearson upper bound of a rate of ``k`` in ``n``.

    >>> round(upper95(0, 100), 4)
    0.0295
    """
    from scipy import stats as scipy_stats

    return 1.0 if k == n else float(scipy_stats.beta.ppf(0.95, k + 1, n - k))


def lower95(k: int, n: int) -> float:
    """One-sided 95 % Clopper-Pearson lower bound of a rate of ``k`` in ``n``.

    >>> round(lower95(1000, 1000), 4)
    0.997
    """
    from scipy import stats as scipy_stats

    return 0.0 if k == 0 else float(scipy_stats.beta.ppf(0.05, k, n - k + 1))


def table(outcomes: Sequence[Outcome]) -> str:
    """The Markdown table of the outcomes."""
    lines = [
        "| scenario | runs | benchmarks | runs with a false alarm | caught | not comparable "
        "| device-time shift (median) |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for o in outcomes:
        s = o.scenario
        name = s.name
        alarms = (
            f"{o.false_alarm_runs}/{o.trials} (≤ {upper95(o.false_alarm_runs, o.trials):.1%}); "
            f"{o.false_alarms} in all"
        )
        caught = "-"
        if o.planted:
            caught = (
                f"{o.caught}/{o.planted} = {o.power:.1%} (≥ {lower95(o.caught, o.planted):.1%})"
            )
        shift = "-" if o.shift is None else f"{(o.shift - 1) * 100:+.2f} %"
        lines.append(
            f"| {name} | {o.trials} | {o.benchmarks} | {alarms} | {caught} | "
            f"{o.not_comparable}/{o.trials} | {shift} |"
        )
    return "\n".join(lines)


def describe(scenario: Scenario) -> str:
    """One line saying what a scenario plants."""
    parts = []
    if scenario.shift:
        parts.append(f"every head sample x{1 + scenario.shift:g}")
    if scenario.regressed:
        parts.append(
            f"+{scenario.regression:.0%} more on {scenario.regressed} device-time benchmarks "
            "(code changed)"
        )
    if scenario.outlier_share:
        parts.append(
            f"{scenario.outlier_share:.0%} of samples on both sides x{scenario.outlier_factor:g}"
        )
    return "; ".join(parts) or "nothing planted"
