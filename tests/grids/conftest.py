"""Grids shared by the grid tests: generated once per session (they are deterministic)."""

import pytest

from iconbench import grids


@pytest.fixture(scope="session")
def tiny() -> grids.GeneratedGrid:
    return grids.generate("tiny")


@pytest.fixture(scope="session")
def tiny_lam() -> grids.GeneratedGrid:
    return grids.generate("tiny_lam")


def tables(generated: grids.GeneratedGrid) -> dict:
    """Neighbour tables of the icon4py grid as numpy arrays, by offset name."""
    return {name: c.asnumpy() for name, c in generated.grid.connectivities.items()}
