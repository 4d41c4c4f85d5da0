"""Interim stand-in for ``iconbench compare``: a gate summary (v1) from two asv result sets.

Until the gate (``iconbench compare BASE HEAD --out summary.json``) is merged, this builds the
summary the PR bot reads from real asv result files, with the statistics docs/gate-summary.md
describes: per (case, backend) the device-time samples of both commits (``time_device``; host
time where a backend has no device clock), medians with 95 % bootstrap intervals, the ratio of
medians with its bootstrap interval, a Mann-Whitney p value, Benjamini-Hochberg q values over
the gated benchmarks, and the verdict against the threshold; compile time is reported, not
gated. With ``--baseline``, the OpenACC speed-up of both sides (``iconbench.baselines.speedup``).
It is used for the committed examples (docs/examples/) and the bot's test fixtures only.

    python ci/interim_gate_summary.py results/h100/asv 7212540d fd920c0f --out s.json \
        --baseline mch-r04b09/unknown_unknown_2024-05 --static limited_area=True \
        --static apply_zdiffusion_t=True --force
"""

from __future__ import annotations

import argparse
import collections
import datetime
import json
import pathlib
import sys
import warnings

import numpy as np
from scipy import stats

REPO = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from iconbench import results  # noqa: E402
from iconbench.baselines import gt4py_timings, mapping, speedup, store  # noqa: E402

FDR = 0.05
CONFIDENCE = 0.95
THRESHOLDS = {"device_time": 0.05, "host_overhead": 0.10}
RNG_SEED = 0


def _bootstrap(statistic, *samples: np.ndarray) -> list[float]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = stats.bootstrap(
            samples,
            statistic,
            paired=False,
            vectorized=True,
            confidence_level=CONFIDENCE,
            n_resamples=2000,
            method="percentile",
            rng=np.random.default_rng(RNG_SEED),
        )
    low, high = result.confidence_interval
    return [float(low), float(high)]


def _side_sample(samples: tuple[float, ...], fingerprint: str | None) -> dict:
    values = np.asarray(samples)
    ci = _bootstrap(lambda x, axis=-1: np.median(x, axis=axis), values) if len(values) > 1 else None
    return {
        "median": float(np.median(values)),
        "n": len(values),
        "ci": ci,
        "fingerprint": fingerprint,
    }


def _fingerprint(value: float | None) -> str | None:
    return None if value is None else format(int(value), "x")[:16]


def _verdict(ratio: float, ratio_ci: list[float] | None, q: float, threshold: float) -> str:
    beyond = ratio > 1 + threshold or ratio < 1 - threshold
    if q <= FDR and ratio_ci is not None and beyond:
        if ratio > 1 and ratio_ci[0] > 1:
            return "regression"
        if ratio < 1 and ratio_ci[1] < 1:
            return "improvement"
        return "inconclusive"
    return "inconclusive" if beyond else "unchanged"


def _commit_records(records, commit: str):
    chosen = [r for r in records if r.commit.startswith(commit)]
    if not chosen:
        sys.exit(f"interim_gate_summary: no asv results of commit {commit!r}")
    return chosen


def _index(records):
    by = collections.defaultdict(dict)
    for r in records:
        by[r.kind][(r.program, r.backend)] = r
    return by


def _times(index) -> dict:
    """(case, backend) -> record with samples: device time, else host time."""
    out = {}
    for key, record in index.get("time_host", {}).items():
        if record.samples:
            out[key] = record
    for key, record in index.get("time_device", {}).items():
        if record.samples:
            out[key] = record
    return out


def _benchmarks(base_index, head_index) -> list[dict]:
    base_t, head_t = _times(base_index), _times(head_index)
    base_fp = base_index.get("track_codegen_fingerprint", {})
    head_fp = head_index.get("track_codegen_fingerprint", {})
    out = []
    for key in sorted(set(base_t) | set(head_t)):
        case, backend = key
        program, _, rest = case.partition("[")
        variant = rest.removesuffix("]") or "default"
        bid = f"{case}|{backend}|device_time"
        entry = {
            "id": bid,
            "program": program,
            "variant": variant,
            "backend": backend,
            "metric": "device_time",
            "unit": "s",
            "gated": True,
            "threshold": THRESHOLDS["device_time"],
            "base": None,
            "head": None,
            "ratio": None,
            "ratio_ci": None,
            "p_value": None,
            "q_value": None,
            "verdict": "new" if key not in base_t else "gone",
            "notes": [],
            "error": None,
        }
        b, h = base_t.get(key), head_t.get(key)
        bfp = _fingerprint(base_fp[key].value) if key in base_fp else None
        hfp = _fingerprint(head_fp[key].value) if key in head_fp else None
        if b is not None:
            entry["base"] = _side_sample(b.samples, bfp)
        if h is not None:
            entry["head"] = _side_sample(h.samples, hfp)
        if b is not None and h is not None:
            bs, hs = np.asarray(b.samples), np.asarray(h.samples)
            entry["ratio"] = float(np.median(hs) / np.median(bs))
            if len(bs) > 1 and len(hs) > 1:
                entry["ratio_ci"] = _bootstrap(
                    lambda x, y, axis=-1: np.median(y, axis=axis) / np.median(x, axis=axis),
                    bs,
                    hs,
                )
                same = np.array_equal(np.sort(bs), np.sort(hs))
                entry["p_value"] = 1.0 if same else float(stats.mannwhitneyu(bs, hs).pvalue)
            else:
                entry["p_value"] = 1.0
            entry["verdict"] = "unchanged"
            if bfp and hfp and bfp != hfp:
                entry["notes"].append("code generation differs")
            for side, samples in (("base", bs), ("head", hs)):
                if len(samples) > 1 and np.std(samples, ddof=1) / np.mean(samples) > 0.05:
                    entry["notes"].append(f"{side} timing is noisy (CV > 5 %)")
        out.append(entry)
    gated = [e for e in out if e["p_value"] is not None]
    if gated:
        qs = stats.false_discovery_control([e["p_value"] for e in gated])
        for e, q in zip(gated, qs, strict=True):
            e["q_value"] = float(q)
            e["verdict"] = _verdict(e["ratio"], e["ratio_ci"], float(q), e["threshold"])
    # compile time: reported, not gated
    base_c = base_index.get("track_compile_cold", {})
    head_c = head_index.get("track_compile_cold", {})
    for key in sorted(set(base_c) | set(head_c)):
        b, h = base_c.get(key), head_c.get(key)
        if (b is None or b.value is None) and (h is None or h.value is None):
            continue
        case, backend = key
        program, _, rest = case.partition("[")
        bv = None if b is None else b.value
        hv = None if h is None else h.value
        out.append(
            {
                "id": f"{case}|{backend}|compile_time",
                "program": program,
                "variant": rest.removesuffix("]") or "default",
                "backend": backend,
                "metric": "compile_time",
                "unit": "s",
                "gated": False,
                "threshold": None,
                "base": None if bv is None else {"median": bv, "n": 1, "ci": None},
                "head": None if hv is None else {"median": hv, "n": 1, "ci": None},
                "ratio": hv / bv if bv and hv else None,
                "ratio_ci": None,
                "p_value": None,
                "q_value": None,
                "verdict": "unchanged" if bv and hv else ("new" if hv else "gone"),
                "notes": [],
                "error": None,
            }
        )
    return out


def _side(records, label: str, machine: dict, stack: dict, source: str) -> dict:
    r = records[0]
    return {
        "label": label,
        "commit": r.commit,
        "component": "iconbench",
        "date": "",
        "stack": stack,
        "machine": machine,
        "grid": {"name": r.grid or records[-1].grid},
        "source": source,
    }


def _openacc(args, base_records, head_records, gpu: str) -> dict | None:
    if not args.baseline:
        return None
    baseline = store.load(store.default_root(), args.baseline)
    table = mapping.load(mapping.DEFAULT_FILE)
    pins: dict = {}
    for item in args.static:
        pins |= gt4py_timings.parse_variant(item)
    sides, forced = {}, []
    for name, records in (("base", base_records), ("head", head_records)):
        timings = gt4py_timings.from_records(records, gpu=gpu)
        report = speedup.compare(baseline, table, timings, force=args.force, pins=pins)
        forced = list(report.forced)
        programs = []
        for backend in report.backends:
            for row in backend.rows:
                programs.append(
                    {
                        "program": row.programs[0] if len(row.programs) == 1 else row.timer,
                        "backend": backend.backend,
                        "timer": row.timer,
                        "openacc_s": row.openacc_s,
                        "gt4py_s": row.gt4py_s,
                        "speedup": row.speedup,
                        "share": row.share,
                    }
                )
        programs.sort(key=lambda p: -p["share"])
        sides[name] = {
            "integrate_nh": {
                b.backend: (b.estimate.value if b.estimate else None) for b in report.backends
            },
            "programs": programs,
        }
    return {
        "baseline": baseline.name,
        "experiment": baseline.experiment.name,
        "gpu": {"baseline": baseline.machine.gpu, "measured": gpu},
        "sides": sides,
        "forced": forced,
    }


def main(argv=None) -> int:
    """Write the summary of BASE -> HEAD to --out."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", type=pathlib.Path, help="asv results directory")
    parser.add_argument("base", help="base commit (prefix)")
    parser.add_argument("head", help="head commit (prefix)")
    parser.add_argument("--out", type=pathlib.Path, required=True)
    parser.add_argument("--stack", default="", help="gt4py=1.2.1,dace=...,icon4py=...,key=...")
    parser.add_argument("--baseline", help="OpenACC baseline name")
    parser.add_argument("--static", action="append", default=[], help="KEY=VALUE pins")
    parser.add_argument("--force", action="store_true", help="speed-up across grids/GPUs")
    parser.add_argument("--created", help="created time (default: now)")
    args = parser.parse_args(argv)

    records = results.read(args.results)
    base_records = _commit_records(records, args.base)
    head_records = _commit_records(records, args.head)
    machine_file = next(args.results.glob("*/machine.json"), None)
    machine_info = json.loads(machine_file.read_text()) if machine_file else {}
    machine = {k: machine_info.get(k, "") for k in ("machine", "gpu", "cpu") if machine_info.get(k)}
    machine["name"] = machine.pop("machine", base_records[0].machine)
    stack = dict(item.split("=", 1) for item in args.stack.split(",") if item)
    stack.setdefault(
        "key",
        base_records[0].env_name.split("-")[-2] if "stack-" in base_records[0].env_name else "",
    )
    benchmarks = _benchmarks(_index(base_records), _index(head_records))
    counts = collections.Counter(b["verdict"] for b in benchmarks)
    verdict = "regression" if counts["regression"] else "pass"
    source = str(args.results)
    summary = {
        "schema": "iconbench-gate-summary",
        "version": 1,
        "created": args.created
        or datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "verdict": verdict,
        "exit_code": 1 if verdict == "regression" else 0,
        "base": _side(base_records, args.base, machine, stack, source),
        "head": _side(head_records, args.head, machine, stack, source),
        "settings": {"fdr": FDR, "confidence": CONFIDENCE, "thresholds": THRESHOLDS},
        "counts": {
            k: counts.get(k, 0)
            for k in (
                "regression",
                "improvement",
                "unchanged",
                "inconclusive",
                "failed",
                "new",
                "gone",
            )
        },
        "benchmarks": benchmarks,
        "openacc": _openacc(
            args, base_records, head_records, machine.get("gpu") or machine["name"]
        ),
        "generated_by": "ci/interim_gate_summary.py (until iconbench compare is merged)",
    }
    for side, rec in (("base", base_records), ("head", head_records)):
        files = sorted(args.results.glob(f"*/{rec[0].commit[:8]}*.json"))
        summary[side]["source"] = [str(f) for f in files]
        data = json.loads(files[0].read_text()) if files else {}
        if data.get("date"):
            summary[side]["date"] = datetime.datetime.fromtimestamp(
                data["date"] / 1000, datetime.UTC
            ).isoformat(timespec="seconds")
    args.out.write_text(json.dumps(summary, indent=1) + "\n")
    print(
        f"{args.out}: {len(benchmarks)} benchmarks, "
        + ", ".join(f"{k} {v}" for k, v in summary["counts"].items() if v)
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
