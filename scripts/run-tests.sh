#!/usr/bin/env bash
# Quick start 2: install what is missing, then build and run the whole test suite with CTest:
#   1. the release build (warnings are errors under CI=true), every test;
#   2. an AddressSanitizer + UndefinedBehaviorSanitizer + LeakSanitizer build (clang), every test,
#      and the public-API fuzzer for FUZZ_SECONDS (default 60);
#   3. a ThreadSanitizer build (clang), every test.
# SANITIZERS=0 runs step 1 only.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
werror=OFF
[ "${CI:-}" = "true" ] && werror=ON
jobs=$(nproc)

cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DACLNN_CPU_WERROR="$werror"
cmake --build build -j "$jobs"
ctest --test-dir build --output-on-failure -j "$jobs"

if [ "${SANITIZERS:-1}" != "0" ]; then
  for sanitizer in address thread; do
    dir="build-$sanitizer"
    fuzz=OFF
    [ "$sanitizer" = address ] && fuzz=ON
    CC=clang CXX=clang++ cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DACLNN_CPU_WERROR="$werror" \
      -DACLNN_CPU_SANITIZE="$sanitizer" -DACLNN_CPU_FUZZ="$fuzz" -DACLNN_CPU_BUILD_BENCH=OFF \
      -DACLNN_CPU_FUZZ_SECONDS="${FUZZ_SECONDS:-60}"
    cmake --build "$dir" -j "$jobs"
    ctest --test-dir "$dir" --output-on-failure -j "$jobs"
  done
fi
