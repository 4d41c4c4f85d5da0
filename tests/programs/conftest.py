"""Fixtures shared by the program tests: generated grids (once per session)."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def tiny():
    from iconbench.grids import generate

    return generate("tiny")


@pytest.fixture(scope="session")
def tiny_lam():
    from iconbench.grids import generate

    return generate("tiny_lam")
