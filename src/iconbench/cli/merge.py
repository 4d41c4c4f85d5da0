"""``iconbench merge``: the shards of one run into one result set, or of one verification."""

from __future__ import annotations

import argparse
import pathlib

from iconbench.cli import option_types as types
from iconbench.cli import options
from iconbench.cli.command import Command
from iconbench.errors import IconbenchError


class Merge(Command):
    """Combine shard output directories (asv files, summaries, ledgers) into one.

    Given the ``.json`` tables of ``iconbench verify --shard``, it writes one verification table.
    """

    name = "merge"
    summary = "merge the output directories of a run's shards (or verify tables) into one"
    examples = (
        "iconbench merge shard-1 shard-2 shard-3 shard-4 --out results/nightly",
        "iconbench merge results/shard-* --out results/merged --json",
        "iconbench merge part-1.json part-2.json --out results/verification/dace_cpu_tiny_lam",
    )

    @classmethod
    def add_arguments(cls, parser: argparse.ArgumentParser) -> None:
        parser.add_argument(
            "shards",
            type=types.PATH,
            nargs="+",
            help="the --out directories of the shards, or the .json tables of verify's shards",
        )
        options.add_out(parser, help="directory of the merged result set (required)")
        options.add_json(parser, help="print what was merged as JSON")

    @classmethod
    def run(cls, args: argparse.Namespace) -> int:
        import json

        from iconbench.records.resultdir import merge_runs

        if args.out is None:
            raise IconbenchError("merge: give --out DIR for the merged result set")
        shards = [pathlib.Path(s) for s in args.shards]
        if any(shard.suffix == ".json" for shard in shards):
            return _merge_verification(shards, pathlib.Path(args.out), as_json=args.json)

        done = merge_runs(shards, pathlib.Path(args.out))
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


def _merge_verification(tables: list[pathlib.Path], out: pathlib.Path, *, as_json: bool) -> int:
    """One verification table (``out``.md and .json) from the shards' tables."""
    import json

    from iconbench import verification

    others = [str(t) for t in tables if t.suffix != ".json"]
    if others:
        raise IconbenchError(
            f"merge: {', '.join(others)} is not a verification table (.json) like the others; "
            "merge either run directories or verify tables"
        )
    report = verification.merge([verification.Report.read(t) for t in tables])
    written = verification.Report.paths(out)
    if any(path.resolve() == table.resolve() for path in written for table in tables):
        raise IconbenchError(
            f"merge: --out {out} would overwrite a shard's table; give another --out"
        )
    markdown, data = report.write(out)
    if as_json:
        print(json.dumps({"shards": len(tables), "counts": report.counts(), "table": str(data)}))
    else:
        print(f"merged {len(tables)} verification shards into {markdown} and {data}")
        for line in verification.summary_lines(report):
            print(line)
    return 0 if report.ok else 1
