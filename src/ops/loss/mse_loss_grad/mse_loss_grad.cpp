// MseLossGrad's own rules: the kernel a call reaches, told by its mean's coefficient, and that
// coefficient.
#include "ops/loss/mse_loss_grad/mse_loss_grad_op.h"

namespace aclcpu {
namespace mse_loss_grad {

// The kernel ops-nn's l0op::MseLossGrad launches (loss/mse_loss_grad_v2/op_host/op_api/
// mse_loss_grad.cpp): MseLossGradV2 on ASCEND910B, 910_93 and 310P when gradOutput, self and target
// have one view shape and one view format; MseLossGrad (V1) otherwise -- the arch35 kernel on 950,
// a legacy TBE one elsewhere (its rule not public: V1's).
Route RouteOf(const opapi::PhaseOne& call) {
  using P = MseLossBackwardParams;
  const SocFamily family = call.soc().family;
  const bool v2_soc =
      family == SocFamily::kAscend910B || family == SocFamily::kAscend910_93 || family == SocFamily::kAscend310P;
  const bool one_shape = kernel::SameDims(call.shape(P::kSelf), call.shape(P::kTarget)) &&
                         kernel::SameDims(call.shape(P::kGradOutput), call.shape(P::kTarget));
  const bool one_format =
      call.format(P::kSelf) == call.format(P::kTarget) && call.format(P::kGradOutput) == call.format(P::kTarget);
  return v2_soc && one_shape && one_format ? Route::kV2 : Route::kV1;
}

bool SetScalars(const Attributes& attributes, const kernel::ElementwiseOpInput& input, float* scalars,
                std::string* error) {
  scalars[kCof] = 2.0f;
  if (attributes.reduction != loss::Reduction::kMean) return true;
  const kernel::Dims predict = input.operands[kPredict].shape;
  const int64_t numel = kernel::Numel(predict);
  if (numel == 0) {
    *error = "MseLossGrad: predict cannot be empty when reduction is mean (predict shape " +
             kernel::ShapeToString(predict) + ")";
    return false;
  }
  if (attributes.route == Route::kV2) {
    // MseLossGradV2 (loss/mse_loss_grad_v2/op_host/mse_loss_grad_v2_tiling.cpp): 1.0f / R * 2.0f, R
    // the float32 product of predict's dims in order, rounded at each step.
    float product = 1.0f;
    for (int64_t dim : predict) product = product * static_cast<float>(dim);
    scalars[kCof] = 1.0f / product * 2.0f;
  } else {
    // V1 (loss/mse_loss_grad/op_host/arch35/mse_loss_grad_tiling_arch35.cpp): (float)(2.0 / numel).
    scalars[kCof] = static_cast<float>(2.0 / static_cast<double>(numel));
  }
  return true;
}

}  // namespace mse_loss_grad
}  // namespace aclcpu
