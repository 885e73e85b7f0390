// SmoothL1LossV2's own rules: its scalars on each route and aclnnSmoothL1Loss's beta.
#include "ops/loss/smooth_l1_loss_v2/smooth_l1_loss_v2_op.h"

#include <cmath>

namespace aclcpu {
namespace smooth_l1_loss_v2 {

bool SetScalars(const Attributes& attributes, const kernel::ElementwiseOpInput& /*input*/, float* scalars,
                std::string* error) {
  const float sigma = attributes.sigma;
  // op_host/arch35/smooth_l1_loss_v2_tiling_arch35.cpp, RunTiling: a negative sigma has no tiling.
  if (sigma < 0.0f) {
    *error = "SmoothL1LossV2: sigma " + std::to_string(sigma) + " is negative";
    return false;
  }
  scalars[kSigma] = sigma;
  // arch35: MultiplyValue is 0 below 1e-6 (the quadratic side then gives 0), else the float
  // reciprocal. TBE (impl/dynamic/smooth_l1_loss_v2.py): the reciprocal always, no threshold.
  const bool tiny = std::fabs(sigma) < 1e-6f && attributes.route == Route::kArch35;
  scalars[kMultiply] = tiny ? 0.0f : 1.0f / sigma;
  scalars[kAdds] = -0.5f * sigma;
  return true;
}

aclnnStatus CheckBeta(const opapi::PhaseOne& call, const Checked& checked) {
  // op_api/aclnn_smooth_l1_loss.cpp, CheckBeta: OP_CHECK(beta >= 0), which a NaN fails too.
  if (!(checked.attributes.sigma >= 0.0f)) {
    return call.Fail(ACLNN_ERR_PARAM_INVALID,
                     "beta " + std::to_string(checked.attributes.sigma) + " is not greater than or equal to 0");
  }
  return ACLNN_SUCCESS;
}

}  // namespace smooth_l1_loss_v2
}  // namespace aclcpu
