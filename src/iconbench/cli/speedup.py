"""``iconbench speedup RESULTS --baseline NAME``: GT4Py vs OpenACC, per timer and per step."""

from __future__ import annotations

import argparse
from pathlib import Path

from iconbench.baselines import gt4py_timings, mapping, speedup, speedup_table, store
from iconbench.cli.command import Command


class Speedup(Command):
    """Print the speed-up table (sorted by share of OpenACC time) and the integrate_nh estimate."""

    name = "speedup"
    summary = "speed-up of GT4Py over an OpenACC baseline, per program and for integrate_nh"
    examples = (
        "iconbench speedup gt4py_timers.json --baseline mch-r04b09/unknown_unknown_2024-05 "
        "--grid R04B09 --gpu A100",
        "iconbench speedup .asv/results --baseline mch-r04b09/unknown_unknown_2024-05 "
        "--backend gtfn_gpu",
        "iconbench speedup metrics.json --baseline mch-r04b09/unknown_unknown_2024-05 "
        "--grid tiny --gpu none --force --json",
    )

    @classmethod
    def add_arguments(cls, parser: argparse.ArgumentParser) -> None:
        parser.add_argument(
            "results",
            type=Path,
            help="gt4py metrics dump (GT4PY_DUMP_METRICS_AT_EXIT) or asv results file/directory",
        )
        parser.add_argument("--baseline", required=True, help="stored baseline name or file")
        parser.add_argument("--store", type=Path, default=None, help="baselines directory")
        parser.add_argument(
            "--mapping",
            type=Path,
            default=mapping.DEFAULT_FILE,
            help="timer->program mapping (default: baselines/mapping/...toml)",
        )
        parser.add_argument("--grid", help="grid of a metrics dump (it does not record it)")
        parser.add_argument("--gpu", help="GPU of a metrics dump (it does not record it)")
        parser.add_argument(
            "--metric",
            choices=("auto", "compute", "total"),
            default="auto",
            help="gt4py metric: compute (kernel), total (call); auto prefers compute",
        )
        parser.add_argument(
            "--backend",
            action="append",
            help="only this backend (repeatable; default: all in RESULTS)",
        )
        parser.add_argument(
            "--force",
            action="store_true",
            help="compare across grids/GPUs anyway (the report says so)",
        )
        parser.add_argument("--json", action="store_true", help="print the report as JSON")

    @classmethod
    def run(cls, args: argparse.Namespace) -> int:
        baseline = store.load(args.store or store.default_root(), args.baseline)
        timings = gt4py_timings.load(args.results, grid=args.grid, gpu=args.gpu, metric=args.metric)
        report = speedup.compare(
            baseline, mapping.load(args.mapping), timings, force=args.force, backends=args.backend
        )
        print(speedup_table.to_json(report) if args.json else speedup_table.render(report))
        return 0
