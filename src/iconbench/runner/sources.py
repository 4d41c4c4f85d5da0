"""``sources`` (internal): the generated source of one compiled case, for the code diff.

Run by :mod:`iconbench.explain` in each side's own environment (its commit's sources first
on the path, its build cache), so that the code is the one that side built and ran. Writes
the files under ``--sources-dir`` and ``sources.json`` beside them: where the code came
from and the build's codegen fingerprint.
"""

from __future__ import annotations

import json

from iconbench.errors import IconbenchError
from iconbench.files.atomic import write_atomic
from iconbench.runner.options import RunOptions
from iconbench.runner.progress import log

MANIFEST = "sources.json"


def run(options: RunOptions) -> None:
    """Write ``--case``'s generated code on the first ``--backends`` under ``--sources-dir``."""
    from iconbench import suite
    from iconbench.timing import codegen

    if not options.case or options.sources_dir is None:
        raise IconbenchError("suite sources: give --case and --sources-dir")
    backend = options.backends[0].name
    artifact = suite.compilation_artifact(options.case, backend, options.grid)
    target = options.sources_dir
    target.mkdir(parents=True, exist_ok=True)
    origin = codegen.write_sources(artifact, target)
    build = codegen.of_artifact(artifact, suite.build_cache_dir())
    files = sorted(str(p.relative_to(target)) for p in codegen.source_files(target))
    manifest = {
        "case": options.case,
        "backend": backend,
        "origin": origin,
        "fingerprint": build.fingerprint if build else None,
        "files": files,
    }
    write_atomic(target / MANIFEST, json.dumps(manifest, indent=1) + "\n")
    log(f"sources: {len(files)} files of {options.case} on {backend} ({origin}) in {target}")
