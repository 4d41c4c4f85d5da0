"""Grids shared by the grid tests: generated once per session (they are deterministic)."""

import pytest

from iconbench import grids


@pytest.fixture(scope="session")
def tiny() -> grids.GeneratedGrid:
    return grids.generate("tiny")


@pytest.fixture(scope="session")
def tiny_lam() -> grids.GeneratedGrid:
    """Keeps the -1 of missing boundary neighbours, so tests can see where they are."""
    return grids.generate("tiny_lam", keep_skip_values=True)


def tables(generated: grids.GeneratedGrid) -> dict:
    """Neighbour tables of the icon4py grid as numpy arrays, by offset name."""
    return {name: c.asnumpy() for name, c in generated.grid.connectivities.items()}
