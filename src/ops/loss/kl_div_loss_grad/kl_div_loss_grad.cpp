// KlDivLossGrad's own rules: the aclnn layer's shape check and the tiling's scalars.
#include <cmath>
#include <cstring>

#include "kernel/float_convert.h"
#include "ops/loss/kl_div_loss_grad/kl_div_loss_grad_op.h"

namespace aclcpu {
namespace kl_div_loss_grad {
namespace {

using Param = KlDivBackwardParams;

// x rounded to FLOAT16 (as a float) straight from double: rounded to odd in float32 first, which
// leaves the later rounding to nearest-even exact (24 bits > 11 + 2).
float RoundDoubleToHalf(double x) {
  float f = static_cast<float>(x);
  if (static_cast<double>(f) != x && std::isfinite(f)) {
    if (std::fabs(static_cast<double>(f)) > std::fabs(x)) f = std::nextafter(f, 0.0f);  // toward zero
    uint32_t bits;
    std::memcpy(&bits, &f, sizeof bits);
    bits |= 1u;  // inexact: sticky
    std::memcpy(&f, &bits, sizeof f);
  }
  return kernel::Widen(kernel::Narrow<kernel::Float16>(f));
}

}  // namespace

// ops-nn's CheckShape after the broadcast of self and target: gradOutput broadcasts to that shape
// and leaves it as it is; out has self's shape (a self smaller than the broadcast gets the kernel's
// result summed: the declaration's sum_to).
aclnnStatus CheckShapesOfSelf(const opapi::PhaseOne& call, const Checked& checked) {
  const kernel::Dims grad = call.shape(Param::kGradOutput);
  kernel::Shape with_grad;
  const kernel::Dims both[] = {kernel::Dims(checked.broadcast), grad};
  std::string why;
  if (!kernel::BroadcastShapes(both, 2, &with_grad, &why) || !kernel::SameDims(with_grad, checked.broadcast)) {
    return call.Fail(ACLNN_ERR_PARAM_INVALID, "gradOutput shape " + kernel::ShapeToString(grad) +
                                                  " must broadcast to " + kernel::ShapeToString(checked.broadcast) +
                                                  ", the broadcast of self and target");
  }
  const kernel::Dims self = call.shape(Param::kSelf);
  if (aclnnStatus status = call.CheckShape(Param::kOut, kernel::Shape(self.begin(), self.end()), "self shape")) {
    return status;
  }
  return ACLNN_SUCCESS;
}

bool SetScalars(const Attributes& attributes, const kernel::ElementwiseOpInput& input, float* scalars,
                std::string* error) {
  // The tiling's reducationCof (op_host/arch35/kl_div_loss_grad_tiling.cpp, CalcReductionCof) over the
  // input's storage shape -- self broadcast to y's shape by the aclnn layer -- a 0-d one read as [1]:
  // 1 / its element count for mean, 1 / its first dim for batchmean, 1 else; (float)(1.0 /
  // (double)count). The TBE kernel (impl/dynamic/kl_div_loss_grad.py) takes the same Python double as
  // a constant of the input's dtype.
  const kernel::Dims& shape = input.operands[kY].shape;
  int64_t count = 1;
  if (attributes.reduction == loss::KlDivReduction::kMean) count = kernel::Numel(shape);
  if (attributes.reduction == loss::KlDivReduction::kBatchmean) count = shape.empty() ? 1 : shape[0];
  if (count <= 0) {
    *error = std::string("KlDivLossGrad: input ") + kernel::ShapeToString(shape) +
             " cannot be empty when reduction is " + loss::KlDivReductionName(attributes.reduction);
    return false;
  }
  const bool half_steps = attributes.route == Route::kTbe && input.operands[kY].dtype == kernel::DType::kFloat16;
  const double cof = 1.0 / static_cast<double>(count);
  scalars[kLogTarget] = attributes.log_target ? 1.0f : 0.0f;
  scalars[kHalfSteps] = half_steps ? 1.0f : 0.0f;
  scalars[kReductionCof] = half_steps ? RoundDoubleToHalf(cof) : static_cast<float>(cof);
  return true;
}

}  // namespace kl_div_loss_grad
}  // namespace aclcpu
