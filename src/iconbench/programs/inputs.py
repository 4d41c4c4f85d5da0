"""Inputs for one program call, derived from its signature and a generated grid.

Every field gets a value from :func:`field_values` (by name: positive and plausible for
``rho``/``exner``/``theta_v``/lengths/areas, signed elsewhere; masks with a realistic density,
vertical offsets that stay inside the column), every scalar from its name (physical constants
from icon4py, ICON namelist defaults) and every start/end index from the grid's zones as the
granule that calls the program passes them (:mod:`iconbench.programs.overrides`). Random
values use a fixed seed per (program, parameter), so two builds are identical.

All fields with a vertical dimension get ``nlev + 1`` levels: ICON keeps half-level fields at
``nlev + 1`` and full-level fields at ``nlev``, and which is which is not in the signature; a
program only touches the levels of its ``domain=``, so the extra level is never computed.

:attr:`ProgramCall.bytes_moved` (:func:`minimum_bytes`) counts each field once, and only the
part inside the program's ``domain=``: programs that write one level or the halo would
otherwise show bandwidths of 40 and 1300 times the GPU's peak.
"""

from __future__ import annotations

import dataclasses
import math
import re
import zlib
from typing import Any

import numpy as np

from iconbench.errors import IconbenchError
from iconbench.programs import backends, overrides
from iconbench.programs.catalog import DomainBound, Param, ProgramSpec, Variant
from iconbench.programs.drawn_fields import DrawnFields

#: The version of :func:`minimum_bytes`, kept with each measured case: the asv step counts the
#: bytes of older cases again (a slow count, seconds a program) and takes newer ones as they
#: are. Raise it with every change of what :func:`minimum_bytes` counts.
MINIMUM_BYTES_MODEL = 2


@dataclasses.dataclass
class ProgramCall:
    """Everything needed to call a program: ``spec.program(**kwargs, **static_args, ...)``."""

    program: str
    variant: str
    #: Every argument except the static ones (fields allocated with the backend's allocator).
    kwargs: dict[str, Any]
    #: Compile-time arguments: the variant's, and for programs a granule calls also the domain
    #: bounds and constant scalars it passes (``setup_program`` compiles all of them in).
    static_args: dict[str, Any]
    outputs: tuple[str, ...]
    #: Outputs that are also read (updated in place).
    in_out: tuple[str, ...]
    #: Minimum bytes moved: each field read or written once, in-out fields twice.
    bytes_moved: int
    offset_provider: dict[str, Any]
    #: Where each argument's value came from (``override: <call site>`` or ``default``).
    provenance: dict[str, str]
    #: Whether the program's index arguments come from a reviewed granule call site.
    reviewed: bool
    _initial: dict[str, Any] = dataclasses.field(default_factory=dict, repr=False)

    def arguments(self) -> dict[str, Any]:
        """All arguments, static ones included (how icon4py's granules call the program)."""
        return {**self.kwargs, **self.static_args}

    def reset(self) -> None:
        """Restore every output to its initial value, so repeated calls start alike."""
        for name, initial in self._initial.items():
            self.kwargs[name].ndarray[...] = initial

    def copy(self) -> ProgramCall:
        """An independent call: outputs copied, read-only inputs shared."""
        kwargs = dict(self.kwargs)
        for name in self.outputs:
            field = kwargs[name]
            kwargs[name] = field.__class__.from_array(field.ndarray.copy(), domain=field.domain)
        return dataclasses.replace(self, kwargs=kwargs)

    def __call__(self, program: Any) -> None:
        """Call ``program`` (the spec's program, bound to a backend) with these arguments."""
        program(**self.arguments(), offset_provider=self.offset_provider)


def _seed_words(program: str, name: str, seed: int) -> list[int]:
    """The seed of one (program, parameter): the same on every machine and run."""
    return [seed, zlib.crc32(f"{program}:{name}".encode())]


def _rng(program: str, name: str, seed: int) -> np.random.Generator:
    return np.random.default_rng(_seed_words(program, name, seed))


class DeviceRandom:
    """The two draws the input rules use (``random``, ``uniform``), from any array generator.

    Big inputs are drawn where they live, on the GPU: NumPy took 17 s for the 6 GB of inputs of
    one granule program on the 284k-cell ``ch2`` grid (about 3 s per GB, 2-core machine).

    Values differ from :func:`_rng`'s (another bit generator): for timing only, never for
    verification, which compares backends on identical inputs.

    >>> draw = DeviceRandom(np.random.default_rng(1))
    >>> values = draw.uniform(250.0, 350.0, size=(1000,))
    >>> bool(values.min() >= 250.0 and values.max() < 350.0), draw.random((3,)).shape
    (True, (3,))
    """

    def __init__(self, generator: Any) -> None:
        self._generator = generator

    @classmethod
    def cupy(cls, program: str, name: str, seed: int) -> DeviceRandom:
        """A cupy generator seeded like :func:`_rng` (deterministic per program and field)."""
        import cupy

        return cls(cupy.random.default_rng(_seed_words(program, name, seed)))

    def random(self, size: tuple[int, ...]) -> Any:
        """Uniform on [0, 1)."""
        return self._generator.random(size)

    def uniform(self, low: float, high: float, size: tuple[int, ...]) -> Any:
        """Uniform on [low, high)."""
        return low + (high - low) * self._generator.random(size)


#: Value ranges by parameter name (first match wins): signed perturbations and tendencies
#: before the positive state variables whose names they contain.
VALUE_RANGES: tuple[tuple[str, tuple[float, float]], ...] = (
    (
        r"(^|_)(pr|perturbed|ddt|tend|incr|increment|grad|gradh|graddiv|dexner|ddz|d2dz2|dwdz)"
        r"(_|$)|_pr_|_pr$|perturbation|^z_th_ddz|tendency|flux|flx|fl_|_fl|advective",
        (-1.0, 1.0),
    ),
    (r"theta", (250.0, 350.0)),
    (r"exner", (0.6, 1.0)),
    (r"rho|airmass", (0.2, 1.3)),
    (r"area", (1.0e6, 4.0e6)),
    (r"^inv_|inverse", (5.0e-4, 2.0e-3)),
    (r"length", (500.0, 2000.0)),
    (r"ddqz|thickness|dz$", (20.0, 500.0)),
    (r"wgt|weight|coeff|fac|nudgecoeff|scal", (0.0, 1.0)),
    (r"^w$|(^|_)w(_|$)|wind|^vn|vt|vn_|vt_", (-10.0, 10.0)),
)


def value_range(name: str) -> tuple[float, float]:
    """Plausible uniform range of a float field called ``name``.

    >>> value_range("theta_v_now"), value_range("exner_pr")
    ((250.0, 350.0), (-1.0, 1.0))
    >>> value_range("rho_ic")
    (0.2, 1.3)
    """
    for pattern, bounds in VALUE_RANGES:
        if re.search(pattern, name):
            return bounds
    return (-1.0, 1.0)


@dataclasses.dataclass(frozen=True)
class Sizes:
    """Horizontal, vertical and neighbour-table sizes of a grid."""

    horizontal: dict[str, int]
    num_levels: int
    local: dict[str, int]

    def shape(self, param: Param, *, full_levels: bool = False) -> tuple[int, ...]:
        """The allocation shape: ``nlev + 1`` levels (``nlev`` with ``full_levels``)."""
        shape = []
        for dim in param.dims:
            if dim in self.horizontal:
                shape.append(self.horizontal[dim])
            elif dim == "K":
                shape.append(self.num_levels + (0 if full_levels else 1))
            elif dim in self.local:
                shape.append(self.local[dim])
            else:
                raise IconbenchError(
                    f"{param.name}: dimension {dim!r} has no size on this grid; "
                    "add its connectivity to the grid"
                )
        return tuple(shape)


def grid_sizes(icon_grid: Any) -> Sizes:
    """Sizes of ``icon_grid`` by dimension name (local dims from its neighbour tables)."""
    local = {}
    for name, connectivity in icon_grid.connectivities.items():
        table = getattr(connectivity, "ndarray", None)
        if table is not None and table.ndim == 2:
            local[name] = int(table.shape[1])
    return Sizes(
        {
            "Cell": icon_grid.num_cells,
            "Edge": icon_grid.num_edges,
            "Vertex": icon_grid.num_vertices,
        },
        icon_grid.num_levels,
        local,
    )


def field_values(
    spec: ProgramSpec,
    param: Param,
    shape: tuple[int, ...],
    context: overrides.Context,
    seed: int,
    *,
    on_device: bool = False,
) -> tuple[Any, str]:
    """Initial values of field ``param`` (host, or drawn on the GPU) and their rule's source."""
    rule = overrides.field_rule(spec.name, param.name)
    rng: Any = (
        DeviceRandom.cupy(spec.name, param.name, seed)
        if on_device
        else _rng(spec.name, param.name, seed)
    )
    if rule is not None:
        return rule.make(shape, rng, context), f"override: {rule.source}"
    if param.dtype == "bool":
        return rng.random(shape) < overrides.DEFAULT_MASK_DENSITY, "default: mask, density 0.5"
    if param.dtype.startswith("int"):
        return np.zeros(shape, dtype=param.dtype), "default: zero offsets"
    low, high = value_range(param.name)
    return rng.uniform(low, high, size=shape).astype(param.dtype), f"default: U({low}, {high})"


#: gt4py 1.2's aligned allocator multiplies the shape as ``np.int32`` (``storage/allocators.py``)
#: and fails with "Negative dimensions are not allowed" from 2 GiB on: Cell x C2E2C x K and
#: Edge x E2C x K fields of a 1M-cell grid.
GT4PY_ALLOCATOR_LIMIT_BYTES = 2**31


def _allocate(values: Any, param: Param, allocator: Any, *, on_gpu: bool = False) -> Any:
    """A field of ``values`` from ``allocator``; past gt4py's 2 GiB limit, from the array module.

    The array module's buffer gets gt4py's own memory layout (its allocators' horizontal-first
    layout map: the horizontal dimension contiguous), without the padding: compiled programs
    check the strides (on the H100, C-ordered 2 GiB fields failed with "static stride in stride
    specification doesn't match dynamic stride" on gtfn_gpu, "Array stride mismatch: expected
    1, got 243" on dace_gpu).
    """
    import gt4py.next as gtx
    from gt4py.next.custom_layout_allocators import horizontal_first_layout_mapper

    if values.nbytes < GT4PY_ALLOCATOR_LIMIT_BYTES:
        return gtx.as_field(param.dimensions, values, dtype=values.dtype, allocator=allocator)
    if on_gpu:
        import cupy as xp
    else:
        xp = np
    layout = horizontal_first_layout_mapper(param.dimensions)  # the largest value: stride 1
    slowest_first = sorted(range(len(layout)), key=layout.__getitem__)
    buffer = xp.empty([values.shape[i] for i in slowest_first], dtype=values.dtype)
    view = buffer.transpose(np.argsort(slowest_first).tolist())
    view[...] = xp.asarray(values)
    # an array namespace as allocator copies in the source's memory order (order "K")
    return gtx.as_field(param.dimensions, view, allocator=xp)


def build(
    spec: ProgramSpec,
    variant: Variant,
    grid: Any,
    *,
    backend: backends.Backend | str | None = None,
    seed: int = 0,
    poison_outputs: bool = False,
    fields: bool = True,
    device_values: bool = False,
    drawn: DrawnFields | None = None,
) -> ProgramCall:
    """The arguments of ``spec`` for ``variant`` on ``grid`` (a :class:`GeneratedGrid`).

    Fields are allocated with ``backend``'s allocator (cupy for GPU backends; a name is
    resolved here, as ``verify`` gives it; ``None``: embedded). With
    ``poison_outputs`` the outputs that are not read are filled with NaN, so a check can see
    which elements a call wrote. ``fields=False`` leaves the fields out (compiling needs only
    the static arguments and the offset provider: no gigabytes for a compile worker).
    ``device_values`` draws random fields on the GPU (:class:`DeviceRandom`, timing on big
    grids) and keeps no copy of the initial outputs (:meth:`ProgramCall.reset` does nothing).
    ``drawn`` holds the fields of another static variant of ``spec`` as drawn
    (:mod:`iconbench.programs.drawn_fields`): its read-only fields are shared, its outputs
    copied, and whatever it lacks is drawn and entered (outputs as a copy of their own). Not
    with ``poison_outputs``, whose outputs are not the drawn values.
    """
    if drawn is not None and poison_outputs:
        raise ValueError("drawn fields hold the drawn outputs, not poisoned ones")
    icon_grid = getattr(grid, "grid", grid)
    sizes = grid_sizes(icon_grid)
    context = overrides.Context.of(grid)
    resolved = backend if isinstance(backend, backends.Backend) else None
    if resolved is None:
        resolved = backends.backend(backend or "embedded")
    allocator = backends.allocator(resolved.name)
    on_gpu = resolved.on_gpu
    kwargs: dict[str, Any] = {}
    provenance: dict[str, str] = {}
    scalar_values, reviewed, compile_time = overrides.scalar_values_and_static(spec, context)
    static_args = dict(variant.static_args)
    in_out = tuple(o for o in spec.outputs if o in spec.reads)
    initial: dict[str, Any] = {}
    for param in spec.params:
        if param.name in variant.static_args:
            continue
        if param.is_field:
            if not fields:
                continue
            output = param.name in spec.outputs
            earlier = drawn.get(param.name) if drawn is not None else None
            if earlier is not None:
                field, source = earlier
                kwargs[param.name] = (
                    _allocate(field.ndarray, param, allocator, on_gpu=on_gpu) if output else field
                )
            else:
                full = param.name in overrides.FULL_LEVEL_FIELDS.get(spec.name, ())
                shape = sizes.shape(param, full_levels=full)
                values, source = field_values(
                    spec, param, shape, context, seed, on_device=device_values
                )
                pure_output = output and param.name not in in_out
                if poison_outputs and pure_output and np.issubdtype(values.dtype, np.floating):
                    values = np.full(shape, np.nan, dtype=values.dtype)
                kwargs[param.name] = _allocate(values, param, allocator, on_gpu=on_gpu)
                if drawn is not None:
                    field = kwargs[param.name]
                    if output and drawn.room_for(int(field.ndarray.nbytes)):
                        # the calls update it: keep the values as drawn
                        field = _allocate(field.ndarray, param, allocator, on_gpu=on_gpu)
                    drawn.keep(param.name, field, source)  # past its limit: nothing kept
            provenance[param.name] = source
            if param.name in spec.outputs and not device_values:
                initial[param.name] = kwargs[param.name].ndarray.copy()
        else:
            value, source = scalar_values[param.name]
            provenance[param.name] = source
            if param.name in compile_time:
                static_args[param.name] = value
            else:
                kwargs[param.name] = value
    return ProgramCall(
        program=spec.name,
        variant=variant.name,
        kwargs=kwargs,
        static_args=static_args,
        outputs=spec.outputs,
        in_out=in_out,
        bytes_moved=minimum_bytes(spec, variant, sizes, scalar_values) if fields else 0,
        offset_provider=_offset_provider(spec, icon_grid),
        provenance=provenance,
        reviewed=reviewed,
        _initial=initial,
    )


def minimum_bytes_on(spec: ProgramSpec, variant: Variant, grid: Any) -> int:
    """:func:`minimum_bytes` of a call on ``grid`` (a :class:`GeneratedGrid`), without fields."""
    scalar_values, _, _ = overrides.scalar_values_and_static(spec, overrides.Context.of(grid))
    return minimum_bytes(spec, variant, grid_sizes(getattr(grid, "grid", grid)), scalar_values)


def minimum_bytes(
    spec: ProgramSpec,
    variant: Variant,
    sizes: Sizes,
    scalar_values: dict[str, tuple[Any, str]],
) -> int:
    """Bytes one call must at least move: each field read once and written once, in its domain.

    An output counts the largest region one of its ``domain=`` writes (in-out outputs twice:
    read and written); an input the program domain's levels and, along its horizontal
    dimension, the domain's share of its extent (neighbour fields live on another horizontal
    dimension than the domain). Bounds that cannot be evaluated count the whole field.
    """
    arguments = {name: value for name, (value, _) in scalar_values.items()}
    arguments |= dict(variant.static_args)
    fields = [p for p in spec.params if p.is_field and p.name not in variant.static_args]
    full_levels = overrides.FULL_LEVEL_FIELDS.get(spec.name, ())
    shapes = {p.name: sizes.shape(p, full_levels=p.name in full_levels) for p in fields}
    written: dict[str, tuple[slice, ...]] = {}
    for param in (p for p in fields if p.name in spec.outputs):
        regions = [
            written_region(bounds, param.dims, arguments)
            for bounds in spec.output_domains.get(param.name, ((),))
        ]
        if all(r is not None for r in regions):
            written[param.name] = max(regions, key=lambda r: _region_size(r, shapes[param.name]))
    share, levels = _domain_extent(spec, written, shapes, sizes)
    total = 0
    for param in fields:
        shape, itemsize = shapes[param.name], np.dtype(param.dtype).itemsize
        if param.name in spec.outputs:
            region = written.get(param.name, tuple(slice(None) for _ in shape))
            times = 2 if param.name in spec.reads else 1
            total += times * itemsize * _region_size(region, shape)
            continue
        elements = 1
        for dim, n in zip(param.dims, shape, strict=True):
            if dim in sizes.horizontal and share is not None:
                elements *= math.ceil(share * n)
            elif dim == "K" and levels is not None:
                elements *= len(range(*levels.indices(n)))
            else:
                elements *= n
        total += itemsize * elements
    return total


def _region_size(region: tuple[slice, ...], shape: tuple[int, ...]) -> int:
    return math.prod(len(range(*part.indices(n))) for part, n in zip(region, shape, strict=True))


def _domain_extent(
    spec: ProgramSpec,
    written: dict[str, tuple[slice, ...]],
    shapes: dict[str, tuple[int, ...]],
    sizes: Sizes,
) -> tuple[float | None, slice | None]:
    """The program domain from its outputs' regions: horizontal share and widest level range."""
    share: float | None = None
    levels: slice | None = None
    for name, region in written.items():
        for dim, part, n in zip(spec.param[name].dims, region, shapes[name], strict=True):
            start, stop, _ = part.indices(n)
            if dim in sizes.horizontal and n:
                share = max(share or 0.0, max(stop - start, 0) / n)
            elif dim == "K" and (levels is None or stop - start > levels.stop - levels.start):
                levels = slice(start, stop)
    return share, levels


def _offset_provider(spec: ProgramSpec, icon_grid: Any) -> dict[str, Any]:
    """The grid's connectivities; none for a program without horizontal fields.

    gtfn treats a program on ``K`` only as a cartesian one and rejects neighbour tables, and
    the granules pass ``offset_provider={}`` there (``diffusion.py``).
    """
    horizontal = {"Cell", "Edge", "Vertex"}
    if not any(horizontal & set(p.dims) for p in spec.params):
        return {}
    return dict(icon_grid.connectivities)


def evaluate_bound(expression: str, arguments: dict[str, Any]) -> int:
    """The integer value of a PAST bound text (``vertical_end - 1``) given the arguments.

    >>> evaluate_bound("vertical_end - 1", {"vertical_end": 11})
    10
    """
    tokens = expression.split()
    value = _token(tokens[0], arguments)
    for op, token in zip(tokens[1::2], tokens[2::2], strict=True):
        operand = _token(token, arguments)
        value = value + operand if op == "+" else value - operand if op == "-" else math.nan
    return int(value)


def _token(token: str, arguments: dict[str, Any]) -> int:
    if re.fullmatch(r"-?\d+", token):
        return int(token)
    if token not in arguments:
        raise IconbenchError(f"domain bound {token!r} is not an argument of the program")
    return int(arguments[token])


def written_region(
    bounds: tuple[DomainBound, ...], dims: tuple[str, ...], arguments: dict[str, Any]
) -> tuple[slice, ...] | None:
    """The index region of a field with ``dims`` that one call's ``domain=`` writes.

    An open bound covers the extent; ``None`` when a bound cannot be evaluated (``?``: a
    builtin call such as ``maximum(...)`` in the program's domain).

    >>> from iconbench.programs.catalog import DomainBound
    >>> written_region((DomainBound("K", "1", ""),), ("Cell", "K"), {})
    (slice(None, None, None), slice(1, None, None))
    """
    by_dim: dict[str, DomainBound] = {}
    for bound in bounds:
        by_dim.setdefault(bound.dim, bound)
    region = []
    for dim in dims:
        bound = by_dim.get(dim)
        if bound is None:
            region.append(slice(None))
            continue
        if "?" in bound.start or "?" in bound.end:
            return None
        start = _bound_or_none(bound.start, arguments)
        end = _bound_or_none(bound.end, arguments)
        region.append(slice(start, end))
    return tuple(region)


def _bound_or_none(expression: str, arguments: dict[str, Any]) -> int | None:
    if not expression:
        return None
    return evaluate_bound(expression, arguments)
