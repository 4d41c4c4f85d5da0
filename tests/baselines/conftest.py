"""Shared fixtures: sample inputs written from the formats' definitions, and a baseline store."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from iconbench.baselines import importers
from iconbench.baselines.gt4py_timings import GT4PyTiming

DATA = Path(__file__).parent / "data"
BENCHER = DATA / "bencher=mch_icon-ch1_medium_stencils=0.5=OPENACC.json"


@pytest.fixture
def provenance() -> importers.Provenance:
    return importers.Provenance(
        experiment="MCH-R04B09",
        grid="R04B09",
        gpu="A100",
        machine="balfrin",
        date="2024-05-29",
        timesteps=6,
    )


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(42)


def lognormal_samples(rng: np.random.Generator, median_s: float, n: int = 30) -> tuple[float, ...]:
    """Timing-like samples: positive, right-skewed, around ``median_s``."""
    return tuple(float(x) for x in median_s * rng.lognormal(0.0, 0.05, n))


def timing(
    program: str,
    samples: tuple[float, ...],
    *,
    backend: str = "gtfn_gpu",
    grid: str = "R04B09",
    gpu: str = "A100",
    **static_args: object,
) -> GT4PyTiming:
    return GT4PyTiming(program, tuple(sorted(static_args.items())), backend, grid, gpu, samples)
