// aclrtHostRegister / aclrtHostUnregister: host memory admitted for the device, as CANN's runtime
// does it (hicann/runtime: src/acl/aclrt_impl/memory.cpp, src/runtime/api/impl/api_error.cc,
// src/runtime/core/src/common/register_memory.cc; docs/api_docs/aclrtHostRegister.md).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "acl/acl.h"
#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_mse_loss_backward.h"
#include "support/api_support.h"
#include "support/expect_error.h"

namespace {

constexpr size_t kPage = 4096;

// Page-aligned host memory from the C library, which the runtime did not allocate.
class HostPages {
 public:
  explicit HostPages(size_t pages) : bytes_(pages * kPage) {
    support::EnsureRuntime();
    data_ = static_cast<char*>(std::aligned_alloc(kPage, bytes_));
    std::memset(data_, 0, bytes_);
  }
  ~HostPages() { std::free(data_); }
  HostPages(const HostPages&) = delete;
  HostPages& operator=(const HostPages&) = delete;
  char* at(size_t offset) const { return data_ + offset; }
  size_t bytes() const { return bytes_; }

 private:
  char* data_;
  size_t bytes_;
};

float* Floats(char* at) { return reinterpret_cast<float*>(at); }

// A contiguous 1-D FLOAT tensor of n elements at data.
aclTensor* FloatTensor(void* data, int64_t n) {
  return aclCreateTensor(&n, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, &n, 1, data);
}

TEST(HostRegister, ValidatesItsArgumentsWithCannsCodes) {
  HostPages pages(4);
  void* device = nullptr;
  EXPECT_FAILS(aclrtHostRegister(nullptr, kPage, ACL_HOST_REGISTER_MAPPED, &device), ACL_ERROR_INVALID_PARAM,
               "aclrtHostRegister", "ptr is null");
  EXPECT_FAILS(aclrtHostRegister(pages.at(0), kPage, ACL_HOST_REGISTER_MAPPED, nullptr), ACL_ERROR_INVALID_PARAM,
               "devPtr is null");
  EXPECT_FAILS(aclrtHostRegister(pages.at(0), 0, ACL_HOST_REGISTER_MAPPED, &device), ACL_ERROR_INVALID_PARAM,
               "size is 0");
  EXPECT_FAILS(aclrtHostRegister(pages.at(0), kPage, static_cast<aclrtHostRegisterType>(1), &device),
               ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "type 1");
  EXPECT_FAILS(aclrtHostRegister(pages.at(64), kPage, ACL_HOST_REGISTER_MAPPED, &device), ACL_ERROR_INVALID_PARAM,
               "4 KiB aligned");
  EXPECT_EQ(device, nullptr);
  EXPECT_FAILS(aclrtHostUnregister(nullptr), ACL_ERROR_INVALID_PARAM, "aclrtHostUnregister", "ptr is null");
  EXPECT_FAILS(aclrtHostUnregister(pages.at(0)), ACL_ERROR_HOST_MEMORY_NOT_REGISTERED, "not the start");
}

TEST(HostRegister, RangesMayNotOverlapAndEndWhereTheyStarted) {
  HostPages pages(4);
  void* device = nullptr;
  ASSERT_EQ(aclrtHostRegister(pages.at(kPage), 2 * kPage, ACL_HOST_REGISTER_MAPPED, &device), ACL_SUCCESS)
      << aclGetRecentErrMsg();
  EXPECT_EQ(device, pages.at(kPage));  // the device address is the host address here
  void* other = nullptr;
  EXPECT_FAILS(aclrtHostRegister(pages.at(0), 2 * kPage, ACL_HOST_REGISTER_MAPPED, &other),
               ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED, "overlaps");
  EXPECT_FAILS(aclrtHostRegister(pages.at(2 * kPage), kPage, ACL_HOST_REGISTER_READONLY, &other),
               ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED, "overlaps");
  // The pages on either side are free to register.
  ASSERT_EQ(aclrtHostRegister(pages.at(0), kPage, ACL_HOST_REGISTER_IOMEMORY, &other), ACL_SUCCESS);
  ASSERT_EQ(aclrtHostRegister(pages.at(3 * kPage), 1, ACL_HOST_REGISTER_MAPPED, &other), ACL_SUCCESS);
  // Not its start; not a registration but an allocation; not an allocation but a registration.
  EXPECT_FAILS(aclrtHostUnregister(pages.at(2 * kPage)), ACL_ERROR_HOST_MEMORY_NOT_REGISTERED, "not the start");
  void* allocation = nullptr;
  ASSERT_EQ(aclrtMalloc(&allocation, 100, ACL_MEM_MALLOC_NORMAL_ONLY), ACL_SUCCESS);
  EXPECT_FAILS(aclrtHostUnregister(allocation), ACL_ERROR_HOST_MEMORY_NOT_REGISTERED, "aclrtMalloc allocation");
  EXPECT_FAILS(aclrtFree(pages.at(kPage)), ACL_ERROR_INVALID_PARAM, "aclrtHostUnregister");
  // Host pages may hold an aclrtMalloc allocation here (on an NPU device memory is another address
  // space, so registrations are checked against each other only): both stay usable.
  const uintptr_t page_of_allocation = reinterpret_cast<uintptr_t>(allocation) / kPage * kPage;
  ASSERT_EQ(aclrtHostRegister(reinterpret_cast<void*>(page_of_allocation), kPage, ACL_HOST_REGISTER_MAPPED, &other),
            ACL_SUCCESS)
      << aclGetRecentErrMsg();
  EXPECT_EQ(aclrtMemset(allocation, 100, 7, 100), ACL_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(aclrtHostUnregister(reinterpret_cast<void*>(page_of_allocation)), ACL_SUCCESS);
  EXPECT_EQ(aclrtFree(allocation), ACL_SUCCESS);
  for (size_t page : {size_t{0}, size_t{1}, size_t{3}}) {
    EXPECT_EQ(aclrtHostUnregister(pages.at(page * kPage)), ACL_SUCCESS) << aclGetRecentErrMsg();
  }
  EXPECT_FAILS(aclrtHostUnregister(pages.at(kPage)), ACL_ERROR_HOST_MEMORY_NOT_REGISTERED, "not the start");
}

TEST(HostRegister, AnOperatorReadsAndWritesRegisteredMemoryInPlace) {
  HostPages pages(1);
  constexpr int64_t n = 4;
  float* grad = Floats(pages.at(0));
  float* self = grad + n;
  float* target = self + n;
  float* out = target + n;
  for (int i = 0; i < n; ++i) {
    grad[i] = 1.0f;
    self[i] = static_cast<float>(i);
    target[i] = 1.0f;
    out[i] = -7.0f;
  }
  aclTensor* tensors[4] = {FloatTensor(grad, n), FloatTensor(self, n), FloatTensor(target, n), FloatTensor(out, n)};
  uint64_t workspace = 0;
  aclOpExecutor* executor = nullptr;
  // Not admitted yet: host memory is refused as on an NPU.
  EXPECT_FAILS(
      aclnnMseLossBackwardGetWorkspaceSize(tensors[0], tensors[1], tensors[2], 2, tensors[3], &workspace, &executor),
      ACLNN_ERR_PARAM_INVALID, "gradOutput", "aclrtHostRegister range");
  void* device = nullptr;
  ASSERT_EQ(aclrtHostRegister(pages.at(0), pages.bytes(), ACL_HOST_REGISTER_MAPPED, &device), ACL_SUCCESS);
  ASSERT_EQ(
      aclnnMseLossBackwardGetWorkspaceSize(tensors[0], tensors[1], tensors[2], 2, tensors[3], &workspace, &executor),
      ACLNN_SUCCESS)
      << aclGetRecentErrMsg();
  ASSERT_EQ(aclnnMseLossBackward(nullptr, workspace, executor, nullptr), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
  const float expected[n] = {-2.0f, 0.0f, 2.0f, 4.0f};  // (x - 1) * 2
  for (int i = 0; i < n; ++i) EXPECT_EQ(out[i], expected[i]) << i;
  // A copy may take registered memory as host memory too (its device address is the same).
  std::vector<float> back(n, 0.0f);
  EXPECT_EQ(aclrtMemcpy(back.data(), sizeof(float) * n, out, sizeof(float) * n, ACL_MEMCPY_DEVICE_TO_HOST),
            ACL_SUCCESS);
  EXPECT_EQ(back[3], 4.0f);
  EXPECT_EQ(aclrtHostUnregister(pages.at(0)), ACL_SUCCESS);
  EXPECT_FAILS(
      aclnnMseLossBackwardGetWorkspaceSize(tensors[0], tensors[1], tensors[2], 2, tensors[3], &workspace, &executor),
      ACLNN_ERR_PARAM_INVALID, "not inside one live");
  for (aclTensor* t : tensors) aclDestroyTensor(t);
}

TEST(HostRegister, ReadOnlyMemoryIsNeverWritten) {
  HostPages inputs(1);
  HostPages outputs(1);
  constexpr int64_t n = 8;
  void* device = nullptr;
  ASSERT_EQ(aclrtHostRegister(inputs.at(0), inputs.bytes(), ACL_HOST_REGISTER_READONLY, &device), ACL_SUCCESS);
  ASSERT_EQ(aclrtHostRegister(outputs.at(0), outputs.bytes(), ACL_HOST_REGISTER_MAPPED, &device), ACL_SUCCESS);
  aclTensor* grad = FloatTensor(inputs.at(0), n);
  aclTensor* self = FloatTensor(inputs.at(64), n);
  aclTensor* target = FloatTensor(inputs.at(128), n);
  aclTensor* read_only_out = FloatTensor(inputs.at(256), n);
  aclTensor* out = FloatTensor(outputs.at(0), n);
  uint64_t workspace = 0;
  aclOpExecutor* executor = nullptr;
  EXPECT_FAILS(aclnnMseLossBackwardGetWorkspaceSize(grad, self, target, 0, read_only_out, &workspace, &executor),
               ACLNN_ERR_PARAM_INVALID, "out", "read-only");
  // Inputs there are fine; and a repeatable executor cannot be pointed at it afterwards either.
  ASSERT_EQ(aclnnMseLossBackwardGetWorkspaceSize(grad, self, target, 0, out, &workspace, &executor), ACLNN_SUCCESS)
      << aclGetRecentErrMsg();
  ASSERT_EQ(aclSetAclOpExecutorRepeatable(executor), ACLNN_SUCCESS);
  EXPECT_FAILS(aclSetOutputTensorAddr(executor, 0, out, inputs.at(512)), ACLNN_ERR_PARAM_INVALID, "read-only");
  ASSERT_EQ(aclnnMseLossBackward(nullptr, workspace, executor, nullptr), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
  EXPECT_EQ(aclDestroyAclOpExecutor(executor), ACLNN_SUCCESS);
  // Copies and memsets do not write there; reading from there is fine.
  std::vector<char> host(64, 1);
  EXPECT_FAILS(aclrtMemcpy(inputs.at(0), 64, host.data(), 64, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_INVALID_PARAM,
               "dst", "read-only");
  EXPECT_FAILS(aclrtMemset(inputs.at(0), 64, 0, 64), ACL_ERROR_INVALID_PARAM, "read-only");
  EXPECT_EQ(aclrtMemcpy(outputs.at(1024), 64, inputs.at(0), 64, ACL_MEMCPY_DEVICE_TO_DEVICE), ACL_SUCCESS);
  for (size_t i = 0; i < inputs.bytes(); ++i) ASSERT_EQ(*inputs.at(i), 0) << i;
  for (aclTensor* t : {grad, self, target, read_only_out, out}) aclDestroyTensor(t);
  EXPECT_EQ(aclrtHostUnregister(inputs.at(0)), ACL_SUCCESS);
  EXPECT_EQ(aclrtHostUnregister(outputs.at(0)), ACL_SUCCESS);
}

// Registering pages makes the registering thread find them at once; pages an aclrtMalloc allocation
// holds are still answered by the allocation first (here: writable, though registered read-only).
TEST(HostRegister, AnAllocationIsAnsweredBeforeARegistrationOfItsPages) {
  support::EnsureRuntime();
  void* memory = nullptr;
  ASSERT_EQ(aclrtMalloc(&memory, 3 * kPage, ACL_MEM_MALLOC_NORMAL_ONLY), ACL_SUCCESS);
  const uintptr_t aligned = (reinterpret_cast<uintptr_t>(memory) + kPage - 1) / kPage * kPage;
  char* page = reinterpret_cast<char*>(aligned);
  void* device = nullptr;
  ASSERT_EQ(aclrtHostRegister(page, kPage, ACL_HOST_REGISTER_READONLY, &device), ACL_SUCCESS) << aclGetRecentErrMsg();
  constexpr int64_t n = 4;
  aclTensor* tensors[4] = {FloatTensor(page, n), FloatTensor(page + 64, n), FloatTensor(page + 128, n),
                           FloatTensor(page + 256, n)};
  uint64_t workspace = 0;
  aclOpExecutor* executor = nullptr;
  ASSERT_EQ(
      aclnnMseLossBackwardGetWorkspaceSize(tensors[0], tensors[1], tensors[2], 2, tensors[3], &workspace, &executor),
      ACLNN_SUCCESS)
      << aclGetRecentErrMsg();
  EXPECT_EQ(aclDestroyAclOpExecutor(executor), ACLNN_SUCCESS);
  for (aclTensor* t : tensors) aclDestroyTensor(t);
  EXPECT_EQ(aclrtHostUnregister(page), ACL_SUCCESS);
  EXPECT_EQ(aclrtFree(memory), ACL_SUCCESS);
}

TEST(HostRegister, UnregisterWaitsForQueuedWorkThatUsesTheRange) {
  constexpr int64_t n = 1 << 18;
  HostPages pages(static_cast<size_t>(4 * n * sizeof(float) / kPage));
  float* base = Floats(pages.at(0));
  for (int64_t i = 0; i < n; ++i) {
    base[i] = 1.0f;                           // grad
    base[n + i] = static_cast<float>(i % 7);  // self
    base[2 * n + i] = 2.0f;                   // target
  }
  void* device = nullptr;
  ASSERT_EQ(aclrtHostRegister(pages.at(0), pages.bytes(), ACL_HOST_REGISTER_MAPPED, &device), ACL_SUCCESS);
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  // Copies queued first (on memory of their own), so that the launch is still queued at the unregister.
  const size_t filler_bytes = size_t{8} << 20;
  void* filler_a = nullptr;
  void* filler_b = nullptr;
  ASSERT_EQ(aclrtMalloc(&filler_a, filler_bytes, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  ASSERT_EQ(aclrtMalloc(&filler_b, filler_bytes, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  for (int i = 0; i < 8; ++i) {
    ASSERT_EQ(aclrtMemcpyAsync(filler_b, filler_bytes, filler_a, filler_bytes, ACL_MEMCPY_DEVICE_TO_DEVICE, stream),
              ACL_SUCCESS);
  }
  aclTensor* t[4] = {FloatTensor(base, n), FloatTensor(base + n, n), FloatTensor(base + 2 * n, n),
                     FloatTensor(base + 3 * n, n)};
  uint64_t workspace = 0;
  aclOpExecutor* executor = nullptr;
  ASSERT_EQ(aclnnMseLossBackwardGetWorkspaceSize(t[0], t[1], t[2], 0, t[3], &workspace, &executor), ACLNN_SUCCESS);
  ASSERT_EQ(aclnnMseLossBackward(nullptr, workspace, executor, stream), ACLNN_SUCCESS);
  ASSERT_EQ(aclrtHostUnregister(pages.at(0)), ACL_SUCCESS);  // returns once the launch has run
  for (int64_t i = 0; i < n; i += 4099) {
    ASSERT_EQ(base[3 * n + i], (static_cast<float>(i % 7) - 2.0f) * 2.0f) << i;
  }
  EXPECT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
  for (aclTensor* tensor : t) aclDestroyTensor(tensor);
  EXPECT_EQ(aclrtFree(filler_a), ACL_SUCCESS);
  EXPECT_EQ(aclrtFree(filler_b), ACL_SUCCESS);
}

}  // namespace
