"""The devices a run measures on, resolved once, and each device's share of the cases.

A host with several GPUs measures on all of them at once: one measuring worker per device,
each worker seeing only its own GPU (``CUDA_VISIBLE_DEVICES=<id>`` in its environment), the
cases split over the devices so that each device's share takes about as long
(:func:`split`). On one device a run is what it always was: one worker at a time, the
environment as the runner set it.

Where the devices come from, first match wins (:func:`resolve`): ``--devices 0,1``; for GPU
backends the entries of ``CUDA_VISIBLE_DEVICES``, else the GPUs ``nvidia-smi -L`` lists (by
UUID); else one device, the one the process finds. Nothing here imports cupy: the driver of
a run only starts workers, and a CUDA context in it would hold memory on every GPU.
"""

from __future__ import annotations

import dataclasses
import os
import re
import shutil
import statistics
import subprocess
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING

from iconbench.errors import IconbenchError

if TYPE_CHECKING:
    import pathlib

Job = tuple[str, str]


@dataclasses.dataclass(frozen=True)
class Device:
    """One device a measuring worker gets: an entry of ``CUDA_VISIBLE_DEVICES`` (or none).

    ``label`` is what the worker's ``CUDA_VISIBLE_DEVICES`` is set to (an index ``"1"`` or
    a ``GPU-…`` UUID; for CPU backends any name, which no library reads); ``""`` leaves the
    worker's environment as the runner's (the one device a process finds). An index means
    what it means to the runner's own CUDA (``CUDA_DEVICE_ORDER``); the GPUs found by
    ``nvidia-smi`` are named by UUID, which means one GPU in any order.

    >>> Device("1").environment({"PATH": "/bin"})
    {'PATH': '/bin', 'CUDA_VISIBLE_DEVICES': '1'}
    >>> Device().environment({"CUDA_VISIBLE_DEVICES": "3"})
    {'CUDA_VISIBLE_DEVICES': '3'}
    """

    label: str = ""

    def environment(self, env: Mapping[str, str]) -> dict[str, str]:
        """``env`` for a worker on this device."""
        out = dict(env)
        if self.label:
            out["CUDA_VISIBLE_DEVICES"] = self.label
        return out


@dataclasses.dataclass(frozen=True)
class Devices:
    """The devices of a run, in order, and where they were found (for the log)."""

    devices: tuple[Device, ...]
    source: str

    def __post_init__(self) -> None:
        if not self.devices:
            raise ValueError("Devices needs at least one device")

    def __len__(self) -> int:
        return len(self.devices)

    def __iter__(self) -> Iterator[Device]:
        return iter(self.devices)

    @property
    def labels(self) -> list[str | None]:
        """Each device's label as recorded (``None``: the device the process found)."""
        return [device.label or None for device in self.devices]

    def describe(self) -> str:
        """``"2 devices (CUDA_VISIBLE_DEVICES): 0, 1"`` / ``"one device"``."""
        if len(self) == 1 and not self.devices[0].label:
            return "one device"
        count = "1 device" if len(self) == 1 else f"{len(self)} devices"
        return f"{count} ({self.source}): {', '.join(d.label for d in self.devices)}"

    def shares(
        self, jobs: Sequence[Job], seconds: Mapping[Job, float]
    ) -> list[tuple[int, Device, list[Job]]]:
        """``(index, device, its jobs)`` of each device that gets any (:func:`split`)."""
        groups = split(jobs, len(self), seconds)
        return [(i, d, g) for i, (d, g) in enumerate(zip(self.devices, groups, strict=True)) if g]

    def describe_shares(self, shares: Sequence[tuple[int, Device, Sequence[Job]]]) -> str:
        """The progress line of a split: ``"5 cases on 2 devices (...): a, b; 3 on a, 2 on b"``."""
        cases = sum(len(jobs) for _, _, jobs in shares)
        split = ", ".join(f"{len(jobs)} on {device.label}" for _, device, jobs in shares)
        return f"{cases} cases on {self.describe()}; {split}"


def recorded_label(given: str, env: Mapping[str, str]) -> str | None:
    """The device a measuring process records with each case: ``given``, else its own GPU.

    A worker of the devices road is told its device (``given``). A process of one shard of
    the shards road is not: its runner set ``CUDA_VISIBLE_DEVICES`` to one GPU, which the
    process sees as device 0. Recording that entry keeps which GPU of the host measured a
    case, so that two runs can be compared case by case across GPUs (docs/nightly-gpu.md).
    Several entries, or none, name no one GPU: ``None``.

    >>> recorded_label("1", {"CUDA_VISIBLE_DEVICES": "3"})
    '1'
    >>> recorded_label("", {"CUDA_VISIBLE_DEVICES": "3"})
    '3'
    >>> recorded_label("", {"CUDA_VISIBLE_DEVICES": "0,1"}), recorded_label("", {})
    (None, None)
    """
    if given:
        return given
    visible = env.get("CUDA_VISIBLE_DEVICES", "").strip()
    return visible if visible and "," not in visible else None


#: One device, the one every process finds: a run as on a host with one GPU.
ONE = Devices((Device(),), "one device")

#: A GPU in ``nvidia-smi -L``: ``GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-…)``
_LISTED_GPU = re.compile(r"^GPU \d+: .*\(UUID: (GPU-[^)\s]+)\)", re.MULTILINE)


def parse(text: str) -> Devices:
    """``--devices 0,1``: the devices named, each once.

    >>> parse("0, 1").labels
    ['0', '1']
    >>> parse("0,,0")
    Traceback (most recent call last):
    ...
    iconbench.errors.IconbenchError: --devices '0,,0': give device ids separated by commas, \
each once (CUDA_VISIBLE_DEVICES entries), e.g. 0,1
    """
    labels = [label.strip() for label in text.split(",")]
    if not all(labels) or len(set(labels)) != len(labels):
        raise IconbenchError(
            f"--devices {text!r}: give device ids separated by commas, each once "
            "(CUDA_VISIBLE_DEVICES entries), e.g. 0,1"
        )
    return Devices(tuple(Device(label) for label in labels), "--devices")


def listed_gpus() -> list[str] | None:
    """The UUIDs of the GPUs ``nvidia-smi -L`` lists (``None``: no nvidia-smi, or it failed)."""
    if shutil.which("nvidia-smi") is None:
        return None
    try:
        done = subprocess.run(
            ["nvidia-smi", "-L"], capture_output=True, text=True, timeout=30, check=True
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return _LISTED_GPU.findall(done.stdout)


def resolve(
    given: Devices | None,
    *,
    on_gpu: bool,
    environ: Mapping[str, str] = os.environ,
    list_gpus: Callable[[], list[str] | None] = listed_gpus,
) -> Devices:
    """The devices of a run: ``given`` (``--devices``), else the visible GPUs, else one.

    GPUs are looked for only where every backend runs on one (``on_gpu``): a CPU backend's
    cases measured side by side would share the cores they are timed on.

    >>> resolve(None, on_gpu=True, environ={"CUDA_VISIBLE_DEVICES": "2,3"}).describe()
    '2 devices (CUDA_VISIBLE_DEVICES): 2, 3'
    >>> resolve(None, on_gpu=True, environ={}, list_gpus=lambda: ["GPU-0a", "GPU-1b"]).labels
    ['GPU-0a', 'GPU-1b']
    >>> resolve(None, on_gpu=True, environ={}, list_gpus=lambda: ["GPU-0a"]) == ONE
    True
    >>> resolve(None, on_gpu=False, environ={"CUDA_VISIBLE_DEVICES": "0,1"}) == ONE
    True
    """
    if given is not None:
        return given
    if not on_gpu:
        return ONE
    visible = environ.get("CUDA_VISIBLE_DEVICES")
    if visible is not None:
        labels = [label.strip() for label in visible.split(",") if label.strip()]
        source = "CUDA_VISIBLE_DEVICES"
    else:
        labels = list_gpus() or []
        source = "nvidia-smi -L"
    if len(labels) < 2:
        return ONE
    return Devices(tuple(Device(label) for label in labels), source)


def split(jobs: Sequence[Job], count: int, seconds: Mapping[Job, float]) -> list[list[Job]]:
    """``count`` shares of ``jobs`` that take about as long each, every share in jobs' order.

    A job takes ``seconds[job]`` (its measuring wall time in a ledger,
    :func:`measuring_seconds`), one not there the median of those that are; with none known
    every job counts the same, and the shares differ by at most one job. Longest first onto
    the least loaded device (:func:`iconbench.timing.sharding.balance`). A job is a
    (case, backend) pair: a check measures both of its sides on the device it lands on.

    >>> jobs = [("a", "gtfn_gpu"), ("b", "gtfn_gpu"), ("c", "gtfn_gpu"), ("d", "gtfn_gpu")]
    >>> [[case for case, _ in share] for share in split(jobs, 2, {})]
    [['a', 'c'], ['b', 'd']]
    >>> slow = {("a", "gtfn_gpu"): 9.0, ("b", "gtfn_gpu"): 1.0, ("c", "gtfn_gpu"): 1.0}
    >>> [[case for case, _ in share] for share in split(jobs, 2, slow)]
    [['a'], ['b', 'c', 'd']]
    """
    from iconbench.timing.sharding import balance

    if count <= 1:
        return [list(jobs)]
    known = [seconds[job] for job in jobs if job in seconds]
    typical = statistics.median(known) if known else 1.0
    order = {job: number for number, job in enumerate(jobs)}
    return balance(list(jobs), lambda job: seconds.get(job, typical), count, key=order.get)


def measuring_seconds(*works: pathlib.Path | None) -> dict[Job, float]:
    """Each pair's last measuring wall time, from the first of ``works`` (``work/``) that has it.

    What :func:`split` balances: the ``duration_s`` of ``work/session.jsonl`` (loading the
    program, warm-up and samples).
    """
    from iconbench.records.session import SessionLedger

    seconds: dict[Job, float] = {}
    for work in reversed([w for w in works if w is not None]):
        seconds |= SessionLedger(work / "session.jsonl").durations()
    return seconds


def side_by_side[T](lanes: Sequence[Callable[[threading.Event], T]]) -> list[T]:
    """Run each device's lane at the same time; their results, or the first lane's error.

    A lane is called with an event that is set once another lane has failed: it should give
    no further turn then. One lane runs in this thread, as a run on one device always did.
    """
    stop = threading.Event()
    if len(lanes) == 1:
        return [lanes[0](stop)]

    def guarded(lane: Callable[[threading.Event], T]) -> T:
        try:
            return lane(stop)
        except BaseException:
            stop.set()
            raise

    with ThreadPoolExecutor(max_workers=len(lanes), thread_name_prefix="device") as pool:
        futures = [pool.submit(guarded, lane) for lane in lanes]
        errors = [f.exception() for f in futures]  # waits for every lane
    first = next((error for error in errors if error is not None), None)
    if first is not None:
        raise first
    return [f.result() for f in futures]
