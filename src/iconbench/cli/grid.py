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
        source = parser.add_mutually_exclusive_group()
        options.add_grid(
            source,
            default=None,
            help="generate this grid preset (without options: list the presets)",
        )
        source.add_argument(
            "--cells",
            type=options.positive_int_type,
            metavar="N",
            help="generate a grid of about N cells",
        )
        source.add_argument(
            "--grid-file",
            type=options.existing_file_type,
            metavar="FILE",
            help="read a real ICON grid NetCDF file instead",
        )
        parser.add_argument(
            "--levels",
            type=options.positive_int_type,
            metavar="K",
            help="number of full levels (default: the preset's; 65)",
        )
        parser.add_argument(
            "--limited-area", action="store_true", help="limited-area grid with boundary zones"
        )
        options.add_out(parser, help="also write the grid as an ICON grid file (NetCDF)")

    @classmethod
    def run(cls, args: argparse.Namespace) -> int:
        from iconbench import grids

        spec = None
        if args.grid is not None or args.cells is not None:
            # Sizes and levels are checked here, before gt4py is imported.
            spec = grids.spec_for(args.grid, args.cells, args.levels, args.limited_area)
        if args.grid is None and args.cells is None and args.grid_file is None:
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
        if args.out:
            from iconbench.grids import gridfile

            gridfile.write_grid_file(generated, args.out)
            print(f"wrote       {args.out}")
        if problems:
            for problem in problems:
                print(f"check FAILED: {problem}")
            return 1
        print("checks      ok")
        return 0
