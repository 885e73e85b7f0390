// aclnnL1LossBackward (ops-nn loss/l1_loss_grad/op_api/aclnn_l1_loss_backward.cpp): the shared
// aclnn checks (ops/common/op_api) in ops-nn's order -- nulls, reduction, the inputs' promoted
// dtype and its cast to gradInput, ranks, broadcasting, gradInput's shape, formats -- then the kernel the SoC
// reaches and the elementwise operators' shared phase one (elementwise_api.h). The aclnn layer's
// steps (Contiguous, BroadcastTo, Cast to the promoted dtype, the kernel, Cast to gradInput's
// dtype, ViewCopy) are one kernel pass with the same results: an input of another dtype than the
// promoted one is cast in the workspace first.
#include "aclnnop/aclnn_l1_loss_backward.h"

#include <string>
#include <vector>

#include "op_graph/l1_loss_grad_def.h"
#include "op_host/l1_loss_grad_tiling.h"
#include "op_kernel/l1_loss_grad_kernel.h"
#include "ops/common/op_api/aclnn_op.h"
#include "ops/common/op_api/elementwise_api.h"
#include "ops/loss/common/loss_api.h"

namespace aclcpu {
namespace l1_loss_grad {
namespace {

const char kApi[] = "aclnnL1LossBackward";
const char kPhaseOne[] = "aclnnL1LossBackwardGetWorkspaceSize";

// The API's parameters, in its order.
enum Param : int { kGradOutput = 0, kSelf = 1, kTarget = 2, kGradInput = 3 };

aclnnStatus GetWorkspaceSize(const aclTensor* gradOutput, const aclTensor* self, const aclTensor* target,
                             int64_t reduction, aclTensor* gradInput, uint64_t* workspace_size,
                             aclOpExecutor** executor) {
  opapi::PhaseOne call(kPhaseOne);
  if (aclnnStatus status = call.Resolve({{"gradOutput", gradOutput, false},
                                         {"self", self, false},
                                         {"target", target, false},
                                         {"gradInput", gradInput, true}},
                                        workspace_size, executor)) {
    return status;
  }
  if (call.Reuse({reduction}, workspace_size, executor)) return ACLNN_SUCCESS;  // the aclnn cache
  Attributes attributes;
  if (aclnnStatus status = loss::CheckReduction(call, reduction, &attributes.reduction)) return status;
  // BF16 only where the SoC's aclnn layer lists it (ops-nn: 910B to 910E, so not on 310P).
  kernel::DType promoted = kernel::DType::kFloat32;
  if (aclnnStatus status =
          call.CheckPromotion({kGradOutput, kSelf, kTarget}, kGradInput, Definition().dtypes, &promoted)) {
    return status;
  }
  if (aclnnStatus status = call.CheckMaxRank({kSelf, kTarget, kGradOutput, kGradInput})) return status;
  kernel::Shape broadcast;
  if (aclnnStatus status = call.Broadcast({kGradOutput, kSelf, kTarget}, &broadcast)) return status;
  if (aclnnStatus status = call.CheckShape(kGradInput, broadcast, "the broadcast shape")) return status;
  // ops-nn only warns of FRACTAL_NZ and computes on its bytes; here a private NPU layout is refused
  // as for every operator (docs/semantics.md, "Deliberate differences from an NPU"): its bytes are not its view's
  // elements.
  if (aclnnStatus status = call.CheckFormats()) return status;
  if (aclnnStatus status = call.CheckMemory()) return status;
  if (call.Empty(kGradOutput) || call.Empty(kSelf) || call.Empty(kTarget)) {
    return call.FinishEmpty(workspace_size, executor);  // nothing to compute, for every reduction
  }

  // The kernel: ops-nn's arch35 one on 950 (the only SoC its op_host registers), CANN's TBE one elsewhere.
  attributes.route = call.soc().family == SocFamily::kAscend950 ? KernelRoute::kArch35 : KernelRoute::kTbe;
  attributes.inputs_broadcast = true;
  opapi::ElementwiseLaunch launch;
  launch.num_inputs = kY;
  launch.inputs[kGrads] = kGradOutput;
  launch.inputs[kPredict] = kSelf;
  launch.inputs[kLabel] = kTarget;
  launch.out = kGradInput;
  launch.scalar_input = kScalarInput;
  launch.compute = promoted;
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
}  // namespace l1_loss_grad
}  // namespace aclcpu

extern "C" {

ACL_FUNC_VISIBILITY aclnnStatus aclnnL1LossBackwardGetWorkspaceSize(const aclTensor* gradOutput, const aclTensor* self,
                                                                    const aclTensor* target, int64_t reduction,
                                                                    aclTensor* gradInput, uint64_t* workspaceSize,
                                                                    aclOpExecutor** executor) {
  using namespace aclcpu::l1_loss_grad;
  return aclcpu::opapi::GuardedPhaseOne(kPhaseOne, [&] {
    return GetWorkspaceSize(gradOutput, self, target, reduction, gradInput, workspaceSize, executor);
  });
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnL1LossBackward(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                                    aclrtStream stream) {
  return aclcpu::opapi::GuardedLaunch(aclcpu::l1_loss_grad::kApi, workspace, workspaceSize, executor, stream);
}

}  // extern "C"
