#include "elementwise.h"

#include <algorithm>

namespace aclcpu {
namespace kernel {

bool PlanElementwise(const Shape& out_shape, const std::vector<OperandLayout>& operands, ElementwisePlan* plan) {
  const int out_rank = static_cast<int>(out_shape.size());
  const int count = static_cast<int>(operands.size());
  if (out_rank > kMaxRank || count > kMaxOperands || count == 0) return false;
  ElementwisePlan result;
  result.num_operands = count;
  result.numel = Numel(out_shape);

  // Align every operand to the output's dims; broadcast dims get stride 0; drop size-1 dims.
  int rank = 0;
  for (int d = 0; d < out_rank; ++d) {
    if (out_shape[d] == 1) continue;
    result.shape[rank] = out_shape[d];
    for (int i = 0; i < count; ++i) {
      const OperandLayout& operand = operands[i];
      const int j = d - (out_rank - static_cast<int>(operand.shape.size()));
      int64_t stride = 0;
      if (j >= 0) {
        if (operand.shape[j] == out_shape[d]) {
          stride = operand.strides[j] * operand.element_size;
        } else if (operand.shape[j] != 1) {
          return false;
        }
      }
      result.byte_strides[i][rank] = stride;
    }
    ++rank;
  }
  for (int i = 0; i < count; ++i) {  // operands of higher rank than out cannot broadcast to it
    if (static_cast<int>(operands[i].shape.size()) > out_rank) return false;
  }

  // Coalesce: outer dim a merges into inner dim b when every operand steps over b exactly once.
  int merged_rank = 0;
  for (int d = 0; d < rank; ++d) {
    if (merged_rank > 0) {
      const int a = merged_rank - 1;
      bool mergeable = true;
      for (int i = 0; i < count && mergeable; ++i) {
        mergeable = result.byte_strides[i][a] == result.byte_strides[i][d] * result.shape[d];
      }
      if (mergeable) {
        result.shape[a] *= result.shape[d];
        for (int i = 0; i < count; ++i) result.byte_strides[i][a] = result.byte_strides[i][d];
        continue;
      }
    }
    result.shape[merged_rank] = result.shape[d];
    for (int i = 0; i < count; ++i) result.byte_strides[i][merged_rank] = result.byte_strides[i][d];
    ++merged_rank;
  }
  if (merged_rank == 0) {  // a single element
    result.shape[0] = 1;
    for (int i = 0; i < count; ++i) result.byte_strides[i][0] = 0;
    merged_rank = 1;
  }
  result.rank = merged_rank;
  SetTiles(&result, result.numel);
  *plan = result;
  return true;
}

void SetTiles(ElementwisePlan* plan, int64_t tile_elems) {
  plan->tile_elems = std::max<int64_t>(tile_elems, 1);
  plan->num_tiles = plan->numel == 0 ? 0 : (plan->numel + plan->tile_elems - 1) / plan->tile_elems;
}

void RunTiles(const ElementwisePlan& plan, char* const* bases, InnerLoop loop, const void* context, int64_t first_tile,
              int64_t end_tile) {
  int64_t index = first_tile * plan.tile_elems;
  const int64_t end = std::min(plan.numel, end_tile * plan.tile_elems);
  if (index >= end) return;
  const int rank = plan.rank;
  const int count = plan.num_operands;
  int64_t coord[kMaxRank];
  int64_t rest = index;
  for (int d = rank - 1; d >= 0; --d) {
    coord[d] = rest % plan.shape[d];
    rest /= plan.shape[d];
  }
  char* ptrs[kMaxOperands];
  int64_t inner_strides[kMaxOperands];
  for (int i = 0; i < count; ++i) inner_strides[i] = plan.byte_strides[i][rank - 1];
  const int64_t inner_size = plan.shape[rank - 1];
  while (index < end) {
    for (int i = 0; i < count; ++i) {
      int64_t offset = 0;
      for (int d = 0; d < rank; ++d) offset += coord[d] * plan.byte_strides[i][d];
      ptrs[i] = bases[i] + offset;
    }
    const int64_t n = std::min(end - index, inner_size - coord[rank - 1]);
    loop(context, n, ptrs, inner_strides);
    index += n;
    coord[rank - 1] += n;
    for (int d = rank - 1; d > 0 && coord[d] == plan.shape[d]; --d) {
      coord[d] = 0;
      ++coord[d - 1];
    }
  }
}

void RunElementwise(const ElementwisePlan& plan, char* const* bases, InnerLoop loop, const void* context,
                    ParallelRunner& runner, int parts) {
  if (plan.num_tiles == 0) return;
  parts = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(parts, plan.num_tiles)));
  if (parts == 1) {
    RunTiles(plan, bases, loop, context, 0, plan.num_tiles);
    return;
  }
  runner.Run(parts, [&](int part, int total) {
    const int64_t first = plan.num_tiles * part / total;
    const int64_t end = plan.num_tiles * (part + 1) / total;
    RunTiles(plan, bases, loop, context, first, end);
  });
}

}  // namespace kernel
}  // namespace aclcpu
