#include "copy.h"

#include <cstring>

namespace aclcpu {
namespace kernel {
namespace {

// n elements of kBytes from ptrs[0] to ptrs[1]: one memcpy when both runs are contiguous.
template <int kBytes>
void CopyLoop(const void*, int64_t n, char* const* ptrs, const int64_t* strides) {
  if (strides[0] == kBytes && strides[1] == kBytes) {
    std::memcpy(ptrs[1], ptrs[0], static_cast<size_t>(n) * kBytes);
    return;
  }
  for (int64_t k = 0; k < n; ++k) std::memcpy(ptrs[1] + k * strides[1], ptrs[0] + k * strides[0], kBytes);
}

}  // namespace

CopyPlan PlanCopyToContiguous(const TensorView& source, const Platform& platform) {
  CopyPlan copy;
  const OperandLayout operands[] = {
      source.Layout(), OperandLayout{ElementSize(source.dtype), source.shape, ContiguousStrides(source.shape)}};
  if (!PlanElementwise(source.shape, operands, 2, &copy.plan)) return copy;  // a view phase one checked: never
  copy.threads = ScheduleElementwise(platform, 1, &copy.plan).threads;
  return copy;
}

void RunCopy(const CopyPlan& copy, const char* source, char* dst, ParallelRunner& runner) {
  char* bases[] = {const_cast<char*>(source), dst};
  const InnerLoop loop = copy.plan.element_size[0] == 4 ? &CopyLoop<4> : &CopyLoop<2>;
  RunElementwise(copy.plan, bases, loop, nullptr, runner, copy.threads);
}

bool ReadsAcrossMemory(const TensorView& view) {
  int inner = static_cast<int>(view.shape.size()) - 1;
  while (inner >= 0 && view.shape[inner] == 1) --inner;
  if (inner < 0 || view.strides[inner] == 1 || view.strides[inner] == 0) return false;
  for (int d = 0; d < inner; ++d) {
    if (view.shape[d] > 1 && view.strides[d] == 1) return true;
  }
  return false;
}

}  // namespace kernel
}  // namespace aclcpu
