"""Backend names -> gt4py backends, exactly as icon4py builds them.

icon4py's ``model_backends.BACKENDS`` maps names (``gtfn_cpu``, ``dace_gpu``, ...) to backend
descriptors that ``model_options.customize_backend`` turns into backends, applying the
per-program options ICON itself uses. Benchmarks must run the same code ICON runs, so this
module only adds the named DaCe configurations users compare (without auto-optimization,
other block sizes...), read from the file they edit, ``backends.toml`` at the repository root
(:mod:`iconbench.programs.backend_variants`).

A name is resolved once into a :class:`Backend` (:func:`backend`): its device, the icon4py
backend it derives from, its options and the clock that times it. Code that needs to know
whether a backend runs on a GPU asks that value, never the spelling of the name: the variants'
names (``dace_gpu_noauto``) do not end in ``_gpu``.
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import importlib.util
import pathlib
from collections.abc import Mapping
from typing import Any, Literal

from iconbench.errors import IconbenchError
from iconbench.programs.backend_variants import variants

Device = Literal["cpu", "gpu"]

#: icon4py's own backends by device (``embedded`` runs numpy on the host).
_ICON4PY_DEVICES: dict[str, Device] = {
    "embedded": "cpu",
    "gtfn_cpu": "cpu",
    "dace_cpu": "cpu",
    "cpu": "cpu",
    "gtfn_gpu": "gpu",
    "dace_gpu": "gpu",
    "gpu": "gpu",
}


@dataclasses.dataclass(frozen=True)
class Backend:
    """One backend name, resolved: what it runs on, what it derives from, how it is timed.

    ``base`` is the icon4py backend the name configures (``dace_gpu`` for the variants of
    ``backends.toml`` on a GPU, the name itself for icon4py's own); ``options`` are the
    variant's keyword arguments of ``make_custom_dace_backend`` (empty for icon4py's own).

    >>> b = backend("dace_gpu_noauto")
    >>> b.base, b.device, b.on_gpu, dict(b.options)
    ('dace_gpu', 'gpu', True, {'auto_optimize': False})
    >>> backend("embedded").is_embedded, backend("gtfn_cpu").on_gpu
    (True, False)
    """

    name: str
    base: str
    device: Device
    options: Mapping[str, Any] = dataclasses.field(default_factory=dict, hash=False)
    description: str = ""

    @property
    def on_gpu(self) -> bool:
        """Whether the programs run on a GPU (fields allocated by cupy)."""
        return self.device == "gpu"

    @property
    def is_dace(self) -> bool:
        """Whether gt4py's DaCe backend builds the programs (icon4py's or a variant of it).

        >>> backend("dace_gpu_noauto").is_dace, backend("gtfn_gpu").is_dace
        (True, False)
        """
        return self.base in ("dace_cpu", "dace_gpu")

    @property
    def is_embedded(self) -> bool:
        """Whether this is gt4py's embedded (Python) execution: nothing compiled."""
        return self.name == "embedded"


def backend(name: str) -> Backend:
    """The :class:`Backend` called ``name``; unknown names fail with the valid ones.

    >>> backend("dace_gpu_block64x4").on_gpu, backend("dace_cpu_noauto").on_gpu
    (True, False)
    """
    if (variant := variants().get(name)) is not None:
        device: Device = "gpu" if variant.device == "gpu" else "cpu"
        return Backend(name, f"dace_{device}", device, variant.options, variant.description)
    if name not in known_names():
        raise IconbenchError(f"unknown backend {name!r}; choose one of: {', '.join(known_names())}")
    # a backend icon4py added since this table was written: its name says its device
    return Backend(name, name, _ICON4PY_DEVICES.get(name, "gpu" if "gpu" in name else "cpu"))


def on_gpu(name: str) -> bool:
    """Whether the backend ``name`` runs on a GPU (a name not known here: whether it says ``gpu``).

    For names read from results, which may come from another iconbench's backends.

    >>> on_gpu("gtfn_gpu"), on_gpu("dace_cpu"), on_gpu("dace_gpu_from_elsewhere")
    (True, False, True)
    """
    try:
        return backend(name).on_gpu
    except IconbenchError:
        return "gpu" in name


def names() -> list[str]:
    """Every backend name :func:`resolve` accepts."""
    return list(known_names())


def known_names() -> tuple[str, ...]:
    """Every backend name, read from icon4py's source without importing gt4py (milliseconds).

    The CLI checks the names a user gives before any work starts; importing
    ``model_backends`` imports gt4py (15-30 s). The keys of its ``BACKENDS = {...}`` literal
    are read with :mod:`ast`; when that literal is not found (a changed upstream), the module
    is imported after all. The DaCe variants of ``backends.toml`` follow.

    >>> known_names()[:3]
    ('embedded', 'gtfn_cpu', 'gtfn_gpu')
    """
    return (*_icon4py_names(), *variants())


@functools.cache
def _icon4py_names() -> tuple[str, ...]:
    """The keys of icon4py's ``model_backends.BACKENDS``, by :mod:`ast` where possible."""
    spec = importlib.util.find_spec("icon4py.model.common.model_backends")
    keys: list[str] | None = None
    if spec is not None and spec.origin:
        keys = _literal_keys(pathlib.Path(spec.origin), "BACKENDS")
    if keys is None:
        from icon4py.model.common import model_backends

        keys = list(model_backends.BACKENDS)
    return tuple(keys)


def _literal_keys(path: pathlib.Path, variable: str) -> list[str] | None:
    """The string keys of the dict literal assigned to ``variable`` at the top of ``path``."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (OSError, SyntaxError, UnicodeDecodeError):
        return None
    for node in tree.body:
        target = node.target if isinstance(node, ast.AnnAssign) else None
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
        value = getattr(node, "value", None)
        if isinstance(target, ast.Name) and target.id == variable and isinstance(value, ast.Dict):
            keys = [k.value for k in value.keys if isinstance(k, ast.Constant)]
            if keys and all(isinstance(k, str) for k in keys):
                return keys
    return None


def descriptor(name: str) -> dict[str, Any] | None:
    """icon4py's backend descriptor for ``name`` (``None`` for embedded)."""
    from icon4py.model.common import model_backends

    if name in model_backends.BACKENDS:
        like = model_backends.BACKENDS[name]
        return None if like is None else dict(like)  # type: ignore[arg-type]
    if (variant := variants().get(name)) is not None:
        variant.check_options(model_backends.make_custom_dace_backend)
        return {
            "backend_factory": model_backends.make_custom_dace_backend,
            "device": model_backends.GPU if variant.device == "gpu" else model_backends.CPU,
            **variant.options,
        }
    raise IconbenchError(f"unknown backend {name!r}; choose one of: {', '.join(known_names())}")


def resolve(name: str, program: Any = None) -> Any:
    """The gt4py backend of ``name`` (``None`` for embedded).

    With ``program``, icon4py's per-program options apply (``customize_backend``), as in the
    granules' ``setup_program``; without, the backend is the descriptor's plain factory.
    Its translations are keyed by what the program computes, not by where its source lies
    (:mod:`iconbench.buildcache.translations`).
    """
    from iconbench.buildcache import translations

    translations.install()
    like = descriptor(name)
    if like is None:
        return None
    if program is not None:
        from icon4py.model.common import model_options

        return model_options.customize_backend(program, like)
    return _plain_backend(name)


@functools.cache
def _plain_backend(name: str) -> Any:
    from icon4py.model.common import model_backends

    like = descriptor(name)
    assert like is not None
    factory = like.pop("backend_factory", model_backends.make_custom_dace_backend)
    return factory(**like)


def available(name: str) -> tuple[bool, str]:
    """Whether ``name`` can run here, and why not (GPU backends need cupy and a device)."""
    descriptor(name)  # unknown names raise
    if not backend(name).on_gpu:
        return True, ""
    try:
        import cupy
    except ImportError:
        return False, "cupy is not installed"
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as error:  # any CUDA failure means: no device
        return False, f"no CUDA device ({error})"
    return (count > 0, "" if count > 0 else "no CUDA device")


def allocator(name: str) -> Any:
    """The field allocator of ``name`` (numpy for embedded and CPU, cupy for GPU backends)."""
    from icon4py.model.common import model_backends

    return model_backends.get_allocator(descriptor(name))
