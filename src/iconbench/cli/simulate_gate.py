"""``iconbench simulate-gate``: the gate's false alarms and power, by simulation."""

from __future__ import annotations

import argparse
import pathlib
import time

from iconbench.cli import option_types as types
from iconbench.cli.command import Command


class SimulateGate(Command):
    """Re-sample a measured result set, plant shifts, regressions and outliers, run the gate."""

    name = "simulate-gate"
    summary = "gate simulation: false alarms and power on re-sampled measured samples"
    examples = (
        "iconbench simulate-gate results/h100-mch_icon-ch1_medium@432aa3c",
        "iconbench simulate-gate results/h100-mch_icon-ch1_medium --trials 20",
        "iconbench simulate-gate --synthetic results/h100/work/session.jsonl   # vs asv, Bencher",
    )

    @classmethod
    def add_arguments(cls, parser: argparse.ArgumentParser) -> None:
        parser.add_argument(
            "source",
            type=types.TEXT,
            help="measured result set to re-sample (asv results or GPU runner set, as in "
            "'iconbench compare'); with --synthetic: the runner's work/session.jsonl whose "
            "samples shape the noise model",
        )
        parser.add_argument(
            "--trials", type=types.COUNT, default=100, help="runs per scenario (100)"
        )
        parser.add_argument("--seed", type=types.NON_NEGATIVE, default=0, help="random seed (0)")
        parser.add_argument(
            "--synthetic",
            action="store_true",
            help="the synthetic study instead: 400 benchmarks of modelled noise, the gate "
            "against asv continuous and Bencher (--trials runs per no-change scenario, "
            "--power-runs per regression scenario)",
        )
        parser.add_argument(
            "--power-runs",
            type=types.COUNT,
            default=30,
            help="--synthetic: runs per regression scenario",
        )
        parser.add_argument(
            "--processes", type=types.COUNT, default=2, help="--synthetic: processes"
        )

    @classmethod
    def run(cls, args: argparse.Namespace) -> int:
        from iconbench.errors import IconbenchError
        from iconbench.gate import simulation, synthetic
        from iconbench.records import resultset

        if args.trials < 1:
            raise IconbenchError(f"--trials must be at least 1, got {args.trials}")
        start = time.perf_counter()
        if args.synthetic:
            session = pathlib.Path(args.source)
            if not session.is_file():
                raise IconbenchError(
                    f"{session}: no such session ledger; pass a GPU runner's "
                    "work/session.jsonl (e.g. results/h100/work/session.jsonl)"
                )
            synthetic.study(
                session,
                runs=args.trials,
                power_runs=args.power_runs,
                processes=args.processes,
                emit=lambda line: print(line, flush=True),
            )
            print(f"\n{time.perf_counter() - start:.0f} s")
            return 0
        source = resultset.resolve(args.source)
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
