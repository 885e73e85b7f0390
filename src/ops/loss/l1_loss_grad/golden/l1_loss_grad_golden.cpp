// L1LossGrad's golden (docs/semantics.md, "L1LossBackward"), one element at a time, on the kernel the
// call reaches: ops-nn's arch35 kernel on 950 and at the kernel level, CANN's TBE one elsewhere.
#include "golden/golden_op.h"

namespace golden {
namespace l1_loss_grad {

void Compute(const Call& call, int64_t begin, int64_t end, uint32_t* bits) {
  const View& grads = call.inputs[0];
  const View& label = call.inputs[2];
  const bool arch35 = call.kernel_level || call.npu.family == Npu::Family::k950;
  float scale = 1.0f;
  if (call.attributes[0].integer == 1) {  // mean; the aclnn layer gives the kernel out's dims
    if (arch35) {                         // 1.0f divided by each of the label's dims in turn, in float32
      for (int64_t dim : call.kernel_level ? label.shape : call.out_shape) scale = scale / static_cast<float>(dim);
    } else {  // float32(1 / N), N the double product of the grads' dims
      double elements = 1.0;
      for (int64_t dim : call.kernel_level ? grads.shape : call.out_shape)
        elements = elements * static_cast<double>(dim);
      scale = static_cast<float>(1.0 / elements);
    }
  }
  // The inputs: grads, predict, label.
  EachElement<3>(call, begin, end, bits, [&](const std::array<float, 3>& x) {
    const float p = x[1];
    const float t = x[2];
    float sign = 0.0f;
    if (p > t) {
      sign = 1.0f;
    } else if (p < t) {
      sign = -1.0f;
    } else if (p != t && !arch35) {  // a NaN: the TBE kernel's "gt" fails, "ne" holds
      sign = -1.0f;
    }
    const float scaled = x[0] * scale;
    return sign * scaled;
  });
  StoreInPlace(ComputeDtype(call), call.out_dtype, bits, end - begin);
}

}  // namespace l1_loss_grad
}  // namespace golden
