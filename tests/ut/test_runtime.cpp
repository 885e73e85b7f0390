// Unit tests of the runtime slice (acl.h / acl_rt.h): the process-global init / device / finalize
// life cycle, device and host memory, in-order streams, events across streams, several host
// threads at once, and the per-thread error message. Everything goes through the public C API.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <future>
#include <initializer_list>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "acl/acl.h"
#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_mse_loss_backward.h"
#include "runtime/runtime_internal.h"
#include "support/api_support.h"
#include "support/expect_error.h"
#include "support/raw_tensor.h"

namespace {

using support::MessageMentions;
using support::PtrText;

std::vector<uint8_t> Pattern(size_t bytes, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> data(bytes);
  for (uint8_t& b : data) b = static_cast<uint8_t>(rng());
  return data;
}

// One aclrtMalloc allocation, freed on destruction unless released by hand.
class DeviceBuffer {
 public:
  explicit DeviceBuffer(size_t bytes) : bytes_(bytes) {
    support::EnsureRuntime();
    const aclError code = aclrtMalloc(&ptr_, bytes, ACL_MEM_MALLOC_HUGE_FIRST);
    EXPECT_EQ(code, ACL_SUCCESS) << aclGetRecentErrMsg();
    if (code != ACL_SUCCESS) ptr_ = nullptr;
  }
  ~DeviceBuffer() {
    if (ptr_ != nullptr) {
      EXPECT_EQ(aclrtFree(ptr_), ACL_SUCCESS) << aclGetRecentErrMsg();
    }
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  void* get() const { return ptr_; }
  char* at(size_t offset) const { return static_cast<char*>(ptr_) + offset; }
  size_t size() const { return bytes_; }
  // Frees the allocation now (the destructor then does nothing).
  aclError Free() {
    const aclError code = aclrtFree(ptr_);
    ptr_ = nullptr;
    return code;
  }

  std::vector<uint8_t> Read() const {
    std::vector<uint8_t> host(bytes_, 0);
    EXPECT_EQ(aclrtMemcpy(host.data(), host.size(), ptr_, bytes_, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS)
        << aclGetRecentErrMsg();
    return host;
  }
  void Write(const std::vector<uint8_t>& host) {
    ASSERT_EQ(host.size(), bytes_);
    EXPECT_EQ(aclrtMemcpy(ptr_, bytes_, host.data(), host.size(), ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS)
        << aclGetRecentErrMsg();
  }

 private:
  void* ptr_ = nullptr;
  size_t bytes_ = 0;
};

std::vector<uint32_t> RandomFloats(int64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  return support::RandomBits(ACL_FLOAT, n, support::ValueClass::kNormal, rng);
}

std::vector<uint32_t> BytesToWords(const std::vector<uint8_t>& bytes) {
  std::vector<uint32_t> words(bytes.size() / 4, 0);
  std::memcpy(words.data(), bytes.data(), words.size() * 4);
  return words;
}

// ---------------------------------------------------------------------------------------------
// Life cycle. Runs first (definition order) and leaves the runtime initialized with device 0 set.

TEST(RuntimeLifecycle, InitFinalizeLifecycle) {
  support::EnsureRuntime();
  support::RuntimeRestorer restorer;

  EXPECT_FAILS(aclInit(nullptr), ACL_ERROR_REPEAT_INITIALIZE, "aclInit", "already initialized");
  EXPECT_FAILS(aclInit("/nonexistent/aclnn-cpu/acl.json"), ACL_ERROR_INVALID_FILE, "aclInit",
               "/nonexistent/aclnn-cpu/acl.json");

  int32_t device = -1;
  ASSERT_EQ(aclrtGetDevice(&device), ACL_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(device, 0);
  uint32_t count = 0;
  ASSERT_EQ(aclrtGetDeviceCount(&count), ACL_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(count, 1u);
  EXPECT_FAILS(aclrtGetDevice(nullptr), ACL_ERROR_INVALID_PARAM, "aclrtGetDevice", "deviceId");
  EXPECT_FAILS(aclrtGetDeviceCount(nullptr), ACL_ERROR_INVALID_PARAM, "aclrtGetDeviceCount", "count");
  EXPECT_FAILS(aclrtSetDevice(1), ACL_ERROR_RT_INVALID_DEVICEID, "aclrtSetDevice", "device id 1");
  EXPECT_FAILS(aclrtSetDevice(-1), ACL_ERROR_RT_INVALID_DEVICEID, "aclrtSetDevice", "device id -1");
  EXPECT_FAILS(aclrtResetDevice(1), ACL_ERROR_RT_INVALID_DEVICEID, "aclrtResetDevice", "device id 1");

  // One more reference: a reset then leaves the device (and its streams) alive.
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS) << aclGetRecentErrMsg();
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS) << aclGetRecentErrMsg();
  aclrtEvent event = nullptr;
  ASSERT_EQ(aclrtCreateEvent(&event), ACL_SUCCESS) << aclGetRecentErrMsg();
  ASSERT_EQ(aclrtResetDevice(0), ACL_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(aclrtSynchronizeEvent(event), ACL_SUCCESS) << aclGetRecentErrMsg();
  device = -1;
  EXPECT_EQ(aclrtGetDevice(&device), ACL_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(device, 0);

  // Work queued on the created stream and on the default stream, into plain host memory; the last
  // reset must run it before it returns.
  const size_t bytes = size_t{1} << 20;
  const std::vector<uint8_t> pattern = Pattern(bytes, 11);
  std::vector<uint8_t> host_a(bytes, 0);
  std::vector<uint8_t> host_b(bytes, 0);
  {
    DeviceBuffer source(bytes);
    source.Write(pattern);
    ASSERT_EQ(aclrtMemcpyAsync(host_a.data(), bytes, source.get(), bytes, ACL_MEMCPY_DEVICE_TO_HOST, stream),
              ACL_SUCCESS)
        << aclGetRecentErrMsg();
    ASSERT_EQ(aclrtMemcpyAsync(host_b.data(), bytes, source.get(), bytes, ACL_MEMCPY_DEVICE_TO_HOST, nullptr),
              ACL_SUCCESS)
        << aclGetRecentErrMsg();
    ASSERT_EQ(aclrtRecordEvent(event, stream), ACL_SUCCESS) << aclGetRecentErrMsg();

    int resets = 0;
    aclError last = ACL_SUCCESS;
    while (resets < 1000 && (last = aclrtResetDevice(0)) == ACL_SUCCESS) ++resets;
    EXPECT_GE(resets, 1);
    EXPECT_EQ(last, ACL_ERROR_RT_CONTEXT_NULL);
    EXPECT_TRUE(MessageMentions({"aclrtResetDevice", "not set"}));
    // No synchronize: the reset itself drained both streams.
    EXPECT_TRUE(host_a == pattern);
    EXPECT_TRUE(host_b == pattern);
  }  // aclrtFree needs no device

  // No device: the stream handle cannot be used, nothing that needs the device works.
  EXPECT_FAILS(aclrtSynchronizeStream(stream), ACL_ERROR_RT_CONTEXT_NULL, "aclrtSynchronizeStream", "aclrtSetDevice");
  EXPECT_FAILS(aclrtSynchronizeStream(nullptr), ACL_ERROR_RT_CONTEXT_NULL, "aclrtSynchronizeStream", "no device");
  EXPECT_FAILS(aclrtGetDevice(&device), ACL_ERROR_RT_CONTEXT_NULL, "aclrtGetDevice", "no device");
  void* ptr = nullptr;
  EXPECT_FAILS(aclrtMalloc(&ptr, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_RT_CONTEXT_NULL, "aclrtMalloc", "no device");
  EXPECT_EQ(ptr, nullptr);
  aclrtStream no_stream = nullptr;
  EXPECT_FAILS(aclrtCreateStream(&no_stream), ACL_ERROR_RT_CONTEXT_NULL, "aclrtCreateStream", "no device");
  EXPECT_EQ(no_stream, nullptr);
  // The last reset released the events too (events need only aclInit, so this is a handle error).
  EXPECT_FAILS(aclrtSynchronizeEvent(event), ACL_ERROR_RT_INVALID_HANDLE, "aclrtSynchronizeEvent", PtrText(event),
               "not a live event");
  EXPECT_EQ(aclrtGetDeviceCount(&count), ACL_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(count, 1u);

  // The device back: the old stream and event stay dead.
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_FAILS(aclrtSynchronizeStream(stream), ACL_ERROR_RT_INVALID_HANDLE, "aclrtSynchronizeStream", PtrText(stream),
               "not a live stream");
  EXPECT_FAILS(aclrtDestroyStream(stream), ACL_ERROR_RT_INVALID_HANDLE, "aclrtDestroyStream", PtrText(stream));
  EXPECT_FAILS(aclrtDestroyEvent(event), ACL_ERROR_RT_INVALID_HANDLE, "aclrtDestroyEvent", PtrText(event));
  EXPECT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS) << aclGetRecentErrMsg();

  // An executor made while the runtime runs, launched after aclFinalize.
  const std::vector<int64_t> shape = {4, 5};
  support::DeviceTensor grad(ACL_FLOAT, shape, support::Layout::kContiguous);
  support::DeviceTensor self(ACL_FLOAT, shape, support::Layout::kContiguous);
  support::DeviceTensor target(ACL_FLOAT, shape, support::Layout::kContiguous);
  support::DeviceTensor out(ACL_FLOAT, shape, support::Layout::kContiguous);
  grad.Write(RandomFloats(20, 1));
  self.Write(RandomFloats(20, 2));
  target.Write(RandomFloats(20, 3));
  const golden::Tensor expected = golden::MseLossGrad(grad.ToGoldenTensor(), self.ToGoldenTensor(),
                                                      target.ToGoldenTensor(), 1, golden::Dtype::kFloat32);
  uint64_t workspace_size = 99;
  aclOpExecutor* executor = nullptr;
  ASSERT_EQ(aclnnMseLossBackwardGetWorkspaceSize(grad.get(), self.get(), target.get(), 1, out.get(), &workspace_size,
                                                 &executor),
            ACLNN_SUCCESS)
      << aclGetRecentErrMsg();
  ASSERT_NE(executor, nullptr);
  EXPECT_EQ(workspace_size, 0u);

  ASSERT_EQ(aclFinalize(), ACL_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_FAILS(aclFinalize(), ACL_ERROR_REPEAT_FINALIZE, "aclFinalize", "already finalized");
  EXPECT_FAILS(aclrtMalloc(&ptr, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_UNINITIALIZE, "aclrtMalloc", "aclInit");
  EXPECT_EQ(ptr, nullptr);
  EXPECT_FAILS(aclrtSetDevice(0), ACL_ERROR_UNINITIALIZE, "aclrtSetDevice", "aclInit");
  EXPECT_FAILS(aclrtGetDeviceCount(&count), ACL_ERROR_UNINITIALIZE, "aclrtGetDeviceCount", "aclInit");
  EXPECT_FAILS(aclrtSynchronizeStream(nullptr), ACL_ERROR_UNINITIALIZE, "aclrtSynchronizeStream", "aclInit");
  aclrtEvent no_event = nullptr;
  EXPECT_FAILS(aclrtCreateEvent(&no_event), ACL_ERROR_UNINITIALIZE, "aclrtCreateEvent", "aclInit");
  EXPECT_FAILS(aclnnMseLossBackward(nullptr, 0, executor, nullptr), ACLNN_ERR_RUNTIME_ERROR, "aclnnMseLossBackward",
               "cannot queue", "aclInit");

  // Restore; the failed launch did not consume the one-shot executor, so it runs now.
  ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS) << aclGetRecentErrMsg();
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS) << aclGetRecentErrMsg();
  device = -1;
  EXPECT_EQ(aclrtGetDevice(&device), ACL_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(device, 0);
  ASSERT_EQ(aclnnMseLossBackward(nullptr, 0, executor, nullptr), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(support::CompareBits(golden::Dtype::kFloat32, expected.bits, out.Read()), "");
}

// ---------------------------------------------------------------------------------------------
// Device memory.

TEST(RuntimeMemory, MallocAlignsAndValidates) {
  support::EnsureRuntime();
  for (size_t size : {size_t{1}, size_t{3}, size_t{63}, size_t{64}, size_t{65}, size_t{1000}, size_t{4097}}) {
    void* ptr = nullptr;
    ASSERT_EQ(aclrtMalloc(&ptr, size, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS) << aclGetRecentErrMsg();
    ASSERT_NE(ptr, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(ptr) % 64, 0u) << "size " << size;
    // Exactly size bytes belong to the allocation.
    EXPECT_EQ(aclrtMemset(ptr, size, 0x11, size), ACL_SUCCESS) << aclGetRecentErrMsg();
    EXPECT_FAILS(aclrtMemset(ptr, size + 1, 0x11, size + 1), ACL_ERROR_INVALID_PARAM, "aclrtMemset",
                 std::to_string(size + 1) + " bytes");
    EXPECT_EQ(aclrtFree(ptr), ACL_SUCCESS) << aclGetRecentErrMsg();
  }
  for (int policy = ACL_MEM_MALLOC_HUGE_FIRST; policy <= ACL_MEM_MALLOC_HUGE1G_ONLY_P2P; ++policy) {
    void* ptr = nullptr;
    ASSERT_EQ(aclrtMalloc(&ptr, 128, static_cast<aclrtMemMallocPolicy>(policy)), ACL_SUCCESS) << aclGetRecentErrMsg();
    EXPECT_EQ(reinterpret_cast<uintptr_t>(ptr) % 64, 0u);
    EXPECT_EQ(aclrtFree(ptr), ACL_SUCCESS) << aclGetRecentErrMsg();
  }

  void* ptr = nullptr;
  EXPECT_FAILS(aclrtMalloc(&ptr, 0, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM, "aclrtMalloc", "size is 0");
  EXPECT_EQ(ptr, nullptr);
  EXPECT_FAILS(aclrtMalloc(nullptr, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM, "aclrtMalloc", "devPtr");
  EXPECT_FAILS(aclrtMalloc(&ptr, 64, static_cast<aclrtMemMallocPolicy>(99)), ACL_ERROR_INVALID_PARAM, "aclrtMalloc",
               "policy 99");
  EXPECT_EQ(ptr, nullptr);
  const size_t huge = size_t{1} << 50;
  EXPECT_FAILS(aclrtMalloc(&ptr, huge, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_RT_MEMORY_ALLOCATION, "aclrtMalloc",
               std::to_string(huge));
  EXPECT_EQ(ptr, nullptr);
  EXPECT_FAILS(aclrtMalloc(&ptr, SIZE_MAX, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_RT_MEMORY_ALLOCATION, "aclrtMalloc",
               "too large");
  EXPECT_EQ(ptr, nullptr);

  // Still usable after the failures.
  DeviceBuffer buffer(256);
  ASSERT_NE(buffer.get(), nullptr);
  const std::vector<uint8_t> data = Pattern(256, 5);
  buffer.Write(data);
  EXPECT_TRUE(buffer.Read() == data);
}

TEST(RuntimeMemory, FreeRejectsWhatIsNotAnAllocation) {
  support::EnsureRuntime();
  int local = 0;
  EXPECT_FAILS(aclrtFree(&local), ACL_ERROR_INVALID_PARAM, "aclrtFree", PtrText(&local));
  EXPECT_FAILS(aclrtFree(nullptr), ACL_ERROR_INVALID_PARAM, "aclrtFree", "null");

  void* ptr = nullptr;
  ASSERT_EQ(aclrtMalloc(&ptr, 256, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS) << aclGetRecentErrMsg();
  char* middle = static_cast<char*>(ptr) + 16;
  EXPECT_FAILS(aclrtFree(middle), ACL_ERROR_INVALID_PARAM, "aclrtFree", PtrText(middle), "not the start");
  // The failed free left the allocation alone.
  EXPECT_EQ(aclrtMemset(ptr, 256, 0, 256), ACL_SUCCESS) << aclGetRecentErrMsg();

  void* host = nullptr;
  ASSERT_EQ(aclrtMallocHost(&host, 64), ACL_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_FAILS(aclrtFree(host), ACL_ERROR_INVALID_PARAM, "aclrtFree", PtrText(host));
  EXPECT_EQ(aclrtFreeHost(host), ACL_SUCCESS) << aclGetRecentErrMsg();

  ASSERT_EQ(aclrtFree(ptr), ACL_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_FAILS(aclrtFree(ptr), ACL_ERROR_INVALID_PARAM, "aclrtFree", PtrText(ptr));
  // And the freed memory is no longer device memory.
  std::vector<uint8_t> sink(16, 0);
  EXPECT_FAILS(aclrtMemcpy(sink.data(), sink.size(), ptr, 16, ACL_MEMCPY_DEVICE_TO_HOST), ACL_ERROR_INVALID_PARAM,
               "aclrtMemcpy", "src", PtrText(ptr));
}

TEST(RuntimeMemory, MemcpyValidatesArguments) {
  support::EnsureRuntime();
  DeviceBuffer device(256);
  DeviceBuffer other(256);
  const std::vector<uint8_t> original = Pattern(256, 7);
  device.Write(original);
  std::vector<uint8_t> host(512, 0xEE);
  std::vector<uint8_t> host2(512, 0xDD);

  EXPECT_FAILS(aclrtMemcpy(device.get(), 128, host.data(), 129, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_INVALID_PARAM,
               "aclrtMemcpy", "count 129", "destMax 128");
  // Every value an aclrtMemcpyKind can hold (0 to 7) is a kind: 7 copies between devices, so both
  // sides must be device memory.
  EXPECT_FAILS(aclrtMemcpy(device.get(), 256, host.data(), 16, ACL_MEMCPY_INTER_DEVICE_TO_DEVICE),
               ACL_ERROR_INVALID_PARAM, "aclrtMemcpy", "src", PtrText(host.data()));
  EXPECT_FAILS(aclrtMemcpy(host2.data(), 512, host.data(), 16, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_INVALID_PARAM,
               "aclrtMemcpy", "dst", PtrText(host2.data()));
  EXPECT_FAILS(aclrtMemcpy(device.get(), 256, other.get(), 16, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_INVALID_PARAM,
               "aclrtMemcpy", "src", "device memory");
  EXPECT_FAILS(aclrtMemcpy(host.data(), 512, device.at(200), 100, ACL_MEMCPY_DEVICE_TO_HOST), ACL_ERROR_INVALID_PARAM,
               "aclrtMemcpy", "src", PtrText(device.at(200)), "100 bytes");
  EXPECT_FAILS(aclrtMemcpy(host.data(), 512, device.get(), 257, ACL_MEMCPY_DEVICE_TO_HOST), ACL_ERROR_INVALID_PARAM,
               "aclrtMemcpy", "src", "257 bytes");
  EXPECT_FAILS(aclrtMemcpy(host.data(), 512, host2.data(), 16, ACL_MEMCPY_DEVICE_TO_HOST), ACL_ERROR_INVALID_PARAM,
               "aclrtMemcpy", "src", PtrText(host2.data()));
  EXPECT_FAILS(aclrtMemcpy(other.at(128), 256, device.get(), 256, ACL_MEMCPY_DEVICE_TO_DEVICE), ACL_ERROR_INVALID_PARAM,
               "aclrtMemcpy", "dst", PtrText(other.at(128)));
  EXPECT_FAILS(aclrtMemcpy(nullptr, 16, host.data(), 16, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_INVALID_PARAM,
               "aclrtMemcpy", "dst is null");
  EXPECT_FAILS(aclrtMemcpy(device.get(), 16, nullptr, 16, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_INVALID_PARAM,
               "aclrtMemcpy", "src is null");
  EXPECT_FAILS(aclrtMemcpyAsync(device.get(), 8, host.data(), 9, ACL_MEMCPY_HOST_TO_DEVICE, nullptr),
               ACL_ERROR_INVALID_PARAM, "aclrtMemcpyAsync", "count 9", "destMax 8");
  EXPECT_FAILS(aclrtMemcpyAsync(device.get(), 256, host.data(), 16, ACL_MEMCPY_INTER_DEVICE_TO_DEVICE, nullptr),
               ACL_ERROR_INVALID_PARAM, "aclrtMemcpyAsync", "src", PtrText(host.data()));

  // None of the failed copies wrote anything.
  EXPECT_TRUE(device.Read() == original);
  EXPECT_EQ(host, std::vector<uint8_t>(512, 0xEE));
  EXPECT_EQ(host2, std::vector<uint8_t>(512, 0xDD));
}

TEST(RuntimeMemory, MemcpyRoundTripsInEveryDirection) {
  support::EnsureRuntime();
  const size_t bytes = 1000;
  DeviceBuffer a(bytes);
  DeviceBuffer b(bytes);
  const std::vector<uint8_t> first = Pattern(bytes, 21);

  ASSERT_EQ(aclrtMemcpy(a.get(), bytes, first.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS)
      << aclGetRecentErrMsg();
  std::vector<uint8_t> back(bytes, 0);
  ASSERT_EQ(aclrtMemcpy(back.data(), bytes, a.get(), bytes, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS)
      << aclGetRecentErrMsg();
  EXPECT_TRUE(back == first);

  ASSERT_EQ(aclrtMemcpy(b.get(), bytes, a.get(), bytes, ACL_MEMCPY_DEVICE_TO_DEVICE), ACL_SUCCESS)
      << aclGetRecentErrMsg();
  EXPECT_TRUE(b.Read() == first);

  // A part of an allocation, at an offset.
  const std::vector<uint8_t> piece = Pattern(50, 22);
  ASSERT_EQ(aclrtMemcpy(a.at(100), bytes - 100, piece.data(), piece.size(), ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS)
      << aclGetRecentErrMsg();
  std::vector<uint8_t> expected = first;
  std::memcpy(expected.data() + 100, piece.data(), piece.size());
  EXPECT_TRUE(a.Read() == expected);

  // count 0 copies nothing.
  ASSERT_EQ(aclrtMemcpy(a.get(), bytes, piece.data(), 0, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS)
      << aclGetRecentErrMsg();
  EXPECT_TRUE(a.Read() == expected);

  // ACL_MEMCPY_DEFAULT finds the direction from the pointers.
  const std::vector<uint8_t> second = Pattern(bytes, 23);
  ASSERT_EQ(aclrtMemcpy(a.get(), bytes, second.data(), bytes, ACL_MEMCPY_DEFAULT), ACL_SUCCESS) << aclGetRecentErrMsg();
  std::vector<uint8_t> via_default(bytes, 0);
  ASSERT_EQ(aclrtMemcpy(via_default.data(), bytes, a.get(), bytes, ACL_MEMCPY_DEFAULT), ACL_SUCCESS)
      << aclGetRecentErrMsg();
  EXPECT_TRUE(via_default == second);
  ASSERT_EQ(aclrtMemcpy(b.get(), bytes, a.get(), bytes, ACL_MEMCPY_DEFAULT), ACL_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_TRUE(b.Read() == second);
  std::vector<uint8_t> host_copy(bytes, 0);
  ASSERT_EQ(aclrtMemcpy(host_copy.data(), bytes, first.data(), bytes, ACL_MEMCPY_DEFAULT), ACL_SUCCESS)
      << aclGetRecentErrMsg();
  EXPECT_TRUE(host_copy == first);

  // HOST_TO_HOST, and host pointers from aclrtMallocHost count as host memory.
  void* pinned = nullptr;
  ASSERT_EQ(aclrtMallocHost(&pinned, bytes), ACL_SUCCESS) << aclGetRecentErrMsg();
  ASSERT_EQ(aclrtMemcpy(pinned, bytes, second.data(), bytes, ACL_MEMCPY_HOST_TO_HOST), ACL_SUCCESS)
      << aclGetRecentErrMsg();
  EXPECT_EQ(std::memcmp(pinned, second.data(), bytes), 0);
  EXPECT_EQ(aclrtFreeHost(pinned), ACL_SUCCESS) << aclGetRecentErrMsg();
}

TEST(RuntimeMemory, MemsetSetsBytesInsideAnAllocationOnly) {
  support::EnsureRuntime();
  DeviceBuffer buffer(100);
  ASSERT_EQ(aclrtMemset(buffer.get(), 100, 0xAB, 100), ACL_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(buffer.Read(), std::vector<uint8_t>(100, 0xAB));

  ASSERT_EQ(aclrtMemset(buffer.at(10), 90, 0x01, 20), ACL_SUCCESS) << aclGetRecentErrMsg();
  std::vector<uint8_t> expected(100, 0xAB);
  for (size_t i = 10; i < 30; ++i) expected[i] = 0x01;
  EXPECT_EQ(buffer.Read(), expected);

  // The value is converted to unsigned char, as memset does.
  ASSERT_EQ(aclrtMemset(buffer.at(90), 10, 0x1FF, 10), ACL_SUCCESS) << aclGetRecentErrMsg();
  for (size_t i = 90; i < 100; ++i) expected[i] = 0xFF;
  EXPECT_EQ(buffer.Read(), expected);

  EXPECT_FAILS(aclrtMemset(buffer.get(), 100, 0, 101), ACL_ERROR_INVALID_PARAM, "aclrtMemset", "count 101",
               "maxCount 100");
  EXPECT_FAILS(aclrtMemset(buffer.at(50), 100, 0, 51), ACL_ERROR_INVALID_PARAM, "aclrtMemset", "devPtr",
               PtrText(buffer.at(50)));
  std::vector<uint8_t> host(16, 0x33);
  EXPECT_FAILS(aclrtMemset(host.data(), 16, 0, 16), ACL_ERROR_INVALID_PARAM, "aclrtMemset", "devPtr",
               PtrText(host.data()));
  EXPECT_FAILS(aclrtMemset(nullptr, 16, 0, 16), ACL_ERROR_INVALID_PARAM, "aclrtMemset", "devPtr");
  EXPECT_EQ(buffer.Read(), expected);
  EXPECT_EQ(host, std::vector<uint8_t>(16, 0x33));
}

TEST(RuntimeMemory, MallocHostAndFreeHost) {
  support::EnsureRuntime();
  const size_t bytes = 512;
  void* host = nullptr;
  void* host_back = nullptr;
  ASSERT_EQ(aclrtMallocHost(&host, bytes), ACL_SUCCESS) << aclGetRecentErrMsg();
  ASSERT_EQ(aclrtMallocHost(&host_back, bytes), ACL_SUCCESS) << aclGetRecentErrMsg();
  ASSERT_NE(host, nullptr);
  ASSERT_NE(host_back, nullptr);
  const std::vector<uint8_t> data = Pattern(bytes, 31);
  std::memcpy(host, data.data(), bytes);
  std::memset(host_back, 0, bytes);

  DeviceBuffer device(bytes);
  ASSERT_EQ(aclrtMemcpy(device.get(), bytes, host, bytes, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS)
      << aclGetRecentErrMsg();
  ASSERT_EQ(aclrtMemcpy(host_back, bytes, device.get(), bytes, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS)
      << aclGetRecentErrMsg();
  EXPECT_EQ(std::memcmp(host_back, data.data(), bytes), 0);

  EXPECT_FAILS(aclrtFreeHost(device.get()), ACL_ERROR_INVALID_PARAM, "aclrtFreeHost", PtrText(device.get()));
  int local = 0;
  EXPECT_FAILS(aclrtFreeHost(&local), ACL_ERROR_INVALID_PARAM, "aclrtFreeHost", PtrText(&local));
  EXPECT_FAILS(aclrtFreeHost(static_cast<char*>(host) + 8), ACL_ERROR_INVALID_PARAM, "aclrtFreeHost",
               PtrText(static_cast<char*>(host) + 8));
  EXPECT_FAILS(aclrtFreeHost(nullptr), ACL_ERROR_INVALID_PARAM, "aclrtFreeHost", "not a live aclrtMallocHost");
  void* none = nullptr;
  EXPECT_FAILS(aclrtMallocHost(nullptr, 8), ACL_ERROR_INVALID_PARAM, "aclrtMallocHost", "hostPtr is null");
  EXPECT_FAILS(aclrtMallocHost(&none, 0), ACL_ERROR_INVALID_PARAM, "aclrtMallocHost", "size is 0");
  EXPECT_EQ(none, nullptr);

  EXPECT_EQ(aclrtFreeHost(host), ACL_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_FAILS(aclrtFreeHost(host), ACL_ERROR_INVALID_PARAM, "aclrtFreeHost", PtrText(host));
  EXPECT_EQ(aclrtFreeHost(host_back), ACL_SUCCESS) << aclGetRecentErrMsg();
}

TEST(RuntimeMemory, SynchronousCopyWaitsForQueuedWorkOnItsMemory) {
  support::EnsureRuntime();
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS) << aclGetRecentErrMsg();
  const size_t bytes = size_t{4} << 20;
  DeviceBuffer a(bytes);
  DeviceBuffer b(bytes);
  const std::vector<uint8_t> pattern = Pattern(bytes, 41);
  a.Write(pattern);
  ASSERT_EQ(aclrtMemset(b.get(), bytes, 0, bytes), ACL_SUCCESS) << aclGetRecentErrMsg();
  // A few copies a -> b -> a ..., ending in b; then a synchronous read of b without any synchronize.
  for (int i = 0; i < 9; ++i) {
    void* dst = i % 2 == 0 ? b.get() : a.get();
    void* src = i % 2 == 0 ? a.get() : b.get();
    ASSERT_EQ(aclrtMemcpyAsync(dst, bytes, src, bytes, ACL_MEMCPY_DEVICE_TO_DEVICE, stream), ACL_SUCCESS)
        << aclGetRecentErrMsg();
  }
  std::vector<uint8_t> host(bytes, 0);
  ASSERT_EQ(aclrtMemcpy(host.data(), bytes, b.get(), bytes, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS)
      << aclGetRecentErrMsg();
  EXPECT_TRUE(host == pattern);
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS) << aclGetRecentErrMsg();
}

// ---------------------------------------------------------------------------------------------
// Streams.

TEST(RuntimeStream, WorkOnOneStreamRunsInOrder) {
  support::EnsureRuntime();
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS) << aclGetRecentErrMsg();

  // 200 different host values through one device buffer, each read back right after it was written.
  const int kCopies = 200;
  const size_t words = 256;
  const size_t bytes = words * sizeof(uint32_t);
  std::vector<std::vector<uint32_t>> values(kCopies, std::vector<uint32_t>(words, 0));
  std::vector<std::vector<uint32_t>> seen(kCopies, std::vector<uint32_t>(words, 0));
  for (int k = 0; k < kCopies; ++k) {
    for (size_t j = 0; j < words; ++j) values[k][j] = static_cast<uint32_t>(k * 100000 + j);
  }
  DeviceBuffer device(bytes);
  for (int k = 0; k < kCopies; ++k) {
    ASSERT_EQ(aclrtMemcpyAsync(device.get(), bytes, values[k].data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE, stream),
              ACL_SUCCESS)
        << aclGetRecentErrMsg();
    ASSERT_EQ(aclrtMemcpyAsync(seen[k].data(), bytes, device.get(), bytes, ACL_MEMCPY_DEVICE_TO_HOST, stream),
              ACL_SUCCESS)
        << aclGetRecentErrMsg();
  }
  ASSERT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS) << aclGetRecentErrMsg();
  for (int k = 0; k < kCopies; ++k) EXPECT_EQ(seen[k], values[k]) << "copy " << k;
  EXPECT_EQ(BytesToWords(device.Read()), values[kCopies - 1]);

  // A chain of 200 device-to-device copies, buffer k -> buffer k + 1; the others start zeroed.
  const size_t chain_bytes = 4096;
  std::vector<std::unique_ptr<DeviceBuffer>> chain;
  for (int k = 0; k <= kCopies; ++k) {
    chain.push_back(std::make_unique<DeviceBuffer>(chain_bytes));
    ASSERT_EQ(aclrtMemset(chain.back()->get(), chain_bytes, 0, chain_bytes), ACL_SUCCESS) << aclGetRecentErrMsg();
  }
  const std::vector<uint8_t> pattern = Pattern(chain_bytes, 51);
  chain[0]->Write(pattern);
  for (int k = 0; k < kCopies; ++k) {
    ASSERT_EQ(aclrtMemcpyAsync(chain[k + 1]->get(), chain_bytes, chain[k]->get(), chain_bytes,
                               ACL_MEMCPY_DEVICE_TO_DEVICE, stream),
              ACL_SUCCESS)
        << aclGetRecentErrMsg();
  }
  ASSERT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_TRUE(chain[kCopies]->Read() == pattern);
  EXPECT_TRUE(chain[kCopies / 2]->Read() == pattern);
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS) << aclGetRecentErrMsg();
}

// A task that counts how many run at once and says when it has run.
class WatchedTask final : public aclcpu::StreamTask {
 public:
  WatchedTask(std::atomic<int>* running, std::atomic<int>* overlaps, std::atomic<bool>* done)
      : running_(running), overlaps_(overlaps), done_(done) {}
  void Run() override {
    if (running_->fetch_add(1) != 0) overlaps_->fetch_add(1);
    for (volatile int spin = 0; spin < 200; spin = spin + 1) {
    }
    running_->fetch_sub(1);
    done_->store(true);
  }
  void Release() override {}
  std::unique_ptr<aclcpu::StreamTask> Detach() override { return std::make_unique<WatchedTask>(*this); }

 private:
  std::atomic<int>* running_;
  std::atomic<int>* overlaps_;
  std::atomic<bool>* done_;
};

// Threads push onto one stream at once: a task runs inline on its caller when the stream is idle,
// else it queues behind the one running. Tasks never overlap, and a thread's synchronize returns
// only once the task it pushed has run -- also when another thread claimed the idle stream just
// before it queued (the claim is counted before it looks at the queue a last time).
TEST(RuntimeStream, InlineAndQueuedTasksNeverOverlapAndSynchronizeWaitsForThem) {
  support::EnsureRuntime();
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS) << aclGetRecentErrMsg();
  std::atomic<int> running{0};
  std::atomic<int> overlaps{0};
  std::atomic<int> early{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 3; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 3000; ++i) {
        std::atomic<bool> done{false};
        WatchedTask task(&running, &overlaps, &done);
        ASSERT_EQ(aclcpu::EnqueueOnStream("test", stream, task), ACL_SUCCESS);
        ASSERT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS) << aclGetRecentErrMsg();
        if (!done.load()) early.fetch_add(1);
        ASSERT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS);  // done is read before it goes away
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(overlaps.load(), 0);
  EXPECT_EQ(early.load(), 0);
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS) << aclGetRecentErrMsg();
}

TEST(RuntimeStream, DefaultStreamAndDeadStreams) {
  support::EnsureRuntime();
  const size_t bytes = 1024;
  DeviceBuffer device(bytes);
  const std::vector<uint8_t> data = Pattern(bytes, 61);
  ASSERT_EQ(aclrtMemcpyAsync(device.get(), bytes, data.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE, nullptr), ACL_SUCCESS)
      << aclGetRecentErrMsg();
  std::vector<uint8_t> back(bytes, 0);
  ASSERT_EQ(aclrtMemcpyAsync(back.data(), bytes, device.get(), bytes, ACL_MEMCPY_DEVICE_TO_HOST, nullptr), ACL_SUCCESS)
      << aclGetRecentErrMsg();
  ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_TRUE(back == data);
  EXPECT_EQ(aclrtSynchronizeDevice(), ACL_SUCCESS) << aclGetRecentErrMsg();

  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS) << aclGetRecentErrMsg();
  ASSERT_NE(stream, nullptr);
  ASSERT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS) << aclGetRecentErrMsg();
  // No stream is created below, so the dead handle cannot name a new one.
  EXPECT_FAILS(aclrtMemcpyAsync(device.get(), bytes, data.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE, stream),
               ACL_ERROR_RT_INVALID_HANDLE, PtrText(stream), "not a live stream");
  EXPECT_FAILS(aclrtSynchronizeStream(stream), ACL_ERROR_RT_INVALID_HANDLE, "aclrtSynchronizeStream", PtrText(stream));
  EXPECT_FAILS(aclrtDestroyStream(stream), ACL_ERROR_RT_INVALID_HANDLE, "aclrtDestroyStream", PtrText(stream));
  aclrtEvent event = nullptr;
  ASSERT_EQ(aclrtCreateEvent(&event), ACL_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_FAILS(aclrtRecordEvent(event, stream), ACL_ERROR_RT_INVALID_HANDLE, "aclrtRecordEvent", PtrText(stream));
  EXPECT_FAILS(aclrtStreamWaitEvent(stream, event), ACL_ERROR_RT_INVALID_HANDLE, "aclrtStreamWaitEvent",
               PtrText(stream));
  EXPECT_EQ(aclrtDestroyEvent(event), ACL_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_FAILS(aclrtDestroyStream(nullptr), ACL_ERROR_INVALID_PARAM, "aclrtDestroyStream", "not a live stream");
  EXPECT_FAILS(aclrtCreateStream(nullptr), ACL_ERROR_INVALID_PARAM, "aclrtCreateStream", "stream is null");
  // The failed copy did not run.
  ASSERT_EQ(aclrtSynchronizeDevice(), ACL_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_TRUE(device.Read() == data);
}

TEST(RuntimeStream, DestroyStreamRunsQueuedWorkFirst) {
  support::EnsureRuntime();
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS) << aclGetRecentErrMsg();
  const size_t bytes = size_t{2} << 20;
  DeviceBuffer a(bytes);
  DeviceBuffer b(bytes);
  const std::vector<uint8_t> pattern = Pattern(bytes, 71);
  a.Write(pattern);
  ASSERT_EQ(aclrtMemset(b.get(), bytes, 0, bytes), ACL_SUCCESS) << aclGetRecentErrMsg();
  std::vector<std::vector<uint8_t>> hosts(8, std::vector<uint8_t>(bytes, 0));
  for (int round = 0; round < 8; ++round) {
    ASSERT_EQ(aclrtMemcpyAsync(b.get(), bytes, a.get(), bytes, ACL_MEMCPY_DEVICE_TO_DEVICE, stream), ACL_SUCCESS)
        << aclGetRecentErrMsg();
    ASSERT_EQ(aclrtMemcpyAsync(a.get(), bytes, b.get(), bytes, ACL_MEMCPY_DEVICE_TO_DEVICE, stream), ACL_SUCCESS)
        << aclGetRecentErrMsg();
    ASSERT_EQ(aclrtMemcpyAsync(hosts[round].data(), bytes, b.get(), bytes, ACL_MEMCPY_DEVICE_TO_HOST, stream),
              ACL_SUCCESS)
        << aclGetRecentErrMsg();
  }
  ASSERT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS) << aclGetRecentErrMsg();
  // Plain host memory, looked at without any synchronize: the destroy waited for all of it.
  for (int round = 0; round < 8; ++round) EXPECT_TRUE(hosts[round] == pattern) << "round " << round;
}

// ---------------------------------------------------------------------------------------------
// Events.

TEST(RuntimeEvent, StreamWaitsForEventRecordedOnAnotherStream) {
  support::EnsureRuntime();
  aclrtStream stream_a = nullptr;
  aclrtStream stream_b = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream_a), ACL_SUCCESS) << aclGetRecentErrMsg();
  ASSERT_EQ(aclrtCreateStream(&stream_b), ACL_SUCCESS) << aclGetRecentErrMsg();
  aclrtEvent event = nullptr;
  ASSERT_EQ(aclrtCreateEvent(&event), ACL_SUCCESS) << aclGetRecentErrMsg();

  const std::vector<int64_t> shape = {512, 1024};
  const int64_t numel = 512 * 1024;
  support::DeviceTensor grad(ACL_FLOAT, shape, support::Layout::kContiguous);
  support::DeviceTensor self(ACL_FLOAT, shape, support::Layout::kContiguous);
  support::DeviceTensor target(ACL_FLOAT, shape, support::Layout::kContiguous);
  support::DeviceTensor out(ACL_FLOAT, shape, support::Layout::kContiguous);
  grad.Write(RandomFloats(numel, 81));
  self.Write(RandomFloats(numel, 82));
  target.Write(RandomFloats(numel, 83));
  const golden::Tensor expected = golden::MseLossGrad(grad.ToGoldenTensor(), self.ToGoldenTensor(),
                                                      target.ToGoldenTensor(), 0, golden::Dtype::kFloat32);

  // Stream A: some copies first (pressure), then the operator, then the record.
  const size_t filler_bytes = size_t{4} << 20;
  DeviceBuffer filler_a(filler_bytes);
  DeviceBuffer filler_b(filler_bytes);
  for (int i = 0; i < 6; ++i) {
    ASSERT_EQ(aclrtMemcpyAsync(filler_b.get(), filler_bytes, filler_a.get(), filler_bytes, ACL_MEMCPY_DEVICE_TO_DEVICE,
                               stream_a),
              ACL_SUCCESS)
        << aclGetRecentErrMsg();
  }
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  ASSERT_EQ(aclnnMseLossBackwardGetWorkspaceSize(grad.get(), self.get(), target.get(), 0, out.get(), &workspace_size,
                                                 &executor),
            ACLNN_SUCCESS)
      << aclGetRecentErrMsg();
  ASSERT_EQ(workspace_size, 0u);
  ASSERT_EQ(aclnnMseLossBackward(nullptr, 0, executor, stream_a), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  ASSERT_EQ(aclrtRecordEvent(event, stream_a), ACL_SUCCESS) << aclGetRecentErrMsg();

  // Stream B: wait for the event, then read A's output into host memory. Only B is synchronized.
  const size_t out_bytes = static_cast<size_t>(numel) * sizeof(float);
  std::vector<uint32_t> seen(static_cast<size_t>(numel), 0);
  ASSERT_EQ(aclrtStreamWaitEvent(stream_b, event), ACL_SUCCESS) << aclGetRecentErrMsg();
  ASSERT_EQ(aclrtMemcpyAsync(seen.data(), out_bytes, out.storage(), out_bytes, ACL_MEMCPY_DEVICE_TO_HOST, stream_b),
            ACL_SUCCESS)
      << aclGetRecentErrMsg();
  ASSERT_EQ(aclrtSynchronizeStream(stream_b), ACL_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(support::CompareBits(golden::Dtype::kFloat32, expected.bits, seen), "");
  EXPECT_EQ(aclrtSynchronizeEvent(event), ACL_SUCCESS) << aclGetRecentErrMsg();

  // A second record on A: aclrtSynchronizeEvent waits for the latest one, and so for the copy before it.
  std::vector<uint32_t> seen_again(static_cast<size_t>(numel), 0);
  for (int i = 0; i < 4; ++i) {
    ASSERT_EQ(aclrtMemcpyAsync(filler_b.get(), filler_bytes, filler_a.get(), filler_bytes, ACL_MEMCPY_DEVICE_TO_DEVICE,
                               stream_a),
              ACL_SUCCESS)
        << aclGetRecentErrMsg();
  }
  ASSERT_EQ(
      aclrtMemcpyAsync(seen_again.data(), out_bytes, out.storage(), out_bytes, ACL_MEMCPY_DEVICE_TO_HOST, stream_a),
      ACL_SUCCESS)
      << aclGetRecentErrMsg();
  ASSERT_EQ(aclrtRecordEvent(event, stream_a), ACL_SUCCESS) << aclGetRecentErrMsg();
  ASSERT_EQ(aclrtSynchronizeEvent(event), ACL_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(support::CompareBits(golden::Dtype::kFloat32, expected.bits, seen_again), "");

  // A record on the default stream works too.
  ASSERT_EQ(aclrtRecordEvent(event, nullptr), ACL_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(aclrtSynchronizeEvent(event), ACL_SUCCESS) << aclGetRecentErrMsg();

  ASSERT_EQ(aclrtSynchronizeStream(stream_a), ACL_SUCCESS) << aclGetRecentErrMsg();
  ASSERT_EQ(aclrtDestroyEvent(event), ACL_SUCCESS) << aclGetRecentErrMsg();
  // No event is created below, so the dead handle cannot name a new one.
  EXPECT_FAILS(aclrtSynchronizeEvent(event), ACL_ERROR_RT_INVALID_HANDLE, "aclrtSynchronizeEvent", PtrText(event),
               "not a live event");
  EXPECT_FAILS(aclrtRecordEvent(event, stream_a), ACL_ERROR_RT_INVALID_HANDLE, "aclrtRecordEvent", PtrText(event));
  EXPECT_FAILS(aclrtStreamWaitEvent(stream_b, event), ACL_ERROR_RT_INVALID_HANDLE, "aclrtStreamWaitEvent",
               PtrText(event));
  EXPECT_FAILS(aclrtDestroyEvent(event), ACL_ERROR_RT_INVALID_HANDLE, "aclrtDestroyEvent", PtrText(event));
  EXPECT_FAILS(aclrtSynchronizeEvent(nullptr), ACL_ERROR_INVALID_PARAM, "aclrtSynchronizeEvent", "event");
  EXPECT_FAILS(aclrtRecordEvent(nullptr, stream_a), ACL_ERROR_INVALID_PARAM, "aclrtRecordEvent", "event");
  EXPECT_FAILS(aclrtStreamWaitEvent(stream_a, nullptr), ACL_ERROR_INVALID_PARAM, "aclrtStreamWaitEvent", "event");
  EXPECT_FAILS(aclrtDestroyEvent(nullptr), ACL_ERROR_INVALID_PARAM, "aclrtDestroyEvent", "event");
  EXPECT_FAILS(aclrtCreateEvent(nullptr), ACL_ERROR_INVALID_PARAM, "aclrtCreateEvent", "event is null");

  EXPECT_EQ(aclrtDestroyStream(stream_a), ACL_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(aclrtDestroyStream(stream_b), ACL_SUCCESS) << aclGetRecentErrMsg();
}

TEST(RuntimeEvent, EventNeverRecordedDoesNotBlock) {
  support::EnsureRuntime();
  aclrtEvent event = nullptr;
  ASSERT_EQ(aclrtCreateEvent(&event), ACL_SUCCESS) << aclGetRecentErrMsg();
  ASSERT_NE(event, nullptr);
  EXPECT_EQ(aclrtSynchronizeEvent(event), ACL_SUCCESS) << aclGetRecentErrMsg();

  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS) << aclGetRecentErrMsg();
  const size_t bytes = 256;
  DeviceBuffer device(bytes);
  const std::vector<uint8_t> data = Pattern(bytes, 91);
  ASSERT_EQ(aclrtStreamWaitEvent(stream, event), ACL_SUCCESS) << aclGetRecentErrMsg();
  ASSERT_EQ(aclrtMemcpyAsync(device.get(), bytes, data.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE, stream), ACL_SUCCESS)
      << aclGetRecentErrMsg();
  ASSERT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_TRUE(device.Read() == data);
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(aclrtDestroyEvent(event), ACL_SUCCESS) << aclGetRecentErrMsg();
}

// ---------------------------------------------------------------------------------------------
// The operator's launches against the runtime.

std::vector<int64_t> RandomShape(std::mt19937& rng) {
  std::uniform_int_distribution<int> rank_dist(1, 3);
  std::uniform_int_distribution<int64_t> dim_dist(1, 6);
  std::vector<int64_t> shape(static_cast<size_t>(rank_dist(rng)));
  for (int64_t& d : shape) d = dim_dist(rng);
  return shape;
}

// One thread's share of ConcurrentStreamsFromSeveralHostThreads: "" or the first failure.
std::string RunComputationsOnOwnStream(int thread_index, int computations, int* passed) {
  try {
    aclrtStream stream = nullptr;
    if (aclrtCreateStream(&stream) != ACL_SUCCESS) return std::string("create stream: ") + aclGetRecentErrMsg();
    std::mt19937 rng(1000 + static_cast<uint32_t>(thread_index));
    const support::Layout layouts[] = {support::Layout::kContiguous, support::Layout::kTransposed,
                                       support::Layout::kStridedOffset};
    std::string failure;
    for (int i = 0; i < computations && failure.empty(); ++i) {
      const std::vector<int64_t> shape = RandomShape(rng);
      // Every third computation broadcasts a one-element gradOutput.
      const std::vector<int64_t> grad_shape = i % 3 == 0 ? std::vector<int64_t>{1} : shape;
      const int reduction = i % 3;
      const support::Layout layout = layouts[(i + thread_index) % 3];
      support::DeviceTensor grad(ACL_FLOAT, grad_shape, layout);
      support::DeviceTensor self(ACL_FLOAT, shape, layout);
      support::DeviceTensor target(ACL_FLOAT, shape, support::Layout::kContiguous);
      support::DeviceTensor out(ACL_FLOAT, shape, support::Layout::kContiguous);
      grad.Write(support::RandomBits(ACL_FLOAT, grad.numel(), support::ValueClass::kNormal, rng));
      self.Write(support::RandomBits(ACL_FLOAT, self.numel(), support::ValueClass::kNormal, rng));
      target.Write(support::RandomBits(ACL_FLOAT, target.numel(), support::ValueClass::kNormal, rng));
      const golden::Tensor expected = golden::MseLossGrad(grad.ToGoldenTensor(), self.ToGoldenTensor(),
                                                          target.ToGoldenTensor(), reduction, golden::Dtype::kFloat32);
      const aclnnStatus status =
          support::RunMseLossBackward(grad.get(), self.get(), target.get(), reduction, out.get(), stream);
      if (status != ACLNN_SUCCESS) {
        failure =
            "computation " + std::to_string(i) + ": status " + std::to_string(status) + ": " + aclGetRecentErrMsg();
        break;
      }
      const std::string mismatch = support::CompareBits(golden::Dtype::kFloat32, expected.bits, out.Read());
      if (!mismatch.empty()) {
        failure = "computation " + std::to_string(i) + ": " + mismatch;
        break;
      }
      ++*passed;
    }
    if (aclrtDestroyStream(stream) != ACL_SUCCESS && failure.empty()) {
      failure = std::string("destroy stream: ") + aclGetRecentErrMsg();
    }
    return failure;
  } catch (const std::exception& e) {
    return std::string("exception: ") + e.what();
  }
}

TEST(RuntimeThreads, ConcurrentStreamsFromSeveralHostThreads) {
  support::EnsureRuntime();
  const int kThreads = 4;
  const int kComputations = 50;
  std::vector<std::string> failures(kThreads);
  std::vector<int> passed(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back(
        [t, &failures, &passed] { failures[t] = RunComputationsOnOwnStream(t, kComputations, &passed[t]); });
  }
  for (std::thread& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_EQ(failures[t], "") << "thread " << t;
    EXPECT_EQ(passed[t], kComputations) << "thread " << t;
  }
}

TEST(RuntimeLaunch, TensorsDestroyedRightAfterLaunch) {
  support::EnsureRuntime();
  const std::vector<int64_t> shape = {300, 333};
  const int64_t numel = 300 * 333;
  support::RawFloatTensor grad(shape, RandomFloats(numel, 101));
  support::RawFloatTensor self(shape, RandomFloats(numel, 102));
  support::RawFloatTensor target(shape, RandomFloats(numel, 103));
  support::RawFloatTensor out(shape, std::vector<uint32_t>(static_cast<size_t>(numel), 0));
  const golden::Tensor expected =
      golden::MseLossGrad(grad.Golden(), self.Golden(), target.Golden(), 1, golden::Dtype::kFloat32);
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS) << aclGetRecentErrMsg();
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  ASSERT_EQ(aclnnMseLossBackwardGetWorkspaceSize(grad.get(), self.get(), target.get(), 1, out.get(), &workspace_size,
                                                 &executor),
            ACLNN_SUCCESS)
      << aclGetRecentErrMsg();
  ASSERT_EQ(workspace_size, 0u);
  ASSERT_EQ(aclnnMseLossBackward(nullptr, 0, executor, stream), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(grad.DestroyDescriptor(), ACLNN_SUCCESS);
  EXPECT_EQ(self.DestroyDescriptor(), ACLNN_SUCCESS);
  EXPECT_EQ(target.DestroyDescriptor(), ACLNN_SUCCESS);
  EXPECT_EQ(out.DestroyDescriptor(), ACLNN_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(support::CompareBits(golden::Dtype::kFloat32, expected.bits, out.Read()), "");
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS) << aclGetRecentErrMsg();
}

TEST(RuntimeLaunch, FreeOfAnInputWaitsForQueuedLaunch) {
  support::EnsureRuntime();
  const std::vector<int64_t> shape = {1024, 512};
  const int64_t numel = 1024 * 512;
  support::RawFloatTensor grad(shape, RandomFloats(numel, 111));
  support::RawFloatTensor self(shape, RandomFloats(numel, 112));
  support::RawFloatTensor target(shape, RandomFloats(numel, 113));
  support::RawFloatTensor out(shape, std::vector<uint32_t>(static_cast<size_t>(numel), 0));
  const golden::Tensor expected =
      golden::MseLossGrad(grad.Golden(), self.Golden(), target.Golden(), 2, golden::Dtype::kFloat32);
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS) << aclGetRecentErrMsg();

  // Copies queued ahead of the launch (they touch neither input nor output), so it is still queued
  // when the free comes.
  const size_t filler_bytes = size_t{8} << 20;
  DeviceBuffer filler_a(filler_bytes);
  DeviceBuffer filler_b(filler_bytes);
  for (int i = 0; i < 8; ++i) {
    ASSERT_EQ(aclrtMemcpyAsync(filler_b.get(), filler_bytes, filler_a.get(), filler_bytes, ACL_MEMCPY_DEVICE_TO_DEVICE,
                               stream),
              ACL_SUCCESS)
        << aclGetRecentErrMsg();
  }
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  ASSERT_EQ(aclnnMseLossBackwardGetWorkspaceSize(grad.get(), self.get(), target.get(), 2, out.get(), &workspace_size,
                                                 &executor),
            ACLNN_SUCCESS)
      << aclGetRecentErrMsg();
  ASSERT_EQ(aclnnMseLossBackward(nullptr, 0, executor, stream), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  void* self_memory = self.data();
  ASSERT_EQ(self.FreeMemory(), ACL_SUCCESS) << aclGetRecentErrMsg();
  {
    // Were the memory released before the launch ran, a new allocation could take it over and
    // scribble on the input.
    DeviceBuffer scribble(self.bytes());
    ASSERT_EQ(aclrtMemset(scribble.get(), self.bytes(), 0xFF, self.bytes()), ACL_SUCCESS) << aclGetRecentErrMsg();
    ASSERT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS) << aclGetRecentErrMsg();
    EXPECT_EQ(support::CompareBits(golden::Dtype::kFloat32, expected.bits, out.Read()), "");
  }
  // Freed twice (after the scribble, which may have had the same address, is gone too).
  EXPECT_FAILS(aclrtFree(self_memory), ACL_ERROR_INVALID_PARAM, "aclrtFree");
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS) << aclGetRecentErrMsg();
}

// ---------------------------------------------------------------------------------------------
// Error messages and data types.

TEST(RuntimeErrors, RecentErrorMessageIsPerThread) {
  support::EnsureRuntime();
  std::promise<void> second_failed;
  std::promise<void> first_failed;
  std::future<void> second_failed_done = second_failed.get_future();
  std::future<void> first_failed_done = first_failed.get_future();

  std::string second_before;
  std::string second_after;
  aclError second_code = ACL_SUCCESS;
  std::thread second([&] {
    void* ptr = nullptr;
    second_code = aclrtMalloc(&ptr, 0, ACL_MEM_MALLOC_HUGE_FIRST);
    second_before = aclGetRecentErrMsg();
    second_failed.set_value();
    first_failed_done.wait();
    second_after = aclGetRecentErrMsg();
  });

  std::string first_message;
  aclError first_code = ACL_SUCCESS;
  std::thread first([&] {
    second_failed_done.wait();
    first_code = aclrtFree(nullptr);
    first_message = aclGetRecentErrMsg();
    first_failed.set_value();
  });
  first.join();
  second.join();

  std::string fresh_message = "unset";
  std::thread fresh([&] { fresh_message = aclGetRecentErrMsg(); });
  fresh.join();

  EXPECT_EQ(second_code, ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(first_code, ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(second_before.find("aclrtMalloc: size is 0"), std::string::npos) << second_before;
  EXPECT_EQ(second_after, second_before);
  EXPECT_NE(first_message.find("aclrtFree: devPtr is null"), std::string::npos) << first_message;
  EXPECT_EQ(fresh_message, "");  // a thread that never failed

  // This thread's own message is not the other threads' either.
  EXPECT_FAILS(aclrtSetDevice(7), ACL_ERROR_RT_INVALID_DEVICEID, "aclrtSetDevice", "device id 7");
  std::thread other([] {
    void* ptr = nullptr;
    aclrtMalloc(&ptr, 64, static_cast<aclrtMemMallocPolicy>(42));
  });
  other.join();
  EXPECT_TRUE(MessageMentions({"aclrtSetDevice", "device id 7"}));
}

TEST(RuntimeDataType, SizesOfEveryType) {
  EXPECT_EQ(aclDataTypeSize(ACL_FLOAT), 4u);
  EXPECT_EQ(aclDataTypeSize(ACL_FLOAT16), 2u);
  EXPECT_EQ(aclDataTypeSize(ACL_BF16), 2u);
  EXPECT_EQ(aclDataTypeSize(ACL_INT8), 1u);
  EXPECT_EQ(aclDataTypeSize(ACL_UINT8), 1u);
  EXPECT_EQ(aclDataTypeSize(ACL_BOOL), 1u);
  EXPECT_EQ(aclDataTypeSize(ACL_INT16), 2u);
  EXPECT_EQ(aclDataTypeSize(ACL_UINT16), 2u);
  EXPECT_EQ(aclDataTypeSize(ACL_INT32), 4u);
  EXPECT_EQ(aclDataTypeSize(ACL_UINT32), 4u);
  EXPECT_EQ(aclDataTypeSize(ACL_COMPLEX32), 4u);
  EXPECT_EQ(aclDataTypeSize(ACL_INT64), 8u);
  EXPECT_EQ(aclDataTypeSize(ACL_UINT64), 8u);
  EXPECT_EQ(aclDataTypeSize(ACL_DOUBLE), 8u);
  EXPECT_EQ(aclDataTypeSize(ACL_COMPLEX64), 8u);
  EXPECT_EQ(aclDataTypeSize(ACL_COMPLEX128), 16u);
  EXPECT_EQ(aclDataTypeSize(ACL_DT_UNDEFINED), 0u);
  EXPECT_EQ(aclDataTypeSize(ACL_STRING), 0u);
  // CANN's rule (hicann/runtime src/acl/aclrt_impl/data_buffer.cpp): the sub-byte INT4, UINT1 and
  // HIFLOAT4 take a byte, the 8-bit floats one, and what the rule does not name falls to its
  // default of 8 - the 4- and 6-bit floats and values that are no aclDataType.
  EXPECT_EQ(aclDataTypeSize(ACL_INT4), 1u);
  EXPECT_EQ(aclDataTypeSize(ACL_UINT1), 1u);
  EXPECT_EQ(aclDataTypeSize(ACL_HIFLOAT4), 1u);
  EXPECT_EQ(aclDataTypeSize(ACL_HIFLOAT8), 1u);
  EXPECT_EQ(aclDataTypeSize(ACL_FLOAT8_E5M2), 1u);
  EXPECT_EQ(aclDataTypeSize(ACL_FLOAT8_E4M3FN), 1u);
  EXPECT_EQ(aclDataTypeSize(ACL_FLOAT8_E8M0), 1u);
  EXPECT_EQ(aclDataTypeSize(ACL_FLOAT4_E2M1), 8u);
  EXPECT_EQ(aclDataTypeSize(ACL_FLOAT4_E1M2), 8u);
  EXPECT_EQ(aclDataTypeSize(ACL_FLOAT6_E3M2), 8u);
  EXPECT_EQ(aclDataTypeSize(ACL_FLOAT6_E2M3), 8u);
  EXPECT_EQ(aclDataTypeSize(ACL_HIFLOAT4_SCALE), 8u);
  EXPECT_EQ(aclDataTypeSize(static_cast<aclDataType>(50)), 8u);
}

}  // namespace

namespace {

// A synchronous copy between two parts of one allocation (it pins the allocation twice itself).
// Host threads copying into and out of one allocation at once need no order among themselves:
// each copy waits only for queued work. (Each once waited for the other's copy: a deadlock.)
TEST(RuntimeMemory, ConcurrentSynchronousCopiesOfOneAllocation) {
  support::EnsureRuntime();
  constexpr size_t kSlice = 64 << 10;
  constexpr int kThreads = 4;
  DeviceBuffer buffer(kSlice * kThreads);
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      const std::vector<uint8_t> pattern = Pattern(kSlice, 100 + t);
      std::vector<uint8_t> back(kSlice, 0);
      for (int round = 0; round < 200; ++round) {
        char* slice = buffer.at(static_cast<size_t>(t) * kSlice);
        if (aclrtMemcpy(slice, kSlice, pattern.data(), kSlice, ACL_MEMCPY_HOST_TO_DEVICE) != ACL_SUCCESS ||
            aclrtMemcpy(back.data(), kSlice, slice, kSlice, ACL_MEMCPY_DEVICE_TO_HOST) != ACL_SUCCESS ||
            aclrtMemset(slice, kSlice, 0, kSlice) != ACL_SUCCESS || back != pattern) {
          ++failures;
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
}

TEST(RuntimeMemory, CopyWithinOneAllocation) {
  support::EnsureRuntime();
  void* memory = nullptr;
  ASSERT_EQ(aclrtMalloc(&memory, 256, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  std::vector<unsigned char> pattern(128);
  for (size_t i = 0; i < pattern.size(); ++i) pattern[i] = static_cast<unsigned char>(i * 3 + 1);
  ASSERT_EQ(aclrtMemcpy(memory, 256, pattern.data(), 128, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
  char* base = static_cast<char*>(memory);
  ASSERT_EQ(aclrtMemcpy(base + 128, 128, base, 128, ACL_MEMCPY_DEVICE_TO_DEVICE), ACL_SUCCESS);
  ASSERT_EQ(aclrtMemcpy(base + 64, 64, base, 64, ACL_MEMCPY_DEFAULT), ACL_SUCCESS);  // overlapping is a move
  std::vector<unsigned char> back(256);
  ASSERT_EQ(aclrtMemcpy(back.data(), 256, memory, 256, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
  for (size_t i = 0; i < 128; ++i) EXPECT_EQ(back[128 + i], pattern[i]) << i;
  for (size_t i = 0; i < 64; ++i) EXPECT_EQ(back[64 + i], pattern[i]) << i;
  EXPECT_EQ(aclrtFree(memory), ACL_SUCCESS);
}

TEST(RuntimeStream, AsyncCopyOnADeadStreamNamesTheCall) {
  support::EnsureRuntime();
  void* memory = nullptr;
  ASSERT_EQ(aclrtMalloc(&memory, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  ASSERT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
  unsigned char host[64] = {};
  EXPECT_EQ(aclrtMemcpyAsync(memory, 64, host, 64, ACL_MEMCPY_HOST_TO_DEVICE, stream), ACL_ERROR_RT_INVALID_HANDLE);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("aclrtMemcpyAsync: stream"), std::string::npos)
      << aclGetRecentErrMsg();
  EXPECT_EQ(aclrtFree(memory), ACL_SUCCESS);
}

}  // namespace
