// MseLoss's kernel: per element, in float32, d = predict - label; l = d * d; then for reduction
// none y = l narrowed to the compute dtype and cast to the store dtype, for mean and sum the
// engine's deterministic reduction (kernel/reduce.h) of l.
#ifndef ACLNN_CPU_OPS_MSE_LOSS_OP_KERNEL_H_
#define ACLNN_CPU_OPS_MSE_LOSS_OP_KERNEL_H_

#include "kernel/parallel.h"
#include "op_host/mse_loss_tiling.h"

namespace aclcpu {
namespace mse_loss {

// Runs the kernel variant the tiling key selects. Each pointer is the first element of that
// tensor's view; workspace holds tiling.workspace_bytes. False, and nothing run, when the key
// selects no kernel.
bool RunKernel(const TilingData& tiling, const char* predict, const char* label, char* y, char* workspace,
               kernel::ParallelRunner& runner);

}  // namespace mse_loss
}  // namespace aclcpu

#endif  // ACLNN_CPU_OPS_MSE_LOSS_OP_KERNEL_H_
