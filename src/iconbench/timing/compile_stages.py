"""Where one build's seconds go: gt4py's passes, DaCe's, code generation, the compilers.

A check with main's builds waits on its longest build (icon4py #1405 on one H100 host: the
four dace_gpu variants of ``compute_rho_theta_pgrad_and_update_vn``, 163-195 s each, side by
side), so what shortens it is what that one build spends, not the pool's average. The
precompile's worker times each stage of each build it makes (:func:`timed`) and the compile
ledger keeps them beside the build's seconds (``CompileRecord.stages``), and a check's record
names its longest builds with them (:mod:`iconbench.records.build_stages`).

The stages, and where each is taken:

- ``gt4py passes``: gt4py's transformations of the program's IR
  (``iterator.transforms.apply_fieldview_transforms`` for DaCe,
  ``pass_manager.apply_common_transforms`` for gtfn);
- ``lowering``: the IR into the backend's form (``build_sdfg_from_gtir``; gtfn's
  ``generate_stencil_source``, which also prints its C++, less the passes it calls);
- ``dace passes``: DaCe's SDFG transformations (gt4py's ``gt_auto_optimize``);
- ``code generation``: DaCe's SDFG into C++ and CUDA (``dace.codegen.codegen.generate_code``);
- ``cmake``: configuring the build folder, and the build tool around the compiles;
- ``compile``: a DaCe build whose commands do not carry the launcher (replayed from DaCe's
  record of a build of the same shape made before on this host), not split further;
- ``nvcc``, ``host compiler``, ``link``: each compiler command of the build, timed by a
  launcher CMake puts before it (``CMAKE_<LANG>_COMPILER_LAUNCHER``,
  ``CMAKE_<LANG>_LINKER_LAUNCHER``; DaCe's builds) or around each command of gtfn's compile
  database. nvcc calls the host compiler for a ``.cu`` file's host code: that counts as nvcc.

A stage a stack's gt4py or DaCe does not have (another release's names) is left out, and the
rest of a build's seconds is ``other`` (loading, hashing, the caches). Timing a stage adds a
call of ``time.perf_counter`` around it, nothing inside it: the code built is the same.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import pathlib
import shlex
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

#: (module, attribute path, stage): the Python functions each stage is, where the stack has them.
PYTHON_STAGES: tuple[tuple[str, str, str], ...] = (
    ("gt4py.next.iterator.transforms", "apply_fieldview_transforms", "gt4py passes"),
    ("gt4py.next.iterator.transforms.pass_manager", "apply_common_transforms", "gt4py passes"),
    ("gt4py.next.program_processors.runners.dace.lowering", "build_sdfg_from_gtir", "lowering"),
    (
        "gt4py.next.program_processors.codegens.gtfn.gtfn_module",
        "GTFNTranslationStep.generate_stencil_source",
        "lowering",
    ),
    (
        "gt4py.next.program_processors.runners.dace.transformations",
        "gt_auto_optimize",
        "dace passes",
    ),
    ("dace.codegen.codegen", "generate_code", "code generation"),
)

#: The name the compiler launcher runs under (``$0``: a command it runs shows it).
LAUNCHER_NAME = "iconbench-compiler-launcher"

#: The environment variable the compiler launcher appends its lines to.
TIMES_FILE = "ICONBENCH_COMPILER_TIMES"

#: The launcher, one line of ``sh`` given to ``/bin/sh -c``: it runs the command (``"$@"``)
#: and appends "start end tool compiles" to the file ``$ICONBENCH_COMPILER_TIMES`` names,
#: if any; its exit status is the command's. No file of it lies anywhere: CMake keeps a
#: launcher in the build folder's cache, and DaCe seeds new build folders from a configure
#: it keeps machine-wide, so a launcher file removed with a cache would break later builds.
#: A CMake list holds no ``;``, and a Ninja command no newline: the line uses neither.
LAUNCHER_SCRIPT = (
    's=$(date +%s.%N) && ("$@") && r=0 || r=$? && (echo " $* " | grep -q -- " -c ") && c=1 '
    '|| c=0 && [ -z "$ICONBENCH_COMPILER_TIMES" ] || echo "$s $(date +%s.%N) $(basename "$1") '
    '$c" >> "$ICONBENCH_COMPILER_TIMES" 2>/dev/null || true && exit $r'
)


class _Clock:
    """Seconds per stage, summed over the calls inside :func:`timed`.

    A stage called inside another (gtfn's lowering runs gt4py's passes) counts for itself
    only, so the stages add up to the build; a stage inside itself counts once.
    """

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self._open: list[list[Any]] = []  # [stage, seconds of the stages inside it]

    def wrap(
        self, stage: str, function: Callable[..., Any], *, unlaunched: bool = False
    ) -> Callable[..., Any]:
        """``function`` timed as ``stage``; ``unlaunched``: the launcher records nothing inside."""
        clock = self

        def timed_stage(*args: Any, **kwargs: Any) -> Any:
            if any(frame[0] == stage for frame in clock._open):
                return function(*args, **kwargs)
            clock._open.append([stage, 0.0])
            start = time.perf_counter()
            try:
                with _unlaunched() if unlaunched else contextlib.nullcontext():
                    return function(*args, **kwargs)
            finally:
                elapsed = time.perf_counter() - start
                _, inner = clock._open.pop()
                clock.add(stage, elapsed - inner)
                if clock._open:
                    clock._open[-1][1] += elapsed

        timed_stage.__wrapped__ = function  # type: ignore[attr-defined]
        return timed_stage

    def add(self, stage: str, seconds: float) -> None:
        self.seconds[stage] = self.seconds.get(stage, 0.0) + seconds


def _swap(
    undo: list[Callable[[], None]],
    owner: Any,
    name: str,
    make: Callable[[Any], Any],
) -> None:
    """``owner.name`` replaced by ``make(owner.name)`` where it exists; its undo into ``undo``."""
    original = getattr(owner, name, None)
    if original is not None:
        setattr(owner, name, make(original))
        undo.append(lambda: setattr(owner, name, original))


def _patch(clock: _Clock, targets: Iterable[tuple[str, str, str]]) -> list[Callable[[], None]]:
    """Wrap each target the stack has; the undo of each."""
    undo: list[Callable[[], None]] = []
    for module_name, path, stage in targets:
        try:
            owner: Any = importlib.import_module(module_name)
            *parents, name = path.split(".")
            for parent in parents:
                owner = getattr(owner, parent)
        except (ImportError, AttributeError):
            continue  # another release of the stack: this stage is not timed
        _swap(undo, owner, name, lambda original, stage=stage: clock.wrap(stage, original))
    return undo


class _TimedSubprocess:
    """gtfn's compile database runs each command through ``subprocess.check_call``: timed here.

    A command the launcher runs is timed by the launcher; a CMake configure runs without the
    launcher's file, so that its compiler checks do not count as the build's compiles.
    """

    def __init__(self, clock: _Clock) -> None:
        self._clock = clock

    def __getattr__(self, name: str) -> Any:
        return getattr(subprocess, name)

    def check_call(self, command: Any, *args: Any, **kwargs: Any) -> int:
        words = shlex.split(command) if isinstance(command, str) else [str(w) for w in command]
        if any(pathlib.Path(word).name == LAUNCHER_NAME for word in words):
            return subprocess.check_call(command, *args, **kwargs)
        stage = tool_stage(words)
        start = time.perf_counter()
        try:
            with _unlaunched() if stage == "cmake" else contextlib.nullcontext():
                return subprocess.check_call(command, *args, **kwargs)
        finally:
            self._clock.add(stage, time.perf_counter() - start)


@contextlib.contextmanager
def _unlaunched() -> Iterator[None]:
    """Inside, the launcher records nothing (a configure's compiler checks are no build)."""
    saved = os.environ.pop(TIMES_FILE, None)
    try:
        yield
    finally:
        if saved is not None:
            os.environ[TIMES_FILE] = saved


def _dace_build(clock: _Clock) -> list[Callable[[], None]]:
    """Time DaCe's build: its configure (``cmake``), its compiles (``build``), its header.

    DaCe configures with CMake (or seeds the configure from its machine-wide cache), then
    builds with ``cmake --build`` or replays the commands it recorded for a build of the same
    shape; the launcher splits ``build`` into nvcc, host compiler and link where the commands
    carry it (those CMake configured on this host since), and what it does not time stays
    ``build``. DaCe's precompiled header is a host compile.
    """
    try:
        from dace.codegen import command_db, compiler
    except ImportError:
        return []
    undo: list[Callable[[], None]] = []

    def run(original: Callable[..., Any]) -> Callable[..., Any]:
        def run_command(command: Any, *args: Any, **kwargs: Any) -> Any:
            configure = "--build" not in str(command)
            timed = clock.wrap("cmake" if configure else "build", original, unlaunched=configure)
            return timed(command, *args, **kwargs)

        return run_command

    _swap(undo, compiler, "_run_liveoutput", run)
    _swap(undo, command_db, "replay", lambda original: clock.wrap("build", original))
    _swap(undo, compiler, "prepare_precompiled_header",
          lambda original: clock.wrap("host compiler", original))  # fmt: skip
    return undo


def tool_stage(words: Sequence[str]) -> str:
    """The stage of one compiler command: ``nvcc``, ``host compiler`` or ``link``.

    >>> tool_stage(["/usr/bin/c++", "-O3", "-c", "a.cpp"]), tool_stage(["nvcc", "-c", "a.cu"])
    ('host compiler', 'nvcc')
    >>> tool_stage(["c++", "-shared", "a.o", "-o", "a.so"]), tool_stage(["cmake", "-E", "x"])
    ('link', 'cmake')
    """
    tool = pathlib.Path(words[0]).name if words else ""
    if tool in ("cmake", "ninja", "make"):
        return "cmake"
    if "-c" not in words:
        return "link"
    return "nvcc" if tool.startswith("nvcc") else "host compiler"


def launcher_environment() -> dict[str, str]:
    """The CMake variables that put the launcher before every compiler and linker command.

    CMake reads them from the environment when it configures a build folder for the first
    time (3.17 for compilers, 3.21 for linkers); a folder configured before keeps its own.

    >>> launcher_environment()["CMAKE_CUDA_COMPILER_LAUNCHER"].split(";")[:2]
    ['/bin/sh', '-c']
    """
    launcher = ";".join(("/bin/sh", "-c", LAUNCHER_SCRIPT, LAUNCHER_NAME))
    return {f"CMAKE_{lang}_{tool}_LAUNCHER": launcher
            for lang in ("CXX", "CUDA") for tool in ("COMPILER", "LINKER")}  # fmt: skip


def read_launcher_times(path: pathlib.Path) -> dict[str, float]:
    r"""Seconds per stage from the launcher's lines (a torn or foreign line is skipped).

    >>> import tempfile
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "t"
    >>> _ = p.write_text("10.0 12.5 nvcc 1\n12.5 13.0 c++ 1\n13.0 13.25 c++ 0\nbad\n")
    >>> read_launcher_times(p)
    {'nvcc': 2.5, 'host compiler': 0.5, 'link': 0.25}
    """
    found: dict[str, float] = {}
    if not path.exists():
        return found
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        parts = line.split()
        try:
            start, end, tool, compiles = float(parts[0]), float(parts[1]), parts[2], parts[3]
        except (IndexError, ValueError):
            continue
        stage = tool_stage([tool, *(["-c"] if compiles == "1" else [])])
        found[stage] = found.get(stage, 0.0) + max(0.0, end - start)
    return found


@contextlib.contextmanager
def timed(scratch: pathlib.Path) -> Iterator[dict[str, float]]:
    """Time the stages of the builds made inside; the dict is filled when the block ends.

    ``scratch``: where the compiler launcher's times of this build are written.
    """
    clock = _Clock()
    undo = _patch(clock, PYTHON_STAGES) + _dace_build(clock)
    with contextlib.suppress(ImportError):
        from gt4py.next.otf.compilation.build_systems import compiledb

        _swap(undo, compiledb, "subprocess", lambda _module: _TimedSubprocess(clock))
        # gtfn's compile database: a prototype configured and built once per host
        _swap(undo, compiledb, "_cc_create_compiledb",
              lambda template: clock.wrap("cmake", template, unlaunched=True))  # fmt: skip
    scratch.mkdir(parents=True, exist_ok=True)
    handle, name = tempfile.mkstemp(prefix="compiler-times-", dir=scratch)
    os.close(handle)  # the launcher's processes append to it by name
    times = pathlib.Path(name)
    saved = {name: os.environ.get(name) for name in (*launcher_environment(), TIMES_FILE)}
    os.environ.update(launcher_environment() | {TIMES_FILE: str(times)})
    found: dict[str, float] = {}
    try:
        yield found
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        for step in reversed(undo):
            step()
        compilers = read_launcher_times(times)
        times.unlink(missing_ok=True)
        seconds = dict(clock.seconds)
        build = seconds.pop("build", 0.0)  # DaCe's compiles: the launcher's share split out
        split = sum(compilers.values())
        if build and split:  # what the launcher did not time is the build tool's
            seconds["cmake"] = seconds.get("cmake", 0.0) + max(0.0, build - split)
        elif build:  # commands replayed without the launcher: one stage
            seconds["compile"] = build
        for stage, value in compilers.items():
            seconds[stage] = seconds.get(stage, 0.0) + value
        found.update(seconds)
