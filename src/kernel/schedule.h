// How an elementwise plan runs on this host: the schedule mode, cache-sized tiles, the thread count
// and whether stores bypass the cache. Shared by every elementwise operator's tiling.
#ifndef ACLNN_CPU_KERNEL_SCHEDULE_H_
#define ACLNN_CPU_KERNEL_SCHEDULE_H_

#include <cstdint>

#include "elementwise.h"

namespace aclcpu {
namespace kernel {

// The platform facts tilings depend on; tests pin them.
struct Platform {
  int threads = 1;
  int64_t l2_bytes = 1 << 20;
  int64_t llc_bytes = 32 << 20;
};

enum class ScheduleMode : uint32_t {
  kContiguous = 0,  // one flat run: every operand contiguous or a single value
  kBroadcast = 1,   // the general N-d loop with strides and broadcast dims
  kBlocked = 2,     // an input read across its layout (e.g. transposed): blocks, staged inputs
};

// Below this many elements a launch stays on one thread. Measured (FLOAT MseLossGrad, phase one +
// launch + synchronize, 2 threads against 1 on the 2-core AVX-512 host): 8K elements 4.6 us
// against 3.8; 16K even (4.7); 24K 3.9 against 4.3; 48K 5.2 against 6.4.
constexpr int64_t kParallelGrain = 24576;

struct Schedule {
  ScheduleMode mode = ScheduleMode::kBroadcast;
  int threads = 1;
  bool stream_stores = false;        // the output is larger than the last-level cache: non-temporal stores
  uint32_t layout = kStridedLayout;  // the inner loop every run takes (elementwise.h)
};

// Schedules a plan whose operands are num_inputs inputs and then the output (the last operand):
// picks the mode (switching the plan to blocked tiles when an input is read across its layout),
// tiles that keep every operand's share in half the L2 cache and give each thread one at least,
// the threads (one below kParallelGrain elements), streaming stores and the inner loop's layout.
Schedule ScheduleElementwise(const Platform& platform, int num_inputs, ElementwisePlan* plan);

// The schedule of a plan whose store casts the output to another dtype than the one computed: such
// a loop exists in its strided form only, without streaming stores (ElementwiseLoopFor; an out of
// another dtype is rare, and every variant of a loop costs compile time).
inline Schedule ForStoreCast(Schedule schedule) {
  schedule.layout = kStridedLayout;
  schedule.stream_stores = false;
  return schedule;
}

}  // namespace kernel
}  // namespace aclcpu

#endif  // ACLNN_CPU_KERNEL_SCHEDULE_H_
