"""``iconbench programs``: list every dycore/diffusion program, its variants and its domain."""

from __future__ import annotations

import argparse
import json

from iconbench.cli import options
from iconbench.cli.command import Command
from iconbench.errors import IconbenchError


class Programs(Command):
    """List the catalog: programs, static variants, the domain each runs on."""

    name = "programs"
    summary = "list every dycore/diffusion GT4Py program with its static variants and domain"
    examples = (
        "iconbench programs",
        "iconbench programs --cases",
        "iconbench programs --programs vertically_implicit --verbose",
        "iconbench programs --cases --programs 'diffusion'",
        "iconbench programs --json > catalog.json",
    )

    @classmethod
    def add_arguments(cls, parser: argparse.ArgumentParser) -> None:
        options.add_programs(
            parser,
            help="only programs with a case id program[variant] matching REGEX (default: all)",
        )
        parser.add_argument(
            "--cases", action="store_true", help="print one case id (program[variant]) per line"
        )
        parser.add_argument(
            "--verbose", action="store_true", help="also print the signature and value sources"
        )
        options.add_json(parser)

    @classmethod
    def run(cls, args: argparse.Namespace) -> int:
        from iconbench import buildcache
        from iconbench.stacks.identity import stack_key

        options.select_cases(args.programs)  # no match: one line, before gt4py is imported
        buildcache.configure(stack_key())
        from iconbench.programs import catalog, overrides, variants
        from iconbench.suite import matches

        def selected(spec: catalog.ProgramSpec) -> bool:
            return any(matches(args.programs, c) for c in catalog.case_ids([spec]))

        specs = [s for s in catalog.discover() if not args.programs or selected(s)]
        if not specs:
            raise IconbenchError(
                f"--programs {args.programs!r} matches no case; 'iconbench programs --cases' "
                "lists them"
            )
        if args.cases:
            cases = catalog.case_ids(specs)
            print("\n".join(c for c in cases if not args.programs or matches(args.programs, c)))
            return 0
        if args.json:
            print(json.dumps([_as_dict(s) for s in specs], indent=1))
            return 0
        for spec in specs:
            reviewed = "call site" if spec.name in overrides.CALL_SITES else "default"
            print(f"{spec.name}  ({spec.module})")
            print(f"  domain:   {spec.domain}  [indices: {reviewed}]")
            print(f"  outputs:  {', '.join(spec.outputs)}")
            print(f"  variants: {len(spec.variants)}: " + ", ".join(v.name for v in spec.variants))
            if args.verbose:
                for param in spec.params:
                    role = "out" if param.name in spec.outputs else "in"
                    if param.name in spec.static_params:
                        role = "static: " + variants.source_of(spec.name, param.name)
                    print(f"    {param.describe():<70} {role}")
        total = sum(len(s.variants) for s in specs)
        print(f"{len(specs)} programs, {total} cases (program x static variant)")
        return 0


def _as_dict(spec: object) -> dict[str, object]:
    return {
        "name": spec.name,  # type: ignore[attr-defined]
        "module": spec.module,  # type: ignore[attr-defined]
        "domain": spec.domain,  # type: ignore[attr-defined]
        "outputs": list(spec.outputs),  # type: ignore[attr-defined]
        "static_params": list(spec.static_params),  # type: ignore[attr-defined]
        "variants": [v.name for v in spec.variants],  # type: ignore[attr-defined]
        "params": [p.describe() for p in spec.params],  # type: ignore[attr-defined]
    }
