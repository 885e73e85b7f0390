#include "ops/loss/mse_loss_grad/golden/mse_loss_grad_golden.h"

#include "golden/golden_op.h"

namespace golden {

float MeanCoefficient(const GradRoute& route, const std::vector<int64_t>& grad_output, const std::vector<int64_t>& self,
                      const std::vector<int64_t>& target) {
  // ops-nn loss/mse_loss_grad_v2/op_host/op_api/mse_loss_grad.cpp: MseLossGradV2 only on
  // ASCEND910B, 910_93 and 310P, for one view shape and one view format of the three.
  const Npu::Family family = route.npu.family;
  const bool v2 =
      !route.kernel_v1 && route.one_format && family != Npu::Family::k950 && self == target && grad_output == target;
  if (v2) {
    float reduce_elts = 1.0f;  // a float running product: each step rounded
    for (int64_t dim : self) reduce_elts = reduce_elts * static_cast<float>(dim);
    return 1.0f / reduce_elts * 2.0f;
  }
  return static_cast<float>(2.0 / static_cast<double>(Count(self)));
}

void MseLossGrad(const View& grad_output, const View& self, const View& target, int reduction, Dtype out_dtype,
                 int64_t begin, int64_t end, uint32_t* out_bits, const GradRoute& route) {
  std::vector<int64_t> out_shape;
  BroadcastShape({grad_output.shape, self.shape, target.shape}, &out_shape);
  const float cof = reduction == 1 ? MeanCoefficient(route, grad_output.shape, self.shape, target.shape) : 2.0f;
  BroadcastWalk walk(out_shape, {&self.shape, &target.shape, &grad_output.shape}, begin);
  for (int64_t i = begin; i < end; ++i, walk.Next()) {
    const float x = self.Value(walk.index(0));
    const float y = target.Value(walk.index(1));
    const float g = grad_output.Value(walk.index(2));
    float d = x - y;
    d = d * cof;
    const float r = d * g;
    out_bits[i - begin] = Bits32(r);
  }
  StoreInPlace(self.dtype, out_dtype, out_bits, end - begin);  // to self's dtype, then to out's
}

Tensor MseLossGrad(const Tensor& grad_output, const Tensor& self, const Tensor& target, int reduction, Dtype out_dtype,
                   const GradRoute& route) {
  Tensor out;
  out.dtype = out_dtype;
  if (!BroadcastShape({grad_output.shape, self.shape, target.shape}, &out.shape)) return out;
  out.bits.resize(static_cast<size_t>(Count(out.shape)));
  MseLossGrad(View::Of(grad_output), View::Of(self), View::Of(target), reduction, out_dtype, 0, Count(out.shape),
              out.bits.data(), route);
  return out;
}

namespace mse_loss_grad {

// The generic entry (golden_op.h): inputs predict, label, dout.
void Compute(const Call& call, int64_t begin, int64_t end, uint32_t* bits) {
  bool one_format = true;
  for (int format : call.formats) one_format = one_format && format == call.formats[0];
  const GradRoute route{call.npu, one_format, call.kernel_level};
  MseLossGrad(call.inputs[2], call.inputs[0], call.inputs[1], static_cast<int>(call.attributes[0].integer),
              call.out_dtype, begin, end, bits, route);
}

}  // namespace mse_loss_grad
}  // namespace golden
