// Unit tests of the runtime functions beyond the operator's needs: contexts (a current context per
// thread, streams that belong to a context), aclrtSynchronizeStreamWithTimeout, aclrtMemsetAsync,
// the newer copy kinds and allocation policies, the run mode, device information, the SoC name and
// the FLOAT16 conversions. Everything goes through the public C API, except a helper that keeps a
// stream busy for as long as a test wants.
#include <gtest/gtest.h>
#include <sched.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <future>
#include <limits>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "acl/acl.h"
#include "kernel/float_convert.h"
#include "ops/loss/mse_loss_grad/golden/mse_loss_grad_golden.h"
#include "runtime/runtime_internal.h"
#include "support/api_support.h"
#include "support/expect_error.h"
#include "support/raw_tensor.h"

namespace {

using support::PtrText;

// Keeps a stream busy from construction until Release: a task on it waits for the release. (The
// task is queued from a helper thread, which it blocks if it runs there at once.)
class StreamBlocker {
 public:
  explicit StreamBlocker(aclrtStream stream) {
    std::future<void> started = started_.get_future();
    std::shared_future<void> released = released_.get_future().share();
    helper_ = std::thread([this, stream, released] {
      queued_ = aclcpu::EnqueueOnStream("StreamBlocker", stream,
                                        [this, released] {
                                          started_.set_value();
                                          released.wait();
                                        },
                                        {});
      if (queued_ != ACL_SUCCESS) started_.set_value();
    });
    started.wait();
  }
  ~StreamBlocker() { Release(); }
  StreamBlocker(const StreamBlocker&) = delete;
  StreamBlocker& operator=(const StreamBlocker&) = delete;

  aclError queued() const { return queued_; }
  void Release() {
    if (!helper_.joinable()) return;
    released_.set_value();
    helper_.join();
  }

 private:
  std::promise<void> started_;
  std::promise<void> released_;
  std::atomic<aclError> queued_{ACL_SUCCESS};  // written by the helper, maybe while a test reads it
  std::thread helper_;
};

aclrtContext CurrentContext() {
  aclrtContext context = nullptr;
  EXPECT_EQ(aclrtGetCurrentContext(&context), ACL_SUCCESS) << aclGetRecentErrMsg();
  return context;
}

int ResetDeviceCompletely() {
  int resets = 0;
  while (resets < 1000 && aclrtResetDevice(0) == ACL_SUCCESS) ++resets;
  return resets;
}

// ---------------------------------------------------------------------------------------------
// Contexts.

TEST(RuntimeContext, DefaultContextIsEveryThreadsCurrentOneUntilItSetsAnother) {
  support::EnsureRuntime();
  const aclrtContext main_default = CurrentContext();
  ASSERT_NE(main_default, nullptr);
  aclrtContext other_thread = nullptr;
  std::thread([&] { other_thread = CurrentContext(); }).join();
  EXPECT_EQ(other_thread, main_default);  // one default context for the device

  aclrtContext created = nullptr;
  ASSERT_EQ(aclrtCreateContext(&created, 0), ACL_SUCCESS) << aclGetRecentErrMsg();
  ASSERT_NE(created, nullptr);
  EXPECT_NE(created, main_default);
  EXPECT_EQ(CurrentContext(), created);  // creating makes it current, on this thread only
  std::thread([&] { other_thread = CurrentContext(); }).join();
  EXPECT_EQ(other_thread, main_default);

  // Another thread may make it its own current context, and this one may switch back.
  std::thread([&] {
    EXPECT_EQ(aclrtSetCurrentContext(created), ACL_SUCCESS) << aclGetRecentErrMsg();
    other_thread = CurrentContext();
  }).join();
  EXPECT_EQ(other_thread, created);
  ASSERT_EQ(aclrtSetCurrentContext(main_default), ACL_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(CurrentContext(), main_default);
  ASSERT_EQ(aclrtSetCurrentContext(created), ACL_SUCCESS) << aclGetRecentErrMsg();

  // Destroyed: the thread falls back to the default context, and the handle is dead for good.
  ASSERT_EQ(aclrtDestroyContext(created), ACL_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(CurrentContext(), main_default);
  EXPECT_FAILS(aclrtSetCurrentContext(created), ACL_ERROR_RT_INVALID_HANDLE, "aclrtSetCurrentContext", PtrText(created),
               "not a live context");
  EXPECT_FAILS(aclrtDestroyContext(created), ACL_ERROR_RT_INVALID_HANDLE, "aclrtDestroyContext", PtrText(created),
               "not a live context");
}

TEST(RuntimeContext, ArgumentsAreChecked) {
  support::EnsureRuntime();
  aclrtContext context = nullptr;
  EXPECT_FAILS(aclrtCreateContext(nullptr, 0), ACL_ERROR_INVALID_PARAM, "aclrtCreateContext", "context is null");
  EXPECT_FAILS(aclrtCreateContext(&context, 1), ACL_ERROR_RT_INVALID_DEVICEID, "aclrtCreateContext", "device id 1");
  EXPECT_FAILS(aclrtCreateContext(&context, -1), ACL_ERROR_RT_INVALID_DEVICEID, "aclrtCreateContext", "device id -1");
  EXPECT_EQ(context, nullptr);
  EXPECT_FAILS(aclrtDestroyContext(nullptr), ACL_ERROR_INVALID_PARAM, "aclrtDestroyContext", "context is null");
  EXPECT_FAILS(aclrtSetCurrentContext(nullptr), ACL_ERROR_INVALID_PARAM, "aclrtSetCurrentContext", "context is null");
  EXPECT_FAILS(aclrtGetCurrentContext(nullptr), ACL_ERROR_INVALID_PARAM, "aclrtGetCurrentContext", "context is null");
  int local = 0;
  EXPECT_FAILS(aclrtSetCurrentContext(&local), ACL_ERROR_RT_INVALID_HANDLE, "aclrtSetCurrentContext", PtrText(&local));
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_FAILS(aclrtSetCurrentContext(stream), ACL_ERROR_RT_INVALID_HANDLE, "aclrtSetCurrentContext",
               PtrText(stream));  // a stream handle is no context handle
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS) << aclGetRecentErrMsg();
  // The default context goes with the device, not with aclrtDestroyContext.
  const aclrtContext default_context = CurrentContext();
  EXPECT_FAILS(aclrtDestroyContext(default_context), ACL_ERROR_INVALID_PARAM, "aclrtDestroyContext", "default context",
               "aclrtResetDevice");
  EXPECT_EQ(CurrentContext(), default_context);
}

TEST(RuntimeContext, StreamsBelongToTheContextTheyWereCreatedIn) {
  support::EnsureRuntime();
  const aclrtContext default_context = CurrentContext();
  aclrtStream default_stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&default_stream), ACL_SUCCESS) << aclGetRecentErrMsg();

  aclrtContext context = nullptr;
  ASSERT_EQ(aclrtCreateContext(&context, 0), ACL_SUCCESS) << aclGetRecentErrMsg();
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS) << aclGetRecentErrMsg();

  // Work queued in the context's stream, into host memory, still runs when the context goes.
  const size_t bytes = 4096;
  void* device = nullptr;
  ASSERT_EQ(aclrtMalloc(&device, bytes, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS) << aclGetRecentErrMsg();
  std::vector<uint8_t> pattern(bytes);
  for (size_t i = 0; i < bytes; ++i) pattern[i] = static_cast<uint8_t>(i * 7 + 3);
  ASSERT_EQ(aclrtMemcpy(device, bytes, pattern.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
  std::vector<uint8_t> host(bytes, 0);
  {
    StreamBlocker blocker(stream);
    ASSERT_EQ(blocker.queued(), ACL_SUCCESS) << aclGetRecentErrMsg();
    ASSERT_EQ(aclrtMemcpyAsync(host.data(), bytes, device, bytes, ACL_MEMCPY_DEVICE_TO_HOST, stream), ACL_SUCCESS)
        << aclGetRecentErrMsg();
    EXPECT_EQ(host, std::vector<uint8_t>(bytes, 0));  // queued behind the blocker
    std::thread destroyer([&] {
      ASSERT_EQ(aclrtSetCurrentContext(context), ACL_SUCCESS) << aclGetRecentErrMsg();
      EXPECT_EQ(aclrtDestroyContext(context), ACL_SUCCESS) << aclGetRecentErrMsg();
    });
    blocker.Release();
    destroyer.join();
  }
  EXPECT_EQ(host, pattern);  // the destroy ran the queued copy before it returned

  // The context's stream went with it; the default context's stream did not.
  EXPECT_FAILS(aclrtSynchronizeStream(stream), ACL_ERROR_RT_INVALID_HANDLE, "aclrtSynchronizeStream", PtrText(stream),
               "not a live stream");
  EXPECT_FAILS(aclrtDestroyStream(stream), ACL_ERROR_RT_INVALID_HANDLE, "aclrtDestroyStream", PtrText(stream));
  EXPECT_EQ(CurrentContext(), default_context);  // this thread had made the destroyed context current
  EXPECT_EQ(aclrtSynchronizeStream(default_stream), ACL_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(aclrtDestroyStream(default_stream), ACL_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(aclrtFree(device), ACL_SUCCESS) << aclGetRecentErrMsg();
}

TEST(RuntimeContext, EachContextHasItsOwnDefaultStream) {
  support::EnsureRuntime();
  StreamBlocker blocker(nullptr);  // the default context's default stream
  ASSERT_EQ(blocker.queued(), ACL_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_FAILS(aclrtSynchronizeStreamWithTimeout(nullptr, 0), ACL_ERROR_RT_STREAM_SYNC_TIMEOUT,
               "aclrtSynchronizeStreamWithTimeout", "0 ms");
  std::thread([] {
    aclrtContext context = nullptr;
    ASSERT_EQ(aclrtCreateContext(&context, 0), ACL_SUCCESS) << aclGetRecentErrMsg();
    // A null stream is this context's default stream, which is idle.
    EXPECT_EQ(aclrtSynchronizeStreamWithTimeout(nullptr, 0), ACL_SUCCESS) << aclGetRecentErrMsg();
    std::vector<uint8_t> host(64, 0);
    void* device = nullptr;
    ASSERT_EQ(aclrtMalloc(&device, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS) << aclGetRecentErrMsg();
    ASSERT_EQ(aclrtMemsetAsync(device, 64, 0x5A, 64, nullptr), ACL_SUCCESS) << aclGetRecentErrMsg();
    ASSERT_EQ(aclrtMemcpyAsync(host.data(), 64, device, 64, ACL_MEMCPY_DEVICE_TO_HOST, nullptr), ACL_SUCCESS);
    EXPECT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS) << aclGetRecentErrMsg();
    EXPECT_EQ(host, std::vector<uint8_t>(64, 0x5A));
    EXPECT_EQ(aclrtFree(device), ACL_SUCCESS) << aclGetRecentErrMsg();
    EXPECT_EQ(aclrtDestroyContext(context), ACL_SUCCESS) << aclGetRecentErrMsg();
  }).join();
  blocker.Release();
  EXPECT_EQ(aclrtSynchronizeStreamWithTimeout(nullptr, 0), ACL_SUCCESS) << aclGetRecentErrMsg();
}

// A created context opens device 0 by itself, as on an NPU; with neither it nor aclrtSetDevice,
// nothing that needs the device works.
TEST(RuntimeContext, ACreatedContextKeepsTheDeviceOpen) {
  support::EnsureRuntime();
  support::RuntimeRestorer restorer;
  ASSERT_GE(ResetDeviceCompletely(), 1);
  aclrtContext context = nullptr;
  EXPECT_FAILS(aclrtGetCurrentContext(&context), ACL_ERROR_RT_CONTEXT_NULL, "aclrtGetCurrentContext", "no device");

  ASSERT_EQ(aclrtCreateContext(&context, 0), ACL_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(CurrentContext(), context);
  int32_t device = -1;
  EXPECT_EQ(aclrtGetDevice(&device), ACL_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(device, 0);
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS) << aclGetRecentErrMsg();
  void* memory = nullptr;
  ASSERT_EQ(aclrtMalloc(&memory, 128, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(aclrtMemsetAsync(memory, 128, 1, 128, stream), ACL_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS) << aclGetRecentErrMsg();
  // A thread without a context of its own uses... none: the device has no default context.
  std::thread([] {
    aclrtContext none = nullptr;
    EXPECT_FAILS(aclrtGetCurrentContext(&none), ACL_ERROR_RT_CONTEXT_NULL, "aclrtGetCurrentContext",
                 "no current context");
    aclrtStream no_stream = nullptr;
    EXPECT_FAILS(aclrtCreateStream(&no_stream), ACL_ERROR_RT_CONTEXT_NULL, "aclrtCreateStream", "no current context");
  }).join();

  ASSERT_EQ(aclrtDestroyContext(context), ACL_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_FAILS(aclrtSynchronizeStream(stream), ACL_ERROR_RT_CONTEXT_NULL, "aclrtSynchronizeStream", "no device");
  EXPECT_FAILS(aclrtCreateStream(&stream), ACL_ERROR_RT_CONTEXT_NULL, "aclrtCreateStream", "no device");
  EXPECT_EQ(aclrtFree(memory), ACL_SUCCESS) << aclGetRecentErrMsg();  // memory outlives contexts
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_FAILS(aclrtSynchronizeStream(stream), ACL_ERROR_RT_INVALID_HANDLE, "aclrtSynchronizeStream", PtrText(stream));
}

TEST(RuntimeContext, FinalizeReleasesCreatedContexts) {
  support::EnsureRuntime();
  support::RuntimeRestorer restorer;
  aclrtContext context = nullptr;
  ASSERT_EQ(aclrtCreateContext(&context, 0), ACL_SUCCESS) << aclGetRecentErrMsg();
  ASSERT_EQ(aclFinalize(), ACL_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_FAILS(aclrtSetCurrentContext(context), ACL_ERROR_UNINITIALIZE, "aclrtSetCurrentContext", "aclInit");
  ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_FAILS(aclrtSetCurrentContext(context), ACL_ERROR_RT_INVALID_HANDLE, "aclrtSetCurrentContext",
               PtrText(context));
  EXPECT_FAILS(aclrtDestroyContext(context), ACL_ERROR_RT_INVALID_HANDLE, "aclrtDestroyContext", PtrText(context));
}

// ---------------------------------------------------------------------------------------------
// Synchronizing with a timeout.

TEST(RuntimeStreamTimeout, TimesOutWhileTheWorkRunsAndSucceedsOnceItIsDone) {
  support::EnsureRuntime();
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(aclrtSynchronizeStreamWithTimeout(stream, 0), ACL_SUCCESS) << aclGetRecentErrMsg();  // idle
  {
    StreamBlocker blocker(stream);
    ASSERT_EQ(blocker.queued(), ACL_SUCCESS) << aclGetRecentErrMsg();
    for (int32_t timeout : {0, 1, 30}) {
      EXPECT_FAILS(aclrtSynchronizeStreamWithTimeout(stream, timeout), ACL_ERROR_RT_STREAM_SYNC_TIMEOUT,
                   "aclrtSynchronizeStreamWithTimeout", PtrText(stream), std::to_string(timeout) + " ms");
    }
    std::thread waiter([&] { EXPECT_EQ(aclrtSynchronizeStreamWithTimeout(stream, -1), ACL_SUCCESS); });
    blocker.Release();
    waiter.join();
  }
  EXPECT_EQ(aclrtSynchronizeStreamWithTimeout(stream, 0), ACL_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(aclrtSynchronizeStreamWithTimeout(stream, 1000), ACL_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS) << aclGetRecentErrMsg();
}

TEST(RuntimeStreamTimeout, ArgumentsAreChecked) {
  support::EnsureRuntime();
  EXPECT_FAILS(aclrtSynchronizeStreamWithTimeout(nullptr, -2), ACL_ERROR_RT_PARAM_INVALID,
               "aclrtSynchronizeStreamWithTimeout", "timeout -2");
  EXPECT_FAILS(aclrtSynchronizeStreamWithTimeout(nullptr, std::numeric_limits<int32_t>::min()),
               ACL_ERROR_RT_PARAM_INVALID, "aclrtSynchronizeStreamWithTimeout", "timeout -2147483648");
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS) << aclGetRecentErrMsg();
  ASSERT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_FAILS(aclrtSynchronizeStreamWithTimeout(stream, 10), ACL_ERROR_RT_INVALID_HANDLE,
               "aclrtSynchronizeStreamWithTimeout", PtrText(stream), "not a live stream");
  EXPECT_EQ(aclrtSynchronizeStreamWithTimeout(nullptr, -1), ACL_SUCCESS) << aclGetRecentErrMsg();
}

// ---------------------------------------------------------------------------------------------
// Memory: asynchronous memset, the newer copy kinds and allocation policies.

TEST(RuntimeMemsetAsync, RunsInStreamOrder) {
  support::EnsureRuntime();
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS) << aclGetRecentErrMsg();
  void* device = nullptr;
  ASSERT_EQ(aclrtMalloc(&device, 256, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS) << aclGetRecentErrMsg();
  ASSERT_EQ(aclrtMemset(device, 256, 0x11, 256), ACL_SUCCESS) << aclGetRecentErrMsg();
  std::vector<uint8_t> host(256, 0);
  {
    StreamBlocker blocker(stream);
    ASSERT_EQ(blocker.queued(), ACL_SUCCESS) << aclGetRecentErrMsg();
    // Only the low byte of value counts, as for memset; bytes [64, 192) only.
    ASSERT_EQ(aclrtMemsetAsync(static_cast<char*>(device) + 64, 192, 0x1A7, 128, stream), ACL_SUCCESS)
        << aclGetRecentErrMsg();
    ASSERT_EQ(aclrtMemcpyAsync(host.data(), 256, device, 256, ACL_MEMCPY_DEVICE_TO_HOST, stream), ACL_SUCCESS);
    EXPECT_EQ(host, std::vector<uint8_t>(256, 0));  // nothing ran yet
    blocker.Release();
  }
  ASSERT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS) << aclGetRecentErrMsg();
  for (size_t i = 0; i < 256; ++i) {
    EXPECT_EQ(host[i], (i >= 64 && i < 192) ? 0xA7 : 0x11) << i;
  }
  // A count of 0 writes nothing and is no error.
  EXPECT_EQ(aclrtMemsetAsync(device, 256, 0x22, 0, stream), ACL_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
  EXPECT_EQ(aclrtFree(device), ACL_SUCCESS);
}

TEST(RuntimeMemsetAsync, ArgumentsAreChecked) {
  support::EnsureRuntime();
  void* device = nullptr;
  ASSERT_EQ(aclrtMalloc(&device, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS) << aclGetRecentErrMsg();
  ASSERT_EQ(aclrtMemset(device, 64, 0x33, 64), ACL_SUCCESS);
  std::vector<uint8_t> host(64, 0x44);
  EXPECT_FAILS(aclrtMemsetAsync(device, 8, 0, 9, nullptr), ACL_ERROR_INVALID_PARAM, "aclrtMemsetAsync", "count 9",
               "maxCount 8");
  EXPECT_FAILS(aclrtMemsetAsync(host.data(), 64, 0, 64, nullptr), ACL_ERROR_INVALID_PARAM, "aclrtMemsetAsync", "devPtr",
               PtrText(host.data()));
  EXPECT_FAILS(aclrtMemsetAsync(static_cast<char*>(device) + 32, 64, 0, 33, nullptr), ACL_ERROR_INVALID_PARAM,
               "aclrtMemsetAsync", "devPtr", "33 bytes");
  EXPECT_FAILS(aclrtMemsetAsync(nullptr, 64, 0, 64, nullptr), ACL_ERROR_INVALID_PARAM, "aclrtMemsetAsync", "devPtr");
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS) << aclGetRecentErrMsg();
  ASSERT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_FAILS(aclrtMemsetAsync(device, 64, 0, 64, stream), ACL_ERROR_RT_INVALID_HANDLE, "aclrtMemsetAsync",
               PtrText(stream));
  // None of them wrote anything.
  std::vector<uint8_t> back(64, 0);
  ASSERT_EQ(aclrtMemcpy(back.data(), 64, device, 64, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
  EXPECT_EQ(back, std::vector<uint8_t>(64, 0x33));
  EXPECT_EQ(host, std::vector<uint8_t>(64, 0x44));
  EXPECT_EQ(aclrtFree(device), ACL_SUCCESS);
}

TEST(RuntimeMemory, NewerCopyKindsCopyAsTheirNamesSay) {
  support::EnsureRuntime();
  void* a = nullptr;
  void* b = nullptr;
  ASSERT_EQ(aclrtMalloc(&a, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS) << aclGetRecentErrMsg();
  ASSERT_EQ(aclrtMalloc(&b, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS) << aclGetRecentErrMsg();
  std::vector<uint8_t> pattern(64);
  for (size_t i = 0; i < 64; ++i) pattern[i] = static_cast<uint8_t>(200 - i);
  // Through a buffer is host to device.
  ASSERT_EQ(aclrtMemcpy(a, 64, pattern.data(), 64, ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE), ACL_SUCCESS)
      << aclGetRecentErrMsg();
  EXPECT_FAILS(aclrtMemcpy(pattern.data(), 64, a, 64, ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE), ACL_ERROR_INVALID_PARAM,
               "aclrtMemcpy", "dst");
  // Within and between devices are device to device.
  for (aclrtMemcpyKind kind : {ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, ACL_MEMCPY_INTER_DEVICE_TO_DEVICE}) {
    ASSERT_EQ(aclrtMemset(b, 64, 0, 64), ACL_SUCCESS);
    ASSERT_EQ(aclrtMemcpy(b, 64, a, 64, kind), ACL_SUCCESS) << aclGetRecentErrMsg();
    std::vector<uint8_t> back(64, 0);
    ASSERT_EQ(aclrtMemcpyAsync(back.data(), 64, b, 64, ACL_MEMCPY_DEVICE_TO_HOST, nullptr), ACL_SUCCESS);
    ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
    EXPECT_EQ(back, pattern) << kind;
    EXPECT_FAILS(aclrtMemcpy(b, 64, pattern.data(), 64, kind), ACL_ERROR_INVALID_PARAM, "aclrtMemcpy", "src");
  }
  EXPECT_EQ(aclrtFree(a), ACL_SUCCESS);
  EXPECT_EQ(aclrtFree(b), ACL_SUCCESS);
}

TEST(RuntimeMemory, NewerAllocationPoliciesAndTheirFlags) {
  support::EnsureRuntime();
  const int policies[] = {ACL_MEM_MALLOC_HUGE1G_ONLY,
                          ACL_MEM_MALLOC_HUGE1G_ONLY_P2P,
                          ACL_MEM_MALLOC_HUGE_FIRST | ACL_MEM_TYPE_HIGH_BAND_WIDTH,
                          ACL_MEM_MALLOC_NORMAL_ONLY | ACL_MEM_TYPE_LOW_BAND_WIDTH,
                          ACL_MEM_MALLOC_HUGE_ONLY | ACL_MEM_ACCESS_USER_SPACE_READONLY,
                          ACL_MEM_TYPE_HIGH_BAND_WIDTH};
  for (int policy : policies) {
    for (size_t size : {size_t{100}, size_t{3} << 20}) {
      void* ptr = nullptr;
      ASSERT_EQ(aclrtMalloc(&ptr, size, static_cast<aclrtMemMallocPolicy>(policy)), ACL_SUCCESS)
          << policy << ": " << aclGetRecentErrMsg();
      EXPECT_EQ(reinterpret_cast<uintptr_t>(ptr) % 64, 0u);
      EXPECT_EQ(aclrtMemset(ptr, size, 0x7F, size), ACL_SUCCESS) << aclGetRecentErrMsg();
      EXPECT_EQ(aclrtFree(ptr), ACL_SUCCESS);
    }
  }
  void* ptr = nullptr;
  EXPECT_FAILS(aclrtMalloc(&ptr, 64, static_cast<aclrtMemMallocPolicy>(8)), ACL_ERROR_INVALID_PARAM, "aclrtMalloc",
               "policy 8");
  EXPECT_FAILS(aclrtMalloc(&ptr, 64, static_cast<aclrtMemMallocPolicy>(0x200)), ACL_ERROR_INVALID_PARAM, "aclrtMalloc",
               "policy 512");
  EXPECT_EQ(ptr, nullptr);
}

// ---------------------------------------------------------------------------------------------
// What the runtime says about itself and its device.

TEST(RuntimeDevice, RunModeIsHost) {
  aclrtRunMode mode = ACL_DEVICE;
  ASSERT_EQ(aclrtGetRunMode(&mode), ACL_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(mode, ACL_HOST);
  EXPECT_FAILS(aclrtGetRunMode(nullptr), ACL_ERROR_INVALID_PARAM, "aclrtGetRunMode", "runMode is null");
}

TEST(RuntimeDevice, DeviceInfoIsTheHosts) {
  support::EnsureRuntime();
  cpu_set_t set;
  CPU_ZERO(&set);
  ASSERT_EQ(sched_getaffinity(0, sizeof set, &set), 0);
  const int64_t cpus = CPU_COUNT(&set);
  for (aclrtDevAttr attr : {ACL_DEV_ATTR_AICPU_CORE_NUM, ACL_DEV_ATTR_AICORE_CORE_NUM, ACL_DEV_ATTR_CUBE_CORE_NUM,
                            ACL_DEV_ATTR_VECTOR_CORE_NUM}) {
    int64_t value = -1;
    ASSERT_EQ(aclrtGetDeviceInfo(0, attr, &value), ACL_SUCCESS) << aclGetRecentErrMsg();
    EXPECT_EQ(value, cpus) << attr;
  }
  int64_t memory = -1;
  ASSERT_EQ(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_TOTAL_GLOBAL_MEM_SIZE, &memory), ACL_SUCCESS);
  EXPECT_EQ(memory, static_cast<int64_t>(sysconf(_SC_PHYS_PAGES)) * sysconf(_SC_PAGESIZE));
  EXPECT_GT(memory, int64_t{1} << 20);
  int64_t cache = -1;
  ASSERT_EQ(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_L2_CACHE_SIZE, &cache), ACL_SUCCESS);
  EXPECT_GE(cache, 0);
  EXPECT_GE(cache, static_cast<int64_t>(sysconf(_SC_LEVEL3_CACHE_SIZE)));
  for (aclrtDevAttr attr : {ACL_DEV_ATTR_SMP_ID, ACL_DEV_ATTR_PHY_CHIP_ID, ACL_DEV_ATTR_IS_VIRTUAL}) {
    int64_t value = -1;
    ASSERT_EQ(aclrtGetDeviceInfo(0, attr, &value), ACL_SUCCESS) << aclGetRecentErrMsg();
    EXPECT_EQ(value, 0) << attr;
  }
  int64_t value = 77;
  for (aclrtDevAttr attr :
       {ACL_DEV_ATTR_WARP_SIZE, ACL_DEV_ATTR_UBUF_PER_VECTOR_CORE, ACL_DEV_ATTR_SUPER_POD_ID, ACL_DEV_ATTR_NPU_ARCH}) {
    EXPECT_FAILS(aclrtGetDeviceInfo(0, attr, &value), ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "aclrtGetDeviceInfo",
                 "attr " + std::to_string(attr), "not supported");
  }
  EXPECT_FAILS(aclrtGetDeviceInfo(0, static_cast<aclrtDevAttr>(42), &value), ACL_ERROR_INVALID_PARAM,
               "aclrtGetDeviceInfo", "attr 42", "not an aclrtDevAttr");
  EXPECT_FAILS(aclrtGetDeviceInfo(1, ACL_DEV_ATTR_AICORE_CORE_NUM, &value), ACL_ERROR_RT_INVALID_DEVICEID,
               "aclrtGetDeviceInfo", "device id 1");
  EXPECT_FAILS(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_AICORE_CORE_NUM, nullptr), ACL_ERROR_INVALID_PARAM,
               "aclrtGetDeviceInfo", "value is null");
  EXPECT_EQ(value, 77);
}

// aclrtSetSysParamOpt / aclrtGetSysParamOpt as CANN's runtime implements them (hicann/runtime
// src/acl/aclrt_impl/context.cpp, src/runtime/api/api_c.cc): process-wide, 0 until set.
TEST(RuntimeSysParamOpt, DeterministicLevelsAndTheCodesOfBadValues) {
  int64_t value = -1;
  ASSERT_EQ(aclrtGetSysParamOpt(ACL_OPT_ENABLE_KERNEL_EARLY_START, &value), ACL_SUCCESS);
  EXPECT_EQ(value, 0);  // never set here
  for (int64_t level : {3, 2, 1, 0}) {
    ASSERT_EQ(aclrtSetSysParamOpt(ACL_OPT_DETERMINISTIC, level), ACL_SUCCESS) << aclGetRecentErrMsg();
    ASSERT_EQ(aclrtGetSysParamOpt(ACL_OPT_DETERMINISTIC, &value), ACL_SUCCESS);
    EXPECT_EQ(value, level);
  }
  EXPECT_FAILS(aclrtSetSysParamOpt(ACL_OPT_DETERMINISTIC, 4), ACL_ERROR_RT_PARAM_INVALID, "aclrtSetSysParamOpt",
               "value 4", "0 to 3");
  EXPECT_FAILS(aclrtSetSysParamOpt(ACL_OPT_DETERMINISTIC, -1), ACL_ERROR_RT_PARAM_INVALID, "value -1");
  EXPECT_FAILS(aclrtSetSysParamOpt(ACL_OPT_ENABLE_DEBUG_KERNEL, 2), ACL_ERROR_RT_PARAM_INVALID, "0 to 1");
  EXPECT_FAILS(aclrtSetSysParamOpt(static_cast<aclSysParamOpt>(4), 0), ACL_ERROR_INVALID_PARAM, "opt 4");
  EXPECT_FAILS(aclrtGetSysParamOpt(static_cast<aclSysParamOpt>(-1), &value), ACL_ERROR_INVALID_PARAM, "opt -1");
  EXPECT_FAILS(aclrtGetSysParamOpt(ACL_OPT_DETERMINISTIC, nullptr), ACL_ERROR_INVALID_PARAM, "value is null");
  ASSERT_EQ(aclrtGetSysParamOpt(ACL_OPT_DETERMINISTIC, &value), ACL_SUCCESS);
  EXPECT_EQ(value, 0);  // failed calls changed nothing
}

TEST(RuntimeDevice, SocNameIsAnAtlasA2NameUnlessTheEnvironmentChoosesOne) {
  const char* name = aclrtGetSocName();
  ASSERT_NE(name, nullptr);
  const char* chosen = std::getenv("ACLNN_CPU_SOC_NAME");
  EXPECT_STREQ(name, chosen != nullptr && chosen[0] != '\0' ? chosen : "Ascend910B3");
  EXPECT_EQ(aclrtGetSocName(), name);  // one name for the whole run
}

// ---------------------------------------------------------------------------------------------
// FLOAT16 conversions: exact, round to nearest even, saturating as CANN documents.

TEST(RuntimeFloat16, EveryPatternWidensExactlyOrAsCannReadsTheTopExponent) {
  for (uint32_t bits = 0; bits <= 0xffff; ++bits) {
    const uint16_t half = static_cast<uint16_t>(bits);
    const float value = aclFloat16ToFloat(half);
    if ((half & 0x7c00u) == 0x7c00u) {
      const float magnitude = std::ldexp(1.0f + static_cast<float>(half & 0x3ffu) / 1024.0f, 16);
      EXPECT_EQ(value, (half & 0x8000u) ? -magnitude : magnitude) << std::hex << bits;
    } else {
      EXPECT_EQ(aclcpu::kernel::FloatBits(value),
                aclcpu::kernel::FloatBits(golden::Widen(golden::Dtype::kFloat16, half)))
          << std::hex << bits;
      // And narrowing gives the pattern back.
      EXPECT_EQ(aclFloatToFloat16(value), half) << std::hex << bits;
    }
  }
}

// The golden's independent rounding, with CANN's saturation where it gives an infinity or a NaN.
uint16_t ExpectedHalf(float value) {
  const uint16_t rounded = static_cast<uint16_t>(golden::Narrow(golden::Dtype::kFloat16, value));
  if ((rounded & 0x7c00u) == 0x7c00u) {
    return static_cast<uint16_t>((std::signbit(value) ? 0x8000u : 0u) | 0x7bffu);
  }
  return rounded;
}

TEST(RuntimeFloat16, NarrowingRoundsToNearestEvenAndSaturates) {
  // Every halfway case between two FLOAT16 values, and its neighbours.
  for (uint32_t bits = 0; bits < 0x7c00; ++bits) {
    const float low = golden::Widen(golden::Dtype::kFloat16, bits);
    const float high = golden::Widen(golden::Dtype::kFloat16, bits + 1);
    const float mid = low + (high - low) / 2;  // exact in float32
    for (float x : {mid, std::nextafter(mid, 0.0f), std::nextafter(mid, 1e9f)}) {
      EXPECT_EQ(aclFloatToFloat16(x), ExpectedHalf(x)) << std::hexfloat << x;
      EXPECT_EQ(aclFloatToFloat16(-x), ExpectedHalf(-x)) << std::hexfloat << -x;
    }
  }
  EXPECT_EQ(aclFloatToFloat16(65519.0f), 0x7BFF);  // rounds down to the largest value
  EXPECT_EQ(aclFloatToFloat16(65520.0f), 0x7BFF);  // would round to infinity: saturates
  EXPECT_EQ(aclFloatToFloat16(-65520.0f), 0xFBFF);
  EXPECT_EQ(aclFloatToFloat16(-std::numeric_limits<float>::quiet_NaN()), 0xFBFF);
  EXPECT_EQ(aclFloatToFloat16(5.9604644775390625e-8f), 0x0001);   // the smallest subnormal
  EXPECT_EQ(aclFloatToFloat16(2.98023223876953125e-8f), 0x0000);  // half of it: ties to even (zero)
  EXPECT_EQ(aclFloatToFloat16(-0.0f), 0x8000);
  // A million patterns across the whole float range.
  std::mt19937 rng(12);
  for (int i = 0; i < 1000000; ++i) {
    const float x = aclcpu::kernel::BitsToFloat(static_cast<uint32_t>(rng()));
    EXPECT_EQ(aclFloatToFloat16(x), ExpectedHalf(x)) << std::hexfloat << x;
  }
}

}  // namespace
