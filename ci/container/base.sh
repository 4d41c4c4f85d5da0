#!/usr/bin/env bash
# The base layer (ci/container/Dockerfile): what gt4py's and DaCe's GPU builds need besides
# the CUDA image's toolkit (a C++ compiler, Boost's headers for gridtools, git for
# versioningit), and uv at the version uv.lock names. Runs as root in the image; by hand,
# on a Debian or Ubuntu host: sudo UV_VERSION=0.13.9 ci/container/base.sh
set -euo pipefail
: "${UV_VERSION:?UV_VERSION: the uv of uv.lock}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends build-essential ca-certificates curl git \
    libboost-dev xz-utils
rm -rf /var/lib/apt/lists/*
# uv's standalone installer, pinned (no pip on the image's Python needed)
curl -LsSf "https://astral.sh/uv/$UV_VERSION/install.sh" | env UV_INSTALL_DIR=/usr/local/bin UV_NO_MODIFY_PATH=1 sh
uv --version
