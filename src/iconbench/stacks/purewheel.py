"""A pure-Python wheel of a distribution whose compiled part a run never needs.

asv 0.6.6 has no wheel for linux aarch64; its one extension (``_rangemedian``, asv's step
detection) has a Python fallback that asv itself takes where the extension is missing, and
iconbench never calls it (it writes and reads asv's result files; change points are its own).
So ``ci/gpu-wheelhouse --arch aarch64`` carries asv as a ``py3-none-any`` wheel made from any
wheel of it: the compiled files and their sources left out, the tags and ``RECORD`` rewritten.
"""

from __future__ import annotations

import hashlib
import pathlib
import sys
import zipfile

from iconbench.files.digest import unpadded_b64

#: What a pure wheel leaves out: compiled extensions and their C/C++ sources.
COMPILED = (".so", ".pyd", ".dylib", ".c", ".cpp", ".pyx")


def make_pure(wheel: pathlib.Path, out_dir: pathlib.Path) -> pathlib.Path:
    """Write ``<name>-<version>-py3-none-any.whl`` of ``wheel`` into ``out_dir``."""
    name, version = wheel.name.split("-")[:2]
    target = out_dir / f"{name}-{version}-py3-none-any.whl"
    dist_info = f"{name}-{version}.dist-info"
    record: list[str] = []
    with zipfile.ZipFile(wheel) as src, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as dst:
        for item in src.infolist():
            if item.filename.endswith(COMPILED) or item.filename == f"{dist_info}/RECORD":
                continue
            data = src.read(item)
            if item.filename == f"{dist_info}/WHEEL":
                lines = [ln for ln in data.decode().splitlines() if not ln.startswith("Tag:")]
                lines = [
                    ln.replace("Root-Is-Purelib: false", "Root-Is-Purelib: true") for ln in lines
                ]
                data = ("\n".join([*lines, "Tag: py3-none-any"]) + "\n").encode()
            dst.writestr(item.filename, data)
            digest = unpadded_b64(hashlib.sha256(data).digest())
            record.append(f"{item.filename},sha256={digest},{len(data)}")
        dst.writestr(f"{dist_info}/RECORD", "\n".join([*record, f"{dist_info}/RECORD,,"]) + "\n")
    return target


if __name__ == "__main__":  # ci/gpu-wheelhouse: python -m iconbench.stacks.purewheel WHEEL OUT_DIR
    print(make_pure(pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])))
