"""``iconbench speedup RESULTS --baseline NAME``: GT4Py vs OpenACC, per timer and per step."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from iconbench.cli import option_types as types
from iconbench.cli import options
from iconbench.cli.command import Command
from iconbench.errors import IconbenchError


def _pins(items: list[str]) -> dict[str, Any]:
    """``["rayleigh_type=2", "lprep_adv=True"]`` -> ``{"rayleigh_type": 2, "lprep_adv": True}``."""
    from iconbench.baselines import gt4py_timings

    pins: dict[str, Any] = {}
    for item in items:
        key, sep, _ = item.partition("=")
        if not sep or not key:
            raise IconbenchError(f"--static {item!r}: expected KEY=VALUE, e.g. rayleigh_type=2")
        pins |= gt4py_timings.parse_variant(item)
    return pins


def _check_pins(pins: dict[str, Any], timings: list[Any], origin: str) -> None:
    """Every pinned key must be a static argument of some measured program.

    A misspelt key would otherwise pin nothing, silently.
    """
    known = sorted({k for t in timings for k, _ in t.static_args})
    for key in pins:
        if key not in known:
            raise IconbenchError(
                f"--static {key}=...: no program in {origin} has a static argument {key!r}; "
                f"choose from: {', '.join(known) or 'none (no program has static arguments)'}"
            )


class Speedup(Command):
    """Print the speed-up table (sorted by share of OpenACC time) and the integrate_nh estimate."""

    name = "speedup"
    summary = "speed-up of GT4Py over an OpenACC baseline, per program and for integrate_nh"
    examples = (
        "iconbench speedup results/h100/asv --experiment mch_icon-ch1_medium --force "
        "--commit 0e8595e4   # H100 vs the GH200 baseline: raw and bandwidth-scaled (estimate)",
        "iconbench speedup results/h100/asv --experiment mch_icon-ch1_medium --force "
        "--commit 0e8595e4 --static rayleigh_type=1 --json",
        "iconbench speedup gt4py_timers.json --baseline mch-r04b09/unknown_unknown_2024-05 "
        "--grid R04B09 --gpu A100",
        "iconbench speedup .asv/results --baseline mch-r04b09/unknown_unknown_2024-05 "
        "--backends gtfn_gpu --commit 0e8595e4",
    )

    @classmethod
    def add_arguments(cls, parser: argparse.ArgumentParser) -> None:
        parser.add_argument(
            "results",
            type=options.existing_path_type,
            help="gt4py metrics dump (GT4PY_DUMP_METRICS_AT_EXIT) or asv results directory",
        )
        parser.add_argument(
            "--experiment",
            type=types.EXPERIMENT,
            metavar="NAME",
            help="ICON experiment (baselines/experiments/NAME.toml): its baseline, grid and "
            "static arguments",
        )
        parser.add_argument(
            "--baseline",
            type=types.TEXT,
            metavar="NAME",
            help="stored baseline name or file (default: the experiment's; one is required)",
        )
        options.add_store(
            parser, help="baselines directory (default: $ICONBENCH_BASELINES or baselines/)"
        )
        parser.add_argument(
            "--mapping",
            type=options.existing_file_type,
            default=None,
            metavar="FILE",
            help="timer->program mapping (default: baselines/mapping/...toml)",
        )
        parser.add_argument(
            "--grid",
            type=types.NAME,
            metavar="GRID",
            help="grid of a metrics dump (it does not record it); selects one grid of asv results",
        )
        parser.add_argument(
            "--gpu",
            type=types.NAME,
            help="GPU of the GT4Py run (dumps do not record it; asv: machine name)",
        )
        parser.add_argument(
            "--commit",
            type=types.GIT_REF,
            metavar="SHA",
            help="asv results: the commit whose numbers to use (a prefix; needed when RESULTS "
            "holds several)",
        )
        parser.add_argument(
            "--metric",
            choices=("auto", "compute", "total"),
            default="auto",
            help="gt4py metric: compute (kernel), total (call); auto prefers compute",
        )
        options.add_backends(
            parser,
            default=None,
            help="only these backends, comma list or repeated (default: all in RESULTS)",
        )
        parser.add_argument(
            "--static",
            type=types.TEXT,
            action="append",
            default=[],
            metavar="KEY=VALUE",
            help="pin a static argument for all programs (overrides the experiment's value)",
        )
        parser.add_argument(
            "--force",
            action="store_true",
            help="compare across grids/GPUs anyway (the report says so)",
        )
        options.add_json(parser, help="print the report as JSON")

    @classmethod
    def run(cls, args: argparse.Namespace) -> int:
        from iconbench.baselines import (
            experiments,
            gpu_scaling,
            gt4py_timings,
            mapping,
            speedup,
            speedup_table,
            store,
        )

        cli_pins = _pins(args.static)
        experiment = experiments.load(args.experiment) if args.experiment else None
        if experiment is None and not args.baseline:
            raise IconbenchError(
                "give --experiment NAME (one of: "
                f"{', '.join(experiments.names()) or 'none'}) or --baseline NAME"
            )
        experiments.check_static_names(cli_pins, what="--static ")
        pins = (experiment.pins if experiment else {}) | cli_pins
        name = args.baseline or experiment.baseline  # type: ignore[union-attr]
        root = args.store or store.default_root()
        if args.store and Path(name).suffix != ".json":
            options.existing_dir(root, "baseline store")
        baseline = store.load(root, name)
        table = mapping.load(args.mapping or mapping.DEFAULT_FILE)
        # with an experiment, its grid (recognised by its cell counts, whatever name the
        # results give it) is the one to read, unless --grid or --force picks another
        timings = gt4py_timings.load(
            args.results,
            grid=args.grid,
            gpu=args.gpu,
            metric=args.metric,
            commit=args.commit,
            one_grid=experiment is None,
        )
        _check_pins(cli_pins, timings, str(args.results))
        if args.backends:
            present = sorted({t.backend for t in timings})
            missing = [b for b in args.backends if b not in present]
            if missing:
                raise IconbenchError(
                    f"--backends {','.join(missing)}: no results in {args.results}; "
                    f"backends present: {', '.join(present)}"
                )
        grid = None
        if experiment is not None:
            # the experiment's grid, or another preset of its domain the timings are on
            grid = experiment.grid_of(t.grid_counts for t in timings)
            on_grid = [t for t in timings if t.grid_counts == grid[1]]
            if on_grid and args.grid is None:
                timings = on_grid
            elif not on_grid and not args.force:
                measured = ", ".join(sorted({f"{t.grid} ({t.grid_counts})" for t in timings}))
                raise IconbenchError(
                    f"{args.results}: no timings on experiment {experiment.name}'s grid "
                    f"{' or '.join(map(repr, experiment.grids))} ({grid[1]}), only on "
                    f"{measured}; measure it "
                    f"(iconbench suite measure --experiment {experiment.name}) or pass --force"
                )
            if not on_grid:
                gt4py_timings.check_one_grid(timings, args.results)
        scaling = None
        gpus = {t.gpu for t in timings}
        if len(gpus) == 1:
            measured_peak = None
            if args.results.is_dir():
                from iconbench.records import asv as results

                measured_peak = gpu_scaling.measured_copy_peak(results.read(args.results))
            scaling = gpu_scaling.scaling(baseline.machine.gpu, gpus.pop(), measured_peak)
        report = speedup.compare(
            baseline,
            table,
            timings,
            force=args.force,
            backends=list(args.backends) if args.backends else None,
            pins=pins,
            grid=grid,
            gpu_scaling=scaling,
            experiment_file=str(experiment.path) if experiment else "",
        )
        print(speedup_table.to_json(report) if args.json else speedup_table.render(report))
        return 0
