// MseLossGrad in the op table: the CSV's mse_loss_grad rows (predict, label, dout) at the kernel
// level, the JSON's MseLossBackward cases (gradOutput, self, target) through the aclnn API.
#include <algorithm>

#include "golden/mse_loss_grad_golden.h"
#include "kernel/tensor_view.h"
#include "nnopbase/nnopbase_internal.h"
#include "op_graph/mse_loss_grad_def.h"
#include "op_host/mse_loss_grad_infer.h"
#include "op_host/mse_loss_grad_tiling.h"
#include "op_kernel/mse_loss_grad_kernel.h"
#include "ops.h"

namespace case_runner {
namespace {

namespace mse = aclcpu::mse_loss_grad;
namespace kernel = aclcpu::kernel;

// In the order of OpInfo::inputs.
enum Input { kSelf = 0, kTarget = 1, kGrad = 2 };

// Infer shape and infer dtype (KernelInfer in ops.cpp made the definition's checks).
bool InferShapeAndDtype(const Case& c, int64_t /*attribute*/, std::vector<int64_t>* y_shape, Dtype* y_dtype,
                        std::string* error) {
  std::string why;
  kernel::Shape y;
  if (!mse::InferShape(c.inputs[kSelf].shape, c.inputs[kTarget].shape, c.inputs[kGrad].shape, &y, &why)) {
    *error = "infer shape rejected the case: " + why;
    return false;
  }
  *y_shape = y;
  *y_dtype = mse::InferDtype(c.inputs[kSelf].dtype);
  return true;
}

bool KernelRun(const Case& /*c*/, int64_t attribute, const std::vector<TensorBuffer>& inputs, const TensorBuffer& y,
               std::string* error) {
  aclcpu::kernel::ElementwiseOpInput tiling_input;
  tiling_input.operands[mse::kPredict] = KernelView(inputs[kSelf]);
  tiling_input.operands[mse::kLabel] = KernelView(inputs[kTarget]);
  tiling_input.operands[mse::kDout] = KernelView(inputs[kGrad]);
  tiling_input.operands[mse::kY] = KernelView(y);
  tiling_input.store_dtype = y.dtype;
  tiling_input.platform = KernelPlatform();
  mse::Attributes attributes;
  mse::TilingData tiling;
  std::string why;
  if (!aclcpu::loss::ReductionFromApi(attribute, &attributes.reduction) ||
      !mse::ComputeTiling(&tiling_input, attributes, &tiling, &why)) {
    *error = "tiling rejected the case: " + why;
    return false;
  }
  const char* data[] = {inputs[kSelf].data, inputs[kTarget].data, inputs[kGrad].data};
  aclcpu::kernel::RunElementwiseOp(tiling, mse::SelectKernel(tiling.key), data, y.data, aclcpu::KernelThreadPool());
  return true;
}

void ApiOut(const std::vector<TensorSpec>& inputs, int64_t /*reduction*/, std::vector<int64_t>* shape, Dtype* dtype) {
  *dtype = inputs[kSelf].dtype;
  *shape = inputs[kSelf].shape;  // when the shapes do not broadcast: for the API to reject
  golden::BroadcastShape({inputs[kGrad].shape, inputs[kSelf].shape, inputs[kTarget].shape}, shape);
}

class Golden final : public GoldenOutput {
 public:
  // The runner makes ND tensors, of one format: the shapes decide the kernel.
  Golden(const std::vector<golden::View>& inputs, int reduction, Dtype out_dtype, std::vector<int64_t> shape,
         const GoldenTarget& target)
      : GoldenOutput(out_dtype, std::move(shape)),
        inputs_(inputs),
        reduction_(reduction),
        route_{target.npu, true, target.kernel_level} {}
  void Compute(int64_t begin, int64_t end, uint32_t* bits) const override {
    golden::MseLossGrad(inputs_[kGrad], inputs_[kSelf], inputs_[kTarget], reduction_, dtype(), begin, end, bits,
                        route_);
  }

 private:
  std::vector<golden::View> inputs_;
  int reduction_;
  golden::GradRoute route_;
};

std::unique_ptr<GoldenOutput> MakeGolden(const std::vector<golden::View>& inputs, int64_t reduction, Dtype out_dtype,
                                         const GoldenTarget& target, std::string* why) {
  std::vector<int64_t> shape;
  if (!golden::BroadcastShape({inputs[kGrad].shape, inputs[kSelf].shape, inputs[kTarget].shape}, &shape)) {
    *why = "the input shapes do not broadcast";
    return nullptr;
  }
  if (reduction < 0 || reduction > 2) {
    *why = "reduction " + std::to_string(reduction) + " has no golden";
    return nullptr;
  }
  return std::make_unique<Golden>(inputs, static_cast<int>(reduction), out_dtype, shape, target);
}

}  // namespace

extern const OpInfo kMseLossGradOp;
// clang-format off: one field a line, in OpInfo's order
const OpInfo kMseLossGradOp = {
    "MseLossBackward",
    "mse_loss_grad",
    "MseLossGrad",
    {{"self", "predict"}, {"target", "label"}, {"gradOutput", "dout"}},
    &aclcpu::loss::IsMeanOrSum,  // as ops-nn's tables write the mean and sum rows
    &mse::Definition,
    &InferShapeAndDtype,
    &KernelRun,
    &ApiOut,
    &MakeGolden,
};
// clang-format on

}  // namespace case_runner
