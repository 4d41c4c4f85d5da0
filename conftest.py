"""pytest's collection of the package's examples (``--doctest-modules`` over ``src/``).

A module of ``src/`` whose text holds no example (``>>>``) has no doctest to collect, but
pytest would import it to look, in every test worker: the granules' field factories alone
are 1.2 s of icon4py imports a worker. Such a module is left out of the collection (a
package's ``__init__.py`` never is); the tests that use it import it.
"""

from __future__ import annotations

import pathlib

SRC = pathlib.Path(__file__).resolve().parent / "src"


def pytest_ignore_collect(collection_path: pathlib.Path, config) -> bool | None:
    """``True`` for a module of ``src/`` without an example; otherwise pytest decides."""
    if (collection_path.suffix == ".py" and collection_path.name != "__init__.py"
            and SRC in collection_path.parents
            and ">>>" not in collection_path.read_text(encoding="utf-8")):  # fmt: skip
        return True
    return None
