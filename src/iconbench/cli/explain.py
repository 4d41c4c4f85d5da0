"""``iconbench explain SUMMARY``: why each flagged GPU benchmark changed (docs/gate.md)."""

from __future__ import annotations

import argparse
import pathlib

from iconbench.cli import option_types as types
from iconbench.cli import options
from iconbench.cli.command import Command
from iconbench.errors import IconbenchError


class Explain(Command):
    """Profile the flagged GPU benchmarks of a verdict on both sides and diff their code."""

    name = "explain"
    summary = (
        "why flagged GPU benchmarks changed: kernels under Nsight Compute and the generated "
        "code, base against head"
    )
    examples = (
        "iconbench explain check/gate-summary.json --base check/base --head check/head "
        "--out check/gate-summary.why.json",
        "iconbench explain summary.json --base results/main --head results/pr "
        "--head-tree ../gt4py --max-benchmarks 3 --out summary.why.json",
    )

    @classmethod
    def add_arguments(cls, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("summary", type=types.JSON_FILE, help="gate summary (compare --out)")
        for side in ("base", "head"):
            parser.add_argument(
                f"--{side}",
                type=types.DIRECTORY,
                required=True,
                metavar="DIR",
                help=f"{side}'s runner directory (its ledgers name the builds it ran)",
            )
            parser.add_argument(
                f"--{side}-tree",
                type=types.DIRECTORY,
                metavar="PATH",
                help=f"{side}'s source tree (checkout), first on the path of its processes "
                "(default: this environment's packages)",
            )
        options.add_grid_source(
            parser,
            default=None,
            preset_help="grid preset the programs run on (default: the summary's)",
        )
        parser.add_argument(
            "--max-benchmarks",
            type=types.COUNT,
            default=5,
            metavar="N",
            help="benchmarks explained, largest change first (default 5)",
        )
        parser.add_argument(
            "--ncu-calls",
            type=types.COUNT,
            default=3,
            metavar="N",
            help="calls profiled per side (3)",
        )
        parser.add_argument(
            "--work",
            type=types.OUTPUT,
            metavar="DIR",
            help="where ncu's output and written code are kept (default: beside --out)",
        )
        options.add_out(parser, help="write the summary with its why here (a new file)")
        options.add_json(parser, help="print the summary JSON instead of the text")

    @classmethod
    def run(cls, args: argparse.Namespace) -> int:
        import tempfile

        from iconbench.explain import run as explain
        from iconbench.gate import why
        from iconbench.records.summary import Summary

        if args.max_benchmarks < 1 or args.ncu_calls < 1:
            raise IconbenchError("--max-benchmarks and --ncu-calls must be at least 1")
        if args.out is not None and args.out.exists():
            raise IconbenchError(f"--out {args.out} exists; summaries are kept: give a new path")
        summary = Summary.read(args.summary)
        base = _side("base", args.base, args.base_tree, summary.base.commit)
        head = _side("head", args.head, args.head_tree, summary.head.commit)
        work = args.work or (
            args.out.parent / f"{args.out.stem}.why"
            if args.out
            else pathlib.Path(tempfile.mkdtemp(prefix="iconbench-why-"))
        )
        explained = explain.explain(
            summary,
            base,
            head,
            work=work,
            grid=options.grid_of(args, default=None),
            limit=args.max_benchmarks,
            calls=args.ncu_calls,
        )
        if args.out is not None:
            explained.write(args.out)
        if args.json:
            print(explained.to_json(), end="")
            return 0
        new = [w for w in explained.why if w not in summary.why]
        for table in why.kernel_tables(new):
            print(why.render(table.why, alike=table.alike), end="\n\n")
        count = len(new) + sum(len(entry.same_kernels) for entry in new)
        print(
            f"{count} flagged GPU benchmarks explained in {len(new)} entries; work files in {work}"
        )
        return 0


def _side(name: str, out: pathlib.Path, tree: pathlib.Path | None, commit: str):
    """A side of the summary: its runner directory, its stack, its sources (one line if not)."""
    from iconbench.records.resultdir import recorded_stack
    from iconbench.stacks import trees
    from iconbench.stacks.sides import Side

    if not out.is_dir():
        raise IconbenchError(f"--{name} {out}: no such runner directory")
    stack = recorded_stack(out)
    if stack is None:
        raise IconbenchError(
            f"--{name} {out}: no stack recorded (no summary*.json, no work/compile.jsonl); "
            "pass the directory 'iconbench suite' wrote"
        )
    if tree is not None and not tree.is_dir():
        raise IconbenchError(f"--{name}-tree {tree}: no such directory")
    roots = tuple(trees.source_roots(tree)) if tree is not None else ()
    return Side(name, name, commit, roots, out, stack)
