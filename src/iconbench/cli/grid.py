"""``iconbench grid``: list the grid presets, or generate / load a grid, check it, summarise it."""

from __future__ import annotations

import argparse
import time

from iconbench.cli.command import Command


class Grid(Command):
    """Show grid presets; generate a grid (or read an ICON grid file) and print its zones."""

    name = "grid"
    summary = "list grid presets, or generate/load a grid and print its sizes and zone bounds"
    examples = (
        "iconbench grid",
        "iconbench grid --preset tiny_lam",
        "iconbench grid --preset icon_benchmark_regional   # 44 528-cell R19B08 domain",
        "iconbench grid --cells 1000000 --levels 80",
        "iconbench grid --preset ch2 --write-grid-file ch2.nc",
        "iconbench grid --grid-file icon_grid_0002_R19B07_mch.nc --levels 80",
    )

    @classmethod
    def add_arguments(cls, parser: argparse.ArgumentParser) -> None:
        source = parser.add_mutually_exclusive_group()
        source.add_argument(
            "--preset", help="generate a named preset (see the list without options)"
        )
        source.add_argument("--cells", type=int, help="generate a grid of about N cells")
        source.add_argument("--grid-file", help="read a real ICON grid NetCDF file instead")
        parser.add_argument(
            "--levels", type=int, help="number of full levels (default: preset's, 65)"
        )
        parser.add_argument(
            "--limited-area", action="store_true", help="limited-area grid with boundary zones"
        )
        parser.add_argument(
            "--write-grid-file", metavar="PATH", help="also write an ICON grid file"
        )

    @classmethod
    def run(cls, args: argparse.Namespace) -> int:
        from iconbench import grids

        if args.preset is None and args.cells is None and args.grid_file is None:
            print(
                f"{'preset':<24} {'kind':<5} {'cells':>9} {'edges':>9} {'vertices':>9} "
                f"{'levels':>6}  generated grid vs the real one; description"
            )
            for spec in grids.PRESETS.values():
                kind = "lam" if spec.limited_area else "torus"
                real = spec.real
                cells, edges, vertices = (
                    (real.cells, real.edges or "-", real.vertices or "-")
                    if real
                    else (spec.num_cells, spec.num_edges, spec.num_vertices)
                )
                print(
                    f"{spec.name:<24} {kind:<5} {cells:>9} {edges:>9} {vertices:>9} "
                    f"{spec.num_levels:>6}  {spec.exactness()}; {spec.description}"
                )
                if real is not None:
                    print(f"{'':<26}real grid: {real.name}; source: {real.source}")
                    print(f"{'':<26}generated: {spec.nx} x {spec.ny} lattice, {spec.counts}")
                    if real.inferred:
                        print(f"{'':<26}{real.inferred}")
            print(
                "counts: of the real ICON grid where a preset stands for one (with its source), "
                "else of the generated grid; results record the generated grid's counts"
            )
            return 0
        from iconbench.grids import checks

        start = time.perf_counter()
        if args.grid_file is not None:
            generated = grids.load_grid_file(args.grid_file, num_levels=args.levels or 65)
        else:
            spec = grids.spec_for(args.preset, args.cells, args.levels, args.limited_area)
            generated = grids.generate(spec)
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
        if args.write_grid_file:
            from iconbench.grids import gridfile

            gridfile.write_grid_file(generated, args.write_grid_file)
            print(f"wrote       {args.write_grid_file}")
        if problems:
            for problem in problems:
                print(f"check FAILED: {problem}")
            return 1
        print("checks      ok")
        return 0
