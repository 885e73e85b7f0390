// acl/error_codes/rt_error_codes.h alone: the runtime's error codes.
#include "acl/error_codes/rt_error_codes.h"
// (first: the header must compile with nothing before it)

#include "check.h"

int main() {
  CHECK(ACL_RT_SUCCESS == 0);
  CHECK(ACL_ERROR_RT_INVALID_DEVICEID == 107001 && ACL_ERROR_RT_CONTEXT_NULL == 107002);
  CHECK(ACL_ERROR_RT_INVALID_HANDLE == 107017 && ACL_ERROR_RT_FEATURE_NOT_SUPPORT == 207000);
  CHECK(ACL_ERROR_RT_MEMORY_ALLOCATION == 207001 && ACL_ERROR_RT_STREAM_SYNC_TIMEOUT == 507046);
  return 0;
}
