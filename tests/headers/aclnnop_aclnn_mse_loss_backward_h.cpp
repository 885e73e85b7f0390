// aclnnop/aclnn_mse_loss_backward.h alone: both phases and the handles they take, through what the
// header brings in (the runtime functions are in acl/acl_rt.h, not included here).
#include "aclnnop/aclnn_mse_loss_backward.h"
// (first: the header must compile with nothing before it)

#include <cstdint>

#include "check.h"

int main() {
  CHECK(aclnnMseLossBackwardGetWorkspaceSize(nullptr, nullptr, nullptr, 1, nullptr, nullptr, nullptr) ==
        ACLNN_ERR_PARAM_NULLPTR);
  CHECK(aclnnMseLossBackward(nullptr, 0, nullptr, nullptr) == ACLNN_ERR_PARAM_NULLPTR);
  // Host memory is no device memory: phase one refuses it (no aclInit needed to find that out).
  const int64_t dims[] = {2};
  float host[2] = {1, 2};
  aclTensor* t = aclCreateTensor(dims, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, dims, 1, host);
  CHECK(t != nullptr);
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  CHECK(aclnnMseLossBackwardGetWorkspaceSize(t, t, t, 1, t, &workspace_size, &executor) == ACLNN_ERR_PARAM_INVALID);
  CHECK(executor == nullptr);
  CHECK(aclDestroyTensor(t) == ACLNN_SUCCESS);
  return 0;
}
