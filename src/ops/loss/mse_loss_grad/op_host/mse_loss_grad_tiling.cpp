#include "mse_loss_grad_tiling.h"

#include <algorithm>
#include <vector>

#include "kernel/vector_ops.h"

namespace aclcpu {
namespace mse_loss_grad {
namespace {

bool CheckSameDtype(const char* name, kernel::DType dtype, kernel::DType predict, std::string* error) {
  if (dtype == predict) return true;
  *error = std::string("MseLossGrad: ") + name + " dtype " + kernel::DTypeName(dtype) + " differs from predict dtype " +
           kernel::DTypeName(predict);
  return false;
}

// Tiles of whole blocks that keep every operand's share of a tile in half the L2 cache, and at
// least one tile per thread once the work is big enough to be split at all.
int64_t ChooseTileElems(const TilingData& data, const TilingPlatform& platform, int64_t bytes_per_element) {
  const int64_t numel = data.plan.numel;
  int64_t tile = std::max<int64_t>(kernel::kBlock, platform.l2_bytes / 2 / std::max<int64_t>(bytes_per_element, 1));
  tile = tile / kernel::kBlock * kernel::kBlock;
  if (data.threads > 1) {
    const int64_t per_thread = (numel + data.threads - 1) / data.threads;
    tile = std::min(tile, (per_thread + kernel::kBlock - 1) / kernel::kBlock * kernel::kBlock);
  }
  return std::max<int64_t>(tile, 1);
}

}  // namespace

bool ReductionFromString(const std::string& text, TilingReduction* reduction) {
  if (text == "none") {
    *reduction = TilingReduction::kNone;
  } else if (text == "sum") {
    *reduction = TilingReduction::kSum;
  } else if (text == "mean") {
    *reduction = TilingReduction::kMean;
  } else {
    return false;
  }
  return true;
}

uint64_t TilingKey(ScheduleMode mode, bool dout_is_scalar, kernel::DType dtype, kernel::DType store_dtype) {
  return static_cast<uint64_t>(mode) * 1000 + (dout_is_scalar ? 100 : 0) + static_cast<uint64_t>(dtype) * 10 +
         static_cast<uint64_t>(store_dtype);
}

bool ComputeTiling(const TilingInput& input, TilingData* data, std::string* error) {
  const kernel::DType dtype = input.predict.dtype;
  if (!CheckSameDtype("label", input.label.dtype, dtype, error) ||
      !CheckSameDtype("dout", input.dout.dtype, dtype, error) || !CheckSameDtype("y", input.y.dtype, dtype, error)) {
    return false;
  }
  TilingReduction reduction;
  if (!ReductionFromString(input.reduction, &reduction)) {
    *error = "MseLossGrad: reduction \"" + input.reduction + "\" is invalid; expected none, mean or sum";
    return false;
  }
  TilingData result;
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
    result.cof = static_cast<float>(2.0 / static_cast<double>(numel));
  }

  std::vector<kernel::OperandLayout> operands;
  operands.reserve(4);
  operands.push_back(input.predict.Layout());
  operands.push_back(input.label.Layout());
  if (!result.dout_is_scalar) operands.push_back(input.dout.Layout());
  kernel::OperandLayout y = input.y.Layout();
  y.element_size = kernel::ElementSize(input.store_dtype);
  operands.push_back(y);
  if (!kernel::PlanElementwise(input.y.shape, operands, &result.plan)) {
    *error = "MseLossGrad: the inputs " + kernel::ShapeToString(input.predict.shape) + ", " +
             kernel::ShapeToString(input.label.shape) + ", " + kernel::ShapeToString(input.dout.shape) +
             " do not broadcast to y " + kernel::ShapeToString(input.y.shape);
    return false;
  }

  bool flat = result.plan.rank == 1;
  int64_t bytes_per_element = 0;
  for (size_t i = 0; i < operands.size(); ++i) {
    const int64_t stride = result.plan.inner_byte_stride(static_cast<int>(i));
    flat = flat && (stride == operands[i].element_size || stride == 0);
    if (stride != 0) bytes_per_element += operands[i].element_size;
  }
  result.mode = flat ? ScheduleMode::kContiguous : ScheduleMode::kBroadcast;
  if (!flat && kernel::UseBlockedTiles(&result.plan, static_cast<int>(operands.size()) - 1)) {
    result.mode = ScheduleMode::kBlocked;
  }
  const int64_t y_bytes = result.plan.numel * y.element_size;
  result.stream_stores = y_bytes > input.platform.llc_bytes &&
                         result.plan.inner_byte_stride(result.plan.num_operands - 1) == y.element_size;
  result.threads = result.plan.numel < kParallelGrain ? 1 : std::max(1, input.platform.threads);
  kernel::SetTiles(&result.plan, ChooseTileElems(result, input.platform, bytes_per_element));
  result.threads = static_cast<int>(std::min<int64_t>(result.threads, std::max<int64_t>(result.plan.num_tiles, 1)));
  result.tiling_key = TilingKey(result.mode, result.dout_is_scalar, dtype, input.store_dtype);
  *data = result;
  return true;
}

}  // namespace mse_loss_grad
}  // namespace aclcpu
