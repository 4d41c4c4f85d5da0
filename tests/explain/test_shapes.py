"""A variant's kernel shape on real generated code: launches without bounds and arguments.

``data/variant_launches.json`` holds the lines of generated code that launch or declare
kernels, as the generators wrote them:

- gtfn_gpu, ``compute_rho_theta_pgrad_and_update_vn``, from the H100 check of icon4py #1405
  (2026-11-27, the ``code.diff`` of two of its four flagged variants: base lines and head
  lines). The variants differ in their launches' domain bounds and argument lists (IAU
  passes ``iau_wgt_dyn`` and ``normal_wind_iau_increment``, the limited area ``grf_tend_vn``)
  and launch the same 7 kernels on base and 10 on head; that check profiled them as four
  shapes (106.9 s of why).
- dace_gpu and dace_cpu, ``apply_divergence_damping_and_update_vn``: the code DaCe writes
  from three variants' SDFGs (gt4py 1.2.1 + dace 2.0.0a6, icon4py 0.4.1, tiny grid). IAU and
  the limited area change a kernel's parameters, not the kernels; fourth-order divergence
  damping adds a kernel.
"""

from __future__ import annotations

import json
import pathlib

import pytest

from iconbench.explain import shapes
from iconbench.explain.sources import Sources

DATA = pathlib.Path(__file__).resolve().parent / "data" / "variant_launches.json"
PLAIN, BOTH = "is_iau_active=False-limited_area=False", "is_iau_active=True-limited_area=True"
DAMPING = "-apply_2nd_order_divergence_damping=False-apply_4th_order_divergence_damping="


def _launches(title: str) -> dict:
    (found,) = [v for k, v in json.loads(DATA.read_text(encoding="utf-8")).items()
                if k.startswith(title)]  # fmt: skip
    return found


def _shape(lines: list[str]) -> shapes.Shape | None:
    return shapes.of(Sources({"program.cu": "\n".join(lines) + "\n"}, None, "build folder"))


def test_gtfn_variants_that_differ_in_bounds_and_arguments_launch_the_same_kernels():
    found = _launches("gtfn_gpu compute_rho_theta_pgrad_and_update_vn")
    plain, both = found[PLAIN], found[BOTH]
    for side in ("base", "head"):
        assert plain[side] != both[side]  # the whole lines differ: four shapes on the H100
        assert _shape(plain[side]) == _shape(both[side])
    head = _shape(both["head"])
    assert head == ("stencil_executor _fun_N",) * 10
    # a build with more kernels (head: 3 stencils more than base) is another shape
    assert _shape(both["base"]) == ("stencil_executor _fun_N",) * 7
    # the IAU variant's arguments are in its line, not in its shape
    iau = [line for line in both["head"] if "normal_wind_iau_increment" in line]
    assert iau
    assert shapes.launches(iau[0].strip()) == ("stencil_executor _fun_N",)


@pytest.mark.parametrize("backend", ["dace_gpu", "dace_cpu"])
def test_dace_variants_with_other_parameters_share_a_shape_and_a_kernel_more_does_not(backend):
    found = _launches(f"{backend} apply_divergence_damping_and_update_vn")
    plain, both = found[PLAIN + DAMPING + "False"], found[BOTH + DAMPING + "False"]
    fourth = found[PLAIN + DAMPING + "True"]
    assert _shape(plain) == _shape(both)
    assert _shape(plain) != _shape(fourth)
    if backend == "dace_gpu":
        assert plain != both  # the kernel's parameters: IAU's increment, the limited area's
        assert _shape(plain) == (
            "__global__ __launch_bounds__(256) map_N_fieldop_N_N_N",
            "cudaLaunchKernel map_N_fieldop_N_N_N block (32, 8, 1)",
        )
        assert len(_shape(fourth)) == 4  # two kernels, each declared and launched
    else:
        assert _shape(plain) == ("#pragma omp parallel for i_K_gtx_vertical",)
        assert len(_shape(fourth)) == 2
