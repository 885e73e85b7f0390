// SmoothL1LossGradV2's own rules: beta's range, the Dag each route and gradOut run, and the Dag's
// scalars on each route.
#include <cmath>
#include <cstdio>

#include "ops/loss/smooth_l1_loss_grad_v2/smooth_l1_loss_grad_v2_op.h"

namespace aclcpu {
namespace smooth_l1_loss_grad_v2 {

// ops-nn's CheckBeta (op_api/aclnn_smooth_l1_loss_backward.cpp): beta >= 0, which a NaN fails.
aclnnStatus CheckBeta(const opapi::PhaseOne& call, const Checked& checked) {
  const float beta = checked.attributes.sigma;
  if (beta >= 0.0f) return ACLNN_SUCCESS;
  char value[32];
  std::snprintf(value, sizeof value, "%.9g", static_cast<double>(beta));
  return call.Fail(ACLNN_ERR_PARAM_INVALID, std::string("beta must be >= 0 (a NaN is not), but is ") + value);
}

int DagOf(const Attributes& attributes, const kernel::ElementwiseOpInput& input) {
  if (attributes.route == Route::kTbe) return 2;
  // arch35's doutIsScalar (GetDoutIsScalar): dout's storage has one element.
  return kernel::Numel(input.operands[kDout].shape) == 1 ? 1 : 0;
}

bool SetScalars(const Attributes& attributes, const kernel::ElementwiseOpInput& input, float* scalars,
                std::string* error) {
  const float sigma = attributes.sigma;
  if (sigma < 0.0f) {  // CalcSigma's refusal: only a graph reaches it (the aclnn layer checks beta first)
    *error = "SmoothL1LossGradV2: sigma must be non-negative";
    return false;
  }
  scalars[kSigma] = sigma;
  scalars[kNegSigma] = -1.0f * sigma;
  if (attributes.route == Route::kTbe) {
    scalars[kXFactor] = sigma + 1e-6f;  // vadds(sigma, tvm.const(1e-6, "float32")): one float32 add
  } else {
    // CalcSigma: invertSigma, NaN for a sigma below 1e-6, else 1 / sigma in float32.
    scalars[kXFactor] = std::fabs(sigma) < 1e-6f ? NAN : 1.0f / sigma;
  }
  float cof = 1.0f;
  if (attributes.reduction == loss::Reduction::kMean) {
    // CalcReduceMeanCof (arch35): (float)(1.0 / (double)N), N the product of predict's storage dims
    // (a 0-d predict read as [1]), the input as the kernel receives it -- not the broadcast. The TBE
    // kernel's static-shape rule is the same: reduce_elts ** -1 over predict's unified shape, made a
    // float32 constant (its host value for a dynamic shape is not public).
    const kernel::Dims predict = input.operands[kPredict].shape;
    const int64_t elements = kernel::Numel(predict);
    if (elements == 0) {
      *error = "SmoothL1LossGradV2: predict cannot be empty when reduction is mean (predict shape " +
               kernel::ShapeToString(predict) + ")";
      return false;
    }
    cof = static_cast<float>(1.0 / static_cast<double>(elements));
  }
  scalars[kReduceMeanCof] = cof;
  return true;
}

}  // namespace smooth_l1_loss_grad_v2
}  // namespace aclcpu
