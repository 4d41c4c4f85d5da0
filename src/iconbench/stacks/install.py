"""Build and install one commit of the component under test (asv's build/install commands).

asv runs ``python …/src/iconbench/stacks/install.py build …`` once per commit (the wheels are kept
in asv's per-commit build cache) and ``… install …`` whenever the environment must switch to
that commit. Failures print one line naming the component and the commit, which asv shows
and then records every benchmark of that commit as failed.
"""

from __future__ import annotations

import argparse
import pathlib
import subprocess
import sys
from collections.abc import Sequence

if __name__ == "__main__" and __package__ in (None, ""):
    # Run by path inside an asv environment: use this checkout's iconbench, not the installed one.
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2]))

from iconbench.stacks.identity import write_record
from iconbench.stacks.spec import COMPONENTS
from iconbench.stacks.uvtool import uv_executable


def _subdirs(component: str) -> tuple[str, ...]:
    return COMPONENTS[component].subdirs if component in COMPONENTS else (".",)


def _run(command: list[str], what: str) -> None:
    out = subprocess.run(command, capture_output=True, text=True, check=False)
    if out.returncode != 0:
        tail = "\n".join(out.stderr.strip().splitlines()[-25:])
        raise SystemExit(f"iconbench: {what} failed:\n{tail}\niconbench: {what} failed (see above)")


def build(
    component: str, source: pathlib.Path, out: pathlib.Path, commit: str
) -> list[pathlib.Path]:
    """Build wheels of every project of ``component`` in ``source`` into ``out/wheels``."""
    wheels = out / "wheels"
    for subdir in _subdirs(component):
        project = source / subdir
        if not (project / "pyproject.toml").exists() and not (project / "setup.py").exists():
            raise SystemExit(
                f"iconbench: {component} at {commit[:12]}: {project} has no pyproject.toml; "
                f"is this a {component} repository?"
            )
        _run(
            [
                uv_executable(),
                "build",
                "--quiet",
                "--wheel",
                "--out-dir",
                str(wheels),
                str(project),
            ],
            f"building {component} at {commit[:12]} ({subdir})",
        )
    return sorted(wheels.glob("*.whl"))


def install(component: str, out: pathlib.Path, commit: str, repo: str) -> None:
    """Install the wheels built for ``commit`` over the pinned ones, and record the commit."""
    wheels = sorted((out / "wheels").glob("*.whl"))
    if not wheels:
        raise SystemExit(
            f"iconbench: no wheels of {component} at {commit[:12]} in {out}; the build failed"
        )
    _run(
        [
            uv_executable(),
            "pip",
            "install",
            "--quiet",
            "--python",
            sys.executable,
            "--no-deps",
            "--reinstall",
            *map(str, wheels),
        ],
        f"installing {component} at {commit[:12]}",
    )
    if component != "iconbench":
        write_record(sys.prefix, component, commit, repo)
    from iconbench.stacks.provenance import write_into_environment

    write_into_environment(commit)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point for asv's build and install commands."""
    parser = argparse.ArgumentParser(prog="python -m iconbench.stacks.install")
    parser.add_argument("action", choices=("build", "install"))
    parser.add_argument("--component", required=True, choices=(*COMPONENTS, "iconbench"))
    parser.add_argument("--source", type=pathlib.Path)
    parser.add_argument("--out", type=pathlib.Path, required=True)
    parser.add_argument("--commit", required=True)
    parser.add_argument("--repo", default="")
    args = parser.parse_args(argv)
    if args.action == "build":
        build(args.component, args.source, args.out, args.commit)
    else:
        install(args.component, args.out, args.commit, args.repo)
    return 0


if __name__ == "__main__":
    sys.exit(main())
