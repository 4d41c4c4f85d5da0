"""Named, stored stacks: a resolved stack kept in the repository under a name.

"Is my gt4py branch slower?" needs the other two components fixed. By default they are
what the lock pins; a stored stack fixes them to anything else (a dace branch that the
gt4py branch needs, an icon4py release) and, being resolved, it names exact commits, so the
same name means the same stack next month. Stored stacks are never overwritten.
"""

from __future__ import annotations

import json
import os
import pathlib
import re
from typing import Any

from iconbench.buildcache import REPO_ROOT
from iconbench.errors import IconbenchError
from iconbench.files import decode
from iconbench.files.fields import Fields
from iconbench.stacks.resolve import ResolvedComponent
from iconbench.stacks.spec import COMPONENTS

#: Where named stacks live (committed, so that CI and colleagues share them).
STACKS_DIR = REPO_ROOT / "ci" / "asv" / "stacks"


def _path(name: str, directory: pathlib.Path) -> pathlib.Path:
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", name):
        raise IconbenchError(f"stack name {name!r}: use letters, digits, '.', '_' and '-'")
    return directory / f"{name}.json"


def save(
    name: str, components: list[ResolvedComponent], directory: pathlib.Path = STACKS_DIR
) -> pathlib.Path:
    """Store ``components`` as ``name``; an existing name is an error (stacks are immutable)."""
    path = _path(name, directory)
    directory.mkdir(parents=True, exist_ok=True)
    tmp = directory / f".{path.name}.tmp{os.getpid()}"
    tmp.write_text(json.dumps([c.as_dict() for c in components], indent=2) + "\n")
    try:
        os.link(tmp, path)
    except FileExistsError:
        raise IconbenchError(
            f"stack {name!r} exists ({path}); stored stacks are never changed, pick a new name"
        ) from None
    finally:
        tmp.unlink()
    return path


def load(name: str, directory: pathlib.Path = STACKS_DIR) -> list[ResolvedComponent]:
    """The stored stack ``name``."""
    path = _path(name, directory)
    if not path.exists():
        known = ", ".join(sorted(p.stem for p in directory.glob("*.json"))) or "none"
        raise IconbenchError(
            f"no stored stack {name!r} (known: {known}); "
            f"store one with 'iconbench stack resolve … --save {name}'"
        )
    return from_data(decode.load_json(path, hint=HINT), str(path))


#: What to do about a broken stored stack.
HINT = "fix the file or store the stack again under a new name ('iconbench stack resolve --save')"


def from_data(data: Any, origin: str) -> list[ResolvedComponent]:
    """The components of a stored stack's JSON (a list of objects), checked key by key."""
    if not isinstance(data, list) or not data:
        raise IconbenchError(f"{origin}: expected a non-empty list of components; {HINT}")
    components = []
    for i, entry in enumerate(data):
        fields = Fields(origin, entry, f"[{i}]", hint=HINT)
        name = fields.text("component")
        if name not in COMPONENTS:
            fields.fail(f"unknown component {name!r}", fields.path("component"))
        source = fields.text("source")
        if source not in ("lock", "release", "git"):
            fields.fail(f"expected lock, release or git, got {source!r}", fields.path("source"))
        values = {k: fields.text(k, optional=True) for k in ("version", "repo", "ref", "commit")}
        if source == "git" and not values["commit"]:
            fields.fail("is missing (a git component needs its commit)", fields.path("commit"))
        if source != "git" and not values["version"]:
            fields.fail("is missing", fields.path("version"))
        unknown = set(entry) - {"component", "source", *values}
        if unknown:
            fields.fail(f"unknown key(s) {', '.join(sorted(unknown))}")
        components.append(ResolvedComponent(name, source, **values))
    return components


def check_new(name: str, directory: pathlib.Path = STACKS_DIR) -> pathlib.Path:
    """The file a new stack ``name`` would get.

    Checked before resolving (which may take a minute of ls-remote): a bad or taken name
    fails first.
    """
    path = _path(name, directory)
    if path.exists():
        raise IconbenchError(
            f"stack {name!r} exists ({path}); stored stacks are never changed, pick a new name"
        )
    return path


def pins(name: str, directory: pathlib.Path = STACKS_DIR) -> dict[str, list[str]]:
    """Requirement lines of every component of the stored stack (versions as stored)."""
    return {c.component: c.requirements() for c in load(name, directory)}
