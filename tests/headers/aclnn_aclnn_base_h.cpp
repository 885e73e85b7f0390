// aclnn/aclnn_base.h alone: aclnnInit / aclnnFinalize, the handles and the status codes.
#include "aclnn/aclnn_base.h"
// (first: the header must compile with nothing before it)

#include "check.h"

int main() {
  CHECK(aclnnInit(nullptr) == ACLNN_SUCCESS);
  aclTensor* tensor = aclCreateTensor(nullptr, 0, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, nullptr, 0, nullptr);
  CHECK(tensor != nullptr);
  CHECK(aclDestroyTensor(tensor) == ACLNN_SUCCESS);
  CHECK(aclDestroyTensor(tensor) == ACLNN_ERR_PARAM_INVALID);
  CHECK(aclSetAclOpExecutorRepeatable(nullptr) == ACLNN_ERR_PARAM_NULLPTR);
  CHECK(aclnnFinalize() == ACLNN_SUCCESS);
  return 0;
}
