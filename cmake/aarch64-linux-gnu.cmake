# Cross build for aarch64 Linux (Kunpeng 920 and other Armv8 hosts) on a Debian x86-64 machine:
#   cmake -S . -B build-aarch64 -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake
# Debian's packages (scripts/install-deps.sh installs them): g++-aarch64-linux-gnu, and the arm64
# builds of the libraries from the multiarch tree (`dpkg --add-architecture arm64`, then
# libhwy-dev:arm64 libgtest-dev:arm64 libgmock-dev:arm64, which bring libc6:arm64 and
# libstdc++6:arm64 into /usr/lib/aarch64-linux-gnu). For the tests, qemu-user.
#
# With qemu-aarch64 on the PATH, CMAKE_CROSSCOMPILING_EMULATOR runs every aarch64 program of the
# build and of CTest under it: `qemu-aarch64 -L /`, so that the programs load the multiarch
# libc6:arm64 and libraries. (Not -L /usr/aarch64-linux-gnu, the cross toolchain's own libc: a
# program that also loads multiarch libraries then hangs at its first thread.) The emulated CPU is
# ACLNN_CPU_QEMU_CPU when set (a cache variable: cortex-a57 is NEON only like Kunpeng 920, a64fx
# has 512-bit SVE, max has SVE2); otherwise the QEMU_CPU environment variable of each run, which
# qemu-user reads itself (unset: max).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)

# pkg-config (libhwy) reads only the arm64 .pc files.
set(ENV{PKG_CONFIG_LIBDIR} "/usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig")
set(ENV{PKG_CONFIG_PATH} "")
# Programs (pkg-config, qemu) are the host's; libraries and packages (GTest's CMake package in
# /usr/lib/aarch64-linux-gnu/cmake) come from the multiarch directories through
# CMAKE_LIBRARY_ARCHITECTURE. The compiler searches /usr/include and /usr/lib/aarch64-linux-gnu itself.
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)

set(ACLNN_CPU_QEMU_CPU "" CACHE STRING
    "CPU that qemu-aarch64 emulates for the tests (cortex-a57, a64fx, max); empty: the QEMU_CPU environment variable")
find_program(ACLNN_CPU_QEMU qemu-aarch64 DOC "qemu-user's aarch64 emulator, for running the tests")
if(ACLNN_CPU_QEMU)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${ACLNN_CPU_QEMU})
  if(ACLNN_CPU_QEMU_CPU)
    list(APPEND CMAKE_CROSSCOMPILING_EMULATOR -cpu ${ACLNN_CPU_QEMU_CPU})
  endif()
  list(APPEND CMAKE_CROSSCOMPILING_EMULATOR -L /)
endif()
