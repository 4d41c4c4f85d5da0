"""Session-wide set-up: gt4py's persistent build cache and the bytecode cache, before any test
imports gt4py.

gt4py reads its cache settings once, at import; whichever test module imported it first
used to decide whether compiled programs went to the persistent cache or a throw-away
session directory, so cache-dependent tests passed alone and failed in the full run.
"""

import subprocess

import pytest

from iconbench import buildcache, bytecode

bytecode.configure()  # the processes tests start read the stack's bytecode, not its sources
buildcache.configure("default", jobs=1)


def _git(repo, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", *args],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()


@pytest.fixture(scope="session")
def git():
    """``git(repo, *args)``: git in a throw-away repository, as a test identity; its stdout.

    The tests that build repositories (a component to bisect, icon4py with a pull request,
    the checkouts and results remote of a night) commit without the machine's git config.
    """
    return _git
