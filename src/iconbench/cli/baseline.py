"""``iconbench baseline import|list|show``: manage the stored OpenACC baselines."""

from __future__ import annotations

import argparse
from pathlib import Path

from iconbench.baselines import importers, store
from iconbench.cli.command import Command


class Baseline(Command):
    """Import ICON timer tables or bencher JSON as baselines; list and show stored ones."""

    name = "baseline"
    summary = "import, list and show OpenACC baselines (ICON timers) in baselines/"
    examples = (
        "iconbench baseline import LOG.exp.mch_r04b09.o --kind timer-table "
        "--experiment MCH-R04B09 --grid R04B09 --gpu A100 --machine balfrin --date 2024-05 "
        "--timesteps 6",
        "iconbench baseline import 'bencher=mch_icon-ch1_medium_stencils=0.94=OPENACC.json' "
        "--experiment 'MCH ICON-CH1 medium' --grid icon-ch1 --gpu GH200 --machine santis "
        "--date 2025-09-26 --timesteps 360",
        "iconbench baseline list",
        "iconbench baseline show mch-r04b09/unknown_unknown_2024-05",
    )

    @classmethod
    def add_arguments(cls, parser: argparse.ArgumentParser) -> None:
        parser.add_argument(
            "--store",
            type=Path,
            default=None,
            help=f"baselines directory (default: ${store.ENV_VAR} or the repository's baselines/)",
        )
        sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
        imp = sub.add_parser("import", help="import a timer table or bencher JSON file")
        imp.add_argument("file", type=Path, help="ICON run log / timer table, or bencher JSON")
        imp.add_argument("--kind", choices=importers.KINDS, help="importer (default: detected)")
        imp.add_argument(
            "--table",
            type=int,
            default=1,
            help="which timer table of the file (1-based; default: the first)",
        )
        imp.add_argument("--experiment", required=True, help="e.g. 'MCH-R04B09'")
        imp.add_argument("--grid", required=True, help="e.g. R04B09, R2B7, icon-ch1")
        imp.add_argument("--gpu", required=True, help="e.g. A100, GH200; 'unknown' if unknown")
        imp.add_argument("--machine", required=True, help="e.g. balfrin; 'unknown' if unknown")
        imp.add_argument("--date", required=True, help="YYYY-MM-DD (or YYYY-MM) of the run")
        imp.add_argument("--timesteps", type=int, required=True, help="timesteps of the run")
        imp.add_argument("--icon-commit", default=None, help="ICON commit (default: unknown)")
        imp.add_argument("--icon-build", default="openacc", help="build flavour")
        imp.add_argument("--description", default="", help="free text about the experiment")
        imp.add_argument("--note", default="", help="provenance note stored with the source")
        imp.add_argument("--dry-run", action="store_true", help="validate and print, store nothing")
        sub.add_parser("list", help="list stored baselines")
        show = sub.add_parser("show", help="print one baseline's provenance and timers")
        show.add_argument("baseline", help="store name (see 'list') or path to a baseline file")

    @classmethod
    def run(cls, args: argparse.Namespace) -> int:
        root = args.store or store.default_root()
        if args.action == "list":
            for name in store.names(root):
                b = store.load(root, name)
                print(
                    f"{name:<50} {b.experiment.grid:<10} {b.machine.gpu:<8} "
                    f"{len(b.timers):>4} timers  {b.timesteps} steps"
                )
            return 0
        if args.action == "show":
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
        baseline = importers.import_file(args.file, provenance, args.kind, args.table)
        if args.dry_run:
            print(baseline.to_json(), end="")
            return 0
        path = store.save(root, baseline)
        print(f"stored {baseline.name} ({len(baseline.timers)} timers) at {path}")
        return 0
