// Infer shape and infer dtype of L1LossGrad (ops-nn loss/l1_loss_grad/op_host/
// l1_loss_grad_infershape.cpp).
#ifndef ACLNN_CPU_OPS_L1_LOSS_GRAD_OP_HOST_INFER_H_
#define ACLNN_CPU_OPS_L1_LOSS_GRAD_OP_HOST_INFER_H_

#include <string>

#include "kernel/dtype.h"
#include "kernel/shape.h"

namespace aclcpu {
namespace l1_loss_grad {

// y's shape: the broadcast of grads, predict and label. False (with *why) when they do not broadcast.
bool InferShape(const kernel::Shape& grads, const kernel::Shape& predict, const kernel::Shape& label, kernel::Shape* y,
                std::string* why);

// y's dtype: grads'.
kernel::DType InferDtype(kernel::DType grads);

}  // namespace l1_loss_grad
}  // namespace aclcpu

#endif  // ACLNN_CPU_OPS_L1_LOSS_GRAD_OP_HOST_INFER_H_
