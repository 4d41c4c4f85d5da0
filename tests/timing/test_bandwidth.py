import statistics

import pytest

from iconbench.timing import bandwidth


def test_host_copy_peak_is_measured_for_real():
    peak = bandwidth.measure_copy_peak(on_gpu=False, nbytes=16 << 20, repeats=5)
    assert peak.nbytes == 16 << 20
    assert len(peak.samples_s) == 5
    assert all(s > 0 for s in peak.samples_s)
    assert peak.bytes_per_s == pytest.approx(2 * peak.nbytes / statistics.median(peak.samples_s))
    assert peak.as_dict()["bytes_per_s"] == peak.bytes_per_s


def test_datasheet_longest_match_wins():
    assert bandwidth.datasheet_peak("NVIDIA H200") == 4.8e12
    assert bandwidth.datasheet_peak("NVIDIA GH200 480GB") == 4.0e12
    assert bandwidth.datasheet_peak("NVIDIA A100-SXM4-80GB") == 2.039e12
    assert bandwidth.datasheet_peak(None) is None


def test_achieved_bandwidth_rejects_zero_time():
    with pytest.raises(ValueError, match="non-positive"):
        bandwidth.achieved_bandwidth(100, 0.0)


def test_reference_program_bandwidth_is_a_fraction_of_the_copy_peak(gtfn_cpu_case):
    from iconbench.programs import backends
    from iconbench.timing import clocks, measurement

    m = measurement.measure(
        gtfn_cpu_case, clocks.clock_for(backends.backend("gtfn_cpu")), samples=30
    )
    achieved = bandwidth.achieved_bandwidth(gtfn_cpu_case.bytes_moved, m.device_median)
    # vn (27x10), rbf coefficients (27x4) and vt (27x10) float64, each moved once
    assert gtfn_cpu_case.bytes_moved == (27 * 10 + 27 * 4 + 27 * 10) * 8
    assert achieved > 0
