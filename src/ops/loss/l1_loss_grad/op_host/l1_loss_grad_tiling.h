// L1LossGrad's tiling: the mean's scale and the sign rule of the kernel the call reaches, then the
// elementwise operators' shared plan, schedule and key (kernel/elementwise_op.h).
#ifndef ACLNN_CPU_OPS_L1_LOSS_GRAD_OP_HOST_TILING_H_
#define ACLNN_CPU_OPS_L1_LOSS_GRAD_OP_HOST_TILING_H_

#include <cstdint>
#include <string>

#include "kernel/elementwise_op.h"
#include "ops/loss/common/loss_reduction.h"

namespace aclcpu {
namespace l1_loss_grad {

// The operands, in the definition's order (the Dag's).
enum Operand : int { kGrads = 0, kPredict = 1, kLabel = 2, kY = 3 };
// The input ops-nn's kernel reads as one value when it has one element (its inputGradsIsScalar).
constexpr int kScalarInput = kGrads;
// The Dag's scalars: the mean's scale, and the sign of an unordered pair (the route's).
enum Scalar : int { kScale = 0, kUnorderedSign = 1 };

// The kernel a call reaches (the aclnn layer's routing decides, op_api). Both compute, in float32,
// y = sign * (grads * scale) rounded to the dtype; they differ in the scale of mean and in the sign
// of an unordered pair (a NaN in predict or label).
enum class KernelRoute : uint32_t {
  // ops-nn's arch35 kernel, on 950 (op_kernel/arch35/l1_loss_grad_dag.h, op_host/arch35/
  // l1_loss_grad_tiling.cpp): scale = 1.0f divided by each of label's dims in turn, each quotient
  // rounded to float (CaluateReduceElts); sign = predict > label ? 1 : predict < label ? -1 : 0.
  kArch35 = 0,
  // The TBE kernel CANN ships for A2/A3, 310P and 910 (not in ops-nn; its public source,
  // impl/dynamic/l1_loss_grad.py, l1_loss_grad_compute): scale = (float)(1.0 / N), N the product
  // of grads' dims in double; sign = predict == label ? 0 : predict > label ? 1 : -1, so an
  // unordered pair gives -1.
  kTbe = 1,
};

struct Attributes {
  loss::Reduction reduction = loss::Reduction::kMean;
  KernelRoute route = KernelRoute::kArch35;
  // Whether the aclnn layer broadcast every input to y's shape before the kernel (ops-nn's
  // aclnn_l1_loss_backward.cpp does: the kernel's label, and on A2/A3 its grads, have y's dims).
  bool inputs_broadcast = false;
};

using KernelKey = kernel::ElementwiseKey;
using TilingData = kernel::ElementwiseTiling;

// The mean's scale on a route: kArch35 from label's dims (as the kernel receives label: y's when
// inputs_broadcast), kTbe from grads' (y's when inputs_broadcast). 1 for none and sum.
float Scale(const Attributes& attributes, kernel::Dims grads, kernel::Dims label, kernel::Dims y);

// *input holds the operands (views, y of the compute dtype), the store dtype and the platform;
// this sets the rest (names, the scalar input, the Dag's scalars) and fills *data, or returns
// false with *error naming what is wrong (*data then unspecified).
bool ComputeTiling(kernel::ElementwiseOpInput* input, const Attributes& attributes, TilingData* data,
                   std::string* error);

}  // namespace l1_loss_grad
}  // namespace aclcpu

#endif  // ACLNN_CPU_OPS_L1_LOSS_GRAD_OP_HOST_TILING_H_
