"""``iconbench rebuild-check PROGRAM --backends B``: is generated code and timing stable."""

from __future__ import annotations

import argparse
import json

from iconbench.cli import option_types as types
from iconbench.cli import options
from iconbench.cli.command import Command
from iconbench.errors import IconbenchError

KNOWN_BACKENDS = ("embedded", "gtfn_cpu", "dace_cpu", "gtfn_gpu", "dace_gpu")


class RebuildCheck(Command):
    """Build one program several times from a clean cache; compare code and timing."""

    name = "rebuild-check"
    summary = "build a program N times from a clean cache: same generated code? same timing?"
    examples = (
        "iconbench rebuild-check compute_tangential_wind --backends gtfn_cpu --builds 3",
        "iconbench rebuild-check 'apply_rayleigh_damping_mechanism[default]' --backends "
        "gtfn_gpu --grid ch1_medium --builds 4 --samples 100 --out rebuild.json",
    )

    @classmethod
    def add_arguments(cls, parser: argparse.ArgumentParser) -> None:
        parser.add_argument(
            "program",
            type=types.NAME,
            help="case id program[variant], or a program (first variant)",
        )
        parser.add_argument(
            "--backends",
            type=types.BACKENDS,
            metavar=options.METAVARS["backends"],
            action="append",
            default=[],
            help="comma list (also repeatable)",
        )
        options.add_grid(parser, default="tiny")
        parser.add_argument("--builds", type=types.COUNT, default=3, help="clean builds (>= 2)")
        parser.add_argument("--samples", type=types.COUNT, default=30, help="timed calls per build")
        parser.add_argument(
            "--threshold",
            type=types.FRACTION,
            default=0.05,
            help="timing change that counts (0.05)",
        )
        options.add_out(parser, help="write the report as JSON")
        parser.add_argument("--json", action="store_true", help="print the report as JSON")

    @classmethod
    def run(cls, args: argparse.Namespace) -> int:
        backends = [b for item in args.backends for b in item]
        if not backends:
            raise IconbenchError("--backends: name at least one, e.g. --backends gtfn_cpu")
        if unknown := [b for b in backends if b not in KNOWN_BACKENDS]:
            raise IconbenchError(
                f"--backends {','.join(unknown)}: unknown; choose from {', '.join(KNOWN_BACKENDS)}"
            )
        if args.builds < 2 or args.samples < 5 or args.threshold <= 0:
            raise IconbenchError("--builds must be >= 2, --samples >= 5, --threshold > 0")
        from iconbench.programs import caseindex

        # the case index answers without importing gt4py; the catalog only where it has none
        known = caseindex.case_ids()
        if known is None:
            from iconbench import suite

            known = list(suite.all_case_ids())
        cases = [c for c in known if c == args.program]
        cases = cases or [c for c in known if c.partition("[")[0] == args.program][:1]
        if not cases:
            raise IconbenchError(
                f"unknown program {args.program!r}; list them with 'iconbench programs'"
            )
        from iconbench.gate import rebuild

        reports = [
            rebuild.check(
                cases[0],
                backend,
                args.grid,
                builds=args.builds,
                samples=args.samples,
                threshold=args.threshold,
            )
            for backend in backends
        ]
        as_json = json.dumps(
            [
                {
                    "case": r.case,
                    "backend": r.backend,
                    "grid": r.grid,
                    "code_stable": r.code_stable,
                    "timing_stable": r.timing_stable,
                    "builds": [
                        {
                            "fingerprint": b.fingerprint,
                            "compile_s": b.compile_s,
                            "median": b.median,
                            "samples": list(b.samples),
                        }
                        for b in r.builds
                    ],
                }
                for r in reports
            ],
            indent=1,
        )
        if args.out:
            from iconbench.files.atomic import write_atomic

            write_atomic(args.out, as_json + "\n")
        print(as_json if args.json else "\n\n".join(r.render() for r in reports))
        return 0 if all(r.code_stable and r.timing_stable for r in reports) else 1
