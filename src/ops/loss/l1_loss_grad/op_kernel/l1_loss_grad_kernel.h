// L1LossGrad's kernel: per element, in float32,
//   scaled = grads * scale;  y = sign(predict, label) * scaled;  narrow y to the dtype;  cast to the store dtype.
// kernel::RunElementwiseOp runs it with the tiling and the inner loop SelectKernel gives.
#ifndef ACLNN_CPU_OPS_L1_LOSS_GRAD_OP_KERNEL_H_
#define ACLNN_CPU_OPS_L1_LOSS_GRAD_OP_KERNEL_H_

#include "op_host/l1_loss_grad_tiling.h"

namespace aclcpu {
namespace l1_loss_grad {

// The inner loop of the variant a key names, for the SIMD target this CPU runs: resolved once, in
// phase one, and kept with the tiling by the executor.
kernel::InnerLoop SelectKernel(const KernelKey& key);

}  // namespace l1_loss_grad
}  // namespace aclcpu

#endif  // ACLNN_CPU_OPS_L1_LOSS_GRAD_OP_KERNEL_H_
