// aclnnMseLoss and aclnnMseLossOut: the shared aclnn checks (ops/common/op_api), their own rules
// (reduction, out's shape for each reduction), the kernel the SoC's l0 layer picks, then
// definition -> tiling -> an executor whose launch runs the kernel on the stream. The aclnn layer's steps in ops-nn --
// cast both inputs to their promotion, broadcast them, compute, (MseLossOut) reduce the "none" loss over dim 0, cast to
// out's dtype -- are fused into one kernel pass with the same results.
#include "aclnnop/aclnn_mse_loss.h"

#include <string>
#include <vector>

#include "aclnnop/aclnn_mse_loss_out.h"
#include "op_graph/mse_loss_def.h"
#include "op_host/mse_loss_infer.h"
#include "op_host/mse_loss_tiling.h"
#include "op_kernel/mse_loss_kernel.h"
#include "ops/common/op_api/aclnn_op.h"
#include "ops/loss/common/loss_api.h"

namespace aclcpu {
namespace mse_loss {
namespace {

const char kLossApi[] = "aclnnMseLoss";
const char kLossPhaseOne[] = "aclnnMseLossGetWorkspaceSize";
const char kOutApi[] = "aclnnMseLossOut";
const char kOutPhaseOne[] = "aclnnMseLossOutGetWorkspaceSize";

// The APIs' parameters, in their order.
enum Param : int { kSelf = 0, kTarget = 1, kOut = 2 };

// The order aclnnMseLoss's mean and sum follow: that of the kernel ops-nn's l0op::MseLoss launches
// (loss/mse_loss/op_api/mse_loss.cpp). On ASCEND910B, 910_93, 310P and 950 it is MSELossV2 when self
// and target have one view shape -- always, once the aclnn layer broadcast them -- and one view
// format, ND or NCL (the formats as the caller gave them: the layer's Contiguous, Cast and
// BroadcastTo are taken to keep them); else MseLoss V1, whose order is not public on A2/A3 (a TBE
// kernel's) and not followed here on 950: ours then.
ReduceOrder KernelOrder(const SocProfile& soc, aclFormat self, aclFormat target) {
  if (self != target || (self != ACL_FORMAT_ND && self != ACL_FORMAT_NCL)) return ReduceOrder::kFloat64;
  return soc.family == SocFamily::kAscend950 ? ReduceOrder::kMseLossV2950 : ReduceOrder::kMseLossV2A2;
}

// What the executor keeps of a call: the tiling, the kernel's loop and its scratch in the workspace.
struct LossLaunch {
  TilingData tiling;
  kernel::InnerLoop loop;
  uint64_t scratch;

  void operator()(opapi::LaunchArgs& args) const {
    RunKernel(tiling, loop, args.data(kSelf), args.data(kTarget), args.data(kOut), args.workspace(scratch),
              KernelThreadPool());
  }
};

// axis0: aclnnMseLossOut (mean and sum over dim 0 only); else aclnnMseLoss (over all elements).
aclnnStatus GetWorkspaceSize(const char* api, bool axis0, const aclTensor* self, const aclTensor* target,
                             int64_t reduction, aclTensor* out, uint64_t* workspace_size, aclOpExecutor** executor) {
  opapi::PhaseOne call(api);
  if (aclnnStatus status = call.Resolve({{"self", self, false}, {"target", target, false}, {"out", out, true}},
                                        workspace_size, executor)) {
    return status;
  }
  if (call.Reuse({reduction}, workspace_size, executor)) return ACLNN_SUCCESS;  // the aclnn cache
  const std::vector<kernel::DType>& dtypes = Definition().dtypes;
  for (int param : {kSelf, kTarget, kOut}) {
    if (aclnnStatus status = call.CheckDtype(param, dtypes)) return status;
  }
  loss::Reduction api_reduction = loss::Reduction::kMean;  // set by CheckReduction
  if (aclnnStatus status = loss::CheckReduction(call, reduction, &api_reduction)) return status;
  if (aclnnStatus status = call.CheckMaxRank({kSelf, kTarget})) return status;
  kernel::Shape broadcast;
  if (aclnnStatus status = call.Broadcast({kSelf, kTarget}, &broadcast)) return status;
  // Inputs that each repeat a few stored values (zero strides) may broadcast to more elements than
  // int64 counts; the backward's out, of that shape, is refused for it, but a reduction's is not.
  int64_t broadcast_numel = 0;
  if (!kernel::CheckedNumel(broadcast, &broadcast_numel)) {
    return call.Fail(ACLNN_ERR_PARAM_INVALID, "self " + kernel::ShapeToString(call.shape(kSelf)) + " and target " +
                                                  kernel::ShapeToString(call.shape(kTarget)) + " broadcast to " +
                                                  kernel::ShapeToString(broadcast) +
                                                  ", whose element count overflows int64");
  }
  const bool none = api_reduction == loss::Reduction::kNone;
  const char* expected_what = none                                      ? "the broadcast shape"
                              : axis0                                   ? "the broadcast shape without dim 0"
                              : api_reduction == loss::Reduction::kMean ? "the 0-d shape of reduction mean"
                                                                        : "the 0-d shape of reduction sum";
  if (aclnnStatus status = call.CheckShape(kOut, ReducedShape(broadcast, api_reduction, axis0), expected_what)) {
    return status;
  }
  if (aclnnStatus status = call.CheckFormats()) return status;
  if (aclnnStatus status = call.CheckMemory()) return status;
  // Empty inputs: nothing to compute, except that aclnnMseLoss's mean of nothing is NaN and its
  // sum 0 (the kernel writes them); aclnnMseLossOut writes nothing at all, as ops-nn's does.
  const bool empty = call.Empty(kSelf) || call.Empty(kTarget);
  if (empty && (none || axis0)) return call.FinishEmpty(workspace_size, executor);

  TilingInput tiling_input;
  call.View(kSelf, &tiling_input.predict);
  call.View(kTarget, &tiling_input.label);
  call.View(kOut, &tiling_input.y);
  tiling_input.y.dtype = kernel::PromoteTypes(tiling_input.predict.dtype, tiling_input.label.dtype);
  tiling_input.store_dtype = call.dtype(kOut);
  tiling_input.reduction = api_reduction;
  tiling_input.fused = true;
  tiling_input.reduce_axis0 = axis0 && !none;
  tiling_input.y_aliases_inputs = call.Overlap(kOut, kSelf) || call.Overlap(kOut, kTarget);
  // aclnnMseLossOut: MseLoss "none", then ReduceMean / ReduceSum over dim 0, whose order is not
  // public on A2/A3 (TBE): ours.
  tiling_input.order =
      axis0 ? ReduceOrder::kFloat64 : KernelOrder(call.soc(), call.format(kSelf), call.format(kTarget));
  tiling_input.soc = SocFacts{call.soc().vector_cores, call.soc().ub_bytes};
  tiling_input.platform = opapi::KernelPlatform();
  // An elementwise loss reads each input while out is written: inputs sharing bytes with out other
  // than element for element are staged. A reduction writes out after reading (the tiling knows),
  // but reads its values in row-major order, which fixes the sum: an input stored across that
  // order (transposed) is copied contiguous first, in blocks, rather than read a line per element.
  std::vector<opapi::StagedInput> staged =
      none ? call.StageAliasedInputs({kSelf, kTarget}, kOut, {&tiling_input.predict, &tiling_input.label})
           : call.StageInputsReadAcross({kSelf, kTarget}, {&tiling_input.predict, &tiling_input.label});
  LossLaunch& launch = call.EmplaceLaunch<LossLaunch>(std::move(staged));  // the tiling is made in place
  TilingData& tiling = launch.tiling;
  std::string why;
  if (!ComputeTiling(tiling_input, &tiling, &why)) return call.Fail(ACLNN_ERR_INNER_TILING_ERROR, why);
  launch.scratch = tiling.workspace_bytes == 0 ? 0 : call.ReserveWorkspace(tiling.workspace_bytes);
  if (LogEnabled(kLogInfo)) {
    Log(kLogInfo, std::string(api) + ": out " + kernel::ShapeToString(tiling_input.y.shape) + " reduction " +
                      loss::ReductionName(api_reduction) + " tiling key " + std::to_string(tiling.key.Encode()) + " (" +
                      tiling.key.ToString() + ") on " + std::to_string(tiling.threads) + " threads, workspace " +
                      std::to_string(call.workspace_size()) + " bytes");
  }
  launch.loop = SelectKernel(tiling.key);
  return call.Publish(workspace_size, executor);
}

}  // namespace
}  // namespace mse_loss
}  // namespace aclcpu

extern "C" {

ACL_FUNC_VISIBILITY aclnnStatus aclnnMseLossGetWorkspaceSize(const aclTensor* self, const aclTensor* target,
                                                             int64_t reduction, aclTensor* out, uint64_t* workspaceSize,
                                                             aclOpExecutor** executor) {
  using namespace aclcpu::mse_loss;
  return aclcpu::opapi::GuardedPhaseOne(kLossPhaseOne, [&] {
    return GetWorkspaceSize(kLossPhaseOne, false, self, target, reduction, out, workspaceSize, executor);
  });
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnMseLoss(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                             aclrtStream stream) {
  return aclcpu::opapi::GuardedLaunch(aclcpu::mse_loss::kLossApi, workspace, workspaceSize, executor, stream);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnMseLossOutGetWorkspaceSize(const aclTensor* self, const aclTensor* target,
                                                                int64_t reduction, aclTensor* out,
                                                                uint64_t* workspaceSize, aclOpExecutor** executor) {
  using namespace aclcpu::mse_loss;
  return aclcpu::opapi::GuardedPhaseOne(kOutPhaseOne, [&] {
    return GetWorkspaceSize(kOutPhaseOne, true, self, target, reduction, out, workspaceSize, executor);
  });
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnMseLossOut(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                                aclrtStream stream) {
  return aclcpu::opapi::GuardedLaunch(aclcpu::mse_loss::kOutApi, workspace, workspaceSize, executor, stream);
}

}  // extern "C"
