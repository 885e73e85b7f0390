#include "elementwise_api.h"

#include <limits>

#include "runtime/runtime_internal.h"

namespace aclcpu {
namespace opapi {
namespace {

// Input i's first element at this launch: its parameter's, or the one an absent input reads.
const char* InputData(const LaunchArgs& args, int param, kernel::DType compute) {
  return param == kAbsentInput ? static_cast<const char*>(kernel::OneValue(compute)) : args.data(param);
}

// An absent input's view: a 0-d one of the compute dtype (broadcast to every element).
void ViewAbsent(kernel::DType compute, kernel::TensorView* view) {
  view->dtype = compute;
  view->shape = kernel::Dims();
  view->strides = kernel::Dims();
  view->data = const_cast<char*>(static_cast<const char*>(kernel::OneValue(compute)));  // only read
}

}  // namespace

void ElementwiseBody::operator()(LaunchArgs& args) const {
  const char* data[kernel::kMaxInputs];
  for (int i = 0; i < tiling.num_inputs; ++i) data[i] = InputData(args, inputs[i], tiling.key.dtype);
  char* result = out_cast.cast ? args.workspace(static_cast<uint64_t>(out_cast.at)) : args.data(out);
  char* y = out_sum.plan ? args.workspace(static_cast<uint64_t>(out_sum.at)) : result;
  kernel::RunElementwiseOp(tiling, loop, data, y, KernelThreadPool());
  if (out_sum.plan) {
    kernel::RunSumToShape(*out_sum.plan, y, result,
                          reinterpret_cast<double*>(args.workspace(static_cast<uint64_t>(out_sum.scratch))));
  }
  if (out_cast.cast) kernel::RunCopy(*out_cast.cast, result, args.data(out), KernelThreadPool());
}

void ReduceBody::operator()(LaunchArgs& args) const {
  const char* data[kernel::kMaxInputs];
  for (int i = 0; i < tiling.num_inputs; ++i) data[i] = InputData(args, inputs[i], tiling.key.dtype);
  char* y = out_cast.cast ? args.workspace(static_cast<uint64_t>(out_cast.at)) : args.data(out);
  kernel::RunReduceOp(tiling, loop, data, y, args.workspace(scratch), KernelThreadPool());
  if (out_cast.cast) kernel::RunCopy(*out_cast.cast, y, args.data(out), KernelThreadPool());
}

aclnnStatus CheckComplex32Cast(const PhaseOne& call, const ElementwiseLaunch& launch) {
  if (launch.compute == kernel::DType::kFloat16 && call.soc().family == SocFamily::kAscend950) return ACLNN_SUCCESS;
  return call.Fail(ACLNN_ERR_INNER_NULLPTR, std::string("ops-math's Cast has no kernel from the result dtype ") +
                                                kernel::DTypeName(launch.compute) + " to " + call.name(launch.out) +
                                                " dtype COMPLEX32 on " + call.soc().name +
                                                " (only from FLOAT16, on Ascend950)");
}

namespace {

// y of a dtype the engine does not store (DOUBLE, complex): computed into the workspace in the
// compute dtype, then cast into out. False when out is stored as it is.
bool ViewWideOut(PhaseOne& call, const ElementwiseLaunch& launch, kernel::TensorView* y, OutCast* out_cast) {
  kernel::WideType wide;
  if (call.View(launch.out, y) || !kernel::WideTypeFromAcl(call.tensor(launch.out).dtype, &wide)) return false;
  out_cast->cast = std::make_shared<const kernel::CopyPlan>(
      kernel::PlanWideCast(launch.compute, y->shape, wide, y->strides, KernelPlatform()));
  out_cast->at = static_cast<int64_t>(
      call.ReserveWorkspace(static_cast<uint64_t>(kernel::Numel(y->shape) * kernel::ElementSize(launch.compute))));
  y->strides = call.CopyStrides(launch.out);
  y->dtype = launch.compute;
  return true;
}

// y of another shape than out's: computed into the workspace at the launch's y_shape, contiguous,
// in the compute dtype, then summed into where out's values go (y's view as it was: out's, or an
// OutCast's place). False with *why when out's shape is no sum of y_shape's.
bool ViewSummedOut(PhaseOne& call, const ElementwiseLaunch& launch, kernel::TensorView* y, OutSum* out_sum,
                   std::string* why) {
  // A broadcast of more bytes than int64 counts (inputs of stride 0) has no place: ops-nn's l0op
  // gets no tensor for the kernel's result, and its aclnn layer returns ACLNN_ERR_INNER_NULLPTR.
  int64_t count = 0, bytes = 0;
  if (!kernel::CheckedNumel(*launch.y_shape, &count) ||
      !kernel::CheckedMul(count, kernel::ElementSize(launch.compute), &bytes)) {
    call.ReserveWorkspace(std::numeric_limits<uint64_t>::max());  // refused, with its message
    return false;
  }
  auto plan = std::make_shared<kernel::SumToShapePlan>();
  if (!kernel::PlanSumToShape(launch.compute, *launch.y_shape, *y, plan.get(), why)) return false;
  out_sum->at = static_cast<int64_t>(call.ReserveWorkspace(static_cast<uint64_t>(bytes)));
  out_sum->scratch = static_cast<int64_t>(call.ReserveWorkspace(static_cast<uint64_t>(plan->results) * sizeof(double)));
  y->shape = plan->from_shape;
  y->strides = plan->from_strides;
  y->dtype = launch.compute;
  out_sum->plan = std::move(plan);
  return true;
}

}  // namespace

std::vector<StagedInput> ViewReduce(PhaseOne& call, const ElementwiseLaunch& launch, kernel::ElementwiseOpInput* input,
                                    OutCast* out_cast) {
  const int count = launch.num_inputs;
  input->num_inputs = count;
  kernel::TensorView& y = input->operands[count];
  ViewWideOut(call, launch, &y, out_cast);
  input->store_dtype = y.dtype;
  y.dtype = launch.compute;
  // The one value goes to out's element, whatever its shape of one element.
  y.shape = kernel::Dims();
  y.strides = kernel::Dims();
  input->platform = KernelPlatform();
  // An empty input empties the broadcast: no input is read, the result is a fill (NaN or 0), and
  // none is cast (ops-nn's aclnn layer takes its empty path before any l0op::Cast).
  bool empty = false;
  for (int i = 0; i < count; ++i) empty = empty || (launch.inputs[i] != kAbsentInput && call.Empty(launch.inputs[i]));
  std::vector<StagedInput> staged;
  for (int i = 0; i < count; ++i) {
    kernel::TensorView* view = &input->operands[i];
    if (launch.inputs[i] == kAbsentInput) {
      ViewAbsent(launch.compute, view);
      continue;
    }
    const bool computed = call.View(launch.inputs[i], view);
    if (empty) {  // never read, its strides unused
      view->dtype = launch.compute;
    } else if (!computed || view->dtype != launch.compute) {
      staged.push_back(call.StageCast(launch.inputs[i], view, launch.compute));
    } else {
      for (StagedInput& copy : call.StageInputsReadAcross({launch.inputs[i]}, {view})) staged.push_back(copy);
    }
  }
  return staged;
}

namespace {

// "name value " for each of the launch's attributes, for the info log.
std::string AttributesText(const ElementwiseLaunch& launch) {
  std::string text;
  for (int i = 0; i < launch.attribute_count; ++i) {
    text +=
        std::string(launch.attributes[i].name) + " " + AttrText(launch.attributes[i], launch.attribute_values[i]) + " ";
  }
  return text;
}

}  // namespace

aclnnStatus FinishReduce(PhaseOne& call, const ElementwiseLaunch& launch, ReduceBody* body, uint64_t* workspace_size,
                         aclOpExecutor** executor) {
  const kernel::ReduceTiling& tiling = body->tiling;
  body->scratch = tiling.workspace_bytes == 0 ? 0 : call.ReserveWorkspace(tiling.workspace_bytes);
  if (LogEnabled(kLogInfo)) {
    const std::string attribute = AttributesText(launch);
    Log(kLogInfo, std::string(call.api()) + ": out " + kernel::ShapeToString(call.shape(launch.out)) + " " + attribute +
                      "tiling key " + std::to_string(tiling.key.Encode()) + " (" + tiling.key.ToString() + ") on " +
                      std::to_string(tiling.threads) + " threads");
  }
  body->loop = tiling.key.empty ? nullptr : launch.select_map(tiling.key);
  for (int i = 0; i < tiling.num_inputs; ++i) body->inputs[i] = launch.inputs[i];
  body->out = launch.out;
  return call.Publish(workspace_size, executor);
}

std::vector<StagedInput> ViewElementwise(PhaseOne& call, const ElementwiseLaunch& launch,
                                         kernel::ElementwiseOpInput* input, OutCast* out_cast, OutSum* out_sum,
                                         std::string* why) {
  const int count = launch.num_inputs;
  input->num_inputs = count;
  bool computed[kernel::kMaxInputs];
  for (int i = 0; i < count; ++i) {
    if (launch.inputs[i] == kAbsentInput) {
      ViewAbsent(launch.compute, &input->operands[i]);
      computed[i] = true;
    } else {
      computed[i] = call.View(launch.inputs[i], &input->operands[i]);
    }
  }
  kernel::TensorView& y = input->operands[count];
  ViewWideOut(call, launch, &y, out_cast);
  if (launch.y_shape != nullptr && !kernel::SameDims(*launch.y_shape, y.shape)) {
    ViewSummedOut(call, launch, &y, out_sum, why);
  }
  input->store_dtype = y.dtype;
  y.dtype = launch.compute;
  input->platform = KernelPlatform();
  // An input of another dtype than the compute dtype is cast to it in the workspace (the operator
  // promoted its inputs' dtypes). Of the others, those out overlaps are staged; a one-value input is
  // read before out is written (RunElementwiseOp): never.
  int cast_inputs[kernel::kMaxInputs];
  int casts = 0;
  int aliased_params[kernel::kMaxInputs];
  kernel::TensorView* aliased_views[kernel::kMaxInputs];
  int aliased = 0;
  for (int i = 0; i < count; ++i) {
    if (launch.inputs[i] == kAbsentInput) continue;  // of the compute dtype, in no one's memory
    if (!computed[i] || input->operands[i].dtype != launch.compute) {
      cast_inputs[casts++] = i;
    } else if (i != launch.scalar_input || call.numel(launch.inputs[i]) != 1) {
      aliased_params[aliased] = launch.inputs[i];
      aliased_views[aliased++] = &input->operands[i];
    }
  }
  std::vector<StagedInput> staged = call.StageAliasedInputs(aliased_params, aliased_views, aliased, launch.out);
  for (int c = 0; c < casts; ++c) {
    const int i = cast_inputs[c];
    staged.push_back(call.StageCast(launch.inputs[i], &input->operands[i], launch.compute));
  }
  return staged;
}

aclnnStatus FinishElementwise(PhaseOne& call, const ElementwiseLaunch& launch, ElementwiseBody* body,
                              uint64_t* workspace_size, aclOpExecutor** executor) {
  const kernel::ElementwiseTiling& tiling = body->tiling;
  if (LogEnabled(kLogInfo)) {
    const std::string attribute = AttributesText(launch);
    Log(kLogInfo, std::string(call.api()) + ": out " + kernel::ShapeToString(call.shape(launch.out)) + " " + attribute +
                      "tiling key " + std::to_string(tiling.key.Encode()) + " (" + tiling.key.ToString() + "), " +
                      std::to_string(tiling.plan.num_tiles) + " tiles of " + std::to_string(tiling.plan.tile_elems) +
                      " on " + std::to_string(tiling.threads) + " threads");
  }
  body->loop = launch.select(tiling.key);
  for (int i = 0; i < tiling.num_inputs; ++i) body->inputs[i] = launch.inputs[i];
  body->out = launch.out;
  return call.Publish(workspace_size, executor);
}

}  // namespace opapi
}  // namespace aclcpu
