"""``iconbench history``: append result sets to the durable history, list, export, prune."""

from __future__ import annotations

import argparse
import datetime
import json
import os
import pathlib
import re
import signal
import subprocess
import sys
import tempfile
from types import ModuleType
from typing import TYPE_CHECKING, Any

from iconbench.cli import option_types as types
from iconbench.cli import options
from iconbench.cli.command import Command
from iconbench.errors import IconbenchError

if TYPE_CHECKING:
    from iconbench.history.store import Entry, HistoryStore

ACTIONS = (
    "append", "machine", "list", "cat", "export", "prune", "check", "publish", "backfill",
    "confirm",
)  # fmt: skip


def site_command(
    exported_asv: pathlib.Path,
    gate_dir: pathlib.Path,
    out: pathlib.Path,
    confirmation_dir: pathlib.Path | None = None,
    summary_dir: pathlib.Path | None = None,
    *,
    repo: pathlib.Path | None = None,
) -> list:
    """The ``iconbench publish`` call that renders the site from an exported history.

    ``repo``: the repository of the history's commits (their order, their full hashes).
    """
    command = [sys.executable, "-m", "iconbench", "publish", str(exported_asv), "--out", str(out)]
    command += ["--repo", str(repo)] if repo is not None else []
    command += ["--gate", str(gate_dir)] if gate_dir.is_dir() else []
    if confirmation_dir is not None and confirmation_dir.is_dir():
        command += ["--confirmations", str(confirmation_dir)]
    if summary_dir is not None and summary_dir.is_dir():
        command += ["--summaries", str(summary_dir)]
    return command


def _files(args: argparse.Namespace) -> dict[str, tuple[str, pathlib.Path]]:
    from iconbench.history.store import result_set_files

    return result_set_files(
        asv=args.asv or (), summary=args.summary or (), gate=args.gate or (), other=args.other or ()
    )


def _check_appended(args: argparse.Namespace) -> None:
    """Take into the append-only store only what reads back; else one line, store unchanged.

    Each summary parses (the option type) into an object, the commit resolves (in
    ``--repo``, else it must be a full hexadecimal commit), the store can be written.
    """
    from iconbench.files.decode import load_json

    for role in ("summary", "gate"):
        for path in getattr(args, role) or ():
            if not isinstance(data := load_json(path), dict):
                raise IconbenchError(
                    f"--{role} {path}: a JSON {type(data).__name__}, not a summary; give the "
                    "file its command wrote"
                )
    commit = args.commit[0]
    if args.repo is not None:
        from iconbench.stacks import trees

        trees.resolve_commit(args.repo, commit)
    elif not re.fullmatch(r"[0-9a-fA-F]{40}", commit):
        raise IconbenchError(
            f"--commit {commit!r}: give the full 40-digit commit (git rev-parse), or --repo "
            "to resolve it in"
        )
    options.writable_dir(args.store, "history store")


def _machine(args: argparse.Namespace) -> str:
    """The machine an appended result set was measured on, resolved once.

    ``--machine``, else the name its asv results give (:func:`iconbench.records.asv.machine_name`:
    the GPU model, else asv's machine name), else this host's name.
    """
    if args.machine:
        return args.machine
    from iconbench.records import asv
    from iconbench.runner.pipeline import hostname

    named = {name for name in map(asv.machine_of, args.asv or ()) if name}
    if len(named) > 1:
        raise IconbenchError(
            f"history {args.action}: the --asv results are of {len(named)} machines "
            f"({', '.join(sorted(named))}); append each machine's results on its own"
        )
    return named.pop() if named else hostname()


def _chosen(store: HistoryStore, args: argparse.Namespace) -> list[Entry]:
    """The entries of ``--kind``, ``--label`` and ``--machine`` (each where given), oldest first."""
    return [
        e
        for e in store.entries()
        if (not args.kind or e.kind == args.kind)
        and (not args.label or e.label == args.label)
        and (not args.machine or e.machine == args.machine)
    ]


def _cat(store: HistoryStore, entries: list[Entry], path: str | None) -> int:
    """Print the file ``path`` of the newest of ``entries`` that has one."""
    if not path:
        raise IconbenchError("history cat: give --path PATH (a file of an entry: history list)")
    for entry in reversed(entries):
        for ref in entry.files:
            if ref.path == path:
                sys.stdout.buffer.write(store.read(ref))
                sys.stdout.flush()
                return 0
    raise IconbenchError(
        f"history cat: no entry of {store.root} (of the --kind/--label/--machine given) has "
        f"{path}; 'iconbench history list' shows the entries"
    )


def _carry_out(args: argparse.Namespace, work: ModuleType, planned: Any) -> int:
    """Print a backfill's or a confirmation's plan (``--dry-run``: only that), then run it.

    ``work``: :mod:`iconbench.history.backfill` or :mod:`iconbench.history.confirm`, whose
    ``render``, ``build_missing_stacks`` and ``run`` take the plan. Exit 1 while commits are
    left (a stack missing, a measurement that failed): the next call resumes.
    """
    if args.dry_run:
        steps = [s.as_dict() for s in planned.steps]
        print(json.dumps(steps, indent=1) if args.json else work.render(planned))
        return 0
    if args.build_stacks:
        planned = work.build_missing_stacks(planned)
    print(work.render(planned), flush=True)
    # stopped (a runner's time limit): end the commit's measurement too; the next call resumes
    signal.signal(signal.SIGTERM, lambda number, _frame: sys.exit(128 + number))
    return 1 if work.run(planned).left else 0


class History(Command):
    """The append-only history of result sets (docs/history.md)."""

    name = "history"
    summary = "append result sets to the durable history; list, export, prune, publish it"
    examples = (
        "iconbench history append --store history --kind main --component gt4py "
        "--commit $SHA --asv results/h100/asv --summary results/h100/summary.json",
        "iconbench history append --store history --kind pr --pr 42 --component icon4py "
        "--commit $SHA --gate gate-summary.json",
        "iconbench history list --store history --json",
        "iconbench history list --store history --kind main --label nightly --machine h200 "
        "--last --files asv",
        "iconbench history machine --asv results/merged/asv   # the name append records: h200",
        "iconbench history cat --store history --label nightly --path other/stack.json",
        "iconbench history prune --store history --dry-run",
        "iconbench history publish --store history --out site",
        "iconbench history publish --store backfill/history --out site --repo ../icon4py",
        "iconbench history export --store history --out exported   # asv/ and gate/",
        "iconbench history check --store history",
        "iconbench history backfill --repo ../icon4py --from v0.3.0 --to v0.4.1 --out "
        "results/backfill-h100 --backends gtfn_gpu,dace_gpu --experiment mch_icon-ch1_medium "
        "--dry-run",
        "iconbench history confirm --repo ../icon4py --out results/backfill-h100   # each change "
        "point against its parent",
        "iconbench history confirm --repo ../icon4py --out results/backfill-h100 --commit "
        "73e58caabd --dry-run",
    )

    @classmethod
    def add_arguments(cls, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("action", choices=ACTIONS, help="what to do with the store")
        options.add_store(parser, help="the history directory (created by the first append)")
        parser.add_argument(
            "--kind",
            choices=("main", "pr", "manual"),
            help="append: run kind; list/cat/export: only it",
        )
        parser.add_argument(
            "--component", type=types.COMPONENT, help="append: gt4py | dace | icon4py | iconbench"
        )
        parser.add_argument(
            "--commit",
            type=types.GIT_REF,
            action="append",
            help="append: commit of the component under test; confirm: a commit of the "
            "backfill to confirm (repeatable; default: every change point)",
        )
        parser.add_argument(
            "--repository", type=types.REPOSITORY, default="", help="append, confirm: owner/name"
        )
        parser.add_argument("--ref", type=types.TEXT, default="", help="append: branch or PR ref")
        parser.add_argument(
            "--machine",
            type=types.TEXT,
            default="",
            help="append, backfill, confirm: machine name (append's default: of its --asv "
            "results, the GPU model, e.g. h100, else asv's machine name; else the host name); "
            "list/cat/export: only its entries",
        )
        parser.add_argument(
            "--label",
            type=types.TEXT,
            default="",
            help="append: free text, e.g. 'nightly'; list/cat/export: only it",
        )
        parser.add_argument(
            "--last",
            action="store_true",
            help="list: only the newest entry (of --kind/--label/--machine)",
        )
        parser.add_argument(
            "--files",
            metavar="ROLE",
            choices=("asv", "summary", "gate", "ledger", "confirmation", "other"),
            help="list: print the paths of the entries' files of ROLE, one a line",
        )
        parser.add_argument(
            "--path",
            type=types.TEXT,
            help="cat: print this file of the newest entry that has it (e.g. gate/x)",
        )
        parser.add_argument("--pr", type=types.COUNT, help="append: pull request number (kind pr)")
        parser.add_argument(
            "--asv",
            type=types.DIRECTORY,
            action="append",
            help="append, machine: an asv results directory",
        )
        parser.add_argument(
            "--summary", type=types.JSON_FILE, action="append", help="append: a runner summary.json"
        )
        parser.add_argument(
            "--gate", type=types.JSON_FILE, action="append", help="append: a gate summary JSON"
        )
        parser.add_argument(
            "--other",
            type=types.FILE,
            action="append",
            help="append: any other file (e.g. the stack's commits)",
        )
        parser.add_argument(
            "--pr-days",
            type=types.COUNT,
            default=90,
            help="prune: days a PR's results are kept (90)",
        )
        options.add_out(
            parser,
            help="export/publish: directory to write; backfill: OUT/<commit> per commit; "
            "confirm: the backfill's --out (OUT/confirm/<commit> per commit)",
        )
        cls._add_backfill_arguments(parser)
        options.add_json(parser, help="list/append/backfill/confirm: machine-readable output")
        options.add_dry_run(
            parser, help="append/prune/publish/backfill/confirm: say what would be done"
        )

    @staticmethod
    def _add_backfill_arguments(parser: argparse.ArgumentParser) -> None:
        """The options of ``history backfill`` (the others ignore them)."""
        from iconbench.history.firstparent import ICON4PY_PATHS

        parser.add_argument(
            "--repo",
            type=types.GIT_REPOSITORY,
            help="backfill, confirm: a clone of icon4py (bare is fine); export, publish: the "
            "repository of the history's commits (their order and full hashes); append: the "
            "component's, where --commit resolves (else give the full commit)",
        )
        parser.add_argument(
            "--from",
            type=types.GIT_REF,
            dest="start",
            metavar="REF",
            help="backfill: the commit before the range",
        )
        parser.add_argument(
            "--to", type=types.GIT_REF, dest="end", metavar="REF", help="backfill: its last commit"
        )
        parser.add_argument(
            "--paths",
            type=types.PATH_LIST,
            default=ICON4PY_PATHS,
            metavar="PATH[,PATH]",
            help="backfill: first-parent commits touching these are measured (default: "
            f"{','.join(ICON4PY_PATHS)})",
        )
        options.add_backends(parser, help="backfill: backends (default: embedded,gtfn_cpu)")
        options.add_grid(parser, default=None, help="backfill: grid (default: the experiment's)")
        options.add_experiment(parser, help="backfill: the ICON experiment whose variants run")
        options.add_programs(parser, help="backfill, confirm: regex of the cases (default: all)")
        parser.add_argument(
            "--stacks",
            type=types.OUTPUT,
            metavar="DIR",
            help="backfill, confirm: where the stacks' overlays are (default: <iconbench "
            "cache>/stacks)",
        )
        parser.add_argument(
            "--build-stacks",
            action="store_true",
            help="backfill, confirm: build the overlay of a stack that is missing (needs its "
            "registry)",
        )
        parser.add_argument(
            "--jobs",
            metavar=options.METAVARS["jobs"],
            type=options.positive_int_type,
            help="backfill, confirm: compile processes, N >= 1 (default: the suite's, cores - 2)",
        )
        options.add_sampling(parser, samples=100, max_s=5.0, warmup_s=0.5)

    @staticmethod
    def _backfill(args: argparse.Namespace) -> int:
        """Plan (``--dry-run``: print it) and run the backfill; exit 1 while commits are left."""
        from iconbench.history import backfill

        missing = [f for f, v in (("--repo", args.repo), ("--from", args.start),
                                  ("--to", args.end), ("--out", args.out)) if not v]  # fmt: skip
        if missing:
            raise IconbenchError(
                "history backfill: give " + ", ".join(missing) + ", e.g. 'iconbench history "
                "backfill --repo ../icon4py --from v0.3.0 --to v0.4.1 --out results/backfill'"
            )
        options.existing_dir(args.repo, "--repo")
        experiment = None
        if args.experiment:
            from iconbench.baselines import experiments

            experiment = experiments.load(args.experiment)
        # a selection of no case fails here, not once per commit after each one's set-up
        options.select_cases(args.programs, experiment=experiment)
        out = pathlib.Path(args.out)
        sampling = ("--samples", str(args.samples), "--max-s", str(args.max_s),
                    "--warmup-s", str(args.warmup_s))  # fmt: skip
        if args.precision is not None:
            sampling += ("--precision", str(args.precision))
        request = backfill.Request(
            repo=args.repo.resolve(),
            start=args.start,
            end=args.end,
            out=out.resolve(),
            store=(args.store or out / "history").resolve(),
            backends=tuple(args.backends),
            paths=args.paths,
            grid=args.grid or "",
            experiment=args.experiment or "",
            programs=args.programs,
            stacks=args.stacks.resolve() if args.stacks else None,
            jobs=args.jobs,
            machine=args.machine,
            repository=args.repository or backfill.Request.repository,
            sampling=sampling,
        )
        return _carry_out(args, backfill, backfill.plan(request))

    @staticmethod
    def _confirm(args: argparse.Namespace) -> int:
        """Plan (``--dry-run``: print it) and run the confirmations; exit 1 while some are left."""
        from iconbench.check import rounds
        from iconbench.history import confirm

        missing = [f for f, v in (("--repo", args.repo), ("--out", args.out)) if not v]
        if missing:
            raise IconbenchError(
                "history confirm: give " + ", ".join(missing) + ", e.g. 'iconbench history "
                "confirm --repo ../icon4py --out results/backfill'"
            )
        options.git_repository(args.repo)
        out = options.existing_dir(args.out, "--out").resolve()
        store = (args.store or out / "history").resolve()
        request = confirm.Request(
            repo=args.repo.resolve(),
            out=out,
            store=store,
            # as a check: 4 + 4 processes at the least (its interval needs 3 a side), at most 8
            plan=rounds.Plan(
                args.samples,
                args.max_s,
                args.warmup_s,
                min_blocks=2,
                max_blocks=4,
                precision=args.precision,
                warmup_next_s=args.warmup_next_s,
            ),
            commits=tuple(args.commit or ()),
            programs=args.programs,
            stacks=args.stacks.resolve() if args.stacks else None,
            compile_jobs=args.jobs or os.cpu_count() or 1,
            machine=args.machine,
            repository=args.repository or confirm.Request.repository,
        )
        return _carry_out(args, confirm, confirm.plan(request))

    @classmethod
    def run(cls, args: argparse.Namespace) -> int:
        from iconbench.history import export, retention
        from iconbench.history.store import HistoryStore

        if args.action == "backfill":
            return cls._backfill(args)
        if args.action == "confirm":
            return cls._confirm(args)
        if args.action == "machine":
            if not args.asv:
                raise IconbenchError("history machine: give --asv DIR (a result set's asv results)")
            print(_machine(args))
            return 0
        if args.store is None:
            raise IconbenchError(f"history {args.action}: give --store DIR (the history)")
        if args.action in ("export", "publish") and not args.out:
            raise IconbenchError(f"history {args.action}: give --out DIR")
        if args.action in ("export", "publish") and args.repo is not None:
            options.git_repository(args.repo)
        if args.action == "append":
            missing = [o for o in ("kind", "component", "commit") if not getattr(args, o)]
            if missing:
                raise IconbenchError("history append: give " + ", ".join(f"--{m}" for m in missing))
            if len(args.commit) > 1:
                raise IconbenchError("history append: give one --commit (a result set's commit)")
            _check_appended(args)
            files = _files(args)
            machine = _machine(args)
            if args.dry_run:
                print(f"would append {len(files)} files of machine {machine} to {args.store}")
                return 0
            entry = HistoryStore.create(args.store).append(
                files,
                kind=args.kind,
                component=args.component,
                commit=args.commit[0],
                repository=args.repository,
                ref=args.ref,
                machine=machine,
                label=args.label,
                pr=args.pr,
            )
            print(
                json.dumps(entry.as_dict())
                if args.json
                else f"appended {entry.id[:16]} ({len(entry.files)} files) to {args.store}"
            )
            return 0
        store = HistoryStore.open(args.store)
        if args.action in ("list", "cat"):
            entries = _chosen(store, args)
        if args.action == "cat":
            return _cat(store, entries, args.path)
        if args.action == "list":
            entries = entries[-1:] if args.last else entries
            if args.files:
                for path in [f.path for e in entries for f in e.files if f.role == args.files]:
                    print(path)
                return 0
            if args.json:
                print(json.dumps([e.as_dict() for e in entries], indent=1))
            for e in [] if args.json else entries:
                what = f"{e.kind}{'' if e.pr is None else f' #{e.pr}'}"
                print(
                    f"{e.id[:16]}  {e.created[:19]}  {what:<8} {e.component:<9} "
                    f"{e.commit[:12]:<12} {e.machine or '-':<8} {len(e.files):>4} files  {e.label}"
                )
            return 0
        if args.action == "check":
            problems = store.check()
            for line in problems:
                print(line)
            print(f"{len(store.entries())} entries, {len(problems)} problems")
            return 1 if problems else 0
        if args.action == "prune":
            policy = retention.Policy(pr_days=args.pr_days)
            gone = retention.prune(store, policy=policy, dry_run=args.dry_run)
            verb = "would remove" if args.dry_run else "removed"
            now = datetime.datetime.now(datetime.UTC)
            for e in gone:
                print(f"{verb} {e.id[:16]} (PR #{e.pr}, {(now - e.created_at).days} days old)")
            print(f"{verb} {len(gone)} pull-request entries older than {args.pr_days} days")
            return 0
        out = pathlib.Path(args.out)
        if args.action == "export":
            done = export.export(store, out, _chosen(store, args), repo=args.repo)
            print(
                f"exported {done.result_files} asv result files to {done.asv_dir}, "
                f"{done.gate_summaries} gate summaries to {done.gate_dir}, "
                f"{done.confirmations} confirmations to {done.confirmation_dir}, "
                f"{done.summaries} runner summaries to {done.summary_dir}"
            )
            return 0
        with tempfile.TemporaryDirectory(prefix="iconbench-site-") as scratch:
            done = export.export(store, pathlib.Path(scratch), repo=args.repo)
            command = site_command(done.asv_dir, done.gate_dir, out, done.confirmation_dir,
                                   done.summary_dir, repo=args.repo)  # fmt: skip
            if args.dry_run:
                print("+", " ".join(command[2:]))
                return 0
            return subprocess.call(command)
