"""``iconbench explain`` on the CPU: a fake ``ncu`` on PATH, real build folders, to the site.

Two runner directories (base, head) hold asv results of four GPU benchmarks and one CPU
benchmark on the tiny grid (samples are test input: medians chosen so that the gate flags
them), the compile ledger of each side and its build cache with the generated code.
``iconbench compare`` makes the verdict; ``iconbench explain`` profiles the flagged GPU
benchmarks with a fake ``ncu`` (a script on PATH that records how it was called and writes
the CSV of ``data/ncu_*.TEST_INPUT.csv`` as its log) and diffs the generated code; then
the comment (``iconbench comment --dry-run``) and the program page (``iconbench publish``)
show the why.

The generated code is real gt4py 1.2.1 output (gtfn_cpu's ``compute_tangential_wind``,
dace_cpu's ``apply_nabla2_to_w`` generated from its SDFG) standing in for the GPU builds;
head's copy has a planted change: gtfn's block sizes 32x8 -> 64x4, DaCe's two loops of the
second map swapped. Two more variants of ``compute_tangential_wind`` are flagged with it:
one whose code differs only inside its functor (the same kernels: not profiled again) and
one that launches a second stencil (profiled on its own; its profile has the kernel more).
A summary explained variant by variant, as checks wrote them before variants were grouped by
their code, shows one kernel table for the variants whose profiles have the same kernels.
"""

from __future__ import annotations

import dataclasses
import json
import os
import pathlib
import re
import shutil
import stat
import sys

import numpy as np
import pytest

from iconbench.bot import render, target
from iconbench.cli import main
from iconbench.records import asv as results
from iconbench.records.compilation import CompileLedger, CompileRecord
from iconbench.records.summary import FileChange, Summary

DATA = pathlib.Path(__file__).resolve().parent / "data"
GRID = "tiny"
TANGENTIAL, NABLA = "compute_tangential_wind[default]", "apply_nabla2_to_w[default]"
#: variants of the test input: the same kernels as TANGENTIAL's, and one kernel more
ALIKE, SPLIT = "compute_tangential_wind[halved=True]", "compute_tangential_wind[split=True]"
CASES = [TANGENTIAL, NABLA, ALIKE, SPLIT]
BACKENDS = ["gtfn_gpu", "dace_gpu", "gtfn_cpu"]
MACHINE = {"machine": "h100", "arch": "x86_64", "cpu": "", "num_cpu": "16", "os": "", "ram": ""}
COMMITS = {"base": "1a2b3c4d" * 5, "head": "9f8e7d6c" * 5}
#: device-time medians (s) per (case, backend): base, head
MEDIANS = {
    (TANGENTIAL, "gtfn_gpu"): (99.5e-6, 121.0e-6),  # regression, code changed
    (ALIKE, "gtfn_gpu"): (99.5e-6, 118.0e-6),  # regression, code changed, the same kernels
    (SPLIT, "gtfn_gpu"): (150.0e-6, 170.0e-6),  # regression, code changed, a kernel more
    **{
        (case, backend): (60.0e-6, 60.0e-6)
        for case in (ALIKE, SPLIT)
        for backend in ("dace_gpu", "gtfn_cpu")
    },
    (NABLA, "dace_gpu"): (125.0e-6, 133.7e-6),  # regression, code changed
    (NABLA, "gtfn_gpu"): (80.0e-6, 72.0e-6),  # improvement, same code
    (TANGENTIAL, "dace_gpu"): (50.0e-6, 50.0e-6),  # unchanged: not explained
    (NABLA, "gtfn_cpu"): (900.0e-6, 1100.0e-6),  # a CPU regression: not explained
    (TANGENTIAL, "gtfn_cpu"): (400.0e-6, 400.0e-6),
}
#: codegen fingerprints per (case, backend): base, head
PRINTS = {
    (TANGENTIAL, "gtfn_gpu"): ("a1a1a1a1a1a1", "b2b2b2b2b2b2"),
    (ALIKE, "gtfn_gpu"): ("a9a9a9a9a9a9", "b9b9b9b9b9b9"),
    (SPLIT, "gtfn_gpu"): ("a8a8a8a8a8a8", "b8b8b8b8b8b8"),
    **{
        (case, backend): ("0a0a0a0a0a0a", "0a0a0a0a0a0a")
        for case in (ALIKE, SPLIT)
        for backend in ("dace_gpu", "gtfn_cpu")
    },
    (NABLA, "dace_gpu"): ("c3c3c3c3c3c3", "d4d4d4d4d4d4"),
    (NABLA, "gtfn_gpu"): ("e5e5e5e5e5e5", "e5e5e5e5e5e5"),
    (TANGENTIAL, "dace_gpu"): ("f6f6f6f6f6f6", "f6f6f6f6f6f6"),
    (NABLA, "gtfn_cpu"): ("070707070707", "070707070707"),
    (TANGENTIAL, "gtfn_cpu"): ("080808080808", "080808080808"),
}
#: the CSV the fake ncu writes per (case, backend, side)
PROFILES = {
    (TANGENTIAL, "gtfn_gpu", "base"): "ncu_gtfn_gpu_base.TEST_INPUT.csv",
    (TANGENTIAL, "gtfn_gpu", "head"): "ncu_gtfn_gpu_head.TEST_INPUT.csv",
    (SPLIT, "gtfn_gpu", "base"): "ncu_gtfn_gpu_base.TEST_INPUT.csv",
    (SPLIT, "gtfn_gpu", "head"): "ncu_gtfn_gpu_head_split.TEST_INPUT.csv",  # its 2nd stencil
    (NABLA, "dace_gpu", "base"): "ncu_dace_gpu_base.TEST_INPUT.csv",
    (NABLA, "dace_gpu", "head"): "ncu_dace_gpu_head.TEST_INPUT.csv",
    (NABLA, "gtfn_gpu", "base"): "ncu_gtfn_gpu_head.TEST_INPUT.csv",  # faster on head
    (NABLA, "gtfn_gpu", "head"): "ncu_gtfn_gpu_base.TEST_INPUT.csv",
}

FAKE_NCU = """#!{python}
import json, os, pathlib, sys, time
args = sys.argv[1:]
if args == ["--version"]:
    print("NVIDIA (R) Nsight Compute Command Line Profiler")
    print("Copyright (c) 2018-2025 NVIDIA Corporation")
    print("Version 2025.2.1.0 (build 35987062) (public-release)")
    sys.exit(0)
at = args.index("--log-file")
log, target = pathlib.Path(args[at + 1]), args[at + 2:]
def value(flag):
    return target[target.index(flag) + 1]
side = pathlib.Path(value("--out")).name
started = time.time()
time.sleep(0.3)  # the target's set-up: imports, grid, program, inputs
turn = pathlib.Path(value("--turn"))
turn.with_name(turn.name + ".ready").write_text(str(os.getpid()))
set_up = time.time()
while not turn.exists():
    time.sleep(0.01)
went = time.time()
time.sleep(0.2)  # the profiled calls
turn.with_name(turn.name + ".done").write_text("done")
calls_done = time.time()
time.sleep(0.4)  # ncu writes its report
profiles = json.loads(os.environ["FAKE_NCU_PROFILES"])
name = profiles["|".join([value("--case"), value("--backends"), side])]
log.write_text((pathlib.Path(os.environ["FAKE_NCU_DATA"]) / name).read_text())
with open(os.environ["FAKE_NCU_CALLS"], "a") as calls:
    calls.write(json.dumps({{"options": args[:at], "target": target, "side": side,
                            "pythonpath": os.environ.get("PYTHONPATH", ""), "started": started,
                            "set_up": set_up, "went": went, "calls_done": calls_done,
                            "done": time.time()}}) + "\\n")
"""


def _profiles(folder: pathlib.Path) -> pathlib.Path:
    """The fake ncu's CSVs: the test input, and SPLIT's head with its second stencil.

    SPLIT's head launches a third stencil (``_fun_2``, timed as the first) at the end of each
    call: ``kernel#3``, a kernel more than TANGENTIAL, in its profile as in its code.
    """
    folder.mkdir()
    for path in DATA.glob("ncu_*.csv"):
        shutil.copy(path, folder)
    lines = (DATA / "ncu_gtfn_gpu_head.TEST_INPUT.csv").read_text().splitlines(keepends=True)
    first = next(i for i, line in enumerate(lines) if line.startswith('"0",'))
    rows = lines[first:]
    per_call = len(rows) // 3  # three profiled calls
    calls = [rows[i * per_call : (i + 1) * per_call] for i in range(3)]
    third = [call[0].replace("::_fun_0>", "::_fun_2>") for call in calls]
    assert third[0] != calls[0][0]
    more = [row for call, extra in zip(calls, third, strict=True) for row in (*call, extra)]
    renumbered = [re.sub(r'^"\d+"', f'"{i}"', row) for i, row in enumerate(more)]
    (folder / PROFILES[SPLIT, "gtfn_gpu", "head"]).write_text("".join(lines[:first] + renumbered))
    return folder


def _benchmark(kind: str) -> dict:
    return {
        "name": f"programs.Programs.{kind}",
        "params": [[repr(c) for c in CASES], [repr(b) for b in BACKENDS], [repr(GRID)]],
        "type": "time" if kind.startswith("time") else "track",
        "unit": "seconds" if kind.startswith("time") else "unit",
        "param_names": ["program", "backend", "grid"],
        "version": "1",
    }


def _side(root: pathlib.Path, name: str, index: int) -> pathlib.Path:
    """A runner directory: asv results, compile ledger, build cache with the generated code."""
    rng = np.random.default_rng(index)
    device, prints = {}, {}
    for (case, backend), medians in MEDIANS.items():
        samples = list(medians[index] * np.exp(rng.normal(0, 0.004, 30)))
        device[case, backend, GRID] = (float(np.median(samples)), samples)
        prints[case, backend, GRID] = (int(PRINTS[case, backend][index], 16), None)
    out = root / name
    results.write_asv(
        out / "asv",
        [_benchmark("time_device"), _benchmark("track_codegen_fingerprint")],
        {"time_device": device, "track_codegen_fingerprint": prints},
        machine=MACHINE,
        commit=COMMITS[name],
        env_name="e",
        python="3.12",
        date_ms=1_795_000_000_000 + index * 86_400_000,
    )
    stack = f"stack-{name}"
    cache = root / "cache" / "gt4py" / stack / ".gt4py_cache"
    hpp = (DATA / "gtfn_compute_tangential_wind.hpp").read_text()
    cpp = (DATA / "dace_apply_nabla2_to_w.cpp").read_text()
    if name == "head":
        hpp = hpp.replace("integral_constant<int, 32>", "integral_constant<int, 64>")
        hpp = hpp.replace("integral_constant<int, 8>>>", "integral_constant<int, 4>>>")
        lines = cpp.splitlines(keepends=True)
        k, cell = 120, 121  # the second map's K and Cell loops
        assert "i_K_gtx_vertical" in lines[k]
        assert "i_Cell_gtx_horizontal" in lines[cell]
        lines[k], lines[cell] = lines[cell].replace("    for", "for", 1), "    " + lines[k]
        cpp = "".join(lines)
    bindings = (DATA / "gtfn_compute_tangential_wind_bindings.cpp").read_text()
    executor = next(ln for ln in hpp.splitlines(keepends=True) if ".stencil_executor()" in ln)
    variants = {  # the variants' code: halved inside the functor, or a second stencil
        TANGENTIAL: hpp,
        ALIKE: hpp.replace("return static_cast<double>(", "return 0.5 * static_cast<double>("),
        SPLIT: hpp.replace(executor, executor + executor),
    }
    folders = {
        (case, "gtfn_gpu"): (
            f"compute_tangential_wind_{index}_pyext_{name}",
            {"compute_tangential_wind.hpp": code, "compute_tangential_wind_bindings.cpp": bindings},
            "build/compute_tangential_wind.so",
        )
        for index, (case, code) in enumerate(variants.items())
    } | {
        (NABLA, "dace_gpu"): (  # DaCe's development mode keeps its code under src/
            f"apply_nabla2_to_w_{name}",
            {"src/cuda/apply_nabla2_to_w.cpp": cpp},
            "build/libapply_nabla2_to_w.so",
        ),
    }
    ledger = CompileLedger(out / "work" / "compile.jsonl")
    for (case, backend), fingerprint in PRINTS.items():
        folder, files, library = folders.get(
            (case, backend), (f"{case.split('[')[0]}_{backend}_{name}", {}, "lib.so")
        )
        for relative, text in files.items():
            (cache / folder / relative).parent.mkdir(parents=True, exist_ok=True)
            (cache / folder / relative).write_text(text)
        ledger.append(
            CompileRecord(
                case, backend, GRID, stack, 40.0, fingerprint[index], library=f"{folder}/{library}"
            )
        )
    tree = root / "trees" / name / "src" / "gt4py"
    tree.mkdir(parents=True)
    return out


@pytest.fixture
def explained(tmp_path, monkeypatch, capsys):
    """The two sides, the verdict, and the explained summary (with the fake ncu's record)."""
    monkeypatch.setenv("ICONBENCH_CACHE_DIR", str(tmp_path / "cache"))
    base, head = _side(tmp_path, "base", 0), _side(tmp_path, "head", 1)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    ncu = bin_dir / "ncu"
    ncu.write_text(FAKE_NCU.format(python=sys.executable))
    ncu.chmod(ncu.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("FAKE_NCU_CALLS", str(tmp_path / "ncu-calls.jsonl"))
    monkeypatch.setenv("FAKE_NCU_DATA", str(_profiles(tmp_path / "profiles")))
    monkeypatch.setenv(
        "FAKE_NCU_PROFILES", json.dumps({"|".join(k): v for k, v in PROFILES.items()})
    )
    verdict = tmp_path / "gate-summary.json"
    assert main(["compare", str(base / "asv"), str(head / "asv"), "--out", str(verdict)]) == 1
    out = tmp_path / "gate-summary.why.json"
    argv = ["explain", str(verdict), "--base", str(base), "--head", str(head),
            "--base-tree", str(tmp_path / "trees" / "base"),
            "--head-tree", str(tmp_path / "trees" / "head"), "--out", str(out)]  # fmt: skip
    capsys.readouterr()
    assert main(argv) == 0
    printed = capsys.readouterr().out
    calls = [json.loads(line) for line in (tmp_path / "ncu-calls.jsonl").read_text().splitlines()]
    return tmp_path, Summary.read(out), printed, calls


def test_the_flagged_gpu_benchmarks_are_profiled_each_in_its_own_environment(explained):
    tmp_path, summary, printed, calls = explained
    assert {w.id for w in summary.why} == {
        f"{TANGENTIAL}|gtfn_gpu|device_time",
        f"{SPLIT}|gtfn_gpu|device_time",
        f"{NABLA}|dace_gpu|device_time",
        f"{NABLA}|gtfn_gpu|device_time",
    }  # not the unchanged GPU benchmark, not the CPU regression
    assert len(calls) == 8  # four benchmarks, two sides each: not ALIKE's, whose kernels are
    for first, second in zip(calls[::2], calls[1::2], strict=True):
        assert (first["side"], second["side"]) == ("base", "head")
        assert first["target"][5:7] == second["target"][5:7]  # one benchmark's two sides
        assert second["started"] < first["set_up"]  # set up side by side
        assert second["set_up"] < first["went"]  # every side set up before the first is called
        assert first["calls_done"] <= second["went"]  # profiled one at a time
        assert second["went"] < first["done"]  # while ncu still writes the first's report
    assert {c["target"][c["target"].index("--case") + 1] for c in calls} == {
        TANGENTIAL,
        SPLIT,
        NABLA,
    }
    for call in calls:
        side = call["side"]
        tree = tmp_path / "trees" / side / "src"
        assert call["pythonpath"].split(os.pathsep)[0] == str(tree)
        target = call["target"]
        assert target[target.index("--stack") + 1] == f"stack-{side}"
        assert target[target.index("--out") + 1] == str(tmp_path / side)
        assert target[1:5] == ["-m", "iconbench", "suite", "ncu-target"]
        options = call["options"]
        assert options[options.index("--metrics") + 1] == (
            "gpu__time_duration.sum,dram__bytes.sum,launch__registers_per_thread,"
            "sm__warps_active.avg.pct_of_peak_sustained_active"
        )
        assert {"--page", "raw", "--print-units", "base"} <= set(options)
    why = {w.id: w for w in summary.why}
    gtfn = why[f"{TANGENTIAL}|gtfn_gpu|device_time"]
    assert gtfn.same_kernels == (f"{ALIKE}|gtfn_gpu|device_time",)
    split = why[f"{SPLIT}|gtfn_gpu|device_time"]
    assert split.same_kernels == ()
    assert [c.kernel for c in split.kernels.changes if c.base is None] == ["kernel#3"]
    assert gtfn.profiler == "Nsight Compute 2025.2.1.0, 3 calls per side"
    slower = gtfn.kernels.changes[0]
    assert (slower.kernel, round(slower.ratio, 2)) == ("kernel#1", 1.22)
    assert (slower.base.occupancy, slower.head.occupancy) == pytest.approx((0.849, 0.618), abs=1e-3)
    assert gtfn.code.files == (FileChange("compute_tangential_wind.hpp", 1, 1),)  # one line
    assert "-    using block_sizes_t" in gtfn.code.excerpt
    (added,) = [ln for ln in gtfn.code.excerpt.splitlines() if ln.startswith("+ ")]
    assert "constant<int, 64>>, " in added  # both planted block sizes in view
    assert added.endswith("constant<int, 4>>>;")
    dace = why[f"{NABLA}|dace_gpu|device_time"]
    assert dace.kernels.changes[0].kernel == "map_113_fieldop_1_0_0"
    assert dace.code.files == (FileChange("src/cuda/apply_nabla2_to_w.cpp", 2, 2),)
    same = why[f"{NABLA}|gtfn_gpu|device_time"]
    assert same.code.identical
    assert same.code.base == "e5e5e5e5e5e5"
    assert same.kernels.head_s < same.kernels.base_s
    assert not any(w.notes for w in summary.why)
    assert "kernel#1" in printed
    assert "5 flagged GPU benchmarks explained in 4 entries" in printed
    assert f"the same kernels (not profiled again): {ALIKE}|gtfn_gpu|device_time" in printed
    work = tmp_path / "gate-summary.why.why" / "compute_tangential_wind_default_-gtfn_gpu"
    assert gtfn.code.full_diff == str(work / "code.diff")
    assert "block_sizes_t" in (work / "code.diff").read_text()
    assert Summary.from_json(summary.to_json()) == summary


def test_the_comment_names_the_slower_kernels_and_folds_the_code_diff(explained, capsys):
    tmp_path, _, _, _ = explained
    argv = ["comment", str(tmp_path / "gate-summary.why.json"), "--repo", "GridTools/gt4py",
            "--pr", "7", "--dry-run", "--site-url", "https://example.org/bench"]  # fmt: skip
    assert main(argv) in (0, 1)
    body = capsys.readouterr().out
    why = body[body.index("#### Why it changed") :]
    assert (
        "**[`compute_tangential_wind`](https://example.org/bench/programs/compute_tangential_wind"
        ".html)** (gtfn_gpu, device time +21." in why
    )
    assert "| `kernel#1` | 1 | 32×8×1 → 64×4×1 | 71.4 µs | 86.8 µs | **+21.6 %** |" in why
    row = "| `map_113_fieldop_1_0_0` | 1 | 32×8×1 | 44.8 µs | 52.9 µs | **+18.1 %** | 97 % |"
    assert row in why
    assert "| 56 → 96 | 62 % → 38 % |" in why
    assert "Generated code: 1 file changed, +1 −1 lines (`compute_tangential_wind.hpp`" in why
    assert "```diff\n--- base/compute_tangential_wind.hpp" in why
    assert "Generated code identical on both sides (`e5e5e5e5e5e5`)" in why
    assert "The same kernels, flagged too (not profiled again): `halved=True` +18.4 %." in why
    assert why.count("<details>") == why.count("</details>")
    # a comment near GitHub's limit keeps the kernels of the first two and drops the code
    summary = Summary.read(tmp_path / "gate-summary.why.json")
    small = render.render(summary, target.PullRequest.parse("GridTools/gt4py", 7), limit=4500)
    assert "| `kernel#1` | 1 | 32×8×1 → 64×4×1 | 71.4 µs | 86.8 µs | **+21.6 %** |" in small
    assert "```diff" not in small
    assert "Generated code: 1 file changed, +1 −1 lines (`compute_tangential_wind.hpp`" in small
    assert "… and 2 more explained benchmarks (in the gate summary's `why`)" in small


def test_the_program_page_shows_the_why(explained):
    tmp_path, _, _, _ = explained
    site = tmp_path / "site"
    argv = ["publish", str(tmp_path / "base" / "asv"), str(tmp_path / "head" / "asv"),
            "--gate", str(tmp_path / "gate-summary.why.json"),
            "--out", str(site), "--no-asv"]  # fmt: skip
    assert main(argv) == 0
    page = (site / "programs" / "compute_tangential_wind.html").read_text()
    why = page[page.index('<section class="card" id="why">') :]
    assert "compute_tangential_wind[default] · gtfn_gpu · device time +21." in why
    assert '<td class="mono">kernel#1</td>' in why
    assert "+21.6 %" in why
    assert "85 % → 62 %" in why
    assert '<span class="add">+    using block_sizes_t' in why
    assert "(not profiled again): <code>compute_tangential_wind[halved=True]</code>" in why
    other = (site / "programs" / "apply_nabla2_to_w.html").read_text()
    assert "map_113_fieldop_1_0_0" in other
    assert "56 → 96" in other
    assert "Generated code identical on both sides" in other


def test_variants_profiled_each_with_the_same_kernels_show_one_table(explained, capsys):
    """ALIKE profiled on its own, as before variants were grouped by their code: its kernels
    are TANGENTIAL's (the same launches and blocks on each side), so the comment, the table
    and the program page show TANGENTIAL's table once and list ALIKE under it with its own
    change and kernel time; SPLIT, a kernel more, keeps its table."""
    from iconbench.explain import profile
    from iconbench.gate import kernels, table
    from iconbench.records.summary import Why
    from iconbench.timing import nsight

    tmp_path, summary, _, _ = explained
    lead = next(w for w in summary.why if w.case == TANGENTIAL and w.backend == "gtfn_gpu")
    csv = [(DATA / PROFILES[TANGENTIAL, "gtfn_gpu", side]).read_text() for side in ("base", "head")]
    records = [profile.kernel_records(nsight.launches(text), calls=3) for text in csv]
    alike = Why(f"{ALIKE}|gtfn_gpu|device_time", lead.program, lead.backend,
                kernels.diff(f"{ALIKE}|gtfn_gpu|device_time", *records), lead.code,
                lead.profiler)  # fmt: skip
    each = dataclasses.replace(
        summary,
        why=(*(dataclasses.replace(w, same_kernels=()) for w in summary.why), alike),
    )
    path = tmp_path / "each.json"
    each.write(path)
    argv = ["comment", str(path), "--repo", "GridTools/gt4py", "--pr", "7", "--dry-run",
            "--site-url", "https://example.org/bench"]  # fmt: skip
    assert main(argv) in (0, 1)
    why = capsys.readouterr().out.partition("#### Why it changed")[2]
    assert why.count("| kernel | launches |") == 4  # 5 explanations, ALIKE's in TANGENTIAL's
    assert why.count("| `kernel#1` | 1 | 32×8×1 → 64×4×1 | 71.4 µs | 86.8 µs |") == 2  # + SPLIT
    assert (
        "The same kernels, flagged and profiled too (one table for all): `halved=True` "
        "+18.4 % (kernel time 99.5 µs → 115.1 µs)."
    ) in why
    assert "not profiled again" not in why
    text = table.render(each)
    assert text.count(f"kernels of {ALIKE}") == 0
    assert text.count("kernels of compute_tangential_wind[") == 2  # TANGENTIAL's and SPLIT's
    assert (
        f"  the same kernels, profiled too: {ALIKE}|gtfn_gpu|device_time 99.5us -> 115.1us"
    ) in text
    site = tmp_path / "site-each"
    argv = ["publish", str(tmp_path / "base" / "asv"), str(tmp_path / "head" / "asv"),
            "--gate", str(path), "--out", str(site), "--no-asv"]  # fmt: skip
    assert main(argv) == 0
    page = (site / "programs" / "compute_tangential_wind.html").read_text()
    cards = page[page.index('<section class="card" id="why">') :]
    assert cards.count('<h3 id="why-') == 2  # TANGENTIAL (with ALIKE) and SPLIT
    assert (
        "The same kernels, flagged and profiled too (one table for all): "
        f"<code>{ALIKE}</code> +18.4 % (kernel time 99.5 µs → 115.1 µs)."
    ) in cards


def test_without_ncu_the_code_diff_still_comes_and_a_note_says_why(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("ICONBENCH_CACHE_DIR", str(tmp_path / "cache"))
    base, head = _side(tmp_path, "base", 0), _side(tmp_path, "head", 1)
    (tmp_path / "no-ncu").mkdir()
    monkeypatch.setenv("PATH", str(tmp_path / "no-ncu"))
    verdict = tmp_path / "gate-summary.json"
    assert main(["compare", str(base / "asv"), str(head / "asv"), "--out", str(verdict)]) == 1
    out = tmp_path / "why.json"
    argv = ["explain", str(verdict), "--base", str(base), "--head", str(head), "--out", str(out)]
    assert main(argv) == 0
    summary = Summary.read(out)
    assert len(summary.why) == 4  # the variant with the same kernels is listed, not repeated
    for why in summary.why:
        assert why.kernels is None
        assert why.notes == (
            "Nsight Compute (ncu) is not on PATH: no kernel profile; install it on the runner",
        )
        assert why.code is not None
    assert summary.verdict == "regression"  # the verdict is the gate's, explained or not
    # bad input: one line each, nothing written
    capsys.readouterr()
    assert main(argv) == 2  # --out exists: summaries are kept
    assert "exists; summaries are kept" in capsys.readouterr().err
    missing = ["explain", str(verdict), "--base", str(tmp_path / "nope"), "--head", str(head)]
    with pytest.raises(SystemExit, match="2"):  # refused while the arguments are parsed
        main(missing)
    assert "argument --base: directory" in capsys.readouterr().err
