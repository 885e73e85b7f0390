#include "l1_loss_grad_infer.h"

namespace aclcpu {
namespace l1_loss_grad {

bool InferShape(const kernel::Shape& grads, const kernel::Shape& predict, const kernel::Shape& label, kernel::Shape* y,
                std::string* why) {
  const kernel::Dims shapes[] = {grads, predict, label};
  return kernel::BroadcastShapes(shapes, 3, y, why);
}

kernel::DType InferDtype(kernel::DType grads) { return grads; }

}  // namespace l1_loss_grad
}  // namespace aclcpu
