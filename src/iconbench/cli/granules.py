"""``iconbench granules``: time the diffusion and dycore granules whole; report vs OpenACC."""

from __future__ import annotations

import argparse
import os

from iconbench.cli import option_types as types
from iconbench.cli import options
from iconbench.cli.command import Command
from iconbench.errors import IconbenchError
from iconbench.files.directories import create_dir


class Granules(Command):
    """Measure granule cases (wall, device sum, overhead, call counts) or render the report."""

    name = "granules"
    summary = "time whole granules (diffusion, solve_nonhydro, integrate_nh): overhead and calls"
    examples = (
        "iconbench granules measure --backends gtfn_cpu --grid tiny --samples 3 --out out/",
        "iconbench granules measure --backends gtfn_gpu,dace_gpu --grid icon_benchmark_regional "
        "--out results/h100/granules",
        "iconbench granules measure --backends gtfn_gpu --experiment mch_icon-ch1_medium --out g/",
        "iconbench granules report results/h100/granules/*.json --baseline NAME "
        "--suite results/h100 --out results/h100/granules/README.md",
    )

    @classmethod
    def add_arguments(cls, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("action", choices=("measure", "report"), help="what to do")
        parser.add_argument("results", nargs="*", type=types.PATH, help="report: result files")
        options.add_backends(
            parser,
            default=("gtfn_cpu",),
            help="backends, comma list or repeated (measure; default: gtfn_cpu)",
        )
        options.add_grid(
            parser, default=None, help="grid preset (measure; default: the experiment's, else tiny)"
        )
        options.add_experiment(
            parser, help="measure on this ICON experiment's grid (baselines/experiments/NAME.toml)"
        )
        parser.add_argument(
            "--cases", type=types.REGEX, default="", help="regex on case names (default: all)"
        )
        parser.add_argument("--samples", type=types.COUNT, default=10, help="timed calls per phase")
        options.add_out(parser, help="result directory (measure), report (report)")
        parser.add_argument(
            "--baseline", type=types.TEXT, help="stored OpenACC baseline name or file (report)"
        )
        options.add_store(parser, help="baselines directory (report)")
        parser.add_argument(
            "--static", type=types.TEXT, action="append", default=[], metavar="KEY=VALUE",
            help="pin a static argument for the estimate (report)",
        )  # fmt: skip
        parser.add_argument(
            "--force", action="store_true", help="compare across grids/GPUs (report says so)"
        )
        parser.add_argument(
            "--suite", type=types.PATH, metavar="DIR",
            help="suite results of the same grid and GPU: kernel sums from their CUDA-event "
            "times (report)",
        )  # fmt: skip
        parser.add_argument("--json", action="store_true", help="print results as JSON")
        parser.add_argument("--dry-run", action="store_true", help="check the input, do nothing")

    @classmethod
    def run(cls, args: argparse.Namespace) -> int:
        if args.action == "report":
            return cls._report(args)
        return cls._measure(args)

    @classmethod
    def _measure(cls, args: argparse.Namespace) -> int:
        from iconbench.granules import cases as granule_cases
        from iconbench.grids import presets

        if args.results:
            raise IconbenchError("measure takes no result files; did you mean 'report'?")
        if args.samples < 1:
            raise IconbenchError(f"--samples {args.samples}: give at least 1")
        backends = list(args.backends)
        if "embedded" in backends:
            raise IconbenchError(
                "the granules do not run on embedded in icon4py 0.4.1 (concat_where on open "
                "ranges); use gtfn_cpu or dace_cpu"
            )
        if args.grid is None:
            from iconbench.baselines import experiments

            args.grid = experiments.load(args.experiment).grid if args.experiment else "tiny"
        presets.spec_for(args.grid, None, None)
        chosen = granule_cases.select(args.cases)
        if args.out is None and not args.dry_run:
            raise IconbenchError("give --out DIR for the result files")
        options.check_environment()
        if not args.dry_run:
            create_dir(args.out, "--out")  # before the work, not after it
        from iconbench import buildcache

        os.environ.setdefault("PYTHONOPTIMIZE", "2")
        buildcache.configure(options.resolve_stack())
        from iconbench.programs import backends as backend_names

        for backend in backends:
            backend_names.descriptor(backend)
            ok, why = backend_names.available(backend)
            if not ok:
                raise IconbenchError(f"backend {backend} cannot run here: {why}")
        if args.dry_run:
            print(f"would measure {', '.join(chosen)} on {', '.join(backends)}, grid {args.grid}")
            return 0
        from iconbench.granules import run as granule_run

        for backend in backends:
            path = granule_run.measure_and_write(
                chosen, backend, args.grid, samples=args.samples, out=args.out
            )
            print(path)
        return 0

    @classmethod
    def _report(cls, args: argparse.Namespace) -> int:
        from iconbench.baselines import mapping, store
        from iconbench.cli.speedup import _pins
        from iconbench.granules import comparison, report, results

        if not args.results:
            raise IconbenchError("report needs result files (iconbench granules measure --out)")
        if not args.baseline:
            raise IconbenchError("report needs --baseline NAME (iconbench baseline list)")
        loaded = [results.read(p) for p in args.results]
        baseline = store.load(args.store or store.default_root(), args.baseline)
        compared = comparison.compare(
            baseline, mapping.load(), loaded, pins=_pins(args.static), force=args.force,
            suite=args.suite,
        )  # fmt: skip
        text = report.render_markdown(baseline, compared, loaded)
        if args.dry_run:
            return 0
        if args.out:
            report.write(text, args.out)
            print(args.out)
        else:
            print(text)
        return 0
