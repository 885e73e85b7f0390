// SmoothL1LossV2's golden (docs/semantics.md, "L1Loss and SmoothL1Loss"): per element of the broadcast of
// predict and label, in float32, d = predict - label and
//   |d| < sigma ? (d * (d * 0.5)) * m : |d| + (-0.5 * sigma),
// m the reciprocal of sigma rounded to float32 -- 0 when sigma is below 1e-6 on ops-nn's arch35
// kernel (950 and the kernel level), the reciprocal always in CANN's TBE kernel elsewhere. The
// declaration's [reduce] says how they are stored or added (golden_reduce.h).
#include <cmath>

#include "golden/golden_op.h"

namespace golden {
namespace smooth_l1_loss_v2 {
namespace {

constexpr int kSigma = 0;  // the attributes: sigma, reduction

bool Arch35(const Call& call) { return call.kernel_level || call.npu.family == Npu::Family::k950; }

}  // namespace

void Values(const Call& call, int64_t begin, int64_t end, float* values) {
  const float sigma = static_cast<float>(call.attributes[kSigma].real);
  const float reciprocal = Arch35(call) && std::fabs(sigma) < 1e-6f ? 0.0f : 1.0f / sigma;
  const float shift = -0.5f * sigma;
  EachElement<2>(call, begin, end, values, [&](const std::array<float, 2>& x) {
    const float d = x[0] - x[1];
    const float magnitude = std::fabs(d);
    const float half = d * 0.5f;
    const float square = d * half;
    return magnitude < sigma ? square * reciprocal : magnitude + shift;
  });
}

}  // namespace smooth_l1_loss_v2
}  // namespace golden
