// Infer shape and infer dtype of MseLoss, as the graph drives the operator (ops-nn's rules: the
// inputs have one shape; the aclnn layer broadcasts and casts before it calls the operator).
#ifndef ACLNN_CPU_OPS_MSE_LOSS_OP_HOST_INFER_H_
#define ACLNN_CPU_OPS_MSE_LOSS_OP_HOST_INFER_H_

#include <string>

#include "kernel/dtype.h"
#include "kernel/shape.h"
#include "ops/loss/common/loss_reduction.h"

namespace aclcpu {
namespace mse_loss {

// y's shape: predict's for reduction none, 0-d otherwise. False (with *why) when predict and label
// differ in shape.
bool InferShape(const kernel::Shape& predict, const kernel::Shape& label, loss::Reduction reduction, kernel::Shape* y,
                std::string* why);

// The one rule for y's shape, given the losses' shape: the same for reduction none; for a mean or
// sum over dim 0 (aclnnMseLossOut), without that dim (a 0-d one has none to drop); else 0-d.
kernel::Shape ReducedShape(const kernel::Shape& losses, loss::Reduction reduction, bool over_dim0);

// y's dtype: predict's.
kernel::DType InferDtype(kernel::DType predict);

}  // namespace mse_loss
}  // namespace aclcpu

#endif  // ACLNN_CPU_OPS_MSE_LOSS_OP_HOST_INFER_H_
