"""The benchmark parameter space, generated from the program catalog, and preparing one case.

asv imports ``benchmarks/`` to discover the suite, so everything at import time here must be
cheap: :func:`case_ids` only lists names. Grids are generated, inputs allocated and programs
compiled (or loaded from the persistent cache) on first use, once per process
(:func:`prepare`), so asv's per-sample ``setup`` costs a dictionary lookup.

The parameter space is ``case × backend × grid``; environment variables narrow it for asv,
which has no other way to pass options to a suite:

- ``ICONBENCH_BACKENDS`` (comma list, default ``embedded,gtfn_cpu``)
- ``ICONBENCH_GRID`` (comma list of grid presets, default ``tiny``)
- ``ICONBENCH_PROGRAMS`` (regex on case ids, default all)
- ``ICONBENCH_SHARD`` (``i/n``, see :mod:`iconbench.timing.sharding`)
"""

from __future__ import annotations

import dataclasses
import functools
import gc
import os
import pathlib
import re
import time
from collections.abc import Callable, Sequence
from typing import Any

from iconbench import collector
from iconbench.errors import IconbenchError
from iconbench.grids.grid import Grid, resolve
from iconbench.programs.backends import Backend
from iconbench.programs.backends import backend as resolved_backend
from iconbench.programs.catalog import split_case
from iconbench.programs.drawn_fields import DrawnFieldsCache
from iconbench.timing import codegen
from iconbench.timing.sharding import parse_shard, select_shard

DEFAULT_BACKENDS: tuple[str, ...] = ("embedded", "gtfn_cpu")
GPU_BACKENDS: tuple[str, ...] = ("gtfn_gpu", "dace_gpu")
DEFAULT_GRID = "tiny"

#: Until the catalog lands, the one program the harness is developed against.
FALLBACK_CASES: tuple[str, ...] = ("compute_tangential_wind[default]",)


@functools.cache
def _has_catalog() -> bool:
    """Whether the catalog, input builder and backend registry are in use (they are shipped).

    ``ICONBENCH_CATALOG=0`` forces the built-in reference program (tests of the harness that
    must not depend on the catalog). A catalog that fails to import is one line naming the
    error, not a silent fall-back: that once turned a measuring worker whose iconbench sources
    were being rewritten under it into "grid ... needs the program catalog".
    """
    if os.environ.get("ICONBENCH_CATALOG") == "0":
        return False
    try:
        from iconbench.programs import backends, catalog, inputs  # noqa: F401
    except ImportError as error:
        raise IconbenchError(
            f"iconbench's program catalog (iconbench.programs) does not import: {error}; "
            "check that iconbench's sources are complete and first on PYTHONPATH"
        ) from None
    return True


@functools.cache
def all_case_ids() -> tuple[str, ...]:
    """Every ``program[variant]`` of the catalog (cheap: no grids, no compilation)."""
    if os.environ.get("ICONBENCH_CATALOG") != "0":
        from iconbench.programs import caseindex

        # the recorded list of this icon4py: no gt4py import, no discovery (14 s on 2 cores)
        if (known := caseindex.case_ids()) is not None:
            return tuple(known)
    if _has_catalog():
        from iconbench.programs import caseindex, catalog

        cases = catalog.case_ids(catalog.discover())
        caseindex.record(cases)  # the CLI checks --programs against it without gt4py
        return tuple(cases)
    return FALLBACK_CASES


def first_variants(cases: list[str]) -> list[str]:
    """One case per program: its first variant (a quick cross-section of the catalog).

    >>> first_variants(["a[x]", "a[y]", "b[default]"])
    ['a[x]', 'b[default]']
    """
    seen: set[str] = set()
    chosen = []
    for case in cases:
        program, _ = split_case(case)
        if program not in seen:
            seen.add(program)
            chosen.append(case)
    return chosen


def case_ids(
    pattern: str | None = None,
    shard: tuple[int, int] | None = None,
    *,
    one_variant: bool | None = None,
    cost: Callable[[str], float] | None = None,
) -> list[str]:
    """Case ids matching ``pattern`` (regex search), restricted to ``shard``.

    ``cost`` balances the shards by time (:func:`iconbench.timing.sharding.ledger_cost`;
    ``None``: by count). Called without a pattern (the asv suite, which has no other way to
    take options), the defaults come from ``ICONBENCH_PROGRAMS``, ``ICONBENCH_SHARD``,
    ``ICONBENCH_ONE_VARIANT=1`` (first variant of each program only) and
    ``ICONBENCH_SHARD_LEDGERS=DIR`` (a runner's ``work/``: shards balanced by time).
    """
    from_environment = pattern is None
    if from_environment:
        pattern = os.environ.get("ICONBENCH_PROGRAMS", "")
        if one_variant is None:
            one_variant = os.environ.get("ICONBENCH_ONE_VARIANT", "") not in ("", "0")
        if shard is None and os.environ.get("ICONBENCH_SHARD"):
            shard = parse_shard(os.environ["ICONBENCH_SHARD"])
        if (
            shard is not None
            and cost is None
            and (work := os.environ.get("ICONBENCH_SHARD_LEDGERS"))
        ):
            from iconbench.timing.sharding import ledger_cost

            cost = ledger_cost(work, selected_backends())
    everything = list(all_case_ids())
    if one_variant:
        everything = first_variants(everything)
    selected = select(
        pattern or "", everything, what="ICONBENCH_PROGRAMS" if from_environment else ""
    )
    return select_shard(selected, shard, cost=cost)


def matches(pattern: str, case: str) -> bool:
    """Whether the regex ``pattern`` selects ``case``.

    It is searched in the case id ``program[variant]`` and in the program name (so
    ``^name$`` selects every variant).

    >>> matches("wind", "compute_tangential_wind[default]")
    True
    >>> matches("^compute_tangential_wind$", "compute_tangential_wind[default]")
    True
    >>> matches("rayleigh_type=2", "apply_rayleigh_damping_mechanism[default]")
    False
    """
    return bool(re.search(pattern, case) or re.search(pattern, case.split("[", 1)[0]))


def select(pattern: str, cases: Sequence[str], *, what: str = "") -> list[str]:
    """The ``cases`` the regex ``pattern`` selects (:func:`matches`; ``""``: all of them).

    A selection of no case would measure nothing and pass (a green check of a typo), so it
    is an error that names the nearest program names. ``what`` names where the pattern came
    from in that line (default ``--programs``).

    >>> select("tangential", ["compute_tangential_wind[default]", "mo_x[default]"])
    ['compute_tangential_wind[default]']
    >>> select("compute_tangentail_wind", ["compute_tangential_wind[default]", "mo_x[a=1]"])
    Traceback (most recent call last):
    ...
    iconbench.errors.IconbenchError: --programs 'compute_tangentail_wind' matches none of the \
2 cases; nearest program names: compute_tangential_wind; 'iconbench programs' lists them
    """
    selected = [case for case in cases if not pattern or matches(pattern, case)]
    if cases and not selected:
        names = list(dict.fromkeys(split_case(case)[0] for case in cases))
        near = nearest_names(pattern, names)
        hint = f"nearest program names: {', '.join(near)}" if near else "no program name is close"
        raise IconbenchError(
            f"{what or '--programs'} {pattern!r} matches none of the {len(cases)} cases; "
            f"{hint}; 'iconbench programs' lists them"
        )
    return selected


def nearest_names(pattern: str, names: Sequence[str], count: int = 3) -> list[str]:
    """The ``names`` closest to the words of the regex ``pattern`` (:mod:`difflib`).

    Each alternative of the pattern (``a|b``) without its regex syntax is compared with the
    whole names; a word of it (``tangentail``) with the words of the names, which then stand
    for the names that contain them.

    >>> names = ["compute_tangential_wind", "apply_diffusion_to_vn", "apply_diffusion_to_w"]
    >>> nearest_names("^compute_tangentail_wind$", names)
    ['compute_tangential_wind']
    >>> nearest_names("difusion_to_w|tangentail", names)
    ['apply_diffusion_to_w', 'apply_diffusion_to_vn', 'compute_tangential_wind']
    >>> nearest_names("xyz", names)
    []
    """
    import difflib

    found: list[str] = []
    by_word: dict[str, list[str]] = {}
    for name in names:
        for word in name.split("_"):
            by_word.setdefault(word, []).append(name)
    for alternative in pattern.split("|"):
        words = re.findall(r"[A-Za-z0-9_]+", re.sub(r"\\.", " ", alternative))
        whole = "_".join(words)
        near = difflib.get_close_matches(whole, names, n=count)
        if not near:
            for word in (w for part in words for w in part.split("_") if len(w) >= 4):
                for close in difflib.get_close_matches(word, by_word, n=1, cutoff=0.8):
                    near += by_word[close][:count]
        found += near
    return list(dict.fromkeys(found))[:count]


def selected_backends() -> list[str]:
    """Backends from ``ICONBENCH_BACKENDS`` (default: embedded, gtfn_cpu)."""
    text = os.environ.get("ICONBENCH_BACKENDS", "")
    return [b.strip() for b in text.split(",") if b.strip()] or list(DEFAULT_BACKENDS)


def selected_grids() -> list[str]:
    """Grid presets from ``ICONBENCH_GRID`` (default: tiny)."""
    text = os.environ.get("ICONBENCH_GRID", "")
    return [g.strip() for g in text.split(",") if g.strip()] or [DEFAULT_GRID]


def resolve_backend(name: str) -> Any:
    """The gt4py backend object for ``name`` (``None`` for embedded)."""
    if _has_catalog():
        from iconbench.programs import backends

        return backends.resolve(name)
    from icon4py.model.common import model_backends

    from iconbench.buildcache import translations

    translations.install()
    if name not in model_backends.BACKENDS:
        raise IconbenchError(
            f"unknown backend {name!r}; choose one of: {', '.join(model_backends.BACKENDS)}"
        )
    like = model_backends.BACKENDS[name]
    if like is None:
        return None
    return like["backend_factory"](**like)


def as_grid(grid: Grid | str) -> Grid:
    """``grid`` as a :class:`~iconbench.grids.Grid` (a string names a preset).

    The runner hands the grid it resolved at its command line; asv's parameters and the
    commands outside the runner (``verify``, ``granules``) name a preset.

    >>> as_grid("tiny") == as_grid(as_grid("tiny"))
    True
    """
    return grid if isinstance(grid, Grid) else resolve(grid)


def as_backend(backend: Backend | str) -> Backend:
    """``backend`` as a :class:`~iconbench.programs.backends.Backend` (a string names one).

    The runner hands the backends it resolved at its command line; asv's parameters, a job
    pair read from a ledger and the commands outside the runner name one.

    >>> as_backend("gtfn_cpu") == as_backend(as_backend("gtfn_cpu"))
    True
    """
    return backend if isinstance(backend, Backend) else resolved_backend(backend)


_GRIDS: dict[tuple[Grid, bool], Any] = {}


def generated_grid(grid: Grid | str, backend: Backend | str | None = None) -> Any:
    """``grid`` built once per process (:meth:`Grid.generate`): one host copy, one GPU copy.

    For a GPU ``backend`` the neighbour tables live on the GPU: compiled GPU programs read
    them by pointer (gtfn checks the device only in an ``assert``, gone under ``-O``), so host
    tables would be paged over the bus inside the timed call. Every GPU backend allocates on
    the same device, so they share the GPU copy.
    """
    grid = as_grid(grid)
    resolved = None if backend is None else as_backend(backend)
    on_gpu = resolved is not None and resolved.on_gpu
    if (grid, on_gpu) not in _GRIDS:
        allocator = None
        if resolved is not None and on_gpu:
            from iconbench.programs import backends

            allocator = backends.allocator(resolved.name)
        _GRIDS[grid, on_gpu] = grid.generate(allocator=allocator)
    return _GRIDS[grid, on_gpu]


@dataclasses.dataclass
class PreparedCase:
    """A compiled program with its inputs, ready to be called in a timing loop."""

    case: str
    backend: Backend
    grid: Grid
    program: Any
    kwargs: dict[str, Any]
    offset_provider: dict[str, Any]
    bytes_moved: int
    #: Seconds to compile or load the program in this process (from the persistent cache
    #: when the precompile step ran first).
    load_s: float
    #: The compiled variant in gt4py's build cache (``None`` for embedded)
    build: codegen.Build | None = None
    #: The model that counted ``bytes_moved`` (``None``: the reference call's own count)
    bytes_model: int | None = None

    @property
    def fingerprint(self) -> str | None:
        """Hash of the generated code this case runs (:mod:`iconbench.timing.codegen`)."""
        return self.build.fingerprint if self.build else None

    @property
    def on_gpu(self) -> bool:
        """Whether the program runs on a GPU."""
        return self.backend.on_gpu

    def __call__(self) -> None:
        self.program(**self.kwargs, offset_provider=self.offset_provider)

    def call_and_sync(self) -> Callable[[], None]:
        """A call that returns only when the device is done (host timers need that)."""
        if not self.on_gpu:
            return self.__call__
        import cupy

        synchronize = cupy.cuda.runtime.deviceSynchronize

        def call() -> None:
            self()
            synchronize()

        return call


def minimum_bytes(case: str, grid: Grid | str) -> int:
    """Bytes ``case`` must at least move on ``grid`` (today's model; no fields made).

    >>> minimum_bytes("compute_tangential_wind[default]", "tiny") > 0
    True
    """
    from iconbench.programs import catalog, inputs

    spec, variant = catalog.lookup(case)
    return inputs.minimum_bytes_on(spec, variant, generated_grid(grid))


def reference_call(program_name: str, backend_obj: Any) -> tuple[Any, dict, dict, dict, int]:
    """The reference program (compute_tangential_wind) on icon4py's simple grid.

    Independent of the catalog: used when it is absent and by the harness's own tests.
    Returns (program, kwargs, static args, offset provider, bytes moved).
    """
    import gt4py.next as gtx
    from icon4py.model.atmosphere.dycore.stencils import compute_tangential_wind as module
    from icon4py.model.common import dimension as dims
    from icon4py.model.common.grid import simple
    from icon4py.model.common.utils import data_allocation as data_alloc

    if program_name != "compute_tangential_wind":
        raise IconbenchError(f"unknown program {program_name!r} (no catalog yet)")
    allocator = backend_obj if backend_obj is not None else None
    grid = simple.simple_grid(allocator=allocator, num_levels=10)
    vn = data_alloc.random_field(grid, dims.EdgeDim, dims.KDim, allocator=allocator)
    rbf = data_alloc.random_field(grid, dims.EdgeDim, dims.E2C2EDim, allocator=allocator)
    vt = data_alloc.zero_field(grid, dims.EdgeDim, dims.KDim, allocator=allocator)
    kwargs = {
        "vn": vn,
        "rbf_vec_coeff_e": rbf,
        "vt": vt,
        "horizontal_start": gtx.int32(0),
        "horizontal_end": gtx.int32(grid.num_edges),
        "vertical_start": gtx.int32(0),
        "vertical_end": gtx.int32(grid.num_levels),
    }
    nbytes = sum(f.ndarray.nbytes for f in (vn, rbf, vt))
    return module.compute_tangential_wind, kwargs, {}, dict(grid.connectivities), nbytes


def _build(
    case: str, backend: Backend, grid: Grid, *, fields: bool = True, bound: bool = True
) -> tuple[Any, dict, dict, dict, int]:
    """(program bound to backend, kwargs, static args, offset provider, bytes moved).

    ``fields=False``: no fields (for compiling: static arguments and neighbour tables suffice).
    ``bound=False``: the program is left out (``None``), for a caller that has it loaded
    already (:func:`prepare`). Binding it to the backend makes gt4py fingerprint its definition
    (the source of every operator it calls, read and tokenized): on the H100 host
    (2026-11-27, mch_icon-ch1_medium) 40-116 ms a case against 2.0-4.7 ms without
    (``results/case-inputs/h100-2026-11-27.json``), for a program that was then dropped.
    The fields are drawn once per program, backend and grid in a process (within
    :data:`_DRAWN`'s budget) and shared by the program's static variants
    (:mod:`iconbench.programs.drawn_fields`).
    On a GPU, fields are drawn on the device (:class:`iconbench.programs.inputs.DeviceRandom`)
    and the neighbour tables are the GPU ones also when compiling: gt4py's persistent
    translation cache is keyed by the tables themselves, so a program compiled with host
    tables is translated again (seconds to a minute) when first called with device tables.
    """
    backend_obj = resolve_backend(backend.name)
    program_name, _ = split_case(case)
    if _has_catalog():
        from iconbench.programs import catalog, inputs

        spec, variant = catalog.lookup(case)
        drawn_key = (spec.name, backend, grid)
        drawn = _DRAWN.for_key(drawn_key) if fields else None
        call = inputs.build(
            spec,
            variant,
            generated_grid(grid, backend),
            backend=backend,
            seed=0,
            fields=fields,
            device_values=backend.on_gpu,
            drawn=drawn,
        )
        if drawn is not None:
            _DRAWN.store(drawn_key, drawn)
        program = spec.program
        static = dict(getattr(call, "static_args", {}) or {})
        kwargs = {**call.kwargs, **static}
        offsets, nbytes = dict(call.offset_provider), int(call.bytes_moved)
    else:
        if grid.name != DEFAULT_GRID:
            raise IconbenchError(
                f"grid {grid.name!r} needs the program catalog (not available yet)"
            )
        program, kwargs, static, offsets, nbytes = reference_call(program_name, backend_obj)
    program = program.with_backend(backend_obj) if bound else None
    return program, kwargs, static, offsets, nbytes


def build_cache_dir() -> pathlib.Path:
    """gt4py's build-cache directory in effect (builds are recorded relative to it)."""
    from gt4py.next import config

    return pathlib.Path(config.BUILD_CACHE_DIR)


def build_cache_version() -> str:
    """The version gt4py names its build folders by here (its own, unless overridden)."""
    from gt4py.next import config

    return config.BUILD_CACHE_VERSION_ID


def _compile(program: Any, static: dict, offsets: dict, backend: Backend) -> codegen.Build | None:
    """Compile (or load from the persistent cache) ``program``'s one variant; return its build."""
    if backend.is_embedded:
        return None
    artifacts = _artifacts(program, static, offsets)
    builds = [codegen.of_artifact(artifact, build_cache_dir()) for artifact in artifacts]
    return builds[-1] if builds else None


def _artifacts(program: Any, static: dict, offsets: dict) -> list[Any]:
    """gt4py's compilation artifacts of ``program``'s one variant (compiled or loaded)."""
    import gt4py.next as gtx

    with codegen.recording() as artifacts:
        program.compile(offset_provider=offsets, **{k: [v] for k, v in static.items()})
        # gt4py 1.2 compiles asynchronously (a process pool): wait, or the time measured here
        # is only the submission and the first timed call would pay for the compilation.
        gtx.wait_for_compilation()
    return artifacts


def compilation_artifact(case: str, backend: Backend | str, grid: Grid | str) -> Any:
    """The compilation artifact of ``case`` on ``backend`` (from the cache, else compiled)."""
    backend = as_backend(backend)
    if backend.is_embedded:
        raise IconbenchError(f"{backend.name} generates no code: nothing to compare")
    program, _kwargs, static, offsets, _ = _build(case, backend, as_grid(grid), fields=False)
    artifacts = _artifacts(program, static, offsets)
    if not artifacts:
        raise IconbenchError(
            f"{case} on {backend.name}: gt4py reported no compilation (this gt4py has no "
            "compilation-runner seam)"
        )
    return artifacts[-1]


_PREPARED: dict[tuple[str, Backend, Grid], PreparedCase] = {}
#: Input fields as drawn, by (program, backend, grid), for the program's other static variants.
_DRAWN = DrawnFieldsCache()
#: Programs loaded ahead of their inputs (:func:`preload`): program, load seconds, build.
_LOADED: dict[tuple[str, Backend, Grid], tuple[Any, float, codegen.Build | None]] = {}


def preload(case: str, backend: Backend | str, grid: Grid | str) -> None:
    """Load (or compile) ``case``'s program now, its inputs later in :func:`prepare`.

    The inputs' host-side part that a process computes once (the grid's orography) is
    computed now too (:func:`_host_inputs`).

    A worker of an interleaved check loads its programs while another worker measures: the
    seconds a DaCe program takes to load from the cache are then not spent on the device's
    time, and no input field is drawn on the device meanwhile. The program is kept for the
    process's life, so its objects are moved out of the garbage collector's way
    (:func:`keep_loaded`).
    """
    grid, backend = as_grid(grid), as_backend(backend)
    key = (case, backend, grid)
    if key in _PREPARED or key in _LOADED:
        return
    program, _kwargs, static, offsets, _ = _build(case, backend, grid, fields=False)
    start = time.perf_counter()
    with collector.fewer_collections():
        build = _compile(program, static, offsets, backend)
    _LOADED[key] = (program, time.perf_counter() - start, build)
    _host_inputs(case, backend, grid)
    keep_loaded()


def _host_inputs(case: str, backend: Backend, grid: Grid) -> None:
    """What ``case``'s inputs compute on the host once per process, computed now.

    The grid's orography (:meth:`iconbench.programs.overrides.Context.orography`): on
    mch_icon-ch1_medium 2.3-3.8 s of numpy that the first case reading it paid inside its
    measuring turn, in every process of the check (one H100 host, 2026-11-27: 16 of 16
    processes of the heavy check, 38 s of its 117 s of measuring). It stays for the process's
    life, like the program: frozen with it (:func:`keep_loaded`).
    """
    if not _has_catalog():
        return
    from iconbench.programs import catalog, overrides

    spec, _variant = catalog.lookup(case)
    if overrides.reads_orography(spec.name, (param.name for param in spec.params)):
        overrides.Context.of(generated_grid(grid, backend)).orography()


def keep_loaded() -> None:
    """Collect what is garbage now, then freeze the rest (``gc.freeze``).

    Every case is measured after a full collection (``timing.measurement.measure``) and
    released with one (``timing.isolation.gpu_memory_in_use``). A full collection walks every
    tracked object, and a loaded program is hundreds of thousands of them that never become
    garbage: a DaCe program's (``compute_rho_theta_pgrad_and_update_vn`` on ``dace_cpu``, 330 000
    objects) took each collection 0.13 s on a CPU host, and the loaded programs stay for the
    rest of the process. Frozen, they are no longer walked: the same collection takes under a
    millisecond. The inputs are drawn after this (:func:`prepare`), so a case's fields stay
    collectable.

    >>> import gc
    >>> before = gc.get_freeze_count()
    >>> kept = [[i] for i in range(1000)]
    >>> keep_loaded(); gc.get_freeze_count() >= before + 1000
    True
    """
    gc.collect()
    gc.freeze()


def prepare(case: str, backend: Backend | str, grid: Grid | str) -> PreparedCase:
    """Build inputs and compile (or load) ``case`` for ``backend`` on ``grid``, once per process."""
    grid, backend = as_grid(grid), as_backend(backend)
    key = (case, backend, grid)
    if key not in _PREPARED:
        preload(case, backend, grid)  # the program first: its objects frozen, not the fields
        program, load_s, build = _LOADED.pop(key)
        _, kwargs, _, offsets, nbytes = _build(case, backend, grid, bound=False)
        _PREPARED[key] = PreparedCase(
            case, backend, grid, program, kwargs, offsets, nbytes, load_s, build,
            _bytes_model(),
        )  # fmt: skip
    return _PREPARED[key]


def _bytes_model() -> int | None:
    """The version of the byte count :func:`_build` used (the catalog's model, if present)."""
    if not _has_catalog():
        return None
    from iconbench.programs.inputs import MINIMUM_BYTES_MODEL

    return MINIMUM_BYTES_MODEL


def forget(case: str, backend: Backend | str, grid: Grid | str) -> None:
    """Drop a prepared case (frees its device memory before the next one)."""
    _PREPARED.pop((case, as_backend(backend), as_grid(grid)), None)


def compile_case(
    case: str, backend: Backend | str, grid: Grid | str
) -> tuple[float, codegen.Build | None]:
    """Compile ``case`` for ``backend`` into the persistent cache; wall seconds and the build."""
    from iconbench.timing import sdfg_identity

    backend = as_backend(backend)
    program, _kwargs, static, offsets, _ = _build(case, backend, as_grid(grid), fields=False)
    start = time.perf_counter()
    # a DaCe build equal to one in the cache is linked, not built
    with sdfg_identity.reusing(), collector.fewer_collections():
        build = _compile(program, static, offsets, backend)
    return time.perf_counter() - start, build
