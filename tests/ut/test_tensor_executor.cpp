// Unit tests of nnopbase through the public API: aclTensor creation, accessors and destruction, and
// the aclOpExecutor life cycle (one-shot, repeatable, workspace, launches after memory was freed).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "acl/acl.h"
#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_mse_loss_backward.h"
#include "support/api_support.h"
#include "support/expect_error.h"

namespace {

using support::MessageMentions;
using support::PtrText;

// aclCreateTensor returns nullptr and the message mentions every part.
#define EXPECT_CREATE_FAILS(call, ...)                    \
  do {                                                    \
    aclTensor* created_ = (call);                         \
    EXPECT_EQ(created_, nullptr) << #call;                \
    if (created_ != nullptr) aclDestroyTensor(created_);  \
    EXPECT_TRUE(MessageMentions({__VA_ARGS__})) << #call; \
  } while (0)

std::vector<uint32_t> RandomFloats(int64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  return support::RandomBits(ACL_FLOAT, n, support::ValueClass::kNormal, rng);
}

// The view dims, storage dims and strides of a tensor as its accessors report them.
std::vector<int64_t> ViewShapeOf(const aclTensor* tensor) {
  int64_t* values = nullptr;
  uint64_t count = 99;
  EXPECT_EQ(aclGetViewShape(tensor, &values, &count), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  std::vector<int64_t> result(values, values + count);
  delete[] values;
  return result;
}

std::vector<int64_t> StorageShapeOf(const aclTensor* tensor) {
  int64_t* values = nullptr;
  uint64_t count = 99;
  EXPECT_EQ(aclGetStorageShape(tensor, &values, &count), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  std::vector<int64_t> result(values, values + count);
  delete[] values;
  return result;
}

std::vector<int64_t> StridesOf(const aclTensor* tensor) {
  int64_t* values = nullptr;
  uint64_t count = 99;
  EXPECT_EQ(aclGetViewStrides(tensor, &values, &count), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  std::vector<int64_t> result(values, values + count);
  delete[] values;
  return result;
}

// Device memory for tensors whose descriptors the tests create themselves.
class DeviceMemory {
 public:
  explicit DeviceMemory(size_t bytes) : bytes_(bytes) {
    support::EnsureRuntime();
    EXPECT_EQ(aclrtMalloc(&ptr_, bytes, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS) << aclGetRecentErrMsg();
  }
  ~DeviceMemory() {
    if (ptr_ != nullptr) aclrtFree(ptr_);
  }
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;
  void* get() const { return ptr_; }
  size_t bytes() const { return bytes_; }
  aclError Free() {
    const aclError code = aclrtFree(ptr_);
    ptr_ = nullptr;
    return code;
  }

 private:
  void* ptr_ = nullptr;
  size_t bytes_ = 0;
};

// A contiguous FLOAT tensor over its own allocation; descriptor and memory are released separately.
class RawFloatTensor {
 public:
  RawFloatTensor(const std::vector<int64_t>& shape, const std::vector<uint32_t>& bits)
      : shape_(shape), bits_(bits), memory_(bits.size() * sizeof(float)) {
    EXPECT_EQ(aclrtMemcpy(memory_.get(), memory_.bytes(), bits.data(), memory_.bytes(), ACL_MEMCPY_HOST_TO_DEVICE),
              ACL_SUCCESS)
        << aclGetRecentErrMsg();
    const std::vector<int64_t> storage = {static_cast<int64_t>(bits.size())};
    tensor_ = aclCreateTensor(shape_.data(), shape_.size(), ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, storage.data(),
                              storage.size(), memory_.get());
    EXPECT_NE(tensor_, nullptr) << aclGetRecentErrMsg();
  }
  ~RawFloatTensor() {
    if (tensor_ != nullptr) aclDestroyTensor(tensor_);
  }
  RawFloatTensor(const RawFloatTensor&) = delete;
  RawFloatTensor& operator=(const RawFloatTensor&) = delete;

  aclTensor* get() const { return tensor_; }
  golden::Tensor Golden() const { return golden::Tensor{golden::Dtype::kFloat32, shape_, bits_}; }
  std::vector<uint32_t> Read() const {
    std::vector<uint32_t> bits(bits_.size(), 0);
    EXPECT_EQ(aclrtMemcpy(bits.data(), memory_.bytes(), memory_.get(), memory_.bytes(), ACL_MEMCPY_DEVICE_TO_HOST),
              ACL_SUCCESS)
        << aclGetRecentErrMsg();
    return bits;
  }
  aclnnStatus DestroyDescriptor() {
    const aclnnStatus status = aclDestroyTensor(tensor_);
    tensor_ = nullptr;
    return status;
  }
  aclError FreeMemory() { return memory_.Free(); }

 private:
  std::vector<int64_t> shape_;
  std::vector<uint32_t> bits_;
  DeviceMemory memory_;
  aclTensor* tensor_ = nullptr;
};

// The four FLOAT tensors of one MseLossBackward call, with random inputs.
struct MseTensors {
  explicit MseTensors(const std::vector<int64_t>& shape, support::Layout layout = support::Layout::kContiguous)
      : grad(ACL_FLOAT, shape, layout),
        self(ACL_FLOAT, shape, layout),
        target(ACL_FLOAT, shape, layout),
        out(ACL_FLOAT, shape, support::Layout::kContiguous) {}

  void Fill(uint32_t seed) {
    grad.Write(RandomFloats(grad.numel(), seed));
    self.Write(RandomFloats(self.numel(), seed + 1));
    target.Write(RandomFloats(target.numel(), seed + 2));
  }
  golden::Tensor Expected(int reduction) const {
    return golden::MseLossGrad(grad.ToGoldenTensor(), self.ToGoldenTensor(), target.ToGoldenTensor(), reduction,
                               golden::Dtype::kFloat32);
  }
  aclnnStatus PhaseOne(int64_t reduction, uint64_t* workspace_size, aclOpExecutor** executor) {
    return aclnnMseLossBackwardGetWorkspaceSize(grad.get(), self.get(), target.get(), reduction, out.get(),
                                                workspace_size, executor);
  }

  support::DeviceTensor grad, self, target, out;
};

// ---------------------------------------------------------------------------------------------
// aclTensor.

TEST(Tensor, CreateKeepsEveryField) {
  support::EnsureRuntime();
  DeviceMemory memory(40 * 2);
  const int64_t dims[] = {2, 3, 4};
  const int64_t strides[] = {1, 2, 6};
  const int64_t storage[] = {5, 8};
  aclTensor* tensor = aclCreateTensor(dims, 3, ACL_FLOAT16, strides, 5, ACL_FORMAT_NCHW, storage, 2, memory.get());
  ASSERT_NE(tensor, nullptr) << aclGetRecentErrMsg();

  EXPECT_EQ(ViewShapeOf(tensor), (std::vector<int64_t>{2, 3, 4}));
  EXPECT_EQ(StorageShapeOf(tensor), (std::vector<int64_t>{5, 8}));
  EXPECT_EQ(StridesOf(tensor), (std::vector<int64_t>{1, 2, 6}));
  int64_t offset = -1;
  EXPECT_EQ(aclGetViewOffset(tensor, &offset), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(offset, 5);
  aclFormat format = ACL_FORMAT_UNDEFINED;
  EXPECT_EQ(aclGetFormat(tensor, &format), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(format, ACL_FORMAT_NCHW);
  aclDataType dtype = ACL_DT_UNDEFINED;
  EXPECT_EQ(aclGetDataType(tensor, &dtype), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(dtype, ACL_FLOAT16);

  // The arrays returned are the caller's copies: changing one changes nothing in the tensor.
  int64_t* values = nullptr;
  uint64_t count = 0;
  ASSERT_EQ(aclGetViewShape(tensor, &values, &count), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  ASSERT_EQ(count, 3u);
  values[0] = 77;
  delete[] values;
  EXPECT_EQ(ViewShapeOf(tensor), (std::vector<int64_t>{2, 3, 4}));
  EXPECT_EQ(aclDestroyTensor(tensor), ACLNN_SUCCESS);

  // The tensor keeps copies of the caller's arrays too.
  int64_t changing_dims[] = {6, 7};
  int64_t changing_storage[] = {42};
  tensor = aclCreateTensor(changing_dims, 2, ACL_BF16, nullptr, 0, ACL_FORMAT_ND, changing_storage, 1, memory.get());
  ASSERT_NE(tensor, nullptr) << aclGetRecentErrMsg();
  changing_dims[0] = 1;
  changing_storage[0] = 1;
  EXPECT_EQ(ViewShapeOf(tensor), (std::vector<int64_t>{6, 7}));
  EXPECT_EQ(StorageShapeOf(tensor), (std::vector<int64_t>{42}));
  EXPECT_EQ(StridesOf(tensor), (std::vector<int64_t>{7, 1}));
  EXPECT_EQ(aclGetDataType(tensor, &dtype), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(dtype, ACL_BF16);
  EXPECT_EQ(aclGetFormat(tensor, &format), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(format, ACL_FORMAT_ND);
  EXPECT_EQ(aclDestroyTensor(tensor), ACLNN_SUCCESS);
}

TEST(Tensor, ZeroDimAndEmptyTensors) {
  support::EnsureRuntime();
  DeviceMemory memory(64);
  const int64_t storage[] = {1};
  aclTensor* scalar = aclCreateTensor(nullptr, 0, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, storage, 1, memory.get());
  ASSERT_NE(scalar, nullptr) << aclGetRecentErrMsg();
  int64_t* values = nullptr;
  uint64_t count = 99;
  ASSERT_EQ(aclGetViewShape(scalar, &values, &count), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(count, 0u);
  EXPECT_NE(values, nullptr);
  delete[] values;
  values = nullptr;
  count = 99;
  ASSERT_EQ(aclGetViewStrides(scalar, &values, &count), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(count, 0u);
  delete[] values;
  EXPECT_EQ(StorageShapeOf(scalar), (std::vector<int64_t>{1}));
  EXPECT_EQ(aclDestroyTensor(scalar), ACLNN_SUCCESS);

  // No storage dims at all is accepted too.
  aclTensor* bare = aclCreateTensor(nullptr, 0, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, nullptr, 0, nullptr);
  ASSERT_NE(bare, nullptr) << aclGetRecentErrMsg();
  EXPECT_EQ(StorageShapeOf(bare), std::vector<int64_t>{});
  EXPECT_EQ(aclDestroyTensor(bare), ACLNN_SUCCESS);

  // A dim of size 0.
  const int64_t dims[] = {3, 0, 2};
  aclTensor* empty = aclCreateTensor(dims, 3, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, storage, 1, memory.get());
  ASSERT_NE(empty, nullptr) << aclGetRecentErrMsg();
  EXPECT_EQ(ViewShapeOf(empty), (std::vector<int64_t>{3, 0, 2}));
  // Contiguous strides count a zero dim as one (as PyTorch does), so they never collapse to 0.
  EXPECT_EQ(StridesOf(empty), (std::vector<int64_t>{2, 2, 1}));
  EXPECT_EQ(aclDestroyTensor(empty), ACLNN_SUCCESS);
}

TEST(Tensor, NullStridesMeanContiguous) {
  support::EnsureRuntime();
  const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> cases = {
      {{2, 3, 4}, {12, 4, 1}},
      {{5}, {1}},
      {{7, 1, 3}, {3, 3, 1}},
      {{2, 2, 2, 2, 3}, {24, 12, 6, 3, 1}},
  };
  for (const auto& entry : cases) {
    const std::vector<int64_t>& dims = entry.first;
    int64_t numel = 1;
    for (int64_t d : dims) numel *= d;
    const int64_t storage[] = {numel};
    aclTensor* tensor =
        aclCreateTensor(dims.data(), dims.size(), ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, storage, 1, nullptr);
    ASSERT_NE(tensor, nullptr) << aclGetRecentErrMsg();
    EXPECT_EQ(StridesOf(tensor), entry.second);
    int64_t offset = -1;
    EXPECT_EQ(aclGetViewOffset(tensor, &offset), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    EXPECT_EQ(offset, 0);
    EXPECT_EQ(aclDestroyTensor(tensor), ACLNN_SUCCESS);
  }
}

TEST(Tensor, CreateRejectsBadArguments) {
  support::EnsureRuntime();
  DeviceMemory memory(1024);
  void* data = memory.get();
  const int64_t storage[] = {64};
  const int64_t negative_dim[] = {2, -1};
  EXPECT_CREATE_FAILS(aclCreateTensor(negative_dim, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, storage, 1, data),
                      "aclCreateTensor", "viewDims[1] is -1");
  const int64_t negative_storage[] = {-8};
  const int64_t dims[] = {2, 4};
  EXPECT_CREATE_FAILS(aclCreateTensor(dims, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, negative_storage, 1, data),
                      "aclCreateTensor", "storageDims[0] is -8");
  const int64_t negative_stride[] = {4, -3};
  EXPECT_CREATE_FAILS(aclCreateTensor(dims, 2, ACL_FLOAT, negative_stride, 0, ACL_FORMAT_ND, storage, 1, data),
                      "aclCreateTensor", "stride[1] is -3");
  EXPECT_CREATE_FAILS(aclCreateTensor(dims, 2, ACL_FLOAT, nullptr, -1, ACL_FORMAT_ND, storage, 1, data),
                      "aclCreateTensor", "offset -1");
  EXPECT_CREATE_FAILS(aclCreateTensor(nullptr, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, storage, 1, data),
                      "aclCreateTensor", "viewDims is null", "2");
  EXPECT_CREATE_FAILS(aclCreateTensor(dims, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, nullptr, 1, data),
                      "aclCreateTensor", "storageDims is null", "1");

  const std::vector<int64_t> ones(65, 1);
  EXPECT_CREATE_FAILS(aclCreateTensor(ones.data(), 65, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, storage, 1, data),
                      "aclCreateTensor", "viewDims has 65 dims", "64");
  EXPECT_CREATE_FAILS(aclCreateTensor(dims, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, ones.data(), 65, data),
                      "aclCreateTensor", "storageDims has 65 dims", "64");
  // 64 dims is the limit, and allowed.
  aclTensor* widest = aclCreateTensor(ones.data(), 64, ACL_FLOAT, ones.data(), 0, ACL_FORMAT_ND, storage, 1, data);
  ASSERT_NE(widest, nullptr) << aclGetRecentErrMsg();
  EXPECT_EQ(ViewShapeOf(widest), std::vector<int64_t>(64, 1));
  EXPECT_EQ(aclDestroyTensor(widest), ACLNN_SUCCESS);

  EXPECT_CREATE_FAILS(
      aclCreateTensor(dims, 2, static_cast<aclDataType>(99), nullptr, 0, ACL_FORMAT_ND, storage, 1, data),
      "aclCreateTensor", "dataType 99");
  EXPECT_CREATE_FAILS(aclCreateTensor(dims, 2, ACL_STRING, nullptr, 0, ACL_FORMAT_ND, storage, 1, data),
                      "aclCreateTensor", "dataType 13");
  EXPECT_CREATE_FAILS(aclCreateTensor(dims, 2, ACL_DT_UNDEFINED, nullptr, 0, ACL_FORMAT_ND, storage, 1, data),
                      "aclCreateTensor", "dataType -1");
  // The sub-byte types have no byte size but are real types.
  aclTensor* int4 = aclCreateTensor(dims, 2, ACL_INT4, nullptr, 0, ACL_FORMAT_ND, storage, 1, data);
  ASSERT_NE(int4, nullptr) << aclGetRecentErrMsg();
  aclDataType dtype = ACL_DT_UNDEFINED;
  EXPECT_EQ(aclGetDataType(int4, &dtype), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(dtype, ACL_INT4);
  EXPECT_EQ(aclDestroyTensor(int4), ACLNN_SUCCESS);
}

TEST(Tensor, AccessorsRejectNullAndDeadTensors) {
  support::EnsureRuntime();
  const int64_t dims[] = {2, 3};
  const int64_t storage[] = {6};
  aclTensor* tensor = aclCreateTensor(dims, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, storage, 1, nullptr);
  ASSERT_NE(tensor, nullptr) << aclGetRecentErrMsg();
  int64_t* values = nullptr;
  uint64_t count = 0;
  int64_t offset = -7;
  aclFormat format = ACL_FORMAT_UNDEFINED;
  aclDataType dtype = ACL_DT_UNDEFINED;

  EXPECT_FAILS(aclGetViewShape(nullptr, &values, &count), ACLNN_ERR_PARAM_NULLPTR, "aclGetViewShape", "null");
  EXPECT_FAILS(aclGetViewShape(tensor, nullptr, &count), ACLNN_ERR_PARAM_NULLPTR, "aclGetViewShape", "null");
  EXPECT_FAILS(aclGetViewShape(tensor, &values, nullptr), ACLNN_ERR_PARAM_NULLPTR, "aclGetViewShape", "null");
  EXPECT_FAILS(aclGetStorageShape(nullptr, &values, &count), ACLNN_ERR_PARAM_NULLPTR, "aclGetStorageShape", "null");
  EXPECT_FAILS(aclGetStorageShape(tensor, nullptr, &count), ACLNN_ERR_PARAM_NULLPTR, "aclGetStorageShape", "null");
  EXPECT_FAILS(aclGetViewStrides(nullptr, &values, &count), ACLNN_ERR_PARAM_NULLPTR, "aclGetViewStrides", "null");
  EXPECT_FAILS(aclGetViewStrides(tensor, &values, nullptr), ACLNN_ERR_PARAM_NULLPTR, "aclGetViewStrides", "null");
  EXPECT_FAILS(aclGetViewOffset(nullptr, &offset), ACLNN_ERR_PARAM_NULLPTR, "aclGetViewOffset", "null");
  EXPECT_FAILS(aclGetViewOffset(tensor, nullptr), ACLNN_ERR_PARAM_NULLPTR, "aclGetViewOffset", "null");
  EXPECT_FAILS(aclGetFormat(nullptr, &format), ACLNN_ERR_PARAM_NULLPTR, "aclGetFormat", "null");
  EXPECT_FAILS(aclGetFormat(tensor, nullptr), ACLNN_ERR_PARAM_NULLPTR, "aclGetFormat", "null");
  EXPECT_FAILS(aclGetDataType(nullptr, &dtype), ACLNN_ERR_PARAM_NULLPTR, "aclGetDataType", "null");
  EXPECT_FAILS(aclGetDataType(tensor, nullptr), ACLNN_ERR_PARAM_NULLPTR, "aclGetDataType", "null");
  EXPECT_EQ(values, nullptr);

  EXPECT_EQ(aclDestroyTensor(nullptr), ACLNN_SUCCESS);
  ASSERT_EQ(aclDestroyTensor(tensor), ACLNN_SUCCESS);
  // No tensor is created below, so the dead handle cannot name a new one.
  EXPECT_FAILS(aclGetViewShape(tensor, &values, &count), ACLNN_ERR_PARAM_INVALID, "aclGetViewShape",
               "not a live aclTensor");
  EXPECT_FAILS(aclGetStorageShape(tensor, &values, &count), ACLNN_ERR_PARAM_INVALID, "aclGetStorageShape",
               "not a live aclTensor");
  EXPECT_FAILS(aclGetViewStrides(tensor, &values, &count), ACLNN_ERR_PARAM_INVALID, "aclGetViewStrides",
               "not a live aclTensor");
  EXPECT_FAILS(aclGetViewOffset(tensor, &offset), ACLNN_ERR_PARAM_INVALID, "aclGetViewOffset", "not a live aclTensor");
  EXPECT_FAILS(aclGetFormat(tensor, &format), ACLNN_ERR_PARAM_INVALID, "aclGetFormat", "not a live aclTensor");
  EXPECT_FAILS(aclGetDataType(tensor, &dtype), ACLNN_ERR_PARAM_INVALID, "aclGetDataType", "not a live aclTensor");
  EXPECT_FAILS(aclDestroyTensor(tensor), ACLNN_ERR_PARAM_INVALID, "aclDestroyTensor", "not a live aclTensor");
  EXPECT_EQ(values, nullptr);
  EXPECT_EQ(offset, -7);
  EXPECT_EQ(format, ACL_FORMAT_UNDEFINED);
  EXPECT_EQ(dtype, ACL_DT_UNDEFINED);

  // A pointer that never was a tensor.
  int64_t not_a_tensor[4] = {0, 0, 0, 0};
  const aclTensor* fake = reinterpret_cast<const aclTensor*>(not_a_tensor);
  EXPECT_FAILS(aclGetViewOffset(fake, &offset), ACLNN_ERR_PARAM_INVALID, "aclGetViewOffset", "not a live aclTensor");
  EXPECT_FAILS(aclDestroyTensor(fake), ACLNN_ERR_PARAM_INVALID, "aclDestroyTensor", "not a live aclTensor");
}

TEST(Tensor, PhaseOneRejectsDestroyedTensor) {
  support::EnsureRuntime();
  MseTensors tensors({3, 4});
  RawFloatTensor self({3, 4}, RandomFloats(12, 5));
  aclTensor* dead = self.get();
  ASSERT_EQ(self.DestroyDescriptor(), ACLNN_SUCCESS);
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  EXPECT_FAILS(aclnnMseLossBackwardGetWorkspaceSize(tensors.grad.get(), dead, tensors.target.get(), 1,
                                                    tensors.out.get(), &workspace_size, &executor),
               ACLNN_ERR_PARAM_INVALID, "aclnnMseLossBackwardGetWorkspaceSize", "self", "not a live aclTensor");
  EXPECT_EQ(executor, nullptr);
}

// ---------------------------------------------------------------------------------------------
// aclOpExecutor.

TEST(Executor, OneShotExecutorRunsOnce) {
  MseTensors tensors({6, 7});
  tensors.Fill(10);
  const golden::Tensor expected = tensors.Expected(1);
  uint64_t workspace_size = 99;
  aclOpExecutor* executor = nullptr;
  ASSERT_EQ(tensors.PhaseOne(1, &workspace_size, &executor), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  ASSERT_NE(executor, nullptr);
  EXPECT_EQ(workspace_size, 0u);
  ASSERT_EQ(aclnnMseLossBackward(nullptr, 0, executor, nullptr), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(support::CompareBits(golden::Dtype::kFloat32, expected.bits, tensors.out.Read()), "");

  // No phase one below, so the consumed handle cannot name a new executor.
  EXPECT_FAILS(aclnnMseLossBackward(nullptr, 0, executor, nullptr), ACLNN_ERR_PARAM_INVALID, "aclnnMseLossBackward",
               PtrText(executor), "not a live executor");
  EXPECT_FAILS(aclDestroyAclOpExecutor(executor), ACLNN_ERR_PARAM_INVALID, "aclDestroyAclOpExecutor", PtrText(executor),
               "not a live executor");
  EXPECT_FAILS(aclSetAclOpExecutorRepeatable(executor), ACLNN_ERR_PARAM_INVALID, "aclSetAclOpExecutorRepeatable",
               PtrText(executor), "not a live executor");
}

TEST(Executor, RepeatableExecutorRunsUntilDestroyed) {
  MseTensors tensors({5, 9}, support::Layout::kStridedOffset);
  tensors.Fill(20);
  uint64_t workspace_size = 99;
  aclOpExecutor* executor = nullptr;
  ASSERT_EQ(tensors.PhaseOne(1, &workspace_size, &executor), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  ASSERT_EQ(workspace_size, 0u);
  ASSERT_EQ(aclSetAclOpExecutorRepeatable(executor), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS) << aclGetRecentErrMsg();

  for (int round = 0; round < 3; ++round) {
    tensors.Fill(30 + 10 * static_cast<uint32_t>(round));
    const golden::Tensor expected = tensors.Expected(1);
    aclrtStream on = round == 1 ? nullptr : stream;
    ASSERT_EQ(aclnnMseLossBackward(nullptr, 0, executor, on), ACLNN_SUCCESS)
        << "round " << round << ": " << aclGetRecentErrMsg();
    ASSERT_EQ(aclrtSynchronizeStream(on), ACL_SUCCESS) << aclGetRecentErrMsg();
    EXPECT_EQ(support::CompareBits(golden::Dtype::kFloat32, expected.bits, tensors.out.Read()), "")
        << "round " << round;
  }
  // Setting it repeatable twice is harmless.
  EXPECT_EQ(aclSetAclOpExecutorRepeatable(executor), ACLNN_SUCCESS) << aclGetRecentErrMsg();

  ASSERT_EQ(aclDestroyAclOpExecutor(executor), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_FAILS(aclnnMseLossBackward(nullptr, 0, executor, stream), ACLNN_ERR_PARAM_INVALID, "aclnnMseLossBackward",
               PtrText(executor), "not a live executor");
  EXPECT_FAILS(aclDestroyAclOpExecutor(executor), ACLNN_ERR_PARAM_INVALID, "aclDestroyAclOpExecutor", PtrText(executor),
               "not a live executor");
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS) << aclGetRecentErrMsg();
}

TEST(Executor, RepeatableLaunchesQueuedBeforeDestroyStillRun) {
  MseTensors tensors({64, 64});
  tensors.Fill(40);
  const golden::Tensor expected = tensors.Expected(2);
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  ASSERT_EQ(tensors.PhaseOne(2, &workspace_size, &executor), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  ASSERT_EQ(aclSetAclOpExecutorRepeatable(executor), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  for (int i = 0; i < 5; ++i) {
    ASSERT_EQ(aclnnMseLossBackward(nullptr, 0, executor, nullptr), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  }
  ASSERT_EQ(aclDestroyAclOpExecutor(executor), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(support::CompareBits(golden::Dtype::kFloat32, expected.bits, tensors.out.Read()), "");
}

TEST(Executor, NullArguments) {
  support::EnsureRuntime();
  EXPECT_FAILS(aclSetAclOpExecutorRepeatable(nullptr), ACLNN_ERR_PARAM_NULLPTR, "aclSetAclOpExecutorRepeatable",
               "null");
  EXPECT_FAILS(aclDestroyAclOpExecutor(nullptr), ACLNN_ERR_PARAM_NULLPTR, "aclDestroyAclOpExecutor", "null");
  EXPECT_FAILS(aclnnMseLossBackward(nullptr, 0, nullptr, nullptr), ACLNN_ERR_PARAM_NULLPTR, "aclnnMseLossBackward",
               "executor is null");

  MseTensors tensors({2, 2});
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  EXPECT_FAILS(tensors.PhaseOne(0, nullptr, &executor), ACLNN_ERR_PARAM_NULLPTR, "aclnnMseLossBackwardGetWorkspaceSize",
               "workspaceSize is null");
  EXPECT_FAILS(tensors.PhaseOne(0, &workspace_size, nullptr), ACLNN_ERR_PARAM_NULLPTR,
               "aclnnMseLossBackwardGetWorkspaceSize", "executor is null");
  EXPECT_EQ(executor, nullptr);
}

TEST(Executor, WorkspaceForPartiallyAliasedOutput) {
  support::EnsureRuntime();
  const int64_t n = 256;
  DeviceMemory shared(static_cast<size_t>(2 * n) * sizeof(float));
  const std::vector<uint32_t> shared_values = RandomFloats(2 * n, 50);
  ASSERT_EQ(aclrtMemcpy(shared.get(), shared.bytes(), shared_values.data(), shared.bytes(), ACL_MEMCPY_HOST_TO_DEVICE),
            ACL_SUCCESS)
      << aclGetRecentErrMsg();
  // self: elements [0, n); out: elements [n/2, n/2 + n) of the same allocation.
  support::DeviceTensor self(ACL_FLOAT, {n}, {1}, 0, {2 * n}, shared.get());
  support::DeviceTensor out(ACL_FLOAT, {n}, {1}, n / 2, {2 * n}, shared.get());
  support::DeviceTensor grad(ACL_FLOAT, {n}, support::Layout::kContiguous);
  support::DeviceTensor target(ACL_FLOAT, {n}, support::Layout::kContiguous);
  grad.Write(RandomFloats(n, 51));
  target.Write(RandomFloats(n, 52));
  const golden::Tensor expected = golden::MseLossGrad(grad.ToGoldenTensor(), self.ToGoldenTensor(),
                                                      target.ToGoldenTensor(), 0, golden::Dtype::kFloat32);

  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  ASSERT_EQ(aclnnMseLossBackwardGetWorkspaceSize(grad.get(), self.get(), target.get(), 0, out.get(), &workspace_size,
                                                 &executor),
            ACLNN_SUCCESS)
      << aclGetRecentErrMsg();
  ASSERT_GT(workspace_size, 0u);
  EXPECT_GE(workspace_size, static_cast<uint64_t>(n) * sizeof(float));  // room for a copy of self

  DeviceMemory workspace(workspace_size);
  EXPECT_FAILS(aclnnMseLossBackward(workspace.get(), workspace_size - 1, executor, nullptr), ACLNN_ERR_PARAM_INVALID,
               "aclnnMseLossBackward", "workspaceSize " + std::to_string(workspace_size - 1),
               std::to_string(workspace_size));
  // The failed launches leave the one-shot executor usable.
  EXPECT_FAILS(aclnnMseLossBackward(nullptr, workspace_size, executor, nullptr), ACLNN_ERR_PARAM_NULLPTR,
               "aclnnMseLossBackward", "workspace is null");
  std::vector<uint8_t> host_workspace(workspace_size, 0);
  EXPECT_FAILS(aclnnMseLossBackward(host_workspace.data(), workspace_size, executor, nullptr), ACLNN_ERR_PARAM_INVALID,
               "aclnnMseLossBackward", "workspace", PtrText(host_workspace.data()));
  DeviceMemory small_workspace(workspace_size - 1);
  EXPECT_FAILS(aclnnMseLossBackward(small_workspace.get(), workspace_size, executor, nullptr), ACLNN_ERR_PARAM_INVALID,
               "aclnnMseLossBackward", "workspace", PtrText(small_workspace.get()));

  ASSERT_EQ(aclnnMseLossBackward(workspace.get(), workspace_size, executor, nullptr), ACLNN_SUCCESS)
      << aclGetRecentErrMsg();
  ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(support::CompareBits(golden::Dtype::kFloat32, expected.bits, out.Read()), "");
  // The elements of the allocation before out are self's first half, untouched.
  const std::vector<uint32_t> self_after = self.Read();
  for (int64_t i = 0; i < n / 2; ++i) EXPECT_EQ(self_after[i], shared_values[i]) << "element " << i;
}

TEST(Executor, DestroyedWithoutLaunch) {
  MseTensors tensors({4, 4});
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  ASSERT_EQ(tensors.PhaseOne(0, &workspace_size, &executor), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(aclDestroyAclOpExecutor(executor), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_FAILS(aclnnMseLossBackward(nullptr, 0, executor, nullptr), ACLNN_ERR_PARAM_INVALID, "aclnnMseLossBackward",
               PtrText(executor), "not a live executor");
  EXPECT_FAILS(aclDestroyAclOpExecutor(executor), ACLNN_ERR_PARAM_INVALID, "aclDestroyAclOpExecutor",
               PtrText(executor));
}

TEST(Executor, OwnsWhatTheLaunchNeedsOnceTensorsAreDestroyed) {
  support::EnsureRuntime();
  const std::vector<int64_t> shape = {17, 23};
  RawFloatTensor grad(shape, RandomFloats(17 * 23, 60));
  RawFloatTensor self(shape, RandomFloats(17 * 23, 61));
  RawFloatTensor target(shape, RandomFloats(17 * 23, 62));
  RawFloatTensor out(shape, std::vector<uint32_t>(17 * 23, 0));
  const golden::Tensor expected =
      golden::MseLossGrad(grad.Golden(), self.Golden(), target.Golden(), 1, golden::Dtype::kFloat32);
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  ASSERT_EQ(aclnnMseLossBackwardGetWorkspaceSize(grad.get(), self.get(), target.get(), 1, out.get(), &workspace_size,
                                                 &executor),
            ACLNN_SUCCESS)
      << aclGetRecentErrMsg();
  EXPECT_EQ(grad.DestroyDescriptor(), ACLNN_SUCCESS);
  EXPECT_EQ(self.DestroyDescriptor(), ACLNN_SUCCESS);
  EXPECT_EQ(target.DestroyDescriptor(), ACLNN_SUCCESS);
  EXPECT_EQ(out.DestroyDescriptor(), ACLNN_SUCCESS);
  ASSERT_EQ(aclnnMseLossBackward(nullptr, workspace_size, executor, nullptr), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(support::CompareBits(golden::Dtype::kFloat32, expected.bits, out.Read()), "");
}

TEST(Executor, LaunchAfterMemoryWasFreedNamesTheParameter) {
  support::EnsureRuntime();
  const char* names[] = {"gradOutput", "self", "target", "out"};
  for (int freed = 0; freed < 4; ++freed) {
    SCOPED_TRACE(names[freed]);
    const std::vector<int64_t> shape = {8, 8};
    std::vector<std::unique_ptr<RawFloatTensor>> tensors;
    for (int i = 0; i < 4; ++i) {
      tensors.push_back(std::make_unique<RawFloatTensor>(shape, RandomFloats(64, 70 + static_cast<uint32_t>(i))));
    }
    uint64_t workspace_size = 0;
    aclOpExecutor* executor = nullptr;
    ASSERT_EQ(aclnnMseLossBackwardGetWorkspaceSize(tensors[0]->get(), tensors[1]->get(), tensors[2]->get(), 1,
                                                   tensors[3]->get(), &workspace_size, &executor),
              ACLNN_SUCCESS)
        << aclGetRecentErrMsg();
    ASSERT_EQ(tensors[freed]->FreeMemory(), ACL_SUCCESS) << aclGetRecentErrMsg();
    EXPECT_FAILS(aclnnMseLossBackward(nullptr, workspace_size, executor, nullptr), ACLNN_ERR_PARAM_INVALID,
                 "aclnnMseLossBackward", std::string("memory of ") + names[freed], "no longer");
    // Nothing was launched: the executor is still there to be destroyed.
    EXPECT_EQ(aclDestroyAclOpExecutor(executor), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  }
}

TEST(Aclnn, InitAndFinalizeSucceed) {
  EXPECT_EQ(aclnnInit(nullptr), ACLNN_SUCCESS);
  EXPECT_EQ(aclnnInit("/nonexistent/aclnn.json"), ACLNN_SUCCESS);
  EXPECT_EQ(aclnnFinalize(), ACLNN_SUCCESS);
  // The operator still works afterwards.
  MseTensors tensors({3, 5});
  tensors.Fill(80);
  const golden::Tensor expected = tensors.Expected(2);
  ASSERT_EQ(
      support::RunMseLossBackward(tensors.grad.get(), tensors.self.get(), tensors.target.get(), 2, tensors.out.get()),
      ACLNN_SUCCESS)
      << aclGetRecentErrMsg();
  EXPECT_EQ(support::CompareBits(golden::Dtype::kFloat32, expected.bits, tensors.out.Read()), "");
}

}  // namespace

namespace {

// Handles are never reused: after a destroy, a new object never answers to the old handle.
TEST(Handles, DestroyedHandlesNeverNameALaterObject) {
  support::EnsureRuntime();
  const int64_t dims[] = {4};
  std::vector<aclTensor*> destroyed;
  for (int i = 0; i < 100; ++i) {
    aclTensor* t = aclCreateTensor(dims, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, dims, 1, nullptr);
    ASSERT_NE(t, nullptr);
    ASSERT_EQ(aclDestroyTensor(t), ACLNN_SUCCESS);
    destroyed.push_back(t);
  }
  aclTensor* live = aclCreateTensor(dims, 1, ACL_FLOAT, nullptr, 7, ACL_FORMAT_ND, dims, 1, nullptr);
  int64_t offset = 0;
  for (aclTensor* old : destroyed) {
    EXPECT_NE(old, live);
    EXPECT_EQ(aclGetViewOffset(old, &offset), ACLNN_ERR_PARAM_INVALID);
  }
  EXPECT_EQ(aclGetViewOffset(live, &offset), ACLNN_SUCCESS);
  EXPECT_EQ(offset, 7);
  EXPECT_EQ(aclDestroyTensor(live), ACLNN_SUCCESS);

  aclrtStream first = nullptr, second = nullptr;
  ASSERT_EQ(aclrtCreateStream(&first), ACL_SUCCESS);
  ASSERT_EQ(aclrtDestroyStream(first), ACL_SUCCESS);
  ASSERT_EQ(aclrtCreateStream(&second), ACL_SUCCESS);
  EXPECT_NE(first, second);
  EXPECT_EQ(aclrtSynchronizeStream(first), ACL_ERROR_RT_INVALID_HANDLE);
  EXPECT_EQ(aclrtDestroyStream(second), ACL_SUCCESS);
}

}  // namespace
