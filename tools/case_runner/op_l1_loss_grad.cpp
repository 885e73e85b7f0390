// L1LossGrad in the op table: the CSV's l1_loss_grad rows (grads, predict, label) at the kernel
// level, the JSON's L1LossBackward cases (gradOutput, self, target) through the aclnn API.
#include "golden/l1_loss_grad_golden.h"
#include "op_graph/l1_loss_grad_def.h"
#include "op_host/l1_loss_grad_infer.h"
#include "op_host/l1_loss_grad_tiling.h"
#include "op_kernel/l1_loss_grad_kernel.h"
#include "ops.h"

namespace case_runner {
namespace {

namespace l1 = aclcpu::l1_loss_grad;

// In the order of OpInfo::inputs: the definition's.
enum Input { kGrad = 0, kSelf = 1, kTarget = 2 };

bool InferShapeAndDtype(const Case& c, int64_t /*attribute*/, std::vector<int64_t>* y_shape, Dtype* y_dtype,
                        std::string* error) {
  std::string why;
  aclcpu::kernel::Shape y;
  if (!l1::InferShape(c.inputs[kGrad].shape, c.inputs[kSelf].shape, c.inputs[kTarget].shape, &y, &why)) {
    *error = "infer shape rejected the case: " + why;
    return false;
  }
  *y_shape = y;
  *y_dtype = l1::InferDtype(c.inputs[kGrad].dtype);
  return true;
}

// The kernel as the graph drives it: ops-nn's arch35 L1LossGrad on the tensors as given.
bool Tiling(aclcpu::kernel::ElementwiseOpInput* input, int64_t attribute, l1::TilingData* data, std::string* why) {
  l1::Attributes attributes;
  if (!aclcpu::loss::ReductionFromApi(attribute, &attributes.reduction)) {
    *why = "reduction " + std::to_string(attribute) + " is not 0, 1 or 2";
    return false;
  }
  return l1::ComputeTiling(input, attributes, data, why);
}

bool KernelRun(const Case& /*c*/, int64_t attribute, const std::vector<TensorBuffer>& inputs, const TensorBuffer& y,
               std::string* error) {
  return RunElementwiseKernel(inputs, y, attribute, &Tiling, &l1::SelectKernel, error);
}

// gradInput: the broadcast shape, in the inputs' promoted dtype.
void ApiOut(const std::vector<TensorSpec>& inputs, int64_t /*reduction*/, std::vector<int64_t>* shape, Dtype* dtype) {
  using aclcpu::kernel::PromoteTypes;
  *dtype = PromoteTypes(PromoteTypes(inputs[kGrad].dtype, inputs[kSelf].dtype), inputs[kTarget].dtype);
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
  const golden::L1GradRoute route{target.npu, target.kernel_level};
  return MakeElementwiseGolden(out_dtype, shape,
                               [inputs, reduction, out_dtype, route](int64_t begin, int64_t end, uint32_t* bits) {
                                 golden::L1LossGrad(inputs[kGrad], inputs[kSelf], inputs[kTarget],
                                                    static_cast<int>(reduction), out_dtype, begin, end, bits, route);
                               });
}

}  // namespace

extern const OpInfo kL1LossGradOp;
// clang-format off: one field a line, in OpInfo's order
const OpInfo kL1LossGradOp = {
    "L1LossBackward", "l1_loss_grad",
    "L1LossGrad",     {{"gradOutput", "grads"}, {"self", "predict"}, {"target", "label"}},
    nullptr,  // ops-nn's table writes a 0-d output as ()
    &l1::Definition,  &InferShapeAndDtype,
    &KernelRun,       &ApiOut,
    &MakeGolden,
};
// clang-format on

}  // namespace case_runner
