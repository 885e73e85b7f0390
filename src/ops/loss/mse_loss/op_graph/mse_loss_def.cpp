#include "mse_loss_def.h"

namespace aclcpu {
namespace mse_loss {

const OpDefinition& Definition() {
  static const OpDefinition definition{
      "MseLoss", {"predict", "label"},
      {"y"},     {kernel::DType::kBFloat16, kernel::DType::kFloat16, kernel::DType::kFloat32},
      "ND",      {{"reduction", "mean", {"none", "mean", "sum"}}},
  };
  return definition;
}

}  // namespace mse_loss
}  // namespace aclcpu
