"""Grids shared by the grid tests: generated once per session (they are deterministic)."""

import pytest

from iconbench import grids

#: iconbench's own 16 x 16 torus (``tiny`` until icon-grid-generator made it).
LATTICE_TORUS = grids.GridSpec("lattice_16x16", 0, 10, nx=16, ny=16)


@pytest.fixture(scope="session")
def lattice_torus() -> grids.GeneratedGrid:
    """iconbench's own 16 x 16 torus, 10 levels: what the lattice generator's tests check.

    ``tiny`` was this lattice until icon-grid-generator made it (the same counts, other
    neighbour tables); the lattice generator still makes every ``--cells`` size.
    """
    return grids.generate(LATTICE_TORUS)


@pytest.fixture(scope="session")
def tiny_lam() -> grids.GeneratedGrid:
    """Keeps the -1 of missing boundary neighbours, so tests can see where they are."""
    return grids.generate("tiny_lam", keep_skip_values=True)


def tables(generated: grids.GeneratedGrid) -> dict:
    """Neighbour tables of the icon4py grid as numpy arrays, by offset name."""
    return {name: c.asnumpy() for name, c in generated.grid.connectivities.items()}
