// acl/acl_base_rt.h alone: its types, codes and enums, and the functions CANN declares in it.
#include "acl/acl_base_rt.h"
// (first: the header must compile with nothing before it)

#include <cstring>

#include "check.h"

int main() {
  CHECK(aclFloatToFloat16(1.0f) == 0x3C00);
  CHECK(aclFloat16ToFloat(0xC000) == -2.0f);
  CHECK(aclDataTypeSize(ACL_FLOAT) == 4);
  CHECK(aclDataTypeSize(ACL_FLOAT8_E4M3FN) == 1);
  const char* soc = aclrtGetSocName();
  CHECK(soc != nullptr && std::strlen(soc) > 0);
  aclrtStream stream = nullptr;
  aclrtEvent event = nullptr;
  aclrtContext context = nullptr;
  CHECK(stream == nullptr && event == nullptr && context == nullptr);
  aclError code = ACL_SUCCESS;
  CHECK(code == ACL_ERROR_NONE && ACL_ERROR_INVALID_PARAM == 100000 && ACL_ERROR_BAD_ALLOC == 200000);
  aclFormat format = ACL_FORMAT_FRACTAL_NZ_C0_8;
  aclLogLevel level = ACL_ERROR;
  CHECK(format == 54 && level == 3);
  return 0;
}
