"""What the gate would measure again while a check's precompile still runs (``_open_so_far``).

Real session ledgers of 4 processes a side (two blocks), judged by the real gate: a case
left open that more processes could turn into a regression is named, one decided is not,
and one that some round has not measured yet is not asked about.
"""

from __future__ import annotations

import numpy as np

from iconbench import grids
from iconbench.check import stopping
from iconbench.check.run import _open_so_far
from iconbench.records import session
from iconbench.records.session import Measurement
from iconbench.stacks.sides import Side

#: Device time a side per case: p slower by about the gate's threshold (open, and more
#: processes could make it a regression), q far slower (a regression, decided), r the same.
DEVICE_S = {"base": {"p": 100e-6, "q": 100e-6, "r": 100e-6},
            "head": {"p": 106e-6, "q": 150e-6, "r": 100e-6}}  # fmt: skip


def _ledgers(root, side: str) -> Side:
    """``side``'s ledger: 4 rounds (processes), each off by a few per cent, 50 samples each."""
    rng = np.random.default_rng(len(side))
    ledger = session.SessionLedger(root / side / "work" / "session.jsonl")
    for number in range(1, 5):
        for program, scale in DEVICE_S[side].items():
            device = list(scale * np.exp(rng.normal(0, 0.03)) * np.exp(rng.normal(0, 0.002, 50)))
            measurement = Measurement(
                host_s=[d + 40e-6 for d in device], device_s=device,
                device_source="cuda-events-held", reference_s=[30e-6] * 50,
            )  # fmt: skip
            ledger.append(session.CaseResult(
                f"{program}[default]", "gtfn_gpu", "tiny", measurement, 0, 0.0, None, "ab",
                None, None, started_at=float(number), duration_s=1.0, worker=f"r{number:02d}",
            ))  # fmt: skip
    return Side(side, side, side[0] * 40, (), root / side, "s")


def test_the_cases_named_are_those_measured_whose_benchmarks_the_gate_keeps_on(tmp_path):
    base, head = _ledgers(tmp_path, "base"), _ledgers(tmp_path, "head")
    grid = grids.resolve("tiny")
    summary = stopping.ledger_verdict(base, head, grid)
    verdicts = {b.job[0]: b.verdict for b in summary.benchmarks if b.metric == "device_time"}
    assert verdicts == {"p[default]": "inconclusive", "q[default]": "regression",
                        "r[default]": "unchanged"}  # fmt: skip
    every = frozenset((f"{p}[default]", "gtfn_gpu") for p in "pqr")
    assert _open_so_far(base, head, grid, 4, most=8, measured=every) == {("p[default]", "gtfn_gpu")}
    # p not yet measured in every round: not named, whatever its ledger says so far
    without_p = every - {("p[default]", "gtfn_gpu")}
    assert _open_so_far(base, head, grid, 4, most=8, measured=without_p) == set()
    # at the most processes a side no block is left to decide it: nothing to start early
    assert _open_so_far(base, head, grid, 8, most=8, measured=every) == set()
