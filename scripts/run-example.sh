#!/usr/bin/env bash
# Quick start 1: install what is missing, build, install to ./_install, then build the example
# against the installed tree the way a CANN user does, and run it.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j "$(nproc)"
cmake --install build --prefix "$PWD/_install"
source "$PWD/_install/set_env.sh"
cmake -S examples/mse_loss_backward -B build/example
cmake --build build/example
build/example/opapi_test
