"""Every GT4Py program of the installed icon4py dycore and diffusion, found by walking modules.

Upstream each program is configured by hand in a ``StencilTest``; here the catalog is derived
from the installed package, so a program added upstream is benchmarked without a code change
and a removed one disappears. A program is a ``gt4py.next`` ``Program`` object (field operators
are not called by the granules directly and are skipped). Programs are re-exported by several
modules (``solve_nonhydro`` imports most stencils), so they are deduplicated by their Python
definition (module + qualified name of the decorated function).

Signatures come from the program's typed parameters; outputs and the domain a program runs on come
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
    #: The gt4py ``Dimension`` objects of ``dims`` (for allocation).
    dimensions: tuple[Any, ...] = dataclasses.field(default=(), compare=False, repr=False)

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
    #: The distinct bounds of the calls' ``domain=`` (a dimension may have several).
    domain_bounds: tuple[DomainBound, ...]
    #: Parameters read by some call (an output that is also read is updated in place).
    reads: frozenset[str] = frozenset()
    #: Per output, the ``domain=`` of each call writing it (``()``: the whole field).
    output_domains: dict[str, tuple[tuple[DomainBound, ...], ...]] = dataclasses.field(
        default_factory=dict, compare=False
    )

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


def _param_of(symbol: Any) -> Param:
    """A :class:`Param` from a typed PAST parameter symbol."""
    from gt4py.next.type_system import type_specifications as ts

    type_ = symbol.type
    if isinstance(type_, ts.FieldType):
        dims = tuple(type_.dims)
        dtype = type_.dtype.kind.name.lower()
        return Param(str(symbol.id), tuple(d.value for d in dims), dtype, dims)
    return Param(str(symbol.id), (), type_.kind.name.lower())


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
    if kind == "Call":
        return "?"  # a builtin such as maximum(...): not evaluated, the whole extent is checked
    if kind == "BinOp":
        op = {"plus": "+", "minus": "-", "multiplies": "*", "divide": "/"}.get(
            str(node.op.value), str(node.op.value)
        )
        return f"{_past_text(node.left)} {op} {_past_text(node.right)}"
    return kind


@dataclasses.dataclass(frozen=True)
class _Analysis:
    outputs: tuple[str, ...]
    reads: frozenset[str]
    bounds: tuple[DomainBound, ...]
    output_domains: dict[str, tuple[tuple[DomainBound, ...], ...]]


def _analyse(program: Any) -> _Analysis:
    """Outputs, parameters read, and the ``domain=`` of every field-operator call."""
    past = program.past_stage.past_node
    outputs: list[str] = []
    reads: set[str] = set()
    bounds: dict[tuple[str, str, str], DomainBound] = {}
    output_domains: dict[str, list[tuple[DomainBound, ...]]] = {}
    for stmt in past.body:
        kwargs = dict(getattr(stmt, "kwargs", {}) or {})
        written = _past_names(kwargs.pop("out")) if "out" in kwargs else []
        domain = kwargs.pop("domain", None)
        for arg in [*getattr(stmt, "args", []), *kwargs.values()]:
            reads.update(_referenced(arg))
        out = stmt.kwargs.get("out")
        per_output = _per_output_domains(out, domain)
        for name, domain_dicts in per_output.items():
            call_bounds: list[DomainBound] = []
            for entry in domain_dicts:
                for key, value in zip(entry.keys_, entry.values_, strict=True):
                    if type(value).__name__ == "TupleExpr":
                        start, end = value.elts
                        bound = DomainBound(key.type.dim.value, _past_text(start), _past_text(end))
                        call_bounds.append(bound)
                        bounds.setdefault((bound.dim, bound.start, bound.end), bound)
            sliced = _subscript_bounds(out).get(name, ()) if out is not None else ()
            output_domains.setdefault(name, []).append(sliced + tuple(call_bounds))
        outputs.extend(written)
    return _Analysis(
        tuple(dict.fromkeys(outputs)),
        frozenset(reads),
        tuple(bounds.values()),
        {k: tuple(v) for k, v in output_domains.items()},
    )


def _subscript_bounds(out: Any) -> dict[str, tuple[DomainBound, ...]]:
    """Bounds of ``out=field[a:b, c:]`` slices (``""`` for an open end), by output name."""
    kind = type(out).__name__
    if kind == "TupleExpr":
        found: dict[str, tuple[DomainBound, ...]] = {}
        for element in out.elts:
            found |= _subscript_bounds(element)
        return found
    if kind != "Subscript":
        return {}
    slices = out.slice_.elts if type(out.slice_).__name__ == "TupleExpr" else [out.slice_]
    dims = [d.value for d in out.value.type.dims]
    bounds = []
    for dim, part in zip(dims, slices, strict=False):
        start = _past_text(part.lower) if part.lower is not None else ""
        end = _past_text(part.upper) if part.upper is not None else ""
        if start or end:
            bounds.append(DomainBound(dim, start, end))
    return {str(out.value.id): tuple(bounds)}


def _referenced(node: Any) -> set[str]:
    """Every name referenced anywhere in a PAST expression."""
    found: set[str] = set()
    if type(node).__name__ == "Name":
        found.add(str(node.id))
    for value in getattr(node, "__dict__", {}).values():
        children = value if isinstance(value, list | tuple) else [value]
        for child in children:
            if hasattr(child, "location"):
                found |= _referenced(child)
    return found


def _per_output_domains(out: Any, domain: Any) -> dict[str, list[Any]]:
    """The ``domain=`` dictionaries that apply to each output of one call.

    ``out=(a, b)`` with ``domain=(da, db)`` pairs them; one dictionary applies to all.
    """
    if out is None:
        return {}
    elements = out.elts if type(out).__name__ == "TupleExpr" else [out]
    if type(domain).__name__ == "TupleExpr" and len(domain.elts) == len(elements):
        return {
            name: _domain_dicts(d)
            for element, d in zip(elements, domain.elts, strict=True)
            for name in _past_names(element)
        }
    return {name: _domain_dicts(domain) for name in _past_names(out)}


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

    params = tuple(_param_of(symbol) for symbol in program.past_stage.past_node.params)
    analysis = _analyse(program)
    short = name.rsplit(".", 1)[-1]
    choices = variant_table.static_choices(short, params)
    static_params = tuple(choices)
    combos = itertools.product(*choices.values())
    variants = tuple(Variant.from_args(dict(zip(choices, c, strict=True))) for c in combos)
    return ProgramSpec(
        name,
        module,
        program,
        params,
        analysis.outputs,
        static_params,
        variants,
        analysis.bounds,
        analysis.reads,
        analysis.output_domains,
    )


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


@functools.cache
def _spec_named(name: str) -> ProgramSpec | None:
    """The spec of one program, importing only the module that defines it.

    A measuring worker needs one or two programs; discovering all of them imports every
    dycore and diffusion module and analyses every program (14 s of each worker's start on
    two cores). The module comes from the source index the selection uses (no import);
    a name the index does not know is looked up by discovery.
    """
    from iconbench.programs.imports import ProgramIndex

    module = ProgramIndex.installed().catalog_programs(PACKAGES).get(name)
    program = (
        getattr(importlib.import_module(module), name.rsplit(".", 1)[-1], None) if module else None
    )
    if program is None:
        return {s.name: s for s in discover()}.get(name)
    return make_spec(name, module, program)


def split_case(case: str) -> tuple[str, str]:
    """``"prog[variant]"`` → ``("prog", "variant")``.

    >>> split_case("compute_tangential_wind[default]")
    ('compute_tangential_wind', 'default')
    >>> split_case("plain")
    ('plain', 'default')
    """
    match = re.fullmatch(r"(?P<program>[^\[]+)(?:\[(?P<variant>.*)\])?", case)
    if not match:
        raise IconbenchError(f"bad case id {case!r}: expected program[variant]")
    return match.group("program"), match.group("variant") or "default"


_CASE = re.compile(r"(?P<program>[^\[\]]+)(?:\[(?P<variant>[^\[\]]*)\])?")


def lookup(case_id: str, specs: Sequence[ProgramSpec] | None = None) -> tuple[ProgramSpec, Variant]:
    """The spec and variant of ``"program[variant]"`` (``[default]`` may be left out)."""
    match = _CASE.fullmatch(case_id)
    if not match:
        raise IconbenchError(f"bad case id {case_id!r}: expected program[variant]")
    if specs is None:
        spec = _spec_named(match["program"])
    else:
        spec = {s.name: s for s in specs}.get(match["program"])
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
