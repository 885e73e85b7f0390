// MseLossGrad's kernel: per element, in float32,
//   d = predict - label;  d = d * cof;  y = d * dout;  narrow y to the dtype;  cast to the store dtype.
#ifndef ACLNN_CPU_OPS_MSE_LOSS_GRAD_OP_KERNEL_H_
#define ACLNN_CPU_OPS_MSE_LOSS_GRAD_OP_KERNEL_H_

#include "kernel/parallel.h"
#include "op_host/mse_loss_grad_tiling.h"

namespace aclcpu {
namespace mse_loss_grad {

// The inner loop of the variant a key names, for the SIMD target this CPU runs: resolved once, in
// phase one, and kept with the tiling by the executor.
kernel::InnerLoop SelectKernel(const KernelKey& key);

// Runs the kernel: loop is SelectKernel(tiling.key). Each pointer is the first element of that
// tensor's view.
void RunKernel(const TilingData& tiling, kernel::InnerLoop loop, const char* predict, const char* label,
               const char* dout, char* y, kernel::ParallelRunner& runner);

// The SIMD target the kernel runs with on this CPU (e.g. "AVX2"), for reports and tests.
const char* ActiveKernelTarget();

}  // namespace mse_loss_grad
}  // namespace aclcpu

#endif  // ACLNN_CPU_OPS_MSE_LOSS_GRAD_OP_KERNEL_H_
