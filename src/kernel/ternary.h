// What a ternary elementwise kernel (see ternary_simd-inl.h) reads besides its operands.
#ifndef ACLNN_CPU_KERNEL_TERNARY_H_
#define ACLNN_CPU_KERNEL_TERNARY_H_

namespace aclcpu {
namespace kernel {

struct TernaryContext {
  float scalar = 0.0f;   // the Dag's scalar argument
  float c_value = 0.0f;  // operand c, when it is a single value
};

}  // namespace kernel
}  // namespace aclcpu

#endif  // ACLNN_CPU_KERNEL_TERNARY_H_
