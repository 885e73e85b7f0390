// A tiny program for the logging tests: one call that fails (an error log), and one phase one that
// succeeds, made twice (an info log each time: a repeated call is not served by the aclnn cache
// when plans are logged), so a test can run it under each log setting and read where logs went.
#include <cstdio>

#include "acl/acl.h"
#include "aclnnop/aclnn_mse_loss_backward.h"

int main() {
  void* memory = nullptr;
  aclrtMalloc(&memory, 16, ACL_MEM_MALLOC_HUGE_FIRST);  // before aclInit: fails, logs an error
  if (aclInit(nullptr) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS) return 1;
  if (aclrtMalloc(&memory, 16, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) return 1;
  const int64_t dims[] = {4};
  aclTensor* t = aclCreateTensor(dims, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, dims, 1, memory);
  uint64_t workspace = 0;
  aclOpExecutor* executor = nullptr;
  for (int call = 0; call < 2; ++call) {
    if (aclnnMseLossBackwardGetWorkspaceSize(t, t, t, 1, t, &workspace, &executor) != ACLNN_SUCCESS) return 1;
    aclDestroyAclOpExecutor(executor);
  }
  aclDestroyTensor(t);
  aclrtFree(memory);
  std::printf("probe done\n");
  return 0;
}
