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
  *y = ReducedShape(predict, reduction, false);
  return true;
}

kernel::Shape ReducedShape(const kernel::Shape& losses, loss::Reduction reduction, bool over_dim0) {
  if (reduction == loss::Reduction::kNone) return losses;
  if (over_dim0 && !losses.empty()) return kernel::Shape(losses.begin() + 1, losses.end());
  return kernel::Shape{};
}

kernel::DType InferDtype(kernel::DType predict) { return predict; }

}  // namespace mse_loss
}  // namespace aclcpu
