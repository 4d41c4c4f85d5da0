"""Every program and variant runs on the embedded backend with realistic, reproducible inputs.

This is the CI breadth check of the catalog: on ``tiny`` (torus) and ``tiny_lam`` (limited
area, where the lateral-boundary zones are not empty) each case is built, run on embedded and
its outputs are checked finite and written in the domain the program writes. Cases that the
embedded backend declines (``concat_where`` limits, upstream's ``uses_concat_where``) must fail
with exactly such an error; ``test_verification`` covers them on gtfn_cpu.
"""

from __future__ import annotations

import numpy as np
import pytest

from iconbench import verification
from iconbench.programs import caseindex, catalog, inputs

#: every case of the catalog, from its shipped index (``test_catalog`` checks it is what
#: discovery finds): collected in every test worker, discovery there would import each of
#: icon4py's programs in each of them (about 7 s of CPU a worker on two cores)
CASES = caseindex.case_ids() or catalog.case_ids(catalog.discover())


def _run_embedded(case, grid):
    spec, variant = catalog.lookup(case)
    call = inputs.build(spec, variant, grid, poison_outputs=True)
    try:
        call(spec.program)
    except Exception as error:
        if not verification.is_embedded_limitation(error):
            raise
        declined = f"embedded cannot run {spec.name}: {verification.one_line(error)}"
    else:
        return spec, call
    # outside the except: an xfail raised in it carries gt4py's whole traceback as its
    # context, which pytest formats for the report (38 s of the file's 83 s under cProfile)
    pytest.xfail(declined)


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("grid_name", ["tiny", "tiny_lam"])
def test_every_case_runs_on_embedded_and_writes_finite_outputs(case, grid_name, request):
    grid = request.getfixturevalue(grid_name)
    spec, call = _run_embedded(case, grid)
    assert verification.written_problems(spec, call) == []


def test_only_halo_and_damping_layer_programs_have_an_empty_domain(tiny_lam):
    """On tiny_lam every program writes something, unless its range is absent from the grid.

    Generated grids have no halo, and a 10-level grid has no level in the damping layer.
    """
    for spec in catalog.discover():
        call = inputs.build(spec, spec.variants[0], tiny_lam)
        arguments = call.arguments()
        sizes = []
        for name in spec.outputs:
            for domain in spec.output_domains.get(name, ((),)):
                region = inputs.written_region(domain, spec.param[name].dims, arguments)
                if region is not None:
                    sizes.append(np.empty(call.kwargs[name].ndarray.shape)[region].size)
        if not sizes or max(sizes) > 0:
            continue
        sources = " ".join(call.provenance.values())
        in_halo = "start_index(Cell, HALO)" in sources
        empty_damping = "end_index_of_damping_layer" in sources and (
            arguments["vertical_end"] <= arguments["vertical_start"]
        )
        assert in_halo or empty_damping, spec.name


def test_horizontal_indices_come_from_the_granule_zones(tiny_lam):
    from icon4py.model.common import dimension as dims
    from icon4py.model.common.grid import horizontal as h_grid

    spec, variant = catalog.lookup("apply_divergence_damping_and_update_vn")
    call = inputs.build(spec, variant, tiny_lam)
    edge = h_grid.domain(dims.EdgeDim)
    arguments = call.arguments()
    assert arguments["horizontal_start"] == tiny_lam.grid.start_index(
        edge(h_grid.Zone.NUDGING_LEVEL_2)
    )
    assert arguments["horizontal_end"] == tiny_lam.grid.end_index(edge(h_grid.Zone.LOCAL))
    assert 0 < arguments["horizontal_start"] < arguments["horizontal_end"]
    assert call.reviewed
    assert "solve_nonhydro" in call.provenance["horizontal_start"]


def test_vertical_indices_follow_the_call_site(tiny):
    spec, variant = catalog.lookup("compute_hydrostatic_correction_term")
    call = inputs.build(spec, variant, tiny)
    nlev = tiny.grid.num_levels
    assert (call.static_args["vertical_start"], call.static_args["vertical_end"]) == (
        nlev - 1,
        nlev,
    )


def test_granule_programs_compile_indices_and_constants_in_like_icon(tiny_lam):
    spec, variant = catalog.lookup("compute_exner_from_rhotheta")
    call = inputs.build(spec, variant, tiny_lam)
    assert set(call.static_args) == {
        "rd_o_cvd",
        "rd_o_p0ref",
        "horizontal_start",
        "horizontal_end",
        "vertical_start",
        "vertical_end",
    }
    assert not set(call.static_args) & set(call.kwargs)
    legacy, default = catalog.lookup("compute_tangential_wind")
    assert inputs.build(legacy, default, tiny_lam).static_args == {}


def test_inputs_are_reproducible_and_seeded(tiny):
    spec, variant = catalog.lookup("compute_tangential_wind")
    first = inputs.build(spec, variant, tiny, seed=0)
    again = inputs.build(spec, variant, tiny, seed=0)
    other = inputs.build(spec, variant, tiny, seed=1)
    vn = [c.kwargs["vn"].asnumpy() for c in (first, again, other)]
    assert np.array_equal(vn[0], vn[1])
    assert not np.array_equal(vn[0], vn[2])


def test_thermodynamic_state_is_positive_and_finite(tiny):
    spec, variant = catalog.lookup("compute_results_for_thermodynamic_variables")
    call = inputs.build(spec, variant, tiny)
    for name in ("rho_now", "exner_now", "theta_v_now"):
        values = call.kwargs[name].asnumpy()
        assert np.all(np.isfinite(values)), name
        assert values.min() > 0, name
    assert call.kwargs["theta_v_now"].asnumpy().min() >= 250


def test_bytes_moved_counts_each_field_once_and_in_out_fields_twice(tiny):
    spec, variant = catalog.lookup("update_theta_and_exner")
    call = inputs.build(spec, variant, tiny)
    assert set(call.in_out) == {"theta_v", "exner"}
    fields = {n: v for n, v in call.kwargs.items() if hasattr(v, "ndarray")}
    # fields with K have nlev + 1 levels; the domain is every cell on the nlev full levels
    nlev = tiny.grid.num_levels
    in_domain = {
        n: v.ndarray.nbytes // (nlev + 1) * nlev if "K" in spec.param[n].dims else v.ndarray.nbytes
        for n, v in fields.items()
    }
    assert sum("K" in spec.param[n].dims for n in fields) == 3  # z_temp, theta_v, exner
    expected = sum(in_domain.values()) + sum(in_domain[n] for n in call.in_out)
    assert call.bytes_moved == expected


def test_reset_restores_outputs_after_a_call(tiny):
    spec, variant = catalog.lookup("update_theta_and_exner")
    call = inputs.build(spec, variant, tiny)
    before = call.kwargs["theta_v"].asnumpy().copy()
    call(spec.program)
    assert not np.array_equal(call.kwargs["theta_v"].asnumpy(), before)
    call.reset()
    assert np.array_equal(call.kwargs["theta_v"].asnumpy(), before)


def test_copy_is_independent(tiny):
    spec, variant = catalog.lookup("update_theta_and_exner")
    call = inputs.build(spec, variant, tiny)
    twin = call.copy()
    twin(spec.program)
    assert not np.array_equal(twin.kwargs["theta_v"].asnumpy(), call.kwargs["theta_v"].asnumpy())


def test_fields_past_gt4py_allocator_limit_keep_their_values_and_run(tiny, monkeypatch):
    """Past the limit (2 GiB in gt4py 1.2) fields come from the array module: same call result."""
    spec, variant = catalog.lookup("compute_tangential_wind")
    program = spec.program
    normal = inputs.build(spec, variant, tiny)
    monkeypatch.setattr(inputs, "GT4PY_ALLOCATOR_LIMIT_BYTES", 1024)
    big = inputs.build(spec, variant, tiny)
    assert big.kwargs["vn"].ndarray.nbytes > 1024
    for name in ("vn", "rbf_vec_coeff_e"):
        assert np.array_equal(big.kwargs[name].asnumpy(), normal.kwargs[name].asnumpy())
        # gt4py's memory order (horizontal contiguous), which compiled GPU programs check
        order = np.argsort(big.kwargs[name].ndarray.strides).tolist()
        assert order == np.argsort(normal.kwargs[name].ndarray.strides).tolist()
        assert big.kwargs[name].ndarray.strides[0] == big.kwargs[name].ndarray.itemsize
    normal(program)
    big(program)
    assert np.allclose(big.kwargs["vt"].asnumpy(), normal.kwargs["vt"].asnumpy())
    assert np.isfinite(big.kwargs["vt"].asnumpy()).any()


def test_build_without_fields_keeps_static_arguments_and_offsets(tiny_lam):
    spec, variant = catalog.lookup("apply_diffusion_to_vn[limited_area=True]")
    full = inputs.build(spec, variant, tiny_lam)
    bare = inputs.build(spec, variant, tiny_lam, fields=False)
    assert bare.static_args == full.static_args
    assert set(bare.offset_provider) == set(full.offset_provider)
    assert not any(hasattr(v, "ndarray") for v in bare.kwargs.values())
    assert bare.bytes_moved == 0 < full.bytes_moved


def test_device_random_draws_in_range_from_any_generator():
    draw = inputs.DeviceRandom(np.random.default_rng(7))
    values = draw.uniform(250.0, 350.0, size=(10_000,))
    assert 250.0 <= values.min() < 251.0
    assert 349.0 < values.max() < 350.0
    mask = draw.random((10_000,)) < 0.1
    assert 0.08 < mask.mean() < 0.12


def test_minimum_bytes_count_only_the_domain(tiny_lam):
    """A program writing one level moves one level of each field, not the whole fields."""
    sizes = inputs.grid_sizes(tiny_lam.grid)
    edges = sizes.horizontal["Edge"]
    spec, variant = catalog.lookup("extrapolate_at_top[default]")
    # vn_ie written at the top half level, vn and wgtfacq_e read there: 3 fields x 1 level
    assert inputs.minimum_bytes_on(spec, variant, tiny_lam) == 3 * edges * 1 * 8
    # never more than every field read once and written once whole
    for case in ("compute_tangential_wind[default]", "apply_diffusion_to_vn[limited_area=True]"):
        spec, variant = catalog.lookup(case)
        fields = [p for p in spec.params if p.is_field]
        whole = sum(
            np.dtype(p.dtype).itemsize
            * int(np.prod(sizes.shape(p)))
            * (2 if p.name in spec.outputs and p.name in spec.reads else 1)
            for p in fields
        )
        assert 0.5 * whole < inputs.minimum_bytes_on(spec, variant, tiny_lam) <= whole


def test_static_variants_share_drawn_inputs_and_start_from_drawn_outputs(tiny_lam):
    """A second variant gets exactly a fresh draw's values, though the first updated its outputs."""
    from iconbench.programs.drawn_fields import DrawnFields

    name = "apply_divergence_damping_and_update_vn"
    first_case, second_case = (
        f"{name}[is_iau_active={iau}-limited_area=True-apply_2nd_order_divergence_damping=False"
        "-apply_4th_order_divergence_damping=True]"
        for iau in ("False", "True")
    )
    spec, first_variant = catalog.lookup(first_case)
    _, second_variant = catalog.lookup(second_case)
    drawn = DrawnFields()
    first = inputs.build(spec, first_variant, tiny_lam, drawn=drawn)
    before = first.kwargs["next_vn"].asnumpy().copy()
    first(spec.program)
    assert not np.array_equal(first.kwargs["next_vn"].asnumpy(), before)  # updated in place

    second = inputs.build(spec, second_variant, tiny_lam, drawn=drawn)
    fresh = inputs.build(spec, second_variant, tiny_lam)
    fields = [n for n, v in fresh.kwargs.items() if hasattr(v, "ndarray")]
    assert len(fields) == 16
    assert set(drawn.fields) == set(fields)
    for field in fields:
        assert np.array_equal(second.kwargs[field].asnumpy(), fresh.kwargs[field].asnumpy()), field
        assert second.kwargs[field].ndarray.strides == fresh.kwargs[field].ndarray.strides
        shared = second.kwargs[field] is first.kwargs[field]
        assert shared == (field not in spec.outputs), field  # outputs are copies of their own
    assert second.static_args["is_iau_active"] is True
    assert first.static_args["is_iau_active"] is False
    assert second.provenance == fresh.provenance
    assert drawn.nbytes == sum(fresh.kwargs[f].ndarray.nbytes for f in fields)
    with pytest.raises(ValueError, match="poisoned"):
        inputs.build(spec, second_variant, tiny_lam, drawn=drawn, poison_outputs=True)


def test_a_process_draws_a_programs_inputs_once_for_all_its_variants(monkeypatch):
    from iconbench import suite

    monkeypatch.setattr(suite, "_has_catalog", lambda: True)  # cached off by an earlier test
    monkeypatch.setattr(suite, "_DRAWN", suite.DrawnFieldsCache())
    draws = []
    original = inputs.field_values
    monkeypatch.setattr(
        inputs, "field_values", lambda *a, **k: draws.append(a[1].name) or original(*a, **k)
    )
    cases = [f"apply_diffusion_to_vn[limited_area={lam}]" for lam in (True, False)]
    for case in cases:
        suite._build(case, suite.as_backend("embedded"), suite.as_grid("tiny"))
    spec, _ = catalog.lookup(cases[0])
    assert sorted(draws) == sorted(p.name for p in spec.params if p.is_field)  # once, not twice
    assert suite._DRAWN.keys() == [("apply_diffusion_to_vn", suite.as_backend("embedded"),
                                    suite.as_grid("tiny"))]  # fmt: skip


def test_a_program_past_the_drawn_limit_keeps_nothing_and_copies_no_output(tiny_lam, monkeypatch):
    """A program too big to keep (the limit is 4 GiB a process) costs no copies of its outputs."""
    from iconbench.programs.drawn_fields import DrawnFields, DrawnFieldsCache

    spec, variant = catalog.lookup("apply_diffusion_to_vn[limited_area=True]")
    allocations: list[str] = []
    real = inputs._allocate
    monkeypatch.setattr(inputs, "_allocate",
                        lambda values, param, *a, **k: allocations.append(param.name)
                        or real(values, param, *a, **k))  # fmt: skip
    fields = [p.name for p in spec.params if p.is_field]
    outputs = [name for name in fields if name in spec.outputs]
    assert outputs

    kept = DrawnFields(limit_bytes=None)
    inputs.build(spec, variant, tiny_lam, drawn=kept)
    assert len(allocations) == len(fields) + len(outputs)  # each output once more, as drawn
    assert set(kept.fields) == set(fields)

    allocations.clear()
    small = DrawnFields(limit_bytes=0)
    inputs.build(spec, variant, tiny_lam, drawn=small)
    assert small.full
    assert small.fields == {}
    assert sorted(allocations) == sorted(fields)  # no output copied for keeping
    cache = DrawnFieldsCache(limit_bytes=0)
    cache.store("apply_diffusion_to_vn", small)
    assert cache.for_key("apply_diffusion_to_vn") is None  # drawn for every variant from now on
