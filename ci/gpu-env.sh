# Source this on a GPU runner that has no network: installs the carried wheelhouse (.whl/)
# into /tmp/site next to the machine's own Python 3.12 (which already has cupy), and puts
# iconbench's sources on the path. Usage:  source ci/gpu-env.sh
# The wheelhouse is made on a machine with network by ci/gpu-wheelhouse (gt4py, dace, icon4py
# and those of their dependencies that a CUDA image lacks). Its bytecode is compiled once here,
# as an installer does (iconbench bytecode), not by the first processes of the first run; every
# later source finds the stamp of that compile for this stack (under a second) instead of
# compiling again, and sources at once wait for the one compiling.
# Sourced again by every script a job starts (ci/run-shard of each GPU at once, ci/nightly):
# the wheelhouse is installed once per wheelhouse (a stamp of its files in /tmp/site), under a
# lock, so a shard never finds /tmp/site removed under a running one.
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
wheelhouse_stamp="$(cd "$root/.whl" && stat -c "%n %s %Y" site.tar.xz ./*.whl 2>/dev/null | md5sum | cut -c1-16)"
if [ "$(cat /tmp/site/.iconbench-stamp 2>/dev/null)" != "$wheelhouse_stamp" ]; then
    (
        flock 9
        [ "$(cat /tmp/site/.iconbench-stamp 2>/dev/null)" = "$wheelhouse_stamp" ] && exit 0
        rm -rf /tmp/site /tmp/sitex
        if [ -f "$root/.whl/site.tar.xz" ]; then  # the wheelhouse packed (ci/gpu-wheelhouse --packed)
            tar -xJf "$root/.whl/site.tar.xz" -C /tmp || exit 1
        else
            python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir \
                --target /tmp/sitex "$root"/.whl/*.whl || exit 1
        fi
        echo "$wheelhouse_stamp" >/tmp/sitex/.iconbench-stamp && mv /tmp/sitex /tmp/site
    ) 9>/tmp/site.lock || return 1
fi
export PYTHONPATH="/tmp/site:$root/src${PYTHONPATH:+:$PYTHONPATH}"
export PATH="/tmp/site/bin:$PATH"
export PYTHONOPTIMIZE="${PYTHONOPTIMIZE:-2}"
export ICONBENCH_CACHE_DIR="${ICONBENCH_CACHE_DIR:-/tmp/iconbench-cache}"
export GT4PY_BUILD_JOBS="${GT4PY_BUILD_JOBS:-$(nproc)}"
python3 -m iconbench bytecode >&2 || return 1
