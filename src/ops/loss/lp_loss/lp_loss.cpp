// LpLoss's own rules: p (only 1, the L1 loss, has a kernel) and aclnnL1Loss's refusals of integer
// inputs.
#include "ops/common/op_def/promotion.h"
#include "ops/loss/lp_loss/lp_loss_op.h"

namespace aclcpu {
namespace lp_loss {

bool SetScalars(const Attributes& attributes, const kernel::ElementwiseOpInput& /*input*/, float* /*scalars*/,
                std::string* error) {
  // op_host/arch35/lp_loss_tiling_arch35.cpp, RunTiling: the tiling refuses any other p.
  if (attributes.p != 1) {
    *error = "LpLoss: p " + std::to_string(attributes.p) + " has no kernel; only p 1 (the L1 loss)";
    return false;
  }
  return true;
}

aclnnStatus CheckIntegerInputs(const opapi::PhaseOne& call, const Checked& checked) {
  // op_api/aclnn_l1_loss.cpp, CheckDtypeValid: an integer self with a floating target has no
  // "none" (the integer path would subtract a float), and two integer inputs have no mean.
  using P = L1LossParams;
  const bool self_floating = IsFloating(call.tensor(P::kSelf).dtype);
  const bool target_floating = IsFloating(call.tensor(P::kTarget).dtype);
  const loss::Reduction reduction = checked.attributes.reduction;
  if (reduction == loss::Reduction::kNone && !self_floating && target_floating) {
    return call.Fail(ACLNN_ERR_PARAM_INVALID, std::string("reduction none takes no integer self with a floating "
                                                          "target (self ") +
                                                  DataTypeName(call.tensor(P::kSelf).dtype) + ", target " +
                                                  DataTypeName(call.tensor(P::kTarget).dtype) + ")");
  }
  if (reduction == loss::Reduction::kMean && !self_floating && !target_floating) {
    return call.Fail(ACLNN_ERR_PARAM_INVALID, std::string("reduction mean takes a floating self or target (self ") +
                                                  DataTypeName(call.tensor(P::kSelf).dtype) + ", target " +
                                                  DataTypeName(call.tensor(P::kTarget).dtype) + ")");
  }
  // ops-nn's list has INT64 too: two integer inputs that promote to it are computed with Sub, Abs
  // and ReduceSum (GetL1LossFromInt64), which is not built here yet -- refused, saying so.
  if (PromoteType(call.tensor(P::kSelf).dtype, call.tensor(P::kTarget).dtype) == ACL_INT64) {
    return call.Fail(ACLNN_ERR_PARAM_INVALID, std::string("self ") + DataTypeName(call.tensor(P::kSelf).dtype) +
                                                  " and target " + DataTypeName(call.tensor(P::kTarget).dtype) +
                                                  " promote to INT64, which ops-nn computes with Sub, Abs and "
                                                  "ReduceSum: not built here yet");
  }
  return ACLNN_SUCCESS;
}

}  // namespace lp_loss
}  // namespace aclcpu
