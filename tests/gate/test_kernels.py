"""The per-kernel diff of a flagged benchmark.

The kernel records in ``data/kernels_*.TEST_INPUT.json`` are fabricated test input, shaped
like one Nsight Compute run of a dace_gpu program (kernel names, launches, DRAM bytes,
registers, occupancy in realistic ranges); they are no measurement.
"""

from __future__ import annotations

import json
import pathlib

import pytest
from tests.archived_results import restored

from iconbench.cli import main
from iconbench.errors import IconbenchError
from iconbench.gate import kernels
from iconbench.records.kernels import KernelRecord, read
from iconbench.records.summary import Summary

DATA = pathlib.Path(__file__).resolve().parent / "data"
BASE = DATA / "kernels_base.TEST_INPUT.json"
HEAD = DATA / "kernels_head.TEST_INPUT.json"
RUN = restored("results/h100-mch_icon-ch1_medium")  # raw files from git history
ID = "apply_nabla2_to_w[default]|dace_gpu|device_time"


def test_the_kernel_that_explains_the_change_comes_first():
    d = kernels.diff(ID, read(BASE), read(HEAD))
    first = d.changes[0]
    assert first.kernel == "map_113_fieldop_1_0_0"
    assert round(first.ratio, 3) == 1.185
    # 8.3 us of the 8.7 us the benchmark lost
    assert first.share == pytest.approx(8.3 / 8.7, abs=1e-3)
    assert sum(c.share for c in d.changes) == pytest.approx(1.0)
    table = kernels.render(d)
    assert "registers 56 → 96; occupancy 62 % → 38 %" in table
    assert table.splitlines()[2].lstrip().startswith("map_113_fieldop_1_0_0")


def test_split_kernels_show_as_gone_and_new():
    base = [KernelRecord("fused", 1, 2e-4)]
    head = [KernelRecord("part_a", 1, 1.2e-4), KernelRecord("part_b", 1, 1e-4)]
    d = kernels.diff(ID, base, head)
    assert {c.kernel: (c.base is None, c.head is None) for c in d.changes} == {
        "fused": (False, True),
        "part_a": (True, False),
        "part_b": (True, False),
    }
    rows = {line.split()[0]: line.split()[4] for line in kernels.render(d).splitlines()[2:]}
    assert rows == {"fused": "gone", "part_a": "new", "part_b": "new"}


def test_bad_records_are_one_line(tmp_path):
    bad = tmp_path / "k.json"
    bad.write_text(json.dumps([{"kernel": "k", "count": 1, "device_s": -1.0}]))
    with pytest.raises(IconbenchError, match=r"record 1: 'device_s' must be seconds > 0"):
        read(bad)
    bad.write_text(json.dumps([{"kernel": "k", "count": 1, "device_s": 1e-5, "sm": 3}]))
    with pytest.raises(IconbenchError, match=r"unknown key\(s\) \['sm'\]"):
        read(bad)


def test_compare_puts_the_diff_in_summary_and_table(tmp_path, capsys):
    out = tmp_path / "summary.json"
    side = f"{RUN}@432aa3c"
    rc = main(["compare", side, side, "--kernels", ID, str(BASE), str(HEAD), "--out", str(out)])
    assert rc == 0
    table = capsys.readouterr().out
    assert f"kernels of {ID}: 125.0us -> 133.7us per call" in table
    summary = Summary.read(out)
    assert summary.kernels[0].changes[0].kernel == "map_113_fieldop_1_0_0"
    assert Summary.from_json(summary.to_json()) == summary
    assert main(["compare", side, side, "--kernels", "nope|x|y", str(BASE), str(HEAD)]) == 2
