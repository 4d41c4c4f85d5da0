# Source this first in every ci/ script that runs iconbench: it makes `python` the one with
# iconbench's stack and this checkout's sources.
#   - a GPU runner without network carries a wheelhouse (.whl/, made by ci/gpu-wheelhouse,
#     wheels or --packed's site.tar.xz): ci/gpu-env.sh installs it next to the machine's
#     Python (which has cupy);
#   - elsewhere (GitHub-hosted runner, workstation, a cluster with network) ci/ensure-env
#     creates or reuses .venv (Python 3.12, the locked stack);
#   - ICONBENCH_PYTHON=/path/to/python uses that interpreter as it is (a SLURM uenv, say).
# shellcheck shell=bash
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [ -n "${ICONBENCH_PYTHON:-}" ]; then
    export PYTHONPATH="$root/src${PYTHONPATH:+:$PYTHONPATH}"
    python() { "$ICONBENCH_PYTHON" "$@"; }
elif { compgen -G "$root/.whl/*.whl" >/dev/null || [ -f "$root/.whl/site.tar.xz" ]; } && [ ! -x "$root/.venv/bin/python" ]; then
    # shellcheck source=ci/gpu-env.sh
    source "$root/ci/gpu-env.sh" || return 1
    python() { python3 "$@"; }
else
    # shellcheck disable=SC2086  # ICONBENCH_EXTRAS may name several extras
    "$root/ci/ensure-env" ${ICONBENCH_EXTRAS:-} >&2 || return 1
    export PATH="$root/.venv/bin:$PATH"
    export PYTHONPATH="$root/src${PYTHONPATH:+:$PYTHONPATH}"
fi
export ICONBENCH_CACHE_DIR="${ICONBENCH_CACHE_DIR:-$root/.cache}"
# ICONBENCH_SHARED_BUILD_CACHE=1 (the workflows set it): one gt4py build cache for every run
# on this runner instead of one per stack. gt4py names each build folder by a fingerprint of
# the generated source and its own version, so different stacks never share a build, and a
# pull request's head finds main's builds of every program whose code it did not change.
if [ "${ICONBENCH_SHARED_BUILD_CACHE:-0}" = 1 ]; then
    export GT4PY_BUILD_CACHE_DIR="${GT4PY_BUILD_CACHE_DIR:-$ICONBENCH_CACHE_DIR/gt4py/shared}"
    export GT4PY_BUILD_CACHE_LIFETIME=persistent
fi
export PYTHONUNBUFFERED=1
iconbench() { python -m iconbench "$@"; }
