"""An asv environment that swaps only the component under test, by its source tree.

Bisecting a nightly regression means timing several commits of one repository while the rest
of the stack stays as it is. gt4py, dace's Python side and icon4py are pure Python at the
level a regression hides in, so instead of building an environment per commit
(``iconbench-uv``, minutes each) this environment runs the benchmarks with the running
Python and its installed stack, and puts the commit's source tree (exported with ``git
archive``, kept per commit) first on ``PYTHONPATH``: every ``src/`` directory holding a
package (icon4py's monorepo has one per namespace part), else the tree's root.

Load it with ``"plugins": [".iconbench.stacks.checkout_env"]`` and ``"environment_type":
"iconbench-checkout"``, ``"pythons": ["<path of python>"]``. Not for components whose change
is in compiled code (dace's C++ runtime): bisect those with ``iconbench-uv``.
"""

from __future__ import annotations

import os
import pathlib
import sys

from asv import environment, util

from iconbench.stacks.trees import export_tree, source_roots

TOOL_NAME = "iconbench-checkout"
#: What the benchmark processes get from this environment.
_PASSED = ("ASV_PYTHONPATH", "ASV_COMMIT")


class CheckoutEnvironment(environment.Environment):
    """The running Python with the commit under test's sources first on the path.

    Modelled on asv's ``ExistingEnvironment`` (nothing to create), but not derived from it:
    asv treats an existing environment as one that cannot take a commit (``asv run`` then
    ignores the repository), and this one takes every commit asked for.
    """

    tool_name = TOOL_NAME

    def __init__(self, conf, executable, requirements, tagged_env_vars):
        executable = sys.executable if executable == "same" else executable
        try:
            executable = os.path.abspath(util.which(executable))
            version = "import sys; print(f'{sys.version_info[0]}.{sys.version_info[1]}')"
            self._python = util.check_output([executable, "-c", version]).strip()
        except (util.ProcessError, OSError):
            raise environment.EnvironmentUnavailable() from None
        self._executable = executable
        self._requirements = {}
        super().__init__(conf, executable, requirements, tagged_env_vars)
        self._trees = pathlib.Path(conf.env_dir).resolve() / "checkouts"

    @classmethod
    def matches(cls, python):
        try:
            util.which(sys.executable if python == "same" else python)
        except OSError:
            return False
        return True

    @property
    def name(self):
        executable = self._executable.replace(os.path.sep, "_")
        return environment.get_env_name(self.tool_name, executable, {}, self._tagged_env_vars)

    @property
    def installed_commit_hash(self):
        return self._global_env_vars.get("ASV_COMMIT")

    def check_presence(self):
        return True

    def create(self):
        pass

    def _setup(self):
        pass

    def can_install_project(self):
        return True

    @property
    def env_vars(self):
        """The matrix's variables plus the commit's source path (what the runner passes)."""
        chosen = {k: v for k, v in self._global_env_vars.items() if k in _PASSED}
        return {**super().env_vars, **chosen}

    def run(self, args, **kwargs):
        env = dict(kwargs.pop("env", None) or os.environ)
        env.update({k: v for k, v in self._global_env_vars.items() if k in _PASSED})
        return util.check_output([self._executable, *args], env=env, **kwargs)

    def install_project(self, conf, repo, commit_hash=None):
        """Export ``commit_hash``'s tree (once) and put its sources on ``PYTHONPATH``."""
        if commit_hash is None:
            commit_hash = repo.get_hash_from_name(None)
        tree = export_tree(pathlib.Path(repo._path), commit_hash, self._trees)
        paths = [str(p) for p in source_roots(tree)]
        if os.environ.get("PYTHONPATH"):
            paths.append(os.environ["PYTHONPATH"])
        # asv's benchmark script drops PYTHONPATH and puts ASV_PYTHONPATH on sys.path instead
        self._global_env_vars["ASV_PYTHONPATH"] = os.pathsep.join(paths)
        self._set_commit_hash(commit_hash)
