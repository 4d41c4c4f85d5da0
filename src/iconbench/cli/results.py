"""``iconbench results``: the raw files of committed runs, kept in git history (fetch, list)."""

from __future__ import annotations

import argparse
import pathlib

from iconbench.cli import option_types as types
from iconbench.cli import options
from iconbench.cli.command import Command
from iconbench.errors import IconbenchError

ACTIONS = ("fetch", "list", "check", "archive")


class Results(Command):
    """Restore, list, check or archive the raw files of the result sets under ``results/``.

    A committed run keeps its notes and check records in the tree; its raw files (asv result
    files, summaries, ledgers, logs, packs) are named in ``results/archive.json`` and read back
    from the commit that holds them (docs/results-archive.md).
    """

    name = "results"
    summary = "fetch the raw files of committed runs from git history (results/archive.json)"
    examples = (
        "iconbench results fetch                       # every archived file, into the checkout",
        "iconbench results fetch results/h100 results/backfill-h100",
        "iconbench results fetch results/h100 --out /tmp/sets   # /tmp/sets/results/h100 whole",
        "iconbench results list results/pr-check-h100 --json",
        "iconbench results check                       # every listed blob is in this clone",
        "iconbench results archive results/nightly-h100/asv results/nightly-h100/work",
    )

    @classmethod
    def add_arguments(cls, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("action", choices=ACTIONS, help="what to do with the archived files")
        parser.add_argument(
            "paths",
            type=types.TEXT,
            nargs="*",
            metavar="PATH",
            help="files or directories of the checkout (default: every archived file; "
            "archive: required)",
        )
        parser.add_argument(
            "--repo",
            type=types.GIT_REPOSITORY,
            help="the iconbench checkout (default: the one of the current directory)",
        )
        options.add_out(
            parser,
            help="fetch: restore under PATH instead of the checkout, with the tree's own files "
            "of those paths beside them (PATH/results/h100 is then the whole result set)",
        )
        options.add_dry_run(parser, help="fetch, archive: print what would be done, write nothing")
        options.add_json(parser)

    @classmethod
    def run(cls, args: argparse.Namespace) -> int:
        import json

        from iconbench import results_archive

        root = _checkout(args.repo)
        archive = results_archive.Archive.read(root)
        if args.out is not None and args.action != "fetch":
            raise IconbenchError(f"results {args.action}: --out is for fetch only")
        if args.action == "archive":
            added = results_archive.archive_files(archive, args.paths, dry_run=args.dry_run)
            if args.dry_run:
                print("\n".join(f"{f.size:>10}  {f.commit[:10]}  {f.path}" for f in added))
                print(f"would archive {len(added)} files ({_mb(sum(f.size for f in added))})")
                return 0
            print(
                f"archived {len(added)} files ({_mb(sum(f.size for f in added))}) in "
                f"{results_archive.MANIFEST} and removed them from the tree (git rm), both "
                "staged: commit them"
            )
            return 0
        if not archive.files:
            raise IconbenchError(
                f"{root}: {results_archive.MANIFEST} lists no archived file (nothing to "
                f"{args.action})"
            )
        if args.action == "check":
            problems = results_archive.check(archive)
            for line in problems:
                print(line)
            if not problems:
                print(f"{len(archive.files)} archived files: every blob is in this clone as listed")
            return 1 if problems else 0
        if args.action == "list":
            chosen = archive.select(args.paths)
            rows = [(f, (root / f.path).is_file()) for f in chosen]
            if args.json:
                print(json.dumps([{**vars(f), "in_tree": here} for f, here in rows], indent=1))
            else:
                for f, here in rows:
                    where = "fetched" if here else "in git"
                    print(f"{f.size:>10}  {f.commit[:10]}  {where:<7}  {f.path}")
                print(f"{len(rows)} files, {_mb(sum(f.size for f, _ in rows))}")
            return 0
        out = None if args.out is None else pathlib.Path(args.out)
        done = results_archive.fetch(archive, args.paths, out=out, dry_run=args.dry_run)
        if args.json:
            print(
                json.dumps(
                    {
                        "out": str(done.out),
                        "written": [f.path for f in done.written],
                        "present": [f.path for f in done.present],
                        "copied": list(done.copied),
                        "dry_run": args.dry_run,
                    }
                )
            )
            return 0
        verb = "would fetch" if args.dry_run else "fetched"
        print(
            f"{verb} {len(done.written)} files ({_mb(done.bytes_written)}) into {done.out}; "
            f"{len(done.present)} already there"
            + (f"; {len(done.copied)} files of the tree beside them" if done.copied else "")
        )
        return 0


def _checkout(given: pathlib.Path | None) -> pathlib.Path:
    """The checkout: ``--repo``, else the git work tree of the current directory."""
    import subprocess

    if given is not None:
        return options.git_repository(given).resolve()
    found = subprocess.run(
        ["git", "rev-parse", "--show-toplevel"], capture_output=True, text=True, check=False
    )
    if found.returncode != 0:
        raise IconbenchError(
            "results: the current directory is not in an iconbench checkout; cd into one or "
            "give --repo DIR"
        )
    return pathlib.Path(found.stdout.strip())


def _mb(size: int) -> str:
    """Bytes as the docs give sizes.

    >>> _mb(11_259_430)
    '11.3 MB'
    """
    return f"{size / 1e6:.1f} MB"
