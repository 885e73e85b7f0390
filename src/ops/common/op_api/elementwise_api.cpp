#include "elementwise_api.h"

#include "runtime/runtime_internal.h"

namespace aclcpu {
namespace opapi {
namespace {

// What the executor keeps: the plan, the inner loop and where each operand is among the launch's
// tensors.
struct ElementwiseBody {
  kernel::ElementwiseTiling tiling;
  kernel::InnerLoop loop;
  int inputs[kernel::kMaxInputs];
  int out;

  void operator()(LaunchArgs& args) const {
    const char* data[kernel::kMaxInputs];
    for (int i = 0; i < tiling.num_inputs; ++i) data[i] = args.data(inputs[i]);
    kernel::RunElementwiseOp(tiling, loop, data, args.data(out), KernelThreadPool());
  }
};

}  // namespace

std::vector<StagedInput> ViewElementwise(PhaseOne& call, const ElementwiseLaunch& launch,
                                         kernel::ElementwiseOpInput* input) {
  const int count = launch.num_inputs;
  input->num_inputs = count;
  for (int i = 0; i < count; ++i) call.View(launch.inputs[i], &input->operands[i]);
  kernel::TensorView& y = input->operands[count];
  call.View(launch.out, &y);
  input->store_dtype = y.dtype;
  y.dtype = launch.compute;
  input->platform = KernelPlatform();
  // A one-value input is read before out is written (RunElementwiseOp): never staged.
  int staged_params[kernel::kMaxInputs];
  kernel::TensorView* staged_views[kernel::kMaxInputs];
  int staged = 0;
  for (int i = 0; i < count; ++i) {
    if (i == launch.scalar_input && call.numel(launch.inputs[i]) == 1) continue;
    staged_params[staged] = launch.inputs[i];
    staged_views[staged++] = &input->operands[i];
  }
  return call.StageAliasedInputs(staged_params, staged_views, staged, launch.out);
}

aclnnStatus FinishElementwise(PhaseOne& call, const ElementwiseLaunch& launch, std::vector<StagedInput> staged,
                              const kernel::ElementwiseTiling& tiling, uint64_t* workspace_size,
                              aclOpExecutor** executor) {
  if (LogEnabled(kLogInfo)) {
    const std::string attribute =
        launch.attribute == nullptr ? "" : std::string(launch.attribute) + " " + launch.attribute_value + " ";
    Log(kLogInfo, std::string(call.api()) + ": out " + kernel::ShapeToString(call.shape(launch.out)) + " " + attribute +
                      "tiling key " + std::to_string(tiling.key.Encode()) + " (" + tiling.key.ToString() + "), " +
                      std::to_string(tiling.plan.num_tiles) + " tiles of " + std::to_string(tiling.plan.tile_elems) +
                      " on " + std::to_string(tiling.threads) + " threads");
  }
  ElementwiseBody body{tiling, launch.select(tiling.key), {}, launch.out};
  for (int i = 0; i < tiling.num_inputs; ++i) body.inputs[i] = launch.inputs[i];
  return call.Finish(std::move(staged), std::move(body), workspace_size, executor);
}

}  // namespace opapi
}  // namespace aclcpu
