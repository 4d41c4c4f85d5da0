"""``iconbench grid``: list the grid presets, or generate / load a grid, check it, summarise it."""

from __future__ import annotations

import argparse
import time

from iconbench.cli import options
from iconbench.cli.command import Command


class Grid(Command):
    """Show grid presets; generate a grid (or read an ICON grid file) and print its zones."""

    name = "grid"
    summary = "list grid presets, or generate/load a grid and print its sizes and zone bounds"
    examples = (
        "iconbench grid",
        "iconbench grid --grid tiny_lam",
        "iconbench grid --grid icon_benchmark_regional   # 44 528-cell R19B08 domain",
        "iconbench grid --cells 1000000 --levels 80",
        "iconbench grid --grid ch2 --out ch2.nc",
        "iconbench grid --grid-file icon_grid_0002_R19B07_mch.nc --levels 80",
    )

    @classmethod
    def add_arguments(cls, parser: argparse.ArgumentParser) -> None:
        options.add_grid_source(
            parser,
            default=None,
            preset_help="generate this grid preset (without a grid: list the presets)",
        )
        options.add_out(parser, help="also write the grid as an ICON grid file (NetCDF)")

    @classmethod
    def run(cls, args: argparse.Namespace) -> int:
        from iconbench import grids

        # Presets, sizes, levels and the file's header are checked here, before gt4py.
        chosen = options.grid_of(args, default=None)
        if chosen is None:
            print(
                f"{'preset':<24} {'kind':<6} {'cells':>9} {'edges':>9} {'vertices':>9} "
                f"{'levels':>6}  made by: generated grid vs the real one; description"
            )
            for spec in grids.PRESETS.values():
                real = spec.real
                cells, edges, vertices = (
                    (real.cells, real.edges or "-", real.vertices or "-")
                    if real
                    else (spec.num_cells, spec.num_edges, spec.num_vertices)
                )
                maker = "icon-grid-generator" if spec.made_by is not None else "iconbench"
                print(
                    f"{spec.name:<24} {spec.kind:<6} {cells:>9} {edges:>9} {vertices:>9} "
                    f"{spec.num_levels:>6}  {maker}: {spec.exactness()}; {spec.description}"
                )
                if real is not None:
                    print(f"{'':<26}real grid: {real.name}; source: {real.source}")
                    print(f"{'':<26}generated: {spec.source()}; {spec.counts}")
                    if real.inferred:
                        print(f"{'':<26}{real.inferred}")
            print(
                "counts: of the real ICON grid where a preset stands for one (with its source), "
                "else of the generated grid; results record the generated grid's counts. "
                "made by icon-grid-generator: made once into the runner's cache (.cache/grids) "
                "and read as a grid file; iconbench: its own lattice (docs/grids.md says why)"
            )
            return 0
        from iconbench.grids import checks

        start = time.perf_counter()
        generated = chosen.generate()
        elapsed = time.perf_counter() - start
        problems = checks.check(generated)
        grid = generated.grid
        print(f"grid        {generated.spec.name} ({elapsed:.1f} s)")
        print(f"cells       {grid.num_cells}")
        print(f"edges       {grid.num_edges}")
        print(f"vertices    {grid.num_vertices}")
        print(f"levels      {grid.num_levels} (nflatlev {generated.vertical.nflatlev})")
        print(f"limited     {grid.limited_area}")
        for dim, zones in generated.zone_bounds().items():
            print(f"{dim} zones:")
            for zone, (first, end) in zones.items():
                print(f"  {zone:<18} [{first:>9}, {end:>9})  {end - first:>9}")
        if args.out:
            if generated.spec.made_by is not None:  # the library's own file, as it made it
                from iconbench.files.atomic import write_atomic
                from iconbench.grids.library import cached_file

                write_atomic(args.out, cached_file(generated.spec.made_by).read_bytes())
            else:
                from iconbench.grids import gridfile

                gridfile.write_grid_file(generated, args.out)
            print(f"wrote       {args.out}")
        if problems:
            for problem in problems:
                print(f"check FAILED: {problem}")
            return 1
        print("checks      ok")
        return 0
