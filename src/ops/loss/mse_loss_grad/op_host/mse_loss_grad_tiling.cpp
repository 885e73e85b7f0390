#include "mse_loss_grad_tiling.h"

#include <vector>

#include "ops/loss/common/loss_reduction.h"

namespace aclcpu {
namespace mse_loss_grad {
namespace {

bool CheckSameDtype(const char* name, kernel::DType dtype, kernel::DType predict, std::string* error) {
  if (dtype == predict) return true;
  *error = std::string("MseLossGrad: ") + name + " dtype " + kernel::DTypeName(dtype) + " differs from predict dtype " +
           kernel::DTypeName(predict);
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
  return static_cast<uint64_t>(mode) * 100000 + (stream_stores ? 10000 : 0) + (dout_is_scalar ? 1000 : 0) +
         uint64_t{layout} * 100 + static_cast<uint64_t>(dtype) * 10 + static_cast<uint64_t>(store_dtype);
}

bool KernelKey::Decode(uint64_t key, KernelKey* out) {
  KernelKey k;
  const uint64_t mode = key / 100000, stream = key / 10000 % 10, scalar = key / 1000 % 10, layout = key / 100 % 10;
  if (mode > static_cast<uint64_t>(ScheduleMode::kBlocked) || stream > 1 || scalar > 1 ||
      layout > kernel::kStridedLayout || !DTypeFromDigit(key / 10 % 10, &k.dtype) ||
      !DTypeFromDigit(key % 10, &k.store_dtype)) {
    return false;
  }
  k.mode = static_cast<ScheduleMode>(mode);
  k.stream_stores = stream == 1;
  k.dout_is_scalar = scalar == 1;
  k.layout = static_cast<uint32_t>(layout);
  *out = k;
  return true;
}

bool ComputeTiling(const TilingInput& input, TilingData* data, std::string* error) {
  const kernel::DType dtype = input.predict.dtype;
  if (!CheckSameDtype("label", input.label.dtype, dtype, error) ||
      !CheckSameDtype("dout", input.dout.dtype, dtype, error) || !CheckSameDtype("y", input.y.dtype, dtype, error)) {
    return false;
  }
  TilingReduction reduction;
  if (!ReductionFromString(input.reduction, &reduction)) {
    *error = "MseLossGrad: reduction \"" + input.reduction + "\" is invalid; expected " + loss::kReductionNames;
    return false;
  }
  TilingData& result = *data;  // every field set below, in place (it is copied into the executor next)
  result.dtype = dtype;
  result.store_dtype = input.store_dtype;
  result.dout_is_scalar = kernel::Numel(input.dout.shape) == 1;  // 0-d or one element
  result.cof = 2.0f;
  if (reduction == TilingReduction::kMean) {
    const int64_t numel = kernel::Numel(input.predict.shape);
    if (numel == 0) {
      *error = "MseLossGrad: predict cannot be empty when reduction is mean (predict shape " +
               kernel::ShapeToString(input.predict.shape) + ")";
      return false;
    }
    if (input.cof_rule == CofRule::kFloatProduct) {
      float product = 1.0f;
      for (int64_t dim : input.predict.shape) product = product * static_cast<float>(dim);
      result.cof = 1.0f / product * 2.0f;
    } else {
      result.cof = static_cast<float>(2.0 / static_cast<double>(numel));
    }
  }

  kernel::OperandLayout operands[kOperandCount];
  operands[kPredict] = input.predict.Layout();
  operands[kLabel] = input.label.Layout();
  operands[kDout] = input.dout.Layout();
  if (result.dout_is_scalar) {  // the kernel reads its one value into a place of its own
    operands[kDout].strides.assign(operands[kDout].shape.size(), 0);
  }
  operands[kY] = input.y.Layout();
  operands[kY].element_size = kernel::ElementSize(input.store_dtype);
  std::string why;
  if (!kernel::PlanElementwise(input.y.shape, operands, kOperandCount, &result.plan, &why)) {
    *error = "MseLossGrad: cannot plan the inputs " + kernel::ShapeToString(input.predict.shape) + ", " +
             kernel::ShapeToString(input.label.shape) + ", " + kernel::ShapeToString(input.dout.shape) + " into y " +
             kernel::ShapeToString(input.y.shape) + ": " + why;
    return false;
  }
  const kernel::Schedule schedule = kernel::ScheduleElementwise(input.platform, kY, &result.plan);
  result.mode = schedule.mode;
  result.threads = schedule.threads;
  result.stream_stores = schedule.stream_stores;
  result.layout = schedule.layout;
  result.tiling_key =
      KernelKey{result.mode, result.dout_is_scalar, dtype, input.store_dtype, result.stream_stores, result.layout}
          .Encode();
  return true;
}

}  // namespace mse_loss_grad
}  // namespace aclcpu
