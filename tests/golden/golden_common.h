// The golden's shared parts: dtypes, conversions computed through double arithmetic (not bit
// tricks), tensors and views of them, and its own broadcasting. It shares no computation with
// src/ (only the dtype names of src/kernel/dtype.h).
#ifndef ACLNN_CPU_TESTS_GOLDEN_GOLDEN_COMMON_H_
#define ACLNN_CPU_TESTS_GOLDEN_GOLDEN_COMMON_H_

#include <cstddef>
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

// Element count of a shape (1 for 0-d).
int64_t Count(const std::vector<int64_t>& shape);

// Walks the elements of a broadcast output in row-major order, keeping for each input the
// row-major index of the element it contributes (a dim of 1 stays at 0 while out's moves).
class BroadcastWalk {
 public:
  BroadcastWalk(const std::vector<int64_t>& out_shape, std::vector<const std::vector<int64_t>*> inputs, int64_t start);
  int64_t index(size_t input) const { return index_[input]; }
  void Next();

 private:
  std::vector<int64_t> out_shape_;
  std::vector<int64_t> coord_;
  std::vector<std::vector<int64_t>> steps_;
  std::vector<int64_t> index_;
};

}  // namespace golden

#endif  // ACLNN_CPU_TESTS_GOLDEN_GOLDEN_COMMON_H_
