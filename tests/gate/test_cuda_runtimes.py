"""The gate compares two CUDA major releases only where asked, and never their compile times.

Another runtime and another nvcc build other code and time it on another runtime, so a
difference between a CUDA 12 and a CUDA 13 side is not the change under test (docs/gate.md).
"""

from __future__ import annotations

import json
import pathlib
import shutil

from tests.archived_results import restored

from iconbench.cli import main
from iconbench.records.summary import Summary

H100 = restored("results/h100")  # summary.1 (fd920c0) and summary.2 (412cde3), CUDA 13.2


def _cuda12_head(tmp_path: pathlib.Path) -> pathlib.Path:
    """results/h100 with summary.2 recorded as run on cupy's CUDA 12.9 runtime."""
    root = tmp_path / "h100"
    shutil.copytree(H100, root)
    summary = json.loads((root / "summary.2.json").read_text())
    assert summary["provenance"]["gpu"]["cuda_runtime"] == "13.2"
    summary["provenance"]["gpu"]["cuda_runtime"] = "12.9"
    (root / "summary.2.json").write_text(json.dumps(summary))
    return root


def test_two_cuda_releases_are_refused_in_one_line(tmp_path, capsys):
    root = _cuda12_head(tmp_path)
    out = tmp_path / "s.json"
    rc = main(["compare", str(H100 / "summary.1.json"), str(root / "summary.2.json"),
               "--out", str(out)])  # fmt: skip
    assert rc == 2
    assert capsys.readouterr().err.strip().splitlines() == [
        "iconbench: error: CUDA runtimes differ: base ran on CUDA 13.2, head on CUDA 12.9; "
        "compare results of one CUDA release, or pass --across-cuda to compare device time "
        "and host overhead only (never compile time)"
    ]
    assert not out.exists()


def test_across_cuda_compares_device_time_and_leaves_compile_times_out(tmp_path):
    root = _cuda12_head(tmp_path)
    out = tmp_path / "s.json"
    rc = main(["compare", str(H100 / "summary.1.json"), str(root / "summary.2.json"),
               "--across-cuda", "--out", str(out)])  # fmt: skip
    summary = Summary.read(out)
    metrics = {b.metric for b in summary.benchmarks}
    assert metrics == {"device_time", "host_overhead"}
    # the same samples as the CUDA 13.2 run: what is compared is device time as it was
    device = [b for b in summary.benchmarks if b.metric == "device_time" and b.gated]
    assert {b.verdict for b in device} - {"failed"} == {"unchanged"}
    assert rc == 0


def test_one_release_in_two_minor_versions_is_compared(tmp_path):
    root = tmp_path / "h100"
    shutil.copytree(H100, root)
    summary = json.loads((root / "summary.2.json").read_text())
    summary["provenance"]["gpu"]["cuda_runtime"] = "13.0"
    (root / "summary.2.json").write_text(json.dumps(summary))
    out = tmp_path / "s.json"
    assert main(["compare", str(H100 / "summary.1.json"), str(root / "summary.2.json"),
                 "--out", str(out)]) == 0  # fmt: skip
    assert "compile_time" in {b.metric for b in Summary.read(out).benchmarks}
