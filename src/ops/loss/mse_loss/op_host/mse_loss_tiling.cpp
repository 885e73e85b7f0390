#include "mse_loss_tiling.h"

#include <vector>

#include "ops/loss/common/loss_reduction.h"

namespace aclcpu {
namespace mse_loss {
namespace {

bool Fail(const std::string& what, std::string* error) {
  *error = "MseLoss: " + what;
  return false;
}

bool DTypeFromDigit(uint64_t digit, kernel::DType* dtype) {
  if (digit >= static_cast<uint64_t>(kernel::kDTypeCount)) return false;
  *dtype = static_cast<kernel::DType>(digit);
  return true;
}

}  // namespace

bool ReductionFromString(const std::string& text, TilingReduction* reduction) {
  loss::Reduction value;
  if (!loss::ReductionFromName(text, &value)) return false;
  switch (value) {
    case loss::Reduction::kNone:
      *reduction = TilingReduction::kNone;
      break;
    case loss::Reduction::kMean:
      *reduction = TilingReduction::kMean;
      break;
    case loss::Reduction::kSum:
      *reduction = TilingReduction::kSum;
      break;
  }
  return true;
}

uint64_t KernelKey::Encode() const {
  uint64_t key = static_cast<uint64_t>(reduce);
  for (uint64_t digit : {static_cast<uint64_t>(mode), uint64_t{stream_stores}, uint64_t{round_losses}, uint64_t{empty},
                         static_cast<uint64_t>(predict), static_cast<uint64_t>(label), static_cast<uint64_t>(compute),
                         static_cast<uint64_t>(store)}) {
    key = key * 10 + digit;
  }
  return key;
}

bool KernelKey::Decode(uint64_t key, KernelKey* out) {
  uint64_t digits[9];
  for (int i = 8; i >= 0; --i) {
    digits[i] = key % 10;
    key /= 10;
  }
  KernelKey k;
  if (key != 0 || digits[0] > 2 || digits[1] > 2 || digits[2] > 1 || digits[3] > 1 || digits[4] > 1 ||
      !DTypeFromDigit(digits[5], &k.predict) || !DTypeFromDigit(digits[6], &k.label) ||
      !DTypeFromDigit(digits[7], &k.compute) || !DTypeFromDigit(digits[8], &k.store) ||
      k.compute != kernel::PromoteTypes(k.predict, k.label)) {
    return false;
  }
  k.reduce = static_cast<ReduceMode>(digits[0]);
  k.mode = static_cast<kernel::ScheduleMode>(digits[1]);
  k.stream_stores = digits[2] == 1;
  k.round_losses = digits[3] == 1;
  k.empty = digits[4] == 1;
  *out = k;
  return true;
}

bool ComputeTiling(const TilingInput& input, TilingData* data, std::string* error) {
  TilingReduction reduction;
  if (!ReductionFromString(input.reduction, &reduction)) {
    return Fail("reduction \"" + input.reduction + "\" is invalid; expected " + loss::kReductionNames, error);
  }
  const kernel::DType compute = input.y.dtype;
  kernel::Shape shape;  // the losses' shape
  if (input.fused) {
    if (compute != kernel::PromoteTypes(input.predict.dtype, input.label.dtype)) {
      return Fail(std::string("y dtype ") + kernel::DTypeName(compute) + " is not the promotion of predict " +
                      kernel::DTypeName(input.predict.dtype) + " and label " + kernel::DTypeName(input.label.dtype),
                  error);
    }
    std::string why;
    const kernel::Shape* shapes[] = {&input.predict.shape, &input.label.shape};
    if (!kernel::BroadcastShapes(shapes, 2, &shape, &why))
      return Fail("predict and label do not broadcast: " + why, error);
  } else {
    if (input.label.dtype != input.predict.dtype || compute != input.predict.dtype) {
      return Fail(std::string("predict ") + kernel::DTypeName(input.predict.dtype) + ", label " +
                      kernel::DTypeName(input.label.dtype) + " and y " + kernel::DTypeName(compute) +
                      " must have one dtype",
                  error);
    }
    if (input.predict.shape != input.label.shape) {
      return Fail("predict " + kernel::ShapeToString(input.predict.shape) + " and label " +
                      kernel::ShapeToString(input.label.shape) + " must have one shape",
                  error);
    }
    if (input.reduce_axis0) return Fail("the sum over dim 0 is a step of the aclnn layer (fused only)", error);
    shape = input.predict.shape;
  }
  KernelKey key;
  key.predict = input.predict.dtype;
  key.label = input.label.dtype;
  key.compute = compute;
  key.store = input.store_dtype;
  const bool none = reduction == TilingReduction::kNone;
  key.reduce = none ? ReduceMode::kNone : (input.reduce_axis0 ? ReduceMode::kAxis0 : ReduceMode::kAll);
  key.round_losses = input.reduce_axis0;  // MseLossOut reduces the "none" loss tensor
  TilingData& result = *data;             // filled in place (it is copied into the executor next)
  result = TilingData();
  result.mean = reduction == TilingReduction::kMean;
  kernel::Shape expected_y;  // all elements reduced: 0-d
  if (none) {
    expected_y = shape;
  } else if (input.reduce_axis0 && !shape.empty()) {
    expected_y.assign(shape.begin() + 1, shape.end());
  }
  if (input.y.shape != expected_y) {
    return Fail("y " + kernel::ShapeToString(input.y.shape) + " is not " + kernel::ShapeToString(expected_y) +
                    " for reduction " + input.reduction,
                error);
  }
  key.empty = kernel::Numel(shape) == 0;
  if (key.empty) {  // all elements reduced: NaN for mean, 0 for sum; otherwise nothing to write
    result.tiling_key = key.Encode();
    return true;
  }
  kernel::OperandLayout y = input.y.Layout();
  y.element_size = kernel::ElementSize(input.store_dtype);
  std::string why;
  if (none) {
    const kernel::OperandLayout operands[] = {input.predict.Layout(), input.label.Layout(), y};
    if (!kernel::PlanElementwise(shape, operands, 3, &result.plan, &why)) {
      return Fail("cannot plan the losses: " + why, error);
    }
    const kernel::Schedule schedule = kernel::ScheduleElementwise(input.platform, kY, &result.plan);
    key.mode = schedule.mode;
    key.stream_stores = schedule.stream_stores;
    result.threads = schedule.threads;
  } else {
    const kernel::ReduceKind kind = input.reduce_axis0 ? kernel::ReduceKind::kAxis0 : kernel::ReduceKind::kAll;
    const int64_t numel = kernel::Numel(shape);
    const double divisor =
        result.mean ? static_cast<double>(input.reduce_axis0 ? (shape.empty() ? 1 : shape[0]) : numel) : 1.0;
    const kernel::OperandLayout inputs[] = {input.predict.Layout(), input.label.Layout()};
    if (!kernel::PlanReduction(kind, shape, inputs, 2, y, divisor, input.y_aliases_inputs, input.platform,
                               &result.reduce, &why)) {
      return Fail("cannot plan the reduction: " + why, error);
    }
    result.threads = result.reduce.threads;
    result.workspace_bytes = result.reduce.workspace_bytes;
  }
  result.tiling_key = key.Encode();
  return true;
}

}  // namespace mse_loss
}  // namespace aclcpu
