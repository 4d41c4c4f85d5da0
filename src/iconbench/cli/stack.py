"""``iconbench stack show|resolve``: which gt4py, dace and icon4py a stack means, exactly."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

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
        "iconbench stack resolve gt4py=https://github.com/GridTools/gt4py.git@main dace==2.0.0b1",
        "iconbench stack resolve dace=../dace@fix-maps --save dace-fix-maps   # store, by name",
        "iconbench stack show dace-fix-maps",
    )

    @classmethod
    def add_arguments(cls, parser: argparse.ArgumentParser) -> None:
        parser.add_argument(
            "action",
            choices=("show", "resolve"),
            help="show: this environment (or the stored stack NAME); resolve: the given refs",
        )
        parser.add_argument(
            "refs",
            nargs="*",
            metavar="COMPONENT",
            help="resolve: NAME, NAME==VERSION or NAME=REPO@REF (others: the lock's pins); "
            "show: the name of a stored stack",
        )
        parser.add_argument(
            "--save", metavar="NAME", help="resolve: store the resolved stack under NAME"
        )
        options.add_json(parser)

    @classmethod
    def run(cls, args: argparse.Namespace) -> int:
        from iconbench.stacks import identity, lockpins, resolve, stored
        from iconbench.stacks.spec import Stack

        if args.action == "show" and len(args.refs) > 1:
            raise IconbenchError(
                f"stack show takes one stored stack name, got {len(args.refs)}: "
                f"{' '.join(args.refs)}; 'iconbench stack show NAME'"
            )
        if args.action == "show" and args.refs:
            return cls._print(stored.load(args.refs[0]), args.json)
        if args.action == "show":
            stack = identity.environment_stack()
            data = {
                "components": stack,
                "stack_key": identity.stack_key(stack=stack),
                "icon4py_requires": lockpins.icon4py_requirements(),
            }
            if args.json:
                print(json.dumps(data, indent=2, sort_keys=True))
                return 0
            for name, entry in stack.items():
                where = (
                    f"  {entry['commit']} ({entry.get('repo', '')})" if "commit" in entry else ""
                )
                dirty = f" +diff {entry['diff_sha256']}" if "diff_sha256" in entry else ""
                print(f"{name:<10} {entry['version']:<12} {entry['source']:<9}{where}{dirty}")
            print(f"{'key':<10} {data['stack_key']}  (gt4py build cache)")
            for line in data["icon4py_requires"]:
                print(f"{'pins':<10} {line}")
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
    def _print(resolved: list[resolve.ResolvedComponent], as_json: bool) -> int:
        if as_json:
            print(json.dumps([r.as_dict() for r in resolved], indent=2))
            return 0
        for r in resolved:
            detail = f"{r.commit}  {r.repo}@{r.ref}" if r.commit else f"{r.version}"
            print(f"{r.component:<10} {r.source:<8} {detail}")
        return 0
