// Helpers for tests that go through the public API: the runtime brought up once, device tensors
// with any layout, value generators per class, and bit comparison against the golden.
#ifndef ACLNN_CPU_TESTS_SUPPORT_API_SUPPORT_H_
#define ACLNN_CPU_TESTS_SUPPORT_API_SUPPORT_H_

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_mse_loss.h"
#include "aclnnop/aclnn_mse_loss_backward.h"
#include "aclnnop/aclnn_mse_loss_out.h"
#include "golden/golden_op.h"
#include "ops/loss/mse_loss/golden/mse_loss_golden.h"
#include "ops/loss/mse_loss_grad/golden/mse_loss_grad_golden.h"

namespace support {

// aclInit + aclrtSetDevice(0), once per process (later calls do nothing).
void EnsureRuntime();

enum class Layout {
  kContiguous,     // row-major, offset 0, storage exactly the view
  kTransposed,     // dims laid out in reverse order in memory (column-major)
  kStridedOffset,  // every stride doubled (gaps between elements), a non-zero offset
};
const char* LayoutName(Layout layout);

enum class ValueClass { kNormal, kHuge, kSubnormal, kZeros, kNan, kInf, kMixed };
const char* ValueClassName(ValueClass value_class);

golden::Dtype ToGolden(aclDataType dtype);
// The NPU the runtime stands for (ACLNN_CPU_SOC_NAME), in the golden's terms.
golden::Npu CurrentNpu();
size_t ElementBytes(aclDataType dtype);

// A tensor in its own aclrtMalloc allocation; destroys the aclTensor and frees the memory.
class DeviceTensor {
 public:
  DeviceTensor(aclDataType dtype, const std::vector<int64_t>& shape, Layout layout);
  // A view into an existing allocation (not owned): element offset, strides and storage given.
  DeviceTensor(aclDataType dtype, const std::vector<int64_t>& shape, const std::vector<int64_t>& strides,
               int64_t offset, const std::vector<int64_t>& storage_dims, void* storage);
  ~DeviceTensor();
  DeviceTensor(const DeviceTensor&) = delete;
  DeviceTensor& operator=(const DeviceTensor&) = delete;

  aclTensor* get() const { return tensor_; }
  void* storage() const { return storage_; }
  // Describes the tensor anew with another format (aclInitTensor: the same handle). Formats decide
  // which kernel ops-nn's l0 layer picks (aclnnMseLoss: MSELossV2 for ND and NCL only).
  void SetFormat(aclFormat format);
  aclDataType dtype() const { return dtype_; }
  const std::vector<int64_t>& shape() const { return shape_; }
  int64_t numel() const;

  // The view's elements in row-major order, as raw bits (16 or 32 of them).
  std::vector<uint32_t> Read() const;
  void Write(const std::vector<uint32_t>& bits);
  // An integer or bool tensor's elements in row-major order (each value's low bytes, as many as
  // the dtype has).
  void WriteIntegers(const std::vector<int64_t>& values);
  golden::Tensor ToGoldenTensor() const { return golden::Tensor{ToGolden(dtype_), shape_, Read()}; }
  // The view's elements in row-major order, each as its bytes (for dtypes wider than 32 bits).
  std::vector<unsigned char> ReadElementBytes() const;
  // Every byte of the storage, as it is now.
  std::vector<unsigned char> ReadStorage() const;
  // How many storage bytes that belong to no element of the view differ from `pattern` (a new
  // tensor's storage is filled with kFillPattern).
  int64_t ChangedBytesOutsideView(unsigned char pattern) const;
  static constexpr unsigned char kFillPattern = 0x5a;

 private:
  std::vector<int64_t> ViewIndices() const;  // storage element index of each view element
  aclDataType dtype_;
  std::vector<int64_t> shape_, strides_, storage_dims_;
  int64_t offset_ = 0;
  void* storage_ = nullptr;
  size_t storage_bytes_ = 0;
  bool owns_storage_ = true;
  aclTensor* tensor_ = nullptr;
};

// n values of the class, as raw bits of dtype.
std::vector<uint32_t> RandomBits(aclDataType dtype, int64_t n, ValueClass value_class, std::mt19937& rng);

// Equal bits, except that any NaN matches any NaN.
bool SameValue(golden::Dtype dtype, uint32_t expected, uint32_t actual);
// "" when equal; otherwise the first mismatch: index, expected and actual as numbers and bits.
std::string CompareBits(golden::Dtype dtype, const std::vector<uint32_t>& expected,
                        const std::vector<uint32_t>& actual);

// The golden of an aclnn API's call (golden/golden_op.h): its inputs in the API's order, the
// operator's attributes in its declaration's order, out's dtype; on the runtime's NPU unless npu is
// given, every tensor ND unless formats (the inputs', in the API's order) are.
golden::Tensor GoldenOf(const char* api, const std::vector<golden::Tensor>& inputs,
                        const std::vector<aclcpu::AttrValue>& attributes, golden::Dtype out_dtype,
                        const golden::Npu& npu = CurrentNpu(), const std::vector<int>& formats = {});
// An integer attribute's value (an enum's number: the reduction's 0, 1, 2).
inline aclcpu::AttrValue Attr(int64_t value) { return aclcpu::AttrValue{value, 0.0}; }

// An aclnn API's second phase (aclnnXxx(workspace, size, executor, stream)).
using Launch = aclnnStatus (*)(void* workspace, uint64_t workspace_size, aclOpExecutor* executor, aclrtStream stream);
// The second phase of a call whose first gave workspace_size and executor: a workspace allocated
// (when one is asked for), the launch on stream, a synchronize, the workspace freed. Returns the
// first failure.
aclnnStatus PhaseTwo(uint64_t workspace_size, aclOpExecutor* executor, Launch launch, aclrtStream stream = nullptr);

// Both phases on stream (allocating any workspace), then a synchronize. Returns the first failure.
aclnnStatus RunMseLossBackward(const aclTensor* grad_output, const aclTensor* self, const aclTensor* target,
                               int64_t reduction, aclTensor* out, aclrtStream stream = nullptr);

// aclnnMseLoss (axis0 false) or aclnnMseLossOut (axis0 true): both phases, then a synchronize.
aclnnStatus RunMseLoss(const aclTensor* self, const aclTensor* target, int64_t reduction, aclTensor* out, bool axis0,
                       aclrtStream stream = nullptr);

}  // namespace support

#endif  // ACLNN_CPU_TESTS_SUPPORT_API_SUPPORT_H_
