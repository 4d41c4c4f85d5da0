#!/usr/bin/env bash
# The env layer (ci/container/Dockerfile): the locked stack (uv.lock) with the cupy of the CUDA
# major in /opt/iconbench/venv, on the Python uv installs (PYTHON, 3.13.13 as upstream's
# image). The same command makes the environment on a host without Docker:
#   CUDA=12.6.3 PYTHON=3.13 ICONBENCH_VENV=$PWD/.venv-3.13 ci/container/env.sh
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
: "${CUDA:?CUDA: the toolkit version, e.g. 12.6.3}" "${PYTHON:?PYTHON: e.g. 3.13.13}"
case "${CUDA%%.*}" in 12|13) extra="cuda${CUDA%%.*}" ;; *) echo "env.sh: CUDA $CUDA is not 12.x or 13.x" >&2; exit 2 ;; esac
python="$(uv python find "$PYTHON" 2>/dev/null)" || { uv python install "$PYTHON" && python="$(uv python find "$PYTHON")"; }
# the stack only: iconbench's sources come in the next layer (PYTHONPATH=/iconbench/src)
export ICONBENCH_PYTHON="$python" ICONBENCH_VENV="${ICONBENCH_VENV:-/opt/iconbench/venv}" \
    ICONBENCH_NO_PROJECT=1
"$root/ci/ensure-env" "$extra"
"$ICONBENCH_VENV/bin/python" -c 'import gt4py, dace, cupy, sys; print("env.sh:", sys.version.split()[0], "gt4py", gt4py.__version__, "dace", dace.__version__, "cupy", cupy.__version__)'
