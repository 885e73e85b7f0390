#include "mse_loss_infer.h"

#include "ops/loss/common/loss_reduction.h"

namespace aclcpu {
namespace mse_loss {

bool InferShape(const kernel::Shape& predict, const kernel::Shape& label, const std::string& reduction,
                kernel::Shape* y, std::string* why) {
  loss::Reduction value;
  if (!loss::ReductionFromName(reduction, &value)) {
    if (why != nullptr) *why = "reduction \"" + reduction + "\" is invalid; expected " + loss::kReductionNames;
    return false;
  }
  if (predict != label) {
    if (why != nullptr) {
      *why = "predict " + kernel::ShapeToString(predict) + " and label " + kernel::ShapeToString(label) +
             " differ in shape";
    }
    return false;
  }
  *y = value == loss::Reduction::kNone ? predict : kernel::Shape{};
  return true;
}

kernel::DType InferDtype(kernel::DType predict) { return predict; }

}  // namespace mse_loss
}  // namespace aclcpu
