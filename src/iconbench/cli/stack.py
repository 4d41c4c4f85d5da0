"""``iconbench stack``: which gt4py, dace and icon4py a stack means, and where they live."""

from __future__ import annotations

import argparse
import dataclasses
import json
import pathlib
import sys
from typing import TYPE_CHECKING

from iconbench.cli import option_types as types
from iconbench.cli import options
from iconbench.cli.command import Command
from iconbench.errors import IconbenchError

if TYPE_CHECKING:
    from iconbench.stacks import resolve


class StackCommand(Command):
    """Show the stack of this environment, or pin a stack given as refs to commits."""

    name = "stack"
    summary = "show this environment's stack, or resolve gt4py/dace/icon4py refs to exact commits"
    examples = (
        "iconbench stack show",
        "iconbench stack resolve gt4py=../gt4py@my-branch",
        "iconbench stack resolve gt4py=https://github.com/GridTools/gt4py.git@main dace==2.0.0a6",
        "iconbench stack resolve dace=../dace@fix-maps --save dace-fix-maps   # store, by name",
        "iconbench stack show dace-fix-maps",
        "iconbench stack pins   # dace as gt4py's uv.lock pins it, per gt4py release",
        "iconbench stack pins --refresh --gt4py-repo ../gt4py --ref v1.2.1",
        "iconbench stack components icon4py   # NAME URL SUBDIR...: its repository, its projects",
        "iconbench stack commits stack.json --component dace   # a nightly's pinned commit",
        "iconbench stack build 73e58caabd --repo ../icon4py   # gt4py and dace as its uv.lock pins",
        "iconbench stack build gt4py==1.2.3   # any release; dace as gt4py 1.2.3 declares it",
        "iconbench stack broken results/night   # where the run's stack broke, if it did",
        "iconbench stack build dace==2.0.0a9   # dace alone changed: this environment's gt4py",
        "iconbench --overlay gt4py-1.2.3_dace-2.0.0a10 suite all --backends dace_cpu --out r",
    )

    @classmethod
    def add_arguments(cls, parser: argparse.ArgumentParser) -> None:
        parser.add_argument(
            "action",
            choices=("show", "resolve", "pins", "components", "commits", "build", "broken"),
            help="show: this environment (or the stored stack NAME); resolve: the given refs; "
            "pins: the recorded pins of gt4py's uv.lock per release; components: each "
            "component's repository and installable projects; commits: the commits a "
            "nightly's stack.json pins; build: an overlay of the gt4py and dace that commits' "
            "uv.lock pins (for 'iconbench history backfill'), or of the releases given as "
            "gt4py==V dace==V (run on it: 'iconbench --overlay NAME COMMAND'); broken: the "
            "backends a run's stack could not make, one line each (none: nothing printed)",
        )
        parser.add_argument(
            "refs",
            type=types.TEXT,
            nargs="*",
            metavar="COMPONENT",
            help="resolve: NAME, NAME==VERSION or NAME=REPO@REF (others: the lock's pins); "
            "show: the name of a stored stack; components: component names (default: all); "
            "commits: the stack.json file; build: commits of --repo, or gt4py==V and/or dace==V; "
            "broken: a result directory",
        )
        parser.add_argument(
            "--component",
            type=types.COMPONENT,
            metavar="NAME",
            help="commits: print only this component's commit",
        )
        parser.add_argument(
            "--save",
            type=types.NAME,
            metavar="NAME",
            help="resolve: store the resolved stack under NAME",
        )
        parser.add_argument(
            "--repo", type=types.GIT_REPOSITORY, help="build: the icon4py clone the commits are of"
        )
        parser.add_argument(
            "--stacks",
            type=types.OUTPUT,
            metavar="DIR",
            help="build: where overlays go (default: <iconbench cache>/stacks)",
        )
        parser.add_argument(
            "--find-links",
            type=types.DIRECTORY,
            metavar="DIR",
            help="build: install from the wheels in DIR, not from the registries (no network)",
        )
        options.add_json(parser)
        parser.add_argument(
            "--refresh",
            action="store_true",
            help="pins: read gt4py's uv.lock at --ref of --gt4py-repo and record its pins",
        )
        parser.add_argument(
            "--gt4py-repo",
            type=types.TEXT,
            metavar="PATH",
            help="pins --refresh: a gt4py git checkout or mirror",
        )
        parser.add_argument(
            "--ref",
            type=types.GIT_REF,
            action="append",
            metavar="REF",
            help="pins --refresh: the gt4py tag to read (repeatable; default: v<locked gt4py>)",
        )

    @classmethod
    def run(cls, args: argparse.Namespace) -> int:
        from iconbench.stacks import identity, lockpins, resolve, stored
        from iconbench.stacks.spec import Stack

        if args.action == "pins":
            return cls._pins(args)
        if args.action == "components":
            return cls._components(args.refs, args.json)
        if args.action == "commits":
            return cls._commits(args.refs, args.component, args.json)
        if args.action == "build":
            return cls._build(args)
        if args.action == "broken":
            return cls._broken(args.refs, args.json)
        if args.action == "show" and len(args.refs) > 1:
            raise IconbenchError(
                f"stack show takes one stored stack name, got {len(args.refs)}: "
                f"{' '.join(args.refs)}; 'iconbench stack show NAME'"
            )
        if args.action == "show" and args.refs:
            return cls._print(stored.load(args.refs[0]), args.json)
        if args.action == "show":
            stack = identity.environment_stack()
            try:  # a gt4py release whose lock is not recorded still has a stack to show
                origins, unknown = lockpins.pin_origins(stack), ""
            except IconbenchError as error:
                origins, unknown = [], str(error)
            data = {
                "components": stack,
                "stack_key": identity.stack_key(stack=stack),
                "icon4py_requires": lockpins.icon4py_requirements(),
                "pin_origins": [dataclasses.asdict(o) for o in origins],
            }
            if args.json:
                print(json.dumps(data, indent=2, sort_keys=True))
                return 0
            for name, entry in stack.items():
                where = (
                    f"  {entry['commit']} ({entry.get('repo', '')})" if "commit" in entry else ""
                )
                dirty = f" +diff {entry['diff_sha256']}" if "diff_sha256" in entry else ""
                place = f"  from {entry['path']}" if "path" in entry else ""
                print(
                    f"{name:<10} {entry['version']:<12} {entry['source']:<9}{where}{dirty}{place}"
                )
            print(f"{'key':<10} {data['stack_key']}  (gt4py build cache)")
            print("default pins (what the component above locks):")
            if unknown:
                print(f"  unknown: {unknown}")
            for origin in origins:
                check = "ok" if origin.agrees else f"DIFFERS: installed {origin.installed}"
                print(f"  {origin.package:<9} {origin.pinned:<10} from {origin.origin}  [{check}]")
            return 0
        if args.save and args.action == "show":
            raise IconbenchError("--save only applies to 'stack resolve'")
        stack = Stack.parse(args.refs)
        if args.save:
            stored.check_new(args.save)
        resolved = resolve.resolve(stack)
        if args.save:
            path = stored.save(args.save, resolved)
            print(f"stored as {args.save!r}: {path}", file=sys.stderr)
        return cls._print(resolved, args.json)

    @staticmethod
    def _pins(args: argparse.Namespace) -> int:
        from iconbench.stacks import lockpins, upstreamlock

        if args.refresh:
            if not args.gt4py_repo:
                raise IconbenchError("stack pins --refresh needs --gt4py-repo PATH (a checkout)")
            refs = args.ref or [f"v{lockpins.pinned_version('gt4py')}"]
            for pins in upstreamlock.refresh(args.gt4py_repo, refs):
                print(f"recorded gt4py {pins.gt4py_version}: {pins.pins} from {pins.origin}")
            return 0
        if args.gt4py_repo or args.ref:
            raise IconbenchError("--gt4py-repo/--ref only go with stack pins --refresh")
        entries = upstreamlock.load_extract()
        if args.json:
            print(json.dumps({v: e.as_dict() for v, e in entries.items()}, indent=2))
            return 0
        for version, entry in entries.items():
            pins = ", ".join(f"{k} {v}" for k, v in entry.pins.items())
            print(f"gt4py {version:<8} {pins:<28} {entry.origin} commit {entry.commit[:12]}")
        return 0

    @staticmethod
    def _build(args: argparse.Namespace) -> int:
        """An overlay per distinct stack the commits' ``uv.lock`` pin (kept; built once)."""
        from iconbench.stacks import overlay, pinned, releases, trees

        directory = args.stacks or overlay.default_dir()
        if args.refs and all("==" in ref for ref in args.refs) and args.repo is None:
            stack = releases.stack(args.refs, find_links=args.find_links)
            path = overlay.build(stack, directory, find_links=args.find_links)
            try:  # a note: what gt4py declares cannot fail a build that is done
                note = releases.declared(stack, find_links=args.find_links)
            except IconbenchError as error:
                note = (
                    f"what gt4py {stack.pin('gt4py').version} declares of dace is unknown ({error})"
                )
            if note:
                print(f"stack build: {note}", file=sys.stderr)
            print(f"{stack.describe()}: {path}")
            name = stack.name if args.stacks is None else str(path)  # a name: of the default dir
            print(f"run on it: iconbench --overlay {name} COMMAND ...", file=sys.stderr)
            return 0
        if args.repo is None or not args.refs:
            raise IconbenchError(
                "stack build: give the releases, e.g. 'iconbench stack build gt4py==1.2.3 "
                "dace==2.0.0a10', or --repo PATH (an icon4py clone) and the commits whose uv.lock "
                "pins the stack, e.g. 'iconbench stack build 73e58caabd --repo ../icon4py'"
            )
        repo = options.existing_dir(args.repo, "--repo")
        stacks = {pinned.of_commit(repo, trees.resolve_commit(repo, ref)) for ref in args.refs}
        for stack in sorted(stacks, key=lambda s: s.name):
            path = overlay.build(stack, directory, find_links=args.find_links)
            print(f"{stack.describe()}: {path}")
        return 0

    @staticmethod
    def _broken(directories: list[str], as_json: bool) -> int:
        """``BACKEND: line`` for each backend a result directory's stack could not make."""
        from iconbench.files.decode import load_json
        from iconbench.records import broken

        if len(directories) != 1:
            raise IconbenchError(
                f"stack broken takes one result directory, got {len(directories)}; "
                "'iconbench stack broken OUT' (a suite's --out, a nightly's merged results)"
            )
        summary = load_json(pathlib.Path(directories[0]) / "summary.json",
                            hint="give a result directory: a suite's --out")  # fmt: skip
        found = {b: found.line() for b, found in broken.of_summary(summary).items()}
        if as_json:
            print(json.dumps(found, indent=2))
            return 0
        for backend, line in sorted(found.items()):
            print(f"{backend}: {line}")
        return 0

    @staticmethod
    def _components(names: list[str], as_json: bool) -> int:
        """``NAME URL SUBDIR...`` per component: where ``ci/nightly`` clones and installs it."""
        from iconbench.stacks import spec

        chosen = [spec.component(name) for name in names] or list(spec.COMPONENTS.values())
        if as_json:
            print(json.dumps([dataclasses.asdict(c) for c in chosen], indent=2))
            return 0
        for c in chosen:
            print(" ".join([c.name, c.default_url, *c.subdirs]))
        return 0

    @staticmethod
    def _commits(files: list[str], component: str | None, as_json: bool) -> int:
        """The commits of a nightly's ``stack.json``: ``NAME SHA`` lines, or one SHA."""
        from iconbench.stacks import commits, spec

        if len(files) != 1:
            raise IconbenchError(
                f"stack commits takes one stack.json, got {len(files)}; "
                "'iconbench stack commits FILE [--component NAME]'"
            )
        found = commits.read(files[0])
        if component is not None:
            print(found[spec.component(component).name])
        elif as_json:
            print(json.dumps(found, indent=2))
        else:
            for name, sha in found.items():
                print(name, sha)
        return 0

    @staticmethod
    def _print(resolved: list[resolve.ResolvedComponent], as_json: bool) -> int:
        if as_json:
            print(json.dumps([r.as_dict() for r in resolved], indent=2))
            return 0
        for r in resolved:
            detail = f"{r.commit}  {r.repo}@{r.ref}" if r.commit else f"{r.version}"
            print(f"{r.component:<10} {r.source:<8} {detail}")
        return 0
