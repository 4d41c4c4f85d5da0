"""An asv environment plugin that builds environments with uv from iconbench's lock.

asv 0.6.6 ships a ``uv`` environment, but it installs every requirement with pip, one at a
time, and needs pip in the environment. This one creates the environment with ``uv venv``
and installs the locked stack (all of ``uv.lock`` except the component under test) with one
``uv pip install`` from uv's cache: about a second instead of minutes. The component under
test is then built and installed per commit by :mod:`iconbench.stacks.install`.

Load it from an asv config with ``"plugins": [".iconbench.stacks.environment"]`` and
``"environment_type": "iconbench-uv"``; name the component under test with
``"iconbench_component"`` (``gt4py``, ``dace``, ``icon4py``; absent: iconbench itself).
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import sys

from asv import environment, util
from asv.console import log

from iconbench.buildcache import REPO_ROOT
from iconbench.stacks import lockpins
from iconbench.stacks.uvtool import uv_executable

#: The asv ``environment_type`` of this plugin.
TOOL_NAME = "iconbench-uv"


class IconbenchUv(environment.Environment):
    """A uv virtualenv with the locked stack, minus the component under test."""

    tool_name = TOOL_NAME

    def __init__(self, conf, python, requirements, tagged_env_vars):
        self._python = python
        self._requirements = requirements
        self._tagged_env_vars = tagged_env_vars
        self._component = getattr(conf, "iconbench_component", None)
        pins = getattr(conf, "iconbench_pins", None)
        self._locked = lockpins.locked_requirements(exclude=self._component, pins=pins)
        self._pins_digest = hashlib.sha256(self._locked.encode()).hexdigest()[:8]
        super().__init__(conf, python, requirements, tagged_env_vars)
        # asv adds the build backend of the project in the cwd (iconbench's hatchling) and
        # pip/build; the lock already holds what the suite needs.
        self._base_requirements = {}

    @classmethod
    def matches(cls, python: str) -> bool:
        return bool(re.match(r"^[0-9].*$", python))

    @property
    def name(self) -> str:
        """Asv's name plus the lock digest: a changed pin gets a new environment."""
        base = environment.get_env_name(
            self.tool_name, self._python, self._requirements, self._tagged_env_vars
        )
        return f"{base}-{self._component or 'iconbench'}-{self._pins_digest}"

    @property
    def dir_name(self) -> str:
        return hashlib.md5(self.name.encode()).hexdigest()

    def _interpreter(self) -> str:
        """The running interpreter if its version is the one asked for (no download)."""
        if f"{sys.version_info[0]}.{sys.version_info[1]}" == self._python:
            return sys.executable
        return self._python

    def _uv(self, args: list[str], what: str) -> None:
        command = [uv_executable(), *args]
        log.debug(" ".join(command))
        out = subprocess.run(command, capture_output=True, text=True, check=False)
        if out.returncode != 0:
            raise util.UserError(
                f"iconbench: {what} failed "
                f"(component under test: {self._component or 'iconbench'}):\n"
                f"{out.stderr.strip()[-3000:]}"
            )

    def _setup(self) -> None:
        log.info(f"Creating uv environment {self.name}")
        self._uv(["venv", "--quiet", "--python", self._interpreter(), self._path], "uv venv")
        requirements = os.path.join(self._path, "iconbench-locked-requirements.txt")
        with open(requirements, "w") as f:
            f.write(self._locked)
        python = os.path.join(self._path, "bin", "python")
        log.info(f"Installing the locked stack into {self.name}")
        self._uv(
            # --no-deps: the export is the complete, resolved stack; resolving again would pull
            # the component under test back in as a dependency of the others.
            ["pip", "install", "--quiet", "--no-deps", "--python", python, "-r", requirements],
            "installing the locked stack",
        )
        if self._component is not None:
            # The suite imports iconbench: from this checkout, not from the repo under test.
            self._uv(
                [
                    "pip",
                    "install",
                    "--quiet",
                    "--no-deps",
                    "--python",
                    python,
                    "-e",
                    str(REPO_ROOT),
                ],
                "installing iconbench",
            )

    def check_presence(self) -> bool:
        """Asv's check without requiring pip (uv environments have none)."""
        try:
            info = self.load_info_file(self._path)
        except (util.UserError, OSError):
            return False
        expected = {
            "tool_name": self.tool_name,
            "python": self._python,
            "requirements": self._requirements,
            "build_env_vars": self.build_env_vars,
        }
        if info != expected:
            return False
        try:
            self.run_executable("python", ["-c", "pass"])
        except (subprocess.CalledProcessError, OSError, util.ProcessError):
            return False
        return True

    def run(self, args, **kwargs):
        """Run Python in the environment, telling the suite its stack key (``ICONBENCH_STACK``).

        The suite keys gt4py's build cache with ``ICONBENCH_STACK``; asv gives every commit
        the same process environment, so the key of the installed commit is added here.
        """
        env = kwargs.get("env")
        if env is not None and "ICONBENCH_STACK" not in env:
            key = self._stack_key()
            if key:
                kwargs["env"] = dict(env, ICONBENCH_STACK=key)
        log.debug(f"Running '{' '.join(args)}' in {self.name}")
        return self.run_executable("python", args, **kwargs)

    def _stack_key(self) -> str | None:
        """:func:`iconbench.stacks.identity.stack_key` as the environment computes it."""
        commit = self._get_installed_commit_hash()
        keys: dict[str | None, str | None] = self.__dict__.setdefault("_stack_keys", {})
        if commit not in keys:
            code = "from iconbench.stacks.identity import stack_key; print(stack_key())"
            try:
                out = self.run_executable("python", ["-c", code], timeout=120)
                keys[commit] = out.strip().splitlines()[-1]
            except (util.ProcessError, OSError, IndexError):
                keys[commit] = None  # an iconbench commit that predates stacks: suite default
        return keys[commit]


def setup() -> None:
    """Asv plugin hook: make the uv binary known to commands run inside environments."""
    os.environ.setdefault("ICONBENCH_UV", uv_executable())
