#include "mse_loss_grad_tiling.h"

#include "op_graph/mse_loss_grad_def.h"

namespace aclcpu {
namespace mse_loss_grad {

bool ComputeTiling(kernel::ElementwiseOpInput* input, const Attributes& attributes, TilingData* data,
                   std::string* error) {
  static const DefinitionNames names(Definition());
  input->op = names.type;
  input->names = names.operands;
  input->num_inputs = kY;
  input->scalar_input = kScalarInput;
  input->scalars[0] = 2.0f;
  if (attributes.reduction == loss::Reduction::kMean) {
    const kernel::Dims predict = input->operands[kPredict].shape;
    const int64_t numel = kernel::Numel(predict);
    if (numel == 0) {
      *error = "MseLossGrad: predict cannot be empty when reduction is mean (predict shape " +
               kernel::ShapeToString(predict) + ")";
      return false;
    }
    if (attributes.cof_rule == CofRule::kFloatProduct) {
      float product = 1.0f;
      for (int64_t dim : predict) product = product * static_cast<float>(dim);
      input->scalars[0] = 1.0f / product * 2.0f;
    } else {
      input->scalars[0] = static_cast<float>(2.0 / static_cast<double>(numel));
    }
  }
  return kernel::PlanElementwiseOp(*input, data, error);
}

}  // namespace mse_loss_grad
}  // namespace aclcpu
