"""Nsight Compute's CSV of one side's program call, read into the kernels of one call.

``data/ncu_*.TEST_INPUT.csv`` are written in the layout ``ncu --csv --page raw --print-units
base --print-kernel-base demangled --metrics ...`` prints (ncu 2025: ``==PROF==`` lines,
the header, a row of units, one row per launch with thousands separators); their numbers
are fabricated test input, not a measurement: three calls of a dace_gpu program with three
kernels, and of a gtfn_gpu program whose two kernels are instances of one ``kernel``
template.
"""

from __future__ import annotations

import pathlib

import pytest

from iconbench.errors import IconbenchError
from iconbench.explain.profile import kernel_records
from iconbench.gate import kernels
from iconbench.records.kernels import KernelRecord
from iconbench.timing import nsight

DATA = pathlib.Path(__file__).resolve().parent / "data"


def _records(name: str) -> list[KernelRecord]:
    return kernel_records(nsight.launches((DATA / name).read_text()), calls=3)


def test_the_raw_page_gives_each_launch_with_its_counters():
    found = nsight.launches((DATA / "ncu_dace_gpu_base.TEST_INPUT.csv").read_text())
    assert len(found) == 9  # 3 kernels x 3 calls, the ==PROF== lines and the units row skipped
    first = found[0]
    assert first.kernel.startswith("map_100_fieldop_0_0_0(const double *")
    # "61,005" nsecond, "321,679,497" byte, "40" register/thread, "71.35" %
    assert first.seconds == pytest.approx(61.005e-6)
    assert first.dram_bytes == 321_679_497
    assert (first.registers, first.occupancy) == (40, pytest.approx(0.7135))


def test_one_call_of_a_dace_program_kernel_by_kernel():
    records = _records("ncu_dace_gpu_base.TEST_INPUT.csv")
    assert [(r.kernel, r.count, r.registers) for r in records] == [
        ("map_100_fieldop_0_0_0", 1, 40),
        ("map_113_fieldop_1_0_0", 1, 56),
        ("map_120_fieldop_2_0_0", 1, 32),
    ]
    # the median of the three calls (44.8 us +- 0.4 %)
    assert records[1].device_s == pytest.approx(44.8e-6, rel=4e-3)
    assert records[1].occupancy == pytest.approx(0.6241, abs=6e-4)


def test_the_diff_names_the_kernel_that_got_slower_and_what_moved():
    d = kernels.diff(
        "apply_nabla2_to_w[default]|dace_gpu|device_time",
        _records("ncu_dace_gpu_base.TEST_INPUT.csv"),
        _records("ncu_dace_gpu_head.TEST_INPUT.csv"),
    )
    slower = d.changes[0]
    assert slower.kernel == "map_113_fieldop_1_0_0"
    assert slower.ratio == pytest.approx(53.088 / 44.8, rel=1e-2)  # +18.5 %
    assert (slower.base.registers, slower.head.registers) == (56, 96)
    assert slower.share > 0.9
    assert d.head_s - d.base_s == pytest.approx(8.3e-6, rel=0.1)


def test_instances_of_one_template_are_told_apart_by_launch_order():
    base = _records("ncu_gtfn_gpu_base.TEST_INPUT.csv")
    head = _records("ncu_gtfn_gpu_head.TEST_INPUT.csv")
    # the demangled names differ in their template arguments (block sizes): same function
    assert [r.kernel for r in base] == [r.kernel for r in head] == ["kernel#1", "kernel#2"]
    d = kernels.diff("compute_tangential_wind[default]|gtfn_gpu|device_time", base, head)
    assert d.changes[0].kernel == "kernel#1"
    assert d.changes[0].ratio == pytest.approx(86.944 / 71.52, rel=1e-2)
    assert d.changes[0].head.occupancy == pytest.approx(0.6177, abs=6e-4)


def test_the_details_page_reads_the_same():
    """``ncu --csv`` without ``--page raw``: a row per launch and metric."""
    rows = []
    for launch in nsight.launches((DATA / "ncu_dace_gpu_base.TEST_INPUT.csv").read_text())[:3]:
        for metric, unit, value in (
            (nsight.METRIC, "usecond", f"{launch.seconds * 1e6:,.3f}"),
            (nsight.DRAM_BYTES, "Mbyte", f"{launch.dram_bytes / 1e6:,.6f}"),
            (nsight.REGISTERS, "register/thread", str(launch.registers)),
            (nsight.OCCUPANCY, "%", f"{launch.occupancy * 100:.2f}"),
        ):
            rows.append(
                f'"{len(rows) // 4}","81234","python3.12","127.0.0.1","{launch.kernel}","1","7",'
                f'"(32, 8, 1)","(1392, 10, 1)","0","9.0","Command line profiler metrics",'
                f'"{metric}","{unit}","{value}"'
            )
    header = (
        '"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream",'
        '"Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit",'
        '"Metric Value"'
    )
    details = nsight.launches("\n".join(["==PROF== Connected to process 81234", header, *rows]))
    raw = nsight.launches((DATA / "ncu_dace_gpu_base.TEST_INPUT.csv").read_text())[:3]
    for a, b in zip(details, raw, strict=True):
        assert (a.kernel, a.registers) == (b.kernel, b.registers)
        assert a.seconds == pytest.approx(b.seconds, rel=1e-6)
        assert a.dram_bytes == pytest.approx(b.dram_bytes, rel=1e-6)
        assert a.occupancy == pytest.approx(b.occupancy, abs=1e-6)


def test_unusable_profiles_are_one_line():
    with pytest.raises(IconbenchError, match="no kernel ran inside the NVTX range"):
        nsight.launches("==PROF== Disconnected from process 1\n")
    text = (DATA / "ncu_dace_gpu_base.TEST_INPUT.csv").read_text()
    with pytest.raises(IconbenchError, match=r"9 kernel launches in 2 profiled calls"):
        kernel_records(nsight.launches(text), calls=2)
    with pytest.raises(IconbenchError, match="unknown unit 'parsec'"):
        nsight.launches(text.replace('"nsecond"', '"parsec"'))


def test_the_raw_page_of_a_real_ncu_run_reads_its_kernels():
    """ncu 2025 on an H100 (gtfn_gpu, the base of a block-size check): the raw page also holds
    NVTX ranges, device attributes and names, none of them numbers; its first three launches."""
    found = nsight.launches((DATA / "ncu_gtfn_gpu_raw_h100.csv").read_text())
    assert len(found) == 3
    assert all(launch.kernel.startswith("void kernel<") for launch in found)
    assert all(1e-6 < launch.seconds < 1e-2 for launch in found)
    assert all(launch.registers and 8 <= launch.registers <= 255 for launch in found)
    assert all(launch.dram_bytes and launch.dram_bytes > 1e6 for launch in found)
    assert all(launch.occupancy is not None and 0 < launch.occupancy <= 1 for launch in found)


def test_gtfn_kernels_of_two_block_sizes_pair_up_and_show_the_launch_change():
    """Real H100 pages of ``compute_hydrostatic_correction_term`` on gtfn_gpu, gt4py 1.2.1 with
    its unstructured GPU blocks 32×8 (base) and 8×4 (head), 3 calls each (2026-11-26).

    gtfn puts the block size into the kernel template's arguments, so the demangled names of
    the same stencil differ between the sides; ncu also prints gtfn's anonymous namespaces as an
    unbalanced ``unnamed>::``. The kernel pairs by its function name all the same.
    """
    base = _records("ncu_gtfn_gpu_blocks32x8_h100.csv")
    head = _records("ncu_gtfn_gpu_blocks8x4_h100.csv")
    assert [r.kernel for r in base] == [r.kernel for r in head] == ["kernel"]
    assert [r.block for r in base] == ["32×8×1"]
    assert [r.block for r in head] == ["8×4×1"]
    diff = kernels.diff("compute_hydrostatic_correction_term|gtfn_gpu|device_time", base, head)
    assert all(c.base is not None and c.head is not None for c in diff.changes)
    assert diff.head_s > 1.3 * diff.base_s  # the gate measured 1.60x on this program
    assert kernels.counters(diff.changes[0])["block"] == "32×8×1 → 8×4×1"
