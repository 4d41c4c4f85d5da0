# Source this on a GPU runner that has no network: installs the carried wheelhouse (.whl/)
# into /tmp/site next to the machine's own Python (which has cupy unless the wheelhouse brings
# it: ci/gpu-wheelhouse --cuda), and puts
# iconbench's sources on the path. Usage:  source ci/gpu-env.sh
# The wheelhouse is made on a machine with network by ci/gpu-wheelhouse (gt4py, dace, icon4py
# and those of their dependencies that a CUDA image lacks). Its bytecode is compiled once here,
# as an installer does (iconbench bytecode), not by the first processes of the first run; every
# later source finds the stamp of that compile for this stack (under a second) instead of
# compiling again, and sources at once wait for the one compiling.
# Sourced again by every script a job starts (ci/run-shard of each GPU at once, ci/nightly):
# the wheelhouse is installed once per wheelhouse (a stamp of its files in /tmp/site), under a
# lock, so a shard never finds /tmp/site removed under a running one.
# A wheelhouse in parts (.whl/parts-N/, ci/gpu-wheelhouse --packed over the upload limit): each
# source stages the parts carried so far in /tmp/iconbench-parts and returns 3 naming those
# still missing; the source that finds the last one assembles and installs the archive.
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
site_archive=""
if compgen -G "$root/.whl/parts-*/MANIFEST.json" >/dev/null; then
    site_archive="$(PYTHONPATH="$root/src" python3 -m iconbench.stacks.parts assemble \
        "$root/.whl" /tmp/iconbench-parts)" || return $?
elif [ -f "$root/.whl/site.tar.xz" ]; then
    site_archive="$root/.whl/site.tar.xz"
fi
wheelhouse_stamp="$( (cd "$root/.whl" && stat -c "%n %s %Y" ./*.whl 2>/dev/null; \
    [ -n "$site_archive" ] && stat -c "%n %s %Y" "$site_archive") | md5sum | cut -c1-16)"
if [ -z "$site_archive" ] && ! compgen -G "$root/.whl/*.whl" >/dev/null && [ -f /tmp/site/.iconbench-stamp ]; then
    :  # no wheelhouse carried this time: the one installed before stays
elif [ "$(cat /tmp/site/.iconbench-stamp 2>/dev/null)" != "$wheelhouse_stamp" ]; then
    (
        flock 9
        [ "$(cat /tmp/site/.iconbench-stamp 2>/dev/null)" = "$wheelhouse_stamp" ] && exit 0
        rm -rf /tmp/site /tmp/sitex
        if [ -n "$site_archive" ]; then  # the wheelhouse packed (ci/gpu-wheelhouse --packed)
            tar -xJf "$site_archive" -C /tmp || exit 1
        else
            python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir \
                --target /tmp/sitex "$root"/.whl/*.whl || exit 1
        fi
        echo "$wheelhouse_stamp" >/tmp/sitex/.iconbench-stamp && mv /tmp/sitex /tmp/site
    ) 9>/tmp/site.lock || return 1
fi
export PYTHONPATH="/tmp/site:$root/src${PYTHONPATH:+:$PYTHONPATH}"
# A CUDA 12 wheelhouse on a runner whose toolkit is 13 (ci/gpu-wheelhouse --cuda 12): its
# cupy-cuda12x shadows the runner's cupy (/tmp/site is first on the path) and links CUDA 12's
# runtime; NVRTC 12 and the runtime's shared library are found first (cupy's cuda-pathfinder
# and DaCe's -lcudart read LD_LIBRARY_PATH); the CUDA 12 nvcc it carries (CMake's CUDAToolkit_ROOT)
# (ci/cuda12-toolkit, /tmp/site/cuda-12) is the one gt4py's CMake build (CUDACXX, PATH) and
# DaCe (CUDA_HOME) compile with. ICONBENCH_CUDA keys the build cache apart from CUDA 13 builds.
# ICONBENCH_CUDA_STACK=runner keeps the runner's own CUDA with such a wheelhouse (the other
# half of a comparison on one host, ci/gpu/cuda-compare): the runner's cupy is linked into
# /tmp/site-runner-cuda, first on the path; its toolkit builds; the cache keys stay its own.
unset ICONBENCH_CUDA
if [ -d /tmp/site/nvidia/cuda_runtime/lib ] && [ "${ICONBENCH_CUDA_STACK:-}" = runner ]; then
    runner_site="$(env -u PYTHONPATH python3 -c 'import cupy, os; print(os.path.dirname(os.path.dirname(cupy.__file__)))')" || {
        echo "gpu-env: ICONBENCH_CUDA_STACK=runner, but the runner's python3 has no cupy" >&2; return 1; }
    rm -rf /tmp/site-runner-cuda && mkdir -p /tmp/site-runner-cuda
    for p in "$runner_site"/cupy* "$runner_site"/cuda_pathfinder* "$runner_site"/fastrlock*; do
        [ -e "$p" ] && ln -s "$p" /tmp/site-runner-cuda/
    done
    export PYTHONPATH="/tmp/site-runner-cuda:$PYTHONPATH"
elif [ -d /tmp/site/nvidia/cuda_runtime/lib ]; then
    export ICONBENCH_CUDA=12
    export LD_LIBRARY_PATH="/tmp/site/nvidia/cuda_runtime/lib:/tmp/site/nvidia/cuda_nvrtc/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    if [ -x /tmp/site/cuda-12/bin/nvcc ]; then
        export CUDA_HOME=/tmp/site/cuda-12 CUDA_PATH=/tmp/site/cuda-12 CUDAToolkit_ROOT=/tmp/site/cuda-12
        export CUDACXX=/tmp/site/cuda-12/bin/nvcc PATH="/tmp/site/cuda-12/bin:$PATH"
        export LD_LIBRARY_PATH="/tmp/site/cuda-12/lib64:/tmp/site/cuda-12/nvvm/lib64:$LD_LIBRARY_PATH"
    else
        echo "gpu-env: CUDA 12 runtime and NVRTC, but the runner's nvcc ($(command -v nvcc || echo none)) builds: the wheelhouse has no CUDA 12 nvcc (ci/gpu-wheelhouse --toolkit)" >&2
    fi
fi
export PATH="/tmp/site/bin:$PATH"
export PYTHONOPTIMIZE="${PYTHONOPTIMIZE:-2}"
export ICONBENCH_CACHE_DIR="${ICONBENCH_CACHE_DIR:-/tmp/iconbench-cache}"
export GT4PY_BUILD_JOBS="${GT4PY_BUILD_JOBS:-$(nproc)}"
python3 -m iconbench bytecode >&2 || return 1
