#!/usr/bin/env bash
# Quick start 2: install what is missing, then build and run the whole test suite with CTest:
#   1. the release build (warnings are errors under CI=true), every test, the Python module's too
#      on Debian's Python stack; then the release files as PyPI takes them: the sdist, the wheel pip
#      builds from it, repaired by auditwheel to its manylinux tag (checked, with auditwheel show
#      and twine check), installed on PyPI's Python stack with the Python suite;
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
# SANITIZERS=0 leaves out steps 3 and 4, AARCH64=0 step 2, PYPI_STACK=0 the release files.
# Each step's tests and time go to build/test-run.tsv, printed as a table at the end
# (scripts/test_figures.py; docs/test-run.md is a full run's).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
werror=OFF
[ "${CI:-}" = "true" ] && werror=ON
jobs=$(nproc)

figures=$PWD/build/test-run.tsv
mkdir -p build
{
  echo "# when: $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "# commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD 2>/dev/null || echo ', with changes')"
  echo "# machine: $(nproc) CPUs ($(sed -n 's/^model name\t*: //p' /proc/cpuinfo | head -1)), $(. /etc/os-release && echo "$PRETTY_NAME")"
  echo "# command: CI=${CI:-} PYPI_STACK=${PYPI_STACK:-1} AARCH64=${AARCH64:-1} SANITIZERS=${SANITIZERS:-1} FUZZ_SECONDS=${FUZZ_SECONDS:-60}"
} > "$figures"

# took STEP [TESTS]: prints how long STEP took since the last call, and records it with its tests.
step_start=$SECONDS
took() {
  echo "== $1 took $((SECONDS - step_start)) s"
  printf '%s\t%s\t%s\n' "$1" "$((SECONDS - step_start))" "${2:-}" >> "$figures"
  step_start=$SECONDS
}

# counted COMMAND...: runs a test command, its output shown and read for what it ran: $counted is
# the N of CTest's "100% tests passed out of N", or pytest's "N passed[, M skipped]".
counted() {
  local log
  log=$(mktemp)
  "$@" | tee "$log"
  counted=$(sed -n -e 's/^100% tests passed.* out of \([0-9][0-9]*\)$/\1/p' \
    -e 's/^\([0-9][0-9]* passed\(, [0-9][0-9]* skipped\)\{0,1\}\).* in [0-9.]*s.*$/\1/p' "$log" | tail -1)
  rm -f "$log"
}

# The Python module and its tests for Debian's interpreter, which owns numpy and torch (the python3
# first on PATH may be another one).
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DACLNN_CPU_WERROR="$werror" -DACLNN_CPU_PYTHON=ON \
  -DPython_EXECUTABLE=/usr/bin/python3
cmake --build build -j "$jobs"
counted ctest --test-dir build --output-on-failure -j "$jobs"
took "release (x86-64)" "$counted"

# The release files as PyPI takes them, and the Python package as pip users have it: the sdist
# (python -m build), the wheel pip builds from it in an isolated environment, repaired by auditwheel
# to the manylinux tag it meets (checked below; it grafts nothing: the wheel carries Highway and GNU
# OpenMP under their own names beside our libraries, found through $ORIGIN, so a process keeps the
# one libgomp.so.1 it has, torch's), `twine check`, then installed into a virtual environment with
# PyPI's torch 2.13 (CPU) and numpy 2 (python/requirements-pypi.txt) and the whole Python suite run
# on it from outside the source tree. The packaging tools: python/requirements-release.txt.
# PYPI_STACK=0 leaves it out.
if [ "${PYPI_STACK:-1}" != "0" ]; then
  venv=$PWD/build-venv
  dist=$PWD/build-dist
  # GCC 12's libstdc++ (GLIBCXX_3.4.30) sets the tag; another host's compiler moves it, and this says so.
  manylinux=manylinux_2_35_$(uname -m)
  [ -x "$venv/bin/python" ] || python3 -m venv "$venv"  # pyenv's Python 3.11, first on PATH
  "$venv/bin/pip" install -q --disable-pip-version-check -r python/requirements-pypi.txt \
    -r python/requirements-release.txt
  rm -rf "$dist"
  "$venv/bin/python" -m build --sdist --outdir "$dist" .
  "$venv/bin/pip" wheel -q --disable-pip-version-check --no-deps --wheel-dir "$dist/built" "$dist"/aclnn_cpu-*.tar.gz
  PATH=$venv/bin:$PATH "$venv/bin/auditwheel" repair --wheel-dir "$dist" "$dist"/built/*.whl
  wheel=$(ls "$dist"/*.whl)
  PATH=$venv/bin:$PATH "$venv/bin/auditwheel" show "$wheel" | tee "$dist/auditwheel-show.txt"
  if [ "$(basename "$wheel")" != "aclnn_cpu-$(sed -n 's/^project(aclnn_cpu VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)-cp311-cp311-$manylinux.whl" ] ||
    ! tr -s ' \n' ' ' < "$dist/auditwheel-show.txt" | grep -q "consistent with the following platform tag: \"$manylinux\""; then
    echo "the repaired wheel is $(basename "$wheel"), not tagged $manylinux as auditwheel show must say" >&2
    exit 1
  fi
  "$venv/bin/twine" check --strict "$wheel" "$dist"/aclnn_cpu-*.tar.gz
  "$venv/bin/pip" install -q --disable-pip-version-check --force-reinstall --no-deps "$wheel"
  counted bash -c 'cd "$1" && bin/python -m pytest -q -p no:cacheprovider "$2/python/tests"' _ "$venv" "$PWD"
  took "the sdist, its wheel ($manylinux) on PyPI's stack" "$counted"
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
    counted env QEMU_CPU="$cpu" ACLNN_CPU_EXPECT_TARGET="$target" ctest --test-dir "$dir" --output-on-failure \
      -j "$jobs" "${leave_out[@]}"
    grep -h "^targets checked:" "$dir/Testing/Temporary/LastTest.log"
    took "aarch64 suite, CPU $cpu${leave_out[*]:+, repeat left out}" "$counted"
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
    counted ctest --test-dir "$dir" --output-on-failure -j "$jobs"
    took "$sanitizer sanitizer$([ "$fuzz" = ON ] && echo ', with the fuzzer')" "$counted"
  done
fi

echo "== the steps' tests and times (build/test-run.tsv; docs/test-run.md holds a full run's)"
python3 scripts/test_figures.py --show "$figures"
