// Checks aclrtGetSocName() and aclInit under ACLNN_CPU_SOC_NAME (CTest sets it): with argv[1] a
// known name, the SoC name is argv[1] and aclInit succeeds; with argv[1] "unknown", the name is
// NULL and aclInit refuses, naming the value and the known SoCs. Exits 0 when all holds.
#include <cstdio>
#include <cstring>
#include <string>

#include "acl/acl.h"

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  const char* name = aclrtGetSocName();
  std::printf("aclrtGetSocName: %s\n", name != nullptr ? name : "(null)");
  const aclError init = aclInit(nullptr);
  const std::string message = aclGetRecentErrMsg();
  std::printf("aclInit: %d %s\n", init, message.c_str());
  if (std::strcmp(argv[1], "unknown") == 0) {
    return name == nullptr && init == ACL_ERROR_INVALID_PARAM &&
                   message.find("ACLNN_CPU_SOC_NAME") != std::string::npos &&
                   message.find("Ascend910B3") != std::string::npos && message.find("Ascend310P3") != std::string::npos
               ? 0
               : 1;
  }
  return name != nullptr && std::strcmp(name, argv[1]) == 0 && init == ACL_SUCCESS && aclFinalize() == ACL_SUCCESS ? 0
                                                                                                                   : 1;
}
