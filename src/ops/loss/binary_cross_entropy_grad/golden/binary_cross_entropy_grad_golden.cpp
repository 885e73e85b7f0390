// BinaryCrossEntropyGrad's golden (docs/semantics.md, "BinaryCrossEntropyBackward"), one element at a
// time, on the kernel the call reaches: ops-nn's arch35 kernel on 950 and at the kernel level, CANN's
// TBE one elsewhere. An absent weight arrives as a 0-d one (golden_op.h).
#include <algorithm>
#include <cstdint>
#include <vector>

#include "golden/golden_op.h"

namespace golden {
namespace binary_cross_entropy_grad {
namespace {

constexpr float kEpsilon = 1e-12f;

int64_t Elements(const std::vector<int64_t>& shape) {
  int64_t count = 1;
  for (int64_t dim : shape) count *= dim;
  return count;
}

// arch35: the product grad_output * (x - y) over max((1 - x) * x, eps), then weight, then cof.
float Arch35(float x, float y, float grad, float weight, float cof) {
  const float difference = x - y;
  const float numerator = grad * difference;
  const float one_minus_x = 1.0f - x;
  const float denominator = std::max(one_minus_x * x, kEpsilon);
  const float quotient = numerator / denominator;
  const float weighted = quotient * weight;
  return weighted * cof;
}

// TBE: (x - y) over max(x * (1 - x), eps), then weight, then grad_output, then cof.
float Tbe(float x, float y, float grad, float weight, float cof) {
  const float difference = x - y;
  const float one_minus_x = -x + 1.0f;
  const float denominator = std::max(x * one_minus_x, kEpsilon);
  const float quotient = difference / denominator;
  const float weighted = weight * quotient;
  const float scaled = weighted * grad;
  return scaled * cof;
}

}  // namespace

// The generic entry (golden_op.h): inputs x, y, grad_output, weight; attribute reduction.
void Compute(const Call& call, int64_t begin, int64_t end, uint32_t* bits) {
  const bool mean = call.attributes[0].integer == 1;
  const bool arch35 = call.kernel_level || call.npu.family == Npu::Family::k950;
  float cof = 1.0f;
  if (mean) {
    // arch35: 1.0f / float(the output's count); TBE: float32(1 / x's count), in double.
    cof = arch35 ? 1.0f / static_cast<float>(Elements(call.out_shape))
                 : static_cast<float>(1.0 / static_cast<double>(Elements(call.inputs[0].shape)));
  }
  EachElement<4>(call, begin, end, bits, [&](const std::array<float, 4>& v) {
    return arch35 ? Arch35(v[0], v[1], v[2], v[3], cof) : Tbe(v[0], v[1], v[2], v[3], cof);
  });
  StoreInPlace(ComputeDtype(call), call.out_dtype, bits, end - begin);
}

}  // namespace binary_cross_entropy_grad
}  // namespace golden
