"""Named DaCe backend variants, read from ``backends.toml``: configurations as data.

People compare DaCe configurations (without auto-optimisation, other GPU block sizes,
synchronous calls); each is a name plus keyword arguments of icon4py's
``model_backends.make_custom_dace_backend``. They live in a file users edit (``backends.toml``
at the repository root, or ``$ICONBENCH_BACKENDS_FILE``), not in code, and every result
records the options of the variants it measured (:func:`options_of`).
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import os
import pathlib
import tomllib
from collections.abc import Callable, Iterable
from typing import Any

from iconbench.errors import IconbenchError

ENV_VAR = "ICONBENCH_BACKENDS_FILE"
DEFAULT_FILE = pathlib.Path(__file__).resolve().parents[3] / "backends.toml"


@dataclasses.dataclass(frozen=True)
class BackendVariant:
    """One named configuration: device (``cpu``/``gpu``), options, what it is for."""

    name: str
    device: str
    options: dict[str, Any]
    description: str = ""

    def check_options(self, factory: Callable[..., Any]) -> None:
        """Refuse options ``factory`` has no parameter for (it would swallow them in ``**_``)."""
        accepted = {
            p.name
            for p in inspect.signature(factory).parameters.values()
            if p.kind is p.KEYWORD_ONLY and p.name != "device"
        }
        for option in self.options:
            if option not in accepted:
                raise IconbenchError(
                    f"{path()}: backend {self.name!r}: unknown option {option!r} of "
                    f"make_custom_dace_backend; choose from: {', '.join(sorted(accepted))}"
                )

    def describe(self) -> str:
        """``auto_optimize=False`` style, for listings and result files.

        >>> BackendVariant("x", "gpu", {"auto_optimize": False, "optimization_args":
        ...     {"gpu_block_size": [64, 4, 1]}}).describe()
        'auto_optimize=False optimization_args={gpu_block_size=[64, 4, 1]}'
        """

        def show(value: Any) -> str:
            if isinstance(value, dict):
                return "{" + ", ".join(f"{k}={show(v)}" for k, v in value.items()) + "}"
            return repr(value) if isinstance(value, str) else str(value)

        return " ".join(f"{k}={show(v)}" for k, v in self.options.items())


def path() -> pathlib.Path:
    """The file the variants are read from."""
    return pathlib.Path(os.environ.get(ENV_VAR) or DEFAULT_FILE)


@functools.cache
def _read(file: pathlib.Path) -> dict[str, BackendVariant]:
    if not file.exists():
        return {}
    try:
        data = tomllib.loads(file.read_text())
    except tomllib.TOMLDecodeError as error:
        raise IconbenchError(f"{file}: invalid TOML ({error}); fix the file") from None
    if data.pop("version", None) != 1:
        raise IconbenchError(f"{file}: key 'version': expected 1")
    found = {}
    for name, entry in data.items():
        if not isinstance(entry, dict) or entry.get("device") not in ("cpu", "gpu"):
            raise IconbenchError(f'{file}: [{name}]: device must be "cpu" or "gpu"')
        if not name.startswith("dace_"):
            raise IconbenchError(f"{file}: [{name}]: a DaCe variant's name starts with 'dace_'")
        options = entry.get("options", {})
        if not isinstance(options, dict):
            raise IconbenchError(f"{file}: [{name}].options: expected a table")
        found[name] = BackendVariant(name, entry["device"], options, entry.get("description", ""))
    return found


def variants() -> dict[str, BackendVariant]:
    """Every variant of the file (empty without a file)."""
    return _read(path())


def options_of(names: Iterable[str]) -> dict[str, dict[str, Any]]:
    """The options of each named variant among ``names`` (icon4py's own backends: none)."""
    table = variants()
    return {name: table[name].options for name in names if name in table}
