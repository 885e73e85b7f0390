#include "l1_loss_grad_def.h"

namespace aclcpu {
namespace l1_loss_grad {

const OpDefinition& Definition() {
  static const OpDefinition definition{
      "L1LossGrad", {"grads", "predict", "label"},
      {"y"},        {kernel::DType::kBFloat16, kernel::DType::kFloat16, kernel::DType::kFloat32},
      "ND",         {{"reduction", "mean", {"none", "mean", "sum"}}},
  };
  return definition;
}

}  // namespace l1_loss_grad
}  // namespace aclcpu
