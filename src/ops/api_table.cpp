#include "api_table.h"

#include <cstring>

#include "aclnnop/aclnn_l1_loss_backward.h"
#include "aclnnop/aclnn_mse_loss.h"
#include "aclnnop/aclnn_mse_loss_backward.h"
#include "aclnnop/aclnn_mse_loss_out.h"

namespace aclcpu {

const std::vector<ApiOp>& ApiOps() {
  static const std::vector<ApiOp> ops = {
      {"aclnnMseLossBackward",
       "aclnnMseLossBackwardGetWorkspaceSize",
       {"gradOutput", "self", "target"},
       "reduction",
       [](aclTensor* const* in, int64_t attribute, aclTensor* out, uint64_t* size, aclOpExecutor** executor) {
         return aclnnMseLossBackwardGetWorkspaceSize(in[0], in[1], in[2], attribute, out, size, executor);
       },
       aclnnMseLossBackward},
      {"aclnnMseLoss",
       "aclnnMseLossGetWorkspaceSize",
       {"self", "target"},
       "reduction",
       [](aclTensor* const* in, int64_t attribute, aclTensor* out, uint64_t* size, aclOpExecutor** executor) {
         return aclnnMseLossGetWorkspaceSize(in[0], in[1], attribute, out, size, executor);
       },
       aclnnMseLoss},
      {"aclnnMseLossOut",
       "aclnnMseLossOutGetWorkspaceSize",
       {"self", "target"},
       "reduction",
       [](aclTensor* const* in, int64_t attribute, aclTensor* out, uint64_t* size, aclOpExecutor** executor) {
         return aclnnMseLossOutGetWorkspaceSize(in[0], in[1], attribute, out, size, executor);
       },
       aclnnMseLossOut},
      {"aclnnL1LossBackward",
       "aclnnL1LossBackwardGetWorkspaceSize",
       {"gradOutput", "self", "target"},
       "reduction",
       [](aclTensor* const* in, int64_t attribute, aclTensor* out, uint64_t* size, aclOpExecutor** executor) {
         return aclnnL1LossBackwardGetWorkspaceSize(in[0], in[1], in[2], attribute, out, size, executor);
       },
       aclnnL1LossBackward},
  };
  return ops;
}

const ApiOp* FindApiOp(const char* name) {
  for (const ApiOp& op : ApiOps()) {
    if (std::strcmp(op.name, name) == 0) return &op;
  }
  return nullptr;
}

}  // namespace aclcpu
