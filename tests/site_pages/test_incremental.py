"""Publishing adds to the history: only new files are read, only affected pages written."""

import json
import os

from site_pages.conftest import BASELINES, H100, copy_result_set, gate_summary, publish


def test_publish_adds_runs_and_rerenders_only_affected_pages(tmp_path, cpu_results):
    h100 = copy_result_set(H100 / "asv", tmp_path / "h100")
    out = tmp_path / "site"
    _, first, _ = publish(h100, "--out", out, "--store", BASELINES, "--no-asv")
    assert (first["runs_added"], first["runs_total"]) == (6, 6)
    program_page = out / "programs" / "apply_diffusion_to_vn.html"
    before = program_page.stat().st_mtime_ns

    # nothing new: nothing read, nothing written
    _, again, _ = publish(h100, "--out", out, "--store", BASELINES, "--no-asv")
    assert (again["runs_added"], again["pages"]) == (0, [])

    # a new result set of other programs: the H100 program pages stay as they are
    cpu = copy_result_set(cpu_results, tmp_path / "cpu")
    _, second, _ = publish(h100, cpu, "--out", out, "--store", BASELINES, "--no-asv")
    assert (second["runs_added"], second["runs_total"]) == (3, 9)
    bench = json.loads((cpu / "benchmarks.json").read_text())["programs.Programs.time_device"]
    cpu_programs = {case.strip("'").split("[")[0] for case in bench["params"][0]}
    assert "compute_tangential_wind" in cpu_programs
    run_pages = {page for page in second["pages"] if page.startswith("runs/")}
    assert len(run_pages) == 3  # one page per new run, none for the H100 runs already there
    assert set(second["pages"]) - run_pages == {
        "index.html",
        "estimate.html",
        "programs/index.html",
    } | {f"programs/{program}.html" for program in cpu_programs}
    assert program_page.stat().st_mtime_ns == before

    # the history survives its source files: delete one, publish, the run is still there
    newest = max(cpu.glob("*/*-*.json"))
    newest.unlink()
    _, third, _ = publish(cpu, "--out", out, "--store", BASELINES, "--no-asv")
    assert (third["runs_added"], third["runs_total"]) == (0, 9)
    assert newest.name[:8] in (out / "programs" / "compute_tangential_wind.html").read_text()


def test_a_broken_result_file_is_reported_and_skipped(tmp_path, cpu_results):
    cpu = copy_result_set(cpu_results, tmp_path / "cpu")
    broken = next(cpu.glob("*/*-*.json"))
    broken.write_text(broken.read_text()[:1000])  # cut off mid-file, as a full disk leaves it
    out = tmp_path / "site"
    code, outcome, stderr = publish(cpu, "--out", out, "--no-asv")
    assert code == 0
    assert outcome["runs_added"] == 2
    assert len(outcome["problems"]) == 1
    assert str(broken) in outcome["problems"][0]
    # the shared asv reader's one line: where, what is wrong and what to do
    problem = outcome["problems"][0]
    assert "line 1: invalid JSON" in problem
    assert "the file may be truncated); move the broken file out of the results dir" in problem
    assert stderr.count("\n") == 1  # one line
    assert (out / "index.html").exists()
    # once repaired (same path, new content), it is read on the next publish
    broken.write_text(next(cpu_results.glob(f"*/{broken.name}")).read_text())
    _, repaired, _ = publish(cpu, "--out", out, "--no-asv")
    assert (repaired["runs_added"], repaired["runs_total"], repaired["problems"]) == (1, 3, [])


def test_gate_summaries_of_another_version_are_skipped(tmp_path, cpu_results):
    gates = tmp_path / "gates"
    gates.mkdir()
    (gates / "new.json").write_text(json.dumps(gate_summary(version=2)))
    (gates / "ok.json").write_text(json.dumps(gate_summary(verdict="pass")))
    _, outcome, _ = publish(cpu_results, "--gate", gates, "--out", tmp_path / "site", "--no-asv")
    assert outcome["gates_added"] == 1
    assert len(outcome["problems"]) == 1
    assert "version 2" in outcome["problems"][0]
    assert "upgrade iconbench" in outcome["problems"][0]
    assert "pr-17" in (tmp_path / "site" / "gates.html").read_text()


def test_bad_input_is_one_line_and_writes_nothing(tmp_path, cpu_results):
    out = tmp_path / "site"
    for args, expected in (
        (["no/such/results", "--out", out], "no/such/results: no such file or directory"),
        ([tmp_path, "--out", out], "neither an asv results directory"),
        ([cpu_results, "--out", out, "--baseline", "nope/x_y_z"], "--baseline 'nope/x_y_z'"),
        ([cpu_results, "--out", out, "--static", "limited_area"], "expected KEY=VALUE"),
        (
            [cpu_results, "--out", out, "--gate", tmp_path / "none.json"],
            "none.json: no such file or directory",
        ),
    ):
        code, _, stderr = publish(*args, check=False)
        assert code == 2, stderr
        assert stderr.startswith("iconbench: error: ")
        assert expected in stderr
        assert stderr.count("\n") == 1
        assert not out.exists()
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text("mine")
    code, _, stderr = publish(cpu_results, "--out", tmp_path / "other", check=False)
    assert code == 2
    assert "is not an iconbench site" in stderr
    assert os.listdir(tmp_path / "other") == ["notes.txt"]


def test_a_site_of_an_older_iconbench_stops_publishing_local_paths(tmp_path, cpu_results):
    cpu = copy_result_set(cpu_results, tmp_path / "cpu")
    out = tmp_path / "site"
    publish(cpu, "--out", out, "--no-asv")
    # as an older iconbench left it: inputs keyed by absolute path, runs naming theirs
    index_path = out / "data" / "index.json"
    index = json.loads(index_path.read_text())
    files = sorted(str(p.resolve()) for p in cpu.glob("*/*-*.json"))
    index["sources"] = {path: {"stamp": [0, 0], "runs": []} for path in files}
    index["design"] = "older"
    index_path.write_text(json.dumps(index))
    for stored in (out / "data" / "runs").glob("*.json"):
        run = json.loads(stored.read_text())
        stored.write_text(json.dumps({**run, "source": files[0]}))
    publish(cpu, "--out", out, "--no-asv")
    local = str(tmp_path).encode()
    assert [str(p) for p in out.rglob("*") if p.is_file() and local in p.read_bytes()] == []
