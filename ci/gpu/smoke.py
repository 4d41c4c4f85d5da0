"""Smoke test of a GPU runner: the stack imports and one program compiles and runs on GPU.

Run after ``source ci/gpu-env.sh``:  python3 ci/gpu/smoke.py
"""

import time

if __name__ == "__main__":
    from iconbench import buildcache

    buildcache.configure("smoke")
    import cupy as cp
    import numpy as np
    from icon4py.model.atmosphere.dycore.stencils.compute_tangential_wind import (
        compute_tangential_wind,
    )
    from icon4py.model.common import dimension as dims
    from icon4py.model.common import model_backends
    from icon4py.model.common.grid import simple
    from icon4py.model.common.utils import data_allocation as data_alloc

    from iconbench import provenance

    print(provenance.collect().to_json())
    for name in ("gtfn_gpu", "dace_gpu"):
        backend = model_backends.BACKENDS[name]
        backend = backend["backend_factory"](**backend)
        grid = simple.simple_grid(allocator=backend, num_levels=10)
        vn = data_alloc.random_field(grid, dims.EdgeDim, dims.KDim, allocator=backend)
        rbf = data_alloc.random_field(grid, dims.EdgeDim, dims.E2C2EDim, allocator=backend)
        vt = data_alloc.zero_field(grid, dims.EdgeDim, dims.KDim, allocator=backend)
        t0 = time.perf_counter()
        compute_tangential_wind.with_backend(backend)(
            vn=vn,
            rbf_vec_coeff_e=rbf,
            vt=vt,
            horizontal_start=0,
            horizontal_end=grid.num_edges,
            vertical_start=0,
            vertical_end=10,
            offset_provider=grid.connectivities,
        )
        cp.cuda.Device().synchronize()
        e2c2e = grid.get_connectivity("E2C2E").ndarray.get()
        ref = np.sum(rbf.asnumpy()[:, :, None] * vn.asnumpy()[e2c2e], axis=1)
        print(
            name,
            "first call (compile) s",
            round(time.perf_counter() - t0, 1),
            "max abs err",
            float(np.max(np.abs(vt.asnumpy() - ref))),
        )
