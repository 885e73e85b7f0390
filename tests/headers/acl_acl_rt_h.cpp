// acl/acl_rt.h alone: a program that includes only it initializes the runtime, uses contexts,
// streams, events and memory, reads the error message and finalizes.
#include "acl/acl_rt.h"
// (first: the header must compile with nothing before it)

#include <cstdint>
#include <cstring>

#include "check.h"

int main() {
  CHECK(aclInit(nullptr) == ACL_SUCCESS);
  CHECK(aclrtSetDevice(0) == ACL_SUCCESS);
  aclrtRunMode mode = ACL_DEVICE;
  CHECK(aclrtGetRunMode(&mode) == ACL_SUCCESS && mode == ACL_HOST);
  int32_t device = -1;
  uint32_t count = 0;
  CHECK(aclrtGetDevice(&device) == ACL_SUCCESS && device == 0);
  CHECK(aclrtGetDeviceCount(&count) == ACL_SUCCESS && count == 1);
  int64_t cores = 0;
  CHECK(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_AICORE_CORE_NUM, &cores) == ACL_SUCCESS && cores >= 1);

  aclrtContext context = nullptr;
  aclrtContext current = nullptr;
  CHECK(aclrtCreateContext(&context, 0) == ACL_SUCCESS);
  CHECK(aclrtGetCurrentContext(&current) == ACL_SUCCESS && current == context);
  CHECK(aclrtSetCurrentContext(context) == ACL_SUCCESS);
  aclrtStream stream = nullptr;
  CHECK(aclrtCreateStream(&stream) == ACL_SUCCESS);
  aclrtEvent event = nullptr;
  CHECK(aclrtCreateEvent(&event) == ACL_SUCCESS);

  void* device_memory = nullptr;
  void* host_memory = nullptr;
  CHECK(aclrtMalloc(&device_memory, 64, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS);
  CHECK(aclrtMallocHost(&host_memory, 64) == ACL_SUCCESS);
  CHECK(aclrtMemset(device_memory, 64, 0, 64) == ACL_SUCCESS);
  CHECK(aclrtMemsetAsync(device_memory, 64, 0x42, 32, stream) == ACL_SUCCESS);
  CHECK(aclrtRecordEvent(event, stream) == ACL_SUCCESS);
  CHECK(aclrtStreamWaitEvent(nullptr, event) == ACL_SUCCESS);
  CHECK(aclrtMemcpyAsync(host_memory, 64, device_memory, 64, ACL_MEMCPY_DEVICE_TO_HOST, nullptr) == ACL_SUCCESS);
  CHECK(aclrtSynchronizeEvent(event) == ACL_SUCCESS);
  CHECK(aclrtSynchronizeStreamWithTimeout(nullptr, -1) == ACL_SUCCESS);
  CHECK(aclrtSynchronizeStream(stream) == ACL_SUCCESS);
  CHECK(aclrtSynchronizeDevice() == ACL_SUCCESS);
  const unsigned char* bytes = static_cast<const unsigned char*>(host_memory);
  CHECK(bytes[0] == 0x42 && bytes[31] == 0x42 && bytes[32] == 0);
  unsigned char back[64] = {};
  CHECK(aclrtMemcpy(back, sizeof back, device_memory, 64, ACL_MEMCPY_DEVICE_TO_HOST) == ACL_SUCCESS);
  CHECK(std::memcmp(back, host_memory, 64) == 0);

  CHECK(aclrtSynchronizeStreamWithTimeout(stream, -2) == ACL_ERROR_RT_PARAM_INVALID);
  CHECK(std::strstr(aclGetRecentErrMsg(), "timeout -2") != nullptr);
  CHECK(aclrtFreeHost(host_memory) == ACL_SUCCESS);
  CHECK(aclrtFree(device_memory) == ACL_SUCCESS);
  CHECK(aclrtDestroyEvent(event) == ACL_SUCCESS);
  CHECK(aclrtDestroyStream(stream) == ACL_SUCCESS);
  CHECK(aclrtDestroyContext(context) == ACL_SUCCESS);
  CHECK(aclrtResetDevice(0) == ACL_SUCCESS);
  CHECK(aclFinalize() == ACL_SUCCESS);
  return 0;
}
