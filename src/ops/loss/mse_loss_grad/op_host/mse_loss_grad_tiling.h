// MseLossGrad's tiling: the mean's coefficient as the kernel the call reaches computes it, then the
// elementwise operators' shared plan, schedule and key (kernel/elementwise_op.h).
#ifndef ACLNN_CPU_OPS_MSE_LOSS_GRAD_OP_HOST_TILING_H_
#define ACLNN_CPU_OPS_MSE_LOSS_GRAD_OP_HOST_TILING_H_

#include <cstdint>
#include <string>

#include "kernel/elementwise_op.h"
#include "ops/loss/common/loss_reduction.h"

namespace aclcpu {
namespace mse_loss_grad {

// The operands, in the definition's order (the Dag's).
enum Operand : int { kPredict = 0, kLabel = 1, kDout = 2, kY = 3 };
// The input ops-nn's kernel reads as one value when it has one element (its doutIsScalar).
constexpr int kScalarInput = kDout;

// How the mean's coefficient is computed: by the kernel the call reaches (the aclnn layer's
// routing decides, op_api). Every other step of an element is the same in both kernels.
enum class CofRule : uint32_t {
  // MseLossGrad (V1), ops-nn's arch35 tiling (loss/mse_loss_grad/op_host/arch35/
  // mse_loss_grad_tiling_arch35.cpp): (float)(2.0 / (double)numel(predict)). Also ours for the
  // legacy TBE MseLossGrad of A2/A3 and 310P, whose rule is not public.
  kDoubleQuotient = 0,
  // MseLossGradV2 (loss/mse_loss_grad_v2/op_host/mse_loss_grad_v2_tiling.cpp): 1.0f / R * 2.0f,
  // R the float32 product of predict's dims in order, rounded at each step.
  kFloatProduct = 1,
};

struct Attributes {
  loss::Reduction reduction = loss::Reduction::kMean;
  CofRule cof_rule = CofRule::kDoubleQuotient;
};

using KernelKey = kernel::ElementwiseKey;
using TilingData = kernel::ElementwiseTiling;

// *input holds the operands (views, y of the compute dtype), the store dtype and the platform;
// this sets the rest (names, the scalar input, the coefficient) and fills *data, or returns false
// with *error naming what is wrong (*data then unspecified).
bool ComputeTiling(kernel::ElementwiseOpInput* input, const Attributes& attributes, TilingData* data,
                   std::string* error);

}  // namespace mse_loss_grad
}  // namespace aclcpu

#endif  // ACLNN_CPU_OPS_MSE_LOSS_GRAD_OP_HOST_TILING_H_
