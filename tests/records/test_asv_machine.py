"""The machine a result set was measured on, as its asv ``machine.json`` names it."""

import json

import numpy as np
import pytest
from tests.history.test_changepoints_cli import MACHINE, write_night

from iconbench.errors import IconbenchError
from iconbench.records import asv


def _night(root, **machine):
    return write_night(
        root, 0, np.random.default_rng(0), step_from=1, machine={**MACHINE, **machine}
    )


def test_a_gpu_host_is_named_by_its_gpu_model_and_a_cpu_host_by_asvs_machine(tmp_path):
    # as records.resultdir writes it: the host name as asv's machine, the GPU model or "none"
    named = {
        gpu: asv.machine_of(_night(tmp_path / str(number), machine="vm", gpu=gpu))
        for number, gpu in enumerate(["NVIDIA H100 80GB HBM3", "NVIDIA H200", "none"])
    }
    assert named == {"NVIDIA H100 80GB HBM3": "h100", "NVIDIA H200": "h200", "none": "vm"}
    # a runner's machine.json of another writer, without a gpu key
    assert asv.machine_of(_night(tmp_path / "ci", machine="ci")) == "ci"
    (tmp_path / "empty").mkdir()
    assert asv.machine_of(tmp_path / "empty") is None
    # no directory at all is a mistake, not a machine without a name
    with pytest.raises(IconbenchError, match=r"nothing: no asv results directory there; give "):
        asv.machine_of(tmp_path / "nothing")


def test_results_of_two_machines_or_a_broken_machine_json_are_one_line(tmp_path):
    root = _night(tmp_path / "a", machine="vm", gpu="NVIDIA H200")
    _night(root.parent / "b", machine="vm2", gpu="NVIDIA H100 80GB HBM3")
    (root / "vm2").mkdir()
    (root / "vm2" / "machine.json").write_text(
        (root.parent / "b" / "vm2" / "machine.json").read_text()
    )
    with pytest.raises(
        IconbenchError, match=r"2 machines \(h200 in vm/, h100 in vm2/\); give .*--machine"
    ):
        asv.machine_of(root)
    (root / "vm2" / "machine.json").write_text(json.dumps({"gpu": "NVIDIA H100"}))
    with pytest.raises(IconbenchError, match=r"vm2/machine.json: .*'machine'"):
        asv.machine_of(root)
