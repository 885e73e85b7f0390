// The golden of MseLossGrad: docs/semantics.md's MseLossBackward as plain scalar code, one element at a time. The
// mean's coefficient is that of the kernel the call reaches on the NPU (ops-nn's l0 routing, restated): MseLossGradV2's
// on 910B, 910_93 and 310P when gradOutput, self and target have one view shape and one format, MseLossGrad (V1)'s
// otherwise.
#ifndef ACLNN_CPU_OPS_LOSS_MSE_LOSS_GRAD_GOLDEN_H_
#define ACLNN_CPU_OPS_LOSS_MSE_LOSS_GRAD_GOLDEN_H_

#include <cstdint>
#include <vector>

#include "golden/golden_common.h"

namespace golden {

// Which kernel's numbers the golden computes: aclnnMseLossBackward on npu with inputs of one format
// (or not), or (kernel_v1) the MseLossGrad kernel itself, as the case runner's kernel rows run it.
struct GradRoute {
  Npu npu;
  bool one_format = true;
  bool kernel_v1 = false;
};

// The mean's coefficient on that route for these shapes: MseLossGradV2's 1.0f / R * 2.0f with R the
// float32 product of self's dims (loss/mse_loss_grad_v2/op_host/mse_loss_grad_v2_tiling.cpp), or
// V1's (float)(2.0 / (double)numel(self)) (loss/mse_loss_grad/op_host/arch35/...tiling_arch35.cpp).
float MeanCoefficient(const GradRoute& route, const std::vector<int64_t>& grad_output, const std::vector<int64_t>& self,
                      const std::vector<int64_t>& target);

// Elements [begin, end) of MseLossGrad's output (row-major over the broadcast shape) as raw bits of
// out_dtype. reduction: the aclnn API's 0 none, 1 mean, 2 sum. The shapes must broadcast.
void MseLossGrad(const View& grad_output, const View& self, const View& target, int reduction, Dtype out_dtype,
                 int64_t begin, int64_t end, uint32_t* out_bits, const GradRoute& route = GradRoute());

// The whole output, with the broadcast shape (no elements when the shapes do not broadcast).
Tensor MseLossGrad(const Tensor& grad_output, const Tensor& self, const Tensor& target, int reduction, Dtype out_dtype,
                   const GradRoute& route = GradRoute());

}  // namespace golden

#endif  // ACLNN_CPU_OPS_LOSS_MSE_LOSS_GRAD_GOLDEN_H_
