#include "mse_loss_grad_def.h"

namespace aclcpu {
namespace mse_loss_grad {

const OpDefinition& Definition() {
  static const OpDefinition definition{
      "MseLossGrad", {"predict", "label", "dout"},
      {"y"},         {kernel::DType::kBFloat16, kernel::DType::kFloat16, kernel::DType::kFloat32},
      "ND",          {{"reduction", "mean", {"none", "mean", "sum"}}},
  };
  return definition;
}

}  // namespace mse_loss_grad
}  // namespace aclcpu
