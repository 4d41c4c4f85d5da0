"""Two separate runs: each benchmark judged against its own run-to-run noise band."""

from __future__ import annotations

import numpy as np

from iconbench.gate import verdict
from iconbench.records import resultset

QUIET, NOISY = "quiet[default]|gtfn_gpu|device_time", "noisy[default]|gtfn_gpu|device_time"


def _run(name: str, medians: dict[str, float], day: int, seed: int) -> resultset.ResultSet:
    """One run: 30 samples with 0.3 % noise around each benchmark's median (one process)."""
    rng = np.random.default_rng(seed)
    entries = {}
    for key, median in medians.items():
        case, backend, metric = key.split("|")
        samples = median * np.exp(rng.normal(0, 0.003, 30))
        entries[key] = resultset.Entry(case, backend, metric, tuple(float(s) for s in samples))
    return resultset.ResultSet(name, "asv", name, f"2026-11-{day:02d}", {}, {},
                               resultset.Grid("tiny"), "test", entries)  # fmt: skip


def _history() -> list[resultset.ResultSet]:
    """Eight earlier nights: the quiet benchmark moves ±0.3 %, the noisy one ±4 %."""
    quiet = [1.0, 1.002, 0.998, 1.001, 0.999, 1.003, 1.0, 0.998]
    noisy = [1.0, 1.04, 0.96, 1.03, 0.97, 1.05, 0.98, 1.02]
    return [
        _run(f"night{i}", {QUIET: 100e-6 * q, NOISY: 50e-6 * n}, day=i + 1, seed=i)
        for i, (q, n) in enumerate(zip(quiet, noisy, strict=True))
    ]


def _verdicts(step: float, history) -> dict[str, tuple[str, float]]:
    base = _run("base", {QUIET: 100e-6, NOISY: 50e-6}, day=20, seed=50)
    head = _run("head", {QUIET: 100e-6 * step, NOISY: 50e-6 * step}, day=21, seed=51)
    summary = verdict.compare(base, head, history=history)
    return {r.id: (r.verdict, r.threshold) for r in summary.benchmarks}


def test_each_benchmark_is_judged_against_its_own_band():
    history = _history()
    eight = _verdicts(1.08, history)
    assert eight[QUIET] == ("regression", 0.05)  # its band is far below the 5 % threshold
    noisy_verdict, noisy_threshold = eight[NOISY]
    assert noisy_verdict != "regression"  # 8 % lies inside what it does between nights
    assert noisy_threshold > 0.16
    # without a history both are judged by their samples alone: both regress
    assert {v for v, _ in _verdicts(1.08, ()).values()} == {"regression"}
    # beyond its band the noisy one regresses too
    assert _verdicts(1.6, history)[NOISY][0] == "regression"


def test_the_band_is_learned_oldest_first():
    """Measured out of order, the history still gives the same band (sorted by date)."""
    history = _history()
    assert _verdicts(1.08, history[::-1]) == _verdicts(1.08, history)
