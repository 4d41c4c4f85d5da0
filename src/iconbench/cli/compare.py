"""``iconbench compare BASE HEAD``: the regression gate (docs/gate.md)."""

from __future__ import annotations

import argparse
import dataclasses
import json
import pathlib
import re
import sys

from iconbench.cli import option_types as types
from iconbench.cli import options
from iconbench.cli.command import Command
from iconbench.errors import IconbenchError
from iconbench.files.directories import create_dir


class Compare(Command):
    """Compare two result sets benchmark by benchmark; exit 1 on a regression."""

    name = "compare"
    summary = "gate: verdict per benchmark of HEAD against BASE (regression exits 1)"
    examples = (
        "iconbench compare .asv/results@main-sha .asv/results@pr-sha --out summary.json",
        "iconbench compare results/h100/summary.1.json results/h100/summary.2.json",
        "iconbench compare results/h100@fd920c0 results/h100@412cde3 --programs 'nabla' --all",
        "iconbench compare base.json head.json --config gate.toml --history .asv/results/ci",
        "iconbench compare base.json head.json --rerun-inconclusive --max-rerun-s 300",
        "iconbench compare base.json head.json --method asv   # asv continuous's decision",
        "iconbench compare results/h100-mch_icon-ch1_medium results/h100-mch_icon-ch1_medium "
        "--experiment mch_icon-ch1_medium --force   # OpenACC speed-ups (GPUs differ)",
    )

    @classmethod
    def add_arguments(cls, parser: argparse.ArgumentParser) -> None:
        parser.add_argument(
            "base",
            type=types.TEXT,
            help="reference result set: asv result file or results dir, or a GPU runner set "
            "(dir like results/h100 or its summary.N.json); PATH@COMMIT picks one commit",
        )
        parser.add_argument(
            "head", type=types.TEXT, help="result set under test (same forms as BASE)"
        )
        parser.add_argument(
            "--commit",
            type=types.GIT_REF,
            help="commit (prefix) to take from a side that holds several",
        )
        parser.add_argument(
            "--grid",
            type=types.NAME,
            metavar=options.METAVARS["grid"],
            help="grid preset to compare where a side has several",
        )
        options.add_programs(parser)
        options.add_backends(parser, default=None)
        parser.add_argument(
            "--config",
            type=types.FILE,
            help="gate.toml: thresholds, overrides (docs/gate.md; "
            "default: $ICONBENCH_GATE_CONFIG, which every road reads)",
        )
        parser.add_argument(
            "--across-cuda",
            action="store_true",
            help="compare sides of two CUDA major releases (refused without it): device time "
            "and host overhead only, compile times left out (docs/gate.md)",
        )
        parser.add_argument(
            "--history",
            type=types.PATH,
            action="append",
            default=[],
            metavar="PATH",
            help="earlier result sets of base's branch (asv result file or results dir, or "
            "runner dir; repeatable): each benchmark's run-to-run band from their medians "
            "(docs/gate.md)",
        )
        parser.add_argument(
            "--method",
            choices=("gate", "asv"),
            default="gate",
            help="who decides the exit code: this gate (default) or asv continuous's rule "
            "(factor and Mann-Whitney p<0.002); both verdicts are shown",
        )
        parser.add_argument(
            "--factor", type=types.RATIO, default=1.1, help="asv's factor for --method asv (1.1)"
        )
        parser.add_argument(
            "--rerun-inconclusive",
            action="store_true",
            help="measure inconclusive benchmarks again (the side of this checkout's commit)",
        )
        parser.add_argument(
            "--max-rerun-s",
            type=types.SECONDS,
            default=300.0,
            help="seconds for --rerun-inconclusive in total (default 300)",
        )
        options.add_experiment(
            parser,
            help="ICON experiment (baselines/experiments/NAME.toml): the summary's openacc part "
            "with its baseline, grid and static arguments (default: the experiment ICON ran on "
            "the results' grid, its GPU backends, a GPU other than the baseline's said)",
        )
        parser.add_argument(
            "--baseline",
            type=types.TEXT,
            metavar="NAME",
            help="OpenACC baseline for the speed-up of each side (default: the experiment's)",
        )
        parser.add_argument(
            "--force",
            action="store_true",
            help="OpenACC speed-up across grids/GPUs anyway (listed in openacc.forced)",
        )
        options.add_store(
            parser, help="baselines directory (default: $ICONBENCH_BASELINES or baselines/)"
        )
        parser.add_argument(
            "--component",
            choices=("gt4py", "dace", "icon4py", "iconbench"),
            help="the repository whose commits BASE and HEAD are (the comment's commit links "
            "and status; default: as the results record it, iconbench for a runner directory)",
        )
        options.add_out(parser, help="write the summary JSON here")
        options.add_json(parser, help="print the summary JSON instead of the table")
        parser.add_argument("--all", action="store_true", help="table: unchanged ones too")
        parser.add_argument(
            "--kernels",
            type=types.TEXT,
            nargs=3,
            action="append",
            default=[],
            metavar=("BENCHMARK", "BASE_JSON", "HEAD_JSON"),
            help="per-kernel records of a benchmark (case|backend|metric) on each side: the "
            "summary gets its per-kernel diff (repeatable; format in docs/gate.md)",
        )

    @classmethod
    def run(cls, args: argparse.Namespace) -> int:
        from iconbench.gate import config as gate_config
        from iconbench.records import resultset

        pattern = re.compile(args.programs)  # checked by options.add_programs
        backends = set(args.backends or ())
        if args.max_rerun_s <= 0 or args.factor <= 1:
            raise IconbenchError("--max-rerun-s must be > 0 and --factor > 1")
        config = (
            gate_config.GateConfig.load(args.config)
            if args.config
            else gate_config.GateConfig.default()
        )
        from iconbench.gate import openacc as openacc_module

        if args.store:
            options.existing_dir(args.store, "baseline store")
        want = openacc_module.request(
            args.baseline, args.experiment, force=args.force, store_root=args.store
        )
        base = resultset.resolve(args.base, commit=args.commit, grid=args.grid, label=args.base)
        head = resultset.resolve(args.head, commit=args.commit, grid=args.grid, label=args.head)
        resultset.check_comparable(base, head, across_cuda=args.across_cuda)
        if args.across_cuda:  # another nvcc built each side: their compile times never compare
            base, head = (
                dataclasses.replace(
                    s, entries={k: e for k, e in s.entries.items() if e.metric != "compile_time"}
                )
                for s in (base, head)
            )
        if args.component:
            base, head = (dataclasses.replace(s, component=args.component) for s in (base, head))
        present = {e.backend for s in (base, head) for e in s.entries.values()}
        if unknown := sorted(backends - present):
            raise IconbenchError(
                f"--backends {','.join(unknown)}: not in the results; they have "
                + ", ".join(sorted(present))
            )
        history = [s for path in args.history for s in _history(path, args.grid, base, head)]

        def select(key: str) -> bool:
            case, backend, _ = key.split("|")
            return bool(pattern.search(case)) and (not backends or backend in backends)

        if not any(select(k) for k in set(base.entries) | set(head.entries)):
            raise IconbenchError(f"no benchmark matches --programs {args.programs!r}")
        if args.out:
            create_dir(args.out.parent, "--out")
        summary = cls._decide(args, base, head, config, history, select, want)
        if args.kernels:
            from iconbench.gate import kernels
            from iconbench.records.kernels import read

            known = {r.id for r in summary.benchmarks}
            diffs = []
            for benchmark, base_json, head_json in args.kernels:
                if benchmark not in known:
                    raise IconbenchError(
                        f"--kernels {benchmark}: no such benchmark in the comparison "
                        "(case|backend|metric, as the table's ids)"
                    )
                diffs.append(kernels.diff(benchmark, read(base_json), read(head_json)))
            summary = dataclasses.replace(summary, kernels=tuple(diffs))
        if args.out:
            summary.write(args.out)
        if args.json:
            print(summary.to_json(), end="")
        else:
            from iconbench.gate import table

            print(table.render(summary, everything=args.all))
        return summary.exit_code

    @classmethod
    def _decide(cls, args, base, head, config, history, select, want):  # noqa: PLR0917
        from iconbench import provenance
        from iconbench.gate import asv_decision, rerun, verdict

        decide = None
        if args.method == "asv":

            def decide(b, h):
                return asv_decision.decide(b, h, args.factor)

        from iconbench.gate import openacc as openacc_module

        if want is not None:
            openacc, why = openacc_module.speedups(base, head, want)
        else:  # the experiment ICON ran on the results' grid, if any (GPU backends)
            openacc, why = openacc_module.for_grid(base, head)

        def run_gate(b, h):
            return verdict.compare(
                b, h, config, history=history, select=select, asv_decision=decide,
                openacc=openacc, across_cuda=args.across_cuda,
            )  # fmt: skip

        summary = run_gate(base, head)
        if args.rerun_inconclusive and summary.counts["inconclusive"]:
            here = provenance.checkout_commit()
            base, head, done = rerun.rerun_inconclusive(
                base,
                head,
                lambda b, h: [
                    r.id for r in run_gate(b, h).benchmarks if r.verdict == "inconclusive"
                ],
                max_s=args.max_rerun_s,
                measure_base=rerun.runner_measure if base.commit == here else None,
                measure_head=rerun.runner_measure if head.commit == here else None,
            )
            summary = run_gate(base, head)
            print(
                f"re-measured inconclusive benchmarks: {done.rounds} round(s), {done.seconds}s, "
                f"+{done.added['base']} base / +{done.added['head']} head samples"
                + (f" ({done.skipped})" if done.skipped else ""),
                file=sys.stderr,  # stdout is the report (the JSON with --json)
            )
        if why:
            print(f"note: {why}; openacc left empty", file=sys.stderr)
        if args.method == "asv":

            def asv_says(r):
                return any(n == "asv: regression" for n in r.notes) or (
                    verdict.fails_run(r) and (r.verdict == "failed")
                )

            summary = verdict.assemble(
                base, head, config, summary.benchmarks, openacc=openacc, decides=asv_says
            )
        if why:
            summary = dataclasses.replace(summary, openacc_note=why)
        return summary


def _history(path: str, grid: str | None, base, head) -> list:
    """Every result set under ``path`` except the two compared (each commit once)."""
    from iconbench.records import asv as results
    from iconbench.records import resultset

    root = pathlib.Path(path)
    if not root.exists():
        raise IconbenchError(f"--history {path}: no such file or directory")
    if root.is_file():  # one run's asv result file (a nightly's), taken whole
        return [resultset.resolve(str(root), grid=grid)]
    sets = []
    if (root / "work" / "session.jsonl").exists():
        for summary_path, commit in resultset.runner_runs(root).items():
            if commit not in (base.commit, head.commit):
                sets.append(resultset.resolve(str(summary_path)))
        return sets
    commits = sorted({json.loads(f.read_text())["commit_hash"] for f in results.result_files(root)})
    for commit in commits:
        if commit not in (base.commit, head.commit):
            sets.append(resultset.resolve(str(root), commit=commit, grid=grid))
    return sets
