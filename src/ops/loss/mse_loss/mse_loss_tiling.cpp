#include "mse_loss_tiling.h"

#include <array>
#include <vector>

namespace aclcpu {
namespace mse_loss {
namespace {

bool Fail(const std::string& what, std::string* error) {
  *error = "MseLoss: " + what;
  return false;
}

}  // namespace

bool MseLossV2SplitA2(int64_t n, kernel::DType dtype, const SocFacts& soc, kernel::NpuSplit* split) {
  // Blocks of 32 bytes of the kernel's input dtype; each core 128 blocks at least, the last core
  // every block left over (and the last, partial block). CoreSplit, UBSplit, TileSplit.
  constexpr uint64_t kBlockBytes = 32, kBlocksPerCore = 128, kInputQueues = 2, kCastBuffers = 4;
  const bool fp32 = dtype == kernel::DType::kFloat32;
  const uint64_t per_block = kBlockBytes / static_cast<uint64_t>(kernel::ElementSize(dtype));
  const uint64_t total_blocks = static_cast<uint64_t>(n) / per_block;
  uint64_t cores = static_cast<uint64_t>(soc.vector_cores);
  if (total_blocks < cores * kBlocksPerCore) cores = (total_blocks + kBlocksPerCore - 1) / kBlocksPerCore;
  if (cores == 0) cores = 1;
  const uint64_t blocks_per_core = total_blocks / cores;
  // A tile: the blocks two input queues take of the UB left after a block per core and one more
  // (16-bit inputs: and four float32 cast buffers); double buffers when a core has several tiles.
  if (static_cast<uint64_t>(soc.ub_bytes) <= kBlockBytes * (cores + 1)) return false;
  auto blocks_per_queue = [&](uint64_t buffers) {
    const uint64_t ub_blocks = (static_cast<uint64_t>(soc.ub_bytes) - kBlockBytes * (cores + 1)) / kBlockBytes;
    const uint64_t divisor = fp32 ? kInputQueues * buffers : kInputQueues * buffers + kCastBuffers;
    return ub_blocks / divisor;
  };
  uint64_t per_queue = blocks_per_queue(1);
  if (per_queue == 0) return false;
  if (static_cast<uint32_t>(blocks_per_core / per_queue) > 1)
    per_queue = blocks_per_queue(2);  // (uint32_t, as the tiling)
  if (per_queue == 0) return false;
  split->cores = static_cast<int64_t>(cores);
  split->core_length = static_cast<int64_t>(blocks_per_core * per_block);
  split->tile_length = static_cast<int64_t>(per_queue * per_block);
  return true;
}

kernel::NpuSplit MseLossV2Split950(int64_t n, const SocFacts& soc) {
  // Each core a multiple of 32 values (GetUbBlockSize, read as a count), the cores needed for
  // them; tiles of the UB's float32 over 10 buffers (7 for n <= 1024), a multiple of 64.
  constexpr int64_t kAlign = 32, kTileAlign = 64, kSingleBufferLimit = 1024;
  const int64_t per_core = (n + soc.vector_cores - 1) / soc.vector_cores;
  const int64_t core_length = (per_core + kAlign - 1) / kAlign * kAlign;
  const int64_t buffers = n > kSingleBufferLimit ? 10 : 7;
  const int64_t tile = soc.ub_bytes / 4 / buffers / kTileAlign * kTileAlign;
  return kernel::NpuSplit{(n + core_length - 1) / core_length, core_length, tile};
}

const std::vector<kernel::KeyFieldOf<KernelKey>>& KernelKey::Fields() {
  using kernel::KeyFieldKind;
  using kernel::KeyValue;
  static const std::vector<kernel::KeyFieldOf<KernelKey>> fields = {
      {{"reduce", KeyFieldKind::kList, 2, {0, 1, 2}}, &KeyValue<&KernelKey::reduce>},  // ReduceMode
      {{"order", KeyFieldKind::kList, 2, {0, 1, 2, 3}}, &KeyValue<&KernelKey::order>},  // ReduceOrder
      {{"schMode", KeyFieldKind::kList, 2, {0, 1, 2}}, &KeyValue<&KernelKey::mode>},   // kernel::ScheduleMode
      {{"streamStores", KeyFieldKind::kBool, 1, {}}, &KeyValue<&KernelKey::stream_stores>},
      {{"layout", KeyFieldKind::kList, 3, {0, 1, 2, 3, kernel::kStridedLayout}}, &KeyValue<&KernelKey::layout>},
      {{"roundLosses", KeyFieldKind::kBool, 1, {}}, &KeyValue<&KernelKey::round_losses>},
      {{"empty", KeyFieldKind::kBool, 1, {}}, &KeyValue<&KernelKey::empty>},
      {{"predictDtype", KeyFieldKind::kDType, 8, {}}, &KeyValue<&KernelKey::predict>},
      {{"labelDtype", KeyFieldKind::kDType, 8, {}}, &KeyValue<&KernelKey::label>},
      {{"computeDtype", KeyFieldKind::kDType, 8, {}}, &KeyValue<&KernelKey::compute>},
      {{"storeDtype", KeyFieldKind::kDType, 8, {}}, &KeyValue<&KernelKey::store>},
  };
  return fields;
}

bool ComputeTiling(const TilingInput& input, TilingData* data, std::string* error) {
  const kernel::DType compute = input.y.dtype;
  kernel::Shape shape;  // the losses' shape
  if (input.fused) {
    if (compute != kernel::PromoteTypes(input.predict.dtype, input.label.dtype)) {
      return Fail(std::string("y dtype ") + kernel::DTypeName(compute) + " is not the promotion of predict " +
                      kernel::DTypeName(input.predict.dtype) + " and label " + kernel::DTypeName(input.label.dtype),
                  error);
    }
    std::string why;
    const kernel::Dims shapes[] = {input.predict.shape, input.label.shape};
    if (!kernel::BroadcastShapes(shapes, 2, &shape, &why))
      return Fail("predict and label do not broadcast: " + why, error);
  } else {
    if (input.label.dtype != input.predict.dtype || compute != input.predict.dtype) {
      return Fail(std::string("predict ") + kernel::DTypeName(input.predict.dtype) + ", label " +
                      kernel::DTypeName(input.label.dtype) + " and y " + kernel::DTypeName(compute) +
                      " must have one dtype",
                  error);
    }
    if (!kernel::SameDims(input.predict.shape, input.label.shape)) {
      return Fail("predict " + kernel::ShapeToString(input.predict.shape) + " and label " +
                      kernel::ShapeToString(input.label.shape) + " must have one shape",
                  error);
    }
    if (input.reduce_axis0) return Fail("the sum over dim 0 is a step of the aclnn layer (fused only)", error);
    shape.assign(input.predict.shape.begin(), input.predict.shape.end());
  }
  // Filled in place, field by field (it is copied into the executor next): resetting the whole of
  // it would copy every plan the variant can hold.
  TilingData& result = *data;
  KernelKey& key = result.key;
  key = KernelKey();
  key.predict = input.predict.dtype;
  key.label = input.label.dtype;
  key.compute = compute;
  key.store = input.store_dtype;
  const bool none = input.reduction == loss::Reduction::kNone;
  key.reduce = none ? ReduceMode::kNone : (input.reduce_axis0 ? ReduceMode::kAxis0 : ReduceMode::kAll);
  key.round_losses = input.reduce_axis0;  // MseLossOut reduces the "none" loss tensor
  result.mean = input.reduction == loss::Reduction::kMean;
  result.threads = 1;
  result.workspace_bytes = 0;
  const kernel::Shape expected_y = ReducedShape(shape, input.reduction, input.reduce_axis0);
  if (!kernel::SameDims(input.y.shape, expected_y)) {
    return Fail("y " + kernel::ShapeToString(input.y.shape) + " is not " + kernel::ShapeToString(expected_y) +
                    " for reduction " + loss::ReductionName(input.reduction),
                error);
  }
  key.empty = kernel::Numel(shape) == 0;
  if (key.empty) {  // all elements reduced: NaN for mean, 0 for sum; otherwise nothing to write
    result.plan.emplace<kernel::ElementwisePlan>();  // none to run
    return true;
  }
  kernel::OperandDims y = input.y.Operand();
  y.element_size = kernel::ElementSize(input.store_dtype);
  std::string why;
  if (none) {
    const kernel::OperandDims operands[] = {input.predict.Operand(), input.label.Operand(), y};
    auto& plan = result.plan.emplace<kernel::ElementwisePlan>();
    if (!kernel::PlanElementwise(shape, operands, 3, &plan, &why)) {
      return Fail("cannot plan the losses: " + why, error);
    }
    kernel::Schedule schedule = kernel::ScheduleElementwise(input.platform, kY, &plan);
    if (input.store_dtype != compute) schedule = kernel::ForStoreCast(schedule);
    key.mode = schedule.mode;
    key.stream_stores = schedule.stream_stores;
    key.layout = schedule.layout;
    result.threads = schedule.threads;
  } else if (!input.reduce_axis0 && input.order != ReduceOrder::kFloat64) {
    // The order of MSELossV2: its tiling's split, the mean's scale per tile (A2/A3, 310P:
    // (float)(1.0 / N), a double quotient narrowed) or division at the end (950).
    key.order = input.order;
    const int64_t n = kernel::Numel(shape);
    kernel::NpuSplit split;
    kernel::NpuOrder order = kernel::NpuOrder::kTree;
    if (input.order == ReduceOrder::kMseLossV2A2) {
      order = kernel::NpuOrder::kBisect;
      if (!MseLossV2SplitA2(n, compute, input.soc, &split)) {
        return Fail("the UB of " + std::to_string(input.soc.ub_bytes) + " bytes leaves MSELossV2 no tile", error);
      }
    } else if (input.order == ReduceOrder::kMseLoss950) {
      // op_kernel/arch35/mse_loss_dag.h's Dags as opbase's reduce tiling sizes them (LpLoss's: the
      // difference beside the inputs; with 16-bit inputs their casts, and a mean's scaled sum).
      order = kernel::NpuOrder::kReduceSch;
      const bool wide = compute == kernel::DType::kFloat32;
      const kernel::ReduceSchDag dag{2, wide ? 1 : 3, !wide && result.mean ? 1 : 0};
      std::string why;
      if (!kernel::ReduceSchSplit(n, static_cast<int>(kernel::ElementSize(compute)), dag,
                                  {input.soc.vector_cores, input.soc.ub_bytes}, &split, &why)) {
        return Fail(why, error);
      }
    } else {
      split = MseLossV2Split950(n, input.soc);
    }
    // The mean: A2's tiles and 950's ReduceSch scaled by (float)(1.0 / N); MSELossV2 on 950 divides.
    const float scale = result.mean && order != kernel::NpuOrder::kTree
                            ? static_cast<float>(1.0 / static_cast<double>(n))
                            : 1.0f;
    const bool divide = result.mean && order == kernel::NpuOrder::kTree;
    const kernel::OperandDims inputs[] = {input.predict.Operand(), input.label.Operand()};
    auto& plan = result.plan.emplace<kernel::NpuReducePlan>();
    if (!kernel::PlanNpuReduction(order, split, scale, divide, shape, inputs, 2, y, input.platform, &plan, &why)) {
      return Fail("cannot plan the reduction: " + why, error);
    }
    key.layout = kernel::MapLayout(plan.map, 2);
    result.threads = plan.threads;
  } else {
    const kernel::ReduceKind kind = input.reduce_axis0 ? kernel::ReduceKind::kAxis0 : kernel::ReduceKind::kAll;
    const int64_t numel = kernel::Numel(shape);
    const double divisor =
        result.mean ? static_cast<double>(input.reduce_axis0 ? (shape.empty() ? 1 : shape[0]) : numel) : 1.0;
    const kernel::OperandDims inputs[] = {input.predict.Operand(), input.label.Operand()};
    auto& plan = result.plan.emplace<kernel::ReducePlan>();
    if (!kernel::PlanReduction(kind, shape, inputs, 2, y, divisor, input.y_aliases_inputs, input.platform, &plan,
                               &why)) {
      return Fail("cannot plan the reduction: " + why, error);
    }
    key.layout = kernel::MapLayout(plan.map, 2);
    result.threads = plan.threads;
    result.workspace_bytes = plan.workspace_bytes;
  }
  return true;
}

kernel::Shape ReducedShape(const kernel::Shape& losses, loss::Reduction reduction, bool over_dim0) {
  if (reduction == loss::Reduction::kNone) return losses;
  if (over_dim0 && !losses.empty()) return kernel::Shape(losses.begin() + 1, losses.end());
  return kernel::Shape{};
}

}  // namespace mse_loss
}  // namespace aclcpu
