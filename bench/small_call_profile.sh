#!/bin/sh
# The fixed cost of a whole small call: heap allocations and time per call (aclnn_small_call) and
# instructions per call (callgrind: the difference between 4000 and 2000 calls, over 2000, so the
# process's start and end cancel out). Instruction counts repeat exactly on a given build and host,
# whatever else the machine does. (Valgrind runs libhwy's timer probe through a stand-in:
# valgrind_hwy_timer.cpp.)
#
#   bench/small_call_profile.sh [BUILD_DIR]      (default: build)
set -eu
build=${1:-build}
program="$build/bench/aclnn_small_call"
[ -x "$program" ] || { echo "no $program: build the benchmarks first" >&2; exit 1; }
# "backward --describe": each call also describes its four tensors and destroys them, as CANN
# programs commonly do. "--uncached": without the aclnn cache, each phase one whole; "--miss": each
# phase one whole and then kept in the cache (what the cache costs calls that never repeat).
for run in backward forward l1 backward:--describe backward:--uncached forward:--uncached l1:--uncached \
  backward:--miss; do
  op=${run%%:*}
  flags=${run#"$op"}
  flags=${flags#:}
  # shellcheck disable=SC2086  # $flags: none, or one flag
  "$program" "$op" 200000 $flags
  if command -v valgrind >/dev/null 2>&1; then
    count() {
      # shellcheck disable=SC2086
      LD_PRELOAD="$(cd "$build" && pwd)/bench/libaclnn_valgrind_hwy_timer.so" \
        valgrind --tool=callgrind --callgrind-out-file=/dev/null "$program" "$op" "$1" $flags --quiet 2>&1 |
        sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
    }
    small=$(count 2000)
    large=$(count 4000)
    echo "  $(((large - small) / 2000)) instructions per call (callgrind)"
  fi
done
