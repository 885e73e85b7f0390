#include "l1_loss_grad_tiling.h"

#include "op_graph/l1_loss_grad_def.h"

namespace aclcpu {
namespace l1_loss_grad {

float Scale(const Attributes& attributes, kernel::Dims grads, kernel::Dims label, kernel::Dims y) {
  if (attributes.reduction != loss::Reduction::kMean) return 1.0f;
  if (attributes.route == KernelRoute::kTbe) {
    double elements = 1.0;  // Python's float product of the dims, then its reciprocal, then float32
    for (int64_t dim : attributes.inputs_broadcast ? y : grads) elements *= static_cast<double>(dim);
    return static_cast<float>(1.0 / elements);
  }
  float scale = 1.0f;  // a 0-d label is read as [1] (EnsureNotScalar): 1
  for (int64_t dim : attributes.inputs_broadcast ? y : label) scale = scale / static_cast<float>(dim);
  return scale;
}

bool ComputeTiling(kernel::ElementwiseOpInput* input, const Attributes& attributes, TilingData* data,
                   std::string* error) {
  static const DefinitionNames names(Definition());
  input->op = names.type;
  input->names = names.operands;
  input->num_inputs = kY;
  input->scalar_input = kScalarInput;
  const kernel::Dims label = input->operands[kLabel].shape;
  if (attributes.reduction == loss::Reduction::kMean && kernel::Numel(label) == 0) {
    *error =
        "L1LossGrad: label cannot be empty when reduction is mean (label shape " + kernel::ShapeToString(label) + ")";
    return false;
  }
  input->scalars[kScale] = Scale(attributes, input->operands[kGrads].shape, label, input->operands[kY].shape);
  input->scalars[kUnorderedSign] = attributes.route == KernelRoute::kTbe ? -1.0f : 0.0f;
  return kernel::PlanElementwiseOp(*input, data, error);
}

}  // namespace l1_loss_grad
}  // namespace aclcpu
