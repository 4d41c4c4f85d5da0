"""Print what each grid preset costs: time, peak memory, file, and loading.

Run as ``.venv/bin/python perf/library_grids.py [preset ...]`` (default: every preset
icon-grid-generator makes, the biggest last; ``--lattice``: every preset of iconbench's own
lattice). Each preset is made in a fresh process into an empty cache, so the time and the peak
resident memory are that preset's alone. A library preset is made into its NetCDF file and
then loaded once through the runner's road (``Grid.generate``: icon4py's ``GridManager``); a
lattice preset is generated in every process that uses it (gt4py's and icon4py's imports
come first and count in its memory, not its time), and its file is what ``iconbench grid
--out`` writes. Prints a Markdown table, the ones docs/grids.md holds.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile

#: Run in a fresh process: make the preset, then (library) load its file once or (lattice) write
#: its grid file for the size. Prints the figures as JSON.
_ONE = """
import json, pathlib, resource, sys, tempfile, time
from iconbench import grids
from iconbench.grids import library
grid = grids.resolve(sys.argv[1])
made_by = grid.spec.made_by
if made_by is None:  # the lattice: generated where used; gt4py's imports are not the making
    from iconbench.grids import gridfile
started = time.perf_counter()
if made_by is not None:
    path = library.cached_file(made_by, log=lambda line: None)
else:
    generated = grid.generate()
made = time.perf_counter() - started
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
loaded = None
if made_by is not None:
    from iconbench.grids import gridfile  # gt4py's and icon4py's imports are not the loading
    started = time.perf_counter()
    grid.generate()
    loaded = time.perf_counter() - started
else:
    path = pathlib.Path(tempfile.mkdtemp()) / "grid.nc"
    gridfile.write_grid_file(generated, path)
print(json.dumps({"made_s": made, "peak_mib": peak / 1024, "bytes": path.stat().st_size,
                  "load_s": loaded}))
"""


def measure(preset: str) -> dict[str, float | None]:
    """Make ``preset`` in a fresh process with an empty cache; its figures."""
    with tempfile.TemporaryDirectory() as cache:
        environ = dict(os.environ, ICONBENCH_CACHE_DIR=cache)
        done = subprocess.run([sys.executable, "-c", _ONE, preset], env=environ,
                              capture_output=True, text=True, check=True)  # fmt: skip
        return json.loads(done.stdout.strip().splitlines()[-1])


def main(presets: list[str]) -> int:
    """Measure each preset, smallest first, and print the table row by row."""
    from iconbench import grids

    lattice = presets == ["--lattice"]
    chosen = sorted(
        (name for name, spec in grids.PRESETS.items() if (spec.made_by is None) == lattice),
        key=lambda name: grids.PRESETS[name].num_cells,
    ) if lattice or not presets else presets  # fmt: skip
    print("| preset | made by | cells | made in | peak memory | file | loaded in |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
    for name in chosen:
        spec = grids.PRESETS[name]
        found = measure(name)
        loaded = "–" if found["load_s"] is None else f"{found['load_s']:.1f} s"
        print(f"| `{name}` | {spec.source()} | {spec.num_cells:,} | "
              f"{found['made_s']:.1f} s | {found['peak_mib']:,.0f} MiB | "
              f"{found['bytes'] / 2**20:.1f} MiB | {loaded} |", flush=True)  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
