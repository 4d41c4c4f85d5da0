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

Besides gt4py's per-program sources, the dump gets one source ``diffusion_granule<backend>``
with metric ``total``: the wall time of one whole step (all programs called back to back
from Python, device synchronised before and after), i.e. the step measured directly,
including the Python call overhead that the per-program ``compute`` times leave out. It is
the program sequence of ``Diffusion.run`` without its halo exchanges and field setup.
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


#: Metrics source name of the whole-step timing (see ``granule`` in the mapping data).
GRANULE = "diffusion_granule"


def _synchronizer(backend: str):
    """A function that waits for the device, so host clocks bracket the kernels."""
    if "gpu" not in backend:
        return lambda: None
    import cupy

    return cupy.cuda.runtime.deviceSynchronize


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
    parser = argparse.ArgumentParser(description="Run the diffusion granule programs.")
    parser.add_argument("--grid", default="tiny", help="iconbench.grids preset")
    parser.add_argument(
        "--backend", default="embedded", choices=("embedded", "gtfn_cpu", "gtfn_gpu")
    )
    parser.add_argument("--calls", type=int, default=8, help="calls per program (first dropped)")
    parser.add_argument("--verbose", action="store_true", help="name each program as it runs")
    args = parser.parse_args()

    import numpy as np

    from iconbench.baselines import mapping
    from iconbench.grids import generate

    backend = None
    if args.backend != "embedded":
        from gt4py.next.program_processors.runners import gtfn

        backend = {"gtfn_cpu": gtfn.run_gtfn, "gtfn_gpu": gtfn.run_gtfn_gpu}[args.backend]
    grid = generate(args.grid, allocator=backend).grid  # connectivities where the backend runs
    rng = np.random.default_rng(0)
    refs = mapping.load().timers["nh_hdiff_run"].programs
    offsets = grid.connectivities
    calls = []
    for ref in refs:
        program = _program(ref.program).with_backend(backend)
        if backend is not None:  # submit every compilation now: gt4py builds them in parallel
            program.compile(offset_provider=offsets)
        calls.append((ref, program, _inputs(program, grid, backend, rng)))
    from gt4py.next.instrumentation import metrics

    sync = _synchronizer(args.backend)
    # The whole step timed from Python (kernels + call overhead), stored next to gt4py's own
    # sources so that the speed-up report shows it beside the sum of the programs' kernels.
    granule = metrics.sources[f"{GRANULE}<{args.backend}>"]
    granule.metadata |= {"name": GRANULE, "backend": args.backend}
    for step in range(args.calls):
        sync()
        start = time.perf_counter()
        for ref, program, kwargs in calls:
            if args.verbose:
                print(f"  {ref.label}", file=sys.stderr, flush=True)
            for _ in range(ref.calls):
                program(**kwargs, offset_provider=offsets)
        sync()
        elapsed = time.perf_counter() - start
        if metrics.is_any_level_enabled():
            granule.metrics["total"].add_sample(elapsed)
        print(f"step {step}: {elapsed:.4f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
