#!/usr/bin/env bash
# Quick start 2: install what is missing, then build and run the whole test suite with CTest:
#   1. the release build (warnings are errors under CI=true), every test, the Python module's too
#      on Debian's Python stack; then the wheel (pip install .) on PyPI's, with the Python suite;
#   2. on an x86-64 host, the release build cross-compiled for aarch64 (cmake/aarch64-linux-gnu.cmake),
#      run under qemu-aarch64 once per emulated CPU: cortex-a57 (NEON only, like Kunpeng 920) every
#      test; a64fx (512-bit SVE) and max (SVE2), where emulation is slowest, every test but those
#      labelled `repeat` (tests/CMakeLists.txt says which, and why they add nothing SIMD-specific);
#      each checking that its best SIMD target is the one the kernel runs; then the SIMD test under
#      max with 256- and 128-bit vectors (SVE_256, SVE2_128);
#   3. an AddressSanitizer + UndefinedBehaviorSanitizer + LeakSanitizer build (clang), every test,
#      and the public-API fuzzer for FUZZ_SECONDS (default 60);
#   4. a ThreadSanitizer build (clang), every test.
# (Steps 2-4 leave the Python module out: no aarch64 interpreter to build for, and a Python process
# would need the sanitizer runtimes preloaded.)
# SANITIZERS=0 leaves out steps 3 and 4, AARCH64=0 step 2, PYPI_STACK=0 the wheel on PyPI's stack.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
werror=OFF
[ "${CI:-}" = "true" ] && werror=ON
jobs=$(nproc)

# took STEP: prints how long STEP took since the last call.
step_start=$SECONDS
took() {
  echo "== $1 took $((SECONDS - step_start)) s"
  step_start=$SECONDS
}

# The Python module and its tests for Debian's interpreter, which owns numpy and torch (the python3
# first on PATH may be another one).
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DACLNN_CPU_WERROR="$werror" -DACLNN_CPU_PYTHON=ON \
  -DPython_EXECUTABLE=/usr/bin/python3
cmake --build build -j "$jobs"
ctest --test-dir build --output-on-failure -j "$jobs"
took "release (x86-64)"

# The Python package as pip users have it: `pip install .` (pyproject.toml) into a virtual environment
# with PyPI's torch 2.13 (CPU) and numpy 2 (python/requirements-pypi.txt), and the whole Python suite
# run on the installed wheel from outside the source tree. PYPI_STACK=0 leaves it out.
if [ "${PYPI_STACK:-1}" != "0" ]; then
  venv=$PWD/build-venv
  [ -x "$venv/bin/python" ] || python3 -m venv "$venv"  # pyenv's Python 3.11, first on PATH
  "$venv/bin/pip" install -q --disable-pip-version-check -r python/requirements-pypi.txt
  "$venv/bin/pip" install -q --disable-pip-version-check --force-reinstall --no-deps .
  (cd "$venv" && bin/python -m pytest -q -p no:cacheprovider "$OLDPWD/python/tests")
  took "Python: the wheel on PyPI's stack (torch 2.13, numpy 2)"
fi

if [ "${AARCH64:-1}" != "0" ] && [ "$(uname -m)" = x86_64 ]; then
  dir=build-aarch64
  cmake -S . -B "$dir" -DCMAKE_TOOLCHAIN_FILE="$PWD/cmake/aarch64-linux-gnu.cmake" -DCMAKE_BUILD_TYPE=Release \
    -DACLNN_CPU_WERROR="$werror" -DACLNN_CPU_BUILD_BENCH=OFF
  cmake --build "$dir" -j "$jobs"
  took "aarch64 cross build"
  # qemu-user reads QEMU_CPU itself, in the tests' child processes too; test_simd_targets.cpp
  # reads ACLNN_CPU_EXPECT_TARGET.
  for cpu_target in cortex-a57:NEON a64fx:SVE max:SVE2; do
    cpu=${cpu_target%:*}
    target=${cpu_target##*:}
    leave_out=()
    [ "$cpu" = cortex-a57 ] || leave_out=(--label-exclude repeat)
    echo "== aarch64 suite under qemu-aarch64, CPU $cpu (best SIMD target $target) ${leave_out[*]}"
    QEMU_CPU=$cpu ACLNN_CPU_EXPECT_TARGET=$target ctest --test-dir "$dir" --output-on-failure -j "$jobs" \
      "${leave_out[@]}"
    grep -h "^targets checked:" "$dir/Testing/Temporary/LastTest.log"
    took "aarch64 suite, CPU $cpu"
  done
  # Highway's fixed-width targets are compiled too: SVE_256 runs on CPUs with 256-bit SVE (Neoverse
  # V1), SVE2_128 on 128-bit SVE2 (Neoverse N2). The SIMD test alone, under max with those lengths.
  for cpu_target in max,sve-default-vector-length=32:SVE_256 max,sve-default-vector-length=16:SVE2_128; do
    cpu=${cpu_target%:*}
    target=${cpu_target##*:}
    echo "== aarch64 SIMD test under qemu-aarch64, CPU $cpu (best SIMD target $target)"
    QEMU_CPU=$cpu ACLNN_CPU_EXPECT_TARGET=$target ctest --test-dir "$dir" --output-on-failure -R '^SimdTargets\.'
    grep -h "^targets checked:" "$dir/Testing/Temporary/LastTest.log"
  done
  took "aarch64 SIMD test, SVE_256 and SVE2_128"
fi

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
    took "$sanitizer sanitizer"
  done
fi
