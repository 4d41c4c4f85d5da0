"""The catalog finds every program once, with its static variants, and new ones automatically."""

from __future__ import annotations

import importlib
import pkgutil
import sys
import textwrap

import pytest

from iconbench.errors import IconbenchError
from iconbench.programs import catalog


def _programs_by_walking(packages):
    from gt4py.next.ffront.decorator import Program

    found = set()
    for name in packages:
        package = importlib.import_module(name)
        for info in pkgutil.walk_packages(package.__path__, name + "."):
            for obj in vars(importlib.import_module(info.name)).values():
                if isinstance(obj, Program):
                    definition = obj.definition_stage.definition
                    found.add((definition.__module__, definition.__qualname__))
    return found


def test_every_program_once_sorted():
    specs = catalog.discover()
    definitions = {
        (s.program.definition_stage.definition.__module__, s.name.rsplit(".", 1)[-1]) for s in specs
    }
    assert definitions == _programs_by_walking(catalog.PACKAGES)
    assert len(specs) == len(definitions)
    names = [s.name for s in specs]
    assert names == sorted(names)
    assert len(set(names)) == len(names)


def test_programs_of_the_granule_modules_are_included():
    modules = {s.module.rsplit(".", 1)[-1] for s in catalog.discover()}
    assert {"dycore_utils", "diffusion_utils", "solve_nonhydro_stencils"} <= modules


@pytest.mark.parametrize(
    ("program", "static"),
    [
        ("vertically_implicit_solver_at_predictor_step", {"at_first_substep", "is_iau_active"}),
        ("vertically_implicit_solver_at_corrector_step", {"at_first_substep", "at_last_substep"}),
        (
            "compute_advection_in_predictor_vertical_momentum",
            {"skip_compute_predictor_vertical_advection"},
        ),
        ("compute_averaged_vn_and_fluxes", {"prepare_advection"}),
        ("apply_diffusion_to_vn", {"limited_area"}),
    ],
)
def test_static_variants_cover_every_combination(program, static):
    spec, _ = catalog.lookup(program)
    assert static <= set(spec.static_params)
    expected = 1
    for name in spec.static_params:
        values = {v.static_args[name] for v in spec.variants}
        assert len(values) >= 2, name
        expected *= len(values)
    assert len(spec.variants) == expected == len({v.name for v in spec.variants})


def test_rayleigh_and_divdamp_types_are_icon4py_enums():
    from icon4py.model.atmosphere.dycore import dycore_states
    from icon4py.model.common import constants

    spec, _ = catalog.lookup("vertically_implicit_solver_at_predictor_step")
    rayleigh = {v.static_args["rayleigh_type"] for v in spec.variants}
    divdamp = {v.static_args["divdamp_type"] for v in spec.variants}
    assert rayleigh == {int(t) for t in constants.RayleighType}
    assert divdamp == {int(t) for t in dycore_states.DivergenceDampingType}


def test_signature_outputs_and_domain():
    spec, variant = catalog.lookup("compute_tangential_wind")
    assert variant.name == "default"
    assert spec.static_params == ()
    assert spec.param["vn"].dims == ("Edge", "K")
    assert spec.param["vn"].dtype == "float64"
    assert spec.outputs == ("vt",)
    assert spec.domain == "Edge[horizontal_start:horizontal_end] K[vertical_start:vertical_end]"


def test_case_ids_round_trip_and_unknown_ids_fail():
    specs = catalog.discover()
    ids = catalog.case_ids(specs)
    assert len(ids) == len(set(ids)) == sum(len(s.variants) for s in specs)
    for case in ids[:: max(1, len(ids) // 25)]:
        spec, variant = catalog.lookup(case)
        assert spec.case_id(variant) == case
    with pytest.raises(IconbenchError, match="unknown program 'no_such_program'"):
        catalog.lookup("no_such_program[default]")
    with pytest.raises(IconbenchError, match=r"unknown variant 'x=1'.*choose one of"):
        catalog.lookup("compute_averaged_vn_and_fluxes[x=1]")


def test_a_new_program_appears_without_code_changes(tmp_path, monkeypatch):
    package = tmp_path / "fake_icon4py_dycore"
    (package / "stencils").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "stencils" / "__init__.py").write_text("")
    (package / "stencils" / "double_it.py").write_text(
        textwrap.dedent(
            """
            import gt4py.next as gtx
            from icon4py.model.common import dimension as dims

            @gtx.field_operator
            def _double_it(a: gtx.Field[gtx.Dims[dims.CellDim, dims.KDim], float]
            ) -> gtx.Field[gtx.Dims[dims.CellDim, dims.KDim], float]:
                return 2.0 * a

            @gtx.program
            def double_it(
                a: gtx.Field[gtx.Dims[dims.CellDim, dims.KDim], float],
                out: gtx.Field[gtx.Dims[dims.CellDim, dims.KDim], float],
                use_it: bool,
            ):
                _double_it(a, out=out)

            alias = double_it  # re-exported: still one program
            """
        )
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    specs = catalog.discover(["fake_icon4py_dycore"])
    assert [s.name for s in specs] == ["double_it"]
    assert specs[0].outputs == ("out",)
    assert [v.name for v in specs[0].variants] == ["use_it=False", "use_it=True"]
    sys.modules.pop("fake_icon4py_dycore.stencils.double_it", None)


def test_the_shipped_case_index_is_what_the_catalog_discovers():
    """The CLI checks --programs against the index without importing gt4py; a stale index
    (a changed variant table) would accept or reject the wrong names."""
    from iconbench.programs import caseindex

    discovered = catalog.case_ids(catalog.discover())
    key = caseindex.installed_key()
    shipped = caseindex.SHIPPED / f"{key}.txt"
    assert shipped.read_text() == caseindex.text_of(discovered), (
        f"regenerate {shipped}: python -c 'from iconbench.programs import caseindex, catalog; "
        f'print(caseindex.text_of(catalog.case_ids(catalog.discover())), end="")\' > {shipped}'
    )
    assert caseindex.case_ids() == discovered
