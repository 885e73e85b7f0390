#include "mse_loss_grad_tiling.h"

#include <array>
#include <vector>

namespace aclcpu {
namespace mse_loss_grad {
namespace {

bool CheckSameDtype(const char* name, kernel::DType dtype, kernel::DType predict, std::string* error) {
  if (dtype == predict) return true;
  *error = std::string("MseLossGrad: ") + name + " dtype " + kernel::DTypeName(dtype) + " differs from predict dtype " +
           kernel::DTypeName(predict);
  return false;
}

}  // namespace

const kernel::KeyTable& KernelKey::Table() {
  using kernel::KeyFieldKind;
  static const kernel::KeyTable table = {
      {"schMode", KeyFieldKind::kList, 2, {0, 1, 2}},  // ScheduleMode
      {"doutIsScalar", KeyFieldKind::kBool, 1, {}},
      {"streamStores", KeyFieldKind::kBool, 1, {}},
      {"layout", KeyFieldKind::kList, 4, {0, 1, 2, 3, 4, 5, 6, 7, kernel::kStridedLayout}},
      {"dtype", KeyFieldKind::kDType, 8, {}},
      {"storeDtype", KeyFieldKind::kDType, 8, {}},
  };
  return table;
}

std::array<uint32_t, 6> KernelKey::Values() const {
  return {static_cast<uint32_t>(mode),       dout_is_scalar, stream_stores, layout, static_cast<uint32_t>(dtype),
          static_cast<uint32_t>(store_dtype)};
}

bool ComputeTiling(const TilingInput& input, TilingData* data, std::string* error) {
  const kernel::DType dtype = input.predict.dtype;
  if (!CheckSameDtype("label", input.label.dtype, dtype, error) ||
      !CheckSameDtype("dout", input.dout.dtype, dtype, error) || !CheckSameDtype("y", input.y.dtype, dtype, error)) {
    return false;
  }
  TilingData& result = *data;  // every field set below, in place (it is copied into the executor next)
  KernelKey& key = result.key;
  key.dtype = dtype;
  key.store_dtype = input.store_dtype;
  key.dout_is_scalar = kernel::Numel(input.dout.shape) == 1;  // 0-d or one element
  result.cof = 2.0f;
  if (input.reduction == loss::Reduction::kMean) {
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
  if (key.dout_is_scalar) {  // the kernel reads its one value into a place of its own
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
  key.mode = schedule.mode;
  key.stream_stores = schedule.stream_stores;
  key.layout = schedule.layout;
  result.threads = schedule.threads;
  return true;
}

}  // namespace mse_loss_grad
}  // namespace aclcpu
