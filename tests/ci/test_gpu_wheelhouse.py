"""ci/gpu-wheelhouse and the wheelhouse in parts that ci/gpu-env.sh assembles on a runner."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys
import zipfile

import pytest

from iconbench.stacks import parts

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _archive(tmp_path: pathlib.Path, size: int) -> pathlib.Path:
    archive = tmp_path / "whl" / "site.tar.xz"
    archive.parent.mkdir()
    archive.write_bytes(os.urandom(size))
    return archive


def test_parts_are_staged_one_upload_at_a_time_then_assembled(tmp_path: pathlib.Path) -> None:
    archive = _archive(tmp_path, 2500)
    whole = archive.read_bytes()
    folders = parts.split(archive, 1000)
    assert [f.name for f in folders] == ["parts-1", "parts-2", "parts-3"]
    assert [(f / f"site.tar.xz.0{i}").stat().st_size for i, f in enumerate(folders, 1)] == [
        1000, 1000, 500,
    ]  # fmt: skip
    archive.unlink()
    staging = tmp_path / "staging"
    # each upload carries one part; the runner keeps what earlier uploads staged
    carried = tmp_path / "runner" / ".whl"
    carried.mkdir(parents=True)
    for index, folder in enumerate(folders, 1):
        for old in carried.glob("parts-*"):
            subprocess.run(["rm", "-rf", str(old)], check=True)
        subprocess.run(["cp", "-r", str(folder), str(carried)], check=True)
        made = parts.assemble(carried, staging)
        if index < 3:
            assert made is None
            assert parts.stage(carried, staging).missing == tuple(range(index + 1, 4))
    assert made is not None
    assert made.read_bytes() == whole


def test_a_corrupt_part_is_refused(tmp_path: pathlib.Path) -> None:
    folders = parts.split(_archive(tmp_path, 2000), 1000)
    piece = folders[1] / "site.tar.xz.02"
    piece.write_bytes(b"x" + piece.read_bytes()[1:])
    with pytest.raises(parts.PartError, match=r"does not match its MANIFEST\.json"):
        parts.assemble(tmp_path / "whl", tmp_path / "staging")


def test_parts_of_two_builds_are_not_mixed(tmp_path: pathlib.Path) -> None:
    parts.split(_archive(tmp_path, 2000), 1000)
    other = tmp_path / "other"
    other.mkdir()
    (other / "site.tar.xz").write_bytes(os.urandom(2000))
    parts.split(other / "site.tar.xz", 1000)
    subprocess.run(["rm", "-rf", str(tmp_path / "whl" / "parts-2")], check=True)
    subprocess.run(["cp", "-r", str(other / "parts-2"), str(tmp_path / "whl")], check=True)
    with pytest.raises(parts.PartError, match="holds parts of 2 wheelhouses"):
        parts.stage(tmp_path / "whl", tmp_path / "staging")


def test_the_command_line_says_which_parts_to_carry_next(tmp_path: pathlib.Path) -> None:
    folders = parts.split(_archive(tmp_path, 3000), 1000)
    subprocess.run(["rm", "-rf", str(folders[0]), str(folders[2])], check=True)
    done = subprocess.run(
        [sys.executable, "-m", "iconbench.stacks.parts", "assemble", str(tmp_path / "whl"),
         str(tmp_path / "staging")],
        check=False, capture_output=True, text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
    )  # fmt: skip
    assert done.returncode == 3
    assert done.stderr.strip().endswith(
        f"1 of 3 parts of the wheelhouse staged in {tmp_path / 'staging'}; carry parts-1,3 next"
    )


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (["--cuda", "11"], "gpu-wheelhouse: --cuda '11' is not 12 or 13"),
        (["--arch", "ppc64le"], "gpu-wheelhouse: --arch 'ppc64le' is not x86_64 or aarch64"),
        (["--python", "3.11"], "gpu-wheelhouse: --python '3.11' is not 3.12 or 3.13"),
        (["--cuda", "13", "--toolkit", "--packed"], "gpu-wheelhouse: --toolkit brings CUDA 12's"),
    ],
)
def test_bad_options_get_one_line(args: list[str], line: str) -> None:
    done = subprocess.run([str(ROOT / "ci" / "gpu-wheelhouse"), *args], check=False,
                          capture_output=True, text=True)  # fmt: skip
    assert done.returncode == 2
    assert done.stderr.startswith(line)
    assert done.stderr.count("\n") == 1


@pytest.mark.slow  # downloads about 330 MB of wheels and builds dace: 1-2 min with the index
def test_the_aarch64_cuda12_wheelhouse_resolves(tmp_path: pathlib.Path) -> None:
    """Every wheel a GH200 runner (aarch64, Python 3.13, CUDA 12) needs, from the index."""
    out = tmp_path / "whl"
    done = subprocess.run(
        [str(ROOT / "ci" / "gpu-wheelhouse"), "--arch", "aarch64", "--cuda", "12",
         "--python", "3.13"],
        check=False, capture_output=True, text=True,
        env={**os.environ, "ICONBENCH_WHEELHOUSE": str(out)},
    )  # fmt: skip
    if done.returncode != 0 and "Could not fetch URL" in done.stderr:
        pytest.skip("the package index is not reached")
    assert done.returncode == 0, done.stderr[-2000:]
    wheels = sorted(p.name for p in out.glob("*.whl"))
    compiled = [w for w in wheels if "-none-any" not in w and "py2.py3-none-any" not in w]
    assert compiled
    assert all("aarch64" in w for w in compiled), compiled
    assert all("-cp313-" in w or "-abi3-" in w or "-py3-none-" in w for w in compiled), compiled
    names = {w.split("-")[0].lower() for w in wheels}
    assert {"cupy_cuda12x", "nvidia_cuda_runtime_cu12", "nvidia_cuda_nvrtc_cu12",
            "nvidia_cuda_nvcc_cu12", "gt4py", "dace", "icon4py_common"} <= names  # fmt: skip
    (dace,) = out.glob("dace-*.whl")
    assert dace.name.endswith("-py3-none-any.whl")
    with zipfile.ZipFile(dace) as z:
        assert not [n for n in z.namelist() if n.endswith(".so")]


def test_a_pure_wheel_leaves_the_compiled_files_out_and_says_so(tmp_path: pathlib.Path) -> None:
    from iconbench.stacks import purewheel

    wheel = tmp_path / "asv-0.6.6-cp36-abi3-manylinux2014_x86_64.whl"
    with zipfile.ZipFile(wheel, "w") as z:
        z.writestr("asv/__init__.py", "x = 1\n")
        z.writestr("asv/_rangemedian.abi3.so", b"\x7fELF")
        z.writestr("asv/_rangemedian.cpp", "int f();\n")
        z.writestr("asv-0.6.6.dist-info/WHEEL", "Wheel-Version: 1.0\nRoot-Is-Purelib: false\n"
                   "Tag: cp36-abi3-manylinux2014_x86_64\n")  # fmt: skip
        z.writestr("asv-0.6.6.dist-info/RECORD", "stale\n")
    out = tmp_path / "out"
    out.mkdir()
    pure = purewheel.make_pure(wheel, out)
    assert pure.name == "asv-0.6.6-py3-none-any.whl"
    with zipfile.ZipFile(pure) as z:
        names = sorted(z.namelist())
        assert names == [
            "asv-0.6.6.dist-info/RECORD",
            "asv-0.6.6.dist-info/WHEEL",
            "asv/__init__.py",
        ]
        wheel_text = z.read("asv-0.6.6.dist-info/WHEEL").decode()
        record = z.read("asv-0.6.6.dist-info/RECORD").decode().splitlines()
    assert "Tag: py3-none-any" in wheel_text
    assert "Root-Is-Purelib: true" in wheel_text
    assert "cp36" not in wheel_text
    assert [line.split(",")[0] for line in record] == [
        "asv/__init__.py", "asv-0.6.6.dist-info/WHEEL", "asv-0.6.6.dist-info/RECORD",
    ]  # fmt: skip
