// L1LossGrad's definition, as the graph sees the operator (ops-nn loss/l1_loss_grad/op_host/
// l1_loss_grad_def.cpp): inputs grads, predict, label; output y; each BF16, FLOAT16 or FLOAT, all
// of one dtype, in format ND; optional string attribute reduction, default "mean".
#ifndef ACLNN_CPU_OPS_L1_LOSS_GRAD_OP_GRAPH_DEF_H_
#define ACLNN_CPU_OPS_L1_LOSS_GRAD_OP_GRAPH_DEF_H_

#include "ops/common/op_graph/op_def.h"

namespace aclcpu {
namespace l1_loss_grad {

const OpDefinition& Definition();

}  // namespace l1_loss_grad
}  // namespace aclcpu

#endif  // ACLNN_CPU_OPS_L1_LOSS_GRAD_OP_GRAPH_DEF_H_
