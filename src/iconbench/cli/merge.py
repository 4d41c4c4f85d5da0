"""``iconbench merge``: the shards of one run into one result set."""

from __future__ import annotations

import argparse
import pathlib

from iconbench.cli import options
from iconbench.cli.command import Command
from iconbench.errors import IconbenchError


class Merge(Command):
    """Combine shard output directories (asv files, summaries, ledgers) into one."""

    name = "merge"
    summary = "merge the output directories of a run's shards into one result set"
    examples = (
        "iconbench merge shard-1 shard-2 shard-3 shard-4 --out results/nightly",
        "iconbench merge results/shard-* --out results/merged --json",
    )

    @classmethod
    def add_arguments(cls, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("shards", nargs="+", help="the --out directories of the shards")
        options.add_out(parser, help="directory of the merged result set (required)")
        options.add_json(parser, help="print what was merged as JSON")

    @classmethod
    def run(cls, args: argparse.Namespace) -> int:
        import json

        from iconbench.runner.merge import merge_runs

        if args.out is None:
            raise IconbenchError("merge: give --out DIR for the merged result set")

        done = merge_runs([pathlib.Path(s) for s in args.shards], pathlib.Path(args.out))
        if args.json:
            print(
                json.dumps(
                    {
                        "shards": done.shards,
                        "asv_files": done.asv_files,
                        "cases": done.cases,
                        "summary": str(done.summary),
                    }
                )
            )
        else:
            print(
                f"merged {done.shards} shards: {done.asv_files} asv result files, "
                f"{done.cases} cases in {done.summary}"
            )
        return 0
