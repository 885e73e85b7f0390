// MseLoss's definition, as the graph sees the operator: inputs predict and label, output y, each
// BF16, FLOAT16 or FLOAT in format ND; optional string attribute reduction, default "mean".
#ifndef ACLNN_CPU_OPS_MSE_LOSS_OP_GRAPH_DEF_H_
#define ACLNN_CPU_OPS_MSE_LOSS_OP_GRAPH_DEF_H_

#include <string>

#include "ops/common/op_graph/op_def.h"

namespace aclcpu {
namespace mse_loss {

const OpDefinition& Definition();

}  // namespace mse_loss
}  // namespace aclcpu

#endif  // ACLNN_CPU_OPS_MSE_LOSS_OP_GRAPH_DEF_H_
