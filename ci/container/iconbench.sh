#!/usr/bin/env bash
# The iconbench layer (ci/container/Dockerfile): compile the stack's bytecode once, into the
# image (PYTHONPYCACHEPREFIX), so no job's processes compile 2 400 modules again.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
: "${PYTHONPYCACHEPREFIX:?PYTHONPYCACHEPREFIX: where the image keeps bytecode}"
python="${ICONBENCH_VENV:-/opt/iconbench/venv}/bin/python"
cd "$root"
PYTHONPATH="$root/src${PYTHONPATH:+:$PYTHONPATH}" "$python" -m iconbench bytecode
PYTHONPATH="$root/src${PYTHONPATH:+:$PYTHONPATH}" "$python" -m iconbench info
