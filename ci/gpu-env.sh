# Source this on a GPU runner that has no network: installs the carried wheelhouse (.whl/)
# into /tmp/site next to the machine's own Python 3.12 (which already has cupy), and puts
# iconbench's sources on the path. Usage:  source ci/gpu-env.sh
# The wheelhouse is made on a machine with network by ci/gpu-wheelhouse (gt4py, dace, icon4py
# and those of their dependencies that a CUDA image lacks). Its bytecode is compiled once here,
# as an installer does (iconbench bytecode), not by the first processes of the first run.
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [ -f "$root/.whl/site.tar.xz" ]; then  # the wheelhouse packed (ci/gpu-wheelhouse --packed)
    rm -rf /tmp/site /tmp/sitex && tar -xJf "$root/.whl/site.tar.xz" -C /tmp && mv /tmp/sitex /tmp/site || return 1
else
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
        --target /tmp/site "$root"/.whl/*.whl || return 1
fi
export PYTHONPATH="/tmp/site:$root/src${PYTHONPATH:+:$PYTHONPATH}"
export PATH="/tmp/site/bin:$PATH"
export PYTHONOPTIMIZE="${PYTHONOPTIMIZE:-2}"
export ICONBENCH_CACHE_DIR="${ICONBENCH_CACHE_DIR:-/tmp/iconbench-cache}"
export GT4PY_BUILD_JOBS="${GT4PY_BUILD_JOBS:-$(nproc)}"
python3 -m iconbench bytecode >&2 || return 1
