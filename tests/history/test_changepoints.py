"""Change points of a nightly history: a planted step is found at its commit, noise is not."""

from __future__ import annotations

import numpy as np

from iconbench.history.changepoints import detect, new_change_points


def _history(n: int, step_at: int | None, seed: int, step: float = 1.08) -> np.ndarray:
    rng = np.random.default_rng(seed)
    values = 1.2e-4 * np.exp(rng.normal(0, 0.01, n))
    if step_at is not None:
        values[step_at:] *= step
    return values


def test_planted_step_is_found_at_its_commit():
    commits = [f"{i:07x}" for i in range(60)]
    for seed in range(5):
        found = detect(_history(60, 37, seed), commits)
        assert [p.index for p in found] == [37]
        (point,) = found
        assert point.commit_range == (commits[36], commits[37])
        assert 1.06 < point.magnitude < 1.10
        assert point.confidence >= 0.99


def test_noise_alone_has_no_change_point():
    commits = [f"{i:07x}" for i in range(60)]
    assert [detect(_history(60, None, seed), commits) for seed in range(10)] == [[]] * 10


def test_one_odd_night_is_not_a_change_point():
    values = _history(40, None, 3)
    values[20] *= 3.0
    values[21] = np.nan  # a failed night
    assert detect(values, [str(i) for i in range(40)]) == []


def test_nightly_reports_only_new_change_points():
    values = _history(50, 30, 4)
    commits = [f"c{i}" for i in range(50)]
    assert [p.bad for p in new_change_points(values, commits, known=32)] == ["c30"]
    assert new_change_points(values, commits, known=49) == []


def test_program_page_marks_the_change_point():
    """The site's program history carries the step and its plot draws the marker."""
    from iconbench.history.runs import Measured, Run, Target
    from iconbench.site import figures, pagedata

    target = Target("NVIDIA H100 80GB HBM3", "ch1_medium")
    values = _history(30, 18, 5)
    runs = [
        Run(target, f"{i:040x}", 1_795_000_000_000 + i * 86_400_000, "h100", "env", "test",
            (Measured("p[default]", "gtfn_gpu", "ok", device_s=float(v), samples=100),))
        for i, v in enumerate(values)
    ]  # fmt: skip
    (section,) = pagedata.program_history("p", runs, {})
    (variant,) = section["variants"]
    (point,) = variant["change_points"]
    assert point["index"] == 18
    assert point["backend"] == "gtfn_gpu"
    assert (point["good"], point["bad"]) == (section["commits"][17], section["commits"][18])
    svg = figures.program_charts(section, variant)[0]
    assert f"gtfn_gpu step x{point['magnitude']:.2f}" in svg
    assert figures.CHANGE_COLOUR in svg
