"""The gate compares two sides only on one maker of their grid, old results included.

iconbench's 16 x 16 torus and icon-grid-generator's have the same name-able counts and other
neighbour tables; a result records its grid's maker, one written before did not and is read as
made by what its name meant then (:mod:`iconbench.grids.makers`).
"""

from __future__ import annotations

import json
import pathlib
import shutil

import pytest

from iconbench.cli import main
from iconbench.records import asv

from .test_compare_cpu import BASE, HEAD


def _sides(cpu_results: pathlib.Path, tmp_path: pathlib.Path, head_maker: str | None):
    """Base's asv file as one written before makers were recorded, and head's with
    ``head_maker`` recorded for tiny (``None``: none), each a result directory of its own."""
    sides = []
    for commit, maker in ((BASE, None), (HEAD, head_maker)):
        root = tmp_path / commit[:8] / "asv"
        shutil.copytree(cpu_results / "asv", root)
        for other in root.glob("*/*-existing-*.json"):
            if not other.name.startswith(commit[:8]):
                other.unlink()
        (file,) = root.glob(f"*/{commit[:8]}-*.json")
        data = json.loads(file.read_text())
        data["params"].pop(asv.GRID_MAKERS_PARAM, None)
        if maker is not None:
            data["params"][asv.GRID_MAKERS_PARAM] = asv.format_grid_makers({"tiny": maker})
        file.write_text(json.dumps(data))
        sides.append(str(root))
    return sides


def test_a_side_made_by_another_maker_is_one_line(cpu_results, tmp_path, capsys):
    base, head = _sides(cpu_results, tmp_path, "icon-grid-generator 0.9.0")
    out = tmp_path / "summary.json"
    assert main(["compare", base, head, "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        "iconbench: error: grids differ: base tiny was made by iconbench lattice, head tiny by "
        "icon-grid-generator 0.9.0 (the same name, other neighbour tables); compare results "
        "of one maker: measure base again on this grid"
    ]
    assert not out.exists()


@pytest.mark.parametrize("head_maker", ["iconbench lattice", None])
def test_the_same_maker_recorded_or_not_is_compared(cpu_results, tmp_path, head_maker):
    base, head = _sides(cpu_results, tmp_path, head_maker)
    out = tmp_path / "summary.json"
    assert main(["compare", base, head, "--out", str(out),
                 "--programs", "compute_tangential_wind|calculate_nabla4"]) == 0  # fmt: skip
    assert json.loads(out.read_text())["verdict"] == "pass"
