// Infer shape and infer dtype of MseLossGrad.
#ifndef ACLNN_CPU_OPS_MSE_LOSS_GRAD_OP_HOST_INFER_H_
#define ACLNN_CPU_OPS_MSE_LOSS_GRAD_OP_HOST_INFER_H_

#include <string>

#include "kernel/dtype.h"
#include "kernel/shape.h"

namespace aclcpu {
namespace mse_loss_grad {

// y's shape: the broadcast of predict, label and dout. False (with *why) when they do not broadcast.
bool InferShape(const kernel::Shape& predict, const kernel::Shape& label, const kernel::Shape& dout, kernel::Shape* y,
                std::string* why);

// y's dtype: predict's.
kernel::DType InferDtype(kernel::DType predict);

}  // namespace mse_loss_grad
}  // namespace aclcpu

#endif  // ACLNN_CPU_OPS_MSE_LOSS_GRAD_OP_HOST_INFER_H_
