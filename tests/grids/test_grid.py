"""The typed grid: resolved once at the command line, its command-line form read back the same.

A worker process gets :attr:`Grid.argv`; what its command line resolves must be the very grid
the driver resolved (name, counts, source), or its results would be recorded under another.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import subprocess
import sys

import pytest

from iconbench import grids
from iconbench.cli import options
from iconbench.errors import IconbenchError

from .conftest import LATTICE_TORUS

REPO = pathlib.Path(__file__).resolve().parents[2]


def _parser() -> argparse.ArgumentParser:
    parser = options.OneLineParser(prog="t")
    options.add_grid_source(parser)
    return parser


def _from_command_line(argv) -> grids.Grid:
    return options.grid_of(_parser().parse_args(list(argv)))


@pytest.fixture(scope="module")
def tiny_file(tmp_path_factory) -> pathlib.Path:
    """iconbench's 16 x 16 lattice torus written as an ICON grid file."""
    path = tmp_path_factory.mktemp("gridfile") / "tiny.nc"
    grids.write_grid_file(grids.generate(LATTICE_TORUS), path)
    return path


@pytest.mark.parametrize(
    "asked",
    [
        {"preset": "tiny"},
        {"preset": "tiny", "levels": 5},
        {"preset": "small", "limited_area": True},
        {"cells": 5000, "levels": 30},
        {"cells": 5000, "limited_area": True},
    ],
)
def test_a_grid_read_back_from_its_command_line_is_the_same_grid(asked):
    grid = grids.resolve(asked.pop("preset", None), **asked)
    again = _from_command_line(grid.argv)
    assert again == grid
    assert (again.name, again.counts) == (grid.name, grid.counts)


def test_names_say_what_differs_from_the_preset():
    tiny = grids.resolve("tiny")
    assert (tiny.name, tiny.counts.cells, tiny.counts.levels, tiny.file) == ("tiny", 512, 10, None)
    # the preset's own levels keep its name; other levels are another grid
    assert grids.resolve("tiny", levels=10).name == "tiny"
    other = grids.resolve("tiny", levels=5)
    assert (other.name, other.counts.levels, other.counts.cells) == ("tiny_5l", 5, 512)
    assert grids.resolve("tiny", limited_area=True).name == "tiny_lam"
    sized = grids.resolve(cells=20000, levels=65)
    assert (sized.name, sized.counts.cells) == ("torus_20000c_65l", 20088)


def test_a_grid_file_is_named_by_its_stem_and_counted_from_its_header(tiny_file):
    grid = grids.resolve(grid_file=tiny_file, levels=10)
    assert grid.name == "tiny_10l"
    assert grid.counts == grids.resolve("tiny").counts
    assert grid.file == tiny_file.resolve()
    assert grid.argv == ("--grid-file", str(tiny_file.resolve()), "--levels", "10")
    assert _from_command_line(grid.argv) == grid
    built = grid.generate()
    assert (built.grid.num_cells, built.grid.num_levels) == (512, 10)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--grid", "tiny", "--cells", "900"], "give one of --grid PRESET, --cells N"),
        (["--cells", "2"], "cannot make a torus with 2 cells"),
        (["--grid", "tiny", "--levels", "2000"], "use 1 to 1000 levels"),
    ],
)
def test_bad_grids_are_one_line(argv, message):
    with pytest.raises(IconbenchError, match=message):
        _from_command_line(argv)


def test_a_file_that_is_no_grid_is_one_line(tmp_path):
    junk = tmp_path / "junk.nc"
    junk.write_text("not netcdf")
    with pytest.raises(IconbenchError, match=r"^--grid-file .*junk.nc: not an ICON grid file"):
        grids.resolve(grid_file=junk)
    with pytest.raises(IconbenchError, match="--limited-area: a grid file says itself"):
        grids.resolve(grid_file=junk, limited_area=True)


def test_a_grid_file_without_netcdf4_is_one_line(tiny_file, monkeypatch):
    """A runner's wheelhouse made without --with-grid-files has no netCDF4."""
    monkeypatch.setitem(sys.modules, "netCDF4", None)  # import netCDF4 raises ImportError
    with pytest.raises(IconbenchError, match=r"need the netCDF4 package.*--with-grid-files"):
        grids.resolve(grid_file=tiny_file, levels=10)


def test_without_netcdf4_a_lattice_preset_is_still_made_and_a_library_one_is_one_line(tmp_path):
    """A GPU runner's wheelhouse made without --with-grid-files: its checks on the lattice
    presets run (every case of a check failed there once, the file road imported up front)."""
    (tmp_path / "netCDF4.py").write_text("raise ImportError('not in this wheelhouse')\n")
    script = """
from iconbench.errors import IconbenchError
from iconbench.grids.grid import resolve
made = resolve("tiny_lam").generate()
print("lattice", made.topology.num_cells)
try:
    resolve("tiny").generate()
except IconbenchError as error:
    print("library", error)
"""
    env = dict(os.environ, ICONBENCH_CACHE_DIR=str(tmp_path / "cache"))
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), str(REPO / "src")])
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                          text=True, check=False, timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.splitlines()
    assert lines[0] == f"lattice {grids.resolve('tiny_lam').counts.cells}"
    assert lines[1].startswith("library ICON grid files need the netCDF4 package"), lines


def test_the_runner_measures_and_records_the_grid_its_command_line_resolved(tmp_path):
    """``suite all --cells``: the worker builds the grid from its argv, results carry its name
    and counts (summary, every ledger line, asv's environment name)."""
    out = tmp_path / "run"
    env = {k: v for k, v in os.environ.items() if k != "ICONBENCH_CATALOG"}  # the catalog's cases
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO / "src"), env.get("PYTHONPATH")]))
    done = subprocess.run(
        [sys.executable, "-m", "iconbench", "suite", "all", "--out", str(out), "--backends",
         "embedded", "--cells", "900", "--levels", "5", "--programs",
         r"^compute_tangential_wind\[", "--samples", "5", "--max-s", "0.1", "--warmup-s", "0.01"],
        env=env, capture_output=True, text=True, check=False, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert "generating grid torus_900c_5l" in done.stderr
    expected = grids.resolve(cells=900, levels=5).counts.as_dict()
    summary = json.loads((out / "summary.json").read_text())
    assert (summary["grid"], summary["grid_counts"]) == ("torus_900c_5l", expected)
    assert expected == {"cells": 880, "edges": 1320, "vertices": 440, "levels": 5}
    (row,) = [json.loads(line) for line in (out / "work" / "session.jsonl").open()]
    assert (row["grid"], row["grid_counts"], row["error"]) == ("torus_900c_5l", expected, None)
    assert len(row["measurement"]["host_s"]) >= 5
    assert min(row["measurement"]["host_s"]) > 0
    (asv_file,) = (out / "asv").glob("*/*-torus_900c_5l.json")
    assert asv_file.name.startswith(summary["commit"][:8])
    # what made it, beside its counts: the gate compares results of one maker only
    assert summary["grid_maker"] == "iconbench lattice"
    params = json.loads(asv_file.read_text())["params"]
    assert params["grid_counts"] == "torus_900c_5l:880/1320/440/5"
    assert params["grid_makers"] == "torus_900c_5l=iconbench lattice"
