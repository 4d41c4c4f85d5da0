"""The scripts beside the package import what the package has.

``perf/`` and ``benchmarks/`` are no part of the package, and their imports of it sit inside
functions (they run on a runner, with this checkout's sources first); a module moved inside
the package (``gate.resultset`` to ``records.resultset``) left ``perf/turn_samples.py``
importing a name that was gone, which only a run on the runner would have found.
"""

from __future__ import annotations

import ast
import importlib
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
SCRIPTS = sorted([*(ROOT / "perf").glob("*.py"), *(ROOT / "benchmarks").rglob("*.py")])


def _imports(path: pathlib.Path) -> list[tuple[int, str, str | None]]:
    """(line, module, name) of every import of iconbench in ``path``, wherever it sits."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("iconbench"):
            found += [(node.lineno, node.module, alias.name) for alias in node.names]
        elif isinstance(node, ast.Import):
            found += [
                (node.lineno, a.name, None) for a in node.names if a.name.startswith("iconbench")
            ]
    return found


@pytest.mark.parametrize("path", SCRIPTS, ids=[str(p.relative_to(ROOT)) for p in SCRIPTS])
def test_every_import_of_iconbench_resolves(path: pathlib.Path) -> None:
    missing = []
    for line, module, name in _imports(path):
        imported = importlib.import_module(module)
        if name is not None and not hasattr(imported, name):
            try:
                importlib.import_module(f"{module}.{name}")
            except ModuleNotFoundError:
                missing.append(f"line {line}: from {module} import {name}")
    assert not missing, missing


def test_the_scripts_are_found() -> None:
    assert {p.name for p in SCRIPTS} >= {"turn_samples.py", "check_overhead.py"}
