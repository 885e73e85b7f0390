// Sizes whose arithmetic overflows: view dims, strides, offsets, storage dims and byte counts whose
// products or sums do not fit int64_t (or size_t) are rejected by phase one with
// ACLNN_ERR_PARAM_INVALID and a message naming the parameter, never wrapped around into a small
// (or negative) number that would pass the checks. Every data pointer is a valid aclrtMalloc
// allocation, so the overflow is the only thing wrong. Also: aclCreateTensor's contiguous strides,
// aclrtMalloc of sizes near SIZE_MAX, and aclrtMemcpy / aclrtMemset counts near SIZE_MAX.
#include <gtest/gtest.h>

#include <cstdint>
#include <initializer_list>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_mse_loss_backward.h"
#include "support/api_support.h"
#include "support/expect_error.h"

namespace {

using support::MessageMentions;

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t k2Pow32 = int64_t{1} << 32;
constexpr int64_t k2Pow61 = int64_t{1} << 61;
constexpr int64_t k2Pow62 = int64_t{1} << 62;
constexpr size_t kBytes = 4096;  // each tensor's allocation

const char* const kNames[4] = {"gradOutput", "self", "target", "out"};

// What aclCreateTensor is given; strides nullopt passes a null pointer (contiguous).
struct TensorSpec {
  std::vector<int64_t> dims;
  std::optional<std::vector<int64_t>> strides;
  int64_t offset = 0;
  std::vector<int64_t> storage;
  aclDataType dtype = ACL_FLOAT;
};

// A valid small tensor of the given dims: contiguous, offset 0, storage exactly the view.
TensorSpec Plain(const std::vector<int64_t>& dims, aclDataType dtype = ACL_FLOAT) {
  int64_t numel = 1;
  for (int64_t d : dims) numel *= d;
  return TensorSpec{dims, std::nullopt, 0, {numel}, dtype};
}

// A view of dims that repeats one stored element (every stride 0): valid however large dims are.
TensorSpec Repeated(const std::vector<int64_t>& dims, aclDataType dtype = ACL_FLOAT) {
  return TensorSpec{dims, std::vector<int64_t>(dims.size(), 0), 0, {1}, dtype};
}

// An aclrtMalloc allocation, freed on destruction.
class DeviceMemory {
 public:
  explicit DeviceMemory(size_t bytes) {
    support::EnsureRuntime();
    EXPECT_EQ(aclrtMalloc(&ptr_, bytes, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS) << aclGetRecentErrMsg();
    if (ptr_ != nullptr) {
      EXPECT_EQ(aclrtMemset(ptr_, bytes, 0x5a, bytes), ACL_SUCCESS) << aclGetRecentErrMsg();
    }
  }
  ~DeviceMemory() {
    if (ptr_ != nullptr) {
      EXPECT_EQ(aclrtFree(ptr_), ACL_SUCCESS) << aclGetRecentErrMsg();
    }
  }
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;
  void* get() const { return ptr_; }
  char* at(size_t offset) const { return static_cast<char*>(ptr_) + offset; }

 private:
  void* ptr_ = nullptr;
};

// The four tensors of one call, each over its own valid allocation.
class Call {
 public:
  explicit Call(const TensorSpec (&specs)[4]) {
    for (int i = 0; i < 4; ++i) {
      memory_[i] = std::make_unique<DeviceMemory>(kBytes);
      const TensorSpec& s = specs[i];
      tensors_[i] = aclCreateTensor(s.dims.data(), s.dims.size(), s.dtype, s.strides ? s.strides->data() : nullptr,
                                    s.offset, ACL_FORMAT_ND, s.storage.data(), s.storage.size(), memory_[i]->get());
      EXPECT_NE(tensors_[i], nullptr) << kNames[i] << ": " << aclGetRecentErrMsg();
    }
  }
  ~Call() {
    for (aclTensor* t : tensors_) aclDestroyTensor(t);
  }
  Call(const Call&) = delete;
  Call& operator=(const Call&) = delete;

  aclnnStatus PhaseOne(int64_t reduction, uint64_t* workspace_size, aclOpExecutor** executor) const {
    return aclnnMseLossBackwardGetWorkspaceSize(tensors_[0], tensors_[1], tensors_[2], reduction, tensors_[3],
                                                workspace_size, executor);
  }
  const DeviceMemory& memory(int i) const { return *memory_[i]; }

 private:
  std::unique_ptr<DeviceMemory> memory_[4];
  aclTensor* tensors_[4] = {};
};

// Phase one over the specs fails with ACLNN_ERR_PARAM_INVALID, creates no executor, and the message
// mentions every part.
::testing::AssertionResult RejectedMentioning(const TensorSpec (&specs)[4], const std::vector<std::string>& parts) {
  Call call(specs);
  uint64_t workspace_size = 12345;
  aclOpExecutor* executor = nullptr;
  const aclnnStatus status = call.PhaseOne(1, &workspace_size, &executor);
  if (status != ACLNN_ERR_PARAM_INVALID) {
    if (executor != nullptr) aclDestroyAclOpExecutor(executor);
    return ::testing::AssertionFailure() << "status " << status << ", expected ACLNN_ERR_PARAM_INVALID (161002); "
                                         << aclGetRecentErrMsg();
  }
  if (executor != nullptr) return ::testing::AssertionFailure() << "an executor was created";
  return MessageMentions(parts);
}

// specs with the tensor at `position` replaced by `bad`; the others are valid views of `shape`
// (repeating one element, so that any shape fits their allocations).
void Fill(TensorSpec (&specs)[4], const std::vector<int64_t>& shape, int position, const TensorSpec& bad) {
  for (int i = 0; i < 4; ++i) specs[i] = Repeated(shape, bad.dtype);
  specs[position] = bad;
}

std::string LargestText(const std::vector<int64_t>& values) {
  int64_t largest = 0;
  for (int64_t v : values) largest = v > largest ? v : largest;
  return std::to_string(largest);
}

// ---------------------------------------------------------------------------------------------
// Phase one.

TEST(Overflow, ViewDimsWhoseProductOverflows) {
  // Each product is 2^64 or more: wrapped around it would be 0 (an empty tensor) or negative.
  const std::vector<std::vector<int64_t>> shapes = {
      {k2Pow32, k2Pow32},
      {int64_t{1} << 21, int64_t{1} << 21, int64_t{1} << 22},
      {4, k2Pow62},
      {kMax, 2},
      {3, 1, 1, 1, 1, 1, 1, k2Pow62},
  };
  for (const std::vector<int64_t>& dims : shapes) {
    for (int position = 0; position < 3; ++position) {
      SCOPED_TRACE(std::string(kNames[position]) + " dims with " + LargestText(dims));
      TensorSpec specs[4] = {Plain({1}), Plain({1}), Plain({1}), Repeated(dims)};
      specs[position] = Repeated(dims);
      EXPECT_TRUE(RejectedMentioning(specs, {kNames[position], LargestText(dims)}));
    }
  }
}

TEST(Overflow, StrideTimesDimOverflows) {
  struct Case {
    std::vector<int64_t> dims, strides;
  };
  const Case cases[] = {
      {{3}, {k2Pow62}},                        // (3 - 1) * 2^62 = 2^63
      {{2, 2}, {k2Pow62, k2Pow62}},            // each term fits, their sum does not
      {{k2Pow32, 2}, {k2Pow32, 1}},            // (2^32 - 1) * 2^32
      {{kMax, 1}, {2, 1}},                     // (2^63 - 2) * 2
      {{2, 2, 2, 2}, {1, 1, kMax / 2, kMax}},  // the last stride alone
  };
  for (const Case& c : cases) {
    for (int position = 0; position < 4; ++position) {
      SCOPED_TRACE(std::string(kNames[position]) + " strides with " + LargestText(c.strides));
      TensorSpec specs[4];
      Fill(specs, c.dims, position, TensorSpec{c.dims, c.strides, 0, {8}, ACL_FLOAT});
      EXPECT_TRUE(RejectedMentioning(specs, {kNames[position], LargestText(c.strides)}));
    }
  }
}

TEST(Overflow, OffsetPlusSpanOverflows) {
  struct Case {
    std::vector<int64_t> dims, strides;
    int64_t offset;
  };
  const Case cases[] = {
      {{4}, {1}, kMax - 1},                  // offset + 3
      {{2}, {1}, kMax},                      // offset + 1
      {{2, 3}, {3, 1}, kMax - 4},            // offset + 3 + 2
      {{2}, {k2Pow62}, kMax - k2Pow62 + 1},  // offset + 2^62
  };
  for (const Case& c : cases) {
    for (int position = 0; position < 4; ++position) {
      SCOPED_TRACE(std::string(kNames[position]) + " offset " + std::to_string(c.offset));
      TensorSpec specs[4];
      Fill(specs, c.dims, position, TensorSpec{c.dims, c.strides, c.offset, {8}, ACL_FLOAT});
      EXPECT_TRUE(RejectedMentioning(specs, {kNames[position], std::to_string(c.offset)}));
    }
  }
  // Not an overflow, only far outside the storage: the same code.
  for (int position = 0; position < 4; ++position) {
    TensorSpec specs[4];
    Fill(specs, {1}, position, TensorSpec{{1}, std::vector<int64_t>{1}, k2Pow62, {8}, ACL_FLOAT});
    EXPECT_TRUE(RejectedMentioning(specs, {kNames[position], std::to_string(k2Pow62)})) << kNames[position];
  }
}

TEST(Overflow, StorageDimsWhoseProductOverflows) {
  const std::vector<std::vector<int64_t>> storages = {
      {k2Pow32, k2Pow32},
      {kMax, 2},
      {3, k2Pow62},
      {2, 2, 2, 2, 2, 2, 2, k2Pow62},
  };
  for (const std::vector<int64_t>& storage : storages) {
    for (int position = 0; position < 4; ++position) {
      SCOPED_TRACE(std::string(kNames[position]) + " storage with " + LargestText(storage));
      TensorSpec specs[4];
      Fill(specs, {4}, position, TensorSpec{{4}, std::nullopt, 0, storage, ACL_FLOAT});
      EXPECT_TRUE(RejectedMentioning(specs, {kNames[position], LargestText(storage)}));
    }
  }
}

TEST(Overflow, StorageElementsTimesElementSizeOverflows) {
  struct Case {
    aclDataType dtype;
    int64_t storage;
  };
  const Case cases[] = {
      {ACL_FLOAT, k2Pow62},       // 2^64 bytes: overflows size_t too
      {ACL_FLOAT, k2Pow61},       // 2^63 bytes: fits size_t, not int64_t
      {ACL_FLOAT, kMax / 4 + 1},  // just past the limit
      {ACL_FLOAT16, k2Pow62},     // 2^63 bytes
      {ACL_BF16, kMax},           // 2^64 - 2 bytes
  };
  for (const Case& c : cases) {
    for (int position = 0; position < 4; ++position) {
      SCOPED_TRACE(std::string(kNames[position]) + " storage " + std::to_string(c.storage) + " of dtype " +
                   std::to_string(static_cast<int>(c.dtype)));
      TensorSpec specs[4];
      Fill(specs, {4}, position, TensorSpec{{4}, std::nullopt, 0, {c.storage}, c.dtype});
      EXPECT_TRUE(RejectedMentioning(specs, {kNames[position], std::to_string(c.storage)}));
    }
  }
  // Without an overflow, a storage larger than its allocation: the same code.
  for (int position = 0; position < 4; ++position) {
    TensorSpec specs[4];
    Fill(specs, {4}, position, TensorSpec{{4}, std::nullopt, 0, {int64_t{1} << 60}, ACL_FLOAT16});
    EXPECT_TRUE(RejectedMentioning(specs, {kNames[position], std::to_string(int64_t{1} << 61)})) << kNames[position];
  }
}

TEST(Overflow, OutShapeWhoseProductOverflows) {
  // The inputs are valid (every one repeats a single element) and broadcast to a shape of 2^64
  // elements; out has exactly that shape.
  {
    TensorSpec specs[4] = {Repeated({k2Pow32, 1}), Repeated({1, k2Pow32}), Plain({1}),
                           TensorSpec{{k2Pow32, k2Pow32}, std::nullopt, 0, {1}, ACL_FLOAT}};
    EXPECT_TRUE(RejectedMentioning(specs, {"out", std::to_string(k2Pow32)}));
  }
  {
    const int64_t a = int64_t{1} << 21, b = int64_t{1} << 22;
    TensorSpec specs[4] = {Repeated({a, 1, 1}), Repeated({1, a, 1}), Repeated({1, 1, b}),
                           TensorSpec{{a, a, b}, std::vector<int64_t>{1, 1, 1}, 0, {16}, ACL_FLOAT}};
    EXPECT_TRUE(RejectedMentioning(specs, {"out", std::to_string(b)}));
  }
  {
    TensorSpec specs[4] = {Repeated({kMax, 1}), Plain({1, 2}), Plain({1}), Repeated({kMax, 2})};
    EXPECT_TRUE(RejectedMentioning(specs, {"out", std::to_string(kMax)}));
  }
}

TEST(Overflow, EmptyViewWithHugeDimsIsNotAnOverflow) {
  // A zero dim makes the view empty whatever its other dims, strides and offset: phase one succeeds
  // with no workspace and the launch writes nothing.
  const TensorSpec empty{{0, k2Pow62, k2Pow62}, std::vector<int64_t>{k2Pow62, k2Pow62, k2Pow62}, kMax, {1}, ACL_FLOAT};
  const TensorSpec specs[4] = {empty, empty, empty, empty};
  Call call(specs);
  uint64_t workspace_size = 99;
  aclOpExecutor* executor = nullptr;
  ASSERT_EQ(call.PhaseOne(1, &workspace_size, &executor), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(workspace_size, 0u);
  ASSERT_EQ(aclnnMseLossBackward(nullptr, 0, executor, nullptr), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS) << aclGetRecentErrMsg();
  std::vector<uint8_t> host(kBytes, 0);
  ASSERT_EQ(aclrtMemcpy(host.data(), kBytes, call.memory(3).get(), kBytes, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
  EXPECT_EQ(host, std::vector<uint8_t>(kBytes, 0x5a));
}

// ---------------------------------------------------------------------------------------------
// aclCreateTensor.

TEST(Overflow, CreateTensorWithContiguousStridesThatOverflow) {
  support::EnsureRuntime();
  DeviceMemory memory(kBytes);
  const std::vector<std::vector<int64_t>> overflowing = {
      {1, k2Pow62, 4},        // 4 * 2^62
      {2, k2Pow32, k2Pow32},  // 2^32 * 2^32
      {5, kMax, 2},           // 2 * (2^63 - 1)
  };
  const int64_t storage[] = {1};
  for (const std::vector<int64_t>& dims : overflowing) {
    aclTensor* tensor =
        aclCreateTensor(dims.data(), dims.size(), ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, storage, 1, memory.get());
    EXPECT_EQ(tensor, nullptr) << "dims " << dims[1] << ", " << dims[2];
    if (tensor != nullptr) aclDestroyTensor(tensor);
    EXPECT_TRUE(MessageMentions({"aclCreateTensor", "viewDims"}));
  }
  // The outermost dim is not part of any stride: such a tensor is created (phase one rejects it).
  const int64_t dims[] = {kMax, k2Pow32};
  aclTensor* tensor = aclCreateTensor(dims, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, storage, 1, memory.get());
  ASSERT_NE(tensor, nullptr) << aclGetRecentErrMsg();
  int64_t* strides = nullptr;
  uint64_t count = 0;
  ASSERT_EQ(aclGetViewStrides(tensor, &strides, &count), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(std::vector<int64_t>(strides, strides + count), (std::vector<int64_t>{k2Pow32, 1}));
  delete[] strides;
  EXPECT_EQ(aclDestroyTensor(tensor), ACLNN_SUCCESS);
}

// ---------------------------------------------------------------------------------------------
// The runtime's memory functions.

TEST(Overflow, MallocOfSizesNearSizeMaxFailsAndTheRuntimeStaysUsable) {
  support::EnsureRuntime();
  const size_t sizes[] = {SIZE_MAX, SIZE_MAX - 1, SIZE_MAX - 10, SIZE_MAX - 63};
  for (size_t size : sizes) {
    void* ptr = nullptr;
    EXPECT_EQ(aclrtMalloc(&ptr, size, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_RT_MEMORY_ALLOCATION) << size;
    EXPECT_EQ(ptr, nullptr);
    EXPECT_TRUE(MessageMentions({"aclrtMalloc", "size", std::to_string(size)}));
    EXPECT_EQ(aclrtMalloc(&ptr, size, ACL_MEM_MALLOC_NORMAL_ONLY), ACL_ERROR_RT_MEMORY_ALLOCATION) << size;
    EXPECT_EQ(ptr, nullptr);
    EXPECT_EQ(aclrtMallocHost(&ptr, size), ACL_ERROR_RT_MEMORY_ALLOCATION) << size;
    EXPECT_EQ(ptr, nullptr);
    EXPECT_TRUE(MessageMentions({"aclrtMallocHost", std::to_string(size)}));
  }
  // Still usable: an allocation, a round trip through it, a free.
  void* ptr = nullptr;
  ASSERT_EQ(aclrtMalloc(&ptr, 100, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS) << aclGetRecentErrMsg();
  std::vector<uint8_t> data(100), back(100, 0);
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<uint8_t>(i * 7);
  ASSERT_EQ(aclrtMemcpy(ptr, 100, data.data(), 100, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS) << aclGetRecentErrMsg();
  ASSERT_EQ(aclrtMemcpy(back.data(), 100, ptr, 100, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(back, data);
  EXPECT_EQ(aclrtFree(ptr), ACL_SUCCESS) << aclGetRecentErrMsg();
}

TEST(Overflow, CopyAndSetCountsNearSizeMax) {
  support::EnsureRuntime();
  DeviceMemory device(kBytes);
  DeviceMemory other(kBytes);
  std::vector<uint8_t> host(kBytes, 0x11);
  const size_t near_max[] = {SIZE_MAX, SIZE_MAX - 1, SIZE_MAX - 10, SIZE_MAX - kBytes};

  for (size_t count : near_max) {
    SCOPED_TRACE(count);
    const std::string n = std::to_string(count);
    EXPECT_EQ(aclrtMemcpy(device.get(), SIZE_MAX, host.data(), count, ACL_MEMCPY_HOST_TO_DEVICE),
              ACL_ERROR_INVALID_PARAM);
    EXPECT_TRUE(MessageMentions({"aclrtMemcpy", "dst", n}));
    EXPECT_EQ(aclrtMemcpy(host.data(), SIZE_MAX, device.get(), count, ACL_MEMCPY_DEVICE_TO_HOST),
              ACL_ERROR_INVALID_PARAM);
    EXPECT_TRUE(MessageMentions({"aclrtMemcpy", "src", n}));
    // From inside the allocation, so that pointer + count wraps around the address space.
    EXPECT_EQ(aclrtMemcpy(device.at(64), SIZE_MAX, other.get(), count, ACL_MEMCPY_DEVICE_TO_DEVICE),
              ACL_ERROR_INVALID_PARAM);
    EXPECT_TRUE(MessageMentions({"aclrtMemcpy", "dst", n}));
    EXPECT_EQ(aclrtMemcpy(device.get(), kBytes, other.at(64), count, ACL_MEMCPY_DEFAULT), ACL_ERROR_INVALID_PARAM);
    EXPECT_TRUE(MessageMentions({"aclrtMemcpy", "count", n, "destMax"}));
    EXPECT_EQ(aclrtMemcpyAsync(device.get(), SIZE_MAX, host.data(), count, ACL_MEMCPY_HOST_TO_DEVICE, nullptr),
              ACL_ERROR_INVALID_PARAM);
    EXPECT_TRUE(MessageMentions({"aclrtMemcpyAsync", "dst", n}));
    EXPECT_EQ(aclrtMemcpyAsync(host.data(), SIZE_MAX, device.at(kBytes - 1), count, ACL_MEMCPY_DEVICE_TO_HOST, nullptr),
              ACL_ERROR_INVALID_PARAM);
    EXPECT_TRUE(MessageMentions({"aclrtMemcpyAsync", "src", n}));
    EXPECT_EQ(aclrtMemset(device.get(), SIZE_MAX, 0, count), ACL_ERROR_INVALID_PARAM);
    EXPECT_TRUE(MessageMentions({"aclrtMemset", "devPtr", n}));
    EXPECT_EQ(aclrtMemset(device.at(kBytes - 1), SIZE_MAX, 0, count), ACL_ERROR_INVALID_PARAM);
    EXPECT_TRUE(MessageMentions({"aclrtMemset", "devPtr", n}));
    EXPECT_EQ(aclrtMemset(device.get(), kBytes, 0, count), ACL_ERROR_INVALID_PARAM);
    EXPECT_TRUE(MessageMentions({"aclrtMemset", "count", n, "maxCount"}));
  }
  // Nothing was written anywhere.
  ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS) << aclGetRecentErrMsg();
  for (const DeviceMemory* memory : {&device, &other}) {
    std::vector<uint8_t> seen(kBytes, 0);
    ASSERT_EQ(aclrtMemcpy(seen.data(), kBytes, memory->get(), kBytes, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    EXPECT_EQ(seen, std::vector<uint8_t>(kBytes, 0x5a));
  }
  EXPECT_EQ(host, std::vector<uint8_t>(kBytes, 0x11));
}

}  // namespace
