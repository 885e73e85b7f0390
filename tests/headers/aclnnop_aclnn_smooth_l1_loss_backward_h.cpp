// aclnnop/aclnn_smooth_l1_loss_backward.h alone: both phases and the handles they take, through what
// the header brings in (the runtime functions are in acl/acl_rt.h, not included here).
#include "aclnnop/aclnn_smooth_l1_loss_backward.h"
// (first: the header must compile with nothing before it)

#include <cstdint>

#include "check.h"

int main() {
  // beta is a float, as ops-nn's prototype has it (its comment says double).
  aclnnStatus (*phase_one)(const aclTensor*, const aclTensor*, const aclTensor*, int64_t, float, aclTensor*, uint64_t*,
                           aclOpExecutor**) = &aclnnSmoothL1LossBackwardGetWorkspaceSize;
  CHECK(phase_one(nullptr, nullptr, nullptr, 1, 1.0f, nullptr, nullptr, nullptr) == ACLNN_ERR_PARAM_NULLPTR);
  CHECK(aclnnSmoothL1LossBackward(nullptr, 0, nullptr, nullptr) == ACLNN_ERR_PARAM_NULLPTR);
  // Host memory is no device memory: phase one refuses it (no aclInit needed to find that out).
  const int64_t dims[] = {2};
  float host[2] = {1, 2};
  aclTensor* t = aclCreateTensor(dims, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, dims, 1, host);
  CHECK(t != nullptr);
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  CHECK(aclnnSmoothL1LossBackwardGetWorkspaceSize(t, t, t, 0, 1.0f, t, &workspace_size, &executor) ==
        ACLNN_ERR_PARAM_INVALID);
  CHECK(executor == nullptr);
  CHECK(aclDestroyTensor(t) == ACLNN_SUCCESS);
  return 0;
}
