"""The suite runner (``iconbench suite``, :mod:`iconbench.runner`) and ``iconbench report``
on the CPU path.

The same steps as on the H100, with the embedded backend on the tiny grid: the ledger-driven
measure, the asv files and summary written from the ledger, and the report rendered from them.
"""

import json
import os
import pathlib
import shutil
import subprocess
import sys

import pytest
from tests.archived_results import restored

REPO = pathlib.Path(__file__).resolve().parents[1]
PROGRAMS = "^(compute_tangential_wind|update_theta_and_exner)\\["


SUITE = ("-m", "iconbench", "suite")
REPORT = ("-m", "iconbench", "report")


def _run(*args: str, cwd: pathlib.Path = REPO) -> subprocess.CompletedProcess:
    # the whole catalog (tests/timing switches it off for the harness's own tests)
    env = {k: v for k, v in os.environ.items() if k != "ICONBENCH_CATALOG"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO / "src"), env.get("PYTHONPATH")]))
    return subprocess.run(
        [sys.executable, *args], cwd=cwd, env=env, capture_output=True, text=True, check=False
    )


def _measure_compiled_only(suite: list[str]) -> str:
    """``measure --compiled-only`` with the ``suite`` options; its output, once it succeeded."""
    measured = _run(*suite, "measure", "--compiled-only", "--samples", "10")
    assert measured.returncode == 0, measured.stderr[-2000:]
    return measured.stderr + measured.stdout


def test_measure_asv_and_report_on_the_cpu(tmp_path):
    suite = [*SUITE, "--out", str(tmp_path), "--backends", "embedded", "--grid",
             "tiny", "--programs", PROGRAMS]  # fmt: skip
    measured = _run(*suite, "measure", "--samples", "10", "--max-s", "0.5")
    assert measured.returncode == 0, measured.stderr[-2000:]
    assert "measure: 2 cases" in measured.stderr + measured.stdout
    # resumable: a second run measures nothing
    again = _run(*suite, "measure", "--samples", "10")
    assert "measure: 0 cases" in again.stderr + again.stdout

    # asv without --programs: the directory's scope is the whole catalog (with --programs, the
    # summary records the selection and the report counts coverage against it)
    written = _run(*suite[:-2], "asv")
    assert written.returncode == 0, written.stderr[-2000:]
    (result_file,) = (tmp_path / "asv").glob("*/*-existing-*.json")
    data = json.loads(result_file.read_text())
    host = data["results"]["programs.Programs.time_host"]
    assert sum(value is not None for value in host[0]) == 2
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert {c["case"] for c in summary["cases"]} == {
        "compute_tangential_wind[default]",
        "update_theta_and_exner[default]",
    }
    assert all(c["bytes_moved"] > 0 and c["host_median_s"] > 0 for c in summary["cases"])

    # two variants of one program that never compiled: one row for the program, counted
    from iconbench.records import compilation

    ledger = compilation.CompileLedger(tmp_path / "work" / "compile.jsonl")
    solver = "vertically_implicit_solver_at_corrector_step"
    for last in ("True", "False"):
        case = (
            f"{solver}[lprep_adv=False-is_iau_active=False-rayleigh_type=1-"
            f"at_first_substep=True-at_last_substep={last}]"
        )
        error = "InvalidSDFGNodeError: scan connector | x"
        ledger.append(
            compilation.CompileRecord(case, "embedded", "tiny", summary["stack"], 0.0, error=error)
        )

    report = _run(*REPORT, str(tmp_path))
    assert report.returncode == 0, report.stderr[-2000:]
    assert "| embedded | 2 / 192 (1.0 %) | 0 | 2 |" in report.stdout
    assert "## 10 slowest on embedded" in report.stdout
    assert (
        "| embedded | `vertically_implicit_solver_at_corrector_step` | 2 / 32 | "
        "InvalidSDFGNodeError: scan connector \\| x |"
    ) in report.stdout


@pytest.mark.slow  # a whole CPU suite run for a report count: 33-74 s on 2 cores
def test_the_one_variant_report_counts_first_variants_only(tmp_path):
    """Other static variants measured so far stay out of a first-variant report."""
    suite = [*SUITE, "--out", str(tmp_path), "--backends", "embedded", "--grid",
             "tiny", "--programs", "^apply_diffusion_to_vn\\["]  # fmt: skip
    measured = _run(*suite, "measure", "--samples", "5", "--max-s", "0.5")
    assert "measure: 2 cases" in measured.stderr, measured.stderr[-2000:]
    assert _run(*suite, "asv").returncode == 0
    selection = _run(*REPORT, str(tmp_path))
    assert "| embedded | 2 / 2 (100.0 %) " in selection.stdout, selection.stderr[-2000:]
    assert "1 program of the suite on the generated grid (`tiny`)" in selection.stdout
    # the same ledger with the whole catalog as scope (asv without --programs)
    whole = tmp_path / "whole"
    shutil.copytree(tmp_path / "work", whole / "work")
    assert _run(*SUITE, "--out", str(whole), *suite[5:-2], "asv").returncode == 0
    every = _run(*REPORT, str(whole))
    firsts = _run(*REPORT, str(whole), "--one-variant")
    assert "| embedded | 2 / 192 " in every.stdout, every.stderr[-2000:]
    assert "| embedded | 1 / 112 " in firsts.stdout, firsts.stderr[-2000:]
    assert "limited_area=True" in every.stdout
    assert "limited_area=True" not in firsts.stdout


def test_plan_and_compiled_only_follow_the_compile_ledger(tmp_path):
    """``plan`` skips known compile failures and estimates from the ledger; ``measure
    --compiled-only`` measures nothing that precompile has not left in the cache."""
    from iconbench.records import compilation, session
    from iconbench.records.session import Measurement

    ledger = compilation.CompileLedger(tmp_path / "work" / "compile.jsonl")
    stack = "stack-test"
    for case, seconds, error in [
        ("compute_tangential_wind[default]", 40.0, None),  # compiled, but not in this cache
        ("update_theta_and_exner[default]", 0.0, "SDFG validation failed"),
    ]:
        ledger.append(compilation.CompileRecord(case, "gtfn_cpu", "tiny", stack, seconds,
                                                error=error))  # fmt: skip
    suite = [*SUITE, "--out", str(tmp_path), "--backends", "gtfn_cpu", "--grid",
             "tiny", "--programs", PROGRAMS, "--stack", stack, "--jobs", "2"]  # fmt: skip
    plan = _run(*suite, "plan")
    assert plan.returncode == 0, plan.stderr[-2000:]
    assert "2 pairs not measured on tiny; 1 fail to compile (skipped); 1 to compile: ~40 s" in (
        plan.stdout
    )
    output = _measure_compiled_only(suite)
    assert "1 pairs to measure are not compiled yet (left for later" in output
    assert "measure: 0 cases" in output
    assert "1 left -> run measure again" in output

    # once measured (on an earlier machine whose build cache is gone), the pair is not
    # reported as waiting for a compile
    measurement = Measurement([1e-3], [1e-3], "none")
    measured_before = session.CaseResult(
        "compute_tangential_wind[default]", "gtfn_cpu", "tiny", measurement, 8, 0.0, 40.0,
        None, None, None, 0.0, 1.0,
    )  # fmt: skip
    session.SessionLedger(tmp_path / "work" / "session.jsonl").append(measured_before)
    output = _measure_compiled_only(suite)
    assert "not compiled yet" not in output
    assert "measure: 0 cases" in output
    assert "; 0 left" in output


def test_measure_skips_compile_failures_of_its_own_stack_only(tmp_path):
    """A pair that failed to compile for another stack is still to measure on this one."""
    from iconbench.records import compilation

    ledger = compilation.CompileLedger(tmp_path / "work" / "compile.jsonl")
    for case, stack in [
        ("compute_tangential_wind[default]", "stack-test"),
        ("update_theta_and_exner[default]", "stack-old"),
    ]:
        ledger.append(compilation.CompileRecord(case, "gtfn_cpu", "tiny", stack, 0.0, error="x"))
    suite = [*SUITE, "--out", str(tmp_path), "--backends", "gtfn_cpu", "--grid",
             "tiny", "--programs", PROGRAMS, "--stack", "stack-test"]  # fmt: skip
    output = _measure_compiled_only(suite)
    assert "1 pairs to measure are not compiled yet" in output
    assert "measure: 0 cases" in output
    assert "; 1 left" in output


def test_plan_without_history_and_an_unknown_backend_say_so(tmp_path):
    suite = [*SUITE, "--out", str(tmp_path), "--grid", "tiny", "--programs", PROGRAMS]
    plan = _run(*suite, "--backends", "gtfn_cpu", "plan")
    assert plan.returncode == 0, plan.stderr[-2000:]
    assert "2 to compile: time unknown: no compile in work/compile.jsonl yet" in plan.stdout
    assert "2 to measure: time unknown: no case measured on tiny" in plan.stdout
    wrong = _run(*suite, "--backends", "gtfn_tpu", "plan")
    assert wrong.returncode == 2
    assert (
        wrong.stderr.strip()
        .splitlines()[-1]
        .startswith(
            "iconbench: error: argument --backends: unknown backend 'gtfn_tpu'; choose one of: "
            "embedded"
        )
    )


def test_an_unknown_grid_is_one_line_before_any_work(tmp_path):
    """A grid name that is no preset ends the step with exit 2 and one line, no traceback,
    before a worker starts or anything is written."""
    from iconbench.grids.presets import PRESETS

    suite = [*SUITE, "--out", str(tmp_path / "out"), "--backends", "embedded", "--grid",
             "no_such_grid", "--programs", PROGRAMS]  # fmt: skip
    measured = _run(*suite, "measure")
    assert measured.returncode == 2
    assert "Traceback" not in measured.stderr
    assert measured.stderr.strip().splitlines() == [
        "iconbench: error: argument --grid: unknown grid preset 'no_such_grid'; choose one of: "
        + ", ".join(PRESETS)
        + "; see 'iconbench suite --help'"
    ]
    assert not (tmp_path / "out").exists()


@pytest.mark.slow  # two suite runs: ~1 min on 2 free cores (tests/baselines checks the selection)
def test_experiment_selects_its_variants_and_results_record_the_grid(tmp_path):
    # mch_icon-ch1_medium runs apply_divergence_damping_and_update_vn in one of its 16
    # variants (is_iau_active=False, limited_area=True, 2nd order on, 4th order off)
    suite = [*SUITE, "--out", str(tmp_path), "--backends", "embedded", "--grid",
             "tiny", "--experiment", "mch_icon-ch1_medium", "--programs",
             "^(apply_divergence_damping_and_update_vn|compute_tangential_wind)\\["]  # fmt: skip
    measured = _run(*suite, "measure", "--samples", "5", "--max-s", "0.2")
    assert measured.returncode == 0, measured.stderr[-2000:]
    assert "measure: 2 cases" in measured.stderr + measured.stdout
    written = _run(*suite, "asv")
    assert written.returncode == 0, written.stderr[-2000:]
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["experiment"] == "mch_icon-ch1_medium"
    assert summary["grid_counts"] == {"cells": 512, "edges": 768, "vertices": 256, "levels": 10}
    assert {c["case"] for c in summary["cases"]} == {
        "compute_tangential_wind[default]",
        "apply_divergence_damping_and_update_vn[is_iau_active=False-limited_area=True-"
        "apply_2nd_order_divergence_damping=True-apply_4th_order_divergence_damping=False]",
    }
    (result_file,) = (tmp_path / "asv").glob("*/*-existing-*.json")
    assert json.loads(result_file.read_text())["params"]["grid_counts"] == "tiny:512/768/256/10"


@pytest.mark.slow  # imports gt4py and runs 'iconbench speedup': ~50 s on 2 shared cores
def test_the_committed_h100_report_is_what_the_result_directories_give():
    """results/h100/README.md is generated, not typed: one command gives it from results/ (with
    the raw files fetched from git history, as 'iconbench results fetch' does)."""
    dirs = [
        "results/h100",
        "results/h100-mch_icon-ch1_medium",
        "results/h100-ch1_medium-dace-2.0.0a6",
    ]
    (where,) = {restored(d).parents[1] for d in dirs}  # one scratch checkout holds all three
    report = _run(*REPORT, *dirs, cwd=where)
    assert report.returncode == 0, report.stderr[-2000:]
    # the same text but for the command line, which names the file it was written to, and the
    # directories, named from the scratch checkout instead of this one
    committed = (REPO / "results" / "h100" / "README.md").read_text()
    shown = report.stdout.replace(f"{where}/results/", "results/")
    assert shown == committed.replace(" --out results/h100/README.md`", "`", 1)
    # the two parts, their runs named by commit, and the stack-caused failures explained
    assert "| gtfn_gpu | 192 / 192 (100.0 %) | 0 | 0 |" in report.stdout
    assert str(where) not in shown
    assert "| dace_gpu | 119 / 192 (62.0 %) | 0 | 73 |" in report.stdout
    assert "| 0eb40b3 | 2026-11-23 20:13 | gtfn_gpu 13 | 0 |" in report.stdout
    assert "**19 of 19 succeeded**" in report.stdout
    # every failure of dace 2.0.0b1 compiles with the pinned 2.0.0a6 and is measured there
    assert "**73 of 73 succeeded**" in report.stdout
    assert "| dace_gpu | 75 / 75 (100.0 %) | 0 | 0 |" in report.stdout
    assert "| dace_gpu | 119 / 119 (100.0 %) | 0 | 0 |" in report.stdout
    assert "every case is measured or known not to compile" in report.stdout
    assert "lease" not in report.stdout.lower()


@pytest.mark.slow  # three suite runs: 37-82 s on 2 cores
def test_a_later_job_with_fewer_backends_or_another_stack(tmp_path):
    """``asv`` covers every backend of the ledger, not only this job's ``--backends``; a job of
    another stack is refused before it adds to the directory (its ledger has no stack field)."""
    common = ["--out", str(tmp_path), "--grid", "tiny", "--programs", "^compute_tangential_wind\\["]
    measured = _run(*SUITE, *common, "--backends", "embedded", "measure", "--samples", "5")
    assert "measure: 1 cases" in measured.stderr, measured.stderr[-2000:]
    written = _run(*SUITE, *common, "--backends", "gtfn_cpu", "asv")
    assert written.returncode == 0, written.stderr[-2000:]
    (result_file,) = (tmp_path / "asv").glob("*/*-existing-*.json")
    data = json.loads(result_file.read_text())
    host = data["results"]["programs.Programs.time_host"]
    assert sum(value is not None for value in host[0]) == 1
    summary = json.loads((tmp_path / "summary.json").read_text())
    stack = summary["stack"]
    assert summary["machine"]["num_cpu"] == str(os.cpu_count())

    # the result files written elsewhere from this summary describe the measuring machine
    elsewhere = tmp_path / "elsewhere"
    shutil.copytree(tmp_path / "work", elsewhere / "work")
    summary["machine"] |= {"num_cpu": "64", "cpu": "64 cores"}
    recorded = tmp_path / "recorded-summary.json"
    recorded.write_text(json.dumps(summary))
    again = _run(*SUITE, *common[2:], "--out", str(elsewhere), "--backends", "embedded",
                 "--stack", stack, "--provenance", str(recorded), "asv")  # fmt: skip
    assert again.returncode == 0, again.stderr[-2000:]
    (machine_json,) = (elsewhere / "asv").glob("*/machine.json")
    assert json.loads(machine_json.read_text())["num_cpu"] == "64"
    # a summary without the stack it ran on cannot lend it: one line, nothing more written
    del summary["provenance"]
    recorded.write_text(json.dumps(summary))
    before = sorted(p.name for p in (elsewhere / "asv").rglob("*.json"))
    lacking = _run(*SUITE, *common[2:], "--out", str(elsewhere), "--backends", "embedded",
                   "--stack", stack, "--provenance", str(recorded), "asv")  # fmt: skip
    assert lacking.returncode == 2
    assert f"--provenance {recorded}: the summary has no provenance" in lacking.stderr
    assert sorted(p.name for p in (elsewhere / "asv").rglob("*.json")) == before

    other = _run(*SUITE, *common, "--backends", "embedded", "--stack", "stack-other", "plan")
    assert other.returncode != 0
    (line,) = [text for text in other.stderr.splitlines() if "error" in text]
    assert f"holds results of {stack}, this run is stack-other" in line
    assert "give a new --out" in line
    assert sorted(p.name for p in tmp_path.glob("summary*.json")) == ["summary.json"]
