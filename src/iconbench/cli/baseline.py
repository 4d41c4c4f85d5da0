"""``iconbench baseline import|list|show``: manage the stored OpenACC baselines."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from iconbench.baselines import store
from iconbench.cli import option_types as types
from iconbench.cli import options
from iconbench.cli.command import Command

#: Importer kinds (``iconbench.baselines.importers.KINDS``, which imports the importers).
KINDS = ("timer-table", "bencher-json")


#: Examples of each action (``iconbench baseline ACTION --help``).
ACTION_EXAMPLES: dict[str, tuple[str, ...]] = {
    "import": (
        "iconbench baseline import LOG.exp.mch_r04b09.o --kind timer-table "
        "--experiment MCH-R04B09 --grid R04B09 --gpu A100 --machine balfrin --date 2024-05 "
        "--timesteps 6",
        "iconbench baseline import 'bencher=mch_icon-ch1_medium_stencils=0.94=OPENACC.json' "
        "--experiment 'MCH ICON-CH1 medium' --grid icon-ch1 --gpu GH200 --machine santis "
        "--date 2025-09-26 --timesteps 360 --dry-run",
    ),
    "list": ("iconbench baseline list", "iconbench baseline list --store /scratch/baselines"),
    "show": (
        "iconbench baseline show mch-r04b09/unknown_unknown_2024-05",
        "iconbench baseline show baselines/mch-r04b09/unknown_unknown_2024-05.json",
    ),
}


def _epilog(examples: tuple[str, ...]) -> str:
    return "\n".join(["examples:", *(f"  {e}" for e in examples)])


class Baseline(Command):
    """Import ICON timer tables or bencher JSON as baselines; list and show stored ones."""

    name = "baseline"
    summary = "import, list and show OpenACC baselines (ICON timers) in baselines/"
    examples = tuple(e for action in ACTION_EXAMPLES.values() for e in action)

    @classmethod
    def add_arguments(cls, parser: argparse.ArgumentParser) -> None:
        sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)

        def action(name: str, help: str) -> argparse.ArgumentParser:
            p = sub.add_parser(
                name,
                help=help,
                description=help,
                epilog=_epilog(ACTION_EXAMPLES[name]),
                formatter_class=argparse.RawDescriptionHelpFormatter,
            )
            options.add_store(
                p,
                help=f"baselines directory (default: ${store.ENV_VAR}, else the repository's "
                "baselines/)",
            )
            return p

        imp = action("import", "import a timer table or bencher JSON file as a baseline")
        imp.add_argument(
            "file",
            type=options.existing_file_type,
            help="ICON run log / timer table, or bencher JSON",
        )
        imp.add_argument("--kind", choices=KINDS, help="importer (default: detected)")
        imp.add_argument(
            "--table",
            type=options.positive_int_type,
            default=1,
            metavar="N",
            help="which timer table of the file (1-based; default: the first)",
        )
        imp.add_argument("--experiment", type=types.TEXT, required=True, help="e.g. 'MCH-R04B09'")
        imp.add_argument(
            "--grid", type=types.NAME, required=True, help="grid of the ICON run, e.g. R04B09, R2B7"
        )
        imp.add_argument(
            "--gpu", type=types.NAME, required=True, help="e.g. A100, GH200; 'unknown' if unknown"
        )
        imp.add_argument(
            "--machine", type=types.NAME, required=True, help="e.g. balfrin; 'unknown' if unknown"
        )
        imp.add_argument(
            "--date", type=types.DATE, required=True, help="YYYY-MM-DD (or YYYY-MM) of the run"
        )
        imp.add_argument(
            "--timesteps",
            type=options.positive_int_type,
            required=True,
            metavar="N",
            help="timesteps of the run",
        )
        imp.add_argument(
            "--icon-commit", type=types.TEXT, default=None, help="ICON commit (default: unknown)"
        )
        imp.add_argument(
            "--icon-build",
            type=types.NAME,
            default="openacc",
            help="build flavour (default: openacc)",
        )
        imp.add_argument(
            "--description", type=types.TEXT, default="", help="free text about the experiment"
        )
        imp.add_argument(
            "--note", type=types.TEXT, default="", help="provenance note stored with the source"
        )
        options.add_dry_run(imp, help="validate and print the baseline JSON, store nothing")
        action("list", "list stored baselines (a broken file is named on stderr, exit 2)")
        show = action("show", "print one baseline's provenance and timers")
        show.add_argument(
            "baseline", type=types.TEXT, help="store name (see 'list') or path to a baseline file"
        )

    @classmethod
    def run(cls, args: argparse.Namespace) -> int:
        from iconbench.baselines import importers

        root = args.store or store.default_root()
        if args.action == "list":
            options.existing_dir(root, "baseline store")
            good, bad = store.listing(root)
            for b in good:
                print(
                    f"{b.name:<50} {b.experiment.grid:<10} {b.machine.gpu:<8} "
                    f"{len(b.timers):>4} timers  {b.timesteps} steps"
                )
            for error in bad:
                print(f"iconbench: error: {error}", file=sys.stderr)
            return 2 if bad else 0
        if args.action == "show":
            if Path(args.baseline).suffix != ".json":
                options.existing_dir(root, "baseline store")
            b = store.load(root, args.baseline)
            print(
                f"{b.name}: {b.experiment.name} (grid {b.experiment.grid}) on "
                f"{b.machine.name} / {b.machine.gpu}, {b.date}, {b.timesteps} timesteps"
            )
            print(
                f"ICON {b.icon.build} commit {b.icon.commit or 'unknown'}; source "
                f"{b.source.kind} {b.source.file} sha256 {b.source.sha256[:12]}"
            )
            if b.source.note:
                print(f"note: {b.source.note}")
            print(
                f"{'timer':<48} {'calls':>6} {'t_min s':>10} {'t_avg s':>10} {'t_max s':>10} "
                f"{'total s':>10}"
            )
            for t in b.timers:
                print(
                    f"{t.name:<48} {t.calls:>6} {t.t_min_s:>10.5g} {t.t_avg_s:>10.5g} "
                    f"{t.t_max_s:>10.5g} {t.total_s:>10.5g}"
                )
            return 0
        provenance = importers.Provenance(
            experiment=args.experiment,
            grid=args.grid,
            gpu=args.gpu,
            machine=args.machine,
            date=args.date,
            timesteps=args.timesteps,
            icon_commit=args.icon_commit,
            icon_build=args.icon_build,
            description=args.description,
            note=args.note,
        )
        if not args.dry_run:
            options.writable_dir(root, "baseline store")
        baseline = importers.import_file(args.file, provenance, args.kind, args.table)
        if args.dry_run:
            print(baseline.to_json(), end="")
            return 0
        path = store.save(root, baseline)
        print(f"stored {baseline.name} ({len(baseline.timers)} timers) at {path}")
        return 0
