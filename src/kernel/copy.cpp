#include "copy.h"

#include <cstring>

#include "float_convert.h"

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

// n elements from ptrs[0] (of From) to ptrs[1] (of To), each converted through float32.
template <typename From, typename To>
void ConvertLoop(const void*, int64_t n, char* const* ptrs, const int64_t* strides) {
  for (int64_t k = 0; k < n; ++k) {
    From value;
    std::memcpy(&value, ptrs[0] + k * strides[0], sizeof value);
    const To converted = Narrow<To>(Widen(value));
    std::memcpy(ptrs[1] + k * strides[1], &converted, sizeof converted);
  }
}

InnerLoop CopyLoopFor(DType from, DType to) {
  if (from == to) return ElementSize(from) == 4 ? &CopyLoop<4> : &CopyLoop<2>;
  return VisitDType(from, [to](auto from_type) {
    return VisitDType(to,
                      [](auto to_type) -> InnerLoop { return &ConvertLoop<decltype(from_type), decltype(to_type)>; });
  });
}

}  // namespace

CopyPlan PlanCopyToContiguous(const TensorView& source, const Platform& platform) {
  return PlanCopyToContiguous(source, source.dtype, platform);
}

CopyPlan PlanCopyToContiguous(const TensorView& source, DType to, const Platform& platform) {
  CopyPlan copy;
  copy.from = source.dtype;
  copy.to = to;
  const Shape contiguous = ContiguousStrides(source.shape);
  const OperandDims operands[] = {source.Operand(), OperandDims(ElementSize(to), source.shape, contiguous)};
  if (!PlanElementwise(source.shape, operands, 2, &copy.plan)) return copy;  // a view phase one checked: never
  copy.threads = ScheduleElementwise(platform, 1, &copy.plan).threads;
  return copy;
}

void RunCopy(const CopyPlan& copy, const char* source, char* dst, ParallelRunner& runner) {
  char* bases[] = {const_cast<char*>(source), dst};
  RunElementwise(copy.plan, bases, CopyLoopFor(copy.from, copy.to), nullptr, runner, copy.threads);
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
