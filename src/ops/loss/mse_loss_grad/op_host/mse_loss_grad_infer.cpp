#include "mse_loss_grad_infer.h"

namespace aclcpu {
namespace mse_loss_grad {

bool InferShape(const kernel::Shape& predict, const kernel::Shape& label, const kernel::Shape& dout, kernel::Shape* y,
                std::string* why) {
  const kernel::Dims shapes[] = {predict, label, dout};
  return kernel::BroadcastShapes(shapes, 3, y, why);
}

kernel::DType InferDtype(kernel::DType predict) { return predict; }

}  // namespace mse_loss_grad
}  // namespace aclcpu
