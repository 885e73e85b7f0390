#include "schedule.h"

#include <algorithm>

#include "vector_ops.h"

namespace aclcpu {
namespace kernel {
namespace {

// Tiles of whole blocks that keep every operand's share of a tile in half the L2 cache, and at
// least one tile per thread once the work is big enough to be split at all.
int64_t ChooseTileElems(int64_t numel, int threads, const Platform& platform, int64_t bytes_per_element) {
  int64_t tile = std::max<int64_t>(kBlock, platform.l2_bytes / 2 / std::max<int64_t>(bytes_per_element, 1));
  tile = tile / kBlock * kBlock;
  if (threads > 1) {
    const int64_t per_thread = (numel + threads - 1) / threads;
    tile = std::min(tile, (per_thread + kBlock - 1) / kBlock * kBlock);
  }
  return std::max<int64_t>(tile, 1);
}

}  // namespace

Schedule ScheduleElementwise(const Platform& platform, int num_inputs, ElementwisePlan* plan) {
  Schedule schedule;
  const int out = plan->num_operands - 1;
  bool flat = plan->rank == 1;
  int64_t bytes_per_element = 0;
  for (int i = 0; i < plan->num_operands; ++i) {
    const int64_t stride = plan->inner_byte_stride(i);
    flat = flat && (stride == plan->element_size[i] || stride == 0);
    if (stride != 0) bytes_per_element += plan->element_size[i];
  }
  schedule.mode = flat ? ScheduleMode::kContiguous : ScheduleMode::kBroadcast;
  if (!flat && UseBlockedTiles(plan)) schedule.mode = ScheduleMode::kBlocked;
  schedule.stream_stores = plan->numel * plan->element_size[out] > platform.llc_bytes &&
                           plan->inner_byte_stride(out) == plan->element_size[out];
  schedule.threads = plan->numel < kParallelGrain ? 1 : std::max(1, platform.threads);
  SetTiles(plan, ChooseTileElems(plan->numel, schedule.threads, platform, bytes_per_element));
  schedule.threads = static_cast<int>(std::min<int64_t>(schedule.threads, std::max<int64_t>(plan->num_tiles, 1)));
  schedule.layout = PlanLayout(*plan, num_inputs);
  return schedule;
}

}  // namespace kernel
}  // namespace aclcpu
