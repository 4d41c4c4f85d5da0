"""``iconbench info``: print the stack this environment would benchmark."""

from __future__ import annotations

import argparse

from iconbench.cli import options
from iconbench.cli.command import Command


class Info(Command):
    """Print Python, gt4py, dace, icon4py, numpy, cupy, CUDA and GPU versions."""

    name = "info"
    summary = "print the exact versions of the stack in this environment (and the GPU, if any)"
    examples = ("iconbench info", "iconbench info --json > stack.json")

    @classmethod
    def add_arguments(cls, parser: argparse.ArgumentParser) -> None:
        options.add_json(parser)

    @classmethod
    def run(cls, args: argparse.Namespace) -> int:
        from iconbench import provenance
        from iconbench.imported import DIST_MODULES, imported

        info = provenance.collect()
        if args.json:
            print(info.to_json())
            return 0
        print(f"{'python':<30} {info.python} (optimize={info.python_optimize})")
        print(f"{'platform':<30} {info.platform}")
        for name, version in info.packages.items():
            found = imported(name) if name in DIST_MODULES else None
            where = found.describe().removeprefix(f"{name} {version}") if found else ""
            print(f"{name:<30} {version}{where}")
        if info.gpu is None:
            print(f"{'gpu':<30} none (cupy missing or no CUDA device)")
        else:
            print(
                f"{'gpu':<30} {info.gpu.name} ({info.gpu.memory_gib} GiB, {info.gpu.sm_count} SMs)"
            )
            print(f"{'cuda runtime / driver':<30} {info.gpu.cuda_runtime} / {info.gpu.cuda_driver}")
            print(f"{'nvidia driver':<30} {provenance.nvidia_driver_version() or 'unknown'}")
        # the compiler of gtfn_gpu's and dace_gpu's builds, which may be another CUDA release
        print(f"{'nvcc':<30} {provenance.nvcc_version() or 'none'}")
        return 0
