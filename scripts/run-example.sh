#!/usr/bin/env bash
# Quick start 1: install what is missing, build the libraries and the Python module, install them to
# ./_install, then build the example -- a training loop: aclnnMseLoss, then aclnnMseLossBackward,
# then an SGD step -- against the installed tree the way a CANN user does, and run it. (The Python
# examples then run on the same install: source _install/set_env.sh; /usr/bin/python3 examples/python/...)
set -euo pipefail
cd "$(dirname "$0")/.."
AARCH64=0 scripts/install-deps.sh  # the native build only
cmake -S . -B build-example -DCMAKE_BUILD_TYPE=Release -DACLNN_CPU_BUILD_TESTS=OFF -DACLNN_CPU_BUILD_BENCH=OFF \
  -DACLNN_CPU_PYTHON=ON -DPython_EXECUTABLE=/usr/bin/python3
cmake --build build-example -j "$(nproc)"
cmake --install build-example --prefix "$PWD/_install"
source "$PWD/_install/set_env.sh"
cmake -S examples/training_step -B build-example/example
cmake --build build-example/example
build-example/example/training_step
