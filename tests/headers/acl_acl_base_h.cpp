// acl/acl_base.h alone: acl_base_rt.h's names and the runtime's error codes.
#include "acl/acl_base.h"
// (first: the header must compile with nothing before it)

#include "check.h"

int main() {
  CHECK(ACL_ERROR_RT_PARAM_INVALID == 107000 && ACL_ERROR_RT_STREAM_SYNC_TIMEOUT == 507046);
  CHECK(aclDataTypeSize(ACL_INT4) == 1);
  CHECK(aclFloat16ToFloat(aclFloatToFloat16(0.5f)) == 0.5f);
  CHECK(aclrtGetSocName() != nullptr);
  return 0;
}
