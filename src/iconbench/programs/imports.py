"""icon4py's programs and the modules they import, read from source without importing it.

Importing icon4py (and so gt4py) to list its programs takes a minute on a busy CI machine; the
pull-request check has to decide in a second which programs a change touches. This reads the
``.py`` files with :mod:`ast`: every function decorated with ``@program``/``@gtx.program``
(or ``@program(...)``) is a program of its module, and the ``import`` statements give the
module graph. A program is affected by a change of module ``M`` when its defining module is
``M`` or imports ``M``, directly or through other modules. The catalog finds the module of one
program here too (:func:`iconbench.programs.catalog.lookup`), so it lives with the programs,
below the selection that maps a pull request's changes with it.
"""

from __future__ import annotations

import ast
import contextlib
import dataclasses
import hashlib
import json
import pathlib
from collections.abc import Iterable, Mapping

#: The top-level package whose modules are scanned.
PACKAGE = "icon4py"


def module_of(path: str) -> str | None:
    """The module name of a source file of the icon4py repository (``None``: not a module).

    The monorepo keeps each namespace package under ``<part>/src/``; the module is the path
    after the last ``src/``.

    >>> module_of("model/atmosphere/dycore/src/icon4py/model/atmosphere/dycore/stencils/x.py")
    'icon4py.model.atmosphere.dycore.stencils.x'
    >>> module_of("model/common/src/icon4py/model/common/__init__.py")
    'icon4py.model.common'
    >>> module_of("model/atmosphere/dycore/tests/dycore/test_x.py") is None
    True
    """
    parts = pathlib.PurePosixPath(path).parts
    if not path.endswith(".py") or "src" not in parts:
        return None
    tail = parts[len(parts) - parts[::-1].index("src") :]
    if not tail or tail[0] != PACKAGE:
        return None
    names = [*tail[:-1], tail[-1].removesuffix(".py")]
    if names[-1] == "__init__":
        names.pop()
    return ".".join(names)


def _is_program_decorator(node: ast.expr) -> bool:
    target = node.func if isinstance(node, ast.Call) else node
    name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
    return name == "program"


def _imports(tree: ast.Module, module: str, is_package: bool) -> set[str]:
    found: set[str] = set()
    package = module if is_package else module.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            found.add(base)
            # `from pkg import mod` imports a module too
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return {name for name in found if name.split(".")[0] == PACKAGE}


@dataclasses.dataclass(frozen=True)
class ProgramIndex:
    """Programs by defining module, and each module's icon4py imports."""

    programs: Mapping[str, tuple[str, ...]]  # module -> program names defined there
    imports: Mapping[str, frozenset[str]]  # module -> icon4py modules it imports

    @classmethod
    def from_sources(cls, roots: Iterable[pathlib.Path]) -> ProgramIndex:
        """Scan every ``icon4py/**.py`` under ``roots`` (site-packages or a checkout's ``src``)."""
        programs: dict[str, tuple[str, ...]] = {}
        imports: dict[str, frozenset[str]] = {}
        for root in roots:
            for path in sorted((pathlib.Path(root) / PACKAGE).rglob("*.py")):
                relative = path.relative_to(root).with_suffix("").parts
                is_package = relative[-1] == "__init__"
                module = ".".join(relative[:-1] if is_package else relative)
                try:
                    tree = ast.parse(path.read_bytes())
                except SyntaxError:
                    continue
                imports[module] = frozenset(_imports(tree, module, is_package))
                names = tuple(
                    node.name
                    for node in tree.body
                    if isinstance(node, ast.FunctionDef)
                    and any(_is_program_decorator(d) for d in node.decorator_list)
                )
                if names:
                    programs[module] = names
        return cls(programs, imports)

    @classmethod
    def installed(cls, *, kept: bool = True) -> ProgramIndex:
        """The index of the icon4py installed in this environment (without importing it).

        ``kept``: read from and written to the iconbench cache (:meth:`stored`), as every
        measuring worker does to look its programs up: parsing icon4py's ~260 modules took
        1.4 s of a worker's 1.7 s of program set-up on a 2-core machine. A command that may
        end in a one-line error (``iconbench select``) writes nothing.
        """
        import importlib.util

        from iconbench.buildcache import cache_root

        roots = set()
        spec = importlib.util.find_spec(PACKAGE)
        for location in (spec.submodule_search_locations or []) if spec else []:
            roots.add(pathlib.Path(location).parent)
        if not kept:
            return cls.from_sources(sorted(roots))
        return cls.stored(sorted(roots), cache_root() / "program-index")

    @classmethod
    def stored(cls, roots: Iterable[pathlib.Path], folder: pathlib.Path) -> ProgramIndex:
        r""":meth:`from_sources`, kept in ``folder`` under the path, size and time of each file.

        Python trusts its cached bytecode on the same evidence; a file edited, added or
        removed (or a tree at another path) gives another key, so the sources are read again.

        >>> import tempfile
        >>> root, folder = pathlib.Path(tempfile.mkdtemp()), pathlib.Path(tempfile.mkdtemp())
        >>> (root / PACKAGE).mkdir()
        >>> _ = (root / PACKAGE / "a.py").write_text("@program\ndef p(): pass\n")
        >>> ProgramIndex.stored([root], folder).programs, len(list(folder.iterdir()))
        ({'icon4py.a': ('p',)}, 1)
        >>> ProgramIndex.stored([root], folder) == ProgramIndex.from_sources([root])
        True
        >>> _ = (root / PACKAGE / "a.py").write_text("@program\ndef q(): pass\n")
        >>> ProgramIndex.stored([root], folder).programs
        {'icon4py.a': ('q',)}
        """
        from iconbench.files.atomic import write_atomic

        roots = [pathlib.Path(root).absolute() for root in roots]
        digest = hashlib.sha256()
        for root in roots:
            for path in sorted((root / PACKAGE).rglob("*.py")):
                stat = path.stat()
                digest.update(f"{path}\0{stat.st_size}\0{stat.st_mtime_ns}\n".encode())
        stored = folder / f"{digest.hexdigest()[:32]}.json"
        try:
            data = json.loads(stored.read_text(encoding="utf-8"))
            return cls(
                {module: tuple(names) for module, names in data["programs"].items()},
                {module: frozenset(names) for module, names in data["imports"].items()},
            )
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            pass  # not kept yet, or a foreign file: read the sources
        index = cls.from_sources(roots)
        imports = {module: sorted(names) for module, names in index.imports.items()}
        data = {"programs": index.programs, "imports": imports}
        with contextlib.suppress(OSError):  # a read-only cache: read the sources next time too
            write_atomic(stored, json.dumps(data, sort_keys=True))
        return index

    def dependents(self, changed: Iterable[str]) -> set[str]:
        """Modules that are, or (transitively) import, one of ``changed``."""
        reverse: dict[str, set[str]] = {}
        for module, imported in self.imports.items():
            for name in imported:
                reverse.setdefault(name, set()).add(module)
        seen, todo = set(), list(changed)
        while todo:
            module = todo.pop()
            if module in seen:
                continue
            seen.add(module)
            todo.extend(reverse.get(module, ()))
        return seen

    def affected_programs(self, changed_modules: Iterable[str]) -> set[str]:
        """Program names defined in modules affected by a change of ``changed_modules``."""
        return {
            name
            for module in self.dependents(changed_modules)
            for name in self.programs.get(module, ())
        }

    def catalog_programs(self, packages: Iterable[str]) -> dict[str, str]:
        """Program name -> defining module, as :mod:`iconbench.programs.catalog` names them.

        The catalog holds the programs visible in ``packages``: those defined there and those
        a module there imports by name; a name defined in several modules is qualified by its
        module's last part (``diffusion_utils.scale_k``), as the catalog does.
        """
        inside = tuple(packages)

        def within(module: str) -> bool:
            return any(module == p or module.startswith(p + ".") for p in inside)

        visible = {
            (module, name)
            for module, names in self.programs.items()
            for name in names
            if within(module)
            or any(f"{module}.{name}" in self.imports[m] for m in self.imports if within(m))
        }
        counts: dict[str, int] = {}
        for _, name in visible:
            counts[name] = counts.get(name, 0) + 1
        return {
            (f"{module.rsplit('.', 1)[-1]}.{name}" if counts[name] > 1 else name): module
            for module, name in visible
        }
