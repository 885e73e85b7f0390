// aclnn/opdev/op_errno.h alone: the aclnnStatus codes.
#include "aclnn/opdev/op_errno.h"
// (first: the header must compile with nothing before it)

#include "check.h"

int main() {
  CHECK(ACLNN_SUCCESS == 0 && ACLNN_ERR_PARAM_NULLPTR == 161001 && ACLNN_ERR_PARAM_INVALID == 161002);
  CHECK(ACLNN_ERR_RUNTIME_ERROR == 361001 && ACLNN_ERR_INNER == 561000 && ACLNN_ERR_INNER_NULLPTR == 561103);
  CHECK(ACLNN_ERR_INNER_KEY_CONFLICT == ACLNN_ERR_INNER_KEY_CONFILICT);
  return 0;
}
