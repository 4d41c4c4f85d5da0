"""What made a result's grid: recorded since 2026-11-29, known by name before.

Results name their grid and record its counts. Two makers can make one name with the same
counts and still two grids: iconbench's 16 x 16 torus and icon-grid-generator's have 512
cells, 768 edges and 256 vertices each, and all six neighbour tables compared (C2E, E2C,
C2V, E2V, V2C, C2E2C) differ, so a program reads its fields in another order. A result now
records its grid's maker (:attr:`iconbench.grids.presets.GridSpec.maker`: the summary's
``grid_maker``, asv's ``grid_makers`` param) and the gate compares two sides only on one maker.

A result written before makers were recorded made each preset name as the presets did then
(:data:`BEFORE_RECORDED`, frozen: iconbench at 138f165); a size of ``--cells N`` was
always the lattice; any other name (a grid file's) stays unknown, and unknown matches
anything, as an unrecorded count does.
"""

from __future__ import annotations

import re

from iconbench.errors import IconbenchError
from iconbench.grids.presets import LATTICE_MAKER

_LIBRARY = "icon-grid-generator 0.9.0"

#: The maker of each preset name before results recorded it (iconbench at 138f165): the
#: names icon-grid-generator made were added with it (7ff6667) or, for the three global ones,
#: had no result recorded under their torus stand-ins.
BEFORE_RECORDED: dict[str, str] = {
    **dict.fromkeys(
        ("tiny", "tiny_lam", "small", "small_lam", "icon_benchmark_regional",
         "mch_icon-ch1_medium", "ch2", "ch1_operational", "ch1_medium", "gpu_1m", "gpu_4m"),
        LATTICE_MAKER,
    ),
    **dict.fromkeys(
        ("icon_global", "icon_benchmark_global", "r02b07", "mch_r19b08_lam", "ch2_r19b07",
         "ch1_operational_r19b08", "r02b02", "r02b05_lam", "tiny_torus"),
        _LIBRARY,
    ),
}  # fmt: skip

#: The suffix another number of levels gives a preset's name (``tiny_5l``).
_LEVELS = re.compile(r"_[0-9]+l$")
#: The names ``--cells N`` gives its lattices (``torus_900c_5l``, ``lam_2000c_10l``).
_SIZED = re.compile(r"(torus|lam)_[0-9]+c_[0-9]+l")


def of_result(grid: str, recorded: str | None) -> str | None:
    """The maker of a result's grid: the one it recorded, else the one its name meant then.

    >>> of_result("tiny", None), of_result("tiny", "icon-grid-generator 0.9.0")
    ('iconbench lattice', 'icon-grid-generator 0.9.0')
    >>> of_result("torus_900c_5l", None), of_result("tiny_5l", None), of_result("my_domain", None)
    ('iconbench lattice', 'iconbench lattice', None)
    """
    if recorded:
        return recorded
    preset = _LEVELS.sub("", grid)  # ``--grid tiny --levels 5`` is tiny_5l
    if preset in BEFORE_RECORDED:
        return BEFORE_RECORDED[preset]
    return LATTICE_MAKER if _SIZED.fullmatch(grid) else None


def check_same(grid: str, base: str | None, head: str | None) -> None:
    """Refuse two sides of ``grid`` made by different makers (unknown matches anything).

    >>> check_same("tiny", "iconbench lattice", None)
    >>> check_same("tiny", "iconbench lattice", "icon-grid-generator 0.9.0")
    Traceback (most recent call last):
    ...
    iconbench.errors.IconbenchError: grids differ: base tiny was made by iconbench lattice, \
head tiny by icon-grid-generator 0.9.0 (the same name, other neighbour tables); compare results \
of one maker: measure base again on this grid
    """
    if base and head and base != head:
        raise IconbenchError(
            f"grids differ: base {grid} was made by {base}, head {grid} by {head} (the same "
            "name, other neighbour tables); compare results of one maker: measure base again "
            "on this grid"
        )
