"""Real asv results of two commits on the CPU (embedded backend, tiny grid), one slower.

Run by the ``cpu_results`` fixture in a subprocess (the catalog on, a clean gt4py import):
``python tests/gate/make_cpu_results.py OUT``. The suite's own measurement path
(:func:`iconbench.timing.session.run_cases`, as ``iconbench suite measure`` uses it) times
each case; :func:`iconbench.records.asv.write_asv` stores it as ``asv run`` would. The "commits"
differ only where a role below makes a program slower (a busy wait inside the call, so the
timers see it), noisy, bimodal or broken, or present on one side only.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import pathlib
import random
import statistics
import sys
import time

from iconbench.grids import resolve

TINY = resolve("tiny")

BASE, HEAD = "b0" * 20, "e1" * 20

#: case -> role; the verdict each role must get is asserted in test_compare_cpu.py
ROLES = {
    "compute_airmass[default]": "regression",  # head +300 %
    "calculate_nabla4[default]": "improvement",  # base +300 %
    "compute_tangential_wind[default]": "unchanged",
    "extrapolate_at_top[default]": "inconclusive",  # +0..300 % random, the same on both sides
    "compute_exner_from_rhotheta[default]": "failed",  # raises on head
    "compute_horizontal_kinetic_energy[default]": "new",  # head only
    "apply_nabla2_to_w[default]": "gone",  # base only
    "calculate_nabla2_for_z[default]": "bimodal",  # half the calls +1600 %, both sides
}


def busy(seconds: float) -> None:
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


class Altered:
    """The program of a prepared case, with a delay before each call or an error."""

    def __init__(self, program, delay, fail=False):
        self.program, self.delay, self.fail = program, delay, fail

    def __call__(self, *args, **kwargs):
        if self.fail:
            raise RuntimeError("deliberately broken on head (gate test)")
        busy(self.delay())
        return self.program(*args, **kwargs)


def main(out: pathlib.Path) -> None:
    os.environ.pop("ICONBENCH_CATALOG", None)
    os.environ.pop("ICONBENCH_PROGRAMS", None)
    os.environ["ICONBENCH_BACKENDS"] = "embedded"
    os.environ["ICONBENCH_GRID"] = "tiny"
    from iconbench import buildcache

    buildcache.configure("default", jobs=1)
    from iconbench import suite
    from iconbench.records import asv as results
    from iconbench.records.session import SessionLedger
    from iconbench.timing import session

    rng = random.Random(7)
    typical: dict[str, float] = {}
    for case in ROLES:
        prepared = suite.prepare(case, "embedded", "tiny")
        times = []
        for _ in range(7):
            start = time.perf_counter()
            prepared()
            times.append(time.perf_counter() - start)
        typical[case] = statistics.median(times)

    def prepare_for(side: str):
        def prepare(case: str, backend: str, grid: str):
            prepared = suite.prepare(case, backend, grid)
            role, t = ROLES[case], typical[case]
            delay = lambda: 0.0  # noqa: E731
            if (role, side) in (("regression", "head"), ("improvement", "base")):
                # 4x: a planted 2x improvement, measured 40 samples a side one side after the
                # other on a 2-core runner loaded by the suite (a fresh clone's first run),
                # came out inconclusive (p = 0.065)
                delay = lambda: 3.0 * t  # noqa: E731
            elif role == "inconclusive":
                # the same draws on both sides (a generator of its own per side and case): the
                # noise is wide, but no side slower than the other; from the shared generator
                # the two sides' 40 samples happened to differ by 1.34x (a "regression")
                draws = random.Random(f"{case}-noise")
                delay = lambda: draws.uniform(0, 3.0 * t)  # noqa: E731
            elif role == "bimodal":
                # the modes 17x apart: on a loaded 2-core runner the faster mode alone spread
                # over 0.9-2.8 ms, and a 5x second mode then overlapped its tail
                delay = lambda: 16.0 * t if rng.random() < 0.5 else 0.0  # noqa: E731
            fail = role == "failed" and side == "head"
            return dataclasses.replace(prepared, program=Altered(prepared.program, delay, fail))

        return prepare

    benchmarks = results.discover_benchmarks(
        pathlib.Path(__file__).resolve().parents[2] / "benchmarks"
    )
    machine = {"machine": "gate-test", "arch": "x86_64", "cpu": "ci", "num_cpu": "2",
               "os": "Linux", "ram": "", "gpu": "none"}  # fmt: skip
    # each case on both sides back to back (alternating which goes first), so that the load
    # of a shared machine drifts as little as possible between the two measurements
    ledgers = {side: SessionLedger(out / side / "session.jsonl") for side in ("base", "head")}
    for number, (case, role) in enumerate(ROLES.items()):
        sides = ["base", "head"] if number % 2 else ["head", "base"]
        # the bimodal case is compared on its fast mode, about half its samples: with 40 a
        # side, on a 2-core runner loaded by the tests beside it, those ~20 moved 1.35x; 120
        # a side measured one side after the other, 1.53x (a fresh clone's test run). So: 6
        # blocks of 20 a side, ABBA, as a check interleaves, and the load's drift cancels
        blocks, samples = (6, 20) if role == "bimodal" else (1, 40)
        order = [s for block in range(blocks) for s in (sides, sides[::-1])[block % 2]]
        for side in order:
            if (role, side) in (("new", "base"), ("gone", "head")):
                continue
            session.run_cases(
                [(case, "embedded")],
                grid=TINY,
                ledger=ledgers[side],
                prepare=prepare_for(side),
                measure_options={
                    "samples": samples,
                    "min_samples": samples,
                    "max_s": 5.0,
                    "warmup_s": 0.02,
                },
            )
    every = suite.case_ids()
    for number, (side, commit) in enumerate((("base", BASE), ("head", HEAD))):
        # combinations not run are NaN (asv's "skipped"); a failed run is None
        values: dict[str, dict] = {
            kind: {(c, "embedded", "tiny"): (math.nan, None) for c in every}
            for kind in ("time_device", "time_host")
        }
        gathered: dict[tuple[str, str, str], list[float]] = {}  # a case's blocks, joined
        for r in ledgers[side].results():
            key = (r.case, r.backend, r.grid)
            if r.measurement is None:
                values["time_device"][key] = values["time_host"][key] = (None, None)
                continue
            gathered.setdefault(key, []).extend(r.measurement.host_s)
        for key, samples_s in gathered.items():
            pair = (statistics.median(samples_s), samples_s)
            values["time_host"][key] = values["time_device"][key] = pair  # embedded: host clock
        results.write_asv(out / "asv", benchmarks, values, machine=machine, commit=commit,
                          env_name="existing-py3.12", python="3.12",
                          date_ms=1_790_000_000_000 + number * 60_000)  # fmt: skip
    (out / "typical.json").write_text(json.dumps(typical))


if __name__ == "__main__":
    main(pathlib.Path(sys.argv[1]))
