// aclnnMseLossBackward: the checks of the aclnn API, then definition -> infer -> tiling -> an
// executor whose launch runs the kernel on the stream.
#include "aclnnop/aclnn_mse_loss_backward.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "kernel/tensor_view.h"
#include "nnopbase/nnopbase_internal.h"
#include "nnopbase/tensor_checks.h"
#include "op_graph/mse_loss_grad_def.h"
#include "op_host/mse_loss_grad_infer.h"
#include "op_host/mse_loss_grad_tiling.h"
#include "op_kernel/mse_loss_grad_kernel.h"
#include "runtime/api_guard.h"

namespace aclcpu {
namespace mse_loss_grad {
namespace {

const char kApi[] = "aclnnMseLossBackward";
const char kPhaseOne[] = "aclnnMseLossBackwardGetWorkspaceSize";
constexpr size_t kMaxInputDims = 8;
constexpr uint64_t kWorkspaceAlignment = 64;

aclnnStatus Fail(aclnnStatus code, const std::string& message) {
  SetRecentError(std::string(kPhaseOne) + ": " + message);
  return code;
}

bool IsComputeDtype(aclDataType dtype) { return dtype == ACL_FLOAT || dtype == ACL_FLOAT16 || dtype == ACL_BF16; }

kernel::DType ToEngine(aclDataType dtype) {
  return dtype == ACL_FLOAT ? kernel::DType::kFloat32
                            : (dtype == ACL_FLOAT16 ? kernel::DType::kFloat16 : kernel::DType::kBFloat16);
}

// The aclnn API's integer reduction as the definition's string attribute.
const char* ReductionName(int64_t reduction) {
  switch (reduction) {
    case 0:
      return "none";
    case 1:
      return "mean";
    default:
      return "sum";
  }
}

struct Param {
  const char* name;
  const aclTensor* tensor;
};

kernel::TensorView ToView(const aclTensor& tensor) {
  kernel::TensorView view;
  view.dtype = ToEngine(tensor.dtype);
  view.shape = tensor.view_dims;
  view.strides = tensor.strides;
  view.data = static_cast<char*>(tensor.data) + tensor.offset * static_cast<int64_t>(aclDataTypeSize(tensor.dtype));
  return view;
}

// True when every element of input (broadcast to out's shape) sits exactly where the out element
// of the same index does, so computing in place reads each value before overwriting it.
bool SameElementAddresses(const aclTensor& input, const aclTensor& out) {
  if (aclDataTypeSize(input.dtype) != aclDataTypeSize(out.dtype) || ToView(input).data != ToView(out).data ||
      input.view_dims.size() > out.view_dims.size()) {
    return false;
  }
  const size_t lead = out.view_dims.size() - input.view_dims.size();
  for (size_t d = 0; d < out.view_dims.size(); ++d) {
    if (out.view_dims[d] <= 1) continue;
    if (d < lead || input.view_dims[d - lead] != out.view_dims[d] || input.strides[d - lead] != out.strides[d]) {
      return false;
    }
  }
  return true;
}

// The four tensors of one call, resolved from their handles.
struct Tensors {
  std::shared_ptr<const aclTensor> grad, self, target, out;
};

aclnnStatus Resolve(const Param (&params)[4], Tensors* tensors) {
  for (const Param& p : params) {
    if (p.tensor == nullptr) return Fail(ACLNN_ERR_PARAM_NULLPTR, std::string(p.name) + " is null");
  }
  std::shared_ptr<const aclTensor>* slots[4] = {&tensors->grad, &tensors->self, &tensors->target, &tensors->out};
  for (int i = 0; i < 4; ++i) {
    *slots[i] = FindTensor(params[i].tensor);
    if (!*slots[i]) {
      return Fail(ACLNN_ERR_PARAM_INVALID,
                  std::string(params[i].name) + " is not a live aclTensor (destroyed, or never created)");
    }
  }
  return ACLNN_SUCCESS;
}

// On success *broadcast is the shape the three inputs broadcast to (out's).
aclnnStatus Validate(const Tensors& t, int64_t reduction, kernel::Shape* broadcast) {
  const aclTensor& self = *t.self;
  const aclTensor* out = t.out.get();
  const Param inputs[3] = {{"gradOutput", t.grad.get()}, {"self", t.self.get()}, {"target", t.target.get()}};
  if (!IsComputeDtype(self.dtype)) {
    return Fail(ACLNN_ERR_PARAM_INVALID, "self dtype " + DataTypeName(self.dtype) +
                                             " is not one the operator computes; expected FLOAT, FLOAT16 or BF16");
  }
  for (const Param& p : {inputs[0], inputs[2]}) {
    if (p.tensor->dtype != self.dtype) {
      return Fail(ACLNN_ERR_PARAM_INVALID, std::string(p.name) + " dtype " + DataTypeName(p.tensor->dtype) +
                                               " differs from self dtype " + DataTypeName(self.dtype));
    }
  }
  if (!IsComputeDtype(out->dtype)) {
    return Fail(ACLNN_ERR_PARAM_INVALID, "out dtype " + DataTypeName(out->dtype) +
                                             " is not one the operator computes; expected FLOAT, FLOAT16 or BF16");
  }
  if (reduction < 0 || reduction > 2) {
    return Fail(ACLNN_ERR_PARAM_INVALID,
                "reduction " + std::to_string(reduction) + " is invalid; expected 0 (none), 1 (mean) or 2 (sum)");
  }
  for (const Param& p : inputs) {
    if (p.tensor->view_dims.size() > kMaxInputDims) {
      return Fail(ACLNN_ERR_PARAM_INVALID, std::string(p.name) + " has " + std::to_string(p.tensor->view_dims.size()) +
                                               " dims; at most 8 are supported");
    }
  }
  for (const Param& p : {inputs[0], inputs[1], inputs[2], Param{"out", out}}) {
    if (!IsPlainFormat(p.tensor->format)) {
      return Fail(ACLNN_ERR_PARAM_INVALID, std::string(p.name) + " format " + FormatName(p.tensor->format) +
                                               " is a private NPU layout; use ND (or a plain layout read as ND)");
    }
  }
  std::string why;
  if (!InferShape(inputs[0].tensor->view_dims, self.view_dims, inputs[2].tensor->view_dims, broadcast, &why)) {
    return Fail(ACLNN_ERR_PARAM_INVALID, "gradOutput " + kernel::ShapeToString(inputs[0].tensor->view_dims) +
                                             ", self " + kernel::ShapeToString(self.view_dims) + " and target " +
                                             kernel::ShapeToString(inputs[2].tensor->view_dims) +
                                             " do not broadcast: " + why);
  }
  if (out->view_dims != *broadcast) {
    return Fail(ACLNN_ERR_PARAM_INVALID, "out shape " + kernel::ShapeToString(out->view_dims) +
                                             " differs from the broadcast shape " + kernel::ShapeToString(*broadcast));
  }
  return ACLNN_SUCCESS;
}

aclnnStatus GetWorkspaceSize(const aclTensor* grad_handle, const aclTensor* self_handle, const aclTensor* target_handle,
                             int64_t reduction, aclTensor* out_handle, uint64_t* workspaceSize,
                             aclOpExecutor** executor) {
  Tensors tensors;
  if (aclnnStatus status =
          Resolve({{"gradOutput", grad_handle}, {"self", self_handle}, {"target", target_handle}, {"out", out_handle}},
                  &tensors)) {
    return status;
  }
  if (workspaceSize == nullptr) return Fail(ACLNN_ERR_PARAM_NULLPTR, "workspaceSize is null");
  if (executor == nullptr) return Fail(ACLNN_ERR_PARAM_NULLPTR, "executor is null");
  TilingInput tiling_input;  // y's shape: infer shape, run once by the checks
  if (aclnnStatus status = Validate(tensors, reduction, &tiling_input.y.shape)) return status;
  const aclTensor* gradOutput = tensors.grad.get();
  const aclTensor* self = tensors.self.get();
  const aclTensor* target = tensors.target.get();
  const aclTensor* out = tensors.out.get();
  const Param inputs[3] = {{"gradOutput", gradOutput}, {"self", self}, {"target", target}};

  // Memory: every view inside its storage, every storage inside an allocation; out not overlapping itself.
  // The four are the executor's arguments (inputs, then out), which aclSetInputTensorAddr and
  // aclSetOutputTensorAddr may point at other memory before a launch.
  LaunchSpec spec;
  const Param all[4] = {inputs[0], inputs[1], inputs[2], {"out", out}};
  ByteSpan spans[4];
  for (int i = 0; i < 4; ++i) {
    MemoryRange range{nullptr, 0, 0, all[i].name};
    if (aclnnStatus status = CheckTensorMemory(kPhaseOne, all[i].name, *all[i].tensor, &range, &spans[i])) {
      return status;
    }
    const uintptr_t base = reinterpret_cast<uintptr_t>(all[i].tensor->data);
    const bool touched = range.bytes != 0;
    spec.arguments.push_back(TensorArgument{all[i].name, i == 3, static_cast<char*>(all[i].tensor->data), range.bytes,
                                            range.allocation_id, touched ? spans[i].begin - base : 0,
                                            touched ? spans[i].end - base : 0});
  }
  const ByteSpan& out_span = spans[3];
  if (TensorNumel(*out) > 0) {
    if (aclnnStatus status = CheckNoSelfOverlap(kPhaseOne, "out", *out)) return status;
  }

  const bool empty = TensorNumel(*gradOutput) == 0 || TensorNumel(*self) == 0 || TensorNumel(*target) == 0;
  if (empty) {  // nothing to compute: a valid executor that touches no memory
    for (TensorArgument& argument : spec.arguments) argument.storage_bytes = 0;
    spec.run_at = [](void*, const std::vector<char*>&) {};
    *workspaceSize = 0;
    *executor = CreateExecutor(std::move(spec));
    return ACLNN_SUCCESS;
  }

  // Definition, infer shape and dtype, tiling.
  Attrs attrs;
  attrs.reduction = ReductionName(reduction);
  tiling_input.dout = ToView(*gradOutput);
  tiling_input.predict = ToView(*self);
  tiling_input.label = ToView(*target);
  std::string why;
  tiling_input.y.dtype = InferDtype(tiling_input.predict.dtype);
  tiling_input.y.strides = out->strides;
  tiling_input.y.data = ToView(*out).data;
  tiling_input.store_dtype = ToEngine(out->dtype);  // the aclnn layer's cast to out's dtype, fused
  tiling_input.reduction = attrs.reduction;
  tiling_input.platform = TilingPlatform{KernelThreadCount(), HostPlatform().l2_bytes, HostPlatform().llc_bytes};
  TilingData tiling;
  if (!ComputeTiling(tiling_input, &tiling, &why)) return Fail(ACLNN_ERR_INNER_TILING_ERROR, why);
  if (LogEnabled(kLogInfo)) {
    Log(kLogInfo, std::string(kPhaseOne) + ": out " + kernel::ShapeToString(out->view_dims) + " reduction " +
                      attrs.reduction + " tiling key " + std::to_string(tiling.tiling_key) + ", " +
                      std::to_string(tiling.plan.num_tiles) + " tiles of " + std::to_string(tiling.plan.tile_elems) +
                      " on " + std::to_string(tiling.threads) + " threads");
  }

  // An input that shares bytes with out, other than element for element, is copied to the
  // workspace first, so the result equals the out-of-place one. (A single dout value is read
  // before anything is written.)
  // Each view's first element as a byte offset from its tensor's storage (the launch adds the
  // storage address it is given).
  auto offset_in = [](const aclTensor& tensor, const char* data) {
    return static_cast<int64_t>(reinterpret_cast<uintptr_t>(data) - reinterpret_cast<uintptr_t>(tensor.data));
  };
  struct StagedInput {
    kernel::TensorView view;  // its data is filled in at the launch
    int64_t data_offset;
    uint64_t workspace_offset;
  };
  std::vector<std::pair<int, StagedInput>> staged;
  kernel::TensorView* views[3] = {&tiling_input.dout, &tiling_input.predict, &tiling_input.label};
  const int64_t input_offsets[3] = {offset_in(*gradOutput, views[0]->data), offset_in(*self, views[1]->data),
                                    offset_in(*target, views[2]->data)};
  uint64_t workspace = 0;
  for (int i = 0; i < 3; ++i) {
    if (i == 0 && tiling.dout_is_scalar) continue;
    if (!spans[i].Overlaps(out_span) || SameElementAddresses(*inputs[i].tensor, *out)) continue;
    staged.push_back({i, StagedInput{*views[i], input_offsets[i], workspace}});
    const uint64_t bytes = static_cast<uint64_t>(kernel::Numel(views[i]->shape) * kernel::ElementSize(views[i]->dtype));
    workspace += (bytes + kWorkspaceAlignment - 1) / kWorkspaceAlignment * kWorkspaceAlignment;
  }
  spec.workspace_size = workspace;
  if (!staged.empty()) {  // the kernel reads staged inputs as contiguous copies: plan again
    for (const auto& entry : staged) views[entry.first]->strides = kernel::ContiguousStrides(views[entry.first]->shape);
    if (!ComputeTiling(tiling_input, &tiling, &why)) return Fail(ACLNN_ERR_INNER_TILING_ERROR, why);
  }

  const int64_t y_offset = offset_in(*out, tiling_input.y.data);
  const std::vector<int64_t> offsets(input_offsets, input_offsets + 3);
  spec.run_at = [tiling, staged, offsets, y_offset](void* workspace_base, const std::vector<char*>& bases) {
    const char* sources[3] = {bases[0] + offsets[0], bases[1] + offsets[1], bases[2] + offsets[2]};
    for (const auto& entry : staged) {
      char* copy = static_cast<char*>(workspace_base) + entry.second.workspace_offset;
      kernel::TensorView view = entry.second.view;
      view.data = bases[entry.first] + entry.second.data_offset;
      kernel::CopyToContiguous(view, copy);
      sources[entry.first] = copy;
    }
    RunKernel(tiling, sources[1], sources[2], sources[0], bases[3] + y_offset, KernelThreadPool());
  };
  *workspaceSize = spec.workspace_size;
  *executor = CreateExecutor(std::move(spec));
  return ACLNN_SUCCESS;
}

}  // namespace
}  // namespace mse_loss_grad
}  // namespace aclcpu

extern "C" {

ACL_FUNC_VISIBILITY aclnnStatus aclnnMseLossBackwardGetWorkspaceSize(const aclTensor* gradOutput, const aclTensor* self,
                                                                     const aclTensor* target, int64_t reduction,
                                                                     aclTensor* out, uint64_t* workspaceSize,
                                                                     aclOpExecutor** executor) {
  return aclcpu::Guarded(aclcpu::mse_loss_grad::kPhaseOne, static_cast<aclnnStatus>(ACLNN_ERR_INNER_CREATE_EXECUTOR),
                         static_cast<aclnnStatus>(ACLNN_ERR_INNER), [&] {
                           return aclcpu::mse_loss_grad::GetWorkspaceSize(gradOutput, self, target, reduction, out,
                                                                          workspaceSize, executor);
                         });
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnMseLossBackward(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                                     aclrtStream stream) {
  return aclcpu::Guarded(
      aclcpu::mse_loss_grad::kApi, static_cast<aclnnStatus>(ACLNN_ERR_INNER), static_cast<aclnnStatus>(ACLNN_ERR_INNER),
      [&] { return aclcpu::LaunchExecutor(aclcpu::mse_loss_grad::kApi, workspace, workspaceSize, executor, stream); });
}

}  // extern "C"
