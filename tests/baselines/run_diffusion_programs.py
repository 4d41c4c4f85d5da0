"""Run the programs of the diffusion granule (ICON timer ``nh_hdiff_run``) for gt4py metrics.

Produces, for real, the GT4Py side of the seed-004 comparison: run it with gt4py's own
metrics switches, exactly as blueline users do, and feed the dump to ``iconbench speedup``::

    GT4PY_COLLECT_METRICS_LEVEL=10 GT4PY_DUMP_METRICS_AT_EXIT=diffusion_metrics.json \
        python tests/baselines/run_diffusion_programs.py --grid tiny --backend embedded

The programs are the ones the mapping data lists for ``nh_hdiff_run`` (so the run and the
comparison cannot drift apart), called ``--calls`` times each, in the order and multiplicity
of one diffusion step. Inputs are built from each program's type signature on an
``iconbench.grids`` torus: float fields random in [0.1, 1), integer and boolean fields zero
(vertical offsets 0, masks off), the whole horizontal domain of the first output's dimension
(a torus has no boundary) and the interior levels ``[1, nlev - 1)`` (so ``k-1`` and ``k+1``
exist for every stencil). Values do not change the work of these stencils (no data-dependent loops),
so the timings are representative of the sizes, not of the weather.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import time

#: Where each mapped program lives in icon4py 0.4.1.
MODULES = {
    "calculate_nabla2_and_smag_coefficients_for_vn": "icon4py.model.atmosphere.diffusion.stencils",
    "calculate_diagnostic_quantities_for_turbulence": "icon4py.model.atmosphere.diffusion.stencils",
    "apply_diffusion_to_vn": "icon4py.model.atmosphere.diffusion.stencils",
    "apply_diffusion_to_w_and_compute_horizontal_gradients_for_turbulence": (
        "icon4py.model.atmosphere.diffusion.stencils"
    ),
    "calculate_enhanced_diffusion_coefficients_for_grid_point_cold_pools": (
        "icon4py.model.atmosphere.diffusion.stencils"
    ),
    "apply_diffusion_to_theta_and_exner": "icon4py.model.atmosphere.diffusion.stencils",
    "mo_intp_rbf_rbf_vec_interpol_vertex": "icon4py.model.common.interpolation.stencils",
    "scale_k": "icon4py.model.atmosphere.diffusion.diffusion_utils",
    "copy_field": "icon4py.model.atmosphere.diffusion.diffusion_utils",
}


def _program(name: str):
    module = MODULES[name]
    if module.endswith("stencils"):
        module = f"{module}.{name}"
    return getattr(importlib.import_module(module), name)


def _inputs(program, grid, backend, rng):
    """Keyword arguments for ``program`` on ``grid`` from its type signature."""
    import numpy as np
    from gt4py import next as gtx
    from gt4py.next.type_system import type_specifications as ts

    past = program.past_stage.past_node
    params = past.type.definition.pos_or_kw_args
    nlev = grid.num_levels

    def extent(dim) -> int:
        if dim.kind == gtx.DimensionKind.LOCAL:
            return grid.get_connectivity(dim.value).ndarray.shape[1]
        if dim.kind == gtx.DimensionKind.VERTICAL:
            return nlev + 1  # half levels fit too; programs run on [0, nlev)
        return grid.size[dim]

    first_out = None
    for stmt in past.body:
        out = stmt.kwargs.get("out")
        target = getattr(out, "elts", [out])[0] if out is not None else None
        if target is not None and hasattr(target, "id"):
            first_out = params[str(target.id)]
            break
    horizontal = next(
        (d for d in getattr(first_out, "dims", []) if d.kind == gtx.DimensionKind.HORIZONTAL), None
    )
    kwargs = {}
    for name, kind in params.items():
        if isinstance(kind, ts.FieldType):
            shape = tuple(extent(d) for d in kind.dims)
            dtype = np.dtype(kind.dtype.kind.name.lower())
            if np.issubdtype(dtype, np.floating):
                data = rng.uniform(0.1, 1.0, shape).astype(dtype)
            else:
                data = np.zeros(shape, dtype=dtype)
            if backend is None:
                kwargs[name] = gtx.as_field(kind.dims, data)
            else:  # the backend's own layout (on GPUs: horizontal unit stride), then copy in
                field = gtx.empty(
                    gtx.domain(dict(zip(kind.dims, shape, strict=True))), dtype, allocator=backend
                )
                field.ndarray[...] = field.array_ns.asarray(data)
                kwargs[name] = field
        elif name == "horizontal_end":
            kwargs[name] = np.int32(grid.size[horizontal])
        elif name == "vertical_start":
            kwargs[name] = np.int32(1)  # interior levels: k-1 and k+1 exist for every stencil
        elif name == "vertical_end":
            kwargs[name] = np.int32(nlev - 1)
        else:
            scalar = np.dtype(kind.kind.name.lower())
            kwargs[name] = scalar.type(0.5 if np.issubdtype(scalar, np.floating) else 0)
    return kwargs


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--grid", default="tiny", help="iconbench.grids preset")
    parser.add_argument(
        "--backend", default="embedded", choices=("embedded", "gtfn_cpu", "gtfn_gpu")
    )
    parser.add_argument("--calls", type=int, default=8, help="calls per program (first dropped)")
    args = parser.parse_args()

    import numpy as np

    from iconbench.baselines import mapping
    from iconbench.grids import generate

    backend = None
    if args.backend != "embedded":
        from gt4py.next.program_processors.runners import gtfn

        backend = {"gtfn_cpu": gtfn.run_gtfn, "gtfn_gpu": gtfn.run_gtfn_gpu}[args.backend]
    grid = generate(args.grid).grid
    rng = np.random.default_rng(0)
    refs = mapping.load().timers["nh_hdiff_run"].programs
    offsets = grid.connectivities
    calls = []
    for ref in refs:
        program = _program(ref.program).with_backend(backend)
        if backend is not None:  # submit every compilation now: gt4py builds them in parallel
            program.compile(offset_provider=offsets)
        calls.append((ref, program, _inputs(program, grid, backend, rng)))
    for step in range(args.calls):
        start = time.perf_counter()
        for ref, program, kwargs in calls:
            for _ in range(ref.calls):
                program(**kwargs, offset_provider=offsets)
        if backend is not None and "gpu" in args.backend:
            import cupy

            cupy.cuda.runtime.deviceSynchronize()
        print(f"step {step}: {time.perf_counter() - start:.4f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
