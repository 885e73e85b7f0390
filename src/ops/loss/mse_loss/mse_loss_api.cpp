// MseLoss's own part of aclnnMseLoss and aclnnMseLossOut (the declaration states their checks): the
// launch -- the kernel the SoC's l0 layer picks, then tiling and an executor whose launch runs the
// kernel on the stream. The aclnn layer's steps in ops-nn -- cast
// both inputs to their promotion, broadcast them, compute, (MseLossOut) reduce the "none" loss over
// dim 0, cast to out's dtype -- are fused into one kernel pass with the same results. And the kernel
// as the graph drives it (a TTK row).
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "nnopbase/nnopbase_internal.h"
#include "ops/common/op_def/kernel_table.h"
#include "ops/loss/mse_loss/mse_loss_kernel.h"
#include "ops/loss/mse_loss/mse_loss_op.h"

namespace aclcpu {
namespace mse_loss {
namespace {

using P = MseLossParams;  // aclnnMseLossOut's are the same

// The order aclnnMseLoss's mean and sum follow: that of the kernel ops-nn's l0op::MseLoss launches
// (loss/mse_loss/op_api/mse_loss.cpp). On ASCEND910B, 910_93, 310P and 950 it is MSELossV2 when self
// and target have one view shape -- always, once the aclnn layer broadcast them -- and one view
// format, ND or NCL (the formats as the caller gave them: the layer's Contiguous, Cast and
// BroadcastTo are taken to keep them); else MseLoss V1: on 950 its arch35 kernel (atvoss's
// ReduceSch), on A2/A3 and 310P a TBE kernel whose order is not public: ours then.
ReduceOrder KernelOrder(const SocProfile& soc, aclFormat self, aclFormat target) {
  const bool npu950 = soc.family == SocFamily::kAscend950;
  if (self != target || (self != ACL_FORMAT_ND && self != ACL_FORMAT_NCL)) {
    return npu950 ? ReduceOrder::kMseLoss950 : ReduceOrder::kFloat64;
  }
  return npu950 ? ReduceOrder::kMseLossV2950 : ReduceOrder::kMseLossV2A2;
}

// What the executor keeps of a call: the tiling, the kernel's loop and its scratch in the workspace.
struct LossLaunch {
  TilingData tiling;
  kernel::InnerLoop loop;
  uint64_t scratch;

  void operator()(opapi::LaunchArgs& args) const {
    RunKernel(tiling, loop, args.data(P::kSelf), args.data(P::kTarget), args.data(P::kOut), args.workspace(scratch),
              KernelThreadPool());
  }
};

}  // namespace

aclnnStatus Launch(Api api, opapi::PhaseOne& call, const Checked& checked, uint64_t* workspace_size,
                   aclOpExecutor** executor) {
  const bool axis0 = api == Api::kMseLossOut;  // mean and sum over dim 0 only
  const loss::Reduction reduction = checked.attributes.reduction;
  const bool none = reduction == loss::Reduction::kNone;
  // Empty inputs: nothing to compute, except that aclnnMseLoss's mean of nothing is NaN and its
  // sum 0 (the kernel writes them); aclnnMseLossOut writes nothing at all, as ops-nn's does.
  const bool empty = call.Empty(P::kSelf) || call.Empty(P::kTarget);
  if (empty && (none || axis0)) return call.FinishEmpty(workspace_size, executor);

  TilingInput tiling_input;
  call.View(P::kSelf, &tiling_input.predict);
  call.View(P::kTarget, &tiling_input.label);
  call.View(P::kOut, &tiling_input.y);
  tiling_input.y.dtype = kernel::PromoteTypes(tiling_input.predict.dtype, tiling_input.label.dtype);
  tiling_input.store_dtype = call.dtype(P::kOut);
  // The kernel reads a FLOAT16 or BF16 input beside a FLOAT one in place; ops-nn's aclnn layer casts
  // it first (aclnn_mse_loss.cpp: l0op::Contiguous, l0op::Cast), which fails past int64's bytes.
  if (!empty) {
    for (int param : {P::kSelf, P::kTarget}) {
      if (call.dtype(param) == tiling_input.y.dtype) continue;
      if (aclnnStatus status = call.CheckCastCopy(param, call.shape(param), tiling_input.y.dtype)) return status;
    }
  }
  tiling_input.reduction = reduction;
  tiling_input.fused = true;
  tiling_input.reduce_axis0 = axis0 && !none;
  tiling_input.y_aliases_inputs = call.Overlap(P::kOut, P::kSelf) || call.Overlap(P::kOut, P::kTarget);
  // aclnnMseLossOut: MseLoss "none", then ReduceMean / ReduceSum over dim 0, whose order is not
  // public on A2/A3 (TBE): ours.
  tiling_input.order =
      axis0 ? ReduceOrder::kFloat64 : KernelOrder(call.soc(), call.format(P::kSelf), call.format(P::kTarget));
  tiling_input.soc = SocFacts{call.soc().vector_cores, call.soc().ub_bytes};
  tiling_input.platform = opapi::KernelPlatform();
  // An elementwise loss reads each input while out is written: inputs sharing bytes with out other
  // than element for element are staged. A reduction writes out after reading (the tiling knows),
  // but reads its values in row-major order, which fixes the sum: an input stored across that
  // order (transposed) is copied contiguous first, in blocks, rather than read a line per element.
  std::vector<opapi::StagedInput> staged =
      none ? call.StageAliasedInputs({P::kSelf, P::kTarget}, P::kOut, {&tiling_input.predict, &tiling_input.label})
           : call.StageInputsReadAcross({P::kSelf, P::kTarget}, {&tiling_input.predict, &tiling_input.label});
  LossLaunch& launch = call.EmplaceLaunch<LossLaunch>(std::move(staged));  // the tiling is made in place
  TilingData& tiling = launch.tiling;
  std::string why;
  if (!ComputeTiling(tiling_input, &tiling, &why)) return call.Fail(ACLNN_ERR_INNER_TILING_ERROR, why);
  launch.scratch = tiling.workspace_bytes == 0 ? 0 : call.ReserveWorkspace(tiling.workspace_bytes);
  if (LogEnabled(kLogInfo)) {
    Log(kLogInfo, std::string(call.api()) + ": out " + kernel::ShapeToString(tiling_input.y.shape) + " reduction " +
                      loss::ReductionName(reduction) + " tiling key " + std::to_string(tiling.key.Encode()) + " (" +
                      tiling.key.ToString() + ") on " + std::to_string(tiling.threads) + " threads, workspace " +
                      std::to_string(call.workspace_size()) + " bytes");
  }
  launch.loop = SelectKernel(tiling.key);
  return call.Publish(workspace_size, executor);
}

bool RunKernelLevel(const kernel::TensorView* operands, const Attributes& attributes, std::string* error) {
  TilingInput tiling_input;
  tiling_input.predict = operands[kPredict];
  tiling_input.label = operands[kLabel];
  tiling_input.y = operands[kY];  // infer dtype's: the compute dtype, stored as it is
  tiling_input.store_dtype = operands[kY].dtype;
  tiling_input.reduction = attributes.reduction;
  tiling_input.fused = false;  // the kernel as the graph drives it
  tiling_input.order = ReduceOrder::kMseLoss950;
  const kernel::ReduceSchPlatform part = opapi::KernelLevelReduceSchPlatform();
  tiling_input.soc = SocFacts{part.vector_cores, part.ub_bytes};
  tiling_input.platform = opapi::KernelPlatform();
  TilingData tiling;
  std::string why;
  if (!ComputeTiling(tiling_input, &tiling, &why)) {
    *error = "tiling rejected the case: " + why;
    return false;
  }
  // The reduction's partial sums (chunks x 16 float64: 1/128 of a byte per element at most).
  KernelWorkspace workspace;
  if (!AllocateKernelWorkspace(tiling.workspace_bytes, &workspace, error)) return false;
  RunKernel(tiling, SelectKernel(tiling.key), operands[kPredict].data, operands[kLabel].data, operands[kY].data,
            workspace.get(), KernelThreadPool());
  return true;
}

}  // namespace mse_loss
}  // namespace aclcpu
