#include "mse_loss_infer.h"

#include "ops/loss/common/loss_reduction.h"

namespace aclcpu {
namespace mse_loss {

bool InferShape(const kernel::Shape& predict, const kernel::Shape& label, loss::Reduction reduction, kernel::Shape* y,
                std::string* why) {
  if (predict != label) {
    if (why != nullptr) {
      *why = "predict " + kernel::ShapeToString(predict) + " and label " + kernel::ShapeToString(label) +
             " differ in shape";
    }
    return false;
  }
  *y = reduction == loss::Reduction::kNone ? predict : kernel::Shape{};
  return true;
}

kernel::DType InferDtype(kernel::DType predict) { return predict; }

}  // namespace mse_loss
}  // namespace aclcpu
