"""Simulation study of the gate on a synthetic noise model, against asv and Bencher.

Synthetic result sets with known effects, noise shaped like the measured H100 samples of
``results/h100/work/session.jsonl`` (the held CUDA-event clock):

- within a run: the pooled standardised log residuals of every measured case (their heavy
  right tail holds the real outliers, 1.2-2.4x the median), scaled per benchmark by a
  robust spread drawn from the measured cases (median ~0.06 %), or fixed at 2 %;
- between runs: a per-run offset with the spread of the medians of the cases measured
  twice;
- one bimodal program, shaped like the measured ``calculate_divdamp_fields`` on gtfn_gpu
  (two modes, the share of the slow mode changing from run to run).

Each run compares a base and a head result set of 400 benchmarks (50 samples each) with
three decisions on the same data: this gate (:func:`iconbench.gate.verdict.compare`, the
code ``iconbench compare`` runs), asv's (``asv continuous``: factor 1.1 and Mann-Whitney
p < 0.002, asv's own functions) and Bencher's percentage threshold (+10 % over the mean of
up to 64 earlier medians, as icon4py's CI uses it). ``iconbench simulate-gate --synthetic``
prints the Markdown table (docs/gate.md holds its output); the study on re-sampled real
samples is :mod:`iconbench.gate.simulation`.
"""

from __future__ import annotations

import json
import math
import multiprocessing
import pathlib
from collections.abc import Callable

import numpy as np

from iconbench.gate import asv_decision, stats, verdict
from iconbench.gate.simulation import upper95
from iconbench.records.resultset import Entry, Grid, ResultSet

BENCHMARKS = 400
SAMPLES = 50
HISTORY = 64


def noise_model(session: pathlib.Path) -> dict:
    """Residuals, spreads, run-to-run spread and the bimodal shape, fitted from the ledger."""
    rows = [json.loads(line) for line in session.read_text().splitlines() if line.strip()]
    held = [
        r
        for r in rows
        if (r.get("measurement") or {}).get("device_s")
        and r["measurement"].get("device_source") == "cuda-events-held"
    ]
    residuals, spreads, medians = [], [], {}
    bimodal = None
    for r in held:
        x = np.log(np.asarray(r["measurement"]["device_s"]))
        centre = np.median(x)
        spread = 1.4826 * np.median(np.abs(x - centre))
        medians.setdefault((r["case"], r["backend"]), []).append(float(np.exp(centre)))
        if spread > 0:
            residuals.append((x - centre) / spread)
            spreads.append(spread)
        if r["case"].startswith("calculate_divdamp_fields") and r["backend"] == "gtfn_gpu":
            bimodal = stats.bimodality(r["measurement"]["device_s"])
    repeats = [math.log(v[-1] / v[-2]) for v in medians.values() if len(v) > 1]
    return {
        "residuals": np.concatenate(residuals),
        "spreads": np.asarray(spreads),
        "run_sd": float(np.std(repeats) / math.sqrt(2)) if repeats else 0.002,
        "bimodal": bimodal,
        "cases": len(held),
        "repeats": len(repeats),
    }


def draw(rng, model, spread, n, offset):
    """Samples of one benchmark: measured residuals scaled to ``spread``, a run offset."""
    z = rng.choice(model["residuals"], size=n)
    return np.exp(offset + spread * z)


def draw_bimodal(rng, model, n, offset):
    """Samples of the bimodal program: its two modes, a mix that changes per run."""
    modes = model["bimodal"]
    slow_share = float(np.clip(rng.normal(1 - modes.low_share, 0.1), 0.2, 0.8))
    high = rng.random(n) < slow_share
    centre = np.where(high, math.log(modes.high_median / modes.low_median), 0.0)
    return np.exp(offset + centre + 0.002 * rng.choice(model["residuals"], size=n))


def one_run(task):
    """One comparison of 400 benchmarks; returns flagged counts per decision."""
    seed, scenario, model = task
    rng = np.random.default_rng(seed)
    effect, fixed_noise, regressed = scenario["effect"], scenario["noise"], scenario["regressed"]
    base_entries, head_entries = {}, {}
    truth = {}
    bencher = {"false": 0, "caught": 0}
    for i in range(BENCHMARKS):
        case = f"program_{i:03d}[default]"
        spread = fixed_noise if fixed_noise else float(rng.choice(model["spreads"]))
        change = effect if i < regressed else 0.0
        run_sd = model["run_sd"]
        if i == BENCHMARKS - 1 and scenario["bimodal"]:
            base = draw_bimodal(rng, model, SAMPLES, rng.normal(0, run_sd))
            head = draw_bimodal(rng, model, SAMPLES, rng.normal(0, run_sd) + math.log1p(change))
            history = [np.median(draw_bimodal(rng, model, SAMPLES, rng.normal(0, run_sd)))
                       for _ in range(8)]  # fmt: skip
        else:
            base = draw(rng, model, spread, SAMPLES, rng.normal(0, run_sd))
            head = draw(rng, model, spread, SAMPLES, rng.normal(0, run_sd) + math.log1p(change))
            # medians of earlier runs: run offset plus the median's sampling spread
            history = np.exp(
                rng.normal(0, run_sd, HISTORY)
                + rng.normal(0, 1.2533 * spread / math.sqrt(SAMPLES), HISTORY)
            )
        key = f"{case}|gtfn_gpu|device_time"
        base_entries[key] = Entry(case, "gtfn_gpu", "device_time", tuple(base))
        head_entries[key] = Entry(case, "gtfn_gpu", "device_time", tuple(head))
        truth[key] = change > 0
        alert = np.median(head) > 1.10 * np.mean(history)
        bencher["caught" if change > 0 else "false"] += int(alert)
    grid = Grid("sim")

    def side(entries, label):
        return ResultSet(label, "asv", label, None, {}, {}, grid, "simulated", entries)

    summary = verdict.compare(
        side(base_entries, "base"), side(head_entries, "head"), asv_decision=asv_decision.decide
    )
    out = {"gate_false": 0, "gate_caught": 0, "asv_false": 0, "asv_caught": 0,
           "gate_inconclusive": 0, "bimodal_noted": 0}  # fmt: skip
    for r in summary.benchmarks:
        is_real = truth[r.id]
        if r.verdict == "regression":
            out["gate_caught" if is_real else "gate_false"] += 1
        if r.verdict == "inconclusive":
            out["gate_inconclusive"] += 1
        if any(n.startswith("timing is bimodal") for n in r.notes):
            out["bimodal_noted"] += 1
        if "asv: regression" in r.notes:
            out["asv_caught" if is_real else "asv_false"] += 1
    out["bencher_false"], out["bencher_caught"] = bencher["false"], bencher["caught"]
    out["false_ids"] = [
        r.id for r in summary.benchmarks if r.verdict == "regression" and not truth[r.id]
    ]
    return out


SCENARIOS = {
    "400 unchanged, H100 noise, 1 bimodal": dict(effect=0.0, noise=0.0, regressed=0, bimodal=True),
    "400 unchanged, 2 % noise, 1 bimodal": dict(effect=0.0, noise=0.02, regressed=0, bimodal=True),
    "20 of 400 +5 %, 2 % noise": dict(effect=0.05, noise=0.02, regressed=20, bimodal=True),
    "20 of 400 +7 %, 2 % noise": dict(effect=0.07, noise=0.02, regressed=20, bimodal=True),
    "20 of 400 +12 %, 2 % noise": dict(effect=0.12, noise=0.02, regressed=20, bimodal=True),
    "20 of 400 +5 %, H100 noise": dict(effect=0.05, noise=0.0, regressed=20, bimodal=True),
}


def study(
    session: pathlib.Path,
    *,
    runs: int = 300,
    power_runs: int = 30,
    processes: int = 2,
    emit: Callable[[str], None] = print,
) -> None:
    """Fit the noise model from ``session``, run every scenario, emit the table line by line."""
    model = noise_model(session)
    emit(
        f"noise model from {session}: {model['cases']} cases "
        f"(held clock), {len(model['residuals'])} residuals; robust spread median "
        f"{np.median(model['spreads']):.3%}, 95th percentile "
        f"{np.percentile(model['spreads'], 95):.3%}; run-to-run spread {model['run_sd']:.3%} "
        f"({model['repeats']} cases measured twice); bimodal shape {model['bimodal']}\n"
    )
    emit("| scenario | runs | gate | asv continuous | Bencher +10 % |")
    emit("| --- | --- | --- | --- | --- |")
    with multiprocessing.get_context("spawn").Pool(processes) as pool:
        for number, (name, scenario) in enumerate(SCENARIOS.items()):
            count = runs if scenario["regressed"] == 0 else power_runs
            tasks = [(1000 * number + i, scenario, model) for i in range(count)]
            results = pool.map(one_run, tasks)
            if scenario["regressed"] == 0:
                cells = []
                for who in ("gate", "asv", "bencher"):
                    alarms = sum(1 for r in results if r[f"{who}_false"] > 0)
                    cells.append(
                        f"false alarm in {alarms}/{count} runs "
                        f"({alarms / count:.1%}, ≤ {upper95(alarms, count):.1%})"
                    )
                noted = sum(r["bimodal_noted"] for r in results)
                cells[0] += f"; bimodal noted {noted}/{count}"
            else:
                total = count * scenario["regressed"]
                cells = []
                for who in ("gate", "asv", "bencher"):
                    caught = sum(r[f"{who}_caught"] for r in results)
                    false = sum(r[f"{who}_false"] for r in results)
                    cells.append(f"caught {caught / total:.1%}, {false} false in {count} runs")
            emit(f"| {name} | {count} | " + " | ".join(cells) + " |")
