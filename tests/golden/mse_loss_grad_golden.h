// The golden: SPEC.md §3 as plain scalar code. It shares no computation with src/ (only the names
// of the dtypes): its own broadcast, its own conversions (computed through double arithmetic, not
// bit tricks), one element at a time.
#ifndef ACLNN_CPU_TESTS_GOLDEN_MSE_LOSS_GRAD_GOLDEN_H_
#define ACLNN_CPU_TESTS_GOLDEN_MSE_LOSS_GRAD_GOLDEN_H_

#include <cstdint>
#include <vector>

#include "kernel/dtype.h"

namespace golden {

using Dtype = aclcpu::kernel::DType;

// Exact value of an element given as its raw bits (16 or 32 of them).
float Widen(Dtype dtype, uint32_t bits);
// value rounded to dtype, to nearest with ties to even; overflow gives +-inf, NaN stays NaN.
uint32_t Narrow(Dtype dtype, float value);

// A contiguous tensor: its elements' raw bits in row-major order. A 0-d tensor has one element.
struct Tensor {
  Dtype dtype = Dtype::kFloat32;
  std::vector<int64_t> shape;
  std::vector<uint32_t> bits;
};

// A contiguous row-major tensor read where it is: element i's bits are the little-endian word of
// word_bytes bytes at data + i * word_bytes (2 or 4: a dtype's own size, or a Tensor's 4); or,
// when fetch is set, fetch(data, i) (values made on demand, e.g. by a generator).
struct View {
  using Fetch = uint32_t (*)(const void* data, int64_t index);
  Dtype dtype = Dtype::kFloat32;
  std::vector<int64_t> shape;
  const void* data = nullptr;
  int word_bytes = 4;
  Fetch fetch = nullptr;

  static View Of(const Tensor& tensor) { return View{tensor.dtype, tensor.shape, tensor.bits.data(), 4, nullptr}; }
  uint32_t Bits(int64_t index) const;
  float Value(int64_t index) const { return Widen(dtype, Bits(index)); }
};

// The broadcast shape, or false when the shapes do not broadcast.
bool BroadcastShape(const std::vector<std::vector<int64_t>>& shapes, std::vector<int64_t>* out);

// Elements [begin, end) of MseLossGrad's output (row-major over the broadcast shape) as raw bits of
// out_dtype. reduction: the aclnn API's 0 none, 1 mean, 2 sum. The shapes must broadcast.
void MseLossGrad(const View& grad_output, const View& self, const View& target, int reduction, Dtype out_dtype,
                 int64_t begin, int64_t end, uint32_t* out_bits);

// The whole output, with the broadcast shape (no elements when the shapes do not broadcast).
Tensor MseLossGrad(const Tensor& grad_output, const Tensor& self, const Tensor& target, int reduction, Dtype out_dtype);

}  // namespace golden

#endif  // ACLNN_CPU_TESTS_GOLDEN_MSE_LOSS_GRAD_GOLDEN_H_
