// The element types the engine computes with, and their storage sizes.
#ifndef ACLNN_CPU_KERNEL_DTYPE_H_
#define ACLNN_CPU_KERNEL_DTYPE_H_

#include <cstdint>

namespace aclcpu {
namespace kernel {

enum class DType : int { kFloat32 = 0, kFloat16 = 1, kBFloat16 = 2 };

inline int64_t ElementSize(DType dtype) { return dtype == DType::kFloat32 ? 4 : 2; }

inline const char* DTypeName(DType dtype) {
  switch (dtype) {
    case DType::kFloat32:
      return "FLOAT";
    case DType::kFloat16:
      return "FLOAT16";
    default:
      return "BF16";
  }
}

}  // namespace kernel
}  // namespace aclcpu

#endif  // ACLNN_CPU_KERNEL_DTYPE_H_
