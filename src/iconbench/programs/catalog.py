"""Every GT4Py program of the installed icon4py dycore and diffusion, found by walking modules.

Upstream each program is configured by hand in a ``StencilTest``; here the catalog is derived
from the installed package, so a program added upstream is benchmarked without a code change
and a removed one disappears. A program is a ``gt4py.next`` ``Program`` object (field operators
are not called by the granules directly and are skipped). Programs are re-exported by several
modules (``solve_nonhydro`` imports most stencils), so they are deduplicated by their Python
definition (module + qualified name of the decorated function).

Signatures come from the program's type hints; outputs and the domain a program runs on come
from its parsed program AST (PAST): every ``out=`` of a field-operator call is an output, and
the ``domain=`` dictionaries name the start/end parameters per dimension.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import itertools
import pkgutil
import re
import typing
from collections.abc import Iterable, Sequence
from typing import Any

from iconbench.errors import IconbenchError

#: The packages whose programs are benchmarked (with all subpackages and sibling modules).
PACKAGES: tuple[str, ...] = (
    "icon4py.model.atmosphere.dycore",
    "icon4py.model.atmosphere.diffusion",
)


@dataclasses.dataclass(frozen=True)
class Param:
    """One program parameter: a field (with ``dims``) or a scalar (``dims == ()``).

    ``dims`` are gt4py dimension names (``"Cell"``, ``"K"``, ``"C2E"``); ``dtype`` is the numpy
    dtype name (``"float64"``, ``"int32"``, ``"bool"``).
    """

    name: str
    dims: tuple[str, ...]
    dtype: str

    @property
    def is_field(self) -> bool:
        return bool(self.dims)

    def describe(self) -> str:
        """``name: Field[Cell, K] float64`` or ``name: int32``.

        >>> Param("vn", ("Edge", "K"), "float64").describe()
        'vn: Field[Edge, K] float64'
        >>> Param("dtime", (), "float64").describe()
        'dtime: float64'
        """
        if self.is_field:
            return f"{self.name}: Field[{', '.join(self.dims)}] {self.dtype}"
        return f"{self.name}: {self.dtype}"


@dataclasses.dataclass(frozen=True)
class Variant:
    """One choice of the static arguments; ``name`` is its short id used in case ids."""

    name: str
    static_args: dict[str, Any]

    @classmethod
    def from_args(cls, static_args: dict[str, Any]) -> Variant:
        """The variant of ``static_args``, named ``k=v-k=v`` (``default`` when empty).

        >>> Variant.from_args({"at_first_substep": True, "at_last_substep": False}).name
        'at_first_substep=True-at_last_substep=False'
        >>> Variant.from_args({}).name
        'default'
        """
        name = "-".join(f"{k}={_plain(v)}" for k, v in static_args.items()) or "default"
        return cls(name, dict(static_args))


def _plain(value: Any) -> str:
    if isinstance(value, bool):
        return str(value)
    return str(int(value)) if isinstance(value, int) else str(value)


@dataclasses.dataclass(frozen=True)
class DomainBound:
    """The start and end expression of one dimension in a program's ``domain=`` (PAST text)."""

    dim: str
    start: str
    end: str


@dataclasses.dataclass(frozen=True)
class ProgramSpec:
    """A program of the catalog with its signature, static variants and domain."""

    name: str
    module: str
    program: Any
    params: tuple[Param, ...]
    outputs: tuple[str, ...]
    static_params: tuple[str, ...]
    variants: tuple[Variant, ...]
    #: Per dimension, the bounds of the calls' ``domain=`` (first call that names the dim).
    domain_bounds: tuple[DomainBound, ...]

    @property
    def param(self) -> dict[str, Param]:
        return {p.name: p for p in self.params}

    @property
    def horizontal_dim(self) -> str | None:
        """The horizontal dimension the program's outputs live on (``Cell``/``Edge``/``Vertex``)."""
        for p in self.params:
            if p.name in self.outputs:
                for d in p.dims:
                    if d in ("Cell", "Edge", "Vertex"):
                        return d
        return None

    @property
    def domain(self) -> str:
        """A one-line summary: ``Edge[horizontal_start:horizontal_end] K[0:vertical_end - 1]``."""
        if self.domain_bounds:
            return " ".join(f"{b.dim}[{b.start}:{b.end}]" for b in self.domain_bounds)
        dims = [d for p in self.params if p.name in self.outputs for d in p.dims]
        return " ".join(dict.fromkeys(f"{d}[all]" for d in dims)) or "scalar"

    def case_id(self, variant: Variant) -> str:
        return f"{self.name}[{variant.name}]"


def _dtype_name(type_: Any) -> str:
    if type_ is bool:
        return "bool"
    return getattr(type_, "__name__", str(type_))


def _param_of(name: str, hint: Any) -> Param:
    args = typing.get_args(hint)
    if (args and hasattr(args[0], "__args__")) or (args and len(args) == 2 and _is_dims(args[0])):
        dims_type, dtype = args
        dims = tuple(d.value for d in typing.get_args(dims_type))
        return Param(name, dims, _dtype_name(dtype))
    return Param(name, (), _dtype_name(hint))


def _is_dims(obj: Any) -> bool:
    return "Dims" in getattr(obj, "__name__", "") or "Dims" in str(obj)


def _past_names(node: Any) -> list[str]:
    """Parameter names referenced by a PAST expression (``out=`` element, bound)."""
    if type(node).__name__ == "Name":
        return [str(node.id)]
    if type(node).__name__ == "Subscript":
        return _past_names(node.value)
    if type(node).__name__ == "TupleExpr":
        return [n for e in node.elts for n in _past_names(e)]
    return []


def _past_text(node: Any) -> str:
    kind = type(node).__name__
    if kind == "Name":
        return str(node.id)
    if kind == "Constant":
        return str(node.value)
    if kind == "BinOp":
        op = {"plus": "+", "minus": "-", "multiplies": "*", "divide": "/"}.get(
            str(node.op.value), str(node.op.value)
        )
        return f"{_past_text(node.left)} {op} {_past_text(node.right)}"
    return kind


def _outputs_and_domain(program: Any) -> tuple[tuple[str, ...], tuple[DomainBound, ...]]:
    past = program.past_stage.past_node
    outputs: list[str] = []
    bounds: dict[str, DomainBound] = {}
    for stmt in past.body:
        kwargs = getattr(stmt, "kwargs", {}) or {}
        if "out" in kwargs:
            outputs.extend(_past_names(kwargs["out"]))
        domain = kwargs.get("domain")
        for entry in _domain_dicts(domain):
            for key, value in zip(entry.keys_, entry.values_, strict=True):
                dim = key.type.dim.value
                if dim not in bounds and type(value).__name__ == "TupleExpr":
                    start, end = value.elts
                    bounds[dim] = DomainBound(dim, _past_text(start), _past_text(end))
    return tuple(dict.fromkeys(outputs)), tuple(bounds.values())


def _domain_dicts(domain: Any) -> list[Any]:
    if domain is None:
        return []
    if type(domain).__name__ == "Dict":
        return [domain]
    if type(domain).__name__ == "TupleExpr":
        return [d for e in domain.elts for d in _domain_dicts(e)]
    return []


def iter_programs(packages: Sequence[str] = PACKAGES) -> Iterable[tuple[str, str, Any]]:
    """``(name, defining module, Program)`` for each distinct program under ``packages``."""
    from gt4py.next.ffront.decorator import Program

    seen: set[tuple[str, str]] = set()
    for package_name in packages:
        package = importlib.import_module(package_name)
        modules = [package_name] + [
            info.name for info in pkgutil.walk_packages(package.__path__, package_name + ".")
        ]
        for module_name in modules:
            module = importlib.import_module(module_name)
            for obj in vars(module).values():
                if not isinstance(obj, Program):
                    continue
                definition = obj.definition_stage.definition
                key = (definition.__module__, definition.__qualname__)
                if key in seen:
                    continue
                seen.add(key)
                yield definition.__name__, definition.__module__, obj


def _unique_names(found: list[tuple[str, str, Any]]) -> list[tuple[str, str, Any]]:
    """Qualify a name defined in several modules with its module (``diffusion_utils.scale_k``)."""
    counts: dict[str, int] = {}
    for name, _, _ in found:
        counts[name] = counts.get(name, 0) + 1
    return [
        (f"{module.rsplit('.', 1)[-1]}.{name}" if counts[name] > 1 else name, module, obj)
        for name, module, obj in found
    ]


def make_spec(name: str, module: str, program: Any) -> ProgramSpec:
    """The :class:`ProgramSpec` of one program (signature, outputs, domain, variants)."""
    from iconbench.programs import variants as variant_table

    hints = typing.get_type_hints(program.definition_stage.definition)
    hints.pop("return", None)
    params = tuple(_param_of(n, h) for n, h in hints.items())
    outputs, bounds = _outputs_and_domain(program)
    short = name.rsplit(".", 1)[-1]
    choices = variant_table.static_choices(short, params)
    static_params = tuple(choices)
    combos = itertools.product(*choices.values())
    variants = tuple(Variant.from_args(dict(zip(choices, c, strict=True))) for c in combos)
    return ProgramSpec(name, module, program, params, outputs, static_params, variants, bounds)


@functools.cache
def _discover(packages: tuple[str, ...]) -> tuple[ProgramSpec, ...]:
    found = _unique_names(list(iter_programs(packages)))
    return tuple(sorted((make_spec(*f) for f in found), key=lambda s: s.name))


def discover(packages: Sequence[str] = PACKAGES) -> list[ProgramSpec]:
    """Every program under ``packages``, once, sorted by name (cached per process)."""
    return list(_discover(tuple(packages)))


def case_ids(specs: Iterable[ProgramSpec]) -> list[str]:
    """``program[variant]`` for every variant of every spec (the asv suite's parameter)."""
    return [spec.case_id(v) for spec in specs for v in spec.variants]


_CASE = re.compile(r"(?P<program>[^\[\]]+)(?:\[(?P<variant>[^\[\]]*)\])?")


def lookup(case_id: str, specs: Sequence[ProgramSpec] | None = None) -> tuple[ProgramSpec, Variant]:
    """The spec and variant of ``"program[variant]"`` (``[default]`` may be left out)."""
    match = _CASE.fullmatch(case_id)
    if not match:
        raise IconbenchError(f"bad case id {case_id!r}: expected program[variant]")
    specs = discover() if specs is None else specs
    by_name = {s.name: s for s in specs}
    spec = by_name.get(match["program"])
    if spec is None:
        raise IconbenchError(
            f"unknown program {match['program']!r}; run 'iconbench programs' to list them"
        )
    wanted = match["variant"] or spec.variants[0].name
    for variant in spec.variants:
        if variant.name == wanted:
            return spec, variant
    raise IconbenchError(
        f"unknown variant {wanted!r} of {spec.name}; choose one of: "
        + ", ".join(v.name for v in spec.variants)
    )
