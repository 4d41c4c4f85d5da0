"""``iconbench programs``: list every dycore/diffusion program, its variants and its domain."""

from __future__ import annotations

import argparse
import json
import re

from iconbench.cli.command import Command


class Programs(Command):
    """List the catalog: programs, static variants, the domain each runs on."""

    name = "programs"
    summary = "list every dycore/diffusion GT4Py program with its static variants and domain"
    examples = (
        "iconbench programs",
        "iconbench programs --cases",
        "iconbench programs --program vertically_implicit --verbose",
        "iconbench programs --json > catalog.json",
    )

    @classmethod
    def add_arguments(cls, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--program", metavar="REGEX", help="only programs matching REGEX")
        parser.add_argument(
            "--cases", action="store_true", help="print one case id (program[variant]) per line"
        )
        parser.add_argument(
            "--verbose", action="store_true", help="also print the signature and value sources"
        )
        parser.add_argument("--json", action="store_true", help="print machine-readable JSON")

    @classmethod
    def run(cls, args: argparse.Namespace) -> int:
        from iconbench import buildcache

        buildcache.configure()
        from iconbench.programs import catalog, overrides, variants

        specs = [
            s for s in catalog.discover() if not args.program or re.search(args.program, s.name)
        ]
        if args.cases:
            print("\n".join(catalog.case_ids(specs)))
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
