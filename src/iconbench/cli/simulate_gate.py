"""``iconbench simulate-gate``: the gate's false alarms and power on re-sampled real samples."""

from __future__ import annotations

import argparse
import time

from iconbench.cli.command import Command


class SimulateGate(Command):
    """Re-sample a measured result set, plant shifts, regressions and outliers, run the gate."""

    name = "simulate-gate"
    summary = "gate simulation: false alarms and power on re-sampled measured samples"
    examples = (
        "iconbench simulate-gate results/h100-mch_icon-ch1_medium@432aa3c",
        "iconbench simulate-gate results/h100-mch_icon-ch1_medium --trials 20",
    )

    @classmethod
    def add_arguments(cls, parser: argparse.ArgumentParser) -> None:
        parser.add_argument(
            "source",
            help="measured result set to re-sample (asv results or GPU runner set, as in "
            "'iconbench compare')",
        )
        parser.add_argument("--trials", type=int, default=100, help="runs per scenario (100)")
        parser.add_argument("--seed", type=int, default=0, help="random seed (0)")

    @classmethod
    def run(cls, args: argparse.Namespace) -> int:
        from iconbench.errors import IconbenchError
        from iconbench.gate import resultset, simulation

        if args.trials < 1:
            raise IconbenchError(f"--trials must be at least 1, got {args.trials}")
        source = resultset.resolve(args.source)
        start = time.perf_counter()
        outcomes = simulation.simulate(source, trials=args.trials, seed=args.seed)
        print(f"source: {source.source} (commit {source.commit[:8]}), seed {args.seed}\n")
        for o in outcomes:
            print(f"- {o.scenario.name}: {simulation.describe(o.scenario)}")
        print()
        print(simulation.table(outcomes))
        print()
        for o in outcomes:
            if o.shift_line:
                print(f"{o.scenario.name}, first run: {o.shift_line}")
        for o in outcomes:
            for flagged in o.flagged:
                print(f"false alarm in {o.scenario.name}: {flagged}")
        print(f"\n{time.perf_counter() - start:.0f} s")
        return 0
