"""asv result directories written by asv itself, for tests that merge, store or export them.

One benchmark, ``programs.Programs.time_device`` over the cases ``a[default]`` and ``b[x]``;
``values`` are its seconds per case (``None``: the case did not run in this directory).
"""

import json
import pathlib

BENCHMARK = {
    "name": "programs.Programs.time_device",
    "params": [["'a[default]'", "'b[x]'"]],
    "param_names": ["program"],
    "version": "1",
    "type": "time",
    "unit": "seconds",
}


def write_asv_results(
    root: pathlib.Path, values: list, *, commit: str, machine: str, date_ms: int = 1
) -> pathlib.Path:
    """``root`` with benchmarks.json, ``machine``/machine.json and the result file of ``commit``
    (asv's ``date``: ``date_ms``)."""
    from asv import results as asv_results
    from asv import runner as asv_runner

    (root / machine).mkdir(parents=True)
    (root / "benchmarks.json").write_text(json.dumps({BENCHMARK["name"]: BENCHMARK, "version": 2}))
    (root / machine / "machine.json").write_text(json.dumps({"machine": machine, "version": 1}))
    result = asv_results.Results(
        {"machine": machine, "python": "3.12"}, {}, commit, date_ms, "3.12", "existing-py", {}
    )
    result.add_result(
        BENCHMARK,
        asv_runner.BenchmarkResult(
            result=values,
            samples=[None if v is None else [v] * 3 for v in values],
            number=[1, 1],
            errcode=0,
            stderr="",
            profile=None,
        ),
    )
    result.save(str(root))
    return root
