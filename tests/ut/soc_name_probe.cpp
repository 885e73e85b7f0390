// Prints aclrtGetSocName() and exits 0 when it is argv[1] (CTest runs it with ACLNN_CPU_SOC_NAME set).
#include <cstdio>
#include <cstring>

#include "acl/acl_base_rt.h"

int main(int argc, char** argv) {
  const char* name = aclrtGetSocName();
  std::printf("%s\n", name);
  return argc == 2 && std::strcmp(name, argv[1]) == 0 ? 0 : 1;
}
