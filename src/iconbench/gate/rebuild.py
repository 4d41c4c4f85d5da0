"""Whether generated code and timing of a program stay the same from one clean build to the next.

Code generation that is not deterministic makes the same program faster or slower from one
build to the next (~20 % on some stencils), which a comparison of two commits would report
as a regression. :func:`check` builds one case several times, each time from an empty gt4py
build cache in a fresh process (:func:`build_and_time`, run as ``python -m
iconbench.gate.rebuild``), records the fingerprint of the generated code
(:mod:`iconbench.timing.codegen`) and times it; the builds are then compared with the gate's
own statistics (each build against the first, Benjamini-Hochberg over the pairs).
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Sequence

from iconbench.errors import IconbenchError
from iconbench.gate import stats


@dataclasses.dataclass(frozen=True)
class Build:
    """One clean build: fingerprint of its generated code, compile seconds, timing samples."""

    fingerprint: str | None
    compile_s: float
    samples: tuple[float, ...]

    @property
    def median(self) -> float:
        """Median of the samples."""
        import statistics

        return statistics.median(self.samples)


@dataclasses.dataclass(frozen=True)
class RebuildReport:
    """Several builds of one case and what they say."""

    case: str
    backend: str
    grid: str
    builds: tuple[Build, ...]
    threshold: float
    #: each build's ratio to the first, with its q-value
    ratios: tuple[tuple[float, float], ...]

    @property
    def code_stable(self) -> bool:
        """One fingerprint over all builds (always true without generated code)."""
        return len({b.fingerprint for b in self.builds}) <= 1

    @property
    def timing_stable(self) -> bool:
        """No build of other code differs from the first beyond half the threshold (BH at 5 %).

        Builds of the same code differ only by their processes, and one process's samples do
        not show the spread between processes (docs/gate.md): what such builds show is that
        spread, not the code's (:attr:`process_spread`).
        """
        return all(q > 0.05 for _, q in self._against_first(same_code=False))

    @property
    def process_spread(self) -> tuple[float, float] | None:
        """The lowest and highest ratio to the first of the builds of its code that differ.

        ``None`` where no build of the first build's code differs from it (BH at 5 %).
        """
        moved = [ratio for ratio, q in self._against_first(same_code=True) if q <= 0.05]
        return (min(moved), max(moved)) if moved else None

    def _against_first(self, *, same_code: bool) -> list[tuple[float, float]]:
        first = self.builds[0].fingerprint
        return [
            pair
            for build, pair in zip(self.builds[1:], self.ratios, strict=True)
            if (build.fingerprint == first) == same_code
        ]

    def render(self) -> str:
        """The readable report."""
        lines = [
            f"{self.case} on {self.backend}, grid {self.grid}: {len(self.builds)} clean builds"
        ]
        for number, build in enumerate(self.builds):
            ratio = (
                "" if number == 0 else " ratio {:.3f} (q={:.2g})".format(*self.ratios[number - 1])
            )
            lines.append(
                f"  build {number + 1}: fingerprint {build.fingerprint or '-'}, compile "
                f"{build.compile_s:.1f}s, median {build.median * 1e6:.1f}us of "
                f"{len(build.samples)} samples{ratio}"
            )
        fingerprints = {b.fingerprint for b in self.builds}
        if fingerprints == {None}:
            lines.append("generated code: none (embedded runs Python, nothing is generated)")
        else:
            lines.append(
                "generated code: identical in every build"
                if self.code_stable
                else f"generated code: DIFFERS ({len(fingerprints)} fingerprints)"
            )
        lines.append(
            "timing: stable" if self.timing_stable
            else f"timing: DIFFERS between builds of other code (beyond {self.threshold / 2:.1%};"
            " one process a build: the spread between processes is not counted)"
        )  # fmt: skip
        if spread := self.process_spread:
            lines.append(
                f"  builds of the same code as build 1 moved {spread[0]:.3f}-{spread[1]:.3f}x: "
                "the spread between their processes, not the code's"
            )
        return "\n".join(lines)


def build_and_time(case: str, backend: str, grid: str, samples: int) -> Build:
    """Compile ``case`` into the (empty) build cache of this process and time it."""
    import time

    from iconbench import suite
    from iconbench.programs import backends
    from iconbench.timing import clocks, measurement

    start = time.perf_counter()
    prepared = suite.prepare(case, backend, grid)
    compile_s = time.perf_counter() - start
    resolved = backends.backend(backend)
    clock = clocks.clock_for(resolved)
    call = prepared.call_and_sync() if resolved.is_embedded else prepared
    m = measurement.measure(call, clock, samples=samples, min_samples=samples, max_s=60.0,
                            warmup_s=0.1, gt4py_calls=0)  # fmt: skip
    return Build(prepared.fingerprint, compile_s, tuple(m.device_s or m.host_s))


def check(
    case: str, backend: str, grid: str, *, builds: int, samples: int, threshold: float = 0.05
) -> RebuildReport:
    """Build ``case`` ``builds`` times, each from a clean cache in a fresh process."""
    done = []
    for _ in range(builds):
        with tempfile.TemporaryDirectory(prefix="iconbench-rebuild-") as cache:
            env = {**os.environ, "ICONBENCH_CACHE_DIR": cache, "GT4PY_BUILD_CACHE_DIR": cache}
            command = [sys.executable, "-m", "iconbench.gate.rebuild", case, backend, grid,
                       str(samples)]  # fmt: skip
            run = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
            if run.returncode != 0:
                last = (run.stderr.strip().splitlines() or ["no output"])[-1]
                raise IconbenchError(f"building {case} for {backend} failed: {last}")
            data = json.loads(run.stdout.strip().splitlines()[-1])
            done.append(Build(data["fingerprint"], data["compile_s"], tuple(data["samples"])))
    return report(case, backend, grid, done, threshold)


def report(
    case: str, backend: str, grid: str, builds: Sequence[Build], threshold: float
) -> RebuildReport:
    """The report of ``builds``: each one's timing against the first's, BH over the pairs."""
    comparisons = [
        stats.compare(builds[0].samples, b.samples, margin=threshold / 2) for b in builds[1:]
    ]
    q = stats.benjamini_hochberg([c.p_value for c in comparisons])
    return RebuildReport(
        case, backend, grid, tuple(builds), threshold,
        tuple((round(c.ratio, 6), qv) for c, qv in zip(comparisons, q, strict=True)),
    )  # fmt: skip


def main(argv: list[str]) -> None:
    """Worker: ``python -m iconbench.gate.rebuild CASE BACKEND GRID SAMPLES``; one JSON line."""
    from iconbench import buildcache
    from iconbench.stacks.identity import stack_key

    buildcache.configure(stack_key(), jobs=1)
    case, backend, grid, samples = argv
    build = build_and_time(case, backend, grid, int(samples))
    print(json.dumps(dataclasses.asdict(build)))


if __name__ == "__main__":
    main(sys.argv[1:])
