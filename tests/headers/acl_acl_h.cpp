// acl/acl.h alone: the umbrella header, as most CANN programs include it.
#include "acl/acl.h"
// (first: the header must compile with nothing before it)

#include "check.h"

int main() {
  CHECK(aclInit(nullptr) == ACL_SUCCESS);
  CHECK(aclrtSetDevice(0) == ACL_SUCCESS);
  aclrtStream stream = nullptr;
  CHECK(aclrtCreateStream(&stream) == ACL_SUCCESS);
  CHECK(aclrtSynchronizeStream(stream) == ACL_SUCCESS);
  CHECK(aclrtDestroyStream(stream) == ACL_SUCCESS);
  CHECK(aclrtSetDevice(1) == ACL_ERROR_RT_INVALID_DEVICEID);
  CHECK(aclGetRecentErrMsg()[0] != '\0');
  CHECK(aclrtResetDevice(0) == ACL_SUCCESS);
  CHECK(aclFinalize() == ACL_SUCCESS);
  return 0;
}
