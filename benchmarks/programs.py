r"""The asv suite: every catalog program × backend × grid preset, generated, not hand-written.

One class, :class:`Programs`, parameterised by ``program`` (catalog case id
``name[variant]``), ``backend`` and ``grid``; select with asv's regex, e.g.
``asv run --bench "Programs.time_device\\(.*compute_tangential_wind.*gtfn_cpu"``, and narrow
the parameter space with ``ICONBENCH_BACKENDS``/``ICONBENCH_GRID``/``ICONBENCH_PROGRAMS``/
``ICONBENCH_SHARD`` (see :mod:`iconbench.suite`). Import is cheap: nothing is generated or
compiled at import. ``setup_cache`` compiles every (program, backend) of that parameter space
once per environment, in parallel, with the runner's precompile driver
(:func:`iconbench.runner.precompile.compile_pairs`) into the persistent build cache, before
asv times anything; ``setup`` then only loads from the cache. ``--bench`` chooses what asv
times, the variables what is compiled: narrow both.

Benchmarks per combination:

- ``time_host``: seconds per call including synchronisation (what a Python driver waits);
- ``time_device``: seconds per call on the device (CUDA events on GPU; gt4py's ``compute``
  metric on compiled CPU backends; the host time on embedded), stored by asv as samples
  through the ``timer`` attribute (a counter advanced only by device time);
- ``track_call_overhead``: median(host − device) of paired calls (seconds);
- ``track_bandwidth`` (GB/s) and ``track_bandwidth_fraction`` (of a device-to-device copy
  measured in the same process): minimum bytes moved over the device median;
- ``track_compile_cold`` (the compile in ``setup_cache``: cold on a new stack, a cache hit
  when the stack was built before) and
  ``track_compile_cached`` (loading from the persistent cache in this process), seconds;
- ``track_codegen_fingerprint``: the first 12 hex digits of the generated-code hash as an
  integer, so that ``asv compare`` flags a change in generated code.
"""

import math
import os
import pathlib
import sys
import warnings

try:
    import iconbench  # noqa: F401
except ImportError:  # asv's "existing" environment without iconbench installed: use this checkout
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "src"))

from iconbench import buildcache, bytecode

bytecode.configure()  # gt4py's bytecode kept even where its writing is off
from iconbench.stacks.identity import stack_key  # noqa: E402

#: the build cache's key: the stack of this environment (or what the user names)
STACK = os.environ.get("ICONBENCH_STACK") or stack_key()
buildcache.configure(STACK)

from iconbench import suite  # noqa: E402
from iconbench.programs import backends  # noqa: E402
from iconbench.records.session import Measurement  # noqa: E402
from iconbench.timing import bandwidth, clocks, measurement  # noqa: E402

warnings.filterwarnings("ignore", message="Field View Program")
warnings.filterwarnings("ignore", message="Python is not running in optimized mode")

_DEVICE_SECONDS = [0.0]
_CLOCKS: dict[str, clocks.Clock] = {}
_COPY_PEAK: dict[bool, float] = {}


def device_timer() -> float:
    """The asv ``timer`` for ``time_device``: advances only by the device time of timed calls."""
    return _DEVICE_SECONDS[0]


def precompile(cases, backend_names, grids) -> dict[str, float]:
    """Compile every (case, backend) in a process pool; the cold seconds by ``case|backend``.

    The runner's precompile driver, its ledger in asv's setup_cache directory (the current
    one, kept while the benchmarks run); a failed compile is left to ``setup``, which then
    fails that benchmark with the compiler's error.
    """
    import pathlib

    from iconbench.records.compilation import CompileLedger
    from iconbench.runner.precompile import compile_pairs

    jobs = [(case, backend) for backend in backend_names for case in cases]
    compiled = sum(1 for _, backend in jobs if backend != "embedded")
    records = compile_pairs(
        jobs,
        grid=suite.as_grid(grids[0]),
        stack=STACK,
        ledger=CompileLedger(pathlib.Path("work") / "compile.jsonl"),
        processes=max(1, min(compiled, os.cpu_count() or 1)),
    )
    return {f"{r.case}|{r.backend}": r.seconds for r in records if r.error is None}


def _quick_measurement(case: suite.PreparedCase) -> Measurement:
    call = case.call_and_sync() if case.backend.is_embedded else case
    return measurement.measure(
        call, _CLOCKS[case.backend.name], samples=50, max_s=2.0, warmup_s=0.05, gt4py_calls=0
    )


class Programs:
    """Every (program, backend, grid) combination; see the module docstring for the kinds."""

    params = (suite.case_ids(), suite.selected_backends(), suite.selected_grids())
    param_names = ("program", "backend", "grid")
    timeout = 1800
    warmup_time = 0.2
    # asv re-runs setup (a dict lookup here) before every sample, so each sample is one call:
    # at least 10 and at most 200 samples, stopping after 10 s.
    repeat = (10, 200, 10.0)

    if any(not backends.backend(name).is_embedded for name in params[1]):
        # asv passes what setup_cache returns as the first argument of every method (hence
        # ``*args``); with embedded alone there is nothing to compile and no setup_cache
        def setup_cache(self):
            return precompile(*self.params)

        # every compile of the parameter space (the solver's variants take minutes each)
        setup_cache.timeout = 4 * 3600

    def setup(self, *args):
        self.compiled = args[0] if len(args) == 4 else {}
        program, backend, grid = args[-3:]
        resolved = backends.backend(backend)
        if resolved.on_gpu:
            try:
                import cupy  # noqa: F401
            except ImportError:
                raise NotImplementedError(f"{backend} needs cupy and a GPU") from None
        self.case = suite.prepare(program, resolved, grid)
        if backend not in _CLOCKS:
            _CLOCKS[backend] = clocks.clock_for(resolved)
        self.clock = _CLOCKS[backend]
        self.call = self.case.call_and_sync()

    def time_host(self, *_):
        self.call()

    def time_device(self, *_):
        level = 10 if self.clock.device_source == "gt4py-compute" else 0
        with clocks.gt4py_metrics_level(level):
            timing = self.clock.time_call(self.case)
        _DEVICE_SECONDS[0] += timing.device_s if timing.device_s is not None else timing.host_s

    time_device.timer = device_timer

    def track_call_overhead(self, *_):
        overhead = _quick_measurement(self.case).overhead_median
        return math.nan if overhead is None else overhead

    track_call_overhead.unit = "seconds"

    def track_bandwidth(self, *_):
        m = _quick_measurement(self.case)
        seconds = m.device_median or m.host_median
        return bandwidth.achieved_bandwidth(self.case.bytes_moved, seconds) / 1e9

    track_bandwidth.unit = "GB/s"

    def track_bandwidth_fraction(self, *_):
        on_gpu = self.case.on_gpu
        if on_gpu not in _COPY_PEAK:
            _COPY_PEAK[on_gpu] = bandwidth.measure_copy_peak(on_gpu=on_gpu).bytes_per_s
        return self.track_bandwidth() * 1e9 / _COPY_PEAK[on_gpu]

    track_bandwidth_fraction.unit = "fraction of copy peak"

    def track_compile_cold(self, *args):
        program, backend, _ = args[-3:]
        return self.compiled.get(f"{program}|{backend}", math.nan)

    track_compile_cold.unit = "seconds"

    def track_compile_cached(self, *_):
        return self.case.load_s

    track_compile_cached.unit = "seconds"

    def track_codegen_fingerprint(self, *_):
        fingerprint = self.case.fingerprint
        return math.nan if fingerprint is None else int(fingerprint[:12], 16)

    track_codegen_fingerprint.unit = "fingerprint"
