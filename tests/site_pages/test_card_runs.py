"""Which run a card shows per backend, and what a chart draws: plain data, no browser."""

from iconbench.history.runs import Measured, Run, Target
from iconbench.site import figures, pagedata

TARGET = Target("NVIDIA H100 80GB HBM3", "ch1_medium")
CASES = [f"p[k={n}]" for n in range(4)]


def run(commit, date_ms, statuses, env="existing-py3.12-stack-aaaa-ch1_medium", values=None):
    measured = tuple(
        Measured(
            case,
            backend,
            status,
            device_s=(values or {}).get((case, backend), 1e-3 + n * 1e-5)
            if status == "ok"
            else None,
            samples=50 if status == "ok" else 0,
            host_s=2e-3 if status == "ok" else None,
        )
        for backend, per_case in statuses.items()
        for n, (case, status) in enumerate(zip(CASES, per_case, strict=True))
    )
    return Run(TARGET, commit * 5, date_ms, "h100", env, f"{commit}.json", measured)


def test_each_backend_shows_its_newest_complete_run_not_a_newer_partial_one():
    full = run(
        "a" * 8,
        1,
        {"gtfn_gpu": ["ok"] * 4, "dace_gpu": ["ok", "ok", "compile failed", "compile failed"]},
    )
    rerun = run(
        "b" * 8,
        2,
        {
            "gtfn_gpu": ["not selected"] * 4,
            "dace_gpu": ["not selected", "not selected", "ok", "ok"],
        },
        env="existing-py3.12-stack-bbbb-ch1_medium",
    )
    chosen = pagedata.shown_per_backend([full, rerun])
    assert {b: r.commit[:8] for b, r in chosen.items()} == {
        "gtfn_gpu": "a" * 8,
        "dace_gpu": "a" * 8,
    }
    shown = pagedata.composite(TARGET, chosen)
    rows = {row["backend"]: (row["counts"]["ok"], row["total"]) for row in pagedata.coverage(shown)}
    assert rows == {"gtfn_gpu": (4, 4), "dace_gpu": (2, 4)}
    # the re-run's own coverage leaves out what it did not select: 2 of 2, no warning
    assert {r["backend"]: (r["counts"]["ok"], r["total"]) for r in pagedata.coverage(rerun)} == {
        "dace_gpu": (2, 2)
    }
    # once a newer run is complete, it is the one shown
    newer = run("c" * 8, 3, {"gtfn_gpu": ["ok"] * 4, "dace_gpu": ["ok"] * 4})
    chosen = pagedata.shown_per_backend([full, rerun, newer])
    assert {r.commit[:8] for r in chosen.values()} == {"c" * 8}


def test_a_value_carried_forward_is_no_point_and_a_stack_change_breaks_the_line():
    first = run("a" * 8, 1, {"gtfn_gpu": ["ok"] * 4})
    same = run("b" * 8, 2, {"gtfn_gpu": ["ok"] * 4})  # identical medians: carried forward
    moved = run("c" * 8, 3, {"gtfn_gpu": ["ok"] * 4}, values={(CASES[0], "gtfn_gpu"): 2e-3})
    other_stack = run(
        "d" * 8,
        4,
        {"gtfn_gpu": ["ok"] * 4},
        env="existing-py3.12-stack-bbbb-ch1_medium",
        values={(CASES[0], "gtfn_gpu"): 3e-3},
    )
    again = run(
        "e" * 8,
        5,
        {"gtfn_gpu": ["ok"] * 4},
        env="existing-py3.12-stack-bbbb-ch1_medium",
        values={(CASES[0], "gtfn_gpu"): 3.5e-3},
    )
    history = [first, same, moved, other_stack, again]
    (section,) = pagedata.program_history("p", history, {})
    variant = next(v for v in section["variants"] if v["case"] == CASES[0])
    assert variant["series"]["device_s"]["gtfn_gpu"] == [1e-3, None, 2e-3, 3e-3, 3.5e-3]
    assert [(c["index"], c["backend"]) for c in variant["regime_changes"]] == [(3, "gtfn_gpu")]
    (both, *_) = figures.program_charts(section, variant)
    device_chart, phone = both.split("<svg xmlns='http://www.w3.org/2000/svg' class='chart-phone'")
    assert device_chart.count("class='point'") == phone.count("class='point'") == 4
    # joined only d -> e (same stack, consecutive); not across the gap, not across the change
    assert device_chart.count("<polyline") == 1
    assert "gtfn_gpu: stack stack-aaaa → stack-bbbb<" in device_chart


def test_measured_variants_and_the_experiments_come_first():
    runs = [
        run("a" * 8, 1, {"gtfn_gpu": ["compile failed", "ok", "ok", "ok"]}),
    ]
    (section,) = pagedata.program_history("p", runs, {}, {"k": 3})
    assert [v["case"] for v in section["variants"]] == ["p[k=3]", "p[k=1]", "p[k=2]", "p[k=0]"]
    assert [v["measured"] for v in section["variants"]] == [True, True, True, False]
