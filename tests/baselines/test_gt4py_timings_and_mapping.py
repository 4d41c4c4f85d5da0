"""GT4Py metrics dumps (written by gt4py's own writer) and the timer->program mapping data."""

from __future__ import annotations

import json
import tomllib

import numpy as np
import pytest
from gt4py.next.instrumentation import metrics

from iconbench.baselines import gt4py_timings, mapping
from iconbench.errors import IconbenchError

from .conftest import lognormal_samples


def _source(name: str, backend: str, samples: dict[str, tuple[float, ...]], **static_args):
    source = metrics.Source()
    if backend != "embedded":
        source.metadata |= {
            "name": name,
            "backend": backend,
            "static_args": static_args,
            "compiled_program_pool_id": 1,
            "compiled_program_pool_key": 2,
        }
    for metric, values in samples.items():
        for value in values:
            source.metrics[metric].add_sample(value)
    return source


@pytest.fixture
def dump(rng) -> tuple[str, dict]:
    """A dump as gt4py writes it (metrics.dumps_json), compiled and embedded sources."""
    compute_first = lognormal_samples(rng, 4.6e-4, 10)
    compute_other = lognormal_samples(rng, 4.3e-4, 10)
    sources = {
        "vertically_implicit_solver_at_predictor_step<gtfn_gpu>#0[11]": _source(
            "vertically_implicit_solver_at_predictor_step",
            "gtfn_gpu",
            {"compute": compute_first, "total": tuple(x + 1e-4 for x in compute_first)},
            at_first_substep=True,
        ),
        "vertically_implicit_solver_at_predictor_step<gtfn_gpu>#0[12]": _source(
            "vertically_implicit_solver_at_predictor_step",
            "gtfn_gpu",
            {"compute": compute_other, "total": tuple(x + 1e-4 for x in compute_other)},
            at_first_substep=False,
        ),
        "apply_diffusion_to_vn<'embedded'>": _source(
            "apply_diffusion_to_vn", "embedded", {"total": lognormal_samples(rng, 0.02, 5)}
        ),
    }
    return metrics.dumps_json(sources), sources


def test_reads_gt4py_written_dump(dump):
    text, sources = dump
    timings = gt4py_timings.from_metrics_dump(text, grid="R04B09", gpu="A100")
    by_key = {(t.program, t.variant, t.backend): t for t in timings}
    first = by_key[
        ("vertically_implicit_solver_at_predictor_step", "at_first_substep=True", "gtfn_gpu")
    ]
    src = sources["vertically_implicit_solver_at_predictor_step<gtfn_gpu>#0[11]"]
    # kernel time preferred; the first (warm-up) sample dropped
    assert first.metric == "compute"
    assert first.samples_s == tuple(src.metrics["compute"].samples[1:])
    embedded = by_key[("apply_diffusion_to_vn", "", "embedded")]
    assert embedded.metric == "total"
    assert len(embedded.samples_s) == 4
    assert (embedded.grid, embedded.gpu) == ("R04B09", "A100")
    total = gt4py_timings.from_metrics_dump(text, grid="g", gpu="x", metric="total")
    assert {t.metric for t in total} == {"total"}


def test_load_needs_grid_and_gpu_for_dumps(tmp_path, dump):
    path = tmp_path / "gt4py_timers.json"
    path.write_text(dump[0])
    with pytest.raises(IconbenchError, match="does not record grid or GPU; pass --grid and --gpu"):
        gt4py_timings.load(path, grid=None, gpu=None)
    assert len(gt4py_timings.load(path, grid="R04B09", gpu="A100")) == 3


@pytest.mark.parametrize(
    ("data", "match"),
    [
        ({"p<gtfn_gpu>#0[1]": {"metadata": {}}}, "key 'p<gtfn_gpu>#0\\[1\\]': expected"),
        ({"no backend": {"metrics": {}}}, "key 'no backend': expected 'program<backend>'"),
        (
            {"p<gtfn_gpu>": {"metrics": {"compute": [0.1, "x"]}}},
            "metrics.compute': expected a list",
        ),
        ({"p<gtfn_gpu>": {"metrics": {"compute": [-1.0]}}}, "metrics.compute': expected a list"),
    ],
)
def test_broken_dumps(data, match):
    with pytest.raises(IconbenchError, match=match):
        gt4py_timings.from_metrics_dump(json.dumps(data), grid="g", gpu="x", origin="f.json")


def test_variant_names_round_trip():
    args = {"at_first_substep": True, "at_last_substep": False, "n": -3}
    assert gt4py_timings.parse_variant(gt4py_timings.variant_name(args)) == args


def test_shipped_mapping_is_valid_and_covers_the_cases():
    m = mapping.load()
    # several timers per program (one per static variant) ...
    solver = [
        t
        for t in m.timers.values()
        if any(r.program == "vertically_implicit_solver_at_corrector_step" for r in t.programs)
    ]
    assert len(solver) == 3
    assert {tuple(r.static_args for r in t.programs) for t in solver} == {
        ((("at_first_substep", f), ("at_last_substep", last)),)
        for f, last in [(False, False), (True, False), (False, True)]
    }
    # ... several programs per timer, and the diffusion granule
    assert len(m.timers["boundary_halo_cleanup"].programs) == 2
    granule = m.timers["nh_hdiff_run"]
    assert granule.granule == "diffusion"
    assert {r.program for r in granule.programs} >= {
        "apply_diffusion_to_vn",
        "apply_diffusion_to_theta_and_exner",
    }
    assert "integrate_nh" in m.reference_timers
    assert "nh_hdiff_run_initial" in m.unmapped
    assert all(t.source for t in m.timers.values())


def test_mapped_programs_exist_in_icon4py():
    """Every mapped program is a real icon4py program of the installed version."""
    import importlib
    import pkgutil

    from icon4py.model import atmosphere, common

    names: set[str] = set()
    for package in (atmosphere, common):
        for info in pkgutil.walk_packages(package.__path__, f"{package.__name__}."):
            if ".tests" in info.name or not any(
                part in info.name for part in ("stencils", "diffusion_utils", "dycore_utils")
            ):
                continue
            names |= set(vars(importlib.import_module(info.name)))
    mapped = {r.program for t in mapping.load().timers.values() for r in t.programs}
    assert mapped - names == set()


@pytest.mark.parametrize(
    ("edit", "match"),
    [
        (lambda d: d["timers"][0].pop("source"), r"key 'timers\[0\].source': every mapping"),
        (lambda d: d["timers"][1]["programs"][0].update(calls=0), r"programs\[0\].calls"),
        (lambda d: d["timers"][1]["programs"][0].update(colour="red"), r"unknown field"),
        (lambda d: d["timers"].append(dict(d["timers"][2])), r"mapped twice"),
        (lambda d: d["unmapped"].update(nh_hdiff_run="x"), r"key 'unmapped': .*also mapped"),
        (lambda d: d.update(version=7), r"key 'version'"),
    ],
)
def test_broken_mapping(edit, match):
    data = tomllib.loads(mapping.DEFAULT_FILE.read_text())
    edit(data)
    with pytest.raises(IconbenchError, match=match):
        mapping.from_dict(data, "m.toml")


def test_asv_results_directory(tmp_path, rng):
    """asv results written by iconbench.records.asv (as `asv run` would) become timings."""
    from iconbench.records import asv as results

    cases = [
        "apply_diffusion_to_vn[default]",
        "vertically_implicit_solver_at_predictor_step[at_first_substep=True]",
    ]
    params = [[repr(c) for c in cases], [repr("gtfn_gpu")], [repr("r04b09")]]
    kinds = ("time_device", "time_host")
    benchmarks = [
        {
            "name": f"programs.Programs.{k}",
            "params": params,
            "type": "time",
            "unit": "seconds",
            "param_names": ["program", "backend", "grid"],
            "version": "1",
        }
        for k in kinds
    ]
    samples = {k: {c: list(lognormal_samples(rng, 1e-4, 10)) for c in cases} for k in kinds}
    values = {
        k: {(c, "gtfn_gpu", "r04b09"): (float(np.median(s)), s) for c, s in v.items()}
        for k, v in samples.items()
    }
    machine = {
        "machine": "h100-ci",
        "arch": "x86_64",
        "cpu": "",
        "num_cpu": "16",
        "os": "",
        "ram": "",
    }
    results.write_asv(
        tmp_path, benchmarks, values, machine=machine, commit="a" * 40, env_name="e", python="3.12"
    )
    timings = {t.program: t for t in gt4py_timings.load(tmp_path, grid=None, gpu="H100")}
    solver = timings["vertically_implicit_solver_at_predictor_step"]
    assert solver.static_args == (("at_first_substep", True),)
    assert solver.samples_s == tuple(samples["time_device"][cases[1]])
    assert (solver.metric, solver.grid, solver.gpu) == ("time_device", "r04b09", "H100")
    host = gt4py_timings.load(tmp_path, grid=None, gpu=None, metric="total")
    assert {t.metric for t in host} == {"time_host"}
    assert {t.gpu for t in host} == {"h100-ci"}  # the asv machine when no GPU is given
    with pytest.raises(
        IconbenchError, match=r"no results on grid 'ch1_medium'; grids present: r04b09$"
    ):
        gt4py_timings.load(tmp_path, grid="ch1_medium", gpu="H100")


def test_mapping_agrees_with_the_program_catalog():
    """Mapped programs are benchmarked by the suite, with the static arguments the mapping names."""
    from iconbench.programs.catalog import discover

    specs = {spec.name: spec for spec in discover()}
    for entry in mapping.load().timers.values():
        for ref in entry.programs:
            if ref.optional and ref.program not in specs:
                continue  # utility programs (scale_k) that the suite does not time
            assert ref.program in specs, (entry.timer, ref.program)
            variants = [gt4py_timings.parse_variant(v.name) for v in specs[ref.program].variants]
            for key, value in ref.static_args:
                assert any(v.get(key) == value for v in variants), (entry.timer, key, value)
