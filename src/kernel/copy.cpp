#include <cstring>

#include "tensor_view.h"

namespace aclcpu {
namespace kernel {
namespace {

template <int kBytes>
void CopyLoop(const void*, int64_t n, char* const* ptrs, const int64_t* strides) {
  for (int64_t k = 0; k < n; ++k) std::memcpy(ptrs[1] + k * strides[1], ptrs[0] + k * strides[0], kBytes);
}

}  // namespace

void CopyToContiguous(const TensorView& src, char* dst) {
  ElementwisePlan plan;
  const OperandLayout out{ElementSize(src.dtype), src.shape, ContiguousStrides(src.shape)};
  if (!PlanElementwise(src.shape, {src.Layout(), out}, &plan)) return;
  char* bases[] = {src.data, dst};
  RunTiles(plan, bases, ElementSize(src.dtype) == 4 ? &CopyLoop<4> : &CopyLoop<2>, nullptr, 0, plan.num_tiles);
}

}  // namespace kernel
}  // namespace aclcpu
