"""Run an untrusted check so the code under test holds no secret and writes only its scratch.

An untrusted check (``iconbench.selection.trust``: a fork's head) imports and runs code
anyone could have written. :class:`Confinement` starts it

- with an environment of the names it needs only (no token, no ``ACTIONS_*``, nothing named
  like a secret), and ``HOME`` a fresh folder of its scratch;
- in a user and mount namespace (``unshare``, no privilege needed) where the trusted runs'
  state (the shared build cache, the history, other stacks, the iconbench checkout) is
  mounted read-only, the usual credential files of the real home are empty, and a checkout's
  ``.git/config`` is replaced by a copy without its credentials (``extraheader``).

Only the scratch folders given (the check's output, its private build cache, a temporary
folder) stay writable. Where the machine gives no user namespaces, the runner has to provide
the same (a container per job with read-only mounts; docs/security.md); ``required=False``
then runs the command with the scrubbed environment only, and says so.

``python -m iconbench.check.confine --read-only DIR … --writable DIR … --scratch DIR -- CMD``
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import pathlib
import pwd
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence

from iconbench.errors import IconbenchError

#: Environment names the check needs (exactly, or as a prefix ending in ``_``).
KEEP = (
    "PATH", "LANG", "LC_ALL", "TZ", "TERM", "USER", "LOGNAME", "SHELL", "TMPDIR",
    "PYTHONPATH", "PYTHONUNBUFFERED", "PYTHONHASHSEED", "PYTHONOPTIMIZE", "PYTHONPYCACHEPREFIX",
    "PYTHONDONTWRITEBYTECODE", "VIRTUAL_ENV", "LD_LIBRARY_PATH", "NUMBA_",
    "ICONBENCH_", "GT4PY_", "DACE_", "CUDA_", "NVIDIA_", "CUPY_", "HIP_", "ROCM_", "OMP_",
    "CC", "CXX", "CPATH", "LIBRARY_PATH", "UV_", "SLURM_", "CSCS_",
)  # fmt: skip
#: Kept names that still look like a secret are dropped.
SECRET = re.compile(r"TOKEN|SECRET|PASSW|CREDENTIAL|PRIVATE|_KEY$|^ACTIONS_|^GITHUB_|^GH_")
#: Credential files and folders of a home, emptied inside the namespace.
CREDENTIALS = (
    ".config/gh", ".git-credentials", ".netrc", ".ssh", ".docker", ".gnupg",
    ".config/git/credentials", ".pypirc", ".aws", ".kube",
)  # fmt: skip
_EXTRAHEADER = re.compile(r"(?im)^\s*(extraheader|helper|token|password)\s*=.*$")


def scrubbed(environ: Mapping[str, str]) -> dict[str, str]:
    """The environment the code under test gets: the names it needs, none like a secret."""
    return {
        name: value
        for name, value in environ.items()
        if any(name == keep or (keep.endswith("_") and name.startswith(keep)) for keep in KEEP)
        and not SECRET.search(name)
    }


@dataclasses.dataclass(frozen=True)
class Confinement:
    """What the confined command may write, what it sees read-only, and its scratch."""

    scratch: pathlib.Path
    read_only: tuple[pathlib.Path, ...] = ()
    writable: tuple[pathlib.Path, ...] = ()
    #: homes whose credential files are emptied (the real home; ``HOME`` is the scratch's)
    homes: tuple[pathlib.Path, ...] = ()
    #: checkouts whose ``.git/config`` is shown without credentials
    checkouts: tuple[pathlib.Path, ...] = ()

    def script(self) -> str:
        """The shell lines run inside the namespace before the command."""
        lines = ["set -e"]
        for path in self.writable:  # mounts of their own first: a read-only parent spares them
            q = shlex.quote(str(path))
            lines.append(f"mount --bind {q} {q}")
        for path in self.read_only:
            if path.exists():
                q = shlex.quote(str(path))
                lines += [f"mount --rbind {q} {q}", f"mount -o remount,bind,ro {q}"]
        for home in self.homes:
            for name in CREDENTIALS:
                path = home / name
                q = shlex.quote(str(path))
                if path.is_dir():
                    lines.append(f"mount -t tmpfs -o ro,size=4k iconbench-empty {q}")
                elif path.exists():
                    lines.append(f"mount --bind /dev/null {q}")
        clean = self.scratch / "git-config"
        for index, checkout in enumerate(self.checkouts):
            config = checkout / ".git" / "config"
            if config.is_file():
                copy = clean / f"{index}"
                lines.append(f"mount --bind {shlex.quote(str(copy))} {shlex.quote(str(config))}")
        lines.append('exec "$@"')
        return "\n".join(lines)

    def prepare(self) -> None:
        """The scratch's home and the credential-free copies of the checkouts' git configs."""
        (self.scratch / "home").mkdir(parents=True, exist_ok=True)
        for path in self.writable:
            path.mkdir(parents=True, exist_ok=True)
        clean = self.scratch / "git-config"
        clean.mkdir(parents=True, exist_ok=True)
        for index, checkout in enumerate(self.checkouts):
            config = checkout / ".git" / "config"
            if config.is_file():
                text = _EXTRAHEADER.sub("", config.read_text(encoding="utf-8", errors="replace"))
                (clean / f"{index}").write_text(text, encoding="utf-8")

    def command(self, argv: Sequence[str]) -> list[str]:
        """``argv`` inside a new user and mount namespace, after :meth:`script`."""
        unshare = shutil.which("unshare")
        if unshare is None:
            raise IconbenchError("unshare not found (util-linux): the check cannot be confined")
        return [unshare, "--user", "--map-root-user", "--mount", "--", "sh", "-c",
                self.script(), "iconbench-confined", *argv]  # fmt: skip

    def environment(self, environ: Mapping[str, str]) -> dict[str, str]:
        env = scrubbed(environ)
        env["HOME"] = str(self.scratch / "home")
        env.setdefault("PATH", os.defpath)
        return env


def available() -> bool:
    """Whether this machine lets an unprivileged process make a user and mount namespace."""
    unshare = shutil.which("unshare")
    if unshare is None:
        return False
    done = subprocess.run([unshare, "--user", "--map-root-user", "--mount", "true"],
                          capture_output=True, check=False)  # fmt: skip
    return done.returncode == 0


def run(confinement: Confinement, argv: Sequence[str], *, required: bool = True) -> int:
    """Run ``argv`` confined; its exit status."""
    confinement.prepare()
    env = confinement.environment(os.environ)
    if available():
        command = confinement.command(argv)
    elif required:
        raise IconbenchError(
            "no user namespaces here (unshare --user --mount fails): run the untrusted check in "
            "a container with the shared cache mounted read-only (docs/security.md), or give "
            "--namespace-optional"
        )
    else:
        print(
            "confine: no user namespaces here: the environment is scrubbed, the paths are "
            "read-only only if the runner mounts them so",
            file=sys.stderr,
        )
        command = list(argv)
    return subprocess.run(command, env=env, check=False).returncode


def main(argv: list[str] | None = None) -> int:
    """``python -m iconbench.check.confine``: run a command confined (one line on an error)."""
    parser = argparse.ArgumentParser(prog="python -m iconbench.check.confine")
    parser.add_argument("--scratch", type=pathlib.Path, required=True)
    parser.add_argument("--read-only", type=pathlib.Path, action="append", default=[])
    parser.add_argument("--writable", type=pathlib.Path, action="append", default=[])
    parser.add_argument("--home", type=pathlib.Path, action="append", default=[])
    parser.add_argument("--checkout", type=pathlib.Path, action="append", default=[])
    parser.add_argument("--namespace-optional", action="store_true")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("give the command after --")
    # the account's own home too: code can find it without HOME (pwd)
    homes = {p.resolve() for p in [*args.home, pathlib.Path(pwd.getpwuid(os.getuid()).pw_dir)]}
    confinement = Confinement(
        scratch=args.scratch.resolve(),
        read_only=tuple(dict.fromkeys(p.resolve() for p in [*args.read_only, *sorted(homes)])),
        writable=tuple(p.resolve() for p in [args.scratch, *args.writable]),
        homes=tuple(sorted(homes)),
        checkouts=tuple(p.resolve() for p in args.checkout),
    )
    try:
        return run(confinement, command, required=not args.namespace_optional)
    except IconbenchError as error:
        print(f"confine: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
