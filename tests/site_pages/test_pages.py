# ruff: noqa: E501  (the browser-side JavaScript snippets read best on one line each)
"""The published site in headless Chromium: no console errors, the right programs and numbers.

Expected numbers are computed here from the result files themselves (json, statistics,
tomllib), not through iconbench's readers.
"""

import json
import pathlib
import statistics
import tomllib

import pytest

from site_pages.conftest import BASELINES, H100, PINS

MAPPING = pathlib.Path(__file__).resolve().parents[2] / "baselines" / "mapping" / "icon_timers.toml"


def latest_h100_file() -> dict:
    files = [p for p in (H100 / "asv" / "h100").glob("*.json") if p.name != "machine.json"]
    return max((json.loads(p.read_text()) for p in files), key=lambda d: d["date"])


def device_medians(data: dict) -> dict[tuple[str, str], float]:
    row = dict(
        zip(data["result_columns"], data["results"]["programs.Programs.time_device"], strict=False)
    )
    cases, backends, grids = row["params"]
    medians = {}
    combos = [(c, b, g) for c in cases for b in backends for g in grids]
    for (case, backend, _), samples in zip(combos, row["samples"], strict=False):
        if samples:
            medians[(case.strip("'"), backend.strip("'"))] = statistics.median(samples)
    return medians


def parse(variant: str) -> dict:
    if variant in ("", "default"):
        return {}
    out = {}
    for part in variant.split("-"):
        key, _, value = part.partition("=")
        out[key] = {"True": True, "False": False}.get(
            value, int(value) if value.isdigit() else value
        )
    return out


def expected_estimate(backend: str) -> float:
    """E = sum n*a / sum n*g over the baseline's counted timers (docs/baselines.md)."""
    medians = device_medians(latest_h100_file())
    baseline = json.loads(next(BASELINES.rglob("*.json")).read_text())
    timers = {t["name"]: t for t in baseline["timers"]}
    mapping = tomllib.loads(MAPPING.read_text())
    openacc = gt4py = 0.0
    for entry in mapping["timers"]:
        timer = timers.get(entry["name"])
        if timer is None or any(e in timers for e in entry.get("encloses", [])):
            continue
        total, complete = 0.0, True
        for ref in entry["programs"]:
            found = [
                m
                for (case, b), m in medians.items()
                if b == backend
                and case.split("[")[0] == ref["program"]
                and all(
                    parse(case[:-1].split("[")[1]).get(k) == v
                    for k, v in ref.get("static_args", {}).items()
                )
                and all(PINS.get(k, v) == v for k, v in parse(case[:-1].split("[")[1]).items())
            ]
            if found:
                total += ref.get("calls", 1) * found[0]
            elif not ref.get("optional"):
                complete = False
        if complete:
            openacc += timer["calls"] * timer["t_avg_s"]
            gt4py += timer["calls"] * total
    return openacc / gt4py


def test_every_page_loads_without_console_errors(site, browser):
    pages = sorted(site.rglob("*.html"))
    ours = [p for p in pages if "asv" not in p.relative_to(site).parts]
    assert len(ours) > 100  # overview, estimate, gates, program list, one page per program
    for page in ours:
        loaded = browser.open(page.as_uri(), "document.querySelectorAll('main').length")
        assert loaded.problems == (), f"{page}: {[str(p) for p in loaded.problems]}"
        assert loaded.value == 1
    # asv's own pages are built and linked (test_offline.py opens them, served, offline)
    links = browser.open(
        (site / "index.html").as_uri(),
        "[...document.querySelectorAll('#asv ~ p a')].map(a => a.href)",
    ).value
    assert len(links) == 2
    assert all(pathlib.Path(link.removeprefix("file://")).exists() for link in links)


def test_overview_shows_programs_coverage_and_estimate(site, browser):
    loaded = browser.open(
        (site / "index.html").as_uri(),
        """(() => {
          const h100 = [...document.querySelectorAll('section.target')].find(s => s.dataset.grid === 'ch1_medium');
          const cpu = [...document.querySelectorAll('section.target')].find(s => s.dataset.grid === 'tiny');
          return {
            commit: h100.querySelector('code.commit').textContent,
            estimates: Object.fromEntries([...h100.querySelectorAll('.kpi.estimate')].map(k => [k.dataset.backend, parseFloat(k.dataset.value)])),
            coverage: Object.fromEntries([...h100.querySelectorAll('.kpi.coverage')].map(k => [k.dataset.backend, k.querySelector('.value').textContent + ' | ' + k.querySelector('.label').textContent])),
            timers: [...h100.querySelectorAll('table.speedups tbody tr')].map(r => r.dataset.timer),
            shares: [...h100.querySelectorAll('table.speedups tbody tr td.share')].map(c => parseFloat(c.dataset.value)),
            speedup: Object.fromEntries([...h100.querySelectorAll('table.speedups tbody tr')].filter(r => r.dataset.timer === 'apply_diffusion_to_vn').flatMap(r => [...r.querySelectorAll('td.speedup')].map(c => [c.dataset.backend, parseFloat(c.dataset.value)]))),
            chart: !!h100.querySelector('svg#speedup-' + h100.id + ' rect.bar'),
            goal: [...h100.querySelectorAll('svg g.reference title')].map(t => t.textContent),
            cpuPrograms: [...cpu.querySelectorAll('svg.chart text:not(.value) > title')].map(t => t.textContent).sort(),
            cases: [...document.querySelectorAll('#cases tbody tr')].length,
          };
        })()""",
    )
    assert loaded.problems == ()
    got = loaded.value
    data = latest_h100_file()
    assert got["commit"] == data["commit_hash"][:8]
    medians = device_medians(data)
    for backend in ("gtfn_gpu", "dace_gpu"):
        measured = sum(1 for (_, b) in medians if b == backend)
        assert got["coverage"][backend].startswith(f"{measured}/192")
        assert got["estimates"][backend] == pytest.approx(expected_estimate(backend), rel=1e-9)
    compile_failed = {
        (e["case"], e["backend"])
        for e in map(json.loads, (H100 / "work" / "compile.jsonl").read_text().splitlines())
        if e.get("error")
    } - set(medians)
    dace_failed = sum(1 for _, b in compile_failed if b == "dace_gpu")
    assert f"{dace_failed} compile failed" in got["coverage"]["dace_gpu"]
    assert dace_failed == 73
    # sorted by share of OpenACC time, largest first
    assert got["shares"] == sorted(got["shares"], reverse=True)
    assert "apply_diffusion_to_vn" in got["timers"]
    baseline = json.loads(next(BASELINES.rglob("*.json")).read_text())
    a = next(t for t in baseline["timers"] if t["name"] == "apply_diffusion_to_vn")["t_avg_s"]
    for backend in ("gtfn_gpu", "dace_gpu"):
        g = medians[("apply_diffusion_to_vn[limited_area=True]", backend)]
        assert got["speedup"][backend] == pytest.approx(a / g, rel=1e-9)
    assert got["chart"]
    assert "goal 1.5x" in got["goal"]
    assert got["cpuPrograms"] == sorted(
        [
            "compute_perturbation_of_rho_and_theta",
            "compute_tangential_wind",
            "mo_intp_rbf_rbf_vec_interpol_vertex",
        ]
    )
    assert got["cases"] == 384 + 4


def test_table_filters_by_backend_and_grid(site, browser):
    browser.open((site / "index.html").as_uri())
    counts = browser.evaluate(
        """(() => {
          const block = document.querySelector('.filters[data-table="cases"]');
          const set = (name, value) => { const el = block.querySelector(`[data-filter="${name}"]`);
            el.value = value; el.dispatchEvent(new Event('change')); };
          const visible = () => [...document.querySelectorAll('#cases tbody tr')].filter(r => !r.hidden).length;
          set('backend', 'dace_gpu'); const dace = visible();
          set('backend', ''); set('grid', 'tiny'); const tiny = visible();
          set('grid', ''); set('program', 'diffusion_to_vn'); const program = visible();
          set('program', '');
          const header = document.querySelector('#cases thead th:nth-child(7)');
          header.click(); header.click();
          const first = parseFloat(document.querySelector('#cases tbody tr td:nth-child(7)').dataset.value);
          return {dace, tiny, program, first};
        })()"""
    )
    assert browser.problems() == ()
    medians = device_medians(latest_h100_file())
    assert counts["dace"] == 192
    assert counts["tiny"] == 4
    assert counts["program"] == 4  # two variants x two backends
    assert counts["first"] == pytest.approx(max(medians.values()), rel=1e-9)


def test_program_page_shows_its_history_plot(site, browser):
    page = site / "programs" / "apply_diffusion_to_vn.html"
    loaded = browser.open(
        page.as_uri(),
        """(() => {
          const chart = document.querySelector('svg.chart[id^="device_s-nvidia-h100"]');
          const box = chart.getBoundingClientRect();
          return {
            title: document.querySelector('h1.program').textContent,
            charts: document.querySelectorAll('svg.chart').length,
            case: chart.closest('.charts').previousElementSibling.textContent,
            width: box.width, height: box.height,
            points: [...chart.querySelectorAll('circle.point title')].map(t => t.textContent),
            references: [...chart.querySelectorAll('g.reference title')].map(t => t.textContent),
          };
        })()""",
    )
    assert loaded.problems == ()
    got = loaded.value
    assert got["title"] == "apply_diffusion_to_vn"
    assert got["width"] > 300
    assert got["height"] > 150
    assert got["charts"] >= 4  # device time, overhead, compile, bandwidth (per variant)
    # the experiment's variant (PINS: limited_area=True) is charted first
    assert got["case"] == "apply_diffusion_to_vn[limited_area=True]"
    # one point per run that measured it, per backend: a result file repeats the values of
    # cases it did not measure again (a snapshot), and those are not points
    files = sorted(
        (json.loads(p.read_text()) for p in (H100 / "asv" / "h100").glob("*-*.json")),
        key=lambda d: d["date"],
    )
    points, last = [], {}
    for data in files:
        for (case, backend), median in device_medians(data).items():
            if case == got["case"] and last.get(backend) != median:
                points.append(f"{backend} @ {data['commit_hash'][:8]}")
                last[backend] = median
    assert sorted(t.split(":")[0] for t in got["points"]) == sorted(points)
    assert len(points) < sum(
        1 for data in files for (case, _) in device_medians(data) if case == got["case"]
    )
    assert any(t.startswith("OpenACC (apply_diffusion_to_vn)") for t in got["references"])


def test_gate_verdicts_are_listed_with_commits(site, browser):
    loaded = browser.open(
        (site / "gates.html").as_uri(),
        "[...document.querySelectorAll('#verdicts tbody tr')].map(r => r.textContent.replace(/\\s+/g, ' '))",
    )
    assert loaded.problems == ()
    assert len(loaded.value) == 1
    assert "regression" in loaded.value[0]
    assert "412cde30" in loaded.value[0]
    assert "0e8595e4" in loaded.value[0]
