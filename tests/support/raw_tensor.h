// Test helpers for the runtime's life cycle: a raw FLOAT tensor whose descriptor and memory can be
// released separately, and a guard that leaves the runtime running whatever a test did.
#ifndef ACLNN_CPU_TESTS_SUPPORT_RAW_TENSOR_H_
#define ACLNN_CPU_TESTS_SUPPORT_RAW_TENSOR_H_

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "support/api_support.h"

namespace support {

// A contiguous FLOAT tensor over its own allocation; descriptor and memory can be released separately.
class RawFloatTensor {
 public:
  RawFloatTensor(const std::vector<int64_t>& shape, const std::vector<uint32_t>& bits) : shape_(shape), bits_(bits) {
    EnsureRuntime();
    int64_t numel = 1;
    for (int64_t d : shape) numel *= d;
    bytes_ = static_cast<size_t>(numel) * sizeof(float);
    EXPECT_EQ(bits.size(), static_cast<size_t>(numel));
    EXPECT_EQ(aclrtMalloc(&data_, bytes_, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS) << aclGetRecentErrMsg();
    EXPECT_EQ(aclrtMemcpy(data_, bytes_, bits.data(), bytes_, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS)
        << aclGetRecentErrMsg();
    const std::vector<int64_t> storage = {numel};
    tensor_ = aclCreateTensor(shape_.data(), shape_.size(), ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, storage.data(),
                              storage.size(), data_);
    EXPECT_NE(tensor_, nullptr) << aclGetRecentErrMsg();
  }
  ~RawFloatTensor() {
    if (tensor_ != nullptr) aclDestroyTensor(tensor_);
    if (data_ != nullptr) aclrtFree(data_);
  }
  RawFloatTensor(const RawFloatTensor&) = delete;
  RawFloatTensor& operator=(const RawFloatTensor&) = delete;

  aclTensor* get() const { return tensor_; }
  void* data() const { return data_; }
  size_t bytes() const { return bytes_; }
  golden::Tensor Golden() const { return golden::Tensor{golden::Dtype::kFloat32, shape_, bits_}; }
  std::vector<uint32_t> Read() const {
    std::vector<uint32_t> bits(bytes_ / sizeof(float), 0);
    EXPECT_EQ(aclrtMemcpy(bits.data(), bytes_, data_, bytes_, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS)
        << aclGetRecentErrMsg();
    return bits;
  }
  aclnnStatus DestroyDescriptor() {
    const aclnnStatus status = aclDestroyTensor(tensor_);
    tensor_ = nullptr;
    return status;
  }
  aclError FreeMemory() {
    const aclError code = aclrtFree(data_);
    data_ = nullptr;
    return code;
  }

 private:
  std::vector<int64_t> shape_;
  std::vector<uint32_t> bits_;
  size_t bytes_ = 0;
  void* data_ = nullptr;
  aclTensor* tensor_ = nullptr;
};

// Whatever a failed assertion leaves behind, the runtime is initialized with device 0 set afterwards,
// so later tests in this process still find it running.
class RuntimeRestorer {
 public:
  ~RuntimeRestorer() {
    aclInit(nullptr);  // ACL_ERROR_REPEAT_INITIALIZE when it is running already
    int32_t device = -1;
    if (aclrtGetDevice(&device) != ACL_SUCCESS) aclrtSetDevice(0);
  }
};

}  // namespace support

#endif  // ACLNN_CPU_TESTS_SUPPORT_RAW_TENSOR_H_
