// MseLossGrad in the op table: the CSV's mse_loss_grad rows (predict, label, dout) at the kernel
// level, the JSON's MseLossBackward cases (gradOutput, self, target) through the aclnn API.
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

// The kernel as the graph drives it: MseLossGrad (V1's coefficient) on the tensors as given.
bool Tiling(aclcpu::kernel::ElementwiseOpInput* input, int64_t attribute, mse::TilingData* data, std::string* why) {
  mse::Attributes attributes;
  if (!aclcpu::loss::ReductionFromApi(attribute, &attributes.reduction)) {
    *why = "reduction " + std::to_string(attribute) + " is not 0, 1 or 2";
    return false;
  }
  return mse::ComputeTiling(input, attributes, data, why);
}

bool KernelRun(const Case& /*c*/, int64_t attribute, const std::vector<TensorBuffer>& inputs, const TensorBuffer& y,
               std::string* error) {
  return RunElementwiseKernel(inputs, y, attribute, &Tiling, &mse::SelectKernel, error);
}

void ApiOut(const std::vector<TensorSpec>& inputs, int64_t /*reduction*/, std::vector<int64_t>* shape, Dtype* dtype) {
  *dtype = inputs[kSelf].dtype;
  *shape = inputs[kSelf].shape;  // when the shapes do not broadcast: for the API to reject
  golden::BroadcastShape({inputs[kGrad].shape, inputs[kSelf].shape, inputs[kTarget].shape}, shape);
}

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
  // The runner makes ND tensors, of one format: the shapes decide the kernel.
  const golden::GradRoute route{target.npu, true, target.kernel_level};
  return MakeElementwiseGolden(out_dtype, shape,
                               [inputs, reduction, out_dtype, route](int64_t begin, int64_t end, uint32_t* bits) {
                                 golden::MseLossGrad(inputs[kGrad], inputs[kSelf], inputs[kTarget],
                                                     static_cast<int>(reduction), out_dtype, begin, end, bits, route);
                               });
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
