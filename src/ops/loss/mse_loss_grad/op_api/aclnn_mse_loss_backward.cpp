// aclnnMseLossBackward: the shared aclnn checks (ops/common/op_api), its own rules (reduction,
// self's dtype for gradOutput and target, the kernel's coefficient), then the elementwise
// operators' shared phase one (elementwise_api.h): definition -> infer -> tiling -> an executor
// whose launch runs the kernel on the stream.
#include "aclnnop/aclnn_mse_loss_backward.h"

#include <string>
#include <vector>

#include "op_graph/mse_loss_grad_def.h"
#include "op_host/mse_loss_grad_infer.h"
#include "op_host/mse_loss_grad_tiling.h"
#include "op_kernel/mse_loss_grad_kernel.h"
#include "ops/common/op_api/aclnn_op.h"
#include "ops/common/op_api/elementwise_api.h"
#include "ops/loss/common/loss_api.h"

namespace aclcpu {
namespace mse_loss_grad {
namespace {

const char kApi[] = "aclnnMseLossBackward";
const char kPhaseOne[] = "aclnnMseLossBackwardGetWorkspaceSize";

// The API's parameters, in its order.
enum Param : int { kGradOutput = 0, kSelf = 1, kTarget = 2, kOut = 3 };

// The kernel ops-nn's l0op::MseLossGrad launches (loss/mse_loss_grad_v2/op_host/op_api/
// mse_loss_grad.cpp), told by its mean's coefficient: MseLossGradV2 on ASCEND910B, 910_93 and
// 310P when gradOutput, self and target have one view shape and one view format; MseLossGrad (V1)
// otherwise -- the arch35 kernel on 950, a legacy TBE one elsewhere (its rule not public: V1's).
CofRule KernelCofRule(const opapi::PhaseOne& call) {
  const SocFamily family = call.soc().family;
  const bool v2_soc =
      family == SocFamily::kAscend910B || family == SocFamily::kAscend910_93 || family == SocFamily::kAscend310P;
  const bool one_shape = kernel::SameDims(call.shape(kSelf), call.shape(kTarget)) &&
                         kernel::SameDims(call.shape(kGradOutput), call.shape(kTarget));
  const bool one_format =
      call.format(kSelf) == call.format(kTarget) && call.format(kGradOutput) == call.format(kTarget);
  return v2_soc && one_shape && one_format ? CofRule::kFloatProduct : CofRule::kDoubleQuotient;
}

aclnnStatus GetWorkspaceSize(const aclTensor* gradOutput, const aclTensor* self, const aclTensor* target,
                             int64_t reduction, aclTensor* out, uint64_t* workspace_size, aclOpExecutor** executor) {
  opapi::PhaseOne call(kPhaseOne);
  if (aclnnStatus status = call.Resolve(
          {{"gradOutput", gradOutput, false}, {"self", self, false}, {"target", target, false}, {"out", out, true}},
          workspace_size, executor)) {
    return status;
  }
  if (call.Reuse({reduction}, workspace_size, executor)) return ACLNN_SUCCESS;  // the aclnn cache
  const std::vector<kernel::DType>& dtypes = Definition().dtypes;
  Attributes attributes;
  if (aclnnStatus status = call.CheckDtype(kSelf, dtypes)) return status;
  if (aclnnStatus status = call.CheckSameDtype(kGradOutput, kSelf)) return status;
  if (aclnnStatus status = call.CheckSameDtype(kTarget, kSelf)) return status;
  if (aclnnStatus status = call.CheckDtype(kOut, dtypes)) return status;
  if (aclnnStatus status = loss::CheckReduction(call, reduction, &attributes.reduction)) return status;
  if (aclnnStatus status = call.CheckMaxRank({kGradOutput, kSelf, kTarget})) return status;
  if (aclnnStatus status = call.CheckFormats()) return status;
  kernel::Shape broadcast;  // y's shape: infer shape's rule, run once by the checks
  if (aclnnStatus status = call.Broadcast({kGradOutput, kSelf, kTarget}, &broadcast)) return status;
  if (aclnnStatus status = call.CheckShape(kOut, broadcast, "the broadcast shape")) return status;
  if (aclnnStatus status = call.CheckMemory()) return status;
  if (call.Empty(kGradOutput) || call.Empty(kSelf) || call.Empty(kTarget)) {
    return call.FinishEmpty(workspace_size, executor);  // nothing to compute
  }

  // Definition, infer dtype, tiling; the aclnn layer's cast to out's dtype fused into the store.
  attributes.cof_rule = KernelCofRule(call);
  opapi::ElementwiseLaunch launch;
  launch.num_inputs = kY;
  launch.inputs[kPredict] = kSelf;
  launch.inputs[kLabel] = kTarget;
  launch.inputs[kDout] = kGradOutput;
  launch.out = kOut;
  launch.scalar_input = kScalarInput;
  launch.compute = InferDtype(call.dtype(kSelf));
  launch.select = &SelectKernel;
  launch.attribute = "reduction";
  launch.attribute_value = loss::ReductionName(attributes.reduction);
  return opapi::RunElementwisePhaseOne(
      call, launch,
      [&attributes](kernel::ElementwiseOpInput* input, TilingData* tiling, std::string* why) {
        return ComputeTiling(input, attributes, tiling, why);
      },
      workspace_size, executor);
}

}  // namespace
}  // namespace mse_loss_grad
}  // namespace aclcpu

extern "C" {

ACL_FUNC_VISIBILITY aclnnStatus aclnnMseLossBackwardGetWorkspaceSize(const aclTensor* gradOutput, const aclTensor* self,
                                                                     const aclTensor* target, int64_t reduction,
                                                                     aclTensor* out, uint64_t* workspaceSize,
                                                                     aclOpExecutor** executor) {
  using namespace aclcpu::mse_loss_grad;
  return aclcpu::opapi::GuardedPhaseOne(
      kPhaseOne, [&] { return GetWorkspaceSize(gradOutput, self, target, reduction, out, workspaceSize, executor); });
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnMseLossBackward(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                                     aclrtStream stream) {
  return aclcpu::opapi::GuardedLaunch(aclcpu::mse_loss_grad::kApi, workspace, workspaceSize, executor, stream);
}

}  // extern "C"
