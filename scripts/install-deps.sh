#!/usr/bin/env bash
# Installs the Debian packages the build and the tests need, when any is missing, with at most one
# `apt-get update` per run.
#   the x86-64 build:  the compilers, CMake, pkg-config, GoogleTest, Google Benchmark, Highway, clang
#                      and its OpenMP runtime (LLVM libomp with the Archer tool, for ThreadSanitizer);
#                      for the Python module and its tests: Python's development files, pybind11,
#                      numpy, torch, pytest and hypothesis (all /usr/bin/python3's); for the case
#                      runner's report page test: Chromium, its driver and selenium
#   the aarch64 build: the cross compiler, qemu-user, and the arm64 builds of the libraries the
#                      project links (multiarch: `dpkg --add-architecture arm64`, /usr/lib/aarch64-linux-gnu)
# The aarch64 packages are for x86-64 hosts, and AARCH64=0 leaves them out (scripts/run-tests.sh
# runs its aarch64 step unless AARCH64=0; scripts/run-example.sh does not need them).
set -euo pipefail
packages=(cmake make g++ pkg-config libgtest-dev libgmock-dev libbenchmark-dev libhwy-dev clang libclang-rt-14-dev
          libomp-14-dev python3-dev pybind11-dev python3-pybind11 python3-numpy python3-torch python3-pytest
          python3-hypothesis chromium chromium-driver python3-selenium)
# libc6, libstdc++6 and libgomp1 for arm64 are what `qemu-aarch64 -L /` runs the programs with; the cross
# toolchain's own copies under /usr/aarch64-linux-gnu are only linked against.
aarch64_packages=(g++-aarch64-linux-gnu qemu-user libc6:arm64 libstdc++6:arm64 libgomp1:arm64 libhwy-dev:arm64 libgtest-dev:arm64
                  libgmock-dev:arm64)
[ "${AARCH64:-1}" != "0" ] && [ "$(uname -m)" = x86_64 ] || aarch64_packages=()

# missing NAME...: the names of the packages that are not installed, one a line.
missing() {
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || echo "$p"
  done
}
mapfile -t missing_host < <(missing "${packages[@]}")
mapfile -t missing_aarch64 < <(missing "${aarch64_packages[@]}")
if ((${#missing_host[@]} + ${#missing_aarch64[@]})); then
  echo "installing: ${missing_host[*]} ${missing_aarch64[*]}"
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  if ((${#missing_aarch64[@]})) && ! dpkg --print-foreign-architectures | grep -qx arm64; then
    "${sudo_cmd[@]}" dpkg --add-architecture arm64  # before the one update, so that it fetches arm64's lists
  fi
  # Another apt on this machine sometimes holds the lock for a while: wait for it rather than fail.
  apt_get=("${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600)
  "${apt_get[@]}" update -qq
  if ((${#missing_host[@]})); then
    "${apt_get[@]}" install -y -qq "${missing_host[@]}"
  fi
  if ((${#missing_aarch64[@]})); then
    # No recommends: qemu-user's, qemu-user-binfmt, would register binfmt_misc handlers for the
    # whole machine; the tests name the emulator explicitly and must not depend on them.
    "${apt_get[@]}" install -y -qq --no-install-recommends "${missing_aarch64[@]}"
  fi
fi
