"""ICON grid file round trip: write a generated grid, read it back with icon4py's GridManager."""

import netCDF4
import numpy as np
import pytest
from icon4py.model.common.grid import geometry_attributes as attrs

from iconbench import cli, grids
from iconbench.errors import IconbenchError
from iconbench.grids import gridfile


@pytest.fixture(scope="module", params=["lattice_torus", "tiny_lam"])
def written(request, tmp_path_factory):
    generated = request.getfixturevalue(request.param)
    path = gridfile.write_grid_file(generated, tmp_path_factory.mktemp("grids") / "grid.nc")
    return generated, path


def test_file_has_icon_layout(written):
    generated, path = written
    with netCDF4.Dataset(path) as ds:
        assert ds.dimensions["cell"].size == generated.grid.num_cells
        assert ds["edge_of_cell"].dimensions == ("nv", "cell")
        assert ds.getncattr("grid_geometry") == 2  # ICON's code for a torus/plane
        c2e = ds["edge_of_cell"][:].T
        # Fortran indices: 1 .. num_edges, 0 only for missing neighbours.
        assert c2e.min() == 1
        assert c2e.max() == generated.grid.num_edges
        missing = (ds["neighbor_cell_index"][:] == 0).sum()
    assert (missing > 0) == generated.grid.limited_area


def test_grid_manager_reads_back_the_same_grid(written):
    generated, path = written
    loaded = grids.load_grid_file(path, num_levels=10, keep_skip_values=True)
    assert loaded.grid.limited_area == generated.grid.limited_area
    assert set(loaded.grid.connectivities) == set(generated.grid.connectivities)
    for name, connectivity in generated.grid.connectivities.items():
        assert np.array_equal(connectivity.asnumpy(), loaded.grid.connectivities[name].asnumpy()), (
            name
        )
    assert loaded.zone_bounds() == generated.zone_bounds()
    for key in (attrs.CELL_AREA, attrs.EDGE_LENGTH, attrs.CELL_NORMAL_ORIENTATION,
                attrs.CELL_CENTER_X, attrs.CELL_CENTER_Y):  # fmt: skip
        assert np.array_equal(loaded.geometry[key], generated.geometry[key]), key
    assert loaded.spec.num_cells == generated.grid.num_cells


def test_the_same_mountains_stand_on_the_grid_read_back(written):
    """The programs' inputs raise their hills at the cell centres: read back from its file,
    a grid gets the ones it was generated with (a file's grid was flat before 08f3ac3)."""
    from iconbench.programs.overrides import Context

    generated, path = written
    loaded = grids.load_grid_file(path, num_levels=10)
    before, after = Context.of(generated).orography(), Context.of(loaded).orography()
    assert after is not None
    assert after.summary() == before.summary()
    assert after.summary()["cells_steep"] > 0.1
    assert np.array_equal(after.vertoffset_gradp, before.vertoffset_gradp)


def test_cli_reads_a_grid_file(written, capsys):
    generated, path = written
    assert cli.main(["grid", "--grid-file", str(path), "--levels", "10"]) == 0
    out = capsys.readouterr().out
    assert f"cells       {generated.grid.num_cells}" in out
    assert "checks      ok" in out


def test_missing_or_foreign_file_is_a_user_error(tmp_path):
    with pytest.raises(IconbenchError, match="does not exist"):
        grids.load_grid_file(tmp_path / "nope.nc")
    foreign = tmp_path / "foreign.nc"
    with netCDF4.Dataset(foreign, "w") as ds:
        ds.createDimension("x", 3)
    with pytest.raises(IconbenchError, match="is it an ICON horizontal grid file"):
        grids.load_grid_file(foreign)


def test_cli_writes_a_grid_file_that_reads_back(tmp_path, capsys):
    path = tmp_path / "tiny.nc"
    assert cli.main(["grid", "--grid", "tiny", "--out", str(path)]) == 0
    capsys.readouterr()
    assert grids.load_grid_file(path, num_levels=10).grid.num_edges == 768
