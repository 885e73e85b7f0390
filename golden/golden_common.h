// The golden's shared parts: dtypes, conversions computed through double arithmetic (not bit
// tricks), tensors and views of them, and its own broadcasting. It shares no computation with
// src/ (only the dtype names of src/kernel/dtype.h).
#ifndef ACLNN_CPU_GOLDEN_GOLDEN_COMMON_H_
#define ACLNN_CPU_GOLDEN_GOLDEN_COMMON_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "kernel/dtype.h"

namespace golden {

using Dtype = aclcpu::kernel::DType;

namespace detail {
// The value of each of the 65536 bit patterns of FLOAT16 or BF16, decoded once (golden_common.cpp).
const float* Values16(Dtype dtype);

// Format of a binary float type: significand bits (with the implicit one), the smallest normal
// exponent, and the bit layout.
struct Format {
  int precision;
  int min_exponent;  // of the smallest normal, as 2^min_exponent
  int mantissa_bits;
  int exponent_bits;
  int exponent_bias;
};
inline constexpr Format kFloat32Format{24, -126, 23, 8, 127};
inline constexpr Format kFloat16Format{11, -14, 10, 5, 15};
inline constexpr Format kBFloat16Format{8, -126, 7, 8, 127};
}  // namespace detail

// Exact value of an element given as its raw bits (16 or 32 of them). The 16-bit dtypes' values
// are decoded through double arithmetic once, into a table.
inline float Widen(Dtype dtype, uint32_t bits) {
  if (dtype == Dtype::kFloat32) {
    float value;
    std::memcpy(&value, &bits, sizeof value);
    return value;
  }
  static const float* const float16 = detail::Values16(Dtype::kFloat16);
  static const float* const bfloat16 = detail::Values16(Dtype::kBFloat16);
  return (dtype == Dtype::kFloat16 ? float16 : bfloat16)[bits & 0xffffu];
}
// value rounded to dtype, to nearest with ties to even; overflow gives +-inf, NaN stays NaN.
uint32_t Narrow(Dtype dtype, float value);
// bits[0, count) hold float32 values; each becomes Narrow(dtype, value) (dtype FLOAT16 or BF16;
// FLOAT32 leaves them). The same steps, many elements at a time (narrow_many.cpp).
void NarrowInPlace(Dtype dtype, uint32_t* bits, int64_t count);
// bits[0, count) hold float32 results; each is rounded to `compute`, then, when `out` differs, that
// value to `out`: how an op stores a result it computed in float32 (narrowing a representable
// value is exact).
void StoreInPlace(Dtype compute, Dtype out, uint32_t* bits, int64_t count);
inline uint32_t Bits32(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

// An integer input's value as the aclnn layer's Cast hands it to a kernel computing in dtype
// (ops-math math/cast/op_kernel/arch35/cast_struct.h: through float32, rounded there to nearest
// with ties to even, then to dtype the same way; docs/semantics.md). The float32 is rounded from
// the exact value, which a long double holds for every int64.
uint32_t CastInteger(int64_t value, Dtype dtype);

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

  static View Of(const Tensor& tensor) {
    return View{tensor.dtype, tensor.shape, tensor.bits.empty() ? nullptr : tensor.bits.data(), 4, nullptr};
  }
  // An optional input the call leaves out: 0-d with no data (a present 0-d input has its one value).
  // MakeGolden reads it as a one of the first input's dtype.
  bool absent() const { return data == nullptr && fetch == nullptr && shape.empty(); }
  uint32_t Bits(int64_t index) const {
    if (fetch != nullptr) return fetch(data, index);
    const unsigned char* p = static_cast<const unsigned char*>(data) + index * word_bytes;
    const uint32_t low = static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8;
    return word_bytes == 2 ? low : low | static_cast<uint32_t>(p[2]) << 16 | static_cast<uint32_t>(p[3]) << 24;
  }
  float Value(int64_t index) const { return Widen(dtype, Bits(index)); }
};

// The NPU whose kernels a result follows: its family (what ops-nn's l0 layer tells apart when it
// picks a kernel) and the figures the kernels' tilings read. The defaults are Ascend910B3's
// (hicann/runtime src/platform/platform_config/cann/Ascend910B3.ini: vector_core_cnt 40; ub_size
// 196608, of which GetCoreMemSize leaves tilings all but 256 bytes on A2/A3).
struct Npu {
  enum class Family { k910B, k910_93, k950, k310P };
  Family family = Family::k910B;
  int64_t vector_cores = 40;
  int64_t ub_bytes = 196352;
};

// The broadcast shape, or false when the shapes do not broadcast.
bool BroadcastShape(const std::vector<std::vector<int64_t>>& shapes, std::vector<int64_t>* out);

// Element count of a shape (1 for 0-d).
int64_t Count(const std::vector<int64_t>& shape);

// Walks the elements of a broadcast output in row-major order, keeping for each input the
// row-major index of the element it contributes (a dim of 1 stays at 0 while out's moves). Out's
// dims of 1 are left out and dims that every input walks as one are merged (the order stays the
// same), so that the innermost run of elements is as long as it can be.
class BroadcastWalk {
 public:
  BroadcastWalk(const std::vector<int64_t>& out_shape, std::vector<const std::vector<int64_t>*> inputs, int64_t start);
  int64_t index(size_t input) const { return index_[input]; }
  void Next();
  // The elements from this one to the end of its innermost run (at least 1), along which each
  // input's index moves by inner_step(input) per element; Advance(n), n from 1 to inner_left(),
  // moves n elements on.
  int64_t inner_left() const { return coord_.empty() ? INT64_MAX : out_shape_.back() - coord_.back(); }
  int64_t inner_step(size_t input) const { return coord_.empty() ? 0 : steps_[input].back(); }
  void Advance(int64_t n);

 private:
  std::vector<int64_t> out_shape_;
  std::vector<int64_t> coord_;
  std::vector<std::vector<int64_t>> steps_;
  std::vector<int64_t> index_;
};

}  // namespace golden

#endif  // ACLNN_CPU_GOLDEN_GOLDEN_COMMON_H_
