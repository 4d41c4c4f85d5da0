"""``iconbench demo`` and ``run`` take the runner's road: its steps, its result directory."""

import json
import os
import pathlib
import subprocess
import sys

from iconbench.records import resultdir
from iconbench.records.compilation import CompileLedger, CompileRecord

REPO = pathlib.Path(__file__).resolve().parents[2]


def _demo_dir(root: pathlib.Path, stamp: str, stack: str) -> pathlib.Path:
    out = root / f"demo-{stamp}"
    CompileLedger(out / "work" / "compile.jsonl").append(
        CompileRecord("a[default]", "gtfn_cpu", "tiny", stack, 41.0, library="x/l.so")
    )
    return out


def test_a_new_directory_continues_the_compile_ledger_of_its_stack(tmp_path):
    _demo_dir(tmp_path, "20260101T000000Z", "stack-a")
    _demo_dir(tmp_path, "20260102T000000Z", "stack-b")  # newer, but another stack
    out = resultdir.new_directory(tmp_path, "demo", "stack-a")
    assert out.parent == tmp_path
    assert out.name.startswith("demo-2")
    (record,) = CompileLedger(out / "work" / "compile.jsonl").records()
    assert (record.stack, record.seconds) == ("stack-a", 41.0)
    # a stack never measured here starts with an empty ledger
    fresh = resultdir.new_directory(tmp_path, "demo", "stack-c")
    assert not (fresh / "work" / "compile.jsonl").exists()


def test_demo_measures_through_the_runner_and_reports_from_its_summary(tmp_path):
    # the whole catalog, this environment's build cache (other tests' settings left out)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ICONBENCH_CAT", "GT4PY_"))}
    done = subprocess.run(
        [sys.executable, "-m", "iconbench", "demo", "--backends", "embedded", "--samples", "20",
         "--out", str(tmp_path)],
        cwd=REPO, env=env, capture_output=True, text=True, check=False, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    (out,) = tmp_path.glob("demo-*")
    summary = json.loads((out / "summary.json").read_text())
    assert summary["commit"]
    assert summary["grid"] == "tiny"
    assert {(c["case"], c["backend"]) for c in summary["cases"]} == {
        ("compute_tangential_wind[default]", "embedded"),
        ("compute_perturbation_of_rho_and_theta[default]", "embedded"),
    }
    assert all(c["error"] is None and c["host_median_s"] > 0 for c in summary["cases"])
    # measured by the runner's step, in a worker process of its own
    phases = [json.loads(line) for line in (out / "work" / "phases.jsonl").open()]
    assert [(p["phase"], p["workers"]) for p in phases if p["phase"] == "measure"] == [
        ("measure", 1)
    ]
    assert len(list((out / "asv").glob("*/*-existing-*.json"))) == 1
    report = (out / "report.md").read_text()
    table = done.stdout
    for case in ("compute_tangential_wind[default]", "compute_perturbation_of_rho_and_theta"):
        assert case in report
        assert case in table
