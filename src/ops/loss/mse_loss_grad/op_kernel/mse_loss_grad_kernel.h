// MseLossGrad's kernel: per element, in float32,
//   d = predict - label;  d = d * cof;  y = d * dout;  narrow y to the dtype;  cast to the store dtype.
// kernel::RunElementwiseOp runs it with the tiling and the inner loop SelectKernel gives.
#ifndef ACLNN_CPU_OPS_MSE_LOSS_GRAD_OP_KERNEL_H_
#define ACLNN_CPU_OPS_MSE_LOSS_GRAD_OP_KERNEL_H_

#include "op_host/mse_loss_grad_tiling.h"

namespace aclcpu {
namespace mse_loss_grad {

// The inner loop of the variant a key names, for the SIMD target this CPU runs: resolved once, in
// phase one, and kept with the tiling by the executor.
kernel::InnerLoop SelectKernel(const KernelKey& key);

// The SIMD target the kernel runs with on this CPU (e.g. "AVX2"), for reports and tests.
const char* ActiveKernelTarget();

}  // namespace mse_loss_grad
}  // namespace aclcpu

#endif  // ACLNN_CPU_OPS_MSE_LOSS_GRAD_OP_KERNEL_H_
