"""Presets made by icon-grid-generator: one of each family through the runner's grid road.

The runner builds a grid with :meth:`iconbench.grids.Grid.generate` (``suite.generated_grid``);
for these presets that makes the library's NetCDF file once into the cache and reads it with
icon4py's ``GridManager``, as any ``--grid-file``.
"""

import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest
from icon4py.model.common import dimension as dims
from icon4py.model.common.grid import geometry_attributes as attrs
from icon4py.model.common.grid import horizontal as h_grid

from iconbench import cli, grids
from iconbench.errors import IconbenchError
from iconbench.grids import checks, library


@pytest.fixture
def grid_cache(tmp_path, monkeypatch):
    """An empty runner cache: every preset is made anew by the library."""
    monkeypatch.setenv("ICONBENCH_CACHE_DIR", str(tmp_path))
    return tmp_path / "grids"


def zone_size(grid, dim, zone) -> int:
    domain = h_grid.domain(dim)(zone)
    return grid.end_index(domain) - grid.start_index(domain)


@pytest.mark.parametrize(
    ("preset", "family", "counts"),
    [
        ("r02b02", "global", (1280, 1920, 642)),  # 20 n^2 4^k cells: ICON's R02B02 exactly
        ("r02b05_lam", "limited-area", (892, 1379, 488)),
        ("tiny_torus", "torus", (512, 768, 256)),
    ],
)
def test_each_family_loads_through_the_runners_road(grid_cache, preset, family, counts):
    grid = grids.resolve(preset)
    assert grid.spec.made_by.family == family
    generated = grid.generate()
    assert (generated.grid.num_cells, generated.grid.num_edges, generated.grid.num_vertices) == (
        counts
    )
    assert generated.spec.name == preset  # results record the preset, not the file
    assert checks.check(generated) == []
    [made] = grid_cache.glob("*.nc")
    assert made.name.startswith(grid.spec.made_by.name)
    assert not [p for p in grid_cache.iterdir() if "partial" in p.name]
    interior = zone_size(generated.grid, dims.CellDim, h_grid.Zone.INTERIOR)
    if family == "limited-area":
        # ICON's zones: 4 boundary rows and a nudging row of cells, each non-empty, in order
        rows = [
            zone_size(generated.grid, dims.CellDim, zone)
            for zone in (
                h_grid.Zone.LATERAL_BOUNDARY, h_grid.Zone.LATERAL_BOUNDARY_LEVEL_2,
                h_grid.Zone.LATERAL_BOUNDARY_LEVEL_3, h_grid.Zone.LATERAL_BOUNDARY_LEVEL_4,
                h_grid.Zone.NUDGING,
            )
        ]  # fmt: skip
        assert min(rows) > 0
        assert sum(rows) + interior == counts[0]
        assert generated.grid.limited_area
    else:
        assert interior == counts[0]
        assert not generated.grid.limited_area
    if family == "global":
        # a sphere: the cell areas add up to the Earth's surface
        area = np.sum(generated.geometry["cell_area"])
        assert area == pytest.approx(4 * np.pi * 6.371229e6**2, rel=1e-3)
        # and no plane holds it: the programs' inputs stay on flat terrain
        assert "x_component_of_cell_center" not in generated.geometry
    else:
        # cell centres on a plane, where the programs' inputs raise their mountains:
        # neighbouring centres as far apart as the file's dual edges
        x, y = (generated.geometry[f"{c}_component_of_cell_center"] for c in "xy")
        e2c = generated.topology.e2c
        pairs = (e2c >= 0).all(axis=1) & (e2c[:, 0] != e2c[:, 1])
        a, b = e2c[pairs, 0], e2c[pairs, 1]
        dx, dy = x[a] - x[b], y[a] - y[b]
        inside = (np.abs(dx) < np.ptp(x) / 2) & (np.abs(dy) < np.ptp(y) / 2)  # a torus wraps
        dual = generated.geometry[attrs.DUAL_EDGE_LENGTH][pairs]
        ratio = np.hypot(dx, dy)[inside] / dual[inside]
        assert inside.mean() > 0.8
        assert np.median(ratio) == pytest.approx(1.0, abs=0.01)
        assert ratio.min() > 0.88, ratio.min()
        assert ratio.max() < 1.12, ratio.max()


def test_a_preset_is_made_once_and_then_found(grid_cache):
    first = library.cached_file(grids.PRESETS["r02b02"].made_by)
    made = first.stat().st_mtime_ns
    assert library.cached_file(grids.PRESETS["r02b02"].made_by) == first
    assert first.stat().st_mtime_ns == made


def test_a_file_of_another_grid_is_refused_in_one_line(grid_cache):
    wrong = library.cached_file(grids.PRESETS["r02b02"].made_by)
    path = library.cached_file(grids.PRESETS["tiny_torus"].made_by)
    os.replace(wrong, path)
    refused = r"is not preset tiny_torus's grid \(cells 512 vs 1280"
    with pytest.raises(IconbenchError, match=refused):
        grids.resolve("tiny_torus").generate()


def test_a_grid_that_takes_a_while_says_so(grid_cache, monkeypatch, tmp_path):
    monkeypatch.setattr(library, "PROGRESS_AFTER_S", 0.05)
    said = []
    library.make(grids.PRESETS["r02b05_lam"].made_by, tmp_path / "lam.nc", log=said.append)
    assert said[-1].startswith("grid R02B05_lam: icon-grid-generator 0.9.0 is making it: done in")
    assert (tmp_path / "lam.nc").is_file()


def test_limited_area_is_refused_for_a_sphere():
    refused = "preset r02b02 is icon-grid-generator's global R02B02"
    with pytest.raises(IconbenchError, match=refused):
        grids.resolve("r02b02", limited_area=True)


def test_listing_says_which_presets_the_library_makes(capsys):
    assert cli.main(["grid"]) == 0
    lines = capsys.readouterr().out.splitlines()
    rows = [line for line in lines if line.split()[0] in grids.PRESETS]
    made = {row.split()[0] for row in rows if "icon-grid-generator:" in row}
    assert made == {name for name, spec in grids.PRESETS.items() if spec.made_by is not None}
    assert {"icon_global", "icon_benchmark_global", "mch_r19b08_lam", "tiny_torus"} <= made
    assert "tiny" in made  # the CI torus: the library makes its counts exactly
    tiny_lam = next(line for line in lines if line.startswith("tiny_lam "))
    assert "iconbench:" in tiny_lam
    sphere = next(line for line in lines if line.startswith("icon_global "))
    assert sphere.split()[1:6] == ["global", "20480", "30720", "10242", "40"]


def test_arithmetic_counts_are_icons():
    # a sphere RnBk: 20 n^2 4^k cells, 30 n^2 4^k edges, 10 n^2 4^k + 2 vertices
    assert grids.PRESETS["icon_benchmark_global"].counts.as_dict() == {
        "cells": 327_680, "edges": 491_520, "vertices": 163_842, "levels": 80}  # fmt: skip
    assert grids.PRESETS["icon_benchmark_global"].exactness() == "exact"
    assert grids.PRESETS["r02b07"].exactness() == "exact"


@pytest.mark.slow
def test_the_experiments_domain_is_made_with_its_counts(grid_cache):
    """R19B08 over Switzerland: minutes on a workstation (the R19B03 sphere it is cut from)."""
    grid = grids.resolve("mch_r19b08_lam")
    generated = grid.generate()
    assert checks.check(generated) == []
    assert generated.grid.num_cells == 43 * 4**5


def test_a_cached_file_cut_short_is_one_line_naming_it(grid_cache):
    path = library.cached_file(grids.PRESETS["r02b02"].made_by)
    path.write_bytes(path.read_bytes()[:1000])
    with pytest.raises(IconbenchError, match=rf"cannot read ICON grid file .*; remove {path} so"):
        grids.resolve("r02b02").generate()


def test_processes_asking_at_once_all_get_the_one_whole_file(grid_cache):
    ask = ("from iconbench import grids; from iconbench.grids import library; "
           "print(library.cached_file(grids.PRESETS['r02b05_lam'].made_by))")  # fmt: skip
    env = dict(os.environ, ICONBENCH_CACHE_DIR=str(grid_cache.parent))
    runs = [subprocess.Popen([sys.executable, "-c", ask], env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True) for _ in range(3)]  # fmt: skip
    outputs = [run.communicate(timeout=300) for run in runs]
    assert all(run.returncode == 0 for run in runs), [err for _, err in outputs]
    assert len({out.strip() for out, _ in outputs}) == 1
    assert [p.name for p in grid_cache.iterdir() if not p.name.startswith(".")] == [
        pathlib.Path(outputs[0][0].strip()).name
    ]
    assert not [p for p in grid_cache.iterdir() if "partial" in p.name]


@pytest.mark.parametrize("name", ["tiny", "small", "gpu_1m"])
def test_the_torus_presets_are_the_librarys_with_the_lattices_counts(name):
    """The library makes each torus preset at the lattice's nx x ny: the same counts, so the
    frozen counts hold; its results now say so, and one of before reads as the lattice's."""
    from iconbench.grids import makers

    spec = grids.PRESETS[name]
    made_by = spec.made_by
    assert made_by is not None
    assert made_by.family == "torus"
    lattice = grids.GridSpec(name, 0, spec.num_levels, nx=made_by.nx, ny=made_by.ny)
    assert spec.counts == lattice.counts
    assert spec.maker == f"icon-grid-generator {library.version()}"
    assert makers.of_result(name, None) == "iconbench lattice" != spec.maker


def test_the_library_refuses_gpu_4ms_torus_so_the_lattice_makes_it():
    """icon-grid-generator's guard: no torus over 2 000 000 cells (its ``max_cells``)."""
    from grid_generator import grid_generator as gg

    spec = grids.PRESETS["gpu_4m"]
    assert spec.made_by is None
    asked = library.LibraryGrid("torus", nx=spec.nx, ny=spec.ny, edge_length=spec.edge_length)
    with pytest.raises(ValueError, match="4000640 cells, exceeding max_cells=2000000"):
        gg.generate_grid_to_netcdf(asked.spec(), "/nonexistent/never.nc", fields=asked.fields(),
                                   resume=False)  # fmt: skip
