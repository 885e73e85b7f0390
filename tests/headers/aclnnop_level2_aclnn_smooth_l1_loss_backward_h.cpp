// aclnnop/level2/aclnn_smooth_l1_loss_backward.h alone: the operator under ops-nn's level2 path.
#include "aclnnop/level2/aclnn_smooth_l1_loss_backward.h"
// (first: the header must compile with nothing before it)

#include "check.h"

int main() {
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  CHECK(aclnnSmoothL1LossBackwardGetWorkspaceSize(nullptr, nullptr, nullptr, 0, 1.0f, nullptr, &workspace_size,
                                                  &executor) == ACLNN_ERR_PARAM_NULLPTR);
  CHECK(aclnnSmoothL1LossBackward(nullptr, 0, executor, nullptr) == ACLNN_ERR_PARAM_NULLPTR);
  return 0;
}
