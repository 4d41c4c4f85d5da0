"""Print what each preset icon-grid-generator makes costs: time, peak memory, file, and loading.

Run as ``.venv/bin/python perf/library_grids.py [preset ...]`` (default: every such preset,
the biggest last). Each preset is made in a fresh process into an empty cache, so the time
and the peak resident memory are that preset's alone; then it is loaded once through the
runner's road (``Grid.generate``: icon4py's ``GridManager``). Prints a Markdown table, the
one docs/grids.md holds.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile

_ONE = """
import json, resource, sys, time, pathlib
from iconbench import grids
from iconbench.grids import library
grid = grids.resolve(sys.argv[1])
started = time.perf_counter()
path = library.cached_file(grid.spec.made_by, log=lambda line: None)
made = time.perf_counter() - started
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
from iconbench.grids import gridfile  # gt4py's and icon4py's imports are not the loading
started = time.perf_counter()
grid.generate()
loaded = time.perf_counter() - started
print(json.dumps({"made_s": made, "peak_mib": peak / 1024, "bytes": path.stat().st_size,
                  "load_s": loaded}))
"""


def measure(preset: str) -> dict[str, float]:
    """Make ``preset`` in a fresh process with an empty cache; its figures."""
    with tempfile.TemporaryDirectory() as cache:
        environ = dict(os.environ, ICONBENCH_CACHE_DIR=cache)
        done = subprocess.run([sys.executable, "-c", _ONE, preset], env=environ,
                              capture_output=True, text=True, check=True)  # fmt: skip
        return json.loads(done.stdout.strip().splitlines()[-1])


def main(presets: list[str]) -> int:
    """Measure each preset, smallest first, and print the table row by row."""
    from iconbench import grids

    chosen = presets or sorted(
        (name for name, spec in grids.PRESETS.items() if spec.made_by is not None),
        key=lambda name: grids.PRESETS[name].num_cells,
    )
    print("| preset | made by icon-grid-generator | cells | made in | peak memory | file | "
          "loaded in |")  # fmt: skip
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
    for name in chosen:
        spec = grids.PRESETS[name]
        found = measure(name)
        print(f"| `{name}` | {spec.made_by.describe()} | {spec.num_cells:,} | "
              f"{found['made_s']:.1f} s | {found['peak_mib']:,.0f} MiB | "
              f"{found['bytes'] / 2**20:.1f} MiB | {found['load_s']:.1f} s |",
              flush=True)  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
