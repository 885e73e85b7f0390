// A tensor as the engine and the operator layers below the aclnn API see it: no aclTensor.
#ifndef ACLNN_CPU_KERNEL_TENSOR_VIEW_H_
#define ACLNN_CPU_KERNEL_TENSOR_VIEW_H_

#include "dtype.h"
#include "elementwise.h"
#include "shape.h"

namespace aclcpu {
namespace kernel {

// Its dims are read in place (an aclTensor's record, a staged copy's strides, a test's shape): what
// they point at must outlive the view, which lives for one call's planning.
struct TensorView {
  DType dtype = DType::kFloat32;
  Dims shape;
  Dims strides;          // elements
  char* data = nullptr;  // the view's first element

  OperandDims Operand() const { return OperandDims(ElementSize(dtype), shape, strides); }  // read in place
};

// Row-major strides of a contiguous tensor of this shape. A shape with a 0 dim may have others
// whose product overflows int64 (no element is ever addressed through them): the products wrap,
// as unsigned arithmetic does, instead of overflowing (undefined; the ASan fuzzer found one).
inline Shape ContiguousStrides(Dims shape) {
  Shape strides(shape.size(), 1);
  for (size_t i = shape.size(); i > 1; --i) {
    strides[i - 2] = static_cast<int64_t>(static_cast<uint64_t>(strides[i - 1]) * static_cast<uint64_t>(shape[i - 1]));
  }
  return strides;
}

}  // namespace kernel
}  // namespace aclcpu

#endif  // ACLNN_CPU_KERNEL_TENSOR_VIEW_H_
