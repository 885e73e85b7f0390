// Dims for the views tests make from shapes they compute. A kernel::TensorView reads its dims in
// place (in a call, an aclTensor's record); a test keeps its shapes here, alive to the end of the
// program, so that a view made in a helper and returned stays valid.
#ifndef ACLNN_CPU_TESTS_SUPPORT_KEPT_DIMS_H_
#define ACLNN_CPU_TESTS_SUPPORT_KEPT_DIMS_H_

#include <deque>
#include <mutex>

#include "kernel/shape.h"
#include "kernel/tensor_view.h"

namespace support {

inline aclcpu::kernel::Dims Kept(const aclcpu::kernel::Shape& dims) {
  static std::mutex mutex;
  static std::deque<aclcpu::kernel::Shape> kept;  // a deque: what it holds never moves
  const std::lock_guard<std::mutex> lock(mutex);
  kept.push_back(dims);
  return kept.back();
}

// A view of shape and strides (contiguous when not given), both kept.
inline aclcpu::kernel::TensorView KeptView(aclcpu::kernel::DType dtype, const aclcpu::kernel::Shape& shape,
                                           char* data = nullptr) {
  const aclcpu::kernel::Dims kept = Kept(shape);
  return aclcpu::kernel::TensorView{dtype, kept, Kept(aclcpu::kernel::ContiguousStrides(kept)), data};
}
inline aclcpu::kernel::TensorView KeptView(aclcpu::kernel::DType dtype, const aclcpu::kernel::Shape& shape,
                                           const aclcpu::kernel::Shape& strides, char* data = nullptr) {
  return aclcpu::kernel::TensorView{dtype, Kept(shape), Kept(strides), data};
}

}  // namespace support

#endif  // ACLNN_CPU_TESTS_SUPPORT_KEPT_DIMS_H_
