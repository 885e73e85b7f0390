// L1LossGrad's own rule: the Dag's scalars on each route -- the mean's scale and the sign of an
// unordered pair.
#include "ops/loss/l1_loss_grad/l1_loss_grad_op.h"

namespace aclcpu {
namespace l1_loss_grad {

bool SetScalars(const Attributes& attributes, const kernel::ElementwiseOpInput& input, float* scalars,
                std::string* error) {
  // The tensors as the kernel receives them: y's dims for each once the aclnn layer broadcast them.
  const kernel::Dims label = input.inputs_broadcast ? input.operands[kY].shape : input.operands[kLabel].shape;
  const kernel::Dims grads = input.inputs_broadcast ? input.operands[kY].shape : input.operands[kGrads].shape;
  float scale = 1.0f;
  if (attributes.reduction == loss::Reduction::kMean) {
    if (kernel::Numel(input.operands[kLabel].shape) == 0) {
      *error = "L1LossGrad: label cannot be empty when reduction is mean (label shape " +
               kernel::ShapeToString(input.operands[kLabel].shape) + ")";
      return false;
    }
    if (attributes.route == Route::kTbe) {
      // The TBE kernel (impl/dynamic/l1_loss_grad.py, l1_loss_grad_compute): float32(1.0 / N), N
      // the product of grads' dims in double.
      double elements = 1.0;
      for (int64_t dim : grads) elements *= static_cast<double>(dim);
      scale = static_cast<float>(1.0 / elements);
    } else {
      // arch35 (op_host/arch35/l1_loss_grad_tiling.cpp, CaluateReduceElts): 1.0f divided by each
      // of label's dims in turn, each quotient rounded to float; a 0-d label is read as [1].
      for (int64_t dim : label) scale = scale / static_cast<float>(dim);
    }
  }
  scalars[kScale] = scale;
  scalars[kUnorderedSign] = attributes.route == Route::kTbe ? -1.0f : 0.0f;
  return true;
}

}  // namespace l1_loss_grad
}  // namespace aclcpu
