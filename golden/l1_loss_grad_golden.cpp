#include "golden/l1_loss_grad_golden.h"

namespace golden {
namespace {

Dtype Promoted(Dtype a, Dtype b) { return a == b ? a : Dtype::kFloat32; }

}  // namespace

float L1Scale(const L1GradRoute& route, int reduction, const std::vector<int64_t>& grad_output,
              const std::vector<int64_t>& target, const std::vector<int64_t>& out) {
  if (reduction != 1) return 1.0f;
  const bool arch35 = route.kernel_level || route.npu.family == Npu::Family::k950;
  if (arch35) {
    // The label as the kernel receives it: broadcast to out by the aclnn layer.
    const std::vector<int64_t>& label = route.kernel_level ? target : out;
    float scale = 1.0f;
    for (int64_t dim : label) scale = scale / static_cast<float>(dim);
    return scale;
  }
  const std::vector<int64_t>& grads = route.kernel_level ? grad_output : out;
  double elements = 1.0;
  for (int64_t dim : grads) elements = elements * static_cast<double>(dim);
  return static_cast<float>(1.0 / elements);
}

void L1LossGrad(const View& grad_output, const View& self, const View& target, int reduction, Dtype out_dtype,
                int64_t begin, int64_t end, uint32_t* out_bits, const L1GradRoute& route) {
  std::vector<int64_t> out_shape;
  BroadcastShape({grad_output.shape, self.shape, target.shape}, &out_shape);
  const Dtype compute = Promoted(Promoted(grad_output.dtype, self.dtype), target.dtype);
  const float scale = L1Scale(route, reduction, grad_output.shape, target.shape, out_shape);
  const bool unordered_is_minus_one = !route.kernel_level && route.npu.family != Npu::Family::k950;
  BroadcastWalk walk(out_shape, {&grad_output.shape, &self.shape, &target.shape}, begin);
  for (int64_t i = begin; i < end; ++i, walk.Next()) {
    const float g = grad_output.Value(walk.index(0));
    const float p = self.Value(walk.index(1));
    const float t = target.Value(walk.index(2));
    float sign = 0.0f;
    if (p > t) {
      sign = 1.0f;
    } else if (p < t) {
      sign = -1.0f;
    } else if (p != t && unordered_is_minus_one) {  // a NaN: the TBE kernel's "gt" fails, "ne" holds
      sign = -1.0f;
    }
    const float scaled = g * scale;
    const float r = sign * scaled;
    out_bits[i - begin] = Bits32(r);
  }
  StoreInPlace(compute, out_dtype, out_bits, end - begin);
}

Tensor L1LossGrad(const Tensor& grad_output, const Tensor& self, const Tensor& target, int reduction, Dtype out_dtype,
                  const L1GradRoute& route) {
  Tensor out;
  out.dtype = out_dtype;
  if (!BroadcastShape({grad_output.shape, self.shape, target.shape}, &out.shape)) return out;
  out.bits.resize(static_cast<size_t>(Count(out.shape)));
  L1LossGrad(View::Of(grad_output), View::Of(self), View::Of(target), reduction, out_dtype, 0, Count(out.shape),
             out.bits.data(), route);
  return out;
}

}  // namespace golden
