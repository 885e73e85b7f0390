// SmoothL1LossGradV2's golden (docs/semantics.md, "SmoothL1LossBackward"), one element at a time, on
// the kernel the call reaches: ops-nn's arch35 kernel on 950 and at the kernel level (its Dag of
// strict compares, or of inclusive ones when dout has one element), CANN's TBE one elsewhere.
#include <cmath>

#include "golden/golden_op.h"

namespace golden {
namespace smooth_l1_loss_grad_v2 {
namespace {

int64_t Elements(const std::vector<int64_t>& shape) {
  int64_t count = 1;
  for (int64_t dim : shape) count *= dim;
  return count;
}

// ops-nn's arch35 Dag: three selects on predict - label, their sum, times dout, times cof.
float Arch35(float predict, float label, float dout, float sigma, float cof, bool inclusive) {
  const float inverse = std::fabs(sigma) < 1e-6f ? NAN : 1.0f / sigma;
  const float x = predict - label;
  const float scaled = x * inverse;
  float pos = 0.0f, neg = 0.0f, inside = scaled;
  if (inclusive) {
    if (x >= sigma) pos = 1.0f;
    if (x <= -sigma) neg = -1.0f;
    if (std::fabs(x) >= sigma) inside = 0.0f;
  } else {
    if (x > sigma) pos = 1.0f;
    if (x < -sigma) neg = -1.0f;
    if (std::fabs(x) > sigma) inside = 0.0f;
  }
  const float slope = (pos + neg) + inside;
  const float product = slope * dout;
  return product * cof;
}

// The TBE kernel: the quotient by sigma + 1e-6 before a NaN difference becomes 0; inclusive outer
// compares, a strict inner one; the coefficient only for a mean.
float Tbe(float predict, float label, float dout, float sigma, float cof, bool mean) {
  float x = predict - label;
  const float divisor = sigma + 1e-6f;
  const float quotient = x / divisor;
  if (std::isnan(x)) x = 0.0f;
  const float low = x <= -sigma ? -1.0f : 0.0f;
  const float high = x >= sigma ? 1.0f : 0.0f;
  const float inside = std::fabs(x) < sigma ? quotient : 0.0f;
  const float slope = (low + high) + inside;
  const float product = slope * dout;
  return mean ? product * cof : product;
}

}  // namespace

// The generic entry (golden_op.h): inputs predict, label, dout; attributes sigma, reduction.
void Compute(const Call& call, int64_t begin, int64_t end, uint32_t* bits) {
  const View& predict = call.inputs[0];
  const View& dout = call.inputs[2];
  const float sigma = static_cast<float>(call.attributes[0].real);
  const bool mean = call.attributes[1].integer == 1;
  const bool arch35 = call.kernel_level || call.npu.family == Npu::Family::k950;
  // The mean's coefficient: 1 / predict's own element count (self's: the aclnn layer does not
  // broadcast it), computed in double and rounded to float32.
  const float cof = mean ? static_cast<float>(1.0 / static_cast<double>(Elements(predict.shape))) : 1.0f;
  const bool one_dout = Elements(dout.shape) == 1;
  EachElement<3>(call, begin, end, bits, [&](const std::array<float, 3>& x) {
    return arch35 ? Arch35(x[0], x[1], x[2], sigma, cof, one_dout) : Tbe(x[0], x[1], x[2], sigma, cof, mean);
  });
  StoreInPlace(ComputeDtype(call), call.out_dtype, bits, end - begin);
}

}  // namespace smooth_l1_loss_grad_v2
}  // namespace golden
