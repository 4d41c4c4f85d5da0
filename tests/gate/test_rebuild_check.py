"""``iconbench rebuild-check`` on the CPU path (clean builds in fresh processes)."""

import json

import pytest

from iconbench.cli import main


@pytest.mark.slow  # two fresh processes, each imports gt4py and makes the grid (~1-2 min)
def test_embedded_two_builds(tmp_path, capsys):
    out = tmp_path / "rebuild.json"
    args = ["compute_tangential_wind", "--backends", "embedded", "--builds", "2"]
    rc = main(["rebuild-check", *args, "--samples", "8", "--threshold", "1.0", "--out", str(out)])
    report = json.loads(out.read_text())[0]
    assert report["case"] == "compute_tangential_wind[default]"
    assert len(report["builds"]) == 2
    assert all(len(b["samples"]) == 8 and b["fingerprint"] is None for b in report["builds"])
    assert report["code_stable"] is True
    assert rc == (0 if report["timing_stable"] else 1)
    assert "generated code: none" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["nope_program", "--backends", "embedded"], "unknown program 'nope_program'"),
        (["compute_tangential_wind", "--backends", "gtfn_cpo"], "--backends gtfn_cpo: unknown"),
        (["compute_tangential_wind", "--backends", "embedded", "--builds", "1"], "--builds"),
    ],
)
def test_bad_input_exits_2(capsys, args, message):
    assert main(["rebuild-check", *args]) == 2
    assert message in capsys.readouterr().err


@pytest.mark.slow
def test_gtfn_cpu_generated_code_is_deterministic(capsys):
    rc = main(["rebuild-check", "compute_tangential_wind", "--backends", "gtfn_cpu",
               "--builds", "2", "--samples", "20", "--threshold", "0.5", "--json"])  # fmt: skip
    report = json.loads(capsys.readouterr().out)[0]
    fingerprints = {b["fingerprint"] for b in report["builds"]}
    assert len(fingerprints) == 1
    assert None not in fingerprints
    assert rc in (0, 1)
    assert report["code_stable"]
