"""What differs between two CUDA releases on one host: device time and compile time per case.

The gate compares device time and host overhead across CUDA major releases only on request,
and compile times never (:func:`iconbench.records.resultset.check_cuda`): a compile time is
another nvcc's. What another runtime costs the runner is still worth a table: this one puts
the two sides' medians next to each other, per case and backend, and their geometric mean
ratio per backend and metric. Input: the directory of ``ci/gpu/cuda-compare`` (``cuda13/``,
``cuda12/``: two ``iconbench suite`` result directories, ``info-cuda*.txt``).
"""

from __future__ import annotations

import math
import pathlib
import sys

from iconbench.records.resultset import ResultSet, resolve

METRICS = ("device_time", "compile_time")


def _medians(side: ResultSet) -> dict[tuple[str, str, str], float]:
    return {
        (e.case, e.backend, e.metric): e.median
        for e in side.entries.values()
        if e.metric in METRICS and e.median is not None and e.median > 0
    }


def table(old: ResultSet, new: ResultSet, old_name: str, new_name: str) -> str:
    """Markdown: per backend and metric the geometric mean of new/old, then every case.

    >>> from iconbench.records.resultset import Entry, Grid
    >>> def side(values):
    ...     entries = {f"p|gtfn_gpu|{m}": Entry("p", "gtfn_gpu", m, (v,)) for m, v in values}
    ...     return ResultSet("s", "runner", "c", None, {}, {}, Grid("g"), "", entries)
    >>> print(table(side([("device_time", 2e-4), ("compile_time", 20.0)]),
    ...             side([("device_time", 3e-4), ("compile_time", 15.0)]), "CUDA 13", "CUDA 12"))
    | backend | metric | cases | CUDA 12 / CUDA 13 (geometric mean) |
    |---|---|---|---|
    | gtfn_gpu | compile_time | 1 | 0.750 |
    | gtfn_gpu | device_time | 1 | 1.500 |
    <BLANKLINE>
    | case | backend | metric | CUDA 13 | CUDA 12 | ratio |
    |---|---|---|---|---|---|
    | p | gtfn_gpu | compile_time | 20 s | 15 s | 0.750 |
    | p | gtfn_gpu | device_time | 200.0 us | 300.0 us | 1.500 |
    """
    a, b = _medians(old), _medians(new)
    both = sorted(set(a) & set(b))
    groups: dict[tuple[str, str], list[float]] = {}
    for key in both:
        groups.setdefault((key[1], key[2]), []).append(b[key] / a[key])
    lines = [f"| backend | metric | cases | {new_name} / {old_name} (geometric mean) |",
             "|---|---|---|---|"]  # fmt: skip
    for (backend, metric), ratios in sorted(groups.items()):
        mean = math.exp(sum(map(math.log, ratios)) / len(ratios))
        lines.append(f"| {backend} | {metric} | {len(ratios)} | {mean:.3f} |")
    lines += ["", f"| case | backend | metric | {old_name} | {new_name} | ratio |",
              "|---|---|---|---|---|---|"]  # fmt: skip
    for key in both:
        fmt = (
            (lambda v: f"{v:.0f} s")
            if key[2] == "compile_time"
            else (lambda v: f"{v * 1e6:.1f} us")
        )
        lines.append(
            f"| {' | '.join(key)} | {fmt(a[key])} | {fmt(b[key])} | {b[key] / a[key]:.3f} |"
        )
    return "\n".join(lines)


def main(run: pathlib.Path) -> str:
    """The report of a ``ci/gpu/cuda-compare`` directory."""
    out = ["# CUDA 12 against CUDA 13 on one host", ""]
    for cuda in ("13", "12"):
        info = run / f"info-cuda{cuda}.txt"
        if info.is_file():
            named = [line for line in info.read_text().splitlines()
                     if line.startswith(("cuda runtime", "nvcc", "gpu ", "cupy"))]  # fmt: skip
            out += [f"CUDA {cuda} side:", "", *(f"    {line}" for line in named), ""]
    old = resolve(str(run / "cuda13"), label="CUDA 13")
    new = resolve(str(run / "cuda12"), label="CUDA 12")
    out.append(table(old, new, "CUDA 13", "CUDA 12"))
    return "\n".join(out)


if __name__ == "__main__":  # ci/gpu/cuda-compare: python -m iconbench.records.cuda_compare DIR
    print(main(pathlib.Path(sys.argv[1])))
