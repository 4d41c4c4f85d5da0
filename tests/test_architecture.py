"""The package's import structure, read from its source: no circle, arrows down the layers.

Every ``import`` of every module of ``src/iconbench`` is an arrow, at module level or inside a
function alike (an import put into a function to dodge a circle is still the dependency);
only imports under ``if TYPE_CHECKING:`` are not (they never run). Importing a submodule also
runs the ``__init__`` of each package above it, so that counts as an arrow to the package.

A *room* is a top-level module or package of ``iconbench``; ``docs/architecture.md`` puts
every room into a layer (its table under "## Layers") and lists the arrows that run up a
layer, each with its reason (under "### Arrows up"). The tests hold the code to that page:
no circle among modules, none among the rooms of one layer, and exactly the listed arrows
up. ``python tests/test_architecture.py`` prints the measures the page quotes.
"""

from __future__ import annotations

import ast
import collections
import dataclasses
import pathlib
import re
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "iconbench"
DOC = ROOT / "docs" / "architecture.md"


@dataclasses.dataclass(frozen=True)
class Arrow:
    """One import: ``source`` imports ``target`` (both module names) at ``line``."""

    source: str
    target: str
    line: int
    kind: str  # "module", "function" or "package" (a package's __init__ run on the way)


def modules(package: pathlib.Path = PACKAGE) -> dict[str, pathlib.Path]:
    """Every module of the package by dotted name (a package by its ``__init__``)."""
    found = {}
    for path in sorted(package.rglob("*.py")):
        parts = list(path.relative_to(package.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imported(name: str, path: pathlib.Path, tree: ast.AST) -> list[tuple[str, int, str]]:
    """(dotted name, line, kind) of every import in ``tree`` that runs."""
    found: list[tuple[str, int, str]] = []
    is_package = path.name == "__init__.py"

    def visit(node: ast.AST, kind: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _type_checking(child):
                for other in child.orelse:
                    visit_node(other, kind)
            else:
                visit_node(child, kind)

    def visit_node(node: ast.AST, kind: str) -> None:
        if isinstance(node, ast.Import):
            found.extend((alias.name, node.lineno, kind) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = name.split(".")[: None if is_package else -1]
                parts = parts[: len(parts) - node.level + 1]
                base = ".".join([*parts, *([node.module] if node.module else [])])
            found.extend((f"{base}.{alias.name}", node.lineno, kind) for alias in node.names)
        else:
            inner = isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
            visit(node, "function" if inner else kind)

    visit(tree, "module")
    return found


def arrows(known: dict[str, pathlib.Path] | None = None) -> list[Arrow]:
    """Every import between two modules of the package (``from a import b``: the module
    ``a.b`` where there is one, else ``a``)."""
    known = modules() if known is None else known
    result = []
    for source, path in known.items():
        tree = ast.parse(path.read_text(), str(path))
        for imported, line, kind in _imported(source, path, tree):
            if imported.split(".")[0] != "iconbench":
                continue
            target = imported
            while target not in known:
                target = target.rsplit(".", 1)[0]
            if target == source:
                continue
            result.append(Arrow(source, target, line, kind))
            parts = target.split(".")
            for depth in range(2, len(parts)):
                package = ".".join(parts[:depth])
                if package in known and package != source and not source.startswith(package + "."):
                    result.append(Arrow(source, package, line, "package"))
    return result


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected parts of more than one node (each holds a circle), sorted.

    >>> circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}})
    [['a', 'b', 'c']]
    """
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found = []
    for start in sorted(edges):
        if start in index:
            continue
        # iterative Tarjan: (node, its successors not yet visited)
        work = [(start, iter(sorted(edges.get(start, ()))))]
        index[start] = low[start] = len(index)
        stack.append(start)
        while work:
            node, successors = work[-1]
            for successor in successors:
                if successor not in index:
                    index[successor] = low[successor] = len(index)
                    stack.append(successor)
                    work.append((successor, iter(sorted(edges.get(successor, ())))))
                    break
                if successor in stack:
                    low[node] = min(low[node], index[successor])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    part = []
                    while True:
                        member = stack.pop()
                        part.append(member)
                        if member == node:
                            break
                    if len(part) > 1:
                        found.append(sorted(part))
    return sorted(found)


def one_circle(part: list[str], edges: dict[str, set[str]]) -> list[str]:
    """A shortest circle through the first node of a strongly connected ``part``, closed."""
    start = part[0]
    paths = {start: [start]}
    queue = [start]
    for node in queue:
        for successor in sorted(edges.get(node, ())):
            if successor == start:
                return [*paths[node], start]
            if successor in part and successor not in paths:
                paths[successor] = [*paths[node], successor]
                queue.append(successor)
    return part


def room(module: str) -> str:
    """The room of a module: ``iconbench.gate.stats`` -> ``gate``, ``iconbench`` itself."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def layers(doc: pathlib.Path = DOC) -> dict[str, int]:
    """The layer of every room, read from the table under "## Layers" of the page."""
    section = doc.read_text().split("\n## Layers", 1)[1].split("\n## ", 1)[0]
    layer_of = {}
    for row in re.findall(r"^\| *(\d+) [^|]*\|([^|]*)\|", section, re.M):
        for name in re.findall(r"`([\w.]+)`", row[1]):
            layer_of[name] = int(row[0])
    return layer_of


def listed_up(doc: pathlib.Path = DOC) -> set[tuple[str, str]]:
    """The arrows up the page lists: (module, room) of each ``- `module` -> `room`: why``."""
    section = doc.read_text().split("\n### Arrows up", 1)[1].split("\n## ", 1)[0]
    return set(re.findall(r"^- `iconbench\.([\w.]+)` -> `(\w+)`", section, re.M))


def arrows_up(found: list[Arrow], layer_of: dict[str, int]) -> set[tuple[str, str]]:
    """(module without ``iconbench.``, room) of every arrow into a higher layer."""
    return {
        (a.source.removeprefix("iconbench."), room(a.target))
        for a in found
        if layer_of[room(a.target)] > layer_of[room(a.source)]
    }


def graph(found: list[Arrow], key=lambda name: name) -> dict[str, set[str]]:
    edges: dict[str, set[str]] = collections.defaultdict(set)
    for a in found:
        if key(a.source) != key(a.target):
            edges[key(a.source)].add(key(a.target))
    return edges


@pytest.fixture(scope="module")
def found() -> list[Arrow]:
    return arrows()


def test_the_walk_sees_every_kind_of_import(tmp_path):
    """Module- and function-level imports are arrows, relative ones resolved, TYPE_CHECKING
    ones not, and a submodule's package counts; a planted circle is found and named."""
    package = tmp_path / "iconbench"
    (package / "inner").mkdir(parents=True)
    for name, text in {
        "__init__.py": "",
        "a.py": "from iconbench.inner import b\n",
        "inner/__init__.py": "from iconbench.inner.c import C\n",
        "inner/b.py": "def f():\n    from iconbench import a\n",
        "inner/c.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
        "    from iconbench import a\nelse:\n    from . import b\nC = 1\n",
    }.items():
        (package / name).write_text(text)
    found = arrows(modules(package))
    assert {(a.source, a.target, a.kind) for a in found} == {
        ("iconbench.a", "iconbench.inner.b", "module"),
        ("iconbench.a", "iconbench.inner", "package"),
        ("iconbench.inner.b", "iconbench.a", "function"),
        ("iconbench.inner", "iconbench.inner.c", "module"),
        ("iconbench.inner.c", "iconbench.inner.b", "module"),
    }
    edges = graph(found)
    # a runs inner's __init__, which imports c, which imports b, which imports a
    assert circles(edges) == [
        ["iconbench.a", "iconbench.inner", "iconbench.inner.b", "iconbench.inner.c"]
    ]
    assert one_circle(circles(edges)[0], edges) == [
        "iconbench.a",
        "iconbench.inner.b",
        "iconbench.a",
    ]


def test_no_circle_among_the_modules(found):
    edges = graph(found)
    named = [" -> ".join(one_circle(part, edges)) for part in circles(edges)]
    assert not named, "import circles: " + "; ".join(named)


def test_every_room_has_a_layer(found):
    rooms = {room(name) for name in modules()}
    assert rooms == set(layers()), "rooms without a layer, or layers naming no room, in " + str(DOC)


def test_no_circle_among_the_rooms_of_a_layer(found):
    layer_of = layers()
    same = [a for a in found if layer_of[room(a.source)] == layer_of[room(a.target)]]
    assert circles(graph(same, key=room)) == []


def test_arrows_up_are_the_listed_ones(found):
    """An arrow into a higher layer is listed in docs/architecture.md with its reason, and
    the module says why beside the import."""
    up = arrows_up(found, layers())
    assert up == listed_up(), "arrows up the layers differ from docs/architecture.md"
    for a in found:
        if (a.source.removeprefix("iconbench."), room(a.target)) in up:
            text = modules()[a.source].read_text().splitlines()
            near = " ".join(text[max(0, a.line - 4) : a.line])
            assert "layer" in near, f"{a.source}:{a.line} imports up a layer without saying why"


def measures() -> dict[str, int]:
    """Rooms, arrows between rooms, arrows up a layer, module circles (what the page quotes)."""
    found = arrows()
    rooms = {room(name) for name in modules()}
    between = {(room(a.source), room(a.target)) for a in found if room(a.source) != room(a.target)}
    layer_of = layers()
    up = {pair for pair in between if layer_of[pair[1]] > layer_of[pair[0]]}
    return {
        "modules": len(modules()),
        "rooms": len(rooms),
        "arrows between rooms": len(between),
        "arrows up a layer": len(up),
        "module circles": len(circles(graph(found))),
    }


if __name__ == "__main__":
    for what, count in measures().items():
        print(f"{count:5d} {what}")
    sys.exit(0)
