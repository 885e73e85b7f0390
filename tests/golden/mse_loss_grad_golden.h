// The golden: SPEC.md §3 as plain scalar code. It shares nothing with src/: its own broadcast, its
// own conversions (computed through double arithmetic, not bit tricks), one element at a time.
#ifndef ACLNN_CPU_TESTS_GOLDEN_MSE_LOSS_GRAD_GOLDEN_H_
#define ACLNN_CPU_TESTS_GOLDEN_MSE_LOSS_GRAD_GOLDEN_H_

#include <cstdint>
#include <vector>

namespace golden {

enum class Dtype { kFloat32, kFloat16, kBFloat16 };

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

// reduction: the aclnn API's 0 none, 1 mean, 2 sum. The result has the broadcast shape.
Tensor MseLossGrad(const Tensor& grad_output, const Tensor& self, const Tensor& target, int reduction, Dtype out_dtype);

// The broadcast shape, or false when the shapes do not broadcast.
bool BroadcastShape(const std::vector<std::vector<int64_t>>& shapes, std::vector<int64_t>* out);

}  // namespace golden

#endif  // ACLNN_CPU_TESTS_GOLDEN_MSE_LOSS_GRAD_GOLDEN_H_
