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
# ICONBENCH_SHARED_BUILD_CACHE=1 (the workflows set it): this runner keeps ICONBENCH_CACHE_DIR
# between jobs and its stacks share their builds. Each stack keeps its own gt4py build cache
# (ICONBENCH_CACHE_DIR/gt4py/<stack>: gt4py's translation caches in it are keyed by the
# program's IR alone, so one shared between stacks handed a new gt4py the code an old one had
# generated), and every precompile first links into it the build folders of the runner's other
# stacks (gt4py names each by a fingerprint of the generated source and its own version: the
# same name is the same build). The nightly's precompile, shards and confirmation and a later
# check of the same stack find one another's builds; a new stack gets every identical build
# and translates for itself (iconbench.stacks.shared_builds, docs/ci-build-cache.md).
export PYTHONUNBUFFERED=1
iconbench() { python -m iconbench "$@"; }
