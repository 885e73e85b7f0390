// MseLoss's kernel: per element, in float32, d = predict - label; l = d * d; then for reduction
// none y = l narrowed to the compute dtype and cast to the store dtype, for mean and sum the
// engine's deterministic reduction (kernel/reduce.h) of l.
#ifndef ACLNN_CPU_OPS_MSE_LOSS_OP_KERNEL_H_
#define ACLNN_CPU_OPS_MSE_LOSS_OP_KERNEL_H_

#include "kernel/parallel.h"
#include "ops/loss/mse_loss/mse_loss_tiling.h"

namespace aclcpu {
namespace mse_loss {

// The inner loop of the variant a key names (the losses' for reduction none, else the reduction's
// map), for the SIMD target this CPU runs; null for an empty key. Resolved once, in phase one, and
// kept with the tiling by the executor.
kernel::InnerLoop SelectKernel(const KernelKey& key);

// Runs the kernel: loop is SelectKernel(tiling.key). Each pointer is the first element of that
// tensor's view; workspace holds tiling.workspace_bytes.
void RunKernel(const TilingData& tiling, kernel::InnerLoop loop, const char* predict, const char* label, char* y,
               char* workspace, kernel::ParallelRunner& runner);

}  // namespace mse_loss
}  // namespace aclcpu

#endif  // ACLNN_CPU_OPS_MSE_LOSS_OP_KERNEL_H_
