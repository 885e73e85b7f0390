// KlDivLossGrad's golden (docs/semantics.md, "KlDivBackward"), one element at a time: -(t * grad)
// times the reduction's coefficient, t the target or its exp, on the kernel the call reaches
// (arch35 on 950 and at the kernel level: float32 steps; the TBE kernel elsewhere: FLOAT16 steps for
// FLOAT16 inputs). The input's values are never read.
#include <cmath>
#include <cstdint>
#include <vector>

#include "golden/golden_op.h"

namespace golden {
namespace kl_div_loss_grad {
namespace {

constexpr int64_t kMean = 1;
constexpr int64_t kBatchmean = 3;

// The FLOAT16 value nearest to x (ties to the even one), found among the neighbours of x's
// float32 rounding by their distance in double.
float NearestHalf(double x) {
  const uint32_t guess = Narrow(Dtype::kFloat16, static_cast<float>(x));
  uint32_t best = guess;
  for (uint32_t candidate : {guess - 1, guess + 1}) {
    if ((candidate & 0x7C00u) == 0x7C00u || (candidate & 0x8000u) != (guess & 0x8000u)) continue;  // inf/NaN
    const double gap = std::fabs(static_cast<double>(Widen(Dtype::kFloat16, candidate)) - x);
    const double best_gap = std::fabs(static_cast<double>(Widen(Dtype::kFloat16, best)) - x);
    if (gap < best_gap || (gap == best_gap && (candidate & 1u) == 0)) best = candidate;
  }
  return Widen(Dtype::kFloat16, best);
}

float ToHalf(float x) { return Widen(Dtype::kFloat16, Narrow(Dtype::kFloat16, x)); }

}  // namespace

// The generic entry (golden_op.h): inputs grad, input, target; attributes reduction, log_target.
void Compute(const Call& call, int64_t begin, int64_t end, uint32_t* bits) {
  const int64_t reduction = call.attributes[0].integer;
  const bool log_target = call.attributes[1].integer != 0;
  const bool arch35 = call.kernel_level || call.npu.family == Npu::Family::k950;
  // The aclnn layer casts to FLOAT unless all three inputs are FLOAT16; a kernel row computes in
  // its inputs' one dtype.
  Dtype compute = ComputeDtype(call);
  if (!call.kernel_level && compute != Dtype::kFloat16) compute = Dtype::kFloat32;
  const bool half_steps = !arch35 && compute == Dtype::kFloat16;
  // Counted over the input as the kernel gets it: broadcast to the result's shape (the aclnn layer's
  // BroadcastTo of self).
  const std::vector<int64_t>& input_shape = call.out_shape;
  int64_t count = 1;
  if (reduction == kMean) count = Count(input_shape);
  if (reduction == kBatchmean) count = input_shape.empty() ? 1 : input_shape[0];
  const double reciprocal = 1.0 / static_cast<double>(count);
  const float cof = half_steps ? NearestHalf(reciprocal) : static_cast<float>(reciprocal);
  EachElement<3>(call, begin, end, bits, [&](const std::array<float, 3>& v) {
    float t = v[2];
    if (log_target) {
      t = static_cast<float>(std::exp(static_cast<double>(t)));
      if (half_steps) t = ToHalf(t);
    }
    float negated = (t * v[0]) * -1.0f;
    if (half_steps) negated = ToHalf(negated);
    return negated * cof;
  });
  StoreInPlace(compute, call.out_dtype, bits, end - begin);
}

}  // namespace kl_div_loss_grad
}  // namespace golden
